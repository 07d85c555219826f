//! Privacy: what of a schedule a caller may see. Members' e-mails and absences' reasons
//! are personal data; owners see them (they manage the team), and each member sees
//! their own (the member whose e-mail is the caller's user e-mail). Everyone else gets
//! a copy with them removed.
//!
//! Every tool that shows or exports a schedule's content reads it through [`redact`]
//! (or [`Ctx::open_redacted`]), so the rule lives in one place. What the embedded view
//! reads (its view-only tools and `palmaplan://schedule/{id}/json`) is stricter:
//! [`strip_all`] and [`strip_command`] remove e-mails and reasons for EVERYONE, owners
//! included, since a view's answers pass through a host and show on a shared screen. Redaction only blanks
//! fields: ids, dates and counts stay, so risks and analyses computed on the redacted
//! copy are the same as on the stored state.

use palmaplan_model::command::Command;
use palmaplan_model::{AbsenceId, Member, MemberId, Schedule};

use super::{Ctx, Refusal, ScheduleRef};
use crate::storage::Role;

/// Who is looking at a schedule: their role on it and their own user e-mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Viewer {
    pub(crate) role: Role,
    /// The caller's user e-mail (None when unknown: then only an owner sees anything).
    pub(crate) email: Option<String>,
}

impl Viewer {
    pub(crate) fn new(role: Role, email: Option<String>) -> Viewer {
        Viewer { role, email }
    }

    /// Whether this viewer sees everything (owners do).
    pub(crate) fn sees_all(&self) -> bool {
        self.role == Role::Owner
    }

    /// Whether this viewer may see a member's e-mail and absence reasons: an owner, or
    /// the member themself (same e-mail, ignoring case and surrounding blanks).
    pub(crate) fn sees_member(&self, m: &Member) -> bool {
        if self.sees_all() {
            return true;
        }
        match (&self.email, &m.email) {
            (Some(mine), Some(theirs)) => same_email(mine, theirs),
            _ => false,
        }
    }
}

/// E-mails compare without case (the domain part is case-insensitive, and people do
/// not type the local part's case consistently either) and without surrounding blanks.
pub(crate) fn same_email(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    !a.is_empty() && a.to_lowercase() == b.to_lowercase()
}

/// A copy of `state` as `viewer` may see it.
// For the tools that hold a state to show rather than open one (history, versions,
// what_if): this family reads through `Ctx::open_redacted`.
#[allow(dead_code)]
pub(crate) fn redact(state: &Schedule, viewer: &Viewer) -> Schedule {
    let mut out = state.clone();
    redact_in_place(&mut out, viewer);
    out
}

/// Removes from `state` what `viewer` may not see: the e-mails of the other members
/// and the reasons of their absences. Returns how many e-mails and reasons it removed.
pub(crate) fn redact_in_place(state: &mut Schedule, viewer: &Viewer) -> usize {
    if viewer.sees_all() {
        return 0;
    }
    // Members are sorted by id: the ids seen come out sorted, ready for binary search.
    let seen: Vec<MemberId> = state
        .members
        .iter()
        .filter(|m| viewer.sees_member(m))
        .map(|m| m.id)
        .collect();
    let mut removed = 0;
    for m in &mut state.members {
        if seen.binary_search(&m.id).is_err() && m.email.take().is_some() {
            removed += 1;
        }
    }
    for a in &mut state.absences {
        if seen.binary_search(&a.member).is_err() && !a.reason.is_empty() {
            a.reason.clear();
            removed += 1;
        }
    }
    removed
}

/// Removes every member's e-mail and every absence's reason, whoever looks: what the
/// view's answers carry. Returns how many it removed.
pub(crate) fn strip_all(state: &mut Schedule) -> usize {
    let mut removed = 0;
    for m in &mut state.members {
        if m.email.take().is_some() {
            removed += 1;
        }
    }
    for a in &mut state.absences {
        if !a.reason.is_empty() {
            a.reason.clear();
            removed += 1;
        }
    }
    removed
}

/// Removes every e-mail and absence reason a journalled command carries (the view's
/// live updates). A removed field reads as "unchanged", which is all a reader without
/// it can know; a whole replaced state loses them as [`strip_all`] says.
pub(crate) fn strip_command(cmd: &mut Command) {
    match cmd {
        Command::AddMember { email, .. } => *email = None,
        Command::UpdateMember { email, .. } => *email = None,
        Command::AddAbsence { reason, .. } | Command::UpdateAbsence { reason, .. } => {
            *reason = None;
        }
        Command::ReplaceSchedule { schedule } => {
            strip_all(schedule);
        }
        _ => {}
    }
}

/// Removes the e-mail or the absence reason a page record carries (a live update's
/// delta, which is not read from a stripped schedule: see [`strip_all`]).
pub(crate) fn strip_record(record: &mut palmaplan_model::paging::Record<'_>) {
    use palmaplan_model::paging::Record;
    match record {
        Record::Member(m) if m.email.is_some() => m.to_mut().email = None,
        Record::Absence(a) if !a.reason.is_empty() => a.to_mut().reason.clear(),
        _ => {}
    }
}

/// A schedule opened for reading, already redacted for the caller.
#[derive(Clone, Debug)]
pub(crate) struct Opened {
    pub(crate) id: i64,
    pub(crate) rank: i64,
    pub(crate) viewer: Viewer,
    /// The state as the caller may see it.
    pub(crate) state: Schedule,
}

impl Ctx {
    /// The caller as a viewer of a schedule on which they have `role`.
    pub(crate) async fn viewer_as(&self, role: Role) -> Result<Viewer, Refusal> {
        if role == Role::Owner {
            // An owner sees everything: no need to read their e-mail.
            return Ok(Viewer::new(role, None));
        }
        let user = self
            .store()
            .user(self.caller.user_id)
            .await
            .map_err(|e| self.db_error(e))?;
        Ok(Viewer::new(role, user.map(|u| u.email)))
    }

    /// Opens a schedule (checking the role as `open` does), loads it, and redacts it
    /// for the caller.
    pub(crate) async fn open_redacted(&self, schedule: &ScheduleRef) -> Result<Opened, Refusal> {
        let (id, role) = self.open(schedule).await?;
        let viewer = self.viewer_as(role).await?;
        let stored = self.store().load(id).await.map_err(|e| self.db_error(e))?;
        let mut state = stored.state;
        redact_in_place(&mut state, &viewer);
        Ok(Opened {
            id,
            rank: stored.rank,
            viewer,
            state,
        })
    }
}

/// What a reader of the journal may see of private fields (see `redact_command`).
/// Unlike `Viewer`, it also knows which absences are the reader's own, loaded from the
/// state only when a command carries a reason.
pub(crate) struct CommandViewer {
    owner: bool,
    /// The caller's e-mail, lowercased.
    email: Option<String>,
    /// The absences of the member the caller is, from the current state: loaded only
    /// when an entry carries an absence reason.
    own_absences: Option<Vec<AbsenceId>>,
    /// The member ids whose e-mail is the caller's.
    own_members: Option<Vec<MemberId>>,
}

impl CommandViewer {
    pub(crate) fn new(owner: bool, email: Option<String>) -> CommandViewer {
        CommandViewer {
            owner,
            email: email.map(|e| e.trim().to_lowercase()),
            own_absences: None,
            own_members: None,
        }
    }

    fn own_email(&self, e: &str) -> bool {
        self.email
            .as_deref()
            .is_some_and(|mine| e.trim().to_lowercase() == mine)
    }

    /// Loads (once) which members and absences are the caller's own.
    pub(crate) async fn load_own(&mut self, ctx: &Ctx, id: i64) -> Result<(), Refusal> {
        if self.own_members.is_some() {
            return Ok(());
        }
        let s = ctx
            .store()
            .load(id)
            .await
            .map_err(|e| ctx.db_error(e))?
            .state;
        let members: Vec<MemberId> = s
            .members
            .iter()
            .filter(|m| m.email.as_deref().is_some_and(|e| self.own_email(e)))
            .map(|m| m.id)
            .collect();
        self.own_absences = Some(
            s.absences
                .iter()
                .filter(|a| members.contains(&a.member))
                .map(|a| a.id)
                .collect(),
        );
        self.own_members = Some(members);
        Ok(())
    }
}

/// Removes what the caller may not see from a command: members' e-mails other than
/// their own and absence reasons other than their own, unless they own the schedule.
/// A removed field reads as "unchanged", which is all a reader without it can know.
pub(crate) fn redact_command(cmd: &mut Command, v: &CommandViewer) {
    if v.owner {
        return;
    }
    let own_member = |m: MemberId| v.own_members.as_ref().is_some_and(|o| o.contains(&m));
    let own_absence = |a: AbsenceId| v.own_absences.as_ref().is_some_and(|o| o.contains(&a));
    match cmd {
        Command::AddMember { email, .. } if email.as_deref().is_some_and(|e| !v.own_email(e)) => {
            *email = None;
        }
        Command::UpdateMember { email, .. }
            if email
                .as_ref()
                .is_some_and(|e| e.as_deref().is_some_and(|e| !v.own_email(e))) =>
        {
            *email = None;
        }
        Command::AddAbsence { member, reason, .. } if !own_member(*member) => *reason = None,
        Command::UpdateAbsence {
            absence, reason, ..
        } if !own_absence(*absence) => *reason = None,
        Command::ReplaceSchedule { schedule } => {
            let mine: Vec<MemberId> = schedule
                .members
                .iter()
                .filter(|m| m.email.as_deref().is_some_and(|e| v.own_email(e)))
                .map(|m| m.id)
                .collect();
            for m in &mut schedule.members {
                if !mine.contains(&m.id) {
                    m.email = None;
                }
            }
            for a in &mut schedule.absences {
                if !mine.contains(&a.member) {
                    a.reason.clear();
                }
            }
        }
        _ => {}
    }
}

/// Whether redacting this command needs the current state (who the caller is).
pub(crate) fn needs_state(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::AddAbsence {
            reason: Some(_),
            ..
        } | Command::UpdateAbsence {
            reason: Some(_),
            ..
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::demo;

    fn viewer(role: Role, email: Option<&str>) -> Viewer {
        Viewer::new(role, email.map(str::to_owned))
    }

    #[test]
    fn owners_see_everything() {
        let s = demo::s4hana_migration();
        assert_eq!(redact(&s, &viewer(Role::Owner, None)), s);
    }

    #[test]
    fn others_see_no_email_and_no_reason() {
        let s = demo::s4hana_migration();
        for role in [Role::Viewer, Role::Editor] {
            let r = redact(&s, &viewer(role, Some("someone@example.org")));
            assert!(r.members.iter().all(|m| m.email.is_none()));
            assert!(r.absences.iter().all(|a| a.reason.is_empty()));
            // Nothing else changes.
            let mut back = r.clone();
            back.members = s.members.clone();
            back.absences = s.absences.clone();
            assert_eq!(back, s);
            let json = serde_json::to_string(&r).unwrap();
            assert!(!json.contains('@'), "{json}");
            assert!(!json.contains("médical"), "{json}");
        }
        // Without a known e-mail, nothing personal either.
        let r = redact(&s, &viewer(Role::Viewer, None));
        assert!(r.members.iter().all(|m| m.email.is_none()));
    }

    #[test]
    fn a_member_sees_their_own_whatever_the_case() {
        let s = demo::s4hana_migration();
        let r = redact(
            &s,
            &viewer(Role::Viewer, Some("  Thomas.Dubois@EXAMPLE.org ")),
        );
        let thomas = r
            .members
            .iter()
            .find(|m| m.name == "Thomas Dubois")
            .unwrap();
        assert_eq!(thomas.email.as_deref(), Some("thomas.dubois@example.org"));
        assert_eq!(r.absences[0].reason, "Rendez-vous médical");
        assert_eq!(
            r.members.iter().filter(|m| m.email.is_some()).count(),
            1,
            "only their own e-mail"
        );
    }

    #[test]
    fn the_view_gets_no_email_and_no_reason_even_for_owners() {
        let mut s = demo::s4hana_migration();
        assert!(strip_all(&mut s) >= 4);
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains('@') && !json.contains("médical"), "{json}");
        let mut cmds: Vec<Command> = serde_json::from_str(
            r#"[{"op":"add_member","name":"A","email":"a@b.c"},
                {"op":"update_member","member":1,"email":"x@y.z"},
                {"op":"update_member","member":1,"email":null},
                {"op":"add_absence","member":1,"start":"2026-01-01","end":"2026-01-02","reason":"Secret"},
                {"op":"update_absence","absence":2,"reason":"Secret"}]"#,
        )
        .unwrap();
        let mut replace = Command::ReplaceSchedule {
            schedule: Box::new(demo::s4hana_migration()),
        };
        strip_command(&mut replace);
        cmds.push(replace);
        for c in &mut cmds {
            strip_command(c);
        }
        let json = serde_json::to_string(&cmds).unwrap();
        assert!(
            !json.contains('@') && !json.contains("Secret") && !json.contains("médical"),
            "{json}"
        );
    }

    #[test]
    fn an_empty_email_matches_nobody() {
        assert!(!same_email("", ""));
        assert!(!same_email("  ", " "));
        assert!(same_email("A@b.c", "a@B.C"));
        let m = Member {
            id: MemberId(1),
            name: "X".into(),
            email: Some(String::new()),
        };
        assert!(!viewer(Role::Editor, Some("")).sees_member(&m));
    }
}

//! Who may run a command, as each command declares it: the table the server's one gate
//! reads for every write, whatever route the write came by (a dedicated tool,
//! `apply_patch`, `what_if`, a restore, an undo, the view's gestures or an `/embed`
//! link). The rules live here, beside the commands, so that a route cannot forget one:
//! the gate asks each command what it needs, it never knows which tool built it.
//!
//! Two things are declared:
//! - the least role ([`Clearance`]) the command needs on the schedule;
//! - the personal data it sets ([`Subject`]): members' e-mails (an e-mail decides who
//!   sees a member's private data) and absence reasons. Setting them is for the
//!   schedule's owners and for the member themself; the gate decides who "themself" is
//!   from the caller's own e-mail.
//!
//! Subjects are read against the state before the write (`before`) and, for items the
//! same list creates, the state after it (`after`): an absence added and given a reason
//! in one patch is still someone's absence.

use crate::schedule::*;

use super::Command;

/// The least role a command needs on a schedule (reading needs no command).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Clearance {
    Editor,
    Owner,
}

/// Whose personal data a command sets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// An existing member's e-mail or one of their absences' reasons.
    Member(MemberId),
    /// A new member's e-mail: the caller may set it only to their own e-mail (adding
    /// themself), or as an owner.
    NewEmail(String),
    /// Personal data of a member the states do not name (an absence that exists in
    /// neither state): only an owner may set it.
    Unknown,
}

impl Command {
    /// The least role this command needs. Every command of the patch language is an
    /// editor's today; owners' powers (sharing, deleting a schedule or a version) are
    /// not commands. Written as a match over every op so that a new command must say.
    pub fn clearance(&self) -> Clearance {
        match self {
            Command::AddGroup { .. }
            | Command::RenameGroup { .. }
            | Command::MoveGroup { .. }
            | Command::DeleteGroup { .. }
            | Command::AddRow { .. }
            | Command::RenameRow { .. }
            | Command::MoveRow { .. }
            | Command::SetRowMember { .. }
            | Command::DeleteRow { .. }
            | Command::AddPeriod { .. }
            | Command::MovePeriods { .. }
            | Command::ResizePeriod { .. }
            | Command::SetPeriodDates { .. }
            | Command::UpdatePeriod { .. }
            | Command::DeletePeriods { .. }
            | Command::AddMilestone { .. }
            | Command::MoveMilestone { .. }
            | Command::UpdateMilestone { .. }
            | Command::DeleteMilestone { .. }
            | Command::SetConstraint { .. }
            | Command::SetDeadline { .. }
            | Command::SetProgress { .. }
            | Command::AddLink { .. }
            | Command::UpdateLink { .. }
            | Command::DeleteLink { .. }
            | Command::AddAction { .. }
            | Command::SetActionStatus { .. }
            | Command::UpdateAction { .. }
            | Command::DeleteAction { .. }
            | Command::AddMember { .. }
            | Command::UpdateMember { .. }
            | Command::DeleteMember { .. }
            | Command::AddAbsence { .. }
            | Command::UpdateAbsence { .. }
            | Command::DeleteAbsence { .. }
            | Command::RenameSchedule { .. }
            | Command::SetScheduleNotes { .. }
            | Command::SetSettings { .. }
            | Command::ReplaceSchedule { .. }
            | Command::Lock { .. }
            | Command::Unlock { .. } => Clearance::Editor,
        }
    }

    /// The lock this command removes, as it is in `before`: removing someone else's
    /// lock is an owner's decision (the gate compares `by` with the caller).
    pub fn removes_lock<'s>(&self, before: &'s Schedule) -> Option<&'s Lock> {
        match self {
            Command::Unlock { target } => before.lock(*target),
            _ => None,
        }
    }

    /// Whose personal data this command sets, read in `before` (the state the write
    /// starts from) and `after` (the state it leads to). Deleting personal data sets
    /// none: a delete's inverse carries it back only through undo, which replays what
    /// the journal holds, never what a caller chose.
    pub fn personal(&self, before: &Schedule, after: &Schedule) -> Vec<Subject> {
        let absence_owner = |id: AbsenceId| {
            before
                .absence(id)
                .or_else(|| after.absence(id))
                .map_or(Subject::Unknown, |a| Subject::Member(a.member))
        };
        match self {
            Command::AddMember {
                email: Some(email), ..
            } if !email.trim().is_empty() => vec![Subject::NewEmail(email.clone())],
            Command::UpdateMember {
                member,
                email: Some(_),
                ..
            } => vec![Subject::Member(*member)],
            Command::AddAbsence {
                member,
                reason: Some(reason),
                ..
            } if !reason.is_empty() => vec![Subject::Member(*member)],
            Command::UpdateAbsence {
                absence,
                reason: Some(_),
                ..
            } => vec![absence_owner(*absence)],
            Command::ReplaceSchedule { schedule } => replaced(before, schedule),
            _ => Vec::new(),
        }
    }
}

/// What replacing `before` by `next` sets of personal data: every e-mail that differs
/// (by member id) and every absence reason that differs (by absence id).
fn replaced(before: &Schedule, next: &Schedule) -> Vec<Subject> {
    let mut out = Vec::new();
    for m in &next.members {
        match before.member(m.id) {
            Some(old) if old.email != m.email => out.push(Subject::Member(m.id)),
            Some(_) => {}
            None => {
                if let Some(email) = m.email.as_ref().filter(|e| !e.trim().is_empty()) {
                    out.push(Subject::NewEmail(email.clone()));
                }
            }
        }
    }
    for a in &next.absences {
        let old = before.absence(a.id).map_or("", |o| o.reason.as_str());
        if old != a.reason {
            out.push(Subject::Member(a.member));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    #[test]
    fn personal_fields_name_their_member() {
        let s = demo::s4hana_migration();
        let m = s.members[0].id;
        let set_email = Command::UpdateMember {
            member: m,
            name: None,
            email: Some(Some("x@example.net".into())),
        };
        assert_eq!(set_email.personal(&s, &s), vec![Subject::Member(m)]);
        let rename = Command::UpdateMember {
            member: m,
            name: Some("Z".into()),
            email: None,
        };
        assert!(rename.personal(&s, &s).is_empty());
        let add = Command::AddMember {
            id: None,
            name: "New".into(),
            email: Some("new@example.net".into()),
        };
        assert_eq!(
            add.personal(&s, &s),
            vec![Subject::NewEmail("new@example.net".into())]
        );
        let no_reason = Command::AddAbsence {
            id: None,
            member: m,
            start: s.bars[0].start,
            end: s.bars[0].start,
            reason: Some(String::new()),
        };
        assert!(no_reason.personal(&s, &s).is_empty());
        let unknown = Command::UpdateAbsence {
            absence: AbsenceId(999_999),
            start: None,
            end: None,
            reason: Some("r".into()),
        };
        assert_eq!(unknown.personal(&s, &s), vec![Subject::Unknown]);
    }

    #[test]
    fn a_replace_sets_what_differs_only() {
        let s = demo::s4hana_migration();
        let same = Command::ReplaceSchedule {
            schedule: Box::new(s.clone()),
        };
        assert!(same.personal(&s, &s).is_empty());
        let mut other = s.clone();
        other.members[0].email = Some("someone@example.net".into());
        if let Some(a) = other.absences.first_mut() {
            a.reason = "changed".into();
        }
        let m0 = other.members[0].id;
        let changed = Command::ReplaceSchedule {
            schedule: Box::new(other.clone()),
        };
        let subjects = changed.personal(&s, &other);
        assert!(subjects.contains(&Subject::Member(m0)));
        if let Some(a) = other.absences.first() {
            assert!(subjects.contains(&Subject::Member(a.member)));
        }
    }

    #[test]
    fn every_command_is_an_editors() {
        let s = demo::s4hana_migration();
        let cmd = Command::ReplaceSchedule {
            schedule: Box::new(s),
        };
        assert_eq!(cmd.clearance(), Clearance::Editor);
    }
}

//! The one gate: every write reaches the journal through [`Ctx::write`], whatever its
//! route (a dedicated tool, `apply_patch`, a restore, an undo or a redo, the view's
//! gestures, an `/embed` link), and `what_if` asks the same question through
//! [`Ctx::may_write`] without writing. The gate decides per command, from the table
//! the commands declare in the model (`Command::clearance`, `Command::personal`), never
//! from which tool built them, so a route cannot allow what another refuses.
//!
//! What it checks, in order, each a refusal with a text that says what to do:
//! - the token's scope: a read-only token writes nothing; a token (or link)
//!   restricted to one schedule writes only that one;
//! - the caller's role on the schedule NOW (read again at each write, capped by an
//!   `/embed` link), against each command's clearance;
//! - the personal data the commands set (members' e-mails, absence reasons): an owner
//!   may set anyone's, anyone else only their own — the member whose e-mail is their
//!   user e-mail. Undo and redo are exempt: they replay what the journal holds (the
//!   caller's own earlier write, or the values it replaced), never values the caller
//!   chose now;
//! - locks: a `lock` a caller sends is recorded in their name at the server's time
//!   (whatever the command said), and removing someone else's lock needs the owner
//!   role. What a lock holds is refused by the model's `apply` itself, on every
//!   route, undo included.
//!
//! Tool-level rules (a tool's role, a read-only token calling a writing tool, a
//! restricted token creating a schedule, an `/embed` link calling a tool the view does
//! not use) are decided once in `Planning::call` from each tool's declaration.

use crate::planning::Code;
use std::borrow::Cow;

use palmaplan_model::command::{ApplyError, Clearance, Command, Subject, lock_summary};
use palmaplan_model::push::Cascade;
use palmaplan_model::{Lang, Schedule, Scheduling};
use serde_json::json;

use super::privacy::same_email;
use super::{Ctx, Refusal, Wrote, role_name};
use crate::storage::{Change, EntryKind, Role, Written};

/// Where a write's commands come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Chosen by the caller now (every tool, `apply_patch`, a restore).
    Caller,
    /// Replayed from the journal by an undo or a redo of the caller's own entry.
    Journal,
}

/// Whether a write moves what is downstream of it (see `push`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cascading {
    /// As the schedule's `scheduling` setting says: a push in `auto`, nothing in
    /// `manual`.
    BySetting,
    /// Not this time.
    Off,
    /// This way, whatever the setting.
    On(Cascade),
}

impl Cascading {
    /// The cascade for a write on this state.
    pub(crate) fn on(self, s: &Schedule) -> Option<Cascade> {
        match self {
            Cascading::BySetting => {
                (s.settings.scheduling == Scheduling::Auto).then_some(Cascade::Push)
            }
            Cascading::Off => None,
            Cascading::On(c) => Some(c),
        }
    }
}

/// One write, as the gate takes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Write<'a> {
    pub(crate) commands: &'a [Command],
    /// Undo and redo replay the journal exactly: never a cascade.
    pub(crate) cascade: Cascading,
    /// Write only at this rank (decided in the writing transaction).
    pub(crate) expected_rank: Option<i64>,
    pub(crate) kind: EntryKind,
    /// The entry an undo or a redo answers.
    pub(crate) target_rank: Option<i64>,
    pub(crate) origin: Origin,
}

impl<'a> Write<'a> {
    /// A caller's write of `commands`.
    pub(crate) fn of(commands: &'a [Command], expected_rank: Option<i64>) -> Write<'a> {
        Write {
            commands,
            cascade: Cascading::BySetting,
            expected_rank,
            kind: EntryKind::Write,
            target_rank: None,
            origin: Origin::Caller,
        }
    }
}

/// Why a write did not happen.
#[derive(Debug)]
pub(crate) enum Failed {
    /// The gate (or the storage) refused it.
    Refused(Refusal),
    /// A command does not apply to the current state.
    Invalid(ApplyError),
    /// The schedule is no longer at the expected rank.
    OutOfDate(i64),
}

impl From<ApplyError> for Failed {
    fn from(e: ApplyError) -> Failed {
        Failed::Invalid(e)
    }
}

impl From<Refusal> for Failed {
    fn from(r: Refusal) -> Failed {
        Failed::Refused(r)
    }
}

/// Who writes, as the gate needs to know them.
#[derive(Clone, Debug)]
pub(crate) struct Writer {
    pub(crate) role: Role,
    pub(crate) user_id: i64,
    /// Their name, read only when a command sets a lock.
    pub(crate) name: Option<String>,
    /// Their user e-mail, read only when a command sets personal data and they are
    /// not an owner.
    pub(crate) email: Option<String>,
    pub(crate) lang: Lang,
}

impl Writer {
    /// The commands as this writer sends them: each `lock` in their name, now.
    pub(crate) fn sign<'c>(&self, cmds: &'c [Command], now_ms: i64) -> Cow<'c, [Command]> {
        if !cmds.iter().any(|c| matches!(c, Command::Lock { .. })) {
            return Cow::Borrowed(cmds);
        }
        let mut signed = cmds.to_vec();
        for c in &mut signed {
            if let Command::Lock {
                by,
                by_name,
                since_ms,
                ..
            } = c
            {
                *by = u64::try_from(self.user_id).unwrap_or(0);
                *by_name = self
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("#{}", self.user_id));
                *since_ms = now_ms;
            }
        }
        Cow::Owned(signed)
    }

    /// Refuses removing another person's lock unless the writer is an owner.
    pub(crate) fn check_unlocks(&self, cmds: &[Command], before: &Schedule) -> Result<(), Refusal> {
        if self.role == Role::Owner {
            return Ok(());
        }
        for (i, c) in cmds.iter().enumerate() {
            let Some(lock) = c.removes_lock(before) else {
                continue;
            };
            if i64::try_from(lock.by).ok() == Some(self.user_id) {
                continue;
            }
            let op = c.op();
            // Texts count from 1, as the model's errors do; `command` stays the index.
            let n = i + 1;
            let held = lock_summary(lock, self.lang);
            return Err(Refusal::new(
                Code::Forbidden,
                super::tr(
                    self.lang,
                    format!("La commande {n} ({op}) retirerait le verrou de quelqu'un d'autre ({held})\u{a0}: c'est à cette personne ou à un propriétaire du planning de le faire (votre rôle\u{a0}: {}). Rien n'a été écrit.", role_name(self.role, Lang::Fr)),
                    format!("Command {n} ({op}) would remove someone else's lock ({held}): only they or an owner of the schedule may (your role: {}). Nothing was written.", role_name(self.role, Lang::En)),
                ),
            )
            .with(json!({ "role": self.role.as_str(), "needed": "owner", "why": "unlock", "command": i, "op": op }))
            .for_person(super::tr(
                self.lang,
                format!("{} a posé ce verrou\u{a0}: seuls cette personne ou un propriétaire du planning peuvent le retirer. Rien n'a été modifié.", lock.by_name),
                format!("{} set this lock: only they or an owner of the schedule may remove it. Nothing was changed.", lock.by_name),
            )));
        }
        Ok(())
    }

    /// Refuses the first command whose clearance is above the writer's role.
    pub(crate) fn check_clearance(&self, cmds: &[Command]) -> Result<(), Refusal> {
        for (i, c) in cmds.iter().enumerate() {
            let needed = match c.clearance() {
                Clearance::Editor => Role::Editor,
                Clearance::Owner => Role::Owner,
            };
            if self.role < needed {
                return Err(forbidden(self.lang, self.role, needed, i, c.op()));
            }
        }
        Ok(())
    }

    /// Refuses the first command that sets someone else's personal data, unless the
    /// writer is an owner, judged on `before`, the state the commands apply to (a member
    /// the same list adds is nobody's own yet: an owner's to give personal data to).
    pub(crate) fn check_personal(
        &self,
        cmds: &[Command],
        before: &Schedule,
    ) -> Result<(), Refusal> {
        if self.role == Role::Owner {
            return Ok(());
        }
        let mine = |subject: &Subject| match (subject, self.email.as_deref()) {
            (Subject::Member(m), Some(me)) => before
                .member(*m)
                .and_then(|m| m.email.as_deref())
                .is_some_and(|theirs| same_email(me, theirs)),
            (Subject::NewEmail(e), Some(me)) => same_email(me, e),
            _ => false,
        };
        for (i, c) in cmds.iter().enumerate() {
            if c.personal(before, before).iter().all(mine) {
                continue;
            }
            let role = self.role;
            let op = c.op();
            let n = i + 1;
            return Err(Refusal::new(
                Code::Forbidden,
                super::tr(
                    self.lang,
                    format!(
                        "La commande {n} ({op}) change l'e-mail d'un membre ou le motif d'une absence\u{a0}: c'est au propriétaire du planning ou au membre lui-même de le faire (votre rôle\u{a0}: {}). Un e-mail décide qui voit les données privées d'un membre. Retirez «\u{a0}email\u{a0}» ou «\u{a0}reason\u{a0}» de la commande, ou demandez-le à un propriétaire. Rien n'a été écrit.",
                        role_name(role, Lang::Fr)
                    ),
                    format!(
                        "Command {n} ({op}) sets a member's e-mail or an absence's reason: only the schedule's owners or the member themself may (your role: {}). An e-mail decides who sees a member's private data. Leave “email” or “reason” out, or ask an owner. Nothing was written.",
                        role_name(role, Lang::En)
                    ),
                ),
            )
            .with(json!({ "role": role.as_str(), "needed": "owner", "why": "personal", "command": i, "op": op }))
            .for_person(super::tr(
                self.lang,
                "Seuls un propriétaire du planning ou le membre lui-même peuvent changer son e-mail ou le motif de ses absences\u{a0}: rien n'a été modifié.",
                "Only an owner of the schedule or the member themself may change their e-mail or the reason for their absences: nothing was changed.",
            )));
        }
        Ok(())
    }
}

/// A command above the caller's role.
fn forbidden(lang: Lang, role: Role, needed: Role, i: usize, op: &str) -> Refusal {
    let n = i + 1;
    Refusal::new(
        Code::Forbidden,
        super::tr(
            lang,
            format!(
                "La commande {n} ({op}) demande le rôle {}\u{202f}; le vôtre est {}. Demandez-le à un propriétaire du planning. Rien n'a été écrit.",
                role_name(needed, Lang::Fr),
                role_name(role, Lang::Fr)
            ),
            format!(
                "Command {n} ({op}) needs the {} role; yours is {}. Ask an owner of the schedule for it. Nothing was written.",
                role_name(needed, Lang::En),
                role_name(role, Lang::En)
            ),
        ),
    )
    .with(json!({ "role": role.as_str(), "needed": needed.as_str(), "why": "role", "command": i, "op": op }))
    .for_person(super::role_refused_for_person(lang, role, needed))
}

/// Whether any command may set personal data (then the writer's e-mail is needed).
fn may_set_personal(cmds: &[Command]) -> bool {
    cmds.iter().any(|c| {
        matches!(
            c,
            Command::AddMember { email: Some(_), .. }
                | Command::UpdateMember { email: Some(_), .. }
                | Command::AddAbsence {
                    reason: Some(_),
                    ..
                }
                | Command::UpdateAbsence {
                    reason: Some(_),
                    ..
                }
                | Command::ReplaceSchedule { .. }
        )
    })
}

impl Ctx {
    /// The caller as a writer of schedule `id`: their role there now (capped by a
    /// link), after the token's scope. `cmds` says whether their e-mail is needed.
    pub(crate) async fn writer(&self, id: i64, cmds: &[Command]) -> Result<Writer, Refusal> {
        let lang = self.lang();
        if !self.caller.can_write {
            return Err(Refusal::new(
                Code::ReadOnlyToken,
                self.tr(
                    "Ce jeton (ou ce lien) est en lecture seule\u{a0}: il ne modifie aucun planning. Créez un jeton avec la portée «\u{a0}write\u{a0}».",
                    "This token (or link) is read-only: it changes no schedule. Create a token with the “write” scope.",
                ),
            ));
        }
        if let Some(only) = self.caller.only_schedule
            && only != id
        {
            return Err(self.restricted(only, id));
        }
        let stored = self
            .store()
            .role(id, self.caller.user_id)
            .await
            .map_err(|e| self.db_error(e))?;
        let Some(role) = stored else {
            return Err(Refusal::new(
                Code::ScheduleNotFound,
                self.tr(
                    format!("Le planning {id} n'est pas parmi les vôtres. Appelez list_schedules pour voir leurs noms et ids."),
                    format!("Schedule {id} is not among yours. Call list_schedules to see their names and ids."),
                ),
            ));
        };
        let role = self.caller.max_role.map_or(role, |cap| role.min(cap));
        let locks = cmds.iter().any(|c| matches!(c, Command::Lock { .. }));
        let user = if locks || (role < Role::Owner && may_set_personal(cmds)) {
            self.store()
                .user(self.caller.user_id)
                .await
                .map_err(|e| self.db_error(e))?
        } else {
            None
        };
        let (email, name) = match user {
            Some(u) => (Some(u.email), Some(u.name)),
            None => (None, None),
        };
        Ok(Writer {
            role,
            user_id: self.caller.user_id,
            name,
            email,
            lang,
        })
    }

    /// `cmds` with each `lock` signed as the caller's, now: what a write of them would
    /// record, for a simulation (`what_if`).
    pub(crate) async fn signed(&self, cmds: Vec<Command>) -> Result<Vec<Command>, Refusal> {
        if !cmds.iter().any(|c| matches!(c, Command::Lock { .. })) {
            return Ok(cmds);
        }
        let name = self
            .store()
            .user(self.caller.user_id)
            .await
            .map_err(|e| self.db_error(e))?
            .map(|u| u.name);
        let writer = Writer {
            role: Role::Viewer,
            user_id: self.caller.user_id,
            name,
            email: None,
            lang: self.lang(),
        };
        Ok(writer.sign(&cmds, self.now_ms()).into_owned())
    }

    /// Whether the caller could write `cmds` on `before` (what `what_if` shows): the
    /// same verdict as [`Ctx::write`], decided on the same state, nothing written.
    pub(crate) async fn may_write(
        &self,
        id: i64,
        cmds: &[Command],
        before: &Schedule,
    ) -> Result<(), Refusal> {
        let writer = self.writer(id, cmds).await?;
        writer.check_clearance(cmds)?;
        super::zones::check_commands(self, cmds, before)?;
        writer.check_unlocks(cmds, before)?;
        writer.check_personal(cmds, before)
    }

    /// THE write: the gate, then the model's `apply` inside the storage's optimistic
    /// write, so one transaction checks the rank, stores the state and appends the
    /// journal entry. A journal entry that cannot be serialised fails the write: the
    /// journal never holds an entry whose undo would do nothing.
    pub(crate) async fn write(&self, id: i64, w: Write<'_>) -> Result<Wrote, Failed> {
        let writer = self.writer(id, w.commands).await?;
        writer.check_clearance(w.commands)?;
        let now = self.now_ms();
        let commands = match w.origin {
            Origin::Caller => writer.sign(w.commands, now),
            Origin::Journal => Cow::Borrowed(w.commands),
        };
        let out = self
            .store()
            .write(
                id,
                self.caller.user_id,
                now,
                w.expected_rank,
                |cur: &Schedule| {
                    // Decided on the state the commands will apply to, before they change it:
                    // the store applies them in place.
                    writer.check_unlocks(&commands, cur)?;
                    if w.origin == Origin::Caller {
                        writer.check_personal(&commands, cur)?;
                        // A zone the database does not know is refused when a caller
                        // gives it; the journal's own entries replay as they were.
                        super::zones::check_commands(self, &commands, cur)?;
                    }
                    let cascade = match w.origin {
                        Origin::Caller => w.cascade.on(cur),
                        Origin::Journal => None,
                    };
                    Ok::<_, Failed>(Change {
                        commands: commands.to_vec(),
                        kind: w.kind,
                        target_rank: w.target_rank,
                        cascade,
                        // The project end before, for the text that says what the
                        // cascade did.
                        result: cascade.and_then(|_| cur.span().map(|(_, end)| end)),
                    })
                },
            )
            .await
            .map_err(|e| Failed::Refused(self.db_error(e)))??;
        match out {
            Written::OutOfDate { current } => Err(Failed::OutOfDate(current)),
            Written::Done {
                rank,
                state,
                applied,
                inverse,
                cascade,
                result,
            } => Ok(Wrote {
                rank,
                state,
                applied,
                inverse,
                cascade,
                end_before: result,
            }),
        }
    }

    /// A token or link restricted to another schedule.
    pub(crate) fn restricted(&self, only: i64, id: i64) -> Refusal {
        Refusal::new(
            Code::TokenRestricted,
            self.tr(
                format!("Ce jeton est limité au planning {only}\u{a0}: il ne donne pas accès au planning {id}."),
                format!("This token is restricted to schedule {only}: it gives no access to schedule {id}."),
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::demo;

    fn writer(role: Role, email: Option<&str>) -> Writer {
        Writer {
            role,
            user_id: 2,
            name: Some("Bob".into()),
            email: email.map(str::to_owned),
            lang: Lang::En,
        }
    }

    #[test]
    fn personal_data_is_the_owners_or_the_members_own() {
        let mut s = demo::s4hana_migration();
        s.members[0].email = Some("camille@example.net".into());
        let m = s.members[0].id;
        let set = [Command::UpdateMember {
            member: m,
            name: None,
            email: Some(Some("other@example.net".into())),
        }];
        assert!(writer(Role::Owner, None).check_personal(&set, &s).is_ok());
        let e = writer(Role::Editor, Some("eve@example.net"))
            .check_personal(&set, &s)
            .unwrap_err();
        assert_eq!(e.code, Code::Forbidden);
        assert!(e.text.contains("Command 1 (update_member)"), "{}", e.text);
        assert!(
            writer(Role::Editor, Some(" Camille@Example.net "))
                .check_personal(&set, &s)
                .is_ok(),
            "the member themself"
        );
        let rename = [Command::UpdateMember {
            member: m,
            name: Some("C".into()),
            email: None,
        }];
        assert!(
            writer(Role::Editor, None)
                .check_personal(&rename, &s)
                .is_ok()
        );
    }

    #[test]
    fn clearance_is_checked_per_command() {
        let cmds = [Command::RenameSchedule { name: "x".into() }];
        assert!(writer(Role::Editor, None).check_clearance(&cmds).is_ok());
        let e = writer(Role::Viewer, None)
            .check_clearance(&cmds)
            .unwrap_err();
        assert_eq!(e.details["needed"], "editor");
        assert_eq!(e.details["op"], "rename_schedule");
    }

    mod routes {
        use super::super::super::journal_testkit::Kit;
        use super::super::super::{Caller, Reply};
        use serde_json::{Value, json};

        async fn verdicts(
            k: &Kit,
            who: &Caller,
            tool: &str,
            args: Value,
            cmds: Value,
        ) -> [String; 3] {
            let code = |r: &Reply| {
                if r.is_error {
                    r.structured["error"].as_str().unwrap_or("?").to_owned()
                } else {
                    "ok".to_owned()
                }
            };
            let rank = k.rank().await;
            let what_if = k
                .call(
                    who,
                    "what_if",
                    json!({"schedule": k.schedule, "commands": cmds}),
                )
                .await;
            let patch = k
                .call(
                    who,
                    "apply_patch",
                    json!({"schedule": k.schedule, "commands": cmds, "expected_rank": rank}),
                )
                .await;
            if !patch.is_error {
                k.ok(who, "undo", json!({"schedule": k.schedule})).await;
            }
            let dedicated = k.call(who, tool, args).await;
            if !dedicated.is_error {
                k.ok(who, "undo", json!({"schedule": k.schedule})).await;
            }
            let simulated = match what_if.structured["refused"]["error"].as_str() {
                _ if what_if.is_error => code(&what_if),
                Some(c) => c.to_owned(),
                None => "ok".to_owned(),
            };
            [code(&dedicated), code(&patch), simulated]
        }

        #[tokio::test]
        async fn an_editor_sets_no_email_by_any_route() {
            let k = Kit::new("gate_email").await;
            let before = k.rank().await;
            let v = verdicts(
                &k,
                &k.bob,
                "update_member",
                json!({"schedule": k.schedule, "member": 1, "email": "bob@example.org"}),
                json!([{"op": "update_member", "member": 1, "email": "bob@example.org"}]),
            )
            .await;
            assert_eq!(v, ["forbidden", "forbidden", "forbidden"].map(String::from));
            assert_eq!(k.rank().await, before, "a refused write changes nothing");
            // The owner may, by every route.
            let v = verdicts(
                &k,
                &k.alice,
                "update_member",
                json!({"schedule": k.schedule, "member": 1, "email": "c@example.org"}),
                json!([{"op": "update_member", "member": 1, "email": "c@example.org"}]),
            )
            .await;
            assert_eq!(v, ["ok", "ok", "ok"].map(String::from));
        }

        #[tokio::test]
        async fn a_viewer_writes_nothing_by_any_route() {
            let k = Kit::new("gate_viewer").await;
            let v = verdicts(
                &k,
                &k.carol,
                "move_periods",
                json!({"schedule": k.schedule, "bars": [14], "by": 1}),
                json!([{"op": "move_periods", "bars": [14], "by": 1}]),
            )
            .await;
            assert_eq!(v, ["forbidden", "forbidden", "forbidden"].map(String::from));
        }

        #[tokio::test]
        async fn a_panicking_tool_is_answered_and_the_service_goes_on() {
            let k = Kit::new("gate_panic").await;
            let r = k.call(&k.alice, "panic_for_test", json!({})).await;
            assert!(r.is_error);
            assert_eq!(r.structured["error"], "internal");
            assert!(r.text.contains("erreur interne"), "{}", r.text);
            k.ok(&k.alice, "get_schedule", json!({"schedule": k.schedule}))
                .await;
        }

        #[tokio::test]
        async fn a_restricted_token_creates_no_schedule() {
            let k = Kit::new("gate_restricted").await;
            let restricted = Caller {
                only_schedule: Some(k.schedule),
                ..k.alice.clone()
            };
            let count = k
                .planning
                .store()
                .schedules_of(k.alice.user_id)
                .await
                .unwrap()
                .len();
            for (tool, args) in [
                ("create_schedule", json!({"name": "X"})),
                (
                    "duplicate_schedule",
                    json!({"schedule": k.schedule, "name": "Y"}),
                ),
                ("import_schedule", json!({"json": "{}"})),
            ] {
                k.refused(&restricted, tool, args, "token_restricted").await;
            }
            let after = k
                .planning
                .store()
                .schedules_of(k.alice.user_id)
                .await
                .unwrap()
                .len();
            assert_eq!(count, after);
        }

        #[tokio::test]
        async fn a_link_calls_the_views_tools_only_and_never_as_owner() {
            let k = Kit::new("gate_link").await;
            let link = Caller {
                only_schedule: Some(k.schedule),
                max_role: Some(crate::storage::Role::Editor),
                ..k.alice.clone()
            };
            for (tool, args) in [
                (
                    "share_schedule",
                    json!({"schedule": k.schedule, "email": "bob@example.org", "role": "owner"}),
                ),
                (
                    "delete_schedule",
                    json!({"schedule": k.schedule, "confirm": true}),
                ),
                ("list_absences", json!({"schedule": k.schedule})),
            ] {
                k.refused(&link, tool, args, "outside_link").await;
            }
            k.ok(
                &link,
                "move_periods",
                json!({"schedule": k.schedule, "bars": [14], "by": 1}),
            )
            .await;
        }

        /// Every command op, by its dedicated tool (where one builds it) and as the
        /// same command through `apply_patch` and `what_if`, on the demo.
        /// A case: its name, the command, and the dedicated tool with its arguments.
        type Case = (&'static str, Value, Option<(&'static str, Value)>);

        fn cases() -> Vec<Case> {
            let s = json!(0); // replaced by the schedule's id
            vec![
                (
                    "add_group",
                    json!({"op": "add_group", "name": "Recette", "index": 1}),
                    Some((
                        "add_group",
                        json!({"schedule": s, "name": "Recette", "index": 1}),
                    )),
                ),
                (
                    "rename_group",
                    json!({"op": "rename_group", "group": 5, "name": "P"}),
                    Some((
                        "update_group",
                        json!({"schedule": s, "group": 5, "name": "P"}),
                    )),
                ),
                (
                    "move_group",
                    json!({"op": "move_group", "group": 9, "index": 0}),
                    Some((
                        "update_group",
                        json!({"schedule": s, "group": 9, "index": 0}),
                    )),
                ),
                (
                    "delete",
                    json!({"op": "delete_group", "group": 5}),
                    Some(("delete", json!({"schedule": s, "group": 5}))),
                ),
                (
                    "add_row",
                    json!({"op": "add_row", "group": 9, "name": "Support"}),
                    Some((
                        "add_row",
                        json!({"schedule": s, "group": 9, "name": "Support"}),
                    )),
                ),
                (
                    "rename_row",
                    json!({"op": "rename_row", "row": 6, "name": "Audit"}),
                    Some((
                        "update_row",
                        json!({"schedule": s, "row": 6, "name": "Audit"}),
                    )),
                ),
                (
                    "move_row",
                    json!({"op": "move_row", "row": 6, "group": 9, "index": 0}),
                    Some((
                        "update_row",
                        json!({"schedule": s, "row": 6, "group": 9, "index": 0}),
                    )),
                ),
                (
                    "set_row_member",
                    json!({"op": "set_row_member", "row": 10, "member": 4}),
                    Some(("update_row", json!({"schedule": s, "row": 10, "member": 4}))),
                ),
                (
                    "delete",
                    json!({"op": "delete_row", "row": 7}),
                    Some(("delete", json!({"schedule": s, "row": 7}))),
                ),
                (
                    "add_period",
                    json!({"op": "add_period", "row": 6, "label": "R", "start": "2026-11-16", "end": "2026-11-20"}),
                    Some((
                        "add_period",
                        json!({"schedule": s, "row": 6, "label": "R", "start": "2026-11-16", "end": "2026-11-20"}),
                    )),
                ),
                (
                    "move_periods",
                    json!({"op": "move_periods", "bars": [14, 15], "by": 5}),
                    Some((
                        "move_periods",
                        json!({"schedule": s, "bars": [14, 15], "by": 5}),
                    )),
                ),
                (
                    "resize_period",
                    json!({"op": "resize_period", "bar": 14, "edge": "end", "by": 2}),
                    Some((
                        "resize_period",
                        json!({"schedule": s, "bar": 14, "edge": "end", "by": 2}),
                    )),
                ),
                (
                    "set_period_dates",
                    json!({"op": "set_period_dates", "bar": 14, "start": "2026-11-10", "end": "2026-11-20"}),
                    Some((
                        "update_period",
                        json!({"schedule": s, "bar": 14, "start": "2026-11-10", "end": "2026-11-20"}),
                    )),
                ),
                (
                    "update_period",
                    json!({"op": "update_period", "bar": 14, "label": "N"}),
                    Some((
                        "update_period",
                        json!({"schedule": s, "bar": 14, "label": "N"}),
                    )),
                ),
                (
                    "delete_periods",
                    json!({"op": "delete_periods", "bars": [16]}),
                    Some((
                        "delete_periods",
                        json!({"schedule": s, "bars": [16], "confirm": true}),
                    )),
                ),
                (
                    "add_milestone",
                    json!({"op": "add_milestone", "row": 12, "label": "F", "date": "2027-01-15"}),
                    Some((
                        "add_milestone",
                        json!({"schedule": s, "row": 12, "label": "F", "date": "2027-01-15"}),
                    )),
                ),
                (
                    "move_milestone",
                    json!({"op": "move_milestone", "milestone": 19, "date": "2026-12-21"}),
                    Some((
                        "update_milestone",
                        json!({"schedule": s, "milestone": 19, "date": "2026-12-21"}),
                    )),
                ),
                (
                    "update_milestone",
                    json!({"op": "update_milestone", "milestone": 19, "label": "Go"}),
                    Some((
                        "update_milestone",
                        json!({"schedule": s, "milestone": 19, "label": "Go"}),
                    )),
                ),
                (
                    "delete",
                    json!({"op": "delete_milestone", "milestone": 19}),
                    Some(("delete", json!({"schedule": s, "milestone": 19}))),
                ),
                (
                    "set_constraint",
                    json!({"op": "set_constraint", "item": 17, "constraint": {"kind": "finish_no_later_than", "date": "2026-12-11"}}),
                    Some((
                        "set_constraint",
                        json!({"schedule": s, "item": 17, "kind": "finish_no_later_than", "date": "2026-12-11"}),
                    )),
                ),
                (
                    "set_deadline",
                    json!({"op": "set_deadline", "item": 19, "deadline": "2026-12-18"}),
                    Some((
                        "set_constraint",
                        json!({"schedule": s, "item": 19, "kind": "deadline", "date": "2026-12-18"}),
                    )),
                ),
                (
                    "set_progress",
                    json!({"op": "set_progress", "bars": [{"bar": 14, "percent": 40}]}),
                    Some((
                        "set_progress",
                        json!({"schedule": s, "bars": [{"bar": 14, "percent": 40}]}),
                    )),
                ),
                (
                    "add_link",
                    json!({"op": "add_link", "from": 14, "to": 15, "kind": "SS", "lag": 3}),
                    Some((
                        "add_link",
                        json!({"schedule": s, "from": 14, "to": 15, "kind": "SS", "lag": 3}),
                    )),
                ),
                (
                    "update_link",
                    json!({"op": "update_link", "link": 20, "lag": 8}),
                    Some(("update_link", json!({"schedule": s, "link": 20, "lag": 8}))),
                ),
                (
                    "delete",
                    json!({"op": "delete_link", "link": 20}),
                    Some(("delete", json!({"schedule": s, "link": 20}))),
                ),
                (
                    "add_action",
                    json!({"op": "add_action", "bar": 16, "label": "C"}),
                    Some((
                        "add_action",
                        json!({"schedule": s, "bar": 16, "label": "C"}),
                    )),
                ),
                (
                    "set_action_status",
                    json!({"op": "set_action_status", "action": 30, "status": "in_progress"}),
                    Some((
                        "set_action_status",
                        json!({"schedule": s, "action": 30, "status": "in_progress"}),
                    )),
                ),
                (
                    "update_action",
                    json!({"op": "update_action", "action": 30, "assignee": null}),
                    Some((
                        "update_action",
                        json!({"schedule": s, "action": 30, "assignee": null}),
                    )),
                ),
                (
                    "delete",
                    json!({"op": "delete_action", "action": 30}),
                    Some(("delete", json!({"schedule": s, "action": 30}))),
                ),
                (
                    "add_member",
                    json!({"op": "add_member", "name": "Léa"}),
                    Some(("add_member", json!({"schedule": s, "name": "Léa"}))),
                ),
                (
                    "add_member+email",
                    json!({"op": "add_member", "name": "Léa", "email": "lea@example.org"}),
                    Some((
                        "add_member",
                        json!({"schedule": s, "name": "Léa", "email": "lea@example.org"}),
                    )),
                ),
                (
                    "update_member",
                    json!({"op": "update_member", "member": 1, "name": "C"}),
                    Some((
                        "update_member",
                        json!({"schedule": s, "member": 1, "name": "C"}),
                    )),
                ),
                (
                    "update_member+email",
                    json!({"op": "update_member", "member": 1, "email": "bob@example.org"}),
                    Some((
                        "update_member",
                        json!({"schedule": s, "member": 1, "email": "bob@example.org"}),
                    )),
                ),
                (
                    "delete",
                    json!({"op": "delete_member", "member": 4}),
                    Some(("delete", json!({"schedule": s, "member": 4}))),
                ),
                (
                    "add_absence",
                    json!({"op": "add_absence", "member": 1, "start": "2026-12-10", "end": "2026-12-11"}),
                    Some((
                        "add_absence",
                        json!({"schedule": s, "member": 1, "start": "2026-12-10", "end": "2026-12-11"}),
                    )),
                ),
                (
                    "add_absence+reason",
                    json!({"op": "add_absence", "member": 1, "start": "2026-12-10", "end": "2026-12-11", "reason": "Congés"}),
                    Some((
                        "add_absence",
                        json!({"schedule": s, "member": 1, "start": "2026-12-10", "end": "2026-12-11", "reason": "Congés"}),
                    )),
                ),
                (
                    "update_absence",
                    json!({"op": "update_absence", "absence": 31, "end": "2026-11-30"}),
                    Some((
                        "update_absence",
                        json!({"schedule": s, "absence": 31, "end": "2026-11-30"}),
                    )),
                ),
                (
                    "update_absence+reason",
                    json!({"op": "update_absence", "absence": 31, "reason": "Autre"}),
                    Some((
                        "update_absence",
                        json!({"schedule": s, "absence": 31, "reason": "Autre"}),
                    )),
                ),
                (
                    "delete",
                    json!({"op": "delete_absence", "absence": 31}),
                    Some(("delete", json!({"schedule": s, "absence": 31}))),
                ),
                (
                    "rename_schedule",
                    json!({"op": "rename_schedule", "name": "B"}),
                    Some(("update_settings", json!({"schedule": s, "name": "B"}))),
                ),
                (
                    "set_schedule_notes",
                    json!({"op": "set_schedule_notes", "notes": "N"}),
                    None,
                ),
                (
                    "set_settings",
                    json!({"op": "set_settings", "time_unit": "week"}),
                    Some((
                        "update_settings",
                        json!({"schedule": s, "time_unit": "week"}),
                    )),
                ),
                (
                    "lock",
                    json!({"op": "lock", "target": {"bar": 14}, "reason": "r"}),
                    Some(("lock", json!({"schedule": s, "bar": 14, "reason": "r"}))),
                ),
            ]
        }

        /// Every op as owner, editor, viewer and a read-only token of the owner: the
        /// dedicated tool, apply_patch and what_if give one verdict.
        #[tokio::test]
        async fn every_op_gets_one_verdict_whatever_the_route() {
            let k = Kit::new("gate_every_op").await;
            let read_only = Caller {
                can_write: false,
                ..k.alice.clone()
            };
            let who = [
                ("owner", k.alice.clone()),
                ("editor", k.bob.clone()),
                ("viewer", k.carol.clone()),
                ("read-only", read_only),
            ];
            let mut failures = Vec::new();
            let mut ops = std::collections::BTreeSet::new();
            for (case, cmd, dedicated) in cases() {
                ops.insert(cmd["op"].as_str().unwrap().to_owned());
                for (name, caller) in &who {
                    let (tool, mut args) = dedicated.clone().unwrap_or(("apply_patch", json!({})));
                    args["schedule"] = json!(k.schedule);
                    let v = if dedicated.is_some() {
                        verdicts(&k, caller, tool, args, json!([cmd])).await
                    } else {
                        let rank = k.rank().await;
                        let patch = json!({"schedule": k.schedule, "commands": [cmd], "expected_rank": rank});
                        let mut v = verdicts(&k, caller, "apply_patch", patch, json!([cmd])).await;
                        v[0] = v[1].clone();
                        v
                    };
                    let expected = match (*name, case) {
                        ("owner", _) => "ok",
                        ("editor", c) if c.contains('+') => "forbidden",
                        ("editor", _) => "ok",
                        ("viewer", _) => "forbidden",
                        _ => "read_only_token",
                    };
                    if v.iter().any(|x| x != expected) {
                        failures.push(format!("{case} as {name}: {v:?}, expected {expected}"));
                    }
                }
            }
            assert!(failures.is_empty(), "{}", failures.join("\n"));
            // Every op but a whole replace (a restore's, checked through its tool in the
            // versions tests) has a case.
            // (`unlock` is checked with its holder in `locks_hold_by_every_route`.)
            assert_eq!(ops.len(), 39, "{ops:?}");
        }

        /// Locks hold by every route, for everyone, undo included; only the holder or
        /// an owner removes one; a lock is signed by the server, not the caller.
        #[tokio::test]
        async fn locks_hold_by_every_route() {
            let k = Kit::new("gate_locks").await;
            let s = k.schedule;
            k.refused(
                &k.carol,
                "lock",
                json!({"schedule": s, "bar": 14}),
                "forbidden",
            )
            .await;
            k.ok(
                &k.bob,
                "lock",
                json!({"schedule": s, "bar": 14, "reason": "Revue en cours"}),
            )
            .await;
            let summary = k.ok(&k.alice, "get_schedule", json!({"schedule": s})).await;
            assert_eq!(summary.structured["locks"][0]["target"], json!({"bar": 14}));
            // Exported with the schedule.
            let export = k
                .ok(
                    &k.alice,
                    "export_schedule",
                    json!({"schedule": s, "format": "json"}),
                )
                .await;
            let exported = export.structured.to_string() + &export.text;
            assert!(exported.contains("\"locks\"") && exported.contains("Revue en cours"));
            assert!(
                summary.text.contains("le bloc 14, par Bob"),
                "{}",
                summary.text
            );
            assert!(
                summary.text.contains("«\u{a0}Revue en cours\u{a0}»"),
                "{}",
                summary.text
            );
            let rank = k.rank().await;
            let move14 = json!([{"op": "move_periods", "bars": [14], "by": 1}]);
            let r = k
                .refused(
                    &k.alice,
                    "move_periods",
                    json!({"schedule": s, "bars": [14], "by": 1}),
                    "locked",
                )
                .await;
            assert!(r.text.contains("verrouillé par Bob"), "{}", r.text);
            assert_eq!(r.structured["lock"]["by_name"], "Bob");
            // The view shows the person the lock by the bar's label, not the model's
            // command numbers and tools.
            let person = palmaplan_model::wire::ResultMeta::read(&r.meta)
                .person_text
                .expect("person words");
            assert!(
                person.starts_with("Le bloc «\u{a0}")
                    && person.contains("» est verrouillé par Bob depuis le ")
                    && person.contains("(«\u{a0}Revue en cours\u{a0}»)")
                    && person.ends_with("Demandez à Bob de le déverrouiller."),
                "{person}"
            );
            k.refused(
                &k.alice,
                "apply_patch",
                json!({"schedule": s, "commands": move14, "expected_rank": rank}),
                "locked",
            )
            .await;
            k.refused(
                &k.alice,
                "what_if",
                json!({"schedule": s, "commands": move14}),
                "locked",
            )
            .await;
            // A cascade reaching it: deleting its row.
            k.refused(&k.bob, "delete", json!({"schedule": s, "row": 7}), "locked")
                .await;
            assert_eq!(k.rank().await, rank, "refused writes change nothing");

            // Undo of an earlier edit of an item locked since.
            k.ok(
                &k.bob,
                "move_periods",
                json!({"schedule": s, "bars": [16], "by": 1}),
            )
            .await;
            k.ok(&k.alice, "lock", json!({"schedule": s, "row": 10}))
                .await;
            k.refused(&k.bob, "undo", json!({"schedule": s}), "locked")
                .await;
            // Someone else's lock: only an owner removes it.
            let r = k
                .refused(
                    &k.bob,
                    "lock",
                    json!({"schedule": s, "row": 10, "unlock": true}),
                    "forbidden",
                )
                .await;
            assert_eq!(r.structured["needed"], "owner");
            assert_eq!(
                palmaplan_model::wire::ResultMeta::read(&r.meta)
                    .person_text
                    .as_deref(),
                Some(
                    "Alice a posé ce verrou\u{a0}: seuls cette personne ou un propriétaire du planning peuvent le retirer. Rien n'a été modifié."
                )
            );
            k.ok(
                &k.alice,
                "lock",
                json!({"schedule": s, "row": 10, "unlock": true}),
            )
            .await;
            k.ok(
                &k.bob,
                "lock",
                json!({"schedule": s, "bar": 14, "unlock": true}),
            )
            .await;

            // A lock sent through apply_patch in another name is signed as the caller.
            let rank = k.rank().await;
            let forged = json!([{"op": "lock", "target": "schedule", "by": 999, "by_name": "Mallory", "since_ms": 1}]);
            k.ok(
                &k.bob,
                "apply_patch",
                json!({"schedule": s, "commands": forged, "expected_rank": rank}),
            )
            .await;
            let state = k.state().await;
            let lock = state.lock(palmaplan_model::LockTarget::Schedule).unwrap();
            assert_eq!(
                (lock.by_name.as_str(), lock.by),
                ("Bob", k.bob.user_id as u64)
            );
            assert!(lock.since_ms > 1);
            k.refused(
                &k.alice,
                "update_settings",
                json!({"schedule": s, "name": "X"}),
                "locked",
            )
            .await;
            // Imported elsewhere, a schedule starts unlocked (its locks named people of
            // the schedule it came from).
            let mut exported = serde_json::to_value(k.state().await).unwrap();
            assert!(exported["locks"].is_array());
            exported["name"] = json!("Copie");
            let imported = k
                .ok(
                    &k.bob,
                    "import_schedule",
                    json!({"name": "Copie", "json": exported}),
                )
                .await;
            let copy = imported.structured["schedule_id"].as_i64().unwrap();
            let state = k.planning.store().load(copy).await.unwrap().state;
            assert!(state.locks.is_empty());
        }
    }
}

//! Actions (the to-dos on a bar), members and their absences. Deleting a member clears
//! them from rows and actions and deletes their absences; the inverse puts every one of
//! those back.

use crate::date::Date;
use crate::schedule::*;

use super::ctx::{At, Ctx, Res};
use super::{Command, cascade, check};

pub(super) fn add_action(
    cx: &mut Ctx<'_>,
    id: Option<ActionId>,
    bar: BarId,
    label: &str,
    status: Option<ActionStatus>,
    assignee: Option<MemberId>,
) -> Res<Command> {
    let id = ActionId(cx.new_id(id.map(|a| a.0))?);
    cx.bar_pos("bar", bar)?;
    check::name(label).at("label")?;
    cx.member_ref("assignee", assignee)?;
    let status = status.unwrap_or_default();
    cx.claim(id.0);
    cx.insert_action(Action {
        id,
        bar,
        label: label.to_owned(),
        status,
        assignee,
    });
    cx.undo_with(Command::DeleteAction { action: id });
    Ok(Command::AddAction {
        id: Some(id),
        bar,
        label: label.to_owned(),
        status: Some(status),
        assignee,
    })
}

pub(super) fn set_action_status(
    cx: &mut Ctx<'_>,
    action: ActionId,
    status: ActionStatus,
) -> Res<Command> {
    let pos = cx.action_pos("action", action)?;
    let old = std::mem::replace(&mut cx.s.actions[pos].status, status);
    cx.undo_with(Command::SetActionStatus {
        action,
        status: old,
    });
    Ok(Command::SetActionStatus { action, status })
}

pub(super) fn update_action(
    cx: &mut Ctx<'_>,
    action: ActionId,
    label: Option<&str>,
    assignee: Option<Option<MemberId>>,
) -> Res<Command> {
    let pos = cx.action_pos("action", action)?;
    if let Some(l) = label {
        check::name(l).at("label")?;
    }
    if let Some(a) = assignee {
        cx.member_ref("assignee", a)?;
    }
    let a = &mut cx.s.actions[pos];
    let undo = Command::UpdateAction {
        action,
        label: label.map(|l| std::mem::replace(&mut a.label, l.to_owned())),
        assignee: assignee.map(|m| std::mem::replace(&mut a.assignee, m)),
    };
    cx.undo_with(undo);
    Ok(Command::UpdateAction {
        action,
        label: label.map(str::to_owned),
        assignee,
    })
}

pub(super) fn delete_action(cx: &mut Ctx<'_>, action: ActionId) -> Res<Command> {
    let pos = cx.action_pos("action", action)?;
    let a = cx.s.actions.remove(pos);
    cx.undo_with(cascade::readd_action(a));
    Ok(Command::DeleteAction { action })
}

pub(super) fn add_member(
    cx: &mut Ctx<'_>,
    id: Option<MemberId>,
    name: &str,
    email: Option<&str>,
) -> Res<Command> {
    let id = MemberId(cx.new_id(id.map(|m| m.0))?);
    check::name(name).at("name")?;
    if let Some(e) = email {
        check::email(e).at("email")?;
    }
    cx.claim(id.0);
    cx.insert_member(Member {
        id,
        name: name.to_owned(),
        email: email.map(str::to_owned),
    });
    cx.undo_with(Command::DeleteMember { member: id });
    Ok(Command::AddMember {
        id: Some(id),
        name: name.to_owned(),
        email: email.map(str::to_owned),
    })
}

pub(super) fn update_member(
    cx: &mut Ctx<'_>,
    member: MemberId,
    name: Option<&str>,
    email: &Option<Option<String>>,
) -> Res<Command> {
    let pos = cx.member_pos("member", member)?;
    if let Some(n) = name {
        check::name(n).at("name")?;
    }
    if let Some(Some(e)) = email {
        check::email(e).at("email")?;
    }
    let m = &mut cx.s.members[pos];
    let undo = Command::UpdateMember {
        member,
        name: name.map(|n| std::mem::replace(&mut m.name, n.to_owned())),
        email: email
            .as_ref()
            .map(|e| std::mem::replace(&mut m.email, e.clone())),
    };
    cx.undo_with(undo);
    Ok(Command::UpdateMember {
        member,
        name: name.map(str::to_owned),
        email: email.clone(),
    })
}

pub(super) fn delete_member(cx: &mut Ctx<'_>, member: MemberId) -> Res<Command> {
    let pos = cx.member_pos("member", member)?;
    let s = &mut *cx.s;
    let m = s.members.remove(pos);
    let mut undo = vec![Command::AddMember {
        id: Some(m.id),
        name: m.name,
        email: m.email,
    }];
    for r in s.rows.iter_mut().filter(|r| r.member == Some(member)) {
        r.member = None;
        undo.push(Command::SetRowMember {
            row: r.id,
            member: Some(member),
        });
    }
    for a in s.actions.iter_mut().filter(|a| a.assignee == Some(member)) {
        a.assignee = None;
        undo.push(Command::UpdateAction {
            action: a.id,
            label: None,
            assignee: Some(Some(member)),
        });
    }
    for a in s.absences.extract_if(.., |a| a.member == member) {
        undo.push(readd_absence(a));
    }
    for cmd in undo {
        cx.undo_with(cmd);
    }
    Ok(Command::DeleteMember { member })
}

fn readd_absence(a: Absence) -> Command {
    Command::AddAbsence {
        id: Some(a.id),
        member: a.member,
        start: a.start,
        end: a.end,
        reason: Some(a.reason).filter(|r| !r.is_empty()),
    }
}

pub(super) fn add_absence(
    cx: &mut Ctx<'_>,
    id: Option<AbsenceId>,
    member: MemberId,
    (start, end): (Date, Date),
    reason: Option<&str>,
) -> Res<Command> {
    let id = AbsenceId(cx.new_id(id.map(|a| a.0))?);
    cx.member_pos("member", member)?;
    check::date(start).at("start")?;
    check::date(end).at("end")?;
    check::span(start, end).at("end")?;
    check::text(reason.unwrap_or("")).at("reason")?;
    cx.claim(id.0);
    cx.insert_absence(Absence {
        id,
        member,
        start,
        end,
        reason: reason.unwrap_or("").to_owned(),
    });
    cx.undo_with(Command::DeleteAbsence { absence: id });
    Ok(Command::AddAbsence {
        id: Some(id),
        member,
        start,
        end,
        reason: reason.map(str::to_owned),
    })
}

pub(super) fn update_absence(
    cx: &mut Ctx<'_>,
    absence: AbsenceId,
    start: Option<Date>,
    end: Option<Date>,
    reason: Option<&str>,
) -> Res<Command> {
    let pos = cx.absence_pos("absence", absence)?;
    if let Some(d) = start {
        check::date(d).at("start")?;
    }
    if let Some(d) = end {
        check::date(d).at("end")?;
    }
    let a = &cx.s.absences[pos];
    let field = if end.is_some() { "end" } else { "start" };
    check::span(start.unwrap_or(a.start), end.unwrap_or(a.end)).at(field)?;
    check::text(reason.unwrap_or("")).at("reason")?;
    let a = &mut cx.s.absences[pos];
    let undo = Command::UpdateAbsence {
        absence,
        start: start.map(|d| std::mem::replace(&mut a.start, d)),
        end: end.map(|d| std::mem::replace(&mut a.end, d)),
        reason: reason.map(|r| std::mem::replace(&mut a.reason, r.to_owned())),
    };
    cx.undo_with(undo);
    Ok(Command::UpdateAbsence {
        absence,
        start,
        end,
        reason: reason.map(str::to_owned),
    })
}

pub(super) fn delete_absence(cx: &mut Ctx<'_>, absence: AbsenceId) -> Res<Command> {
    let pos = cx.absence_pos("absence", absence)?;
    let a = cx.s.absences.remove(pos);
    cx.undo_with(readd_absence(a));
    Ok(Command::DeleteAbsence { absence })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::error::Problem;
    use crate::command::testkit::{d, fails, round_trip, sample};

    #[test]
    fn actions_follow_their_bar_and_assignee() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::AddAction {
                    id: None,
                    bar: BarId(13),
                    label: "Choisir les teintes".into(),
                    status: None,
                    assignee: Some(MemberId(2)),
                },
                Command::SetActionStatus {
                    action: ActionId(40),
                    status: ActionStatus::Done,
                },
                Command::UpdateAction {
                    action: ActionId(40),
                    label: Some("Béton commandé".into()),
                    assignee: Some(None),
                },
                Command::DeleteAction {
                    action: ActionId(41),
                },
            ],
        );
        let a = after.action(ActionId(60)).unwrap();
        assert_eq!(
            (a.status, a.assignee),
            (ActionStatus::Todo, Some(MemberId(2)))
        );
        let a = after.action(ActionId(40)).unwrap();
        assert_eq!((a.status, a.assignee), (ActionStatus::Done, None));
        assert!(after.action(ActionId(41)).is_none());
        let e = fails(
            &s,
            &[Command::AddAction {
                id: None,
                bar: BarId(20),
                label: "X".into(),
                status: None,
                assignee: None,
            }],
        );
        assert_eq!(e.field, "bar");
    }

    #[test]
    fn deleting_a_member_clears_them_everywhere_and_comes_back() {
        let s = sample();
        let after = round_trip(
            &s,
            &[Command::DeleteMember {
                member: MemberId(1),
            }],
        );
        assert!(after.member(MemberId(1)).is_none());
        assert_eq!(after.rows[0].member, None);
        assert_eq!(after.action(ActionId(40)).unwrap().assignee, None);
        assert!(after.absences.is_empty());
    }

    #[test]
    fn members_and_absences_are_edited() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::AddMember {
                    id: None,
                    name: "Chloé".into(),
                    email: Some("chloe@example.org".into()),
                },
                Command::UpdateMember {
                    member: MemberId(1),
                    name: None,
                    email: Some(None),
                },
                Command::AddAbsence {
                    id: None,
                    member: MemberId(60),
                    start: d("2026-12-21"),
                    end: d("2026-12-31"),
                    reason: None,
                },
                Command::UpdateAbsence {
                    absence: AbsenceId(50),
                    start: None,
                    end: Some(d("2026-11-13")),
                    reason: Some(String::new()),
                },
                Command::DeleteAbsence {
                    absence: AbsenceId(61),
                },
            ],
        );
        assert_eq!(after.member(MemberId(1)).unwrap().email, None);
        let a = after.absence(AbsenceId(50)).unwrap();
        assert_eq!((a.end, a.reason.as_str()), (d("2026-11-13"), ""));
        assert!(after.absence(AbsenceId(61)).is_none());

        let e = fails(
            &s,
            &[Command::UpdateMember {
                member: MemberId(2),
                name: None,
                email: Some(Some("bob@".into())),
            }],
        );
        assert_eq!(
            (e.field.as_str(), e.problem),
            (
                "email",
                Problem::BadEmail {
                    value: "bob@".into()
                }
            )
        );
        let e = fails(
            &s,
            &[Command::UpdateAbsence {
                absence: AbsenceId(50),
                start: Some(d("2026-11-13")),
                end: None,
                reason: None,
            }],
        );
        assert_eq!(e.field, "start");
    }
}

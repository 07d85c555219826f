//! Test helpers for the command module: a small schedule that exercises every kind of
//! item, and the round-trip check every command test relies on.

use crate::date::Date;
use crate::schedule::*;

use super::{ApplyError, Command, apply, validate_schedule};

pub(super) fn d(s: &str) -> Date {
    s.parse().expect("a test date")
}

pub(super) fn bar(id: u64, start: &str, end: &str) -> Bar {
    Bar {
        id: BarId(id),
        row: RowId(5),
        label: format!("Bar {id}"),
        start: d(start),
        end: d(end),
        color: None,
        notes: String::new(),
        pin: None,
        constraint: None,
        deadline: None,
        progress: 0,
        actual_start: None,
        actual_finish: None,
    }
}

pub(super) fn link(id: u64, from: u64, to: u64) -> Link {
    Link {
        id: LinkId(id),
        from: ItemId(from),
        to: ItemId(to),
        kind: LinkKind::FS,
        lag: 0,
    }
}

/// A small house-building plan, valid, with ids:
/// members 1 (Alice, absent 50), 2 (Bob); groups 3 (rows 5, 6) and 4 (row 7);
/// bars 10, 11 on row 5, 12 on row 6, 13 on row 7; milestone 20 on row 7;
/// links 30: 10 -> 11, 31: 11 -> 12, 32: 12 -> 20; actions 40 (bar 10, Alice) and
/// 41 (bar 12); next_id 60. 2026-11-11 is a holiday.
pub(super) fn sample() -> Schedule {
    let mut s = Schedule::new("Maison");
    s.settings.holidays = vec![d("2026-11-11")];
    s.members = vec![
        Member {
            id: MemberId(1),
            name: "Alice".into(),
            email: Some("alice@example.org".into()),
        },
        Member {
            id: MemberId(2),
            name: "Bob".into(),
            email: None,
        },
    ];
    s.groups = vec![
        Group {
            id: GroupId(3),
            name: "Gros œuvre".into(),
        },
        Group {
            id: GroupId(4),
            name: "Finitions".into(),
        },
    ];
    let row = |id, group, name: &str, member| Row {
        id: RowId(id),
        group: GroupId(group),
        name: name.into(),
        member,
    };
    s.rows = vec![
        row(5, 3, "Maçon", Some(MemberId(1))),
        row(6, 3, "Charpentier", None),
        row(7, 4, "Peintre", Some(MemberId(2))),
    ];
    let named = |mut b: Bar, row: u64, label: &str| {
        b.row = RowId(row);
        b.label = label.into();
        b
    };
    s.bars = vec![
        named(bar(10, "2026-11-02", "2026-11-06"), 5, "Fondations"),
        named(bar(11, "2026-11-09", "2026-11-13"), 5, "Murs"),
        named(bar(12, "2026-11-16", "2026-11-20"), 6, "Toiture"),
        named(bar(13, "2026-11-23", "2026-11-27"), 7, "Peinture"),
    ];
    s.bars[0].color = Some("#2f6fdf".into());
    s.bars[2].notes = "Tuiles commandées".into();
    s.milestones = vec![Milestone {
        id: MilestoneId(20),
        row: RowId(7),
        label: "Livraison".into(),
        date: d("2026-11-30"),
        color: None,
        notes: String::new(),
        constraint: None,
        deadline: None,
    }];
    s.links = vec![link(30, 10, 11), link(31, 11, 12), link(32, 12, 20)];
    s.actions = vec![
        Action {
            id: ActionId(40),
            bar: BarId(10),
            label: "Commander le béton".into(),
            status: ActionStatus::InProgress,
            assignee: Some(MemberId(1)),
        },
        Action {
            id: ActionId(41),
            bar: BarId(12),
            label: "Vérifier la charpente".into(),
            status: ActionStatus::Todo,
            assignee: None,
        },
    ];
    s.absences = vec![Absence {
        id: AbsenceId(50),
        member: MemberId(1),
        start: d("2026-11-10"),
        end: d("2026-11-12"),
        reason: "Congé".into(),
    }];
    s.next_id = 60;
    s
}

/// `a` equals `b` once `next_id`, which an undo does not restore, is set aside.
pub(super) fn same_but_next_id(a: &Schedule, b: &Schedule) -> bool {
    let mut a = a.clone();
    a.next_id = b.next_id;
    a == *b
}

/// Applies `cmds` to `s` and checks the four properties of every successful apply: the
/// result is valid, the inverse restores `s`, replaying `applied` on `s` gives the same
/// result, and the wire form of `applied` reads back the same. Returns the new state.
#[track_caller]
pub(super) fn round_trip(s: &Schedule, cmds: &[Command]) -> Schedule {
    let (after, done) = match apply(s, cmds) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    };
    if let Err(e) = validate_schedule(&after) {
        panic!("invalid after apply: {e}");
    }
    let (back, _) = apply(&after, &done.inverse).expect("the inverse applies");
    assert!(
        same_but_next_id(&back, s),
        "the inverse did not restore the schedule:\n{back:#?}"
    );
    let (replayed, _) = apply(s, &done.applied).expect("the journal replays");
    assert_eq!(replayed, after, "a replay of `applied` differs");
    let json = serde_json::to_string(&done.applied).unwrap();
    let read: Vec<Command> = serde_json::from_str(&json).unwrap();
    assert_eq!(read, done.applied, "{json}");
    after
}

/// Applies `cmds`, expects a failure, checks the schedule is exactly unchanged.
#[track_caller]
pub(super) fn fails(s: &Schedule, cmds: &[Command]) -> ApplyError {
    let mut copy = s.clone();
    let e = super::apply_in_place(&mut copy, cmds).expect_err("the list should fail");
    assert_eq!(&copy, s, "a failed apply changed the schedule");
    e
}

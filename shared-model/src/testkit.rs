//! Builders for the model's tests (compiled for tests only): a one-row schedule on a
//! Monday-to-Friday week with Armistice Day (Wednesday 2026-11-11) off, and bars,
//! milestones and links added by id, each collection kept sorted by id as commands
//! keep it. The critical path's, the push's and the constraints' worked examples all
//! start from it, so their dates read against the same calendar.

use crate::date::Date;
use crate::schedule::*;

/// A date written YYYY-MM-DD.
pub(crate) fn d(s: &str) -> Date {
    s.parse().expect("a test date")
}

/// Group 1000 holding row 1001, nothing else; ids from 1002.
pub(crate) fn one_row() -> Schedule {
    let mut s = Schedule::new("T");
    s.settings.holidays = vec![d("2026-11-11")];
    s.groups.push(Group {
        id: GroupId(1000),
        name: "G".into(),
    });
    s.rows.push(Row {
        id: RowId(1001),
        group: GroupId(1000),
        name: "R".into(),
        member: None,
    });
    s.next_id = 1002;
    s
}

/// Bar `id`, labelled "B<id>", on the row.
pub(crate) fn add_bar(s: &mut Schedule, id: u64, start: &str, end: &str) {
    s.bars.push(Bar {
        id: BarId(id),
        row: RowId(1001),
        label: format!("B{id}"),
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
    });
    s.bars.sort_by_key(|b| b.id);
}

/// Milestone `id`, labelled "M<id>", on the row.
pub(crate) fn add_milestone(s: &mut Schedule, id: u64, date: &str) {
    s.milestones.push(Milestone {
        id: MilestoneId(id),
        row: RowId(1001),
        label: format!("M{id}"),
        date: d(date),
        color: None,
        notes: String::new(),
        constraint: None,
        deadline: None,
    });
    s.milestones.sort_by_key(|m| m.id);
}

/// Link `id` from item `from` to item `to`.
pub(crate) fn add_link(s: &mut Schedule, id: u64, from: u64, to: u64, kind: LinkKind, lag: i32) {
    s.links.push(Link {
        id: LinkId(id),
        from: ItemId(from),
        to: ItemId(to),
        kind,
        lag,
    });
    s.links.sort_by_key(|l| l.id);
}

/// Gives an item a constraint the way `set_constraint` does: a bar's "start no earlier
/// than" is its pin, its other kinds its `constraint`; a milestone's any kind.
pub(crate) fn constrain(s: &mut Schedule, id: u64, kind: ConstraintKind, on: &str) {
    let c = Constraint { kind, date: d(on) };
    if let Some(b) = s.bars.iter_mut().find(|b| b.id == BarId(id)) {
        if kind == ConstraintKind::StartNoEarlierThan {
            b.pin = Some(c.date);
        } else {
            b.constraint = Some(c);
        }
    } else {
        let m = s.milestones.iter_mut().find(|m| m.id == MilestoneId(id));
        m.expect("an item of the schedule").constraint = Some(c);
    }
}

/// A text with its no-break spaces made visible, for snapshots: U+202F (before « ; ! ? % »)
/// as ⟨nnbsp⟩ and U+00A0 (before « : », inside guillemets) as ⟨nbsp⟩. The server's
/// tests write them the same way.
pub(crate) fn visible(t: &str) -> String {
    t.replace('\u{202f}', "⟨nnbsp⟩").replace('\u{a0}', "⟨nbsp⟩")
}

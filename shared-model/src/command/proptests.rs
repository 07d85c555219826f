//! Properties of `apply` on random schedules and random command lists (valid and
//! invalid mixed): a success is valid, undone exactly by its inverse and replayed
//! exactly from `applied`; a failure changes nothing; a list gives the same result as
//! its commands applied one by one (which exercises the deferred link checks); the delta
//! of its footprint brings the old state to the new one (live updates, `crate::delta`).
//!
//! Commands are generated as templates whose references are resolved against the
//! schedule at hand (mostly an existing item of the right kind, sometimes an unknown or
//! wrong-kind id), so that most commands reach the code past their lookups. The
//! generators (`template`, `build`, `schedule`) also feed the patch fuzz harness in
//! `crate::fuzz`, which mixes their commands with junk.

use proptest::collection::vec;
use proptest::prelude::*;

use crate::date::{Date, Weekday};
use crate::schedule::*;

use super::testkit::same_but_next_id;
use super::*;

/// A command before its references are resolved.
#[derive(Clone, Debug)]
pub(crate) struct Template {
    op: u8,
    refs: [u16; 3],
    /// A move, a resize, a lag or a position.
    n: i32,
    /// A date, as days from 2026-11-02, and a length in days.
    day: i32,
    len: i32,
    text: String,
    /// Picks among variants (colours, options, kinds).
    flag: u8,
}

pub(crate) fn template() -> impl Strategy<Value = Template> {
    let text = prop_oneof![
        12 => "[A-Za-zé]{1,6}",
        1 => Just(String::new()),
        1 => Just("  ".to_owned()),
    ];
    (
        any::<u8>(),
        any::<[u16; 3]>(),
        -12i32..12,
        -20i32..80,
        -2i32..10,
        text,
        any::<u8>(),
    )
        .prop_map(|(op, refs, n, day, len, text, flag)| Template {
            op,
            refs,
            n,
            day,
            len,
            text,
            flag,
        })
}

/// The ids of each kind in a schedule.
pub(crate) struct Pools {
    groups: Vec<u64>,
    rows: Vec<u64>,
    bars: Vec<u64>,
    milestones: Vec<u64>,
    items: Vec<u64>,
    links: Vec<u64>,
    actions: Vec<u64>,
    members: Vec<u64>,
    absences: Vec<u64>,
}

impl Pools {
    pub(crate) fn of(s: &Schedule) -> Pools {
        let bars: Vec<u64> = s.bars.iter().map(|b| b.id.0).collect();
        let milestones: Vec<u64> = s.milestones.iter().map(|m| m.id.0).collect();
        let mut items: Vec<u64> = bars.iter().chain(&milestones).copied().collect();
        items.sort_unstable();
        Pools {
            groups: s.groups.iter().map(|g| g.id.0).collect(),
            rows: s.rows.iter().map(|r| r.id.0).collect(),
            items,
            bars,
            milestones,
            links: s.links.iter().map(|l| l.id.0).collect(),
            actions: s.actions.iter().map(|a| a.id.0).collect(),
            members: s.members.iter().map(|m| m.id.0).collect(),
            absences: s.absences.iter().map(|a| a.id.0).collect(),
        }
    }
}

/// Mostly an id from the pool; one time in sixteen any small id (likely another kind)
/// or an unknown one.
fn pick(pool: &[u64], r: u16) -> u64 {
    if r.is_multiple_of(16) || pool.is_empty() {
        [0, 999, u64::from(r / 16) % 50][usize::from(r / 16) % 3]
    } else {
        pool[usize::from(r) % pool.len()]
    }
}

pub(crate) fn build(p: &Pools, t: &Template, additions_only: bool) -> Command {
    let [a, b, c] = t.refs;
    let f = t.flag;
    let day = Date::from_ymd(2026, 11, 2).unwrap().add_days(t.day);
    let color = match f % 8 {
        0 => Some("#2f6fdf".to_owned()),
        1 => Some("#abc".to_owned()),
        2 if f % 32 == 2 => Some("bleu".to_owned()),
        _ => None,
    };
    let maybe = |bit: u8| f & (1 << bit) != 0;
    // An explicit id now and then: often free, sometimes taken.
    let explicit = (c % 16 == 15).then(|| pick(&p.items, c) + u64::from(c % 32 == 31) * 200);
    let index = if maybe(3) {
        None
    } else {
        Some(t.n.unsigned_abs() as usize % 5)
    };
    let by = if f % 64 == 63 { 200_000 } else { t.n };
    let kind = [LinkKind::FS, LinkKind::SS, LinkKind::FF, LinkKind::SF][usize::from(f % 4)];
    let text = t.text.clone();
    let op = if additions_only { t.op % 11 } else { t.op % 39 };
    let constraint = |d: Date| {
        let kinds = ConstraintKind::ALL;
        maybe(6).then(|| Constraint {
            kind: kinds[usize::from(f / 8) % kinds.len()],
            date: d,
        })
    };
    match op {
        0 => Command::AddGroup {
            id: explicit.map(GroupId),
            name: text,
            index,
        },
        1 => Command::AddRow {
            id: explicit.map(RowId),
            group: GroupId(pick(&p.groups, a)),
            name: text,
            member: maybe(4).then(|| MemberId(pick(&p.members, b))),
            index,
        },
        2 | 3 => Command::AddPeriod {
            id: explicit.map(BarId),
            row: RowId(pick(&p.rows, a)),
            label: text,
            start: day,
            end: day.add_days(t.len),
            color,
            notes: maybe(4).then(|| "n".to_owned()),
            pin: maybe(5).then_some(day),
        },
        4 => Command::AddMilestone {
            id: explicit.map(MilestoneId),
            row: RowId(pick(&p.rows, a)),
            label: text,
            date: day,
            color,
            notes: None,
        },
        // Links mostly go from a smaller id to a larger one, as plans do, so that long
        // lists of them often succeed; the rest may close cycles.
        5 | 6 => Command::AddLink {
            id: explicit.map(LinkId),
            from: ItemId(pick(&p.items, a).min(pick(&p.items, b))),
            to: ItemId(if maybe(6) && maybe(5) {
                pick(&p.items, a)
            } else {
                pick(&p.items, a).max(pick(&p.items, b))
            }),
            kind: maybe(4).then_some(kind),
            lag: maybe(5).then_some(t.n),
        },
        7 => match f % 3 {
            0 => Command::AddAction {
                id: explicit.map(ActionId),
                bar: BarId(pick(&p.bars, a)),
                label: text,
                status: None,
                assignee: maybe(4).then(|| MemberId(pick(&p.members, b))),
            },
            1 => Command::AddMember {
                id: explicit.map(MemberId),
                name: text,
                email: maybe(4).then(|| if maybe(5) { "a@b.fr" } else { "nope" }.to_owned()),
            },
            _ => Command::AddAbsence {
                id: explicit.map(AbsenceId),
                member: MemberId(pick(&p.members, a)),
                start: day,
                end: day.add_days(t.len),
                reason: maybe(4).then(|| "r".to_owned()),
            },
        },
        // Constraints and deadlines are additions too, so generated schedules have
        // them (with dates in range or not, on bars, milestones or neither).
        8 => Command::SetConstraint {
            item: ItemId(pick(&p.items, a)),
            constraint: constraint(day.add_days(t.len * 10 - 10)),
        },
        9 => Command::SetDeadline {
            item: ItemId(pick(&p.items, a)),
            deadline: maybe(7).then(|| {
                if by == 200_000 {
                    Date::from_days(9_000_000)
                } else {
                    day.add_days(t.len)
                }
            }),
        },
        // Progress is an addition too, so generated schedules have some (percents
        // over 100 and finishes below 100 or before the start refused now and then).
        10 => Command::SetProgress {
            bars: [a, b]
                .iter()
                .take(1 + usize::from(f % 2))
                .map(|r| ProgressEntry {
                    bar: BarId(pick(&p.bars, *r)),
                    percent: maybe(2).then_some(if by == 200_000 {
                        101
                    } else {
                        (t.n.unsigned_abs() % 101) as u8
                    }),
                    actual_start: maybe(3).then(|| maybe(4).then_some(day)),
                    actual_finish: maybe(5).then(|| maybe(6).then(|| day.add_days(t.len - 2))),
                })
                .collect(),
        },
        11 => Command::RenameGroup {
            group: GroupId(pick(&p.groups, a)),
            name: text,
        },
        12 => Command::MoveGroup {
            group: GroupId(pick(&p.groups, a)),
            index: index.unwrap_or(0),
        },
        13 => Command::DeleteGroup {
            group: GroupId(pick(&p.groups, a)),
        },
        14 => Command::RenameRow {
            row: RowId(pick(&p.rows, a)),
            name: text,
        },
        15 => Command::MoveRow {
            row: RowId(pick(&p.rows, a)),
            group: maybe(4).then(|| GroupId(pick(&p.groups, b))),
            index: index.unwrap_or(1),
        },
        16 => Command::SetRowMember {
            row: RowId(pick(&p.rows, a)),
            member: maybe(4).then(|| MemberId(pick(&p.members, b))),
        },
        17 => Command::DeleteRow {
            row: RowId(pick(&p.rows, a)),
        },
        18 | 19 => Command::MovePeriods {
            bars: [a, b]
                .iter()
                .take(usize::from(f % 3))
                .map(|r| BarId(pick(&p.bars, *r)))
                .collect(),
            milestones: maybe(4)
                .then(|| MilestoneId(pick(&p.milestones, c)))
                .into_iter()
                .collect(),
            by,
        },
        20 => Command::ResizePeriod {
            bar: BarId(pick(&p.bars, a)),
            edge: if maybe(4) { Edge::Start } else { Edge::End },
            by,
        },
        21 => Command::SetPeriodDates {
            bar: BarId(pick(&p.bars, a)),
            start: day,
            end: day.add_days(t.len),
        },
        22 => Command::UpdatePeriod {
            bar: BarId(pick(&p.bars, a)),
            label: maybe(3).then_some(text),
            color: maybe(4).then_some(color),
            notes: maybe(5).then(|| "x".to_owned()),
            pin: maybe(6).then(|| maybe(2).then_some(day)),
            row: maybe(7).then(|| RowId(pick(&p.rows, b))),
        },
        23 => Command::DeletePeriods {
            bars: [a, b]
                .iter()
                .take(usize::from(f % 3))
                .map(|r| BarId(pick(&p.bars, *r)))
                .collect(),
        },
        24 => Command::MoveMilestone {
            milestone: MilestoneId(pick(&p.milestones, a)),
            date: day,
        },
        25 => Command::UpdateMilestone {
            milestone: MilestoneId(pick(&p.milestones, a)),
            label: maybe(3).then_some(text),
            color: maybe(4).then_some(color),
            notes: maybe(5).then(|| "y".to_owned()),
            row: maybe(7).then(|| RowId(pick(&p.rows, b))),
        },
        26 => Command::DeleteMilestone {
            milestone: MilestoneId(pick(&p.milestones, a)),
        },
        27 => Command::UpdateLink {
            link: LinkId(pick(&p.links, a)),
            kind: maybe(4).then_some(kind),
            lag: maybe(5).then_some(t.n),
        },
        28 | 29 => Command::DeleteLink {
            link: LinkId(pick(&p.links, a)),
        },
        30 => Command::SetActionStatus {
            action: ActionId(pick(&p.actions, a)),
            status: ActionStatus::ALL[usize::from(f % 3)],
        },
        31 => Command::UpdateAction {
            action: ActionId(pick(&p.actions, a)),
            label: maybe(3).then_some(text),
            assignee: maybe(4).then(|| maybe(5).then(|| MemberId(pick(&p.members, b)))),
        },
        32 => Command::DeleteAction {
            action: ActionId(pick(&p.actions, a)),
        },
        33 => Command::UpdateMember {
            member: MemberId(pick(&p.members, a)),
            name: maybe(3).then_some(text),
            email: maybe(4).then(|| maybe(5).then(|| "m@x.org".to_owned())),
        },
        34 => Command::DeleteMember {
            member: MemberId(pick(&p.members, a)),
        },
        35 => Command::UpdateAbsence {
            absence: AbsenceId(pick(&p.absences, a)),
            start: maybe(3).then_some(day),
            end: maybe(4).then(|| day.add_days(t.len)),
            reason: maybe(5).then(String::new),
        },
        36 => Command::DeleteAbsence {
            absence: AbsenceId(pick(&p.absences, a)),
        },
        37 => Command::SetSettings {
            time_zone: maybe(3).then(|| "UTC".to_owned()),
            working_weekdays: maybe(4).then(|| {
                Weekday::ALL
                    .iter()
                    .copied()
                    .filter(|w| b & (1 << w.index()) != 0)
                    .collect()
            }),
            holidays: maybe(5).then(|| vec![day, day.add_days(t.len)]),
            time_unit: maybe(6).then_some(if maybe(2) {
                TimeUnit::Week
            } else {
                TimeUnit::Day
            }),
            scheduling: maybe(7).then_some(if maybe(1) {
                Scheduling::Auto
            } else {
                Scheduling::Manual
            }),
        },
        _ => match f % 2 {
            0 => Command::RenameSchedule { name: text },
            _ => Command::SetScheduleNotes { notes: text },
        },
    }
}

/// A schedule built by random additions, each resolved against the schedule so far;
/// failures are skipped.
pub(crate) fn schedule(additions: std::ops::Range<usize>) -> impl Strategy<Value = Schedule> {
    vec(template(), additions).prop_map(|ts| {
        let mut s = Schedule::new("P");
        s.settings.holidays = vec![Date::from_ymd(2026, 11, 11).unwrap()];
        // A skeleton first, so that additions have something to refer to.
        let skeleton = [
            Command::AddGroup {
                id: None,
                name: "G".into(),
                index: None,
            },
            Command::AddMember {
                id: None,
                name: "M".into(),
                email: None,
            },
            Command::AddRow {
                id: None,
                group: GroupId(1),
                name: "R".into(),
                member: Some(MemberId(2)),
                index: None,
            },
        ];
        apply_in_place(&mut s, &skeleton).expect("a valid skeleton");
        for t in &ts {
            let c = build(&Pools::of(&s), t, true);
            let _ = apply_in_place(&mut s, std::slice::from_ref(&c));
        }
        s
    })
}

/// A schedule and a list of commands resolved against it.
fn case(
    list: std::ops::Range<usize>,
    link_heavy: bool,
) -> impl Strategy<Value = (Schedule, Vec<Command>)> {
    let additions = if link_heavy { 40..150 } else { 0..80 };
    (schedule(additions), vec(template(), list)).prop_map(move |(s, ts)| {
        let p = Pools::of(&s);
        let cmds = ts
            .iter()
            .map(|t| match link_heavy && t.flag % 8 != 0 {
                true => forward_link(&p, t),
                false => build(&p, t, false),
            })
            .collect();
        (s, cmds)
    })
}

/// A link from an item to a later one (rarely the other way round), of any kind: most
/// such links are valid, so long lists of them reach the end of a list.
fn forward_link(p: &Pools, t: &Template) -> Command {
    let n = p.items.len();
    if n < 2 {
        return build(p, t, false);
    }
    let i = usize::from(t.refs[0]) % (n - 1);
    let j = i + 1 + usize::from(t.refs[1]) % (n - i - 1);
    let (from, to) = if t.flag.is_multiple_of(29) {
        (j, i)
    } else {
        (i, j)
    };
    Command::AddLink {
        id: None,
        from: ItemId(p.items[from]),
        to: ItemId(p.items[to]),
        kind: Some(
            [LinkKind::FS, LinkKind::SS, LinkKind::FF, LinkKind::SF][usize::from(t.refs[2] % 4)],
        ),
        lag: None,
    }
}

/// Applies commands one list each, stopping at the first failure.
fn one_by_one(s: &Schedule, cmds: &[Command]) -> (Schedule, Option<(usize, Problem)>) {
    let mut s = s.clone();
    for (i, c) in cmds.iter().enumerate() {
        if let Err(e) = apply_in_place(&mut s, std::slice::from_ref(c)) {
            return (s, Some((i, e.problem)));
        }
    }
    (s, None)
}

fn check_list(base: &Schedule, cmds: &[Command]) -> Result<(), TestCaseError> {
    prop_assert!(validate_schedule(base).is_ok());
    let mut s = base.clone();
    match apply_in_place(&mut s, cmds) {
        Ok(done) => {
            if let Err(e) = validate_schedule(&s) {
                return Err(TestCaseError::fail(format!("invalid after apply: {e}")));
            }
            let (back, _) = apply(&s, &done.inverse)
                .map_err(|e| TestCaseError::fail(format!("inverse failed: {e}")))?;
            prop_assert!(same_but_next_id(&back, base), "the inverse did not restore");
            let (replayed, _) = apply(base, &done.applied)
                .map_err(|e| TestCaseError::fail(format!("replay failed: {e}")))?;
            prop_assert_eq!(&replayed, &s);
            let (stepwise, failed) = one_by_one(base, cmds);
            prop_assert_eq!(failed, None);
            prop_assert!(same_but_next_id(&stepwise, &s));
            // A live update: the delta of the entry's footprint (commands and inverse)
            // brings the old state to the new one exactly.
            let touched = crate::delta::touched(done.applied.iter().chain(&done.inverse));
            let whole = done.applied.iter().any(|c| c.footprint().whole);
            if !whole {
                let mut copy = base.clone();
                crate::delta::apply_delta(&mut copy, crate::delta::delta(&s, &touched))
                    .map_err(|e| TestCaseError::fail(format!("delta refused: {e}")))?;
                prop_assert_eq!(&copy, &s, "the delta did not bring the new state");
            }
        }
        Err(e) => {
            prop_assert_eq!(&s, base, "a failed apply changed the schedule");
            let (_, failed) = one_by_one(base, cmds);
            prop_assert_eq!(failed, Some((e.command, e.problem)));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn apply_is_atomic_reversible_and_replayable((base, cmds) in case(1..8, false)) {
        check_list(&base, &cmds)?;
    }

    /// Long lists heavy in link additions take the deferred link checks.
    #[test]
    fn long_link_lists_agree_with_one_by_one((base, cmds) in case(10..30, true)) {
        check_list(&base, &cmds)?;
    }
}

//! The invariants of a whole schedule, checked on data that did not come through
//! commands (an import, a file restored by hand): every command keeps them, so a
//! schedule that passes can be changed by `apply` safely.
//!
//! Checked: texts, colours, e-mails, time zone and dates obey the field rules of
//! `check`; weekdays and holidays sorted without duplicates, at least one working
//! weekday; collections other than groups and rows sorted by id; ids unique across all
//! kinds, in 1..=MAX_ID and below `next_id`; rows contiguous per group, in group order;
//! every reference names an item of the right kind; ends not before starts; constraint
//! and deadline dates in range, a bar's "start no earlier than" in its pin; a bar's
//! progress at most 100, 100 with an actual finish, which is not before its actual
//! start; links
//! between two different items, each (from, to, kind) once, lags within bounds, no
//! cycle.

use crate::schedule::*;

use super::check::{self, MAX_ID};
use super::error::{Kind, Problem, ScheduleError};
use super::graph::{self, LinkFault};

type Checked = Result<(), ScheduleError>;

/// Locates a field-level problem; the path is only formatted on failure, since a
/// 100,000-bar schedule checks a million fields.
macro_rules! at {
    ($r:expr, $($path:tt)+) => {
        $r.map_err(|problem| ScheduleError {
            path: format!($($path)+),
            problem,
        })
    };
}

fn fail(path: impl Into<String>, problem: Problem) -> Checked {
    Err(ScheduleError {
        path: path.into(),
        problem,
    })
}

/// Checks every invariant that commands keep; the first broken one is reported with
/// the path of the offending field.
pub fn validate_schedule(s: &Schedule) -> Checked {
    at!(check::name(&s.name), "name")?;
    at!(check::text(&s.notes), "notes")?;
    settings(&s.settings)?;
    sorted_collections(s)?;
    ids(s)?;
    outline(s)?;
    periods(s)?;
    links(s)?;
    people(s)
}

fn settings(st: &Settings) -> Checked {
    at!(check::time_zone(&st.time_zone), "settings.time_zone")?;
    if st.working_weekdays.is_empty() {
        return fail("settings.working_weekdays", Problem::NoWorkingWeekday);
    }
    if !st.working_weekdays.windows(2).all(|w| w[0] < w[1]) {
        return fail("settings.working_weekdays", Problem::Unsorted);
    }
    if !st.holidays.windows(2).all(|w| w[0] < w[1]) {
        return fail("settings.holidays", Problem::Unsorted);
    }
    for (i, d) in st.holidays.iter().enumerate() {
        at!(check::date(*d), "settings.holidays[{i}]")?;
    }
    Ok(())
}

fn increasing<T>(name: &str, items: &[T], id: impl Fn(&T) -> u64) -> Checked {
    match items.windows(2).position(|w| id(&w[0]) >= id(&w[1])) {
        Some(i) => fail(format!("{name}[{}].id", i + 1), Problem::Unsorted),
        None => Ok(()),
    }
}

fn sorted_collections(s: &Schedule) -> Checked {
    increasing("bars", &s.bars, |b| b.id.0)?;
    increasing("milestones", &s.milestones, |m| m.id.0)?;
    increasing("links", &s.links, |l| l.id.0)?;
    increasing("actions", &s.actions, |a| a.id.0)?;
    increasing("members", &s.members, |m| m.id.0)?;
    increasing("absences", &s.absences, |a| a.id.0)
}

/// The collections that hold ids, in the order `ids` numbers them.
const COLLECTIONS: [(&str, Kind); 8] = [
    ("groups", Kind::Group),
    ("rows", Kind::Row),
    ("bars", Kind::Bar),
    ("milestones", Kind::Milestone),
    ("links", Kind::Link),
    ("actions", Kind::Action),
    ("members", Kind::Member),
    ("absences", Kind::Absence),
];

fn ids(s: &Schedule) -> Checked {
    // (id, collection, position): small entries, since a large schedule has 300,000.
    let mut all: Vec<(u64, u8, u32)> = Vec::new();
    let mut add = |c: u8, ids: &mut dyn Iterator<Item = u64>| {
        all.extend(ids.enumerate().map(|(i, id)| (id, c, i as u32)));
    };
    add(0, &mut s.groups.iter().map(|g| g.id.0));
    add(1, &mut s.rows.iter().map(|r| r.id.0));
    add(2, &mut s.bars.iter().map(|b| b.id.0));
    add(3, &mut s.milestones.iter().map(|m| m.id.0));
    add(4, &mut s.links.iter().map(|l| l.id.0));
    add(5, &mut s.actions.iter().map(|a| a.id.0));
    add(6, &mut s.members.iter().map(|m| m.id.0));
    add(7, &mut s.absences.iter().map(|a| a.id.0));
    let path = |c: u8, i: u32| format!("{}[{i}].id", COLLECTIONS[usize::from(c)].0);
    for &(id, c, i) in &all {
        if id == 0 || id > MAX_ID {
            return fail(path(c, i), Problem::BadId { id });
        }
        if id >= s.next_id {
            let next_id = s.next_id;
            return fail(path(c, i), Problem::IdNotBelowNextId { id, next_id });
        }
    }
    all.sort_unstable();
    match all.windows(2).find(|w| w[0].0 == w[1].0) {
        Some(w) => {
            let (id, c, i) = w[1];
            let kind = COLLECTIONS[usize::from(w[0].1)].1;
            fail(path(c, i), Problem::IdInUse { id, kind })
        }
        None => Ok(()),
    }
}

/// The kind of the item with this id, for an error that says what an id names instead
/// (and for the server, which looks for it in the caller's other schedules).
pub fn kind_of(s: &Schedule, id: u64) -> Option<Kind> {
    if s.groups.iter().any(|g| g.id.0 == id) {
        Some(Kind::Group)
    } else if s.rows.iter().any(|r| r.id.0 == id) {
        Some(Kind::Row)
    } else if s.bar(BarId(id)).is_some() {
        Some(Kind::Bar)
    } else if s.milestone(MilestoneId(id)).is_some() {
        Some(Kind::Milestone)
    } else if s.link(LinkId(id)).is_some() {
        Some(Kind::Link)
    } else if s.action(ActionId(id)).is_some() {
        Some(Kind::Action)
    } else if s.member(MemberId(id)).is_some() {
        Some(Kind::Member)
    } else if s.absence(AbsenceId(id)).is_some() {
        Some(Kind::Absence)
    } else {
        None
    }
}

fn missing(s: &Schedule, path: String, kind: Kind, id: u64) -> Checked {
    let actual = kind_of(s, id);
    fail(path, Problem::NotFound { kind, id, actual })
}

fn outline(s: &Schedule) -> Checked {
    let groups = s.group_positions();
    for (i, g) in s.groups.iter().enumerate() {
        at!(check::name(&g.name), "groups[{i}].name")?;
    }
    let mut last_group = 0;
    for (i, r) in s.rows.iter().enumerate() {
        let Ok(k) = groups.binary_search_by_key(&r.group, |x| x.0) else {
            return missing(s, format!("rows[{i}].group"), Kind::Group, r.group.0);
        };
        let gpos = groups[k].1;
        if gpos < last_group {
            return fail(
                format!("rows[{i}].group"),
                Problem::RowsNotContiguous { group: r.group },
            );
        }
        last_group = gpos;
        at!(check::name(&r.name), "rows[{i}].name")?;
        if let Some(m) = r.member
            && s.member(m).is_none()
        {
            return missing(s, format!("rows[{i}].member"), Kind::Member, m.0);
        }
    }
    Ok(())
}

fn periods(s: &Schedule) -> Checked {
    let mut rows: Vec<RowId> = s.rows.iter().map(|r| r.id).collect();
    rows.sort_unstable();
    let row_ok = |r: RowId| rows.binary_search(&r).is_ok();
    for (i, b) in s.bars.iter().enumerate() {
        if !row_ok(b.row) {
            return missing(s, format!("bars[{i}].row"), Kind::Row, b.row.0);
        }
        at!(check::name(&b.label), "bars[{i}].label")?;
        at!(check::date(b.start), "bars[{i}].start")?;
        at!(check::date(b.end), "bars[{i}].end")?;
        at!(check::span(b.start, b.end), "bars[{i}].end")?;
        at!(check::opt_color(b.color.as_deref()), "bars[{i}].color")?;
        at!(check::text(&b.notes), "bars[{i}].notes")?;
        if let Some(p) = b.pin {
            at!(check::date(p), "bars[{i}].pin")?;
        }
        if let Some(c) = b.constraint {
            if c.kind == ConstraintKind::StartNoEarlierThan {
                return fail(format!("bars[{i}].constraint"), Problem::PinAsConstraint);
            }
            at!(check::date(c.date), "bars[{i}].constraint.date")?;
        }
        if let Some(d) = b.deadline {
            at!(check::date(d), "bars[{i}].deadline")?;
        }
        if let Err(f) =
            super::progress::check_progress(b.id, b.progress, b.actual_start, b.actual_finish)
        {
            // The command's field is `percent`; the bar's is `progress`.
            let field = if f.field == "percent" {
                "progress"
            } else {
                f.field
            };
            return fail(format!("bars[{i}].{field}"), f.problem);
        }
    }
    for (i, m) in s.milestones.iter().enumerate() {
        if !row_ok(m.row) {
            return missing(s, format!("milestones[{i}].row"), Kind::Row, m.row.0);
        }
        at!(check::name(&m.label), "milestones[{i}].label")?;
        at!(check::date(m.date), "milestones[{i}].date")?;
        at!(
            check::opt_color(m.color.as_deref()),
            "milestones[{i}].color"
        )?;
        at!(check::text(&m.notes), "milestones[{i}].notes")?;
        if let Some(c) = m.constraint {
            at!(check::date(c.date), "milestones[{i}].constraint.date")?;
        }
        if let Some(d) = m.deadline {
            at!(check::date(d), "milestones[{i}].deadline")?;
        }
    }
    Ok(())
}

fn links(s: &Schedule) -> Checked {
    for (i, l) in s.links.iter().enumerate() {
        if l.from == l.to {
            return fail(format!("links[{i}].to"), Problem::SelfLink { item: l.to });
        }
        at!(check::lag(l.lag), "links[{i}].lag")?;
    }
    match graph::audit(s) {
        Ok(()) => Ok(()),
        Err(LinkFault::UnknownEnd { link, to }) => {
            let l = &s.links[link];
            let (end, id) = if to { ("to", l.to) } else { ("from", l.from) };
            missing(s, format!("links[{link}].{end}"), Kind::Item, id.0)
        }
        Err(LinkFault::Duplicate { late, early }) => {
            let existing = s.links[early].id;
            fail(
                format!("links[{late}]"),
                Problem::DuplicateLink { existing },
            )
        }
        Err(LinkFault::Cycle(items)) => {
            let items = graph::labelled(s, items);
            fail("links", Problem::Cycle { items })
        }
    }
}

fn people(s: &Schedule) -> Checked {
    for (i, a) in s.actions.iter().enumerate() {
        if s.bar(a.bar).is_none() {
            return missing(s, format!("actions[{i}].bar"), Kind::Bar, a.bar.0);
        }
        at!(check::name(&a.label), "actions[{i}].label")?;
        if let Some(m) = a.assignee
            && s.member(m).is_none()
        {
            return missing(s, format!("actions[{i}].assignee"), Kind::Member, m.0);
        }
    }
    for (i, m) in s.members.iter().enumerate() {
        at!(check::name(&m.name), "members[{i}].name")?;
        if let Some(e) = &m.email {
            at!(check::email(e), "members[{i}].email")?;
        }
    }
    for (i, a) in s.absences.iter().enumerate() {
        if s.member(a.member).is_none() {
            return missing(s, format!("absences[{i}].member"), Kind::Member, a.member.0);
        }
        at!(check::date(a.start), "absences[{i}].start")?;
        at!(check::date(a.end), "absences[{i}].end")?;
        at!(check::span(a.start, a.end), "absences[{i}].end")?;
        at!(check::text(&a.reason), "absences[{i}].reason")?;
    }
    if s.locks.windows(2).any(|w| w[0].target >= w[1].target) {
        return fail("locks", Problem::Unsorted);
    }
    for (i, l) in s.locks.iter().enumerate() {
        let gone = match l.target {
            LockTarget::Schedule => None,
            LockTarget::Group(g) => s.group(g).is_none().then_some((Kind::Group, g.0)),
            LockTarget::Row(r) => s.row(r).is_none().then_some((Kind::Row, r.0)),
            LockTarget::Bar(b) => s.bar(b).is_none().then_some((Kind::Bar, b.0)),
        };
        if let Some((kind, id)) = gone {
            return missing(s, format!("locks[{i}].target"), kind, id);
        }
        at!(check::name(&l.by_name), "locks[{i}].by_name")?;
        let len = l.reason.chars().count();
        if len > super::MAX_REASON {
            return fail(
                format!("locks[{i}].reason"),
                Problem::TooLong {
                    len,
                    max: super::MAX_REASON,
                },
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;
    use crate::command::testkit::{d, link, sample};
    use crate::date::{Date, Weekday};
    use crate::synth::{Spec, generate};

    fn problem(s: &Schedule) -> (String, Problem) {
        let e = validate_schedule(s).unwrap_err();
        (e.path, e.problem)
    }

    #[test]
    fn sample_and_synthetic_schedules_are_valid() {
        assert_eq!(validate_schedule(&sample()), Ok(()));
        assert_eq!(validate_schedule(&Schedule::new("Vide")), Ok(()));
        assert_eq!(validate_schedule(&generate(Spec::new(2_000))), Ok(()));
    }

    #[test]
    fn broken_invariants_are_located() {
        let mut s = sample();
        s.rows.swap(1, 2);
        assert_eq!(
            problem(&s),
            (
                "rows[2].group".into(),
                Problem::RowsNotContiguous { group: GroupId(3) }
            )
        );

        let mut s = sample();
        s.bars.swap(0, 1);
        assert_eq!(problem(&s), ("bars[1].id".into(), Problem::Unsorted));

        let mut s = sample();
        s.next_id = 50;
        assert_eq!(
            problem(&s),
            (
                "absences[0].id".into(),
                Problem::IdNotBelowNextId {
                    id: 50,
                    next_id: 50
                }
            )
        );

        let mut s = sample();
        s.members[1].id = MemberId(3);
        assert_eq!(
            problem(&s),
            (
                "members[1].id".into(),
                Problem::IdInUse {
                    id: 3,
                    kind: Kind::Group
                }
            )
        );

        let mut s = sample();
        s.bars[0].row = RowId(10);
        assert_eq!(
            problem(&s),
            (
                "bars[0].row".into(),
                Problem::NotFound {
                    kind: Kind::Row,
                    id: 10,
                    actual: Some(Kind::Bar)
                }
            )
        );

        let mut s = sample();
        s.settings.working_weekdays = vec![Weekday::Tue, Weekday::Mon];
        assert_eq!(
            problem(&s),
            ("settings.working_weekdays".into(), Problem::Unsorted)
        );

        let mut s = sample();
        s.absences[0].end = d("2026-11-01");
        assert_eq!(problem(&s).0, "absences[0].end");

        // Constraints: a bar's "start no earlier than" is its pin; dates in range.
        let mut s = sample();
        s.bars[1].constraint = Some(Constraint {
            kind: ConstraintKind::StartNoEarlierThan,
            date: d("2026-11-09"),
        });
        assert_eq!(
            problem(&s),
            ("bars[1].constraint".into(), Problem::PinAsConstraint)
        );
        expect_test::expect!["Planning invalide, bars[1].constraint⟨nbsp⟩: un bloc garde sa contrainte «⟨nbsp⟩début au plus tôt le⟨nbsp⟩» dans pin, pas dans constraint. Mettez cette date dans pin, ou donnez à constraint un autre type."]
            .assert_eq(&crate::testkit::visible(&validate_schedule(&s).unwrap_err().message(Lang::Fr)));
        s.bars[1].constraint = Some(Constraint {
            kind: ConstraintKind::FinishNoLaterThan,
            date: Date::from_days(-1_000_000),
        });
        assert_eq!(problem(&s).0, "bars[1].constraint.date");
        s.bars[1].constraint = None;
        s.milestones[0].deadline = Some(Date::from_days(9_000_000));
        assert_eq!(problem(&s).0, "milestones[0].deadline");
        s.milestones[0].deadline = Some(d("2026-12-01"));
        s.milestones[0].constraint = Some(Constraint {
            kind: ConstraintKind::StartNoEarlierThan,
            date: d("2026-11-30"),
        });
        s.bars[0].deadline = Some(d("2026-11-06"));
        assert_eq!(validate_schedule(&s), Ok(()));
    }

    #[test]
    fn link_cycles_and_duplicates_are_refused() {
        let mut s = sample();
        s.links.push(link(55, 12, 10));
        let e = validate_schedule(&s).unwrap_err();
        assert_eq!(e.path, "links");
        expect_test::expect!["Planning invalide, links⟨nbsp⟩: cycle de liens⟨nbsp⟩: 10 «⟨nbsp⟩Fondations⟨nbsp⟩» → 11 «⟨nbsp⟩Murs⟨nbsp⟩» → 12 «⟨nbsp⟩Toiture⟨nbsp⟩» → 10 «⟨nbsp⟩Fondations⟨nbsp⟩». Un élément ne peut pas dépendre de lui-même⟨nbsp⟩: retirez un lien de ce cycle ou reliez d'autres éléments."]
            .assert_eq(&crate::testkit::visible(&e.message(Lang::Fr)));

        let mut s = sample();
        s.links.push(link(55, 10, 11));
        assert_eq!(
            problem(&s),
            (
                "links[3]".into(),
                Problem::DuplicateLink {
                    existing: LinkId(30)
                }
            )
        );
    }
}

//! What an item's date constraints and deadline mean in working time: where each date
//! sits as a working-time boundary, the bounds they put on the item's start, and by how
//! many working days a position breaks one. `cpm`, `push` and `risk` all read
//! constraints through here, so "the cascade would break it by 2 days", "2 days of
//! negative float" and "broken by 2 working days" always agree.
//!
//! The convention is the one of the item's own dates (see `calendar` and
//! `cpm::milestone_boundary`): a bar's start-type constraint sits at the start of its
//! day and a finish-type one (and a deadline) at the end of its day, as the bar's own
//! first and last days do; a milestone's constraint or deadline sits where a milestone
//! dated that day would sit (the start of the day when no link leads to it, its end
//! otherwise), so a milestone dated on its constraint's day meets it.
//!
//! Each kind is a bound on the start (a finish-type bound becomes one on the start once
//! the item's working duration is known): "start no earlier than" (a bar's pin) and
//! "finish no earlier than" from below, "start no later than", "finish no later than"
//! and a deadline from above, "must start on" from both sides. Two constraints of one
//! item (a bar's pin and its other constraint) simply both hold; when they contradict
//! each other, the one the item cannot meet is reported broken.

use crate::calendar::Calendar;
use crate::cpm::milestone_boundary;
use crate::date::Date;
use crate::schedule::{Bar, Constraint, ConstraintKind, Milestone};

/// The boundary a constraint's date stands for. `milestone` is `None` for a bar, and
/// for a milestone whether a link leads to it.
pub fn boundary(cal: &Calendar, c: Constraint, milestone: Option<bool>) -> i64 {
    match milestone {
        Some(preceded) => milestone_boundary(cal, c.date, preceded),
        None if c.kind.on_finish() => cal.finish_boundary(c.date),
        None => cal.start_boundary(c.date),
    }
}

/// The boundary a deadline stands for (the end of its day for a bar).
pub fn deadline_boundary(cal: &Calendar, date: Date, milestone: Option<bool>) -> i64 {
    match milestone {
        Some(preceded) => milestone_boundary(cal, date, preceded),
        None => cal.finish_boundary(date),
    }
}

/// How many working days an item at `(start, finish)` (boundaries) breaks a constraint
/// of `kind` whose date sits at boundary `at`: positive when broken, 0 or less when met
/// ("must start on" counts the gap either way).
pub fn shortfall(kind: ConstraintKind, at: i64, (start, finish): (i64, i64)) -> i64 {
    match kind {
        ConstraintKind::StartNoEarlierThan => at - start,
        ConstraintKind::StartNoLaterThan => start - at,
        ConstraintKind::MustStartOn => (start - at).abs(),
        ConstraintKind::FinishNoEarlierThan => at - finish,
        ConstraintKind::FinishNoLaterThan => finish - at,
    }
}

/// How many working days an item at `(start, finish)` is past an upper-bound
/// constraint ("start no later than", "must start on", "finish no later than") whose
/// date sits at `at`: positive when it is too late; `i64::MIN` for a lower bound,
/// which no position is too late for.
pub fn upper_shortfall(kind: ConstraintKind, at: i64, (start, finish): (i64, i64)) -> i64 {
    match kind {
        ConstraintKind::StartNoLaterThan | ConstraintKind::MustStartOn => start - at,
        ConstraintKind::FinishNoLaterThan => finish - at,
        ConstraintKind::StartNoEarlierThan | ConstraintKind::FinishNoEarlierThan => i64::MIN,
    }
}

/// The earliest and the latest start an item's constraints allow, as start boundaries
/// (`i64::MIN` and `i64::MAX` for none). `earliest` may exceed `latest` when two
/// constraints contradict each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartBounds {
    pub earliest: i64,
    pub latest: i64,
}

impl StartBounds {
    /// No bound at all.
    pub const NONE: StartBounds = StartBounds {
        earliest: i64::MIN,
        latest: i64::MAX,
    };

    /// Adds a constraint of `kind` at boundary `at`, for an item lasting `duration`.
    pub fn add(&mut self, kind: ConstraintKind, at: i64, duration: i64) {
        let start = if kind.on_finish() { at - duration } else { at };
        if kind.is_lower() {
            self.earliest = self.earliest.max(start);
        }
        if kind.is_upper() {
            self.latest = self.latest.min(start);
        }
    }

    /// Adds a deadline at boundary `at` (an upper bound on the finish), for the late
    /// dates of the critical path only: a deadline never moves an item.
    pub fn add_deadline(&mut self, at: i64, duration: i64) {
        self.latest = self.latest.min(at - duration);
    }
}

/// A bar's constraints with their boundaries: its pin (as "start no earlier than")
/// first, then its other constraint.
pub fn of_bar(cal: &Calendar, b: &Bar) -> impl Iterator<Item = (Constraint, i64)> {
    let pin = b.pin.map(|date| Constraint {
        kind: ConstraintKind::StartNoEarlierThan,
        date,
    });
    pin.into_iter()
        .chain(b.constraint)
        .map(move |c| (c, boundary(cal, c, None)))
}

/// A milestone's constraint with its boundary; `preceded`: whether a link leads to it.
pub fn of_milestone(cal: &Calendar, m: &Milestone, preceded: bool) -> Option<(Constraint, i64)> {
    m.constraint.map(|c| (c, boundary(cal, c, Some(preceded))))
}

/// The bounds a bar's constraints put on its start, the bar lasting `duration`.
pub fn bar_bounds(cal: &Calendar, b: &Bar, duration: i64) -> StartBounds {
    let mut bounds = StartBounds::NONE;
    for (c, at) in of_bar(cal, b) {
        bounds.add(c.kind, at, duration);
    }
    bounds
}

/// The bounds a milestone's constraint puts on its point in time.
pub fn milestone_bounds(cal: &Calendar, m: &Milestone, preceded: bool) -> StartBounds {
    let mut bounds = StartBounds::NONE;
    if let Some((c, at)) = of_milestone(cal, m, preceded) {
        bounds.add(c.kind, at, 0);
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Schedule;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn c(kind: ConstraintKind, date: &str) -> Constraint {
        Constraint {
            kind,
            date: d(date),
        }
    }

    #[test]
    fn each_kind_bounds_the_start_or_the_finish() {
        // Monday-to-Friday: Mon 2026-11-02 starts at boundary b, Fri 6 ends at b + 5.
        let s = Schedule::new("T");
        let cal = Calendar::for_schedule(&s);
        let mon = cal.start_boundary(d("2026-11-02"));
        let fri_end = cal.finish_boundary(d("2026-11-06"));
        assert_eq!(fri_end - mon, 5);
        use ConstraintKind as K;
        // A bar of two working days (Wed 4, Thu 5) against constraints on Mon 2 / Fri 6.
        let bar = (mon + 2, mon + 4);
        let cases = [
            (K::StartNoEarlierThan, "2026-11-02", -2),
            (K::StartNoLaterThan, "2026-11-02", 2),
            (K::MustStartOn, "2026-11-02", 2),
            (K::MustStartOn, "2026-11-06", 2),
            (K::FinishNoEarlierThan, "2026-11-06", 1),
            (K::FinishNoLaterThan, "2026-11-06", -1),
            (K::FinishNoLaterThan, "2026-11-04", 1),
        ];
        for (kind, date, by) in cases {
            let at = boundary(&cal, c(kind, date), None);
            assert_eq!(shortfall(kind, at, bar), by, "{kind:?} {date}");
        }
        // A weekend date: a start-type one sits where Monday starts, a finish-type one
        // where Friday ends: the same boundary.
        let sat = d("2026-11-07");
        assert_eq!(
            boundary(
                &cal,
                Constraint {
                    kind: K::StartNoEarlierThan,
                    date: sat
                },
                None
            ),
            boundary(
                &cal,
                Constraint {
                    kind: K::FinishNoLaterThan,
                    date: sat
                },
                None
            )
        );
        // The bounds on the start of a two-day bar.
        let mut b = StartBounds::NONE;
        b.add(K::FinishNoEarlierThan, fri_end, 2);
        b.add(K::StartNoLaterThan, mon + 4, 2);
        assert_eq!(
            b,
            StartBounds {
                earliest: mon + 3,
                latest: mon + 4
            }
        );
        b.add(K::MustStartOn, mon + 1, 2);
        assert_eq!(
            b,
            StartBounds {
                earliest: mon + 3,
                latest: mon + 1
            },
            "contradictory"
        );
        b.add_deadline(mon + 2, 2);
        assert_eq!(b.latest, mon);
    }

    #[test]
    fn a_milestone_meets_a_constraint_on_its_own_day() {
        let s = Schedule::new("T");
        let cal = Calendar::for_schedule(&s);
        for preceded in [false, true] {
            let at = milestone_boundary(&cal, d("2026-11-04"), preceded);
            for kind in ConstraintKind::ALL {
                let on = boundary(&cal, c(kind, "2026-11-04"), Some(preceded));
                assert!(shortfall(kind, on, (at, at)) <= 0, "{kind:?} {preceded}");
                // A day later breaks the upper bounds by one working day.
                let later = at + 1;
                let broken = shortfall(kind, on, (later, later));
                assert_eq!(broken, if kind.is_upper() { 1 } else { -1 }, "{kind:?}");
            }
            let due = deadline_boundary(&cal, d("2026-11-04"), Some(preceded));
            assert_eq!(due, at);
        }
    }
}

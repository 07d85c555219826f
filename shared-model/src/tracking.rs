//! Tracking a schedule against the calendar and against its baseline: where a bar's
//! progress should be at a status date, which bars are late or overdue there, and how
//! far each item has slipped since a saved version.
//!
//! Owns the meaning of progress in working time (see docs/scheduling.md, "Tracking"):
//! - A bar's **planned progress** at a status date is the share of its working days up
//!   to and including that date (0 before its start, 100 from its last day on), rounded
//!   down, so a bar whose progress is typed from the same count is never late by a
//!   rounding.
//! - A bar is **late** when its planned progress is above its progress (and it is not
//!   complete), by the working days of the bar its planned progress covers minus those
//!   its progress covers (at least 1).
//! - A bar is **overdue** when its last day is before the status date, at least one
//!   working day lies after it up to the status date, and it is not complete: by those
//!   working days. An overdue bar is listed as overdue only (it is late too, by
//!   definition: the overdue days say more).
//! - **Slippage** compares the current dates of each bar and milestone with a baseline
//!   (another state of the same schedule: ids are never reused, so an id names the same
//!   item in both), in working days on the current calendar: start against start,
//!   finish against finish (a finish counts at the end of its day, so a finish moved
//!   from a Friday to the Saturday has not slipped).
//!
//! The model reads no clock: the status date is a parameter (the server passes the
//! schedule's "today" unless a tool call gives another).

use serde::{Deserialize, Serialize};

use crate::calendar::Calendar;
use crate::cpm::ItemKind;
use crate::date::Date;
use crate::schedule::{Bar, BarId, ItemId, Schedule};

/// Percent complete of `bar` planned at the end of `status` (see the module header).
pub fn planned_progress(cal: &Calendar, bar: &Bar, status: Date) -> u8 {
    let (done, total) = planned_days(cal, bar, status);
    percent_of(done, total, status >= bar.end)
}

/// (working days of the bar up to and including `status`, working days of the bar).
fn planned_days(cal: &Calendar, bar: &Bar, status: Date) -> (i64, i64) {
    let total = cal.working_days_in(bar.start, bar.end);
    if status < bar.start {
        return (0, total);
    }
    (cal.working_days_in(bar.start, status.min(bar.end)), total)
}

fn percent_of(done: i64, total: i64, past_end: bool) -> u8 {
    if total <= 0 {
        // A bar on days off only lasts no working time: due once its days are over.
        return if past_end { 100 } else { 0 };
    }
    if done >= total {
        return 100;
    }
    (done * 100 / total) as u8
}

/// Whether a bar's progress is behind its plan or past its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LateKind {
    /// Its planned progress at the status date is above its progress.
    Late,
    /// Its last day is past and it is not complete.
    Overdue,
}

/// A bar late or overdue at a status date.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lateness {
    pub bar: BarId,
    pub kind: LateKind,
    /// Late: the working days its progress is behind its plan; overdue: the working
    /// days since its last day, up to and including the status date. At least 1.
    pub by_days: i64,
    /// Planned progress at the status date, in percent.
    pub planned: u8,
    /// Its progress, in percent.
    pub actual: u8,
}

/// Every late or overdue bar at `status`, in bar id order: one pass over the bars,
/// O(bars × log holidays).
pub fn lateness(s: &Schedule, cal: &Calendar, status: Date) -> Vec<Lateness> {
    s.bars
        .iter()
        .filter_map(|b| lateness_of(cal, b, status))
        .collect()
}

/// Whether one bar is late or overdue at `status`, and by how much.
pub fn lateness_of(cal: &Calendar, b: &Bar, status: Date) -> Option<Lateness> {
    if b.progress >= 100 || b.actual_finish.is_some() || status < b.start {
        return None;
    }
    let (done, total) = planned_days(cal, b, status);
    let planned = percent_of(done, total, status >= b.end);
    if status > b.end {
        let past = cal.working_days_in(b.end.add_days(1), status);
        if past > 0 {
            return Some(Lateness {
                bar: b.id,
                kind: LateKind::Overdue,
                by_days: past,
                planned,
                actual: b.progress,
            });
        }
    }
    if planned <= b.progress {
        return None;
    }
    let covered = i64::from(b.progress) * total / 100;
    Some(Lateness {
        bar: b.id,
        kind: LateKind::Late,
        by_days: (done - covered).max(1),
        planned,
        actual: b.progress,
    })
}

/// One item's dates against the baseline's, in working days (positive: later).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variance {
    pub item: ItemId,
    pub kind: ItemKind,
    pub baseline_start: Date,
    /// Last day, inclusive (a milestone's date twice).
    pub baseline_finish: Date,
    pub start: Date,
    pub finish: Date,
    pub start_days: i64,
    pub finish_days: i64,
    /// Critical in the current schedule (`cpm`).
    pub critical: bool,
}

impl Variance {
    /// Whether it starts or finishes later than in the baseline.
    pub fn slipped(&self) -> bool {
        self.start_days > 0 || self.finish_days > 0
    }
}

/// The project end against the baseline's: the last planned day of each
/// (`Schedule::span`), and the working days between them (positive: later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndVariance {
    pub baseline: Date,
    pub current: Date,
    pub days: i64,
}

/// A schedule against a baseline.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slippage {
    /// Every bar and milestone in both, in id order (zero variances included).
    pub items: Vec<Variance>,
    /// Items only in the current schedule, in id order.
    pub added: Vec<ItemId>,
    /// Items only in the baseline, in id order.
    pub removed: Vec<ItemId>,
    /// None when either has no dated item.
    pub project_end: Option<EndVariance>,
}

impl Slippage {
    /// The items critical now that start or finish later than in the baseline.
    pub fn critical_slipped(&self) -> impl Iterator<Item = &Variance> {
        self.items.iter().filter(|v| v.critical && v.slipped())
    }

    /// The items that slipped, the largest finish slip first (then start, then id):
    /// what a summary names.
    pub fn largest(&self, n: usize) -> Vec<&Variance> {
        let mut v: Vec<&Variance> = self.items.iter().filter(|v| v.slipped()).collect();
        v.sort_by(|a, b| {
            (b.finish_days, b.start_days)
                .cmp(&(a.finish_days, a.start_days))
                .then(a.item.cmp(&b.item))
        });
        v.truncate(n);
        v
    }
}

/// `current` against `baseline`, on the current calendar, with the critical items of
/// the current schedule (none when its links loop). Merges the two schedules' bars and
/// milestones by id (each kept sorted): O(items × log holidays) plus one critical path.
pub fn slippage(current: &Schedule, baseline: &Schedule) -> Slippage {
    let critical = crate::cpm::critical_items(current).unwrap_or_default();
    slippage_with(
        current,
        baseline,
        &Calendar::for_schedule(current),
        &critical,
    )
}

/// [`slippage`] with the calendar and the sorted critical item ids already at hand.
pub fn slippage_with(
    current: &Schedule,
    baseline: &Schedule,
    cal: &Calendar,
    critical: &[ItemId],
) -> Slippage {
    let mut out = Slippage::default();
    let is_critical = |id: ItemId| critical.binary_search(&id).is_ok();
    let bars = |s: &Schedule| -> Vec<(ItemId, Date, Date)> {
        s.bars
            .iter()
            .map(|b| (b.id.into(), b.start, b.end))
            .collect()
    };
    let milestones = |s: &Schedule| -> Vec<(ItemId, Date, Date)> {
        s.milestones
            .iter()
            .map(|m| (m.id.into(), m.date, m.date))
            .collect()
    };
    for (kind, now, then) in [
        (ItemKind::Bar, bars(current), bars(baseline)),
        (
            ItemKind::Milestone,
            milestones(current),
            milestones(baseline),
        ),
    ] {
        let (mut i, mut j) = (0, 0);
        while i < now.len() || j < then.len() {
            let a = now.get(i).map(|x| x.0);
            let b = then.get(j).map(|x| x.0);
            match (a, b) {
                (Some(x), Some(y)) if x == y => {
                    let (id, start, finish) = now[i];
                    let (_, b_start, b_finish) = then[j];
                    // A bar starts at the start of its first day; a finish (and a
                    // milestone, at the end of its day) counts at the end of its day.
                    let start_days = match kind {
                        ItemKind::Bar => cal.start_boundary(start) - cal.start_boundary(b_start),
                        ItemKind::Milestone => {
                            cal.finish_boundary(start) - cal.finish_boundary(b_start)
                        }
                    };
                    out.items.push(Variance {
                        item: id,
                        kind,
                        baseline_start: b_start,
                        baseline_finish: b_finish,
                        start,
                        finish,
                        start_days,
                        finish_days: cal.finish_boundary(finish) - cal.finish_boundary(b_finish),
                        critical: is_critical(id),
                    });
                    i += 1;
                    j += 1;
                }
                (Some(x), y) if y.is_none_or(|y| x < y) => {
                    out.added.push(x);
                    i += 1;
                }
                (_, Some(y)) => {
                    out.removed.push(y);
                    j += 1;
                }
                // Both ended: the loop's condition is false.
                (_, None) => break,
            }
        }
    }
    // Bars then milestones: back to one id order.
    crate::order::sort_by_u64(&mut out.items, |v| v.item.0);
    crate::order::sort_by_u64(&mut out.added, |i| i.0);
    crate::order::sort_by_u64(&mut out.removed, |i| i.0);
    out.project_end = match (baseline.span(), current.span()) {
        (Some((_, then)), Some((_, now))) => Some(EndVariance {
            baseline: then,
            current: now,
            days: cal.finish_boundary(now) - cal.finish_boundary(then),
        }),
        _ => None,
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{add_bar, add_milestone, d, one_row};
    use proptest::prelude::*;

    /// Monday-to-Friday, Wednesday 2026-11-11 off.
    fn cal() -> Calendar {
        Calendar::for_schedule(&one_row())
    }

    fn bar(start: &str, end: &str, progress: u8) -> Bar {
        let mut s = one_row();
        add_bar(&mut s, 7, start, end);
        let mut b = s.bars.remove(0);
        b.progress = progress;
        b
    }

    #[test]
    fn planned_progress_counts_working_days_only() {
        let cal = cal();
        // Mon 9 – Fri 13 around the holiday: 4 working days (9, 10, 12, 13).
        let b = bar("2026-11-09", "2026-11-13", 0);
        let at = |day: &str| planned_progress(&cal, &b, d(day));
        assert_eq!(at("2026-11-06"), 0, "the Friday before");
        assert_eq!(at("2026-11-08"), 0, "the Sunday before");
        assert_eq!(at("2026-11-09"), 25, "its first day, done by its end");
        assert_eq!(at("2026-11-10"), 50);
        assert_eq!(at("2026-11-11"), 50, "the holiday adds nothing");
        assert_eq!(at("2026-11-12"), 75);
        assert_eq!(at("2026-11-13"), 100, "its last day");
        assert_eq!(at("2026-11-16"), 100);
        // Over a weekend: Thu 5 – Tue 10 holds 4 working days (5, 6, 9, 10).
        let b = bar("2026-11-05", "2026-11-10", 0);
        assert_eq!(planned_progress(&cal, &b, d("2026-11-07")), 50);
        assert_eq!(planned_progress(&cal, &b, d("2026-11-09")), 75);
        // Three days: a third is rounded down.
        let b = bar("2026-11-02", "2026-11-04", 0);
        assert_eq!(planned_progress(&cal, &b, d("2026-11-02")), 33);
        // A bar on a weekend only is due once its days are over.
        let b = bar("2026-11-07", "2026-11-08", 0);
        assert_eq!(planned_progress(&cal, &b, d("2026-11-07")), 0);
        assert_eq!(planned_progress(&cal, &b, d("2026-11-08")), 100);
    }

    #[test]
    fn late_and_overdue_at_the_boundary_days() {
        let cal = cal();
        // Mon 2 – Fri 6, 5 working days.
        let late = |progress: u8, day: &str| {
            lateness_of(&cal, &bar("2026-11-02", "2026-11-06", progress), d(day))
        };
        // Before its start nothing is due.
        assert_eq!(late(0, "2026-11-01"), None);
        // On its first day one day of five is due.
        let on_start = late(0, "2026-11-02").unwrap();
        assert_eq!(
            (
                on_start.kind,
                on_start.by_days,
                on_start.planned,
                on_start.actual
            ),
            (LateKind::Late, 1, 20, 0)
        );
        assert_eq!(late(20, "2026-11-02"), None, "on plan");
        // On its last day all of it is due: 40 % covers 2 days of 5, 3 are missing.
        let on_end = late(40, "2026-11-06").unwrap();
        assert_eq!(
            (on_end.kind, on_end.by_days, on_end.planned),
            (LateKind::Late, 3, 100)
        );
        // The weekend after its end adds no working day: still late, not overdue.
        assert_eq!(late(40, "2026-11-08").unwrap().kind, LateKind::Late);
        // The working day after its end: overdue by 1.
        let after = late(40, "2026-11-09").unwrap();
        assert_eq!((after.kind, after.by_days), (LateKind::Overdue, 1));
        // The holiday does not count: Thu 12 is 3 working days after Fri 6.
        assert_eq!(late(99, "2026-11-12").unwrap().by_days, 3);
        // Complete is never late nor overdue; 1 % short of a rounded plan still is.
        assert_eq!(late(100, "2026-11-20"), None);
        let mut done = bar("2026-11-02", "2026-11-06", 100);
        done.actual_finish = Some(d("2026-11-06"));
        assert_eq!(lateness_of(&cal, &done, d("2026-11-20")), None);
        assert_eq!(late(59, "2026-11-04").unwrap().by_days, 1);
        assert_eq!(late(60, "2026-11-04"), None);
        assert_eq!(late(80, "2026-11-04"), None, "ahead of plan");
    }

    #[test]
    fn lateness_lists_bars_in_id_order() {
        let mut s = one_row();
        add_bar(&mut s, 10, "2026-11-02", "2026-11-06");
        add_bar(&mut s, 11, "2026-11-09", "2026-11-13");
        add_bar(&mut s, 12, "2026-11-16", "2026-11-20");
        s.bars[1].progress = 10;
        let l = lateness(&s, &Calendar::for_schedule(&s), d("2026-11-12"));
        let got: Vec<(u64, LateKind, i64)> =
            l.iter().map(|l| (l.bar.0, l.kind, l.by_days)).collect();
        // Bar 10: Mon 9, Tue 10 and Thu 12 past its end; bar 11: 3 days of 4 due,
        // 10 % covers none of them.
        assert_eq!(
            got,
            vec![(10, LateKind::Overdue, 3), (11, LateKind::Late, 3)]
        );
    }

    #[test]
    fn variance_with_moved_added_and_deleted_items() {
        let mut base = one_row();
        add_bar(&mut base, 10, "2026-11-02", "2026-11-06");
        add_bar(&mut base, 11, "2026-11-09", "2026-11-13");
        add_bar(&mut base, 12, "2026-11-16", "2026-11-20");
        add_milestone(&mut base, 13, "2026-11-20");
        let mut now = base.clone();
        // 10 finishes two working days later (Fri 6 → Tue 10: the weekend is free).
        now.bars[0].end = d("2026-11-10");
        // 11 starts a day earlier, across the holiday: Mon 9 → Fri 6 is -1.
        now.bars[1].start = d("2026-11-06");
        // 12 is deleted, 14 added; the milestone moves to Mon 23 (+1).
        now.bars.remove(2);
        add_bar(&mut now, 14, "2026-11-23", "2026-11-27");
        now.milestones[0].date = d("2026-11-23");
        let v = slippage(&now, &base);
        let got: Vec<(u64, i64, i64)> = v
            .items
            .iter()
            .map(|v| (v.item.0, v.start_days, v.finish_days))
            .collect();
        assert_eq!(got, vec![(10, 0, 2), (11, -1, 0), (13, 1, 1)]);
        assert_eq!(v.added, vec![ItemId(14)]);
        assert_eq!(v.removed, vec![ItemId(12)]);
        // The end: Fri 20 → Fri 27, five working days later.
        assert_eq!(
            v.project_end,
            Some(EndVariance {
                baseline: d("2026-11-20"),
                current: d("2026-11-27"),
                days: 5
            })
        );
        let largest: Vec<u64> = v.largest(5).iter().map(|v| v.item.0).collect();
        assert_eq!(largest, vec![10, 13]);
        // A finish moved onto the weekend after it has not slipped.
        let mut weekend = base.clone();
        weekend.bars[0].end = d("2026-11-08");
        assert_eq!(slippage(&weekend, &base).items[0].finish_days, 0);
    }

    #[test]
    fn critical_items_that_slipped_are_named() {
        let mut base = one_row();
        add_bar(&mut base, 10, "2026-11-02", "2026-11-06");
        add_bar(&mut base, 11, "2026-11-02", "2026-11-03");
        let mut now = base.clone();
        now.bars[0].end = d("2026-11-09");
        now.bars[1].end = d("2026-11-04");
        let v = slippage(&now, &base);
        // Bar 10 ends the project (critical); 11 slipped too but has float.
        let crit: Vec<u64> = v.critical_slipped().map(|v| v.item.0).collect();
        assert_eq!(crit, vec![10]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Against itself a schedule has not slipped anywhere.
        #[test]
        fn variance_against_itself_is_zero_everywhere(s in crate::command::proptests::schedule(0..60)) {
            let v = slippage(&s, &s);
            prop_assert_eq!(v.items.len(), s.bars.len() + s.milestones.len());
            prop_assert!(v.items.iter().all(|v| v.start_days == 0 && v.finish_days == 0));
            prop_assert!(v.added.is_empty() && v.removed.is_empty());
            prop_assert!(v.project_end.is_none_or(|e| e.days == 0));
            prop_assert_eq!(v.critical_slipped().count(), 0);
        }
    }
}

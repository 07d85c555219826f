//! The working calendar: working weekdays and holidays, and arithmetic in working days.
//!
//! Everything is done through a "working index": the number of working days before a
//! date, counted from a fixed Monday. Turning a date into its index, or an index back
//! into a date, costs O(log holidays), so the critical path on 100,000 bars stays a
//! linear pass over integers. Durations and lags in a schedule are working time; only
//! this module knows how working time maps onto calendar days.
//!
//! Member absences are not part of the schedule calendar: they make a member's days
//! non-working for risk analysis only (see `risk`), and `Calendar::with_extra_days_off`
//! builds that member's calendar when one is needed.

use crate::date::{Date, Weekday};
use crate::schedule::{Settings, TimeUnit};

/// A compiled calendar. Build it once per analysis with [`Calendar::new`].
#[derive(Clone, Debug)]
pub struct Calendar {
    /// Working flag per weekday, Monday first.
    working: [bool; 7],
    /// `prefix[k]`: working weekdays among the first k days of a week.
    prefix: [i64; 8],
    /// The k-th working weekday of a week (0-based), as a day offset from Monday.
    nth: [i64; 7],
    per_week: i64,
    /// Holidays that fall on working weekdays, sorted, each with its raw index (its
    /// index if there were no holidays). Holidays on weekends change nothing.
    holidays: Vec<(Date, i64)>,
}

/// Why settings do not make a calendar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalendarError {
    NoWorkingWeekday,
}

/// Day offset of 1969-12-29, the Monday from which indices are counted.
const ORIGIN_MONDAY: i64 = -3;

impl Calendar {
    /// The calendar of a schedule's settings.
    pub fn new(settings: &Settings) -> Result<Calendar, CalendarError> {
        Calendar::from_parts(&settings.working_weekdays, &settings.holidays)
    }

    /// The calendar of a schedule. Settings are validated by every command that sets
    /// them, so they always hold a working weekday; a schedule read from elsewhere
    /// without one (which `command::validate_schedule` refuses) is counted on every day
    /// rather than failing an analysis.
    pub fn for_schedule(schedule: &crate::schedule::Schedule) -> Calendar {
        Calendar::new(&schedule.settings).unwrap_or_else(|_| Calendar::every_day())
    }

    /// The boundary at which a bar starting on `d` starts, in working time.
    pub fn start_boundary(&self, d: Date) -> i64 {
        self.index(d)
    }

    /// The boundary at which an item whose last day is `d` finishes (the end of that
    /// day): `finish_boundary(end) - start_boundary(start)` is the working duration.
    /// A milestone on `d` sits at this boundary too.
    pub fn finish_boundary(&self, d: Date) -> i64 {
        self.index(d.add_days(1))
    }

    /// The last day of an item finishing at this boundary.
    pub fn date_of_finish(&self, boundary: i64) -> Date {
        self.date(boundary - 1)
    }

    /// A calendar in which every day works: the calendar of "elapsed" time, and of the
    /// PSPLIB instances.
    pub fn every_day() -> Calendar {
        Calendar::from_parts(&Weekday::ALL, &[]).expect("seven working weekdays")
    }

    /// A calendar from working weekdays and holidays (in any order, duplicates allowed).
    pub fn from_parts(weekdays: &[Weekday], holidays: &[Date]) -> Result<Calendar, CalendarError> {
        let mut working = [false; 7];
        for w in weekdays {
            working[w.index()] = true;
        }
        let per_week = working.iter().filter(|w| **w).count() as i64;
        if per_week == 0 {
            return Err(CalendarError::NoWorkingWeekday);
        }
        let mut prefix = [0i64; 8];
        let mut nth = [0i64; 7];
        let mut k = 0;
        for d in 0..7 {
            prefix[d + 1] = prefix[d] + i64::from(working[d]);
            if working[d] {
                nth[k] = d as i64;
                k += 1;
            }
        }
        let mut cal = Calendar {
            working,
            prefix,
            nth,
            per_week,
            holidays: Vec::new(),
        };
        let mut hs: Vec<Date> = holidays
            .iter()
            .copied()
            .filter(|d| working[d.weekday().index()])
            .collect();
        crate::order::sort(&mut hs);
        hs.dedup();
        cal.holidays = hs.into_iter().map(|d| (d, cal.raw_index(d))).collect();
        Ok(cal)
    }

    /// A copy of this calendar where these days do not work either (a member's absences).
    pub fn with_extra_days_off(&self, days: impl IntoIterator<Item = Date>) -> Calendar {
        let mut weekdays = Vec::new();
        for (i, w) in Weekday::ALL.iter().enumerate() {
            if self.working[i] {
                weekdays.push(*w);
            }
        }
        let mut off: Vec<Date> = self.holidays.iter().map(|(d, _)| *d).collect();
        off.extend(days);
        Calendar::from_parts(&weekdays, &off).expect("same working weekdays")
    }

    /// Working days in one working week.
    pub fn days_per_week(&self) -> i64 {
        self.per_week
    }

    /// Working days in `n` units of the schedule's time unit.
    pub fn units_to_days(&self, unit: TimeUnit, n: i64) -> i64 {
        match unit {
            TimeUnit::Day => n,
            TimeUnit::Week => n * self.per_week,
        }
    }

    pub fn is_working(&self, d: Date) -> bool {
        self.working[d.weekday().index()]
            && self.holidays.binary_search_by(|(h, _)| h.cmp(&d)).is_err()
    }

    /// Index ignoring holidays: working weekdays in [origin Monday, d).
    ///
    /// In 32 bits whenever it fits (every real date): the view runs this code translated
    /// to JavaScript (wasm2js), where a 64-bit division is a software routine, and the
    /// critical path converts each item's dates (at 100,000 bars it took ~150 ms there).
    fn raw_index(&self, d: Date) -> i64 {
        match d.days().checked_add(-ORIGIN_MONDAY as i32) {
            // |m / 7 * per_week| <= |m|: no overflow.
            Some(m) => {
                i64::from(m.div_euclid(7) * self.per_week as i32)
                    + self.prefix[m.rem_euclid(7) as usize]
            }
            None => self.raw_index_wide(d),
        }
    }

    fn raw_index_wide(&self, d: Date) -> i64 {
        let m = i64::from(d.days()) - ORIGIN_MONDAY;
        m.div_euclid(7) * self.per_week + self.prefix[m.rem_euclid(7) as usize]
    }

    /// The inverse of `raw_index` on working days, in 32 bits whenever it fits (see there).
    fn raw_date(&self, raw: i64) -> Date {
        let narrow = i32::try_from(raw).ok().and_then(|r| {
            let per_week = self.per_week as i32;
            let k = r.rem_euclid(per_week) as usize;
            r.div_euclid(per_week)
                .checked_mul(7)?
                .checked_add(self.nth[k] as i32 + ORIGIN_MONDAY as i32)
        });
        match narrow {
            Some(days) => Date::from_days(days),
            None => self.raw_date_wide(raw),
        }
    }

    fn raw_date_wide(&self, raw: i64) -> Date {
        let week = raw.div_euclid(self.per_week);
        let k = raw.rem_euclid(self.per_week) as usize;
        Date::from_days((week * 7 + self.nth[k] + ORIGIN_MONDAY) as i32)
    }

    /// The number of working days before `d` (from a fixed origin). For a working day,
    /// its position; a non-working day shares the index of the next working day.
    pub fn index(&self, d: Date) -> i64 {
        let before = self.holidays.partition_point(|(h, _)| *h < d) as i64;
        self.raw_index(d) - before
    }

    /// The working day at an index (the inverse of [`Calendar::index`] on working days).
    pub fn date(&self, index: i64) -> Date {
        // Find the raw index R of the working day: R - #{holidays with raw < R} = index
        // and R not a holiday. Holiday raw indices are distinct and sorted, so the count
        // only grows with R: iterate to the fixed point (one or two steps in practice).
        let mut raw = index;
        loop {
            let skipped = self.holidays.partition_point(|(_, r)| *r <= raw) as i64;
            let next = index + skipped;
            if next == raw {
                return self.raw_date(raw);
            }
            raw = next;
        }
    }

    /// The first working day on or after `d`.
    pub fn snap_forward(&self, d: Date) -> Date {
        self.date(self.index(d))
    }

    /// The last working day on or before `d`.
    pub fn snap_backward(&self, d: Date) -> Date {
        if self.is_working(d) {
            d
        } else {
            self.date(self.index(d) - 1)
        }
    }

    /// The working day `n` working days after `d` (before, for a negative `n`); `d` is
    /// first snapped forward to a working day. Never lands on a non-working day.
    pub fn add(&self, d: Date, n: i64) -> Date {
        self.date(self.index(d) + n)
    }

    /// Working days from `a` to `b`: `add(a, diff(a, b)) == snap_forward(b)`.
    pub fn diff(&self, a: Date, b: Date) -> i64 {
        self.index(b) - self.index(a)
    }

    /// Working days in the inclusive span [start, end] (0 when it holds none).
    pub fn working_days_in(&self, start: Date, end: Date) -> i64 {
        if end < start {
            return 0;
        }
        (self.index(end.add_days(1)) - self.index(start)).max(0)
    }

    /// The working days of the inclusive span [start, end], in order.
    pub fn working_days(&self, start: Date, end: Date) -> impl Iterator<Item = Date> + '_ {
        let (a, b) = (self.index(start), self.index(end.add_days(1)));
        (a..b).map(|i| self.date(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn french() -> Calendar {
        let s = Settings {
            holidays: vec![
                d("2026-12-25"),
                d("2027-01-01"),
                d("2026-11-11"),
                d("2026-12-26"),
            ],
            ..Settings::default()
        };
        Calendar::new(&s).unwrap()
    }

    #[test]
    fn weekends_and_holidays() {
        let c = french();
        assert!(c.is_working(d("2026-11-30")));
        assert!(!c.is_working(d("2026-11-28")));
        assert!(!c.is_working(d("2026-11-11")));
        assert_eq!(c.add(d("2026-11-27"), 1), d("2026-11-30"));
        assert_eq!(c.add(d("2026-11-10"), 1), d("2026-11-12"));
        assert_eq!(c.add(d("2026-12-24"), 1), d("2026-12-28"));
        assert_eq!(c.add(d("2026-12-28"), -1), d("2026-12-24"));
        assert_eq!(c.snap_forward(d("2026-11-28")), d("2026-11-30"));
        assert_eq!(c.snap_backward(d("2026-11-29")), d("2026-11-27"));
        assert_eq!(c.working_days_in(d("2026-12-21"), d("2027-01-03")), 8);
        assert_eq!(c.working_days_in(d("2026-11-28"), d("2026-11-29")), 0);
        assert_eq!(c.diff(d("2026-11-02"), d("2026-11-16")), 9);
        let days: Vec<String> = c
            .working_days(d("2026-11-09"), d("2026-11-13"))
            .map(|x| x.to_string())
            .collect();
        assert_eq!(
            days,
            ["2026-11-09", "2026-11-10", "2026-11-12", "2026-11-13"]
        );
    }

    #[test]
    fn no_working_weekday_is_refused() {
        let s = Settings {
            working_weekdays: vec![],
            ..Settings::default()
        };
        assert_eq!(
            Calendar::new(&s).unwrap_err(),
            CalendarError::NoWorkingWeekday
        );
    }

    #[test]
    fn extra_days_off() {
        let c = french().with_extra_days_off([d("2026-11-30")]);
        assert!(!c.is_working(d("2026-11-30")));
        assert_eq!(c.add(d("2026-11-27"), 1), d("2026-12-01"));
    }

    fn calendar_strategy() -> impl Strategy<Value = Calendar> {
        (1u8..128, proptest::collection::vec(-400i32..400, 0..40)).prop_map(|(mask, hs)| {
            let weekdays: Vec<Weekday> = Weekday::ALL
                .iter()
                .copied()
                .filter(|w| mask & (1 << w.index()) != 0)
                .collect();
            let base = d("2026-11-30");
            let holidays: Vec<Date> = hs.into_iter().map(|h| base.add_days(h)).collect();
            Calendar::from_parts(&weekdays, &holidays).unwrap()
        })
    }

    proptest! {
        #[test]
        fn add_then_diff_round_trips(c in calendar_strategy(), start in -500i32..500, n in -300i64..300) {
            let a = d("2026-11-30").add_days(start);
            let b = c.add(a, n);
            prop_assert!(c.is_working(b), "{b} is not a working day");
            prop_assert_eq!(c.diff(a, b), n);
            prop_assert_eq!(c.add(a, c.diff(a, b)), b);
            prop_assert_eq!(c.index(c.date(c.index(a))), c.index(a));
        }

        #[test]
        fn the_32_bit_conversions_equal_the_64_bit_ones(c in calendar_strategy(), days in any::<i32>(), raw in -400_000_000i64..400_000_000) {
            // Any day (the narrow path falls back near the ends of i32), and any raw
            // index whose date is within i32.
            let day = Date::from_days(days);
            prop_assert_eq!(c.raw_index(day), c.raw_index_wide(day));
            prop_assert_eq!(c.raw_date(raw), c.raw_date_wide(raw));
        }

        #[test]
        fn index_counts_working_days(c in calendar_strategy(), start in -100i32..100, len in 0i32..60) {
            let a = d("2026-11-30").add_days(start);
            let b = a.add_days(len);
            let counted = (0..=len).filter(|k| c.is_working(a.add_days(*k))).count() as i64;
            prop_assert_eq!(c.working_days_in(a, b), counted);
            prop_assert!(c.is_working(c.snap_forward(a)));
            prop_assert!(c.snap_forward(a) >= a && c.snap_backward(a) <= a);
            prop_assert!(c.is_working(c.snap_backward(a)));
        }
    }
}

//! Calendar dates: a plain day in the schedule's time zone, never an instant.
//!
//! A `Date` is a count of days since 1970-01-01 in the proleptic Gregorian calendar.
//! Keeping dates as day numbers (and not as UTC timestamps) is what makes a Gantt tool
//! immune to the "day lost to the time zone" bug class: there is no zone arithmetic at
//! all below the server's edge, which turns "now" into the schedule's local day once.
//! Serialised as `"YYYY-MM-DD"`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A calendar day. Ordered, copyable, four bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(i32);

/// Day of the week, Monday first (ISO 8601).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Weekday {
    /// All seven days, Monday first.
    pub const ALL: [Weekday; 7] = [
        Weekday::Mon,
        Weekday::Tue,
        Weekday::Wed,
        Weekday::Thu,
        Weekday::Fri,
        Weekday::Sat,
        Weekday::Sun,
    ];

    /// 0 for Monday .. 6 for Sunday.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Why a text is not a date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DateError {
    pub input: String,
}

impl fmt::Display for DateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "«\u{a0}{}\u{a0}» is not a date: expected YYYY-MM-DD, e.g. 2026-11-30",
            self.input
        )
    }
}

impl std::error::Error for DateError {}

/// The years a schedule may use. Far beyond any plan, small enough that day arithmetic
/// on them can never overflow an `i32` (a bad offset is refused instead).
pub const MIN_YEAR: i32 = 1900;
pub const MAX_YEAR: i32 = 2999;

impl Date {
    /// The date with this year, month (1-12) and day (1-31), if it exists and lies in
    /// [`MIN_YEAR`, `MAX_YEAR`].
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Option<Date> {
        if !(MIN_YEAR..=MAX_YEAR).contains(&year) || !(1..=12).contains(&month) || day == 0 {
            return None;
        }
        if day > days_in_month(year, month) {
            return None;
        }
        Some(Date(days_from_civil(year, month, day)))
    }

    /// The date `n` days after 1970-01-01 (negative before).
    pub fn from_days(n: i32) -> Date {
        Date(n)
    }

    /// Days since 1970-01-01.
    pub fn days(self) -> i32 {
        self.0
    }

    /// (year, month, day).
    pub fn ymd(self) -> (i32, u32, u32) {
        civil_from_days(self.0)
    }

    pub fn year(self) -> i32 {
        self.ymd().0
    }

    pub fn month(self) -> u32 {
        self.ymd().1
    }

    pub fn day(self) -> u32 {
        self.ymd().2
    }

    pub fn weekday(self) -> Weekday {
        // 1970-01-01 was a Thursday (index 3 with Monday = 0).
        Weekday::ALL[(self.0 + 3).rem_euclid(7) as usize]
    }

    /// Calendar-day arithmetic (not working days: see `calendar`).
    pub fn add_days(self, n: i32) -> Date {
        Date(self.0 + n)
    }

    /// Calendar days from `self` to `other` (positive when `other` is later).
    pub fn days_until(self, other: Date) -> i32 {
        other.0 - self.0
    }

    /// Whether the date lies in the years a schedule accepts.
    pub fn in_supported_range(self) -> bool {
        (MIN_YEAR..=MAX_YEAR).contains(&self.year())
    }

    /// The first day of this date's month.
    pub fn first_of_month(self) -> Date {
        let (y, m, _) = self.ymd();
        Date(days_from_civil(y, m, 1))
    }

    /// The first day of the month `n` months later (or earlier).
    pub fn add_months_to_first(self, n: i32) -> Date {
        let (y, m, _) = self.ymd();
        let total = y * 12 + (m as i32 - 1) + n;
        Date(days_from_civil(
            total.div_euclid(12),
            total.rem_euclid(12) as u32 + 1,
            1,
        ))
    }

    /// The Monday of this date's ISO week.
    pub fn monday(self) -> Date {
        Date(self.0 - self.weekday().index() as i32)
    }

    /// ISO 8601 week number (1-53).
    pub fn iso_week(self) -> u32 {
        // The ISO year is the year of this week's Thursday; week 1 holds its January 4th.
        let thursday = self.monday().add_days(3);
        let jan1 = Date(days_from_civil(thursday.year(), 1, 1));
        (jan1.days_until(thursday) / 7 + 1) as u32
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

impl fmt::Debug for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Date {
    type Err = DateError;

    fn from_str(s: &str) -> Result<Date, DateError> {
        let err = || DateError {
            input: s.chars().take(40).collect(),
        };
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return Err(err());
        }
        let num = |r: std::ops::Range<usize>| -> Result<u32, DateError> {
            let part = &s[r];
            if part.bytes().all(|c| c.is_ascii_digit()) {
                part.parse().map_err(|_| err())
            } else {
                Err(err())
            }
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        Date::from_ymd(y as i32, m, d).ok_or_else(err)
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Written by hand: this runs for every date of every page of a 100,000-bar schedule.
        let (y, m, d) = self.ymd();
        let mut buf = [0u8; 10];
        let y = y as u32;
        buf[0] = b'0' + (y / 1000 % 10) as u8;
        buf[1] = b'0' + (y / 100 % 10) as u8;
        buf[2] = b'0' + (y / 10 % 10) as u8;
        buf[3] = b'0' + (y % 10) as u8;
        buf[4] = b'-';
        buf[5] = b'0' + (m / 10) as u8;
        buf[6] = b'0' + (m % 10) as u8;
        buf[7] = b'-';
        buf[8] = b'0' + (d / 10) as u8;
        buf[9] = b'0' + (d % 10) as u8;
        // The buffer holds ASCII digits and dashes only.
        s.serialize_str(std::str::from_utf8(&buf).unwrap_or("0000-00-00"))
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Date;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a date as \"YYYY-MM-DD\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Date, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

fn is_leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in a month of a year.
pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

// The two conversions below count 400-year eras starting on March 1st, so that the leap
// day falls at the end of the counted year and every era has the same 146,097 days.
fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400); // [0, 399]
    let mp = (m + 9) % 12; // March = 0
    let doy = (153 * mp + 2) / 5 + d - 1; // [0, 365]
    let doe = yoe as u32 * 365 + yoe as u32 / 4 - yoe as u32 / 100 + doy; // [0, 146096]
    era * 146_097 + doe as i32 - 719_468
}

fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097) as u32;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe as i32 + era * 400 + i32::from(m <= 2);
    (y, m, d)
}

/// On the wire a date is "YYYY-MM-DD" (see its `Serialize`).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Date {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Date".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_dates() {
        let d: Date = "2026-11-30".parse().unwrap();
        assert_eq!(d.weekday(), Weekday::Mon);
        assert_eq!(d.to_string(), "2026-11-30");
        assert_eq!(Date::from_ymd(1970, 1, 1).unwrap().days(), 0);
        assert_eq!(
            "2024-02-29".parse::<Date>().unwrap().weekday(),
            Weekday::Thu
        );
        assert!("2025-02-29".parse::<Date>().is_err());
        assert!("2026-1-30".parse::<Date>().is_err());
        assert!("2026-13-01".parse::<Date>().is_err());
        assert!("+026-11-01".parse::<Date>().is_err());
        assert_eq!("2026-12-31".parse::<Date>().unwrap().iso_week(), 53);
        assert_eq!("2027-01-04".parse::<Date>().unwrap().iso_week(), 1);
        assert_eq!("2026-11-30".parse::<Date>().unwrap().iso_week(), 49);
    }

    #[test]
    fn serde_round_trip() {
        let d: Date = "2026-03-09".parse().unwrap();
        let j = serde_json::to_string(&d).unwrap();
        assert_eq!(j, "\"2026-03-09\"");
        assert_eq!(serde_json::from_str::<Date>(&j).unwrap(), d);
        let e = serde_json::from_str::<Date>("\"09/03/2026\"").unwrap_err();
        assert!(e.to_string().contains("YYYY-MM-DD"), "{e}");
    }

    #[test]
    fn months() {
        let d: Date = "2026-11-17".parse().unwrap();
        assert_eq!(d.first_of_month().to_string(), "2026-11-01");
        assert_eq!(d.add_months_to_first(2).to_string(), "2027-01-01");
        assert_eq!(d.add_months_to_first(-11).to_string(), "2025-12-01");
        assert_eq!(d.monday().to_string(), "2026-11-16");
    }

    proptest! {
        #[test]
        fn civil_round_trip(n in -25_000i32..375_000) {
            let d = Date::from_days(n);
            let (y, m, dd) = d.ymd();
            prop_assert_eq!(days_from_civil(y, m, dd), n);
            prop_assert_eq!(d.add_days(1).weekday().index(), (d.weekday().index() + 1) % 7);
            if d.in_supported_range() {
                prop_assert_eq!(d.to_string().parse::<Date>().unwrap(), d);
            }
        }
    }
}

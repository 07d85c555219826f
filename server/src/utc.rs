//! Time stamps in UTC, from Unix milliseconds: the one formatter behind every time the
//! server writes for people (`YYYY-MM-DD HH:MM UTC`: token lists, link expiries) and
//! for machines (ISO 8601 to the second or the millisecond: journal entries, versions,
//! views). jiff does the calendar; the formats are fixed here so that every text and
//! every answer spells an instant the same way.

use jiff::Timestamp;

/// How much of the instant a stamp shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// `2026-05-03 09:20 UTC`, for people.
    Minutes,
    /// `2026-05-03T09:20:00Z`.
    Seconds,
    /// `2026-05-03T09:20:00.123Z`: two events within one second stay ordered.
    Millis,
}

/// `ms` (Unix milliseconds) as a UTC stamp. Instants beyond what the calendar holds
/// (years before -9999 or after 9999) are shown as its first or last one.
pub fn stamp(ms: i64, precision: Precision) -> String {
    let at = Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    let format = match precision {
        Precision::Minutes => "%Y-%m-%d %H:%M UTC",
        Precision::Seconds => "%Y-%m-%dT%H:%M:%SZ",
        Precision::Millis => "%Y-%m-%dT%H:%M:%S%.3fZ",
    };
    at.strftime(format).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_keep_their_formats() {
        let t = 1_777_800_000_123;
        assert_eq!(stamp(t, Precision::Minutes), "2026-05-03 09:20 UTC");
        assert_eq!(stamp(t, Precision::Seconds), "2026-05-03T09:20:00Z");
        assert_eq!(stamp(t, Precision::Millis), "2026-05-03T09:20:00.123Z");
        assert_eq!(stamp(0, Precision::Seconds), "1970-01-01T00:00:00Z");
        assert_eq!(stamp(0, Precision::Millis), "1970-01-01T00:00:00.000Z");
        assert_eq!(stamp(7, Precision::Millis), "1970-01-01T00:00:00.007Z");
        // Before the epoch: floor, not truncation toward zero.
        assert_eq!(stamp(-1_000, Precision::Seconds), "1969-12-31T23:59:59Z");
        assert_eq!(stamp(-1, Precision::Millis), "1969-12-31T23:59:59.999Z");
        assert_eq!(stamp(-1, Precision::Minutes), "1969-12-31 23:59 UTC");
        // Seconds are cut, not rounded.
        assert_eq!(stamp(59_999, Precision::Minutes), "1970-01-01 00:00 UTC");
        // Out of the calendar: its last instant, never a panic.
        assert!(stamp(i64::MAX, Precision::Minutes).starts_with("9999-12-"));
        assert!(stamp(i64::MIN, Precision::Seconds).starts_with("-9999-01-"));
    }
}

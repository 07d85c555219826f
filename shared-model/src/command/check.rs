//! The rules every field of a command obeys: non-empty names, text lengths, colours,
//! e-mail addresses, time zones, dates in the supported years, numeric ranges. Shared
//! by the commands and by `validate_schedule`, so imported data meets the same rules
//! as written data.

use crate::date::Date;

use super::error::Problem;

/// The longest text (name, label, notes, reason), in characters. Labels may be long on
/// purpose: paging must cope with outsized texts, so the limit only stops abuse.
pub const MAX_TEXT: usize = 1_000_000;
/// The largest lag or lead of a link, in the schedule's time unit.
pub const MAX_LAG: i32 = 10_000;
/// The largest move or resize, in the schedule's time unit.
pub const MAX_BY: i32 = 100_000;
/// The largest id: 2^53 - 1, the largest integer a JavaScript number (the view's
/// host) represents exactly.
pub const MAX_ID: u64 = (1 << 53) - 1;

/// A text of at most [`MAX_TEXT`] characters.
pub(super) fn text(v: &str) -> Result<(), Problem> {
    // Counting characters costs a pass; a text with few bytes cannot have many chars.
    if v.len() > MAX_TEXT {
        let len = v.chars().count();
        if len > MAX_TEXT {
            return Err(Problem::TooLong { len, max: MAX_TEXT });
        }
    }
    Ok(())
}

/// A name or label: not blank, at most [`MAX_TEXT`] characters.
pub(super) fn name(v: &str) -> Result<(), Problem> {
    if v.trim().is_empty() {
        return Err(Problem::Empty);
    }
    text(v)
}

/// A CSS colour "#rgb" or "#rrggbb".
pub(super) fn color(v: &str) -> Result<(), Problem> {
    let b = v.as_bytes();
    let ok = matches!(b.len(), 4 | 7) && b[0] == b'#' && b[1..].iter().all(u8::is_ascii_hexdigit);
    if ok {
        Ok(())
    } else {
        Err(Problem::BadColor {
            value: excerpt(v, 40),
        })
    }
}

pub(super) fn opt_color(v: Option<&str>) -> Result<(), Problem> {
    v.map_or(Ok(()), color)
}

/// An e-mail address: one '@' with text on both sides, no blank.
pub(super) fn email(v: &str) -> Result<(), Problem> {
    let ok = match v.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !v.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    };
    if ok {
        text(v)
    } else {
        Err(Problem::BadEmail {
            value: excerpt(v, 80),
        })
    }
}

/// Something that looks like an IANA zone name ("Europe/Paris",
/// "America/Argentina/Buenos_Aires", "Etc/GMT+1") or "UTC". The model holds no zone
/// database (it never converts instants); the server resolves the name.
pub(super) fn time_zone(v: &str) -> Result<(), Problem> {
    let part_ok = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+'))
    };
    let ok = v == "UTC"
        || (v.len() <= 64
            && v.contains('/')
            && v.split('/').all(part_ok)
            && v.as_bytes()[0].is_ascii_uppercase());
    if ok {
        Ok(())
    } else {
        Err(Problem::BadTimeZone {
            value: excerpt(v, 80),
        })
    }
}

/// A date in the years a schedule accepts.
pub(super) fn date(d: Date) -> Result<(), Problem> {
    if d.in_supported_range() {
        Ok(())
    } else {
        Err(Problem::DateOutOfRange { date: d })
    }
}

/// A span whose end (inclusive) is not before its start.
pub(super) fn span(start: Date, end: Date) -> Result<(), Problem> {
    if end < start {
        Err(Problem::EndBeforeStart { start, end })
    } else {
        Ok(())
    }
}

/// A number within [min, max].
pub(super) fn within(value: i64, min: i64, max: i64) -> Result<(), Problem> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(Problem::OutOfRange { value, min, max })
    }
}

/// A position among `count` places (0..=count), `count` (last) by default.
pub(super) fn position(index: Option<usize>, count: usize) -> Result<usize, Problem> {
    let index = index.unwrap_or(count);
    within(index as i64, 0, count as i64).map(|()| index)
}

pub(super) fn lag(v: i32) -> Result<(), Problem> {
    within(i64::from(v), -i64::from(MAX_LAG), i64::from(MAX_LAG))
}

pub(super) fn by(v: i32) -> Result<(), Problem> {
    within(i64::from(v), -i64::from(MAX_BY), i64::from(MAX_BY))
}

/// The first `max` characters of a text, with "…" when cut: errors quote what they
/// refuse, and a refused text may be a megabyte long.
pub(crate) fn excerpt(v: &str, max: usize) -> String {
    match v.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &v[..cut]),
        None => v.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors() {
        for ok in ["#abc", "#2f6fdf", "#ABCDEF"] {
            assert_eq!(color(ok), Ok(()), "{ok}");
        }
        for bad in ["abc", "#abcd", "#ggg", "", "#", "red", "#2f6fdf0"] {
            assert!(color(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn emails() {
        assert_eq!(email("a@b"), Ok(()));
        assert_eq!(email("alice.martin@example.org"), Ok(()));
        for bad in ["", "@b", "a@", "a@b@c", "ab", "a b@c", "a@b\n"] {
            assert!(email(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn time_zones() {
        for ok in [
            "UTC",
            "Europe/Paris",
            "America/Argentina/Buenos_Aires",
            "Etc/GMT+1",
        ] {
            assert_eq!(time_zone(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "Paris",
            "europe/paris",
            "Europe/",
            "/Paris",
            "Europe/Pa ris",
            "utc",
        ] {
            assert!(time_zone(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn texts_and_names() {
        assert_eq!(name("  "), Err(Problem::Empty));
        assert_eq!(name(" x "), Ok(()));
        let long = "é".repeat(MAX_TEXT);
        assert_eq!(text(&long), Ok(()), "a million two-byte characters fit");
        let longer = "x".repeat(MAX_TEXT + 1);
        assert_eq!(
            text(&longer),
            Err(Problem::TooLong {
                len: MAX_TEXT + 1,
                max: MAX_TEXT
            })
        );
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("abc", 3), "abc");
    }

    #[test]
    fn positions_and_ranges() {
        assert_eq!(position(None, 3), Ok(3));
        assert_eq!(position(Some(0), 0), Ok(0));
        assert!(position(Some(4), 3).is_err());
        assert_eq!(by(MAX_BY), Ok(()));
        assert!(by(-MAX_BY - 1).is_err());
        assert!(lag(MAX_LAG + 1).is_err());
    }
}

//! Time zones: a schedule's `time_zone` checked against the IANA time-zone database
//! (jiff's bundled copy, never the machine's zoneinfo, so every machine agrees and no
//! local name such as "localtime" is accepted), the closest names to one it does not
//! know, and "today" for a schedule: the current date in its zone, from the server's
//! one clock (`Ctx::now_ms`, replaceable in tests). The model stays pure: it receives
//! that date as a parameter.

use crate::planning::Code;
use std::sync::OnceLock;

use jiff::Timestamp;
use jiff::tz::{TimeZone, TimeZoneDatabase};
use palmaplan_model::command::Command;
use palmaplan_model::{Date, Schedule};
use serde_json::json;

use super::{Ctx, Refusal};

/// How many close names a refusal offers.
const SUGGESTIONS: usize = 3;

/// The bundled database, opened once.
fn db() -> &'static TimeZoneDatabase {
    static DB: OnceLock<TimeZoneDatabase> = OnceLock::new();
    DB.get_or_init(TimeZoneDatabase::bundled)
}

/// The zone of this name, if the database has it.
pub(crate) fn zone(name: &str) -> Option<TimeZone> {
    db().get(name).ok()
}

/// The date at this instant in a zone; in UTC when the database does not know the
/// name (a schedule stored before names were checked).
pub(crate) fn date_at(now_ms: i64, name: &str) -> Date {
    let tz = zone(name).unwrap_or(TimeZone::UTC);
    let at = Timestamp::from_millisecond(now_ms).unwrap_or(Timestamp::UNIX_EPOCH);
    let day = at.to_zoned(tz).date();
    let (month, dom) = (
        u32::try_from(day.month()).unwrap_or(1),
        u32::try_from(day.day()).unwrap_or(1),
    );
    Date::from_ymd(i32::from(day.year()), month, dom).unwrap_or_else(|| Date::from_days(0))
}

/// "Today" for a schedule: the current date in its zone.
pub(crate) fn today_of(ctx: &Ctx, s: &Schedule) -> Date {
    date_at(ctx.now_ms(), &s.settings.time_zone)
}

/// The database's names closest to `name` (case and separators aside), best first:
/// compared whole and by their last part, so "Paris" finds "Europe/Paris".
pub(crate) fn closest(name: &str) -> Vec<String> {
    let want = name.to_lowercase().replace([' ', '-'], "_");
    let want_place = want.rsplit('/').next().unwrap_or(&want).to_owned();
    let mut scored: Vec<(f64, String)> = db()
        .available()
        .map(|n| {
            let n = n.as_str().to_owned();
            let lower = n.to_lowercase();
            let place = lower.rsplit('/').next().unwrap_or(&lower);
            let score =
                strsim::jaro_winkler(&want, &lower).max(strsim::jaro_winkler(&want_place, place));
            (score, n)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(SUGGESTIONS)
        .map(|(_, n)| n)
        .collect()
}

/// The refusal of a zone the database does not know, naming the closest ones.
pub(crate) fn unknown(ctx: &Ctx, name: &str) -> Refusal {
    let near = closest(name);
    let list = near
        .iter()
        .map(|n| format!("«\u{a0}{n}\u{a0}»"))
        .collect::<Vec<_>>()
        .join(", ");
    let list_en = near
        .iter()
        .map(|n| format!("“{n}”"))
        .collect::<Vec<_>>()
        .join(", ");
    Refusal::new(
        Code::InvalidTimeZone,
        ctx.tr(
            format!("«\u{a0}{name}\u{a0}» n'est pas un fuseau horaire de la base IANA. Les plus proches\u{a0}: {list}. Donnez un nom de la forme «\u{a0}Europe/Paris\u{a0}», ou «\u{a0}UTC\u{a0}»."),
            format!("“{name}” is not a time zone of the IANA database. The closest: {list_en}. Give a name such as “Europe/Paris”, or “UTC”."),
        ),
    )
    .with(json!({ "field": "time_zone", "value": name, "suggestions": near }))
}

/// Refuses commands that give a schedule a zone the database does not know: a
/// `set_settings` or a whole schedule (`replace_schedule`). The zone the schedule
/// already has is let through (a schedule stored before names were checked can still
/// be edited, and its versions restored).
pub(crate) fn check_commands(
    ctx: &Ctx,
    cmds: &[Command],
    current: &Schedule,
) -> Result<(), Refusal> {
    for c in cmds {
        let name = match c {
            Command::SetSettings {
                time_zone: Some(tz),
                ..
            } => tz.as_str(),
            Command::ReplaceSchedule { schedule } => schedule.settings.time_zone.as_str(),
            _ => continue,
        };
        if name != current.settings.time_zone && zone(name).is_none() {
            return Err(unknown(ctx, name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::Kit;
    use super::*;

    /// 2026-12-01 10:30 UTC.
    const INSTANT: i64 = 1_796_121_000_000;

    #[test]
    fn the_same_instant_is_a_different_day_across_the_date_line() {
        // UTC+14 is already on Wednesday 2; UTC-11 still on Monday 30 November.
        assert_eq!(date_at(INSTANT, "UTC").to_string(), "2026-12-01");
        assert_eq!(
            date_at(INSTANT, "Pacific/Kiritimati").to_string(),
            "2026-12-02"
        );
        assert_eq!(
            date_at(INSTANT, "Pacific/Pago_Pago").to_string(),
            "2026-11-30"
        );
        assert_eq!(date_at(INSTANT, "Europe/Paris").to_string(), "2026-12-01");
        // Paris an hour before midnight UTC is already the next day (UTC+1 in winter).
        let late = INSTANT + (13 * 60 + 15) * 60_000;
        assert_eq!(date_at(late, "Europe/Paris").to_string(), "2026-12-02");
        assert_eq!(date_at(late, "UTC").to_string(), "2026-12-01");
        // A name the database does not know counts in UTC.
        assert_eq!(date_at(INSTANT, "Mars/Olympus").to_string(), "2026-12-01");
    }

    #[test]
    fn unknown_names_get_the_closest_ones() {
        assert!(zone("Mars/Olympus").is_none());
        assert!(zone("Europe/Paris").is_some() && zone("UTC").is_some());
        // The machine's own names are not zones of the database.
        assert!(zone("localtime").is_none() && zone("posixrules").is_none());
        assert_eq!(closest("Europe/Pari")[0], "Europe/Paris");
        assert_eq!(closest("europe/paris")[0], "Europe/Paris");
        assert_eq!(closest("Pacific/Pago Pago")[0], "Pacific/Pago_Pago");
        assert_eq!(closest("Paris")[0], "Europe/Paris");
        assert_eq!(closest("x").len(), SUGGESTIONS);
    }

    #[tokio::test]
    async fn a_zone_stored_before_names_were_checked_can_still_be_kept() {
        // Written to the store directly, as an older server accepted it.
        let k = Kit::new("zones-kept").await;
        let mut s = palmaplan_model::demo::s4hana_migration();
        s.name = "Olympus".into();
        s.settings.time_zone = "Mars/Olympus".into();
        let id = k
            .planning
            .store()
            .create_schedule(&s, k.owner.user_id, 0)
            .await
            .unwrap();
        // Other settings change, the zone given again as it is is let through, a
        // saved version comes back; only a new unknown zone is refused.
        let same =
            serde_json::json!({ "schedule": id, "time_zone": "Mars/Olympus", "time_unit": "week" });
        k.ok(&k.owner, "update_settings", same).await;
        k.ok(
            &k.owner,
            "save_version",
            serde_json::json!({ "schedule": id, "name": "V" }),
        )
        .await;
        k.ok(
            &k.owner,
            "restore_version",
            serde_json::json!({ "schedule": id, "version": "V", "confirm": true }),
        )
        .await;
        let r = k
            .refused(
                &k.owner,
                "update_settings",
                serde_json::json!({ "schedule": id, "time_zone": "Mars/Olympia" }),
            )
            .await;
        assert_eq!(r.structured["error"], "invalid_time_zone");
    }
}

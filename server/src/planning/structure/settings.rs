//! Tools on a schedule's settings: its time zone, working weekdays, holidays, time
//! unit and scheduling mode. All writes are the model's `set_settings`; `add_holidays` and
//! `remove_holidays` compute the new list from the current one and write it at the
//! rank they read, so two people adding holidays at once both get theirs.

use crate::planning::Code;
use palmaplan_model::command::Command;
use palmaplan_model::text::count;
use palmaplan_model::wire::CascadeSummary;
use palmaplan_model::{Date, Lang, Scheduling, Settings, TimeUnit, Weekday};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{CAP, nothing_to_change, rank, unit_word, write_from_state};
use crate::planning::args::date;
use crate::planning::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "get_settings",
            "Read settings: time zone, working weekdays, holidays, time unit, scheduling mode.",
            Access::Read,
            get_settings,
        )
        .returns::<SettingsAnswer>(),
        tool(
            "update_settings",
            "Change settings. holidays REPLACES the list (add_holidays / remove_holidays change a few).",
            Access::Write,
            update_settings,
        )
        .returns::<SettingsAnswer>(),
        tool(
            "add_holidays",
            "Add days off to the calendar; dates already there are ignored.",
            Access::Write,
            add_holidays,
        )
        .returns::<HolidaysAdded>(),
        tool(
            "remove_holidays",
            "Remove days off from the calendar (working again on working weekdays).",
            Access::Write,
            remove_holidays,
        )
        .returns::<HolidaysRemoved>(),
    ]
}

// A working weekday, as the model writes it.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Day {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl From<Day> for Weekday {
    fn from(d: Day) -> Weekday {
        match d {
            Day::Mon => Weekday::Mon,
            Day::Tue => Weekday::Tue,
            Day::Wed => Weekday::Wed,
            Day::Thu => Weekday::Thu,
            Day::Fri => Weekday::Fri,
            Day::Sat => Weekday::Sat,
            Day::Sun => Weekday::Sun,
        }
    }
}

// The unit durations and lags are counted in.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// A working day.
    Day,
    /// A working week (as many days as the calendar has working weekdays).
    Week,
}

/// Whether writes push successors.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    /// Every write that changes dates or links moves what follows so that links hold.
    Auto,
    /// Dates stay where they are put; broken links are reported.
    Manual,
}

impl From<Mode> for Scheduling {
    fn from(m: Mode) -> Scheduling {
        match m {
            Mode::Auto => Scheduling::Auto,
            Mode::Manual => Scheduling::Manual,
        }
    }
}

/// The scheduling mode in a sentence's words.
fn mode_words(lang: Lang, m: Scheduling) -> &'static str {
    match (lang, m) {
        (Lang::Fr, Scheduling::Auto) => "planification automatique (les successeurs suivent)",
        (Lang::Fr, Scheduling::Manual) => {
            "planification manuelle (les dates restent où on les met)"
        }
        (Lang::En, Scheduling::Auto) => "automatic scheduling (successors follow)",
        (Lang::En, Scheduling::Manual) => "manual scheduling (dates stay where they are put)",
    }
}

impl From<Unit> for TimeUnit {
    fn from(u: Unit) -> TimeUnit {
        match u {
            Unit::Day => TimeUnit::Day,
            Unit::Week => TimeUnit::Week,
        }
    }
}

fn weekday_word(lang: Lang, d: Weekday) -> &'static str {
    let fr = ["lun", "mar", "mer", "jeu", "ven", "sam", "dim"];
    let en = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    match lang {
        Lang::Fr => fr[d.index()],
        Lang::En => en[d.index()],
    }
}

/// Dates as a short list: the first `CAP`, then "… and N more".
fn dates_list(ctx: &Ctx, dates: &[Date]) -> String {
    let shown: Vec<String> = dates.iter().take(CAP).map(Date::to_string).collect();
    let mut out = shown.join(", ");
    if dates.len() > CAP {
        out.push_str(&ctx.tr(
            format!(
                " … et {}",
                count(Lang::Fr, dates.len() - CAP, "autre", "autres")
            ),
            format!(" … and {} more", dates.len() - CAP),
        ));
    }
    out
}

/// The settings in one paragraph.
fn describe(ctx: &Ctx, st: &Settings) -> String {
    let days: Vec<&str> = st
        .working_weekdays
        .iter()
        .map(|d| weekday_word(ctx.lang(), *d))
        .collect();
    let holidays = if st.holidays.is_empty() {
        ctx.tr("aucun jour férié", "no holidays")
    } else {
        ctx.tr(
            format!(
                "{}\u{a0}: {}",
                count(Lang::Fr, st.holidays.len(), "jour férié", "jours fériés"),
                dates_list(ctx, &st.holidays)
            ),
            format!(
                "{}: {}",
                count(Lang::En, st.holidays.len(), "holiday", "holidays"),
                dates_list(ctx, &st.holidays)
            ),
        )
    };
    ctx.tr(
        format!(
            "fuseau {}\u{202f}; jours ouvrés\u{a0}: {}\u{202f}; durées et décalages comptés en {}\u{202f}; {}\u{202f}; {}",
            st.time_zone,
            days.join(", "),
            unit_word(Lang::Fr, st.time_unit),
            holidays,
            mode_words(Lang::Fr, st.scheduling)
        ),
        format!(
            "time zone {}; working days: {}; durations and lags counted in {}; {}; {}",
            st.time_zone,
            days.join(", "),
            unit_word(Lang::En, st.time_unit),
            holidays,
            mode_words(Lang::En, st.scheduling)
        ),
    )
}

/// `get_settings`'s and `update_settings`'s result: the settings, compact (holidays
/// capped, with their count).
#[derive(Debug, Serialize, JsonSchema)]
struct SettingsAnswer {
    schedule_id: i64,
    rank: i64,
    /// IANA name, e.g. "Europe/Paris".
    time_zone: String,
    working_weekdays: Vec<Weekday>,
    time_unit: TimeUnit,
    scheduling: Scheduling,
    /// The first 50 holidays, in order.
    holidays: Vec<Date>,
    holiday_count: usize,
    /// update_settings: what the new calendar pushed (auto scheduling), if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadeSummary>,
}

/// The compact structured settings (holidays capped, with their count).
fn settings_json(id: i64, rank: i64, st: &Settings) -> serde_json::Value {
    json!(SettingsAnswer {
        schedule_id: id,
        rank,
        time_zone: st.time_zone.clone(),
        working_weekdays: st.working_weekdays.clone(),
        time_unit: st.time_unit,
        scheduling: st.scheduling,
        holidays: st.holidays.iter().take(CAP).copied().collect(),
        holiday_count: st.holidays.len(),
        cascade: None,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct One {
    schedule: ScheduleRef,
}

async fn get_settings(ctx: Ctx, p: One) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let st = &stored.state.settings;
    let text = ctx.tr(
        format!(
            "Réglages de «\u{a0}{}\u{a0}» (id {id}, {})\u{a0}: {}.",
            stored.state.name,
            rank(&ctx, stored.rank),
            describe(&ctx, st)
        ),
        format!(
            "Settings of “{}” (id {id}, {}): {}.",
            stored.state.name,
            rank(&ctx, stored.rank),
            describe(&ctx, st)
        ),
    );
    Ok(Reply::ok(text, settings_json(id, stored.rank, st)))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Update {
    schedule: ScheduleRef,
    /// IANA, e.g. "Europe/Paris".
    #[serde(default)]
    time_zone: Option<String>,
    #[serde(default)]
    working_weekdays: Option<Vec<Day>>,
    /// WHOLE list, YYYY-MM-DD; [] clears.
    #[serde(default)]
    holidays: Option<Vec<String>>,
    #[serde(default)]
    time_unit: Option<Unit>,
    /// "auto": writes push successors; "manual": dates stay.
    #[serde(default)]
    scheduling: Option<Mode>,
}

async fn update_settings(ctx: Ctx, p: Update) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.time_zone.is_none()
        && p.working_weekdays.is_none()
        && p.holidays.is_none()
        && p.time_unit.is_none()
        && p.scheduling.is_none()
    {
        return Err(nothing_to_change(
            &ctx,
            "time_zone, working_weekdays, holidays, time_unit, scheduling",
        ));
    }
    let holidays = p
        .holidays
        .as_ref()
        .map(|h| {
            h.iter()
                .map(|d| date(&ctx, "holidays", d))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let mut changed = Vec::new();
    if p.time_zone.is_some() {
        changed.push(ctx.tr("fuseau", "time zone"));
    }
    if p.working_weekdays.is_some() {
        changed.push(ctx.tr("jours ouvrés", "working days"));
    }
    if holidays.is_some() {
        changed.push(ctx.tr("jours fériés", "holidays"));
    }
    if p.time_unit.is_some() {
        changed.push(ctx.tr("unité", "time unit"));
    }
    if p.scheduling.is_some() {
        changed.push(ctx.tr("planification", "scheduling"));
    }
    let cmd = Command::SetSettings {
        time_zone: p.time_zone,
        working_weekdays: p
            .working_weekdays
            .map(|w| w.into_iter().map(Weekday::from).collect()),
        holidays,
        time_unit: p.time_unit.map(TimeUnit::from),
        scheduling: p.scheduling.map(Scheduling::from),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let st = &wrote.state.settings;
    let text = ctx.tr(
        format!(
            "Réglages de «\u{a0}{}\u{a0}» modifiés ({})\u{202f}; {}. Désormais\u{a0}: {}.",
            wrote.state.name,
            changed.join(", "),
            rank(&ctx, wrote.rank),
            describe(&ctx, st)
        ),
        format!(
            "Settings of “{}” changed ({}); {}. Now: {}.",
            wrote.state.name,
            changed.join(", "),
            rank(&ctx, wrote.rank),
            describe(&ctx, st)
        ),
    );
    // In auto scheduling a new calendar pushes what its links now need.
    let reply = Reply::ok(text, settings_json(id, wrote.rank, st));
    Ok(crate::planning::scheduling::with_cascade(
        &ctx, &wrote, reply,
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Dates {
    schedule: ScheduleRef,
    /// YYYY-MM-DD.
    dates: Vec<String>,
}

/// The dates of a call, parsed, sorted and without repeats.
fn parse_dates(ctx: &Ctx, dates: &[String]) -> Result<Vec<Date>, Refusal> {
    if dates.is_empty() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}dates\u{a0}» est vide\u{a0}: donnez au moins une date AAAA-MM-JJ.",
                "“dates” is empty: give at least one YYYY-MM-DD date.",
            ),
        ));
    }
    let mut out = dates
        .iter()
        .map(|d| date(ctx, "dates", d))
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

async fn add_holidays(ctx: Ctx, p: Dates) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let dates = parse_dates(&ctx, &p.dates)?;
    let mut added = Vec::new();
    let (before, wrote) = write_from_state(&ctx, id, |s| {
        let current = &s.settings.holidays;
        added = dates
            .iter()
            .copied()
            .filter(|d| current.binary_search(d).is_err())
            .collect();
        if added.is_empty() {
            return Ok(Vec::new());
        }
        let mut all = current.clone();
        all.extend(&added);
        Ok(vec![Command::SetSettings {
            time_zone: None,
            working_weekdays: None,
            holidays: Some(all),
            time_unit: None,
            scheduling: None,
        }])
    })
    .await?;
    Ok(holidays_reply(
        &ctx,
        id,
        before,
        wrote,
        &added,
        dates.len(),
        true,
    ))
}

async fn remove_holidays(ctx: Ctx, p: Dates) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let dates = parse_dates(&ctx, &p.dates)?;
    let mut removed = Vec::new();
    let (before, wrote) = write_from_state(&ctx, id, |s| {
        let current = &s.settings.holidays;
        removed = dates
            .iter()
            .copied()
            .filter(|d| current.binary_search(d).is_ok())
            .collect();
        if removed.is_empty() {
            return Ok(Vec::new());
        }
        let all = current
            .iter()
            .copied()
            .filter(|d| removed.binary_search(d).is_err())
            .collect();
        Ok(vec![Command::SetSettings {
            time_zone: None,
            working_weekdays: None,
            holidays: Some(all),
            time_unit: None,
            scheduling: None,
        }])
    })
    .await?;
    Ok(holidays_reply(
        &ctx,
        id,
        before,
        wrote,
        &removed,
        dates.len(),
        false,
    ))
}

/// `add_holidays`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct HolidaysAdded {
    schedule_id: i64,
    rank: i64,
    /// False when every date already was a holiday.
    changed: bool,
    /// The dates added (the first 50).
    added: Vec<Date>,
    /// Holidays in the calendar now.
    holiday_count: usize,
    /// What the new holidays pushed (auto scheduling), if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadeSummary>,
}

/// `remove_holidays`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct HolidaysRemoved {
    schedule_id: i64,
    rank: i64,
    /// False when none of the dates was a holiday.
    changed: bool,
    /// The dates removed (the first 50).
    removed: Vec<Date>,
    /// Holidays in the calendar now.
    holiday_count: usize,
    /// What the working days regained pushed (auto scheduling), if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadeSummary>,
}

/// The answer of add_holidays / remove_holidays: what changed, what was already so,
/// and the calendar's count of holidays now.
fn holidays_reply(
    ctx: &Ctx,
    id: i64,
    before: crate::storage::Stored,
    wrote: Option<crate::planning::Wrote>,
    changed: &[Date],
    asked: usize,
    adding: bool,
) -> Reply {
    let name = before.state.name.clone();
    let (now, rank_now) = match &wrote {
        Some(w) => (w.state.settings.holidays.len(), w.rank),
        None => (before.state.settings.holidays.len(), before.rank),
    };
    let unchanged = asked - changed.len();
    let at = rank(ctx, rank_now);
    let n = changed.len();
    let list = dates_list(ctx, changed);
    let mut text = match (changed.is_empty(), adding) {
        (true, true) => ctx.tr(
            format!("Ces dates sont déjà des jours fériés de «\u{a0}{name}\u{a0}»\u{a0}: rien n'a changé ({at})."),
            format!("These dates already are holidays of “{name}”: nothing changed ({at})."),
        ),
        (true, false) => ctx.tr(
            format!(
                "Aucune de ces dates n'est un jour férié de «\u{a0}{name}\u{a0}»\u{a0}: rien n'a changé ({at})."
            ),
            format!("None of these dates is a holiday of “{name}”: nothing changed ({at})."),
        ),
        (false, true) => ctx.tr(
            format!(
                "{} à «\u{a0}{name}\u{a0}»\u{a0}: {list} ({at}).",
                count(Lang::Fr, n, "jour férié ajouté", "jours fériés ajoutés")
            ),
            format!(
                "{} added to “{name}”: {list} ({at}).",
                count(Lang::En, n, "holiday", "holidays")
            ),
        ),
        (false, false) => ctx.tr(
            format!(
                "{} de «\u{a0}{name}\u{a0}»\u{a0}: {list} ({at}).",
                count(Lang::Fr, n, "jour férié retiré", "jours fériés retirés")
            ),
            format!(
                "{} removed from “{name}”: {list} ({at}).",
                count(Lang::En, n, "holiday", "holidays")
            ),
        ),
    };
    if !changed.is_empty() && unchanged > 0 {
        text.push_str(&ctx.tr(
            format!(
                " {}.",
                count(
                    Lang::Fr,
                    unchanged,
                    "date l'était déjà",
                    "dates l'étaient déjà"
                )
            ),
            format!(
                " {}.",
                count(
                    Lang::En,
                    unchanged,
                    "date already was",
                    "dates already were"
                )
            ),
        ));
    }
    text.push_str(&ctx.tr(
        format!(
            " Le calendrier compte {}.",
            count(Lang::Fr, now, "jour férié", "jours fériés")
        ),
        format!(
            " The calendar has {}.",
            count(Lang::En, now, "holiday", "holidays")
        ),
    ));
    let dates: Vec<Date> = changed.iter().take(CAP).copied().collect();
    let structured = if adding {
        json!(HolidaysAdded {
            schedule_id: id,
            rank: rank_now,
            changed: wrote.is_some(),
            added: dates,
            holiday_count: now,
            cascade: None,
        })
    } else {
        json!(HolidaysRemoved {
            schedule_id: id,
            rank: rank_now,
            changed: wrote.is_some(),
            removed: dates,
            holiday_count: now,
            cascade: None,
        })
    };
    let reply = Reply::ok(text, structured);
    // In auto scheduling new holidays push what their links now need.
    match &wrote {
        Some(w) => crate::planning::scheduling::with_cascade(ctx, w, reply),
        None => reply,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{Kit, kit, needs_editor, ok, refused};

    #[tokio::test]
    async fn read_and_update_settings() {
        let k = kit().await;
        let r = ok(k.call(&k.viewer, "get_settings", json!({})).await);
        assert!(
            r.text.contains("Europe/Paris") && r.text.contains("2026-11-11, 2026-12-25"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["holiday_count"], 2);
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_settings",
                json!({"working_weekdays": ["sat", "mon", "tue"], "time_unit": "week"}),
            )
            .await);
        assert!(
            r.text.contains("working days: Mon, Tue, Sat") && r.text.contains("rank 1"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["time_unit"], "week");
        needs_editor(
            k.call(&k.viewer, "update_settings", json!({"time_unit": "day"}))
                .await,
        );
        // A zone the time-zone database does not know is refused with the closest
        // names, whatever its shape ("Mars/Olympus" looks like one).
        let r = refused(
            k.call(&k.editor, "update_settings", json!({"time_zone": "Paris"}))
                .await,
            "invalid_time_zone",
        );
        assert!(r.text.contains("«\u{a0}Europe/Paris\u{a0}»"), "{}", r.text);
        assert_eq!(r.structured["suggestions"][0], "Europe/Paris");
        let r = refused(
            k.call(
                &Kit::en(&k.editor),
                "update_settings",
                json!({"time_zone": "Mars/Olympus"}),
            )
            .await,
            "invalid_time_zone",
        );
        assert!(
            r.text
                .starts_with("“Mars/Olympus” is not a time zone of the IANA database."),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &k.editor,
                "update_settings",
                json!({"time_zone": "Pacific/Kiritimati"}),
            )
            .await);
        assert!(r.text.contains("Pacific/Kiritimati"), "{}", r.text);
        refused(
            k.call(&k.editor, "update_settings", json!({})).await,
            "invalid_arguments",
        );
        let r = refused(
            k.call(
                &k.editor,
                "update_settings",
                json!({"holidays": ["2026-13-01"]}),
            )
            .await,
            "invalid_arguments",
        );
        assert!(r.text.contains("AAAA-MM-JJ"), "{}", r.text);
    }

    #[tokio::test]
    async fn add_and_remove_holidays() {
        let k = kit().await;
        let r = ok(k
            .call(
                &k.editor,
                "add_holidays",
                json!({"dates": ["2026-12-31", "2026-12-24", "2026-12-25"]}),
            )
            .await);
        assert!(
            r.text.contains("2 jours fériés ajoutés")
                && r.text.contains("2026-12-24, 2026-12-31")
                && r.text.contains("1 date l'était déjà")
                && r.text.contains("rang 1"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["holiday_count"], 4);
        let r = ok(k
            .call(&k.editor, "add_holidays", json!({"dates": ["2026-12-24"]}))
            .await);
        assert_eq!(r.structured["changed"], false, "{}", r.text);
        assert_eq!(r.structured["rank"], 1, "nothing written");
        let r = ok(k
            .call(
                &k.editor,
                "remove_holidays",
                json!({"dates": ["2026-11-11", "2027-01-01"]}),
            )
            .await);
        assert!(
            r.text.contains("retiré") && r.text.contains("2026-11-11"),
            "{}",
            r.text
        );
        let st = k.state().await.settings;
        assert_eq!(st.holidays.len(), 3);
        needs_editor(
            k.call(&k.viewer, "add_holidays", json!({"dates": ["2026-12-24"]}))
                .await,
        );
        refused(
            k.call(&k.editor, "remove_holidays", json!({"dates": []}))
                .await,
            "invalid_arguments",
        );
    }
}

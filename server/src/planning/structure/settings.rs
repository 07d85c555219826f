//! Tools on a schedule's settings: its name, time zone, working weekdays, holidays, time
//! unit and scheduling mode, read with `get_schedule` and changed by `update_settings`
//! (one tool, so a model learns one shape). The writes are the model's `set_settings`
//! (and `rename_schedule`); `add_holidays` and `remove_holidays` compute the new list
//! from the current one and write it at the rank they read, so two people adding
//! holidays at once both get theirs.

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
            "update_settings",
            "Rename the schedule or change its settings. holidays REPLACES the list; add_holidays / remove_holidays change a few.",
            Access::Write,
            update_settings,
        )
        .returns::<Updated>(),
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
    // A working day, or a working week (as many days as the calendar has working
    // weekdays): the names say it, and every word is in each conversation's context.
    Day,
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
pub(crate) fn describe(ctx: &Ctx, st: &Settings) -> String {
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

/// A schedule's settings, compact (holidays capped, with their count), as
/// `get_schedule` and `update_settings` answer them.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SettingsBrief {
    /// IANA name, e.g. "Europe/Paris".
    time_zone: String,
    working_weekdays: Vec<Weekday>,
    time_unit: TimeUnit,
    scheduling: Scheduling,
    /// The first 50 holidays, in order.
    holidays: Vec<Date>,
    holiday_count: usize,
}

impl SettingsBrief {
    pub(crate) fn of(st: &Settings) -> SettingsBrief {
        SettingsBrief {
            time_zone: st.time_zone.clone(),
            working_weekdays: st.working_weekdays.clone(),
            time_unit: st.time_unit,
            scheduling: st.scheduling,
            holidays: st.holidays.iter().take(CAP).copied().collect(),
            holiday_count: st.holidays.len(),
        }
    }
}

/// `update_settings`'s result: the settings now.
#[derive(Debug, Serialize, JsonSchema)]
struct SettingsAnswer {
    schedule_id: i64,
    rank: i64,
    #[serde(flatten)]
    settings: SettingsBrief,
    /// What the new calendar pushed (auto scheduling), if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadeSummary>,
}

/// The compact structured settings.
fn settings_json(id: i64, rank: i64, st: &Settings) -> serde_json::Value {
    json!(SettingsAnswer {
        schedule_id: id,
        rank,
        settings: SettingsBrief::of(st),
        cascade: None,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Update {
    schedule: ScheduleRef,
    /// The schedule's new name.
    #[serde(default)]
    name: Option<String>,
    /// IANA, e.g. "Europe/Paris".
    #[serde(default)]
    time_zone: Option<String>,
    #[serde(default)]
    working_weekdays: Option<Vec<Day>>,
    /// WHOLE list, YYYY-MM-DD; [] clears.
    #[serde(default)]
    holidays: Option<Vec<String>>,
    /// Days off to add; those already there are ignored.
    #[serde(default)]
    add_holidays: Option<Vec<String>>,
    /// Days off to remove (working again on working weekdays).
    #[serde(default)]
    remove_holidays: Option<Vec<String>>,
    #[serde(default)]
    time_unit: Option<Unit>,
    /// "auto": writes push successors; "manual": dates stay.
    #[serde(default)]
    scheduling: Option<Mode>,
}

/// `update_settings`'s result: the settings, or what a rename or a holiday change did.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Updated {
    Settings(SettingsAnswer),
    Added(HolidaysAdded),
    Removed(HolidaysRemoved),
    Renamed(super::lifecycle::Renamed),
}

async fn update_settings(ctx: Ctx, p: Update) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let settings = p.time_zone.is_some()
        || p.working_weekdays.is_some()
        || p.holidays.is_some()
        || p.time_unit.is_some()
        || p.scheduling.is_some();
    // One kind of change alone keeps its own answer.
    match (&p.name, &p.add_holidays, &p.remove_holidays, settings) {
        (None, None, None, false) => {
            return Err(nothing_to_change(
                &ctx,
                "name, time_zone, working_weekdays, holidays, add_holidays, remove_holidays, time_unit, scheduling",
            ));
        }
        (Some(name), None, None, false) => {
            return super::lifecycle::rename_schedule(ctx, id, name).await;
        }
        (None, Some(dates), None, false) => return add_holidays(ctx, id, dates).await,
        (None, None, Some(dates), false) => return remove_holidays(ctx, id, dates).await,
        _ => {}
    }
    if p.holidays.is_some() && (p.add_holidays.is_some() || p.remove_holidays.is_some()) {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}holidays\u{a0}» remplace toute la liste\u{a0}: donnez-la seule, ou bien add_holidays / remove_holidays pour en changer quelques-uns.",
                "“holidays” replaces the whole list: give it alone, or add_holidays / remove_holidays to change a few.",
            ),
        )
        .with(json!({ "field": "holidays" })));
    }
    let name = p
        .name
        .as_deref()
        .map(|n| super::lifecycle::schedule_name(&ctx, n).map(str::to_owned))
        .transpose()?;
    let parse = |field: &str, list: &Option<Vec<String>>| {
        list.as_ref()
            .map(|h| {
                h.iter()
                    .map(|d| date(&ctx, field, d))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()
    };
    let holidays = parse("holidays", &p.holidays)?;
    let added = parse("add_holidays", &p.add_holidays)?;
    let removed = parse("remove_holidays", &p.remove_holidays)?;
    let mut changed = Vec::new();
    if name.is_some() {
        changed.push(ctx.tr("nom", "name"));
    }
    if p.time_zone.is_some() {
        changed.push(ctx.tr("fuseau", "time zone"));
    }
    if p.working_weekdays.is_some() {
        changed.push(ctx.tr("jours ouvrés", "working days"));
    }
    if holidays.is_some() || added.is_some() || removed.is_some() {
        changed.push(ctx.tr("jours fériés", "holidays"));
    }
    if p.time_unit.is_some() {
        changed.push(ctx.tr("unité", "time unit"));
    }
    if p.scheduling.is_some() {
        changed.push(ctx.tr("planification", "scheduling"));
    }
    let weekdays: Option<Vec<Weekday>> = p
        .working_weekdays
        .map(|w| w.into_iter().map(Weekday::from).collect());
    let (time_unit, scheduling) = (
        p.time_unit.map(TimeUnit::from),
        p.scheduling.map(Scheduling::from),
    );
    // Built from the state it is written at, so that holidays added or removed by
    // someone else meanwhile are kept.
    let (before, wrote) = write_from_state(&ctx, id, |s| {
        let mut cmds = Vec::new();
        if let Some(n) = &name {
            cmds.push(Command::RenameSchedule { name: n.clone() });
        }
        let holidays = match (&holidays, &added, &removed) {
            (Some(h), _, _) => Some(h.clone()),
            (None, None, None) => None,
            (None, add, remove) => {
                let mut all = s.settings.holidays.clone();
                all.extend(add.iter().flatten());
                all.sort_unstable();
                all.dedup();
                if let Some(r) = remove {
                    all.retain(|d| !r.contains(d));
                }
                Some(all)
            }
        };
        cmds.push(Command::SetSettings {
            time_zone: p.time_zone.clone(),
            working_weekdays: weekdays.clone(),
            holidays,
            time_unit,
            scheduling,
        });
        Ok(cmds)
    })
    .await?;
    let Some(wrote) = wrote else {
        // `write_from_state` writes whenever a command is built, and one always is.
        return Err(Refusal::new(
            Code::Internal,
            ctx.tr("Rien n'a été écrit.", "Nothing was written."),
        ));
    };
    drop(before);
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

/// The dates of a call, parsed, sorted and without repeats.
fn parse_dates(ctx: &Ctx, field: &str, dates: &[String]) -> Result<Vec<Date>, Refusal> {
    if dates.is_empty() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!(
                    "«\u{a0}{field}\u{a0}» est vide\u{a0}: donnez au moins une date AAAA-MM-JJ."
                ),
                format!("“{field}” is empty: give at least one YYYY-MM-DD date."),
            ),
        ));
    }
    let mut out = dates
        .iter()
        .map(|d| date(ctx, field, d))
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

async fn add_holidays(ctx: Ctx, id: i64, dates: &[String]) -> Result<Reply, Refusal> {
    let dates = parse_dates(&ctx, "add_holidays", dates)?;
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

async fn remove_holidays(ctx: Ctx, id: i64, dates: &[String]) -> Result<Reply, Refusal> {
    let dates = parse_dates(&ctx, "remove_holidays", dates)?;
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

/// Holidays added (`add_holidays` alone).
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

/// Holidays removed (`remove_holidays` alone).
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
        let r = ok(k.call(&k.viewer, "get_schedule", json!({})).await);
        assert!(
            r.text.contains("Réglages\u{a0}: fuseau Europe/Paris")
                && r.text.contains("2026-11-11, 2026-12-25"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["settings"]["holiday_count"], 2);
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
                "update_settings",
                json!({"add_holidays": ["2026-12-31", "2026-12-24", "2026-12-25"]}),
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
            .call(
                &k.editor,
                "update_settings",
                json!({"add_holidays": ["2026-12-24"]}),
            )
            .await);
        assert_eq!(r.structured["changed"], false, "{}", r.text);
        assert_eq!(r.structured["rank"], 1, "nothing written");
        let r = ok(k
            .call(
                &k.editor,
                "update_settings",
                json!({"remove_holidays": ["2026-11-11", "2027-01-01"]}),
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
            k.call(
                &k.viewer,
                "update_settings",
                json!({"add_holidays": ["2026-12-24"]}),
            )
            .await,
        );
        refused(
            k.call(&k.editor, "update_settings", json!({"remove_holidays": []}))
                .await,
            "invalid_arguments",
        );
        // With other changes, in one write: a name, one holiday in, one out, kept
        // apart from the whole list (which replaces it).
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_settings",
                json!({"name": "Bascule", "add_holidays": ["2027-01-04"], "remove_holidays": ["2026-12-24"], "time_unit": "week"}),
            )
            .await);
        assert!(
            r.text
                .starts_with("Settings of “Bascule” changed (name, holidays, time unit); rank 3."),
            "{}",
            r.text
        );
        let s = k.state().await;
        assert_eq!(s.name, "Bascule");
        assert_eq!(s.settings.holidays.len(), 3);
        assert!(
            s.settings
                .holidays
                .iter()
                .any(|d| d.to_string() == "2027-01-04")
        );
        assert!(
            !s.settings
                .holidays
                .iter()
                .any(|d| d.to_string() == "2026-12-24")
        );
        let r = refused(
            k.call(
                &k.editor,
                "update_settings",
                json!({"holidays": [], "add_holidays": ["2027-01-05"]}),
            )
            .await,
            "invalid_arguments",
        );
        assert!(r.text.contains("remplace toute la liste"), "{}", r.text);
    }
}

//! Tracking tools: `set_progress` (percent complete and actual dates of bars, many in
//! one write) and `schedule_lateness`: late and overdue bars at a status date, or, given
//! a saved version as `reference`, each item's slippage against it (one tool for "how
//! late are we", read both ways), thin wrappers over the
//! model's `set_progress` command and its `tracking` module (see docs/scheduling.md,
//! "Tracking", for what late, overdue and slippage mean).
//!
//! The status date is the schedule's "today" (`zones::today_of`: the date in its time zone) unless a call passes
//! another. Lists are paged (50 at a time, `offset`) and their structured part stays
//! compact: ids and numbers, never labels of more than the page.
//!
//! Typography: the texts written here put a no-break space before « : », a narrow one
//! before « ; » and « % », and no-break spaces inside « », as French wants.

use crate::planning::Code;
use palmaplan_model::command::{Command, ProgressEntry};
use palmaplan_model::cpm::ItemKind;
use palmaplan_model::filter::{self, FilterContext};
use palmaplan_model::idset::IdSet;
use palmaplan_model::text::LIST_CAP;
use palmaplan_model::tracking::{self, LateKind, Lateness, Slippage, Variance};
use palmaplan_model::{BarId, Date, ItemId, Lang, MilestoneId, Schedule, cpm, risk, text, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::args::{date, nullable};
use super::periods::apply_fresh_cascading;
use super::scheduling::KindName;
use super::versions::{VersionRef, find};
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "set_progress",
            "Set bars' percent complete and actual start/finish; an actual finish completes the bar (no lower percent with it).",
            Access::Write,
            set_progress,
        )
        // The view's progress keys call it.
        .used_by_view()
        .returns::<ProgressSet>(),
        tool(
            "schedule_lateness",
            "Late (progress behind plan) or overdue (past their end, unfinished) bars at a status date; with reference (a saved version), each item's slip against it (working days, + later), project end variance, slipped critical items. 50 per call (offset).",
            Access::Read,
            schedule_lateness,
        )
        .returns::<LateAnswer>(),
    ]
}

/// "«\u{a0}Recette\u{a0}» (bloc 17)" / "“Recette” (bar 17)", or the bare id.
fn item_name(lang: Lang, s: &Schedule, id: ItemId) -> String {
    let Some(label) = s.item_label(id) else {
        return id.to_string();
    };
    let milestone = s.milestone(MilestoneId(id.0)).is_some();
    match (lang, milestone) {
        (Lang::Fr, false) => format!("«\u{a0}{label}\u{a0}» (bloc {id})"),
        (Lang::Fr, true) => format!("«\u{a0}{label}\u{a0}» (jalon {id})"),
        (Lang::En, false) => format!("“{label}” (bar {id})"),
        (Lang::En, true) => format!("“{label}” (milestone {id})"),
    }
}

/// "40\u{202f}%" / "40%".
fn percent(lang: Lang, p: u8) -> String {
    match lang {
        Lang::Fr => format!("{p}\u{202f}%"),
        Lang::En => format!("{p}%"),
    }
}

/// The "More: offset = N." line.
fn next_line(ctx: &Ctx, next: usize) -> String {
    ctx.tr(
        format!("\nSuite\u{a0}: offset = {next}."),
        format!("\nMore: offset = {next}."),
    )
}

// ---- set_progress

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProgressArg {
    bar: u64,
    /// 0 to 100.
    #[serde(default)]
    percent: Option<u8>,
    /// YYYY-MM-DD; null clears.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<String>")]
    actual_start: Option<Option<String>>,
    /// YYYY-MM-DD (completes it); null clears.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<String>")]
    actual_finish: Option<Option<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetProgress {
    schedule: ScheduleRef,
    bars: Vec<ProgressArg>,
}

/// `set_progress`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct ProgressSet {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    /// How many bars were given.
    count: usize,
    /// The bars' progress before and after (the first 50).
    bars: Vec<ProgressChange>,
    /// The day `late` and `overdue` are counted at (the schedule's today).
    status_date: Date,
    /// How many of the bars are late then.
    late: usize,
    /// How many of the bars are overdue then.
    overdue: usize,
}

/// A bar's progress, in percent, before and after the write, and its actual dates.
#[derive(Debug, Serialize, JsonSchema)]
struct ProgressChange {
    bar: BarId,
    before: u8,
    after: u8,
    actual_start: Option<Date>,
    actual_finish: Option<Date>,
}

async fn set_progress(ctx: Ctx, p: SetProgress) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let day = |field: &str, v: &Option<Option<String>>| -> Result<Option<Option<Date>>, Refusal> {
        match v {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(d)) => Ok(Some(Some(date(&ctx, field, d)?))),
        }
    };
    let mut entries = Vec::with_capacity(p.bars.len());
    for b in &p.bars {
        entries.push(ProgressEntry {
            bar: BarId(b.bar),
            percent: b.percent,
            actual_start: day("actual_start", &b.actual_start)?,
            actual_finish: day("actual_finish", &b.actual_finish)?,
        });
    }
    let cmd = Command::SetProgress { bars: entries };
    // Progress moves no date: no cascade, whatever the setting.
    let (before, wrote, ()) = apply_fresh_cascading(&ctx, id, super::Cascading::Off, |_| {
        Ok((vec![cmd.clone()], ()))
    })
    .await?;
    let lang = ctx.lang();
    let s = &wrote.state;
    let n = p.bars.len();
    let mut text = ctx.tr(
        format!(
            "Avancement de {n} bloc{} enregistré\u{202f}; rang {}.",
            if n > 1 { "s" } else { "" },
            wrote.rank
        ),
        format!(
            "Progress of {n} bar{} written; rank {}.",
            if n == 1 { "" } else { "s" },
            wrote.rank
        ),
    );
    let mut bars = Vec::new();
    for b in p.bars.iter().take(LIST_CAP) {
        let bar = BarId(b.bar);
        let (Some(old), Some(new)) = (before.bar(bar), s.bar(bar)) else {
            continue;
        };
        let mut line = format!(
            "\n- {}\u{a0}: {} → {}",
            item_name(lang, s, bar.into()),
            percent(lang, old.progress),
            percent(lang, new.progress)
        );
        if lang == Lang::En {
            line = line.replace('\u{a0}', "");
        }
        let dates = |start: Option<Date>, finish: Option<Date>| match (start, finish) {
            (None, None) => None,
            (s, f) => Some((s, f)),
        };
        if let Some((start, finish)) = dates(new.actual_start, new.actual_finish) {
            let day = |d: Option<Date>| d.map_or_else(|| "…".to_owned(), |d| d.to_string());
            line.push_str(&ctx.tr(
                format!(" (réel\u{a0}: {} → {})", day(start), day(finish)),
                format!(" (actual: {} → {})", day(start), day(finish)),
            ));
        }
        text.push_str(&line);
        bars.push(ProgressChange {
            bar,
            before: old.progress,
            after: new.progress,
            actual_start: new.actual_start,
            actual_finish: new.actual_finish,
        });
    }
    if n > LIST_CAP {
        text.push('\n');
        text.push_str(&super::people::more_line(&ctx, n - LIST_CAP));
    }
    // What the write changes in the risks today.
    let today = super::zones::today_of(&ctx, s);
    let late = tracking::lateness(
        s,
        &palmaplan_model::calendar::Calendar::for_schedule(s),
        today,
    );
    let mine: Vec<&Lateness> = late
        .iter()
        .filter(|l| p.bars.iter().any(|b| b.bar == l.bar.0))
        .collect();
    // The person's words: the one bar by its label and its progress, or how many.
    let one = match p.bars.as_slice() {
        [b] => before.bar(BarId(b.bar)).zip(s.bar(BarId(b.bar))),
        _ => None,
    };
    let person = match one {
        // Its actual dates alone.
        Some((old, new)) if old.progress == new.progress => {
            let label = super::people::quoted(ctx.lang(), &new.label);
            ctx.tr(
                format!("Dates réelles de {label} enregistrées."),
                format!("Actual dates of {label} saved."),
            )
        }
        Some((old, new)) => {
            let label = super::people::quoted(ctx.lang(), &new.label);
            let (was, now) = (
                percent(ctx.lang(), old.progress),
                percent(ctx.lang(), new.progress),
            );
            ctx.tr(
                format!("Avancement de {label}\u{a0}: {was} → {now}."),
                format!("Progress of {label}: {was} → {now}."),
            )
        }
        None => ctx.tr(
            format!(
                "Avancement de {} enregistré.",
                text::count(Lang::Fr, n, "bloc", "blocs")
            ),
            format!(
                "Progress of {} saved.",
                text::count(Lang::En, n, "bar", "bars")
            ),
        ),
    };
    if !mine.is_empty() {
        text.push_str(&ctx.tr(format!("\nAu {today}\u{a0}:"), format!("\nAt {today}:")));
        let shown = only(&mine, today);
        for l in text::risk_details(s, &shown, lang) {
            text.push_str("\n- ");
            text.push_str(&l);
        }
    }
    Ok(Reply::ok(
        text,
        json!(ProgressSet {
            schedule_id: id,
            rank: wrote.rank,
            count: n,
            bars,
            status_date: today,
            late: mine.iter().filter(|l| l.kind == LateKind::Late).count(),
            overdue: mine.iter().filter(|l| l.kind == LateKind::Overdue).count(),
        }),
    )
    .for_person(person))
}

/// The risks made of these late and overdue bars alone, at `status`.
fn only(lateness: &[&Lateness], status: Date) -> risk::Risks {
    let (overdue, late): (Vec<Lateness>, Vec<Lateness>) = lateness
        .iter()
        .map(|l| (*l).clone())
        .partition(|l| l.kind == LateKind::Overdue);
    risk::Risks {
        status_date: Some(status),
        late,
        overdue,
        ..risk::Risks::default()
    }
}

// ---- schedule_lateness

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LatenessArgs {
    schedule: ScheduleRef,
    /// YYYY-MM-DD; default: today. Not with reference.
    #[serde(default)]
    status_date: Option<String>,
    /// The saved version to measure slippage against.
    #[serde(default)]
    reference: Option<VersionRef>,
    /// Filter panel query (bars only), with reference.
    #[serde(default)]
    filter: Option<String>,
    #[serde(default)]
    offset: usize,
}

/// `schedule_lateness`'s result: lateness at a status date, or slippage.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum LateAnswer {
    Late(LatenessPage),
    Slipped(SlippagePage),
}

/// Lateness at a status date.
#[derive(Debug, Serialize, JsonSchema)]
struct LatenessPage {
    schedule_id: i64,
    rank: i64,
    status_date: Date,
    counts: LateCounts,
    /// How many bars are late or overdue (all pages).
    total: usize,
    offset: usize,
    /// The next page's offset; null on the last page.
    next_offset: Option<usize>,
    /// Overdue first, then the most behind.
    bars: Vec<LateBar>,
}

/// How many bars are late, and how many overdue.
#[derive(Debug, Serialize, JsonSchema)]
struct LateCounts {
    late: usize,
    overdue: usize,
}

/// A bar late or overdue.
#[derive(Debug, Serialize, JsonSchema)]
struct LateBar {
    bar: BarId,
    #[schemars(with = "LateKindName")]
    kind: LateKind,
    /// Late: working days behind its plan; overdue: working days past its end.
    by_days: i64,
    /// Planned progress at the status date, in percent.
    planned: u8,
    /// Its progress, in percent.
    actual: u8,
}

/// "late" or "overdue": the schema of the model's `LateKind`, which derives none
/// (only its schema is used: the value is the model's).
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum LateKindName {
    Late,
    Overdue,
}

async fn schedule_lateness(ctx: Ctx, p: LatenessArgs) -> Result<Reply, Refusal> {
    if let Some(reference) = p.reference {
        if p.status_date.is_some() {
            return Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "«\u{a0}status_date\u{a0}» va sans «\u{a0}reference\u{a0}»\u{a0}: la glissance se mesure entre le planning actuel et la version. Retirez l'un des deux.",
                    "“status_date” goes without “reference”: slippage compares the current schedule with the version. Leave one out.",
                ),
            )
            .with(json!({ "field": "status_date" })));
        }
        return schedule_slippage(
            ctx,
            SlippageArgs {
                schedule: p.schedule,
                reference,
                filter: p.filter,
                offset: p.offset,
            },
        )
        .await;
    }
    if p.filter.is_some() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}filter\u{a0}» va avec «\u{a0}reference\u{a0}» (la glissance par rapport à une version)\u{202f}; pour filtrer les blocs en retard, utilisez list_periods avec filter.",
                "“filter” goes with “reference” (slippage against a version); to filter late bars, use list_periods with filter.",
            ),
        )
        .with(json!({ "field": "filter" })));
    }
    let given = p
        .status_date
        .as_deref()
        .map(|d| date(&ctx, "status_date", d))
        .transpose()?;
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    let status = given.unwrap_or_else(|| super::zones::today_of(&ctx, s));
    let cal = palmaplan_model::calendar::Calendar::for_schedule(s);
    let mut all = tracking::lateness(s, &cal, status);
    // Overdue first, then the most behind.
    all.sort_by_key(|l| (l.kind != LateKind::Overdue, -l.by_days, l.bar));
    let total = all.len();
    let (late, overdue) = (
        all.iter().filter(|l| l.kind == LateKind::Late).count(),
        all.iter().filter(|l| l.kind == LateKind::Overdue).count(),
    );
    let page: Vec<&Lateness> = all.iter().skip(p.offset).take(LIST_CAP).collect();
    let default = if given.is_none() {
        ctx.tr(" (aujourd'hui)", " (today)")
    } else {
        String::new()
    };
    let mut text = if total == 0 {
        ctx.tr(
            format!(
                "«\u{a0}{}\u{a0}» au {status}{default}\u{a0}: aucun bloc en retard ni hors délai.",
                s.name
            ),
            format!(
                "“{}” at {status}{default}: no bar is late or overdue.",
                s.name
            ),
        )
    } else {
        let counts = text::risks_line(&only(&all.iter().collect::<Vec<_>>(), status), lang)
            .unwrap_or_default();
        ctx.tr(
            format!(
                "«\u{a0}{}\u{a0}» au {status}{default}\u{a0}— {counts}",
                s.name
            ),
            format!("“{}” at {status}{default} — {counts}", s.name),
        )
    };
    for line in text::risk_details(s, &only(&page, status), lang) {
        text.push_str("\n- ");
        text.push_str(&line);
    }
    let next = p.offset + page.len();
    if next < total {
        text.push_str(&next_line(&ctx, next));
    }
    let bars: Vec<LateBar> = page
        .iter()
        .map(|l| LateBar {
            bar: l.bar,
            kind: l.kind,
            by_days: l.by_days,
            planned: l.planned,
            actual: l.actual,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(LatenessPage {
            schedule_id: o.id,
            rank: o.rank,
            status_date: status,
            counts: LateCounts { late, overdue },
            total,
            offset: p.offset,
            next_offset: (next < total).then_some(next),
            bars,
        }),
    ))
}

// ---- slippage (schedule_lateness with a reference)

#[derive(Debug)]
struct SlippageArgs {
    schedule: ScheduleRef,
    reference: VersionRef,
    filter: Option<String>,
    offset: usize,
}

/// Slippage against a saved version.
#[derive(Debug, Serialize, JsonSchema)]
struct SlippagePage {
    schedule_id: i64,
    rank: i64,
    /// The saved version compared with.
    reference: wire::VersionName,
    /// Null when either side has no dated item.
    project_end: Option<EndSlip>,
    /// How many items (of those kept by the filter) slipped.
    slipped: usize,
    /// The critical items that slipped (the first 50).
    critical_slipped: Vec<ItemId>,
    /// How many items are new since the version.
    added: usize,
    /// How many items of the version are gone.
    removed: usize,
    /// How many items are compared (all pages).
    total: usize,
    offset: usize,
    /// The next page's offset; null on the last page.
    next_offset: Option<usize>,
    /// Slipped first, the largest finish slip first.
    items: Vec<ItemSlip>,
}

/// The project end against the version's (the model's `EndVariance`).
#[derive(Debug, Serialize, JsonSchema)]
struct EndSlip {
    /// The version's last planned day.
    baseline: Date,
    /// The last planned day now.
    current: Date,
    /// Working days between them (positive: later).
    days: i64,
}

/// One item's slip, in working days (positive: later).
#[derive(Debug, Serialize, JsonSchema)]
struct ItemSlip {
    id: ItemId,
    #[schemars(with = "KindName")]
    kind: ItemKind,
    start_days: i64,
    finish_days: i64,
    /// Whether it is critical now.
    critical: bool,
}

/// A saved version's state, with its id and name.
pub(super) async fn version_state(
    ctx: &Ctx,
    id: i64,
    v: &VersionRef,
) -> Result<(i64, String, Schedule), Refusal> {
    let info = find(ctx, id, v).await?;
    match ctx
        .store()
        .version_state(id, info.id)
        .await
        .map_err(|e| ctx.db_error(e))?
    {
        Some((info, state)) => Ok((info.id, info.name, state)),
        None => Err(Refusal::new(
            Code::VersionNotFound,
            ctx.tr(
                "Cette version vient d'être supprimée. Appelez list_versions.",
                "This version was just deleted. Call list_versions.",
            ),
        )),
    }
}

/// "+2 j" / "+2 d": a signed count of working days.
fn signed(lang: Lang, n: i64) -> String {
    let unit = super::tr(lang, "j", "d");
    if n > 0 {
        format!("+{n}\u{a0}{unit}")
    } else {
        format!("{n}\u{a0}{unit}")
    }
}

/// One item's line: « Recette » (bloc 17)\u{a0}: début +2 j, fin +3 j, critique.
fn variance_line(ctx: &Ctx, s: &Schedule, v: &Variance) -> String {
    let lang = ctx.lang();
    let name = item_name(lang, s, v.item);
    let critical = if v.critical {
        ctx.tr(", critique", ", critical")
    } else {
        String::new()
    };
    match v.kind {
        ItemKind::Milestone => ctx.tr(
            format!(
                "{name}\u{a0}: {} → {} ({}){critical}",
                v.baseline_start,
                v.start,
                signed(lang, v.finish_days)
            ),
            format!(
                "{name}: {} → {} ({}){critical}",
                v.baseline_start,
                v.start,
                signed(lang, v.finish_days)
            ),
        ),
        ItemKind::Bar => ctx.tr(
            format!(
                "{name}\u{a0}: début {} ({}), fin {} ({}){critical}",
                v.start,
                signed(lang, v.start_days),
                v.finish,
                signed(lang, v.finish_days)
            ),
            format!(
                "{name}: start {} ({}), finish {} ({}){critical}",
                v.start,
                signed(lang, v.start_days),
                v.finish,
                signed(lang, v.finish_days)
            ),
        ),
    }
}

/// The project end's line: « Fin du projet : 2026-12-18 → 2026-12-28 (+5 j). »
fn end_line(ctx: &Ctx, sl: &Slippage) -> Option<String> {
    let e = sl.project_end?;
    let lang = ctx.lang();
    Some(ctx.tr(
        format!(
            "Fin du projet\u{a0}: {} → {} ({}).",
            e.baseline,
            e.current,
            signed(lang, e.days)
        ),
        format!(
            "Project end: {} → {} ({}).",
            e.baseline,
            e.current,
            signed(lang, e.days)
        ),
    ))
}

async fn schedule_slippage(ctx: Ctx, p: SlippageArgs) -> Result<Reply, Refusal> {
    let lang = ctx.lang();
    let parsed = match p.filter.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        None => None,
        Some(q) => Some(filter::parse(q).map_err(|e| {
            Refusal::new(
                Code::InvalidFilter,
                ctx.tr(
                    format!("Filtre invalide\u{a0}:\n{}", e.render(q, lang)),
                    format!("Invalid filter:\n{}", e.render(q, lang)),
                ),
            )
            .with(json!({ "position": e.position, "len": e.len }))
        })?),
    };
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let (vid, vname, baseline) = version_state(&ctx, o.id, &p.reference).await?;
    let critical = cpm::critical_items(s).unwrap_or_default();
    let cal = palmaplan_model::calendar::Calendar::for_schedule(s);
    let sl = tracking::slippage_with(s, &baseline, &cal, &critical);
    // The filter selects bars, with what it needs computed once.
    let selected: Option<Vec<BarId>> = parsed.map(|f| {
        let crit: IdSet<BarId> = critical.iter().map(|i| BarId(i.0)).collect();
        let status = super::zones::today_of(&ctx, s);
        let risks = risk::risks_at(s, status);
        let mut fc = FilterContext::new(s, &crit, &risks.bars_at_risk())
            .with_lateness(risks.late.iter().chain(&risks.overdue));
        if f.uses_floats() {
            fc = fc.with_floats(&filter::floats_of(s));
        }
        f.select(&fc, s)
    });
    let kept = |v: &&Variance| {
        selected.as_ref().is_none_or(|sel| {
            v.kind == ItemKind::Bar && sel.binary_search(&BarId(v.item.0)).is_ok()
        })
    };
    let mut rows: Vec<&Variance> = sl.items.iter().filter(kept).collect();
    // Slipped first, the largest finish slip first; then the others by id.
    rows.sort_by_key(|v| (!v.slipped(), -v.finish_days, -v.start_days, v.item));
    let total = rows.len();
    let slipped = rows.iter().filter(|v| v.slipped()).count();
    let critical_slipped: Vec<ItemId> = rows
        .iter()
        .filter(|v| v.critical && v.slipped())
        .map(|v| v.item)
        .collect();
    let page: Vec<&Variance> = rows.iter().skip(p.offset).take(LIST_CAP).copied().collect();
    let version = ctx.tr(
        format!("la version «\u{a0}{vname}\u{a0}» (id {vid})"),
        format!("version “{vname}” (id {vid})"),
    );
    let crit = critical_slipped.len();
    // Real plurals: French puts 0 and 1 in the singular, English only 1.
    let (fr_items, fr_verb) = if total > 1 {
        (
            "éléments",
            if slipped > 1 {
                "ont glissé"
            } else {
                "a glissé"
            },
        )
    } else {
        ("élément", "a glissé")
    };
    let fr_crit = if crit > 1 { "critiques" } else { "critique" };
    let en_items = if total == 1 { "item" } else { "items" };
    let mut text = ctx.tr(
        format!(
            "«\u{a0}{}\u{a0}» par rapport à {version}, en jours ouvrés\u{a0}: {slipped} {fr_items} sur {total} {fr_verb}, dont {crit} {fr_crit}.",
            s.name,
        ),
        format!(
            "“{}” against {version}, in working days: {slipped} of {total} {en_items} slipped, {crit} of them critical.",
            s.name,
        ),
    );
    if let Some(line) = end_line(&ctx, &sl) {
        text.push('\n');
        text.push_str(&line);
    }
    if !sl.added.is_empty() || !sl.removed.is_empty() {
        text.push('\n');
        text.push_str(&ctx.tr(
            format!(
                "Depuis\u{a0}: {} élément{} ajouté{}, {} supprimé{}.",
                sl.added.len(),
                if sl.added.len() > 1 { "s" } else { "" },
                if sl.added.len() > 1 { "s" } else { "" },
                sl.removed.len(),
                if sl.removed.len() > 1 { "s" } else { "" }
            ),
            format!(
                "Since: {} item{} added, {} removed.",
                sl.added.len(),
                if sl.added.len() == 1 { "" } else { "s" },
                sl.removed.len()
            ),
        ));
    }
    for v in &page {
        text.push_str("\n- ");
        text.push_str(&variance_line(&ctx, s, v));
    }
    let next = p.offset + page.len();
    if next < total {
        text.push_str(&next_line(&ctx, next));
    }
    let items: Vec<ItemSlip> = page
        .iter()
        .map(|v| ItemSlip {
            id: v.item,
            kind: v.kind,
            start_days: v.start_days,
            finish_days: v.finish_days,
            critical: v.critical,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(SlippagePage {
            schedule_id: o.id,
            rank: o.rank,
            reference: wire::VersionName {
                id: vid,
                name: vname,
            },
            project_end: sl.project_end.map(|e| EndSlip {
                baseline: e.baseline,
                current: e.current,
                days: e.days,
            }),
            slipped,
            critical_slipped: critical_slipped.into_iter().take(LIST_CAP).collect(),
            added: sl.added.len(),
            removed: sl.removed.len(),
            total,
            offset: p.offset,
            next_offset: (next < total).then_some(next),
            items,
        }),
    ))
}

/// The largest slips against the newest saved version, for `get_schedule`: one line
/// naming the version and up to three items, and its structured part; None without a
/// saved version or with no slip.
pub(super) async fn largest_slips(ctx: &Ctx, id: i64, s: &Schedule) -> Option<(String, Value)> {
    let versions = ctx.store().versions(id).await.ok()?;
    let newest = versions.into_iter().max_by_key(|v| (v.rank, v.id))?;
    let (_, state) = ctx.store().version_state(id, newest.id).await.ok()??;
    let sl = tracking::slippage(s, &state);
    let top = sl.largest(3);
    let lang = ctx.lang();
    let end = sl.project_end.filter(|e| e.days != 0);
    if top.is_empty() && end.is_none() {
        return None;
    }
    let names: Vec<String> = top
        .iter()
        .map(|v| {
            format!(
                "{} {}",
                item_name(lang, s, v.item),
                signed(lang, v.finish_days.max(v.start_days))
            )
        })
        .collect();
    let mut line = ctx.tr(
        format!(
            "Glissements depuis la version «\u{a0}{}\u{a0}» (la plus récente)\u{a0}: ",
            newest.name
        ),
        format!("Slips since version “{}” (the newest): ", newest.name),
    );
    if names.is_empty() {
        line.push_str(&ctx.tr("aucun élément", "no item"));
    } else {
        line.push_str(&names.join(", "));
    }
    if let Some(e) = end {
        line.push_str(&ctx.tr(
            format!("\u{202f}; fin du projet {}", signed(lang, e.days)),
            format!("; project end {}", signed(lang, e.days)),
        ));
    }
    line.push('.');
    let structured = json!({
        "reference": { "id": newest.id, "name": newest.name },
        "largest": top.iter().map(|v| json!({ "id": v.item, "start_days": v.start_days, "finish_days": v.finish_days })).collect::<Vec<_>>(),
        "project_end_days": sl.project_end.map(|e| e.days),
    });
    Some((line, structured))
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::{Kit, en, visible};
    use palmaplan_model::BarId;
    use serde_json::json;

    #[tokio::test]
    async fn progress_is_one_journalled_write_undone_and_redone() {
        let k = Kit::new("progress-write").await;
        let s = k.schedule;
        let r = k
            .ok(
                &k.editor,
                "set_progress",
                json!({ "schedule": s, "bars": [
                    { "bar": 14, "percent": 60, "actual_start": "2026-11-09" },
                    { "bar": 13, "actual_start": "2026-11-02", "actual_finish": "2026-11-13" },
                ]}),
            )
            .await;
        assert_eq!(
            visible(&r.text),
            "Avancement de 2 blocs enregistré⟨nnbsp⟩; rang 1.\n- «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: 0⟨nnbsp⟩% → 60⟨nnbsp⟩% (réel⟨nbsp⟩: 2026-11-09 → …)\n- «⟨nbsp⟩Audit du système⟨nbsp⟩» (bloc 13)⟨nbsp⟩: 0⟨nnbsp⟩% → 100⟨nnbsp⟩% (réel⟨nbsp⟩: 2026-11-02 → 2026-11-13)"
        );
        assert_eq!(r.structured["bars"][1]["after"], 100);
        let st = k.state(s).await;
        assert_eq!(st.bar(BarId(14)).unwrap().progress, 60);
        // One journal entry, one undo, one redo.
        let h = k.ok(&k.editor, "history", json!({ "schedule": s })).await;
        assert!(h.text.contains("set_progress"), "{}", h.text);
        k.ok(&k.editor, "undo", json!({ "schedule": s })).await;
        let st = k.state(s).await;
        assert_eq!(
            (
                st.bar(BarId(14)).unwrap().progress,
                st.bar(BarId(13)).unwrap().actual_finish
            ),
            (0, None)
        );
        k.ok(&k.editor, "redo", json!({ "schedule": s })).await;
        assert_eq!(k.state(s).await.bar(BarId(13)).unwrap().progress, 100);
        // A viewer may not; a finish below 100 % is refused with what to do.
        k.refused(
            &k.viewer,
            "set_progress",
            json!({ "schedule": s, "bars": [{ "bar": 14, "percent": 1 }] }),
        )
        .await;
        let no = k
            .refused(
                &en(&k.editor),
                "set_progress",
                json!({ "schedule": s, "bars": [{ "bar": 15, "percent": 50, "actual_finish": "2026-12-04" }] }),
            )
            .await;
        assert!(
            no.text
                .contains("an actual finish means bar 15 is complete (100%)"),
            "{}",
            no.text
        );
        let r = k
            .ok(
                &en(&k.editor),
                "set_progress",
                json!({ "schedule": s, "bars": [{ "bar": 15, "percent": 20 }] }),
            )
            .await;
        assert_eq!(
            r.text,
            "Progress of 1 bar written; rank 4.\n- “Adaptation du code ABAP” (bar 15): 0% → 20%"
        );
    }

    #[tokio::test]
    async fn the_status_date_is_today_in_the_schedules_zone() {
        // The kit's clock stands at 2026-05-28 20:26 UTC: already Friday 29 in
        // Kiritimati (UTC+14), still Thursday 28 in Pago Pago (UTC-11).
        let k = Kit::new("progress-zones").await;
        let s = k.schedule;
        let zone = |tz: &'static str| json!({ "schedule": s, "time_zone": tz });
        k.ok(&k.owner, "update_settings", zone("Pacific/Kiritimati"))
            .await;
        let east = k
            .ok(&k.viewer, "schedule_lateness", json!({ "schedule": s }))
            .await;
        k.ok(&k.owner, "update_settings", zone("Pacific/Pago_Pago"))
            .await;
        let west = k
            .ok(&k.viewer, "schedule_lateness", json!({ "schedule": s }))
            .await;
        assert_eq!(
            east.structured["status_date"], "2026-05-29",
            "{}",
            east.text
        );
        assert_eq!(
            west.structured["status_date"], "2026-05-28",
            "{}",
            west.text
        );
    }

    #[tokio::test]
    async fn lateness_at_a_status_date_in_both_languages() {
        let k = Kit::new("progress-late").await;
        let s = k.schedule;
        k.ok(
            &k.editor,
            "set_progress",
            json!({ "schedule": s, "bars": [{ "bar": 13, "percent": 100 }, { "bar": 14, "percent": 50 }, { "bar": 15, "percent": 10 }] }),
        )
        .await;
        // Wednesday 2026-11-25: the audit is done; the clean-up ended on the 20th at
        // 50 % (overdue by 3 working days); the ABAP work (11-16 to 12-04, 15 days)
        // should be at 53 %, 8 days of 15, and 10 % covers one; the dry run (from
        // 11-23, not begun) is 3 days behind.
        let r = k
            .ok(
                &k.viewer,
                "schedule_lateness",
                json!({ "schedule": s, "status_date": "2026-11-25" }),
            )
            .await;
        assert_eq!(
            visible(&r.text),
            "«⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» au 2026-11-25⟨nbsp⟩— Risques⟨nbsp⟩: 2 blocs en retard, 1 bloc hors délai.\n- «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15)⟨nbsp⟩: en retard de 7 jours ouvrés au 2026-11-25 (avancement 10⟨nnbsp⟩%, prévu 53⟨nnbsp⟩%).\n- «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16)⟨nbsp⟩: en retard de 3 jours ouvrés au 2026-11-25 (avancement 0⟨nnbsp⟩%, prévu 30⟨nnbsp⟩%).\n- «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: fin dépassée de 3 jours ouvrés au 2026-11-25, avancement 50⟨nnbsp⟩%."
        );
        assert_eq!(r.structured["counts"], json!({ "late": 2, "overdue": 1 }));
        assert_eq!(r.structured["bars"][0]["bar"], 14, "overdue first");
        let r = k
            .ok(
                &en(&k.viewer),
                "schedule_lateness",
                json!({ "schedule": s, "status_date": "2026-11-25" }),
            )
            .await;
        assert!(
            r.text.starts_with(
                "“S/4HANA Migration” at 2026-11-25 — Risks: 2 late bars, 1 overdue bar."
            ),
            "{}",
            r.text
        );
        // The same in schedule_risks and in get_schedule's counts (today: the kit's
        // clock, before the plan, so nothing is late there).
        let r = k
            .ok(
                &k.viewer,
                "schedule_risks",
                json!({ "schedule": s, "status_date": "2026-11-25" }),
            )
            .await;
        assert_eq!(r.structured["counts"]["late"], 2);
        assert_eq!(r.structured["counts"]["overdue"], 1);
        let g = k
            .ok(&k.viewer, "get_schedule", json!({ "schedule": s }))
            .await;
        assert_eq!(g.structured["risks"]["late"], 0);
        let bad = k
            .refused(
                &k.viewer,
                "schedule_lateness",
                json!({ "schedule": s, "status_date": "25/11/2026" }),
            )
            .await;
        assert!(bad.text.contains("status_date"), "{}", bad.text);
    }

    #[tokio::test]
    async fn slippage_against_a_saved_version_in_both_languages() {
        let k = Kit::new("progress-slip").await;
        let s = k.schedule;
        k.ok(
            &k.owner,
            "save_version",
            json!({ "schedule": s, "name": "Baseline" }),
        )
        .await;
        // « Nettoyage des données » five working days later, with its successors.
        k.ok(
            &k.editor,
            "move_periods",
            json!({ "schedule": s, "bars": [14], "by": 5, "cascade": true }),
        )
        .await;
        let r = k
            .ok(
                &k.viewer,
                "schedule_lateness",
                json!({ "schedule": s, "reference": "Baseline" }),
            )
            .await;
        let text = visible(&r.text);
        assert!(
            text.starts_with("«⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» par rapport à la version «⟨nbsp⟩Baseline⟨nbsp⟩» (id "),
            "{text}"
        );
        assert!(
            text.contains("Fin du projet⟨nbsp⟩: 2026-12-18 → 2026-12-28 (+5⟨nbsp⟩j)."),
            "{text}"
        );
        assert!(
            text.contains("- «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: début 2026-11-17 (+5⟨nbsp⟩j), fin 2026-11-27 (+5⟨nbsp⟩j), critique"),
            "{text}"
        );
        assert_eq!(r.structured["project_end"]["days"], 5);
        assert_eq!(r.structured["slipped"], 5);
        assert!(
            r.structured["critical_slipped"]
                .as_array()
                .unwrap()
                .contains(&json!(19))
        );
        // Filtered: the bars of one member only.
        let r = k
            .ok(
                &en(&k.viewer),
                "schedule_lateness",
                json!({ "schedule": s, "reference": "Baseline", "filter": "member:Camille" }),
            )
            .await;
        assert!(
            r.text.contains("1 of 1 item slipped, 1 of them critical."),
            "{}",
            r.text
        );
        assert!(r.text.contains("- “Recette utilisateurs” (bar 17): start 2026-12-14 (+5\u{a0}d), finish 2026-12-18 (+5\u{a0}d), critical"), "{}", r.text);
        // get_schedule names the largest slips against the newest version.
        let g = k
            .ok(&k.viewer, "get_schedule", json!({ "schedule": s }))
            .await;
        assert!(
            visible(&g.text).contains(
                "Glissements depuis la version «⟨nbsp⟩Baseline⟨nbsp⟩» (la plus récente)⟨nbsp⟩: "
            ),
            "{}",
            g.text
        );
        assert_eq!(g.structured["slippage"]["project_end_days"], 5);
        let none = k
            .refused(
                &k.viewer,
                "schedule_lateness",
                json!({ "schedule": s, "reference": "Nope" }),
            )
            .await;
        assert!(none.text.contains("Nope"), "{}", none.text);
    }
}

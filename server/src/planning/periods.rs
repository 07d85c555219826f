//! Tools on bars (periods) beyond adding and moving them (see `edits`): resize one edge,
//! set both dates, update the other fields, delete with what the cascade takes, and
//! list them.
//!
//! Writes are built from the state they apply to and written at that state's rank
//! (`apply_fresh`): the answer then says exactly what changed from it (the model's
//! change list: moved items, project end, new risks), and what a delete took with it,
//! even when someone else writes at the same moment — a lost race is simply redone
//! from a fresh read.

use crate::planning::Code;
use palmaplan_model::command::{Command, Edge};
use palmaplan_model::{BarId, Constraint, Date, ItemId, Lang, RowId, Schedule, diff, text, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::args::{CascadeArg, nullable};
use super::scheduling::with_cascade;
use super::{Access, Cascading, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, Wrote, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "resize_period",
            "Move one edge of a bar by working units; the other edge stays.",
            Access::Write,
            resize_period,
        )
        .used_by_view()
        .returns::<PeriodDates>(),
        tool(
            "update_period",
            "Change a bar's label, colour, notes, pin (start no earlier than), row, or its first and last day together (inclusive; a one-day bar has start = end).",
            Access::Write,
            update_period,
        )
        .returns::<PeriodChanged>(),
        tool(
            "delete_periods",
            "Delete bars with their links and actions. If links or actions go too, or over 10 bars, this first says what would go: repeat with confirm: true.",
            Access::Write,
            delete_periods,
        )
        .used_by_view()
        .returns::<PeriodsDeleted>(),
        tool(
            "list_periods",
            "List bars and milestones by start date, optionally of one row or overlapping from/to, 50 per call (offset); or the bars a filter selects.",
            Access::Read,
            list_periods,
        )
        .used_by_view()
        .returns::<Periods>(),
    ]
}

/// How many times a write is rebuilt from a fresh read when others keep writing first.
const FRESH_ATTEMPTS: usize = 8;

/// Reads the current state, builds commands from it, and writes them only if the
/// schedule is still at that state's rank; a lost race starts again from a fresh read.
/// Returns the state the commands were built on, the write, and what `build` returned
/// beside the commands.
pub(super) async fn apply_fresh<T, F>(
    ctx: &Ctx,
    id: i64,
    build: F,
) -> Result<(Schedule, Wrote, T), Refusal>
where
    F: FnMut(&Schedule) -> Result<(Vec<Command>, T), Refusal> + Send,
    T: Send,
{
    apply_fresh_cascading(ctx, id, Cascading::BySetting, build).await
}

/// [`apply_fresh`] with the write's cascade chosen by the caller.
pub(super) async fn apply_fresh_cascading<T, F>(
    ctx: &Ctx,
    id: i64,
    cascade: Cascading,
    mut build: F,
) -> Result<(Schedule, Wrote, T), Refusal>
where
    F: FnMut(&Schedule) -> Result<(Vec<Command>, T), Refusal> + Send,
    T: Send,
{
    for _ in 0..FRESH_ATTEMPTS {
        let cur = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
        let (cmds, extra) = build(&cur.state)?;
        match ctx
            .apply_cascading(id, &cmds, Some(cur.rank), cascade)
            .await
        {
            Ok(wrote) => return Ok((cur.state, wrote, extra)),
            Err(r) if r.code == Code::OutOfDate => continue,
            Err(r) => return Err(r),
        }
    }
    Err(busy(ctx))
}

/// The refusal when other writers won every race.
pub(super) fn busy(ctx: &Ctx) -> Refusal {
    Refusal::new(
        Code::Busy,
        ctx.tr(
            "D'autres modifications arrivent sans cesse sur ce planning\u{202f}; rien n'a été écrit. Réessayez dans un instant.",
            "Other changes keep arriving on this schedule; nothing was written. Try again in a moment.",
        ),
    )
}

/// The model's change list between two states (moves, project end, new risks).
pub(super) fn change_text(ctx: &Ctx, before: &Schedule, after: &Schedule) -> String {
    text::change_list(before, &diff::diff(before, after), ctx.lang())
}

/// How many changes the person's brief names before "and N more".
const BRIEF: usize = 3;

/// [`change_text`], and the same changes in brief for the person who made the write
/// (`text::changes_in_brief`), from one diff; without what the write's `cascade` moved,
/// which the cascade's own sentence says after it.
pub(super) fn change_texts(
    ctx: &Ctx,
    before: &Schedule,
    after: &Schedule,
    cascade: &[palmaplan_model::push::Moved],
) -> (String, String) {
    let mut d = diff::diff(before, after);
    let model = text::change_list(before, &d, ctx.lang());
    d.changes
        .retain(|c| !cascade.iter().any(|m| m.item.0 == c.id()));
    (model, text::changes_in_brief(&d, ctx.lang(), BRIEF))
}

/// Parses a YYYY-MM-DD argument.
pub(super) fn date(ctx: &Ctx, field: &str, v: &str) -> Result<Date, Refusal> {
    v.trim().parse().map_err(|_| {
        Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}{field}\u{a0}»\u{a0}: «\u{a0}{v}\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30."),
                format!("“{field}”: “{v}” is not a date; write YYYY-MM-DD, e.g. 2026-11-30."),
            ),
        )
    })
}

/// "« Murs » (bloc 11)" or "“Murs” (bar 11)", from a state that has the bar.
fn bar_name(ctx: &Ctx, s: &Schedule, bar: u64) -> String {
    let label = s.bar(BarId(bar)).map_or("?", |b| b.label.as_str());
    ctx.tr(
        format!("«\u{a0}{label}\u{a0}» (bloc {bar})"),
        format!("“{label}” (bar {bar})"),
    )
}

/// [`bar_name`] for the person: the label alone, quoted.
fn bar_label(ctx: &Ctx, s: &Schedule, bar: u64) -> String {
    let label = s.bar(BarId(bar)).map_or("?", |b| b.label.as_str());
    super::people::quoted(ctx.lang(), label)
}

/// "+2 jours ouvrés" / "+2 working days", "-1 jour ouvré": an offset in the schedule's
/// unit, always signed.
pub(super) fn units(ctx: &Ctx, s: &Schedule, by: i32) -> String {
    let words = text::time_units(i64::from(by), s.settings.time_unit, ctx.lang());
    if by > 0 { format!("+{words}") } else { words }
}

/// Which edge of a bar to move.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum EdgeArg {
    Start,
    #[default]
    End,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResizePeriod {
    schedule: ScheduleRef,
    bar: u64,
    #[serde(default)]
    edge: EdgeArg,
    /// Negative: earlier.
    by: i32,
    /// "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

/// `resize_period`'s and `set_period_dates`'s result: the bar's dates after the write.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodDates {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    bar: BarId,
    start: Date,
    /// Last day, inclusive.
    end: Date,
    /// What the cascade moved beyond the bar, when it moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<wire::CascadeSummary>,
}

async fn resize_period(ctx: Ctx, p: ResizePeriod) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let edge = match p.edge {
        EdgeArg::Start => Edge::Start,
        EdgeArg::End => Edge::End,
    };
    let cmd = Command::ResizePeriod {
        bar: BarId(p.bar),
        edge,
        by: p.by,
    };
    let cascade = CascadeArg::choice(p.cascade);
    let (before, wrote, ()) =
        apply_fresh_cascading(&ctx, id, cascade, |_| Ok((vec![cmd.clone()], ()))).await?;
    // The model refuses to resize a bar that does not exist: it is there after the write.
    let Some((start, end)) = wrote.state.bar(BarId(p.bar)).map(|b| (b.start, b.end)) else {
        return Err(Refusal::new(
            Code::NotFound,
            ctx.tr(
                format!("Le bloc {} n'existe plus dans ce planning.", p.bar),
                format!("Bar {} no longer exists in this schedule.", p.bar),
            ),
        ));
    };
    let by = units(&ctx, &before, p.by);
    // The model's sentence names the bar's id and the rank; the person's, neither.
    let said = |name: &str, rank: &str| {
        let (fr, en) = match edge {
            Edge::Start => (
                format!("Début de {name} déplacé"),
                format!("Start of {name} moved"),
            ),
            Edge::End => (
                format!("Fin de {name} déplacée"),
                format!("End of {name} moved"),
            ),
        };
        ctx.tr(
            format!("{fr} de {by}\u{a0}: le bloc va maintenant du {start} au {end}{rank}."),
            format!("{en} by {by}: the bar now runs from {start} to {end}{rank}."),
        )
    };
    let head = said(
        &bar_name(&ctx, &before, p.bar),
        &rank_clause(&ctx, wrote.rank),
    );
    let text = format!("{head}\n{}", change_text(&ctx, &before, &wrote.state));
    let person = said(&bar_label(&ctx, &before, p.bar), "");
    let reply = Reply::ok(
        text,
        json!(PeriodDates {
            schedule_id: id,
            rank: wrote.rank,
            bar: BarId(p.bar),
            start,
            end,
            cascade: None,
        }),
    )
    .for_person(person);
    Ok(with_cascade(&ctx, &wrote, reply))
}

/// « ; rang 4 » / "; rank 4": the rank a write's sentence ends on, for the model.
fn rank_clause(ctx: &Ctx, rank: i64) -> String {
    ctx.tr(format!("\u{202f}; rang {rank}"), format!("; rank {rank}"))
}

/// `update_period`'s result: with its dates when they changed.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum PeriodChanged {
    Dated(PeriodDates),
    Updated(PeriodUpdated),
}

/// The date change of `update_period`, after `other` (its other changes, in the same
/// write), with `fields` naming them.
#[allow(clippy::too_many_arguments)] // one write's parts, each needed
async fn set_period_dates(
    ctx: Ctx,
    id: i64,
    bar: u64,
    start: Date,
    end: Date,
    cascade: Option<CascadeArg>,
    other: Option<Command>,
    fields: &[&str],
) -> Result<Reply, Refusal> {
    let mut cmds: Vec<Command> = other.into_iter().collect();
    cmds.push(Command::SetPeriodDates {
        bar: BarId(bar),
        start,
        end,
    });
    let cascade = CascadeArg::choice(cascade);
    let (before, wrote, ()) =
        apply_fresh_cascading(&ctx, id, cascade, |_| Ok((cmds.clone(), ()))).await?;
    let name = bar_name(&ctx, &before, bar);
    let was = before
        .bar(BarId(bar))
        .map(|b| (b.start.to_string(), b.end.to_string()))
        .unwrap_or_default();
    // The dates written: a cascade holds the bar back when a link into it asks for later.
    let (start, end) = wrote
        .state
        .bar(BarId(bar))
        .map_or((start, end), |b| (b.start, b.end));
    let also = if fields.is_empty() {
        String::new()
    } else {
        ctx.tr(
            format!(", et mis à jour ({})", fields.join(", ")),
            format!(", and updated ({})", fields.join(", ")),
        )
    };
    let head = ctx.tr(
        format!(
            "{name} va maintenant du {start} au {end} (avant\u{a0}: du {} au {}){also}\u{202f}; rang {}.",
            was.0, was.1, wrote.rank
        ),
        format!(
            "{name} now runs from {start} to {end} (was {} to {}){also}; rank {}.",
            was.0, was.1, wrote.rank
        ),
    );
    // The person reads the changes themselves (dates, and any other field, in words),
    // the bar's own even when a link held it back (the cascade names the others).
    let others: Vec<_> = wrote
        .cascade
        .iter()
        .filter(|m| m.item.0 != bar)
        .cloned()
        .collect();
    let (changes, person) = change_texts(&ctx, &before, &wrote.state, &others);
    let reply = Reply::ok(
        format!("{head}\n{changes}"),
        json!(PeriodDates {
            schedule_id: id,
            rank: wrote.rank,
            bar: BarId(bar),
            start,
            end,
            cascade: None,
        }),
    )
    .for_person(person);
    Ok(with_cascade(&ctx, &wrote, reply))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdatePeriod {
    schedule: ScheduleRef,
    bar: u64,
    #[serde(default)]
    label: Option<String>,
    /// null clears.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<String>")]
    color: Option<Option<String>>,
    /// "" clears.
    #[serde(default)]
    notes: Option<String>,
    /// Start no earlier than; null clears.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<String>")]
    pin: Option<Option<String>>,
    #[serde(default)]
    row: Option<u64>,
    /// YYYY-MM-DD, with end.
    #[serde(default)]
    start: Option<String>,
    /// YYYY-MM-DD, inclusive, with start.
    #[serde(default)]
    end: Option<String>,
    /// With the dates. "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

/// `update_period`'s result without a date change.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodUpdated {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    bar: BarId,
    /// The fields given: "label", "color", "notes", "pin", "row".
    changed: Vec<&'static str>,
}

async fn update_period(ctx: Ctx, p: UpdatePeriod) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let pin = match &p.pin {
        None => None,
        Some(None) => Some(None),
        Some(Some(d)) => Some(Some(date(&ctx, "pin", d)?)),
    };
    let mut fields = Vec::new();
    for (name, given) in [
        ("label", p.label.is_some()),
        ("color", p.color.is_some()),
        ("notes", p.notes.is_some()),
        ("pin", p.pin.is_some()),
        ("row", p.row.is_some()),
    ] {
        if given {
            fields.push(name);
        }
    }
    let dates = match (&p.start, &p.end) {
        (Some(a), Some(b)) => Some((date(&ctx, "start", a)?, date(&ctx, "end", b)?)),
        (None, None) => None,
        _ => {
            return Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "Donnez «\u{a0}start\u{a0}» et «\u{a0}end\u{a0}» ensemble. Pour décaler le bloc entier, move_periods\u{202f}; pour un seul bord, resize_period.",
                    "Give “start” and “end” together. To shift the whole bar, move_periods; for one edge, resize_period.",
                ),
            )
            .with(json!({ "field": if p.start.is_some() { "end" } else { "start" } })));
        }
    };
    if fields.is_empty() && dates.is_none() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Rien à changer\u{a0}: donnez au moins un des champs label, color, notes, pin, row, ou start et end.",
                "Nothing to change: give at least one of label, color, notes, pin, row, or start and end.",
            ),
        ));
    }
    let cmd = Command::UpdatePeriod {
        bar: BarId(p.bar),
        label: p.label.clone(),
        color: p.color.clone(),
        notes: p.notes.clone(),
        pin,
        row: p.row.map(RowId),
    };
    if let Some((start, end)) = dates {
        let other = (!fields.is_empty()).then_some(cmd);
        return set_period_dates(ctx, id, p.bar, start, end, p.cascade, other, &fields).await;
    }
    let (before, wrote, ()) = apply_fresh(&ctx, id, |_| Ok((vec![cmd.clone()], ()))).await?;
    let name = bar_name(&ctx, &wrote.state, p.bar);
    let head = ctx.tr(
        format!(
            "{name} mis à jour ({})\u{202f}; rang {}.",
            fields.join(", "),
            wrote.rank
        ),
        format!(
            "{name} updated ({}); rank {}.",
            fields.join(", "),
            wrote.rank
        ),
    );
    // The person reads the changes in words, not the tool's field names.
    let (changes, person) = change_texts(&ctx, &before, &wrote.state, &[]);
    Ok(Reply::ok(
        format!("{head}\n{changes}"),
        json!(PeriodUpdated {
            schedule_id: id,
            rank: wrote.rank,
            bar: BarId(p.bar),
            changed: fields,
        }),
    )
    .for_person(person))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeletePeriods {
    schedule: ScheduleRef,
    bars: Vec<u64>,
    #[serde(default)]
    confirm: bool,
}

/// `delete_periods`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodsDeleted {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    /// How many bars were deleted.
    deleted: usize,
    /// How many links went with them.
    links_removed: usize,
    /// How many actions went with them.
    actions_removed: usize,
}

/// Beyond this many bars, a deletion asks for confirmation even without a cascade.
const CONFIRM_ABOVE: usize = 10;
/// How many of the links and actions a cascade takes are named in a text.
const NAMED: usize = 10;

/// What deleting these bars takes with it, from a state: (link lines, action lines).
fn cascade(ctx: &Ctx, s: &Schedule, bars: &[BarId]) -> (Vec<String>, Vec<String>) {
    let mut sorted = bars.to_vec();
    sorted.sort_unstable();
    let gone = |i: u64| sorted.binary_search(&BarId(i)).is_ok();
    let links = s
        .links
        .iter()
        .filter(|l| gone(l.from.0) || gone(l.to.0))
        .map(|l| {
            let a = s.item_label(l.from).unwrap_or("?");
            let b = s.item_label(l.to).unwrap_or("?");
            ctx.tr(
                format!("lien {}\u{a0}: «\u{a0}{a}\u{a0}» → «\u{a0}{b}\u{a0}»", l.id),
                format!("link {}: “{a}” → “{b}”", l.id),
            )
        })
        .collect();
    let actions = s
        .actions
        .iter()
        .filter(|a| gone(a.bar.0))
        .map(|a| {
            let on = s.bar(a.bar).map_or("?", |b| b.label.as_str());
            ctx.tr(
                format!(
                    "action {} «\u{a0}{}\u{a0}» sur «\u{a0}{on}\u{a0}»",
                    a.id, a.label
                ),
                format!("action {} “{}” on “{on}”", a.id, a.label),
            )
        })
        .collect();
    (links, actions)
}

/// "lien 30 : ..., lien 31 : ... et 4 autres".
fn named_list(ctx: &Ctx, lines: &[String]) -> String {
    let sep = ctx.tr("\u{202f}; ", "; ");
    let mut out = lines
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(&sep);
    if lines.len() > NAMED {
        out.push_str(&ctx.tr(
            format!("\u{202f}; et {} autres", lines.len() - NAMED),
            format!("; and {} more", lines.len() - NAMED),
        ));
    }
    out
}

async fn delete_periods(ctx: Ctx, p: DeletePeriods) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let bars: Vec<BarId> = p.bars.iter().copied().map(BarId).collect();
    let confirm = p.confirm;
    let build = |s: &Schedule| {
        let (links, actions) = cascade(&ctx, s, &bars);
        // A bar that does not exist is left to the model, whose refusal names it.
        let all_exist = bars.iter().all(|b| s.bar(*b).is_some());
        let big = bars.len() > CONFIRM_ABOVE || !links.is_empty() || !actions.is_empty();
        if all_exist && big && !confirm {
            return Err(confirm_needed(&ctx, s, &bars, &links, &actions));
        }
        let labels: Vec<String> = bars.iter().map(|b| bar_name(&ctx, s, b.0)).collect();
        let plain: Vec<String> = bars.iter().map(|b| bar_label(&ctx, s, b.0)).collect();
        let cmd = Command::DeletePeriods { bars: bars.clone() };
        Ok((vec![cmd], (labels, plain, links, actions)))
    };
    let (_, wrote, (labels, plain, links, actions)) = apply_fresh(&ctx, id, build).await?;
    let deleted = |names: &[String]| {
        ctx.tr(
            format!(
                "{}\u{a0}: {}",
                text::count(Lang::Fr, names.len(), "bloc supprimé", "blocs supprimés"),
                named_list(&ctx, names)
            ),
            format!(
                "{} deleted: {}",
                text::count(Lang::En, names.len(), "bar", "bars"),
                named_list(&ctx, names)
            ),
        )
    };
    let gone = ctx.tr(
        format!(
            ". Partis avec {}\u{a0}: {}, {}",
            if labels.len() > 1 { "eux" } else { "lui" },
            text::count(Lang::Fr, links.len(), "lien", "liens"),
            text::count(Lang::Fr, actions.len(), "action", "actions")
        ),
        format!(
            ". Gone with {}: {}, {}",
            if labels.len() > 1 { "them" } else { "it" },
            text::count(Lang::En, links.len(), "link", "links"),
            text::count(Lang::En, actions.len(), "action", "actions")
        ),
    );
    // The person's words: the bars by their labels, what went with them by count.
    let mut person = deleted(&plain);
    if !links.is_empty() || !actions.is_empty() {
        person.push_str(&gone);
    }
    person.push('.');
    let mut text = deleted(&labels);
    if links.is_empty() && actions.is_empty() {
        text.push_str(&ctx.tr(
            "\u{202f}; aucun lien ni action n'en dépendait.",
            "; no link or action depended on them.",
        ));
    } else {
        text.push_str(&gone);
        let both: Vec<String> = links.iter().chain(&actions).cloned().collect();
        text.push_str(&format!(" ({}).", named_list(&ctx, &both)));
    }
    text.push_str(&ctx.tr(
        format!(" Rang {}. undo les remet tous.", wrote.rank),
        format!(" Rank {}. undo brings them all back.", wrote.rank),
    ));
    Ok(Reply::ok(
        text,
        json!(PeriodsDeleted {
            schedule_id: id,
            rank: wrote.rank,
            deleted: labels.len(),
            links_removed: links.len(),
            actions_removed: actions.len(),
        }),
    )
    .for_person(person))
}

fn confirm_needed(
    ctx: &Ctx,
    s: &Schedule,
    bars: &[BarId],
    links: &[String],
    actions: &[String],
) -> Refusal {
    let labels: Vec<String> = bars.iter().map(|b| bar_name(ctx, s, b.0)).collect();
    let mut text = ctx.tr(
        format!(
            "Rien n'a été supprimé. Supprimer {} ({})",
            text::count(Lang::Fr, bars.len(), "bloc", "blocs"),
            named_list(ctx, &labels)
        ),
        format!(
            "Nothing was deleted. Deleting {} ({})",
            text::count(Lang::En, bars.len(), "bar", "bars"),
            named_list(ctx, &labels)
        ),
    );
    if links.is_empty() && actions.is_empty() {
        text.push_str(&ctx.tr(" est une suppression en masse.", " is a bulk deletion."));
    } else {
        text.push_str(&ctx.tr(
            format!(
                " supprimerait aussi {} et {}\u{a0}: ",
                text::count(Lang::Fr, links.len(), "lien", "liens"),
                text::count(Lang::Fr, actions.len(), "action", "actions")
            ),
            format!(
                " would also remove {} and {}: ",
                text::count(Lang::En, links.len(), "link", "links"),
                text::count(Lang::En, actions.len(), "action", "actions")
            ),
        ));
        let both: Vec<String> = links.iter().chain(actions).cloned().collect();
        text.push_str(&named_list(ctx, &both));
        text.push('.');
    }
    text.push_str(&ctx.tr(
        " Si c'est bien voulu, rappelez delete_periods avec \"confirm\": true (undo pourra tout remettre).",
        " If that is intended, call delete_periods again with \"confirm\": true (undo can bring it all back).",
    ));
    Refusal::new(Code::ConfirmNeeded, text).with(json!({
        "bars": bars.len(), "links": links.len(), "actions": actions.len(),
    }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListPeriods {
    schedule: ScheduleRef,
    #[serde(default)]
    row: Option<u64>,
    /// Ending on or after, YYYY-MM-DD.
    #[serde(default)]
    from: Option<String>,
    /// Starting on or before, YYYY-MM-DD.
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    offset: usize,
    /// Filter panel query, alone, e.g. member:Alice status:in_progress from:2026-11-01 (is:critical or is:at-risk) -status:done (French keys too: membre:, est:critique).
    #[serde(default)]
    filter: Option<String>,
}

/// `list_periods`'s result: a page of items, or the bars a filter selects.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Periods {
    Page(PeriodList),
    Selected(super::search::Selected),
}

/// A page of items.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodList {
    schedule_id: i64,
    rank: i64,
    /// How many items match (all pages).
    total: usize,
    /// By start date (the first 50 from `offset`).
    items: Vec<PeriodItem>,
    /// Whether there are more after this page.
    more: bool,
}

/// A bar (`start`, `end`) or a milestone (`milestone`, `date`), with its bounds when it
/// has some.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodItem {
    id: ItemId,
    /// Present (true) for a milestone only.
    #[serde(skip_serializing_if = "Option::is_none")]
    milestone: Option<bool>,
    label: String,
    /// A milestone's day.
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<Date>,
    /// A bar's first day.
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<Date>,
    /// A bar's last day, inclusive.
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<Date>,
    row: RowId,
    /// Only when it has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    constraints: Option<Vec<Constraint>>,
    /// Its finish-by day, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    deadline: Option<Date>,
}

/// How many items one call of list_periods returns.
const PAGE: usize = 50;

async fn list_periods(ctx: Ctx, p: ListPeriods) -> Result<Reply, Refusal> {
    if let Some(query) = &p.filter {
        if p.row.is_some() || p.from.is_some() || p.to.is_some() || p.offset > 0 {
            return Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "«\u{a0}filter\u{a0}» va seul\u{a0}: écrivez les dates dans le filtre (from:2026-11-01 to:2026-11-30) et la ligne ou le groupe aussi (row:…, group:…).",
                    "“filter” goes alone: write the dates in the filter (from:2026-11-01 to:2026-11-30), and the row or group too (row:…, group:…).",
                ),
            )
            .with(json!({ "field": "filter" })));
        }
        return super::search::filter_periods(ctx, &p.schedule, query).await;
    }
    let (id, _) = ctx.open(&p.schedule).await?;
    let from = p
        .from
        .as_deref()
        .map(|d| date(&ctx, "from", d))
        .transpose()?;
    let to = p.to.as_deref().map(|d| date(&ctx, "to", d)).transpose()?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let s = &stored.state;
    if let Some(r) = p.row
        && s.row(RowId(r)).is_none()
    {
        return Err(Refusal::new(
            Code::NotFound,
            ctx.tr(
                format!("La ligne {r} n'existe pas dans ce planning. Omettez row, ou appelez list_rows pour voir les lignes et leurs ids."),
                format!("Row {r} does not exist in this schedule. Leave row out, or call list_rows to see the rows and their ids."),
            ),
        ));
    }
    let keep = |row: RowId, start: Date, end: Date| {
        p.row.is_none_or(|r| r == row.0)
            && from.is_none_or(|f| end >= f)
            && to.is_none_or(|t| start <= t)
    };
    // (start, id, is milestone, label, end, row)
    let mut items: Vec<(Date, u64, bool, &str, Date, RowId)> = s
        .bars
        .iter()
        .filter(|b| keep(b.row, b.start, b.end))
        .map(|b| (b.start, b.id.0, false, b.label.as_str(), b.end, b.row))
        .chain(
            s.milestones
                .iter()
                .filter(|m| keep(m.row, m.date, m.date))
                .map(|m| (m.date, m.id.0, true, m.label.as_str(), m.date, m.row)),
        )
        .collect();
    items.sort_unstable_by_key(|x| (x.0, x.1));
    let total = items.len();
    let page: Vec<_> = items.iter().skip(p.offset).take(PAGE).collect();
    let row_name = |r: RowId| s.row(r).map_or("?", |r| r.name.as_str());
    let mut text = if total == 0 {
        ctx.tr(
            "Aucun bloc ni jalon ne correspond.",
            "No bar or milestone matches.",
        )
    } else {
        ctx.tr(
            format!(
                "{total} {}\u{202f}; {} à {}\u{a0}:",
                text::plural(Lang::Fr, total, "bloc ou jalon", "blocs et jalons"),
                (p.offset + 1).min(total),
                p.offset + page.len()
            ),
            format!(
                "{total} {}; {} to {}:",
                text::plural(Lang::En, total, "bar or milestone", "bars and milestones"),
                (p.offset + 1).min(total),
                p.offset + page.len()
            ),
        )
    };
    // An item's constraints and deadline, when it has some: « ; fin au plus tard le
    // 2026-12-11, échéance le 2026-12-18 ».
    let bounds = |iid: u64| -> (Vec<Constraint>, Option<Date>) {
        let item = ItemId(iid);
        (
            s.item_constraints(item).unwrap_or_default(),
            s.item_deadline(item),
        )
    };
    for (start, iid, ms, label, end, row) in &page {
        let rn = row_name(*row);
        text.push_str(&if *ms {
            ctx.tr(
                format!("\n- jalon {iid} «\u{a0}{label}\u{a0}»\u{a0}: {start} (ligne «\u{a0}{rn}\u{a0}», {row})"),
                format!("\n- milestone {iid} “{label}”: {start} (row “{rn}”, {row})"),
            )
        } else {
            ctx.tr(
                format!("\n- bloc {iid} «\u{a0}{label}\u{a0}»\u{a0}: {start} → {end} (ligne «\u{a0}{rn}\u{a0}», {row})"),
                format!("\n- bar {iid} “{label}”: {start} → {end} (row “{rn}”, {row})"),
            )
        });
        let (cs, due) = bounds(*iid);
        let mut parts: Vec<String> = cs
            .iter()
            .map(|c| text::constraint_phrase(*c, ctx.lang()))
            .collect();
        parts.extend(due.map(|d| ctx.tr(format!("échéance le {d}"), format!("deadline {d}"))));
        if !parts.is_empty() {
            text.push_str(&ctx.tr(
                format!("\u{202f}; {}", parts.join(", ")),
                format!("; {}", parts.join(", ")),
            ));
        }
    }
    let more = p.offset + page.len() < total;
    if more {
        let next = p.offset + page.len();
        text.push_str(&ctx.tr(
            format!("\nIl y en a d'autres\u{a0}: rappelez list_periods avec offset = {next}."),
            format!("\nThere are more: call list_periods again with offset = {next}."),
        ));
    }
    let list: Vec<PeriodItem> = page
        .iter()
        .map(|(start, iid, ms, label, end, row)| {
            // Only when there are some: most items have none, and the list stays compact.
            let (cs, due) = bounds(*iid);
            PeriodItem {
                id: ItemId(*iid),
                milestone: ms.then_some(true),
                label: (*label).to_owned(),
                date: ms.then_some(*start),
                start: (!ms).then_some(*start),
                end: (!ms).then_some(*end),
                row: *row,
                constraints: (!cs.is_empty()).then_some(cs),
                deadline: due,
            }
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(PeriodList {
            schedule_id: id,
            rank: stored.rank,
            total,
            items: list,
            more,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::journal_testkit::{Kit, en, same};
    use super::*;
    use serde_json::json;

    /// The words an answer gives the person (the view's notice after a gesture).
    fn person(r: &Reply) -> String {
        wire::ResultMeta::read(&r.meta)
            .person_text
            .unwrap_or_else(|| panic!("no words for the person: {}", r.text))
    }

    #[tokio::test]
    async fn each_gesture_s_answer_tells_the_person_what_it_did() {
        let k = Kit::new("periods_person_words").await;
        let id = k.schedule;
        let said = |tool: &'static str, args: serde_json::Value| {
            let k = &k;
            async move {
                let mut args = args;
                args["schedule"] = json!(id);
                person(&k.ok(&k.bob, tool, args).await)
            }
        };
        let rank = || async { k.rank().await };
        assert_eq!(
            said(
                "move_periods",
                json!({"bars": [14], "by": 1, "cascade": false})
            )
            .await,
            "«\u{a0}Nettoyage des données\u{a0}» déplacé de +1 jour ouvré\u{a0}: il va maintenant du 2026-11-10 au 2026-11-23."
        );
        assert_eq!(
            said(
                "move_periods",
                json!({"bars": [13, 14], "milestones": [19], "by": -1, "cascade": false})
            )
            .await,
            "2 blocs et 1 jalon déplacés de -1 jour ouvré."
        );
        assert_eq!(
            said(
                "resize_period",
                json!({"bar": 14, "edge": "end", "by": 2, "cascade": false})
            )
            .await,
            "Fin de «\u{a0}Nettoyage des données\u{a0}» déplacée de +2 jours ouvrés\u{a0}: le bloc va maintenant du 2026-11-09 au 2026-11-24."
        );
        assert_eq!(
            said("update_period", json!({"bar": 14, "label": "Nettoyage"})).await,
            "Bloc renommé\u{a0}: «\u{a0}Nettoyage des données\u{a0}» → «\u{a0}Nettoyage\u{a0}»."
        );
        assert_eq!(
            said(
                "set_progress",
                json!({"bars": [{"bar": 14, "percent": 60}]})
            )
            .await,
            "Avancement de «\u{a0}Nettoyage\u{a0}»\u{a0}: 0\u{202f}% → 60\u{202f}%."
        );
        let r = rank().await;
        assert_eq!(
            said(
                "apply_patch",
                json!({"commands": [{"op": "delete_link", "link": 22}], "expected_rank": r})
            )
            .await,
            "Lien supprimé\u{a0}: «\u{a0}Nettoyage\u{a0}» → «\u{a0}Migration à blanc\u{a0}», FS."
        );
        let r = rank().await;
        assert_eq!(
            said(
                "apply_patch",
                json!({"commands": [
                {"op": "update_period", "bar": 14, "color": "#000000"},
                {"op": "update_period", "bar": 13, "color": "#000000"}
            ], "expected_rank": r})
            )
            .await,
            "2 modifications enregistrées."
        );
        assert_eq!(
            said("undo", json!({})).await,
            "Annulé. «\u{a0}Audit du système\u{a0}»\u{a0}: couleur #000000 → #2f6fdf\u{202f}; «\u{a0}Nettoyage\u{a0}»\u{a0}: couleur #000000 → #2f6fdf."
        );
        assert_eq!(
            said("redo", json!({})).await,
            "Rétabli. «\u{a0}Audit du système\u{a0}»\u{a0}: couleur #2f6fdf → #000000\u{202f}; «\u{a0}Nettoyage\u{a0}»\u{a0}: couleur #2f6fdf → #000000."
        );
        assert_eq!(
            said("set_action_status", json!({"action": 27, "status": "todo"})).await,
            "«\u{a0}Inventorier les programmes spécifiques\u{a0}»\u{a0}: terminée → à faire."
        );
        assert_eq!(
            said("delete_periods", json!({"bars": [18], "confirm": true})).await,
            "1 bloc supprimé\u{a0}: «\u{a0}Bascule en production\u{a0}». Partis avec lui\u{a0}: 2 liens, 0 action."
        );
    }

    #[tokio::test]
    async fn a_cascade_is_said_once_to_the_person_and_in_english() {
        let k = Kit::new("periods_person_cascade").await;
        let id = k.schedule;
        k.ok(
            &k.alice,
            "update_settings",
            json!({"schedule": id, "scheduling": "auto"}),
        )
        .await;
        // « Nettoyage des données » (14) ends a week later: its successors follow.
        let r = k
            .ok(
                &en(&k.bob),
                "update_period",
                json!({"schedule": id, "bar": 14, "start": "2026-11-09", "end": "2026-11-27"}),
            )
            .await;
        let words = person(&r);
        assert!(
            words.starts_with("“Nettoyage des données”: end 2026-11-20 → 2026-11-27. "),
            "the bar's own change, then the cascade's sentence: {words}"
        );
        assert!(words.contains("moved by the cascade"), "{words}");
        // The cascade's items are said by its sentence, not listed again before it.
        assert!(!words.contains("“Migration à blanc”: "), "{words}");
    }

    #[tokio::test]
    async fn a_move_names_its_counts_and_its_unit() {
        let k = Kit::new("periods_move_words").await;
        let id = k.schedule;
        let r = k
            .ok(
                &k.alice,
                "move_periods",
                json!({"schedule": id, "bars": [13], "by": 1, "cascade": false}),
            )
            .await;
        assert!(
            r.text
                .starts_with("1 bloc et 0 jalon déplacés de +1 jour ouvré\u{202f}; rang 1."),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &en(&k.alice),
                "move_periods",
                json!({"schedule": id, "bars": [13, 14], "by": -2, "cascade": false}),
            )
            .await;
        assert!(
            r.text
                .starts_with("2 bars and 0 milestones moved by -2 working days; rank 2."),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn edges_dates_and_fields_change_with_a_readable_answer() {
        let k = Kit::new("periods_edit").await;
        let id = k.schedule;
        let r = k
            .ok(
                &k.alice,
                "resize_period",
                json!({"schedule": id, "bar": 15, "edge": "start", "by": 1}),
            )
            .await;
        assert!(
            r.text.starts_with("Début de «\u{a0}Adaptation du code ABAP\u{a0}» (bloc 15) déplacé de +1 jour ouvré\u{a0}: le bloc va maintenant du 2026-11-17 au 2026-12-04\u{202f}; rang 1.\nChangements\u{a0}:"),
            "{}",
            r.text
        );
        assert_eq!(
            r.structured,
            json!({"schedule_id": id, "rank": 1, "bar": 15, "start": "2026-11-17", "end": "2026-12-04"})
        );
        // Lengthening the clean-up breaks the link to the dry run: the answer says so.
        let r = k
            .ok(
                &en(&k.alice),
                "resize_period",
                json!({"schedule": id, "bar": 14, "by": 3}),
            )
            .await;
        assert!(r.text.starts_with("End of “Nettoyage des données” (bar 14) moved by +3 working days: the bar now runs from 2026-11-09 to 2026-11-25; rank 2."), "{}", r.text);
        assert!(
            r.text.contains("New risks:\n- Link 22 (FS) violated"),
            "{}",
            r.text
        );

        let r = k
            .ok(
                &k.alice,
                "update_period",
                json!({"schedule": id, "bar": 16, "start": "2026-11-30", "end": "2026-12-04"}),
            )
            .await;
        assert!(
            r.text.starts_with("«\u{a0}Migration à blanc\u{a0}» (bloc 16) va maintenant du 2026-11-30 au 2026-12-04 (avant\u{a0}: du 2026-11-23 au 2026-12-04)\u{202f}; rang 3."),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.alice,
                "update_period",
                json!({"schedule": id, "bar": 16, "start": "2026-12-04", "end": "2026-11-30"}),
                "invalid_command",
            )
            .await;
        assert!(
            r.text
                .contains("la fin (2026-11-30) précède le début (2026-12-04)"),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.alice,
                "update_period",
                json!({"schedule": id, "bar": 16, "start": "30/11/2026", "end": "2026-12-04"}),
                "invalid_arguments",
            )
            .await;
        assert!(r.text.contains("AAAA-MM-JJ"), "{}", r.text);
        let r = k
            .refused(
                &k.alice,
                "resize_period",
                json!({"schedule": id, "bar": 99, "by": 1}),
                "invalid_command",
            )
            .await;
        assert!(r.text.contains("le bloc 99 n'existe pas"), "{}", r.text);

        // null clears the colour, a date sets the pin, absent fields stay.
        let r = k
            .ok(
                &k.bob,
                "update_period",
                json!({"schedule": id, "bar": 13, "color": null, "pin": "2026-11-03", "notes": ""}),
            )
            .await;
        assert!(
            r.text.starts_with(
                "«\u{a0}Audit du système\u{a0}» (bloc 13) mis à jour (color, notes, pin)\u{202f}; rang 4."
            ),
            "{}",
            r.text
        );
        let s = k.state().await;
        let b = s.bar(BarId(13)).unwrap();
        assert_eq!(
            (
                b.color.clone(),
                b.pin.map(|d| d.to_string()),
                b.notes.as_str(),
                b.label.as_str()
            ),
            (None, Some("2026-11-03".into()), "", "Audit du système")
        );
        k.ok(
            &k.bob,
            "update_period",
            json!({"schedule": id, "bar": 13, "pin": null, "row": 7, "label": "Audit"}),
        )
        .await;
        let s = k.state().await;
        let b = s.bar(BarId(13)).unwrap();
        assert_eq!((b.pin, b.row, b.label.as_str()), (None, RowId(7), "Audit"));
        let r = k
            .refused(
                &k.bob,
                "update_period",
                json!({"schedule": id, "bar": 13}),
                "invalid_arguments",
            )
            .await;
        assert!(r.text.contains("au moins un des champs"), "{}", r.text);
        k.refused(
            &k.bob,
            "update_period",
            json!({"schedule": id, "bar": 13, "color": "rouge"}),
            "invalid_command",
        )
        .await;

        // Rights: a viewer may not, and neither may a read-only token.
        let r = k
            .refused(
                &k.carol,
                "resize_period",
                json!({"schedule": id, "bar": 13, "by": 1}),
                "forbidden",
            )
            .await;
        assert!(r.text.contains("éditeur"), "{}", r.text);
        let read_only = super::super::Caller {
            can_write: false,
            ..k.alice.clone()
        };
        k.refused(
            &read_only,
            "update_period",
            json!({"schedule": id, "bar": 13, "start": "2026-11-02", "end": "2026-11-03"}),
            "read_only_token",
        )
        .await;
    }

    #[tokio::test]
    async fn deletes_say_what_the_cascade_takes_and_undo_brings_it_back() {
        let k = Kit::new("periods_delete").await;
        let id = k.schedule;
        let s0 = k.state().await;
        let r = k
            .refused(
                &k.alice,
                "delete_periods",
                json!({"schedule": id, "bars": [16, 17]}),
                "confirm_needed",
            )
            .await;
        assert_eq!(
            r.text,
            "Rien n'a été supprimé. Supprimer 2 blocs («\u{a0}Migration à blanc\u{a0}» (bloc 16)\u{202f}; «\u{a0}Recette utilisateurs\u{a0}» (bloc 17)) supprimerait aussi 4 liens et 1 action\u{a0}: lien 22\u{a0}: «\u{a0}Nettoyage des données\u{a0}» → «\u{a0}Migration à blanc\u{a0}»\u{202f}; lien 23\u{a0}: «\u{a0}Adaptation du code ABAP\u{a0}» → «\u{a0}Recette utilisateurs\u{a0}»\u{202f}; lien 24\u{a0}: «\u{a0}Migration à blanc\u{a0}» → «\u{a0}Recette utilisateurs\u{a0}»\u{202f}; lien 25\u{a0}: «\u{a0}Recette utilisateurs\u{a0}» → «\u{a0}Bascule en production\u{a0}»\u{202f}; action 30 «\u{a0}Rédiger les cas de test\u{a0}» sur «\u{a0}Recette utilisateurs\u{a0}». Si c'est bien voulu, rappelez delete_periods avec \"confirm\": true (undo pourra tout remettre)."
        );
        assert_eq!(k.rank().await, 0, "nothing written");
        let r = k
            .ok(
                &en(&k.alice),
                "delete_periods",
                json!({"schedule": id, "bars": [16, 17], "confirm": true}),
            )
            .await;
        assert!(r.text.starts_with("2 bars deleted: “Migration à blanc” (bar 16); “Recette utilisateurs” (bar 17). Gone with them: 4 links, 1 action (link 22:"), "{}", r.text);
        assert_eq!(
            r.structured,
            json!({"schedule_id": id, "rank": 1, "deleted": 2, "links_removed": 4, "actions_removed": 1})
        );
        k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        assert!(
            same(&k.state().await, &s0),
            "undo brings bars, links and actions back"
        );

        // A bar nothing depends on goes without confirmation.
        let r = k
            .ok(&k.bob, "add_period", json!({"schedule": id, "row": 10, "label": "Tampon", "start": "2026-12-07", "end": "2026-12-08"}))
            .await;
        let bar = r.structured["bar"].as_u64().unwrap();
        let r = k
            .ok(
                &k.bob,
                "delete_periods",
                json!({"schedule": id, "bars": [bar]}),
            )
            .await;
        assert!(
            r.text.contains("aucun lien ni action n'en dépendait"),
            "{}",
            r.text
        );
        // Unknown bars: the model's refusal, confirm or not.
        let r = k
            .refused(
                &k.bob,
                "delete_periods",
                json!({"schedule": id, "bars": [16, 98]}),
                "invalid_command",
            )
            .await;
        assert!(r.text.contains("le bloc 98 n'existe pas"), "{}", r.text);
        k.refused(
            &k.bob,
            "delete_periods",
            json!({"schedule": id, "bars": []}),
            "invalid_command",
        )
        .await;
    }

    #[tokio::test]
    async fn lists_filter_by_row_and_window_and_page() {
        let k = Kit::new("periods_list").await;
        let id = k.schedule;
        let r = k
            .ok(&k.carol, "list_periods", json!({"schedule": id}))
            .await;
        assert_eq!(r.structured["total"], 7);
        assert!(r.text.starts_with("7 blocs et jalons\u{202f}; 1 à 7\u{a0}:\n- bloc 13 «\u{a0}Audit du système\u{a0}»\u{a0}: 2026-11-02 → 2026-11-13 (ligne «\u{a0}Audit du système\u{a0}», 6)"), "{}", r.text);
        let r = k
            .ok(
                &en(&k.carol),
                "list_periods",
                json!({"schedule": id, "row": 12}),
            )
            .await;
        assert_eq!(
            r.text,
            "2 bars and milestones; 1 to 2:\n- bar 18 “Bascule en production”: 2026-12-14 → 2026-12-17 (row “Mise en production”, 12)\n- milestone 19 “Go-live S/4HANA”: 2026-12-18 (row “Mise en production”, 12)"
        );
        assert_eq!(
            r.structured["items"][1],
            json!({"id": 19, "milestone": true, "label": "Go-live S/4HANA", "date": "2026-12-18", "row": 12})
        );
        let r = k
            .ok(
                &k.carol,
                "list_periods",
                json!({"schedule": id, "from": "2026-12-05", "to": "2026-12-14"}),
            )
            .await;
        let ids: Vec<u64> = r.structured["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [17, 18]);
        let r = k
            .ok(
                &k.carol,
                "list_periods",
                json!({"schedule": id, "offset": 5}),
            )
            .await;
        assert_eq!(r.structured["items"].as_array().unwrap().len(), 2);
        assert_eq!(r.structured["more"], false);
        k.refused(
            &k.carol,
            "list_periods",
            json!({"schedule": id, "row": 99}),
            "not_found",
        )
        .await;
        k.refused(
            &k.carol,
            "list_periods",
            json!({"schedule": id, "from": "demain"}),
            "invalid_arguments",
        )
        .await;
    }

    #[tokio::test]
    async fn long_lists_are_capped_with_more() {
        let k = Kit::new("periods_cap").await;
        let id = k.schedule;
        let commands: Vec<_> = (0..60)
            .map(|i| json!({"op": "add_period", "row": 6, "label": format!("Lot {i}"), "start": "2026-11-02", "end": "2026-11-03"}))
            .collect();
        k.ok(
            &k.alice,
            "apply_patch",
            json!({"schedule": id, "expected_rank": 0, "commands": commands}),
        )
        .await;
        let r = k
            .ok(&k.carol, "list_periods", json!({"schedule": id}))
            .await;
        assert_eq!(
            (r.structured["total"].clone(), r.structured["more"].clone()),
            (json!(67), json!(true))
        );
        assert_eq!(r.structured["items"].as_array().unwrap().len(), PAGE);
        assert!(
            r.text.ends_with("rappelez list_periods avec offset = 50."),
            "{}",
            r.text
        );
        // Deleting more than ten bars asks first, even without links.
        let bars: Vec<u64> = (32..44).collect();
        k.refused(
            &k.alice,
            "delete_periods",
            json!({"schedule": id, "bars": bars}),
            "confirm_needed",
        )
        .await;
    }
}

//! Tools that change a schedule's bars (periods), and `apply_patch`, which applies any
//! list of the model's commands at an expected rank (the view's "Accept").
//!
//! Each tool builds the model's commands from its arguments and writes them with
//! `Ctx::apply`, exactly as the view's gestures will: the journal, undo and live
//! updates see one kind of write.

use crate::planning::Code;
use palmaplan_model::command::Command;
use palmaplan_model::text::{self, count};
use palmaplan_model::{BarId, Lang, MilestoneId, RowId, Schedule, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::args::{CascadeArg, date};
use super::scheduling::with_cascade;
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "add_period",
            "Add a bar (first and last day, inclusive) to a row.",
            Access::Write,
            add_period,
        )
        .returns::<PeriodAdded>(),
        tool(
            "move_periods",
            "Move bars (and milestones) by a working offset; each bar keeps its duration.",
            Access::Write,
            move_periods,
        )
        .used_by_view()
        .returns::<PeriodsMoved>(),
        tool(
            "apply_patch",
            "Apply commands (as from what_if) atomically, only if the schedule is still at expected_rank.",
            Access::Write,
            apply_patch,
        )
        .used_by_view()
        .returns::<PatchApplied>(),
    ]
}

/// Turns a JSON command into the model's command (the wire form is the model's); what
/// is wrong with one is said in the caller's words (see `args::command`).
pub(super) fn command(ctx: &Ctx, v: Value) -> Result<Command, Refusal> {
    super::args::command(v, ctx.lang()).map_err(|why| {
        Refusal::new(
            Code::InvalidCommand,
            ctx.tr(
                format!("Commande invalide\u{a0}: {why}."),
                format!("Invalid command: {why}."),
            ),
        )
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddPeriod {
    schedule: ScheduleRef,
    row: u64,
    label: String,
    /// YYYY-MM-DD.
    start: String,
    /// YYYY-MM-DD, inclusive.
    end: String,
    /// "#rrggbb".
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    /// Start no earlier than.
    #[serde(default)]
    pin: Option<String>,
}

/// `add_period`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodAdded {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    /// The new bar's id.
    bar: Option<BarId>,
}

async fn add_period(ctx: Ctx, p: AddPeriod) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let start = date(&ctx, "start", &p.start)?;
    let end = date(&ctx, "end", &p.end)?;
    let pin = p.pin.as_deref().map(|d| date(&ctx, "pin", d)).transpose()?;
    let mut cmd = json!({
        "op": "add_period", "row": RowId(p.row), "label": p.label,
        "start": start, "end": end,
    });
    if let Some(obj) = cmd.as_object_mut() {
        if let Some(c) = p.color {
            obj.insert("color".into(), json!(c));
        }
        if let Some(n) = p.notes {
            obj.insert("notes".into(), json!(n));
        }
        if let Some(pin) = pin {
            obj.insert("pin".into(), json!(pin));
        }
    }
    let wrote = ctx.apply(id, &[command(&ctx, cmd)?], None).await?;
    let bar = match wrote.applied.first() {
        Some(c) => serde_json::to_value(c)
            .ok()
            .and_then(|v| v.get("id").and_then(Value::as_u64))
            .map(BarId),
        None => None,
    };
    let label = p.label.trim();
    let text = ctx.tr(
        format!(
            "Bloc «\u{a0}{label}\u{a0}» ajouté (id {}) du {start} au {end}\u{202f}; rang {}.",
            bar.map_or(0, |b| b.0),
            wrote.rank
        ),
        format!(
            "Bar “{label}” added (id {}) from {start} to {end}; rank {}.",
            bar.map_or(0, |b| b.0),
            wrote.rank
        ),
    );
    Ok(Reply::ok(
        text,
        json!(PeriodAdded {
            schedule_id: id,
            rank: wrote.rank,
            bar,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MovePeriods {
    schedule: ScheduleRef,
    #[serde(default)]
    bars: Vec<u64>,
    #[serde(default)]
    milestones: Vec<u64>,
    /// Negative: earlier.
    by: i32,
    /// "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

/// `move_periods`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct PeriodsMoved {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    /// How many bars and milestones were asked to move.
    moved: usize,
    /// What the cascade moved beyond them, when it moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<wire::CascadeSummary>,
}

async fn move_periods(ctx: Ctx, p: MovePeriods) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd =
        json!({ "op": "move_periods", "bars": p.bars, "milestones": p.milestones, "by": p.by });
    let wrote = ctx
        .apply_cascading(
            id,
            &[command(&ctx, cmd)?],
            None,
            CascadeArg::choice(p.cascade),
        )
        .await?;
    let by = super::periods::units(&ctx, &wrote.state, p.by);
    // « 1 bloc et 0 jalon déplacés »: two nouns joined by « et » agree in the plural.
    let mut text = ctx.tr(
        format!(
            "{} et {} déplacés de {by}\u{202f}; rang {}.",
            count(Lang::Fr, p.bars.len(), "bloc", "blocs"),
            count(Lang::Fr, p.milestones.len(), "jalon", "jalons"),
            wrote.rank
        ),
        format!(
            "{} and {} moved by {by}; rank {}.",
            count(Lang::En, p.bars.len(), "bar", "bars"),
            count(Lang::En, p.milestones.len(), "milestone", "milestones"),
            wrote.rank
        ),
    );
    for b in p.bars.iter().take(20) {
        if let Some(bar) = wrote.state.bar(BarId(*b)) {
            text.push_str(&ctx.tr(
                format!(
                    "\n- «\u{a0}{}\u{a0}» ({})\u{a0}: {} → {}",
                    bar.label, bar.id, bar.start, bar.end
                ),
                format!(
                    "\n- “{}” ({}): {} → {}",
                    bar.label, bar.id, bar.start, bar.end
                ),
            ));
        }
    }
    if p.bars.len() > 20 {
        text.push_str(&ctx.tr(
            format!("\n… et {} autres.", p.bars.len() - 20),
            format!("\n… and {} more.", p.bars.len() - 20),
        ));
    }
    let reply = Reply::ok(
        text,
        json!(PeriodsMoved {
            schedule_id: id,
            rank: wrote.rank,
            moved: p.bars.len() + p.milestones.len(),
            cascade: None,
        }),
    )
    .for_person(moved_for_person(&ctx, &wrote.state, &p, &by));
    Ok(with_cascade(&ctx, &wrote, reply))
}

/// What `move_periods` did, for the person who moved: the one item by its label and
/// where it now is, or how many moved; no ids, no rank.
fn moved_for_person(ctx: &Ctx, s: &Schedule, p: &MovePeriods, by: &str) -> String {
    let one = match (p.bars.as_slice(), p.milestones.as_slice()) {
        ([b], []) => s.bar(BarId(*b)).map(|b| {
            let (label, start, end) = (&b.label, b.start, b.end);
            ctx.tr(
                format!("«\u{a0}{label}\u{a0}» déplacé de {by}\u{a0}: il va maintenant du {start} au {end}."),
                format!("“{label}” moved by {by}: it now runs from {start} to {end}."),
            )
        }),
        ([], [m]) => s.milestone(MilestoneId(*m)).map(|m| {
            let (label, date) = (&m.label, m.date);
            ctx.tr(
                format!("Jalon «\u{a0}{label}\u{a0}» déplacé de {by}\u{a0}: il est maintenant le {date}."),
                format!("Milestone “{label}” moved by {by}: it is now on {date}."),
            )
        }),
        _ => None,
    };
    one.unwrap_or_else(|| {
        let (bars, milestones) = (p.bars.len(), p.milestones.len());
        let what = |lang, (b1, bn): (&str, &str), (m1, mn): (&str, &str), and: &str| match (
            bars, milestones,
        ) {
            (b, 0) => count(lang, b, b1, bn),
            (0, m) => count(lang, m, m1, mn),
            (b, m) => format!(
                "{} {and} {}",
                count(lang, b, b1, bn),
                count(lang, m, m1, mn)
            ),
        };
        ctx.tr(
            format!(
                "{} {} de {by}.",
                what(Lang::Fr, ("bloc", "blocs"), ("jalon", "jalons"), "et"),
                text::plural(Lang::Fr, bars + milestones, "déplacé", "déplacés")
            ),
            format!(
                "{} moved by {by}.",
                what(
                    Lang::En,
                    ("bar", "bars"),
                    ("milestone", "milestones"),
                    "and"
                )
            ),
        )
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ApplyPatch {
    schedule: ScheduleRef,
    /// See describe_patch.
    #[schemars(with = "Vec<super::patch::PatchCommand>")]
    commands: Vec<Value>,
    /// what_if's rank.
    expected_rank: i64,
    /// "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

/// `apply_patch`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct PatchApplied {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    /// How many commands were applied.
    applied: usize,
    /// What the cascade moved beyond them, when it moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<wire::CascadeSummary>,
}

async fn apply_patch(ctx: Ctx, p: ApplyPatch) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.commands.is_empty() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}commands\u{a0}» est vide\u{a0}: rien à appliquer.",
                "“commands” is empty: nothing to apply.",
            ),
        ));
    }
    let commands = p
        .commands
        .into_iter()
        .map(|c| command(&ctx, c))
        .collect::<Result<Vec<_>, _>>()?;
    let wrote = ctx
        .apply_cascading(
            id,
            &commands,
            Some(p.expected_rank),
            CascadeArg::choice(p.cascade),
        )
        .await?;
    let text = ctx.tr(
        format!(
            "{}\u{202f}; le planning passe au rang {}.",
            count(
                Lang::Fr,
                commands.len(),
                "commande appliquée",
                "commandes appliquées"
            ),
            wrote.rank
        ),
        format!(
            "{} applied; the schedule is now at rank {}.",
            count(Lang::En, commands.len(), "command", "commands"),
            wrote.rank
        ),
    );
    let reply = Reply::ok(
        text,
        json!(PatchApplied {
            schedule_id: id,
            rank: wrote.rank,
            applied: commands.len(),
            cascade: None,
        }),
    )
    .for_person(patch_for_person(&ctx, &wrote, commands.len()));
    Ok(with_cascade(&ctx, &wrote, reply))
}

/// What `apply_patch` did, for the person (the view's gestures write through it): the
/// one change in words when it is a gesture's (`text::command_for_person`), else how
/// many; no ids, no rank. The cascade's commands, after the `asked` ones, are said by
/// the cascade's own sentence.
fn patch_for_person(ctx: &Ctx, wrote: &super::Wrote, asked: usize) -> String {
    let mine = &wrote.applied[..asked.min(wrote.applied.len())];
    text::command_for_person(&wrote.state, mine, &wrote.inverse, ctx.lang())
        .map(|line| format!("{line}."))
        .unwrap_or_else(|| {
            ctx.tr(
                format!(
                    "{}.",
                    count(
                        Lang::Fr,
                        asked,
                        "modification enregistrée",
                        "modifications enregistrées"
                    )
                ),
                format!(
                    "{}.",
                    count(Lang::En, asked, "change saved", "changes saved")
                ),
            )
        })
}

//! Scheduling that acts: `reschedule` (bring a schedule, or what follows some items,
//! to a state where every link holds), `schedule_floats` (early and late dates, total
//! and free float per item), and what every date-changing write says about its
//! cascade (the sentence and the compact structured part).
//!
//! The computing is the model's (`push`, `cpm`): the same functions run in the view's
//! drag preview, so what a person sees move is what is written. See
//! `docs/scheduling.md` for the semantics.

use crate::planning::Code;
use palmaplan_model::calendar::Calendar;
use palmaplan_model::cpm::{self, ItemKind};
use palmaplan_model::push::{self, Cascade, LinkIndex, Moved, PushError, Seeds};
use palmaplan_model::text::{self, LIST_CAP};
use palmaplan_model::{Constraint, Date, ItemId, Lang, Schedule, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::analysis::cycle_refusal;
use super::people::{quoted, span_text, working_days};
use super::{Access, Cascading, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, Wrote, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "reschedule",
            "Move items so every link holds (all, or what follows given ones). Preview: what_if's reschedule.",
            Access::Write,
            reschedule,
        )
        .returns::<Rescheduled>(),
        tool(
            "schedule_floats",
            "Early/late dates, total/free float per item, least first, 50 per call (offset). path: true: the critical path (project start, end, length; zero-slack items in order with their driving links).",
            Access::Read,
            schedule_floats,
        )
        .used_by_view()
        .returns::<FloatsAnswer>(),
    ]
}

/// The sentence a write adds when its cascade moved something.
pub(super) fn cascade_text(ctx: &Ctx, wrote: &Wrote) -> Option<String> {
    text::cascade_summary(&wrote.state, &wrote.cascade, wrote.end_before, ctx.lang())
}

/// The compact structured part of a cascade: the moved ids, by kind, and the project
/// end before and after.
pub(super) fn cascade_summary(
    moved: &[Moved],
    end_before: Option<Date>,
    after: &Schedule,
) -> wire::CascadeSummary {
    let ids = |k: ItemKind| -> Vec<u64> {
        moved
            .iter()
            .filter(|m| m.kind == k)
            .map(|m| m.item.0)
            .collect()
    };
    wire::CascadeSummary {
        bars: ids(ItemKind::Bar),
        milestones: ids(ItemKind::Milestone),
        project_end: wire::Ends {
            before: end_before,
            after: after.span().map(|(_, e)| e),
        },
    }
}

/// Appends the cascade's sentence to a write's text and its ids to the structured
/// answer (nothing when it moved nothing).
pub(super) fn with_cascade(ctx: &Ctx, wrote: &Wrote, mut reply: Reply) -> Reply {
    if let Some(sentence) = cascade_text(ctx, wrote) {
        reply.text.push('\n');
        reply.text.push_str(&sentence);
        reply.person_also(&sentence);
        if let Some(obj) = reply.structured.as_object_mut() {
            obj.insert(
                "cascade".into(),
                json!(cascade_summary(
                    &wrote.cascade,
                    wrote.end_before,
                    &wrote.state
                )),
            );
        }
    }
    reply
}

/// The end of a plan once its links hold, when that is later than the plan's own end
/// (some link is violated): what texts give beside the plan's end.
pub(super) fn end_once_links_hold(s: &Schedule) -> Option<Date> {
    let cp = cpm::critical_path(s).ok()?;
    match (cp.planned_end, cp.project_end) {
        (Some(plan), Some(held)) if held > plan => Some(held),
        _ => None,
    }
}

/// The sentence giving both ends of a plan whose links are not all respected: the
/// plan's own end and the end once its links hold. `None` when they agree.
pub(super) fn ends_line(ctx: &Ctx, s: &Schedule) -> Option<String> {
    ends_line_with(ctx, s, end_once_links_hold(s))
}

/// [`ends_line`] with the end once links hold already computed.
pub(super) fn ends_line_with(ctx: &Ctx, s: &Schedule, held: Option<Date>) -> Option<String> {
    ends_words(
        ctx,
        s,
        held,
        ctx.tr(" (reschedule le replanifie)", " (reschedule replans it)"),
    )
}

/// [`ends_line_with`] for the person under a before/after: the same two ends, without
/// the tool that replans (the model's to call).
pub(super) fn ends_line_for_person(ctx: &Ctx, s: &Schedule, held: Option<Date>) -> Option<String> {
    ends_words(ctx, s, held, String::new())
}

/// The two ends' sentence, `then` before its full stop.
fn ends_words(ctx: &Ctx, s: &Schedule, held: Option<Date>, then: String) -> Option<String> {
    let held = held?;
    let plan = s.span()?.1;
    Some(ctx.tr(
        format!("Le plan finit le {plan}\u{202f}; une fois tous ses liens et contraintes respectés, il finirait le {held}{then}."),
        format!("The plan ends on {plan}; once all its links and constraints hold, it would end on {held}{then}."),
    ))
}

/// How a `reschedule` moves items.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Mode {
    /// Later only, to exactly the date the links require.
    #[default]
    Push,
    /// Earlier too: every item downstream to the date its links (and pin) require.
    Asap,
}

/// What `reschedule` (and what_if's `reschedule`) takes besides the schedule.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Scope {
    /// Only what follows these (none: everything).
    #[serde(default)]
    pub(super) bars: Vec<u64>,
    /// Only what follows these.
    #[serde(default)]
    pub(super) milestones: Vec<u64>,
    /// "push" (default): later only; "asap": earlier too.
    #[serde(default)]
    pub(super) mode: Mode,
}

/// The moves a reschedule makes on a state, or a refusal naming what is wrong.
pub(super) fn reschedule_moves(
    ctx: &Ctx,
    s: &Schedule,
    scope: &Scope,
) -> Result<Vec<Moved>, Refusal> {
    let mut seeds: Vec<ItemId> = Vec::new();
    for &b in &scope.bars {
        if s.bar(palmaplan_model::BarId(b)).is_none() {
            return Err(not_found(ctx, "bars", b));
        }
        seeds.push(ItemId(b));
    }
    for &m in &scope.milestones {
        if s.milestone(palmaplan_model::MilestoneId(m)).is_none() {
            return Err(not_found(ctx, "milestones", m));
        }
        seeds.push(ItemId(m));
    }
    let mode = match scope.mode {
        Mode::Push => Cascade::Push,
        Mode::Asap => Cascade::Pull,
    };
    let index = LinkIndex::new(s);
    let cal = Calendar::for_schedule(s);
    let which = if seeds.is_empty() {
        Seeds::All
    } else {
        Seeds::Items(&seeds)
    };
    push::push(s, &index, &cal, which, mode).map_err(|e| match e {
        PushError::Cycle { items } => cycle_refusal(
            ctx,
            s,
            &cpm::critical_path(s)
                .err()
                .unwrap_or(cpm::CycleError { items }),
        ),
        PushError::Constraint {
            item,
            kind,
            date,
            by_days,
        } => {
            let c = Constraint { kind, date };
            let label = s.item_label(item).unwrap_or("?");
            let (fr_verb, en_verb) = if kind.on_finish() {
                ("finir", "finish")
            } else {
                ("commencer", "start")
            };
            Refusal::new(
                Code::ConstraintBroken,
                ctx.tr(
                    format!(
                        "Replanifier ferait {fr_verb} l'élément {item} «\u{a0}{label}\u{a0}» {} trop tard pour sa contrainte «\u{a0}{}\u{a0}»\u{a0}: rien n'a été écrit. Déplacez ou retirez cette contrainte (set_constraint, une date null la retire), ou replanifiez seulement une autre partie du planning (bars, milestones).",
                        text::working_days(by_days, Lang::Fr),
                        text::constraint_phrase(c, Lang::Fr)
                    ),
                    format!(
                        "Rescheduling would make item {item} “{label}” {en_verb} {} too late for its constraint “{}”: nothing was written. Move or remove that constraint (set_constraint; a null date removes it), or reschedule another part of the schedule only (bars, milestones).",
                        text::working_days(by_days, Lang::En),
                        text::constraint_phrase(c, Lang::En)
                    ),
                ),
            )
            .with(json!({
                "item": item, "constraint": c, "by_days": by_days,
            }))
        }
    })
}

fn not_found(ctx: &Ctx, field: &str, id: u64) -> Refusal {
    Refusal::new(
        Code::NotFound,
        ctx.tr(
            format!("«\u{a0}{field}\u{a0}»\u{a0}: l'id {id} ne désigne aucun élément de ce type dans ce planning. Listez-les avec list_periods."),
            format!("“{field}”: id {id} names no such item in this schedule. List them with list_periods."),
        ),
    )
    .with(json!({ "field": field, "id": id }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Reschedule {
    schedule: ScheduleRef,
    /// Only what follows these (none: everything).
    #[serde(default)]
    bars: Vec<u64>,
    /// Only what follows these.
    #[serde(default)]
    milestones: Vec<u64>,
    /// "push" (default): later only; "asap": earlier too.
    #[serde(default)]
    mode: Mode,
    /// Write only if still at this rank.
    #[serde(default)]
    expected_rank: Option<i64>,
}

/// `reschedule`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Rescheduled {
    schedule_id: i64,
    /// The schedule's rank after the write (unchanged when nothing moved).
    rank: i64,
    /// How many items moved.
    moved: usize,
    /// What moved, when something did.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<wire::CascadeSummary>,
}

async fn reschedule(ctx: Ctx, p: Reschedule) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let scope = Scope {
        bars: p.bars,
        milestones: p.milestones,
        mode: p.mode,
    };
    let mut attempts = 0;
    let (before, wrote, moved) = loop {
        attempts += 1;
        let cur = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
        if let Some(expected) = p.expected_rank
            && cur.rank != expected
        {
            return Err(out_of_date(&ctx, cur.rank));
        }
        let moved = reschedule_moves(&ctx, &cur.state, &scope)?;
        if moved.is_empty() {
            let text = ctx.tr(
                format!(
                    "Aucun lien n'est violé{} dans «\u{a0}{}\u{a0}»\u{a0}: rien n'a bougé (rang {}).",
                    scope_words(&ctx, &scope),
                    cur.state.name,
                    cur.rank
                ),
                format!(
                    "No link is violated{} in “{}”: nothing moved (rank {}).",
                    scope_words(&ctx, &scope),
                    cur.state.name,
                    cur.rank
                ),
            );
            return Ok(Reply::ok(
                text,
                json!(Rescheduled {
                    schedule_id: id,
                    rank: cur.rank,
                    moved: 0,
                    cascade: None,
                }),
            ));
        }
        let commands = push::commands(&moved);
        match ctx
            .apply_cascading(id, &commands, Some(cur.rank), Cascading::Off)
            .await
        {
            Ok(wrote) => break (cur.state, wrote, moved),
            Err(r) if r.code == Code::OutOfDate && p.expected_rank.is_none() && attempts < 8 => {
                continue;
            }
            Err(r) => return Err(r),
        }
    };
    let end_before = before.span().map(|(_, e)| e);
    let mut text = ctx.tr(
        format!(
            "«\u{a0}{}\u{a0}» replanifié{}\u{202f}; rang {}.",
            wrote.state.name,
            scope_words(&ctx, &scope),
            wrote.rank
        ),
        format!(
            "“{}” rescheduled{}; rank {}.",
            wrote.state.name,
            scope_words(&ctx, &scope),
            wrote.rank
        ),
    );
    if let Some(sentence) = text::cascade_summary(&wrote.state, &moved, end_before, ctx.lang()) {
        text.push('\n');
        text.push_str(&sentence);
    }
    text.push('\n');
    text.push_str(&ctx.tr(
        "undo annule toute la replanification en une fois.",
        "undo takes the whole reschedule back at once.",
    ));
    Ok(Reply::ok(
        text,
        json!(Rescheduled {
            schedule_id: id,
            rank: wrote.rank,
            moved: moved.len(),
            cascade: Some(cascade_summary(&moved, end_before, &wrote.state)),
        }),
    ))
}

fn scope_words(ctx: &Ctx, scope: &Scope) -> String {
    if scope.bars.is_empty() && scope.milestones.is_empty() {
        String::new()
    } else {
        ctx.tr(
            " en aval des éléments donnés",
            " downstream of the given items",
        )
    }
}

fn out_of_date(ctx: &Ctx, current: i64) -> Refusal {
    Refusal::new(
        Code::OutOfDate,
        ctx.tr(
            format!("Le planning a changé depuis (rang {current})\u{a0}: rien n'a été écrit. Relancez what_if pour une nouvelle proposition."),
            format!("The schedule has changed since (rank {current}): nothing was written. Run what_if again for a new proposal."),
        ),
    )
    .with(json!({ "rank": current }))
}

// ---- schedule_floats

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Floats {
    schedule: ScheduleRef,
    #[serde(default)]
    critical_only: bool,
    #[serde(default)]
    items: Vec<u64>,
    #[serde(default)]
    offset: usize,
    /// At most 50.
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    path: bool,
}

/// `schedule_floats`'s result: floats, or the critical path.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum FloatsAnswer {
    Floats(FloatsPage),
    Path(super::analysis::CriticalAnswer),
}

/// The floats, a page.
#[derive(Debug, Serialize, JsonSchema)]
struct FloatsPage {
    schedule_id: i64,
    rank: i64,
    /// How many items match (all pages).
    total: usize,
    /// The plan's dates and the page's place; absent when it has no bar nor milestone.
    #[serde(flatten)]
    span: Option<FloatsSpan>,
    items: Vec<Float>,
}

/// The plan's dates, and where the page is in the list.
#[derive(Debug, Serialize, JsonSchema)]
struct FloatsSpan {
    project_start: Date,
    /// The end once every link holds.
    project_end: Date,
    /// The plan's own end as drawn; null when it has none.
    planned_end: Option<Date>,
    offset: usize,
    /// The next page's offset; null on the last page.
    next_offset: Option<usize>,
}

/// An item's early and late dates and its floats (in working days).
#[derive(Debug, Serialize, JsonSchema)]
struct Float {
    id: ItemId,
    #[schemars(with = "KindName")]
    kind: ItemKind,
    /// First and last day, as early as the links allow.
    early: [Date; 2],
    /// First and last day, as late as the end allows.
    late: [Date; 2],
    total_float: i64,
    free_float: i64,
    critical: bool,
}

/// "bar" or "milestone": the schema of the model's `ItemKind`, which derives none
/// (only its schema is used: the value is the model's).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub(super) enum KindName {
    Bar,
    Milestone,
}

async fn schedule_floats(ctx: Ctx, p: Floats) -> Result<Reply, Refusal> {
    if p.path {
        if p.critical_only || !p.items.is_empty() || p.offset > 0 || p.limit.is_some() {
            return Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "«\u{a0}path\u{a0}»: true donne le chemin critique entier\u{a0}: il se passe de critical_only, items, offset et limit.",
                    "“path”: true gives the whole critical path: it takes no critical_only, items, offset or limit.",
                ),
            )
            .with(json!({ "field": "path" })));
        }
        return super::analysis::critical_path(ctx, &p.schedule).await;
    }
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    let cp = cpm::critical_path(s).map_err(|e| cycle_refusal(&ctx, s, &e))?;
    // Sorted once: any number of ids costs a binary search per item.
    let mut wanted = p.items.clone();
    wanted.sort_unstable();
    wanted.dedup();
    let mut rows: Vec<&cpm::ItemTiming> = cp
        .items
        .iter()
        .filter(|t| !p.critical_only || t.critical)
        .filter(|t| wanted.is_empty() || wanted.binary_search(&t.item.0).is_ok())
        .collect();
    rows.sort_by_key(|t| (t.total_float, t.early_start, t.item));
    let total = rows.len();
    let limit = p.limit.unwrap_or(LIST_CAP).clamp(1, LIST_CAP);
    let page: Vec<&cpm::ItemTiming> = rows.iter().skip(p.offset).take(limit).copied().collect();
    let (Some(start), Some(end)) = (cp.project_start, cp.project_end) else {
        return Ok(Reply::ok(
            ctx.tr(
                format!(
                    "«\u{a0}{}\u{a0}» n'a ni bloc ni jalon\u{a0}: pas de marges à donner.",
                    s.name
                ),
                format!("“{}” has no bar nor milestone: no floats to give.", s.name),
            ),
            json!(FloatsPage {
                schedule_id: o.id,
                rank: o.rank,
                total: 0,
                span: None,
                items: vec![],
            }),
        ));
    };
    let mut text = ctx.tr(
        format!(
            "«\u{a0}{}\u{a0}»\u{a0}: du {start} au {end} ({}). Marges en jours ouvrés, la plus faible d'abord\u{202f}; {} élément{} sur {}\u{a0}:",
            s.name,
            working_days(lang, cp.length_days),
            page.len(),
            if page.len() > 1 { "s" } else { "" },
            total
        ),
        format!(
            "“{}”: from {start} to {end} ({}). Floats in working days, least first; {} item{} of {}:",
            s.name,
            working_days(lang, cp.length_days),
            page.len(),
            if page.len() == 1 { "" } else { "s" },
            total
        ),
    );
    if let Some(plan) = cp.planned_end
        && plan != end
    {
        text.push_str(&ctx.tr(
            format!("\nLe plan finit le {plan}\u{202f}; une fois ses liens respectés, il finit le {end}."),
            format!("\nThe plan ends on {plan}; once its links hold, it ends on {end}."),
        ));
    }
    for t in &page {
        let label = s.item_label(t.item).unwrap_or("?");
        let kind = match (t.kind, lang) {
            (ItemKind::Bar, Lang::Fr) => "bloc",
            (ItemKind::Bar, Lang::En) => "bar",
            (ItemKind::Milestone, Lang::Fr) => "jalon",
            (ItemKind::Milestone, Lang::En) => "milestone",
        };
        let critical = if t.critical {
            ctx.tr(", critique", ", critical")
        } else {
            String::new()
        };
        text.push_str(&ctx.tr(
            format!(
                "\n- {kind} {} {}\u{a0}: au plus tôt {}, au plus tard {}\u{202f}; marge totale {}, libre {}{critical}",
                t.item,
                quoted(lang, label),
                span_text(t.early_start, t.early_finish),
                span_text(t.late_start, t.late_finish),
                t.total_float,
                t.free_float
            ),
            format!(
                "\n- {kind} {} {}: early {}, late {}; total float {}, free {}{critical}",
                t.item,
                quoted(lang, label),
                span_text(t.early_start, t.early_finish),
                span_text(t.late_start, t.late_finish),
                t.total_float,
                t.free_float
            ),
        ));
    }
    let next = p.offset + page.len();
    if next < total {
        text.push_str(&ctx.tr(
            format!("\nSuite\u{a0}: offset = {next}."),
            format!("\nMore: offset = {next}."),
        ));
    }
    let items: Vec<Float> = page
        .iter()
        .map(|t| Float {
            id: t.item,
            kind: t.kind,
            early: [t.early_start, t.early_finish],
            late: [t.late_start, t.late_finish],
            total_float: t.total_float,
            free_float: t.free_float,
            critical: t.critical,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(FloatsPage {
            schedule_id: o.id,
            rank: o.rank,
            total,
            span: Some(FloatsSpan {
                project_start: start,
                project_end: end,
                planned_end: cp.planned_end,
                offset: p.offset,
                next_offset: (next < total).then_some(next),
            }),
            items,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::{Kit, en};
    use palmaplan_model::BarId;
    use serde_json::json;

    /// (start, end) of each bar of the chain after the clean-up.
    async fn chain(k: &Kit) -> Vec<(u64, String, String)> {
        let s = k.state(k.schedule).await;
        [14u64, 16, 17, 18]
            .iter()
            .map(|&b| {
                let bar = s.bar(BarId(b)).unwrap();
                (b, bar.start.to_string(), bar.end.to_string())
            })
            .collect()
    }

    #[tokio::test]
    async fn a_move_with_a_cascade_pushes_what_follows_in_one_undoable_write() {
        let k = Kit::new("cascade-move").await;
        let before = k.state(k.schedule).await;
        // The demo is manual: without `cascade` the successors stay and a link breaks.
        let r = k
            .ok(
                &k.editor,
                "what_if",
                json!({ "schedule": k.schedule, "commands": [{"op": "move_periods", "bars": [14], "by": 5}] }),
            )
            .await;
        assert!(
            r.text
                .contains("Lien 22 (FS) non respecté de 5 jours ouvrés"),
            "{}",
            r.text
        );
        assert!(
            r.text.contains("Le plan finit le 2026-12-18\u{202f}; une fois tous ses liens et contraintes respectés, il finirait le 2026-12-28"),
            "{}",
            r.text
        );
        // With it, what_if shows every moved item, and Accept writes exactly them.
        let r = k
            .ok(
                &k.editor,
                "what_if",
                json!({ "schedule": k.schedule, "cascade": true, "commands": [{"op": "move_periods", "bars": [14], "by": 5}] }),
            )
            .await;
        assert!(
            r.text.contains("3 blocs et 1 jalon décalés en cascade, en jours ouvrés\u{a0}: «\u{a0}Migration à blanc\u{a0}» +5\u{a0}j"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("Fin du projet\u{a0}: 2026-12-18 → 2026-12-28"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["cascade"]["bars"], json!([16, 17, 18]));
        assert_eq!(r.structured["cascade"]["milestones"], json!([19]));
        assert_eq!(r.structured["acceptable"], true);
        let commands = r.structured["commands"].clone();
        assert_eq!(commands.as_array().unwrap().len(), 5, "{commands}");
        let w = k
            .ok(
                &k.editor,
                "apply_patch",
                json!({ "schedule": k.schedule, "commands": commands, "expected_rank": r.structured["rank"] }),
            )
            .await;
        assert_eq!(w.structured["rank"], 1);
        assert_eq!(
            chain(&k).await,
            [
                // Five working days later (Armistice Day skipped), nine working days.
                (14, "2026-11-17".into(), "2026-11-27".into()),
                (16, "2026-11-30".into(), "2026-12-11".into()),
                (17, "2026-12-14".into(), "2026-12-18".into()),
                (18, "2026-12-21".into(), "2026-12-24".into()),
            ]
        );
        // One undo takes it all back.
        k.ok(&k.editor, "undo", json!({ "schedule": k.schedule }))
            .await;
        assert_eq!(k.state(k.schedule).await, before);

        // move_periods with cascade: the same dates, and the answer says so (English).
        let r = k
            .ok(
                &en(&k.editor),
                "move_periods",
                json!({ "schedule": k.schedule, "bars": [14], "by": 5, "cascade": true }),
            )
            .await;
        assert!(
            r.text.contains("3 bars and 1 milestone moved by the cascade, in working days: “Migration à blanc” +5\u{a0}d, “Recette utilisateurs” +5\u{a0}d, “Bascule en production” +5\u{a0}d, “Go-live S/4HANA” +5\u{a0}d; project end 2026-12-18 → 2026-12-28."),
            "{}",
            r.text
        );
        assert_eq!(
            r.structured["cascade"]["project_end"],
            json!({"before": "2026-12-18", "after": "2026-12-28"})
        );
        assert_eq!(
            chain(&k).await[1],
            (16, "2026-11-30".into(), "2026-12-11".into())
        );
        k.ok(&k.editor, "undo", json!({ "schedule": k.schedule }))
            .await;
        assert_eq!(k.state(k.schedule).await, before);
    }

    #[tokio::test]
    async fn auto_scheduling_pushes_by_default_and_a_lock_stops_the_whole_write() {
        let k = Kit::new("cascade-auto").await;
        k.ok(
            &k.owner,
            "update_settings",
            json!({ "schedule": k.schedule, "scheduling": "auto" }),
        )
        .await;
        let r = k
            .ok(&k.viewer, "get_schedule", json!({ "schedule": k.schedule }))
            .await;
        assert_eq!(r.structured["settings"]["scheduling"], "auto");
        assert!(r.text.contains("planification automatique"), "{}", r.text);
        // A longer cutover pushes the go-live; `cascade: false` does not.
        let r = k
            .ok(
                &k.editor,
                "resize_period",
                json!({ "schedule": k.schedule, "bar": 18, "by": 1 }),
            )
            .await;
        assert!(r.text.contains("1 jalon décalé en cascade"), "{}", r.text);
        let go_live = |s: &palmaplan_model::Schedule| s.milestones[0].date.to_string();
        assert_eq!(go_live(&k.state(k.schedule).await), "2026-12-21");
        k.ok(
            &k.editor,
            "resize_period",
            json!({ "schedule": k.schedule, "bar": 18, "by": 1, "cascade": false }),
        )
        .await;
        assert_eq!(go_live(&k.state(k.schedule).await), "2026-12-21");

        // A lock on a successor refuses the whole move, naming the item.
        k.ok(
            &k.editor,
            "lock",
            json!({ "schedule": k.schedule, "bar": 17 }),
        )
        .await;
        let before = k.state(k.schedule).await;
        let r = k
            .refused(
                &k.editor,
                "move_periods",
                json!({ "schedule": k.schedule, "bars": [16], "by": 3 }),
            )
            .await;
        assert_eq!(r.structured["error"], "locked", "{}", r.structured);
        assert_eq!(r.structured["cascade_item"], 17);
        assert!(
            r.text.contains("l'élément 17") && r.text.contains("cascade: false"),
            "{}",
            r.text
        );
        assert_eq!(k.state(k.schedule).await, before);
        // Without the cascade the move itself is allowed.
        k.ok(
            &k.editor,
            "move_periods",
            json!({ "schedule": k.schedule, "bars": [16], "by": 3, "cascade": false }),
        )
        .await;
    }

    #[tokio::test]
    async fn reschedule_mends_violated_links_and_floats_are_listed() {
        let k = Kit::new("reschedule").await;
        k.ok(
            &k.editor,
            "move_periods",
            json!({ "schedule": k.schedule, "bars": [14], "by": 5 }),
        )
        .await;
        // Preview, then write.
        let r = k
            .ok(
                &k.editor,
                "what_if",
                json!({ "schedule": k.schedule, "reschedule": {} }),
            )
            .await;
        assert_eq!(r.structured["cascade"]["bars"], json!([16, 17, 18]));
        let r = k
            .ok(
                &k.editor,
                "reschedule",
                json!({ "schedule": k.schedule, "expected_rank": r.structured["rank"] }),
            )
            .await;
        assert_eq!(r.structured["moved"], 4, "{}", r.text);
        assert!(
            r.text.contains("fin du projet 2026-12-18 → 2026-12-28"),
            "{}",
            r.text
        );
        let s = k.state(k.schedule).await;
        let cal = palmaplan_model::calendar::Calendar::for_schedule(&s);
        assert_eq!(palmaplan_model::risk::violated_links(&s, &cal), []);
        // Nothing left to do.
        let r = k
            .ok(&k.editor, "reschedule", json!({ "schedule": k.schedule }))
            .await;
        assert_eq!(r.structured["moved"], 0);
        // An unknown bar is named.
        let r = k
            .refused(
                &k.editor,
                "reschedule",
                json!({ "schedule": k.schedule, "bars": [999] }),
            )
            .await;
        assert!(r.text.contains("999"), "{}", r.text);

        // Floats: the chain is critical; the ABAP adaptation now has five days of room.
        let r = k
            .ok(
                &k.viewer,
                "schedule_floats",
                json!({ "schedule": k.schedule }),
            )
            .await;
        let items = r.structured["items"].as_array().unwrap();
        let abap = items.iter().find(|i| i["id"] == 15).unwrap();
        assert_eq!(abap["total_float"], 5, "{}", r.text);
        assert_eq!(abap["free_float"], 5);
        assert_eq!(abap["critical"], false);
        assert!(
            r.text.contains("- bloc 15 «\u{a0}Adaptation du code ABAP\u{a0}»\u{a0}: au plus tôt 2026-11-16 → 2026-12-04, au plus tard 2026-11-23 → 2026-12-11\u{202f}; marge totale 5, libre 5"),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &k.viewer,
                "schedule_floats",
                json!({ "schedule": k.schedule, "critical_only": true, "limit": 2 }),
            )
            .await;
        // The audit has room too now: the clean-up starts later than its SS link asks.
        assert_eq!(r.structured["total"], 5);
        assert_eq!(r.structured["next_offset"], 2);
    }
}

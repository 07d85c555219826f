//! The tool on date constraints and deadlines of bars and milestones: `set_constraint`
//! sets one (a date), removes one or all (null), or sets or removes the deadline (kind
//! `deadline`): one tool, so a model learns one shape; a thin wrapper over the model's
//! `set_constraint` and `set_deadline` commands (see `docs/scheduling.md` for what each
//! kind means and how scheduling honours it).
//!
//! A constraint change is a date change: with a cascade (the `cascade` argument, or
//! the schedule's `scheduling` setting) a lower bound moves the item and what follows
//! it, and a cascade that would push an item past an upper bound is refused whole
//! (`constraint_broken`, from the gate). Each answer says what the item's constraints
//! were and are, the risks the item now has (a broken constraint, a missed deadline),
//! its total float on the critical path, and what the cascade moved.
//!
//! Typography: the texts written here put a narrow no-break space before « : » and
//! « ; » and no-break spaces inside « », as French wants.

use crate::planning::Code;
use palmaplan_model::command::Command;
use palmaplan_model::{
    Constraint, ConstraintKind, Date, ItemId, Lang, MilestoneId, Schedule, cpm, risk, text, wire,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::args::{CascadeArg, date, required_nullable};
use super::periods::apply_fresh_cascading;
use super::scheduling::with_cascade;
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, Wrote, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "set_constraint",
            "Set (date) or remove (null) a date constraint, or the deadline. A milestone has one constraint; a bar its pin (start_no_earlier_than) plus one other. Lower bounds move it on cascade; pushing past an upper bound is refused. A deadline moves nothing; missing it is a risk.",
            Access::Write,
            set_constraint,
        )
        .returns::<ConstraintAnswer>(),
    ]
}

// A constraint kind, as the tool takes it, or the deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    StartNoEarlierThan,
    StartNoLaterThan,
    MustStartOn,
    FinishNoEarlierThan,
    FinishNoLaterThan,
    Deadline,
}

impl Kind {
    /// The constraint kind; `None` for the deadline.
    fn constraint(self) -> Option<ConstraintKind> {
        Some(match self {
            Kind::StartNoEarlierThan => ConstraintKind::StartNoEarlierThan,
            Kind::StartNoLaterThan => ConstraintKind::StartNoLaterThan,
            Kind::MustStartOn => ConstraintKind::MustStartOn,
            Kind::FinishNoEarlierThan => ConstraintKind::FinishNoEarlierThan,
            Kind::FinishNoLaterThan => ConstraintKind::FinishNoLaterThan,
            Kind::Deadline => return None,
        })
    }
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

/// An item's constraints in words: « début au plus tôt le 2026-11-10 et fin au plus
/// tard le 2026-11-20 », or « aucune ».
fn constraints_words(lang: Lang, cs: &[Constraint]) -> String {
    if cs.is_empty() {
        return super::tr(lang, "aucune", "none");
    }
    let words: Vec<String> = cs
        .iter()
        .map(|c| text::constraint_phrase(*c, lang))
        .collect();
    words.join(&super::tr(lang, " et ", " and "))
}

/// The refusal for an id that names no bar nor milestone, before anything is written.
fn no_item(ctx: &Ctx, id: u64) -> Refusal {
    Refusal::new(
        Code::NotFound,
        ctx.tr(
            format!("«\u{a0}item\u{a0}»\u{a0}: aucun bloc ni jalon n'a l'id {id} dans ce planning. Listez-les avec list_periods."),
            format!("“item”: no bar or milestone has id {id} in this schedule. List them with list_periods."),
        ),
    )
    .with(json!({ "field": "item", "id": id }))
}

/// An item's dates after a constraint or deadline write.
#[derive(Debug, Serialize, JsonSchema)]
struct ItemAfter {
    constraints: Vec<Constraint>,
    /// The finish-by day, null when none.
    deadline: Option<Date>,
    /// In working days; null when the plan has no critical path.
    total_float: Option<i64>,
    risks: ItemRisks,
}

/// The risks the item has after the write.
#[derive(Debug, Serialize, JsonSchema)]
struct ItemRisks {
    /// How many of its constraints the plan breaks.
    broken_constraints: usize,
    missed_deadline: bool,
}

/// A constraint set.
#[derive(Debug, Serialize, JsonSchema)]
struct ConstraintSet {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    item: ItemId,
    #[serde(flatten)]
    after: ItemAfter,
    /// The constraint set.
    set: Constraint,
    /// What the cascade moved, when it moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<wire::CascadeSummary>,
}

/// Constraints removed.
#[derive(Debug, Serialize, JsonSchema)]
struct ConstraintCleared {
    schedule_id: i64,
    /// The schedule's rank after the write (unchanged when there was nothing to remove).
    rank: i64,
    item: ItemId,
    /// The item's dates; absent when nothing was written.
    #[serde(flatten)]
    after: Option<ItemAfter>,
    /// The constraints removed.
    cleared: Vec<Constraint>,
    /// What the cascade moved, when it moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<wire::CascadeSummary>,
}

/// `set_constraint`'s result: what was set, removed, or the deadline.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum ConstraintAnswer {
    Set(ConstraintSet),
    Cleared(ConstraintCleared),
    Deadline(DeadlineSet),
}

/// A deadline's result (a deadline moves nothing: no cascade).
#[derive(Debug, Serialize, JsonSchema)]
struct DeadlineSet {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    item: ItemId,
    #[serde(flatten)]
    after: ItemAfter,
}

/// What a constraint or deadline write answers: the head line, then the item's risks,
/// its total float (the cascade is said by `with_cascade`, once the caller has built
/// the structured answer from the item's dates returned here).
fn answer(ctx: &Ctx, item: ItemId, wrote: &Wrote, head: String) -> (String, ItemAfter) {
    let s = &wrote.state;
    let lang = ctx.lang();
    let mut text = head;
    let cal = palmaplan_model::calendar::Calendar::for_schedule(s);
    let mine = risk::Risks {
        broken_constraints: risk::constraint_risks(s, &cal)
            .into_iter()
            .filter(|r| r.item == item)
            .collect(),
        missed_deadlines: risk::deadline_risks(s, &cal)
            .into_iter()
            .filter(|r| r.item == item)
            .collect(),
        ..risk::Risks::default()
    };
    let lines = text::risk_details(s, &mine, lang);
    if !lines.is_empty() {
        text.push_str(&ctx.tr("\nAttention\u{a0}:", "\nWatch out:"));
        for l in &lines {
            text.push_str("\n- ");
            text.push_str(l);
        }
    }
    let float = cpm::critical_path(s)
        .ok()
        .and_then(|cp| cp.timing(item).map(|t| (t.total_float, t.critical)));
    if let Some((f, critical)) = float {
        let days = text::working_days(f, lang);
        text.push('\n');
        text.push_str(&match (lang, critical) {
            (Lang::Fr, true) => {
                format!("Marge totale désormais\u{a0}: {days}, sur le chemin critique.")
            }
            (Lang::Fr, false) => format!("Marge totale désormais\u{a0}: {days}."),
            (Lang::En, true) => format!("Total float now: {days}, on the critical path."),
            (Lang::En, false) => format!("Total float now: {days}."),
        });
    }
    let after = ItemAfter {
        constraints: s.item_constraints(item).unwrap_or_default(),
        deadline: s.item_deadline(item),
        total_float: float.map(|(f, _)| f),
        risks: ItemRisks {
            broken_constraints: mine.broken_constraints.len(),
            missed_deadline: !mine.missed_deadlines.is_empty(),
        },
    };
    (text, after)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetConstraint {
    schedule: ScheduleRef,
    item: u64,
    /// Omitted with date null: removes every constraint (not the deadline).
    #[serde(default)]
    kind: Option<Kind>,
    /// YYYY-MM-DD; null removes.
    #[serde(deserialize_with = "required_nullable")]
    #[schemars(required)]
    date: Option<String>,
    /// "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

async fn set_constraint(ctx: Ctx, p: SetConstraint) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    match (p.kind, p.date) {
        (Some(Kind::Deadline), d) => set_deadline(ctx, id, p.item, d).await,
        (kind, None) => clear_constraint(ctx, id, p.item, kind.and_then(Kind::constraint)).await,
        (Some(kind), Some(d)) => {
            let day = date(&ctx, "date", &d)?;
            let kind = kind.constraint().unwrap_or(ConstraintKind::StartNoEarlierThan);
            set_one(ctx, id, p.item, Constraint { kind, date: day }, p.cascade).await
        }
        (None, Some(_)) => Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}kind\u{a0}»\u{a0}: dites quelle contrainte poser à cette date (start_no_earlier_than, finish_no_later_than, deadline…)\u{202f}; seul un date null peut s'en passer (il retire alors toutes les contraintes).",
                "“kind”: say which constraint to set on that date (start_no_earlier_than, finish_no_later_than, deadline…); only a null date may omit it (it then removes every constraint).",
            ),
        )
        .with(json!({ "field": "kind" }))),
    }
}

async fn set_one(
    ctx: Ctx,
    id: i64,
    item: u64,
    c: Constraint,
    cascade: Option<CascadeArg>,
) -> Result<Reply, Refusal> {
    let item = ItemId(item);
    let cmd = Command::SetConstraint {
        item,
        constraint: Some(c),
    };
    let (before, wrote, ()) = apply_fresh_cascading(&ctx, id, CascadeArg::choice(cascade), |_| {
        Ok((vec![cmd.clone()], ()))
    })
    .await?;
    let lang = ctx.lang();
    let name = item_name(lang, &wrote.state, item);
    let was = constraints_words(lang, &before.item_constraints(item).unwrap_or_default());
    let phrase = text::constraint_phrase(c, lang);
    let head = ctx.tr(
        format!(
            "{name}\u{a0}: contrainte «\u{a0}{phrase}\u{a0}» posée (avant\u{a0}: {was})\u{202f}; rang {}.",
            wrote.rank
        ),
        format!(
            "{name}: constraint “{phrase}” set (before: {was}); rank {}.",
            wrote.rank
        ),
    );
    let (text, after) = answer(&ctx, item, &wrote, head);
    let structured = json!(ConstraintAnswer::Set(ConstraintSet {
        schedule_id: id,
        rank: wrote.rank,
        item,
        after,
        set: c,
        cascade: None,
    }));
    Ok(with_cascade(&ctx, &wrote, Reply::ok(text, structured)))
}

/// The commands that remove an item's constraints (all, or the one of `kind`), and
/// those removed; no command when there is nothing to remove.
fn clearing(
    s: &Schedule,
    item: ItemId,
    kind: Option<ConstraintKind>,
) -> Option<(Vec<Command>, Vec<Constraint>)> {
    let all = s.item_constraints(item)?;
    let clear = Command::SetConstraint {
        item,
        constraint: None,
    };
    let Some(kind) = kind else {
        let cmds = if all.is_empty() { vec![] } else { vec![clear] };
        return Some((cmds, all));
    };
    let (gone, kept): (Vec<Constraint>, Vec<Constraint>) =
        all.into_iter().partition(|c| c.kind == kind);
    if gone.is_empty() {
        return Some((vec![], gone));
    }
    // `null` clears all of an item's constraints: the one to keep is set again, in
    // the same write (one undo).
    let mut cmds = vec![clear];
    cmds.extend(kept.into_iter().map(|c| Command::SetConstraint {
        item,
        constraint: Some(c),
    }));
    Some((cmds, gone))
}

async fn clear_constraint(
    ctx: Ctx,
    id: i64,
    raw_item: u64,
    kind: Option<ConstraintKind>,
) -> Result<Reply, Refusal> {
    let item = ItemId(raw_item);
    let lang = ctx.lang();
    // Nothing to remove: nothing is written, and the answer says what there is.
    let cur = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let Some((cmds, _)) = clearing(&cur.state, item, kind) else {
        return Err(no_item(&ctx, raw_item));
    };
    if cmds.is_empty() {
        let name = item_name(lang, &cur.state, item);
        let now = constraints_words(lang, &cur.state.item_constraints(item).unwrap_or_default());
        let what = kind.map_or_else(String::new, |k| {
            ctx.tr(
                format!(" «\u{a0}{}\u{a0}»", text::constraint_name(k, Lang::Fr)),
                format!(" “{}”", text::constraint_name(k, Lang::En)),
            )
        });
        return Ok(Reply::ok(
            ctx.tr(
                format!("{name} n'a pas de contrainte{what} à retirer (contraintes\u{a0}: {now})\u{202f}; rien n'a été écrit (rang {}).", cur.rank),
                format!("{name} has no constraint{what} to remove (constraints: {now}); nothing was written (rank {}).", cur.rank),
            ),
            json!(ConstraintAnswer::Cleared(ConstraintCleared {
                schedule_id: id,
                rank: cur.rank,
                item,
                after: None,
                cleared: vec![],
                cascade: None,
            })),
        ));
    }
    let (_, wrote, gone) =
        super::periods::apply_fresh(&ctx, id, |s| match clearing(s, item, kind) {
            Some((cmds, gone)) if !cmds.is_empty() => Ok((cmds, gone)),
            // Someone else removed it meanwhile: the write would do nothing.
            _ => Err(Refusal::new(
                Code::OutOfDate,
                ctx.tr(
                    "Cette contrainte vient d'être changée par quelqu'un d'autre\u{202f}; rien n'a été écrit. Relisez-la avec list_periods.",
                    "This constraint was just changed by someone else; nothing was written. Read it again with list_periods.",
                ),
            )),
        })
        .await?;
    let name = item_name(lang, &wrote.state, item);
    let removed = constraints_words(lang, &gone);
    let now = constraints_words(
        lang,
        &wrote.state.item_constraints(item).unwrap_or_default(),
    );
    let head = ctx.tr(
        format!(
            "{name}\u{a0}: contrainte retirée ({removed}), reste\u{a0}: {now}\u{202f}; rang {}.",
            wrote.rank
        ),
        format!(
            "{name}: constraint removed ({removed}), left: {now}; rank {}.",
            wrote.rank
        ),
    );
    let (text, after) = answer(&ctx, item, &wrote, head);
    let structured = json!(ConstraintAnswer::Cleared(ConstraintCleared {
        schedule_id: id,
        rank: wrote.rank,
        item,
        after: Some(after),
        cleared: gone,
        cascade: None,
    }));
    Ok(with_cascade(&ctx, &wrote, Reply::ok(text, structured)))
}

async fn set_deadline(ctx: Ctx, id: i64, item: u64, day: Option<String>) -> Result<Reply, Refusal> {
    let deadline: Option<Date> = day.as_deref().map(|d| date(&ctx, "date", d)).transpose()?;
    let item = ItemId(item);
    let cmd = Command::SetDeadline { item, deadline };
    // A deadline moves nothing: no cascade, whatever the setting.
    let (before, wrote, ()) = apply_fresh_cascading(&ctx, id, super::Cascading::Off, |_| {
        Ok((vec![cmd.clone()], ()))
    })
    .await?;
    let lang = ctx.lang();
    let name = item_name(lang, &wrote.state, item);
    let day = |d: Option<Date>| d.map_or_else(|| ctx.tr("aucune", "none"), |d| d.to_string());
    let was = day(before.item_deadline(item));
    let head = match deadline {
        Some(d) => ctx.tr(
            format!(
                "{name}\u{a0}: échéance le {d} (avant\u{a0}: {was})\u{202f}; rang {}.",
                wrote.rank
            ),
            format!("{name}: deadline {d} (before: {was}); rank {}.", wrote.rank),
        ),
        None => ctx.tr(
            format!(
                "{name}\u{a0}: échéance retirée (avant\u{a0}: {was})\u{202f}; rang {}.",
                wrote.rank
            ),
            format!(
                "{name}: deadline removed (before: {was}); rank {}.",
                wrote.rank
            ),
        ),
    };
    let (text, after) = answer(&ctx, item, &wrote, head);
    let structured = json!(ConstraintAnswer::Deadline(DeadlineSet {
        schedule_id: id,
        rank: wrote.rank,
        item,
        after,
    }));
    Ok(with_cascade(&ctx, &wrote, Reply::ok(text, structured)))
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::{Kit, en, visible};
    use palmaplan_model::{BarId, ConstraintKind, ItemId};
    use serde_json::json;

    #[tokio::test]
    async fn a_constraint_is_set_shown_and_cleared_in_one_undoable_write_each() {
        let k = Kit::new("constraint-set").await;
        let before = k.state(k.schedule).await;
        assert!(before.bar(BarId(17)).is_some());
        // « Recette utilisateurs » (bar 17, 12-07 to 12-11) must finish by the 9th:
        // the plan breaks it by two working days, and the chain to the go-live
        // becomes critical with negative float.
        let r = k
            .ok(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 17, "kind": "finish_no_later_than", "date": "2026-12-09" }),
            )
            .await;
        assert_eq!(
            visible(&r.text),
            "«⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: contrainte «⟨nbsp⟩fin au plus tard le 2026-12-09⟨nbsp⟩» posée (avant⟨nbsp⟩: aucune)⟨nnbsp⟩; rang 1.\nAttention⟨nbsp⟩:\n- «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: contrainte «⟨nbsp⟩fin au plus tard le 2026-12-09⟨nbsp⟩» non respectée de 2 jours ouvrés.\nMarge totale désormais⟨nbsp⟩: -2 jours ouvrés, sur le chemin critique."
        );
        assert_eq!(
            r.structured["constraints"],
            json!([{"kind": "finish_no_later_than", "date": "2026-12-09"}])
        );
        assert_eq!(r.structured["total_float"], -2);
        assert_eq!(r.structured["risks"]["broken_constraints"], 1);
        // list_periods shows it; get_schedule and schedule_risks list the risk.
        let l = k
            .ok(
                &k.viewer,
                "list_periods",
                json!({ "schedule": k.schedule, "row": 11 }),
            )
            .await;
        assert!(
            visible(&l.text).ends_with(
                "(ligne «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩», 11)⟨nnbsp⟩; fin au plus tard le 2026-12-09"
            ),
            "{}",
            l.text
        );
        assert_eq!(
            l.structured["items"][0]["constraints"],
            json!([{"kind": "finish_no_later_than", "date": "2026-12-09"}])
        );
        let g = k
            .ok(&k.viewer, "get_schedule", json!({ "schedule": k.schedule }))
            .await;
        assert!(g.text.contains("1 contrainte non respectée"), "{}", g.text);
        assert_eq!(g.structured["risks"]["broken_constraints"], 1);
        let risks = k
            .ok(
                &en(&k.viewer),
                "schedule_risks",
                json!({ "schedule": k.schedule }),
            )
            .await;
        assert!(
            risks.text.contains("“Recette utilisateurs” (bar 17): constraint “finish no later than 2026-12-09” broken by 2 working days."),
            "{}",
            risks.text
        );
        assert_eq!(
            risks.structured["broken_constraints"][0],
            json!({"item": 17, "kind": "finish_no_later_than", "date": "2026-12-09", "by_days": 2})
        );

        // A pin beside it, then clearing only the pin keeps the other one.
        k.ok(
            &k.editor,
            "set_constraint",
            json!({ "schedule": k.schedule, "item": 17, "kind": "start_no_earlier_than", "date": "2026-12-07" }),
        )
        .await;
        let s = k.state(k.schedule).await;
        assert_eq!(s.item_constraints(ItemId(17)).unwrap().len(), 2);
        let r = k
            .ok(
                &en(&k.editor),
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 17, "kind": "start_no_earlier_than", "date": null }),
            )
            .await;
        assert!(
            r.text.starts_with("“Recette utilisateurs” (bar 17): constraint removed (start no earlier than 2026-12-07), left: finish no later than 2026-12-09; rank 3."),
            "{}",
            r.text
        );
        let s = k.state(k.schedule).await;
        assert_eq!(s.bar(palmaplan_model::BarId(17)).unwrap().pin, None);
        // Clearing a kind it does not have writes nothing.
        let r = k
            .ok(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 17, "kind": "must_start_on", "date": null }),
            )
            .await;
        assert_eq!(r.structured["rank"], 3, "{}", r.text);
        assert!(r.text.contains("rien n'a été écrit"), "{}", r.text);
        // Clearing all, then one undo per write brings the demo back.
        let r = k
            .ok(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 17, "date": null }),
            )
            .await;
        assert_eq!(r.structured["rank"], 4);
        assert_eq!(r.structured["constraints"], json!([]));
        assert!(!r.text.contains("Attention"), "{}", r.text);
        for _ in 0..4 {
            k.ok(&k.editor, "undo", json!({ "schedule": k.schedule }))
                .await;
        }
        assert_eq!(k.state(k.schedule).await, before);
        // The change list of a constraint is "not shown" on the chart.
        let r = k
            .ok(
                &k.editor,
                "what_if",
                json!({ "schedule": k.schedule, "commands": [{"op": "set_constraint", "item": 19, "constraint": {"kind": "must_start_on", "date": "2026-12-18"}}] }),
            )
            .await;
        assert!(
            r.text.contains("Contrainte de «\u{a0}Go-live S/4HANA\u{a0}» (jalon 19)\u{a0}: aucune → doit commencer le 2026-12-18"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn a_cascade_that_would_break_a_constraint_is_refused_naming_it() {
        let k = Kit::new("constraint-cascade").await;
        // The cutover (bar 18, 12-14 to 12-17) must finish by the 17th; the clean-up
        // (14) five days later would push it to the 24th.
        k.ok(
            &k.editor,
            "set_constraint",
            json!({ "schedule": k.schedule, "item": 18, "kind": "finish_no_later_than", "date": "2026-12-17" }),
        )
        .await;
        let before = k.state(k.schedule).await;
        let r = k
            .refused(
                &k.editor,
                "move_periods",
                json!({ "schedule": k.schedule, "bars": [14], "by": 5, "cascade": true }),
            )
            .await;
        assert_eq!(
            r.structured["error"], "constraint_broken",
            "{}",
            r.structured
        );
        assert_eq!(r.structured["cascade_item"], 18);
        assert_eq!(
            r.structured["constraint"],
            json!({"kind": "finish_no_later_than", "date": "2026-12-17"})
        );
        assert_eq!(r.structured["by_days"], 5);
        assert!(
            visible(&r.text).contains("ferait finir l'élément 18 «⟨nbsp⟩Bascule en production⟨nbsp⟩» 5 jours ouvrés trop tard pour sa contrainte «⟨nbsp⟩fin au plus tard le 2026-12-17⟨nbsp⟩»"),
            "{}",
            r.text
        );
        assert_eq!(k.state(k.schedule).await, before, "nothing written");
        // what_if says the same, and so does reschedule after a manual move.
        let r = k
            .refused(
                &en(&k.editor),
                "what_if",
                json!({ "schedule": k.schedule, "cascade": true, "commands": [{"op": "move_periods", "bars": [14], "by": 5}] }),
            )
            .await;
        assert_eq!(r.structured["error"], "constraint_broken", "{}", r.text);
        assert!(
            r.text.contains("finish 5 working days too late"),
            "{}",
            r.text
        );
        assert!(r.text.ends_with("Nothing was simulated."), "{}", r.text);
        k.ok(
            &k.editor,
            "move_periods",
            json!({ "schedule": k.schedule, "bars": [14], "by": 5, "cascade": false }),
        )
        .await;
        let r = k
            .refused(
                &en(&k.editor),
                "reschedule",
                json!({ "schedule": k.schedule }),
            )
            .await;
        assert_eq!(r.structured["error"], "constraint_broken");
        assert!(
            r.text.starts_with("Rescheduling would make item 18 “Bascule en production” finish 5 working days too late for its constraint “finish no later than 2026-12-17”: nothing was written."),
            "{}",
            r.text
        );
        // Without the cascade, the move is written and the risk listed.
        let s = k.state(k.schedule).await;
        assert_eq!(
            palmaplan_model::risk::risks(&s).broken_constraints,
            [],
            "the cutover itself did not move"
        );
    }

    #[tokio::test]
    async fn a_lower_bound_moves_the_item_when_the_write_cascades() {
        let k = Kit::new("constraint-lower").await;
        // The go-live must start on Monday 21 (the demo is manual: pass cascade).
        let r = k
            .ok(
                &en(&k.editor),
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 19, "kind": "must_start_on", "date": "2026-12-21", "cascade": true }),
            )
            .await;
        assert!(
            r.text.contains("1 milestone moved by the cascade"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["cascade"]["milestones"], json!([19]));
        let s = k.state(k.schedule).await;
        assert_eq!(s.milestones[0].date.to_string(), "2026-12-21");
        assert_eq!(
            s.item_constraints(ItemId(19)).unwrap()[0].kind,
            ConstraintKind::MustStartOn
        );
    }

    #[tokio::test]
    async fn deadlines_are_set_cleared_and_refused_where_no_item_is() {
        let k = Kit::new("deadline").await;
        // The go-live (12-18) is due on the 16th: missed by two working days.
        let r = k
            .ok(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 19, "date": "2026-12-16", "kind": "deadline" }),
            )
            .await;
        assert_eq!(
            visible(&r.text),
            "«⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: échéance le 2026-12-16 (avant⟨nbsp⟩: aucune)⟨nnbsp⟩; rang 1.\nAttention⟨nbsp⟩:\n- «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: échéance dépassée de 2 jours ouvrés (échéance le 2026-12-16).\nMarge totale désormais⟨nbsp⟩: -2 jours ouvrés, sur le chemin critique."
        );
        assert_eq!(r.structured["deadline"], "2026-12-16");
        assert_eq!(r.structured["risks"]["missed_deadline"], true);
        // The bars that miss it are at risk in the view's highlights.
        let s = k.state(k.schedule).await;
        k.ok(
            &k.editor,
            "set_constraint",
            json!({ "schedule": k.schedule, "item": 18, "date": "2026-12-16", "kind": "deadline" }),
        )
        .await;
        let s2 = k.state(k.schedule).await;
        assert!(
            !palmaplan_model::risk::highlights(&s)
                .at_risk
                .contains(&palmaplan_model::BarId(18))
        );
        assert!(
            palmaplan_model::risk::highlights(&s2)
                .at_risk
                .contains(&palmaplan_model::BarId(18))
        );
        // One day is singular.
        let r = k
            .ok(
                &en(&k.editor),
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 19, "date": "2026-12-17", "kind": "deadline" }),
            )
            .await;
        assert!(
            r.text
                .contains("deadline missed by 1 working day (deadline 2026-12-17)"),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &en(&k.editor),
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 19, "date": null, "kind": "deadline" }),
            )
            .await;
        assert!(
            r.text.starts_with(
                "“Go-live S/4HANA” (milestone 19): deadline removed (before: 2026-12-17); rank 4."
            ),
            "{}",
            r.text
        );
        // Refusals: no such item, not a date, a viewer, and `date` left out.
        let r = k
            .refused(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 999999, "date": "2026-12-16", "kind": "deadline" }),
            )
            .await;
        assert!(r.text.contains("999999"), "{}", r.text);
        let r = k
            .refused(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 17, "kind": "must_start_on", "date": "le 16" }),
            )
            .await;
        assert!(r.text.contains("AAAA-MM-JJ"), "{}", r.text);
        let r = k
            .refused(
                &k.viewer,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 17, "date": null }),
            )
            .await;
        assert_eq!(r.structured["error"], "forbidden");
        let r = k
            .refused(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 19, "kind": "deadline" }),
            )
            .await;
        assert!(r.text.contains("date"), "{}", r.text);
        let r = k
            .refused(
                &k.editor,
                "set_constraint",
                json!({ "schedule": k.schedule, "item": 999999, "date": null }),
            )
            .await;
        assert!(r.text.contains("999999"), "{}", r.text);
        assert_eq!(k.state(k.schedule).await.milestones[0].deadline, None);
    }
}

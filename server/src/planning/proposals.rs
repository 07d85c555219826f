//! Before/after: `what_if` (a proposal: the model's commands simulated on the current
//! state, nothing written) and `diff_versions` (a comparison of two saved versions, or
//! a version and now). Both answer the same shape: the change list (the model's `diff`
//! and `text::change_list`), the project end before and after, the new absence risks
//! and violated links, and the "changes not shown" (what a Gantt chart cannot draw:
//! settings, a row's member, notes...).
//!
//! A proposal carries the rank it was made at and its commands as applied (ids filled
//! in), so "Accept" is `apply_patch` with exactly these commands at that rank: the
//! storage writes only if the schedule has not moved since, decided in the very
//! transaction that writes. A proposal with changes not shown is flagged `acceptable:
//! false`, and the view does not offer "Accept" for it: what is accepted must be what
//! was seen.
//!
//! Both tools are `with_view`: for MCP Apps clients the MCP adapter points them at the
//! view resource (the before/after chart). Their text stands on its own for hosts
//! without MCP Apps, and their structuredContent stays compact (counts, ids, the
//! commands): the view recomputes the before/after itself with the same model. The
//! person reads the same changes in `_meta` (`text::change_list_for_person`): by the
//! items' labels, without the ids, the rank and the tools the model acts with.
//!
//! Private data never shows: `diff` does not carry e-mails nor absence reasons, and
//! the texts never write them.

use crate::planning::Code;
use palmaplan_model::command;
use palmaplan_model::diff::{self, Diff};
use palmaplan_model::{BarId, Schedule, text, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::edits::command as parse_command;
use super::versions::{VersionRef, find};
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, role_name, tool};
use crate::storage::Role;

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "what_if",
            "Simulate commands WITHOUT writing: moves, project end, new risks. To accept: apply_patch with its commands and expected_rank = its rank; structuredContent.refused says why you could not.",
            Access::Read,
            what_if,
        )
        .used_by_view()
        .with_view()
        .returns::<wire::Proposal>(),
        tool(
            "diff_versions",
            "Compare two versions or \"current\": moves, project end before/after, new risks.",
            Access::Read,
            diff_versions,
        )
        .used_by_view()
        .with_view()
        .returns::<wire::Comparison>(),
    ]
}

/// Why the person could not accept a proposal, in their words: what the gate's
/// refusal says in its details (`why`: the role it takes, someone else's lock, a
/// member's private data), not the command numbers and tools of the model's text.
fn refused_for_person(ctx: &Ctx, r: &Refusal) -> String {
    let role = |key: &str| {
        r.details
            .get(key)
            .and_then(Value::as_str)
            .and_then(Role::parse)
            .map(|role| role_name(role, ctx.lang()))
    };
    let why = r.details.get("why").and_then(Value::as_str);
    let reason = match (why, role("needed"), role("role")) {
        // The gate's role refusals say so; the schedule's door's (a link's cap, a role
        // below) give the two roles alone.
        (Some("role") | None, Some(needed), Some(yours)) if r.code == Code::Forbidden => Some(ctx.tr(
            format!("il faut le rôle {needed}\u{202f}; vous avez le rôle {yours}"),
            format!("they need the {needed} role; you have the {yours} role"),
        )),
        (Some("unlock"), ..) => Some(ctx.tr(
            "ils retireraient le verrou de quelqu'un d'autre, que seuls cette personne et les propriétaires du planning peuvent retirer".to_owned(),
            "they would remove someone else's lock, which only they and the schedule's owners may remove".to_owned(),
        )),
        (Some("personal"), ..) => Some(ctx.tr(
            "seuls les propriétaires du planning et le membre lui-même peuvent changer son adresse e-mail ou le motif de ses absences".to_owned(),
            "only the schedule's owners and the member themself may change their e-mail or the reason for their absences".to_owned(),
        )),
        _ => None,
    };
    match reason {
        Some(reason) => ctx.tr(
            format!("Vous ne pourriez pas appliquer ces changements\u{a0}: {reason}."),
            format!("You could not apply these changes: {reason}."),
        ),
        None => ctx.tr(
            "Vous ne pourriez pas appliquer ces changements.",
            "You could not apply these changes.",
        ),
    }
}

/// How many changed items the structured answer names (the text lists up to
/// `text::LIST_CAP`; the view recomputes everything itself).
const ITEMS_CAP: usize = 50;

/// The compact structured form of a diff: counts, kinds and ids.
fn diff_summary(d: &Diff) -> wire::DiffSummary {
    // Each change whole (kind, ids, labels, old and new dates): the view draws the
    // proposed state from them over the current one.
    let changes = d
        .changes
        .iter()
        .take(ITEMS_CAP)
        .map(|c| wire::ChangeItem {
            change: c.clone(),
            id: c.id(),
        })
        .collect();
    let not_shown = d
        .not_shown
        .iter()
        .take(ITEMS_CAP)
        .map(|n| wire::Unshown {
            kind: serde_json::to_value(n)
                .ok()
                .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default(),
            id: n.id(),
        })
        .collect();
    let mut at_risk: Vec<BarId> = d.new_risks.bars_at_risk().into_iter().collect();
    at_risk.sort_unstable();
    at_risk.truncate(ITEMS_CAP);
    let shift = match (d.end_before, d.end_after) {
        (Some(b), Some(a)) => Some(b.days_until(a)),
        _ => None,
    };
    wire::DiffSummary {
        changes: wire::Listed {
            count: d.changes.len(),
            items: changes,
        },
        not_shown: wire::Listed {
            count: d.not_shown.len(),
            items: not_shown,
        },
        end_before: d.end_before,
        end_after: d.end_after,
        end_shift_days: shift,
        new_risks: wire::NewRisks {
            violated_links: d.new_risks.violated_links.len(),
            absence_risks: d.new_risks.absence_risks.len(),
            broken_constraints: d.new_risks.broken_constraints.len(),
            missed_deadlines: d.new_risks.missed_deadlines.len(),
            bars: at_risk,
        },
    }
}

// ---- what_if

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WhatIf {
    schedule: ScheduleRef,
    /// apply_patch's (describe_patch); may be empty with reschedule.
    // Objects here, the op names once in the list (apply_patch's): the same language.
    #[serde(default)]
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    commands: Vec<Value>,
    /// The answer's commands include every move.
    #[serde(default)]
    cascade: Option<super::args::CascadeArg>,
    /// Then simulate reschedule ({}: everything).
    #[serde(default)]
    reschedule: Option<super::scheduling::Scope>,
    /// "compact": a one-line expandable card.
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "read by the view from the tool input, not by the server"
    )]
    display: Option<super::show::Display>,
}

async fn what_if(ctx: Ctx, p: WhatIf) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.commands.is_empty() && p.reschedule.is_none() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}commands\u{a0}» est vide\u{a0}: donnez les commandes à simuler, par exemple [{\"op\":\"move_periods\",\"bars\":[14],\"by\":5}], ou «\u{a0}reschedule\u{a0}».",
                "“commands” is empty: give the commands to simulate, e.g. [{\"op\":\"move_periods\",\"bars\":[14],\"by\":5}], or “reschedule”.",
            ),
        ));
    }
    let commands = p
        .commands
        .into_iter()
        .map(|c| parse_command(&ctx, c))
        .collect::<Result<Vec<_>, _>>()?;
    let commands = ctx.signed(commands).await?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let before = &stored.state;
    let cascade = super::args::CascadeArg::choice(p.cascade).on(before);
    let not_simulated = |e: command::ApplyError| {
        let text = ctx.tr(
            format!("{} Rien n'a été simulé.", e.message(ctx.lang())),
            format!("{} Nothing was simulated.", e.message(ctx.lang())),
        );
        let refusal = ctx.invalid_with(&e, text);
        // The card shows a refused simulation to the person too.
        match e.person_message(before, ctx.lang()) {
            Some(person) => refusal.for_person(person),
            None => refusal,
        }
    };
    let mut after = before.clone();
    let mut applied =
        command::apply_cascading(&mut after, &commands, cascade).map_err(not_simulated)?;
    if let Some(scope) = &p.reschedule {
        let moves = super::scheduling::reschedule_moves(&ctx, &after, scope)?;
        let more = command::apply_in_place(&mut after, &palmaplan_model::push::commands(&moves))
            .map_err(not_simulated)?;
        applied.applied.extend(more.applied);
        // An item both the cascade and the reschedule moved is listed once: from where
        // it was to where it ends.
        for m in moves {
            match applied.cascade.iter_mut().find(|c| c.item == m.item) {
                Some(c) => {
                    c.to = m.to;
                    c.by_days += m.by_days;
                }
                None => applied.cascade.push(m),
            }
        }
        applied.cascade.retain(|m| m.from != m.to);
        palmaplan_model::order::sort_by_u64(&mut applied.cascade, |m| m.item.0);
    }
    // The verdict the write would get, decided by the same gate: anyone who may read
    // the schedule may simulate, but a proposal the caller could not write says why
    // and is not offered for acceptance.
    let refused = match ctx.may_write(id, &applied.applied, before).await {
        Ok(()) => None,
        Err(r) if r.code == Code::Storage => return Err(r),
        Err(r) => Some(r),
    };
    let d = diff::diff(before, &after);
    let rank = stored.rank;
    let acceptable = !d.is_empty() && d.not_shown.is_empty() && refused.is_none();
    let mut text = ctx.tr(
        format!(
            "Simulation sur le planning {id} «\u{a0}{}\u{a0}» au rang {rank}\u{a0}: rien n'a été écrit.\n",
            before.name
        ),
        format!(
            "Simulation on schedule {id} “{}” at rank {rank}: nothing was written.\n",
            before.name
        ),
    );
    // What the person reads under the before/after (the view's change list): what
    // changes, the ends and the risks, with items named by their labels; not the ids
    // nor the tools the model acts with.
    let mut person = String::new();
    if let Some(sentence) = text::cascade_summary(
        &after,
        &applied.cascade,
        before.span().map(|(_, e)| e),
        ctx.lang(),
    ) {
        for t in [&mut text, &mut person] {
            t.push_str(&sentence);
            t.push('\n');
        }
    }
    text.push_str(&text::change_list(before, &d, ctx.lang()));
    text.push('\n');
    person.push_str(&text::change_list_for_person(before, &d, ctx.lang()));
    let held = super::scheduling::end_once_links_hold(&after);
    if let Some(line) = super::scheduling::ends_line_with(&ctx, &after, held) {
        text.push_str(&line);
        text.push('\n');
    }
    if let Some(line) = super::scheduling::ends_line_for_person(&ctx, &after, held) {
        person.push('\n');
        person.push_str(&line);
    }
    if let Some(r) = &refused {
        person.push('\n');
        person.push_str(&refused_for_person(&ctx, r));
    }
    text.push_str(&if let Some(r) = &refused {
        ctx.tr(
            format!("Vous ne pourriez pas appliquer ces changements\u{a0}: {}", r.text),
            format!("You could not apply these changes: {}", r.text),
        )
    } else if d.is_empty() {
        ctx.tr(
            "Ces commandes ne changeraient rien\u{a0}: il n'y a rien à appliquer.",
            "These commands would change nothing: there is nothing to apply.",
        )
    } else if acceptable {
        ctx.tr(
            format!("Pour appliquer exactement ces changements\u{a0}: apply_patch avec les commandes de cette réponse (structuredContent.commands), cascade: false (elles contiennent déjà ce que la cascade décale) et expected_rank = {rank}\u{202f}; si le planning a changé entre-temps, rien ne sera écrit."),
            format!("To apply exactly these changes: apply_patch with this answer's commands (structuredContent.commands), cascade: false (they already hold what the cascade moves) and expected_rank = {rank}; if the schedule has changed in between, nothing will be written."),
        )
    } else {
        let n = d.not_shown.len();
        ctx.tr(
            format!("Changements non montrés\u{a0}: {n} (listés ci-dessus), que le diagramme ne peut pas dessiner\u{202f}; la vue ne propose donc pas «\u{a0}Accepter\u{a0}». apply_patch avec ces commandes et expected_rank = {rank} reste possible après les avoir relus."),
            format!("Changes not shown: {n} (listed above), which the chart cannot draw; so the view does not offer “Accept”. apply_patch with these commands and expected_rank = {rank} is still possible after reading them."),
        )
    });
    let refused = refused.map(|r| {
        let mut why = serde_json::Map::new();
        why.insert("error".into(), json!(r.code));
        if let Value::Object(details) = r.details {
            why.extend(details);
        }
        why
    });
    let cascade = (!applied.cascade.is_empty()).then(|| {
        super::scheduling::cascade_summary(&applied.cascade, before.span().map(|(_, e)| e), &after)
    });
    let structured = json!(wire::Proposal {
        schedule_id: id,
        kind: wire::ProposalKind::Proposal,
        rank,
        acceptable,
        commands: applied.applied,
        // The commands are final (any cascade is in them): apply_patch them without one.
        apply_with: wire::ApplyWith {
            cascade: false,
            expected_rank: rank,
        },
        diff: diff_summary(&d),
        cascade,
        refused,
    });
    Ok(Reply::ok(text, structured).for_person(person))
}

// ---- diff_versions

// One side of a comparison: a saved version, or the schedule as it is now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Side {
    Id(i64),
    /// Or "current" (now).
    Name(String),
}

/// What a side resolved to: its state and how to name it.
struct Resolved {
    state: Schedule,
    rank: i64,
    /// None for the current state.
    version: Option<(i64, String)>,
}

async fn resolve(ctx: &Ctx, id: i64, side: &Side) -> Result<Resolved, Refusal> {
    let vref = match side {
        Side::Name(n) if n.trim().eq_ignore_ascii_case("current") => {
            let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
            return Ok(Resolved {
                state: stored.state,
                rank: stored.rank,
                version: None,
            });
        }
        Side::Name(n) => VersionRef::Name(n.clone()),
        Side::Id(v) => VersionRef::Id(*v),
    };
    let info = find(ctx, id, &vref).await?;
    let Some((info, state)) = ctx
        .store()
        .version_state(id, info.id)
        .await
        .map_err(|e| ctx.db_error(e))?
    else {
        return Err(Refusal::new(
            Code::VersionNotFound,
            ctx.tr(
                "Cette version vient d'être supprimée. Appelez list_versions.",
                "This version was just deleted. Call list_versions.",
            ),
        ));
    };
    Ok(Resolved {
        state,
        rank: info.rank,
        version: Some((info.id, info.name)),
    })
}

/// "la version « Baseline » (id 3, rang 0)" / "the current state (rank 5)".
fn side_name(ctx: &Ctx, r: &Resolved) -> String {
    match &r.version {
        Some((vid, name)) => ctx.tr(
            format!(
                "la version «\u{a0}{name}\u{a0}» (id {vid}, rang {})",
                r.rank
            ),
            format!("version “{name}” (id {vid}, rank {})", r.rank),
        ),
        None => ctx.tr(
            format!("l'état actuel (rang {})", r.rank),
            format!("the current state (rank {})", r.rank),
        ),
    }
}

fn side(r: &Resolved) -> wire::Side {
    match &r.version {
        Some((vid, name)) => wire::Side {
            version: Some(*vid),
            name: name.clone(),
            rank: r.rank,
        },
        None => wire::Side {
            version: None,
            name: "current".into(),
            rank: r.rank,
        },
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DiffVersions {
    schedule: ScheduleRef,
    from: Side,
    to: Side,
    /// "compact": a one-line expandable card.
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "read by the view from the tool input, not by the server"
    )]
    display: Option<super::show::Display>,
}

async fn diff_versions(ctx: Ctx, p: DiffVersions) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let from = resolve(&ctx, id, &p.from).await?;
    let to = resolve(&ctx, id, &p.to).await?;
    let d = diff::diff(&from.state, &to.state);
    let mut text = ctx.tr(
        format!(
            "Comparaison du planning {id} (lecture seule, rien n'a été écrit), de {} à {}\u{a0}:\n",
            side_name(&ctx, &from),
            side_name(&ctx, &to)
        ),
        format!(
            "Comparison of schedule {id} (read-only, nothing was written), from {} to {}:\n",
            side_name(&ctx, &from),
            side_name(&ctx, &to)
        ),
    );
    text.push_str(&text::change_list(&from.state, &d, ctx.lang()));
    let mut person = text::change_list_for_person(&from.state, &d, ctx.lang());
    // The project end above is the plan's; where the compared state breaks links, the
    // end once they hold is said too.
    let held = super::scheduling::end_once_links_hold(&to.state);
    if let Some(line) = super::scheduling::ends_line_with(&ctx, &to.state, held) {
        text.push('\n');
        text.push_str(&line);
    }
    if let Some(line) = super::scheduling::ends_line_for_person(&ctx, &to.state, held) {
        person.push('\n');
        person.push_str(&line);
    }
    let current = ctx.store().rank(id).await.map_err(|e| ctx.db_error(e))?;
    let structured = json!(wire::Comparison {
        schedule_id: id,
        kind: wire::ComparisonKind::Comparison,
        rank: current,
        from: side(&from),
        to: side(&to),
        acceptable: false,
        read_only: true,
        diff: diff_summary(&d),
    });
    Ok(Reply::ok(text, structured).for_person(person))
}

#[cfg(test)]
mod tests {
    use super::super::PERSON_TEXT;
    use super::super::journal_testkit::Kit;
    use super::*;

    #[tokio::test]
    async fn a_proposal_writes_nothing_and_applies_at_its_rank() {
        let k = Kit::new("what-if").await;
        let id = k.schedule;
        let before = k.state().await;
        let r = k
            .ok(
                &k.bob,
                "what_if",
                json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [14], "by": 5}]}),
            )
            .await;
        assert_eq!(k.state().await, before, "nothing written");
        assert_eq!(r.structured["rank"], 0);
        assert_eq!(r.structured["acceptable"], true);
        assert_eq!(r.structured["changes"]["count"], 1, "{}", r.structured);
        assert!(r.text.contains("rien n'a été écrit"), "{}", r.text);
        assert!(r.text.contains("expected_rank = 0"), "{}", r.text);
        // The view shows the person the changes, not how a model accepts them.
        let person = r.meta[PERSON_TEXT].as_str().unwrap();
        assert!(person.contains("Nettoyage des données"), "{person}");
        assert!(
            !person.contains("apply_patch") && !person.contains("expected_rank"),
            "{person}"
        );
        // Items by their labels, links by their ends: the ids and the tool that
        // replans are the model's (its text keeps them).
        assert!(
            person.contains("Lien FS «\u{a0}Nettoyage des données\u{a0}» → «\u{a0}Migration à blanc\u{a0}» non respecté de 5 jours ouvrés."),
            "{person}"
        );
        for model_only in ["(bloc ", "Lien 22", "reschedule"] {
            assert!(!person.contains(model_only), "{model_only}: {person}");
            assert!(r.text.contains(model_only), "{model_only}: {}", r.text);
        }
        // The viewer may simulate, not apply: the answer says why, as the write would.
        let v = k
            .ok(
                &k.carol,
                "what_if",
                json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [14], "by": 5}]}),
            )
            .await;
        assert_eq!(v.structured["acceptable"], false);
        assert_eq!(v.structured["refused"]["error"], "forbidden");
        assert_eq!(v.structured["refused"]["needed"], "editor");
        assert!(
            v.text.contains("Vous ne pourriez pas appliquer"),
            "{}",
            v.text
        );
        // The person reads the role it takes, not the model's command numbers.
        let person = v.meta[PERSON_TEXT].as_str().unwrap();
        assert!(
            person.ends_with("Vous ne pourriez pas appliquer ces changements\u{a0}: il faut le rôle éditeur\u{202f}; vous avez le rôle lecteur."),
            "{person}"
        );
        for model_only in ["move_periods", "commande 1", "(bloc "] {
            assert!(!person.contains(model_only), "{model_only}: {person}");
        }
        let cmds = r.structured["commands"].clone();
        k.ok(
            &k.bob,
            "apply_patch",
            json!({"schedule": id, "commands": cmds, "expected_rank": 0}),
        )
        .await;
        // A second proposal made at rank 0 is now out of date.
        k.refused(
            &k.alice,
            "apply_patch",
            json!({"schedule": id, "commands": cmds, "expected_rank": 0}),
            "out_of_date",
        )
        .await;
    }

    #[tokio::test]
    async fn changes_not_shown_make_a_proposal_unacceptable() {
        let k = Kit::new("what-if-hidden").await;
        let id = k.schedule;
        let r = k
            .ok(
                &k.bob,
                "what_if",
                json!({"schedule": id, "commands": [{"op": "set_schedule_notes", "notes": "Revue"}]}),
            )
            .await;
        assert_eq!(r.structured["acceptable"], false);
        assert_eq!(r.structured["not_shown"]["count"], 1);
        let r = k
            .refused(
                &k.bob,
                "what_if",
                json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [999], "by": 5}]}),
                "invalid_command",
            )
            .await;
        assert!(r.text.contains("Rien n'a été simulé"), "{}", r.text);
        k.refused(
            &k.bob,
            "what_if",
            json!({"schedule": id, "commands": []}),
            "invalid_arguments",
        )
        .await;
    }

    #[tokio::test]
    async fn versions_compare_read_only() {
        let k = Kit::new("diff-versions").await;
        let id = k.schedule;
        k.ok(
            &k.bob,
            "save_version",
            json!({"schedule": id, "name": "Base"}),
        )
        .await;
        k.ok(
            &k.bob,
            "move_periods",
            json!({"schedule": id, "bars": [14], "by": 2}),
        )
        .await;
        let r = k
            .ok(
                &k.carol,
                "diff_versions",
                json!({"schedule": id, "from": "base", "to": "current"}),
            )
            .await;
        assert_eq!(k.rank().await, 1, "nothing written");
        assert_eq!(r.structured["rank"], 1);
        assert_eq!(r.structured["changes"]["count"], 1, "{}", r.structured);
        assert_eq!(r.structured["from"]["name"], "Base");
        assert_eq!(r.structured["to"]["version"], Value::Null);
        assert!(
            r.text.contains("la version «\u{a0}Base\u{a0}»"),
            "{}",
            r.text
        );
        // The person reads the change by the bar's label; the model, with its id.
        let person = r.meta[PERSON_TEXT].as_str().unwrap();
        assert!(
            person.contains("- «\u{a0}Nettoyage des données\u{a0}»\u{a0}: 2026-11-09 → "),
            "{person}"
        );
        assert!(!person.contains("(bloc 14)"), "{person}");
        assert!(r.text.contains("(bloc 14)"), "{}", r.text);
        k.refused(
            &k.carol,
            "diff_versions",
            json!({"schedule": id, "from": "Nope", "to": "current"}),
            "version_not_found",
        )
        .await;
    }
}

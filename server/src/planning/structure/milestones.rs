//! Tools on milestones: dated points on a row (a go-live, a delivery) that links can
//! join like bars. Moving one says which of its links it now breaks, since that is the
//! usual surprise of moving a milestone.

use palmaplan_model::command::Command;
use palmaplan_model::wire::CascadeSummary;
use palmaplan_model::{Date, MilestoneId, RowId, Schedule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    Removed, Watch, inverse_of, nothing_to_change, nullable, push_risks, quote, rank, risk_lines,
    touches,
};
use crate::planning::args::{CascadeArg, date};
use crate::planning::scheduling::with_cascade;
use crate::planning::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, Wrote, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "add_milestone",
            "Add a milestone (a dated point, reached at the end of its day) to a row.",
            Access::Write,
            add_milestone,
        )
        .returns::<MilestoneAdded>(),
        tool(
            "update_milestone",
            "Change a milestone's label, colour, notes, row or date (a new date says which of its links it breaks).",
            Access::Write,
            update_milestone,
        )
        .returns::<MilestoneChanged>(),
    ]
}

/// "« Go-live » (19)", or the bare id.
fn named(ctx: &Ctx, s: &Schedule, id: MilestoneId) -> String {
    match s.milestone(id) {
        Some(m) => quote(ctx, &m.label, id),
        None => id.to_string(),
    }
}

/// Appends the violated links that touch a milestone.
fn push_link_risks(ctx: &Ctx, text: &mut String, wrote: &Wrote, m: MilestoneId) {
    let item = m.into();
    let lines = risk_lines(ctx, &wrote.state, Watch::Links(&|v| touches(v, item)));
    push_risks(ctx, text, &lines);
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddMilestone {
    schedule: ScheduleRef,
    row: u64,
    label: String,
    /// YYYY-MM-DD.
    date: String,
    /// "#rrggbb".
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    notes: Option<String>,
}

/// `add_milestone`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct MilestoneAdded {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    /// The new milestone's id.
    milestone: MilestoneId,
    date: Date,
}

async fn add_milestone(ctx: Ctx, p: AddMilestone) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let day = date(&ctx, "date", &p.date)?;
    let cmd = Command::AddMilestone {
        id: None,
        row: RowId(p.row),
        label: p.label.clone(),
        date: day,
        color: p.color,
        notes: p.notes,
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let m = match wrote.applied.first() {
        Some(Command::AddMilestone { id: Some(m), .. }) => *m,
        _ => MilestoneId(0),
    };
    let row = wrote
        .state
        .row(RowId(p.row))
        .map_or(p.row.to_string(), |r| quote(&ctx, &r.name, r.id));
    let text = ctx.tr(
        format!(
            "Jalon «\u{a0}{}\u{a0}» ajouté (id {m}) le {day} sur la ligne {row}\u{202f}; {}.",
            p.label,
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Milestone “{}” added (id {m}) on {day} on row {row}; {}.",
            p.label,
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(MilestoneAdded {
            schedule_id: id,
            rank: wrote.rank,
            milestone: m,
            date: day,
        }),
    ))
}

/// `update_milestone`'s result: with its date when it moved.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum MilestoneChanged {
    Moved(MilestoneMoved),
    Updated(MilestoneUpdated),
}

/// A milestone moved (and maybe changed otherwise in the same write).
#[derive(Debug, Serialize, JsonSchema)]
struct MilestoneMoved {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    milestone: MilestoneId,
    /// The date written (a cascade may hold it later than asked).
    date: Date,
    /// The date before; null when it could not be read back.
    was: Option<Date>,
    /// Added when the cascade moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadeSummary>,
}

/// The date change of `update_milestone`, after `other` (its other changes, in the
/// same write), with `changed` naming them.
async fn move_milestone(
    ctx: Ctx,
    id: i64,
    m: MilestoneId,
    day: Date,
    cascade: Option<CascadeArg>,
    other: Option<Command>,
    changed: Vec<String>,
) -> Result<Reply, Refusal> {
    let mut cmds: Vec<Command> = other.into_iter().collect();
    cmds.push(Command::MoveMilestone {
        milestone: m,
        date: day,
    });
    let wrote = ctx
        .apply_cascading(id, &cmds, None, CascadeArg::choice(cascade))
        .await?;
    // The inverse ends with the caller's command's (a cascade's comes first).
    let old = inverse_of(&wrote).and_then(|inv| {
        inv.iter().rev().find_map(|c| match c {
            Command::MoveMilestone { milestone, date } if *milestone == m => Some(*date),
            _ => None,
        })
    });
    let was = old.map_or(String::new(), |d| {
        ctx.tr(format!(" (il était au {d})"), format!(" (it was on {d})"))
    });
    // The date written: a cascade holds the milestone back when a link into it asks
    // for later.
    let day = wrote.state.milestone(m).map_or(day, |x| x.date);
    let also = if changed.is_empty() {
        String::new()
    } else {
        ctx.tr(
            format!(", et modifié ({})", changed.join(", ")),
            format!(", and updated ({})", changed.join(", ")),
        )
    };
    let mut text = ctx.tr(
        format!(
            "Jalon {} déplacé au {day}{was}{also}\u{202f}; {}.",
            named(&ctx, &wrote.state, m),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Milestone {} moved to {day}{was}{also}; {}.",
            named(&ctx, &wrote.state, m),
            rank(&ctx, wrote.rank)
        ),
    );
    push_link_risks(&ctx, &mut text, &wrote, m);
    let reply = Reply::ok(
        text,
        json!(MilestoneMoved {
            schedule_id: id,
            rank: wrote.rank,
            milestone: m,
            date: day,
            was: old,
            cascade: None,
        }),
    );
    Ok(with_cascade(&ctx, &wrote, reply))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateMilestone {
    schedule: ScheduleRef,
    milestone: u64,
    #[serde(default)]
    label: Option<String>,
    /// "#rrggbb"; null: default.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<String>")]
    color: Option<Option<String>>,
    /// "" clears.
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    row: Option<u64>,
    /// YYYY-MM-DD.
    #[serde(default)]
    date: Option<String>,
    /// With date. "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

/// `update_milestone`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct MilestoneUpdated {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    milestone: MilestoneId,
}

async fn update_milestone(ctx: Ctx, p: UpdateMilestone) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let mut changed = Vec::new();
    if p.label.is_some() {
        changed.push(ctx.tr("libellé", "label"));
    }
    if p.color.is_some() {
        changed.push(ctx.tr("couleur", "colour"));
    }
    if p.notes.is_some() {
        changed.push(ctx.tr("notes", "notes"));
    }
    if p.row.is_some() {
        changed.push(ctx.tr("ligne", "row"));
    }
    let day = p
        .date
        .as_deref()
        .map(|d| date(&ctx, "date", d))
        .transpose()?;
    if changed.is_empty() && day.is_none() {
        return Err(nothing_to_change(&ctx, "label, color, notes, row, date"));
    }
    let m = MilestoneId(p.milestone);
    let cmd = Command::UpdateMilestone {
        milestone: m,
        label: p.label,
        color: p.color,
        notes: p.notes,
        row: p.row.map(RowId),
    };
    if let Some(day) = day {
        let other = (!changed.is_empty()).then_some(cmd);
        return move_milestone(ctx, id, m, day, p.cascade, other, changed).await;
    }
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let text = ctx.tr(
        format!(
            "Jalon {} modifié ({})\u{202f}; {}.",
            named(&ctx, &wrote.state, m),
            changed.join(", "),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Milestone {} updated ({}); {}.",
            named(&ctx, &wrote.state, m),
            changed.join(", "),
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(MilestoneUpdated {
            schedule_id: id,
            rank: wrote.rank,
            milestone: m,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteMilestone {
    pub(super) schedule: ScheduleRef,
    pub(super) milestone: u64,
}

/// `delete_milestone`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct MilestoneDeleted {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    milestone: MilestoneId,
    /// What went with it (its links); null when it could not be read back.
    removed: Option<Removed>,
}

pub(super) async fn delete_milestone(ctx: Ctx, p: DeleteMilestone) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::DeleteMilestone {
        milestone: MilestoneId(p.milestone),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let inverse = inverse_of(&wrote);
    let label = inverse.as_ref().and_then(|inv| {
        inv.iter().find_map(|c| match c {
            Command::AddMilestone { label, .. } => Some(label.clone()),
            _ => None,
        })
    });
    let removed = inverse
        .as_deref()
        .map(|inv| Removed::count(inv, "add_milestone"));
    let named = label.map_or(p.milestone.to_string(), |l| quote(&ctx, &l, p.milestone));
    let with = removed.map_or(String::new(), |r| r.words(&ctx));
    let at = rank(&ctx, wrote.rank);
    let text = ctx.tr(
        format!("Jalon {named} supprimé{with}\u{202f}; {at}. Annulable avec undo."),
        format!("Milestone {named} deleted{with}; {at}. Can be undone with undo."),
    );
    Ok(Reply::ok(
        text,
        json!(MilestoneDeleted {
            schedule_id: id,
            rank: wrote.rank,
            milestone: MilestoneId(p.milestone),
            removed,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{Kit, kit, needs_editor, ok, refused};

    #[tokio::test]
    async fn add_move_update_delete() {
        let k = kit().await;
        let r = ok(k
            .call(
                &k.editor,
                "add_milestone",
                json!({"row": 12, "label": "Fin d'hypercare", "date": "2027-01-15"}),
            )
            .await);
        assert!(
            r.text.contains("Jalon «\u{a0}Fin d'hypercare\u{a0}» ajouté (id 32) le 2027-01-15 sur la ligne «\u{a0}Mise en production\u{a0}» (12)\u{202f}; rang 1."),
            "{}",
            r.text
        );
        // Two days earlier than its link (FS +1) allows: the answer says the link breaks.
        let r = ok(k
            .call(
                &k.editor,
                "update_milestone",
                json!({"milestone": 19, "date": "2026-12-16"}),
            )
            .await);
        assert!(
            r.text.contains("(il était au 2026-12-18)")
                && r.text
                    .contains("Lien 26 (FS) non respecté de 2 jours ouvrés"),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_milestone",
                json!({"milestone": 19, "label": "Go-live", "color": null, "row": 11}),
            )
            .await);
        assert!(
            r.text
                .contains("Milestone “Go-live” (19) updated (label, colour, row); rank 3."),
            "{}",
            r.text
        );
        let r = ok(k.call(&k.editor, "delete", json!({"milestone": 19})).await);
        assert!(
            r.text.contains(
                "Jalon «\u{a0}Go-live\u{a0}» (19) supprimé, avec 1 lien\u{202f}; rang 4."
            ),
            "{}",
            r.text
        );
        assert_eq!(k.state().await.milestones.len(), 1);
    }

    #[tokio::test]
    async fn refusals() {
        let k = kit().await;
        needs_editor(
            k.call(
                &k.viewer,
                "update_milestone",
                json!({"milestone": 19, "date": "2026-12-21"}),
            )
            .await,
        );
        let r = refused(
            k.call(
                &k.editor,
                "update_milestone",
                json!({"milestone": 18, "date": "2026-12-21"}),
            )
            .await,
            "invalid_command",
        );
        assert!(
            r.text.contains("le jalon 18 n'existe pas (18 est un bloc)"),
            "{}",
            r.text
        );
        let r = refused(
            k.call(
                &k.editor,
                "add_milestone",
                json!({"row": 12, "label": "X", "date": "18/12/2026"}),
            )
            .await,
            "invalid_arguments",
        );
        assert!(r.text.contains("«\u{a0}date\u{a0}»"), "{}", r.text);
        refused(
            k.call(&k.editor, "update_milestone", json!({"milestone": 19}))
                .await,
            "invalid_arguments",
        );
        let r = refused(
            k.call(
                &k.editor,
                "update_milestone",
                json!({"milestone": 19, "color": "rouge"}),
            )
            .await,
            "invalid_command",
        );
        assert!(r.text.contains("n'est pas une couleur"), "{}", r.text);
    }
}

//! Tools on actions: the to-dos on a bar (to do, in progress, done), optionally
//! assigned to a member, and `list_actions` to read them by bar or by status.

use crate::planning::Code;
use palmaplan_model::command::Command;
use palmaplan_model::text::{count, plural};
use palmaplan_model::{ActionId, ActionStatus, BarId, Lang, MemberId, Schedule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    CAP, inverse_of, item, member, more, nothing_to_change, nullable, quote, rank, status_words,
};
use crate::planning::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "add_action",
            "Add an action (a to-do) to a bar.",
            Access::Write,
            add_action,
        )
        .returns::<ActionAdded>(),
        tool(
            "set_action_status",
            "Set an action's status.",
            Access::Write,
            set_action_status,
        )
        .returns::<ActionStatusSet>()
        .used_by_view(),
        tool(
            "update_action",
            "Change an action's label or assignee.",
            Access::Write,
            update_action,
        )
        .returns::<ActionWritten>(),
        tool(
            "list_actions",
            "List actions, optionally of one bar or status. 50 at most.",
            Access::Read,
            list_actions,
        )
        .returns::<ActionList>(),
    ]
}

// An action's status, as the model writes it.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Todo,
    InProgress,
    Done,
}

impl From<Status> for ActionStatus {
    fn from(s: Status) -> ActionStatus {
        match s {
            Status::Todo => ActionStatus::Todo,
            Status::InProgress => ActionStatus::InProgress,
            Status::Done => ActionStatus::Done,
        }
    }
}

/// "« Rédiger les cas de test » (30)", or the bare id.
fn named(ctx: &Ctx, s: &Schedule, id: ActionId) -> String {
    match s.action(id) {
        Some(a) => quote(ctx, &a.label, id),
        None => id.to_string(),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddAction {
    schedule: ScheduleRef,
    bar: u64,
    label: String,
    #[serde(default)]
    status: Option<Status>,
    #[serde(default)]
    assignee: Option<u64>,
}

/// `add_action`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct ActionAdded {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    /// The new action's id.
    action: ActionId,
    status: ActionStatus,
}

async fn add_action(ctx: Ctx, p: AddAction) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::AddAction {
        id: None,
        bar: BarId(p.bar),
        label: p.label.clone(),
        status: p.status.map(ActionStatus::from),
        assignee: p.assignee.map(MemberId),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let a = match wrote.applied.first() {
        Some(Command::AddAction { id: Some(a), .. }) => *a,
        _ => ActionId(0),
    };
    let s = &wrote.state;
    let status = s.action(a).map(|x| x.status).unwrap_or_default();
    let who = p.assignee.map_or(String::new(), |m| {
        ctx.tr(
            format!(", confiée à {}", member(s, MemberId(m))),
            format!(", assigned to {}", member(s, MemberId(m))),
        )
    });
    let text = ctx.tr(
        format!(
            "Action «\u{a0}{}\u{a0}» ajoutée (id {a}) sur le bloc {}, {}{who}\u{202f}; {}.",
            p.label,
            item(&ctx, s, BarId(p.bar).into()),
            status_words(ctx.lang(), status),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Action “{}” added (id {a}) to bar {}, {}{who}; {}.",
            p.label,
            item(&ctx, s, BarId(p.bar).into()),
            status_words(ctx.lang(), status),
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(ActionAdded {
            schedule_id: id,
            rank: wrote.rank,
            action: a,
            status,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetStatus {
    schedule: ScheduleRef,
    action: u64,
    status: Status,
}

/// `set_action_status`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct ActionStatusSet {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    action: ActionId,
    status: ActionStatus,
    /// The status before; null when it could not be read back.
    was: Option<ActionStatus>,
}

async fn set_action_status(ctx: Ctx, p: SetStatus) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let a = ActionId(p.action);
    let status = ActionStatus::from(p.status);
    let cmd = Command::SetActionStatus { action: a, status };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let old = inverse_of(&wrote).and_then(|inv| match inv.first() {
        Some(Command::SetActionStatus { status, .. }) => Some(*status),
        _ => None,
    });
    let change = match old {
        Some(o) if o != status => format!(
            "{} → {}",
            status_words(ctx.lang(), o),
            status_words(ctx.lang(), status)
        ),
        _ => status_words(ctx.lang(), status).to_owned(),
    };
    let text = ctx.tr(
        format!(
            "Action {}\u{a0}: {change}\u{202f}; {}.",
            named(&ctx, &wrote.state, a),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Action {}: {change}; {}.",
            named(&ctx, &wrote.state, a),
            rank(&ctx, wrote.rank)
        ),
    );
    // The person (the kanban's buttons) reads the action by its label, no id, no rank.
    let label = wrote.state.action(a).map_or("?", |x| x.label.as_str());
    let label = crate::planning::people::quoted(ctx.lang(), label);
    let person = ctx.tr(
        format!("{label}\u{a0}: {change}."),
        format!("{label}: {change}."),
    );
    Ok(Reply::ok(
        text,
        json!(ActionStatusSet {
            schedule_id: id,
            rank: wrote.rank,
            action: a,
            status,
            was: old,
        }),
    )
    .for_person(person))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateAction {
    schedule: ScheduleRef,
    action: u64,
    #[serde(default)]
    label: Option<String>,
    /// Member id; null unassigns.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<u64>")]
    assignee: Option<Option<u64>>,
}

/// `update_action`'s and `delete_action`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ActionWritten {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    action: ActionId,
}

async fn update_action(ctx: Ctx, p: UpdateAction) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.label.is_none() && p.assignee.is_none() {
        return Err(nothing_to_change(&ctx, "label, assignee"));
    }
    let a = ActionId(p.action);
    let cmd = Command::UpdateAction {
        action: a,
        label: p.label.clone(),
        assignee: p.assignee.map(|m| m.map(MemberId)),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let s = &wrote.state;
    let mut parts = Vec::new();
    if let Some(l) = &p.label {
        parts.push(ctx.tr(format!("libellé «\u{a0}{l}\u{a0}»"), format!("label “{l}”")));
    }
    match p.assignee {
        Some(Some(m)) => parts.push(ctx.tr(
            format!("confiée à {}", member(s, MemberId(m))),
            format!("assigned to {}", member(s, MemberId(m))),
        )),
        Some(None) => parts.push(ctx.tr("plus confiée à personne", "unassigned")),
        None => {}
    }
    let text = ctx.tr(
        format!(
            "Action {} modifiée\u{a0}: {}\u{202f}; {}.",
            named(&ctx, s, a),
            parts.join(", "),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Action {} updated: {}; {}.",
            named(&ctx, s, a),
            parts.join(", "),
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(ActionWritten {
            schedule_id: id,
            rank: wrote.rank,
            action: a,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteAction {
    pub(super) schedule: ScheduleRef,
    pub(super) action: u64,
}

pub(super) async fn delete_action(ctx: Ctx, p: DeleteAction) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::DeleteAction {
        action: ActionId(p.action),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let gone = inverse_of(&wrote).and_then(|inv| {
        inv.into_iter().find_map(|c| match c {
            Command::AddAction { label, bar, .. } => Some((label, bar)),
            _ => None,
        })
    });
    let named = match &gone {
        Some((label, bar)) => ctx.tr(
            format!(
                "«\u{a0}{label}\u{a0}» ({}) du bloc {}",
                p.action,
                item(&ctx, &wrote.state, (*bar).into())
            ),
            format!(
                "“{label}” ({}) of bar {}",
                p.action,
                item(&ctx, &wrote.state, (*bar).into())
            ),
        ),
        None => p.action.to_string(),
    };
    let at = rank(&ctx, wrote.rank);
    let text = ctx.tr(
        format!("Action {named} supprimée\u{202f}; {at}. Annulable avec undo."),
        format!("Action {named} deleted; {at}. Can be undone with undo."),
    );
    Ok(Reply::ok(
        text,
        json!(ActionWritten {
            schedule_id: id,
            rank: wrote.rank,
            action: ActionId(p.action),
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListActions {
    schedule: ScheduleRef,
    #[serde(default)]
    bar: Option<u64>,
    #[serde(default)]
    status: Option<Status>,
}

/// An action as `list_actions` lists it (its label is in the text).
#[derive(Debug, Serialize, JsonSchema)]
struct ListedAction {
    id: ActionId,
    bar: BarId,
    status: ActionStatus,
    /// Null when no one is assigned.
    assignee: Option<MemberId>,
}

/// `list_actions`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct ActionList {
    schedule_id: i64,
    /// The rank read.
    rank: i64,
    /// How many actions match in all.
    count: usize,
    /// How many are listed (at most 50).
    shown: usize,
    /// The first ones, in the schedule's order.
    actions: Vec<ListedAction>,
}

async fn list_actions(ctx: Ctx, p: ListActions) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let s = &stored.state;
    if let Some(b) = p.bar
        && s.bar(BarId(b)).is_none()
    {
        return Err(Refusal::new(
            Code::NotFound,
            ctx.tr(
                format!("Le planning «\u{a0}{}\u{a0}» n'a pas de bloc {b}. Indiquez l'id d'un bloc (list_periods les donne).", s.name),
                format!("Schedule “{}” has no bar {b}. Give a bar's id (list_periods gives them).", s.name),
            ),
        ));
    }
    let status = p.status.map(ActionStatus::from);
    let matching: Vec<_> = s
        .actions
        .iter()
        .filter(|a| p.bar.is_none_or(|b| a.bar.0 == b))
        .filter(|a| status.is_none_or(|st| a.status == st))
        .collect();
    let total = matching.len();
    let mut counts = [0usize; 3];
    for a in &matching {
        counts[a.status as usize] += 1;
    }
    let by_status: Vec<String> = ActionStatus::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(st, n)| match (ctx.lang(), st) {
            // The only status word that agrees in number.
            (Lang::Fr, ActionStatus::Done) => {
                format!("{n} {}", plural(Lang::Fr, n, "terminée", "terminées"))
            }
            _ => format!("{n} {}", status_words(ctx.lang(), *st)),
        })
        .collect();
    let scope = match p.bar {
        Some(b) => ctx.tr(
            format!("du bloc {}", item(&ctx, s, BarId(b).into())),
            format!("of bar {}", item(&ctx, s, BarId(b).into())),
        ),
        None => ctx.tr(
            format!("de «\u{a0}{}\u{a0}»", s.name),
            format!("of “{}”", s.name),
        ),
    };
    let at = rank(&ctx, stored.rank);
    let mut text = if total == 0 {
        ctx.tr(
            format!("Aucune action {scope} ne correspond\u{202f}; {at}."),
            format!("No action {scope} matches; {at}."),
        )
    } else {
        ctx.tr(
            format!(
                "{} {scope} ({})\u{202f}; {at}\u{a0}:",
                count(Lang::Fr, total, "action", "actions"),
                by_status.join(", ")
            ),
            format!(
                "{} {scope} ({}); {at}:",
                count(Lang::En, total, "action", "actions"),
                by_status.join(", ")
            ),
        )
    };
    for a in matching.iter().take(CAP) {
        let who = a
            .assignee
            .map_or(String::new(), |m| format!(" — {}", member(s, m)));
        text.push_str(&ctx.tr(
            format!(
                "\n- [{}] «\u{a0}{}\u{a0}» ({}) — bloc {}{who}",
                status_words(ctx.lang(), a.status),
                a.label,
                a.id,
                item(&ctx, s, a.bar.into())
            ),
            format!(
                "\n- [{}] “{}” ({}) — bar {}{who}",
                status_words(ctx.lang(), a.status),
                a.label,
                a.id,
                item(&ctx, s, a.bar.into())
            ),
        ));
    }
    text.push_str(&more(&ctx, total.saturating_sub(CAP)));
    let list: Vec<_> = matching
        .iter()
        .take(CAP)
        .map(|a| ListedAction {
            id: a.id,
            bar: a.bar,
            status: a.status,
            assignee: a.assignee,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(ActionList {
            schedule_id: id,
            rank: stored.rank,
            count: total,
            shown: list.len(),
            actions: list,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{Kit, kit, needs_editor, ok, refused};

    #[tokio::test]
    async fn add_set_update_delete_list() {
        let k = kit().await;
        let r = ok(k
            .call(
                &k.editor,
                "add_action",
                json!({"bar": 16, "label": "Comparer les soldes", "assignee": 3}),
            )
            .await);
        assert!(
            r.text.contains("Action «\u{a0}Comparer les soldes\u{a0}» ajoutée (id 32) sur le bloc «\u{a0}Migration à blanc\u{a0}» (16), à faire, confiée à Sophie Lefèvre (3)\u{202f}; rang 1."),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "set_action_status",
                json!({"action": 32, "status": "in_progress"}),
            )
            .await);
        assert!(
            r.text
                .contains("Action “Comparer les soldes” (32): to do → in progress; rank 2."),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &k.editor,
                "update_action",
                json!({"action": 32, "assignee": null, "label": "Comparer"}),
            )
            .await);
        assert!(
            r.text
                .contains("libellé «\u{a0}Comparer\u{a0}», plus confiée à personne"),
            "{}",
            r.text
        );
        let r = ok(k.call(&k.viewer, "list_actions", json!({})).await);
        assert!(
            r.text.contains(
                "5 actions de «\u{a0}S/4HANA Migration\u{a0}» (2 à faire, 2 en cours, 1 terminée)"
            ) && r
                .text
                .contains("- [en cours] «\u{a0}Comparer\u{a0}» (32) — bloc «\u{a0}Migration à blanc\u{a0}» (16)"),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &k.viewer,
                "list_actions",
                json!({"bar": 13, "status": "done"}),
            )
            .await);
        assert_eq!(r.structured["count"], 1);
        assert_eq!(r.structured["actions"][0]["id"], 27);
        let r = ok(k
            .call(
                &k.viewer,
                "list_actions",
                json!({"bar": 16, "status": "done"}),
            )
            .await);
        assert!(r.text.contains("Aucune action du bloc"), "{}", r.text);
        let r = ok(k.call(&k.editor, "delete", json!({"action": 32})).await);
        assert!(
            r.text.contains(
                "Action «\u{a0}Comparer\u{a0}» (32) du bloc «\u{a0}Migration à blanc\u{a0}» (16) supprimée\u{202f}; rang 4."
            ),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn refusals() {
        let k = kit().await;
        needs_editor(
            k.call(
                &k.viewer,
                "set_action_status",
                json!({"action": 27, "status": "todo"}),
            )
            .await,
        );
        let r = refused(
            k.call(
                &k.editor,
                "set_action_status",
                json!({"action": 13, "status": "done"}),
            )
            .await,
            "invalid_command",
        );
        assert!(
            r.text.contains("l'action 13 n'existe pas (13 est un bloc)"),
            "{}",
            r.text
        );
        refused(
            k.call(
                &k.editor,
                "set_action_status",
                json!({"action": 27, "status": "finished"}),
            )
            .await,
            "invalid_arguments",
        );
        refused(
            k.call(&k.editor, "update_action", json!({"action": 27}))
                .await,
            "invalid_arguments",
        );
        refused(
            k.call(&k.viewer, "list_actions", json!({"bar": 6})).await,
            "not_found",
        );
        let r = refused(
            k.call(&k.editor, "add_action", json!({"bar": 99, "label": "X"}))
                .await,
            "invalid_command",
        );
        assert!(r.text.contains("le bloc 99 n'existe pas"), "{}", r.text);
    }

    #[tokio::test]
    async fn long_lists_are_capped() {
        let k = kit().await;
        let commands: Vec<_> = (0..60)
            .map(|i| json!({"op": "add_action", "bar": 13, "label": format!("Tâche {i}")}))
            .collect();
        ok(k.call(
            &k.editor,
            "apply_patch",
            json!({"commands": commands, "expected_rank": 0}),
        )
        .await);
        let r = ok(k.call(&k.viewer, "list_actions", json!({"bar": 13})).await);
        assert_eq!(r.structured["count"], 61);
        assert_eq!(r.structured["shown"], 50);
        assert!(r.text.contains("… et 11 autres."), "{}", r.text);
    }
}

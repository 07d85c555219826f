//! Tools on a schedule as a whole: rename it, duplicate it, delete it.
//!
//! Renaming is a journalled command like any edit (it can be undone). Duplicating makes
//! a new schedule from the current state, owned by the caller, with a fresh journal.
//! Deleting removes the schedule with its journal, versions and roles: it cannot be
//! undone, so it asks for `confirm: true` and the Owner role.

use crate::planning::Code;
use palmaplan_model::Lang;
use palmaplan_model::command::Command;
use palmaplan_model::text::{count, plural};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{inverse_of, rank};
use crate::planning::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};
use crate::storage::Role;

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "duplicate_schedule",
            "Copy a schedule into a new one you own (fresh history, no versions; private data only if you own it).",
            Access::Write,
            duplicate_schedule,
        )
        .returns::<Duplicated>()
        .needs(Role::Viewer)
        .creates_schedule(),
        tool(
            "delete_schedule",
            "Delete a schedule, its history and versions for good. Owners only; needs confirm: true.",
            Access::Write,
            delete_schedule,
        )
        .returns::<Deleted>()
        .needs(Role::Owner),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Named {
    schedule: ScheduleRef,
    name: String,
}

/// The name rule of `create_schedule`, so every way of naming a schedule agrees.
pub(super) fn schedule_name<'a>(ctx: &Ctx, name: &'a str) -> Result<&'a str, Refusal> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Le nom du planning doit compter de 1 à 200 caractères.",
                "A schedule's name must have 1 to 200 characters.",
            ),
        ));
    }
    Ok(name)
}

/// A rename's result (`update_settings` with a name alone).
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Renamed {
    schedule_id: i64,
    rank: i64,
    /// The new name.
    name: String,
}

pub(super) async fn rename_schedule(ctx: Ctx, id: i64, name: &str) -> Result<Reply, Refusal> {
    let name = schedule_name(&ctx, name)?;
    let cmd = Command::RenameSchedule {
        name: name.to_owned(),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let old = inverse_of(&wrote).and_then(|inv| match inv.first() {
        Some(Command::RenameSchedule { name }) => Some(name.clone()),
        _ => None,
    });
    let text = match old {
        Some(old) => ctx.tr(
            format!(
                "Planning {id} renommé de «\u{a0}{old}\u{a0}» en «\u{a0}{name}\u{a0}»\u{202f}; {}.",
                rank(&ctx, wrote.rank)
            ),
            format!(
                "Schedule {id} renamed from “{old}” to “{name}”; {}.",
                rank(&ctx, wrote.rank)
            ),
        ),
        None => ctx.tr(
            format!(
                "Planning {id} renommé «\u{a0}{name}\u{a0}»\u{202f}; {}.",
                rank(&ctx, wrote.rank)
            ),
            format!(
                "Schedule {id} renamed “{name}”; {}.",
                rank(&ctx, wrote.rank)
            ),
        ),
    };
    Ok(Reply::ok(
        text,
        json!(Renamed {
            schedule_id: id,
            rank: wrote.rank,
            name: name.to_owned(),
        }),
    ))
}

/// `duplicate_schedule`'s result: the new schedule.
#[derive(Debug, Serialize, JsonSchema)]
struct Duplicated {
    schedule_id: i64,
    /// Always 0: a fresh history.
    rank: i64,
    name: String,
    /// The schedule copied.
    source_id: i64,
    /// The rank it was copied at.
    source_rank: i64,
    /// How many private items (members' e-mails, absence reasons) were left out.
    redacted: usize,
}

async fn duplicate_schedule(ctx: Ctx, p: Named) -> Result<Reply, Refusal> {
    let (source, role) = ctx.open(&p.schedule).await?;
    let name = schedule_name(&ctx, &p.name)?;
    let stored = ctx
        .store()
        .load(source)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let mut state = stored.state;
    let source_name = std::mem::replace(&mut state.name, name.to_owned());
    // A copy made by a non-owner must not hand them an owner's view of the data.
    let viewer = ctx.viewer_as(role).await?;
    let redacted = crate::planning::privacy::redact_in_place(&mut state, &viewer);
    // A copy starts unlocked: its locks would hold its new owner to other people's.
    state.locks.clear();
    let id = ctx
        .store()
        .create_schedule(&state, ctx.caller.user_id, ctx.now_ms())
        .await
        .map_err(|e| ctx.db_error(e))?;
    let mut text = ctx.tr(
        format!(
            "Planning «\u{a0}{source_name}\u{a0}» ({source}, au rang {}) dupliqué en «\u{a0}{name}\u{a0}» (id {id})\u{a0}: {}, {}, {}, {}. Vous en êtes propriétaire\u{202f}; son historique commence au rang 0.",
            stored.rank,
            count(Lang::Fr, state.groups.len(), "groupe", "groupes"),
            count(Lang::Fr, state.rows.len(), "ligne", "lignes"),
            count(Lang::Fr, state.bars.len(), "bloc", "blocs"),
            count(Lang::Fr, state.milestones.len(), "jalon", "jalons")
        ),
        format!(
            "Schedule “{source_name}” ({source}, at rank {}) duplicated as “{name}” (id {id}): {}, {}, {}, {}. You own it; its history starts at rank 0.",
            stored.rank,
            count(Lang::En, state.groups.len(), "group", "groups"),
            count(Lang::En, state.rows.len(), "row", "rows"),
            count(Lang::En, state.bars.len(), "bar", "bars"),
            count(Lang::En, state.milestones.len(), "milestone", "milestones")
        ),
    );
    if redacted > 0 {
        text.push_str(&ctx.tr(
            format!(
                " {} (e-mails de membres, motifs d'absence) {}\u{a0}: seul un propriétaire du planning source les voit.",
                count(Lang::Fr, redacted, "donnée privée", "données privées"),
                plural(Lang::Fr, redacted, "n'a pas été copiée", "n'ont pas été copiées")
            ),
            format!(
                " {} (members' e-mails, absence reasons) {} not copied: only an owner of the source schedule sees them.",
                count(Lang::En, redacted, "private item", "private items"),
                plural(Lang::En, redacted, "was", "were")
            ),
        ));
    }
    Ok(Reply::ok(
        text,
        json!(Duplicated {
            schedule_id: id,
            rank: 0,
            name: name.to_owned(),
            source_id: source,
            source_rank: stored.rank,
            redacted,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Delete {
    schedule: ScheduleRef,
    confirm: bool,
}

/// `delete_schedule`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Deleted {
    schedule_id: i64,
    /// Always true.
    deleted: bool,
    /// The rank it was deleted at.
    rank: i64,
}

async fn delete_schedule(ctx: Ctx, p: Delete) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let s = &stored.state;
    if !p.confirm {
        return Err(Refusal::new(
            Code::ConfirmNeeded,
            ctx.tr(
                format!("Rien n'a été supprimé. Supprimer «\u{a0}{}\u{a0}» (id {id}, {}, rang {}) efface aussi son historique et ses versions, sans retour possible\u{a0}: rappelez delete_schedule avec \"confirm\": true si c'est bien voulu.", s.name, count(Lang::Fr, s.bars.len(), "bloc", "blocs"), stored.rank),
                format!("Nothing was deleted. Deleting “{}” (id {id}, {}, rank {}) also erases its history and versions, for good: call delete_schedule again with \"confirm\": true if that is what you want.", s.name, count(Lang::En, s.bars.len(), "bar", "bars"), stored.rank),
            ),
        ));
    }
    if !ctx
        .store()
        .delete_schedule(id)
        .await
        .map_err(|e| ctx.db_error(e))?
    {
        return Err(ctx.db_error(crate::storage::StoreError::NotFound));
    }
    let text = ctx.tr(
        format!(
            "Planning «\u{a0}{}\u{a0}» (id {id}) supprimé, avec son historique ({}), ses versions et les accès de chacun.",
            s.name,
            count(Lang::Fr, stored.rank, "écriture", "écritures")
        ),
        format!(
            "Schedule “{}” (id {id}) deleted, with its history ({}), its versions and everyone's access.",
            s.name,
            count(Lang::En, stored.rank, "write", "writes")
        ),
    );
    Ok(Reply::ok(
        text,
        json!(Deleted {
            schedule_id: id,
            deleted: true,
            rank: stored.rank,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{Kit, kit, needs_editor, ok, refused};

    #[tokio::test]
    async fn rename_says_old_and_new_and_viewers_cannot() {
        let k = kit().await;
        let r = ok(k
            .call(
                &k.editor,
                "update_settings",
                json!({"name": "  Bascule S/4 "}),
            )
            .await);
        assert!(
            r.text
                .contains("«\u{a0}S/4HANA Migration\u{a0}» en «\u{a0}Bascule S/4\u{a0}»")
                && r.text.contains("rang 1"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["rank"], 1);
        assert_eq!(k.state().await.name, "Bascule S/4");
        // Found by its new name, in the storage's listing too.
        let r = ok(k
            .planning
            .call(&k.owner, "get_schedule", json!({"schedule": "Bascule S/4"}))
            .await);
        assert!(r.text.contains("Bascule S/4"), "{}", r.text);
        needs_editor(
            k.call(&k.viewer, "update_settings", json!({"name": "X"}))
                .await,
        );
        refused(
            k.call(&k.editor, "update_settings", json!({"name": " "}))
                .await,
            "invalid_arguments",
        );
    }

    #[tokio::test]
    async fn a_viewer_duplicates_without_private_data() {
        let k = kit().await;
        let r = ok(k
            .call(&k.viewer, "duplicate_schedule", json!({"name": "Copie"}))
            .await);
        let copy = r.structured["schedule_id"].as_i64().unwrap();
        assert_ne!(copy, k.schedule);
        assert!(
            r.text.contains("«\u{a0}Copie\u{a0}»") && r.text.contains("propriétaire"),
            "{}",
            r.text
        );
        // Four e-mails and one absence reason removed.
        assert_eq!(r.structured["redacted"], 5, "{}", r.text);
        let s = k.planning.store().load(copy).await.unwrap().state;
        assert_eq!(s.name, "Copie");
        assert_eq!(s.bars.len(), 6);
        assert!(s.members.iter().all(|m| m.email.is_none()));
        assert!(s.absences.iter().all(|a| a.reason.is_empty()));
        // The viewer owns the copy: they may delete it.
        ok(k.call(
            &k.viewer,
            "delete_schedule",
            json!({"schedule": copy, "confirm": true}),
        )
        .await);
    }

    #[tokio::test]
    async fn an_owner_keeps_private_data_and_a_member_their_own() {
        let k = kit().await;
        let r = ok(k
            .call(&k.owner, "duplicate_schedule", json!({"name": "Copie"}))
            .await);
        assert_eq!(r.structured["redacted"], 0);
        // The editor is Karim, a member: his own e-mail stays, the others go.
        let r = ok(k
            .call(&k.editor, "duplicate_schedule", json!({"name": "Copie K"}))
            .await);
        let copy = r.structured["schedule_id"].as_i64().unwrap();
        let s = k.planning.store().load(copy).await.unwrap().state;
        let kept: Vec<_> = s.members.iter().filter_map(|m| m.email.clone()).collect();
        assert_eq!(kept, ["karim.benali@example.org"]);
        refused(
            k.call(&k.stranger, "duplicate_schedule", json!({"name": "X"}))
                .await,
            "schedule_not_found",
        );
    }

    #[tokio::test]
    async fn delete_needs_owner_and_confirmation() {
        let k = kit().await;
        let r = refused(
            k.call(&k.editor, "delete_schedule", json!({"confirm": true}))
                .await,
            "forbidden",
        );
        assert!(r.text.contains("propriétaire"), "{}", r.text);
        let r = refused(
            k.call(
                &Kit::en(&k.owner),
                "delete_schedule",
                json!({"confirm": false}),
            )
            .await,
            "confirm_needed",
        );
        assert!(r.text.contains("Nothing was deleted"), "{}", r.text);
        refused(
            k.call(&k.owner, "delete_schedule", json!({})).await,
            "invalid_arguments",
        );
        let r = ok(k
            .call(&k.owner, "delete_schedule", json!({"confirm": true}))
            .await);
        assert!(
            r.text.contains("«\u{a0}S/4HANA Migration\u{a0}»"),
            "{}",
            r.text
        );
        refused(
            k.call(&k.owner, "get_schedule", json!({})).await,
            "schedule_not_found",
        );
    }
}

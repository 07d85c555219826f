//! Versions: named snapshots of a schedule (save, list, restore, delete).
//!
//! Saving copies the current state beside the journal; it changes nothing, so it is not
//! a journal entry. Restoring IS a write like any other: one journal entry whose
//! command is the model's `replace_schedule` with the saved state (its inverse holds the
//! state it replaced), so a restore shows in the history and `undo` takes it back. The
//! schedule keeps its current name: a version is about the plan's content, and a
//! rename since would otherwise be silently reverted.

use crate::planning::Code;
use palmaplan_model::command::Command;
use palmaplan_model::text::count;
use palmaplan_model::{Lang, Schedule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::journal::{iso_utc, user_names};
use super::periods::{apply_fresh, change_text};
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};
use crate::storage::{Role, VersionInfo};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "save_version",
            "Save the current state as a named version (a snapshot).",
            Access::Write,
            save_version,
        )
        .returns::<Saved>(),
        tool(
            "list_versions",
            "List saved versions: id, name, rank, when, by whom.",
            Access::Read,
            list_versions,
        )
        .returns::<Versions>(),
        tool(
            "restore_version",
            "Bring the schedule back to a saved version (keeps its name). Needs confirm: true.",
            Access::Write,
            restore_version,
        )
        .returns::<Restored>(),
        tool(
            "delete_version",
            "Delete a saved version (owners only); the schedule is unchanged.",
            Access::Write,
            delete_version,
        )
        .returns::<Deleted>()
        .needs(Role::Owner),
    ]
}

// A version named by its id or its name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(super) enum VersionRef {
    Id(i64),
    Name(String),
}

/// Finds a version of a schedule by id or name.
pub(super) async fn find(ctx: &Ctx, id: i64, v: &VersionRef) -> Result<VersionInfo, Refusal> {
    let all = ctx
        .store()
        .versions(id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let found = match v {
        VersionRef::Id(vid) => all.into_iter().find(|x| x.id == *vid),
        VersionRef::Name(name) => {
            let lower = name.trim().to_lowercase();
            all.into_iter().find(|x| x.name.to_lowercase() == lower)
        }
    };
    found.ok_or_else(|| {
        let shown = match v {
            VersionRef::Id(i) => i.to_string(),
            VersionRef::Name(n) => n.clone(),
        };
        Refusal::new(
            Code::VersionNotFound,
            ctx.tr(
                format!("Aucune version «\u{a0}{shown}\u{a0}» pour ce planning. Appelez list_versions pour voir leurs ids et noms."),
                format!("No version “{shown}” for this schedule. Call list_versions to see their ids and names."),
            ),
        )
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SaveVersion {
    schedule: ScheduleRef,
    /// Unique.
    name: String,
}

/// A version just saved.
#[derive(Debug, Serialize, JsonSchema)]
struct SavedVersion {
    id: i64,
    name: String,
    /// The rank it holds the state of.
    rank: i64,
}

/// `save_version`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Saved {
    schedule_id: i64,
    version: SavedVersion,
}

async fn save_version(ctx: Ctx, p: SaveVersion) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let name = p.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Le nom d'une version doit compter de 1 à 200 caractères.",
                "A version's name must have 1 to 200 characters.",
            ),
        ));
    }
    if let Ok(old) = find(&ctx, id, &VersionRef::Name(name.to_owned())).await {
        return Err(Refusal::new(
            Code::VersionExists,
            ctx.tr(
                format!("Une version s'appelle déjà «\u{a0}{}\u{a0}» (id {}, rang {}). Choisissez un autre nom, ou supprimez-la d'abord avec delete_version.", old.name, old.id, old.rank),
                format!("A version is already named “{}” (id {}, rank {}). Choose another name, or delete it first with delete_version.", old.name, old.id, old.rank),
            ),
        ));
    }
    let v = ctx
        .store()
        .save_version(id, name, ctx.caller.user_id, ctx.now_ms())
        .await
        .map_err(|e| ctx.db_error(e))?;
    let text = ctx.tr(
        format!(
            "Version «\u{a0}{}\u{a0}» enregistrée (id {})\u{a0}: l'état du planning {id} au rang {}. restore_version pourra y revenir.",
            v.name, v.id, v.rank
        ),
        format!(
            "Version “{}” saved (id {}): the state of schedule {id} at rank {}. restore_version can bring it back.",
            v.name, v.id, v.rank
        ),
    );
    Ok(Reply::ok(
        text,
        json!(Saved {
            schedule_id: id,
            version: SavedVersion {
                id: v.id,
                name: v.name.clone(),
                rank: v.rank,
            },
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListVersions {
    schedule: ScheduleRef,
}

/// How many versions a list shows (newest first).
const LIST_CAP: usize = 50;

/// A saved version as `list_versions` lists it.
#[derive(Debug, Serialize, JsonSchema)]
struct ListedVersion {
    id: i64,
    name: String,
    /// The rank it holds the state of.
    rank: i64,
    /// When it was saved (UTC, ISO 8601).
    at: String,
}

/// `list_versions`'s result: the versions, newest first (the first 50).
#[derive(Debug, Serialize, JsonSchema)]
struct Versions {
    schedule_id: i64,
    /// How many versions the schedule has.
    count: usize,
    versions: Vec<ListedVersion>,
    /// Whether older ones are left out.
    more: bool,
}

async fn list_versions(ctx: Ctx, p: ListVersions) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let mut all = ctx
        .store()
        .versions(id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    all.reverse();
    let total = all.len();
    all.truncate(LIST_CAP);
    if all.is_empty() {
        return Ok(Reply::ok(
            ctx.tr(
                format!(
                    "Le planning {id} n'a aucune version enregistrée. save_version en crée une."
                ),
                format!("Schedule {id} has no saved version. save_version makes one."),
            ),
            json!(Versions {
                schedule_id: id,
                count: 0,
                versions: Vec::new(),
                more: false,
            }),
        ));
    }
    let authors: Vec<i64> = all.iter().map(|v| v.created_by).collect();
    let names = user_names(&ctx, &authors).await?;
    let mut text = ctx.tr(
        format!(
            "{} du planning {id}, de la plus récente à la plus ancienne\u{a0}:",
            count(Lang::Fr, total, "version", "versions")
        ),
        format!(
            "{} of schedule {id}, newest first:",
            count(Lang::En, total, "version", "versions")
        ),
    );
    for v in &all {
        let by = names.get(&v.created_by).map_or("?", String::as_str);
        text.push_str(&ctx.tr(
            format!(
                "\n- {} «\u{a0}{}\u{a0}»\u{a0}: rang {}, {} par {by}",
                v.id,
                v.name,
                v.rank,
                iso_utc(v.created_at)
            ),
            format!(
                "\n- {} “{}”: rank {}, {} by {by}",
                v.id,
                v.name,
                v.rank,
                iso_utc(v.created_at)
            ),
        ));
    }
    let more = total > all.len();
    if more {
        text.push_str(&ctx.tr(
            format!("\n… et {} plus anciennes.", total - all.len()),
            format!("\n… and {} older ones.", total - all.len()),
        ));
    }
    let versions: Vec<_> = all
        .iter()
        .map(|v| ListedVersion {
            id: v.id,
            name: v.name.clone(),
            rank: v.rank,
            at: iso_utc(v.created_at),
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(Versions {
            schedule_id: id,
            count: total,
            versions,
            more,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RestoreVersion {
    schedule: ScheduleRef,
    version: VersionRef,
    #[serde(default)]
    confirm: bool,
}

/// Two states equal but for what a restore does not bring back (name, next id).
fn same_content(a: &Schedule, b: &Schedule) -> bool {
    let mut b = b.clone();
    b.name.clone_from(&a.name);
    b.next_id = a.next_id;
    *a == b
}

/// `restore_version`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Restored {
    schedule_id: i64,
    /// The rank after the restore (unchanged when nothing changed).
    rank: i64,
    /// The version's id.
    version: i64,
    /// False when the schedule was already in the version's state (nothing written).
    changed: bool,
}

async fn restore_version(ctx: Ctx, p: RestoreVersion) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let info = find(&ctx, id, &p.version).await?;
    if !p.confirm {
        return Err(Refusal::new(
            Code::ConfirmNeeded,
            ctx.tr(
                format!("Rien n'a été modifié. Restaurer la version «\u{a0}{}\u{a0}» (rang {}) remplace tout le contenu du planning par celui de cette version. Si c'est bien voulu, rappelez restore_version avec \"confirm\": true (undo pourra revenir en arrière).", info.name, info.rank),
                format!("Nothing was changed. Restoring version “{}” (rank {}) replaces the schedule's whole content with that version's. If that is intended, call restore_version again with \"confirm\": true (undo can take it back).", info.name, info.rank),
            ),
        ));
    }
    let Some((_, saved)) = ctx
        .store()
        .version_state(id, info.id)
        .await
        .map_err(|e| ctx.db_error(e))?
    else {
        return Err(Refusal::new(
            Code::VersionNotFound,
            ctx.tr(
                "Cette version vient d'être supprimée\u{202f}; rien n'a été modifié. Appelez list_versions.",
                "This version was just deleted; nothing was changed. Call list_versions.",
            ),
        ));
    };
    let current = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    if same_content(&current.state, &saved) {
        return Ok(Reply::ok(
            ctx.tr(
                format!("Le planning {id} est déjà identique à la version «\u{a0}{}\u{a0}»\u{a0}: rien à restaurer, rien n'a été écrit (rang {}).", info.name, current.rank),
                format!("Schedule {id} already matches version “{}”: nothing to restore, nothing written (rank {}).", info.name, current.rank),
            ),
            json!(Restored {
                schedule_id: id,
                rank: current.rank,
                version: info.id,
                changed: false,
            }),
        ));
    }
    let build = |s: &Schedule| {
        let mut state = saved.clone();
        state.name.clone_from(&s.name);
        Ok((
            vec![Command::ReplaceSchedule {
                schedule: Box::new(state),
            }],
            (),
        ))
    };
    let (before, wrote, ()) = apply_fresh(&ctx, id, build).await?;
    let head = ctx.tr(
        format!(
            "Version «\u{a0}{}\u{a0}» (enregistrée au rang {}) restaurée\u{a0}: le planning {id} passe au rang {}. undo revient à l'état d'avant.",
            info.name, info.rank, wrote.rank
        ),
        format!(
            "Version “{}” (saved at rank {}) restored: schedule {id} is now at rank {}. undo goes back to the state before.",
            info.name, info.rank, wrote.rank
        ),
    );
    let text = format!("{head}\n{}", change_text(&ctx, &before, &wrote.state));
    Ok(Reply::ok(
        text,
        json!(Restored {
            schedule_id: id,
            rank: wrote.rank,
            version: info.id,
            changed: true,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeleteVersion {
    schedule: ScheduleRef,
    version: VersionRef,
}

/// `delete_version`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Deleted {
    schedule_id: i64,
    /// The version's id.
    version: i64,
    /// False when it had already been deleted.
    deleted: bool,
}

async fn delete_version(ctx: Ctx, p: DeleteVersion) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let info = find(&ctx, id, &p.version).await?;
    let gone = ctx
        .store()
        .delete_version(id, info.id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let text = if gone {
        ctx.tr(
            format!(
                "Version «\u{a0}{}\u{a0}» (id {}) supprimée\u{202f}; le planning {id} n'a pas changé.",
                info.name, info.id
            ),
            format!(
                "Version “{}” (id {}) deleted; schedule {id} is unchanged.",
                info.name, info.id
            ),
        )
    } else {
        ctx.tr(
            format!(
                "La version «\u{a0}{}\u{a0}» (id {}) avait déjà été supprimée.",
                info.name, info.id
            ),
            format!(
                "Version “{}” (id {}) had already been deleted.",
                info.name, info.id
            ),
        )
    };
    Ok(Reply::ok(
        text,
        json!(Deleted {
            schedule_id: id,
            version: info.id,
            deleted: gone,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::journal_testkit::{Kit, en, same};
    use super::*;

    #[tokio::test]
    async fn save_restore_then_undo() {
        let k = Kit::new("versions").await;
        let id = k.schedule;
        let base = k.state().await;
        let r = k
            .ok(
                &k.bob,
                "save_version",
                json!({"schedule": id, "name": "Base"}),
            )
            .await;
        let v = r.structured["version"]["id"].as_i64().unwrap();
        assert_eq!(
            r.text,
            format!(
                "Version «\u{a0}Base\u{a0}» enregistrée (id {v})\u{a0}: l'état du planning {id} au rang 0. restore_version pourra y revenir."
            )
        );
        k.refused(
            &k.bob,
            "save_version",
            json!({"schedule": id, "name": " base "}),
            "version_exists",
        )
        .await;
        k.refused(
            &k.carol,
            "save_version",
            json!({"schedule": id, "name": "Mine"}),
            "forbidden",
        )
        .await;

        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16, 17, 18], "by": 5}),
        )
        .await;
        k.ok(
            &k.alice,
            "delete_periods",
            json!({"schedule": id, "bars": [13], "confirm": true}),
        )
        .await;
        k.ok(&k.alice, "apply_patch", json!({"schedule": id, "expected_rank": 2, "commands": [{"op": "rename_schedule", "name": "Migration 2027"}]}))
            .await;
        let moved = k.state().await;

        let r = k
            .ok(&en(&k.carol), "list_versions", json!({"schedule": id}))
            .await;
        assert_eq!(
            r.text,
            format!(
                "1 version of schedule {id}, newest first:\n- {v} “Base”: rank 0, 2026-05-03T09:20:00Z by Bob"
            )
        );

        let r = k
            .refused(
                &k.bob,
                "restore_version",
                json!({"schedule": id, "version": "Base"}),
                "confirm_needed",
            )
            .await;
        assert!(r.text.contains("\"confirm\": true"), "{}", r.text);
        k.refused(
            &k.bob,
            "restore_version",
            json!({"schedule": id, "version": "Plan B", "confirm": true}),
            "version_not_found",
        )
        .await;
        let r = k
            .ok(
                &k.bob,
                "restore_version",
                json!({"schedule": id, "version": v, "confirm": true}),
            )
            .await;
        assert!(r.text.starts_with(&format!("Version «\u{a0}Base\u{a0}» (enregistrée au rang 0) restaurée\u{a0}: le planning {id} passe au rang 4.")), "{}", r.text);
        assert!(
            r.text.contains("«\u{a0}Audit du système\u{a0}» (bloc 13)"),
            "the list names what came back: {}",
            r.text
        );
        let restored = k.state().await;
        assert_eq!(restored.name, "Migration 2027", "the current name stays");
        let mut expected = base.clone();
        expected.name = restored.name.clone();
        assert!(same(&restored, &expected));
        assert!(
            restored.next_id >= moved.next_id,
            "ids handed out stay burnt"
        );

        let r = k
            .ok(&k.carol, "history", json!({"schedule": id, "limit": 1}))
            .await;
        assert!(
            r.text
                .contains("Bob · 2026-05-03T09:20:04Z · écriture · replace_schedule"),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &k.bob,
                "restore_version",
                json!({"schedule": id, "version": "base", "confirm": true}),
            )
            .await;
        assert_eq!(r.structured["changed"], false, "{}", r.text);

        // The restore is one journalled change: Bob's undo takes it back.
        k.ok(&k.bob, "undo", json!({"schedule": id})).await;
        assert!(same(&k.state().await, &moved));
        // And Alice, whose changes the restore replaced, cannot undo hers under it...
        k.ok(&k.bob, "redo", json!({"schedule": id})).await;
        let r = k
            .refused(&k.alice, "undo", json!({"schedule": id}), "conflict")
            .await;
        assert!(
            r.text.contains("tout le planning (une version restaurée)"),
            "{}",
            r.text
        );

        k.refused(
            &k.bob,
            "delete_version",
            json!({"schedule": id, "version": v}),
            "forbidden",
        )
        .await;
        let r = k
            .ok(
                &k.alice,
                "delete_version",
                json!({"schedule": id, "version": "Base"}),
            )
            .await;
        assert_eq!(
            r.structured,
            json!({"schedule_id": id, "version": v, "deleted": true})
        );
        let r = k
            .ok(&k.carol, "list_versions", json!({"schedule": id}))
            .await;
        assert!(r.text.contains("aucune version"), "{}", r.text);
    }
}

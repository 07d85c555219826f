//! `lock` (and, with `unlock: true`, its removal): holding a bar, a row, a group or the
//! whole schedule still while someone reviews or reports on it. The model decides what a lock holds and refuses
//! the writes that would touch it (`command::locks`); the gate records who set a lock
//! and when, and lets only its holder or an owner remove it.

use crate::planning::Code;
use palmaplan_model::command::{Command, lock_summary, lock_target};
use palmaplan_model::{BarId, GroupId, LockTarget, RowId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};
use super::rank;

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "lock",
            "Lock a bar, a row, a group or the whole schedule (with what it holds): writes touching it are refused for everyone until unlocked. unlock: true removes a lock (yours, or anyone's as an owner).",
            Access::Write,
            lock,
        )
        .returns::<LockResult>(),
    ]
}

/// One of bar, row, group, schedule_wide.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Target {
    schedule: ScheduleRef,
    #[serde(default)]
    bar: Option<u64>,
    #[serde(default)]
    row: Option<u64>,
    #[serde(default)]
    group: Option<u64>,
    #[serde(default)]
    schedule_wide: bool,
    /// Shown when refused; max 500 chars.
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    unlock: bool,
}

/// `lock`'s and `unlock`'s result: what was locked or unlocked.
#[derive(Debug, Serialize, JsonSchema)]
struct LockResult {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    target: LockTarget,
}

impl Target {
    fn target(&self, ctx: &Ctx) -> Result<LockTarget, Refusal> {
        let given = [
            self.bar.map(|b| LockTarget::Bar(BarId(b))),
            self.row.map(|r| LockTarget::Row(RowId(r))),
            self.group.map(|g| LockTarget::Group(GroupId(g))),
            self.schedule_wide.then_some(LockTarget::Schedule),
        ];
        let mut set = given.into_iter().flatten();
        match (set.next(), set.next()) {
            (Some(t), None) => Ok(t),
            _ => Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "Donnez exactement une cible\u{a0}: «\u{a0}bar\u{a0}», «\u{a0}row\u{a0}» ou «\u{a0}group\u{a0}» (un id), ou «\u{a0}schedule_wide\u{a0}»: true pour tout le planning.",
                    "Give exactly one target: “bar”, “row” or “group” (an id), or “schedule_wide”: true for the whole schedule.",
                ),
            )),
        }
    }
}

async fn lock(ctx: Ctx, p: Target) -> Result<Reply, Refusal> {
    if p.unlock {
        return unlock(ctx, p).await;
    }
    let (id, _) = ctx.open(&p.schedule).await?;
    let target = p.target(&ctx)?;
    // Who and when are the gate's to fill in: a caller cannot set a lock in another
    // name.
    let cmd = Command::Lock {
        target,
        by: 0,
        by_name: String::new(),
        since_ms: 0,
        reason: p
            .reason
            .as_deref()
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_owned),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let lang = ctx.lang();
    let held = wrote
        .state
        .lock(target)
        .map(|l| lock_summary(l, lang))
        .unwrap_or_else(|| lock_target(target, lang));
    let text = ctx.tr(
        format!(
            "Verrou posé\u{a0}: {held}\u{202f}; {}. Tant qu'il tient, toute écriture qui toucherait ce qu'il tient est refusée, pour tout le monde\u{202f}; lock avec unlock: true le retire.",
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Lock set: {held}; {}. While it holds, every write that would touch what it holds is refused, for everyone; lock with unlock: true removes it.",
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(LockResult {
            schedule_id: id,
            rank: wrote.rank,
            target,
        }),
    ))
}

async fn unlock(ctx: Ctx, p: Target) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.reason.is_some() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}reason\u{a0}» va avec un verrou posé, pas avec unlock\u{a0}: retirez-le.",
                "“reason” goes with setting a lock, not with unlock: leave it out.",
            ),
        ));
    }
    let target = p.target(&ctx)?;
    let wrote = ctx.apply(id, &[Command::Unlock { target }], None).await?;
    let lang = ctx.lang();
    let was = wrote
        .inverse
        .iter()
        .find_map(|c| match c {
            Command::Lock { by_name, .. } => Some(by_name.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let text = ctx.tr(
        format!(
            "Verrou retiré de {} (posé par {was})\u{202f}; {}.",
            lock_target(target, lang),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Lock removed from {} (set by {was}); {}.",
            lock_target(target, lang),
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(LockResult {
            schedule_id: id,
            rank: wrote.rank,
            target,
        }),
    ))
}

//! Tools on whole schedules: list, read, create, rename, duplicate, delete.

use crate::planning::Code;
use palmaplan_model::command;
use palmaplan_model::{Date, Lang, LockTarget, Schedule, demo, risk, text};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::analysis::RiskCounts;

use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "list_schedules",
            "List the schedules you can see: id, name, your role, rank.",
            Access::Read,
            list_schedules,
        )
        .returns::<Schedules>()
        .on_no_schedule(),
        tool(
            "get_schedule",
            "A schedule's summary: period, counts, risks, settings (calendar, time unit, scheduling), rank.",
            Access::Read,
            get_schedule,
        )
        .returns::<Summary>()
        .used_by_view(),
        tool(
            "create_schedule",
            "Create a schedule you own: empty, or a copy of the demo.",
            Access::Write,
            create_schedule,
        )
        .returns::<Created>()
        .on_no_schedule()
        .creates_schedule(),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// A schedule the caller can see.
#[derive(Debug, Serialize, JsonSchema)]
struct Listed {
    id: i64,
    name: String,
    /// The caller's role: "owner", "editor" or "viewer".
    role: &'static str,
    rank: i64,
}

/// `list_schedules`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Schedules {
    count: usize,
    schedules: Vec<Listed>,
}

async fn list_schedules(ctx: Ctx, _: NoArgs) -> Result<Reply, Refusal> {
    let list = ctx
        .store()
        .schedules_of(ctx.caller.user_id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let visible: Vec<_> = list
        .into_iter()
        .filter(|s| ctx.caller.only_schedule.is_none_or(|only| only == s.id))
        .collect();
    let mut text = if visible.is_empty() {
        ctx.tr(
            "Vous n'avez encore aucun planning. Créez-en un avec create_schedule.",
            "You have no schedule yet. Create one with create_schedule.",
        )
    } else {
        ctx.tr(
            format!(
                "{}\u{a0}:",
                text::count(Lang::Fr, visible.len(), "planning", "plannings")
            ),
            format!(
                "{}:",
                text::count(Lang::En, visible.len(), "schedule", "schedules")
            ),
        )
    };
    for s in &visible {
        let role = super::role_name(s.role, ctx.lang());
        text.push_str(&ctx.tr(
            format!(
                "\n- {} — «\u{a0}{}\u{a0}» ({role}, rang {})",
                s.id, s.name, s.rank
            ),
            format!("\n- {} — “{}” ({role}, rank {})", s.id, s.name, s.rank),
        ));
    }
    let schedules: Vec<_> = visible
        .iter()
        .map(|s| Listed {
            id: s.id,
            name: s.name.clone(),
            role: s.role.as_str(),
            rank: s.rank,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(Schedules {
            count: schedules.len(),
            schedules,
        }),
    ))
}

/// Risks a summary names one by one: a summary stays short on a large schedule (with
/// 10,000 bars the full list is over 1,000 lines, 125 KB of text); schedule_risks
/// lists more.
const SUMMARY_RISKS: usize = 10;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct One {
    schedule: ScheduleRef,
}

/// How many of each thing a schedule holds (never the items).
#[derive(Debug, Serialize, JsonSchema)]
struct Counts {
    groups: usize,
    rows: usize,
    bars: usize,
    milestones: usize,
    links: usize,
    actions: usize,
    members: usize,
    absences: usize,
}

/// A lock, as the summary names it.
#[derive(Debug, Serialize, JsonSchema)]
struct LockInfo {
    target: LockTarget,
    /// Who set it.
    by_name: String,
    /// When, in Unix milliseconds.
    since_ms: i64,
    /// Empty when none was given.
    reason: String,
}

/// `get_schedule`'s result: the compact summary of a schedule.
#[derive(Debug, Serialize, JsonSchema)]
struct Summary {
    schedule_id: i64,
    name: String,
    rank: i64,
    /// The caller's role: "owner", "editor" or "viewer".
    role: &'static str,
    /// The first day of the plan (null when it has no bar nor milestone).
    from: Option<Date>,
    /// The last day of the plan (null when it has no bar nor milestone).
    to: Option<Date>,
    counts: Counts,
    /// The risks at the status date, counted (schedule_risks lists them).
    risks: RiskCounts,
    /// The end once every link holds, when later than the plan's (else null).
    end_once_links_hold: Option<Date>,
    /// The schedule's today.
    status_date: Date,
    /// The largest slips since the newest saved version (absent without one, or
    /// without a slip): `reference`, `largest`, `project_end_days`.
    // Built by tracking's `largest_slips`, which get_schedule does not own.
    #[serde(skip_serializing_if = "Option::is_none")]
    slippage: Option<Map<String, Value>>,
    locks: Vec<LockInfo>,
    settings: super::structure::SettingsBrief,
}

async fn get_schedule(ctx: Ctx, p: One) -> Result<Reply, Refusal> {
    let (id, role) = ctx.open(&p.schedule).await?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let s = &stored.state;
    let status = super::zones::today_of(&ctx, s);
    let risks = risk::risks_at(s, status);
    let mut text = text::schedule_summary(s, ctx.lang());
    let held = super::scheduling::end_once_links_hold(s);
    if let Some(line) = super::scheduling::ends_line_with(&ctx, s, held) {
        text.push('\n');
        text.push_str(&line);
    }
    if let Some(line) = text::risks_line(&risks, ctx.lang()) {
        text.push('\n');
        text.push_str(&line);
        let details = text::risk_details(s, &risks, ctx.lang());
        for detail in details.iter().take(SUMMARY_RISKS) {
            text.push_str("\n- ");
            text.push_str(detail);
        }
        if details.len() > SUMMARY_RISKS {
            let more = details.len() - SUMMARY_RISKS;
            text.push('\n');
            text.push_str(&ctx.tr(
                format!("… et {more} de plus\u{a0}: schedule_risks les liste."),
                format!("… and {more} more: schedule_risks lists them."),
            ));
        }
    }
    let slips = super::tracking::largest_slips(&ctx, id, s).await;
    if let Some((line, _)) = &slips {
        text.push('\n');
        text.push_str(line);
    }
    if !s.locks.is_empty() {
        text.push('\n');
        text.push_str(&ctx.tr(
            format!(
                "Verrous ({}) — ce qu'ils tiennent refuse toute écriture\u{a0}:",
                s.locks.len()
            ),
            format!(
                "Locks ({}) — what they hold refuses every write:",
                s.locks.len()
            ),
        ));
        for l in &s.locks {
            text.push_str("\n- ");
            text.push_str(&command::lock_summary(l, ctx.lang()));
        }
    }
    text.push('\n');
    text.push_str(&ctx.tr(
        format!(
            "Réglages\u{a0}: {}.",
            super::structure::describe_settings(&ctx, &s.settings)
        ),
        format!(
            "Settings: {}.",
            super::structure::describe_settings(&ctx, &s.settings)
        ),
    ));
    let span = s.span();
    let summary = Summary {
        schedule_id: id,
        name: s.name.clone(),
        rank: stored.rank,
        role: role.as_str(),
        from: span.map(|(a, _)| a),
        to: span.map(|(_, b)| b),
        counts: Counts {
            groups: s.groups.len(),
            rows: s.rows.len(),
            bars: s.bars.len(),
            milestones: s.milestones.len(),
            links: s.links.len(),
            actions: s.actions.len(),
            members: s.members.len(),
            absences: s.absences.len(),
        },
        risks: RiskCounts::of(&risks),
        end_once_links_hold: held,
        status_date: status,
        slippage: slips.and_then(|(_, v)| match v {
            Value::Object(m) => Some(m),
            _ => None,
        }),
        locks: s
            .locks
            .iter()
            .map(|l| LockInfo {
                target: l.target,
                by_name: l.by_name.clone(),
                since_ms: l.since_ms,
                reason: l.reason.clone(),
            })
            .collect(),
        settings: super::structure::SettingsBrief::of(&s.settings),
    };
    Ok(Reply::ok(text, json!(summary)))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Create {
    name: String,
    /// Copy the demo instead.
    #[serde(default)]
    demo: bool,
}

/// `create_schedule`'s result: the new schedule.
#[derive(Debug, Serialize, JsonSchema)]
struct Created {
    schedule_id: i64,
    name: String,
    /// Always 0: a new schedule.
    rank: i64,
}

async fn create_schedule(ctx: Ctx, p: Create) -> Result<Reply, Refusal> {
    let name = p.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Le nom du planning doit compter de 1 à 200 caractères.",
                "A schedule's name must have 1 to 200 characters.",
            ),
        ));
    }
    let mut state = if p.demo {
        // The demo stays manual: its seeded risks (violated links) stay visible.
        demo::s4hana_migration()
    } else {
        // New schedules push successors (see docs/scheduling.md for why).
        let mut s = Schedule::new(name);
        s.settings.scheduling = palmaplan_model::Scheduling::Auto;
        s
    };
    state.name = name.to_owned();
    let id = ctx
        .store()
        .create_schedule(&state, ctx.caller.user_id, ctx.now_ms())
        .await
        .map_err(|e| ctx.db_error(e))?;
    let text = ctx.tr(
        format!("Planning «\u{a0}{name}\u{a0}» créé (id {id})\u{202f}; vous en êtes propriétaire."),
        format!("Schedule “{name}” created (id {id}); you own it."),
    );
    Ok(Reply::ok(
        text,
        json!(Created {
            schedule_id: id,
            name: name.to_owned(),
            rank: 0,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use palmaplan_model::Lang;
    use palmaplan_model::synth::{Spec, generate};
    use serde_json::json;

    use crate::planning::{Caller, Planning, SystemClock};
    use crate::storage::Store;

    #[tokio::test]
    async fn a_summary_names_a_few_risks_and_counts_the_rest() {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-schedules-{}-risks", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap();
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let id = store
            .create_schedule(&generate(Spec::new(1_000)), owner, 0)
            .await
            .unwrap();
        let planning = Planning::new(store, Arc::new(SystemClock));
        let caller = Caller {
            user_id: owner,
            can_write: false,
            only_schedule: None,
            max_role: None,
            lang: Lang::En,
            apps: false,
            credential: None,
        };
        let r = planning
            .call(&caller, "get_schedule", json!({ "schedule": id }))
            .await;
        assert!(!r.is_error, "{}", r.text);
        let listed = r.text.lines().filter(|l| l.starts_with("- ")).count();
        assert_eq!(listed, super::SUMMARY_RISKS, "{}", r.text);
        let violated = r.structured["risks"]["violated_links"].as_u64().unwrap();
        assert!(violated > super::SUMMARY_RISKS as u64, "{}", r.structured);
        assert!(
            r.text.contains("more: schedule_risks lists them."),
            "{}",
            r.text
        );
        assert!(r.text.len() < 4_000, "{} chars", r.text.len());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn ids_and_names_are_forgiven_and_mix_ups_named() {
        let k = crate::planning::people_testkit::Kit::new("forgiving").await;
        let en = crate::planning::people_testkit::en(&k.owner);
        let name = k.state(k.schedule).await.name;
        // A number sent as a string is the id when no schedule has that name.
        let r = k
            .ok(
                &en,
                "get_schedule",
                json!({ "schedule": k.schedule.to_string() }),
            )
            .await;
        assert_eq!(r.structured["schedule_id"], k.schedule, "{}", r.structured);
        // A name with a typo gets the closest one, with its id.
        let typo = format!("{}x", &name[..name.len() - 1]);
        let r = k
            .refused(&en, "get_schedule", json!({ "schedule": typo }))
            .await;
        assert_eq!(r.structured["error"], "schedule_not_found");
        assert!(
            r.text
                .contains(&format!("Did you mean “{name}” (id {})?", k.schedule)),
            "{}",
            r.text
        );
        assert_eq!(r.structured["closest"], k.schedule);
        // A bar of the demo, written to another schedule of the same owner: the refusal
        // says where that bar is.
        let other = k
            .ok(&en, "create_schedule", json!({ "name": "Autre" }))
            .await;
        let other_id = other.structured["schedule_id"].as_i64().unwrap();
        let bar = k.state(k.schedule).await.bars[0].id.0;
        let r = k
            .refused(
                &en,
                "move_periods",
                json!({ "schedule": other_id, "bars": [bar], "by": 1 }),
            )
            .await;
        assert!(
            r.text.contains(&format!(
                "There is a bar {bar} in your schedule “{name}” (id {})",
                k.schedule
            )),
            "{}",
            r.text
        );
    }
}

//! `delete`: one tool that removes a group, a row, a milestone, a link, an action, an
//! absence or a member, each with what depends on it, so that a model learns one shape
//! for every removal (bars go with `delete_periods`, the view's own; schedules and
//! versions, which only owners remove, keep theirs). Each kind answers as it always
//! did: what went with it, counted from the journal's inverse.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{actions, links, milestones, outline};
use crate::planning::people::{self, MemberRef};
use crate::planning::{Access, Code, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "delete",
            "Delete one group (its rows and all they hold), row (its bars, milestones, links, actions), milestone (its links), link, action, absence or member (their absences; rows and actions unassigned). Bars: delete_periods.",
            Access::Write,
            delete,
        )
        .returns::<Deleted>(),
    ]
}

/// Exactly one.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Delete {
    schedule: ScheduleRef,
    #[serde(default)]
    group: Option<u64>,
    #[serde(default)]
    row: Option<u64>,
    #[serde(default)]
    milestone: Option<u64>,
    #[serde(default)]
    link: Option<u64>,
    #[serde(default)]
    action: Option<u64>,
    #[serde(default)]
    absence: Option<u64>,
    /// Id or name.
    #[serde(default)]
    member: Option<MemberRef>,
}

/// `delete`'s result: the answer of the kind removed.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Deleted {
    Group(outline::GroupDeleted),
    Row(outline::RowDeleted),
    Milestone(milestones::MilestoneDeleted),
    Link(links::LinkDeleted),
    Action(actions::ActionWritten),
    Absence(people::AbsenceDeleted),
    Member(people::MemberDeleted),
}

async fn delete(ctx: Ctx, p: Delete) -> Result<Reply, Refusal> {
    let given = [
        p.group.is_some(),
        p.row.is_some(),
        p.milestone.is_some(),
        p.link.is_some(),
        p.action.is_some(),
        p.absence.is_some(),
        p.member.is_some(),
    ];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(one_target(&ctx));
    }
    let schedule = p.schedule;
    if let Some(group) = p.group {
        return outline::delete_group(ctx, outline::DeleteGroup { schedule, group }).await;
    }
    if let Some(row) = p.row {
        return outline::delete_row(ctx, outline::DeleteRow { schedule, row }).await;
    }
    if let Some(milestone) = p.milestone {
        let args = milestones::DeleteMilestone {
            schedule,
            milestone,
        };
        return milestones::delete_milestone(ctx, args).await;
    }
    if let Some(link) = p.link {
        return links::delete_link(ctx, links::DeleteLink { schedule, link }).await;
    }
    if let Some(action) = p.action {
        return actions::delete_action(ctx, actions::DeleteAction { schedule, action }).await;
    }
    if let Some(absence) = p.absence {
        let args = people::DeleteAbsence { schedule, absence };
        return people::delete_absence(ctx, args).await;
    }
    match p.member {
        Some(member) => people::delete_member(ctx, people::DeleteMember { schedule, member }).await,
        None => Err(one_target(&ctx)),
    }
}

/// The refusal when not exactly one thing is named.
fn one_target(ctx: &Ctx) -> Refusal {
    Refusal::new(
        Code::InvalidArguments,
        ctx.tr(
            "Donnez exactement une chose à supprimer\u{a0}: «\u{a0}group\u{a0}», «\u{a0}row\u{a0}», «\u{a0}milestone\u{a0}», «\u{a0}link\u{a0}», «\u{a0}action\u{a0}», «\u{a0}absence\u{a0}» ou «\u{a0}member\u{a0}» (un id\u{202f}; un membre aussi par son nom). Pour des blocs\u{a0}: delete_periods.",
            "Give exactly one thing to delete: “group”, “row”, “milestone”, “link”, “action”, “absence” or “member” (an id; a member also by name). For bars: delete_periods.",
        ),
    )
    .with(json!({ "fields": ["group", "row", "milestone", "link", "action", "absence", "member"] }))
}

//! Tools on the outline of the Gantt chart: groups and the rows in them (add; update:
//! rename, move and, for a row, the member it belongs to, in one write; delete), and
//! `list_rows`, which shows the outline with ids so an assistant can name what it edits.
//!
//! Positions (`index`) count from 0, as in the model's commands; the texts say where an
//! item landed in the same terms. Deleting a group or a row deletes what is on it: the
//! answer counts what went, read from the journal's inverse.

use crate::planning::Code;
use palmaplan_model::command::Command;
use palmaplan_model::text::{count, plural};
use palmaplan_model::{GroupId, Lang, MemberId, RowId, Schedule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    CAP, Removed, Watch, inverse_of, member, more, nothing_to_change, nullable, push_risks, quote,
    rank, risk_lines,
};
use crate::planning::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "list_rows",
            "List groups and rows in order, with their members; optionally one group. 50 rows at most.",
            Access::Read,
            list_rows,
        )
        .returns::<RowList>(),
        tool(
            "add_group",
            "Add a group of rows, last by default.",
            Access::Write,
            add_group,
        )
        .returns::<GroupPlaced>(),
        tool(
            "update_group",
            "Rename a group (answers the old name), or move it with its rows among the groups.",
            Access::Write,
            update_group,
        )
        .returns::<GroupUpdated>(),
        tool(
            "add_row",
            "Add a row to a group, optionally assigned to a member.",
            Access::Write,
            add_row,
        )
        .returns::<RowPlaced>(),
        tool(
            "update_row",
            "Rename a row (answers the old name), move it (index, within its group or into group), or set (member id) or clear (null) who does its work: one write.",
            Access::Write,
            update_row,
        )
        .returns::<RowUpdated>(),
    ]
}

/// "« Préparation » (5)", or the bare id.
fn group_name(ctx: &Ctx, s: &Schedule, id: GroupId) -> String {
    match s.group(id) {
        Some(g) => quote(ctx, &g.name, id),
        None => id.to_string(),
    }
}

/// "« Audit du système » (6)", or the bare id.
fn row_name(ctx: &Ctx, s: &Schedule, id: RowId) -> String {
    match s.row(id) {
        Some(r) => quote(ctx, &r.name, id),
        None => id.to_string(),
    }
}

/// A row's position in its group and the group's row count, from 0.
fn row_place(s: &Schedule, id: RowId) -> Option<(GroupId, usize, usize)> {
    let r = s.row(id)?;
    let siblings: Vec<RowId> = s
        .rows
        .iter()
        .filter(|x| x.group == r.group)
        .map(|x| x.id)
        .collect();
    let index = siblings.iter().position(|x| *x == id)?;
    Some((r.group, index, siblings.len()))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListRows {
    schedule: ScheduleRef,
    #[serde(default)]
    group: Option<u64>,
}

/// A row as `list_rows` lists it (its name is in the text).
#[derive(Debug, Serialize, JsonSchema)]
struct ListedRow {
    id: RowId,
    /// Who does its work; null: no one.
    member: Option<MemberId>,
}

/// A group `list_rows` shows, with its rows in order (the last group shown may be cut).
#[derive(Debug, Serialize, JsonSchema)]
struct ShownGroup {
    id: GroupId,
    name: String,
    rows: Vec<ListedRow>,
}

/// A group past the row budget, to list with "group".
#[derive(Debug, Serialize, JsonSchema)]
struct OtherGroup {
    id: GroupId,
    name: String,
    /// How many rows it has.
    rows: usize,
}

/// `list_rows`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct RowList {
    schedule_id: i64,
    /// The rank read.
    rank: i64,
    /// How many groups there are (1 when "group" is given).
    groups: usize,
    /// How many rows they have.
    rows: usize,
    /// The groups shown, in order.
    shown: Vec<ShownGroup>,
    /// How many rows are not shown.
    more_rows: usize,
    /// The groups not shown (the first 50).
    more_groups: Vec<OtherGroup>,
}

async fn list_rows(ctx: Ctx, p: ListRows) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let s = &stored.state;
    if let Some(g) = p.group
        && s.group(GroupId(g)).is_none()
    {
        return Err(Refusal::new(
            Code::NotFound,
            ctx.tr(
                format!("Le planning «\u{a0}{}\u{a0}» n'a pas de groupe {g}. Appelez list_rows sans «\u{a0}group\u{a0}» pour voir les groupes.", s.name),
                format!("Schedule “{}” has no group {g}. Call list_rows without “group” to see the groups.", s.name),
            ),
        ));
    }
    let groups: Vec<_> = s
        .groups
        .iter()
        .filter(|g| p.group.is_none_or(|only| only == g.id.0))
        .collect();
    let row_count = s
        .rows
        .iter()
        .filter(|r| p.group.is_none_or(|only| only == r.group.0))
        .count();
    let mut text = ctx.tr(
        format!(
            "«\u{a0}{}\u{a0}»\u{a0}: {}, {}\u{202f}; {}.",
            s.name,
            count(Lang::Fr, groups.len(), "groupe", "groupes"),
            count(Lang::Fr, row_count, "ligne", "lignes"),
            rank(&ctx, stored.rank)
        ),
        format!(
            "“{}”: {}, {}; {}.",
            s.name,
            count(Lang::En, groups.len(), "group", "groups"),
            count(Lang::En, row_count, "row", "rows"),
            rank(&ctx, stored.rank)
        ),
    );
    if groups.is_empty() {
        text.push_str(&ctx.tr(
            " Aucun groupe\u{a0}: ajoutez-en un avec add_group.",
            " No group yet: add one with add_group.",
        ));
    }
    // Whole groups while the row budget lasts (the last one may be cut); the groups
    // after it are named with their ids and row counts, so the caller can ask for them.
    let mut shown_rows = 0;
    let mut shown = Vec::new();
    let mut others = Vec::new();
    let mut cut = None;
    for g in &groups {
        let rows_of = s.rows.iter().filter(|r| r.group == g.id);
        if shown_rows >= CAP || shown.len() >= CAP {
            others.push((g, rows_of.count()));
            continue;
        }
        text.push_str(&ctx.tr(
            format!("\nGroupe «\u{a0}{}\u{a0}» ({})\u{a0}:", g.name, g.id),
            format!("\nGroup “{}” ({}):", g.name, g.id),
        ));
        let mut rows = Vec::new();
        for r in rows_of {
            if shown_rows >= CAP {
                cut = Some(g.id);
                break;
            }
            shown_rows += 1;
            let who = match r.member {
                Some(m) => member(s, m),
                None => ctx.tr("sans membre", "no member"),
            };
            text.push_str(&format!("\n- {} — {who}", quote(&ctx, &r.name, r.id)));
            rows.push(ListedRow {
                id: r.id,
                member: r.member,
            });
        }
        shown.push(ShownGroup {
            id: g.id,
            name: g.name.clone(),
            rows,
        });
    }
    let rows_left = row_count - shown_rows;
    if let Some(g) = cut {
        text.push_str(&ctx.tr(
            format!("\n… le groupe {g} continue\u{a0}: rappelez list_rows avec \"group\": {g}."),
            format!("\n… group {g} goes on: call list_rows with \"group\": {g}."),
        ));
    }
    if !others.is_empty() {
        let names: Vec<String> = others
            .iter()
            .take(CAP)
            .map(|(g, n)| {
                ctx.tr(
                    format!(
                        "«\u{a0}{}\u{a0}» ({}, {})",
                        g.name,
                        g.id,
                        count(Lang::Fr, *n, "ligne", "lignes")
                    ),
                    format!(
                        "“{}” ({}, {})",
                        g.name,
                        g.id,
                        count(Lang::En, *n, "row", "rows")
                    ),
                )
            })
            .collect();
        text.push_str(&ctx.tr(
            format!(
                "\nAutres groupes, à lister avec «\u{a0}group\u{a0}»\u{a0}: {}",
                names.join(", ")
            ),
            format!("\nOther groups, to list with “group”: {}", names.join(", ")),
        ));
        text.push_str(&more(&ctx, others.len().saturating_sub(CAP)));
    }
    let more_groups = others
        .iter()
        .take(CAP)
        .map(|(g, n)| OtherGroup {
            id: g.id,
            name: g.name.clone(),
            rows: *n,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(RowList {
            schedule_id: id,
            rank: stored.rank,
            groups: groups.len(),
            rows: row_count,
            shown,
            more_rows: rows_left,
            more_groups,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddGroup {
    schedule: ScheduleRef,
    name: String,
    /// From 0; default: last.
    #[serde(default)]
    index: Option<usize>,
}

/// `add_group`'s result: where the group now is.
#[derive(Debug, Serialize, JsonSchema)]
struct GroupPlaced {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    group: GroupId,
    /// Its position among the groups, from 0.
    index: usize,
}

async fn add_group(ctx: Ctx, p: AddGroup) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::AddGroup {
        id: None,
        name: p.name.clone(),
        index: p.index,
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let (group, index) = match wrote.applied.first() {
        Some(Command::AddGroup { id, index, .. }) => (*id, *index),
        _ => (None, None),
    };
    let (g, i, n) = (
        group.unwrap_or(GroupId(0)),
        index.unwrap_or(0),
        wrote.state.groups.len(),
    );
    let text = ctx.tr(
        format!(
            "Groupe «\u{a0}{}\u{a0}» ajouté (id {g}), à l'index {i} parmi {n} {}\u{202f}; {}.",
            p.name,
            plural(Lang::Fr, n, "groupe", "groupes"),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Group “{}” added (id {g}), at index {i} of {n} {}; {}.",
            p.name,
            plural(Lang::En, n, "group", "groups"),
            rank(&ctx, wrote.rank)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(GroupPlaced {
            schedule_id: id,
            rank: wrote.rank,
            group: g,
            index: i,
        }),
    ))
}

/// `update_group`'s result: the group, its name and place now.
#[derive(Debug, Serialize, JsonSchema)]
struct GroupUpdated {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    group: GroupId,
    name: String,
    /// Its position among the groups, from 0.
    index: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateGroup {
    schedule: ScheduleRef,
    group: u64,
    #[serde(default)]
    name: Option<String>,
    /// From 0.
    #[serde(default)]
    index: Option<usize>,
}

/// The old name an inverse restores (a group's or a row's rename), if readable.
fn old_name(inverse: &[Command]) -> Option<String> {
    inverse.iter().find_map(|c| match c {
        Command::RenameGroup { name, .. } | Command::RenameRow { name, .. } => Some(name.clone()),
        _ => None,
    })
}

/// The sentences of one write joined, then its rank: "A; B; rank 3."
fn sentences(ctx: &Ctx, parts: &[String], at: i64) -> String {
    let sep = ctx.tr("\u{202f}; ", "; ");
    format!("{}{sep}{}.", parts.join(&sep), rank(ctx, at))
}

async fn update_group(ctx: Ctx, p: UpdateGroup) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let group = GroupId(p.group);
    let mut cmds = Vec::new();
    if let Some(name) = &p.name {
        cmds.push(Command::RenameGroup {
            group,
            name: name.clone(),
        });
    }
    if let Some(index) = p.index {
        cmds.push(Command::MoveGroup { group, index });
    }
    if cmds.is_empty() {
        return Err(nothing_to_change(&ctx, "name, index"));
    }
    let wrote = ctx.apply(id, &cmds, None).await?;
    let s = &wrote.state;
    let mut parts = Vec::new();
    if let Some(name) = &p.name {
        let old = inverse_of(&wrote)
            .and_then(|inv| old_name(&inv))
            .unwrap_or_default();
        parts.push(ctx.tr(
            format!(
                "Groupe {} renommé de «\u{a0}{old}\u{a0}» en «\u{a0}{name}\u{a0}»",
                p.group
            ),
            format!("Group {} renamed from “{old}” to “{name}”", p.group),
        ));
    }
    let index = s.groups.iter().position(|g| g.id == group).unwrap_or(0);
    if p.index.is_some() {
        parts.push(ctx.tr(
            format!(
                "Groupe {} déplacé avec ses lignes à l'index {index} parmi {}",
                group_name(&ctx, s, group),
                count(Lang::Fr, s.groups.len(), "groupe", "groupes"),
            ),
            format!(
                "Group {} moved with its rows to index {index} of {}",
                group_name(&ctx, s, group),
                count(Lang::En, s.groups.len(), "group", "groups"),
            ),
        ));
    }
    Ok(Reply::ok(
        sentences(&ctx, &parts, wrote.rank),
        json!(GroupUpdated {
            schedule_id: id,
            rank: wrote.rank,
            group,
            name: s.group(group).map(|g| g.name.clone()).unwrap_or_default(),
            index,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteGroup {
    pub(super) schedule: ScheduleRef,
    pub(super) group: u64,
}

pub(super) async fn delete_group(ctx: Ctx, p: DeleteGroup) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::DeleteGroup {
        group: GroupId(p.group),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let inverse = inverse_of(&wrote);
    Ok(deleted_reply(
        &ctx,
        id,
        &wrote,
        inverse,
        Target::Group(GroupId(p.group)),
    ))
}

/// `delete_group`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct GroupDeleted {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    group: GroupId,
    /// What went with it; null when it could not be read back.
    removed: Option<Removed>,
}

/// `delete_row`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct RowDeleted {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    row: RowId,
    /// What went with it; null when it could not be read back.
    removed: Option<Removed>,
}

/// What delete_group / delete_row deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Group(GroupId),
    Row(RowId),
}

/// The answer of delete_group / delete_row: what was deleted, by name, and what went
/// with it, counted from the inverse.
fn deleted_reply(
    ctx: &Ctx,
    id: i64,
    wrote: &crate::planning::Wrote,
    inverse: Option<Vec<Command>>,
    target: Target,
) -> Reply {
    let name = inverse.as_ref().and_then(|inv| {
        inv.iter().find_map(|c| match (c, target) {
            (
                Command::AddGroup {
                    id: Some(g), name, ..
                },
                Target::Group(t),
            ) if *g == t => Some(name.clone()),
            (
                Command::AddRow {
                    id: Some(r), name, ..
                },
                Target::Row(t),
            ) if *r == t => Some(name.clone()),
            _ => None,
        })
    });
    let (own_op, n) = match target {
        Target::Group(g) => ("add_group", g.0),
        Target::Row(r) => ("add_row", r.0),
    };
    let removed = inverse.as_deref().map(|inv| Removed::count(inv, own_op));
    let named = match &name {
        Some(name) => quote(ctx, name, n),
        None => n.to_string(),
    };
    let with = removed.map_or(String::new(), |r| r.words(ctx));
    let at = rank(ctx, wrote.rank);
    let text = match target {
        Target::Group(_) => ctx.tr(
            format!("Groupe {named} supprimé{with}\u{202f}; {at}. Annulable avec undo."),
            format!("Group {named} deleted{with}; {at}. Can be undone with undo."),
        ),
        Target::Row(_) => ctx.tr(
            format!("Ligne {named} supprimée{with}\u{202f}; {at}. Annulable avec undo."),
            format!("Row {named} deleted{with}; {at}. Can be undone with undo."),
        ),
    };
    let structured = match target {
        Target::Group(group) => json!(GroupDeleted {
            schedule_id: id,
            rank: wrote.rank,
            group,
            removed,
        }),
        Target::Row(row) => json!(RowDeleted {
            schedule_id: id,
            rank: wrote.rank,
            row,
            removed,
        }),
    };
    Reply::ok(text, structured)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddRow {
    schedule: ScheduleRef,
    group: u64,
    name: String,
    #[serde(default)]
    member: Option<u64>,
    /// From 0; default: last.
    #[serde(default)]
    index: Option<usize>,
}

/// `add_row`'s result: where the row now is.
#[derive(Debug, Serialize, JsonSchema)]
struct RowPlaced {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    row: RowId,
    group: GroupId,
    /// Its position in its group, from 0.
    index: usize,
}

async fn add_row(ctx: Ctx, p: AddRow) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::AddRow {
        id: None,
        group: GroupId(p.group),
        name: p.name.clone(),
        member: p.member.map(MemberId),
        index: p.index,
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let (row, index) = match wrote.applied.first() {
        Some(Command::AddRow { id, index, .. }) => (id.unwrap_or(RowId(0)), index.unwrap_or(0)),
        _ => (RowId(0), 0),
    };
    let s = &wrote.state;
    let n = s.rows.iter().filter(|r| r.group.0 == p.group).count();
    let who = p.member.map(|m| member(s, MemberId(m)));
    let mut text = ctx.tr(
        format!(
            "Ligne «\u{a0}{}\u{a0}» ajoutée (id {row}) au groupe {}, à l'index {index} parmi ses {}",
            p.name,
            group_name(&ctx, s, GroupId(p.group)),
            count(Lang::Fr, n, "ligne", "lignes")
        ),
        format!(
            "Row “{}” added (id {row}) to group {}, at index {index} of its {}",
            p.name,
            group_name(&ctx, s, GroupId(p.group)),
            count(Lang::En, n, "row", "rows")
        ),
    );
    if let Some(who) = who {
        text.push_str(&ctx.tr(format!(", confiée à {who}"), format!(", done by {who}")));
    }
    text.push_str(&ctx.tr(
        format!("\u{202f}; {}.", rank(&ctx, wrote.rank)),
        format!("; {}.", rank(&ctx, wrote.rank)),
    ));
    Ok(Reply::ok(
        text,
        json!(RowPlaced {
            schedule_id: id,
            rank: wrote.rank,
            row,
            group: GroupId(p.group),
            index,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateRow {
    schedule: ScheduleRef,
    row: u64,
    #[serde(default)]
    name: Option<String>,
    /// Another group to move it into (with index).
    #[serde(default)]
    group: Option<u64>,
    /// Its place in its group, from 0.
    #[serde(default)]
    index: Option<usize>,
    /// Member id; null clears.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<u64>")]
    member: Option<Option<u64>>,
}

/// `update_row`'s result: the row, its name, place and member now.
#[derive(Debug, Serialize, JsonSchema)]
struct RowUpdated {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    row: RowId,
    name: String,
    group: GroupId,
    /// Its position in its group, from 0.
    index: usize,
    /// Who does its work now; null: no one.
    member: Option<MemberId>,
}

async fn update_row(ctx: Ctx, p: UpdateRow) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let row_id = RowId(p.row);
    let mut cmds = Vec::new();
    if let Some(name) = &p.name {
        cmds.push(Command::RenameRow {
            row: row_id,
            name: name.clone(),
        });
    }
    match (p.group, p.index) {
        (_, Some(index)) => cmds.push(Command::MoveRow {
            row: row_id,
            group: p.group.map(GroupId),
            index,
        }),
        (Some(_), None) => {
            return Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "«\u{a0}index\u{a0}» manque\u{a0}: donnez la place de la ligne dans le groupe «\u{a0}group\u{a0}» (0 pour la première).",
                    "“index” is missing: give the row's place in the group “group” (0 for the first).",
                ),
            )
            .with(json!({ "field": "index" })));
        }
        (None, None) => {}
    }
    if let Some(member) = p.member {
        cmds.push(Command::SetRowMember {
            row: row_id,
            member: member.map(MemberId),
        });
    }
    if cmds.is_empty() {
        return Err(nothing_to_change(&ctx, "name, group, index, member"));
    }
    let wrote = ctx.apply(id, &cmds, None).await?;
    let s = &wrote.state;
    let inverse = inverse_of(&wrote).unwrap_or_default();
    let mut parts = Vec::new();
    if let Some(name) = &p.name {
        let old = old_name(&inverse).unwrap_or_default();
        parts.push(ctx.tr(
            format!(
                "Ligne {} renommée de «\u{a0}{old}\u{a0}» en «\u{a0}{name}\u{a0}»",
                p.row
            ),
            format!("Row {} renamed from “{old}” to “{name}”", p.row),
        ));
    }
    let (group, index, n) = row_place(s, row_id).unwrap_or((GroupId(0), 0, 0));
    if p.index.is_some() {
        parts.push(ctx.tr(
            format!(
                "Ligne {} déplacée dans le groupe {}, à l'index {index} parmi ses {}",
                row_name(&ctx, s, row_id),
                group_name(&ctx, s, group),
                count(Lang::Fr, n, "ligne", "lignes"),
            ),
            format!(
                "Row {} moved to group {}, at index {index} of its {}",
                row_name(&ctx, s, row_id),
                group_name(&ctx, s, group),
                count(Lang::En, n, "row", "rows"),
            ),
        ));
    }
    if let Some(now) = p.member {
        let before = inverse
            .iter()
            .find_map(|c| match c {
                Command::SetRowMember { member, .. } => Some(*member),
                _ => None,
            })
            .flatten();
        let row = row_name(&ctx, s, row_id);
        let was = match before {
            Some(m) if Some(m.0) != now => ctx.tr(
                format!(" (c'était {})", member(s, m)),
                format!(" (it was {})", member(s, m)),
            ),
            _ => String::new(),
        };
        parts.push(match now {
            Some(m) => ctx.tr(
                format!("Ligne {row} confiée à {}{was}", member(s, MemberId(m))),
                format!("Row {row} now done by {}{was}", member(s, MemberId(m))),
            ),
            None => ctx.tr(
                format!("Ligne {row} sans membre désormais{was}"),
                format!("Row {row} has no member now{was}"),
            ),
        });
    }
    let mut text = sentences(&ctx, &parts, wrote.rank);
    if matches!(p.member, Some(Some(_))) {
        let lines = risk_lines(
            &ctx,
            s,
            Watch::Bars(&|b| s.bar(b).is_some_and(|bar| bar.row == row_id)),
        );
        push_risks(&ctx, &mut text, &lines);
    }
    Ok(Reply::ok(
        text,
        json!(RowUpdated {
            schedule_id: id,
            rank: wrote.rank,
            row: row_id,
            name: s.row(row_id).map(|r| r.name.clone()).unwrap_or_default(),
            group,
            index,
            member: s.row(row_id).and_then(|r| r.member),
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteRow {
    pub(super) schedule: ScheduleRef,
    pub(super) row: u64,
}

pub(super) async fn delete_row(ctx: Ctx, p: DeleteRow) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::DeleteRow { row: RowId(p.row) };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let inverse = inverse_of(&wrote);
    Ok(deleted_reply(
        &ctx,
        id,
        &wrote,
        inverse,
        Target::Row(RowId(p.row)),
    ))
}

#[cfg(test)]
mod tests {
    use palmaplan_model::command::{Command, apply};
    use palmaplan_model::{GroupId, Schedule};
    use serde_json::json;

    use super::super::testkit::{Kit, kit, needs_editor, ok, refused};

    #[tokio::test]
    async fn groups_add_rename_move_delete() {
        let k = kit().await;
        let r = ok(k
            .call(
                &k.editor,
                "add_group",
                json!({"name": "Recette", "index": 0}),
            )
            .await);
        assert!(
            r.text
                .contains("Groupe «\u{a0}Recette\u{a0}» ajouté (id 32), à l'index 0 parmi 3"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["group"], 32);
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_group",
                json!({"group": 32, "name": "Tests"}),
            )
            .await);
        assert!(
            r.text
                .contains("Group 32 renamed from “Recette” to “Tests”; rank 2."),
            "{}",
            r.text
        );
        let r = ok(k
            .call(&k.editor, "update_group", json!({"group": 32, "index": 2}))
            .await);
        assert!(
            r.text.contains("«\u{a0}Tests\u{a0}» (32)") && r.text.contains("index 2"),
            "{}",
            r.text
        );
        let order: Vec<u64> = k.state().await.groups.iter().map(|g| g.id.0).collect();
        assert_eq!(order, [5, 9, 32]);
        // The cascade: 3 rows, their 3 bars, the 4 links touching those, 3 actions.
        let r = ok(k.call(&k.editor, "delete", json!({"group": 5})).await);
        assert!(
            r.text.contains("Groupe «\u{a0}Préparation\u{a0}» (5) supprimé, avec 3 lignes, 3 blocs, 4 liens et 3 actions\u{202f}; rang 4."),
            "{}",
            r.text
        );
        assert_eq!(
            r.structured["removed"],
            json!({"rows": 3, "bars": 3, "milestones": 0, "links": 4, "actions": 3})
        );
        let s = k.state().await;
        assert_eq!((s.rows.len(), s.bars.len(), s.links.len()), (3, 3, 3));
    }

    #[tokio::test]
    async fn group_refusals() {
        let k = kit().await;
        needs_editor(k.call(&k.viewer, "add_group", json!({"name": "X"})).await);
        needs_editor(k.call(&k.viewer, "delete", json!({"group": 5})).await);
        // Unknown id: the model's own message, naming the field the caller gave (not
        // the patch command the tool wrote).
        let r = refused(
            k.call(&k.editor, "delete", json!({"group": 99})).await,
            "invalid_command",
        );
        assert!(
            r.text
                .starts_with("Champ group\u{a0}: le groupe 99 n'existe pas"),
            "{}",
            r.text
        );
        assert!(!r.text.contains("delete_group"), "{}", r.text);
        let r = refused(
            k.call(&k.editor, "update_group", json!({"group": 6, "name": "X"}))
                .await,
            "invalid_command",
        );
        assert!(r.text.contains("6 est une ligne"), "{}", r.text);
        refused(
            k.call(&k.editor, "update_group", json!({"group": 5, "index": 7}))
                .await,
            "invalid_command",
        );
        assert_eq!(k.state().await.groups.len(), 2, "nothing changed");
    }

    #[tokio::test]
    async fn rows_add_rename_move_assign_delete() {
        let k = kit().await;
        let r = ok(k
            .call(
                &k.editor,
                "add_row",
                json!({"group": 9, "name": "Support", "member": 3, "index": 0}),
            )
            .await);
        assert!(
            r.text.contains("Ligne «\u{a0}Support\u{a0}» ajoutée (id 32) au groupe «\u{a0}Bascule\u{a0}» (9), à l'index 0 parmi ses 4 lignes, confiée à Sophie Lefèvre (3)\u{202f}; rang 1."),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &k.editor,
                "update_row",
                json!({"row": 32, "name": "Hypercare"}),
            )
            .await);
        assert!(
            r.text
                .contains("de «\u{a0}Support\u{a0}» en «\u{a0}Hypercare\u{a0}»"),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &k.editor,
                "update_row",
                json!({"row": 32, "group": 5, "index": 3}),
            )
            .await);
        assert!(
            r.text
                .contains("groupe «\u{a0}Préparation\u{a0}» (5), à l'index 3 parmi ses 4"),
            "{}",
            r.text
        );
        // Thomas is away on 2026-11-26 and 27, during "Migration à blanc" (row 10).
        let r = ok(k
            .call(&k.editor, "update_row", json!({"row": 10, "member": 4}))
            .await);
        assert!(
            r.text
                .contains("confiée à Thomas Dubois (4) (c'était Sophie Lefèvre (3))")
                && r.text.contains("Attention")
                && r.text.contains("Migration à blanc"),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_row",
                json!({"row": 10, "member": null}),
            )
            .await);
        assert!(
            r.text
                .contains("has no member now (it was Thomas Dubois (4))"),
            "{}",
            r.text
        );
        assert_eq!(
            k.state()
                .await
                .row(palmaplan_model::RowId(10))
                .unwrap()
                .member,
            None
        );
        // Several changes in one write, one undo: each said, in order.
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_row",
                json!({"row": 10, "name": "Dry run", "index": 0, "member": 3}),
            )
            .await);
        assert!(
            r.text.starts_with("Row 10 renamed from “Migration à blanc” to “Dry run”; Row “Dry run” (10) moved to group"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("; Row “Dry run” (10) now done by Sophie Lefèvre (3); rank 6."),
            "{}",
            r.text
        );
        assert_eq!(r.structured["index"], 0);
        assert_eq!(r.structured["member"], 3);
        ok(k.call(&k.editor, "undo", json!({})).await);
        let s = k.state().await;
        let row = s.row(palmaplan_model::RowId(10)).unwrap();
        assert_eq!((row.name.as_str(), row.member), ("Migration à blanc", None));
        let r = ok(k.call(&k.editor, "delete", json!({"row": 6})).await);
        assert!(
            r.text.contains(
                "Ligne «\u{a0}Audit du système\u{a0}» (6) supprimée, avec 1 bloc, 2 liens et 1 action"
            ),
            "{}",
            r.text
        );
        let r = ok(k.call(&k.editor, "delete", json!({"row": 32})).await);
        assert!(r.text.contains("(rien n'en dépendait)"), "{}", r.text);
    }

    #[tokio::test]
    async fn row_refusals() {
        let k = kit().await;
        needs_editor(
            k.call(&k.viewer, "add_row", json!({"group": 9, "name": "X"}))
                .await,
        );
        needs_editor(
            k.call(&k.viewer, "update_row", json!({"row": 6, "member": null}))
                .await,
        );
        let r = refused(
            k.call(&k.editor, "update_row", json!({"row": 6, "member": 77}))
                .await,
            "invalid_command",
        );
        assert!(r.text.contains("le membre 77 n'existe pas"), "{}", r.text);
        // Nothing to change is said, not written: leaving "member" out is no clear.
        let r = refused(
            k.call(&k.editor, "update_row", json!({"row": 6})).await,
            "invalid_arguments",
        );
        assert!(r.text.contains("Rien à changer"), "{}", r.text);
        let r = refused(
            k.call(&k.editor, "update_row", json!({"row": 6, "group": 9}))
                .await,
            "invalid_arguments",
        );
        assert!(r.text.contains("«\u{a0}index\u{a0}» manque"), "{}", r.text);
        let r = refused(
            k.call(&Kit::en(&k.editor), "delete", json!({"row": 5}))
                .await,
            "invalid_command",
        );
        assert!(
            r.text.contains("row 5 does not exist (5 is a group)"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn list_rows_shows_the_outline_and_cuts_long_ones() {
        let k = kit().await;
        let r = ok(k.call(&k.viewer, "list_rows", json!({})).await);
        assert!(
            r.text.contains(
                "«\u{a0}S/4HANA Migration\u{a0}»\u{a0}: 2 groupes, 6 lignes\u{202f}; rang 0."
            ) && r
                .text
                .contains("Groupe «\u{a0}Préparation\u{a0}» (5)\u{a0}:")
                && r.text
                    .contains("- «\u{a0}Audit du système\u{a0}» (6) — Karim Benali (2)"),
            "{}",
            r.text
        );
        let r = ok(k.call(&k.viewer, "list_rows", json!({"group": 9})).await);
        assert_eq!(r.structured["rows"], 3);
        assert!(!r.text.contains("Préparation"), "{}", r.text);
        refused(
            k.call(&k.viewer, "list_rows", json!({"group": 6})).await,
            "not_found",
        );
        refused(
            k.call(&k.stranger, "list_rows", json!({})).await,
            "schedule_not_found",
        );

        // 70 groups of 2 rows: 25 whole groups are shown, the rest named with their ids.
        let mut cmds = Vec::new();
        for g in 0..70u64 {
            let gid = 1 + g * 3;
            cmds.push(Command::AddGroup {
                id: Some(GroupId(gid)),
                name: format!("G{g}"),
                index: None,
            });
            for r in 1..=2 {
                cmds.push(Command::AddRow {
                    id: Some(palmaplan_model::RowId(gid + r)),
                    group: GroupId(gid),
                    name: format!("R{g}.{r}"),
                    member: None,
                    index: None,
                });
            }
        }
        let (big, _) = apply(&Schedule::new("Grand"), &cmds).unwrap();
        let id = k
            .planning
            .store()
            .create_schedule(&big, k.owner.user_id, 0)
            .await
            .unwrap();
        let r = ok(k.call(&k.owner, "list_rows", json!({"schedule": id})).await);
        assert_eq!(r.structured["shown"].as_array().unwrap().len(), 25);
        assert_eq!(r.structured["more_rows"], 90);
        assert_eq!(r.structured["more_groups"].as_array().unwrap().len(), 45);
        assert!(
            r.text
                .contains("Autres groupes, à lister avec «\u{a0}group\u{a0}»\u{a0}: «\u{a0}G25\u{a0}» (76, 2 lignes)"),
            "{}",
            r.text
        );
    }
}

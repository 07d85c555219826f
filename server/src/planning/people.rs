//! Tools on the people of a schedule: its members (the people rows are assigned to),
//! who may open it (roles on the server's users), and the members' absences.
//!
//! Members and users are different things: a member is a name (and maybe an e-mail)
//! inside the schedule, written through the model's commands and journalled; a role
//! is the server's access rule for a user account, stored beside the schedule. The two
//! meet only through the e-mail: a user sees the private data of the member who has
//! their e-mail (see `privacy`).
//!
//! Privacy holds in three places here: reads go through `open_redacted`; write replies
//! never echo a member's e-mail nor an absence's reason; and changing a member's e-mail
//! needs the owner role, because an editor who could put their own address on a member
//! would then read that member's absence reasons.
//!
//! Also the helpers the other tool files of this family share: member references by
//! id or name, date arguments, counted words, and `write_on_state` (a write built from
//! the current state, at that state's rank).

use crate::planning::Code;
use std::fmt;

use palmaplan_model::calendar::Calendar;
use palmaplan_model::command::Command;
use palmaplan_model::filter::fold;
use palmaplan_model::risk::{self, AbsenceRisk};
use palmaplan_model::text::{LIST_CAP, count, plural};
use palmaplan_model::{Absence, AbsenceId, BarId, Date, Lang, Member, MemberId, RowId, Schedule};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::args::nullable;
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, Wrote, role_name, tool};
use crate::storage::{Role, RoleChange, User};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "list_members",
            "List members (the people assigned to rows): ids, rows, absence counts. workload: true: each one's working days and bars on their rows over from/to (default: the plan's span), absence days, overload.",
            Access::Read,
            list_members,
        )
        .returns::<Members>(),
        tool(
            "add_member",
            "Add a team member; assign rows with update_row.",
            Access::Write,
            add_member,
        )
        .returns::<MemberWritten>(),
        tool(
            "update_member",
            "Rename a member or change their e-mail (owners only).",
            Access::Write,
            update_member,
        )
        .returns::<MemberWritten>(),
        tool(
            "share_schedule",
            "Give an existing server user a role (owner also shares, sees private data), or remove their access (none). Owners only; the last owner stays.",
            Access::Write,
            share_schedule,
        )
        .needs(Role::Owner)
        .returns::<Sharing>(),
        tool(
            "list_access",
            "List who has access and with which role (e-mails to owners).",
            Access::Read,
            list_access,
        )
        .returns::<AccessList>(),
        tool(
            "add_absence",
            "Record a member's absence (days inclusive); answers the bars it puts at risk.",
            Access::Write,
            add_absence,
        )
        .returns::<AbsenceAdded>(),
        tool(
            "update_absence",
            "Change an absence's days or reason; answers the bars it now puts at risk.",
            Access::Write,
            update_absence,
        )
        .returns::<AbsenceUpdated>(),
        tool(
            "list_absences",
            "List absences, optionally one member's or overlapping from/to, with the bars each puts at risk.",
            Access::Read,
            list_absences,
        )
        .returns::<AbsenceList>(),
    ]
}

// ---------------------------------------------------------------------------------
// Shared helpers

/// A member named by id or by name.
#[derive(Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(untagged)]
pub(super) enum MemberRef {
    Id(u64),
    /// Or a unique part of it.
    Name(String),
}

// By hand rather than `#[serde(untagged)]`: serde's untagged error ("data did not
// match any variant of untagged enum MemberRef") names a Rust type; this one says
// what to give.
impl<'de> Deserialize<'de> for MemberRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MemberRef, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MemberRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member's id (a number) or name (a string)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<MemberRef, E> {
                Ok(MemberRef::Id(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<MemberRef, E> {
                u64::try_from(v)
                    .map(MemberRef::Id)
                    .map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MemberRef, E> {
                Ok(MemberRef::Name(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

impl fmt::Display for MemberRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemberRef::Id(id) => write!(f, "{id}"),
            MemberRef::Name(n) => f.write_str(n),
        }
    }
}

/// Finds a member by id, by exact name (ignoring case and accents), or by the one name
/// that contains the text.
pub(super) fn find_member<'a>(
    ctx: &Ctx,
    s: &'a Schedule,
    r: &MemberRef,
) -> Result<&'a Member, Refusal> {
    let not_found = || {
        Refusal::new(
            Code::MemberNotFound,
            ctx.tr(
                format!(
                    "Aucun membre «\u{a0}{r}\u{a0}» dans «\u{a0}{}\u{a0}». Appelez list_members pour voir les membres et leurs ids.",
                    s.name
                ),
                format!(
                    "No member “{r}” in “{}”. Call list_members to see the members and their ids.",
                    s.name
                ),
            ),
        )
    };
    match r {
        MemberRef::Id(id) => s.member(MemberId(*id)).ok_or_else(not_found),
        MemberRef::Name(name) => {
            let wanted = fold(name.trim());
            if wanted.is_empty() {
                return Err(not_found());
            }
            let exact: Vec<&Member> = s
                .members
                .iter()
                .filter(|m| fold(m.name.trim()) == wanted)
                .collect();
            let found = if exact.is_empty() {
                s.members
                    .iter()
                    .filter(|m| fold(&m.name).contains(&wanted))
                    .collect()
            } else {
                exact
            };
            match found.as_slice() {
                [one] => Ok(one),
                [] => Err(not_found()),
                many => {
                    let names: Vec<String> = many
                        .iter()
                        .take(10)
                        .map(|m| format!("{} ({})", m.name, m.id))
                        .collect();
                    Err(Refusal::new(
                        Code::AmbiguousMember,
                        ctx.tr(
                            format!(
                                "Plusieurs membres correspondent à «\u{a0}{r}\u{a0}»\u{a0}: {}. Indiquez l'id.",
                                names.join(", ")
                            ),
                            format!(
                                "Several members match “{r}”: {}. Give the id.",
                                names.join(", ")
                            ),
                        ),
                    ))
                }
            }
        }
    }
}

/// A date argument, or a refusal that shows the format.
pub(super) fn parse_date(ctx: &Ctx, field: &str, v: &str) -> Result<Date, Refusal> {
    v.trim().parse().map_err(|_| {
        Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}{field}\u{a0}»\u{a0}: «\u{a0}{v}\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30."),
                format!("“{field}”: “{v}” is not a date; write YYYY-MM-DD, e.g. 2026-11-30."),
            ),
        )
    })
}

/// An optional date argument.
pub(super) fn opt_date(ctx: &Ctx, field: &str, v: Option<&str>) -> Result<Option<Date>, Refusal> {
    v.map(|d| parse_date(ctx, field, d)).transpose()
}

/// "1 jour ouvré", "3 working days".
pub(super) fn working_days(lang: Lang, n: i64) -> String {
    // French puts 0 and 1 in the singular, English only 1.
    match (lang, n.abs() <= 1 && (lang == Lang::Fr || n != 0)) {
        (Lang::Fr, true) => format!("{n} jour ouvré"),
        (Lang::Fr, false) => format!("{n} jours ouvrés"),
        (Lang::En, true) => format!("{n} working day"),
        (Lang::En, false) => format!("{n} working days"),
    }
}

/// An inclusive span of days: "2026-11-26 → 2026-11-27", or one date for one day.
pub(super) fn span_text(start: Date, end: Date) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start} → {end}")
    }
}

/// « de Bob », « d'Alice »: French elides "de" before a vowel (a name starting with an
/// h is left whole: whether it elides depends on the name).
pub(super) fn of_fr(name: &str) -> String {
    let vowel = name
        .chars()
        .next()
        .and_then(|c| c.to_lowercase().next())
        .is_some_and(|c| "aeiouyàâäéèêëîïôöûüù".contains(c));
    if vowel {
        format!("d'{name}")
    } else {
        format!("de {name}")
    }
}

/// "« label »" in French, "“label”" in English.
pub(super) fn quoted(lang: Lang, text: &str) -> String {
    match lang {
        Lang::Fr => format!("«\u{a0}{text}\u{a0}»"),
        Lang::En => format!("“{text}”"),
    }
}

/// The line that ends a capped list.
pub(super) fn more_line(ctx: &Ctx, more: usize) -> String {
    ctx.tr(
        format!("… et {more} de plus."),
        format!("… and {more} more."),
    )
}

/// Loads a schedule, builds commands from its state, and writes them at that state's
/// rank, so what `build` read (names, what a cascade will clear) is what the write
/// changed. Another writer in between makes it start over (`periods::apply_fresh`:
/// a few times, then "busy"). Returns the write, the state before it and `build`'s
/// extra result.
pub(super) async fn write_on_state<T: Send>(
    ctx: &Ctx,
    id: i64,
    build: impl Fn(&Schedule) -> Result<(Vec<Command>, T), Refusal> + Send,
) -> Result<(Wrote, Schedule, T), Refusal> {
    // The same read-build-write-at-that-rank loop as the period tools.
    let (before, wrote, extra) = super::periods::apply_fresh(ctx, id, build).await?;
    Ok((wrote, before, extra))
}

/// The id the model gave to the item the first applied command added.
fn added_id(w: &Wrote) -> Option<u64> {
    match w.applied.first()? {
        Command::AddMember { id, .. } => id.map(|i| i.0),
        Command::AddAbsence { id, .. } => id.map(|i| i.0),
        _ => None,
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OneSchedule {
    schedule: ScheduleRef,
}

// ---------------------------------------------------------------------------------
// Members

/// Past this many members a list ends with "… and N more".
const MEMBER_CAP: usize = 100;

/// `list_members`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct MemberList {
    schedule_id: i64,
    rank: i64,
    /// How many members the schedule has.
    count: usize,
    /// The first 100.
    members: Vec<MemberItem>,
}

/// A member, their rows and how many absences they have.
#[derive(Debug, Serialize, JsonSchema)]
struct MemberItem {
    id: MemberId,
    name: String,
    /// Only to owners and to the member themself.
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    /// The rows assigned to them (the first 20).
    rows: Vec<RowId>,
    /// How many absences they have.
    absences: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListMembers {
    schedule: ScheduleRef,
    /// Each one's load instead.
    #[serde(default)]
    workload: bool,
    /// With workload; YYYY-MM-DD.
    #[serde(default)]
    from: Option<String>,
    /// With workload; YYYY-MM-DD.
    #[serde(default)]
    to: Option<String>,
}

/// `list_members`'s result: the members, or their workload.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Members {
    List(MemberList),
    Workload(super::analysis::WorkloadAnswer),
}

async fn list_members(ctx: Ctx, p: ListMembers) -> Result<Reply, Refusal> {
    if p.workload {
        let args = super::analysis::Workload {
            schedule: p.schedule,
            from: p.from,
            to: p.to,
        };
        return super::analysis::workload(ctx, args).await;
    }
    if p.from.is_some() || p.to.is_some() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}from\u{a0}» et «\u{a0}to\u{a0}» vont avec workload: true (la charge de chacun sur cette période).",
                "“from” and “to” go with workload: true (each one's load over that range).",
            ),
        )
        .with(json!({ "field": if p.from.is_some() { "from" } else { "to" } })));
    }
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    if s.members.is_empty() {
        return Ok(Reply::ok(
            ctx.tr(
                format!(
                    "«\u{a0}{}\u{a0}» n'a aucun membre. Ajoutez-en avec add_member.",
                    s.name
                ),
                format!("“{}” has no member. Add some with add_member.", s.name),
            ),
            json!(MemberList {
                schedule_id: o.id,
                rank: o.rank,
                count: 0,
                members: vec![],
            }),
        ));
    }
    let mut text = ctx.tr(
        format!(
            "«\u{a0}{}\u{a0}»\u{a0}: {}\u{a0}:",
            s.name,
            count(Lang::Fr, s.members.len(), "membre", "membres")
        ),
        format!(
            "“{}”: {}:",
            s.name,
            count(Lang::En, s.members.len(), "member", "members")
        ),
    );
    let mut items = Vec::new();
    for m in s.members.iter().take(MEMBER_CAP) {
        let rows: Vec<_> = s.rows.iter().filter(|r| r.member == Some(m.id)).collect();
        let absences = s.absences.iter().filter(|a| a.member == m.id).count();
        text.push_str(&format!("\n- {} — {}", m.id, m.name));
        if let Some(e) = &m.email {
            text.push_str(&format!(" <{e}>"));
        }
        if !rows.is_empty() {
            let names: Vec<String> = rows.iter().take(5).map(|r| quoted(lang, &r.name)).collect();
            let more = if rows.len() > 5 { ", …" } else { "" };
            text.push_str(&ctx.tr(
                format!(
                    " — {}\u{a0}: {}{more}",
                    plural(Lang::Fr, rows.len(), "ligne", "lignes"),
                    names.join(", ")
                ),
                format!(
                    " — {}: {}{more}",
                    plural(Lang::En, rows.len(), "row", "rows"),
                    names.join(", ")
                ),
            ));
        }
        if absences > 0 {
            text.push_str(&ctx.tr(
                format!(" — {}", count(Lang::Fr, absences, "absence", "absences")),
                format!(" — {}", count(Lang::En, absences, "absence", "absences")),
            ));
        }
        items.push(MemberItem {
            id: m.id,
            name: m.name.clone(),
            email: m.email.clone(),
            rows: rows.iter().take(20).map(|r| r.id).collect(),
            absences,
        });
    }
    if s.members.len() > MEMBER_CAP {
        text.push('\n');
        text.push_str(&more_line(&ctx, s.members.len() - MEMBER_CAP));
    }
    if !o.viewer.sees_all() {
        text.push('\n');
        text.push_str(&ctx.tr(
            "Les e-mails ne sont montrés qu'aux propriétaires du planning et à chaque membre pour lui-même.",
            "E-mails are shown only to the schedule's owners and to each member for themself.",
        ));
    }
    Ok(Reply::ok(
        text,
        json!(MemberList {
            schedule_id: o.id,
            rank: o.rank,
            count: s.members.len(),
            members: items,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddMember {
    schedule: ScheduleRef,
    /// Full name.
    name: String,
    /// Private (owners and the member).
    #[serde(default)]
    email: Option<String>,
}

/// `add_member`'s and `update_member`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct MemberWritten {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    member: MemberId,
}

async fn add_member(ctx: Ctx, p: AddMember) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let email = p
        .email
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty());
    let has_email = email.is_some();
    let cmd = Command::AddMember {
        id: None,
        name: p.name.trim().to_owned(),
        email,
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let member = MemberId(added_id(&wrote).unwrap_or(0));
    let name = p.name.trim();
    let mut text = ctx.tr(
        format!(
            "Membre «\u{a0}{name}\u{a0}» ajouté à «\u{a0}{}\u{a0}» (id {member})\u{202f}; rang {}.",
            wrote.state.name, wrote.rank
        ),
        format!(
            "Member “{name}” added to “{}” (id {member}); rank {}.",
            wrote.state.name, wrote.rank
        ),
    );
    if has_email {
        text.push_str(&ctx.tr(
            " Son e-mail est enregistré\u{202f}; seuls les propriétaires et ce membre le voient.",
            " Their e-mail is recorded; only owners and this member see it.",
        ));
    }
    text.push_str(&ctx.tr(
        " Affectez-le à des lignes avec update_row.",
        " Assign them to rows with update_row.",
    ));
    Ok(Reply::ok(
        text,
        json!(MemberWritten {
            schedule_id: id,
            rank: wrote.rank,
            member,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateMember {
    schedule: ScheduleRef,
    /// Id or name.
    member: MemberRef,
    /// New name.
    #[serde(default)]
    name: Option<String>,
    /// null clears. Owners or the member only.
    #[serde(default, deserialize_with = "nullable")]
    email: Option<Option<String>>,
}

async fn update_member(ctx: Ctx, p: UpdateMember) -> Result<Reply, Refusal> {
    // Who may set an e-mail is the gate's rule (owners, or the member themself),
    // decided for this tool and apply_patch alike.
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.name.is_none() && p.email.is_none() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Rien à changer\u{a0}: donnez «\u{a0}name\u{a0}» et/ou «\u{a0}email\u{a0}» (null efface l'e-mail).",
                "Nothing to change: give “name” and/or “email” (null clears the e-mail).",
            ),
        ));
    }
    let name = p.name.as_ref().map(|n| n.trim().to_owned());
    let email = p
        .email
        .clone()
        .map(|e| e.map(|e| e.trim().to_owned()).filter(|e| !e.is_empty()));
    let (wrote, _, (member, old_name)) = write_on_state(&ctx, id, |s| {
        let m = find_member(&ctx, s, &p.member)?;
        let cmd = Command::UpdateMember {
            member: m.id,
            name: name.clone(),
            email: email.clone(),
        };
        Ok((vec![cmd], (m.id, m.name.clone())))
    })
    .await?;
    let mut changes = Vec::new();
    if let Some(n) = &name {
        changes.push(ctx.tr(
            format!("nom «\u{a0}{old_name}\u{a0}» → «\u{a0}{n}\u{a0}»"),
            format!("name “{old_name}” → “{n}”"),
        ));
    }
    match &email {
        Some(Some(_)) => changes.push(ctx.tr("e-mail changé", "e-mail changed")),
        Some(None) => changes.push(ctx.tr("e-mail effacé", "e-mail cleared")),
        None => {}
    }
    let text = ctx.tr(
        format!(
            "Membre {member} mis à jour\u{a0}: {}\u{202f}; rang {}.",
            changes.join(", "),
            wrote.rank
        ),
        format!(
            "Member {member} updated: {}; rank {}.",
            changes.join(", "),
            wrote.rank
        ),
    );
    Ok(Reply::ok(
        text,
        json!(MemberWritten {
            schedule_id: id,
            rank: wrote.rank,
            member,
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteMember {
    pub(super) schedule: ScheduleRef,
    /// Id or name.
    pub(super) member: MemberRef,
}

/// `delete_member`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct MemberDeleted {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    member: MemberId,
    cleared: Cleared,
}

/// What went with the member: rows and actions unassigned, absences deleted (the
/// first 100 ids of each, and how many).
#[derive(Debug, Serialize, JsonSchema)]
struct Cleared {
    rows: Vec<u64>,
    actions: Vec<u64>,
    absences: Vec<u64>,
    counts: ClearedCounts,
}

/// How many rows, actions and absences went with the member.
#[derive(Debug, Serialize, JsonSchema)]
struct ClearedCounts {
    rows: usize,
    actions: usize,
    absences: usize,
}

/// What deleting a member clears, read from the state before the delete.
struct Cascade {
    member: MemberId,
    name: String,
    rows: Vec<(u64, String)>,
    actions: Vec<u64>,
    absences: Vec<u64>,
}

pub(super) async fn delete_member(ctx: Ctx, p: DeleteMember) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let (wrote, _, c) = write_on_state(&ctx, id, |s| {
        let m = find_member(&ctx, s, &p.member)?;
        let c = Cascade {
            member: m.id,
            name: m.name.clone(),
            rows: s
                .rows
                .iter()
                .filter(|r| r.member == Some(m.id))
                .map(|r| (r.id.0, r.name.clone()))
                .collect(),
            actions: s
                .actions
                .iter()
                .filter(|a| a.assignee == Some(m.id))
                .map(|a| a.id.0)
                .collect(),
            absences: s
                .absences
                .iter()
                .filter(|a| a.member == m.id)
                .map(|a| a.id.0)
                .collect(),
        };
        Ok((vec![Command::DeleteMember { member: m.id }], c))
    })
    .await?;
    let lang = ctx.lang();
    let mut text = ctx.tr(
        format!(
            "Membre «\u{a0}{}\u{a0}» ({}) supprimé\u{202f}; rang {}.",
            c.name, c.member, wrote.rank
        ),
        format!(
            "Member “{}” ({}) deleted; rank {}.",
            c.name, c.member, wrote.rank
        ),
    );
    if c.rows.is_empty() && c.actions.is_empty() && c.absences.is_empty() {
        text.push_str(&ctx.tr(
            " Il n'était affecté à rien\u{a0}: rien d'autre n'a changé.",
            " They were assigned to nothing: nothing else changed.",
        ));
    } else {
        let mut parts = Vec::new();
        if !c.rows.is_empty() {
            let names: Vec<String> = c
                .rows
                .iter()
                .take(10)
                .map(|(id, n)| format!("{} ({id})", quoted(lang, n)))
                .collect();
            let more = if c.rows.len() > 10 { ", …" } else { "" };
            parts.push(ctx.tr(
                format!(
                    "retiré de {}\u{a0}: {}{more}",
                    count(Lang::Fr, c.rows.len(), "ligne", "lignes"),
                    names.join(", ")
                ),
                format!(
                    "removed from {}: {}{more}",
                    count(Lang::En, c.rows.len(), "row", "rows"),
                    names.join(", ")
                ),
            ));
        }
        if !c.actions.is_empty() {
            parts.push(ctx.tr(
                format!(
                    "désassigné de {}",
                    count(Lang::Fr, c.actions.len(), "action", "actions")
                ),
                format!(
                    "unassigned from {}",
                    count(Lang::En, c.actions.len(), "action", "actions")
                ),
            ));
        }
        if !c.absences.is_empty() {
            parts.push(ctx.tr(
                count(
                    Lang::Fr,
                    c.absences.len(),
                    "absence supprimée",
                    "absences supprimées",
                ),
                format!(
                    "{} deleted",
                    count(Lang::En, c.absences.len(), "absence", "absences")
                ),
            ));
        }
        text.push_str(&ctx.tr(
            format!(
                " Effacé avec lui\u{a0}: {}. undo rétablit le tout.",
                parts.join("\u{202f}; ")
            ),
            format!(
                " Cleared with them: {}. undo brings it all back.",
                parts.join("; ")
            ),
        ));
    }
    let cap = |v: &[u64]| v.iter().take(100).copied().collect::<Vec<_>>();
    let rows: Vec<u64> = c.rows.iter().map(|(id, _)| *id).collect();
    Ok(Reply::ok(
        text,
        json!(MemberDeleted {
            schedule_id: id,
            rank: wrote.rank,
            member: c.member,
            cleared: Cleared {
                rows: cap(&rows),
                actions: cap(&c.actions),
                absences: cap(&c.absences),
                counts: ClearedCounts {
                    rows: rows.len(),
                    actions: c.actions.len(),
                    absences: c.absences.len(),
                },
            },
        }),
    ))
}

// ---------------------------------------------------------------------------------
// Access (roles)

/// A role as a tool argument.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum RoleArg {
    /// Reads the schedule.
    Viewer,
    /// Reads and changes it.
    Editor,
    /// Also shares it and sees private data.
    Owner,
    /// No access any more.
    None,
}

/// "viewer", "editor" or "owner": the schema of a role as answers write it
/// (`Role::as_str`; only the schema is used).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum RoleName {
    Viewer,
    Editor,
    Owner,
}

/// `share_schedule`'s result: the role given, or the access removed.
#[allow(dead_code)] // a schema only: each answer is built as the type it names
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Sharing {
    Shared(Shared),
    Unshared(Unshared),
}

/// A role given.
#[derive(Debug, Serialize, JsonSchema)]
struct Shared {
    schedule_id: i64,
    user_id: i64,
    /// The role the user has now.
    #[schemars(with = "RoleName")]
    role: &'static str,
    /// The role they had; null when they had none.
    #[schemars(with = "Option<RoleName>")]
    previous: Option<&'static str>,
}

/// An access removed (role "none").
#[derive(Debug, Serialize, JsonSchema)]
struct Unshared {
    schedule_id: i64,
    user_id: i64,
    /// The role the user had.
    #[schemars(with = "RoleName")]
    removed: &'static str,
}

/// `list_access`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct AccessList {
    schedule_id: i64,
    /// How many users have access.
    count: usize,
    /// The first 100.
    users: Vec<AccessItem>,
}

/// A user with access, and their role.
#[derive(Debug, Serialize, JsonSchema)]
struct AccessItem {
    user_id: i64,
    name: String,
    /// Only to owners.
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[schemars(with = "RoleName")]
    role: &'static str,
}

impl RoleArg {
    /// The role given; `None` for no access.
    fn role(self) -> Option<Role> {
        match self {
            RoleArg::Viewer => Some(Role::Viewer),
            RoleArg::Editor => Some(Role::Editor),
            RoleArg::Owner => Some(Role::Owner),
            RoleArg::None => None,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Share {
    schedule: ScheduleRef,
    /// A server user's e-mail.
    email: String,
    /// Role to give.
    role: RoleArg,
}

/// The server's user with this e-mail (as typed, then in lower case: addresses are
/// usually stored in lower case).
async fn user_by_email(ctx: &Ctx, email: &str) -> Result<Option<User>, Refusal> {
    let email = email.trim();
    let db = |e| ctx.db_error(e);
    if let Some(u) = ctx.store().user_by_email(email).await.map_err(db)? {
        return Ok(Some(u));
    }
    let lower = email.to_lowercase();
    if lower != email {
        return ctx.store().user_by_email(&lower).await.map_err(db);
    }
    Ok(None)
}

fn no_such_user(ctx: &Ctx, email: &str) -> Refusal {
    let email = email.trim();
    Refusal::new(
        Code::UserNotFound,
        ctx.tr(
            format!("Aucun utilisateur de ce serveur n'a l'e-mail «\u{a0}{email}\u{a0}». Créez son compte avec `palmaplan user add` sur le serveur, puis partagez à nouveau."),
            format!("No user of this server has the e-mail “{email}”. Create their account with `palmaplan user add` on the server, then share again."),
        ),
    )
}

fn last_owner(ctx: &Ctx, name: &str) -> Refusal {
    Refusal::new(
        Code::LastOwner,
        ctx.tr(
            format!("«\u{a0}{name}\u{a0}» doit garder au moins un propriétaire, et c'est le dernier. Donnez d'abord le rôle owner à quelqu'un d'autre avec share_schedule."),
            format!("“{name}” must keep at least one owner, and this is the last one. First give the owner role to someone else with share_schedule."),
        ),
    )
}

async fn share_schedule(ctx: Ctx, p: Share) -> Result<Reply, Refusal> {
    let Some(role) = p.role.role() else {
        return unshare_schedule(ctx, &p.schedule, &p.email).await;
    };
    let (id, _) = ctx.open(&p.schedule).await?;
    let user = user_by_email(&ctx, &p.email)
        .await?
        .ok_or_else(|| no_such_user(&ctx, &p.email))?;
    let name = schedule_name(&ctx, id).await?;
    // The check and the change in one transaction: two owners demoting each other at
    // once cannot leave the schedule without one.
    let before = match ctx
        .store()
        .change_role_keeping_an_owner(id, user.id, Some(role))
        .await
        .map_err(|e| ctx.db_error(e))?
    {
        RoleChange::Done { before } => before,
        RoleChange::LastOwner => return Err(last_owner(&ctx, &name)),
    };
    let who = format!("{} <{}>", user.name, user.email);
    let new = |l| role_name(role, l);
    let text = match before {
        Some(old) if old == role => ctx.tr(
            format!(
                "{who} avait déjà le rôle {} sur «\u{a0}{name}\u{a0}»\u{a0}: rien n'a changé.",
                new(Lang::Fr)
            ),
            format!(
                "{who} already had the {} role on “{name}”: nothing changed.",
                new(Lang::En)
            ),
        ),
        Some(old) => ctx.tr(
            format!(
                "{who} passe de {} à {} sur «\u{a0}{name}\u{a0}».",
                role_name(old, Lang::Fr),
                new(Lang::Fr)
            ),
            format!(
                "{who} goes from {} to {} on “{name}”.",
                role_name(old, Lang::En),
                new(Lang::En)
            ),
        ),
        None => ctx.tr(
            format!(
                "«\u{a0}{name}\u{a0}» est partagé avec {who}, comme {}.",
                new(Lang::Fr)
            ),
            format!("“{name}” is shared with {who}, as {}.", new(Lang::En)),
        ),
    };
    Ok(Reply::ok(
        text,
        json!(Shared {
            schedule_id: id,
            user_id: user.id,
            role: role.as_str(),
            previous: before.map(Role::as_str),
        }),
    ))
}

/// A schedule's name, from its list entry (cheaper than loading its state).
async fn schedule_name(ctx: &Ctx, id: i64) -> Result<String, Refusal> {
    let mine = ctx
        .store()
        .schedules_of(ctx.caller.user_id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    Ok(mine
        .into_iter()
        .find(|s| s.id == id)
        .map_or_else(|| id.to_string(), |s| s.name))
}

async fn unshare_schedule(ctx: Ctx, schedule: &ScheduleRef, email: &str) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(schedule).await?;
    let name = schedule_name(&ctx, id).await?;
    let user = user_by_email(&ctx, email)
        .await?
        .ok_or_else(|| no_such_user(&ctx, email))?;
    let before = match ctx
        .store()
        .change_role_keeping_an_owner(id, user.id, None)
        .await
        .map_err(|e| ctx.db_error(e))?
    {
        RoleChange::Done { before } => before,
        RoleChange::LastOwner => return Err(last_owner(&ctx, &name)),
    };
    let Some(role) = before else {
        return Err(Refusal::new(
            Code::NoAccess,
            ctx.tr(
                format!("{} <{}> n'a pas accès à «\u{a0}{name}\u{a0}»\u{a0}: rien à retirer. list_access montre qui y a accès.", user.name, user.email),
                format!("{} <{}> has no access to “{name}”: nothing to remove. list_access shows who has.", user.name, user.email),
            ),
        ));
    };
    let mut text = ctx.tr(
        format!(
            "{} <{}> n'a plus accès à «\u{a0}{name}\u{a0}» (était {}).",
            user.name,
            user.email,
            role_name(role, Lang::Fr)
        ),
        format!(
            "{} <{}> no longer has access to “{name}” (was {}).",
            user.name,
            user.email,
            role_name(role, Lang::En)
        ),
    );
    if user.id == ctx.caller.user_id {
        text.push_str(&ctx.tr(
            " C'était vous\u{a0}: ce planning n'apparaît plus dans vos listes.",
            " That was you: this schedule no longer appears in your lists.",
        ));
    }
    Ok(Reply::ok(
        text,
        json!(Unshared {
            schedule_id: id,
            user_id: user.id,
            removed: role.as_str(),
        }),
    ))
}

async fn list_access(ctx: Ctx, p: OneSchedule) -> Result<Reply, Refusal> {
    let (id, role) = ctx.open(&p.schedule).await?;
    let name = schedule_name(&ctx, id).await?;
    let access = ctx
        .store()
        .members_with_roles(id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let owner = role == Role::Owner;
    let mut text = ctx.tr(
        format!(
            "Accès à «\u{a0}{name}\u{a0}» ({})\u{a0}:",
            count(Lang::Fr, access.len(), "personne", "personnes")
        ),
        format!(
            "Access to “{name}” ({}):",
            count(Lang::En, access.len(), "person", "people")
        ),
    );
    let mut items = Vec::new();
    for (u, r) in access.iter().take(MEMBER_CAP) {
        text.push_str(&format!("\n- {}", u.name));
        if owner {
            text.push_str(&format!(" <{}>", u.email));
        }
        text.push_str(&format!(" — {}", role_name(*r, ctx.lang())));
        if u.id == ctx.caller.user_id {
            text.push_str(&ctx.tr(" (vous)", " (you)"));
        }
        items.push(AccessItem {
            user_id: u.id,
            name: u.name.clone(),
            email: owner.then(|| u.email.clone()),
            role: r.as_str(),
        });
    }
    if access.len() > MEMBER_CAP {
        text.push('\n');
        text.push_str(&more_line(&ctx, access.len() - MEMBER_CAP));
    }
    if owner {
        text.push_str(&ctx.tr(
            "\nChangez les accès avec share_schedule (role «\u{a0}none\u{a0}» pour en retirer un).",
            "\nChange access with share_schedule (role “none” removes one).",
        ));
    }
    Ok(Reply::ok(
        text,
        json!(AccessList {
            schedule_id: id,
            count: access.len(),
            users: items,
        }),
    ))
}

// ---------------------------------------------------------------------------------
// Absences

/// The bars an absence puts at risk, with the days of the absence each loses.
pub(super) fn risks_of(risks: &[AbsenceRisk], a: &Absence) -> Vec<(BarId, Vec<Date>)> {
    risks
        .iter()
        .filter(|r| r.absences.contains(&a.id))
        .map(|r| {
            let days = r
                .days
                .iter()
                .copied()
                .filter(|d| (a.start..=a.end).contains(d))
                .collect();
            (r.bar, days)
        })
        .collect()
}

/// "« Audit » (13) : 2026-11-26 → 2026-11-27 (2 jours ouvrés)".
fn risk_line(lang: Lang, s: &Schedule, bar: BarId, days: &[Date]) -> String {
    let label = s.bar(bar).map_or("?", |b| b.label.as_str());
    let span = match (days.first(), days.last()) {
        (Some(a), Some(b)) => span_text(*a, *b),
        _ => String::new(),
    };
    let sep = if lang == Lang::Fr { "\u{a0}:" } else { ":" };
    format!(
        "{} ({bar}){sep} {span} ({})",
        quoted(lang, label),
        working_days(lang, days.len() as i64)
    )
}

/// The lines saying which bars an absence puts at risk, capped.
fn risk_block(ctx: &Ctx, s: &Schedule, at_risk: &[(BarId, Vec<Date>)], now: bool) -> String {
    if at_risk.is_empty() {
        return if now {
            ctx.tr(
                "Aucun bloc n'est mis à risque (aucun bloc des lignes de ce membre pendant l'absence).",
                "No bar is put at risk (no bar on this member's rows during the absence).",
            )
        } else {
            ctx.tr(
                "Elle ne mettait aucun bloc à risque.",
                "It put no bar at risk.",
            )
        };
    }
    let mut out = if now {
        ctx.tr(
            format!(
                "{} ({})\u{a0}:",
                plural(
                    Lang::Fr,
                    at_risk.len(),
                    "Bloc mis à risque",
                    "Blocs mis à risque"
                ),
                at_risk.len()
            ),
            format!(
                "{} ({}):",
                plural(
                    Lang::En,
                    at_risk.len(),
                    "Bar put at risk",
                    "Bars put at risk"
                ),
                at_risk.len()
            ),
        )
    } else {
        ctx.tr(
            format!(
                "{} de cette absence ({})\u{a0}:",
                plural(
                    Lang::Fr,
                    at_risk.len(),
                    "Bloc qui n'est plus à risque",
                    "Blocs qui ne sont plus à risque"
                ),
                at_risk.len()
            ),
            format!(
                "{} no longer at risk of this absence ({}):",
                plural(Lang::En, at_risk.len(), "Bar", "Bars"),
                at_risk.len()
            ),
        )
    };
    for (bar, days) in at_risk.iter().take(LIST_CAP) {
        out.push_str("\n- ");
        out.push_str(&risk_line(ctx.lang(), s, *bar, days));
    }
    if at_risk.len() > LIST_CAP {
        out.push('\n');
        out.push_str(&more_line(ctx, at_risk.len() - LIST_CAP));
    }
    out
}

fn absence_not_found(ctx: &Ctx, s: &Schedule, id: u64) -> Refusal {
    Refusal::new(
        Code::AbsenceNotFound,
        ctx.tr(
            format!("Aucune absence d'id {id} dans «\u{a0}{}\u{a0}». Appelez list_absences pour voir les absences et leurs ids.", s.name),
            format!("No absence with id {id} in “{}”. Call list_absences to see the absences and their ids.", s.name),
        ),
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddAbsence {
    schedule: ScheduleRef,
    /// Id or name.
    member: MemberRef,
    /// YYYY-MM-DD.
    start: String,
    /// YYYY-MM-DD, inclusive.
    end: String,
    /// Private: owners and the member only.
    #[serde(default)]
    reason: Option<String>,
}

/// `add_absence`'s result (never its reason: write answers hold no private data).
#[derive(Debug, Serialize, JsonSchema)]
struct AbsenceAdded {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    absence: AbsenceId,
    member: MemberId,
    /// The bars it puts at risk (the first 100).
    bars_at_risk: Vec<BarId>,
}

async fn add_absence(ctx: Ctx, p: AddAbsence) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let start = parse_date(&ctx, "start", &p.start)?;
    let end = parse_date(&ctx, "end", &p.end)?;
    let reason = p.reason.clone().filter(|r| !r.trim().is_empty());
    let (wrote, _, (member, name)) = write_on_state(&ctx, id, |s| {
        let m = find_member(&ctx, s, &p.member)?;
        let cmd = Command::AddAbsence {
            id: None,
            member: m.id,
            start,
            end,
            reason: reason.clone(),
        };
        Ok((vec![cmd], (m.id, m.name.clone())))
    })
    .await?;
    let absence_id = added_id(&wrote).unwrap_or(0);
    let absence = AbsenceId(absence_id);
    let s = &wrote.state;
    let cal = Calendar::for_schedule(s);
    let at_risk = s
        .absence(absence)
        .map(|a| risks_of(&risk::absence_risks(s, &cal), a))
        .unwrap_or_default();
    let days = working_days(ctx.lang(), cal.working_days_in(start, end));
    let text = format!(
        "{}\n{}",
        ctx.tr(
            format!(
                "Absence de {name} ajoutée (id {absence_id})\u{a0}: {} ({days})\u{202f}; rang {}.",
                span_text(start, end),
                wrote.rank
            ),
            format!(
                "Absence of {name} added (id {absence_id}): {} ({days}); rank {}.",
                span_text(start, end),
                wrote.rank
            ),
        ),
        risk_block(&ctx, s, &at_risk, true)
    );
    Ok(Reply::ok(
        text,
        json!(AbsenceAdded {
            schedule_id: id,
            rank: wrote.rank,
            absence,
            member,
            bars_at_risk: at_risk.iter().take(100).map(|(b, _)| *b).collect(),
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateAbsence {
    schedule: ScheduleRef,
    /// Absence id.
    absence: u64,
    /// YYYY-MM-DD.
    #[serde(default)]
    start: Option<String>,
    /// YYYY-MM-DD, inclusive.
    #[serde(default)]
    end: Option<String>,
    /// "" clears. Owners or the member only.
    #[serde(default)]
    reason: Option<String>,
}

/// `update_absence`'s result: its days now (never the reason).
#[derive(Debug, Serialize, JsonSchema)]
struct AbsenceUpdated {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    absence: AbsenceId,
    member: MemberId,
    start: Date,
    /// Last day, inclusive.
    end: Date,
    /// The bars it now puts at risk (the first 100).
    bars_at_risk: Vec<BarId>,
}

async fn update_absence(ctx: Ctx, p: UpdateAbsence) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.start.is_none() && p.end.is_none() && p.reason.is_none() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Rien à changer\u{a0}: donnez «\u{a0}start\u{a0}», «\u{a0}end\u{a0}» et/ou «\u{a0}reason\u{a0}».",
                "Nothing to change: give “start”, “end” and/or “reason”.",
            ),
        ));
    }
    let start = opt_date(&ctx, "start", p.start.as_deref())?;
    let end = opt_date(&ctx, "end", p.end.as_deref())?;
    let reason = p.reason.as_ref().map(|r| r.trim().to_owned());
    let absence = AbsenceId(p.absence);
    let (wrote, _, ()) = write_on_state(&ctx, id, |s| {
        if s.absence(absence).is_none() {
            return Err(absence_not_found(&ctx, s, p.absence));
        }
        let cmd = Command::UpdateAbsence {
            absence,
            start,
            end,
            reason: reason.clone(),
        };
        Ok((vec![cmd], ()))
    })
    .await?;
    let s = &wrote.state;
    let Some(a) = s.absence(absence) else {
        return Err(absence_not_found(&ctx, s, p.absence));
    };
    let cal = Calendar::for_schedule(s);
    let at_risk = risks_of(&risk::absence_risks(s, &cal), a);
    let name = s.member(a.member).map_or("?", |m| m.name.as_str());
    let days = working_days(ctx.lang(), cal.working_days_in(a.start, a.end));
    let reason_note = match &reason {
        Some(r) if r.is_empty() => ctx.tr(" Motif effacé.", " Reason cleared."),
        Some(_) => ctx.tr(" Motif changé.", " Reason changed."),
        None => String::new(),
    };
    let text = format!(
        "{}\n{}",
        ctx.tr(
            format!(
                "Absence {absence} de {name} mise à jour\u{a0}: {} ({days})\u{202f}; rang {}.{reason_note}",
                span_text(a.start, a.end),
                wrote.rank
            ),
            format!(
                "Absence {absence} of {name} updated: {} ({days}); rank {}.{reason_note}",
                span_text(a.start, a.end),
                wrote.rank
            ),
        ),
        risk_block(&ctx, s, &at_risk, true)
    );
    Ok(Reply::ok(
        text,
        json!(AbsenceUpdated {
            schedule_id: id,
            rank: wrote.rank,
            absence,
            member: a.member,
            start: a.start,
            end: a.end,
            bars_at_risk: at_risk.iter().take(100).map(|(b, _)| *b).collect(),
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteAbsence {
    pub(super) schedule: ScheduleRef,
    /// Absence id.
    pub(super) absence: u64,
}

/// `delete_absence`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct AbsenceDeleted {
    schedule_id: i64,
    /// The schedule's rank after the write.
    rank: i64,
    absence: AbsenceId,
    /// The bars it put at risk (the first 100).
    bars_no_longer_at_risk: Vec<BarId>,
}

pub(super) async fn delete_absence(ctx: Ctx, p: DeleteAbsence) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let absence = AbsenceId(p.absence);
    let (wrote, before, a) = write_on_state(&ctx, id, |s| {
        let a = s
            .absence(absence)
            .ok_or_else(|| absence_not_found(&ctx, s, p.absence))?;
        Ok((vec![Command::DeleteAbsence { absence }], a.clone()))
    })
    .await?;
    let cal = Calendar::for_schedule(&before);
    let was = risks_of(&risk::absence_risks(&before, &cal), &a);
    let name = before.member(a.member).map_or("?", |m| m.name.as_str());
    let text = format!(
        "{}\n{}",
        ctx.tr(
            format!(
                "Absence {absence} de {name} ({}) supprimée\u{202f}; rang {}.",
                span_text(a.start, a.end),
                wrote.rank
            ),
            format!(
                "Absence {absence} of {name} ({}) deleted; rank {}.",
                span_text(a.start, a.end),
                wrote.rank
            ),
        ),
        risk_block(&ctx, &before, &was, false)
    );
    Ok(Reply::ok(
        text,
        json!(AbsenceDeleted {
            schedule_id: id,
            rank: wrote.rank,
            absence,
            bars_no_longer_at_risk: was.iter().take(100).map(|(b, _)| *b).collect(),
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListAbsences {
    schedule: ScheduleRef,
    /// Only this member's (id or name).
    #[serde(default)]
    member: Option<MemberRef>,
    /// Ending on or after, YYYY-MM-DD.
    #[serde(default)]
    from: Option<String>,
    /// Starting on or before, YYYY-MM-DD.
    #[serde(default)]
    to: Option<String>,
}

/// `list_absences`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct AbsenceList {
    schedule_id: i64,
    rank: i64,
    /// How many absences match.
    count: usize,
    /// By start date (the first 50).
    absences: Vec<AbsenceItem>,
}

/// An absence, with the bars it puts at risk.
#[derive(Debug, Serialize, JsonSchema)]
struct AbsenceItem {
    id: AbsenceId,
    member: MemberId,
    start: Date,
    /// Last day, inclusive.
    end: Date,
    /// The working days it covers.
    working_days: i64,
    /// The first 20.
    bars_at_risk: Vec<BarId>,
    /// Only to owners and to the member, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

async fn list_absences(ctx: Ctx, p: ListAbsences) -> Result<Reply, Refusal> {
    let from = opt_date(&ctx, "from", p.from.as_deref())?;
    let to = opt_date(&ctx, "to", p.to.as_deref())?;
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    let member = p
        .member
        .as_ref()
        .map(|r| find_member(&ctx, s, r).map(|m| m.id))
        .transpose()?;
    let mut list: Vec<&Absence> = s
        .absences
        .iter()
        .filter(|a| member.is_none_or(|m| a.member == m))
        .filter(|a| from.is_none_or(|f| a.end >= f) && to.is_none_or(|t| a.start <= t))
        .collect();
    list.sort_by_key(|a| (a.start, a.id));
    let cal = Calendar::for_schedule(s);
    let risks = risk::absence_risks(s, &cal);
    let mut text = if list.is_empty() {
        ctx.tr(
            format!(
                "Aucune absence dans «\u{a0}{}\u{a0}» pour ces critères.",
                s.name
            ),
            format!("No absence in “{}” for these criteria.", s.name),
        )
    } else {
        ctx.tr(
            format!(
                "«\u{a0}{}\u{a0}»\u{a0}: {}\u{a0}:",
                s.name,
                count(Lang::Fr, list.len(), "absence", "absences")
            ),
            format!(
                "“{}”: {}:",
                s.name,
                count(Lang::En, list.len(), "absence", "absences")
            ),
        )
    };
    let mut items = Vec::new();
    for a in list.iter().take(LIST_CAP) {
        let name = s.member(a.member).map_or("?", |m| m.name.as_str());
        let days = cal.working_days_in(a.start, a.end);
        let at_risk = risks_of(&risks, a);
        text.push_str(&format!(
            "\n- {} — {name}, {} ({})",
            a.id,
            span_text(a.start, a.end),
            working_days(lang, days)
        ));
        if !a.reason.is_empty() {
            text.push_str(&ctx.tr(
                format!(" — motif\u{a0}: {}", a.reason),
                format!(" — reason: {}", a.reason),
            ));
        }
        if !at_risk.is_empty() {
            let bars: Vec<String> = at_risk
                .iter()
                .take(5)
                .map(|(b, _)| {
                    let label = s.bar(*b).map_or("?", |x| x.label.as_str());
                    format!("{} ({b})", quoted(lang, label))
                })
                .collect();
            let more = if at_risk.len() > 5 { ", …" } else { "" };
            text.push_str(&ctx.tr(
                format!(" — met à risque\u{a0}: {}{more}", bars.join(", ")),
                format!(" — puts at risk: {}{more}", bars.join(", ")),
            ));
        }
        items.push(AbsenceItem {
            id: a.id,
            member: a.member,
            start: a.start,
            end: a.end,
            working_days: days,
            bars_at_risk: at_risk.iter().take(20).map(|(b, _)| *b).collect(),
            reason: (!a.reason.is_empty()).then(|| a.reason.clone()),
        });
    }
    if list.len() > LIST_CAP {
        text.push('\n');
        text.push_str(&more_line(&ctx, list.len() - LIST_CAP));
    }
    if !o.viewer.sees_all() && !list.is_empty() {
        text.push('\n');
        text.push_str(&ctx.tr(
            "Les motifs ne sont montrés qu'aux propriétaires et au membre concerné.",
            "Reasons are shown only to owners and to the member concerned.",
        ));
    }
    Ok(Reply::ok(
        text,
        json!(AbsenceList {
            schedule_id: o.id,
            rank: o.rank,
            count: list.len(),
            absences: items,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::{Kit, en};
    use super::*;

    /// Everything a caller receives, text and structured, as one string.
    fn all_bytes(r: &Reply) -> String {
        format!("{}\n{}", r.text, r.structured)
    }

    const REASON: &str = "Rendez-vous";

    #[tokio::test]
    async fn absence_reasons_and_emails_reach_only_owners_and_the_member() {
        let k = Kit::new("absence-privacy").await;
        let args = json!({ "schedule": k.schedule });
        for who in [&k.viewer, &k.editor] {
            for tool in ["list_absences", "list_members"] {
                let r = k.ok(who, tool, args.clone()).await;
                let bytes = all_bytes(&r);
                assert!(!bytes.contains('@'), "{tool}: {bytes}");
                assert!(!bytes.contains(REASON), "{tool}: {bytes}");
            }
        }
        // Thomas sees his own e-mail and reason, and nobody else's e-mail.
        let r = k.ok(&k.thomas, "list_absences", args.clone()).await;
        assert!(
            r.text.contains("motif\u{a0}: Rendez-vous médical"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["absences"][0]["reason"], "Rendez-vous médical");
        let r = k.ok(&k.thomas, "list_members", args.clone()).await;
        assert!(r.text.contains("<thomas.dubois@example.org>"), "{}", r.text);
        assert_eq!(all_bytes(&r).matches('@').count(), 2, "{}", r.text);
        // The owner sees everything.
        let r = k.ok(&k.owner, "list_absences", args.clone()).await;
        assert!(r.text.contains("Rendez-vous médical"), "{}", r.text);
        assert!(!r.text.contains("ne sont montrés"), "{}", r.text);
        let r = k.ok(&k.owner, "list_members", args.clone()).await;
        assert_eq!(r.structured["members"].as_array().unwrap().len(), 4);
        assert!(
            r.text.contains("<camille.martin@example.org>"),
            "{}",
            r.text
        );
        // The reply names the bar at risk.
        let r = k.ok(&k.viewer, "list_absences", args).await;
        assert!(
            r.text
                .contains("met à risque\u{a0}: «\u{a0}Adaptation du code ABAP\u{a0}» (15)"),
            "{}",
            r.text
        );
        // No role, no list.
        let r = k
            .refused(
                &k.stranger,
                "list_absences",
                json!({ "schedule": k.schedule }),
            )
            .await;
        assert_eq!(r.structured["error"], "schedule_not_found");
    }

    #[tokio::test]
    async fn absences_say_which_bars_they_put_at_risk() {
        let k = Kit::new("absence-risks").await;
        // An absence's reason is private: its owner (or the member) records it.
        let ed = en(&k.owner);
        // Camille does the user acceptance (2026-12-07 → 2026-12-11).
        let r = k
            .ok(
                &ed,
                "add_absence",
                json!({ "schedule": k.schedule, "member": "camille", "start": "2026-12-10",
                        "end": "2026-12-14", "reason": "Congés" }),
            )
            .await;
        assert!(
            r.text.contains("Absence of Camille Martin added"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("“Recette utilisateurs” (17): 2026-12-10 → 2026-12-11 (2 working days)"),
            "{}",
            r.text
        );
        assert!(
            !r.text.contains("Congés"),
            "a write does not echo the reason"
        );
        let id = r.structured["absence"].as_u64().unwrap();
        assert_eq!(r.structured["bars_at_risk"], json!([17]));

        let r = k
            .ok(
                &ed,
                "update_absence",
                json!({ "schedule": k.schedule, "absence": id, "start": "2026-12-14" }),
            )
            .await;
        assert!(r.text.contains("No bar is put at risk"), "{}", r.text);

        let r = k
            .ok(
                &k.editor,
                "delete",
                json!({ "schedule": k.schedule, "absence": 31 }),
            )
            .await;
        assert!(
            r.text.contains("n'est plus à risque de cette absence (1)"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("«\u{a0}Adaptation du code ABAP\u{a0}» (15)"),
            "{}",
            r.text
        );
        assert!(!r.text.contains(REASON), "{}", r.text);

        // Filters: only Camille's, and a range that misses it.
        let r = k
            .ok(
                &k.viewer,
                "list_absences",
                json!({ "schedule": k.schedule, "member": 1, "to": "2026-12-01" }),
            )
            .await;
        assert_eq!(r.structured["count"], 0, "{}", r.text);
        // Bad calls say what to fix.
        let r = k
            .refused(
                &k.editor,
                "add_absence",
                json!({ "schedule": k.schedule, "member": "nobody", "start": "2026-12-01", "end": "2026-12-02" }),
            )
            .await;
        assert!(r.text.contains("list_members"), "{}", r.text);
        let r = k
            .refused(
                &k.editor,
                "add_absence",
                json!({ "schedule": k.schedule, "member": 1, "start": "2026-12-05", "end": "2026-12-02" }),
            )
            .await;
        assert!(r.text.contains("précède le début"), "{}", r.text);
        let r = k
            .refused(
                &k.viewer,
                "add_absence",
                json!({ "schedule": k.schedule, "member": 1, "start": "2026-12-01", "end": "2026-12-02" }),
            )
            .await;
        assert_eq!(r.structured["error"], "forbidden");
        let r = k
            .refused(
                &k.editor,
                "delete",
                json!({ "schedule": k.schedule, "absence": 31 }),
            )
            .await;
        assert_eq!(r.structured["error"], "absence_not_found");
    }

    #[tokio::test]
    async fn members_are_added_renamed_and_deleted_with_their_cascade() {
        let k = Kit::new("members").await;
        // An editor adds members, but an e-mail (it decides who sees a member's private
        // data) only as an owner.
        let r = k
            .refused(
                &k.editor,
                "add_member",
                json!({ "schedule": k.schedule, "name": "Léa Roux", "email": "lea@example.org" }),
            )
            .await;
        assert_eq!(r.structured["needed"], "owner", "{}", r.text);
        let r = k
            .ok(
                &k.owner,
                "add_member",
                json!({ "schedule": k.schedule, "name": "Léa Roux", "email": "lea@example.org" }),
            )
            .await;
        assert!(
            r.text.contains("Membre «\u{a0}Léa Roux\u{a0}» ajouté"),
            "{}",
            r.text
        );
        assert!(!r.text.contains("lea@"), "{}", r.text);
        let lea = r.structured["member"].as_u64().unwrap();
        // An editor renames, but may not change an e-mail (it decides who sees what).
        k.ok(
            &k.editor,
            "update_member",
            json!({ "schedule": k.schedule, "member": lea, "name": "Léa Roux-Martin" }),
        )
        .await;
        let r = k
            .refused(
                &k.editor,
                "update_member",
                json!({ "schedule": k.schedule, "member": "thomas", "email": "eddie@example.org" }),
            )
            .await;
        assert_eq!(r.structured["error"], "forbidden");
        assert!(r.text.contains("propriétaire"), "{}", r.text);
        let r = k
            .refused(
                &k.viewer,
                "update_member",
                json!({ "schedule": k.schedule, "member": "thomas", "email": "vera@example.org" }),
            )
            .await;
        // A viewer is told the first thing missing: the tool's role, as apply_patch
        // would tell them.
        assert_eq!(r.structured["needed"], "editor", "{}", r.text);
        let r = k
            .ok(
                &k.owner,
                "update_member",
                json!({ "schedule": k.schedule, "member": lea, "email": null }),
            )
            .await;
        assert!(r.text.contains("e-mail effacé"), "{}", r.text);
        let s = k.state(k.schedule).await;
        let m = s.member(MemberId(lea)).unwrap();
        assert_eq!(
            (m.name.as_str(), m.email.as_deref()),
            ("Léa Roux-Martin", None)
        );

        // Deleting Thomas clears his row, his action and his absence.
        let r = k
            .ok(
                &en(&k.editor),
                "delete",
                json!({ "schedule": k.schedule, "member": "Thomas Dubois" }),
            )
            .await;
        assert!(
            r.text
                .contains("removed from 1 row: “Adaptation du code spécifique” (8)"),
            "{}",
            r.text
        );
        assert!(r.text.contains("unassigned from 1 action"), "{}", r.text);
        assert!(r.text.contains("1 absence deleted"), "{}", r.text);
        assert_eq!(r.structured["cleared"]["absences"], json!([31]));
        let s = k.state(k.schedule).await;
        assert!(s.member(MemberId(4)).is_none() && s.absences.is_empty());

        // Ambiguous and unknown names.
        let r = k
            .refused(
                &k.editor,
                "delete",
                json!({ "schedule": k.schedule, "member": "a" }),
            )
            .await;
        assert_eq!(r.structured["error"], "ambiguous_member", "{}", r.text);
        let r = k
            .refused(
                &k.editor,
                "delete",
                json!({ "schedule": k.schedule, "member": true }),
            )
            .await;
        assert!(r.text.contains("l'id d'un membre"), "{}", r.text);
    }

    #[tokio::test]
    async fn sharing_follows_the_owner_rules() {
        let k = Kit::new("sharing").await;
        let s = k.schedule;
        // Only owners share.
        let r = k
            .refused(
                &k.editor,
                "share_schedule",
                json!({ "schedule": s, "email": "sam@example.org", "role": "viewer" }),
            )
            .await;
        assert_eq!(r.structured["error"], "forbidden");
        // The user must exist.
        let r = k
            .refused(
                &k.owner,
                "share_schedule",
                json!({ "schedule": s, "email": "nobody@example.org", "role": "viewer" }),
            )
            .await;
        assert!(r.text.contains("palmaplan user add"), "{}", r.text);
        let r = k
            .refused(
                &en(&k.owner),
                "share_schedule",
                json!({ "schedule": s, "email": "sam@example.org", "role": "admin" }),
            )
            .await;
        assert!(r.text.contains("viewer"), "{}", r.text);
        // Sharing gives access; the e-mail's case does not matter.
        k.refused(&k.stranger, "list_members", json!({ "schedule": s }))
            .await;
        let r = k
            .ok(
                &k.owner,
                "share_schedule",
                json!({ "schedule": s, "email": "SAM@example.org", "role": "editor" }),
            )
            .await;
        assert!(r.text.contains("comme éditeur"), "{}", r.text);
        k.ok(&k.stranger, "list_members", json!({ "schedule": s }))
            .await;
        let r = k
            .ok(
                &k.owner,
                "share_schedule",
                json!({ "schedule": s, "email": "sam@example.org", "role": "viewer" }),
            )
            .await;
        assert!(r.text.contains("passe de éditeur à lecteur"), "{}", r.text);

        // The last owner can neither leave nor step down.
        let r = k
            .refused(
                &k.owner,
                "share_schedule",
                json!({ "schedule": s, "email": "olivia@example.org", "role": "none" }),
            )
            .await;
        assert_eq!(r.structured["error"], "last_owner");
        let r = k
            .refused(
                &k.owner,
                "share_schedule",
                json!({ "schedule": s, "email": "olivia@example.org", "role": "editor" }),
            )
            .await;
        assert_eq!(r.structured["error"], "last_owner");
        // With a second owner, the first may leave.
        k.ok(
            &k.owner,
            "share_schedule",
            json!({ "schedule": s, "email": "eddie@example.org", "role": "owner" }),
        )
        .await;
        let r = k
            .ok(
                &k.owner,
                "share_schedule",
                json!({ "schedule": s, "email": "olivia@example.org", "role": "none" }),
            )
            .await;
        assert!(r.text.contains("C'était vous"), "{}", r.text);
        k.refused(&k.owner, "list_access", json!({ "schedule": s }))
            .await;
        let r = k
            .refused(
                &k.editor,
                "share_schedule",
                json!({ "schedule": s, "email": "olivia@example.org", "role": "none" }),
            )
            .await;
        assert_eq!(r.structured["error"], "no_access");

        // list_access: e-mails for owners only.
        let r = k
            .ok(&k.viewer, "list_access", json!({ "schedule": s }))
            .await;
        assert!(!all_bytes(&r).contains('@'), "{}", r.text);
        assert!(
            r.text.contains("Vera Viewer — lecteur (vous)"),
            "{}",
            r.text
        );
        let r = k
            .ok(&k.editor, "list_access", json!({ "schedule": s }))
            .await;
        assert!(r.text.contains("<vera@example.org>"), "{}", r.text);
        assert_eq!(r.structured["count"], 4);
    }

    #[test]
    fn member_refs_parse_from_numbers_and_strings_only() {
        let id: MemberRef = serde_json::from_value(json!(4)).unwrap();
        assert_eq!(id, MemberRef::Id(4));
        let name: MemberRef = serde_json::from_value(json!("Thomas")).unwrap();
        assert_eq!(name, MemberRef::Name("Thomas".into()));
        let e = serde_json::from_value::<MemberRef>(json!(true)).unwrap_err();
        assert!(e.to_string().contains("a member's id"), "{e}");
        assert!(serde_json::from_value::<MemberRef>(json!(-1)).is_err());
    }
}

//! The journal as tools: `history` (the latest entries, for people; or, with
//! `since_rank`, the entries after a rank with their commands, for catching up: a poll
//! with nothing new costs one indexed read), and `undo` / `redo` per author.
//!
//! Undo and redo are journal entries themselves (kind undo or redo, with the rank they
//! target), written through the storage's optimistic write with the model's `apply`:
//! - `undo` takes the caller's latest write (kind write or redo) not already undone and
//!   applies its inverse;
//! - `redo` takes the caller's latest undo not already redone and applies that undo's
//!   inverse (the exact state it removed) — unless a newer write of the caller's came
//!   after it: a new write ends what can be redone, as in any editor.
//!
//! Never a silent merge: if SOMEONE ELSE's later entry shares an item with the target
//! (both change it, or they built on an item the target created — an undo would delete
//! it, and their work with it; see the model's `command::footprint`), the undo is
//! refused and the answer names who, at which rank and which item. A journal entry's
//! footprint is that of its commands and of its inverse, since a cascade is only named
//! by the inverse. The decision is made on the journal as of the state's rank, and the
//! entry is written only if the schedule is still at that rank; otherwise it is
//! decided again from a fresh read, so a concurrent write can never slip in between.
//! If the inverse no longer applies for another reason, the model's message says why.

use crate::planning::Code;
use std::collections::{HashMap, HashSet};

use palmaplan_model::command::{Command, Footprint, SCHEDULE_FIELDS};
use palmaplan_model::text;
use palmaplan_model::{AbsenceId, ActionId, BarId, Lang, LinkId, MemberId, MilestoneId, Schedule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::periods::{busy, change_texts};
use super::privacy::{CommandViewer, needs_state, redact_command};
use super::{Access, Ctx, Failed, Origin, Refusal, Reply, ScheduleRef, ToolSpec, Write, tool};
use crate::storage::{EntryKind, JournalEntry, Role};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "history",
            "The journal. Latest changes, newest first: rank, who, when, kind, summary. With since_rank: the entries after it, oldest first, with their commands; if \"more\", call again with since_rank = next_since.",
            Access::Read,
            history,
        )
        .returns::<Journal>(),
        tool(
            "undo",
            "Undo YOUR latest change. Refused, with why, if someone else changed the same items since.",
            Access::Write,
            undo,
        )
        .returns::<Undone>()
        .used_by_view(),
        tool(
            "redo",
            "Redo YOUR latest undone change, if you changed nothing since.",
            Access::Write,
            redo,
        )
        .returns::<Redone>()
        .used_by_view(),
    ]
}

// ---- Shared texts.

/// Unix milliseconds as ISO 8601 UTC, to the second: "2026-05-01T09:30:00Z".
pub(super) fn iso_utc(ms: i64) -> String {
    crate::utc::stamp(ms, crate::utc::Precision::Seconds)
}

/// The same time to the millisecond: when a view was shown, so that two views shown
/// within one second are still ordered.
pub(super) fn iso_utc_ms(ms: i64) -> String {
    crate::utc::stamp(ms, crate::utc::Precision::Millis)
}

/// The commands of a stored list (commands or inverse).
pub(super) fn parse_commands(json: &str) -> Option<Vec<Command>> {
    serde_json::from_str(json).ok()
}

/// "3 blocs" / "3 bars", "1 jalon" / "1 milestone": `fr` and `en` are the singular,
/// both made plural with an s.
fn count(lang: Lang, n: usize, fr: &str, en: &str) -> String {
    let one = match lang {
        Lang::Fr => fr,
        Lang::En => en,
    };
    text::count(lang, n, one, &format!("{one}s"))
}

/// How many runs of commands a summary names before "+ N more".
const SUMMARY_RUNS: usize = 4;

/// One line about a list of commands: each run of one op with how many commands and,
/// for bar lists, how many bars — "move_periods (3 blocs)", "set_period_dates ×3".
pub(super) fn summary(cmds: &[Command], lang: Lang) -> String {
    if cmds.is_empty() {
        return match lang {
            Lang::Fr => "aucune commande".into(),
            Lang::En => "no command".into(),
        };
    }
    // (op, commands, bars, milestones)
    let mut runs: Vec<(&str, usize, usize, usize)> = Vec::new();
    for c in cmds {
        let (b, m) = match c {
            Command::MovePeriods {
                bars, milestones, ..
            } => (bars.len(), milestones.len()),
            Command::DeletePeriods { bars } => (bars.len(), 0),
            _ => (0, 0),
        };
        match runs.last_mut() {
            Some(r) if r.0 == c.op() => {
                r.1 += 1;
                r.2 += b;
                r.3 += m;
            }
            _ => runs.push((c.op(), 1, b, m)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .take(SUMMARY_RUNS)
        .map(|(op, n, b, m)| {
            let mut s = (*op).to_owned();
            if *n > 1 {
                s.push_str(&format!(" ×{n}"));
            }
            let mut items = Vec::new();
            if *b > 0 {
                items.push(count(lang, *b, "bloc", "bar"));
            }
            if *m > 0 {
                items.push(count(lang, *m, "jalon", "milestone"));
            }
            if !items.is_empty() {
                s.push_str(&format!(" ({})", items.join(", ")));
            }
            s
        })
        .collect();
    if runs.len() > SUMMARY_RUNS {
        let rest = runs.len() - SUMMARY_RUNS;
        parts.push(match lang {
            Lang::Fr => format!("+ {}", text::count(lang, rest, "autre", "autres")),
            Lang::En => format!("+ {rest} more"),
        });
    }
    parts.join(", ")
}

/// The kind's name in a language.
fn kind_name(kind: EntryKind, lang: Lang) -> &'static str {
    match (kind, lang) {
        (EntryKind::Write, Lang::Fr) => "écriture",
        (EntryKind::Undo, Lang::Fr) => "annulation",
        (EntryKind::Redo, Lang::Fr) => "rétablissement",
        (EntryKind::Write, Lang::En) => "write",
        (EntryKind::Undo, Lang::En) => "undo",
        (EntryKind::Redo, Lang::En) => "redo",
    }
}

pub(super) fn kind_str(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Write => "write",
        EntryKind::Undo => "undo",
        EntryKind::Redo => "redo",
    }
}

/// The writes that undo and redo entries stand for, by the rank of the undo or redo.
/// An undo stores the commands it applied, the inverse of what its author had done
/// (undoing a move stores `set_period_dates`), so its line names the write it undid
/// instead, as the person knows it; a redo names the write it brings back.
pub(super) type Origins = HashMap<i64, JournalEntry>;

/// The origins of `entries` (see [`Origins`]): each undo or redo followed back through
/// its target ranks to the write at their start, read from `entries` or the store.
pub(super) async fn origins(
    ctx: &Ctx,
    id: i64,
    entries: &[JournalEntry],
) -> Result<Origins, Refusal> {
    // Undo of a redo of an undo...: a chain is short, the bound only guards a corrupt one.
    const HOPS: usize = 64;
    let mut known: HashMap<i64, JournalEntry> =
        entries.iter().map(|e| (e.rank, e.clone())).collect();
    let mut out = Origins::new();
    for e in entries.iter().filter(|e| e.kind != EntryKind::Write) {
        let mut cur = e.clone();
        for _ in 0..HOPS {
            let Some(t) = cur.target_rank.filter(|_| cur.kind != EntryKind::Write) else {
                break;
            };
            let next = match known.get(&t) {
                Some(x) => x.clone(),
                None => match ctx
                    .store()
                    .entry(id, t)
                    .await
                    .map_err(|e| ctx.db_error(e))?
                {
                    Some(x) => {
                        known.insert(t, x.clone());
                        x
                    }
                    None => break,
                },
            };
            cur = next;
        }
        if cur.kind == EntryKind::Write {
            out.insert(e.rank, cur);
        }
    }
    Ok(out)
}

/// What an entry did, in one line: its commands' summary, and what it undid or redid
/// (named by the write it stands for, see [`Origins`]).
fn entry_summary(e: &JournalEntry, lang: Lang, origins: &Origins) -> String {
    let named = match e.kind {
        EntryKind::Write => e,
        EntryKind::Undo | EntryKind::Redo => origins.get(&e.rank).unwrap_or(e),
    };
    let what = match parse_commands(&named.commands) {
        Some(cmds) => summary(&cmds, lang),
        None => "?".into(),
    };
    match (e.kind, e.target_rank, lang) {
        (EntryKind::Undo, Some(t), Lang::Fr) => format!("annule le rang {t}\u{a0}: {what}"),
        (EntryKind::Undo, Some(t), Lang::En) => format!("undoes rank {t}: {what}"),
        (EntryKind::Redo, Some(t), Lang::Fr) => {
            format!("rétablit ce qu'annulait le rang {t}\u{a0}: {what}")
        }
        (EntryKind::Redo, Some(t), Lang::En) => format!("redoes what rank {t} undid: {what}"),
        _ => what,
    }
}

/// The names of some users, by id ("?" for one that no longer exists).
pub(super) async fn user_names(ctx: &Ctx, ids: &[i64]) -> Result<HashMap<i64, String>, Refusal> {
    let mut names = HashMap::new();
    for &id in ids {
        if let std::collections::hash_map::Entry::Vacant(slot) = names.entry(id) {
            let user = ctx.store().user(id).await.map_err(|e| ctx.db_error(e))?;
            slot.insert(user.map_or_else(|| format!("#{id}"), |u| u.name));
        }
    }
    Ok(names)
}

/// "- rang 15 · Alice · 2026-05-01T09:30:00Z · écriture · move_periods (3 blocs)"
fn entry_line(
    ctx: &Ctx,
    e: &JournalEntry,
    names: &HashMap<i64, String>,
    origins: &Origins,
) -> String {
    let who = names.get(&e.author).map_or("?", String::as_str);
    let lang = ctx.lang();
    format!(
        "\n- {} {} · {who} · {} · {} · {}",
        ctx.tr("rang", "rank"),
        e.rank,
        iso_utc(e.at),
        kind_name(e.kind, lang),
        entry_summary(e, lang, origins)
    )
}

// ---- history

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct History {
    schedule: ScheduleRef,
    /// 0: from the start.
    #[serde(default)]
    since_rank: Option<i64>,
    /// Default 20, at most 100; with since_rank 50 and 500.
    #[serde(default)]
    limit: Option<u32>,
}

/// `history`'s result: the latest entries, or those after `since_rank`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Journal {
    Latest(HistoryAnswer),
    Since(Changes),
}

/// A journal entry as `history` lists it.
#[derive(Debug, Serialize, JsonSchema)]
struct HistoryEntry {
    rank: i64,
    /// The author's user id.
    author: i64,
    /// Null when the author's account is gone.
    author_name: Option<String>,
    /// UTC, ISO 8601.
    at: String,
    /// "write", "undo" or "redo".
    kind: &'static str,
    /// An undo's or a redo's: the rank of the entry it undid or redid (null for a write).
    target_rank: Option<i64>,
    summary: String,
}

/// `history`'s result: the latest entries, newest first.
#[derive(Debug, Serialize, JsonSchema)]
struct HistoryAnswer {
    schedule_id: i64,
    /// The current rank.
    rank: i64,
    entries: Vec<HistoryEntry>,
    /// Whether older entries follow.
    more: bool,
}

const HISTORY_DEFAULT: u32 = 20;
const HISTORY_MAX: u32 = 100;

async fn history(ctx: Ctx, p: History) -> Result<Reply, Refusal> {
    if let Some(since_rank) = p.since_rank {
        return get_changes(ctx, p.schedule, since_rank, p.limit).await;
    }
    let (id, _) = ctx.open(&p.schedule).await?;
    let limit = p.limit.unwrap_or(HISTORY_DEFAULT).clamp(1, HISTORY_MAX);
    let mut entries = ctx
        .store()
        .latest_entries(id, i64::from(limit) + 1)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let more = entries.len() > limit as usize;
    entries.truncate(limit as usize);
    let Some(newest) = entries.first() else {
        return Ok(Reply::ok(
            ctx.tr(
                format!("Le planning {id} n'a encore aucune modification (rang 0)."),
                format!("Schedule {id} has no change yet (rank 0)."),
            ),
            json!(Journal::Latest(HistoryAnswer {
                schedule_id: id,
                rank: 0,
                entries: Vec::new(),
                more: false,
            })),
        ));
    };
    let rank = newest.rank;
    let authors: Vec<i64> = entries.iter().map(|e| e.author).collect();
    let names = user_names(&ctx, &authors).await?;
    let origins = origins(&ctx, id, &entries).await?;
    let n = entries.len();
    let mut text = ctx.tr(
        format!(
            "{} du planning {id} (rang actuel {rank}), de la plus récente à la plus ancienne\u{a0}:",
            match n {
                1 => "La dernière modification".to_owned(),
                n => format!("Les {n} dernières modifications"),
            }
        ),
        format!(
            "The latest {} of schedule {id} (current rank {rank}), newest first:",
            text::count(Lang::En, n, "change", "changes")
        ),
    );
    for e in &entries {
        text.push_str(&entry_line(&ctx, e, &names, &origins));
    }
    if more {
        let oldest = entries.last().map_or(0, |e| e.rank);
        text.push_str(&ctx.tr(
            format!("\nIl y en a de plus anciennes\u{a0}: rappelez history avec un limit plus grand (jusqu'à {HISTORY_MAX}), ou avec since_rank = {} pour les commandes.", oldest - 1),
            format!("\nThere are older ones: call history with a larger limit (up to {HISTORY_MAX}), or with since_rank = {} for the commands.", oldest - 1),
        ));
    }
    let list: Vec<HistoryEntry> = entries
        .iter()
        .map(|e| HistoryEntry {
            rank: e.rank,
            author: e.author,
            author_name: names.get(&e.author).cloned(),
            at: iso_utc(e.at),
            kind: kind_str(e.kind),
            target_rank: e.target_rank,
            summary: entry_summary(e, ctx.lang(), &origins),
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(Journal::Latest(HistoryAnswer {
            schedule_id: id,
            rank,
            entries: list,
            more,
        })),
    ))
}

// ---- history since a rank

/// A journal entry with its commands, as `history` since a rank (and the view's
/// `get_changes_since`) carry it.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ChangeEntry<'a> {
    rank: i64,
    /// The author's user id.
    author: i64,
    /// Null when the author's account is gone.
    author_name: Option<&'a str>,
    /// UTC, ISO 8601.
    at: String,
    /// "write", "undo" or "redo".
    kind: &'static str,
    /// An undo's or a redo's: the rank of the entry it undid or redid (null for a write).
    target_rank: Option<i64>,
    /// The commands as applied, each `{"op": …, …}`; null when too large for any answer.
    // Declared as objects, not as the patch language's schema: the journal also holds
    // what a model does not write (`replace_schedule`, a lock's `by` and `since_ms`).
    #[schemars(with = "Option<Vec<Map<String, Value>>>")]
    commands: Option<&'a [Command]>,
    /// Present (true) when the commands were too large to carry: read the schedule again.
    #[serde(skip_serializing_if = "Option::is_none")]
    too_large: Option<bool>,
}

/// `history`'s result after a rank.
#[derive(Debug, Serialize, JsonSchema)]
struct Changes {
    schedule_id: i64,
    /// The current rank.
    rank: i64,
    // Packed as JSON by `pack_changes` (each from a `ChangeEntry`), which sizes them
    // and which the view's `get_changes_since` shares.
    #[schemars(with = "Vec<ChangeEntry<'static>>")]
    entries: Vec<Value>,
    /// Whether more entries follow: call again with since_rank = next_since.
    more: bool,
    /// The rank to ask from next time.
    next_since: i64,
}

const CHANGES_DEFAULT: u32 = 50;
const CHANGES_MAX: u32 = 500;
/// Characters of commands one answer carries before it stops with "more": keeps a
/// catch-up answer small whatever the entries hold.
const CHANGES_BUDGET: usize = 16_000;

/// The journal after a rank, as `history` (for the model) and `get_changes_since`
/// (for the view) both read it: the cheap rank check first, then the entries with their
/// parsed commands and their authors' names. Each tool then removes what its reader may
/// not see from the commands and packs them with `pack_changes`.
pub(super) enum Poll {
    /// Nothing after the rank asked for: the schedule is at `rank`.
    Idle {
        rank: i64,
    },
    Changed(Fetched),
}

pub(super) struct Fetched {
    /// The schedule's current rank.
    pub(super) rank: i64,
    /// The rank the entries follow.
    pub(super) since: i64,
    pub(super) entries: Vec<JournalEntry>,
    /// Each entry's commands, parsed (the caller redacts them in place).
    pub(super) commands: Vec<Vec<Command>>,
    pub(super) names: HashMap<i64, String>,
    /// More entries than `limit` follow.
    pub(super) more: bool,
}

pub(super) async fn fetch_changes(
    ctx: &Ctx,
    id: i64,
    since_rank: i64,
    limit: u32,
) -> Result<Poll, Refusal> {
    // A poll with nothing new reads one row and answers: O(1) whatever the schedule.
    let rank = ctx.store().rank(id).await.map_err(|e| ctx.db_error(e))?;
    if rank <= since_rank {
        return Ok(Poll::Idle { rank });
    }
    let since = since_rank.max(0);
    let mut entries = ctx
        .store()
        .changes_since(id, since, i64::from(limit) + 1)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let more = entries.len() > limit as usize;
    entries.truncate(limit as usize);
    let authors: Vec<i64> = entries.iter().map(|e| e.author).collect();
    let names = user_names(ctx, &authors).await?;
    let commands = entries
        .iter()
        .map(|e| parse_commands(&e.commands).unwrap_or_default())
        .collect();
    Ok(Poll::Changed(Fetched {
        rank,
        since,
        entries,
        commands,
        names,
        more,
    }))
}

/// Entries packed into one answer of at most `budget` characters.
pub(super) struct Packed {
    /// One JSON object per entry carried (rank, author, time, kind, commands).
    pub(super) items: Vec<Value>,
    pub(super) more: bool,
    /// The rank to ask from next time.
    pub(super) next: i64,
    /// Entries too large for any answer: named, their commands not carried.
    pub(super) too_large: Vec<i64>,
}

pub(super) fn pack_changes(f: &Fetched, budget: usize) -> Packed {
    let mut used = 0usize;
    let mut items = Vec::new();
    let mut too_large = Vec::new();
    let mut more = f.more;
    for (e, cmds) in f.entries.iter().zip(&f.commands) {
        let mut entry = ChangeEntry {
            rank: e.rank,
            author: e.author,
            author_name: f.names.get(&e.author).map(String::as_str),
            at: iso_utc(e.at),
            kind: kind_str(e.kind),
            target_rank: e.target_rank,
            commands: Some(cmds),
            too_large: None,
        };
        let mut item = json!(entry);
        let mut size = item.to_string().chars().count();
        if used + size > budget {
            if !items.is_empty() {
                more = true;
                break;
            }
            // One entry larger than a whole answer (a restored version): named, not
            // carried; the reader reads the schedule again.
            entry.commands = None;
            entry.too_large = Some(true);
            item = json!(entry);
            too_large.push(e.rank);
            size = item.to_string().chars().count();
        }
        used += size;
        items.push(item);
    }
    let next = items
        .last()
        .and_then(|v| v["rank"].as_i64())
        .unwrap_or(f.since);
    Packed {
        items,
        more,
        next,
        too_large,
    }
}

async fn get_changes(
    ctx: Ctx,
    schedule: ScheduleRef,
    since_rank: i64,
    limit: Option<u32>,
) -> Result<Reply, Refusal> {
    let (id, role) = ctx.open(&schedule).await?;
    let limit = limit.unwrap_or(CHANGES_DEFAULT).clamp(1, CHANGES_MAX);
    let mut f = match fetch_changes(&ctx, id, since_rank, limit).await? {
        Poll::Changed(f) => f,
        Poll::Idle { rank } => {
            let mut text = ctx.tr(
                format!(
                    "Aucune modification depuis le rang {}\u{a0}: le planning {id} est au rang {rank}.",
                    since_rank
                ),
                format!(
                    "No change since rank {}: schedule {id} is at rank {rank}.",
                    since_rank
                ),
            );
            if rank < since_rank {
                text.push_str(&ctx.tr(
                    format!(
                        " (Le rang {} n'existe pas encore\u{a0}: repartez du rang {rank}.)",
                        since_rank
                    ),
                    format!(
                        " (Rank {} does not exist yet: start again from rank {rank}.)",
                        since_rank
                    ),
                ));
            }
            return Ok(Reply::ok(
                text,
                json!(Journal::Since(Changes {
                    schedule_id: id,
                    rank,
                    entries: Vec::new(),
                    more: false,
                    next_since: rank,
                })),
            ));
        }
    };

    if role != Role::Owner {
        let me = ctx
            .store()
            .user(ctx.caller.user_id)
            .await
            .map_err(|e| ctx.db_error(e))?;
        let mut viewer = CommandViewer::new(false, me.map(|u| u.email));
        for cmds in &mut f.commands {
            if cmds.iter().any(needs_state) {
                viewer.load_own(&ctx, id).await?;
            }
            for c in cmds.iter_mut() {
                redact_command(c, &viewer);
            }
        }
    }
    let packed = pack_changes(&f, CHANGES_BUDGET);
    let (rank, since, next, more) = (f.rank, f.since, packed.next, packed.more);
    let mut text = ctx.tr(
        format!(
            "{} du planning {id} après le rang {since} (rang actuel {rank})\u{a0}:",
            text::count(
                Lang::Fr,
                packed.items.len(),
                "modification",
                "modifications"
            )
        ),
        format!(
            "{} of schedule {id} after rank {since} (current rank {rank}):",
            text::count(Lang::En, packed.items.len(), "change", "changes")
        ),
    );
    let shown = &f.entries[..packed.items.len().min(f.entries.len())];
    let origins = origins(&ctx, id, shown).await?;
    for e in shown {
        text.push_str(&entry_line(&ctx, e, &f.names, &origins));
    }
    if let Some(first) = packed.too_large.first() {
        text.push_str(&ctx.tr(
            format!("\nLes commandes du rang {first} sont trop volumineuses pour cette réponse\u{a0}: relisez le planning entier."),
            format!("\nThe commands of rank {first} are too large for this answer: read the whole schedule again."),
        ));
    }
    if more {
        text.push_str(&ctx.tr(
            format!("\nIl y en a d'autres\u{a0}: rappelez history avec since_rank = {next}."),
            format!("\nThere are more: call history again with since_rank = {next}."),
        ));
    }
    Ok(Reply::ok(
        text,
        json!(Journal::Since(Changes {
            schedule_id: id,
            rank,
            entries: packed.items,
            more,
            next_since: next,
        })),
    ))
}

// ---- undo and redo

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct One {
    schedule: ScheduleRef,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    Undo,
    Redo,
}

/// What an undo or a redo will do, decided on the journal up to one rank.
struct Plan {
    /// The entry undone (for an undo) or the undo entry redone (for a redo).
    target: JournalEntry,
    /// The commands to apply now: the target's inverse.
    apply: Vec<Command>,
    /// The entries after the target by other authors, oldest first.
    others: Vec<JournalEntry>,
}

/// Pages read backwards through the journal, and how far an undo may look.
const SCAN_PAGE: i64 = 200;
const SCAN_MAX: usize = 20_000;

/// Finds the caller's entry to undo or redo among the entries up to `rank`.
async fn plan(ctx: &Ctx, id: i64, rank: i64, way: Way) -> Result<Plan, Refusal> {
    let me = ctx.caller.user_id;
    // Ranks already undone (for an undo) or already redone (for a redo) by the caller.
    let mut done: HashSet<i64> = HashSet::new();
    let mut others = Vec::new();
    let mut below = rank + 1;
    let mut scanned = 0usize;
    loop {
        let page = ctx
            .store()
            .entries_before(id, below, SCAN_PAGE)
            .await
            .map_err(|e| ctx.db_error(e))?;
        if page.is_empty() || scanned >= SCAN_MAX {
            return Err(nothing_to(ctx, way, scanned >= SCAN_MAX));
        }
        for e in page {
            below = e.rank;
            scanned += 1;
            if e.author != me {
                others.push(e);
                continue;
            }
            let found = match (way, e.kind) {
                (Way::Undo, EntryKind::Undo) | (Way::Redo, EntryKind::Redo) => {
                    done.extend(e.target_rank);
                    false
                }
                (Way::Undo, _) => !done.contains(&e.rank),
                (Way::Redo, EntryKind::Write) => {
                    return Err(Refusal::new(
                        Code::NothingToRedo,
                        ctx.tr(
                            format!("Rien à rétablir\u{a0}: votre modification du rang {} est venue après votre dernière annulation, et une nouvelle modification rend les annulations précédentes définitives. Refaites le changement voulu directement.", e.rank),
                            format!("Nothing to redo: your change at rank {} came after your last undo, and a new change makes earlier undos final. Make the change you want directly.", e.rank),
                        ),
                    )
                    .with(json!({ "rank": e.rank }))
                    .for_person(ctx.tr(
                        "Rien à rétablir\u{a0}: vous avez fait une modification depuis votre dernière annulation, ce qui rend les annulations précédentes définitives. Refaites le changement voulu directement.",
                        "Nothing to redo: you made a change since your last undo, which makes earlier undos final. Make the change you want directly.",
                    )));
                }
                (Way::Redo, _) => !done.contains(&e.rank),
            };
            if found {
                let Some(apply) = parse_commands(&e.inverse) else {
                    return Err(corrupt(ctx, e.rank));
                };
                others.reverse();
                return Ok(Plan {
                    target: e,
                    apply,
                    others,
                });
            }
        }
    }
}

fn nothing_to(ctx: &Ctx, way: Way, too_far: bool) -> Refusal {
    let (code, fr, en) = match way {
        Way::Undo => (
            Code::NothingToUndo,
            "Vous n'avez aucune modification à annuler sur ce planning (undo n'annule que vos propres modifications, pas celles des autres).",
            "You have no change to undo on this schedule (undo only undoes your own changes, not other people's).",
        ),
        Way::Redo => (
            Code::NothingToRedo,
            "Vous n'avez aucune annulation à rétablir sur ce planning.",
            "You have no undo to redo on this schedule.",
        ),
    };
    let person = match way {
        Way::Undo => ctx.tr(
            "Vous n'avez aucune modification à annuler sur ce planning (Annuler ne défait que vos propres modifications, pas celles des autres).",
            "You have no change to undo on this schedule (Undo only undoes your own changes, not other people's).",
        ),
        Way::Redo => ctx.tr(fr, en),
    };
    let mut text = ctx.tr(fr, en);
    if too_far {
        text.push_str(&ctx.tr(
            format!(" (Seules les {SCAN_MAX} dernières entrées du journal sont examinées.)"),
            format!(" (Only the latest {SCAN_MAX} journal entries are looked at.)"),
        ));
    }
    Refusal::new(code, text).for_person(person)
}

fn corrupt(ctx: &Ctx, rank: i64) -> Refusal {
    tracing::error!(rank, "journal entry cannot be read");
    Refusal::new(
        Code::Storage,
        ctx.tr(
            format!("L'entrée du journal au rang {rank} est illisible\u{202f}; rien n'a été modifié. Signalez-le à l'administrateur du serveur."),
            format!("The journal entry at rank {rank} cannot be read; nothing was changed. Report it to the server's administrator."),
        ),
    )
}

/// An item of the current state, named for a person: "le bloc « Murs » (11)".
fn item_name(ctx: &Ctx, s: &Schedule, id: u64) -> String {
    item_named(ctx, s, id, true)
}

/// [`item_name`], with its id (for the model's text) or without (for the view's).
fn item_named(ctx: &Ctx, s: &Schedule, id: u64, with_id: bool) -> String {
    // The model's names end with the id; the person's read in a sentence ("the bar").
    let (n, the) = if with_id {
        (format!(" ({id})"), "")
    } else {
        (String::new(), "the ")
    };
    if id == SCHEDULE_FIELDS {
        return ctx.tr(
            "le nom, les notes ou les réglages du planning",
            "the schedule's name, notes or settings",
        );
    }
    if let Some(b) = s.bar(BarId(id)) {
        return ctx.tr(
            format!("le bloc «\u{a0}{}\u{a0}»{n}", b.label),
            format!("{the}bar “{}”{n}", b.label),
        );
    }
    if let Some(m) = s.milestone(MilestoneId(id)) {
        return ctx.tr(
            format!("le jalon «\u{a0}{}\u{a0}»{n}", m.label),
            format!("{the}milestone “{}”{n}", m.label),
        );
    }
    if let Some(r) = s.rows.iter().find(|r| r.id.0 == id) {
        return ctx.tr(
            format!("la ligne «\u{a0}{}\u{a0}»{n}", r.name),
            format!("{the}row “{}”{n}", r.name),
        );
    }
    if let Some(g) = s.groups.iter().find(|g| g.id.0 == id) {
        return ctx.tr(
            format!("le groupe «\u{a0}{}\u{a0}»{n}", g.name),
            format!("{the}group “{}”{n}", g.name),
        );
    }
    if let Some(l) = s.link(LinkId(id)) {
        let a = s.item_label(l.from).unwrap_or("?");
        let b = s.item_label(l.to).unwrap_or("?");
        if !with_id {
            return ctx.tr(
                format!("le lien «\u{a0}{a}\u{a0}» → «\u{a0}{b}\u{a0}»"),
                format!("the link “{a}” → “{b}”"),
            );
        }
        return ctx.tr(
            format!("le lien {id} («\u{a0}{a}\u{a0}» → «\u{a0}{b}\u{a0}»)"),
            format!("link {id} (“{a}” → “{b}”)"),
        );
    }
    if let Some(a) = s.action(ActionId(id)) {
        return ctx.tr(
            format!("l'action «\u{a0}{}\u{a0}»{n}", a.label),
            format!("{the}action “{}”{n}", a.label),
        );
    }
    if let Some(m) = s.member(MemberId(id)) {
        return ctx.tr(
            format!("le membre {}{n}", m.name),
            format!("{the}member {}{n}", m.name),
        );
    }
    if let Some(a) = s.absence(AbsenceId(id)) {
        let who = s.member(a.member).map_or("?", |m| m.name.as_str());
        return ctx.tr(
            format!("une absence {}{n}", super::people::of_fr(who)),
            format!("an absence of {who}{n}"),
        );
    }
    if !with_id {
        return ctx.tr(
            "un élément supprimé entre-temps",
            "an item deleted in the meantime",
        );
    }
    ctx.tr(
        format!("l'élément {id} (supprimé depuis)"),
        format!("item {id} (deleted since)"),
    )
}

/// The footprint of a stored entry: its commands and its inverse.
fn entry_footprint(ctx: &Ctx, e: &JournalEntry) -> Result<Footprint, Refusal> {
    let cmds = parse_commands(&e.commands).ok_or_else(|| corrupt(ctx, e.rank))?;
    let inv = parse_commands(&e.inverse).ok_or_else(|| corrupt(ctx, e.rank))?;
    Ok(Footprint::of(cmds.iter().chain(&inv)))
}

/// Refuses when someone else's later entry shares an item with the target.
async fn check_others(
    ctx: &Ctx,
    id: i64,
    plan: &Plan,
    state: &Schedule,
    way: Way,
    what: &str,
) -> Result<(), Refusal> {
    let mine = entry_footprint(ctx, &plan.target)?;
    // A later write that its author has since undone, and that undo, cancel out: the
    // undo restored the exact old values, and it was itself refused had anyone else
    // built on that write in between. Such pairs are left out.
    let ranks: HashSet<i64> = plan.others.iter().map(|o| o.rank).collect();
    let netted: HashSet<i64> = plan
        .others
        .iter()
        .filter(|o| o.kind == EntryKind::Undo)
        .filter_map(|o| {
            o.target_rank
                .filter(|t| ranks.contains(t))
                .map(|t| [o.rank, t])
        })
        .flatten()
        .collect();
    for o in plan.others.iter().filter(|o| !netted.contains(&o.rank)) {
        let Some(item) = mine.clash(&entry_footprint(ctx, o)?) else {
            continue;
        };
        let names = user_names(ctx, &[o.author]).await?;
        let who = names.get(&o.author).cloned().unwrap_or_default();
        let item_person = match item {
            Some(i) => item_named(ctx, state, i, false),
            None => ctx.tr("tout le planning", "the whole schedule"),
        };
        let someone = if who.is_empty() {
            ctx.tr("quelqu'un", "someone")
        } else {
            who.clone()
        };
        let item_text = match item {
            Some(i) => item_name(ctx, state, i),
            None => ctx.tr(
                "tout le planning (une version restaurée)",
                "the whole schedule (a restored version)",
            ),
        };
        // ("d'annuler", "Annuler", "undo"): French elides before a vowel.
        let (of_fr, verb_fr, verb_en, doing_en) = match way {
            Way::Undo => ("d'annuler", "Annuler", "undo", "Undoing"),
            Way::Redo => ("de rétablir", "Rétablir", "redo", "Redoing"),
        };
        let stands_for = origins(ctx, id, std::slice::from_ref(o)).await?;
        let their = entry_summary(o, ctx.lang(), &stands_for);
        let text = ctx.tr(
            format!(
                "Impossible {of_fr} {what}\u{a0}: {who} a modifié depuis {item_text} (rang {}, {their}). {verb_fr} écraserait ou supprimerait son travail, et rien n'est fusionné en silence\u{202f}; rien n'a été modifié. Faites la correction voulue directement, ou demandez à {who} d'annuler d'abord sa modification.",
                o.rank,
            ),
            format!(
                "Cannot {verb_en} {what}: {who} has changed {item_text} since (rank {}, {their}). {doing_en} it would overwrite or delete their work, and nothing is merged silently; nothing was changed. Make the change you want directly, or ask {who} to undo theirs first.",
                o.rank,
            ),
        );
        let person = ctx.tr(
            format!("Impossible {of_fr} votre modification\u{a0}: {someone} a modifié depuis {item_person}, et son travail serait perdu. Rien n'a été modifié\u{202f}; faites la correction voulue directement."),
            format!("Cannot {verb_en} your change: {someone} has since changed {item_person}, and their work would be lost. Nothing was changed; make the change you want directly."),
        );
        return Err(Refusal::new(Code::Conflict, text)
            .with(json!({
                "rank": o.rank, "author": o.author, "author_name": who, "item": item,
                "target_rank": plan.target.rank,
            }))
            .for_person(person));
    }
    Ok(())
}

/// How many times an undo is decided again when others keep writing first.
const ATTEMPTS: usize = 8;

/// `undo`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Undone {
    schedule_id: i64,
    /// The rank after the undo.
    rank: i64,
    /// The rank of the write undone.
    undone: i64,
}

/// `redo`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Redone {
    schedule_id: i64,
    /// The rank after the redo.
    rank: i64,
    /// The rank of the write brought back.
    redone: i64,
    /// The rank of the undo it reverses.
    undo_rank: i64,
}

async fn undo(ctx: Ctx, p: One) -> Result<Reply, Refusal> {
    undo_or_redo(ctx, p, Way::Undo).await
}

async fn redo(ctx: Ctx, p: One) -> Result<Reply, Refusal> {
    undo_or_redo(ctx, p, Way::Redo).await
}

async fn undo_or_redo(ctx: Ctx, p: One, way: Way) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let lang = ctx.lang();
    for _ in 0..ATTEMPTS {
        let cur = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
        let plan = plan(&ctx, id, cur.rank, way).await?;
        // The change the person knows: for a redo, the write its undo had undone.
        let original = match way {
            Way::Undo => plan.target.clone(),
            Way::Redo => match plan.target.target_rank {
                Some(r) => ctx
                    .store()
                    .entry(id, r)
                    .await
                    .map_err(|e| ctx.db_error(e))?
                    .unwrap_or_else(|| plan.target.clone()),
                None => plan.target.clone(),
            },
        };
        let done = entry_summary(
            &original,
            lang,
            &origins(&ctx, id, std::slice::from_ref(&original)).await?,
        );
        let what = ctx.tr(
            format!("votre modification du rang {} ({done})", original.rank),
            format!("your change at rank {} ({done})", original.rank),
        );
        check_others(&ctx, id, &plan, &cur.state, way, &what).await?;
        let kind = match way {
            Way::Undo => EntryKind::Undo,
            Way::Redo => EntryKind::Redo,
        };
        let target_rank = plan.target.rank;
        let out = ctx
            .write(
                id,
                Write {
                    commands: &plan.apply,
                    cascade: super::gate::Cascading::Off,
                    expected_rank: Some(cur.rank),
                    kind,
                    target_rank: Some(target_rank),
                    origin: Origin::Journal,
                },
            )
            .await;
        let (rank, after) = match out {
            Err(Failed::OutOfDate(_)) => continue,
            Ok(wrote) => (wrote.rank, Box::new(wrote.state)),
            Err(Failed::Refused(r)) => return Err(r),
            Err(Failed::Invalid(e)) => {
                let (fr, en) = match way {
                    Way::Undo => ("d'annuler", "undo"),
                    Way::Redo => ("de rétablir", "redo"),
                };
                let text = ctx.tr(
                    format!("Impossible {fr} {what}\u{a0}: elle ne s'applique plus au planning actuel. {} Rien n'a été modifié.", e.message(lang)),
                    format!("Cannot {en} {what}: it no longer applies to the current schedule. {} Nothing was changed.", e.message(lang)),
                );
                let why = e.person_message(&cur.state, lang).unwrap_or_else(|| {
                    ctx.tr(
                        "Elle ne s'applique plus au planning actuel\u{a0}: rien n'a été modifié.",
                        "It no longer applies to the current schedule: nothing was changed.",
                    )
                });
                let person = ctx.tr(
                    format!("Impossible {fr} votre modification. {why}"),
                    format!("Cannot {en} your change. {why}"),
                );
                let mut refusal = ctx.invalid_with(&e, text).for_person(person);
                if refusal.code != Code::Locked {
                    refusal.code = Code::NoLongerApplies;
                }
                refusal.details["target_rank"] = json!(target_rank);
                return Err(refusal);
            }
        };
        let head = match way {
            Way::Undo => ctx.tr(
                format!("Annulé\u{a0}: {what}. Le planning passe au rang {rank}\u{202f}; redo la rétablit."),
                format!("Undone: {what}. The schedule is now at rank {rank}; redo brings it back."),
            ),
            Way::Redo => ctx.tr(
                format!("Rétabli\u{a0}: {what}, annulée au rang {target_rank}. Le planning passe au rang {rank}."),
                format!("Redone: {what}, undone at rank {target_rank}. The schedule is now at rank {rank}."),
            ),
        };
        let (changes, brief) = change_texts(&ctx, &cur.state, &after, &[]);
        let text = format!("{head}\n{changes}");
        // The person reads what came back or went, not the ranks and the tool.
        let person = match way {
            Way::Undo => ctx.tr(format!("Annulé. {brief}"), format!("Undone. {brief}")),
            Way::Redo => ctx.tr(format!("Rétabli. {brief}"), format!("Redone. {brief}")),
        };
        let structured = match way {
            Way::Undo => json!(Undone {
                schedule_id: id,
                rank,
                undone: target_rank,
            }),
            Way::Redo => json!(Redone {
                schedule_id: id,
                rank,
                redone: original.rank,
                undo_rank: target_rank,
            }),
        };
        return Ok(Reply::ok(text, structured).for_person(person));
    }
    Err(busy(&ctx))
}

#[cfg(test)]
mod tests {
    use super::super::journal_testkit::{Kit, en, same};
    use super::*;
    use serde_json::json;

    fn dates(s: &Schedule, bar: u64) -> (String, String) {
        let b = s.bar(BarId(bar)).unwrap();
        (b.start.to_string(), b.end.to_string())
    }

    #[tokio::test]
    async fn undo_and_redo_round_trip_per_author() {
        let k = Kit::new("round_trip").await;
        let s0 = k.state().await;
        let id = k.schedule;
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16], "by": 2}),
        )
        .await;
        let s1 = k.state().await;
        k.ok(
            &k.alice,
            "resize_period",
            json!({"schedule": id, "bar": 14, "by": 1}),
        )
        .await;
        let s2 = k.state().await;
        // Bob has written nothing: he has nothing to undo, whatever Alice did.
        let r = k
            .refused(&k.bob, "undo", json!({"schedule": id}), "nothing_to_undo")
            .await;
        assert!(r.text.contains("vos propres modifications"), "{}", r.text);

        let r = k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        assert!(
            r.text
                .starts_with("Annulé\u{a0}: votre modification du rang 2 (resize_period)"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("«\u{a0}Nettoyage des données\u{a0}» (bloc 14)"),
            "{}",
            r.text
        );
        assert_eq!(
            r.structured,
            json!({"schedule_id": id, "rank": 3, "undone": 2})
        );
        assert!(same(&k.state().await, &s1));
        let r = k.ok(&en(&k.alice), "undo", json!({"schedule": id})).await;
        assert!(
            r.text
                .starts_with("Undone: your change at rank 1 (move_periods (1 bar))"),
            "{}",
            r.text
        );
        assert!(same(&k.state().await, &s0));
        k.refused(&k.alice, "undo", json!({"schedule": id}), "nothing_to_undo")
            .await;

        // Redo brings the latest undo back first, with the exact dates.
        let r = k.ok(&k.alice, "redo", json!({"schedule": id})).await;
        assert!(
            r.text.starts_with(
                "Rétabli\u{a0}: votre modification du rang 1 (move_periods (1 bloc)), annulée au rang 4."
            ),
            "{}",
            r.text
        );
        assert_eq!(
            r.structured,
            json!({"schedule_id": id, "rank": 5, "redone": 1, "undo_rank": 4})
        );
        assert_eq!(k.state().await, {
            let mut s = s1.clone();
            s.next_id = k.state().await.next_id;
            s
        });
        k.ok(&k.alice, "redo", json!({"schedule": id})).await;
        assert!(same(&k.state().await, &s2));
        k.refused(&k.alice, "redo", json!({"schedule": id}), "nothing_to_redo")
            .await;
        // A redo is itself undone like a write.
        k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        assert!(same(&k.state().await, &s1));
        assert_eq!(dates(&k.state().await, 16), dates(&s1, 16));
        // Viewers may not undo.
        k.refused(&k.carol, "undo", json!({"schedule": id}), "forbidden")
            .await;
    }

    #[tokio::test]
    async fn undo_is_refused_when_someone_else_changed_the_same_bar() {
        let k = Kit::new("conflict").await;
        let id = k.schedule;
        let s0 = k.state().await;
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16], "by": 2}),
        )
        .await;
        k.ok(
            &k.bob,
            "update_period",
            json!({"schedule": id, "bar": 16, "start": "2026-11-30", "end": "2026-12-08"}),
        )
        .await;
        let before = (k.state().await, k.rank().await);
        let r = k
            .refused(&k.alice, "undo", json!({"schedule": id}), "conflict")
            .await;
        assert_eq!(
            r.text,
            "Impossible d'annuler votre modification du rang 1 (move_periods (1 bloc))\u{a0}: Bob a modifié depuis le bloc «\u{a0}Migration à blanc\u{a0}» (16) (rang 2, set_period_dates). Annuler écraserait ou supprimerait son travail, et rien n'est fusionné en silence\u{202f}; rien n'a été modifié. Faites la correction voulue directement, ou demandez à Bob d'annuler d'abord sa modification."
        );
        assert_eq!(r.structured["rank"], 2);
        assert_eq!(r.structured["item"], 16);
        assert_eq!((k.state().await, k.rank().await), before, "nothing written");
        let r = k
            .refused(&en(&k.alice), "undo", json!({"schedule": id}), "conflict")
            .await;
        assert!(
            r.text.contains(
                "Bob has changed bar “Migration à blanc” (16) since (rank 2, set_period_dates)"
            ),
            "{}",
            r.text
        );
        // The view shows the person who changed what, by its label, without the ranks.
        assert_eq!(
            palmaplan_model::wire::ResultMeta::read(&r.meta)
                .person_text
                .as_deref(),
            Some(
                "Cannot undo your change: Bob has since changed the bar “Migration à blanc”, and their work would be lost. Nothing was changed; make the change you want directly."
            )
        );
        // Bob undoes his change: it and his undo cancel out, so Alice may undo hers.
        k.ok(&k.bob, "undo", json!({"schedule": id})).await;
        k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        assert!(same(&k.state().await, &s0));
        // Bob's redo now would overwrite Alice's undo of the same bar.
        let r = k
            .refused(&k.bob, "redo", json!({"schedule": id}), "conflict")
            .await;
        assert!(
            r.text.starts_with("Impossible de rétablir votre modification du rang 2 (set_period_dates)\u{a0}: Alice a modifié depuis le bloc «\u{a0}Migration à blanc\u{a0}» (16) (rang 4, annule le rang 1"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn undo_is_allowed_when_someone_else_changed_another_bar() {
        let k = Kit::new("no_conflict").await;
        let id = k.schedule;
        let s0 = k.state().await;
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16], "by": 2}),
        )
        .await;
        k.ok(
            &k.bob,
            "move_periods",
            json!({"schedule": id, "bars": [18], "by": 1}),
        )
        .await;
        let bob_dates = dates(&k.state().await, 18);
        k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        let s = k.state().await;
        assert_eq!(dates(&s, 16), dates(&s0, 16), "Alice's move is undone");
        assert_eq!(dates(&s, 18), bob_dates, "Bob's move stays");
    }

    #[tokio::test]
    async fn undoing_an_add_is_refused_once_someone_built_on_it() {
        let k = Kit::new("built_on").await;
        let id = k.schedule;
        let r = k
            .ok(
                &k.alice,
                "add_period",
                json!({"schedule": id, "row": 10, "label": "Gel des données", "start": "2026-11-30", "end": "2026-12-01"}),
            )
            .await;
        let bar = r.structured["bar"].as_u64().unwrap();
        // Bob adds a bar on the same row: no clash.
        k.ok(
            &k.bob,
            "add_period",
            json!({"schedule": id, "row": 10, "label": "Contrôle", "start": "2026-12-02", "end": "2026-12-02"}),
        )
        .await;
        // ... then an action on Alice's bar: undoing her add would delete it.
        k.ok(
            &k.bob,
            "apply_patch",
            json!({"schedule": id, "expected_rank": 2, "commands": [{"op": "add_action", "bar": bar, "label": "Prévenir les utilisateurs"}]}),
        )
        .await;
        let r = k
            .refused(&k.alice, "undo", json!({"schedule": id}), "conflict")
            .await;
        assert!(
            r.text.contains(&format!(
                "le bloc «\u{a0}Gel des données\u{a0}» ({bar}) (rang 3, add_action)"
            )),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn redo_is_refused_after_a_new_write() {
        let k = Kit::new("redo_after_write").await;
        let id = k.schedule;
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16], "by": 2}),
        )
        .await;
        k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        // Someone else's write does not end Alice's redo...
        k.ok(
            &k.bob,
            "move_periods",
            json!({"schedule": id, "bars": [13], "by": 1}),
        )
        .await;
        // ... but her own does.
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [17], "by": 1}),
        )
        .await;
        let r = k
            .refused(&k.alice, "redo", json!({"schedule": id}), "nothing_to_redo")
            .await;
        assert!(r.text.contains("rang 4"), "{}", r.text);
        assert_eq!(r.structured["rank"], 4);
    }

    #[tokio::test]
    async fn history_says_who_did_what_and_when() {
        let k = Kit::new("history").await;
        let id = k.schedule;
        let r = k.ok(&k.carol, "history", json!({"schedule": id})).await;
        assert_eq!(
            r.text,
            format!("Le planning {id} n'a encore aucune modification (rang 0).")
        );
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16, 17, 18], "by": 2}),
        )
        .await;
        k.ok(
            &k.bob,
            "resize_period",
            json!({"schedule": id, "bar": 13, "by": -1}),
        )
        .await;
        k.ok(&k.alice, "undo", json!({"schedule": id})).await;
        let r = k.ok(&k.carol, "history", json!({"schedule": id})).await;
        let t = r.text.replace(&format!("planning {id} "), "planning N ");
        // The clock moves one second per reading (one per write).
        assert_eq!(
            t,
            "Les 3 dernières modifications du planning N (rang actuel 3), de la plus récente à la plus ancienne\u{a0}:\n\
             - rang 3 · Alice · 2026-05-03T09:20:02Z · annulation · annule le rang 1\u{a0}: move_periods (3 blocs)\n\
             - rang 2 · Bob · 2026-05-03T09:20:01Z · écriture · resize_period\n\
             - rang 1 · Alice · 2026-05-03T09:20:00Z · écriture · move_periods (3 blocs)"
        );
        assert_eq!(r.structured["entries"][0]["kind"], "undo");
        assert_eq!(r.structured["entries"][0]["target_rank"], 1);
        assert_eq!(r.structured["entries"][2]["author_name"], "Alice");
        let r = k
            .ok(
                &en(&k.carol),
                "history",
                json!({"schedule": id, "limit": 1}),
            )
            .await;
        assert!(
            r.text
                .contains("undo · undoes rank 1: move_periods (3 bars)"),
            "{}",
            r.text
        );
        assert!(r.text.contains("There are older ones"), "{}", r.text);
        assert_eq!(r.structured["more"], true);
    }

    #[tokio::test]
    async fn history_since_a_rank_is_capped_and_a_quiet_poll_answers_at_once() {
        let k = Kit::new("changes").await;
        let id = k.schedule;
        for bar in [13, 14, 15, 16, 17] {
            k.ok(
                &k.alice,
                "move_periods",
                json!({"schedule": id, "bars": [bar], "by": 1}),
            )
            .await;
        }
        let r = k
            .ok(
                &k.carol,
                "history",
                json!({"schedule": id, "since_rank": 0, "limit": 2}),
            )
            .await;
        let s = &r.structured;
        assert_eq!(
            (
                s["rank"].clone(),
                s["more"].clone(),
                s["next_since"].clone()
            ),
            (json!(5), json!(true), json!(2))
        );
        assert_eq!(s["entries"].as_array().unwrap().len(), 2);
        assert_eq!(
            s["entries"][0]["commands"],
            json!([{"op": "move_periods", "bars": [13], "by": 1}])
        );
        assert_eq!(s["entries"][1]["at"], "2026-05-03T09:20:01Z");
        assert!(
            r.text.contains("rappelez history avec since_rank = 2"),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &k.carol,
                "history",
                json!({"schedule": id, "since_rank": 2}),
            )
            .await;
        assert_eq!(r.structured["entries"].as_array().unwrap().len(), 3);
        assert_eq!(r.structured["more"], false);
        let r = k
            .ok(
                &k.carol,
                "history",
                json!({"schedule": id, "since_rank": 5}),
            )
            .await;
        assert_eq!(
            r.structured,
            json!({"schedule_id": id, "rank": 5, "entries": [], "more": false, "next_since": 5})
        );
        assert_eq!(
            r.text,
            format!("Aucune modification depuis le rang 5\u{a0}: le planning {id} est au rang 5.")
        );
        k.refused(
            &k.carol,
            "history",
            json!({"schedule": id, "since_rank": "cinq"}),
            "invalid_arguments",
        )
        .await;
    }

    #[tokio::test]
    async fn history_since_a_rank_hides_other_peoples_emails_and_reasons() {
        let k = Kit::new("privacy").await;
        let id = k.schedule;
        k.ok(
            &k.alice,
            "apply_patch",
            json!({"schedule": id, "expected_rank": 0, "commands": [
                {"op": "add_member", "name": "Zoé", "email": "zoe@example.org"},
                {"op": "add_member", "name": "Bob", "email": "Bob@example.org"},
                {"op": "add_absence", "member": 32, "start": "2026-11-30", "end": "2026-11-30", "reason": "Déménagement"},
                {"op": "add_absence", "member": 33, "start": "2026-12-01", "end": "2026-12-01", "reason": "Formation"},
            ]}),
        )
        .await;
        let args = json!({"schedule": id, "since_rank": 0});
        let owner = k
            .ok(&k.alice, "history", args.clone())
            .await
            .structured
            .to_string();
        assert!(owner.contains("zoe@example.org") && owner.contains("Déménagement"));
        // Bob sees his own e-mail and absence reason, nobody else's.
        let bob = k
            .ok(&k.bob, "history", args.clone())
            .await
            .structured
            .to_string();
        assert!(
            !bob.contains("zoe@example.org") && !bob.contains("Déménagement"),
            "{bob}"
        );
        assert!(
            bob.contains("Bob@example.org") && bob.contains("Formation"),
            "{bob}"
        );
        let carol = k.ok(&k.carol, "history", args).await.structured.to_string();
        assert!(
            !carol.contains("@example.org") && !carol.contains("Formation"),
            "{carol}"
        );
        assert!(carol.contains("Zoé"), "names are not private: {carol}");
    }

    #[test]
    fn times_are_iso_utc() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(1_777_800_000_123), "2026-05-03T09:20:00Z");
        assert_eq!(iso_utc(-1_000), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn summaries_count_runs_and_bars() {
        use palmaplan_model::{BarId, MilestoneId};
        let mv = |n: u64| Command::MovePeriods {
            bars: (1..=n).map(BarId).collect(),
            milestones: vec![],
            by: 1,
        };
        assert_eq!(summary(&[mv(3)], Lang::Fr), "move_periods (3 blocs)");
        assert_eq!(summary(&[mv(1)], Lang::En), "move_periods (1 bar)");
        let both = Command::MovePeriods {
            bars: vec![BarId(1)],
            milestones: vec![MilestoneId(2), MilestoneId(3)],
            by: 1,
        };
        assert_eq!(
            summary(&[both, mv(2)], Lang::En),
            "move_periods ×2 (3 bars, 2 milestones)"
        );
        let rename = |n: &str| Command::RenameSchedule { name: n.into() };
        let notes = Command::SetScheduleNotes { notes: "x".into() };
        assert_eq!(
            summary(&[rename("a"), rename("b"), notes.clone()], Lang::Fr),
            "rename_schedule ×2, set_schedule_notes"
        );
        let many = [
            rename("a"),
            notes.clone(),
            rename("b"),
            notes.clone(),
            rename("c"),
            notes,
        ];
        assert_eq!(
            summary(&many, Lang::En),
            "rename_schedule, set_schedule_notes, rename_schedule, set_schedule_notes, + 2 more"
        );
        assert_eq!(summary(&[], Lang::Fr), "aucune commande");
    }
}

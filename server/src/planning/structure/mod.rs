//! The tools that edit a schedule's structure: the schedule itself (rename, duplicate,
//! delete), its settings and holidays, groups and rows, milestones, links and actions,
//! with the reads that go with them (`list_rows`, `list_actions`).
//!
//! Each write tool is a thin wrapper over one of the model's commands (same name where
//! one exists), built as the enum itself so the compiler checks its fields, and
//! written through `Ctx::apply`. What the tools add is the wording: a text naming what
//! changed (names, ids, the new rank) and a compact structured value.
//!
//! What a write did is read back from what the write recorded rather than guessed from
//! an earlier read: ids from the commands as applied, and old values and cascades
//! (what a delete took with it) from the inverse stored in the journal entry, which is
//! exact even when others write at the same time.
//!
//! This file holds the helpers the families share; one file per family below.

mod actions;
mod deletes;
mod lifecycle;
mod links;
mod locks;
mod milestones;
mod outline;
mod settings;
pub(super) use settings::{SettingsBrief, describe as describe_settings};
#[cfg(test)]
mod testkit;

use crate::planning::Code;
use palmaplan_model::calendar::Calendar;
use palmaplan_model::command::Command;
use palmaplan_model::risk::{self, Risks};
use palmaplan_model::{ActionStatus, BarId, ItemId, Lang, MemberId, Schedule, TimeUnit, text};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Ctx, Refusal, ToolSpec, Wrote};
use crate::planning::args::nullable;
use crate::storage::Stored;

pub(super) fn tools() -> Vec<ToolSpec> {
    let mut all = lifecycle::tools();
    all.extend(settings::tools());
    all.extend(outline::tools());
    all.extend(milestones::tools());
    all.extend(links::tools());
    all.extend(actions::tools());
    all.extend(deletes::tools());
    all.extend(locks::tools());
    all
}

/// How many entries a listed answer shows, in its text and its structured value, before
/// it says how many more there are: the model's own cap, so every list reads alike.
const CAP: usize = text::LIST_CAP;

/// "rang 4" / "rank 4".
fn rank(ctx: &Ctx, rank: i64) -> String {
    ctx.tr(format!("rang {rank}"), format!("rank {rank}"))
}

/// The line that ends a capped list: "… et 12 autres." (nothing when nothing is left).
fn more(ctx: &Ctx, left: usize) -> String {
    if left == 0 {
        return String::new();
    }
    ctx.tr(
        format!(
            "\n… et {left} {}.",
            text::plural(Lang::Fr, left, "autre", "autres")
        ),
        format!("\n… and {left} more."),
    )
}

/// A refusal for a call that asks to change nothing.
fn nothing_to_change(ctx: &Ctx, fields: &str) -> Refusal {
    Refusal::new(
        Code::InvalidArguments,
        ctx.tr(
            format!("Rien à changer\u{a0}: indiquez au moins un de ces champs\u{a0}: {fields}."),
            format!("Nothing to change: give at least one of these fields: {fields}."),
        ),
    )
}

/// "« Audit du système » (13)" / "“Audit du système” (13)": a named item with its id.
fn quote(ctx: &Ctx, name: &str, id: impl std::fmt::Display) -> String {
    ctx.tr(
        format!("«\u{a0}{name}\u{a0}» ({id})"),
        format!("“{name}” ({id})"),
    )
}

/// A bar or a milestone as texts name it, or its bare id when it is gone.
fn item(ctx: &Ctx, s: &Schedule, id: ItemId) -> String {
    match s.item_label(id) {
        Some(label) => quote(ctx, label, id),
        None => id.to_string(),
    }
}

/// "Karim Benali (2)": a member as texts name them (never their e-mail).
fn member(s: &Schedule, id: MemberId) -> String {
    match s.member(id) {
        Some(m) => format!("{} ({id})", m.name),
        None => id.to_string(),
    }
}

/// An action's status in words.
fn status_words(lang: Lang, status: ActionStatus) -> &'static str {
    match (lang, status) {
        (Lang::Fr, ActionStatus::Todo) => "à faire",
        (Lang::Fr, ActionStatus::InProgress) => "en cours",
        (Lang::Fr, ActionStatus::Done) => "terminée",
        (Lang::En, ActionStatus::Todo) => "to do",
        (Lang::En, ActionStatus::InProgress) => "in progress",
        (Lang::En, ActionStatus::Done) => "done",
    }
}

/// The schedule's time unit in words, plural: "jours ouvrés" / "working days".
fn unit_word(lang: Lang, u: TimeUnit) -> &'static str {
    match (lang, u) {
        (Lang::Fr, TimeUnit::Day) => "jours ouvrés",
        (Lang::Fr, TimeUnit::Week) => "semaines ouvrées",
        (Lang::En, TimeUnit::Day) => "working days",
        (Lang::En, TimeUnit::Week) => "working weeks",
    }
}

/// The inverse of a write, as its journal entry stores it: the old values a reply names.
fn inverse_of(wrote: &Wrote) -> Option<Vec<Command>> {
    Some(wrote.inverse.clone())
}

/// What a delete removed along with its target, counted from its inverse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
struct Removed {
    rows: usize,
    bars: usize,
    milestones: usize,
    links: usize,
    actions: usize,
}

impl Removed {
    /// Counts the re-adds in an inverse, except the deleted target itself (`skip`).
    fn count(inverse: &[Command], skip: &str) -> Removed {
        let mut r = Removed::default();
        for c in inverse {
            if c.op() == skip {
                continue;
            }
            match c {
                Command::AddRow { .. } => r.rows += 1,
                Command::AddPeriod { .. } => r.bars += 1,
                Command::AddMilestone { .. } => r.milestones += 1,
                Command::AddLink { .. } => r.links += 1,
                Command::AddAction { .. } => r.actions += 1,
                _ => {}
            }
        }
        r
    }

    /// ", avec 3 lignes, 3 blocs et 4 liens" — or " (rien n'en dépendait)".
    fn words(self, ctx: &Ctx) -> String {
        let lang = ctx.lang();
        let words = |fr: [&'static str; 2], en: [&'static str; 2]| match lang {
            Lang::Fr => fr,
            Lang::En => en,
        };
        let parts: Vec<String> = [
            (self.rows, words(["ligne", "lignes"], ["row", "rows"])),
            (self.bars, words(["bloc", "blocs"], ["bar", "bars"])),
            (
                self.milestones,
                words(["jalon", "jalons"], ["milestone", "milestones"]),
            ),
            (self.links, words(["lien", "liens"], ["link", "links"])),
            (
                self.actions,
                words(["action", "actions"], ["action", "actions"]),
            ),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, [one, many])| text::count(lang, *n, one, many))
        .collect();
        match parts.as_slice() {
            [] => ctx.tr(" (rien n'en dépendait)", " (nothing depended on it)"),
            [one] => ctx.tr(format!(", avec {one}"), format!(", with {one}")),
            [init @ .., last] => ctx.tr(
                format!(", avec {} et {last}", init.join(", ")),
                format!(", with {} and {last}", init.join(", ")),
            ),
        }
    }
}

/// Writes commands computed from the current state (adding holidays needs the current
/// list), at the rank they were computed from, so a concurrent write can never be
/// overwritten by a stale list: on "out of date", it reads again and recomputes. The
/// builder returns no command when nothing needs to change; then nothing is written.
async fn write_from_state(
    ctx: &Ctx,
    id: i64,
    mut build: impl FnMut(&Schedule) -> Result<Vec<Command>, Refusal>,
) -> Result<(Stored, Option<Wrote>), Refusal> {
    // Each retry means another write succeeded meanwhile; past a few, the refusal (out
    // of date, nothing written) is the honest answer.
    const ATTEMPTS: usize = 8;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let cur = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
        let cmds = build(&cur.state)?;
        if cmds.is_empty() {
            return Ok((cur, None));
        }
        match ctx.apply(id, &cmds, Some(cur.rank)).await {
            Ok(w) => return Ok((cur, Some(w))),
            Err(r) if r.code == Code::OutOfDate && attempt < ATTEMPTS => {}
            Err(r) => return Err(r),
        }
    }
}

/// Which risks a change should report right after it is written.
enum Watch<'a> {
    /// Violated links that the filter selects.
    Links(&'a dyn Fn(&risk::LinkViolation) -> bool),
    /// Bars at risk of a member's absence that the filter selects.
    Bars(&'a dyn Fn(BarId) -> bool),
}

/// The risk lines (the model's wording) a change just caused, told right after it.
/// Only the kind of risk asked for is computed: O(links) or O(bars), like the risk
/// panel, and no more than the write itself costs.
fn risk_lines(ctx: &Ctx, s: &Schedule, watch: Watch<'_>) -> Vec<String> {
    let cal = Calendar::for_schedule(s);
    let mut r = Risks::default();
    match watch {
        Watch::Links(keep) => {
            r.violated_links = risk::violated_links(s, &cal);
            r.violated_links.retain(|v| keep(v));
            r.violated_links.truncate(CAP);
        }
        Watch::Bars(keep) => {
            r.absence_risks = risk::absence_risks(s, &cal);
            r.absence_risks.retain(|a| keep(a.bar));
            r.absence_risks.truncate(CAP);
        }
    }
    text::risk_details(s, &r, ctx.lang())
}

/// Appends risk lines under a heading ("Attention : …").
fn push_risks(ctx: &Ctx, text: &mut String, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    text.push_str(&ctx.tr("\nAttention\u{a0}:", "\nWatch out:"));
    for l in lines {
        text.push_str("\n- ");
        text.push_str(l);
    }
}

/// The links that touch an item.
fn touches(v: &risk::LinkViolation, id: ItemId) -> bool {
    v.from == id || v.to == id
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::testkit::kit;

    #[tokio::test]
    async fn every_tool_is_described_with_a_closed_object_schema() {
        let names: Vec<&str> = super::tools().iter().map(|t| t.name).collect();
        assert_eq!(names.len(), 18, "{names:?}");
        let k = kit().await;
        for t in k.planning.tools().filter(|t| names.contains(&t.name)) {
            assert!(t.description.len() > 10, "{}", t.name);
            let s = &t.input_schema;
            assert_eq!(s["type"], "object", "{}", t.name);
            // Closed all the same: an unknown field is refused by name (the schema
            // leaves `additionalProperties` out, for Gemini).
            assert!(s.get("additionalProperties").is_none(), "{}", t.name);
            let required = s["required"].as_array().cloned().unwrap_or_default();
            if t.name != "list_schedules" {
                assert!(required.contains(&json!("schedule")), "{}: {s}", t.name);
            }
        }
        let assign = k.planning.tools().find(|t| t.name == "update_row").unwrap();
        assert_eq!(assign.input_schema["required"], json!(["schedule", "row"]));
        // "null clears" keeps null in the member's schema.
        assert!(
            assign.input_schema["properties"]["member"]
                .to_string()
                .contains("null"),
            "{}",
            assign.input_schema
        );
        let kinds = k.planning.tools().find(|t| t.name == "add_link").unwrap();
        assert!(
            kinds.input_schema["properties"]["kind"]
                .to_string()
                .contains("SF"),
            "{}",
            kinds.input_schema
        );
    }
}

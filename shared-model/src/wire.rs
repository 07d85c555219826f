//! Tool results as types, one definition for both ends: the server serialises them as
//! a tool's `structuredContent` and declares its `outputSchema` from them (schemars,
//! under the `schema` feature), and the view deserialises the same types instead of
//! picking fields out of untyped JSON. A field added here reaches the client's schema,
//! the server's answer and the view's reading at once.

use serde::{Deserialize, Serialize};

use crate::command::Command;
use crate::date::Date;
use crate::diff::Change;
use crate::schedule::{AbsenceId, BarId, MemberId};

/// Which view `show_schedule` opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ViewKind {
    /// The Gantt chart.
    #[default]
    Gantt,
    /// The bars' actions in three columns.
    Kanban,
    /// The members' absences, day by day.
    Agenda,
}

/// A saved version drawn as the baseline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VersionName {
    pub id: i64,
    pub name: String,
}

/// The options a view opens with, as `show_schedule` checked them (each only when
/// asked for). The `/embed` page reads the same from its link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ViewOptions {
    /// The Filter panel's query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// "day", "week", "month" or "quarter".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoom: Option<String>,
    /// First day shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Date>,
    /// Last day shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Date>,
    /// "grid", "timeline" or "both".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub panel: Option<String>,
    /// Whether the critical path is highlighted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<bool>,
    /// The baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<VersionName>,
    /// "compact": the smaller inline display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// As asked; `read_only` says what was granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub editable: Option<bool>,
}

/// `show_schedule`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Shown {
    pub schedule_id: i64,
    pub name: String,
    pub view: ViewKind,
    pub options: ViewOptions,
    /// The rank the view opens at.
    pub rank: i64,
    /// Whether the view may write (the caller's role, the token, `editable`).
    pub read_only: bool,
    /// When it was shown (UTC, ISO 8601): a newer view of the same schedule in the
    /// conversation withdraws this one.
    pub shown_at: String,
    /// For a client without MCP Apps: the one-hour link that opens the view.
    pub url: Option<String>,
    /// When that link stops working (UTC, ISO 8601).
    pub expires_at: Option<String>,
}

/// A member named in the agenda.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgendaMember {
    pub id: MemberId,
    pub name: String,
}

/// An absence as the agenda draws it: who and when, never why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgendaAbsence {
    pub id: AbsenceId,
    pub member: MemberId,
    pub start: Date,
    pub end: Date,
}

/// `get_schedule_absences`'s result: the absences overlapping a window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgendaAbsences {
    pub schedule_id: i64,
    pub rank: i64,
    pub from: Date,
    pub to: Date,
    /// The members of the absences listed, by id.
    pub members: Vec<AgendaMember>,
    pub absences: Vec<AgendaAbsence>,
    /// Whether more absences fall in the window than the answer holds.
    pub more: bool,
}

/// A list the answer caps: how many there are, and the first ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Listed<T> {
    pub count: usize,
    pub items: Vec<T>,
}

impl<T> Default for Listed<T> {
    fn default() -> Self {
        Listed {
            count: 0,
            items: Vec::new(),
        }
    }
}

impl<T> Listed<T> {
    /// Whether every item is in the list (none was cut).
    pub fn whole(&self) -> bool {
        self.items.len() >= self.count
    }
}

/// A change the chart draws (the model's `diff::Change`), with the id of its item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangeItem {
    #[serde(flatten)]
    pub change: Change,
    /// The bar's or the milestone's id.
    pub id: u64,
}

/// A change the chart cannot draw, named by its kind and its item (if it has one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Unshown {
    pub kind: String,
    pub id: Option<u64>,
}

/// The risks the new state has and the old one had not, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NewRisks {
    pub violated_links: usize,
    pub absence_risks: usize,
    pub broken_constraints: usize,
    pub missed_deadlines: usize,
    /// The bars newly at risk, by id (the first 50).
    pub bars: Vec<BarId>,
}

/// A before/after: what changes, the project end on both sides, the new risks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiffSummary {
    pub changes: Listed<ChangeItem>,
    pub not_shown: Listed<Unshown>,
    pub end_before: Option<Date>,
    pub end_after: Option<Date>,
    /// Calendar days from the end before to the end after.
    pub end_shift_days: Option<i32>,
    pub new_risks: NewRisks,
}

/// The project end before and after a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ends {
    pub before: Option<Date>,
    pub after: Option<Date>,
}

/// A tool result's `_meta` as the view reads it: what is for the view only, never for
/// the model (hosts hand `_meta` to the view and not to the model).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultMeta {
    /// The server's help page, which the view's Help button opens (`ui/open-link`),
    /// when the server has a public address.
    #[serde(
        rename = "palmaplan/help_url",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub help_url: Option<String>,
    /// The words the view shows the person for this answer: a before/after's change
    /// list (with its ends, and why it could not be accepted), or what a write did;
    /// items named by their labels, without the ids, ranks and tools the model's text
    /// gives it to act with (`text::change_list_for_person`).
    #[serde(
        rename = "palmaplan/person_text",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub person_text: Option<String>,
}

impl ResultMeta {
    /// Read from a result's `_meta` (anything else, or nothing, reads as empty).
    pub fn read(meta: &serde_json::Value) -> ResultMeta {
        ResultMeta::deserialize(meta).unwrap_or_default()
    }

    /// As the result's `_meta` value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// What a write's cascade moved beyond what was asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CascadeSummary {
    pub bars: Vec<u64>,
    pub milestones: Vec<u64>,
    pub project_end: Ends,
}

/// How to accept a proposal: `apply_patch` with its commands and these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ApplyWith {
    pub cascade: bool,
    pub expected_rank: i64,
}

/// The mark of a proposal's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ProposalKind {
    #[serde(rename = "proposal")]
    Proposal,
}

/// The mark of a comparison's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ComparisonKind {
    #[serde(rename = "comparison")]
    Comparison,
}

/// `what_if`'s result: the commands simulated, as `apply_patch` would write them.
// `C` is how the commands are held: the model's `Command` on the server; the view,
// which only sends them back to `apply_patch`, keeps them as JSON (reading them into
// commands would put the whole patch language's decoder in the page).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Proposal<C = Command> {
    pub schedule_id: i64,
    pub kind: ProposalKind,
    /// The rank the proposal was made at.
    pub rank: i64,
    /// Whether the view offers "Accept" (everything drawn, something changes, the
    /// caller could write it).
    pub acceptable: bool,
    /// The commands as applied (ids filled in, any cascade included). Declared as
    /// objects: a lock carries who set it and when, which the patch language (what a
    /// model writes, `describe_patch`) leaves out.
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")
    )]
    pub commands: Vec<C>,
    pub apply_with: ApplyWith,
    #[serde(flatten)]
    pub diff: DiffSummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cascade: Option<CascadeSummary>,
    /// The refusal the write would get (`{error, …}`), when the caller could not make
    /// it: its details differ by refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<serde_json::Map<String, serde_json::Value>>,
}

/// One side of a comparison: a saved version, or the current state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Side {
    /// The version's id; null for the current state.
    pub version: Option<i64>,
    /// The version's name, or "current".
    pub name: String,
    pub rank: i64,
}

/// `diff_versions`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Comparison {
    pub schedule_id: i64,
    pub kind: ComparisonKind,
    /// The schedule's current rank.
    pub rank: i64,
    pub from: Side,
    pub to: Side,
    /// Always false: a comparison is not a proposal.
    pub acceptable: bool,
    pub read_only: bool,
    #[serde(flatten)]
    pub diff: DiffSummary,
}

/// `get_changes_since`'s result: the journal after a rank, for the view's live updates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangesSince {
    pub schedule_id: i64,
    /// The current rank.
    pub rank: i64,
    /// The entries after the rank asked for, oldest first (each as `history` since a rank gives
    /// it: rank, author, time, kind, commands).
    pub entries: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Whether more entries follow: ask again from `next_since`.
    pub more: bool,
    pub next_since: i64,
    /// When this caller was last shown a view of the schedule (UTC, ISO 8601): a view
    /// shown earlier withdraws.
    pub latest_view: Option<String>,
    /// With records: the current state of the items the entries touched (the model's
    /// `delta`: its records, removed ids, next id, the state's rank, the analysis), null
    /// when the view must read the pages again. Its records are the pages' records,
    /// which the view reads with its record reader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")
    )]
    pub delta: Option<serde_json::Value>,
}

/// What says which page of which state a `get_schedule_page` answer is (its records,
/// the pages' record stream, travel beside it and are read by the record reader).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PageHead {
    /// The rank the pages were made at.
    pub rank: i64,
    /// This page's number, from 0.
    pub page: usize,
    /// How many pages the schedule has; null only on page 0 of packed pages asked for
    /// before the server packed them (`get_schedule_page`'s `packed`): page 1's answer
    /// tells.
    pub pages: Option<usize>,
}

/// What a live update's delta says besides its records (which travel in the pages'
/// record stream): the state it was read from, the ids gone, the next id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeltaHead {
    /// The rank of the state the records were read from.
    pub rank: i64,
    /// Ids of items that no longer exist.
    #[serde(default)]
    pub removed: Vec<u64>,
    pub next_id: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_results_meta_reads_what_the_server_writes_and_nothing_else() {
        let m = ResultMeta {
            help_url: Some("https://p.example/help?lang=fr".into()),
            person_text: None,
        };
        let v = m.to_value();
        assert_eq!(
            v,
            serde_json::json!({"palmaplan/help_url": "https://p.example/help?lang=fr"})
        );
        assert_eq!(ResultMeta::read(&v), m);
        // No `_meta`, another host's keys, or a wrong type: nothing for the view.
        for other in [
            serde_json::Value::Null,
            serde_json::json!({"openai/x": 1}),
            serde_json::json!({"palmaplan/person_text": 3}),
        ] {
            assert_eq!(ResultMeta::read(&other), ResultMeta::default(), "{other}");
        }
    }

    #[test]
    fn options_leave_out_what_was_not_asked() {
        let o = ViewOptions {
            zoom: Some("week".into()),
            ..ViewOptions::default()
        };
        assert_eq!(serde_json::to_string(&o).unwrap(), r#"{"zoom":"week"}"#);
        let back: ViewOptions = serde_json::from_str(r#"{"zoom":"week"}"#).unwrap();
        assert_eq!(back, o);
        // An older server's extra option does not stop the view.
        let v: ViewOptions = serde_json::from_str(r#"{"later":1,"from":"2026-11-02"}"#).unwrap();
        assert_eq!(v.from, Some("2026-11-02".parse().unwrap()));
    }
}

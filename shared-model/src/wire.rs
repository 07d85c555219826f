//! Tool results as types, one definition for both ends: the server serialises them as
//! a tool's `structuredContent` and declares its `outputSchema` from them (schemars,
//! under the `schema` feature), and the view deserialises the same types instead of
//! picking fields out of untyped JSON. A field added here reaches the client's schema,
//! the server's answer and the view's reading at once.

use serde::{Deserialize, Serialize};

use crate::date::Date;
use crate::schedule::{AbsenceId, MemberId};

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

#[cfg(test)]
mod tests {
    use super::*;

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

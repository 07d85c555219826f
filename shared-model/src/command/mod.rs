//! The patch language: every write to a schedule is a list of [`Command`]s, and
//! [`apply_in_place`] / [`apply`] are the only way a schedule changes.
//!
//! The server's tools, `what_if`, `apply_patch`, undo and redo, journal replay and the
//! view's gestures all build commands and go through `apply`, so a write is validated
//! by the same rules wherever it comes from. This module owns the commands, their
//! validation, their inverses and the schedule invariants (`validate_schedule`); it
//! leaves the meaning of dates to `calendar`, analyses to `cpm` and `risk`, and the
//! wording of tool answers to `text`.
//!
//! How a list is applied, and why:
//! - Commands run in order; each one validates everything it needs BEFORE it mutates,
//!   and records the commands that undo it. When a command fails, the ones already
//!   applied are undone with those inverses, so a failed list leaves the schedule
//!   exactly as it was without ever cloning it (a clone of a 100,000-bar schedule costs
//!   more than most changes).
//! - Inverses carry explicit values (the old dates, the old position, the ids of what a
//!   cascade deleted), never relative moves: moving by `-n` working days does not undo
//!   a move by `n` when the start was snapped to a working day.
//! - `next_id` is the one thing an inverse does not restore: ids are never reused (see
//!   `schedule`), so an undone add leaves its id burnt. A failed list, which is undone
//!   internally and never reaches the journal, does restore it.
//! - Link checks (duplicates and cycles) need the whole link graph. A list that adds
//!   few links checks each one as it comes; a list that adds many (the undo of a large
//!   delete) checks the graph once at the end, and if anything fails the list is
//!   replayed with a check per link to name the exact command at fault. Additions only
//!   ever add duplicates and cycles, so one check after a run of additions answers for
//!   each of them; a command that could remove a problem (a delete, a change of kind)
//!   closes the run with a check first, so both ways always agree.
//!
//! Submodules: `outline` (groups and rows), `periods` (bars and milestones), `links`,
//! `people` (actions, members, absences), `settings` (schedule-level fields and
//! `replace_schedule`), `footprint` (the ids a command reads and changes, for undo),
//! `cascade` (deletes that take dependents with them), `graph` (link graph checks),
//! `progress` (a bar's percent complete and actual dates), `ctx` (lookups and deferred
//! inserts during one apply), `check` (field rules), `error` (errors and their French
//! and English messages), `person` (their words for a person in the view), `validate`
//! (the invariants of a whole schedule, for imported data).

mod cascade;
mod check;
mod ctx;
mod error;
mod footprint;
mod graph;
mod links;
mod locks;
mod outline;
mod people;
mod periods;
mod person;
mod policy;
mod progress;
mod settings;
mod validate;

// Its generators also feed the patch fuzz harness (`crate::fuzz`).
#[cfg(test)]
pub(crate) mod proptests;
#[cfg(test)]
mod testkit;

use serde::{Deserialize, Serialize};

use crate::date::{Date, Weekday};
use crate::schedule::*;

pub use check::{MAX_BY, MAX_ID, MAX_LAG, MAX_TEXT};
pub use error::{
    ApplyError, Kind, Problem, ScheduleError, lock_held_by, lock_summary, lock_summary_named,
    lock_target,
};
pub(crate) use error::{lock_target_name, lock_target_named};
pub use footprint::{Footprint, SCHEDULE_FIELDS};
pub use locks::MAX_REASON;
pub use policy::{Clearance, Subject};
// The date arithmetic of moves and resizes, for the view's drag preview: the same
// functions the commands run, without the rest of the command engine.
pub use periods::{resized_bar, shifted_bar, shifted_milestone};
pub use validate::{kind_of, validate_schedule};

use ctx::{Ctx, Fault, Mode};

/// One bar's part of `set_progress`: what is left out stays as it is.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgressEntry {
    pub bar: BarId,
    /// Percent complete, 0 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<u8>,
    /// Null clears.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<Date>"))]
    pub actual_start: Option<Option<Date>>,
    /// Null clears; a date completes the bar.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<Date>"))]
    pub actual_finish: Option<Option<Date>>,
}

/// Which edge of a bar `resize_period` moves.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Edge {
    Start,
    #[default]
    End,
}

/// One write to a schedule. The wire form is a JSON object whose `op` names the command
/// (the server's tool names), e.g. `{"op":"move_periods","bars":[42],"by":2}`.
///
/// Adds take an optional explicit `id`: inverses and journal replay use it so that an
/// item comes back with the same id; it must be unused, and `next_id` grows past it.
/// Optional fields marked "null clears" distinguish absent (unchanged) from `null`
/// (cleared). Positions (`index`) count from 0; `index` equal to the count means last.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    // Groups.
    AddGroup {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<GroupId>,
        name: String,
        /// Position among the groups; last by default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        index: Option<usize>,
    },
    RenameGroup {
        group: GroupId,
        name: String,
    },
    /// Moves a group, with its rows, to a final position among the groups.
    MoveGroup {
        group: GroupId,
        index: usize,
    },
    /// Deletes a group, its rows, their bars and milestones, and everything on those.
    DeleteGroup {
        group: GroupId,
    },

    // Rows.
    AddRow {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RowId>,
        group: GroupId,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        member: Option<MemberId>,
        /// Position among the group's rows; last by default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        index: Option<usize>,
    },
    RenameRow {
        row: RowId,
        name: String,
    },
    /// Moves a row to a final position among the rows of `group` (its own group by
    /// default).
    MoveRow {
        row: RowId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group: Option<GroupId>,
        index: usize,
    },
    /// Sets or (with `null`) clears the member who does a row's work.
    SetRowMember {
        row: RowId,
        /// The member; null (required to clear) leaves the row without one.
        #[serde(deserialize_with = "required_nullable")]
        #[cfg_attr(
            feature = "schema",
            schemars(required, schema_with = "or_null::<MemberId>")
        )]
        member: Option<MemberId>,
    },
    /// Deletes a row, its bars and milestones, and their links and actions.
    DeleteRow {
        row: RowId,
    },

    // Bars.
    AddPeriod {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<BarId>,
        row: RowId,
        label: String,
        start: Date,
        end: Date,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        color: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notes: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pin: Option<Date>,
    },
    /// Moves bars and milestones by `by` units of the schedule's time unit, in working
    /// time, keeping each bar's working duration.
    MovePeriods {
        bars: Vec<BarId>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        milestones: Vec<MilestoneId>,
        by: i32,
    },
    /// Moves one edge of a bar by `by` units of working time.
    ResizePeriod {
        bar: BarId,
        #[serde(default)]
        edge: Edge,
        by: i32,
    },
    SetPeriodDates {
        bar: BarId,
        start: Date,
        end: Date,
    },
    UpdatePeriod {
        bar: BarId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Null clears.
        #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
        #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<String>"))]
        color: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notes: Option<String>,
        /// Null clears.
        #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
        #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<Date>"))]
        pin: Option<Option<Date>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row: Option<RowId>,
    },
    /// Deletes bars with their links and actions.
    DeletePeriods {
        bars: Vec<BarId>,
    },

    // Milestones.
    AddMilestone {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<MilestoneId>,
        row: RowId,
        label: String,
        date: Date,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        color: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notes: Option<String>,
    },
    MoveMilestone {
        milestone: MilestoneId,
        date: Date,
    },
    UpdateMilestone {
        milestone: MilestoneId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Null clears.
        #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
        #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<String>"))]
        color: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notes: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row: Option<RowId>,
    },
    /// Deletes a milestone with its links.
    DeleteMilestone {
        milestone: MilestoneId,
    },

    // Constraints and deadlines, on bars and milestones.
    /// Sets a date constraint on a bar or a milestone, or (with `null`) clears all of
    /// its constraints. A milestone has one constraint, which this replaces. A bar has
    /// two places (see `schedule::Bar`): "start_no_earlier_than" sets its `pin`, any
    /// other kind its `constraint`, each leaving the other as it is. E.g.
    /// `{"op":"set_constraint","item":14,"constraint":{"kind":"finish_no_later_than",
    /// "date":"2026-12-04"}}`; `"constraint": null` is required to clear.
    SetConstraint {
        item: ItemId,
        /// The constraint; null (required to clear) clears all of the item's.
        #[serde(deserialize_with = "required_nullable")]
        #[cfg_attr(
            feature = "schema",
            schemars(required, schema_with = "or_null::<Constraint>")
        )]
        constraint: Option<Constraint>,
    },
    /// Sets or (with `null`, required) clears a bar's or a milestone's deadline: a
    /// date it should finish by, which never moves it.
    SetDeadline {
        item: ItemId,
        /// The deadline; null (required to clear) clears it.
        #[serde(deserialize_with = "required_nullable")]
        #[cfg_attr(
            feature = "schema",
            schemars(required, schema_with = "or_null::<Date>")
        )]
        deadline: Option<Date>,
    },

    // Progress, on bars.
    /// Sets the progress of one or more bars in one write: each entry's percent and
    /// actual dates, each optional (left out: unchanged; `null` clears an actual date).
    /// An actual finish completes the bar (100 % when no percent is given). E.g.
    /// `{"op":"set_progress","bars":[{"bar":14,"percent":40,"actual_start":"2026-11-02"}]}`.
    SetProgress {
        bars: Vec<ProgressEntry>,
    },

    // Links.
    AddLink {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<LinkId>,
        from: ItemId,
        to: ItemId,
        /// FS by default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<LinkKind>,
        /// In the schedule's time unit; 0 by default, negative for a lead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lag: Option<i32>,
    },
    UpdateLink {
        link: LinkId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<LinkKind>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lag: Option<i32>,
    },
    DeleteLink {
        link: LinkId,
    },

    // Actions.
    AddAction {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<ActionId>,
        bar: BarId,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<ActionStatus>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignee: Option<MemberId>,
    },
    SetActionStatus {
        action: ActionId,
        status: ActionStatus,
    },
    UpdateAction {
        action: ActionId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Null clears.
        #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
        #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<MemberId>"))]
        assignee: Option<Option<MemberId>>,
    },
    DeleteAction {
        action: ActionId,
    },

    // Members.
    AddMember {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<MemberId>,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        email: Option<String>,
    },
    UpdateMember {
        member: MemberId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Null clears.
        #[serde(default, skip_serializing_if = "Option::is_none", with = "nullable")]
        #[cfg_attr(feature = "schema", schemars(schema_with = "or_null::<String>"))]
        email: Option<Option<String>>,
    },
    /// Deletes a member and their absences; rows and actions lose them.
    DeleteMember {
        member: MemberId,
    },

    // Absences.
    AddAbsence {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<AbsenceId>,
        member: MemberId,
        start: Date,
        end: Date,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    UpdateAbsence {
        absence: AbsenceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start: Option<Date>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<Date>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    DeleteAbsence {
        absence: AbsenceId,
    },

    // The schedule itself.
    RenameSchedule {
        name: String,
    },
    SetScheduleNotes {
        notes: String,
    },
    /// Changes some settings; holidays and weekdays are stored sorted and deduplicated.
    SetSettings {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_zone: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        working_weekdays: Option<Vec<Weekday>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        holidays: Option<Vec<Date>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_unit: Option<TimeUnit>,
        /// "auto" pushes successors on every write that changes dates or links.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scheduling: Option<Scheduling>,
    },
    // Locks.
    /// Locks a bar, a row, a group or the whole schedule: no write may change what it
    /// holds until `unlock` (see `locks`). `by`, `by_name` and `since_ms` say who set
    /// it and when; the server fills them in from the caller and its clock.
    Lock {
        target: LockTarget,
        // Filled in by the server from the caller and its clock: not the model's to say
        // (the patch language's schema leaves them out; answers that carry commands
        // declare them as objects).
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(skip))]
        by: u64,
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(skip))]
        by_name: String,
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(skip))]
        since_ms: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    Unlock {
        target: LockTarget,
    },

    /// Replaces the whole schedule (restoring a saved version): the given state must
    /// pass `validate_schedule`; `next_id` keeps the larger of the two, so ids stay
    /// unused forever. Its inverse is another `replace_schedule` with the old state.
    // Not in the patch language a model reads: restore_version and import write it.
    #[cfg_attr(feature = "schema", schemars(skip))]
    ReplaceSchedule {
        schedule: Box<Schedule>,
    },
}

impl Command {
    /// The command's wire name (`"move_periods"`), as in its `op` field.
    pub fn op(&self) -> &'static str {
        match self {
            Command::AddGroup { .. } => "add_group",
            Command::RenameGroup { .. } => "rename_group",
            Command::MoveGroup { .. } => "move_group",
            Command::DeleteGroup { .. } => "delete_group",
            Command::AddRow { .. } => "add_row",
            Command::RenameRow { .. } => "rename_row",
            Command::MoveRow { .. } => "move_row",
            Command::SetRowMember { .. } => "set_row_member",
            Command::DeleteRow { .. } => "delete_row",
            Command::AddPeriod { .. } => "add_period",
            Command::MovePeriods { .. } => "move_periods",
            Command::ResizePeriod { .. } => "resize_period",
            Command::SetPeriodDates { .. } => "set_period_dates",
            Command::UpdatePeriod { .. } => "update_period",
            Command::DeletePeriods { .. } => "delete_periods",
            Command::AddMilestone { .. } => "add_milestone",
            Command::MoveMilestone { .. } => "move_milestone",
            Command::UpdateMilestone { .. } => "update_milestone",
            Command::DeleteMilestone { .. } => "delete_milestone",
            Command::SetConstraint { .. } => "set_constraint",
            Command::SetDeadline { .. } => "set_deadline",
            Command::SetProgress { .. } => "set_progress",
            Command::AddLink { .. } => "add_link",
            Command::UpdateLink { .. } => "update_link",
            Command::DeleteLink { .. } => "delete_link",
            Command::AddAction { .. } => "add_action",
            Command::SetActionStatus { .. } => "set_action_status",
            Command::UpdateAction { .. } => "update_action",
            Command::DeleteAction { .. } => "delete_action",
            Command::AddMember { .. } => "add_member",
            Command::UpdateMember { .. } => "update_member",
            Command::DeleteMember { .. } => "delete_member",
            Command::AddAbsence { .. } => "add_absence",
            Command::UpdateAbsence { .. } => "update_absence",
            Command::DeleteAbsence { .. } => "delete_absence",
            Command::RenameSchedule { .. } => "rename_schedule",
            Command::SetScheduleNotes { .. } => "set_schedule_notes",
            Command::SetSettings { .. } => "set_settings",
            Command::Lock { .. } => "lock",
            Command::Unlock { .. } => "unlock",
            Command::ReplaceSchedule { .. } => "replace_schedule",
        }
    }

    /// The kind of item this command appends to a collection kept sorted by id, if any:
    /// such appends may be deferred within a run of the same command (see `ctx`).
    fn appends(&self) -> Option<Kind> {
        match self {
            Command::AddPeriod { .. } => Some(Kind::Bar),
            Command::AddMilestone { .. } => Some(Kind::Milestone),
            Command::AddLink { .. } => Some(Kind::Link),
            Command::AddAction { .. } => Some(Kind::Action),
            Command::AddMember { .. } => Some(Kind::Member),
            Command::AddAbsence { .. } => Some(Kind::Absence),
            _ => None,
        }
    }

    /// Whether this command may remove a link or change a link's kind: it could hide a
    /// duplicate or a cycle that an earlier addition created, so deferred link checks
    /// must run before it (see [`run`]).
    fn may_undo_link_problems(&self) -> bool {
        matches!(
            self,
            Command::DeleteLink { .. }
                | Command::DeletePeriods { .. }
                | Command::DeleteMilestone { .. }
                | Command::DeleteRow { .. }
                | Command::DeleteGroup { .. }
                | Command::UpdateLink { kind: Some(_), .. }
                | Command::ReplaceSchedule { .. }
        )
    }
}

/// The schema of a field where `null` is a value (it clears): the type or null.
#[cfg(feature = "schema")]
fn or_null<T: schemars::JsonSchema>(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "anyOf": [g.subschema_for::<T>(), { "type": "null" }] })
}

/// Serde helper for "null clears" fields: absent = `None` (unchanged), `null` =
/// `Some(None)` (cleared), a value = `Some(Some(v))`.
mod nullable {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<T: Serialize, S: Serializer>(
        v: &Option<Option<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

/// Deserialises an `Option` that must be present (possibly `null`): a custom
/// `deserialize_with` stops serde from treating the missing field as `None`, so
/// `set_row_member` without `member` is an error rather than a silent clear.
fn required_nullable<'de, T: Deserialize<'de>, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// What a successful apply did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// Commands that, applied to the new state, give back the old one exactly, except
    /// `next_id`, which only grows: ids are never reused, so the ids an undone add
    /// handed out stay burnt.
    pub inverse: Vec<Command>,
    /// The commands as applied, every generated id (and resolved position) filled in:
    /// the journal stores these, so a replay elsewhere hands out the same ids.
    pub applied: Vec<Command>,
    /// What a cascade moved after the commands (`apply_cascading`), by id; its
    /// commands are at the end of `applied`.
    pub cascade: Vec<crate::push::Moved>,
}

/// Applies `cmds` to a copy of `s`: the new schedule and what was done, or the first
/// error (and `s` is untouched either way).
pub fn apply(s: &Schedule, cmds: &[Command]) -> Result<(Schedule, Applied), ApplyError> {
    let mut next = s.clone();
    let applied = apply_in_place(&mut next, cmds)?;
    Ok((next, applied))
}

/// Applies `cmds` in order, all or nothing: on success the schedule holds every change
/// and the result says how to undo them; on error the schedule is exactly as it was
/// (including `next_id`). Costs the size of the change plus lookups (binary searches in
/// the collections kept sorted by id, scans of groups and rows, one pass over the links
/// for a cascade or a link check); the schedule is never cloned.
///
/// The schedule must satisfy [`validate_schedule`] (everything written by commands
/// does; check imported data first): undoing a failed list relies on it.
pub fn apply_in_place(s: &mut Schedule, cmds: &[Command]) -> Result<Applied, ApplyError> {
    let link_additions = cmds
        .iter()
        .filter(|c| matches!(c, Command::AddLink { .. }))
        .count();
    if link_additions > IMMEDIATE_LINK_CHECKS {
        // A failure of the fast path, whatever it was, is replayed below with a check per
        // command, which finds the first command at fault exactly.
        if let Ok(done) = run(s, cmds, Mode::Deferred) {
            return Ok(done);
        }
    }
    match run(s, cmds, Mode::Immediate) {
        Ok(done) => Ok(done),
        Err(Failure::Command(e)) => Err(e),
        Err(Failure::Graph) => unreachable!("the immediate mode checks links one by one"),
    }
}

/// Applies `cmds` like [`apply_in_place`], then, with a cascade, moves what is
/// downstream of what they changed so that every link downstream holds (see `push`):
/// the moves are applied in the same call, added to `applied` (so the journal holds
/// them as explicit dates) and to `inverse` (so one undo takes everything back), and
/// listed in `cascade`. All or nothing: when a move cannot be applied (a lock holds
/// the item, a date leaves the supported years) or would take an item past one of its
/// upper-bound constraints (`Problem::CascadeConstraint`, naming the item, the
/// constraint and by how many working days), nothing is.
pub fn apply_cascading(
    s: &mut Schedule,
    cmds: &[Command],
    cascade: Option<crate::push::Cascade>,
) -> Result<Applied, ApplyError> {
    let next_id = s.next_id;
    let mut done = apply_in_place(s, cmds)?;
    let Some(mode) = cascade else {
        return Ok(done);
    };
    let seeds = cascade_seeds(&done.applied, s);
    // A new calendar (working weekdays, holidays, the unit of lags) changes the working
    // time every link is measured in: everything is checked again.
    let recalendared = done.applied.iter().any(|c| {
        matches!(c, Command::SetSettings { working_weekdays, holidays, time_unit, .. }
            if working_weekdays.is_some() || holidays.is_some() || time_unit.is_some())
    });
    if seeds.is_empty() && !recalendared {
        return Ok(done);
    }
    let index = crate::push::LinkIndex::new(s);
    let cal = crate::calendar::Calendar::for_schedule(s);
    let which = if recalendared {
        crate::push::Seeds::All
    } else {
        crate::push::Seeds::Items(&seeds)
    };
    let pushed = crate::push::push(s, &index, &cal, which, mode);
    let refused = |s: &mut Schedule, done: &Applied, problem: Problem| {
        let back = apply_in_place(s, &done.inverse);
        debug_assert!(
            back.is_ok(),
            "an inverse applies to the state it was made on"
        );
        s.next_id = next_id;
        ApplyError {
            command: cmds.len().saturating_sub(1),
            op: "cascade",
            field: String::new(),
            problem,
        }
    };
    let moved = match pushed {
        Ok(moved) => moved,
        Err(crate::push::PushError::Constraint {
            item,
            kind,
            date,
            by_days,
        }) => {
            let label = s.item_label(item).unwrap_or("").chars().take(60).collect();
            let problem = Problem::CascadeConstraint {
                item,
                label,
                kind,
                date,
                by_days,
            };
            return Err(refused(s, &done, problem));
        }
        // Commands and imports keep the links free of cycles; a state that has one
        // anyway (a damaged database) is refused, never a panic.
        Err(crate::push::PushError::Cycle { items }) => {
            let items = items
                .into_iter()
                .map(|i| (i, s.item_label(i).unwrap_or("").chars().take(60).collect()))
                .collect();
            return Err(refused(s, &done, Problem::Cycle { items }));
        }
    };
    if moved.is_empty() {
        return Ok(done);
    }
    let moves = crate::push::commands(&moved);
    match apply_in_place(s, &moves) {
        Ok(more) => {
            done.applied.extend(more.applied);
            let mut inverse = more.inverse;
            inverse.append(&mut done.inverse);
            done.inverse = inverse;
            done.cascade = moved;
            Ok(done)
        }
        Err(e) => {
            let item = moved[e.command.min(moved.len() - 1)].item;
            let problem = Problem::Cascade {
                item,
                inner: Box::new(e.problem),
            };
            Err(refused(s, &done, problem))
        }
    }
}

/// The items whose dates or incoming links the applied commands changed: where a
/// cascade starts.
pub fn cascade_seeds(applied: &[Command], after: &Schedule) -> Vec<ItemId> {
    let mut seeds = Vec::new();
    for c in applied {
        match c {
            Command::MovePeriods {
                bars, milestones, ..
            } => {
                seeds.extend(bars.iter().map(|&b| ItemId::from(b)));
                seeds.extend(milestones.iter().map(|&m| ItemId::from(m)));
            }
            Command::ResizePeriod { bar, .. } | Command::SetPeriodDates { bar, .. } => {
                seeds.push(ItemId::from(*bar));
            }
            Command::UpdatePeriod {
                bar, pin: Some(_), ..
            } => seeds.push(ItemId::from(*bar)),
            // A new lower bound may move the item itself; an upper bound is checked
            // wherever the item goes.
            Command::SetConstraint { item, .. } => seeds.push(*item),
            Command::MoveMilestone { milestone, .. } => seeds.push(ItemId::from(*milestone)),
            Command::AddLink { to, .. } => seeds.push(*to),
            Command::UpdateLink { link, .. } => {
                if let Some(l) = after.link(*link) {
                    seeds.push(l.to);
                }
            }
            _ => {}
        }
    }
    crate::order::sort_by_u64(&mut seeds, |i| i.0);
    seeds.dedup();
    seeds
}

/// Beyond this many link additions in one list, checking the whole graph once is
/// cheaper than a search per link (each search may walk most of the graph).
const IMMEDIATE_LINK_CHECKS: usize = 8;

enum Failure {
    Command(ApplyError),
    /// The deferred check found a duplicate link or a cycle.
    Graph,
}

fn run(s: &mut Schedule, cmds: &[Command], mode: Mode) -> Result<Applied, Failure> {
    let next_id = s.next_id;
    // Built from the state before the list: a lock the list removes does not hold.
    let guard = locks::Guard::new(s, cmds);
    let mut cx = Ctx::new(s, mode);
    let mut applied = Vec::with_capacity(cmds.len());
    let mut inverses: Vec<Vec<Command>> = Vec::with_capacity(cmds.len());
    let mut failure = None;
    for (i, cmd) in cmds.iter().enumerate() {
        cx.flush_for(cmd.appends());
        if cx.graph_changed() && cmd.may_undo_link_problems() {
            if !graph::links_sound(cx.s) {
                failure = Some(Failure::Graph);
                break;
            }
            cx.graph_checked();
        }
        match exec(&mut cx, cmd) {
            Ok(done) => {
                let inverse = cx.take_inverse();
                let held = guard.as_ref().map_or(Ok(()), |g| g.check(&done, &inverse));
                applied.push(done);
                inverses.push(inverse);
                if let Err(problem) = held {
                    failure = Some(Failure::Command(ApplyError {
                        command: i,
                        op: cmd.op(),
                        field: String::new(),
                        problem,
                    }));
                    break;
                }
            }
            Err(fault) => {
                failure = Some(Failure::Command(ApplyError {
                    command: i,
                    op: cmd.op(),
                    field: fault.field.to_owned(),
                    problem: fault.problem,
                }));
                break;
            }
        }
    }
    cx.flush_all();
    if failure.is_none() && cx.graph_changed() && !graph::links_sound(cx.s) {
        failure = Some(Failure::Graph);
    }
    if failure.is_none()
        && let Some(lock) = locks::dangling(cx.s)
    {
        // Blame the first command that touched the locked item.
        let id = lock.target.id();
        let at = applied
            .iter()
            .zip(&inverses)
            .position(|(c, inv)| {
                let mut f = c.footprint();
                f.extend(Footprint::of(inv.iter()));
                f.changed.contains(&id) || f.whole
            })
            .unwrap_or(cmds.len().saturating_sub(1));
        failure = Some(Failure::Command(ApplyError {
            command: at,
            op: cmds.get(at).map_or("", Command::op),
            field: String::new(),
            problem: Problem::Locked {
                item: id,
                lock: Box::new(lock.clone()),
            },
        }));
    }
    if let Some(failure) = failure {
        rollback(&mut cx, &inverses);
        cx.s.next_id = next_id;
        return Err(failure);
    }
    let inverse = inverses.into_iter().rev().flatten().collect();
    Ok(Applied {
        inverse,
        applied,
        cascade: Vec::new(),
    })
}

/// Undoes the commands whose inverses are given (in the order they were applied).
fn rollback(cx: &mut Ctx<'_>, inverses: &[Vec<Command>]) {
    cx.mode = Mode::Rollback;
    for cmd in inverses.iter().rev().flatten() {
        cx.flush_for(cmd.appends());
        if let Err(fault) = exec(cx, cmd) {
            // Inverses are built from the state they restore, which passed validation;
            // reaching this means the schedule broke `validate_schedule` beforehand.
            panic!(
                "undoing a failed command list failed at {} ({}): {:?}",
                cmd.op(),
                fault.field,
                fault.problem
            );
        }
        cx.take_inverse();
    }
    cx.flush_all();
}

/// Validates and applies one command; records in `cx` the commands that undo it, and
/// returns the command as applied (generated ids and positions filled in).
fn exec(cx: &mut Ctx<'_>, cmd: &Command) -> Result<Command, Fault> {
    use Command as C;
    match cmd {
        C::AddGroup { id, name, index } => outline::add_group(cx, *id, name, *index),
        C::RenameGroup { group, name } => outline::rename_group(cx, *group, name),
        C::MoveGroup { group, index } => outline::move_group(cx, *group, *index),
        C::DeleteGroup { group } => outline::delete_group(cx, *group),
        C::AddRow {
            id,
            group,
            name,
            member,
            index,
        } => outline::add_row(cx, *id, *group, name, *member, *index),
        C::RenameRow { row, name } => outline::rename_row(cx, *row, name),
        C::MoveRow { row, group, index } => outline::move_row(cx, *row, *group, *index),
        C::SetRowMember { row, member } => outline::set_row_member(cx, *row, *member),
        C::DeleteRow { row } => outline::delete_row(cx, *row),
        C::AddPeriod {
            id,
            row,
            label,
            start,
            end,
            color,
            notes,
            pin,
        } => periods::add_period(
            cx,
            *id,
            *row,
            label,
            (*start, *end),
            color.as_deref(),
            notes.as_deref(),
            *pin,
        ),
        C::MovePeriods {
            bars,
            milestones,
            by,
        } => periods::move_periods(cx, bars, milestones, *by),
        C::ResizePeriod { bar, edge, by } => periods::resize_period(cx, *bar, *edge, *by),
        C::SetPeriodDates { bar, start, end } => periods::set_period_dates(cx, *bar, *start, *end),
        C::UpdatePeriod {
            bar,
            label,
            color,
            notes,
            pin,
            row,
        } => periods::update_period(
            cx,
            *bar,
            label.as_deref(),
            color,
            notes.as_deref(),
            *pin,
            *row,
        ),
        C::DeletePeriods { bars } => periods::delete_periods(cx, bars),
        C::AddMilestone {
            id,
            row,
            label,
            date,
            color,
            notes,
        } => periods::add_milestone(
            cx,
            *id,
            *row,
            label,
            *date,
            color.as_deref(),
            notes.as_deref(),
        ),
        C::MoveMilestone { milestone, date } => periods::move_milestone(cx, *milestone, *date),
        C::UpdateMilestone {
            milestone,
            label,
            color,
            notes,
            row,
        } => periods::update_milestone(
            cx,
            *milestone,
            label.as_deref(),
            color,
            notes.as_deref(),
            *row,
        ),
        C::DeleteMilestone { milestone } => periods::delete_milestone(cx, *milestone),
        C::SetConstraint { item, constraint } => periods::set_constraint(cx, *item, *constraint),
        C::SetDeadline { item, deadline } => periods::set_deadline(cx, *item, *deadline),
        C::SetProgress { bars } => progress::set_progress(cx, bars),
        C::AddLink {
            id,
            from,
            to,
            kind,
            lag,
        } => links::add_link(cx, *id, *from, *to, *kind, *lag),
        C::UpdateLink { link, kind, lag } => links::update_link(cx, *link, *kind, *lag),
        C::DeleteLink { link } => links::delete_link(cx, *link),
        C::AddAction {
            id,
            bar,
            label,
            status,
            assignee,
        } => people::add_action(cx, *id, *bar, label, *status, *assignee),
        C::SetActionStatus { action, status } => people::set_action_status(cx, *action, *status),
        C::UpdateAction {
            action,
            label,
            assignee,
        } => people::update_action(cx, *action, label.as_deref(), *assignee),
        C::DeleteAction { action } => people::delete_action(cx, *action),
        C::AddMember { id, name, email } => people::add_member(cx, *id, name, email.as_deref()),
        C::UpdateMember {
            member,
            name,
            email,
        } => people::update_member(cx, *member, name.as_deref(), email),
        C::DeleteMember { member } => people::delete_member(cx, *member),
        C::AddAbsence {
            id,
            member,
            start,
            end,
            reason,
        } => people::add_absence(cx, *id, *member, (*start, *end), reason.as_deref()),
        C::UpdateAbsence {
            absence,
            start,
            end,
            reason,
        } => people::update_absence(cx, *absence, *start, *end, reason.as_deref()),
        C::DeleteAbsence { absence } => people::delete_absence(cx, *absence),
        C::RenameSchedule { name } => settings::rename_schedule(cx, name),
        C::SetScheduleNotes { notes } => settings::set_schedule_notes(cx, notes),
        C::SetSettings {
            time_zone,
            working_weekdays,
            holidays,
            time_unit,
            scheduling,
        } => settings::set_settings(
            cx,
            time_zone.as_deref(),
            working_weekdays.as_deref(),
            holidays.as_deref(),
            *time_unit,
            *scheduling,
        ),
        C::ReplaceSchedule { schedule } => settings::replace_schedule(cx, schedule),
        C::Lock {
            target,
            by,
            by_name,
            since_ms,
            reason,
        } => locks::lock(cx, *target, *by, by_name, *since_ms, reason.as_deref()),
        C::Unlock { target } => locks::unlock(cx, *target),
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::{d, fails, round_trip, sample};
    use super::*;
    use crate::Lang;
    use expect_test::expect;

    fn parse(json: &str) -> Result<Command, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn wire_form_of_commands() {
        let cmds = [
            Command::MovePeriods {
                bars: vec![BarId(42), BarId(43)],
                milestones: vec![],
                by: -2,
            },
            Command::UpdatePeriod {
                bar: BarId(42),
                label: None,
                color: Some(None),
                notes: None,
                pin: Some(Some(d("2026-11-30"))),
                row: None,
            },
            Command::AddLink {
                id: None,
                from: ItemId(42),
                to: ItemId(43),
                kind: Some(LinkKind::SS),
                lag: Some(1),
            },
            Command::SetConstraint {
                item: ItemId(14),
                constraint: Some(Constraint {
                    kind: ConstraintKind::FinishNoLaterThan,
                    date: d("2026-12-04"),
                }),
            },
            Command::SetConstraint {
                item: ItemId(14),
                constraint: None,
            },
            Command::SetDeadline {
                item: ItemId(19),
                deadline: Some(d("2026-12-18")),
            },
        ];
        let json: Vec<String> = cmds
            .iter()
            .map(|c| serde_json::to_string(c).unwrap())
            .collect();
        expect![[r#"
            {"op":"move_periods","bars":[42,43],"by":-2}
            {"op":"update_period","bar":42,"color":null,"pin":"2026-11-30"}
            {"op":"add_link","from":42,"to":43,"kind":"SS","lag":1}
            {"op":"set_constraint","item":14,"constraint":{"kind":"finish_no_later_than","date":"2026-12-04"}}
            {"op":"set_constraint","item":14,"constraint":null}
            {"op":"set_deadline","item":19,"deadline":"2026-12-18"}"#]]
        .assert_eq(&json.join("\n"));
        for (c, j) in cmds.iter().zip(&json) {
            assert_eq!(&parse(j).unwrap(), c, "{j}");
            assert_eq!(c.op(), j[7..].split('"').next().unwrap());
        }
    }

    #[test]
    fn absent_null_and_unknown_fields() {
        let c = parse(r#"{"op":"update_period","bar":1,"label":"X"}"#).unwrap();
        let Command::UpdatePeriod { color, pin, .. } = c else {
            panic!("{c:?}")
        };
        assert_eq!((color, pin), (None, None), "absent leaves unchanged");
        let c = parse(r#"{"op":"update_member","member":1,"email":null}"#).unwrap();
        assert!(matches!(
            c,
            Command::UpdateMember {
                email: Some(None),
                ..
            }
        ));
        let e = parse(r#"{"op":"move_periods","bars":[1],"by":1,"days":2}"#).unwrap_err();
        assert!(e.contains("unknown field `days`"), "{e}");
        let e = parse(r#"{"op":"set_row_member","row":5}"#).unwrap_err();
        assert!(e.contains("missing field `member`"), "{e}");
        let c = parse(r#"{"op":"set_row_member","row":5,"member":null}"#).unwrap();
        assert_eq!(
            c,
            Command::SetRowMember {
                row: RowId(5),
                member: None
            }
        );
        let c = parse(r#"{"op":"resize_period","bar":1,"by":2}"#).unwrap();
        assert!(matches!(
            c,
            Command::ResizePeriod {
                edge: Edge::End,
                ..
            }
        ));
        // Clearing is said with null, never by leaving the field out.
        let e = parse(r#"{"op":"set_constraint","item":14}"#).unwrap_err();
        assert!(e.contains("missing field `constraint`"), "{e}");
        let e = parse(r#"{"op":"set_deadline","item":14}"#).unwrap_err();
        assert!(e.contains("missing field `deadline`"), "{e}");
        let e = parse(
            r#"{"op":"set_constraint","item":14,"constraint":{"kind":"as_late_as_possible","date":"2026-12-04"}}"#,
        )
        .unwrap_err();
        assert!(e.contains("unknown variant `as_late_as_possible`"), "{e}");
        let e = parse(r#"{"op":"shift_periods","bars":[1],"by":1}"#).unwrap_err();
        assert!(e.contains("unknown variant `shift_periods`"), "{e}");
    }

    #[test]
    fn messages_name_the_command_the_field_and_the_fix() {
        let s = sample();
        let e = fails(
            &s,
            &[
                Command::RenameGroup {
                    group: GroupId(3),
                    name: "Structure".into(),
                },
                Command::MovePeriods {
                    bars: vec![BarId(10), BarId(42)],
                    milestones: vec![],
                    by: 1,
                },
            ],
        );
        expect!["Commande 2 (move_periods), champ bars⟨nbsp⟩: le bloc 42 n'existe pas. Indiquez l'id d'un bloc du planning."]
            .assert_eq(&crate::testkit::visible(&e.message(Lang::Fr)));
        expect![[r#"Command 2 (move_periods), field bars: bar 42 does not exist. Give the id of a bar of the schedule."#]]
            .assert_eq(&e.message(Lang::En));

        let e = fails(
            &s,
            &[Command::AddAction {
                id: Some(ActionId(12)),
                bar: BarId(10),
                label: "X".into(),
                status: None,
                assignee: None,
            }],
        );
        expect!["Commande 1 (add_action), champ id⟨nbsp⟩: l'id 12 est déjà pris par un bloc. Omettez id pour en obtenir un neuf."]
            .assert_eq(&crate::testkit::visible(&e.message(Lang::Fr)));

        let e = fails(
            &s,
            &[Command::UpdateMilestone {
                milestone: MilestoneId(20),
                label: None,
                color: Some(Some("rouge".into())),
                notes: None,
                row: None,
            }],
        );
        expect!["Commande 1 (update_milestone), champ color⟨nbsp⟩: «⟨nbsp⟩rouge⟨nbsp⟩» n'est pas une couleur. Donnez «⟨nbsp⟩#rgb⟨nbsp⟩» ou «⟨nbsp⟩#rrggbb⟨nbsp⟩» en hexadécimal, par exemple «⟨nbsp⟩#2f6fdf⟨nbsp⟩»."]
            .assert_eq(&crate::testkit::visible(&e.message(Lang::Fr)));

        let e = fails(
            &s,
            &[Command::DeleteAction {
                action: ActionId(50),
            }],
        );
        expect![[r#"Command 1 (delete_action), field action: action 50 does not exist (50 is an absence). Give the id of an action of the schedule."#]]
            .assert_eq(&e.to_string());

        let e = fails(
            &s,
            &[Command::AddLink {
                id: None,
                from: ItemId(10),
                to: ItemId(5),
                kind: None,
                lag: None,
            }],
        );
        expect!["Commande 1 (add_link), champ to⟨nbsp⟩: aucun bloc ni jalon n'a l'id 5 (5 est une ligne). Indiquez l'id d'un bloc ou d'un jalon du planning."]
            .assert_eq(&crate::testkit::visible(&e.message(Lang::Fr)));
    }

    #[test]
    fn a_failed_list_leaves_everything_as_it_was() {
        let s = sample();
        let e = fails(
            &s,
            &[
                Command::AddGroup {
                    id: None,
                    name: "Lots".into(),
                    index: Some(0),
                },
                Command::AddRow {
                    id: None,
                    group: GroupId(60),
                    name: "Électricien".into(),
                    member: None,
                    index: None,
                },
                Command::DeleteGroup { group: GroupId(3) },
                Command::DeleteMember {
                    member: MemberId(1),
                },
                Command::SetSettings {
                    time_zone: None,
                    working_weekdays: Some(vec![Weekday::Mon]),
                    holidays: None,
                    time_unit: None,
                    scheduling: None,
                },
                Command::AddPeriod {
                    id: None,
                    row: RowId(61),
                    label: "Câblage".into(),
                    start: d("2026-11-02"),
                    end: d("2026-11-01"),
                    color: None,
                    notes: None,
                    pin: None,
                },
            ],
        );
        assert_eq!((e.command, e.field.as_str()), (5, "end"));
    }

    #[test]
    fn explicit_ids_are_checked_and_move_next_id() {
        let s = sample();
        let e = fails(
            &s,
            &[Command::AddMember {
                id: Some(MemberId(0)),
                name: "X".into(),
                email: None,
            }],
        );
        assert_eq!(e.problem, Problem::BadId { id: 0 });
        let after = round_trip(
            &s,
            &[
                Command::AddMember {
                    id: Some(MemberId(55)),
                    name: "Dana".into(),
                    email: None,
                },
                Command::AddMember {
                    id: None,
                    name: "Eli".into(),
                    email: None,
                },
            ],
        );
        let ids: Vec<u64> = after.members.iter().map(|m| m.id.0).collect();
        assert_eq!(
            ids,
            [1, 2, 55, 60],
            "an id below next_id is accepted if free"
        );
        assert_eq!(after.next_id, 61);
    }

    #[test]
    fn undo_then_redo_through_the_journal() {
        let s = sample();
        let (after, done) = apply(
            &s,
            &[
                Command::DeleteRow { row: RowId(5) },
                Command::AddPeriod {
                    id: None,
                    row: RowId(6),
                    label: "Isolation".into(),
                    start: d("2026-11-23"),
                    end: d("2026-11-25"),
                    color: None,
                    notes: None,
                    pin: None,
                },
            ],
        )
        .unwrap();
        let (undone, redo) = apply(&after, &done.inverse).unwrap();
        assert!(testkit::same_but_next_id(&undone, &s));
        assert_eq!(undone.next_id, 61, "the id handed out stays burnt");
        // Redoing applies the inverse of the undo: the same state, same ids.
        let (redone, _) = apply(&undone, &redo.inverse).unwrap();
        assert_eq!(redone, after);
    }
}

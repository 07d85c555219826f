//! The schedule's types: settings, groups, rows, bars, milestones, links, actions,
//! members, absences and versions, with their id newtypes.
//!
//! Storage layout, and why:
//! - Every id in a schedule comes from ONE counter (`Schedule::next_id`), so an id names
//!   one item of one kind and a link endpoint (a bar or a milestone) needs no tag.
//!   Ids are never reused, not even after an undo: a journal entry, a view's selection
//!   or an assistant's earlier answer that names an id must never come to mean another
//!   item.
//! - Groups and rows are kept in display order (their position is meaningful).
//! - Every other collection is kept sorted by id, so lookups are binary searches and an
//!   item re-added by an undo lands exactly where it was.
//!
//! Bars and milestones are "periods" in the tools' names (`move_periods`...): one word
//! per layer is used consistently, `bar` here and in the view, `period` in tool names.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::date::{Date, Weekday};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name(pub u64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl From<$name> for u64 {
            fn from(id: $name) -> u64 {
                id.0
            }
        }
    };
}

id_type!(
    /// A group of rows.
    GroupId, "g"
);
id_type!(
    /// A row (a line of the Gantt chart) within a group.
    RowId, "r"
);
id_type!(
    /// A bar: a period with a start and an end date on a row.
    BarId, "b"
);
id_type!(
    /// A milestone: a dated point on a row.
    MilestoneId, "m"
);
id_type!(
    /// A bar or a milestone: what a link joins. Ids are unique across kinds.
    ItemId, "i"
);
id_type!(
    /// A dependency link between two items.
    LinkId, "l"
);
id_type!(
    /// An action (a to-do) on a bar.
    ActionId, "a"
);
id_type!(
    /// A member of the team.
    MemberId, "p"
);
id_type!(
    /// A member's absence.
    AbsenceId, "x"
);
id_type!(
    /// A named snapshot of a schedule.
    VersionId, "v"
);

impl From<BarId> for ItemId {
    fn from(b: BarId) -> ItemId {
        ItemId(b.0)
    }
}

impl From<MilestoneId> for ItemId {
    fn from(m: MilestoneId) -> ItemId {
        ItemId(m.0)
    }
}

/// The unit durations and lags are counted in.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// One working day.
    #[default]
    Day,
    /// One working week: as many working days as the calendar has working weekdays.
    Week,
}

/// Whether a write that changes dates or links moves the successors (see
/// `docs/scheduling.md`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduling {
    /// Every such write pushes what is downstream so that every link holds.
    Auto,
    /// Dates stay where they are put; broken links are reported. A schedule stored
    /// before the setting existed reads as manual, as it always behaved.
    #[default]
    Manual,
}

impl Scheduling {
    fn is_manual(&self) -> bool {
        *self == Scheduling::Manual
    }
}

/// A schedule's calendar and conventions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// IANA zone name ("Europe/Paris"): the zone in which the server turns "now" into
    /// the schedule's "today". Dates in the schedule are already local days.
    pub time_zone: String,
    /// Working weekdays, Monday first, no duplicates.
    pub working_weekdays: Vec<Weekday>,
    /// Non-working dates, sorted, no duplicates.
    pub holidays: Vec<Date>,
    pub time_unit: TimeUnit,
    #[serde(default, skip_serializing_if = "Scheduling::is_manual")]
    pub scheduling: Scheduling,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            time_zone: "Europe/Paris".to_owned(),
            working_weekdays: vec![
                Weekday::Mon,
                Weekday::Tue,
                Weekday::Wed,
                Weekday::Thu,
                Weekday::Fri,
            ],
            holidays: Vec::new(),
            time_unit: TimeUnit::Day,
            scheduling: Scheduling::Manual,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub id: GroupId,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub id: RowId,
    pub group: GroupId,
    pub name: String,
    /// The member who does this row's work: their absences put its bars at risk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<MemberId>,
}

/// The five kinds of date constraint an item can have, as in MS Project (whose French
/// names the texts use: « Début au plus tôt le »...). Each kind bounds the item's start
/// or finish from below, from above, or both (`must_start_on`); see `constraint` for
/// what they mean in working time and `docs/scheduling.md` for how scheduling honours
/// them.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintKind {
    /// SNET: the item starts on this day or later (a bar's is its `pin`).
    StartNoEarlierThan,
    /// SNLT: the item starts on this day or earlier.
    StartNoLaterThan,
    /// MSO: the item starts on this day, neither earlier nor later.
    MustStartOn,
    /// FNET: the item finishes on this day or later.
    FinishNoEarlierThan,
    /// FNLT: the item finishes on this day or earlier.
    FinishNoLaterThan,
}

impl ConstraintKind {
    pub const ALL: [ConstraintKind; 5] = [
        ConstraintKind::StartNoEarlierThan,
        ConstraintKind::StartNoLaterThan,
        ConstraintKind::MustStartOn,
        ConstraintKind::FinishNoEarlierThan,
        ConstraintKind::FinishNoLaterThan,
    ];

    /// The wire name ("start_no_earlier_than"...).
    pub fn as_str(self) -> &'static str {
        match self {
            ConstraintKind::StartNoEarlierThan => "start_no_earlier_than",
            ConstraintKind::StartNoLaterThan => "start_no_later_than",
            ConstraintKind::MustStartOn => "must_start_on",
            ConstraintKind::FinishNoEarlierThan => "finish_no_earlier_than",
            ConstraintKind::FinishNoLaterThan => "finish_no_later_than",
        }
    }

    /// Whether it bounds the finish rather than the start.
    pub fn on_finish(self) -> bool {
        matches!(
            self,
            ConstraintKind::FinishNoEarlierThan | ConstraintKind::FinishNoLaterThan
        )
    }

    /// Whether it keeps the item from going earlier (SNET, MSO, FNET).
    pub fn is_lower(self) -> bool {
        !matches!(
            self,
            ConstraintKind::StartNoLaterThan | ConstraintKind::FinishNoLaterThan
        )
    }

    /// Whether it keeps the item from going later (SNLT, MSO, FNLT).
    pub fn is_upper(self) -> bool {
        !matches!(
            self,
            ConstraintKind::StartNoEarlierThan | ConstraintKind::FinishNoEarlierThan
        )
    }
}

/// A date constraint: `{"kind": "finish_no_later_than", "date": "2026-12-04"}`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraint {
    pub kind: ConstraintKind,
    pub date: Date,
}

/// A bar. Its constraints: `pin` is its "start no earlier than" (the field journals and
/// exports have always held), and `constraint` one constraint of another kind, so a bar
/// may have a pin and, say, a "finish no later than" together (MS Project allows one
/// constraint per task; a pin beside one other kind is harmless: each bounds the bar
/// and a contradiction between them is reported as a broken constraint). `constraint`
/// never holds a "start no earlier than" (`validate_schedule` refuses it): that is the
/// pin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bar {
    pub id: BarId,
    pub row: RowId,
    pub label: String,
    /// First day of the bar.
    pub start: Date,
    /// Last day of the bar (inclusive: a one-day bar has `start == end`).
    pub end: Date,
    /// A CSS colour ("#2f6fdf") or none for the theme's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// "Start no earlier than": the critical path never schedules the bar before this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<Date>,
    /// A constraint of another kind than the pin's (see the type's header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Constraint>,
    /// The day the bar should be finished by: it never moves the bar; finishing after
    /// it is a risk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Date>,
    /// Percent complete, 0 to 100 (see `tracking`). Left out of the wire at 0, so data
    /// written before progress existed reads and writes back unchanged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub progress: u8,
    /// The day work on the bar really started, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_start: Option<Date>,
    /// The day work on the bar really finished: a bar with one is complete (progress
    /// 100), and it is not before `actual_start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_finish: Option<Date>,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl Bar {
    /// A bar with its place and dates and nothing else (no colour, notes, constraint,
    /// deadline or progress): what an addition makes.
    pub fn new(id: BarId, row: RowId, label: impl Into<String>, start: Date, end: Date) -> Bar {
        Bar {
            id,
            row,
            label: label.into(),
            start,
            end,
            color: None,
            notes: String::new(),
            pin: None,
            constraint: None,
            deadline: None,
            progress: 0,
            actual_start: None,
            actual_finish: None,
        }
    }
}

impl Milestone {
    /// A milestone with its place and date and nothing else.
    pub fn new(id: MilestoneId, row: RowId, label: impl Into<String>, date: Date) -> Milestone {
        Milestone {
            id,
            row,
            label: label.into(),
            date,
            color: None,
            notes: String::new(),
            constraint: None,
            deadline: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Milestone {
    pub id: MilestoneId,
    pub row: RowId,
    pub label: String,
    /// The day the milestone is reached (at the end of that day).
    pub date: Date,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// A date constraint of any of the five kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Constraint>,
    /// The day the milestone should be reached by: it never moves the milestone; a
    /// milestone after it is a risk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Date>,
}

/// The four dependency types (MS Project's codes: FF=0, FS=1, SF=2, SS=3).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkKind {
    /// The successor starts after the predecessor finishes.
    #[default]
    FS,
    /// The successor starts after the predecessor starts.
    SS,
    /// The successor finishes after the predecessor finishes.
    FF,
    /// The successor finishes after the predecessor starts.
    SF,
}

/// `to` depends on `from`: see `LinkKind`; `lag` in the schedule's time unit, negative
/// for a lead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub id: LinkId,
    pub from: ItemId,
    pub to: ItemId,
    #[serde(default)]
    pub kind: LinkKind,
    #[serde(default)]
    pub lag: i32,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ActionStatus {
    #[default]
    Todo,
    InProgress,
    Done,
}

impl ActionStatus {
    pub const ALL: [ActionStatus; 3] = [
        ActionStatus::Todo,
        ActionStatus::InProgress,
        ActionStatus::Done,
    ];

    /// The wire name ("todo", "in_progress", "done").
    pub fn as_str(self) -> &'static str {
        match self {
            ActionStatus::Todo => "todo",
            ActionStatus::InProgress => "in_progress",
            ActionStatus::Done => "done",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    pub id: ActionId,
    pub bar: BarId,
    pub label: String,
    #[serde(default)]
    pub status: ActionStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<MemberId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub id: MemberId,
    pub name: String,
    /// Private: only the member and owners see it (the server redacts it otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Absence {
    pub id: AbsenceId,
    pub member: MemberId,
    pub start: Date,
    /// Last day of absence (inclusive).
    pub end: Date,
    /// Private: only the member and owners see it (the server redacts it otherwise).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// What a lock holds still: the whole schedule, a group (its rows with them), a row
/// (its bars and milestones with it) or a bar. On the wire `"schedule"`,
/// `{"group": 5}`, `{"row": 6}` or `{"bar": 14}`. Ordered schedule, groups, rows, bars
/// (then by id): the order `Schedule::locks` is kept in.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockTarget {
    Schedule,
    Group(GroupId),
    Row(RowId),
    Bar(BarId),
}

impl LockTarget {
    /// The id of the locked item (0, no item's, for the whole schedule).
    pub fn id(self) -> u64 {
        match self {
            LockTarget::Schedule => 0,
            LockTarget::Group(g) => g.0,
            LockTarget::Row(r) => r.0,
            LockTarget::Bar(b) => b.0,
        }
    }
}

/// A lock: until it is removed, no write may change what it holds (nor add to it, nor
/// link to it), whoever writes. Who set it and when are recorded for the texts that
/// refuse a write; the model reads no clock, so `since_ms` is passed in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    pub target: LockTarget,
    /// The server's id of the user who set it.
    pub by: u64,
    /// Their name when they set it.
    pub by_name: String,
    /// When it was set, in Unix milliseconds.
    pub since_ms: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// A whole schedule: the state that commands change and the journal replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    pub name: String,
    #[serde(default)]
    pub settings: Settings,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    #[serde(default)]
    pub groups: Vec<Group>,
    #[serde(default)]
    pub rows: Vec<Row>,
    #[serde(default)]
    pub bars: Vec<Bar>,
    #[serde(default)]
    pub milestones: Vec<Milestone>,
    #[serde(default)]
    pub links: Vec<Link>,
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default)]
    pub members: Vec<Member>,
    #[serde(default)]
    pub absences: Vec<Absence>,
    /// Sorted by target, one lock per target at most.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<Lock>,
    /// The next id to hand out. Only grows (see the module header).
    #[serde(default = "first_id")]
    pub next_id: u64,
}

fn first_id() -> u64 {
    1
}

/// A named snapshot of a schedule at a rank of its journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    pub id: VersionId,
    pub name: String,
    /// The journal rank the snapshot was taken at.
    pub rank: u64,
    pub schedule: Schedule,
}

/// Binary search in a collection sorted by id.
pub(crate) fn find_by<T, K: Ord>(items: &[T], key: K, id: impl Fn(&T) -> K) -> Option<usize> {
    items.binary_search_by(|x| id(x).cmp(&key)).ok()
}

impl Schedule {
    /// An empty schedule with default settings.
    pub fn new(name: impl Into<String>) -> Schedule {
        Schedule {
            name: name.into(),
            settings: Settings::default(),
            notes: String::new(),
            groups: Vec::new(),
            rows: Vec::new(),
            bars: Vec::new(),
            milestones: Vec::new(),
            links: Vec::new(),
            actions: Vec::new(),
            members: Vec::new(),
            absences: Vec::new(),
            locks: Vec::new(),
            next_id: 1,
        }
    }

    pub fn group(&self, id: GroupId) -> Option<&Group> {
        self.groups.iter().find(|g| g.id == id)
    }

    pub fn row(&self, id: RowId) -> Option<&Row> {
        self.rows.iter().find(|r| r.id == id)
    }

    pub fn bar(&self, id: BarId) -> Option<&Bar> {
        find_by(&self.bars, id, |b| b.id).map(|i| &self.bars[i])
    }

    pub fn milestone(&self, id: MilestoneId) -> Option<&Milestone> {
        find_by(&self.milestones, id, |m| m.id).map(|i| &self.milestones[i])
    }

    pub fn link(&self, id: LinkId) -> Option<&Link> {
        find_by(&self.links, id, |l| l.id).map(|i| &self.links[i])
    }

    pub fn action(&self, id: ActionId) -> Option<&Action> {
        find_by(&self.actions, id, |a| a.id).map(|i| &self.actions[i])
    }

    pub fn member(&self, id: MemberId) -> Option<&Member> {
        find_by(&self.members, id, |m| m.id).map(|i| &self.members[i])
    }

    pub fn absence(&self, id: AbsenceId) -> Option<&Absence> {
        find_by(&self.absences, id, |a| a.id).map(|i| &self.absences[i])
    }

    /// The lock set on exactly this target.
    pub fn lock(&self, target: LockTarget) -> Option<&Lock> {
        self.locks
            .binary_search_by(|l| l.target.cmp(&target))
            .ok()
            .map(|i| &self.locks[i])
    }

    /// The lock that holds a bar still, if any: its own, its row's, its group's or the
    /// schedule's (the nearest first). What the view asks before a gesture.
    pub fn bar_lock(&self, bar: BarId) -> Option<&Lock> {
        if self.locks.is_empty() {
            return None;
        }
        let row = self.bar(bar).map(|b| b.row);
        self.lock(LockTarget::Bar(bar))
            .or_else(|| row.and_then(|r| self.row_lock(r)))
            .or_else(|| self.lock(LockTarget::Schedule))
    }

    /// The lock that holds a row (and so its bars and milestones) still: its own, its
    /// group's, or the schedule's.
    pub fn row_lock(&self, row: RowId) -> Option<&Lock> {
        if self.locks.is_empty() {
            return None;
        }
        let group = self.row(row).map(|r| r.group);
        self.lock(LockTarget::Row(row))
            .or_else(|| group.and_then(|g| self.lock(LockTarget::Group(g))))
            .or_else(|| self.lock(LockTarget::Schedule))
    }

    /// The start and end (inclusive) of a bar, or the date of a milestone twice.
    pub fn item_dates(&self, id: ItemId) -> Option<(Date, Date)> {
        if let Some(b) = self.bar(BarId(id.0)) {
            return Some((b.start, b.end));
        }
        self.milestone(MilestoneId(id.0)).map(|m| (m.date, m.date))
    }

    /// The constraints of a bar or a milestone: a bar's pin (as "start no earlier
    /// than") first, then its other constraint; a milestone's one.
    pub fn item_constraints(&self, id: ItemId) -> Option<Vec<Constraint>> {
        if let Some(b) = self.bar(BarId(id.0)) {
            let pin = b.pin.map(|date| Constraint {
                kind: ConstraintKind::StartNoEarlierThan,
                date,
            });
            return Some(pin.into_iter().chain(b.constraint).collect());
        }
        self.milestone(MilestoneId(id.0))
            .map(|m| m.constraint.into_iter().collect())
    }

    /// The deadline of a bar or a milestone (None for an item without one, or no item).
    pub fn item_deadline(&self, id: ItemId) -> Option<Date> {
        if let Some(b) = self.bar(BarId(id.0)) {
            return b.deadline;
        }
        self.milestone(MilestoneId(id.0)).and_then(|m| m.deadline)
    }

    /// The label of a bar or a milestone.
    pub fn item_label(&self, id: ItemId) -> Option<&str> {
        if let Some(b) = self.bar(BarId(id.0)) {
            return Some(&b.label);
        }
        self.milestone(MilestoneId(id.0)).map(|m| m.label.as_str())
    }

    /// The row of a bar or a milestone.
    pub fn item_row(&self, id: ItemId) -> Option<RowId> {
        if let Some(b) = self.bar(BarId(id.0)) {
            return Some(b.row);
        }
        self.milestone(MilestoneId(id.0)).map(|m| m.row)
    }

    /// The first and last day of the schedule's bars and milestones.
    pub fn span(&self) -> Option<(Date, Date)> {
        let bars = self.bars.iter().map(|b| (b.start, b.end));
        let ms = self.milestones.iter().map(|m| (m.date, m.date));
        bars.chain(ms).reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    }

    /// Whether an id is in use by any item of any kind.
    pub fn id_in_use(&self, id: u64) -> bool {
        self.groups.iter().any(|g| g.id.0 == id)
            || self.rows.iter().any(|r| r.id.0 == id)
            || self.bar(BarId(id)).is_some()
            || self.milestone(MilestoneId(id)).is_some()
            || self.link(LinkId(id)).is_some()
            || self.action(ActionId(id)).is_some()
            || self.member(MemberId(id)).is_some()
            || self.absence(AbsenceId(id)).is_some()
    }

    /// (group id, position) for every group, sorted by id: groups are kept in display
    /// order, so this is the index to binary-search a group's position in.
    pub fn group_positions(&self) -> Vec<(GroupId, usize)> {
        let mut v: Vec<(GroupId, usize)> = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.id, i))
            .collect();
        crate::order::sort_by_u64(&mut v, |p| p.0.0);
        v
    }

    /// (row id, position) for every row, sorted by id (see `group_positions`).
    pub fn row_positions(&self) -> Vec<(RowId, usize)> {
        let mut v: Vec<(RowId, usize)> = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i))
            .collect();
        crate::order::sort_by_u64(&mut v, |p| p.0.0);
        v
    }

    /// The actions of a bar, in id order.
    pub fn actions_of(&self, bar: BarId) -> impl Iterator<Item = &Action> {
        self.actions.iter().filter(move |a| a.bar == bar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_plainly_and_debug_with_their_kind() {
        assert_eq!(BarId(7).to_string(), "7");
        assert_eq!(format!("{:?}", BarId(7)), "b7");
        assert_eq!(serde_json::to_string(&RowId(3)).unwrap(), "3");
    }

    #[test]
    fn constraints_and_deadlines_are_optional_on_the_wire() {
        // Data written before constraints existed reads unchanged, and writes back the
        // same: the new fields are left out when empty.
        let old = r#"{"id":14,"row":6,"label":"A","start":"2026-11-02","end":"2026-11-06","pin":"2026-11-03"}"#;
        let b: Bar = serde_json::from_str(old).unwrap();
        assert_eq!((b.constraint, b.deadline), (None, None));
        assert_eq!(serde_json::to_string(&b).unwrap(), old);
        let m: Milestone =
            serde_json::from_str(r#"{"id":19,"row":12,"label":"Go","date":"2026-12-18"}"#).unwrap();
        assert_eq!((m.constraint, m.deadline), (None, None));

        let with = Bar {
            constraint: Some(Constraint {
                kind: ConstraintKind::FinishNoLaterThan,
                date: "2026-12-04".parse().unwrap(),
            }),
            deadline: Some("2026-12-11".parse().unwrap()),
            ..b
        };
        let json = serde_json::to_string(&with).unwrap();
        assert!(
            json.ends_with(r#""pin":"2026-11-03","constraint":{"kind":"finish_no_later_than","date":"2026-12-04"},"deadline":"2026-12-11"}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Bar>(&json).unwrap(), with);
        for k in ConstraintKind::ALL {
            let wire = serde_json::to_string(&k).unwrap();
            assert_eq!(wire, format!("\"{}\"", k.as_str()));
            assert_eq!(serde_json::from_str::<ConstraintKind>(&wire).unwrap(), k);
            // Every kind bounds the item one way or both.
            assert!(k.is_lower() || k.is_upper());
        }
        let e =
            serde_json::from_str::<Constraint>(r#"{"kind":"must_finish_on","date":"2026-12-04"}"#)
                .unwrap_err();
        assert!(e.to_string().contains("unknown variant"), "{e}");
    }

    #[test]
    fn defaults_fill_missing_fields() {
        let s: Schedule = serde_json::from_str(r#"{"name":"X"}"#).unwrap();
        assert_eq!(s, Schedule::new("X"));
        let l: Link = serde_json::from_str(r#"{"id":1,"from":2,"to":3}"#).unwrap();
        assert_eq!((l.kind, l.lag), (LinkKind::FS, 0));
    }
}

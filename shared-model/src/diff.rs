//! The difference between two states of a schedule: what a Gantt chart shows changing
//! (`Change`), what it cannot show (`NotShown`), the project end before and after, and
//! the risks the change adds.
//!
//! `what_if`, `diff_versions` and every write's answer use it, on schedules of up to
//! 100,000 bars where usually a handful of items change. Both sides keep their items
//! sorted by id (see `schedule`), so every collection is compared by one merge-join pass;
//! groups and rows, kept in display order, are first indexed by id. Nothing here is
//! quadratic.
//!
//! Each entry carries the names the texts need (labels, row and member names, taken
//! from the side where the item exists), so a diff can be written out without either
//! schedule. Wording belongs to `text`; private data (e-mails, absence reasons) never
//! enters a diff.

use serde::{Deserialize, Serialize};

use crate::date::Date;
use crate::idset::IdMap;
use crate::risk::{self, Risks};
use crate::schedule::*;

/// Everything that changed between two states of a schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diff {
    /// What a Gantt chart shows changing, in item id order (an item's own changes in a
    /// fixed order: name, dates, row, colour).
    pub changes: Vec<Change>,
    /// What a Gantt chart cannot show: schedule-wide changes first, then by item id.
    pub not_shown: Vec<NotShown>,
    /// The project end (the last planned day of any bar or milestone) before the change.
    pub end_before: Option<Date>,
    /// The project end after the change.
    pub end_after: Option<Date>,
    /// The risks of the new state that the old one did not have.
    pub new_risks: Risks,
}

impl Diff {
    /// Whether nothing at all changed (risks can only change with something else).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.not_shown.is_empty()
    }
}

/// A bar or a milestone named in a change: what a link joins.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemRef {
    pub id: ItemId,
    pub label: String,
    /// A milestone rather than a bar.
    pub is_milestone: bool,
}

/// A change a Gantt chart shows. Labels and names are those of the new state, except
/// for removed items (their last ones) and `old_*` fields.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    BarAdded {
        bar: BarId,
        label: String,
        row: RowId,
        row_name: String,
        start: Date,
        end: Date,
    },
    BarRemoved {
        bar: BarId,
        label: String,
        start: Date,
        end: Date,
    },
    /// Moved or resized: its start, its end or both changed.
    BarMoved {
        bar: BarId,
        label: String,
        old_start: Date,
        old_end: Date,
        new_start: Date,
        new_end: Date,
    },
    BarRenamed {
        bar: BarId,
        old_label: String,
        new_label: String,
    },
    BarRecoloured {
        bar: BarId,
        label: String,
        old_color: Option<String>,
        new_color: Option<String>,
    },
    /// Moved to another row.
    BarRowChanged {
        bar: BarId,
        label: String,
        old_row: RowId,
        old_row_name: String,
        new_row: RowId,
        new_row_name: String,
    },
    MilestoneAdded {
        milestone: MilestoneId,
        label: String,
        row: RowId,
        row_name: String,
        date: Date,
    },
    MilestoneRemoved {
        milestone: MilestoneId,
        label: String,
        date: Date,
    },
    MilestoneMoved {
        milestone: MilestoneId,
        label: String,
        old_date: Date,
        new_date: Date,
    },
    MilestoneRenamed {
        milestone: MilestoneId,
        old_label: String,
        new_label: String,
    },
    MilestoneRecoloured {
        milestone: MilestoneId,
        label: String,
        old_color: Option<String>,
        new_color: Option<String>,
    },
    MilestoneRowChanged {
        milestone: MilestoneId,
        label: String,
        old_row: RowId,
        old_row_name: String,
        new_row: RowId,
        new_row_name: String,
    },
    /// `link_type` and `lag` as in `Link` (the tag already uses the name `kind`), with
    /// the unit the lag is counted in on its side of the diff (the schedule's).
    LinkAdded {
        link: LinkId,
        from: ItemRef,
        to: ItemRef,
        link_type: LinkKind,
        lag: i32,
        lag_unit: TimeUnit,
    },
    LinkRemoved {
        link: LinkId,
        from: ItemRef,
        to: ItemRef,
        link_type: LinkKind,
        lag: i32,
        lag_unit: TimeUnit,
    },
    /// Its type, its lag or an endpoint changed (not the lag's unit alone: that is a
    /// setting, reported once in `NotShown`).
    LinkChanged {
        link: LinkId,
        old_from: ItemRef,
        old_to: ItemRef,
        old_type: LinkKind,
        old_lag: i32,
        old_lag_unit: TimeUnit,
        new_from: ItemRef,
        new_to: ItemRef,
        new_type: LinkKind,
        new_lag: i32,
        new_lag_unit: TimeUnit,
    },
    /// `position`: index among the schedule's groups, from 0.
    GroupAdded {
        group: GroupId,
        name: String,
        position: usize,
    },
    GroupRemoved {
        group: GroupId,
        name: String,
    },
    GroupRenamed {
        group: GroupId,
        old_name: String,
        new_name: String,
    },
    /// Reordered: positions are indices among the schedule's groups, from 0. Only the
    /// fewest groups that explain the new order are reported, not every group shifted
    /// by an insertion.
    GroupMoved {
        group: GroupId,
        name: String,
        old_position: usize,
        new_position: usize,
    },
    RowAdded {
        row: RowId,
        name: String,
        group: GroupId,
        group_name: String,
    },
    RowRemoved {
        row: RowId,
        name: String,
    },
    RowRenamed {
        row: RowId,
        old_name: String,
        new_name: String,
    },
    /// Moved to another group, or reordered within its group (as for groups, only the
    /// fewest rows that explain the new order). Positions are indices within the
    /// row's group, from 0.
    RowMoved {
        row: RowId,
        name: String,
        old_group: GroupId,
        old_group_name: String,
        old_position: usize,
        new_group: GroupId,
        new_group_name: String,
        new_position: usize,
    },
}

impl Change {
    /// The id of the item that changed.
    pub fn id(&self) -> u64 {
        match self {
            Change::BarAdded { bar, .. }
            | Change::BarRemoved { bar, .. }
            | Change::BarMoved { bar, .. }
            | Change::BarRenamed { bar, .. }
            | Change::BarRecoloured { bar, .. }
            | Change::BarRowChanged { bar, .. } => bar.0,
            Change::MilestoneAdded { milestone, .. }
            | Change::MilestoneRemoved { milestone, .. }
            | Change::MilestoneMoved { milestone, .. }
            | Change::MilestoneRenamed { milestone, .. }
            | Change::MilestoneRecoloured { milestone, .. }
            | Change::MilestoneRowChanged { milestone, .. } => milestone.0,
            Change::LinkAdded { link, .. }
            | Change::LinkRemoved { link, .. }
            | Change::LinkChanged { link, .. } => link.0,
            Change::GroupAdded { group, .. }
            | Change::GroupRemoved { group, .. }
            | Change::GroupRenamed { group, .. }
            | Change::GroupMoved { group, .. } => group.0,
            Change::RowAdded { row, .. }
            | Change::RowRemoved { row, .. }
            | Change::RowRenamed { row, .. }
            | Change::RowMoved { row, .. } => row.0,
        }
    }
}

/// A field of the schedule's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingField {
    TimeZone,
    WorkingWeekdays,
    Holidays,
    TimeUnit,
    /// Automatic or manual scheduling.
    Scheduling,
}

/// A change a Gantt chart cannot show. Private data is never carried: an e-mail or an
/// absence reason that changed is reported as changed, without its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotShown {
    ScheduleRenamed {
        old_name: String,
        new_name: String,
    },
    ScheduleNotesChanged,
    SettingChanged {
        field: SettingField,
    },
    /// The member who does a row's work.
    RowMemberChanged {
        row: RowId,
        name: String,
        old_member: Option<MemberId>,
        old_member_name: Option<String>,
        new_member: Option<MemberId>,
        new_member_name: Option<String>,
    },
    BarNotesChanged {
        bar: BarId,
        label: String,
    },
    MilestoneNotesChanged {
        milestone: MilestoneId,
        label: String,
    },
    /// The bar's "start no earlier than" date.
    PinChanged {
        bar: BarId,
        label: String,
        old_pin: Option<Date>,
        new_pin: Option<Date>,
    },
    /// A bar's or a milestone's date constraint (a bar's other than its pin, which is
    /// `PinChanged`): the chart does not draw constraints yet.
    ConstraintChanged {
        item: ItemId,
        label: String,
        is_milestone: bool,
        old: Option<Constraint>,
        new: Option<Constraint>,
    },
    /// A bar's or a milestone's deadline.
    DeadlineChanged {
        item: ItemId,
        label: String,
        is_milestone: bool,
        old: Option<Date>,
        new: Option<Date>,
    },
    /// A bar's percent complete: the chart draws it, but a before/after does not yet
    /// compare it.
    ProgressChanged {
        bar: BarId,
        label: String,
        old: u8,
        new: u8,
    },
    /// A bar's actual start.
    ActualStartChanged {
        bar: BarId,
        label: String,
        old: Option<Date>,
        new: Option<Date>,
    },
    /// A bar's actual finish.
    ActualFinishChanged {
        bar: BarId,
        label: String,
        old: Option<Date>,
        new: Option<Date>,
    },
    ActionAdded {
        action: ActionId,
        label: String,
        bar: BarId,
        bar_label: String,
    },
    ActionRemoved {
        action: ActionId,
        label: String,
        bar: BarId,
        bar_label: String,
    },
    ActionRenamed {
        action: ActionId,
        old_label: String,
        new_label: String,
    },
    ActionStatusChanged {
        action: ActionId,
        label: String,
        old_status: ActionStatus,
        new_status: ActionStatus,
    },
    ActionAssigneeChanged {
        action: ActionId,
        label: String,
        old_assignee: Option<MemberId>,
        old_assignee_name: Option<String>,
        new_assignee: Option<MemberId>,
        new_assignee_name: Option<String>,
    },
    /// The action now belongs to another bar.
    ActionBarChanged {
        action: ActionId,
        label: String,
        old_bar: BarId,
        old_bar_label: String,
        new_bar: BarId,
        new_bar_label: String,
    },
    MemberAdded {
        member: MemberId,
        name: String,
    },
    MemberRemoved {
        member: MemberId,
        name: String,
    },
    MemberRenamed {
        member: MemberId,
        old_name: String,
        new_name: String,
    },
    MemberEmailChanged {
        member: MemberId,
        name: String,
    },
    AbsenceAdded {
        absence: AbsenceId,
        member: MemberId,
        member_name: String,
        start: Date,
        end: Date,
    },
    AbsenceRemoved {
        absence: AbsenceId,
        member: MemberId,
        member_name: String,
        start: Date,
        end: Date,
    },
    /// Its dates, its member or its (private) reason changed.
    AbsenceChanged {
        absence: AbsenceId,
        member: MemberId,
        member_name: String,
        old_start: Date,
        old_end: Date,
        new_start: Date,
        new_end: Date,
    },
    /// A lock set (or changed: its holder or reason) on a target.
    LockSet {
        target: LockTarget,
        /// What it holds by its name (`None`: the whole schedule), for a person's text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_name: Option<String>,
        by_name: String,
    },
    LockRemoved {
        target: LockTarget,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_name: Option<String>,
        by_name: String,
    },
}

impl NotShown {
    /// The id of the item that changed; `None` for a change of the schedule itself.
    pub fn id(&self) -> Option<u64> {
        match self {
            NotShown::ScheduleRenamed { .. }
            | NotShown::ScheduleNotesChanged
            | NotShown::SettingChanged { .. } => None,
            NotShown::RowMemberChanged { row, .. } => Some(row.0),
            NotShown::BarNotesChanged { bar, .. }
            | NotShown::PinChanged { bar, .. }
            | NotShown::ProgressChanged { bar, .. }
            | NotShown::ActualStartChanged { bar, .. }
            | NotShown::ActualFinishChanged { bar, .. } => Some(bar.0),
            NotShown::MilestoneNotesChanged { milestone, .. } => Some(milestone.0),
            NotShown::ConstraintChanged { item, .. } | NotShown::DeadlineChanged { item, .. } => {
                Some(item.0)
            }
            NotShown::ActionAdded { action, .. }
            | NotShown::ActionRemoved { action, .. }
            | NotShown::ActionRenamed { action, .. }
            | NotShown::ActionStatusChanged { action, .. }
            | NotShown::ActionAssigneeChanged { action, .. }
            | NotShown::ActionBarChanged { action, .. } => Some(action.0),
            NotShown::MemberAdded { member, .. }
            | NotShown::MemberRemoved { member, .. }
            | NotShown::MemberRenamed { member, .. }
            | NotShown::MemberEmailChanged { member, .. } => Some(member.0),
            NotShown::AbsenceAdded { absence, .. }
            | NotShown::AbsenceRemoved { absence, .. }
            | NotShown::AbsenceChanged { absence, .. } => Some(absence.0),
            NotShown::LockSet { target, .. } | NotShown::LockRemoved { target, .. } => {
                Some(target.id()).filter(|&id| id != 0)
            }
        }
    }
}

/// What changed from `before` to `after`.
pub fn diff(before: &Schedule, after: &Schedule) -> Diff {
    let old = Side::new(before);
    let new = Side::new(after);
    let mut changes = Vec::new();
    let mut not_shown = Vec::new();

    diff_schedule(before, after, &mut not_shown);
    diff_groups(&old, &new, &mut changes);
    diff_rows(&old, &new, &mut changes, &mut not_shown);
    diff_bars(&old, &new, &mut changes, &mut not_shown);
    diff_milestones(&old, &new, &mut changes, &mut not_shown);
    diff_links(&old, &new, &mut changes);
    diff_actions(&old, &new, &mut not_shown);
    diff_members(&old, &new, &mut not_shown);
    diff_absences(&old, &new, &mut not_shown);
    diff_locks(before, after, &mut not_shown);

    // Stable sorts: an item's own entries keep the order in which they were pushed, and
    // schedule-wide entries (id `None`) come first.
    crate::order::sort_by_u64(&mut changes, Change::id);
    crate::order::sort_by_key(&mut not_shown, NotShown::id);

    Diff {
        changes,
        not_shown,
        end_before: before.span().map(|(_, end)| end),
        end_after: after.span().map(|(_, end)| end),
        new_risks: risk::new_risks(&risk::risks(before), &risk::risks(after)),
    }
}

/// One side of a diff with its display-ordered collections indexed by id, built once so
/// that names are found by binary search.
struct Side<'a> {
    s: &'a Schedule,
    /// (id, index in `s.groups`), sorted by id.
    groups: Vec<(GroupId, usize)>,
    /// (id, index in `s.rows`), sorted by id.
    rows: Vec<(RowId, usize)>,
    /// Each row's position within its group, aligned with `s.rows`.
    row_positions: Vec<usize>,
}

impl<'a> Side<'a> {
    fn new(s: &'a Schedule) -> Side<'a> {
        let groups = s.group_positions();
        let rows = s.row_positions();
        let mut seen: IdMap<GroupId, usize> = IdMap::default();
        let row_positions = s
            .rows
            .iter()
            .map(|r| {
                let n = seen.entry(r.group).or_default();
                *n += 1;
                *n - 1
            })
            .collect();
        Side {
            s,
            groups,
            rows,
            row_positions,
        }
    }

    fn group_index(&self, id: GroupId) -> Option<usize> {
        find_by(&self.groups, id, |g| g.0).map(|i| self.groups[i].1)
    }

    fn row_index(&self, id: RowId) -> Option<usize> {
        find_by(&self.rows, id, |r| r.0).map(|i| self.rows[i].1)
    }

    fn group_name(&self, id: GroupId) -> String {
        self.group_index(id)
            .map_or_else(|| missing(id.0), |i| self.s.groups[i].name.clone())
    }

    fn row_name(&self, id: RowId) -> String {
        self.row_index(id)
            .map_or_else(|| missing(id.0), |i| self.s.rows[i].name.clone())
    }

    fn member_name(&self, id: MemberId) -> String {
        self.s
            .member(id)
            .map_or_else(|| missing(id.0), |m| m.name.clone())
    }

    fn bar_label(&self, id: BarId) -> String {
        self.s
            .bar(id)
            .map_or_else(|| missing(id.0), |b| b.label.clone())
    }

    fn item(&self, id: ItemId) -> ItemRef {
        let is_milestone = self.s.milestone(MilestoneId(id.0)).is_some();
        let label = self
            .s
            .item_label(id)
            .map_or_else(|| missing(id.0), str::to_owned);
        ItemRef {
            id,
            label,
            is_milestone,
        }
    }
}

/// The stand-in name of an item a schedule refers to but does not hold. A validated
/// schedule never has one; a diff of a damaged one still says which id it meant.
fn missing(id: u64) -> String {
    format!("#{id}")
}

/// One step of a merge-join of two collections sorted by the same key.
enum Pair<'a, T> {
    Removed(&'a T),
    Added(&'a T),
    Both(&'a T, &'a T),
}

/// Visits both collections in key order, pairing items with equal keys: one pass, no
/// lookups. Both must be sorted by `key` (the schedule's invariant for id-sorted
/// collections; checked in debug builds).
fn merge_join<'a, T, K: Ord>(
    before: &'a [T],
    after: &'a [T],
    key: impl Fn(&T) -> K,
    mut visit: impl FnMut(Pair<'a, T>),
) {
    debug_assert!(before.windows(2).all(|w| key(&w[0]) < key(&w[1])));
    debug_assert!(after.windows(2).all(|w| key(&w[0]) < key(&w[1])));
    let (mut i, mut j) = (0, 0);
    loop {
        match (before.get(i), after.get(j)) {
            (Some(b), Some(a)) => match key(b).cmp(&key(a)) {
                std::cmp::Ordering::Less => {
                    visit(Pair::Removed(b));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    visit(Pair::Added(a));
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    visit(Pair::Both(b, a));
                    i += 1;
                    j += 1;
                }
            },
            (Some(b), None) => {
                visit(Pair::Removed(b));
                i += 1;
            }
            (None, Some(a)) => {
                visit(Pair::Added(a));
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// For each element of `seq`, whether it belongs to a longest strictly increasing
/// subsequence. Items outside it are the fewest that must have moved to turn the old
/// order into the new one, which is what a reader calls "moved" (inserting a row shifts
/// every row below it, yet none of them moved). Patience sorting: O(n log n).
fn in_longest_increasing(seq: &[usize]) -> Vec<bool> {
    const NONE: usize = usize::MAX;
    // tails[k]: the index of the smallest last element of an increasing run of k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev = vec![NONE; seq.len()];
    for (i, &x) in seq.iter().enumerate() {
        let k = tails.partition_point(|&t| seq[t] < x);
        if k > 0 {
            prev[i] = tails[k - 1];
        }
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut keep = vec![false; seq.len()];
    let mut at = tails.last().copied().unwrap_or(NONE);
    while at != NONE {
        keep[at] = true;
        at = prev[at];
    }
    keep
}

fn diff_schedule(before: &Schedule, after: &Schedule, not_shown: &mut Vec<NotShown>) {
    if before.name != after.name {
        not_shown.push(NotShown::ScheduleRenamed {
            old_name: before.name.clone(),
            new_name: after.name.clone(),
        });
    }
    if before.notes != after.notes {
        not_shown.push(NotShown::ScheduleNotesChanged);
    }
    let (o, n) = (&before.settings, &after.settings);
    let fields = [
        (o.time_zone != n.time_zone, SettingField::TimeZone),
        (
            o.working_weekdays != n.working_weekdays,
            SettingField::WorkingWeekdays,
        ),
        (o.holidays != n.holidays, SettingField::Holidays),
        (o.time_unit != n.time_unit, SettingField::TimeUnit),
        (o.scheduling != n.scheduling, SettingField::Scheduling),
    ];
    for (changed, field) in fields {
        if changed {
            not_shown.push(NotShown::SettingChanged { field });
        }
    }
}

fn diff_groups(old: &Side, new: &Side, changes: &mut Vec<Change>) {
    merge_join(
        &old.groups,
        &new.groups,
        |g| g.0,
        |pair| match pair {
            Pair::Removed(&(id, i)) => changes.push(Change::GroupRemoved {
                group: id,
                name: old.s.groups[i].name.clone(),
            }),
            Pair::Added(&(id, i)) => changes.push(Change::GroupAdded {
                group: id,
                name: new.s.groups[i].name.clone(),
                position: i,
            }),
            Pair::Both(&(id, i), &(_, j)) => {
                let (o, n) = (&old.s.groups[i], &new.s.groups[j]);
                if o.name != n.name {
                    changes.push(Change::GroupRenamed {
                        group: id,
                        old_name: o.name.clone(),
                        new_name: n.name.clone(),
                    });
                }
            }
        },
    );

    // Groups kept on both sides, in the new order, with their old positions.
    let kept: Vec<(usize, usize)> = new
        .s
        .groups
        .iter()
        .enumerate()
        .filter_map(|(j, g)| old.group_index(g.id).map(|i| (j, i)))
        .collect();
    let olds: Vec<usize> = kept.iter().map(|k| k.1).collect();
    for (&(j, i), in_order) in kept.iter().zip(in_longest_increasing(&olds)) {
        if !in_order {
            let g = &new.s.groups[j];
            changes.push(Change::GroupMoved {
                group: g.id,
                name: g.name.clone(),
                old_position: i,
                new_position: j,
            });
        }
    }
}

fn diff_rows(old: &Side, new: &Side, changes: &mut Vec<Change>, not_shown: &mut Vec<NotShown>) {
    merge_join(
        &old.rows,
        &new.rows,
        |r| r.0,
        |pair| match pair {
            Pair::Removed(&(id, i)) => changes.push(Change::RowRemoved {
                row: id,
                name: old.s.rows[i].name.clone(),
            }),
            Pair::Added(&(id, j)) => {
                let r = &new.s.rows[j];
                changes.push(Change::RowAdded {
                    row: id,
                    name: r.name.clone(),
                    group: r.group,
                    group_name: new.group_name(r.group),
                });
            }
            Pair::Both(&(id, i), &(_, j)) => {
                let (o, n) = (&old.s.rows[i], &new.s.rows[j]);
                if o.name != n.name {
                    changes.push(Change::RowRenamed {
                        row: id,
                        old_name: o.name.clone(),
                        new_name: n.name.clone(),
                    });
                }
                if o.member != n.member {
                    not_shown.push(NotShown::RowMemberChanged {
                        row: id,
                        name: n.name.clone(),
                        old_member: o.member,
                        old_member_name: o.member.map(|m| old.member_name(m)),
                        new_member: n.member,
                        new_member_name: n.member.map(|m| new.member_name(m)),
                    });
                }
            }
        },
    );

    // A row that changed group has moved. Within a group, the rows outside the longest
    // run kept in the old order have moved: the groups' sequences are built in the new
    // order, each with the rows' old indices.
    let mut within: IdMap<GroupId, (Vec<usize>, Vec<usize>)> = IdMap::default();
    for (j, n) in new.s.rows.iter().enumerate() {
        let Some(i) = old.row_index(n.id) else {
            continue;
        };
        let o = &old.s.rows[i];
        if o.group != n.group {
            changes.push(row_moved(old, new, i, j));
        } else {
            let (news, olds) = within.entry(n.group).or_default();
            news.push(j);
            olds.push(i);
        }
    }
    for (news, olds) in within.values() {
        for (k, in_order) in in_longest_increasing(olds).into_iter().enumerate() {
            if !in_order {
                changes.push(row_moved(old, new, olds[k], news[k]));
            }
        }
    }
}

fn row_moved(old: &Side, new: &Side, i: usize, j: usize) -> Change {
    let (o, n) = (&old.s.rows[i], &new.s.rows[j]);
    Change::RowMoved {
        row: n.id,
        name: n.name.clone(),
        old_group: o.group,
        old_group_name: old.group_name(o.group),
        old_position: old.row_positions[i],
        new_group: n.group,
        new_group_name: new.group_name(n.group),
        new_position: new.row_positions[j],
    }
}

fn diff_bars(old: &Side, new: &Side, changes: &mut Vec<Change>, not_shown: &mut Vec<NotShown>) {
    merge_join(
        &old.s.bars,
        &new.s.bars,
        |b| b.id,
        |pair| match pair {
            Pair::Removed(b) => changes.push(Change::BarRemoved {
                bar: b.id,
                label: b.label.clone(),
                start: b.start,
                end: b.end,
            }),
            Pair::Added(b) => changes.push(Change::BarAdded {
                bar: b.id,
                label: b.label.clone(),
                row: b.row,
                row_name: new.row_name(b.row),
                start: b.start,
                end: b.end,
            }),
            Pair::Both(o, n) => {
                if o == n {
                    return;
                }
                if o.label != n.label {
                    changes.push(Change::BarRenamed {
                        bar: n.id,
                        old_label: o.label.clone(),
                        new_label: n.label.clone(),
                    });
                }
                if (o.start, o.end) != (n.start, n.end) {
                    changes.push(Change::BarMoved {
                        bar: n.id,
                        label: n.label.clone(),
                        old_start: o.start,
                        old_end: o.end,
                        new_start: n.start,
                        new_end: n.end,
                    });
                }
                if o.row != n.row {
                    changes.push(Change::BarRowChanged {
                        bar: n.id,
                        label: n.label.clone(),
                        old_row: o.row,
                        old_row_name: old.row_name(o.row),
                        new_row: n.row,
                        new_row_name: new.row_name(n.row),
                    });
                }
                if o.color != n.color {
                    changes.push(Change::BarRecoloured {
                        bar: n.id,
                        label: n.label.clone(),
                        old_color: o.color.clone(),
                        new_color: n.color.clone(),
                    });
                }
                if o.notes != n.notes {
                    not_shown.push(NotShown::BarNotesChanged {
                        bar: n.id,
                        label: n.label.clone(),
                    });
                }
                if o.pin != n.pin {
                    not_shown.push(NotShown::PinChanged {
                        bar: n.id,
                        label: n.label.clone(),
                        old_pin: o.pin,
                        new_pin: n.pin,
                    });
                }
                constraints_and_deadline(
                    not_shown,
                    (n.id.into(), &n.label, false),
                    (o.constraint, n.constraint),
                    (o.deadline, n.deadline),
                );
                progress(not_shown, o, n);
            }
        },
    );
}

fn diff_milestones(
    old: &Side,
    new: &Side,
    changes: &mut Vec<Change>,
    not_shown: &mut Vec<NotShown>,
) {
    merge_join(
        &old.s.milestones,
        &new.s.milestones,
        |m| m.id,
        |pair| match pair {
            Pair::Removed(m) => changes.push(Change::MilestoneRemoved {
                milestone: m.id,
                label: m.label.clone(),
                date: m.date,
            }),
            Pair::Added(m) => changes.push(Change::MilestoneAdded {
                milestone: m.id,
                label: m.label.clone(),
                row: m.row,
                row_name: new.row_name(m.row),
                date: m.date,
            }),
            Pair::Both(o, n) => {
                if o == n {
                    return;
                }
                if o.label != n.label {
                    changes.push(Change::MilestoneRenamed {
                        milestone: n.id,
                        old_label: o.label.clone(),
                        new_label: n.label.clone(),
                    });
                }
                if o.date != n.date {
                    changes.push(Change::MilestoneMoved {
                        milestone: n.id,
                        label: n.label.clone(),
                        old_date: o.date,
                        new_date: n.date,
                    });
                }
                if o.row != n.row {
                    changes.push(Change::MilestoneRowChanged {
                        milestone: n.id,
                        label: n.label.clone(),
                        old_row: o.row,
                        old_row_name: old.row_name(o.row),
                        new_row: n.row,
                        new_row_name: new.row_name(n.row),
                    });
                }
                if o.color != n.color {
                    changes.push(Change::MilestoneRecoloured {
                        milestone: n.id,
                        label: n.label.clone(),
                        old_color: o.color.clone(),
                        new_color: n.color.clone(),
                    });
                }
                if o.notes != n.notes {
                    not_shown.push(NotShown::MilestoneNotesChanged {
                        milestone: n.id,
                        label: n.label.clone(),
                    });
                }
                constraints_and_deadline(
                    not_shown,
                    (n.id.into(), &n.label, true),
                    (o.constraint, n.constraint),
                    (o.deadline, n.deadline),
                );
            }
        },
    );
}

/// A bar's changed progress and actual dates, which the chart does not draw yet.
fn progress(not_shown: &mut Vec<NotShown>, o: &Bar, n: &Bar) {
    if o.progress != n.progress {
        not_shown.push(NotShown::ProgressChanged {
            bar: n.id,
            label: n.label.clone(),
            old: o.progress,
            new: n.progress,
        });
    }
    if o.actual_start != n.actual_start {
        not_shown.push(NotShown::ActualStartChanged {
            bar: n.id,
            label: n.label.clone(),
            old: o.actual_start,
            new: n.actual_start,
        });
    }
    if o.actual_finish != n.actual_finish {
        not_shown.push(NotShown::ActualFinishChanged {
            bar: n.id,
            label: n.label.clone(),
            old: o.actual_finish,
            new: n.actual_finish,
        });
    }
}

/// A bar's or a milestone's changed constraint and deadline, which the chart does not
/// draw yet. `item`: (id, label, is a milestone); the pairs are (old, new).
fn constraints_and_deadline(
    not_shown: &mut Vec<NotShown>,
    (item, label, is_milestone): (ItemId, &str, bool),
    constraint: (Option<Constraint>, Option<Constraint>),
    deadline: (Option<Date>, Option<Date>),
) {
    if constraint.0 != constraint.1 {
        not_shown.push(NotShown::ConstraintChanged {
            item,
            label: label.to_owned(),
            is_milestone,
            old: constraint.0,
            new: constraint.1,
        });
    }
    if deadline.0 != deadline.1 {
        not_shown.push(NotShown::DeadlineChanged {
            item,
            label: label.to_owned(),
            is_milestone,
            old: deadline.0,
            new: deadline.1,
        });
    }
}

fn diff_links(old: &Side, new: &Side, changes: &mut Vec<Change>) {
    let (old_unit, new_unit) = (old.s.settings.time_unit, new.s.settings.time_unit);
    merge_join(
        &old.s.links,
        &new.s.links,
        |l| l.id,
        |pair| match pair {
            Pair::Removed(l) => changes.push(Change::LinkRemoved {
                link: l.id,
                from: old.item(l.from),
                to: old.item(l.to),
                link_type: l.kind,
                lag: l.lag,
                lag_unit: old_unit,
            }),
            Pair::Added(l) => changes.push(Change::LinkAdded {
                link: l.id,
                from: new.item(l.from),
                to: new.item(l.to),
                link_type: l.kind,
                lag: l.lag,
                lag_unit: new_unit,
            }),
            Pair::Both(o, n) => {
                if o != n {
                    changes.push(Change::LinkChanged {
                        link: n.id,
                        old_from: old.item(o.from),
                        old_to: old.item(o.to),
                        old_type: o.kind,
                        old_lag: o.lag,
                        old_lag_unit: old_unit,
                        new_from: new.item(n.from),
                        new_to: new.item(n.to),
                        new_type: n.kind,
                        new_lag: n.lag,
                        new_lag_unit: new_unit,
                    });
                }
            }
        },
    );
}

fn diff_actions(old: &Side, new: &Side, not_shown: &mut Vec<NotShown>) {
    merge_join(
        &old.s.actions,
        &new.s.actions,
        |a| a.id,
        |pair| match pair {
            Pair::Removed(a) => not_shown.push(NotShown::ActionRemoved {
                action: a.id,
                label: a.label.clone(),
                bar: a.bar,
                bar_label: old.bar_label(a.bar),
            }),
            Pair::Added(a) => not_shown.push(NotShown::ActionAdded {
                action: a.id,
                label: a.label.clone(),
                bar: a.bar,
                bar_label: new.bar_label(a.bar),
            }),
            Pair::Both(o, n) => {
                if o == n {
                    return;
                }
                if o.label != n.label {
                    not_shown.push(NotShown::ActionRenamed {
                        action: n.id,
                        old_label: o.label.clone(),
                        new_label: n.label.clone(),
                    });
                }
                if o.status != n.status {
                    not_shown.push(NotShown::ActionStatusChanged {
                        action: n.id,
                        label: n.label.clone(),
                        old_status: o.status,
                        new_status: n.status,
                    });
                }
                if o.assignee != n.assignee {
                    not_shown.push(NotShown::ActionAssigneeChanged {
                        action: n.id,
                        label: n.label.clone(),
                        old_assignee: o.assignee,
                        old_assignee_name: o.assignee.map(|m| old.member_name(m)),
                        new_assignee: n.assignee,
                        new_assignee_name: n.assignee.map(|m| new.member_name(m)),
                    });
                }
                if o.bar != n.bar {
                    not_shown.push(NotShown::ActionBarChanged {
                        action: n.id,
                        label: n.label.clone(),
                        old_bar: o.bar,
                        old_bar_label: old.bar_label(o.bar),
                        new_bar: n.bar,
                        new_bar_label: new.bar_label(n.bar),
                    });
                }
            }
        },
    );
}

fn diff_members(old: &Side, new: &Side, not_shown: &mut Vec<NotShown>) {
    merge_join(
        &old.s.members,
        &new.s.members,
        |m| m.id,
        |pair| match pair {
            Pair::Removed(m) => not_shown.push(NotShown::MemberRemoved {
                member: m.id,
                name: m.name.clone(),
            }),
            Pair::Added(m) => not_shown.push(NotShown::MemberAdded {
                member: m.id,
                name: m.name.clone(),
            }),
            Pair::Both(o, n) => {
                if o.name != n.name {
                    not_shown.push(NotShown::MemberRenamed {
                        member: n.id,
                        old_name: o.name.clone(),
                        new_name: n.name.clone(),
                    });
                }
                if o.email != n.email {
                    not_shown.push(NotShown::MemberEmailChanged {
                        member: n.id,
                        name: n.name.clone(),
                    });
                }
            }
        },
    );
}

fn diff_locks(before: &Schedule, after: &Schedule, not_shown: &mut Vec<NotShown>) {
    // Named from the side where the lock is: a removed lock's item may be gone after.
    let name = |s: &Schedule, t| crate::command::lock_target_name(s, t).map(str::to_owned);
    merge_join(
        &before.locks,
        &after.locks,
        |l| l.target,
        |pair| match pair {
            Pair::Removed(l) => not_shown.push(NotShown::LockRemoved {
                target: l.target,
                target_name: name(before, l.target),
                by_name: l.by_name.clone(),
            }),
            Pair::Added(l) => not_shown.push(NotShown::LockSet {
                target: l.target,
                target_name: name(after, l.target),
                by_name: l.by_name.clone(),
            }),
            Pair::Both(o, n) => {
                if o != n {
                    not_shown.push(NotShown::LockSet {
                        target: n.target,
                        target_name: name(after, n.target),
                        by_name: n.by_name.clone(),
                    });
                }
            }
        },
    );
}

fn diff_absences(old: &Side, new: &Side, not_shown: &mut Vec<NotShown>) {
    merge_join(
        &old.s.absences,
        &new.s.absences,
        |a| a.id,
        |pair| match pair {
            Pair::Removed(a) => not_shown.push(NotShown::AbsenceRemoved {
                absence: a.id,
                member: a.member,
                member_name: old.member_name(a.member),
                start: a.start,
                end: a.end,
            }),
            Pair::Added(a) => not_shown.push(NotShown::AbsenceAdded {
                absence: a.id,
                member: a.member,
                member_name: new.member_name(a.member),
                start: a.start,
                end: a.end,
            }),
            Pair::Both(o, n) => {
                if o != n {
                    not_shown.push(NotShown::AbsenceChanged {
                        absence: n.id,
                        member: n.member,
                        member_name: new.member_name(n.member),
                        old_start: o.start,
                        old_end: o.end,
                        new_start: n.start,
                        new_end: n.end,
                    });
                }
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::s4hana_migration;
    use crate::synth;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    /// The diff of the demo schedule and an edited copy of it.
    fn edit(f: impl FnOnce(&mut Schedule)) -> Diff {
        let before = s4hana_migration();
        let mut after = before.clone();
        f(&mut after);
        diff(&before, &after)
    }

    fn bar_mut(s: &mut Schedule, id: u64) -> &mut Bar {
        s.bars.iter_mut().find(|b| b.id.0 == id).unwrap()
    }

    fn row_mut(s: &mut Schedule, id: u64) -> &mut Row {
        s.rows.iter_mut().find(|r| r.id.0 == id).unwrap()
    }

    fn new_bar(id: u64, row: u64, label: &str, start: &str, end: &str) -> Bar {
        Bar {
            id: BarId(id),
            row: RowId(row),
            label: label.into(),
            start: d(start),
            end: d(end),
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

    #[test]
    fn nothing_changed() {
        let s = s4hana_migration();
        let out = diff(&s, &s);
        assert!(out.is_empty(), "{out:?}");
        assert!(out.new_risks.is_empty());
        assert_eq!(out.end_before, Some(d("2026-12-18")));
        assert_eq!(out.end_after, out.end_before);
    }

    #[test]
    fn bar_moved_and_resized() {
        let out = edit(|s| {
            let b = bar_mut(s, 14);
            b.start = d("2026-11-16");
            b.end = d("2026-11-27");
        });
        assert_eq!(
            out.changes,
            vec![Change::BarMoved {
                bar: BarId(14),
                label: "Nettoyage des données".into(),
                old_start: d("2026-11-09"),
                old_end: d("2026-11-20"),
                new_start: d("2026-11-16"),
                new_end: d("2026-11-27"),
            }]
        );
        assert!(out.not_shown.is_empty());
        // Link 22 (14 FS 16) now breaks by the five working days of the move.
        assert_eq!(out.new_risks.violated_links.len(), 1);
        assert_eq!(out.new_risks.violated_links[0].link, LinkId(22));
        assert_eq!(out.new_risks.violated_links[0].by_days, 5);

        let resized = edit(|s| bar_mut(s, 18).end = d("2026-12-22"));
        assert!(matches!(
            &resized.changes[..],
            [Change::BarMoved { bar: BarId(18), new_start, new_end, .. }]
                if *new_start == d("2026-12-14") && *new_end == d("2026-12-22")
        ));
        assert_eq!(resized.end_before, Some(d("2026-12-18")));
        assert_eq!(resized.end_after, Some(d("2026-12-22")));
    }

    #[test]
    fn bar_renamed_recoloured_and_moved_to_another_row() {
        let out = edit(|s| {
            let b = bar_mut(s, 16);
            b.label = "Migration à blanc n°1".into();
            b.color = None;
            b.row = RowId(7);
        });
        assert_eq!(
            out.changes,
            vec![
                Change::BarRenamed {
                    bar: BarId(16),
                    old_label: "Migration à blanc".into(),
                    new_label: "Migration à blanc n°1".into(),
                },
                Change::BarRowChanged {
                    bar: BarId(16),
                    label: "Migration à blanc n°1".into(),
                    old_row: RowId(10),
                    old_row_name: "Migration à blanc".into(),
                    new_row: RowId(7),
                    new_row_name: "Nettoyage des données".into(),
                },
                Change::BarRecoloured {
                    bar: BarId(16),
                    label: "Migration à blanc n°1".into(),
                    old_color: Some("#d9822b".into()),
                    new_color: None,
                },
            ]
        );
    }

    #[test]
    fn bar_added_and_removed() {
        let out = edit(|s| {
            s.bars.retain(|b| b.id != BarId(17));
            s.links
                .retain(|l| l.from != ItemId(17) && l.to != ItemId(17));
            s.actions.retain(|a| a.bar != BarId(17));
            s.bars.push(new_bar(
                32,
                11,
                "Recette courte",
                "2026-12-07",
                "2026-12-08",
            ));
            s.next_id = 33;
        });
        let kinds: Vec<String> = out
            .changes
            .iter()
            .map(|c| format!("{} {}", kind_of(c), c.id()))
            .collect();
        assert_eq!(
            kinds,
            [
                "bar_removed 17",
                "link_removed 23",
                "link_removed 24",
                "link_removed 25",
                "bar_added 32",
            ]
        );
        assert_eq!(
            out.changes[4],
            Change::BarAdded {
                bar: BarId(32),
                label: "Recette courte".into(),
                row: RowId(11),
                row_name: "Recette utilisateurs".into(),
                start: d("2026-12-07"),
                end: d("2026-12-08"),
            }
        );
        assert!(matches!(
            &out.not_shown[..],
            [NotShown::ActionRemoved { action: ActionId(30), bar: BarId(17), bar_label, .. }]
                if bar_label == "Recette utilisateurs"
        ));
    }

    /// The serde tag of a change.
    fn kind_of<T: Serialize>(x: &T) -> String {
        let v = serde_json::to_value(x).unwrap();
        v["kind"].as_str().unwrap().to_owned()
    }

    #[test]
    fn milestones() {
        let out = edit(|s| {
            let m = &mut s.milestones[0];
            m.date = d("2026-12-21");
            m.label = "Go-live".into();
            m.row = RowId(11);
            m.color = Some("#c0392b".into());
            m.notes = "Communiquer aux équipes.".into();
            s.milestones.push(Milestone {
                id: MilestoneId(32),
                row: RowId(6),
                label: "Audit validé".into(),
                date: d("2026-11-13"),
                color: None,
                notes: String::new(),
                constraint: None,
                deadline: None,
            });
            s.next_id = 33;
        });
        assert_eq!(
            out.changes,
            vec![
                Change::MilestoneRenamed {
                    milestone: MilestoneId(19),
                    old_label: "Go-live S/4HANA".into(),
                    new_label: "Go-live".into(),
                },
                Change::MilestoneMoved {
                    milestone: MilestoneId(19),
                    label: "Go-live".into(),
                    old_date: d("2026-12-18"),
                    new_date: d("2026-12-21"),
                },
                Change::MilestoneRowChanged {
                    milestone: MilestoneId(19),
                    label: "Go-live".into(),
                    old_row: RowId(12),
                    old_row_name: "Mise en production".into(),
                    new_row: RowId(11),
                    new_row_name: "Recette utilisateurs".into(),
                },
                Change::MilestoneRecoloured {
                    milestone: MilestoneId(19),
                    label: "Go-live".into(),
                    old_color: None,
                    new_color: Some("#c0392b".into()),
                },
                Change::MilestoneAdded {
                    milestone: MilestoneId(32),
                    label: "Audit validé".into(),
                    row: RowId(6),
                    row_name: "Audit du système".into(),
                    date: d("2026-11-13"),
                },
            ]
        );
        assert_eq!(
            out.not_shown,
            vec![NotShown::MilestoneNotesChanged {
                milestone: MilestoneId(19),
                label: "Go-live".into(),
            }]
        );
        assert_eq!(out.end_after, Some(d("2026-12-21")));

        let removed = edit(|s| {
            s.milestones.clear();
            s.links.retain(|l| l.id != LinkId(26));
        });
        assert_eq!(removed.changes.len(), 2);
        assert_eq!(
            removed.changes[0],
            Change::MilestoneRemoved {
                milestone: MilestoneId(19),
                label: "Go-live S/4HANA".into(),
                date: d("2026-12-18"),
            }
        );
        assert_eq!(removed.end_after, Some(d("2026-12-17")));
    }

    #[test]
    fn links_added_removed_and_changed() {
        let out = edit(|s| {
            s.links.retain(|l| l.id != LinkId(21));
            let l = s.links.iter_mut().find(|l| l.id == LinkId(20)).unwrap();
            l.kind = LinkKind::FS;
            l.lag = -2;
            s.links.push(Link {
                id: LinkId(32),
                from: ItemId(15),
                to: ItemId(19),
                kind: LinkKind::FF,
                lag: 0,
            });
            s.next_id = 33;
        });
        let audit = ItemRef {
            id: ItemId(13),
            label: "Audit du système".into(),
            is_milestone: false,
        };
        let cleanup = ItemRef {
            id: ItemId(14),
            label: "Nettoyage des données".into(),
            is_milestone: false,
        };
        let abap = ItemRef {
            id: ItemId(15),
            label: "Adaptation du code ABAP".into(),
            is_milestone: false,
        };
        let go_live = ItemRef {
            id: ItemId(19),
            label: "Go-live S/4HANA".into(),
            is_milestone: true,
        };
        assert_eq!(
            out.changes,
            vec![
                Change::LinkChanged {
                    link: LinkId(20),
                    old_from: audit.clone(),
                    old_to: cleanup.clone(),
                    old_type: LinkKind::SS,
                    old_lag: 5,
                    old_lag_unit: TimeUnit::Day,
                    new_from: audit.clone(),
                    new_to: cleanup,
                    new_type: LinkKind::FS,
                    new_lag: -2,
                    new_lag_unit: TimeUnit::Day,
                },
                Change::LinkRemoved {
                    link: LinkId(21),
                    from: audit,
                    to: abap.clone(),
                    link_type: LinkKind::FS,
                    lag: 0,
                    lag_unit: TimeUnit::Day,
                },
                Change::LinkAdded {
                    link: LinkId(32),
                    from: abap,
                    to: go_live,
                    link_type: LinkKind::FF,
                    lag: 0,
                    lag_unit: TimeUnit::Day,
                },
            ]
        );
        // FS - 2 from a bar ending 2026-11-13 wants the clean-up to start 2026-11-12 at
        // the earliest; it starts 2026-11-09, two working days earlier (the 11th is a
        // holiday).
        assert_eq!(out.new_risks.violated_links.len(), 1);
        assert_eq!(out.new_risks.violated_links[0].link, LinkId(20));
        assert_eq!(out.new_risks.violated_links[0].by_days, 2);
    }

    #[test]
    fn groups_added_removed_renamed_and_moved() {
        let out = edit(|s| {
            s.groups[0].name = "Préparation technique".into();
            s.groups.swap(0, 1);
            s.groups.push(Group {
                id: GroupId(32),
                name: "Hypercare".into(),
            });
            s.next_id = 33;
        });
        assert_eq!(
            out.changes,
            vec![
                Change::GroupRenamed {
                    group: GroupId(5),
                    old_name: "Préparation".into(),
                    new_name: "Préparation technique".into(),
                },
                Change::GroupMoved {
                    group: GroupId(9),
                    name: "Bascule".into(),
                    old_position: 1,
                    new_position: 0,
                },
                Change::GroupAdded {
                    group: GroupId(32),
                    name: "Hypercare".into(),
                    position: 2,
                },
            ]
        );

        let removed = edit(|s| {
            s.groups.retain(|g| g.id != GroupId(9));
            for r in &mut s.rows {
                r.group = GroupId(5);
            }
        });
        assert_eq!(
            removed.changes[0],
            Change::GroupRemoved {
                group: GroupId(9),
                name: "Bascule".into(),
            }
        );
        // Its rows moved to the other group, and say so.
        assert_eq!(
            removed.changes[1..]
                .iter()
                .map(Change::id)
                .collect::<Vec<_>>(),
            [10, 11, 12]
        );
        assert!(matches!(
            &removed.changes[1],
            Change::RowMoved {
                old_group: GroupId(9),
                new_group: GroupId(5),
                new_position: 3,
                ..
            }
        ));
    }

    #[test]
    fn inserting_a_row_moves_no_other_row() {
        let out = edit(|s| {
            s.rows.insert(
                1,
                Row {
                    id: RowId(32),
                    group: GroupId(5),
                    name: "Sauvegardes".into(),
                    member: None,
                },
            );
            s.next_id = 33;
        });
        assert_eq!(
            out.changes,
            vec![Change::RowAdded {
                row: RowId(32),
                name: "Sauvegardes".into(),
                group: GroupId(5),
                group_name: "Préparation".into(),
            }]
        );
    }

    #[test]
    fn rows_renamed_reordered_and_removed() {
        let out = edit(|s| {
            // Move "Adaptation du code spécifique" to the top of its group.
            let r = s.rows.remove(2);
            s.rows.insert(0, r);
            row_mut(s, 11).name = "Recette".into();
        });
        assert_eq!(
            out.changes,
            vec![
                Change::RowMoved {
                    row: RowId(8),
                    name: "Adaptation du code spécifique".into(),
                    old_group: GroupId(5),
                    old_group_name: "Préparation".into(),
                    old_position: 2,
                    new_group: GroupId(5),
                    new_group_name: "Préparation".into(),
                    new_position: 0,
                },
                Change::RowRenamed {
                    row: RowId(11),
                    old_name: "Recette utilisateurs".into(),
                    new_name: "Recette".into(),
                },
            ]
        );

        let removed = edit(|s| {
            s.rows.retain(|r| r.id != RowId(12));
            s.bars.retain(|b| b.row != RowId(12));
            s.milestones.clear();
            s.links.retain(|l| l.to.0 < 18 && l.from.0 < 18);
        });
        let ids: Vec<u64> = removed.changes.iter().map(Change::id).collect();
        assert_eq!(ids, [12, 18, 19, 25, 26]);
        assert_eq!(
            removed.changes[0],
            Change::RowRemoved {
                row: RowId(12),
                name: "Mise en production".into(),
            }
        );
    }

    #[test]
    fn longest_increasing_keeps_the_most_items() {
        assert_eq!(in_longest_increasing(&[]), Vec::<bool>::new());
        assert_eq!(in_longest_increasing(&[0, 1, 2]), [true; 3]);
        assert_eq!(in_longest_increasing(&[2, 0, 1]), [false, true, true]);
        assert_eq!(in_longest_increasing(&[1, 2, 0]), [true, true, false]);
        assert_eq!(
            in_longest_increasing(&[0, 4, 1, 2, 3]),
            [true, false, true, true, true]
        );
    }

    #[test]
    fn settings_schedule_notes_and_name_are_not_shown() {
        let out = edit(|s| {
            s.name = "Migration S/4".into();
            s.notes.clear();
            s.settings.time_zone = "Europe/Brussels".into();
            s.settings.working_weekdays.pop();
            s.settings.holidays.push(d("2026-12-31"));
            s.settings.time_unit = TimeUnit::Week;
            s.settings.scheduling = Scheduling::Auto;
        });
        assert!(out.changes.is_empty());
        assert_eq!(
            out.not_shown,
            vec![
                NotShown::ScheduleRenamed {
                    old_name: "S/4HANA Migration".into(),
                    new_name: "Migration S/4".into(),
                },
                NotShown::ScheduleNotesChanged,
                NotShown::SettingChanged {
                    field: SettingField::TimeZone
                },
                NotShown::SettingChanged {
                    field: SettingField::WorkingWeekdays
                },
                NotShown::SettingChanged {
                    field: SettingField::Holidays
                },
                NotShown::SettingChanged {
                    field: SettingField::TimeUnit
                },
                NotShown::SettingChanged {
                    field: SettingField::Scheduling
                },
            ]
        );
    }

    #[test]
    fn a_rows_member_notes_and_pins_are_not_shown() {
        let out = edit(|s| {
            row_mut(s, 10).member = Some(MemberId(4));
            row_mut(s, 11).member = None;
            bar_mut(s, 13).notes.clear();
            bar_mut(s, 14).pin = Some(d("2026-11-09"));
        });
        assert!(out.changes.is_empty(), "{:?}", out.changes);
        assert_eq!(
            out.not_shown,
            vec![
                NotShown::RowMemberChanged {
                    row: RowId(10),
                    name: "Migration à blanc".into(),
                    old_member: Some(MemberId(3)),
                    old_member_name: Some("Sophie Lefèvre".into()),
                    new_member: Some(MemberId(4)),
                    new_member_name: Some("Thomas Dubois".into()),
                },
                NotShown::RowMemberChanged {
                    row: RowId(11),
                    name: "Recette utilisateurs".into(),
                    old_member: Some(MemberId(1)),
                    old_member_name: Some("Camille Martin".into()),
                    new_member: None,
                    new_member_name: None,
                },
                NotShown::BarNotesChanged {
                    bar: BarId(13),
                    label: "Audit du système".into(),
                },
                NotShown::PinChanged {
                    bar: BarId(14),
                    label: "Nettoyage des données".into(),
                    old_pin: None,
                    new_pin: Some(d("2026-11-09")),
                },
            ]
        );
        // Thomas's absence now falls on "Migration à blanc" too.
        let risks = &out.new_risks.absence_risks;
        assert_eq!(risks.len(), 1);
        assert_eq!(risks[0].bar, BarId(16));
        assert_eq!(risks[0].days, vec![d("2026-11-26"), d("2026-11-27")]);
    }

    #[test]
    fn actions_are_not_shown() {
        let out = edit(|s| {
            s.actions.retain(|a| a.id != ActionId(27));
            let a = &mut s.actions[0]; // 28
            a.status = ActionStatus::Done;
            a.label = "Archiver les commandes".into();
            let a = &mut s.actions[1]; // 29
            a.assignee = Some(MemberId(2));
            a.bar = BarId(16);
            s.actions.push(Action {
                id: ActionId(32),
                bar: BarId(18),
                label: "Geler les transports".into(),
                status: ActionStatus::Todo,
                assignee: None,
            });
            s.next_id = 33;
        });
        assert!(out.changes.is_empty());
        assert_eq!(
            out.not_shown,
            vec![
                NotShown::ActionRemoved {
                    action: ActionId(27),
                    label: "Inventorier les programmes spécifiques".into(),
                    bar: BarId(13),
                    bar_label: "Audit du système".into(),
                },
                NotShown::ActionRenamed {
                    action: ActionId(28),
                    old_label: "Archiver les commandes soldées".into(),
                    new_label: "Archiver les commandes".into(),
                },
                NotShown::ActionStatusChanged {
                    action: ActionId(28),
                    label: "Archiver les commandes".into(),
                    old_status: ActionStatus::InProgress,
                    new_status: ActionStatus::Done,
                },
                NotShown::ActionAssigneeChanged {
                    action: ActionId(29),
                    label: "Corriger les accès aux tables obsolètes".into(),
                    old_assignee: Some(MemberId(4)),
                    old_assignee_name: Some("Thomas Dubois".into()),
                    new_assignee: Some(MemberId(2)),
                    new_assignee_name: Some("Karim Benali".into()),
                },
                NotShown::ActionBarChanged {
                    action: ActionId(29),
                    label: "Corriger les accès aux tables obsolètes".into(),
                    old_bar: BarId(15),
                    old_bar_label: "Adaptation du code ABAP".into(),
                    new_bar: BarId(16),
                    new_bar_label: "Migration à blanc".into(),
                },
                NotShown::ActionAdded {
                    action: ActionId(32),
                    label: "Geler les transports".into(),
                    bar: BarId(18),
                    bar_label: "Bascule en production".into(),
                },
            ]
        );
    }

    #[test]
    fn members_and_absences_are_not_shown_and_stay_private() {
        let out = edit(|s| {
            s.members[0].name = "Camille Martin-Roux".into();
            s.members[1].email = Some("k.benali@example.org".into());
            s.members.push(Member {
                id: MemberId(32),
                name: "Léa Garnier".into(),
                email: Some("lea.garnier@example.org".into()),
            });
            s.absences[0].reason = "Autre motif".into();
            s.absences[0].end = d("2026-11-30");
            s.absences.push(Absence {
                id: AbsenceId(33),
                member: MemberId(32),
                start: d("2026-12-01"),
                end: d("2026-12-02"),
                reason: "Formation".into(),
            });
            s.next_id = 34;
        });
        assert!(out.changes.is_empty());
        assert_eq!(
            out.not_shown,
            vec![
                NotShown::MemberRenamed {
                    member: MemberId(1),
                    old_name: "Camille Martin".into(),
                    new_name: "Camille Martin-Roux".into(),
                },
                NotShown::MemberEmailChanged {
                    member: MemberId(2),
                    name: "Karim Benali".into(),
                },
                NotShown::AbsenceChanged {
                    absence: AbsenceId(31),
                    member: MemberId(4),
                    member_name: "Thomas Dubois".into(),
                    old_start: d("2026-11-26"),
                    old_end: d("2026-11-27"),
                    new_start: d("2026-11-26"),
                    new_end: d("2026-11-30"),
                },
                NotShown::MemberAdded {
                    member: MemberId(32),
                    name: "Léa Garnier".into(),
                },
                NotShown::AbsenceAdded {
                    absence: AbsenceId(33),
                    member: MemberId(32),
                    member_name: "Léa Garnier".into(),
                    start: d("2026-12-01"),
                    end: d("2026-12-02"),
                },
            ]
        );
        let json = serde_json::to_string(&out).unwrap();
        for secret in ["example.org", "Autre motif", "Formation", "Rendez-vous"] {
            assert!(!json.contains(secret), "{secret} leaked into {json}");
        }
        // The longer absence adds one working day at risk on the ABAP bar.
        assert_eq!(out.new_risks.absence_risks[0].days, vec![d("2026-11-30")]);

        let removed = edit(|s| {
            s.absences.clear();
            s.members.retain(|m| m.id != MemberId(1));
        });
        assert_eq!(
            removed.not_shown,
            vec![
                NotShown::MemberRemoved {
                    member: MemberId(1),
                    name: "Camille Martin".into(),
                },
                NotShown::AbsenceRemoved {
                    absence: AbsenceId(31),
                    member: MemberId(4),
                    member_name: "Thomas Dubois".into(),
                    start: d("2026-11-26"),
                    end: d("2026-11-27"),
                },
            ]
        );
        assert!(removed.new_risks.is_empty());
    }

    #[test]
    fn serialises_with_a_kind_tag() {
        let out = edit(|s| bar_mut(s, 13).end = d("2026-11-12"));
        let json = serde_json::to_value(&out.changes[0]).unwrap();
        assert_eq!(json["kind"], "bar_moved");
        assert_eq!(json["bar"], 13);
        assert_eq!(json["new_end"], "2026-11-12");
        let back: Diff = serde_json::from_str(&serde_json::to_string(&out).unwrap()).unwrap();
        assert_eq!(back, out);
        let link = edit(|s| s.links[0].lag = 1);
        let json = serde_json::to_value(&link.changes[0]).unwrap();
        assert_eq!(json["kind"], "link_changed");
        assert_eq!(json["new_type"], "SS");
    }

    #[test]
    fn empty_schedules_have_no_end() {
        let out = diff(&Schedule::new("A"), &s4hana_migration());
        assert_eq!(out.end_before, None);
        assert_eq!(out.end_after, Some(d("2026-12-18")));
        // Every item of the demo is new; the one absence risk is new too.
        assert_eq!(out.new_risks.absence_risks.len(), 1);
        assert!(out.changes.windows(2).all(|w| w[0].id() <= w[1].id()));
        assert!(out.not_shown.windows(2).all(|w| w[0].id() <= w[1].id()));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// Whatever bars move and links go, the diff names exactly those, in id order.
        #[test]
        fn reports_exactly_the_moved_bars_and_removed_links(
            moves in proptest::collection::btree_map(0usize..300, -5i32..=5, 0..20),
            removed in proptest::collection::btree_set(0usize..600, 0..10),
        ) {
            let before = synth::generate(synth::Spec::new(300));
            let mut after = before.clone();
            let mut moved = Vec::new();
            for (&i, &by) in &moves {
                if by != 0 {
                    let b = &mut after.bars[i];
                    b.start = b.start.add_days(by);
                    b.end = b.end.add_days(by);
                    moved.push(b.id.0);
                }
            }
            let gone: Vec<u64> = removed.iter().map(|&i| before.links[i].id.0).collect();
            after.links.retain(|l| !gone.contains(&l.id.0));

            let out = diff(&before, &after);
            let bars: Vec<u64> = out
                .changes
                .iter()
                .filter(|c| matches!(c, Change::BarMoved { .. }))
                .map(Change::id)
                .collect();
            let links: Vec<u64> = out
                .changes
                .iter()
                .filter(|c| matches!(c, Change::LinkRemoved { .. }))
                .map(Change::id)
                .collect();
            proptest::prop_assert_eq!(bars, moved);
            proptest::prop_assert_eq!(links, gone);
            let count = moves.values().filter(|b| **b != 0).count() + removed.len();
            proptest::prop_assert_eq!(out.changes.len(), count);
            proptest::prop_assert!(out.not_shown.is_empty());
        }
    }

    #[test]
    fn a_few_changes_in_a_large_schedule() {
        let before = synth::generate(synth::Spec::new(20_000));
        let mut after = before.clone();
        let moved = [10, 5_000, 19_999];
        for &i in &moved {
            let b = &mut after.bars[i];
            b.start = b.start.add_days(1);
            b.end = b.end.add_days(1);
        }
        after.links.remove(1_000);
        let out = diff(&before, &after);
        let bars: Vec<BarId> = moved.iter().map(|&i| after.bars[i].id).collect();
        let reported: Vec<u64> = out
            .changes
            .iter()
            .filter(|c| matches!(c, Change::BarMoved { .. }))
            .map(Change::id)
            .collect();
        assert_eq!(reported, bars.iter().map(|b| b.0).collect::<Vec<_>>());
        assert_eq!(out.changes.len(), 4);
        assert!(out.not_shown.is_empty());
    }
}

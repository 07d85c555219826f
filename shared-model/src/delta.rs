//! Live updates in the size of the change: the current state of the items some journal
//! entries touched, which brings an older copy of the schedule up to date without
//! reading the whole schedule again (`get_changes_since` with `records`, for the view).
//!
//! Owns the delta's shape, how it is made from a schedule and a set of touched ids, and
//! how it is applied to a copy. Leaves to others: which ids an entry touched (the
//! command footprints, `command::footprint`), what a reader may not see (the server
//! strips e-mails and reasons from the records), and when to read the schedule again
//! instead (the server sends no delta for a replaced schedule or one too large).
//!
//! A delta is made from the state AFTER the entries. For each touched id it carries the
//! item as a page record (`paging::Record`: the view already reads those) or, when no
//! item has that id any more, the id in `removed`. Why this is enough: an entry's
//! footprint names every item its commands create, edit or delete, cascades included
//! (they are named by the inverse); everything else is as it was, so replacing the
//! touched items and dropping the removed ones gives exactly the new state.
//!
//! Groups and rows have a position. A touched one travels with its index in the new
//! state; applying takes every touched group (row) out and puts them back in ascending
//! index order, which rebuilds the new order exactly because the untouched ones kept
//! their relative order. Rows follow their groups' order, so the rows of a touched group
//! travel with it (a moved group moves them without naming them). The schedule's own fields travel as a `header` record when the
//! pseudo-id `SCHEDULE_FIELDS` was touched; `next_id` always travels (it only grows).
//!
//! The ids touched only for reading (a link's two ends) come along unchanged: they cost
//! a record each and spare the footprint a fourth set.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::command::Command;
use crate::command::SCHEDULE_FIELDS;
use crate::paging::{Header, Placed, Record};
use crate::schedule::*;

/// The state of the touched items after some entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta<'a> {
    /// The touched items that exist, each as a page record, in ascending id order within
    /// each kind; a `header` first when the schedule's own fields were touched.
    pub records: Vec<Record<'a>>,
    /// The touched ids no item has any more.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<u64>,
    pub next_id: u64,
}

/// Why a delta could not be applied: the copy and the delta do not fit together (the
/// reader then reads the schedule again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeltaError(pub &'static str);

impl fmt::Display for DeltaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The ids a list of journalled commands touched: give it an entry's commands AND their
/// inverse, which names the cascades (see `command::footprint`).
pub fn touched<'c>(cmds: impl IntoIterator<Item = &'c Command>) -> Vec<u64> {
    cmds.into_iter().flat_map(Command::touched).collect()
}

/// The delta of the items whose ids are in `touched` (any order, duplicates allowed), as
/// they are in `s`.
pub fn delta<'a>(s: &'a Schedule, touched: &[u64]) -> Delta<'a> {
    let mut ids = touched.to_vec();
    crate::order::sort_by_u64(&mut ids, |&id| id);
    ids.dedup();
    let wanted = |id: u64| ids.binary_search(&id).is_ok();
    let mut records = Vec::new();
    let mut found = Vec::new();
    if wanted(SCHEDULE_FIELDS) {
        found.push(SCHEDULE_FIELDS);
        records.push(Record::Header(Header::of(s)));
    }
    // Groups and rows are in display order, not id order: one pass over each.
    for (index, g) in s.groups.iter().enumerate() {
        if wanted(g.id.0) {
            found.push(g.id.0);
            records.push(Record::Group(Placed {
                index,
                item: Cow::Borrowed(g),
            }));
        }
    }
    // Rows are kept in their groups' order, so a group that moved moved its rows
    // without naming them: they travel with it.
    let mut groups_touched: Vec<u64> = s
        .groups
        .iter()
        .map(|g| g.id.0)
        .filter(|id| wanted(*id))
        .collect();
    crate::order::sort_by_u64(&mut groups_touched, |&id| id);
    for (index, r) in s.rows.iter().enumerate() {
        if wanted(r.id.0) || groups_touched.binary_search(&r.group.0).is_ok() {
            found.push(r.id.0);
            records.push(Record::Row(Placed {
                index,
                item: Cow::Borrowed(r),
            }));
        }
    }
    // The other collections are sorted by id: a binary search per touched id.
    pick(
        &s.bars,
        &ids,
        |b| b.id.0,
        &mut found,
        &mut records,
        |b| Record::Bar(Cow::Borrowed(b)),
    );
    pick(
        &s.milestones,
        &ids,
        |m| m.id.0,
        &mut found,
        &mut records,
        |m| Record::Milestone(Cow::Borrowed(m)),
    );
    pick(
        &s.links,
        &ids,
        |l| l.id.0,
        &mut found,
        &mut records,
        |l| Record::Link(Cow::Borrowed(l)),
    );
    pick(
        &s.actions,
        &ids,
        |a| a.id.0,
        &mut found,
        &mut records,
        |a| Record::Action(Cow::Borrowed(a)),
    );
    pick(
        &s.members,
        &ids,
        |m| m.id.0,
        &mut found,
        &mut records,
        |m| Record::Member(Cow::Borrowed(m)),
    );
    pick(
        &s.absences,
        &ids,
        |a| a.id.0,
        &mut found,
        &mut records,
        |a| Record::Absence(Cow::Borrowed(a)),
    );
    crate::order::sort_by_u64(&mut found, |&id| id);
    let removed = ids
        .iter()
        .copied()
        .filter(|id| *id != SCHEDULE_FIELDS && found.binary_search(id).is_err())
        .collect();
    Delta {
        records,
        removed,
        next_id: s.next_id,
    }
}

/// The items of a sorted collection whose ids are in `ids` (sorted), as records.
fn pick<'a, T>(
    items: &'a [T],
    ids: &[u64],
    key: impl Fn(&T) -> u64,
    found: &mut Vec<u64>,
    records: &mut Vec<Record<'a>>,
    record: impl Fn(&'a T) -> Record<'a>,
) {
    if items.is_empty() {
        return;
    }
    for &id in ids {
        if let Ok(i) = items.binary_search_by_key(&id, &key) {
            found.push(id);
            records.push(record(&items[i]));
        }
    }
}

/// Brings `s` up to date with `d`. On an error `s` may be half updated: the caller
/// applies to a copy and reads the schedule again.
///
/// Written for size as much as speed (the view carries it as wasm, under a budget): one
/// small generic helper per collection, no sort. A delta holds a few records, so an
/// insertion shifting a collection is cheap; the answer's size bounds the worst case.
pub fn apply_delta(s: &mut Schedule, d: Delta<'_>) -> Result<(), DeltaError> {
    // Every touched item leaves the copy, and the existing ones come back below (groups
    // and rows at their new index). Taking them out of every collection, not only their
    // own, matters: an id freed by a deletion may be given, explicitly, to an item of
    // another kind.
    for id in d
        .removed
        .iter()
        .copied()
        .chain(d.records.iter().filter_map(record_id))
    {
        take_out(s, id);
    }
    // Groups and rows come back lowest index first (see the module header).
    let (mut group_at, mut row_at) = (0, 0);
    for r in d.records {
        match r {
            Record::Header(h) => {
                s.name = h.name.into_owned();
                if let Some(settings) = h.settings {
                    s.settings = settings.into_owned();
                }
                s.notes = h.notes.into_owned();
                s.locks = h.locks;
            }
            Record::Group(p) => place(&mut s.groups, &mut group_at, p.index, p.item.into_owned())?,
            Record::Row(p) => place(&mut s.rows, &mut row_at, p.index, p.item.into_owned())?,
            Record::Bar(b) => insert(&mut s.bars, b.into_owned(), |b| b.id.0),
            Record::Milestone(m) => insert(&mut s.milestones, m.into_owned(), |m| m.id.0),
            Record::Link(l) => insert(&mut s.links, l.into_owned(), |l| l.id.0),
            Record::Action(a) => insert(&mut s.actions, a.into_owned(), |a| a.id.0),
            Record::Member(m) => insert(&mut s.members, m.into_owned(), |m| m.id.0),
            Record::Absence(a) => insert(&mut s.absences, a.into_owned(), |a| a.id.0),
            Record::Cut(_) | Record::Cont(_) => {
                return Err(DeltaError("a delta never carries a cut text"));
            }
        }
    }
    s.next_id = s.next_id.max(d.next_id);
    Ok(())
}

/// The id of an item's record (none for the header and text parts).
fn record_id(r: &Record<'_>) -> Option<u64> {
    Some(match r {
        Record::Group(p) => p.item.id.0,
        Record::Row(p) => p.item.id.0,
        Record::Bar(b) => b.id.0,
        Record::Milestone(m) => m.id.0,
        Record::Link(l) => l.id.0,
        Record::Action(a) => a.id.0,
        Record::Member(m) => m.id.0,
        Record::Absence(a) => a.id.0,
        Record::Header(_) | Record::Cut(_) | Record::Cont(_) => return None,
    })
}

/// Removes the item with this id, whatever its kind.
fn take_out(s: &mut Schedule, id: u64) {
    if let Some(i) = s.groups.iter().position(|g| g.id.0 == id) {
        s.groups.remove(i);
    }
    if let Some(i) = s.rows.iter().position(|r| r.id.0 == id) {
        s.rows.remove(i);
    }
    remove(&mut s.bars, id, |b| b.id.0);
    remove(&mut s.milestones, id, |m| m.id.0);
    remove(&mut s.links, id, |l| l.id.0);
    remove(&mut s.actions, id, |a| a.id.0);
    remove(&mut s.members, id, |m| m.id.0);
    remove(&mut s.absences, id, |a| a.id.0);
}

/// Removes an item from a collection sorted by id.
fn remove<T>(items: &mut Vec<T>, id: u64, key: fn(&T) -> u64) {
    if let Ok(i) = items.binary_search_by_key(&id, key) {
        items.remove(i);
    }
}

/// Inserts an item into a collection sorted by id, replacing one with the same id.
fn insert<T>(items: &mut Vec<T>, item: T, key: fn(&T) -> u64) {
    match items.binary_search_by_key(&key(&item), key) {
        Ok(i) => items[i] = item,
        Err(i) => items.insert(i, item),
    }
}

/// Puts a group or row back at its index; `last` is the previous index put back, so
/// that they come lowest first.
fn place<T>(items: &mut Vec<T>, last: &mut usize, index: usize, item: T) -> Result<(), DeltaError> {
    if index < *last || index > items.len() {
        return Err(DeltaError("groups and rows out of order or beyond the end"));
    }
    *last = index;
    items.insert(index, item);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{Command, apply};
    use crate::date::Date;

    fn d(y: i32, m: u32, day: u32) -> Date {
        Date::from_ymd(y, m, day).expect("a date")
    }

    /// A schedule: one group, two rows, three bars linked in a chain, an action.
    fn sample() -> Schedule {
        let mut s = Schedule::new("P");
        let cmds = [
            Command::AddGroup {
                id: None,
                name: "G".into(),
                index: None,
            },
            Command::AddRow {
                id: None,
                group: GroupId(1),
                name: "R1".into(),
                member: None,
                index: None,
            },
            Command::AddRow {
                id: None,
                group: GroupId(1),
                name: "R2".into(),
                member: None,
                index: None,
            },
        ];
        let (mut s2, _) = apply(&s, &cmds).expect("applies");
        for (i, row) in [2u64, 3, 2].into_iter().enumerate() {
            let day = 2 + 7 * u32::try_from(i).expect("small");
            let c = Command::AddPeriod {
                id: None,
                row: RowId(row),
                label: format!("B{i}"),
                start: d(2026, 11, day),
                end: d(2026, 11, day + 3),
                color: None,
                notes: None,
                pin: None,
            };
            s2 = apply(&s2, &[c]).expect("a bar").0;
        }
        s = s2;
        s
    }

    /// Applies `cmds`, then checks that the delta of their footprint brings the old
    /// state to the new one.
    fn round_trip(s: &Schedule, cmds: &[Command]) -> Schedule {
        let (after, done) = apply(s, cmds).expect("applies");
        let dl = delta(&after, &touched(done.applied.iter().chain(&done.inverse)));
        // Through JSON, as the view gets it.
        let text = serde_json::to_string(&dl).expect("serialises");
        let back: Delta<'static> = serde_json::from_str(&text).expect("reads back");
        let mut copy = s.clone();
        apply_delta(&mut copy, back).expect("applies");
        assert_eq!(copy, after);
        after
    }

    #[test]
    fn a_move_carries_the_bars_it_moved_and_nothing_else() {
        let s = sample();
        let c = Command::MovePeriods {
            bars: vec![BarId(4)],
            milestones: vec![],
            by: 2,
        };
        let (after, _) = apply(&s, std::slice::from_ref(&c)).expect("moves");
        let dl = delta(&after, &c.touched());
        assert_eq!(dl.records.len(), 1);
        assert!(matches!(&dl.records[0], Record::Bar(b) if b.id == BarId(4)));
        assert!(dl.removed.is_empty());
        round_trip(&s, &[c]);
    }

    #[test]
    fn deletions_adds_and_reorders_round_trip() {
        let s = sample();
        let s = round_trip(
            &s,
            &[Command::DeletePeriods {
                bars: vec![BarId(5)],
            }],
        );
        let s = round_trip(
            &s,
            &[
                Command::AddRow {
                    id: None,
                    group: GroupId(1),
                    name: "R0".into(),
                    member: None,
                    index: Some(0),
                },
                Command::MoveRow {
                    row: RowId(3),
                    group: None,
                    index: 0,
                },
                Command::RenameSchedule { name: "Q".into() },
            ],
        );
        let s = round_trip(&s, &[Command::DeleteRow { row: RowId(2) }]);
        assert_eq!(s.name, "Q");
    }

    #[test]
    fn a_delta_that_does_not_fit_is_refused() {
        let s = sample();
        let mut bad = delta(&s, &[2, 3]);
        bad.records.reverse();
        assert!(
            apply_delta(&mut s.clone(), bad).is_err(),
            "rows out of order"
        );
        let mut beyond = delta(&s, &[2]);
        if let Record::Row(p) = &mut beyond.records[0] {
            p.index = 99;
        }
        assert!(apply_delta(&mut s.clone(), beyond).is_err());
    }
}

//! Cascades (auto-scheduling): after a change, the successors of what changed move so
//! that every link downstream holds, by the smallest change that does it.
//!
//! Push semantics (see `docs/scheduling.md`): each item downstream of the change moves
//! later to exactly the bound its predecessors give (its working duration kept on the
//! calendar, lags counted in working time), never earlier, and nothing that is not
//! downstream moves. `Cascade::Pull` also brings an item downstream back to its bound
//! when its predecessors leave it room. The items that changed (the seeds) keep the
//! dates the change gave them unless a link into them asks for later.
//!
//! Date constraints (see `constraint`): an item's lower bounds (a bar's pin, "finish
//! no earlier than", "must start on") are part of its floor in both modes, so no push
//! or pull ever leaves an item it visits before them, and a seed with no link at all
//! still comes to them. Its upper bounds ("start no later than", "must start on",
//! "finish no later than") are never pushed past: a push that would is refused with
//! [`PushError::Constraint`], naming the item, the constraint and by how many working
//! days, and `command::apply_cascading` then writes nothing. Deadlines never move
//! anything (they are risks).
//!
//! Cost: the push visits only what is downstream of the seeds and the links into it.
//! It reads the links through a [`LinkIndex`] (built once per schedule in O(items +
//! links), the links counted into rows by a direct table of ids) and each item's dates
//! by binary search in the schedule, so a drag preview or a write that pushes 1,000
//! items of a 100,000-bar schedule costs the index and those 1,000 items.
//!
//! The same function runs in the view (the live preview of a drag) and on the server
//! (the write), so what the preview draws is what the write does.

use serde::{Deserialize, Serialize};

use crate::calendar::Calendar;
use crate::constraint;
use crate::cpm::{ItemKind, milestone_date};
use crate::date::Date;
use crate::risk::{lag_days, link_shortfall};
use crate::schedule::{BarId, Constraint, ConstraintKind, ItemId, MilestoneId, Schedule};

/// How a cascade moves what is downstream of a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cascade {
    /// Later only, to exactly the bound the links give.
    Push,
    /// To the bound the links give, earlier too (never before a pin).
    Pull,
}

/// One item a cascade moved: its dates before and after (a milestone's twice).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    pub item: ItemId,
    pub kind: ItemKind,
    pub from: (Date, Date),
    pub to: (Date, Date),
    /// Working days its start moved (negative when pulled earlier).
    pub by_days: i64,
}

/// The links of a schedule by the items they leave from and lead to.
///
/// Slots number the items that some link touches; `out` and `into` hold, per slot,
/// the positions in `Schedule::links` of the links leaving and entering it.
#[derive(Clone, Debug, Default)]
pub struct LinkIndex {
    slots: Slots,
    /// The item of each slot, increasing.
    ids: Vec<ItemId>,
    out_offsets: Vec<u32>,
    out: Vec<u32>,
    in_offsets: Vec<u32>,
    into: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
enum Slots {
    /// `table[id - first]` is the slot of that id, or `NONE`.
    Table { first: u64, table: Vec<u32> },
    /// Ids too sparse for a table: binary search in `ids`.
    #[default]
    Search,
}

const NONE: u32 = u32::MAX;

impl LinkIndex {
    /// The index of a schedule's links. Links whose ends do not exist are indexed too;
    /// the push skips them.
    pub fn new(s: &Schedule) -> LinkIndex {
        let links = &s.links;
        assert!(
            u32::try_from(links.len()).is_ok(),
            "a schedule holds at most u32::MAX links"
        );
        let Some((lo, hi)) = links
            .iter()
            .map(|l| (l.from.0.min(l.to.0), l.from.0.max(l.to.0)))
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
        else {
            return LinkIndex {
                out_offsets: vec![0],
                in_offsets: vec![0],
                ..LinkIndex::default()
            };
        };
        let span = hi - lo + 1;
        let (slots, ids) = if span <= 4 * links.len() as u64 + 1024 {
            // Ids come from one counter, so the ends of a schedule's links are usually
            // dense: mark them, then number them in id order.
            let mut table = vec![NONE; span as usize];
            for l in links {
                table[(l.from.0 - lo) as usize] = 0;
                table[(l.to.0 - lo) as usize] = 0;
            }
            let mut ids = Vec::new();
            for (k, slot) in table.iter_mut().enumerate() {
                if *slot == 0 {
                    *slot = ids.len() as u32;
                    ids.push(ItemId(lo + k as u64));
                }
            }
            (Slots::Table { first: lo, table }, ids)
        } else {
            let mut ids: Vec<ItemId> = links.iter().flat_map(|l| [l.from, l.to]).collect();
            crate::order::sort_by_u64(&mut ids, |i| i.0);
            ids.dedup();
            (Slots::Search, ids)
        };
        let mut index = LinkIndex {
            slots,
            ids,
            ..LinkIndex::default()
        };
        let n = index.ids.len();
        let ends: Vec<(u32, u32)> = links
            .iter()
            .map(|l| {
                let from = index.slot(l.from).expect("indexed");
                let to = index.slot(l.to).expect("indexed");
                (from, to)
            })
            .collect();
        let rows = |key: &dyn Fn(&(u32, u32)) -> u32| {
            let mut offsets = vec![0u32; n + 1];
            for e in &ends {
                offsets[key(e) as usize + 1] += 1;
            }
            for i in 0..n {
                offsets[i + 1] += offsets[i];
            }
            let mut next = offsets.clone();
            let mut placed = vec![0u32; ends.len()];
            for (k, e) in ends.iter().enumerate() {
                let at = &mut next[key(e) as usize];
                placed[*at as usize] = k as u32;
                *at += 1;
            }
            (offsets, placed)
        };
        (index.out_offsets, index.out) = rows(&|e| e.0);
        (index.in_offsets, index.into) = rows(&|e| e.1);
        index
    }

    /// The slot of an item, if some link touches it.
    pub fn slot(&self, id: ItemId) -> Option<u32> {
        match &self.slots {
            Slots::Table { first, table } => {
                let k = usize::try_from(id.0.checked_sub(*first)?).ok()?;
                table.get(k).copied().filter(|&s| s != NONE)
            }
            Slots::Search => self.ids.binary_search(&id).ok().map(|k| k as u32),
        }
    }

    fn outgoing(&self, slot: u32) -> &[u32] {
        let i = slot as usize;
        &self.out[self.out_offsets[i] as usize..self.out_offsets[i + 1] as usize]
    }

    fn incoming(&self, slot: u32) -> &[u32] {
        let i = slot as usize;
        &self.into[self.in_offsets[i] as usize..self.in_offsets[i + 1] as usize]
    }

    /// Whether a link leads to the item.
    pub fn preceded(&self, id: ItemId) -> bool {
        self.slot(id).is_some_and(|s| !self.incoming(s).is_empty())
    }
}

/// Which items a push starts from.
#[derive(Clone, Copy, Debug)]
pub enum Seeds<'a> {
    /// The items a change moved or linked anew.
    Items(&'a [ItemId]),
    /// The whole schedule: every item with `Cascade::Push`, the items no link leads to
    /// with `Cascade::Pull` (so that everything else comes to its bound).
    All,
}

/// Why a push found no dates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PushError {
    /// The links loop through these items (sorted by id). Commands refuse cycles, so
    /// only a schedule imported with one gets here.
    Cycle { items: Vec<ItemId> },
    /// The push would move `item` past one of its upper bounds ("start no later
    /// than", "must start on", "finish no later than" on `date`) by `by_days` working
    /// days, or further past it than it already was: nothing moves then (the first
    /// such item met, in link order from the change).
    Constraint {
        item: ItemId,
        kind: ConstraintKind,
        date: Date,
        by_days: i64,
    },
}

/// One item as the push sees it: where it is now, in working time.
#[derive(Clone, Copy, Debug)]
struct Item {
    kind: ItemKind,
    start: i64,
    duration: i64,
    /// The earliest start its lower-bound constraints allow (`i64::MIN` for none).
    earliest: i64,
    /// Its upper-bound constraint, with the boundary its date stands for.
    upper: Option<(Constraint, i64)>,
    /// A milestone: whether a link leads to it (where it sits in its day).
    preceded: bool,
    dates: (Date, Date),
}

/// One item's dates replaced, for a preview: (item, (start, end)), a milestone's date
/// twice.
type Override = Option<(ItemId, (Date, Date))>;

fn item(
    s: &Schedule,
    cal: &Calendar,
    index: &LinkIndex,
    id: ItemId,
    over: Override,
) -> Option<Item> {
    let dated = |planned: (Date, Date)| match over {
        Some((o, dates)) if o == id => dates,
        _ => planned,
    };
    if let Some(b) = s.bar(BarId(id.0)) {
        let dates = dated((b.start, b.end));
        let start = cal.start_boundary(dates.0);
        let finish = cal.finish_boundary(dates.1).max(start);
        let duration = finish - start;
        let upper = b
            .constraint
            .filter(|c| c.kind.is_upper())
            .map(|c| (c, constraint::boundary(cal, c, None)));
        return Some(Item {
            kind: ItemKind::Bar,
            start,
            duration,
            earliest: constraint::bar_bounds(cal, b, duration).earliest,
            upper,
            preceded: false,
            dates,
        });
    }
    let m = s.milestone(MilestoneId(id.0))?;
    let dates = dated((m.date, m.date));
    let preceded = index.preceded(id);
    let upper = m
        .constraint
        .filter(|c| c.kind.is_upper())
        .map(|c| (c, constraint::boundary(cal, c, Some(preceded))));
    Some(Item {
        kind: ItemKind::Milestone,
        start: crate::cpm::milestone_boundary(cal, dates.0, preceded),
        duration: 0,
        earliest: constraint::milestone_bounds(cal, m, preceded).earliest,
        upper,
        preceded,
        dates,
    })
}

/// Where an item that lasts `duration` and starts at `start` goes on the calendar.
/// A bar with working days keeps them; a milestone sits where `cpm::milestone_date`
/// shows one (at the end of its day when a link leads to it). A bar on days off only
/// (it lasts no working time) goes onto the days off just before the working day that
/// starts there, as many as it covered or as many as there are; when no day off
/// precedes that working day, it takes that day, and so lasts one working day from
/// then on (the push reads where each item really went, so its successors follow
/// that).
fn placed(cal: &Calendar, it: &Item, start: i64) -> (Date, Date) {
    match it.kind {
        ItemKind::Milestone => {
            let day = milestone_date(cal, start, it.preceded, i64::MIN);
            (day, day)
        }
        ItemKind::Bar if it.duration > 0 => {
            (cal.date(start), cal.date_of_finish(start + it.duration))
        }
        ItemKind::Bar => {
            let working = cal.date(start);
            let first_off = cal.date_of_finish(start).add_days(1);
            if first_off >= working {
                return (working, working);
            }
            let length = it.dates.0.days_until(it.dates.1);
            let end = working.add_days(-1);
            let from = end.add_days(-length).max(first_off);
            (from, end)
        }
    }
}

/// An item a push moved, and the (start, finish) boundaries it then has.
type Placed = (Moved, (i64, i64));

/// Puts an item at start boundary `at`: what moved and where it then is, or None when
/// it stays (at its start, or on the same days). Refuses a position that breaks its
/// upper-bound constraint, or breaks it more than it already did.
fn place(cal: &Calendar, id: ItemId, it: &Item, at: i64) -> Result<Option<Placed>, PushError> {
    let to = placed(cal, it, at);
    if at == it.start || to == it.dates {
        return Ok(None);
    }
    let went = match it.kind {
        ItemKind::Bar => (
            cal.start_boundary(to.0),
            cal.finish_boundary(to.1).max(cal.start_boundary(to.0)),
        ),
        ItemKind::Milestone => (at, at),
    };
    if let Some((c, on)) = it.upper {
        let now = constraint::upper_shortfall(c.kind, on, went);
        let was = constraint::upper_shortfall(c.kind, on, (it.start, it.start + it.duration));
        if now > 0 && now > was {
            return Err(PushError::Constraint {
                item: id,
                kind: c.kind,
                date: c.date,
                by_days: now,
            });
        }
    }
    let moved = Moved {
        item: id,
        kind: it.kind,
        from: it.dates,
        to,
        by_days: went.0 - it.start,
    };
    Ok(Some((moved, went)))
}

/// The items a push moves, sorted by id, with their new dates.
///
/// With `Seeds::Items`, the seeds and everything downstream of them are considered;
/// each takes the largest of its bounds (from every link into it, moved predecessors
/// at their new dates), of the earliest start its own lower-bound constraints allow
/// (a pin, "finish no earlier than", "must start on") and, for a seed or with
/// `Cascade::Push`, of its current start; with `Cascade::Pull`, an item downstream
/// that is not a seed takes its links' bound and its lower bounds only. A seed no link
/// touches moves only to its lower bounds. No item moves past its upper-bound
/// constraint ("start no later than", "must start on", "finish no later than"): the
/// push fails instead, naming the first such item. A deadline never moves nor stops
/// anything.
pub fn push(
    s: &Schedule,
    index: &LinkIndex,
    cal: &Calendar,
    seeds: Seeds<'_>,
    mode: Cascade,
) -> Result<Vec<Moved>, PushError> {
    run(s, index, cal, seeds, mode, None)
}

/// What the push would move if `item` had these dates (a milestone's date twice),
/// without changing the schedule: the preview of a drag, computed by the same code as
/// the write that follows it, in the size of what is downstream. The item itself is
/// in the list when a link or a constraint holds it back (its `from` then being
/// `dates`).
pub fn preview(
    s: &Schedule,
    index: &LinkIndex,
    cal: &Calendar,
    item: ItemId,
    dates: (Date, Date),
    mode: Cascade,
) -> Result<Vec<Moved>, PushError> {
    run(
        s,
        index,
        cal,
        Seeds::Items(&[item]),
        mode,
        Some((item, dates)),
    )
}

fn run(
    s: &Schedule,
    index: &LinkIndex,
    cal: &Calendar,
    seeds: Seeds<'_>,
    mode: Cascade,
    over: Override,
) -> Result<Vec<Moved>, PushError> {
    let n = index.ids.len();
    let mut seed = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut moved = Vec::new();
    // Seeds no link touches: only their own lower bounds can move them.
    let mut alone = |id: ItemId| -> Result<(), PushError> {
        if let Some(it) = item(s, cal, index, id, over)
            && let Some((m, _)) = place(cal, id, &it, it.start.max(it.earliest))?
        {
            moved.push(m);
        }
        Ok(())
    };
    match seeds {
        Seeds::Items(items) => {
            for &id in items {
                match index.slot(id) {
                    Some(slot) if !seed[slot as usize] => {
                        seed[slot as usize] = true;
                        stack.push(slot);
                    }
                    Some(_) => {}
                    None => alone(id)?,
                }
            }
        }
        Seeds::All => {
            for slot in 0..n as u32 {
                if mode == Cascade::Push || index.incoming(slot).is_empty() {
                    seed[slot as usize] = true;
                    stack.push(slot);
                }
            }
            let bars = s
                .bars
                .iter()
                .filter(|b| b.pin.is_some() || b.constraint.is_some());
            let milestones = s.milestones.iter().filter(|m| m.constraint.is_some());
            let ids = bars
                .map(|b| ItemId::from(b.id))
                .chain(milestones.map(|m| ItemId::from(m.id)));
            for id in ids.filter(|&id| index.slot(id).is_none()) {
                alone(id)?;
            }
        }
    }
    // Downstream of the seeds, in discovery order.
    let mut inside = seed.clone();
    let mut downstream: Vec<u32> = Vec::with_capacity(stack.len());
    while let Some(slot) = stack.pop() {
        downstream.push(slot);
        for &k in index.outgoing(slot) {
            let to = index.slot(s.links[k as usize].to).expect("indexed");
            if !inside[to as usize] {
                inside[to as usize] = true;
                stack.push(to);
            }
        }
    }
    // Links from inside still to settle, per item; then Kahn's order over the inside.
    let mut pending = vec![0u32; n];
    for &slot in &downstream {
        for &k in index.incoming(slot) {
            let from = index.slot(s.links[k as usize].from).expect("indexed");
            if inside[from as usize] {
                pending[slot as usize] += 1;
            }
        }
    }
    let mut ready: Vec<u32> = downstream
        .iter()
        .copied()
        .filter(|&slot| pending[slot as usize] == 0)
        .collect();
    // Where each inside item starts and finishes after the push, once settled.
    let mut at_after: Vec<Option<(i64, i64)>> = vec![None; n];
    let mut settled = 0usize;
    let position = |slot: u32, at_after: &[Option<(i64, i64)>]| -> Option<(i64, i64)> {
        if let Some(at) = at_after[slot as usize] {
            return Some(at);
        }
        let it = item(s, cal, index, index.ids[slot as usize], over)?;
        Some((it.start, it.start + it.duration))
    };
    while let Some(slot) = ready.pop() {
        settled += 1;
        let id = index.ids[slot as usize];
        if let Some(it) = item(s, cal, index, id, over) {
            let mut bound = i64::MIN;
            for &k in index.incoming(slot) {
                let l = &s.links[k as usize];
                let from = index.slot(l.from).expect("indexed");
                let Some(from_at) = position(from, &at_after) else {
                    continue;
                };
                let need = link_shortfall(l.kind, lag_days(cal, s, l), from_at, (0, it.duration));
                bound = bound.max(need);
            }
            let floor = if seed[slot as usize] || mode == Cascade::Push {
                it.start.max(it.earliest)
            } else {
                it.earliest
            };
            let at = if bound == i64::MIN {
                it.start.max(it.earliest)
            } else {
                bound.max(floor)
            };
            match place(cal, id, &it, at)? {
                Some((m, went)) => {
                    at_after[slot as usize] = Some(went);
                    moved.push(m);
                }
                None => at_after[slot as usize] = Some((it.start, it.start + it.duration)),
            }
        }
        for &k in index.outgoing(slot) {
            let to = index.slot(s.links[k as usize].to).expect("indexed");
            pending[to as usize] -= 1;
            if pending[to as usize] == 0 {
                ready.push(to);
            }
        }
    }
    if settled < downstream.len() {
        let mut items: Vec<ItemId> = downstream
            .iter()
            .filter(|&&slot| pending[slot as usize] > 0)
            .map(|&slot| index.ids[slot as usize])
            .collect();
        crate::order::sort_by_u64(&mut items, |i| i.0);
        return Err(PushError::Cycle { items });
    }
    crate::order::sort_by_u64(&mut moved, |m| m.item.0);
    // A seed no link touches, named twice, was placed twice, the same way.
    moved.dedup_by_key(|m| m.item);
    Ok(moved)
}

/// The commands that put the moved items where the push put them: explicit dates,
/// so that the journal replays them exactly whatever the calendar becomes.
pub fn commands(moved: &[Moved]) -> Vec<crate::command::Command> {
    use crate::command::Command;
    moved
        .iter()
        .map(|m| match m.kind {
            ItemKind::Bar => Command::SetPeriodDates {
                bar: BarId(m.item.0),
                start: m.to.0,
                end: m.to.1,
            },
            ItemKind::Milestone => Command::MoveMilestone {
                milestone: MilestoneId(m.item.0),
                date: m.to.0,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{Command, apply_cascading, apply_in_place};
    use crate::risk::ItemBounds;
    use crate::schedule::*;
    use proptest::prelude::*;

    use crate::testkit::{
        add_bar as bar, add_link as link, add_milestone as milestone, constrain, d,
        one_row as schedule,
    };

    /// Applies `cmds` with a cascade and returns the new dates of the moved items.
    fn cascade(s: &mut Schedule, cmds: &[Command], mode: Cascade) -> Vec<(u64, String, String)> {
        let done = apply_cascading(s, cmds, Some(mode)).unwrap();
        done.cascade
            .iter()
            .map(|m| (m.item.0, m.to.0.to_string(), m.to.1.to_string()))
            .collect()
    }

    fn moved(ids: &[(u64, &str, &str)]) -> Vec<(u64, String, String)> {
        ids.iter()
            .map(|(i, a, b)| (*i, (*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    fn move_bar(bar: u64, by: i32) -> Command {
        Command::MovePeriods {
            bars: vec![BarId(bar)],
            milestones: vec![],
            by,
        }
    }

    #[test]
    fn a_chain_moves_by_exactly_what_its_links_need() {
        // A Mon 2..Wed 4 -> B Thu 5..Fri 6 -> C Mon 9..Tue 10 -> go-live on Tue 10;
        // D stands apart, E follows A with three days of slack.
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-04");
        bar(&mut s, 11, "2026-11-05", "2026-11-06");
        bar(&mut s, 12, "2026-11-09", "2026-11-10");
        milestone(&mut s, 13, "2026-11-10");
        bar(&mut s, 14, "2026-11-02", "2026-11-20");
        bar(&mut s, 15, "2026-11-10", "2026-11-10");
        link(&mut s, 20, 10, 11, LinkKind::FS, 0);
        link(&mut s, 21, 11, 12, LinkKind::FS, 0);
        link(&mut s, 22, 12, 13, LinkKind::FS, 0);
        link(&mut s, 23, 10, 15, LinkKind::FS, 0);
        let before = s.clone();
        // A two days later ends on Friday 6: B starts Monday 9 and skips the holiday.
        let out = cascade(&mut s, &[move_bar(10, 2)], Cascade::Push);
        assert_eq!(
            out,
            moved(&[
                (11, "2026-11-09", "2026-11-10"),
                (12, "2026-11-12", "2026-11-13"),
                (13, "2026-11-13", "2026-11-13"),
            ])
        );
        // E had three days of slack and keeps its dates; D is not downstream.
        assert_eq!(s.bar(BarId(15)), before.bar(BarId(15)));
        assert_eq!(s.bar(BarId(14)), before.bar(BarId(14)));
        assert_eq!(
            crate::risk::violated_links(&s, &Calendar::for_schedule(&s)),
            []
        );

        // Pulled back, the chain returns to its bounds; without pull it stays.
        let mut pushed = s.clone();
        assert_eq!(cascade(&mut pushed, &[move_bar(10, -2)], Cascade::Push), []);
        let out = cascade(&mut s, &[move_bar(10, -2)], Cascade::Pull);
        assert_eq!(
            out,
            moved(&[
                (11, "2026-11-05", "2026-11-06"),
                (12, "2026-11-09", "2026-11-10"),
                (13, "2026-11-10", "2026-11-10"),
                (15, "2026-11-05", "2026-11-05"),
            ])
        );
    }

    #[test]
    fn every_link_kind_with_leads_and_lags_pushes_to_its_bound() {
        // A Mon 2..Tue 3 moved to Mon 9..Tue 10 (the holiday follows); B lasts three
        // days and starts on Mon 2, so every case below pushes it.
        let cases = [
            (LinkKind::FS, 0, "2026-11-12", "2026-11-16"),
            (LinkKind::FS, -1, "2026-11-10", "2026-11-13"),
            (LinkKind::SS, 2, "2026-11-12", "2026-11-16"),
            (LinkKind::SS, -1, "2026-11-06", "2026-11-10"),
            (LinkKind::FF, 0, "2026-11-06", "2026-11-10"),
            (LinkKind::FF, 2, "2026-11-10", "2026-11-13"),
            (LinkKind::SF, 3, "2026-11-09", "2026-11-12"),
        ];
        for (kind, lag, start, end) in cases {
            let mut s = schedule();
            bar(&mut s, 10, "2026-11-02", "2026-11-03");
            bar(&mut s, 11, "2026-11-02", "2026-11-04");
            link(&mut s, 20, 10, 11, kind, lag);
            let set = Command::SetPeriodDates {
                bar: BarId(10),
                start: d("2026-11-09"),
                end: d("2026-11-10"),
            };
            let mut cut = s.clone();
            cut.links.clear();
            let out = cascade(&mut s, &[set], Cascade::Push);
            assert_eq!(out, moved(&[(11, start, end)]), "{kind:?} {lag}");
            let links = crate::risk::violated_links(&s, &Calendar::for_schedule(&s));
            assert_eq!(links, [], "{kind:?} {lag}");
        }
    }

    #[test]
    fn milestones_at_both_ends_and_a_weekend_bar() {
        // Kickoff on Monday 2 (no link leads to it: the start of its day), FS to A
        // starting that day; A ends Tuesday 3, FS to a weekend-only bar W, FS to the
        // go-live dated Tuesday 3 (the end of its day). None of it is violated.
        let mut s = schedule();
        milestone(&mut s, 9, "2026-11-02");
        bar(&mut s, 10, "2026-11-02", "2026-11-03");
        milestone(&mut s, 11, "2026-11-03");
        bar(&mut s, 12, "2026-11-07", "2026-11-08");
        link(&mut s, 20, 9, 10, LinkKind::FS, 0);
        link(&mut s, 21, 10, 11, LinkKind::FS, 0);
        link(&mut s, 22, 10, 12, LinkKind::FS, 0);
        let cal = Calendar::for_schedule(&s);
        assert_eq!(crate::risk::violated_links(&s, &cal), []);
        let cp = crate::cpm::critical_path(&s).unwrap();
        assert_eq!(cp.project_start, Some(d("2026-11-02")));
        assert_eq!(cp.timing(ItemId(9)).unwrap().early_start, d("2026-11-02"));

        // A one week later: the go-live follows to its last day; the weekend bar moves
        // onto the day off before the working day its link starts (the holiday before
        // Thursday 12), so it still lasts no working day.
        let out = cascade(&mut s, &[move_bar(10, 5)], Cascade::Push);
        assert_eq!(
            out,
            moved(&[
                (11, "2026-11-10", "2026-11-10"),
                (12, "2026-11-11", "2026-11-11"),
            ])
        );
        assert_eq!(
            crate::risk::violated_links(&s, &Calendar::for_schedule(&s)),
            []
        );
    }

    #[test]
    fn a_new_calendar_pushes_what_its_links_now_need() {
        // B follows A by one working day; counted in weeks, the lag becomes five days
        // (Armistice Day skipped), and in auto the cascade follows.
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-03");
        bar(&mut s, 11, "2026-11-05", "2026-11-05");
        link(&mut s, 20, 10, 11, LinkKind::FS, 1);
        let unit = Command::SetSettings {
            time_zone: None,
            working_weekdays: None,
            holidays: None,
            time_unit: Some(TimeUnit::Week),
            scheduling: None,
        };
        let out = cascade(&mut s, &[unit], Cascade::Push);
        assert_eq!(out, moved(&[(11, "2026-11-12", "2026-11-12")]));
        assert_eq!(
            crate::risk::violated_links(&s, &Calendar::for_schedule(&s)),
            []
        );
    }

    #[test]
    fn a_seed_moved_before_its_predecessor_allows_comes_back_to_its_bound() {
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-03");
        bar(&mut s, 11, "2026-11-04", "2026-11-05");
        link(&mut s, 20, 10, 11, LinkKind::FS, 0);
        let out = cascade(&mut s, &[move_bar(11, -2)], Cascade::Push);
        assert_eq!(out, moved(&[(11, "2026-11-04", "2026-11-05")]));
        assert_eq!(s.bar(BarId(11)).unwrap().start, d("2026-11-04"));
    }

    #[test]
    fn a_push_that_would_break_a_finish_no_later_than_fails_naming_it() {
        // A Mon 2..Wed 4 -FS-> B Thu 5..Fri 6, which must finish by Friday 6: met with
        // no day to spare.
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-04");
        bar(&mut s, 11, "2026-11-05", "2026-11-06");
        link(&mut s, 20, 10, 11, LinkKind::FS, 0);
        constrain(&mut s, 11, ConstraintKind::FinishNoLaterThan, "2026-11-06");
        let before = s.clone();
        let err = apply_cascading(&mut s, &[move_bar(10, 2)], Some(Cascade::Push)).unwrap_err();
        assert_eq!(s, before, "nothing is written");
        assert_eq!((err.command, err.op), (0, "cascade"));
        assert_eq!(
            err.problem,
            crate::command::Problem::CascadeConstraint {
                item: ItemId(11),
                label: "B11".into(),
                kind: ConstraintKind::FinishNoLaterThan,
                date: d("2026-11-06"),
                by_days: 2,
            }
        );
        let visible = |t: String| t.replace('\u{202f}', "⟨nnbsp⟩").replace('\u{a0}', "⟨nbsp⟩");
        expect_test::expect!["Commande 1 (cascade)⟨nbsp⟩: le décalage en cascade des successeurs ferait finir l'élément 11 «⟨nbsp⟩B11⟨nbsp⟩» 2 jours ouvrés trop tard pour sa contrainte «⟨nbsp⟩fin au plus tard le 2026-11-06⟨nbsp⟩». Rien n'a été écrit⟨nnbsp⟩; déplacez ou retirez cette contrainte (set_constraint, une date null la retire), ou passez cascade: false pour écrire ces changements sans décaler les successeurs."]
            .assert_eq(&visible(err.message(crate::Lang::Fr)));
        // One day late is one working day, in both languages.
        let err = apply_cascading(&mut s, &[move_bar(10, 1)], Some(Cascade::Push)).unwrap_err();
        expect_test::expect![[r#"Command 1 (cascade): the cascade that moves the successors would make item 11 “B11” finish 1 working day too late for its constraint “finish no later than 2026-11-06”. Nothing was written; move or remove that constraint (set_constraint; a null date removes it), or pass cascade: false to write these changes without moving the successors."#]]
            .assert_eq(&err.message(crate::Lang::En));
        assert!(
            err.message(crate::Lang::Fr)
                .contains("1 jour ouvré trop tard"),
            "{}",
            err.message(crate::Lang::Fr)
        );
        // Without the cascade the move is written, and the broken constraint is a risk.
        apply_cascading(&mut s, &[move_bar(10, 2)], None).unwrap();
        let r = crate::risk::risks(&s);
        assert_eq!(r.violated_links.len(), 1);
        assert_eq!(r.broken_constraints, [] as [crate::risk::ConstraintRisk; 0]);
        // A deadline never stops a push: it only becomes a risk.
        let mut s = before.clone();
        s.bars[1].constraint = None;
        s.bars[1].deadline = Some(d("2026-11-06"));
        let out = cascade(&mut s, &[move_bar(10, 2)], Cascade::Push);
        assert_eq!(out, moved(&[(11, "2026-11-09", "2026-11-10")]));
        let r = crate::risk::risks(&s);
        assert_eq!(r.missed_deadlines.len(), 1);
        assert_eq!(r.missed_deadlines[0].by_days, 2);
    }

    #[test]
    fn start_no_later_than_and_must_start_on_stop_a_push_too() {
        // A Mon 2..Tue 3 -FS-> B Wed 4..Thu 5 -FS-> M, a milestone on Thursday 5.
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-03");
        bar(&mut s, 11, "2026-11-04", "2026-11-05");
        milestone(&mut s, 12, "2026-11-05");
        link(&mut s, 20, 10, 11, LinkKind::FS, 0);
        link(&mut s, 21, 11, 12, LinkKind::FS, 0);
        let problem = |s: &mut Schedule, by: i32| {
            let before = s.clone();
            let e = apply_cascading(s, &[move_bar(10, by)], Some(Cascade::Push)).unwrap_err();
            assert_eq!(*s, before);
            match e.problem {
                crate::command::Problem::CascadeConstraint {
                    item,
                    kind,
                    by_days,
                    ..
                } => (item.0, kind, by_days),
                p => panic!("{p:?}"),
            }
        };
        // B may start on Thursday 5 at the latest: one day later is fine, two are not.
        let mut b = s.clone();
        constrain(&mut b, 11, ConstraintKind::StartNoLaterThan, "2026-11-05");
        assert_eq!(
            problem(&mut b, 2),
            (11, ConstraintKind::StartNoLaterThan, 1)
        );
        assert_eq!(cascade(&mut b, &[move_bar(10, 1)], Cascade::Push).len(), 2);
        // B must start on Wednesday 4: any push of it breaks it.
        let mut b = s.clone();
        constrain(&mut b, 11, ConstraintKind::MustStartOn, "2026-11-04");
        assert_eq!(problem(&mut b, 1), (11, ConstraintKind::MustStartOn, 1));
        // The go-live must be reached by Friday 6 (the end of its day).
        let mut m = s.clone();
        constrain(&mut m, 12, ConstraintKind::FinishNoLaterThan, "2026-11-06");
        assert_eq!(
            problem(&mut m, 3),
            (12, ConstraintKind::FinishNoLaterThan, 2)
        );
        let out = cascade(&mut m, &[move_bar(10, 1)], Cascade::Push);
        assert_eq!(
            out.last(),
            Some(&(12, "2026-11-06".into(), "2026-11-06".into()))
        );
    }

    #[test]
    fn lower_bounds_are_floors_in_push_and_pull() {
        // A Mon 2..Tue 3 -FS-> B Thu 5..Fri 6 (a day of slack).
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-03");
        bar(&mut s, 11, "2026-11-05", "2026-11-06");
        link(&mut s, 20, 10, 11, LinkKind::FS, 0);
        // Pulled, B comes back to its link's bound...
        let out = cascade(&mut s.clone(), &[move_bar(10, -1)], Cascade::Pull);
        assert_eq!(out, moved(&[(11, "2026-11-03", "2026-11-04")]));
        // ... but no earlier than it may finish (Friday 6) or must start (Thursday 5).
        for kind in [
            ConstraintKind::FinishNoEarlierThan,
            ConstraintKind::MustStartOn,
            ConstraintKind::StartNoEarlierThan,
        ] {
            let mut c = s.clone();
            let date = if kind.on_finish() {
                "2026-11-06"
            } else {
                "2026-11-05"
            };
            constrain(&mut c, 11, kind, date);
            assert_eq!(
                cascade(&mut c, &[move_bar(10, -1)], Cascade::Pull),
                [],
                "{kind:?}"
            );
            // Moved before it by the write itself, B comes back to it (as to a link's
            // bound), in either mode.
            for mode in [Cascade::Push, Cascade::Pull] {
                let out = cascade(&mut c.clone(), &[move_bar(11, -1)], mode);
                assert_eq!(out, moved(&[(11, "2026-11-05", "2026-11-06")]), "{kind:?}");
            }
        }
        // An item no link touches comes to a lower bound given to it, and a milestone
        // no link leads to sits at the start of its day.
        bar(&mut s, 12, "2026-11-02", "2026-11-02");
        milestone(&mut s, 13, "2026-11-02");
        let set = |item: u64, kind, date: &str| Command::SetConstraint {
            item: ItemId(item),
            constraint: Some(Constraint {
                kind,
                date: d(date),
            }),
        };
        let out = cascade(
            &mut s,
            &[
                set(12, ConstraintKind::FinishNoEarlierThan, "2026-11-04"),
                set(13, ConstraintKind::MustStartOn, "2026-11-03"),
            ],
            Cascade::Push,
        );
        assert_eq!(
            out,
            moved(&[
                (12, "2026-11-04", "2026-11-04"),
                (13, "2026-11-03", "2026-11-03")
            ])
        );
        assert_eq!(crate::risk::risks(&s).broken_constraints, []);
    }

    #[test]
    fn a_locked_successor_fails_the_whole_write() {
        let mut s = schedule();
        bar(&mut s, 10, "2026-11-02", "2026-11-03");
        bar(&mut s, 11, "2026-11-04", "2026-11-05");
        link(&mut s, 20, 10, 11, LinkKind::FS, 0);
        s.locks.push(Lock {
            target: LockTarget::Bar(BarId(11)),
            by: 1,
            by_name: "Alice".into(),
            since_ms: 0,
            reason: String::new(),
        });
        let before = s.clone();
        let err = apply_cascading(&mut s, &[move_bar(10, 1)], Some(Cascade::Push)).unwrap_err();
        assert_eq!(err.op, "cascade");
        assert!(matches!(
            err.problem,
            crate::command::Problem::Cascade {
                item: ItemId(11),
                ..
            }
        ));
        assert_eq!(s, before, "nothing is written");
        let text = err.message(crate::Lang::Fr);
        assert!(
            text.contains("l'élément 11") && text.contains("cascade: false"),
            "{text}"
        );
    }

    /// A small random schedule: bars and milestones on a 5- or 6-day week with a
    /// holiday, links from earlier to later items of all four kinds with lags -3..3.
    /// Bars start on working days (bars on days off only are worked examples above:
    /// one pushed where no day off is free takes a working day, which these
    /// properties do not cover).
    fn arb_schedule() -> impl Strategy<Value = Schedule> {
        (2usize..14, any::<bool>(), any::<u64>()).prop_flat_map(|(n, six_days, seed)| {
            let items = proptest::collection::vec((0i32..25, 0i32..6, 0u8..6), n);
            let links = proptest::collection::vec((0..n, 0..n, 0u8..4, -3i32..4), 0..(2 * n));
            (items, links).prop_map(move |(items, links)| {
                let mut s = schedule();
                if six_days {
                    s.settings.working_weekdays.push(crate::date::Weekday::Sat);
                }
                let _ = seed;
                let base = d("2026-10-26");
                for (k, (at, len, shape)) in items.iter().enumerate() {
                    let id = 100 + k as u64;
                    let cal = Calendar::for_schedule(&s);
                    let start = cal.date(cal.start_boundary(base.add_days(*at)));
                    if *shape == 0 {
                        milestone(&mut s, id, &start.to_string());
                    } else {
                        let end = start.add_days(*len);
                        bar(&mut s, id, &start.to_string(), &end.to_string());
                    }
                }
                let mut next = 500;
                for (a, b, kind, lag) in links {
                    let (a, b) = (a.min(b), a.max(b));
                    let kind =
                        [LinkKind::FS, LinkKind::SS, LinkKind::FF, LinkKind::SF][kind as usize];
                    let (from, to) = (ItemId(100 + a as u64), ItemId(100 + b as u64));
                    if a == b
                        || s.links
                            .iter()
                            .any(|l| l.from == from && l.to == to && l.kind == kind)
                    {
                        continue;
                    }
                    link(&mut s, next, from.0, to.0, kind, lag);
                    next += 1;
                }
                s
            })
        })
    }

    /// `arb_schedule` with date constraints of every kind on some of its items (a
    /// bar's "start no earlier than" as its pin), around their planned dates, so that
    /// some hold with room, some are tight and some are already broken.
    fn arb_constrained() -> impl Strategy<Value = Schedule> {
        let constraints = proptest::collection::vec(
            (any::<proptest::sample::Index>(), 0usize..5, -6i32..8),
            0..6,
        );
        (arb_schedule(), constraints).prop_map(|(mut s, cs)| {
            let ids: Vec<u64> = s
                .bars
                .iter()
                .map(|b| b.id.0)
                .chain(s.milestones.iter().map(|m| m.id.0))
                .collect();
            for (pick, kind, shift) in cs {
                let id = ids[pick.index(ids.len())];
                let (start, end) = s.item_dates(ItemId(id)).unwrap();
                let kind = ConstraintKind::ALL[kind];
                let base = if kind.on_finish() { end } else { start };
                constrain(&mut s, id, kind, &base.add_days(shift).to_string());
            }
            s
        })
    }

    /// An item's position after a write (boundaries), its earliest start and its
    /// upper-bound constraint's breach (`i64::MIN` for none), as the push reads them.
    fn bounds_of(s: &Schedule, cal: &Calendar, id: ItemId) -> ((i64, i64), i64, i64) {
        let index = LinkIndex::new(s);
        let it = item(s, cal, &index, id, None).unwrap();
        let at = (it.start, it.start + it.duration);
        let breach = it.upper.map_or(i64::MIN, |(c, on)| {
            constraint::upper_shortfall(c.kind, on, at)
        });
        (at, it.earliest, breach)
    }

    /// Every item downstream of `seeds` (the seeds included).
    fn downstream(s: &Schedule, seeds: &[ItemId]) -> Vec<ItemId> {
        let mut out: Vec<ItemId> = seeds.to_vec();
        let mut k = 0;
        while k < out.len() {
            let at = out[k];
            for l in s.links.iter().filter(|l| l.from == at) {
                if !out.contains(&l.to) {
                    out.push(l.to);
                }
            }
            k += 1;
        }
        out
    }

    fn working(cal: &Calendar, b: &Bar) -> i64 {
        (cal.finish_boundary(b.end) - cal.start_boundary(b.start)).max(0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn the_push_is_the_smallest_change_that_makes_every_link_hold(
            s in arb_schedule(),
            pick in proptest::collection::vec(any::<proptest::sample::Index>(), 1..3),
            by in -4i32..6,
            pull in any::<bool>(),
        ) {
            let mode = if pull { Cascade::Pull } else { Cascade::Push };
            let ids: Vec<BarId> = s.bars.iter().map(|b| b.id).collect();
            prop_assume!(!ids.is_empty());
            let mut chosen: Vec<BarId> = pick.iter().map(|i| ids[i.index(ids.len())]).collect();
            chosen.sort();
            chosen.dedup();
            let cmd = Command::MovePeriods { bars: chosen.clone(), milestones: vec![], by };
            let mut after = s.clone();
            let Ok(done) = apply_cascading(&mut after, std::slice::from_ref(&cmd), Some(mode)) else {
                // Only a move past the supported years fails.
                return Ok(());
            };
            let mut moved_only = s.clone();
            apply_in_place(&mut moved_only, std::slice::from_ref(&cmd)).unwrap();
            let seeds: Vec<ItemId> = chosen.iter().map(|&b| ItemId::from(b)).collect();
            let down = downstream(&s, &seeds);
            let cal = Calendar::for_schedule(&after);
            let bounds = ItemBounds::new(&after, &cal);

            // No link into what is downstream is violated.
            for l in after.links.iter().filter(|l| down.contains(&l.to)) {
                let (from, to) = (bounds.get(l.from).unwrap(), bounds.get(l.to).unwrap());
                prop_assert!(link_shortfall(l.kind, lag_days(&cal, &after, l), from, to) <= 0, "{l:?}");
            }
            for m in &done.cascade {
                // Only what is downstream moves, later with a push.
                prop_assert!(down.contains(&m.item));
                if mode == Cascade::Push {
                    prop_assert!(m.by_days > 0, "{m:?}");
                }
                // Exactly at its bound: one link into it is tight.
                let at = bounds.get(m.item).unwrap();
                let tight = after.links.iter().filter(|l| l.to == m.item).any(|l| {
                    link_shortfall(l.kind, lag_days(&cal, &after, l), bounds.get(l.from).unwrap(), at) == 0
                });
                prop_assert!(tight, "{m:?} sits past its bound");
            }
            // Nothing else changed, and bars keep their working days.
            for b in &after.bars {
                let was = moved_only.bar(b.id).unwrap();
                if !done.cascade.iter().any(|m| m.item == ItemId::from(b.id)) {
                    prop_assert_eq!(b, was);
                } else {
                    prop_assert_eq!(working(&cal, b), working(&cal, was));
                }
            }
            for m in &after.milestones {
                if !done.cascade.iter().any(|c| c.item == ItemId::from(m.id)) {
                    prop_assert_eq!(m, moved_only.milestone(m.id).unwrap());
                }
            }
            // Pushing again changes nothing.
            let index = LinkIndex::new(&after);
            let again = push(&after, &index, &cal, Seeds::Items(&seeds), mode).unwrap();
            prop_assert_eq!(again, vec![]);
            // One undo takes it all back.
            let mut undone = after.clone();
            apply_in_place(&mut undone, &done.inverse).unwrap();
            prop_assert_eq!(undone, s);
        }

        #[test]
        fn a_drag_preview_is_the_write_that_follows(
            s in arb_constrained(),
            pick in any::<proptest::sample::Index>(),
            by in -5i32..8,
            resize in any::<bool>(),
        ) {
            // 200 random drags (moves and resizes of the end) over random schedules: the
            // preview the view draws and the write the server makes move the same items
            // to the same dates.
            prop_assume!(!s.bars.is_empty());
            let bar = s.bars[pick.index(s.bars.len())].clone();
            let cal = Calendar::for_schedule(&s);
            let (cmd, dates) = if resize {
                let dates = crate::command::resized_bar(&cal, bar.start, bar.end, crate::command::Edge::End, i64::from(by));
                (Command::ResizePeriod { bar: bar.id, edge: crate::command::Edge::End, by }, dates)
            } else {
                let dates = crate::command::shifted_bar(&cal, bar.start, bar.end, i64::from(by));
                (Command::MovePeriods { bars: vec![bar.id], milestones: vec![], by }, dates)
            };
            // A gesture by nothing sends nothing; the commands leave the dates alone.
            let dates = if by == 0 { (bar.start, bar.end) } else { dates };
            // A resize to an empty span: the view draws no preview and sends nothing.
            if dates.1 < dates.0 {
                return Ok(());
            }
            let index = LinkIndex::new(&s);
            let preview = preview(&s, &index, &cal, ItemId::from(bar.id), dates, Cascade::Push);
            let mut after = s.clone();
            let done = match (apply_cascading(&mut after, &[cmd], Some(Cascade::Push)), &preview) {
                (Ok(done), Ok(_)) => done,
                // A push past an upper bound: the preview and the write both refuse it.
                (Err(e), Err(PushError::Constraint { item, .. })) => {
                    prop_assert!(matches!(e.problem, crate::command::Problem::CascadeConstraint { item: i, .. } if i == *item), "{e:?}");
                    return Ok(());
                }
                // A resize to an empty span is refused; the view draws no preview then.
                (Err(_), Ok(_)) => {
                    prop_assert!(dates.1 < dates.0 || dates.0.days_until(dates.1) > 3000);
                    return Ok(());
                }
                (Ok(_), Err(e)) | (Err(_), Err(e)) => {
                    prop_assert!(false, "the preview and the write disagree: {e:?}");
                    return Ok(());
                }
            };
            let preview = preview.unwrap();
            prop_assert_eq!(&preview, &done.cascade);
            let moved_bar = after.bar(bar.id).unwrap();
            let expected = preview
                .iter()
                .find(|m| m.item == ItemId::from(bar.id))
                .map_or(dates, |m| m.to);
            prop_assert_eq!((moved_bar.start, moved_bar.end), expected);
        }

        #[test]
        fn a_push_never_takes_an_item_past_its_upper_bounds(
            s in arb_constrained(),
            pick in proptest::collection::vec(any::<proptest::sample::Index>(), 1..3),
            by in -4i32..6,
            pull in any::<bool>(),
        ) {
            let mode = if pull { Cascade::Pull } else { Cascade::Push };
            let ids: Vec<BarId> = s.bars.iter().map(|b| b.id).collect();
            prop_assume!(!ids.is_empty());
            let mut chosen: Vec<BarId> = pick.iter().map(|i| ids[i.index(ids.len())]).collect();
            chosen.sort();
            chosen.dedup();
            let cmd = Command::MovePeriods { bars: chosen.clone(), milestones: vec![], by };
            let seeds: Vec<ItemId> = chosen.iter().map(|&b| ItemId::from(b)).collect();
            let down = downstream(&s, &seeds);
            let mut moved_only = s.clone();
            apply_in_place(&mut moved_only, std::slice::from_ref(&cmd)).unwrap();
            let mut after = s.clone();
            match apply_cascading(&mut after, std::slice::from_ref(&cmd), Some(mode)) {
                Err(e) => {
                    // Refused: nothing written, and the item named is downstream and
                    // has that upper bound.
                    prop_assert_eq!(&after, &s);
                    if let crate::command::Problem::CascadeConstraint { item, kind, by_days, .. } = e.problem {
                        prop_assert!(down.contains(&item));
                        prop_assert!(kind.is_upper() && by_days > 0);
                        let has = s.item_constraints(item).unwrap().iter().any(|c| c.kind == kind);
                        prop_assert!(has);
                    }
                }
                Ok(done) => {
                    let cal = Calendar::for_schedule(&after);
                    let bounds = ItemBounds::new(&after, &cal);
                    for l in after.links.iter().filter(|l| down.contains(&l.to)) {
                        let (from, to) = (bounds.get(l.from).unwrap(), bounds.get(l.to).unwrap());
                        prop_assert!(link_shortfall(l.kind, lag_days(&cal, &after, l), from, to) <= 0, "{l:?}");
                    }
                    for &id in &down {
                        let (at, earliest, breach) = bounds_of(&after, &cal, id);
                        let (_, _, was) = bounds_of(&moved_only, &cal, id);
                        // No item downstream is left before its lower bounds...
                        prop_assert!(at.0 >= earliest, "{id:?} before its lower bound");
                        // ... nor further past an upper bound than the write left it
                        // (the write itself may move a seed past its own).
                        prop_assert!(breach <= was.max(0), "{id:?} pushed past its upper bound");
                    }
                    // Pushing again changes nothing.
                    let index = LinkIndex::new(&after);
                    let again = push(&after, &index, &cal, Seeds::Items(&seeds), mode).unwrap();
                    prop_assert_eq!(again, vec![]);
                    let mut undone = after.clone();
                    apply_in_place(&mut undone, &done.inverse).unwrap();
                    prop_assert_eq!(undone, s);
                }
            }
        }

        #[test]
        fn pushing_everything_gives_the_critical_paths_early_dates(s in arb_constrained()) {
            let cal = Calendar::for_schedule(&s);
            let index = LinkIndex::new(&s);
            let moved = match push(&s, &index, &cal, Seeds::All, Cascade::Push) {
                Ok(moved) => moved,
                // The early dates would break an upper bound: the critical path gives
                // them (with negative float), the push refuses to write them.
                Err(PushError::Constraint { item, .. }) => {
                    let cp = crate::cpm::critical_path(&s).unwrap();
                    prop_assert!(cp.timing(item).unwrap().total_float < 0);
                    return Ok(());
                }
                Err(e) => return Err(TestCaseError::fail(format!("{e:?}"))),
            };
            let cp = crate::cpm::critical_path(&s).unwrap();
            for t in &cp.items {
                let m = moved.iter().find(|m| m.item == t.item);
                prop_assert_eq!(m.is_some(), t.pushed_by > 0, "{:?} {:?}", t, m);
                if let Some(m) = m {
                    prop_assert_eq!(m.by_days, t.pushed_by, "{:?}", t);
                }
            }
            let mut after = s.clone();
            apply_in_place(&mut after, &commands(&moved)).unwrap();
            prop_assert_eq!(crate::risk::violated_links(&after, &Calendar::for_schedule(&after)), vec![]);
            // Nor is any lower bound broken any more.
            for r in crate::risk::risks(&after).broken_constraints {
                prop_assert!(!matches!(r.constraint.kind, ConstraintKind::StartNoEarlierThan | ConstraintKind::FinishNoEarlierThan), "{r:?}");
            }
        }
    }
}

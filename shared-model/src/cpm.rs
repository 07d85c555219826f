//! The critical path of a schedule: forward and backward passes over the links, with
//! the four link kinds and their lags in working time, total and free float, the
//! critical items and the driving links, and the cycle that makes a schedule
//! unschedulable.
//!
//! Two layers:
//! - [`schedule_network`] is the engine. It knows nothing of dates or ids: nodes are
//!   dense indices, times are working-time boundaries (see `calendar`), and the links
//!   are out-edges in compressed rows (CSR). The view reuses it for drag previews: it
//!   builds an [`ItemNetwork`] once, changes one node's `min_starts` entry (the pin a
//!   drag adds) and runs the engine again, without going through dates.
//! - [`critical_path`] turns a `Schedule` into that network (through [`ItemNetwork`])
//!   and the engine's boundaries back into dates ([`CriticalPath`]).
//!
//! The planned dates of the items only give their durations, their earliest starts
//! and the project start: the passes compute where each item could go at the earliest
//! and the latest, not whether the plan respects the links (that is `risk`'s job, with
//! the same boundary convention and the same `risk::link_shortfall`, so a link this
//! module calls tight is one `risk` calls satisfied with no margin).
//!
//! Date constraints (see `constraint`) enter as bounds on each node's start: "start no
//! earlier than" (a bar's pin), "finish no earlier than" and "must start on" raise the
//! early start (`min_starts`); "start no later than", "finish no later than", "must
//! start on" and a deadline cap the late start (`max_starts`), as MS Project's
//! deadlines do. Links win over an upper bound in the forward pass, as in MS Project
//! when tasks do not "always honour their constraint dates": an item its links push
//! past its bound keeps the early dates the links give, and its late start falls
//! before its early start, so its total float is negative (by as many working days as
//! the bound is broken) and it is critical, as is every item that drives it there.
//!
//! Cost: linear in items plus links, besides one binary search over the holidays per
//! date turned into a boundary or back. Link endpoints are found through a direct
//! table of item ids (see `NodeLookup`), and no hash map is used anywhere: 100,000 bars
//! and 200,000 links take about 20 ms in all, the engine alone about 6 ms.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::calendar::Calendar;
use crate::date::Date;
use crate::risk::{lag_days, link_shortfall};
use crate::schedule::{BarId, ItemId, LinkId, LinkKind, Schedule};

/// A dependency between two nodes of a [`Network`], from the node whose out-edges
/// hold it to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub to: u32,
    pub kind: LinkKind,
    /// In working days; negative for a lead.
    pub lag: i64,
}

/// A dense network, borrowed so that a caller can keep and tweak its own buffers.
/// Node `i` has duration `durations[i]`; its out-edges are
/// `edges[offsets[i] as usize..offsets[i + 1] as usize]`.
#[derive(Clone, Copy, Debug)]
pub struct Network<'a> {
    /// No node starts before this boundary, and the project never ends before it.
    pub project_start: i64,
    /// Working duration of each node (0 for a milestone).
    pub durations: &'a [i64],
    /// "Start no earlier than" per node, as a start boundary (`i64::MIN` for none).
    pub min_starts: &'a [i64],
    /// "Start no later than" per node, as a start boundary (`i64::MAX` for none): it
    /// caps the node's late start, which may then fall before its early start (a
    /// negative total float).
    pub max_starts: &'a [i64],
    /// `durations.len() + 1` offsets into `edges`, non-decreasing, the last one
    /// `edges.len()`.
    pub offsets: &'a [u32],
    pub edges: &'a [Edge],
}

impl Network<'_> {
    fn out(&self, i: usize) -> &[Edge] {
        &self.edges[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// What the passes find, per node, as working-time boundaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetworkTimes {
    pub early_start: Vec<i64>,
    pub late_start: Vec<i64>,
    /// The smallest slack of the node's out-edges and of the project end (`project_end`
    /// minus the node's early finish), never more than the total float nor below 0.
    pub free_float: Vec<i64>,
    /// The largest early finish, and never before `project_start`.
    pub project_end: i64,
}

impl NetworkTimes {
    /// Late start minus early start.
    pub fn total_float(&self, node: usize) -> i64 {
        self.late_start[node] - self.early_start[node]
    }
}

/// The nodes of one cycle of a [`Network`], in edge order, starting with the
/// smallest: each has an edge to the next, and the last one to the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkCycle {
    pub nodes: Vec<u32>,
}

/// The forward and backward passes over a dense network.
///
/// Forward: a node's early start is the largest of the project start, its
/// `min_starts` entry and what each in-edge requires; finish-type edges (FF, SF)
/// bound the finish, so they bound the start at that bound minus the node's
/// duration. Backward from the project end: a node's late finish is the smallest of
/// the project end and what each out-edge allows given the successor's late dates,
/// and its late start no later than its `max_starts` entry. The early and late dates
/// respect every edge, so floats are never negative unless a `max_starts` entry falls
/// before what the links and `min_starts` allow; the free float is then 0.
///
/// Topological order comes from Kahn's algorithm, merged with the forward pass: a
/// node is popped once all its predecessors are final. When some nodes are never
/// popped, they contain a cycle, and one cycle among them is returned.
///
/// # Panics
/// When the slices disagree in length, an offset is out of range, or an edge points
/// past the last node: a malformed network is a bug of its builder.
pub fn schedule_network(net: &Network<'_>) -> Result<NetworkTimes, NetworkCycle> {
    let n = net.durations.len();
    assert!(
        u32::try_from(n).is_ok(),
        "a network holds at most u32::MAX nodes"
    );
    assert_eq!(net.min_starts.len(), n, "one min start per node");
    assert_eq!(net.max_starts.len(), n, "one max start per node");
    assert_eq!(
        net.offsets.len(),
        n + 1,
        "offsets hold one entry per node plus one"
    );
    assert_eq!(
        net.offsets[n] as usize,
        net.edges.len(),
        "the last offset is the number of edges"
    );
    let d = net.durations;

    let mut pending = vec![0u32; n];
    for e in net.edges {
        pending[e.to as usize] += 1;
    }
    let mut early: Vec<i64> = net
        .min_starts
        .iter()
        .map(|&m| m.max(net.project_start))
        .collect();
    let mut order: Vec<u32> = Vec::with_capacity(n);
    order.extend((0..n as u32).filter(|&i| pending[i as usize] == 0));
    let mut head = 0;
    while let Some(&i) = order.get(head) {
        head += 1;
        let i = i as usize;
        let from = (early[i], early[i] + d[i]);
        for e in net.out(i) {
            let j = e.to as usize;
            // The shortfall falls by one for each boundary the successor moves later,
            // so the shortfall of a successor starting at 0 is the smallest start
            // that satisfies the edge.
            let bound = link_shortfall(e.kind, e.lag, from, (0, d[j]));
            if bound > early[j] {
                early[j] = bound;
            }
            pending[j] -= 1;
            if pending[j] == 0 {
                order.push(j as u32);
            }
        }
    }
    if order.len() < n {
        return Err(find_cycle(net, &pending));
    }

    let project_end = (0..n)
        .map(|i| early[i] + d[i])
        .fold(net.project_start, i64::max);
    let mut late = vec![0i64; n];
    let mut free = vec![0i64; n];
    for &i in order.iter().rev() {
        let i = i as usize;
        let from = (early[i], early[i] + d[i]);
        let mut late_finish = project_end;
        // The project end counts as a successor of every node: a slack past it would
        // make the free float exceed the total float whenever an SS or SF link (or a
        // successor's pin) lets a node end after its successors start.
        let mut free_float = project_end - from.1;
        for e in net.out(i) {
            let j = e.to as usize;
            let to_late = (late[j], late[j] + d[j]);
            // Mirror of the forward bound: the shortfall grows by one for each
            // boundary this node moves later, so minus the shortfall of this node
            // starting at 0 is the latest start the edge allows.
            let latest_start = -link_shortfall(e.kind, e.lag, (0, d[i]), to_late);
            late_finish = late_finish.min(latest_start + d[i]);
            let slack = -link_shortfall(e.kind, e.lag, from, (early[j], early[j] + d[j]));
            free_float = free_float.min(slack);
        }
        late[i] = (late_finish - d[i]).min(net.max_starts[i]);
        // Without upper bounds the free float never exceeds the total float; with one,
        // an item that may slip before any successor moves may still not slip past
        // the bound (MS Project's free slack too is at most the total slack, and 0 when
        // that is negative).
        free[i] = free_float.min((late[i] - early[i]).max(0));
    }
    Ok(NetworkTimes {
        early_start: early,
        late_start: late,
        free_float: free,
        project_end,
    })
}

/// One cycle among the nodes Kahn's algorithm left (`pending[i] > 0`).
///
/// A left node still waits for a predecessor that was left too, so walking from left
/// node to left predecessor never stops; it repeats a node after at most as many
/// steps as there are nodes, and the stretch between the two visits is a cycle. This
/// runs only on the error path, so it may allocate freely.
fn find_cycle(net: &Network<'_>, pending: &[u32]) -> NetworkCycle {
    const NONE: u32 = u32::MAX;
    let n = pending.len();
    let mut predecessor = vec![NONE; n];
    for i in (0..n).filter(|&i| pending[i] > 0) {
        for e in net.out(i) {
            if pending[e.to as usize] > 0 && predecessor[e.to as usize] == NONE {
                predecessor[e.to as usize] = i as u32;
            }
        }
    }
    let start = (0..n)
        .find(|&i| pending[i] > 0)
        .expect("a cycle leaves a node pending");
    let mut visited_at = vec![NONE; n];
    let mut walk: Vec<u32> = Vec::new();
    let mut at = start as u32;
    while visited_at[at as usize] == NONE {
        visited_at[at as usize] = walk.len() as u32;
        walk.push(at);
        at = predecessor[at as usize];
        debug_assert_ne!(at, NONE, "a pending node has a pending predecessor");
    }
    // The walk went against the edges: reverse it, then start at the smallest node so
    // the same cycle is always named the same way.
    let mut nodes = walk.split_off(visited_at[at as usize] as usize);
    nodes.reverse();
    let smallest = (0..nodes.len()).min_by_key(|&k| nodes[k]).unwrap_or(0);
    nodes.rotate_left(smallest);
    NetworkCycle { nodes }
}

/// Whether an item is a bar or a milestone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Bar,
    Milestone,
}

/// A schedule's bars and milestones as a dense [`Network`]: node `i` is `items[i]`
/// (sorted by id), edges are the links whose both ends exist, in link id order within
/// each node. Lags are in working days, times in working-time boundaries of the
/// calendar it was built with.
///
/// The plan is the reference (see `docs/scheduling.md`): each item's planned start is
/// its earliest start, as a dragged task gets a "start no earlier than" in MS Project,
/// so the passes move an item only where a link (or a lower-bound constraint) asks for
/// later, and an item nothing constrains stays where it is planned rather than at the
/// project start.
#[derive(Clone, Debug, Default)]
pub struct ItemNetwork {
    pub items: Vec<ItemId>,
    pub kinds: Vec<ItemKind>,
    /// The earliest planned start among the items (0 for none).
    pub project_start: i64,
    pub durations: Vec<i64>,
    /// Where each item is planned to start, as a start boundary (a milestone's point).
    pub planned_starts: Vec<i64>,
    /// The planned start, or the latest start its lower-bound constraints (a bar's
    /// pin, "finish no earlier than", "must start on") ask for when that is later: what
    /// the forward pass starts each node from.
    pub min_starts: Vec<i64>,
    /// The latest start its upper-bound constraints ("start no later than", "finish no
    /// later than", "must start on") and its deadline allow (`i64::MAX` for none): what
    /// caps its late start.
    pub max_starts: Vec<i64>,
    pub offsets: Vec<u32>,
    pub edges: Vec<Edge>,
    /// The link behind each edge.
    pub edge_links: Vec<LinkId>,
    /// Whether some link leads to the item (which places a milestone at the end of its
    /// day).
    pub preceded: Vec<bool>,
}

/// Where a milestone dated `date` sits in working time: at the start of its day when
/// no link leads to it (a kickoff: what follows it may start that same day), at the
/// end of its day when one does (a go-live: it is reached when its predecessors end).
/// MS Project places milestones the same way, at 8:00 and at 17:00.
pub fn milestone_boundary(cal: &Calendar, date: Date, has_predecessor: bool) -> i64 {
    if has_predecessor {
        cal.finish_boundary(date)
    } else {
        cal.start_boundary(date)
    }
}

/// The day a milestone at this boundary is shown on, the inverse of
/// [`milestone_boundary`]: the working day that ends there when a link leads to it,
/// the one that starts there otherwise. A milestone with a predecessor that lands on
/// the very first boundary of the project (`floor`) is shown on the day that starts
/// there, so no date is ever shown before the project.
pub fn milestone_date(cal: &Calendar, at: i64, has_predecessor: bool, floor: i64) -> Date {
    if has_predecessor && at > floor {
        cal.date_of_finish(at)
    } else {
        cal.date(at)
    }
}

impl ItemNetwork {
    /// The network of a schedule on a calendar (normally `Calendar::for_schedule`).
    ///
    /// A bar lasts its planned working days (a bar whose end comes before its start,
    /// which commands refuse, lasts 0); a milestone lasts 0 and sits where
    /// [`milestone_boundary`] puts it. Links to an item that does not exist are left
    /// out.
    pub fn build(s: &Schedule, cal: &Calendar) -> ItemNetwork {
        let n = s.bars.len() + s.milestones.len();
        assert!(
            u32::try_from(n).is_ok(),
            "a schedule holds at most u32::MAX items"
        );
        let mut net = ItemNetwork {
            items: Vec::with_capacity(n),
            kinds: Vec::with_capacity(n),
            project_start: 0,
            durations: Vec::with_capacity(n),
            planned_starts: Vec::with_capacity(n),
            min_starts: Vec::with_capacity(n),
            max_starts: Vec::with_capacity(n),
            offsets: Vec::new(),
            edges: Vec::new(),
            edge_links: Vec::new(),
            preceded: Vec::new(),
        };
        // Milestones' dates, placed once the links say which have a predecessor.
        let mut milestone_dates: Vec<(usize, &crate::schedule::Milestone)> =
            Vec::with_capacity(s.milestones.len());
        // Bars and milestones are each sorted by id: one merge gives the items sorted
        // by id, so link endpoints are found by binary search.
        let (mut b, mut m) = (s.bars.iter().peekable(), s.milestones.iter().peekable());
        loop {
            let take_bar = match (b.peek(), m.peek()) {
                (Some(bar), Some(ms)) => bar.id.0 < ms.id.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_bar {
                let bar = b.next().expect("peeked");
                let start = cal.start_boundary(bar.start);
                let finish = cal.finish_boundary(bar.end).max(start);
                let duration = finish - start;
                let mut bounds = crate::constraint::bar_bounds(cal, bar, duration);
                if let Some(due) = bar.deadline {
                    let at = crate::constraint::deadline_boundary(cal, due, None);
                    bounds.add_deadline(at, duration);
                }
                net.items.push(ItemId(bar.id.0));
                net.kinds.push(ItemKind::Bar);
                net.durations.push(duration);
                net.planned_starts.push(start);
                net.min_starts.push(bounds.earliest.max(start));
                net.max_starts.push(bounds.latest);
            } else {
                let ms = m.next().expect("peeked");
                milestone_dates.push((net.items.len(), ms));
                net.items.push(ItemId(ms.id.0));
                net.kinds.push(ItemKind::Milestone);
                net.durations.push(0);
                net.planned_starts.push(0);
                net.min_starts.push(0);
                net.max_starts.push(i64::MAX);
            }
        }

        // Links with both ends, then a counting sort by origin into compressed rows:
        // one pass resolves the endpoints and counts, a second one places the edges.
        let lookup = NodeLookup::new(&net.items);
        let mut offsets = vec![0u32; n + 1];
        let mut has_predecessor = vec![false; n];
        let ends: Vec<Option<(u32, u32)>> = s
            .links
            .iter()
            .map(|l| {
                let from = lookup.find(&net.items, l.from)?;
                let to = lookup.find(&net.items, l.to)?;
                offsets[from + 1] += 1;
                has_predecessor[to] = true;
                Some((from as u32, to as u32))
            })
            .collect();
        for (i, ms) in milestone_dates {
            let preceded = has_predecessor[i];
            let at = milestone_boundary(cal, ms.date, preceded);
            let mut bounds = crate::constraint::milestone_bounds(cal, ms, preceded);
            if let Some(due) = ms.deadline {
                let due = crate::constraint::deadline_boundary(cal, due, Some(preceded));
                bounds.add_deadline(due, 0);
            }
            net.planned_starts[i] = at;
            net.min_starts[i] = bounds.earliest.max(at);
            net.max_starts[i] = bounds.latest;
        }
        net.project_start = net.planned_starts.iter().copied().min().unwrap_or(0);
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let kept = offsets[n] as usize;
        let filler = Edge {
            to: 0,
            kind: LinkKind::FS,
            lag: 0,
        };
        net.edges = vec![filler; kept];
        net.edge_links = vec![LinkId(0); kept];
        let mut next = offsets.clone();
        for (l, ends) in s.links.iter().zip(ends) {
            let Some((from, to)) = ends else { continue };
            let at = next[from as usize] as usize;
            next[from as usize] += 1;
            net.edges[at] = Edge {
                to,
                kind: l.kind,
                lag: lag_days(cal, s, l),
            };
            net.edge_links[at] = l.id;
        }
        net.offsets = offsets;
        net.preceded = has_predecessor;
        net
    }

    /// The borrowed view that [`schedule_network`] runs on.
    pub fn network(&self) -> Network<'_> {
        Network {
            project_start: self.project_start,
            durations: &self.durations,
            min_starts: &self.min_starts,
            max_starts: &self.max_starts,
            offsets: &self.offsets,
            edges: &self.edges,
        }
    }

    /// The node of an item.
    pub fn index_of(&self, id: ItemId) -> Option<usize> {
        self.items.binary_search(&id).ok()
    }
}

/// Finds the node of an item id while links are resolved: two lookups per link make
/// this the costliest step of a build, and a binary search over 100,000 items misses
/// the cache at nearly every probe. Ids come from one counter, so items' ids are
/// usually dense enough for a direct table; when they are not (a schedule where most
/// ids went to other kinds, or were deleted), the table would waste memory and binary
/// search is used instead.
enum NodeLookup {
    Table { first: u64, nodes: Vec<u32> },
    Search,
}

impl NodeLookup {
    const NONE: u32 = u32::MAX;

    fn new(items: &[ItemId]) -> NodeLookup {
        let (Some(first), Some(last)) = (items.first(), items.last()) else {
            return NodeLookup::Search;
        };
        let span = last.0 - first.0 + 1;
        if span > 8 * items.len() as u64 + 64 {
            return NodeLookup::Search;
        }
        let mut nodes = vec![Self::NONE; span as usize];
        for (i, id) in items.iter().enumerate() {
            nodes[(id.0 - first.0) as usize] = i as u32;
        }
        NodeLookup::Table {
            first: first.0,
            nodes,
        }
    }

    fn find(&self, items: &[ItemId], id: ItemId) -> Option<usize> {
        match self {
            NodeLookup::Table { first, nodes } => {
                let node = *nodes.get(usize::try_from(id.0.checked_sub(*first)?).ok()?)?;
                (node != Self::NONE).then_some(node as usize)
            }
            NodeLookup::Search => items.binary_search(&id).ok(),
        }
    }
}

/// The links of a schedule loop back on themselves: no date satisfies them all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CycleError {
    /// The items of one cycle in link order, starting with the smallest id: each is
    /// linked to the next, and the last one to the first.
    pub items: Vec<ItemId>,
}

impl fmt::Display for CycleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "links form a cycle through items ")?;
        for id in &self.items {
            write!(f, "{id} → ")?;
        }
        if let Some(first) = self.items.first() {
            write!(f, "{first}")?;
        }
        write!(
            f,
            ": remove or reverse one of the links between them to get a critical path"
        )
    }
}

impl std::error::Error for CycleError {}

/// The dates one item could take.
///
/// Early dates are where the item is planned as long as its links and lower-bound
/// constraints allow it, and otherwise the earliest dates that make them hold; an item
/// left where it is planned reads its planned dates exactly. Late dates are the latest
/// that keep the project end and every upper-bound constraint and deadline, before the
/// early dates when one cannot be kept. An item that lasts some working days
/// starts on its start date and finishes at the end of its finish date. An item that
/// lasts none (a milestone, or a bar planned on non-working days only) is a point
/// shown on one day, both dates equal: a milestone per [`milestone_date`], a bar on
/// the working day that starts there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemTiming {
    pub item: ItemId,
    pub kind: ItemKind,
    pub early_start: Date,
    /// Last day, inclusive.
    pub early_finish: Date,
    pub late_start: Date,
    /// Last day, inclusive.
    pub late_finish: Date,
    /// Working days the item can slip without moving the project end nor breaking an
    /// upper-bound constraint or a deadline (its own or a successor's); negative when
    /// one cannot be met, by as many working days.
    pub total_float: i64,
    /// Working days the item can slip without moving any successor's early dates nor
    /// the project end (never more than the total float).
    pub free_float: i64,
    /// Total float <= 0.
    pub critical: bool,
    /// Working days its links or lower-bound constraints (a pin, "finish no earlier
    /// than", "must start on") push it past its planned start (0 when the plan already
    /// respects them).
    pub pushed_by: i64,
}

/// The critical path of a schedule.
///
/// A schedule without bars nor milestones has no project dates: `project_start` and
/// `project_end` are `None`, `length_days` is 0 and the lists are empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CriticalPath {
    /// The first day of the project: the earliest early start.
    pub project_start: Option<Date>,
    /// The last day of the project once every link holds: the latest early finish.
    /// When no link is violated, the plan's own end (`planned_end`).
    pub project_end: Option<Date>,
    /// The last planned day of any bar or milestone: the end of the plan as drawn.
    pub planned_end: Option<Date>,
    /// Working days from the project start to its end.
    pub length_days: i64,
    /// One per bar and milestone, sorted by item id.
    pub items: Vec<ItemTiming>,
    /// The driving links: both ends critical and no slack between them. By link id.
    pub critical_links: Vec<LinkId>,
}

impl CriticalPath {
    /// The timing of an item.
    pub fn timing(&self, id: ItemId) -> Option<&ItemTiming> {
        let at = self.items.binary_search_by(|t| t.item.cmp(&id)).ok()?;
        Some(&self.items[at])
    }

    /// The critical bars, by id.
    pub fn critical_bars(&self) -> impl Iterator<Item = BarId> + '_ {
        self.items
            .iter()
            .filter(|t| t.critical && t.kind == ItemKind::Bar)
            .map(|t| BarId(t.item.0))
    }

    /// The critical items (bars and milestones), by id.
    pub fn critical_items(&self) -> impl Iterator<Item = ItemId> + '_ {
        self.items.iter().filter(|t| t.critical).map(|t| t.item)
    }
}

/// The critical path of a schedule on its own calendar.
pub fn critical_path(s: &Schedule) -> Result<CriticalPath, CycleError> {
    critical_path_on(s, &Calendar::for_schedule(s))
}

/// The network of a schedule and the engine's times on it (None without items).
fn solve(s: &Schedule, cal: &Calendar) -> Result<Option<(ItemNetwork, NetworkTimes)>, CycleError> {
    let net = ItemNetwork::build(s, cal);
    if net.items.is_empty() {
        return Ok(None);
    }
    let times = schedule_network(&net.network()).map_err(|c| CycleError {
        items: c.nodes.iter().map(|&i| net.items[i as usize]).collect(),
    })?;
    Ok(Some((net, times)))
}

/// Only the critical bars, by id: what a chart highlights. The same passes as
/// [`critical_path`] without turning every item's four times back into dates, which
/// is most of its cost where the model runs translated to JavaScript (the view).
pub fn critical_bars(s: &Schedule) -> Result<Vec<BarId>, CycleError> {
    let Some((net, times)) = solve(s, &Calendar::for_schedule(s))? else {
        return Ok(Vec::new());
    };
    Ok((0..net.items.len())
        .filter(|&i| net.kinds[i] == ItemKind::Bar && times.total_float(i) <= 0)
        .map(|i| BarId(net.items[i].0))
        .collect())
}

/// Only the critical bars and milestones, by id: [`critical_bars`] with milestones,
/// for what compares items without their times (`tracking::slippage`).
pub fn critical_items(s: &Schedule) -> Result<Vec<ItemId>, CycleError> {
    let Some((net, times)) = solve(s, &Calendar::for_schedule(s))? else {
        return Ok(Vec::new());
    };
    Ok((0..net.items.len())
        .filter(|&i| times.total_float(i) <= 0)
        .map(|i| net.items[i])
        .collect())
}

/// The critical path of a schedule on a calendar already built for it.
pub fn critical_path_on(s: &Schedule, cal: &Calendar) -> Result<CriticalPath, CycleError> {
    let Some((net, times)) = solve(s, cal)? else {
        return Ok(CriticalPath::default());
    };

    let d = &net.durations;
    // The project's first boundary: the earliest early start (the earliest planned
    // start may be pushed later by a link).
    let first = times
        .early_start
        .iter()
        .copied()
        .min()
        .unwrap_or(net.project_start);
    // An item at its planned start reads its planned dates; one moved reads the
    // calendar's dates of where it went.
    let dates = |i: usize, start: i64| {
        if start == net.planned_starts[i]
            && let Some(planned) = s.item_dates(net.items[i])
        {
            return planned;
        }
        if net.kinds[i] == ItemKind::Milestone {
            let day = milestone_date(cal, start, net.preceded[i], first);
            (day, day)
        } else if d[i] == 0 {
            let day = cal.date(start);
            (day, day)
        } else {
            (cal.date(start), cal.date_of_finish(start + d[i]))
        }
    };
    let critical: Vec<bool> = (0..net.items.len())
        .map(|i| times.total_float(i) <= 0)
        .collect();
    let items: Vec<ItemTiming> = (0..net.items.len())
        .map(|i| {
            let (early_start, early_finish) = dates(i, times.early_start[i]);
            let (late_start, late_finish) = dates(i, times.late_start[i]);
            ItemTiming {
                item: net.items[i],
                kind: net.kinds[i],
                early_start,
                early_finish,
                late_start,
                late_finish,
                total_float: times.total_float(i),
                free_float: times.free_float[i],
                critical: critical[i],
                pushed_by: times.early_start[i] - net.planned_starts[i],
            }
        })
        .collect();

    let mut critical_links = Vec::new();
    for i in (0..net.items.len()).filter(|&i| critical[i]) {
        let from = (times.early_start[i], times.early_start[i] + d[i]);
        let edges = net.offsets[i] as usize..net.offsets[i + 1] as usize;
        for (e, &link) in net.edges[edges.clone()].iter().zip(&net.edge_links[edges]) {
            let j = e.to as usize;
            let to = (times.early_start[j], times.early_start[j] + d[j]);
            if critical[j] && link_shortfall(e.kind, e.lag, from, to) >= 0 {
                critical_links.push(link);
            }
        }
    }
    crate::order::sort_by_u64(&mut critical_links, |l| l.0);

    Ok(CriticalPath {
        project_start: items.iter().map(|t| t.early_start).min(),
        project_end: items.iter().map(|t| t.early_finish).max(),
        planned_end: s.span().map(|(_, end)| end),
        length_days: times.project_end - first,
        items,
        critical_links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::*;
    use expect_test::{Expect, expect};
    use proptest::prelude::*;
    use std::fmt::Write as _;

    use crate::testkit::{add_bar, add_link, add_milestone, constrain, d, one_row as schedule};

    fn pin(s: &mut Schedule, id: u64, on: &str) {
        s.bars.iter_mut().find(|b| b.id == BarId(id)).unwrap().pin = Some(d(on));
    }

    /// One line for the project, then one per item.
    fn table(cp: &CriticalPath) -> String {
        let mut out = format!(
            "start {:?} end {:?} length {} critical links {:?}\n",
            cp.project_start, cp.project_end, cp.length_days, cp.critical_links
        );
        for t in &cp.items {
            let kind = match t.kind {
                ItemKind::Bar => "bar",
                ItemKind::Milestone => "milestone",
            };
            let _ = writeln!(
                out,
                "{:?} {kind} early {}..{} late {}..{} tf {} ff {}{}",
                t.item,
                t.early_start,
                t.early_finish,
                t.late_start,
                t.late_finish,
                t.total_float,
                t.free_float,
                if t.critical { " critical" } else { "" }
            );
        }
        out
    }

    fn check(s: &Schedule, expect: Expect) {
        expect.assert_eq(&table(&critical_path(s).unwrap()));
    }

    #[test]
    fn each_link_kind_with_positive_and_negative_lag() {
        // A: two days pinned on Monday 2026-11-09 (Mon 9, Tue 10); B: three days. The
        // holiday on Wednesday 11 sits right after A. Both are planned on Monday 2, so
        // the project starts there, leads have room before A, and B goes wherever
        // its link puts it.
        let cases = [
            (LinkKind::FS, 0, "2026-11-12", "2026-11-16", true),
            (LinkKind::FS, 1, "2026-11-13", "2026-11-17", true),
            (LinkKind::FS, -1, "2026-11-10", "2026-11-13", true),
            (LinkKind::SS, 2, "2026-11-12", "2026-11-16", true),
            (LinkKind::SS, -1, "2026-11-06", "2026-11-10", true),
            (LinkKind::FF, 0, "2026-11-06", "2026-11-10", true),
            (LinkKind::FF, 2, "2026-11-10", "2026-11-13", true),
            (LinkKind::FF, -1, "2026-11-05", "2026-11-09", false),
            (LinkKind::SF, 0, "2026-11-04", "2026-11-06", false),
            (LinkKind::SF, 3, "2026-11-09", "2026-11-12", true),
            (LinkKind::SF, -2, "2026-11-02", "2026-11-04", false),
            // The link would allow Friday 2026-10-30; the project start holds B back.
            (LinkKind::SF, -4, "2026-11-02", "2026-11-04", false),
        ];
        for (kind, lag, start, finish, critical) in cases {
            let mut s = schedule();
            add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
            pin(&mut s, 1, "2026-11-09");
            add_bar(&mut s, 2, "2026-11-02", "2026-11-04");
            add_link(&mut s, 3, 1, 2, kind, lag);
            let cp = critical_path(&s).unwrap();
            let (a, b) = (cp.timing(ItemId(1)).unwrap(), cp.timing(ItemId(2)).unwrap());
            let case = format!("{kind:?} lag {lag}");
            assert_eq!(
                (a.early_start, a.early_finish),
                (d("2026-11-09"), d("2026-11-10"))
            );
            assert_eq!(
                (b.early_start, b.early_finish),
                (d(start), d(finish)),
                "{case}"
            );
            assert!(a.critical, "{case}: A ends last or drives B");
            assert_eq!(b.critical, critical, "{case}");
            assert_eq!(cp.critical_links == [LinkId(3)], critical, "{case}");
            // Moved to its early dates, B satisfies the link as `risk` checks it.
            s.bars[0].start = a.early_start;
            s.bars[0].end = a.early_finish;
            s.bars[1].start = b.early_start;
            s.bars[1].end = b.early_finish;
            assert_eq!(
                crate::risk::violated_links(&s, &Calendar::for_schedule(&s)),
                []
            );
        }
    }

    #[test]
    fn lags_in_weeks_count_the_calendar_working_week() {
        let mut s = schedule();
        s.settings.time_unit = TimeUnit::Week;
        add_bar(&mut s, 1, "2026-11-09", "2026-11-10");
        add_bar(&mut s, 2, "2026-11-09", "2026-11-09");
        add_link(&mut s, 3, 1, 2, LinkKind::FS, 1);
        let cp = critical_path(&s).unwrap();
        // Five working days after the end of Tuesday 10, the holiday skipped.
        assert_eq!(cp.timing(ItemId(2)).unwrap().early_start, d("2026-11-19"));
    }

    #[test]
    fn floats_on_a_small_network() {
        // A(3) -> B(2) -> D(1) -> M, A -> C(4) -> D, F(1) -> B, E(2) alone; all FS.
        // Working days from Monday 2: 0 Mon 2 .. 4 Fri 6, 5 Mon 9, 6 Tue 10, 7 Thu 12.
        // Early: A [0,3) B [3,5) C [3,7) D [7,8) M 8 E [0,2) F [0,1); end 8.
        // Late: D [7,8) C [3,7) B [5,7) A [0,3) F [4,5) E [6,8). Each is planned on
        // its early dates, so the plan respects every link.
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-04");
        add_bar(&mut s, 2, "2026-11-05", "2026-11-06");
        add_bar(&mut s, 3, "2026-11-05", "2026-11-10");
        add_bar(&mut s, 4, "2026-11-12", "2026-11-12");
        add_milestone(&mut s, 5, "2026-11-12");
        add_bar(&mut s, 6, "2026-11-02", "2026-11-03");
        add_bar(&mut s, 7, "2026-11-02", "2026-11-02");
        for (id, from, to) in [(10, 1, 2), (11, 1, 3), (12, 2, 4), (13, 3, 4), (14, 4, 5)] {
            add_link(&mut s, id, from, to, LinkKind::FS, 0);
        }
        add_link(&mut s, 15, 7, 2, LinkKind::FS, 0);
        check(
            &s,
            expect![[r#"
                start Some(2026-11-02) end Some(2026-11-12) length 8 critical links [l11, l13, l14]
                i1 bar early 2026-11-02..2026-11-04 late 2026-11-02..2026-11-04 tf 0 ff 0 critical
                i2 bar early 2026-11-05..2026-11-06 late 2026-11-09..2026-11-10 tf 2 ff 2
                i3 bar early 2026-11-05..2026-11-10 late 2026-11-05..2026-11-10 tf 0 ff 0 critical
                i4 bar early 2026-11-12..2026-11-12 late 2026-11-12..2026-11-12 tf 0 ff 0 critical
                i5 milestone early 2026-11-12..2026-11-12 late 2026-11-12..2026-11-12 tf 0 ff 0 critical
                i6 bar early 2026-11-02..2026-11-03 late 2026-11-10..2026-11-12 tf 6 ff 6
                i7 bar early 2026-11-02..2026-11-02 late 2026-11-06..2026-11-06 tf 4 ff 2
            "#]],
        );
        let cp = critical_path(&s).unwrap();
        let bars: Vec<BarId> = cp.critical_bars().collect();
        assert_eq!(bars, [BarId(1), BarId(3), BarId(4)]);
        let items: Vec<ItemId> = cp.critical_items().collect();
        assert_eq!(items, [ItemId(1), ItemId(3), ItemId(4), ItemId(5)]);
        assert_eq!(critical_bars(&s).unwrap(), bars);
    }

    #[test]
    fn the_critical_bars_alone_are_those_of_the_whole_critical_path() {
        let mut empty = crate::demo::s4hana_migration();
        empty.bars.clear();
        empty.milestones.clear();
        empty.links.clear();
        for s in [
            crate::synth::generate(crate::synth::Spec::new(2_000)),
            crate::demo::s4hana_migration(),
            empty,
        ] {
            let whole: Vec<BarId> = critical_path(&s).unwrap().critical_bars().collect();
            assert_eq!(critical_bars(&s).unwrap(), whole);
        }
        // A cycle is the same error either way.
        let mut s = crate::demo::s4hana_migration();
        let (a, b) = (s.bars[0].id.0, s.bars[1].id.0);
        add_link(&mut s, 900, a, b, LinkKind::FS, 0);
        add_link(&mut s, 901, b, a, LinkKind::FS, 0);
        assert_eq!(
            critical_bars(&s).unwrap_err(),
            critical_path(&s).unwrap_err()
        );
    }

    #[test]
    fn milestones_in_the_chain() {
        // A(2) -FS-> M -FS+1-> B(1) -FF-> M2, and M -SS-> C(1). M sits at the end of
        // Tuesday 3; the holiday is out of reach. Everything after A is planned on
        // Monday 2, too early, so the links place it.
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_milestone(&mut s, 2, "2026-11-02");
        add_bar(&mut s, 3, "2026-11-02", "2026-11-02");
        add_bar(&mut s, 4, "2026-11-02", "2026-11-02");
        add_milestone(&mut s, 5, "2026-11-02");
        add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
        add_link(&mut s, 11, 2, 3, LinkKind::FS, 1);
        add_link(&mut s, 12, 2, 4, LinkKind::SS, 0);
        add_link(&mut s, 13, 3, 5, LinkKind::FF, 0);
        check(
            &s,
            expect![[r#"
                start Some(2026-11-02) end Some(2026-11-05) length 4 critical links [l10, l11, l13]
                i1 bar early 2026-11-02..2026-11-03 late 2026-11-02..2026-11-03 tf 0 ff 0 critical
                i2 milestone early 2026-11-03..2026-11-03 late 2026-11-03..2026-11-03 tf 0 ff 0 critical
                i3 bar early 2026-11-05..2026-11-05 late 2026-11-05..2026-11-05 tf 0 ff 0 critical
                i4 bar early 2026-11-04..2026-11-04 late 2026-11-05..2026-11-05 tf 1 ff 1
                i5 milestone early 2026-11-05..2026-11-05 late 2026-11-05..2026-11-05 tf 0 ff 0 critical
            "#]],
        );
    }

    #[test]
    fn pins_hold_bars_back_but_never_pull_them_earlier() {
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-02");
        // Planned on Monday 2, pinned on a Saturday: starts the next working day, later
        // than its link asks.
        add_bar(&mut s, 2, "2026-11-02", "2026-11-03");
        pin(&mut s, 2, "2026-11-07");
        // Pinned before its link's bound: the link wins.
        add_bar(&mut s, 3, "2026-11-02", "2026-11-02");
        pin(&mut s, 3, "2026-11-03");
        // Pinned before its planned start: the plan wins.
        add_bar(&mut s, 4, "2026-11-02", "2026-11-02");
        pin(&mut s, 4, "2026-10-26");
        add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
        add_link(&mut s, 11, 2, 3, LinkKind::FS, 0);
        let cp = critical_path(&s).unwrap();
        let start = |id| cp.timing(ItemId(id)).unwrap().early_start;
        assert_eq!(start(2), d("2026-11-09"));
        assert_eq!(start(3), d("2026-11-12"));
        assert_eq!(start(4), d("2026-11-02"));
        // The pin's gap is float for the bar before it, not for the pinned chain.
        assert_eq!(cp.timing(ItemId(1)).unwrap().free_float, 4);
        assert!(cp.timing(ItemId(2)).unwrap().critical);
        assert_eq!(cp.critical_links, [LinkId(11)]);
    }

    #[test]
    fn each_constraint_kind_and_a_deadline_bound_early_or_late_dates() {
        // A (Mon 2, Tue 3) -FS-> B (two days, planned Wed 4, Thu 5), beside C, a long
        // bar (Mon 2 to Fri 13, nine working days: the 11th is off) that ends the
        // project. Without a constraint B could slip 5 working days (to Thu 12).
        use ConstraintKind as K;
        /// (constraint on B, deadline of B, B's early start, its total float, critical)
        type Case<'a> = (Option<(K, &'a str)>, Option<&'a str>, &'a str, i64, bool);
        let cases: [Case<'_>; 11] = [
            (None, None, "2026-11-04", 5, false),
            // Lower bounds raise B's early start (and leave less float).
            (
                Some((K::StartNoEarlierThan, "2026-11-06")),
                None,
                "2026-11-06",
                3,
                false,
            ),
            (
                Some((K::FinishNoEarlierThan, "2026-11-10")),
                None,
                "2026-11-09",
                2,
                false,
            ),
            (
                Some((K::MustStartOn, "2026-11-06")),
                None,
                "2026-11-06",
                0,
                true,
            ),
            // Upper bounds cap its late start: no float left, or negative float when
            // the link already takes B past them (the link wins the early dates).
            (
                Some((K::StartNoLaterThan, "2026-11-04")),
                None,
                "2026-11-04",
                0,
                true,
            ),
            (
                Some((K::StartNoLaterThan, "2026-11-03")),
                None,
                "2026-11-04",
                -1,
                true,
            ),
            (
                Some((K::FinishNoLaterThan, "2026-11-05")),
                None,
                "2026-11-04",
                0,
                true,
            ),
            (
                Some((K::FinishNoLaterThan, "2026-11-04")),
                None,
                "2026-11-04",
                -1,
                true,
            ),
            (
                Some((K::MustStartOn, "2026-11-03")),
                None,
                "2026-11-04",
                -1,
                true,
            ),
            // A deadline never moves B, but it is a late finish, as in MS Project.
            (None, Some("2026-11-06"), "2026-11-04", 1, false),
            (None, Some("2026-11-04"), "2026-11-04", -1, true),
        ];
        for (constraint, deadline, early, float, critical) in cases {
            let mut s = schedule();
            add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
            add_bar(&mut s, 2, "2026-11-04", "2026-11-05");
            add_bar(&mut s, 3, "2026-11-02", "2026-11-13");
            add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
            if let Some((kind, on)) = constraint {
                constrain(&mut s, 2, kind, on);
            }
            s.bars[1].deadline = deadline.map(d);
            let case = format!("{constraint:?} {deadline:?}");
            let cp = critical_path(&s).unwrap();
            let (a, b) = (cp.timing(ItemId(1)).unwrap(), cp.timing(ItemId(2)).unwrap());
            assert_eq!(b.early_start, d(early), "{case}");
            assert_eq!((b.total_float, b.critical), (float, critical), "{case}");
            // The free float is never more than the total float, nor negative.
            assert_eq!(b.free_float, b.total_float.clamp(0, 5), "{case}");
            // Where A drives B (B at its link's bound), with no room on B, A has none
            // either; where a lower bound holds B later, A has that gap as float.
            if b.pushed_by == 0 {
                assert_eq!((a.critical, a.total_float), (float <= 0, float), "{case}");
            } else {
                assert!(a.total_float > b.total_float, "{case}");
            }
            assert_eq!(cp.project_end, Some(d("2026-11-13")), "{case}");
        }
    }

    #[test]
    fn a_milestone_constraint_sits_where_the_milestone_does() {
        // A (Mon 2, Tue 3) -FS-> M: the go-live sits at the end of its day, so "start
        // no earlier than Thursday 5" puts it at the end of Thursday 5, and "finish no
        // later than Tuesday 3" is met exactly.
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_milestone(&mut s, 2, "2026-11-03");
        add_bar(&mut s, 3, "2026-11-02", "2026-11-06");
        add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
        let timing = |s: &Schedule| critical_path(s).unwrap().timing(ItemId(2)).unwrap().clone();
        let mut snet = s.clone();
        constrain(
            &mut snet,
            2,
            ConstraintKind::StartNoEarlierThan,
            "2026-11-05",
        );
        let m = timing(&snet);
        assert_eq!(
            (m.early_start, m.pushed_by, m.total_float),
            (d("2026-11-05"), 2, 1)
        );
        let mut fnlt = s.clone();
        constrain(
            &mut fnlt,
            2,
            ConstraintKind::FinishNoLaterThan,
            "2026-11-03",
        );
        let m = timing(&fnlt);
        assert_eq!(
            (m.early_start, m.total_float, m.critical),
            (d("2026-11-03"), 0, true)
        );
        let mut late = s.clone();
        late.milestones[0].deadline = Some(d("2026-11-02"));
        assert_eq!(timing(&late).total_float, -1);
    }

    #[test]
    fn free_float_stops_at_the_project_end() {
        // A (Mon 2, Tue 3) -SS-> B pinned on Tue 3: the link leaves A a day of slack,
        // but A ends the project, so slipping A would move the end.
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_bar(&mut s, 2, "2026-11-03", "2026-11-03");
        pin(&mut s, 2, "2026-11-03");
        add_link(&mut s, 10, 1, 2, LinkKind::SS, 0);
        let cp = critical_path(&s).unwrap();
        let a = cp.timing(ItemId(1)).unwrap();
        assert_eq!((a.total_float, a.free_float, a.critical), (0, 0, true));
        assert_eq!(cp.critical_links, [] as [LinkId; 0]);
    }

    #[test]
    fn a_bar_on_days_off_only_is_a_point() {
        // A weekend bar planned before its link's bound is pushed to the working day
        // the bound starts (never the Friday before); one planned after it keeps its
        // planned days.
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_bar(&mut s, 2, "2026-10-31", "2026-11-01");
        add_bar(&mut s, 3, "2026-11-02", "2026-11-02");
        add_bar(&mut s, 4, "2026-11-07", "2026-11-08");
        add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
        add_link(&mut s, 11, 2, 3, LinkKind::FS, 0);
        add_link(&mut s, 12, 1, 4, LinkKind::FS, 0);
        let cp = critical_path(&s).unwrap();
        let pushed = cp.timing(ItemId(2)).unwrap();
        assert_eq!(
            (pushed.kind, pushed.early_start, pushed.early_finish),
            (ItemKind::Bar, d("2026-11-04"), d("2026-11-04"))
        );
        assert_eq!(cp.timing(ItemId(3)).unwrap().early_start, d("2026-11-04"));
        let kept = cp.timing(ItemId(4)).unwrap();
        assert_eq!(
            (kept.early_start, kept.early_finish, kept.pushed_by),
            (d("2026-11-07"), d("2026-11-08"), 0)
        );
        assert_eq!(cp.project_start, Some(d("2026-11-02")));
        // The weekend bar ends the plan: Monday 2 to Friday 6 in working time.
        assert_eq!(cp.project_end, Some(d("2026-11-08")));
        assert_eq!(cp.length_days, 5);
    }

    #[test]
    fn the_length_counts_from_the_first_early_start() {
        // The clean-up planned before the audit starts, but held by its SS +5 link:
        // the project still starts with the audit, and lasts what the plan lasts.
        let mut s = crate::demo::s4hana_migration();
        let cal = Calendar::for_schedule(&s);
        let b = s.bars.iter_mut().find(|b| b.id == BarId(14)).unwrap();
        (b.start, b.end) = crate::command::shifted_bar(&cal, b.start, b.end, -10);
        let cp = critical_path(&s).unwrap();
        assert_eq!(cp.project_start, Some(d("2026-11-02")));
        assert_eq!(cp.length_days, 34);
        assert_eq!(cp.timing(ItemId(14)).unwrap().early_start, d("2026-11-09"));
    }

    #[test]
    fn empty_and_milestone_only_schedules() {
        let s = schedule();
        let cp = critical_path(&s).unwrap();
        assert_eq!(cp, CriticalPath::default());
        assert_eq!((cp.project_start, cp.project_end), (None, None));

        let mut s = schedule();
        add_milestone(&mut s, 1, "2026-11-02");
        add_milestone(&mut s, 2, "2026-11-04");
        check(
            &s,
            expect![[r#"
                start Some(2026-11-02) end Some(2026-11-04) length 2 critical links []
                i1 milestone early 2026-11-02..2026-11-02 late 2026-11-04..2026-11-04 tf 2 ff 2
                i2 milestone early 2026-11-04..2026-11-04 late 2026-11-04..2026-11-04 tf 0 ff 0 critical
            "#]],
        );
    }

    #[test]
    fn links_to_missing_items_are_ignored() {
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_bar(&mut s, 2, "2026-11-02", "2026-11-02");
        add_link(&mut s, 10, 1, 99, LinkKind::FS, 0);
        add_link(&mut s, 11, 1001, 2, LinkKind::FS, 5);
        let cp = critical_path(&s).unwrap();
        assert_eq!(cp.timing(ItemId(2)).unwrap().early_start, d("2026-11-02"));
        assert_eq!(
            ItemNetwork::build(&s, &Calendar::for_schedule(&s)).edges,
            []
        );
    }

    fn cycle_of(s: &Schedule) -> Vec<u64> {
        critical_path(s)
            .unwrap_err()
            .items
            .iter()
            .map(|i| i.0)
            .collect()
    }

    #[test]
    fn a_cycle_names_exactly_its_items_in_order() {
        // 1 -> 4 feeds the cycle 3 -> 4 -> 5 -> 3, which feeds 6; 2 stands apart.
        let mut s = schedule();
        for id in 1..=6 {
            add_bar(&mut s, id, "2026-11-02", "2026-11-03");
        }
        for (id, from, to) in [(10, 1, 4), (11, 5, 3), (12, 3, 4), (13, 4, 5), (14, 5, 6)] {
            add_link(&mut s, id, from, to, LinkKind::FS, 0);
        }
        assert_eq!(cycle_of(&s), [3, 4, 5]);
        let err = critical_path(&s).unwrap_err();
        assert_eq!(
            err.to_string(),
            "links form a cycle through items 3 → 4 → 5 → 3: remove or reverse one of the \
             links between them to get a critical path"
        );

        // A negative lag does not make a loop schedulable, and milestones count too.
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_milestone(&mut s, 2, "2026-11-03");
        add_link(&mut s, 10, 1, 2, LinkKind::SS, -3);
        add_link(&mut s, 11, 2, 1, LinkKind::FF, -3);
        assert_eq!(cycle_of(&s), [1, 2]);

        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_bar(&mut s, 2, "2026-11-02", "2026-11-03");
        add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
        add_link(&mut s, 11, 2, 2, LinkKind::FS, 0);
        assert_eq!(cycle_of(&s), [2], "a bar linked to itself");

        // Two separate cycles: one of them, whole.
        let mut s = schedule();
        for id in 1..=4 {
            add_bar(&mut s, id, "2026-11-02", "2026-11-03");
        }
        for (id, from, to) in [(10, 4, 3), (11, 3, 4), (12, 2, 1), (13, 1, 2)] {
            add_link(&mut s, id, from, to, LinkKind::SS, 0);
        }
        let cycle = cycle_of(&s);
        assert!(cycle == [1, 2] || cycle == [3, 4], "{cycle:?}");
    }

    #[test]
    fn results_round_trip_through_json() {
        let mut s = schedule();
        add_bar(&mut s, 1, "2026-11-02", "2026-11-03");
        add_milestone(&mut s, 2, "2026-11-03");
        add_link(&mut s, 10, 1, 2, LinkKind::FS, 0);
        let cp = critical_path(&s).unwrap();
        let json = serde_json::to_string(&cp).unwrap();
        assert!(json.contains(r#""project_start":"2026-11-02""#), "{json}");
        assert!(json.contains(r#""kind":"milestone""#), "{json}");
        assert_eq!(serde_json::from_str::<CriticalPath>(&json).unwrap(), cp);
        let err = CycleError {
            items: vec![ItemId(3), ItemId(4)],
        };
        let back: CycleError = serde_json::from_str(&serde_json::to_string(&err).unwrap()).unwrap();
        assert_eq!(back, err);
    }

    #[test]
    fn early_and_late_dates_satisfy_every_link_of_a_generated_schedule() {
        let s = crate::synth::generate(crate::synth::Spec::new(2_000));
        let cal = Calendar::for_schedule(&s);
        let cp = critical_path_on(&s, &cal).unwrap();
        assert_eq!(cp.items.len(), s.bars.len() + s.milestones.len());
        assert!(cp.critical_bars().next().is_some());
        let moved = |late: bool| {
            let mut m = s.clone();
            for b in &mut m.bars {
                let t = cp.timing(b.id.into()).unwrap();
                (b.start, b.end) = if late {
                    (t.late_start, t.late_finish)
                } else {
                    (t.early_start, t.early_finish)
                };
                assert!(b.end <= cp.project_end.unwrap());
            }
            m
        };
        assert_eq!(crate::risk::violated_links(&moved(false), &cal), []);
        assert_eq!(crate::risk::violated_links(&moved(true), &cal), []);
    }

    /// A random network: `acyclic` keeps every edge going to a later node.
    fn network_strategy(
        acyclic: bool,
    ) -> impl Strategy<Value = (Vec<i64>, Vec<i64>, Vec<(u32, Edge)>)> {
        (1usize..12).prop_flat_map(move |n| {
            let kind = prop_oneof![
                Just(LinkKind::FS),
                Just(LinkKind::SS),
                Just(LinkKind::FF),
                Just(LinkKind::SF)
            ];
            let edge = (0..n as u32, 0..n as u32, kind, -4i64..5);
            let edges = proptest::collection::vec(edge, 0..3 * n).prop_map(move |raw| {
                // Sorted endpoints make a forward edge; a self-loop is a cycle, dropped.
                raw.into_iter()
                    .filter(|(a, b, _, _)| !acyclic || a != b)
                    .map(|(a, b, kind, lag)| {
                        let (from, to) = if acyclic {
                            (a.min(b), a.max(b))
                        } else {
                            (a, b)
                        };
                        (from, Edge { to, kind, lag })
                    })
                    .collect::<Vec<_>>()
            });
            (
                proptest::collection::vec(0i64..5, n),
                proptest::collection::vec(prop_oneof![Just(i64::MIN), -3i64..12], n),
                edges,
            )
        })
    }

    /// Compressed rows from (from, edge) pairs.
    fn compress(n: usize, pairs: &[(u32, Edge)]) -> (Vec<u32>, Vec<Edge>) {
        let mut sorted = pairs.to_vec();
        crate::order::sort_by_u64(&mut sorted, |(from, _)| u64::from(*from));
        let mut offsets = vec![0u32; n + 1];
        for (from, _) in &sorted {
            offsets[*from as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        (offsets, sorted.into_iter().map(|(_, e)| e).collect())
    }

    proptest! {
        #[test]
        fn passes_match_a_naive_fixed_point(
            (durations, min_starts, pairs) in network_strategy(true),
        ) {
            let n = durations.len();
            let (offsets, edges) = compress(n, &pairs);
            let none = vec![i64::MAX; n];
            let net = Network { project_start: 0, durations: &durations, min_starts: &min_starts, max_starts: &none, offsets: &offsets, edges: &edges };
            let times = schedule_network(&net).unwrap();
            let d = &durations;
            // Relax every edge until nothing moves, with each kind written out by hand.
            let mut es: Vec<i64> = min_starts.iter().map(|m| (*m).max(0)).collect();
            for _ in 0..=n {
                for (i, e) in &pairs {
                    let (i, j) = (*i as usize, e.to as usize);
                    let bound = match e.kind {
                        LinkKind::FS => es[i] + d[i] + e.lag,
                        LinkKind::SS => es[i] + e.lag,
                        LinkKind::FF => es[i] + d[i] + e.lag - d[j],
                        LinkKind::SF => es[i] + e.lag - d[j],
                    };
                    es[j] = es[j].max(bound);
                }
            }
            prop_assert_eq!(&times.early_start, &es);
            let end = (0..n).map(|i| es[i] + d[i]).fold(0, i64::max);
            prop_assert_eq!(times.project_end, end);
            let mut ls: Vec<i64> = (0..n).map(|i| end - d[i]).collect();
            for _ in 0..=n {
                for (i, e) in &pairs {
                    let (i, j) = (*i as usize, e.to as usize);
                    let bound = match e.kind {
                        LinkKind::FS => ls[j] - e.lag - d[i],
                        LinkKind::SS => ls[j] - e.lag,
                        LinkKind::FF => ls[j] + d[j] - e.lag - d[i],
                        LinkKind::SF => ls[j] + d[j] - e.lag,
                    };
                    ls[i] = ls[i].min(bound);
                }
            }
            prop_assert_eq!(&times.late_start, &ls);
            for i in 0..n {
                let slacks = pairs.iter().filter(|(f, _)| *f as usize == i).map(|(_, e)| {
                    let j = e.to as usize;
                    match e.kind {
                        LinkKind::FS => es[j] - (es[i] + d[i] + e.lag),
                        LinkKind::SS => es[j] - (es[i] + e.lag),
                        LinkKind::FF => es[j] + d[j] - (es[i] + d[i] + e.lag),
                        LinkKind::SF => es[j] + d[j] - (es[i] + e.lag),
                    }
                });
                let free = slacks.fold(end - es[i] - d[i], i64::min);
                prop_assert_eq!(times.free_float[i], free, "node {}", i);
                prop_assert!(0 <= free && free <= times.total_float(i), "node {}", i);
            }
            prop_assert!((0..n).any(|i| times.total_float(i) == 0));
        }

        #[test]
        fn upper_bounds_match_a_naive_fixed_point(
            (durations, min_starts, pairs) in network_strategy(true),
            caps in proptest::collection::vec(prop_oneof![Just(i64::MAX), -2i64..14], 12),
        ) {
            let n = durations.len();
            let (offsets, edges) = compress(n, &pairs);
            let max_starts = &caps[..n];
            let net = Network { project_start: 0, durations: &durations, min_starts: &min_starts, max_starts, offsets: &offsets, edges: &edges };
            let times = schedule_network(&net).unwrap();
            let unbounded = vec![i64::MAX; n];
            let free = schedule_network(&Network { max_starts: &unbounded, ..net }).unwrap();
            // The caps change no early date and no project end...
            prop_assert_eq!(&times.early_start, &free.early_start);
            prop_assert_eq!(times.project_end, free.project_end);
            // ... and the late starts are the naive fixed point from the capped ones.
            let d = &durations;
            let end = times.project_end;
            let mut ls: Vec<i64> = (0..n).map(|i| (end - d[i]).min(max_starts[i])).collect();
            for _ in 0..=n {
                for (i, e) in &pairs {
                    let (i, j) = (*i as usize, e.to as usize);
                    let bound = match e.kind {
                        LinkKind::FS => ls[j] - e.lag - d[i],
                        LinkKind::SS => ls[j] - e.lag,
                        LinkKind::FF => ls[j] + d[j] - e.lag - d[i],
                        LinkKind::SF => ls[j] + d[j] - e.lag,
                    };
                    ls[i] = ls[i].min(bound);
                }
            }
            prop_assert_eq!(&times.late_start, &ls);
            for (i, &cap) in max_starts.iter().enumerate() {
                prop_assert!(times.late_start[i] <= free.late_start[i]);
                let total = times.total_float(i);
                prop_assert!(0 <= times.free_float[i] && times.free_float[i] <= total.max(0), "node {}", i);
                prop_assert_eq!(times.free_float[i], free.free_float[i].min(total.max(0)));
                // A node whose cap is below its early start has negative float by as
                // much.
                if cap < times.early_start[i] {
                    prop_assert!(total <= cap - times.early_start[i]);
                }
            }
        }

        #[test]
        fn a_refused_network_holds_the_cycle_it_names(
            (durations, min_starts, pairs) in network_strategy(false),
        ) {
            let n = durations.len();
            let (offsets, edges) = compress(n, &pairs);
            let none = vec![i64::MAX; n];
            let net = Network { project_start: 0, durations: &durations, min_starts: &min_starts, max_starts: &none, offsets: &offsets, edges: &edges };
            let has_edge = |a: u32, b: u32| pairs.iter().any(|(f, e)| *f == a && e.to == b);
            // Whether any cycle exists, by depth-first search with three colours.
            fn cyclic(v: usize, adj: &[Vec<usize>], colour: &mut [u8]) -> bool {
                colour[v] = 1;
                for &w in &adj[v] {
                    if colour[w] == 1 || (colour[w] == 0 && cyclic(w, adj, colour)) {
                        return true;
                    }
                }
                colour[v] = 2;
                false
            }
            let mut adj = vec![Vec::new(); n];
            for (f, e) in &pairs {
                adj[*f as usize].push(e.to as usize);
            }
            let mut colour = vec![0u8; n];
            let has_cycle = (0..n).any(|v| colour[v] == 0 && cyclic(v, &adj, &mut colour));
            match schedule_network(&net) {
                Ok(_) => prop_assert!(!has_cycle),
                Err(NetworkCycle { nodes }) => {
                    prop_assert!(has_cycle);
                    prop_assert!(!nodes.is_empty());
                    let mut distinct = nodes.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    prop_assert_eq!(distinct.len(), nodes.len(), "{:?}", nodes);
                    prop_assert_eq!(nodes[0], distinct[0]);
                    for k in 0..nodes.len() {
                        let next = nodes[(k + 1) % nodes.len()];
                        prop_assert!(has_edge(nodes[k], next), "{:?}", nodes);
                    }
                }
            }
        }
    }
}

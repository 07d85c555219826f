//! The link graph as commands see it: whether an id is a link endpoint, the chain of
//! links that a new link would close into a cycle, and the whole-graph checks (no
//! duplicate link, no cycle) run after a list that adds many links and by
//! `validate_schedule`. The critical path (`cpm`) has its own traversal; this module
//! only answers "is the graph still a valid dependency graph".
//!
//! Items get dense node numbers (bars in id order, then milestones) so traversals run
//! over plain vectors: one pass to resolve the links, then linear work.

use crate::schedule::*;

use super::check::excerpt;

/// Whether an id names a bar or a milestone.
pub(super) fn is_item(s: &Schedule, id: ItemId) -> bool {
    s.bar(BarId(id.0)).is_some() || s.milestone(MilestoneId(id.0)).is_some()
}

/// Dense node numbers of items: bars in id order, then milestones.
enum Nodes {
    /// `table[id]` is the node of item `id`, or `NONE`: one array read per endpoint.
    Table(Vec<u32>),
    /// Ids too sparse for a table (explicit ids can be huge): binary searches.
    Search,
}

const NONE: u32 = u32::MAX;

impl Nodes {
    fn new(s: &Schedule) -> Nodes {
        let items = s.bars.len() + s.milestones.len();
        let span = usize::try_from(s.next_id).unwrap_or(usize::MAX);
        if span > 8 * (items + s.links.len()) + 4_096 {
            return Nodes::Search;
        }
        let mut table = vec![NONE; span.max(1)];
        let ids = s.bars.iter().map(|b| b.id.0);
        for (n, id) in ids.chain(s.milestones.iter().map(|m| m.id.0)).enumerate() {
            // Ids are below `next_id` in a valid schedule; anything else stays unknown.
            if let Some(slot) = usize::try_from(id).ok().and_then(|i| table.get_mut(i)) {
                *slot = n as u32;
            }
        }
        Nodes::Table(table)
    }

    fn get(&self, s: &Schedule, id: ItemId) -> Option<u32> {
        match self {
            // `try_from`: on wasm32 a large id must not wrap onto a small slot.
            Nodes::Table(t) => usize::try_from(id.0)
                .ok()
                .and_then(|i| t.get(i))
                .copied()
                .filter(|n| *n != NONE),
            Nodes::Search => {
                if let Some(i) = find_by(&s.bars, BarId(id.0), |b| b.id) {
                    return Some(i as u32);
                }
                find_by(&s.milestones, MilestoneId(id.0), |m| m.id)
                    .map(|i| (s.bars.len() + i) as u32)
            }
        }
    }
}

fn item(s: &Schedule, node: u32) -> ItemId {
    let n = node as usize;
    match s.bars.get(n) {
        Some(b) => b.id.into(),
        None => s.milestones[n - s.bars.len()].id.into(),
    }
}

/// One link seen from its predecessor.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    to: u32,
    kind: u8,
    /// The link's position in `s.links`.
    link: u32,
}

/// The links as adjacency in compressed rows: the links leaving node `v` are
/// `out[start[v]..start[v + 1]]`. Links with an unknown endpoint (only possible in data
/// that `validate_schedule` refuses anyway) are left out.
struct Graph {
    start: Vec<u32>,
    out: Vec<Edge>,
}

impl Graph {
    fn new(s: &Schedule) -> Graph {
        Graph::with_nodes(s, &Nodes::new(s))
    }

    fn with_nodes(s: &Schedule, nodes: &Nodes) -> Graph {
        let n = s.bars.len() + s.milestones.len();
        let ends: Vec<(u32, u32)> = s
            .links
            .iter()
            .map(|l| match (nodes.get(s, l.from), nodes.get(s, l.to)) {
                (Some(a), Some(b)) => (a, b),
                _ => (NONE, NONE),
            })
            .collect();
        let mut start = vec![0u32; n + 1];
        for &(a, _) in &ends {
            if a != NONE {
                start[a as usize + 1] += 1;
            }
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let blank = Edge {
            to: 0,
            kind: 0,
            link: 0,
        };
        let mut out = vec![blank; start[n] as usize];
        for (i, (&(a, b), l)) in ends.iter().zip(&s.links).enumerate() {
            if a != NONE {
                out[fill[a as usize] as usize] = Edge {
                    to: b,
                    kind: l.kind as u8,
                    link: i as u32,
                };
                fill[a as usize] += 1;
            }
        }
        Graph { start, out }
    }

    fn nodes(&self) -> usize {
        self.start.len() - 1
    }

    fn of(&self, v: u32) -> &[Edge] {
        &self.out[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    /// Two links with the same ends and kind: (the later one's position in `s.links`,
    /// the earlier one's position). Sorts each node's links in place.
    fn duplicate(&mut self) -> Option<(usize, usize)> {
        let mut found: Option<(usize, usize)> = None;
        for v in 0..self.nodes() {
            let (a, b) = (self.start[v] as usize, self.start[v + 1] as usize);
            let links = &mut self.out[a..b];
            links.sort_unstable();
            for w in links.windows(2) {
                if (w[0].to, w[0].kind) == (w[1].to, w[1].kind) {
                    let (early, late) = (w[0].link.min(w[1].link), w[0].link.max(w[1].link));
                    // Report the pair whose later link comes first, as a scan would.
                    if found.is_none_or(|(l, _)| (late as usize) < l) {
                        found = Some((late as usize, early as usize));
                    }
                }
            }
        }
        found
    }

    /// The nodes that Kahn's algorithm cannot order (they lie on or behind a cycle),
    /// as their remaining in-degrees; `None` when every node is ordered.
    fn unordered(&self) -> Option<Vec<u32>> {
        let n = self.nodes();
        let mut indegree = vec![0u32; n];
        for e in &self.out {
            indegree[e.to as usize] += 1;
        }
        let mut ready: Vec<u32> = (0..n as u32)
            .filter(|v| indegree[*v as usize] == 0)
            .collect();
        let mut ordered = 0;
        while let Some(v) = ready.pop() {
            ordered += 1;
            for e in self.of(v) {
                indegree[e.to as usize] -= 1;
                if indegree[e.to as usize] == 0 {
                    ready.push(e.to);
                }
            }
        }
        (ordered < n).then_some(indegree)
    }
}

/// A chain of existing links from `start` to `goal` (both included), if there is one.
/// Adding a link `goal -> start` would close it into a cycle.
pub(super) fn path(s: &Schedule, start: ItemId, goal: ItemId) -> Option<Vec<ItemId>> {
    // Most new links touch an item with no outgoing or no incoming link yet: one scan
    // without lookups settles those before any graph is built.
    let leaves = s.links.iter().any(|l| l.from == start);
    let enters = s.links.iter().any(|l| l.to == goal);
    if !leaves || !enters {
        return None;
    }
    let nodes = Nodes::new(s);
    let (a, b) = (nodes.get(s, start)?, nodes.get(s, goal)?);
    let graph = Graph::new(s);
    let mut parent = vec![NONE; graph.nodes()];
    parent[a as usize] = a;
    let mut stack = vec![a];
    while let Some(v) = stack.pop() {
        if v == b {
            let mut chain = vec![item(s, v)];
            let mut at = v;
            while at != a {
                at = parent[at as usize];
                chain.push(item(s, at));
            }
            chain.reverse();
            return Some(chain);
        }
        for e in graph.of(v) {
            if parent[e.to as usize] == NONE {
                parent[e.to as usize] = v;
                stack.push(e.to);
            }
        }
    }
    None
}

/// One cycle of the link graph, its items in link order from the smallest id, if the
/// graph has any.
pub(super) fn cycle(s: &Schedule) -> Option<Vec<ItemId>> {
    let graph = Graph::new(s);
    let indegree = graph.unordered()?;
    // Every node left has a predecessor that is left too: walking predecessors must
    // come back to a node already walked, and the loop from there is a cycle.
    let left = |v: u32| indegree[v as usize] > 0;
    let mut pred = vec![NONE; graph.nodes()];
    for v in 0..graph.nodes() as u32 {
        if left(v) {
            for e in graph.of(v) {
                if left(e.to) {
                    pred[e.to as usize] = v;
                }
            }
        }
    }
    let mut at = (0..graph.nodes() as u32).find(|v| left(*v))?;
    let mut walked_at = vec![NONE; graph.nodes()];
    let mut walk: Vec<u32> = Vec::new();
    while walked_at[at as usize] == NONE {
        walked_at[at as usize] = walk.len() as u32;
        walk.push(at);
        at = pred[at as usize];
        if at == NONE {
            return None;
        }
    }
    let mut cycle: Vec<ItemId> = walk[walked_at[at as usize] as usize..]
        .iter()
        .map(|v| item(s, *v))
        .collect();
    // The walk went against the links; a cycle reads along them, and starts at its
    // smallest id so that the same cycle is always told the same way.
    cycle.reverse();
    let first = (0..cycle.len()).min_by_key(|i| cycle[*i])?;
    cycle.rotate_left(first);
    Some(cycle)
}

/// Whether the links have no duplicate and no cycle: one graph, two linear checks.
pub(super) fn links_sound(s: &Schedule) -> bool {
    let mut graph = Graph::new(s);
    graph.duplicate().is_none() && graph.unordered().is_none()
}

/// What can be wrong with the links of a schedule as a whole.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum LinkFault {
    /// The link at this position has an end that is no bar and no milestone.
    UnknownEnd {
        link: usize,
        to: bool,
    },
    /// The link at `late` repeats the one at `early`.
    Duplicate {
        late: usize,
        early: usize,
    },
    Cycle(Vec<ItemId>),
}

/// The first problem of the links as a whole, for `validate_schedule`: endpoints,
/// duplicates, then cycles, all on one graph.
pub(super) fn audit(s: &Schedule) -> Result<(), LinkFault> {
    let nodes = Nodes::new(s);
    for (i, l) in s.links.iter().enumerate() {
        for (end, to) in [(l.from, false), (l.to, true)] {
            if nodes.get(s, end).is_none() {
                return Err(LinkFault::UnknownEnd { link: i, to });
            }
        }
    }
    let mut graph = Graph::with_nodes(s, &nodes);
    if let Some((late, early)) = graph.duplicate() {
        return Err(LinkFault::Duplicate { late, early });
    }
    if graph.unordered().is_some() {
        return cycle(s).map_or(Ok(()), |c| Err(LinkFault::Cycle(c)));
    }
    Ok(())
}

/// Items with their labels, cut short, for an error that names a cycle.
pub(super) fn labelled(s: &Schedule, items: Vec<ItemId>) -> Vec<(ItemId, String)> {
    items
        .into_iter()
        .map(|id| (id, excerpt(s.item_label(id).unwrap_or(""), 60)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::testkit::{bar, link, sample};

    #[test]
    fn finds_a_path_and_a_cycle() {
        let mut s = sample();
        // sample(): bars 10 -> 11 -> 12 by links; milestone 20.
        assert_eq!(
            path(&s, ItemId(10), ItemId(12)),
            Some(vec![ItemId(10), ItemId(11), ItemId(12)])
        );
        assert_eq!(path(&s, ItemId(12), ItemId(10)), None);
        assert_eq!(cycle(&s), None);
        s.links.push(link(99, 12, 10));
        assert_eq!(cycle(&s), Some(vec![ItemId(10), ItemId(11), ItemId(12)]));
    }

    #[test]
    fn a_cycle_behind_a_tail_is_found() {
        let mut s = sample();
        s.bars.push(bar(40, "2026-11-02", "2026-11-03"));
        s.links.push(link(90, 12, 11));
        s.links.push(link(91, 11, 40));
        let c = cycle(&s).expect("11 -> 12 -> 11");
        assert_eq!(c, vec![ItemId(11), ItemId(12)]);
    }

    #[test]
    fn duplicates_are_same_ends_and_kind() {
        let mut s = sample();
        assert_eq!(audit(&s), Ok(()));
        let mut l = link(98, 10, 11);
        l.kind = LinkKind::SS;
        s.links.push(l);
        assert_eq!(audit(&s), Ok(()), "another kind is not a duplicate");
        s.links.push(link(99, 10, 11));
        assert_eq!(audit(&s), Err(LinkFault::Duplicate { late: 4, early: 0 }));
        assert!(!links_sound(&s));
        s.links[4].to = ItemId(5);
        assert_eq!(audit(&s), Err(LinkFault::UnknownEnd { link: 4, to: true }));
    }

    #[test]
    fn sparse_ids_use_binary_searches() {
        let mut s = sample();
        s.links.push(link(crate::command::MAX_ID - 1, 12, 10));
        s.next_id = crate::command::MAX_ID;
        assert!(matches!(Nodes::new(&s), Nodes::Search));
        assert_eq!(cycle(&s), Some(vec![ItemId(10), ItemId(11), ItemId(12)]));
    }
}

//! The state of one `apply` run: the schedule being changed, the inverse commands of
//! the current command, lookups that answer with a typed fault, id allocation, and
//! inserts deferred so that a run of re-adds stays linear.
//!
//! Why deferred inserts: bars, links and the other collections are sorted by id, and
//! the undo of a large delete re-adds thousands of items with old ids, each of which
//! belongs in the middle of a 100,000-item vector. Inserting them one by one would
//! shift the vector each time. Instead, an item whose id is not the largest yet waits
//! in a small sorted buffer, and the buffer is merged in one pass before any command
//! that could read that collection (every command except a further add of the same
//! kind, which only needs to know whether its id is free).

use crate::schedule::*;

use super::check::MAX_ID;
use super::error::{Kind, Problem};
use super::{Command, graph};

/// A command's failure before it is numbered: the field at fault and why.
#[derive(Debug)]
pub(super) struct Fault {
    pub(super) field: &'static str,
    pub(super) problem: Problem,
}

pub(super) type Res<T> = Result<T, Fault>;

/// Attaches a field name to a field-level problem.
pub(super) trait At<T> {
    fn at(self, field: &'static str) -> Res<T>;
}

impl<T> At<T> for Result<T, Problem> {
    fn at(self, field: &'static str) -> Res<T> {
        self.map_err(|problem| Fault { field, problem })
    }
}

pub(super) fn fault<T>(field: &'static str, problem: Problem) -> Res<T> {
    Err(Fault { field, problem })
}

/// How link additions are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Each added link is checked for duplicates and cycles as it comes.
    Immediate,
    /// Links are checked as a whole at the end of the list, and before any command
    /// that could hide a problem an earlier addition made (see the module `command`).
    Deferred,
    /// Undoing a failed list: the inverses restore a state that was valid, so the
    /// link graph needs no check.
    Rollback,
}

/// Items waiting to be merged into their sorted collections.
#[derive(Debug, Default)]
struct Pending {
    bars: Vec<Bar>,
    milestones: Vec<Milestone>,
    links: Vec<Link>,
    actions: Vec<Action>,
    members: Vec<Member>,
    absences: Vec<Absence>,
}

#[derive(Debug)]
pub(super) struct Ctx<'a> {
    pub(super) s: &'a mut Schedule,
    pub(super) mode: Mode,
    /// The inverse commands of the command being applied, in the order they undo it.
    inverse: Vec<Command>,
    pending: Pending,
    /// The row ids, sorted, built on first need and dropped when rows are deleted: rows
    /// are kept in display order, so without this every bar added to a 10,000-row
    /// schedule would scan them.
    row_ids: Option<Vec<RowId>>,
    graph_changed: bool,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(s: &'a mut Schedule, mode: Mode) -> Ctx<'a> {
        Ctx {
            s,
            mode,
            inverse: Vec::new(),
            pending: Pending::default(),
            row_ids: None,
            graph_changed: false,
        }
    }

    /// Records a command that undoes part of the current command. Inverses are applied
    /// in the order they are recorded.
    pub(super) fn undo_with(&mut self, cmd: Command) {
        self.inverse.push(cmd);
    }

    pub(super) fn take_inverse(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.inverse)
    }

    /// Whether duplicate and cycle checks run now, for each link.
    pub(super) fn checks_links_now(&self) -> bool {
        self.mode == Mode::Immediate
    }

    /// Notes that a link was added without being checked yet.
    pub(super) fn defer_link_check(&mut self) {
        if self.mode == Mode::Deferred {
            self.graph_changed = true;
        }
    }

    /// Whether links were added since the graph was last checked.
    pub(super) fn graph_changed(&self) -> bool {
        self.graph_changed
    }

    pub(super) fn graph_checked(&mut self) {
        self.graph_changed = false;
    }

    // ---- Ids.

    /// The id a new item gets: the explicit one if valid and free, else the next one.
    /// Does not claim it: see [`Ctx::claim`].
    pub(super) fn new_id(&mut self, explicit: Option<u64>) -> Res<u64> {
        let Some(id) = explicit else {
            return Ok(self.s.next_id);
        };
        if id == 0 || id > MAX_ID {
            return fault("id", Problem::BadId { id });
        }
        self.index_rows();
        if let Some(kind) = self.kind_of(id) {
            return fault("id", Problem::IdInUse { id, kind });
        }
        Ok(id)
    }

    /// Marks an id as handed out: `next_id` grows past it.
    pub(super) fn claim(&mut self, id: u64) {
        self.s.next_id = self.s.next_id.max(id + 1);
    }

    /// The kind of the item with this id, if any (deferred inserts included).
    pub(super) fn kind_of(&self, id: u64) -> Option<Kind> {
        let s = &*self.s;
        let p = &self.pending;
        if s.groups.iter().any(|g| g.id.0 == id) {
            Some(Kind::Group)
        } else if self.has_row(RowId(id)) {
            Some(Kind::Row)
        } else if sorted_has(&s.bars, &p.bars, id, |b| b.id.0) {
            Some(Kind::Bar)
        } else if sorted_has(&s.milestones, &p.milestones, id, |m| m.id.0) {
            Some(Kind::Milestone)
        } else if sorted_has(&s.links, &p.links, id, |l| l.id.0) {
            Some(Kind::Link)
        } else if sorted_has(&s.actions, &p.actions, id, |a| a.id.0) {
            Some(Kind::Action)
        } else if sorted_has(&s.members, &p.members, id, |m| m.id.0) {
            Some(Kind::Member)
        } else if sorted_has(&s.absences, &p.absences, id, |a| a.id.0) {
            Some(Kind::Absence)
        } else {
            None
        }
    }

    fn not_found<T>(&self, field: &'static str, kind: Kind, id: u64) -> Res<T> {
        let actual = self.kind_of(id);
        fault(field, Problem::NotFound { kind, id, actual })
    }

    // ---- Lookups, each answering with a fault that names the field.

    pub(super) fn group_pos(&self, field: &'static str, id: GroupId) -> Res<usize> {
        match self.s.groups.iter().position(|g| g.id == id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Group, id.0),
        }
    }

    fn has_row(&self, id: RowId) -> bool {
        match &self.row_ids {
            Some(ids) => ids.binary_search(&id).is_ok(),
            None => self.s.rows.iter().any(|r| r.id == id),
        }
    }

    fn index_rows(&mut self) {
        if self.row_ids.is_none() {
            let mut ids: Vec<RowId> = self.s.rows.iter().map(|r| r.id).collect();
            ids.sort_unstable();
            self.row_ids = Some(ids);
        }
    }

    /// Checks that a row exists (a binary search once the row index is built).
    pub(super) fn row_exists(&mut self, field: &'static str, id: RowId) -> Res<()> {
        self.index_rows();
        if self.has_row(id) {
            Ok(())
        } else {
            self.not_found(field, Kind::Row, id.0)
        }
    }

    /// The position of a row in display order.
    pub(super) fn row_pos(&self, field: &'static str, id: RowId) -> Res<usize> {
        match self.s.rows.iter().position(|r| r.id == id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Row, id.0),
        }
    }

    /// To call when a row is added.
    pub(super) fn row_added(&mut self, id: RowId) {
        if let Some(ids) = &mut self.row_ids {
            let at = ids.partition_point(|x| *x < id);
            ids.insert(at, id);
        }
    }

    /// To call when rows are deleted.
    pub(super) fn rows_deleted(&mut self) {
        self.row_ids = None;
    }

    pub(super) fn bar_pos(&self, field: &'static str, id: BarId) -> Res<usize> {
        match find_by(&self.s.bars, id, |b| b.id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Bar, id.0),
        }
    }

    pub(super) fn milestone_pos(&self, field: &'static str, id: MilestoneId) -> Res<usize> {
        match find_by(&self.s.milestones, id, |m| m.id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Milestone, id.0),
        }
    }

    /// Checks that a link endpoint is a bar or a milestone.
    pub(super) fn item_exists(&self, field: &'static str, id: ItemId) -> Res<()> {
        if graph::is_item(self.s, id) {
            Ok(())
        } else {
            self.not_found(field, Kind::Item, id.0)
        }
    }

    pub(super) fn link_pos(&self, field: &'static str, id: LinkId) -> Res<usize> {
        match find_by(&self.s.links, id, |l| l.id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Link, id.0),
        }
    }

    pub(super) fn action_pos(&self, field: &'static str, id: ActionId) -> Res<usize> {
        match find_by(&self.s.actions, id, |a| a.id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Action, id.0),
        }
    }

    pub(super) fn member_pos(&self, field: &'static str, id: MemberId) -> Res<usize> {
        match find_by(&self.s.members, id, |m| m.id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Member, id.0),
        }
    }

    /// Checks an optional member reference.
    pub(super) fn member_ref(&self, field: &'static str, id: Option<MemberId>) -> Res<()> {
        match id {
            Some(m) => self.member_pos(field, m).map(|_| ()),
            None => Ok(()),
        }
    }

    pub(super) fn absence_pos(&self, field: &'static str, id: AbsenceId) -> Res<usize> {
        match find_by(&self.s.absences, id, |a| a.id) {
            Some(i) => Ok(i),
            None => self.not_found(field, Kind::Absence, id.0),
        }
    }

    // ---- Inserts into the collections sorted by id.

    pub(super) fn insert_bar(&mut self, bar: Bar) {
        insert_sorted(&mut self.s.bars, &mut self.pending.bars, bar, |b| b.id.0);
    }

    pub(super) fn insert_milestone(&mut self, m: Milestone) {
        insert_sorted(
            &mut self.s.milestones,
            &mut self.pending.milestones,
            m,
            |m| m.id.0,
        );
    }

    pub(super) fn insert_link(&mut self, l: Link) {
        insert_sorted(&mut self.s.links, &mut self.pending.links, l, |l| l.id.0);
    }

    pub(super) fn insert_action(&mut self, a: Action) {
        insert_sorted(&mut self.s.actions, &mut self.pending.actions, a, |a| {
            a.id.0
        });
    }

    pub(super) fn insert_member(&mut self, m: Member) {
        insert_sorted(&mut self.s.members, &mut self.pending.members, m, |m| {
            m.id.0
        });
    }

    pub(super) fn insert_absence(&mut self, a: Absence) {
        insert_sorted(&mut self.s.absences, &mut self.pending.absences, a, |a| {
            a.id.0
        });
    }

    /// Merges every deferred insert except those of `keep` (the kind the next command
    /// adds, which may keep accumulating).
    pub(super) fn flush_for(&mut self, keep: Option<Kind>) {
        let s = &mut *self.s;
        let p = &mut self.pending;
        if keep != Some(Kind::Bar) {
            merge_sorted(&mut s.bars, &mut p.bars, |b| b.id.0);
        }
        if keep != Some(Kind::Milestone) {
            merge_sorted(&mut s.milestones, &mut p.milestones, |m| m.id.0);
        }
        if keep != Some(Kind::Link) {
            merge_sorted(&mut s.links, &mut p.links, |l| l.id.0);
        }
        if keep != Some(Kind::Action) {
            merge_sorted(&mut s.actions, &mut p.actions, |a| a.id.0);
        }
        if keep != Some(Kind::Member) {
            merge_sorted(&mut s.members, &mut p.members, |m| m.id.0);
        }
        if keep != Some(Kind::Absence) {
            merge_sorted(&mut s.absences, &mut p.absences, |a| a.id.0);
        }
    }

    /// Merges deferred links: a link check reads every link.
    pub(super) fn flush_links(&mut self) {
        merge_sorted(&mut self.s.links, &mut self.pending.links, |l| l.id.0);
    }

    pub(super) fn flush_all(&mut self) {
        self.flush_for(None);
    }
}

fn sorted_has<T>(main: &[T], pending: &[T], id: u64, key: impl Fn(&T) -> u64) -> bool {
    let found = |v: &[T]| v.binary_search_by(|x| key(x).cmp(&id)).is_ok();
    found(main) || found(pending)
}

/// Appends an item whose id is the largest; defers any other (see the module header).
fn insert_sorted<T>(main: &mut Vec<T>, pending: &mut Vec<T>, item: T, key: impl Fn(&T) -> u64) {
    let id = key(&item);
    if main.last().is_none_or(|last| key(last) < id) {
        main.push(item);
    } else {
        let at = pending.partition_point(|x| key(x) < id);
        pending.insert(at, item);
    }
}

/// Merges the sorted `pending` into the sorted `main` in one linear pass.
fn merge_sorted<T>(main: &mut Vec<T>, pending: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    match pending.len() {
        0 => {}
        // A few items: shifting the tail in place is cheaper than rebuilding.
        1..=4 => {
            for item in pending.drain(..) {
                let at = main.partition_point(|x| key(x) < key(&item));
                main.insert(at, item);
            }
        }
        _ => {
            let old = std::mem::take(main);
            let mut out = Vec::with_capacity(old.len() + pending.len());
            let mut a = old.into_iter().peekable();
            let mut b = pending.drain(..).peekable();
            loop {
                let take_a = match (a.peek(), b.peek()) {
                    (Some(x), Some(y)) => key(x) < key(y),
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (None, None) => break,
                };
                out.extend(if take_a { a.next() } else { b.next() });
            }
            *main = out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_ids_sorted_for_small_and_large_buffers() {
        for n in [1usize, 3, 5, 40] {
            let mut main: Vec<u64> = (0..100).map(|i| i * 2).collect();
            let mut pending: Vec<u64> = Vec::new();
            for k in 0..n as u64 {
                insert_sorted(&mut main, &mut pending, (k * 37 % 100) * 2 + 1, |x| *x);
            }
            insert_sorted(&mut main, &mut pending, 1_000, |x| *x);
            assert_eq!(
                main.last(),
                Some(&1_000),
                "the largest id is appended at once"
            );
            merge_sorted(&mut main, &mut pending, |x| *x);
            assert!(pending.is_empty());
            assert_eq!(main.len(), 101 + n);
            assert!(main.windows(2).all(|w| w[0] < w[1]), "n = {n}: {main:?}");
        }
    }
}

//! What a command reads and changes, as item ids: how the server decides whether an undo
//! (or a redo) would overwrite or destroy someone else's later work.
//!
//! Ids are unique across kinds (see `schedule`), so a plain `u64` names one item. The
//! schedule's own fields (name, notes, settings) count as one pseudo-item,
//! [`SCHEDULE_FIELDS`] (0, an id no item ever has).
//!
//! Three sets, because "touched" alone would refuse too much: two people adding bars to
//! the same row both read that row, yet undoing one add cannot harm the other.
//! - `changed`: the items the command creates, edits or deletes. A cascade is not named
//!   by the command itself (`delete_periods` names its bars, not their links); it is
//!   named by the inverse (which re-adds every link and action), so a journal entry's
//!   footprint is that of its commands AND its inverse.
//! - `read`: the items it only refers to (a new bar's row, a link's two ends, an
//!   action's assignee). The calendar is not counted: moves store explicit dates in
//!   their inverses, so a later calendar change never makes an undo wrong.
//! - `added`: the items it creates. Undoing a creation deletes the item, and with it
//!   whatever hangs on it, so a later reader of an added item is affected too.
//!
//! `replace_schedule` swaps everything: its footprint says `whole`, which conflicts with
//! any other write.

use crate::schedule::*;

use super::Command;

/// The pseudo-id of the schedule's own fields (name, notes, settings).
pub const SCHEDULE_FIELDS: u64 = 0;

/// The ids a command reads, changes and adds (each sorted, without duplicates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub read: Vec<u64>,
    pub changed: Vec<u64>,
    /// Created by the command; a subset of `changed`.
    pub added: Vec<u64>,
    /// The command replaces the whole schedule: it touches everything.
    pub whole: bool,
}

impl Footprint {
    /// Adds another footprint to this one (the footprint of a list of commands).
    pub fn extend(&mut self, other: Footprint) {
        self.read.extend(other.read);
        self.changed.extend(other.changed);
        self.added.extend(other.added);
        self.whole |= other.whole;
        for v in [&mut self.read, &mut self.changed, &mut self.added] {
            v.sort_unstable();
            v.dedup();
        }
    }

    /// The footprint of a list of commands.
    pub fn of<'a>(cmds: impl IntoIterator<Item = &'a Command>) -> Footprint {
        let mut all = Footprint::default();
        for c in cmds {
            let f = c.footprint();
            all.read.extend(f.read);
            all.changed.extend(f.changed);
            all.added.extend(f.added);
            all.whole |= f.whole;
        }
        for v in [&mut all.read, &mut all.changed, &mut all.added] {
            v.sort_unstable();
            v.dedup();
        }
        all
    }

    /// Whether undoing (or redoing) the work of `self` would overwrite or destroy the
    /// later work of `later`: both change one item, or `later` reads or changes an item
    /// that `self` created (an undo deletes it) — or either replaced the whole schedule.
    /// Returns the first such item (`None` inside `Some` for a whole-schedule clash).
    pub fn clash(&self, later: &Footprint) -> Option<Option<u64>> {
        if self.whole || later.whole {
            return Some(None);
        }
        if let Some(id) = first_common(&self.changed, &later.changed) {
            return Some(Some(id));
        }
        first_common(&self.added, &later.read).map(Some)
    }
}

/// The smallest id in two sorted lists.
fn first_common(a: &[u64], b: &[u64]) -> Option<u64> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return Some(a[i]),
        }
    }
    None
}

/// Builds a footprint from its parts.
fn fp(changed: &[u64], read: &[Option<u64>], added: Option<u64>) -> Footprint {
    let mut f = Footprint {
        read: read.iter().flatten().copied().collect(),
        changed: changed.to_vec(),
        added: added.into_iter().collect(),
        whole: false,
    };
    f.changed.extend(added);
    for v in [&mut f.read, &mut f.changed] {
        v.sort_unstable();
        v.dedup();
    }
    f
}

impl Command {
    /// The ids of the items this command reads or changes, including the cascaded ones
    /// where the command names them (a cascade is named by the inverse), sorted.
    /// [`SCHEDULE_FIELDS`] stands for the schedule's name, notes and settings; a
    /// `replace_schedule` touches every id of the state it brings (see
    /// [`Command::footprint`], whose `whole` says so without listing them).
    pub fn touched(&self) -> Vec<u64> {
        let f = self.footprint();
        let mut all = f.read;
        all.extend(f.changed);
        match self {
            Command::ReplaceSchedule { schedule } => {
                all.push(SCHEDULE_FIELDS);
                all.extend(all_ids(schedule));
            }
            // The locks travel in the header record.
            Command::Lock { .. } | Command::Unlock { .. } => all.push(SCHEDULE_FIELDS),
            _ => {}
        }
        all.sort_unstable();
        all.dedup();
        all
    }

    /// What this command reads, changes and creates (see the module header).
    pub fn footprint(&self) -> Footprint {
        use Command as C;
        match self {
            C::AddGroup { id: g, .. } => fp(&[], &[], g.map(|g| g.0)),
            C::RenameGroup { group, .. }
            | C::MoveGroup { group, .. }
            | C::DeleteGroup { group } => fp(&[group.0], &[], None),
            C::AddRow {
                id: r,
                group,
                member,
                ..
            } => fp(&[], &[Some(group.0), member.map(|m| m.0)], r.map(|r| r.0)),
            C::RenameRow { row, .. } | C::DeleteRow { row } => fp(&[row.0], &[], None),
            C::MoveRow { row, group, .. } => fp(&[row.0], &[group.map(|g| g.0)], None),
            C::SetRowMember { row, member } => fp(&[row.0], &[member.map(|m| m.0)], None),
            C::AddPeriod { id: b, row, .. } => fp(&[], &[Some(row.0)], b.map(|b| b.0)),
            C::MovePeriods {
                bars, milestones, ..
            } => {
                let ids: Vec<u64> = bars
                    .iter()
                    .map(|b| b.0)
                    .chain(milestones.iter().map(|m| m.0))
                    .collect();
                fp(&ids, &[], None)
            }
            C::ResizePeriod { bar, .. } | C::SetPeriodDates { bar, .. } => fp(&[bar.0], &[], None),
            C::UpdatePeriod { bar, row, .. } => fp(&[bar.0], &[row.map(|r| r.0)], None),
            C::DeletePeriods { bars } => {
                let ids: Vec<u64> = bars.iter().map(|b| b.0).collect();
                fp(&ids, &[], None)
            }
            C::AddMilestone { id: m, row, .. } => fp(&[], &[Some(row.0)], m.map(|m| m.0)),
            C::MoveMilestone { milestone, .. } | C::DeleteMilestone { milestone } => {
                fp(&[milestone.0], &[], None)
            }
            C::UpdateMilestone { milestone, row, .. } => {
                fp(&[milestone.0], &[row.map(|r| r.0)], None)
            }
            C::SetConstraint { item, .. } | C::SetDeadline { item, .. } => fp(&[item.0], &[], None),
            C::SetProgress { bars } => {
                let ids: Vec<u64> = bars.iter().map(|e| e.bar.0).collect();
                fp(&ids, &[], None)
            }
            C::AddLink {
                id: l, from, to, ..
            } => fp(&[], &[Some(from.0), Some(to.0)], l.map(|l| l.0)),
            C::UpdateLink { link, .. } | C::DeleteLink { link } => fp(&[link.0], &[], None),
            C::AddAction {
                id: a,
                bar,
                assignee,
                ..
            } => fp(&[], &[Some(bar.0), assignee.map(|m| m.0)], a.map(|a| a.0)),
            C::SetActionStatus { action, .. } | C::DeleteAction { action } => {
                fp(&[action.0], &[], None)
            }
            C::UpdateAction {
                action, assignee, ..
            } => fp(&[action.0], &[assignee.flatten().map(|m| m.0)], None),
            C::AddMember { id: m, .. } => fp(&[], &[], m.map(|m| m.0)),
            C::UpdateMember { member, .. } | C::DeleteMember { member } => {
                fp(&[member.0], &[], None)
            }
            C::AddAbsence { id: a, member, .. } => fp(&[], &[Some(member.0)], a.map(|a| a.0)),
            C::UpdateAbsence { absence, .. } | C::DeleteAbsence { absence } => {
                fp(&[absence.0], &[], None)
            }
            C::RenameSchedule { .. } | C::SetScheduleNotes { .. } | C::SetSettings { .. } => {
                fp(&[SCHEDULE_FIELDS], &[], None)
            }
            // A lock refers to its target and changes no item: an undo is not held up
            // by someone's lock elsewhere (its header record is re-sent: see `touched`).
            C::Lock { target, .. } | C::Unlock { target } => fp(
                &[],
                &[Some(target.id()).filter(|&id| id != SCHEDULE_FIELDS)],
                None,
            ),
            C::ReplaceSchedule { .. } => Footprint {
                changed: vec![SCHEDULE_FIELDS],
                whole: true,
                ..Footprint::default()
            },
        }
    }
}

/// Every id of a schedule, of every kind.
fn all_ids(s: &Schedule) -> impl Iterator<Item = u64> + '_ {
    let g = s.groups.iter().map(|x| x.id.0);
    let r = s.rows.iter().map(|x| x.id.0);
    let b = s.bars.iter().map(|x| x.id.0);
    let m = s.milestones.iter().map(|x| x.id.0);
    let l = s.links.iter().map(|x| x.id.0);
    let a = s.actions.iter().map(|x| x.id.0);
    let p = s.members.iter().map(|x| x.id.0);
    let x = s.absences.iter().map(|x| x.id.0);
    g.chain(r)
        .chain(b)
        .chain(m)
        .chain(l)
        .chain(a)
        .chain(p)
        .chain(x)
}

#[cfg(test)]
mod tests {
    use super::super::apply;
    use super::super::testkit::{d, sample};
    use super::*;

    /// The footprint of a journal entry: its commands as applied and their inverse.
    fn entry(s: &Schedule, cmds: &[Command]) -> (Schedule, Footprint) {
        let (after, done) = apply(s, cmds).expect("applies");
        let f = Footprint::of(done.applied.iter().chain(&done.inverse));
        (after, f)
    }

    #[test]
    fn touched_names_reads_changes_and_named_cascades() {
        let c = Command::AddLink {
            id: Some(LinkId(61)),
            from: ItemId(10),
            to: ItemId(20),
            kind: None,
            lag: None,
        };
        assert_eq!(c.touched(), [10, 20, 61]);
        let c = Command::MovePeriods {
            bars: vec![BarId(11), BarId(10)],
            milestones: vec![MilestoneId(20)],
            by: 1,
        };
        assert_eq!(c.touched(), [10, 11, 20]);
        let c = Command::UpdateAction {
            action: ActionId(40),
            label: None,
            assignee: Some(Some(MemberId(2))),
        };
        assert_eq!(c.touched(), [2, 40]);
        assert_eq!(
            Command::SetScheduleNotes { notes: "x".into() }.touched(),
            [SCHEDULE_FIELDS]
        );
        let mut small = Schedule::new("S");
        small.groups.push(Group {
            id: GroupId(3),
            name: "G".into(),
        });
        small.next_id = 4;
        let c = Command::ReplaceSchedule {
            schedule: Box::new(small),
        };
        assert_eq!(c.touched(), [0, 3]);
        assert!(c.footprint().whole);

        // A cascade is named by the inverse: deleting bar 10 takes link 30 and action 40.
        let (_, f) = entry(
            &sample(),
            &[Command::DeletePeriods {
                bars: vec![BarId(10)],
            }],
        );
        assert_eq!(f.changed, [10, 30, 40]);
        assert_eq!(
            f.read,
            [1, 5, 10, 11],
            "the re-adds' row, link ends, bar and assignee"
        );
    }

    #[test]
    fn clashes_are_decided_by_items_not_by_rows() {
        let s = sample();
        let (s1, mine) = entry(
            &s,
            &[Command::MovePeriods {
                bars: vec![BarId(10)],
                milestones: vec![],
                by: 2,
            }],
        );
        // Someone else moves another bar of the same row: no clash.
        let (s2, other) = entry(
            &s1,
            &[Command::SetPeriodDates {
                bar: BarId(11),
                start: d("2026-11-16"),
                end: d("2026-11-18"),
            }],
        );
        assert_eq!(mine.clash(&other), None);
        // ... or adds an action to the moved bar: undoing the move does not harm it.
        let (_, action) = entry(
            &s2,
            &[Command::AddAction {
                id: None,
                bar: BarId(10),
                label: "Vérifier".into(),
                status: None,
                assignee: None,
            }],
        );
        assert_eq!(mine.clash(&action), None);
        // Someone else moves the same bar: clash on it.
        let (_, same) = entry(
            &s1,
            &[Command::ResizePeriod {
                bar: BarId(10),
                edge: crate::command::Edge::End,
                by: 1,
            }],
        );
        assert_eq!(mine.clash(&same), Some(Some(10)));

        // I add a bar; someone adds another on the same row: no clash. Someone adds an
        // action on my bar: undoing my add would delete their action, a clash.
        let (s3, added) = entry(
            &s,
            &[Command::AddPeriod {
                id: None,
                row: RowId(5),
                label: "Dalle".into(),
                start: d("2026-11-02"),
                end: d("2026-11-03"),
                color: None,
                notes: None,
                pin: None,
            }],
        );
        let (_, sibling) = entry(
            &s3,
            &[Command::AddPeriod {
                id: None,
                row: RowId(5),
                label: "Escalier".into(),
                start: d("2026-11-04"),
                end: d("2026-11-05"),
                color: None,
                notes: None,
                pin: None,
            }],
        );
        assert_eq!(added.clash(&sibling), None);
        let (_, on_mine) = entry(
            &s3,
            &[Command::AddAction {
                id: None,
                bar: BarId(60),
                label: "Coffrer".into(),
                status: None,
                assignee: None,
            }],
        );
        assert_eq!(added.clash(&on_mine), Some(Some(60)));

        // Settings against settings clash on the schedule's fields; a restore clashes
        // with anything.
        let (_, notes) = entry(&s, &[Command::SetScheduleNotes { notes: "a".into() }]);
        let (_, zone) = entry(
            &s,
            &[Command::SetSettings {
                time_zone: Some("UTC".into()),
                working_weekdays: None,
                holidays: None,
                time_unit: None,
                scheduling: None,
            }],
        );
        assert_eq!(notes.clash(&zone), Some(Some(SCHEDULE_FIELDS)));
        let (_, restore) = entry(
            &s,
            &[Command::ReplaceSchedule {
                schedule: Box::new(sample()),
            }],
        );
        assert_eq!(mine.clash(&restore), Some(None));
        assert_eq!(restore.clash(&added), Some(None));
    }

    #[test]
    fn footprints_of_lists_are_sorted_unions() {
        let a = Command::DeleteLink { link: LinkId(31) };
        let b = Command::RenameRow {
            row: RowId(5),
            name: "M".into(),
        };
        let f = Footprint::of([&a, &b, &a]);
        assert_eq!(f.changed, [5, 31]);
        let mut g = Footprint::default();
        g.extend(f.clone());
        g.extend(
            Command::SetRowMember {
                row: RowId(6),
                member: Some(MemberId(1)),
            }
            .footprint(),
        );
        assert_eq!((g.changed, g.read), (vec![5, 6, 31], vec![1]));
    }
}

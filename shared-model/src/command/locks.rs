//! Locks: `lock` and `unlock`, and the guard that makes a locked item refuse every
//! write, whatever route the write came by and whoever sends it.
//!
//! What a lock holds: its target and everything inside it (a group's rows, a row's
//! bars and milestones), the links that touch any of those and the actions on its
//! bars; a lock on the schedule holds everything. A command is refused when its
//! footprint — what it changes or refers to, cascades included (they are named by its
//! inverse) — meets a held id, so deleting a locked bar, adding a bar to a locked row,
//! linking to a locked bar, moving a row into a locked group and undoing an edit of a
//! locked item are all refused. The guard runs in `apply` itself, so the server, its
//! `what_if` and the view's previews agree, and a lock can never be left pointing at
//! an item that was deleted.
//!
//! The held ids are worked out once per command list, and only when the schedule has
//! locks (one pass over rows, bars, milestones, links and actions); a schedule without
//! locks pays nothing. Locks that the same list removes (`unlock`, then an edit) do not
//! hold; a lock the list sets holds from the next list on.

use crate::idset::IdMap;
use crate::schedule::*;

use super::ctx::{At, Ctx, Res, fault};
use super::error::Problem;
use super::{Command, Footprint, check};

/// The longest reason a lock may give, in characters.
pub const MAX_REASON: usize = 500;

pub(super) fn lock(
    cx: &mut Ctx<'_>,
    target: LockTarget,
    by: u64,
    by_name: &str,
    since_ms: i64,
    reason: Option<&str>,
) -> Res<Command> {
    target_exists(cx, target)?;
    // Taken as given (the tool trims it): an undo must bring back exactly what was set.
    let reason = reason.unwrap_or("");
    check::text(reason).at("reason")?;
    // A reason is a line of a refusal, and locks travel whole in the view's header.
    let len = reason.chars().count();
    if len > MAX_REASON {
        return fault(
            "reason",
            Problem::TooLong {
                len,
                max: MAX_REASON,
            },
        );
    }
    check::name(by_name).at("by_name")?;
    if let Some(old) = cx.s.lock(target) {
        return fault(
            "target",
            Problem::AlreadyLocked {
                lock: Box::new(old.clone()),
            },
        );
    }
    let lock = Lock {
        target,
        by,
        by_name: by_name.to_owned(),
        since_ms,
        reason: reason.to_owned(),
    };
    let at = cx.s.locks.partition_point(|l| l.target < target);
    cx.s.locks.insert(at, lock);
    cx.undo_with(Command::Unlock { target });
    Ok(Command::Lock {
        target,
        by,
        by_name: by_name.to_owned(),
        since_ms,
        reason: (!reason.is_empty()).then(|| reason.to_owned()),
    })
}

pub(super) fn unlock(cx: &mut Ctx<'_>, target: LockTarget) -> Res<Command> {
    let Ok(at) = cx.s.locks.binary_search_by(|l| l.target.cmp(&target)) else {
        return fault("target", Problem::NotLocked { target });
    };
    let old = cx.s.locks.remove(at);
    cx.undo_with(Command::Lock {
        target,
        by: old.by,
        by_name: old.by_name,
        since_ms: old.since_ms,
        reason: (!old.reason.is_empty()).then_some(old.reason),
    });
    Ok(Command::Unlock { target })
}

fn target_exists(cx: &Ctx<'_>, target: LockTarget) -> Res<()> {
    match target {
        LockTarget::Schedule => Ok(()),
        LockTarget::Group(g) => cx.group_pos("target", g).map(|_| ()),
        LockTarget::Row(r) => cx.row_pos("target", r).map(|_| ()),
        LockTarget::Bar(b) => cx.bar_pos("target", b).map(|_| ()),
    }
}

/// A lock whose target a list of commands deleted (a lock set and its item deleted in
/// one list, which the guard, built before the list, does not see): the list is
/// refused, and no lock is ever left pointing at nothing.
pub(super) fn dangling(s: &Schedule) -> Option<&Lock> {
    s.locks.iter().find(|l| match l.target {
        LockTarget::Schedule => false,
        LockTarget::Group(g) => s.group(g).is_none(),
        LockTarget::Row(r) => s.row(r).is_none(),
        LockTarget::Bar(b) => s.bar(b).is_none(),
    })
}

/// The ids the locks of a schedule hold, each with the lock that holds it.
pub(super) struct Guard {
    locks: Vec<Lock>,
    /// The index in `locks` of the schedule's own lock.
    whole: Option<usize>,
    held: IdMap<u64, usize>,
}

impl Guard {
    /// The guard for applying `cmds` to `s`; None when no lock holds anything.
    pub(super) fn new(s: &Schedule, cmds: &[Command]) -> Option<Guard> {
        if s.locks.is_empty() {
            return None;
        }
        let unlocked: Vec<LockTarget> = cmds
            .iter()
            .filter_map(|c| match c {
                Command::Unlock { target } => Some(*target),
                _ => None,
            })
            .collect();
        let locks: Vec<Lock> = s
            .locks
            .iter()
            .filter(|l| !unlocked.contains(&l.target))
            .cloned()
            .collect();
        if locks.is_empty() {
            return None;
        }
        let mut held: IdMap<u64, usize> = IdMap::default();
        let mut whole = None;
        for (i, l) in locks.iter().enumerate() {
            match l.target {
                LockTarget::Schedule => whole = Some(i),
                target => {
                    held.entry(target.id()).or_insert(i);
                }
            }
        }
        // Inside out: a group's rows, then the bars and milestones of held rows, then
        // links and actions on held items. The nearest lock wins (a bar's own, then its
        // row's): a bar lock was inserted first.
        for r in &s.rows {
            if let Some(&i) = held.get(&r.group.0) {
                held.entry(r.id.0).or_insert(i);
            }
        }
        for b in &s.bars {
            if let Some(&i) = held.get(&b.row.0) {
                held.entry(b.id.0).or_insert(i);
            }
        }
        for m in &s.milestones {
            if let Some(&i) = held.get(&m.row.0) {
                held.entry(m.id.0).or_insert(i);
            }
        }
        for l in &s.links {
            if let Some(&i) = held.get(&l.from.0).or_else(|| held.get(&l.to.0)) {
                held.entry(l.id.0).or_insert(i);
            }
        }
        for a in &s.actions {
            if let Some(&i) = held.get(&a.bar.0) {
                held.entry(a.id.0).or_insert(i);
            }
        }
        Some(Guard { locks, whole, held })
    }

    /// Refuses a command (as applied, with its inverse) that meets a held id.
    pub(super) fn check(&self, done: &Command, inverse: &[Command]) -> Result<(), Problem> {
        if matches!(done, Command::Lock { .. } | Command::Unlock { .. }) {
            return Ok(());
        }
        let mut f = done.footprint();
        f.extend(Footprint::of(inverse));
        let locked = |item: u64, i: usize| Problem::Locked {
            item,
            lock: Box::new(self.locks[i].clone()),
        };
        if let Some(i) = self.whole {
            let item = f.changed.first().copied().unwrap_or(0);
            return Err(locked(item, i));
        }
        if f.whole {
            return Err(locked(0, 0));
        }
        for id in f.changed.iter().chain(&f.read) {
            if let Some(&i) = self.held.get(id) {
                return Err(locked(*id, i));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{apply, validate_schedule};
    use super::*;
    use crate::demo;

    fn lock(target: LockTarget) -> Command {
        Command::Lock {
            target,
            by: 7,
            by_name: "Alice".into(),
            since_ms: 1_764_580_440_000,
            reason: Some("revue".into()),
        }
    }

    fn refused(s: &Schedule, cmds: &[Command]) -> Problem {
        match apply(s, cmds) {
            Ok(_) => panic!("{cmds:?} should be refused"),
            Err(e) => e.problem,
        }
    }

    #[test]
    fn a_lock_is_set_undone_and_kept_sorted() {
        let s = demo::s4hana_migration();
        let (locked, done) = apply(
            &s,
            &[
                lock(LockTarget::Bar(BarId(14))),
                lock(LockTarget::Group(GroupId(5))),
            ],
        )
        .unwrap();
        assert_eq!(
            locked.locks.iter().map(|l| l.target).collect::<Vec<_>>(),
            [LockTarget::Group(GroupId(5)), LockTarget::Bar(BarId(14))]
        );
        validate_schedule(&locked).unwrap();
        let (back, _) = apply(&locked, &done.inverse).unwrap();
        assert_eq!(back, s);
        assert!(matches!(
            refused(&locked, &[lock(LockTarget::Bar(BarId(14)))]),
            Problem::AlreadyLocked { .. }
        ));
        assert!(matches!(
            refused(
                &s,
                &[Command::Unlock {
                    target: LockTarget::Schedule
                }]
            ),
            Problem::NotLocked { .. }
        ));
        assert!(matches!(
            refused(&s, &[lock(LockTarget::Bar(BarId(999)))]),
            Problem::NotFound { .. }
        ));
    }

    #[test]
    fn what_a_lock_holds_refuses_every_write() {
        let s = demo::s4hana_migration();
        // Row 7 holds bar 14, its links (20: 13 -> 14, 22: 14 -> 16) and action 28.
        let (locked, _) = apply(&s, &[lock(LockTarget::Row(RowId(7)))]).unwrap();
        let blocked = [
            Command::MovePeriods {
                bars: vec![BarId(14)],
                milestones: vec![],
                by: 1,
            },
            Command::DeletePeriods {
                bars: vec![BarId(14)],
            },
            Command::RenameRow {
                row: RowId(7),
                name: "x".into(),
            },
            Command::DeleteLink { link: LinkId(22) },
            Command::SetActionStatus {
                action: ActionId(28),
                status: ActionStatus::Done,
            },
            Command::AddPeriod {
                id: None,
                row: RowId(7),
                label: "new".into(),
                start: s.bars[0].start,
                end: s.bars[0].start,
                color: None,
                notes: None,
                pin: None,
            },
            Command::AddLink {
                id: None,
                from: ItemId(15),
                to: ItemId(14),
                kind: None,
                lag: None,
            },
            // A cascade: deleting group 5 deletes row 7.
            Command::DeleteGroup { group: GroupId(5) },
            // A cascade through a link: deleting bar 16 deletes link 22 to bar 14.
            Command::DeletePeriods {
                bars: vec![BarId(16)],
            },
        ];
        for cmd in blocked {
            match refused(&locked, std::slice::from_ref(&cmd)) {
                Problem::Locked { lock, .. } => {
                    assert_eq!(lock.target, LockTarget::Row(RowId(7)), "{cmd:?}");
                }
                other => panic!("{cmd:?}: {other:?}"),
            }
        }
        // Elsewhere, writes go on.
        apply(
            &locked,
            &[Command::MovePeriods {
                bars: vec![BarId(18)],
                milestones: vec![],
                by: 1,
            }],
        )
        .unwrap();
        // Unlocking first, in the same list, frees it.
        apply(
            &locked,
            &[
                Command::Unlock {
                    target: LockTarget::Row(RowId(7)),
                },
                Command::RenameRow {
                    row: RowId(7),
                    name: "x".into(),
                },
            ],
        )
        .unwrap();
    }

    #[test]
    fn a_schedule_lock_holds_everything_but_unlocking() {
        let s = demo::s4hana_migration();
        let (locked, _) = apply(&s, &[lock(LockTarget::Schedule)]).unwrap();
        for cmd in [
            Command::RenameSchedule { name: "x".into() },
            Command::AddMember {
                id: None,
                name: "M".into(),
                email: None,
            },
            Command::ReplaceSchedule {
                schedule: Box::new(s.clone()),
            },
        ] {
            assert!(
                matches!(
                    refused(&locked, std::slice::from_ref(&cmd)),
                    Problem::Locked { .. }
                ),
                "{cmd:?}"
            );
        }
        // A restore is refused by any lock (it would replace the locked items).
        let (bar_locked, _) = apply(&s, &[lock(LockTarget::Bar(BarId(14)))]).unwrap();
        assert!(matches!(
            refused(
                &bar_locked,
                &[Command::ReplaceSchedule {
                    schedule: Box::new(s.clone())
                }]
            ),
            Problem::Locked { .. }
        ));
        let (free, _) = apply(
            &locked,
            &[Command::Unlock {
                target: LockTarget::Schedule,
            }],
        )
        .unwrap();
        assert_eq!(free, s);
    }

    #[test]
    fn no_lock_outlives_its_item_nor_comes_back_with_a_restore() {
        let s = demo::s4hana_migration();
        // Set and deleted in one list: refused, nothing changed.
        for cmds in [
            vec![
                lock(LockTarget::Row(RowId(7))),
                Command::DeleteRow { row: RowId(7) },
            ],
            vec![
                lock(LockTarget::Bar(BarId(14))),
                Command::DeletePeriods {
                    bars: vec![BarId(14)],
                },
            ],
            vec![
                lock(LockTarget::Bar(BarId(14))),
                Command::ReplaceSchedule {
                    schedule: Box::new(Schedule::new("Vide")),
                },
            ],
        ] {
            assert!(
                matches!(refused(&s, &cmds), Problem::Locked { .. }),
                "{cmds:?}"
            );
        }
        // A replace keeps the locks as they are: none revived, none set in a name.
        let mut forged = s.clone();
        forged.locks = vec![Lock {
            target: LockTarget::Schedule,
            by: 1,
            by_name: "Alice".into(),
            since_ms: 0,
            reason: String::new(),
        }];
        let (after, _) = apply(
            &s,
            &[Command::ReplaceSchedule {
                schedule: Box::new(forged),
            }],
        )
        .unwrap();
        assert!(after.locks.is_empty());
        // A lock's reason comes back exactly on undo, spaces and all.
        let spaced = Command::Lock {
            target: LockTarget::Bar(BarId(14)),
            by: 7,
            by_name: "Alice".into(),
            since_ms: 0,
            reason: Some(" revue ".into()),
        };
        let (locked, done) = apply(&s, &[spaced]).unwrap();
        let (unlocked, undo) = apply(&locked, &done.inverse).unwrap();
        assert_eq!(unlocked, s);
        assert_eq!(apply(&unlocked, &undo.inverse).unwrap().0, locked);
        // The invariants hold the reason to the lock's own limit.
        let mut long = locked.clone();
        long.locks[0].reason = "x".repeat(MAX_REASON + 1);
        assert!(validate_schedule(&long).is_err());
    }

    #[test]
    fn the_nearest_lock_answers_for_a_bar() {
        let s = demo::s4hana_migration();
        let (locked, _) = apply(
            &s,
            &[
                lock(LockTarget::Group(GroupId(5))),
                lock(LockTarget::Bar(BarId(14))),
            ],
        )
        .unwrap();
        assert_eq!(
            locked.bar_lock(BarId(14)).map(|l| l.target),
            Some(LockTarget::Bar(BarId(14)))
        );
        assert_eq!(
            locked.bar_lock(BarId(13)).map(|l| l.target),
            Some(LockTarget::Group(GroupId(5)))
        );
        assert_eq!(locked.bar_lock(BarId(16)), None);
    }
}

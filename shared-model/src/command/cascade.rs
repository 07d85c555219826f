//! Deletes that take dependents with them: a row's bars and milestones, the links that
//! touch a deleted bar or milestone, the actions on a deleted bar. Each cascade records
//! the commands that put everything back with its own id, in an order that keeps every
//! re-add valid (items, then their constraints, deadlines and progress, before the links and
//! actions that refer to them).

use crate::schedule::*;

use super::Command;
use super::ctx::Ctx;

/// Deletes the bars and milestones on these rows (sorted ids) and what hangs on them.
pub(super) fn remove_on_rows(cx: &mut Ctx<'_>, rows: &[RowId]) {
    let on = |r: RowId| rows.binary_search(&r).is_ok();
    let bars: Vec<BarId> =
        cx.s.bars
            .iter()
            .filter(|b| on(b.row))
            .map(|b| b.id)
            .collect();
    let milestones: Vec<MilestoneId> =
        cx.s.milestones
            .iter()
            .filter(|m| on(m.row))
            .map(|m| m.id)
            .collect();
    remove_items(cx, &bars, &milestones);
}

/// Deletes these bars and milestones (each list sorted by id, every id present), the
/// links that touch them and the actions on the bars, in one pass per collection.
pub(super) fn remove_items(cx: &mut Ctx<'_>, bars: &[BarId], milestones: &[MilestoneId]) {
    if bars.is_empty() && milestones.is_empty() {
        return;
    }
    let s = &mut *cx.s;
    let gone_bar = |b: BarId| bars.binary_search(&b).is_ok();
    let gone_milestone = |m: MilestoneId| milestones.binary_search(&m).is_ok();
    let gone_item = |i: ItemId| gone_bar(BarId(i.0)) || gone_milestone(MilestoneId(i.0));

    let removed_bars: Vec<Bar> = s.bars.extract_if(.., |b| gone_bar(b.id)).collect();
    let removed_milestones: Vec<Milestone> = s
        .milestones
        .extract_if(.., |m| gone_milestone(m.id))
        .collect();
    let removed_links: Vec<Link> = s
        .links
        .extract_if(.., |l| gone_item(l.from) || gone_item(l.to))
        .collect();
    let removed_actions: Vec<Action> = s.actions.extract_if(.., |a| gone_bar(a.bar)).collect();

    // Re-adds carry a bar's pin; its other constraint and the deadlines come back
    // after every re-add, so the run of re-adds stays one deferred merge (see `ctx`).
    let mut constraints = Vec::new();
    // Progress too: one command for all the deleted bars that had some.
    let progress: Vec<super::ProgressEntry> = removed_bars
        .iter()
        .filter(|b| b.progress > 0 || b.actual_start.is_some() || b.actual_finish.is_some())
        .map(|b| super::ProgressEntry {
            bar: b.id,
            percent: Some(b.progress),
            actual_start: Some(b.actual_start),
            actual_finish: Some(b.actual_finish),
        })
        .collect();
    if !progress.is_empty() {
        constraints.push(Command::SetProgress { bars: progress });
    }
    for (item, constraint, deadline) in removed_bars
        .iter()
        .map(|b| (ItemId::from(b.id), b.constraint, b.deadline))
        .chain(
            removed_milestones
                .iter()
                .map(|m| (ItemId::from(m.id), m.constraint, m.deadline)),
        )
    {
        if constraint.is_some() {
            constraints.push(Command::SetConstraint { item, constraint });
        }
        if deadline.is_some() {
            constraints.push(Command::SetDeadline { item, deadline });
        }
    }
    for b in removed_bars {
        cx.undo_with(Command::AddPeriod {
            id: Some(b.id),
            row: b.row,
            label: b.label,
            start: b.start,
            end: b.end,
            color: b.color,
            notes: Some(b.notes).filter(|n| !n.is_empty()),
            pin: b.pin,
        });
    }
    for m in removed_milestones {
        cx.undo_with(Command::AddMilestone {
            id: Some(m.id),
            row: m.row,
            label: m.label,
            date: m.date,
            color: m.color,
            notes: Some(m.notes).filter(|n| !n.is_empty()),
        });
    }
    for c in constraints {
        cx.undo_with(c);
    }
    for l in removed_links {
        cx.undo_with(readd_link(l));
    }
    for a in removed_actions {
        cx.undo_with(readd_action(a));
    }
}

pub(super) fn readd_link(l: Link) -> Command {
    Command::AddLink {
        id: Some(l.id),
        from: l.from,
        to: l.to,
        kind: Some(l.kind),
        lag: Some(l.lag),
    }
}

pub(super) fn readd_action(a: Action) -> Command {
    Command::AddAction {
        id: Some(a.id),
        bar: a.bar,
        label: a.label,
        status: Some(a.status),
        assignee: a.assignee,
    }
}

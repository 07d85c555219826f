//! Bars and milestones: adding, moving in working time, resizing, dating, updating and
//! deleting them, and setting their date constraints and deadlines. Moves and resizes count in the schedule's time unit on its working
//! calendar (`calendar` owns what a working day is); their inverses carry the old
//! dates, because a move by `-n` does not undo a move by `n` once a start was snapped.

use crate::calendar::Calendar;
use crate::date::Date;
use crate::schedule::*;

use super::ctx::{At, Ctx, Res, fault};
use super::error::{Kind, Problem};
use super::{Command, Edge, cascade, check};

/// Where moving a bar by `days` working days takes it: the start goes to
/// `cal.add(start, days)` (a working day; a start on a day off is snapped forward
/// first) and the end to the day that keeps the bar's count of working days. A bar
/// whose span holds no working day keeps its length in calendar days instead.
pub fn shifted_bar(cal: &Calendar, start: Date, end: Date, days: i64) -> (Date, Date) {
    let work = cal.working_days_in(start, end);
    let new_start = cal.add(start, days);
    let new_end = if work > 0 {
        cal.add(new_start, work - 1)
    } else {
        new_start.add_days(start.days_until(end))
    };
    (new_start, new_end)
}

/// Where pulling one edge of a bar by `days` working days takes it: the start moves
/// along working days, the end along finish boundaries (the end of a working day). The
/// result may be an empty span; `resize_period` refuses that, a drag preview shows it.
pub fn resized_bar(cal: &Calendar, start: Date, end: Date, edge: Edge, days: i64) -> (Date, Date) {
    match edge {
        Edge::Start => (cal.add(start, days), end),
        Edge::End => (start, cal.date_of_finish(cal.finish_boundary(end) + days)),
    }
}

/// Where moving a milestone by `days` working days takes it. A milestone sits at the end
/// of its day (`finish_boundary`), so it moves along finish boundaries: a milestone on a
/// Saturday sits where Friday ends, and one working day later is the end of Monday.
pub fn shifted_milestone(cal: &Calendar, date: Date, days: i64) -> Date {
    cal.date_of_finish(cal.finish_boundary(date) + days)
}

/// Refuses a list that names the same id twice.
fn once_each(ids: impl Iterator<Item = u64>) -> Result<(), Problem> {
    let mut ids: Vec<u64> = ids.collect();
    ids.sort_unstable();
    match ids.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(Problem::Repeated { id: w[0] }),
        None => Ok(()),
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "one parameter per field of add_period"
)]
pub(super) fn add_period(
    cx: &mut Ctx<'_>,
    id: Option<BarId>,
    row: RowId,
    label: &str,
    (start, end): (Date, Date),
    color: Option<&str>,
    notes: Option<&str>,
    pin: Option<Date>,
) -> Res<Command> {
    let id = BarId(cx.new_id(id.map(|b| b.0))?);
    cx.row_exists("row", row)?;
    check::name(label).at("label")?;
    check::date(start).at("start")?;
    check::date(end).at("end")?;
    check::span(start, end).at("end")?;
    check::opt_color(color).at("color")?;
    check::text(notes.unwrap_or("")).at("notes")?;
    if let Some(p) = pin {
        check::date(p).at("pin")?;
    }
    cx.claim(id.0);
    cx.insert_bar(Bar {
        id,
        row,
        label: label.to_owned(),
        start,
        end,
        color: color.map(str::to_owned),
        notes: notes.unwrap_or("").to_owned(),
        pin,
        constraint: None,
        deadline: None,
        progress: 0,
        actual_start: None,
        actual_finish: None,
    });
    cx.undo_with(Command::DeletePeriods { bars: vec![id] });
    Ok(Command::AddPeriod {
        id: Some(id),
        row,
        label: label.to_owned(),
        start,
        end,
        color: color.map(str::to_owned),
        notes: notes.map(str::to_owned),
        pin,
    })
}

pub(super) fn move_periods(
    cx: &mut Ctx<'_>,
    bars: &[BarId],
    milestones: &[MilestoneId],
    by: i32,
) -> Res<Command> {
    check::by(by).at("by")?;
    if bars.is_empty() && milestones.is_empty() {
        return fault("bars", Problem::EmptyList);
    }
    once_each(bars.iter().map(|b| b.0)).at("bars")?;
    once_each(milestones.iter().map(|m| m.0)).at("milestones")?;
    let bar_pos = bars
        .iter()
        .map(|b| cx.bar_pos("bars", *b))
        .collect::<Res<Vec<usize>>>()?;
    let milestone_pos = milestones
        .iter()
        .map(|m| cx.milestone_pos("milestones", *m))
        .collect::<Res<Vec<usize>>>()?;
    let applied = Command::MovePeriods {
        bars: bars.to_vec(),
        milestones: milestones.to_vec(),
        by,
    };
    // Moving by nothing changes nothing: no snapping of starts that fall on a day off.
    if by == 0 {
        return Ok(applied);
    }
    let cal = Calendar::for_schedule(cx.s);
    let days = cal.units_to_days(cx.s.settings.time_unit, i64::from(by));
    let mut bar_dates = Vec::with_capacity(bar_pos.len());
    for &i in &bar_pos {
        let b = &cx.s.bars[i];
        let (start, end) = shifted_bar(&cal, b.start, b.end, days);
        check::date(start).at("by")?;
        check::date(end).at("by")?;
        bar_dates.push((start, end));
    }
    let mut milestone_dates = Vec::with_capacity(milestone_pos.len());
    for &i in &milestone_pos {
        let date = shifted_milestone(&cal, cx.s.milestones[i].date, days);
        check::date(date).at("by")?;
        milestone_dates.push(date);
    }
    for (&i, (start, end)) in bar_pos.iter().zip(bar_dates) {
        let b = &mut cx.s.bars[i];
        let undo = Command::SetPeriodDates {
            bar: b.id,
            start: b.start,
            end: b.end,
        };
        (b.start, b.end) = (start, end);
        cx.undo_with(undo);
    }
    for (&i, date) in milestone_pos.iter().zip(milestone_dates) {
        let m = &mut cx.s.milestones[i];
        let undo = Command::MoveMilestone {
            milestone: m.id,
            date: m.date,
        };
        m.date = date;
        cx.undo_with(undo);
    }
    Ok(applied)
}

pub(super) fn resize_period(cx: &mut Ctx<'_>, bar: BarId, edge: Edge, by: i32) -> Res<Command> {
    check::by(by).at("by")?;
    let pos = cx.bar_pos("bar", bar)?;
    let applied = Command::ResizePeriod { bar, edge, by };
    if by == 0 {
        return Ok(applied);
    }
    let cal = Calendar::for_schedule(cx.s);
    let days = cal.units_to_days(cx.s.settings.time_unit, i64::from(by));
    let b = &cx.s.bars[pos];
    let (start, end) = resized_bar(&cal, b.start, b.end, edge, days);
    check::date(start).at("by")?;
    check::date(end).at("by")?;
    check::span(start, end).at("by")?;
    let undo = Command::SetPeriodDates {
        bar,
        start: b.start,
        end: b.end,
    };
    let b = &mut cx.s.bars[pos];
    (b.start, b.end) = (start, end);
    cx.undo_with(undo);
    Ok(applied)
}

pub(super) fn set_period_dates(
    cx: &mut Ctx<'_>,
    bar: BarId,
    start: Date,
    end: Date,
) -> Res<Command> {
    let pos = cx.bar_pos("bar", bar)?;
    check::date(start).at("start")?;
    check::date(end).at("end")?;
    check::span(start, end).at("end")?;
    let b = &mut cx.s.bars[pos];
    let undo = Command::SetPeriodDates {
        bar,
        start: b.start,
        end: b.end,
    };
    (b.start, b.end) = (start, end);
    cx.undo_with(undo);
    Ok(Command::SetPeriodDates { bar, start, end })
}

pub(super) fn update_period(
    cx: &mut Ctx<'_>,
    bar: BarId,
    label: Option<&str>,
    color: &Option<Option<String>>,
    notes: Option<&str>,
    pin: Option<Option<Date>>,
    row: Option<RowId>,
) -> Res<Command> {
    let pos = cx.bar_pos("bar", bar)?;
    if let Some(l) = label {
        check::name(l).at("label")?;
    }
    if let Some(c) = color {
        check::opt_color(c.as_deref()).at("color")?;
    }
    check::text(notes.unwrap_or("")).at("notes")?;
    if let Some(Some(p)) = pin {
        check::date(p).at("pin")?;
    }
    if let Some(r) = row {
        cx.row_exists("row", r)?;
    }
    let b = &mut cx.s.bars[pos];
    let undo = Command::UpdatePeriod {
        bar,
        label: label.map(|l| std::mem::replace(&mut b.label, l.to_owned())),
        color: color
            .as_ref()
            .map(|c| std::mem::replace(&mut b.color, c.clone())),
        notes: notes.map(|n| std::mem::replace(&mut b.notes, n.to_owned())),
        pin: pin.map(|p| std::mem::replace(&mut b.pin, p)),
        row: row.map(|r| std::mem::replace(&mut b.row, r)),
    };
    cx.undo_with(undo);
    Ok(Command::UpdatePeriod {
        bar,
        label: label.map(str::to_owned),
        color: color.clone(),
        notes: notes.map(str::to_owned),
        pin,
        row,
    })
}

pub(super) fn delete_periods(cx: &mut Ctx<'_>, bars: &[BarId]) -> Res<Command> {
    if bars.is_empty() {
        return fault("bars", Problem::EmptyList);
    }
    once_each(bars.iter().map(|b| b.0)).at("bars")?;
    for b in bars {
        cx.bar_pos("bars", *b)?;
    }
    let mut sorted = bars.to_vec();
    sorted.sort_unstable();
    cascade::remove_items(cx, &sorted, &[]);
    Ok(Command::DeletePeriods {
        bars: bars.to_vec(),
    })
}

pub(super) fn add_milestone(
    cx: &mut Ctx<'_>,
    id: Option<MilestoneId>,
    row: RowId,
    label: &str,
    date: Date,
    color: Option<&str>,
    notes: Option<&str>,
) -> Res<Command> {
    let id = MilestoneId(cx.new_id(id.map(|m| m.0))?);
    cx.row_exists("row", row)?;
    check::name(label).at("label")?;
    check::date(date).at("date")?;
    check::opt_color(color).at("color")?;
    check::text(notes.unwrap_or("")).at("notes")?;
    cx.claim(id.0);
    cx.insert_milestone(Milestone {
        id,
        row,
        label: label.to_owned(),
        date,
        color: color.map(str::to_owned),
        notes: notes.unwrap_or("").to_owned(),
        constraint: None,
        deadline: None,
    });
    cx.undo_with(Command::DeleteMilestone { milestone: id });
    Ok(Command::AddMilestone {
        id: Some(id),
        row,
        label: label.to_owned(),
        date,
        color: color.map(str::to_owned),
        notes: notes.map(str::to_owned),
    })
}

pub(super) fn move_milestone(cx: &mut Ctx<'_>, milestone: MilestoneId, date: Date) -> Res<Command> {
    let pos = cx.milestone_pos("milestone", milestone)?;
    check::date(date).at("date")?;
    let old = std::mem::replace(&mut cx.s.milestones[pos].date, date);
    cx.undo_with(Command::MoveMilestone {
        milestone,
        date: old,
    });
    Ok(Command::MoveMilestone { milestone, date })
}

pub(super) fn update_milestone(
    cx: &mut Ctx<'_>,
    milestone: MilestoneId,
    label: Option<&str>,
    color: &Option<Option<String>>,
    notes: Option<&str>,
    row: Option<RowId>,
) -> Res<Command> {
    let pos = cx.milestone_pos("milestone", milestone)?;
    if let Some(l) = label {
        check::name(l).at("label")?;
    }
    if let Some(c) = color {
        check::opt_color(c.as_deref()).at("color")?;
    }
    check::text(notes.unwrap_or("")).at("notes")?;
    if let Some(r) = row {
        cx.row_exists("row", r)?;
    }
    let m = &mut cx.s.milestones[pos];
    let undo = Command::UpdateMilestone {
        milestone,
        label: label.map(|l| std::mem::replace(&mut m.label, l.to_owned())),
        color: color
            .as_ref()
            .map(|c| std::mem::replace(&mut m.color, c.clone())),
        notes: notes.map(|n| std::mem::replace(&mut m.notes, n.to_owned())),
        row: row.map(|r| std::mem::replace(&mut m.row, r)),
    };
    cx.undo_with(undo);
    Ok(Command::UpdateMilestone {
        milestone,
        label: label.map(str::to_owned),
        color: color.clone(),
        notes: notes.map(str::to_owned),
        row,
    })
}

pub(super) fn delete_milestone(cx: &mut Ctx<'_>, milestone: MilestoneId) -> Res<Command> {
    cx.milestone_pos("milestone", milestone)?;
    cascade::remove_items(cx, &[], &[milestone]);
    Ok(Command::DeleteMilestone { milestone })
}

/// A bar or a milestone, by position.
enum ItemAt {
    Bar(usize),
    Milestone(usize),
}

fn item_at(cx: &Ctx<'_>, field: &'static str, item: ItemId) -> Res<ItemAt> {
    if let Ok(i) = cx.bar_pos(field, BarId(item.0)) {
        return Ok(ItemAt::Bar(i));
    }
    if let Ok(i) = cx.milestone_pos(field, MilestoneId(item.0)) {
        return Ok(ItemAt::Milestone(i));
    }
    let actual = cx.kind_of(item.0);
    fault(
        field,
        Problem::NotFound {
            kind: Kind::Item,
            id: item.0,
            actual,
        },
    )
}

pub(super) fn set_constraint(
    cx: &mut Ctx<'_>,
    item: ItemId,
    constraint: Option<Constraint>,
) -> Res<Command> {
    let at = item_at(cx, "item", item)?;
    if let Some(c) = constraint {
        check::date(c.date).at("constraint")?;
    }
    let applied = Command::SetConstraint { item, constraint };
    match at {
        ItemAt::Milestone(i) => {
            let old = std::mem::replace(&mut cx.s.milestones[i].constraint, constraint);
            if old != constraint {
                cx.undo_with(Command::SetConstraint {
                    item,
                    constraint: old,
                });
            }
        }
        ItemAt::Bar(i) => {
            let b = &mut cx.s.bars[i];
            let old = (b.pin, b.constraint);
            let new = match constraint {
                None => (None, None),
                Some(c) if c.kind == ConstraintKind::StartNoEarlierThan => {
                    (Some(c.date), b.constraint)
                }
                Some(c) => (b.pin, Some(c)),
            };
            (b.pin, b.constraint) = new;
            for undo in restore_bar_constraints(item, old, new) {
                cx.undo_with(undo);
            }
        }
    }
    Ok(applied)
}

/// The commands that bring a bar's (pin, other constraint) from `new` back to `old`
/// exactly, with `set_constraint` only: a kind sets one place, `null` clears both.
fn restore_bar_constraints(
    item: ItemId,
    old: (Option<Date>, Option<Constraint>),
    new: (Option<Date>, Option<Constraint>),
) -> Vec<Command> {
    let set = |c: Option<Constraint>| Command::SetConstraint {
        item,
        constraint: c,
    };
    let pin = |date: Date| {
        set(Some(Constraint {
            kind: ConstraintKind::StartNoEarlierThan,
            date,
        }))
    };
    let mut out = Vec::new();
    if old == new {
        return out;
    }
    match (old.0 == new.0, old.1 == new.1, old) {
        // Only the other constraint changed.
        (true, _, (_, Some(c))) => out.push(set(Some(c))),
        (true, _, (p, None)) => {
            out.push(set(None));
            out.extend(p.map(pin));
        }
        // Only the pin changed.
        (false, true, (Some(p), _)) => out.push(pin(p)),
        (false, true, (None, c)) => {
            out.push(set(None));
            out.extend(c.map(|c| set(Some(c))));
        }
        // Both: a clear, which only an explicit re-set of each undoes.
        (false, false, (p, c)) => {
            out.extend(p.map(pin));
            out.extend(c.map(|c| set(Some(c))));
        }
    }
    out
}

pub(super) fn set_deadline(cx: &mut Ctx<'_>, item: ItemId, deadline: Option<Date>) -> Res<Command> {
    let at = item_at(cx, "item", item)?;
    if let Some(d) = deadline {
        check::date(d).at("deadline")?;
    }
    let slot = match at {
        ItemAt::Bar(i) => &mut cx.s.bars[i].deadline,
        ItemAt::Milestone(i) => &mut cx.s.milestones[i].deadline,
    };
    let old = std::mem::replace(slot, deadline);
    cx.undo_with(Command::SetDeadline {
        item,
        deadline: old,
    });
    Ok(Command::SetDeadline { item, deadline })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::testkit::{d, fails, round_trip, sample};
    use crate::command::{Kind, apply, apply_in_place};
    use crate::synth::{Spec, generate};

    fn dates(s: &Schedule, bar: u64) -> (String, String) {
        let b = s.bar(BarId(bar)).unwrap();
        (b.start.to_string(), b.end.to_string())
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.into(), b.into())
    }

    fn move_by(bars: &[u64], milestones: &[u64], by: i32) -> Command {
        Command::MovePeriods {
            bars: bars.iter().map(|b| BarId(*b)).collect(),
            milestones: milestones.iter().map(|m| MilestoneId(*m)).collect(),
            by,
        }
    }

    #[test]
    fn moves_keep_working_durations_across_weekends_and_holidays() {
        let s = sample();
        // Bar 10: Mon 2 to Fri 6 November (5 working days); bar 11: 9 to 13 November
        // with the 11th off (4 working days); the milestone is on Monday the 30th.
        let after = round_trip(&s, &[move_by(&[10, 11], &[20], 1)]);
        assert_eq!(dates(&after, 10), pair("2026-11-03", "2026-11-09"));
        assert_eq!(dates(&after, 11), pair("2026-11-10", "2026-11-16"));
        assert_eq!(
            after.milestone(MilestoneId(20)).unwrap().date,
            d("2026-12-01")
        );
        let back = round_trip(&s, &[move_by(&[10], &[], -1)]);
        assert_eq!(dates(&back, 10), pair("2026-10-30", "2026-11-05"));
    }

    #[test]
    fn moves_count_in_weeks_when_the_unit_is_a_week() {
        let mut s = sample();
        s.settings.time_unit = TimeUnit::Week;
        let after = round_trip(&s, &[move_by(&[13], &[], 2)]);
        assert_eq!(dates(&after, 13), pair("2026-12-07", "2026-12-11"));
    }

    #[test]
    fn odd_spans_move_sensibly() {
        let mut s = sample();
        // A weekend-only bar keeps its calendar length; a Saturday start snaps forward.
        s.bars[3].start = d("2026-11-21");
        s.bars[3].end = d("2026-11-22");
        s.bars[2].start = d("2026-11-14");
        s.milestones[0].date = d("2026-11-28");
        let after = round_trip(&s, &[move_by(&[12, 13], &[20], 1)]);
        assert_eq!(dates(&after, 13), pair("2026-11-24", "2026-11-25"));
        // Bar 12 ran Saturday 14 to Friday 20 (5 working days): it now starts Tuesday.
        assert_eq!(dates(&after, 12), pair("2026-11-17", "2026-11-23"));
        // A Saturday milestone sits at the end of Friday: one day later is Monday.
        assert_eq!(
            after.milestone(MilestoneId(20)).unwrap().date,
            d("2026-11-30")
        );
        let same = round_trip(&s, &[move_by(&[12], &[], 0)]);
        assert_eq!(same, s, "a move by 0 changes nothing");
    }

    #[test]
    fn resizes_move_one_edge_in_working_time() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::ResizePeriod {
                    bar: BarId(10),
                    edge: Edge::End,
                    by: 2,
                },
                Command::ResizePeriod {
                    bar: BarId(12),
                    edge: Edge::Start,
                    by: -1,
                },
            ],
        );
        assert_eq!(dates(&after, 10), pair("2026-11-02", "2026-11-10"));
        assert_eq!(dates(&after, 12), pair("2026-11-13", "2026-11-20"));
        let e = fails(
            &s,
            &[Command::ResizePeriod {
                bar: BarId(10),
                edge: Edge::End,
                by: -5,
            }],
        );
        assert_eq!(e.field, "by");
        assert_eq!(
            e.problem,
            Problem::EndBeforeStart {
                start: d("2026-11-02"),
                end: d("2026-10-30")
            }
        );
    }

    #[test]
    fn moves_refuse_bad_lists_and_far_dates() {
        let s = sample();
        let e = fails(&s, &[move_by(&[10, 20], &[], 1)]);
        assert_eq!(
            (e.field.as_str(), e.problem),
            (
                "bars",
                Problem::NotFound {
                    kind: Kind::Bar,
                    id: 20,
                    actual: Some(Kind::Milestone)
                }
            )
        );
        let e = fails(&s, &[move_by(&[10, 11, 10], &[], 1)]);
        assert_eq!(e.problem, Problem::Repeated { id: 10 });
        let e = fails(&s, &[move_by(&[], &[], 1)]);
        assert_eq!(e.problem, Problem::EmptyList);
        let e = fails(&s, &[move_by(&[10], &[], MAX_BY_PLUS_ONE)]);
        assert_eq!(e.field, "by");
        let e = fails(
            &s,
            &[
                Command::SetSettings {
                    time_zone: None,
                    working_weekdays: None,
                    holidays: None,
                    time_unit: Some(TimeUnit::Week),
                    scheduling: None,
                },
                move_by(&[10], &[], 100_000),
            ],
        );
        assert_eq!((e.command, e.field.as_str()), (1, "by"));
        assert!(matches!(e.problem, Problem::DateOutOfRange { .. }), "{e}");
    }

    const MAX_BY_PLUS_ONE: i32 = crate::command::MAX_BY + 1;

    #[test]
    fn adds_updates_and_dates() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::AddPeriod {
                    id: None,
                    row: RowId(6),
                    label: "Zinguerie".into(),
                    start: d("2026-11-23"),
                    end: d("2026-11-24"),
                    color: Some("#c80".into()),
                    notes: None,
                    pin: Some(d("2026-11-23")),
                },
                Command::UpdatePeriod {
                    bar: BarId(10),
                    label: Some("Fondations et dalle".into()),
                    color: Some(None),
                    notes: Some("Béton C25".into()),
                    pin: Some(Some(d("2026-11-02"))),
                    row: Some(RowId(6)),
                },
                Command::SetPeriodDates {
                    bar: BarId(11),
                    start: d("2026-11-10"),
                    end: d("2026-11-10"),
                },
                Command::AddMilestone {
                    id: Some(MilestoneId(100)),
                    row: RowId(5),
                    label: "Hors d'eau".into(),
                    date: d("2026-11-20"),
                    color: None,
                    notes: Some("Réception".into()),
                },
                Command::MoveMilestone {
                    milestone: MilestoneId(20),
                    date: d("2026-12-04"),
                },
                Command::UpdateMilestone {
                    milestone: MilestoneId(20),
                    label: None,
                    color: Some(Some("#0a0".into())),
                    notes: None,
                    row: Some(RowId(5)),
                },
            ],
        );
        let b = after.bar(BarId(60)).unwrap();
        assert_eq!(
            (b.label.as_str(), b.pin),
            ("Zinguerie", Some(d("2026-11-23")))
        );
        let b = after.bar(BarId(10)).unwrap();
        assert_eq!((b.color.as_deref(), b.row), (None, RowId(6)));
        assert_eq!(after.next_id, 101, "an explicit id moves next_id past it");
        assert_eq!(after.milestone(MilestoneId(20)).unwrap().row, RowId(5));

        let e = fails(
            &s,
            &[Command::SetPeriodDates {
                bar: BarId(10),
                start: d("2026-11-05"),
                end: d("2026-11-02"),
            }],
        );
        assert_eq!(e.field, "end");
        let e = fails(
            &s,
            &[Command::UpdatePeriod {
                bar: BarId(10),
                label: Some("   ".into()),
                color: None,
                notes: None,
                pin: None,
                row: None,
            }],
        );
        assert_eq!((e.field.as_str(), e.problem), ("label", Problem::Empty));
    }

    #[test]
    fn deleting_bars_and_milestones_takes_their_links_and_actions() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::DeletePeriods {
                    bars: vec![BarId(12), BarId(10)],
                },
                Command::DeleteMilestone {
                    milestone: MilestoneId(20),
                },
            ],
        );
        assert_eq!(after.bars.len(), 2);
        assert!(after.links.is_empty());
        assert!(after.milestones.is_empty());
        assert!(after.actions.is_empty());
        let e = fails(
            &s,
            &[Command::DeletePeriods {
                bars: vec![BarId(10), BarId(10)],
            }],
        );
        assert_eq!(e.problem, Problem::Repeated { id: 10 });
    }

    fn set(item: u64, c: Option<(ConstraintKind, &str)>) -> Command {
        Command::SetConstraint {
            item: ItemId(item),
            constraint: c.map(|(kind, date)| Constraint {
                kind,
                date: d(date),
            }),
        }
    }

    #[test]
    fn constraints_go_to_a_bars_pin_or_its_other_place_and_undo_exactly() {
        use ConstraintKind as K;
        let s = sample();
        // "Start no earlier than" is the pin; another kind sits beside it; a second
        // other kind replaces the first; each undoes exactly (round_trip checks it).
        let a = round_trip(&s, &[set(11, Some((K::StartNoEarlierThan, "2026-11-10")))]);
        let b = a.bar(BarId(11)).unwrap();
        assert_eq!((b.pin, b.constraint), (Some(d("2026-11-10")), None));
        let fnlt = Constraint {
            kind: K::FinishNoLaterThan,
            date: d("2026-11-13"),
        };
        let a = round_trip(&a, &[set(11, Some((K::FinishNoLaterThan, "2026-11-13")))]);
        let b = a.bar(BarId(11)).unwrap();
        assert_eq!((b.pin, b.constraint), (Some(d("2026-11-10")), Some(fnlt)));
        let a = round_trip(&a, &[set(11, Some((K::MustStartOn, "2026-11-09")))]);
        assert_eq!(a.bar(BarId(11)).unwrap().pin, Some(d("2026-11-10")));
        let a = round_trip(&a, &[set(11, Some((K::StartNoEarlierThan, "2026-11-09")))]);
        assert_eq!(
            a.item_constraints(ItemId(11)).unwrap(),
            [
                Constraint {
                    kind: K::StartNoEarlierThan,
                    date: d("2026-11-09")
                },
                Constraint {
                    kind: K::MustStartOn,
                    date: d("2026-11-09")
                }
            ]
        );
        // null clears both; its inverse puts both back.
        let (cleared, done) = apply(&a, &[set(11, None)]).unwrap();
        let b = cleared.bar(BarId(11)).unwrap();
        assert_eq!((b.pin, b.constraint), (None, None));
        assert_eq!(done.inverse.len(), 2, "{:?}", done.inverse);
        round_trip(&a, &[set(11, None)]);
        // Clearing when only one place is set, and setting the other place then.
        let only_other = round_trip(&s, &[set(11, Some((K::StartNoLaterThan, "2026-11-09")))]);
        round_trip(
            &only_other,
            &[set(11, Some((K::StartNoEarlierThan, "2026-11-02")))],
        );
        round_trip(&only_other, &[set(11, None)]);
        round_trip(&a, &[set(11, Some((K::FinishNoEarlierThan, "2026-11-13")))]);
        // Nothing to change: nothing to undo.
        let (_, done) = apply(&s, &[set(11, None)]).unwrap();
        assert_eq!(done.inverse, []);

        // A milestone has one constraint, of any kind.
        let m = round_trip(&s, &[set(20, Some((K::StartNoEarlierThan, "2026-12-01")))]);
        let m = round_trip(&m, &[set(20, Some((K::FinishNoLaterThan, "2026-12-04")))]);
        assert_eq!(
            m.milestone(MilestoneId(20)).unwrap().constraint,
            Some(Constraint {
                kind: K::FinishNoLaterThan,
                date: d("2026-12-04")
            })
        );
        round_trip(&m, &[set(20, None)]);

        // Deadlines, on both kinds of items.
        let due = round_trip(
            &s,
            &[
                Command::SetDeadline {
                    item: ItemId(13),
                    deadline: Some(d("2026-11-25")),
                },
                Command::SetDeadline {
                    item: ItemId(20),
                    deadline: Some(d("2026-11-27")),
                },
            ],
        );
        assert_eq!(due.item_deadline(ItemId(13)), Some(d("2026-11-25")));
        assert_eq!(due.item_deadline(ItemId(20)), Some(d("2026-11-27")));
        round_trip(
            &due,
            &[Command::SetDeadline {
                item: ItemId(13),
                deadline: None,
            }],
        );
    }

    #[test]
    fn constraints_are_refused_on_what_is_no_item_or_out_of_range() {
        let s = sample();
        let e = fails(
            &s,
            &[set(5, Some((ConstraintKind::MustStartOn, "2026-11-02")))],
        );
        expect_test::expect!["Commande 1 (set_constraint), champ item⟨nbsp⟩: aucun bloc ni jalon n'a l'id 5 (5 est une ligne). Indiquez l'id d'un bloc ou d'un jalon du planning."]
            .assert_eq(&crate::testkit::visible(&e.message(crate::Lang::Fr)));
        let far = Command::SetConstraint {
            item: ItemId(10),
            constraint: Some(Constraint {
                kind: ConstraintKind::FinishNoLaterThan,
                date: Date::from_days(9_000_000),
            }),
        };
        let e = fails(&s, &[far]);
        assert_eq!(e.field, "constraint");
        assert!(matches!(e.problem, Problem::DateOutOfRange { .. }), "{e}");
        let e = fails(
            &s,
            &[Command::SetDeadline {
                item: ItemId(999),
                deadline: None,
            }],
        );
        assert_eq!(
            e.message(crate::Lang::En),
            "Command 1 (set_deadline), field item: no bar or milestone has id 999. Give the id of a bar or a milestone of the schedule."
        );
    }

    #[test]
    fn deleting_an_item_with_constraints_and_a_deadline_undoes_them_too() {
        let mut s = sample();
        s.bars[1].pin = Some(d("2026-11-09"));
        s.bars[1].constraint = Some(Constraint {
            kind: ConstraintKind::FinishNoLaterThan,
            date: d("2026-11-13"),
        });
        s.bars[1].deadline = Some(d("2026-11-12"));
        s.milestones[0].constraint = Some(Constraint {
            kind: ConstraintKind::MustStartOn,
            date: d("2026-11-30"),
        });
        s.milestones[0].deadline = Some(d("2026-12-01"));
        let after = round_trip(
            &s,
            &[
                Command::DeleteRow { row: RowId(5) },
                Command::DeleteMilestone {
                    milestone: MilestoneId(20),
                },
            ],
        );
        assert!(after.bar(BarId(11)).is_none());
    }

    #[test]
    fn moving_ten_thousand_bars_of_a_large_schedule() {
        let s = generate(Spec::new(100_000));
        let cal = Calendar::for_schedule(&s);
        let bars: Vec<BarId> = s.bars.iter().step_by(10).map(|b| b.id).collect();
        assert_eq!(bars.len(), 10_000);
        let milestones: Vec<MilestoneId> = s.milestones.iter().take(50).map(|m| m.id).collect();
        let mut after = s.clone();
        let done = apply_in_place(
            &mut after,
            &[Command::MovePeriods {
                bars: bars.clone(),
                milestones,
                by: 3,
            }],
        )
        .unwrap();
        assert_eq!(done.inverse.len(), 10_050);
        for (old, new) in s.bars.iter().zip(&after.bars) {
            if bars.binary_search(&old.id).is_ok() {
                assert_eq!(new.start, cal.add(old.start, 3));
                assert_eq!(
                    cal.working_days_in(new.start, new.end),
                    cal.working_days_in(old.start, old.end)
                );
            } else {
                assert_eq!(new, old);
            }
        }
        apply_in_place(&mut after, &done.inverse).unwrap();
        assert_eq!(after, s, "no id was handed out, so even next_id matches");

        // Deleting a thousand bars (and some 4,000 links and 250 actions) then undoing
        // re-adds them all in the middle of the sorted collections.
        let gone: Vec<BarId> = s.bars.iter().skip(7).step_by(100).map(|b| b.id).collect();
        let (cut, done) = apply(&s, &[Command::DeletePeriods { bars: gone }]).unwrap();
        assert_eq!(cut.bars.len(), 99_000);
        let (back, _) = apply(&cut, &done.inverse).unwrap();
        assert_eq!(back, s);
    }
}

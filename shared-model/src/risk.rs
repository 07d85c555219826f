//! Risks of a schedule as planned: links whose dates break them, bars whose row's
//! member is absent on some of the bar's working days, bars and milestones whose dates
//! break one of their date constraints, and those that finish after their deadline;
//! at a status date, bars late or overdue (`tracking`); and the risks a change adds.
//!
//! Tracking risks need a status date, which the model does not read from a clock:
//! `risks` and `highlights` are the plan's risks alone (what a change's before/after
//! compares), `risks_at` and `highlights_at` add the late and overdue bars at the date
//! passed in (the server passes the schedule's "today").
//!
//! Links are checked in working time with the same boundary convention as the critical
//! path (`Calendar::start_boundary` / `finish_boundary`), so "violated by 2 days" here
//! and "2 days of negative float" there always agree; constraints and deadlines through
//! `constraint`, which `cpm` and `push` use too.

use serde::{Deserialize, Serialize};

use crate::calendar::Calendar;
use crate::date::Date;
use crate::idset::{IdMap, IdSet};
use crate::schedule::{
    AbsenceId, BarId, Constraint, ConstraintKind, ItemId, Link, LinkId, LinkKind, MemberId,
    MilestoneId, Schedule,
};
use crate::tracking::{LateKind, Lateness};

/// What a chart highlights: the critical bars, the bars at risk and the violated
/// links, each in id order. The server sends it with the view's pages and deltas, and
/// the view computes it only when they carry none, so both give the same. Its one JSON
/// form is `to_wire`'s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Highlights {
    /// A schedule whose links loop has none (it has no critical path).
    pub critical: Vec<BarId>,
    pub at_risk: Vec<BarId>,
    pub violated_links: Vec<LinkId>,
}

/// The highlights of a schedule as planned.
pub fn highlights(s: &Schedule) -> Highlights {
    highlights_of(s, &risks(s))
}

/// The highlights at a status date: late and overdue bars are at risk too.
pub fn highlights_at(s: &Schedule, status: Date) -> Highlights {
    highlights_of(s, &risks_at(s, status))
}

fn highlights_of(s: &Schedule, r: &Risks) -> Highlights {
    // A violated link's successor can be a milestone: a chart marks bars only.
    let mut at_risk: Vec<BarId> = r
        .bars_at_risk()
        .into_iter()
        .filter(|&b| s.bar(b).is_some())
        .collect();
    crate::order::sort_by_u64(&mut at_risk, |b| b.0);
    Highlights {
        critical: crate::cpm::critical_bars(s).unwrap_or_default(),
        at_risk,
        violated_links: r.violated_links.iter().map(|v| v.link).collect(),
    }
}

impl Highlights {
    /// The form the server sends: `{critical, at_risk, violated_links}`, each list as
    /// the shorter of ids and bits over `s`'s bars or links (`idset`); `s` is the
    /// schedule these are the highlights of.
    pub fn to_wire(&self, s: &Schedule) -> serde_json::Value {
        use crate::idset::to_wire;
        let (bars, links) = universes(s);
        let of_bars = |v: &[BarId]| to_wire(&v.iter().map(|b| b.0).collect::<Vec<_>>(), &bars);
        let links_ids: Vec<u64> = self.violated_links.iter().map(|l| l.0).collect();
        serde_json::json!({
            "critical": of_bars(&self.critical),
            "at_risk": of_bars(&self.at_risk),
            "violated_links": to_wire(&links_ids, &links),
        })
    }

    /// What `to_wire` wrote of `s`; None when a list is missing or malformed, or its
    /// bits were written over other bars or links than `s`'s.
    pub fn from_wire(v: &serde_json::Value, s: &Schedule) -> Option<Highlights> {
        let (bars, links) = universes(s);
        let read = |k: &str, of: &[u64]| crate::idset::from_wire(v.get(k)?, of);
        Some(Highlights {
            critical: read("critical", &bars)?.into_iter().map(BarId).collect(),
            at_risk: read("at_risk", &bars)?.into_iter().map(BarId).collect(),
            violated_links: read("violated_links", &links)?
                .into_iter()
                .map(LinkId)
                .collect(),
        })
    }
}

/// The ids of a schedule's bars and links, in id order (the order they are kept in).
fn universes(s: &Schedule) -> (Vec<u64>, Vec<u64>) {
    (
        s.bars.iter().map(|b| b.id.0).collect(),
        s.links.iter().map(|l| l.id.0).collect(),
    )
}

/// A link whose successor is planned too early.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinkViolation {
    pub link: LinkId,
    pub from: ItemId,
    pub to: ItemId,
    pub kind: LinkKind,
    /// How many working days the successor would have to move later.
    pub by_days: i64,
}

/// A bar whose row's member is absent on some of its working days.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbsenceRisk {
    pub bar: BarId,
    pub member: MemberId,
    /// The absences involved, in id order.
    pub absences: Vec<AbsenceId>,
    /// The bar's working days on which the member is away, in order.
    pub days: Vec<Date>,
}

/// A bar or a milestone whose planned dates break one of its date constraints (a
/// bar's pin counts as its "start no earlier than").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintRisk {
    pub item: ItemId,
    pub constraint: Constraint,
    /// By how many working days the planned dates break it.
    pub by_days: i64,
}

/// A bar or a milestone planned to finish (or be reached) after its deadline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadlineRisk {
    pub item: ItemId,
    pub deadline: Date,
    /// By how many working days it finishes late.
    pub by_days: i64,
}

/// Everything at risk in a schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Risks {
    /// In link id order.
    pub violated_links: Vec<LinkViolation>,
    /// In bar id order.
    pub absence_risks: Vec<AbsenceRisk>,
    /// In item id order (a bar's pin before its other constraint).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken_constraints: Vec<ConstraintRisk>,
    /// In item id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missed_deadlines: Vec<DeadlineRisk>,
    /// The status date the late and overdue bars are measured at; None for the plan's
    /// risks alone (`risks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_date: Option<Date>,
    /// Bars behind their planned progress at the status date, in bar id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub late: Vec<Lateness>,
    /// Bars past their last day and not complete at the status date, in bar id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overdue: Vec<Lateness>,
}

impl Risks {
    pub fn is_empty(&self) -> bool {
        self.violated_links.is_empty()
            && self.absence_risks.is_empty()
            && self.broken_constraints.is_empty()
            && self.missed_deadlines.is_empty()
            && self.late.is_empty()
            && self.overdue.is_empty()
    }

    /// How many risks there are, of every kind.
    pub fn len(&self) -> usize {
        self.violated_links.len()
            + self.absence_risks.len()
            + self.broken_constraints.len()
            + self.missed_deadlines.len()
            + self.late.len()
            + self.overdue.len()
    }

    /// The bars at risk of absence, late because of a violated link, breaking one of
    /// their constraints, missing their deadline, or late or overdue at the status
    /// date (the item may also be a milestone: its id is then in the set too).
    pub fn bars_at_risk(&self) -> crate::idset::IdSet<BarId> {
        let absent = self.absence_risks.iter().map(|r| r.bar);
        let late = self.violated_links.iter().map(|v| BarId(v.to.0));
        let broken = self.broken_constraints.iter().map(|r| BarId(r.item.0));
        let missed = self.missed_deadlines.iter().map(|r| BarId(r.item.0));
        let behind = self.late.iter().chain(&self.overdue).map(|l| l.bar);
        absent
            .chain(late)
            .chain(broken)
            .chain(missed)
            .chain(behind)
            .collect()
    }
}

/// The working-time boundaries (start, finish) of every bar and milestone, as the
/// critical path sees them, computed once. Checking 200,000 links looks their ends up
/// in these compact id lists rather than in the schedule's large records, which keeps
/// the binary searches in cache (and each date is turned into working time only once).
#[derive(Clone, Debug)]
pub struct ItemBounds {
    bar_ids: Vec<BarId>,
    bar_bounds: Vec<(i64, i64)>,
    milestone_ids: Vec<MilestoneId>,
    milestone_bounds: Vec<i64>,
}

impl ItemBounds {
    pub fn new(s: &Schedule, cal: &Calendar) -> ItemBounds {
        let milestone_ids: Vec<MilestoneId> = s.milestones.iter().map(|m| m.id).collect();
        let bar_ids: Vec<BarId> = s.bars.iter().map(|b| b.id).collect();
        // A milestone sits at the start or the end of its day depending on whether a
        // link leads to it (`cpm::milestone_boundary`), as in the critical path.
        let mut preceded = vec![false; milestone_ids.len()];
        if !milestone_ids.is_empty() {
            let exists = |i: ItemId| {
                bar_ids.binary_search(&BarId(i.0)).is_ok()
                    || milestone_ids.binary_search(&MilestoneId(i.0)).is_ok()
            };
            for l in &s.links {
                if let Ok(k) = milestone_ids.binary_search(&MilestoneId(l.to.0))
                    && !preceded[k]
                    && exists(l.from)
                {
                    preceded[k] = true;
                }
            }
        }
        ItemBounds {
            bar_bounds: s
                .bars
                .iter()
                .map(|b| (cal.start_boundary(b.start), cal.finish_boundary(b.end)))
                .collect(),
            bar_ids,
            milestone_bounds: s
                .milestones
                .iter()
                .zip(&preceded)
                .map(|(m, &p)| crate::cpm::milestone_boundary(cal, m.date, p))
                .collect(),
            milestone_ids,
        }
    }

    /// (start, finish) of a bar or a milestone (a milestone's are equal).
    pub fn get(&self, id: ItemId) -> Option<(i64, i64)> {
        if let Ok(i) = self.bar_ids.binary_search(&BarId(id.0)) {
            return Some(self.bar_bounds[i]);
        }
        let k = self.milestone_ids.binary_search(&MilestoneId(id.0)).ok()?;
        Some((self.milestone_bounds[k], self.milestone_bounds[k]))
    }
}

/// How far a link's successor falls short of what the link requires, in working days
/// (positive when violated). `from` and `to` are (start, finish) boundaries.
pub fn link_shortfall(kind: LinkKind, lag_days: i64, from: (i64, i64), to: (i64, i64)) -> i64 {
    match kind {
        LinkKind::FS => from.1 + lag_days - to.0,
        LinkKind::SS => from.0 + lag_days - to.0,
        LinkKind::FF => from.1 + lag_days - to.1,
        LinkKind::SF => from.0 + lag_days - to.1,
    }
}

/// A link's lag in working days.
pub fn lag_days(cal: &Calendar, s: &Schedule, link: &Link) -> i64 {
    cal.units_to_days(s.settings.time_unit, i64::from(link.lag))
}

/// Links broken by the planned dates.
pub fn violated_links(s: &Schedule, cal: &Calendar) -> Vec<LinkViolation> {
    let bounds = ItemBounds::new(s, cal);
    let mut out = Vec::new();
    for l in &s.links {
        let (Some(from), Some(to)) = (bounds.get(l.from), bounds.get(l.to)) else {
            continue;
        };
        let by = link_shortfall(l.kind, lag_days(cal, s, l), from, to);
        if by > 0 {
            out.push(LinkViolation {
                link: l.id,
                from: l.from,
                to: l.to,
                kind: l.kind,
                by_days: by,
            });
        }
    }
    out
}

/// Bars whose row's member is absent on some of the bar's working days.
pub fn absence_risks(s: &Schedule, cal: &Calendar) -> Vec<AbsenceRisk> {
    if s.absences.is_empty() {
        return Vec::new();
    }
    let mut by_member: IdMap<MemberId, Vec<(AbsenceId, Date, Date)>> = IdMap::default();
    for a in &s.absences {
        by_member
            .entry(a.member)
            .or_default()
            .push((a.id, a.start, a.end));
    }
    let row_member: IdMap<_, _> = s
        .rows
        .iter()
        .filter_map(|r| r.member.map(|m| (r.id, m)))
        .collect();
    let mut out = Vec::new();
    for b in &s.bars {
        let Some(member) = row_member.get(&b.row) else {
            continue;
        };
        let Some(absences) = by_member.get(member) else {
            continue;
        };
        let mut ids = Vec::new();
        let mut days = Vec::new();
        for &(id, start, end) in absences {
            let (from, to) = (start.max(b.start), end.min(b.end));
            if from > to {
                continue;
            }
            let before = days.len();
            days.extend(cal.working_days(from, to));
            if days.len() > before {
                ids.push(id);
            }
        }
        if !days.is_empty() {
            crate::order::sort(&mut days);
            days.dedup();
            crate::order::sort(&mut ids);
            out.push(AbsenceRisk {
                bar: b.id,
                member: *member,
                absences: ids,
                days,
            });
        }
    }
    out
}

/// Whether some link from an existing item leads to each of these milestones (sorted
/// ids): where a milestone's constraint and deadline sit (`cpm::milestone_boundary`).
/// One pass over the links, only when some milestone is asked about.
fn preceded(s: &Schedule, milestones: &[MilestoneId]) -> Vec<bool> {
    let mut out = vec![false; milestones.len()];
    if milestones.is_empty() {
        return out;
    }
    let exists = |i: ItemId| s.bar(BarId(i.0)).is_some() || s.milestone(MilestoneId(i.0)).is_some();
    for l in &s.links {
        if let Ok(k) = milestones.binary_search(&MilestoneId(l.to.0))
            && !out[k]
            && exists(l.from)
        {
            out[k] = true;
        }
    }
    out
}

/// The planned (start, finish) boundaries of a bar, as the critical path reads them.
fn bar_at(cal: &Calendar, b: &crate::schedule::Bar) -> (i64, i64) {
    let start = cal.start_boundary(b.start);
    (start, cal.finish_boundary(b.end).max(start))
}

/// Bars and milestones whose planned dates break one of their date constraints. Costs
/// the bars and milestones, plus a pass over the links when a milestone has one.
pub fn constraint_risks(s: &Schedule, cal: &Calendar) -> Vec<ConstraintRisk> {
    let mut out = Vec::new();
    for b in s
        .bars
        .iter()
        .filter(|b| b.pin.is_some() || b.constraint.is_some())
    {
        let at = bar_at(cal, b);
        for (constraint, on) in crate::constraint::of_bar(cal, b) {
            let by_days = crate::constraint::shortfall(constraint.kind, on, at);
            if by_days > 0 {
                out.push(ConstraintRisk {
                    item: b.id.into(),
                    constraint,
                    by_days,
                });
            }
        }
    }
    let ms: Vec<MilestoneId> = s
        .milestones
        .iter()
        .filter(|m| m.constraint.is_some())
        .map(|m| m.id)
        .collect();
    for (id, p) in ms.iter().zip(preceded(s, &ms)) {
        let Some(m) = s.milestone(*id) else { continue };
        let at = crate::cpm::milestone_boundary(cal, m.date, p);
        if let Some((constraint, on)) = crate::constraint::of_milestone(cal, m, p) {
            let by_days = crate::constraint::shortfall(constraint.kind, on, (at, at));
            if by_days > 0 {
                out.push(ConstraintRisk {
                    item: m.id.into(),
                    constraint,
                    by_days,
                });
            }
        }
    }
    crate::order::sort_by_u64(&mut out, |r| r.item.0);
    out
}

/// Bars and milestones planned to finish after their deadline.
pub fn deadline_risks(s: &Schedule, cal: &Calendar) -> Vec<DeadlineRisk> {
    let mut out = Vec::new();
    for b in &s.bars {
        let Some(deadline) = b.deadline else { continue };
        let by_days = bar_at(cal, b).1 - crate::constraint::deadline_boundary(cal, deadline, None);
        if by_days > 0 {
            out.push(DeadlineRisk {
                item: b.id.into(),
                deadline,
                by_days,
            });
        }
    }
    let ms: Vec<MilestoneId> = s
        .milestones
        .iter()
        .filter(|m| m.deadline.is_some())
        .map(|m| m.id)
        .collect();
    for (id, p) in ms.iter().zip(preceded(s, &ms)) {
        let Some(m) = s.milestone(*id) else { continue };
        let Some(deadline) = m.deadline else { continue };
        let at = crate::cpm::milestone_boundary(cal, m.date, p);
        let by_days = at - crate::constraint::deadline_boundary(cal, deadline, Some(p));
        if by_days > 0 {
            out.push(DeadlineRisk {
                item: m.id.into(),
                deadline,
                by_days,
            });
        }
    }
    crate::order::sort_by_u64(&mut out, |r| r.item.0);
    out
}

/// All the risks of a schedule as planned.
pub fn risks(s: &Schedule) -> Risks {
    let cal = Calendar::for_schedule(s);
    Risks {
        violated_links: violated_links(s, &cal),
        absence_risks: absence_risks(s, &cal),
        broken_constraints: constraint_risks(s, &cal),
        missed_deadlines: deadline_risks(s, &cal),
        ..Risks::default()
    }
}

/// The risks of a schedule as planned, with the bars late or overdue at `status`.
pub fn risks_at(s: &Schedule, status: Date) -> Risks {
    let cal = Calendar::for_schedule(s);
    let (overdue, late) = crate::tracking::lateness(s, &cal, status)
        .into_iter()
        .partition(|l| l.kind == LateKind::Overdue);
    Risks {
        violated_links: violated_links(s, &cal),
        absence_risks: absence_risks(s, &cal),
        broken_constraints: constraint_risks(s, &cal),
        missed_deadlines: deadline_risks(s, &cal),
        status_date: Some(status),
        late,
        overdue,
    }
}

/// The risks of `after` that `before` did not have: a link newly violated or violated
/// by more, a bar newly at risk or at risk on more days (only its new days are listed),
/// a constraint newly broken or broken by more, a deadline newly missed or missed by
/// more, a bar newly late or overdue or so by more (against `before`'s own lists, so
/// both should be measured at the same status date).
pub fn new_risks(before: &Risks, after: &Risks) -> Risks {
    let old_links: IdMap<LinkId, i64> = before
        .violated_links
        .iter()
        .map(|v| (v.link, v.by_days))
        .collect();
    let violated_links = after
        .violated_links
        .iter()
        .filter(|v| old_links.get(&v.link).is_none_or(|old| v.by_days > *old))
        .cloned()
        .collect();
    let old_days: IdMap<BarId, IdSet<Date>> = before
        .absence_risks
        .iter()
        .map(|r| (r.bar, r.days.iter().copied().collect()))
        .collect();
    let absence_risks = after
        .absence_risks
        .iter()
        .filter_map(|r| {
            let days: Vec<Date> = match old_days.get(&r.bar) {
                None => r.days.clone(),
                Some(old) => r
                    .days
                    .iter()
                    .copied()
                    .filter(|d| !old.contains(d))
                    .collect(),
            };
            (!days.is_empty()).then(|| AbsenceRisk { days, ..r.clone() })
        })
        .collect();
    let old_constraints: IdMap<(ItemId, ConstraintKind), i64> = before
        .broken_constraints
        .iter()
        .map(|r| ((r.item, r.constraint.kind), r.by_days))
        .collect();
    let broken_constraints = after
        .broken_constraints
        .iter()
        .filter(|r| {
            old_constraints
                .get(&(r.item, r.constraint.kind))
                .is_none_or(|old| r.by_days > *old)
        })
        .cloned()
        .collect();
    let old_deadlines: IdMap<ItemId, i64> = before
        .missed_deadlines
        .iter()
        .map(|r| (r.item, r.by_days))
        .collect();
    let missed_deadlines = after
        .missed_deadlines
        .iter()
        .filter(|r| {
            old_deadlines
                .get(&r.item)
                .is_none_or(|old| r.by_days > *old)
        })
        .cloned()
        .collect();
    let behind = |old: &[Lateness], new: &[Lateness]| -> Vec<Lateness> {
        let old: IdMap<BarId, i64> = old.iter().map(|l| (l.bar, l.by_days)).collect();
        new.iter()
            .filter(|l| old.get(&l.bar).is_none_or(|o| l.by_days > *o))
            .cloned()
            .collect()
    };
    Risks {
        violated_links,
        absence_risks,
        broken_constraints,
        missed_deadlines,
        status_date: after.status_date,
        late: behind(&before.late, &after.late),
        overdue: behind(&before.overdue, &after.overdue),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn sample() -> Schedule {
        let mut s = Schedule::new("T");
        s.groups.push(Group {
            id: GroupId(1),
            name: "G".into(),
        });
        s.members.push(Member {
            id: MemberId(2),
            name: "Alice".into(),
            email: None,
        });
        s.rows.push(Row {
            id: RowId(3),
            group: GroupId(1),
            name: "R".into(),
            member: Some(MemberId(2)),
        });
        let bar = |id, start: &str, end: &str| Bar {
            id: BarId(id),
            row: RowId(3),
            label: format!("B{id}"),
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
        };
        s.bars.push(bar(4, "2026-11-02", "2026-11-06"));
        s.bars.push(bar(5, "2026-11-06", "2026-11-13"));
        s.links.push(Link {
            id: LinkId(6),
            from: ItemId(4),
            to: ItemId(5),
            kind: LinkKind::FS,
            lag: 0,
        });
        s.links.push(Link {
            id: LinkId(7),
            from: ItemId(4),
            to: ItemId(5),
            kind: LinkKind::SS,
            lag: 2,
        });
        s.absences.push(Absence {
            id: AbsenceId(8),
            member: MemberId(2),
            start: d("2026-11-12"),
            end: d("2026-11-16"),
            reason: "private".into(),
        });
        s.next_id = 9;
        s
    }

    #[test]
    fn finds_violations_and_absences() {
        let r = risks(&sample());
        assert_eq!(r.violated_links.len(), 1);
        assert_eq!(r.violated_links[0].link, LinkId(6));
        assert_eq!(r.violated_links[0].by_days, 1);
        assert_eq!(r.absence_risks.len(), 1);
        assert_eq!(r.absence_risks[0].bar, BarId(5));
        assert_eq!(
            r.absence_risks[0].days,
            vec![d("2026-11-12"), d("2026-11-13")]
        );
        assert_eq!(r.bars_at_risk(), crate::idset::IdSet::from_iter([BarId(5)]));
    }

    #[test]
    fn highlights_are_the_critical_bars_and_the_risks_in_id_order() {
        let s = crate::synth::generate(crate::synth::Spec::new(2_000));
        let h = highlights(&s);
        let r = risks(&s);
        assert!(!h.critical.is_empty() && !h.at_risk.is_empty() && !h.violated_links.is_empty());
        assert_eq!(h.critical, crate::cpm::critical_bars(&s).unwrap());
        assert!(h.at_risk.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            h.at_risk
                .iter()
                .copied()
                .collect::<crate::idset::IdSet<_>>(),
            r.bars_at_risk()
        );
        assert!(h.violated_links.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(h.violated_links.len(), r.violated_links.len());
        // The wire form (what the server sends and the view reads) reads back whole, and
        // a missing list makes it unreadable rather than empty.
        let mut v = h.to_wire(&s);
        assert_eq!(Highlights::from_wire(&v, &s), Some(h.clone()));
        // A milestone made late by a link is at risk, but a chart marks bars only.
        let mut late = s.clone();
        let (bar, milestone) = (&late.bars[0], &late.milestones[0]);
        let link = Link {
            id: LinkId(late.next_id),
            from: ItemId(bar.id.0),
            to: ItemId(milestone.id.0),
            kind: LinkKind::FS,
            lag: 0,
        };
        late.milestones[0].date = late.bars[0].start;
        late.links.push(link);
        late.next_id += 1;
        let ms = ItemId(late.milestones[0].id.0);
        assert!(risks(&late).violated_links.iter().any(|v| v.to == ms));
        let hl = highlights(&late);
        assert!(hl.at_risk.iter().all(|&b| late.bar(b).is_some()));
        // Half the bars at risk: bits, which read back whole.
        let many = Highlights {
            at_risk: late.bars.iter().step_by(2).map(|b| b.id).collect(),
            ..hl
        };
        assert_eq!(
            Highlights::from_wire(&many.to_wire(&late), &late),
            Some(many)
        );
        // Half the bars critical: as bits, one character per six bars.
        let half = Highlights {
            critical: s.bars.iter().step_by(2).map(|b| b.id).collect(),
            ..h
        };
        let w = half.to_wire(&s);
        assert!(
            w["critical"].as_str().unwrap().len() < 2_000 / 6 + 25,
            "{}",
            w["critical"]
        );
        assert_eq!(Highlights::from_wire(&w, &s), Some(half));
        // Read over a schedule with one bar less, bits are refused, not misread.
        let mut other = s.clone();
        other.bars.pop();
        assert_eq!(Highlights::from_wire(&w, &other), None);
        v.as_object_mut().unwrap().remove("at_risk");
        assert_eq!(Highlights::from_wire(&v, &s), None);
    }

    #[test]
    fn broken_constraints_and_missed_deadlines_as_planned() {
        // Bar 4 runs Mon 2 to Fri 6, bar 5 Fri 6 to Fri 13; milestone 9 on Tue 10
        // follows bar 4 (so it sits at the end of its day).
        let mut s = sample();
        s.milestones.push(Milestone {
            id: MilestoneId(9),
            row: RowId(3),
            label: "M9".into(),
            date: d("2026-11-10"),
            color: None,
            notes: String::new(),
            constraint: None,
            deadline: None,
        });
        s.links.push(Link {
            id: LinkId(10),
            from: ItemId(4),
            to: ItemId(9),
            kind: LinkKind::FS,
            lag: 0,
        });
        s.next_id = 11;
        let c = |kind, date: &str| Constraint {
            kind,
            date: d(date),
        };
        s.bars[0].pin = Some(d("2026-11-03"));
        s.bars[0].constraint = Some(c(ConstraintKind::FinishNoLaterThan, "2026-11-05"));
        s.bars[1].deadline = Some(d("2026-11-11"));
        s.milestones[0].constraint = Some(c(ConstraintKind::StartNoLaterThan, "2026-11-09"));
        s.milestones[0].deadline = Some(d("2026-11-10"));
        let r = risks(&s);
        let broken: Vec<(u64, ConstraintKind, i64)> = r
            .broken_constraints
            .iter()
            .map(|r| (r.item.0, r.constraint.kind, r.by_days))
            .collect();
        assert_eq!(
            broken,
            [
                (4, ConstraintKind::StartNoEarlierThan, 1),
                (4, ConstraintKind::FinishNoLaterThan, 1),
                (9, ConstraintKind::StartNoLaterThan, 1),
            ]
        );
        // Bar 5 ends Friday 13, two working days after Wednesday 11 (nothing is off).
        let missed: Vec<(u64, i64)> = r
            .missed_deadlines
            .iter()
            .map(|m| (m.item.0, m.by_days))
            .collect();
        assert_eq!(missed, [(5, 2)], "the milestone is reached on its deadline");
        // Bar 4 is now at risk too; a chart marks bars only.
        assert_eq!(highlights(&s).at_risk, [BarId(4), BarId(5)]);
        assert_eq!(r.len(), 1 + 1 + 3 + 1);
        // The same milestone with no link sits at the start of its day: the start of
        // Tuesday is one working day past "start no later than Monday" too.
        let mut alone = s.clone();
        alone.links.retain(|l| l.id != LinkId(10));
        let r = risks(&alone);
        assert!(
            r.broken_constraints
                .iter()
                .any(|b| b.item == ItemId(9) && b.by_days == 1)
        );

        // What a change adds: a constraint broken by more, a deadline newly missed.
        let mut later = s.clone();
        later.bars[0].end = d("2026-11-09");
        later.milestones[0].deadline = Some(d("2026-11-09"));
        let added = new_risks(&risks(&s), &risks(&later));
        let broken: Vec<(u64, ConstraintKind, i64)> = added
            .broken_constraints
            .iter()
            .map(|r| (r.item.0, r.constraint.kind, r.by_days))
            .collect();
        assert_eq!(broken, [(4, ConstraintKind::FinishNoLaterThan, 2)]);
        let missed: Vec<u64> = added.missed_deadlines.iter().map(|m| m.item.0).collect();
        assert_eq!(missed, [9]);
        assert!(
            new_risks(&risks(&later), &risks(&s))
                .broken_constraints
                .is_empty()
        );
        // The wire form of the risks carries them, and older data reads without them.
        let json = serde_json::to_string(&risks(&s)).unwrap();
        assert_eq!(serde_json::from_str::<Risks>(&json).unwrap(), risks(&s));
        let old: Risks =
            serde_json::from_str(r#"{"violated_links":[],"absence_risks":[]}"#).unwrap();
        assert!(old.is_empty());
    }

    #[test]
    fn late_and_overdue_bars_are_risks_at_a_status_date_only() {
        let mut s = sample();
        s.bars[1].progress = 10;
        // Without a status date there is no tracking risk.
        assert!(risks(&s).late.is_empty() && risks(&s).overdue.is_empty());
        // At Thursday 2026-11-12: bar 4 (ended Friday 6, 0 %) is overdue, bar 5
        // (Fri 6 – Fri 13) late.
        let at = risks_at(&s, d("2026-11-12"));
        assert_eq!(at.status_date, Some(d("2026-11-12")));
        assert_eq!(at.overdue.iter().map(|l| l.bar.0).collect::<Vec<_>>(), [4]);
        assert_eq!(at.late.iter().map(|l| l.bar.0).collect::<Vec<_>>(), [5]);
        assert_eq!(at.len(), risks(&s).len() + 2);
        let h = highlights_at(&s, d("2026-11-12"));
        assert!(h.at_risk.contains(&BarId(4)) && h.at_risk.contains(&BarId(5)));
        // Completing bar 5 takes it out; a bar later by more is a new risk.
        let before = at.clone();
        s.bars[1].progress = 100;
        let after = risks_at(&s, d("2026-11-12"));
        assert!(after.late.is_empty());
        assert!(new_risks(&before, &after).overdue.is_empty());
        let later = risks_at(&s, d("2026-11-13"));
        assert_eq!(new_risks(&after, &later).overdue.len(), 1);
    }

    #[test]
    fn each_link_kind_and_lag() {
        // from = working days [10, 15), to = [12, 20).
        let (f, t) = ((10, 15), (12, 20));
        assert_eq!(link_shortfall(LinkKind::FS, 0, f, t), 3);
        assert_eq!(link_shortfall(LinkKind::FS, -3, f, t), 0);
        assert_eq!(link_shortfall(LinkKind::SS, 2, f, t), 0);
        assert_eq!(link_shortfall(LinkKind::SS, 3, f, t), 1);
        assert_eq!(link_shortfall(LinkKind::FF, 5, f, t), 0);
        assert_eq!(link_shortfall(LinkKind::FF, 6, f, t), 1);
        assert_eq!(link_shortfall(LinkKind::SF, 10, f, t), 0);
        assert_eq!(link_shortfall(LinkKind::SF, 11, f, t), 1);
    }

    #[test]
    fn new_risks_are_only_what_the_change_adds() {
        let before = sample();
        let mut after = before.clone();
        after.bars[1].start = d("2026-11-09");
        after.bars[1].end = d("2026-11-16");
        after.bars[0].end = d("2026-11-10");
        let added = new_risks(&risks(&before), &risks(&after));
        assert_eq!(added.violated_links.len(), 1, "{added:?}");
        assert_eq!(added.absence_risks[0].days, vec![d("2026-11-16")]);
        assert!(new_risks(&risks(&before), &risks(&before)).is_empty());
    }
}

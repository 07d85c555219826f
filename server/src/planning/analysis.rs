//! Analysis: the risks (`schedule_risks`), and what two tools answer with an option:
//! the critical path (`schedule_floats` with `path: true`) and each member's workload
//! (`list_members` with `workload: true`).
//!
//! They read the schedule redacted for the caller (none of them shows private data,
//! but reading through one door keeps it that way) and compute with the model's `cpm`
//! and `risk`, the same code the view uses, so the numbers an assistant quotes are
//! the ones the chart draws.

use crate::planning::Code;
use std::collections::HashMap;

use palmaplan_model::calendar::Calendar;
use palmaplan_model::command::Problem;
use palmaplan_model::cpm::{self, CycleError, ItemKind};
use palmaplan_model::text::{self, LIST_CAP};
use palmaplan_model::{
    AbsenceId, BarId, ConstraintKind, Date, ItemId, Lang, LinkId, LinkKind, MemberId, Schedule,
    risk,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::people::{more_line, opt_date, quoted, span_text, working_days};
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "schedule_risks",
            "Risks: violated links (largest gap first), absences on bars, broken constraints, missed deadlines, late or overdue bars.",
            Access::Read,
            schedule_risks,
        )
        .returns::<RisksAnswer>(),
    ]
}

/// Whether an item is a bar or a milestone (the model's `cpm::ItemKind`, which has no
/// schema of its own).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Bar,
    Milestone,
}

impl From<ItemKind> for Kind {
    fn from(k: ItemKind) -> Kind {
        match k {
            ItemKind::Bar => Kind::Bar,
            ItemKind::Milestone => Kind::Milestone,
        }
    }
}

/// A critical item, at its dates once its links hold.
#[derive(Debug, Serialize, JsonSchema)]
struct CriticalItem {
    id: ItemId,
    kind: Kind,
    start: Date,
    end: Date,
}

/// The critical path (`schedule_floats` with `path: true`). A schedule without bars nor milestones has only its id,
/// rank, a count of 0 and no item.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct CriticalAnswer {
    schedule_id: i64,
    rank: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    project_start: Option<Date>,
    /// The project end once the links and constraints hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    project_end: Option<Date>,
    /// The end of the plan as drawn (null when nothing is planned).
    #[serde(skip_serializing_if = "Option::is_none")]
    planned_end: Option<Option<Date>>,
    /// Working days from start to end.
    #[serde(skip_serializing_if = "Option::is_none")]
    length_days: Option<i64>,
    /// How many items are critical.
    count: usize,
    /// The critical items in order (the first 50).
    critical: Vec<CriticalItem>,
    /// The driving links between critical items (the first 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    critical_links: Option<Vec<LinkId>>,
}

/// The refusal for links that loop back on themselves: the model's own wording of a
/// cycle, with the items' labels.
pub(super) fn cycle_refusal(ctx: &Ctx, s: &Schedule, e: &CycleError) -> Refusal {
    let items: Vec<(ItemId, String)> = e
        .items
        .iter()
        .map(|id| {
            let label: String = s.item_label(*id).unwrap_or("?").chars().take(60).collect();
            (*id, label)
        })
        .collect();
    let problem = Problem::Cycle { items }.message(ctx.lang());
    Refusal::new(
        Code::Cycle,
        ctx.tr(
            format!(
                "Pas de chemin critique pour «\u{a0}{}\u{a0}»\u{a0}: {problem}",
                s.name
            ),
            format!("No critical path for “{}”: {problem}", s.name),
        ),
    )
    .with(json!({ "items": e.items }))
}

fn kind_word(ctx: &Ctx, kind: ItemKind) -> String {
    match kind {
        ItemKind::Bar => ctx.tr("bloc", "bar"),
        ItemKind::Milestone => ctx.tr("jalon", "milestone"),
    }
}

fn link_kind(kind: LinkKind) -> &'static str {
    match kind {
        LinkKind::FS => "FS",
        LinkKind::SS => "SS",
        LinkKind::FF => "FF",
        LinkKind::SF => "SF",
    }
}

/// The critical path (`schedule_floats` with `path: true`).
pub(super) async fn critical_path(ctx: Ctx, schedule: &ScheduleRef) -> Result<Reply, Refusal> {
    let o = ctx.open_redacted(schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    let cp = cpm::critical_path(s).map_err(|e| cycle_refusal(&ctx, s, &e))?;
    let (Some(start), Some(end)) = (cp.project_start, cp.project_end) else {
        return Ok(Reply::ok(
            ctx.tr(
                format!("«\u{a0}{}\u{a0}» n'a ni bloc ni jalon\u{a0}: il n'a pas de chemin critique. Ajoutez des blocs avec add_period.", s.name),
                format!("“{}” has no bar nor milestone: it has no critical path. Add bars with add_period.", s.name),
            ),
            json!(CriticalAnswer {
                schedule_id: o.id,
                rank: o.rank,
                project_start: None,
                project_end: None,
                planned_end: None,
                length_days: None,
                count: 0,
                critical: Vec::new(),
                critical_links: None,
            }),
        ));
    };
    let mut critical: Vec<_> = cp.items.iter().filter(|t| t.critical).collect();
    critical.sort_by_key(|t| (t.early_start, t.early_finish, t.item));
    // The driving links of each critical item, by successor.
    let mut driving: HashMap<ItemId, Vec<&palmaplan_model::Link>> = HashMap::new();
    for id in &cp.critical_links {
        if let Some(l) = s.link(*id) {
            driving.entry(l.to).or_default().push(l);
        }
    }
    let length = working_days(lang, cp.length_days);
    // The critical path is that of the plan once its links hold; where some link is
    // violated that ends later than the plan as drawn, and the text says both.
    let plan_end = cp.planned_end.filter(|p| *p != end);
    let mut text = ctx.tr(
        format!(
            "«\u{a0}{}\u{a0}»\u{a0}: du {start} au {end}, {length}. Chemin critique ({} élément{})\u{a0}:",
            s.name,
            critical.len(),
            if critical.len() > 1 { "s" } else { "" }
        ),
        format!(
            "“{}”: from {start} to {end}, {length}. Critical path ({} item{}):",
            s.name,
            critical.len(),
            if critical.len() == 1 { "" } else { "s" }
        ),
    );
    for t in critical.iter().take(LIST_CAP) {
        let label = s.item_label(t.item).unwrap_or("?");
        let sep = if lang == Lang::Fr { "\u{a0}:" } else { ":" };
        text.push_str(&format!(
            "\n- {} {} {}{sep} {}",
            kind_word(&ctx, t.kind),
            t.item,
            quoted(lang, label),
            span_text(t.early_start, t.early_finish)
        ));
        if let Some((ps, pe)) = s.item_dates(t.item)
            && (ps, pe) != (t.early_start, t.early_finish)
        {
            text.push_str(&ctx.tr(
                format!(" (prévu {})", span_text(ps, pe)),
                format!(" (planned {})", span_text(ps, pe)),
            ));
        }
        if let Some(links) = driving.get(&t.item) {
            let parts: Vec<String> = links
                .iter()
                .take(5)
                .map(|l| {
                    let lag = if l.lag == 0 {
                        String::new()
                    } else {
                        format!(" {:+}", l.lag)
                    };
                    let from: String = s
                        .item_label(l.from)
                        .unwrap_or("?")
                        .chars()
                        .take(40)
                        .collect();
                    let from = format!("{} ({})", quoted(lang, &from), l.from);
                    ctx.tr(
                        format!("lien {} {}{lag} depuis {from}", l.id, link_kind(l.kind)),
                        format!("link {} {}{lag} from {from}", l.id, link_kind(l.kind)),
                    )
                })
                .collect();
            text.push_str(&format!(" ← {}", parts.join(", ")));
        }
    }
    if critical.len() > LIST_CAP {
        text.push('\n');
        text.push_str(&more_line(&ctx, critical.len() - LIST_CAP));
    }
    if let Some(plan) = plan_end {
        text.push('\n');
        text.push_str(&ctx.tr(
            format!("Ces dates sont celles du plan une fois ses liens et contraintes respectés\u{a0}: tel que dessiné, il finit le {plan}, mais des liens ou des contraintes y sont violés (reschedule le replanifie)."),
            format!("These are the plan's dates once its links and constraints hold: as drawn it ends on {plan}, but some of its links or constraints are violated (reschedule replans it)."),
        ));
    }
    text.push('\n');
    text.push_str(&ctx.tr(
        "Ces éléments n'ont aucune marge\u{a0}: si l'un glisse, la fin du projet glisse d'autant.",
        "These items have no slack: if one slips, the project end slips as much.",
    ));
    let items: Vec<_> = critical
        .iter()
        .take(LIST_CAP)
        .map(|t| CriticalItem {
            id: t.item,
            kind: t.kind.into(),
            start: t.early_start,
            end: t.early_finish,
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(CriticalAnswer {
            schedule_id: o.id,
            rank: o.rank,
            project_start: Some(start),
            project_end: Some(end),
            planned_end: Some(cp.planned_end),
            length_days: Some(cp.length_days),
            count: critical.len(),
            critical: items,
            critical_links: Some(cp.critical_links.iter().take(100).copied().collect()),
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RisksArgs {
    schedule: ScheduleRef,
    /// YYYY-MM-DD; default: today.
    #[serde(default)]
    status_date: Option<String>,
}

/// How many risks of each kind there are.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct RiskCounts {
    violated_links: usize,
    absence_risks: usize,
    broken_constraints: usize,
    missed_deadlines: usize,
    late: usize,
    overdue: usize,
}

impl RiskCounts {
    pub(super) fn of(risks: &risk::Risks) -> RiskCounts {
        RiskCounts {
            violated_links: risks.violated_links.len(),
            absence_risks: risks.absence_risks.len(),
            broken_constraints: risks.broken_constraints.len(),
            missed_deadlines: risks.missed_deadlines.len(),
            late: risks.late.len(),
            overdue: risks.overdue.len(),
        }
    }
}

/// A link whose successor starts or ends too early.
#[derive(Debug, Serialize, JsonSchema)]
struct ViolatedLink {
    link: LinkId,
    from: ItemId,
    to: ItemId,
    /// Working days it is violated by.
    by_days: i64,
}

/// A bar whose member is absent during it.
#[derive(Debug, Serialize, JsonSchema)]
struct AbsenceOnBar {
    bar: BarId,
    member: MemberId,
    absences: Vec<AbsenceId>,
    /// Working days of the bar the member is absent.
    days: usize,
}

/// An item whose dates break one of its date constraints.
#[derive(Debug, Serialize, JsonSchema)]
struct BrokenConstraint {
    item: ItemId,
    kind: ConstraintKind,
    date: Date,
    by_days: i64,
}

/// An item ending after its deadline.
#[derive(Debug, Serialize, JsonSchema)]
struct MissedDeadline {
    item: ItemId,
    deadline: Date,
    by_days: i64,
}

/// A bar behind its plan (late) or past its end unfinished (overdue).
#[derive(Debug, Serialize, JsonSchema)]
struct Behind {
    bar: BarId,
    /// Late: working days its progress is behind; overdue: working days since its end.
    by_days: i64,
    /// Planned progress at the status date, in percent.
    planned: u8,
    /// Its progress, in percent.
    actual: u8,
}

/// `schedule_risks`'s result: the risks counted, each list holding the first 50 of
/// its kind.
#[derive(Debug, Serialize, JsonSchema)]
struct RisksAnswer {
    schedule_id: i64,
    rank: i64,
    status_date: Date,
    counts: RiskCounts,
    violated_links: Vec<ViolatedLink>,
    absence_risks: Vec<AbsenceOnBar>,
    broken_constraints: Vec<BrokenConstraint>,
    missed_deadlines: Vec<MissedDeadline>,
    late: Vec<Behind>,
    overdue: Vec<Behind>,
}

async fn schedule_risks(ctx: Ctx, p: RisksArgs) -> Result<Reply, Refusal> {
    let given = p
        .status_date
        .as_deref()
        .map(|d| super::args::date(&ctx, "status_date", d))
        .transpose()?;
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    let status = given.unwrap_or_else(|| super::zones::today_of(&ctx, s));
    let risks = risk::risks_at(s, status);
    let text = match text::risks_line(&risks, lang) {
        None => ctx.tr(
            format!("«\u{a0}{}\u{a0}» n'a aucun risque au {status}\u{a0}: aucun lien n'est violé, aucune absence ne touche un bloc, aucune contrainte de date n'est enfreinte, aucune échéance n'est dépassée et aucun bloc n'est en retard.", s.name),
            format!("“{}” has no risk at {status}: no link is broken, no absence touches a bar, no date constraint is broken, no deadline is missed and no bar is late.", s.name),
        ),
        Some(line) => {
            let details = text::risk_details(s, &risks, lang);
            let mut out = ctx.tr(
                format!("«\u{a0}{}\u{a0}» au {status} — {line}", s.name),
                format!("“{}” at {status} — {line}", s.name),
            );
            for d in details.iter().take(LIST_CAP) {
                out.push_str("\n- ");
                out.push_str(d);
            }
            if details.len() > LIST_CAP {
                out.push('\n');
                out.push_str(&more_line(&ctx, details.len() - LIST_CAP));
            }
            out
        }
    };
    // The largest gap first: the ones to fix first.
    let mut worst: Vec<&risk::LinkViolation> = risks.violated_links.iter().collect();
    worst.sort_by(|a, b| b.by_days.cmp(&a.by_days).then(a.link.cmp(&b.link)));
    let links: Vec<_> = worst
        .into_iter()
        .take(LIST_CAP)
        .map(|v| ViolatedLink {
            link: v.link,
            from: v.from,
            to: v.to,
            by_days: v.by_days,
        })
        .collect();
    let absences: Vec<_> = risks
        .absence_risks
        .iter()
        .take(LIST_CAP)
        .map(|r| AbsenceOnBar {
            bar: r.bar,
            member: r.member,
            absences: r.absences.clone(),
            days: r.days.len(),
        })
        .collect();
    let constraints: Vec<_> = risks
        .broken_constraints
        .iter()
        .take(LIST_CAP)
        .map(|r| BrokenConstraint {
            item: r.item,
            kind: r.constraint.kind,
            date: r.constraint.date,
            by_days: r.by_days,
        })
        .collect();
    let deadlines: Vec<_> = risks
        .missed_deadlines
        .iter()
        .take(LIST_CAP)
        .map(|r| MissedDeadline {
            item: r.item,
            deadline: r.deadline,
            by_days: r.by_days,
        })
        .collect();
    let behind = |v: &[palmaplan_model::tracking::Lateness]| -> Vec<Behind> {
        v.iter()
            .take(LIST_CAP)
            .map(|l| Behind {
                bar: l.bar,
                by_days: l.by_days,
                planned: l.planned,
                actual: l.actual,
            })
            .collect()
    };
    Ok(Reply::ok(
        text,
        json!(RisksAnswer {
            schedule_id: o.id,
            rank: o.rank,
            status_date: status,
            counts: RiskCounts::of(&risks),
            violated_links: links,
            absence_risks: absences,
            broken_constraints: constraints,
            missed_deadlines: deadlines,
            late: behind(&risks.late),
            overdue: behind(&risks.overdue),
        }),
    ))
}

/// `list_members` with `workload: true`: the range.
#[derive(Debug)]
pub(super) struct Workload {
    pub(super) schedule: ScheduleRef,
    /// YYYY-MM-DD; default: the schedule's start.
    pub(super) from: Option<String>,
    /// YYYY-MM-DD; default: the schedule's end.
    pub(super) to: Option<String>,
}

/// A member's load over the range.
#[derive(Debug, Serialize, JsonSchema)]
struct MemberLoad {
    id: MemberId,
    name: String,
    /// Working days of bars on the member's rows (overlaps counted twice).
    bar_days: i64,
    bars: usize,
    absence_days: i64,
    /// More days of bars than available days.
    overloaded: bool,
}

/// The bars on rows without a member.
#[derive(Debug, Serialize, JsonSchema)]
struct Unassigned {
    bar_days: i64,
    bars: usize,
}

/// `workload`'s result. A schedule without bars nor milestones, and no range given,
/// has only its id, rank and no member.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct WorkloadAnswer {
    schedule_id: i64,
    rank: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<Date>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<Date>,
    /// Working days in the range.
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_days: Option<i64>,
    /// The first 100 members.
    members: Vec<MemberLoad>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unassigned: Option<Unassigned>,
}

/// One member's load over the range.
#[derive(Default)]
struct Load {
    bar_days: i64,
    bars: usize,
    absence_days: i64,
}

/// Working days in the union of some inclusive spans, clipped to [from, to].
fn union_days(cal: &Calendar, mut spans: Vec<(Date, Date)>, from: Date, to: Date) -> i64 {
    spans.retain(|(a, b)| *a <= to && *b >= from);
    spans.sort_unstable();
    let mut total = 0;
    let mut current: Option<(Date, Date)> = None;
    for (a, b) in spans {
        let (a, b) = (a.max(from), b.min(to));
        match current {
            Some((ca, cb)) if a <= cb.add_days(1) => current = Some((ca, cb.max(b))),
            Some((ca, cb)) => {
                total += cal.working_days_in(ca, cb);
                current = Some((a, b));
            }
            None => current = Some((a, b)),
        }
    }
    if let Some((a, b)) = current {
        total += cal.working_days_in(a, b);
    }
    total
}

/// Past this many members the list ends with "… and N more".
const WORKLOAD_CAP: usize = 100;

pub(super) async fn workload(ctx: Ctx, p: Workload) -> Result<Reply, Refusal> {
    let from = opt_date(&ctx, "from", p.from.as_deref())?;
    let to = opt_date(&ctx, "to", p.to.as_deref())?;
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let lang = ctx.lang();
    let span = s.span();
    let (Some(from), Some(to)) = (from.or(span.map(|x| x.0)), to.or(span.map(|x| x.1))) else {
        return Ok(Reply::ok(
            ctx.tr(
                format!("«\u{a0}{}\u{a0}» n'a ni bloc ni jalon\u{a0}: pas de charge à calculer. Donnez «\u{a0}from\u{a0}» et «\u{a0}to\u{a0}» pour compter les absences.", s.name),
                format!("“{}” has no bar nor milestone: no workload to compute. Give “from” and “to” to count absences.", s.name),
            ),
            json!(WorkloadAnswer {
                schedule_id: o.id,
                rank: o.rank,
                from: None,
                to: None,
                capacity_days: None,
                members: Vec::new(),
                unassigned: None,
            }),
        ));
    };
    if to < from {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}to\u{a0}» ({to}) précède «\u{a0}from\u{a0}» ({from})\u{a0}: donnez une fin le jour du début ou après."),
                format!("“to” ({to}) is before “from” ({from}): give an end on or after the start."),
            ),
        ));
    }
    let cal = Calendar::for_schedule(s);
    let capacity = cal.working_days_in(from, to);
    let row_member: HashMap<_, _> = s.rows.iter().map(|r| (r.id, r.member)).collect();
    let mut loads: HashMap<Option<MemberId>, Load> = HashMap::new();
    for b in &s.bars {
        if b.end < from || b.start > to {
            continue;
        }
        let member = row_member.get(&b.row).copied().flatten();
        let l = loads.entry(member).or_default();
        l.bars += 1;
        l.bar_days += cal.working_days_in(b.start.max(from), b.end.min(to));
    }
    let mut spans: HashMap<MemberId, Vec<(Date, Date)>> = HashMap::new();
    for a in &s.absences {
        spans.entry(a.member).or_default().push((a.start, a.end));
    }
    for (m, v) in spans {
        loads.entry(Some(m)).or_default().absence_days = union_days(&cal, v, from, to);
    }

    let mut text = ctx.tr(
        format!(
            "Charge de «\u{a0}{}\u{a0}» du {from} au {to} ({})\u{a0}:",
            s.name,
            working_days(lang, capacity)
        ),
        format!(
            "Workload of “{}” from {from} to {to} ({}):",
            s.name,
            working_days(lang, capacity)
        ),
    );
    let mut items = Vec::new();
    let mut overloaded = 0;
    for m in s.members.iter().take(WORKLOAD_CAP) {
        let l = loads.get(&Some(m.id));
        let (bar_days, bars, absence_days) =
            l.map_or((0, 0, 0), |l| (l.bar_days, l.bars, l.absence_days));
        let available = capacity - absence_days;
        let over = bar_days > available;
        overloaded += usize::from(over);
        text.push_str(&ctx.tr(
            format!(
                "\n- {} ({})\u{a0}: {} de blocs ({}), {} d'absence, {} disponibles",
                m.name,
                m.id,
                working_days(lang, bar_days),
                text::count(Lang::Fr, bars, "bloc", "blocs"),
                working_days(lang, absence_days),
                working_days(lang, available),
            ),
            format!(
                "\n- {} ({}): {} of bars ({}), {} of absence, {} available",
                m.name,
                m.id,
                working_days(lang, bar_days),
                text::count(Lang::En, bars, "bar", "bars"),
                working_days(lang, absence_days),
                working_days(lang, available),
            ),
        ));
        if over {
            text.push_str(&ctx.tr(" — surchargé", " — overloaded"));
        }
        items.push(MemberLoad {
            id: m.id,
            name: m.name.clone(),
            bar_days,
            bars,
            absence_days,
            overloaded: over,
        });
    }
    if s.members.len() > WORKLOAD_CAP {
        text.push('\n');
        text.push_str(&more_line(&ctx, s.members.len() - WORKLOAD_CAP));
    }
    let unassigned = loads.get(&None);
    let (free_days, free_bars) = unassigned.map_or((0, 0), |l| (l.bar_days, l.bars));
    if free_bars > 0 {
        text.push_str(&ctx.tr(
            format!(
                "\n- Sans membre\u{a0}: {} de blocs ({}) sur des lignes sans membre (update_row les affecte).",
                working_days(lang, free_days),
                text::count(Lang::Fr, free_bars, "bloc", "blocs")
            ),
            format!(
                "\n- No member: {} of bars ({}) on rows without a member (update_row assigns them).",
                working_days(lang, free_days),
                text::count(Lang::En, free_bars, "bar", "bars")
            ),
        ));
    }
    if s.members.is_empty() {
        text.push_str(&ctx.tr(
            "\nCe planning n'a aucun membre\u{a0}: ajoutez-en avec add_member.",
            "\nThis schedule has no member: add some with add_member.",
        ));
    }
    if overloaded > 0 {
        text.push_str(&ctx.tr(
            "\nSurchargé\u{a0}: plus de jours de blocs que de jours disponibles (des blocs se chevauchent sur ses lignes).",
            "\nOverloaded: more days of bars than available days (bars overlap on their rows).",
        ));
    }
    Ok(Reply::ok(
        text,
        json!(WorkloadAnswer {
            schedule_id: o.id,
            rank: o.rank,
            from: Some(from),
            to: Some(to),
            capacity_days: Some(capacity),
            members: items,
            unassigned: Some(Unassigned {
                bar_days: free_days,
                bars: free_bars,
            }),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::{Kit, en};
    use super::*;
    use palmaplan_model::{Link, LinkId, demo};

    #[tokio::test]
    async fn the_demo_critical_path_reads_in_order_with_its_links() {
        let k = Kit::new("critical-path").await;
        let r = k
            .ok(
                &k.viewer,
                "schedule_floats",
                json!({ "schedule": k.schedule, "path": true }),
            )
            .await;
        // The demo's go-live comes the working day after the cutover (FS +1): the
        // whole chain is critical, each item with the links that drive it.
        let expected = "«\u{a0}S/4HANA Migration\u{a0}»\u{a0}: du 2026-11-02 au 2026-12-18, 34 jours ouvrés. Chemin critique (7 éléments)\u{a0}:
- bloc 13 «\u{a0}Audit du système\u{a0}»\u{a0}: 2026-11-02 → 2026-11-13
- bloc 14 «\u{a0}Nettoyage des données\u{a0}»\u{a0}: 2026-11-09 → 2026-11-20 ← lien 20 SS +5 depuis «\u{a0}Audit du système\u{a0}» (13)
- bloc 15 «\u{a0}Adaptation du code ABAP\u{a0}»\u{a0}: 2026-11-16 → 2026-12-04 ← lien 21 FS depuis «\u{a0}Audit du système\u{a0}» (13)
- bloc 16 «\u{a0}Migration à blanc\u{a0}»\u{a0}: 2026-11-23 → 2026-12-04 ← lien 22 FS depuis «\u{a0}Nettoyage des données\u{a0}» (14)
- bloc 17 «\u{a0}Recette utilisateurs\u{a0}»\u{a0}: 2026-12-07 → 2026-12-11 ← lien 23 FS depuis «\u{a0}Adaptation du code ABAP\u{a0}» (15), lien 24 FS depuis «\u{a0}Migration à blanc\u{a0}» (16)
- bloc 18 «\u{a0}Bascule en production\u{a0}»\u{a0}: 2026-12-14 → 2026-12-17 ← lien 25 FS depuis «\u{a0}Recette utilisateurs\u{a0}» (17)
- jalon 19 «\u{a0}Go-live S/4HANA\u{a0}»\u{a0}: 2026-12-18 ← lien 26 FS +1 depuis «\u{a0}Bascule en production\u{a0}» (18)
Ces éléments n'ont aucune marge\u{a0}: si l'un glisse, la fin du projet glisse d'autant.";
        assert_eq!(r.text, expected);
        assert_eq!(r.structured["length_days"], 34);
        assert_eq!(r.structured["project_end"], "2026-12-18");
        assert_eq!(r.structured["planned_end"], "2026-12-18");
        assert_eq!(
            r.structured["critical_links"],
            json!([20, 21, 22, 23, 24, 25, 26])
        );
        let r = k
            .ok(
                &en(&k.viewer),
                "schedule_floats",
                json!({ "schedule": k.schedule, "path": true }),
            )
            .await;
        assert!(
            r.text.starts_with(
                "“S/4HANA Migration”: from 2026-11-02 to 2026-12-18, 34 working days."
            ),
            "{}",
            r.text
        );
        assert!(
            r.text.contains("- bar 13 “Audit du système”: 2026-11-02"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn a_cycle_is_a_refusal_that_names_its_items() {
        let k = Kit::new("cycle").await;
        // Commands and imports refuse cycles, so this state is written to the store
        // directly, as a damaged database would hold it.
        let mut s = demo::s4hana_migration();
        s.name = "Boucle".into();
        s.links.push(Link {
            id: LinkId(s.next_id),
            from: ItemId(17),
            to: ItemId(13),
            kind: LinkKind::FS,
            lag: 0,
        });
        s.next_id += 1;
        let id = k
            .planning
            .store()
            .create_schedule(&s, k.owner.user_id, 0)
            .await
            .unwrap();
        let r = k
            .refused(
                &k.owner,
                "schedule_floats",
                json!({ "schedule": id, "path": true }),
            )
            .await;
        assert_eq!(r.structured["error"], "cycle");
        assert!(r.text.starts_with("Pas de chemin critique pour «\u{a0}Boucle\u{a0}»\u{a0}: cycle de liens\u{a0}: 13 «\u{a0}Audit du système\u{a0}» → "), "{}", r.text);
        assert!(
            r.text.contains("17 «\u{a0}Recette utilisateurs\u{a0}»"),
            "{}",
            r.text
        );
        assert!(r.text.contains("retirez un lien"), "{}", r.text);
        assert_eq!(r.structured["items"][0], 13);
        // The filter still answers, and says why nothing is critical.
        let r = k
            .ok(
                &en(&k.owner),
                "list_periods",
                json!({ "schedule": id, "filter": "is:critical" }),
            )
            .await;
        assert_eq!(r.structured["count"], 0);
        assert!(r.text.contains("form a cycle"), "{}", r.text);
    }

    #[tokio::test]
    async fn risks_and_workload_of_the_demo() {
        let k = Kit::new("risks-workload").await;
        let r = k
            .ok(
                &k.viewer,
                "schedule_risks",
                json!({ "schedule": k.schedule }),
            )
            .await;
        assert_eq!(
            r.text,
            "«\u{a0}S/4HANA Migration\u{a0}» au 2026-05-28 — Risques\u{a0}: 1 bloc à risque d'absence.\n- «\u{a0}Adaptation du code ABAP\u{a0}» (bloc 15)\u{a0}: absence de Thomas Dubois sur 2 jours ouvrés (2026-11-26 → 2026-11-27)."
        );
        assert_eq!(r.structured["counts"]["absence_risks"], 1);
        let r = k
            .ok(
                &en(&k.viewer),
                "list_members",
                json!({ "schedule": k.schedule, "workload": true, "from": "2026-11-23", "to": "2026-11-27" }),
            )
            .await;
        assert!(
            r.text.contains("- Thomas Dubois (4): 5 working days of bars (1 bar), 2 working days of absence, 3 working days available — overloaded"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("- Camille Martin (1): 0 working days of bars"),
            "{}",
            r.text
        );
        let thomas = &r.structured["members"][3];
        assert_eq!(
            (thomas["bar_days"].as_i64(), thomas["absence_days"].as_i64()),
            (Some(5), Some(2))
        );
        let r = k
            .ok(
                &k.viewer,
                "list_members",
                json!({ "schedule": k.schedule, "workload": true }),
            )
            .await;
        assert!(
            r.text
                .contains("du 2026-11-02 au 2026-12-18 (34 jours ouvrés)"),
            "{}",
            r.text
        );
        assert!(
            r.text.contains(
                "Camille Martin (1)\u{a0}: 5 jours ouvrés de blocs (1 bloc), 0 jour ouvré d'absence"
            ),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.viewer,
                "list_members",
                json!({ "schedule": k.schedule, "workload": true, "from": "2026-12-01", "to": "2026-11-01" }),
            )
            .await;
        assert!(r.text.contains("précède"), "{}", r.text);
        let r = k
            .refused(
                &k.viewer,
                "list_members",
                json!({ "schedule": k.schedule, "workload": true, "from": "demain" }),
            )
            .await;
        assert!(r.text.contains("AAAA-MM-JJ"), "{}", r.text);
        // A range without workload says what it goes with.
        let r = k
            .refused(
                &k.viewer,
                "list_members",
                json!({ "schedule": k.schedule, "from": "2026-11-23" }),
            )
            .await;
        assert!(r.text.contains("workload: true"), "{}", r.text);
    }

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    #[test]
    fn overlapping_absences_count_once() {
        let cal = Calendar::every_day();
        let spans = vec![
            (d("2026-11-02"), d("2026-11-05")),
            (d("2026-11-04"), d("2026-11-06")),
            (d("2026-11-10"), d("2026-11-10")),
            (d("2026-12-01"), d("2026-12-31")),
        ];
        // 02..06 (5 days) + 10 (1 day), the December span is clipped away.
        assert_eq!(union_days(&cal, spans, d("2026-11-01"), d("2026-11-30")), 6);
        let clipped = vec![(d("2026-10-01"), d("2026-11-03"))];
        assert_eq!(
            union_days(&cal, clipped, d("2026-11-02"), d("2026-11-30")),
            2
        );
    }
}

//! The texts the tools return to people and to assistants: a schedule's summary, its
//! risks, and the change list of a diff, in French (the default) or English; and the
//! plural rule of both languages (`plural`, `count`), which every text with a count,
//! here or in the server and the view, goes through.
//!
//! Every word lives in two tables, `fr` and `en`, one `match` each, keyed by `Msg`, and
//! the few messages a person reads without the ids a model acts on (a before/after's
//! change list, a write's notice, a bar's tooltip) in a third, `person_table`; the
//! functions below only choose messages and fill their `{0}`, `{1}`... slots. A wording
//! is therefore changed, or a language added, in one place, and the snapshot tests show
//! every sentence in both languages. Dates are always written YYYY-MM-DD: assistants
//! read them back into tool calls. Private data (e-mails, absence reasons) is never
//! written, and `diff` does not even carry it. Which text a tool returns, and when, is
//! the server's business.

use std::fmt::{self, Display};

use crate::Lang;
use crate::calendar::Calendar;
use crate::command::Command;
use crate::date::Date;
use crate::diff::{Change, Diff, ItemRef, NotShown, SettingField};
use crate::idset::IdMap;
use crate::risk::Risks;
use crate::schedule::*;

/// How many entries a list shows before it ends with "… and N more": enough for any
/// edit a person reads through, short enough for an assistant's context.
pub const LIST_CAP: usize = 50;

/// A count a plural choice can be made on: every integer type the texts count with.
pub trait Count: Copy {
    /// The count's size, sign dropped ("-1 jour" is singular like "1 jour").
    fn size(self) -> u64;
}

macro_rules! count_unsigned {
    ($($t:ty),*) => {$(impl Count for $t { fn size(self) -> u64 { self as u64 } })*};
}
macro_rules! count_signed {
    ($($t:ty),*) => {$(impl Count for $t { fn size(self) -> u64 { self.unsigned_abs() as u64 } })*};
}
count_unsigned!(u8, u16, u32, u64, usize);
count_signed!(i8, i16, i32, i64, isize);

/// `one` or `many`, chosen on a known count: French puts 0 and 1 in the singular
/// (« 0 bloc », « 1 bloc », « 2 blocs »), English only 1 ("0 bars", "1 bar"). Every
/// text with a count goes through here rather than writing "bloc(s)".
pub fn plural<'a>(lang: Lang, n: impl Count, one: &'a str, many: &'a str) -> &'a str {
    let singular = match lang {
        Lang::Fr => n.size() <= 1,
        Lang::En => n.size() == 1,
    };
    if singular { one } else { many }
}

/// The count and its word: « 2 blocs », "1 bar" (see [`plural`]).
pub fn count<N: Count + Display>(lang: Lang, n: N, one: &str, many: &str) -> String {
    format!("{n} {}", plural(lang, n, one, many))
}

/// A text made safe for HTML element content and quoted attributes: the server's error
/// pages and the view's drawing put names and labels from the data into HTML.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One line about the whole schedule: its name, its first and last days, and how many
/// groups, rows, bars and milestones it holds.
pub fn schedule_summary(s: &Schedule, lang: Lang) -> String {
    let w = Words::new(lang);
    let counts = [
        w.count(s.groups.len() as i64, Msg::Groups),
        w.count(s.rows.len() as i64, Msg::Rows),
        w.count(s.bars.len() as i64, Msg::Bars),
        w.count(s.milestones.len() as i64, Msg::Milestones),
    ]
    .join(", ");
    match s.span() {
        Some((first, last)) => w.say(Msg::Summary, &[&s.name, &first, &last, &counts]),
        None => w.say(Msg::SummaryNoDates, &[&s.name, &counts]),
    }
}

/// One line counting the risks, or `None` when there is none.
pub fn risks_line(risks: &Risks, lang: Lang) -> Option<String> {
    if risks.is_empty() {
        return None;
    }
    let w = Words::new(lang);
    let mut parts = Vec::new();
    for (n, m) in [
        (risks.violated_links.len(), Msg::ViolatedLinks),
        (risks.absence_risks.len(), Msg::BarsAtRisk),
        (risks.broken_constraints.len(), Msg::BrokenConstraints),
        (risks.missed_deadlines.len(), Msg::MissedDeadlines),
        (risks.late.len(), Msg::LateBars),
        (risks.overdue.len(), Msg::OverdueBars),
    ] {
        if n > 0 {
            parts.push(w.count(n as i64, m));
        }
    }
    Some(w.say(Msg::RisksLine, &[&parts.join(", ")]))
}

/// "1 jour ouvré", "2 jours ouvrés"; "1 working day", "2 working days".
pub fn working_days(n: i64, lang: Lang) -> String {
    Words::new(lang).count(n, Msg::WorkingDays)
}

/// A count in the schedule's time unit: « 1 jour ouvré », « 3 semaines ouvrées »;
/// "1 working day", "3 working weeks". The sign of `n` is written as given.
pub fn time_units(n: i64, unit: TimeUnit, lang: Lang) -> String {
    let m = match unit {
        TimeUnit::Day => Msg::WorkingDays,
        TimeUnit::Week => Msg::WorkingWeeks,
    };
    Words::new(lang).count(n, m)
}

/// A constraint kind's name, as a phrase its date follows: « fin au plus tard le »,
/// "finish no later than" (MS Project's names).
pub fn constraint_name(kind: ConstraintKind, lang: Lang) -> String {
    Words::new(lang).say(constraint_msg(kind), &[])
}

/// A constraint in words: « fin au plus tard le 2026-12-04 », "finish no later than
/// 2026-12-04".
pub fn constraint_phrase(c: Constraint, lang: Lang) -> String {
    format!("{} {}", constraint_name(c.kind, lang), c.date)
}

fn constraint_msg(kind: ConstraintKind) -> Msg {
    match kind {
        ConstraintKind::StartNoEarlierThan => Msg::StartNoEarlierThan,
        ConstraintKind::StartNoLaterThan => Msg::StartNoLaterThan,
        ConstraintKind::MustStartOn => Msg::MustStartOn,
        ConstraintKind::FinishNoEarlierThan => Msg::FinishNoEarlierThan,
        ConstraintKind::FinishNoLaterThan => Msg::FinishNoLaterThan,
    }
}

/// One line per risk of `s`: each violated link with its two items and by how many
/// working days it is broken, then each bar at risk with the member away and the days.
pub fn risk_details(s: &Schedule, risks: &Risks, lang: Lang) -> Vec<String> {
    let names = Names::of(s);
    let cal = Calendar::for_schedule(s);
    risk_lines(&Words::new(lang), &names, &cal, risks).collect()
}

/// The change list of a diff: what moved on the Gantt chart, the project end before and
/// after, the new risks, and the changes the chart cannot show. `before` is the state
/// the diff starts from; items that only exist after it are named from the diff itself.
pub fn change_list(before: &Schedule, d: &Diff, lang: Lang) -> String {
    list_changes(Words::new(lang), before, d)
}

/// [`change_list`] for the person who reads a before/after, not for the model: items,
/// links and members are named by their labels alone, without the ids a model needs to
/// act on them ("« Pose » (bloc 12)" becomes "« Pose »", "Lien 22 (FS)…" "Lien FS…").
pub fn change_list_for_person(before: &Schedule, d: &Diff, lang: Lang) -> String {
    list_changes(Words::for_person(lang), before, d)
}

/// What a write changed, in one sentence for the person who made it (the notice after
/// a gesture): its first `named` changes, those the chart shows then the others, in the
/// words of [`change_list_for_person`], joined by semicolons, and how many more, as one
/// sentence; that nothing changed when nothing did.
pub fn changes_in_brief(d: &Diff, lang: Lang, named: usize) -> String {
    let w = Words::for_person(lang);
    if d.is_empty() {
        return w.say(Msg::NoChange, &[]);
    }
    let lines: Vec<String> = d
        .changes
        .iter()
        .map(|c| change_line(&w, c))
        .chain(d.not_shown.iter().map(|n| not_shown_line(&w, n)))
        .take(named)
        .collect();
    let total = d.changes.len() + d.not_shown.len();
    let sep = match lang {
        Lang::Fr => "\u{202f}; ",
        Lang::En => "; ",
    };
    let mut out = lines.join(sep);
    if total > named {
        let rest = w.count((total - named) as i64, Msg::Others);
        out.push_str(sep);
        out.push_str(&w.say(Msg::More, &[&rest]));
    }
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// What one write of the view's gestures did, for the person who made it, in the words
/// of [`change_list_for_person`]: a bar added, a bar, milestone, row or group renamed,
/// a link added, changed or deleted, when the write is that one command. `after` is the
/// state the write made, `inverse` its inverse (the old values); `None` for anything
/// else, which the caller says in general words.
pub fn command_for_person(
    after: &Schedule,
    applied: &[Command],
    inverse: &[Command],
    lang: Lang,
) -> Option<String> {
    let item = |id: ItemId| ItemRef {
        id,
        label: after.item_label(id).unwrap_or("?").to_owned(),
        is_milestone: after.milestone(MilestoneId(id.0)).is_some(),
    };
    let unit = after.settings.time_unit;
    let change = match applied {
        [Command::AddPeriod { id: Some(bar), .. }] => {
            let b = after.bar(*bar)?;
            Change::BarAdded {
                bar: b.id,
                label: b.label.clone(),
                row: b.row,
                row_name: after.row(b.row)?.name.clone(),
                start: b.start,
                end: b.end,
            }
        }
        [
            Command::UpdatePeriod {
                bar,
                label: Some(new_label),
                color: None,
                notes: None,
                pin: None,
                row: None,
            },
        ] => Change::BarRenamed {
            bar: *bar,
            old_label: inverse.iter().find_map(|c| match c {
                Command::UpdatePeriod { bar: b, label, .. } if b == bar => label.clone(),
                _ => None,
            })?,
            new_label: new_label.clone(),
        },
        [
            Command::UpdateMilestone {
                milestone,
                label: Some(new_label),
                color: None,
                notes: None,
                row: None,
            },
        ] => Change::MilestoneRenamed {
            milestone: *milestone,
            old_label: inverse.iter().find_map(|c| match c {
                Command::UpdateMilestone {
                    milestone: m,
                    label,
                    ..
                } if m == milestone => label.clone(),
                _ => None,
            })?,
            new_label: new_label.clone(),
        },
        [Command::RenameRow { row, name }] => Change::RowRenamed {
            row: *row,
            old_name: inverse.iter().find_map(|c| match c {
                Command::RenameRow { row: r, name } if r == row => Some(name.clone()),
                _ => None,
            })?,
            new_name: name.clone(),
        },
        [Command::RenameGroup { group, name }] => Change::GroupRenamed {
            group: *group,
            old_name: inverse.iter().find_map(|c| match c {
                Command::RenameGroup { group: g, name } if g == group => Some(name.clone()),
                _ => None,
            })?,
            new_name: name.clone(),
        },
        [Command::AddLink { id: Some(link), .. }] => {
            let l = after.link(*link)?;
            Change::LinkAdded {
                link: l.id,
                from: item(l.from),
                to: item(l.to),
                link_type: l.kind,
                lag: l.lag,
                lag_unit: unit,
            }
        }
        [Command::UpdateLink { link, .. }] => {
            let l = after.link(*link)?;
            let (old_type, old_lag) = inverse.iter().find_map(|c| match c {
                Command::UpdateLink { link: k, kind, lag } if k == link => {
                    Some((kind.unwrap_or(l.kind), lag.unwrap_or(l.lag)))
                }
                _ => None,
            })?;
            Change::LinkChanged {
                link: l.id,
                old_from: item(l.from),
                old_to: item(l.to),
                old_type,
                old_lag,
                old_lag_unit: unit,
                new_from: item(l.from),
                new_to: item(l.to),
                new_type: l.kind,
                new_lag: l.lag,
                new_lag_unit: unit,
            }
        }
        [Command::DeleteLink { link }] => inverse.iter().find_map(|c| match c {
            Command::AddLink {
                id: Some(k),
                from,
                to,
                kind,
                lag,
            } if k == link => Some(Change::LinkRemoved {
                link: *link,
                from: item(*from),
                to: item(*to),
                link_type: kind.unwrap_or_default(),
                lag: lag.unwrap_or(0),
                lag_unit: unit,
            }),
            _ => None,
        })?,
        _ => return None,
    };
    Some(change_line(&Words::for_person(lang), &change))
}

/// The ids a text names: a kind's word followed by a number ("bloc 14", "Lien 22",
/// "(membre 4)", "rang 3"), in either language. What a person's words must not hold
/// (they are the model's to act with): the model's and the server's tests check with it.
#[doc(hidden)]
pub fn ids_named(text: &str) -> Vec<String> {
    const KINDS: &[&str] = &[
        "bloc",
        "bar",
        "jalon",
        "milestone",
        "groupe",
        "group",
        "ligne",
        "row",
        "action",
        "membre",
        "member",
        "lien",
        "link",
        "élément",
        "item",
        "rang",
        "rank",
        "commande",
        "command",
    ];
    let words: Vec<&str> = text.split([' ', '\u{a0}', '(', '\n']).collect();
    words
        .windows(2)
        .filter(|w| {
            KINDS.contains(&w[0].to_lowercase().as_str())
                && w[1].starts_with(|c: char| c.is_ascii_digit())
        })
        .map(|w| w.join(" "))
        .collect()
}

fn list_changes(w: Words, before: &Schedule, d: &Diff) -> String {
    let mut out: Vec<String> = Vec::new();

    if d.is_empty() {
        out.push(w.say(Msg::NoChange, &[]));
    } else if d.changes.is_empty() {
        out.push(w.say(Msg::NoVisibleChange, &[]));
    } else {
        out.push(w.say(Msg::ChangesHeader, &[]));
        let lines = d.changes.iter().map(|c| change_line(&w, c));
        push_capped(&w, &mut out, lines, d.changes.len());
    }

    out.push(end_line(&w, d.end_before, d.end_after));

    if d.new_risks.is_empty() {
        out.push(w.say(Msg::NoNewRisk, &[]));
    } else {
        out.push(w.say(Msg::NewRisksHeader, &[]));
        let names = Names::after(before, d);
        // The calendar only groups the days of an absence into runs; should the change
        // have touched the holidays, a run may show split, never a wrong day.
        let cal = Calendar::for_schedule(before);
        let r = &d.new_risks;
        push_capped(&w, &mut out, risk_lines(&w, &names, &cal, r), r.len());
    }

    if !d.not_shown.is_empty() {
        out.push(w.say(Msg::NotShownHeader, &[]));
        let lines = d.not_shown.iter().map(|n| not_shown_line(&w, n));
        push_capped(&w, &mut out, lines, d.not_shown.len());
    }
    out.join("\n")
}

/// How many items a cascade summary names before "… and N more".
const CASCADE_NAMED: usize = 20;

/// One sentence on what a cascade moved, e.g. « 3 blocs et 1 jalon décalés en
/// cascade, en jours ouvrés : « Migration à blanc » +5 j, … ; fin du projet
/// 2026-12-18 → 2026-12-25. », each label quoted (a label may hold commas or signs);
/// `None` when it moved nothing. `after` is the state after the write (it names the
/// items); the shifts are in working days.
pub fn cascade_summary(
    after: &Schedule,
    moved: &[crate::push::Moved],
    end_before: Option<Date>,
    lang: Lang,
) -> Option<String> {
    use crate::cpm::ItemKind;
    if moved.is_empty() {
        return None;
    }
    let w = Words::new(lang);
    let bars = moved.iter().filter(|m| m.kind == ItemKind::Bar).count() as i64;
    let milestones = moved.len() as i64 - bars;
    let counts = match (bars, milestones) {
        (0, m) => w.count(m, Msg::Milestones),
        (b, 0) => w.count(b, Msg::Bars),
        (b, m) => w.say(
            Msg::And,
            &[&w.count(b, Msg::Bars), &w.count(m, Msg::Milestones)],
        ),
    };
    let verb = w.count(moved.len() as i64, Msg::CascadeMoved);
    let verb = verb.split_once(' ').map_or("", |(_, v)| v).to_owned();
    let mut items: Vec<String> = moved
        .iter()
        .take(CASCADE_NAMED)
        .map(|m| {
            let label = match m.kind {
                ItemKind::Bar => after.bar(BarId(m.item.0)).map(|b| b.label.as_str()),
                ItemKind::Milestone => after
                    .milestone(MilestoneId(m.item.0))
                    .map(|x| x.label.as_str()),
            };
            let shift = format!("{}{}", sign(m.by_days), m.by_days.abs());
            w.say(Msg::ItemShift, &[&label.unwrap_or("?"), &shift])
        })
        .collect();
    if moved.len() > CASCADE_NAMED {
        let rest = w.count((moved.len() - CASCADE_NAMED) as i64, Msg::Others);
        items.push(w.say(Msg::More, &[&rest]));
    }
    let end_after = after.span().map(|(_, end)| end);
    let end = match (end_before, end_after) {
        (Some(b), Some(a)) if a != b => w.say(Msg::CascadeEndMoved, &[&b, &a]),
        (_, Some(a)) => w.say(Msg::CascadeEndSame, &[&a]),
        _ => String::new(),
    };
    Some(w.say(Msg::CascadeDone, &[&counts, &verb, &items.join(", "), &end]))
}

/// Appends the first `LIST_CAP` of `total` lines as a bulleted list, and how many were
/// left out. Lines past the cap are never written, so a diff of 100,000 bars costs 50.
fn push_capped(
    w: &Words,
    out: &mut Vec<String>,
    lines: impl Iterator<Item = String>,
    total: usize,
) {
    out.extend(lines.take(LIST_CAP).map(|l| format!("- {l}")));
    if total > LIST_CAP {
        let rest = w.count((total - LIST_CAP) as i64, Msg::Others);
        out.push(w.say(Msg::More, &[&rest]));
    }
}

fn end_line(w: &Words, before: Option<Date>, after: Option<Date>) -> String {
    match (before, after) {
        (Some(b), Some(a)) if a == b => w.say(Msg::EndSame, &[&b]),
        (Some(b), Some(a)) => {
            let days = b.days_until(a);
            let shift = format!(
                "{}{}",
                sign(days),
                w.count(i64::from(days.abs()), Msg::Days)
            );
            w.say(Msg::EndMoved, &[&b, &a, &shift])
        }
        (None, Some(a)) => w.say(Msg::EndNew, &[&a]),
        (Some(b), None) => w.say(Msg::EndGone, &[&b]),
        (None, None) => w.say(Msg::EndNone, &[]),
    }
}

/// An inclusive span of days: "2026-11-26 → 2026-11-27", or one date for one day.
fn period(start: Date, end: Date) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start} → {end}")
    }
}

fn sign(n: impl Into<i64>) -> &'static str {
    if n.into() < 0 { "-" } else { "+" }
}

/// The lines of `risk_details`, naming items through `names`.
fn risk_lines<'a>(
    w: &'a Words,
    names: &'a Names,
    cal: &'a Calendar,
    risks: &'a Risks,
) -> impl Iterator<Item = String> + 'a {
    let links = risks.violated_links.iter().map(move |v| {
        let by = w.count(v.by_days, Msg::WorkingDays);
        let from = names.item(w, v.from);
        let to = names.item(w, v.to);
        w.say(
            Msg::LinkViolated,
            &[&v.link, &link_type(v.kind), &by, &from, &to],
        )
    });
    let absences = risks.absence_risks.iter().map(move |r| {
        let bar = names.item(w, ItemId(r.bar.0));
        let member = names.member(w, r.member);
        let count = w.count(r.days.len() as i64, Msg::WorkingDays);
        let days = day_runs(cal, &r.days);
        w.say(Msg::AbsenceRisk, &[&bar, &member, &count, &days])
    });
    let constraints = risks.broken_constraints.iter().map(move |r| {
        let item = names.item(w, r.item);
        let what = constraint_phrase(r.constraint, w.lang);
        let by = w.count(r.by_days, Msg::WorkingDays);
        w.say(Msg::ConstraintBroken, &[&item, &what, &by])
    });
    let deadlines = risks.missed_deadlines.iter().map(move |r| {
        let item = names.item(w, r.item);
        let by = w.count(r.by_days, Msg::WorkingDays);
        w.say(Msg::DeadlineMissed, &[&item, &r.deadline, &by])
    });
    let status = risks.status_date;
    let behind = risks.late.iter().chain(&risks.overdue).map(move |l| {
        let bar = names.item(w, ItemId(l.bar.0));
        let by = w.count(l.by_days, Msg::WorkingDays);
        let at = status.map_or_else(String::new, |d| d.to_string());
        let m = match l.kind {
            crate::tracking::LateKind::Late => Msg::BarLate,
            crate::tracking::LateKind::Overdue => Msg::BarOverdue,
        };
        w.say(m, &[&bar, &by, &at, &l.actual, &l.planned])
    });
    links
        .chain(absences)
        .chain(constraints)
        .chain(deadlines)
        .chain(behind)
}

/// Why each bar of `risks` is at risk, one text per bar in bar id order, its reasons
/// joined: the absence of its row's member (with the days), a violated link into it
/// (named by the item it comes from), a broken constraint, a missed deadline, late or
/// overdue. Without the bar's name, since the chart writes it after the bar's own label
/// (tooltip and accessible name).
pub fn bar_risk_reasons(s: &Schedule, risks: &Risks, lang: Lang) -> Vec<(BarId, String)> {
    // A person reads them: the link is named by the item it comes from, not its id.
    let w = Words::for_person(lang);
    let names = Names::of(s);
    let cal = Calendar::for_schedule(s);
    let days = |n: i64| w.count(n, Msg::WorkingDays);
    let mut out: Vec<(BarId, String)> = Vec::new();
    for r in &risks.absence_risks {
        let member = names.member(&w, r.member);
        let on = day_runs(&cal, &r.days);
        let text = w.say(Msg::WhyAbsent, &[&member, &days(r.days.len() as i64), &on]);
        out.push((r.bar, text));
    }
    for v in &risks.violated_links {
        out.push((
            BarId(v.to.0),
            w.say(Msg::WhyLink, &[&names.item(&w, v.from), &days(v.by_days)]),
        ));
    }
    for r in &risks.broken_constraints {
        let what = constraint_phrase(r.constraint, lang);
        out.push((
            BarId(r.item.0),
            w.say(Msg::WhyConstraint, &[&what, &days(r.by_days)]),
        ));
    }
    for r in &risks.missed_deadlines {
        let text = w.say(Msg::WhyDeadline, &[&r.deadline, &days(r.by_days)]);
        out.push((BarId(r.item.0), text));
    }
    for l in &risks.late {
        let text = w.say(Msg::WhyLate, &[&days(l.by_days), &l.actual, &l.planned]);
        out.push((l.bar, text));
    }
    for l in &risks.overdue {
        out.push((l.bar, w.say(Msg::WhyOverdue, &[&days(l.by_days)])));
    }
    // Milestones (a violated link's successor, a constraint, a deadline) are not bars.
    out.retain(|(b, _)| s.bar(*b).is_some());
    // A stable sort: each bar's reasons stay in the order above.
    crate::order::sort_by_u64(&mut out, |(b, _)| b.0);
    let mut joined: Vec<(BarId, String)> = Vec::with_capacity(out.len());
    for (bar, text) in out {
        match joined.last_mut() {
            Some((last, all)) if *last == bar => {
                all.push_str(w.template(Msg::WhySeparator));
                all.push_str(&text);
            }
            _ => joined.push((bar, text)),
        }
    }
    joined
}

/// Sorted working days written as runs: "2026-11-26 → 2026-11-27, 2026-12-03". Days in
/// a run follow each other in working time, so a week's absence across a weekend is one
/// run. Past ten runs the list ends with "…".
fn day_runs(cal: &Calendar, days: &[Date]) -> String {
    const MAX_RUNS: usize = 10;
    let mut runs: Vec<(Date, Date)> = Vec::new();
    for &d in days {
        match runs.last_mut() {
            Some((_, last)) if cal.add(*last, 1) == d => *last = d,
            _ => runs.push((d, d)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .take(MAX_RUNS)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a} → {b}")
            }
        })
        .collect();
    if runs.len() > MAX_RUNS {
        parts.push("…".to_owned());
    }
    parts.join(", ")
}

/// Where the risk lines find the labels of items and the names of members: the
/// schedule, overridden by what a diff says the new state holds (items added or
/// renamed after `before`).
struct Names<'a> {
    s: &'a Schedule,
    /// Item id -> (label, is a milestone).
    items: IdMap<u64, (&'a str, bool)>,
    members: IdMap<MemberId, &'a str>,
}

impl<'a> Names<'a> {
    fn of(s: &'a Schedule) -> Names<'a> {
        Names {
            s,
            items: IdMap::default(),
            members: IdMap::default(),
        }
    }

    fn after(before: &'a Schedule, d: &'a Diff) -> Names<'a> {
        let mut names = Names::of(before);
        let mut item = |r: &'a ItemRef| {
            names
                .items
                .insert(r.id.0, (r.label.as_str(), r.is_milestone));
        };
        for c in &d.changes {
            match c {
                Change::LinkAdded { from, to, .. } => {
                    item(from);
                    item(to);
                }
                Change::LinkChanged {
                    new_from, new_to, ..
                } => {
                    item(new_from);
                    item(new_to);
                }
                _ => {}
            }
        }
        for c in &d.changes {
            match c {
                Change::BarAdded { bar, label, .. } => {
                    names.items.insert(bar.0, (label, false));
                }
                Change::BarRenamed { bar, new_label, .. } => {
                    names.items.insert(bar.0, (new_label, false));
                }
                Change::MilestoneAdded {
                    milestone, label, ..
                } => {
                    names.items.insert(milestone.0, (label, true));
                }
                Change::MilestoneRenamed {
                    milestone,
                    new_label,
                    ..
                } => {
                    names.items.insert(milestone.0, (new_label, true));
                }
                _ => {}
            }
        }
        for n in &d.not_shown {
            match n {
                NotShown::MemberAdded { member, name } => {
                    names.members.insert(*member, name);
                }
                NotShown::MemberRenamed {
                    member, new_name, ..
                } => {
                    names.members.insert(*member, new_name);
                }
                _ => {}
            }
        }
        names
    }

    /// "« Label » (bloc 12)", "« Label » (jalon 19)", or "élément 12" if unknown.
    fn item(&self, w: &Words, id: ItemId) -> String {
        if let Some(&(label, is_milestone)) = self.items.get(&id.0) {
            return w.item(label, id, is_milestone);
        }
        if let Some(b) = self.s.bar(BarId(id.0)) {
            return w.item(&b.label, id, false);
        }
        if let Some(m) = self.s.milestone(MilestoneId(id.0)) {
            return w.item(&m.label, id, true);
        }
        w.say(Msg::UnknownItem, &[&id])
    }

    fn member(&self, w: &Words, id: MemberId) -> String {
        if let Some(name) = self.members.get(&id) {
            return (*name).to_owned();
        }
        match self.s.member(id) {
            Some(m) => m.name.clone(),
            None => w.say(Msg::UnknownMember, &[&id]),
        }
    }
}

fn link_type(kind: LinkKind) -> &'static str {
    match kind {
        LinkKind::FS => "FS",
        LinkKind::SS => "SS",
        LinkKind::FF => "FF",
        LinkKind::SF => "SF",
    }
}

fn change_line(w: &Words, c: &Change) -> String {
    match c {
        Change::BarAdded {
            bar,
            label,
            row_name,
            start,
            end,
            ..
        } => w.say(
            Msg::BarAdded,
            &[&w.bar(label, *bar), row_name, &period(*start, *end)],
        ),
        Change::BarRemoved {
            bar,
            label,
            start,
            end,
        } => w.say(
            Msg::BarRemoved,
            &[&w.bar(label, *bar), &period(*start, *end)],
        ),
        Change::BarMoved {
            bar,
            label,
            old_start,
            old_end,
            new_start,
            new_end,
        } => {
            let it = w.bar(label, *bar);
            if old_start == new_start {
                w.say(Msg::BarEndMoved, &[&it, old_end, new_end])
            } else if old_end == new_end {
                w.say(Msg::BarStartMoved, &[&it, old_start, new_start])
            } else {
                w.say(
                    Msg::BarMoved,
                    &[&it, old_start, new_start, old_end, new_end],
                )
            }
        }
        Change::BarRenamed {
            bar,
            old_label,
            new_label,
        } => w.say(Msg::BarRenamed, &[bar, old_label, new_label]),
        Change::BarRecoloured {
            bar,
            label,
            old_color,
            new_color,
        } => w.say(
            Msg::Recoloured,
            &[
                &w.bar(label, *bar),
                &w.color(old_color),
                &w.color(new_color),
            ],
        ),
        Change::BarRowChanged {
            bar,
            label,
            old_row_name,
            new_row_name,
            ..
        } => w.say(
            Msg::RowChanged,
            &[&w.bar(label, *bar), old_row_name, new_row_name],
        ),
        Change::MilestoneAdded {
            milestone,
            label,
            row_name,
            date,
            ..
        } => w.say(
            Msg::MilestoneAdded,
            &[&w.milestone(label, *milestone), row_name, date],
        ),
        Change::MilestoneRemoved {
            milestone,
            label,
            date,
        } => w.say(
            Msg::MilestoneRemoved,
            &[&w.milestone(label, *milestone), date],
        ),
        Change::MilestoneMoved {
            milestone,
            label,
            old_date,
            new_date,
        } => w.say(
            Msg::MilestoneMoved,
            &[&w.milestone(label, *milestone), old_date, new_date],
        ),
        Change::MilestoneRenamed {
            milestone,
            old_label,
            new_label,
        } => w.say(Msg::MilestoneRenamed, &[milestone, old_label, new_label]),
        Change::MilestoneRecoloured {
            milestone,
            label,
            old_color,
            new_color,
        } => w.say(
            Msg::Recoloured,
            &[
                &w.milestone(label, *milestone),
                &w.color(old_color),
                &w.color(new_color),
            ],
        ),
        Change::MilestoneRowChanged {
            milestone,
            label,
            old_row_name,
            new_row_name,
            ..
        } => w.say(
            Msg::RowChanged,
            &[&w.milestone(label, *milestone), old_row_name, new_row_name],
        ),
        Change::LinkAdded {
            link,
            from,
            to,
            link_type,
            lag,
            lag_unit,
        } => w.say(
            Msg::LinkAdded,
            &[
                link,
                &w.item_ref(from),
                &w.item_ref(to),
                &w.link(*link_type, *lag, *lag_unit),
            ],
        ),
        Change::LinkRemoved {
            link,
            from,
            to,
            link_type,
            lag,
            lag_unit,
        } => w.say(
            Msg::LinkRemoved,
            &[
                link,
                &w.item_ref(from),
                &w.item_ref(to),
                &w.link(*link_type, *lag, *lag_unit),
            ],
        ),
        Change::LinkChanged {
            link,
            old_from,
            old_to,
            old_type,
            old_lag,
            old_lag_unit,
            new_from,
            new_to,
            new_type,
            new_lag,
            new_lag_unit,
        } => {
            let old = w.link(*old_type, *old_lag, *old_lag_unit);
            let new = w.link(*new_type, *new_lag, *new_lag_unit);
            if old_from.id == new_from.id && old_to.id == new_to.id {
                let (from, to) = (w.item_ref(new_from), w.item_ref(new_to));
                w.say(Msg::LinkChanged, &[link, &from, &to, &old, &new])
            } else {
                let args: [&dyn Display; 7] = [
                    link,
                    &w.item_ref(old_from),
                    &w.item_ref(old_to),
                    &old,
                    &w.item_ref(new_from),
                    &w.item_ref(new_to),
                    &new,
                ];
                w.say(Msg::LinkRewired, &args)
            }
        }
        Change::GroupAdded {
            group,
            name,
            position,
        } => w.say(Msg::GroupAdded, &[&w.group(name, *group), &(position + 1)]),
        Change::GroupRemoved { group, name } => w.say(Msg::GroupRemoved, &[&w.group(name, *group)]),
        Change::GroupRenamed {
            group,
            old_name,
            new_name,
        } => w.say(Msg::GroupRenamed, &[group, old_name, new_name]),
        Change::GroupMoved {
            group,
            name,
            new_position,
            ..
        } => w.say(
            Msg::GroupMoved,
            &[&w.group(name, *group), &(new_position + 1)],
        ),
        Change::RowAdded {
            row,
            name,
            group_name,
            ..
        } => w.say(Msg::RowAdded, &[&w.row(name, *row), group_name]),
        Change::RowRemoved { row, name } => w.say(Msg::RowRemoved, &[&w.row(name, *row)]),
        Change::RowRenamed {
            row,
            old_name,
            new_name,
        } => w.say(Msg::RowRenamed, &[row, old_name, new_name]),
        Change::RowMoved {
            row,
            name,
            old_group,
            new_group,
            new_group_name,
            new_position,
            ..
        } => {
            let msg = if old_group == new_group {
                Msg::RowReordered
            } else {
                Msg::RowMovedToGroup
            };
            w.say(
                msg,
                &[&w.row(name, *row), new_group_name, &(new_position + 1)],
            )
        }
    }
}

fn not_shown_line(w: &Words, n: &NotShown) -> String {
    match n {
        NotShown::ScheduleRenamed { old_name, new_name } => {
            w.say(Msg::ScheduleRenamed, &[old_name, new_name])
        }
        NotShown::ScheduleNotesChanged => w.say(Msg::ScheduleNotesChanged, &[]),
        NotShown::SettingChanged { field } => {
            let field = match field {
                SettingField::TimeZone => Msg::TimeZone,
                SettingField::WorkingWeekdays => Msg::WorkingWeekdays,
                SettingField::Holidays => Msg::Holidays,
                SettingField::TimeUnit => Msg::TimeUnit,
                SettingField::Scheduling => Msg::SchedulingMode,
            };
            w.say(Msg::SettingChanged, &[&w.say(field, &[])])
        }
        NotShown::RowMemberChanged {
            row,
            name,
            old_member_name,
            new_member_name,
            ..
        } => w.say(
            Msg::RowMemberChanged,
            &[
                &w.row(name, *row),
                &w.or_none(old_member_name.as_deref()),
                &w.or_none(new_member_name.as_deref()),
            ],
        ),
        NotShown::BarNotesChanged { bar, label } => {
            w.say(Msg::NotesChanged, &[&w.bar(label, *bar)])
        }
        NotShown::MilestoneNotesChanged { milestone, label } => {
            w.say(Msg::NotesChanged, &[&w.milestone(label, *milestone)])
        }
        NotShown::PinChanged {
            bar,
            label,
            old_pin,
            new_pin,
        } => w.say(
            Msg::PinChanged,
            &[
                &w.bar(label, *bar),
                &w.or_none(old_pin.map(|d| d.to_string()).as_deref()),
                &w.or_none(new_pin.map(|d| d.to_string()).as_deref()),
            ],
        ),
        NotShown::ConstraintChanged {
            item,
            label,
            is_milestone,
            old,
            new,
        } => {
            let phrase = |c: &Option<Constraint>| match c {
                Some(c) => constraint_phrase(*c, w.lang),
                None => w.say(Msg::NoneFeminine, &[]),
            };
            w.say(
                Msg::ConstraintChanged,
                &[
                    &w.item(label, *item, *is_milestone),
                    &phrase(old),
                    &phrase(new),
                ],
            )
        }
        NotShown::DeadlineChanged {
            item,
            label,
            is_milestone,
            old,
            new,
        } => {
            let day = |d: &Option<Date>| match d {
                Some(d) => d.to_string(),
                None => w.say(Msg::NoneFeminine, &[]),
            };
            w.say(
                Msg::DeadlineChanged,
                &[&w.item(label, *item, *is_milestone), &day(old), &day(new)],
            )
        }
        NotShown::ProgressChanged {
            bar,
            label,
            old,
            new,
        } => w.say(Msg::ProgressChanged, &[&w.bar(label, *bar), old, new]),
        NotShown::ActualStartChanged {
            bar,
            label,
            old,
            new,
        } => {
            // « aucun début », « aucune fin »: the French word agrees.
            let day = |d: &Option<Date>| match d {
                Some(d) => d.to_string(),
                None => w.say(Msg::NoValue, &[]),
            };
            w.say(
                Msg::ActualStartChanged,
                &[&w.bar(label, *bar), &day(old), &day(new)],
            )
        }
        NotShown::ActualFinishChanged {
            bar,
            label,
            old,
            new,
        } => {
            let day = |d: &Option<Date>| match d {
                Some(d) => d.to_string(),
                None => w.say(Msg::NoneFeminine, &[]),
            };
            w.say(
                Msg::ActualFinishChanged,
                &[&w.bar(label, *bar), &day(old), &day(new)],
            )
        }
        NotShown::ActionAdded {
            action,
            label,
            bar,
            bar_label,
        } => w.say(
            Msg::ActionAdded,
            &[&w.action(label, *action), &w.bar(bar_label, *bar)],
        ),
        NotShown::ActionRemoved {
            action,
            label,
            bar,
            bar_label,
        } => w.say(
            Msg::ActionRemoved,
            &[&w.action(label, *action), &w.bar(bar_label, *bar)],
        ),
        NotShown::ActionRenamed {
            action,
            old_label,
            new_label,
        } => w.say(Msg::ActionRenamed, &[action, old_label, new_label]),
        NotShown::ActionStatusChanged {
            action,
            label,
            old_status,
            new_status,
        } => w.say(
            Msg::ActionStatusChanged,
            &[
                &w.action(label, *action),
                &w.status(*old_status),
                &w.status(*new_status),
            ],
        ),
        NotShown::ActionAssigneeChanged {
            action,
            label,
            old_assignee_name,
            new_assignee_name,
            ..
        } => w.say(
            Msg::ActionAssigneeChanged,
            &[
                &w.action(label, *action),
                &w.or_none(old_assignee_name.as_deref()),
                &w.or_none(new_assignee_name.as_deref()),
            ],
        ),
        NotShown::ActionBarChanged {
            action,
            label,
            old_bar,
            old_bar_label,
            new_bar,
            new_bar_label,
        } => w.say(
            Msg::ActionBarChanged,
            &[
                &w.action(label, *action),
                &w.bar(old_bar_label, *old_bar),
                &w.bar(new_bar_label, *new_bar),
            ],
        ),
        NotShown::MemberAdded { member, name } => {
            w.say(Msg::MemberAdded, &[&w.member(name, *member)])
        }
        NotShown::MemberRemoved { member, name } => {
            w.say(Msg::MemberRemoved, &[&w.member(name, *member)])
        }
        NotShown::MemberRenamed {
            member,
            old_name,
            new_name,
        } => w.say(Msg::MemberRenamed, &[member, old_name, new_name]),
        NotShown::MemberEmailChanged { member, name } => {
            w.say(Msg::MemberEmailChanged, &[&w.member(name, *member)])
        }
        NotShown::AbsenceAdded {
            member_name,
            start,
            end,
            ..
        } => w.say(Msg::AbsenceAdded, &[member_name, &period(*start, *end)]),
        NotShown::AbsenceRemoved {
            member_name,
            start,
            end,
            ..
        } => w.say(Msg::AbsenceRemoved, &[member_name, &period(*start, *end)]),
        NotShown::LockSet {
            target,
            target_name,
            by_name,
        } => w.say(
            Msg::LockSet,
            &[&w.lock_target(*target, target_name), by_name],
        ),
        NotShown::LockRemoved {
            target,
            target_name,
            by_name,
        } => w.say(
            Msg::LockRemoved,
            &[&w.lock_target(*target, target_name), by_name],
        ),
        NotShown::AbsenceChanged {
            member_name,
            old_start,
            old_end,
            new_start,
            new_end,
            ..
        } => {
            if (old_start, old_end) == (new_start, new_end) {
                w.say(Msg::AbsenceChanged, &[member_name])
            } else {
                w.say(
                    Msg::AbsenceMoved,
                    &[
                        member_name,
                        &period(*old_start, *old_end),
                        &period(*new_start, *new_end),
                    ],
                )
            }
        }
    }
}

/// The writer of one language: picks messages and fills them. For a person (`person`),
/// the messages of `for_person` replace those that name things by their ids.
#[derive(Clone, Copy)]
struct Words {
    lang: Lang,
    person: bool,
}

impl Words {
    fn new(lang: Lang) -> Words {
        Words {
            lang,
            person: false,
        }
    }

    fn for_person(lang: Lang) -> Words {
        Words { lang, person: true }
    }

    fn template(&self, m: Msg) -> &'static str {
        let person = if self.person {
            person_table(self.lang, m)
        } else {
            None
        };
        person.unwrap_or(match self.lang {
            Lang::Fr => fr(m),
            Lang::En => en(m),
        })
    }

    /// The message with its `{k}` slots replaced by `args[k]`.
    fn say(&self, m: Msg, args: &[&dyn Display]) -> String {
        fill(self.template(m), args)
    }

    /// "1 bloc", "2 blocs", "0 bloc" in French; "0 bars" in English. `m` is a
    /// "singular|plural" message.
    fn count(&self, n: i64, m: Msg) -> String {
        let (singular, many) = self.template(m).split_once('|').unwrap_or(("?", "?"));
        count(self.lang, n, singular, many)
    }

    fn bar(&self, label: &str, id: BarId) -> String {
        self.say(Msg::BarRef, &[&label, &id])
    }

    fn milestone(&self, label: &str, id: MilestoneId) -> String {
        self.say(Msg::MilestoneRef, &[&label, &id])
    }

    fn item(&self, label: &str, id: ItemId, is_milestone: bool) -> String {
        let m = if is_milestone {
            Msg::MilestoneRef
        } else {
            Msg::BarRef
        };
        self.say(m, &[&label, &id])
    }

    fn item_ref(&self, r: &ItemRef) -> String {
        self.item(&r.label, r.id, r.is_milestone)
    }

    fn group(&self, name: &str, id: GroupId) -> String {
        self.say(Msg::GroupRef, &[&name, &id])
    }

    fn row(&self, name: &str, id: RowId) -> String {
        self.say(Msg::RowRef, &[&name, &id])
    }

    fn action(&self, label: &str, id: ActionId) -> String {
        self.say(Msg::ActionRef, &[&label, &id])
    }

    fn member(&self, name: &str, id: MemberId) -> String {
        self.say(Msg::MemberRef, &[&name, &id])
    }

    /// What a lock holds: by its id for the model, by its name for a person.
    fn lock_target(&self, target: LockTarget, name: &Option<String>) -> String {
        if self.person {
            crate::command::lock_target_named(target, name.as_deref(), self.lang)
        } else {
            crate::command::lock_target(target, self.lang)
        }
    }

    fn color(&self, c: &Option<String>) -> String {
        c.clone()
            .unwrap_or_else(|| self.say(Msg::DefaultColour, &[]))
    }

    fn or_none(&self, value: Option<&str>) -> String {
        value.map_or_else(|| self.say(Msg::NoValue, &[]), str::to_owned)
    }

    fn status(&self, s: ActionStatus) -> String {
        let m = match s {
            ActionStatus::Todo => Msg::Todo,
            ActionStatus::InProgress => Msg::InProgress,
            ActionStatus::Done => Msg::Done,
        };
        self.say(m, &[])
    }

    /// "FS", "SS +5 j", "FS -1 sem.": the type, then the lag in the schedule's unit.
    fn link(&self, kind: LinkKind, lag: i32, unit: TimeUnit) -> String {
        if lag == 0 {
            return link_type(kind).to_owned();
        }
        let unit = match unit {
            TimeUnit::Day => self.say(Msg::LagDays, &[]),
            TimeUnit::Week => self.say(Msg::LagWeeks, &[]),
        };
        format!("{} {}{} {unit}", link_type(kind), sign(lag), lag.abs())
    }
}

/// Replaces `{0}`, `{1}`... in a template of the tables below. A slot without an
/// argument is left as written, which the snapshot tests would show.
fn fill(template: &str, args: &[&dyn Display]) -> String {
    use fmt::Write;
    let mut out = String::with_capacity(template.len() + 16 * args.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let slot = after
            .find('}')
            .and_then(|close| Some((after[..close].parse::<usize>().ok()?, close)));
        match slot {
            Some((k, close)) if k < args.len() => {
                let _ = write!(out, "{}", args[k]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every message the model writes. Counted nouns are written "singular|plural".
/// Declared through a macro so that the tests can walk every message.
macro_rules! messages {
    ($($m:ident),* $(,)?) => {
        #[derive(Clone, Copy, Debug)]
        enum Msg {
            $($m),*
        }

        #[cfg(test)]
        const ALL_MSGS: &[Msg] = &[$(Msg::$m),*];
    };
}

messages! {
    Summary, SummaryNoDates, Groups, Rows, Bars, Milestones, RisksLine, ViolatedLinks,
    BarsAtRisk, WorkingDays, WorkingWeeks, Days, Others, More, LinkViolated, AbsenceRisk, BarRef,
    MilestoneRef, GroupRef, RowRef, ActionRef, MemberRef, UnknownItem, UnknownMember,
    NoValue, DefaultColour, LagDays, LagWeeks, NoChange, NoVisibleChange, ChangesHeader,
    NewRisksHeader, NoNewRisk, NotShownHeader, EndSame, EndMoved, EndNew, EndGone, EndNone,
    BarAdded, BarRemoved, BarMoved, BarStartMoved, BarEndMoved, BarRenamed, Recoloured,
    RowChanged, MilestoneAdded, MilestoneRemoved, MilestoneMoved, MilestoneRenamed,
    LinkAdded, LinkRemoved, LinkChanged, LinkRewired, GroupAdded, GroupRemoved,
    GroupRenamed, GroupMoved, RowAdded, RowRemoved, RowRenamed, RowReordered,
    RowMovedToGroup, ScheduleRenamed, ScheduleNotesChanged, SettingChanged, TimeZone,
    WorkingWeekdays, Holidays, TimeUnit, RowMemberChanged, NotesChanged, PinChanged,
    ActionAdded, ActionRemoved, ActionRenamed, ActionStatusChanged, ActionAssigneeChanged,
    ActionBarChanged, Todo, InProgress, Done, MemberAdded, MemberRemoved, MemberRenamed,
    MemberEmailChanged, AbsenceAdded, AbsenceRemoved, AbsenceChanged, AbsenceMoved,
    LockSet, LockRemoved, CascadeDone, CascadeMoved, CascadeEndSame, CascadeEndMoved, And,
    ItemShift, SchedulingMode, BrokenConstraints, MissedDeadlines, ConstraintBroken,
    DeadlineMissed, StartNoEarlierThan, StartNoLaterThan, MustStartOn, FinishNoEarlierThan,
    FinishNoLaterThan, ConstraintChanged, DeadlineChanged, NoneFeminine, LateBars,
    OverdueBars, BarLate, BarOverdue, ProgressChanged, ActualStartChanged,
    ActualFinishChanged, WhyAbsent, WhyLink, WhyConstraint, WhyDeadline, WhyLate, WhyOverdue,
    WhySeparator,
}

/// The French table.
fn fr(m: Msg) -> &'static str {
    match m {
        Msg::Summary => "Planning «\u{a0}{0}\u{a0}» — du {1} au {2}\u{202f}; {3}.",
        Msg::SummaryNoDates => "Planning «\u{a0}{0}\u{a0}» — pas encore de dates\u{202f}; {1}.",
        Msg::Groups => "groupe|groupes",
        Msg::Rows => "ligne|lignes",
        Msg::Bars => "bloc|blocs",
        Msg::Milestones => "jalon|jalons",
        Msg::RisksLine => "Risques\u{a0}: {0}.",
        Msg::ViolatedLinks => "lien non respecté|liens non respectés",
        Msg::BarsAtRisk => "bloc à risque d'absence|blocs à risque d'absence",
        Msg::WorkingDays => "jour ouvré|jours ouvrés",
        Msg::WorkingWeeks => "semaine ouvrée|semaines ouvrées",
        Msg::Days => "jour|jours",
        Msg::Others => "autre|autres",
        Msg::More => "… et {0}",
        Msg::LinkViolated => "Lien {0} ({1}) non respecté de {2}\u{a0}: {3} → {4}.",
        Msg::AbsenceRisk => "{0}\u{a0}: absence de {1} sur {2} ({3}).",
        Msg::BarRef => "«\u{a0}{0}\u{a0}» (bloc {1})",
        Msg::MilestoneRef => "«\u{a0}{0}\u{a0}» (jalon {1})",
        Msg::GroupRef => "«\u{a0}{0}\u{a0}» (groupe {1})",
        Msg::RowRef => "«\u{a0}{0}\u{a0}» (ligne {1})",
        Msg::ActionRef => "«\u{a0}{0}\u{a0}» (action {1})",
        Msg::MemberRef => "{0} (membre {1})",
        Msg::UnknownItem => "élément {0}",
        Msg::UnknownMember => "membre {0}",
        Msg::NoValue => "aucun",
        Msg::DefaultColour => "par défaut",
        Msg::LagDays => "j",
        Msg::LagWeeks => "sem.",
        Msg::NoChange => "Aucun changement.",
        Msg::NoVisibleChange => "Aucun changement visible sur le Gantt.",
        Msg::ChangesHeader => "Changements\u{a0}:",
        Msg::NewRisksHeader => "Nouveaux risques\u{a0}:",
        Msg::NoNewRisk => "Aucun nouveau risque.",
        Msg::NotShownHeader => "Changements non affichés\u{a0}:",
        Msg::EndSame => "Fin du projet\u{a0}: {0} (inchangée).",
        Msg::EndMoved => "Fin du projet\u{a0}: {0} → {1} ({2}).",
        Msg::EndNew => "Fin du projet\u{a0}: {0} (aucune date avant).",
        Msg::EndGone => "Fin du projet\u{a0}: plus aucune date (avant\u{a0}: {0}).",
        Msg::EndNone => "Fin du projet\u{a0}: pas encore de dates.",
        Msg::BarAdded => "{0} ajouté sur la ligne «\u{a0}{1}\u{a0}»\u{a0}: {2}",
        Msg::BarRemoved => "{0} supprimé (était {1})",
        Msg::BarMoved => "{0}\u{a0}: {1} → {2}, fin {3} → {4}",
        Msg::BarStartMoved => "{0}\u{a0}: début {1} → {2}",
        Msg::BarEndMoved => "{0}\u{a0}: fin {1} → {2}",
        Msg::BarRenamed => "Bloc {0} renommé\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        Msg::Recoloured => "{0}\u{a0}: couleur {1} → {2}",
        Msg::RowChanged => "{0}\u{a0}: ligne «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        Msg::MilestoneAdded => "{0} ajouté sur la ligne «\u{a0}{1}\u{a0}»\u{a0}: {2}",
        Msg::MilestoneRemoved => "{0} supprimé (était le {1})",
        Msg::MilestoneMoved => "{0}\u{a0}: {1} → {2}",
        Msg::MilestoneRenamed => "Jalon {0} renommé\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        Msg::LinkAdded => "Lien {0} ajouté\u{a0}: {1} → {2}, {3}",
        Msg::LinkRemoved => "Lien {0} supprimé\u{a0}: {1} → {2}, {3}",
        Msg::LinkChanged => "Lien {0} ({1} → {2})\u{a0}: {3} → {4}",
        Msg::LinkRewired => "Lien {0}\u{a0}: {1} → {2}, {3} devient {4} → {5}, {6}",
        Msg::GroupAdded => "{0} ajouté en position {1}",
        Msg::GroupRemoved => "{0} supprimé",
        Msg::GroupRenamed => "Groupe {0} renommé\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        Msg::GroupMoved => "{0} déplacé en position {1}",
        Msg::RowAdded => "{0} ajoutée au groupe «\u{a0}{1}\u{a0}»",
        Msg::RowRemoved => "{0} supprimée",
        Msg::RowRenamed => "Ligne {0} renommée\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        Msg::RowReordered => "{0} déplacée en position {2} du groupe «\u{a0}{1}\u{a0}»",
        Msg::RowMovedToGroup => "{0} déplacée vers le groupe «\u{a0}{1}\u{a0}», en position {2}",
        Msg::ScheduleRenamed => "Planning renommé\u{a0}: «\u{a0}{0}\u{a0}» → «\u{a0}{1}\u{a0}»",
        Msg::ScheduleNotesChanged => "Notes du planning modifiées",
        Msg::SettingChanged => "Réglage modifié\u{a0}: {0}",
        Msg::TimeZone => "fuseau horaire",
        Msg::WorkingWeekdays => "jours ouvrés de la semaine",
        Msg::Holidays => "jours fériés",
        Msg::TimeUnit => "unité de temps",
        Msg::SchedulingMode => "planification (automatique ou manuelle)",
        Msg::RowMemberChanged => "Membre de {0}\u{a0}: {1} → {2}",
        Msg::NotesChanged => "Notes de {0} modifiées",
        Msg::PinChanged => "Début au plus tôt de {0}\u{a0}: {1} → {2}",
        Msg::ActionAdded => "Action ajoutée à {1}\u{a0}: {0}",
        Msg::ActionRemoved => "Action supprimée de {1}\u{a0}: {0}",
        Msg::ActionRenamed => "Action {0} renommée\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        Msg::ActionStatusChanged => "{0}\u{a0}: {1} → {2}",
        Msg::ActionAssigneeChanged => "{0}\u{a0}: responsable {1} → {2}",
        Msg::ActionBarChanged => "{0} déplacée de {1} vers {2}",
        Msg::Todo => "à faire",
        Msg::InProgress => "en cours",
        Msg::Done => "terminée",
        Msg::MemberAdded => "Arrivée dans l'équipe\u{a0}: {0}",
        Msg::MemberRemoved => "Départ de l'équipe\u{a0}: {0}",
        Msg::MemberRenamed => "Membre {0} renommé\u{a0}: {1} → {2}",
        Msg::MemberEmailChanged => "E-mail de {0} modifié",
        Msg::AbsenceAdded => "Absence de {0} ajoutée\u{a0}: {1}",
        Msg::AbsenceRemoved => "Absence de {0} supprimée\u{a0}: {1}",
        Msg::AbsenceChanged => "Absence de {0} modifiée",
        Msg::AbsenceMoved => "Absence de {0}\u{a0}: {1} devient {2}",
        Msg::LockSet => "Verrou sur {0} posé par {1}",
        Msg::LockRemoved => "Verrou sur {0} (posé par {1}) retiré",
        // Narrow no-break spaces before « : » and « ; », a no-break space inside
        // « +5 j », as French typography wants.
        Msg::CascadeDone => {
            "{0} {1} en cascade, en jours ouvrés\u{a0}: {2}\u{202f}; fin du projet {3}."
        }
        Msg::CascadeMoved => "décalé|décalés",
        Msg::CascadeEndSame => "inchangée ({0})",
        Msg::CascadeEndMoved => "{0} → {1}",
        Msg::And => "{0} et {1}",
        Msg::ItemShift => "«\u{a0}{0}\u{a0}» {1}\u{a0}j",
        Msg::BrokenConstraints => "contrainte non respectée|contraintes non respectées",
        Msg::MissedDeadlines => "échéance dépassée|échéances dépassées",
        Msg::ConstraintBroken => "{0}\u{a0}: contrainte «\u{a0}{1}\u{a0}» non respectée de {2}.",
        Msg::DeadlineMissed => "{0}\u{a0}: échéance dépassée de {2} (échéance le {1}).",
        // MS Project's French names of the constraints.
        Msg::StartNoEarlierThan => "début au plus tôt le",
        Msg::StartNoLaterThan => "début au plus tard le",
        Msg::MustStartOn => "doit commencer le",
        Msg::FinishNoEarlierThan => "fin au plus tôt le",
        Msg::FinishNoLaterThan => "fin au plus tard le",
        Msg::ConstraintChanged => "Contrainte de {0}\u{a0}: {1} → {2}",
        Msg::DeadlineChanged => "Échéance de {0}\u{a0}: {1} → {2}",
        Msg::NoneFeminine => "aucune",
        Msg::LateBars => "bloc en retard|blocs en retard",
        Msg::OverdueBars => "bloc hors délai|blocs hors délai",
        Msg::BarLate => {
            "{0}\u{a0}: en retard de {1} au {2} (avancement {3}\u{202f}%, prévu {4}\u{202f}%)."
        }
        Msg::BarOverdue => "{0}\u{a0}: fin dépassée de {1} au {2}, avancement {3}\u{202f}%.",
        Msg::WhyAbsent => "absence de {0} sur {1} ({2})",
        Msg::WhyLink => "lien depuis {0} non respecté de {1}",
        Msg::WhyConstraint => "contrainte «\u{a0}{0}\u{a0}» non respectée de {1}",
        Msg::WhyDeadline => "échéance du {0} dépassée de {1}",
        Msg::WhyLate => "en retard de {0} (avancement {1}\u{202f}%, prévu {2}\u{202f}%)",
        Msg::WhyOverdue => "fin dépassée de {0}",
        Msg::WhySeparator => "\u{202f}; ",
        Msg::ProgressChanged => "Avancement de {0}\u{a0}: {1}\u{202f}% → {2}\u{202f}%",
        Msg::ActualStartChanged => "Début réel de {0}\u{a0}: {1} → {2}",
        Msg::ActualFinishChanged => "Fin réelle de {0}\u{a0}: {1} → {2}",
    }
}

/// The English table.
fn en(m: Msg) -> &'static str {
    match m {
        Msg::Summary => "Schedule “{0}” — from {1} to {2}; {3}.",
        Msg::SummaryNoDates => "Schedule “{0}” — no dates yet; {1}.",
        Msg::Groups => "group|groups",
        Msg::Rows => "row|rows",
        Msg::Bars => "bar|bars",
        Msg::Milestones => "milestone|milestones",
        Msg::RisksLine => "Risks: {0}.",
        Msg::ViolatedLinks => "violated link|violated links",
        Msg::BarsAtRisk => "bar at risk of absence|bars at risk of absence",
        Msg::WorkingDays => "working day|working days",
        Msg::WorkingWeeks => "working week|working weeks",
        Msg::Days => "day|days",
        Msg::Others => "more|more",
        Msg::More => "… and {0}",
        Msg::LinkViolated => "Link {0} ({1}) violated by {2}: {3} → {4}.",
        Msg::AbsenceRisk => "{0}: {1} away on {2} ({3}).",
        Msg::BarRef => "“{0}” (bar {1})",
        Msg::MilestoneRef => "“{0}” (milestone {1})",
        Msg::GroupRef => "“{0}” (group {1})",
        Msg::RowRef => "“{0}” (row {1})",
        Msg::ActionRef => "“{0}” (action {1})",
        Msg::MemberRef => "{0} (member {1})",
        Msg::UnknownItem => "item {0}",
        Msg::UnknownMember => "member {0}",
        Msg::NoValue => "none",
        Msg::DefaultColour => "default",
        Msg::LagDays => "d",
        Msg::LagWeeks => "wk",
        Msg::NoChange => "No change.",
        Msg::NoVisibleChange => "No change visible on the Gantt chart.",
        Msg::ChangesHeader => "Changes:",
        Msg::NewRisksHeader => "New risks:",
        Msg::NoNewRisk => "No new risk.",
        Msg::NotShownHeader => "Changes not shown:",
        Msg::EndSame => "Project end: {0} (unchanged).",
        Msg::EndMoved => "Project end: {0} → {1} ({2}).",
        Msg::EndNew => "Project end: {0} (no dates before).",
        Msg::EndGone => "Project end: no dates any more (before: {0}).",
        Msg::EndNone => "Project end: no dates yet.",
        Msg::BarAdded => "{0} added on row “{1}”: {2}",
        Msg::BarRemoved => "{0} removed (was {1})",
        Msg::BarMoved => "{0}: {1} → {2}, end {3} → {4}",
        Msg::BarStartMoved => "{0}: start {1} → {2}",
        Msg::BarEndMoved => "{0}: end {1} → {2}",
        Msg::BarRenamed => "Bar {0} renamed: “{1}” → “{2}”",
        Msg::Recoloured => "{0}: colour {1} → {2}",
        Msg::RowChanged => "{0}: row “{1}” → “{2}”",
        Msg::MilestoneAdded => "{0} added on row “{1}”: {2}",
        Msg::MilestoneRemoved => "{0} removed (was on {1})",
        Msg::MilestoneMoved => "{0}: {1} → {2}",
        Msg::MilestoneRenamed => "Milestone {0} renamed: “{1}” → “{2}”",
        Msg::LinkAdded => "Link {0} added: {1} → {2}, {3}",
        Msg::LinkRemoved => "Link {0} removed: {1} → {2}, {3}",
        Msg::LinkChanged => "Link {0} ({1} → {2}): {3} → {4}",
        Msg::LinkRewired => "Link {0}: {1} → {2}, {3} becomes {4} → {5}, {6}",
        Msg::GroupAdded => "{0} added at position {1}",
        Msg::GroupRemoved => "{0} removed",
        Msg::GroupRenamed => "Group {0} renamed: “{1}” → “{2}”",
        Msg::GroupMoved => "{0} moved to position {1}",
        Msg::RowAdded => "{0} added to group “{1}”",
        Msg::RowRemoved => "{0} removed",
        Msg::RowRenamed => "Row {0} renamed: “{1}” → “{2}”",
        Msg::RowReordered => "{0} moved to position {2} in group “{1}”",
        Msg::RowMovedToGroup => "{0} moved to group “{1}”, at position {2}",
        Msg::ScheduleRenamed => "Schedule renamed: “{0}” → “{1}”",
        Msg::ScheduleNotesChanged => "Schedule notes changed",
        Msg::SettingChanged => "Setting changed: {0}",
        Msg::TimeZone => "time zone",
        Msg::WorkingWeekdays => "working weekdays",
        Msg::Holidays => "holidays",
        Msg::TimeUnit => "time unit",
        Msg::SchedulingMode => "scheduling (automatic or manual)",
        Msg::RowMemberChanged => "Member of {0}: {1} → {2}",
        Msg::NotesChanged => "Notes of {0} changed",
        Msg::PinChanged => "“Start no earlier than” date of {0}: {1} → {2}",
        Msg::ActionAdded => "Action added to {1}: {0}",
        Msg::ActionRemoved => "Action removed from {1}: {0}",
        Msg::ActionRenamed => "Action {0} renamed: “{1}” → “{2}”",
        Msg::ActionStatusChanged => "{0}: {1} → {2}",
        Msg::ActionAssigneeChanged => "{0}: assignee {1} → {2}",
        Msg::ActionBarChanged => "{0} moved from {1} to {2}",
        Msg::Todo => "to do",
        Msg::InProgress => "in progress",
        Msg::Done => "done",
        Msg::MemberAdded => "Joined the team: {0}",
        Msg::MemberRemoved => "Left the team: {0}",
        Msg::MemberRenamed => "Member {0} renamed: {1} → {2}",
        Msg::MemberEmailChanged => "E-mail of {0} changed",
        Msg::AbsenceAdded => "Absence of {0} added: {1}",
        Msg::AbsenceRemoved => "Absence of {0} removed: {1}",
        Msg::AbsenceChanged => "Absence of {0} changed",
        Msg::AbsenceMoved => "Absence of {0}: {1} becomes {2}",
        Msg::LockSet => "Lock on {0} set by {1}",
        Msg::LockRemoved => "Lock on {0} (set by {1}) removed",
        Msg::CascadeDone => "{0} {1} by the cascade, in working days: {2}; project end {3}.",
        Msg::CascadeMoved => "moved|moved",
        Msg::CascadeEndSame => "unchanged ({0})",
        Msg::CascadeEndMoved => "{0} → {1}",
        Msg::And => "{0} and {1}",
        Msg::ItemShift => "“{0}” {1}\u{a0}d",
        Msg::BrokenConstraints => "broken constraint|broken constraints",
        Msg::MissedDeadlines => "missed deadline|missed deadlines",
        Msg::ConstraintBroken => "{0}: constraint “{1}” broken by {2}.",
        Msg::DeadlineMissed => "{0}: deadline missed by {2} (deadline {1}).",
        Msg::StartNoEarlierThan => "start no earlier than",
        Msg::StartNoLaterThan => "start no later than",
        Msg::MustStartOn => "must start on",
        Msg::FinishNoEarlierThan => "finish no earlier than",
        Msg::FinishNoLaterThan => "finish no later than",
        Msg::ConstraintChanged => "Constraint of {0}: {1} → {2}",
        Msg::DeadlineChanged => "Deadline of {0}: {1} → {2}",
        Msg::NoneFeminine => "none",
        Msg::LateBars => "late bar|late bars",
        Msg::OverdueBars => "overdue bar|overdue bars",
        Msg::BarLate => "{0}: late by {1} at {2} (progress {3}%, planned {4}%).",
        Msg::BarOverdue => "{0}: overdue by {1} at {2}, progress {3}%.",
        Msg::WhyAbsent => "{0} away on {1} ({2})",
        Msg::WhyLink => "link from {0} broken by {1}",
        Msg::WhyConstraint => "constraint “{0}” broken by {1}",
        Msg::WhyDeadline => "deadline {0} missed by {1}",
        Msg::WhyLate => "late by {0} (progress {1}%, planned {2}%)",
        Msg::WhyOverdue => "overdue by {0}",
        Msg::WhySeparator => "; ",
        Msg::ProgressChanged => "Progress of {0}: {1}% → {2}%",
        Msg::ActualStartChanged => "Actual start of {0}: {1} → {2}",
        Msg::ActualFinishChanged => "Actual finish of {0}: {1} → {2}",
    }
}

/// The messages a person reads differently from the model (`Words::for_person`): the
/// same words without the ids, which only a model acts on. `None`: as the model's. A
/// bar, what the chart mostly shows, is named by its label alone; the other kinds keep
/// their kind's name.
fn person_table(lang: Lang, m: Msg) -> Option<&'static str> {
    Some(match (lang, m) {
        (Lang::Fr, Msg::BarRef) => "«\u{a0}{0}\u{a0}»",
        (Lang::En, Msg::BarRef) => "“{0}”",
        (Lang::Fr, Msg::MilestoneRef) => "«\u{a0}{0}\u{a0}» (jalon)",
        (Lang::En, Msg::MilestoneRef) => "“{0}” (milestone)",
        (Lang::Fr, Msg::GroupRef) => "«\u{a0}{0}\u{a0}» (groupe)",
        (Lang::En, Msg::GroupRef) => "“{0}” (group)",
        (Lang::Fr, Msg::RowRef) => "«\u{a0}{0}\u{a0}» (ligne)",
        (Lang::En, Msg::RowRef) => "“{0}” (row)",
        (Lang::Fr, Msg::ActionRef) => "«\u{a0}{0}\u{a0}» (action)",
        (Lang::En, Msg::ActionRef) => "“{0}” (action)",
        (_, Msg::MemberRef) => "{0}",
        (Lang::Fr, Msg::UnknownItem) => "un élément supprimé",
        (Lang::En, Msg::UnknownItem) => "a deleted item",
        (Lang::Fr, Msg::UnknownMember) => "un membre parti",
        (Lang::En, Msg::UnknownMember) => "a former member",
        (Lang::Fr, Msg::LinkViolated) => "Lien {1} {3} → {4} non respecté de {2}.",
        (Lang::En, Msg::LinkViolated) => "Link {1} {3} → {4} violated by {2}.",
        (Lang::Fr, Msg::LinkAdded) => "Lien ajouté\u{a0}: {1} → {2}, {3}",
        (Lang::En, Msg::LinkAdded) => "Link added: {1} → {2}, {3}",
        (Lang::Fr, Msg::LinkRemoved) => "Lien supprimé\u{a0}: {1} → {2}, {3}",
        (Lang::En, Msg::LinkRemoved) => "Link removed: {1} → {2}, {3}",
        (Lang::Fr, Msg::LinkChanged) => "Lien {1} → {2}\u{a0}: {3} → {4}",
        (Lang::En, Msg::LinkChanged) => "Link {1} → {2}: {3} → {4}",
        (Lang::Fr, Msg::LinkRewired) => "Lien {1} → {2} ({3}) devient {4} → {5} ({6})",
        (Lang::En, Msg::LinkRewired) => "Link {1} → {2} ({3}) becomes {4} → {5} ({6})",
        (Lang::Fr, Msg::BarRenamed) => "Bloc renommé\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»",
        (Lang::En, Msg::BarRenamed) => "Bar renamed: “{1}” → “{2}”",
        (Lang::Fr, Msg::MilestoneRenamed) => {
            "Jalon renommé\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»"
        }
        (Lang::En, Msg::MilestoneRenamed) => "Milestone renamed: “{1}” → “{2}”",
        (Lang::Fr, Msg::GroupRenamed) => {
            "Groupe renommé\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»"
        }
        (Lang::En, Msg::GroupRenamed) => "Group renamed: “{1}” → “{2}”",
        (Lang::Fr, Msg::RowRenamed) => {
            "Ligne renommée\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»"
        }
        (Lang::En, Msg::RowRenamed) => "Row renamed: “{1}” → “{2}”",
        (Lang::Fr, Msg::ActionRenamed) => {
            "Action renommée\u{a0}: «\u{a0}{1}\u{a0}» → «\u{a0}{2}\u{a0}»"
        }
        (Lang::En, Msg::ActionRenamed) => "Action renamed: “{1}” → “{2}”",
        (Lang::Fr, Msg::MemberRenamed) => "Membre renommé\u{a0}: {1} → {2}",
        (Lang::En, Msg::MemberRenamed) => "Member renamed: {1} → {2}",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn plurals_follow_each_language() {
        assert_eq!(plural(Lang::Fr, 0usize, "bloc", "blocs"), "bloc");
        assert_eq!(plural(Lang::Fr, 1u32, "bloc", "blocs"), "bloc");
        assert_eq!(plural(Lang::Fr, 2i64, "bloc", "blocs"), "blocs");
        assert_eq!(plural(Lang::Fr, -1i32, "jour", "jours"), "jour");
        assert_eq!(plural(Lang::Fr, -3i32, "jour", "jours"), "jours");
        assert_eq!(plural(Lang::En, 0usize, "bar", "bars"), "bars");
        assert_eq!(plural(Lang::En, 1usize, "bar", "bars"), "bar");
        assert_eq!(plural(Lang::En, -1i64, "day", "days"), "day");
        assert_eq!(plural(Lang::En, 12u64, "bar", "bars"), "bars");
        assert_eq!(count(Lang::Fr, 0usize, "lien", "liens"), "0 lien");
        assert_eq!(count(Lang::En, 0usize, "link", "links"), "0 links");
        assert_eq!(count(Lang::Fr, 1_000usize, "lien", "liens"), "1000 liens");
    }

    #[test]
    fn html_text_is_escaped() {
        assert_eq!(
            escape_html("<b a=\"x\">&'é"),
            "&lt;b a=&quot;x&quot;&gt;&amp;&#39;é"
        );
    }

    use expect_test::{Expect, expect};

    use super::*;
    use crate::demo::s4hana_migration;
    use crate::diff::diff;
    use crate::risk;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn check(actual: impl AsRef<str>, expect: Expect) {
        expect.assert_eq(&crate::testkit::visible(actual.as_ref()));
    }

    /// The change list of an edit of the demo schedule, French then English.
    fn check_edit(f: impl FnOnce(&mut Schedule), expect: Expect) {
        let before = s4hana_migration();
        let mut after = before.clone();
        f(&mut after);
        let out = diff(&before, &after);
        let text = format!(
            "{}\n\n{}",
            change_list(&before, &out, Lang::Fr),
            change_list(&before, &out, Lang::En)
        );
        check(text, expect);
    }

    /// [`check_edit`] for the person's change list.
    fn check_person_edit(f: impl FnOnce(&mut Schedule), expect: Expect) {
        let before = s4hana_migration();
        let mut after = before.clone();
        f(&mut after);
        let out = diff(&before, &after);
        let text = format!(
            "{}\n\n{}",
            change_list_for_person(&before, &out, Lang::Fr),
            change_list_for_person(&before, &out, Lang::En)
        );
        check(text, expect);
    }

    fn bar_mut(s: &mut Schedule, id: u64) -> &mut Bar {
        s.bars.iter_mut().find(|b| b.id.0 == id).unwrap()
    }

    #[test]
    fn summary_of_the_demo() {
        let s = s4hana_migration();
        check(
            schedule_summary(&s, Lang::Fr),
            expect![
                "Planning «⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» — du 2026-11-02 au 2026-12-18⟨nnbsp⟩; 2 groupes, 6 lignes, 6 blocs, 1 jalon."
            ],
        );
        check(
            schedule_summary(&s, Lang::En),
            expect![
                "Schedule “S/4HANA Migration” — from 2026-11-02 to 2026-12-18; 2 groups, 6 rows, 6 bars, 1 milestone."
            ],
        );
    }

    #[test]
    fn summary_counts_in_singular_and_plural() {
        let mut s = s4hana_migration();
        s.groups.truncate(1);
        s.rows.truncate(1);
        s.bars.truncate(1);
        s.milestones.clear();
        check(
            schedule_summary(&s, Lang::Fr),
            expect![
                "Planning «⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» — du 2026-11-02 au 2026-11-13⟨nnbsp⟩; 1 groupe, 1 ligne, 1 bloc, 0 jalon."
            ],
        );
        check(
            schedule_summary(&s, Lang::En),
            expect![
                "Schedule “S/4HANA Migration” — from 2026-11-02 to 2026-11-13; 1 group, 1 row, 1 bar, 0 milestones."
            ],
        );
        let mut two = s4hana_migration();
        let mut m = two.milestones[0].clone();
        m.id = MilestoneId(two.next_id);
        two.milestones.push(m);
        check(
            schedule_summary(&two, Lang::Fr),
            expect![
                "Planning «⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» — du 2026-11-02 au 2026-12-18⟨nnbsp⟩; 2 groupes, 6 lignes, 6 blocs, 2 jalons."
            ],
        );
        let empty = Schedule::new("Nouveau planning");
        check(
            schedule_summary(&empty, Lang::Fr),
            expect![
                "Planning «⟨nbsp⟩Nouveau planning⟨nbsp⟩» — pas encore de dates⟨nnbsp⟩; 0 groupe, 0 ligne, 0 bloc, 0 jalon."
            ],
        );
        check(
            schedule_summary(&empty, Lang::En),
            expect![
                "Schedule “Nouveau planning” — no dates yet; 0 groups, 0 rows, 0 bars, 0 milestones."
            ],
        );
    }

    #[test]
    fn risks_of_the_demo() {
        let s = s4hana_migration();
        let r = risk::risks(&s);
        let text = [Lang::Fr, Lang::En]
            .map(|lang| {
                let mut lines = vec![risks_line(&r, lang).unwrap()];
                lines.extend(risk_details(&s, &r, lang));
                lines.join("\n")
            })
            .join("\n");
        check(
            &text,
            expect![[r#"
                Risques⟨nbsp⟩: 1 bloc à risque d'absence.
                «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15)⟨nbsp⟩: absence de Thomas Dubois sur 2 jours ouvrés (2026-11-26 → 2026-11-27).
                Risks: 1 bar at risk of absence.
                “Adaptation du code ABAP” (bar 15): Thomas Dubois away on 2 working days (2026-11-26 → 2026-11-27)."#]],
        );
        assert!(
            !text.contains(&s.absences[0].reason),
            "the reason is private"
        );
        assert_eq!(risks_line(&Risks::default(), Lang::Fr), None);
        assert!(risk_details(&s, &Risks::default(), Lang::En).is_empty());
    }

    /// The demo's bars 14 (« Nettoyage des données », Mon 2026-11-09 to Fri 11-20) and
    /// 17 (« Recette utilisateurs », 12-07 to 12-11) and its go-live (12-18) given
    /// constraints and deadlines that the plan breaks.
    fn constrained_demo() -> Schedule {
        let mut s = s4hana_migration();
        let c = |kind, date: &str| {
            Some(Constraint {
                kind,
                date: d(date),
            })
        };
        bar_mut(&mut s, 14).pin = Some(d("2026-11-10"));
        bar_mut(&mut s, 14).constraint = c(ConstraintKind::FinishNoLaterThan, "2026-11-18");
        bar_mut(&mut s, 17).deadline = Some(d("2026-12-10"));
        s.milestones[0].constraint = c(ConstraintKind::MustStartOn, "2026-12-16");
        s.milestones[0].deadline = Some(d("2026-12-15"));
        s
    }

    #[test]
    fn broken_constraints_and_missed_deadlines_in_both_languages() {
        let s = constrained_demo();
        let r = risk::risks(&s);
        let text = [Lang::Fr, Lang::En]
            .map(|lang| {
                let mut lines = vec![risks_line(&r, lang).unwrap()];
                lines.extend(risk_details(&s, &r, lang));
                lines.join("\n")
            })
            .join("\n");
        let visible = text
            .replace('\u{202f}', "⟨nnbsp⟩")
            .replace('\u{a0}', "⟨nbsp⟩");
        check(
            &visible,
            expect![[r#"
                Risques⟨nbsp⟩: 1 bloc à risque d'absence, 3 contraintes non respectées, 2 échéances dépassées.
                «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15)⟨nbsp⟩: absence de Thomas Dubois sur 2 jours ouvrés (2026-11-26 → 2026-11-27).
                «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: contrainte «⟨nbsp⟩début au plus tôt le 2026-11-10⟨nbsp⟩» non respectée de 1 jour ouvré.
                «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: contrainte «⟨nbsp⟩fin au plus tard le 2026-11-18⟨nbsp⟩» non respectée de 2 jours ouvrés.
                «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: contrainte «⟨nbsp⟩doit commencer le 2026-12-16⟨nbsp⟩» non respectée de 2 jours ouvrés.
                «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: échéance dépassée de 1 jour ouvré (échéance le 2026-12-10).
                «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: échéance dépassée de 3 jours ouvrés (échéance le 2026-12-15).
                Risks: 1 bar at risk of absence, 3 broken constraints, 2 missed deadlines.
                “Adaptation du code ABAP” (bar 15): Thomas Dubois away on 2 working days (2026-11-26 → 2026-11-27).
                “Nettoyage des données” (bar 14): constraint “start no earlier than 2026-11-10” broken by 1 working day.
                “Nettoyage des données” (bar 14): constraint “finish no later than 2026-11-18” broken by 2 working days.
                “Go-live S/4HANA” (milestone 19): constraint “must start on 2026-12-16” broken by 2 working days.
                “Recette utilisateurs” (bar 17): deadline missed by 1 working day (deadline 2026-12-10).
                “Go-live S/4HANA” (milestone 19): deadline missed by 3 working days (deadline 2026-12-15)."#]],
        );
        // One of each, in the singular.
        let one = Risks {
            broken_constraints: r.broken_constraints[..1].to_vec(),
            missed_deadlines: r.missed_deadlines[..1].to_vec(),
            ..Risks::default()
        };
        check(
            risks_line(&one, Lang::Fr).unwrap(),
            expect!["Risques⟨nbsp⟩: 1 contrainte non respectée, 1 échéance dépassée."],
        );
        check(
            risks_line(&one, Lang::En).unwrap(),
            expect!["Risks: 1 broken constraint, 1 missed deadline."],
        );
    }

    #[test]
    fn a_constraint_or_deadline_change_is_listed_as_not_shown() {
        let before = s4hana_migration();
        let after = constrained_demo();
        let d = diff(&before, &after);
        let text = [Lang::Fr, Lang::En]
            .map(|lang| change_list(&before, &d, lang))
            .join("\n\n");
        let visible = text
            .replace('\u{202f}', "⟨nnbsp⟩")
            .replace('\u{a0}', "⟨nbsp⟩");
        check(
            &visible,
            expect![[r#"
                Aucun changement visible sur le Gantt.
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Nouveaux risques⟨nbsp⟩:
                - «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: contrainte «⟨nbsp⟩début au plus tôt le 2026-11-10⟨nbsp⟩» non respectée de 1 jour ouvré.
                - «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: contrainte «⟨nbsp⟩fin au plus tard le 2026-11-18⟨nbsp⟩» non respectée de 2 jours ouvrés.
                - «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: contrainte «⟨nbsp⟩doit commencer le 2026-12-16⟨nbsp⟩» non respectée de 2 jours ouvrés.
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: échéance dépassée de 1 jour ouvré (échéance le 2026-12-10).
                - «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: échéance dépassée de 3 jours ouvrés (échéance le 2026-12-15).
                Changements non affichés⟨nbsp⟩:
                - Début au plus tôt de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: aucun → 2026-11-10
                - Contrainte de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: aucune → fin au plus tard le 2026-11-18
                - Échéance de «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: aucune → 2026-12-10
                - Contrainte de «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: aucune → doit commencer le 2026-12-16
                - Échéance de «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: aucune → 2026-12-15

                No change visible on the Gantt chart.
                Project end: 2026-12-18 (unchanged).
                New risks:
                - “Nettoyage des données” (bar 14): constraint “start no earlier than 2026-11-10” broken by 1 working day.
                - “Nettoyage des données” (bar 14): constraint “finish no later than 2026-11-18” broken by 2 working days.
                - “Go-live S/4HANA” (milestone 19): constraint “must start on 2026-12-16” broken by 2 working days.
                - “Recette utilisateurs” (bar 17): deadline missed by 1 working day (deadline 2026-12-10).
                - “Go-live S/4HANA” (milestone 19): deadline missed by 3 working days (deadline 2026-12-15).
                Changes not shown:
                - “Start no earlier than” date of “Nettoyage des données” (bar 14): none → 2026-11-10
                - Constraint of “Nettoyage des données” (bar 14): none → finish no later than 2026-11-18
                - Deadline of “Recette utilisateurs” (bar 17): none → 2026-12-10
                - Constraint of “Go-live S/4HANA” (milestone 19): none → must start on 2026-12-16
                - Deadline of “Go-live S/4HANA” (milestone 19): none → 2026-12-15"#]],
        );
        // Back again: the old values are named, and no risk is new.
        let back = diff(&after, &before);
        let text = change_list(&after, &back, Lang::En);
        assert!(
            text.contains("- Deadline of “Recette utilisateurs” (bar 17): 2026-12-10 → none"),
            "{text}"
        );
        assert!(text.contains("No new risk."), "{text}");
    }

    #[test]
    fn late_and_overdue_bars_and_progress_changes_in_both_languages() {
        let before = s4hana_migration();
        let mut after = before.clone();
        // « Nettoyage des données » (14) ended on 2026-11-20 at 60 %; « Recette
        // utilisateurs » (17, 12-07 to 12-11) has not begun on Wednesday 12-09.
        let clean = bar_mut(&mut after, 14);
        clean.progress = 60;
        clean.actual_start = Some("2026-11-09".parse().unwrap());
        let status: Date = "2026-12-09".parse().unwrap();
        let r = risk::risks_at(&after, status);
        let only = Risks {
            status_date: r.status_date,
            late: r.late.iter().filter(|l| l.bar.0 == 17).cloned().collect(),
            overdue: r
                .overdue
                .iter()
                .filter(|l| l.bar.0 == 14)
                .cloned()
                .collect(),
            ..Risks::default()
        };
        let d = diff(&before, &after);
        let text = [Lang::Fr, Lang::En]
            .map(|lang| {
                let mut lines = vec![risks_line(&only, lang).unwrap()];
                lines.extend(risk_details(&after, &only, lang));
                lines.push(change_list(&before, &d, lang));
                lines.join("\n")
            })
            .join("\n\n")
            .replace('\u{202f}', "⟨nnbsp⟩")
            .replace('\u{a0}', "⟨nbsp⟩");
        check(
            &text,
            expect![[r#"
                Risques⟨nbsp⟩: 1 bloc en retard, 1 bloc hors délai.
                «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: en retard de 3 jours ouvrés au 2026-12-09 (avancement 0⟨nnbsp⟩%, prévu 60⟨nnbsp⟩%).
                «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: fin dépassée de 13 jours ouvrés au 2026-12-09, avancement 60⟨nnbsp⟩%.
                Aucun changement visible sur le Gantt.
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Aucun nouveau risque.
                Changements non affichés⟨nbsp⟩:
                - Avancement de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: 0⟨nnbsp⟩% → 60⟨nnbsp⟩%
                - Début réel de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: aucun → 2026-11-09

                Risks: 1 late bar, 1 overdue bar.
                “Recette utilisateurs” (bar 17): late by 3 working days at 2026-12-09 (progress 0%, planned 60%).
                “Nettoyage des données” (bar 14): overdue by 13 working days at 2026-12-09, progress 60%.
                No change visible on the Gantt chart.
                Project end: 2026-12-18 (unchanged).
                No new risk.
                Changes not shown:
                - Progress of “Nettoyage des données” (bar 14): 0% → 60%
                - Actual start of “Nettoyage des données” (bar 14): none → 2026-11-09"#]],
        );
        // Counted in the plural.
        let two = Risks {
            late: vec![only.late[0].clone(), only.late[0].clone()],
            ..Risks::default()
        };
        check(
            risks_line(&two, Lang::Fr).unwrap(),
            expect!["Risques⟨nbsp⟩: 2 blocs en retard."],
        );
    }

    #[test]
    fn risks_count_in_plural_and_days_in_runs() {
        let mut s = s4hana_migration();
        // A second, longer absence across a weekend; and the ABAP work starts before
        // the audit ends.
        s.absences.push(Absence {
            id: AbsenceId(32),
            member: MemberId(3),
            start: d("2026-11-19"),
            end: d("2026-11-24"),
            reason: "Congés".into(),
        });
        s.absences[0].end = d("2026-12-01");
        bar_mut(&mut s, 15).start = d("2026-11-12");
        bar_mut(&mut s, 16).start = d("2026-11-24");
        s.links.push(Link {
            id: LinkId(33),
            from: ItemId(14),
            to: ItemId(19),
            kind: LinkKind::FF,
            lag: 25,
        });
        s.next_id = 34;
        let r = risk::risks(&s);
        let text = [Lang::Fr, Lang::En]
            .map(|lang| {
                let mut lines = vec![risks_line(&r, lang).unwrap()];
                lines.extend(risk_details(&s, &r, lang));
                lines.join("\n")
            })
            .join("\n");
        check(
            text,
            expect![[r#"
                Risques⟨nbsp⟩: 2 liens non respectés, 3 blocs à risque d'absence.
                Lien 21 (FS) non respecté de 2 jours ouvrés⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» (bloc 13) → «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15).
                Lien 33 (FF) non respecté de 5 jours ouvrés⟨nbsp⟩: «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14) → «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19).
                «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: absence de Sophie Lefèvre sur 2 jours ouvrés (2026-11-19 → 2026-11-20).
                «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15)⟨nbsp⟩: absence de Thomas Dubois sur 4 jours ouvrés (2026-11-26 → 2026-12-01).
                «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16)⟨nbsp⟩: absence de Sophie Lefèvre sur 1 jour ouvré (2026-11-24).
                Risks: 2 violated links, 3 bars at risk of absence.
                Link 21 (FS) violated by 2 working days: “Audit du système” (bar 13) → “Adaptation du code ABAP” (bar 15).
                Link 33 (FF) violated by 5 working days: “Nettoyage des données” (bar 14) → “Go-live S/4HANA” (milestone 19).
                “Nettoyage des données” (bar 14): Sophie Lefèvre away on 2 working days (2026-11-19 → 2026-11-20).
                “Adaptation du code ABAP” (bar 15): Thomas Dubois away on 4 working days (2026-11-26 → 2026-12-01).
                “Migration à blanc” (bar 16): Sophie Lefèvre away on 1 working day (2026-11-24)."#]],
        );
    }

    #[test]
    fn moving_a_bar() {
        check_edit(
            |s| {
                let b = bar_mut(s, 14);
                b.start = d("2026-11-16");
                b.end = d("2026-11-27");
            },
            expect![[r#"
                Changements⟨nbsp⟩:
                - «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: 2026-11-09 → 2026-11-16, fin 2026-11-20 → 2026-11-27
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Nouveaux risques⟨nbsp⟩:
                - Lien 22 (FS) non respecté de 5 jours ouvrés⟨nbsp⟩: «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16).

                Changes:
                - “Nettoyage des données” (bar 14): 2026-11-09 → 2026-11-16, end 2026-11-20 → 2026-11-27
                Project end: 2026-12-18 (unchanged).
                New risks:
                - Link 22 (FS) violated by 5 working days: “Nettoyage des données” (bar 14) → “Migration à blanc” (bar 16)."#]],
        );
    }

    #[test]
    fn moving_the_last_bar_moves_the_project_end() {
        check_edit(
            |s| {
                bar_mut(s, 18).end = d("2026-12-22");
                s.milestones[0].date = d("2026-12-23");
            },
            expect![[r#"
                Changements⟨nbsp⟩:
                - «⟨nbsp⟩Bascule en production⟨nbsp⟩» (bloc 18)⟨nbsp⟩: fin 2026-12-17 → 2026-12-22
                - «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19)⟨nbsp⟩: 2026-12-18 → 2026-12-23
                Fin du projet⟨nbsp⟩: 2026-12-18 → 2026-12-23 (+5 jours).
                Aucun nouveau risque.

                Changes:
                - “Bascule en production” (bar 18): end 2026-12-17 → 2026-12-22
                - “Go-live S/4HANA” (milestone 19): 2026-12-18 → 2026-12-23
                Project end: 2026-12-18 → 2026-12-23 (+5 days).
                No new risk."#]],
        );
    }

    /// A link from bar 15 to bar 16, which it violates by ten working days.
    fn a_violated_link(s: &mut Schedule) {
        s.links.push(Link {
            id: LinkId(32),
            from: ItemId(15),
            to: ItemId(16),
            kind: LinkKind::FS,
            lag: 0,
        });
        s.next_id = 33;
    }

    #[test]
    fn adding_a_violated_link() {
        check_edit(
            a_violated_link,
            expect![[r#"
                Changements⟨nbsp⟩:
                - Lien 32 ajouté⟨nbsp⟩: «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16), FS
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Nouveaux risques⟨nbsp⟩:
                - Lien 32 (FS) non respecté de 10 jours ouvrés⟨nbsp⟩: «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16).

                Changes:
                - Link 32 added: “Adaptation du code ABAP” (bar 15) → “Migration à blanc” (bar 16), FS
                Project end: 2026-12-18 (unchanged).
                New risks:
                - Link 32 (FS) violated by 10 working days: “Adaptation du code ABAP” (bar 15) → “Migration à blanc” (bar 16)."#]],
        );
    }

    #[test]
    fn changing_a_rows_member_is_not_shown() {
        check_edit(
            |s| {
                let row = s.rows.iter_mut().find(|r| r.id == RowId(10)).unwrap();
                row.member = Some(MemberId(4));
            },
            expect![[r#"
                Aucun changement visible sur le Gantt.
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Nouveaux risques⟨nbsp⟩:
                - «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16)⟨nbsp⟩: absence de Thomas Dubois sur 2 jours ouvrés (2026-11-26 → 2026-11-27).
                Changements non affichés⟨nbsp⟩:
                - Membre de «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (ligne 10)⟨nbsp⟩: Sophie Lefèvre → Thomas Dubois

                No change visible on the Gantt chart.
                Project end: 2026-12-18 (unchanged).
                New risks:
                - “Migration à blanc” (bar 16): Thomas Dubois away on 2 working days (2026-11-26 → 2026-11-27).
                Changes not shown:
                - Member of “Migration à blanc” (row 10): Sophie Lefèvre → Thomas Dubois"#]],
        );
    }

    #[test]
    fn new_items_at_risk_are_named_from_the_diff() {
        check_edit(
            |s| {
                s.bars.push(Bar {
                    id: BarId(32),
                    row: RowId(8),
                    label: "Revue de code".into(),
                    start: d("2026-11-25"),
                    end: d("2026-11-27"),
                    color: None,
                    notes: String::new(),
                    pin: None,
                    constraint: None,
                    deadline: None,
                    progress: 0,
                    actual_start: None,
                    actual_finish: None,
                });
                s.links.push(Link {
                    id: LinkId(33),
                    from: ItemId(32),
                    to: ItemId(16),
                    kind: LinkKind::FS,
                    lag: 0,
                });
                s.members.push(Member {
                    id: MemberId(34),
                    name: "Léa Garnier".into(),
                    email: None,
                });
                s.absences.push(Absence {
                    id: AbsenceId(35),
                    member: MemberId(34),
                    start: d("2026-11-10"),
                    end: d("2026-11-10"),
                    reason: "Formation".into(),
                });
                let row = s.rows.iter_mut().find(|r| r.id == RowId(7)).unwrap();
                row.member = Some(MemberId(34));
                s.absences[0].start = d("2026-11-25");
                s.next_id = 36;
            },
            expect![[r#"
                Changements⟨nbsp⟩:
                - «⟨nbsp⟩Revue de code⟨nbsp⟩» (bloc 32) ajouté sur la ligne «⟨nbsp⟩Adaptation du code spécifique⟨nbsp⟩»⟨nbsp⟩: 2026-11-25 → 2026-11-27
                - Lien 33 ajouté⟨nbsp⟩: «⟨nbsp⟩Revue de code⟨nbsp⟩» (bloc 32) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16), FS
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Nouveaux risques⟨nbsp⟩:
                - Lien 33 (FS) non respecté de 5 jours ouvrés⟨nbsp⟩: «⟨nbsp⟩Revue de code⟨nbsp⟩» (bloc 32) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16).
                - «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14)⟨nbsp⟩: absence de Léa Garnier sur 1 jour ouvré (2026-11-10).
                - «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15)⟨nbsp⟩: absence de Thomas Dubois sur 1 jour ouvré (2026-11-25).
                - «⟨nbsp⟩Revue de code⟨nbsp⟩» (bloc 32)⟨nbsp⟩: absence de Thomas Dubois sur 3 jours ouvrés (2026-11-25 → 2026-11-27).
                Changements non affichés⟨nbsp⟩:
                - Membre de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (ligne 7)⟨nbsp⟩: Sophie Lefèvre → Léa Garnier
                - Absence de Thomas Dubois⟨nbsp⟩: 2026-11-26 → 2026-11-27 devient 2026-11-25 → 2026-11-27
                - Arrivée dans l'équipe⟨nbsp⟩: Léa Garnier (membre 34)
                - Absence de Léa Garnier ajoutée⟨nbsp⟩: 2026-11-10

                Changes:
                - “Revue de code” (bar 32) added on row “Adaptation du code spécifique”: 2026-11-25 → 2026-11-27
                - Link 33 added: “Revue de code” (bar 32) → “Migration à blanc” (bar 16), FS
                Project end: 2026-12-18 (unchanged).
                New risks:
                - Link 33 (FS) violated by 5 working days: “Revue de code” (bar 32) → “Migration à blanc” (bar 16).
                - “Nettoyage des données” (bar 14): Léa Garnier away on 1 working day (2026-11-10).
                - “Adaptation du code ABAP” (bar 15): Thomas Dubois away on 1 working day (2026-11-25).
                - “Revue de code” (bar 32): Thomas Dubois away on 3 working days (2026-11-25 → 2026-11-27).
                Changes not shown:
                - Member of “Nettoyage des données” (row 7): Sophie Lefèvre → Léa Garnier
                - Absence of Thomas Dubois: 2026-11-26 → 2026-11-27 becomes 2026-11-25 → 2026-11-27
                - Joined the team: Léa Garnier (member 34)
                - Absence of Léa Garnier added: 2026-11-10"#]],
        );
    }

    #[test]
    fn nothing_changed() {
        check_edit(
            |_| {},
            expect![[r#"
                Aucun changement.
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Aucun nouveau risque.

                No change.
                Project end: 2026-12-18 (unchanged).
                No new risk."#]],
        );
    }

    /// An edit that makes every kind of change a diff lists.
    fn every_change(s: &mut Schedule) {
        s.name = "Migration S/4".into();
        s.notes.clear();
        s.settings.holidays.push(d("2026-12-24"));
        s.groups[1].name = "Bascule et démarrage".into();
        s.groups.swap(0, 1);
        s.groups.push(Group {
            id: GroupId(32),
            name: "Hypercare".into(),
        });
        s.rows.push(Row {
            id: RowId(33),
            group: GroupId(32),
            name: "Support".into(),
            member: Some(MemberId(2)),
        });
        s.rows.swap(3, 4);
        s.rows[0].name = "Audit".into();
        s.rows[2].group = GroupId(9);
        s.rows[1].member = None;
        {
            let b = bar_mut(s, 13);
            b.label = "Audit ECC".into();
            b.color = Some("#000000".into());
            b.notes.clear();
            b.pin = Some(d("2026-11-02"));
            b.start = d("2026-11-03");
        }
        bar_mut(s, 16).row = RowId(11);
        bar_mut(s, 17).end = d("2026-12-10");
        s.bars.push(Bar {
            id: BarId(34),
            row: RowId(33),
            label: "Support renforcé".into(),
            start: d("2026-12-21"),
            end: d("2027-01-08"),
            color: None,
            notes: String::new(),
            pin: None,
            constraint: None,
            deadline: None,
            progress: 0,
            actual_start: None,
            actual_finish: None,
        });
        let m = &mut s.milestones[0];
        m.date = d("2026-12-21");
        m.label = "Go-live".into();
        m.notes = "Prévenir les équipes".into();
        s.links.retain(|l| l.id != LinkId(24));
        s.links[0].lag = 3;
        s.links[1].to = ItemId(16);
        s.links.push(Link {
            id: LinkId(35),
            from: ItemId(19),
            to: ItemId(34),
            kind: LinkKind::SS,
            lag: -1,
        });
        s.actions[0].status = ActionStatus::InProgress;
        s.actions[1].label = "Archiver".into();
        s.actions[2].assignee = None;
        s.actions[3].bar = BarId(18);
        s.actions.push(Action {
            id: ActionId(36),
            bar: BarId(34),
            label: "Ouvrir la cellule de support".into(),
            status: ActionStatus::Todo,
            assignee: Some(MemberId(37)),
        });
        s.members[0].name = "Camille Martin-Roux".into();
        s.members[1].email = None;
        s.members.push(Member {
            id: MemberId(37),
            name: "Léa Garnier".into(),
            email: Some("lea.garnier@example.org".into()),
        });
        s.absences[0].reason = "Autre".into();
        s.absences.push(Absence {
            id: AbsenceId(38),
            member: MemberId(37),
            start: d("2026-12-28"),
            end: d("2026-12-31"),
            reason: "Congés".into(),
        });
        s.next_id = 39;
    }

    #[test]
    fn every_kind_of_change() {
        check_edit(
            every_change,
            expect![[r#"
                Changements⟨nbsp⟩:
                - Ligne 6 renommée⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Audit⟨nbsp⟩»
                - «⟨nbsp⟩Adaptation du code spécifique⟨nbsp⟩» (ligne 8) déplacée vers le groupe «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩», en position 1
                - Groupe 9 renommé⟨nbsp⟩: «⟨nbsp⟩Bascule⟨nbsp⟩» → «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩»
                - «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩» (groupe 9) déplacé en position 1
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (ligne 11) déplacée en position 2 du groupe «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩»
                - Bloc 13 renommé⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Audit ECC⟨nbsp⟩»
                - «⟨nbsp⟩Audit ECC⟨nbsp⟩» (bloc 13)⟨nbsp⟩: début 2026-11-02 → 2026-11-03
                - «⟨nbsp⟩Audit ECC⟨nbsp⟩» (bloc 13)⟨nbsp⟩: couleur #2f6fdf → #000000
                - «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16)⟨nbsp⟩: ligne «⟨nbsp⟩Migration à blanc⟨nbsp⟩» → «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩»
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: fin 2026-12-11 → 2026-12-10
                - Jalon 19 renommé⟨nbsp⟩: «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» → «⟨nbsp⟩Go-live⟨nbsp⟩»
                - «⟨nbsp⟩Go-live⟨nbsp⟩» (jalon 19)⟨nbsp⟩: 2026-12-18 → 2026-12-21
                - Lien 20 («⟨nbsp⟩Audit ECC⟨nbsp⟩» (bloc 13) → «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14))⟨nbsp⟩: SS +5 j → SS +3 j
                - Lien 21⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» (bloc 13) → «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15), FS devient «⟨nbsp⟩Audit ECC⟨nbsp⟩» (bloc 13) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16), FS
                - Lien 24 supprimé⟨nbsp⟩: «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16) → «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17), FS
                - «⟨nbsp⟩Hypercare⟨nbsp⟩» (groupe 32) ajouté en position 3
                - «⟨nbsp⟩Support⟨nbsp⟩» (ligne 33) ajoutée au groupe «⟨nbsp⟩Hypercare⟨nbsp⟩»
                - «⟨nbsp⟩Support renforcé⟨nbsp⟩» (bloc 34) ajouté sur la ligne «⟨nbsp⟩Support⟨nbsp⟩»⟨nbsp⟩: 2026-12-21 → 2027-01-08
                - Lien 35 ajouté⟨nbsp⟩: «⟨nbsp⟩Go-live⟨nbsp⟩» (jalon 19) → «⟨nbsp⟩Support renforcé⟨nbsp⟩» (bloc 34), SS -1 j
                Fin du projet⟨nbsp⟩: 2026-12-18 → 2027-01-08 (+21 jours).
                Aucun nouveau risque.
                Changements non affichés⟨nbsp⟩:
                - Planning renommé⟨nbsp⟩: «⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» → «⟨nbsp⟩Migration S/4⟨nbsp⟩»
                - Notes du planning modifiées
                - Réglage modifié⟨nbsp⟩: jours fériés
                - Membre 1 renommé⟨nbsp⟩: Camille Martin → Camille Martin-Roux
                - E-mail de Karim Benali (membre 2) modifié
                - Membre de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (ligne 7)⟨nbsp⟩: Sophie Lefèvre → aucun
                - Notes de «⟨nbsp⟩Audit ECC⟨nbsp⟩» (bloc 13) modifiées
                - Début au plus tôt de «⟨nbsp⟩Audit ECC⟨nbsp⟩» (bloc 13)⟨nbsp⟩: aucun → 2026-11-02
                - Notes de «⟨nbsp⟩Go-live⟨nbsp⟩» (jalon 19) modifiées
                - «⟨nbsp⟩Inventorier les programmes spécifiques⟨nbsp⟩» (action 27)⟨nbsp⟩: terminée → en cours
                - Action 28 renommée⟨nbsp⟩: «⟨nbsp⟩Archiver les commandes soldées⟨nbsp⟩» → «⟨nbsp⟩Archiver⟨nbsp⟩»
                - «⟨nbsp⟩Corriger les accès aux tables obsolètes⟨nbsp⟩» (action 29)⟨nbsp⟩: responsable Thomas Dubois → aucun
                - «⟨nbsp⟩Rédiger les cas de test⟨nbsp⟩» (action 30) déplacée de «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17) vers «⟨nbsp⟩Bascule en production⟨nbsp⟩» (bloc 18)
                - Absence de Thomas Dubois modifiée
                - Action ajoutée à «⟨nbsp⟩Support renforcé⟨nbsp⟩» (bloc 34)⟨nbsp⟩: «⟨nbsp⟩Ouvrir la cellule de support⟨nbsp⟩» (action 36)
                - Arrivée dans l'équipe⟨nbsp⟩: Léa Garnier (membre 37)
                - Absence de Léa Garnier ajoutée⟨nbsp⟩: 2026-12-28 → 2026-12-31

                Changes:
                - Row 6 renamed: “Audit du système” → “Audit”
                - “Adaptation du code spécifique” (row 8) moved to group “Bascule et démarrage”, at position 1
                - Group 9 renamed: “Bascule” → “Bascule et démarrage”
                - “Bascule et démarrage” (group 9) moved to position 1
                - “Recette utilisateurs” (row 11) moved to position 2 in group “Bascule et démarrage”
                - Bar 13 renamed: “Audit du système” → “Audit ECC”
                - “Audit ECC” (bar 13): start 2026-11-02 → 2026-11-03
                - “Audit ECC” (bar 13): colour #2f6fdf → #000000
                - “Migration à blanc” (bar 16): row “Migration à blanc” → “Recette utilisateurs”
                - “Recette utilisateurs” (bar 17): end 2026-12-11 → 2026-12-10
                - Milestone 19 renamed: “Go-live S/4HANA” → “Go-live”
                - “Go-live” (milestone 19): 2026-12-18 → 2026-12-21
                - Link 20 (“Audit ECC” (bar 13) → “Nettoyage des données” (bar 14)): SS +5 d → SS +3 d
                - Link 21: “Audit du système” (bar 13) → “Adaptation du code ABAP” (bar 15), FS becomes “Audit ECC” (bar 13) → “Migration à blanc” (bar 16), FS
                - Link 24 removed: “Migration à blanc” (bar 16) → “Recette utilisateurs” (bar 17), FS
                - “Hypercare” (group 32) added at position 3
                - “Support” (row 33) added to group “Hypercare”
                - “Support renforcé” (bar 34) added on row “Support”: 2026-12-21 → 2027-01-08
                - Link 35 added: “Go-live” (milestone 19) → “Support renforcé” (bar 34), SS -1 d
                Project end: 2026-12-18 → 2027-01-08 (+21 days).
                No new risk.
                Changes not shown:
                - Schedule renamed: “S/4HANA Migration” → “Migration S/4”
                - Schedule notes changed
                - Setting changed: holidays
                - Member 1 renamed: Camille Martin → Camille Martin-Roux
                - E-mail of Karim Benali (member 2) changed
                - Member of “Nettoyage des données” (row 7): Sophie Lefèvre → none
                - Notes of “Audit ECC” (bar 13) changed
                - “Start no earlier than” date of “Audit ECC” (bar 13): none → 2026-11-02
                - Notes of “Go-live” (milestone 19) changed
                - “Inventorier les programmes spécifiques” (action 27): done → in progress
                - Action 28 renamed: “Archiver les commandes soldées” → “Archiver”
                - “Corriger les accès aux tables obsolètes” (action 29): assignee Thomas Dubois → none
                - “Rédiger les cas de test” (action 30) moved from “Recette utilisateurs” (bar 17) to “Bascule en production” (bar 18)
                - Absence of Thomas Dubois changed
                - Action added to “Support renforcé” (bar 34): “Ouvrir la cellule de support” (action 36)
                - Joined the team: Léa Garnier (member 37)
                - Absence of Léa Garnier added: 2026-12-28 → 2026-12-31"#]],
        );
    }

    #[test]
    fn a_person_reads_every_kind_of_change_without_ids() {
        check_person_edit(
            every_change,
            expect![[r#"
                Changements⟨nbsp⟩:
                - Ligne renommée⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Audit⟨nbsp⟩»
                - «⟨nbsp⟩Adaptation du code spécifique⟨nbsp⟩» (ligne) déplacée vers le groupe «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩», en position 1
                - Groupe renommé⟨nbsp⟩: «⟨nbsp⟩Bascule⟨nbsp⟩» → «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩»
                - «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩» (groupe) déplacé en position 1
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (ligne) déplacée en position 2 du groupe «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩»
                - Bloc renommé⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Audit ECC⟨nbsp⟩»
                - «⟨nbsp⟩Audit ECC⟨nbsp⟩»⟨nbsp⟩: début 2026-11-02 → 2026-11-03
                - «⟨nbsp⟩Audit ECC⟨nbsp⟩»⟨nbsp⟩: couleur #2f6fdf → #000000
                - «⟨nbsp⟩Migration à blanc⟨nbsp⟩»⟨nbsp⟩: ligne «⟨nbsp⟩Migration à blanc⟨nbsp⟩» → «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩»
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩»⟨nbsp⟩: fin 2026-12-11 → 2026-12-10
                - Jalon renommé⟨nbsp⟩: «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» → «⟨nbsp⟩Go-live⟨nbsp⟩»
                - «⟨nbsp⟩Go-live⟨nbsp⟩» (jalon)⟨nbsp⟩: 2026-12-18 → 2026-12-21
                - Lien «⟨nbsp⟩Audit ECC⟨nbsp⟩» → «⟨nbsp⟩Nettoyage des données⟨nbsp⟩»⟨nbsp⟩: SS +5 j → SS +3 j
                - Lien «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (FS) devient «⟨nbsp⟩Audit ECC⟨nbsp⟩» → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (FS)
                - Lien supprimé⟨nbsp⟩: «⟨nbsp⟩Migration à blanc⟨nbsp⟩» → «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩», FS
                - «⟨nbsp⟩Hypercare⟨nbsp⟩» (groupe) ajouté en position 3
                - «⟨nbsp⟩Support⟨nbsp⟩» (ligne) ajoutée au groupe «⟨nbsp⟩Hypercare⟨nbsp⟩»
                - «⟨nbsp⟩Support renforcé⟨nbsp⟩» ajouté sur la ligne «⟨nbsp⟩Support⟨nbsp⟩»⟨nbsp⟩: 2026-12-21 → 2027-01-08
                - Lien ajouté⟨nbsp⟩: «⟨nbsp⟩Go-live⟨nbsp⟩» (jalon) → «⟨nbsp⟩Support renforcé⟨nbsp⟩», SS -1 j
                Fin du projet⟨nbsp⟩: 2026-12-18 → 2027-01-08 (+21 jours).
                Aucun nouveau risque.
                Changements non affichés⟨nbsp⟩:
                - Planning renommé⟨nbsp⟩: «⟨nbsp⟩S/4HANA Migration⟨nbsp⟩» → «⟨nbsp⟩Migration S/4⟨nbsp⟩»
                - Notes du planning modifiées
                - Réglage modifié⟨nbsp⟩: jours fériés
                - Membre renommé⟨nbsp⟩: Camille Martin → Camille Martin-Roux
                - E-mail de Karim Benali modifié
                - Membre de «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (ligne)⟨nbsp⟩: Sophie Lefèvre → aucun
                - Notes de «⟨nbsp⟩Audit ECC⟨nbsp⟩» modifiées
                - Début au plus tôt de «⟨nbsp⟩Audit ECC⟨nbsp⟩»⟨nbsp⟩: aucun → 2026-11-02
                - Notes de «⟨nbsp⟩Go-live⟨nbsp⟩» (jalon) modifiées
                - «⟨nbsp⟩Inventorier les programmes spécifiques⟨nbsp⟩» (action)⟨nbsp⟩: terminée → en cours
                - Action renommée⟨nbsp⟩: «⟨nbsp⟩Archiver les commandes soldées⟨nbsp⟩» → «⟨nbsp⟩Archiver⟨nbsp⟩»
                - «⟨nbsp⟩Corriger les accès aux tables obsolètes⟨nbsp⟩» (action)⟨nbsp⟩: responsable Thomas Dubois → aucun
                - «⟨nbsp⟩Rédiger les cas de test⟨nbsp⟩» (action) déplacée de «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» vers «⟨nbsp⟩Bascule en production⟨nbsp⟩»
                - Absence de Thomas Dubois modifiée
                - Action ajoutée à «⟨nbsp⟩Support renforcé⟨nbsp⟩»⟨nbsp⟩: «⟨nbsp⟩Ouvrir la cellule de support⟨nbsp⟩» (action)
                - Arrivée dans l'équipe⟨nbsp⟩: Léa Garnier
                - Absence de Léa Garnier ajoutée⟨nbsp⟩: 2026-12-28 → 2026-12-31

                Changes:
                - Row renamed: “Audit du système” → “Audit”
                - “Adaptation du code spécifique” (row) moved to group “Bascule et démarrage”, at position 1
                - Group renamed: “Bascule” → “Bascule et démarrage”
                - “Bascule et démarrage” (group) moved to position 1
                - “Recette utilisateurs” (row) moved to position 2 in group “Bascule et démarrage”
                - Bar renamed: “Audit du système” → “Audit ECC”
                - “Audit ECC”: start 2026-11-02 → 2026-11-03
                - “Audit ECC”: colour #2f6fdf → #000000
                - “Migration à blanc”: row “Migration à blanc” → “Recette utilisateurs”
                - “Recette utilisateurs”: end 2026-12-11 → 2026-12-10
                - Milestone renamed: “Go-live S/4HANA” → “Go-live”
                - “Go-live” (milestone): 2026-12-18 → 2026-12-21
                - Link “Audit ECC” → “Nettoyage des données”: SS +5 d → SS +3 d
                - Link “Audit du système” → “Adaptation du code ABAP” (FS) becomes “Audit ECC” → “Migration à blanc” (FS)
                - Link removed: “Migration à blanc” → “Recette utilisateurs”, FS
                - “Hypercare” (group) added at position 3
                - “Support” (row) added to group “Hypercare”
                - “Support renforcé” added on row “Support”: 2026-12-21 → 2027-01-08
                - Link added: “Go-live” (milestone) → “Support renforcé”, SS -1 d
                Project end: 2026-12-18 → 2027-01-08 (+21 days).
                No new risk.
                Changes not shown:
                - Schedule renamed: “S/4HANA Migration” → “Migration S/4”
                - Schedule notes changed
                - Setting changed: holidays
                - Member renamed: Camille Martin → Camille Martin-Roux
                - E-mail of Karim Benali changed
                - Member of “Nettoyage des données” (row): Sophie Lefèvre → none
                - Notes of “Audit ECC” changed
                - “Start no earlier than” date of “Audit ECC”: none → 2026-11-02
                - Notes of “Go-live” (milestone) changed
                - “Inventorier les programmes spécifiques” (action): done → in progress
                - Action renamed: “Archiver les commandes soldées” → “Archiver”
                - “Corriger les accès aux tables obsolètes” (action): assignee Thomas Dubois → none
                - “Rédiger les cas de test” (action) moved from “Recette utilisateurs” to “Bascule en production”
                - Absence of Thomas Dubois changed
                - Action added to “Support renforcé”: “Ouvrir la cellule de support” (action)
                - Joined the team: Léa Garnier
                - Absence of Léa Garnier added: 2026-12-28 → 2026-12-31"#]],
        );
    }

    #[test]
    fn a_person_reads_no_id_whatever_changed() {
        // Every kind of change, removals, and locks set and lifted.
        let lock = |target| Lock {
            target,
            by: 1,
            by_name: "Alice".into(),
            since_ms: 0,
            reason: String::new(),
        };
        let mut before = s4hana_migration();
        before.locks.push(lock(LockTarget::Row(RowId(12))));
        for removals in [false, true] {
            let mut after = before.clone();
            if removals {
                after.groups.truncate(1);
                after.rows.truncate(3);
                after.bars.truncate(3);
                after.milestones.clear();
                after.links.retain(|l| l.to.0 <= 15);
                after.actions.truncate(2);
                after.absences.clear();
                after.members.pop();
            } else {
                every_change(&mut after);
            }
            // In the order of their targets, as a schedule keeps them.
            after.locks = vec![
                lock(LockTarget::Schedule),
                lock(LockTarget::Group(GroupId(5))),
                lock(LockTarget::Bar(BarId(14))),
            ];
            let d = diff(&before, &after);
            assert!(d.not_shown.len() > 3 && d.changes.len() > 5, "{d:?}");
            for lang in [Lang::Fr, Lang::En] {
                let text = change_list_for_person(&before, &d, lang);
                assert_eq!(ids_named(&text), Vec::<String>::new(), "{text}");
                let brief = changes_in_brief(&d, lang, 100);
                assert_eq!(ids_named(&brief), Vec::<String>::new(), "{brief}");
                // The model's list names them: the check above can fail.
                assert!(!ids_named(&change_list(&before, &d, lang)).is_empty());
            }
        }
    }

    #[test]
    fn a_gesture_s_write_in_the_person_s_words() {
        let s = s4hana_migration();
        let said = |json: serde_json::Value| {
            let cmds: Vec<Command> = serde_json::from_value(json).unwrap();
            let (after, a) = crate::command::apply(&s, &cmds).unwrap();
            [Lang::Fr, Lang::En]
                .map(|l| {
                    command_for_person(&after, &a.applied, &a.inverse, l).unwrap_or("-".into())
                })
                .join(" | ")
        };
        check(
            [
                said(serde_json::json!([{"op": "add_period", "row": 7, "label": "Revue", "start": "2026-11-30", "end": "2026-12-02"}])),
                said(serde_json::json!([{"op": "update_period", "bar": 14, "label": "Nettoyage"}])),
                said(serde_json::json!([{"op": "update_milestone", "milestone": 19, "label": "Go-live"}])),
                said(serde_json::json!([{"op": "rename_row", "row": 7, "name": "Données"}])),
                said(serde_json::json!([{"op": "rename_group", "group": 5, "name": "Avant"}])),
                said(serde_json::json!([{"op": "add_link", "from": 13, "to": 18, "kind": "SS"}])),
                said(serde_json::json!([{"op": "update_link", "link": 22, "lag": 2}])),
                said(serde_json::json!([{"op": "delete_link", "link": 22}])),
                // Anything else: the caller's general words.
                said(serde_json::json!([{"op": "update_period", "bar": 14, "color": "#000000"}])),
                said(serde_json::json!([
                    {"op": "delete_link", "link": 22},
                    {"op": "delete_link", "link": 23}
                ])),
            ]
            .join("\n"),
            expect![[r#"
                «⟨nbsp⟩Revue⟨nbsp⟩» ajouté sur la ligne «⟨nbsp⟩Nettoyage des données⟨nbsp⟩»⟨nbsp⟩: 2026-11-30 → 2026-12-02 | “Revue” added on row “Nettoyage des données”: 2026-11-30 → 2026-12-02
                Bloc renommé⟨nbsp⟩: «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» → «⟨nbsp⟩Nettoyage⟨nbsp⟩» | Bar renamed: “Nettoyage des données” → “Nettoyage”
                Jalon renommé⟨nbsp⟩: «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» → «⟨nbsp⟩Go-live⟨nbsp⟩» | Milestone renamed: “Go-live S/4HANA” → “Go-live”
                Ligne renommée⟨nbsp⟩: «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» → «⟨nbsp⟩Données⟨nbsp⟩» | Row renamed: “Nettoyage des données” → “Données”
                Groupe renommé⟨nbsp⟩: «⟨nbsp⟩Préparation⟨nbsp⟩» → «⟨nbsp⟩Avant⟨nbsp⟩» | Group renamed: “Préparation” → “Avant”
                Lien ajouté⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Bascule en production⟨nbsp⟩», SS | Link added: “Audit du système” → “Bascule en production”, SS
                Lien «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» → «⟨nbsp⟩Migration à blanc⟨nbsp⟩»⟨nbsp⟩: FS → FS +2 j | Link “Nettoyage des données” → “Migration à blanc”: FS → FS +2 d
                Lien supprimé⟨nbsp⟩: «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» → «⟨nbsp⟩Migration à blanc⟨nbsp⟩», FS | Link removed: “Nettoyage des données” → “Migration à blanc”, FS
                - | -
                - | -"#]],
        );
    }

    #[test]
    fn a_write_in_brief_names_its_first_changes_and_counts_the_rest() {
        let before = s4hana_migration();
        let mut after = before.clone();
        every_change(&mut after);
        let all = diff(&before, &after);
        check(
            [Lang::Fr, Lang::En]
                .map(|l| changes_in_brief(&all, l, 2))
                .join("\n"),
            expect![[r#"
                Ligne renommée⟨nbsp⟩: «⟨nbsp⟩Audit du système⟨nbsp⟩» → «⟨nbsp⟩Audit⟨nbsp⟩»⟨nnbsp⟩; «⟨nbsp⟩Adaptation du code spécifique⟨nbsp⟩» (ligne) déplacée vers le groupe «⟨nbsp⟩Bascule et démarrage⟨nbsp⟩», en position 1⟨nnbsp⟩; … et 34 autres.
                Row renamed: “Audit du système” → “Audit”; “Adaptation du code spécifique” (row) moved to group “Bascule et démarrage”, at position 1; … and 34 more."#]],
        );
        let mut one = before.clone();
        bar_mut(&mut one, 14).end = d("2026-11-23");
        check(
            changes_in_brief(&diff(&before, &one), Lang::En, 3),
            expect!["“Nettoyage des données”: end 2026-11-20 → 2026-11-23."],
        );
        assert_eq!(
            changes_in_brief(&diff(&before, &before), Lang::Fr, 3),
            "Aucun changement."
        );
    }

    #[test]
    fn a_person_reads_a_violated_link_by_its_ends() {
        check_person_edit(
            a_violated_link,
            expect![[r#"
                Changements⟨nbsp⟩:
                - Lien ajouté⟨nbsp⟩: «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» → «⟨nbsp⟩Migration à blanc⟨nbsp⟩», FS
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Nouveaux risques⟨nbsp⟩:
                - Lien FS «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» non respecté de 10 jours ouvrés.

                Changes:
                - Link added: “Adaptation du code ABAP” → “Migration à blanc”, FS
                Project end: 2026-12-18 (unchanged).
                New risks:
                - Link FS “Adaptation du code ABAP” → “Migration à blanc” violated by 10 working days."#]],
        );
    }

    #[test]
    fn removals_and_weekly_lags() {
        check_edit(
            |s| {
                s.settings.time_unit = TimeUnit::Week;
                s.groups.truncate(1);
                s.rows.truncate(3);
                s.bars.truncate(3);
                s.milestones.clear();
                s.links.retain(|l| l.to.0 <= 15);
                s.links[0].lag = 1;
                s.actions.truncate(2);
                s.absences.clear();
                s.members.pop();
            },
            expect![[r#"
                Changements⟨nbsp⟩:
                - «⟨nbsp⟩Bascule⟨nbsp⟩» (groupe 9) supprimé
                - «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (ligne 10) supprimée
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (ligne 11) supprimée
                - «⟨nbsp⟩Mise en production⟨nbsp⟩» (ligne 12) supprimée
                - «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16) supprimé (était 2026-11-23 → 2026-12-04)
                - «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17) supprimé (était 2026-12-07 → 2026-12-11)
                - «⟨nbsp⟩Bascule en production⟨nbsp⟩» (bloc 18) supprimé (était 2026-12-14 → 2026-12-17)
                - «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19) supprimé (était le 2026-12-18)
                - Lien 20 («⟨nbsp⟩Audit du système⟨nbsp⟩» (bloc 13) → «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14))⟨nbsp⟩: SS +5 j → SS +1 sem.
                - Lien 22 supprimé⟨nbsp⟩: «⟨nbsp⟩Nettoyage des données⟨nbsp⟩» (bloc 14) → «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16), FS
                - Lien 23 supprimé⟨nbsp⟩: «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15) → «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17), FS
                - Lien 24 supprimé⟨nbsp⟩: «⟨nbsp⟩Migration à blanc⟨nbsp⟩» (bloc 16) → «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17), FS
                - Lien 25 supprimé⟨nbsp⟩: «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17) → «⟨nbsp⟩Bascule en production⟨nbsp⟩» (bloc 18), FS
                - Lien 26 supprimé⟨nbsp⟩: «⟨nbsp⟩Bascule en production⟨nbsp⟩» (bloc 18) → «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» (jalon 19), FS +1 j
                Fin du projet⟨nbsp⟩: 2026-12-18 → 2026-12-04 (-14 jours).
                Aucun nouveau risque.
                Changements non affichés⟨nbsp⟩:
                - Réglage modifié⟨nbsp⟩: unité de temps
                - Départ de l'équipe⟨nbsp⟩: Thomas Dubois (membre 4)
                - Action supprimée de «⟨nbsp⟩Adaptation du code ABAP⟨nbsp⟩» (bloc 15)⟨nbsp⟩: «⟨nbsp⟩Corriger les accès aux tables obsolètes⟨nbsp⟩» (action 29)
                - Action supprimée de «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» (bloc 17)⟨nbsp⟩: «⟨nbsp⟩Rédiger les cas de test⟨nbsp⟩» (action 30)
                - Absence de Thomas Dubois supprimée⟨nbsp⟩: 2026-11-26 → 2026-11-27

                Changes:
                - “Bascule” (group 9) removed
                - “Migration à blanc” (row 10) removed
                - “Recette utilisateurs” (row 11) removed
                - “Mise en production” (row 12) removed
                - “Migration à blanc” (bar 16) removed (was 2026-11-23 → 2026-12-04)
                - “Recette utilisateurs” (bar 17) removed (was 2026-12-07 → 2026-12-11)
                - “Bascule en production” (bar 18) removed (was 2026-12-14 → 2026-12-17)
                - “Go-live S/4HANA” (milestone 19) removed (was on 2026-12-18)
                - Link 20 (“Audit du système” (bar 13) → “Nettoyage des données” (bar 14)): SS +5 d → SS +1 wk
                - Link 22 removed: “Nettoyage des données” (bar 14) → “Migration à blanc” (bar 16), FS
                - Link 23 removed: “Adaptation du code ABAP” (bar 15) → “Recette utilisateurs” (bar 17), FS
                - Link 24 removed: “Migration à blanc” (bar 16) → “Recette utilisateurs” (bar 17), FS
                - Link 25 removed: “Recette utilisateurs” (bar 17) → “Bascule en production” (bar 18), FS
                - Link 26 removed: “Bascule en production” (bar 18) → “Go-live S/4HANA” (milestone 19), FS +1 d
                Project end: 2026-12-18 → 2026-12-04 (-14 days).
                No new risk.
                Changes not shown:
                - Setting changed: time unit
                - Left the team: Thomas Dubois (member 4)
                - Action removed from “Adaptation du code ABAP” (bar 15): “Corriger les accès aux tables obsolètes” (action 29)
                - Action removed from “Recette utilisateurs” (bar 17): “Rédiger les cas de test” (action 30)
                - Absence of Thomas Dubois removed: 2026-11-26 → 2026-11-27"#]],
        );
    }

    #[test]
    fn long_lists_are_capped() {
        let before = crate::synth::generate(crate::synth::Spec::new(200));
        let mut after = before.clone();
        for b in &mut after.bars {
            b.end = b.end.add_days(1);
        }
        let out = diff(&before, &after);
        assert_eq!(out.changes.len(), 200);
        let text = change_list(&before, &out, Lang::Fr);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Changements\u{a0}:");
        assert!(lines[1..=LIST_CAP].iter().all(|l| l.starts_with("- ")));
        check(lines[LIST_CAP + 1], expect!["… et 150 autres"]);
        let text = change_list(&before, &out, Lang::En);
        check(
            text.lines().nth(LIST_CAP + 1).unwrap(),
            expect!["… and 150 more"],
        );
    }

    #[test]
    fn absence_days_are_written_as_runs_of_working_days() {
        let s = s4hana_migration();
        let cal = Calendar::for_schedule(&s);
        let days = |list: &[&str]| list.iter().map(|x| d(x)).collect::<Vec<_>>();
        // The 11th is a holiday and the 14th-15th a weekend: still one run. Past ten
        // runs, the list is cut.
        check(
            day_runs(
                &cal,
                &days(&["2026-11-10", "2026-11-12", "2026-11-13", "2026-11-16"]),
            ),
            expect!["2026-11-10 → 2026-11-16"],
        );
        check(
            day_runs(&cal, &days(&["2026-11-26", "2026-12-01", "2026-12-02"])),
            expect!["2026-11-26, 2026-12-01 → 2026-12-02"],
        );
        let every_other: Vec<Date> = (0..30).map(|k| d("2026-11-02").add_days(2 * k)).collect();
        let every_other: Vec<Date> = every_other
            .into_iter()
            .filter(|x| cal.is_working(*x))
            .collect();
        check(
            day_runs(&cal, &every_other),
            expect![[
                r#"2026-11-02, 2026-11-04, 2026-11-06, 2026-11-10 → 2026-11-12, 2026-11-16, 2026-11-18, 2026-11-20, 2026-11-24, 2026-11-26, 2026-11-30, …"#
            ]],
        );
        check(
            day_runs(&cal, &days(&["2026-11-26"])),
            expect!["2026-11-26"],
        );
    }

    #[test]
    fn a_cascade_names_what_it_moved() {
        use crate::command::{Command, apply_cascading};
        use crate::push::Cascade;
        let before = s4hana_migration();
        let mut s = before.clone();
        let moved = apply_cascading(
            &mut s,
            &[Command::MovePeriods {
                bars: vec![BarId(14)],
                milestones: vec![],
                by: 5,
            }],
            Some(Cascade::Push),
        )
        .unwrap()
        .cascade;
        let end = before.span().map(|(_, e)| e);
        // The no-break spaces French typography wants, made visible.
        let visible = |t: String| t.replace('\u{202f}', "⟨nnbsp⟩").replace('\u{a0}', "⟨nbsp⟩");
        let both = format!(
            "{}\n{}",
            visible(cascade_summary(&s, &moved, end, Lang::Fr).unwrap()),
            visible(cascade_summary(&s, &moved, end, Lang::En).unwrap())
        );
        expect![[r#"
            3 blocs et 1 jalon décalés en cascade, en jours ouvrés⟨nbsp⟩: «⟨nbsp⟩Migration à blanc⟨nbsp⟩» +5⟨nbsp⟩j, «⟨nbsp⟩Recette utilisateurs⟨nbsp⟩» +5⟨nbsp⟩j, «⟨nbsp⟩Bascule en production⟨nbsp⟩» +5⟨nbsp⟩j, «⟨nbsp⟩Go-live S/4HANA⟨nbsp⟩» +5⟨nbsp⟩j⟨nnbsp⟩; fin du projet 2026-12-18 → 2026-12-28.
            3 bars and 1 milestone moved by the cascade, in working days: “Migration à blanc” +5⟨nbsp⟩d, “Recette utilisateurs” +5⟨nbsp⟩d, “Bascule en production” +5⟨nbsp⟩d, “Go-live S/4HANA” +5⟨nbsp⟩d; project end 2026-12-18 → 2026-12-28."#]].assert_eq(&both);
        let dates: Vec<String> = moved
            .iter()
            .map(|m| format!("{} {} {}", m.item.0, m.to.0, m.to.1))
            .collect();
        assert_eq!(
            dates,
            [
                "16 2026-11-30 2026-12-11",
                "17 2026-12-14 2026-12-18",
                "18 2026-12-21 2026-12-24",
                "19 2026-12-28 2026-12-28"
            ]
        );
        // One moved item in the singular; nothing moved, no sentence.
        let one = &moved[3..];
        assert!(
            cascade_summary(&s, one, end, Lang::Fr)
                .unwrap()
                .starts_with("1 jalon décalé en cascade")
        );
        assert!(
            cascade_summary(&s, one, end, Lang::En)
                .unwrap()
                .starts_with("1 milestone moved by the cascade")
        );
        assert_eq!(cascade_summary(&s, &[], end, Lang::Fr), None);
    }

    #[test]
    fn the_demo_gains_float_when_its_go_live_leaves_room() {
        let mut s = s4hana_migration();
        s.milestones[0].date = "2026-12-21".parse().unwrap();
        let cp = crate::cpm::critical_path(&s).unwrap();
        for t in &cp.items {
            let expected = if t.item.0 == 19 { 0 } else { 1 };
            assert_eq!(t.total_float, expected, "{t:?}");
        }
        assert_eq!(cp.project_end, cp.planned_end);
    }

    #[test]
    fn project_end_line() {
        let (a, b) = (Some(d("2026-12-18")), Some(d("2026-12-11")));
        let lines = [Lang::Fr, Lang::En].map(|lang| {
            let w = Words::new(lang);
            [(a, a), (a, b), (None, a), (a, None), (None, None)]
                .map(|(x, y)| end_line(&w, x, y))
                .join("\n")
        });
        check(
            lines.join("\n"),
            expect![[r#"
                Fin du projet⟨nbsp⟩: 2026-12-18 (inchangée).
                Fin du projet⟨nbsp⟩: 2026-12-18 → 2026-12-11 (-7 jours).
                Fin du projet⟨nbsp⟩: 2026-12-18 (aucune date avant).
                Fin du projet⟨nbsp⟩: plus aucune date (avant⟨nbsp⟩: 2026-12-18).
                Fin du projet⟨nbsp⟩: pas encore de dates.
                Project end: 2026-12-18 (unchanged).
                Project end: 2026-12-18 → 2026-12-11 (-7 days).
                Project end: 2026-12-18 (no dates before).
                Project end: no dates any more (before: 2026-12-18).
                Project end: no dates yet."#]],
        );
    }

    #[test]
    fn fill_replaces_only_known_slots() {
        assert_eq!(fill("{0} → {1}", &[&1, &"b"]), "1 → b");
        assert_eq!(fill("{1}{0}{1}", &[&"a", &"b"]), "bab");
        assert_eq!(fill("{2} {x} {", &[&"a"]), "{2} {x} {");
    }

    #[test]
    fn every_message_has_its_slots_in_both_languages() {
        // The same slots, so that a message filled for one language is complete in
        // the other; counted nouns have a singular and a plural in both.
        for &m in ALL_MSGS {
            let slots = |t: &str| {
                let mut v: Vec<usize> = (0..10)
                    .filter(|k| t.contains(&format!("{{{k}}}")))
                    .collect();
                v.sort_unstable();
                v
            };
            assert_eq!(slots(fr(m)), slots(en(m)), "{m:?}");
            assert_eq!(fr(m).contains('|'), en(m).contains('|'), "{m:?}");
            // A person's message has the same slots in both languages, all of them
            // the model's (that none is an id: `a_person_reads_no_id_whatever_changed`).
            let person = [Lang::Fr, Lang::En].map(|l| person_table(l, m));
            assert_eq!(person[0].is_some(), person[1].is_some(), "{m:?}");
            if let [Some(f), Some(e)] = person {
                assert_eq!(slots(f), slots(e), "{m:?}");
                assert!(slots(f).iter().all(|k| slots(fr(m)).contains(k)), "{m:?}");
            }
        }
    }
}

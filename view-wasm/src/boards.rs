//! What comes under the chart, as HTML: the kanban board (the bars' actions in three
//! columns, moved through `set_action_status`), the agenda (members' absences day by
//! day from `get_schedule_absences`, never the reason), the before/after's change list
//! with Accept and Decline, and the delete confirmation. Buttons carry `data-act`; the
//! root's one click handler runs them (`gantt::act`).

use std::fmt::Write as _;

use palmaplan_model::layout;
use palmaplan_model::{ActionStatus, Date, Lang, wire};
use serde_json::json;

use crate::app::{self, Shown, St};
use crate::gantt::esc;
use crate::texts::tr;

fn status_name(lang: Lang, s: ActionStatus) -> &'static str {
    match s {
        ActionStatus::Todo => tr(lang, "À faire", "To do"),
        ActionStatus::InProgress => tr(lang, "En cours", "In progress"),
        ActionStatus::Done => tr(lang, "Terminée", "Done"),
    }
}

/// Everything under the chart, for the current state.
pub fn bottom_html(st: St) -> String {
    let mut h = String::new();
    if st.withdrawn.get() || st.compact_now() || st.doc.with(Option::is_none) {
        return h;
    }
    if !matches!(
        st.card.with(|c| c.phase().clone()),
        crate::phase::Phase::Result(_)
    ) {
        return h;
    }
    match st.shown.get() {
        Some(Shown::Kanban) => kanban(st, &mut h),
        Some(Shown::Agenda) => agenda(st, &mut h),
        Some(Shown::Proposal { .. } | Shown::Comparison) => before_after(st, &mut h),
        _ => {}
    }
    confirm(st, &mut h);
    h
}

fn confirm(st: St, h: &mut String) {
    let Some(bar) = st.confirm.get() else { return };
    let lang = st.lang.get();
    let label = st.doc.with(|d| {
        d.as_ref()
            .and_then(|d| d.s.bar(bar))
            .map(|b| b.label.clone())
            .unwrap_or_default()
    });
    let q = match lang {
        Lang::Fr => format!("Supprimer le bloc «\u{a0}{}\u{a0}»\u{202f}?", esc(&label)),
        Lang::En => format!("Delete the bar “{}”?", esc(&label)),
    };
    let _ = write!(
        h,
        "<div class=\"pp-confirm\" role=\"alertdialog\" aria-label=\"{}\"><p>{q}</p><button type=\"button\" class=\"pp-danger\" data-act=\"delete-yes\">{}</button><button type=\"button\" data-act=\"delete-no\">{}</button></div>",
        tr(lang, "Confirmer la suppression", "Confirm deletion"),
        tr(lang, "Supprimer", "Delete"),
        tr(lang, "Garder", "Keep")
    );
}

fn kanban(st: St, h: &mut String) {
    let Some(doc) = st.doc.get() else { return };
    let lang = st.lang.get();
    let editable = st.can_write();
    h.push_str("<div class=\"pp-kanban\">");
    for (ci, col) in layout::kanban(&doc.s).into_iter().enumerate() {
        let title = status_name(lang, col.status);
        let _ = write!(
            h,
            "<section class=\"pp-col\" aria-label=\"{title}\"><h2>{title} <span class=\"pp-count\">{}</span></h2><ul>",
            col.cards.len()
        );
        for card in &col.cards {
            let label = esc(&card.label);
            // The bar's progress beside its name, when it has some.
            let progress = doc.s.bar(card.bar).filter(|b| b.progress > 0).map_or(
                String::new(),
                |b| match lang {
                    Lang::Fr => format!(" · {}\u{202f}%", b.progress),
                    Lang::En => format!(" · {}%", b.progress),
                },
            );
            let _ = write!(
                h,
                "<li class=\"pp-card\" data-action=\"{}\"><p class=\"pp-card-t\">{label}</p><p class=\"pp-card-b\">{}{progress}</p>",
                card.action.0,
                esc(&card.bar_label)
            );
            if let Some(n) = &card.assignee_name {
                let _ = write!(h, "<p class=\"pp-member\">{}</p>", esc(n));
            }
            if editable {
                h.push_str("<div class=\"pp-card-a\">");
                let moves = [(ci.checked_sub(1), "← ", ""), (Some(ci + 1), "", " →")];
                for (to, pre, post) in moves {
                    if let Some(to) = to.and_then(|i| ActionStatus::ALL.get(i)) {
                        let name = status_name(lang, *to);
                        let sep = tr(lang, "\u{a0}: ", ": ");
                        let _ = write!(
                            h,
                            "<button type=\"button\" data-act=\"status\" data-action=\"{}\" data-to=\"{}\" aria-label=\"{label}{sep}{name}\">{pre}{name}{post}</button>",
                            card.action.0,
                            to.as_str()
                        );
                    }
                }
                h.push_str("</div>");
            }
            h.push_str("</li>");
        }
        h.push_str("</ul></section>");
    }
    h.push_str("</div>");
}

/// The agenda's range: the options' dates, else a window that holds the schedule's
/// absences (or its span; `layout::agenda_window`).
fn agenda_range(st: St) -> (Date, Date) {
    // Tracked: the bottom's effect draws the agenda from this range.
    let o = st.options.get();
    let today = st.today.get();
    let (from0, to0) = st.doc.with(|d| {
        d.as_ref()
            .map_or((today, today.add_days(layout::AGENDA_MIN_DAYS - 1)), |d| {
                layout::agenda_window(&d.s, today)
            })
    });
    match (o.from, o.to) {
        (Some(a), Some(b)) => (a, b),
        // One date named: the other one from the default window, within a year.
        (Some(a), None) => (
            a,
            a.add_days(layout::AGENDA_MIN_DAYS - 1)
                .max(to0)
                .min(a.add_days(layout::AGENDA_MAX_DAYS - 1)),
        ),
        (None, Some(b)) => (
            from0.min(b).max(b.add_days(-(layout::AGENDA_MAX_DAYS - 1))),
            b,
        ),
        (None, None) => (from0, to0),
    }
}

/// Reads the absences of the agenda's range (names and dates only).
pub fn fetch_agenda(st: St, id: i64) {
    let (from, to) = agenda_range(st);
    st.call(
        "get_schedule_absences",
        json!({ "schedule": id, "from": from, "to": to }),
        move |r| match r {
            Ok(reply) if !reply.is_error => st.agenda.set(Some(
                serde_json::from_value::<wire::AgendaAbsences>(reply.structured)
                    .map_err(|_| reply.text),
            )),
            Ok(reply) => st.agenda.set(Some(Err(reply.text))),
            Err(e) => st
                .agenda
                .set(Some(Err(st.failure("get_schedule_absences", &e)))),
        },
    );
}

fn agenda(st: St, h: &mut String) {
    let lang = st.lang.get();
    let d = match st.agenda.get() {
        None => {
            h.push_str("<div class=\"pp-skeleton\" aria-busy=\"true\"><div></div></div>");
            return;
        }
        Some(Err(e)) => {
            let _ = write!(
                h,
                "<p class=\"pp-msg pp-error\" role=\"alert\">{}</p>",
                esc(&e)
            );
            return;
        }
        Some(Ok(d)) => d,
    };
    let (from, to) = agenda_range(st);
    let mut names: Vec<(u64, String)> =
        d.members.iter().map(|m| (m.id.0, m.name.clone())).collect();
    palmaplan_model::order::sort(&mut names);
    let name_of = |id: u64| {
        names
            .binary_search_by_key(&id, |(i, _)| *i)
            .ok()
            .map(|k| names[k].1.clone())
    };
    let absences: Vec<(u64, Date, Date)> = d
        .absences
        .iter()
        .map(|a| (a.member.0, a.start, a.end))
        .collect();
    let cal = st.doc.with(|d| {
        d.as_ref()
            .map(|d| palmaplan_model::calendar::Calendar::for_schedule(&d.s))
    });
    let _ = write!(
        h,
        "<div class=\"pp-agenda\"><h2>{}</h2><ul>",
        match lang {
            Lang::Fr => format!("Absences du {from} au {to}"),
            Lang::En => format!("Absences from {from} to {to}"),
        }
    );
    let mut day = from;
    let mut n = 0;
    while day <= to && n < layout::AGENDA_MAX_DAYS {
        let mut away: Vec<String> = absences
            .iter()
            .filter(|(_, a, b)| *a <= day && day <= *b)
            .filter_map(|(m, _, _)| name_of(*m))
            .collect();
        palmaplan_model::order::sort(&mut away);
        away.dedup();
        let working = cal.as_ref().is_none_or(|c| c.is_working(day));
        if working || !away.is_empty() {
            let (y, m, dd) = day.ymd();
            let label = match lang {
                Lang::Fr => format!(
                    "{} {dd} {} {y}",
                    weekday(lang, day),
                    layout::month_name(m, lang)
                ),
                Lang::En => format!(
                    "{} {} {dd}, {y}",
                    weekday(lang, day),
                    layout::month_name(m, lang)
                ),
            };
            let who = if away.is_empty() {
                tr(lang, "tout le monde est là", "everyone is in").to_owned()
            } else {
                esc(&away.join(", "))
            };
            let _ = write!(
                h,
                "<li class=\"pp-day{}{}\"><span class=\"pp-date\">{label}</span><span>{who}</span></li>",
                if working { "" } else { " off" },
                if away.is_empty() { "" } else { " away" }
            );
        }
        day = day.add_days(1);
        n += 1;
    }
    h.push_str("</ul></div>");
}

fn weekday(lang: Lang, d: Date) -> &'static str {
    const FR: [&str; 7] = ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."];
    const EN: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let i = d.weekday() as usize;
    match lang {
        Lang::Fr => FR[i % 7],
        Lang::En => EN[i % 7],
    }
}

/// Under the before/after chart: the tool's change list, then Accept and Decline for a
/// proposal that the chart shows whole and that is still current.
fn before_after(st: St, h: &mut String) {
    let lang = st.lang.get();
    h.push_str("<div class=\"pp-changes\"><ul>");
    for l in st.reply_text.get().lines().filter(|l| !l.trim().is_empty()) {
        let _ = write!(h, "<li>{}</li>", esc(l));
    }
    h.push_str("</ul>");
    let (proposal, acceptable) = match st.shown.get() {
        Some(Shown::Proposal { acceptable, .. }) => (true, acceptable),
        _ => (false, false),
    };
    let line = |h: &mut String, text: &str| {
        let _ = write!(
            h,
            "<p class=\"pp-notice\" role=\"status\">{}</p>",
            esc(text)
        );
    };
    if !proposal {
        line(
            h,
            tr(
                lang,
                "Comparaison en lecture seule.",
                "Read-only comparison.",
            ),
        );
    } else if let Some(done) = st.proposal_done.get() {
        line(h, &done);
    } else if st.declined.get() {
        line(
            h,
            tr(
                lang,
                "Proposition refusée\u{a0}: rien n'a été écrit.",
                "Proposal declined: nothing was written.",
            ),
        );
    } else if !app::all_changes_drawn(st) {
        line(
            h,
            tr(
                lang,
                "Cette proposition a trop de changements pour les dessiner tous ici\u{a0}: elle ne peut pas être acceptée dans la vue.",
                "This proposal has too many changes to draw them all here: it cannot be accepted in the view.",
            ),
        );
    } else if !acceptable {
        line(
            h,
            tr(
                lang,
                "Cette proposition contient des changements non montrés (listés ci-dessus)\u{a0}: elle ne peut pas être acceptée ici.",
                "This proposal has changes not shown (listed above): it cannot be accepted here.",
            ),
        );
    } else if st.read_only.get() && st.embed {
        line(
            h,
            tr(
                lang,
                "Ce lien est en lecture seule.",
                "This link is read-only.",
            ),
        );
    } else {
        let _ = write!(
            h,
            "<div class=\"pp-actions\"><button type=\"button\" class=\"pp-primary\" data-act=\"accept\">{}</button><button type=\"button\" data-act=\"decline\">{}</button></div>",
            tr(lang, "Accepter", "Accept"),
            tr(lang, "Refuser", "Decline")
        );
    }
    h.push_str("</div>");
}

//! What comes under the chart, as HTML: the kanban board (the bars' actions in three
//! columns, moved through `set_action_status`), the agenda (members' absences day by
//! day from `get_schedule_absences`, never the reason), the before/after's change list
//! with Accept and Decline, and the delete confirmation. Buttons carry `data-act`; the
//! root's one click handler runs them (`gantt::act`).

use palmaplan_model::layout;
use palmaplan_model::{ActionStatus, Date, Lang, wire};
use serde_json::json;

use crate::app::{self, Shown, St};
use crate::html::{H, Html};
use crate::texts::tr;

fn status_name(lang: Lang, s: ActionStatus) -> &'static str {
    match s {
        ActionStatus::Todo => tr(lang, "À faire", "To do"),
        ActionStatus::InProgress => tr(lang, "En cours", "In progress"),
        ActionStatus::Done => tr(lang, "Terminée", "Done"),
    }
}

/// Everything under the chart, for the current state.
pub fn bottom_html(st: St) -> Html {
    let mut h = H::new();
    if st.withdrawn.get() || st.compact_now() || st.doc.with(Option::is_none) {
        return h.finish();
    }
    if !matches!(
        st.card.with(|c| c.phase().clone()),
        crate::phase::Phase::Result(_)
    ) {
        return h.finish();
    }
    match st.shown.get() {
        Some(Shown::Kanban) => kanban(st, &mut h),
        Some(Shown::Agenda) => agenda(st, &mut h),
        Some(Shown::Proposal { .. } | Shown::Comparison) => before_after(st, &mut h),
        _ => {}
    }
    confirm(st, &mut h);
    h.finish()
}

fn confirm(st: St, h: &mut H) {
    let Some(bar) = st.confirm.get() else { return };
    let lang = st.lang.get();
    let label = st.doc.with(|d| {
        d.as_ref()
            .and_then(|d| d.s.bar(bar))
            .map(|b| b.label.clone())
            .unwrap_or_default()
    });
    h.lit("<div class=\"pp-confirm\" role=\"alertdialog\" aria-label=\"")
        .lit(tr(lang, "Confirmer la suppression", "Confirm deletion"))
        .lit("\"><p>");
    match lang {
        Lang::Fr => h
            .lit("Supprimer le bloc «\u{a0}")
            .text(&label)
            .lit("\u{a0}»\u{202f}?"),
        Lang::En => h.lit("Delete the bar “").text(&label).lit("”?"),
    };
    h.lit("</p><button type=\"button\" class=\"pp-danger\" data-act=\"delete-yes\">")
        .lit(tr(lang, "Supprimer", "Delete"))
        .lit("</button><button type=\"button\" data-act=\"delete-no\">")
        .lit(tr(lang, "Garder", "Keep"))
        .lit("</button></div>");
}

fn kanban(st: St, h: &mut H) {
    let Some(doc) = st.doc.get() else { return };
    let lang = st.lang.get();
    let editable = st.can_write();
    h.lit("<div class=\"pp-kanban\">");
    for (ci, col) in layout::kanban(&doc.s).into_iter().enumerate() {
        let title = status_name(lang, col.status);
        h.lit("<section class=\"pp-col\" aria-label=\"")
            .lit(title)
            .lit("\"><h2>")
            .lit(title)
            .lit(" <span class=\"pp-count\">")
            .num(col.cards.len())
            .lit("</span></h2><ul>");
        for card in &col.cards {
            let label = &card.label;
            h.lit("<li class=\"pp-card\" data-action=\"")
                .num(card.action.0)
                .lit("\"><p class=\"pp-card-t\">")
                .text(label)
                .lit("</p><p class=\"pp-card-b\">")
                .text(&card.bar_label);
            // The bar's progress beside its name, when it has some.
            if let Some(b) = doc.s.bar(card.bar).filter(|b| b.progress > 0) {
                match lang {
                    Lang::Fr => h.lit(" · ").num(b.progress).lit("\u{202f}%"),
                    Lang::En => h.lit(" · ").num(b.progress).lit("%"),
                };
            }
            h.lit("</p>");
            if let Some(n) = &card.assignee_name {
                h.lit("<p class=\"pp-member\">").text(n).lit("</p>");
            }
            if editable {
                h.lit("<div class=\"pp-card-a\">");
                let moves = [(ci.checked_sub(1), "← ", ""), (Some(ci + 1), "", " →")];
                for (to, pre, post) in moves {
                    if let Some(to) = to.and_then(|i| ActionStatus::ALL.get(i)) {
                        let name = status_name(lang, *to);
                        let sep = tr(lang, "\u{a0}: ", ": ");
                        h.lit("<button type=\"button\" data-act=\"status\" data-action=\"")
                            .num(card.action.0)
                            .lit("\" data-to=\"")
                            .lit(to.as_str())
                            .lit("\" aria-label=\"")
                            .text(label)
                            .lit(sep)
                            .lit(name)
                            .lit("\">")
                            .lit(pre)
                            .lit(name)
                            .lit(post)
                            .lit("</button>");
                    }
                }
                h.lit("</div>");
            }
            h.lit("</li>");
        }
        h.lit("</ul></section>");
    }
    h.lit("</div>");
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

fn agenda(st: St, h: &mut H) {
    let lang = st.lang.get();
    let d = match st.agenda.get() {
        None => {
            h.lit("<div class=\"pp-skeleton\" aria-busy=\"true\"><div></div></div>");
            return;
        }
        Some(Err(e)) => {
            h.lit("<p class=\"pp-msg pp-error\" role=\"alert\">")
                .text(&e)
                .lit("</p>");
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
    h.lit("<div class=\"pp-agenda\"><h2>");
    match lang {
        Lang::Fr => h.textf(format_args!("Absences du {from} au {to}")),
        Lang::En => h.textf(format_args!("Absences from {from} to {to}")),
    };
    h.lit("</h2><ul>");
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
            let (wd, month) = (weekday(lang, day), layout::month_name(m, lang));
            h.lit("<li class=\"pp-day")
                .lit(if working { "" } else { " off" })
                .lit(if away.is_empty() { "" } else { " away" })
                .lit("\"><span class=\"pp-date\">");
            match lang {
                Lang::Fr => h.textf(format_args!("{wd} {dd} {month} {y}")),
                Lang::En => h.textf(format_args!("{wd} {month} {dd}, {y}")),
            };
            h.lit("</span><span>");
            if away.is_empty() {
                h.lit(tr(lang, "tout le monde est là", "everyone is in"));
            } else {
                h.text(&away.join(", "));
            }
            h.lit("</span></li>");
        }
        day = day.add_days(1);
        n += 1;
    }
    h.lit("</ul></div>");
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
fn before_after(st: St, h: &mut H) {
    let lang = st.lang.get();
    h.lit("<div class=\"pp-changes\"><ul>");
    for l in st.reply_text.get().lines().filter(|l| !l.trim().is_empty()) {
        h.lit("<li>").text(l).lit("</li>");
    }
    h.lit("</ul>");
    let (proposal, acceptable) = match st.shown.get() {
        Some(Shown::Proposal { acceptable, .. }) => (true, acceptable),
        _ => (false, false),
    };
    let line = |h: &mut H, text: &str| {
        h.lit("<p class=\"pp-notice\" role=\"status\">")
            .text(text)
            .lit("</p>");
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
        h.lit("<div class=\"pp-actions\"><button type=\"button\" class=\"pp-primary\" data-act=\"accept\">")
            .lit(tr(lang, "Accepter", "Accept"))
            .lit("</button><button type=\"button\" data-act=\"decline\">")
            .lit(tr(lang, "Refuser", "Decline"))
            .lit("</button></div>");
    }
    h.lit("</div>");
}

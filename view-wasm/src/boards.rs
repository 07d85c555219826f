//! What comes under the chart, as Leptos components over the state's cells: the
//! kanban board (the bars' actions in three columns, moved through
//! `set_action_status`), the agenda (members' absences day by day from
//! `get_schedule_absences`, never the reason), the before/after's change list with
//! Accept and Decline, and the delete confirmation. Names, labels and the tool's lines
//! reach the DOM as text nodes or attribute values. Buttons carry `data-act`; the
//! root's one click handler runs them (`gantt::act`).

use leptos::prelude::{
    AnyView, AriaAttributes, ClassAttribute, CustomAttribute, ElementChild, Get, GlobalAttributes,
    IntoAny, IntoView, Memo, view,
};
use palmaplan_model::{ActionStatus, Date, Lang, wire};
use palmaplan_model::{BarId, layout, text};
use serde_json::json;

use crate::app::{self, Doc, Shown, St};
use crate::shell::say;
use crate::texts::tr;

fn status_name(lang: Lang, s: ActionStatus) -> &'static str {
    match s {
        ActionStatus::Todo => tr(lang, "À faire", "To do"),
        ActionStatus::InProgress => tr(lang, "En cours", "In progress"),
        ActionStatus::Done => tr(lang, "Terminée", "Done"),
    }
}

/// What is under the chart: nothing (another phase, the compact line), or a board
/// (none under the Gantt itself), each built once when the card shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Board {
    Gantt,
    Kanban,
    Agenda,
    BeforeAfter,
}

fn board_of(st: St) -> Option<Board> {
    if st.withdrawn.get()
        || st.compact_now()
        || st.doc.with(Option::is_none)
        || !st
            .card
            .with(|c| matches!(c.phase(), crate::phase::Phase::Result(_)))
    {
        return None;
    }
    Some(match st.shown.get() {
        Some(Shown::Kanban) => Board::Kanban,
        Some(Shown::Agenda) => Board::Agenda,
        Some(Shown::Proposal { .. } | Shown::Comparison) => Board::BeforeAfter,
        _ => Board::Gantt,
    })
}

/// Everything under the chart.
pub fn bottom(st: St) -> impl IntoView {
    let board = Memo::new(move |_| board_of(st));
    move || -> Option<AnyView> {
        let b = board.get()?;
        Some(
            view! {
                {match b {
                    Board::Kanban => Some(kanban(st).into_any()),
                    Board::Agenda => Some(agenda(st).into_any()),
                    Board::BeforeAfter => Some(before_after(st).into_any()),
                    Board::Gantt => None,
                }}
                {confirm(st)}
            }
            .into_any(),
        )
    }
}

/// The delete confirmation of the bar `st.confirm` names.
fn confirm(st: St) -> impl IntoView {
    let asked = Memo::new(move |_| st.confirm.with(Option::is_some));
    let question = move || {
        let lang = st.lang.get();
        st.doc.with(|d| {
            d.as_ref()
                .zip(st.confirm.get())
                .map(|(d, bar)| delete_question(&d.s, bar, lang))
                .unwrap_or_default()
        })
    };
    move || {
        asked.get().then(|| {
            view! {
                <div class="pp-confirm" role="alertdialog"
                    aria-label=say(st, "Confirmer la suppression", "Confirm deletion")>
                    <p>{question}</p>
                    <button type="button" class="pp-danger" data-act="delete-yes">{say(st, "Supprimer", "Delete")}</button>
                    <button type="button" data-act="delete-no">{say(st, "Garder", "Keep")}</button>
                </div>
            }
        })
    }
}

/// The delete confirmation's question: the bar by its label, and the links and actions
/// that go with it (the server deletes them too once the person confirmed).
pub fn delete_question(s: &palmaplan_model::Schedule, bar: BarId, lang: Lang) -> String {
    let label = s.bar(bar).map(|b| b.label.as_str()).unwrap_or_default();
    let links = s
        .links
        .iter()
        .filter(|l| l.from.0 == bar.0 || l.to.0 == bar.0)
        .count();
    let actions = s.actions.iter().filter(|a| a.bar == bar).count();
    let mut with = Vec::new();
    if links > 0 {
        with.push(text::count(
            lang,
            links,
            tr(lang, "lien", "link"),
            tr(lang, "liens", "links"),
        ));
    }
    if actions > 0 {
        with.push(text::count(lang, actions, "action", "actions"));
    }
    let with = with.join(tr(lang, " et ", " and "));
    match (lang, with.is_empty()) {
        (Lang::Fr, true) => format!("Supprimer le bloc «\u{a0}{label}\u{a0}»\u{202f}?"),
        (Lang::En, true) => format!("Delete the bar “{label}”?"),
        (Lang::Fr, false) => format!(
            "Supprimer le bloc «\u{a0}{label}\u{a0}»\u{202f}? Cela supprime aussi {with} (Annuler remet tout)."
        ),
        (Lang::En, false) => {
            format!("Delete the bar “{label}”? This also deletes {with} (Undo brings it all back).")
        }
    }
}

/// What the kanban shows: its words' language, whether its cards move, and its columns
/// with each card's bar progress. Compared as a whole, so that a write elsewhere in the
/// schedule (a page, a live update) leaves the board's elements, and their focus, alone.
#[derive(Clone, Debug, PartialEq)]
struct KanbanShown {
    lang: Lang,
    editable: bool,
    columns: Vec<(ActionStatus, Vec<(layout::Card, u8)>)>,
}

fn kanban_shown(st: St, doc: &Doc) -> KanbanShown {
    let columns = layout::kanban(&doc.s)
        .into_iter()
        .map(|col| {
            let cards = col
                .cards
                .into_iter()
                .map(|card| {
                    let progress = doc.s.bar(card.bar).map_or(0, |b| b.progress);
                    (card, progress)
                })
                .collect();
            (col.status, cards)
        })
        .collect();
    KanbanShown {
        lang: st.lang.get(),
        editable: st.can_write(),
        columns,
    }
}

thread_local! {
    /// A card just moved with one of its buttons (`Follow`): once the board shows it in
    /// the column it was sent to, the focus goes back to it.
    static FOLLOW: std::cell::RefCell<Option<Follow>> = const { std::cell::RefCell::new(None) };
}

#[cfg(target_arch = "wasm32")]
const FOLLOW_MS: f64 = 10_000.0;

/// A card being moved, noted at the press of one of its buttons.
#[derive(Debug)]
pub struct Follow {
    pub action: u64,
    /// The button's way, `"prev"` or `"next"`.
    pub dir: String,
    /// The column it was sent to (an `ActionStatus`'s name).
    pub to: String,
    /// When it was noted: a note older than `FOLLOW_MS` is dropped (the move drew
    /// nothing new, and a later redrawing must not take the focus).
    pub at: f64,
}

/// Notes that a card is being moved (`gantt::act`, from the press: the new state may
/// come before the write's answer), or forgets it (`None`: the write failed).
pub fn follow_card(card: Option<Follow>) {
    FOLLOW.set(card);
}

/// After a redrawing of the board: the card followed gets the focus back, on the
/// button of the same way when it still has one (to go on moving it), else on the
/// other; unless the person has put the focus outside the board since. (The redrawing
/// patches the board's elements in place, so the focused button may now be another
/// card's: the focus is not lost, it is on the wrong card.)
#[cfg(target_arch = "wasm32")]
fn refocus() {
    use wasm_bindgen::JsCast;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(f) = FOLLOW.take() else {
        return;
    };
    if crate::host::now_precise() - f.at > FOLLOW_MS {
        return;
    }
    let Follow {
        action, dir, to, ..
    } = &f;
    // A redrawing for another change (someone else's) that still shows the card where
    // it was: the note waits for the one that shows the move.
    let moved = format!(".pp-col[data-status=\"{to}\"] .pp-card[data-action=\"{action}\"]");
    if doc.query_selector(&moved).ok().flatten().is_none() {
        FOLLOW.set(Some(f));
        return;
    }
    let ours = doc.active_element().is_none_or(|a| {
        !a.is_connected()
            || doc.body().is_some_and(|b| *b == a)
            || a.closest(".pp-kanban").ok().flatten().is_some()
    });
    let card = format!(".pp-kanban [data-act=\"status\"][data-action=\"{action}\"]");
    let button = doc
        .query_selector(&format!("{card}[data-dir=\"{dir}\"]"))
        .ok()
        .flatten()
        .or_else(|| doc.query_selector(&card).ok().flatten())
        .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
    if ours && let Some(b) = button {
        let _ = b.focus();
    }
}

fn kanban(st: St) -> impl IntoView {
    let shown = Memo::new(move |_| st.doc.with(|d| d.as_ref().map(|d| kanban_shown(st, d))));
    // Once the new board is in the document (effects run after the drawing).
    #[cfg(target_arch = "wasm32")]
    leptos::prelude::Effect::new(move |_| {
        leptos::prelude::Track::track(&shown);
        if FOLLOW.with_borrow(Option::is_some) {
            crate::sig::set_timeout(refocus, std::time::Duration::ZERO);
        }
    });
    move || shown.get().map(kanban_view)
}

fn kanban_view(k: KanbanShown) -> impl IntoView {
    let KanbanShown {
        lang,
        editable,
        columns,
    } = k;
    let columns = columns.into_iter().enumerate().map(|(ci, (status, cards))| {
        let title = status_name(lang, status);
        let count = cards.len().to_string();
        let cards = cards.into_iter().map(|(card, progress)| {
            // The bar's progress beside its name, when it has some.
            let progress = match (progress, lang) {
                (0, _) => String::new(),
                (p, Lang::Fr) => format!(" · {p}\u{202f}%"),
                (p, Lang::En) => format!(" · {p}%"),
            };
            let moves = editable.then(|| {
                let to = [
                    (ci.checked_sub(1), "prev", "← ", ""),
                    (Some(ci + 1), "next", "", " →"),
                ];
                let buttons = to
                    .into_iter()
                    .filter_map(|(to, dir, pre, post)| {
                        let to = to.and_then(|i| ActionStatus::ALL.get(i))?;
                        let name = status_name(lang, *to);
                        let label = format!("{}{}{name}", card.label, tr(lang, "\u{a0}: ", ": "));
                        Some(view! {
                            <button type="button" data-act="status" data-action=card.action.0.to_string()
                                data-to=to.as_str() data-dir=dir aria-label=label>{format!("{pre}{name}{post}")}</button>
                        })
                    })
                    .collect::<Vec<_>>();
                view! { <div class="pp-card-a">{buttons}</div> }
            });
            view! {
                <li class="pp-card" data-action=card.action.0.to_string()>
                    <p class="pp-card-t">{card.label}</p>
                    <p class="pp-card-b">{card.bar_label}{progress}</p>
                    {card.assignee_name.map(|n| view! { <p class="pp-member">{n}</p> })}
                    {moves}
                </li>
            }
        });
        view! {
            <section class="pp-col" data-status=status.as_str() aria-label=title>
                <h2>{title}" "<span class="pp-count">{count}</span></h2>
                <ul>{cards.collect::<Vec<_>>()}</ul>
            </section>
        }
    });
    view! { <div class="pp-kanban">{columns.collect::<Vec<_>>()}</div> }
}

/// The agenda's range: the options' dates, else a window that holds the schedule's
/// absences (or its span; `layout::agenda_window`).
fn agenda_range(st: St) -> (Date, Date) {
    // Tracked: the agenda's memo follows this range.
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

/// What the agenda shows: loading, why it could not be read, or its title and its
/// days (class, date, who is away), compared as a whole like the kanban's.
#[derive(Clone, Debug, PartialEq)]
enum AgendaShown {
    Loading,
    Failed(String),
    Days {
        title: String,
        days: Vec<(String, String, String)>,
    },
}

fn agenda(st: St) -> impl IntoView {
    let shown = Memo::new(move |_| agenda_shown(st));
    move || match shown.get() {
        AgendaShown::Loading => {
            view! { <div class="pp-skeleton" aria-busy="true"><div></div></div> }.into_any()
        }
        AgendaShown::Failed(e) => {
            view! { <p class="pp-msg pp-error" role="alert">{e}</p> }.into_any()
        }
        AgendaShown::Days { title, days } => {
            let days = days
                .into_iter()
                .map(|(class, date, who)| {
                    view! { <li class=class><span class="pp-date">{date}</span><span>{who}</span></li> }
                })
                .collect::<Vec<_>>();
            view! { <div class="pp-agenda"><h2>{title}</h2><ul>{days}</ul></div> }.into_any()
        }
    }
}

fn agenda_shown(st: St) -> AgendaShown {
    let lang = st.lang.get();
    let d = match st.agenda.get() {
        None => return AgendaShown::Loading,
        Some(Err(e)) => return AgendaShown::Failed(e),
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
    let title = match lang {
        Lang::Fr => format!("Absences du {from} au {to}"),
        Lang::En => format!("Absences from {from} to {to}"),
    };
    let mut days = Vec::new();
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
            let class = format!(
                "pp-day{}{}",
                if working { "" } else { " off" },
                if away.is_empty() { "" } else { " away" }
            );
            let date = match lang {
                Lang::Fr => format!("{wd} {dd} {month} {y}"),
                Lang::En => format!("{wd} {month} {dd}, {y}"),
            };
            let who = if away.is_empty() {
                tr(lang, "tout le monde est là", "everyone is in").to_owned()
            } else {
                away.join(", ")
            };
            days.push((class, date, who));
        }
        day = day.add_days(1);
        n += 1;
    }
    AgendaShown::Days { title, days }
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
fn before_after(st: St) -> impl IntoView {
    let lines = move || {
        st.reply_text
            .get()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| view! { <li>{l.to_owned()}</li> })
            .collect::<Vec<_>>()
    };
    let said = Memo::new(move |_| said_under(st));
    view! {
        <div class="pp-changes">
            <ul>{lines}</ul>
            {move || match said.get() {
                Some(text) => view! { <p class="pp-notice" role="status">{text}</p> }.into_any(),
                None => view! {
                    <div class="pp-actions">
                        <button type="button" class="pp-primary" data-act="accept">{say(st, "Accepter", "Accept")}</button>
                        <button type="button" data-act="decline">{say(st, "Refuser", "Decline")}</button>
                    </div>
                }
                .into_any(),
            }}
        </div>
    }
}

/// What the before/after says instead of its buttons, if anything: a comparison, a
/// proposal accepted or declined, or one that cannot be accepted here and why.
fn said_under(st: St) -> Option<String> {
    let lang = st.lang.get();
    let (proposal, acceptable, refused) = st.shown.with(|s| match s {
        Some(Shown::Proposal {
            acceptable,
            refused,
            ..
        }) => (true, *acceptable, *refused),
        _ => (false, false, false),
    });
    let t = |fr: &'static str, en: &'static str| Some(tr(lang, fr, en).to_owned());
    if !proposal {
        t("Comparaison en lecture seule.", "Read-only comparison.")
    } else if let Some(done) = st.proposal_done.get() {
        Some(done)
    } else if st.declined.get() {
        t(
            "Proposition refusée\u{a0}: rien n'a été écrit.",
            "Proposal declined: nothing was written.",
        )
    } else if !app::all_changes_drawn(st) {
        t(
            "Cette proposition a trop de changements pour les dessiner tous ici\u{a0}: elle ne peut pas être acceptée dans la vue.",
            "This proposal has too many changes to draw them all here: it cannot be accepted in the view.",
        )
    } else if refused {
        t(
            "Vous ne pouvez pas accepter cette proposition.",
            "You cannot accept this proposal.",
        )
    } else if !acceptable {
        t(
            "Cette proposition contient des changements non montrés (listés ci-dessus)\u{a0}: elle ne peut pas être acceptée ici.",
            "This proposal has changes not shown (listed above): it cannot be accepted here.",
        )
    } else if st.read_only.get() && st.embed {
        t("Ce lien est en lecture seule.", "This link is read-only.")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use palmaplan_model::demo::s4hana_migration;
    use serde_json::json;

    use super::*;
    use crate::shell::tests::{html_of, shown};

    #[test]
    fn the_kanban_lists_each_action_in_its_column_with_moves_for_a_writer() {
        let mut s = s4hana_migration();
        s.actions[0].label = "Relire <le> cahier".into();
        let first = s.actions[0].id.0;
        let st = shown(s, Lang::Fr);
        st.shown.set(Some(Shown::Kanban));
        let h = html_of(move || bottom(st));
        // Each column names its status, which the focus follow looks for (`refocus`).
        for (status, column) in [
            ("todo", "À faire"),
            ("in_progress", "En cours"),
            ("done", "Terminée"),
        ] {
            assert!(
                h.contains(&format!(
                    "<section data-status=\"{status}\" aria-label=\"{column}\""
                )),
                "{column}: {h}"
            );
        }
        assert!(
            h.contains("Relire &lt;le&gt; cahier"),
            "a label is text: {h}"
        );
        assert!(
            h.contains(&format!("data-act=\"status\" data-action=\"{first}\"")),
            "no move for the first action: {h}"
        );
        let cards = h.matches("<li data-action=").count();
        assert_eq!(
            cards,
            st.doc
                .with_untracked(|d| d.as_ref().map_or(0, |d| d.s.actions.len()))
        );
        st.read_only.set(true);
        let h = html_of(move || bottom(st));
        assert!(
            !h.contains("data-act=\"status\""),
            "a viewer moves cards: {h}"
        );
        assert_eq!(h.matches("<li data-action=").count(), cards);
    }

    /// The board is built again only when what it shows changed: a bar's new dates
    /// (a page, a live update) leave it as it is; an action's new status does not.
    #[test]
    fn the_kanban_is_built_again_only_when_its_cards_change() {
        let st = shown(s4hana_migration(), Lang::Fr);
        let of = |s: &palmaplan_model::Schedule| {
            let doc = Doc::new(1, 1, s.clone(), true, (1, 1), 0);
            kanban_shown(st, &doc)
        };
        let mut s = s4hana_migration();
        let before = of(&s);
        s.bars[0].start = s.bars[0].start.add_days(7);
        s.bars[0].end = s.bars[0].end.add_days(7);
        assert_eq!(of(&s), before, "new dates rebuild the board");
        s.actions[0].status = match s.actions[0].status {
            ActionStatus::Done => ActionStatus::Todo,
            _ => ActionStatus::Done,
        };
        assert_ne!(of(&s), before, "a moved card left where it was");
    }

    #[test]
    fn the_before_after_lists_the_changes_and_offers_accept_only_when_it_can() {
        let st = shown(s4hana_migration(), Lang::Fr);
        st.shown.set(Some(Shown::Proposal {
            rank: 3,
            commands: json!([]),
            acceptable: true,
            refused: false,
        }));
        st.reply_text
            .set("Déplacé : « <b>Tests</b> »\n\n  \nFin du projet : inchangée".into());
        let h = html_of(move || bottom(st));
        assert!(
            h.contains("<li>Déplacé : « &lt;b&gt;Tests&lt;/b&gt; »</li>"),
            "{h}"
        );
        assert_eq!(
            h.matches("<li>").count(),
            2,
            "blank lines are not changes: {h}"
        );
        assert!(
            h.contains("data-act=\"accept\"") && h.contains("data-act=\"decline\""),
            "{h}"
        );
        st.declined.set(true);
        let h = html_of(move || bottom(st));
        assert!(h.contains("Proposition refusée"), "{h}");
        assert!(!h.contains("data-act=\"accept\""), "{h}");
        st.declined.set(false);
        st.shown.set(Some(Shown::Proposal {
            rank: 3,
            commands: json!([]),
            acceptable: false,
            refused: false,
        }));
        let h = html_of(move || bottom(st));
        assert!(h.contains("changements non montrés"), "{h}");
        // Refused to the caller (a viewer): the reason is the refusal's, not the changes'.
        st.shown.set(Some(Shown::Proposal {
            rank: 3,
            commands: json!([]),
            acceptable: false,
            refused: true,
        }));
        let h = html_of(move || bottom(st));
        assert!(
            h.contains("Vous ne pouvez pas accepter cette proposition"),
            "{h}"
        );
        assert!(!h.contains("changements non montrés"), "{h}");
        assert!(!h.contains("data-act=\"accept\""), "{h}");
        st.shown.set(Some(Shown::Comparison));
        st.lang.set(Lang::En);
        let h = html_of(move || bottom(st));
        assert!(h.contains("Read-only comparison."), "{h}");
        assert!(!h.contains("data-act=\"accept\""), "{h}");
    }

    #[test]
    fn a_deletion_is_asked_for_by_the_bar_s_name_under_any_board() {
        let mut s = s4hana_migration();
        s.bars[0].label = "Audit & <cadrage>".into();
        let bar = s.bars[0].id;
        let st = shown(s, Lang::Fr);
        assert_eq!(html_of(move || bottom(st)), "", "nothing under the Gantt");
        st.confirm.set(Some(bar));
        let h = html_of(move || bottom(st));
        assert!(h.contains("role=\"alertdialog\""), "{h}");
        assert!(
            h.contains("Supprimer le bloc «\u{a0}Audit &amp; &lt;cadrage&gt;\u{a0}»\u{202f}?"),
            "{h}"
        );
        assert!(
            h.contains("data-act=\"delete-yes\"") && h.contains("data-act=\"delete-no\""),
            "{h}"
        );
        st.shown.set(Some(Shown::Kanban));
        assert!(html_of(move || bottom(st)).contains("alertdialog"));
        st.withdrawn.set(true);
        assert_eq!(
            html_of(move || bottom(st)),
            "",
            "a withdrawn card shows nothing under it"
        );
    }

    #[test]
    fn a_deletion_names_the_links_and_actions_that_go_with_the_bar() {
        let s = s4hana_migration();
        // A bar with links and one without any link or action, in both languages.
        let linked = s
            .bars
            .iter()
            .find(|b| {
                s.links
                    .iter()
                    .any(|l| l.from.0 == b.id.0 || l.to.0 == b.id.0)
            })
            .unwrap();
        let links = s
            .links
            .iter()
            .filter(|l| l.from.0 == linked.id.0 || l.to.0 == linked.id.0)
            .count();
        let actions = s.actions.iter().filter(|a| a.bar == linked.id).count();
        let q = delete_question(&s, linked.id, Lang::Fr);
        let with =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n > 1 { many } else { one });
        assert!(q.contains("Cela supprime aussi "), "{q}");
        assert!(q.contains(&with(links, "lien", "liens")), "{q}");
        if actions > 0 {
            assert!(q.contains(&with(actions, "action", "actions")), "{q}");
        }
        assert!(q.ends_with(" (Annuler remet tout)."), "{q}");
        let q = delete_question(&s, linked.id, Lang::En);
        assert!(
            q.starts_with(&format!(
                "Delete the bar “{}”? This also deletes {}",
                linked.label,
                with(links, "link", "links")
            )),
            "{q}"
        );
        let mut bare = s.clone();
        bare.links.clear();
        bare.actions.clear();
        assert_eq!(
            delete_question(&bare, linked.id, Lang::En),
            format!("Delete the bar “{}”?", linked.label)
        );
    }
}

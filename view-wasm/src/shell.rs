//! The card's shell above the chart, as Leptos components over the state's cells
//! (`sig`): the phase's message (loading, Reload, cancelled, refusal, a newer view),
//! the compact line, the toolbar, the status notice, the selection's details and the
//! legend.
//!
//! Each part reads only the cells it shows, and what decides a part's shape (which
//! phase, whether a notice is an alert) is a memo: a page arriving changes the title's
//! and the status's text nodes, never the buttons, which keep their focus. User text
//! (a schedule's name, a refusal, a bar's details) reaches the DOM as text nodes or
//! attribute values, never as markup. Buttons carry `data-act`; the root's one click
//! handler runs them (`gantt::act`).

use leptos::prelude::{
    AnyView, AriaAttributes, ClassAttribute, CustomAttribute, ElementChild, Get, GlobalAttributes,
    InnerHtmlAttribute, IntoAny, IntoView, Memo, With, view,
};
use palmaplan_model::Lang;

use crate::app::{Notice, Shown, St};
use crate::gantt::{self, edit};
use crate::host;
use crate::phase::Phase;
use crate::texts::{self, tr};

/// A text in the view's language, following it.
pub(crate) fn say(st: St, fr: &'static str, en: &'static str) -> impl Fn() -> &'static str + Copy {
    move || tr(st.lang.get(), fr, en)
}

/// What the top of the card shows, by phase: each is built once, when the card
/// reaches it.
#[derive(Clone, Debug, PartialEq)]
enum Frame {
    /// A newer view of this schedule is open further down.
    Withdrawn,
    Loading,
    /// The schedule did not arrive in time: Reload.
    Stalled,
    Cancelled,
    /// The tool's refusal, in the person's words where it has some.
    Refused(String),
    /// The one line of `display: "compact"` (the result's first line once it came).
    Compact,
    /// The toolbar, the notice, the details and the legend over the chart.
    Full,
}

fn frame_of(st: St) -> Frame {
    if st.withdrawn.get() {
        return Frame::Withdrawn;
    }
    let compact = st.compact_now();
    // The result is read in place: it may be a large text.
    st.card.with(|c| match c.phase() {
        Phase::Waiting if compact => Frame::Compact,
        Phase::Waiting => Frame::Loading,
        Phase::Stalled => Frame::Stalled,
        Phase::Cancelled { .. } => Frame::Cancelled,
        Phase::Result(r) => {
            let reply = host::Reply::from_result(r);
            if reply.is_error {
                // A refusal is always the full card.
                Frame::Refused(reply.person_words())
            } else if compact {
                Frame::Compact
            } else {
                Frame::Full
            }
        }
    })
}

/// The compact line's summary: the result's first line (`show_schedule`'s: the
/// schedule by its name, dates and counts), or that it is loading.
fn summary_of(st: St) -> String {
    let first = st.card.with(|c| match c.phase() {
        Phase::Result(r) => Some(
            host::Reply::from_result(r)
                .text
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned(),
        ),
        _ => None,
    });
    first.unwrap_or_else(|| tr(st.lang.get(), "Chargement…", "Loading…").to_owned())
}

/// The top of the card.
pub fn top(st: St) -> impl IntoView {
    let frame = Memo::new(move |_| frame_of(st));
    move || -> AnyView {
        match frame.get() {
            Frame::Withdrawn => view! {
                <p class="pp-msg" role="status">{say(
                    st,
                    "Une vue plus récente de ce planning est ouverte plus bas.",
                    "A newer view of this schedule is open further down.",
                )}</p>
            }
            .into_any(),
            Frame::Loading => loading(st).into_any(),
            Frame::Stalled => view! {
                <div class="pp-msg" role="alert">
                    <p>{say(st, "Le planning n'est pas arrivé à temps.", "The schedule did not arrive in time.")}</p>
                    {reload(st)}
                </div>
            }
            .into_any(),
            Frame::Cancelled => view! {
                <p class="pp-msg" role="status">{move || texts::cancelled(st.lang.get(), false)}</p>
            }
            .into_any(),
            Frame::Refused(text) => view! {
                <div class="pp-msg pp-error" role="alert"><p>{text}</p></div>
            }
            .into_any(),
            // The same line before and after the result: only its summary changes.
            Frame::Compact => view! {
                <div class="pp-compact">
                    <span class="pp-icon" aria-hidden="true">"▦"</span>
                    <strong>"PalmaPlan"</strong>
                    <span class="pp-sum">{move || summary_of(st)}</span>
                    <button type="button" data-act="expand">{say(st, "Afficher", "Show")}</button>
                </div>
            }
            .into_any(),
            Frame::Full => full(st).into_any(),
        }
    }
}

fn reload(st: St) -> impl IntoView {
    view! { <button type="button" data-act="reload">{say(st, "Recharger", "Reload")}</button> }
}

fn loading(st: St) -> impl IntoView {
    view! {
        <div class="pp-skeleton" aria-busy="true" role="status"
            aria-label=say(st, "Chargement du planning", "Loading the schedule")>
            <div></div><div></div><div></div>
        </div>
    }
}

/// The result's card: a failed reading's message with Reload, then, once the schedule
/// is there, the toolbar and the rest (the details and legend with the Gantt only).
fn full(st: St) -> impl IntoView {
    let error = Memo::new(move |_| st.load_error.get());
    let failed = Memo::new(move |_| error.with(Option::is_some));
    let has_doc = Memo::new(move |_| st.doc.with(Option::is_some));
    let gantt = Memo::new(move |_| matches!(st.shown.get(), Some(Shown::Gantt) | None));
    view! {
        {move || failed.get().then(|| view! {
            <div class="pp-msg pp-error" role="alert">
                <p>{move || error.get().unwrap_or_default()}</p>
                {reload(st)}
            </div>
        })}
        // Apart, so that an error coming or going leaves the toolbar as it is.
        {move || (!has_doc.get() && !failed.get()).then(|| loading(st))}
        {move || has_doc.get().then(|| view! {
            {toolbar(st)}
            {notice(st)}
            {move || gantt.get().then(|| view! { {details(st)} {legend(st)} })}
        })}
    }
}

/// Toolbar icons drawn inline (a font may lack the symbols).
const ICON_ASK: &str = "<svg width=\"14\" height=\"14\" viewBox=\"0 0 16 16\"><path d=\"M2 3h12v8H6l-3 3v-3H2z\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/></svg>";
const ICON_FULL: &str = "<svg width=\"14\" height=\"14\" viewBox=\"0 0 16 16\"><path d=\"M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/></svg>";
const ICON_EXIT_FULL: &str = "<svg width=\"14\" height=\"14\" viewBox=\"0 0 16 16\"><path d=\"M6 2v4H2M14 6h-4V2M10 14v-4h4M2 10h4v4\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/></svg>";

/// A toolbar button: an icon (markup of this file's, never data) and a label, both
/// following the state; `fold` buttons show their label beside the icon when there is
/// room. Function pointers rather than closures, so that one copy of this code serves
/// every button.
fn button(
    st: St,
    act: &'static str,
    icon: fn(St) -> &'static str,
    label: fn(St) -> String,
    fold: bool,
) -> impl IntoView {
    view! {
        <button type="button" class=if fold { "pp-fold" } else { "pp-ic" } data-act=act
            aria-label=move || label(st) title=move || label(st)>
            <span aria-hidden="true" inner_html=move || icon(st)></span>
            {fold.then(|| view! { <span class="pp-lbl">{move || label(st)}</span> })}
        </button>
    }
}

/// What the title's status says: pages still coming, texts cut, read-only.
fn status_of(st: St) -> String {
    let lang = st.lang.get();
    let mut sub = Vec::new();
    st.doc.with(|d| {
        let Some(doc) = d else { return };
        let (got, total) = doc.progress;
        // No count yet after an early page 0 of packed pages (page 1 tells it).
        if !doc.complete && (total > 1 || (total == 0 && got > 0)) {
            sub.push(match (lang, total) {
                (_, 0) => format!("page {got}…"),
                (Lang::Fr, _) => format!("page {got} sur {total}…"),
                (Lang::En, _) => format!("page {got} of {total}…"),
            });
        }
        if doc.cut > 0 {
            sub.push(match lang {
                Lang::Fr => format!(
                    "{}\u{a0}: la suite arrive",
                    palmaplan_model::text::count(lang, doc.cut, "texte coupé", "textes coupés")
                ),
                Lang::En => format!(
                    "{} cut: the rest is coming",
                    palmaplan_model::text::count(lang, doc.cut, "text", "texts")
                ),
            });
        }
    });
    if st.read_only.get() && matches!(st.shown.get(), Some(Shown::Gantt | Shown::Kanban)) {
        sub.push(tr(lang, "lecture seule", "read-only").to_owned());
    }
    sub.join(" · ")
}

fn toolbar(st: St) -> impl IntoView {
    // On the web screen, the way back to the list and the help: plain links, as the
    // page is a page of the site (inside a host, the host gives both).
    let on_screen = st.backend.with_untracked(|b| {
        matches!(
            b,
            host::Backend::Http {
                door: host::Door::Session(_),
                ..
            }
        )
    });
    let name = move || {
        st.doc
            .with(|d| d.as_ref().map(|d| d.s.name.clone()))
            .unwrap_or_default()
    };
    let status = Memo::new(move |_| status_of(st));
    let has_status = Memo::new(move |_| status.with(|s| !s.is_empty()));
    let chart = Memo::new(move |_| {
        matches!(
            st.shown.get(),
            Some(Shown::Gantt | Shown::Proposal { .. } | Shown::Comparison)
        )
    });
    let writes = Memo::new(move |_| st.can_write());
    let has_help = Memo::new(move |_| st.help.with(Option::is_some));
    // Each of these needs a request the host announced at `ui/initialize` (read after
    // the handshake, which `st.host` is set after).
    let offers = Memo::new(move |_| {
        let _ = st.host.get();
        host::with_bridge(|b| {
            (
                b.announces("message"),
                b.announces("openLinks"),
                b.offers_display_mode("fullscreen"),
            )
        })
    });
    view! {
        <div class="pp-bar" role="toolbar" aria-label=say(st, "Outils du planning", "Schedule tools")>
            {on_screen.then(|| view! {
                <a class="pp-back" href=move || if st.lang.get() == Lang::En { "/app?lang=en" } else { "/app" }>
                    "← "{say(st, "Mes plannings", "My schedules")}
                </a>
            })}
            // Its full text on hover too: a narrow frame cuts it.
            <h1 class="pp-title" title=name>{name}</h1>
            {move || has_status.get().then(|| view! { <span class="pp-sub" role="status">{move || status.get()}</span> })}
            <span class="pp-grow"></span>
            {move || chart.get().then(|| view! {
                {button(st, "zoom-out", |_| "−", |st| tr(st.lang.get(), "Dézoomer", "Zoom out").to_owned(), false)}
                {button(st, "zoom-in", |_| "+", |st| tr(st.lang.get(), "Zoomer", "Zoom in").to_owned(), false)}
            })}
            {move || writes.get().then(|| view! {
                {button(st, "undo", |_| "↶", |st| tr(st.lang.get(), "Annuler (Ctrl+Z)", "Undo (Ctrl+Z)").to_owned(), false)}
                {button(st, "redo", |_| "↷", |st| tr(st.lang.get(), "Rétablir (Maj+Ctrl+Z)", "Redo (Shift+Ctrl+Z)").to_owned(), false)}
            })}
            {move || (on_screen && has_help.get()).then(|| view! {
                <a class="pp-back" href=move || st.help.get().unwrap_or_default() target="_blank" rel="noopener">
                    {say(st, "Aide", "Help")}
                </a>
            })}
            {move || {
                let (ask, links, full) = offers.get();
                (!st.embed).then(|| view! {
                    {ask.then(|| button(
                        st,
                        "ask",
                        |_| ICON_ASK,
                        |st| texts::ask_label(st.lang.get(), st.host.get().as_deref()),
                        true,
                    ))}
                    {move || (links && has_help.get()).then(|| button(
                        st,
                        "help",
                        |_| "?",
                        |st| tr(st.lang.get(), "Aide", "Help").to_owned(),
                        true,
                    ))}
                    // One button whose icon and label follow the mode, so that it keeps
                    // the focus across the switch.
                    {full.then(|| button(
                        st,
                        "full",
                        |st| if st.fullscreen.get() { ICON_EXIT_FULL } else { ICON_FULL },
                        |st| {
                            let lang = st.lang.get();
                            if st.fullscreen.get() {
                                tr(lang, "Quitter le plein écran", "Exit full screen")
                            } else {
                                tr(lang, "Plein écran", "Full screen")
                            }
                            .to_owned()
                        },
                        true,
                    ))}
                })
            }}
        </div>
    }
}

/// A write in flight, done or refused: a status, or an alert for a refusal.
fn notice(st: St) -> impl IntoView {
    let alert = Memo::new(move |_| match st.notice.get() {
        Notice::None => None,
        Notice::Busy(_) | Notice::Ok(_) => Some(false),
        Notice::Error(_) => Some(true),
    });
    let text = move || match st.notice.get() {
        Notice::Busy(m) | Notice::Ok(m) | Notice::Error(m) => m,
        Notice::None => String::new(),
    };
    move || match alert.get() {
        None => None,
        Some(false) => Some(view! { <p class="pp-notice" role="status">{text}</p> }.into_any()),
        Some(true) => {
            Some(view! { <p class="pp-notice pp-error" role="alert">{text}</p> }.into_any())
        }
    }
}

/// What the selection is, in one line: a link (what it joins, how to delete it), a
/// row, a group or a milestone (what it is, how to rename it), or a bar (its dates,
/// floats, constraints).
fn details_of(st: St) -> Option<String> {
    let doc = st.doc.get()?;
    let lang = st.lang.get();
    let picked = match st.edit.get() {
        edit::Edit::Link(l) => edit::link_details(&doc.s, l, lang, st.can_write()),
        edit::Edit::Picked(n) => edit::picked_details(&doc.s, n, lang, st.can_write()),
        _ => None,
    };
    if picked.is_some() {
        return picked;
    }
    let bar = st.selected.get()?;
    let reference = st.reference.get();
    gantt::details_text(
        &doc,
        bar,
        lang,
        st.today.get(),
        reference.as_ref().map(|r| &r.s),
    )
}

fn details(st: St) -> impl IntoView {
    let text = Memo::new(move |_| details_of(st));
    let some = Memo::new(move |_| text.with(Option::is_some));
    move || {
        some.get().then(|| {
            view! { <p class="pp-details" role="status">{move || text.get().unwrap_or_default()}</p> }
        })
    }
}

/// The legend of the marks this chart draws, only those present.
fn legend(st: St) -> impl IntoView {
    let entries = Memo::new(move |_| {
        st.doc
            .with(|d| d.as_ref().map(|d| gantt::legend_entries(st, d)))
            .unwrap_or_default()
    });
    move || {
        let entries = entries.get();
        (!entries.is_empty()).then(|| {
            view! {
                <p class="pp-legend" aria-label=say(st, "Légende", "Legend")>
                    {entries
                        .into_iter()
                        .map(|(key, name)| view! { <span class=format!("pp-lg pp-lg-{key}")>{name}</span> })
                        .collect::<Vec<_>>()}
                </p>
            }
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use leptos::prelude::GetUntracked;
    use palmaplan_model::layout::Zoom;
    use palmaplan_model::wire::ViewOptions;
    use palmaplan_model::{BarId, Schedule};
    use serde_json::json;

    use super::*;
    use crate::gantt::snapshots::{small, state};

    /// The HTML a component's view gives for the state as it stands, without Leptos's
    /// hydration markers. Rendered inside a memo, as the browser renders it inside
    /// effects: its reads are tracked reads there too.
    pub(crate) fn html_of<V: IntoView + 'static>(
        f: impl Fn() -> V + Send + Sync + 'static,
    ) -> String {
        Memo::new(move |_| f().to_html())
            .get_untracked()
            .replace("<!>", "")
    }

    /// A schedule's card once its `show_schedule` result is in.
    pub(crate) fn shown(s: Schedule, lang: Lang) -> St {
        let st = state(
            s,
            lang,
            "2026-03-02",
            1200.0,
            Zoom::Week,
            ViewOptions::default(),
        );
        st.card
            .update(|c| c.on_result(json!({"content": [{"type": "text", "text": "ok"}]})));
        st
    }

    #[test]
    fn the_title_is_text_and_the_toolbar_follows_the_role_and_the_language() {
        let mut s = small();
        s.name = "<b>R&D</b>".into();
        let st = shown(s, Lang::Fr);
        let h = html_of(move || top(st));
        assert!(
            h.contains("<h1 title=\"&lt;b&gt;R&amp;D&lt;/b&gt;\" class=\"pp-title\">&lt;b&gt;R&amp;D&lt;/b&gt;</h1>"),
            "{h}"
        );
        assert!(h.contains("aria-label=\"Outils du planning\""), "{h}");
        for act in ["zoom-out", "zoom-in", "undo", "redo"] {
            assert!(
                h.contains(&format!("data-act=\"{act}\"")),
                "{act} missing: {h}"
            );
        }
        assert!(
            !h.contains("pp-sub"),
            "nothing to say beside the title: {h}"
        );
        // No host handshake here: no button for a request it did not announce, even
        // with a help page to open.
        st.help.set(Some("http://127.0.0.1:4785/help".into()));
        let h = html_of(move || top(st));
        for act in ["ask", "help", "full"] {
            assert!(
                !h.contains(&format!("data-act=\"{act}\"")),
                "{act} offered: {h}"
            );
        }
        st.read_only.set(true);
        st.lang.set(Lang::En);
        let h = html_of(move || top(st));
        assert!(h.contains("aria-label=\"Schedule tools\""), "{h}");
        assert!(
            h.contains("<span role=\"status\" class=\"pp-sub\">read-only</span>"),
            "{h}"
        );
        assert!(
            !h.contains("data-act=\"undo\""),
            "a viewer is offered Undo: {h}"
        );
        assert!(h.contains("data-act=\"zoom-in\""), "{h}");
    }

    #[test]
    fn each_phase_says_what_it_is() {
        let st = state(
            small(),
            Lang::Fr,
            "2026-03-02",
            1200.0,
            Zoom::Week,
            ViewOptions::default(),
        );
        let h = html_of(move || top(st));
        assert!(h.contains("class=\"pp-skeleton\""), "{h}");
        assert!(h.contains("aria-label=\"Chargement du planning\""), "{h}");
        // Asked for the one-line card, before the result.
        st.card
            .update(|c| c.on_input(json!({"display": "compact"})));
        let h = html_of(move || top(st));
        assert!(
            h.contains("<span class=\"pp-sum\">Chargement…</span>"),
            "{h}"
        );
        assert!(h.contains("data-act=\"expand\""), "{h}");
        st.card.update(|c| {
            c.tick(crate::phase::STALL_MS);
        });
        let h = html_of(move || top(st));
        assert!(h.contains("n'est pas arrivé à temps"), "{h}");
        assert!(h.contains("data-act=\"reload\""), "{h}");
        st.card.update(|c| c.on_cancel(None));
        let h = html_of(move || top(st));
        assert!(h.contains("<p role=\"status\" class=\"pp-msg\">"), "{h}");
        assert!(h.contains(texts::cancelled(Lang::Fr, false)), "{h}");
        assert!(!h.contains("data-act=\"reload\""), "{h}");
        st.card.update(|c| {
            c.on_result(json!({
                "isError": true,
                "content": [{"type": "text", "text": "Refusé : <script>"}],
            }));
        });
        let h = html_of(move || top(st));
        assert!(h.contains("role=\"alert\""), "{h}");
        assert!(
            h.contains("Refusé : &lt;script&gt;"),
            "a refusal is text: {h}"
        );
        st.card.update(|c| {
            c.on_result(json!({"content": [{"type": "text", "text": "Small : 3 blocs\nsuite"}]}));
        });
        let h = html_of(move || top(st));
        assert!(
            h.contains("<span class=\"pp-sum\">Small : 3 blocs</span>"),
            "{h}"
        );
        assert!(h.contains("data-act=\"expand\""), "{h}");
        st.withdrawn.set(true);
        let h = html_of(move || top(st));
        assert!(h.contains("Une vue plus récente"), "{h}");
        assert!(!h.contains("pp-compact"), "{h}");
    }

    #[test]
    fn a_refused_write_is_an_alert_and_a_selected_bar_its_details() {
        let st = shown(small(), Lang::Fr);
        st.notice.set(Notice::Busy("Déplacement…".into()));
        let h = html_of(move || top(st));
        assert!(
            h.contains("<p role=\"status\" class=\"pp-notice\">Déplacement…</p>"),
            "{h}"
        );
        st.notice.set(Notice::Error("Refusé : <verrou>".into()));
        let h = html_of(move || top(st));
        assert!(
            h.contains(
                "<p role=\"alert\" class=\"pp-notice pp-error\">Refusé : &lt;verrou&gt;</p>"
            ),
            "{h}"
        );
        assert!(!h.contains("pp-details"), "nothing selected: {h}");
        let bar = st
            .doc
            .with_untracked(|d| d.as_ref().map(|d| d.s.bars[0].id))
            .unwrap_or(BarId(0));
        st.selected.set(Some(bar));
        let h = html_of(move || top(st));
        assert!(
            h.contains("<p role=\"status\" class=\"pp-details\">"),
            "{h}"
        );
        // The details and the legend belong to the Gantt.
        st.shown.set(Some(Shown::Kanban));
        let h = html_of(move || top(st));
        assert!(!h.contains("pp-details") && !h.contains("pp-legend"), "{h}");
    }
}

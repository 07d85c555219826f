//! The view's state and its life: the card's phase (from the host's tool-input,
//! tool-result and tool-cancelled), loading the schedule page by page, live updates by
//! polling the journal, writes through tools, the model context, theme and locale.
//!
//! Drawing is in `gantt.rs` (the Gantt and the before/after) and `boards.rs` (kanban,
//! agenda, lists); talking outside is in `host.rs`. Big data lives behind `Arc`s in
//! signals, so a signal update never copies a schedule.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use palmaplan_model::diff::Change;
use palmaplan_model::idset::IdSet;
use palmaplan_model::layout::{self, Line, RowFilter, RowIndex, Zoom};
use palmaplan_model::wire::{self, ViewOptions};
use palmaplan_model::{Bar, BarId, Date, GroupId, Lang, Milestone, RowId, Schedule, filter, risk};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::bridge::Event;
use crate::data::{Assembly, read_records_with, records_ref, take_record_parts};
use crate::host::{self, Backend, CallError, Reply};
use crate::phase::{Card, tool_writes};
use crate::sig::{Sig, set_interval, set_timeout};
use crate::texts::{self, tr};

/// What the card shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Gantt,
    Kanban,
    Agenda,
    /// A `what_if` proposal: its commands and the rank it was made at.
    Proposal {
        rank: i64,
        commands: Value,
        acceptable: bool,
        /// The caller could not write it (their role, a lock): the person's text says
        /// why, rather than changes not shown.
        refused: bool,
    },
    /// A `diff_versions` comparison (read-only).
    Comparison,
}

/// What `show_schedule`, `what_if` and `diff_versions` answer, told apart by their
/// `kind` (a view has none).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Answer {
    Proposal(wire::Proposal<Value>),
    Comparison(wire::Comparison),
    View(wire::Shown),
}

/// The schedule shown, with what is derived from it once per change.
#[derive(Debug)]
pub struct Doc {
    pub id: i64,
    pub rank: i64,
    pub s: Schedule,
    pub complete: bool,
    pub progress: (usize, usize),
    pub cut: usize,
    pub index: RowIndex,
    /// Each link's two ends, as (item id, link position), sorted: the links of the
    /// items drawn are found by binary search, never by a pass over all links.
    pub link_ends: Vec<(u64, u32)>,
    pub cal: palmaplan_model::calendar::Calendar,
    pub critical: IdSet<BarId>,
    pub at_risk: IdSet<BarId>,
    pub violated: IdSet<u64>,
    /// This state's number among the states made in this view, never reused: what is
    /// computed from a state (a drag's link index, the floats) is kept by it, as a
    /// state is replaced whole, at the same rank too (pages arriving, a proposal shown).
    pub stamp: u64,
}

impl Doc {
    /// The positions of the links that touch an item.
    pub fn links_of(&self, item: u64) -> impl Iterator<Item = usize> + '_ {
        let start = self.link_ends.partition_point(|(i, _)| *i < item);
        self.link_ends[start..]
            .iter()
            .take_while(move |(i, _)| *i == item)
            .map(|(_, p)| *p as usize)
    }

    pub fn new(
        id: i64,
        rank: i64,
        s: Schedule,
        complete: bool,
        progress: (usize, usize),
        cut: usize,
    ) -> Doc {
        let analysis = complete.then(|| Analysis::of(&s));
        Doc::with(id, rank, s, analysis, progress, cut)
    }

    /// A doc from its schedule and, once the schedule is whole, its analysis (which can
    /// then be computed in a task of its own: see `page_added`).
    pub fn with(
        id: i64,
        rank: i64,
        s: Schedule,
        analysis: Option<Analysis>,
        progress: (usize, usize),
        cut: usize,
    ) -> Doc {
        let index = RowIndex::new(&s);
        let mut link_ends: Vec<(u64, u32)> = Vec::with_capacity(s.links.len() * 2);
        for (i, l) in s.links.iter().enumerate() {
            link_ends.push((l.from.0, i as u32));
            link_ends.push((l.to.0, i as u32));
        }
        palmaplan_model::order::sort_pairs(&mut link_ends);
        let cal = palmaplan_model::calendar::Calendar::for_schedule(&s);
        let complete = analysis.is_some();
        let Analysis {
            critical,
            at_risk,
            violated,
        } = analysis.unwrap_or_default();
        thread_local! {
            static STAMPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        }
        let stamp = STAMPS.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        Doc {
            stamp,
            id,
            rank,
            s,
            complete,
            progress,
            cut,
            index,
            link_ends,
            cal,
            critical,
            at_risk,
            violated,
        }
    }
}

/// What needs the whole schedule: the critical path and the risks.
#[derive(Debug, Default)]
pub struct Analysis {
    critical: IdSet<BarId>,
    at_risk: IdSet<BarId>,
    violated: IdSet<u64>,
}

impl Analysis {
    /// The analysis the server sends with a page or a delta (`analysis`, the model's
    /// `risk::Highlights` in its wire form), which spares the view computing it: at
    /// 100,000 bars that took ~140 ms in one task.
    /// `s` is the schedule it is the analysis of (bits in it are over its bars).
    pub fn from_value(v: &Value, s: &Schedule) -> Option<Analysis> {
        risk::Highlights::from_wire(v, s).map(Analysis::from)
    }

    /// The view's own, when the server sent none.
    pub fn of(s: &Schedule) -> Analysis {
        Analysis::from(risk::highlights(s))
    }

    /// The server's analysis of `s` when it sent one that reads over `s`, else the
    /// view's own.
    pub fn sent_or_own(sent: Option<Value>, s: &Schedule) -> Analysis {
        sent.and_then(|a| Analysis::from_value(&a, s))
            .unwrap_or_else(|| Analysis::of(s))
    }
}

impl From<risk::Highlights> for Analysis {
    fn from(h: risk::Highlights) -> Analysis {
        Analysis {
            critical: h.critical.into_iter().collect(),
            at_risk: h.at_risk.into_iter().collect(),
            violated: h.violated_links.into_iter().map(|l| l.0).collect(),
        }
    }
}

/// The lines drawn, for the current doc, display mode, filter and collapsed groups.
#[derive(Debug)]
pub struct Lay {
    pub lines: Vec<Line>,
    /// The axis drawn (the window, run on to fill the frame at a chosen zoom).
    pub from: Date,
    pub to: Date,
    /// The zoom whose cells the header shows.
    pub zoom: Zoom,
    /// The scale, fitted to the frame unless a zoom was chosen.
    pub ppd: f64,
    /// Each item's lane and label side on its line.
    pub lanes: palmaplan_model::fit::Lanes,
}

/// A write in flight or just refused, for the status line.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    None,
    Busy(String),
    Ok(String),
    Error(String),
}

/// The view's state cells (all Copy, see `sig`), reached through `st()`.
#[derive(Clone, Copy, Debug)]
pub struct St {
    pub lang: Sig<Lang>,
    pub dark: Sig<bool>,
    pub host: Sig<Option<String>>,
    pub embed: bool,
    pub card: Sig<Card>,
    pub shown: Sig<Option<Shown>>,
    /// The options the view was shown with (`show_schedule`'s, or the link's).
    pub options: Sig<ViewOptions>,
    /// The server's help page, when it has an address (the result's `_meta`).
    pub help: Sig<Option<String>>,
    pub read_only: Sig<bool>,
    pub doc: Sig<Option<Arc<Doc>>>,
    /// The "before" of a proposal or comparison (the shadow).
    pub before: Sig<Option<Arc<Doc>>>,
    /// The baseline version (`reference`), drawn as a shadow under each bar.
    pub reference: Sig<Option<Arc<Doc>>>,
    /// A comparison's two sides: (from, to), each a version id or None for "current".
    pub sides: Sig<(Option<i64>, Option<i64>)>,
    pub lay: Sig<Option<Arc<Lay>>>,
    pub load_error: Sig<Option<String>>,
    pub notice: Sig<Notice>,
    pub selected: Sig<Option<BarId>>,
    pub fullscreen: Sig<bool>,
    pub collapsed: Sig<IdSet<GroupId>>,
    pub zoom: Sig<Option<Zoom>>,
    pub today: Sig<Date>,
    pub withdrawn: Sig<bool>,
    pub proposal_done: Sig<Option<String>>,
    pub width: Sig<f64>,
    /// Bumped by each poll; the polling loop's pace.
    pub idle_polls: Sig<u32>,
    pub hidden: Sig<bool>,
    pub shown_at: Sig<Option<String>>,
    /// A proposal's or comparison's changes, as the tool result lists them.
    pub changes: Sig<Option<wire::Listed<wire::ChangeItem>>>,
    /// The tool result's text (the change list of a before/after).
    pub reply_text: Sig<String>,
    /// A compact card the person expanded.
    pub expanded: Sig<bool>,
    /// A bar awaiting the confirmation of its deletion.
    pub confirm: Sig<Option<BarId>>,
    /// The chart's edit in progress: a link selected, a rename, a link or a bar drawn.
    pub edit: Sig<crate::gantt::edit::Edit>,
    pub declined: Sig<bool>,
    /// The agenda's data (`get_schedule_absences`), or why it is missing.
    pub agenda: Sig<Option<Result<wire::AgendaAbsences, String>>>,
    pub backend: Sig<Backend>,
}

thread_local! {
    static ST: std::cell::Cell<Option<St>> = const { std::cell::Cell::new(None) };
}

/// The view's state handles (set once by `start`).
pub fn st() -> St {
    match ST.with(std::cell::Cell::get) {
        Some(st) => st,
        None => unreachable!("the view's state is read before start()"),
    }
}

impl St {
    /// Subscribes the running effect to every cell: the chart's drawing reads most of
    /// them, at different places and not always the same ones, and is cheap to run for
    /// nothing (each of its containers is replaced only when its text changed).
    pub fn track_all(&self) {
        // Destructured: a new cell fails to build until it is tracked here.
        let St {
            lang,
            dark,
            host,
            card,
            shown,
            options,
            help,
            read_only,
            doc,
            before,
            reference,
            sides,
            lay,
            load_error,
            notice,
            selected,
            fullscreen,
            collapsed,
            zoom,
            today,
            withdrawn,
            proposal_done,
            width,
            idle_polls,
            hidden,
            shown_at,
            changes,
            reply_text,
            expanded,
            confirm,
            edit,
            declined,
            agenda,
            backend,
            embed: _,
        } = *self;
        for t in [
            lang.trigger(),
            dark.trigger(),
            host.trigger(),
            card.trigger(),
            shown.trigger(),
            options.trigger(),
            help.trigger(),
            read_only.trigger(),
            doc.trigger(),
            before.trigger(),
            reference.trigger(),
            sides.trigger(),
            lay.trigger(),
            load_error.trigger(),
            notice.trigger(),
            selected.trigger(),
            fullscreen.trigger(),
            collapsed.trigger(),
            zoom.trigger(),
            today.trigger(),
            withdrawn.trigger(),
            proposal_done.trigger(),
            width.trigger(),
            idle_polls.trigger(),
            hidden.trigger(),
            shown_at.trigger(),
            changes.trigger(),
            reply_text.trigger(),
            expanded.trigger(),
            confirm.trigger(),
            edit.trigger(),
            declined.trigger(),
            agenda.trigger(),
            backend.trigger(),
        ] {
            leptos::prelude::Track::track(&t);
        }
    }

    pub fn tr(&self, fr: &'static str, en: &'static str) -> &'static str {
        tr(self.lang.get_untracked(), fr, en)
    }

    pub fn call(
        &self,
        tool: &str,
        args: Value,
        cb: impl FnOnce(Result<Reply, CallError>) + 'static,
    ) {
        let write = tool_writes(tool);
        let args = with_lang(args, self.lang.get_untracked());
        self.backend.get_untracked().call(tool, args, write, cb);
    }

    /// The words for a failed call, in the view's language.
    pub fn failure(&self, tool: &str, e: &CallError) -> String {
        let lang = self.lang.get_untracked();
        let write = tool_writes(tool);
        match e {
            CallError::Timeout => {
                texts::timed_out(lang, write, self.host.get_untracked().as_deref())
            }
            CallError::Host(m) => match lang {
                Lang::Fr => format!(
                    "{} a refusé l'appel\u{a0}: {m}",
                    texts::host_word(lang, self.host.get_untracked().as_deref())
                ),
                Lang::En => format!(
                    "{} refused the call: {m}",
                    texts::host_word(lang, self.host.get_untracked().as_deref())
                ),
            },
            CallError::Http(0) => tr(
                lang,
                "Le serveur ne répond pas. Rien n'a été modifié.",
                "The server does not answer. Nothing was changed.",
            )
            .to_owned(),
            CallError::Http(s) => match lang {
                Lang::Fr => format!("Le serveur a répondu {s}."),
                Lang::En => format!("The server answered {s}."),
            },
        }
    }

    /// Whether the card is the one-line compact form right now.
    pub fn compact_now(&self) -> bool {
        self.card.with(|c| c.compact()) && !self.expanded.get()
    }

    pub fn can_write(&self) -> bool {
        !self.read_only.get()
            && !self.withdrawn.get()
            && matches!(self.shown.get(), Some(Shown::Gantt | Shown::Kanban))
    }

    /// Whether the chart shows the whole schedule (its span, every row, groups that
    /// fold): full screen; and inline too in a host that offers no full screen once its
    /// handshake is over, where the whole schedule would otherwise be out of reach.
    /// Tracked when `tracked` (in an effect).
    pub fn whole(&self, tracked: bool) -> bool {
        let full = if tracked {
            self.fullscreen.get()
        } else {
            self.fullscreen.get_untracked()
        };
        full || (!self.embed
            && host::with_bridge(|b| {
                matches!(
                    b.phase(),
                    crate::bridge::Phase::Ready | crate::bridge::Phase::Degraded
                ) && !b.offers_display_mode("fullscreen")
            }))
    }

    /// Recomputes the lines drawn.
    pub fn relayout(&self) {
        let Some(doc) = self.doc.get_untracked() else {
            self.lay.set(None);
            return;
        };
        let opts = self.options.get_untracked();
        let full = self.whole(false);
        let today = self.today.get_untracked();
        let s = &doc.s;
        let window = layout::useful_window(s, today, 200);
        let (mut from, mut to) = match (opts.from, opts.to) {
            (Some(a), Some(b)) => (a, b),
            (Some(a), None) => (a, a.add_days(layout::WINDOW_MAX_DAYS - 1)),
            (None, Some(b)) => (b.add_days(-(layout::WINDOW_MAX_DAYS - 1)), b),
            (None, None) => (window.from, window.to),
        };
        // Full screen: the whole schedule.
        if full && let Some((a, b)) = s.span() {
            from = from.min(a.add_days(-layout::WINDOW_PADDING_DAYS));
            to = to.max(b.add_days(layout::WINDOW_PADDING_DAYS));
        }
        let mut only: Option<RowFilter> = None;
        if let Some(q) = opts.filter.as_deref().filter(|q| !q.trim().is_empty())
            && let Ok(f) = filter::parse(q)
        {
            // Late and overdue bars at this schedule's today (a pass over its bars), as
            // on the server, for `is:late` and `is:overdue`.
            let late = palmaplan_model::tracking::lateness(s, &doc.cal, self.today.get_untracked());
            // Late and overdue bars are at risk too, as the server counts them.
            let mut at_risk = doc.at_risk.clone();
            at_risk.extend(late.iter().map(|l| l.bar));
            let mut ctx =
                filter::FilterContext::new(s, &doc.critical, &at_risk).with_lateness(late.iter());
            // Floats cost a critical path of the whole schedule: only for a query that
            // compares them (`float<=2`), as on the server.
            if f.uses_floats() {
                ctx = ctx.with_floats(&filter::floats_of(s));
            }
            let bars: Vec<BarId> = s
                .bars
                .iter()
                .filter(|b| f.matches(&ctx, b))
                .map(|b| b.id)
                .collect();
            only = Some(RowFilter::from_bars(s, &bars));
        }
        if !full && only.is_none() {
            // Inline: the occupied rows of the window (all rows while nothing is there).
            let rows = occupied_rows(s, from, to);
            if !rows.is_empty() && rows.len() < s.rows.len() {
                only = Some(RowFilter::from_rows(rows));
            }
        }
        let collapsed = if full {
            self.collapsed.get_untracked()
        } else {
            IdSet::default()
        };
        let mut lines = layout::lines(s, &collapsed, only.as_ref());
        // The timeline's width: the frame's less the grid and a pixel, so that rounding
        // never makes the axis a pixel wider than the frame (and a scrollbar appear).
        let width = (self.width.get_untracked() - grid_width(self) - 1.0).max(120.0);
        // The person's zoom (the tool's `zoom` counts as theirs), else fitted.
        let chosen = self
            .zoom
            .get_untracked()
            .or_else(|| opts.zoom.as_deref().and_then(Zoom::named));
        let fit = palmaplan_model::fit::fit(from, to, width, chosen);
        let lanes = palmaplan_model::fit::stack(s, &doc.index, &mut lines, &fit);
        self.lay.set(Some(Arc::new(Lay {
            lines,
            from: fit.from,
            to: fit.to,
            zoom: fit.zoom,
            ppd: fit.px_per_day,
            lanes,
        })));
    }
}

/// Runs the steps from a page to a laid-out schedule once, on a small made-up page,
/// while the host has not sent the tool result yet. In most hosts the view runs as
/// JavaScript translated from its wasm (wasm2js), which the browser compiles function
/// by function on first use; without this, the first real page paid for that compiling
/// before anything showed. Touches no state: nothing of it is drawn or sent.
pub fn warm_up(st: St) {
    // Skipped when a real schedule is already in: its drawing compiled the code.
    if st.doc.with_untracked(Option::is_some) {
        return;
    }
    if let Some(doc) = warm_up_doc() {
        crate::gantt::warm_up_chart(st, doc);
    }
}

/// The made-up schedule, read from its page as a real one is.
fn warm_up_doc() -> Option<Doc> {
    let mut asm = Assembly::new(0, 0);
    asm.add(warm_up_page()).ok()?;
    Some(Doc::new(0, 0, asm.into_schedule(), true, (1, 1), 0))
}

/// A page of twelve rows of six linked bars, as `host` hands pages over.
fn warm_up_page() -> Value {
    use std::fmt::Write as _;
    const ROWS: u64 = 12;
    const PER_ROW: u64 = 6;
    let mut t = String::from("[");
    let bars = ROWS * PER_ROW;
    let _ = write!(
        t,
        "{{\"header\":{{\"name\":\"w\",\"next_id\":{},\"counts\":{{\"groups\":1,\"rows\":{ROWS},\"bars\":{bars},\"milestones\":0,\"links\":{},\"actions\":0,\"members\":0,\"absences\":0}}}}}},{{\"group\":{{\"index\":0,\"id\":1,\"name\":\"g\"}}}}",
        10_000,
        bars - 1
    );
    for r in 0..ROWS {
        let row = 100 + r;
        let _ = write!(
            t,
            ",{{\"row\":{{\"index\":{r},\"id\":{row},\"group\":1,\"name\":\"r\"}}}}"
        );
        for b in 0..PER_ROW {
            let day = 5 + (r + 3 * b) % 20;
            let _ = write!(
                t,
                ",{{\"bar\":{{\"id\":{},\"row\":{row},\"label\":\"b\",\"start\":\"2026-01-{day:02}\",\"end\":\"2026-01-{:02}\"}}}}",
                1_000 + r * PER_ROW + b,
                day + 2
            );
        }
    }
    for k in 1..bars {
        let _ = write!(
            t,
            ",{{\"link\":{{\"id\":{},\"from\":{},\"to\":{},\"kind\":\"FS\",\"lag\":0}}}}",
            5_000 + k,
            1_000 + k - 1,
            1_000 + k
        );
    }
    t.push(']');
    json!({ "rank": 0, "page": 0, "pages": 1, "records_json": t })
}

/// The rows with a bar or a milestone between two days: one pass over the items and a
/// binary search per row, whatever the schedule's size.
pub fn occupied_rows(s: &Schedule, from: Date, to: Date) -> Vec<RowId> {
    let mut hit: Vec<u64> = s
        .bars
        .iter()
        .filter(|b| b.start <= to && b.end >= from)
        .map(|b| b.row.0)
        .chain(
            s.milestones
                .iter()
                .filter(|m| m.date >= from && m.date <= to)
                .map(|m| m.row.0),
        )
        .collect();
    palmaplan_model::order::sort_by_u64(&mut hit, |&r| r);
    hit.dedup();
    s.rows
        .iter()
        .map(|r| r.id)
        .filter(|r| hit.binary_search(&r.0).is_ok())
        .collect()
}

/// The grid panel's width (0 when only the timeline shows).
pub fn grid_width(st: &St) -> f64 {
    let panel = st.options.with_untracked(|o| o.panel.clone());
    let narrow = st.width.get_untracked() < 600.0;
    match panel.as_deref() {
        Some("timeline") => 0.0,
        Some("grid") => st.width.get_untracked().max(200.0),
        _ if narrow => 120.0,
        _ => 220.0,
    }
}

// ---------------------------------------------------------------------------------
// Start

/// What a page PalmaPlan serves itself (`/embed/<id>`, `/app/schedules/<id>`) gives
/// the view.
#[derive(Clone, Debug)]
pub struct Embed {
    pub schedule: i64,
    pub door: crate::host::Door,
    pub lang: Lang,
    /// show_schedule's arguments (the schedule and the view's options).
    pub args: Value,
}

pub fn start(embed: Option<Embed>) {
    let lang0 = embed.as_ref().map(|e| e.lang).unwrap_or_else(|| {
        web_sys::window()
            .and_then(|w| w.navigator().language())
            .map(|l| texts::lang_of_locale(&l))
            .unwrap_or_default()
    });
    let width0 = web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|v| v.as_f64())
        .unwrap_or(800.0);
    let st = St {
        lang: Sig::new(lang0),
        dark: Sig::new(false),
        host: Sig::new(None),
        embed: embed.is_some(),
        card: Sig::new(Card::new(host::now())),
        shown: Sig::new(None),
        options: Sig::new(ViewOptions::default()),
        help: Sig::new(None),
        read_only: Sig::new(true),
        doc: Sig::new(None),
        before: Sig::new(None),
        reference: Sig::new(None),
        sides: Sig::new((None, None)),
        lay: Sig::new(None),
        load_error: Sig::new(None),
        notice: Sig::new(Notice::None),
        selected: Sig::new(None),
        fullscreen: Sig::new(false),
        collapsed: Sig::new(IdSet::default()),
        zoom: Sig::new(None),
        today: Sig::new(today_in(None)),
        withdrawn: Sig::new(false),
        proposal_done: Sig::new(None),
        width: Sig::new(width0),
        idle_polls: Sig::new(0),
        hidden: Sig::new(false),
        shown_at: Sig::new(None),
        changes: Sig::new(None),
        reply_text: Sig::new(String::new()),
        expanded: Sig::new(false),
        confirm: Sig::new(None),
        edit: Sig::new(crate::gantt::edit::Edit::None),
        declined: Sig::new(false),
        agenda: Sig::new(None),
        backend: Sig::new(match &embed {
            Some(e) => Backend::Http {
                schedule: e.schedule,
                door: e.door.clone(),
            },
            None => Backend::Host,
        }),
    };
    ST.with(|c| c.set(Some(st)));
    crate::gantt::mount(st);
    let pushed = embed.as_ref().map(|e| (e.schedule, e.door.clone()));

    match embed {
        Some(e) => {
            // The /embed page: no host; the link's schedule and options, as
            // show_schedule shows them.
            st.card.update(|c| c.on_input(e.args.clone()));
            st.call("show_schedule", e.args, move |r| match r {
                Ok(reply) => on_result(
                    st,
                    json!({
                        "content": [{"type": "text", "text": reply.text}],
                        "structuredContent": reply.structured,
                        "isError": reply.is_error,
                        "_meta": reply.meta,
                    }),
                ),
                Err(e) => st.load_error.set(Some(st.failure("show_schedule", &e))),
            });
        }
        None => {
            host::connect(std::rc::Rc::new(move |e| on_event(st, e)));
        }
    }

    // The stall timer of the card.
    set_interval(
        move || {
            let mut changed = false;
            st.card.update_untracked(|c| changed = c.tick(host::now()));
            if changed {
                st.card.update(|_| {});
            }
        },
        Duration::from_millis(500),
    );
    watch_visibility(st);
    // On the /embed page the server says when the schedule changes (`live`); polling
    // is the fallback, and the only way inside an MCP host.
    let live = pushed.is_some_and(|(id, door)| {
        crate::live::listen(
            id,
            &door,
            move |rank| catch_up(st, rank),
            move || start_polling(st),
        )
    });
    if !live {
        start_polling(st);
    }
    // Once the page is up and before the result can come (it comes through the host,
    // after the handshake): a task of its own, so mounting is not delayed.
    set_timeout(move || warm_up(st), Duration::from_millis(0));
}

fn on_event(st: St, e: Event) {
    match e {
        Event::Ready | Event::Context => apply_context(st),
        // No host context: what the view offers follows (`St::whole`).
        Event::HandshakeFailed(_) => st.relayout(),
        Event::ToolInput(args) => {
            ask_early(st, &args);
            st.card.update(|c| c.on_input(args));
        }
        Event::ToolResult(result) => on_result(st, result),
        Event::ToolCancelled(reason) => st.card.update(|c| c.on_cancel(reason)),
        Event::Teardown => st.withdrawn.set(true),
        Event::Response { .. } => {}
    }
}

/// Theme, CSS variables, locale, time zone and display mode from the host context.
fn apply_context(st: St) {
    let (ctx, name) =
        host::with_bridge(|b| (b.context().clone(), b.host_name().map(str::to_owned)));
    st.host.set(name);
    if let Some(theme) = ctx.get("theme").and_then(Value::as_str) {
        st.dark.set(theme == "dark");
    }
    if let Some(locale) = ctx.get("locale").and_then(Value::as_str) {
        st.lang.set(texts::lang_of_locale(locale));
    }
    // The host's zone until a schedule is shown: then "today" is the date in the
    // schedule's zone, as on the server (`set_doc`).
    if let Some(tz) = ctx.get("timeZone").and_then(Value::as_str)
        && st.doc.with_untracked(Option::is_none)
    {
        st.today.set(today_in(Some(tz)));
    }
    if let Some(mode) = ctx.get("displayMode").and_then(Value::as_str) {
        st.fullscreen.set(mode == "fullscreen");
    }
    if let Some(vars) = ctx.pointer("/styles/variables").and_then(Value::as_object)
        && let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
    {
        for (k, v) in vars {
            if let Some(v) = v.as_str()
                && k.starts_with("--")
            {
                let _ = root.style().set_property(k, v);
            }
        }
    }
    st.relayout();
}

/// Today's date in a time zone (the browser's when none is given), as the browser's
/// own time-zone database gives it; a name it does not know counts in UTC, as on the
/// server.
pub fn today_in(tz: Option<&str>) -> Date {
    use wasm_bindgen::JsCast;
    let opts = js_sys::Object::new();
    if let Some(tz) = tz {
        let _ = js_sys::Reflect::set(&opts, &"timeZone".into(), &tz.into());
    }
    let locales = js_sys::Array::of1(&"en-CA".into());
    // Constructed through Reflect: an unknown zone throws a RangeError, which must be
    // caught here rather than abort the view.
    let ctor: js_sys::Function =
        js_sys::Intl::DateTimeFormat::new(&locales, &js_sys::Object::new()).constructor();
    let made = js_sys::Reflect::construct(&ctor, &js_sys::Array::of2(&locales, &opts))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Intl::DateTimeFormat>().ok());
    let Some(fmt) = made else {
        return if tz.is_some() {
            today_in(Some("UTC"))
        } else {
            Date::from_days(0)
        };
    };
    let text = fmt
        .format()
        .call1(&fmt, &js_sys::Date::new_0())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    text.parse::<Date>().unwrap_or_else(|_| {
        let days = (js_sys::Date::now() / 86_400_000.0).floor() as i32;
        Date::from_days(days)
    })
}

/// A tool result (show_schedule, what_if or diff_versions).
fn on_result(st: St, result: Value) {
    st.card.update(|c| c.on_result(result.clone()));
    let reply = Reply::from_result(&result);
    if reply.is_error {
        return; // the card shows the refusal's words
    }
    // The three tools that show the view answer the model's types.
    let Ok(answer) = serde_json::from_value::<Answer>(reply.structured.clone()) else {
        return;
    };
    let (id, shown, view, changes, sides) = match answer {
        Answer::Proposal(p) => (
            p.schedule_id,
            Shown::Proposal {
                rank: p.rank,
                commands: Value::Array(p.commands),
                acceptable: p.acceptable,
                refused: p.refused.is_some(),
            },
            None,
            Some(p.diff.changes),
            (None, None),
        ),
        Answer::Comparison(c) => (
            c.schedule_id,
            Shown::Comparison,
            None,
            Some(c.diff.changes),
            (c.from.version, c.to.version),
        ),
        Answer::View(v) => (
            v.schedule_id,
            match v.view {
                wire::ViewKind::Gantt => Shown::Gantt,
                wire::ViewKind::Kanban => Shown::Kanban,
                wire::ViewKind::Agenda => Shown::Agenda,
            },
            Some(v),
            None,
            (None, None),
        ),
    };
    // Help opens the server's page through the host, when the server has an address.
    let meta = wire::ResultMeta::read(&reply.meta);
    st.help.set(meta.help_url);
    // Proposals and comparisons open with no options, read-only.
    st.options
        .set(view.as_ref().map(|v| v.options.clone()).unwrap_or_default());
    st.read_only.set(view.as_ref().is_none_or(|v| v.read_only));
    st.shown_at.set(view.as_ref().map(|v| v.shown_at.clone()));
    st.changes.set(changes);
    st.sides.set(sides);
    // Under a before/after, the person reads the change list, not the model's way to
    // accept it (the server gives it apart, in `_meta`).
    st.reply_text
        .set(meta.person_text.unwrap_or_else(|| reply.text.clone()));
    st.shown.set(Some(shown));
    if let Some(zoom) = view
        .as_ref()
        .and_then(|v| v.options.zoom.as_deref())
        .and_then(Zoom::named)
    {
        st.zoom.set(Some(zoom));
    }
    load(st, id);
}

// ---------------------------------------------------------------------------------
// Loading

/// Loads the schedule page by page: page 0 is drawn at once, the rest follows.
pub fn load(st: St, id: i64) {
    st.load_error.set(None);
    let window = st.options.with_untracked(|o| match (o.from, o.to) {
        (Some(f), Some(t)) => Some(json!({ "from": f, "to": t })),
        _ => None,
    });
    let refresh = st
        .doc
        .with_untracked(|d| d.as_ref().is_some_and(|d| d.complete && d.id == id));
    // A comparison draws its "to" side (a version, or the schedule now).
    let version = match st.shown.get_untracked() {
        Some(Shown::Comparison) => st.sides.get_untracked().1,
        _ => None,
    };
    let l = Load {
        id,
        version,
        target: Target::Main,
        refresh,
    };
    let asked = page_args(l, 0, window.as_ref());
    let early = EARLY
        .with(|e| e.borrow_mut().take())
        .filter(|(args, _)| *args == asked);
    let read = EARLY_READ.with(|r| r.borrow_mut().take());
    match (early, read) {
        // Read while the tool ran: the first screen is drawn from it now.
        (Some((_, ahead)), Some(Some(asm))) => {
            crate::sig::soon(move || page_added(st, l, 0, window, asm, ahead));
        }
        // Not answered yet: the reading takes the answer over from `ask_early`.
        (Some((_, ahead)), None) => {
            let waits = Rc::clone(&ahead);
            // A failed early answer (a host that held the call past its deadline, or
            // refused calls before the result) is dropped: page 0 is asked for again.
            let next: PageNext = Box::new(move |r| match r {
                Ok(reply) if !reply.is_error => {
                    read_page(st, l, 0, window, None, waits, Ok(reply));
                }
                _ => start_reading(st, l, window),
            });
            when_answered(&ahead, 0, next);
        }
        // Nothing asked early, another page 0 asked, or an early answer that failed or
        // did not read: page 0 is asked for (again).
        _ => start_reading(st, l, window),
    }
}

thread_local! {
    /// Page 0 asked for on the tool's input (its arguments, and its answer once in).
    static EARLY: RefCell<Option<(Value, Rc<RefCell<Ahead>>)>> = const { RefCell::new(None) };
    /// That page 0 once answered: read (`Some(Some(_))`), or failed (`Some(None)`).
    static EARLY_READ: RefCell<Option<Option<Assembly>>> = const { RefCell::new(None) };
}

/// The tool's input comes before its result, while the tool runs: when the host says
/// the tool is show_schedule and the input names the schedule by its id, page 0 is
/// asked for now and read as it comes, and `load` draws the first screen from it when
/// the result asks for that very page (same schedule and window; otherwise it is
/// dropped). At 100,000 bars that page then travels, and is read, while the tool runs,
/// not after its result.
fn ask_early(st: St, args: &Value) {
    let named = host::with_bridge(|b| {
        b.context()
            .pointer("/toolInfo/tool/name")
            .and_then(Value::as_str)
            == Some("show_schedule")
    });
    // After a result (a host that sent the input late), `load` has asked already.
    let late = st.shown.with_untracked(Option::is_some);
    let Some(id) = args
        .get("schedule")
        .and_then(Value::as_i64)
        .filter(|_| named && !late)
    else {
        return;
    };
    let window = match (
        args.get("from").and_then(Value::as_str),
        args.get("to").and_then(Value::as_str),
    ) {
        (Some(from), Some(to)) => Some(json!({ "from": from, "to": to })),
        _ => None,
    };
    let l = Load {
        id,
        version: None,
        target: Target::Main,
        refresh: false,
    };
    let ahead = Rc::new(RefCell::new(Ahead::default()));
    ask_ahead(st, l, 0, window.as_ref(), &ahead);
    EARLY_READ.with(|r| r.borrow_mut().take());
    // Read as it comes, while the tool still runs, so that the result finds it read
    // (unless `load` took the answer over first): at 10,000 bars the result waited
    // ~30 ms for that reading, in the translation.
    when_answered(
        &ahead,
        0,
        Box::new(move |r| {
            let read = read_early(id, r);
            host::mark(
                "earlyRead",
                &wasm_bindgen::JsValue::from_bool(read.is_some()),
            );
            EARLY_READ.with(|e| *e.borrow_mut() = Some(read));
        }),
    );
    EARLY.with(|e| *e.borrow_mut() = Some((page_args(l, 0, window.as_ref()), ahead)));
}

/// How often, at most, a schedule still arriving is drawn again (ms).
const PARTIAL_EVERY_MS: f64 = 1_500.0;

thread_local! {
    static NEXT_PARTIAL: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    /// When the reading drawn began (its page 0 added), for its pace.
    static READING_SINCE: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Whether a schedule still arriving is drawn again now, after its first screen: not
/// before `next` (see `page_added`), and only while what is left would take, at the
/// pace read so far since `since`, at least the time between two such drawings. A
/// drawing copies, sorts and lays out everything read (a 60,000-bar one took 0.4-0.9 s
/// of a 2.5 s reading on a slow machine, the reading's own pages read slower beside
/// it): when the whole is that close, it comes sooner without one. `progress` is
/// (pages read, pages in all), no count yet being 0.
fn partial_due(now: f64, next: f64, since: f64, progress: (usize, usize)) -> bool {
    let (read, total) = progress;
    if now < next {
        return false;
    }
    if read == 0 || total <= read {
        return true;
    }
    let left = (now - since) * (total - read) as f64 / read as f64;
    left >= PARTIAL_EVERY_MS
}

/// Where a set of pages goes once read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The schedule drawn.
    Main,
    /// The "before" of a comparison.
    Before,
    /// The baseline version drawn as shadows.
    Reference,
}

/// What to read page by page.
#[derive(Clone, Copy, Debug)]
struct Load {
    id: i64,
    /// A saved version, or None for the schedule as it is now.
    version: Option<i64>,
    target: Target,
    /// Keep drawing the current state until the new one is whole.
    refresh: bool,
}

/// How many pages are asked for ahead of the one being read: the host's, the
/// transport's and the server's time for one page then passes while the view reads
/// another (one at a time, a 100,000-bar schedule's 160 pages took one round trip
/// each on top of their reading).
const PAGES_AHEAD: usize = 3;

/// The answers of the pages asked for ahead, for one reading of a schedule.
#[derive(Default)]
struct Ahead {
    /// Every page asked for in this reading.
    asked: std::collections::BTreeSet<usize>,
    /// Answers that came before the reading reached their page.
    arrived: std::collections::BTreeMap<usize, Result<Reply, CallError>>,
    /// The reading, waiting for this page's answer.
    waiting: Option<(usize, PageNext)>,
}

type PageNext = Box<dyn FnOnce(Result<Reply, CallError>)>;

fn page_args(l: Load, page: usize, window: Option<&Value>) -> Value {
    let mut args = json!({ "schedule": l.id, "page": page });
    // Several pages to an answer, compressed, where the page can unpack them: the host
    // and the browser then copy about a quarter of the characters, in a quarter of the
    // answers.
    if host::can_unpack() {
        args["packed"] = json!(true);
    }
    if let Some(w) = window {
        args["window"] = w.clone();
    }
    if let Some(v) = l.version {
        args["version"] = json!(v);
    }
    args
}

/// Starts a reading (or starts it again at a new rank): page 0 asked for, through the
/// reading's own `Ahead` as every page after it.
fn start_reading(st: St, l: Load, window: Option<Value>) {
    let ahead = Rc::new(RefCell::new(Ahead::default()));
    ask_ahead(st, l, 0, window.as_ref(), &ahead);
    let waits = Rc::clone(&ahead);
    when_answered(
        &ahead,
        0,
        Box::new(move |r| read_page(st, l, 0, window, None, waits, r)),
    );
}

/// Asks for `page` ahead, unless it was asked for already in this reading.
fn ask_ahead(st: St, l: Load, page: usize, window: Option<&Value>, ahead: &Rc<RefCell<Ahead>>) {
    if !ahead.borrow_mut().asked.insert(page) {
        return;
    }
    let ahead = Rc::clone(ahead);
    let window = window.cloned();
    st.call(
        "get_schedule_page",
        page_args(l, page, window.as_ref()),
        move |r| {
            // Page 0 of packed pages answered before the server packed them gives no count,
            // so only page 1 was asked for after it; page 1's answer gives it, and the pages
            // after it are asked for as it arrives rather than once it is read: reading
            // it and drawing what it brings took 0.1-0.3 s at 100,000 bars, the next
            // answers waiting for their request meanwhile.
            if page == 1
                && let Ok(reply) = &r
                && let Ok(head) =
                    <wire::PageHead as serde::Deserialize>::deserialize(&reply.structured)
                && let Some(n) = head.pages
            {
                for q in 2..n.min(2 + PAGES_AHEAD) {
                    ask_ahead(st, l, q, window.as_ref(), &ahead);
                }
            }
            // A packed answer is handed on once unpacked.
            let held = r
                .as_ref()
                .ok()
                .and_then(|reply| records_ref(&reply.structured));
            crate::data::when_ready(held, move || answered(&ahead, page, r));
        },
    );
}

/// The answer of `page`, to the reading if it waits for it, kept for it otherwise.
fn answered(ahead: &Rc<RefCell<Ahead>>, page: usize, r: Result<Reply, CallError>) {
    let mut a = ahead.borrow_mut();
    match a.waiting.take() {
        Some((p, next)) if p == page => {
            drop(a);
            next(r);
        }
        other => {
            a.waiting = other;
            a.arrived.insert(page, r);
        }
    }
}

/// Reads `page` once its answer is in: at once if it came already (in a task of its
/// own, so that the browser can paint between pages), or when it comes.
fn when_answered(ahead: &Rc<RefCell<Ahead>>, page: usize, next: PageNext) {
    let mut a = ahead.borrow_mut();
    match a.arrived.remove(&page) {
        Some(r) => crate::sig::soon(move || next(r)),
        None => a.waiting = Some((page, next)),
    }
}

/// A page's answer: checked against the reading, then its records read.
fn read_page(
    st: St,
    l: Load,
    page: usize,
    window: Option<Value>,
    asm: Option<Assembly>,
    ahead: Rc<RefCell<Ahead>>,
    r: Result<Reply, CallError>,
) {
    host::trace("page");
    let id = l.id;
    let reply = match r {
        Ok(reply) if !reply.is_error => reply,
        Ok(reply) => {
            st.load_error.set(Some(reply.text));
            return;
        }
        Err(e) => {
            st.load_error.set(Some(st.failure("get_schedule_page", &e)));
            return;
        }
    };
    match open_answer(id, asm, reply) {
        Ok(Some((asm, parts))) => {
            let arrived = Arrived {
                parts,
                at: 0,
                ahead,
            };
            absorb_parts(st, l, page, window, asm, arrived);
        }
        // The schedule changed while paging: start again at its new rank (the pages
        // asked for ahead at the old one are dropped as they come).
        Ok(None) => start_reading(st, l, window),
        Err(e) => st.load_error.set(Some(e)),
    }
}

/// Opens a page's answer: checked against the reading's assembly (`asm`, none for page
/// 0), the analysis kept (it comes with the last page), its records' texts taken out
/// (none for a duplicate answer). None when the answer is of another rank than the
/// reading's.
fn open_answer(
    id: i64,
    asm: Option<Assembly>,
    reply: Reply,
) -> Result<Option<(Assembly, Vec<String>)>, String> {
    let rank = <wire::PageHead as serde::Deserialize>::deserialize(&reply.structured)
        .map_or(0, |h| h.rank);
    let mut asm = match asm {
        Some(a) if a.rank == rank => a,
        Some(_) => return Ok(None),
        None => Assembly::new(id, rank),
    };
    let mut structured = reply.structured;
    if let Some(a) = structured.get_mut("analysis").map(Value::take) {
        asm.analysis = Some(a);
    }
    let parts = match asm.check(&structured)? {
        Some(_) => take_record_parts(&mut structured)?,
        // Already in (a duplicate answer): nothing to read.
        None => Vec::new(),
    };
    Ok(Some((asm, parts)))
}

/// Reads one part of a page's records into the assembly.
fn read_part(asm: &mut Assembly, part: &str) -> Result<(), String> {
    host::trace("part");
    read_records_with(part, |r| asm.absorb_one(r))?;
    host::trace("part read");
    Ok(())
}

/// Page 0's answer read whole into a new assembly, as it comes on the tool's input (see
/// `ask_early`); none when it cannot be (the reading then asks for it again).
fn read_early(id: i64, r: Result<Reply, CallError>) -> Option<Assembly> {
    host::trace("page");
    let reply = r.ok().filter(|reply| !reply.is_error)?;
    let Ok(Some((mut asm, parts))) = open_answer(id, None, reply) else {
        return None;
    };
    for part in &parts {
        read_part(&mut asm, part).ok()?;
    }
    if !parts.is_empty() {
        asm.finish(0).ok()?;
    }
    Some(asm)
}

/// A page's records' texts while they are read (up to `at`), with the reading's pages
/// asked for ahead.
struct Arrived {
    parts: Vec<String>,
    at: usize,
    ahead: Rc<RefCell<Ahead>>,
}

/// Reads a page's records part by part: page 0 (the first screen) at once, the others a
/// part per task, so that a page never holds the browser (and scrolling) for long.
fn absorb_parts(
    st: St,
    l: Load,
    page: usize,
    window: Option<Value>,
    mut asm: Assembly,
    mut arrived: Arrived,
) {
    while arrived.at < arrived.parts.len() {
        let part = std::mem::take(&mut arrived.parts[arrived.at]);
        if let Err(e) = read_part(&mut asm, &part) {
            st.load_error.set(Some(e));
            return;
        }
        arrived.at += 1;
        if page > 0 && arrived.at < arrived.parts.len() {
            crate::sig::soon(move || absorb_parts(st, l, page, window, asm, arrived));
            return;
        }
    }
    if !arrived.parts.is_empty()
        && let Err(e) = asm.finish(page)
    {
        st.load_error.set(Some(e));
        return;
    }
    page_added(st, l, page, window, asm, arrived.ahead);
}

/// What follows a page once read: the schedule drawn (whole, or partial now and then)
/// and the next page asked for.
fn page_added(
    st: St,
    l: Load,
    page: usize,
    window: Option<Value>,
    mut asm: Assembly,
    ahead: Rc<RefCell<Ahead>>,
) {
    let (id, rank) = (l.id, asm.rank);
    // Only the schedule drawn shows while it loads; the other sides appear whole.
    let refresh = l.refresh || l.target != Target::Main;
    host::trace("added");
    let next = asm.next_page();
    let complete = asm.complete();
    let progress = asm.progress();
    let cut = asm.cut_items();
    // The server's analysis, when the last page brought one.
    let sent = if complete { asm.analysis.take() } else { None };
    if complete && page > 0 {
        // The whole schedule, in three tasks rather than one (~60 ms at 10,000 bars):
        // sorted and joined, analysed (unless the server sent the analysis with the
        // last page), then indexed and laid out, so that scrolling while it completes
        // misses fewer frames.
        let s = std::mem::replace(&mut asm, Assembly::new(id, rank)).into_schedule();
        host::trace("settled");
        crate::sig::soon(move || {
            let a = Analysis::sent_or_own(sent, &s);
            host::trace("analysed");
            crate::sig::soon(move || {
                let doc = Doc::with(id, rank, s, Some(a), progress, cut);
                completed(st, l, doc);
            });
        });
        return;
    }
    if page > 0 && next.is_some() {
        // The next pages are asked for before any drawing below, so that their answers
        // travel while it runs: asked after it, page 4's answer came ~0.3 s after
        // page 3's at 100,000 bars (strict), the reading waiting for it.
        for q in asm.missing_pages().take(PAGES_AHEAD) {
            ask_ahead(st, l, q, window.as_ref(), &ahead);
        }
    }
    if complete {
        let s = std::mem::replace(&mut asm, Assembly::new(id, rank)).into_schedule();
        let a = Analysis::sent_or_own(sent, &s);
        completed(st, l, Doc::with(id, rank, s, Some(a), progress, cut));
    } else if !refresh
        && (page <= 1
            || partial_due(
                host::now(),
                NEXT_PARTIAL.with(std::cell::Cell::get),
                READING_SINCE.with(std::cell::Cell::get),
                progress,
            ))
    {
        // The first two pages are drawn at once (page 0 is small: the top of the
        // first screen, page 1 the rest of it); later ones now and then, since drawing a
        // partial schedule costs its size (a copy and the indexes): at most every
        // 1.5 s, never more than a fifth of the time, and not when the rest is near.
        let started = host::now();
        if page == 0 {
            READING_SINCE.with(|t| t.set(started));
        }
        set_doc(
            st,
            Doc::new(id, rank, asm.schedule().clone(), false, progress, cut),
        );
        let cost = host::now() - started;
        NEXT_PARTIAL.with(|t| t.set(host::now() + PARTIAL_EVERY_MS.max(4.0 * cost)));
    }
    if page == 0 && !refresh {
        // The first screen is drawn in this task, so that the coming frame paints it
        // (waiting for that frame to draw it cost ~8 ms on average).
        crate::sig::draw_now();
    }
    if let Some(p) = next {
        // The next pages are asked for ahead, and the next one read when it is in, in
        // a task of its own (the browser paints and scrolls between pages). After
        // page 0, only once the first screen is painted (the drawing runs in the coming
        // frame, this task after it), so reading page 1 never delays that paint.
        let fetch = move || {
            for q in asm.missing_pages().take(PAGES_AHEAD) {
                ask_ahead(st, l, q, window.as_ref(), &ahead);
            }
            let waits = Rc::clone(&ahead);
            let next: PageNext =
                Box::new(move |r| read_page(st, l, p, window, Some(asm), waits, r));
            when_answered(&ahead, p, next);
        };
        if page == 0 {
            crate::sig::request_animation_frame(fetch);
        } else {
            fetch();
        }
    }
}

/// The whole schedule in: drawn (or kept as the other side, or as the baseline).
fn completed(st: St, l: Load, doc: Doc) {
    match l.target {
        Target::Main => {
            set_doc(st, doc);
            loaded(st);
        }
        Target::Before => {
            st.before.set(Some(Arc::new(doc)));
            st.relayout();
        }
        Target::Reference => st.reference.set(Some(Arc::new(doc))),
    }
}

pub fn set_doc(st: St, doc: Doc) {
    host::trace("doc");
    let (id, complete) = (doc.id, doc.complete);
    // "Today" for this schedule: the date in its zone, as the server counts it.
    let zone_changed = st.doc.with_untracked(|d| {
        d.as_ref()
            .is_none_or(|d| d.s.settings.time_zone != doc.s.settings.time_zone)
    });
    if zone_changed {
        let today = today_in(Some(&doc.s.settings.time_zone));
        if st.today.get_untracked() != today {
            st.today.set(today);
        }
    }
    st.doc.set(Some(Arc::new(doc)));
    if complete && st.shown.get_untracked() == Some(Shown::Agenda) {
        crate::boards::fetch_agenda(st, id);
    }
    st.relayout();
    host::trace("laid out");
    crate::gantt::update_model_context(st);
}

/// Once the whole schedule is in: the before/after's two states. The "after" is the
/// schedule with the tool result's changes drawn in (dates, new and removed bars and
/// milestones); the "before" is the schedule as it is, drawn as the shadow.
fn loaded(st: St) {
    let Some(doc) = st.doc.get_untracked() else {
        return;
    };
    let shown = st.shown.get_untracked();
    // The baseline, once per view.
    if let Some(vid) = st
        .options
        .with_untracked(|o| o.reference.as_ref().map(|r| r.id))
        && st.reference.with_untracked(Option::is_none)
    {
        start_reading(
            st,
            Load {
                id: doc.id,
                version: Some(vid),
                target: Target::Reference,
                refresh: true,
            },
            None,
        );
    }
    if st.before.with_untracked(Option::is_some) {
        return;
    }
    match shown {
        Some(Shown::Comparison) => {
            // The "from" side, drawn as the shadow of the "to" side shown.
            let from = st.sides.get_untracked().0;
            start_reading(
                st,
                Load {
                    id: doc.id,
                    version: from,
                    target: Target::Before,
                    refresh: true,
                },
                None,
            );
        }
        Some(Shown::Proposal { rank, .. }) => {
            if doc.rank != rank {
                st.proposal_done.set(Some(
                    st.tr(texts::OUT_OF_DATE_FR, texts::OUT_OF_DATE_EN).into(),
                ));
            }
            let changes = st.changes.get_untracked().unwrap_or_default();
            let mut after = doc.s.clone();
            for c in &changes.items {
                draw_change(&mut after, &c.change);
            }
            st.before.set(Some(Arc::clone(&doc)));
            st.doc.set(Some(Arc::new(Doc::new(
                doc.id,
                doc.rank,
                after,
                true,
                doc.progress,
                0,
            ))));
            st.relayout();
        }
        _ => {}
    }
}

/// Whether the chart can draw every change of the result (the structured list is
/// capped; a longer one is summed up in the text only).
pub fn all_changes_drawn(st: St) -> bool {
    st.changes
        .with(|c| c.as_ref().is_none_or(wire::Listed::whole))
}

/// Applies one change of a diff (the model's `diff::Change`) to the drawing.
pub fn draw_change(s: &mut Schedule, c: &Change) {
    match c {
        Change::BarMoved {
            bar,
            new_start,
            new_end,
            ..
        } => {
            if let Some(b) = bar_mut(s, bar.0) {
                (b.start, b.end) = (*new_start, *new_end);
            }
        }
        Change::BarRenamed { bar, new_label, .. } => {
            if let Some(b) = bar_mut(s, bar.0) {
                b.label = new_label.clone();
            }
        }
        Change::BarRowChanged { bar, new_row, .. } => {
            if let Some(b) = bar_mut(s, bar.0) {
                b.row = *new_row;
            }
        }
        Change::BarAdded {
            bar,
            label,
            row,
            start,
            end,
            ..
        } => {
            let bar = Bar::new(*bar, *row, label.clone(), *start, *end);
            if let Err(at) = s.bars.binary_search_by_key(&bar.id, |b| b.id) {
                s.bars.insert(at, bar);
            }
        }
        Change::BarRemoved { bar, .. } => {
            s.bars.retain(|b| b.id != *bar);
        }
        Change::MilestoneMoved {
            milestone,
            new_date,
            ..
        } => {
            if let Ok(k) = s.milestones.binary_search_by_key(milestone, |m| m.id) {
                s.milestones[k].date = *new_date;
            }
        }
        Change::MilestoneAdded {
            milestone,
            label,
            row,
            date,
            ..
        } => {
            let m = Milestone::new(*milestone, *row, label.clone(), *date);
            if let Err(at) = s.milestones.binary_search_by_key(&m.id, |m| m.id) {
                s.milestones.insert(at, m);
            }
        }
        Change::MilestoneRemoved { milestone, .. } => {
            s.milestones.retain(|m| m.id != *milestone);
        }
        _ => {}
    }
}

fn bar_mut(s: &mut Schedule, id: u64) -> Option<&mut Bar> {
    let k = s.bars.binary_search_by_key(&BarId(id), |b| b.id).ok()?;
    s.bars.get_mut(k)
}

// ---------------------------------------------------------------------------------
// Writes

/// Calls a writing tool for a gesture, then catches up with the journal. A refusal
/// shows in the status line; the drawing stays what the server says.
pub fn write(st: St, tool: &'static str, args: Value) {
    write_expecting(st, tool, args, None);
}

/// [`write`] of a gesture whose cascade was previewed: `cascade` lists the ids the
/// preview moved, and an answer whose cascade moved others says so (someone may have
/// written in between), rather than letting the chart change unannounced.
pub fn write_expecting(st: St, tool: &'static str, args: Value, cascade: Option<Vec<u64>>) {
    write_then(st, tool, args, cascade, || {});
}

/// [`write_expecting`], and `failed` when the write fails: what a gesture drew ahead
/// of the write is taken away then (on success the written state replaces it).
pub fn write_then(
    st: St,
    tool: &'static str,
    args: Value,
    cascade: Option<Vec<u64>>,
    failed: impl FnOnce() + 'static,
) {
    write_and(st, tool, args, cascade, failed, || {});
}

/// [`write_then`], and `done` once the write succeeded (a bar just drawn is then
/// renamed, when the written state brings it).
pub fn write_and(
    st: St,
    tool: &'static str,
    mut args: Value,
    cascade: Option<Vec<u64>>,
    failed: impl FnOnce() + 'static,
    done: impl FnOnce() + 'static,
) {
    let Some(doc) = st.doc.get_untracked() else {
        return;
    };
    args["schedule"] = json!(doc.id);
    st.notice
        .set(Notice::Busy(st.tr("Enregistrement…", "Saving…").into()));
    st.call(tool, args, move |r| match r {
        Ok(reply) if !reply.is_error => {
            // The server's words for the person (no ids, no rank), else the first line
            // of the model's.
            let mut line = wire::ResultMeta::read(&reply.meta)
                .person_text
                .unwrap_or_else(|| reply.text.lines().next().unwrap_or_default().to_owned());
            if let Some(want) = cascade {
                // The write's answer names what its cascade moved (the model's type).
                let c = reply
                    .structured
                    .get("cascade")
                    .and_then(|c| wire::CascadeSummary::deserialize(c).ok());
                let mut got: Vec<u64> = c
                    .map(|c| c.bars.into_iter().chain(c.milestones).collect())
                    .unwrap_or_default();
                got.sort_unstable();
                if got != want {
                    line.push_str(st.tr(
                        " (la cascade a décalé d'autres éléments que l'aperçu\u{a0}: le planning avait changé entre-temps)",
                        " (the cascade moved other items than the preview: the schedule had changed in between)",
                    ));
                }
            }
            st.notice.set(Notice::Ok(line));
            done();
            poll_now(st);
        }
        Ok(reply) => {
            failed();
            // Why, in the person's words (a lock by the bar's label, not "Command 1").
            st.notice.set(Notice::Error(reply.person_words()));
            poll_now(st);
        }
        Err(e) => {
            failed();
            st.notice.set(Notice::Error(st.failure(tool, &e)));
        }
    });
}

/// Accept: `apply_patch` with the simulation's commands at its rank, on this schedule.
pub fn accept(st: St) {
    let (
        Some(Shown::Proposal {
            rank,
            commands,
            acceptable,
            ..
        }),
        Some(doc),
    ) = (st.shown.get_untracked(), st.doc.get_untracked())
    else {
        return;
    };
    if !acceptable || !all_changes_drawn(st) {
        return;
    }
    st.notice
        .set(Notice::Busy(st.tr("Application…", "Applying…").into()));
    // The proposal's commands are final: a cascade simulated is in them, and one
    // declined must not be added by the schedule's setting.
    let args = json!({ "schedule": doc.id, "commands": commands, "expected_rank": rank, "cascade": false });
    st.call("apply_patch", args, move |r| match r {
        Ok(reply) if !reply.is_error => {
            st.notice.set(Notice::None);
            st.proposal_done.set(Some(
                st.tr("Proposition appliquée.", "Proposal applied.").into(),
            ));
        }
        Ok(reply) => {
            // By its code only: a refusal's text can say « rangée » or "rank" for
            // other reasons.
            let stale = matches!(reply.error_code(), Some("conflict" | "out_of_date"));
            st.notice.set(Notice::None);
            if stale {
                st.proposal_done.set(Some(
                    st.tr(texts::OUT_OF_DATE_FR, texts::OUT_OF_DATE_EN).into(),
                ));
            } else {
                st.notice.set(Notice::Error(reply.person_words()));
            }
        }
        Err(e) => st.notice.set(Notice::Error(st.failure("apply_patch", &e))),
    });
}

// ---------------------------------------------------------------------------------
// Live updates

/// The pace of polling: 2 s after a change, slower while nothing moves, 15 s at most.
pub fn poll_delay_ms(idle_polls: u32) -> u32 {
    let mut d = 2_000u32;
    for _ in 0..idle_polls.min(10) {
        d = d.saturating_mul(3) / 2;
    }
    d.min(15_000)
}

fn start_polling(st: St) {
    fn schedule_next(st: St) {
        let delay = poll_delay_ms(st.idle_polls.get_untracked());
        set_timeout(
            move || {
                if st.hidden.get_untracked() || st.withdrawn.get_untracked() {
                    // Hidden: no polling; visibility brings it back.
                    return;
                }
                poll_once(st, move || schedule_next(st));
            },
            Duration::from_millis(u64::from(delay)),
        );
    }
    RESUME.with(|r| {
        *r.borrow_mut() = Some(std::rc::Rc::new(move || {
            st.idle_polls.set(0);
            poll_once(st, move || schedule_next(st));
        }))
    });
    resume_polling();
}

thread_local! {
    static RESUME: std::cell::RefCell<Option<std::rc::Rc<dyn Fn()>>> = const { std::cell::RefCell::new(None) };
}

/// Starts the polling loop again (when the frame shows).
fn resume_polling() {
    let f = RESUME.with(|r| r.borrow().clone());
    if let Some(f) = f {
        f();
    }
}

fn poll_now(st: St) {
    st.idle_polls.set(0);
    poll_once(st, || {});
}

/// The server pushed `rank`: reads the changes if the drawing is behind it, one read
/// at a time (a push during a read makes one more read after it, up to the highest rank
/// pushed; a refused read is not retried in a loop).
fn catch_up(st: St, rank: i64) {
    thread_local! {
        static WANTED: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
        static READING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        static AGAIN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        static MISSES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    use std::cell::Cell;
    let wanted = WANTED.with(|w| {
        w.set(w.get().max(rank));
        w.get()
    });
    let behind = st.doc.with_untracked(|d| match d {
        Some(d) => d.rank < wanted,
        None => true,
    });
    if !behind {
        MISSES.with(|m| m.set(0));
        return;
    }
    // Not yet readable (no schedule yet, still loading, or a before/after on screen):
    // asked again shortly, so a rank pushed meanwhile is not dropped.
    let readable = st
        .doc
        .with_untracked(|d| d.as_ref().is_some_and(|d| d.complete))
        && st.before.with_untracked(Option::is_none);
    if !readable {
        set_timeout(move || catch_up(st, 0), Duration::from_millis(1000));
        return;
    }
    if READING.with(|r| r.replace(true)) {
        AGAIN.with(|a| a.set(true));
        return;
    }
    poll_once(st, move || {
        READING.with(|r| r.set(false));
        let still = st
            .doc
            .with_untracked(|d| d.as_ref().is_some_and(|d| d.rank < WANTED.with(Cell::get)));
        if AGAIN.with(|a| a.replace(false)) {
            catch_up(st, 0);
        } else if still && MISSES.with(|m| m.replace(m.get() + 1)) < 5 {
            // A read that failed (a dropped connection): again, a little later each time;
            // five in a row and the next push (or the stream's fallback) takes over.
            let wait = 1000 * (1 << MISSES.with(Cell::get).min(5));
            set_timeout(move || catch_up(st, 0), Duration::from_millis(wait));
        }
    });
}

fn poll_once(st: St, then: impl FnOnce() + 'static) {
    let Some(doc) = st.doc.get_untracked() else {
        then();
        return;
    };
    if !doc.complete || st.before.get_untracked().is_some() {
        // A before/after is a snapshot; a loading schedule catches up when complete.
        then();
        return;
    }
    // With the records the entries touched: the copy is brought up to date in the size
    // of the change (the model's `delta`), not read again.
    let args = json!({ "schedule": doc.id, "rank": doc.rank, "records": true });
    st.call("get_changes_since", args, move |r| {
        if let Ok(reply) = r
            && !reply.is_error
        {
            let Ok(answer) = serde_json::from_value::<wire::ChangesSince>(reply.structured) else {
                then();
                return;
            };
            // Only a view in a conversation withdraws for a newer one; an /embed page is
            // a browser tab of its own and stays.
            if !st.embed
                && let (Some(mine), Some(latest)) =
                    (st.shown_at.get_untracked(), answer.latest_view.clone())
                && latest > mine
            {
                st.withdrawn.set(true);
                then();
                return;
            }
            if answer.entries.is_empty() {
                st.idle_polls.update(|n| *n = n.saturating_add(1));
            } else if let Some(cur) = st.doc.get_untracked() {
                st.idle_polls.set(0);
                host::trace("changes");
                let applied = apply_changes(&cur, answer);
                host::trace("applied");
                match applied {
                    Some(changed) => draw_changes(st, cur, changed),
                    // No delta (a replaced schedule, too large) or one that does not
                    // fit the copy: read the new state (the drawing stays until it is in).
                    None => load(st, cur.id),
                }
            }
        }
        then();
    });
}

/// Draws a live update: analysed and indexed in a task, then drawn (and laid out) in
/// another, since at 100,000 bars each step, like applying the delta before, takes 20
/// to 30 ms as JavaScript.
fn draw_changes(st: St, cur: Arc<Doc>, changed: Changed) {
    set_timeout(
        move || {
            let (doc, caught_up) = changed.into_doc();
            host::trace("indexed");
            set_timeout(
                move || {
                    // Another document drawn meanwhile (a reload, another answer): this
                    // one is stale; ask again from that one's rank.
                    let same = st
                        .doc
                        .get_untracked()
                        .is_some_and(|d| Arc::ptr_eq(&d, &cur));
                    if !same {
                        poll_now(st);
                        return;
                    }
                    set_doc(st, doc);
                    if !caught_up {
                        // More entries, or a state read past them: ask again now.
                        poll_now(st);
                    }
                },
                Duration::from_millis(0),
            );
        },
        Duration::from_millis(0),
    );
}

/// A copy of the drawn schedule brought up to date with a delta, not yet analysed and
/// indexed: those come in a task of their own (`into_doc`), since at 100,000 bars each
/// half takes some 30 ms as JavaScript.
#[derive(Debug)]
pub struct Changed {
    id: i64,
    rank: i64,
    s: Schedule,
    /// The server's analysis of the new state, when it sent one and the copy is that
    /// state.
    analysis: Option<Value>,
    /// The drawn document's analysis, kept while the copy lags behind the state the
    /// server analysed (the next answer, asked for at once, brings the rest).
    previous: Option<Analysis>,
    progress: (usize, usize),
    /// Whether the copy reached the schedule's current rank.
    caught_up: bool,
}

impl Changed {
    /// The new document, analysed (the server's analysis when it fits the copy, the
    /// previous one while the copy lags, else the view's own), and whether it reached
    /// the schedule's current rank.
    pub fn into_doc(self) -> (Doc, bool) {
        // `previous` is there only when `analysis` is not.
        let analysis = self
            .previous
            .unwrap_or_else(|| Analysis::sent_or_own(self.analysis, &self.s));
        let doc = Doc::with(self.id, self.rank, self.s, Some(analysis), self.progress, 0);
        (doc, self.caught_up)
    }
}

/// The drawn schedule brought up to date with a `get_changes_since` answer's delta.
/// None when there is no delta or it does not fit the copy.
pub fn apply_changes(cur: &Doc, answer: wire::ChangesSince) -> Option<Changed> {
    if answer.schedule_id != cur.id {
        return None;
    }
    // The delta is the model's, with its records in the pages' record stream.
    let mut d = answer.delta.filter(Value::is_object)?;
    let next = answer.next_since;
    // Read in place: the records beside the head are skipped, not copied.
    let head = <wire::DeltaHead as serde::Deserialize>::deserialize(&d).ok()?;
    let state_rank = head.rank;
    let delta = palmaplan_model::delta::Delta {
        records: crate::data::take_records(&mut d).ok()?,
        removed: head.removed,
        next_id: head.next_id,
    };
    let mut s = cur.s.clone();
    palmaplan_model::delta::apply_delta(&mut s, delta).ok()?;
    let (more, rank) = (answer.more, answer.rank);
    // The delta holds the current state of the items the entries up to `next` touched:
    // when the state read is further on, items touched only later are still old in the
    // copy, and the server's analysis (of the state read) is not the copy's.
    let whole = state_rank == next;
    Some(Changed {
        id: cur.id,
        rank: next,
        s,
        analysis: d.get_mut("analysis").map(Value::take).filter(|_| whole),
        previous: (!whole).then(|| Analysis {
            critical: cur.critical.clone(),
            at_risk: cur.at_risk.clone(),
            violated: cur.violated.clone(),
        }),
        progress: cur.progress,
        caught_up: !more && whole && next == rank,
    })
}

fn watch_visibility(st: St) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let d2 = doc.clone();
    crate::sig::listen::<web_sys::Event>(doc.as_ref(), "visibilitychange", move |_| {
        let hidden = d2.hidden();
        let was = st.hidden.get_untracked();
        st.hidden.set(hidden);
        if was && !hidden {
            // Shown again: catch up at once, then poll at the fast pace.
            resume_polling();
        }
    });
}

/// Reports the content's size to the host when it changes (`size-changed`): a
/// ResizeObserver on the view's root, so nothing forces a layout, and at most one
/// report per animation frame. The root's height follows its content (nothing is 100%
/// high inline), so a report never feeds back into itself.
pub fn watch_size(root: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::Closure;
    thread_local! {
        static LAST: std::cell::Cell<(i32, i32)> = const { std::cell::Cell::new((-1, -1)) };
        static PENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if st().embed {
        return;
    }
    let target = root.clone();
    let cb = Closure::<dyn Fn()>::new(move || {
        if PENDING.with(|p| p.replace(true)) {
            return;
        }
        let target = target.clone();
        crate::sig::request_animation_frame(move || {
            PENDING.with(|p| p.set(false));
            let rect = target.get_bounding_client_rect();
            // The root's own size plus the page margin around it.
            let size = (
                rect.width().ceil() as i32,
                (rect.height() + rect.top().max(0.0) * 2.0).ceil() as i32,
            );
            if LAST.with(|l| l.replace(size)) != size {
                crate::host::notify(
                    "ui/notifications/size-changed",
                    json!({ "width": size.0, "height": size.1 }),
                );
            }
        });
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
        observer.observe(root);
    }
    cb.forget();
}

/// A tool's arguments with the view's language, so the texts the tools return (the
/// change list, a refusal) are in the language of the chrome around them.
fn with_lang(mut args: Value, lang: Lang) -> Value {
    if let Value::Object(map) = &mut args {
        let tag = match lang {
            Lang::Fr => "fr",
            Lang::En => "en",
        };
        map.insert("lang".into(), Value::String(tag.into()));
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_drawing_waits_its_turn_and_is_left_out_when_the_rest_is_near() {
        // Not before its time, however far the end.
        assert!(!partial_due(1_000.0, 1_500.0, 0.0, (2, 100)));
        // 10 of 100 pages in 1 s: 9 s left, drawn.
        assert!(partial_due(1_600.0, 1_500.0, 600.0, (10, 100)));
        // 60 of 100 in 1.5 s: 1 s left, under the 1.5 s between drawings: not drawn.
        assert!(!partial_due(2_100.0, 1_500.0, 600.0, (60, 100)));
        // 50 of 100 in 1.5 s: 1.5 s left, drawn.
        assert!(partial_due(2_100.0, 1_500.0, 600.0, (50, 100)));
        // Before the count is known (0), or nothing read yet: drawn when due.
        assert!(partial_due(2_100.0, 1_500.0, 600.0, (3, 0)));
        assert!(partial_due(2_100.0, 1_500.0, 600.0, (0, 100)));
    }

    #[test]
    fn every_call_says_the_view_s_language() {
        assert_eq!(
            with_lang(json!({"schedule": 1}), Lang::En),
            json!({"schedule": 1, "lang": "en"})
        );
        assert_eq!(
            with_lang(json!({"schedule": 1, "lang": "en"}), Lang::Fr)["lang"],
            "fr"
        );
    }

    #[test]
    fn occupied_rows_are_those_with_something_in_the_window_in_display_order() {
        let s = palmaplan_model::demo::s4hana_migration();
        let d = |t: &str| t.parse::<Date>().unwrap();
        let all = occupied_rows(&s, d("2000-01-01"), d("2100-01-01"));
        let with_items: Vec<RowId> = s
            .rows
            .iter()
            .map(|r| r.id)
            .filter(|r| {
                s.bars.iter().any(|b| b.row == *r) || s.milestones.iter().any(|m| m.row == *r)
            })
            .collect();
        assert_eq!(all, with_items);
        let first = &s.bars[0];
        let some = occupied_rows(&s, first.start, first.start);
        assert!(some.contains(&first.row));
        assert!(some.len() < all.len(), "a one-day window holds fewer rows");
        assert!(occupied_rows(&s, d("1990-01-01"), d("1990-01-31")).is_empty());
    }

    #[test]
    fn drawing_a_proposal_moves_adds_and_removes_bars() {
        let mut s = palmaplan_model::demo::s4hana_migration();
        let (b0, b1) = (s.bars[0].id.0, s.bars[1].id.0);
        let row = s.rows[0].id.0;
        for c in [
            json!({"kind": "bar_moved", "bar": b0, "label": "x", "old_start": "2026-11-02", "old_end": "2026-11-06", "new_start": "2026-11-09", "new_end": "2026-11-13"}),
            json!({"kind": "bar_removed", "bar": b1, "label": "y", "start": "2026-11-02", "end": "2026-11-03"}),
            json!({"kind": "bar_added", "bar": 999, "label": "Nouveau", "row": row, "row_name": "r", "start": "2026-12-01", "end": "2026-12-02"}),
        ] {
            // As the server sends them: the model's own change type.
            let c: Change = serde_json::from_value(c).unwrap();
            draw_change(&mut s, &c);
        }
        let moved = s.bar(BarId(b0)).unwrap();
        assert_eq!(
            (moved.start.to_string(), moved.end.to_string()),
            ("2026-11-09".into(), "2026-11-13".into())
        );
        assert!(s.bar(BarId(b1)).is_none());
        assert_eq!(s.bar(BarId(999)).unwrap().label, "Nouveau");
        assert!(
            s.bars.windows(2).all(|w| w[0].id < w[1].id),
            "still sorted by id"
        );
    }

    #[test]
    fn a_delta_brings_the_drawn_schedule_up_to_date_or_asks_for_the_pages() {
        let s = palmaplan_model::demo::s4hana_migration();
        let doc = Doc::new(7, 3, s.clone(), true, (1, 1), 0);
        let mut moved = s.bars[0].clone();
        moved.start = moved.start.add_days(7);
        moved.end = moved.end.add_days(7);
        let gone = s.bars[1].id.0;
        let answer = |more: bool, delta: Value| -> wire::ChangesSince {
            serde_json::from_value(
                json!({"schedule_id": 7, "rank": 5, "next_since": 5, "more": more,
                   "entries": [{"rank": 4}, {"rank": 5}],
                   "delta": if delta.is_null() { delta } else { crate::data::as_received(delta) }}),
            )
            .unwrap()
        };
        let delta = json!({"records": [{"bar": moved}], "removed": [gone],
                           "next_id": s.next_id, "rank": 5});
        let (new, caught_up) = apply_changes(&doc, answer(false, delta.clone()))
            .unwrap()
            .into_doc();
        assert!(caught_up);
        assert_eq!(new.rank, 5);
        assert_eq!(new.s.bar(moved.id), Some(&moved));
        assert!(new.s.bar(BarId(gone)).is_none());
        assert_eq!(new.s.bars.len(), s.bars.len() - 1);
        // Without the server's analysis, the view's own, of the new state.
        let own = Analysis::of(&new.s);
        assert_eq!(
            (&new.critical, &new.at_risk, &new.violated),
            (&own.critical, &own.at_risk, &own.violated)
        );
        // With it, the server's, as sent (here one that differs from the view's).
        let mut sent = delta.clone();
        sent["analysis"] = json!({"critical": [moved.id.0], "at_risk": [], "violated_links": [3]});
        let (with, _) = apply_changes(&doc, answer(false, sent)).unwrap().into_doc();
        assert_eq!(with.critical, IdSet::from_iter([moved.id]));
        assert!(with.at_risk.is_empty());
        assert_eq!(with.violated, IdSet::from_iter([3]));
        assert!(with.complete);
        // What the server writes (the model's highlights as JSON) reads back whole.
        let synth = palmaplan_model::synth::generate(palmaplan_model::synth::Spec::new(500));
        let sent = Analysis::from_value(&risk::highlights(&synth).to_wire(&synth), &synth).unwrap();
        let own = Analysis::of(&synth);
        assert!(!own.critical.is_empty() && !own.at_risk.is_empty() && !own.violated.is_empty());
        assert_eq!(
            (sent.critical, sent.at_risk, sent.violated),
            (own.critical, own.at_risk, own.violated)
        );
        // Malformed, it is not used.
        let bad = json!({"critical": ["x"], "at_risk": [], "violated_links": []});
        assert!(Analysis::from_value(&bad, &synth).is_none());
        assert!(Analysis::from_value(&json!({"critical": []}), &synth).is_none());
        // More entries to come: applied, and asked again.
        let (_, caught_up) = apply_changes(&doc, answer(true, delta.clone()))
            .unwrap()
            .into_doc();
        assert!(!caught_up);
        // No delta, another schedule's answer, or a delta that does not fit: the pages.
        assert!(apply_changes(&doc, answer(false, Value::Null)).is_none());
        let mut other = answer(false, delta);
        other.schedule_id = 8;
        assert!(apply_changes(&doc, other).is_none());
        let beyond = json!({"records": [{"row": {"index": 999, "id": s.rows[0].id.0,
            "group": s.rows[0].group.0, "name": "x"}}], "next_id": s.next_id, "rank": 5});
        assert!(apply_changes(&doc, answer(false, beyond)).is_none());
    }

    #[test]
    fn the_servers_analysis_is_used_only_over_the_state_it_describes() {
        // Enough bars for the analysis' long lists to travel as bits.
        let s = palmaplan_model::synth::generate(palmaplan_model::synth::Spec::new(300));
        let doc = Doc::new(7, 3, s.clone(), true, (1, 1), 0);
        let mut moved = s.bars[0].clone();
        moved.start = moved.start.add_days(7);
        moved.end = moved.end.add_days(7);
        let gone = s.bars[1].id.0;
        let delta = json!({"records": [{"bar": moved}], "removed": [gone],
                           "next_id": s.next_id, "rank": 5});
        let answer = |delta: Value| -> wire::ChangesSince {
            serde_json::from_value(
                json!({"schedule_id": 7, "rank": 5, "next_since": 5, "more": false,
                   "entries": [{"rank": 4}, {"rank": 5}],
                   "delta": crate::data::as_received(delta)}),
            )
            .unwrap()
        };
        let (new, _) = apply_changes(&doc, answer(delta.clone()))
            .unwrap()
            .into_doc();
        let own = Analysis::of(&new.s);
        // Not every bar is critical, so using the analysis sent shows.
        assert!(own.critical.len() < new.s.bars.len() && doc.critical.len() < s.bars.len() - 1);
        // Every bar critical, as bits over the new state's bars: read as those bars.
        let all = risk::Highlights {
            critical: new.s.bars.iter().map(|b| b.id).collect(),
            ..risk::Highlights::default()
        };
        let mut sent = delta.clone();
        sent["analysis"] = all.to_wire(&new.s);
        assert!(sent["analysis"]["critical"].is_string());
        let (with, caught_up) = apply_changes(&doc, answer(sent.clone()))
            .unwrap()
            .into_doc();
        assert!(caught_up);
        assert_eq!(with.critical, all.critical.iter().copied().collect());
        // Bits written over another state (one bar more) are not misread: the view's
        // own analysis is used.
        sent["analysis"] = all.to_wire(&s);
        let (with, _) = apply_changes(&doc, answer(sent.clone()))
            .unwrap()
            .into_doc();
        assert_eq!(with.critical, own.critical);
        // A state read past the entries applied: the copy lags behind the analysis,
        // which is not used; the drawn one stays until the next answer, asked at once.
        sent["analysis"] = all.to_wire(&new.s);
        sent["rank"] = json!(6);
        let (lag, caught_up) = apply_changes(&doc, answer(sent)).unwrap().into_doc();
        assert!(!caught_up);
        assert_eq!(lag.critical, doc.critical);
    }

    #[test]
    fn the_warm_up_goes_through_every_step() {
        // A page refused, or one whose dates miss the window, would warm nothing up.
        let doc = warm_up_doc().unwrap();
        let s = &doc.s;
        assert_eq!((s.rows.len(), s.bars.len(), s.links.len()), (12, 72, 71));
        palmaplan_model::command::validate_schedule(s).unwrap();
        let (from, to) = (Date::from_days(20_458), Date::from_days(20_458 + 40));
        let rows = occupied_rows(s, from, to);
        let lines = layout::lines(s, &IdSet::default(), Some(&RowFilter::from_rows(rows)));
        let items = layout::visible_items(&doc.index, s, &lines, 0..lines.len(), from, to);
        assert_eq!(items.len(), 72);
    }

    #[test]
    fn polling_slows_down_to_fifteen_seconds() {
        assert_eq!(poll_delay_ms(0), 2_000);
        assert_eq!(poll_delay_ms(1), 3_000);
        assert_eq!(poll_delay_ms(2), 4_500);
        assert!(poll_delay_ms(4) < 15_000);
        assert_eq!(poll_delay_ms(10), 15_000);
        assert_eq!(poll_delay_ms(u32::MAX), 15_000);
    }
}

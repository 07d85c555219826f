//! The card's frame (its parts, events and keys; the shell above the chart is
//! `shell`, what is under it `boards`) and a virtualised Gantt chart whose DOM holds only what the
//! viewport shows: the lines in view (plus a few), the time cells in view, the bars and
//! milestones of those lines in the visible dates, and the links that touch them. The
//! model's `layout` does the math in O(visible); this file only turns it into elements.
//!
//! Gestures (when the role allows): select (click, ↑/↓), move (←/→ one unit,
//! Shift+←/→ a working week, drag), resize (pull an edge), progress (+ and -, by
//! tenths), delete (after a confirmation drawn here), Undo/Redo (Ctrl/Cmd+Z,
//! Shift+Ctrl/Cmd+Z), and direct editing (`edit`): rename (F2, double click), make a
//! bar (drag in an empty row, N), link two bars (pull a dot at an end of the selected
//! bar, or C), select a link (click its arrow, L) and delete it. Each calls the tool the model
//! would call. While dragging, the model previews the new dates and, with automatic
//! scheduling, the successors its cascade moves and the project end it makes (the
//! model's `push::preview`, the function the server's write runs, in the size of what
//! is downstream); with manual scheduling, the links the move would break. An arrow
//! key's move is drawn the same way from the key press until the written state comes.

use edit::Named;
use palmaplan_model::calendar::Calendar;
use palmaplan_model::command::{self, Edge};
use palmaplan_model::fit;
use palmaplan_model::idset::IdSet;
use palmaplan_model::layout::{self, LINE_HEIGHT, LineKind, Timeline, VisibleItem};
use palmaplan_model::{BarId, Date, ItemId, Lang, Schedule, Scheduling, TimeUnit, push, risk};
use serde_json::{Value, json};

use crate::app::{self, Doc, Notice, Shown, St};
use crate::bridge::Kind;
use crate::host;
use crate::html::{H, Html};
use crate::phase::Phase;
use crate::sig::{Sig, listen, on_render, set_timeout};
use crate::texts::tr;

/// Height of the time header.
const HEAD: f64 = 40.0;
/// Lines drawn beyond the viewport on each side.
const OVERSCAN: usize = 2;
/// Inline, the chart shows at most this many lines before it scrolls.
const INLINE_LINES: f64 = 14.0;

/// A bar colour from the data, only if it is a plain hex colour (anything else could
/// name a URL, which the sandbox would refuse and report).
pub fn safe_color(c: Option<&str>) -> Option<String> {
    let c = c?;
    let hex = c.strip_prefix('#')?;
    (matches!(hex.len(), 3 | 6 | 8) && hex.chars().all(|ch| ch.is_ascii_hexdigit()))
        .then(|| c.to_owned())
}

/// The working units a drag of `days` calendar days from `start` stands for.
pub fn drag_units(cal: &Calendar, unit: TimeUnit, start: Date, days: i32) -> i32 {
    let working = cal.diff(start, start.add_days(days));
    let n = match unit {
        TimeUnit::Day => working,
        TimeUnit::Week => {
            let per = cal.days_per_week().max(1);
            (working as f64 / per as f64).round() as i64
        }
    };
    n.clamp(-10_000, 10_000) as i32
}

/// The move a keyboard arrow makes: one unit, or with Shift a working week.
pub fn arrow_units(unit: TimeUnit, cal: &Calendar, shift: bool) -> i32 {
    match (shift, unit) {
        (false, _) => 1,
        (true, TimeUnit::Day) => cal.days_per_week().max(1) as i32,
        (true, TimeUnit::Week) => 1,
    }
}

/// What a drag would do, previewed with the model's own date arithmetic (the
/// functions `move_periods` and `resize_period` run) and its link check.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    pub bar: BarId,
    pub start: Date,
    pub end: Date,
    /// Links of the bar the move would leave violated.
    pub broken: usize,
    /// The tool and its `by` (in the schedule's time unit).
    pub tool: &'static str,
    pub edge: Option<Edge>,
    pub by: i32,
    /// The critical path with the bar at its new dates (None when not computed: the
    /// schedule is too large to recompute it at pointer speed).
    pub critical: Option<palmaplan_model::idset::IdSet<BarId>>,
    /// With automatic scheduling, what the write's cascade will move (by id), as the
    /// model's `push` computes it: the same function the server runs on the write.
    pub cascade: Vec<push::Moved>,
    /// The project end before the gesture and after it, once the gesture is previewed
    /// with its cascade.
    pub ends: Option<(Date, Date)>,
    /// A link into the dragged bar holds it back: it is drawn (and will be written)
    /// at its bound rather than under the pointer.
    pub held: bool,
    /// The cascade would take this item past one of its upper-bound constraints by
    /// this many working days: the write will be refused.
    pub blocked: Option<(u64, i64)>,
    /// The state it was computed on (`Doc::stamp`): a keyboard move's preview is drawn
    /// until the written state arrives.
    pub on: u64,
}

impl Preview {
    /// Where the preview puts an item the cascade moves, if it does.
    pub fn pushed(&self, id: u64) -> Option<(Date, Date)> {
        self.cascade
            .binary_search_by_key(&id, |m| m.item.0)
            .ok()
            .map(|k| self.cascade[k].to)
    }

    /// The ids the write's cascade should move: what the preview drew moving, the
    /// dragged bar too when a link holds it back.
    pub fn expected_cascade(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.cascade.iter().map(|m| m.item.0).collect();
        if self.held {
            ids.push(self.bar.0);
            ids.sort_unstable();
        }
        ids
    }
}

/// What a drag's preview reads many times and builds once per drag: the schedule's
/// links by item (for the cascade) and the project end without the dragged bar.
#[derive(Debug)]
pub struct DragBasis {
    /// The state it was built on (`Doc::stamp`).
    doc: u64,
    bar: BarId,
    index: push::LinkIndex,
    /// The last planned day of every item but the dragged bar.
    end_without: Option<Date>,
    /// The project end before the drag.
    end_before: Option<Date>,
}

impl DragBasis {
    pub fn new(s: &Schedule, doc: u64, bar: BarId) -> DragBasis {
        let end_without = s
            .bars
            .iter()
            .filter(|b| b.id != bar)
            .map(|b| b.end)
            .chain(s.milestones.iter().map(|m| m.date))
            .max();
        DragBasis {
            doc,
            bar,
            index: push::LinkIndex::new(s),
            end_without,
            end_before: s.span().map(|(_, e)| e),
        }
    }
}

thread_local! {
    /// The basis of the drag in progress, kept across pointer moves (and rebuilt when
    /// the schedule changes under the drag).
    static BASIS: std::cell::RefCell<Option<DragBasis>> = const { std::cell::RefCell::new(None) };
}

/// Adds to a preview what the cascade would move (automatic scheduling), through the
/// model's `push::preview`, and the project end before and after. The dragged bar
/// itself can be held back by a link into it, as the write will hold it.
pub fn with_cascade(s: &Schedule, cal: &Calendar, basis: &DragBasis, p: &mut Preview) {
    let mut moved = match push::preview(
        s,
        &basis.index,
        cal,
        ItemId(p.bar.0),
        (p.start, p.end),
        push::Cascade::Push,
    ) {
        Ok(moved) => moved,
        // The write will be refused: the tip says which item's constraint stops it.
        Err(push::PushError::Constraint { item, by_days, .. }) => {
            p.blocked = Some((item.0, by_days));
            return;
        }
        Err(push::PushError::Cycle { .. }) => return,
    };
    if let Some(k) = moved.iter().position(|m| m.item.0 == p.bar.0) {
        let held = moved.remove(k);
        (p.start, p.end) = held.to;
        p.held = true;
    }
    p.broken = 0;
    let before = basis.end_before;
    let after = moved
        .iter()
        .map(|m| m.to.1)
        .chain(basis.end_without)
        .chain([p.end])
        .max();
    p.ends = before.zip(after);
    p.cascade = moved;
}

/// Up to this many bars, a drag also previews the critical path (the model's `cpm` on
/// a copy, a few milliseconds); above, the chart keeps the path as it is.
pub const PREVIEW_CRITICAL_MAX_BARS: usize = 5_000;

/// The critical path of `s` with one bar at other dates.
pub fn critical_with(
    s: &Schedule,
    bar: BarId,
    start: Date,
    end: Date,
    cascade: &[push::Moved],
) -> Option<palmaplan_model::idset::IdSet<BarId>> {
    if s.bars.len() > PREVIEW_CRITICAL_MAX_BARS {
        return None;
    }
    let mut copy = s.clone();
    let k = copy.bars.binary_search_by_key(&bar, |b| b.id).ok()?;
    (copy.bars[k].start, copy.bars[k].end) = (start, end);
    for m in cascade {
        if let Ok(k) = copy.bars.binary_search_by_key(&m.item.0, |b| b.id.0) {
            (copy.bars[k].start, copy.bars[k].end) = m.to;
        } else if let Ok(k) = copy.milestones.binary_search_by_key(&m.item.0, |x| x.id.0) {
            copy.milestones[k].date = m.to.0;
        }
    }
    palmaplan_model::cpm::critical_bars(&copy)
        .ok()
        .map(|c| c.into_iter().collect())
}

/// The preview of moving (`edge` None) or resizing a bar by `by` units: new dates and
/// the bar's links that would break. Costs one pass over the links (and one more per
/// milestone the bar is linked to, to place it on its day).
pub fn preview(
    s: &Schedule,
    cal: &Calendar,
    bar: BarId,
    edge: Option<Edge>,
    by: i32,
) -> Option<Preview> {
    let b = s.bar(bar)?;
    let days = cal.units_to_days(s.settings.time_unit, i64::from(by));
    let (start, end) = match edge {
        None => command::shifted_bar(cal, b.start, b.end, days),
        Some(e) => command::resized_bar(cal, b.start, b.end, e, days),
    };
    if end < start {
        return None;
    }
    let item = ItemId(bar.0);
    let bounds = |id: ItemId| {
        if id == item {
            Some((cal.start_boundary(start), cal.finish_boundary(end)))
        } else if let Some(m) = s.milestone(palmaplan_model::MilestoneId(id.0)) {
            // A milestone sits at the start or the end of its day (see `cpm`).
            let preceded = s.links.iter().any(|l| l.to == id);
            let at = palmaplan_model::cpm::milestone_boundary(cal, m.date, preceded);
            Some((at, at))
        } else {
            s.item_dates(id)
                .map(|(a, z)| (cal.start_boundary(a), cal.finish_boundary(z)))
        }
    };
    let broken = s
        .links
        .iter()
        .filter(|l| l.from == item || l.to == item)
        .filter(|l| match (bounds(l.from), bounds(l.to)) {
            (Some(f), Some(t)) => risk::link_shortfall(l.kind, risk::lag_days(cal, s, l), f, t) > 0,
            _ => false,
        })
        .count();
    Some(Preview {
        bar,
        start,
        end,
        broken,
        critical: None,
        cascade: Vec::new(),
        ends: None,
        held: false,
        blocked: None,
        on: 0,
        tool: if edge.is_none() {
            "move_periods"
        } else {
            "resize_period"
        },
        edge,
        by,
    })
}

/// A coordinate as CSS pixels (whole pixels: no float formatting in the hot path).
fn px(v: f64) -> i64 {
    v.round() as i64
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum DragMode {
    Move,
    Start,
    End,
}

#[derive(Clone, Debug)]
struct Drag {
    bar: BarId,
    mode: DragMode,
    x0: f64,
    moved: bool,
}

/// The chart's own state: scroll, viewport, the drag in progress and its preview.
#[derive(Clone, Copy, Debug)]
struct Ui {
    /// Scroll and viewport are written untracked (no effect reads them): whoever
    /// changes them asks for the drawing (`sig::dirty`), as the scroll and resize
    /// listeners do.
    scroll: Sig<(f64, f64)>,
    viewport: Sig<(f64, f64)>,
    drag: Sig<Option<Drag>>,
    pv: Sig<Option<Preview>>,
}

/// The chart's fixed elements, made once.
struct Parts {
    scroller: web_sys::HtmlElement,
    inner: web_sys::Element,
}

thread_local! {
    static PARTS: std::cell::RefCell<Option<Parts>> = const { std::cell::RefCell::new(None) };
    /// The last HTML set in each part: a part is replaced only when its text changes,
    /// so focus and selection survive redraws that do not touch them.
    static LAST: std::cell::RefCell<[String; 5]> = const {
        std::cell::RefCell::new([String::new(), String::new(), String::new(), String::new(), String::new()])
    };
    /// The blocks drawn in the grid column and the items, in order, with their texts and
    /// elements (`set_blocks`).
    static BLOCKS: std::cell::RefCell<[Vec<(usize, String, web_sys::Element)>; 2]> = const {
        std::cell::RefCell::new([Vec::new(), Vec::new()])
    };
    /// The items' blocks of the last drawing and what they were drawn from
    /// (`chart_html`): while only the scroll changes, a block still in view is not
    /// built again.
    static DRAWN: std::cell::RefCell<Option<(ItemsKey, Drawn)>> = const {
        std::cell::RefCell::new(None)
    };
    /// The grid's lines of the last drawing (the first one's number and each one's
    /// text) and what they were drawn from: while only the scroll changes, a line
    /// still in view is not written again.
    static GRID: std::cell::RefCell<Option<(GridKey, usize, Vec<Html>)>> = const {
        std::cell::RefCell::new(None)
    };
}

/// Everything an items' block is drawn from but its lines: the state (held, so that
/// a new one is never taken for it by its address), the layout, the shadow's state,
/// the language, the marks asked for, the selection, the edit, today and the days
/// drawn. A drag's preview changes every frame and is never kept.
struct ItemsKey {
    doc: std::sync::Arc<Doc>,
    lay: std::sync::Arc<app::Lay>,
    before: Option<std::sync::Arc<Doc>>,
    lang: Lang,
    show_crit: bool,
    writes: bool,
    selected: Option<BarId>,
    edit: edit::Edit,
    today: Date,
    days: (Date, Date),
    axis: f64,
}

impl PartialEq for ItemsKey {
    fn eq(&self, o: &ItemsKey) -> bool {
        use std::sync::Arc;
        Arc::ptr_eq(&self.doc, &o.doc)
            && Arc::ptr_eq(&self.lay, &o.lay)
            && match (&self.before, &o.before) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
            && (self.lang, self.show_crit, self.writes, self.selected)
                == (o.lang, o.show_crit, o.writes, o.selected)
            && self.edit == o.edit
            && (self.today, self.days) == (o.today, o.days)
            && self.axis.to_bits() == o.axis.to_bits()
    }
}

/// Everything a grid's line is drawn from but the line: the state and the layout
/// (held, as in `ItemsKey`), the language, the row or group picked, and whether the
/// whole chart is shown (its groups then have fold buttons).
struct GridKey {
    doc: std::sync::Arc<Doc>,
    lay: std::sync::Arc<app::Lay>,
    lang: Lang,
    picked: Option<Named>,
    full: bool,
}

impl PartialEq for GridKey {
    fn eq(&self, o: &GridKey) -> bool {
        use std::sync::Arc;
        Arc::ptr_eq(&self.doc, &o.doc)
            && Arc::ptr_eq(&self.lay, &o.lay)
            && (self.lang, self.picked, self.full) == (o.lang, o.picked, o.full)
    }
}

/// The items' blocks of a drawing: the lines' blocks and the blocks of links between
/// two of them.
struct Drawn {
    lines: Vec<DrawnBlock>,
    links: Vec<DrawnLinks>,
}

/// A block of links between two blocks of lines as drawn: the number of the lower of
/// its lines' blocks, its links (their places in the state's list) and its text. With
/// the same state, layout and days, the same links are drawn the same.
struct DrawnLinks {
    k: usize,
    links: Vec<usize>,
    text: Html,
}

/// One items' block as drawn: its number, its items' ends (id, left, right, middle
/// height: the links' anchors) and its text (roll-ups, shadows, bars, milestones and
/// their marks, then the links between two of its items).
struct DrawnBlock {
    k: usize,
    ends: Vec<(u64, f64, f64, f64)>,
    text: Html,
}

/// Builds the view under `<body>` with Leptos and wires its events: the card's words
/// and toolbar (top), the chart (its own scroll container, kept across drawings so
/// scrolling never resets), and what comes under it (bottom). Top and bottom are
/// effects: each is drawn again when a signal it read changed. Their content is HTML
/// text with one delegated click handler (`data-act`), replaced only when the text
/// changed, keeping the focus. The chart is drawn on the next animation frame after
/// any change, one HTML string of the visible part only, in blocks (`set_blocks`).
pub fn mount(st: St) -> Option<()> {
    use leptos::prelude::{ClassAttribute, Effect, ElementChild, GlobalAttributes, OnAttribute};
    use wasm_bindgen::JsCast;
    let window = web_sys::window()?;
    let doc = window.document()?;
    let body = doc.body()?;
    let ui = Ui {
        scroll: Sig::new((0.0, 0.0)),
        // No width until the ResizeObserver or a measure gives one.
        viewport: Sig::new((0.0, 400.0)),
        drag: Sig::new(None),
        pv: Sig::new(None),
    };
    leptos::mount::mount_to(body, move || {
        leptos::view! {
            <div class="pp" on:click=move |e| on_click(st, &e)>
                <div class="pp-top">{crate::shell::top(st)}</div>
                <div class="pp-scroll" tabindex="0" role="grid" on:keydown=move |e| on_key(st, ui, &e)>
                    <div class="pp-inner"></div>
                </div>
                <div class="pp-bottom">{crate::boards::bottom(st)}</div>
            </div>
        }
    })
    .forget();
    // Built at once by `mount_to`: found by class rather than through node references,
    // which are signals, each more code than a lookup.
    let part = |class: &str| doc.query_selector(class).ok().flatten();
    let (root, inner) = (part(".pp")?, part(".pp-inner")?);
    let scroller: web_sys::HtmlElement = part(".pp-scroll")?.dyn_into().ok()?;
    scroller.set_hidden(true);
    crate::app::watch_size(&root);

    // The chart's width, from a ResizeObserver on the card: while the chart is hidden,
    // the root's content box (the chart has no margin and 1 px borders), which forces
    // no layout, so the first drawing knows its viewport without measuring (see
    // `render`) and the layout made as page 0 arrives already has the right width;
    // shown, the chart's inner width, so that any change of the card's size refits.
    {
        let scroller = scroller.clone();
        let cb = wasm_bindgen::closure::Closure::<dyn Fn(js_sys::Array)>::new(
            move |entries: js_sys::Array| {
                let Ok(e) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() else {
                    return;
                };
                // Shown, the chart's own inner width (less a scrollbar): a change of the
                // card's padding (full screen) or of the frame refits it, even when the
                // window itself did not resize.
                let w = if scroller.hidden() {
                    e.content_rect().width() - 2.0
                } else {
                    f64::from(scroller.client_width())
                };
                if w <= 0.0 {
                    return;
                }
                ui.viewport.update_untracked(|v| v.0 = w);
                if (st.width.get_untracked() - w).abs() > 1.0 {
                    st.width.set(w);
                    if st.lay.with_untracked(Option::is_some) {
                        st.relayout();
                    }
                }
            },
        );
        if let Ok(observer) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
            observer.observe(&root);
        }
        cb.forget();
    }

    let measure = {
        let scroller = scroller.clone();
        // Whether the scroll or the viewport changed.
        move || -> bool {
            // Hidden, the chart has no size (and the ResizeObserver above keeps its width).
            if scroller.hidden() {
                return false;
            }
            // Read by the drawing alone: the listeners below ask for it when they
            // changed (through the chart's effect, each scroll event also tracked every
            // cell again: 0.2-0.9 ms of a scrolling frame in the translation).
            let scroll = (
                f64::from(scroller.scroll_left()),
                f64::from(scroller.scroll_top()),
            );
            let viewport = (
                f64::from(scroller.client_width()),
                f64::from(scroller.client_height()),
            );
            let moved =
                ui.scroll.get_untracked() != scroll || ui.viewport.get_untracked() != viewport;
            ui.scroll.update_untracked(|s| *s = scroll);
            ui.viewport.update_untracked(|v| *v = viewport);
            let w = f64::from(scroller.client_width());
            if w > 0.0 && (st.width.get_untracked() - w).abs() > 1.0 {
                st.width.set(w);
                st.relayout();
            }
            moved
        }
    };
    let measure = std::rc::Rc::new(measure);
    {
        let m = std::rc::Rc::clone(&measure);
        let ask = move |_| {
            if m() {
                crate::sig::dirty();
            }
        };
        listen::<web_sys::Event>(scroller.as_ref(), "scroll", ask.clone());
        listen::<web_sys::Event>(window.as_ref(), "resize", ask);
    }

    // The name cell of a row or a group, or a milestone: a press selects it, the second
    // press of a double click renames it. On the press, not the click: the first
    // press draws the item again, selected, and a click whose press and release land
    // on two different nodes (the old one and the new) is never sent.
    listen::<web_sys::MouseEvent>(inner.as_ref(), "mousedown", move |e| {
        if e.button() != 0 {
            return;
        }
        let Some(n) = named_at(&e) else { return };
        if e.detail() >= 2 {
            // Not the word under the pointer selected as text.
            e.prevent_default();
            start_rename(st, n);
        } else {
            pick(st, n);
        }
    });

    // Select and start a drag (move, or resize from within 6 px of an edge).
    let capture = inner.clone();
    listen::<web_sys::PointerEvent>(inner.as_ref(), "pointerdown", move |e| {
        if e.button() != 0 || closest(&e, ".pp-rename").is_some() {
            return;
        }
        // A link's arrow: select it (Delete then removes it).
        if let Some(hit) = closest(&e, ".pp-lh") {
            if let Some(id) = link_at(&hit, &e) {
                st.edit.set(edit::Edit::Link(palmaplan_model::LinkId(id)));
            }
            return;
        }
        // A link handle of the selected bar or milestone: draw a link from that end.
        if let Some(h) = closest(&e, "[data-lkh]")
            && let Some(from) = link_source(st)
        {
            e.prevent_default();
            if !st.can_write() || held_item(st, from) {
                return;
            }
            let _ = capture.set_pointer_capture(e.pointer_id());
            let from_edge = if h.get_attribute("data-lkh").as_deref() == Some("start") {
                Edge::Start
            } else {
                Edge::End
            };
            st.edit.set(edit::Edit::Linking(edit::Linking {
                from,
                from_edge,
                to: None,
                to_edge: Edge::Start,
                pointer: items_point(&e),
            }));
            return;
        }
        let Some(el) = closest(&e, "[data-bar]") else {
            // An empty part of a row: draw a bar there.
            if st.can_write()
                && closest(&e, ".pp-body").is_some()
                && closest(&e, "[data-milestone],.pp-con,.pp-dl,.pp-tip").is_none()
                && let Some((x, y)) = items_point(&e)
                && let Some((row, day)) = row_day_at(st, x, y)
            {
                e.prevent_default();
                let _ = capture.set_pointer_capture(e.pointer_id());
                st.edit.set(edit::Edit::Creating {
                    row,
                    from: day,
                    to: day,
                });
                CREATE_MOVED.with(|m| m.set(false));
            }
            return;
        };
        let Some(id) = el
            .get_attribute("data-bar")
            .and_then(|v| v.parse::<u64>().ok())
        else {
            return;
        };
        // A press on the bar clicked (pressed and released without a drag) less than
        // 500 ms before is a double click: rename it in place. Counted here, as the
        // drag's pointer capture sends the clicks to the chart rather than to the bar
        // (no `dblclick` on it).
        let double = LAST_PRESS.with(|p| {
            let (bar, at) = p.get();
            bar == id && host::now() - at < 500.0
        });
        if double {
            LAST_PRESS.with(|p| p.set((0, 0.0)));
            e.prevent_default();
            start_rename(st, Named::Bar(BarId(id)));
            return;
        }
        select(st, Some(BarId(id)));
        if !st.can_write() {
            return;
        }
        let rect = el.get_bounding_client_rect();
        let off = f64::from(e.client_x()) - rect.left();
        let mode = if off < 6.0 {
            DragMode::Start
        } else if off > rect.width() - 6.0 {
            DragMode::End
        } else {
            DragMode::Move
        };
        e.prevent_default();
        // The pointer's moves and its release come to the chart even once it leaves the
        // frame: a chart that fills its frame puts the last bar's end near its edge,
        // and a release outside would otherwise never end the drag. On the chart's
        // container, which stays while the bars are drawn again under the pointer.
        let _ = capture.set_pointer_capture(e.pointer_id());
        ui.drag.set(Some(Drag {
            bar: BarId(id),
            mode,
            x0: f64::from(e.client_x()),
            moved: false,
        }));
    });

    // Over the links' pointer ground, its tooltip names the arrow nearest the pointer
    // (one title a block rather than one a link).
    listen::<web_sys::PointerEvent>(inner.as_ref(), "pointermove", move |e| {
        if let Some(hit) = closest(&e, ".pp-lh")
            && let Some((_, arrow)) = nearest_link(&hit, &e)
            && let Some(title) = hit.first_element_child()
        {
            let name = arrow.get_attribute("aria-label");
            if title.text_content() != name {
                title.set_text_content(name.as_deref());
            }
        }
    });

    // The drag follows the pointer anywhere in the frame; the model previews it.
    listen::<web_sys::PointerEvent>(window.as_ref(), "pointermove", move |e| {
        match st.edit.get_untracked() {
            edit::Edit::Linking(mut k) if k.pointer.is_some() => {
                k.pointer = items_point(&e);
                let (to, to_edge) = item_under(&e).unwrap_or((None, Edge::Start));
                k.to = to.filter(|t| t.0 != k.from.0);
                k.to_edge = to_edge;
                st.edit.set(edit::Edit::Linking(k));
                return;
            }
            edit::Edit::Creating { row, from, to } => {
                if let Some((x, _)) = items_point(&e)
                    && let Some(lay) = st.lay.get_untracked()
                {
                    let day = Timeline {
                        origin: lay.from,
                        px_per_day: lay.ppd,
                    }
                    .date_at(x);
                    if day != to {
                        CREATE_MOVED.with(|m| m.set(true));
                        st.edit.set(edit::Edit::Creating { row, from, to: day });
                    }
                }
                return;
            }
            _ => {}
        }
        let Some(d) = ui.drag.get_untracked() else {
            return;
        };
        let (Some(doc), Some(lay)) = (st.doc.get_untracked(), st.lay.get_untracked()) else {
            return;
        };
        let Some(bar) = doc.s.bar(d.bar) else { return };
        let days = ((f64::from(e.client_x()) - d.x0) / lay.ppd).round() as i32;
        if days == 0 && !d.moved {
            return;
        }
        // A held bar does not follow the pointer: the view says why at the first move,
        // and sends nothing (a click still selects it).
        if !d.moved && held_by_lock(st, d.bar) {
            ui.drag.set(None);
            return;
        }
        ui.drag.update_untracked(|d| {
            if let Some(d) = d {
                d.moved = true;
            }
        });
        let cal = &doc.cal;
        let (edge, from) = match d.mode {
            DragMode::Move => (None, bar.start),
            DragMode::Start => (Some(Edge::Start), bar.start),
            DragMode::End => (Some(Edge::End), bar.end),
        };
        let by = drag_units(cal, doc.s.settings.time_unit, from, days);
        let p = preview(&doc.s, &doc.cal, d.bar, edge, by).map(|mut p| {
            p.on = doc.stamp;
            // Automatic scheduling: the successors move with the bar, as the write's
            // cascade will move them. Manual: the links it would break are counted.
            if doc.s.settings.scheduling == Scheduling::Auto && by != 0 {
                let at = doc.stamp;
                BASIS.with(|b| {
                    let mut b = b.borrow_mut();
                    if !b.as_ref().is_some_and(|b| b.doc == at && b.bar == d.bar) {
                        *b = Some(DragBasis::new(&doc.s, at, d.bar));
                    }
                    if let Some(basis) = b.as_ref() {
                        with_cascade(&doc.s, &doc.cal, basis, &mut p);
                    }
                });
            }
            if st.options.with_untracked(|o| o.critical_path == Some(true)) {
                p.critical = critical_with(&doc.s, p.bar, p.start, p.end, &p.cascade);
            }
            p
        });
        ui.pv.set(p);
    });
    listen::<web_sys::PointerEvent>(window.as_ref(), "pointerup", move |_| {
        match st.edit.get_untracked() {
            edit::Edit::Linking(k) if k.pointer.is_some() => {
                st.edit.set(edit::Edit::None);
                finish_link(st, &k);
                return;
            }
            edit::Edit::Creating { row, from, to } => {
                st.edit.set(edit::Edit::None);
                // A click in a row, without a drag, draws nothing.
                if CREATE_MOVED.with(std::cell::Cell::get) {
                    let span = st.doc.with_untracked(|d| {
                        d.as_ref()
                            .map(|d| edit::drawn_span(&d.cal, d.s.settings.time_unit, from, to))
                    });
                    if let Some(span) = span {
                        create_bar(st, row, span);
                    }
                }
                return;
            }
            _ => {}
        }
        let Some(d) = ui.drag.get_untracked() else {
            return;
        };
        ui.drag.set(None);
        let p = ui.pv.get_untracked();
        ui.pv.set(None);
        // A click (no drag) may be the first half of a double click.
        LAST_PRESS.with(|l| {
            l.set(if d.moved {
                (0, 0.0)
            } else {
                (d.bar.0, host::now())
            })
        });
        if !d.moved {
            return;
        }
        BASIS.with(|b| b.borrow_mut().take());
        // Held back to where it is by a link, a bar dragged earlier sends nothing.
        let unchanged = |p: &Preview| {
            st.doc.with_untracked(|d| {
                d.as_ref()
                    .and_then(|d| d.s.bar(p.bar))
                    .is_some_and(|b| (b.start, b.end) == (p.start, p.end))
            })
        };
        // A cascade the preview showed refused is not sent: the server would refuse it
        // too, in the model's words.
        if let Some(blocked) = p.as_ref().and_then(|p| p.blocked) {
            if let Some(doc) = st.doc.get_untracked() {
                say_blocked(st, &doc.s, blocked);
            }
            return;
        }
        if let Some(p) = p.filter(|p| p.by != 0 && !(p.held && unchanged(p))) {
            // The write asks for the cascade the preview drew (none in manual mode),
            // and the answer is checked against it.
            let auto = st
                .doc
                .with_untracked(|d| d.as_ref().map(|d| d.s.settings.scheduling))
                == Some(Scheduling::Auto);
            let expected = p.expected_cascade();
            let args = match p.edge {
                None => json!({ "bars": [p.bar.0], "by": p.by, "cascade": auto }),
                Some(edge) => json!({ "bar": p.bar.0, "edge": edge, "by": p.by, "cascade": auto }),
            };
            app::write_expecting(st, p.tool, args, auto.then_some(expected));
        }
    });

    PARTS.with(|p| *p.borrow_mut() = Some(Parts { scroller, inner }));
    Effect::new(move || document_attributes(st));
    Effect::new(move || {
        st.track_all();
        ui.drag.track();
        ui.pv.track();
        crate::sig::dirty_unless_drawn();
    });
    let m = std::rc::Rc::clone(&measure);
    on_render(std::rc::Rc::new(move || render(st, ui, &*m)));
    Some(())
}

/// A click anywhere in the view: `data-act` buttons and group folds.
fn on_click(st: St, e: &web_sys::MouseEvent) {
    if let Some(el) = closest(e, "[data-act]") {
        act(st, &el.get_attribute("data-act").unwrap_or_default(), &el);
    } else if let Some(el) = closest(e, "[data-group]")
        && let Some(id) = el
            .get_attribute("data-group")
            .and_then(|v| v.parse::<u64>().ok())
    {
        let gid = palmaplan_model::GroupId(id);
        st.collapsed.update(|c| {
            if !c.remove(&gid) {
                c.insert(gid);
            }
        });
        st.relayout();
    }
}

/// The row, group or milestone whose name cell (or diamond) an event is on.
fn named_at(e: &web_sys::Event) -> Option<Named> {
    let id = |el: web_sys::Element, attr: &str| el.get_attribute(attr)?.parse::<u64>().ok();
    if let Some(m) = closest(e, "[data-milestone]").and_then(|el| id(el, "data-milestone")) {
        return Some(Named::Milestone(palmaplan_model::MilestoneId(m)));
    }
    // Not the fold button, which folds.
    if closest(e, "[data-group]").is_some() {
        return None;
    }
    if let Some(r) = closest(e, "[data-row]").and_then(|el| id(el, "data-row")) {
        return Some(Named::Row(palmaplan_model::RowId(r)));
    }
    closest(e, "[data-grp]")
        .and_then(|el| id(el, "data-grp"))
        .map(|g| Named::Group(palmaplan_model::GroupId(g)))
}

/// Selects a row, a group or a milestone. A milestone takes the place of the selected
/// bar (its link handles are drawn instead); a row or a group leaves the bar selected,
/// so that ↑/↓ go on from it.
fn pick(st: St, n: Named) {
    if let Named::Milestone(_) = n {
        st.selected.set(None);
        update_model_context(st);
    }
    st.edit.set(edit::Edit::Picked(n));
}

/// Where a link drawn now starts: the selected milestone, else the selected bar.
fn link_source(st: St) -> Option<ItemId> {
    match st.edit.get_untracked() {
        edit::Edit::Picked(Named::Milestone(m)) => Some(ItemId(m.0)),
        _ => st.selected.get_untracked().map(|b| ItemId(b.0)),
    }
}

fn on_key(st: St, ui: Ui, e: &web_sys::KeyboardEvent) {
    let Some(doc) = st.doc.get_untracked() else {
        return;
    };
    let ctrl = e.ctrl_key() || e.meta_key();
    let key = e.key();
    // Typing a new name: Enter writes it, Escape gives up; every other key is the
    // field's own (an arrow moves the caret, not the bar).
    if closest(e, ".pp-rename").is_some() {
        match key.as_str() {
            "Enter" => {
                e.prevent_default();
                finish_rename(st, true);
            }
            "Escape" => {
                e.prevent_default();
                finish_rename(st, false);
            }
            _ => {}
        }
        return;
    }
    // Drawing a link from the keyboard: ↑/↓ pick the other bar or milestone, T the
    // type, Enter creates it, Escape gives up.
    if let edit::Edit::Linking(mut k) = st.edit.get_untracked()
        && k.pointer.is_none()
    {
        match key.as_str() {
            "ArrowDown" | "ArrowUp" => {
                e.prevent_default();
                let order = item_order(st, true);
                let at = k.to.map_or(k.from.0, |t| t.0);
                let step: i64 = if key == "ArrowDown" { 1 } else { -1 };
                let mut i = order.iter().position(|b| b.0 == at).map_or(0, |i| i as i64);
                loop {
                    i += step;
                    match usize::try_from(i).ok().and_then(|i| order.get(i)) {
                        Some(b) if *b == k.from => continue,
                        Some(b) => {
                            k.to = Some(*b);
                            break;
                        }
                        None => break,
                    }
                }
                st.edit.set(edit::Edit::Linking(k));
            }
            "t" | "T" => {
                e.prevent_default();
                let kind = edit::next_kind(edit::link_kind(k.from_edge, k.to_edge));
                (k.from_edge, k.to_edge) = edit::kind_ends(kind);
                st.edit.set(edit::Edit::Linking(k));
            }
            "Enter" => {
                e.prevent_default();
                st.edit.set(edit::Edit::None);
                finish_link(st, &k);
            }
            "Escape" => {
                e.prevent_default();
                st.edit.set(edit::Edit::None);
            }
            _ => {}
        }
        return;
    }
    let sel = st.selected.get_untracked();
    let plain = !ctrl && !e.alt_key();
    match (key.as_str(), sel, st.edit.get_untracked()) {
        ("Delete" | "Backspace", _, edit::Edit::Link(link)) if st.can_write() => {
            e.prevent_default();
            delete_link(st, link);
            return;
        }
        // A row, a group or a milestone selected is not deleted from the chart (nor
        // the bar still selected beside it, which the person is not looking at).
        ("Delete" | "Backspace", _, edit::Edit::Picked(_)) => {
            e.prevent_default();
            return;
        }
        // Nor is that bar moved, resized, progressed, linked or followed by a new bar
        // while its row or group is what is selected (↑/↓ still go from it).
        (
            "ArrowLeft" | "ArrowRight" | "+" | "=" | "-" | "c" | "C" | "l" | "L" | "n" | "N"
            | "Insert",
            _,
            edit::Edit::Picked(Named::Row(_) | Named::Group(_)),
        ) => {
            e.prevent_default();
            return;
        }
        // The selected link's lag, a unit of the schedule's time unit at a time.
        ("+" | "=" | "-", _, edit::Edit::Link(link)) if plain => {
            e.prevent_default();
            if st.can_write() {
                change_lag(st, link, if key == "-" { -1 } else { 1 });
            }
            return;
        }
        ("Escape", _, edit) if edit != edit::Edit::None => {
            st.edit.set(edit::Edit::None);
            return;
        }
        ("F2", _, edit::Edit::Picked(n)) => {
            e.prevent_default();
            start_rename(st, n);
            return;
        }
        ("F2", Some(bar), _) => {
            e.prevent_default();
            start_rename(st, Named::Bar(bar));
            return;
        }
        // R: the selected bar's (or milestone's) row, then that row's group.
        ("r" | "R", _, edit) if plain => {
            let next = match edit {
                edit::Edit::Picked(Named::Row(r)) => doc.s.row(r).map(|r| Named::Group(r.group)),
                edit::Edit::Picked(Named::Milestone(m)) => {
                    doc.s.milestone(m).map(|m| Named::Row(m.row))
                }
                _ => sel.and_then(|b| doc.s.bar(b)).map(|b| Named::Row(b.row)),
            };
            if let Some(n) = next {
                e.prevent_default();
                pick(st, n);
            }
            return;
        }
        // M: the next milestone in the chart's order.
        ("m" | "M", _, edit) if plain => {
            e.prevent_default();
            let order = item_order(st, true);
            let now = match edit {
                edit::Edit::Picked(Named::Milestone(m)) => order.iter().position(|i| i.0 == m.0),
                _ => None,
            };
            let is_ms = |i: &ItemId| doc.s.milestone(palmaplan_model::MilestoneId(i.0)).is_some();
            let after = now.map_or(0, |i| i + 1);
            let next = order[after.min(order.len())..]
                .iter()
                .chain(&order[..after.min(order.len())])
                .find(|i| is_ms(i));
            match next {
                Some(i) => pick(st, Named::Milestone(palmaplan_model::MilestoneId(i.0))),
                None => st.notice.set(Notice::Ok(
                    st.tr("Aucun jalon dans la vue.", "No milestone in the view.")
                        .into(),
                )),
            }
            return;
        }
        ("c" | "C", _, edit::Edit::Picked(Named::Milestone(m))) if plain && st.can_write() => {
            e.prevent_default();
            let from = ItemId(m.0);
            if held_item(st, from) {
                return;
            }
            st.edit.set(edit::Edit::Linking(edit::Linking {
                from,
                from_edge: Edge::End,
                to: None,
                to_edge: Edge::Start,
                pointer: None,
            }));
            return;
        }
        ("l" | "L", Some(bar), edit) if plain => {
            e.prevent_default();
            let links = edit::links_of_bar(&doc.s, bar);
            let now = match edit {
                edit::Edit::Link(l) => Some(l),
                _ => None,
            };
            match edit::next_link(&links, now) {
                Some(l) => st.edit.set(edit::Edit::Link(l)),
                None => st.notice.set(Notice::Ok(
                    st.tr("Ce bloc n'a aucun lien.", "This bar has no link.")
                        .into(),
                )),
            }
            return;
        }
        ("c" | "C", Some(bar), _) if plain && st.can_write() => {
            e.prevent_default();
            if held_by_lock(st, bar) {
                return;
            }
            st.edit.set(edit::Edit::Linking(edit::Linking {
                from: ItemId(bar.0),
                from_edge: Edge::End,
                to: None,
                to_edge: Edge::Start,
                pointer: None,
            }));
            return;
        }
        ("n" | "N" | "Insert", _, _) if plain && st.can_write() => {
            e.prevent_default();
            // On the selected bar's row, after it; else on the first row shown.
            let after = sel.and_then(|b| doc.s.bar(b));
            let row = after.map(|b| b.row).or_else(|| {
                st.lay.with_untracked(|l| {
                    l.as_ref()?.lines.iter().find_map(|l| match l.kind {
                        LineKind::Row { id, .. } => Some(id),
                        LineKind::Group { .. } => None,
                    })
                })
            });
            if let Some(row) = row {
                let span =
                    edit::keyed_span(&doc.cal, after.map(|b| b.end), st.today.get_untracked());
                create_bar(st, row, span);
            }
            return;
        }
        _ => {}
    }
    if ctrl && key.eq_ignore_ascii_case("z") {
        if st.can_write() {
            e.prevent_default();
            app::write(st, if e.shift_key() { "redo" } else { "undo" }, json!({}));
        }
        return;
    }
    let sel = st.selected.get_untracked();
    match (key.as_str(), sel) {
        ("ArrowDown" | "ArrowUp", _) => {
            e.prevent_default();
            select_next(st, if key == "ArrowDown" { 1 } else { -1 });
        }
        ("ArrowLeft" | "ArrowRight", Some(sel)) if st.can_write() => {
            e.prevent_default();
            if held_by_lock(st, sel) {
                return;
            }
            let cal = Calendar::for_schedule(&doc.s);
            let n = arrow_units(doc.s.settings.time_unit, &cal, e.shift_key());
            let by = if key == "ArrowLeft" { -n } else { n };
            // Automatic scheduling: the move and its cascade are drawn at once, as a
            // drag's preview is, until the server's answer brings the written state.
            let auto = doc.s.settings.scheduling == Scheduling::Auto;
            let mut expected = None;
            if auto && let Some(mut p) = preview(&doc.s, &doc.cal, sel, None, by) {
                with_cascade(
                    &doc.s,
                    &doc.cal,
                    &DragBasis::new(&doc.s, doc.stamp, sel),
                    &mut p,
                );
                // Refused by a constraint downstream: said, not sent (as a drop).
                if let Some(blocked) = p.blocked {
                    say_blocked(st, &doc.s, blocked);
                    return;
                }
                expected = Some(p.expected_cascade());
                p.on = doc.stamp;
                ui.pv.set(Some(p));
            }
            let args = json!({ "bars": [sel.0], "by": by, "cascade": auto });
            app::write_then(st, "move_periods", args, expected, move || ui.pv.set(None));
        }
        // Progress by tenths: "+" (or "=") and "-", through set_progress.
        // Not with Ctrl, Cmd or Alt: those are the browser's zoom.
        ("+" | "=" | "-", Some(sel)) if st.can_write() && !ctrl && !e.alt_key() => {
            e.prevent_default();
            if held_by_lock(st, sel) {
                return;
            }
            let Some(b) = doc.s.bar(sel) else { return };
            let step: i16 = if key == "-" { -10 } else { 10 };
            let percent = (i16::from(b.progress) + step).clamp(0, 100);
            if percent != i16::from(b.progress) {
                // Below 100 a finished bar is no longer finished: its actual finish
                // goes with the change (set_progress refuses the two together).
                let entry = if percent < 100 && b.actual_finish.is_some() {
                    json!({ "bar": sel.0, "percent": percent, "actual_finish": null })
                } else {
                    json!({ "bar": sel.0, "percent": percent })
                };
                app::write(st, "set_progress", json!({ "bars": [entry] }));
            }
        }
        ("Delete" | "Backspace", Some(sel)) if st.can_write() => {
            e.prevent_default();
            if held_by_lock(st, sel) {
                return;
            }
            st.confirm.set(Some(sel));
        }
        ("Escape", _) => {
            st.confirm.set(None);
            select(st, None);
        }
        _ => {}
    }
}

/// Brings a container's blocks (`BLOCK`-separated in `content`, keys ascending) up to
/// date: removes those gone, replaces those whose text changed, inserts the new ones in
/// order, leaves the others alone. Scrolling thus touches the blocks that enter and
/// leave, not everything in view: the browser restyles and lays out a few lines per
/// frame instead of every line. Slots: 0 grid cells, 1 items.
fn set_blocks(slot: usize, container: &web_sys::Element, content: &str) {
    let new: Vec<(usize, &str)> = split_at_marker(content, BLOCK)
        .into_iter()
        .filter(|b| !b.is_empty())
        .filter_map(|b| {
            let key = b
                .strip_prefix("<div class=\"pp-blk\" data-blk=\"")?
                .split('"')
                .next()?
                .parse()
                .ok()?;
            Some((key, b))
        })
        .collect();
    // The element just put after `prev` (or first, where there is none). The blocks
    // are the container's first children, in order: the element handles kept spare a
    // search of the container for every block in view at every frame.
    let after = |prev: Option<&web_sys::Element>| match prev {
        Some(p) => p.next_element_sibling(),
        None => container.first_element_child(),
    };
    BLOCKS.with(|b| {
        let mut b = b.borrow_mut();
        // Both lists are in the keys' order: walked together.
        let mut old = std::mem::take(&mut b[slot]).into_iter().peekable();
        let mut now: Vec<(usize, String, web_sys::Element)> = Vec::with_capacity(new.len());
        // New or changed blocks that follow one another are inserted by one parse of
        // their texts together (the browser sets up its parser once per call: scrolling
        // adds a few blocks in a row at each frame).
        let mut run: Vec<(usize, &str)> = Vec::new();
        let insert = |run: &mut Vec<(usize, &str)>,
                      now: &mut Vec<(usize, String, web_sys::Element)>| {
            if run.is_empty() {
                return;
            }
            host::trace("blocks added");
            let html: String = run.iter().map(|r| r.1).collect();
            let prev = now.last().map(|n| n.2.clone());
            let _ = match &prev {
                Some(p) => p.insert_adjacent_html("afterend", &html),
                None => container.insert_adjacent_html("afterbegin", &html),
            };
            let mut at = prev;
            for (k, text) in run.drain(..) {
                let Some(e) = after(at.as_ref()) else { break };
                now.push((k, text.to_owned(), e.clone()));
                at = Some(e);
            }
        };
        for (k, html) in new {
            while let Some((_, _, gone)) = old.next_if(|o| o.0 < k) {
                gone.remove();
            }
            match old.next_if(|o| o.0 == k) {
                Some((_, was, e)) if was == html => {
                    insert(&mut run, &mut now);
                    now.push((k, was, e));
                }
                // A changed block is taken out and its new text joins the run: a drag
                // whose cascade moves every line in view changes them all at once.
                Some((_, _, e)) => {
                    host::trace("block changed");
                    e.remove();
                    run.push((k, html));
                }
                None => run.push((k, html)),
            }
        }
        insert(&mut run, &mut now);
        for (_, _, gone) in old {
            gone.remove();
        }
        b[slot] = now;
    });
}

/// Replaces a part's HTML when it changed, keeping the focus on the same control.
/// Returns whether it changed. Parts: 0 the chart's frame, 1-4 its containers (the
/// card's other parts are Leptos components: `shell`, `boards`).
fn set_part(i: usize, part: &web_sys::Element, html: &str) -> bool {
    let changed = LAST.with(|l| {
        let mut l = l.borrow_mut();
        if l[i] == html {
            false
        } else {
            html.clone_into(&mut l[i]);
            true
        }
    });
    if !changed {
        return false;
    }
    let doc = web_sys::window().and_then(|w| w.document());
    let focused = doc
        .as_ref()
        .and_then(|d| d.active_element())
        .filter(|a| part.contains(Some(a)))
        .and_then(|a| a.get_attribute("data-act"));
    LAST.with(|l| part.set_inner_html(&l.borrow()[i]));
    if let Some(act) = focused
        && let Ok(Some(again)) = part.query_selector(&format!("[data-act=\"{act}\"]"))
        && let Ok(again) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(again)
    {
        let _ = again.focus();
    }
    true
}

/// The page's language, theme and display mode, as attributes of `<html>` (the style
/// sheet reads them).
fn document_attributes(st: St) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = el.set_attribute(
            "lang",
            if st.lang.get() == Lang::Fr {
                "fr"
            } else {
                "en"
            },
        );
        let _ = el.set_attribute("data-theme", if st.dark.get() { "dark" } else { "light" });
        let _ = el.set_attribute(
            "data-mode",
            if st.fullscreen.get() {
                "fullscreen"
            } else {
                "inline"
            },
        );
    }
}

/// Draws the chart from the state (once per animation frame after changes).
fn render(st: St, ui: Ui, measure: &dyn Fn() -> bool) {
    let started = host::now_precise();
    host::trace("render");
    let chart_shown = st.doc.with(|d| d.is_some())
        && !st.withdrawn.get()
        && !st.compact_now()
        && st.card.with(|c| matches!(c.phase(), Phase::Result(_)))
        && matches!(
            st.shown.get(),
            Some(Shown::Gantt | Shown::Proposal { .. } | Shown::Comparison)
        );
    let mut first_show = false;
    PARTS.with(|p| {
        let p = p.borrow();
        let Some(p) = p.as_ref() else { return };
        if chart_shown {
            first_show = p.scroller.hidden();
            p.scroller.set_hidden(false);
            let (n, lines_h) = st.lay.with(|l| {
                l.as_ref().map_or((0, 0.0), |l| {
                    (l.lines.len(), palmaplan_model::fit::total_height(&l.lines))
                })
            });
            let before_after = matches!(
                st.shown.get(),
                Some(Shown::Proposal { .. } | Shown::Comparison)
            );
            // Inline, the chart's height in pixels (fullscreen, it depends on the window).
            let inline_h = (!st.fullscreen.get()).then(|| {
                HEAD + lines_h.clamp(2.0 * LINE_HEIGHT, INLINE_LINES * LINE_HEIGHT) + 16.0
            });
            let height = match inline_h {
                Some(h) => format!("{}px", px(h)),
                // Room below for the change list and the buttons.
                None if before_after => "60vh".to_owned(),
                None => "calc(100vh - 96px)".to_owned(),
            };
            let _ = p.scroller.style().set_property("height", &height);
            if first_show {
                // The chart just got a size. Inline and never scrolled, its viewport is
                // known: the width the ResizeObserver gave, the height just set (less
                // the borders). Otherwise measure it now (a layout of a card whose chart
                // is still empty), so that the first drawing fits the viewport instead
                // of being made for no size and redrawn a frame later.
                let w = ui.viewport.get_untracked().0;
                match inline_h {
                    Some(h) if ui.scroll.get_untracked() == (0.0, 0.0) && w > 0.0 => {
                        ui.viewport.update_untracked(|v| *v = (w, h - 2.0));
                    }
                    _ => {
                        host::trace("measure");
                        // Drawn just below with what it read.
                        let _ = measure();
                        host::trace("measured");
                    }
                }
            }
            let _ = p.scroller.set_attribute(
                "aria-label",
                tr(st.lang.get(), "Diagramme de Gantt", "Gantt chart"),
            );
            let _ = p.scroller.set_attribute("aria-rowcount", &n.to_string());
            // The link, row, group or milestone selected, else the bar selected, is
            // the grid's active cell.
            let active = match (st.edit.get(), st.selected.get()) {
                (edit::Edit::Link(l), _) => Some(format!("pp-l{}", l.0)),
                (edit::Edit::Picked(n), _) => Some(picked_id(n)),
                (_, Some(b)) => Some(format!("pp-b{}", b.0)),
                _ => None,
            };
            match active {
                Some(id) => {
                    let _ = p.scroller.set_attribute("aria-activedescendant", &id);
                }
                None => {
                    let _ = p.scroller.remove_attribute("aria-activedescendant");
                }
            }
            // A drag's preview while the pointer is down; a keyboard move's while the
            // state it was made on is shown (the written state replaces it).
            let dragging = ui.drag.with(|d| d.as_ref().map(|d| d.bar));
            let stamp = st.doc.with(|d| d.as_ref().map_or(0, |d| d.stamp));
            let pv = ui
                .pv
                .get()
                .filter(|p| dragging.is_some() || (p.on != 0 && p.on == stamp));
            let html = chart_html(st, ui.scroll.get(), ui.viewport.get(), pv, dragging);
            // The frame is set when it changes (size, zoom, panels); then each
            // container only when its own content changes: a vertical scroll redraws
            // the grid and the items, never the header or the days.
            host::trace("chart html");
            let parts: Vec<&str> = split_at_marker(html.as_str(), CUT);
            // A name being typed survives its field being drawn again (the bar moved
            // as the state was read in steps or by someone else, or the frame changed):
            // its text, the focus and the caret or selection go to the new field, so a
            // key typed next lands where it would have.
            let typing = rename_field(&p.inner).filter(is_active).map(|f| {
                let at = (
                    f.selection_start().ok().flatten(),
                    f.selection_end().ok().flatten(),
                );
                (f.value(), at)
            });
            let frame: String = parts.iter().step_by(2).copied().collect();
            if set_part(0, &p.inner, &frame) {
                host::trace("frame");
                LAST.with(|l| l.borrow_mut()[1..5].iter_mut().for_each(String::clear));
                BLOCKS.with(|b| b.borrow_mut().iter_mut().for_each(Vec::clear));
            }
            for (k, class) in ["pp-head", "pp-gridcol", "pp-days", "pp-items"]
                .into_iter()
                .enumerate()
            {
                if let (Some(content), Ok(Some(el))) = (
                    parts.get(2 * k + 1),
                    p.inner.query_selector(&format!(".{class}")),
                ) {
                    match k {
                        1 => set_blocks(0, &el, content),
                        3 => set_blocks(1, &el, content),
                        _ => {
                            set_part(1 + k, &el, content);
                        }
                    }
                }
            }
            // A rename field just drawn takes the focus, its text selected.
            if FOCUS_RENAME.with(std::cell::Cell::get)
                && let Some(field) = rename_field(&p.inner)
            {
                FOCUS_RENAME.with(|f| f.set(false));
                let _ = field.focus();
                field.select();
            } else if let Some((text, at)) = typing
                && let Some(field) = rename_field(&p.inner)
                && !is_active(&field)
            {
                field.set_value(&text);
                let _ = field.focus();
                if let (Some(start), Some(end)) = at {
                    let _ = field.set_selection_range(start, end);
                }
            }
        } else {
            p.scroller.set_hidden(true);
            // The kept blocks hold their state: not while the chart is not shown.
            DRAWN.set(None);
            GRID.set(None);
        }
    });
    // For the render benchmark (e2e/bench): how long the last drawing took, in ms.
    host::trace("rendered");
    host::mark("rendered", &wasm_bindgen::JsValue::TRUE);
    host::mark(
        "renderMs",
        &wasm_bindgen::JsValue::from_f64(host::now_precise() - started),
    );
}

/// The markers of an item's date constraints (a tick at the day each names: its start
/// for start constraints, its end for finish ones) and of its deadline (a flag at the
/// end of its day, red once the item finishes after it), on the item's line.
fn constraint_marks(
    h: &mut H,
    doc: &Doc,
    (tl, lang): (&Timeline, Lang),
    id: ItemId,
    finish: Date,
    y: f64,
) {
    // Where `fit` counts them for the labels beside the item.
    for c in doc.s.item_constraints(id).unwrap_or_default() {
        let x = fit::constraint_x(tl, &c);
        h.lit("<div class=\"pp-con\"")
            .attr("title", &palmaplan_model::text::constraint_phrase(c, lang))
            .lit(" style=\"left:")
            .num(px(x - 1.0))
            .lit("px;top:")
            .num(px(y + 2.0))
            .lit("px\"></div>");
    }
    if let Some(deadline) = doc.s.item_deadline(id) {
        let missed = finish > deadline;
        h.lit("<div class=\"pp-dl")
            .lit(if missed { " missed" } else { "" })
            .lit("\" title=\"");
        match (lang, missed) {
            (Lang::Fr, false) => h.textf(format_args!("échéance le {deadline}")),
            (Lang::Fr, true) => h.textf(format_args!("échéance le {deadline}, dépassée")),
            (Lang::En, false) => h.textf(format_args!("deadline {deadline}")),
            (Lang::En, true) => h.textf(format_args!("deadline {deadline}, missed")),
        };
        h.lit("\" style=\"left:")
            .num(px(fit::deadline_x(tl, deadline)))
            .lit("px;top:")
            .num(px(y - 1.0))
            .lit("px\" aria-hidden=\"true\">⚑</div>");
    }
}

/// Up to this many bars, selecting a bar shows its floats (one critical path of the
/// schedule per state, kept until the state changes); above, the line says which tool
/// gives them.
pub const DETAILS_FLOATS_MAX_BARS: usize = 20_000;

thread_local! {
    /// The critical path of the state last drawn or read (`Doc::stamp`), with its marks.
    static TIMINGS: std::cell::RefCell<Option<(u64, Option<std::rc::Rc<PathMarks>>)>> =
        const { std::cell::RefCell::new(None) };
}

/// A state's critical path and what the chart marks from it besides the bars.
#[derive(Debug)]
pub struct PathMarks {
    pub path: palmaplan_model::cpm::CriticalPath,
    /// The critical milestones, by id.
    pub milestones: IdSet<u64>,
    /// The driving links (both ends critical, no slack between them), by link id.
    pub links: IdSet<u64>,
}

impl PathMarks {
    /// The marks of a critical path: its critical milestones and the model's driving
    /// links, so that the chart shows how the critical bars hold each other, not only
    /// which they are.
    pub fn of(path: palmaplan_model::cpm::CriticalPath) -> PathMarks {
        let milestones = path
            .items
            .iter()
            .filter(|t| t.critical && t.kind == palmaplan_model::cpm::ItemKind::Milestone)
            .map(|t| t.item.0)
            .collect();
        let links = path.critical_links.iter().map(|l| l.0).collect();
        PathMarks {
            path,
            milestones,
            links,
        }
    }
}

/// The critical path of this state with its marks, computed once per state (None above
/// `DETAILS_FLOATS_MAX_BARS` bars, or when the links loop).
fn path_of(doc: &Doc) -> Option<std::rc::Rc<PathMarks>> {
    if doc.s.bars.len() > DETAILS_FLOATS_MAX_BARS {
        return None;
    }
    let at = doc.stamp;
    TIMINGS.with(|t| {
        let mut t = t.borrow_mut();
        if t.as_ref().is_none_or(|(seen, _)| *seen != at) {
            let path = palmaplan_model::cpm::critical_path(&doc.s).ok();
            *t = Some((at, path.map(|p| std::rc::Rc::new(PathMarks::of(p)))));
        }
        t.as_ref()?.1.clone()
    })
}

/// The selected bar's timing (early and late dates, floats), from the critical path of
/// this state.
fn timing_of(doc: &Doc, bar: BarId) -> Option<palmaplan_model::cpm::ItemTiming> {
    path_of(doc)?.path.timing(ItemId(bar.0)).cloned()
}

/// Each bar at risk with why, in words.
type Reasons = std::rc::Rc<Vec<(BarId, String)>>;

thread_local! {
    /// Why the bars of the state last drawn are at risk, at a status date and in a
    /// language, by bar id.
    static REASONS: std::cell::RefCell<Option<(u64, Date, Lang, Reasons)>> =
        const { std::cell::RefCell::new(None) };
}

/// Why each bar at risk is, in words (`text::bar_risk_reasons` over the model's risks at
/// the status date), computed once per state; None above `DETAILS_FLOATS_MAX_BARS` bars,
/// where a pass over every risk at each change would hold the page: the bar then says
/// "at risk" only.
fn reasons_of(doc: &Doc, today: Date, lang: Lang) -> Option<Reasons> {
    if doc.s.bars.len() > DETAILS_FLOATS_MAX_BARS {
        return None;
    }
    REASONS.with(|r| {
        let mut r = r.borrow_mut();
        match r.as_ref() {
            Some((stamp, day, l, v)) if *stamp == doc.stamp && *day == today && *l == lang => {
                Some(v.clone())
            }
            _ => {
                let v = std::rc::Rc::new(risk_reasons(&doc.s, today, lang));
                *r = Some((doc.stamp, today, lang, v.clone()));
                Some(v)
            }
        }
    })
}

/// Why each bar of `s` is at risk at the status date `today`, by bar id.
pub fn risk_reasons(s: &Schedule, today: Date, lang: Lang) -> Vec<(BarId, String)> {
    let risks = risk::risks_at(s, today);
    palmaplan_model::text::bar_risk_reasons(s, &risks, lang)
}

/// The selected bar in one line: its dates and working days, its late dates and total
/// and free float (critical or not), its constraints and deadline: what a planner
/// reads before moving it.
pub fn details_text(
    doc: &Doc,
    bar: BarId,
    lang: Lang,
    today: Date,
    reference: Option<&Schedule>,
) -> Option<String> {
    let b = doc.s.bar(bar)?;
    let work = doc.cal.working_days_in(b.start, b.end);
    let days = |n: i64| match (lang, n.abs() <= 1) {
        (Lang::Fr, true) => format!("{n}\u{a0}jour ouvré"),
        (Lang::Fr, false) => format!("{n}\u{a0}jours ouvrés"),
        (Lang::En, _) if n == 1 => "1 working day".to_owned(),
        (Lang::En, _) => format!("{n} working days"),
    };
    let mut parts = vec![format!(
        "{} · {} → {} ({})",
        b.label,
        b.start,
        b.end,
        days(work)
    )];
    match timing_of(doc, bar) {
        Some(t) => {
            parts.push(match lang {
                Lang::Fr => format!("au plus tard {} → {}", t.late_start, t.late_finish),
                Lang::En => format!("late {} → {}", t.late_start, t.late_finish),
            });
            parts.push(match lang {
                Lang::Fr => format!(
                    "marge totale {}, libre {}{}",
                    days(t.total_float),
                    days(t.free_float),
                    if t.critical { " · critique" } else { "" }
                ),
                Lang::En => format!(
                    "total float {}, free {}{}",
                    days(t.total_float),
                    days(t.free_float),
                    if t.critical { " · critical" } else { "" }
                ),
            });
        }
        None if doc.s.bars.len() > DETAILS_FLOATS_MAX_BARS => parts.push(
            tr(
                lang,
                "marges\u{a0}: schedule_floats",
                "floats: schedule_floats",
            )
            .to_owned(),
        ),
        None => {}
    }
    parts.push(match (lang, b.actual_finish) {
        (Lang::Fr, Some(f)) => format!("terminé le {f}"),
        (Lang::En, Some(f)) => format!("finished on {f}"),
        (Lang::Fr, None) => format!("avancement {}\u{202f}%", b.progress),
        (Lang::En, None) => format!("{}% complete", b.progress),
    });
    if let Some(l) = palmaplan_model::tracking::lateness_of(&doc.cal, b, today) {
        let n = l.by_days;
        parts.push(match (lang, l.kind, n) {
            (Lang::Fr, palmaplan_model::tracking::LateKind::Late, 1) => {
                "en retard de 1\u{a0}jour ouvré".to_owned()
            }
            (Lang::Fr, palmaplan_model::tracking::LateKind::Late, n) => {
                format!("en retard de {n}\u{a0}jours ouvrés")
            }
            (Lang::Fr, palmaplan_model::tracking::LateKind::Overdue, 1) => {
                "fin dépassée de 1\u{a0}jour ouvré".to_owned()
            }
            (Lang::Fr, palmaplan_model::tracking::LateKind::Overdue, n) => {
                format!("fin dépassée de {n}\u{a0}jours ouvrés")
            }
            (Lang::En, palmaplan_model::tracking::LateKind::Late, 1) => {
                "late by 1 working day".to_owned()
            }
            (Lang::En, palmaplan_model::tracking::LateKind::Late, n) => {
                format!("late by {n} working days")
            }
            (Lang::En, palmaplan_model::tracking::LateKind::Overdue, 1) => {
                "overdue by 1 working day".to_owned()
            }
            (Lang::En, palmaplan_model::tracking::LateKind::Overdue, n) => {
                format!("overdue by {n} working days")
            }
        });
    }
    // Against the baseline shown under the chart: how far its start and finish slipped,
    // in working days (positive: later than the baseline).
    if let Some(was) = reference.and_then(|r| r.bar(bar)) {
        let cal = &doc.cal;
        let start = cal.start_boundary(b.start) - cal.start_boundary(was.start);
        let finish = cal.finish_boundary(b.end) - cal.finish_boundary(was.end);
        let signed = |n: i64| {
            if n > 0 {
                format!("+{n}")
            } else {
                n.to_string()
            }
        };
        let days = |n: i64| match (lang, n.abs() == 1 || (lang == Lang::Fr && n == 0)) {
            (Lang::Fr, true) => format!("{}\u{a0}jour ouvré", signed(n)),
            (Lang::Fr, false) => format!("{}\u{a0}jours ouvrés", signed(n)),
            (Lang::En, true) => format!("{} working day", signed(n)),
            (Lang::En, false) => format!("{} working days", signed(n)),
        };
        parts.push(match lang {
            Lang::Fr => format!(
                "par rapport à la référence\u{a0}: début {}, fin {}",
                days(start),
                days(finish)
            ),
            Lang::En => format!(
                "against the baseline: start {}, finish {}",
                days(start),
                days(finish)
            ),
        });
    }
    for c in doc.s.item_constraints(ItemId(bar.0)).unwrap_or_default() {
        parts.push(palmaplan_model::text::constraint_phrase(c, lang));
    }
    if let Some(deadline) = b.deadline {
        parts.push(match (lang, b.end > deadline) {
            (Lang::Fr, false) => format!("échéance le {deadline}"),
            (Lang::Fr, true) => format!("échéance le {deadline}, dépassée"),
            (Lang::En, false) => format!("deadline {deadline}"),
            (Lang::En, true) => format!("deadline {deadline}, missed"),
        });
    }
    Some(parts.join(" · "))
}

thread_local! {
    /// What the legend lists for a state (`Doc::stamp`) at a status date: computed once,
    /// as finding late bars is a pass over the schedule.
    static LEGEND: std::cell::RefCell<Option<(u64, Date, Marks)>> = const { std::cell::RefCell::new(None) };
}

/// Which marks the chart may draw for a state, so the legend names only those.
#[derive(Clone, Copy, Debug, Default)]
struct Marks {
    late: bool,
    overdue: bool,
    constraint: bool,
    deadline: bool,
}

fn marks_of(doc: &Doc, today: Date) -> Marks {
    LEGEND.with(|l| {
        let mut l = l.borrow_mut();
        if let Some((stamp, day, m)) = *l
            && stamp == doc.stamp
            && day == today
        {
            return m;
        }
        let late = palmaplan_model::tracking::lateness(&doc.s, &doc.cal, today);
        let m = Marks {
            late: late
                .iter()
                .any(|x| x.kind == palmaplan_model::tracking::LateKind::Late),
            overdue: late
                .iter()
                .any(|x| x.kind == palmaplan_model::tracking::LateKind::Overdue),
            constraint: doc
                .s
                .bars
                .iter()
                .any(|b| b.pin.is_some() || b.constraint.is_some())
                || doc.s.milestones.iter().any(|m| m.constraint.is_some()),
            deadline: doc.s.bars.iter().any(|b| b.deadline.is_some())
                || doc.s.milestones.iter().any(|m| m.deadline.is_some()),
        };
        *l = Some((doc.stamp, today, m));
        m
    })
}

/// The legend of the marks this chart draws: only those present (critical bars,
/// milestones and links when the critical path is shown, at risk, late, overdue,
/// constraints, deadlines).
pub fn legend_entries(st: St, doc: &Doc) -> Vec<(&'static str, &'static str)> {
    let lang = st.lang.get();
    let t = |fr: &'static str, en: &'static str| tr(lang, fr, en);
    let m = marks_of(doc, st.today.get());
    let show_crit = st.options.with(|o| o.critical_path == Some(true));
    let marks = show_crit.then(|| path_of(doc)).flatten();
    let has = |f: fn(&PathMarks) -> bool| marks.as_deref().is_some_and(f);
    let entries: [(bool, &'static str, &'static str); 8] = [
        (
            show_crit && !doc.critical.is_empty(),
            "crit",
            t("critique", "critical"),
        ),
        (
            has(|m| !m.milestones.is_empty()),
            "cms",
            t("jalon critique", "critical milestone"),
        ),
        (
            has(|m| !m.links.is_empty()),
            "clk",
            t("lien critique", "critical link"),
        ),
        (
            !doc.at_risk.is_empty() || m.late || m.overdue,
            "risk",
            t("à risque", "at risk"),
        ),
        (m.late, "late", t("en retard", "late")),
        (m.overdue, "overdue", t("fin dépassée", "overdue")),
        (m.constraint, "con", t("contrainte", "constraint")),
        (m.deadline, "dl", t("échéance", "deadline")),
    ];
    entries
        .into_iter()
        .filter(|e| e.0)
        .map(|(_, key, name)| (key, name))
        .collect()
}

/// A click on an element with `data-act`.
fn act(st: St, what: &str, el: &web_sys::Element) {
    let num = |k: &str| el.get_attribute(k).and_then(|v| v.parse::<u64>().ok());
    match what {
        "reload" => reload(st),
        "expand" => st.expanded.set(true),
        "zoom-in" => zoom_by(st, true),
        "zoom-out" => zoom_by(st, false),
        "undo" => app::write(st, "undo", json!({})),
        "redo" => app::write(st, "redo", json!({})),
        "ask" => ask(st),
        "help" => {
            if let Some(url) = st.help.get_untracked()
                && host::with_bridge(|b| b.announces("openLinks"))
            {
                host::request("ui/open-link", json!({ "url": url }), Kind::Read, |_| {});
            }
        }
        "full" => full_screen(st),
        "status" => {
            if let (Some(action), Some(to)) = (num("data-action"), el.get_attribute("data-to")) {
                // The board is drawn again with the card in its new column: the focus
                // follows it there (`boards::follow_card`).
                crate::boards::follow_card(Some(crate::boards::Follow {
                    action,
                    dir: el.get_attribute("data-dir").unwrap_or_default(),
                    to: to.clone(),
                    at: host::now_precise(),
                }));
                app::write_then(
                    st,
                    "set_action_status",
                    json!({ "action": action, "status": to }),
                    None,
                    || crate::boards::follow_card(None),
                );
            }
        }
        "delete-yes" => {
            if let Some(bar) = st.confirm.get_untracked() {
                st.confirm.set(None);
                select(st, None);
                // Confirmed in the view's own words, links and actions included: the
                // server's confirmation is the one the person just gave.
                app::write(
                    st,
                    "delete_periods",
                    json!({ "bars": [bar.0], "confirm": true }),
                );
            }
        }
        "delete-no" => st.confirm.set(None),
        "accept" => app::accept(st),
        "decline" => st.declined.set(true),
        _ => {}
    }
}

/// One zoom step in (`finer`) or out from the scale shown (fitted or chosen). The
/// zoom chosen is kept from then on: resizes and full screen no longer refit it.
fn zoom_by(st: St, finer: bool) {
    let Some(lay) = st.lay.get_untracked() else {
        return;
    };
    if let Some(z) = palmaplan_model::fit::step(lay.ppd, finer) {
        st.zoom.set(Some(z));
        st.relayout();
    }
}

fn full_screen(st: St) {
    let want = if st.fullscreen.get_untracked() {
        "inline"
    } else {
        "fullscreen"
    };
    if !host::with_bridge(|b| b.offers_display_mode(want)) {
        return;
    }
    host::request(
        "ui/request-display-mode",
        json!({ "mode": want }),
        Kind::Read,
        move |r| {
            // The mode the host actually applied (VS Code always answers inline).
            if let Ok(v) = r {
                st.fullscreen
                    .set(v.get("mode").and_then(Value::as_str) == Some("fullscreen"));
                st.relayout();
            }
        },
    );
}

fn ask(st: St) {
    let Some(doc) = st.doc.get_untracked() else {
        return;
    };
    if !host::with_bridge(|b| b.announces("message")) {
        return;
    }
    let lang = st.lang.get_untracked();
    let text = match st.selected.get_untracked().and_then(|b| doc.s.bar(b)) {
        Some(b) => match lang {
            Lang::Fr => format!(
                "À propos du bloc «\u{a0}{}\u{a0}» (id {}) du planning «\u{a0}{}\u{a0}»\u{a0}: ",
                b.label, b.id.0, doc.s.name
            ),
            Lang::En => format!(
                "About the bar “{}” (id {}) of the schedule “{}”: ",
                b.label, b.id.0, doc.s.name
            ),
        },
        None => match lang {
            Lang::Fr => format!("À propos du planning «\u{a0}{}\u{a0}»\u{a0}: ", doc.s.name),
            Lang::En => format!("About the schedule “{}”: ", doc.s.name),
        },
    };
    host::request(
        "ui/message",
        json!({ "role": "user", "content": [{ "type": "text", "text": text }] }),
        Kind::Read,
        |_| {},
    );
}

/// Reload after a stall: load again what the result named, else ask the host's tool
/// again when it is a read and its name is known, else wait another 8 s.
fn reload(st: St) {
    st.card.update(|c| c.restart(host::now()));
    st.load_error.set(None);
    if let Some(doc) = st.doc.get_untracked() {
        app::load(st, doc.id);
        return;
    }
    let tool = host::with_bridge(|b| {
        b.context()
            .pointer("/toolInfo/tool/name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let input = st.card.with_untracked(|c| c.input().cloned());
    if let (Some(tool), Some(input)) = (tool, input)
        && !crate::phase::tool_writes(&tool)
    {
        st.call(&tool, input, move |r| {
            if let Ok(reply) = r {
                st.card.update(|c| {
                    c.on_result(json!({
                        "content": [{"type": "text", "text": reply.text}],
                        "structuredContent": reply.structured,
                        "isError": reply.is_error,
                        "_meta": reply.meta,
                    }))
                });
            }
        });
    }
}

/// The element id of a selected row, group, milestone (or bar), for
/// `aria-activedescendant`.
fn picked_id(n: Named) -> String {
    match n {
        Named::Bar(b) => format!("pp-b{}", b.0),
        Named::Milestone(m) => format!("pp-m{}", m.0),
        Named::Row(r) => format!("pp-r{}", r.0),
        Named::Group(g) => format!("pp-g{}", g.0),
    }
}

/// The element matching `selector` at or above an event's target.
fn closest(e: &web_sys::Event, selector: &str) -> Option<web_sys::Element> {
    use wasm_bindgen::JsCast;
    e.target()?
        .dyn_into::<web_sys::Element>()
        .ok()?
        .closest(selector)
        .ok()?
}

fn select_next(st: St, step: i64) {
    let order = bar_order(st);
    if order.is_empty() {
        return;
    }
    let next = match st
        .selected
        .get_untracked()
        .and_then(|s| order.iter().position(|b| *b == s))
    {
        Some(i) => (i as i64 + step).clamp(0, order.len() as i64 - 1) as usize,
        None => 0,
    };
    select(st, Some(order[next]));
}

/// The bars in display order: line by line, then by start.
fn bar_order(st: St) -> Vec<BarId> {
    item_order(st, false)
        .into_iter()
        .map(|i| BarId(i.0))
        .collect()
}

/// The bars, and the milestones with `milestones`, in display order.
fn item_order(st: St, milestones: bool) -> Vec<ItemId> {
    let Some(doc) = st.doc.get_untracked() else {
        return Vec::new();
    };
    let Some(lay) = st.lay.get_untracked() else {
        return Vec::new();
    };
    let all = 0..lay.lines.len();
    let order: Vec<ItemId> = layout::visible_items(
        &doc.index,
        &doc.s,
        &lay.lines,
        all,
        lay.from.add_days(-100_000),
        lay.to.add_days(100_000),
    )
    .into_iter()
    .filter_map(|it| match it {
        VisibleItem::Bar { id, .. } => Some(ItemId(id.0)),
        VisibleItem::Milestone { id, .. } => milestones.then_some(ItemId(id.0)),
    })
    .collect();
    order
}

/// Whether a lock holds `bar`; if so the notice says which, who set it and when, and
/// the gesture is not sent (the server would refuse it the same way).
fn held_by_lock(st: St, bar: BarId) -> bool {
    held_item(st, ItemId(bar.0))
}

/// [`held_by_lock`] for a bar or a milestone (a link's end).
fn held_item(st: St, item: ItemId) -> bool {
    let Some(doc) = st.doc.get_untracked() else {
        return false;
    };
    edit::item_lock(&doc.s, item).is_some_and(|l| say_held(st, &doc.s, l))
}

/// [`held_by_lock`] for a row (a bar drawn in it).
fn held_row(st: St, row: palmaplan_model::RowId) -> bool {
    let Some(doc) = st.doc.get_untracked() else {
        return false;
    };
    doc.s.row_lock(row).is_some_and(|l| say_held(st, &doc.s, l))
}

/// [`held_by_lock`] for what a rename names.
fn held_named(st: St, n: Named) -> bool {
    let Some(doc) = st.doc.get_untracked() else {
        return false;
    };
    edit::named_lock(&doc.s, n).is_some_and(|l| say_held(st, &doc.s, l))
}

/// Says which lock holds what a gesture touches; true, so the gesture stops.
fn say_held(st: St, s: &palmaplan_model::Schedule, lock: &palmaplan_model::Lock) -> bool {
    let lang = st.lang.get_untracked();
    // What it holds by its name: the person reads it (the model's phrase gives ids).
    let held = command::lock_summary_named(lock, s, lang);
    st.notice.set(Notice::Error(match lang {
        Lang::Fr => format!(
            "Verrouillé\u{a0}: {held}. Rien de ce qu'il tient ne peut être modifié tant que le verrou tient."
        ),
        Lang::En => {
            format!("Locked: {held}. Nothing it holds can be changed while the lock holds.")
        }
    }));
    true
}

pub fn select(st: St, bar: Option<BarId>) {
    // Choosing a bar leaves a selected link, row, group or milestone and a rename
    // (unwritten) behind.
    if matches!(
        st.edit.get_untracked(),
        edit::Edit::Link(_) | edit::Edit::Picked(_) | edit::Edit::Rename(_)
    ) {
        st.edit.set(edit::Edit::None);
    }
    st.selected.set(bar);
    update_model_context(st);
}

thread_local! {
    /// Whether the bar being drawn in a row changed day since the press (a click alone
    /// draws nothing).
    static CREATE_MOVED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Whether the rename field still has to take the focus once it is drawn (a bar
    /// just made is renamed once the written state brings it).
    static FOCUS_RENAME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The last bar clicked (pressed and released without moving) and when, in ms: a
    /// press on it soon after renames it.
    static LAST_PRESS: std::cell::Cell<(u64, f64)> = const { std::cell::Cell::new((0, 0.0)) };
}

/// The rename field, when one is drawn.
fn rename_field(inner: &web_sys::Element) -> Option<web_sys::HtmlInputElement> {
    let el = inner.query_selector(".pp-rename").ok()??;
    wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(el).ok()
}

/// Whether an element has the focus.
fn is_active(el: &web_sys::HtmlInputElement) -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .is_some_and(|a| a == ***el)
}

/// Where a pointer is in the items' coordinates (those of the layout's lines and the
/// timeline).
fn items_point(e: &web_sys::MouseEvent) -> Option<(f64, f64)> {
    let items = web_sys::window()?
        .document()?
        .query_selector(".pp-items")
        .ok()??;
    let r = items.get_bounding_client_rect();
    Some((
        f64::from(e.client_x()) - r.left(),
        f64::from(e.client_y()) - r.top(),
    ))
}

/// The link whose arrow passes nearest the press on `hit`, the pointer's ground of
/// the links drawn beside it (their paths in the same SVG, in the items' coordinates).
fn link_at(hit: &web_sys::Element, e: &web_sys::MouseEvent) -> Option<u64> {
    nearest_link(hit, e).map(|(id, _)| id)
}

/// `link_at`, with the arrow's element.
fn nearest_link(
    hit: &web_sys::Element,
    e: &web_sys::MouseEvent,
) -> Option<(u64, web_sys::Element)> {
    let (x, y) = items_point(e)?;
    let mut best: Option<(f64, u64, web_sys::Element)> = None;
    // The SVG's children: the arrows, then this ground (no selector list needed).
    let mut next = hit.parent_element()?.first_element_child();
    while let Some(p) = next {
        next = p.next_element_sibling();
        let id = p
            .get_attribute("data-link")
            .and_then(|v| v.parse::<u64>().ok());
        if let (Some(id), Some(d)) = (id, p.get_attribute("d"))
            && let Some(dist) = edit::distance_to_path(&d, (x, y))
            && best.as_ref().is_none_or(|(b, _, _)| dist < *b)
        {
            best = Some((dist, id, p));
        }
    }
    best.map(|(_, id, p)| (id, p))
}

/// The bar or milestone under the pointer, and which end of it is nearer: the left
/// half is its start, the right half its end.
fn item_under(e: &web_sys::MouseEvent) -> Option<(Option<ItemId>, Edge)> {
    let doc = web_sys::window()?.document()?;
    let el = doc
        .element_from_point(e.client_x() as f32, e.client_y() as f32)?
        .closest("[data-bar],[data-milestone]")
        .ok()??;
    let id = el
        .get_attribute("data-bar")
        .or_else(|| el.get_attribute("data-milestone"))?
        .parse::<u64>()
        .ok()?;
    let r = el.get_bounding_client_rect();
    let edge = if f64::from(e.client_x()) < r.left() + r.width() / 2.0 {
        Edge::Start
    } else {
        Edge::End
    };
    Some((Some(ItemId(id)), edge))
}

/// The row line at `y` and the day at `x` (the items' coordinates), if a row is there.
fn row_day_at(st: St, x: f64, y: f64) -> Option<(palmaplan_model::RowId, Date)> {
    let lay = st.lay.get_untracked()?;
    let i = lay.lines.partition_point(|l| l.y + l.height <= y);
    let line = lay.lines.get(i).filter(|l| l.y <= y)?;
    let LineKind::Row { id, .. } = line.kind else {
        return None;
    };
    let tl = Timeline {
        origin: lay.from,
        px_per_day: lay.ppd,
    };
    Some((id, tl.date_at(x)))
}

fn focus_chart() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".pp-scroll").ok().flatten())
        .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok())
    {
        let _ = el.focus();
    }
}

/// Opens the rename field over a bar or a milestone, or in a row's or a group's name
/// cell (when the role and the locks allow). A view that may not write says why.
fn start_rename(st: St, n: Named) {
    if !st.can_write() {
        st.notice.set(Notice::Error(
            st.tr(
                "Cette vue est en lecture seule\u{a0}: rien n'y est renommé.",
                "This view is read-only: nothing is renamed in it.",
            )
            .into(),
        ));
        return;
    }
    if held_named(st, n) {
        return;
    }
    st.edit.set(edit::Edit::Rename(n));
    FOCUS_RENAME.with(|f| f.set(true));
}

/// Ends a rename: writes the name typed (`commit`), or gives up. An empty name is
/// refused here, the field staying open; an unchanged one writes nothing.
fn finish_rename(st: St, commit: bool) {
    use wasm_bindgen::JsCast;
    let edit::Edit::Rename(n) = st.edit.get_untracked() else {
        return;
    };
    let field = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".pp-rename").ok().flatten())
        .and_then(|el| el.dyn_into::<web_sys::HtmlInputElement>().ok());
    let typed = field.as_ref().map(web_sys::HtmlInputElement::value);
    if commit && let (Some(typed), Some(doc)) = (typed, st.doc.get_untracked()) {
        let Some(args) = edit::rename_args(n, &typed, doc.rank) else {
            st.notice.set(Notice::Error(
                edit::empty_name(st.lang.get_untracked()).into(),
            ));
            if let Some(f) = field {
                let _ = f.focus();
            }
            return;
        };
        if edit::current_name(&doc.s, n).is_some_and(|was| was != typed.trim()) {
            app::write(st, "apply_patch", args);
        }
    }
    // A row, a group or a milestone stays selected, its new name read back.
    st.edit.set(match n {
        Named::Bar(_) => edit::Edit::None,
        n => edit::Edit::Picked(n),
    });
    focus_chart();
}

/// The shown schedule when `link` is in it and no lock holds either of its ends (a
/// lock's refusal is said by `held_item`).
fn link_free(st: St, link: palmaplan_model::LinkId) -> Option<std::sync::Arc<app::Doc>> {
    let doc = st.doc.get_untracked()?;
    let l = doc.s.links.iter().find(|l| l.id == link)?;
    if held_item(st, l.from) || held_item(st, l.to) {
        return None;
    }
    Some(doc)
}

/// Moves a link's lag by `step` units (unless a lock holds one of its ends).
fn change_lag(st: St, link: palmaplan_model::LinkId, step: i32) {
    if let Some(doc) = link_free(st, link)
        && let Some(args) = edit::lag_args(&doc.s, link, step, doc.rank)
    {
        app::write(st, "apply_patch", args);
    }
}

/// Deletes a link (unless a lock holds one of its ends).
fn delete_link(st: St, link: palmaplan_model::LinkId) {
    if let Some(doc) = link_free(st, link) {
        st.edit.set(edit::Edit::None);
        app::write(st, "apply_patch", edit::delete_link_args(link, doc.rank));
    }
}

/// Writes the link drawn, with the type its ends chose.
fn finish_link(st: St, k: &edit::Linking) {
    let (Some(to), Some(doc)) = (k.to, st.doc.get_untracked()) else {
        return;
    };
    let kind = edit::link_kind(k.from_edge, k.to_edge);
    let Some(args) = edit::add_link_args(k.from, to, kind, doc.rank) else {
        return;
    };
    if held_item(st, k.from) || held_item(st, to) {
        return;
    }
    app::write(st, "apply_patch", args);
}

/// Writes a new bar in `row` over `span`, then renames it in place once it is drawn.
fn create_bar(st: St, row: palmaplan_model::RowId, span: (Date, Date)) {
    let Some(doc) = st.doc.get_untracked() else {
        return;
    };
    if held_row(st, row) {
        return;
    }
    // The schedule's next id, which the server takes as given (or refuses, if someone
    // took it: then the rank is out of date too).
    let id = BarId(doc.s.next_id);
    let label = edit::new_bar_label(st.lang.get_untracked());
    let args = edit::add_bar_args(id, row, label, span, doc.rank);
    app::write_and(
        st,
        "apply_patch",
        args,
        None,
        || {},
        move || {
            select(st, Some(id));
            st.edit.set(edit::Edit::Rename(Named::Bar(id)));
            FOCUS_RENAME.with(|f| f.set(true));
        },
    );
}

/// Builds the chart's HTML once for `doc`, put in the state for that moment only and
/// without a redraw, then puts the state back (see `app::warm_up`), and has the browser
/// lay that HTML out once out of sight. Nothing is shown.
pub fn warm_up_chart(st: St, doc: app::Doc) {
    let (saved_doc, saved_lay) = (st.doc.get_untracked(), st.lay.get_untracked());
    st.doc
        .update_untracked(|d| *d = Some(std::sync::Arc::new(doc)));
    st.relayout();
    let html = chart_html(st, (0.0, 0.0), (1_000.0, 500.0), None, None);
    // Its blocks are of a state that is not shown.
    DRAWN.set(None);
    GRID.set(None);
    st.doc.update_untracked(|d| *d = saved_doc);
    st.lay.update_untracked(|l| *l = saved_lay);
    #[cfg(target_arch = "wasm32")]
    lay_out_out_of_sight(html.as_str());
    #[cfg(not(target_arch = "wasm32"))]
    let _ = html;
}

/// Lays out `html` in an element off the page and removes it in the same task, so it is
/// never painted. The browser's first layout of a chart pays for things it does once
/// (the fonts of the labels, the style rules' first use): paid here, while the host has
/// not sent the tool result yet, they no longer delay the first screen.
#[cfg(target_arch = "wasm32")]
fn lay_out_out_of_sight(html: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Some(body), Ok(probe)) = (doc.body(), doc.create_element("div")) else {
        return;
    };
    let _ = probe.set_attribute(
        "style",
        "position:absolute;left:-99999px;top:0;width:1000px;height:500px;overflow:hidden",
    );
    let _ = probe.set_attribute("aria-hidden", "true");
    probe.set_inner_html(html);
    let _ = body.append_child(&probe);
    if let Ok(p) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(probe.clone()) {
        let _ = p.offset_height();
    }
    probe.remove();
}

/// Lines per block: the chart's grid cells and items are drawn in blocks of lines,
/// each replaced only when its own text changes. One line, as four rather than eight
/// and eight rather than sixteen before: the frames that add a block (its HTML parsed,
/// styled, laid out, painted) are the slow ones, and a smaller block spreads the lines a
/// scrolling brings over its frames evenly and draws none beyond the overscan. Render
/// benchmark, the builds run in turn (2026-12-06, strict, loaded chart), frames missed
/// scrolling 120 px a frame: 10,000 bars 10.9-11.8 % with four lines (four rounds),
/// 4.2-10.1 % with two, 0.8-5 % with one (three rounds); 100,000 bars 8.4 / 9.2 % with
/// four, 0 / 0.8 % with one (interval p95 27.3 / 32.4 ms against 19.8 / 20.4 ms).
const BLOCK_LINES: usize = 1;

/// What starts each block in a container's text (a comment: escaped text never holds
/// one), followed by the block's element.
const BLOCK: &str = "<!--b-->";

/// `s` split at each `marker` (`CUT`, `BLOCK`: comments, which start `<!`), as
/// `str::split` would. Found from the `!`s (few: the markers, and what user text
/// holds), each checked for the marker: the chart's text is split at every frame it
/// scrolls, and `str::split`'s search for a string took ~0.2 ms of such a frame in the
/// JavaScript translation (e2e/README.md).
fn split_at_marker<'a>(s: &'a str, marker: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let (mut from, mut at) = (0, 0);
    while let Some(i) = s[at..].find('!') {
        let bang = at + i;
        at = bang + 1;
        if bang > 0 && s.as_bytes()[bang - 1..].starts_with(marker.as_bytes()) {
            parts.push(&s[from..bang - 1]);
            from = bang - 1 + marker.len();
            at = from;
        }
    }
    parts.push(&s[from..]);
    parts
}

/// Starts block `k`. In the grid, an element without a box of its own
/// (`display:contents`), so its cells are placed as if it were not there. In the items'
/// container, a box as large as the container, so its bars are placed as in it, and
/// contained (`contain:size layout style`, style.css), so a block added while scrolling
/// is styled and laid out alone. There, the blocks of the links between two blocks of
/// lines come first, numbered as the lower of their two blocks (from 0), then the lines'
/// blocks, numbered from the number of blocks the whole chart has.
fn open_block(h: &mut H, k: usize) {
    h.lit(BLOCK)
        .lit("<div class=\"pp-blk\" data-blk=\"")
        .num(k)
        .lit("\">");
}

/// A line's cell in the grid: a group's name (with its fold button when the whole chart
/// is shown) and row count, or a row's name and member.
fn grid_line(
    h: &mut H,
    doc: &Doc,
    line: &layout::Line,
    picked: Option<Named>,
    full: bool,
    lang: Lang,
) {
    // A row with lanes is taller than a line.
    let top = |h: &mut H| {
        h.lit(" style=\"top:").num(px(line.y));
        if line.height != LINE_HEIGHT {
            h.lit("px;height:").num(px(line.height));
        }
        h.lit("px\">");
    };
    match &line.kind {
        LineKind::Group {
            id,
            collapsed,
            rows,
            ..
        } => {
            let name = doc.s.group(*id).map_or("", |g| &g.name);
            let on = picked == Some(Named::Group(*id));
            h.lit("<div class=\"pp-cell pp-group")
                .lit(if on { " sel\" id=\"pp-g" } else { "" });
            if on {
                h.num(id.0);
            }
            h.lit("\" role=\"rowheader\" aria-expanded=\"")
                .lit(if *collapsed { "false" } else { "true" })
                .lit("\"");
            if on {
                h.lit(" aria-selected=\"true\"");
            }
            h.lit(" data-grp=\"").num(id.0).lit("\"");
            top(h);
            if full {
                let (arrow, what) = if *collapsed {
                    ("▸", tr(lang, "Déplier", "Expand"))
                } else {
                    ("▾", tr(lang, "Replier", "Collapse"))
                };
                h.lit("<button type=\"button\" class=\"pp-fold-g\" data-group=\"")
                    .num(id.0)
                    .lit("\" aria-label=\"")
                    .lit(what)
                    .lit(" ")
                    .text(name)
                    .lit("\">")
                    .lit(arrow)
                    .lit("</button>");
            }
            h.lit("<span>")
                .text(name)
                .lit("</span><span class=\"pp-count\"> (")
                .num(*rows)
                .lit(")</span></div>");
        }
        LineKind::Row { id, .. } => {
            let row = doc.s.row(*id);
            let name = row.map_or("", |r| &r.name);
            let member = row
                .and_then(|r| r.member)
                .and_then(|m| doc.s.member(m))
                .map(|m| &m.name);
            let on = picked == Some(Named::Row(*id));
            h.lit("<div class=\"pp-cell");
            if on {
                h.lit(" sel\" id=\"pp-r").num(id.0);
            }
            h.lit("\" role=\"rowheader\"");
            if on {
                h.lit(" aria-selected=\"true\"");
            }
            h.lit(" data-row=\"").num(id.0).lit("\"");
            // The member's name folds first on a narrow grid: the tooltip keeps it.
            if let Some(m) = member {
                h.lit(" title=\"").text(name).lit(" — ").text(m).lit("\"");
            }
            top(h);
            h.lit("<span class=\"pp-rname\">").text(name).lit("</span>");
            if let Some(m) = member {
                h.lit("<span class=\"pp-member\">").text(m).lit("</span>");
            }
            h.lit("</div>");
        }
    }
}

/// Where `chart_html` cuts its text: the frame (the segments at even positions, which
/// make the containers) and the content of each container (odd positions: head, grid,
/// days, items). A comment, which escaped text can never contain.
const CUT: &str = "<!--/-->";

/// The chart's HTML for the viewport: header cells, grid cells, shading, today line,
/// roll-ups, bars, milestones and link arrows of the visible part only.
fn chart_html(
    st: St,
    (sl, stp): (f64, f64),
    (vw, vh): (f64, f64),
    preview: Option<Preview>,
    dragged: Option<BarId>,
) -> Html {
    let (Some(doc), Some(lay)) = (st.doc.get(), st.lay.get()) else {
        return Html::default();
    };
    // The shadow: the other side of a before/after, else the baseline version.
    let before = st.before.get().or_else(|| st.reference.get());
    let lang = st.lang.get();
    let gw = app::grid_width(&st);
    let show_tl = st.options.with(|o| o.panel.as_deref() != Some("grid"));
    if !show_tl {
        // No items drawn: the kept blocks would only hold an old state.
        DRAWN.set(None);
    }
    let show_crit = st.options.with(|o| o.critical_path == Some(true));
    let full = st.whole(true);
    let selected = st.selected.get();
    let today = st.today.get();
    let ppd = lay.ppd;
    let tl = Timeline {
        origin: lay.from,
        px_per_day: ppd,
    };
    let tw = if show_tl {
        tl.width_of(lay.from, lay.to)
    } else {
        0.0
    };
    let total_h = fit::total_height(&lay.lines);
    let vis = fit::visible_lines(&lay.lines, stp, (vh - HEAD).max(0.0), OVERSCAN);
    // Whole blocks of lines, so that a block's text stays the same while it is in view
    // and scrolling only adds and removes blocks (see `set_blocks`).
    let vis = (vis.start / BLOCK_LINES * BLOCK_LINES)
        ..vis
            .end
            .div_ceil(BLOCK_LINES)
            .saturating_mul(BLOCK_LINES)
            .min(lay.lines.len());
    // The days drawn: a band of three viewport widths, moved a whole width at a time,
    // so that scrolling sideways redraws the chart once per width, not every frame.
    let width_days = ((vw - gw).max(ppd) / ppd).ceil().max(7.0) as i32;
    let first_seen = tl.date_at((sl - gw).max(0.0));
    let band = lay.from.days_until(first_seen).div_euclid(width_days) - 1;
    let day_from = lay.from.add_days(band * width_days).max(lay.from);
    let day_to = lay.from.add_days((band + 3) * width_days).min(lay.to);
    let cal = &doc.cal;
    // While dragging, the critical path as the move would make it.
    let critical = preview
        .as_ref()
        .and_then(|p| p.critical.as_ref())
        .unwrap_or(&doc.critical);
    // The critical milestones and driving links of the state (a drag previews only the
    // bars': a link keeps its mark while both its ends are drawn critical).
    let marks = show_crit.then(|| path_of(&doc)).flatten();
    let no_ids = IdSet::default();
    let (crit_ms, crit_links) = marks
        .as_deref()
        .map_or((&no_ids, &no_ids), |m| (&m.milestones, &m.links));
    let reasons = reasons_of(&doc, today, lang);
    let crit_word = tr(lang, ", critique", ", critical");
    // The edit in progress, and whether this view may write (the link handles of the
    // selected bar are offered only then).
    let edit = st.edit.get();
    let writes = st.can_write();
    let target = match &edit {
        edit::Edit::Linking(k) => k.to.map(|t| t.0),
        _ => None,
    };
    let picked = match &edit {
        edit::Edit::Picked(n) => Some(*n),
        _ => None,
    };

    let mut h = H::with_capacity(16 * 1024);
    h.lit("<div class=\"pp-grid2\" style=\"grid-template-columns:")
        .num(px(gw))
        .lit("px ")
        .num(px(tw))
        .lit("px;grid-template-rows:")
        .num(px(HEAD))
        .lit("px ")
        .num(px(total_h))
        .lit("px\">");
    h.lit("<div class=\"pp-corner\">")
        .lit(tr(lang, "Lignes", "Rows"))
        .lit("</div><div class=\"pp-head\">")
        .lit(CUT);
    if show_tl && day_from <= day_to {
        let scale = layout::scale_at(lay.zoom, ppd, day_from, day_to, lang);
        let x0 = tl.x_of(day_from);
        for (class, ticks) in [
            ("pp-tick pp-major", &scale.major),
            ("pp-tick", &scale.minor),
        ] {
            for t in ticks {
                h.lit("<div class=\"")
                    .lit(class)
                    .lit("\" style=\"left:")
                    .num(px(x0 + t.x))
                    .lit("px;width:")
                    .num(px(t.width))
                    .lit("px\">")
                    .text(&t.label)
                    .lit("</div>");
            }
        }
    }
    h.lit(CUT).lit("</div><div class=\"pp-gridcol\">").lit(CUT);
    // The lines' texts kept from the last drawing, when it was made from the same
    // state, layout, language, pick and display (`GRID`).
    let grid_key = GridKey {
        doc: std::sync::Arc::clone(&doc),
        lay: std::sync::Arc::clone(&lay),
        lang,
        picked,
        full,
    };
    let mut cached: Vec<Option<Html>> = std::iter::repeat_with(|| None).take(vis.len()).collect();
    if let Some((was, first, texts)) = GRID.take()
        && was == grid_key
    {
        for (k, t) in texts.into_iter().enumerate() {
            if let Some(slot) = (first + k)
                .checked_sub(vis.start)
                .and_then(|j| cached.get_mut(j))
            {
                *slot = Some(t);
            }
        }
    }
    let mut lines_now = Vec::with_capacity(vis.len());
    for (i, line) in lay.lines[vis.clone()].iter().enumerate() {
        let at = vis.start + i;
        if at.is_multiple_of(BLOCK_LINES) || i == 0 {
            if i > 0 {
                h.lit("</div>");
            }
            open_block(&mut h, at / BLOCK_LINES);
        }
        let text = match cached[i].take() {
            Some(t) => t,
            None => {
                let mut t = H::new();
                grid_line(&mut t, &doc, line, picked, full, lang);
                t.finish()
            }
        };
        h.html(&text);
        lines_now.push(text);
    }
    GRID.set(Some((grid_key, vis.start, lines_now)));
    if !vis.is_empty() {
        h.lit("</div>");
    }
    // A row's or a group's new name, typed in its cell: in a block of its own, as
    // the items' edit is (see `edit_html`).
    if let edit::Edit::Rename(n @ (Named::Row(_) | Named::Group(_))) = &edit
        && let Some(line) = lay.lines.iter().find(|l| match (&l.kind, n) {
            (LineKind::Row { id, .. }, Named::Row(r)) => id == r,
            (LineKind::Group { id, .. }, Named::Group(g)) => id == g,
            _ => false,
        })
        && let Some(name) = edit::current_name(&doc.s, *n)
    {
        open_block(&mut h, usize::MAX - 1);
        rename_input(&mut h, lang, *n, name, (4.0, line.y + 3.0, gw - 8.0));
        h.lit("</div>");
    }
    h.lit(CUT);
    // The days' shading is as tall as the chart (style.css says why it is not kept in
    // the viewport).
    h.lit("</div><div class=\"pp-body\"><div class=\"pp-days\">")
        .lit(CUT);
    if show_tl {
        // Days off in view, at the zooms where a day is wide enough to see.
        if ppd >= 5.0 {
            let mut d = day_from;
            while d <= day_to {
                if !cal.is_working(d) {
                    h.lit("<div class=\"pp-off\" style=\"left:")
                        .num(px(tl.x_of(d)))
                        .lit("px;width:")
                        .num(px(ppd))
                        .lit("px\"></div>");
                }
                d = d.add_days(1);
            }
        }
        if today >= lay.from && today <= lay.to {
            h.lit("<div class=\"pp-today\" style=\"left:")
                .num(px(tl.x_of(today)))
                .lit("px\" title=\"")
                // Today in the schedule's zone: the status date progress is read at.
                .lit(tr(
                    lang,
                    "Aujourd'hui\u{a0}: la date d'état de l'avancement",
                    "Today: the status date progress is read at",
                ))
                .lit("\"></div>");
        }
    }
    // Days change only when the view moves sideways; what follows, at every scroll.
    h.lit(CUT);
    // The arrows' markers, once, in the frame: the blocks' links refer to them. The
    // critical one is red in its own style, as a marker does not take its path's
    // colour and `.pp-links path` would outline it in grey.
    h.lit("</div><div class=\"pp-items\"><svg class=\"pp-links\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs><marker id=\"pp-arrow\" viewBox=\"0 0 6 6\" refX=\"5\" refY=\"3\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0L6 3L0 6z\" fill=\"currentColor\"></path></marker><marker id=\"pp-arrow-c\" viewBox=\"0 0 6 6\" refX=\"5\" refY=\"3\" markerWidth=\"4\" markerHeight=\"4\" orient=\"auto\"><path d=\"M0 0L6 3L0 6z\" style=\"fill:var(--pp-crit);stroke:var(--pp-crit)\"></path></marker></defs></svg>");
    h.lit(CUT);
    if show_tl {
        // Each block's text: its lines' roll-ups, shadows, bars and milestones, then
        // (below) the links that leave them.
        let first_block = vis.start / BLOCK_LINES;
        let count = vis.len().div_ceil(BLOCK_LINES).max(1);
        let mut blocks: Vec<H> = std::iter::repeat_with(H::new).take(count).collect();
        let block_of = |line: usize| line / BLOCK_LINES - first_block;
        // The blocks kept from the last drawing, when it was made from the same
        // state, layout, selection, edit and days (`DRAWN`); none while dragging.
        let key = (preview.is_none() && dragged.is_none()).then(|| ItemsKey {
            doc: std::sync::Arc::clone(&doc),
            lay: std::sync::Arc::clone(&lay),
            before: before.clone(),
            lang,
            show_crit,
            writes,
            selected,
            edit: edit.clone(),
            today,
            days: (day_from, day_to),
            axis: tw,
        });
        let mut kept: Vec<Option<DrawnBlock>> =
            std::iter::repeat_with(|| None).take(count).collect();
        let mut kept_links: Vec<Option<DrawnLinks>> =
            std::iter::repeat_with(|| None).take(count).collect();
        if let (Some(key), Some((was, last))) = (&key, DRAWN.take())
            && *key == was
        {
            for b in last.lines {
                if let Some(slot) = b.k.checked_sub(first_block).and_then(|j| kept.get_mut(j)) {
                    *slot = Some(b);
                }
            }
            for b in last.links {
                if let Some(slot) =
                    b.k.checked_sub(first_block)
                        .and_then(|j| kept_links.get_mut(j))
                {
                    *slot = Some(b);
                }
            }
        }
        // The items of the lines of the blocks to build.
        let mut items = Vec::new();
        for (j, _) in kept.iter().enumerate().filter(|(_, b)| b.is_none()) {
            let k = first_block + j;
            let lines = (k * BLOCK_LINES).max(vis.start)..((k + 1) * BLOCK_LINES).min(vis.end);
            items.extend(layout::visible_items(
                &doc.index, &doc.s, &lay.lines, lines, day_from, day_to,
            ));
        }
        for (i, line) in lay.lines[vis.clone()].iter().enumerate() {
            if kept[block_of(vis.start + i)].is_some() {
                continue;
            }
            if let LineKind::Group {
                span: Some((a, b)), ..
            } = &line.kind
                && *b >= day_from
                && *a <= day_to
            {
                blocks[block_of(vis.start + i)]
                    .lit("<div class=\"pp-rollup\" style=\"left:")
                    .num(px(tl.x_of(*a)))
                    .lit("px;width:")
                    .num(px(tl.width_of(*a, *b)))
                    .lit("px;top:")
                    .num(px(line.y + 11.0))
                    .lit("px\"></div>");
            }
        }
        let mut ends: Vec<(u64, f64, f64, f64, usize)> = Vec::with_capacity(items.len());
        for it in &items {
            match *it {
                VisibleItem::Bar {
                    line,
                    id,
                    start,
                    end,
                } => {
                    let Some(bar) = doc.s.bar(id) else { continue };
                    let planned = (start, end);
                    let pushed = preview.as_ref().and_then(|p| p.pushed(id.0));
                    let (start, end) = match (&preview, pushed) {
                        (Some(p), _) if p.bar == id => (p.start, p.end),
                        (_, Some(to)) => to,
                        _ => (start, end),
                    };
                    let slot = lay.lanes.bar(&doc.s, id);
                    let y = lay.lines[line].y + LINE_HEIGHT * f64::from(slot.lane);
                    let x = tl.x_of(start);
                    let w = tl.width_of(start, end).max(fit::MIN_BAR_WIDTH);
                    let bars = &mut blocks[block_of(line)];
                    ends.push((id.0, x, x + w, y + LINE_HEIGHT / 2.0, block_of(line)));
                    // The shadow: where the bar is in the other state (before/after, reference).
                    // A bar the drag's cascade pushes leaves its shadow where it is now.
                    let other = if pushed.is_some() {
                        Some(planned)
                    } else {
                        before
                            .as_ref()
                            .and_then(|b| b.s.bar(id))
                            .map(|b| (b.start, b.end))
                    };
                    if let Some((a, z)) = other.filter(|o| *o != (start, end)) {
                        bars.lit("<div class=\"pp-shadow\" style=\"left:")
                            .num(px(tl.x_of(a)))
                            .lit("px;width:")
                            .num(px(tl.width_of(a, z).max(3.0)))
                            .lit("px;top:")
                            .num(px(y + 5.0))
                            .lit("px\"></div>");
                    }
                    // With the critical path shown, each bar's total float as a pale
                    // strip from its end to its late finish (not while it is dragged:
                    // the floats are those of the state, not of the preview).
                    if show_crit
                        && dragged.is_none()
                        && let Some(t) = timing_of(&doc, id).filter(|t| t.total_float > 0)
                        && t.late_finish > end
                    {
                        let from = end.add_days(1);
                        let late = t.late_finish;
                        bars.lit("<div class=\"pp-float\" title=\"");
                        match (lang, t.total_float) {
                            (Lang::Fr, 1) => bars.textf(format_args!(
                                "marge totale\u{a0}: 1 jour ouvré, jusqu'au {late}"
                            )),
                            (Lang::Fr, n) => bars.textf(format_args!(
                                "marge totale\u{a0}: {n} jours ouvrés, jusqu'au {late}"
                            )),
                            (Lang::En, 1) => {
                                bars.textf(format_args!("total float: 1 working day, until {late}"))
                            }
                            (Lang::En, n) => bars
                                .textf(format_args!("total float: {n} working days, until {late}")),
                        };
                        bars.lit("\" style=\"left:")
                            .num(px(tl.x_of(from)))
                            .lit("px;width:")
                            .num(px(tl.width_of(from, late)))
                            .lit("px;top:")
                            .num(px(y + 9.0))
                            .lit("px\"></div>");
                    }
                    // Late (behind its planned progress at the status date) or overdue
                    // (its end passed, not complete): one lookup on the calendar per
                    // bar drawn.
                    let lateness = palmaplan_model::tracking::lateness_of(cal, bar, today);
                    let is_crit = show_crit && critical.contains(&id);
                    let at_risk = doc.at_risk.contains(&id);
                    let why = reasons.as_deref().and_then(|r| {
                        r.binary_search_by(|(b, _)| b.cmp(&id))
                            .ok()
                            .map(|k| r[k].1.as_str())
                    });
                    // Late and overdue bars are at risk at the status date too (the
                    // model's `risks_at`): they get the badge and the words as well.
                    let flagged = at_risk || lateness.is_some() || why.is_some();
                    let said = |h: &mut H| {
                        h.lit(tr(lang, "à risque", "at risk"));
                        if let Some(w) = why {
                            h.lit(tr(lang, "\u{a0}:", ":")).lit(" ").text(w);
                        }
                    };
                    // Its own lock says "this bar": its name is the label's already.
                    let held = doc.s.bar_lock(id).map(|l| {
                        if l.target == palmaplan_model::LockTarget::Bar(id) {
                            command::lock_held_by(tr(lang, "ce bloc", "this bar").into(), l, lang)
                        } else {
                            command::lock_summary_named(l, &doc.s, lang)
                        }
                    });
                    let glyph = if held.is_some() { "🔒 " } else { "" };
                    bars.lit("<div id=\"pp-b").num(id.0).lit("\" class=\"pp-b");
                    if let Some(l) = &lateness {
                        bars.lit(match l.kind {
                            palmaplan_model::tracking::LateKind::Late => " late",
                            palmaplan_model::tracking::LateKind::Overdue => " overdue",
                        });
                    }
                    for (on, name) in [
                        (is_crit, " crit"),
                        (at_risk, " risk"),
                        (selected == Some(id), " sel"),
                        (dragged == Some(id), " drag"),
                        (pushed.is_some(), " pushed"),
                        (target == Some(id.0), " tgt"),
                        (held.is_some(), " locked"),
                        // The badge and the fill: the bar's pseudo-elements (style.css).
                        (flagged, " flag"),
                        (bar.progress > 0, " pf"),
                    ] {
                        if on {
                            bars.lit(name);
                        }
                    }
                    // A held bar says so: a class, a lock glyph before its label, and the
                    // lock in words for a pointer's tooltip and a screen reader.
                    // Critical and at risk (with why) in words too; the tooltip
                    // gives the lock and the reasons. Progress in words for a screen
                    // reader, and as a fill from the bar's start. A flagged bar wears a
                    // badge that reads on any bar colour (the hatching alone fades on
                    // orange bars).
                    bars.lit("\" role=\"gridcell\" aria-selected=\"")
                        .lit(if selected == Some(id) {
                            "true"
                        } else {
                            "false"
                        })
                        .lit("\" aria-label=\"")
                        .text(&bar.label)
                        .textf(format_args!(", {start} → {end}"));
                    if bar.progress > 0 {
                        match lang {
                            Lang::Fr => bars.lit(", ").num(bar.progress).lit("\u{202f}%"),
                            Lang::En => bars.lit(", ").num(bar.progress).lit("%"),
                        };
                    }
                    if is_crit {
                        bars.lit(crit_word);
                    }
                    if flagged {
                        bars.lit(", ");
                        said(bars);
                    }
                    if let Some(held) = &held {
                        bars.lit(", ")
                            .lit(tr(lang, "verrouillé\u{a0}:", "locked:"))
                            .lit(" ")
                            .text(held);
                    }
                    bars.lit("\"");
                    if held.is_some() || flagged {
                        bars.lit(" title=\"");
                        if let Some(held) = &held {
                            bars.text(held);
                            if flagged {
                                bars.lit(" · ");
                            }
                        }
                        if flagged {
                            said(bars);
                        }
                        bars.lit("\"");
                    }
                    bars.lit(" data-bar=\"")
                        .num(id.0)
                        .lit("\" style=\"left:")
                        .num(px(x))
                        .lit("px;width:")
                        .num(px(w))
                        .lit("px;top:")
                        .num(px(y + 5.0))
                        .lit("px");
                    if bar.progress > 0 {
                        bars.lit(";--pf:").num(bar.progress).lit("%");
                    }
                    if let Some(c) = safe_color(bar.color.as_deref()) {
                        bars.lit(";background:").text(&c);
                    }
                    bars.lit("\">");
                    // The label inside when it fits, else beside the bar (`fit::stack`
                    // placed it where its lane has room).
                    // A held bar keeps its lock glyph on itself when its label goes
                    // beside it, if it has room for it.
                    let glyph_in =
                        !glyph.is_empty() && w >= fit::LOCK_WIDTH + 2.0 * fit::BAR_PADDING;
                    if slot.side == fit::Side::Inside {
                        bars.lit("<span class=\"pp-bl\">")
                            .lit(glyph)
                            .text(&bar.label)
                            .lit("</span>");
                    } else if glyph_in {
                        bars.lit("<span class=\"pp-lk\">").lit(glyph).lit("</span>");
                    }
                    bars.lit("</div>");
                    let beside = if glyph_in { "" } else { glyph };
                    // The selected bar's two link handles, just outside its ends (its
                    // edges themselves resize it): drag one to another bar to link them.
                    if selected == Some(id)
                        && writes
                        && dragged.is_none()
                        && !matches!(edit, edit::Edit::Rename(_))
                    {
                        link_handles(bars, lang, &bar.label, (x - 13.0, x + w + 4.0), y);
                    }
                    let (b0, b1) = fit::bar_body(&tl, bar, x, w);
                    beside_label(
                        bars,
                        (slot.side, fit::bar_label_width(&doc.s, bar)),
                        (b0, b1, tw),
                        y,
                        (beside, &bar.label),
                        "",
                    );
                    constraint_marks(bars, &doc, (&tl, lang), ItemId(id.0), end, y);
                }
                VisibleItem::Milestone { line, id, date } => {
                    let Some(m) = doc.s.milestone(id) else {
                        continue;
                    };
                    let pushed = preview.as_ref().and_then(|p| p.pushed(id.0));
                    let date = pushed.map_or(date, |(d, _)| d);
                    let slot = lay.lanes.milestone(&doc.s, id);
                    let y = lay.lines[line].y + LINE_HEIGHT * f64::from(slot.lane);
                    // At the end of its day when a link leads to it, at the start
                    // when none does (a kickoff), as the model places milestones.
                    let preceded = doc
                        .links_of(id.0)
                        .any(|k| doc.s.links.get(k).is_some_and(|l| l.to.0 == id.0));
                    let x = fit::milestone_x(&tl, date, preceded);
                    let bars = &mut blocks[block_of(line)];
                    ends.push((id.0, x, x, y + LINE_HEIGHT / 2.0, block_of(line)));
                    let crit = crit_ms.contains(&id.0);
                    let on = picked == Some(Named::Milestone(id));
                    bars.lit("<div class=\"pp-ms")
                        .lit(if pushed.is_some() { " pushed" } else { "" })
                        .lit(if crit { " crit" } else { "" })
                        .lit(if target == Some(id.0) { " tgt" } else { "" });
                    if on {
                        bars.lit(" sel\" id=\"pp-m")
                            .num(id.0)
                            .lit("\" aria-selected=\"true");
                    }
                    bars.lit("\" role=\"gridcell\" aria-label=\"")
                        .text(&m.label)
                        .textf(format_args!(", {date}"))
                        .lit(if crit { crit_word } else { "" })
                        .lit("\" data-milestone=\"")
                        .num(id.0)
                        .lit("\" style=\"left:")
                        .num(px(x - fit::MILESTONE_HALF))
                        .lit("px;top:")
                        .num(px(y + 7.0))
                        .lit("px\"></div>");
                    // A milestone's label is never inside its diamond.
                    let side = match slot.side {
                        fit::Side::Inside => fit::Side::Right,
                        side => side,
                    };
                    let (b0, b1) = fit::milestone_body(&tl, m, x);
                    let diamond = (b0, b1, tw);
                    let width = fit::text_width(&m.label, fit::LABEL_FONT);
                    beside_label(bars, (side, width), diamond, y, ("", &m.label), " pp-oml");
                    // The selected milestone's link handles: a point, both ends are its
                    // date (the type still follows the end the link leaves from).
                    if on && writes && dragged.is_none() {
                        let half = fit::MILESTONE_HALF;
                        link_handles(bars, lang, &m.label, (x - half - 13.0, x + half + 4.0), y);
                    }
                    constraint_marks(bars, &doc, (&tl, lang), ItemId(id.0), date, y);
                }
            }
        }
        // The kept blocks' ends, with those just found: the links' anchors.
        for (j, b) in kept.iter().enumerate() {
            if let Some(b) = b {
                ends.extend(b.ends.iter().map(|e| (e.0, e.1, e.2, e.3, j)));
            }
        }
        // Links between two drawn items, as arrows.
        palmaplan_model::order::sort_by_u64(&mut ends, |e| e.0);
        let find = |id: u64| {
            ends.binary_search_by(|e| e.0.cmp(&id))
                .ok()
                .map(|i| ends[i])
        };
        // A link between two items of one block is drawn in that block. One between
        // two blocks is drawn in a block of links of its own, that of the lower of its
        // two blocks (slot `count + j` for block `j`), kept while it holds the same
        // links (`DrawnLinks`). A block's text thus depends on its own lines only: a
        // block in view is kept whatever enters and leaves around it, and a kept block
        // has drawn its links already. The links between blocks change only at the
        // view's edges: scrolling adds the blocks of links of the lines it uncovers,
        // rather than replacing one layer of all of them at each frame (with ten links
        // between each two rows, 15% of the main thread's time while scrolling:
        // e2e/README.md, `BENCH_LINKS=rows`).
        let cross = count;
        let mut paths: Vec<H> = std::iter::repeat_with(H::new).take(2 * count).collect();
        // The ground of every link of a group in one wider, invisible path, which takes
        // the pointer (`link_at` then finds the link nearest the press). One element
        // a group rather than a twin and its title for each link: links were 43% of the
        // elements a scrolled-in block brought (e2e/README.md, `BENCH_CENSUS`).
        let mut hits: Vec<H> = std::iter::repeat_with(H::new).take(2 * count).collect();
        let picked = match &edit {
            edit::Edit::Link(l) => Some(l.0),
            _ => None,
        };
        let mut to_draw = Vec::new();
        if !ends.is_empty() {
            // Only the links of the items drawn, each once (both its ends may be drawn).
            let mut seen: Vec<usize> = ends.iter().flat_map(|e| doc.links_of(e.0)).collect();
            palmaplan_model::order::sort_by_u64(&mut seen, |&i| i as u64);
            seen.dedup();
            for (p, l) in seen
                .into_iter()
                .filter_map(|p| Some((p, doc.s.links.get(p)?)))
            {
                let (Some(a), Some(b)) = (find(l.from.0), find(l.to.0)) else {
                    continue;
                };
                let j = match (a.4 == b.4, &kept[a.4]) {
                    (true, Some(_)) => continue,
                    (true, None) => a.4,
                    (false, _) => cross + a.4.max(b.4),
                };
                to_draw.push((p, l, a, b, j));
            }
        }
        // The links of each block of links between blocks; one drawn before with the
        // same links is kept (its text is theirs: see `DrawnLinks`).
        let mut crossing: Vec<Vec<usize>> = std::iter::repeat_with(Vec::new).take(count).collect();
        for &(p, .., j) in &to_draw {
            if let Some(c) = j.checked_sub(cross) {
                crossing[c].push(p);
            }
        }
        for (was, now) in kept_links.iter_mut().zip(&crossing) {
            if was.as_ref().is_some_and(|w| w.links != *now) {
                *was = None;
            }
        }
        {
            for (_, l, a, b, j) in to_draw {
                if j >= cross && kept_links[j - cross].is_some() {
                    continue;
                }
                use palmaplan_model::LinkKind as K;
                let (x1, x2) = match l.kind {
                    K::FS => (a.2, b.1),
                    K::SS => (a.1, b.1),
                    K::FF => (a.2, b.2),
                    K::SF => (a.1, b.2),
                };
                let (x1, x2, y1, y2) = (px(x1), px(x2), px(a.3), px(b.3));
                let mid = if x2 > x1 + 12 { (x1 + x2) / 2 } else { x1 + 8 };
                // A driving link is marked while both its ends are drawn critical.
                let crit_end = |i: u64| critical.contains(&BarId(i)) || crit_ms.contains(&i);
                let (mark, arrow) = if doc.violated.contains(&l.id.0) {
                    ("bad", "pp-arrow")
                } else if crit_links.contains(&l.id.0) && crit_end(l.from.0) && crit_end(l.to.0) {
                    ("crit", "pp-arrow-c")
                } else {
                    ("", "pp-arrow")
                };
                let sel = picked == Some(l.id.0);
                let d = |h: &mut H| {
                    h.lit("M")
                        .num(x1)
                        .lit(" ")
                        .num(y1)
                        .lit("H")
                        .num(mid)
                        .lit("V")
                        .num(y2)
                        .lit("H")
                        .num(x2 - 2);
                };
                let name = edit::link_name(
                    lang,
                    l.kind,
                    edit::item_label(&doc.s, l.from),
                    edit::item_label(&doc.s, l.to),
                );
                let path = &mut paths[j];
                // The drawn arrow is the link's cell for assistive technology too.
                path.lit("<path id=\"pp-l")
                    .num(l.id.0)
                    .lit("\" role=\"gridcell\" aria-selected=\"")
                    .lit(if sel { "true" } else { "false" })
                    .lit("\"")
                    .attr("aria-label", &name);
                match (mark, sel) {
                    ("", false) => {}
                    ("", true) => {
                        path.lit(" class=\"sel\"");
                    }
                    (m, false) => {
                        path.lit(" class=\"").lit(m).lit("\"");
                    }
                    (m, true) => {
                        path.lit(" class=\"").lit(m).lit(" sel\"");
                    }
                }
                path.lit(" data-link=\"").num(l.id.0).lit("\" d=\"");
                d(path);
                path.lit("\" marker-end=\"url(#")
                    .lit(arrow)
                    .lit(")\"></path>");
                d(&mut hits[j]);
            }
        }
        // The blocks of links between blocks first, so under every block's items: they
        // are numbered from 0, the lines' blocks after them (see `open_block`).
        let lines_from = lay.lines.len().div_ceil(BLOCK_LINES);
        let svgs = |t: &mut H, links: &H, hits: &H| {
            // A box of one pixel whose paths overflow it: an SVG as large as the chart,
            // once per block, made the browser's first paint of 100,000 bars (a chart
            // 280,000 px tall) slower than that of 10,000.
            t.lit("<svg class=\"pp-links\" width=\"1\" height=\"1\" overflow=\"visible\">")
                .append(links)
                .lit("<path class=\"pp-lh\" aria-hidden=\"true\" d=\"")
                .append(hits)
                // Its tooltip, named on hover (see `mount`).
                .lit("\"><title></title></path></svg>");
        };
        let mut links_now = Vec::new();
        for (j, ((links, hits), ids)) in paths[cross..]
            .iter()
            .zip(&hits[cross..])
            .zip(crossing)
            .enumerate()
        {
            let block = match kept_links[j].take() {
                Some(was) => was,
                None if links.is_empty() => continue,
                None => {
                    let mut t = H::new();
                    open_block(&mut t, first_block + j);
                    svgs(&mut t, links, hits);
                    t.lit("</div>");
                    DrawnLinks {
                        k: first_block + j,
                        links: ids,
                        text: t.finish(),
                    }
                }
            };
            h.html(&block.text);
            links_now.push(block);
        }
        let mut now = Vec::with_capacity(count);
        for (j, ((items, links), hits)) in blocks.into_iter().zip(&paths).zip(&hits).enumerate() {
            let block = match kept[j].take() {
                Some(was) => was,
                None => {
                    let k = first_block + j;
                    let mut t = H::new();
                    open_block(&mut t, lines_from + k);
                    t.append(&items);
                    if !links.is_empty() {
                        svgs(&mut t, links, hits);
                    }
                    t.lit("</div>");
                    DrawnBlock {
                        k,
                        ends: ends
                            .iter()
                            .filter(|e| e.4 == j)
                            .map(|e| (e.0, e.1, e.2, e.3))
                            .collect(),
                        text: t.finish(),
                    }
                }
            };
            h.html(&block.text);
            now.push(block);
        }
        if let Some(key) = key {
            DRAWN.set(Some((
                key,
                Drawn {
                    lines: now,
                    links: links_now,
                },
            )));
        }
        edit_html(&mut h, (&doc, &lay, &tl), &edit, lang, &find, (sl, stp));
        if let Some(p) = &preview {
            open_block(&mut h, usize::MAX);
            h.lit("<div class=\"pp-tip\" role=\"status\" style=\"left:")
                .num(px(sl + 8.0))
                .lit("px;top:")
                .num(px(stp + 4.0))
                .lit("px\">")
                .textf(format_args!("{} → {}", p.start, p.end));
            match (lang, p.broken) {
                (_, 0) => &mut h,
                (Lang::Fr, 1) => h.lit(" · 1 lien non respecté"),
                (Lang::Fr, n) => h.lit(" · ").num(n).lit(" liens non respectés"),
                (Lang::En, 1) => h.lit(" · 1 link broken"),
                (Lang::En, n) => h.lit(" · ").num(n).lit(" links broken"),
            };
            // What the cascade moves with it, and the project end it makes.
            match (lang, p.cascade.len()) {
                (_, 0) => &mut h,
                (Lang::Fr, 1) => h.lit(" · 1 successeur décalé"),
                (Lang::Fr, n) => h.lit(" · ").num(n).lit(" successeurs décalés"),
                (Lang::En, 1) => h.lit(" · 1 successor moved"),
                (Lang::En, n) => h.lit(" · ").num(n).lit(" successors moved"),
            };
            if let Some(blocked) = p.blocked {
                h.lit(" · ")
                    .text(&blocked_words(&doc.s, blocked, lang))
                    .lit(tr(lang, "\u{a0}: refusée", ": refused"));
            }
            if let Some((was, now)) = p.ends.filter(|(a, b)| a != b) {
                match lang {
                    Lang::Fr => h.textf(format_args!(" · fin du projet {was} → {now}")),
                    Lang::En => h.textf(format_args!(" · project end {was} → {now}")),
                };
            }
            h.lit("</div></div>");
        }
    }
    h.lit(CUT).lit("</div></div></div>");
    h.finish()
}

/// Why a drag's cascade is refused, as the person reads it: the item whose constraint
/// it would break, by its label (its id is the model's), and by how much.
fn blocked_words(s: &Schedule, (item, by): (u64, i64), lang: Lang) -> String {
    let name = edit::item_label(s, ItemId(item));
    let days = palmaplan_model::text::working_days(by, lang);
    match lang {
        Lang::Fr => {
            format!("la cascade dépasserait de {days} une contrainte de «\u{a0}{name}\u{a0}»")
        }
        Lang::En => format!("the cascade would break a constraint of “{name}” by {days}"),
    }
}

/// Says in the status line that a move is not sent, and why ([`blocked_words`]).
fn say_blocked(st: St, s: &Schedule, blocked: (u64, i64)) {
    let lang = st.lang.get_untracked();
    let said = blocked_words(s, blocked, lang);
    st.notice.set(Notice::Error(match lang {
        Lang::Fr => format!("Rien n'a été écrit\u{a0}: {said}."),
        Lang::En => format!("Nothing was written: {said}."),
    }));
}

/// A label written beside its item (nothing for `Side::Inside`), on the lane whose top
/// is `y`: after `end`; or ending before `start` (anchored to the axis' right edge
/// `axis`, so its own width needs no measuring); or on the lane under it, where
/// `fit::below_x` puts a label of the estimated `width`. The label follows its
/// glyph (the lock's, or none).
fn beside_label(
    h: &mut H,
    (side, width): (fit::Side, f64),
    (start, end, axis): (f64, f64, f64),
    y: f64,
    (glyph, label): (&'static str, &str),
    class: &'static str,
) {
    let ((edge, at), top) = match side {
        fit::Side::Inside => return,
        fit::Side::Right => (("left:", px(end + fit::LABEL_GAP)), y),
        fit::Side::Left => (("right:", px(axis - start + fit::LABEL_GAP)), y),
        fit::Side::Below => (
            ("left:", px(fit::below_x(start, end, width, axis))),
            y + LINE_HEIGHT,
        ),
    };
    h.lit("<span class=\"pp-ol")
        .lit(class)
        .lit("\" aria-hidden=\"true\" style=\"")
        .lit(edge)
        .num(at)
        .lit("px;top:")
        .num(px(top + 5.0))
        .lit("px\">")
        .lit(glyph)
        .text(label)
        .lit("</span>");
}

/// The two link handles of the selected bar or milestone labelled `label`, whose lane
/// starts at `y`, at `xs` (just outside its ends: a bar's edges themselves resize it):
/// drag one to another item to link them.
fn link_handles(h: &mut H, lang: Lang, label: &str, xs: (f64, f64), y: f64) {
    for (end, at, fr, en) in [
        (
            "start",
            xs.0,
            "Lier depuis le début de",
            "Link from the start of",
        ),
        ("end", xs.1, "Lier depuis la fin de", "Link from the end of"),
    ] {
        let name = match lang {
            Lang::Fr => format!("{fr} «\u{a0}{label}\u{a0}» (glisser vers un autre bloc ou jalon)"),
            Lang::En => format!("{en} “{label}” (drag to another bar or milestone)"),
        };
        h.lit("<span class=\"pp-lkh\" role=\"button\"")
            .attr("aria-label", &name)
            .attr("title", &name)
            .lit(" data-lkh=\"")
            .lit(end)
            .lit("\" style=\"left:")
            .num(px(at))
            .lit("px;top:")
            .num(px(y + 9.0))
            .lit("px\"></span>");
    }
}

/// The rename field of `n`, named `name` now, at (left, top, width) in its container.
fn rename_input(h: &mut H, lang: Lang, n: Named, name: &str, (left, top, width): (f64, f64, f64)) {
    let said = edit::rename_field_name(lang, n, name);
    h.lit("<input class=\"pp-rename\" type=\"text\"")
        .attr("value", name)
        .attr("aria-label", &said)
        .attr("title", &said)
        .lit(" style=\"left:")
        .num(px(left))
        .lit("px;top:")
        .num(px(top))
        .lit("px;width:")
        .num(px(width))
        .lit("px\">");
}

/// The edit in progress, drawn over the chart in a block of its own (after the lines'
/// blocks, so scrolling never replaces it and the text typed in it stays): the rename
/// field over its bar, the link being drawn with its tip, the bar being drawn in its row.
/// `find` gives a drawn item's (id, left, right, middle y, block).
fn edit_html(
    h: &mut H,
    (doc, lay, tl): (&Doc, &app::Lay, &Timeline),
    edit: &edit::Edit,
    lang: Lang,
    find: &dyn Fn(u64) -> Option<(u64, f64, f64, f64, usize)>,
    (sl, stp): (f64, f64),
) {
    let tip = |h: &mut H, text: &str| {
        h.lit("<div class=\"pp-tip\" role=\"status\" style=\"left:")
            .num(px(sl + 8.0))
            .lit("px;top:")
            .num(px(stp + 4.0))
            .lit("px\">")
            .text(text)
            .lit("</div>");
    };
    let mut e = H::new();
    match edit {
        edit::Edit::None | edit::Edit::Link(_) | edit::Edit::Picked(_) => return,
        edit::Edit::Rename(n) => {
            let id = match n {
                Named::Bar(b) => b.0,
                Named::Milestone(m) => m.0,
                // In their name cells (see `chart_html`).
                Named::Row(_) | Named::Group(_) => return,
            };
            let (Some(name), Some(at)) = (edit::current_name(&doc.s, *n), find(id)) else {
                return;
            };
            let left = match n {
                // A milestone's field starts at its diamond.
                Named::Milestone(_) => at.1 - fit::MILESTONE_HALF,
                _ => at.1,
            };
            rename_input(
                &mut e,
                lang,
                *n,
                name,
                (left, at.3 - 11.0, (at.2 - at.1).max(160.0)),
            );
        }
        edit::Edit::Linking(k) => {
            let Some(a) = find(k.from.0) else { return };
            let x1 = if k.from_edge == Edge::Start { a.1 } else { a.2 };
            let to = k.to.and_then(|t| find(t.0).map(|b| (t, b)));
            let end = match (k.pointer, to) {
                (Some(p), _) => Some(p),
                (None, Some((_, b))) => {
                    Some((if k.to_edge == Edge::Start { b.1 } else { b.2 }, b.3))
                }
                (None, None) => None,
            };
            if let Some((x2, y2)) = end {
                e.lit("<svg class=\"pp-links pp-draft\" width=\"1\" height=\"1\" overflow=\"visible\" aria-hidden=\"true\"><path d=\"M")
                    .num(px(x1))
                    .lit(" ")
                    .num(px(a.3))
                    .lit("L")
                    .num(px(x2))
                    .lit(" ")
                    .num(px(y2))
                    .lit("\" marker-end=\"url(#pp-arrow)\"></path></svg>");
            }
            let from = edit::item_label(&doc.s, k.from);
            let kind = edit::link_kind(k.from_edge, k.to_edge);
            let words = match to {
                Some((t, _)) if t.0 != k.from.0 => {
                    edit::linking_words(lang, Some(kind), from, Some(edit::item_label(&doc.s, t)))
                }
                _ => edit::linking_words(lang, None, from, None),
            };
            tip(&mut e, &words);
        }
        edit::Edit::Creating { row, from, to } => {
            let Some(line) = lay
                .lines
                .iter()
                .find(|l| matches!(l.kind, LineKind::Row { id, .. } if id == *row))
            else {
                return;
            };
            let (start, end) = edit::drawn_span(&doc.cal, doc.s.settings.time_unit, *from, *to);
            let label = edit::new_bar_label(lang);
            e.lit("<div class=\"pp-b pp-new\" aria-hidden=\"true\" style=\"left:")
                .num(px(tl.x_of(start)))
                .lit("px;width:")
                .num(px(tl.width_of(start, end).max(fit::MIN_BAR_WIDTH)))
                .lit("px;top:")
                .num(px(line.y + 5.0))
                .lit("px\">")
                .lit(label)
                .lit("</div>");
            tip(
                &mut e,
                &format!("{label}{} {start} → {end}", tr(lang, "\u{a0}:", ":")),
            );
        }
    }
    open_block(h, usize::MAX - 1);
    h.append(&e).lit("</div>");
}

/// Tells the model what the person is looking at: the selected bar, the visible
/// window, the view open. Coalesced: only the last state within 300 ms is sent.
pub fn update_model_context(st: St) {
    // Only to a host that announced it (`hostCapabilities.updateModelContext`): the
    // others answer -32601 every time (MCP Inspector 2.12).
    if st.embed || !host::with_bridge(|b| b.announces("updateModelContext")) {
        return;
    }
    thread_local! {
        static PENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if PENDING.with(|p| p.replace(true)) {
        return;
    }
    set_timeout(
        move || {
            PENDING.with(|p| p.set(false));
            let Some(doc) = st.doc.get_untracked() else {
                return;
            };
            let lay = st.lay.get_untracked();
            let sel = st.selected.get_untracked().and_then(|b| doc.s.bar(b));
            let view = match st.shown.get_untracked() {
                Some(Shown::Kanban) => "kanban",
                Some(Shown::Agenda) => "agenda",
                Some(Shown::Proposal { .. }) => "proposal",
                Some(Shown::Comparison) => "comparison",
                _ => "gantt",
            };
            let window = lay.as_ref().map(|l| json!({ "from": l.from, "to": l.to }));
            let lang = st.lang.get_untracked();
            let mut text = match lang {
                Lang::Fr => format!(
                    "Vue PalmaPlan ouverte\u{a0}: {view} du planning «\u{a0}{}\u{a0}» (id {}, rang {}).",
                    doc.s.name, doc.id, doc.rank
                ),
                Lang::En => format!(
                    "PalmaPlan view open: {view} of the schedule “{}” (id {}, rank {}).",
                    doc.s.name, doc.id, doc.rank
                ),
            };
            if let Some(l) = &lay {
                text.push_str(&match lang {
                    Lang::Fr => format!(" Fenêtre visible\u{a0}: du {} au {}.", l.from, l.to),
                    Lang::En => format!(" Visible window: {} to {}.", l.from, l.to),
                });
            }
            if let Some(b) = sel {
                text.push_str(&match lang {
                    Lang::Fr => format!(
                        " Bloc sélectionné\u{a0}: «\u{a0}{}\u{a0}» (id {}), du {} au {}.",
                        b.label, b.id.0, b.start, b.end
                    ),
                    Lang::En => format!(
                        " Selected bar: “{}” (id {}), {} to {}.",
                        b.label, b.id.0, b.start, b.end
                    ),
                });
            }
            host::request(
                "ui/update-model-context",
                json!({
                    "content": [{ "type": "text", "text": text }],
                    "structuredContent": {
                        "schedule_id": doc.id,
                        "rank": doc.rank,
                        "view": view,
                        "window": window,
                        "selection": sel.map(|b| json!({ "bar": b.id.0, "label": b.label, "start": b.start, "end": b.end })),
                    },
                }),
                Kind::Read,
                |_| {},
            );
        },
        std::time::Duration::from_millis(300),
    );
}

#[cfg(test)]
pub(crate) mod snapshots;

pub mod edit;

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::demo::s4hana_migration;

    #[test]
    fn the_chart_s_text_splits_at_its_markers_as_str_split_does() {
        for s in [
            "",
            "!",
            "<!--b-->",
            "<!--b--><!--b-->",
            "a<!--b-->b!c<!--/-->d<!-x<!--b-->",
            "Go! <!--b--><div>Wow!!</div><!--b",
            "<!<!--b-->!<!--b-->é!",
        ] {
            for m in [BLOCK, CUT] {
                assert_eq!(
                    split_at_marker(s, m),
                    s.split(m).collect::<Vec<_>>(),
                    "{s:?} {m:?}"
                );
            }
        }
    }

    #[test]
    fn colours_from_the_data_are_plain_hex_only() {
        assert_eq!(safe_color(Some("#2f6fdf")), Some("#2f6fdf".into()));
        assert_eq!(safe_color(Some("#abc")), Some("#abc".into()));
        assert_eq!(safe_color(Some("red")), None);
        assert_eq!(safe_color(Some("#zzz")), None);
        assert_eq!(safe_color(Some("#fff;background-image:url(x)")), None);
        assert_eq!(safe_color(None), None);
    }

    #[test]
    fn arrows_and_drags_count_working_time() {
        let s = s4hana_migration();
        let cal = Calendar::for_schedule(&s);
        assert_eq!(arrow_units(TimeUnit::Day, &cal, false), 1);
        assert_eq!(arrow_units(TimeUnit::Day, &cal, true), 5);
        assert_eq!(arrow_units(TimeUnit::Week, &cal, true), 1);
        let monday = Date::from_ymd(2026, 11, 2).unwrap();
        // Dragging a week to the right is five working days, or one working week.
        assert_eq!(drag_units(&cal, TimeUnit::Day, monday, 7), 5);
        assert_eq!(drag_units(&cal, TimeUnit::Week, monday, 7), 1);
        assert_eq!(drag_units(&cal, TimeUnit::Day, monday, -7), -5);
        assert_eq!(drag_units(&cal, TimeUnit::Day, monday, 0), 0);
    }

    #[test]
    fn a_drag_preview_gives_the_dates_the_command_will_give() {
        use palmaplan_model::command::Command;
        let s = s4hana_migration();
        let cal = Calendar::for_schedule(&s);
        for (i, bar) in s.bars.iter().enumerate() {
            for by in [-7, -1, 1, 3, 12] {
                for edge in [None, Some(Edge::Start), Some(Edge::End)] {
                    let cmd = match edge {
                        None => Command::MovePeriods {
                            bars: vec![bar.id],
                            milestones: vec![],
                            by,
                        },
                        Some(edge) => Command::ResizePeriod {
                            bar: bar.id,
                            edge,
                            by,
                        },
                    };
                    let engine = command::apply(&s, &[cmd])
                        .ok()
                        .and_then(|(after, _)| after.bar(bar.id).map(|b| (b.start, b.end)));
                    let p = preview(&s, &cal, bar.id, edge, by).map(|p| (p.start, p.end));
                    // Where the engine accepts the change, the preview draws exactly its dates.
                    if let Some(dates) = engine {
                        assert_eq!(p, Some(dates), "bar {i} by {by} {edge:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_drag_previews_the_critical_path_the_move_would_make() {
        let s = s4hana_migration();
        let all: palmaplan_model::idset::IdSet<BarId> = palmaplan_model::cpm::critical_path(&s)
            .unwrap()
            .critical_bars()
            .collect();
        let first = &s.bars[0];
        // Unchanged dates: the same path.
        assert_eq!(
            critical_with(&s, first.id, first.start, first.end, &[]),
            Some(all.clone())
        );
        // The first bar a month earlier leaves its successors where they are planned,
        // with a month of room after it: the path changes.
        let early = critical_with(
            &s,
            first.id,
            first.start.add_days(-28),
            first.end.add_days(-28),
            &[],
        )
        .unwrap();
        assert_ne!(early, all);
        assert!(critical_with(&s, BarId(99_999), first.start, first.end, &[]).is_none());
    }

    #[test]
    fn a_drag_with_automatic_scheduling_previews_the_cascade_the_write_makes() {
        let mut s = s4hana_migration();
        s.settings.scheduling = Scheduling::Auto;
        let cal = Calendar::for_schedule(&s);
        let basis = DragBasis::new(&s, 1, BarId(14));
        let mut p = preview(&s, &cal, BarId(14), None, 5).unwrap();
        with_cascade(&s, &cal, &basis, &mut p);
        // What the server's cascade does on the same move (the model's own write).
        let mut after = s.clone();
        let done = command::apply_cascading(
            &mut after,
            &[command::Command::MovePeriods {
                bars: vec![BarId(14)],
                milestones: vec![],
                by: 5,
            }],
            Some(push::Cascade::Push),
        )
        .unwrap();
        assert_eq!(p.cascade, done.cascade);
        assert_eq!(p.expected_cascade(), [16, 17, 18, 19]);
        assert_eq!(
            p.pushed(19).map(|d| d.0.to_string()),
            Some("2026-12-28".into())
        );
        assert_eq!(
            p.ends.map(|(a, b)| (a.to_string(), b.to_string())),
            Some(("2026-12-18".into(), "2026-12-28".into()))
        );
        assert_eq!((p.broken, p.held), (0, false));
        // Dragged before what its link allows, the bar is held at its bound.
        let mut back = preview(&s, &cal, BarId(16), None, -3).unwrap();
        with_cascade(&s, &cal, &DragBasis::new(&s, 2, BarId(16)), &mut back);
        assert!(back.held);
        assert_eq!(back.start.to_string(), "2026-11-23");
        assert_eq!(back.expected_cascade(), [16]);
    }

    #[test]
    fn the_selected_bar_reads_with_its_dates_and_floats() {
        let s = s4hana_migration();
        let doc = Doc::new(1, 0, s, true, (1, 1), 0);
        let before: Date = "2026-10-01".parse().unwrap();
        let text = details_text(&doc, BarId(15), Lang::Fr, before, None).unwrap();
        assert_eq!(
            text,
            "Adaptation du code ABAP · 2026-11-16 → 2026-12-04 (15\u{a0}jours ouvrés) · au plus tard 2026-11-16 → 2026-12-04 · marge totale 0\u{a0}jour ouvré, libre 0\u{a0}jour ouvré · critique · avancement 0\u{202f}%"
        );
        let en = details_text(&doc, BarId(15), Lang::En, before, None).unwrap();
        assert!(
            en.ends_with(
                "total float 0 working days, free 0 working days · critical · 0% complete"
            ),
            "{en}"
        );
        assert!(details_text(&doc, BarId(99), Lang::En, before, None).is_none());
        // At 2026-12-01, three weeks into its fifteen working days with nothing done,
        // the ABAP adaptation is late.
        let status: Date = "2026-12-01".parse().unwrap();
        let late = details_text(&doc, BarId(15), Lang::En, status, None).unwrap();
        assert!(late.contains("0% complete · late by "), "{late}");
        let mut s = s4hana_migration();
        let b = s.bars.iter_mut().find(|b| b.id == BarId(17)).unwrap();
        b.constraint = Some(palmaplan_model::Constraint {
            kind: palmaplan_model::ConstraintKind::FinishNoLaterThan,
            date: "2026-12-11".parse().unwrap(),
        });
        b.deadline = Some("2026-12-10".parse().unwrap());
        let doc = Doc::new(1, 0, s, true, (1, 1), 0);
        let base = s4hana_migration();
        let en = details_text(&doc, BarId(17), Lang::En, before, Some(&base)).unwrap();
        assert!(
            en.ends_with("against the baseline: start 0 working days, finish 0 working days · finish no later than 2026-12-11 · deadline 2026-12-10, missed"),
            "{en}"
        );
        let mut later = doc.s.clone();
        let b = later.bars.iter_mut().find(|b| b.id == BarId(17)).unwrap();
        (b.start, b.end) = ("2026-12-09".parse().unwrap(), "2026-12-15".parse().unwrap());
        let doc = Doc::new(1, 1, later, true, (1, 1), 0);
        let en = details_text(&doc, BarId(17), Lang::En, before, Some(&base)).unwrap();
        assert!(
            en.contains("against the baseline: start +2 working days, finish +2 working days"),
            "{en}"
        );
    }

    #[test]
    fn a_drag_preview_counts_the_links_it_would_break() {
        let s = s4hana_migration();
        let cal = Calendar::for_schedule(&s);
        let bar = s.bars[0].id;
        let outgoing = s.links.iter().filter(|l| l.from.0 == bar.0).count();
        assert!(outgoing > 0);
        let already = risk::violated_links(&s, &Calendar::for_schedule(&s))
            .iter()
            .filter(|v| v.from.0 == bar.0 || v.to.0 == bar.0)
            .count();
        assert_eq!(
            preview(&s, &cal, bar, None, 0).map(|p| p.broken),
            Some(already)
        );
        let far = preview(&s, &cal, bar, None, 200).unwrap();
        assert!(
            far.broken >= 1,
            "moving the first bar 200 days later breaks its successors' links"
        );
        assert_eq!(far.tool, "move_periods");
        assert!(preview(&s, &cal, BarId(99_999), None, 1).is_none());
    }

    #[test]
    fn the_critical_marks_are_the_path_s_milestones_and_driving_links() {
        let mut s = s4hana_migration();
        let sorted = |set: &IdSet<u64>| {
            let mut v: Vec<u64> = set.iter().copied().collect();
            v.sort_unstable();
            v
        };
        let m = PathMarks::of(palmaplan_model::cpm::critical_path(&s).unwrap());
        // The demo is one chain: its seven links drive, up to the go-live (19).
        assert_eq!(sorted(&m.links), (20..=26).collect::<Vec<u64>>());
        assert_eq!(sorted(&m.milestones), [19]);
        // A short bar early on with a link to "Recette utilisateurs" (17) has slack:
        // neither it nor its link is marked, and the chain keeps its marks.
        let mut side = s.bars[0].clone();
        side.id = BarId(900);
        side.label = "Revue".into();
        side.end = side.start.add_days(1);
        s.bars.push(side);
        let mut link = s.links.iter().find(|l| l.id.0 == 24).unwrap().clone();
        link.id = palmaplan_model::LinkId(901);
        link.from = ItemId(900);
        s.links.push(link);
        let path = palmaplan_model::cpm::critical_path(&s).unwrap();
        assert!(!path.timing(ItemId(900)).unwrap().critical);
        let m = PathMarks::of(path);
        assert_eq!(sorted(&m.links), (20..=26).collect::<Vec<u64>>());
        assert_eq!(sorted(&m.milestones), [19]);
    }

    #[test]
    fn a_bar_at_risk_says_why_in_the_model_s_words() {
        let mut s = s4hana_migration();
        // Thomas Dubois (row 8's member, away on 26 and 27 Nov) on "Migration à blanc"
        // (bar 16, row 10) too.
        let thomas = s.rows.iter().find(|r| r.id.0 == 8).unwrap().member;
        s.rows.iter_mut().find(|r| r.id.0 == 10).unwrap().member = thomas;
        let start = Date::from_ymd(2026, 11, 2).unwrap();
        let why = |d: Date, lang: Lang, bar: u64| {
            risk_reasons(&s, d, lang)
                .into_iter()
                .find(|(b, _)| b.0 == bar)
                .map(|(_, w)| w)
        };
        assert_eq!(
            why(start, Lang::Fr, 16).as_deref(),
            Some("absence de Thomas Dubois sur 2 jours ouvrés (2026-11-26 → 2026-11-27)")
        );
        assert_eq!(
            why(start, Lang::En, 16).as_deref(),
            Some("Thomas Dubois away on 2 working days (2026-11-26 → 2026-11-27)")
        );
        // Not at risk on the plan's first day: no reason.
        assert_eq!(why(start, Lang::Fr, 17), None);
        // Two reasons, joined with French spacing: the absence, then the lateness.
        let dec1 = Date::from_ymd(2026, 12, 1).unwrap();
        let both = why(dec1, Lang::Fr, 15).unwrap();
        assert!(
            both.starts_with("absence de Thomas Dubois sur 2 jours ouvrés (2026-11-26 → 2026-11-27)\u{202f}; en retard de "),
            "{both}"
        );
        assert!(
            both.ends_with("(avancement 0\u{202f}%, prévu 80\u{202f}%)"),
            "{both}"
        );
    }
}

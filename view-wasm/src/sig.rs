//! The view's state cells and its few browser helpers (timers, animation frames,
//! window listeners).
//!
//! A [`Sig`] is a copyable handle to a value and a Leptos trigger: reading it in a
//! Leptos effect (or memo, or a component's reactive closure) subscribes it, writing it
//! notifies the subscribers. The card's shell (`shell`, `boards`) is components whose
//! parts read cells, so a part is drawn again when, and only when, something it read
//! changed. The chart is an effect that asks for a drawing on the next animation frame
//! ([`dirty`]) rather than at once: scrolling and pages arriving change its inputs many
//! times a frame.
//!
//! Why not Leptos's `RwSignal`: its code is generic over the value, one copy per type of
//! the view's ~35 cells. With `RwSignal` cells (and node references, signals too) the
//! module was 31 KB larger and the page 258,539 B gzip, 3.6 KB under its budget. The
//! values here sit in one untyped table; only the trigger, which is not generic, is
//! Leptos's.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::{Notify, Track, Trigger};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

thread_local! {
    static SLOTS: RefCell<Vec<Rc<dyn Any>>> = const { RefCell::new(Vec::new()) };
    static DIRTY: Cell<bool> = const { Cell::new(false) };
    /// Whether `dirty`'s fallback timer is pending (one at a time: see `dirty`).
    static TIMER: Cell<bool> = const { Cell::new(false) };
    /// Set by `draw_now`, cleared by any write after it: the chart's effect then has
    /// nothing left to ask for.
    static DRAWN_NOW: Cell<bool> = const { Cell::new(false) };
    static RENDER: RefCell<Option<Rc<dyn Fn()>>> = const { RefCell::new(None) };
}

/// Whether an effect is running (a read then subscribes it).
fn in_effect() -> bool {
    leptos::reactive::graph::Observer::get().is_some()
}

/// A copyable handle to a state cell.
pub struct Sig<T> {
    idx: usize,
    trigger: Trigger,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Sig<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Sig<T> {}

impl<T> std::fmt::Debug for Sig<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sig({})", self.idx)
    }
}

impl<T: 'static> Sig<T> {
    pub fn new(v: T) -> Sig<T> {
        let cell: Rc<dyn Any> = Rc::new(RefCell::new(v));
        let idx = SLOTS.with(|s| {
            let mut s = s.borrow_mut();
            s.push(cell);
            s.len() - 1
        });
        Sig {
            idx,
            trigger: Trigger::new(),
            _t: PhantomData,
        }
    }

    fn cell(&self) -> Rc<RefCell<T>> {
        let any = SLOTS.with(|s| Rc::clone(&s.borrow()[self.idx]));
        match any.downcast::<RefCell<T>>() {
            Ok(c) => c,
            // A handle is only ever made by `new` for its own type.
            Err(_) => unreachable!("a Sig handle of the wrong type"),
        }
    }

    /// Reads the value, subscribing the running effect (if any) to its changes.
    pub fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        self.track();
        self.with_untracked(f)
    }

    /// Reads the value without subscribing.
    pub fn with_untracked<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        let c = self.cell();
        let b = c.borrow();
        f(&b)
    }

    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.with(T::clone)
    }

    pub fn get_untracked(&self) -> T
    where
        T: Clone,
    {
        self.with_untracked(T::clone)
    }

    /// Subscribes the running effect without reading. Outside an effect (an event
    /// handler, a timer) there is nothing to subscribe, and the trigger is not asked:
    /// a debug build of Leptos warns on each such call, hundreds of times a session,
    /// about reads that are meant to be plain reads.
    pub fn track(&self) {
        if in_effect() {
            self.trigger.track();
        }
    }

    /// The cell's Leptos trigger.
    pub fn trigger(&self) -> Trigger {
        self.trigger
    }

    /// Sets the value and notifies the effects that read it.
    pub fn set(&self, v: T) {
        *self.cell().borrow_mut() = v;
        DRAWN_NOW.with(|d| d.set(false));
        self.trigger.notify();
    }

    pub fn update(&self, f: impl FnOnce(&mut T)) {
        f(&mut self.cell().borrow_mut());
        DRAWN_NOW.with(|d| d.set(false));
        self.trigger.notify();
    }

    /// Changes the value without notifying (bookkeeping nobody sees).
    pub fn update_untracked(&self, f: impl FnOnce(&mut T)) {
        f(&mut self.cell().borrow_mut());
    }
}

/// Registers the function that draws the chart.
pub fn on_render(f: Rc<dyn Fn()>) {
    RENDER.with(|r| *r.borrow_mut() = Some(f));
}

/// Asks for one drawing of the chart: on the next animation frame, or after 100 ms if no frame comes
/// (a browser runs no animation frames for a frame scrolled out of sight, and a view
/// must still reach its content there).
pub fn dirty() {
    if DIRTY.with(|d| d.replace(true)) {
        return;
    }
    request_animation_frame(flush);
    // One fallback timer at a time: one pending draws whatever is owed when it fires.
    // (Scrolling asks for a drawing at every frame: a timer set each time cost ~0.2 ms
    // of the frame in the translation, e2e/README.md.)
    if !TIMER.with(|t| t.replace(true)) {
        set_timeout(
            || {
                TIMER.with(|t| t.set(false));
                flush();
            },
            Duration::from_millis(100),
        );
    }
}

/// Draws the chart now rather than in the coming frame: for the first screen, so that
/// it is ready when that frame starts instead of waiting for it. (The effect that asks
/// for drawings runs only after this task: the cells just written have not reached it.)
pub fn draw_now() {
    DIRTY.with(|d| d.set(true));
    flush();
    DRAWN_NOW.with(|d| d.set(true));
}

/// What the chart's effect calls when a cell it tracks changed: asks for a drawing,
/// unless `draw_now` already drew every change (written before it, in its task), which
/// would otherwise be drawn a second time in the very frame that paints the first one.
pub fn dirty_unless_drawn() {
    if owes_drawing() {
        dirty();
    }
}

/// Whether a change is left for the chart to draw (see `dirty_unless_drawn`).
fn owes_drawing() -> bool {
    !DRAWN_NOW.with(|d| d.replace(false))
}

/// Draws if a redraw is still owed (whichever of the frame and the timer comes first).
fn flush() {
    if !DIRTY.with(|d| d.replace(false)) {
        return;
    }
    let f = RENDER.with(|r| r.borrow().clone());
    if let Some(f) = f {
        f();
    }
}

pub fn request_animation_frame(f: impl FnOnce() + 'static) {
    let cb = Closure::once_into_js(f);
    if let Some(w) = web_sys::window() {
        let _ = w.request_animation_frame(cb.unchecked_ref());
    }
}

pub fn set_timeout(f: impl FnOnce() + 'static, after: Duration) {
    let cb = Closure::once_into_js(f);
    if let Some(w) = web_sys::window() {
        let ms = i32::try_from(after.as_millis()).unwrap_or(i32::MAX);
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), ms);
    }
}

/// Runs `f` in a task of its own, after the tasks already queued: a way to let the
/// browser paint and take input between steps of a long job. Not `set_timeout(0)`:
/// browsers hold a timer set from within a timer's callback at least 4 ms once five
/// are nested, and a page read in eight steps then waited ~40 ms for nothing (at 100,000
/// bars, 160 pages: seconds). A message to a channel of its own is never held.
pub fn soon(f: impl FnOnce() + 'static) {
    SOON.with(|q| q.borrow_mut().push_back(Box::new(f)));
    SOON_CHANNEL.with(|ch| match ch {
        Some(ch) => {
            let _ = ch.port2().post_message(&JsValue::NULL);
        }
        // No channel (never seen in a browser): a timer, held or not.
        None => set_timeout(run_soon, Duration::ZERO),
    });
}

/// Runs the oldest function `soon` queued (one per message, so one per task).
fn run_soon() {
    let f = SOON.with(|q| q.borrow_mut().pop_front());
    if let Some(f) = f {
        f();
    }
}

/// The channel `soon` posts to (its second port): its first port runs one queued
/// function per message. Both ends are kept, so that neither relies on the browser
/// keeping an entangled port alive for the other.
fn soon_channel() -> Option<web_sys::MessageChannel> {
    let ch = web_sys::MessageChannel::new().ok()?;
    let cb = Closure::<dyn Fn()>::new(run_soon);
    ch.port1().set_onmessage(Some(cb.as_ref().unchecked_ref()));
    // The channel lives as long as the page.
    cb.forget();
    Some(ch)
}

thread_local! {
    static SOON: RefCell<std::collections::VecDeque<Box<dyn FnOnce()>>> =
        RefCell::new(std::collections::VecDeque::new());
    static SOON_CHANNEL: Option<web_sys::MessageChannel> = soon_channel();
}

pub fn set_interval(f: impl Fn() + 'static, every: Duration) {
    let cb = Closure::<dyn Fn()>::new(f);
    if let Some(w) = web_sys::window() {
        let ms = i32::try_from(every.as_millis()).unwrap_or(i32::MAX);
        let _ = w.set_interval_with_callback_and_timeout_and_arguments_0(
            cb.as_ref().unchecked_ref(),
            ms,
        );
    }
    // The interval lives as long as the page.
    cb.forget();
}

/// Listens to `event` on `target` for the page's lifetime.
pub fn listen<E: JsCast + 'static>(
    target: &web_sys::EventTarget,
    event: &str,
    f: impl Fn(E) + 'static,
) {
    let cb = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        if let Ok(e) = e.dyn_into::<E>() {
            f(e);
        }
    });
    let _ = target.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
    cb.forget();
}

#[cfg(test)]
mod tests {
    use super::*;
    use leptos::prelude::{GetUntracked as _, Memo};

    /// A memo stands for an effect (both are Leptos subscribers): it runs again only
    /// when a cell it read with tracking was written and notified.
    #[test]
    fn reading_subscribes_and_writing_notifies() {
        let (a, b) = (Sig::new(1), Sig::new(10));
        let runs = Sig::new(0);
        let sum = Memo::new(move |_| {
            runs.update_untracked(|n| *n += 1);
            a.get() + b.get_untracked()
        });
        assert_eq!(sum.get_untracked(), 11);
        a.set(2);
        assert_eq!(sum.get_untracked(), 12);
        // Untracked reads and writes leave it as it was.
        b.set(20);
        a.update_untracked(|v| *v = 3);
        assert_eq!(sum.get_untracked(), 12);
        assert_eq!(runs.get_untracked(), 2);
        a.update(|v| *v += 1);
        assert_eq!(sum.get_untracked(), 24);
        // `track` subscribes without reading.
        let tracked = Memo::new(move |_| {
            b.track();
            runs.get_untracked()
        });
        let before = tracked.get_untracked();
        runs.set(100);
        assert_eq!(tracked.get_untracked(), before);
        b.set(5);
        assert_eq!(tracked.get_untracked(), 100);
    }

    /// Reads outside an effect ask Leptos nothing (its debug build would warn on each);
    /// inside one they subscribe it, as above.
    #[test]
    fn only_a_read_in_an_effect_tracks() {
        assert!(!in_effect());
        let a = Sig::new(1);
        assert_eq!(a.get(), 1, "a plain read outside any effect");
        let seen = Memo::new(move |_| (in_effect(), a.get()));
        assert_eq!(seen.get_untracked(), (true, 1));
        a.set(2);
        assert_eq!(seen.get_untracked(), (true, 2));
    }

    /// After `draw_now`, the chart's effect asks for no second drawing, unless a cell
    /// was written since.
    #[test]
    fn a_drawing_now_is_not_repeated_for_the_changes_it_drew() {
        let a = Sig::new(0);
        a.set(1);
        draw_now();
        assert!(!owes_drawing(), "drawn twice");
        draw_now();
        a.set(2);
        assert!(owes_drawing(), "a later change was not drawn");
        a.update(|v| *v += 1);
        assert!(owes_drawing(), "a change was not drawn");
        assert!(owes_drawing(), "without draw_now, every change is drawn");
    }
}

//! Instant updates on the pages PalmaPlan serves itself: an `EventSource` on
//! `GET /embed/<schedule>/events?t=<token>` (a link) or `GET /app/schedules/<schedule>/events`
//! (the web screen, under its session's cookie), where the server pushes the schedule's
//! rank each time a write is committed. The view then reads the change itself with
//! `get_changes_since`, as a poll would; this module only says when.
//!
//! Only the `/embed` page uses it: inside an MCP host the view's CSP allows no request
//! to our origin, and the view polls there. When the stream cannot be opened or is
//! refused for good (the browser gives up: readyState CLOSED, e.g. an expired link),
//! `closed` runs once, and the view falls back to polling.

use std::cell::{Cell, RefCell};
use std::ops::Not as _;
use std::rc::Rc;

use wasm_bindgen::JsCast;

/// The stream's address for the page's door (a link's token is the link's own,
/// already in the page's address).
pub fn events_url(schedule: i64, door: &crate::host::Door) -> String {
    door.events_url(schedule, |t| {
        js_sys::encode_uri_component(t)
            .as_string()
            .unwrap_or_default()
    })
}

/// The rank an event carries (its data is the number alone).
pub fn rank_of(data: &str) -> Option<i64> {
    data.trim().parse().ok()
}

/// Opens the stream: `pushed` gets each rank the server sends, `closed` runs once if the
/// stream ends for good. False when the browser has no EventSource (then poll).
///
/// A hidden tab gives its connection back (closes the stream) and opens a new one when
/// shown, whose first event is the current rank: a browser holds six connections per
/// host over HTTP/1.1, and tabs left open in the background must not take them all.
pub fn listen(
    schedule: i64,
    door: &crate::host::Door,
    pushed: impl Fn(i64) + 'static,
    closed: impl FnOnce() + 'static,
) -> bool {
    let live = Rc::new(Live {
        url: events_url(schedule, door),
        pushed: Box::new(pushed),
        closed: Cell::new(Some(Box::new(closed))),
        source: RefCell::new(None),
    });
    if !open(&live) {
        return false;
    }
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        let d2 = doc.clone();
        let l2 = Rc::clone(&live);
        crate::sig::listen::<web_sys::Event>(doc.as_ref(), "visibilitychange", move |_| {
            if d2.hidden() {
                if let Some(s) = l2.source.borrow_mut().take() {
                    s.close();
                }
            } else if l2.source.borrow().is_none() && l2.given_up().not() {
                open(&l2);
            }
        });
    }
    true
}

/// One page's stream: its address, what to do with a rank, and the fallback.
struct Live {
    url: String,
    pushed: Box<dyn Fn(i64)>,
    /// Taken (and run) once the stream ends for good.
    closed: Cell<Option<Box<dyn FnOnce()>>>,
    /// The open stream; none while the tab is hidden.
    source: RefCell<Option<web_sys::EventSource>>,
}

impl Live {
    fn given_up(&self) -> bool {
        let f = self.closed.take();
        let gone = f.is_none();
        self.closed.set(f);
        gone
    }
}

/// Opens a stream on `live.url`; false when the browser cannot.
fn open(live: &Rc<Live>) -> bool {
    let Ok(source) = web_sys::EventSource::new(&live.url) else {
        return false;
    };
    let l2 = Rc::clone(live);
    crate::sig::listen::<web_sys::MessageEvent>(source.as_ref(), "message", move |e| {
        if let Some(rank) = e.data().as_string().as_deref().and_then(rank_of) {
            (l2.pushed)(rank);
        }
    });
    let l3 = Rc::clone(live);
    let s2 = source.clone();
    crate::sig::listen::<web_sys::Event>(source.unchecked_ref(), "error", move |_| {
        // CONNECTING: the browser reconnects by itself (the server then sends the rank
        // again, so nothing is missed). CLOSED: it will not (a refused or expired link,
        // or 429 past the streams a person may hold).
        if s2.ready_state() == web_sys::EventSource::CLOSED
            && let Some(f) = l3.closed.take()
        {
            l3.source.borrow_mut().take();
            f();
        }
    });
    *live.source.borrow_mut() = Some(source);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_carries_a_rank() {
        assert_eq!(rank_of("42"), Some(42));
        assert_eq!(rank_of(" 7\n"), Some(7));
        assert_eq!(rank_of("ping"), None);
        assert_eq!(rank_of(""), None);
    }
}

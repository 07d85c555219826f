//! Instant updates on the `/embed` page: an `EventSource` on
//! `GET /embed/<schedule>/events?t=<token>`, where the server pushes the schedule's
//! rank each time a write is committed. The view then reads the change itself with
//! `get_changes_since`, as a poll would; this module only says when.
//!
//! Only the `/embed` page uses it: inside an MCP host the view's CSP allows no request
//! to our origin, and the view polls there. When the stream cannot be opened or is
//! refused for good (the browser gives up: readyState CLOSED, e.g. an expired link),
//! `closed` runs once, and the view falls back to polling.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsCast;

/// The stream's address for a link (the token is the link's own, already in the
/// page's address).
pub fn events_url(schedule: i64, token: &str) -> String {
    let token = js_sys::encode_uri_component(token)
        .as_string()
        .unwrap_or_default();
    format!("/embed/{schedule}/events?t={token}")
}

/// The rank an event carries (its data is the number alone).
pub fn rank_of(data: &str) -> Option<i64> {
    data.trim().parse().ok()
}

/// Opens the stream: `pushed` gets each rank the server sends, `closed` runs once if the
/// stream ends for good. False when the browser has no EventSource (then poll).
pub fn listen(
    schedule: i64,
    token: &str,
    pushed: impl Fn(i64) + 'static,
    closed: impl FnOnce() + 'static,
) -> bool {
    let Ok(source) = web_sys::EventSource::new(&events_url(schedule, token)) else {
        return false;
    };
    crate::sig::listen::<web_sys::MessageEvent>(source.as_ref(), "message", move |e| {
        if let Some(rank) = e.data().as_string().as_deref().and_then(rank_of) {
            pushed(rank);
        }
    });
    let closed = Rc::new(Cell::new(Some(closed)));
    let s2 = source.clone();
    crate::sig::listen::<web_sys::Event>(source.unchecked_ref(), "error", move |_| {
        // CONNECTING: the browser reconnects by itself (the server then sends the rank
        // again, so nothing is missed). CLOSED: it will not.
        if s2.ready_state() == web_sys::EventSource::CLOSED
            && let Some(f) = closed.take()
        {
            f();
        }
    });
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

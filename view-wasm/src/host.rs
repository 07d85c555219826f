//! The only code that talks outside the view: the [`Backend`] seam and its two sides.
//!
//! - Host: tools/call (and every other MCP Apps message) through the host over
//!   postMessage, driven by the plain state machine in `bridge.rs`. The page's inline
//!   bootstrap has listened since the page loaded and queued what came early; `connect`
//!   subscribes to that queue, so nothing the host said before the program ran is lost.
//! - Http: through XMLHttpRequest, by one of two [`Door`]s: `POST /embed/<schedule>/call`
//!   with the link's token (`Authorization: Embed`), for the `/embed` page (and
//!   development against a local server); or `POST /app/schedules/<schedule>/call`
//!   under the web screen's session (the browser sends its cookie; the view sends the
//!   session's anti-forgery token in `X-PalmaPlan-CSRF`). No fetch: the served bytes
//!   must not contain it.
//!
//! Both answer a tool call with the same [`Reply`] or [`CallError`], so the view does
//! not know which one it runs on.

use std::cell::RefCell;
use std::rc::Rc;

use palmaplan_model::idset::IdMap;
use palmaplan_model::wire;
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::bridge::{Bridge, Event, Kind, Out, RpcError};

/// A tool's answer, as a CallToolResult carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub text: String,
    pub structured: Value,
    pub is_error: bool,
    /// The result's `_meta` (what only the view reads, such as the help address).
    pub meta: Value,
}

impl Reply {
    /// Reads a CallToolResult (`content`, `structuredContent`, `isError`).
    pub fn from_result(v: &Value) -> Reply {
        let text = v
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        Reply {
            text,
            structured: v.get("structuredContent").cloned().unwrap_or(Value::Null),
            is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(false),
            meta: v.get("_meta").cloned().unwrap_or(Value::Null),
        }
    }

    /// Reads a CallToolResult it owns: the structured content moves, no copy (a page
    /// is 110,000 characters).
    pub fn from_owned(mut v: Value) -> Reply {
        let structured = v
            .get_mut("structuredContent")
            .map(Value::take)
            .unwrap_or(Value::Null);
        let meta = v.get_mut("_meta").map(Value::take).unwrap_or(Value::Null);
        let rest = Reply::from_result(&v);
        Reply {
            structured,
            meta,
            ..rest
        }
    }

    /// The refusal's code (`structuredContent.error`), when it is one.
    pub fn error_code(&self) -> Option<&str> {
        self.structured.get("error").and_then(Value::as_str)
    }

    /// What to show the person of this answer: the server's words for them (no ids,
    /// command numbers or tools), else the model's text.
    pub fn person_words(self) -> String {
        wire::ResultMeta::read(&self.meta)
            .person_text
            .unwrap_or(self.text)
    }
}

/// Why a tool call has no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// No answer in time (8 s for a read, 60 s for a write).
    Timeout,
    /// The host refused the call (a hidden tool, no connection...), with its words.
    Host(String),
    /// The HTTP request failed (status 0 = no connection).
    Http(u16),
}

type Callback = Box<dyn FnOnce(Result<Reply, CallError>)>;
type RawCallback = Box<dyn FnOnce(Result<Value, RpcError>)>;
type EventHandler = Rc<dyn Fn(Event)>;

/// Where tool calls go.
#[derive(Clone, Debug, PartialEq)]
pub enum Backend {
    Host,
    Http { schedule: i64, door: Door },
}

/// How a page served by PalmaPlan itself is let in.
#[derive(Clone, Debug, PartialEq)]
pub enum Door {
    /// An `/embed` link: its token, from the page's address.
    Link(String),
    /// The web screen: the session's anti-forgery token, from the page's mode tag.
    Session(String),
}

impl Door {
    /// The path the page's calls and stream hang from.
    pub fn base(&self, schedule: i64) -> String {
        match self {
            Door::Link(_) => format!("/embed/{schedule}"),
            Door::Session(_) => format!("/app/schedules/{schedule}"),
        }
    }

    /// The header a call carries.
    fn header(&self) -> (&'static str, String) {
        match self {
            Door::Link(token) => ("Authorization", format!("Embed {token}")),
            Door::Session(csrf) => ("X-PalmaPlan-CSRF", csrf.clone()),
        }
    }

    /// The event stream's address. A link's token must be in it (an EventSource sends
    /// no header); a session's cookie goes by itself.
    pub fn events_url(&self, schedule: i64, encode: impl Fn(&str) -> String) -> String {
        match self {
            Door::Link(token) => format!("{}/events?t={}", self.base(schedule), encode(token)),
            Door::Session(_) => format!("{}/events", self.base(schedule)),
        }
    }
}

thread_local! {
    static BRIDGE: RefCell<Bridge> = RefCell::new(Bridge::new("palmaplan-view", env!("CARGO_PKG_VERSION")));
    static WAITING: RefCell<IdMap<u64, RawCallback>> = RefCell::new(IdMap::default());
    static ON_EVENT: RefCell<Option<EventHandler>> = const { RefCell::new(None) };
}

pub fn now() -> f64 {
    js_sys::Date::now()
}

/// A monotonic clock in ms with sub-ms precision (`performance.now()`), for measuring.
pub fn now_precise() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Reads the bridge (host name, context) without holding it across a callback.
pub fn with_bridge<T>(f: impl FnOnce(&Bridge) -> T) -> T {
    BRIDGE.with(|b| f(&b.borrow()))
}

fn post(msg: &Value) {
    let Some(w) = web_sys::window() else { return };
    let Ok(parent) = w.parent() else { return };
    let Some(parent) = parent else { return };
    let Ok(text) = serde_json::to_string(msg) else {
        return;
    };
    if let Ok(obj) = js_sys::JSON::parse(&text) {
        let _ = parent.post_message(&obj, "*");
    }
}

/// Carries out what the state machine asked, outside any borrow of it.
fn run(outs: Vec<Out>) {
    for out in outs {
        match out {
            Out::Post(msg) => post(&msg),
            Out::Event(Event::Response { id, result }) => {
                let cb = WAITING.with(|w| w.borrow_mut().remove(&id));
                if let Some(cb) = cb {
                    cb(result);
                }
            }
            Out::Event(e) => {
                let handler = ON_EVENT.with(|h| h.borrow().clone());
                if let Some(h) = handler {
                    h(e);
                }
            }
        }
    }
}

/// Subscribes to the bootstrap's queue (getting what came early, in order), starts the
/// handshake and the deadline timer. Events go to `on_event`; the kept tool-input,
/// tool-result and tool-cancelled are replayed to it at once if they came before.
pub fn connect(on_event: Rc<dyn Fn(Event)>) {
    ON_EVENT.with(|h| *h.borrow_mut() = Some(on_event));
    let receive = Closure::<dyn Fn(JsValue)>::new(|data: JsValue| {
        trace("message");
        if let Ok(result) = js_sys::Reflect::get(&data, &JsValue::from_str("result")) {
            split_records(&result);
        }
        trace("split");
        let Some(text) = js_sys::JSON::stringify(&data)
            .ok()
            .and_then(|s| s.as_string())
        else {
            return;
        };
        let Ok(msg) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        trace("parsed");
        let outs = BRIDGE.with(|b| b.borrow_mut().receive(msg));
        run(outs);
    });
    // The packed page's loader shook hands already (to choose the view's path) and left
    // the answer; a page without the loader (trunk's, in development) shakes hands here.
    let outs = match bootstrap("init").and_then(|v| js_value_to_json(&v)) {
        Some(init) => BRIDGE.with(|b| b.borrow_mut().adopt(loader_answer(init))),
        None => BRIDGE.with(|b| b.borrow_mut().start(now())),
    };
    run(outs);
    if let Some(listen) = bootstrap("listen").and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
        let _ = listen.call1(&JsValue::NULL, receive.as_ref());
    }
    // The page lives as long as the listener.
    receive.forget();
    crate::sig::set_interval(
        || {
            let outs = BRIDGE.with(|b| b.borrow_mut().tick(now()));
            run(outs);
        },
        std::time::Duration::from_millis(250),
    );
}

/// A JavaScript value as JSON (through the browser's own JSON.stringify).
fn js_value_to_json(v: &JsValue) -> Option<Value> {
    let text = js_sys::JSON::stringify(v).ok()?.as_string()?;
    serde_json::from_str(&text).ok()
}

/// The loader's `{result}` or `{error: {message}}` as the handshake's answer.
fn loader_answer(mut init: Value) -> Result<Value, RpcError> {
    match init.get_mut("result").map(Value::take) {
        Some(result) => Ok(result),
        None => Err(RpcError::Host {
            code: 0,
            message: init
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }),
    }
}

/// Records per part of a delta's text: a large delta (~700 records) is read in four or
/// five tasks of a few ms rather than one of ~30 ms.
const RECORDS_PER_PART: u32 = 160;

/// Moves the records of a tool result's page or delta out of the object tree: a page's
/// texts (`structuredContent.record_parts`, the server's parts) as they came, a delta's
/// array (`structuredContent.delta.records`) as the texts of its consecutive parts. They
/// are set aside (`data::stash_record_parts`) and `records_ref` beside them says where,
/// for `data::take_record_parts` to read them straight into their types.
fn split_records(result: &JsValue) {
    let key = |k: &str| JsValue::from_str(k);
    let Ok(sc) = js_sys::Reflect::get(result, &key("structuredContent")) else {
        return;
    };
    if !sc.is_object() {
        return;
    }
    if let Ok(packed) = js_sys::Reflect::get(&sc, &key("packed_parts"))
        && js_sys::Array::is_array(&packed)
    {
        // Unpacked by the browser, off this task; the reading waits for them
        // (`data::when_ready`).
        let n = crate::data::stash_unpacking();
        let _ = js_sys::Reflect::set(&sc, &key("records_ref"), &JsValue::from_f64(n as f64));
        let _ = js_sys::Reflect::delete_property(
            sc.unchecked_ref::<js_sys::Object>(),
            &key("packed_parts"),
        );
        unpack(n, &packed);
        return;
    }
    if let Ok(texts) = js_sys::Reflect::get(&sc, &key("record_parts"))
        && js_sys::Array::is_array(&texts)
    {
        let texts: js_sys::Array = texts.unchecked_into();
        // With a part that is no text, nothing is set aside: the page's reader then
        // says its records are missing.
        let parts: Option<Vec<String>> = texts.iter().map(|t| t.as_string()).collect();
        if let Some(parts) = parts {
            let n = crate::data::stash_record_parts(parts);
            let _ = js_sys::Reflect::set(&sc, &key("records_ref"), &JsValue::from_f64(n as f64));
            let _ = js_sys::Reflect::delete_property(
                sc.unchecked_ref::<js_sys::Object>(),
                &key("record_parts"),
            );
        }
        return;
    }
    let delta = js_sys::Reflect::get(&sc, &key("delta")).unwrap_or(JsValue::NULL);
    for holder in [sc, delta] {
        if !holder.is_object() {
            continue;
        }
        let Ok(records) = js_sys::Reflect::get(&holder, &key("records")) else {
            continue;
        };
        if !js_sys::Array::is_array(&records) {
            continue;
        }
        // In parts of RECORDS_PER_PART: the view reads a long page a part per task.
        let records: js_sys::Array = records.unchecked_into();
        let mut parts = Vec::new();
        let mut at = 0;
        while at < records.length() {
            let end = (at + RECORDS_PER_PART).min(records.length());
            if let Some(text) = js_sys::JSON::stringify(&records.slice(at, end))
                .ok()
                .and_then(|t| t.as_string())
            {
                parts.push(text);
            }
            at = end;
        }
        if records.length() == 0 {
            parts.push("[]".to_owned());
        }
        let n = crate::data::stash_record_parts(parts);
        let _ = js_sys::Reflect::set(&holder, &key("records_ref"), &JsValue::from_f64(n as f64));
        let _ = js_sys::Reflect::delete_property(
            holder.unchecked_ref::<js_sys::Object>(),
            &key("records"),
        );
    }
}

/// Whether this page can unpack packed pages (the packed page's loader gives it the
/// browser's gzip, `__pp.unpack`; trunk's development page has no loader).
pub fn can_unpack() -> bool {
    bootstrap("unpack").is_some_and(|f| f.is_function())
}

/// Unpacks a packed page's parts (`__pp.unpack`: gzip in base64, record parts one per
/// line, lent back as bytes for one call) into the records set aside as `n`.
fn unpack(n: u64, packed: &JsValue) {
    let unpack = bootstrap("unpack").and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(unpack) = unpack else {
        return crate::data::unpacked(n, Err("this page cannot unpack records".into()));
    };
    // `__pp.unpack` calls this once, with the parts or why not as a text; the parts'
    // bytes are freed when it returns, so they are copied here.
    let take = Closure::once_into_js(move |parts: JsValue| {
        let read = if js_sys::Array::is_array(&parts) {
            let parts: js_sys::Array = parts.unchecked_into();
            // Each part's bytes copied into this module's memory in one move (a text
            // would be copied a character at a time), then checked as UTF-8 in place.
            parts
                .iter()
                .map(|p| {
                    let bytes = p
                        .dyn_into::<js_sys::Uint8Array>()
                        .map_err(|_| "an unpacked part is no bytes".to_owned())?
                        .to_vec();
                    String::from_utf8(bytes)
                        .map_err(|e| format!("an unpacked part is not UTF-8: {e}"))
                })
                .collect::<Result<Vec<String>, String>>()
        } else {
            Err(format!(
                "records could not be unpacked: {}",
                parts.as_string().unwrap_or_default()
            ))
        };
        crate::data::unpacked(n, read);
    });
    if unpack.call2(&JsValue::NULL, packed, &take).is_err() {
        crate::data::unpacked(n, Err("records could not be unpacked".into()));
    }
}

/// A property of the inline bootstrap's `window.__pp`.
pub fn bootstrap(name: &str) -> Option<JsValue> {
    let w = web_sys::window()?;
    let pp = js_sys::Reflect::get(&w, &JsValue::from_str("__pp")).ok()?;
    if pp.is_undefined() {
        return None;
    }
    js_sys::Reflect::get(&pp, &JsValue::from_str(name))
        .ok()
        .filter(|v| !v.is_undefined())
}

/// Appends `[label, ms]` to `window.__pp.trace` when a benchmark set it to an array:
/// where the time between a page's arrival and its paint goes (e2e/bench/render.mjs).
pub fn trace(label: &str) {
    // Natively (the unit tests run the model's steps that trace) there is no page.
    if !cfg!(target_arch = "wasm32") {
        return;
    }
    if let Some(t) = bootstrap("trace")
        && let Ok(a) = t.dyn_into::<js_sys::Array>()
    {
        let e = js_sys::Array::of2(&JsValue::from_str(label), &JsValue::from_f64(now_precise()));
        a.push(&e);
    }
}

/// Sets a property of `window.__pp` (what the tests and the bootstrap read).
pub fn mark(name: &str, value: &JsValue) {
    if let Some(w) = web_sys::window()
        && let Ok(pp) = js_sys::Reflect::get(&w, &JsValue::from_str("__pp"))
        && pp.is_object()
    {
        let _ = js_sys::Reflect::set(&pp, &JsValue::from_str(name), value);
    }
}

/// A request to the host (ui/open-link, ui/message, ui/request-display-mode...).
pub fn request(
    method: &str,
    params: Value,
    kind: Kind,
    cb: impl FnOnce(Result<Value, RpcError>) + 'static,
) {
    let (id, outs) = BRIDGE.with(|b| b.borrow_mut().request(method, params, kind, now()));
    WAITING.with(|w| w.borrow_mut().insert(id, Box::new(cb)));
    run(outs);
}

/// A notification to the host (size-changed, update-model-context is a request).
pub fn notify(method: &str, params: Value) {
    run(vec![Bridge::notify(method, params)]);
}

impl Backend {
    /// Calls a tool; `cb` gets its answer (a refusal is an answer, with `is_error`).
    pub fn call(
        &self,
        tool: &str,
        arguments: Value,
        write: bool,
        cb: impl FnOnce(Result<Reply, CallError>) + 'static,
    ) {
        let cb: Callback = Box::new(cb);
        let kind = if write { Kind::Write } else { Kind::Read };
        match self {
            Backend::Host => request(
                "tools/call",
                json!({ "name": tool, "arguments": arguments }),
                kind,
                move |r| {
                    cb(match r {
                        Ok(v) => Ok(Reply::from_owned(v)),
                        Err(RpcError::Timeout) => Err(CallError::Timeout),
                        Err(RpcError::Host { message, .. }) => Err(CallError::Host(message)),
                    })
                },
            ),
            Backend::Http { schedule, door } => {
                http_call(*schedule, door, tool, arguments, kind, cb)
            }
        }
    }
}

fn http_call(schedule: i64, door: &Door, tool: &str, arguments: Value, kind: Kind, cb: Callback) {
    let Ok(xhr) = web_sys::XmlHttpRequest::new() else {
        cb(Err(CallError::Http(0)));
        return;
    };
    let url = format!("{}/call", door.base(schedule));
    if xhr.open("POST", &url).is_err() {
        cb(Err(CallError::Http(0)));
        return;
    }
    let _ = xhr.set_request_header("Content-Type", "application/json");
    let (name, value) = door.header();
    let _ = xhr.set_request_header(name, &value);
    xhr.set_timeout(kind.timeout_ms() as u32);
    let cb = Rc::new(RefCell::new(Some(cb)));
    let done = {
        let xhr = xhr.clone();
        let cb = Rc::clone(&cb);
        move |timed_out: bool| {
            let Some(cb) = cb.borrow_mut().take() else {
                return;
            };
            if timed_out {
                cb(Err(CallError::Timeout));
                return;
            }
            let status = xhr.status().unwrap_or(0);
            let mut body = xhr.response_text().ok().flatten().unwrap_or_default();
            // The records of a page or delta as text, as from the host (see split_records).
            if let Ok(parsed) = js_sys::JSON::parse(&body) {
                split_records(&parsed);
                if let Some(text) = js_sys::JSON::stringify(&parsed)
                    .ok()
                    .and_then(|s| s.as_string())
                {
                    body = text;
                }
            }
            match serde_json::from_str::<Value>(&body) {
                // Refusals (403, 410...) come as tool results with isError: show their words.
                Ok(v) if v.get("content").is_some() => cb(Ok(Reply::from_owned(v))),
                _ => cb(Err(CallError::Http(status))),
            }
        }
    };
    let done = Rc::new(done);
    let on_load = {
        let done = Rc::clone(&done);
        Closure::once_into_js(move || done(false))
    };
    let on_error = {
        let done = Rc::clone(&done);
        Closure::once_into_js(move || done(false))
    };
    let on_timeout = Closure::once_into_js(move || done(true));
    xhr.set_onload(Some(on_load.unchecked_ref()));
    xhr.set_onerror(Some(on_error.unchecked_ref()));
    xhr.set_ontimeout(Some(on_timeout.unchecked_ref()));
    let body = json!({ "tool": tool, "arguments": arguments }).to_string();
    if xhr.send_with_opt_str(Some(&body)).is_err()
        && let Some(cb) = cb.borrow_mut().take()
    {
        cb(Err(CallError::Http(0)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_tool_result_is_read_whole() {
        let r = Reply::from_result(&json!({
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "structuredContent": {"error": "forbidden"},
            "isError": true,
        }));
        assert_eq!(r.text, "a\nb");
        assert!(r.is_error);
        assert_eq!(r.error_code(), Some("forbidden"));
        let r = Reply::from_result(&json!({}));
        assert_eq!(
            r,
            Reply {
                text: String::new(),
                structured: Value::Null,
                is_error: false,
                meta: Value::Null,
            }
        );
        let r = Reply::from_result(&json!({"content": [], "_meta": {"palmaplan/help_url": "h"}}));
        assert_eq!(r.meta["palmaplan/help_url"], "h");
        let whole = json!({"content": [{"type": "text", "text": "t"}], "structuredContent": {"a": 1}, "isError": true, "_meta": {"m": 2}});
        assert_eq!(Reply::from_owned(whole.clone()), Reply::from_result(&whole));
    }

    #[test]
    fn a_refusal_shows_the_person_their_words_else_the_model_s() {
        let r = Reply::from_result(&json!({
            "content": [{"type": "text", "text": "Commande 1 (move_periods) : verrouillé"}],
            "structuredContent": {"error": "locked"},
            "isError": true,
            "_meta": {"palmaplan/person_text": "Le bloc « Pose » est verrouillé."},
        }));
        assert_eq!(r.person_words(), "Le bloc « Pose » est verrouillé.");
        let r = Reply::from_result(&json!({
            "content": [{"type": "text", "text": "Refusé."}],
            "isError": true,
        }));
        assert_eq!(r.person_words(), "Refusé.");
    }

    #[test]
    fn each_door_calls_and_listens_at_its_own_address() {
        let enc = |t: &str| t.replace('+', "%2B");
        let link = Door::Link("a+b".into());
        assert_eq!(link.base(7), "/embed/7");
        assert_eq!(link.events_url(7, enc), "/embed/7/events?t=a%2Bb");
        assert_eq!(link.header(), ("Authorization", "Embed a+b".into()));
        let session = Door::Session("c0ffee".into());
        assert_eq!(session.base(7), "/app/schedules/7");
        // No secret in the stream's address: the cookie goes by itself.
        assert_eq!(session.events_url(7, enc), "/app/schedules/7/events");
        assert_eq!(session.header(), ("X-PalmaPlan-CSRF", "c0ffee".into()));
    }
}

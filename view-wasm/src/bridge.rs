//! The view's side of MCP Apps: JSON-RPC 2.0 over postMessage, as a plain state machine.
//!
//! Nothing here touches the browser: messages come in as `serde_json::Value`s with the
//! time they arrived, and the machine answers with [`Out`]s (a message to post, an event
//! for the view). `host.rs` wires it to `window.postMessage` and a timer. So every rule
//! below is unit-tested natively with early, late, duplicate, missing and cancelled
//! messages.
//!
//! Rules (TasKadence's, which are ours):
//! - Every message may come early (before `ui/initialize` is answered), late, twice or
//!   never. Host notifications are accepted in any phase; the last tool-input,
//!   tool-result and tool-cancelled are kept and replayed to a late subscriber.
//! - Every request has a deadline: 8 s for the handshake and reads, 60 s for writes. A
//!   request past its deadline is answered locally with [`RpcError::Timeout`]; an answer
//!   that still comes later is dropped (its caller already moved on).
//! - `ping` and `ui/resource-teardown` are answered here, in any phase.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The MCP Apps protocol version the view speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";

/// Deadline of the handshake and of reads.
pub const READ_TIMEOUT_MS: f64 = 8_000.0;
/// Deadline of writes: a write may queue behind others on the server.
pub const WRITE_TIMEOUT_MS: f64 = 60_000.0;

/// What a request is, which decides its deadline and how a failure is worded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Handshake,
    Read,
    Write,
}

impl Kind {
    pub fn timeout_ms(self) -> f64 {
        match self {
            Kind::Handshake | Kind::Read => READ_TIMEOUT_MS,
            Kind::Write => WRITE_TIMEOUT_MS,
        }
    }
}

/// Why a request got no result.
#[derive(Clone, Debug, PartialEq)]
pub enum RpcError {
    /// The host answered with a JSON-RPC error.
    Host { code: i64, message: String },
    /// No answer before the deadline.
    Timeout,
}

/// What the host told the view, for the view to act on.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The handshake is done: the host's name (cleaned) and context are known.
    Ready,
    /// The handshake failed or timed out: the view works without host context.
    HandshakeFailed(RpcError),
    ToolInput(Value),
    ToolResult(Value),
    ToolCancelled(Option<String>),
    /// The host context changed (already merged into [`Bridge::context`]).
    Context,
    /// The answer to a request the view made.
    Response {
        id: u64,
        result: Result<Value, RpcError>,
    },
    /// The host is about to remove the frame.
    Teardown,
}

/// What the machine asks its driver to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Out {
    Post(Value),
    Event(Event),
}

#[derive(Clone, Debug)]
struct Pending {
    deadline: f64,
}

/// Whether the handshake is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    New,
    Connecting,
    Ready,
    /// The handshake failed: requests still go out (some hosts answer them anyway).
    Degraded,
}

/// The view's JSON-RPC endpoint.
#[derive(Debug)]
pub struct Bridge {
    next_id: u64,
    pending: BTreeMap<u64, Pending>,
    handshake: Option<u64>,
    phase: Phase,
    host_name: Option<String>,
    host_capabilities: Value,
    context: Value,
    last_input: Option<Value>,
    last_result: Option<Value>,
    last_cancel: Option<Option<String>>,
    app_name: &'static str,
    app_version: &'static str,
}

impl Bridge {
    pub fn new(app_name: &'static str, app_version: &'static str) -> Bridge {
        Bridge {
            next_id: 1,
            pending: BTreeMap::new(),
            handshake: None,
            phase: Phase::New,
            host_name: None,
            host_capabilities: Value::Null,
            context: json!({}),
            last_input: None,
            last_result: None,
            last_cancel: None,
            app_name,
            app_version,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The host's name from `hostInfo.name`, cleaned to one short line; None when the
    /// host gave none (the view then says "the assistant").
    pub fn host_name(&self) -> Option<&str> {
        self.host_name.as_deref()
    }

    /// The merged host context (theme, locale, timeZone, displayMode...).
    pub fn context(&self) -> &Value {
        &self.context
    }

    pub fn host_capabilities(&self) -> &Value {
        &self.host_capabilities
    }

    /// Whether the host announced an optional capability in its answer to
    /// `ui/initialize` (`openLinks`, `message`, `updateModelContext`...). A request it
    /// did not announce is not sent: hosts answer it -32601 (MCP Inspector 2.12 does,
    /// every time), and the view offers nothing that needs it.
    pub fn announces(&self, capability: &str) -> bool {
        self.host_capabilities
            .get(capability)
            .is_some_and(|v| !v.is_null())
    }

    /// Whether the host offers a display mode (`hostContext.availableDisplayModes`),
    /// or is in it already (then the view may ask to leave it).
    pub fn offers_display_mode(&self, mode: &str) -> bool {
        self.context.get("displayMode").and_then(Value::as_str) == Some(mode)
            || self
                .context
                .get("availableDisplayModes")
                .and_then(Value::as_array)
                .is_some_and(|m| m.iter().any(|v| v.as_str() == Some(mode)))
    }

    /// Sends `ui/initialize`. The display modes are those the view can draw.
    pub fn start(&mut self, now: f64) -> Vec<Out> {
        self.phase = Phase::Connecting;
        let (id, out) = self.request(
            "ui/initialize",
            json!({
                "appInfo": { "name": self.app_name, "version": self.app_version },
                "appCapabilities": { "availableDisplayModes": ["inline", "fullscreen"] },
                "protocolVersion": PROTOCOL_VERSION,
            }),
            Kind::Handshake,
            now,
        );
        self.handshake = Some(id);
        out
    }

    /// Sends a request; its answer arrives as [`Event::Response`] with the id returned.
    pub fn request(
        &mut self,
        method: &str,
        params: Value,
        kind: Kind,
        now: f64,
    ) -> (u64, Vec<Out>) {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(
            id,
            Pending {
                deadline: now + kind.timeout_ms(),
            },
        );
        let msg = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        (id, vec![Out::Post(msg)])
    }

    /// A notification to the host.
    pub fn notify(method: &str, params: Value) -> Out {
        Out::Post(json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    /// The kept tool-input, tool-result and tool-cancelled, in that order, for a
    /// subscriber that arrives after them.
    pub fn replay(&self) -> Vec<Event> {
        let mut out = Vec::new();
        if let Some(i) = &self.last_input {
            out.push(Event::ToolInput(i.clone()));
        }
        if let Some(r) = &self.last_result {
            out.push(Event::ToolResult(r.clone()));
        }
        if let Some(c) = &self.last_cancel {
            out.push(Event::ToolCancelled(c.clone()));
        }
        out
    }

    /// Requests past their deadline, answered as timeouts.
    pub fn tick(&mut self, now: f64) -> Vec<Out> {
        let late: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        let mut out = Vec::new();
        for id in late {
            self.pending.remove(&id);
            out.extend(self.settle(id, Err(RpcError::Timeout)));
        }
        out
    }

    /// The earliest deadline still pending, for the driver's timer.
    pub fn next_deadline(&self) -> Option<f64> {
        self.pending.values().map(|p| p.deadline).reduce(f64::min)
    }

    /// One message from the host, whatever it is and whenever it comes.
    /// Takes the message: a result or params moves to its event without a copy (an
    /// answer can hold a 110,000-character page).
    pub fn receive(&mut self, mut msg: Value) -> Vec<Out> {
        let result = msg.get_mut("result").map(Value::take);
        let params = msg
            .get_mut("params")
            .map(Value::take)
            .unwrap_or(Value::Null);
        let Some(obj) = msg.as_object() else {
            return Vec::new();
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Vec::new();
        }
        let method = obj.get("method").and_then(Value::as_str);
        let id = obj.get("id").filter(|v| !v.is_null());
        match (method, id) {
            (Some(m), Some(id)) => self.host_request(m, id.clone()),
            (Some(m), None) => self.host_notification(m, params),
            (None, Some(id)) => {
                let Some(id) = id.as_u64() else {
                    return Vec::new();
                };
                // An answer to nothing pending (late after a timeout, or duplicated):
                // its caller has moved on.
                if self.pending.remove(&id).is_none() {
                    return Vec::new();
                }
                let result = match obj.get("error") {
                    Some(e) => Err(RpcError::Host {
                        code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: e
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    }),
                    None => Ok(result.unwrap_or(Value::Null)),
                };
                self.settle(id, result)
            }
            (None, None) => Vec::new(),
        }
    }

    /// Takes the answer to a `ui/initialize` the page's loader sent before the program
    /// ran (it had to learn the host's sandbox to choose the view's path, and already
    /// told the host `initialized`): the bridge does not shake hands again.
    pub fn adopt(&mut self, answer: Result<Value, RpcError>) -> Vec<Out> {
        self.phase = Phase::Connecting;
        self.shake(answer, false)
    }

    fn settle(&mut self, id: u64, result: Result<Value, RpcError>) -> Vec<Out> {
        if self.handshake == Some(id) {
            self.handshake = None;
            return self.shake(result, true);
        }
        vec![Out::Event(Event::Response { id, result })]
    }

    /// The handshake's answer: the host's name, capabilities and context; `notify` says
    /// whether `initialized` is still to be sent.
    fn shake(&mut self, result: Result<Value, RpcError>, notify: bool) -> Vec<Out> {
        match result {
            Ok(r) => {
                self.host_name = r
                    .pointer("/hostInfo/name")
                    .and_then(Value::as_str)
                    .and_then(clean_host_name);
                self.host_capabilities = r.get("hostCapabilities").cloned().unwrap_or(Value::Null);
                if let Some(ctx) = r.get("hostContext") {
                    merge(&mut self.context, ctx);
                }
                self.phase = Phase::Ready;
                let mut out = Vec::new();
                if notify {
                    out.push(Self::notify("ui/notifications/initialized", json!({})));
                }
                out.push(Out::Event(Event::Ready));
                out
            }
            Err(e) => {
                self.phase = Phase::Degraded;
                vec![Out::Event(Event::HandshakeFailed(e))]
            }
        }
    }

    fn host_request(&mut self, method: &str, id: Value) -> Vec<Out> {
        let answer =
            |result: Value| Out::Post(json!({ "jsonrpc": "2.0", "id": id, "result": result }));
        match method {
            "ping" => vec![answer(json!({}))],
            "ui/resource-teardown" => vec![answer(json!({})), Out::Event(Event::Teardown)],
            _ => {
                vec![Out::Post(json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": { "code": -32601, "message": format!("method not found: {method}") },
                }))]
            }
        }
    }

    fn host_notification(&mut self, method: &str, params: Value) -> Vec<Out> {
        match method {
            "ui/notifications/tool-input" => {
                let args = params.get("arguments").cloned().unwrap_or(json!({}));
                // The same input twice is one input.
                if self.last_input.as_ref() == Some(&args) {
                    return Vec::new();
                }
                self.last_input = Some(args.clone());
                vec![Out::Event(Event::ToolInput(args))]
            }
            "ui/notifications/tool-result" => {
                if self.last_result.as_ref() == Some(&params) {
                    return Vec::new();
                }
                self.last_result = Some(params.clone());
                vec![Out::Event(Event::ToolResult(params))]
            }
            "ui/notifications/tool-cancelled" => {
                let reason = params
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.last_cancel = Some(reason.clone());
                vec![Out::Event(Event::ToolCancelled(reason))]
            }
            "ui/notifications/host-context-changed" => {
                merge(&mut self.context, &params);
                vec![Out::Event(Event::Context)]
            }
            _ => Vec::new(),
        }
    }
}

/// Merges a partial host context into the whole: objects key by key (so a change of
/// `styles.variables` keeps the theme), anything else replaced.
fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        a.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// The host's name as the view may show it: the first line, control characters out,
/// spaces collapsed, at most 40 characters; None when nothing is left.
pub fn clean_host_name(raw: &str) -> Option<String> {
    let line = raw.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out = String::new();
    for word in line.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let cut: String = out.chars().take(40).collect();
    let cut = cut.trim().to_owned();
    (!cut.is_empty()).then_some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posts(out: &[Out]) -> Vec<&Value> {
        out.iter()
            .filter_map(|o| match o {
                Out::Post(v) => Some(v),
                Out::Event(_) => None,
            })
            .collect()
    }

    fn events(out: Vec<Out>) -> Vec<Event> {
        out.into_iter()
            .filter_map(|o| match o {
                Out::Event(e) => Some(e),
                Out::Post(_) => None,
            })
            .collect()
    }

    fn answer(id: u64, result: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "result": result })
    }

    fn note(method: &str, params: Value) -> Value {
        json!({ "jsonrpc": "2.0", "method": method, "params": params })
    }

    #[test]
    fn handshake_sends_initialize_then_initialized_and_keeps_the_host() {
        let mut b = Bridge::new("palmaplan", "1");
        let out = b.start(0.0);
        let init = posts(&out)[0].clone();
        assert_eq!(init["method"], "ui/initialize");
        assert_eq!(init["params"]["protocolVersion"], PROTOCOL_VERSION);
        assert_eq!(
            init["params"]["appCapabilities"]["availableDisplayModes"],
            json!(["inline", "fullscreen"])
        );
        let id = init["id"].as_u64().unwrap();
        let out = b.receive(answer(
            id,
            json!({"protocolVersion": PROTOCOL_VERSION, "hostInfo": {"name": "  Claude\nDesktop"},
                       "hostContext": {"theme": "dark", "locale": "en-GB"}}),
        ));
        assert_eq!(posts(&out)[0]["method"], "ui/notifications/initialized");
        assert_eq!(events(out), vec![Event::Ready]);
        assert_eq!(b.phase(), Phase::Ready);
        assert_eq!(b.host_name(), Some("Claude"));
        assert_eq!(b.context()["theme"], "dark");
    }

    #[test]
    fn a_handshake_the_loader_made_is_adopted_without_a_second_one() {
        let mut b = Bridge::new("palmaplan", "1");
        let out = b.adopt(Ok(json!({"protocolVersion": PROTOCOL_VERSION,
            "hostInfo": {"name": "Inspector"}, "hostCapabilities": {"openLinks": {}},
            "hostContext": {"theme": "dark"}})));
        // Nothing is posted: the loader sent initialize and initialized already.
        assert!(posts(&out).is_empty(), "{out:?}");
        assert_eq!(events(out), vec![Event::Ready]);
        assert_eq!(b.phase(), Phase::Ready);
        assert_eq!(b.host_name(), Some("Inspector"));
        assert!(b.announces("openLinks"));
        assert_eq!(b.context()["theme"], "dark");
        // The loader's own answers (string ids) that reach the bridge are dropped.
        assert!(
            b.receive(json!({"jsonrpc": "2.0", "id": "pp-load-2", "result": {}}))
                .is_empty()
        );
        // An error answer: degraded, requests still go out.
        let mut b = Bridge::new("palmaplan", "1");
        let err = RpcError::Host {
            code: -32601,
            message: "no".into(),
        };
        assert_eq!(
            events(b.adopt(Err(err.clone()))),
            vec![Event::HandshakeFailed(err)]
        );
        assert_eq!(b.phase(), Phase::Degraded);
    }

    #[test]
    fn optional_requests_follow_what_the_host_announced() {
        let mut b = Bridge::new("palmaplan", "1");
        // Before the handshake: nothing is announced.
        assert!(!b.announces("openLinks") && !b.offers_display_mode("fullscreen"));
        let id = posts(&b.start(0.0))[0]["id"].as_u64().unwrap();
        // MCP Inspector 2.12's capabilities: links, no model context, no message.
        b.receive(answer(
            id,
            json!({"protocolVersion": PROTOCOL_VERSION,
                   "hostCapabilities": {"openLinks": {}, "serverTools": {}, "logging": {}, "updateModelContext": null},
                   "hostContext": {"displayMode": "inline", "availableDisplayModes": ["inline"]}}),
        ));
        assert!(b.announces("openLinks"));
        assert!(
            !b.announces("updateModelContext"),
            "null is not an announcement"
        );
        assert!(!b.announces("message"));
        assert!(b.offers_display_mode("inline"));
        assert!(!b.offers_display_mode("fullscreen"));
        // A host that puts the view full screen on its own can be asked to leave it.
        merge(&mut b.context, &json!({"displayMode": "fullscreen"}));
        assert!(b.offers_display_mode("fullscreen"));
    }

    #[test]
    fn early_messages_are_kept_and_replayed() {
        let mut b = Bridge::new("palmaplan", "1");
        // Before start(): a host that speaks first.
        let out = b.receive(note(
            "ui/notifications/tool-input",
            json!({"arguments": {"schedule": 5}}),
        ));
        assert_eq!(events(out), vec![Event::ToolInput(json!({"schedule": 5}))]);
        b.receive(note(
            "ui/notifications/tool-result",
            json!({"structuredContent": {"rank": 3}}),
        ));
        let replay = b.replay();
        assert_eq!(
            replay,
            vec![
                Event::ToolInput(json!({"schedule": 5})),
                Event::ToolResult(json!({"structuredContent": {"rank": 3}})),
            ]
        );
    }

    #[test]
    fn duplicates_count_once_and_late_answers_are_dropped() {
        let mut b = Bridge::new("palmaplan", "1");
        b.start(0.0);
        let r = note("ui/notifications/tool-result", json!({"content": []}));
        assert_eq!(events(b.receive(r.clone())).len(), 1);
        assert!(events(b.receive(r)).is_empty());
        let (id, _) = b.request("tools/call", json!({}), Kind::Read, 0.0);
        // The answer comes twice: the second is nobody's.
        assert_eq!(events(b.receive(answer(id, json!({"ok": 1})))).len(), 1);
        assert!(events(b.receive(answer(id, json!({"ok": 1})))).is_empty());
        // An answer to an id never sent.
        assert!(events(b.receive(answer(999, json!({})))).is_empty());
    }

    #[test]
    fn missing_answers_time_out_at_their_deadline() {
        let mut b = Bridge::new("palmaplan", "1");
        b.start(0.0);
        let (read, _) = b.request("tools/call", json!({}), Kind::Read, 100.0);
        let (write, _) = b.request("tools/call", json!({}), Kind::Write, 100.0);
        assert!(b.tick(7_999.0).is_empty());
        let ev = events(b.tick(8_000.0));
        assert_eq!(ev[0], Event::HandshakeFailed(RpcError::Timeout));
        assert_eq!(b.phase(), Phase::Degraded);
        let ev = events(b.tick(8_100.0));
        assert_eq!(
            ev,
            vec![Event::Response {
                id: read,
                result: Err(RpcError::Timeout)
            }]
        );
        assert_eq!(b.next_deadline(), Some(60_100.0));
        let ev = events(b.tick(60_100.0));
        assert_eq!(
            ev,
            vec![Event::Response {
                id: write,
                result: Err(RpcError::Timeout)
            }]
        );
        // The answer after the timeout is dropped.
        assert!(events(b.receive(answer(read, json!({})))).is_empty());
    }

    #[test]
    fn ping_and_teardown_are_answered_in_any_phase() {
        let mut b = Bridge::new("palmaplan", "1");
        let out = b.receive(json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"}));
        assert_eq!(
            posts(&out)[0],
            &json!({"jsonrpc": "2.0", "id": "p1", "result": {}})
        );
        let out = b.receive(
            json!({"jsonrpc": "2.0", "id": 7, "method": "ui/resource-teardown", "params": {"reason": "x"}}));
        assert_eq!(
            posts(&out)[0],
            &json!({"jsonrpc": "2.0", "id": 7, "result": {}})
        );
        assert_eq!(events(out), vec![Event::Teardown]);
        let out = b.receive(json!({"jsonrpc": "2.0", "id": 8, "method": "ui/unknown"}));
        assert_eq!(posts(&out)[0]["error"]["code"], -32601);
    }

    #[test]
    fn host_errors_and_context_changes() {
        let mut b = Bridge::new("palmaplan", "1");
        b.start(0.0);
        let (id, _) = b.request("tools/call", json!({}), Kind::Write, 0.0);
        let out = b.receive(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "hidden tool"}}));
        assert_eq!(
            events(out),
            vec![Event::Response {
                id,
                result: Err(RpcError::Host {
                    code: -32000,
                    message: "hidden tool".into()
                })
            }]
        );
        b.receive(note(
            "ui/notifications/host-context-changed",
            json!({"theme": "dark", "styles": {"variables": {"--a": "1"}}}),
        ));
        b.receive(note(
            "ui/notifications/host-context-changed",
            json!({"styles": {"variables": {"--b": "2"}}}),
        ));
        assert_eq!(b.context()["theme"], "dark");
        assert_eq!(
            b.context()["styles"]["variables"],
            json!({"--a": "1", "--b": "2"})
        );
    }

    #[test]
    fn cancel_is_kept_for_replay_and_noise_is_ignored() {
        let mut b = Bridge::new("palmaplan", "1");
        b.receive(note(
            "ui/notifications/tool-cancelled",
            json!({"reason": "user"}),
        ));
        assert_eq!(b.replay(), vec![Event::ToolCancelled(Some("user".into()))]);
        for noise in [
            json!("hello"),
            json!({"id": 1}),
            json!({"jsonrpc": "1.0", "method": "x"}),
            json!(null),
        ] {
            assert!(b.receive(noise).is_empty());
        }
    }

    #[test]
    fn host_names_are_cleaned_to_one_short_line() {
        assert_eq!(clean_host_name("Claude"), Some("Claude".into()));
        assert_eq!(
            clean_host_name("\n  VS\tCode  \nInsiders"),
            Some("VS Code".into())
        );
        assert_eq!(clean_host_name("   \n "), None);
        assert_eq!(clean_host_name(&"x".repeat(100)).map(|s| s.len()), Some(40));
        assert_eq!(clean_host_name("a\u{7}b"), Some("a b".into()));
    }
}

//! What `/mcp` answers before rmcp sees a request, where rmcp's own answer would leave a
//! client nothing to act on, and how many sessions a token may keep.
//!
//! - A body that is not JSON gets 400 with JSON-RPC's parse error (-32700); rmcp says
//!   415 and a serde message. An `initialize` without a `protocolVersion` string, and a
//!   `tools/call` without a tool name or with arguments that are not an object, get
//!   -32602 (invalid params) naming what to fix; rmcp says "Session ID is required" or
//!   -32601 ("method not found") for them.
//! - `DELETE` of a session that is not open (closed, expired, never existed) gets 404,
//!   as the transport spec says of an unknown session; rmcp answers 202 whatever.
//! - CORS: a preflight from an allowed origin is answered (without a token: browsers
//!   send none with it), and answers to allowed origins expose `Mcp-Session-Id`.
//! - Sessions per token are capped ([`MAX_SESSIONS_PER_TOKEN`]): a client that opens
//!   sessions and abandons them (one per run of a script, say) would otherwise hold
//!   memory until each one's idle timeout. Past the cap, the token's least recently
//!   used session is closed. A session answers only the token that opened it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The most live MCP sessions one token keeps; the least recently used one is closed
/// to open another. Real clients hold one or two (a host per conversation window).
pub const MAX_SESSIONS_PER_TOKEN: usize = 32;

/// The session header of the streamable HTTP transport.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// A JSON-RPC error answer with an HTTP status.
fn rpc_error(status: StatusCode, id: Value, code: i64, message: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
            .to_string(),
    )
        .into_response()
}

/// Why a JSON-RPC message is refused before rmcp reads it, if it is.
pub fn invalid_message(body: &[u8]) -> Option<(StatusCode, Value, i64, String)> {
    let message: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Some((
                StatusCode::BAD_REQUEST,
                Value::Null,
                -32700,
                format!(
                    "Parse error: the body is not JSON ({e}). Send one JSON-RPC message, e.g. {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}."
                ),
            ));
        }
    };
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let invalid = |text: String| Some((StatusCode::OK, id.clone(), -32602, text));
    let params = message.get("params");
    match message.get("method").and_then(Value::as_str) {
        Some("initialize") => {
            let version = params.and_then(|p| p.get("protocolVersion"));
            match version.and_then(Value::as_str) {
                Some(v) if !v.trim().is_empty() => None,
                _ => Some((
                    StatusCode::BAD_REQUEST,
                    id.clone(),
                    -32602,
                    "Invalid params: initialize needs params.protocolVersion, a string such as \"2025-06-18\" (the newest MCP version the client speaks).".to_owned(),
                )),
            }
        }
        Some("tools/call") => {
            let Some(Value::Object(p)) = params else {
                return invalid(
                    "Invalid params: tools/call needs params, an object {\"name\": \"<tool>\", \"arguments\": {…}}.".to_owned(),
                );
            };
            match p.get("name") {
                Some(Value::String(n)) if !n.is_empty() => {}
                _ => {
                    return invalid(
                        "Invalid params: tools/call needs params.name, the tool's name as a string (tools/list gives them).".to_owned(),
                    );
                }
            }
            match p.get("arguments") {
                None | Some(Value::Null) | Some(Value::Object(_)) => None,
                Some(_) => invalid(
                    "Invalid params: params.arguments must be an object of the tool's arguments, e.g. {\"schedule\": 1}.".to_owned(),
                ),
            }
        }
        _ => None,
    }
}

/// The live sessions of each token, with their last use, and the session manager that
/// can close them.
#[derive(Debug)]
pub struct Sessions {
    manager: Arc<LocalSessionManager>,
    /// Token id -> its sessions (id, last use).
    by_token: Mutex<HashMap<i64, Vec<(String, Instant)>>>,
    cap: usize,
}

/// What the session table says of a request's session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// No session header: a new session (initialize) or a stateless message.
    NoSession,
    /// The token's own session, marked used now.
    Mine,
    /// Not this token's (another token's, or not open).
    NotMine,
}

impl Sessions {
    pub fn new(manager: Arc<LocalSessionManager>, cap: usize) -> Sessions {
        Sessions {
            manager,
            by_token: Mutex::new(HashMap::new()),
            cap,
        }
    }

    /// The session manager rmcp runs with.
    pub fn manager(&self) -> Arc<LocalSessionManager> {
        Arc::clone(&self.manager)
    }

    /// Whether a session is open in rmcp.
    pub async fn is_open(&self, session: &str) -> bool {
        self.manager
            .sessions
            .read()
            .await
            .contains_key(&Arc::<str>::from(session))
    }

    /// Looks a request's session up for `token`, marking it used.
    pub fn touch(&self, token: i64, headers: &HeaderMap) -> Known {
        let Some(session) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
            return Known::NoSession;
        };
        let mut table = self.by_token.lock().unwrap_or_else(|e| e.into_inner());
        match table
            .get_mut(&token)
            .and_then(|list| list.iter_mut().find(|(id, _)| id == session))
        {
            Some(entry) => {
                entry.1 = Instant::now();
                Known::Mine
            }
            None => Known::NotMine,
        }
    }

    /// Records a session `token` just opened, and closes the token's least recently
    /// used ones beyond the cap (and forgets those rmcp has closed meanwhile).
    pub async fn opened(&self, token: i64, session: &str) {
        let open: Vec<String> = {
            let live = self.manager.sessions.read().await;
            let mut table = self.by_token.lock().unwrap_or_else(|e| e.into_inner());
            let list = table.entry(token).or_default();
            list.retain(|(id, _)| live.contains_key(&Arc::<str>::from(id.as_str())));
            list.push((session.to_owned(), Instant::now()));
            let mut evicted = Vec::new();
            while list.len() > self.cap {
                let oldest = list
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(i, _)| i)
                    .unwrap_or(0);
                evicted.push(list.remove(oldest).0);
            }
            evicted
        };
        for id in open {
            tracing::info!(token, session = %id, "session closed: the token opened more than {}", self.cap);
            if let Err(e) = self
                .manager
                .close_session(&Arc::<str>::from(id.as_str()))
                .await
            {
                tracing::debug!(error = %e, "closing an evicted session");
            }
        }
    }

    /// Forgets a session the client closed.
    pub fn closed(&self, token: i64, session: &str) {
        let mut table = self.by_token.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = table.get_mut(&token) {
            list.retain(|(id, _)| id != session);
        }
    }
}

/// Whether `origin` is allowed by one of `patterns` (`*`; `scheme://host:*` for any port
/// of that host, or none; or an exact origin).
pub fn origin_allowed(origin: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| {
        if p == "*" {
            return true;
        }
        match p.strip_suffix(":*") {
            Some(host) => {
                origin == host
                    || origin
                        .strip_prefix(host)
                        .and_then(|rest| rest.strip_prefix(':'))
                        .is_some_and(|port| {
                            !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                        })
            }
            None => origin == p,
        }
    })
}

/// CORS for `/mcp`: allowed origins may call it from a page, with the headers the
/// transport uses, and read the session id.
pub fn cors(patterns: Vec<String>) -> CorsLayer {
    let session = HeaderName::from_static(SESSION_HEADER);
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin: &HeaderValue, _| {
            origin.to_str().is_ok_and(|o| origin_allowed(o, &patterns))
        }))
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::HeaderName::from_static("last-event-id"),
            session.clone(),
            HeaderName::from_static("mcp-protocol-version"),
        ])
        .expose_headers([session])
        .max_age(std::time::Duration::from_secs(600))
}

/// The checks of a POST body: answers the refusal, or gives the request back rebuilt
/// from its bytes.
pub async fn check_post(request: Request, limit: usize) -> Result<Request, Response> {
    let (parts, body) = request.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(b) => b,
        Err(_) => {
            return Err((
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("The request body is larger than {limit} bytes."),
            )
                .into_response());
        }
    };
    if let Some((status, id, code, message)) = invalid_message(&bytes) {
        return Err(rpc_error(status, id, code, message));
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// 404 for a session that is not open, with a body that says what to do.
pub fn unknown_session() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "application/json")],
        json!({
            "error": "unknown_session",
            "message": "This MCP session is not open (closed, expired, or opened with another token). Start a new one with initialize.",
        })
        .to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<i64> {
        invalid_message(body.as_bytes()).map(|(_, _, c, _)| c)
    }

    #[test]
    fn messages_a_client_can_act_on() {
        assert_eq!(code("{\"jsonrpc\":"), Some(-32700));
        assert_eq!(code(""), Some(-32700));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            Some(-32602)
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#
            ),
            None
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#
            ),
            Some(-32602)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}"#),
            Some(-32602)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        let deep = "[".repeat(100_000);
        assert_eq!(
            code(&deep),
            Some(-32700),
            "nesting is bounded by serde_json"
        );
    }

    #[test]
    fn origins_match_exactly_or_by_any_port() {
        let p = vec![
            "http://localhost:*".to_owned(),
            "https://a.example".to_owned(),
        ];
        assert!(origin_allowed("http://localhost:3000", &p));
        assert!(origin_allowed("http://localhost", &p));
        assert!(origin_allowed("https://a.example", &p));
        assert!(!origin_allowed("http://localhost.evil.com", &p));
        assert!(!origin_allowed("http://localhost:3000.evil", &p));
        assert!(!origin_allowed("https://a.example.evil", &p));
        assert!(origin_allowed("https://anything", &["*".to_owned()]));
    }
}

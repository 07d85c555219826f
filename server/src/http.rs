//! The HTTP face of the server: `GET /healthz`, and `/mcp`, rmcp's streamable HTTP
//! transport (stateful sessions, its default) behind our Bearer-token check.
//!
//! `app` builds the router apart from `main`, so the integration tests serve exactly
//! what the binary serves. The token check is an axum layer in front of rmcp: it turns
//! `Authorization: Bearer ppt_…` into a `Caller` in the request's extensions, where the
//! MCP adapter finds it (rmcp passes the request's `http::request::Parts` to the tool).
//! Every request is checked, not just a session's first: a revoked token stops working
//! at once, even in an open session. A refused request gets a 401 whose JSON body says
//! what to do, because the person reading it is setting up a client.
//!
//! Host and Origin checks (against DNS rebinding and pages in a browser) are rmcp's:
//! loopback by default, widened with `--allowed-host` / `--allowed-origin`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use palmaplan_model::Lang;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::auth;
use crate::mcp::McpServer;
use crate::planning::{Caller, Planning, tr};

/// The largest MCP request body accepted. Whole-schedule imports are the big ones
/// (a 10,000-bar schedule is about 3 MB of JSON); beyond this rmcp answers 413.
pub const MAX_REQUEST_BODY_BYTES: usize = 16 << 20;

/// Hosts always accepted in the `Host` header: the loopback names.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Browser origins always accepted (any port): pages served from loopback.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// What the HTTP server runs with.
#[derive(Clone, Debug)]
pub struct AppState {
    pub planning: Planning,
    /// The language of texts when the call does not choose one.
    pub lang: Lang,
    /// `Host` values accepted besides loopback (`host` or `host:port`); `*` accepts any
    /// (for a proxy that checks the host itself).
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted besides loopback (`https://app.example.com:443`, port `*`
    /// for any); `*` accepts any. Requests without an `Origin` header always pass.
    pub allowed_origins: Vec<String>,
    /// Cancelled to stop: ends the MCP sessions and their streams, then the server.
    pub shutdown: CancellationToken,
}

impl AppState {
    /// Loopback only, the server's default.
    pub fn new(planning: Planning, lang: Lang) -> AppState {
        AppState {
            planning,
            lang,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            shutdown: CancellationToken::new(),
        }
    }
}

/// rmcp's transport settings: body limit, shutdown, and the Host / Origin allow-lists
/// (loopback plus what was given; `*` turns a check off).
fn mcp_config(
    allowed_hosts: &[String],
    allowed_origins: &[String],
    shutdown: &CancellationToken,
) -> StreamableHttpServerConfig {
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(MAX_REQUEST_BODY_BYTES)
        .with_cancellation_token(shutdown.child_token());
    config = if allowed_hosts.iter().any(|h| h == "*") {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(
            LOOPBACK_HOSTS
                .iter()
                .map(|h| h.to_string())
                .chain(allowed_hosts.iter().cloned()),
        )
    };
    if allowed_origins.iter().any(|o| o == "*") {
        config.disable_allowed_origins()
    } else {
        config
            .with_allowed_origins(
                LOOPBACK_ORIGINS
                    .iter()
                    .map(|o| o.to_string())
                    .chain(allowed_origins.iter().cloned()),
            )
            .enforce_origin_validation()
    }
}

/// The whole HTTP application.
pub fn app(state: AppState) -> Router {
    let server = McpServer::new(state.planning.clone(), state.lang);
    let mcp = StreamableHttpService::new(
        // Runs per session: a clone of Arcs.
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        mcp_config(
            &state.allowed_hosts,
            &state.allowed_origins,
            &state.shutdown,
        ),
    );
    let state = Arc::new(state);
    Router::new()
        .nest_service("/mcp", mcp)
        // `route_layer`: only /mcp needs a token; unknown paths stay 404.
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            authenticate,
        ))
        .route("/healthz", get(healthz).with_state(state))
}

/// Serves `app(state)` on a bound listener until `state.shutdown` is cancelled, then
/// closes the MCP sessions and waits for the requests in flight.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    let shutdown = state.shutdown.clone();
    axum::serve(listener, app(state))
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}

async fn healthz(State(state): State<Arc<AppState>>) -> Response {
    let version = env!("CARGO_PKG_VERSION");
    // One trivial query: "ok" means the database answers too.
    match state.planning.store().user_count().await {
        Ok(_) => Json(json!({ "status": "ok", "version": version })).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "health check: the database does not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "unavailable", "version": version })),
            )
                .into_response()
        }
    }
}

/// Why a request has no caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    Missing,
    Malformed,
    Unknown,
}

/// The Bearer check in front of `/mcp`.
async fn authenticate(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let secret = match bearer(&request) {
        Ok(secret) => secret,
        Err(why) => return unauthorized(state.lang, why),
    };
    let hash = auth::token_hash(&secret);
    let now = state.planning.now_ms();
    match state.planning.store().use_token(&hash, now).await {
        Ok(Some(token)) => {
            request.extensions_mut().insert(Caller {
                user_id: token.user_id,
                can_write: token.can_write,
                only_schedule: token.schedule_id,
                lang: state.lang,
            });
            next.run(request).await
        }
        Ok(None) => unauthorized(state.lang, Refused::Unknown),
        Err(e) => {
            tracing::error!(error = %e, "token check: the database does not answer");
            let text = tr(
                state.lang,
                "Le serveur ne peut pas vérifier le jeton : sa base de données ne répond pas. Réessayez dans un instant.",
                "The server cannot check the token: its database does not answer. Try again in a moment.",
            );
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "error": "unavailable", "message": text })),
            )
                .into_response()
        }
    }
}

/// The token of `Authorization: Bearer ppt_…`, if it has our shape.
fn bearer(request: &Request) -> Result<String, Refused> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(Refused::Missing)?;
    let value = value.to_str().map_err(|_| Refused::Malformed)?.trim();
    let (scheme, secret) = value.split_once(' ').ok_or(Refused::Malformed)?;
    let secret = secret.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || !auth::looks_like_token(secret) {
        return Err(Refused::Malformed);
    }
    Ok(secret.to_owned())
}

fn unauthorized(lang: Lang, why: Refused) -> Response {
    let create = tr(
        lang,
        "palmaplan token create --user EMAIL --label NOM",
        "palmaplan token create --user EMAIL --label NAME",
    );
    let (reason, text) = match why {
        Refused::Missing => (
            "missing_token",
            tr(
                lang,
                format!(
                    "PalmaPlan demande un jeton : envoyez l'en-tête « Authorization: Bearer ppt_… ». Créez un jeton avec `{create}` (le secret ne s'affiche qu'une fois)."
                ),
                format!(
                    "PalmaPlan needs a token: send the header “Authorization: Bearer ppt_…”. Create a token with `{create}` (the secret is shown only once)."
                ),
            ),
        ),
        Refused::Malformed => (
            "malformed_token",
            tr(
                lang,
                format!(
                    "L'en-tête Authorization doit être « Bearer ppt_ » suivi de 64 chiffres hexadécimaux, tel que `{create}` l'a affiché."
                ),
                format!(
                    "The Authorization header must be “Bearer ppt_” followed by 64 hex digits, as `{create}` printed it."
                ),
            ),
        ),
        Refused::Unknown => (
            "invalid_token",
            tr(
                lang,
                format!(
                    "Ce jeton est inconnu ou révoqué. Créez-en un nouveau avec `{create}` et mettez à jour la configuration du client."
                ),
                format!(
                    "This token is unknown or revoked. Create a new one with `{create}` and update the client's configuration."
                ),
            ),
        ),
    };
    tracing::info!(reason, "request refused: no valid token");
    // RFC 6750: a request without credentials gets the bare challenge; a bad token
    // gets `error="invalid_token"`.
    let challenge = if why == Refused::Missing {
        HeaderValue::from_static("Bearer realm=\"palmaplan\"")
    } else {
        HeaderValue::from_static("Bearer realm=\"palmaplan\", error=\"invalid_token\"")
    };
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        Json(json!({ "error": "unauthorized", "reason": reason, "message": text })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(auth: Option<&str>) -> Request {
        let mut b = axum::http::Request::builder().uri("/mcp");
        if let Some(a) = auth {
            b = b.header(header::AUTHORIZATION, a);
        }
        b.body(Body::empty()).unwrap()
    }

    #[test]
    fn bearer_tokens_are_read_and_garbage_refused() {
        let token = auth::new_token().unwrap();
        assert_eq!(
            bearer(&request(Some(&format!("Bearer {token}")))),
            Ok(token.clone())
        );
        assert_eq!(
            bearer(&request(Some(&format!("bearer  {token} ")))),
            Ok(token.clone())
        );
        assert_eq!(bearer(&request(None)), Err(Refused::Missing));
        assert_eq!(
            bearer(&request(Some(&token))),
            Err(Refused::Malformed),
            "no scheme"
        );
        assert_eq!(
            bearer(&request(Some("Basic dXNlcjpwYXNz"))),
            Err(Refused::Malformed)
        );
        assert_eq!(
            bearer(&request(Some("Bearer ppt_123"))),
            Err(Refused::Malformed)
        );
    }

    #[test]
    fn hosts_and_origins_are_loopback_unless_widened() {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ct = CancellationToken::new();
        let config = mcp_config(
            &strings(&["plan.example.com"]),
            &strings(&["https://plan.example.com"]),
            &ct,
        );
        assert!(config.allowed_hosts.contains(&"127.0.0.1".to_string()));
        assert!(
            config
                .allowed_hosts
                .contains(&"plan.example.com".to_string())
        );
        assert!(
            config
                .allowed_origins
                .contains(&"http://localhost:*".to_string())
        );
        assert!(
            config
                .allowed_origins
                .contains(&"https://plan.example.com".to_string())
        );
        assert_eq!(config.max_request_body_bytes, MAX_REQUEST_BODY_BYTES);
        let open = mcp_config(&strings(&["*"]), &strings(&["*"]), &ct);
        assert!(open.allowed_hosts.is_empty() && open.allowed_origins.is_empty());
        assert!(!open.cancellation_token.is_cancelled());
        ct.cancel();
        assert!(open.cancellation_token.is_cancelled());
    }
}

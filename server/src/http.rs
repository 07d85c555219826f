//! The HTTP face of the server: `GET /healthz`; `/mcp`, rmcp's streamable HTTP
//! transport (stateful sessions, its default) behind our Bearer-token check; and the
//! `/embed` links (`GET /embed/<id>?t=…`, `POST /embed/<id>/call`), which carry their
//! own signed token instead (see `crate::embed`).
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
//!
//! `/embed` is meant for browsers, iframes on other sites included: no Bearer token, no
//! X-Frame-Options (and no `frame-ancestors`), no referrer (the token is in the
//! address), no caching. `GET /embed/<id>?t=…` with a valid link serves the view page
//! (`crate::view`, the MCP Apps page with its mode tag set to "embed" and the server's
//! language) under a CSP that runs its inline script and WebAssembly and lets it call
//! this origin only ([`VIEW_CSP`]); a refused link gets a page that says why, under a
//! CSP that runs nothing ([`PAGE_CSP`]). `POST /embed/<id>/call` runs the tools the view
//! uses (each tool declares it) on that one schedule as the link's user, capped by the
//! link (read-only unless editable; never above the role it was issued for, nor above
//! editor; dead once the user's access is removed), and
//! answers the same JSON as an MCP `CallToolResult`, with e-mails and absence reasons
//! removed whatever the role: that is what the view calls.

use crate::planning::Code;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use palmaplan_model::Lang;
use palmaplan_model::text::escape_html;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::auth;
use crate::embed::{self, Claims, LinkError, SecretsCache};
use crate::live::Streams;
use crate::mcp::{LANG_ARG, McpServer, to_result};
use crate::oauth::{self, AccessRefused, Attempts, OAuthConfig};
use crate::planning::{Access, Caller, Planning, Reply, tr};
use crate::protocol::{self, Known, MAX_SESSIONS_PER_TOKEN, Sessions};
use crate::storage::Role;
use crate::view;

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
    /// The private strings removed from answers under an `/embed` link.
    link_secrets: SecretsCache,
    /// The MCP sessions, and which token opened each (capped per token).
    pub sessions: Arc<Sessions>,
    /// Issuer, resource and lifetimes of OAuth (`crate::oauth`).
    pub oauth: OAuthConfig,
    /// Sign-in attempts of the consent pages, per e-mail and per address.
    pub(crate) attempts: Arc<Attempts>,
    /// Reverse proxies whose `X-Forwarded-For` is believed: from one of these peers the
    /// limits of the sign-in and registration count the address the proxy saw.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// The open event streams of instant updates, per person (`crate::live`).
    pub streams: Arc<Streams>,
    /// How often an idle event stream sends a comment (a field so tests shorten it).
    pub keep_alive: std::time::Duration,
    /// How Client ID Metadata Documents are fetched (`crate::cimd`).
    pub cimd: crate::cimd::CimdConfig,
}

impl AppState {
    /// Loopback only, the server's default. The OAuth issuer is the public URL of the
    /// `/embed` links (the binary's `--public-url`), else the default address.
    pub fn new(planning: Planning, lang: Lang) -> AppState {
        let issuer = planning
            .embed()
            .map_or("http://127.0.0.1:4785", |e| e.public_url())
            .to_owned();
        AppState {
            oauth: OAuthConfig::new(&issuer),
            attempts: Arc::default(),
            trusted_proxies: Vec::new(),
            streams: Arc::default(),
            keep_alive: crate::live::KEEP_ALIVE,
            cimd: crate::cimd::CimdConfig::default(),
            planning,
            lang,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            shutdown: CancellationToken::new(),
            link_secrets: SecretsCache::default(),
            sessions: Arc::new(Sessions::new(
                Arc::new(LocalSessionManager::default()),
                MAX_SESSIONS_PER_TOKEN,
            )),
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
        state.sessions.manager(),
        mcp_config(
            &state.allowed_hosts,
            &state.allowed_origins,
            &state.shutdown,
        ),
    );
    let mut origins: Vec<String> = LOOPBACK_ORIGINS.iter().map(|o| o.to_string()).collect();
    origins.extend(state.allowed_origins.iter().cloned());
    let state = Arc::new(state);
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        // `route_layer`: only /mcp needs a token; unknown paths stay 404.
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            authenticate,
        ))
        // Outside the token check: a browser's preflight carries no token.
        .layer(protocol::cors(origins));
    Router::new()
        .merge(mcp)
        .merge(oauth::routes())
        .merge(crate::web::routes())
        .route("/healthz", get(healthz))
        .route("/help", get(help))
        .route("/embed/{schedule}", get(embed_page))
        .route("/view/translation/{build}", get(view_translation))
        .route("/embed/{schedule}/events", get(crate::live::events))
        .route(
            "/embed/{schedule}/call",
            post(embed_call).layer(DefaultBodyLimit::max(MAX_REQUEST_BODY_BYTES)),
        )
        .with_state(state)
}

/// Serves `app(state)` on a bound listener until `state.shutdown` is cancelled, then
/// closes the MCP sessions and waits for the requests in flight.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let shutdown = state.shutdown.clone();
    // No Nagle: an answer is written in several small pieces (headers, then each server-
    // sent event), and on a kept-alive connection the client's delayed acknowledgement
    // would hold each next piece back by up to 40 ms.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set on a connection");
        }
    });
    // Writes by other processes on the same database, for the event streams.
    tokio::spawn(crate::live::watch(
        state.planning.store().clone(),
        Arc::clone(&state.streams),
        shutdown.clone(),
        crate::live::WATCH_EVERY,
    ));
    // The peer's address: the sign-in page counts attempts per address.
    let app = app(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}

/// `GET /help`: what the view's "Help" button opens (through the host's
/// `ui/open-link`): the help page in the person's language (`?lang=`, which the view's
/// link carries, else the browser's, else the server's), loading nothing.
async fn help(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(q): Query<HelpQuery>,
) -> Response {
    let lang = crate::oauth::page_lang(&state, &headers, q.lang.as_deref());
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, PAGE_CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        crate::help::page(lang),
    )
        .into_response()
}

/// `/help`'s query.
#[derive(Debug, serde::Deserialize)]
struct HelpQuery {
    #[serde(default)]
    lang: Option<String>,
}

/// `GET /view/translation/<build>`: the view's JavaScript translation (gzip in base64),
/// for our own pages (`/embed`, the web screen) in a browser that refuses WebAssembly
/// (Safari's Lockdown Mode, a policy): their CSP's `connect-src 'self'` lets the loader
/// fetch it, where a host's frame gets it through `get_view_code`. It holds no data, so
/// it needs no token; another build's is a 404 that says why, so a page kept from an
/// older server never runs code that does not match its glue. Content-addressed: cached
/// for good.
async fn view_translation(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(build): Path<String>,
) -> Response {
    let ours = crate::view::translation_build();
    if build != ours {
        let text = match crate::oauth::page_lang(&state, &headers, None) {
            Lang::Fr => format!(
                "La vue de ce serveur est la version {ours}, pas {build}\u{a0}: rechargez la page."
            ),
            Lang::En => {
                format!("This server's view is build {ours}, not {build}: reload the page.")
            }
        };
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        crate::view::TRANSLATION,
    )
        .into_response()
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
    /// An OAuth access token issued for another resource (RFC 8707).
    OtherAudience,
}

/// The Bearer check in front of `/mcp`.
async fn authenticate(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let secret = match bearer(&request) {
        Ok(secret) => secret,
        Err(why) => return read_body_then(request, unauthorized(&state, why)).await,
    };
    let hash = auth::token_hash(&secret);
    let now = state.planning.now_ms();
    // Who is calling: a named token (its id keys its sessions) or an OAuth access token
    // (minus its grant's id, see `oauth::access_caller`).
    let who = if auth::looks_like_token(&secret) {
        state.planning.store().use_token(&hash, now).await.map(|t| {
            t.map(|token| {
                let caller = Caller {
                    user_id: token.user_id,
                    can_write: token.can_write,
                    only_schedule: token.schedule_id,
                    max_role: None,
                    lang: state.lang,
                    apps: false,
                    credential: Some(token.id),
                };
                (token.id, caller)
            })
            .ok_or(Refused::Unknown)
        })
    } else {
        oauth::access_caller(&state, &secret).await.map(|r| {
            r.map_err(|why| match why {
                AccessRefused::Invalid => Refused::Unknown,
                AccessRefused::OtherAudience => Refused::OtherAudience,
            })
        })
    };
    match who {
        Ok(Ok((key, caller))) => {
            let method = request.method().clone();
            let known = state.sessions.touch(key, request.headers());
            let session = request
                .headers()
                .get(protocol::SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            match (&session, known) {
                (Some(_), Known::NotMine) => return protocol::unknown_session(),
                (Some(id), Known::Mine)
                    if method == Method::DELETE && !state.sessions.is_open(id).await =>
                {
                    state.sessions.closed(key, id);
                    return protocol::unknown_session();
                }
                _ => {}
            }
            if method == Method::POST {
                request = match protocol::check_post(request, MAX_REQUEST_BODY_BYTES).await {
                    Ok(r) => r,
                    Err(refused) => return refused,
                };
            }
            request.extensions_mut().insert(caller);
            let mut response = next.run(request).await;
            let opened = response
                .headers()
                .get(protocol::SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            match (&session, opened) {
                (None, Some(new)) => state.sessions.opened(key, &new).await,
                (Some(id), _) if method == Method::DELETE && response.status().is_success() => {
                    state.sessions.closed(key, id);
                    // The session is closed, not about to be: 204, which clients expect
                    // (the Python SDK warns on rmcp's 202).
                    *response.status_mut() = StatusCode::NO_CONTENT;
                }
                _ => {}
            }
            response
        }
        Ok(Err(why)) => read_body_then(request, unauthorized(&state, why)).await,
        Err(e) => {
            tracing::error!(error = %e, "token check: the database does not answer");
            let text = tr(
                state.lang,
                "Le serveur ne peut pas vérifier le jeton\u{a0}: sa base de données ne répond pas. Réessayez dans un instant.",
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

/// A refusal of a request whose body is not read: the body is read first (up to 64 KiB,
/// for 2 s), because a connection answered before its body arrived is closed by hyper
/// without a word, and an OAuth client, whose first request is always refused, goes on
/// with discovery on that connection and fails. A body it cannot read closes the
/// connection, as the answer then says.
async fn read_body_then(request: Request, mut response: Response) -> Response {
    let read = axum::body::to_bytes(request.into_body(), 64 << 10);
    if !matches!(
        tokio::time::timeout(std::time::Duration::from_secs(2), read).await,
        Ok(Ok(_))
    ) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
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
    let ours =
        auth::looks_like_token(secret) || auth::looks_like_secret(auth::ACCESS_PREFIX, secret);
    if !scheme.eq_ignore_ascii_case("bearer") || !ours {
        return Err(Refused::Malformed);
    }
    Ok(secret.to_owned())
}

fn unauthorized(state: &AppState, why: Refused) -> Response {
    let lang = state.lang;
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
                    "PalmaPlan demande un jeton\u{a0}: envoyez l'en-tête «\u{a0}Authorization: Bearer ppt_…\u{a0}». Créez un jeton avec `{create}` (le secret ne s'affiche qu'une fois)."
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
                    "L'en-tête Authorization doit être «\u{a0}Bearer ppt_\u{a0}» suivi de 64 chiffres hexadécimaux, tel que `{create}` l'a affiché."
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
        Refused::OtherAudience => (
            "invalid_token",
            tr(
                lang,
                format!(
                    "Ce jeton OAuth a été émis pour une autre ressource que {}\u{a0}: autorisez l'application à nouveau pour cette adresse.",
                    state.oauth.resource()
                ),
                format!(
                    "This OAuth token was issued for another resource than {}: authorize the application again for this address.",
                    state.oauth.resource()
                ),
            ),
        ),
    };
    tracing::info!(reason, "request refused: no valid token");
    // RFC 6750: a request without credentials gets the bare challenge; a bad token
    // gets `error="invalid_token"`. Both name the resource's metadata (RFC 9728 §5.1),
    // where an OAuth client learns which authorization server to ask.
    let metadata = state.oauth.resource_metadata_url().replace(['"', '\\'], "");
    let error = if why == Refused::Missing {
        ""
    } else {
        ", error=\"invalid_token\""
    };
    let challenge = HeaderValue::from_str(&format!(
        "Bearer realm=\"palmaplan\", resource_metadata=\"{metadata}\"{error}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("Bearer realm=\"palmaplan\""));
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        Json(json!({ "error": "unauthorized", "reason": reason, "message": text })),
    )
        .into_response()
}

// ---------------------------------------------------------------------------------
// /embed

/// A link's token: `Authorization: Embed <token>`, else the address's `?t=`.
pub(crate) fn link_token(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    let from_header = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("embed"))
        .map(|(_, token)| token.trim().to_owned());
    from_header.or_else(|| embed::query_param(query, "t"))
}

/// Checks a link for the schedule of the address, then the user's current role.
pub(crate) async fn check_link(
    state: &AppState,
    schedule: &str,
    token: Option<String>,
) -> Result<(Claims, Role), LinkError> {
    let token = token.ok_or(LinkError::Missing)?;
    let Some(links) = state.planning.embed() else {
        return Err(LinkError::Key(tr(
            state.lang,
            "ce serveur a été démarré sans liens /embed",
            "this server was started without /embed links",
        )));
    };
    let claims = links.verify(&token, schedule, state.planning.now_ms())?;
    let store = state.planning.store();
    let unavailable = |e: crate::storage::StoreError| {
        tracing::error!(error = %e, "embed link check: the database does not answer");
        LinkError::Unavailable
    };
    if let Some(credential) = claims.credential
        && !store
            .credential_live(credential)
            .await
            .map_err(unavailable)?
    {
        return Err(LinkError::Revoked);
    }
    let current = store
        .role(claims.schedule, claims.user)
        .await
        .map_err(unavailable)?;
    let role = claims.effective_role(current)?;
    Ok((claims, role))
}

/// The headers of every /embed page: nothing loads, nothing is kept, the address
/// (which holds the token) is sent nowhere. No X-Frame-Options: other sites may frame
/// the link, that is what it is for.
fn page(status: StatusCode, lang: Lang, title: &str, message: &str) -> Response {
    let lang_tag = match lang {
        Lang::Fr => "fr",
        Lang::En => "en",
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang_tag}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>PalmaPlan — {title}</title><style>\
         body{{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1d2430;background:#f6f7f9}}\
         main{{max-width:36rem;margin:0 auto;background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:1.5rem}}\
         h1{{font-size:1.25rem;margin:0 0 .75rem}}p{{margin:0}}\
         @media (prefers-color-scheme:dark){{body{{background:#15181d;color:#e6e8eb}}main{{background:#1d2127;border-color:#333a44}}}}\
         </style></head><body><main><h1>{title}</h1><p>{message}</p></main></body></html>\n",
        title = escape_html(title),
        message = escape_html(message),
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, PAGE_CSP),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        html,
    )
        .into_response()
}

/// The CSP of the /embed refusal pages: inline styles, nothing else (no script, no
/// request).
pub const PAGE_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// The CSP of the view page under /embed: its own inline script and styles,
/// WebAssembly, inline images (`data:`), and requests to this origin only (the view's
/// `POST /embed/<id>/call`). Nothing loads from elsewhere and nothing is posted as a
/// form. No `frame-ancestors`: other sites may frame the link.
pub const VIEW_CSP: &str = "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

/// `GET /embed/<schedule>?t=<token>[&lang=en]`: the view page for a valid link, else the
/// refusal as a page. The page itself holds no data and no token: the view reads the
/// token from its address and calls `POST /embed/<schedule>/call` with it.
async fn embed_page(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    // `lang=en|fr` in the address (the web screen passes the person's), else the
    // server's: the page's texts and the view's.
    let lang = match embed::query_param(query.as_deref(), "lang").as_deref() {
        Some("en") => Lang::En,
        Some("fr") => Lang::Fr,
        _ => state.lang,
    };
    match check_link(&state, &schedule, link_token(&headers, query.as_deref())).await {
        Err(e) => {
            tracing::info!(reason = e.code().as_str(), "embed page refused");
            page(e.status(), lang, &e.title(lang), &e.message(lang))
        }
        Ok((claims, _)) => {
            tracing::info!(
                schedule = claims.schedule,
                user = claims.user,
                "embed page served"
            );
            (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    (header::CONTENT_SECURITY_POLICY, VIEW_CSP),
                    (header::REFERRER_POLICY, "no-referrer"),
                    (header::CACHE_CONTROL, "no-store"),
                    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                ],
                view::embed_page(lang),
            )
                .into_response()
        }
    }
}

/// A refusal in the shape of a tool result, with an HTTP status.
pub(crate) fn call_refused(status: StatusCode, code: Code, text: String) -> Response {
    let reply = Reply {
        text,
        structured: json!({ "error": code }),
        is_error: true,
        meta: Value::Null,
    };
    (status, Json(to_result(reply))).into_response()
}

/// `POST /embed/<schedule>/call` with `{tool, arguments, lang?}`: runs a tool on the
/// link's schedule as the link's user, within what the link allows.
async fn embed_call(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut lang = state.lang;
    let claims = match check_link(&state, &schedule, link_token(&headers, query.as_deref())).await {
        Ok((claims, _)) => claims,
        Err(e) => {
            tracing::info!(reason = e.code().as_str(), "embed call refused");
            return call_refused(e.status(), e.code(), e.message(lang));
        }
    };
    let (tool, arguments) = match read_call_body(&body, &mut lang) {
        Ok(call) => call,
        Err(e) => {
            return call_refused(StatusCode::BAD_REQUEST, Code::InvalidBody, e.message(lang));
        }
    };

    // What the link allows, before the tool runs.
    if state
        .planning
        .tools()
        .any(|t| t.name == tool && t.access == Access::Write)
        && let Err(e) = claims.check_write(&tool)
    {
        return call_refused(e.status(), e.code(), e.message(lang));
    }
    let caller = Caller {
        user_id: claims.user,
        can_write: claims.editable,
        only_schedule: Some(claims.schedule),
        // A link never carries an owner's powers (sharing, deleting): the address
        // sits in a browser's history.
        max_role: Some(claims.cap.min(Role::Editor)),
        lang,
        // The view itself is calling: show_schedule gives it no new link (a link never
        // renews).
        apps: true,
        credential: None,
    };
    let mut reply = match view_call(&state, &caller, claims.schedule, &tool, arguments).await {
        Ok(reply) => reply,
        Err(refused) => return refused,
    };
    let secrets = link_secrets(&state, claims.schedule).await;
    embed::scrub_reply(&mut reply, &secrets, lang);
    tracing::info!(
        tool = %tool,
        schedule = claims.schedule,
        user = claims.user,
        is_error = reply.is_error,
        "embed call"
    );
    (StatusCode::OK, Json(to_result(reply))).into_response()
}

/// Runs one of the view's calls on `schedule` (its only one) for `caller`: the
/// schedule put in when the call leaves it out, another refused, a tool that works on
/// no one schedule refused. The view's two doors (an `/embed` link, the web screen's
/// session) decide who the caller is; this decides what a view may call.
pub(crate) async fn view_call(
    state: &AppState,
    caller: &Caller,
    schedule: i64,
    tool: &str,
    mut arguments: serde_json::Map<String, Value>,
) -> Result<Reply, Response> {
    let lang = caller.lang;
    let spec = state.planning.tools().find(|t| t.name == tool).cloned();
    if let Some(spec) = &spec {
        // The tools a view may call are the view's (decided in `Planning::call`); one
        // that names no schedule is refused here, before the address's is put in.
        let names_schedule = spec.input_schema["properties"].get("schedule").is_some();
        if spec.in_view && !names_schedule {
            return Err(call_refused(
                StatusCode::FORBIDDEN,
                Code::OutsideLink,
                tr(
                    lang,
                    format!(
                        "Cette vue ne donne accès qu'au planning {schedule}\u{a0}: «\u{a0}{tool}\u{a0}» ne porte pas sur ce seul planning."
                    ),
                    format!(
                        "This view gives access to schedule {schedule} only: “{tool}” does not work on that one schedule."
                    ),
                ),
            ));
        }
        match arguments.get("schedule") {
            None => {
                arguments.insert("schedule".into(), json!(schedule));
            }
            Some(Value::Number(n)) if n.as_i64() != Some(schedule) => {
                return Err(call_refused(
                    StatusCode::FORBIDDEN,
                    Code::OtherSchedule,
                    tr(
                        lang,
                        format!(
                            "Cette vue montre le planning {schedule}, pas le planning {n}\u{a0}: retirez «\u{a0}schedule\u{a0}» ou donnez {schedule}."
                        ),
                        format!(
                            "This view shows schedule {schedule}, not schedule {n}: leave “schedule” out or give {schedule}."
                        ),
                    ),
                ));
            }
            // A name is resolved by the tool, within the view's one schedule.
            Some(_) => {}
        }
    }
    if let Some(refusal) = state.planning.refusal_for(caller, tool) {
        let status = if refusal.code == Code::OutsideLink {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::OK
        };
        return Err((status, Json(to_result(refusal.into_reply()))).into_response());
    }
    Ok(state
        .planning
        .call(caller, tool, Value::Object(arguments))
        .await)
}

/// The body of `POST /embed/<schedule>/call`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CallBody {
    tool: String,
    /// Absent or null: none.
    #[serde(default)]
    arguments: Option<serde_json::Map<String, Value>>,
    /// Any value; a string starting with "fr" or "en" chooses the language. Read from
    /// the raw body before this struct, so that a body refused here is answered in it.
    #[serde(default, rename = "lang")]
    _lang: Option<serde::de::IgnoredAny>,
}

/// The fields of [`CallBody`], to name the one that is not.
const CALL_FIELDS: [&str; 3] = ["tool", "arguments", LANG_ARG];

/// Why a call body does not read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// Not JSON: where it stops reading (from 1).
    Syntax { line: usize, column: usize },
    /// JSON, not an object.
    NotObject,
    /// `tool` missing or not a string.
    Tool,
    /// `arguments` neither an object nor null.
    Arguments,
    /// A field that is not one of [`CALL_FIELDS`].
    Unknown(String),
}

impl BodyError {
    pub(crate) fn message(&self, lang: Lang) -> String {
        let how = tr(
            lang,
            "Le corps doit être un objet JSON {\"tool\": \"…\", \"arguments\": {…}}",
            "The body must be a JSON object {\"tool\": \"…\", \"arguments\": {…}}",
        );
        match self {
            BodyError::Syntax { line, column } => tr(
                lang,
                format!(
                    "{how}\u{a0}: ce corps n'est pas du JSON (illisible ligne {line}, colonne {column})."
                ),
                format!(
                    "{how}: this body is not JSON (unreadable at line {line}, column {column})."
                ),
            ),
            BodyError::NotObject => format!("{how}."),
            BodyError::Tool => tr(
                lang,
                format!("{how}\u{a0}: «\u{a0}tool\u{a0}» manque ou n'est pas un texte."),
                format!("{how}: “tool” is missing or not a string."),
            ),
            BodyError::Arguments => tr(
                lang,
                format!("{how}\u{a0}: «\u{a0}arguments\u{a0}» doit être un objet."),
                format!("{how}: “arguments” must be an object."),
            ),
            BodyError::Unknown(extra) => tr(
                lang,
                format!("{how}\u{a0}: le champ «\u{a0}{extra}\u{a0}» n'existe pas."),
                format!("{how}: there is no field “{extra}”."),
            ),
        }
    }
}

/// The tool and arguments of a call body, with `lang` set from it: the body's
/// `lang`, then the arguments' (removed from them, as over MCP; the later one wins).
/// A body that does not read still sets `lang` when it names one, so the refusal is
/// in the caller's language.
pub(crate) fn read_call_body(
    bytes: &[u8],
    lang: &mut Lang,
) -> Result<(String, serde_json::Map<String, Value>), BodyError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_syntax() || e.is_eof() {
            BodyError::Syntax {
                line: e.line(),
                column: e.column(),
            }
        } else {
            BodyError::NotObject
        }
    })?;
    let Value::Object(fields) = &value else {
        return Err(BodyError::NotObject);
    };
    for given in [
        fields.get(LANG_ARG),
        fields
            .get("arguments")
            .and_then(|a| a.as_object())
            .and_then(|a| a.get(LANG_ARG)),
    ]
    .into_iter()
    .flatten()
    {
        match given.as_str().map(str::to_ascii_lowercase).as_deref() {
            Some(l) if l.starts_with("en") => *lang = Lang::En,
            Some(l) if l.starts_with("fr") => *lang = Lang::Fr,
            _ => {}
        }
    }
    let unknown = fields
        .keys()
        .find(|k| !CALL_FIELDS.contains(&k.as_str()))
        .cloned();
    let body: CallBody = serde_path_to_error::deserialize(value).map_err(|e| {
        match e.path().iter().next() {
            Some(serde_path_to_error::Segment::Map { key }) if key == "tool" => BodyError::Tool,
            Some(serde_path_to_error::Segment::Map { key }) if key == "arguments" => {
                BodyError::Arguments
            }
            // deny_unknown_fields, or no tool at all.
            _ => unknown.map_or(BodyError::Tool, BodyError::Unknown),
        }
    })?;
    let mut arguments = body.arguments.unwrap_or_default();
    arguments.remove(LANG_ARG);
    Ok((body.tool, arguments))
}

/// The private strings of a schedule and of its users, for `scrub_reply`. When the
/// database does not answer, the structured fields and anything shaped like an e-mail
/// are still removed.
async fn link_secrets(state: &AppState, schedule: i64) -> embed::Secrets {
    let store = state.planning.store();
    let users: Vec<_> = store
        .members_with_roles(schedule)
        .await
        .map(|v| v.into_iter().map(|(u, _)| u).collect())
        .unwrap_or_default();
    let strings = match store.rank(schedule).await {
        Ok(rank) => match state.link_secrets.get(schedule, rank) {
            Some(s) => s,
            None => match store.load(schedule).await {
                Ok(stored) => state.link_secrets.put(schedule, stored.rank, &stored.state),
                Err(_) => Arc::new(Vec::new()),
            },
        },
        Err(_) => Arc::new(Vec::new()),
    };
    SecretsCache::secrets(&strings, &users)
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
    fn call_bodies_are_read_or_refused_with_what_to_fix() {
        let read = |body: &str| {
            let mut lang = Lang::Fr;
            let r = read_call_body(body.as_bytes(), &mut lang);
            (r, lang)
        };
        let (r, lang) =
            read(r#"{"tool": "list_bars", "arguments": {"schedule": 7, "lang": "en"}}"#);
        let (tool, args) = r.unwrap();
        assert_eq!((tool.as_str(), lang), ("list_bars", Lang::En));
        assert_eq!(
            Value::Object(args),
            json!({"schedule": 7}),
            "lang is the server's"
        );
        let (r, lang) = read(r#"{"tool": "undo", "arguments": null, "lang": "EN-gb"}"#);
        assert_eq!(r.unwrap().1.len(), 0);
        assert_eq!(lang, Lang::En);
        let (r, lang) = read(r#"{"tool": "undo"}"#);
        assert!(r.is_ok());
        assert_eq!(lang, Lang::Fr);
        // The arguments' language is the later one, as before.
        let (_, lang) = read(r#"{"tool": "x", "lang": "en", "arguments": {"lang": "fr"}}"#);
        assert_eq!(lang, Lang::Fr);

        assert_eq!(read(r#"{"tool": 3}"#).0, Err(BodyError::Tool));
        assert_eq!(read(r#"{"arguments": {}}"#).0, Err(BodyError::Tool));
        assert_eq!(
            read(r#"{"tool": "x", "arguments": [1]}"#).0,
            Err(BodyError::Arguments)
        );
        let (r, lang) = read(r#"{"tool": "x", "args": {}, "lang": "en"}"#);
        assert_eq!(r, Err(BodyError::Unknown("args".into())));
        assert_eq!(lang, Lang::En, "the refusal speaks the caller's language");
        assert_eq!(read("[1, 2]").0, Err(BodyError::NotObject));
        assert_eq!(read("\"tool\"").0, Err(BodyError::NotObject));
        assert_eq!(
            read("{\"tool\": \"x\",\n oops}").0,
            Err(BodyError::Syntax { line: 2, column: 2 })
        );
        assert!(matches!(read("").0, Err(BodyError::Syntax { .. })));

        let e = BodyError::Unknown("args".into());
        assert_eq!(
            e.message(Lang::Fr),
            "Le corps doit être un objet JSON {\"tool\": \"…\", \"arguments\": {…}}\u{a0}: le champ «\u{a0}args\u{a0}» n'existe pas."
        );
        assert_eq!(
            e.message(Lang::En),
            "The body must be a JSON object {\"tool\": \"…\", \"arguments\": {…}}: there is no field “args”."
        );
        assert_eq!(
            BodyError::Syntax { line: 2, column: 2 }.message(Lang::Fr),
            "Le corps doit être un objet JSON {\"tool\": \"…\", \"arguments\": {…}}\u{a0}: ce corps n'est pas du JSON (illisible ligne 2, colonne 2)."
        );
        assert!(
            BodyError::Tool
                .message(Lang::En)
                .ends_with(": “tool” is missing or not a string.")
        );
        assert!(
            BodyError::Arguments
                .message(Lang::En)
                .ends_with(": “arguments” must be an object.")
        );
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

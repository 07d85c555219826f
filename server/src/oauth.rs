//! OAuth 2.1 (MCP authorization, 2025-11-25): PalmaPlan is both the protected resource
//! (`/mcp`) and its own authorization server, so that a remote host (Claude on the web,
//! ChatGPT) connects by URL and a person says yes in a browser, instead of pasting a
//! named token.
//!
//! This module owns the routes and the rules; the SQL is `storage::oauth`, the secrets'
//! shape and hash `crate::auth`:
//! - `/.well-known/oauth-protected-resource[/mcp]` (RFC 9728) and
//!   `/.well-known/oauth-authorization-server` (RFC 8414): where to go, what is supported.
//! - `POST /oauth/register` (RFC 7591): public clients only (no secret: PKCE is their
//!   proof), redirect URIs https, or http on loopback.
//! - `GET|POST /oauth/authorize`: the consent page, behind the sign-in page
//!   (`/oauth/signin`, e-mail and argon2id password, a session cookie that
//!   `POST /oauth/signout` or a new password ends). The person picks
//!   read or read+write and optionally one schedule: exactly a named token's two limits
//!   (`can_write`, `schedule_id`), so the gate decides the same way for both.
//! - `POST /oauth/token`: authorization code with PKCE S256 (plain refused), single-use
//!   codes living [`CODE_TTL_MS`]; refresh tokens rotated at each use, and one shown
//!   again after its rotation revokes the whole grant (RFC 9700 §4.14).
//! - `POST /oauth/revoke` (RFC 7009): revokes the token's grant, so its access and
//!   refresh tokens fail at once.
//!
//! Access tokens are bound to the resource (RFC 8707: the public URL + `/mcp`); `/mcp`
//! refuses one whose grant names another. Errors of the JSON endpoints are RFC 6749's
//! `{"error", "error_description"}`; the description says what to fix. The pages are
//! French unless `?lang=en` or the browser's `Accept-Language` prefers English.
//!
//! Why the redirect URI is never used before it is known to be registered: an attacker
//! could otherwise make this server send a person (and a code) anywhere. Errors before
//! that point are shown on our own page; so are the others until the person has signed
//! in, as anyone may register a redirect URI (RFC 9700 §4.11.2).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use palmaplan_model::Lang;
use palmaplan_model::text::escape_html;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower_http::cors::{Any, CorsLayer};

use crate::auth;
use crate::http::AppState;
use crate::planning::{Caller, tr};
use crate::storage::{CodeInfo, GrantInfo, OAuthClient, SpentCode, Store, StoreError, TokenKind};

/// How long an authorization code lives (OAuth 2.1: short; the client redeems it at once).
pub const CODE_TTL_MS: i64 = 60_000;
/// How long an access token lives; the client refreshes it.
pub const ACCESS_TTL_MS: i64 = 3_600_000;
/// How long a refresh token lives unused (each use gives a new one).
pub const REFRESH_TTL_MS: i64 = 30 * 24 * 3_600_000;
/// How long a sign-in on the consent pages lasts.
pub const SESSION_TTL_MS: i64 = 12 * 3_600_000;
/// How long a one-time sign-in link printed by `palmaplan user sign-in-link` works.
pub const SIGNIN_LINK_MINUTES: i64 = 15;
/// Sign-in attempts allowed per e-mail and per address within [`ATTEMPT_WINDOW_MS`].
pub const MAX_ATTEMPTS: u32 = 10;
/// Client registrations allowed per address within [`ATTEMPT_WINDOW_MS`]: registration
/// is open to anyone (RFC 7591), so this bounds what one address can add to the
/// database; a host's servers register once per person who connects.
pub const MAX_REGISTRATIONS: u32 = 60;
pub const ATTEMPT_WINDOW_MS: i64 = 15 * 60_000;
/// Client metadata documents fetched per address within [`ATTEMPT_WINDOW_MS`]: an
/// authorization request, before any sign-in, makes the server fetch a URL of the
/// requester's choosing (public addresses only), so one address may not make it fetch
/// without end. Kept documents do not count.
pub const MAX_DOCUMENT_FETCHES: u32 = 60;

/// The scopes: a named token's read and write.
pub const SCOPES: [&str; 2] = ["read", "write"];

/// The largest form or JSON body the OAuth endpoints read.
const MAX_BODY: usize = 64 << 10;
/// Redirect URIs one client may register.
const MAX_REDIRECT_URIS: usize = 10;

const SESSION_COOKIE: &str = "pp_session";
const SIGNIN_COOKIE: &str = "pp_signin";

/// Where this server is and how long its secrets live (the lifetimes are fields so the
/// tests can shorten them instead of waiting).
#[derive(Clone, Debug)]
pub struct OAuthConfig {
    /// The public URL without a trailing `/`: the issuer; `issuer + "/mcp"` is the resource.
    pub issuer: String,
    pub code_ttl_ms: i64,
    pub access_ttl_ms: i64,
    pub refresh_ttl_ms: i64,
    pub session_ttl_ms: i64,
}

impl OAuthConfig {
    pub fn new(public_url: &str) -> OAuthConfig {
        OAuthConfig {
            issuer: public_url.trim().trim_end_matches('/').to_owned(),
            code_ttl_ms: CODE_TTL_MS,
            access_ttl_ms: ACCESS_TTL_MS,
            refresh_ttl_ms: REFRESH_TTL_MS,
            session_ttl_ms: SESSION_TTL_MS,
        }
    }

    /// The protected resource (RFC 8707): the MCP endpoint.
    pub fn resource(&self) -> String {
        format!("{}/mcp", self.issuer)
    }

    /// The RFC 9728 metadata of `/mcp`, named in every 401's `WWW-Authenticate`.
    pub fn resource_metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.issuer)
    }

    /// Cookies are `Secure` when people reach the server over https.
    fn secure(&self) -> bool {
        self.issuer.starts_with("https://")
    }

    fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.issuer)
    }
}

/// The most keys [`Attempts`] holds: past it the oldest windows are dropped, so a flood
/// of distinct keys costs a bounded amount of memory (a few hundred KiB).
pub const MAX_TRACKED_KEYS: usize = 10_000;

/// The longest e-mail address (RFC 5321: a 254-byte path); a longer one is refused
/// before it is counted, so it cannot be used to fill the attempt counters.
pub const MAX_EMAIL_BYTES: usize = 254;

/// Attempts per key (`email:…`, `ip:…`, `register:…`) in fixed windows, in this process.
/// Keys are kept as a fixed-size hash, whatever their length; at most
/// [`MAX_TRACKED_KEYS`] of them, the oldest windows dropped first.
#[derive(Debug, Default)]
pub struct Attempts {
    seen: Mutex<Tracked>,
}

type KeyHash = [u8; 16];

#[derive(Debug, Default)]
struct Tracked {
    /// The start of each key's window and its count.
    windows: HashMap<KeyHash, (i64, u32)>,
    /// (window start, key) in the order windows opened: the oldest at the front, so
    /// expired and evicted windows go from there without scanning the whole map. An
    /// entry whose key has since opened a newer window is stale and skipped.
    order: std::collections::VecDeque<(i64, KeyHash)>,
}

impl Attempts {
    /// Counts an attempt; false when the key is over `max` in its window.
    pub(crate) fn allow(&self, key: &str, now: i64, max: u32) -> bool {
        let mut hash = [0u8; 16];
        hash.copy_from_slice(&Sha256::digest(key.as_bytes())[..16]);
        let mut guard = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let t = &mut *guard;
        // Drop the expired windows at the front, then the oldest ones while full (or
        // while stale entries pile up): each entry is popped once, so this is O(1)
        // amortised per call.
        while let Some(&(start, k)) = t.order.front() {
            let expired = now - start >= ATTEMPT_WINDOW_MS;
            let full = t.windows.len() >= MAX_TRACKED_KEYS && !t.windows.contains_key(&hash);
            if !(expired || full || t.order.len() > 2 * MAX_TRACKED_KEYS) {
                break;
            }
            t.order.pop_front();
            if t.windows.get(&k).is_some_and(|w| w.0 == start) {
                t.windows.remove(&k);
            }
        }
        let entry = t.windows.entry(hash).or_insert((now, 0));
        if entry.1 == 0 || now - entry.0 >= ATTEMPT_WINDOW_MS {
            *entry = (now, 0);
            t.order.push_back((now, hash));
        }
        entry.1 = entry.1.saturating_add(1);
        entry.1 <= max
    }

    /// How many keys are counted now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .windows
            .len()
    }
}

/// What the limits count a peer's address as: an IPv4 address whole, an IPv6 one by its
/// /64 (a home or a server is usually given a whole /64, so counting each address apart
/// would let one client rotate through them past every limit). An IPv4 address mapped
/// into IPv6 (`::ffff:a.b.c.d`, a dual-stack socket's view) counts as that IPv4 address.
fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// The client's address: the peer's, or, when the peer is one of the trusted proxies,
/// the X-Forwarded-For entry that proxy added. The entries are read from the right, as
/// each proxy appends the address it saw: the rightmost one that is not itself a
/// trusted proxy is the client; those left of it are whatever the client sent, and
/// believing them would let anyone pick the address they are counted under.
fn client_address(state: &AppState, request: &Request) -> Option<IpAddr> {
    client_address_of(state, request.extensions(), request.headers())
}

/// [`client_address`] from a request's parts (for handlers that extract the body).
fn client_address_of(
    state: &AppState,
    extensions: &axum::http::Extensions,
    headers: &HeaderMap,
) -> Option<IpAddr> {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_canonical())?;
    let trusted = |ip: &IpAddr| {
        state
            .trusted_proxies
            .iter()
            .any(|t| t.to_canonical() == *ip)
    };
    if !trusted(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    for entry in forwarded.iter().rev() {
        let entry = entry.trim();
        let Some(ip) = entry
            .parse::<IpAddr>()
            .ok()
            .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
            .map(|ip| ip.to_canonical())
        else {
            // Not an address: nothing further left can be believed either.
            return Some(peer);
        };
        if !trusted(&ip) {
            return Some(ip);
        }
    }
    Some(peer)
}

/// The OAuth routes, merged into `http::app`.
pub(crate) fn routes() -> Router<Arc<AppState>> {
    // The metadata, registration, token and revocation endpoints carry no cookie, so
    // any origin may call them (browser-based clients such as the MCP Inspector do).
    let open = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers(Any);
    let machine = Router::new()
        .route(
            "/.well-known/oauth-protected-resource",
            get(protected_resource_root),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(protected_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(authorization_server),
        )
        .route("/oauth/register", post(register))
        .route("/oauth/token", post(token))
        .route("/oauth/revoke", post(revoke))
        .layer(open);
    Router::new()
        .merge(machine)
        .route(
            "/oauth/authorize",
            get(authorize_page).post(authorize_answer),
        )
        .route("/oauth/signin", get(signin_page).post(signin_answer))
        .route("/oauth/signout", post(signout))
        .route("/oauth/link", get(link_page).post(link_answer))
}

// ---------------------------------------------------------------------------------
// Metadata

/// The metadata of `/mcp` (what every 401 names): the resource is the MCP endpoint.
async fn protected_resource(State(state): State<Arc<AppState>>) -> Response {
    resource_metadata(&state.oauth, state.oauth.resource())
}

/// The metadata at the root: RFC 9728 §3.3 wants the resource named there to be the
/// address the document was found from, here the origin itself.
async fn protected_resource_root(State(state): State<Arc<AppState>>) -> Response {
    resource_metadata(&state.oauth, state.oauth.issuer.clone())
}

fn resource_metadata(c: &OAuthConfig, resource: String) -> Response {
    no_store(axum::Json(json!({
        "resource": resource,
        "authorization_servers": [c.issuer],
        "scopes_supported": SCOPES,
        "bearer_methods_supported": ["header"],
        "resource_name": "PalmaPlan",
    })))
}

async fn authorization_server(State(state): State<Arc<AppState>>) -> Response {
    let c = &state.oauth;
    no_store(axum::Json(json!({
        "issuer": c.issuer,
        "authorization_endpoint": c.endpoint("/oauth/authorize"),
        "token_endpoint": c.endpoint("/oauth/token"),
        "registration_endpoint": c.endpoint("/oauth/register"),
        "revocation_endpoint": c.endpoint("/oauth/revoke"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": SCOPES,
        "authorization_response_iss_parameter_supported": true,
        // A client may also name itself by the https URL of its metadata (`crate::cimd`).
        "client_id_metadata_document_supported": true,
    })))
}

// ---------------------------------------------------------------------------------
// Errors

/// An RFC 6749 error answer of a JSON endpoint.
#[derive(Debug)]
struct OAuthError {
    status: StatusCode,
    error: &'static str,
    description: String,
}

fn oauth_error(error: &'static str, description: impl Into<String>) -> OAuthError {
    let status = if error == "invalid_client" {
        StatusCode::UNAUTHORIZED
    } else {
        StatusCode::BAD_REQUEST
    };
    OAuthError {
        status,
        error,
        description: description.into(),
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        // Debug (`?`), not Display: the description quotes what the client sent, and a
        // newline there (`%0A`) would otherwise start a forged log line.
        tracing::info!(error = self.error, description = ?self.description, "OAuth request refused");
        let mut r = no_store(axum::Json(json!({
            "error": self.error,
            "error_description": self.description,
        })));
        *r.status_mut() = self.status;
        r
    }
}

fn unavailable(e: StoreError) -> OAuthError {
    tracing::error!(error = %e, "OAuth: the database does not answer");
    OAuthError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        error: "temporarily_unavailable",
        description: "The server's database does not answer. Try again in a moment.".into(),
    }
}

/// Answers with `Cache-Control: no-store` (RFC 6749 §5.1: tokens must not be cached).
pub(crate) fn no_store(body: impl IntoResponse) -> Response {
    let mut r = body.into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r.headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    r
}

/// A form or query string as a map; a parameter given twice is refused (RFC 6749 §3.1).
fn params(raw: &[u8]) -> Result<HashMap<String, String>, OAuthError> {
    let mut out = HashMap::new();
    for (k, v) in form_urlencoded::parse(raw) {
        if out.insert(k.to_string(), v.to_string()).is_some() {
            return Err(oauth_error(
                "invalid_request",
                format!(
                    "The parameter “{}” is given more than once: give it once.",
                    shortened(&k)
                ),
            ));
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------
// Dynamic Client Registration (RFC 7591)

/// Whether a redirect URI may be registered: an absolute https URL, or http on a
/// loopback host (native clients listening on a local port, RFC 8252 §7.3); never a
/// fragment. The error says what is wrong.
pub fn check_redirect_uri(uri: &str) -> Result<(), String> {
    let url = url::Url::parse(uri).map_err(|e| format!("“{uri}” is not an absolute URL ({e})"))?;
    if url.fragment().is_some() {
        return Err(format!("“{uri}” has a fragment (#…), which OAuth forbids"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("“{uri}” carries a user name or password"));
    }
    match (url.scheme(), url.host()) {
        ("https", Some(_)) => Ok(()),
        ("http", Some(host)) if is_loopback(&host) => Ok(()),
        ("http", _) => Err(format!(
            "“{uri}” is http on a host that is not loopback: use https, or http://127.0.0.1, http://[::1] or http://localhost"
        )),
        (scheme, _) => Err(format!(
            "“{uri}” has the scheme {scheme}: only https (or http on loopback) is accepted"
        )),
    }
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(d) => d.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

async fn register(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let ip = client_address(&state, &request).map(address_key);
    let now = state.planning.now_ms();
    if let Some(ip) = ip
        && !state
            .attempts
            .allow(&format!("register:{ip}"), now, MAX_REGISTRATIONS)
    {
        let mut r = oauth_error(
            "invalid_client_metadata",
            "Too many registrations from this address: try again in a few minutes.",
        )
        .into_response();
        *r.status_mut() = StatusCode::TOO_MANY_REQUESTS;
        return r;
    }
    let Ok(body) = axum::body::to_bytes(request.into_body(), MAX_BODY).await else {
        return oauth_error(
            "invalid_client_metadata",
            format!("The registration is over {MAX_BODY} bytes: send only the client's metadata."),
        )
        .into_response();
    };
    match register_client(&state, &body).await {
        Ok(v) => {
            let mut r = no_store(axum::Json(v));
            *r.status_mut() = StatusCode::CREATED;
            r
        }
        Err(e) => e.into_response(),
    }
}

async fn register_client(state: &AppState, body: &[u8]) -> Result<Value, OAuthError> {
    let meta = |d: String| oauth_error("invalid_client_metadata", d);
    if body.len() > MAX_BODY {
        return Err(meta(format!(
            "The registration is over {MAX_BODY} bytes: send only the client's metadata."
        )));
    }
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        meta(format!(
            "The body must be a JSON object of client metadata ({e})."
        ))
    })?;
    let Some(m) = v.as_object() else {
        return Err(meta(
            "The body must be a JSON object of client metadata.".into(),
        ));
    };
    let uris: Vec<String> = match m.get("redirect_uris") {
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|u| u.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                oauth_error(
                    "invalid_redirect_uri",
                    "“redirect_uris” must be an array of strings.",
                )
            })?,
        _ => {
            return Err(oauth_error(
                "invalid_redirect_uri",
                "“redirect_uris” is required: a non-empty array of the URIs to send the person back to.",
            ));
        }
    };
    if uris.len() > MAX_REDIRECT_URIS {
        return Err(oauth_error(
            "invalid_redirect_uri",
            format!("At most {MAX_REDIRECT_URIS} redirect URIs may be registered."),
        ));
    }
    for uri in &uris {
        check_redirect_uri(uri)
            .map_err(|e| oauth_error("invalid_redirect_uri", format!("{e}.")))?;
    }
    let list = |key: &str, allowed: &[&str], default: &[&str]| -> Result<Vec<String>, OAuthError> {
        match m.get(key) {
            None | Some(Value::Null) => Ok(default.iter().map(|s| s.to_string()).collect()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| match x.as_str() {
                    Some(s) if allowed.contains(&s) => Ok(s.to_owned()),
                    _ => Err(meta(format!(
                        "“{key}” may only hold {}; got {x}.",
                        allowed.join(", ")
                    ))),
                })
                .collect(),
            Some(other) => Err(meta(format!("“{key}” must be an array, not {other}."))),
        }
    };
    let grant_types = list(
        "grant_types",
        &["authorization_code", "refresh_token"],
        &["authorization_code", "refresh_token"],
    )?;
    let response_types = list("response_types", &["code"], &["code"])?;
    let name: String = match m.get("client_name") {
        Some(Value::String(s)) => cleaned_name(s),
        _ => String::new(),
    };
    let client_id = auth::new_secret("pcl_")
        .map(|s| s[..4 + 32].to_owned())
        .map_err(|e| {
            tracing::error!(error = %e, "no random bytes for a client id");
            oauth_error("server_error", "The server has no random source right now.")
        })?;
    let now = state.planning.now_ms();
    let client = OAuthClient {
        client_id: client_id.clone(),
        name,
        redirect_uris: uris.clone(),
        created_at: now,
        kept_until: None,
    };
    state
        .planning
        .store()
        .add_client(&client)
        .await
        .map_err(unavailable)?;
    tracing::info!(client = ?client_id, name = ?client.name, "OAuth client registered");
    // Public clients only: whatever authentication was asked for, the answer says
    // "none" (RFC 7591 §3.2.1 lets the server replace a value), and PKCE is the proof.
    Ok(json!({
        "client_id": client_id,
        "client_id_issued_at": now / 1000,
        "client_name": client.name,
        "redirect_uris": uris,
        "grant_types": grant_types,
        "response_types": response_types,
        "token_endpoint_auth_method": "none",
    }))
}

// ---------------------------------------------------------------------------------
// Authorization requests

/// An authorization request checked far enough to answer it by redirecting.
#[derive(Debug, Clone)]
struct AuthRequest {
    client: OAuthClient,
    redirect_uri: String,
    state: Option<String>,
    code_challenge: String,
    resource: String,
    /// The scopes asked for, among [`SCOPES`] (others are ignored, RFC 6749 §3.3).
    wants_write: bool,
}

/// Why an authorization request is refused.
#[derive(Debug)]
enum AuthRefusal {
    /// No trustworthy redirect URI: shown on our own page (never redirected).
    Page(String),
    /// Sent back to the client's redirect URI.
    Redirect {
        /// Boxed: the request is large, the other answer a string.
        to: Box<AuthRequest>,
        error: &'static str,
        description: String,
    },
}

/// Checks an authorization request, client and redirect URI first.
async fn check_request(
    state: &AppState,
    p: &HashMap<String, String>,
    lang: Lang,
    ip: Option<&str>,
) -> Result<Result<AuthRequest, AuthRefusal>, StoreError> {
    let get = |k: &str| p.get(k).map(String::as_str).filter(|v| !v.is_empty());
    let Some(client_id) = get("client_id") else {
        return Ok(Err(AuthRefusal::Page(tr(
            lang,
            "La demande n'a pas de client_id\u{a0}: l'application doit d'abord s'enregistrer (RFC 7591) puis envoyer son client_id.",
            "The request has no client_id: the application must register first (RFC 7591) and send its client_id.",
        ))));
    };
    let client = if crate::cimd::is_document_id(client_id) {
        match document_client(state, client_id, lang, ip).await? {
            Ok(c) => Some(c),
            // Never redirected: the redirect URIs are the document's, unverified.
            Err(why) => return Ok(Err(AuthRefusal::Page(why))),
        }
    } else {
        state.planning.store().client(client_id).await?
    };
    let Some(client) = client else {
        let client_id = shortened(client_id);
        return Ok(Err(AuthRefusal::Page(tr(
            lang,
            format!(
                "Le client «\u{a0}{client_id}\u{a0}» n'est pas enregistré ici\u{a0}: l'application doit s'enregistrer à nouveau."
            ),
            format!(
                "The client “{client_id}” is not registered here: the application must register again."
            ),
        ))));
    };
    // Exact string comparison (OAuth 2.1 §2.3.1): no prefix, no normalisation.
    let redirect_uri = match get("redirect_uri") {
        Some(uri) if client.redirect_uris.iter().any(|r| r == uri) => uri.to_owned(),
        Some(uri) => {
            let uri = shortened(uri);
            return Ok(Err(AuthRefusal::Page(tr(
                lang,
                format!(
                    "«\u{a0}{uri}\u{a0}» n'est pas une adresse de retour enregistrée par ce client\u{a0}: PalmaPlan n'envoie de code qu'à une adresse enregistrée, comparée à l'identique."
                ),
                format!(
                    "The redirect URI “{uri}” is not one the client registered: PalmaPlan sends codes only to a registered URI, compared exactly."
                ),
            ))));
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => {
            return Ok(Err(AuthRefusal::Page(tr(
                lang,
                "La demande n'a pas de redirect_uri et le client en a enregistré plusieurs\u{a0}: nommez-en une.",
                "The request has no redirect_uri and the client registered several: name one.",
            ))));
        }
    };
    let scopes: Vec<&str> = get("scope").map_or(Vec::new(), |s| s.split(' ').collect());
    let mut req = AuthRequest {
        client,
        redirect_uri,
        state: p.get("state").cloned(),
        code_challenge: String::new(),
        resource: state.oauth.resource(),
        wants_write: scopes.contains(&"write"),
    };
    let refuse = |req: AuthRequest, error, description: &str| {
        Ok(Err(AuthRefusal::Redirect {
            to: Box::new(req),
            error,
            description: description.to_owned(),
        }))
    };
    if get("response_type") != Some("code") {
        return refuse(
            req,
            "unsupported_response_type",
            "response_type must be “code” (the authorization code flow).",
        );
    }
    match get("code_challenge_method") {
        Some("S256") => {}
        Some("plain") | None => {
            return refuse(
                req,
                "invalid_request",
                "PKCE with code_challenge_method=S256 is required; “plain” (the default when it is left out) is refused.",
            );
        }
        Some(_) => {
            return refuse(
                req,
                "invalid_request",
                "code_challenge_method must be S256.",
            );
        }
    }
    match get("code_challenge") {
        Some(c) if c.len() == 43 && c.bytes().all(is_b64url) => req.code_challenge = c.to_owned(),
        _ => {
            return refuse(
                req,
                "invalid_request",
                "code_challenge must be the base64url SHA-256 of the code verifier (43 characters).",
            );
        }
    }
    if let Some(resource) = get("resource")
        && !same_resource(resource, &req.resource)
    {
        let ours = req.resource.clone();
        return refuse(
            req,
            "invalid_target",
            &format!(
                "This server issues tokens for the resource {ours} only, not {}.",
                shortened(resource)
            ),
        );
    }
    Ok(Ok(req))
}

/// The client a metadata document describes: the one kept while its document's
/// Cache-Control allows (bounded, `cimd::keep_ms`; kept before that was read:
/// [`crate::cimd::CimdConfig::ttl_ms`] after its fetch), else fetched again (and kept).
async fn document_client(
    state: &AppState,
    client_id: &str,
    lang: Lang,
    ip: Option<&str>,
) -> Result<Result<OAuthClient, String>, StoreError> {
    let store = state.planning.store();
    let now = state.planning.now_ms();
    if let Some(kept) = store.client(client_id).await?
        && kept
            .kept_until
            .map_or(now - kept.created_at < state.cimd.ttl_ms, |until| {
                now < until
            })
    {
        return Ok(Ok(kept));
    }
    if let Some(ip) = ip
        && !state
            .attempts
            .allow(&format!("document:{ip}"), now, MAX_DOCUMENT_FETCHES)
    {
        return Ok(Err(tr(
            lang,
            "Trop de documents de client demandés depuis cette adresse\u{a0}: réessayez dans quelques minutes.",
            "Too many client documents asked for from this address: try again in a few minutes.",
        )));
    }
    match crate::cimd::fetch(&state.cimd, client_id, now, lang).await {
        Ok(client) => {
            store.put_client(&client).await?;
            tracing::info!(client = ?client_id, name = ?client.name, "OAuth client metadata document fetched");
            Ok(Ok(client))
        }
        Err(why) => {
            tracing::info!(client = ?shortened(client_id), why = ?why, "OAuth client metadata document refused");
            Ok(Err(why))
        }
    }
}

/// What a refusal page or message echoes of a value the request chose: at most 200
/// characters, so that a huge query does not come back whole.
pub(crate) fn shortened(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// The resource as given and ours, a trailing `/` aside.
fn same_resource(given: &str, ours: &str) -> bool {
    given.trim_end_matches('/') == ours
}

fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// `to`, with these parameters added to its query.
fn redirect_with(to: &str, pairs: &[(&str, &str)]) -> Response {
    let mut url = match url::Url::parse(to) {
        Ok(u) => u,
        // Registered URIs were parsed at registration; this does not happen.
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
    }
    see_other(url.as_str())
}

pub(crate) fn see_other(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(v) => no_store((
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, v),
                (
                    header::REFERRER_POLICY,
                    HeaderValue::from_static("no-referrer"),
                ),
            ],
        )),
        Err(_) => StatusCode::BAD_REQUEST.into_response(),
    }
}

fn redirect_refusal(
    state: &AppState,
    to: &AuthRequest,
    error: &str,
    description: &str,
) -> Response {
    let mut pairs = vec![("error", error), ("error_description", description)];
    if let Some(s) = &to.state {
        pairs.push(("state", s));
    }
    pairs.push(("iss", &state.oauth.issuer));
    redirect_with(&to.redirect_uri, &pairs)
}

/// `GET /oauth/authorize`: the consent page, or the sign-in page first.
async fn authorize_page(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
) -> Response {
    let ip = client_address_of(&state, &extensions, &headers).map(address_key);
    let query = query.unwrap_or_default();
    let p = match params(query.as_bytes()) {
        Ok(p) => p,
        Err(e) => return refusal_page(&state, &headers, None, &e.description),
    };
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let req = match check_request(&state, &p, lang, ip.as_deref()).await {
        Ok(Ok(req)) => req,
        Ok(Err(AuthRefusal::Page(why))) => return refusal_page(&state, &headers, Some(lang), &why),
        Ok(Err(AuthRefusal::Redirect {
            to,
            error,
            description,
        })) => {
            // Anyone may register a client with an https redirect URI, so a registered
            // URI proves nothing about where it leads: redirecting errors to it before
            // the person has signed in would make this server an open redirector for
            // phishing links (RFC 9700 §4.11.2). Before sign-in the error is shown
            // here; once the person is authenticated it goes back to the client.
            return match signed_in(&state, &headers).await {
                Ok(Some(_)) => redirect_refusal(&state, &to, error, &description),
                Ok(None) => refusal_page(
                    &state,
                    &headers,
                    Some(lang),
                    &tr(
                        lang,
                        format!(
                            "La demande de l'application est refusée ({error})\u{a0}: {description}"
                        ),
                        format!("The application's request is refused ({error}): {description}"),
                    ),
                ),
                Err(e) => unavailable(e).into_response(),
            };
        }
        Err(e) => return unavailable(e).into_response(),
    };
    let session = match signed_in(&state, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            let next = format!("/oauth/authorize?{query}");
            let mut to = String::from("/oauth/signin?");
            let start = to.len();
            form_urlencoded::Serializer::for_suffix(&mut to, start)
                .append_pair("next", &next)
                .append_pair("lang", lang_tag(lang));
            return see_other(&to);
        }
        Err(e) => return unavailable(e).into_response(),
    };
    let schedules = match state.planning.store().schedules_of(session.user.id).await {
        Ok(s) => s,
        Err(e) => return unavailable(e).into_response(),
    };
    let host = url::Url::parse(&req.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let name = client_name(&req.client, lang);
    // A document's name is whatever its author wrote: the host that serves it is what
    // the person can judge (`claude.ai`, or one they do not know).
    let origin = match crate::cimd::document_host(&req.client.client_id) {
        Some(h) if crate::cimd::is_document_id(&req.client.client_id) => format!(
            "<p class=\"origin\">{}</p>",
            tr(
                lang,
                format!(
                    "Cette application se présente par un document publié sur <strong>{}</strong>.",
                    escape_html(&h)
                ),
                format!(
                    "This application describes itself in a document published on <strong>{}</strong>.",
                    escape_html(&h)
                ),
            )
        ),
        _ => String::new(),
    };
    let mut hidden = String::new();
    for (k, v) in [
        ("client_id", req.client.client_id.as_str()),
        ("redirect_uri", &req.redirect_uri),
        ("response_type", "code"),
        ("code_challenge", &req.code_challenge),
        ("code_challenge_method", "S256"),
        ("resource", &req.resource),
        ("lang", lang_tag(lang)),
        ("csrf", &session.csrf),
    ] {
        hidden.push_str(&hidden_field(k, v));
    }
    if let Some(s) = &req.state {
        hidden.push_str(&hidden_field("state", s));
    }
    let mut options = format!(
        "<option value=\"\">{}</option>",
        escape_html(&tr(lang, "Tous mes plannings", "All my schedules"))
    );
    for s in &schedules {
        options.push_str(&format!(
            "<option value=\"{}\">{} (n°\u{a0}{})</option>",
            s.id,
            escape_html(&s.name),
            s.id
        ));
    }
    let (read_checked, write_checked) = if req.wants_write {
        ("", " checked")
    } else {
        (" checked", "")
    };
    let body = format!(
        "<p>{intro}</p>{origin}<p class=\"who\">{who}</p>\
         <form method=\"post\" action=\"/oauth/authorize\">{hidden}\
         <fieldset><legend>{access}</legend>\
         <label><input type=\"radio\" name=\"access\" value=\"read\"{read_checked}> {read}</label>\
         <label><input type=\"radio\" name=\"access\" value=\"write\"{write_checked}> {write}</label>\
         </fieldset>\
         <label for=\"schedule\">{which}</label><select id=\"schedule\" name=\"schedule\">{options}</select>\
         <p class=\"note\">{note}</p>\
         <div class=\"buttons\"><button type=\"submit\" name=\"decision\" value=\"allow\">{allow}</button>\
         <button type=\"submit\" name=\"decision\" value=\"deny\" class=\"secondary\">{deny}</button></div>\
         </form>\
         <form method=\"post\" action=\"/oauth/signout\">{signout_hidden}\
         <p class=\"note\"><button type=\"submit\" class=\"secondary\">{signout}</button></p></form>",
        intro = tr(
            lang,
            format!(
                "<strong><bdi>{}</bdi></strong> demande l'accès à vos plannings PalmaPlan. Votre réponse sera envoyée à <strong>{}</strong>.",
                escape_html(&name),
                escape_html(&host)
            ),
            format!(
                "<strong><bdi>{}</bdi></strong> asks for access to your PalmaPlan schedules. Your answer will be sent to <strong>{}</strong>.",
                escape_html(&name),
                escape_html(&host)
            ),
        ),
        who = escape_html(&tr(
            lang,
            format!("Connecté en tant que {}.", session.user.email),
            format!("Signed in as {}.", session.user.email),
        )),
        access = escape_html(&tr(lang, "Accès", "Access")),
        read = escape_html(&tr(lang, "Lecture seule", "Read only")),
        write = escape_html(&tr(
            lang,
            "Lecture et écriture (modifier les plannings)",
            "Read and write (change schedules)",
        )),
        which = escape_html(&tr(lang, "Plannings", "Schedules")),
        note = tr(
            lang,
            "Vos rôles sur chaque planning s'appliquent toujours. Vous pourrez retirer cet accès à tout moment\u{a0}: <code>palmaplan grant revoke</code>.",
            "Your roles on each schedule still apply. You can withdraw this access at any time: <code>palmaplan grant revoke</code>.",
        ),
        allow = escape_html(&tr(lang, "Autoriser", "Allow")),
        deny = escape_html(&tr(lang, "Refuser", "Deny")),
        signout_hidden =
            hidden_field("csrf", &session.csrf) + &hidden_field("lang", lang_tag(lang)),
        signout = escape_html(&tr(lang, "Se déconnecter", "Sign out")),
    );
    // The title is text (no tags): U+2068 and U+2069 isolate the name there as <bdi>
    // does in the body, so that a right-to-left name does not move the punctuation.
    let title = tr(
        lang,
        format!("Autoriser «\u{a0}\u{2068}{name}\u{2069}\u{a0}»\u{202f}?"),
        format!("Allow “\u{2068}{name}\u{2069}”?"),
    );
    html_page(StatusCode::OK, lang, &title, &body, None)
}

/// `POST /oauth/authorize`: the person's answer.
async fn authorize_answer(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: Bytes,
) -> Response {
    let ip = client_address_of(&state, &extensions, &headers).map(address_key);
    let p = match params(&body) {
        Ok(p) => p,
        Err(e) => return refusal_page(&state, &headers, None, &e.description),
    };
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let session = match signed_in(&state, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            return refusal_page(
                &state,
                &headers,
                Some(lang),
                &tr(
                    lang,
                    "Votre connexion a expiré\u{a0}: recommencez depuis l'application.",
                    "Your sign-in has expired: start again from the application.",
                ),
            );
        }
        Err(e) => return unavailable(e).into_response(),
    };
    // The token is derived from the session secret, which only the person's browser
    // holds (HttpOnly): a page of another site cannot produce it.
    if p.get("csrf").is_none_or(|c| !constant_eq(c, &session.csrf)) {
        return refusal_page_status(
            StatusCode::FORBIDDEN,
            lang,
            &tr(
                lang,
                "Ce formulaire n'a pas été envoyé par la page d'autorisation de PalmaPlan (jeton anti-falsification absent ou faux)\u{a0}: recommencez depuis l'application.",
                "This form was not sent by PalmaPlan's consent page (its anti-forgery token is missing or wrong): start again from the application.",
            ),
        );
    }
    let req = match check_request(&state, &p, lang, ip.as_deref()).await {
        Ok(Ok(req)) => req,
        Ok(Err(AuthRefusal::Page(why))) => return refusal_page(&state, &headers, Some(lang), &why),
        Ok(Err(AuthRefusal::Redirect {
            to,
            error,
            description,
        })) => return redirect_refusal(&state, &to, error, &description),
        Err(e) => return unavailable(e).into_response(),
    };
    if p.get("decision").map(String::as_str) != Some("allow") {
        return redirect_refusal(&state, &req, "access_denied", "The person declined.");
    }
    let can_write = match p.get("access").map(String::as_str) {
        Some("write") => true,
        Some("read") | None => false,
        Some(other) => {
            return refusal_page(
                &state,
                &headers,
                Some(lang),
                &format!("access “{other}”: read or write."),
            );
        }
    };
    let store = state.planning.store();
    let schedule = match p.get("schedule").map(String::as_str) {
        None | Some("") => None,
        Some(s) => match s.parse::<i64>() {
            Ok(id) => match store.role(id, session.user.id).await {
                Ok(Some(_)) => Some(id),
                Ok(None) => {
                    return refusal_page(
                        &state,
                        &headers,
                        Some(lang),
                        &tr(
                            lang,
                            format!("Vous n'avez pas accès au planning {id}."),
                            format!("You have no access to schedule {id}."),
                        ),
                    );
                }
                Err(e) => return unavailable(e).into_response(),
            },
            Err(_) => {
                return refusal_page(&state, &headers, Some(lang), "schedule: a schedule id.");
            }
        },
    };
    let now = state.planning.now_ms();
    let Ok(code) = auth::new_secret(auth::CODE_PREFIX) else {
        return oauth_error("server_error", "The server has no random source right now.")
            .into_response();
    };
    let made = async {
        let grant = store
            .add_grant(
                &req.client.client_id,
                session.user.id,
                can_write,
                schedule,
                &req.resource,
                now,
            )
            .await?;
        store
            .add_code(
                &auth::token_hash(&code),
                grant,
                &req.redirect_uri,
                &req.code_challenge,
                now + state.oauth.code_ttl_ms,
            )
            .await?;
        Ok::<_, StoreError>(grant)
    }
    .await;
    match made {
        Ok(grant) => {
            tracing::info!(grant, client = ?req.client.client_id, user = session.user.id, can_write, ?schedule, "OAuth grant given");
            let mut pairs = vec![("code", code.as_str())];
            if let Some(s) = &req.state {
                pairs.push(("state", s));
            }
            pairs.push(("iss", &state.oauth.issuer));
            redirect_with(&req.redirect_uri, &pairs)
        }
        Err(e) => unavailable(e).into_response(),
    }
}

fn client_name(client: &OAuthClient, lang: Lang) -> String {
    // Filtered again: names registered before format characters were dropped.
    let name: String = client.name.chars().filter(|c| shown_in_name(*c)).collect();
    if name.trim().is_empty() {
        tr(lang, "Une application sans nom", "An unnamed application")
    } else {
        name.trim().to_owned()
    }
}

/// A client's name as it is kept, registered or read from its metadata document: without
/// control or format characters ([`shown_in_name`]), at most 100 characters, trimmed.
pub(crate) fn cleaned_name(s: &str) -> String {
    let name: String = s.chars().filter(|c| shown_in_name(*c)).take(100).collect();
    name.trim().to_owned()
}

/// Whether a character of a client's name is kept: not a control character (Cc) nor a
/// format character (Cf): bidirectional overrides and isolates would let a name such
/// as `Claude\u{202E}lapyap` read as another on the consent page, and zero-width ones
/// make two names that look the same differ.
fn shown_in_name(c: char) -> bool {
    let format = matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    );
    !c.is_control() && !format
}

// ---------------------------------------------------------------------------------
// Sign-in

/// A signed-in person and the anti-forgery token of their forms.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) user: crate::storage::User,
    /// Derived from the session's secret: the hidden field every form of the signed-in
    /// pages (consent, web screen) must send back.
    pub(crate) csrf: String,
    /// The session secret's hash (how the store knows it).
    pub(crate) hash: String,
}

fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

pub(crate) async fn signed_in(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<Option<Session>, StoreError> {
    let Some(secret) = cookie(headers, SESSION_COOKIE)
        .filter(|s| auth::looks_like_secret(auth::SESSION_PREFIX, s))
    else {
        return Ok(None);
    };
    let hash = auth::token_hash(secret);
    let user = state
        .planning
        .store()
        .web_session_user(&hash, state.planning.now_ms())
        .await?;
    Ok(user.map(|user| Session {
        user,
        csrf: hex::encode(Sha256::digest(format!("palmaplan consent\0{secret}"))),
        hash,
    }))
}

/// Whether `next` is a path on this server: `/…`, not `//host` nor `/\host` (which
/// browsers read as another host), no scheme, no control character.
pub fn local_path(next: &str) -> bool {
    next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && !next.chars().any(|c| c.is_control() || c == '\\')
        && next.len() <= 8192
}

/// `Path=/`: the web screen (`/app`, `crate::web`) is signed in by the same session as
/// the consent pages. SameSite=Lax keeps it off other sites' posts.
fn cookie_header(state: &AppState, name: &str, value: &str, max_age_s: i64) -> HeaderValue {
    let secure = if state.oauth.secure() { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_s}{secure}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Double-submit: the form's `csrf` equals the cookie the page set; a page of another
/// site can post the form but neither read nor set our cookie.
fn double_submitted(p: &HashMap<String, String>, headers: &HeaderMap) -> bool {
    match (p.get("csrf"), cookie(headers, SIGNIN_COOKIE)) {
        (Some(f), Some(c)) => !f.is_empty() && constant_eq(f, c),
        _ => false,
    }
}

/// `GET /oauth/signin?next=…`
async fn signin_page(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let p = params(query.unwrap_or_default().as_bytes()).unwrap_or_default();
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let next = p.get("next").cloned().unwrap_or_default();
    if !local_path(&next) {
        return refusal_page_status(StatusCode::BAD_REQUEST, lang, &bad_next(lang));
    }
    signin_form(&state, lang, &next, None, StatusCode::OK)
}

fn too_many_attempts(lang: Lang) -> String {
    tr(
        lang,
        "Trop de tentatives de connexion\u{a0}: réessayez dans quelques minutes.",
        "Too many sign-in attempts: try again in a few minutes.",
    )
}

fn bad_next(lang: Lang) -> String {
    tr(
        lang,
        "Le paramètre «\u{a0}next\u{a0}» doit être un chemin de ce serveur (commençant par un seul /)\u{a0}: PalmaPlan ne renvoie pas vers un autre site.",
        "The “next” parameter must be a path on this server (starting with a single /): PalmaPlan does not send people to another site.",
    )
}

fn signin_form(
    state: &AppState,
    lang: Lang,
    next: &str,
    error: Option<&str>,
    status: StatusCode,
) -> Response {
    let Ok(csrf) = auth::new_secret("") else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let error = error.map_or(String::new(), |e| {
        format!("<p class=\"error\" role=\"alert\">{}</p>", escape_html(e))
    });
    let body = format!(
        "{error}<form method=\"post\" action=\"/oauth/signin\">{hidden}\
         <label for=\"email\">{email}</label><input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"username\" required>\
         <label for=\"password\">{password}</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\
         <div class=\"buttons\"><button type=\"submit\">{go}</button></div></form>\
         <p class=\"note\">{note}</p>",
        hidden = [("next", next), ("lang", lang_tag(lang)), ("csrf", &csrf)]
            .iter()
            .map(|(k, v)| hidden_field(k, v))
            .collect::<String>(),
        email = escape_html(&tr(lang, "Adresse e-mail", "E-mail address")),
        password = escape_html(&tr(lang, "Mot de passe", "Password")),
        go = escape_html(&tr(lang, "Se connecter", "Sign in")),
        note = tr(
            lang,
            "Le mot de passe se définit sur le serveur avec <code>palmaplan user set-password --email …</code>\u{202f}; sans mot de passe, demandez un lien de connexion à usage unique (<code>palmaplan user sign-in-link --email …</code>).",
            "The password is set on the server with <code>palmaplan user set-password --email …</code>; without one, ask for a one-time sign-in link (<code>palmaplan user sign-in-link --email …</code>).",
        ),
    );
    let title = tr(lang, "Connexion à PalmaPlan", "Sign in to PalmaPlan");
    html_page(
        status,
        lang,
        &title,
        &body,
        Some(cookie_header(state, SIGNIN_COOKIE, &csrf, 3600)),
    )
}

/// `POST /oauth/signin`
async fn signin_answer(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let ip = client_address(&state, &request).map(address_key);
    let headers = request.headers().clone();
    let Ok(body) = axum::body::to_bytes(request.into_body(), MAX_BODY).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let p = match params(&body) {
        Ok(p) => p,
        Err(e) => return refusal_page(&state, &headers, None, &e.description),
    };
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let next = p.get("next").cloned().unwrap_or_default();
    if !local_path(&next) {
        return refusal_page_status(StatusCode::BAD_REQUEST, lang, &bad_next(lang));
    }
    let csrf_ok = double_submitted(&p, &headers);
    if !csrf_ok {
        return signin_form(
            &state,
            lang,
            &next,
            Some(&tr(
                lang,
                "Ce formulaire n'a pas été envoyé par la page de connexion de PalmaPlan (jeton anti-falsification absent ou faux)\u{a0}: réessayez.",
                "This form was not sent by PalmaPlan's sign-in page (its anti-forgery token is missing or wrong): try again.",
            )),
            StatusCode::FORBIDDEN,
        );
    }
    let email = p
        .get("email")
        .map(|e| e.trim().to_owned())
        .unwrap_or_default();
    let password = p.get("password").cloned().unwrap_or_default();
    let now = state.planning.now_ms();
    let too_many = || {
        signin_form(
            &state,
            lang,
            &next,
            Some(&too_many_attempts(lang)),
            StatusCode::TOO_MANY_REQUESTS,
        )
    };
    // The address first, and nothing more counted once it is over: otherwise every
    // request of a blocked address would still add an e-mail key, and one address
    // could fill the counters with invented e-mails.
    if ip.is_some_and(|ip| !state.attempts.allow(&format!("ip:{ip}"), now, MAX_ATTEMPTS)) {
        return too_many();
    }
    let wrong = || {
        signin_form(
            &state,
            lang,
            &next,
            Some(&tr(
                lang,
                "E-mail ou mot de passe incorrect.",
                "Wrong e-mail or password.",
            )),
            StatusCode::UNAUTHORIZED,
        )
    };
    if email.len() > MAX_EMAIL_BYTES {
        return wrong();
    }
    if !state.attempts.allow(
        &format!("email:{}", email.to_lowercase()),
        now,
        MAX_ATTEMPTS,
    ) {
        return too_many();
    }
    let store = state.planning.store();
    let found = match store.user_with_password(&email).await {
        Ok(f) => f,
        Err(e) => return unavailable(e).into_response(),
    };
    let (user, phc) = match found {
        Some((user, phc)) => (Some(user), phc),
        None => (None, None),
    };
    let ok = verify_password(password, phc).await;
    let (Some(user), true) = (user, ok) else {
        return wrong();
    };
    tracing::info!(user = user.id, "signed in with a password");
    open_session(&state, user.id, now, &next).await
}

/// Opens a session for `user` and sends the browser on to `next` with its cookie.
async fn open_session(state: &AppState, user: i64, now: i64, next: &str) -> Response {
    let Ok(secret) = auth::new_secret(auth::SESSION_PREFIX) else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let ttl = state.oauth.session_ttl_ms;
    if let Err(e) = state
        .planning
        .store()
        .add_web_session(&auth::token_hash(&secret), user, now, now + ttl)
        .await
    {
        return unavailable(e).into_response();
    }
    let mut r = see_other(next);
    r.headers_mut().append(
        header::SET_COOKIE,
        cookie_header(state, SESSION_COOKIE, &secret, ttl / 1000),
    );
    r
}

/// The refusal of a sign-in link that does not work (spent, expired, unknown: one
/// answer, so that the page tells nothing about other people's links).
fn dead_link(lang: Lang) -> Response {
    let body = format!(
        "<p>{}</p><p><a href=\"/oauth/signin?next=%2Fapp&amp;lang={}\">{}</a></p>",
        escape_html(&tr(
            lang,
            format!(
                "Ce lien de connexion ne fonctionne pas\u{a0}: il a déjà servi, il a expiré (il vaut {SIGNIN_LINK_MINUTES}\u{a0}minutes) ou il est incomplet. Demandez-en un nouveau à l'administrateur du serveur (palmaplan user sign-in-link --email …), ou connectez-vous avec votre mot de passe."
            ),
            format!(
                "This sign-in link does not work: it was used already, it expired (it lasts {SIGNIN_LINK_MINUTES} minutes) or it is incomplete. Ask the server's administrator for a new one (palmaplan user sign-in-link --email …), or sign in with your password."
            ),
        )),
        lang_tag(lang),
        escape_html(&tr(
            lang,
            "Se connecter avec un mot de passe",
            "Sign in with a password"
        )),
    );
    html_page(
        StatusCode::GONE,
        lang,
        &tr(
            lang,
            "Lien de connexion périmé",
            "Sign-in link no longer valid",
        ),
        &body,
        None,
    )
}

/// `GET /oauth/link?t=…`: asks "sign in as …?" without spending the link. Mail and chat
/// previewers open links they see; only the person's click (a POST) spends it.
async fn link_page(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let p = params(query.unwrap_or_default().as_bytes()).unwrap_or_default();
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let secret = p.get("t").cloned().unwrap_or_default();
    if !auth::looks_like_secret(auth::SIGNIN_LINK_PREFIX, &secret) {
        return dead_link(lang);
    }
    let user = match state
        .planning
        .store()
        .signin_link_user(&auth::token_hash(&secret), state.planning.now_ms())
        .await
    {
        Ok(Some(user)) => user,
        Ok(None) => return dead_link(lang),
        Err(e) => return unavailable(e).into_response(),
    };
    let Ok(csrf) = auth::new_secret("") else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let body = format!(
        "<p>{ask} <bdi>{name}</bdi> &lt;<bdi>{email}</bdi>&gt;\u{a0}?</p>\
         <form method=\"post\" action=\"/oauth/link\">{hidden}\
         <div class=\"buttons\"><button type=\"submit\">{go}</button></div></form>\
         <p class=\"note\">{note}</p>",
        ask = escape_html(&tr(
            lang,
            "Se connecter à PalmaPlan en tant que",
            "Sign in to PalmaPlan as"
        )),
        name = escape_html(&cleaned_name(&user.name)),
        email = escape_html(&user.email),
        hidden = [
            ("t", secret.as_str()),
            ("lang", lang_tag(lang)),
            ("csrf", &csrf)
        ]
        .iter()
        .map(|(k, v)| hidden_field(k, v))
        .collect::<String>(),
        go = escape_html(&tr(lang, "Se connecter", "Sign in")),
        note = escape_html(&tr(
            lang,
            "Ce lien ne sert qu'une fois. Si vous ne l'avez pas demandé, fermez cette page.",
            "This link works once. If you did not ask for it, close this page.",
        )),
    );
    let mut r = html_page(
        StatusCode::OK,
        lang,
        &tr(lang, "Connexion par lien", "Sign in by link"),
        &body,
        Some(cookie_header(&state, SIGNIN_COOKIE, &csrf, 3600)),
    );
    // A page whose address holds a secret says it to no one.
    r.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// `POST /oauth/link`: spends the link (once), opens a session, and goes to the list.
async fn link_answer(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let ip = client_address(&state, &request).map(address_key);
    let headers = request.headers().clone();
    let Ok(body) = axum::body::to_bytes(request.into_body(), MAX_BODY).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let p = params(&body).unwrap_or_default();
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let csrf_ok = double_submitted(&p, &headers);
    if !csrf_ok {
        return refusal_page_status(
            StatusCode::FORBIDDEN,
            lang,
            &tr(
                lang,
                "Ce formulaire n'a pas été envoyé par la page du lien de connexion (jeton anti-falsification absent ou faux)\u{a0}: rouvrez le lien.",
                "This form was not sent by the sign-in link's page (its anti-forgery token is missing or wrong): open the link again.",
            ),
        );
    }
    let now = state.planning.now_ms();
    // Guessing a link is hopeless (256 bits), but the form is counted as sign-ins are.
    if ip.is_some_and(|ip| !state.attempts.allow(&format!("ip:{ip}"), now, MAX_ATTEMPTS)) {
        return refusal_page_status(
            StatusCode::TOO_MANY_REQUESTS,
            lang,
            &too_many_attempts(lang),
        );
    }
    let secret = p.get("t").cloned().unwrap_or_default();
    if !auth::looks_like_secret(auth::SIGNIN_LINK_PREFIX, &secret) {
        return dead_link(lang);
    }
    let user = match state
        .planning
        .store()
        .spend_signin_link(&auth::token_hash(&secret), now)
        .await
    {
        Ok(Some(user)) => user,
        Ok(None) => return dead_link(lang),
        Err(e) => return unavailable(e).into_response(),
    };
    tracing::info!(user = user.id, "signed in with a one-time link");
    let next = match lang {
        Lang::Fr => "/app",
        Lang::En => "/app?lang=en",
    };
    open_session(&state, user.id, now, next).await
}

/// `POST /oauth/signout` (the consent page's button): ends the browser's sign-in session
/// and forgets its cookie. The form carries the session's anti-forgery token, so that a
/// page of another site cannot sign the person out.
async fn signout(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    let p = params(&body).unwrap_or_default();
    let lang = page_lang(&state, &headers, p.get("lang").map(String::as_str));
    let session = match signed_in(&state, &headers).await {
        Ok(s) => s,
        Err(e) => return unavailable(e).into_response(),
    };
    if let Some(session) = session {
        if p.get("csrf").is_none_or(|c| !constant_eq(c, &session.csrf)) {
            return refusal_page_status(
                StatusCode::FORBIDDEN,
                lang,
                &tr(
                    lang,
                    "Ce formulaire n'a pas été envoyé par une page de PalmaPlan (jeton anti-falsification absent ou faux)\u{a0}: vous restez connecté.",
                    "This form was not sent by a PalmaPlan page (its anti-forgery token is missing or wrong): you are still signed in.",
                ),
            );
        }
        // `signed_in` found the cookie, so it is there.
        let secret = cookie(&headers, SESSION_COOKIE).unwrap_or_default();
        if let Err(e) = state
            .planning
            .store()
            .delete_web_session(&auth::token_hash(secret))
            .await
        {
            return unavailable(e).into_response();
        }
        tracing::info!(
            user = session.user.id,
            "signed out of the OAuth consent pages"
        );
    }
    let body = format!(
        "<p>{}</p><p><a href=\"/app{}\">{}</a></p>",
        escape_html(&tr(
            lang,
            "Vous êtes déconnecté de PalmaPlan. Pour autoriser une application, recommencez depuis celle-ci.",
            "You are signed out of PalmaPlan. To authorize an application, start again from it.",
        )),
        match lang {
            Lang::Fr => "",
            Lang::En => "?lang=en",
        },
        escape_html(&tr(lang, "Se reconnecter", "Sign in again")),
    );
    let title = tr(lang, "Déconnexion", "Signed out");
    html_page(
        StatusCode::OK,
        lang,
        &title,
        &body,
        Some(cookie_header(&state, SESSION_COOKIE, "", 0)),
    )
}

/// Hashes a password as an argon2id PHC string (a random salt, the crate's default
/// cost: 19 MiB, 2 passes).
pub fn hash_password(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Checks a password off the async threads (argon2 is meant to be slow). Without a
/// stored hash a dummy one is checked, so that an unknown e-mail takes as long.
async fn verify_password(password: String, phc: Option<String>) -> bool {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    tokio::task::spawn_blocking(move || {
        let (phc, real) = match phc {
            Some(p) => (p, true),
            None => (
                DUMMY
                    .get_or_init(|| hash_password("not a password").unwrap_or_default())
                    .clone(),
                false,
            ),
        };
        let ok = Argon2::default()
            .verify_password(password.as_bytes(), phc.as_str())
            .is_ok();
        ok && real
    })
    .await
    .unwrap_or(false)
}

pub(crate) fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

// ---------------------------------------------------------------------------------
// Token and revocation endpoints

async fn token(State(state): State<Arc<AppState>>, body: Bytes) -> Response {
    match exchange(&state, &body).await {
        Ok(v) => no_store(axum::Json(v)),
        Err(e) => e.into_response(),
    }
}

async fn exchange(state: &AppState, body: &[u8]) -> Result<Value, OAuthError> {
    let p = params(body)?;
    let get = |k: &str| p.get(k).map(String::as_str).filter(|v| !v.is_empty());
    let Some(client_id) = get("client_id") else {
        return Err(oauth_error(
            "invalid_request",
            "client_id is required (public clients name themselves in the form).",
        ));
    };
    let store = state.planning.store();
    if store
        .client(client_id)
        .await
        .map_err(unavailable)?
        .is_none()
    {
        return Err(oauth_error(
            "invalid_client",
            format!("The client “{client_id}” is not registered here: register again."),
        ));
    }
    let now = state.planning.now_ms();
    let resource_ok = |grant: &GrantInfo| match get("resource") {
        Some(r) if !same_resource(r, &grant.resource) => Err(oauth_error(
            "invalid_target",
            format!(
                "This grant is for the resource {}, not {r}.",
                grant.resource
            ),
        )),
        _ => Ok(()),
    };
    let grant = match get("grant_type") {
        Some("authorization_code") => {
            let code =
                get("code").ok_or_else(|| oauth_error("invalid_request", "code is required."))?;
            let verifier = get("code_verifier").ok_or_else(|| {
                oauth_error(
                    "invalid_request",
                    "code_verifier is required: PKCE is mandatory here.",
                )
            })?;
            if !auth::looks_like_secret(auth::CODE_PREFIX, code) {
                return Err(oauth_error(
                    "invalid_grant",
                    "This code is not one this server issued.",
                ));
            }
            let check = |info: &CodeInfo| {
                if info.grant.client_id != client_id {
                    return Err(oauth_error(
                        "invalid_grant",
                        "This code was issued to another client.",
                    ));
                }
                if now >= info.expires_at {
                    return Err(oauth_error(
                        "invalid_grant",
                        format!(
                            "This code has expired (codes live {} s): start the authorization again.",
                            state.oauth.code_ttl_ms / 1000
                        ),
                    ));
                }
                if info.grant.revoked_at.is_some() {
                    return Err(oauth_error("invalid_grant", "This grant was revoked."));
                }
                if let Some(uri) = get("redirect_uri")
                    && uri != info.redirect_uri
                {
                    return Err(oauth_error(
                        "invalid_grant",
                        "redirect_uri is not the one of the authorization request.",
                    ));
                }
                if !pkce_matches(verifier, &info.code_challenge) {
                    return Err(oauth_error(
                        "invalid_grant",
                        "code_verifier does not match the code_challenge (S256) of the authorization request.",
                    ));
                }
                resource_ok(&info.grant)
            };
            let hash = auth::token_hash(code);
            // Every check before the code is spent: a request refused for the client's
            // own mistake (another resource, redirect URI or verifier) leaves the code
            // for a corrected one, instead of spending it so that the retry looks like
            // a replay. A code already spent goes on to `spend_code`, which says so.
            if let Some((info, false)) = store.code(&hash).await.map_err(unavailable)? {
                check(&info)?;
            }
            let info = match store.spend_code(&hash, now).await.map_err(unavailable)? {
                SpentCode::Unknown => {
                    return Err(oauth_error(
                        "invalid_grant",
                        "This code is not one this server issued.",
                    ));
                }
                SpentCode::Again { grant_id } => {
                    // A code shown twice was stolen or replayed: what it gave is revoked.
                    store
                        .revoke_grant(grant_id, None, now)
                        .await
                        .map_err(unavailable)?;
                    tracing::warn!(
                        grant = grant_id,
                        "an authorization code was used twice: grant revoked"
                    );
                    return Err(oauth_error(
                        "invalid_grant",
                        "This code was already used; codes are single-use, and the tokens it gave are now revoked. Start the authorization again.",
                    ));
                }
                SpentCode::Fresh(info) => info,
            };
            // Again on what was spent: the grant may have been revoked in between.
            check(&info)?;
            info.grant
        }
        Some("refresh_token") => {
            let secret = get("refresh_token")
                .ok_or_else(|| oauth_error("invalid_request", "refresh_token is required."))?;
            let unknown = || {
                oauth_error(
                    "invalid_grant",
                    "This refresh token is not one this server issued.",
                )
            };
            if !auth::looks_like_secret(auth::REFRESH_PREFIX, secret) {
                return Err(unknown());
            }
            let Some(t) = store
                .grant_token(&auth::token_hash(secret), TokenKind::Refresh)
                .await
                .map_err(unavailable)?
            else {
                return Err(unknown());
            };
            if t.grant.client_id != client_id {
                return Err(oauth_error(
                    "invalid_grant",
                    "This refresh token was issued to another client.",
                ));
            }
            if t.grant.revoked_at.is_some() {
                return Err(oauth_error(
                    "invalid_grant",
                    "This grant was revoked: the person must authorize the application again.",
                ));
            }
            // Every check before the rotation: a request refused for the client's own
            // mistake (a wider scope, another resource, an expired token) must leave
            // the token as it was, or the client's next use of it would look like a
            // replay and revoke the whole grant.
            let replay = t.revoked_at.is_some();
            if !replay {
                if now >= t.expires_at {
                    return Err(oauth_error(
                        "invalid_grant",
                        "This refresh token has expired: authorize the application again.",
                    ));
                }
                resource_ok(&t.grant)?;
                if !t.grant.can_write
                    && get("scope").is_some_and(|s| s.split(' ').any(|x| x == "write"))
                {
                    return Err(oauth_error(
                        "invalid_scope",
                        "This grant is read-only: a refresh cannot widen it to write.",
                    ));
                }
            }
            // Rotation: the first use revokes the token; any later one is a replay.
            if replay
                || !store
                    .revoke_grant_token(t.id, now)
                    .await
                    .map_err(unavailable)?
            {
                store
                    .revoke_grant(t.grant.id, None, now)
                    .await
                    .map_err(unavailable)?;
                tracing::warn!(
                    grant = t.grant.id,
                    "a rotated refresh token was used again: grant revoked"
                );
                return Err(oauth_error(
                    "invalid_grant",
                    "This refresh token was already used (each use gives a new one); as it may have been stolen, the grant is revoked. Authorize the application again.",
                ));
            }
            t.grant
        }
        Some(other) => {
            return Err(oauth_error(
                "unsupported_grant_type",
                format!("grant_type “{other}”: use authorization_code or refresh_token."),
            ));
        }
        None => return Err(oauth_error("invalid_request", "grant_type is required.")),
    };
    issue(state, &grant, now).await
}

/// New access and refresh tokens for a grant.
async fn issue(state: &AppState, grant: &GrantInfo, now: i64) -> Result<Value, OAuthError> {
    let random = |p| {
        auth::new_secret(p)
            .map_err(|_| oauth_error("server_error", "The server has no random source right now."))
    };
    let access = random(auth::ACCESS_PREFIX)?;
    let refresh = random(auth::REFRESH_PREFIX)?;
    let c = &state.oauth;
    let store = state.planning.store();
    // Rows past their use go now and then: spent or expired codes, expired tokens and
    // sign-ins (an expired refresh token shown again is then unknown, refused alike).
    if let Err(e) = store.purge_expired_oauth(now).await {
        tracing::warn!(error = %e, "OAuth: expired rows not purged");
    }
    store
        .add_grant_token(
            grant.id,
            TokenKind::Access,
            &auth::token_hash(&access),
            now,
            now + c.access_ttl_ms,
        )
        .await
        .map_err(unavailable)?;
    store
        .add_grant_token(
            grant.id,
            TokenKind::Refresh,
            &auth::token_hash(&refresh),
            now,
            now + c.refresh_ttl_ms,
        )
        .await
        .map_err(unavailable)?;
    Ok(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": c.access_ttl_ms / 1000,
        "refresh_token": refresh,
        "scope": if grant.can_write { "read write" } else { "read" },
    }))
}

/// PKCE S256 (RFC 7636 §4.6): base64url(SHA-256(verifier)) == challenge, the verifier
/// 43 to 128 unreserved characters.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let shaped = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| is_b64url(b) || b == b'.' || b == b'~');
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    shaped && constant_eq(&computed, challenge)
}

/// `POST /oauth/revoke` (RFC 7009): revokes the grant of the token given (access or
/// refresh). Answers 200 also for an unknown token, as the RFC says.
async fn revoke(State(state): State<Arc<AppState>>, body: Bytes) -> Response {
    let p = match params(&body) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let Some(secret) = p.get("token").filter(|t| !t.is_empty()) else {
        return oauth_error(
            "invalid_request",
            "token is required: the access or refresh token to revoke.",
        )
        .into_response();
    };
    let kind = if auth::looks_like_secret(auth::REFRESH_PREFIX, secret) {
        TokenKind::Refresh
    } else if auth::looks_like_secret(auth::ACCESS_PREFIX, secret) {
        TokenKind::Access
    } else {
        return no_store(StatusCode::OK);
    };
    let store = state.planning.store();
    match store.grant_token(&auth::token_hash(secret), kind).await {
        Ok(Some(t)) => {
            // Only the client the token was issued to may revoke it (when it says who
            // it is); another one's request is answered the same, and changes nothing.
            if p.get("client_id").is_none_or(|c| *c == t.grant.client_id) {
                if let Err(e) = store
                    .revoke_grant(t.grant.id, None, state.planning.now_ms())
                    .await
                {
                    return unavailable(e).into_response();
                }
                tracing::info!(grant = t.grant.id, "OAuth grant revoked by its client");
            }
            no_store(StatusCode::OK)
        }
        Ok(None) => no_store(StatusCode::OK),
        Err(e) => unavailable(e).into_response(),
    }
}

// ---------------------------------------------------------------------------------
// The access check of /mcp

/// Why an OAuth access token opens nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccessRefused {
    /// Unknown, expired, or its grant revoked.
    Invalid,
    /// Issued for another resource (RFC 8707).
    OtherAudience,
}

/// The caller of an OAuth access token, and the key its MCP sessions are counted under
/// (minus the grant's id: named tokens use their own, positive, ids; refreshed access
/// tokens of one grant keep its sessions).
pub(crate) async fn access_caller(
    state: &AppState,
    secret: &str,
) -> Result<Result<(i64, Caller), AccessRefused>, StoreError> {
    let store = state.planning.store();
    let Some(t) = store
        .grant_token(&auth::token_hash(secret), TokenKind::Access)
        .await?
    else {
        return Ok(Err(AccessRefused::Invalid));
    };
    let now = state.planning.now_ms();
    if t.revoked_at.is_some() || t.grant.revoked_at.is_some() || now >= t.expires_at {
        return Ok(Err(AccessRefused::Invalid));
    }
    if t.grant.resource != state.oauth.resource() {
        return Ok(Err(AccessRefused::OtherAudience));
    }
    store.touch_grant_token(&t, now).await?;
    Ok(Ok((
        -t.grant.id,
        Caller {
            user_id: t.grant.user_id,
            can_write: t.grant.can_write,
            only_schedule: t.grant.schedule_id,
            max_role: None,
            lang: state.lang,
            apps: false,
            credential: Some(-t.grant.id),
        },
    )))
}

// ---------------------------------------------------------------------------------
// Pages

/// The page's language: `?lang=`, then the browser's preference, then the server's.
pub(crate) fn page_lang(state: &AppState, headers: &HeaderMap, asked: Option<&str>) -> Lang {
    let pick = |s: &str| {
        let s = s.trim().to_ascii_lowercase();
        if s.starts_with("en") {
            Some(Lang::En)
        } else if s.starts_with("fr") {
            Some(Lang::Fr)
        } else {
            None
        }
    };
    if let Some(l) = asked.and_then(pick) {
        return l;
    }
    let accept = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // The highest q among fr and en; the first listed wins a tie.
    let mut best: Option<(f32, Lang)> = None;
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let Some(l) = parts.next().and_then(pick) else {
            continue;
        };
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        if best.is_none_or(|(b, _)| q > b) {
            best = Some((q, l));
        }
    }
    best.map_or(state.lang, |(_, l)| l)
}

pub(crate) fn lang_tag(lang: Lang) -> &'static str {
    match lang {
        Lang::Fr => "fr",
        Lang::En => "en",
    }
}

pub(crate) fn hidden_field(name: &str, value: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
        escape_html(name),
        escape_html(value)
    )
}

fn refusal_page(state: &AppState, headers: &HeaderMap, lang: Option<Lang>, why: &str) -> Response {
    let lang = lang.unwrap_or_else(|| page_lang(state, headers, None));
    refusal_page_status(StatusCode::BAD_REQUEST, lang, why)
}

fn refusal_page_status(status: StatusCode, lang: Lang, why: &str) -> Response {
    let title = tr(
        lang,
        "Demande d'autorisation refusée",
        "Authorization request refused",
    );
    html_page(
        status,
        lang,
        &title,
        &format!("<p>{}</p>", escape_html(why)),
        None,
    )
}

/// A page of the sign-in and consent flow: no script, no framing (a consent page in
/// someone else's frame is clickjacking), nothing cached.
fn html_page(
    status: StatusCode,
    lang: Lang,
    title: &str,
    body: &str,
    cookie: Option<HeaderValue>,
) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>PalmaPlan — {title}</title><style>\
         body{{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1d2430;background:#f6f7f9}}\
         main{{max-width:30rem;margin:0 auto;background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:1.5rem}}\
         h1{{font-size:1.25rem;margin:0 0 1rem}}label{{display:block;margin:.75rem 0 .25rem}}\
         input[type=email],input[type=password],select{{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}}\
         fieldset{{border:1px solid #d9dde3;border-radius:6px;margin:1rem 0}}fieldset label{{margin:.25rem 0}}\
         .buttons{{display:flex;gap:.75rem;margin-top:1.25rem}}\
         button{{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #2457c5;background:#2457c5;color:#fff}}\
         button.secondary{{background:transparent;color:#2457c5}}\
         .note,.who{{color:#5b6472;font-size:.9rem}}code{{font-family:ui-monospace,monospace;font-size:.85rem}}.error{{color:#b3261e}}\
         @media (prefers-color-scheme:dark){{body{{background:#15181d;color:#e6e8eb}}main{{background:#1d2127;border-color:#333a44}}}}\
         </style></head><body><main><h1>{title}</h1>{body}</main></body></html>\n",
        lang = lang_tag(lang),
        title = escape_html(title),
    );
    let mut r = no_store((
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
                ),
            ),
            (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        html,
    ));
    if let Some(c) = cookie {
        r.headers_mut().append(header::SET_COOKIE, c);
    }
    r
}

/// Stores a user's password, given in clear (from `palmaplan user set-password`).
pub async fn set_password(store: &Store, user_id: i64, password: &str) -> Result<bool, String> {
    let password = password.to_owned();
    let phc = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| e.to_string())??;
    store
        .set_password_hash(user_id, &phc)
        .await
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_or_loopback_http() {
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "https://example.com/cb?x=1",
            "http://127.0.0.1:33418/callback",
            "http://localhost:8080/cb",
            "http://[::1]:9/cb",
        ] {
            assert!(check_redirect_uri(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com/cb",
            "http://127.0.0.1.evil.com/cb",
            "https://example.com/cb#frag",
            "javascript:alert(1)",
            "/relative",
            "https://user:pw@example.com/cb",
            "ftp://example.com/",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn next_is_a_local_path_only() {
        assert!(local_path("/oauth/authorize?client_id=x"));
        for bad in [
            "",
            "https://evil.example",
            "//evil.example/x",
            "/\\evil.example",
            "evil",
            "/a\nb",
            "/a\\b",
        ] {
            assert!(!local_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn pkce_s256_matches_the_rfc_example() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(&verifier.replace('d', "e"), challenge));
        assert!(!pkce_matches(challenge, challenge));
        assert!(
            !pkce_matches("short", challenge),
            "a verifier under 43 characters"
        );
    }

    #[test]
    fn passwords_hash_as_argon2id_and_verify() {
        let phc = hash_password("correct horse").unwrap();
        assert!(phc.starts_with("$argon2id$"), "{phc}");
        assert_ne!(phc, hash_password("correct horse").unwrap(), "salted");
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert!(rt.block_on(verify_password("correct horse".into(), Some(phc.clone()))));
        assert!(!rt.block_on(verify_password("wrong".into(), Some(phc))));
        assert!(
            !rt.block_on(verify_password("not a password".into(), None)),
            "no hash: never"
        );
    }

    #[test]
    fn a_flood_of_distinct_long_keys_stays_under_the_cap() {
        let a = Attempts::default();
        a.allow("ip:192.0.2.1", 0, MAX_ATTEMPTS);
        let long = "x".repeat(1000);
        for i in 0..3 * MAX_TRACKED_KEYS {
            assert!(a.allow(&format!("email:{i}{long}"), 1, MAX_ATTEMPTS));
            assert!(a.len() <= MAX_TRACKED_KEYS, "{} keys after {i}", a.len());
        }
        // The oldest window went first: the address's count starts again.
        for _ in 0..MAX_ATTEMPTS {
            assert!(a.allow("ip:192.0.2.1", 2, MAX_ATTEMPTS));
        }
        assert!(!a.allow("ip:192.0.2.1", 2, MAX_ATTEMPTS));
        // Expired windows go as time passes, without waiting for the cap.
        assert!(a.allow("ip:192.0.2.2", 2 + ATTEMPT_WINDOW_MS, MAX_ATTEMPTS));
        assert_eq!(a.len(), 1, "only the window still open");
    }

    #[test]
    fn ipv6_addresses_count_by_their_64() {
        let key = |s: &str| address_key(s.parse().unwrap());
        assert_eq!(
            key("2001:db8:1:2::1"),
            key("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_eq!(key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(
            key("::ffff:192.0.2.7"),
            "192.0.2.7",
            "IPv4 mapped into IPv6"
        );
        assert_eq!(key("192.0.2.7"), "192.0.2.7");
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"), "IPv4 addresses whole");
    }

    #[test]
    fn echoed_values_are_shortened() {
        assert_eq!(shortened("pcl_x"), "pcl_x");
        let long = "é".repeat(5000);
        let short = shortened(&long);
        assert_eq!(short.chars().count(), 201, "200 characters and an ellipsis");
        assert!(short.ends_with('…'));
        assert_eq!(
            shortened(&"a".repeat(200)),
            "a".repeat(200),
            "200 stay whole"
        );
    }

    #[test]
    fn a_newline_in_a_refusal_does_not_start_a_log_line() {
        #[derive(Clone, Default)]
        struct Buf(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Buf {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let _ = oauth_error(
                "invalid_request",
                "client “x\n2026-12-01T00:00:00Z  INFO forged”",
            )
            .into_response();
        });
        let log = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(log.lines().count(), 1, "{log}");
        assert!(log.contains("x\\n2026"), "{log}");
    }

    #[test]
    fn attempts_are_capped_per_window() {
        let a = Attempts::default();
        for _ in 0..MAX_ATTEMPTS {
            assert!(a.allow("email:x", 0, MAX_ATTEMPTS));
        }
        assert!(!a.allow("email:x", 1, MAX_ATTEMPTS));
        assert!(
            a.allow("email:y", 1, MAX_ATTEMPTS),
            "another key has its own count"
        );
        assert!(
            a.allow("email:x", ATTEMPT_WINDOW_MS, MAX_ATTEMPTS),
            "a new window"
        );
    }
}

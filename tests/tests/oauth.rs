//! OAuth 2.1 against a real server on a loopback port (`server/src/oauth.rs`): the
//! metadata a remote host reads, dynamic registration, the sign-in and consent pages
//! answered as a browser would (cookies and forms by hand, redirects not followed), the
//! token endpoint, and the MCP endpoint with the tokens it gives. The flow end to end,
//! then each refusal in a test of its own. PKCE challenges are computed here, not by
//! the server's code, so a server that computed them wrong would fail.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use base64::Engine as _;
use common::browser::{FORM, OWNER, PASSWORD, form, hidden, http, location_of as location};
use common::{TestServer, call};
use palmaplan_server::http::AppState;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// A loopback redirect URI, as native clients register (nothing listens there: the
/// tests read the redirect's `Location` instead of following it).
const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// A fresh PKCE pair (verifier, S256 challenge).
fn pkce() -> (String, String) {
    static N: AtomicU32 = AtomicU32::new(0);
    let verifier = format!(
        "verifier-{}-{}-abcdefghijklmnopqrstuvwxyz0123456789",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

/// The value of cookie `name` set by a response.
fn set_cookie(r: &reqwest::Response, name: &str) -> Option<(String, String)> {
    r.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| {
            let rest = c.strip_prefix(&format!("{name}="))?;
            Some((rest.split(';').next()?.to_owned(), c.to_owned()))
        })
}

/// The value of a hidden field of a page (our values need no unescaping).
/// The query parameters of a redirect's `Location`.
fn query_of(location: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(location)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn param(pairs: &[(String, String)], key: &str) -> Option<String> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// A server whose owner has a password, a client registered, and a signed-in browser.
struct Setup {
    server: TestServer,
    http: reqwest::Client,
    client_id: String,
    /// The browser's session cookie (`pp_session=…`).
    session: String,
}

async fn register(http: &reqwest::Client, base: &str, body: Value) -> (u16, Value) {
    let r = http
        .post(format!("{base}/oauth/register"))
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// Signs in through the page, as a browser; the `pp_session=…` cookie.
async fn sign_in(http: &reqwest::Client, base: &str, next: &str) -> String {
    let page = http
        .get(format!("{base}/oauth/signin?{}", form(&[("next", next)])))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let (pre, _) = set_cookie(&page, "pp_signin").expect("the sign-in page sets its CSRF cookie");
    let html = page.text().await.unwrap();
    let csrf = hidden(&html, "csrf");
    let r = http
        .post(format!("{base}/oauth/signin"))
        .header(COOKIE, format!("pp_signin={pre}"))
        .header(CONTENT_TYPE, FORM)
        .body(form(&[
            ("email", OWNER),
            ("password", PASSWORD),
            ("csrf", &csrf),
            ("next", next),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    assert_eq!(location(&r).as_deref(), Some(next));
    let (session, full) = set_cookie(&r, "pp_session").expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/;"] {
        assert!(full.contains(attribute), "{full}");
    }
    assert!(!full.contains("Secure"), "http: no Secure cookie ({full})");
    format!("pp_session={session}")
}

impl Setup {
    async fn start(name: &str) -> Setup {
        Setup::start_with(name, |_| {}).await
    }

    async fn start_with(name: &str, tweak: impl FnOnce(&mut AppState)) -> Setup {
        let server = TestServer::start_with(name, tweak).await;
        palmaplan_server::oauth::set_password(&server.store, server.owner_id, PASSWORD)
            .await
            .unwrap();
        let http = http();
        let (status, reg) = register(
            &http,
            &server.base,
            json!({"client_name": "Claude", "redirect_uris": [REDIRECT]}),
        )
        .await;
        assert_eq!(status, 201, "{reg}");
        let client_id = reg["client_id"].as_str().unwrap().to_owned();
        let session = sign_in(&http, &server.base, "/oauth/authorize").await;
        Setup {
            server,
            http,
            client_id,
            session,
        }
    }

    /// An authorization request's parameters; `changes` replace (or, empty, remove) some.
    fn request(&self, challenge: &str, changes: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut pairs: Vec<(String, String)> = [
            ("response_type", "code"),
            ("client_id", &self.client_id),
            ("redirect_uri", REDIRECT),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
            ("state", "st-42"),
            ("resource", &self.server.url),
            ("scope", "read write"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for (k, v) in changes {
            pairs.retain(|(key, _)| key != k);
            if !v.is_empty() {
                pairs.push((k.to_string(), v.to_string()));
            }
        }
        pairs
    }

    fn query(pairs: &[(String, String)]) -> String {
        let refs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        form(&refs)
    }

    /// `GET /oauth/authorize` with the browser's session.
    async fn authorize_get(&self, pairs: &[(String, String)]) -> reqwest::Response {
        self.http
            .get(format!(
                "{}/oauth/authorize?{}",
                self.server.base,
                Setup::query(pairs)
            ))
            .header(COOKIE, &self.session)
            .send()
            .await
            .unwrap()
    }

    /// The consent page's CSRF token for this request.
    async fn consent_csrf(&self, pairs: &[(String, String)]) -> String {
        let page = self.authorize_get(pairs).await;
        assert_eq!(page.status(), 200);
        hidden(&page.text().await.unwrap(), "csrf")
    }

    /// The consent form posted with these answers (`csrf` None: left out).
    async fn consent_post(
        &self,
        pairs: &[(String, String)],
        csrf: Option<&str>,
        answers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut all = pairs.to_vec();
        if let Some(c) = csrf {
            all.push(("csrf".into(), c.into()));
        }
        all.extend(answers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        self.http
            .post(format!("{}/oauth/authorize", self.server.base))
            .header(COOKIE, &self.session)
            .header(CONTENT_TYPE, FORM)
            .body(Setup::query(&all))
            .send()
            .await
            .unwrap()
    }

    /// Allows the request with these answers; the code the redirect carries.
    async fn code_with(&self, challenge: &str, answers: &[(&str, &str)]) -> String {
        let pairs = self.request(challenge, &[]);
        let csrf = self.consent_csrf(&pairs).await;
        let mut all = vec![("decision", "allow")];
        all.extend_from_slice(answers);
        let r = self.consent_post(&pairs, Some(&csrf), &all).await;
        assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
        let to = location(&r).unwrap();
        assert!(to.starts_with(REDIRECT), "{to}");
        let q = query_of(&to);
        assert_eq!(
            param(&q, "state").as_deref(),
            Some("st-42"),
            "state comes back"
        );
        assert_eq!(param(&q, "iss").as_deref(), Some(self.server.base.as_str()));
        param(&q, "code").expect("a code")
    }

    async fn code(&self, challenge: &str) -> String {
        self.code_with(challenge, &[("access", "write"), ("schedule", "")])
            .await
    }

    async fn token(&self, pairs: &[(&str, &str)]) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/oauth/token", self.server.base))
            .header(CONTENT_TYPE, FORM)
            .body(form(pairs))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        if status == 200 {
            assert_eq!(
                r.headers().get("cache-control").unwrap(),
                "no-store",
                "tokens are not cached"
            );
        }
        (status, r.json().await.unwrap())
    }

    async fn exchange(&self, code: &str, verifier: &str) -> (u16, Value) {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("client_id", &self.client_id),
            ("code_verifier", verifier),
            ("resource", &self.server.url),
        ])
        .await
    }

    async fn refresh(&self, refresh: &str) -> (u16, Value) {
        self.token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", &self.client_id),
            ("resource", &self.server.url),
        ])
        .await
    }

    /// A full authorization with these consent answers: (access, refresh) tokens.
    async fn tokens_with(&self, answers: &[(&str, &str)]) -> (String, String) {
        let (verifier, challenge) = pkce();
        let code = self.code_with(&challenge, answers).await;
        let (status, t) = self.exchange(&code, &verifier).await;
        assert_eq!(status, 200, "{t}");
        (
            t["access_token"].as_str().unwrap().to_owned(),
            t["refresh_token"].as_str().unwrap().to_owned(),
        )
    }

    async fn tokens(&self) -> (String, String) {
        self.tokens_with(&[("access", "write"), ("schedule", "")])
            .await
    }

    /// The status of an MCP `initialize` with this Bearer token, and its challenge.
    async fn mcp_status(&self, token: &str) -> (u16, String) {
        mcp_status(&self.http, &self.server, Some(token)).await
    }
}

async fn mcp_status(
    http: &reqwest::Client,
    server: &TestServer,
    token: Option<&str>,
) -> (u16, String) {
    let mut req = http
        .post(&server.url)
        .header(CONTENT_TYPE, "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#);
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let r = req.send().await.unwrap();
    let challenge = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (r.status().as_u16(), challenge)
}

fn assert_oauth_error(status: u16, body: &Value, error: &str, mentions: &str) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], error, "{body}");
    let d = body["error_description"].as_str().unwrap();
    assert!(d.contains(mentions), "{d}");
}

// ---------------------------------------------------------------------------------
// Discovery

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_is_served_and_every_401_names_it() {
    let server = TestServer::start("oauth-meta").await;
    let http = http();
    let base = &server.base;
    // RFC 9728 §3.3: the resource of each document is the address it was found from,
    // the origin at the root; every 401 names the /mcp one.
    for (path, resource) in [
        ("/.well-known/oauth-protected-resource", base.as_str()),
        (
            "/.well-known/oauth-protected-resource/mcp",
            server.url.as_str(),
        ),
    ] {
        let prm: Value = http
            .get(format!("{base}{path}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(prm["resource"], resource, "{path}");
        assert_eq!(prm["authorization_servers"], json!([base]));
        assert_eq!(prm["scopes_supported"], json!(["read", "write"]));
    }
    let r = http
        .get(format!("{base}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let asm: Value = r.json().await.unwrap();
    assert_eq!(asm["issuer"], *base);
    for (key, path) in [
        ("authorization_endpoint", "/oauth/authorize"),
        ("token_endpoint", "/oauth/token"),
        ("registration_endpoint", "/oauth/register"),
        ("revocation_endpoint", "/oauth/revoke"),
    ] {
        assert_eq!(asm[key], format!("{base}{path}"), "{key}");
    }
    assert_eq!(asm["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(asm["response_types_supported"], json!(["code"]));
    assert_eq!(
        asm["grant_types_supported"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(
        asm["token_endpoint_auth_methods_supported"],
        json!(["none"])
    );
    assert_eq!(asm["scopes_supported"], json!(["read", "write"]));

    let expected = format!("resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"");
    let (status, challenge) = mcp_status(&http, &server, None).await;
    assert_eq!(status, 401);
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(challenge.contains(&expected), "{challenge}");
    assert!(
        !challenge.contains("error="),
        "no credentials: the bare challenge ({challenge})"
    );
    let unknown = format!("ppa_{}", "0".repeat(64));
    for token in [unknown.as_str(), "ppt_short", "garbage"] {
        let (status, challenge) = mcp_status(&http, &server, Some(token)).await;
        assert_eq!(status, 401, "{token}");
        assert!(challenge.contains(&expected), "{challenge}");
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    }
    server.stop().await;
}

// ---------------------------------------------------------------------------------
// The flow end to end

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_flow_gives_tokens_that_call_tools_refresh_and_revoke() {
    let s = Setup::start("oauth-flow").await;
    // Not signed in: the authorization request goes to the sign-in page, with the
    // request as a local `next`.
    let (verifier, challenge) = pkce();
    let pairs = s.request(&challenge, &[]);
    let anonymous = s
        .http
        .get(format!(
            "{}/oauth/authorize?{}",
            s.server.base,
            Setup::query(&pairs)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 303);
    let to = location(&anonymous).unwrap();
    assert!(
        to.starts_with("/oauth/signin?next=%2Foauth%2Fauthorize%3F"),
        "{to}"
    );

    let code = s.code(&challenge).await;
    let (status, t) = s.exchange(&code, &verifier).await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "read write");
    assert_eq!(t["expires_in"], 3600);
    let access = t["access_token"].as_str().unwrap();
    let refresh = t["refresh_token"].as_str().unwrap();
    assert!(
        access.starts_with("ppa_") && refresh.starts_with("ppr_"),
        "{t}"
    );

    let client = s.server.client_with(access).await.unwrap();
    let list = call(&client, "list_schedules", json!({})).await;
    assert!(!list.is_error, "{}", list.text);
    assert_eq!(list.structured["schedules"][0]["id"], s.server.demo_id);
    let renamed = call(
        &client,
        "update_settings",
        json!({"schedule": s.server.demo_id, "name": "Renommé par OAuth"}),
    )
    .await;
    assert!(
        !renamed.is_error,
        "read+write was allowed: {}",
        renamed.text
    );

    // A refresh gives new tokens; both work, the MCP session goes on.
    let (status, t2) = s.refresh(refresh).await;
    assert_eq!(status, 200, "{t2}");
    let access2 = t2["access_token"].as_str().unwrap();
    assert_ne!(access2, access);
    assert_ne!(t2["refresh_token"], t["refresh_token"], "rotated");
    let client2 = s.server.client_with(access2).await.unwrap();
    assert!(!call(&client2, "list_schedules", json!({})).await.is_error);

    // The grant is listed for the person, with its client's name.
    let grants = s.server.store.grants(s.server.owner_id).await.unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(
        (grants[0].client_name.as_str(), grants[0].can_write),
        ("Claude", true)
    );
    assert!(grants[0].last_used_at.is_some(), "last use recorded");

    // Revoking the refresh token revokes the grant: every token of it fails at once,
    // the open session included.
    let r = s
        .http
        .post(format!("{}/oauth/revoke", s.server.base))
        .header(CONTENT_TYPE, FORM)
        .body(form(&[
            ("token", t2["refresh_token"].as_str().unwrap()),
            ("client_id", &s.client_id),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    for token in [access, access2] {
        assert_eq!(s.mcp_status(token).await.0, 401, "revoked");
    }
    let mut params = rmcp::model::CallToolRequestParams::new("list_schedules");
    params = params.with_arguments(serde_json::Map::new());
    assert!(
        client2.call_tool(params).await.is_err(),
        "an open session stops at once"
    );
    let (status, body) = s.refresh(t2["refresh_token"].as_str().unwrap()).await;
    assert_oauth_error(status, &body, "invalid_grant", "revoked");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_one_schedule_grant_is_gated_as_the_same_named_token() {
    let s = Setup::start("oauth-gate").await;
    let store = &s.server.store;
    let other = store
        .create_schedule(
            &palmaplan_model::Schedule::new("Autre"),
            s.server.owner_id,
            2,
        )
        .await
        .unwrap();
    let demo = s.server.demo_id.to_string();
    let (access, refresh) = s
        .tokens_with(&[("access", "read"), ("schedule", &demo)])
        .await;
    let named = palmaplan_server::bootstrap::create_token(
        store,
        s.server.owner_id,
        "same limits",
        false,
        Some(s.server.demo_id),
        3,
    )
    .await
    .unwrap();
    let oauth = s.server.client_with(&access).await.unwrap();
    let token = s.server.client_with(&named.secret).await.unwrap();
    let calls = [
        ("list_schedules", json!({})),
        ("get_schedule", json!({"schedule": s.server.demo_id})),
        ("get_schedule", json!({"schedule": other})),
        (
            "update_settings",
            json!({"schedule": s.server.demo_id, "name": "Non"}),
        ),
        ("update_settings", json!({"schedule": other, "name": "Non"})),
    ];
    let mut refused = 0;
    for (tool, args) in calls {
        let a = call(&oauth, tool, args.clone()).await;
        let b = call(&token, tool, args.clone()).await;
        assert_eq!(
            a.is_error, b.is_error,
            "{tool} {args}: {} / {}",
            a.text, b.text
        );
        assert_eq!(
            a.structured.get("code"),
            b.structured.get("code"),
            "{tool} {args}"
        );
        refused += usize::from(a.is_error);
    }
    assert_eq!(refused, 3, "the other schedule, and every write");
    // A read-only grant cannot be widened by a refresh.
    let (status, body) = s
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("client_id", &s.client_id),
            ("scope", "read write"),
        ])
        .await;
    assert_oauth_error(status, &body, "invalid_scope", "read-only");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn named_tokens_keep_working_beside_oauth() {
    let s = Setup::start("oauth-named").await;
    let (access, _) = s.tokens().await;
    let named = s.server.client().await;
    assert!(!call(&named, "list_schedules", json!({})).await.is_error);
    assert_eq!(s.mcp_status(&s.server.token).await.0, 200);
    // Revoking every grant leaves named tokens alone, and the other way round.
    for g in s.server.store.grants(s.server.owner_id).await.unwrap() {
        s.server.store.revoke_grant(g.id, None, 5).await.unwrap();
    }
    assert_eq!(s.mcp_status(&access).await.0, 401);
    assert_eq!(s.mcp_status(&s.server.token).await.0, 200);
    let (access, _) = s.tokens().await;
    let t = s.server.store.tokens(s.server.owner_id).await.unwrap();
    s.server
        .store
        .revoke_token(s.server.owner_id, t[0].id, 6)
        .await
        .unwrap();
    assert_eq!(s.mcp_status(&s.server.token).await.0, 401);
    assert_eq!(s.mcp_status(&access).await.0, 200);
    s.server.stop().await;
}

// ---------------------------------------------------------------------------------
// Registration

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_takes_https_or_loopback_redirect_uris_only() {
    let server = TestServer::start("oauth-register").await;
    let http = http();
    let (status, ok) = register(
        &http,
        &server.base,
        json!({
            "client_name": "ChatGPT",
            "redirect_uris": ["https://chatgpt.com/connector_platform_oauth_redirect", "http://localhost:3000/cb"],
            "token_endpoint_auth_method": "client_secret_basic",
        }),
    )
    .await;
    assert_eq!(status, 201, "{ok}");
    assert_eq!(
        ok["token_endpoint_auth_method"], "none",
        "public clients only"
    );
    assert_eq!(
        ok["grant_types"],
        json!(["authorization_code", "refresh_token"])
    );
    let stored = server
        .store
        .client(ok["client_id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.name, "ChatGPT");
    assert_eq!(stored.redirect_uris.len(), 2);
    for (body, error) in [
        (
            json!({"redirect_uris": ["http://evil.example/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["https://a.example/cb#x"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["javascript:alert(1)"]}),
            "invalid_redirect_uri",
        ),
        (json!({"redirect_uris": []}), "invalid_redirect_uri"),
        (json!({"client_name": "x"}), "invalid_redirect_uri"),
        (
            json!({"redirect_uris": [REDIRECT], "grant_types": ["password"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "response_types": ["token"]}),
            "invalid_client_metadata",
        ),
        (json!(["not an object"]), "invalid_client_metadata"),
    ] {
        let (status, e) = register(&http, &server.base, body.clone()).await;
        assert_eq!(status, 400, "{body}: {e}");
        assert_eq!(e["error"], error, "{body}: {e}");
        assert!(!e["error_description"].as_str().unwrap().is_empty());
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_name_loses_its_control_and_format_characters() {
    // A right-to-left override makes "Claude\u{202E}exe.gnp" read "Claudepng.exe";
    // zero-width and bidi isolate characters make look-alike names.
    let s = Setup::start("oauth-client-name").await;
    let (status, reg) = register(
        &s.http,
        &s.server.base,
        json!({
            "client_name": "Cla\u{200B}ude\u{202E}exe.gnp\u{2066}\u{2069}\u{FEFF}\u{7}",
            "redirect_uris": [REDIRECT],
        }),
    )
    .await;
    assert_eq!(status, 201, "{reg}");
    assert_eq!(reg["client_name"], "Claudeexe.gnp");
    let (_, challenge) = pkce();
    let client_id = reg["client_id"].as_str().unwrap();
    let page = s
        .authorize_get(&s.request(&challenge, &[("client_id", client_id)]))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<strong><bdi>Claudeexe.gnp</bdi></strong>"),
        "{page}"
    );
    s.server.stop().await;
}

// ---------------------------------------------------------------------------------
// Refusals of the authorization and token endpoints

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_wrong_pkce_verifier_is_refused() {
    let s = Setup::start("oauth-verifier").await;
    let (_, challenge) = pkce();
    let code = s.code(&challenge).await;
    let (status, body) = s
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", &s.client_id),
        ])
        .await;
    assert_oauth_error(status, &body, "invalid_request", "code_verifier");

    let (other_verifier, _) = pkce();
    let (status, body) = s.exchange(&code, &other_verifier).await;
    assert_oauth_error(
        status,
        &body,
        "invalid_grant",
        "code_verifier does not match",
    );
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_pkce_or_none_is_refused_at_the_redirect_uri() {
    let s = Setup::start("oauth-plain").await;
    let (verifier, _) = pkce();
    for changes in [
        vec![
            ("code_challenge_method", "plain"),
            ("code_challenge", verifier.as_str()),
        ],
        vec![("code_challenge_method", "")],
        vec![("code_challenge", "")],
    ] {
        let r = s.authorize_get(&s.request(&verifier, &changes)).await;
        assert_eq!(r.status(), 303, "{changes:?}");
        let to = location(&r).unwrap();
        assert!(to.starts_with(REDIRECT), "{to}");
        let q = query_of(&to);
        assert_eq!(
            param(&q, "error").as_deref(),
            Some("invalid_request"),
            "{changes:?}"
        );
        assert_eq!(param(&q, "state").as_deref(), Some("st-42"));
        assert!(param(&q, "code").is_none());
    }
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_request_is_not_redirected_before_sign_in() {
    // Anyone can register an https redirect URI: redirecting errors there before the
    // person signs in would bounce a victim's click to any site (RFC 9700 §4.11.2).
    let s = Setup::start("oauth-no-bounce").await;
    let (verifier, challenge) = pkce();
    for (changes, error) in [
        (
            vec![("response_type", "token")],
            "unsupported_response_type",
        ),
        (
            vec![
                ("code_challenge_method", "plain"),
                ("code_challenge", verifier.as_str()),
            ],
            "invalid_request",
        ),
        (vec![("code_challenge", "")], "invalid_request"),
        (
            vec![("resource", "https://other.example/mcp")],
            "invalid_target",
        ),
    ] {
        let pairs = s.request(&challenge, &changes);
        let r = s
            .http
            .get(format!(
                "{}/oauth/authorize?{}",
                s.server.base,
                Setup::query(&pairs)
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{changes:?}");
        assert!(location(&r).is_none(), "not redirected: {changes:?}");
        let page = r.text().await.unwrap();
        assert!(page.contains(error), "{page}");
        // Signed in, the same request goes back to the client with its error.
        let r = s.authorize_get(&pairs).await;
        assert_eq!(r.status(), 303, "{changes:?}");
        let q = query_of(&location(&r).unwrap());
        assert_eq!(param(&q, "error").as_deref(), Some(error), "{changes:?}");
    }
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unregistered_redirect_uri_is_refused_on_our_page() {
    let s = Setup::start("oauth-redirect").await;
    let (_, challenge) = pkce();
    for uri in [
        "https://evil.example/callback",
        "http://127.0.0.1:9/callback/",
        "http://127.0.0.1:9/callback?x=1",
        "http://127.0.0.1:10/callback",
    ] {
        let pairs = s.request(&challenge, &[("redirect_uri", uri)]);
        let r = s.authorize_get(&pairs).await;
        assert_eq!(r.status(), 400, "{uri}");
        assert!(location(&r).is_none(), "never redirected to {uri}");
        let page = r.text().await.unwrap();
        assert!(
            page.contains("adresse de retour enregistrée")
                || page.contains("not one the client registered"),
            "{page}"
        );
        // Nor by posting the consent form with it.
        let csrf = s.consent_csrf(&s.request(&challenge, &[])).await;
        let r = s
            .consent_post(
                &pairs,
                Some(&csrf),
                &[("decision", "allow"), ("access", "read")],
            )
            .await;
        assert_eq!(r.status(), 400, "{uri}");
        assert!(location(&r).is_none(), "never redirected to {uri}");
    }
    // An unknown client is not redirected either.
    let r = s
        .authorize_get(&s.request(&challenge, &[("client_id", "pcl_unknown")]))
        .await;
    assert_eq!(r.status(), 400);
    assert!(location(&r).is_none());
    // What the page echoes of the request is cut to 200 characters.
    let long_id = format!("pcl_{}", "7".repeat(3000));
    let long_uri = format!("{REDIRECT}/{}", "8".repeat(3000));
    let long_resource = format!("https://other.example/{}", "9".repeat(3000));
    for changes in [
        [("client_id", long_id.as_str())],
        [("redirect_uri", long_uri.as_str())],
        [("resource", long_resource.as_str())],
    ] {
        // Without the session, so that the resource's refusal is shown here too.
        let r = s
            .http
            .get(format!(
                "{}/oauth/authorize?{}",
                s.server.base,
                Setup::query(&s.request(&challenge, &changes))
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let page = r.text().await.unwrap();
        assert!(page.contains("…"), "{page}");
        for digit in ["7", "8", "9"] {
            assert!(!page.contains(&digit.repeat(250)), "{page}");
        }
    }
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_used_twice_is_refused_and_revokes_what_it_gave() {
    let s = Setup::start("oauth-twice").await;
    let (verifier, challenge) = pkce();
    let code = s.code(&challenge).await;
    let (status, t) = s.exchange(&code, &verifier).await;
    assert_eq!(status, 200, "{t}");
    let access = t["access_token"].as_str().unwrap();
    assert_eq!(s.mcp_status(access).await.0, 200);
    let (status, body) = s.exchange(&code, &verifier).await;
    assert_oauth_error(status, &body, "invalid_grant", "already used");
    assert_eq!(
        s.mcp_status(access).await.0,
        401,
        "the first exchange's tokens are revoked"
    );
    let (status, body) = s.refresh(t["refresh_token"].as_str().unwrap()).await;
    assert_oauth_error(status, &body, "invalid_grant", "revoked");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_code_is_refused() {
    // Codes that expire as they are made, instead of a 60-second wait.
    let s = Setup::start_with("oauth-expired", |state| state.oauth.code_ttl_ms = 0).await;
    let (verifier, challenge) = pkce();
    let code = s.code(&challenge).await;
    let (status, body) = s.exchange(&code, &verifier).await;
    assert_oauth_error(status, &body, "invalid_grant", "expired");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_code_lifetime_is_at_most_a_minute() {
    let mut ttl = None;
    let s = Setup::start_with("oauth-lifetime", |state| {
        ttl = Some(state.oauth.code_ttl_ms)
    })
    .await;
    let ttl = ttl.unwrap();
    assert!(ttl > 0 && ttl <= 60_000, "codes live {ttl} ms");
    let before = s
        .server
        .store
        .grants(s.server.owner_id)
        .await
        .unwrap()
        .len();
    let (verifier, challenge) = pkce();
    let code = s.code(&challenge).await;
    assert_eq!(
        s.server
            .store
            .grants(s.server.owner_id)
            .await
            .unwrap()
            .len(),
        before + 1
    );
    let (status, _) = s.exchange(&code, &verifier).await;
    assert_eq!(status, 200, "a fresh code is accepted");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_for_another_audience_is_refused() {
    let s = Setup::start("oauth-audience").await;
    let (verifier, challenge) = pkce();
    // Asking for another resource is refused at the redirect URI (RFC 8707).
    let r = s
        .authorize_get(&s.request(&challenge, &[("resource", "https://other.example/mcp")]))
        .await;
    assert_eq!(r.status(), 303);
    let q = query_of(&location(&r).unwrap());
    assert_eq!(param(&q, "error").as_deref(), Some("invalid_target"));
    // And at the token endpoint.
    let code = s.code(&challenge).await;
    let (status, body) = s
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &s.client_id),
            ("code_verifier", &verifier),
            ("resource", "https://other.example/mcp"),
        ])
        .await;
    assert_oauth_error(status, &body, "invalid_target", "https://other.example/mcp");

    // A token issued for this server's resource, shown to a server on the same
    // database whose public URL (so resource) is another: refused.
    let (access, _) = s.tokens().await;
    assert_eq!(s.mcp_status(&access).await.0, 200);
    let elsewhere = TestServer::start_on_with(
        &s.server.db_url,
        s.server.token.clone(),
        s.server.owner_id,
        s.server.demo_id,
        |state| state.oauth = palmaplan_server::oauth::OAuthConfig::new("https://plan.example.com"),
    )
    .await;
    let (status, challenge) = mcp_status(&s.http, &elsewhere, Some(&access)).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("resource_metadata=\"https://plan.example.com/.well-known/oauth-protected-resource/mcp\""), "{challenge}");
    assert_eq!(
        mcp_status(&s.http, &elsewhere, Some(&s.server.token))
            .await
            .0,
        200,
        "named tokens have no audience"
    );
    elsewhere.stop().await;
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_grant_fails_at_once() {
    let s = Setup::start("oauth-revoked").await;
    let (access, refresh) = s.tokens().await;
    assert_eq!(s.mcp_status(&access).await.0, 200);
    // A link asked for under the grant.
    let client = s.server.client_with(&access).await.unwrap();
    let shown = common::call(
        &client,
        "show_schedule",
        serde_json::json!({"schedule": s.server.demo_id}),
    )
    .await;
    let link = shown.structured["url"].as_str().unwrap().to_owned();
    assert_eq!(s.http.get(&link).send().await.unwrap().status(), 200);
    // As `palmaplan grant revoke` does.
    let grant = s.server.store.grants(s.server.owner_id).await.unwrap()[0].id;
    assert!(
        s.server
            .store
            .revoke_grant(grant, Some(s.server.owner_id), 9)
            .await
            .unwrap()
    );
    assert_eq!(s.mcp_status(&access).await.0, 401);
    assert_eq!(
        s.http.get(&link).send().await.unwrap().status(),
        401,
        "its links end with it"
    );
    let (status, body) = s.refresh(&refresh).await;
    assert_oauth_error(status, &body, "invalid_grant", "revoked");
    // Revoking an access token through the endpoint revokes its grant too.
    let (access, refresh) = s.tokens().await;
    let r = s
        .http
        .post(format!("{}/oauth/revoke", s.server.base))
        .header(CONTENT_TYPE, FORM)
        .body(form(&[
            ("token", &access),
            ("token_type_hint", "access_token"),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(s.mcp_status(&access).await.0, 401);
    assert_eq!(s.refresh(&refresh).await.0, 400);
    // Another client's revocation changes nothing; an unknown token gets 200 (RFC 7009).
    let (access, _) = s.tokens().await;
    for (token, client) in [(access.as_str(), "pcl_someone_else"), ("ppr_nothing", "x")] {
        let r = s
            .http
            .post(format!("{}/oauth/revoke", s.server.base))
            .header(CONTENT_TYPE, FORM)
            .body(form(&[("token", token), ("client_id", client)]))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    assert_eq!(s.mcp_status(&access).await.0, 200);
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_token_reused_after_rotation_revokes_the_grant() {
    let s = Setup::start("oauth-rotation").await;
    let (_, old) = s.tokens().await;
    let (status, t) = s.refresh(&old).await;
    assert_eq!(status, 200, "{t}");
    let access = t["access_token"].as_str().unwrap();
    let new = t["refresh_token"].as_str().unwrap();
    assert_eq!(s.mcp_status(access).await.0, 200);
    let (status, body) = s.refresh(&old).await;
    assert_oauth_error(status, &body, "invalid_grant", "already used");
    assert_eq!(
        s.mcp_status(access).await.0,
        401,
        "the whole grant is revoked"
    );
    let (status, body) = s.refresh(new).await;
    assert_oauth_error(status, &body, "invalid_grant", "revoked");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_refused_for_the_clients_mistake_spends_nothing() {
    // Spending the code or rotating the refresh token before the checks would make the
    // corrected retry look like a replay, and revoke the grant.
    let s = Setup::start("oauth-mistakes").await;
    let (verifier, challenge) = pkce();
    let code = s.code_with(&challenge, &[("access", "read")]).await;
    let (wrong_verifier, _) = pkce();
    for (key, value, error) in [
        ("resource", "https://other.example/mcp", "invalid_target"),
        ("redirect_uri", "http://127.0.0.1:9/other", "invalid_grant"),
        ("code_verifier", wrong_verifier.as_str(), "invalid_grant"),
    ] {
        let mut pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("client_id", s.client_id.as_str()),
            ("code_verifier", verifier.as_str()),
            ("resource", s.server.url.as_str()),
        ];
        pairs.retain(|(k, _)| *k != key);
        pairs.push((key, value));
        let (status, body) = s.token(&pairs).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some(error)),
            "{key}: {body}"
        );
    }
    let (status, t) = s.exchange(&code, &verifier).await;
    assert_eq!(status, 200, "the code is still good: {t}");
    let refresh = t["refresh_token"].as_str().unwrap();
    for (key, value, error) in [
        ("scope", "read write", "invalid_scope"),
        ("resource", "https://other.example/mcp", "invalid_target"),
    ] {
        let (status, body) = s
            .token(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh),
                ("client_id", &s.client_id),
                (key, value),
            ])
            .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some(error)),
            "{key}: {body}"
        );
    }
    let (status, t2) = s.refresh(refresh).await;
    assert_eq!(status, 200, "the refresh token is still good: {t2}");
    assert_eq!(
        s.mcp_status(t2["access_token"].as_str().unwrap()).await.0,
        200
    );
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_refresh_token_is_refused_without_rotating() {
    let s = Setup::start_with("oauth-refresh-expired", |state| {
        state.oauth.refresh_ttl_ms = 0
    })
    .await;
    let (_, refresh) = s.tokens().await;
    let (status, body) = s.refresh(&refresh).await;
    assert_oauth_error(status, &body, "invalid_grant", "expired");
    let t = s
        .server
        .store
        .grant_token(
            &palmaplan_server::auth::token_hash(&refresh),
            palmaplan_server::storage::TokenKind::Refresh,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(t.revoked_at, None, "not rotated");
    assert_eq!(t.grant.revoked_at, None, "the grant lives");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consent_form_without_its_csrf_token_is_refused() {
    let s = Setup::start("oauth-csrf").await;
    let (_, challenge) = pkce();
    let pairs = s.request(&challenge, &[]);
    let answers = [("decision", "allow"), ("access", "write")];
    for csrf in [None, Some(""), Some("0123456789abcdef")] {
        let r = s.consent_post(&pairs, csrf, &answers).await;
        assert_eq!(r.status(), 403, "{csrf:?}");
        assert!(location(&r).is_none(), "no code for a forged form");
    }
    // The token of another session does not pass either.
    let other = sign_in(&s.http, &s.server.base, "/oauth/authorize").await;
    let theirs = {
        let page = s
            .http
            .get(format!(
                "{}/oauth/authorize?{}",
                s.server.base,
                Setup::query(&pairs)
            ))
            .header(COOKIE, &other)
            .send()
            .await
            .unwrap();
        hidden(&page.text().await.unwrap(), "csrf")
    };
    assert_eq!(
        s.consent_post(&pairs, Some(&theirs), &answers)
            .await
            .status(),
        403
    );
    assert!(
        s.server
            .store
            .grants(s.server.owner_id)
            .await
            .unwrap()
            .is_empty(),
        "nothing granted"
    );
    // Without a session at all: no grant either.
    let r = s
        .http
        .post(format!("{}/oauth/authorize", s.server.base))
        .header(CONTENT_TYPE, FORM)
        .body(Setup::query(&pairs))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(location(&r).is_none());
    // Denying sends access_denied back, with the state.
    let csrf = s.consent_csrf(&pairs).await;
    let r = s
        .consent_post(&pairs, Some(&csrf), &[("decision", "deny")])
        .await;
    let q = query_of(&location(&r).unwrap());
    assert_eq!(param(&q, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&q, "state").as_deref(), Some("st-42"));
    assert!(
        s.server
            .store
            .grants(s.server.owner_id)
            .await
            .unwrap()
            .is_empty()
    );
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_refuses_forged_forms_wrong_passwords_and_floods() {
    let server = TestServer::start("oauth-signin").await;
    palmaplan_server::oauth::set_password(&server.store, server.owner_id, PASSWORD)
        .await
        .unwrap();
    let http = http();
    let post = |cookie: Option<String>, fields: Vec<(&'static str, String)>| {
        let http = http.clone();
        let url = format!("{}/oauth/signin", server.base);
        async move {
            let mut req = http.post(url).header(CONTENT_TYPE, FORM);
            if let Some(c) = cookie {
                req = req.header(COOKIE, c);
            }
            let refs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            req.body(form(&refs)).send().await.unwrap()
        }
    };
    let fields = |password: &str, csrf: &str| {
        vec![
            ("email", OWNER.to_string()),
            ("password", password.to_string()),
            ("csrf", csrf.to_string()),
            ("next", "/oauth/authorize".to_string()),
        ]
    };
    // No CSRF cookie, or one that is not the form's: refused, no session.
    let r = post(None, fields(PASSWORD, "abc")).await;
    assert_eq!(r.status(), 403);
    assert!(set_cookie(&r, "pp_session").is_none());
    let r = post(Some("pp_signin=abd".into()), fields(PASSWORD, "abc")).await;
    assert_eq!(r.status(), 403);
    // A wrong password, or an e-mail without one.
    let r = post(
        Some("pp_signin=abc".into()),
        fields("wrong password", "abc"),
    )
    .await;
    assert_eq!(r.status(), 401);
    assert!(set_cookie(&r, "pp_session").is_none());
    let mut nobody = fields(PASSWORD, "abc");
    nobody[0].1 = "nobody@example.org".into();
    assert_eq!(
        post(Some("pp_signin=abc".into()), nobody).await.status(),
        401
    );
    // Ten attempts per address (and per e-mail) in a window: these make eleven from
    // this address, and the right password no longer helps.
    for _ in 0..8 {
        post(
            Some("pp_signin=abc".into()),
            fields("wrong password", "abc"),
        )
        .await;
    }
    let r = post(Some("pp_signin=abc".into()), fields(PASSWORD, "abc")).await;
    assert_eq!(r.status(), 429);
    assert!(set_cookie(&r, "pp_session").is_none());
    let page = r.text().await.unwrap();
    assert!(page.contains("Trop de tentatives"), "{page}");
    // Another e-mail from the same address is held back too.
    let mut other = fields(PASSWORD, "abc");
    other[0].1 = "someone@example.org".into();
    assert_eq!(
        post(Some("pp_signin=abc".into()), other).await.status(),
        429
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_address_adds_no_more_counters() {
    // Each browser comes from its own loopback address (Linux routes all of 127/8).
    let server = TestServer::start("oauth-signin-flood").await;
    palmaplan_server::oauth::set_password(&server.store, server.owner_id, PASSWORD)
        .await
        .unwrap();
    let from = |last: u8| {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .local_address(std::net::IpAddr::from([127, 0, 0, last]))
            .build()
            .unwrap()
    };
    let post = |http: reqwest::Client, email: String, password: &'static str| {
        let url = format!("{}/oauth/signin", server.base);
        async move {
            http.post(url)
                .header(COOKIE, "pp_signin=abc")
                .header(CONTENT_TYPE, FORM)
                .body(form(&[
                    ("email", &email),
                    ("password", password),
                    ("csrf", "abc"),
                    ("next", "/oauth/authorize"),
                ]))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    let attacker = from(2);
    for i in 0..palmaplan_server::oauth::MAX_ATTEMPTS {
        // Long invented addresses, one over the 254-byte limit of an e-mail.
        let email = format!("{i}{}@example.org", "x".repeat(200 + 20 * (i as usize % 3)));
        assert_eq!(post(attacker.clone(), email, "wrong").await, 401, "{i}");
    }
    // The address is over its limit: the owner's e-mail, tried from it, is refused
    // and, the address being blocked, not counted against the owner.
    for _ in 0..2 * palmaplan_server::oauth::MAX_ATTEMPTS {
        assert_eq!(post(attacker.clone(), OWNER.into(), "wrong").await, 429);
    }
    assert_eq!(
        post(from(3), OWNER.into(), PASSWORD).await,
        303,
        "the owner signs in from another address"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_forwarded_address_is_counted() {
    // 127.0.0.1 plays the proxy; 127.0.0.2 is a peer that is not trusted.
    let server = TestServer::start_with("oauth-proxy", |state| {
        state.trusted_proxies = vec!["127.0.0.1".parse().unwrap()]
    })
    .await;
    palmaplan_server::oauth::set_password(&server.store, server.owner_id, PASSWORD)
        .await
        .unwrap();
    let from = |last: u8| {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .local_address(std::net::IpAddr::from([127, 0, 0, last]))
            .build()
            .unwrap()
    };
    let post =
        |http: reqwest::Client, forwarded: &'static str, email: String, password: &'static str| {
            let url = format!("{}/oauth/signin", server.base);
            async move {
                http.post(url)
                    .header(COOKIE, "pp_signin=abc")
                    .header(CONTENT_TYPE, FORM)
                    .header("x-forwarded-for", forwarded)
                    .body(form(&[
                        ("email", &email),
                        ("password", password),
                        ("csrf", "abc"),
                        ("next", "/oauth/authorize"),
                    ]))
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            }
        };
    let max = palmaplan_server::oauth::MAX_ATTEMPTS;
    let nobody = |i: u32| format!("nobody{i}@example.org");
    for i in 0..max {
        assert_eq!(post(from(1), "203.0.113.1", nobody(i), "wrong").await, 401);
    }
    assert_eq!(post(from(1), "203.0.113.1", nobody(99), "wrong").await, 429);
    // The proxy appends what it saw: an entry the client wrote before it is ignored.
    assert_eq!(
        post(from(1), "198.51.100.7, 203.0.113.1", nobody(98), "wrong").await,
        429
    );
    // Another client behind the same proxy is not held back.
    assert_eq!(
        post(from(1), "203.0.113.2", OWNER.into(), PASSWORD).await,
        303
    );
    // From a peer that is not a trusted proxy the header is not believed.
    for i in 0..max {
        let forwarded = ["203.0.113.3", "203.0.113.4"][i as usize % 2];
        assert_eq!(
            post(from(2), forwarded, nobody(100 + i), "wrong").await,
            401
        );
    }
    assert_eq!(
        post(from(2), "203.0.113.5", nobody(200), "wrong").await,
        429
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_or_a_new_password_ends_the_session() {
    let s = Setup::start("oauth-signout").await;
    let (_, challenge) = pkce();
    let pairs = s.request(&challenge, &[]);
    let signed_in = |session: String| {
        let url = format!("{}/oauth/authorize?{}", s.server.base, Setup::query(&pairs));
        let http = s.http.clone();
        async move {
            let r = http.get(url).header(COOKIE, session).send().await.unwrap();
            match r.status().as_u16() {
                200 => true,
                303 => {
                    assert!(location(&r).unwrap().starts_with("/oauth/signin?"));
                    false
                }
                other => panic!("{other}"),
            }
        }
    };
    let signout = |session: String, csrf: Option<String>| {
        let url = format!("{}/oauth/signout", s.server.base);
        let http = s.http.clone();
        async move {
            let fields: Vec<(&str, &str)> = csrf.iter().map(|c| ("csrf", c.as_str())).collect();
            http.post(url)
                .header(COOKIE, session)
                .header(CONTENT_TYPE, FORM)
                .body(form(&fields))
                .send()
                .await
                .unwrap()
        }
    };
    let page = s.authorize_get(&pairs).await.text().await.unwrap();
    assert!(
        page.contains("action=\"/oauth/signout\""),
        "a sign-out button"
    );
    // Another site's form cannot sign the person out.
    for csrf in [None, Some("0123456789abcdef".to_owned())] {
        assert_eq!(signout(s.session.clone(), csrf).await.status(), 403);
    }
    assert!(signed_in(s.session.clone()).await);
    let csrf = s.consent_csrf(&pairs).await;
    let r = signout(s.session.clone(), Some(csrf)).await;
    assert_eq!(r.status(), 200);
    let (value, full) = set_cookie(&r, "pp_session").expect("the cookie is cleared");
    assert!(value.is_empty() && full.contains("Max-Age=0"), "{full}");
    assert!(!signed_in(s.session.clone()).await, "the session is over");
    // `palmaplan user set-password` ends the person's sessions.
    let again = sign_in(&s.http, &s.server.base, "/oauth/authorize").await;
    assert!(signed_in(again.clone()).await);
    palmaplan_server::bootstrap::set_password(
        &s.server.store,
        OWNER,
        "another long password\n",
        palmaplan_model::Lang::En,
    )
    .await
    .unwrap();
    assert!(!signed_in(again).await, "a new password signs everyone out");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_are_capped_per_address() {
    let server = TestServer::start("oauth-register-cap").await;
    let http = http();
    let body = json!({"client_name": "x", "redirect_uris": [REDIRECT]});
    for _ in 0..palmaplan_server::oauth::MAX_REGISTRATIONS {
        assert_eq!(register(&http, &server.base, body.clone()).await.0, 201);
    }
    let (status, e) = register(&http, &server.base, body).await;
    assert_eq!(status, 429, "{e}");
    assert!(
        e["error_description"]
            .as_str()
            .unwrap()
            .contains("Too many"),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_redirects_are_refused_via_redirect_uri_and_sign_in_next() {
    let s = Setup::start("oauth-open-redirect").await;
    let (_, challenge) = pkce();
    let r = s
        .authorize_get(&s.request(&challenge, &[("redirect_uri", "https://evil.example/")]))
        .await;
    assert_eq!(r.status(), 400);
    assert!(location(&r).is_none());
    for next in [
        "https://evil.example/",
        "//evil.example/",
        "/\\evil.example",
        "evil.example",
    ] {
        let r = s
            .http
            .get(format!(
                "{}/oauth/signin?{}",
                s.server.base,
                form(&[("next", next)])
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{next}");
        // Posted with a valid password and CSRF token: still no redirect there.
        let r = s
            .http
            .post(format!("{}/oauth/signin", s.server.base))
            .header(COOKIE, "pp_signin=abc")
            .header(CONTENT_TYPE, FORM)
            .body(form(&[
                ("email", OWNER),
                ("password", PASSWORD),
                ("csrf", "abc"),
                ("next", next),
            ]))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{next}");
        assert!(location(&r).is_none(), "{next}");
        assert!(set_cookie(&r, "pp_session").is_none());
    }
    s.server.stop().await;
}

// ---------------------------------------------------------------------------------
// The pages

/// French typography: no plain space before « : ; ! ? » nor inside « », and the
/// required no-break spaces there.
fn french_typography_offences(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for bad in [
        " :", " ;", " !", " ?", "« ", " »", "\u{a0};", "\u{a0}!", "\u{a0}?",
    ] {
        if text.contains(bad) {
            found.push(format!("{bad:?}"));
        }
    }
    for (i, c) in text.char_indices() {
        let before = text[..i].chars().next_back();
        match c {
            '»' if before != Some('\u{a0}') => found.push(format!("» at {i}")),
            ';' | '!' | '?'
                if before.is_some_and(char::is_whitespace) && before != Some('\u{202f}') =>
            {
                found.push(format!("{c} at {i}"))
            }
            _ => {}
        }
    }
    found
}

/// The text of a page between `<body>` and `</body>`, tags removed.
fn visible_text(page: &str) -> String {
    let body = &page[page.find("<body>").unwrap()..];
    let mut out = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consent_page_is_french_by_default_english_when_asked_and_never_framed() {
    let s = Setup::start("oauth-pages").await;
    let (_, challenge) = pkce();
    let pairs = s.request(&challenge, &[]);
    let r = s.authorize_get(&pairs).await;
    assert_eq!(r.headers().get("x-frame-options").unwrap(), "DENY");
    let csp = r
        .headers()
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    let fr = r.text().await.unwrap();
    assert!(fr.contains("<html lang=\"fr\">"));
    assert!(
        fr.contains("Autoriser «\u{a0}\u{2068}Claude\u{2069}\u{a0}»\u{202f}?"),
        "{fr}"
    );
    assert!(
        fr.contains("<strong>127.0.0.1</strong>"),
        "the redirect host is shown"
    );
    assert!(
        fr.contains("<strong><bdi>Claude</bdi></strong> demande"),
        "the name isolated from the text around it"
    );
    assert!(fr.contains("Lecture seule") && fr.contains("Tous mes plannings"));
    assert!(
        fr.contains("S/4HANA Migration"),
        "the person's schedules are offered"
    );
    let offences = french_typography_offences(&visible_text(&fr));
    assert!(offences.is_empty(), "{offences:?}");

    let mut en_pairs = pairs.clone();
    en_pairs.push(("lang".into(), "en".into()));
    let en = s.authorize_get(&en_pairs).await.text().await.unwrap();
    assert!(
        en.contains("Allow “\u{2068}Claude\u{2069}”?") && en.contains("Read only"),
        "{en}"
    );
    let by_header = s
        .http
        .get(format!(
            "{}/oauth/authorize?{}",
            s.server.base,
            Setup::query(&pairs)
        ))
        .header(COOKIE, &s.session)
        .header("accept-language", "en-GB,en;q=0.9,fr;q=0.5")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(by_header.contains("<html lang=\"en\">"));
    let fr_first = s
        .http
        .get(format!(
            "{}/oauth/authorize?{}",
            s.server.base,
            Setup::query(&pairs)
        ))
        .header(COOKIE, &s.session)
        .header("accept-language", "de, fr;q=0.8, en;q=0.7")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(fr_first.contains("<html lang=\"fr\">"));

    let signin = s
        .http
        .get(format!(
            "{}/oauth/signin?next=%2Foauth%2Fauthorize",
            s.server.base
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(signin.contains("Connexion à PalmaPlan"));
    let offences = french_typography_offences(&visible_text(&signin));
    assert!(offences.is_empty(), "{offences:?}");
    s.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cookies_are_secure_when_the_public_url_is_https() {
    let server = TestServer::start_with("oauth-secure", |state| {
        state.oauth = palmaplan_server::oauth::OAuthConfig::new("https://plan.example.com/")
    })
    .await;
    let r = http()
        .get(format!("{}/oauth/signin?next=%2F", server.base))
        .send()
        .await
        .unwrap();
    let (_, cookie) = set_cookie(&r, "pp_signin").unwrap();
    assert!(
        cookie.contains("; Secure") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    for (path, resource) in [
        ("", "https://plan.example.com"),
        ("/mcp", "https://plan.example.com/mcp"),
    ] {
        let prm: Value = http()
            .get(format!(
                "{}/.well-known/oauth-protected-resource{path}",
                server.base
            ))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(prm["resource"], resource, "the public URL, its / dropped");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_leaves_its_connection_usable_for_discovery() {
    // An OAuth client's first request is always refused, and it goes on with discovery
    // on the same connection: the 401 must not close it when the body comes late.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = TestServer::start("oauth-keepalive").await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    let mut tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    tcp.write_all(body.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 65536];
    let n = tcp.read(&mut buf).await.unwrap();
    let first = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(first.starts_with("HTTP/1.1 401"), "{first}");
    let get =
        format!("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    tcp.write_all(get.as_bytes()).await.unwrap();
    let n = tokio::time::timeout(std::time::Duration::from_secs(5), tcp.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    let second = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(
        second.starts_with("HTTP/1.1 200"),
        "the connection was closed: {second:?}"
    );
    server.stop().await;
}

// ---------------------------------------------------------------------------------
// Client ID Metadata Documents

/// A client's site on loopback serving metadata documents: `/client.json` (good),
/// `/cached.json` (good, `Cache-Control: max-age=7200`),
/// `/liar.json` (names another client id), `/big.json` (over 16 KiB), `/slow.json`
/// (answers after 3 s), `/moved.json` (a redirect to `/client.json`). It counts the
/// requests of `/client.json`, to see that a document is kept.
struct DocumentSite {
    base: String,
    fetches: std::sync::Arc<AtomicU32>,
    task: tokio::task::JoinHandle<()>,
}

impl DocumentSite {
    async fn start() -> DocumentSite {
        use axum::routing::get;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let fetches = std::sync::Arc::new(AtomicU32::new(0));
        let good = json!({
            "client_id": format!("{base}/client.json"),
            "client_name": "Site\u{202e}ppA Claude",
            "client_uri": "https://claude.example",
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        })
        .to_string();
        let liar = json!({
            "client_id": format!("{base}/client.json"),
            "client_name": "Liar",
            "redirect_uris": [REDIRECT],
        })
        .to_string();
        let big = json!({
            "client_id": format!("{base}/big.json"),
            "client_name": "x".repeat(20_000),
            "redirect_uris": [REDIRECT],
        })
        .to_string();
        let slow = json!({
            "client_id": format!("{base}/slow.json"),
            "redirect_uris": [REDIRECT],
        })
        .to_string();
        let cached = json!({
            "client_id": format!("{base}/cached.json"),
            "client_name": "Cached",
            "redirect_uris": [REDIRECT],
        })
        .to_string();
        let counter = fetches.clone();
        let app = axum::Router::new()
            .route(
                "/client.json",
                get(move || {
                    counter.fetch_add(1, Ordering::SeqCst);
                    let good = good.clone();
                    async move { ([(CONTENT_TYPE, "application/json")], good) }
                }),
            )
            .route("/liar.json", get(move || async move { liar }))
            .route("/big.json", get(move || async move { big }))
            .route(
                "/slow.json",
                get(move || async move {
                    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
                    slow
                }),
            )
            .route(
                "/cached.json",
                get(move || async move {
                    (
                        [
                            (CONTENT_TYPE, "application/json"),
                            (CACHE_CONTROL, "public, max-age=7200"),
                        ],
                        cached,
                    )
                }),
            )
            .route(
                "/moved.json",
                get(|| async {
                    (
                        axum::http::StatusCode::FOUND,
                        [(LOCATION, "/client.json")],
                        "",
                    )
                }),
            );
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        DocumentSite {
            base,
            fetches,
            task,
        }
    }
}

/// A server that accepts the loopback site's http documents (the tests' setting).
async fn document_setup(name: &str) -> (Setup, DocumentSite) {
    let site = DocumentSite::start().await;
    let mut s = Setup::start_with(name, |state| {
        state.cimd.test_allow_loopback_http = true;
        state.cimd.timeout = std::time::Duration::from_secs(1);
    })
    .await;
    s.client_id = format!("{}/client.json", site.base);
    (s, site)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_document_client_goes_through_the_whole_flow() {
    let (s, site) = document_setup("oauth-cimd-flow").await;
    let meta: Value = s
        .http
        .get(format!(
            "{}/.well-known/oauth-authorization-server",
            s.server.base
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(meta["client_id_metadata_document_supported"], true);

    // The consent page names the client as its document does (format characters
    // dropped) and shows the host that serves the document.
    let (verifier, challenge) = pkce();
    let page = s.authorize_get(&s.request(&challenge, &[])).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("<bdi>SiteppA Claude</bdi>"), "{html}");
    assert!(
        html.contains("document publié sur <strong>127.0.0.1</strong>"),
        "{html}"
    );
    let offences = french_typography_offences(&visible_text(&html));
    assert!(offences.is_empty(), "{offences:?}");

    let code = s.code(&challenge).await;
    // PKCE is required of a document client as of a registered one.
    let (status, body) = s
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", &s.client_id),
            ("resource", &s.server.url),
        ])
        .await;
    assert_oauth_error(status, &body, "invalid_request", "code_verifier");
    let (status, t) = s.exchange(&code, &verifier).await;
    assert_eq!(status, 200, "{t}");
    let access = t["access_token"].as_str().unwrap();
    let client = s.server.client_with(access).await.unwrap();
    let list = call(&client, "list_schedules", json!({})).await;
    assert!(!list.is_error, "{}", list.text);
    assert_eq!(list.structured["schedules"][0]["id"], s.server.demo_id);

    let (status, t2) = s.refresh(t["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{t2}");
    let client2 = s
        .server
        .client_with(t2["access_token"].as_str().unwrap())
        .await
        .unwrap();
    assert!(!call(&client2, "list_schedules", json!({})).await.is_error);
    // The grant is the document client's, under its cleaned name.
    let grants = s.server.store.grants(s.server.owner_id).await.unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].client_name, "SiteppA Claude");

    // Fetched once: the consent page, its answer and the second page used the kept one.
    assert_eq!(site.fetches.load(Ordering::SeqCst), 1);
    s.server.stop().await;
    site.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_is_kept_as_long_as_its_cache_control_says() {
    let (mut s, site) = document_setup("oauth-cimd-cache").await;
    s.client_id = format!("{}/cached.json", site.base);
    let (_, challenge) = pkce();
    assert_eq!(
        s.authorize_get(&s.request(&challenge, &[])).await.status(),
        200
    );
    let kept = s.server.store.client(&s.client_id).await.unwrap().unwrap();
    assert_eq!(
        kept.kept_until.map(|u| u - kept.created_at),
        Some(7_200_000),
        "two hours, as the document's max-age says"
    );
    // Without caching headers: the default hour.
    s.client_id = format!("{}/client.json", site.base);
    s.authorize_get(&s.request(&challenge, &[])).await;
    let kept = s.server.store.client(&s.client_id).await.unwrap().unwrap();
    assert_eq!(
        kept.kept_until.map(|u| u - kept.created_at),
        Some(3_600_000)
    );
    s.server.stop().await;
    site.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_document_is_fetched_again_past_its_lifetime() {
    let site = DocumentSite::start().await;
    let mut s = Setup::start_with("oauth-cimd-ttl", |state| {
        state.cimd.test_allow_loopback_http = true;
        state.cimd.ttl_ms = 0;
        state.cimd.min_keep_ms = 0;
    })
    .await;
    s.client_id = format!("{}/client.json", site.base);
    let (_, challenge) = pkce();
    for _ in 0..2 {
        assert_eq!(
            s.authorize_get(&s.request(&challenge, &[])).await.status(),
            200
        );
    }
    assert_eq!(site.fetches.load(Ordering::SeqCst), 2);
    // Fetches are capped per address (kept documents do not count): a request cannot
    // make the server fetch without end.
    let max = palmaplan_server::oauth::MAX_DOCUMENT_FETCHES;
    for _ in 2..max {
        assert_eq!(
            s.authorize_get(&s.request(&challenge, &[])).await.status(),
            200
        );
    }
    assert_refused_here(
        s.authorize_get(&s.request(&challenge, &[])).await,
        &["Trop de documents de client demandés"],
    )
    .await;
    assert_eq!(site.fetches.load(Ordering::SeqCst), max);
    s.server.stop().await;
    site.task.abort();
}

/// Asserts a refusal on our own page (400, never a redirect) that mentions one of these.
async fn assert_refused_here(r: reqwest::Response, mentions: &[&str]) {
    assert_eq!(r.status(), 400);
    assert!(location(&r).is_none(), "never redirected");
    // The page escapes apostrophes; the messages are compared as written.
    let html = r.text().await.unwrap().replace("&#39;", "'");
    assert!(
        mentions.iter().any(|m| html.contains(m)),
        "{mentions:?}: {html}"
    );
    let offences = french_typography_offences(&visible_text(&html));
    assert!(offences.is_empty(), "{offences:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_metadata_document_is_refused_on_our_page() {
    let (s, site) = document_setup("oauth-cimd-bad").await;
    let (_, challenge) = pkce();
    let with_id = |path: &str| {
        s.request(
            &challenge,
            &[("client_id", &format!("{}{path}", site.base))],
        )
    };
    // Its client_id is not the URL it came from.
    assert_refused_here(
        s.authorize_get(&with_id("/liar.json")).await,
        &["n'est pas l'adresse d'où il vient"],
    )
    .await;
    // Over 16 KiB.
    assert_refused_here(
        s.authorize_get(&with_id("/big.json")).await,
        &["dépasse 16384 octets"],
    )
    .await;
    // Slower than the timeout (1 s here).
    let started = std::time::Instant::now();
    assert_refused_here(
        s.authorize_get(&with_id("/slow.json")).await,
        &["pas de réponse en 1 s"],
    )
    .await;
    assert!(started.elapsed() < std::time::Duration::from_millis(2900));
    // A redirect is not followed.
    assert_refused_here(
        s.authorize_get(&with_id("/moved.json")).await,
        &["ne suit pas les redirections"],
    )
    .await;
    assert_refused_here(
        s.authorize_get(&with_id("/missing.json")).await,
        &["a répondu 404"],
    )
    .await;
    assert_eq!(site.fetches.load(Ordering::SeqCst), 0);
    // A redirect URI the document does not list, on the page and by the form.
    let pairs = s.request(&challenge, &[("redirect_uri", "https://evil.example/cb")]);
    let r = s.authorize_get(&pairs).await;
    assert_refused_here(r, &["adresse de retour enregistrée"]).await;
    let csrf = s.consent_csrf(&s.request(&challenge, &[])).await;
    let r = s
        .consent_post(
            &pairs,
            Some(&csrf),
            &[("decision", "allow"), ("access", "read")],
        )
        .await;
    assert_eq!(r.status(), 400);
    assert!(location(&r).is_none());
    // In English too.
    let r = s
        .authorize_get(&s.request(
            &challenge,
            &[
                ("client_id", &format!("{}/liar.json", site.base)),
                ("lang", "en"),
            ],
        ))
        .await;
    assert_refused_here(r, &["is not the address it was fetched from"]).await;
    s.server.stop().await;
    site.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_tests_setting_loopback_private_and_http_documents_are_refused() {
    // The default settings, as in production: the site on loopback is never asked.
    let site = DocumentSite::start().await;
    let s = Setup::start("oauth-cimd-ssrf").await;
    let (_, challenge) = pkce();
    let port = site.base.rsplit(':').next().unwrap().to_owned();
    for (id, why) in [
        (
            format!("{}/client.json", site.base),
            "seules les adresses https",
        ),
        (
            "https://127.0.0.1/client.json".to_owned(),
            "n'est pas publique",
        ),
        ("https://[::1]/client.json".to_owned(), "n'est pas publique"),
        (
            "https://[::ffff:127.0.0.1]/client.json".to_owned(),
            "n'est pas publique",
        ),
        (
            "https://localhost/client.json".to_owned(),
            "n'est pas publique",
        ),
        (
            "https://10.0.0.1/client.json".to_owned(),
            "n'est pas publique",
        ),
        (
            "https://192.168.1.1/client.json".to_owned(),
            "n'est pas publique",
        ),
        (
            "https://169.254.169.254/latest/meta-data".to_owned(),
            "n'est pas publique",
        ),
        (
            "https://[fd00::1]/client.json".to_owned(),
            "n'est pas publique",
        ),
        (
            "https://[fe80::1]/client.json".to_owned(),
            "n'est pas publique",
        ),
        (
            format!("https://127.0.0.1:{port}/client.json"),
            "port par défaut",
        ),
        (
            "http://claude.example/client.json".to_owned(),
            "seules les adresses https",
        ),
        (
            "https://me@claude.example/client.json".to_owned(),
            "nom d'utilisateur",
        ),
        (
            "https://claude.example/client.json#x".to_owned(),
            "fragment",
        ),
    ] {
        let r = s
            .authorize_get(&s.request(&challenge, &[("client_id", &id)]))
            .await;
        assert_eq!(r.status(), 400, "{id}");
        assert!(location(&r).is_none(), "{id}");
        let html = r.text().await.unwrap().replace("&#39;", "'");
        assert!(html.contains(why), "{id}: {html}");
    }
    assert_eq!(site.fetches.load(Ordering::SeqCst), 0, "never fetched");
    // Nor does a token request for such a client find one.
    let (status, body) = s
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", "ppc_x"),
            ("client_id", &format!("{}/client.json", site.base)),
            ("code_verifier", "v"),
        ])
        .await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"], "invalid_client");
    s.server.stop().await;
    site.task.abort();
}

/// A client's site on loopback over real TLS: a certificate authority made for the
/// test, a certificate for 127.0.0.1 that it signed, and `/client.json` served over it
/// (answered by hand, one request per connection). Its base, the authority (DER), and
/// the task serving it.
async fn tls_document_site() -> (String, Vec<u8>, tokio::task::JoinHandle<()>) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca, &ca_key)
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("https://{}", listener.local_addr().unwrap());
    let doc = json!({
        "client_id": format!("{base}/client.json"),
        "client_name": "Over TLS",
        "redirect_uris": [REDIRECT],
    })
    .to_string();
    let config = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![leaf.der().clone()],
        rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into()),
    )
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    let task = tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let doc = doc.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let (status, body) = if head.starts_with(b"GET /client.json ") {
                    ("200 OK", doc.as_str())
                } else {
                    ("404 Not Found", "")
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(answer.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (base, ca.der().to_vec(), task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_document_is_fetched_over_tls_with_its_certificate_checked() {
    let (base, ca, task) = tls_document_site().await;
    let mut s = Setup::start_with("oauth-cimd-tls", |state| {
        state.cimd.test_allow_loopback_http = true;
        state.cimd.test_trust_only(&ca).unwrap();
    })
    .await;
    s.client_id = format!("{base}/client.json");
    let (_, challenge) = pkce();
    let page = s.authorize_get(&s.request(&challenge, &[])).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("<bdi>Over TLS</bdi>"), "{html}");
    s.server.stop().await;

    // Under another authority, the same site proves nothing: refused on our page.
    let (_, stranger, other) = tls_document_site().await;
    other.abort();
    let mut s = Setup::start_with("oauth-cimd-tls-untrusted", |state| {
        state.cimd.test_allow_loopback_http = true;
        state.cimd.test_trust_only(&stranger).unwrap();
    })
    .await;
    s.client_id = format!("{base}/client.json");
    assert_refused_here(
        s.authorize_get(&s.request(&challenge, &[])).await,
        &["la connexion ou la réponse a échoué"],
    )
    .await;
    s.server.stop().await;
    task.abort();
}

//! The web screen (`server/src/web.rs`, `server/src/live.rs`) against a real server on
//! a loopback port: signed in through the OAuth sign-in page as a browser would (cookies
//! and forms by hand, redirects not followed), the schedule list, a schedule opened full
//! page through `show_schedule`'s gate, the event stream of instant updates read with
//! the HTTP client after MCP writes, and the connected applications page (create and
//! revoke named tokens and OAuth grants, then `/mcp` with them).

mod common;

use std::time::{Duration, Instant};

use common::browser::{FORM, OWNER, PASSWORD, form, hidden, http, location_of};
use common::{TestServer, call};
use palmaplan_server::auth;
use palmaplan_server::http::AppState;
use palmaplan_server::live::MAX_STREAMS_PER_USER;
use palmaplan_server::storage::{OAuthClient, Role, TokenKind};
use reqwest::header::{
    ACCEPT_LANGUAGE, CONTENT_SECURITY_POLICY, CONTENT_TYPE, COOKIE, SET_COOKIE, X_FRAME_OPTIONS,
};
use serde_json::{Value, json};

fn set_cookie(r: &reqwest::Response, name: &str) -> Option<String> {
    r.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| {
            Some(
                c.strip_prefix(&format!("{name}="))?
                    .split(';')
                    .next()?
                    .to_owned(),
            )
        })
}

fn location(r: &reqwest::Response) -> String {
    location_of(r).unwrap_or_default()
}

/// The query pairs of a local address.
fn query_of(local: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://x{local}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A server with the owner's password set, a second person (Bob) with a schedule of
/// his own and one shared with the owner as viewer, and the owner signed in.
struct Screen {
    server: TestServer,
    http: reqwest::Client,
    /// `pp_session=…`
    session: String,
    /// Bob's, not shared.
    private: i64,
    /// Bob's, the owner a viewer on it.
    shared: i64,
}

async fn sign_in(http: &reqwest::Client, base: &str, email: &str, next: &str) -> String {
    let page = http
        .get(format!("{base}/oauth/signin?{}", form(&[("next", next)])))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let pre = set_cookie(&page, "pp_signin").unwrap();
    let csrf = hidden(&page.text().await.unwrap(), "csrf");
    let r = http
        .post(format!("{base}/oauth/signin"))
        .header(COOKIE, format!("pp_signin={pre}"))
        .header(CONTENT_TYPE, FORM)
        .body(form(&[
            ("email", email),
            ("password", PASSWORD),
            ("csrf", &csrf),
            ("next", next),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    assert_eq!(location(&r), next);
    format!("pp_session={}", set_cookie(&r, "pp_session").unwrap())
}

impl Screen {
    async fn start(name: &str) -> Screen {
        Screen::start_with(name, |_| {}).await
    }

    async fn start_with(name: &str, tweak: impl FnOnce(&mut AppState)) -> Screen {
        let server = TestServer::start_with(name, tweak).await;
        let store = &server.store;
        palmaplan_server::oauth::set_password(store, server.owner_id, PASSWORD)
            .await
            .unwrap();
        let bob = store.add_user("Bob", "bob@example.org", 0).await.unwrap();
        let mut s = palmaplan_model::demo::s4hana_migration();
        s.name = "Plan privé de Bob".into();
        let private = store.create_schedule(&s, bob, 0).await.unwrap();
        s.name = "Partagé <b>&</b> «\u{a0}test\u{a0}»".into();
        let shared = store.create_schedule(&s, bob, 0).await.unwrap();
        store
            .set_role(shared, server.owner_id, Role::Viewer)
            .await
            .unwrap();
        let http = http();
        let session = sign_in(&http, &server.base, OWNER, "/app").await;
        Screen {
            server,
            http,
            session,
            private,
            shared,
        }
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.server.base))
            .header(COOKIE, &self.session)
            .send()
            .await
            .unwrap()
    }

    async fn post(&self, path: &str, pairs: &[(&str, &str)]) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.server.base))
            .header(COOKIE, &self.session)
            .header(CONTENT_TYPE, FORM)
            .body(form(pairs))
            .send()
            .await
            .unwrap()
    }

    /// An `/embed` link to a schedule (its local address), as `show_schedule` gives the
    /// owner over MCP: the other door of the view, which must keep working.
    async fn embed_link(&self, id: i64) -> String {
        let mcp = self.server.client().await;
        let shown = call(
            &mcp,
            "show_schedule",
            json!({"schedule": id, "editable": true}),
        )
        .await;
        assert!(!shown.is_error, "{}", shown.text);
        let url = reqwest::Url::parse(shown.structured["url"].as_str().unwrap()).unwrap();
        format!("{}?{}", url.path(), url.query().unwrap())
    }

    /// Calls one of the view's tools as the view does, under the link of `link`.
    async fn link_call(&self, link: &str, tool: &str, arguments: Value) -> Value {
        let token = query_of(link)
            .into_iter()
            .find(|(k, _)| k == "t")
            .unwrap()
            .1;
        let id = link
            .trim_start_matches("/embed/")
            .split('?')
            .next()
            .unwrap();
        let r = self
            .http
            .post(format!("{}/embed/{id}/call", self.server.base))
            .header("authorization", format!("Embed {token}"))
            .json(&json!({ "tool": tool, "arguments": arguments }))
            .send()
            .await
            .unwrap();
        r.json().await.unwrap()
    }

    /// Opens a schedule's page on the screen: the view page itself, under the session;
    /// gives the anti-forgery token its mode tag carries.
    async fn open_view(&self, id: i64) -> String {
        let r = self.get(&format!("/app/schedules/{id}")).await;
        assert_eq!(r.status(), 200);
        let page = r.text().await.unwrap();
        let tag = page
            .split("<meta name=\"palmaplan-mode\" ")
            .nth(1)
            .and_then(|t| t.split('>').next())
            .unwrap()
            .to_owned();
        assert!(tag.starts_with("content=\"app\""), "{tag}");
        tag.split("data-csrf=\"")
            .nth(1)
            .unwrap()
            .trim_end_matches('"')
            .to_owned()
    }

    /// Calls one of the view's tools as the screen's view does: the session's cookie
    /// and its anti-forgery token.
    async fn screen_call(&self, id: i64, csrf: &str, tool: &str, arguments: Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/app/schedules/{id}/call", self.server.base))
            .header(COOKIE, &self.session)
            .header("x-palmaplan-csrf", csrf)
            .json(&json!({ "tool": tool, "arguments": arguments }))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    /// The screen's event stream of a schedule (the session's cookie, nothing in the
    /// address).
    async fn screen_events(&self, id: i64) -> reqwest::Response {
        self.get(&format!("/app/schedules/{id}/events")).await
    }

    /// A raw MCP `initialize` with a token: the HTTP status.
    async fn mcp_status(&self, token: &str) -> u16 {
        self.http
            .post(&self.server.url)
            .header("authorization", format!("Bearer {token}"))
            .header("accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "web-screen-test", "version": "0"}}}),
            )
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

/// The page's headers: a CSP that loads nothing, never framed, never cached.
fn assert_screen_headers(r: &reqwest::Response) {
    let csp = r.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!csp.contains("script-src"), "no script: {csp}");
    assert_eq!(r.headers()[X_FRAME_OPTIONS], "DENY");
    assert_eq!(r.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn the_list_shows_exactly_the_schedules_the_person_can_see() {
    let s = Screen::start("web-list").await;
    let r = s.get("/app").await;
    assert_eq!(r.status(), 200);
    assert_screen_headers(&r);
    let page = r.text().await.unwrap();
    let demo = s.server.demo_id;
    // Their two, each linked; Bob's private one neither linked nor named.
    // (An owner's row also links its access page, `<id>/access`.)
    let mut linked: Vec<i64> = page
        .match_indices("href=\"/app/schedules/")
        .filter_map(|(at, m)| page[at + m.len()..].split('"').next()?.parse().ok())
        .collect();
    linked.sort();
    assert_eq!(linked, vec![demo, s.shared]);
    assert!(!page.contains("Plan privé de Bob"));
    assert!(!page.contains(&format!("/app/schedules/{}", s.private)));
    // French by default, with its typography; names escaped.
    assert!(page.contains("<html lang=\"fr\""));
    assert!(page.contains("2 plannings"), "{page}");
    assert!(page.contains("S/4HANA Migration"));
    assert!(
        page.contains("Partagé &lt;b&gt;&amp;&lt;/b&gt; «\u{a0}test\u{a0}»"),
        "{page}"
    );
    assert!(!page.contains("<b>&</b>"));
    assert!(page.contains("propriétaire") && page.contains("lecteur"));
    // Span and last change (rank and time) of the demo.
    assert!(page.contains("du 2026-11-02 au 2026-12-18"), "{page}");
    let rank = call(
        &s.server.client().await,
        "get_schedule",
        json!({"schedule": demo}),
    )
    .await
    .structured["rank"]
        .as_i64()
        .unwrap();
    assert!(page.contains(&format!("rang {rank}, ")), "{page}");
    assert!(page.contains(" UTC</td>"));
    assert!(page.contains("Connecté en tant que owner@localhost"));

    // English by the address and by the browser.
    let en = s.get("/app?lang=en").await.text().await.unwrap();
    assert!(
        en.contains("<html lang=\"en\"") && en.contains("2 schedules"),
        "{en}"
    );
    assert!(en.contains("2026-11-02 to 2026-12-18") && en.contains("owner"));
    assert!(
        en.contains(&format!("href=\"/app/schedules/{demo}?lang=en\"")),
        "links keep the asked language"
    );
    let r = s
        .http
        .get(format!("{}/app", s.server.base))
        .header(COOKIE, &s.session)
        .header(ACCEPT_LANGUAGE, "en-GB,en;q=0.9,fr;q=0.5")
        .send()
        .await
        .unwrap();
    assert!(r.text().await.unwrap().contains("My schedules"));

    // Bob, signed in, sees his two.
    let bob = s
        .server
        .store
        .user_by_email("bob@example.org")
        .await
        .unwrap()
        .unwrap();
    palmaplan_server::oauth::set_password(&s.server.store, bob.id, PASSWORD)
        .await
        .unwrap();
    let bob_session = sign_in(&s.http, &s.server.base, "bob@example.org", "/app").await;
    let page = s
        .http
        .get(format!("{}/app", s.server.base))
        .header(COOKIE, bob_session)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Plan privé de Bob") && page.contains("2 plannings"));
    assert!(!page.contains("S/4HANA Migration"));
    s.server.stop().await;
}

#[tokio::test]
async fn the_navigation_signs_out_and_the_session_is_gone() {
    let s = Screen::start("web-signout").await;
    let page = s.get("/app").await.text().await.unwrap();
    // Every page's navigation carries the sign-out form with the session's token.
    assert!(page.contains("action=\"/oauth/signout\""), "{page}");
    let csrf = hidden(&page, "csrf");
    let out = |csrf: String| {
        s.http
            .post(format!("{}/oauth/signout", s.server.base))
            .header(COOKIE, &s.session)
            .header(CONTENT_TYPE, FORM)
            .body(form(&[("csrf", &csrf)]))
            .send()
    };
    // Without the right token it is refused and the session stays.
    assert_eq!(out("forged".into()).await.unwrap().status(), 403);
    assert_eq!(s.get("/app").await.status(), 200);
    assert_eq!(out(csrf).await.unwrap().status(), 200);
    // The same cookie is no session any more: back to the sign-in page.
    let r = s.get("/app").await;
    assert_eq!(r.status(), 303);
    assert!(location(&r).starts_with("/oauth/signin?"));
}

#[tokio::test]
async fn unsigned_visitors_are_sent_to_sign_in_with_a_local_next() {
    let s = Screen::start("web-unsigned").await;
    for path in [
        "/app".to_owned(),
        format!("/app/schedules/{}?lang=en", s.server.demo_id),
        "/app/settings/connections".to_owned(),
    ] {
        let r = s
            .http
            .get(format!("{}{path}", s.server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303, "{path}");
        let to = location(&r);
        assert!(to.starts_with("/oauth/signin?"), "{to}");
        let next = query_of(&to)
            .into_iter()
            .find(|(k, _)| k == "next")
            .unwrap()
            .1;
        assert_eq!(next, path, "back where they were, on this server");
        // The sign-in page takes it, and sends them back there.
        assert_eq!(
            s.http
                .get(format!("{}{to}", s.server.base))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
    }
    // A stale cookie is no session.
    let r = s
        .http
        .get(format!("{}/app", s.server.base))
        .header(
            COOKIE,
            format!(
                "pp_session={}",
                auth::new_secret(auth::SESSION_PREFIX).unwrap()
            ),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    // `/` is the screen.
    let r = s
        .http
        .get(format!("{}/", s.server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (r.status().as_u16(), location(&r)),
        (303, "/app".to_owned())
    );
    s.server.stop().await;
}

#[tokio::test]
async fn a_schedule_page_opens_the_view_by_the_gate_or_is_refused() {
    let s = Screen::start("web-schedule").await;
    let demo = s.server.demo_id;
    // Theirs, as owner: the view page itself, under the session, never framed, no
    // token in its address; the view's calls act with the owner's role (a link would
    // cap it at editor).
    let r = s.get(&format!("/app/schedules/{demo}")).await;
    assert_eq!(r.status(), 200);
    let csp = r.headers()[CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("connect-src 'self'"), "{csp}");
    assert_eq!(r.headers()[X_FRAME_OPTIONS], "DENY");
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("content=\"app\" data-lang=\"fr\"")
    );
    let csrf = s.open_view(demo).await;
    let (status, shown) = s.screen_call(demo, &csrf, "show_schedule", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        shown["structuredContent"]["read_only"],
        json!(false),
        "{shown}"
    );
    let text = shown["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("rôle propriétaire"), "{text}");
    let en = s.get(&format!("/app/schedules/{demo}?lang=en")).await;
    assert!(en.text().await.unwrap().contains("data-lang=\"en\""));

    // The calls' own rules: the session's token, the one schedule.
    let (status, r) = s
        .screen_call(demo, "not-the-token", "show_schedule", json!({}))
        .await;
    assert_eq!(
        (status, r["structuredContent"]["error"].as_str()),
        (403, Some("forbidden")),
        "{r}"
    );
    let anonymous = s
        .http
        .post(format!("{}/app/schedules/{demo}/call", s.server.base))
        .header("x-palmaplan-csrf", &csrf)
        .json(&json!({"tool": "show_schedule"}))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let (status, r) = s
        .screen_call(demo, &csrf, "get_schedule", json!({"schedule": s.shared}))
        .await;
    assert_eq!(
        (status, r["structuredContent"]["error"].as_str()),
        (403, Some("other_schedule")),
        "{r}"
    );
    let (status, r) = s
        .screen_call(demo, &csrf, "list_schedules", json!({}))
        .await;
    assert_eq!(status, 403, "a tool on no one schedule: {r}");
    let (_, r) = s
        .screen_call(s.private, &csrf, "show_schedule", json!({}))
        .await;
    assert_eq!(r["isError"], json!(true), "the gate: not theirs: {r}");
    assert!(!r.to_string().contains("Plan privé de Bob"), "{r}");

    // Shared with them as viewer: the view, read-only; a write refused by the gate.
    let (_, shown) = s
        .screen_call(s.shared, &csrf, "show_schedule", json!({}))
        .await;
    assert_eq!(
        shown["structuredContent"]["read_only"],
        json!(true),
        "{shown}"
    );
    let (_, write) = s
        .screen_call(
            s.shared,
            &csrf,
            "update_settings",
            json!({"name": "Renommé"}),
        )
        .await;
    assert_eq!(write["isError"], json!(true), "{write}");
    let name = s
        .server
        .store
        .load(s.shared)
        .await
        .unwrap()
        .state
        .name
        .clone();
    assert!(name.starts_with("Partagé"), "{name}");

    // An /embed link keeps working as before.
    let link = s.embed_link(demo).await;
    let shown = s.link_call(&link, "show_schedule", json!({})).await;
    assert_eq!(
        shown["structuredContent"]["read_only"],
        json!(false),
        "{shown}"
    );

    // Not theirs: refused, and the page says what to do.
    for id in [s.private.to_string(), "999".into(), "abc".into()] {
        let r = s.get(&format!("/app/schedules/{id}")).await;
        assert_eq!(r.status(), 404, "{id}");
        assert_screen_headers(&r);
        let page = r.text().await.unwrap();
        assert!(!page.contains("palmaplan-mode"), "{page}");
        assert!(!page.contains("Plan privé de Bob"), "{page}");
        assert!(page.contains("href=\"/app\""), "a way back: {page}");
    }
    s.server.stop().await;
}

/// Reads an event stream until an event's data is `want` (or fails after `within`).
async fn wait_event(
    stream: &mut reqwest::Response,
    buffer: &mut String,
    want: &str,
    within: Duration,
) {
    let deadline = Instant::now() + within;
    loop {
        if let Some(at) = buffer.find("\n\n") {
            let event: String = buffer.drain(..at + 2).collect();
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .collect();
            if data == [want] {
                return;
            }
            continue;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, stream.chunk())
            .await
            .unwrap_or_else(|_| panic!("no event {want} within {within:?}; had {buffer:?}"))
            .unwrap()
            .expect("the stream goes on");
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

/// Whether a stream ends within two seconds without pushing an event (`Ok(true)`);
/// `Ok(false)` when it pushes one, `Err` when it neither ends nor pushes.
async fn ends_unpushed(
    stream: &mut reqwest::Response,
) -> Result<bool, tokio::time::error::Elapsed> {
    tokio::time::timeout(Duration::from_secs(2), async {
        loop {
            match stream.chunk().await {
                Ok(Some(c)) if std::str::from_utf8(&c).unwrap().contains("data:") => {
                    return false;
                }
                Ok(Some(_)) => continue,
                _ => return true,
            }
        }
    })
    .await
}

#[tokio::test]
async fn the_event_stream_pushes_the_rank_of_an_mcp_write_within_a_second() {
    let s = Screen::start("web-events").await;
    let demo = s.server.demo_id;
    // The screen's stream: the session's cookie, no token in the address.
    let mut stream = s.screen_events(demo).await;
    assert_eq!(stream.status(), 200);
    assert!(
        stream.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    // Not buffered by a proxy (nginx reads this), not cached.
    assert_eq!(stream.headers()["x-accel-buffering"], "no");
    assert_eq!(stream.headers()["cache-control"], "no-store");
    let mcp = s.server.client().await;
    let rank = call(&mcp, "get_schedule", json!({"schedule": demo}))
        .await
        .structured["rank"]
        .as_i64()
        .unwrap();
    let mut buffer = String::new();
    // The current rank first, so a browser that reconnects misses nothing.
    wait_event(
        &mut stream,
        &mut buffer,
        &rank.to_string(),
        Duration::from_secs(2),
    )
    .await;
    for n in 1..=3 {
        let w = call(
            &mcp,
            "update_settings",
            json!({"schedule": demo, "name": format!("Renommé {n}")}),
        )
        .await;
        assert!(!w.is_error, "{}", w.text);
        let written = Instant::now();
        wait_event(
            &mut stream,
            &mut buffer,
            &(rank + n).to_string(),
            Duration::from_secs(1),
        )
        .await;
        assert!(written.elapsed() < Duration::from_secs(1));
    }
    // A write to another schedule is not this stream's: the next event is the demo's.
    let bob = s
        .server
        .store
        .user_by_email("bob@example.org")
        .await
        .unwrap()
        .unwrap();
    let bob_token = auth::new_token().unwrap();
    s.server
        .store
        .add_token(bob.id, "bob", &auth::token_hash(&bob_token), true, None, 0)
        .await
        .unwrap();
    let bob_mcp = s.server.client_with(&bob_token).await.unwrap();
    let w = call(
        &bob_mcp,
        "update_settings",
        json!({"schedule": s.shared, "name": "Autre"}),
    )
    .await;
    assert!(!w.is_error, "{}", w.text);
    let w = call(
        &mcp,
        "update_settings",
        json!({"schedule": demo, "name": "Dernier"}),
    )
    .await;
    assert!(!w.is_error);
    wait_event(
        &mut stream,
        &mut buffer,
        &(rank + 4).to_string(),
        Duration::from_secs(1),
    )
    .await;
    assert!(!buffer.contains("data: 1\n"), "{buffer}");

    // Their access removed: the stream ends at the next write, which it does not push.
    let mut stream = s.screen_events(s.shared).await;
    let mut buffer = String::new();
    wait_event(&mut stream, &mut buffer, "1", Duration::from_secs(2)).await;
    s.server
        .store
        .remove_role(s.shared, s.server.owner_id)
        .await
        .unwrap();
    let w = call(
        &bob_mcp,
        "update_settings",
        json!({"schedule": s.shared, "name": "Encore"}),
    )
    .await;
    assert!(!w.is_error, "{}", w.text);
    let ended = ends_unpushed(&mut stream).await;
    assert_eq!(ended, Ok(true), "no push after the access is gone");

    // Signed out: the session's stream ends at the next write, which it does not push.
    let mut stream = s.screen_events(demo).await;
    let mut buffer = String::new();
    wait_event(
        &mut stream,
        &mut buffer,
        &(rank + 4).to_string(),
        Duration::from_secs(2),
    )
    .await;
    let list = s.get("/app").await.text().await.unwrap();
    let out = s
        .post("/oauth/signout", &[("csrf", &hidden(&list, "csrf"))])
        .await;
    assert_eq!(out.status(), 200);
    let w = call(
        &mcp,
        "update_settings",
        json!({"schedule": demo, "name": "Après"}),
    )
    .await;
    assert!(!w.is_error, "{}", w.text);
    let ended = ends_unpushed(&mut stream).await;
    assert_eq!(ended, Ok(true), "no push after signing out");
    assert_eq!(s.screen_events(demo).await.status(), 401);
    s.server.stop().await;
}

#[tokio::test]
async fn event_streams_are_capped_per_person_and_refused_without_a_link() {
    let s = Screen::start("web-stream-cap").await;
    let demo = s.server.demo_id;
    let link = s.embed_link(demo).await;
    let events = link.replacen(
        &format!("/embed/{demo}?"),
        &format!("/embed/{demo}/events?"),
        1,
    );
    let mut open = Vec::new();
    for _ in 0..MAX_STREAMS_PER_USER {
        let r = s
            .http
            .get(format!("{}{events}", s.server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        open.push(r);
    }
    let r = s
        .http
        .get(format!("{}{events}", s.server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["structuredContent"]["error"], "busy", "{body}");
    // A tab closed frees its place.
    drop(open.pop());
    let again = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let r = s
                .http
                .get(format!("{}{events}", s.server.base))
                .send()
                .await
                .unwrap();
            if r.status() == 200 {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("a slot comes free once a stream is closed");
    drop(again);
    // Without a link, or with another's schedule: refused like the view's calls.
    let r = s
        .http
        .get(format!("{}/embed/{demo}/events", s.server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = s
        .http
        .get(format!(
            "{}{}",
            s.server.base,
            events.replacen(
                &format!("/embed/{demo}/"),
                &format!("/embed/{}/", s.shared),
                1
            )
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // The screen's stream: only a schedule of theirs, only signed in.
    assert_eq!(s.screen_events(s.private).await.status(), 404);
    assert_eq!(s.screen_events(999).await.status(), 404);
    let r = s
        .http
        .get(format!("{}/app/schedules/{demo}/events", s.server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    s.server.stop().await;
}

/// The connections page's row of `label`: its revoke form's action.
fn revoke_action(page: &str, label: &str) -> String {
    let at = page
        .find(&format!("<tr><td>{label}</td>"))
        .unwrap_or_else(|| panic!("no row {label} in {page}"));
    let row = &page[at..page[at..].find("</tr>").unwrap() + at];
    let key = "action=\"";
    let from = row.find(key).unwrap() + key.len();
    row[from..].split('"').next().unwrap().to_owned()
}

#[tokio::test]
async fn revoking_a_named_token_from_the_page_makes_its_next_mcp_request_401() {
    let s = Screen::start("web-revoke").await;
    let r = s.get("/app/settings/connections").await;
    assert_eq!(r.status(), 200);
    assert_screen_headers(&r);
    let page = r.text().await.unwrap();
    assert!(page.contains("Réglages › Connexions et agents › Applications connectées"));
    // The first token of the first start is listed.
    assert!(page.contains("1 application connectée"), "{page}");
    let csrf = hidden(&page, "csrf");

    let r = s
        .post(
            "/app/settings/connections/tokens",
            &[
                ("csrf", &csrf),
                ("label", "Portable <3"),
                ("access", "read"),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_screen_headers(&r);
    let page = r.text().await.unwrap();
    let key = "<code id=\"secret\">";
    let at = page.find(key).unwrap() + key.len();
    let secret = page[at..].split('<').next().unwrap().to_owned();
    assert!(auth::looks_like_token(&secret), "{secret}");
    assert!(
        page.contains("Jeton «\u{a0}Portable &lt;3\u{a0}» créé"),
        "{page}"
    );
    assert!(page.contains("lecture seule, tous les plannings"));
    assert!(page.contains("2 applications connectées"));
    // The answer of a form is at an address only POST answers: its language link
    // leads to the page a GET shows.
    assert!(
        page.contains("href=\"/app/settings/connections?lang=en\" lang=\"en\""),
        "{page}"
    );
    // Shown once: the next page does not have it.
    let later = s
        .get("/app/settings/connections")
        .await
        .text()
        .await
        .unwrap();
    assert!(!later.contains(&secret));
    let stored = s.server.store.tokens(s.server.owner_id).await.unwrap();
    assert!(
        stored
            .iter()
            .any(|t| t.label == "Portable <3" && !t.can_write)
    );

    // It works, read-only.
    let client = s.server.client_with(&secret).await.unwrap();
    let w = call(
        &client,
        "update_settings",
        json!({"schedule": s.server.demo_id, "name": "x"}),
    )
    .await;
    assert!(w.is_error, "a read-only token writes nothing: {}", w.text);
    assert_eq!(s.mcp_status(&secret).await, 200);
    // An /embed link it asked for works, until the token is revoked (below).
    let shown = call(
        &client,
        "show_schedule",
        json!({"schedule": s.server.demo_id}),
    )
    .await;
    let url = reqwest::Url::parse(shown.structured["url"].as_str().unwrap()).unwrap();
    let link = format!("{}?{}", url.path(), url.query().unwrap());
    let r = s.link_call(&link, "show_schedule", json!({})).await;
    assert_eq!(r["isError"], json!(false), "{r}");

    // Revoked from the page: its next request, even in its open session, is refused.
    let action = revoke_action(&later, "Portable &lt;3");
    let r = s.post(&action, &[("csrf", &csrf)]).await;
    assert_eq!(
        (r.status().as_u16(), location(&r)),
        (303, "/app/settings/connections".into())
    );
    assert_eq!(s.mcp_status(&secret).await, 401);
    let mut params = rmcp::model::CallToolRequestParams::new("list_schedules");
    params = params.with_arguments(serde_json::Map::new());
    assert!(
        client.call_tool(params).await.is_err(),
        "the open session is refused too"
    );
    // And the links it asked for, page and calls.
    let r = s.link_call(&link, "show_schedule", json!({})).await;
    assert_eq!(r["structuredContent"]["error"], "revoked_link", "{r}");
    let page = s
        .http
        .get(format!("{}{link}", s.server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 401);
    assert!(page.text().await.unwrap().contains("révoqué"));
    let page = s
        .get("/app/settings/connections")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !page.contains("Portable"),
        "a revoked token is no longer listed"
    );
    // A label's format characters are dropped (a bidi override would make it read as
    // another); past the cap, the page refuses more tokens for a while.
    let r = s
        .post(
            "/app/settings/connections/tokens",
            &[
                ("csrf", &csrf),
                ("label", "Lap\u{202e}top\u{200b}"),
                ("access", "read"),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    let tokens = s.server.store.tokens(s.server.owner_id).await.unwrap();
    assert!(tokens.iter().any(|t| t.label == "Laptop"), "{tokens:?}");
    let mut last = 0;
    for n in 0..palmaplan_server::web::MAX_TOKEN_CREATIONS {
        last = s
            .post(
                "/app/settings/connections/tokens",
                &[
                    ("csrf", &csrf),
                    ("label", &format!("t{n}")),
                    ("access", "read"),
                ],
            )
            .await
            .status()
            .as_u16();
        if last == 429 {
            break;
        }
    }
    assert_eq!(last, 429, "token creation is capped");
    // Revoked twice: nothing to revoke.
    assert_eq!(s.post(&action, &[("csrf", &csrf)]).await.status(), 404);
    // The owner's first token still works.
    assert_eq!(s.mcp_status(&s.server.token).await, 200);
    s.server.stop().await;
}

#[tokio::test]
async fn an_oauth_grant_is_listed_and_revoked_from_the_page() {
    let s = Screen::start("web-grant").await;
    let store = &s.server.store;
    store
        .add_client(&OAuthClient {
            client_id: "client-abc".into(),
            name: "Claude".into(),
            redirect_uris: vec!["https://claude.ai/api/mcp/auth_callback".into()],
            created_at: 0,
            kept_until: None,
        })
        .await
        .unwrap();
    let grant = store
        .add_grant(
            "client-abc",
            s.server.owner_id,
            true,
            Some(s.server.demo_id),
            &s.server.url,
            0,
        )
        .await
        .unwrap();
    let access = auth::new_secret(auth::ACCESS_PREFIX).unwrap();
    let far = i64::MAX / 2;
    store
        .add_grant_token(grant, TokenKind::Access, &auth::token_hash(&access), 0, far)
        .await
        .unwrap();
    assert_eq!(s.mcp_status(&access).await, 200);
    let page = s
        .get("/app/settings/connections?lang=en")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<tr><td>Claude</td><td>OAuth, client client-abc</td>"),
        "{page}"
    );
    assert!(page.contains(&format!(
        "read and write, schedule {} only",
        s.server.demo_id
    )));
    assert!(page.contains("2 connected applications"));
    let csrf = hidden(&page, "csrf");
    let action = revoke_action(&page, "Claude");
    assert_eq!(
        action,
        format!("/app/settings/connections/grants/{grant}/revoke")
    );
    let r = s.post(&action, &[("csrf", &csrf), ("lang", "en")]).await;
    assert_eq!(
        (r.status().as_u16(), location(&r)),
        (303, "/app/settings/connections?lang=en".into())
    );
    assert_eq!(s.mcp_status(&access).await, 401);
    s.server.stop().await;
}

#[tokio::test]
async fn forms_without_their_anti_forgery_token_are_refused() {
    let s = Screen::start("web-csrf").await;
    let page = s
        .get("/app/settings/connections")
        .await
        .text()
        .await
        .unwrap();
    let csrf = hidden(&page, "csrf");
    let first = s.server.store.tokens(s.server.owner_id).await.unwrap();
    let action = revoke_action(&page, "first token");
    for bad in [None, Some(""), Some("0123")] {
        let mut pairs = vec![("label", "forged")];
        if let Some(b) = bad {
            pairs.push(("csrf", b));
        }
        let r = s.post("/app/settings/connections/tokens", &pairs).await;
        assert_eq!(r.status(), 403, "{bad:?}");
        assert!(r.text().await.unwrap().contains("rechargez la page"));
        let mut pairs = vec![];
        if let Some(b) = bad {
            pairs.push(("csrf", b));
        }
        assert_eq!(s.post(&action, &pairs).await.status(), 403);
    }
    assert_eq!(
        s.server.store.tokens(s.server.owner_id).await.unwrap(),
        first
    );
    assert_eq!(s.mcp_status(&s.server.token).await, 200);
    // Another person's session has another token: the owner's is refused there.
    let bob = s
        .server
        .store
        .user_by_email("bob@example.org")
        .await
        .unwrap()
        .unwrap();
    palmaplan_server::oauth::set_password(&s.server.store, bob.id, PASSWORD)
        .await
        .unwrap();
    let bob_session = sign_in(&s.http, &s.server.base, "bob@example.org", "/app").await;
    let r = s
        .http
        .post(format!("{}/app/settings/connections/tokens", s.server.base))
        .header(COOKIE, bob_session)
        .header(CONTENT_TYPE, FORM)
        .body(form(&[("csrf", &csrf), ("label", "forged")]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // Signed out: to the sign-in page, nothing created.
    let r = s
        .http
        .post(format!("{}/app/settings/connections/tokens", s.server.base))
        .header(CONTENT_TYPE, FORM)
        .body(form(&[("csrf", &csrf), ("label", "forged")]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert!(location(&r).starts_with("/oauth/signin?"));
    // Someone else's token is not theirs to revoke, even with a good form.
    let bob_token = auth::new_token().unwrap();
    let bob_id = s
        .server
        .store
        .add_token(bob.id, "bob", &auth::token_hash(&bob_token), true, None, 0)
        .await
        .unwrap();
    let r = s
        .post(
            &format!("/app/settings/connections/tokens/{bob_id}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(r.status(), 404);
    assert_eq!(s.mcp_status(&bob_token).await, 200);
    // With a good form, their own is revoked.
    assert_eq!(s.post(&action, &[("csrf", &csrf)]).await.status(), 303);
    assert_eq!(s.mcp_status(&s.server.token).await, 401);
    s.server.stop().await;
}

#[tokio::test]
async fn an_idle_event_stream_sends_keep_alive_comments() {
    let s = Screen::start_with("web-keep-alive", |state| {
        state.keep_alive = Duration::from_millis(100);
    })
    .await;
    let demo = s.server.demo_id;
    let link = s.embed_link(demo).await;
    let events = link.replacen(
        &format!("/embed/{demo}?"),
        &format!("/embed/{demo}/events?"),
        1,
    );
    let mut stream = s
        .http
        .get(format!("{}{events}", s.server.base))
        .send()
        .await
        .unwrap();
    let mut seen = String::new();
    let got = tokio::time::timeout(Duration::from_secs(2), async {
        // The first event, then two comments (`:` lines) with nothing written.
        while seen.matches("\n:").count() + usize::from(seen.starts_with(':')) < 2 {
            let chunk = stream.chunk().await.unwrap().unwrap();
            seen.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    })
    .await;
    assert!(got.is_ok(), "no keep-alive comment in {seen:?}");
    assert!(seen.starts_with("data: "), "{seen:?}");
    s.server.stop().await;
}

#[tokio::test]
async fn members_and_access_are_managed_by_owners_through_share_schedule() {
    let s = Screen::start("web-access").await;
    let demo = s.server.demo_id;
    let store = &s.server.store;
    let bob = store
        .user_by_email("bob@example.org")
        .await
        .unwrap()
        .unwrap();
    let path = format!("/app/schedules/{demo}/access");
    // Linked from the list for the schedules they own only.
    let list = s.get("/app").await.text().await.unwrap();
    assert!(list.contains(&format!("href=\"{path}\"")));
    assert!(!list.contains(&format!("/app/schedules/{}/access", s.shared)));

    let r = s.get(&path).await;
    assert_eq!(r.status(), 200);
    assert_screen_headers(&r);
    let page = r.text().await.unwrap();
    assert!(page.contains("1 personne a accès"), "{page}");
    assert!(page.contains("<td>owner@localhost</td>"));
    let csrf = hidden(&page, "csrf");

    // Given, changed, removed: each a share_schedule by the owner.
    let give = |email: &'static str, role: &'static str| {
        let csrf = csrf.clone();
        let path = path.clone();
        let s = &s;
        async move {
            s.post(&path, &[("csrf", &csrf), ("email", email), ("role", role)])
                .await
        }
    };
    let r = give("bob@example.org", "editor").await;
    assert_eq!((r.status().as_u16(), location(&r)), (303, path.clone()));
    assert_eq!(store.role(demo, bob.id).await.unwrap(), Some(Role::Editor));
    let page = s.get(&path).await.text().await.unwrap();
    assert!(page.contains("2 personnes ont accès") && page.contains("<td>Bob</td>"));
    assert_eq!(give("bob@example.org", "none").await.status(), 303);
    assert_eq!(store.role(demo, bob.id).await.unwrap(), None);

    // The gate's refusals, in the page: the last owner stays, an unknown e-mail.
    let r = give("owner@localhost", "viewer").await;
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("class=\"error\""));
    assert_eq!(
        store.role(demo, s.server.owner_id).await.unwrap(),
        Some(Role::Owner)
    );
    let r = give("nobody@example.org", "viewer").await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("nobody@example.org"));
    // Without the form's token: nothing changes.
    let r = s
        .post(&path, &[("email", "bob@example.org"), ("role", "owner")])
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(store.role(demo, bob.id).await.unwrap(), None);

    // Not an owner there: refused, and share_schedule refuses too.
    let viewer_path = format!("/app/schedules/{}/access", s.shared);
    let r = s.get(&viewer_path).await;
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("Seuls les propriétaires"));
    let r = s
        .post(
            &viewer_path,
            &[
                ("csrf", &csrf),
                ("email", "owner@localhost"),
                ("role", "owner"),
            ],
        )
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(
        store.role(s.shared, s.server.owner_id).await.unwrap(),
        Some(Role::Viewer)
    );
    // Not theirs at all: not found.
    let r = s.get(&format!("/app/schedules/{}/access", s.private)).await;
    assert_eq!(r.status(), 404);
    assert!(!r.text().await.unwrap().contains("bob@example.org"));
    s.server.stop().await;
}

#[tokio::test]
async fn a_write_by_another_process_on_the_database_is_pushed_too() {
    let s = Screen::start("web-elsewhere").await;
    let demo = s.server.demo_id;
    let mut stream = s.screen_events(demo).await;
    let rank = s.server.store.rank(demo).await.unwrap();
    let mut buffer = String::new();
    wait_event(
        &mut stream,
        &mut buffer,
        &rank.to_string(),
        Duration::from_secs(2),
    )
    .await;
    // As a `palmaplan stdio` server started by a desktop client would: its own store
    // on the same file, whose commits this server's broadcast never hears.
    let elsewhere = palmaplan_server::storage::Store::open(&s.server.db_url)
        .await
        .unwrap();
    let planning = palmaplan_server::planning::Planning::new(
        elsewhere,
        std::sync::Arc::new(palmaplan_server::planning::SystemClock),
    );
    let caller = palmaplan_server::planning::Caller {
        user_id: s.server.owner_id,
        can_write: true,
        only_schedule: None,
        max_role: None,
        lang: palmaplan_model::Lang::En,
        apps: false,
        credential: None,
    };
    let w = planning
        .call(
            &caller,
            "update_settings",
            json!({"schedule": demo, "name": "From stdio"}),
        )
        .await;
    assert!(!w.is_error, "{}", w.text);
    // Within the watcher's second (and a margin for a loaded machine).
    wait_event(
        &mut stream,
        &mut buffer,
        &(rank + 1).to_string(),
        Duration::from_secs(5),
    )
    .await;
    s.server.stop().await;
}

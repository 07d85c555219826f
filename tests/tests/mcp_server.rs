//! The server from the outside: a real HTTP server on a loopback port, rmcp's own
//! client with a Bearer token, and plain HTTP requests for what a client sees before
//! MCP starts (401s, Host and Origin checks, /healthz). Every refusal must be a tool
//! result whose text says what to fix, never a protocol error.

mod common;

use common::{TestServer, call};
use palmaplan_server::{auth, bootstrap};
use serde_json::{Value, json};

/// A plain HTTP client (rmcp's reqwest, no TLS: loopback only).
fn http() -> reqwest::Client {
    reqwest::Client::new()
}

/// The first request of an MCP session, as raw JSON-RPC.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

async fn post_initialize(
    server: &TestServer,
    headers: &[(&str, String)],
) -> (u16, Value, reqwest::header::HeaderMap) {
    let mut req = http()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE);
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.text().await.unwrap();
    let json = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, json, headers)
}

fn bearer(token: &str) -> (&'static str, String) {
    ("authorization", format!("Bearer {token}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_is_the_catalogue_with_schemas() {
    let server = TestServer::start("tools-list").await;
    let client = server.client().await;
    let info = client.peer_info().expect("the server introduced itself");
    let me = info.server_info.as_ref().unwrap();
    assert_eq!(me.name, "palmaplan");
    assert_eq!(me.version, env!("CARGO_PKG_VERSION"));
    let instructions = info.instructions.as_deref().unwrap_or_default();
    assert!(
        instructions.contains("list_schedules") && instructions.contains("get_schedule"),
        "{instructions}"
    );
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "list_schedules",
        "get_schedule",
        "create_schedule",
        "add_period",
        "move_periods",
        "apply_patch",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    for tool in &tools {
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 20),
            "{}: no useful description",
            tool.name
        );
        let schema = &tool.input_schema;
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert!(schema["properties"].is_object(), "{}", tool.name);
        assert_eq!(schema["properties"]["lang"]["enum"], json!(["fr", "en"]));
    }
    let add = tools.iter().find(|t| t.name == "add_period").unwrap();
    let required = add.input_schema["required"].as_array().unwrap();
    for field in ["schedule", "row", "label", "start", "end"] {
        assert!(required.contains(&json!(field)), "add_period: {field}");
    }
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessionless_2026_clients_are_served_too() {
    let server = TestServer::start("discover").await;
    let client = server.discover_client().await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "get_schedule"));
    let list = call(&client, "list_schedules", json!({"lang": "en"})).await;
    assert!(!list.is_error, "{}", list.text);
    assert!(list.text.contains("S/4HANA Migration"), "{}", list.text);
    let moved = call(
        &client,
        "move_periods",
        json!({"schedule": server.demo_id, "bars": [palmaplan_model::demo::s4hana_migration().bars[0].id.0], "by": 1}),
    )
    .await;
    assert_eq!(moved.structured["rank"], 1, "{}", moved.text);
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_grow_the_rank_and_stale_patches_write_nothing() {
    let server = TestServer::start("writes").await;
    let client = server.client().await;

    let list = call(&client, "list_schedules", json!({})).await;
    assert!(!list.is_error);
    assert!(list.text.contains("S/4HANA Migration"), "{}", list.text);
    assert_eq!(list.structured["count"], 1);
    assert_eq!(list.structured["schedules"][0]["id"], server.demo_id);

    let created = call(
        &client,
        "create_schedule",
        json!({"name": "Rollout", "demo": true}),
    )
    .await;
    assert!(!created.is_error, "{}", created.text);
    let id = created.structured["schedule_id"].as_i64().unwrap();
    assert_eq!(created.structured["rank"], 0);

    let row = palmaplan_model::demo::s4hana_migration().rows[0].id.0;
    let added = call(
        &client,
        "add_period",
        json!({"schedule": id, "row": row, "label": "Cutover rehearsal",
               "start": "2026-03-02", "end": "2026-03-06"}),
    )
    .await;
    assert!(!added.is_error, "{}", added.text);
    assert_eq!(added.structured["rank"], 1);
    let bar = added.structured["bar"].as_u64().unwrap();

    let moved = call(
        &client,
        "move_periods",
        json!({"schedule": "Rollout", "bars": [bar], "by": 2, "lang": "en"}),
    )
    .await;
    assert!(!moved.is_error, "{}", moved.text);
    assert_eq!(moved.structured["rank"], 2);
    assert!(
        moved.text.contains("moved") && moved.text.contains("Cutover rehearsal"),
        "{}",
        moved.text
    );

    // A patch prepared at rank 0 arrives after two writes: refused, nothing written.
    let stale = call(
        &client,
        "apply_patch",
        json!({"schedule": id, "expected_rank": 0,
               "commands": [{"op": "move_periods", "bars": [bar], "by": 5}]}),
    )
    .await;
    assert!(stale.is_error);
    assert_eq!(stale.structured["error"], "out_of_date");
    assert!(stale.text.contains("plus à jour"), "{}", stale.text);
    let summary = call(&client, "get_schedule", json!({"schedule": id})).await;
    assert_eq!(summary.structured["rank"], 2);
    assert_eq!(
        server.store.changes_since(id, 0, 100).await.unwrap().len(),
        2
    );

    // At the current rank the same patch goes through.
    let fresh = call(
        &client,
        "apply_patch",
        json!({"schedule": id, "expected_rank": 2,
               "commands": [{"op": "move_periods", "bars": [bar], "by": 5}]}),
    )
    .await;
    assert!(!fresh.is_error, "{}", fresh.text);
    assert_eq!(fresh.structured["rank"], 3);

    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_are_refusals_that_say_what_to_fix() {
    let server = TestServer::start("bad-calls").await;
    let client = server.client().await;
    let cases = [
        // missing field
        ("create_schedule", json!({}), "name", "invalid_arguments"),
        // wrong type
        (
            "move_periods",
            json!({"schedule": server.demo_id, "bars": [1], "by": "two"}),
            "by",
            "invalid_arguments",
        ),
        // unknown field
        (
            "get_schedule",
            json!({"schedule": server.demo_id, "verbose": true}),
            "verbose",
            "invalid_arguments",
        ),
        // unknown schedule
        (
            "get_schedule",
            json!({"schedule": 999}),
            "list_schedules",
            "schedule_not_found",
        ),
        // a date that is not one
        (
            "add_period",
            json!({"schedule": server.demo_id, "row": 1, "label": "x", "start": "tomorrow", "end": "2026-01-02"}),
            "YYYY-MM-DD",
            "invalid_arguments",
        ),
        // unknown tool
        (
            "delete_everything",
            json!({}),
            "list_schedules",
            "unknown_tool",
        ),
        // an unknown language
        (
            "list_schedules",
            json!({"lang": "de"}),
            "\"en\"",
            "invalid_arguments",
        ),
    ];
    for (tool, mut args, hint, code) in cases {
        // In English, so the hints are checked in one language.
        if args.get("lang").is_none() {
            args["lang"] = json!("en");
        }
        let a = call(&client, tool, args.clone()).await;
        assert!(a.is_error, "{tool} {args}: not refused: {}", a.text);
        assert_eq!(a.structured["error"], code, "{tool} {args}: {}", a.text);
        assert!(
            a.text.contains(hint),
            "{tool} {args}: the text does not say what to fix ({hint}): {}",
            a.text
        );
    }
    // French by default.
    let fr = call(&client, "get_schedule", json!({"schedule": 999})).await;
    assert!(fr.text.contains("Aucun planning"), "{}", fr.text);
    // Nothing above wrote anything.
    let list = call(&client, "list_schedules", json!({})).await;
    assert_eq!(list.structured["schedules"][0]["rank"], 0);
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_and_restricted_tokens_are_held_to_their_scope() {
    let server = TestServer::start("scopes").await;
    let read_only =
        bootstrap::create_token(&server.store, server.owner_id, "reader", false, None, 2)
            .await
            .unwrap();
    let client = server.client_with(&read_only.secret).await.unwrap();
    let list = call(&client, "list_schedules", json!({})).await;
    assert!(!list.is_error, "{}", list.text);
    let write = call(
        &client,
        "move_periods",
        json!({"schedule": server.demo_id, "bars": [1], "by": 1}),
    )
    .await;
    assert!(write.is_error);
    assert_eq!(write.structured["error"], "read_only_token");
    assert!(write.text.contains("lecture seule"), "{}", write.text);
    client.cancel().await.unwrap();

    // A token restricted to another schedule does not see the demo.
    let other = bootstrap::add_demo(&server.store, server.owner_id, 3)
        .await
        .unwrap();
    let narrow = bootstrap::create_token(
        &server.store,
        server.owner_id,
        "narrow",
        true,
        Some(other),
        3,
    )
    .await
    .unwrap();
    let client = server.client_with(&narrow.secret).await.unwrap();
    let list = call(&client, "list_schedules", json!({})).await;
    assert_eq!(list.structured["count"], 1);
    assert_eq!(list.structured["schedules"][0]["id"], other);
    let demo = call(&client, "get_schedule", json!({"schedule": server.demo_id})).await;
    assert!(demo.is_error);
    assert_eq!(demo.structured["error"], "token_restricted");
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_a_valid_token_get_401_saying_what_to_do() {
    let server = TestServer::start("unauthorized").await;
    let unknown = auth::new_token().unwrap();
    let revoked = bootstrap::create_token(&server.store, server.owner_id, "old", true, None, 2)
        .await
        .unwrap();
    assert!(
        server
            .store
            .revoke_token(server.owner_id, revoked.id, 3)
            .await
            .unwrap()
    );
    let cases: [(Vec<(&str, String)>, &str); 5] = [
        (vec![], "missing_token"),
        (
            vec![("authorization", "Basic b3duZXI6cHc=".into())],
            "malformed_token",
        ),
        (vec![bearer("ppt_short")], "malformed_token"),
        (vec![bearer(&unknown)], "invalid_token"),
        (vec![bearer(&revoked.secret)], "invalid_token"),
    ];
    for (headers, reason) in cases {
        let (status, body, response_headers) = post_initialize(&server, &headers).await;
        assert_eq!(status, 401, "{headers:?}: {body}");
        assert_eq!(body["reason"], reason, "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("palmaplan token create"), "{message}");
        let challenge = response_headers["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    // rmcp's client cannot start a session with a bad token either.
    assert!(server.client_with(&unknown).await.is_err());
    // The right token passes the same request.
    let (status, body, _) = post_initialize(&server, &[bearer(&server.token)]).await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_help_page_speaks_the_person_s_language_and_loads_nothing() {
    let server = TestServer::start("help").await;
    let get = |q: &'static str, accept: Option<&'static str>| {
        let mut r = http().get(format!("{}/help{q}", server.base));
        if let Some(a) = accept {
            r = r.header("accept-language", a);
        }
        r.send()
    };
    for (q, accept, lang, words) in [
        ("?lang=en", None, "en", "Gestures and keys"),
        (
            "?lang=fr",
            Some("en-GB,en;q=0.9"),
            "fr",
            "Gestes et touches",
        ),
        (
            "",
            Some("en-GB,en;q=0.9,fr;q=0.5"),
            "en",
            "What the marks say",
        ),
        // The server's language (French here) when nothing says otherwise.
        ("", None, "fr", "Ce que disent les marques"),
    ] {
        let r = get(q, accept).await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(csp.contains("default-src 'none'"), "{csp}");
        let body = r.text().await.unwrap();
        assert!(
            body.contains(&format!("<html lang=\"{lang}\">")),
            "{q} {accept:?}"
        );
        assert!(body.contains(words), "{q} {accept:?}: {words}");
        assert!(!body.contains("<script") && !body.contains("gzip"), "{q}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_hosts_and_origins_are_refused_and_healthz_answers() {
    let server = TestServer::start("hosts").await;
    let health = http()
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status().as_u16(), 200);
    let body: Value = serde_json::from_str(&health.text().await.unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")})
    );
    let missing = http()
        .get(format!("{}/nowhere", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        missing.status().as_u16(),
        404,
        "unknown paths need no token"
    );

    let token = bearer(&server.token);
    let (status, _, _) =
        post_initialize(&server, &[token.clone(), ("host", "evil.example".into())]).await;
    assert_eq!(status, 403, "a foreign Host (DNS rebinding) is refused");
    let (status, _, _) = post_initialize(
        &server,
        &[token.clone(), ("origin", "https://evil.example".into())],
    )
    .await;
    assert_eq!(status, 403, "a foreign page's Origin is refused");
    let (status, body, _) = post_initialize(
        &server,
        &[token, ("origin", "http://localhost:5173".into())],
    )
    .await;
    assert_eq!(status, 200, "a loopback page is accepted: {body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_survives_a_restart() {
    let server = TestServer::start("restart").await;
    let client = server.client().await;
    for by in [1, 2, -1] {
        let a = call(
            &client,
            "move_periods",
            json!({"schedule": server.demo_id, "bars": [palmaplan_model::demo::s4hana_migration().bars[0].id.0], "by": by}),
        )
        .await;
        assert!(!a.is_error, "{}", a.text);
    }
    let before = server
        .store
        .changes_since(server.demo_id, 0, 100)
        .await
        .unwrap();
    assert_eq!(before.len(), 3);
    let state_before = server.store.load(server.demo_id).await.unwrap().state;
    client.cancel().await.unwrap();
    let (db_url, token, owner, demo) = (
        server.db_url.clone(),
        server.token.clone(),
        server.owner_id,
        server.demo_id,
    );
    server.stop().await;

    let server = TestServer::start_on(&db_url, token, owner, demo).await;
    let client = server.client().await;
    let list = call(&client, "list_schedules", json!({})).await;
    assert_eq!(list.structured["schedules"][0]["rank"], 3, "{}", list.text);
    let after = server.store.changes_since(demo, 0, 100).await.unwrap();
    assert_eq!(
        after.iter().map(|e| e.rank).collect::<Vec<_>>(),
        before.iter().map(|e| e.rank).collect::<Vec<_>>()
    );
    assert_eq!(after[2].commands, before[2].commands);
    assert_eq!(after[2].inverse, before[2].inverse);
    assert_eq!(server.store.load(demo).await.unwrap().state, state_before);
    // And writing goes on from there.
    let next = call(
        &client,
        "move_periods",
        json!({"schedule": demo, "bars": [palmaplan_model::demo::s4hana_migration().bars[0].id.0], "by": 1}),
    )
    .await;
    assert_eq!(next.structured["rank"], 4, "{}", next.text);
    client.cancel().await.unwrap();
    server.stop().await;
}

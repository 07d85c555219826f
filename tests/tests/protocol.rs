//! What `/mcp` answers a client that gets the protocol wrong, and what sessions cost:
//! raw HTTP against a real server on a loopback port (rmcp's client would never send
//! these). Malformed JSON, an `initialize` without a version, a `tools/call` without a
//! name or with arguments that are not an object, a DELETE of a closed session, a
//! session used with another token, CORS preflights; then the per-token session cap,
//! and memory staying bounded when a client opens thousands of sessions and abandons
//! them.

mod common;

use common::TestServer;
use palmaplan_server::bootstrap;
use palmaplan_server::protocol::MAX_SESSIONS_PER_TOKEN;
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

async fn post(
    server: &TestServer,
    token: &str,
    session: Option<&str>,
    body: &str,
) -> (u16, Option<String>, String) {
    let mut req = http()
        .post(&server.url)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    if let Some(s) = session {
        req = req
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-06-18");
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let sid = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, sid, resp.text().await.unwrap())
}

/// The JSON-RPC message of an answer (plain JSON, or the last `data:` of an SSE one).
fn message(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|_| {
        body.lines()
            .rev()
            .filter_map(|l| l.strip_prefix("data: "))
            .find_map(|d| serde_json::from_str(d).ok())
            .unwrap_or(Value::Null)
    })
}

/// A new session, initialised.
async fn session(server: &TestServer, token: &str) -> String {
    let (status, sid, body) = post(server, token, None, INIT).await;
    assert_eq!(status, 200, "{body}");
    let sid = sid.expect("a session id");
    let (status, _, body) = post(
        server,
        token,
        Some(&sid),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(status, 202, "{body}");
    sid
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_messages_get_answers_a_client_can_act_on() {
    let server = TestServer::start("protocol-answers").await;
    let t = server.token.clone();

    let (status, _, body) = post(&server, &t, None, r#"{"jsonrpc":"2.0","#).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(message(&body)["error"]["code"], -32700, "{body}");

    let (status, _, body) = post(
        &server,
        &t,
        None,
        r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{}}}"#,
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let m = message(&body);
    assert_eq!(
        (m["error"]["code"].clone(), m["id"].clone()),
        (json!(-32602), json!(7))
    );
    assert!(body.contains("protocolVersion"), "{body}");

    let sid = session(&server, &t).await;
    for (params, what) in [
        (
            json!({"name": "get_schedule", "arguments": [1]}),
            "arguments",
        ),
        (json!({"arguments": {}}), "name"),
        (json!("get_schedule"), "params"),
    ] {
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params});
        let (status, _, body) = post(&server, &t, Some(&sid), &call.to_string()).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(message(&body)["error"]["code"], -32602, "{params}: {body}");
        assert!(body.contains(what), "{body}");
    }
    // The session still serves good calls.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "list_schedules", "arguments": {}}});
    let (status, _, body) = post(&server, &t, Some(&sid), &call.to_string()).await;
    assert_eq!(status, 200);
    assert_eq!(message(&body)["result"]["isError"], false, "{body}");

    // Another token may not use this session.
    let other = bootstrap::create_token(&server.store, server.owner_id, "other", true, None, 2)
        .await
        .unwrap();
    let (status, _, body) = post(&server, &other.secret, Some(&sid), &call.to_string()).await;
    assert_eq!(status, 404, "{body}");

    // DELETE closes it; a second DELETE finds nothing.
    let delete = || {
        http()
            .delete(&server.url)
            .header("authorization", format!("Bearer {t}"))
            .header("mcp-session-id", sid.as_str())
            .send()
    };
    assert!(delete().await.unwrap().status().is_success());
    assert_eq!(delete().await.unwrap().status().as_u16(), 404);
    let (status, _, _) = post(&server, &t, Some(&sid), &call.to_string()).await;
    assert_eq!(status, 404);

    // CORS: a loopback page's preflight is answered without a token; another's is not
    // allowed.
    let preflight = |origin: &str| {
        http()
            .request(reqwest::Method::OPTIONS, &server.url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, mcp-session-id",
            )
            .send()
    };
    let ok = preflight("http://localhost:6274").await.unwrap();
    assert!(ok.status().is_success(), "{}", ok.status());
    assert_eq!(
        ok.headers()["access-control-allow-origin"],
        "http://localhost:6274"
    );
    let allowed = ok.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(allowed.contains("mcp-session-id") && allowed.contains("authorization"));
    let evil = preflight("https://evil.example").await.unwrap();
    assert!(evil.headers().get("access-control-allow-origin").is_none());
    server.stop().await;
}

/// Resident memory of this process (the server runs in it), in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_capped_per_token_and_memory_stays_bounded() {
    let server = TestServer::start("protocol-sessions").await;
    let t = server.token.clone();
    // Past the cap, the least recently used sessions are closed.
    let mut ids = Vec::new();
    for _ in 0..MAX_SESSIONS_PER_TOKEN + 8 {
        ids.push(session(&server, &t).await);
    }
    let list = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#;
    for (i, sid) in ids.iter().enumerate() {
        let (status, _, _) = post(&server, &t, Some(sid), list).await;
        let expected = if i < 8 { 404 } else { 200 };
        assert_eq!(status, expected, "session {i}");
    }

    // 10,000 sessions opened and abandoned (never closed): memory grows by less than
    // 100 MB over the warmed-up server's. Bounded in time: 8 at once.
    let idle = rss();
    let n = 10_000;
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for w in 0..8 {
        let url = server.url.clone();
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let client = http();
            for _ in (w..n).step_by(8) {
                let resp = client
                    .post(&url)
                    .header("authorization", format!("Bearer {t}"))
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(INIT)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(resp.status().as_u16(), 200);
                let _ = resp.text().await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let grown = rss().saturating_sub(idle);
    eprintln!(
        "{n} abandoned sessions in {:?}: RSS +{} MB",
        started.elapsed(),
        grown >> 20
    );
    assert!(grown < 100 << 20, "RSS grew by {} MB", grown >> 20);
    // And the token's newest sessions work.
    let sid = session(&server, &t).await;
    let (status, _, _) = post(&server, &t, Some(&sid), list).await;
    assert_eq!(status, 200);
    server.stop().await;
}

//! Hostile input against the built binary, as an attacker or a careless client would
//! send it: 100,000 levels of nesting in a filter (through `filter_periods`,
//! `show_schedule` and a read-only `/embed` link), in a tool's arguments and in a
//! patch's commands, and a filter of 100,000 characters. Each gets a refusal that says
//! what to fix, and the server answers afterwards: nothing aborts the process.
//!
//! It drives the binary Cargo built for this test run, so `cargo test --release -p
//! palmaplan-server --test hostile` (a step of `.ci/test.sh`) checks the release build,
//! whose stack frames differ from the debug build's.

mod common;

use common::Server;
use serde_json::{Value, json};

const LEVELS: usize = 100_000;

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Deeply nested filters, each of 100,000 levels (or characters).
fn deep_filters() -> Vec<(&'static str, String)> {
    vec![
        ("parentheses", "(".repeat(LEVELS) + "x"),
        ("negations", "-".repeat(LEVELS) + "x"),
        (
            "a valid expression",
            "(".repeat(LEVELS) + "label:x" + &")".repeat(LEVELS),
        ),
        ("words", "not ".repeat(LEVELS) + "x"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_is_refused_and_the_server_stays_up() {
    let mut server = Server::start("all").await;
    let sid = server.session().await;

    for (what, filter) in deep_filters() {
        for (tool, args) in [
            ("list_periods", json!({"schedule": 1, "filter": filter})),
            ("show_schedule", json!({"schedule": 1, "filter": filter})),
        ] {
            let r = server.call(&sid, tool, args).await;
            assert_eq!(r["isError"], true, "{tool} {what}: {}", text(&r));
            let t = text(&r);
            assert!(
                t.contains("64 levels") || t.contains("4,096"),
                "{tool} {what}: says what to fix: {}",
                &t[..t.len().min(400)]
            );
        }
        server.alive().await;
    }

    // Arguments and commands nested 100,000 levels: the JSON itself is refused.
    let deep_value = "[".repeat(LEVELS) + &"]".repeat(LEVELS);
    for (tool, field) in [("list_periods", "filter"), ("apply_patch", "commands")] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"{tool}","arguments":{{"schedule":1,"{field}":{deep_value}}}}}}}"#
        );
        let (status, m) = server.call_raw(&sid, body).await;
        assert_eq!(status, 400, "{tool}: {m}");
        assert_eq!(m["error"]["code"], -32700, "{tool}: {m}");
    }
    server.alive().await;

    // Through a read-only /embed link, as any viewer of a link could.
    let shown = server
        .call(&sid, "show_schedule", json!({"schedule": 1}))
        .await;
    let url = shown["structuredContent"]["url"]
        .as_str()
        .expect("an /embed link")
        .to_owned();
    let link_token = url.split("?t=").nth(1).unwrap().to_owned();
    for (what, filter) in deep_filters() {
        let resp = server
            .http
            .post(format!("{}/embed/1/call", server.base))
            .header("authorization", format!("Embed {link_token}"))
            .json(&json!({"tool": "show_schedule", "arguments": {"filter": filter}}))
            .send()
            .await
            .expect("the server answers");
        let r: Value = resp.json().await.unwrap();
        assert_eq!(r["isError"], true, "link {what}: {r}");
    }
    let resp = server
        .http
        .post(format!("{}/embed/1/call", server.base))
        .header("authorization", format!("Embed {link_token}"))
        .header("content-type", "application/json")
        .body(format!(
            r#"{{"tool":"get_schedule","arguments":{{"x":{deep_value}}}}}"#
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    server.alive().await;
    server.child.kill().await.unwrap();
}

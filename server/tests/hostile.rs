//! Hostile input against the built binary, as an attacker or a careless client would
//! send it: 100,000 levels of nesting in a filter (through `filter_periods`,
//! `show_schedule` and a read-only `/embed` link), in a tool's arguments and in a
//! patch's commands, and a filter of 100,000 characters. Each gets a refusal that says
//! what to fix, and the server answers afterwards: nothing aborts the process.
//!
//! It drives the binary Cargo built for this test run, so `cargo test --release -p
//! palmaplan-server --test hostile` (a step of `.ci/test.sh`) checks the release build,
//! whose stack frames differ from the debug build's.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const LEVELS: usize = 100_000;

struct Server {
    child: Child,
    base: String,
    token: String,
    http: reqwest::Client,
}

impl Server {
    async fn start(name: &str) -> Server {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-hostile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_palmaplan"))
            .arg("--data-dir")
            .arg(&dir)
            .args(["--lang", "en", "serve", "--addr", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .env_remove("PALMAPLAN_PUBLIC_URL")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let (mut token, mut base) = (None, None);
        let read = async {
            while let Some(line) = lines.next_line().await.unwrap() {
                let line = line.trim();
                if token.is_none() && line.starts_with("ppt_") {
                    token = Some(line.to_owned());
                }
                if base.is_none()
                    && let Some(at) = line.find("http://127.0.0.1:")
                {
                    let url = &line[at..];
                    let end = url.find("/mcp").unwrap_or(url.len());
                    base = Some(url[..end].to_owned());
                }
                if token.is_some() && base.is_some() {
                    break;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .expect("the banner within 60 s");
        Server {
            child,
            base: base.expect("the address"),
            token: token.expect("the token"),
            http: reqwest::Client::new(),
        }
    }

    /// One JSON-RPC message in a stateless exchange of the 2025-06-18 protocol is not
    /// allowed, so a session is opened once and reused.
    async fn session(&self) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "1"}}});
        let resp = self.post(None, init.to_string()).await;
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .expect("a session")
            .to_str()
            .unwrap()
            .to_owned();
        let _ = resp.text().await;
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let _ = self.post(Some(&sid), note.to_string()).await.text().await;
        sid
    }

    async fn post(&self, session: Option<&str>, body: String) -> reqwest::Response {
        let mut req = self
            .http
            .post(format!("{}/mcp", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(s) = session {
            req = req
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", "2025-06-18");
        }
        req.send().await.expect("the server answers")
    }

    /// A raw tools/call body's answer: (HTTP status, the JSON-RPC message).
    async fn call_raw(&self, sid: &str, body: String) -> (u16, Value) {
        let resp = self.post(Some(sid), body).await;
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        let message = serde_json::from_str(&text).unwrap_or_else(|_| {
            text.lines()
                .rev()
                .filter_map(|l| l.strip_prefix("data: "))
                .find_map(|d| serde_json::from_str(d).ok())
                .unwrap_or(Value::Null)
        });
        (status, message)
    }

    async fn call(&self, sid: &str, tool: &str, args: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}});
        let (status, m) = self.call_raw(sid, body.to_string()).await;
        assert_eq!(status, 200, "{m}");
        m["result"].clone()
    }

    async fn alive(&mut self) {
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "the server process died"
        );
        let health = self
            .http
            .get(format!("{}/healthz", self.base))
            .send()
            .await
            .expect("the server still answers");
        assert!(health.status().is_success());
    }
}

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
            ("filter_periods", json!({"schedule": 1, "filter": filter})),
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
    for (tool, field) in [("filter_periods", "filter"), ("apply_patch", "commands")] {
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

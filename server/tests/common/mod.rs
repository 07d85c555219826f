//! The harness of the tests that drive the built binary: `palmaplan serve` as a child
//! process on a port of the system's choosing, over a data folder of its own that a
//! restart serves again, spoken to in raw HTTP (a session, tool calls, health).

#![allow(dead_code)] // each test file uses part of it

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub(crate) struct Server {
    pub(crate) child: Child,
    dir: PathBuf,
    pub(crate) base: String,
    pub(crate) token: String,
    pub(crate) http: reqwest::Client,
}

impl Server {
    /// The binary serving a fresh data folder named after the test, on a port of the
    /// system's choosing, with the first start's token.
    pub(crate) async fn start(name: &str) -> Server {
        let dir = std::env::temp_dir().join(format!("palmaplan-bin-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Server::serve(dir, None).await
    }

    /// The same data folder served again by a new process (after a stop or a crash).
    pub(crate) async fn restart(&mut self) {
        let _ = self.child.kill().await;
        let again = Server::serve(self.dir.clone(), Some(self.token.clone())).await;
        *self = again;
    }

    /// Kills the process at once (SIGKILL: no shutdown, no flush).
    pub(crate) async fn kill9(&mut self) {
        self.child.kill().await.unwrap();
    }

    async fn serve(dir: PathBuf, token: Option<String>) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_palmaplan"))
            .arg("--data-dir")
            .arg(&dir)
            .args(["--lang", "en", "serve", "--addr", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .env_remove("PALMAPLAN_PUBLIC_URL")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        // The first start prints the token and the address on stdout; every start logs
        // the address on stderr.
        let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
        let (mut token, mut base) = (token, None);
        let read = async {
            loop {
                let line = tokio::select! {
                    l = out.next_line() => l.unwrap(),
                    l = err.next_line() => l.unwrap(),
                };
                let Some(line) = line else { break };
                let line = line.trim();
                if token.is_none() && line.starts_with("ppt_") {
                    token = Some(line.to_owned());
                }
                if let Some(at) = line.find("url=http://127.0.0.1:") {
                    let url = &line[at + 4..];
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
            .expect("the server starts within 60 s");
        // Keep draining the logs, so that the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = err.next_line().await {} });
        tokio::spawn(async move { while let Ok(Some(_)) = out.next_line().await {} });
        Server {
            child,
            dir,
            base: base.expect("the address"),
            token: token.expect("the token"),
            http: reqwest::Client::new(),
        }
    }

    /// One JSON-RPC message in a stateless exchange of the 2025-06-18 protocol is not
    /// allowed, so a session is opened once and reused.
    pub(crate) async fn session(&self) -> String {
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

    pub(crate) async fn post(&self, session: Option<&str>, body: String) -> reqwest::Response {
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
    pub(crate) async fn call_raw(&self, sid: &str, body: String) -> (u16, Value) {
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

    pub(crate) async fn call(&self, sid: &str, tool: &str, args: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}});
        let (status, m) = self.call_raw(sid, body.to_string()).await;
        assert_eq!(status, 200, "{m}");
        m["result"].clone()
    }

    pub(crate) async fn alive(&mut self) {
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

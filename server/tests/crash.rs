//! A crash loses no acknowledged write: the built binary takes a stream of writes, is
//! killed with SIGKILL in the middle of it (three times), and each restart finds every
//! write it had acknowledged, in the state and in the journal, at the rank it was
//! acknowledged at. The state is rebuilt from the snapshot and the journal after it, so
//! this is also the restart path.

mod common;

use std::sync::{Arc, Mutex};

use common::Server;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_writes_loses_no_acknowledged_write() {
    let mut server = Server::start("crash").await;
    let mut acknowledged: Vec<(i64, String)> = Vec::new();
    for round in 0..3 {
        let sid = server.session().await;
        let acks = Arc::new(Mutex::new(Vec::new()));
        // Writes keep coming while the process is killed after the 60th answer.
        let writer = {
            let (base, token, acks) =
                (server.base.clone(), server.token.clone(), Arc::clone(&acks));
            let sid = sid.clone();
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                for n in 0..10_000 {
                    let label = format!("r{round}-n{n}");
                    let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                        "params": {"name": "add_period", "arguments": {
                            "schedule": 1, "row": 6, "label": label,
                            "start": "2026-11-02", "end": "2026-11-03"}}});
                    let sent = http
                        .post(format!("{base}/mcp"))
                        .header("authorization", format!("Bearer {token}"))
                        .header("content-type", "application/json")
                        .header("accept", "application/json, text/event-stream")
                        .header("mcp-session-id", &sid)
                        .header("mcp-protocol-version", "2025-06-18")
                        .body(body.to_string())
                        .send()
                        .await;
                    let Ok(resp) = sent else { break };
                    let Ok(text) = resp.text().await else { break };
                    let rank = text
                        .lines()
                        .filter_map(|l| l.strip_prefix("data: "))
                        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                        .find_map(|m| m["result"]["structuredContent"]["rank"].as_i64());
                    match rank {
                        Some(r) => acks.lock().unwrap().push((r, label)),
                        None => break,
                    }
                }
            })
        };
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            if acks.lock().unwrap().len() >= 60 {
                break;
            }
        }
        server.kill9().await;
        let _ = writer.await;
        acknowledged.extend(acks.lock().unwrap().drain(..));

        let started = std::time::Instant::now();
        server.restart().await;
        eprintln!("round {round}: restarted in {:?}", started.elapsed());
        let sid = server.session().await;
        let exported = server
            .call(
                &sid,
                "export_schedule",
                json!({"schedule": 1, "format": "json"}),
            )
            .await;
        assert_eq!(exported["isError"], false, "{exported}");
        let text = exported.to_string();
        // The journal, page by page.
        let mut ranks = std::collections::BTreeSet::new();
        let mut since = 0;
        loop {
            let page = server
                .call(&sid, "history", json!({"schedule": 1, "since_rank": since}))
                .await;
            let s = &page["structuredContent"];
            for e in s["entries"].as_array().cloned().unwrap_or_default() {
                ranks.insert(e["rank"].as_i64().unwrap_or(0));
            }
            match s["next_since"].as_i64() {
                Some(next) if s["more"] == true && next > since => since = next,
                _ => break,
            }
        }
        for (rank, label) in &acknowledged {
            assert!(
                text.contains(label.as_str()),
                "round {round}: {label} (rank {rank}) lost"
            );
            assert!(
                ranks.contains(rank),
                "round {round}: rank {rank} not in the journal"
            );
        }
        let summary = server
            .call(&sid, "get_schedule", json!({"schedule": 1}))
            .await;
        let rank = summary["structuredContent"]["rank"].as_i64().unwrap();
        let last = acknowledged.iter().map(|(r, _)| *r).max().unwrap();
        assert!(
            rank >= last,
            "rank {rank} behind the last acknowledged {last}"
        );
    }
    assert!(acknowledged.len() >= 180);
    server.alive().await;
}

//! The server's loopback benchmark (issue 3): throughput and latency of a read tool
//! (`get_schedule`), a write (`move_periods`) and a changes-since poll with no change
//! (`get_changes` at the current rank), with 1, 16 and 64 concurrent clients, each its
//! own MCP session over HTTP with rmcp's client, against a real server running in this
//! process on 127.0.0.1 over a temporary SQLite file holding a 10,000-bar schedule.
//!
//! Run: `cargo bench -p palmaplan-tests --bench loopback` (release). It prints a
//! Markdown table ready for docs/benchmarks.md. Each cell runs for `LOOPBACK_SECS`
//! seconds (5 by default) and at most `MAX_PER_CELL` requests; requests in flight at
//! the deadline are finished and counted. A bench binary, not a test: CI only builds it.
//!
//! Server and clients share the machine (and this process's runtime), so the figures
//! are those of the whole loop: client encoding, HTTP, session, token check, tool,
//! database, and back.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{Client, TestServer};
use palmaplan_model::synth::{Spec, generate};
use rmcp::model::CallToolRequestParams;
use rmcp::{Peer, RoleClient};
use serde_json::{Map, Value, json};

/// Bars in the benchmarked schedule.
const BARS: usize = 10_000;
/// Concurrent clients per cell.
const CONCURRENCY: [usize; 3] = [1, 16, 64];
/// Seconds per cell unless `LOOPBACK_SECS` says otherwise.
const DEFAULT_SECS: u64 = 5;
/// A bound on the requests of one cell, whatever the speed.
const MAX_PER_CELL: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Workload {
    /// `get_schedule`: the summary of the whole schedule (counts, risks).
    Read,
    /// `move_periods` of one bar, +1 then -1 working day; each client its own bar.
    Move,
    /// `get_changes` at the current rank while nothing changes.
    Poll,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Read => "read (`get_schedule`)",
            Workload::Move => "write (`move_periods`, 1 bar)",
            Workload::Poll => "poll (`get_changes`, no change)",
        }
    }
}

/// What one cell measured.
#[derive(Debug)]
struct Cell {
    workload: Workload,
    clients: usize,
    /// Latencies of the successful requests.
    latencies: Vec<Duration>,
    /// Requests answered with a refusal (or, for a poll, with changes).
    errors: usize,
    /// From the start to the last answer.
    elapsed: Duration,
}

impl Cell {
    fn row(&self) -> String {
        let mut l = self.latencies.clone();
        l.sort_unstable();
        let n = l.len();
        let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1000.0);
        // Nearest-rank percentiles.
        let pct = |p: f64| {
            if n == 0 {
                "-".to_owned()
            } else {
                let i = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
                ms(l[i])
            }
        };
        let total = n + self.errors;
        format!(
            "| {} | {} | {} | {} | {:.0} | {} | {} | {} |",
            self.workload.name(),
            self.clients,
            total,
            self.errors,
            n as f64 / self.elapsed.as_secs_f64(),
            pct(0.50),
            pct(0.99),
            l.last().map_or("-".to_owned(), |d| ms(*d)),
        )
    }
}

/// The arguments of a client's request number `k` (writes alternate +1 and -1).
fn arguments(w: Workload, schedule: i64, bar: u64, rank: i64, k: usize) -> Map<String, Value> {
    let v = match w {
        Workload::Read => json!({ "schedule": schedule }),
        Workload::Move => {
            let by = if k.is_multiple_of(2) { 1 } else { -1 };
            json!({ "schedule": schedule, "bars": [bar], "by": by })
        }
        Workload::Poll => json!({ "schedule": schedule, "since_rank": rank }),
    };
    match v {
        Value::Object(m) => m,
        _ => unreachable!("the arguments are an object"),
    }
}

fn tool(w: Workload) -> &'static str {
    match w {
        Workload::Read => "get_schedule",
        Workload::Move => "move_periods",
        Workload::Poll => "get_changes",
    }
}

/// One request; true when it did what the workload expects.
async fn request(client: &Peer<RoleClient>, w: Workload, args: Map<String, Value>) -> bool {
    let params = CallToolRequestParams::new(tool(w)).with_arguments(args);
    let result = client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{}: a protocol error: {e}", tool(w)));
    if result.is_error == Some(true) {
        return false;
    }
    match w {
        Workload::Poll => result
            .structured_content
            .as_ref()
            .and_then(|s| s["entries"].as_array())
            .is_some_and(Vec::is_empty),
        _ => true,
    }
}

/// One client's loop until the deadline (or its share of `MAX_PER_CELL`).
async fn client_loop(
    client: &Peer<RoleClient>,
    w: Workload,
    schedule: i64,
    bar: u64,
    rank: i64,
    deadline: Instant,
    max: usize,
) -> (Vec<Duration>, usize, Instant) {
    let mut latencies = Vec::new();
    let mut errors = 0;
    let mut k = 0;
    while k < max && Instant::now() < deadline {
        let args = arguments(w, schedule, bar, rank, k);
        let t = Instant::now();
        if request(client, w, args).await {
            latencies.push(t.elapsed());
        } else {
            errors += 1;
        }
        k += 1;
    }
    let last = Instant::now();
    // A write loop that stopped after a +1 puts its bar back (untimed).
    if w == Workload::Move && !k.is_multiple_of(2) {
        request(client, w, arguments(w, schedule, bar, rank, k)).await;
    }
    (latencies, errors, last)
}

async fn run_cell(
    clients: &[Client],
    w: Workload,
    schedule: i64,
    bars: &[u64],
    rank: i64,
    secs: u64,
) -> Cell {
    let start = Instant::now();
    let deadline = start + Duration::from_secs(secs);
    let max = MAX_PER_CELL / clients.len();
    // One task per client, so that clients run on every worker thread as real ones would.
    let mut tasks = tokio::task::JoinSet::new();
    for (c, client) in clients.iter().enumerate() {
        // Bars far apart, so that concurrent writers touch different rows.
        let bar = bars[(c * 97) % bars.len()];
        let peer = client.peer().clone();
        tasks.spawn(async move { client_loop(&peer, w, schedule, bar, rank, deadline, max).await });
    }
    let done = tasks.join_all().await;
    let mut cell = Cell {
        workload: w,
        clients: clients.len(),
        latencies: Vec::new(),
        errors: 0,
        elapsed: Duration::ZERO,
    };
    for (l, e, last) in done {
        cell.latencies.extend(l);
        cell.errors += e;
        cell.elapsed = cell.elapsed.max(last - start);
    }
    cell
}

async fn bench(secs: u64) {
    let server = TestServer::start("loopback-bench").await;
    let schedule = generate(Spec::new(BARS));
    let bars: Vec<u64> = schedule.bars.iter().map(|b| b.id.0).collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let id = server
        .store
        .create_schedule(&schedule, server.owner_id, now)
        .await
        .unwrap();
    let db_path = server.db_url.trim_start_matches("sqlite://").to_owned();
    let state_bytes = serde_json::to_string(&schedule).unwrap().len();

    let max_clients = CONCURRENCY.iter().copied().max().unwrap_or(1);
    let mut clients = Vec::with_capacity(max_clients);
    for _ in 0..max_clients {
        clients.push(server.client().await);
    }
    // Checks (and warms) each workload once.
    let first = clients[0]
        .call_tool(
            CallToolRequestParams::new("get_schedule").with_arguments(arguments(
                Workload::Read,
                id,
                0,
                0,
                0,
            )),
        )
        .await
        .unwrap();
    let bars_seen = first
        .structured_content
        .as_ref()
        .map(|s| s["counts"]["bars"].clone());
    assert_eq!(bars_seen, Some(json!(BARS)), "the schedule has {BARS} bars");
    let read_text = first
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.len()))
        .sum::<usize>();

    eprintln!(
        "loopback bench: {BARS} bars ({:.1} MB of state JSON), SQLite at {db_path}, {} cores, {secs} s per cell; get_schedule answers {read_text} chars of text",
        state_bytes as f64 / 1e6,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    let mut rows = Vec::new();
    for w in [Workload::Read, Workload::Move, Workload::Poll] {
        for &n in &CONCURRENCY {
            let rank = server.store.rank(id).await.unwrap();
            let cell = run_cell(&clients[..n], w, id, &bars, rank, secs).await;
            let row = cell.row();
            eprintln!("{row}");
            rows.push(row);
        }
    }
    for c in clients {
        let _ = c.cancel().await;
    }
    server.stop().await;
    if let Some(dir) = std::path::Path::new(&db_path).parent() {
        let _ = std::fs::remove_dir_all(dir);
    }

    println!();
    println!("| workload | clients | requests | errors | req/s | p50 ms | p99 ms | max ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!("{r}");
    }
}

fn main() {
    let secs = std::env::var("LOOPBACK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SECS);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(bench(secs));
}

//! The server's loopback benchmark (issues 3 and 19): throughput and latency of a read
//! tool (`get_schedule`), a write (`move_periods`) and a changes-since poll with no
//! change (`history` since the current rank), with 1 and 16 concurrent clients (64
//! with `LOOPBACK_CLIENTS=1,16,64`), each its own MCP session over HTTP with rmcp's
//! client, against a real server running in this process on 127.0.0.1 over a
//! temporary SQLite file holding the demo, a 10,000-bar and a 100,000-bar schedule.
//! Then, in the same run: the write's p50 at 100,000 bars against the demo's, the
//! write throughput against the idle polls', the bytes a one-bar write stores, idle
//! polls in an open loop (500 views polling every 2 s), a restart reading a 100,000-bar
//! snapshot and 10,000 entries after it, and the peak memory with ten 100,000-bar
//! schedules open.
//!
//! Run: `cargo bench -p palmaplan-tests --bench loopback` (release). It prints Markdown
//! ready for docs/benchmarks.md. Each cell runs for `LOOPBACK_SECS` seconds (5 by
//! default) and at most `MAX_PER_CELL` requests; requests in flight at the deadline are
//! finished and counted. A bench binary, not a test: CI only builds it.
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

/// The generated schedules' sizes (the demo comes first, with its 6 bars).
const SIZES: [usize; 2] = [10_000, 100_000];
/// Concurrent clients per cell, unless `LOOPBACK_CLIENTS` says otherwise.
const CONCURRENCY: [usize; 2] = [1, 16];
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
    /// `history` since the current rank while nothing changes.
    Poll,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Read => "read (`get_schedule`)",
            Workload::Move => "write (`move_periods`, 1 bar)",
            Workload::Poll => "poll (`history` since a rank, no change)",
        }
    }
}

/// What one cell measured.
#[derive(Debug)]
struct Cell {
    workload: Workload,
    clients: usize,
    /// The schedule's bars.
    bars: usize,
    /// Latencies of the successful requests.
    latencies: Vec<Duration>,
    /// Requests answered with a refusal (or, for a poll, with changes).
    errors: usize,
    /// From the start to the last answer.
    elapsed: Duration,
}

impl Cell {
    fn p50(&self) -> f64 {
        let mut l = self.latencies.clone();
        l.sort_unstable();
        l.get(l.len() / 2)
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    }

    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

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
            "| {} | {} | {} | {} | {} | {:.0} | {} | {} | {} |",
            self.workload.name(),
            self.bars,
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
        Workload::Poll => "history",
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
    let size = bars.len();
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
        bars: size,
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

/// Nearest-rank percentile of latencies, in ms.
fn percentile(l: &mut [Duration], p: f64) -> f64 {
    l.sort_unstable();
    if l.is_empty() {
        return f64::NAN;
    }
    let i = ((p * l.len() as f64).ceil() as usize).clamp(1, l.len()) - 1;
    l[i].as_secs_f64() * 1000.0
}

/// Resident memory of this process now and at its peak, in MB.
fn memory_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn bench(secs: u64) {
    let server = TestServer::start("loopback-bench").await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let mut schedules = vec![(server.demo_id, palmaplan_model::demo::s4hana_migration())];
    for &n in &SIZES {
        let s = generate(Spec::new(n));
        let id = server
            .store
            .create_schedule(&s, server.owner_id, now)
            .await
            .unwrap();
        schedules.push((id, s));
    }
    let db_path = server.db_url.trim_start_matches("sqlite://").to_owned();
    let concurrency: Vec<usize> = std::env::var("LOOPBACK_CLIENTS")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| CONCURRENCY.to_vec());
    let max_clients = concurrency.iter().copied().max().unwrap_or(1);
    let mut clients = Vec::with_capacity(max_clients);
    for _ in 0..max_clients {
        clients.push(server.client().await);
    }
    eprintln!(
        "loopback bench: demo, {SIZES:?} bars, SQLite at {db_path}, {} cores, {secs} s per cell",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    let mut rows = Vec::new();
    let mut cells = Vec::new();
    for (id, s) in &schedules {
        let bars: Vec<u64> = s.bars.iter().map(|b| b.id.0).collect();
        // Checks (and warms) the schedule once.
        let first = clients[0]
            .call_tool(
                CallToolRequestParams::new("get_schedule").with_arguments(arguments(
                    Workload::Read,
                    *id,
                    0,
                    0,
                    0,
                )),
            )
            .await
            .unwrap();
        let seen = first
            .structured_content
            .as_ref()
            .map(|v| v["counts"]["bars"].clone());
        assert_eq!(seen, Some(json!(bars.len())));
        for w in [Workload::Read, Workload::Move, Workload::Poll] {
            for &n in &concurrency {
                let rank = server.store.rank(*id).await.unwrap();
                let cell = run_cell(&clients[..n], w, *id, &bars, rank, secs).await;
                let row = cell.row();
                eprintln!("{row}");
                rows.push(row);
                cells.push(cell);
            }
        }
    }
    let find = |w: Workload, bars: usize, clients: usize| {
        cells
            .iter()
            .find(|c| c.workload == w && c.bars == bars && c.clients == clients)
    };
    let demo_bars = schedules[0].1.bars.len();
    let mut ratios = Vec::new();
    if let (Some(small), Some(big)) = (
        find(Workload::Move, demo_bars, 1),
        find(Workload::Move, 100_000, 1),
    ) {
        ratios.push(format!(
            "- one-bar `move_periods`, 1 client: p50 {:.2} ms at 100,000 bars, {:.2} ms on the demo: {:.2}× (target 1.5×, and under 5 ms)",
            big.p50(),
            small.p50(),
            big.p50() / small.p50()
        ));
    }
    for bars in SIZES {
        let most = concurrency.iter().copied().max().unwrap_or(1);
        if let (Some(wr), Some(po)) = (
            find(Workload::Move, bars, most),
            find(Workload::Poll, bars, most),
        ) {
            ratios.push(format!(
                "- {most} clients at {bars} bars: {:.0} writes/s, {:.0} idle polls/s: {:.2} of the polls' rate (targets: 1,000 writes/s, and half the polls')",
                wr.rate(),
                po.rate(),
                wr.rate() / po.rate()
            ));
        }
    }

    // What a one-bar write stores: its entry (the schedules row changes only its rank).
    let mut stored = Vec::new();
    for (id, s) in &schedules {
        let rank = server.store.rank(*id).await.unwrap();
        let e = server.store.entry(*id, rank).await.unwrap().unwrap();
        let snap = server.store.snapshot_rank(*id).await.unwrap();
        stored.push(format!(
            "- {} bars: the last write stored {} bytes of journal entry (state JSON: {:.1} MB, stored at snapshot rank {snap}, not by the write)",
            s.bars.len(),
            e.commands.len() + e.inverse.len(),
            serde_json::to_string(s).unwrap().len() as f64 / 1e6
        ));
    }

    // Idle polls in an open loop: 500 views polling every 2 s (250 requests/s), for
    // the cell's seconds, spread over the clients' sessions.
    let (big_id, _) = schedules[2].clone();
    let rank = server.store.rank(big_id).await.unwrap();
    let open_loop = {
        let rate = 250.0;
        let total = (rate * secs as f64) as usize;
        let start = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for k in 0..total {
            let at = start + Duration::from_secs_f64(k as f64 / rate);
            let peer = clients[k % clients.len()].peer().clone();
            tasks.spawn(async move {
                tokio::time::sleep_until(at.into()).await;
                let t = Instant::now();
                let ok = request(
                    &peer,
                    Workload::Poll,
                    arguments(Workload::Poll, big_id, 0, rank, 0),
                )
                .await;
                (t.elapsed(), ok)
            });
        }
        let mut l: Vec<Duration> = Vec::new();
        let mut errors = 0;
        for (d, ok) in tasks.join_all().await {
            if ok { l.push(d) } else { errors += 1 }
        }
        format!(
            "- idle `history` since-rank polls in an open loop at 250 requests/s on the 100,000-bar schedule: {} answered, {errors} errors, p50 {:.2} ms, p99 {:.2} ms (target p99 under 5 ms)",
            l.len(),
            percentile(&mut l.clone(), 0.5),
            percentile(&mut l, 0.99)
        )
    };
    for c in clients {
        let _ = c.cancel().await;
    }
    server.stop().await;

    // Restart: a 100,000-bar snapshot and 10,000 entries after it, read by a new store.
    let restart = {
        let url = format!(
            "sqlite://{}",
            std::path::Path::new(&db_path)
                .with_file_name("restart.sqlite")
                .display()
        );
        let opts = palmaplan_server::storage::StoreOptions {
            snapshot_every: i64::MAX,
            ..Default::default()
        };
        let store = palmaplan_server::storage::Store::open_with(&url, opts)
            .await
            .unwrap();
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let s = &schedules[2].1;
        let id = store.create_schedule(s, owner, 0).await.unwrap();
        let bars: Vec<_> = s.bars.iter().map(|b| b.id).collect();
        for k in 0..10_000usize {
            let cmd = palmaplan_model::command::Command::MovePeriods {
                bars: vec![bars[(k / 2 * 97) % bars.len()]],
                milestones: vec![],
                by: if k % 2 == 0 { 1 } else { -1 },
            };
            store
                .write(id, owner, 0, None, |_| {
                    Ok::<_, palmaplan_model::command::ApplyError>(
                        palmaplan_server::storage::Change {
                            commands: vec![cmd.clone()],
                            kind: palmaplan_server::storage::EntryKind::Write,
                            target_rank: None,
                            cascade: None,
                            result: (),
                        },
                    )
                })
                .await
                .unwrap()
                .unwrap();
        }
        drop(store);
        let t = Instant::now();
        let fresh = palmaplan_server::storage::Store::open(&url).await.unwrap();
        let loaded = fresh.load_shared(id).await.unwrap();
        let took = t.elapsed();
        assert_eq!(loaded.0, 10_000);
        assert_eq!(fresh.snapshot_rank(id).await.unwrap(), 0);
        format!(
            "- reopening: a new process reads the 100,000-bar snapshot and replays 10,000 entries in {:.0} ms (target under 2 s)",
            took.as_secs_f64() * 1000.0
        )
    };

    // Memory: ten 100,000-bar schedules open in one store.
    let memory = {
        let url = format!(
            "sqlite://{}",
            std::path::Path::new(&db_path)
                .with_file_name("ten.sqlite")
                .display()
        );
        let store = palmaplan_server::storage::Store::open(&url).await.unwrap();
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let (before, _) = memory_mb();
        let mut ids = Vec::new();
        for _ in 0..10 {
            ids.push(
                store
                    .create_schedule(&schedules[2].1, owner, 0)
                    .await
                    .unwrap(),
            );
        }
        drop(schedules);
        for id in &ids {
            store.load_shared(*id).await.unwrap();
        }
        let (rss, peak) = memory_mb();
        format!(
            "- ten 100,000-bar schedules open: RSS {rss:.0} MB ({:.0} MB more than before them), peak {peak:.0} MB for the whole run; the default state budget is 1,024 MB",
            rss - before
        )
    };
    if let Some(dir) = std::path::Path::new(&db_path).parent() {
        let _ = std::fs::remove_dir_all(dir);
    }

    println!();
    println!(
        "| workload | bars | clients | requests | errors | req/s | p50 ms | p99 ms | max ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!("{r}");
    }
    println!();
    for line in ratios.iter().chain(&stored) {
        println!("{line}");
    }
    println!("{open_loop}");
    println!("{restart}");
    println!("{memory}");
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

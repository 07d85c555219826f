//! The harness of the server tests: a real PalmaPlan HTTP server on a loopback port
//! (the same `http::serve` the binary runs) over a temporary SQLite database, set up
//! by the same first start as the binary (owner, first token, demo schedule), with
//! `/embed` links signed by a secret in the same temporary folder, and an rmcp client
//! that talks to it with a Bearer token.

#![allow(dead_code)] // each test file uses part of the harness

use std::path::PathBuf;
use std::sync::Arc;

use palmaplan_model::Lang;
use palmaplan_server::bootstrap;
use palmaplan_server::embed::Embed;
use palmaplan_server::http::{self, AppState};
use palmaplan_server::planning::{Planning, SystemClock};
use palmaplan_server::storage::Store;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub(crate) mod browser;

pub(crate) type Client = RunningService<RoleClient, ClientConfig>;

/// A server running in this process on 127.0.0.1 with a port of its own.
pub(crate) struct TestServer {
    /// `http://127.0.0.1:PORT`
    pub(crate) base: String,
    /// The data folder (the SQLite file and the /embed links' secret).
    pub(crate) data_dir: PathBuf,
    /// `http://127.0.0.1:PORT/mcp`
    pub(crate) url: String,
    /// The owner's first token.
    pub(crate) token: String,
    pub(crate) owner_id: i64,
    pub(crate) demo_id: i64,
    pub(crate) db_url: String,
    /// The server's own store, to set up users and tokens behind its back.
    pub(crate) store: Store,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// A fresh folder under the system's temporary folder.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("palmaplan-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The folder of a `sqlite://PATH` database.
fn data_dir_of(db_url: &str) -> PathBuf {
    let path = PathBuf::from(db_url.trim_start_matches("sqlite://"));
    path.parent().map(PathBuf::from).unwrap_or_default()
}

impl TestServer {
    /// A new server on a new database, after the first start.
    pub(crate) async fn start(name: &str) -> TestServer {
        TestServer::start_with(name, |_| {}).await
    }

    /// [`TestServer::start`] with the server's state changed first (OAuth lifetimes,
    /// its public URL...).
    pub(crate) async fn start_with(name: &str, tweak: impl FnOnce(&mut AppState)) -> TestServer {
        let db_url = format!("sqlite://{}", temp_dir(name).join("db.sqlite").display());
        let store = Store::open(&db_url).await.unwrap();
        let first = bootstrap::first_start(&store, "Owner", "owner@localhost", Lang::Fr, 1)
            .await
            .unwrap()
            .expect("a new database gets a first start");
        drop(store);
        TestServer::start_on_with(
            &db_url,
            first.token.secret,
            first.owner.id,
            first.demo_schedule,
            tweak,
        )
        .await
    }

    /// A server on an existing database (a restart).
    pub(crate) async fn start_on(
        db_url: &str,
        token: String,
        owner_id: i64,
        demo_id: i64,
    ) -> TestServer {
        TestServer::start_on_with(db_url, token, owner_id, demo_id, |_| {}).await
    }

    /// [`TestServer::start_on`] with the server's state changed first.
    pub(crate) async fn start_on_with(
        db_url: &str,
        token: String,
        owner_id: i64,
        demo_id: i64,
        tweak: impl FnOnce(&mut AppState),
    ) -> TestServer {
        let store = Store::open(db_url).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // The data folder is the database's (as the binary's default): the /embed
        // links' secret lives there.
        let data_dir = data_dir_of(db_url);
        let links = Embed::new(&data_dir, &format!("http://{addr}"));
        let planning = Planning::with_embed(store.clone(), Arc::new(SystemClock), links);
        let mut state = AppState::new(planning, Lang::Fr);
        tweak(&mut state);
        let shutdown = state.shutdown.clone();
        let task = tokio::spawn(http::serve(listener, state));
        TestServer {
            data_dir,
            base: format!("http://{addr}"),
            url: format!("http://{addr}/mcp"),
            token,
            owner_id,
            demo_id,
            db_url: db_url.to_owned(),
            store,
            shutdown,
            task,
        }
    }

    /// An MCP client with the owner's token.
    pub(crate) async fn client(&self) -> Client {
        self.client_with(&self.token).await.unwrap()
    }

    /// An MCP client with some token; fails as rmcp fails when the server refuses it.
    pub(crate) async fn client_with(&self, token: &str) -> Result<Client, String> {
        self.client_with_caps(token, ClientCapabilities::default())
            .await
    }

    /// An MCP client with some token announcing some capabilities at `initialize`.
    pub(crate) async fn client_with_caps(
        &self,
        token: &str,
        caps: ClientCapabilities,
    ) -> Result<Client, String> {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.url.as_str()).auth_header(token),
        );
        ClientConfig::new(caps, Implementation::new("palmaplan-tests", "0"))
            .serve(transport)
            .await
            .map_err(|e| e.to_string())
    }

    /// An MCP client of the 2026-07-28 protocol: `server/discover`, no session, every
    /// request self-contained (and each one checked for its token).
    pub(crate) async fn discover_client(&self) -> Client {
        self.discover_client_with_caps(ClientCapabilities::default())
            .await
    }

    /// A 2026-07-28 client whose every request carries these capabilities in its
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]`.
    pub(crate) async fn discover_client_with_caps(&self, caps: ClientCapabilities) -> Client {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
                .auth_header(self.token.as_str()),
        );
        ClientConfig::new(caps, Implementation::new("palmaplan-tests", "0"))
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap()
    }

    /// Stops the server the way Ctrl-C does, and waits until it has stopped.
    pub(crate) async fn stop(self) {
        self.shutdown.cancel();
        tokio::time::timeout(std::time::Duration::from_secs(10), self.task)
            .await
            .expect("the server stops within 10 s")
            .unwrap()
            .unwrap();
    }
}

/// A tool's answer, as the tests look at it.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) structured: Value,
    pub(crate) is_error: bool,
}

/// The capabilities of a client that renders MCP Apps, announced by the stable route
/// (`extensions`) or the older one (`experimental`).
pub(crate) fn views_caps(route: &str) -> ClientCapabilities {
    serde_json::from_value(serde_json::json!({
        route: { "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] } }
    }))
    .unwrap()
}

/// Calls a tool; a protocol error fails the test (refusals are tool results).
pub(crate) async fn call(client: &Client, tool: &str, args: Value) -> Answer {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    let result: CallToolResult = client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool}: a protocol error instead of a tool result: {e}"));
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!text.trim().is_empty(), "{tool}: empty text");
    for debug in ["Some(", "Err(", "Ok(", "panicked", "RUST_BACKTRACE"] {
        assert!(
            !text.contains(debug),
            "{tool}: Rust debug output in the text: {text}"
        );
    }
    Answer {
        text,
        structured: result.structured_content.unwrap_or(Value::Null),
        is_error: result.is_error == Some(true),
    }
}

/// What a served view page must never contain, one line per occurrence (empty: clean).
/// The page runs under a host's CSP or ours, inside a frame that may belong to another
/// site: it must load nothing (`fetch(`, `import(`, an `http(s)://` address other than
/// the XML namespaces that SVG and XHTML name), build no code from text (`eval(`,
/// `new Function`), post no form (`<form`, silently dropped in a sandbox), and carry
/// no credential (`ppt_` followed by letters or digits, `Bearer `). JavaScript names
/// are matched as written and as whole words (`prefetch(` is not `fetch(`); HTML and
/// addresses in any case.
pub(crate) fn page_offences(page: &str) -> Vec<String> {
    const NAMESPACES: [&str; 3] = [
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xhtml",
        "http://www.w3.org/XML/1998/namespace",
    ];
    let bytes = page.as_bytes();
    let lower = page.to_ascii_lowercase(); // same byte offsets as `page`
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let word_start = |at: usize| at == 0 || !ident(bytes[at - 1]);
    let after = |at: usize| bytes.get(at).copied();
    let mut found = Vec::new();
    let mut report = |what: &str, at: usize| {
        let (mut a, mut b) = (at.saturating_sub(40), (at + 60).min(page.len()));
        while !page.is_char_boundary(a) {
            a -= 1;
        }
        while !page.is_char_boundary(b) {
            b += 1;
        }
        found.push(format!("{what} at byte {at}: …{}…", &page[a..b]));
    };

    // Calls: the name, maybe spaces, then `(`.
    for name in ["fetch", "eval", "import"] {
        for (at, _) in page.match_indices(name) {
            let rest = page[at + name.len()..].trim_start();
            if word_start(at) && rest.starts_with('(') {
                report(&format!("`{name}(`"), at);
            }
        }
    }
    for (at, _) in page.match_indices("new") {
        let rest = &page[at + 3..];
        let spaced = rest.trim_start();
        if word_start(at)
            && spaced.len() < rest.len()
            && spaced.starts_with("Function")
            && !spaced.as_bytes().get(8).is_some_and(|b| ident(*b))
        {
            report("`new Function`", at);
        }
    }
    for (at, _) in lower.match_indices("<form") {
        if !after(at + 5).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-') {
            report("`<form`", at);
        }
    }
    let url_char = |b: u8| b.is_ascii_alphanumeric() || b"/.-_~:?#@%+=&!*,;[]".contains(&b);
    for scheme in ["http://", "https://"] {
        for (at, _) in lower.match_indices(scheme) {
            let namespace = NAMESPACES.iter().any(|ns| {
                lower[at..].starts_with(&ns.to_ascii_lowercase())
                    && !after(at + ns.len()).is_some_and(url_char)
            });
            if !namespace {
                report("an address", at);
            }
        }
    }
    for (at, _) in page.match_indices("ppt_") {
        if word_start(at) && after(at + 4).is_some_and(|b| b.is_ascii_alphanumeric()) {
            report("a named token (`ppt_…`)", at);
        }
    }
    for (at, _) in lower.match_indices("bearer ") {
        if word_start(at) {
            report("`Bearer `", at);
        }
    }
    found
}

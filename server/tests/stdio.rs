//! `palmaplan stdio` as a client launches it: the built binary as a child process, rmcp's
//! client on its stdin/stdout, the token in PALMAPLAN_TOKEN. It lives in the server
//! crate because only there does Cargo tell a test where the binary is.

use std::process::Stdio;

use palmaplan_model::Lang;
use palmaplan_server::bootstrap;
use palmaplan_server::storage::Store;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use serde_json::json;
use tokio::process::Command;

/// A database after the first start, and the owner's token.
async fn database(name: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("palmaplan-stdio-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("db.sqlite").display());
    let store = Store::open(&url).await.unwrap();
    let first = bootstrap::first_start(&store, "Owner", "owner@localhost", Lang::Fr, 1)
        .await
        .unwrap()
        .unwrap();
    (url, first.token.secret)
}

fn palmaplan(db_url: &str, token: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_palmaplan"));
    cmd.args(["stdio", "--database-url", db_url, "--lang", "en"])
        .env("PALMAPLAN_TOKEN", token)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_serves_the_same_tools() {
    let (db_url, token) = database("serves").await;
    let mut child = palmaplan(&db_url, &token).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("palmaplan-tests", "0"),
    )
    .serve((stdout, stdin))
    .await
    .expect("an MCP session over the child's pipes");
    assert_eq!(
        client
            .peer_info()
            .unwrap()
            .server_info
            .as_ref()
            .unwrap()
            .name,
        "palmaplan"
    );
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "move_periods"));
    let list = client
        .call_tool(CallToolRequestParams::new("list_schedules"))
        .await
        .unwrap();
    assert_eq!(list.is_error, Some(false));
    let text = &list.content[0].as_text().unwrap().text;
    assert!(
        text.contains("S/4HANA Migration")
            && (text.contains(" schedule:") || text.contains(" schedules:")),
        "{text}"
    );
    // A call may still ask for French.
    let fr = client
        .call_tool(
            CallToolRequestParams::new("get_schedule").with_arguments(
                json!({"schedule": "S/4HANA Migration", "lang": "fr"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(fr.is_error, Some(false));
    assert_eq!(fr.structured_content.unwrap()["rank"], 0);
    client.cancel().await.unwrap();
    // The client closed stdin: the server ends by itself.
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait())
        .await
        .expect("palmaplan stdio stops when its client goes")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_refuses_a_bad_token_and_says_what_to_do() {
    let (db_url, _) = database("bad-token").await;
    for token in [
        "nonsense".to_string(),
        palmaplan_server::auth::new_token().unwrap(),
    ] {
        let out = palmaplan(&db_url, &token).output().await.unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("palmaplan token create"), "{stderr}");
        assert!(out.stdout.is_empty(), "nothing on the MCP channel");
    }
}

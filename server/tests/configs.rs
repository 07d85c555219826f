//! The client configurations the binary prints point where the server really is: on a
//! port other than the default, the first start's banner and a later `token create`
//! (another process, which learns the address from the data folder) both name it, and
//! the stdio entry passes it as `--public-url`, so the `/embed` links a stdio server
//! signs open on the server that serves them.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

fn palmaplan(data_dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_palmaplan"));
    cmd.arg("--data-dir")
        .arg(data_dir)
        .env("RUST_LOG", "warn")
        .env_remove("PALMAPLAN_ADDR")
        .env_remove("PALMAPLAN_PUBLIC_URL")
        .kill_on_drop(true);
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn printed_configurations_name_the_address_served() {
    let dir = std::env::temp_dir().join(format!("palmaplan-configs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Port 0: the system picks one, and the banner must give the one picked.
    let mut server = palmaplan(&dir)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let mut banner = String::new();
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            banner.push_str(&line);
            banner.push('\n');
            // The last configuration of the banner is the generic HTTP one.
            if banner.matches("\"url\"").count() >= 2 && line.trim() == "}" {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("the banner within 30 s");
    let port = banner
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("an address in the banner")
        .to_owned();
    assert_ne!(port, "4785");
    assert_ne!(port, "0", "{banner}");
    let base = format!("http://127.0.0.1:{port}");
    assert!(banner.contains(&format!("\"{base}/mcp\"")), "{banner}");
    assert!(
        banner.contains(&format!("\"--public-url\", \"{base}\"")),
        "the stdio entry signs links for the served address: {banner}"
    );

    // Another process, later: `token create` without --addr.
    let out = palmaplan(&dir)
        .args([
            "token",
            "create",
            "--user",
            "owner@localhost",
            "--label",
            "laptop",
        ])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{base}/mcp")), "{text}");
    assert!(!text.contains("4785"), "{text}");
    assert!(
        text.contains(&format!("\"--public-url\", \"{base}\"")),
        "{text}"
    );
    server.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

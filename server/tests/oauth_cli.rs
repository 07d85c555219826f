//! The OAuth commands of the binary: `user set-password` reads the password from
//! standard input and stores an argon2id hash (a short one is refused), `grant list`
//! and `grant revoke` show and end what a person allowed; and `serve --public-url`
//! makes that URL the OAuth issuer and `<it>/mcp` the resource.

use std::process::Stdio;
use std::time::Duration;

use palmaplan_server::storage::{OAuthClient, Store};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

fn palmaplan(data_dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_palmaplan"));
    cmd.arg("--data-dir")
        .arg(data_dir)
        .args(["--lang", "en"])
        .env("RUST_LOG", "warn")
        .env_remove("PALMAPLAN_ADDR")
        .env_remove("PALMAPLAN_PUBLIC_URL")
        .env_remove("PALMAPLAN_LANG")
        .kill_on_drop(true);
    cmd
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("palmaplan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs a command with `stdin`; (success, stdout + stderr).
async fn run(mut cmd: Command, stdin: &str) -> (bool, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let out = child.wait_with_output().await.unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_password_then_list_and_revoke_grants() {
    let dir = temp("oauth-cli");
    let mut add = palmaplan(&dir);
    add.args([
        "user",
        "add",
        "--name",
        "Alice",
        "--email",
        "alice@example.org",
    ]);
    let (ok, text) = run(add, "").await;
    assert!(ok, "{text}");

    let mut short = palmaplan(&dir);
    short.args(["user", "set-password", "--email", "alice@example.org"]);
    let (ok, text) = run(short, "short\n").await;
    assert!(!ok, "a short password is refused: {text}");
    assert!(text.contains("at least 10 characters"), "{text}");

    let mut set = palmaplan(&dir);
    set.args(["user", "set-password", "--email", "alice@example.org"]);
    let (ok, text) = run(set, "a long passphrase\nignored second line\n").await;
    assert!(ok, "{text}");
    assert!(
        text.contains("Password of alice@example.org set.") && text.contains("sign-ins"),
        "the message says the sessions are ended: {text}"
    );
    let mut nobody = palmaplan(&dir);
    nobody.args(["user", "set-password", "--email", "nobody@example.org"]);
    assert!(!run(nobody, "a long passphrase\n").await.0);

    let store = Store::open(&format!(
        "sqlite://{}",
        dir.join("palmaplan.sqlite").display()
    ))
    .await
    .unwrap();
    let (alice, phc) = store
        .user_with_password("alice@example.org")
        .await
        .unwrap()
        .unwrap();
    let phc = phc.expect("a password is stored");
    assert!(phc.starts_with("$argon2id$"), "{phc}");
    assert!(!phc.contains("passphrase"), "never in clear");

    let mut list = palmaplan(&dir);
    list.args(["grant", "list", "--user", "alice@example.org"]);
    let (ok, text) = run(list, "").await;
    assert!(ok && text.contains("has allowed no application"), "{text}");

    store
        .add_client(&OAuthClient {
            client_id: "pcl_cli".into(),
            name: "Claude".into(),
            redirect_uris: vec!["https://claude.ai/cb".into()],
            created_at: 1,
        })
        .await
        .unwrap();
    let grant = store
        .add_grant("pcl_cli", alice.id, false, None, "http://x/mcp", 2)
        .await
        .unwrap();
    let mut list = palmaplan(&dir);
    list.args(["grant", "list", "--user", "alice@example.org"]);
    let (ok, text) = run(list, "").await;
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!("{grant}  “Claude”  read  all schedules")) && text.contains("live"),
        "{text}"
    );
    let mut revoke = palmaplan(&dir);
    revoke.args([
        "grant",
        "revoke",
        "--user",
        "alice@example.org",
        &grant.to_string(),
    ]);
    let (ok, text) = run(revoke, "").await;
    assert!(
        ok && text.contains(&format!("Grant {grant} revoked.")),
        "{text}"
    );
    assert!(
        store.grants(alice.id).await.unwrap()[0]
            .revoked_at
            .is_some()
    );
    let mut again = palmaplan(&dir);
    again.args([
        "grant",
        "revoke",
        "--user",
        "alice@example.org",
        &grant.to_string(),
    ]);
    let (ok, text) = run(again, "").await;
    assert!(!ok && text.contains("no live grant"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_url_is_the_issuer_and_names_the_resource() {
    let dir = temp("oauth-issuer");
    let mut server = palmaplan(&dir)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--public-url",
            "https://plan.example.com",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let port = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                return rest.split('/').next().unwrap().to_owned();
            }
        }
        panic!("no address in the banner");
    })
    .await
    .expect("the banner within 30 s");
    let http = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let asm: serde_json::Value = http
        .get(format!("{base}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(asm["issuer"], "https://plan.example.com");
    assert_eq!(
        asm["token_endpoint"],
        "https://plan.example.com/oauth/token"
    );
    let r = http.post(format!("{base}/mcp")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(
            "resource_metadata=\"https://plan.example.com/.well-known/oauth-protected-resource/mcp\""
        ),
        "{challenge}"
    );
    server.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

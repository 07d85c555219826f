//! The OAuth commands of the binary: `user set-password` reads the password from
//! standard input and stores an argon2id hash (a short one is refused), `grant list`
//! and `grant revoke` show and end what a person allowed; and `serve --public-url`
//! makes that URL the OAuth issuer and `<it>/mcp` the resource; `user sign-in-link`
//! prints a one-time link that opens one web-screen session, once.

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

/// `palmaplan serve` on a port of its own, with `extra` arguments: the child and its
/// address, read from the banner.
async fn serve(dir: &std::path::Path, extra: &[&str]) -> (tokio::process::Child, String) {
    let mut server = palmaplan(dir)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(extra)
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
    // Its standard output read to the end: a closed pipe would fail its next line.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (server, format!("http://127.0.0.1:{port}"))
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
            kept_until: None,
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
    let (mut server, base) = serve(&dir, &["--public-url", "https://plan.example.com"]).await;
    let http = reqwest::Client::new();
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

/// The `Set-Cookie` value of `name` in a response.
fn set_cookie(r: &reqwest::Response, name: &str) -> Option<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| {
            Some(
                c.strip_prefix(&format!("{name}="))?
                    .split(';')
                    .next()?
                    .to_owned(),
            )
        })
}

/// The value of the hidden field `name` in a page.
fn hidden(page: &str, name: &str) -> String {
    let at = page
        .find(&format!("name=\"{name}\" value=\""))
        .unwrap_or_else(|| panic!("no field {name} in {page}"));
    let rest = &page[at + name.len() + 15..];
    rest[..rest.find('"').unwrap()].to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_link_from_the_cli_opens_one_session_once() {
    let dir = temp("signin-link");
    let (mut server, base) = serve(&dir, &[]).await;

    // The link alone on standard output (a script can take it), the advice on stderr.
    let out = palmaplan(&dir)
        .args([
            "user",
            "sign-in-link",
            "--email",
            "owner@localhost",
            "--public-url",
            &base,
        ])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let link = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(
        link.starts_with(&format!("{base}/oauth/link?t=ppl_")),
        "{link}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("15 minutes, once"));
    // Only its hash is kept.
    let store = Store::open(&format!(
        "sqlite://{}",
        dir.join("palmaplan.sqlite").display()
    ))
    .await
    .unwrap();
    let secret = link.split("t=").nth(1).unwrap();
    assert!(
        store.signin_link_user(secret, 0).await.unwrap().is_none(),
        "the secret is not what is stored"
    );

    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    // Opening it asks; it spends nothing (previewers open links too).
    for _ in 0..2 {
        let page = http.get(&link).send().await.unwrap();
        assert_eq!(page.status(), 200);
        assert_eq!(page.headers()["referrer-policy"], "no-referrer");
        assert!(page.text().await.unwrap().contains("owner@localhost"));
    }
    let page = http.get(&link).send().await.unwrap();
    let pre = set_cookie(&page, "pp_signin").unwrap();
    let body = page.text().await.unwrap();
    let post = |csrf: String, cookie: String| {
        let http = http.clone();
        let base = base.clone();
        let secret = secret.to_owned();
        async move {
            http.post(format!("{base}/oauth/link"))
                .header("cookie", cookie)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("t={secret}&csrf={csrf}&lang=en"))
                .send()
                .await
                .unwrap()
        }
    };
    // Without the page's anti-forgery cookie: refused, and the link is not spent.
    let r = post(hidden(&body, "csrf"), String::new()).await;
    assert_eq!(r.status(), 403);
    let r = post(hidden(&body, "csrf"), format!("pp_signin={pre}")).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/app?lang=en");
    let session = set_cookie(&r, "pp_session").unwrap();
    let list = http
        .get(format!("{base}/app?lang=en"))
        .header("cookie", format!("pp_session={session}"))
        .send()
        .await
        .unwrap();
    assert_eq!(list.status(), 200);
    assert!(list.text().await.unwrap().contains("My schedules"));
    // Once only: the same link again, by its page or its form, is gone.
    assert_eq!(http.get(&link).send().await.unwrap().status(), 410);
    let r = post(hidden(&body, "csrf"), format!("pp_signin={pre}")).await;
    assert_eq!(r.status(), 410);
    assert!(r.text().await.unwrap().contains("sign-in-link"));

    // A new password shuts out an unspent link too (it may have gone to the wrong
    // person); a public URL with a path keeps it (a proxy serving PalmaPlan below one).
    let out = palmaplan(&dir)
        .args([
            "user",
            "sign-in-link",
            "--email",
            "owner@localhost",
            "--public-url",
            &format!("{base}/plan/"),
        ])
        .output()
        .await
        .unwrap();
    let prefixed = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(
        prefixed.starts_with(&format!("{base}/plan/oauth/link?t=ppl_")),
        "{prefixed}"
    );
    let unspent = prefixed.replacen("/plan/", "/", 1);
    assert_eq!(http.get(&unspent).send().await.unwrap().status(), 200);
    let mut set = palmaplan(&dir);
    set.args(["user", "set-password", "--email", "owner@localhost"]);
    let (ok, text) = run(set, "a long passphrase\n").await;
    assert!(ok, "{text}");
    assert_eq!(http.get(&unspent).send().await.unwrap().status(), 410);

    // An expired link is gone too; an unknown e-mail gets no link and is told why.
    let stale = format!("ppl_{}", "0".repeat(64));
    store
        .add_signin_link(&palmaplan_server::auth::token_hash(&stale), 1, 0, 1)
        .await
        .unwrap();
    let r = http
        .get(format!("{base}/oauth/link?t={stale}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 410);
    let out = palmaplan(&dir)
        .args(["user", "sign-in-link", "--email", "nobody@example.org"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("user add"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

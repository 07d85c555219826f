//! `show_schedule` for a client without MCP Apps, and the one-hour `/embed` link it
//! gives, from the outside: the link's token calls tools over plain HTTP (`POST
//! /embed/<id>/call`) within what the link allows (read-only unless editable was asked
//! by someone who may write; dead once their access is removed; never above the role
//! it was issued for), never carries an e-mail or an absence reason whatever the role;
//! a valid link's page is the view (the built page with its mode tag set to "embed",
//! under its own exact CSP, frameable, clean of anything that loads, evaluates or
//! carries a credential), and tampered, expired and misdirected links get a page that
//! says what happened.

mod common;

use common::{TestServer, call, page_offences};
use palmaplan_server::bootstrap;
use palmaplan_server::embed::{Embed, Grant};
use palmaplan_server::storage::Role;
use palmaplan_server::view;
use serde_json::{Value, json};

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// How a call carries the link's token.
#[derive(Clone, Copy)]
enum Via {
    Header,
    Query,
}

/// An answer of `POST /embed/<id>/call`: the status, the tool result, the raw body.
struct Called {
    status: u16,
    text: String,
    structured: Value,
    is_error: bool,
    raw: String,
}

async fn embed_call(
    server: &TestServer,
    schedule: i64,
    token: &str,
    via: Via,
    tool: &str,
    arguments: Value,
) -> Called {
    let url = format!("{}/embed/{schedule}/call", server.base);
    let req = match via {
        Via::Header => http()
            .post(&url)
            .header("authorization", format!("Embed {token}")),
        Via::Query => http().post(format!("{url}?t={token}")),
    };
    let resp = req
        .header("content-type", "application/json")
        .body(json!({"tool": tool, "arguments": arguments}).to_string())
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let raw = resp.text().await.unwrap();
    let v: Value =
        serde_json::from_str(&raw).unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {raw}"));
    let text = v["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{tool}: no content: {raw}"))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!text.trim().is_empty(), "{tool}: empty text: {raw}");
    Called {
        status,
        text,
        structured: v["structuredContent"].clone(),
        is_error: v["isError"] == json!(true),
        raw,
    }
}

/// `GET path` (with its query): status, headers, body.
async fn get(server: &TestServer, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let resp = http()
        .get(format!("{}{path}", server.base))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, headers, resp.text().await.unwrap())
}

/// The token of a link given by show_schedule.
fn token_of(server: &TestServer, schedule: i64, url: &str) -> String {
    let prefix = format!("{}/embed/{schedule}?t=", server.base);
    let rest = url
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{url} does not start with {prefix}"));
    rest.split('&').next().unwrap().to_owned()
}

/// The demo's private data: its members' e-mails and its absences' reasons.
fn demo_secrets() -> Vec<String> {
    let demo = palmaplan_model::demo::s4hana_migration();
    let mut out: Vec<String> = demo
        .members
        .iter()
        .filter_map(|m| m.email.clone())
        .collect();
    out.extend(
        demo.absences
            .iter()
            .map(|a| a.reason.clone())
            .filter(|r| !r.is_empty()),
    );
    assert!(out.len() >= 3, "{out:?}");
    out
}

/// A server user with a write token and a role on the demo; returns their client's
/// token and user id.
async fn user_with_role(server: &TestServer, name: &str, email: &str, role: Role) -> (String, i64) {
    let id = server.store.add_user(name, email, 2).await.unwrap();
    server
        .store
        .set_role(server.demo_id, id, role)
        .await
        .unwrap();
    let token = bootstrap::create_token(&server.store, id, "tests", true, None, 2)
        .await
        .unwrap()
        .secret;
    (token, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_mcp_apps_show_schedule_gives_a_text_and_a_one_hour_read_only_link() {
    let server = TestServer::start("embed-show").await;
    let client = server.client().await;
    let id = server.demo_id;
    let shown = call(
        &client,
        "show_schedule",
        json!({"schedule": "S/4HANA Migration", "critical_path": true}),
    )
    .await;
    assert!(!shown.is_error, "{}", shown.text);
    let lines: Vec<&str> = shown.text.lines().collect();
    assert!(
        lines[0].starts_with("Planning «\u{a0}S/4HANA Migration\u{a0}» — du 2026-11-02 au 2026-12-18\u{202f}; 2 groupes, 6 lignes, 6 blocs, 1 jalon"),
        "{}",
        shown.text
    );
    assert!(shown.text.contains("\nRisques\u{a0}: "), "{}", shown.text);
    assert!(
        shown.text.contains("chemin critique en évidence"),
        "{}",
        shown.text
    );
    let url = shown.structured["url"].as_str().unwrap();
    assert_eq!(
        *lines.last().unwrap(),
        format!(
            "Cet hôte n'affiche pas les vues MCP Apps\u{a0}: cette adresse ouvre le planning, valable une heure, en lecture seule\u{a0}: {url}"
        )
    );
    // Compact: these keys, nothing of the schedule's content.
    let s = &shown.structured;
    let mut keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "expires_at",
            "name",
            "options",
            "rank",
            "read_only",
            "schedule_id",
            "shown_at",
            "url",
            "view"
        ]
    );
    assert_eq!(s["schedule_id"], id);
    assert_eq!(s["view"], "gantt");
    assert_eq!(s["options"], json!({"critical_path": true}));
    assert_eq!(s["read_only"], true);
    assert_eq!(s["rank"], 0);
    assert!(s["shown_at"].as_str().unwrap().ends_with('Z'));
    assert!(s["expires_at"].as_str().unwrap() > s["shown_at"].as_str().unwrap());
    assert!(serde_json::to_string(s).unwrap().len() < 1024);
    assert!(url.ends_with("&critical_path=true"), "{url}");

    // English.
    let en = call(
        &client,
        "show_schedule",
        json!({"schedule": id, "lang": "en"}),
    )
    .await;
    assert!(
        en.text.contains("This host does not display MCP Apps views: this address opens the schedule, valid for one hour, read-only: http"),
        "{}",
        en.text
    );
    // A bad option is refused before anything is shown.
    let bad = call(
        &client,
        "show_schedule",
        json!({"schedule": id, "filter": "status:maybe"}),
    )
    .await;
    assert!(
        bad.is_error && bad.text.contains("«\u{a0}filter\u{a0}»"),
        "{}",
        bad.text
    );
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_link_reads_and_refuses_writes_and_other_schedules() {
    let server = TestServer::start("embed-read-only").await;
    let client = server.client().await;
    let id = server.demo_id;
    // Even the owner asking for nothing special gets a read-only link.
    let shown = call(&client, "show_schedule", json!({"schedule": id})).await;
    let token = token_of(&server, id, shown.structured["url"].as_str().unwrap());

    for via in [Via::Header, Via::Query] {
        let r = embed_call(&server, id, &token, via, "get_schedule", json!({})).await;
        assert_eq!(r.status, 200, "{}", r.raw);
        assert!(!r.is_error, "{}", r.text);
        assert!(
            r.text
                .starts_with("Planning «\u{a0}S/4HANA Migration\u{a0}»"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["schedule_id"], id);
    }
    // The schedule may be named, as long as it is the link's.
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "list_periods",
        json!({"schedule": id}),
    )
    .await;
    assert!(!r.is_error, "{}", r.text);

    // A write under a read-only link.
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "move_periods",
        json!({"bars": [14], "by": 1}),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.raw);
    assert!(r.is_error);
    assert_eq!(r.structured["error"], "read_only_link");
    assert!(
        r.text.starts_with(
            "Ce lien est en lecture seule\u{a0}: «\u{a0}move_periods\u{a0}» modifie le planning."
        ),
        "{}",
        r.text
    );
    assert!(r.text.contains("editable"), "{}", r.text);
    assert_eq!(server.store.rank(id).await.unwrap(), 0, "nothing written");

    // Another schedule of the same owner, by id or by name, and a tool on no schedule.
    let other = call(
        &client,
        "create_schedule",
        json!({"name": "Autre", "demo": true}),
    )
    .await;
    let other_id = other.structured["schedule_id"].as_i64().unwrap();
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "get_schedule",
        json!({"schedule": other_id}),
    )
    .await;
    assert_eq!(
        (r.status, r.structured["error"].as_str()),
        (403, Some("other_schedule")),
        "{}",
        r.raw
    );
    assert!(
        r.text.contains(&format!("pas le planning {other_id}")),
        "{}",
        r.text
    );
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "get_schedule",
        json!({"schedule": "Autre"}),
    )
    .await;
    assert!(
        r.is_error && r.text.contains(&format!("limité au planning {id}")),
        "{}",
        r.text
    );
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "list_schedules",
        json!({}),
    )
    .await;
    assert_eq!(
        (r.status, r.structured["error"].as_str()),
        (403, Some("outside_link")),
        "{}",
        r.raw
    );
    // The link is for its schedule's address only.
    let r = embed_call(
        &server,
        other_id,
        &token,
        Via::Header,
        "get_schedule",
        json!({}),
    )
    .await;
    assert_eq!(
        (r.status, r.structured["error"].as_str()),
        (403, Some("wrong_schedule")),
        "{}",
        r.raw
    );
    assert!(
        r.text.contains(&format!(
            "Ce lien ouvre le planning {id}, pas le planning {other_id}"
        )),
        "{}",
        r.text
    );

    // Through the link, show_schedule gives no new link: a link never renews.
    let r = embed_call(&server, id, &token, Via::Header, "show_schedule", json!({})).await;
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(r.structured["url"], Value::Null);
    assert!(!r.raw.contains("?t="), "{}", r.raw);

    // A bad body says what to send.
    let resp = http()
        .post(format!("{}/embed/{id}/call", server.base))
        .header("authorization", format!("Embed {token}"))
        .body("{\"tool\": 3}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let body = resp.text().await.unwrap();
    assert!(
        body.contains("tool") && body.contains("invalid_body"),
        "{body}"
    );
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editable_link_writes_for_an_editor_and_dies_with_their_access() {
    let server = TestServer::start("embed-editable").await;
    let id = server.demo_id;
    let (editor_token, editor_id) =
        user_with_role(&server, "Eddie", "eddie@example.org", Role::Editor).await;
    let (viewer_token, _) = user_with_role(&server, "Vera", "vera@example.org", Role::Viewer).await;
    let editor = server.client_with(&editor_token).await.unwrap();
    let viewer = server.client_with(&viewer_token).await.unwrap();

    let shown = call(
        &editor,
        "show_schedule",
        json!({"schedule": id, "editable": true}),
    )
    .await;
    assert_eq!(shown.structured["read_only"], false, "{}", shown.text);
    assert!(
        shown
            .text
            .contains("valable une heure, modifiable (rôle éditeur)\u{a0}: http"),
        "{}",
        shown.text
    );
    let token = token_of(&server, id, shown.structured["url"].as_str().unwrap());
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Query,
        "move_periods",
        json!({"bars": [14], "by": 1}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(r.structured["rank"], 1);
    // Journalled as the editor's own change: undo works through the link too.
    let r = embed_call(&server, id, &token, Via::Header, "undo", json!({})).await;
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(server.store.rank(id).await.unwrap(), 2);

    // A viewer asking for an editable link gets a read-only one, and is told why.
    let shown = call(
        &viewer,
        "show_schedule",
        json!({"schedule": id, "editable": true}),
    )
    .await;
    assert_eq!(shown.structured["read_only"], true);
    assert!(
        shown
            .text
            .contains("en lecture seule (votre rôle lecteur ne permet pas de modifier)"),
        "{}",
        shown.text
    );
    let vtoken = token_of(&server, id, shown.structured["url"].as_str().unwrap());
    let r = embed_call(
        &server,
        id,
        &vtoken,
        Via::Header,
        "move_periods",
        json!({"bars": [14], "by": 1}),
    )
    .await;
    assert_eq!(r.structured["error"], "read_only_link", "{}", r.raw);

    // Promoted to owner since: the link stays an editor's.
    server
        .store
        .set_role(id, editor_id, Role::Owner)
        .await
        .unwrap();
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "delete_schedule",
        json!({"confirm": true}),
    )
    .await;
    // A link calls the view's tools only: deleting is none of them, whatever the role.
    assert_eq!(
        (r.status, r.structured["error"].as_str()),
        (403, Some("outside_link")),
        "{}",
        r.raw
    );
    // Nor does it act as an owner through the view's tools: an e-mail (personal data,
    // an owner's to set) is refused through apply_patch, as to an editor.
    let rank = call(&editor, "get_schedule", json!({"schedule": id}))
        .await
        .structured["rank"]
        .clone();
    let r = embed_call(
        &server,
        id,
        &token,
        Via::Header,
        "apply_patch",
        json!({"commands": [{"op": "update_member", "member": 1, "email": "x@example.org"}], "expected_rank": rank}),
    )
    .await;
    assert_eq!(r.structured["error"], "forbidden", "{}", r.raw);
    assert!(r.text.contains("propriétaire"), "{}", r.text);
    // Access removed: the link is dead, for calls and for the page.
    server.store.remove_role(id, editor_id).await.unwrap();
    let r = embed_call(&server, id, &token, Via::Header, "get_schedule", json!({})).await;
    assert_eq!(
        (r.status, r.structured["error"].as_str()),
        (403, Some("no_access")),
        "{}",
        r.raw
    );
    assert!(
        r.text.contains("n'a plus accès à ce planning"),
        "{}",
        r.text
    );
    let (status, _, page) = get(&server, &format!("/embed/{id}?t={token}")).await;
    assert_eq!(status, 403);
    assert!(page.contains("n&#39;a plus accès à ce planning"), "{page}");
    editor.cancel().await.unwrap();
    viewer.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_under_a_link_never_carry_emails_or_reasons() {
    let server = TestServer::start("embed-privacy").await;
    let id = server.demo_id;
    let owner = server.client().await;
    let secrets = demo_secrets();
    // The owner sees them over MCP...
    let members = call(&owner, "list_members", json!({"schedule": id})).await;
    assert!(
        secrets.iter().any(|s| members.text.contains(s.as_str())),
        "{}",
        members.text
    );
    // ...but not through their own editable link (the highest rights a link gets).
    let shown = call(
        &owner,
        "show_schedule",
        json!({"schedule": id, "editable": true}),
    )
    .await;
    assert_eq!(shown.structured["read_only"], false);
    let token = token_of(&server, id, shown.structured["url"].as_str().unwrap());
    // The owner writes private data over MCP: a member's e-mail, an absence's reason.
    let w = call(
        &owner,
        "add_member",
        json!({"schedule": id, "name": "Léa Roux", "email": "lea.roux@example.org"}),
    )
    .await;
    assert!(!w.is_error, "{}", w.text);
    let w = call(&owner, "add_absence", json!({"schedule": id, "member": "Léa Roux", "start": "2026-12-10", "end": "2026-12-11", "reason": "Déménagement"})).await;
    assert!(!w.is_error, "{}", w.text);
    // What the view reads through the link carries none of it.
    let reads = [
        ("get_schedule", json!({})),
        ("get_schedule_page", json!({"page": 0})),
        ("get_changes_since", json!({"rank": 0})),
        (
            "get_schedule_absences",
            json!({"from": "2026-11-01", "to": "2026-12-31"}),
        ),
        ("list_periods", json!({})),
        ("schedule_floats", json!({"path": true})),
        ("show_schedule", json!({})),
        ("diff_versions", json!({"from": "current", "to": "current"})),
        (
            "what_if",
            json!({"commands": [{"op": "update_member", "member": 1, "name": "Camille M."}]}),
        ),
    ];
    let mut all = secrets.clone();
    all.extend([
        "lea.roux@example.org".to_owned(),
        "Déménagement".to_owned(),
        "owner@localhost".to_owned(),
    ]);
    // The tools that are not the view's are refused, private or not.
    for tool in [
        "list_members",
        "list_absences",
        "export_schedule",
        "history",
    ] {
        let r = embed_call(&server, id, &token, Via::Header, tool, json!({})).await;
        assert_eq!(r.structured["error"], "outside_link", "{tool}: {}", r.raw);
    }
    for (tool, args) in reads {
        let r = embed_call(&server, id, &token, Via::Header, tool, args.clone()).await;
        assert!(!r.is_error, "{tool}: {}", r.text);
        for secret in &all {
            assert!(
                !r.raw.contains(secret.as_str()),
                "{tool} {args}: {secret} in {}",
                r.raw
            );
        }
        assert!(
            !r.raw.contains('@'),
            "{tool} {args}: an e-mail in {}",
            r.raw
        );
    }
    owner.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tampered_expired_and_misdirected_links_are_refused_with_a_message() {
    let server = TestServer::start("embed-refusals").await;
    let id = server.demo_id;
    let client = server.client().await;
    let shown = call(&client, "show_schedule", json!({"schedule": id})).await;
    let token = token_of(&server, id, shown.structured["url"].as_str().unwrap());

    // A valid link: the view page, told it runs under /embed in the server's language.
    let (status, headers, page) = get(&server, &format!("/embed/{id}?t={token}")).await;
    assert_eq!(status, 200, "{page}");
    check_view_page(&headers, &page);
    // By the header route too (a page the view reloads itself).
    let resp = http()
        .get(format!("{}/embed/{id}", server.base))
        .header("authorization", format!("Embed {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let headers = resp.headers().clone();
    check_view_page(&headers, &resp.text().await.unwrap());

    // Tampered: one character of the payload, one of the signature.
    let dot = token.find('.').unwrap();
    for at in [dot / 2, token.len() - 3] {
        let mut bytes = token.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        let r = embed_call(
            &server,
            id,
            &tampered,
            Via::Header,
            "get_schedule",
            json!({}),
        )
        .await;
        assert_eq!(r.status, 401, "{}", r.raw);
        assert_eq!(r.structured["error"], "tampered_link", "{}", r.raw);
        assert!(
            r.text
                .starts_with("Ce lien a été modifié, ou il n'a pas été émis par ce serveur"),
            "{}",
            r.text
        );
        let (status, headers, page) = get(&server, &format!("/embed/{id}?t={tampered}")).await;
        assert_eq!(status, 401);
        assert!(page.contains("Ce lien a été modifié"), "{page}");
        check_page_headers(&headers);
    }

    // Expired: a link of this server's key, issued two hours ago.
    let links = Embed::new(&server.data_dir, &server.base);
    let old = links
        .issue(
            &Grant {
                schedule: id,
                user: server.owner_id,
                role: Role::Owner,
                token_can_write: true,
                editable: true,
                credential: None,
            },
            now_ms() - 2 * 3_600_000,
        )
        .unwrap();
    let r = embed_call(
        &server,
        id,
        &old.token,
        Via::Query,
        "get_schedule",
        json!({}),
    )
    .await;
    assert_eq!(
        (r.status, r.structured["error"].as_str()),
        (401, Some("expired_link")),
        "{}",
        r.raw
    );
    assert!(r.text.starts_with("Ce lien a expiré ("), "{}", r.text);
    assert!(r.text.contains("ne se renouvelle pas"), "{}", r.text);
    let (status, headers, page) = get(&server, &format!("/embed/{id}?t={}", old.token)).await;
    assert_eq!(status, 401);
    assert!(page.contains("<h1>Ce lien a expiré</h1>"), "{page}");
    check_page_headers(&headers);
    // One issued 59 minutes ago still works.
    let recent = links
        .issue(
            &Grant {
                schedule: id,
                user: server.owner_id,
                role: Role::Owner,
                token_can_write: true,
                editable: false,
                credential: None,
            },
            now_ms() - 59 * 60_000,
        )
        .unwrap();
    let r = embed_call(
        &server,
        id,
        &recent.token,
        Via::Header,
        "get_schedule",
        json!({}),
    )
    .await;
    assert!(!r.is_error, "{}", r.raw);

    // Another schedule's address, no token, garbage.
    let (status, _, page) = get(&server, &format!("/embed/{}?t={token}", id + 1)).await;
    assert_eq!(status, 403);
    assert!(
        page.contains(&format!(
            "Ce lien ouvre le planning {id}, pas le planning {}",
            id + 1
        )),
        "{page}"
    );
    let (status, _, page) = get(&server, &format!("/embed/{id}")).await;
    assert_eq!(status, 401);
    assert!(page.contains("pas de jeton de lien"), "{page}");
    let (status, _, page) = get(&server, &format!("/embed/{id}?t=<script>")).await;
    assert_eq!(status, 401);
    assert!(
        page.contains("incomplet ou abîmé") && !page.contains("<script>"),
        "{page}"
    );
    // The links are not named tokens: none was added.
    assert_eq!(server.store.tokens(server.owner_id).await.unwrap().len(), 1);
    // /mcp is untouched: still behind its Bearer check.
    let resp = http()
        .post(&server.url)
        .header("authorization", format!("Embed {token}"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    client.cancel().await.unwrap();
    server.stop().await;
}

/// The view under /embed: the embedded page with the one tag changed, under its exact
/// CSP (its own script and WebAssembly, requests to this origin only), sending its
/// address nowhere, kept nowhere, frameable by other sites; nothing in it loads,
/// evaluates or carries a credential.
fn check_view_page(headers: &reqwest::header::HeaderMap, page: &str) {
    let embed = r#"<meta name="palmaplan-mode" content="embed" data-lang="fr">"#;
    assert_eq!(page.matches(embed).count(), 1);
    assert!(!page.contains(view::MCP_MARKER));
    assert!(
        page.replacen(embed, view::MCP_MARKER, 1) == view::HTML,
        "not the embedded page with the one tag changed"
    );
    assert_eq!(
        headers["content-security-policy"],
        "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
    );
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(headers.get("x-frame-options").is_none());
    let offences = page_offences(page);
    assert!(offences.is_empty(), "{offences:#?}");
}

/// The page loads nothing, sends its address nowhere, is kept nowhere, and may be
/// framed by other sites.
fn check_page_headers(headers: &reqwest::header::HeaderMap) {
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    assert!(!csp.contains("script-src"), "{csp}");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(headers["cache-control"], "no-store");
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(headers.get("x-frame-options").is_none());
}

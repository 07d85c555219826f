//! The role matrix: every tool × {owner, editor, viewer, a read-only token of the
//! owner}, through the real server (HTTP, rmcp's client), allowed or refused exactly
//! as the server's rights table says (`planning::rights`: each tool's declared role,
//! and whether it writes), and a call that sets personal data as the gate's privacy
//! rule says (owners only, among these users). Each call is the tool's example
//! from docs/tools.md on a fresh demo copy shared with the editor and the viewer by
//! `share_schedule`, so an allowed call must also succeed.
//!
//! A refusal for role must name the role needed; a read-only token's refusal must say
//! the token is read-only. And what an editor or a viewer is allowed to read never
//! shows the demo members' e-mails nor the absence's reason: those are for owners (and
//! the member themself, who is none of these users).

mod catalogue;
mod common;

use std::collections::BTreeSet;

use catalogue::{
    Actor, Need, People, aimed_at, demo_secrets, documented, needs, roles, sets_personal, setup,
    try_call,
};
use common::{Client, TestServer};
use serde_json::{Value, json};

/// Who calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Owner,
    Editor,
    Viewer,
    OwnerReadOnly,
}

const EVERYONE: [Who; 4] = [Who::Owner, Who::Editor, Who::Viewer, Who::OwnerReadOnly];

impl Who {
    fn client(self, p: &People) -> &Client {
        match self {
            Who::Owner => &p.owner,
            Who::Editor => &p.editor,
            Who::Viewer => &p.viewer,
            Who::OwnerReadOnly => &p.owner_read_only,
        }
    }

    /// Whether this caller may use a tool that needs `need` (and writes if `writes`).
    fn allowed(self, need: Need, writes: bool) -> bool {
        match self {
            Who::Owner => true,
            Who::OwnerReadOnly => !writes,
            Who::Editor => need <= Need::Editor,
            Who::Viewer => need <= Need::Viewer,
        }
    }

    /// Whether they may write on a copy (and so make their own setup steps).
    fn writes(self) -> bool {
        matches!(self, Who::Owner | Who::Editor)
    }

    /// Whether they see the private data of the demo's members.
    fn sees_private(self) -> bool {
        matches!(self, Who::Owner | Who::OwnerReadOnly)
    }
}

/// Calls beyond the documented examples whose rights differ or matter for privacy.
fn extra_cases() -> Vec<(&'static str, Value, Need, bool)> {
    vec![
        // Changing an e-mail decides who sees a member's private data: owners only
        // (the gate's rule, whatever the tool).
        (
            "update_member",
            json!({"schedule": 1, "member": "Camille", "email": "camille@example.net"}),
            Need::Owner,
            true,
        ),
        // The whole schedule, as each role may see it.
        (
            "export_schedule",
            json!({"schedule": 1, "format": "json"}),
            Need::Viewer,
            false,
        ),
        // Searching one schedule needs a role on it.
        (
            "search",
            json!({"schedule": 1, "query": "Thomas"}),
            Need::Viewer,
            false,
        ),
        ("list_absences", json!({"schedule": 1}), Need::Viewer, false),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_allows_or_refuses_every_role_as_its_code_says() {
    let server = TestServer::start("role-matrix").await;
    let people = People::new(&server).await;
    // Every tool, view-only ones included (listed to an MCP Apps client); the calls
    // below are made by clients without MCP Apps, which view-only tools answer too.
    let listed = people.owner_views.list_all_tools().await.unwrap();

    // The table covers exactly the served tools, and agrees with their read-only hint.
    let rows = roles();
    let table: BTreeSet<&str> = rows.iter().map(|(t, _, _)| *t).collect();
    let served: BTreeSet<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(table, served, "the rights table and tools/list differ");
    assert_eq!(
        table.len(),
        rows.len(),
        "a tool is twice in the rights table"
    );
    for t in &listed {
        let (_, writes) = needs(&t.name).unwrap();
        let read_only = t.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(read_only, Some(!writes), "{}: readOnlyHint", t.name);
    }

    let mut cases: Vec<(String, Value, Need, bool)> = documented()
        .into_iter()
        .map(|e| {
            let (need, writes) = needs(&e.tool).unwrap();
            let need = if sets_personal(&e.tool, &e.args) {
                Need::Owner
            } else {
                need
            };
            (e.tool, e.args, need, writes)
        })
        .collect();
    cases.extend(
        extra_cases()
            .into_iter()
            .map(|(t, a, n, w)| (t.to_owned(), a, n, w)),
    );

    let secrets = demo_secrets();
    let mut failures: Vec<String> = Vec::new();
    let mut allowed_count = 0;
    let mut refused_count = 0;
    let mut owner_saw_private = 0;
    for (n, (tool, example, need, writes)) in cases.iter().enumerate() {
        for who in EVERYONE {
            let case = format!("{tool} as {who:?} {example}");
            let id = people
                .fresh_demo(&format!("matrix {n} {tool} {who:?}"))
                .await;
            // Setup steps: by the owner, or by the caller when they are the author.
            let mut ready = true;
            for (actor, step, mut args) in setup(tool) {
                args["schedule"] = json!(id);
                let client = match actor {
                    Actor::Author if who.writes() => who.client(&people),
                    _ => &people.owner,
                };
                match try_call(client, step, &args).await {
                    Ok(a) if !a.is_error => {}
                    other => {
                        failures.push(format!("{case}: setup {step} {args}: {other:?}"));
                        ready = false;
                    }
                }
            }
            if !ready {
                continue;
            }
            let args = aimed_at(example, id);
            let answer = match try_call(who.client(&people), tool, &args).await {
                Ok(a) => a,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            if who.allowed(*need, *writes) {
                allowed_count += 1;
                if who == Who::Owner && secrets.iter().any(|s| answer.text.contains(s.as_str())) {
                    // The check below can see a leak: owners are shown these.
                    owner_saw_private += 1;
                }
                if answer.is_error {
                    failures.push(format!("{case}: refused: {}", answer.text));
                }
                if !who.sees_private() {
                    let shown = format!("{}\n{}", answer.text, answer.structured);
                    for secret in &secrets {
                        if shown.contains(secret.as_str()) {
                            failures.push(format!("{case}: shows the private “{secret}”"));
                        }
                    }
                    // A copy made by someone who may not see private data has none.
                    if tool == "duplicate_schedule"
                        && let Some(copy) = answer.structured["schedule_id"].as_i64()
                    {
                        let state = server.store.load(copy).await.unwrap().state;
                        let state = serde_json::to_string(&state).unwrap();
                        for secret in &secrets {
                            if state.contains(secret.as_str()) {
                                failures.push(format!("{case}: the copy keeps “{secret}”"));
                            }
                        }
                    }
                }
            } else {
                refused_count += 1;
                let code = answer.structured["error"].as_str().unwrap_or_default();
                if !answer.is_error {
                    failures.push(format!("{case}: allowed: {}", answer.text));
                } else if who == Who::OwnerReadOnly {
                    if code != "read_only_token" || !answer.text.contains("lecture seule") {
                        failures.push(format!(
                            "{case}: not refused as read-only ({code}): {}",
                            answer.text
                        ));
                    }
                } else {
                    // The refusal names the first role missing: the tool's own, then
                    // the owner's for personal data.
                    let (tool_need, _) = needs(tool).unwrap();
                    let named = if who.allowed(tool_need, *writes) {
                        *need
                    } else {
                        tool_need
                    };
                    let (fr, en) = named.names();
                    if code != "forbidden"
                        || answer.structured["needed"] != en
                        || !answer.text.contains(fr)
                    {
                        failures.push(format!(
                            "{case}: the refusal does not name the {en} role ({code}, {}): {}",
                            answer.structured, answer.text
                        ));
                    }
                }
            }
            let _ = server.store.delete_schedule(id).await;
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        owner_saw_private >= 2,
        "owners saw private data {owner_saw_private} time(s)"
    );
    // The matrix has both halves (a table of all-allowed would prove nothing).
    assert!(
        allowed_count > 150 && refused_count > 80,
        "{allowed_count} allowed, {refused_count} refused"
    );
    people.close().await;
    server.stop().await;
}

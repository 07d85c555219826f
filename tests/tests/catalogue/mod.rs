//! What the tool walk and the role matrix share: the documented catalogue (each tool's
//! example, parsed from docs/tools.md so the documentation is what gets called), the
//! few steps some examples need first (an undo needs a write to undo), the people of
//! a test server (owner, editor, viewer, a read-only token of the owner), and a call
//! that reports a protocol error instead of panicking, so a test can list every
//! failure at once.

#![allow(dead_code)] // each test file uses part of it

use std::path::Path;

use palmaplan_server::bootstrap;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::common::{Answer, Client, TestServer};

/// One documented tool: its name and its example arguments.
#[derive(Clone, Debug)]
pub(crate) struct Example {
    pub(crate) tool: String,
    pub(crate) args: Value,
}

/// The tools documented in docs/tools.md, in the order written. Each is a line
/// "- `name` — description" (the description may wrap), then an indented line with the
/// example's JSON arguments in backticks.
pub(crate) fn documented() -> Vec<Example> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tools.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out: Vec<Example> = Vec::new();
    let mut pending: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if let Some(rest) = line.strip_prefix("- `")
            && let Some((name, after)) = rest.split_once('`')
            && after.starts_with(" — ")
        {
            assert!(
                pending.is_none(),
                "docs/tools.md:{n}: `{}` has no example line before `{name}`",
                pending.unwrap_or_default()
            );
            pending = Some(name.to_owned());
            continue;
        }
        let t = line.trim();
        if pending.is_some() && line.starts_with("  ") && t.starts_with("`{") && t.ends_with("}`") {
            let tool = pending.take().unwrap_or_default();
            let args: Value = serde_json::from_str(&t[1..t.len() - 1]).unwrap_or_else(|e| {
                panic!("docs/tools.md:{n}: the example of `{tool}` is not JSON: {e}")
            });
            assert!(
                args.is_object(),
                "docs/tools.md:{n}: `{tool}`: not an object"
            );
            assert!(
                out.iter().all(|e| e.tool != tool),
                "docs/tools.md:{n}: `{tool}` is documented twice"
            );
            out.push(Example { tool, args });
        }
    }
    assert!(
        pending.is_none(),
        "docs/tools.md: `{}` has no example",
        pending.unwrap_or_default()
    );
    out
}

/// The example's arguments aimed at schedule `id` (the examples say 1 or the demo's
/// name; the item ids inside a demo copy are the demo's).
pub(crate) fn aimed_at(args: &Value, id: i64) -> Value {
    let mut args = args.clone();
    if let Some(obj) = args.as_object_mut() {
        if obj.contains_key("schedule") {
            obj.insert("schedule".into(), json!(id));
        }
        // `get_view_code`'s example names the build a page would: this server's.
        if obj.get("build") == Some(&json!(PAGE_BUILD)) {
            obj.insert(
                "build".into(),
                json!(palmaplan_server::view::translation_build()),
            );
        }
    }
    args
}

/// What docs/tools.md writes for the build a page names (it changes with every build).
pub(crate) const PAGE_BUILD: &str = "<the page's build>";

/// Who runs a setup step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Actor {
    /// The schedule's owner (e.g. sharing).
    Owner,
    /// The caller of the example when they may write, else the owner: undo and redo
    /// work on the caller's own changes.
    Author,
}

/// The steps an example needs on a fresh demo copy before it can do its work; the
/// same table is written in docs/tools.md ("Before some examples"). Everything else
/// works on a fresh copy as it is.
pub(crate) fn setup(tool: &str) -> Vec<(Actor, &'static str, Value)> {
    let write = || {
        (
            Actor::Author,
            "move_periods",
            json!({"bars": [14], "by": 1}),
        )
    };
    let baseline = || (Actor::Author, "save_version", json!({"name": "Baseline"}));
    match tool {
        "undo" | "history" | "get_changes_since" => vec![write()],
        "redo" => vec![write(), (Actor::Author, "undo", json!({}))],
        "restore_version" | "diff_versions" => vec![baseline(), write()],
        "delete_version" | "list_versions" => vec![baseline()],
        _ => vec![],
    }
}

/// The server user the sharing examples name; `People::new` creates them.
pub(crate) const SAM: &str = "sam@example.org";

/// The demo's private data: its members' e-mails and its one absence's reason.
pub(crate) fn demo_secrets() -> Vec<String> {
    let demo = palmaplan_model::demo::s4hana_migration();
    let mut out: Vec<String> = demo
        .members
        .iter()
        .filter_map(|m| m.email.clone())
        .collect();
    out.extend(demo.absences.iter().map(|a| a.reason.clone()));
    assert!(out.len() >= 4);
    out
}

/// The callers of a test server: the owner (the first token), an editor and a viewer
/// (server users with a write token each, given their role per schedule with
/// `share_schedule`), and a read-only token of the owner. None of them announces MCP
/// Apps (they list the model tools only, yet may call the view-only ones);
/// `owner_views` is the owner again through a client that does, to list every tool.
pub(crate) struct People {
    pub(crate) owner: Client,
    pub(crate) owner_views: Client,
    pub(crate) editor: Client,
    pub(crate) viewer: Client,
    pub(crate) owner_read_only: Client,
}

pub(crate) const EDITOR: &str = "eddie@example.org";
pub(crate) const VIEWER: &str = "vera@example.org";

impl People {
    pub(crate) async fn new(server: &TestServer) -> People {
        let store = &server.store;
        let mut tokens = Vec::new();
        for (name, email) in [("Eddie", EDITOR), ("Vera", VIEWER), ("Sam", SAM)] {
            let id = store.add_user(name, email, 2).await.unwrap();
            tokens.push(
                bootstrap::create_token(store, id, "tests", true, None, 2)
                    .await
                    .unwrap()
                    .secret,
            );
        }
        let read_only =
            bootstrap::create_token(store, server.owner_id, "read only", false, None, 2)
                .await
                .unwrap();
        People {
            owner: server.client().await,
            owner_views: server
                .client_with_caps(&server.token, crate::common::views_caps("extensions"))
                .await
                .unwrap(),
            editor: server.client_with(&tokens[0]).await.unwrap(),
            viewer: server.client_with(&tokens[1]).await.unwrap(),
            owner_read_only: server.client_with(&read_only.secret).await.unwrap(),
        }
    }

    /// A fresh copy of the demo, owned by the owner, shared with the editor and the
    /// viewer.
    pub(crate) async fn fresh_demo(&self, name: &str) -> i64 {
        let created = must(
            &self.owner,
            "create_schedule",
            json!({"name": name, "demo": true}),
        )
        .await;
        let id = created.structured["schedule_id"].as_i64().unwrap();
        for (email, role) in [(EDITOR, "editor"), (VIEWER, "viewer")] {
            must(
                &self.owner,
                "share_schedule",
                json!({"schedule": id, "email": email, "role": role}),
            )
            .await;
        }
        id
    }

    pub(crate) async fn close(self) {
        for c in [
            self.owner,
            self.owner_views,
            self.editor,
            self.viewer,
            self.owner_read_only,
        ] {
            c.cancel().await.unwrap();
        }
    }
}

/// A call that must succeed (setup steps).
pub(crate) async fn must(client: &Client, tool: &str, args: Value) -> Answer {
    let a = try_call(client, tool, &args)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!a.is_error, "setup {tool} {args}: {}", a.text);
    a
}

/// Calls a tool; a protocol or transport error (a JSON-RPC error, an HTTP 500, a
/// dropped connection) is an `Err` naming the call, since every answer must be a tool
/// result.
pub(crate) async fn try_call(client: &Client, tool: &str, args: &Value) -> Result<Answer, String> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args.clone() {
        params = params.with_arguments(map);
    }
    let result = client.call_tool(params).await.map_err(|e| {
        format!("{tool} {args}: a protocol or transport error instead of a tool result: {e}")
    })?;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Answer {
        text,
        structured: result.structured_content.unwrap_or(Value::Null),
        is_error: result.is_error == Some(true),
    })
}

/// English words that would show serde's (or our own) English inside a French text:
/// each is matched as a whole word ("expected_rank", a field's name, is not
/// "expected").
const ENGLISH_IN_FRENCH: [&str; 9] = [
    "unknown",
    "expected",
    "variant",
    "field",
    "fields",
    "missing",
    "invalid type",
    "one of",
    "is not a date",
];

/// What is wrong with the typography and the words of a text, in its language: a lazy
/// plural "(s)" in either; in French, an ordinary space where French puts a no-break
/// one (before « : ; ! ? », inside guillemets) and English words.
fn language_problems(text: &str, french: bool) -> Vec<String> {
    let mut out = Vec::new();
    if text.contains("(s)") {
        out.push("a lazy plural (s)".to_owned());
    }
    if !french {
        return out;
    }
    let chars: Vec<char> = text.chars().collect();
    for (i, pair) in chars.windows(2).enumerate() {
        let context = || {
            chars[i.saturating_sub(20)..(i + 20).min(chars.len())]
                .iter()
                .collect::<String>()
        };
        match pair {
            [' ', c @ (':' | ';' | '!' | '?')] => {
                out.push(format!("an ordinary space before {c:?} in …{}…", context()));
            }
            ['«', ' '] | [' ', '»'] => {
                out.push(format!(
                    "an ordinary space inside guillemets in …{}…",
                    context()
                ));
            }
            _ => {}
        }
    }
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let spaced = format!(" {} ", words.join(" "));
    for w in ENGLISH_IN_FRENCH {
        if spaced.contains(&format!(" {w} ")) {
            out.push(format!("English in a French text: {w:?}"));
        }
    }
    out
}

/// What is wrong with a text meant for people: empty, Rust debug output, a stack
/// trace, escaped JSON, a tool name that does not exist, or (see `language_problems`)
/// its typography and words in its language (`french` or English).
pub(crate) fn text_problems(text: &str, tools: &[String], french: bool) -> Vec<String> {
    let mut out = language_problems(text, french);
    if text.trim().is_empty() {
        out.push("empty text".to_owned());
    }
    for debug in [
        "Some(",
        "None",
        "Ok(",
        "Err(",
        "Error {",
        "Id(",
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        ".rs:",
        "\\n",
        "\\\"",
    ] {
        if text.contains(debug) {
            out.push(format!("debug output ({debug})"));
        }
    }
    if text.trim_start().starts_with("{\"") || text.trim_start().starts_with("[{") {
        out.push("starts with raw JSON".to_owned());
    }
    // A tool named in a text must exist: "call list_rows" guides a model.
    const VERBS: [&str; 21] = [
        "list",
        "get",
        "add",
        "set",
        "update",
        "delete",
        "move",
        "rename",
        "assign",
        "create",
        "duplicate",
        "share",
        "unshare",
        "save",
        "restore",
        "import",
        "export",
        "apply",
        "filter",
        "remove",
        "resize",
    ];
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if let Some((verb, _)) = word.split_once('_')
            && VERBS.contains(&verb)
            && word.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            && !tools.iter().any(|t| t == word)
        {
            out.push(format!("names a tool that does not exist: {word}"));
        }
    }
    out
}

/// The least a caller needs to use a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Need {
    /// Any user: the tool works on the caller's own list (or creates a schedule).
    Anyone,
    Viewer,
    Editor,
    Owner,
}

impl Need {
    /// The role's name in a refusal, in French and in English.
    pub(crate) fn names(self) -> (&'static str, &'static str) {
        match self {
            Need::Anyone => ("", ""),
            Need::Viewer => ("lecteur", "viewer"),
            Need::Editor => ("éditeur", "editor"),
            Need::Owner => ("propriétaire", "owner"),
        }
    }
}

/// Every tool's needed role on the schedule it names, and whether it writes (a
/// read-only token is refused before the role is looked at): the server's own rights
/// table (`planning::rights`, from each tool's declaration, which `Planning::call` and
/// `Ctx::open` enforce), not a copy kept here. Setting personal data (an e-mail, an
/// absence's reason) needs more than the tool's role: see [`sets_personal`].
pub(crate) fn roles() -> Vec<(&'static str, Need, bool)> {
    use palmaplan_server::storage::Role;
    palmaplan_server::planning::rights()
        .into_iter()
        .map(|r| {
            let need = match r.role {
                None => Need::Anyone,
                Some(Role::Viewer) => Need::Viewer,
                Some(Role::Editor) => Need::Editor,
                Some(Role::Owner) => Need::Owner,
            };
            (r.tool, need, r.writes)
        })
        .collect()
}

/// A tool's row of [`roles`].
pub(crate) fn needs(tool: &str) -> Option<(Need, bool)> {
    roles()
        .into_iter()
        .find(|(t, _, _)| *t == tool)
        .map(|(_, n, w)| (n, w))
}

/// Whether a call sets personal data (a member's e-mail, an absence's reason): the
/// gate lets only owners (or the member themself, none of the test's users) do it,
/// whatever the tool's role.
pub(crate) fn sets_personal(tool: &str, args: &Value) -> bool {
    let set = |key: &str| {
        args.get(key)
            .is_some_and(|v| v.as_str().is_none_or(|s| !s.is_empty()))
    };
    match tool {
        "add_member" | "update_member" => set("email"),
        "add_absence" | "update_absence" => set("reason"),
        _ => false,
    }
}

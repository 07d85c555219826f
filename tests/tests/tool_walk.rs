//! One test walks EVERY tool through the real server (HTTP, rmcp's client): the
//! catalogue comes from `tools/list` as an MCP Apps client sees it (the model tools and
//! the view-only ones), while every call is made by clients that do not announce MCP
//! Apps (a view-only tool answers them too), each tool's valid call is its example in
//! docs/tools.md (so the documentation is complete and true), run on a fresh copy of
//! the demo schedule. Each answer must read well (text not empty, no Rust debug output,
//! no stack trace, no tool name that does not exist) with a compact structuredContent;
//! each bad call (missing field, wrong type, unknown field, unknown schedule or item
//! id, a viewer where more is needed) must be a refusal — a tool result with
//! `isError`, never a protocol error nor an HTTP 500 — whose text says what to fix,
//! with an `error` code, and which writes nothing. One call per tool is made in
//! English and must differ from the French one. A tool that declares an `outputSchema`
//! must answer structuredContent that validates against it.
//!
//! Failures are collected and reported together, so a broken example or tool shows
//! every problem in one run.

mod catalogue;
mod common;

use std::collections::BTreeSet;

use catalogue::{Need, People, aimed_at, documented, needs, setup, text_problems, try_call};
use common::{Answer, Client, TestServer};
use serde_json::{Value, json};

/// The largest structuredContent (serialised) of a valid example. The rules ask for
/// "under ~4 KB for normal use": ids, rank, counts, short lists.
const STRUCTURED_BOUND: usize = 4096;

/// Tools whose structuredContent may be large: exporting the schedule, or the view's
/// code, is their purpose.
const UNBOUNDED: [&str; 3] = ["export_schedule", "get_schedule_page", "get_view_code"];

/// Argument fields that hold the id of an item inside a schedule (an unknown one must
/// be refused, naming it).
const ITEM_ID_FIELDS: [&str; 14] = [
    "item",
    "row",
    "group",
    "bar",
    "bars",
    "milestone",
    "link",
    "action",
    "absence",
    "member",
    "assignee",
    "from",
    "to",
    "version",
];

const UNKNOWN: i64 = 999_999;

/// The failures of the walk, reported together at the end.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn push(&mut self, tool: &str, what: impl AsRef<str>) {
        self.0.push(format!("{tool}: {}", what.as_ref()));
    }
}

/// A value of the wrong type for a field whose example value is `v`.
fn wrong_type(v: &Value) -> Value {
    match v {
        Value::Object(_) => json!(true),
        Value::Array(_) => json!("not a list"),
        _ => json!({"not": "this"}),
    }
}

/// Replaces whole-number tokens equal to `id` (the copy's id differs between the French
/// and the English call).
fn without_id(text: &str, id: i64) -> String {
    let id = id.to_string();
    let mut out = String::new();
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            out.push_str(if digits == id { "#" } else { &digits });
            digits.clear();
        }
        out.push(c);
    }
    out.pop();
    out
}

/// Whether a text names `what` as such: a field quoted or introduced as a field (the
/// list of the tool's fields at the end of a refusal does not count), an id or a role
/// anywhere.
fn mentions(text: &str, what: &str) -> bool {
    if what.chars().all(|c| c.is_ascii_digit()) || !what.is_ascii() || what.contains(' ') {
        return text.contains(what);
    }
    let text = match text.find(" Champs de cet outil") {
        Some(i) => &text[..i],
        None => text,
    };
    let text = match text.find(" This tool's fields") {
        Some(i) => &text[..i],
        None => text,
    };
    [
        format!("«\u{a0}{what}\u{a0}»"),
        format!("“{what}”"),
        format!("\"{what}\""),
        format!("`{what}`"),
        format!("champ {what}"),
        format!("field {what}"),
        format!("{what}\u{a0}:"),
        format!("{what}:"),
    ]
    .iter()
    .any(|form| text.contains(form.as_str()))
}

/// Checks a refusal: a tool result with `isError`, an `error` code, a readable text
/// that contains each of `hints` (what to fix).
fn check_refusal(
    f: &mut Failures,
    tool: &str,
    case: &str,
    args: &Value,
    got: Result<Answer, String>,
    hints: &[&str],
    tools: &[String],
) {
    let a = match got {
        Ok(a) => a,
        Err(e) => return f.push(tool, format!("{case}: {e}")),
    };
    if !a.is_error {
        return f.push(tool, format!("{case} {args}: accepted: {}", a.text));
    }
    if !a.structured["error"].is_string() {
        f.push(
            tool,
            format!("{case} {args}: no error code in {}", a.structured),
        );
    }
    // A bad call is made in French unless it asks for English.
    let french = args["lang"] != "en";
    for p in text_problems(&a.text, tools, french) {
        f.push(tool, format!("{case} {args}: {p}: {}", a.text));
    }
    for hint in hints {
        if !mentions(&a.text, hint) {
            f.push(
                tool,
                format!("{case} {args}: the text does not name {hint}: {}", a.text),
            );
        }
    }
}

/// Runs an example's setup steps with `client`: in the walk the owner is both the
/// copy's owner and the author of the steps.
async fn run_setup(f: &mut Failures, tool: &str, client: &Client, id: i64) -> bool {
    for (_, step, mut args) in setup(tool) {
        args["schedule"] = json!(id);
        match try_call(client, step, &args).await {
            Ok(a) if !a.is_error => {}
            Ok(a) => {
                f.push(tool, format!("setup {step} {args} refused: {}", a.text));
                return false;
            }
            Err(e) => {
                f.push(tool, format!("setup: {e}"));
                return false;
            }
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_its_documented_example_and_refuses_bad_calls_usefully() {
    let server = TestServer::start("tool-walk").await;
    let people = People::new(&server).await;
    let listed = people.owner_views.list_all_tools().await.unwrap();
    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
    // What a text may name: a tool, or a tool's field (« Champs de cet outil :
    // add_holidays, … »).
    let mut nameable = names.clone();
    for t in &listed {
        if let Some(Value::Object(props)) = t.input_schema.get("properties") {
            nameable.extend(props.keys().cloned());
        }
    }
    // …or an operation of the patch language: a model's error names the command that
    // failed (« Commande 1 (rename_group), champ group : … »).
    if let Some(t) = listed.iter().find(|t| t.name == "apply_patch") {
        let ops = &t.input_schema["properties"]["commands"]["items"]["properties"]["op"]["enum"];
        nameable.extend(
            ops.as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o.as_str().map(str::to_owned)),
        );
    }
    let model_tools = people.owner.list_all_tools().await.unwrap();
    assert_eq!(
        model_tools.len() + 4,
        listed.len(),
        "the view-only tools are listed to MCP Apps clients only"
    );

    // The documentation lists exactly the served tools.
    let docs = documented();
    let documented_names: BTreeSet<&str> = docs.iter().map(|e| e.tool.as_str()).collect();
    let listed_names: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(
        documented_names
            .difference(&listed_names)
            .collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "documented in docs/tools.md but not served"
    );
    assert_eq!(
        listed_names
            .difference(&documented_names)
            .collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "served but not documented in docs/tools.md"
    );

    let mut f = Failures::default();
    let mut same_in_both_languages = Vec::new();
    for (n, ex) in docs.iter().enumerate() {
        let tool = ex.tool.as_str();
        let spec = listed.iter().find(|t| t.name == tool).unwrap();
        let (need, _) = needs(tool).unwrap_or_else(|| panic!("{tool}: not in the rights table"));
        let name = format!("walk {n} {tool}");
        let id = people.fresh_demo(&name).await;
        let args = aimed_at(&ex.args, id);
        let fields = args.as_object().unwrap();

        // Bad calls first: each is refused and the copy stays at rank 0.
        let required: Vec<&str> = spec
            .input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for field in &required {
            if !fields.contains_key(*field) {
                f.push(tool, format!("the example lacks the required “{field}”"));
                continue;
            }
            let mut bad = args.clone();
            bad.as_object_mut().unwrap().remove(*field);
            let got = try_call(&people.owner, tool, &bad).await;
            check_refusal(
                &mut f,
                tool,
                "missing field",
                &bad,
                got,
                &[field],
                &nameable,
            );
        }
        for (field, value) in fields {
            let mut bad = args.clone();
            bad[field] = wrong_type(value);
            let got = try_call(&people.owner, tool, &bad).await;
            check_refusal(&mut f, tool, "wrong type", &bad, got, &[field], &nameable);
        }
        {
            let mut bad = args.clone();
            bad["verbose"] = json!(true);
            let got = try_call(&people.owner, tool, &bad).await;
            check_refusal(
                &mut f,
                tool,
                "unknown field",
                &bad,
                got,
                &["verbose"],
                &nameable,
            );
        }
        if fields.contains_key("commands") {
            // A command naming an operation that does not exist, and one with a field
            // that does not: said in French, naming what to fix (never serde's English,
            // never the internal operations).
            for (case, command, hint) in [
                (
                    "unknown operation",
                    json!({"op": "shift", "bars": [13], "by": 5}),
                    "shift",
                ),
                (
                    "unknown command field",
                    json!({"op": "move_periods", "bar": [13], "by": 5}),
                    "bar",
                ),
            ] {
                let mut bad = args.clone();
                bad["commands"] = json!([command]);
                let got = try_call(&people.owner, tool, &bad).await;
                if let Ok(a) = &got
                    && a.text.contains("replace_schedule")
                {
                    f.push(
                        tool,
                        format!("{case}: names an internal operation: {}", a.text),
                    );
                }
                check_refusal(&mut f, tool, case, &bad, got, &[hint], &nameable);
            }
        }
        if fields.contains_key("schedule") {
            let bad = aimed_at(&ex.args, UNKNOWN);
            let got = try_call(&people.owner, tool, &bad).await;
            check_refusal(
                &mut f,
                tool,
                "unknown schedule",
                &bad,
                got,
                &["999999"],
                &nameable,
            );
        }
        for (field, value) in fields {
            if !ITEM_ID_FIELDS.contains(&field.as_str()) {
                continue;
            }
            let mut bad = args.clone();
            bad[field] = match value {
                Value::Number(_) => json!(UNKNOWN),
                Value::Array(items) if items.iter().all(Value::is_number) => {
                    let mut items = items.clone();
                    items.push(json!(UNKNOWN));
                    Value::Array(items)
                }
                _ => continue,
            };
            let got = try_call(&people.owner, tool, &bad).await;
            check_refusal(
                &mut f,
                tool,
                "unknown id",
                &bad,
                got,
                &["999999"],
                &nameable,
            );
        }
        if need > Need::Viewer {
            let mut bad = args.clone();
            bad["lang"] = json!("en");
            let got = try_call(&people.viewer, tool, &bad).await;
            check_refusal(
                &mut f,
                tool,
                "as a viewer",
                &bad,
                got,
                &[&format!("{} role", need.names().1)],
                &nameable,
            );
        }
        match server.store.rank(id).await {
            Ok(0) => {}
            other => f.push(
                tool,
                format!("the refusals wrote something: rank {other:?}"),
            ),
        }

        // The example, in French (the server's language).
        if !run_setup(&mut f, tool, &people.owner, id).await {
            continue;
        }
        let fr = match try_call(&people.owner, tool, &args).await {
            Ok(a) => a,
            Err(e) => {
                f.push(tool, e);
                continue;
            }
        };
        if fr.is_error {
            f.push(tool, format!("the example {args} is refused: {}", fr.text));
            continue;
        }
        for p in text_problems(&fr.text, &nameable, true) {
            f.push(tool, format!("{p}: {}", fr.text));
        }
        let size = serde_json::to_string(&fr.structured).unwrap().len();
        if !fr.structured.is_object() {
            f.push(tool, "no structuredContent object");
        } else if size > STRUCTURED_BOUND && !UNBOUNDED.contains(&tool) {
            f.push(
                tool,
                format!("structuredContent of {size} bytes (bound {STRUCTURED_BOUND})"),
            );
        }
        // A tool that declares its result's type answers that type.
        if let Some(schema) = &spec.output_schema {
            let schema = Value::Object((**schema).clone());
            match jsonschema::validator_for(&schema) {
                Ok(v) => {
                    for e in v.iter_errors(&fr.structured) {
                        f.push(
                            tool,
                            format!(
                                "structuredContent against outputSchema: {e} at {}",
                                e.instance_path()
                            ),
                        );
                    }
                }
                Err(e) => f.push(tool, format!("outputSchema does not compile: {e}")),
            }
        }
        let _ = server.store.delete_schedule(id).await;

        // The same in English, on another fresh copy of the same name.
        let id_en = people.fresh_demo(&name).await;
        if !run_setup(&mut f, tool, &people.owner, id_en).await {
            continue;
        }
        let mut en_args = aimed_at(&ex.args, id_en);
        en_args["lang"] = json!("en");
        match try_call(&people.owner, tool, &en_args).await {
            Ok(en) if !en.is_error => {
                for p in text_problems(&en.text, &nameable, false) {
                    f.push(tool, format!("(en) {p}: {}", en.text));
                }
                if en.text.contains('«') {
                    f.push(tool, format!("French quotes in English: {}", en.text));
                }
                if without_id(&en.text, id_en) == without_id(&fr.text, id) {
                    same_in_both_languages.push(tool.to_owned());
                }
            }
            Ok(en) => f.push(tool, format!("(en) refused: {}", en.text)),
            Err(e) => f.push(tool, e),
        }
        let _ = server.store.delete_schedule(id_en).await;
    }
    assert!(
        f.0.is_empty(),
        "{} problem(s):\n{}",
        f.0.len(),
        f.0.join("\n")
    );
    assert!(
        same_in_both_languages.is_empty(),
        "these tools answer the same text in French and in English: {same_in_both_languages:?}"
    );
    people.close().await;
    server.stop().await;
}

/// The walk's text checks themselves: each problem it must catch is caught, and a text
/// written as the tools write it passes.
#[test]
fn text_checks_catch_lazy_plurals_ordinary_spaces_and_english_in_french() {
    let tools = vec!["list_rows".to_owned()];
    let good = "«\u{a0}Recette\u{a0}» (bloc 17)\u{a0}: 2 blocs déplacés de +5\u{a0}jours ouvrés\u{202f}; rang 3. Et alors\u{202f}? 40\u{202f}%\u{202f}! expected_rank\u{a0}: 3.";
    assert_eq!(text_problems(good, &tools, true), Vec::<String>::new());
    for bad in [
        "2 bloc(s) déplacés.",
        "Rang 3 : fait.",
        "Rang 3\u{a0}: fait ; suite.",
        "Vraiment ?",
        "« Recette\u{a0}»",
        "«\u{a0}Recette »",
        "Commande invalide\u{a0}: unknown variant `shift`.",
        "Arguments invalides\u{a0}: missing field.",
        "valeurs\u{a0}: one of a, b",
    ] {
        assert!(
            !text_problems(bad, &tools, true).is_empty(),
            "not caught: {bad}"
        );
    }
    // English: only the lazy plural; its colons and words are its own.
    assert!(!text_problems("2 bar(s) moved.", &tools, false).is_empty());
    assert!(text_problems("Unknown field: x.", &tools, false).is_empty());
}

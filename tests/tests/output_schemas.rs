//! Every tool's answer is the type it declares: the tool walk checks each documented
//! example; this walks the answers the examples do not reach (a lock in a proposal,
//! commands with a lock in the journal, a cascade, a clear that clears nothing, an
//! empty schedule, a restore, the other forms of the tools that took in others) and validates each against the tool's `outputSchema`
//! as a client would (the jsonschema crate; the Python SDK does the same on every
//! call). Every model and view tool must declare one.

mod catalogue;
mod common;

use catalogue::{People, try_call};
use common::TestServer;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_off_the_documented_path_are_their_declared_types() {
    let server = TestServer::start("output-schemas").await;
    let people = People::new(&server).await;
    let listed = people.owner_views.list_all_tools().await.unwrap();
    let undeclared: Vec<&str> = listed
        .iter()
        .filter(|t| t.output_schema.is_none())
        .map(|t| t.name.as_ref())
        .collect();
    assert!(
        undeclared.is_empty(),
        "tools without an outputSchema: {undeclared:?}"
    );

    let id = people.fresh_demo("schemas").await;
    let empty = try_call(
        &people.owner,
        "create_schedule",
        &json!({"name": "vide", "demo": false}),
    )
    .await
    .unwrap()
    .structured["schedule_id"]
        .as_i64()
        .unwrap();
    let calls: Vec<(&str, Value)> = vec![
        (
            "what_if",
            json!({"schedule": id, "commands": [{"op": "lock", "target": {"bar": 14}}]}),
        ),
        (
            "what_if",
            json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [14], "by": 3}], "cascade": true}),
        ),
        ("lock", json!({"schedule": id, "bar": 15})),
        ("history", json!({"schedule": id, "since_rank": 0})),
        ("history", json!({"schedule": id})),
        ("lock", json!({"schedule": id, "bar": 15, "unlock": true})),
        (
            "move_periods",
            json!({"schedule": id, "bars": [14], "by": 2, "cascade": true}),
        ),
        ("undo", json!({"schedule": id})),
        ("redo", json!({"schedule": id})),
        (
            "set_constraint",
            json!({"schedule": id, "item": 14, "date": null}),
        ),
        ("reschedule", json!({"schedule": id})),
        ("schedule_floats", json!({"schedule": empty})),
        ("schedule_floats", json!({"schedule": empty, "path": true})),
        ("get_schedule", json!({"schedule": empty})),
        ("list_periods", json!({"schedule": empty})),
        ("list_members", json!({"schedule": empty, "workload": true})),
        (
            "export_schedule",
            json!({"schedule": empty, "format": "csv"}),
        ),
        ("save_version", json!({"schedule": id, "name": "Base"})),
        (
            "diff_versions",
            json!({"schedule": id, "from": "Base", "to": "current"}),
        ),
        // The merged tools' other forms.
        (
            "schedule_lateness",
            json!({"schedule": id, "reference": "Base"}),
        ),
        (
            "set_constraint",
            json!({"schedule": id, "item": 19, "kind": "deadline", "date": "2026-12-16"}),
        ),
        (
            "list_periods",
            json!({"schedule": id, "filter": "is:critical"}),
        ),
        (
            "update_settings",
            json!({"schedule": id, "add_holidays": ["2026-12-24"]}),
        ),
        (
            "update_settings",
            json!({"schedule": id, "name": "Schémas", "remove_holidays": ["2026-12-24"]}),
        ),
        (
            "update_milestone",
            json!({"schedule": id, "milestone": 19, "date": "2026-12-21", "label": "Go-live"}),
        ),
        (
            "update_period",
            json!({"schedule": id, "bar": 16, "start": "2026-11-30", "end": "2026-12-04"}),
        ),
        (
            "update_group",
            json!({"schedule": id, "group": 9, "index": 0}),
        ),
        ("delete", json!({"schedule": id, "link": 20})),
        (
            "restore_version",
            json!({"schedule": id, "version": "Base", "confirm": true}),
        ),
        (
            "get_changes_since",
            json!({"schedule": id, "rank": 0, "records": true}),
        ),
        ("get_schedule_page", json!({"schedule": id, "page": 0})),
    ];
    let mut problems = Vec::new();
    for (tool, args) in calls {
        let spec = listed.iter().find(|t| t.name == tool).unwrap();
        let answer = match try_call(&people.owner, tool, &args).await {
            Ok(a) => a,
            Err(e) => {
                problems.push(format!("{tool}: {e}"));
                continue;
            }
        };
        if answer.is_error {
            problems.push(format!("{tool} {args} refused: {}", answer.text));
            continue;
        }
        let Some(schema) = &spec.output_schema else {
            continue;
        };
        let schema = Value::Object((**schema).clone());
        let validator = jsonschema::validator_for(&schema).unwrap();
        for e in validator.iter_errors(&answer.structured) {
            problems.push(format!("{tool} {args}: {e} at {}", e.instance_path()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    people.close().await;
    server.stop().await;
}

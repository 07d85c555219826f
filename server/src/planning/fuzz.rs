//! Fuzzing the tools' argument parsing and everything behind it: every tool of the
//! catalogue called with arguments built from its own schema's field names and
//! arbitrary JSON values (numbers at the edges, dates and non-dates, deep and wide
//! values, wrong types, unknown fields), as the owner and as a viewer. Nothing panics
//! (a caught panic would answer "internal"), a refusal says something, a refused write
//! leaves the rank as it was, and the stored schedule always passes the model's
//! invariants. proptest's default case count; `PROPTEST_CASES=20000` runs it longer.

use palmaplan_model::command::validate_schedule;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

use super::journal_testkit::Kit;

/// Tools left out: one would end the run's schedule for every later case; the other
/// is the unit tests' panicking tool (which this harness finds at once otherwise).
const LEFT_OUT: [&str; 2] = ["delete_schedule", "panic_for_test"];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop_oneof![
            Just(0i64),
            Just(1),
            Just(-1),
            Just(14),
            Just(19),
            Just(31),
            Just(i64::MAX),
            Just(i64::MIN),
            Just(u32::MAX as i64 + 1),
            -100i64..100,
        ]
        .prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        prop_oneof![
            Just("2026-12-10".to_owned()),
            Just("2026-02-30".to_owned()),
            Just("9999-12-31".to_owned()),
            Just("0000-01-01".to_owned()),
            Just("".to_owned()),
            Just("S/4HANA Migration".to_owned()),
            Just("((((x".to_owned()),
            Just("move_periods".to_owned()),
            ".{0,40}",
        ]
        .prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            proptest::collection::btree_map("[a-z_]{1,10}", inner.clone(), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            // A command-shaped object, so that the patch tools reach the model.
            (
                prop_oneof![
                    Just("move_periods"),
                    Just("add_link"),
                    Just("delete_group"),
                    Just("update_member"),
                    Just("replace_schedule"),
                    Just("set_settings"),
                ],
                proptest::collection::btree_map(
                    prop_oneof![
                        Just("bars".to_owned()),
                        Just("by".to_owned()),
                        Just("from".to_owned()),
                        Just("to".to_owned()),
                        Just("group".to_owned()),
                        Just("member".to_owned()),
                        Just("email".to_owned()),
                        "[a-z_]{1,8}"
                    ],
                    inner,
                    0..4
                )
            )
                .prop_map(|(op, fields)| {
                    let mut m: Map<String, Value> = fields.into_iter().collect();
                    m.insert("op".into(), json!(op));
                    Value::Object(m)
                }),
        ]
    })
}

/// A call: which tool (an index into the catalogue), which of its fields (indices into
/// its schema's properties, plus an unknown one sometimes) with which values, and who.
fn call() -> impl Strategy<Value = (usize, Vec<(usize, Value)>, bool, bool)> {
    (
        any::<usize>(),
        proptest::collection::vec((any::<usize>(), value()), 0..6),
        any::<bool>(),
        proptest::bool::weighted(0.1),
    )
}

#[test]
fn tool_arguments_never_panic_nor_corrupt() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let k = rt.block_on(Kit::new("fuzz_args"));
    let tools: Vec<(&'static str, Vec<String>)> = k
        .planning
        .tools()
        .filter(|t| !LEFT_OUT.contains(&t.name))
        .map(|t| {
            let fields = t.input_schema["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            (t.name, fields)
        })
        .collect();
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    });
    let outcome = runner.run(&call(), |(tool, fields, as_owner, unknown)| {
        let (name, known) = &tools[tool % tools.len()];
        let mut args = Map::new();
        args.insert("schedule".into(), json!(k.schedule));
        for (i, v) in fields {
            if let Some(field) = known.get(i % known.len().max(1)) {
                args.insert(field.clone(), v);
            }
        }
        if unknown {
            args.insert("no_such_field".into(), json!(1));
        }
        let who = if as_owner { &k.alice } else { &k.carol };
        rt.block_on(async {
            let before = k.rank().await;
            let r = k.call(who, name, Value::Object(args.clone())).await;
            let fail = |why: &str| {
                Err(TestCaseError::fail(format!(
                    "{name} {}: {why}: {}",
                    Value::Object(args.clone()),
                    r.text
                )))
            };
            if r.structured["error"] == "internal" {
                return fail("a panic");
            }
            if r.is_error && r.text.trim().is_empty() {
                return fail("a refusal without a text");
            }
            if r.is_error && k.rank().await != before {
                return fail("a refusal that wrote");
            }
            let state = k.state().await;
            if let Err(e) = validate_schedule(&state) {
                return fail(&format!("the stored schedule breaks an invariant: {e:?}"));
            }
            Ok(())
        })
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

//! The patch language as a model reads it. `apply_patch` and `what_if` take a list of
//! the model's commands (`palmaplan_model::command::Command`); their JSON Schema is
//! generated from that type (one `oneOf` branch per `op`, with its fields and docs), so
//! it cannot drift from what the server parses. The whole schema is ~10 KB, too much
//! to repeat in two tools of every conversation's tool list: there each command is an
//! object whose `op` is one of the names, and `describe_patch` gives the fields of the
//! operations a model asks about.

use crate::planning::Code;
use std::borrow::Cow;
use std::sync::OnceLock;

use palmaplan_model::command::Command;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Access, Ctx, Refusal, Reply, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "describe_patch",
            "JSON Schema of the commands of apply_patch and what_if, per op.",
            Access::Read,
            describe_patch,
        )
        .returns::<Described>()
        .on_no_schedule(),
    ]
}

/// The full schema of one command, generated from the model's type: `oneOf` one
/// branch per operation, each `{"op": {"const": …}, …fields}`.
pub(crate) fn command_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
            s.inline_subschemas = true;
        });
        let schema = settings.into_generator().into_root_schema_for::<Command>();
        let mut v = serde_json::to_value(schema).unwrap_or_else(|_| json!({}));
        if let Some(o) = v.as_object_mut() {
            o.remove("$schema");
        }
        super::schema::portable(&mut v);
        v
    })
}

/// Each operation's branch of [`command_schema`], by its name.
fn branches() -> Vec<(&'static str, &'static Value)> {
    command_schema()["oneOf"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|b| Some((b["properties"]["op"]["const"].as_str()?, b)))
                .collect()
        })
        .unwrap_or_default()
}

/// The operations' names, in the model's order.
pub(crate) fn ops() -> Vec<&'static str> {
    branches().into_iter().map(|(op, _)| op).collect()
}

/// One command as the tool list describes it: an object naming its operation. The
/// fields of each are in `describe_patch` (and the server refuses, naming them, a
/// command with a wrong or missing field).
#[derive(Debug)]
pub(crate) struct PatchCommand;

impl JsonSchema for PatchCommand {
    fn schema_name() -> Cow<'static, str> {
        "PatchCommand".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": { "op": { "type": "string", "enum": ops() } },
            "required": ["op"]
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DescribePatch {
    #[serde(default)]
    ops: Vec<String>,
}

/// The operations asked for, as a JSON Schema: one branch per operation.
#[derive(Debug, Serialize, JsonSchema)]
struct PatchSchema {
    /// Each operation's JSON Schema, `{"op": {"const": …}, …fields}`.
    // Branches of `command_schema` as they are: each is itself a schema, which an
    // output schema could only describe as an object.
    #[serde(rename = "oneOf")]
    #[schemars(with = "Vec<Map<String, Value>>")]
    one_of: Vec<&'static Value>,
}

/// `describe_patch`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Described {
    schema: PatchSchema,
}

async fn describe_patch(ctx: Ctx, p: DescribePatch) -> Result<Reply, Refusal> {
    let all = branches();
    let unknown: Vec<&str> = p
        .ops
        .iter()
        .map(String::as_str)
        .filter(|op| !all.iter().any(|(name, _)| name == op))
        .collect();
    if let Some(op) = unknown.first() {
        let names: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
        let close = super::args::closest(op, names.iter().copied());
        let hint = match close {
            Some(c) => ctx.tr(
                format!(" Vouliez-vous dire «\u{a0}{c}\u{a0}»\u{202f}?"),
                format!(" Did you mean “{c}”?"),
            ),
            None => String::new(),
        };
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}{op}\u{a0}» n'est pas une opération du langage de patch.{hint} Opérations\u{a0}: {}.", names.join(", ")),
                format!("“{op}” is not an operation of the patch language.{hint} Operations: {}.", names.join(", ")),
            ),
        ));
    }
    let chosen: Vec<&'static Value> = all
        .iter()
        .filter(|(name, _)| p.ops.is_empty() || p.ops.iter().any(|o| o == name))
        .map(|(_, b)| *b)
        .collect();
    let names: Vec<&str> = all
        .iter()
        .filter(|(name, _)| p.ops.is_empty() || p.ops.iter().any(|o| o == name))
        .map(|(n, _)| *n)
        .collect();
    let n = names.len();
    let text = ctx.tr(
        format!(
            "Langage de patch{}\u{a0}: {}. Chaque commande est un objet dont «\u{a0}op\u{a0}» nomme l'opération\u{202f}; ses champs sont dans structuredContent.schema (JSON Schema).",
            if n > 1 { format!(" ({n}\u{a0}opérations)") } else { String::new() },
            names.join(", ")
        ),
        format!(
            "Patch language{}: {}. Each command is an object whose “op” names the operation; its fields are in structuredContent.schema (JSON Schema).",
            if n > 1 { format!(" ({n} operations)") } else { String::new() },
            names.join(", ")
        ),
    );
    Ok(Reply::ok(
        text,
        json!(Described {
            schema: PatchSchema { one_of: chosen },
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_a_model_writes_has_its_fields() {
        let names = ops();
        assert!(names.contains(&"move_periods"), "{names:?}");
        assert!(names.contains(&"set_constraint"), "{names:?}");
        // A whole schedule is not written by a patch a model makes.
        assert!(!names.contains(&"replace_schedule"), "{names:?}");
        let lock = branches()
            .into_iter()
            .find(|(n, _)| *n == "lock")
            .map(|(_, b)| b.clone())
            .unwrap();
        assert!(lock["properties"].get("target").is_some(), "{lock}");
        // A clear is `null`, required: absent is refused by the server, so by the schema.
        let deadline = branches()
            .into_iter()
            .find(|(n, _)| *n == "set_deadline")
            .map(|(_, b)| b.clone())
            .unwrap();
        assert_eq!(
            deadline["required"],
            json!(["op", "item", "deadline"]),
            "{deadline}"
        );
        assert!(
            deadline["properties"]["deadline"]["anyOf"]
                .as_array()
                .is_some_and(|a| a.contains(&json!({"type": "null"}))),
            "{deadline}"
        );
        let update = branches()
            .into_iter()
            .find(|(n, _)| *n == "update_period")
            .map(|(_, b)| b.clone())
            .unwrap();
        assert!(
            update["properties"]["color"]["anyOf"]
                .as_array()
                .is_some_and(|a| a.contains(&json!({"type": "null"}))),
            "{update}"
        );
        let problems = super::super::schema::findings(command_schema());
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn each_branch_reads_as_the_model_parses() {
        // Every example the schema allows for move_periods parses as a Command.
        let c: Command =
            serde_json::from_value(json!({"op": "move_periods", "bars": [1], "by": 2})).unwrap();
        assert_eq!(c.op(), "move_periods");
        let (_, b) = branches()
            .into_iter()
            .find(|(n, _)| *n == "move_periods")
            .unwrap();
        assert_eq!(b["required"], json!(["op", "bars", "by"]), "{b}");
    }
}

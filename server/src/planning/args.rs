//! Tool arguments: their JSON Schema and their parsing, from one Rust type each.
//!
//! serde's own messages are English and name Rust types; a model acting on them would
//! have to guess. So a parse failure is reworded here: which field, what was wrong, and
//! (from the schema) which fields the tool takes, in the caller's language.

use std::fmt;

use palmaplan_model::{Date, Lang};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ctx, Refusal, tr};

/// A schedule named by its id or its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ScheduleRef {
    /// The schedule's id (see list_schedules).
    Id(i64),
    /// The schedule's exact name (case does not matter when it is unique).
    Name(String),
}

impl fmt::Display for ScheduleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleRef::Id(id) => write!(f, "{id}"),
            ScheduleRef::Name(n) => f.write_str(n),
        }
    }
}

/// Parses a date argument ("YYYY-MM-DD"); the refusal names the field and shows the
/// expected form. Every tool that takes a date goes through here, so they all word it
/// the same way.
pub(super) fn date(ctx: &Ctx, field: &str, v: &str) -> Result<Date, Refusal> {
    v.parse().map_err(|_| {
        Refusal::new(
            "invalid_arguments",
            ctx.tr(
                format!("«\u{a0}{field}\u{a0}»\u{a0}: «\u{a0}{v}\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30."),
                format!("“{field}”: “{v}” is not a date; write YYYY-MM-DD, e.g. 2026-11-30."),
            ),
        )
    })
}

/// The JSON Schema of a tool's arguments, as an object schema.
pub(super) fn schema_of<P: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<P>();
    let mut v = serde_json::to_value(schema).unwrap_or_else(|_| serde_json::json!({}));
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
        obj.entry("type")
            .or_insert_with(|| Value::String("object".into()));
        obj.entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
    }
    v
}

/// Parses a tool's arguments, turning serde's message into one that says what to fix.
/// serde_path_to_error finds WHICH field was wrong (serde_json's own message on a
/// `Value` says "invalid type: map, expected u64" without naming it).
pub(super) fn parse<P: DeserializeOwned + JsonSchema>(
    raw: Value,
    lang: Lang,
) -> Result<P, Refusal> {
    let raw = if raw.is_null() {
        Value::Object(Default::default())
    } else {
        raw
    };
    serde_path_to_error::deserialize::<_, P>(raw).map_err(|e| {
        let path = e.path().to_string();
        let schema = schema_of::<P>();
        let fields = field_list(&schema);
        let why = reword(&e.into_inner().to_string(), &path, &schema, lang);
        Refusal::new(
            "invalid_arguments",
            tr(
                lang,
                format!("Arguments invalides\u{a0}: {why}. Champs de cet outil\u{a0}: {fields}."),
                format!("Invalid arguments: {why}. This tool's fields: {fields}."),
            ),
        )
    })
}

/// "name*, start, ..." from the schema (* = required).
fn field_list(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for name in props.keys() {
            if required.contains(&name.as_str()) {
                out.push(format!("{name}*"));
            } else {
                out.push(name.clone());
            }
        }
    }
    if out.is_empty() {
        "(aucun / none)".into()
    } else {
        out.join(", ")
    }
}

/// serde_json's messages, made readable: which field ("." is the arguments
/// themselves), what was wrong, with serde's and Rust's type names ("map", "u64")
/// said in words.
fn reword(msg: &str, path: &str, schema: &Value, lang: Lang) -> String {
    let msg = msg.split(" at line ").next().unwrap_or(msg);
    let quoted = |m: &str| m.split('`').nth(1).unwrap_or("").to_owned();
    // "« by » : …" before what is wrong with a field, nothing for the whole object.
    let at = if path == "." || path.is_empty() {
        String::new()
    } else {
        tr(lang, format!("«\u{a0}{path}\u{a0}»\u{a0}: "), format!("“{path}”: "))
    };
    if msg.starts_with("missing field") {
        let f = quoted(msg);
        return at
            + &tr(
                lang,
                format!("le champ «\u{a0}{f}\u{a0}» manque"),
                format!("the field “{f}” is missing"),
            );
    }
    if msg.starts_with("unknown field") {
        let f = quoted(msg);
        return at
            + &tr(
                lang,
                format!("le champ «\u{a0}{f}\u{a0}» n'existe pas"),
                format!("there is no field “{f}”"),
            );
    }
    if msg.starts_with("unknown variant") {
        // "unknown variant `XX`, expected one of `FS`, `SS`" — keep the valid values.
        let parts: Vec<&str> = msg.split('`').collect();
        let got = parts.get(1).copied().unwrap_or("");
        let valid: Vec<&str> = parts.iter().skip(3).step_by(2).copied().collect();
        return at
            + &tr(
                lang,
                format!(
                    "la valeur «\u{a0}{got}\u{a0}» n'est pas admise\u{202f}; valeurs possibles\u{a0}: {}",
                    valid.join(", ")
                ),
                format!(
                    "the value “{got}” is not allowed; valid values: {}",
                    valid.join(", ")
                ),
            );
    }
    for (prefix, fr, en) in [
        ("invalid type: ", "type incorrect", "wrong type"),
        ("invalid value: ", "valeur incorrecte", "wrong value"),
        ("invalid length ", "longueur incorrecte", "wrong length"),
    ] {
        if let Some(detail) = msg.strip_prefix(prefix) {
            let (got, expected) = detail.split_once(", expected ").unwrap_or((detail, ""));
            let (got, expected) = (words(got, lang), words(expected, lang));
            return at
                + &tr(
                    lang,
                    format!("{fr} (reçu\u{a0}: {got}\u{202f}; attendu\u{a0}: {expected})"),
                    format!("{en} (got {got}; expected {expected})"),
                );
        }
    }
    if msg.starts_with("data did not match any variant of untagged enum") {
        let field = path.rsplit('.').next().unwrap_or(path);
        let described = schema["properties"][field]["description"].as_str();
        let id_or_name = schema["properties"][field]["anyOf"]
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v["type"] == "integer"));
        return match (id_or_name, described) {
            (true, _) => tr(
                lang,
                format!("«\u{a0}{path}\u{a0}» doit être un id (nombre) ou un nom (texte)"),
                format!("“{path}” must be an id (a number) or a name (a string)"),
            ),
            (false, Some(d)) => {
                at + &tr(
                    lang,
                    format!("forme non admise ({d})"),
                    format!("not an accepted form ({d})"),
                )
            }
            (false, None) => at + &tr(lang, "forme non admise", "not an accepted form"),
        };
    }
    at + msg
}

/// serde's names of what it got or expected, in words: "map" is an object, "u64" a
/// whole number.
fn words(serde: &str, lang: Lang) -> String {
    let serde = serde.trim();
    let (fr, en): (String, String) = match serde {
        "map" | "a map" => ("un objet { … }".into(), "an object { … }".into()),
        "sequence" | "a sequence" => ("une liste [ … ]".into(), "a list [ … ]".into()),
        "a string" => ("un texte".into(), "a string".into()),
        "a boolean" => ("true ou false".into(), "true or false".into()),
        "null" | "unit value" => ("null".into(), "null".into()),
        "u8" | "u16" | "u32" | "u64" | "usize" => (
            "un nombre entier positif ou nul".into(),
            "a whole number, 0 or more".into(),
        ),
        "i8" | "i16" | "i32" | "i64" | "isize" => {
            ("un nombre entier".into(), "a whole number".into())
        }
        s if s.starts_with("struct ") => ("un objet { … }".into(), "an object { … }".into()),
        s => {
            // "string \"x\"", "integer `5`", "boolean `true`", "floating point `1.5`"
            let value = s.split('`').nth(1);
            match (s.split([' ', '`']).next(), value) {
                (Some("string"), _) => (
                    format!("le texte {}", &s[7..]),
                    format!("the string {}", &s[7..]),
                ),
                (Some("integer"), Some(v)) => (format!("le nombre {v}"), format!("the number {v}")),
                (Some("floating"), Some(v)) => {
                    (format!("le nombre {v}"), format!("the number {v}"))
                }
                (Some("boolean"), Some(v)) => (v.to_owned(), v.to_owned()),
                _ => (s.to_owned(), s.to_owned()),
            }
        }
    };
    tr(lang, fr, en)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // read through serde only
    struct Example {
        schedule: ScheduleRef,
        name: String,
        #[serde(default)]
        count: Option<u32>,
    }

    #[test]
    fn messages_say_what_to_fix() {
        let e = parse::<Example>(serde_json::json!({"schedule": 1}), Lang::Fr).unwrap_err();
        assert_eq!(e.code, "invalid_arguments");
        assert!(e.text.contains("«\u{a0}name\u{a0}» manque"), "{}", e.text);
        assert!(
            e.text.contains("name*") && e.text.contains("schedule*"),
            "{}",
            e.text
        );
        let e = parse::<Example>(
            serde_json::json!({"schedule": 1, "name": "x", "nom": 2}),
            Lang::En,
        )
        .unwrap_err();
        assert!(e.text.contains("no field “nom”"), "{}", e.text);
        let e =
            parse::<Example>(serde_json::json!({"schedule": 1, "name": 5}), Lang::En).unwrap_err();
        assert!(
            e.text
                .contains("“name”: wrong type (got the number 5; expected a string)"),
            "{}",
            e.text
        );
        let e = parse::<Example>(
            serde_json::json!({"schedule": 1, "name": "x", "count": {"n": 1}}),
            Lang::Fr,
        )
        .unwrap_err();
        assert!(
            e.text.contains(
                "«\u{a0}count\u{a0}»\u{a0}: type incorrect (reçu\u{a0}: un objet { … }\u{202f}; attendu\u{a0}: un nombre entier positif ou nul)"
            ),
            "{}",
            e.text
        );
        let e = parse::<Example>(serde_json::json!({"schedule": [1], "name": "x"}), Lang::En)
            .unwrap_err();
        assert!(
            e.text
                .contains("“schedule” must be an id (a number) or a name (a string)"),
            "{}",
            e.text
        );
        assert!(!e.text.contains("ScheduleRef"), "{}", e.text);
        #[derive(Debug, Deserialize, JsonSchema)]
        #[allow(dead_code)] // read through serde only
        enum Kind {
            FS,
            SS,
        }
        #[derive(Debug, Deserialize, JsonSchema)]
        #[allow(dead_code)] // read through serde only
        struct WithKind {
            kind: Kind,
        }
        let e = parse::<WithKind>(serde_json::json!({"kind": "XX"}), Lang::Fr).unwrap_err();
        assert!(
            e.text
                .contains("«\u{a0}XX\u{a0}» n'est pas admise\u{202f}; valeurs possibles\u{a0}: FS, SS"),
            "{}",
            e.text
        );
        let ok = parse::<Example>(
            serde_json::json!({"schedule": "Plan", "name": "x"}),
            Lang::En,
        )
        .unwrap();
        assert_eq!(ok.schedule, ScheduleRef::Name("Plan".into()));
    }

    #[test]
    fn schemas_are_objects_with_required_fields() {
        let s = schema_of::<Example>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], serde_json::json!(["schedule", "name"]));
    }
}

/// A date-changing tool's `cascade`: whether the write moves what follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum CascadeArg {
    /// true: push the successors so every link holds; false: leave them where they are.
    Flag(bool),
    /// "push" (the same as true) or "pull" (also brings successors back to their bounds
    /// when a predecessor moves earlier).
    Mode(CascadeMode),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CascadeMode {
    Push,
    Pull,
}

impl CascadeArg {
    /// The write's cascade: the argument when given, the schedule's setting otherwise.
    pub(crate) fn choice(arg: Option<CascadeArg>) -> super::Cascading {
        use super::Cascading;
        use palmaplan_model::push::Cascade;
        match arg {
            None => Cascading::BySetting,
            Some(CascadeArg::Flag(false)) => Cascading::Off,
            Some(CascadeArg::Flag(true) | CascadeArg::Mode(CascadeMode::Push)) => {
                Cascading::On(Cascade::Push)
            }
            Some(CascadeArg::Mode(CascadeMode::Pull)) => Cascading::On(Cascade::Pull),
        }
    }
}

//! Tool arguments: their JSON Schema and their parsing, from one Rust type each.
//!
//! serde's own messages are English and name Rust types; a model acting on them would
//! have to guess. So a parse failure is reworded here: which field, what was wrong, and
//! (from the schema) which fields the tool takes, in the caller's language.

use crate::planning::Code;
use std::fmt;

use palmaplan_model::command::Command;
use palmaplan_model::{Date, Lang};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ctx, Refusal, tr};

/// A schedule named by its id or its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScheduleRef {
    /// The schedule's id (see list_schedules).
    Id(i64),
    /// The schedule's exact name (case does not matter when it is unique).
    Name(String),
}

/// Written by hand: the derived schema repeats two branch descriptions in each of 70
/// tools; the field's own description says "id or name".
impl JsonSchema for ScheduleRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ScheduleRef".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "anyOf": [{ "type": "integer" }, { "type": "string" }] })
    }
}

impl fmt::Display for ScheduleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleRef::Id(id) => write!(f, "{id}"),
            ScheduleRef::Name(n) => f.write_str(n),
        }
    }
}

/// The name among `names` closest to `want` (a typo, another case, a word left out),
/// if one is close enough to be worth suggesting.
pub(crate) fn closest<'a>(want: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let want = want.to_lowercase();
    names
        .into_iter()
        .map(|n| (strsim::jaro_winkler(&want, &n.to_lowercase()), n))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// Parses a date argument ("YYYY-MM-DD"); the refusal names the field and shows the
/// expected form. Every tool that takes a date goes through here, so they all word it
/// the same way.
pub(super) fn date(ctx: &Ctx, field: &str, v: &str) -> Result<Date, Refusal> {
    v.parse().map_err(|_| {
        Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}{field}\u{a0}»\u{a0}: «\u{a0}{v}\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30."),
                format!("“{field}”: “{v}” is not a date; write YYYY-MM-DD, e.g. 2026-11-30."),
            ),
        )
    })
}

/// The JSON Schema of a tool's arguments, as an object schema.
/// Serde helper for a field that may be absent (unchanged: `None`), `null` (cleared:
/// `Some(None)`) or a value (`Some(Some(v))`); with `#[serde(default)]`.
pub(super) fn nullable<'de, T: Deserialize<'de>, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// Serde helper for a field that must be present but may be `null`.
pub(super) fn required_nullable<'de, T: Deserialize<'de>, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

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
    super::schema::portable(&mut v);
    v
}

/// The JSON Schema of a tool's result (what it serialises), as an object schema.
pub(super) fn output_schema_of<T: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let settings = settings.for_serialize();
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).unwrap_or_else(|_| serde_json::json!({}));
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$schema");
        // An answer of several forms (an untagged enum) is still an object, and MCP
        // wants the root said so: clients drop an `outputSchema` of another type.
        if !obj.contains_key("type") && obj.contains_key("anyOf") {
            obj.insert("type".into(), Value::from("object"));
        }
    }
    super::schema::portable_output(&mut v);
    // A client validates answers with it; the model does not read it (the answer's
    // text says what it means): only the root keeps its description, so the types'
    // docs, repeated in every place an id or a date appears, weigh nothing.
    let root = v.get("description").cloned();
    super::schema::without_descriptions(&mut v);
    if let (Some(d), Some(o)) = (root, v.as_object_mut()) {
        o.insert("description".into(), d);
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
        let fields = field_list(&schema, lang);
        let why = reword(&e.into_inner().to_string(), &path, &schema, lang);
        Refusal::new(
            Code::InvalidArguments,
            tr(
                lang,
                format!("Arguments invalides\u{a0}: {why}. Champs de cet outil\u{a0}: {fields}."),
                format!("Invalid arguments: {why}. This tool's fields: {fields}."),
            ),
        )
    })
}

/// "name*, start, ..." from the schema (* = required).
fn field_list(schema: &Value, lang: Lang) -> String {
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
        tr(lang, "aucun", "none")
    } else {
        out.join(", ")
    }
}

/// serde_json's messages, made readable: which field ("." is the arguments
/// themselves), what was wrong, with serde's and Rust's type names ("map", "u64")
/// said in words. Nothing of serde's English is passed on: a message it does not know
/// says, in the caller's language, that the value is not accepted.
fn reword(msg: &str, path: &str, schema: &Value, lang: Lang) -> String {
    let msg = msg.split(" at line ").next().unwrap_or(msg);
    // "« by » : …" before what is wrong with a field, nothing for the whole object.
    let at = if path == "." || path.is_empty() {
        String::new()
    } else {
        tr(
            lang,
            format!("«\u{a0}{path}\u{a0}»\u{a0}: "),
            format!("“{path}”: "),
        )
    };
    // The tool's fields are listed after the message, not again inside it.
    if let Some(why) = reword_common(msg, None, lang) {
        return at + &why;
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
    at + &tr(lang, "valeur non admise", "value not accepted")
}

/// The names between backticks in a serde message, after the first one: serde's
/// "unknown field `x`, expected one of `a`, `b`" gives ["a", "b"].
fn backticked_after_first(msg: &str) -> Vec<&str> {
    msg.split('`').skip(3).step_by(2).collect()
}

/// The messages tool arguments and commands share: missing and unknown fields, values
/// out of a list, wrong types, and our own date's. An unknown field's message lists the
/// `allowed` fields when given (serde's own list would name those the server fills
/// in). `None` for a message of another kind.
fn reword_common(msg: &str, allowed: Option<&[&str]>, lang: Lang) -> Option<String> {
    let quoted = |m: &str| m.split('`').nth(1).unwrap_or("").to_owned();
    if msg.starts_with("missing field") {
        let f = quoted(msg);
        return Some(tr(
            lang,
            format!("le champ «\u{a0}{f}\u{a0}» manque"),
            format!("the field “{f}” is missing"),
        ));
    }
    if msg.starts_with("unknown field") {
        let f = quoted(msg);
        let Some(allowed) = allowed else {
            let near = closest(&f, backticked_after_first(msg));
            return Some(match near {
                Some(near) => tr(
                    lang,
                    format!(
                        "le champ «\u{a0}{f}\u{a0}» n'existe pas (le plus proche\u{a0}: «\u{a0}{near}\u{a0}»)"
                    ),
                    format!("there is no field “{f}” (the closest is “{near}”)"),
                ),
                None => tr(
                    lang,
                    format!("le champ «\u{a0}{f}\u{a0}» n'existe pas"),
                    format!("there is no field “{f}”"),
                ),
            });
        };
        let near = closest(&f, allowed.iter().copied());
        return Some(match (near, allowed.is_empty()) {
            (_, true) => tr(
                lang,
                format!("le champ «\u{a0}{f}\u{a0}» n'existe pas (aucun champ n'est admis ici)"),
                format!("there is no field “{f}” (no field is allowed here)"),
            ),
            (Some(near), false) => tr(
                lang,
                format!(
                    "le champ «\u{a0}{f}\u{a0}» n'existe pas (le plus proche\u{a0}: «\u{a0}{near}\u{a0}»)\u{202f}; champs admis\u{a0}: {}",
                    allowed.join(", ")
                ),
                format!(
                    "there is no field “{f}” (the closest is “{near}”); the fields allowed are {}",
                    allowed.join(", ")
                ),
            ),
            (None, false) => tr(
                lang,
                format!(
                    "le champ «\u{a0}{f}\u{a0}» n'existe pas\u{202f}; champs admis\u{a0}: {}",
                    allowed.join(", ")
                ),
                format!(
                    "there is no field “{f}”; the fields allowed are {}",
                    allowed.join(", ")
                ),
            ),
        });
    }
    if msg.starts_with("unknown variant") {
        // "unknown variant `XX`, expected one of `FS`, `SS`" — keep the valid values.
        let got = quoted(msg);
        let valid = backticked_after_first(msg);
        return Some(tr(
            lang,
            format!(
                "la valeur «\u{a0}{got}\u{a0}» n'est pas admise\u{202f}; valeurs possibles\u{a0}: {}",
                valid.join(", ")
            ),
            format!(
                "the value “{got}” is not allowed; valid values: {}",
                valid.join(", ")
            ),
        ));
    }
    if let Some((input, _)) = msg.split_once(" is not a date: expected YYYY-MM-DD") {
        // Our own `Date`'s message (an English fallback of the model's): said again.
        let input = input
            .trim_start_matches("«\u{a0}")
            .trim_end_matches("\u{a0}»");
        return Some(tr(
            lang,
            format!(
                "«\u{a0}{input}\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30"
            ),
            format!("“{input}” is not a date; write YYYY-MM-DD, e.g. 2026-11-30"),
        ));
    }
    for (prefix, fr, en) in [
        ("invalid type: ", "type incorrect", "wrong type"),
        ("invalid value: ", "valeur incorrecte", "wrong value"),
        ("invalid length ", "longueur incorrecte", "wrong length"),
    ] {
        if let Some(detail) = msg.strip_prefix(prefix) {
            let (got, expected) = detail.split_once(", expected ").unwrap_or((detail, ""));
            let (got, expected) = (words(got, lang), words(expected, lang));
            return Some(tr(
                lang,
                format!("{fr} (reçu\u{a0}: {got}\u{202f}; attendu\u{a0}: {expected})"),
                format!("{en} (got {got}; expected {expected})"),
            ));
        }
    }
    None
}

/// A serde message of any origin, in the caller's words (its position left out): what
/// `parse` says of a field, without naming one.
pub(super) fn serde_message(msg: &str, lang: Lang) -> String {
    let msg = msg.split(" at line ").next().unwrap_or(msg);
    reword_common(msg, None, lang)
        .unwrap_or_else(|| tr(lang, "valeur non admise", "value not accepted"))
}

/// The fields of an operation of the patch language (the model's `Command` as its
/// schema shows it: without what the server fills in, such as who set a lock), or
/// `None` for an operation outside the language.
fn op_fields(op: &str) -> Option<Vec<&'static str>> {
    super::patch::command_schema()["oneOf"]
        .as_array()?
        .iter()
        .find(|b| b["properties"]["op"]["const"] == op)?["properties"]
        .as_object()
        .map(|props| {
            props
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "op")
                .collect()
        })
}

/// A JSON command made the model's command, or what is wrong with it in the caller's
/// words: the operation it names (with the closest one when it is unknown), its fields
/// (with those allowed), a missing one, or a value of the wrong type, named when the
/// command holds it at its first level.
pub(super) fn command(v: Value, lang: Lang) -> Result<Command, String> {
    let Some(obj) = v.as_object() else {
        return Err(tr(
            lang,
            "une commande est un objet { \"op\": …, … }",
            "a command is an object { \"op\": …, … }",
        ));
    };
    let op = match obj.get("op") {
        Some(Value::String(op)) => op.clone(),
        Some(_) => {
            return Err(tr(
                lang,
                "«\u{a0}op\u{a0}» doit être le nom d'une opération (un texte), par exemple \"move_periods\"",
                "“op” must be the name of an operation (a string), e.g. \"move_periods\"",
            ));
        }
        None => {
            return Err(tr(
                lang,
                "le champ «\u{a0}op\u{a0}» manque\u{a0}: il nomme l'opération, par exemple \"move_periods\"",
                "the field “op” is missing: it names the operation, e.g. \"move_periods\"",
            ));
        }
    };
    let unknown_op = |op: &str| {
        let ops = super::patch::ops();
        match closest(op, ops.iter().copied()) {
            Some(near) => tr(
                lang,
                format!(
                    "l'opération «\u{a0}{op}\u{a0}» n'existe pas\u{202f}; la plus proche\u{a0}: {near}"
                ),
                format!("there is no operation “{op}”; the closest is {near}"),
            ),
            None => tr(
                lang,
                format!(
                    "l'opération «\u{a0}{op}\u{a0}» n'existe pas\u{202f}; les opérations sont les noms des outils qui écrivent, par exemple move_periods, add_link ou set_progress (describe_patch les donne toutes)"
                ),
                format!(
                    "there is no operation “{op}”; operations are the names of the tools that write, e.g. move_periods, add_link or set_progress (describe_patch gives them all)"
                ),
            ),
        }
    };
    // A whole schedule is not a patch a model writes: restore_version and
    // import_schedule write it (and the patch language's schema has no such branch, so
    // what_if's answer could not carry it).
    if op == "replace_schedule" {
        return Err(tr(
            lang,
            "replace_schedule n'est pas une opération du langage de patch\u{202f}; restore_version remet une version enregistrée, import_schedule crée un planning depuis un JSON".to_owned(),
            "replace_schedule is not an operation of the patch language; restore_version puts back a saved version, import_schedule creates a schedule from JSON".to_owned(),
        ));
    }
    let allowed = op_fields(&op);
    serde_json::from_value::<Command>(v.clone()).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg);
        if msg.starts_with("unknown variant") && msg.split('`').nth(1) == Some(op.as_str()) {
            return unknown_op(&op);
        }
        let why = reword_common(msg, allowed.as_deref(), lang)
            .unwrap_or_else(|| tr(lang, "valeur non admise", "value not accepted"));
        // serde does not say which field held a value of the wrong type: the one at
        // the first level whose value is what it got, when there is exactly one.
        let field = msg
            .strip_prefix("invalid type: ")
            .or_else(|| msg.strip_prefix("invalid value: "))
            .and_then(|d| d.split(", expected ").next())
            .and_then(|got| holder(obj, got));
        let head = match field {
            Some(f) => tr(
                lang,
                format!("{op}, champ «\u{a0}{f}\u{a0}»\u{a0}: "),
                format!("{op}, field “{f}”: "),
            ),
            None => format!("{op}{}", tr(lang, "\u{a0}: ", ": ")),
        };
        head + &why
    })
}

/// The one first-level field (or element of a first-level list) whose value serde
/// described as `got` ("string \"x\"", "integer `5`", "map"...).
fn holder<'a>(obj: &'a serde_json::Map<String, Value>, got: &str) -> Option<&'a str> {
    let matches = |v: &Value| -> bool {
        let value = got.split('`').nth(1);
        match v {
            Value::String(s) => got == format!("string {}", Value::String(s.clone())),
            Value::Bool(b) => value == Some(if *b { "true" } else { "false" }),
            Value::Number(n) => value == Some(n.to_string().as_str()),
            Value::Object(_) => got == "map",
            Value::Array(_) => got == "sequence",
            Value::Null => got == "null" || got == "unit value",
        }
    };
    let mut found = obj.iter().filter(|(k, v)| {
        k.as_str() != "op" && (matches(v) || v.as_array().is_some_and(|a| a.iter().any(matches)))
    });
    match (found.next(), found.next()) {
        (Some((k, _)), None) => Some(k.as_str()),
        _ => None,
    }
}

/// serde's names of what it got or expected, in words: "map" is an object, "u64" a
/// whole number. A name it does not know is said as "another form", never in serde's
/// English.
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
        "f32" | "f64" => ("un nombre".into(), "a number".into()),
        "a date as \"YYYY-MM-DD\"" => ("une date AAAA-MM-JJ".into(), "a date YYYY-MM-DD".into()),
        "a member's id (a number) or name (a string)" => (
            "l'id d'un membre (un nombre) ou son nom (un texte)".into(),
            "a member's id (a number) or name (a string)".into(),
        ),
        s if s.starts_with("struct ")
            || s.starts_with("internally tagged enum")
            || s.starts_with("enum ") =>
        {
            ("un objet { … }".into(), "an object { … }".into())
        }
        s => {
            // "string \"x\"", "integer `5`", "boolean `true`", "floating point `1.5`"
            let value = s.split('`').nth(1);
            match (s.split([' ', '`']).next(), value) {
                (Some("string"), _) if s.len() > 7 => (
                    format!("le texte {}", &s[7..]),
                    format!("the string {}", &s[7..]),
                ),
                (Some("integer"), Some(v)) => (format!("le nombre {v}"), format!("the number {v}")),
                (Some("floating"), Some(v)) => {
                    (format!("le nombre {v}"), format!("the number {v}"))
                }
                (Some("boolean"), Some(v)) => (v.to_owned(), v.to_owned()),
                _ if s.is_empty() => ("autre chose".into(), "something else".into()),
                _ => ("une autre forme".into(), "another form".into()),
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
        assert_eq!(e.code, Code::InvalidArguments);
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
            e.text.contains(
                "«\u{a0}XX\u{a0}» n'est pas admise\u{202f}; valeurs possibles\u{a0}: FS, SS"
            ),
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

    /// Words of serde's and Rust's that must never reach a person or a model.
    const SERDE_WORDS: &[&str] = &[
        "unknown",
        "expected",
        "variant",
        "invalid type",
        "one of",
        "missing",
        "u64",
        "i32",
        "map",
        "sequence",
        "internally tagged",
    ];

    fn refused(v: Value, lang: Lang) -> String {
        let why = command(v, lang).expect_err("the command must be refused");
        if lang == Lang::Fr {
            for w in SERDE_WORDS {
                assert!(!why.contains(w), "{w:?} in {why}");
            }
        }
        why
    }

    #[test]
    fn commands_are_refused_in_the_callers_words() {
        use super::super::people_testkit::visible;
        let shift = serde_json::json!({"op": "shift", "bars": [1], "by": 2});
        let why = refused(shift.clone(), Lang::Fr);
        assert!(
            why.contains("l'opération «\u{a0}shift\u{a0}» n'existe pas"),
            "{}",
            visible(&why)
        );
        assert!(!why.contains("replace_schedule"), "{why}");
        let why = refused(shift, Lang::En);
        assert!(why.starts_with("there is no operation “shift”"), "{why}");
        let why = refused(
            serde_json::json!({"op": "move_period", "bars": [1], "by": 2}),
            Lang::Fr,
        );
        assert!(
            why.ends_with("la plus proche\u{a0}: move_periods"),
            "{}",
            visible(&why)
        );
        let why = refused(
            serde_json::json!({"op": "move_period", "bars": [1], "by": 2}),
            Lang::En,
        );
        assert_eq!(
            why,
            "there is no operation “move_period”; the closest is move_periods"
        );
        // Unknown field: the fields allowed, never those the server fills in.
        let why = refused(
            serde_json::json!({"op": "lock", "target": "schedule", "who": 1}),
            Lang::Fr,
        );
        assert!(
            why.starts_with("lock\u{a0}: le champ «\u{a0}who\u{a0}» n'existe pas"),
            "{}",
            visible(&why)
        );
        assert!(why.contains("reason, target"), "{}", visible(&why));
        assert!(
            !why.contains("by_name") && !why.contains("since_ms"),
            "{why}"
        );
        let why = refused(
            serde_json::json!({"op": "move_periods", "bar": [1], "by": 2}),
            Lang::En,
        );
        assert_eq!(
            why,
            "move_periods: there is no field “bar” (the closest is “bars”); the fields allowed are bars, by, milestones"
        );
        // Missing field, wrong type (the field named), not an object, no op.
        let why = refused(
            serde_json::json!({"op": "move_periods", "bars": [1]}),
            Lang::Fr,
        );
        assert_eq!(
            visible(&why),
            "move_periods⟨nbsp⟩: le champ «⟨nbsp⟩by⟨nbsp⟩» manque"
        );
        let why = refused(
            serde_json::json!({"op": "move_periods", "bars": [1], "by": "x"}),
            Lang::Fr,
        );
        assert_eq!(
            visible(&why),
            "move_periods, champ «⟨nbsp⟩by⟨nbsp⟩»⟨nbsp⟩: type incorrect (reçu⟨nbsp⟩: le texte \"x\"⟨nnbsp⟩; attendu⟨nbsp⟩: un nombre entier)"
        );
        let why = refused(
            serde_json::json!({"op": "move_periods", "bars": [1], "by": "x"}),
            Lang::En,
        );
        assert_eq!(
            why,
            "move_periods, field “by”: wrong type (got the string \"x\"; expected a whole number)"
        );
        let why = refused(
            serde_json::json!({"op": "add_period", "row": 1, "label": "A", "start": "2026-13-01", "end": "2026-12-01"}),
            Lang::Fr,
        );
        assert!(why.contains("n'est pas une date"), "{why}");
        assert!(
            refused(serde_json::json!(["op"]), Lang::Fr).starts_with("une commande est un objet")
        );
        assert!(
            refused(serde_json::json!({"bars": [1]}), Lang::En)
                .starts_with("the field “op” is missing")
        );
        // Any serde message, e.g. an import's, said in words.
        assert_eq!(
            visible(&serde_message(
                "missing field `name` at line 1 column 2",
                Lang::Fr
            )),
            "le champ «⟨nbsp⟩name⟨nbsp⟩» manque"
        );
        assert_eq!(
            serde_message("something serde says", Lang::En),
            "value not accepted"
        );
        // The internal operation is still taken, but never offered.
        assert!(op_fields("replace_schedule").is_none());
        assert_eq!(op_fields("unlock"), Some(vec!["target"]));
    }

    #[test]
    fn an_unknown_argument_names_the_closest() {
        let e = parse::<Example>(
            serde_json::json!({"schedule": 1, "name": "x", "cuont": 2}),
            Lang::En,
        )
        .unwrap_err();
        assert!(
            e.text
                .contains("there is no field “cuont” (the closest is “count”)"),
            "{}",
            e.text
        );
        let e = parse::<Example>(
            serde_json::json!({"schedule": 1, "name": "x", "zzz": 2}),
            Lang::Fr,
        )
        .unwrap_err();
        for w in SERDE_WORDS {
            assert!(!e.text.contains(w), "{w:?} in {}", e.text);
        }
    }

    #[test]
    fn schemas_are_objects_with_required_fields() {
        let s = schema_of::<Example>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], serde_json::json!(["schedule", "name"]));
    }
}

/// A date-changing tool's `cascade`: whether the write moves what follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
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

/// By hand: the field's description says what each form does, once.
impl JsonSchema for CascadeArg {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CascadeArg".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [{ "type": "boolean" }, { "type": "string", "enum": ["push", "pull"] }]
        })
    }
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

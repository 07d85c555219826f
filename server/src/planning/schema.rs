//! Tool schemas as every client can read them. schemars writes what serde accepts, in
//! the full JSON Schema 2020-12 dialect: nullable types as `["string","null"]`, Rust's
//! integer formats (`uint64`, `int32`), nested `anyOf` for an `Option` of an untagged
//! enum, one `oneOf` branch per unit variant, defaults that say nothing (`[]`, `null`).
//! Strict function-calling back-ends (an OpenAPI subset for Gemini, OpenAI's strict
//! mode) reject or strip such schemas, and every byte is in each conversation's context.
//! So every input schema goes through [`portable`]: one `type` per schema, standard
//! formats only, an optional field's `null` kept only where the field says what `null`
//! does (« null clears »), enums of names written as `enum`, no `additionalProperties`
//! (which Gemini refuses: the server names an unknown field itself).
//!
//! [`findings`] is the same check MCP Inspector's `--strict` makes (a bare boolean
//! schema is an error; a `type` array, a schema that constrains nothing, a remote
//! `$ref` are warnings), plus non-standard formats: the catalogue's test requires none.

use serde_json::{Map, Value, json};

/// The formats JSON Schema defines that tool back-ends read; Rust's integer widths
/// (`int64`, `uint`) are not among them.
const STANDARD_FORMATS: [&str; 6] = ["date", "date-time", "time", "email", "uri", "uuid"];

/// The keywords under which a schema holds subschemas, by map (`properties`), list
/// (`anyOf`) or single value (`items`).
const MAP_KEYWORDS: [&str; 4] = [
    "properties",
    "$defs",
    "patternProperties",
    "dependentSchemas",
];
const LIST_KEYWORDS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
const ONE_KEYWORDS: [&str; 6] = [
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
];

/// Keywords that constrain a value: a schema with none of them accepts anything.
#[cfg(test)]
const CONSTRAINING: [&str; 20] = [
    "type",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
    "properties",
    "items",
    "required",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "additionalProperties",
];

/// Rewrites an input schema (and every subschema) into the portable form described
/// above.
pub(crate) fn portable(schema: &mut Value) {
    tidy(schema, false);
}

/// The same for an output schema, where `null` is kept wherever the value may be
/// null: a client validates what the server sent, and `"url": null` is an answer.
pub(crate) fn portable_output(schema: &mut Value) {
    tidy(schema, true);
}

/// Removes every `description` from a schema and its subschemas (not from `properties`
/// that happen to be named so: only where it is a keyword).
pub(crate) fn without_descriptions(schema: &mut Value) {
    let Value::Object(node) = schema else {
        return;
    };
    node.remove("description");
    for key in MAP_KEYWORDS {
        if let Some(Value::Object(map)) = node.get_mut(key) {
            map.values_mut().for_each(without_descriptions);
        }
    }
    for key in LIST_KEYWORDS {
        if let Some(Value::Array(list)) = node.get_mut(key) {
            list.iter_mut().for_each(without_descriptions);
        }
    }
    for key in ONE_KEYWORDS {
        if let Some(sub @ Value::Object(_)) = node.get_mut(key) {
            without_descriptions(sub);
        }
    }
}

/// `output`: an output schema (its `null`s kept, its closed objects too).
fn tidy(schema: &mut Value, output: bool) {
    let Value::Object(node) = schema else {
        return;
    };
    let portable = |v: &mut Value| tidy(v, output);
    for key in MAP_KEYWORDS {
        if let Some(Value::Object(map)) = node.get_mut(key) {
            map.values_mut().for_each(portable);
        }
    }
    for key in LIST_KEYWORDS {
        if let Some(Value::Array(list)) = node.get_mut(key) {
            list.iter_mut().for_each(portable);
        }
    }
    for key in ONE_KEYWORDS {
        if let Some(sub @ Value::Object(_)) = node.get_mut(key) {
            portable(sub);
        }
    }
    node.remove("title");
    // Gemini's function declarations refuse `additionalProperties` (googleapis/python-genai
    // issue 70, and the sanitizers every Gemini client carries); the server refuses an
    // unknown field anyway, by name, with the closest one.
    if !output && node.get("additionalProperties") == Some(&Value::Bool(false)) {
        node.remove("additionalProperties");
    }
    if let Some(Value::String(d)) = node.get_mut("description") {
        // Doc comments wrap at 90 columns; the line breaks mean nothing to a model.
        *d = d.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    if node
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        node.remove("format");
    }
    // An id's or a count's `minimum: 0` is in every other field; the server refuses a
    // negative one by name.
    if node.get("minimum") == Some(&json!(0)) {
        node.remove("minimum");
    }
    if node
        .get("default")
        .is_some_and(|d| d.is_null() || d == &json!([]) || d == &json!(false) || d == "")
    {
        node.remove("default");
    }
    let says_null = output
        || node
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.to_lowercase().contains("null"));
    split_type_array(node, says_null);
    drop_null_branch(node, says_null);
    names_as_enum(node);
}

/// `"type": ["string", "null"]` becomes `"type": "string"`, or, where `null` means
/// something, `anyOf` of the type and `null`; any other union becomes `anyOf`.
fn split_type_array(node: &mut Map<String, Value>, says_null: bool) {
    let Some(Value::Array(types)) = node.get("type").cloned() else {
        return;
    };
    let mut kinds: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
    let nullable = node["type"]
        .as_array()
        .is_some_and(|t| t.len() > kinds.len());
    // `null` among an enum's values belongs to the null branch (or to nothing).
    let without_null = |v: &Value| match v {
        Value::Array(values) => {
            Value::Array(values.iter().filter(|x| !x.is_null()).cloned().collect())
        }
        other => other.clone(),
    };
    if kinds.len() == 1 && !(nullable && says_null) {
        node.insert("type".into(), kinds.remove(0));
        if let Some(e) = node.get("enum").map(without_null) {
            node.insert("enum".into(), e);
        }
        return;
    }
    // The assertions that go with the type stay with it, in its branch.
    node.remove("type");
    let mut branches: Vec<Value> = Vec::new();
    for kind in kinds {
        let mut branch = Map::new();
        branch.insert("type".into(), kind.clone());
        for key in BRANCH_KEYWORDS {
            if let Some(v) = node.get(key) {
                let applies = match key {
                    "items" | "minItems" | "maxItems" => kind == "array",
                    "minimum" | "maximum" => kind == "integer" || kind == "number",
                    "format" | "pattern" | "minLength" | "maxLength" => kind == "string",
                    "properties" | "required" | "additionalProperties" => kind == "object",
                    _ => true,
                };
                if applies {
                    let v = if key == "enum" {
                        without_null(v)
                    } else {
                        v.clone()
                    };
                    branch.insert(key.into(), v);
                }
            }
        }
        branches.push(Value::Object(branch));
    }
    for key in BRANCH_KEYWORDS {
        node.remove(key);
    }
    if nullable && says_null {
        branches.push(json!({ "type": "null" }));
    }
    node.insert("anyOf".into(), Value::Array(branches));
}

/// The keywords that constrain one type of a union: they move into its branch.
const BRANCH_KEYWORDS: [&str; 13] = [
    "format",
    "minimum",
    "maximum",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "properties",
    "required",
    "additionalProperties",
];

/// `anyOf: [X, {"type": "null"}]` (an `Option` of a type that is itself a union or an
/// enum) loses its `null` branch unless `null` means something, and a lone branch left
/// is merged into the node (whose description, when it has one, wins).
fn drop_null_branch(node: &mut Map<String, Value>, says_null: bool) {
    let Some(Value::Array(branches)) = node.get_mut("anyOf") else {
        return;
    };
    if !says_null {
        branches.retain(|b| b != &json!({ "type": "null" }));
    }
    // An `Option` of an untagged enum nests its branches one level down.
    if branches.len() == 1 || branches.len() == 2 && says_null {
        let mut flat = Vec::new();
        for b in branches.drain(..) {
            match b {
                Value::Object(mut inner) if inner.contains_key("anyOf") && inner.len() <= 2 => {
                    if let Some(Value::Array(more)) = inner.remove("anyOf") {
                        flat.extend(more);
                    }
                }
                other => flat.push(other),
            }
        }
        *branches = flat;
    }
    if branches.len() == 1
        && let Some(Value::Object(only)) = branches.pop()
    {
        node.remove("anyOf");
        for (k, v) in only {
            node.entry(k).or_insert(v);
        }
    }
}

/// `oneOf` of constant strings (a Rust enum of names, each with its doc) becomes one
/// `enum`; the names' docs go into the description when the node has none.
fn names_as_enum(node: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = node.get("oneOf") else {
        return;
    };
    let names: Option<Vec<(Value, Option<String>)>> = branches
        .iter()
        .map(|b| {
            let c = b.get("const").filter(|c| c.is_string())?;
            let only_doc = b
                .as_object()?
                .keys()
                .all(|k| matches!(k.as_str(), "const" | "type" | "description"));
            only_doc.then(|| {
                let doc = b
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (c.clone(), doc)
            })
        })
        .collect();
    let Some(names) = names else {
        return;
    };
    node.remove("oneOf");
    if !node.contains_key("description") {
        let docs: Vec<String> = names
            .iter()
            .filter_map(|(c, d)| {
                d.as_ref()
                    .map(|d| format!("{}: {d}", c.as_str().unwrap_or("")))
            })
            .collect();
        if !docs.is_empty() {
            node.insert("description".into(), Value::String(docs.join(" ")));
        }
    }
    node.insert("type".into(), json!("string"));
    node.insert(
        "enum".into(),
        Value::Array(names.into_iter().map(|(c, _)| c).collect()),
    );
}

/// What a strict client finds wrong with a schema, one line each ("path: problem").
#[cfg(test)]
pub(crate) fn findings(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, "", None, &mut out);
    out
}

#[cfg(test)]
fn walk(schema: &Value, path: &str, keyword: Option<&str>, out: &mut Vec<String>) {
    let node = match schema {
        Value::Bool(b) => {
            // `additionalProperties: false` is a keyword's value, not a schema.
            if keyword != Some("additionalProperties") {
                out.push(format!("{path}: bare `{b}` where a schema is expected"));
            }
            return;
        }
        Value::Object(node) => node,
        _ => return,
    };
    if node.get("type").is_some_and(Value::is_array) {
        out.push(format!("{path}: `type` is an array"));
    }
    if let Some(r) = node.get("$ref").and_then(Value::as_str)
        && !r.starts_with('#')
    {
        out.push(format!("{path}: remote $ref {r}"));
    }
    if keyword != Some("not") && !node.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
        out.push(format!("{path}: constrains nothing"));
    }
    if let Some(f) = node.get("format").and_then(Value::as_str)
        && !STANDARD_FORMATS.contains(&f)
    {
        out.push(format!("{path}: non-standard format {f}"));
    }
    for key in MAP_KEYWORDS {
        if let Some(Value::Object(map)) = node.get(key) {
            for (name, sub) in map {
                walk(sub, &format!("{path}.{key}.{name}"), Some(key), out);
            }
        }
    }
    for key in LIST_KEYWORDS {
        if let Some(Value::Array(list)) = node.get(key) {
            for (i, sub) in list.iter().enumerate() {
                walk(sub, &format!("{path}.{key}[{i}]"), Some(key), out);
            }
        }
    }
    for key in ONE_KEYWORDS {
        if let Some(sub) = node.get(key) {
            walk(sub, &format!("{path}.{key}"), Some(key), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tidy(mut v: Value) -> Value {
        portable(&mut v);
        v
    }

    #[test]
    fn an_optional_field_is_its_type_unless_null_means_something() {
        assert_eq!(
            tidy(json!({"type": ["integer", "null"], "format": "int32", "default": null})),
            json!({"type": "integer"})
        );
        assert_eq!(
            tidy(json!({"type": ["string", "null"], "description": "Colour; null clears."})),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Colour; null clears."})
        );
        assert_eq!(
            tidy(json!({"type": ["integer", "string"], "format": "uint64", "minimum": 0})),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
        );
    }

    #[test]
    fn a_nullable_object_or_enum_keeps_its_keywords_in_its_branch() {
        let v = {
            let mut v = json!({"type": ["object", "null"], "properties": {"a": {"type": "integer"}}, "required": ["a"]});
            portable_output(&mut v);
            v
        };
        assert_eq!(
            v,
            json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"type": "null"}]})
        );
        let mut e = json!({"type": ["string", "null"], "enum": ["todo", "done", null]});
        portable_output(&mut e);
        assert_eq!(
            e,
            json!({"anyOf": [{"type": "string", "enum": ["todo", "done"]}, {"type": "null"}]})
        );
        assert_eq!(
            tidy_input(json!({"type": ["string", "null"], "enum": ["todo", null]})),
            json!({"type": "string", "enum": ["todo"]})
        );
    }

    fn tidy_input(mut v: Value) -> Value {
        portable(&mut v);
        v
    }

    #[test]
    fn an_option_of_a_union_is_the_union() {
        let v = tidy(json!({
            "description": "Cascade.",
            "anyOf": [
                {"description": "inner", "anyOf": [{"type": "boolean"}, {"type": "string", "enum": ["push"]}]},
                {"type": "null"}
            ]
        }));
        assert_eq!(
            v,
            json!({"description": "Cascade.", "anyOf": [{"type": "boolean"}, {"type": "string", "enum": ["push"]}]})
        );
        assert!(findings(&v).is_empty());
    }

    #[test]
    fn names_become_an_enum_with_their_docs() {
        let v = tidy(json!({"oneOf": [
            {"const": "FS", "type": "string", "description": "Finish-to-start."},
            {"const": "SS", "type": "string", "description": "Start-to-start."}
        ]}));
        assert_eq!(
            v,
            json!({"type": "string", "enum": ["FS", "SS"], "description": "FS: Finish-to-start. SS: Start-to-start."})
        );
    }

    #[test]
    fn inputs_leave_out_additional_properties_and_outputs_keep_them() {
        let closed = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false});
        assert_eq!(
            tidy(closed.clone()),
            json!({"type": "object", "properties": {"a": {"type": "integer"}}})
        );
        let mut out = closed.clone();
        portable_output(&mut out);
        assert_eq!(out, closed);
    }

    #[test]
    fn the_strict_rules_are_those_of_the_inspector() {
        let bad = json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"description": "anything"},
            "c": {"type": "array", "items": true},
            "d": {"type": "integer", "format": "int64"},
            "e": {"$ref": "https://example.com/s.json"}
        }, "additionalProperties": false});
        let found = findings(&bad);
        assert_eq!(found.len(), 5, "{found:#?}");
        assert!(findings(&tidy(json!({"type": ["string", "null"]}))).is_empty());
    }
}

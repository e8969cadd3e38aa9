//! A small check of a call's arguments against an MCP tool's input schema, before the call.
//!
//! Not a full JSON Schema validator (the `jsonschema` crate is one, at the cost of about
//! thirty crates and its own regex engine in every build): the server validates again
//! anyway. This catches the mistakes models make — a missing required field, a wrong type, a
//! value outside an `enum` — at any depth of `properties` and `items`, so the model hears
//! about them with the schema in hand. Keywords it does not know (`pattern`, `oneOf`, `$ref`,
//! …) are left to the server.

use serde_json::Value;
use wright_tools::json_kind as kind;

/// How deep the check follows nested schemas: a server's schema is untrusted input.
const MAX_DEPTH: usize = 32;

/// Checks `value` against `schema`; `Err` says where and what is wrong, e.g.
/// ``field `count`: expected integer, got a string``.
pub fn check(schema: &Value, value: &Value) -> Result<(), String> {
    check_at(schema, value, "", 0)
}

fn check_at(schema: &Value, value: &Value, path: &str, depth: usize) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let place = || {
        if path.is_empty() {
            "the arguments".to_string()
        } else {
            format!("field `{path}`")
        }
    };
    if let Some(expected) = schema.get("type") {
        let types: Vec<&str> = match expected {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            return Err(format!(
                "{}: expected {}, got {}",
                place(),
                types.join(" or "),
                kind(value)
            ));
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        return Err(format!(
            "{}: expected one of {}, got {value}",
            place(),
            Value::Array(allowed.clone())
        ));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Err(format!("{}: expected {constant}, got {value}", place()));
    }
    if let Value::Object(fields) = value {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !fields.contains_key(name) {
                    return Err(format!("missing field `{}`", join(path, name)));
                }
            }
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (name, field) in fields {
                if let Some(sub) = properties.get(name) {
                    check_at(sub, field, &join(path, name), depth + 1)?;
                }
            }
        }
    }
    if let (Value::Array(items), Some(sub)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check_at(sub, item, &format!("{path}[{i}]"), depth + 1)?;
        }
    }
    Ok(())
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// Whether `value` is of JSON Schema type `name`; an unknown type name accepts anything.
fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "order": {"enum": ["asc", "desc"]},
                "filters": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"field": {"type": "string"}},
                    "required": ["field"],
                }},
            },
            "required": ["query"],
        })
    }

    #[test]
    fn valid_arguments_pass_and_unknown_fields_are_left_to_the_server() {
        let args = json!({"query": "x", "limit": 3.0, "order": "asc", "extra": 1,
                          "filters": [{"field": "a"}]});
        assert_eq!(check(&schema(), &args), Ok(()));
    }

    #[test]
    fn each_kind_of_mistake_is_named_with_its_place() {
        let cases = [
            (json!({}), "missing field `query`"),
            (
                json!({"query": 1}),
                "field `query`: expected string, got a number",
            ),
            (
                json!({"query": "x", "limit": 1.5}),
                "field `limit`: expected integer, got a number",
            ),
            (
                json!({"query": "x", "order": "up"}),
                r#"field `order`: expected one of ["asc","desc"], got "up""#,
            ),
            (
                json!({"query": "x", "filters": [{}]}),
                "missing field `filters[0].field`",
            ),
            (json!("x"), "the arguments: expected object, got a string"),
        ];
        for (args, message) in cases {
            assert_eq!(check(&schema(), &args), Err(message.to_string()), "{args}");
        }
    }

    #[test]
    fn a_schema_that_is_not_an_object_accepts_anything() {
        assert_eq!(check(&json!(true), &json!({"a": 1})), Ok(()));
    }
}

//! Tool input schemas (MCP-32): Draft 2020-12, or Draft-07 when `$schema` says so; no external
//! `$ref`, nothing fetched from the network or the disk (jsonschema is built without its
//! resolvers, and every `$ref` must point into the schema itself); at most 16 KB. Arguments are
//! checked against the compiled schema before the Host shows an approval (MCP-27), at most 32 KB.

use std::sync::Arc;

use jsonschema::{Draft, Validator};
use serde_json::{Map, Value};

use crate::limits::{MAX_ARGUMENTS_BYTES, MAX_SCHEMA_BYTES};

/// A tool's compiled input schema.
#[derive(Clone)]
pub struct InputSchema {
    json: Arc<Map<String, Value>>,
    validator: Arc<Validator>,
}

impl std::fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputSchema")
            .field("json", &self.json)
            .finish()
    }
}

impl InputSchema {
    /// Compiles a server's `inputSchema`; the error is the reason, for the settings page.
    pub fn compile(schema: &Map<String, Value>) -> Result<InputSchema, String> {
        let size = serde_json::to_vec(schema)
            .map(|v| v.len())
            .unwrap_or(usize::MAX);
        if size > MAX_SCHEMA_BYTES {
            return Err(format!(
                "its input schema has {size} bytes; the limit is {MAX_SCHEMA_BYTES}"
            ));
        }
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err("its input schema is not of type \"object\"".to_owned());
        }
        let draft = match schema.get("$schema") {
            None => Draft::Draft202012,
            Some(Value::String(uri)) => draft_of(uri).ok_or_else(|| {
                format!(
                    "its input schema declares \"$schema\": {uri:?}; only JSON Schema 2020-12 \
                     and Draft-07 are supported"
                )
            })?,
            Some(_) => return Err("its input schema has a \"$schema\" that is not a string".into()),
        };
        let value = Value::Object(schema.clone());
        if let Some(reference) = external_ref(&value) {
            return Err(format!(
                "its input schema refers to {reference:?} outside itself; external references \
                 are never fetched"
            ));
        }
        let validator = jsonschema::options()
            .with_draft(draft)
            .build(&value)
            .map_err(|e| format!("its input schema does not compile: {e}"))?;
        Ok(InputSchema {
            json: Arc::new(schema.clone()),
            validator: Arc::new(validator),
        })
    }

    /// The schema as the server sent it (for the model's tool definition).
    pub fn json(&self) -> &Map<String, Value> {
        &self.json
    }

    /// Checks a call's arguments: size first, then the schema. The error says which property
    /// is wrong and why, short enough to hand back to the model.
    pub fn validate(&self, arguments: &Map<String, Value>) -> Result<(), String> {
        let size = serde_json::to_vec(arguments)
            .map(|v| v.len())
            .unwrap_or(usize::MAX);
        if size > MAX_ARGUMENTS_BYTES {
            return Err(format!(
                "the arguments have {size} bytes; the limit is {MAX_ARGUMENTS_BYTES}"
            ));
        }
        let value = Value::Object(arguments.clone());
        let errors: Vec<String> = self
            .validator
            .iter_errors(&value)
            .take(3)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the arguments do not match the tool's schema: {}",
                errors.join("; ")
            ))
        }
    }
}

fn draft_of(uri: &str) -> Option<Draft> {
    let bare = uri
        .trim_end_matches('#')
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    match bare {
        "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
        "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
        _ => None,
    }
}

/// The first `$ref`/`$dynamicRef` whose target is not a fragment of this document.
fn external_ref(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if (key == "$ref" || key == "$dynamicRef")
                    && let Value::String(target) = v
                    && !target.starts_with('#')
                {
                    return Some(target.clone());
                }
                if let Some(found) = external_ref(v) {
                    return Some(found);
                }
            }
            None
        }
        Value::Array(items) => items.iter().find_map(external_ref),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn mcp_32_drafts_and_refs() {
        let s = InputSchema::compile(&obj(json!({
            "type": "object",
            "properties": {"text": {"$ref": "#/$defs/t"}},
            "required": ["text"],
            "$defs": {"t": {"type": "string", "minLength": 1}}
        })));
        let s = s.unwrap();
        assert!(s.validate(&obj(json!({"text": "hi"}))).is_ok());
        let err = s.validate(&obj(json!({"text": 3}))).unwrap_err();
        assert!(err.contains("/text"), "{err}");
        assert!(s.validate(&obj(json!({}))).is_err());

        let d7 = InputSchema::compile(&obj(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "additionalProperties": false
        })));
        let d7 = d7.unwrap();
        assert!(d7.validate(&obj(json!({"n": 1}))).is_ok());
        assert!(d7.validate(&obj(json!({"m": 1}))).is_err());

        for (schema, needle) in [
            (
                json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}),
                "outside itself",
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}),
                "outside itself",
            ),
            (
                json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
                "only JSON Schema",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": 7}}}),
                "does not compile",
            ),
            (json!({"type": "string"}), "not of type"),
            (
                json!({"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES)}),
                "bytes; the limit",
            ),
        ] {
            let err = InputSchema::compile(&obj(schema)).unwrap_err();
            assert!(err.contains(needle), "{err} should say {needle}");
        }
    }

    /// MCP-32: the size limit is inclusive; the 2020-12 URI (with or without `#`, http or
    /// https) is accepted; a `$ref` or `$dynamicRef` out of the document is found anywhere,
    /// inside arrays (`allOf`, `prefixItems`) too; the Debug form shows the schema.
    #[test]
    fn mcp_32_limits_uris_and_nested_refs() {
        let base = serde_json::to_vec(&json!({"type": "object", "description": ""}))
            .unwrap()
            .len();
        let fits = json!({"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES - base)});
        assert_eq!(serde_json::to_vec(&fits).unwrap().len(), MAX_SCHEMA_BYTES);
        assert!(InputSchema::compile(&obj(fits)).is_ok());
        let over =
            json!({"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES - base + 1)});
        let err = InputSchema::compile(&obj(over)).unwrap_err();
        assert!(err.contains("bytes; the limit"), "{err}");

        for uri in [
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft/2020-12/schema#",
            "https://json-schema.org/draft-07/schema",
        ] {
            let s = InputSchema::compile(&obj(json!({
                "$schema": uri,
                "type": "object",
                "properties": {"n": {"type": "integer"}}
            })));
            let s = s.unwrap_or_else(|e| panic!("{uri}: {e}"));
            assert!(s.validate(&obj(json!({"n": 1}))).is_ok());
            assert!(s.validate(&obj(json!({"n": "one"}))).is_err(), "{uri}");
        }
        let err = InputSchema::compile(&obj(json!({"$schema": 7, "type": "object"}))).unwrap_err();
        assert!(err.contains("not a string"), "{err}");

        for (schema, target) in [
            (
                json!({"type": "object", "allOf": [{"$ref": "https://example.com/a.json"}]}),
                "https://example.com/a.json",
            ),
            (
                json!({"type": "object", "properties": {"l": {"prefixItems": [{"type": "string"}, {"$dynamicRef": "file:///etc/x"}]}}}),
                "file:///etc/x",
            ),
        ] {
            let err = InputSchema::compile(&obj(schema)).unwrap_err();
            assert!(
                err.contains(&format!("{target:?}")) && err.contains("outside itself"),
                "{err}"
            );
        }
        let inner = InputSchema::compile(&obj(json!({
            "type": "object",
            "allOf": [{"$ref": "#/$defs/n"}],
            "$defs": {"n": {"properties": {"n": {"type": "integer"}}}}
        })))
        .unwrap();
        assert!(inner.validate(&obj(json!({"n": "x"}))).is_err());
        assert_eq!(inner.json()["allOf"][0]["$ref"], "#/$defs/n");
        assert!(format!("{inner:?}").contains("#/$defs/n"));
    }

    #[test]
    fn mcp_29_argument_size_is_checked_first() {
        let s = InputSchema::compile(&obj(json!({"type": "object"}))).unwrap();
        let at_limit = "x".repeat(MAX_ARGUMENTS_BYTES - 8); // {"t":""} is 8 bytes
        assert!(s.validate(&obj(json!({"t": at_limit}))).is_ok());
        let over = "x".repeat(MAX_ARGUMENTS_BYTES - 7);
        let err = s.validate(&obj(json!({"t": over}))).unwrap_err();
        assert!(err.contains("limit is 32768"), "{err}");
    }
}

//! Limits tested exactly at their edge, not only past it: the 16 KB input-schema cap
//! (MCP-28) accepts a schema of exactly `MAX_SCHEMA_BYTES` and refuses one byte more.

use serde_json::{Map, Value, json};
use wisp_mcp::InputSchema;
use wisp_mcp::limits::MAX_SCHEMA_BYTES;

/// An object schema whose serialized size is exactly `bytes` (padded in its description).
fn schema_of(bytes: usize) -> Map<String, Value> {
    let base = json!({"type": "object", "description": ""});
    let pad = bytes - serde_json::to_vec(&base).unwrap().len();
    let Value::Object(m) = json!({"type": "object", "description": "x".repeat(pad)}) else {
        unreachable!()
    };
    assert_eq!(serde_json::to_vec(&m).unwrap().len(), bytes);
    m
}

#[test]
fn mcp_28_a_schema_of_exactly_the_cap_compiles_and_one_byte_more_does_not() {
    let at = InputSchema::compile(&schema_of(MAX_SCHEMA_BYTES));
    assert!(at.is_ok(), "{:?}", at.err());
    let err = InputSchema::compile(&schema_of(MAX_SCHEMA_BYTES + 1)).unwrap_err();
    assert!(
        err.contains(&format!(
            "has {} bytes; the limit is {MAX_SCHEMA_BYTES}",
            MAX_SCHEMA_BYTES + 1
        )),
        "{err}"
    );
}

//! `tool_introspect`: the run's own tool snapshot, as the model sees it (INTRO-*).

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};
use wisp_protocol::ToolInfo;

use crate::tool::{Prepared, Tool, ToolCtx, ToolRef};

struct Introspect;

pub(super) fn tool() -> ToolRef {
    Arc::new(Introspect)
}

/// One item of the answer: exactly the four fields INTRO-02 names. Where an MCP tool comes
/// from (`ToolInfo::mcp`) is for the person, and reaches the UI through the session's tool
/// list and the approval events, never through the model.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    requires_approval: bool,
}

/// The answer for a run whose snapshot is `tools`.
fn describe(tools: &[ToolInfo]) -> Result<Value, String> {
    let items: Vec<Item<'_>> = tools
        .iter()
        .map(|t| Item {
            name: &t.name,
            description: &t.description,
            input_schema: &t.input_schema,
            requires_approval: t.requires_approval,
        })
        .collect();
    serde_json::to_value(items).map_err(|e| format!("cannot describe the tools: {e}"))
}

impl Tool for Introspect {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            name: "tool_introspect".into(),
            description: "List the tools of this run with their argument schemas and whether each call needs the person's approval. Takes exactly {}.".into(),
            input_schema: json!({"type": "object", "properties": {}, "additionalProperties": false}),
            requires_approval: false,
            mcp: None,
        }
    }

    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared {
        if args != json!({}) {
            return Prepared::Done(Err("tool_introspect takes exactly {}".into()));
        }
        Prepared::Done(describe(ctx.tools))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// INTRO-02: every item has exactly the four fields, an MCP tool's origin included in the
    /// snapshot but not in the answer.
    #[test]
    fn each_item_has_exactly_the_four_fields() {
        let mut tools = crate::tools::snapshot(true);
        tools.push(ToolInfo {
            name: "mcp_0a1b2c3d_echo_55667788".into(),
            description: "Echoes.".into(),
            input_schema: json!({"type": "object"}),
            requires_approval: true,
            mcp: Some(wisp_protocol::McpToolOrigin {
                server_id: "0a1b2c3d".into(),
                server_name: "own".into(),
                original_name: "echo".into(),
            }),
        });
        let answer = describe(&tools).unwrap();
        let items = answer.as_array().unwrap();
        assert_eq!(items.len(), tools.len());
        for (item, tool) in items.iter().zip(&tools) {
            let mut keys: Vec<&str> = item
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            keys.sort_unstable();
            assert_eq!(
                keys,
                ["description", "inputSchema", "name", "requiresApproval"],
                "{item}"
            );
            assert_eq!(item["name"], tool.name.as_str());
            assert_eq!(item["inputSchema"], tool.input_schema);
        }
        assert!(items.iter().any(|i| i["name"] == "tool_introspect"));
    }
}

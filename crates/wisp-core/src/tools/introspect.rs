//! `tool_introspect`: the run's own tool snapshot, as the model sees it (INTRO-*).

use std::sync::Arc;

use serde_json::{Value, json};
use wisp_protocol::ToolInfo;

use crate::tool::{Prepared, Tool, ToolCtx, ToolRef};

struct Introspect;

pub(super) fn tool() -> ToolRef {
    Arc::new(Introspect)
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
        Prepared::Done(
            serde_json::to_value(ctx.tools).map_err(|e| format!("cannot describe the tools: {e}")),
        )
    }
}

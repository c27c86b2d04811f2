//! A tool result as the Host hands it on (MCP-31): text, embedded text resources and structured
//! content; images, audio, binary resources and links become omission markers (links are never
//! opened). At most 32,000 characters, flagged when cut (MCP-29); known secrets replaced (MCP-22).

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use crate::limits::MAX_RESULT_CHARS;
use crate::redact::Redactor;

/// A tool call's outcome in a form the run loop can hand to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The result text, redacted and capped. Server text: untrusted (MCP-26).
    pub text: String,
    /// True when `text` was cut at [`MAX_RESULT_CHARS`].
    pub truncated: bool,
    /// True when the server said `isError`: a failure for the model, never a success (MCP-27).
    pub is_error: bool,
}

/// Maps a `tools/call` result.
pub fn map_result(result: &CallToolResult, redactor: &Redactor) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::Image(i) => format!("[image omitted: {}]", i.mime_type),
            ContentBlock::Audio(a) => format!("[audio omitted: {}]", a.mime_type),
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    format!("[resource {uri}]\n{text}")
                }
                ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
                    "[binary resource omitted: {uri} ({})]",
                    mime_type.as_deref().unwrap_or("unknown type")
                ),
                _ => "[resource of an unknown kind omitted]".to_owned(),
            },
            ContentBlock::ResourceLink(link) => {
                format!("[resource link not opened: {}]", link.uri)
            }
            _ => "[content of an unknown kind omitted]".to_owned(),
        });
    }
    if let Some(structured) = &result.structured_content {
        // Servers often send the same JSON as a text block too (the spec recommends it);
        // repeating it would only spend the model's context.
        let json = serde_json::to_string(structured).unwrap_or_default();
        if !parts.iter().any(|p| p == &json) {
            parts.push(format!("[structured content]\n{json}"));
        }
    }
    let joined = redactor.text(&parts.join("\n"));
    let (text, truncated) = cap(&joined, MAX_RESULT_CHARS);
    ToolOutput {
        text,
        truncated,
        is_error: result.is_error.unwrap_or(false),
    }
}

/// The first `max` characters of `text` and whether anything was cut.
pub fn cap(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text.to_owned(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(v: serde_json::Value) -> CallToolResult {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn mcp_31_content_kinds() {
        let r = result(json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA", "mimeType": "application/zip"}},
            {"type": "resource_link", "uri": "https://example.com/x", "name": "x"}
        ], "isError": false}));
        let out = map_result(&r, &Redactor::default());
        assert!(!out.is_error && !out.truncated);
        assert!(out.text.contains("hello"));
        assert!(out.text.contains("[image omitted: image/png]"));
        assert!(out.text.contains("[audio omitted: audio/wav]"));
        assert!(out.text.contains("[resource file:///a.txt]\ninside"));
        assert!(
            out.text
                .contains("[binary resource omitted: file:///b.bin (application/zip)]")
        );
        assert!(
            out.text
                .contains("[resource link not opened: https://example.com/x]")
        );
        assert!(
            !out.text.contains("AAAA"),
            "binary data never reaches the model"
        );
    }

    #[test]
    fn structured_content_error_flag_and_redaction() {
        let r = result(
            json!({"content": [], "structuredContent": {"k": "sk-canary"}, "isError": true}),
        );
        let out = map_result(&r, &Redactor::new(["sk-canary"]));
        assert!(out.is_error);
        assert_eq!(out.text, "[structured content]\n{\"k\":\"[redacted]\"}");
        let same = result(
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}),
        );
        assert_eq!(map_result(&same, &Redactor::default()).text, "{\"a\":1}");
    }

    #[test]
    fn mcp_29_result_text_is_capped_with_a_flag() {
        let exact = "é".repeat(MAX_RESULT_CHARS);
        let r = result(json!({"content": [{"type": "text", "text": exact}]}));
        let out = map_result(&r, &Redactor::default());
        assert!(!out.truncated);
        assert_eq!(out.text.chars().count(), MAX_RESULT_CHARS);
        let over = format!("{exact}x");
        let r = result(json!({"content": [{"type": "text", "text": over}]}));
        let out = map_result(&r, &Redactor::default());
        assert!(out.truncated);
        assert_eq!(out.text.chars().count(), MAX_RESULT_CHARS);
    }
}

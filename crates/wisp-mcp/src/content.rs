//! A tool result as the Host hands it on (MCP-31): text, embedded text resources and structured
//! content; images, audio, binary resources and links become omission markers (links are never
//! opened), and so do binary-looking values inside structured content (`data:` URLs, base64
//! blobs). Structured content that only repeats the content blocks is not sent again. Content
//! annotated for the user alone goes to the person, not the model. At most 32,000 characters,
//! flagged when cut (MCP-29); known secrets replaced (MCP-22).

use rmcp::model::{Annotations, CallToolResult, ContentBlock, ResourceContents, Role};
use serde_json::Value;

use crate::limits::{MAX_RESULT_CHARS, MIN_BASE64_BLOB_CHARS};
use crate::redact::Redactor;

/// What the model reads in place of content that was shown to the person only.
pub const PERSON_ONLY_NOTE: &str = "[part of the result was shown to the person only]";

/// A tool call's outcome in a form the run loop can hand to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The result text, redacted and capped. Server text: untrusted (MCP-26).
    pub text: String,
    /// True when `text` was cut at [`MAX_RESULT_CHARS`].
    pub truncated: bool,
    /// True when the server said `isError`: a failure for the model, never a success (MCP-27).
    pub is_error: bool,
    /// Content the server annotated for the user alone (`audience: ["user"]`): shown to the
    /// person under the call, never sent to the model. Redacted and capped like `text`.
    pub for_person: Option<String>,
}

/// True when `annotations` name the user and no one else as the audience.
fn person_only(annotations: Option<&Annotations>) -> bool {
    annotations
        .and_then(|a| a.audience.as_deref())
        .is_some_and(|audience| !audience.is_empty() && audience.iter().all(|r| *r == Role::User))
}

fn annotations(block: &ContentBlock) -> Option<&Annotations> {
    match block {
        ContentBlock::Text(t) => t.annotations.as_ref(),
        ContentBlock::Image(i) => i.annotations.as_ref(),
        ContentBlock::Audio(a) => a.annotations.as_ref(),
        ContentBlock::Resource(r) => r.annotations.as_ref(),
        ContentBlock::ResourceLink(l) => l.annotations.as_ref(),
        _ => None,
    }
}

fn describe(block: &ContentBlock) -> String {
    match block {
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
    }
}

/// Maps a `tools/call` result.
pub fn map_result(result: &CallToolResult, redactor: &Redactor) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    let mut person: Vec<String> = Vec::new();
    let mut for_model: Vec<ContentBlock> = Vec::new();
    for block in &result.content {
        if person_only(annotations(block)) {
            person.push(describe(block));
        } else {
            parts.push(describe(block));
            for_model.push(block.clone());
        }
    }
    // Only what the model gets can make the structured content a repeat: a copy of text meant
    // for the person alone is still news to the model.
    if let Some(structured) = &result.structured_content
        && !repeats_content(structured, &for_model)
    {
        let json = serde_json::to_string(&without_binary(structured)).unwrap_or_default();
        parts.push(format!("[structured content]\n{json}"));
    }
    if !person.is_empty() {
        parts.push(PERSON_ONLY_NOTE.to_owned());
    }
    let joined = redactor.text(&parts.join("\n"));
    let (text, truncated) = cap(&joined, MAX_RESULT_CHARS);
    let for_person =
        (!person.is_empty()).then(|| cap(&redactor.text(&person.join("\n")), MAX_RESULT_CHARS).0);
    ToolOutput {
        text,
        truncated,
        is_error: result.is_error.unwrap_or(false),
        for_person,
    }
}

/// True when `structured` says nothing the content blocks do not (servers are asked to send
/// structured results as text too, and the reference servers do, in several shapes): it equals
/// a text block read as JSON, or it is an object whose members each equal a text block (read as
/// JSON, or as the string itself) or the whole content array, apart from members that are
/// `true` or `false` (a `"success": true` beside the message). Values are compared, not their
/// serialisation: a server's pretty-printed text never matches a re-serialised string.
fn repeats_content(structured: &Value, content: &[ContentBlock]) -> bool {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let parsed: Vec<Value> = texts
        .iter()
        .filter_map(|t| serde_json::from_str::<Value>(t).ok())
        .collect();
    if parsed.iter().any(|v| v == structured) {
        return true;
    }
    let Value::Object(members) = structured else {
        return false;
    };
    let blocks = serde_json::to_value(content).ok();
    let mut repeated = false;
    for value in members.values() {
        let same = parsed.iter().any(|v| v == value)
            || value.as_str().is_some_and(|s| texts.contains(&s))
            || blocks.as_ref() == Some(value);
        if same {
            repeated = true;
        } else if !value.is_boolean() {
            return false;
        }
    }
    repeated
}

/// `value` with every binary-looking string (see [`binary_kind`]) replaced by an omission
/// marker, like the images of the content blocks.
fn without_binary(value: &Value) -> Value {
    match value {
        Value::String(s) => match binary_kind(s) {
            Some(kind) => Value::String(format!(
                "[{kind} omitted: {} characters]",
                s.chars().count()
            )),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(without_binary).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), without_binary(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What kind of binary a string of structured content is, if it is one:
/// - a `data:` URL (`data:` then a media type or nothing, up to the first comma): "data: URL
///   (media type)";
/// - a base64 blob: at least [`MIN_BASE64_BLOB_CHARS`] characters, all of the base64 alphabet
///   (standard or URL-safe, not mixed), a length that is a multiple of four with at most two
///   `=` at the end only (or unpadded, as URL-safe base64 often is, with a length that is not
///   one more than a multiple of four), that decodes to bytes which are not text (not UTF-8, or
///   control characters other than tab, newline and carriage return).
///
/// Prose, paths, hashes of ordinary length and base64 of text stay as they are.
fn binary_kind(s: &str) -> Option<String> {
    if let Some(rest) = s.strip_prefix("data:")
        && let Some((header, _)) = rest.split_once(',')
        && !header.contains(char::is_whitespace)
    {
        let media = header.split(';').next().unwrap_or_default();
        let media = if media.is_empty() {
            "text/plain"
        } else {
            media
        };
        return Some(format!("binary data (data: URL, {media})"));
    }
    if s.len() < MIN_BASE64_BLOB_CHARS {
        return None;
    }
    let bytes = decode_base64(s)?;
    let text = std::str::from_utf8(&bytes).is_ok_and(|t| {
        !t.chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    });
    (!text).then(|| "binary data (base64)".to_owned())
}

/// Decodes standard or URL-safe base64 (padded, or unpadded); `None` when `s` is not that.
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let body = s.trim_end_matches('=');
    let padding = s.len() - body.len();
    if padding > 2 || (padding > 0 && !s.len().is_multiple_of(4)) || body.len() % 4 == 1 {
        return None;
    }
    let standard = body.bytes().any(|b| b == b'+' || b == b'/');
    let url_safe = body.bytes().any(|b| b == b'-' || b == b'_');
    if standard && url_safe {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in body.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from(acc >> bits).ok()?);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
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

    fn text_of(v: serde_json::Value) -> String {
        map_result(&result(v), &Redactor::default()).text
    }

    #[test]
    fn structured_content_repeating_the_text_is_sent_once_in_every_reference_server_shape() {
        // server-memory's read_graph and server-sequential-thinking: pretty-printed JSON text,
        // the same value as structuredContent (key order differs too).
        let graph = json!({"entities": [{"name": "a", "entityType": "t", "observations": ["x"]}], "relations": []});
        let pretty = serde_json::to_string_pretty(&graph).unwrap();
        assert_eq!(
            text_of(
                json!({"content": [{"type": "text", "text": pretty}], "structuredContent": {"relations": [], "entities": graph["entities"]}})
            ),
            pretty
        );
        // server-memory's create_entities: the text is the array, structured wraps it.
        let created = serde_json::to_string_pretty(&graph["entities"]).unwrap();
        assert_eq!(
            text_of(
                json!({"content": [{"type": "text", "text": created}], "structuredContent": {"entities": graph["entities"]}})
            ),
            created
        );
        // server-memory's delete_*: the message again, beside a success flag.
        assert_eq!(
            text_of(
                json!({"content": [{"type": "text", "text": "Entities deleted successfully"}], "structuredContent": {"success": true, "message": "Entities deleted successfully"}})
            ),
            "Entities deleted successfully"
        );
        // server-filesystem's read_text_file: the file text, wrapped as {"content": text}.
        let file = "line one\n{\"not\": \"json\"}\n".repeat(500);
        let out = map_result(
            &result(
                json!({"content": [{"type": "text", "text": file}], "structuredContent": {"content": file}}),
            ),
            &Redactor::default(),
        );
        assert_eq!(out.text, file);
        assert!(!out.truncated, "a 20,000-character file fits once");
        // server-filesystem's read_media_file: the content array itself, wrapped.
        let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
        let out = text_of(json!({"content": [image], "structuredContent": {"content": [image]}}));
        assert_eq!(out, "[image omitted: image/png]");
    }

    #[test]
    fn structured_content_that_adds_something_is_still_sent() {
        // A different value, a member beyond the text, a number beside it: all kept.
        for (text, structured) in [
            ("{\"a\":1}", json!({"a": 2})),
            ("hello", json!({"message": "hello", "detail": "more"})),
            ("hello", json!({"message": "hello", "count": 3})),
            ("hello", json!({"ok": true})),
            ("[1,2]", json!([1, 2, 3])),
        ] {
            let out = text_of(
                json!({"content": [{"type": "text", "text": text}], "structuredContent": structured}),
            );
            assert!(
                out.contains("[structured content]"),
                "{text} / {structured}: {out}"
            );
        }
    }

    /// Standard base64 of `bytes`, for the tests.
    fn b64(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn base64_decoding_matches_the_encoder_and_refuses_what_is_not_base64() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let encoded = b64(&bytes);
            assert_eq!(decode_base64(&encoded).unwrap(), bytes, "{encoded}");
            assert_eq!(decode_base64(encoded.trim_end_matches('=')).unwrap(), bytes);
        }
        for bad in ["a=b=", "abc===", "ab=", "abcde", "ab c", "ab+_", "é"] {
            assert!(decode_base64(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn binary_looking_values_in_structured_content_become_markers_and_nothing_else_does() {
        let png: Vec<u8> = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]
            .into_iter()
            .chain((0..600).map(|i| (i * 7) as u8))
            .collect();
        let blob = b64(&png);
        let url_safe = blob.replace('+', "-").replace('/', "_");
        let data_url = format!("data:image/png;base64,{}", b64(&png[..30]));
        let prose = "The quick brown fox jumps over the lazy dog. ".repeat(10);
        let word = "a".repeat(MIN_BASE64_BLOB_CHARS - 1);
        let text_b64 = b64(prose.as_bytes());
        let hash = "f".repeat(128);
        let structured = json!({
            "image": blob,
            "nested": [{"url_safe": url_safe}, {"preview": data_url}],
            "plain_data": "data:,hello",
            "prose": prose,
            "word": word,
            "text_b64": text_b64,
            "hash": hash,
            "path": "/srv/docs/a.txt",
        });
        let out = text_of(json!({"content": [], "structuredContent": structured}));
        assert!(
            !out.contains(&blob[..40]) && !out.contains(&url_safe[..40]),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "[binary data (base64) omitted: {} characters]",
                blob.len()
            )),
            "{out}"
        );
        assert!(
            out.contains("[binary data (data: URL, image/png) omitted:"),
            "{out}"
        );
        assert!(
            out.contains("[binary data (data: URL, text/plain) omitted: 11 characters]"),
            "{out}"
        );
        // Below the length, base64 of text, prose, hashes and paths are data, not binary.
        for kept in [prose.as_str(), &word, &text_b64, &hash, "/srv/docs/a.txt"] {
            assert!(out.contains(kept), "{kept} was kept");
        }
        // Exactly at the length, binary bytes are a blob.
        let at = b64(&png[..MIN_BASE64_BLOB_CHARS / 4 * 3]);
        assert_eq!(at.len(), MIN_BASE64_BLOB_CHARS);
        assert!(binary_kind(&at).is_some());
        assert!(binary_kind(&at[..MIN_BASE64_BLOB_CHARS - 4]).is_none());
    }

    #[test]
    fn content_for_the_user_alone_goes_to_the_person_not_the_model() {
        let r = result(json!({"content": [
            {"type": "text", "text": "for the model"},
            {"type": "text", "text": "for you, sk-canary", "annotations": {"audience": ["user"]}},
            {"type": "text", "text": "for both", "annotations": {"audience": ["user", "assistant"]}},
            {"type": "text", "text": "for the assistant", "annotations": {"audience": ["assistant"]}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png", "annotations": {"audience": ["user"]}}
        ]}));
        let out = map_result(&r, &Redactor::new(["sk-canary"]));
        assert_eq!(
            out.text,
            format!("for the model\nfor both\nfor the assistant\n{PERSON_ONLY_NOTE}")
        );
        assert_eq!(
            out.for_person.as_deref(),
            Some("for you, [redacted]\n[image omitted: image/png]")
        );
        let plain = map_result(
            &result(
                json!({"content": [{"type": "text", "text": "x", "annotations": {"audience": []}}]}),
            ),
            &Redactor::default(),
        );
        assert_eq!((plain.text.as_str(), plain.for_person), ("x", None));
        // Structured content repeating only the person's text still goes to the model.
        let r = result(json!({
            "content": [{"type": "text", "text": "{\"a\":1}", "annotations": {"audience": ["user"]}}],
            "structuredContent": {"a": 1}
        }));
        let out = map_result(&r, &Redactor::default());
        assert_eq!(
            out.text,
            format!("[structured content]\n{{\"a\":1}}\n{PERSON_ONLY_NOTE}")
        );
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

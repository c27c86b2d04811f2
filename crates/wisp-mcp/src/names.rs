//! Model-facing tool names (MCP-25): stable across sessions, derived from the server's id and a
//! digest of the original tool name, only `[a-zA-Z0-9_-]` and at most 64 characters, so a name
//! with dots, spaces or 200 characters from a server can never make the model API reject a request.

use sha2::{Digest, Sha256};

use crate::limits::MAX_MODEL_NAME_CHARS;

/// `mcp_<8 hex of the server id>_<sanitized prefix>_<8 hex digest of the original name>`.
///
/// The digest keeps two tools whose sanitized names collide (`a.b` and `a_b`) apart; the
/// prefix only helps a person reading a request log.
pub fn model_name(server_id: &str, original: &str) -> String {
    let server: String = Sha256::digest(server_id.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    let digest: String = Sha256::digest(original.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    // "mcp_" + 8 + "_" + prefix + "_" + 8
    let room = MAX_MODEL_NAME_CHARS - (4 + 8 + 1 + 1 + 8);
    let prefix: String = original
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(room)
        .collect();
    format!("mcp_{server}_{prefix}_{digest}")
}

/// True when `name` is something the model API accepts as a function name.
pub fn is_valid_model_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_MODEL_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_25_names_are_stable_valid_and_distinct() {
        let id = "3f2a0c1e-0000-4000-8000-000000000001";
        let a = model_name(id, "read.file");
        assert_eq!(a, model_name(id, "read.file"));
        assert!(is_valid_model_name(&a), "{a}");
        assert!(a.starts_with("mcp_"));
        assert!(a.contains("_read_file_"));
        let b = model_name(id, "read_file");
        assert_ne!(a, b, "sanitized collisions stay apart by digest");
        let other = model_name("another-server", "read.file");
        assert_ne!(a, other, "the server id is part of the name");
        let long = model_name(id, &"ü.x".repeat(200));
        assert!(is_valid_model_name(&long), "{long}");
        assert_eq!(long.len(), MAX_MODEL_NAME_CHARS);
        assert!(is_valid_model_name(&model_name(id, "")));
    }

    #[test]
    fn invalid_model_names_are_refused() {
        assert!(!is_valid_model_name(""));
        assert!(!is_valid_model_name("a.b"));
        assert!(!is_valid_model_name(&"a".repeat(65)));
        assert!(is_valid_model_name(&"a".repeat(64)));
    }
}

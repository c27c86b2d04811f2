//! Known secret values out of everything the crate hands back (MCP-22): results, the stderr
//! buffer and error messages. Redaction is a courtesy against accidental echoes, not isolation:
//! a server that encodes a secret it was given gets it out (MCP-23).

use serde_json::Value;

/// What a secret value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Replaces every known secret value. Cheap to clone; empty values are ignored (an empty
/// string occurs everywhere and hides nothing).
#[derive(Clone, Default)]
pub struct Redactor {
    // Longest first, so a secret that contains another is replaced whole.
    secrets: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} values)", self.secrets.len())
    }
}

impl Redactor {
    /// A redactor for these values.
    pub fn new<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut secrets: Vec<String> = values
            .into_iter()
            .map(Into::into)
            .filter(|s| !s.is_empty())
            .collect();
        // Equal values must end up next to each other for `dedup`, so ties sort by value.
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Redactor { secrets }
    }

    /// `text` with every known value replaced by [`REDACTED`].
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// A JSON value with every string (keys included) redacted.
    pub fn json(&self, value: &Value) -> Value {
        if self.secrets.is_empty() {
            return value.clone();
        }
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.text(k), self.json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_22_known_values_are_replaced_everywhere() {
        let r = Redactor::new(["sk-canary-123", "sk-canary", ""]);
        assert_eq!(
            r.text("a sk-canary-123 b sk-canary c"),
            "a [redacted] b [redacted] c"
        );
        assert_eq!(r.text("nothing here"), "nothing here");
        let v = serde_json::json!({"sk-canary": ["x sk-canary-123", 1, {"k": "sk-canary"}]});
        assert_eq!(
            r.json(&v),
            serde_json::json!({"[redacted]": ["x [redacted]", 1, {"k": "[redacted]"}]})
        );
        assert!(!format!("{r:?}").contains("canary"));
    }

    /// The Debug form counts the values and shows none (a redactor lands in logged structs).
    #[test]
    fn debug_counts_values_without_showing_them() {
        let r = Redactor::new(["sk-one", "sk-two", "sk-one", ""]);
        assert_eq!(format!("{r:?}"), "Redactor(2 values)");
        assert_eq!(format!("{:?}", Redactor::default()), "Redactor(0 values)");
    }
}

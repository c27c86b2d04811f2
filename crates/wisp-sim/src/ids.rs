//! How the simulator numbers tool calls on the wire, to act out the habits of other
//! OpenAI-compatible servers: DeepSeek gives every call an id unique across the conversation,
//! but some servers and chat templates number calls per response (`call_0`, `call_1`, … in
//! every round), repeat one id inside a response, or send an empty id or none at all. Chosen
//! by an `[ids:NAME]` marker in the latest user message; the default is unique ids.

/// One way of numbering calls. Names (for the marker) are in [`CallIds::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallIds {
    /// Ids unique across the conversation (DeepSeek's habit).
    #[default]
    Unique,
    /// `per-response`: `call_0`, `call_1`, … again in every response.
    PerResponse,
    /// `repeat`: every call of a response gets the id of its first call.
    Repeat,
    /// `empty`: every call has `"id": ""`.
    Empty,
    /// `none`: no call has an `id` field.
    Missing,
}

impl CallIds {
    /// Parses a name.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.trim() {
            "unique" => Self::Unique,
            "per-response" => Self::PerResponse,
            "repeat" => Self::Repeat,
            "empty" => Self::Empty,
            "none" => Self::Missing,
            _ => return None,
        })
    }

    /// The numbering named by an `[ids:NAME]` marker in `text`, else the default.
    pub fn from_marker(text: &str) -> Self {
        let Some(start) = text.find("[ids:").map(|s| s + "[ids:".len()) else {
            return Self::default();
        };
        text[start..]
            .find(']')
            .and_then(|end| Self::parse(&text[start..start + end]))
            .unwrap_or_default()
    }

    /// The id that call `index` of a response goes on the wire with (`None`: no `id` field).
    /// `ids` are the scenario's own unique ids of the response's calls.
    pub(crate) fn wire_id(self, index: usize, ids: &[String]) -> Option<String> {
        match self {
            Self::Unique => ids.get(index).cloned(),
            Self::PerResponse => Some(format!("call_{index}")),
            Self::Repeat => ids.first().cloned(),
            Self::Empty => Some(String::new()),
            Self::Missing => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_choose_a_numbering_and_anything_else_is_unique() {
        assert_eq!(
            CallIds::from_marker("[demo:multi] [ids:per-response]"),
            CallIds::PerResponse
        );
        assert_eq!(CallIds::from_marker("[ids:repeat]"), CallIds::Repeat);
        assert_eq!(CallIds::from_marker("x [ids:none]"), CallIds::Missing);
        assert_eq!(CallIds::from_marker("[ids:empty]"), CallIds::Empty);
        assert_eq!(CallIds::from_marker("[ids:odd]"), CallIds::Unique);
        assert_eq!(CallIds::from_marker("[ids:none"), CallIds::Unique);
        assert_eq!(CallIds::from_marker("plain"), CallIds::Unique);
    }

    #[test]
    fn each_numbering_gives_its_ids() {
        let ids = ["a".to_owned(), "b".to_owned()];
        let all = |c: CallIds| (0..2).map(|i| c.wire_id(i, &ids)).collect::<Vec<_>>();
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(all(CallIds::Unique), [s("a"), s("b")]);
        assert_eq!(all(CallIds::PerResponse), [s("call_0"), s("call_1")]);
        assert_eq!(all(CallIds::Repeat), [s("a"), s("a")]);
        assert_eq!(all(CallIds::Empty), [s(""), s("")]);
        assert_eq!(all(CallIds::Missing), [None, None]);
    }
}

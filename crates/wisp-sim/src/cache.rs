//! DeepSeek's context cache, acted out: a request's prompt is a hit as far as it repeats, byte
//! for byte, the prompt of an earlier request for the same model, counted in whole 64-token
//! units (a token taken as 4 bytes). So the usage the simulator reports says what a real session
//! would pay: a client whose requests change early bytes (a reordered tool list, a rewritten
//! earlier message) gets misses here as it would from DeepSeek.
//!
//! The prompt is what the model reads, in the order a chat template renders it: the model, the
//! tool definitions, then the messages, each as the client sent its bytes (not re-serialised, so
//! key order and spacing count as they do for the provider's tokenizer).

use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::limits::{MAX_CACHED_PROMPT_BYTES, MAX_CACHED_PROMPTS};

/// Bytes taken as one token.
const BYTES_PER_TOKEN: usize = 4;
/// DeepSeek counts hits in whole units of this many tokens.
const UNIT_TOKENS: usize = 64;

#[derive(Deserialize)]
struct PromptParts<'a> {
    #[serde(borrow)]
    model: &'a RawValue,
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
    #[serde(borrow)]
    messages: &'a RawValue,
}

/// The prompt of a chat request body as the cache sees it; `None` when the body has no model or
/// messages (such a request is refused before it is answered).
pub(crate) fn prompt_of(body: &[u8]) -> Option<Vec<u8>> {
    let parts: PromptParts<'_> = serde_json::from_slice(body).ok()?;
    let tools = parts.tools.map_or("", RawValue::get);
    let mut prompt =
        Vec::with_capacity(parts.model.get().len() + tools.len() + parts.messages.get().len() + 2);
    // Separators that JSON text never holds bare, so parts cannot run into each other.
    prompt.extend_from_slice(parts.model.get().as_bytes());
    prompt.push(b'\n');
    prompt.extend_from_slice(tools.as_bytes());
    prompt.push(b'\n');
    prompt.extend_from_slice(parts.messages.get().as_bytes());
    Some(prompt)
}

/// The prompts seen so far, newest last, within [`MAX_CACHED_PROMPTS`] and
/// [`MAX_CACHED_PROMPT_BYTES`] (the newest is always kept).
#[derive(Default)]
pub(crate) struct PromptCache {
    kept: VecDeque<Vec<u8>>,
    bytes: usize,
}

/// What the context cache made of one request's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptCacheUse {
    /// The prompt's size: the model, the tools and the messages as sent.
    pub prompt_bytes: usize,
    /// The prompt tokens the usage reports (from the size of the whole request).
    pub prompt_tokens: u64,
    /// Its leading bytes that repeat the previous request's prompt (0 for the first).
    pub repeated_from_previous: usize,
    /// Its leading bytes that repeat any kept earlier prompt: the longest such repeat.
    pub repeated_bytes: usize,
    /// The prompt tokens reported as cache hits: `repeated_bytes` in whole units, at most the
    /// request's prompt tokens.
    pub hit_tokens: u64,
}

impl PromptCache {
    /// What the cache holds of `prompt`, a request of `prompt_tokens` tokens: its longest common
    /// prefix with any kept prompt, in whole units; then `prompt` is kept for later requests.
    pub(crate) fn use_for(&mut self, prompt: Vec<u8>, prompt_tokens: u64) -> PromptCacheUse {
        let repeated_from_previous = self
            .kept
            .back()
            .map_or(0, |previous| common_prefix(previous, &prompt));
        let repeated_bytes = self
            .kept
            .iter()
            .map(|earlier| common_prefix(earlier, &prompt))
            .max()
            .unwrap_or(0);
        let units = repeated_bytes / BYTES_PER_TOKEN / UNIT_TOKENS;
        let hit_tokens = ((units * UNIT_TOKENS) as u64).min(prompt_tokens);
        let prompt_bytes = prompt.len();
        self.bytes += prompt_bytes;
        self.kept.push_back(prompt);
        while self.kept.len() > MAX_CACHED_PROMPTS
            || (self.bytes > MAX_CACHED_PROMPT_BYTES && self.kept.len() > 1)
        {
            if let Some(old) = self.kept.pop_front() {
                self.bytes -= old.len();
            }
        }
        PromptCacheUse {
            prompt_bytes,
            prompt_tokens,
            repeated_from_previous,
            repeated_bytes,
            hit_tokens,
        }
    }
}

/// How many leading bytes `a` and `b` share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 32;
    let n = a.len().min(b.len());
    // Whole chunks first (compared as slices, which the compiler vectorises), then bytes.
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(cache: &mut PromptCache, prompt: Vec<u8>, prompt_tokens: u64) -> u64 {
        cache.use_for(prompt, prompt_tokens).hit_tokens
    }

    fn body(model: &str, tools: &str, messages: &str) -> Vec<u8> {
        format!(r#"{{"model":"{model}","messages":{messages},"tools":{tools},"stream":true}}"#)
            .into_bytes()
    }

    #[test]
    fn the_prompt_is_model_then_tools_then_messages_as_sent() {
        let p = prompt_of(&body("m", r#"[{"a": 1}]"#, r#"[{"role":"user"}]"#)).unwrap();
        assert_eq!(p, b"\"m\"\n[{\"a\": 1}]\n[{\"role\":\"user\"}]");
        let no_tools = prompt_of(br#"{"model":"m","messages":[]}"#).unwrap();
        assert_eq!(no_tools, b"\"m\"\n\n[]");
        assert!(prompt_of(br#"{"model":"m"}"#).is_none());
        assert!(prompt_of(b"not json").is_none());
    }

    #[test]
    fn common_prefix_counts_across_chunk_edges() {
        let a: Vec<u8> = (0..100u8).collect();
        for cut in [0, 1, 31, 32, 33, 63, 64, 65, 99] {
            let mut b = a.clone();
            b[cut] ^= 0xff;
            assert_eq!(common_prefix(&a, &b), cut, "cut at {cut}");
        }
        assert_eq!(common_prefix(&a, &a), 100);
        assert_eq!(common_prefix(&a, &a[..40]), 40);
        assert_eq!(common_prefix(&a[..40], &a), 40);
        assert_eq!(common_prefix(&[], &a), 0);
    }

    #[test]
    fn hits_are_the_longest_repeat_of_any_earlier_prompt_in_whole_units() {
        let unit = BYTES_PER_TOKEN * UNIT_TOKENS;
        let mut cache = PromptCache::default();
        let first = vec![b'a'; 3 * unit + 10];
        assert_eq!(hit(&mut cache, first.clone(), 1_000), 0, "nothing seen yet");
        // Repeats the first prompt and adds: the repeated whole units are hits.
        let mut longer = first.clone();
        longer.extend(vec![b'b'; 2 * unit]);
        assert_eq!(
            hit(&mut cache, longer.clone(), 1_000),
            3 * UNIT_TOKENS as u64
        );
        // One byte short of a unit more does not count that unit.
        let mut almost = longer[..4 * unit - 1].to_vec();
        almost.push(b'z');
        assert_eq!(hit(&mut cache, almost, 1_000), 3 * UNIT_TOKENS as u64);
        // A change in the first unit makes everything a miss, whatever follows.
        let mut changed_early = longer.clone();
        changed_early[0] = b'x';
        assert_eq!(hit(&mut cache, changed_early, 1_000), 0);
        // The best of every earlier prompt counts, not only the newest's.
        assert_eq!(
            hit(&mut cache, longer.clone(), 1_000),
            5 * UNIT_TOKENS as u64
        );
        // Never more than the request's own prompt tokens.
        assert_eq!(hit(&mut cache, longer, 100), 100);
    }

    #[test]
    fn the_use_says_what_repeats_the_previous_prompt_and_what_any_earlier_one() {
        let mut cache = PromptCache::default();
        let first = use_of(&mut cache, b"abcdef");
        assert_eq!(
            (
                first.prompt_bytes,
                first.repeated_from_previous,
                first.repeated_bytes
            ),
            (6, 0, 0)
        );
        let second = use_of(&mut cache, b"xyz");
        assert_eq!(
            (second.repeated_from_previous, second.repeated_bytes),
            (0, 0)
        );
        let third = use_of(&mut cache, b"abcxyz");
        assert_eq!(
            (
                third.prompt_bytes,
                third.repeated_from_previous,
                third.repeated_bytes
            ),
            (6, 0, 3)
        );
        let fourth = use_of(&mut cache, b"abcxy!");
        assert_eq!(
            (fourth.repeated_from_previous, fourth.repeated_bytes),
            (5, 5)
        );
    }

    fn use_of(cache: &mut PromptCache, prompt: &[u8]) -> PromptCacheUse {
        cache.use_for(prompt.to_vec(), 1_000)
    }

    #[test]
    fn the_cache_keeps_the_newest_prompts_within_its_limits() {
        let unit = BYTES_PER_TOKEN * UNIT_TOKENS;
        let mut cache = PromptCache::default();
        let oldest = vec![b'o'; unit];
        hit(&mut cache, oldest.clone(), 1_000);
        for i in 0..MAX_CACHED_PROMPTS {
            hit(&mut cache, vec![(i % 200) as u8 + 1; 8], 1_000);
        }
        assert_eq!(cache.kept.len(), MAX_CACHED_PROMPTS);
        assert_eq!(hit(&mut cache, oldest, 1_000), 0, "the oldest was let go");

        let mut cache = PromptCache::default();
        let big = vec![b'x'; MAX_CACHED_PROMPT_BYTES];
        hit(&mut cache, big.clone(), u64::MAX);
        hit(&mut cache, vec![b'y'; unit], u64::MAX);
        assert_eq!(
            cache.kept.len(),
            1,
            "over the byte limit: only the newest stays"
        );
        assert_eq!(cache.bytes, unit);
        let huge = vec![b'z'; MAX_CACHED_PROMPT_BYTES + 1];
        hit(&mut cache, huge.clone(), u64::MAX);
        assert_eq!(
            cache.kept.len(),
            1,
            "the newest is kept even past the limit"
        );
        assert_eq!(
            hit(&mut cache, huge, u64::MAX),
            (MAX_CACHED_PROMPT_BYTES + 1) as u64 / 4 / 64 * 64
        );
    }
}

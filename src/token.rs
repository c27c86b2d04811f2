//! The per-launch token that guards the local API: random (256 bits) unless `WISP_TOKEN` fixes
//! it for a script, and then it must still be hard to guess.

use std::collections::HashSet;

use anyhow::{anyhow, bail};

use crate::limits::{MIN_TOKEN_CHARS, MIN_TOKEN_DISTINCT_CHARS};

/// `WISP_TOKEN` when it is set (and good enough), else a fresh random token.
pub(crate) fn from_env() -> anyhow::Result<String> {
    if let Ok(t) = std::env::var("WISP_TOKEN") {
        if let Some(why) = weakness(&t) {
            bail!("WISP_TOKEN is refused: {why}. Generate one with: openssl rand -hex 32");
        }
        return Ok(t);
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow!("no random source for the token: {e}"))?;
    Ok(hex::encode(bytes))
}

/// Why `token` is too easy to guess, if it is.
fn weakness(token: &str) -> Option<String> {
    if token.chars().count() < MIN_TOKEN_CHARS || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Some(format!(
            "it must be at least {MIN_TOKEN_CHARS} visible ASCII characters"
        ));
    }
    let distinct = token.bytes().collect::<HashSet<u8>>().len();
    if distinct < MIN_TOKEN_DISTINCT_CHARS {
        return Some(format!(
            "it uses only {distinct} different characters (at least {MIN_TOKEN_DISTINCT_CHARS} are needed), so it is easy to guess"
        ));
    }
    if let Some(period) = repeat_period(token.as_bytes()) {
        return Some(format!(
            "it is one piece of {period} characters repeated, so it is only as strong as that piece"
        ));
    }
    None
}

/// The length of the shortest piece whose repetition (at least twice, the last copy possibly
/// cut short) makes up `s`.
fn repeat_period(s: &[u8]) -> Option<usize> {
    (1..=s.len() / 2).find(|&p| s[p..].iter().zip(s).all(|(a, b)| a == b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_token_and_real_ones_pass() {
        assert_eq!(weakness("cli-token-0123456789abcdef0123456789abcdef"), None);
        assert_eq!(weakness("Zk3-pQ9_xW2.mN7!rT5~bV8@cY4#dU6$"), None);
        for _ in 0..50 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).unwrap();
            assert_eq!(weakness(&hex::encode(bytes)), None);
        }
    }

    #[test]
    fn guessable_tokens_are_refused_with_the_reason() {
        let one = "a".repeat(32);
        assert!(weakness(&one).unwrap().contains("only 1 different"));
        let seven = "abcdefg".repeat(5);
        assert!(weakness(&seven).unwrap().contains("only 7 different"));
        // Eight distinct characters at the limit pass that check, but in turn they are a
        // repeated piece.
        let turn = "abcdefgh".repeat(4);
        assert!(weakness(&turn).unwrap().contains("piece of 8"), "{turn}");
        let cut = format!("{}xyz", "0123456789abcdef".repeat(2));
        assert_eq!(weakness(&cut), None, "not a repetition: {cut}");
        let tail_cut = &"0123456789abcdefg".repeat(3)[..40];
        assert!(weakness(tail_cut).unwrap().contains("piece of 17"));
        assert!(weakness(&"x".repeat(31)).unwrap().contains("at least 32"));
        assert!(weakness(&format!("{} ", "0123456789abcdef".repeat(2))).is_some());
    }

    #[test]
    fn repeat_period_finds_the_shortest_piece() {
        assert_eq!(repeat_period(b"abab"), Some(2));
        assert_eq!(repeat_period(b"aaaa"), Some(1));
        assert_eq!(repeat_period(b"abcabca"), Some(3));
        assert_eq!(
            repeat_period(b"abcab"),
            None,
            "one copy and a bit is not a repetition"
        );
        assert_eq!(repeat_period(b"abcd"), None);
        assert_eq!(repeat_period(b"abcabd"), None);
    }
}

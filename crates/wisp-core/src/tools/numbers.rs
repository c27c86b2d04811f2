//! Numbers in a call's arguments must reach the tool exactly as the model wrote them.
//!
//! Arguments are parsed into `serde_json::Value` (no `arbitrary_precision`: rmcp and the
//! families rely on plain numbers), which keeps every `i64`/`u64` and otherwise an `f64`. An
//! integer past `u64`, a decimal with more digits than an `f64` holds, `1e400` or `-0` would be
//! changed on the way — and the approval card, which shows the canonical text, would then show
//! something the model did not ask for. Such a call is refused before anything is asked or done,
//! with the number and what it would have become, so the model can send it as a string instead.

use serde_json::Value;

/// `Err` (for the model) when a number literal in `raw` would not be sent exactly as written:
/// out of range, or its parsed form (what the canonical arguments and the tool get) denotes
/// another value, or turns an integer into a float. Text that is not JSON is left to the parser.
pub(crate) fn check_exact(raw: &str) -> Result<(), String> {
    for literal in number_literals(raw) {
        let sent = match serde_json::from_str::<Value>(literal) {
            Ok(Value::Number(n)) => n.to_string(),
            // The literal matched JSON's number grammar, so only its range can fail.
            _ => {
                return Err(format!(
                    "the number {literal} is out of range for a 64-bit number and cannot be sent exactly; nothing was called. Send it as a string if the tool accepts one"
                ));
            }
        };
        if !same_number(literal, &sent) {
            return Err(format!(
                "the number {literal} cannot be sent exactly: it would become {sent}; nothing was called. Send {sent} if that is what you mean, or the number as a string if the tool accepts one"
            ));
        }
    }
    Ok(())
}

/// The number tokens of `raw` outside strings, each matching JSON's number grammar.
fn number_literals(raw: &str) -> Vec<&str> {
    let bytes = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let token = &raw[start..i];
                if is_json_number(token) {
                    out.push(token);
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Whether two JSON number literals denote the same value (the sign of zero included) and
/// are both integers or both not: `1e2` and `100.0` are, `-0` and `-0.0` are not.
fn same_number(a: &str, b: &str) -> bool {
    is_integer(a) == is_integer(b) && decimal(a) == decimal(b)
}

fn is_integer(s: &str) -> bool {
    !s.contains(['.', 'e', 'E'])
}

/// A literal as (negative, significant digits without leading or trailing zeros, exponent of
/// the last digit); zero has no digits.
fn decimal(s: &str) -> (bool, String, i64) {
    let negative = s.starts_with('-');
    let s = s.trim_start_matches('-');
    let (mantissa, exp) = match s.find(['e', 'E']) {
        // An exponent past i64 is out of an f64's range anyway; saturating keeps it unequal.
        Some(at) => (&s[..at], s[at + 1..].parse::<i64>().unwrap_or(i64::MAX)),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let trimmed_end = all.trim_end_matches('0');
    let trailing = (all.len() - trimmed_end.len()) as i64;
    let digits = trimmed_end.trim_start_matches('0').to_owned();
    if digits.is_empty() {
        return (negative, String::new(), 0);
    }
    let exponent = exp
        .saturating_sub(frac.len() as i64)
        .saturating_add(trailing);
    (negative, digits, exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_that_survive_parsing_pass() {
        for raw in [
            r#"{"n":12345678901234567891}"#,
            r#"{"n":-9223372036854775808}"#,
            r#"{"n":18446744073709551615}"#,
            r#"{"n":-0.0}"#,
            r#"{"n":0}"#,
            r#"{"n":1.5,"m":[1e2,1E+2,0.10,2.5e-7,1e300]}"#,
            r#"{"n":0.1}"#,
            r#"{"text":"12345678901234567891234567890 and 1e400 inside a string \" 0.1000000000000000055511151231257827"}"#,
            r#"{"n": 4503599627370497.0}"#,
        ] {
            assert_eq!(check_exact(raw), Ok(()), "{raw}");
        }
    }

    #[test]
    fn numbers_that_would_change_are_refused_with_what_they_would_become() {
        for (raw, says) in [
            (
                r#"{"n":18446744073709551616}"#,
                "the number 18446744073709551616 cannot be sent exactly: it would become 1.8446744073709552e+19",
            ),
            (
                r#"{"n":0.1000000000000000055511151231257827}"#,
                "it would become 0.1;",
            ),
            (
                r#"{"n":-0}"#,
                "the number -0 cannot be sent exactly: it would become -0.0",
            ),
            (r#"{"a":[1, 1e400]}"#, "the number 1e400 is out of range"),
            (r#"{"n":-1e400}"#, "the number -1e400 is out of range"),
            (r#"{"n":1e-400}"#, "it would become 0.0"),
            (
                r#"{"n":9007199254740993.0}"#,
                "it would become 9007199254740992.0",
            ),
        ] {
            let e = check_exact(raw).unwrap_err();
            assert!(e.contains(says), "{raw}: {e}");
            assert!(e.contains("nothing was called"), "{e}");
        }
    }

    #[test]
    fn broken_json_is_left_to_the_parser() {
        for raw in [
            "",
            "{",
            r#"{"n":01}"#,
            r#"{"n":1.}"#,
            r#"{"s":"unterminated"#,
            "-",
        ] {
            assert_eq!(check_exact(raw), Ok(()), "{raw}");
        }
    }
}

//! The front matter of `SKILL.md`: the part of YAML skills are written in, read strictly.
//!
//! Top-level `key: value` lines whose value is a plain, single-quoted or double-quoted scalar
//! (on one line or continued on indented lines) or a block scalar (`|`, `>`, with `-` or `+`),
//! and one level of `key: value` pairs under a key with no value of its own (`metadata`).
//! A flow collection (`[a, b]`, `{…}`) is kept as its text. Anything else — anchors, aliases,
//! tags, deeper nesting, a duplicate key, a line that is no key — is an error naming its line:
//! a skill is listed as invalid with the reason rather than half-read. Where YAML would refuse
//! a plain scalar holding `: ` (common in descriptions other hosts accept), the rest of the
//! line is the value.

use crate::limits::MAX_FRONT_MATTER_BYTES;

/// A value of the front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A scalar, as text (YAML's `null`, `true` and numbers included, as written).
    Text(String),
    /// A mapping one level deep, in the order written.
    Map(Vec<(String, String)>),
}

/// The front matter's fields in the order written, and where the Markdown body starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatter {
    /// `(key, value)` pairs, keys unique.
    pub fields: Vec<(String, Value)>,
    /// Byte offset of the body in the text given to [`parse`].
    pub body_start: usize,
}

impl FrontMatter {
    /// The text of field `key`, if it is a scalar.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.fields.iter().find_map(|(k, v)| match v {
            Value::Text(t) if k == key => Some(t.as_str()),
            _ => None,
        })
    }

    /// Whether field `key` is present, of any kind.
    pub fn has(&self, key: &str) -> bool {
        self.fields.iter().any(|(k, _)| k == key)
    }
}

/// Splits `SKILL.md`'s text at its front matter (between a first line `---` and the next line
/// `---`) and parses it.
pub fn parse(text: &str) -> Result<FrontMatter, String> {
    let text_start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let text = &text[text_start..];
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err("SKILL.md must start with a front matter line `---`".to_owned());
    }
    let yaml_start = first.len();
    let mut at = yaml_start;
    for line in lines {
        if line.trim_end() == "---" {
            let yaml = &text[yaml_start..at];
            if yaml.len() > MAX_FRONT_MATTER_BYTES {
                return Err(too_long(yaml.len()));
            }
            let fields = fields(yaml)?;
            return Ok(FrontMatter {
                fields,
                body_start: text_start + at + line.len(),
            });
        }
        at += line.len();
        if at - yaml_start > MAX_FRONT_MATTER_BYTES {
            return Err(too_long(at - yaml_start));
        }
    }
    Err("the front matter is not closed by a line `---`".to_owned())
}

fn too_long(bytes: usize) -> String {
    format!("the front matter has more than {MAX_FRONT_MATTER_BYTES} bytes ({bytes} or more)")
}

/// One line of the front matter: its number in `SKILL.md` (the `---` is line 1), its
/// indentation and its text without the indentation or the line end.
#[derive(Clone, Copy)]
struct Line<'a> {
    number: usize,
    indent: usize,
    text: &'a str,
}

impl Line<'_> {
    fn is_blank(&self) -> bool {
        self.text.is_empty()
    }
    fn is_comment(&self) -> bool {
        self.text.starts_with('#')
    }
}

fn fields(yaml: &str) -> Result<Vec<(String, Value)>, String> {
    let mut lines = Vec::new();
    for (i, raw) in yaml.lines().enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.contains('\t') && raw.trim_start_matches(' ').starts_with('\t') {
            return Err(format!("line {}: YAML does not indent with tabs", i + 2));
        }
        let text = raw.trim_start_matches(' ');
        lines.push(Line {
            number: i + 2,
            indent: raw.len() - text.len(),
            text: text.trim_end(),
        });
    }
    let mut out: Vec<(String, Value)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.is_blank() || line.is_comment() {
            i += 1;
            continue;
        }
        if line.indent > 0 {
            return Err(format!(
                "line {}: indented, but not under a key that has no value",
                line.number
            ));
        }
        let (key, rest) = key_and_rest(line)?;
        if out.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "line {}: the key {key:?} is given twice",
                line.number
            ));
        }
        // The lines that belong to this key: the indented, blank and comment lines after it.
        let mut end = i + 1;
        while end < lines.len() && (lines[end].indent > 0 || lines[end].is_blank()) {
            end += 1;
        }
        let more = &lines[i + 1..end];
        let value = if rest.is_empty() || rest.starts_with('#') {
            nested(more)?
        } else {
            Value::Text(scalar(line.number, rest, more)?)
        };
        out.push((key, value));
        i = end;
    }
    Ok(out)
}

/// `key: rest` → the key and the rest (trimmed); a key is letters, digits, `-` and `_`.
fn key_and_rest(line: Line<'_>) -> Result<(String, &str), String> {
    let Some((key, rest)) = line.text.split_once(':') else {
        return Err(format!("line {}: expected `key: value`", line.number));
    };
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "line {}: {key:?} is not a key (letters, digits, `-` and `_`)",
            line.number
        ));
    }
    if !rest.is_empty() && !rest.starts_with(' ') {
        return Err(format!(
            "line {}: a space must follow `{key}:`",
            line.number
        ));
    }
    Ok((key.to_owned(), rest.trim()))
}

/// The value of a key written with nothing after its colon: nothing (an empty text) or one
/// level of `key: value` pairs.
fn nested(more: &[Line<'_>]) -> Result<Value, String> {
    let content: Vec<Line<'_>> = more
        .iter()
        .copied()
        .filter(|l| !l.is_blank() && !l.is_comment())
        .collect();
    let Some(first) = content.first() else {
        return Ok(Value::Text(String::new()));
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in &content {
        if line.indent != first.indent {
            return Err(format!(
                "line {}: only one level of `key: value` is read under a key",
                line.number
            ));
        }
        if line.text.starts_with("- ") || line.text == "-" {
            return Err(format!(
                "line {}: a list is read only as `[a, b]` on the key's line",
                line.number
            ));
        }
        let (key, rest) = key_and_rest(*line)?;
        if pairs.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "line {}: the key {key:?} is given twice",
                line.number
            ));
        }
        if rest.is_empty() {
            return Err(format!(
                "line {}: only one level of `key: value` is read under a key",
                line.number
            ));
        }
        pairs.push((key, scalar(line.number, rest, &[])?));
    }
    Ok(Value::Map(pairs))
}

/// A scalar starting with `rest` on line `number`, continued on the lines `more`.
fn scalar(number: usize, rest: &str, more: &[Line<'_>]) -> Result<String, String> {
    let first = rest.chars().next().unwrap_or(' ');
    match first {
        '|' | '>' => block(number, rest, more),
        '"' | '\'' => quoted(number, rest, more),
        '&' | '*' | '!' => Err(format!(
            "line {number}: YAML anchors, aliases and tags are not read in a skill's front matter"
        )),
        '[' | '{' => {
            // A flow collection: kept as written (`allowed-tools: [Read, Grep]`).
            let mut text = rest.to_owned();
            for line in more.iter().filter(|l| !l.is_blank()) {
                text.push(' ');
                text.push_str(line.text);
            }
            Ok(text)
        }
        _ => Ok(plain(rest, more)),
    }
}

/// A plain scalar: up to a ` #` comment, continued lines joined by a space, a blank line
/// between them kept as a line break.
fn plain(rest: &str, more: &[Line<'_>]) -> String {
    let cut = |s: &str| -> String {
        match s.find(" #") {
            Some(i) => s[..i].trim_end().to_owned(),
            None => s.to_owned(),
        }
    };
    let mut text = cut(rest);
    let mut blanks = 0;
    for line in more {
        if line.is_blank() {
            blanks += 1;
            continue;
        }
        if line.is_comment() {
            break;
        }
        if blanks > 0 {
            text.push_str(&"\n".repeat(blanks));
            blanks = 0;
        } else {
            text.push(' ');
        }
        text.push_str(&cut(line.text));
    }
    text
}

/// A `"…"` or `'…'` scalar, possibly over several lines (a line break folds to a space, a
/// blank line to a line break, as YAML reads them).
fn quoted(number: usize, rest: &str, more: &[Line<'_>]) -> Result<String, String> {
    let double = rest.starts_with('"');
    let mut source: Vec<&str> = vec![&rest[1..]];
    source.extend(more.iter().map(|l| l.text));
    let mut out = String::new();
    let mut breaks = 0usize;
    // After an escaped line break (`\` at a line's end) the next line joins without a space.
    let mut joined = false;
    for (n, piece) in source.iter().enumerate() {
        if n > 0 {
            if piece.is_empty() {
                breaks += 1;
                continue;
            }
            if breaks > 0 {
                out.push_str(&"\n".repeat(breaks));
                breaks = 0;
            } else if !joined {
                out.push(' ');
            }
            joined = false;
        }
        let mut chars = piece.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '"' if double => return closed(number, out, &piece[at + 1..], &source[n + 1..]),
                '\'' if !double => {
                    if chars.peek().map(|(_, c)| *c) == Some('\'') {
                        chars.next();
                        out.push('\'');
                    } else {
                        return closed(number, out, &piece[at + 1..], &source[n + 1..]);
                    }
                }
                '\\' if double => match chars.next() {
                    Some((_, e)) => out.push(escape(number, e, &mut chars)?),
                    None => joined = true,
                },
                _ => out.push(c),
            }
        }
    }
    Err(format!("line {number}: the quoted value is not closed"))
}

/// The end of a quoted scalar: only a comment may follow its closing quote, on its line and
/// on the key's lines after it.
fn closed(number: usize, text: String, after: &str, later: &[&str]) -> Result<String, String> {
    let after = after.trim();
    if !after.is_empty() && !after.starts_with('#') {
        return Err(format!("line {number}: {after:?} after the closing quote"));
    }
    if let Some(extra) = later.iter().find(|l| !l.is_empty() && !l.starts_with('#')) {
        return Err(format!(
            "line {number}: {extra:?} follows the quoted value, which is already closed"
        ));
    }
    Ok(text)
}

fn escape(
    number: usize,
    e: char,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) -> Result<char, String> {
    let hex = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, n: usize| {
        let digits: String = (0..n)
            .filter_map(|_| chars.next().map(|(_, c)| c))
            .collect();
        u32::from_str_radix(&digits, 16)
            .ok()
            .filter(|_| digits.len() == n)
            .and_then(char::from_u32)
            .ok_or_else(|| format!("line {number}: \\{e}{digits} is not a character"))
    };
    Ok(match e {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        ' ' => ' ',
        '"' => '"',
        '/' => '/',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' => hex(chars, 2)?,
        'u' => hex(chars, 4)?,
        'U' => hex(chars, 8)?,
        other => return Err(format!("line {number}: \\{other} is not a YAML escape")),
    })
}

/// A block scalar (`|` keeps line breaks, `>` folds them), with its chomping indicator.
fn block(number: usize, rest: &str, more: &[Line<'_>]) -> Result<String, String> {
    let header = match rest.find(" #") {
        Some(i) => rest[..i].trim_end(),
        None => rest,
    };
    let literal = header.starts_with('|');
    let chomp = match &header[1..] {
        "" => Chomp::Clip,
        "-" => Chomp::Strip,
        "+" => Chomp::Keep,
        other => {
            return Err(format!(
                "line {number}: the block indicator {other:?} is not read (only `-` or `+`)"
            ));
        }
    };
    let indent = more.iter().find(|l| !l.is_blank()).map_or(0, |l| l.indent);
    // Each line without the block's indentation; a more-indented line keeps its extra spaces.
    let mut lines: Vec<String> = Vec::new();
    for line in more {
        if line.is_blank() {
            lines.push(String::new());
            continue;
        }
        if line.indent < indent {
            return Err(format!(
                "line {}: less indented than the block's first line",
                line.number
            ));
        }
        lines.push(format!("{}{}", " ".repeat(line.indent - indent), line.text));
    }
    let mut body = String::new();
    if literal {
        for (n, line) in lines.iter().enumerate() {
            if n > 0 {
                body.push('\n');
            }
            body.push_str(line);
        }
    } else {
        let mut previous_blank = true;
        for (n, line) in lines.iter().enumerate() {
            if line.is_empty() {
                body.push('\n');
                previous_blank = true;
                continue;
            }
            if n > 0 && !previous_blank {
                body.push(' ');
            }
            body.push_str(line);
            previous_blank = false;
        }
    }
    let content = body.trim_end_matches('\n');
    let trailing = body.len() - content.len();
    Ok(match chomp {
        Chomp::Strip => content.to_owned(),
        Chomp::Clip if content.is_empty() => String::new(),
        Chomp::Clip => format!("{content}\n"),
        Chomp::Keep => format!("{content}{}", "\n".repeat(trailing + 1)),
    })
}

enum Chomp {
    Clip,
    Strip,
    Keep,
}

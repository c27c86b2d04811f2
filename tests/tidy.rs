//! Repository rules that the compiler does not check.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if !dir.exists() {
        return;
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let skipped = path
            .file_name()
            .is_some_and(|n| n == "target" || n == "node_modules");
        if path.is_dir() && !skipped {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every Rust file of the repository (every crate's sources, tests and build scripts, the
/// binary, its tests and examples) opens with a `//!` doc saying what it is for.
#[test]
fn every_module_says_what_it_is_for() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["crates", "src", "tests", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.push(root.join("build.rs"));
    assert!(files.len() > 10, "found only {files:?}");
    let undocumented: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| format!("{}:1", f.strip_prefix(root).unwrap().display()))
        .collect();
    assert!(
        undocumented.is_empty(),
        "these files do not start with a `//!` doc; open each with a few `//!` lines saying \
         what the module is for and what it must never do:\n{}",
        undocumented.join("\n")
    );
}

/// The map of the code, kept short enough to read in one sitting: detail belongs in the `//!`
/// docs of the modules it names.
const ARCHITECTURE_MAX_LINES: usize = 260;

/// `ARCHITECTURE.md` stays a map, not a manual.
#[test]
fn the_architecture_map_stays_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines <= ARCHITECTURE_MAX_LINES,
        "ARCHITECTURE.md has {lines} lines, more than {ARCHITECTURE_MAX_LINES}: keep one short \
         paragraph per crate or module and move the detail into the `//!` doc of the module it \
         describes"
    );
}

/// Whether a backticked span of the map is meant as a repository path: a plain relative path
/// with a `/`, ending in a source file's extension or starting with a top-level entry of the
/// repository (`tools/node`, `ui/src/features/`). `../shared/…`, API routes (`/api/…`), globs
/// and words such as `application/json` are not.
fn repository_path_in(span: &str, root: &Path) -> bool {
    const EXTENSIONS: &[&str] = &[
        "rs", "toml", "md", "ts", "tsx", "js", "mjs", "json", "css", "html", "py", "sh",
    ];
    let plain = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if !plain || !span.contains('/') || span.starts_with('/') || span.starts_with("../") {
        return false;
    }
    let first = span.split('/').next().unwrap_or_default();
    let has_extension = span
        .rsplit('/')
        .next()
        .and_then(|last| last.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext));
    has_extension || root.join(first).exists()
}

/// The backticked spans of a Markdown text outside fenced code blocks, each with the line it
/// starts on (from 1). A span may run over a line break, as Markdown allows.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (i, part) in line.split('`').enumerate() {
            if i > 0 {
                open = match open.take() {
                    Some(span) => {
                        spans.push(span);
                        None
                    }
                    None => Some((n + 1, String::new())),
                };
            }
            if let Some((_, span)) = &mut open {
                span.push_str(part);
            }
        }
        if let Some((_, span)) = &mut open {
            span.push(' ');
        }
    }
    spans
}

/// The path scan finds what it must and passes over what it may.
#[test]
fn the_map_path_scan_tells_paths_from_other_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = "`crates/wisp-fs/src/lib.rs` and `tools/node`, `crate/x.rs`,\n\
                `application/json` `/api/health` `../shared/DESIGN.md` `ui/src/*.ts`\n\
                ```\n`src/not-a-span.rs`\n```\n`wisp\nserve` `reload/back/forward`";
    let spans = code_spans(text);
    assert_eq!(spans.len(), 9, "{spans:?}");
    assert_eq!(spans[7], (6, "wisp serve".to_owned()));
    let paths: Vec<&str> = spans
        .iter()
        .map(|(_, s)| s.as_str())
        .filter(|s| repository_path_in(s, root))
        .collect();
    assert_eq!(
        paths,
        ["crates/wisp-fs/src/lib.rs", "tools/node", "crate/x.rs"]
    );
}

/// Every repository path `ARCHITECTURE.md` names in backticks exists, so the map cannot point
/// at a file that was moved or removed.
#[test]
fn every_path_the_architecture_map_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let spans = code_spans(&text);
    let paths: Vec<&(usize, String)> = spans
        .iter()
        .filter(|(_, s)| repository_path_in(s, root))
        .collect();
    assert!(paths.len() > 20, "found only {paths:?}");
    let missing: Vec<String> = paths
        .iter()
        .filter(|(_, s)| !root.join(s).exists())
        .map(|(line, s)| format!("ARCHITECTURE.md:{line}: `{s}`"))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist; write the path as it is now, or drop \
         the name if the thing is gone:\n{}",
        missing.join("\n")
    );
}

/// Where in `line` an issue number is cited: "issue" or "issues" in any case, then a number,
/// with at most a space, `_` or `-` and a `#` between; the byte offset of the word.
fn issue_citation(line: &str) -> Option<usize> {
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let word = "issue";
    let mut from = 0;
    while let Some(at) = lower[from..].find(word).map(|i| from + i) {
        let mut i = at + word.len();
        if bytes.get(i) == Some(&b's') {
            i += 1;
        }
        if matches!(bytes.get(i), Some(b' ' | b'_' | b'-')) {
            i += 1;
        }
        if bytes.get(i) == Some(&b'#') {
            i += 1;
        }
        if bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The citation scan finds what it must and passes over what it may.
#[test]
fn the_issue_scan_tells_citations_from_other_words() {
    // Built at run time, so this file holds no citation of its own.
    let word = ["Iss", "ue"].concat();
    for found in [
        format!("// ({word} 8)"),
        format!("/// {word} #12 §3: x"),
        format!("fn {}_7_races() {{}}", word.to_lowercase()),
        format!("# {}s 13 and 14", word.to_uppercase()),
        format!("see {word}-9"),
    ] {
        assert!(issue_citation(&found).is_some(), "not found in {found}");
    }
    for passed in [
        "struct Issued {",
        "https://github.com/npm/wrappy/issues",
        "rcgen::CertifiedIssuer::self_signed",
        "an issue with 3 parts",
    ] {
        assert_eq!(issue_citation(passed), None, "found in {passed}");
    }
}

/// Text files of a source tree, skipping installed packages and build output.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    const TEXT: &[&str] = &[
        "rs", "toml", "ts", "tsx", "js", "mjs", "css", "html", "py", "sh", "md",
    ];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap_or_default();
        if path.is_dir() {
            if name != "node_modules" && name != "target" && name != "dist" {
                source_files(&path, out);
            }
        } else if path
            .extension()
            .is_none_or(|e| TEXT.iter().any(|t| e == *t))
        {
            out.push(path);
        }
    }
}

/// No code, comment, test name or script cites an issue number: history belongs in git, and a
/// comment says why. A requirement ID (MCP-11) may name what a test proves.
#[test]
fn no_source_file_cites_an_issue_number() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["crates", "src", "tests", "scripts", "ui/src", "ui/e2e"] {
        source_files(&root.join(dir), &mut files);
    }
    files.push(root.join("build.rs"));
    files.push(root.join("Cargo.toml"));
    assert!(files.len() > 100, "found only {} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let name = f.strip_prefix(root).unwrap().display().to_string();
        // Extensionless files (scripts) may be binary; only text is read.
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        found.extend(
            text.lines()
                .enumerate()
                .filter(|(_, l)| issue_citation(l).is_some())
                .map(|(n, l)| format!("{name}:{}: {}", n + 1, l.trim())),
        );
    }
    assert!(
        found.is_empty(),
        "these lines cite an issue number; history belongs in git: say why in the comment (or \
         what the test proves in its name, a requirement ID such as MCP-11 may stay), or \
         delete it when it only tells history:\n{}",
        found.join("\n")
    );
}

/// Library crates never print: output is the binary's business (and tracing's).
#[test]
fn library_crates_do_not_print() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    let root = Path::new(&manifest);
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        rust_files(&krate.unwrap().path().join("src"), &mut files);
    }
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for needle in ["println!", "eprintln!", "print!(", "dbg!("] {
            assert!(!text.contains(needle), "{} uses {needle}", f.display());
        }
    }
}

/// A lint is silenced only with `#[expect(lint, reason = "…")]`: the reason says why, and the
/// compiler says when the exception is no longer needed (a bare `#[allow]` stays forever).
#[test]
fn lints_are_silenced_with_a_reason_that_expires() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    let root = Path::new(&manifest);
    let mut files = Vec::new();
    for dir in ["crates", "src", "tests", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.push(root.join("build.rs"));
    let allow = ["#[allow(", "#![allow("];
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if allow.iter().any(|a| line.trim_start().starts_with(a)) {
                found.push(format!("{}:{}", f.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "use #[expect(lint, reason = \"why\")] instead of a bare allow at: {found:?}"
    );
    let without_reason: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let mut at = Vec::new();
            let mut rest = text.as_str();
            let mut offset = 0;
            while let Some(i) = rest.find("expect(") {
                let start = offset + i;
                let before = &text[..start];
                if before.ends_with("#[") || before.ends_with("#![") {
                    let attr_end = text[start..].find(")]").map_or(text.len(), |e| start + e);
                    if !text[start..attr_end].contains("reason =") {
                        at.push(format!("{}:{}", f.display(), before.lines().count()));
                    }
                }
                offset = start + "expect(".len();
                rest = &text[offset..];
            }
            at
        })
        .collect();
    assert!(
        without_reason.is_empty(),
        "an #[expect] needs a reason = \"…\": {without_reason:?}"
    );
}

/// MCP-34: the MCP SDK is pinned to one exact version in the manifest that declares it, not
/// only in Cargo.lock (which `cargo update` rewrites without a review of the manifest).
#[test]
fn mcp_34_the_mcp_sdk_is_pinned_exactly_in_the_manifest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
    // Cargo's own reading of every manifest (workspace inheritance and target tables
    // resolved), never a hand-written TOML scan.
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut seen = Vec::new();
    for package in meta["packages"].as_array().unwrap() {
        for dep in package["dependencies"].as_array().unwrap() {
            if dep["name"] == "rmcp" {
                seen.push((
                    package["name"].as_str().unwrap().to_owned(),
                    dep["req"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    assert!(!seen.is_empty(), "no crate depends on rmcp any more");
    for (package, req) in &seen {
        let exact = req
            .strip_prefix('=')
            .is_some_and(|v| v.split('.').count() == 3 && !v.contains(['*', ',', '<', '>']));
        assert!(
            exact,
            "{package} requires rmcp {req:?}; pin it exactly (\"=x.y.z\", MCP-34)"
        );
    }
}

/// A Rust source split for the SIM-03 scan: the code with comments and string contents
/// blanked (so braces are counted only where they are code), and each string literal's text
/// with the position it starts at.
struct Lexed {
    code: Vec<char>,
    strings: Vec<(usize, String)>,
}

fn lex(text: &str) -> Lexed {
    let src: Vec<char> = text.chars().collect();
    let mut code = Vec::with_capacity(src.len());
    let mut strings = Vec::new();
    let mut i = 0;
    // Copies src[from..to] into the code as blanks (keeping newlines).
    let blank = |code: &mut Vec<char>, part: &[char]| {
        code.extend(part.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    while i < src.len() {
        let c = src[i];
        let next = src.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = src[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(src.len(), |n| i + n);
            blank(&mut code, &src[i..end]);
            i = end;
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < src.len() && depth > 0 {
                if src[j] == '/' && src.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if src[j] == '*' && src.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut code, &src[i..j]);
            i = j;
        } else if let Some((hashes, open)) = raw_string_start(&src, i) {
            // r"…", r#"…"#, br#"…"#: no escapes, ends at a quote followed by the hashes.
            let body = i + open;
            let mut j = body;
            while j < src.len()
                && !(src[j] == '"' && (1..=hashes).all(|h| src.get(j + h) == Some(&'#')))
            {
                j += 1;
            }
            strings.push((i, src[body..j.min(src.len())].iter().collect()));
            let end = (j + 1 + hashes).min(src.len());
            code.push('"');
            blank(&mut code, &src[i + 1..end.saturating_sub(1)]);
            code.push('"');
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < src.len() && src[j] != '"' {
                j += if src[j] == '\\' { 2 } else { 1 };
            }
            strings.push((i, src[i + 1..j.min(src.len())].iter().collect()));
            let end = (j + 1).min(src.len());
            code.push('"');
            blank(&mut code, &src[i + 1..end.saturating_sub(1)]);
            code.push('"');
            i = end;
        } else if c == '\'' && (next == Some('\\') || src.get(i + 2) == Some(&'\'')) {
            // A char literal ('"', '{', '\''); a lifetime has no closing quote.
            let mut j = i + 1;
            if src.get(j) == Some(&'\\') {
                j += 2;
            } else {
                j += 1;
            }
            while j < src.len() && src[j] != '\'' {
                j += 1;
            }
            let end = (j + 1).min(src.len());
            blank(&mut code, &src[i..end]);
            i = end;
        } else {
            code.push(c);
            i += 1;
        }
    }
    Lexed { code, strings }
}

/// At a raw string's start (`r"`, `r#"`, `br"`, `cr#"` …, not inside an identifier): how many
/// `#` it has and how many characters precede its contents.
fn raw_string_start(src: &[char], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (src[i - 1].is_alphanumeric() || src[i - 1] == '_') {
        return None;
    }
    let mut j = i;
    if matches!(src.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if src.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = src[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    (src.get(j) == Some(&'"')).then_some((hashes, j + 1 - i))
}

/// Character ranges of items under `#[cfg(test)]` (a `mod tests { … }` or `mod tests;`).
fn test_only_ranges(code: &[char]) -> Vec<(usize, usize)> {
    let needle: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut ranges = Vec::new();
    let mut i = 0;
    while i + needle.len() <= code.len() {
        if code[i..i + needle.len()] != needle[..] {
            i += 1;
            continue;
        }
        let mut j = i + needle.len();
        while j < code.len() && code[j] != '{' && code[j] != ';' {
            j += 1;
        }
        if j < code.len() && code[j] == '{' {
            let mut depth = 0usize;
            while j < code.len() {
                match code[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        ranges.push((i, j));
        i = j.max(i + 1);
    }
    ranges
}

/// What marks a scripted scenario or an injected fault in a prompt or a request.
const SIM_MARKERS: &[&str] = &["[demo", "[fault", "[ids:", "x-wisp-sim-fault"];

/// The string literals of production code (comments and `#[cfg(test)]` items left out) that
/// hold a simulator marker.
fn marker_literals(text: &str) -> Vec<String> {
    let lexed = lex(text);
    let tests = test_only_ranges(&lexed.code);
    lexed
        .strings
        .into_iter()
        .filter(|(at, _)| !tests.iter().any(|(from, to)| (*from..=*to).contains(at)))
        .map(|(_, s)| s)
        .filter(|s| SIM_MARKERS.iter().any(|m| s.contains(m)))
        .collect()
}

/// The scan itself finds what it must and passes over what it may.
#[test]
fn sim_03_the_marker_scan_tells_matching_from_mentioning() {
    for found in [
        r#"fn f(p: &str) -> bool { p.contains("[demo:") }"#,
        r#"fn f(p: &str) -> bool { p.starts_with(r"[fault:slow") }"#,
        r##"const M: &str = r#"[ids:repeat]"#;"##,
        r#"fn f() { let c = '"'; let _ = ("x", c, "[demo:write]"); }"#,
        "fn f<'a>(p: &'a str) -> bool { p == \"[demo:write]\" }",
        r#"fn f(h: &str) -> bool { h == "x-wisp-sim-fault" } #[cfg(test)] mod tests {}"#,
    ] {
        assert_eq!(marker_literals(found).len(), 1, "not found in {found}");
    }
    for passed in [
        "/// Markers such as [demo:write] belong to the simulator.\nfn f() {}",
        "/* \"[demo:write]\" */ fn f() {}",
        "// \"[fault:x]\"\nfn f() {}",
        "fn f() {}\n#[cfg(test)]\nmod tests { fn t() { let _ = \"[demo:write] go\"; let b = '}'; } }",
        "#[cfg(test)]\nmod tests;",
        r#"fn f() -> &'static str { "demo package [x]" }"#,
    ] {
        assert!(marker_literals(passed).is_empty(), "found in {passed}");
    }
}

/// SIM-03: scripted scenarios (`[demo:*]`), injected faults (`[fault:*]`, the fault header)
/// and scripted call ids (`[ids:*]`) exist only in the simulator. No production code of any
/// other crate, nor the binary, holds such a marker: string literals in tests, which *send*
/// markers, are fine; code that would match them is not.
#[test]
fn sim_03_no_simulator_marker_outside_the_simulator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut crates = 0;
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let krate = krate.unwrap().path();
        if krate.file_name().is_some_and(|n| n == "wisp-sim") {
            continue;
        }
        crates += 1;
        rust_files(&krate.join("src"), &mut files);
        if krate.join("build.rs").exists() {
            files.push(krate.join("build.rs"));
        }
    }
    assert!(crates >= 9, "found only {crates} crates besides wisp-sim");
    // Test modules in their own files (`mod tests;` → `tests.rs`, `x/tests.rs`, `tests/…`).
    files.retain(|f| {
        !f.components().any(|c| c.as_os_str() == "tests")
            && f.file_name().is_none_or(|n| n != "tests.rs")
    });
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            marker_literals(&text)
                .into_iter()
                .map(move |s| format!("{}: {s:?}", f.strip_prefix(root).unwrap().display()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "simulator markers outside crates/wisp-sim (SIM-03): {found:#?}"
    );
}

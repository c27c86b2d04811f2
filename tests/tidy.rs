//! Repository rules that the compiler does not check.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if !dir.exists() {
        return;
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every source file of every crate opens with a `//!` doc saying what it is for.
#[test]
fn every_module_says_what_it_is_for() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    let root = Path::new(&manifest);
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("examples"), &mut files);
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let krate = krate.unwrap().path();
        rust_files(&krate.join("src"), &mut files);
        rust_files(&krate.join("tests"), &mut files);
    }
    rust_files(&root.join("tests"), &mut files);
    assert!(files.len() > 10, "found only {files:?}");
    let undocumented: Vec<_> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .collect();
    assert!(
        undocumented.is_empty(),
        "files without a //! header: {undocumented:?}"
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

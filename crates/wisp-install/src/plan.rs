//! The install plan (INST-05): a full npm package name, one exact version, the JavaScript bin
//! to run and non-secret startup arguments — validated on construction, so an [`InstallPlan`]
//! in hand is always one that may be shown on an approval card. Its digest names the install
//! directory (INST-11).

use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::InstallError;
use crate::limits::{
    MAX_ARG_LEN, MAX_ARGS, MAX_BIN_NAME_LEN, MAX_PACKAGE_NAME_LEN, MAX_VERSION_LEN,
    MAX_VERSION_NUMBER,
};
use crate::registry::Registry;

/// The folder under the Wisp data dir that holds one folder per installed plan (INST-11).
pub const INSTALLS_DIR: &str = "mcp-installs";

/// A validated plan. Construct with [`InstallPlan::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    package: String,
    version: String,
    bin: String,
    args: Vec<String>,
}

/// The canonical form the digest is taken over: keys in sorted order, no whitespace
/// (serde_json writes struct fields in declaration order).
#[derive(Serialize)]
struct Canonical<'a> {
    args: &'a [String],
    bin: &'a str,
    package: &'a str,
    registry: &'a str,
    version: &'a str,
}

impl InstallPlan {
    /// Validates every part; the error names the part and the rule it breaks.
    pub fn new(
        package: &str,
        version: &str,
        bin: &str,
        args: Vec<String>,
    ) -> Result<Self, InstallError> {
        check_package_name(package).map_err(InstallError::Plan)?;
        check_exact_version(version).map_err(InstallError::Plan)?;
        check_bin_name(bin).map_err(InstallError::Plan)?;
        check_args(&args).map_err(InstallError::Plan)?;
        Ok(Self {
            package: package.to_owned(),
            version: version.to_owned(),
            bin: bin.to_owned(),
            args,
        })
    }

    /// The npm package name, e.g. `@scope/server`.
    pub fn package(&self) -> &str {
        &self.package
    }

    /// The exact version, e.g. `1.2.3`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The bin to run, a key of the package's `bin`.
    pub fn bin(&self) -> &str {
        &self.bin
    }

    /// The startup arguments after the bin.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// `PACKAGE@VERSION`, the one spec handed to npm.
    pub fn spec(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// sha256 (hex) of the plan's canonical JSON together with the registry it installs from:
    /// the same plan from another registry is another install.
    pub fn digest(&self, registry: &Registry) -> String {
        let canonical = Canonical {
            args: &self.args,
            bin: &self.bin,
            package: &self.package,
            registry: registry.as_str(),
            version: &self.version,
        };
        // Serializing strings and a string array cannot fail; an empty input would only
        // give a digest no plan shares.
        let bytes = serde_json::to_vec(&canonical).unwrap_or_default();
        hex::encode(Sha256::digest(&bytes))
    }

    /// `<data dir>/mcp-installs/<digest>` (INST-11).
    pub fn install_dir(&self, data_dir: &Path, registry: &Registry) -> PathBuf {
        data_dir.join(INSTALLS_DIR).join(self.digest(registry))
    }
}

/// npm's rules for a new package name (validate-npm-package-name), scoped or not.
pub fn check_package_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the package name is empty".into());
    }
    if name.len() > MAX_PACKAGE_NAME_LEN {
        return Err(format!(
            "the package name is {} characters; npm allows at most {MAX_PACKAGE_NAME_LEN}",
            name.len()
        ));
    }
    if name.trim() != name {
        return Err(format!(
            "the package name {name:?} has leading or trailing spaces"
        ));
    }
    if name.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(format!(
            "the package name {name:?} has capital letters; npm names are lowercase"
        ));
    }
    let (scope, bare) = match name.strip_prefix('@') {
        Some(rest) => match rest.split_once('/') {
            Some((scope, bare)) => (Some(scope), bare),
            None => {
                return Err(format!(
                    "the scoped package name {name:?} needs the form @scope/name"
                ));
            }
        },
        None => (None, name),
    };
    if let Some(scope) = scope {
        check_name_part(scope, "scope", name)?;
    }
    check_name_part(bare, "name", name)?;
    if scope.is_none() && ["node_modules", "favicon.ico"].contains(&bare) {
        return Err(format!("{name:?} is a name npm reserves"));
    }
    Ok(())
}

fn check_name_part(part: &str, what: &str, full: &str) -> Result<(), String> {
    if part.is_empty() {
        return Err(format!("the package name {full:?} has an empty {what}"));
    }
    if part.starts_with('.') || part.starts_with('_') {
        return Err(format!(
            "the package {what} in {full:?} starts with a dot or an underscore"
        ));
    }
    if let Some(bad) = part
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(*c)))
    {
        return Err(format!(
            "the package name {full:?} contains {bad:?}; npm names use a-z, 0-9, '-', '.' and '_'"
        ));
    }
    Ok(())
}

/// One exact semver version, as npm pins it: `MAJOR.MINOR.PATCH` with an optional
/// `-prerelease`. No range, tag, `x`, leading `v` or `=`, and no `+build` (npm ignores build
/// metadata when it matches, so it would pin nothing).
pub fn check_exact_version(version: &str) -> Result<(), String> {
    if version.is_empty() {
        return Err("the version is empty; give an exact version such as 1.2.3".into());
    }
    if version.len() > MAX_VERSION_LEN {
        return Err(format!(
            "the version is longer than {MAX_VERSION_LEN} characters"
        ));
    }
    let not_exact =
        |why: &str| format!("{version:?} is not an exact version ({why}); give one such as 1.2.3");
    if version.contains('+') {
        return Err(not_exact(
            "build metadata after '+' is ignored by npm, so it pins nothing",
        ));
    }
    if version
        .chars()
        .any(|c| c.is_whitespace() || "^~<>=|*".contains(c))
    {
        return Err(not_exact("it is a range"));
    }
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (version, None),
    };
    let wildcard_start = version.starts_with("x.") || version.starts_with("X.");
    if !wildcard_start
        && version
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
    {
        return Err(not_exact(
            "it looks like a tag such as latest, or has a leading 'v'",
        ));
    }
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3 {
        return Err(not_exact(
            "it needs exactly three numbers MAJOR.MINOR.PATCH",
        ));
    }
    for part in &parts {
        if part.eq_ignore_ascii_case("x") {
            return Err(not_exact("'x' is a wildcard"));
        }
        check_numeric(part).map_err(|why| not_exact(&why))?;
    }
    if let Some(pre) = pre {
        if pre.is_empty() {
            return Err(not_exact("the prerelease after '-' is empty"));
        }
        for ident in pre.split('.') {
            if ident.is_empty() || !ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(not_exact(
                    "a prerelease part may use only 0-9, A-Z, a-z and '-'",
                ));
            }
            if ident.chars().all(|c| c.is_ascii_digit()) {
                check_numeric(ident).map_err(|why| not_exact(&why))?;
            }
        }
    }
    Ok(())
}

fn check_numeric(part: &str) -> Result<(), String> {
    if part.is_empty() || !part.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("{part:?} is not a number"));
    }
    if part.len() > 1 && part.starts_with('0') {
        return Err(format!("{part:?} has a leading zero"));
    }
    match part.parse::<u64>() {
        Ok(n) if n <= MAX_VERSION_NUMBER => Ok(()),
        _ => Err(format!("{part:?} is larger than npm allows")),
    }
}

/// A plain bin name: no path, no spaces, nothing a shell or npm would read as syntax.
pub fn check_bin_name(bin: &str) -> Result<(), String> {
    if bin.is_empty() {
        return Err("the bin name is empty; give the name from the package's \"bin\"".into());
    }
    if bin.len() > MAX_BIN_NAME_LEN {
        return Err(format!(
            "the bin name is longer than {MAX_BIN_NAME_LEN} characters"
        ));
    }
    if bin.starts_with('.') || bin.starts_with('-') {
        return Err(format!("the bin name {bin:?} starts with '.' or '-'"));
    }
    if let Some(bad) = bin
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-._".contains(*c)))
    {
        return Err(format!(
            "the bin name {bin:?} contains {bad:?}; give a plain name (a-z, 0-9, '-', '.', '_'), not a path"
        ));
    }
    Ok(())
}

/// Startup arguments: at most [`MAX_ARGS`], each at most [`MAX_ARG_LEN`] bytes, no control
/// characters, and no value that looks like a secret (INST-07: secrets go into Settings →
/// Local MCP → Edit → Environment variables, never into arguments). A path or a word that
/// merely names a credential (`/srv/secret-docs`, `--token-file=/x`) is not a secret; the
/// value after a secret-like flag (`--password hunter2`) is.
pub fn check_args(args: &[String]) -> Result<(), String> {
    if args.len() > MAX_ARGS {
        return Err(format!(
            "{} arguments; at most {MAX_ARGS} are allowed",
            args.len()
        ));
    }
    for (i, arg) in args.iter().enumerate() {
        if arg.len() > MAX_ARG_LEN {
            return Err(format!(
                "argument {} is {} bytes; at most {MAX_ARG_LEN} are allowed",
                i + 1,
                arg.len()
            ));
        }
        if arg.chars().any(char::is_control) {
            return Err(format!("argument {} contains a control character", i + 1));
        }
        let after_flag = i
            .checked_sub(1)
            .and_then(|p| args.get(p))
            .and_then(|prev| secret_flag(prev));
        let why = looks_secret(arg).or_else(|| {
            after_flag
                .filter(|_| !arg.is_empty() && !arg.starts_with('-') && !is_path_like(arg))
                .map(|flag| format!("it is the value of {flag}, which names a credential"))
        });
        if let Some(why) = why {
            return Err(format!(
                "argument {} looks like a secret: {why}. Do not put secrets in arguments — \
                 the person enters them in Settings → Local MCP → Edit → Environment variables",
                i + 1
            ));
        }
    }
    Ok(())
}

/// Key prefixes of well-known credentials, each needing at least [`MIN_AFTER_PREFIX`] token
/// characters after it (so `npm_config` or `sk-learn` are not keys): OpenAI/Anthropic `sk-`,
/// GitHub `ghp_ gho_ ghs_ ghu_ ghr_ github_pat_`, Slack `xoxa- xoxb- xoxp- xoxs-`, AWS `AKIA`
/// `ASIA`, Google `AIza`, GitLab `glpat-`, npm `npm_`. Case-sensitive, as the keys are.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "ghr_",
    "github_pat_",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxs-",
    "AKIA",
    "ASIA",
    "AIza",
    "glpat-",
    "npm_",
];
/// Token characters after a key prefix for it to count (AWS key ids have exactly 16).
pub const MIN_AFTER_PREFIX: usize = 16;
/// The shortest string the randomness rule looks at; shorter strings are too short to
/// judge and rarely keys.
pub const MIN_RANDOM_LEN: usize = 20;
/// Shannon entropy, in bits per character, at or above which a string counts as random. A
/// random 20-character base62 string is above it 99 times in 100 (3.68 at the 1st
/// percentile); hex of 32+ characters is too (3.29); words and names mostly stay below
/// only together with [`MIN_CLASS_SWITCHES`].
pub const MIN_RANDOM_ENTROPY: f64 = 3.5;
/// The share of neighbouring letters and digits that switch between lowercase, uppercase and
/// digit, at or above which a string with a digit counts as random: about 0.6 for random
/// base62, 0.45 for hex, 0.2–0.25 for a name with a number (`ServerEverything2026Edition`).
/// A string without a digit is not judged random (CamelCase names switch case often; a random
/// 20-character base62 string has no digit 3 times in 100).
pub const MIN_CLASS_SWITCHES: f64 = 0.3;
/// Name words that make `NAME=value` or `--name value` a credential when the name ends with
/// one (`--api-key`, `GITHUB_TOKEN`, `--client-secret`), not when it merely contains one
/// (`--token-file`, `--auth-mode`).
const SECRET_NAME_ENDS: &[&[&str]] = &[
    &["password"],
    &["passwd"],
    &["secret"],
    &["token"],
    &["apikey"],
    &["api", "key"],
    &["auth"],
    &["credential"],
    &["credentials"],
    &["private", "key"],
    &["privatekey"],
];

/// Which rule makes `arg` look like a secret value, if any.
fn looks_secret(arg: &str) -> Option<String> {
    if arg.contains("-----BEGIN") && arg.contains("PRIVATE KEY") {
        return Some("it holds a PEM private key (-----BEGIN … PRIVATE KEY)".into());
    }
    if arg.len() >= 7 && arg[..7].eq_ignore_ascii_case("bearer ") {
        return Some("it is an HTTP bearer credential".into());
    }
    let (name, value) = match arg.split_once('=') {
        Some((name, value)) => (Some(name), value),
        None => (None, arg),
    };
    for candidate in [arg, value] {
        if let Some(prefix) = key_prefix(candidate) {
            return Some(format!(
                "it starts with {prefix:?}, the prefix of a known key"
            ));
        }
    }
    if let Some(name) = name
        && !value.is_empty()
        && !is_path_like(value)
        && names_secret(name)
    {
        return Some(format!(
            "{name}=… sets a value whose name names a credential"
        ));
    }
    if is_path_like(value) {
        return None;
    }
    looks_random(value).then(|| {
        format!(
            "it has a random-looking string of {MIN_RANDOM_LEN}+ characters, like a key or token"
        )
    })
}

fn key_prefix(text: &str) -> Option<&'static str> {
    KEY_PREFIXES.iter().copied().find(|p| {
        text.strip_prefix(p).is_some_and(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "-_".contains(*c))
                .count()
                >= MIN_AFTER_PREFIX
        })
    })
}

/// `--name`, `-name` or `NAME` whose last words name a credential.
fn names_secret(name: &str) -> bool {
    let lower = name.trim_start_matches('-').to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    SECRET_NAME_ENDS.iter().any(|end| words.ends_with(end))
}

/// A flag (`--password`, `-token`) whose value is the next argument: its name, if secret-like.
fn secret_flag(arg: &str) -> Option<&str> {
    (arg.starts_with('-') && !arg.contains('=') && names_secret(arg)).then_some(arg)
}

/// An absolute, home or relative path, or a Windows drive path.
fn is_path_like(value: &str) -> bool {
    let b = value.as_bytes();
    value.starts_with('/')
        || value.starts_with("./")
        || value.starts_with("../")
        || value.starts_with("~/")
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b"\\/".contains(&b[2]))
}

/// At least [`MIN_RANDOM_LEN`] characters of a base64/hex/token alphabet, with a letter and a
/// digit, entropy of at least [`MIN_RANDOM_ENTROPY`] and class switches of at least
/// [`MIN_CLASS_SWITCHES`].
fn looks_random(text: &str) -> bool {
    text.len() >= MIN_RANDOM_LEN
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+/=_-".contains(c))
        && text.chars().any(|c| c.is_ascii_digit())
        && text.chars().any(|c| c.is_ascii_alphabetic())
        && shannon_entropy(text) >= MIN_RANDOM_ENTROPY
        && class_switches(text) >= MIN_CLASS_SWITCHES
}

/// Bits per character of the string's own character distribution.
fn shannon_entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::<char, usize>::new();
    let mut n = 0usize;
    for c in text.chars() {
        *counts.entry(c).or_default() += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Of neighbouring letters and digits (separators and padding left out), the share that
/// switch between lowercase, uppercase and digit.
fn class_switches(text: &str) -> f64 {
    let classes: Vec<u8> = text
        .chars()
        .filter_map(|c| match c {
            'a'..='z' => Some(0),
            'A'..='Z' => Some(1),
            '0'..='9' => Some(2),
            _ => None,
        })
        .collect();
    if classes.len() < 2 {
        return 0.0;
    }
    let switches = classes.windows(2).filter(|w| w[0] != w[1]).count();
    switches as f64 / (classes.len() - 1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        Registry::parse("https://registry.npmjs.org/").unwrap()
    }

    #[test]
    fn inst_05_package_names_follow_npm_rules() {
        for ok in [
            "a",
            "wisp-demo-mcp",
            "@scope/name",
            "@a-b/c.d_e",
            "x1",
            &"a".repeat(214),
        ] {
            assert_eq!(check_package_name(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("", "empty"),
            (&*"a".repeat(215), "at most 214"),
            ("Upper", "capital"),
            (" a", "spaces"),
            ("@scope", "@scope/name"),
            ("@/name", "empty scope"),
            ("@scope/", "empty name"),
            (".hidden", "dot"),
            ("_private", "underscore"),
            ("@_s/n", "dot or an underscore"),
            ("a b", "contains ' '"),
            ("a/b", "contains '/'"),
            ("@s/a/b", "contains '/'"),
            ("a~b", "contains '~'"),
            ("a!", "contains '!'"),
            ("é", "contains 'é'"),
            ("node_modules", "reserves"),
            ("favicon.ico", "reserves"),
            ("git+https://x", "contains '+'"),
        ] {
            let err = check_package_name(bad).unwrap_err();
            assert!(err.contains(says), "{bad:?}: {err}");
        }
    }

    #[test]
    fn inst_05_only_an_exact_version() {
        for ok in [
            "0.0.0",
            "1.2.3",
            "10.20.30",
            "1.0.0-beta.1",
            "1.0.0-rc-1",
            "1.0.0-0.3.7",
            "9007199254740991.0.0",
        ] {
            assert_eq!(check_exact_version(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("", "empty"),
            ("latest", "tag"),
            ("next", "tag"),
            ("^1.2.3", "range"),
            ("~1.2.3", "range"),
            (">=1.0.0", "range"),
            ("1.2.3 || 2.0.0", "range"),
            ("1.2.3 - 2.0.0", "range"),
            ("*", "range"),
            ("1.x.0", "wildcard"),
            ("1.2.X", "wildcard"),
            ("1.2", "three numbers"),
            ("1", "three numbers"),
            ("1.2.3.4", "three numbers"),
            ("v1.2.3", "tag"),
            ("=1.2.3", "range"),
            ("01.2.3", "leading zero"),
            ("1.2.3+build", "build metadata"),
            ("1.2.3-beta+exp.sha.5114f85", "build metadata"),
            ("1.2.3-", "prerelease"),
            ("1.2.3-a..b", "prerelease"),
            ("1.2.3-01", "leading zero"),
            ("1.2.3-a_b", "prerelease"),
            ("9007199254740992.0.0", "larger"),
            ("1.2.-3", "not a number"),
        ] {
            let err = check_exact_version(bad).unwrap_err();
            assert!(err.contains(says), "{bad:?}: {err}");
        }
        let long = format!("1.0.0-{}", "a".repeat(MAX_VERSION_LEN));
        assert!(check_exact_version(&long).unwrap_err().contains("longer"));
    }

    #[test]
    fn inst_05_bin_is_a_plain_name() {
        for ok in ["server", "wisp-demo-mcp", "mcp_server.js", "A1"] {
            assert_eq!(check_bin_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "../x",
            "bin/x",
            "-rf",
            ".x",
            "a b",
            "a;b",
            "$(x)",
            &"b".repeat(129),
        ] {
            assert!(check_bin_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_bin_name(&"b".repeat(MAX_BIN_NAME_LEN)).is_ok());
    }

    #[test]
    fn inst_07_args_are_limited_and_not_secret() {
        let ok: Vec<String> = [
            "--root",
            "/srv/data",
            "--max-tokens=100",
            "--port",
            "8080",
            "key-value",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(check_args(&ok), Ok(()));
        assert!(check_args(&vec!["a".into(); MAX_ARGS]).is_ok());
        assert!(
            check_args(&vec!["a".into(); MAX_ARGS + 1])
                .unwrap_err()
                .contains("at most 32")
        );
        assert!(check_args(&["a".repeat(MAX_ARG_LEN)]).is_ok());
        assert!(
            check_args(&["a".repeat(MAX_ARG_LEN + 1)])
                .unwrap_err()
                .contains("at most 1024")
        );
        assert!(
            check_args(&["a\nb".into()])
                .unwrap_err()
                .contains("control")
        );
        for secret in [
            "sk-proj-abcdefghijklmnop",
            "--key=sk-ant-api03-abcdefghijkl",
            "ghp_0123456789abcdefghij",
            "gho_0123456789abcdefghij",
            "github_pat_11ABCDEFG0123456789_abc",
            "xoxb-1234567890-abcdefgh",
            "AKIAIOSFODNN7EXAMPLE",
            "AIzaSyA-0123456789abcdefghijklmnop",
            "glpat-0123456789abcdefghij",
            "npm_0123456789abcdefghijklmn",
            "--api-key=1",
            "API_KEY=abc",
            "--password=hunter2",
            "GITHUB_TOKEN=x",
            "--client-secret=abc",
            "--private-key=abc",
            "apikey=abc",
            "DB_PASSWD=abc",
            "--auth=user:pw",
            "credentials=abc",
            "Bearer abc",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "--aws=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
            "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        ] {
            let err = check_args(&[secret.into()]).unwrap_err();
            assert!(
                err.contains("looks like a secret") && err.contains("Environment variables"),
                "{secret}: {err}"
            );
        }
    }

    fn refused_because(arg: &str) -> String {
        let err = check_args(&[arg.into()]).unwrap_err();
        err.split_once(": ")
            .map(|(_, why)| why.to_owned())
            .unwrap_or(err)
    }

    #[test]
    fn inst_07_paths_and_words_that_name_a_credential_are_not_secrets() {
        for ok in [
            "/srv/secret-docs",
            "/home/p/tokens",
            "--token-file=/x",
            "--token-file",
            "--password-file=/run/secrets/db",
            "--secret-dir=./secrets",
            "--auth-mode=oauth",
            "--max-tokens=100",
            "--token",
            "--client-secret",
            "API_KEY=",
            "--api-key=/etc/wisp/key",
            "TOKEN=~/tokens/gh",
            "--root=C:\\secret",
            "sk-learn",
            "npm_config_cache",
            "mcp-server-sequential-thinking",
            "MyServerNameForTestingPurposes",
            "ServerEverything2026Edition",
            "server-everything-2026-8-31",
            "modelcontextprotocol/servers",
            "/tmp/aB3xK9pQ2mN7vL4wR8tY5zC1",
            "io.github.modelcontextprotocol",
            "v1.2.3-beta.4-build.567",
        ] {
            assert_eq!(check_args(&[ok.into()]), Ok(()), "{ok}");
        }
        // The value after a secret-like flag is one, unless it is a path or another flag.
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let err = check_args(&args(&["--password", "hunter2"])).unwrap_err();
        assert!(
            err.contains("argument 2") && err.contains("value of --password"),
            "{err}"
        );
        assert!(check_args(&args(&["--token", "/run/token"])).is_ok());
        assert!(check_args(&args(&["--token", "--verbose"])).is_ok());
        assert!(check_args(&args(&["--token-file", "abc"])).is_ok());
        assert!(check_args(&args(&["--api-key", ""])).is_ok());
    }

    #[test]
    fn inst_07_each_rule_says_which_it_is_and_both_sides_of_its_boundary() {
        // Key prefixes need MIN_AFTER_PREFIX token characters after them.
        let at = format!("ghp_{}", "a".repeat(MIN_AFTER_PREFIX));
        let below = format!("ghp_{}", "a".repeat(MIN_AFTER_PREFIX - 1));
        assert!(refused_because(&at).contains("prefix of a known key"));
        assert_eq!(check_args(&[below]), Ok(()));
        assert!(refused_because("-----BEGIN RSA PRIVATE KEY-----\\nabc").contains("PEM"));
        assert!(refused_because("--db-password=x").contains("names a credential"));

        // Randomness: 12 distinct characters evenly is log2(12) = 3.58 bits, 11 is 3.46.
        let twelve = "a1B2c3D4e5F6".repeat(2);
        let eleven = "a1B2c3D4e5F".repeat(2);
        assert!(shannon_entropy(&twelve) >= MIN_RANDOM_ENTROPY);
        assert!(shannon_entropy(&eleven) < MIN_RANDOM_ENTROPY);
        assert_eq!(class_switches(&twelve), 1.0);
        assert!(refused_because(&twelve).contains("random-looking"));
        assert_eq!(check_args(&[eleven]), Ok(()));

        // Length: the same kind of string at MIN_RANDOM_LEN and one shorter.
        let long = "a1B2c3D4e5F6g7H8i9J0";
        assert_eq!(long.len(), MIN_RANDOM_LEN);
        assert!(refused_because(long).contains("random-looking"));
        assert_eq!(check_args(&[long[1..].into()]), Ok(()));

        // Class switches: 21 letters-and-digits have 20 neighbour pairs; 6 switches is 0.30,
        // 5 is 0.25. The letters are all distinct, so entropy is far above the threshold.
        let six = "abcdef1ghijkl2mnopq3r";
        let five = "abcdef1ghijkl2mnopqr3";
        assert_eq!(six.len(), 21);
        assert_eq!(class_switches(six), 0.3);
        assert_eq!(class_switches(five), 0.25);
        assert!(shannon_entropy(five) >= MIN_RANDOM_ENTROPY);
        assert!(refused_because(six).contains("random-looking"));
        assert_eq!(check_args(&[five.into()]), Ok(()));

        // A path is never judged by randomness; base64 with '/' in it is.
        assert_eq!(check_args(&[format!("/srv/{twelve}")]), Ok(()));
        assert_eq!(check_args(&[format!("./{twelve}")]), Ok(()));
        assert!(refused_because(&format!("ab/{twelve}")).contains("random-looking"));
        // Without a digit, a string is not judged random however it switches case.
        let no_digit = "aBcDeFgHiJkLmNoPqRsTuV";
        assert_eq!(class_switches(no_digit), 1.0);
        assert_eq!(check_args(&[no_digit.into()]), Ok(()));
    }

    #[test]
    fn inst_11_digest_is_stable_and_names_the_dir() {
        let plan = InstallPlan::new("wisp-demo-mcp", "1.0.0", "wisp-demo-mcp", vec![]).unwrap();
        let d = plan.digest(&registry());
        assert_eq!(d.len(), 64);
        // Pinned: the digest names directories on people's disks, so it must never drift.
        let canonical = r#"{"args":[],"bin":"wisp-demo-mcp","package":"wisp-demo-mcp","registry":"https://registry.npmjs.org/","version":"1.0.0"}"#;
        assert_eq!(d, hex::encode(Sha256::digest(canonical.as_bytes())));
        assert_eq!(d, plan.clone().digest(&registry()));
        let other_args =
            InstallPlan::new("wisp-demo-mcp", "1.0.0", "wisp-demo-mcp", vec!["x".into()]).unwrap();
        let other_version =
            InstallPlan::new("wisp-demo-mcp", "1.0.1", "wisp-demo-mcp", vec![]).unwrap();
        let other_registry = Registry::parse("http://127.0.0.1:4873/").unwrap();
        assert_ne!(d, other_args.digest(&registry()));
        assert_ne!(d, other_version.digest(&registry()));
        assert_ne!(d, plan.digest(&other_registry));
        assert_eq!(
            plan.install_dir(Path::new("/data"), &registry()),
            Path::new("/data/mcp-installs").join(&d)
        );
        assert_eq!(plan.spec(), "wisp-demo-mcp@1.0.0");
    }

    #[test]
    fn a_plan_error_names_the_part() {
        let err = InstallPlan::new("wisp-demo-mcp", "^1.0.0", "x", vec![]).unwrap_err();
        assert!(err.to_string().contains("range"), "{err}");
        let err = InstallPlan::new("Bad", "1.0.0", "x", vec![]).unwrap_err();
        assert!(err.to_string().contains("capital"), "{err}");
        let err = InstallPlan::new("a", "1.0.0", "x/y", vec![]).unwrap_err();
        assert!(err.to_string().contains("bin name"), "{err}");
    }

    #[test]
    fn boundaries_of_versions_and_key_words() {
        let at_cap = format!("1.0.0-{}", "a".repeat(MAX_VERSION_LEN - 6));
        assert_eq!(check_exact_version(&at_cap), Ok(()));
        assert!(
            check_exact_version("x.1.2")
                .unwrap_err()
                .contains("wildcard")
        );
        // "key" alone, or after a word that names no credential, is not a secret.
        for ok in [
            "--sort-key",
            "--api",
            "key",
            "--hot-key=F1",
            "--sort-key=name",
        ] {
            assert_eq!(check_args(&[ok.into()]), Ok(()), "{ok}");
        }
    }
}

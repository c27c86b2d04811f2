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
/// characters, and nothing that looks like a secret (INST-07: secrets go into Settings →
/// Local MCP → Edit → Environment variables, never into arguments).
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
        if let Some(why) = looks_secret(arg) {
            return Err(format!(
                "argument {} looks like a secret ({why}); do not put secrets in arguments — \
                 enter them in Settings → Local MCP → Edit → Environment variables",
                i + 1
            ));
        }
    }
    Ok(())
}

/// A conservative guess: well-known token prefixes, and flag or key words that name a
/// credential. It cannot find every secret; it stops the common ways one is pasted.
fn looks_secret(arg: &str) -> Option<&'static str> {
    const PREFIXES: &[&str] = &[
        "sk-",
        "ghp_",
        "gho_",
        "ghs_",
        "ghu_",
        "github_pat_",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "glpat-",
        "akia",
        "npm_",
        "bearer ",
    ];
    let lower = arg.to_ascii_lowercase();
    // The value part of `--flag=value` or `KEY=value` counts as well as the whole argument.
    let value = lower.split_once('=').map_or(lower.as_str(), |(_, v)| v);
    if PREFIXES
        .iter()
        .any(|p| lower.starts_with(p) || value.starts_with(p))
    {
        return Some("a known token prefix");
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    const WORDS: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "apikey",
        "credential",
        "credentials",
    ];
    if words.iter().any(|w| WORDS.contains(w)) {
        return Some("it names a credential");
    }
    if words
        .windows(2)
        .any(|w| ["api", "private", "access", "secret"].contains(&w[0]) && w[1] == "key")
    {
        return Some("it names a key");
    }
    None
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
            "sk-abc123",
            "--key=sk-abc",
            "ghp_xxx",
            "--token",
            "--api-key=1",
            "API_KEY=abc",
            "--password=hunter2",
            "GITHUB_TOKEN=x",
            "Bearer abc",
            "--client-secret",
            "--access_key",
        ] {
            let err = check_args(&[secret.into()]).unwrap_err();
            assert!(err.contains("Environment variables"), "{secret}: {err}");
        }
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
        for ok in ["--sort-key", "--api", "key", "--hot-key=F1"] {
            assert_eq!(check_args(&[ok.into()]), Ok(()), "{ok}");
        }
    }
}

//! Step 2 of an install (INST-13, INST-14): the lockfile npm wrote with `--package-lock-only`
//! is checked before anything is downloaded into `node_modules`. Every locked package must be
//! the allowed registry's own tarball with a sha512 integrity; git, tarball-URL, file, link,
//! directory and bundled dependencies are refused, naming the entry; the root depends on
//! exactly the planned package at the planned version.

use serde_json::{Map, Value};

use crate::limits::MAX_LOCKED_PACKAGES;
use crate::plan::{InstallPlan, check_exact_version};
use crate::registry::Registry;

/// What a verified lockfile holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedLock {
    /// Locked packages (the planned one and its dependencies).
    pub packages: usize,
}

/// Checks `package-lock.json` text; the error names the offending entry and says why.
pub fn verify_lockfile(
    text: &str,
    plan: &InstallPlan,
    registry: &Registry,
) -> Result<VerifiedLock, String> {
    let lock: Value =
        serde_json::from_str(text).map_err(|e| format!("package-lock.json is not JSON: {e}"))?;
    match lock.get("lockfileVersion").and_then(Value::as_u64) {
        Some(2 | 3) => {}
        other => {
            return Err(format!(
                "package-lock.json has lockfileVersion {other:?}; npm 7 or later writes 2 or 3"
            ));
        }
    }
    let packages = lock
        .get("packages")
        .and_then(Value::as_object)
        .ok_or("package-lock.json has no \"packages\" map")?;
    if packages.len() > MAX_LOCKED_PACKAGES + 1 {
        return Err(format!(
            "the lockfile holds {} packages; at most {MAX_LOCKED_PACKAGES} are allowed",
            packages.len() - 1
        ));
    }
    check_root(packages, plan)?;
    let mut count = 0;
    for (key, entry) in packages {
        if key.is_empty() {
            continue;
        }
        let entry = entry
            .as_object()
            .ok_or_else(|| format!("lockfile entry {key:?} is not an object"))?;
        check_entry(key, entry, registry).map_err(|why| format!("lockfile entry {key:?} {why}"))?;
        count += 1;
    }
    let main_key = format!("node_modules/{}", plan.package());
    let main_version = packages
        .get(&main_key)
        .and_then(|e| e.get("version"))
        .and_then(Value::as_str);
    if main_version != Some(plan.version()) {
        return Err(format!(
            "lockfile entry {main_key:?} has version {main_version:?}, not the planned {}",
            plan.version()
        ));
    }
    Ok(VerifiedLock { packages: count })
}

fn check_root(packages: &Map<String, Value>, plan: &InstallPlan) -> Result<(), String> {
    let root = packages
        .get("")
        .and_then(Value::as_object)
        .ok_or("package-lock.json has no root entry")?;
    for key in [
        "devDependencies",
        "optionalDependencies",
        "peerDependencies",
        "bundleDependencies",
        "workspaces",
    ] {
        if root.get(key).is_some_and(|v| !is_empty(v)) {
            return Err(format!(
                "the lockfile's root has {key}; only one dependency is planned"
            ));
        }
    }
    let deps = root
        .get("dependencies")
        .and_then(Value::as_object)
        .ok_or("the lockfile's root has no dependencies")?;
    let expected = Value::String(plan.version().to_owned());
    if deps.len() != 1 || deps.get(plan.package()) != Some(&expected) {
        let found: Vec<String> = deps.iter().map(|(k, v)| format!("{k}@{v}")).collect();
        return Err(format!(
            "the lockfile's root depends on [{}], not exactly {}",
            found.join(", "),
            plan.spec()
        ));
    }
    Ok(())
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(b) => !b,
        _ => false,
    }
}

fn check_entry(key: &str, entry: &Map<String, Value>, registry: &Registry) -> Result<(), String> {
    // Installed packages live under node_modules; any other key is a workspace or a local
    // directory package.
    let Some(at) = key.rfind("node_modules/") else {
        return Err("is a local folder package, not one from the registry".into());
    };
    if !key.starts_with("node_modules/") {
        return Err("is a local folder package, not one from the registry".into());
    }
    let path_name = &key[at + "node_modules/".len()..];
    if entry.get("link").and_then(Value::as_bool) == Some(true) {
        return Err("is a link to a local folder".into());
    }
    if entry.get("inBundle").and_then(Value::as_bool) == Some(true) {
        return Err(
            "is a bundled dependency: it comes inside another tarball, not from the registry"
                .into(),
        );
    }
    // An alias (`"x": "npm:y@1.0.0"`) installs `y` under the path `x`; the entry's `name`
    // is the real package, and its tarball must be that package's.
    let name = entry
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(path_name);
    let version = entry
        .get("version")
        .and_then(Value::as_str)
        .ok_or("has no version")?;
    let resolved = entry
        .get("resolved")
        .and_then(Value::as_str)
        .ok_or("has no \"resolved\" URL, so its source cannot be checked")?;
    let lower = resolved.to_ascii_lowercase();
    // git+ssh:, git+https:, git:, github: — and any other git form npm writes.
    if lower.starts_with("git") {
        return Err(format!("is a git dependency ({resolved})"));
    }
    if lower.starts_with("file:") || lower.starts_with("link:") {
        return Err(format!("is a local file or folder dependency ({resolved})"));
    }
    check_exact_version(version).map_err(|why| format!("has an unusual version: {why}"))?;
    registry.check_tarball(resolved, name, version)?;
    let integrity = entry
        .get("integrity")
        .and_then(Value::as_str)
        .ok_or("has no integrity hash")?;
    check_integrity(integrity)?;
    for field in ["dependencies", "optionalDependencies", "peerDependencies"] {
        if let Some(deps) = entry.get(field).and_then(Value::as_object) {
            for (dep, spec) in deps {
                let spec = spec.as_str().unwrap_or_default();
                if let Some(kind) = non_registry_spec(spec) {
                    return Err(format!("depends on {dep} through a {kind} ({spec})"));
                }
            }
        }
    }
    Ok(())
}

/// Every hash in the (space-separated) integrity is sha512 with a well-formed digest.
fn check_integrity(integrity: &str) -> Result<(), String> {
    let hashes: Vec<&str> = integrity.split_whitespace().collect();
    if hashes.is_empty() {
        return Err("has an empty integrity".into());
    }
    for hash in hashes {
        let Some(b64) = hash.strip_prefix("sha512-") else {
            return Err(format!("has integrity {hash:?}; only sha512 is accepted"));
        };
        // 64 bytes in base64: 86 characters and "==".
        let well_formed = b64.len() == 88
            && b64.ends_with("==")
            && b64[..86]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/');
        if !well_formed {
            return Err(format!("has a malformed sha512 integrity {hash:?}"));
        }
    }
    Ok(())
}

/// A dependency spec that does not name something on the registry: what kind it is. Accepted
/// is what npm resolves from the registry: every semver range (`1.2.3`, `~1.2`, `^1`,
/// `>=1 <2`, `1 - 2`, `1.x`, `*`, `||` of those, empty), a dist-tag (`latest`, `next`) and an
/// `npm:` alias to a registry package with any of those. Refused is what npm would fetch from
/// somewhere else — in npm-package-arg's order: git and hosted-git shortcuts, URLs, local
/// paths (`~/` only with the slash: `~1.2` is a range) and GitHub's `user/repo` shorthand —
/// and anything that is none of these.
pub(crate) fn non_registry_spec(spec: &str) -> Option<&'static str> {
    let trimmed = spec.trim();
    let lower = trimmed.to_ascii_lowercase();
    if let Some(aliased) = lower.strip_prefix("npm:") {
        // `npm:name`, `npm:name@range`, `npm:@scope/name@range`.
        let (name, range) = match aliased.strip_prefix('@') {
            Some(scoped) => match scoped.split_once('@') {
                Some((name, range)) => (&aliased[..name.len() + 1], range),
                None => (aliased, ""),
            },
            None => aliased.split_once('@').unwrap_or((aliased, "")),
        };
        if crate::plan::check_package_name(name).is_err() {
            return Some("npm: alias that names no registry package");
        }
        return non_registry_spec(range);
    }
    if lower.starts_with("git+")
        || lower.starts_with("git:")
        || ["github:", "gitlab:", "bitbucket:", "gist:"]
            .iter()
            .any(|p| lower.starts_with(p))
    {
        return Some("git dependency");
    }
    if lower.starts_with("http:") || lower.starts_with("https:") {
        return Some("tarball URL");
    }
    let drive = lower.as_bytes();
    let windows_drive = drive.len() >= 2 && drive[0].is_ascii_alphabetic() && drive[1] == b':';
    if lower.starts_with("file:")
        || lower.starts_with("link:")
        // `./x`, `../x`, `.\x` — npm takes any spec starting with a dot for a path.
        || lower.starts_with('.')
        || lower.starts_with('/')
        || lower.starts_with('\\')
        || lower.starts_with("~/")
        || lower.starts_with("~\\")
        || windows_drive
    {
        return Some("local file or folder");
    }
    if lower.contains(':') {
        return Some("URL of a kind npm fetches from outside the registry");
    }
    // hosted-git-info's shorthand: `user/repo`, optionally `#ref`; no range or tag has '/'.
    if lower.contains('/') {
        return Some("git dependency (GitHub shorthand)");
    }
    if !is_range_or_tag(trimmed) {
        return Some("spec that is no version range, tag or npm: alias");
    }
    None
}

/// The characters of semver ranges (digits, dots, `x`/`X`/`*`, `^ ~ < > = |`, spaces,
/// hyphen ranges, prerelease and build parts) and of dist-tags (letters, digits, `-._~`).
/// A spec of only these cannot name a path, host or repository.
fn is_range_or_tag(spec: &str) -> bool {
    spec.chars()
        .all(|c| c.is_ascii_alphanumeric() || " .-+_^~<>=|*".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SHA: &str = "sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";

    fn plan() -> InstallPlan {
        InstallPlan::new("srv", "1.0.0", "srv", vec![]).unwrap()
    }

    fn reg() -> Registry {
        Registry::parse("https://registry.npmjs.org/").unwrap()
    }

    fn entry(name: &str, version: &str) -> Value {
        json!({
            "version": version,
            "resolved": format!("https://registry.npmjs.org/{name}/-/{}-{version}.tgz", name.rsplit('/').next().unwrap()),
            "integrity": SHA,
        })
    }

    fn good() -> Value {
        json!({
            "name": "wisp-mcp-install",
            "lockfileVersion": 3,
            "requires": true,
            "packages": {
                "": {"name": "wisp-mcp-install", "dependencies": {"srv": "1.0.0"}},
                "node_modules/srv": {
                    "version": "1.0.0",
                    "resolved": "https://registry.npmjs.org/srv/-/srv-1.0.0.tgz",
                    "integrity": SHA,
                    "dependencies": {"@s/dep": "^2.0.0"},
                    "bin": {"srv": "index.js"}
                },
                "node_modules/@s/dep": entry("@s/dep", "2.1.0"),
                "node_modules/srv/node_modules/@s/dep": entry("@s/dep", "2.0.0"),
            }
        })
    }

    fn check(lock: &Value) -> Result<VerifiedLock, String> {
        verify_lockfile(&lock.to_string(), &plan(), &reg())
    }

    fn rejects(change: impl FnOnce(&mut Value), says: &str) {
        let mut lock = good();
        change(&mut lock);
        let err = check(&lock).unwrap_err();
        assert!(err.contains(says), "expected {says:?} in: {err}");
    }

    #[test]
    fn inst_13_a_clean_lockfile_passes() {
        assert_eq!(check(&good()), Ok(VerifiedLock { packages: 3 }));
    }

    #[test]
    fn inst_13_every_entry_from_the_registry_with_sha512() {
        let dep = "/packages/node_modules~1@s~1dep";
        rejects(
            |l| {
                *l.pointer_mut(&format!("{dep}/resolved")).unwrap() =
                    json!("https://evil.example/@s/dep/-/dep-2.1.0.tgz")
            },
            "\"node_modules/@s/dep\" comes from https://evil.example",
        );
        rejects(
            |l| {
                l.pointer_mut(dep)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("resolved")
                    .map(|_| ())
                    .unwrap()
            },
            "\"node_modules/@s/dep\" has no \"resolved\"",
        );
        rejects(
            |l| {
                l.pointer_mut(dep)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("integrity")
                    .map(|_| ())
                    .unwrap()
            },
            "has no integrity",
        );
        rejects(
            |l| {
                *l.pointer_mut(&format!("{dep}/integrity")).unwrap() =
                    json!("sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=")
            },
            "only sha512",
        );
        rejects(
            |l| {
                *l.pointer_mut(&format!("{dep}/integrity")).unwrap() =
                    json!(format!("{SHA} sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk="))
            },
            "only sha512",
        );
        for malformed in [
            "sha512-short==".to_owned(),
            // The right length, but no padding, or a character outside base64.
            format!("sha512-{}", "A".repeat(88)),
            format!("sha512-{}!A==", "A".repeat(85)),
        ] {
            rejects(
                |l| *l.pointer_mut(&format!("{dep}/integrity")).unwrap() = json!(malformed),
                "malformed",
            );
        }
        rejects(
            |l| {
                *l.pointer_mut(&format!("{dep}/resolved")).unwrap() =
                    json!("https://registry.npmjs.org/other/-/other-2.1.0.tgz")
            },
            "not the registry's tarball",
        );
    }

    #[test]
    fn inst_14_git_tarball_file_link_and_directory_are_refused_by_name() {
        let dep = "/packages/node_modules~1@s~1dep";
        rejects(
            |l| {
                *l.pointer_mut(&format!("{dep}/resolved")).unwrap() =
                    json!("git+ssh://git@github.com/s/dep.git#0123456789abcdef")
            },
            "\"node_modules/@s/dep\" is a git dependency",
        );
        rejects(
            |l| *l.pointer_mut(&format!("{dep}/resolved")).unwrap() = json!("file:../dep"),
            "local file or folder",
        );
        rejects(
            |l| {
                l.pointer_mut(dep)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert("link".into(), json!(true));
            },
            "\"node_modules/@s/dep\" is a link",
        );
        rejects(
            |l| {
                l.pointer_mut("/packages")
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert("../outside".into(), json!({"version": "1.0.0"}));
            },
            "\"../outside\" is a local folder package",
        );
        rejects(
            |l| {
                l.pointer_mut("/packages")
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert("packages/ws/node_modules/x".into(), entry("x", "1.0.0"));
            },
            "is a local folder package",
        );
        rejects(
            |l| {
                l.pointer_mut(dep)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert("inBundle".into(), json!(true));
            },
            "is a bundled dependency",
        );
        for (spec, says) in [
            ("https://evil.example/x.tgz", "through a tarball URL"),
            ("http://127.0.0.1:1/files/x.tgz", "through a tarball URL"),
            ("git+https://github.com/a/b.git", "through a git dependency"),
            ("github:a/b", "through a git dependency"),
            ("a/b#main", "through a git dependency (GitHub shorthand)"),
            ("gitlab:a/b", "through a git dependency"),
            ("bitbucket:a/b", "through a git dependency"),
            ("gist:11081aaa", "through a git dependency"),
            ("link:../x", "through a local file"),
            ("/abs/x", "through a local file"),
            ("~/x", "through a local file"),
            ("file:../x", "through a local file"),
            ("../x", "through a local file"),
            ("./x", "through a local file"),
            (".\\x", "through a local file"),
            ("C:\\x", "through a local file"),
            ("c:/x", "through a local file"),
            ("\\\\server\\x", "through a local file"),
            ("~\\x", "through a local file"),
            ("git://github.com/a/b.git", "through a git dependency"),
            ("GIT+SSH://git@host/a.git", "through a git dependency"),
            (
                "ssh://git@host/a.git",
                "through a URL of a kind npm fetches from outside",
            ),
            (
                "npm:git+https://h/a.git",
                "through a npm: alias that names no registry package",
            ),
            ("npm:@s/dep@github:a/b", "through a git dependency"),
            ("npm:@s/dep@file:../x", "through a local file"),
            ("a/b", "through a git dependency (GitHub shorthand)"),
            ("1.0.0#x", "through a spec that is no version range"),
            ("1.0.0 && 2", "through a spec that is no version range"),
        ] {
            rejects(
                |l| {
                    *l.pointer_mut("/packages/node_modules~1srv/dependencies/@s~1dep")
                        .unwrap() = json!(spec);
                },
                &format!("\"node_modules/srv\" depends on @s/dep {says}"),
            );
        }
        let mut alias = good();
        *alias
            .pointer_mut("/packages/node_modules~1srv/dependencies/@s~1dep")
            .unwrap() = json!("npm:@s/dep@2.0.0");
        assert!(check(&alias).is_ok());
    }

    #[test]
    fn inst_14_every_range_and_tag_npm_writes_is_the_registry() {
        for spec in [
            "1.2.3",
            "=1.2.3",
            "v1.2.3",
            "~2.0.0",
            "~ 2.0",
            "~1",
            "~",
            "^1.2.3",
            "^0.0.1-rc.1",
            ">=1.0.0 <2.0.0",
            ">= 2.1.2 < 3.0.0",
            "<=1 || >3",
            "^4 || ^5.0.0-0",
            "18 || 20 || >=22",
            "1.2.3 - 2.3.4",
            "1.x",
            "1.2.X",
            "*",
            "x",
            "",
            " ",
            "latest",
            "next",
            "beta_2",
            "1.0.0+build.1",
            "npm:@s/dep@2.0.0",
            "npm:@s/dep@^2 || ~3",
            "npm:dep",
            "npm:@s/dep",
            "npm:dep@latest",
        ] {
            assert_eq!(non_registry_spec(spec), None, "{spec:?}");
        }
    }

    #[test]
    fn inst_13_the_root_is_exactly_the_plan() {
        rejects(
            |l| *l.pointer_mut("/packages//dependencies").unwrap() = json!({"srv": "^1.0.0"}),
            "not exactly srv@1.0.0",
        );
        rejects(
            |l| {
                *l.pointer_mut("/packages//dependencies").unwrap() =
                    json!({"srv": "1.0.0", "x": "1.0.0"})
            },
            "not exactly srv@1.0.0",
        );
        rejects(
            |l| {
                l.pointer_mut("/packages/")
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert("devDependencies".into(), json!({"x": "1.0.0"}));
            },
            "root has devDependencies",
        );
        rejects(
            |l| {
                *l.pointer_mut("/packages/node_modules~1srv/version")
                    .unwrap() = json!("1.0.1")
            },
            "\"node_modules/srv\"",
        );
        rejects(
            |l| *l.pointer_mut("/lockfileVersion").unwrap() = json!(1),
            "lockfileVersion",
        );
        rejects(
            |l| {
                l.as_object_mut()
                    .unwrap()
                    .remove("packages")
                    .map(|_| ())
                    .unwrap()
            },
            "no \"packages\"",
        );
        let err = verify_lockfile("{", &plan(), &reg()).unwrap_err();
        assert!(err.contains("not JSON"), "{err}");
        let mut missing = good();
        missing
            .pointer_mut("/packages")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("node_modules/srv");
        let err = check(&missing).unwrap_err();
        assert!(
            err.contains("\"node_modules/srv\" has version None"),
            "{err}"
        );
    }

    #[test]
    fn inst_13_the_package_count_is_capped() {
        let mut lock = good();
        let packages = lock
            .pointer_mut("/packages")
            .unwrap()
            .as_object_mut()
            .unwrap();
        // good() locks 3 packages; fill up to exactly the cap.
        for i in 3..MAX_LOCKED_PACKAGES {
            packages.insert(
                format!("node_modules/p{i}"),
                entry(&format!("p{i}"), "1.0.0"),
            );
        }
        assert_eq!(
            check(&lock),
            Ok(VerifiedLock {
                packages: MAX_LOCKED_PACKAGES
            })
        );
        let packages = lock
            .pointer_mut("/packages")
            .unwrap()
            .as_object_mut()
            .unwrap();
        packages.insert("node_modules/one-more".into(), entry("one-more", "1.0.0"));
        assert!(check(&lock).unwrap_err().contains("at most 2000"));
    }

    #[test]
    fn inst_13_empty_root_sections_are_fine() {
        for (key, empty) in [
            ("devDependencies", json!({})),
            ("workspaces", json!([])),
            ("bundleDependencies", json!(false)),
            ("optionalDependencies", json!(null)),
        ] {
            let mut lock = good();
            lock.pointer_mut("/packages/")
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert(key.into(), empty);
            assert!(check(&lock).is_ok(), "{key}");
        }
        for (key, full) in [
            ("workspaces", json!(["packages/*"])),
            ("bundleDependencies", json!(true)),
            ("peerDependencies", json!({"x": "1"})),
        ] {
            let mut lock = good();
            lock.pointer_mut("/packages/")
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert(key.into(), full);
            assert!(
                check(&lock)
                    .unwrap_err()
                    .contains(&format!("root has {key}")),
                "{key}"
            );
        }
    }
}

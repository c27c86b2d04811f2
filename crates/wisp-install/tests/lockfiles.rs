//! The lockfile check against the real `package-lock.json` of the four reference MCP servers,
//! as Wisp's step 1 wrote them (the root package `wisp-mcp-install`, the one planned
//! dependency, npm's own ranges such as `~2.0.0` and `^4 || ^5.0.0-0` in the tree), recorded
//! from registry.npmjs.org into `tests/data/lockfiles/`. Each passes; hostile variants of
//! them — one dependency moved to git, a tarball URL, a local path or link, a tarball on
//! another host, a missing or sha1 integrity — fail, naming the entry and the reason.

use std::path::PathBuf;

use serde_json::{Value, json};
use wisp_install::{InstallPlan, Registry, verify_lockfile};

/// The recorded packages: (name, version, bin, locked packages).
const SERVERS: &[(&str, &str, &str, usize)] = &[
    (
        "@modelcontextprotocol/server-everything",
        "2026.8.31",
        "mcp-server-everything",
        111,
    ),
    (
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        "mcp-server-memory",
        99,
    ),
    (
        "@modelcontextprotocol/server-filesystem",
        "2026.8.31",
        "mcp-server-filesystem",
        107,
    ),
    (
        "@modelcontextprotocol/server-sequential-thinking",
        "2026.8.31",
        "mcp-server-sequential-thinking",
        116,
    ),
];

fn fixture(name: &str, version: &str) -> Value {
    let bare = name.rsplit('/').next().unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lockfiles")
        .join(format!("{bare}-{version}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn public() -> Registry {
    Registry::public().unwrap()
}

fn check(lock: &Value, plan: &InstallPlan) -> Result<usize, String> {
    verify_lockfile(&lock.to_string(), plan, &public()).map(|v| v.packages)
}

#[test]
fn inst_13_the_real_lockfiles_of_the_reference_servers_pass() {
    for &(name, version, bin, packages) in SERVERS {
        let plan = InstallPlan::new(name, version, bin, vec![]).unwrap();
        let lock = fixture(name, version);
        // The root is what Wisp's step 1 writes: package.json `wisp-mcp-install` with the one
        // planned dependency, saved exact.
        assert_eq!(lock["packages"][""]["name"], "wisp-mcp-install");
        assert_eq!(lock["packages"][""]["dependencies"][name], version);
        assert_eq!(check(&lock, &plan), Ok(packages), "{name}");
    }
}

#[test]
fn inst_13_the_fixtures_hold_npm_s_tilde_and_or_ranges() {
    // What the old check took for home-folder paths; the fixtures must keep exercising it.
    let text = SERVERS
        .iter()
        .map(|&(n, v, _, _)| fixture(n, v).to_string())
        .collect::<String>();
    for range in ["\"~2.0.0\"", "\"^4 || ^5.0.0-0\"", "\">= 2.1.2 < 3.0.0\""] {
        assert!(text.contains(range), "{range}");
    }
}

/// A nested dependency of express in every fixture, and the package that depends on it.
const DEPENDENT: &str = "node_modules/http-errors";
const DEP: &str = "depd";

fn hostile(change: impl Fn(&mut Value), says: &[&str]) {
    for &(name, version, bin, _) in SERVERS {
        let plan = InstallPlan::new(name, version, bin, vec![]).unwrap();
        let mut lock = fixture(name, version);
        change(&mut lock);
        let err = check(&lock, &plan).unwrap_err();
        for s in says {
            assert!(err.contains(s), "{name}: expected {s:?} in: {err}");
        }
    }
}

fn entry<'a>(lock: &'a mut Value, key: &str) -> &'a mut serde_json::Map<String, Value> {
    lock["packages"][key].as_object_mut().unwrap()
}

#[test]
fn inst_14_a_dependency_moved_off_the_registry_is_refused_naming_it() {
    for (spec, kind) in [
        (
            "git+https://github.com/dougwilson/nodejs-depd.git",
            "git dependency",
        ),
        ("github:dougwilson/nodejs-depd", "git dependency"),
        (
            "dougwilson/nodejs-depd#v2.0.0",
            "git dependency (GitHub shorthand)",
        ),
        ("https://127.0.0.1:9/depd.tgz", "tarball URL"),
        ("file:../depd", "local file or folder"),
        ("link:../depd", "local file or folder"),
        ("../depd", "local file or folder"),
        ("~/depd", "local file or folder"),
        ("/srv/depd", "local file or folder"),
    ] {
        hostile(
            |lock| {
                entry(lock, DEPENDENT)["dependencies"][DEP] = json!(spec);
            },
            &[
                &format!("lockfile entry \"{DEPENDENT}\" depends on {DEP} through a {kind}"),
                spec,
            ],
        );
    }
}

#[test]
fn inst_13_a_locked_package_from_elsewhere_or_without_sha512_is_refused() {
    let key = "node_modules/depd";
    hostile(
        |lock| {
            entry(lock, key)["resolved"] = json!("https://evil.example/depd/-/depd-2.0.0.tgz");
        },
        &["\"node_modules/depd\" comes from https://evil.example"],
    );
    hostile(
        |lock| {
            entry(lock, key)["resolved"] = json!("git+ssh://git@github.com/dougwilson/depd.git");
        },
        &["\"node_modules/depd\" is a git dependency"],
    );
    hostile(
        |lock| {
            entry(lock, key)["resolved"] = json!("file:../depd");
        },
        &["\"node_modules/depd\" is a local file or folder dependency"],
    );
    hostile(
        |lock| {
            entry(lock, key).insert("link".into(), json!(true));
        },
        &["\"node_modules/depd\" is a link"],
    );
    hostile(
        |lock| {
            entry(lock, key).remove("integrity");
        },
        &["\"node_modules/depd\" has no integrity"],
    );
    hostile(
        |lock| {
            entry(lock, key)["integrity"] = json!("sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
        },
        &["\"node_modules/depd\"", "only sha512"],
    );
}

//! What the registry says about one exact version, read before anything is downloaded or any
//! approval is asked: the version's own document (`GET <registry>/<name>/<version>`) for its
//! bins, description, license, repository, dependencies, tarball integrity and install
//! scripts, and the package's document (`GET <registry>/<name>`) for the version's publish
//! time. The full package document is used for the time because the abbreviated one npm
//! installs from carries only the package's `modified`, not each version's `time`; it is read
//! up to [`MAX_PACKUMENT_BYTES`], and a larger one leaves the time unknown rather than
//! refusing the package.
//!
//! Only the configured [`Registry`](crate::Registry) is asked, the way npm reaches it
//! ([`RegistryClient`]: the install's filtering proxy, the machine's CA bundle, the person's
//! proxy); a redirect is followed only to the registry's own origin, no credentials are sent,
//! and each request gives up after [`METADATA_TIMEOUT`].

use serde::Serialize;
use serde_json::Value;

use crate::InstallError;
use crate::install::InstallConfig;
use crate::limits::{MAX_JSON_FILE_BYTES, MAX_PACKUMENT_BYTES, METADATA_TIMEOUT};
use crate::net::RegistryClient;
use crate::plan::InstallPlan;

/// What a person needs to judge a package version, from the registry's documents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageFacts {
    /// The version's `description`, if any.
    pub description: Option<String>,
    /// The version's `license` (an SPDX expression, or `type` of the old object form).
    pub license: Option<String>,
    /// The version's repository URL.
    pub repository: Option<String>,
    /// When the version was published (`time[version]` of the package document), if known.
    pub published: Option<String>,
    /// Direct `dependencies` and `optionalDependencies` of the version.
    pub dependencies: usize,
    /// The tarball's `dist.integrity`.
    pub integrity: Option<String>,
    /// The install scripts it declares (`preinstall`, `install`, `postinstall`, or
    /// `hasInstallScript`): they stay off, npm runs with `--ignore-scripts`.
    pub install_scripts: Vec<String>,
    /// Its bin names (a string `bin` is named after the package without its scope).
    pub bins: Vec<String>,
}

/// Asks the registry about the plan's exact version, then checks its bin.
pub async fn fetch_facts(
    config: &InstallConfig,
    plan: &InstallPlan,
) -> Result<PackageFacts, InstallError> {
    let registry = &config.registry;
    // Kept alive for both requests: its proxy stops when it is dropped.
    let reach = RegistryClient::start(registry, &config.net, METADATA_TIMEOUT).await?;
    let client = &reach.client;
    let name = escaped_name(plan.package());
    let version_url = format!("{}{name}/{}", registry.as_str(), plan.version());
    let doc = get_json(client, &version_url, MAX_JSON_FILE_BYTES, plan)
        .await?
        .ok_or_else(|| {
            InstallError::Metadata(format!(
                "the registry's document of {} is larger than {MAX_JSON_FILE_BYTES} bytes",
                plan.spec()
            ))
        })?;
    // The bin first: a wrong one needs no second request.
    let mut facts = facts_of(&doc, None, plan).map_err(InstallError::Metadata)?;
    facts.check_bin(plan).map_err(InstallError::Metadata)?;
    let package_url = format!("{}{name}", registry.as_str());
    // Too large to read for one date: the time stays unknown.
    facts.published = get_json(client, &package_url, MAX_PACKUMENT_BYTES, plan)
        .await?
        .and_then(|packument| {
            packument
                .get("time")
                .and_then(|t| t.get(plan.version()))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    Ok(facts)
}

/// `@scope/name` as npm asks for it: `@scope%2fname`.
fn escaped_name(name: &str) -> String {
    name.replacen('/', "%2f", 1)
}

/// The body as JSON, `None` when it is larger than `cap`. A 404 says the version does not
/// exist.
async fn get_json(
    client: &reqwest::Client,
    url: &str,
    cap: u64,
    plan: &InstallPlan,
) -> Result<Option<Value>, InstallError> {
    let failed = |why: String| InstallError::Metadata(format!("GET {url}: {why}"));
    let mut response = client
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| failed(describe(&e)))?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Err(InstallError::Metadata(format!(
            "the registry has no {} (404 for {url}); check the package name and the exact version",
            plan.spec()
        )));
    }
    if !status.is_success() {
        return Err(failed(format!("the registry answered {status}")));
    }
    if response.content_length().is_some_and(|n| n > cap) {
        return Ok(None);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(describe(&e)))? {
        if body.len() as u64 + chunk.len() as u64 > cap {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| failed(format!("the answer is not JSON ({e})")))
}

/// reqwest's error with its causes (a redirect refusal, a timeout), in one line.
fn describe(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        format!("no answer within {:?}", METADATA_TIMEOUT)
    } else {
        e.to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The facts of a version document; it must be the planned package and version.
pub fn facts_of(
    doc: &Value,
    published: Option<String>,
    plan: &InstallPlan,
) -> Result<PackageFacts, String> {
    let field = |k: &str| doc.get(k).and_then(Value::as_str);
    if field("name") != Some(plan.package()) || field("version") != Some(plan.version()) {
        return Err(format!(
            "the registry's document is of {}@{}, not of {}",
            field("name").unwrap_or("?"),
            field("version").unwrap_or("?"),
            plan.spec()
        ));
    }
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let license = match doc.get("license") {
        Some(Value::Object(o)) => text(o.get("type")),
        other => text(other),
    };
    let repository = match doc.get("repository") {
        Some(Value::Object(o)) => text(o.get("url")),
        other => text(other),
    };
    let count = |k: &str| doc.get(k).and_then(Value::as_object).map_or(0, |m| m.len());
    let mut install_scripts: Vec<String> = ["preinstall", "install", "postinstall"]
        .into_iter()
        .filter(|s| {
            doc.pointer(&format!("/scripts/{s}"))
                .and_then(Value::as_str)
                .is_some_and(|v| !v.trim().is_empty())
        })
        .map(str::to_owned)
        .collect();
    if install_scripts.is_empty() && doc.get("hasInstallScript") == Some(&Value::Bool(true)) {
        install_scripts.push("hasInstallScript".into());
    }
    let unscoped = plan.package().rsplit('/').next().unwrap_or(plan.package());
    let bins = match doc.get("bin") {
        Some(Value::String(_)) => vec![unscoped.to_owned()],
        Some(Value::Object(bins)) => bins.keys().cloned().collect(),
        _ => Vec::new(),
    };
    Ok(PackageFacts {
        description: text(doc.get("description")),
        license,
        repository,
        published,
        dependencies: count("dependencies") + count("optionalDependencies"),
        integrity: text(doc.pointer("/dist/integrity")),
        install_scripts,
        bins,
    })
}

impl PackageFacts {
    /// The planned bin is one of the version's bins; else the error lists them.
    pub fn check_bin(&self, plan: &InstallPlan) -> Result<(), String> {
        if self.bins.iter().any(|b| b == plan.bin()) {
            return Ok(());
        }
        if self.bins.is_empty() {
            return Err(format!(
                "{} declares no bin, so it has no program to run; nothing was downloaded",
                plan.spec()
            ));
        }
        Err(format!(
            "{} has no bin named {:?}; its bins are [{}]. Nothing was downloaded; ask again with one of them",
            plan.spec(),
            plan.bin(),
            self.bins.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(bin: &str) -> InstallPlan {
        InstallPlan::new(
            "@modelcontextprotocol/server-everything",
            "2026.8.31",
            bin,
            vec![],
        )
        .unwrap()
    }

    fn recorded() -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/versions/server-everything-2026.8.31.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn the_facts_of_a_real_version_document() {
        let facts = facts_of(
            &recorded(),
            Some("2026-09-01T22:46:36.382Z".into()),
            &plan("mcp-server-everything"),
        )
        .unwrap();
        assert_eq!(
            facts.description.as_deref(),
            Some("MCP server that exercises all the features of the MCP protocol")
        );
        assert_eq!(facts.license.as_deref(), Some("SEE LICENSE IN LICENSE"));
        assert_eq!(
            facts.repository.as_deref(),
            Some("https://github.com/modelcontextprotocol/servers.git")
        );
        assert_eq!(facts.dependencies, 5);
        assert!(facts.integrity.unwrap().starts_with("sha512-5U3OZh8X"));
        // `prepare` and `build` are not install scripts: npm runs neither when installing.
        assert!(facts.install_scripts.is_empty());
        assert_eq!(facts.bins, ["mcp-server-everything"]);
    }

    #[test]
    fn a_wrong_bin_is_refused_listing_the_bins() {
        let facts = facts_of(&recorded(), None, &plan("everything")).unwrap();
        let err = facts.check_bin(&plan("everything")).unwrap_err();
        assert!(
            err.contains("no bin named \"everything\"")
                && err.contains("[mcp-server-everything]")
                && err.contains("Nothing was downloaded"),
            "{err}"
        );
        assert!(facts.check_bin(&plan("mcp-server-everything")).is_ok());
        let mut doc = recorded();
        doc.as_object_mut().unwrap().remove("bin");
        let facts = facts_of(&doc, None, &plan("x")).unwrap();
        assert!(
            facts
                .check_bin(&plan("x"))
                .unwrap_err()
                .contains("declares no bin")
        );
        doc["bin"] = json!("dist/index.js");
        let facts = facts_of(&doc, None, &plan("server-everything")).unwrap();
        assert_eq!(facts.bins, ["server-everything"]);
    }

    #[test]
    fn install_scripts_and_old_field_forms_are_read() {
        let mut doc = recorded();
        doc["scripts"]["postinstall"] = json!("node fetch-binary.js");
        doc["scripts"]["preinstall"] = json!("  ");
        doc["license"] = json!({"type": "MIT", "url": "x"});
        doc["repository"] = json!("github:a/b");
        doc["optionalDependencies"] = json!({"fsevents": "^2"});
        let facts = facts_of(&doc, None, &plan("mcp-server-everything")).unwrap();
        assert_eq!(facts.install_scripts, ["postinstall"]);
        assert_eq!(facts.license.as_deref(), Some("MIT"));
        assert_eq!(facts.repository.as_deref(), Some("github:a/b"));
        assert_eq!(facts.dependencies, 6);
        let mut doc = recorded();
        doc["hasInstallScript"] = json!(true);
        let facts = facts_of(&doc, None, &plan("mcp-server-everything")).unwrap();
        assert_eq!(facts.install_scripts, ["hasInstallScript"]);
    }

    #[test]
    fn a_document_of_another_package_or_version_is_refused() {
        let mut doc = recorded();
        doc["version"] = json!("2026.8.30");
        let err = facts_of(&doc, None, &plan("mcp-server-everything")).unwrap_err();
        assert!(
            err.contains("not of @modelcontextprotocol/server-everything@2026.8.31"),
            "{err}"
        );
    }

    #[test]
    fn scoped_names_are_escaped_as_npm_does() {
        assert_eq!(escaped_name("@a/b"), "@a%2fb");
        assert_eq!(escaped_name("plain"), "plain");
    }
}

//! The install tools (INST-01..21): `mcp_list_services`, `mcp_register`,
//! `mcp_install_npm` and `mcp_activate_service`. Every step that changes something is its own
//! approval: registering saves a disabled config, installing runs the pinned npm procedure of
//! `wisp-install` and then saves a disabled config, and activating starts the program through
//! the Host's local MCP (the same path as Settings → Local MCP → Activate).
//!
//! Before an install's card, the registry's document of that exact version is read (a wrong
//! bin is refused there, and the card shows what the registry says of the package). An
//! unfinished earlier attempt is never retried by itself: the model is told to ask again with
//! `cleanUp: true`, whose own approval deletes that directory first (INST-18).
//!
//! None of them takes or shows a secret's value (INST-07): they name variables only and send
//! the person to Settings → Local MCP. Install notes and page text are reference material only
//! (INST-02): nothing runs that the person did not approve with its exact arguments.

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wisp_protocol as p;

use super::parse_args;
use crate::mcp::McpConfigs;
use crate::tool::{Binding, BoxFuture, Execute, Prepared, Subject, Tool, ToolCtx, ToolRef};

pub(super) fn tools() -> Vec<ToolRef> {
    vec![
        Arc::new(ListServices),
        Arc::new(Register),
        Arc::new(InstallNpm),
        Arc::new(Activate),
    ]
}

struct ListServices;
struct Register;
struct InstallNpm;
struct Activate;

/// What every result says about secrets (INST-07).
const SECRETS_NOTE: &str = "If the server needs secrets (API keys, tokens), the person enters them in Settings → Local MCP → Edit → Environment variables. Never ask for them in the chat, in arguments or in install notes.";

/// Characters of a derived config name.
const MAX_DERIVED_NAME_CHARS: usize = 60;

fn not_available(e: crate::CoreError) -> String {
    format!("local MCP servers are not available in this Host ({e})")
}

/// Digest of a config as saved (INST-21): everything an activation would run, and its
/// variable names. A change to any of it makes an activation approval stale.
fn config_digest(s: &p::McpServer) -> String {
    let env: Vec<Value> = s
        .env
        .iter()
        .map(|v| json!({"name": v.name, "storage": v.storage}))
        .collect();
    let bound = json!({
        "id": s.id,
        "name": s.name,
        "command": s.command,
        "args": s.args,
        "cwd": s.cwd,
        "env": env,
    });
    hex::encode(Sha256::digest(super::canonical(&bound).as_bytes()))
}

fn find_server(configs: &McpConfigs, id: &str) -> Option<p::McpServer> {
    configs.servers().into_iter().find(|s| s.id == id)
}

fn variable_names(s: &p::McpServer) -> Vec<String> {
    s.env.iter().map(|v| v.name.clone()).collect()
}

/// A config that already runs exactly this program.
fn same_program(
    configs: &McpConfigs,
    command: &str,
    args: &[String],
    cwd: Option<&str>,
) -> Option<p::McpServer> {
    configs
        .servers()
        .into_iter()
        .find(|s| s.command == command && s.args == args && s.cwd.as_deref() == cwd)
}

/// Saves a disabled config for an approved register or install (never started here).
async fn save_disabled(
    configs: &McpConfigs,
    name: String,
    command: String,
    args: Vec<String>,
    cwd: Option<String>,
) -> Result<(p::McpServer, bool), String> {
    if let Some(existing) = same_program(configs, &command, &args, cwd.as_deref()) {
        return Ok((existing, false));
    }
    let draft = p::McpServerDraft {
        name,
        command,
        args,
        cwd,
        env: None,
        call_limit_secs: None,
    };
    configs
        .add(draft)
        .await
        .map(|s| (s, true))
        .map_err(|e| format!("the config could not be saved: {e}"))
}

fn next_steps(server: &p::McpServer) -> String {
    format!(
        "The config \"{}\" (id {}) is saved DISABLED: nothing was started. To start it, call mcp_activate_service with this id; that is a separate approval. {SECRETS_NOTE}",
        server.name, server.id
    )
}

fn basename(path: &str) -> &str {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

/// A config name for a registered program: its file name, or for a script runtime
/// (`node server.js`) the script's.
fn derived_name(command: &str, args: &[String]) -> String {
    let program = basename(command);
    let runtimes = [
        "node", "nodejs", "python", "python3", "deno", "bun", "ruby", "java",
    ];
    let name = match args.first() {
        Some(script) if runtimes.contains(&program) && !script.starts_with('-') => {
            format!("{} ({program})", basename(script))
        }
        _ => program.to_owned(),
    };
    name.chars().take(MAX_DERIVED_NAME_CHARS).collect()
}

impl Tool for ListServices {
    fn info(&self) -> p::ToolInfo {
        p::ToolInfo {
            name: "mcp_list_services".into(),
            description: "List the local MCP server configs: id, name, status (disabled, starting, active, failed), the names of their environment variables (never values) and the tools of active ones. Takes exactly {}. Use the id with mcp_activate_service.".into(),
            input_schema: json!({"type": "object", "properties": {}, "additionalProperties": false}),
            requires_approval: false,
            mcp: None,
        }
    }

    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared {
        if args != json!({}) {
            return Prepared::Done(Err("mcp_list_services takes exactly {}".into()));
        }
        let configs = &ctx.caps.mcp_configs;
        if let Err(e) = configs.data_dir() {
            return Prepared::Done(Err(not_available(e)));
        }
        let services: Vec<Value> = configs
            .servers()
            .iter()
            .map(|s| {
                json!({
                    "id": s.id,
                    "name": s.name,
                    "status": s.status,
                    "error": s.error,
                    "variables": variable_names(s),
                    "tools": s.tools.iter().map(|t| t.original_name.clone()).collect::<Vec<_>>(),
                })
            })
            .collect();
        Prepared::Done(Ok(json!({
            "services": services,
            "note": SECRETS_NOTE,
        })))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegisterArgs {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    cwd: Option<String>,
}

impl Tool for Register {
    fn info(&self) -> p::ToolInfo {
        p::ToolInfo {
            name: "mcp_register".into(),
            description: "Register an MCP server program that is ALREADY installed on this machine, as a disabled local MCP config. command: the absolute path of the program (not a shell, not a package runner such as npx or uvx); args: the argument array (no secrets); cwd: an optional absolute working directory. Waits for the person's approval; approving only saves a disabled config — nothing is installed or started. Activate it afterwards with mcp_activate_service.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "Absolute path of the installed program."},
                    "args": {"type": "array", "items": {"type": "string"}, "description": "Startup arguments, one item each; no secrets."},
                    "cwd": {"type": "string", "description": "Optional absolute working directory."}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
            requires_approval: true,
            mcp: None,
        }
    }

    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared {
        let a: RegisterArgs = match parse_args("mcp_register", &args) {
            Ok(a) => a,
            Err(e) => return Prepared::Done(Err(e)),
        };
        let configs = &ctx.caps.mcp_configs;
        if let Err(e) = configs.data_dir() {
            return Prepared::Done(Err(not_available(e)));
        }
        let checked = match wisp_install::check_register(&a.command, a.args, a.cwd.as_deref()) {
            Ok(c) => c,
            Err(e) => return Prepared::Done(Err(format!("{e}; nothing was registered"))),
        };
        let command = checked.command.to_string_lossy().into_owned();
        let cwd = checked.cwd.map(|c| c.to_string_lossy().into_owned());
        let args = checked.args;
        if let Some(existing) = same_program(configs, &command, &args, cwd.as_deref()) {
            return Prepared::Done(Err(format!(
                "this program is already registered as \"{}\" (id {}, {:?}); nothing was registered. Use mcp_activate_service with that id to start it",
                existing.name, existing.id, existing.status
            )));
        }
        let name = derived_name(&command, &args);
        let shown = json!({
            "name": name,
            "command": command,
            "args": args,
            "cwd": cwd,
            "impact": "Saves a DISABLED local MCP config that would run this program with these arguments. Nothing is installed, downloaded or started now; starting it is a separate approval (mcp_activate_service).",
        });
        let configs = configs.clone();
        let run = Box::new(move |_cancel: BoxFuture<()>| {
            Box::pin(async move {
                let (server, added) = save_disabled(&configs, name, command, args, cwd).await?;
                Ok(json!({
                    "status": if added { "registered" } else { "already_registered" },
                    "id": server.id,
                    "name": server.name,
                    "enabled": false,
                    "message": format!("Registered only: nothing was installed or run. {}", next_steps(&server)),
                }))
            }) as BoxFuture<Result<Value, String>>
        });
        Prepared::Approval(Subject {
            arguments: shown,
            execute: Execute::Async(run),
            binding: None,
            unchanged: "nothing was registered",
            alternative: None,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InstallArgs {
    package: String,
    version: String,
    bin: String,
    #[serde(default)]
    args: Vec<String>,
    /// Delete this plan's unfinished install directory first (its own approval).
    #[serde(default, rename = "cleanUp")]
    clean_up: bool,
}

impl Tool for InstallNpm {
    fn info(&self) -> p::ToolInfo {
        p::ToolInfo {
            name: "mcp_install_npm".into(),
            description: "Install an MCP server published on the public npm registry, pinned, into Wisp's own folder, and register it as a disabled local MCP config. package: the full package name (e.g. @scope/server); version: one exact version such as 1.2.3 (no ranges, no tags like latest); bin: the JavaScript bin of the package to run; args: non-secret startup arguments. Waits for the person's approval, which shows the source, the folder and the impact. npm runs with install scripts disabled and its own empty config; every locked package must come from the registry with sha512 integrity. Installs run one at a time, at most 180 s. Before the card, Wisp reads the registry's document of that exact version: a bin the package does not have is refused, listing its bins. Activate the result with mcp_activate_service (its own approval). Take package, version and bin from what the person gave you, never guess them. cleanUp: true only after an earlier attempt of the same install did not finish and its result said so: the approval then also deletes that unfinished install folder first; nothing is ever retried without it.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "package": {"type": "string", "description": "Full npm package name."},
                    "version": {"type": "string", "description": "Exact version, e.g. 1.2.3."},
                    "bin": {"type": "string", "description": "The package's JavaScript bin to run."},
                    "args": {"type": "array", "items": {"type": "string"}, "description": "Non-secret startup arguments."},
                    "cleanUp": {"type": "boolean", "description": "Delete the unfinished install folder an earlier failed or cancelled attempt of this same install left, then install again (default false)."}
                },
                "required": ["package", "version", "bin"],
                "additionalProperties": false
            }),
            requires_approval: true,
            mcp: None,
        }
    }

    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared {
        let a: InstallArgs = match parse_args("mcp_install_npm", &args) {
            Ok(a) => a,
            Err(e) => return Prepared::Done(Err(e)),
        };
        let data_dir = match ctx.caps.mcp_configs.data_dir() {
            Ok(d) => d,
            Err(e) => return Prepared::Done(Err(not_available(e))),
        };
        let Some(config) = ctx.caps.npm.clone() else {
            return Prepared::Done(Err(
                "installs are turned off in this Host; install the server by hand and register it with mcp_register".into(),
            ));
        };
        let plan = match wisp_install::InstallPlan::new(&a.package, &a.version, &a.bin, a.args) {
            Ok(p) => p,
            Err(e) => return Prepared::Done(Err(format!("{e}; nothing was installed"))),
        };
        // Missing tools are said before any card is shown (INST-09); the version is checked
        // when the install runs.
        let (Some(node), Some(npm)) = (
            wisp_install::find_tool("node"),
            wisp_install::find_tool("npm"),
        ) else {
            let missing = if wisp_install::find_tool("node").is_none() {
                "Node.js (node)"
            } else {
                "npm"
            };
            return Prepared::Done(Err(format!(
                "{missing} was not found in {}; nothing was installed. Two ways forward: install Node.js {} or newer with npm from the system's packages (so it is in /usr/bin), or install the server by hand and register the installed program with mcp_register",
                wisp_install::TOOL_DIRS.join(", "),
                wisp_install::limits::MIN_NODE_MAJOR
            )));
        };
        let dir = plan.install_dir(&data_dir, &config.registry);
        let already = dir.join(wisp_install::MANIFEST_FILE).exists();
        let unfinished = !already && dir.exists();
        let marked = dir.join(wisp_install::MARKER_FILE).exists();
        if unfinished && wisp_install::install_running() {
            return Prepared::Done(Err(install_failed(&wisp_install::InstallError::Busy, &[])));
        }
        if a.clean_up && already {
            return Prepared::Done(Err(format!(
                "{} is already installed in {}: a finished install is never deleted; call mcp_install_npm without cleanUp to reuse it; nothing was changed",
                plan.spec(),
                dir.display()
            )));
        }
        if a.clean_up && !unfinished {
            return Prepared::Done(Err(format!(
                "there is no unfinished install of {} to clean up ({} does not exist); call mcp_install_npm without cleanUp; nothing was changed",
                plan.spec(),
                dir.display()
            )));
        }
        if unfinished && !marked {
            return Prepared::Done(Err(format!(
                "{} exists but is neither a finished install nor an unfinished one Wisp marked ({} is missing), so Wisp neither uses nor deletes it; nothing was installed. The person can check that folder, or install the server by hand and register it with mcp_register",
                dir.display(),
                wisp_install::MARKER_FILE
            )));
        }
        if unfinished && !a.clean_up {
            return Prepared::Done(Err(unfinished_message(&dir)));
        }
        let mut config = config;
        config.clean_up_unfinished = a.clean_up;
        let source = if config.registry.is_public() {
            format!("the public npm registry ({})", config.registry.as_str())
        } else {
            format!(
                "the registry {} (not the public one: the simulator's, or {} — a testing aid)",
                config.registry.as_str(),
                wisp_install::REGISTRY_ENV
            )
        };
        let clean_up = if a.clean_up {
            format!(
                "FIRST DELETES the unfinished install folder {} and everything in it (left by an earlier attempt of this install that did not finish). ",
                dir.display()
            )
        } else {
            String::new()
        };
        let impact = if already {
            format!(
                "{} is already installed in this folder: npm does not run again; a DISABLED local MCP config that runs its bin \"{}\" with {} is saved (or the existing one reused). Nothing is started.",
                plan.spec(),
                plan.bin(),
                node.display()
            )
        } else {
            format!(
                "{clean_up}Runs npm ({}) twice with fixed arguments and install scripts disabled: first to lock {} and its dependencies (each must come from the source above with sha512 integrity), then npm ci to download them into the install folder. Nothing outside that folder changes: no project or global node_modules. Then saves a DISABLED local MCP config that runs its bin \"{}\" with {}. Nothing is started; activating is a separate approval. At most 180 s; cancel stops npm.",
                npm.display(),
                plan.spec(),
                plan.bin(),
                node.display()
            )
        };
        let mut shown = json!({
            "package": plan.package(),
            "version": plan.version(),
            "spec": plan.spec(),
            "bin": plan.bin(),
            "args": plan.args(),
            "source": source,
            "registry": config.registry.as_str(),
            "publicRegistry": config.registry.is_public(),
            "installDir": dir.to_string_lossy(),
            "alreadyInstalled": already,
            "cleanUp": a.clean_up,
            "node": node.to_string_lossy(),
            "npm": npm.to_string_lossy(),
            "impact": impact,
            "disclosure": "The npm registry does not certify that software is trustworthy: confirm that this is the package you mean and that you trust its publisher.",
        });
        let configs = ctx.caps.mcp_configs.clone();
        let output = ctx.output.clone();
        if already {
            return Prepared::Approval(install_subject(
                shown, configs, output, config, data_dir, plan,
            ));
        }
        // The registry's document of this version, before any card (a wrong bin is said now,
        // not after a download) and for what the card shows.
        Prepared::LookUp(Box::pin(async move {
            let facts = wisp_install::fetch_facts(&config, &plan)
                .await
                .map_err(|e| format!("{e}; nothing was installed"))?;
            if let Value::Object(card) = &mut shown {
                card.extend(facts_card(&facts));
            }
            Ok(install_subject(
                shown, configs, output, config, data_dir, plan,
            ))
        }))
    }
}

/// What the card shows from the registry's document of the version.
fn facts_card(facts: &wisp_install::PackageFacts) -> serde_json::Map<String, Value> {
    let unknown = |v: &Option<String>| json!(v.clone().unwrap_or_else(|| "(not given)".into()));
    let scripts = if facts.install_scripts.is_empty() {
        "It declares no install scripts.".to_owned()
    } else {
        format!(
            "It declares install scripts ({}). They stay OFF: npm runs with --ignore-scripts, so they do not run (a server that needs them may not work).",
            facts.install_scripts.join(", ")
        )
    };
    let mut card = serde_json::Map::new();
    card.insert("description".into(), unknown(&facts.description));
    card.insert("license".into(), unknown(&facts.license));
    card.insert("repository".into(), unknown(&facts.repository));
    card.insert(
        "published".into(),
        json!(
            facts
                .published
                .clone()
                .unwrap_or_else(|| "(unknown)".into())
        ),
    );
    card.insert("dependencies".into(), json!(facts.dependencies));
    card.insert("integrity".into(), unknown(&facts.integrity));
    card.insert("installScripts".into(), json!(facts.install_scripts));
    card.insert("installScriptsNote".into(), json!(scripts));
    card
}

/// Said when an earlier attempt of the plan did not finish: how to retry (INST-18).
fn unfinished_message(dir: &Path) -> String {
    format!(
        "An earlier install of this package with these arguments did not finish and left {}; nothing was installed and nothing is retried automatically. To delete that unfinished folder and install again, call mcp_install_npm again with the same arguments and \"cleanUp\": true — the person approves that separately. Or the person can check the folder, or install the server by hand and register it with mcp_register.",
        dir.display()
    )
}

/// The approval of an install: what the person sees, and the install that runs once approved.
fn install_subject(
    shown: Value,
    configs: McpConfigs,
    output: crate::output::OutputSink,
    config: wisp_install::InstallConfig,
    data_dir: std::path::PathBuf,
    plan: wisp_install::InstallPlan,
) -> Subject {
    let run = Box::new(move |cancel: BoxFuture<()>| {
        Box::pin(async move {
            // npm's latest lines, for a failure that does not carry them itself (a
            // timeout, a refused lockfile, a bin that cannot run).
            let recent = std::sync::Mutex::new(std::collections::VecDeque::new());
            let progress = |p: &wisp_install::Progress| match p {
                wisp_install::Progress::Step { step, pid } => {
                    tracing::info!(%step, ?pid, "install step");
                    // The lockfile check is shown once it has passed, with its count.
                    if *step != wisp_install::Step::Verify {
                        let name = step.to_string();
                        output.step(&name, &name);
                    }
                }
                wisp_install::Progress::Verified { packages } => {
                    output.step(
                        &wisp_install::Step::Verify.to_string(),
                        &verified_line(*packages),
                    );
                }
                wisp_install::Progress::Output { line, .. } => {
                    tracing::debug!(line = %line, "npm");
                    // Only npm's own stdout and stderr reach the person's log: it runs
                    // with an environment built from nothing and no auth (INST-12).
                    output.line(line);
                    let mut recent = recent.lock().unwrap_or_else(|e| e.into_inner());
                    if recent.len() == NPM_TAIL_LINES {
                        recent.pop_front();
                    }
                    recent.push_back(line.clone());
                }
                _ => {}
            };
            let installed =
                match wisp_install::install(&config, &data_dir, &plan, &progress, cancel).await {
                    Ok(s) => s,
                    Err(e) => {
                        let recent = recent.lock().unwrap_or_else(|e| e.into_inner());
                        let lines: Vec<&str> = recent.iter().map(String::as_str).collect();
                        return Err(install_failed(&e, &lines));
                    }
                };
            let command = installed.command.to_string_lossy().into_owned();
            let name = format!("{} {}", plan.package(), plan.version());
            let (server, added) =
                save_disabled(&configs, name, command, installed.args.clone(), None)
                    .await
                    .map_err(|e| {
                        format!(
                            "{} was installed in {}, but {e}",
                            plan.spec(),
                            installed.dir.display()
                        )
                    })?;
            Ok(json!({
                "status": if installed.reused { "already_installed" } else { "installed" },
                "package": plan.spec(),
                "installDir": installed.dir.to_string_lossy(),
                "id": server.id,
                "name": server.name,
                "enabled": false,
                "configSaved": if added { "new" } else { "existing" },
                "npmOutput": npm_tail(&installed.output),
                "message": format!("{} {}. {}", plan.spec(), if installed.reused { "was already installed (npm did not run again)" } else { "was installed" }, next_steps(&server)),
            }))
        }) as BoxFuture<Result<Value, String>>
    });
    Subject {
        arguments: shown,
        execute: Execute::Async(run),
        binding: None,
        unchanged: "nothing was installed",
        alternative: None,
    }
}

/// The lockfile check's line in the live output.
fn verified_line(packages: usize) -> String {
    let noun = if packages == 1 { "package" } else { "packages" };
    format!("{}: {packages} {noun}", wisp_install::Step::Verify)
}

/// Lines of npm's output a result carries (the whole capped log stays in the install's
/// error, which wisp-install already cuts to its last lines).
const NPM_TAIL_LINES: usize = 20;

fn npm_tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    lines[lines.len().saturating_sub(NPM_TAIL_LINES)..].join("\n")
}

/// A failed install, never worded as a success (INST-18), with the ways forward.
/// `npm_lines` are npm's latest output lines (at most [`NPM_TAIL_LINES`]), added unless the
/// error already carries npm's tail.
fn install_failed(e: &wisp_install::InstallError, npm_lines: &[&str]) -> String {
    use wisp_install::InstallError as E;
    let hint = match e {
        E::NodeNotFound(_) | E::Busy | E::Plan(_) | E::Registry(_) | E::Metadata(_) => "",
        E::Unfinished(_) => {
            " To delete the unfinished folder and install again, call mcp_install_npm again with the same arguments and \"cleanUp\": true (the person approves that separately)."
        }
        _ => {
            " Nothing is retried automatically. The attempt left its unfinished install folder; once the cause is dealt with (a network error, a timeout), call mcp_install_npm again with the same arguments and \"cleanUp\": true to delete that folder and install again (the person approves that separately). Or the person can check the folder, or install the server by hand and register it with mcp_register."
        }
    };
    let output = match e {
        E::NpmFailed { .. } => String::new(),
        _ if npm_lines.is_empty() => String::new(),
        _ => format!("\nnpm's last output:\n{}", npm_lines.join("\n")),
    };
    format!("The install did not succeed: {e}.{hint}{output}")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActivateArgs {
    id: String,
}

impl Tool for Activate {
    fn info(&self) -> p::ToolInfo {
        p::ToolInfo {
            name: "mcp_activate_service".into(),
            description: "Start a saved local MCP config by its id (from mcp_list_services, mcp_register or mcp_install_npm): spawns the program, checks the MCP protocol and discovers its tools. Waits for the person's own approval of exactly this config; a config changed since the approval was asked is refused as stale. The new tools can be used from the person's NEXT message, not in this run, and every call of them asks for approval.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"id": {"type": "string", "description": "The config id."}},
                "required": ["id"],
                "additionalProperties": false
            }),
            requires_approval: true,
            mcp: None,
        }
    }

    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared {
        let a: ActivateArgs = match parse_args("mcp_activate_service", &args) {
            Ok(a) => a,
            Err(e) => return Prepared::Done(Err(e)),
        };
        let configs = &ctx.caps.mcp_configs;
        if let Err(e) = configs.data_dir() {
            return Prepared::Done(Err(not_available(e)));
        }
        let Some(server) = find_server(configs, &a.id) else {
            return Prepared::Done(Err(format!(
                "no local MCP config has the id {:?}; mcp_list_services lists them",
                a.id
            )));
        };
        if server.status == p::McpStatus::Active {
            return Prepared::Done(Ok(json!({
                "status": "already_active",
                "id": server.id,
                "tools": server.tools.iter().map(|t| t.original_name.clone()).collect::<Vec<_>>(),
                "message": "This server is already active; its tools are available from the person's next message.",
            })));
        }
        let digest = config_digest(&server);
        let shown = json!({
            "id": server.id,
            "name": server.name,
            "command": server.command,
            "args": server.args,
            "cwd": server.cwd,
            "variables": variable_names(&server),
            "configDigest": digest,
            "impact": "Starts this program as a local MCP server (it runs with your user's rights until it is disabled), checks the MCP protocol and lists its tools. Its tools count from your next message; every call still asks for approval.",
        });
        let mcp = configs.clone();
        let id = server.id.clone();
        let run = Box::new(move |mut cancel: BoxFuture<()>| {
            Box::pin(async move {
                // The approval binds the config as saved (INST-21).
                match find_server(&mcp, &id) {
                    Some(now) if config_digest(&now) == digest => {}
                    Some(_) => return Err(stale(&id)),
                    None => {
                        return Err(format!("the config {id} was deleted; nothing was started"));
                    }
                }
                let server = mcp
                    .activate(&id)
                    .await
                    .map_err(|e| format!("the server was not started: {e}"))?;
                let cancelled = tokio::select! {
                    biased;
                    () = &mut cancel => true,
                    () = std::future::ready(()) => false,
                };
                if cancelled {
                    // The run ended meanwhile: what it started does not stay running.
                    let _ = mcp.disable(&id).await;
                    return Err("cancelled; the server was stopped again".into());
                }
                if server.status != p::McpStatus::Active {
                    let why = server
                        .error
                        .unwrap_or_else(|| "it did not become active".into());
                    return Err(format!(
                        "the server \"{}\" did not start: {why}. It stays disabled. {SECRETS_NOTE}",
                        server.name
                    ));
                }
                let tools: Vec<String> = server
                    .tools
                    .iter()
                    .map(|t| t.original_name.clone())
                    .collect();
                Ok(json!({
                    "status": "active",
                    "id": server.id,
                    "name": server.name,
                    "tools": tools,
                    "message": format!("\"{}\" is active with {} tool(s). They can be used from the person's NEXT message (not in this run); every call asks for approval.", server.name, tools.len()),
                }))
            }) as BoxFuture<Result<Value, String>>
        });
        let watcher = configs.clone();
        let watched = server.id.clone();
        let bound = config_digest(&server);
        let voided = Box::pin(async move {
            loop {
                match find_server(&watcher, &watched) {
                    Some(now) if config_digest(&now) == bound => {}
                    Some(_) => return stale(&watched),
                    None => return format!("the config {watched} was deleted"),
                }
                tokio::time::sleep(crate::limits::MCP_BINDING_POLL).await;
            }
        });
        Prepared::Approval(Subject {
            arguments: shown,
            execute: Execute::Async(run),
            // Void once the config is changed or deleted (INST-21).
            binding: Some(Binding::voided_by(voided)),
            unchanged: "nothing was started",
            alternative: None,
        })
    }
}

fn stale(id: &str) -> String {
    format!(
        "the config {id} changed after this activation was asked (stale approval); nothing was started. Call mcp_activate_service again so the person sees the config as it is now"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_registered_programs() {
        assert_eq!(derived_name("/opt/srv/bin/weather", &[]), "weather");
        assert_eq!(
            derived_name("/usr/bin/node", &["/opt/x/server.js".into()]),
            "server.js (node)"
        );
        assert_eq!(derived_name("/usr/bin/node", &["--inspect".into()]), "node");
        let long = format!("/x/{}", "a".repeat(100));
        assert_eq!(
            derived_name(&long, &[]).chars().count(),
            MAX_DERIVED_NAME_CHARS
        );
    }

    fn server(args: &[&str]) -> p::McpServer {
        p::McpServer {
            id: "s1".into(),
            name: "n".into(),
            command: "/usr/bin/node".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            cwd: None,
            env: vec![],
            enabled: false,
            status: p::McpStatus::Disabled,
            error: None,
            tools: vec![],
            unsupported_tools: vec![],
            protocol_version: None,
            call_limit_secs: 300,
        }
    }

    #[test]
    fn inst_21_the_config_digest_covers_what_runs() {
        let a = server(&["a.js"]);
        assert_eq!(config_digest(&a), config_digest(&a.clone()));
        assert_ne!(config_digest(&a), config_digest(&server(&["b.js"])));
        let mut cwd = a.clone();
        cwd.cwd = Some("/tmp".into());
        assert_ne!(config_digest(&a), config_digest(&cwd));
        // Status is not part of the config: a failed start does not make it stale.
        let mut failed = a.clone();
        failed.status = p::McpStatus::Failed;
        assert_eq!(config_digest(&a), config_digest(&failed));
    }

    #[test]
    fn inst_18_a_failure_says_so_with_npm_s_last_lines_once() {
        use wisp_install::{InstallError, Step};
        let timed_out = InstallError::TimedOut(std::time::Duration::from_secs(180));
        let said = install_failed(&timed_out, &["npm http fetch GET 200 x", "stalled"]);
        assert!(said.starts_with("The install did not succeed"), "{said}");
        assert!(
            said.ends_with("npm's last output:\nnpm http fetch GET 200 x\nstalled"),
            "{said}"
        );
        assert!(said.contains("mcp_register"), "{said}");
        // npm's own failure carries its tail already: not twice.
        let failed = InstallError::NpmFailed {
            step: Step::Ci,
            status: "exit status: 1".into(),
            tail: "E404".into(),
        };
        let said = install_failed(&failed, &["E404"]);
        assert_eq!(said.matches("E404").count(), 1, "{said}");
        // Busy says what to do and nothing about npm.
        let said = install_failed(&InstallError::Busy, &[]);
        assert!(
            said.contains("one at a time") && !said.contains("npm's last"),
            "{said}"
        );
    }

    #[test]
    fn inst_18_a_failure_that_left_its_folder_says_how_to_clean_up_and_retry() {
        use wisp_install::InstallError;
        for e in [
            InstallError::TimedOut(std::time::Duration::from_secs(180)),
            InstallError::Cancelled,
            InstallError::Lockfile("x".into()),
            InstallError::Unfinished("/d".into()),
        ] {
            let said = install_failed(&e, &[]);
            assert!(said.contains("\"cleanUp\": true"), "{said}");
            assert!(said.contains("approves that separately"), "{said}");
        }
        // Nothing was left behind: no clean-up to offer.
        for e in [
            InstallError::Busy,
            InstallError::Metadata("no such bin".into()),
        ] {
            assert!(!install_failed(&e, &[]).contains("cleanUp"));
        }
        let said = unfinished_message(Path::new("/data/mcp-installs/ab"));
        assert!(
            said.contains("/data/mcp-installs/ab") && said.contains("\"cleanUp\": true"),
            "{said}"
        );
    }

    #[test]
    fn the_card_says_what_the_registry_says_and_that_scripts_stay_off() {
        let mut facts = wisp_install::PackageFacts {
            description: Some("d".into()),
            license: None,
            repository: Some("git+https://github.com/a/b.git".into()),
            published: None,
            dependencies: 4,
            integrity: Some("sha512-x".into()),
            install_scripts: vec![],
            bins: vec!["b".into()],
        };
        let card = facts_card(&facts);
        assert_eq!(card["license"], "(not given)");
        assert_eq!(card["published"], "(unknown)");
        assert_eq!(card["dependencies"], 4);
        assert_eq!(card["integrity"], "sha512-x");
        assert_eq!(
            card["installScriptsNote"],
            "It declares no install scripts."
        );
        facts.install_scripts = vec!["preinstall".into(), "postinstall".into()];
        let card = facts_card(&facts);
        let note = card["installScriptsNote"].as_str().unwrap();
        assert!(
            note.contains("(preinstall, postinstall)") && note.contains("stay OFF"),
            "{note}"
        );
        assert_eq!(card["installScripts"], json!(["preinstall", "postinstall"]));
    }

    #[test]
    fn npm_tail_keeps_the_last_lines() {
        let text: String = (0..50).map(|i| format!("l{i}\n")).collect();
        let tail = npm_tail(&text);
        assert!(tail.starts_with("l30\n") && tail.ends_with("l49"), "{tail}");
    }
}

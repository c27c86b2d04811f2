//! The built-in tools: the registry of tool families, the per-run snapshot, typed argument
//! parsing and canonical JSON for digests. Each family is a module of its own (`files`,
//! `install`, `introspect`, `skills`, `web`); adding a tool is one entry in its family,
//! nothing in the run loop.

mod files;
mod install;
mod introspect;
pub(crate) mod mcp;
pub(crate) mod numbers;
pub(crate) mod skills;
mod web;

use std::sync::OnceLock;

use serde_json::Value;
#[cfg(test)]
use serde_json::json;
use wisp_protocol::ToolInfo;

use crate::tool::ToolRef;

#[cfg(test)]
pub(crate) use files::{ListArgs, WriteArgs};

/// The Host's parts that tool families use, one field per capability. The run loop passes it
/// through without reading it; a family that needs a new part of the Host adds its field
/// here and in [`Capabilities::of`].
pub(crate) struct Capabilities {
    /// Files: where `files_trash` puts things.
    pub(crate) trash: wisp_fs::TrashConfig,
    /// Web: every session's preview tabs.
    pub(crate) tabs: crate::tabs::Tabs,
    /// Install: the local MCP configs.
    pub(crate) mcp_configs: crate::mcp::McpConfigs,
    /// Install: how npm installs run; `None` when installs are turned off in this Host.
    pub(crate) npm: Option<wisp_install::InstallConfig>,
    /// Skills: the helper that runs a script confined (`wisp confine`), if this Host has it.
    pub(crate) confine_helper: Option<std::path::PathBuf>,
    /// Files: the largest replaced content one change keeps for its undo (a card replacing a
    /// larger file says it cannot be undone; what the session already keeps is counted when
    /// the change runs, and the undo plan names a change it left without its content).
    pub(crate) undo_keeps: u64,
}

impl Capabilities {
    /// The families' parts of `host`, made once per run.
    pub(crate) fn of(host: &crate::Host) -> Self {
        Self {
            trash: host.inner.config.trash.clone(),
            tabs: host.inner.tabs.clone(),
            mcp_configs: crate::mcp::McpConfigs::new(
                host.inner.mcp.clone(),
                host.inner.runs.clone(),
            ),
            npm: host.inner.config.npm.clone(),
            confine_helper: host.inner.config.confine_helper.clone(),
            undo_keeps: crate::lock(&host.inner.undo_limits).max_file_bytes,
        }
    }
}

/// Every built-in tool, in the order runs list them, with whether it needs an authorized root.
fn registry() -> &'static [(ToolRef, bool)] {
    static REGISTRY: OnceLock<Vec<(ToolRef, bool)>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut all: Vec<(ToolRef, bool)> = vec![(introspect::tool(), false)];
        all.extend(files::tools().into_iter().map(|t| (t, true)));
        // The preview tabs are the session's, with or without a project.
        all.extend(web::tools().into_iter().map(|t| (t, false)));
        // Installing and registering MCP servers is the person's machine's, not a project's.
        all.extend(install::tools().into_iter().map(|t| (t, false)));
        all
    })
}

/// The tools a session gets: `tool_introspect` always, the file tools only with an authorized
/// root (FILE-02, INTRO-08). The result is a deep copy: a run keeps it unchanged to its end.
/// The one list of the built-in tools: tests read it here rather than writing it again.
pub fn snapshot(has_root: bool) -> Vec<ToolInfo> {
    registry()
        .iter()
        .filter(|(_, needs_root)| has_root || !needs_root)
        .map(|(t, _)| t.info())
        .collect()
}

/// A run's tools: the built-ins for its session, then the MCP tools active when it started
/// (MCP-26). The run keeps it to its end; a call is looked up here, never in a live registry,
/// so a tool activated or refreshed meanwhile counts from the next user message.
pub(crate) struct Snapshot {
    /// What the model is offered, in order.
    pub(crate) infos: Vec<ToolInfo>,
    /// The implementation of each, by position.
    refs: Vec<ToolRef>,
}

impl Snapshot {
    /// The implementation of the snapshot's tool `name`.
    pub(crate) fn find(&self, name: &str) -> Option<ToolRef> {
        self.infos
            .iter()
            .position(|t| t.name == name)
            .and_then(|i| self.refs.get(i).cloned())
    }

    /// The event asking the person to approve a call of the snapshot's tool `request.tool`,
    /// naming where the tool comes from when it is not built in (the MCP server it belongs
    /// to), so the card can say it.
    pub(crate) fn approval_requested(&self, request: ApprovalRequest) -> wisp_protocol::EventKind {
        let origin = self
            .infos
            .iter()
            .find(|t| t.name == request.tool)
            .and_then(|t| t.mcp.clone());
        wisp_protocol::EventKind::ApprovalRequested {
            call_id: request.call_id,
            approval_id: request.approval_id,
            tool: request.tool,
            arguments: request.arguments,
            canonical: request.canonical,
            digest: request.digest,
            mcp: origin,
            alternative: request.alternative.map(Box::new),
        }
    }
}

/// What an approval request says of its call, for [`Snapshot::approval_requested`].
pub(crate) struct ApprovalRequest {
    pub(crate) call_id: String,
    pub(crate) approval_id: String,
    pub(crate) tool: String,
    /// The canonical arguments, as JSON.
    pub(crate) arguments: Value,
    /// The exact text the digest covers.
    pub(crate) canonical: String,
    pub(crate) digest: String,
    /// A second way to run the call the person may approve instead.
    pub(crate) alternative: Option<wisp_protocol::ApprovalOption>,
}

/// The snapshot of a run: [`snapshot`]'s built-ins, then `extra` (the active MCP tools).
pub(crate) fn run_snapshot(has_root: bool, extra: Vec<ToolRef>) -> Snapshot {
    let refs: Vec<ToolRef> = registry()
        .iter()
        .filter(|(_, needs_root)| has_root || !needs_root)
        .map(|(t, _)| t.clone())
        .chain(extra)
        .collect();
    Snapshot {
        infos: refs.iter().map(|t| t.info()).collect(),
        refs,
    }
}

/// Parses arguments into a tool's type, with a message for the model when they do not fit.
pub(crate) fn parse_args<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: &Value,
) -> Result<T, String> {
    if !args.is_object() {
        return Err(format!(
            "invalid arguments for {tool}: expected a JSON object"
        ));
    }
    serde_json::from_value(args.clone()).map_err(|e| format!("invalid arguments for {tool}: {e}"))
}

/// Whether `tool` is one whose approved calls change nothing (a read the person approved).
pub(crate) fn reads_only(tool: &str) -> bool {
    files::reads_only(tool)
}

/// Canonical JSON (keys sorted, no spaces): what an approval's digest covers.
pub(crate) fn canonical(v: &Value) -> String {
    // serde_json's Map is a BTreeMap (no preserve_order feature), so keys serialize sorted.
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tools that change nothing a person would need to approve (DEC-01). Not a second
    /// copy of the tool list: the exemptions from approval, written out so that a new tool
    /// without an approval is a deliberate edit here, reviewed as the safety decision it is.
    const NEEDS_NO_APPROVAL: [&str; 8] = [
        "tool_introspect",
        "files_list",
        "files_read",
        "files_search",
        "list_preview_tabs",
        "read_webpage",
        "preview_tab_action",
        "mcp_list_services",
    ];

    fn names(tools: &[ToolInfo]) -> Vec<&str> {
        tools.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn sessions_without_a_root_get_no_file_tools() {
        let (bare, rooted) = (snapshot(false), snapshot(true));
        let files: Vec<String> = files::tools().iter().map(|t| t.info().name).collect();
        assert!(!files.is_empty());
        // With a root: every tool, introspection first; without one: the same in the same
        // order, less the file family (FILE-02, INTRO-08).
        assert_eq!(
            rooted.first().map(|t| t.name.as_str()),
            Some("tool_introspect")
        );
        let expected: Vec<&str> = names(&rooted)
            .into_iter()
            .filter(|n| !files.iter().any(|f| f == n))
            .collect();
        assert_eq!(names(&bare), expected);
        assert!(bare.len() > 1 && bare.len() < rooted.len());
        let mut unique = names(&rooted);
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), rooted.len(), "a tool name is used twice");
    }

    #[test]
    fn every_tool_waits_for_approval_but_the_exempted_ones() {
        let rooted = snapshot(true);
        for name in NEEDS_NO_APPROVAL {
            assert!(names(&rooted).contains(&name), "{name} is no longer a tool");
        }
        for t in &rooted {
            assert_eq!(
                t.requires_approval,
                !NEEDS_NO_APPROVAL.contains(&t.name.as_str()),
                "{}",
                t.name
            );
        }
    }

    /// The run loop drives what `prepare` returns and knows no tool by name: a new family is
    /// its file under `tools/` and a registry line, never a change to the loop.
    #[test]
    fn the_run_loop_names_no_tool_and_no_family() {
        let run = include_str!("run.rs");
        let code: String = run
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for tool in snapshot(true) {
            assert!(
                !run.contains(&tool.name),
                "run.rs names the tool {}",
                tool.name
            );
        }
        let families = [
            "mcp:",
            "files::",
            "web::",
            "install::",
            "mcp::",
            "introspect::",
            "tabs",
            "Mcp",
            "wisp_mcp",
            "wisp_install",
            "connection",
        ];
        for family in families {
            assert!(!code.contains(family), "run.rs's code names {family}");
        }
    }

    #[test]
    fn canonical_json_sorts_keys() {
        let v: Value = serde_json::from_str(r#"{"path":"a","content":"b"}"#).unwrap();
        assert_eq!(canonical(&v), r#"{"content":"b","path":"a"}"#);
    }

    #[test]
    fn arguments_that_do_not_fit_say_why() {
        let e = parse_args::<WriteArgs>("files_write", &json!({"path": "x"})).unwrap_err();
        assert!(e.contains("missing field `content`"), "{e}");
        let e = parse_args::<WriteArgs>("files_write", &json!({"path": 1, "content": "x"}))
            .unwrap_err();
        assert!(e.contains("invalid type"), "{e}");
        let e =
            parse_args::<ListArgs>("files_list", &json!({"path": ".", "extra": 1})).unwrap_err();
        assert!(e.contains("unknown field"), "{e}");
    }
}

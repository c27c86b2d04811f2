//! Against a third-party server nobody here wrote: `@modelcontextprotocol/server-everything`
//! (tools/node, pinned in package-lock.json; scripts/test runs `npm ci --prefix tools/node`).

use serde_json::json;

use crate::support::*;

fn everything_spec() -> wisp_mcp::ServerSpec {
    let script = repo_root()
        .join("tools/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.exists(),
        "run `npm ci --prefix tools/node` first: {}",
        script.display()
    );
    let mut s = wisp_mcp::ServerSpec::new(
        wisp_mcp::config::new_id(),
        "node",
        vec![script.to_string_lossy().into_owned(), "stdio".into()],
    );
    s.env.push(("WISP_CANARY".into(), CANARY.into()));
    s
}

#[tokio::test]
async fn initializes_lists_and_calls_echo_of_server_everything() {
    let c = connect(&everything_spec()).await;
    let list = c.tools();
    let echo = list
        .tools
        .iter()
        .find(|t| t.original_name == "echo")
        .expect("an echo tool");
    assert!(echo.read_only_hint);
    assert!(
        list.tools.len() > 5,
        "{:?}",
        list.tools
            .iter()
            .map(|t| &t.original_name)
            .collect::<Vec<_>>()
    );
    assert!(
        c.validate(&echo.model_name, &args(json!({"message": 1})))
            .is_err()
    );
    let out = call(
        &c,
        &echo.model_name.clone(),
        json!({"message": "hello from wisp"}),
    )
    .await
    .unwrap();
    assert!(!out.is_error);
    assert!(out.text.contains("hello from wisp"), "{}", out.text);
    // Its get-env tool dumps the whole environment: only the allow-list and our own variable,
    // and our variable's value redacted.
    if let Some(get_env) = list.tools.iter().find(|t| t.original_name == "get-env") {
        let out = call(&c, &get_env.model_name.clone(), json!({}))
            .await
            .unwrap();
        assert!(!out.text.contains(CANARY), "{}", out.text);
        assert!(
            out.text.contains("\"WISP_CANARY\": \"[redacted]\""),
            "{}",
            out.text
        );
        let env: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&out.text).unwrap();
        for name in env.keys() {
            assert!(
                wisp_mcp::INHERITED_ENV.contains(&name.as_str())
                    || name.starts_with("LC_")
                    || name == "WISP_CANARY",
                "server-everything inherited {name}"
            );
        }
    }
    c.stop().await;
    assert!(!c.is_open());
}

/// server-everything registers `simulate-research-query` (`execution.taskSupport:
/// "required"`) once the client is initialized, and says so with `list_changed`: it is listed
/// as unsupported, with why, and never offered.
#[tokio::test]
async fn a_tool_that_requires_task_support_is_listed_as_unsupported_not_offered() {
    let c = connect(&everything_spec()).await;
    let research = "simulate-research-query";
    assert!(
        eventually(|| c
            .tools()
            .unsupported
            .iter()
            .any(|t| t.original_name == research))
        .await,
        "offered: {:?}",
        c.tools()
            .tools
            .iter()
            .map(|t| t.original_name.clone())
            .collect::<Vec<_>>()
    );
    let list = c.tools();
    let found = list
        .unsupported
        .iter()
        .find(|t| t.original_name == research)
        .unwrap();
    assert_eq!(found.reason, wisp_mcp::TASK_REQUIRED_REASON);
    assert!(!list.tools.iter().any(|t| t.original_name == research));
    assert!(list.tools.iter().any(|t| t.original_name == "echo"));
    assert!(matches!(
        call(&c, research, serde_json::json!({"topic": "x"})).await,
        Err(wisp_mcp::McpError::UnknownTool(_))
    ));
    c.stop().await;
}

/// server-everything's long-running tool reports progress each step: a call longer than the
/// timeout succeeds, each report reaching the caller, and the server stays connected.
#[tokio::test]
async fn server_everythings_long_running_operation_outlasts_the_timeout_by_its_progress() {
    let mut s = everything_spec();
    // Six steps a second apart against a 4 s timeout that each report restarts.
    s.timeout = std::time::Duration::from_secs(4);
    let c = connect(&s).await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let out = c
        .call_with_progress(
            "trigger-long-running-operation",
            args(json!({"duration": 6, "steps": 6})),
            std::future::pending(),
            move |p| sink.lock().unwrap().push(p),
        )
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains("Long running operation completed"),
        "{}",
        out.text
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert_eq!(seen[5].total, Some(6.0));
    assert!(c.is_open());
    c.stop().await;
}

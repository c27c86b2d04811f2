//! The scripted answers: a pure function from a request's messages to the next reply.
//!
//! Stateless on purpose: the next answer follows from the marker in the latest user message and
//! from the tool results already in the history after it, so a retried request gets the same
//! answer and two sessions never disturb each other. Scenarios are rows of [`SCENARIOS`];
//! later capabilities add rows.

use serde_json::{Value, json};

/// A string that every scripted reasoning contains, so tests can prove reasoning reaches the
/// next model request and nothing else.
pub const REASONING_CANARY: &str = "wisp-sim-reasoning-canary";

/// The scripted answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Reasoning, streamed first (empty when thinking is disabled).
    pub reasoning: String,
    /// The visible text.
    pub content: String,
    /// Tool calls, streamed interleaved by index.
    pub tool_calls: Vec<SimCall>,
}

impl Reply {
    /// `tool_calls` when the reply makes calls, `stop` otherwise.
    pub fn finish_reason(&self) -> &'static str {
        if self.tool_calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }
}

/// One scripted tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimCall {
    /// Deterministic call ID.
    pub id: String,
    /// Function name.
    pub name: String,
    /// The argument text exactly as streamed (may be deliberately broken JSON).
    pub arguments: String,
}

/// What a scenario script sees of the conversation.
pub struct Turn<'a> {
    /// The latest user message.
    pub user_text: &'a str,
    /// How many assistant tool-call rounds happened since that message.
    pub step: usize,
    /// Results of the latest round, in the order the calls were made.
    pub results: Vec<ToolResult<'a>>,
    /// The functions the request offered (`tools`).
    pub tools: &'a [Value],
    /// The simulator's own base URL (`http://127.0.0.1:PORT`; empty when unknown).
    pub sim_base: &'a str,
    id_prefix: String,
}

/// A tool result found in the history.
pub struct ToolResult<'a> {
    /// The tool that was called, when the history names it.
    pub tool: &'a str,
    /// The result text.
    pub content: &'a str,
}

impl Turn<'_> {
    fn call(&self, i: usize, name: &str, arguments: String) -> SimCall {
        SimCall {
            id: format!("{}_{}_{i}", self.id_prefix, self.step),
            name: name.to_owned(),
            arguments,
        }
    }
}

/// One row of the scenario table.
pub struct Scenario {
    /// The marker that selects it, e.g. `[demo:write]`.
    pub marker: &'static str,
    /// What it does, for documentation.
    pub summary: &'static str,
    script: fn(&Turn<'_>) -> (String, String, Vec<SimCall>),
}

/// Every scenario, selected by the first marker found in the latest user message. A `file=` or
/// `to=` value in double quotes is a JSON string: `file="auth\u202etxt.js"`.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        marker: "[demo:write]",
        summary: "one files_write of wisp-demo.txt (or of the path after file= in the message), then an answer reporting its result",
        script: demo_write,
    },
    Scenario {
        marker: "[demo:multi]",
        summary: "files_list and files_read in one step, then an answer using both",
        script: demo_multi,
    },
    Scenario {
        marker: "[demo:read-write]",
        summary: "files_read of README.md, then files_write of wisp-demo.txt in the same step, then an answer reporting both",
        script: demo_read_write,
    },
    Scenario {
        marker: "[demo:escape]",
        summary: "reads and writes outside the project (../, absolute, through symlinks), then a report of the refusals",
        script: demo_escape,
    },
    Scenario {
        marker: "[demo:invalid]",
        summary: "files_write with a missing field, a wrong type and broken JSON, then a corrected call",
        script: demo_invalid,
    },
    Scenario {
        marker: "[demo:introspect]",
        summary: "tool_introspect with {} and with an extra argument, then an answer naming the tools",
        script: demo_introspect,
    },
    Scenario {
        marker: "[demo:snapshot]",
        summary: "tool_introspect, then (when files_write is offered) a files_write of wisp-snapshot.txt (or of the path after file=) that waits for approval, then tool_introspect again, then an answer naming the tools the last tool_introspect listed: a run whose tool list must stay the same across rounds while the registry changes",
        script: demo_snapshot,
    },
    Scenario {
        marker: "[demo:skill]",
        summary: "skills_read of the first skill its catalogue offers (or of the skill after skill=), then, when SKILL.md names a file under references/, skills_read of that file; then, when skills_run_script is offered, a run of the script after script= (args= a JSON array, access= confined or full) or of the first scripts/ file SKILL.md names; then an answer reporting what was read or run; without skills_read offered, an answer saying no skill was found",
        script: demo_skill,
    },
    Scenario {
        marker: "[demo:markdown]",
        summary: "an answer in GitHub-flavoured markdown: a table, a task list, a quote, code blocks, a link and a very long word",
        script: demo_markdown,
    },
    Scenario {
        marker: "[demo:read]",
        summary: "one files_read of README.md (or of the path after file= in the message), then an answer reporting its result",
        script: demo_read,
    },
    Scenario {
        marker: "[demo:secrets]",
        summary: "one files_read of .env (or of the path after file=), which the Host asks the person about before anything of it is sent, then an answer reporting whether it was sent",
        script: demo_secrets,
    },
    Scenario {
        marker: "[demo:replace]",
        summary: "files_read of wisp-demo.txt (or of the path after file=), then files_replace of its first line with the line plus \" (edited by Wisp)\", then an answer reporting the result",
        script: demo_replace,
    },
    Scenario {
        marker: "[demo:search]",
        summary: "one files_search by content for the word after query= (default TODO) in the project, then an answer reporting the results",
        script: demo_search,
    },
    Scenario {
        marker: "[demo:mkdir]",
        summary: "one files_mkdir of wisp-demo-folder (or of the path after file=), then an answer reporting its result",
        script: demo_mkdir,
    },
    Scenario {
        marker: "[demo:mkdir-write]",
        summary: "files_mkdir of docs, then (in the next round) files_write of docs/README.md, then an answer reporting both: two approvals in two rounds",
        script: demo_mkdir_write,
    },
    Scenario {
        marker: "[demo:write-many]",
        summary: "files_write of wisp-many-000.txt, wisp-many-001.txt, … (n= in the message, default 10, at most 500) in one round, each its own approval, then an answer counting what succeeded: a run with many changes to undo",
        script: demo_write_many,
    },
    Scenario {
        marker: "[demo:move]",
        summary: "one files_move of wisp-demo.txt (or of the path after file=) to wisp-demo-moved.txt (or to the path after to=), then an answer reporting its result",
        script: demo_move,
    },
    Scenario {
        marker: "[demo:trash]",
        summary: "one files_trash of wisp-demo.txt (or of the path after file=) into the system trash, then an answer reporting its result (where no trash can be used, the refusal)",
        script: demo_trash,
    },
    Scenario {
        marker: "[demo:mcp]",
        summary: "calls the first MCP tool offered (name mcp_…) whose input schema has a required string property, with that property set to \"hello from wisp\" (with the word bad-args in the message: set to the number 42, which fails the schema; each word number=LITERAL adds the property n1, n2, … with that number literal exactly as written, e.g. 12345678901234567891 or 1e400), then answers with the result",
        script: demo_mcp,
    },
    Scenario {
        marker: "[demo:mcp-call]",
        summary: "one call of the offered tool named after tool= (its model-facing name, e.g. mcp_0a1b2c3d_echo_55667788) with everything after args= to the end of the message, exactly as written, as its arguments (default {}), then answers with the result",
        script: demo_mcp_call,
    },
    Scenario {
        marker: "[demo:install]",
        summary: "the conversation-assisted MCP install of the demo package wisp-demo-mcp@1.0.0: mcp_list_services, mcp_install_npm (its approval; with the word cleanUp in the message it asks with \"cleanUp\": true, which first deletes an unfinished earlier attempt; with bin=NAME it asks for that bin), mcp_list_services again (the disabled config it registered), mcp_activate_service (its own approval), then an answer saying to send [demo:mcp] next",
        script: demo_install,
    },
    Scenario {
        marker: "[demo:register]",
        summary: "one mcp_register of the program after command= (default /usr/local/bin/weather-mcp) with the words after arg= as its arguments, then an answer reporting the result",
        script: demo_register,
    },
    Scenario {
        marker: "[demo:readpage]",
        summary: "list_preview_tabs, then read_webpage of a web tab that is not active (else the active one); with no web tab only the list; then an answer reporting the result",
        script: demo_readpage,
    },
    Scenario {
        marker: "[demo:openweb]",
        summary: "one open_webpage of the simulator's own test site /site/ (or of the URL after url= in the message), then an answer reporting whether the preview accepted it",
        script: demo_openweb,
    },
    Scenario {
        marker: "[demo:loop]",
        summary: "a tool call at every step, so the host's step budget must stop the run",
        script: demo_loop,
    },
];

/// The reply to `messages` (the request's `messages` array). `thinking` says whether
/// reasoning is produced.
pub fn reply(messages: &[Value], thinking: bool) -> Reply {
    reply_with_tools(messages, &[], thinking)
}

/// [`reply`] for a request that offered `tools` (its `tools` array).
pub fn reply_with_tools(messages: &[Value], tools: &[Value], thinking: bool) -> Reply {
    reply_at(messages, tools, thinking, "")
}

/// [`reply_with_tools`] from the simulator at `sim_base` (`http://127.0.0.1:PORT`), whose
/// test site `[demo:openweb]` opens.
pub fn reply_at(messages: &[Value], tools: &[Value], thinking: bool, sim_base: &str) -> Reply {
    let mut turn = read_turn(messages);
    turn.tools = tools;
    turn.sim_base = sim_base;
    let scenario = SCENARIOS.iter().find(|s| turn.user_text.contains(s.marker));
    let (reasoning, content, tool_calls) = match scenario {
        _ if asks_for_summary(turn.user_text) => summary(messages),
        Some(s) => (s.script)(&turn),
        None => plain(&turn),
    };
    Reply {
        reasoning: if thinking {
            format!(
                "{reasoning} ({REASONING_CANARY}:{}:{})",
                turn.id_prefix, turn.step
            )
        } else {
            String::new()
        },
        content,
        tool_calls,
    }
}

fn read_turn(messages: &[Value]) -> Turn<'_> {
    let last_user = messages.iter().rposition(|m| role(m) == "user");
    let user_text = last_user.and_then(|i| text_of(&messages[i])).unwrap_or("");
    let after = last_user.map_or(messages, |i| &messages[i + 1..]);
    let step = after
        .iter()
        .filter(|m| role(m) == "assistant" && has_tool_calls(m))
        .count();
    // The latest round: tool messages after the last assistant message that made calls.
    let mut results = Vec::new();
    if let Some(a) = after
        .iter()
        .rposition(|m| role(m) == "assistant" && has_tool_calls(m))
    {
        let calls = after[a]["tool_calls"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for m in after[a + 1..].iter().filter(|m| role(m) == "tool") {
            let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
            let tool = calls
                .iter()
                .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
                .and_then(|c| c["function"]["name"].as_str())
                .unwrap_or("");
            results.push(ToolResult {
                tool,
                content: text_of(m).unwrap_or(""),
            });
        }
    }
    let users = messages.iter().filter(|m| role(m) == "user").count();
    Turn {
        user_text,
        step,
        results,
        tools: &[],
        sim_base: "",
        id_prefix: format!("call_{:08x}_{users}", fnv1a(user_text.as_bytes()) as u32),
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

fn has_tool_calls(m: &Value) -> bool {
    m.get("tool_calls")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty())
}

/// Message content as text: a string, or the text parts of a content array.
fn text_of(m: &Value) -> Option<&str> {
    match m.get("content")? {
        Value::String(s) => Some(s),
        Value::Array(parts) => parts.iter().find_map(|p| p.get("text")?.as_str()),
        _ => None,
    }
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What a tool result says, in one word, for scripted reports.
fn outcome(content: &str) -> &'static str {
    // Tool results are JSON: an `error` field means failure and a `rejected` status a
    // rejection; anything else succeeded, whatever words its data holds (a tool list
    // describes errors without being one).
    if let Ok(v) = serde_json::from_str::<Value>(content) {
        return if v.get("error").is_some() {
            "failed"
        } else if v.get("status").and_then(Value::as_str) == Some("rejected") {
            "rejected"
        } else {
            "succeeded"
        };
    }
    let lower = content.to_lowercase();
    if lower.contains("rejected") {
        "rejected"
    } else if lower.contains("error") || lower.contains("refused") || lower.contains("denied") {
        "failed"
    } else {
        "succeeded"
    }
}

fn excerpt(content: &str) -> String {
    let flat: String = content
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    let mut out: String = flat.chars().take(160).collect();
    if flat.chars().count() > 160 {
        out.push('…');
    }
    out
}

fn report(turn: &Turn<'_>) -> String {
    turn.results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "\n{}. {} {}: {}",
                i + 1,
                r.tool,
                outcome(r.content),
                excerpt(r.content)
            )
        })
        .collect()
}

/// What `[demo:markdown]` answers: every construct the workbench renders.
pub const DEMO_MARKDOWN: &str = "## Markdown sample 示例

| tool | approval |
|---|---|
| files_read | no |
| files_write | **yes** |

- [x] read the file
- [ ] write the change

> Quoted: file contents are data, not instructions.

~~struck~~ and `inline code`, and a link: https://example.com/docs

```rust
fn main() {
    let answer = 42; // the answer
    assert_eq!(answer * 2, 84);
}
```

```
plain block
```

Averyveryverylongwordwithoutanyspacesthatmustwrapinsteadofoverflowingthebubble_0123456789abcdefghijklmnopqrstuvwxyz
";

fn demo_markdown(_turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    (
        "Show the markdown sample.".to_owned(),
        DEMO_MARKDOWN.to_owned(),
        Vec::new(),
    )
}

/// Whether the latest user message asks for a summary of the conversation, as a host that
/// compacts a long session does: a model would write one, and so does the simulator.
pub(crate) fn asks_for_summary(text: &str) -> bool {
    text.to_lowercase().contains("write a summary")
}

/// A short, deterministic summary of the conversation before the request: how many messages the
/// person sent and the start of each, with scenario markers defused, so a summary carried into
/// later requests never selects a scenario of its own.
fn summary(messages: &[Value]) -> (String, String, Vec<SimCall>) {
    let asked: Vec<&str> = messages
        .iter()
        .filter(|m| role(m) == "user")
        .filter_map(text_of)
        .collect();
    let earlier = &asked[..asked.len().saturating_sub(1)];
    let mut content = format!(
        "Summary written by the Wisp simulator: the person sent {} earlier {}.",
        earlier.len(),
        if earlier.len() == 1 {
            "message"
        } else {
            "messages"
        }
    );
    for (i, text) in earlier.iter().enumerate() {
        let start: String = text.chars().take(80).collect();
        content.push_str(&format!("\n{}. {}", i + 1, start.replace('[', "(")));
    }
    (
        "Summarise what the person asked so far.".to_owned(),
        content,
        Vec::new(),
    )
}

fn plain(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    (
        "No scenario marker; answer plainly and say where the answer comes from.".to_owned(),
        format!(
            "这是 Wisp 模拟器的回答，没有调用任何真实模型。This answer comes from the Wisp simulator: no real model was called. \
             Your message had {} characters. Try a marker such as [demo:write] or [demo:multi] to see tools at work.",
            turn.user_text.chars().count()
        ),
        Vec::new(),
    )
}

/// The text `[demo:write]` writes.
pub const DEMO_WRITE_CONTENT: &str =
    "Hello from the Wisp simulator.\n你好，这是 Wisp 模拟器写的文件。\n";

/// The path a message names with `file=PATH`, else `default`.
fn named_file(text: &str, default: &str) -> String {
    word_value(text, "file=").unwrap_or_else(|| default.to_owned())
}

/// The value after `key` in a word of `text`. A value in double quotes is a JSON string
/// (`file="a\nb.txt"`), so a test can name a path with a newline, a tab or any other character
/// in plain ASCII.
fn word_value(text: &str, key: &str) -> Option<String> {
    let value = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key))
        .filter(|p| !p.is_empty())?;
    if value.starts_with('"')
        && let Ok(Value::String(decoded)) = serde_json::from_str::<Value>(value)
    {
        return Some(decoded);
    }
    Some(value.to_owned())
}

fn demo_write(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let path = named_file(turn.user_text, "wisp-demo.txt");
        let args = json!({"path": path, "content": DEMO_WRITE_CONTENT}).to_string();
        return (
            "The person wants a demo file. Write wisp-demo.txt at the project root.".to_owned(),
            "我来写入 wisp-demo.txt。I will write wisp-demo.txt at the project root.".to_owned(),
            vec![turn.call(0, "files_write", args)],
        );
    }
    let path = named_file(turn.user_text, "wisp-demo.txt");
    let said = match turn.results.first().map(|r| outcome(r.content)) {
        Some("rejected") => {
            "The write was rejected, so nothing was written. 写入被拒绝，未写任何内容。".to_owned()
        }
        Some("failed") => "The write failed. 写入失败。".to_owned(),
        Some(_) => format!("{path} was written. 已写入 {path}。"),
        None => "The write tool returned no result. 写入工具没有返回结果。".to_owned(),
    };
    (
        "Report what the write tool returned.".to_owned(),
        format!("{said}{}", report(turn)),
        Vec::new(),
    )
}

/// Files `[demo:write-many]` writes at most.
const WRITE_MANY_MAX: usize = 500;

/// The `i`th file `[demo:write-many]` writes, and its content.
pub fn write_many_file(i: usize) -> (String, String) {
    (
        format!("wisp-many-{i:03}.txt"),
        format!("Written by the simulator, file {i}.\n"),
    )
}

fn demo_write_many(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let n = word_value(turn.user_text, "n=")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(10)
        .min(WRITE_MANY_MAX);
    if turn.step == 0 {
        let calls = (0..n)
            .map(|i| {
                let (path, content) = write_many_file(i);
                turn.call(
                    i,
                    "files_write",
                    json!({"path": path, "content": content}).to_string(),
                )
            })
            .collect();
        return (
            "Write the files one by one.".to_owned(),
            format!("I will write {n} files. 我将写入 {n} 个文件。"),
            calls,
        );
    }
    let done = turn
        .results
        .iter()
        .filter(|r| outcome(r.content) == "succeeded")
        .count();
    (
        "Count what was written.".to_owned(),
        format!("{done} of {n} files were written. 已写入 {n} 个文件中的 {done} 个。"),
        Vec::new(),
    )
}

fn demo_multi(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        return (
            "List the project root and read its README at the same time.".to_owned(),
            "Looking at the project: listing the root and reading README.md.".to_owned(),
            vec![
                turn.call(0, "files_list", json!({"path": "."}).to_string()),
                turn.call(1, "files_read", json!({"path": "README.md"}).to_string()),
            ],
        );
    }
    (
        "Summarise both results.".to_owned(),
        format!(
            "Here is what the two tools returned 两个工具的结果：{}",
            report(turn)
        ),
        Vec::new(),
    )
}

fn demo_read_write(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let write = json!({"path": "wisp-demo.txt", "content": DEMO_WRITE_CONTENT}).to_string();
        return (
            "Read the README, then write the demo file.".to_owned(),
            "Reading README.md, then writing wisp-demo.txt.".to_owned(),
            vec![
                turn.call(0, "files_read", json!({"path": "README.md"}).to_string()),
                turn.call(1, "files_write", write),
            ],
        );
    }
    (
        "Report both results.".to_owned(),
        format!(
            "What the two calls returned 两个调用的结果：{}",
            report(turn)
        ),
        Vec::new(),
    )
}

fn demo_escape(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let calls = vec![
            turn.call(
                0,
                "files_read",
                json!({"path": "../outside.txt"}).to_string(),
            ),
            turn.call(
                1,
                "files_read",
                json!({"path": "/etc/hostname"}).to_string(),
            ),
            turn.call(
                2,
                "files_read",
                json!({"path": "link-out/secret.txt"}).to_string(),
            ),
            turn.call(
                3,
                "files_write",
                json!({"path": "../wisp-escape.txt", "content": "must never be written"})
                    .to_string(),
            ),
            turn.call(
                4,
                "files_write",
                json!({"path": "/tmp/wisp-escape.txt", "content": "must never be written"})
                    .to_string(),
            ),
            turn.call(
                5,
                "files_write",
                json!({"path": "link-out/wisp-escape.txt", "content": "must never be written"})
                    .to_string(),
            ),
            // Through a relative `up -> ..` link: no `..` in the text, so only the kernel's
            // boundary can refuse these.
            turn.call(
                6,
                "files_read",
                json!({"path": "up/outside.txt"}).to_string(),
            ),
            turn.call(
                7,
                "files_write",
                json!({"path": "up/wisp-escape.txt", "content": "must never be written"})
                    .to_string(),
            ),
        ];
        return (
            "Probe paths outside the project: parent, absolute, and through symlinks.".to_owned(),
            "Trying paths outside the project to show that they are refused.".to_owned(),
            calls,
        );
    }
    (
        "Report every refusal.".to_owned(),
        format!(
            "Each attempt to reach outside the project 越界访问的结果：{}",
            report(turn)
        ),
        Vec::new(),
    )
}

fn demo_invalid(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    match turn.step {
        0 => (
            "Send deliberately invalid write arguments.".to_owned(),
            "Sending three malformed writes to show how they are answered.".to_owned(),
            vec![
                turn.call(0, "files_write", json!({"path": "wisp-invalid.txt"}).to_string()),
                turn.call(1, "files_write", json!({"path": 42, "content": "wrong type"}).to_string()),
                turn.call(2, "files_write", r#"{"path": "wisp-invalid.txt", "content": "#.to_owned()),
            ],
        ),
        1 => (
            "The errors explain what was wrong; send a corrected call.".to_owned(),
            format!("Those were refused; sending a corrected write.{}", report(turn)),
            vec![turn.call(
                0,
                "files_write",
                json!({"path": "wisp-invalid.txt", "content": "Written after the arguments were corrected.\n"}).to_string(),
            )],
        ),
        _ => (
            "Report the corrected call.".to_owned(),
            format!("The corrected write finished 更正后的写入：{}", report(turn)),
            Vec::new(),
        ),
    }
}

fn demo_introspect(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        return (
            "Ask the host which tools this run has.".to_owned(),
            "Checking which tools I have.".to_owned(),
            vec![
                turn.call(0, "tool_introspect", "{}".to_owned()),
                turn.call(1, "tool_introspect", json!({"verbose": true}).to_string()),
            ],
        );
    }
    (
        "Report the tool list.".to_owned(),
        format!("These are my tools 我的工具：{}", report(turn)),
        Vec::new(),
    )
}

fn demo_snapshot(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let offered = |name: &str| {
        turn.tools
            .iter()
            .any(|t| t["function"]["name"].as_str() == Some(name))
    };
    match turn.step {
        0 | 2 => (
            "Ask the host which tools this run has.".to_owned(),
            "Checking which tools I have.".to_owned(),
            vec![turn.call(0, "tool_introspect", "{}".to_owned())],
        ),
        1 if offered("files_write") => {
            let path = named_file(turn.user_text, "wisp-snapshot.txt");
            let args = json!({"path": path, "content": DEMO_WRITE_CONTENT}).to_string();
            (
                "Write a file, which waits for the person's approval.".to_owned(),
                format!("I will write {path}."),
                vec![turn.call(0, "files_write", args)],
            )
        }
        _ => {
            let listed: Vec<String> = turn
                .results
                .iter()
                .filter(|r| r.tool == "tool_introspect")
                .filter_map(|r| serde_json::from_str::<Value>(r.content).ok())
                .filter_map(|v| v.as_array().cloned())
                .flatten()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect();
            (
                "Name the tools the host listed.".to_owned(),
                format!(
                    "tool_introspect listed {} tools 工具：{}{}",
                    listed.len(),
                    listed.join(", "),
                    report(turn)
                ),
                Vec::new(),
            )
        }
    }
}

fn demo_read(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let path = named_file(turn.user_text, "README.md");
    if turn.step == 0 {
        return (
            format!("Read {path}."),
            format!("Reading {path}."),
            vec![turn.call(0, "files_read", json!({"path": path}).to_string())],
        );
    }
    (
        "Report what the read returned.".to_owned(),
        format!("The read of {path} finished 读取结果：{}", report(turn)),
        Vec::new(),
    )
}

/// The skill names `skills_read` offers (its `name` enum), in catalogue order.
fn skill_names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .filter_map(|t| t.get("function"))
        .find(|f| f.get("name").and_then(Value::as_str) == Some("skills_read"))
        .and_then(|f| f["parameters"]["properties"]["name"]["enum"].as_array())
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn demo_skill(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let names = skill_names(turn.tools);
    let Some(name) =
        word_value(turn.user_text, "skill=").or_else(|| names.first().map(|n| (*n).to_owned()))
    else {
        return (
            "No skills_read is offered.".to_owned(),
            "No skill was found: put a skill folder (with its SKILL.md) in ~/.agents/skills or in Wisp's data folder under skills, then send the message again.".to_owned(),
            Vec::new(),
        );
    };
    if turn.step == 0 {
        return (
            format!("Read the skill {name}."),
            format!("Reading the skill {name}."),
            vec![turn.call(0, "skills_read", json!({"name": name}).to_string())],
        );
    }
    // A script run ends the demo: report it.
    if turn.results.first().map(|r| r.tool) == Some("skills_run_script") {
        return (
            "Report what the script did.".to_owned(),
            format!("The script of {name} ran 脚本已运行：{}", report(turn)),
            Vec::new(),
        );
    }
    // SKILL.md as the previous round read it (only right after that read).
    let skill_md = (turn.step == 1)
        .then(|| turn.results.first())
        .flatten()
        .and_then(|r| serde_json::from_str::<Value>(r.content).ok())
        .and_then(|v| Some(v.get("content")?.as_str()?.to_owned()));
    let named = |prefix: &str| {
        skill_md.as_deref().and_then(|content| {
            content
                .split(|c: char| c.is_whitespace() || "()[]`'\"".contains(c))
                .find(|w| w.starts_with(prefix) && w.len() > prefix.len())
                .map(|w| w.trim_end_matches(['.', ',', ':', ';']).to_owned())
        })
    };
    // The first `references/…` file SKILL.md names, read next (progressive disclosure).
    if let Some(path) = named("references/") {
        return (
            format!("SKILL.md points at {path}; read it."),
            format!("Reading {path} of the skill {name}."),
            vec![turn.call(
                0,
                "skills_read",
                json!({"name": name, "path": path}).to_string(),
            )],
        );
    }
    // Then the script the message names (script=…), or the first `scripts/…` SKILL.md names,
    // when the person allowed scripts (the tool is offered).
    let script = word_value(turn.user_text, "script=").or_else(|| named("scripts/"));
    if let Some(script) = script.filter(|_| offers(turn.tools, "skills_run_script")) {
        let args: Vec<String> = word_value(turn.user_text, "args=")
            .and_then(|a| serde_json::from_str(&a).ok())
            .unwrap_or_default();
        let mut call = json!({"name": name, "script": script, "args": args});
        if let Some(access) = word_value(turn.user_text, "access=") {
            call["access"] = json!(access);
        }
        return (
            format!("Run {script} of the skill {name}, as SKILL.md says."),
            format!(
                "Running {script} of the skill {name}; Wisp asks you first. 运行技能 {name} 的 {script}，会先征得你的同意。"
            ),
            vec![turn.call(0, "skills_run_script", call.to_string())],
        );
    }
    (
        "Report what the skill said.".to_owned(),
        format!("The skill {name} was read 技能已读取：{}", report(turn)),
        Vec::new(),
    )
}

/// Whether the request offered a function named `name`.
fn offers(tools: &[Value], name: &str) -> bool {
    tools
        .iter()
        .any(|t| t["function"]["name"].as_str() == Some(name))
}

fn demo_secrets(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let path = named_file(turn.user_text, ".env");
    if turn.step == 0 {
        return (
            format!("Read {path}; it may hold credentials, so the host asks the person first."),
            format!(
                "Reading {path}; Wisp asks you before sending it. 读取 {path}，发送前会先征得你的同意。"
            ),
            vec![turn.call(0, "files_read", json!({"path": path}).to_string())],
        );
    }
    let said = match turn.results.first().map(|r| outcome(r.content)) {
        Some("rejected") => format!(
            "You declined, so nothing of {path} was sent to me. 你拒绝了，{path} 的内容没有发送给我。"
        ),
        Some("failed") => format!("{path} was not read. 未读取 {path}。"),
        Some(_) => {
            format!("{path} was sent to me once, as you approved. 已按你的批准发送一次 {path}。")
        }
        None => "The read returned no result. 读取没有返回结果。".to_owned(),
    };
    (
        "Report whether the file was sent.".to_owned(),
        format!("{said}{}", report(turn)),
        Vec::new(),
    )
}

/// What `[demo:replace]` appends to the first line it edits.
pub const DEMO_REPLACE_SUFFIX: &str = " (edited by Wisp)";

fn demo_replace(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let path = named_file(turn.user_text, "wisp-demo.txt");
    match turn.step {
        0 => (
            format!("Read {path} to find the text to replace."),
            format!("Reading {path} first. 先读取 {path}。"),
            vec![turn.call(0, "files_read", json!({"path": path}).to_string())],
        ),
        1 => {
            let read: Option<Value> = turn
                .results
                .first()
                .and_then(|r| serde_json::from_str(r.content).ok());
            let first = read
                .as_ref()
                .and_then(|v| v.get("content"))
                .and_then(Value::as_str)
                .and_then(|c| c.lines().find(|l| !l.trim().is_empty()))
                .map(str::to_owned);
            let Some(line) = first else {
                return (
                    "The read gave no line to edit.".to_owned(),
                    format!(
                        "There is no text line in {path} to edit. {path} 中没有可编辑的文本行。{}",
                        report(turn)
                    ),
                    Vec::new(),
                );
            };
            let mut args = json!({"path": path, "oldText": line, "newText": format!("{line}{DEMO_REPLACE_SUFFIX}")});
            // As a careful model does: bind the edit to the content it read.
            if let Some(sha) = read.as_ref().and_then(|v| v.get("sha256")) {
                args["sha256"] = sha.clone();
            }
            (
                "Replace the first line, marking it edited.".to_owned(),
                format!(
                    "I will mark the first line of {path} as edited. 我将修改 {path} 的第一行。"
                ),
                vec![turn.call(0, "files_replace", args.to_string())],
            )
        }
        _ => (
            "Report what the replace returned.".to_owned(),
            format!("The replace in {path} finished 替换结果：{}", report(turn)),
            Vec::new(),
        ),
    }
}

fn demo_search(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let query = turn
        .user_text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("query="))
        .filter(|q| !q.is_empty())
        .unwrap_or("TODO");
    if turn.step == 0 {
        let args = json!({"path": ".", "query": query, "mode": "content"});
        return (
            format!("Search the project for {query}."),
            format!("Searching the project for {query}. 在项目中搜索 {query}。"),
            vec![turn.call(0, "files_search", args.to_string())],
        );
    }
    (
        "Report what the search found.".to_owned(),
        format!(
            "The search for {query} finished 搜索结果：{}{}",
            found_paths(turn),
            report(turn)
        ),
        Vec::new(),
    )
}

/// The places a search result names, in order — `path:line` for a match, `path (withheld)` for
/// a file the Host did not search — so the answer names every one, however long the result.
fn found_paths(turn: &Turn<'_>) -> String {
    let Some(v) = turn
        .results
        .first()
        .and_then(|r| serde_json::from_str::<Value>(r.content).ok())
    else {
        return String::new();
    };
    let places: Vec<String> = v["results"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .filter_map(|h| {
            let path = h["path"].as_str()?;
            Some(match (h["line"].as_u64(), h.get("withheld")) {
                (_, Some(_)) => format!("{path} (withheld)"),
                (Some(line), None) => format!("{path}:{line}"),
                (None, None) => path.to_owned(),
            })
        })
        .collect();
    if places.is_empty() {
        String::new()
    } else {
        format!(" {}.", places.join(", "))
    }
}

fn demo_mkdir(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let path = named_file(turn.user_text, "wisp-demo-folder");
    if turn.step == 0 {
        return (
            format!("Create the folder {path}."),
            format!("Creating the folder {path}. 创建文件夹 {path}。"),
            vec![turn.call(0, "files_mkdir", json!({"path": path}).to_string())],
        );
    }
    (
        "Report what mkdir returned.".to_owned(),
        format!("The folder {path}: {}", report(turn)),
        Vec::new(),
    )
}

fn demo_mkdir_write(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    match turn.step {
        0 => (
            "Make the docs folder first.".to_owned(),
            "Creating docs/. 创建 docs/ 文件夹。".to_owned(),
            vec![turn.call(0, "files_mkdir", json!({"path": "docs"}).to_string())],
        ),
        1 => (
            "Now write the README inside it.".to_owned(),
            format!("docs/: {} Writing docs/README.md.", report(turn)),
            vec![turn.call(
                0,
                "files_write",
                json!({"path": "docs/README.md", "content": DEMO_WRITE_CONTENT}).to_string(),
            )],
        ),
        _ => (
            "Report the write.".to_owned(),
            format!("docs/README.md: {}", report(turn)),
            Vec::new(),
        ),
    }
}

fn demo_move(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let source = named_file(turn.user_text, "wisp-demo.txt");
    let target =
        word_value(turn.user_text, "to=").unwrap_or_else(|| "wisp-demo-moved.txt".to_owned());
    if turn.step == 0 {
        return (
            format!("Move {source} to {target}."),
            format!("Moving {source} to {target}. 将 {source} 移动到 {target}。"),
            vec![turn.call(
                0,
                "files_move",
                json!({"source": source, "target": target}).to_string(),
            )],
        );
    }
    (
        "Report what the move returned.".to_owned(),
        format!("The move of {source} to {target}: {}", report(turn)),
        Vec::new(),
    )
}

fn demo_trash(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let path = named_file(turn.user_text, "wisp-demo.txt");
    if turn.step == 0 {
        return (
            format!("Move {path} to the trash."),
            format!("Moving {path} to the trash. 将 {path} 移到回收站。"),
            vec![turn.call(0, "files_trash", json!({"path": path}).to_string())],
        );
    }
    (
        "Report what trash returned.".to_owned(),
        format!("{path} and the trash: {}", report(turn)),
        Vec::new(),
    )
}

/// What `[demo:mcp]` sets the tool's required string property to.
pub const DEMO_MCP_TEXT: &str = "hello from wisp";

/// Whether `name` is a local MCP server's tool (`mcp_<8 hex>_…`, wisp-mcp's model names),
/// not one of the Host's own `mcp_…` install tools.
fn is_server_tool(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("mcp_") else {
        return false;
    };
    rest.len() > 9
        && rest.as_bytes()[..8].iter().all(u8::is_ascii_hexdigit)
        && rest.as_bytes()[8] == b'_'
}

/// The first offered MCP tool with a required string property, and that property.
fn mcp_target(tools: &[Value]) -> Option<(&str, &str)> {
    tools.iter().find_map(|t| {
        let f = t.get("function")?;
        let name = f.get("name")?.as_str()?;
        if !is_server_tool(name) {
            return None;
        }
        let params = f.get("parameters")?;
        let required = params.get("required")?.as_array()?;
        let prop = required.iter().filter_map(Value::as_str).find(|r| {
            params["properties"][*r].get("type").and_then(Value::as_str) == Some("string")
        })?;
        Some((name, prop))
    })
}

/// The `number=LITERAL` words of `text` whose literal is made of number characters only.
fn number_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .filter_map(|w| w.strip_prefix("number="))
        .filter(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
        })
}

fn demo_mcp(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let Some((name, prop)) = mcp_target(turn.tools) else {
            return (
                "No MCP tool to call.".to_owned(),
                "This run has no MCP tool with a required text argument; activate a local MCP server in Settings, then send the message again.".to_owned(),
                Vec::new(),
            );
        };
        let mut args = serde_json::Map::new();
        let value = if turn.user_text.split_whitespace().any(|w| w == "bad-args") {
            // Arguments the tool's schema refuses, for the validation before approval.
            json!(42)
        } else {
            Value::String(DEMO_MCP_TEXT.to_owned())
        };
        args.insert(prop.to_owned(), value);
        let mut text = Value::Object(args).to_string();
        // Number literals exactly as written (`number=12345678901234567891`), as the
        // properties n1, n2, …: what a JSON parser could change on the way to the tool.
        for (i, literal) in number_words(turn.user_text).enumerate() {
            text.pop();
            text.push_str(&format!(",\"n{}\":{literal}}}", i + 1));
        }
        return (
            format!("Call the MCP tool {name}."),
            format!("Calling the MCP tool {name}."),
            vec![turn.call(0, name, text)],
        );
    }
    let answer: String = turn
        .results
        .iter()
        .map(|r| format!("\n{} {}: {}", r.tool, outcome(r.content), r.content))
        .collect();
    (
        "Report what the MCP tool returned.".to_owned(),
        format!("The MCP tool answered 工具回答：{answer}"),
        Vec::new(),
    )
}

/// `[demo:mcp-call]`: the named tool with the message's own argument text, so a test can call
/// any tool of a real server with the arguments it needs.
fn demo_mcp_call(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let name = word_value(turn.user_text, "tool=").unwrap_or_default();
        let offered = turn
            .tools
            .iter()
            .any(|t| t["function"]["name"].as_str() == Some(name.as_str()));
        if !offered {
            return (
                "The named tool is not offered.".to_owned(),
                format!("This run offers no tool named {name:?}; nothing was called."),
                Vec::new(),
            );
        }
        let arguments = turn
            .user_text
            .split_once("args=")
            .map_or("{}", |(_, rest)| rest.trim());
        return (
            format!("Call the tool {name}."),
            format!("Calling the tool {name}."),
            vec![turn.call(0, &name, arguments.to_owned())],
        );
    }
    let answer: String = turn
        .results
        .iter()
        .map(|r| format!("\n{} {}: {}", r.tool, outcome(r.content), r.content))
        .collect();
    (
        "Report what the tool returned.".to_owned(),
        format!("The tool answered 工具回答：{answer}"),
        Vec::new(),
    )
}

/// The package `[demo:install]` installs: the simulator's own npm registry holds it.
pub const DEMO_INSTALL_PACKAGE: (&str, &str, &str) = (
    crate::npm::DEMO_PACKAGE,
    crate::npm::DEMO_VERSION,
    crate::npm::DEMO_BIN,
);

/// A field of the latest round's first result, when it is a JSON object that has it.
fn result_field(turn: &Turn<'_>, field: &str) -> Option<String> {
    let first = turn.results.first()?;
    let v: Value = serde_json::from_str(first.content).ok()?;
    v.get(field)?.as_str().map(str::to_owned)
}

/// `[demo:install]`: list → install (approval) → list (the disabled config) → activate (approval).
fn demo_install(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    let (package, version, bin) = DEMO_INSTALL_PACKAGE;
    let stop = |what: &str| {
        (
            format!("The {what} did not succeed: report it."),
            format!("The {what} did not succeed 未成功：{}", report(turn)),
            Vec::new(),
        )
    };
    let failed = turn
        .results
        .first()
        .is_some_and(|r| outcome(r.content) != "succeeded");
    match turn.step {
        0 => (
            "List the configured MCP services first.".to_owned(),
            "Looking at the local MCP services.".to_owned(),
            vec![turn.call(0, "mcp_list_services", "{}".to_owned())],
        ),
        1 if failed => stop("listing"),
        1 => (
            format!("Install {package}@{version} as the person asked."),
            format!(
                "Installing {package}@{version}; please check the approval card. 请确认安装审批。"
            ),
            vec![turn.call(0, "mcp_install_npm", {
                let mut call =
                    json!({"package": package, "version": version, "bin": bin, "args": []});
                if let Some(asked) = turn
                    .user_text
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("bin="))
                {
                    call["bin"] = json!(asked);
                }
                if turn.user_text.split_whitespace().any(|w| w == "cleanUp") {
                    call["cleanUp"] = json!(true);
                }
                call.to_string()
            })],
        ),
        2 if failed => stop("install"),
        2 => (
            "Show the registered, disabled config.".to_owned(),
            "Installed and registered as a disabled config.".to_owned(),
            vec![turn.call(0, "mcp_list_services", "{}".to_owned())],
        ),
        3 => {
            let listed: Value = turn
                .results
                .first()
                .and_then(|r| serde_json::from_str(r.content).ok())
                .unwrap_or(Value::Null);
            let id = listed["services"].as_array().and_then(|all| {
                all.iter()
                    .find(|s| s["name"].as_str().is_some_and(|n| n.starts_with(package)))
                    .and_then(|s| s["id"].as_str())
            });
            match id {
                Some(id) => (
                    format!("Activate the config {id}."),
                    "Activating it; that is a separate approval. 激活需要单独审批。".to_owned(),
                    vec![turn.call(0, "mcp_activate_service", json!({"id": id}).to_string())],
                ),
                None => stop("registration"),
            }
        }
        _ if failed => stop("activation"),
        _ => (
            "Report the activation.".to_owned(),
            format!(
                "{package} is active: {}. Its tools count from your next message — send one with [demo:mcp] to call its echo tool. 下一条消息起可用。",
                result_field(turn, "message").unwrap_or_default()
            ),
            Vec::new(),
        ),
    }
}

/// INST-04: register an installed program as a disabled config.
fn demo_register(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let command = turn
            .user_text
            .split_whitespace()
            .find_map(|w| w.strip_prefix("command="))
            .filter(|c| !c.is_empty())
            .unwrap_or("/usr/local/bin/weather-mcp");
        let args: Vec<&str> = turn
            .user_text
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("arg="))
            .collect();
        return (
            format!("Register {command} as the person asked."),
            format!("Registering {command}; please check the approval card."),
            vec![turn.call(
                0,
                "mcp_register",
                json!({"command": command, "args": args}).to_string(),
            )],
        );
    }
    (
        "Report what the registration returned.".to_owned(),
        format!("The registration 注册结果：{}", report(turn)),
        Vec::new(),
    )
}

/// SIM-14: list, pick a web tab (a background one first), read it; no web tab → the list only.
fn demo_readpage(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    match turn.step {
        0 => (
            "List the preview tabs first.".to_owned(),
            "Looking at your tabs.".to_owned(),
            vec![turn.call(0, "list_preview_tabs", "{}".to_owned())],
        ),
        1 => {
            let listed: Value = turn
                .results
                .first()
                .and_then(|r| serde_json::from_str(r.content).ok())
                .unwrap_or(Value::Null);
            let webs: Vec<&Value> = listed["tabs"]
                .as_array()
                .map(|t| t.iter().filter(|t| t["kind"] == "web").collect())
                .unwrap_or_default();
            let pick = webs
                .iter()
                .find(|t| t["active"] != true)
                .or_else(|| webs.first())
                .and_then(|t| t["tabId"].as_str());
            match pick {
                Some(tab) => (
                    format!("Read web tab {tab}."),
                    "Reading the page.".to_owned(),
                    vec![turn.call(0, "read_webpage", json!({"tabId": tab}).to_string())],
                ),
                None => (
                    "No web tab: report the list.".to_owned(),
                    format!(
                        "There is no web tab to read 没有可读取的网页：{}",
                        report(turn)
                    ),
                    Vec::new(),
                ),
            }
        }
        _ => (
            "Report what the read returned.".to_owned(),
            format!("The page read finished 网页读取结果：{}", report(turn)),
            Vec::new(),
        ),
    }
}

/// SIM-08: ask to show a page of the simulator's test site; after the result, say what it
/// means (accepted for display, never "loaded"), that its status is unknown (it may be open),
/// or that it was not opened.
fn demo_openweb(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    if turn.step == 0 {
        let url = turn
            .user_text
            .split_whitespace()
            .find_map(|w| w.strip_prefix("url="))
            .map(str::to_owned)
            .unwrap_or_else(|| {
                let base = if turn.sim_base.is_empty() {
                    "http://127.0.0.1"
                } else {
                    turn.sim_base
                };
                format!("{base}{}", crate::site::SITE_HOME)
            });
        return (
            format!("Open {url} in the preview."),
            "Opening the test site in the preview.".to_owned(),
            vec![turn.call(0, "open_webpage", json!({"url": url}).to_string())],
        );
    }
    let result = turn
        .results
        .first()
        .and_then(|r| serde_json::from_str::<Value>(r.content).ok())
        .unwrap_or(Value::Null);
    // The Host's "status unknown" (WEB-38): the preview was asked and may have navigated, but
    // its receipt never came, so "not opened" would deny what may have happened.
    let unknown = result["error"]
        .as_str()
        .is_some_and(|e| e.starts_with("status unknown"));
    let said = if result["status"] == "open_request_accepted" {
        "The preview accepted the page; whether it loaded shows in the tab 预览已接受打开请求："
    } else if unknown {
        "Status unknown: the preview was asked to show the page but did not confirm, so it may be open in the tab; nothing was retried 状态未知：网页可能已在标签页中打开，未重试："
    } else {
        "The page was not opened 网页未打开："
    };
    (
        "Report what open_webpage returned.".to_owned(),
        format!("{said}{}", report(turn)),
        Vec::new(),
    )
}

fn demo_loop(turn: &Turn<'_>) -> (String, String, Vec<SimCall>) {
    (
        "Keep looking; never finish.".to_owned(),
        format!("Looking again (step {}).", turn.step + 1),
        vec![turn.call(0, "files_list", json!({"path": "."}).to_string())],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant_with_calls(reply: &Reply) -> Value {
        json!({
            "role": "assistant",
            "content": reply.content,
            "reasoning_content": reply.reasoning,
            "tool_calls": reply.tool_calls.iter().map(|c| json!({
                "id": c.id, "type": "function",
                "function": {"name": c.name, "arguments": c.arguments}
            })).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn a_request_for_a_summary_gets_one_whose_markers_select_nothing() {
        let messages = [
            json!({"role": "system", "content": "s"}),
            json!({"role": "user", "content": "[demo:write] file=a.txt please"}),
            json!({"role": "assistant", "content": "Try [demo:multi]."}),
            json!({"role": "user", "content": "Now Write a SUMMARY of the above."}),
        ];
        let reply = reply(&messages, false);
        assert!(reply.tool_calls.is_empty());
        assert_eq!(
            reply.content,
            "Summary written by the Wisp simulator: the person sent 1 earlier message.\n1. (demo:write] file=a.txt please"
        );
        assert!(SCENARIOS.iter().all(|s| !reply.content.contains(s.marker)));
    }

    #[test]
    fn outcomes_are_read_from_the_json_result_not_from_words_in_it() {
        let tools = json!([{"name": "files_read", "description": "returns an error when refused"}])
            .to_string();
        assert_eq!(outcome(&tools), "succeeded");
        assert_eq!(
            outcome(&json!({"error": "no such file"}).to_string()),
            "failed"
        );
        assert_eq!(
            outcome(&json!({"status": "rejected", "message": "no"}).to_string()),
            "rejected"
        );
        assert_eq!(outcome("plain text with an error"), "failed");
    }

    #[test]
    fn write_scenario_calls_then_reports_each_outcome() {
        let mut history = vec![json!({"role": "user", "content": "[demo:write] go"})];
        let first = reply(&history, true);
        assert_eq!(first.tool_calls.len(), 1);
        assert_eq!(first.tool_calls[0].name, "files_write");
        assert!(first.reasoning.contains(REASONING_CANARY));
        assert_eq!(first.finish_reason(), "tool_calls");
        history.push(assistant_with_calls(&first));
        for (result, expect) in [
            ("{\"status\":\"rejected\"}", "rejected"),
            ("error: parent missing", "failed"),
            ("{\"written\":12}", "was written"),
        ] {
            let mut h = history.clone();
            h.push(
                json!({"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": result}),
            );
            let second = reply(&h, false);
            assert!(second.tool_calls.is_empty());
            assert!(second.reasoning.is_empty());
            assert!(second.content.contains(expect), "{}", second.content);
        }
    }

    #[test]
    fn same_history_gives_same_reply_and_ids_differ_per_step_and_turn() {
        let h1 = vec![json!({"role": "user", "content": "[demo:loop]"})];
        assert_eq!(reply(&h1, true), reply(&h1, true));
        let a = reply(&h1, true);
        let mut h2 = h1.clone();
        h2.push(assistant_with_calls(&a));
        h2.push(json!({"role": "tool", "tool_call_id": a.tool_calls[0].id, "content": "[]"}));
        let b = reply(&h2, true);
        assert_ne!(a.tool_calls[0].id, b.tool_calls[0].id);
        let mut h3 = h2.clone();
        h3.push(json!({"role": "user", "content": "[demo:loop]"}));
        assert_ne!(reply(&h3, true).tool_calls[0].id, a.tool_calls[0].id);
    }

    #[test]
    fn invalid_scenario_sends_broken_arguments_then_a_correction() {
        let h = vec![json!({"role": "user", "content": "[demo:invalid]"})];
        let first = reply(&h, true);
        assert_eq!(first.tool_calls.len(), 3);
        assert!(serde_json::from_str::<Value>(&first.tool_calls[2].arguments).is_err());
        let mut h2 = h.clone();
        h2.push(assistant_with_calls(&first));
        for c in &first.tool_calls {
            h2.push(json!({"role": "tool", "tool_call_id": c.id, "content": "error: invalid arguments"}));
        }
        let second = reply(&h2, true);
        let args: Value = serde_json::from_str(&second.tool_calls[0].arguments).unwrap();
        assert_eq!(args["path"], "wisp-invalid.txt");
    }

    #[test]
    fn write_takes_its_path_from_file_equals() {
        let r = reply(
            &[json!({"role": "user", "content": "[demo:write] file=sub/x.txt please"})],
            false,
        );
        let args: Value = serde_json::from_str(&r.tool_calls[0].arguments).unwrap();
        assert_eq!(args["path"], "sub/x.txt");
    }

    #[test]
    fn read_takes_its_path_from_file_equals_then_reports() {
        let h = vec![json!({"role": "user", "content": "[demo:read] file=dir/fifo"})];
        let first = reply(&h, false);
        assert_eq!(first.tool_calls.len(), 1);
        assert_eq!(first.tool_calls[0].name, "files_read");
        let args: Value = serde_json::from_str(&first.tool_calls[0].arguments).unwrap();
        assert_eq!(args, json!({"path": "dir/fifo"}));
        let mut h2 = h.clone();
        h2.push(assistant_with_calls(&first));
        h2.push(json!({"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "{\"error\":\"dir/fifo: not a regular file\"}"}));
        let second = reply(&h2, false);
        assert!(second.tool_calls.is_empty());
        assert!(
            second.content.contains("files_read failed"),
            "{}",
            second.content
        );
        let default = reply(&[json!({"role": "user", "content": "[demo:read]"})], false);
        assert!(default.tool_calls[0].arguments.contains("README.md"));
    }

    #[test]
    fn search_names_every_place_found_and_every_file_withheld() {
        let h = vec![json!({"role": "user", "content": "[demo:search] query=TODO"})];
        let first = reply(&h, false);
        assert_eq!(first.tool_calls[0].name, "files_search");
        let mut h2 = h.clone();
        h2.push(assistant_with_calls(&first));
        let result = json!({"results": [
            {"path": ".env", "withheld": "an environment file, which often holds API keys and passwords"},
            {"path": "src/main.rs", "line": 2, "snippet": "// TODO"},
        ]});
        h2.push(json!({"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": result.to_string()}));
        let second = reply(&h2, false);
        assert!(
            second.content.contains(" .env (withheld), src/main.rs:2."),
            "{}",
            second.content
        );
    }

    #[test]
    fn secrets_reads_the_env_file_then_says_whether_it_was_sent() {
        let h = vec![json!({"role": "user", "content": "[demo:secrets]"})];
        let first = reply(&h, false);
        assert_eq!(first.tool_calls.len(), 1);
        assert_eq!(first.tool_calls[0].name, "files_read");
        let args: Value = serde_json::from_str(&first.tool_calls[0].arguments).unwrap();
        assert_eq!(args, json!({"path": ".env"}));
        let answer = |result: &str| {
            let mut h2 = h.clone();
            h2.push(assistant_with_calls(&first));
            h2.push(
                json!({"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": result}),
            );
            reply(&h2, false)
        };
        let rejected = answer(
            r#"{"status":"rejected","message":"The person rejected this call; nothing of the file was sent."}"#,
        );
        assert!(rejected.tool_calls.is_empty());
        assert!(
            rejected.content.contains("You declined"),
            "{}",
            rejected.content
        );
        let sent = answer(r#"{"path":".env","content":"A=1\n"}"#);
        assert!(
            sent.content.contains("was sent to me once"),
            "{}",
            sent.content
        );
        let other = reply(
            &[json!({"role": "user", "content": "[demo:secrets] file=.npmrc"})],
            false,
        );
        assert!(other.tool_calls[0].arguments.contains(".npmrc"));
    }

    #[test]
    fn mcp_scenario_calls_the_first_mcp_tool_with_a_required_string() {
        let tools = vec![
            // The Host's own install tool has a required string too, but is no server's tool.
            json!({"type": "function", "function": {"name": "mcp_register", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}),
            json!({"type": "function", "function": {"name": "files_read", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}),
            json!({"type": "function", "function": {"name": "mcp_0a1b2c3d_slow_11223344", "parameters": {"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}}}),
            json!({"type": "function", "function": {"name": "mcp_0a1b2c3d_echo_55667788", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}, "text": {"type": "string"}}, "required": ["n", "text"]}}}),
        ];
        let h = vec![json!({"role": "user", "content": "[demo:mcp]"})];
        let first = reply_with_tools(&h, &tools, false);
        assert_eq!(first.tool_calls.len(), 1);
        assert_eq!(first.tool_calls[0].name, "mcp_0a1b2c3d_echo_55667788");
        assert_eq!(
            first.tool_calls[0].arguments,
            r#"{"text":"hello from wisp"}"#
        );
        let none = reply_with_tools(&h, &tools[..3], false);
        assert!(none.tool_calls.is_empty());
        assert!(none.content.contains("no MCP tool"), "{}", none.content);
        let mut h2 = h.clone();
        h2.push(json!({"role": "assistant", "content": "", "tool_calls": [{"id": first.tool_calls[0].id, "type": "function", "function": {"name": "mcp_0a1b2c3d_echo_55667788", "arguments": first.tool_calls[0].arguments}}]}));
        h2.push(json!({"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "{\"text\":\"Echo: hello from wisp\"}"}));
        let second = reply_with_tools(&h2, &tools, false);
        assert!(second.tool_calls.is_empty());
        assert!(
            second.content.contains("Echo: hello from wisp"),
            "{}",
            second.content
        );
    }

    /// Number literals reach the call's argument text exactly as the message wrote them, and
    /// a quoted file name is decoded as a JSON string.
    #[test]
    fn mcp_number_words_and_quoted_names_pass_through_exactly() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "mcp_0a1b2c3d_echo_55667788", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}}),
        ];
        let h = vec![
            json!({"role": "user", "content": "[demo:mcp] number=12345678901234567891 number=-0 number=1e400 number=0.1000000000000000055511151231257827 number=x1"}),
        ];
        let r = reply_with_tools(&h, &tools, false);
        assert_eq!(
            r.tool_calls[0].arguments,
            r#"{"text":"hello from wisp","n1":12345678901234567891,"n2":-0,"n3":1e400,"n4":0.1000000000000000055511151231257827}"#
        );
        let w = reply(
            &[json!({"role": "user", "content": r#"[demo:write] file="auth\u202etxt.js""#})],
            false,
        );
        let args: Value = serde_json::from_str(&w.tool_calls[0].arguments).unwrap();
        assert_eq!(args["path"], "auth\u{202e}txt.js");
        let m = reply(
            &[json!({"role": "user", "content": r#"[demo:move] file=a.txt to="new\nline""#})],
            false,
        );
        let args: Value = serde_json::from_str(&m.tool_calls[0].arguments).unwrap();
        assert_eq!(args["target"], "new\nline");
        // An unquoted value is taken as written.
        let plain = reply(
            &[json!({"role": "user", "content": r"[demo:read] file=a\n.txt"})],
            false,
        );
        let args: Value = serde_json::from_str(&plain.tool_calls[0].arguments).unwrap();
        assert_eq!(args["path"], r"a\n.txt");
    }

    /// SIM-08: open_webpage of the simulator's site (or url=), then an answer that tells an
    /// accepted request from one whose status is unknown and one not opened.
    #[test]
    fn openweb_opens_the_test_site_then_reports_acceptance() {
        let mut h = vec![json!({"role": "user", "content": "[demo:openweb]"})];
        let r = reply_at(&h, &[], false, "http://127.0.0.1:4242");
        assert_eq!(r.tool_calls[0].name, "open_webpage");
        assert_eq!(
            r.tool_calls[0].arguments,
            r#"{"url":"http://127.0.0.1:4242/site/"}"#
        );
        let other = reply(
            &[json!({"role": "user", "content": "[demo:openweb] url=https://example.com/x"})],
            false,
        );
        assert_eq!(
            other.tool_calls[0].arguments,
            r#"{"url":"https://example.com/x"}"#
        );
        h.push(assistant_with_calls(&r));
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": r#"{"status":"open_request_accepted","tabId":"tab_1"}"#}));
        let done = reply(&h, false);
        assert!(done.tool_calls.is_empty());
        assert!(
            done.content.starts_with("The preview accepted"),
            "{}",
            done.content
        );
        h.pop();
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": r#"{"status":"rejected"}"#}));
        assert!(
            reply(&h, false)
                .content
                .starts_with("The page was not opened")
        );
        // WEB-38: the preview was asked and never confirmed; the tab may have navigated, so
        // the answer says what is known instead of "not opened".
        h.pop();
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": r#"{"error":"status unknown: the preview was asked to show the page in tab tab_1 but did not confirm within 10 s; nothing is retried"}"#}));
        let unknown = reply(&h, false).content;
        assert!(unknown.starts_with("Status unknown"), "{unknown}");
        assert!(unknown.contains("may be open"), "{unknown}");
        assert!(!unknown.contains("not opened"), "{unknown}");
    }

    #[test]
    fn mcp_call_calls_the_named_tool_with_the_argument_text_as_written() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "mcp_0a1b2c3d_echo_55667788", "parameters": {"type": "object"}}}),
            json!({"type": "function", "function": {"name": "mcp_0a1b2c3d_read_graph_99aabbcc", "parameters": {"type": "object"}}}),
        ];
        let h = vec![
            json!({"role": "user", "content": r#"[demo:mcp-call] tool=mcp_0a1b2c3d_read_graph_99aabbcc args={"a": [1, 2.50], "b": "x y"}"#}),
        ];
        let first = reply_with_tools(&h, &tools, false);
        assert_eq!(first.tool_calls.len(), 1);
        assert_eq!(first.tool_calls[0].name, "mcp_0a1b2c3d_read_graph_99aabbcc");
        assert_eq!(
            first.tool_calls[0].arguments,
            r#"{"a": [1, 2.50], "b": "x y"}"#
        );
        let bare = reply_with_tools(
            &[
                json!({"role": "user", "content": "[demo:mcp-call] tool=mcp_0a1b2c3d_echo_55667788"}),
            ],
            &tools,
            false,
        );
        assert_eq!(bare.tool_calls[0].arguments, "{}");
        let missing = reply_with_tools(
            &[
                json!({"role": "user", "content": "[demo:mcp-call] tool=mcp_ffffffff_gone_00000000"}),
            ],
            &tools,
            false,
        );
        assert!(missing.tool_calls.is_empty());
        assert!(
            missing.content.contains("nothing was called"),
            "{}",
            missing.content
        );
        let mut h2 = h.clone();
        h2.push(assistant_with_calls(&first));
        h2.push(json!({"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "{\"text\":\"graph\"}"}));
        let second = reply_with_tools(&h2, &tools, false);
        assert!(second.tool_calls.is_empty());
        assert!(second.content.contains("graph"), "{}", second.content);
    }

    #[test]
    fn install_scenario_lists_installs_lists_and_activates() {
        let mut h = vec![json!({"role": "user", "content": "[demo:install] please"})];
        let answers = [
            r#"{"services":[]}"#,
            r#"{"status":"installed","id":"u1","name":"wisp-demo-mcp 1.0.0"}"#,
            r#"{"services":[{"id":"u1","name":"wisp-demo-mcp 1.0.0","status":"disabled"}]}"#,
            r#"{"status":"active","id":"u1","message":"active with 1 tool(s)"}"#,
        ];
        let mut names = Vec::new();
        for answer in answers {
            let r = reply(&h, false);
            assert_eq!(r.tool_calls.len(), 1, "{}", r.content);
            let call = &r.tool_calls[0];
            names.push(call.name.clone());
            if call.name == "mcp_install_npm" {
                let args: Value = serde_json::from_str(&call.arguments).unwrap();
                assert_eq!(args["package"], "wisp-demo-mcp");
                assert_eq!(args["version"], "1.0.0");
            }
            if call.name == "mcp_activate_service" {
                assert_eq!(call.arguments, r#"{"id":"u1"}"#);
            }
            h.push(json!({"role": "assistant", "content": "", "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}]}));
            h.push(json!({"role": "tool", "tool_call_id": call.id, "content": answer}));
        }
        assert_eq!(
            names,
            [
                "mcp_list_services",
                "mcp_install_npm",
                "mcp_list_services",
                "mcp_activate_service"
            ]
        );
        let last = reply(&h, false);
        assert!(last.tool_calls.is_empty());
        assert!(last.content.contains("[demo:mcp]"), "{}", last.content);
        // A failed install stops the walk and says so.
        let mut failed = h[..5].to_vec();
        failed[4]["content"] = json!(r#"{"error":"npm failed"}"#);
        let r = reply(&failed, false);
        assert!(r.tool_calls.is_empty());
        assert!(
            r.content.contains("install did not succeed"),
            "{}",
            r.content
        );
    }

    #[test]
    fn snapshot_introspects_writes_introspects_then_names_the_tools() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "tool_introspect"}}),
            json!({"type": "function", "function": {"name": "files_write"}}),
        ];
        let mut h = vec![json!({"role": "user", "content": "[demo:snapshot]"})];
        let mut names = Vec::new();
        for _ in 0..3 {
            let r = reply_with_tools(&h, &tools, false);
            names.push(r.tool_calls[0].name.clone());
            h.push(assistant_with_calls(&r));
            let listed = json!([{"name": "tool_introspect"}, {"name": "files_write"}]).to_string();
            h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": listed}));
        }
        assert_eq!(names, ["tool_introspect", "files_write", "tool_introspect"]);
        let last = reply_with_tools(&h, &tools, false);
        assert!(last.tool_calls.is_empty());
        assert!(
            last.content
                .contains("listed 2 tools 工具：tool_introspect, files_write"),
            "{}",
            last.content
        );
        // Without files_write (no project folder) it answers after the first introspection.
        let h = vec![json!({"role": "user", "content": "[demo:snapshot]"})];
        let r = reply_with_tools(&h, &tools[..1], false);
        let mut h = h;
        h.push(assistant_with_calls(&r));
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": "[{\"name\": \"tool_introspect\"}]"}));
        let last = reply_with_tools(&h, &tools[..1], false);
        assert!(last.tool_calls.is_empty());
        assert!(last.content.contains("listed 1 tools"), "{}", last.content);
    }

    #[test]
    fn a_skill_is_read_then_the_reference_its_skill_md_names() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "skills_read", "parameters": {"properties": {"name": {"enum": ["deploy", "review"]}}}}}),
        ];
        let mut h = vec![json!({"role": "user", "content": "[demo:skill]"})];
        let r = reply_with_tools(&h, &tools, false);
        assert_eq!(r.tool_calls[0].name, "skills_read");
        assert_eq!(r.tool_calls[0].arguments, r#"{"name":"deploy"}"#);
        h.push(assistant_with_calls(&r));
        let body = json!({"content": "# deploy\nSee (references/steps.md).\n"}).to_string();
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": body}));
        let r = reply_with_tools(&h, &tools, false);
        assert_eq!(
            r.tool_calls[0].arguments,
            r#"{"name":"deploy","path":"references/steps.md"}"#
        );
        h.push(assistant_with_calls(&r));
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": "{\"content\": \"step 1\"}"}));
        let last = reply_with_tools(&h, &tools, false);
        assert!(last.tool_calls.is_empty());
        assert!(
            last.content.starts_with("The skill deploy was read"),
            "{}",
            last.content
        );

        let h = vec![json!({"role": "user", "content": "[demo:skill] skill=review"})];
        let r = reply_with_tools(&h, &tools, false);
        assert_eq!(r.tool_calls[0].arguments, r#"{"name":"review"}"#);
        let r = reply_with_tools(
            &[json!({"role": "user", "content": "[demo:skill]"})],
            &[],
            false,
        );
        assert!(r.tool_calls.is_empty());
        assert!(r.content.starts_with("No skill was found"), "{}", r.content);
    }

    #[test]
    fn with_scripts_allowed_the_script_skill_md_names_runs_after_the_read() {
        let read = json!({"type": "function", "function": {"name": "skills_read", "parameters": {"properties": {"name": {"enum": ["tidy"]}}}}});
        let run = json!({"type": "function", "function": {"name": "skills_run_script"}});
        let tools = vec![read.clone(), run];
        let mut h = vec![json!({"role": "user", "content": "[demo:skill] args=[\"--all\",\"x\"]"})];
        let r = reply_with_tools(&h, &tools, false);
        h.push(assistant_with_calls(&r));
        let body = json!({"content": "# tidy\nRun `scripts/tidy.py`.\n"}).to_string();
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": body}));
        let r = reply_with_tools(&h, &tools, false);
        assert_eq!(r.tool_calls[0].name, "skills_run_script");
        assert_eq!(
            r.tool_calls[0].arguments,
            r#"{"args":["--all","x"],"name":"tidy","script":"scripts/tidy.py"}"#
        );
        h.push(assistant_with_calls(&r));
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": "{\"exitCode\": 0}"}));
        let last = reply_with_tools(&h, &tools, false);
        assert!(last.tool_calls.is_empty());
        assert!(
            last.content.starts_with("The script of tidy ran"),
            "{}",
            last.content
        );
        // Without the switch (the tool not offered) the demo ends after the read.
        let mut h = vec![json!({"role": "user", "content": "[demo:skill]"})];
        let r = reply_with_tools(&h, &tools[..1], false);
        h.push(assistant_with_calls(&r));
        h.push(json!({"role": "tool", "tool_call_id": r.tool_calls[0].id, "content": body}));
        let r = reply_with_tools(&h, &tools[..1], false);
        assert!(r.tool_calls.is_empty());
        assert!(
            r.content.starts_with("The skill tidy was read"),
            "{}",
            r.content
        );
    }

    #[test]
    fn no_marker_is_a_plain_answer_naming_the_simulator() {
        let r = reply(&[json!({"role": "user", "content": "hello"})], true);
        assert!(r.tool_calls.is_empty());
        assert!(r.content.contains("Wisp simulator"));
    }
}

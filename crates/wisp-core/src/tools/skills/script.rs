//! `skills_run_script` (FILE-05): the managed skill-script mode. A separate high-privilege
//! mode, outside the project-file sandbox: off unless the person turned it on in Settings →
//! Skills (the tool is not offered otherwise), approved every time, and the card shows
//! exactly what runs — the skill, the script's path and sha256 and its whole text, the
//! interpreter as an absolute path, the argument array, the working folder (the project),
//! the names of the environment variables it gets and the time limit.
//!
//! - No shell: the interpreter comes from the script's `#!` line, or else its extension, and
//!   must be one of [`INTERPRETERS`]; the arguments are an array, passed one by one.
//! - The approval binds the script's digest: the card is voided when the script changes while
//!   it waits, and the script is read and checked again right before it starts (it runs from
//!   its place, so that a script can find its skill's other files; what changes it between
//!   that check and the interpreter opening it is not caught).
//! - The script runs in the project folder with the allow-listed environment MCP servers get,
//!   in a process group of its own (a Job Object on Windows); its output streams live under
//!   the call, capped; the time limit and the run's cancel end its whole tree, also what
//!   left the group (the Host's reaper), and so does its own end: nothing it started outlives
//!   it.
//! - What it did is said: the project is snapshotted before and after (bounded), and the
//!   result lists what was created, changed and removed, or where the snapshot could not see.
//! - Confined where this machine can (`crate::confine`): a plain approval runs the script
//!   confined, and full access is the card's other option, with its own canonical text and
//!   digest, that only the person can choose; the model can only ask for it. Where the script
//!   cannot be confined, full access is the card's only option and it says why.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};
use wisp_protocol::ToolInfo;
use wisp_skills::Skill;

use super::named;
use crate::limits::{
    SKILL_SCRIPT_CHANGES_LISTED, SKILL_SCRIPT_MAX_ARG_BYTES, SKILL_SCRIPT_MAX_ARGS,
    SKILL_SCRIPT_OUTPUT_BYTES, SKILL_SCRIPT_RECHECK, SKILL_SCRIPT_TIME_LIMIT,
};
use crate::output::OutputSink;
use crate::tool::{
    Alternative, AsyncWork, Binding, BoxFuture, Execute, Prepared, Subject, Tool, ToolCtx, ToolRef,
};
use crate::tools::parse_args;

/// The tool's name.
pub(crate) const NAME: &str = "skills_run_script";

/// The interpreters a script may name (by extension or `#!` line), and the extensions that
/// choose each.
pub(crate) const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python3", &["py"]),
    ("node", &["js", "mjs", "cjs"]),
    ("bash", &["bash"]),
    ("sh", &["sh"]),
];

/// Bytes of one output line before it is passed on as a line of its own.
const MAX_LINE_BYTES: usize = 8 * 1024;

/// `skills_run_script`, over the skills found when its run started.
struct RunScript {
    skills: Arc<Vec<Skill>>,
    /// [`SKILL_SCRIPT_TIME_LIMIT`], but in tests.
    time_limit: Duration,
}

/// The tool, over `skills` (the run's, the same ones `skills_read` offers).
pub(super) fn tool(skills: Arc<Vec<Skill>>) -> ToolRef {
    Arc::new(RunScript {
        skills,
        time_limit: SKILL_SCRIPT_TIME_LIMIT,
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    name: String,
    script: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    access: Access,
}

/// How much of the machine a script may reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Access {
    /// Linux: writes only below the project and a fresh temporary folder, no network.
    #[default]
    Confined,
    /// The model asks for the person's rights and network: shown on the card; only the person
    /// grants it, by choosing the card's full-access option.
    Full,
}

impl Tool for RunScript {
    fn info(&self) -> ToolInfo {
        let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
        ToolInfo {
            name: NAME.into(),
            description: format!(
                "Run a script of one of the person's skills (a file in the skill's folder, such as scripts/build.py) in the project folder, with the person's approval each time. It runs with the person's rights, outside the file tools' sandbox, for at most {} s; there is no shell: the interpreter comes from the file's #! line or extension ({}) and args are passed as they are. The result has the exit code, the end of its output and what it created, changed and removed in the project. Read the skill's SKILL.md first: run a script only as it says.",
                self.time_limit.as_secs(),
                INTERPRETERS
                    .iter()
                    .map(|(i, _)| *i)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": names},
                    "script": {"type": "string", "description": "The script's path in the skill's folder, e.g. scripts/check.py."},
                    "args": {"type": "array", "items": {"type": "string", "maxLength": SKILL_SCRIPT_MAX_ARG_BYTES}, "maxItems": SKILL_SCRIPT_MAX_ARGS, "description": "Arguments, one string each."},
                    "access": {"type": "string", "enum": ["confined", "full"], "description": "confined (the default): the script may write only in the project folder and a temporary folder, and has no network (where this machine can confine it; the card says when it cannot). full: ask for it only when the script needs the network or to write elsewhere; the card runs the script confined unless the person chooses full access there."}
                },
                "required": ["name", "script"],
                "additionalProperties": false
            }),
            requires_approval: true,
            mcp: None,
        }
    }

    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared {
        let a: RunArgs = match parse_args(NAME, &args) {
            Ok(a) => a,
            Err(e) => return Prepared::Done(Err(e)),
        };
        let skill = match named(&self.skills, &a.name) {
            Ok(s) => s,
            Err(e) => return Prepared::Done(Err(e)),
        };
        if let Err(e) = check_args(&a.args) {
            return Prepared::Done(Err(e));
        }
        let Some(project) = ctx.sandbox.cloned() else {
            return Prepared::Done(Err(
                "a skill's script runs in the session's project folder, and this session has none; nothing was run".into(),
            ));
        };
        let output = ctx.output.clone();
        let time_limit = self.time_limit;
        let helper = ctx.caps.confine_helper.clone();
        Prepared::LookUp(Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                subject(skill, a, project, output, time_limit, helper)
            })
            .await
            .map_err(|_| "the script could not be read; nothing was run".to_owned())?
        }))
    }
}

fn check_args(args: &[String]) -> Result<(), String> {
    if args.len() > SKILL_SCRIPT_MAX_ARGS {
        return Err(format!(
            "args: at most {SKILL_SCRIPT_MAX_ARGS} arguments; nothing was run"
        ));
    }
    for (i, arg) in args.iter().enumerate() {
        if arg.len() > SKILL_SCRIPT_MAX_ARG_BYTES {
            return Err(format!(
                "args[{i}]: at most {SKILL_SCRIPT_MAX_ARG_BYTES} bytes; nothing was run"
            ));
        }
        if arg.contains('\0') {
            return Err(format!(
                "args[{i}]: holds a NUL character, which no program can be given; nothing was run"
            ));
        }
    }
    Ok(())
}

/// The script as read now: its path in the skill, its text and digest.
struct Script {
    rel: String,
    text: String,
    sha256: String,
}

/// Reads `rel` of `skill` whole, through the sandbox rooted at the skill's folder (no `..`,
/// no link out of it).
fn read_script(skill: &Skill, rel: &str) -> Result<Script, String> {
    let sandbox = wisp_fs::Sandbox::open(&skill.dir)
        .map_err(|e| format!("the skill {}: {}", skill.name, e.message))?;
    let read = sandbox.read(rel, None, None).map_err(|e| e.message)?;
    let Some(sha256) = read.sha256 else {
        return Err(format!(
            "{}: {} bytes, more than a card can show ({} bytes at most)",
            read.path,
            read.size,
            wisp_fs::limits::MAX_READ_BYTES
        ));
    };
    Ok(Script {
        rel: read.path,
        text: read.content,
        sha256,
    })
}

/// The interpreter `script` names: its `#!` line when that names one Wisp runs scripts with
/// (a `.sh` file written for bash says so there), else its extension.
fn interpreter_of(script: &Script) -> Result<&'static str, String> {
    let allowed = || {
        INTERPRETERS
            .iter()
            .map(|(i, _)| *i)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let hash_bang = script
        .text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("#!"))
        .map(|line| {
            let mut words = line.split_whitespace();
            let mut program = words.next().unwrap_or("");
            if Path::new(program).file_name().and_then(|n| n.to_str()) == Some("env") {
                program = words.find(|w| !w.starts_with('-')).unwrap_or("");
            }
            Path::new(program)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_owned()
        });
    if let Some(named) = &hash_bang
        && let Some((name, _)) = INTERPRETERS.iter().find(|(i, _)| i == named)
    {
        return Ok(name);
    }
    let ext = Path::new(&script.rel)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if let Some(ext) = &ext
        && let Some((name, _)) = INTERPRETERS
            .iter()
            .find(|(_, exts)| exts.contains(&ext.as_str()))
    {
        return Ok(name);
    }
    Err(match hash_bang {
        Some(named) => format!(
            "{}: its #! line names {named:?}, which is not an interpreter Wisp runs scripts with ({}); nothing was run",
            script.rel,
            allowed()
        ),
        None => format!(
            "{}: neither its extension nor a #! line names an interpreter Wisp runs scripts with ({}); nothing was run",
            script.rel,
            allowed()
        ),
    })
}

/// The approval of one run of a script: what the card shows and what runs once approved.
fn subject(
    skill: Skill,
    a: RunArgs,
    project: Arc<wisp_fs::Sandbox>,
    output: OutputSink,
    time_limit: Duration,
    helper: Option<PathBuf>,
) -> Result<Subject, String> {
    let script = read_script(&skill, &a.script).map_err(|e| format!("{e}; nothing was run"))?;
    let interpreter_name = interpreter_of(&script)?;
    let path_var = std::env::var_os("PATH");
    let interpreter = wisp_mcp::resolve_command(interpreter_name, path_var.as_deref())
        .map_err(|e| format!("{interpreter_name}: {e}; nothing was run"))?;
    let script_path = skill.dir.join(&script.rel);
    let cwd = project.root().to_path_buf();
    // The model's ask for full access is shown, never followed: confined is what a plain
    // approval runs wherever this machine can confine, and full access is the person's own
    // choice on the card.
    let asked_full = a.access == Access::Full;
    let option = |confined: Option<PathBuf>, why: Option<String>| {
        let mut access = match &why {
            None => {
                json!({"mode": "confined", "writes": ["the working folder", "a new temporary folder (TMPDIR), removed after the run"], "network": "none"})
            }
            Some(why) => json!({"mode": "full", "why": why}),
        };
        if asked_full {
            access["modelAsked"] = json!("full");
        }
        let mut env = wisp_mcp::child_env(std::env::vars_os(), &[]);
        if confined.is_some() {
            // The helper makes the run's own temporary folder and names it there.
            env.retain(|(k, _)| k != "TMPDIR");
            env.push(("TMPDIR".into(), "".into()));
        }
        let env_names: Vec<String> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        let shown = json!({
            "skill": skill.name,
            "skillFolder": wisp_fs::plain_path(&skill.dir).to_string_lossy(),
            "script": script.rel,
            "sha256": script.sha256,
            "content": script.text,
            "interpreter": wisp_fs::plain_path(&interpreter).to_string_lossy(),
            "args": a.args,
            "cwd": wisp_fs::plain_path(&cwd).to_string_lossy(),
            "env": env_names,
            "timeLimitSeconds": time_limit.as_secs(),
            "access": access,
        });
        let plan = Plan {
            skill: skill.clone(),
            rel: script.rel.clone(),
            sha256: script.sha256.clone(),
            interpreter: interpreter.clone(),
            script_path: script_path.clone(),
            args: a.args.clone(),
            cwd: cwd.clone(),
            env,
            project: project.clone(),
            output: output.clone(),
            time_limit,
            confined,
        };
        let execute: AsyncWork =
            Box::new(move |cancel| Box::pin(run(plan, cancel)) as BoxFuture<Result<Value, String>>);
        (shown, execute)
    };
    let ((arguments, execute), alternative) = match crate::confine::available(helper.as_deref()) {
        Ok(()) => {
            let full = option(
                None,
                Some("you chose full access on this card instead of a confined run".into()),
            );
            (
                option(helper, None),
                Some(Alternative {
                    arguments: full.0,
                    execute: full.1,
                }),
            )
        }
        Err(why) => (
            option(None, Some(format!("it cannot be confined here: {why}"))),
            None,
        ),
    };
    let voided = watch_script(skill.clone(), script.rel.clone(), script.sha256.clone());
    Ok(Subject {
        arguments,
        execute: Execute::InProject(execute),
        binding: Some(Binding::voided_by(voided)),
        unchanged: "nothing was run",
        alternative,
    })
}

/// Resolves, with the reason, once the script is not the one the card shows.
fn watch_script(skill: Skill, rel: String, sha256: String) -> BoxFuture<String> {
    Box::pin(async move {
        loop {
            tokio::time::sleep(SKILL_SCRIPT_RECHECK).await;
            let (skill, rel) = (skill.clone(), rel.clone());
            let now = tokio::task::spawn_blocking(move || read_script(&skill, &rel)).await;
            match now {
                Ok(Ok(s)) if s.sha256 == sha256 => continue,
                Ok(Ok(s)) => {
                    return format!(
                        "the script {} changed after the card was shown (its sha256 is now {}); nothing was run",
                        s.rel, s.sha256
                    );
                }
                Ok(Err(e)) => {
                    return format!("the script can no longer be read: {e}; nothing was run");
                }
                Err(_) => return "the script could not be read again; nothing was run".into(),
            }
        }
    })
}

/// Everything an approved run needs, fixed at the card.
struct Plan {
    skill: Skill,
    rel: String,
    sha256: String,
    interpreter: PathBuf,
    script_path: PathBuf,
    args: Vec<String>,
    cwd: PathBuf,
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    project: Arc<wisp_fs::Sandbox>,
    output: OutputSink,
    time_limit: Duration,
    /// The confinement helper, when the run is confined.
    confined: Option<PathBuf>,
}

/// How the script's process ended.
enum Ended {
    Exited(std::io::Result<std::process::ExitStatus>),
    TimedOut,
    Cancelled,
}

/// The last bytes of one output stream, and how many there were in all.
#[derive(Default)]
struct Tail {
    /// The last lines, each ended by a newline (also a piece of a line too long to wait for).
    kept: VecDeque<u8>,
    /// Bytes the stream had: a newline counts only where the script wrote one.
    total: u64,
    /// Whether anything was dropped from the front.
    cut: bool,
}

impl Tail {
    fn push(&mut self, line: &[u8], newline: bool) {
        self.total += line.len() as u64 + u64::from(newline);
        self.kept.extend(line);
        self.kept.push_back(b'\n');
        let over = self.kept.len().saturating_sub(SKILL_SCRIPT_OUTPUT_BYTES);
        if over > 0 {
            self.kept.drain(..over);
            self.cut = true;
        }
    }

    fn text(&self) -> String {
        let bytes: Vec<u8> = self.kept.iter().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

async fn run(plan: Plan, cancel: BoxFuture<()>) -> Result<Value, String> {
    // Checked again now: the card's script, or nothing runs.
    let (skill, rel) = (plan.skill.clone(), plan.rel.clone());
    let now = tokio::task::spawn_blocking(move || read_script(&skill, &rel))
        .await
        .map_err(|_| "the script could not be read again; nothing was run".to_owned())?
        .map_err(|e| format!("{e}; nothing was run"))?;
    if now.sha256 != plan.sha256 {
        return Err(format!(
            "the script {} changed after the card was shown (its sha256 is now {}); nothing was run",
            now.rel, now.sha256
        ));
    }
    let project = plan.project.clone();
    let before = tokio::task::spawn_blocking(move || project.snapshot())
        .await
        .map_err(|_| {
            "the project could not be looked at before the run; nothing was run".to_owned()
        })?;

    // A confined run gets a temporary folder of its own, the one place besides the project it
    // may write to; removed after the run.
    let temp = match &plan.confined {
        Some(_) => Some(TempDir::new().map_err(|e| {
            format!("no temporary folder could be made for the script ({e}); nothing was run")
        })?),
        None => None,
    };
    let mut script_args: Vec<std::ffi::OsString> = vec![plan.script_path.clone().into()];
    script_args.extend(plan.args.iter().map(Into::into));
    let mut command = match (&plan.confined, &temp) {
        (Some(helper), Some(temp)) => {
            let mut c = tokio::process::Command::new(helper);
            c.args(crate::confine::helper_args(
                &[&plan.cwd, &temp.0],
                &plan.interpreter,
                &script_args,
            ));
            c
        }
        _ => {
            let mut c = tokio::process::Command::new(&plan.interpreter);
            c.args(&script_args);
            c
        }
    };
    let env = plan.env.iter().map(|(k, v)| match &temp {
        Some(t) if k == "TMPDIR" => (k.clone(), t.0.clone().into_os_string()),
        _ => (k.clone(), v.clone()),
    });
    command
        .current_dir(&plan.cwd)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = wisp_mcp::ProcessTree::spawn(command).map_err(|e| {
        format!(
            "{} could not be started: {e}; nothing was run",
            plan.interpreter.display()
        )
    })?;
    plan.output
        .step("run", &format!("{} {}", plan.skill.name, plan.rel));
    let (_, stdout, stderr) = child.pipes();
    let tails = Arc::new(Mutex::new((Tail::default(), Tail::default())));
    let readers = [
        stdout.map(|s| tokio::spawn(pump(s, plan.output.clone(), tails.clone(), false))),
        stderr.map(|s| tokio::spawn(pump(s, plan.output.clone(), tails.clone(), true))),
    ];
    let ended = tokio::select! {
        status = child.wait() => Ended::Exited(status),
        () = tokio::time::sleep(plan.time_limit) => Ended::TimedOut,
        () = cancel => Ended::Cancelled,
    };
    // Whatever it started ends with it, also after a normal exit.
    child.kill().await;
    for reader in readers.into_iter().flatten() {
        // A pipe still held by something the kill did not reach is not waited on forever.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), reader).await;
    }
    let project = plan.project.clone();
    let after = tokio::task::spawn_blocking(move || project.snapshot()).await;
    let changes = match &after {
        Ok(after) => changes_json(&wisp_fs::changes(&before, after)),
        Err(_) => json!({"unknown": "the project could not be looked at after the run"}),
    };
    let (out, err) = {
        let t = tails.lock().unwrap_or_else(|e| e.into_inner());
        (
            json!({"text": t.0.text(), "bytes": t.0.total, "cut": t.0.cut}),
            json!({"text": t.1.text(), "bytes": t.1.total, "cut": t.1.cut}),
        )
    };
    // What the snapshot cannot see is said too: outside the project, only confinement tells.
    let said = format!(
        "{} {}",
        changes_sentence(&changes),
        if plan.confined.is_some() {
            "It ran confined: it could write nowhere outside the project but its own temporary folder, and had no network."
        } else {
            "It ran with full access: what it changed outside the project is not tracked."
        }
    );
    match ended {
        Ended::Exited(Ok(status)) if status.success() => Ok(json!({
            "status": "exited",
            "exitCode": 0,
            "access": if plan.confined.is_some() { "confined" } else { "full" },
            "stdout": out,
            "stderr": err,
            "changes": changes,
            "message": format!("{} {} exited with code 0. {said}", plan.skill.name, plan.rel),
        })),
        Ended::Exited(Ok(status)) => Err(format!(
            "{} {} {}. {said} Its stderr ended with: {} Its stdout ended with: {}",
            plan.skill.name,
            plan.rel,
            match status.code() {
                Some(code) => format!("exited with code {code}"),
                None => "was ended by a signal".to_owned(),
            },
            quoted(&err),
            quoted(&out)
        )),
        Ended::Exited(Err(e)) => Err(format!(
            "waiting for the script failed ({e}); it was ended with everything it started. {said}"
        )),
        Ended::TimedOut => Err(format!(
            "{} {} ran past its time limit of {} s and was ended with everything it started. {said} Its output ended with: {}",
            plan.skill.name,
            plan.rel,
            plan.time_limit.as_secs(),
            quoted(&out)
        )),
        Ended::Cancelled => Err(format!(
            "stopped: the script was ended with everything it started. {said}"
        )),
    }
}

/// A fresh private folder under the system's temporary folder, removed (with what is in it)
/// when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<Self> {
        let dir = std::env::temp_dir().join(crate::new_id("wisp-script"));
        #[cfg(unix)]
        let builder = {
            let mut b = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b
        };
        #[cfg(not(unix))]
        let builder = std::fs::DirBuilder::new();
        builder.create(&dir)?;
        Ok(Self(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Lines of one stream to the live output and its tail.
async fn pump(
    mut stream: impl AsyncRead + Unpin,
    output: OutputSink,
    tails: Arc<Mutex<(Tail, Tail)>>,
    is_err: bool,
) {
    let mut chunk = vec![0u8; 16 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let emit = |line: &mut Vec<u8>, newline: bool| {
        let text = String::from_utf8_lossy(line).into_owned();
        output.line(&text);
        let mut t = tails.lock().unwrap_or_else(|e| e.into_inner());
        if is_err { &mut t.1 } else { &mut t.0 }.push(line, newline);
        line.clear();
    };
    loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                for &b in &chunk[..n] {
                    if b == b'\n' {
                        emit(&mut line, true);
                    } else {
                        line.push(b);
                        if line.len() >= MAX_LINE_BYTES {
                            emit(&mut line, false);
                        }
                    }
                }
            }
        }
    }
    if !line.is_empty() {
        emit(&mut line, false);
    }
}

fn quoted(stream: &Value) -> String {
    let text = stream["text"].as_str().unwrap_or("");
    if text.trim().is_empty() {
        "(nothing)".into()
    } else {
        format!("{:?}", text.trim_end())
    }
}

fn changes_json(c: &wisp_fs::TreeChanges) -> Value {
    let list = |paths: &[String]| {
        json!({
            "count": paths.len(),
            "paths": paths.iter().take(SKILL_SCRIPT_CHANGES_LISTED).collect::<Vec<_>>(),
        })
    };
    json!({
        "created": list(&c.created),
        "changed": list(&c.changed),
        "removed": list(&c.removed),
        "unseen": c.gaps.iter().take(SKILL_SCRIPT_CHANGES_LISTED).collect::<Vec<_>>(),
    })
}

/// What the changes say, in one sentence for the model.
fn changes_sentence(changes: &Value) -> String {
    if let Some(unknown) = changes["unknown"].as_str() {
        return format!("What it changed in the project is not known: {unknown}.");
    }
    let count = |k: &str| changes[k]["count"].as_u64().unwrap_or(0);
    let (c, m, r) = (count("created"), count("changed"), count("removed"));
    let unseen = changes["unseen"].as_array().map_or(0, Vec::len);
    let mut s = if c + m + r == 0 {
        "It changed nothing in the project".to_owned()
    } else {
        format!(
            "In the project it created {c}, changed {m} and removed {r} entries (listed in changes)"
        )
    };
    if unseen > 0 {
        s.push_str(
            ", as far as Wisp could look: parts of the project were not looked at (changes.unseen)",
        );
    }
    s.push('.');
    s
}

#[cfg(test)]
mod tests;

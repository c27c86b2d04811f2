//! Import proposals from other hosts' configs: Claude Desktop, Cursor and a
//! project's VS Code `mcp.json`. A proposal is only a proposal: the Host shows it, the person
//! picks, the server arrives disabled, and the `env` values come back separately so the Host
//! can offer to put them in the secret store. Remote (`url`) entries are listed as not
//! supported, never dropped silently. Reading a file here never starts anything.
//!
//! A config is read as the file tools read a project's file: opened through a handle of its
//! folder (the project for `.vscode/mcp.json`, the home directory for the person's own hosts'
//! files) with cap-std, so a symlink that leads out of that folder is refused by the kernel;
//! the open adds `O_NONBLOCK`, so a FIFO cannot block it; `fstat` of the opened handle must say
//! "regular file", so `/dev/zero`, a FIFO or a directory is refused; and at most
//! [`MAX_CONFIG_FILE_BYTES`] + 1 bytes are read from the handle, whatever the metadata says.
//! Each refusal names the file and why.

use std::io::Read;
use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use serde_json::Value;

use crate::limits::MAX_CONFIG_FILE_BYTES;

/// Which host a proposal comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor's `~/.cursor/mcp.json`.
    Cursor,
    /// The project's `.vscode/mcp.json`.
    VsCode,
}

/// One server found in another host's config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// Where it was found.
    pub source: Source,
    /// The file it was found in.
    pub file: PathBuf,
    /// Its name there.
    pub name: String,
    /// Its command (empty for an unsupported entry).
    pub command: String,
    /// Its argument array.
    pub args: Vec<String>,
    /// Its working directory, when the config gave an absolute one.
    pub cwd: Option<String>,
    /// Its variables with their values: for the secret store, only when the person confirms.
    pub env: Vec<(String, String)>,
    /// Why it cannot be imported as it is (a remote server, an unsupported type), if so.
    pub unsupported: Option<String>,
}

/// The files this machine's hosts use, for a home directory and an optional project.
pub fn known_files(home: &Path, project: Option<&Path>) -> Vec<(Source, PathBuf)> {
    known_files_beneath(home, project)
        .into_iter()
        .map(|(source, folder, rel)| (source, folder.join(rel)))
        .collect()
}

/// [`known_files`] as (source, the folder it must stay beneath, its path inside that folder).
fn known_files_beneath(home: &Path, project: Option<&Path>) -> Vec<(Source, PathBuf, PathBuf)> {
    let claude = if cfg!(target_os = "macos") {
        (
            home.to_path_buf(),
            PathBuf::from("Library/Application Support/Claude/claude_desktop_config.json"),
        )
    } else if cfg!(windows) {
        (
            std::env::var_os("APPDATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join("AppData/Roaming")),
            PathBuf::from("Claude/claude_desktop_config.json"),
        )
    } else {
        // No official Linux build; community builds use this path.
        (
            home.to_path_buf(),
            PathBuf::from(".config/Claude/claude_desktop_config.json"),
        )
    };
    let mut files = vec![
        (Source::ClaudeDesktop, claude.0, claude.1),
        (
            Source::Cursor,
            home.to_path_buf(),
            PathBuf::from(".cursor/mcp.json"),
        ),
    ];
    if let Some(project) = project {
        files.push((
            Source::VsCode,
            project.to_path_buf(),
            PathBuf::from(".vscode/mcp.json"),
        ));
    }
    files
}

/// Reads one config beneath `folder` (see the module doc): `Ok(None)` when it does not exist,
/// an error naming the file and why when it is not a regular file inside the folder of at most
/// [`MAX_CONFIG_FILE_BYTES`] bytes of UTF-8.
pub fn read_beneath(folder: &Path, rel: &Path) -> Result<Option<String>, String> {
    let shown = folder.join(rel).display().to_string();
    let dir = match Dir::open_ambient_dir(folder, ambient_authority()) {
        Ok(dir) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not open the folder of {shown}: {e}")),
    };
    let mut options = OpenOptions::new();
    options.read(true);
    // A FIFO at the config's path must not hang the scan (Windows file systems hold none).
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let file = match dir.open_with(rel, &options) {
        Ok(file) => file,
        Err(e) => {
            use std::io::ErrorKind as K;
            return match e.kind() {
                K::NotFound => Ok(None),
                // cap-std reports a path that resolves outside the folder as PermissionDenied;
                // a file the person may not read says so in the same words, hence both.
                K::PermissionDenied => Err(format!(
                    "{shown} was not read: it leads outside {} (a symlink out of the folder) or may not be read",
                    folder.display()
                )),
                K::NotADirectory => Err(format!(
                    "{shown} was not read: a part of its path is not a folder"
                )),
                _ => Err(format!("could not read {shown}: {e}")),
            };
        }
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("could not read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{shown} was not read: it is {}, not a regular file; only regular files are imported",
            kind_name(meta.file_type())
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("could not read {shown}: {e}"))?;
    if bytes.len() > MAX_CONFIG_FILE_BYTES {
        return Err(format!(
            "{shown} was not read: it is larger than the limit of {MAX_CONFIG_FILE_BYTES} bytes"
        ));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{shown} was not read: it is not UTF-8 text"))
}

/// What a non-regular entry is, for messages.
fn kind_name(ft: cap_std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use cap_std::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        } else if ft.is_socket() {
            return "a socket";
        } else if ft.is_char_device() {
            return "a character device";
        } else if ft.is_block_device() {
            return "a block device";
        }
    }
    "not a regular file"
}

/// Every proposal from the known files that exist; a file that cannot be read or parsed is an
/// error entry (`Err`) with its path, so the Host can say which one.
pub fn scan(home: &Path, project: Option<&Path>) -> Vec<Result<Proposal, String>> {
    let mut out = Vec::new();
    for (source, folder, rel) in known_files_beneath(home, project) {
        let file = folder.join(&rel);
        match read_beneath(&folder, &rel) {
            Ok(None) => {}
            Ok(Some(text)) => match parse(source, &file, &text) {
                Ok(found) => out.extend(found.into_iter().map(Ok)),
                Err(e) => out.push(Err(e)),
            },
            Err(e) => out.push(Err(e)),
        }
    }
    out
}

/// Parses one host's config text.
pub fn parse(source: Source, file: &Path, text: &str) -> Result<Vec<Proposal>, String> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| format!("{} is not valid JSON: {e}", file.display()))?;
    let key = match source {
        Source::VsCode => "servers",
        Source::ClaudeDesktop | Source::Cursor => "mcpServers",
    };
    let Some(servers) = root.get(key) else {
        return Ok(Vec::new());
    };
    let Some(servers) = servers.as_object() else {
        return Err(format!("{}: \"{key}\" is not an object", file.display()));
    };
    Ok(servers
        .iter()
        .map(|(name, entry)| proposal(source, file, name, entry))
        .collect())
}

fn proposal(source: Source, file: &Path, name: &str, entry: &Value) -> Proposal {
    let mut p = Proposal {
        source,
        file: file.to_path_buf(),
        name: name.to_owned(),
        command: String::new(),
        args: Vec::new(),
        cwd: None,
        env: Vec::new(),
        unsupported: None,
    };
    let kind = entry.get("type").and_then(Value::as_str);
    if entry.get("url").is_some() || matches!(kind, Some("http" | "sse" | "streamable-http")) {
        p.unsupported =
            Some("a remote server (url); only local stdio servers are supported".into());
        return p;
    }
    if let Some(kind) = kind
        && kind != "stdio"
    {
        p.unsupported = Some(format!("the server type {kind:?} is not supported"));
        return p;
    }
    let Some(command) = entry.get("command").and_then(Value::as_str) else {
        p.unsupported = Some("the entry has no command".into());
        return p;
    };
    p.command = command.to_owned();
    p.args = match entry.get("args") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let strings: Option<Vec<String>> = items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect();
            match strings {
                Some(s) => s,
                None => {
                    p.unsupported = Some("an argument is not a string".into());
                    return p;
                }
            }
        }
        Some(_) => {
            p.unsupported = Some("\"args\" is not an array".into());
            return p;
        }
    };
    p.cwd = entry
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| Path::new(c).is_absolute())
        .map(str::to_owned);
    if let Some(env) = entry.get("env").and_then(Value::as_object) {
        p.env = env
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), value)
            })
            .collect();
    }
    let substituted = std::iter::once(&p.command)
        .chain(&p.args)
        .chain(p.env.iter().map(|(_, v)| v))
        .any(|s| s.contains("${"));
    if substituted {
        // `${input:…}`, `${env:…}`, `${workspaceFolder}`: the person must fill these in.
        p.unsupported =
            Some("it uses ${…} substitutions; fill in the real values after importing".into());
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_cursor_and_vscode_configs_become_proposals() {
        let claude = r#"{"globalShortcut": "x", "mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"TOKEN": "sk-canary"}},
            "remote": {"url": "https://example.com/mcp"}
        }}"#;
        let found = parse(Source::ClaudeDesktop, Path::new("/c.json"), claude).unwrap();
        assert_eq!(found.len(), 2);
        let fs = found.iter().find(|p| p.name == "fs").unwrap();
        assert_eq!(fs.command, "npx");
        assert_eq!(fs.args.len(), 3);
        assert_eq!(fs.env, vec![("TOKEN".to_owned(), "sk-canary".to_owned())]);
        assert!(fs.unsupported.is_none());
        let remote = found.iter().find(|p| p.name == "remote").unwrap();
        assert!(remote.unsupported.as_deref().unwrap().contains("remote"));

        let vscode = r#"{"inputs": [], "servers": {
            "local": {"type": "stdio", "command": "/usr/bin/srv", "args": ["${input:key}"]},
            "web": {"type": "http", "url": "https://x"},
            "plain": {"type": "stdio", "command": "/usr/bin/plain", "cwd": "/srv"}
        }}"#;
        let found = parse(Source::VsCode, Path::new("/p/.vscode/mcp.json"), vscode).unwrap();
        assert_eq!(found.len(), 3);
        let by_name = |n: &str| found.iter().find(|p| p.name == n).unwrap();
        assert!(
            by_name("local")
                .unsupported
                .as_deref()
                .unwrap()
                .contains("substitutions")
        );
        assert!(
            by_name("web")
                .unsupported
                .as_deref()
                .unwrap()
                .contains("remote")
        );
        assert_eq!(by_name("plain").cwd.as_deref(), Some("/srv"));
        assert!(by_name("plain").unsupported.is_none());
        // VS Code's key is "servers": an mcpServers block there is not VS Code's format.
        assert!(
            parse(
                Source::VsCode,
                Path::new("/x"),
                r#"{"mcpServers": {"a": {"command": "b"}}}"#
            )
            .unwrap()
            .is_empty()
        );
        assert!(
            parse(Source::Cursor, Path::new("/x"), "{not json")
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(parse(Source::Cursor, Path::new("/x"), r#"{"mcpServers": []}"#).is_err());
    }

    #[test]
    fn scan_reads_the_known_files_under_home_and_project() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".cursor")).unwrap();
        std::fs::write(
            home.path().join(".cursor/mcp.json"),
            r#"{"mcpServers": {"c": {"command": "/bin/c"}}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(project.path().join(".vscode")).unwrap();
        std::fs::write(project.path().join(".vscode/mcp.json"), "[").unwrap();
        let found = scan(home.path(), Some(project.path()));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].as_ref().unwrap().source, Source::Cursor);
        assert!(found[1].as_ref().unwrap_err().contains(".vscode/mcp.json"));
    }

    #[cfg(unix)]
    /// One project whose `.vscode/mcp.json` is what `plant` makes it; the scan's only entry.
    fn project_with(plant: impl FnOnce(&Path)) -> String {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.path().join(".vscode")).unwrap();
        plant(&project.path().join(".vscode/mcp.json"));
        let found = scan(home.path(), Some(project.path()));
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].clone().unwrap_err()
    }

    #[cfg(unix)]
    #[test]
    fn a_device_a_fifo_a_folder_an_escape_or_a_large_file_is_refused_by_name() {
        let e = project_with(|f| std::os::unix::fs::symlink("/dev/zero", f).unwrap());
        assert!(
            e.contains(".vscode/mcp.json") && e.contains("leads outside"),
            "{e}"
        );
        let e = project_with(|f| {
            let status = std::process::Command::new("mkfifo")
                .arg(f)
                .status()
                .unwrap();
            assert!(status.success());
        });
        assert!(e.contains("a FIFO, not a regular file"), "{e}");
        let e = project_with(|f| std::fs::create_dir(f).unwrap());
        assert!(e.contains("a folder, not a regular file"), "{e}");
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("mcp.json");
        std::fs::write(&secret, r#"{"servers": {"s": {"command": "/bin/s"}}}"#).unwrap();
        let e = project_with(|f| std::os::unix::fs::symlink(&secret, f).unwrap());
        assert!(e.contains("leads outside"), "{e}");
        let e = project_with(|f| std::fs::write(f, vec![b' '; 2 * 1024 * 1024]).unwrap());
        assert!(e.contains("larger than the limit of 1048576 bytes"), "{e}");
        // Exactly at the limit is still read (and parsed: here, not JSON).
        let e = project_with(|f| std::fs::write(f, vec![b'x'; MAX_CONFIG_FILE_BYTES]).unwrap());
        assert!(e.contains("not valid JSON"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_the_folder_is_followed_and_a_home_device_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.path().join(".vscode")).unwrap();
        std::fs::write(
            project.path().join("real.json"),
            r#"{"servers": {"s": {"command": "/bin/s"}}}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink("../real.json", project.path().join(".vscode/mcp.json"))
            .unwrap();
        std::fs::create_dir_all(home.path().join(".cursor")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", home.path().join(".cursor/mcp.json")).unwrap();
        let found = scan(home.path(), Some(project.path()));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].as_ref().unwrap_err().contains(".cursor/mcp.json"));
        assert_eq!(found[1].as_ref().unwrap().name, "s");
    }
}

//! The command check of `mcp_register` (INST-04): an absolute path to an existing executable
//! file, an argument array and an optional absolute working directory. Shells and package
//! runners are refused as the command — by the name given and by the name the path resolves
//! to through symlinks (`/usr/bin/sh` → `dash`, a link named `server` → `npx-cli.js`) — since
//! they would run whatever their arguments say instead of one installed program.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::InstallError;
use crate::limits::MAX_COMMAND_LEN;
use crate::plan::check_args;

/// Programs refused as a register command, compared case-insensitively by basename with a
/// Windows extension (`.exe`, `.cmd`, `.bat`, `.ps1`) removed.
pub const REFUSED_COMMANDS: &[&str] = &[
    // Shells.
    "sh",
    "bash",
    "zsh",
    "dash",
    "fish",
    "ksh",
    "mksh",
    "tcsh",
    "csh",
    "ash",
    "busybox",
    "nu",
    "cmd",
    "powershell",
    "pwsh",
    // Package runners and managers.
    "npx",
    "npm",
    "pnpm",
    "pnpx",
    "yarn",
    "yarnpkg",
    "bunx",
    "bun",
    "uvx",
    "uv",
    "pipx",
    "pip",
    "pip3",
    "corepack",
    "npm-cli.js",
    "npx-cli.js",
    "pnpm.cjs",
    "yarn.js",
    "nix-shell",
    // Programs whose job is to run another program named in their arguments.
    "env",
    "xargs",
    "nohup",
    "sudo",
    "doas",
    "su",
    "setsid",
    "nice",
    "timeout",
    "stdbuf",
    "script",
    "exec",
    "command",
    "start",
];

/// A checked register request: what a disabled MCP server config gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterCommand {
    /// The absolute path as given (shown on the trust card).
    pub command: PathBuf,
    /// The startup arguments.
    pub args: Vec<String>,
    /// The working directory, when given.
    pub cwd: Option<PathBuf>,
}

/// Checks an `mcp_register` request; the error says exactly what to change.
pub fn check_register(
    command: &str,
    args: Vec<String>,
    cwd: Option<&str>,
) -> Result<RegisterCommand, InstallError> {
    let bad = |why: String| InstallError::Command(why);
    if command.is_empty() {
        return Err(bad(
            "the command is empty; give the program's absolute path".into(),
        ));
    }
    if command.len() > MAX_COMMAND_LEN {
        return Err(bad(format!(
            "the command is longer than {MAX_COMMAND_LEN} bytes"
        )));
    }
    if command.chars().any(char::is_control) {
        return Err(bad("the command contains a control character".into()));
    }
    let path = Path::new(command);
    if !path.is_absolute() {
        return Err(bad(format!(
            "{command:?} is not an absolute path; give the installed program's full path \
             (what `command -v NAME` prints in a terminal)"
        )));
    }
    refuse_runner(path, command)?;
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| bad(format!("{command} does not exist or cannot be read ({e})")))?;
    refuse_runner(&resolved, command)?;
    let meta =
        std::fs::metadata(&resolved).map_err(|e| bad(format!("{command} cannot be read ({e})")))?;
    if !meta.is_file() {
        return Err(bad(format!("{command} is not a file")));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(bad(format!("{command} is not executable")));
    }
    check_args(&args).map_err(bad)?;
    let cwd = match cwd {
        None => None,
        Some(dir) => {
            let dir_path = Path::new(dir);
            if !dir_path.is_absolute() {
                return Err(bad(format!(
                    "the working directory {dir:?} is not an absolute path"
                )));
            }
            if !dir_path.is_dir() {
                return Err(bad(format!(
                    "the working directory {dir} is not a directory"
                )));
            }
            Some(dir_path.to_path_buf())
        }
    };
    Ok(RegisterCommand {
        command: path.to_path_buf(),
        args,
        cwd,
    })
}

fn refuse_runner(path: &Path, given: &str) -> Result<(), InstallError> {
    let Some(name) = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
    else {
        return Ok(());
    };
    let stem = [".exe", ".cmd", ".bat", ".ps1"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(&name);
    if REFUSED_COMMANDS.contains(&stem) {
        let via = if path == Path::new(given) {
            String::new()
        } else {
            format!(" ({given} resolves to {})", path.display())
        };
        return Err(InstallError::Command(format!(
            "{stem} is a shell or package runner{via}; register the installed server program \
             itself, or use mcp_install_npm for an npm package"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn executable(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/true\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn inst_04_an_installed_program_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let prog = executable(dir.path(), "my-server");
        let cwd = dir.path().to_str().unwrap();
        let ok = check_register(
            prog.to_str().unwrap(),
            vec!["--root".into(), "/srv".into()],
            Some(cwd),
        )
        .unwrap();
        assert_eq!(ok.command, prog);
        assert_eq!(ok.args, ["--root", "/srv"]);
        assert_eq!(ok.cwd.as_deref(), Some(dir.path()));
        assert!(
            check_register(prog.to_str().unwrap(), vec![], None)
                .unwrap()
                .cwd
                .is_none()
        );
    }

    #[test]
    fn inst_04_shells_and_package_runners_are_refused() {
        for shell in [
            "/bin/sh",
            "/bin/bash",
            "/usr/bin/env",
            "/usr/bin/npx",
            "/usr/bin/npm",
        ] {
            let err = check_register(shell, vec![], None).unwrap_err().to_string();
            assert!(err.contains("shell or package runner"), "{shell}: {err}");
        }
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "zsh",
            "pwsh.exe",
            "NPX.cmd",
            "uvx",
            "bunx",
            "pnpm",
            "yarn",
            "pipx",
            "powershell.exe",
            "fish",
        ] {
            let p = executable(dir.path(), name);
            let err = check_register(p.to_str().unwrap(), vec![], None)
                .unwrap_err()
                .to_string();
            assert!(err.contains("shell or package runner"), "{name}: {err}");
        }
        // A harmless-looking name that resolves to a shell or to npx's script.
        let link = dir.path().join("server");
        symlink("/bin/sh", &link).unwrap();
        let err = check_register(link.to_str().unwrap(), vec![], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("resolves to"), "{err}");
        let npx = executable(dir.path(), "npx-cli.js");
        let link2 = dir.path().join("tool");
        symlink(&npx, &link2).unwrap();
        let err = check_register(link2.to_str().unwrap(), vec![], None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("npx-cli.js is a shell or package runner"),
            "{err}"
        );
    }

    #[test]
    fn inst_04_path_args_and_cwd_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let prog = executable(dir.path(), "srv");
        let p = prog.to_str().unwrap();
        for (cmd, says) in [
            ("", "empty"),
            ("srv", "not an absolute path"),
            ("./srv", "not an absolute path"),
            ("/no/such/program", "does not exist"),
            ("/tmp", "not a file"),
        ] {
            let err = check_register(cmd, vec![], None).unwrap_err().to_string();
            assert!(err.contains(says), "{cmd:?}: {err}");
        }
        let plain = dir.path().join("data.txt");
        std::fs::write(&plain, "x").unwrap();
        let err = check_register(plain.to_str().unwrap(), vec![], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not executable"), "{err}");
        let err = check_register(p, vec!["--token=abc".into()], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("secret"), "{err}");
        let err = check_register(p, vec![], Some("rel/dir"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an absolute path"), "{err}");
        let err = check_register(p, vec![], Some(plain.to_str().unwrap()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a directory"), "{err}");
        let long = format!("/{}", "a".repeat(MAX_COMMAND_LEN));
        assert!(
            check_register(&long, vec![], None)
                .unwrap_err()
                .to_string()
                .contains("longer")
        );
    }

    #[test]
    fn inst_04_a_command_at_the_length_cap_is_checked_further() {
        let at_cap = format!("/{}", "a".repeat(MAX_COMMAND_LEN - 1));
        let err = check_register(&at_cap, vec![], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not exist"), "{err}");
    }
}

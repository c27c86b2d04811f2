//! The command check of `mcp_register` (INST-04): an absolute path to an existing executable
//! file, an argument array and an optional absolute working directory. The trust card shows
//! one program and its arguments; a command whose real work is decided by text in its
//! arguments would make that card say nothing. So three rules refuse a command — each by the
//! name given and by the name the path resolves to through symlinks (`/usr/bin/sh` → `dash`, a
//! link named `server` → `npx-cli.js`), compared case-insensitively with a Windows extension
//! (`.exe`, `.cmd`, `.bat`, `.ps1`) removed:
//!
//! 1. **Shells and package runners** ([`REFUSED_COMMANDS`]): they run whatever their arguments
//!    say, or download and run a package. `uv`, `uvx`, `bun`, `bunx` and `deno` are package
//!    runners here (each fetches and runs packages or URLs named in its arguments); an npm
//!    package is installed with `mcp_install_npm` instead.
//! 2. **Program launchers** ([`PROGRAM_LAUNCHERS`]): programs whose job is to run another
//!    command given in their arguments (`env`, `nice`, `timeout`, `xargs`, `sudo`, `strace`,
//!    …), and the dynamic loader, recognised by its name pattern (`ld.so`, `ld-linux*.so*`,
//!    `ld64.so*`, `ld-musl*`), which runs any program named after it. The list is the
//!    definition of the class; the server program itself is registered instead.
//! 3. **Interpreters run only a script file** ([`INTERPRETERS`]: `python*`, `perl*`, `ruby*`,
//!    `node`, `php*`, `lua*`, `Rscript`, `osascript`, …; a version suffix such as `python3.12`
//!    counts). Their options, up to the script file, are read; an option that gives code as
//!    text (`-c`, `-e`, `--eval`, `-p`, `--print`, `-r` for php, …, also inside combined short
//!    flags like `-ic` or `-ne`) or that names a module to run or preload (`python -m`, `perl
//!    -M`/`-m`, `ruby -r`, `node -r`/`--require`/`--import`/`--loader`, `lua -l`) is refused.
//!    `python -m` is refused too although it runs installed code: the module decides what runs
//!    (`-m pip install …` is a package manager, `-m timeit '…'` runs inline text), so the card
//!    could not say what starts; register the module's installed program or a script file.
//!    A long option without `=` may take the next argument as its value, so the argument after
//!    it is not taken as the script and the reading goes on (a refusal then is on the safe
//!    side); everything after the script file is the script's own and is not read.
//!
//! Each refusal names its rule and what to register instead.

use std::path::{Path, PathBuf};

use crate::InstallError;
use crate::limits::MAX_COMMAND_LEN;
use crate::plan::check_args;

/// Whether the file is a program: an execute bit on Unix; on Windows a program's extension
/// (`.exe`, `.com`, `.cmd`, `.bat`).
#[cfg(unix)]
fn runnable(_path: &Path, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(windows)]
fn runnable(path: &Path, _meta: &std::fs::Metadata) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["exe", "com", "cmd", "bat"]
            .iter()
            .any(|x| x.eq_ignore_ascii_case(e))
    })
}

/// Rule 1: shells and package runners, refused as a register command.
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
    // Windows' script hosts and the Linux subsystem: each runs the script or command its
    // arguments name.
    "wscript",
    "cscript",
    "mshta",
    "wsl",
    // Package runners and managers.
    "npx",
    "npm",
    "pnpm",
    "pnpx",
    "yarn",
    "yarnpkg",
    "bunx",
    "bun",
    "deno",
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
];

/// Rule 2: program launchers — programs whose job is to run another command given in their
/// arguments (the dynamic loader is recognised by its name pattern, see [`is_dynamic_loader`]).
/// Text-program tools whose program is inline text by default (`awk`, `sed` with its `e`
/// command, `find -exec`) count as launchers too.
pub const PROGRAM_LAUNCHERS: &[&str] = &[
    "env",
    "xargs",
    "nohup",
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "setsid",
    "setpriv",
    "nice",
    "ionice",
    "renice",
    "chrt",
    "taskset",
    "numactl",
    "prlimit",
    "timeout",
    "stdbuf",
    "unbuffer",
    "script",
    "exec",
    "command",
    "start",
    "flock",
    "time",
    "strace",
    "ltrace",
    "gdb",
    "valgrind",
    "perf",
    "chroot",
    "unshare",
    "nsenter",
    "firejail",
    "bwrap",
    "systemd-run",
    "fakeroot",
    "proot",
    "tini",
    "dumb-init",
    "catchsegv",
    "cgexec",
    "sg",
    "newgrp",
    "capsh",
    "chpst",
    "daemonize",
    "start-stop-daemon",
    "watch",
    "parallel",
    "xvfb-run",
    "dbus-run-session",
    "torsocks",
    "proxychains",
    "proxychains4",
    "ssh",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "find",
    // Windows: each runs the program or the DLL function its arguments name.
    "rundll32",
    "runas",
    "conhost",
];

/// Rule 3's interpreters: a name family (`python` matches `python`, `python3`, `python3.12`)
/// and how its options read.
pub const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        family: "python",
        refused_letters: "cm",
        value_letters: "WXQ",
        refused_long: &[],
    },
    // Windows' Python launcher, with python's options.
    Interpreter {
        family: "py",
        refused_letters: "cm",
        value_letters: "WXQ",
        refused_long: &[],
    },
    Interpreter {
        family: "pythonw",
        refused_letters: "cm",
        value_letters: "WXQ",
        refused_long: &[],
    },
    Interpreter {
        family: "pypy",
        refused_letters: "cm",
        value_letters: "WXQ",
        refused_long: &[],
    },
    Interpreter {
        family: "perl",
        refused_letters: "eEMm",
        value_letters: "IiCdDlx0",
        refused_long: &[],
    },
    Interpreter {
        family: "ruby",
        refused_letters: "er",
        value_letters: "ICEFiKTWx0",
        refused_long: &[],
    },
    Interpreter {
        family: "node",
        refused_letters: "epr",
        value_letters: "C",
        refused_long: NODE_REFUSED_LONG,
    },
    Interpreter {
        family: "nodejs",
        refused_letters: "epr",
        value_letters: "C",
        refused_long: NODE_REFUSED_LONG,
    },
    Interpreter {
        family: "php",
        refused_letters: "rRBE",
        value_letters: "cdfzt",
        refused_long: &[],
    },
    Interpreter {
        family: "lua",
        refused_letters: "el",
        value_letters: "",
        refused_long: &[],
    },
    Interpreter {
        family: "luajit",
        refused_letters: "elj",
        value_letters: "bO",
        refused_long: &[],
    },
    Interpreter {
        family: "rscript",
        refused_letters: "e",
        value_letters: "",
        refused_long: &[],
    },
    Interpreter {
        family: "r",
        refused_letters: "e",
        value_letters: "fg",
        refused_long: &["--file"],
    },
    Interpreter {
        family: "osascript",
        refused_letters: "e",
        value_letters: "ls",
        refused_long: &[],
    },
    Interpreter {
        family: "julia",
        refused_letters: "eELp",
        value_letters: "JCtOg",
        refused_long: &["--eval", "--print", "--load"],
    },
    Interpreter {
        family: "elixir",
        refused_letters: "er",
        value_letters: "",
        refused_long: &["--eval", "--require"],
    },
    Interpreter {
        family: "groovy",
        refused_letters: "e",
        value_letters: "",
        refused_long: &[],
    },
    Interpreter {
        family: "tclsh",
        refused_letters: "",
        value_letters: "",
        refused_long: &[],
    },
];

/// Node's long options that run code given as text or preload a module (`node` and `nodejs`
/// are the same program).
const NODE_REFUSED_LONG: &[&str] = &[
    "--eval",
    "--print",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
];

/// One interpreter family for rule 3.
#[derive(Debug, Clone, Copy)]
pub struct Interpreter {
    /// The name, lower case; a suffix of digits and dots is the same interpreter.
    pub family: &'static str,
    /// Short options (alone or inside a combined group) that give code as text or name a
    /// module to run or preload.
    pub refused_letters: &'static str,
    /// Short options that take a value: the rest of their group, or the next argument.
    pub value_letters: &'static str,
    /// Long options refused (also as `--opt=value`).
    pub refused_long: &'static [&'static str],
}

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
    refuse_runner(path, command, &args)?;
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| bad(format!("{command} does not exist or cannot be read ({e})")))?;
    refuse_runner(&resolved, command, &args)?;
    let meta =
        std::fs::metadata(&resolved).map_err(|e| bad(format!("{command} cannot be read ({e})")))?;
    if !meta.is_file() {
        return Err(bad(format!("{command} is not a file")));
    }
    if !runnable(&resolved, &meta) {
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
                return Err(bad(format!("the working directory {dir} is not a folder")));
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

/// The basename compared by the rules: lower case, a Windows extension removed.
fn stem_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let stem = [".exe", ".cmd", ".bat", ".ps1"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(&name);
    Some(stem.to_owned())
}

/// The dynamic loader's names: `ld.so`, `ld-linux-x86-64.so.2`, `ld-linux.so.2`,
/// `ld64.so.2`, `ld-musl-x86_64.so.1`.
pub fn is_dynamic_loader(stem: &str) -> bool {
    stem == "ld.so"
        || stem.starts_with("ld-musl")
        || ((stem.starts_with("ld-linux") || stem.starts_with("ld64")) && stem.contains(".so"))
}

/// The interpreter a basename names, if any: the family itself or with a version suffix.
fn interpreter(stem: &str) -> Option<&'static Interpreter> {
    INTERPRETERS.iter().find(|i| {
        stem.strip_prefix(i.family).is_some_and(|rest| {
            rest.chars().all(|c| c.is_ascii_digit() || c == '.')
                && (rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    })
}

/// Rule 3: the first option, before the script file, that gives code or names a module.
fn inline_code_option(i: &Interpreter, args: &[String]) -> Option<String> {
    let mut maybe_value = false;
    for arg in args {
        if arg == "--" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            let dashed = format!("--{name}");
            if i.refused_long.contains(&dashed.as_str()) {
                return Some(dashed);
            }
            maybe_value = !long.contains('=');
            continue;
        }
        if let Some(letters) = arg.strip_prefix('-')
            && !letters.is_empty()
        {
            maybe_value = false;
            for (at, letter) in letters.char_indices() {
                if i.refused_letters.contains(letter) {
                    return Some(format!("-{letter}"));
                }
                if i.value_letters.contains(letter) {
                    // The rest of the group is its value; at the end, the next argument may
                    // be (one that looks like an option is still read as one).
                    maybe_value = at + letter.len_utf8() == letters.len();
                    break;
                }
            }
            continue;
        }
        if maybe_value {
            maybe_value = false;
            continue;
        }
        // The script file (or `-`, standard input): what follows is the script's own.
        return None;
    }
    None
}

fn refuse_runner(path: &Path, given: &str, args: &[String]) -> Result<(), InstallError> {
    let Some(stem) = stem_of(path) else {
        return Ok(());
    };
    let via = if path == Path::new(given) {
        String::new()
    } else {
        format!(" ({given} resolves to {})", path.display())
    };
    if REFUSED_COMMANDS.contains(&stem.as_str()) {
        return Err(InstallError::Command(format!(
            "{stem} is a shell or package runner{via}; register the installed server program \
             itself, or use mcp_install_npm for an npm package"
        )));
    }
    if PROGRAM_LAUNCHERS.contains(&stem.as_str()) || is_dynamic_loader(&stem) {
        let what = if is_dynamic_loader(&stem) {
            "the dynamic loader, a program launcher"
        } else {
            "a program launcher"
        };
        return Err(InstallError::Command(format!(
            "{stem} is {what}{via}: it runs another command given in its arguments, which the \
             trust card could not show for what it is; register that server program itself, \
             by its absolute path, as the command"
        )));
    }
    if let Some(interp) = interpreter(&stem)
        && let Some(option) = inline_code_option(interp, args)
    {
        return Err(InstallError::Command(format!(
            "{stem} is an interpreter{via}, and an interpreter may only run a script file: \
             `{option}` gives it code or a module to run from the arguments; save the server's \
             code in a file and register `{given} /absolute/path/to/the/script` instead"
        )));
    }
    Ok(())
}

/// Windows: a program is a file with a program's extension; Windows' shells, script hosts
/// and launchers are refused by name whatever their extension or case.
#[cfg(test)]
#[cfg(windows)]
mod windows_tests {
    use super::*;

    #[test]
    fn inst_04_programs_by_extension_and_windows_runners_refused() {
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("my-server.exe");
        std::fs::write(&prog, "MZ").unwrap();
        let cwd = dir.path().to_str().unwrap();
        assert!(check_register(prog.to_str().unwrap(), vec!["--stdio".into()], Some(cwd)).is_ok());
        let text = dir.path().join("my-server.txt");
        std::fs::write(&text, "not a program").unwrap();
        let e = check_register(text.to_str().unwrap(), vec![], None).unwrap_err();
        assert!(e.to_string().contains("not executable"), "{e}");
        for name in [
            "CMD.EXE",
            "powershell.exe",
            "wscript.exe",
            "cscript.exe",
            "mshta.exe",
            "wsl.exe",
            "rundll32.exe",
            "npx.cmd",
        ] {
            let p = dir.path().join(name);
            std::fs::write(&p, "MZ").unwrap();
            assert!(
                check_register(p.to_str().unwrap(), vec![], None).is_err(),
                "{name}"
            );
        }
        let py = dir.path().join("py.exe");
        std::fs::write(&py, "MZ").unwrap();
        let e = check_register(
            py.to_str().unwrap(),
            vec!["-c".into(), "print(1)".into()],
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("-c"), "{e}");
        assert!(
            check_register(py.to_str().unwrap(), vec![r"C:\srv\server.py".into()], None).is_ok()
        );
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn executable(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
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
        for shell in ["/bin/sh", "/bin/bash", "/usr/bin/npx", "/usr/bin/npm"] {
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

    fn refusal(command: &Path, args: &[&str]) -> String {
        check_register(
            command.to_str().unwrap(),
            args.iter().map(|a| (*a).to_owned()).collect(),
            None,
        )
        .unwrap_err()
        .to_string()
    }

    #[test]
    fn inst_04_program_launchers_and_the_dynamic_loader_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "env", "flock", "ionice", "nice", "timeout", "xargs", "nohup", "setsid", "stdbuf",
            "chroot", "sudo", "doas", "time", "strace", "unshare", "awk", "find", "ENV.exe",
        ] {
            let p = executable(dir.path(), name);
            let err = refusal(&p, &["/bin/sh", "-c", "id"]);
            assert!(err.contains("is a program launcher"), "{name}: {err}");
            assert!(
                err.contains("register that server program itself"),
                "{name}: {err}"
            );
        }
        for name in [
            "ld-linux-x86-64.so.2",
            "ld-linux.so.2",
            "ld-linux-aarch64.so.1",
            "ld.so",
            "ld64.so.2",
            "ld-musl-x86_64.so.1",
        ] {
            let p = executable(dir.path(), name);
            let err = refusal(&p, &["/bin/sh", "-c", "id"]);
            assert!(
                err.contains("the dynamic loader, a program launcher"),
                "{name}: {err}"
            );
        }
        // The real loader and real wrappers of this machine, by their own paths.
        for real in [
            "/lib64/ld-linux-x86-64.so.2",
            "/usr/bin/env",
            "/usr/bin/nice",
        ] {
            if Path::new(real).exists() {
                let err = refusal(Path::new(real), &["/bin/sh", "-c", "id"]);
                assert!(err.contains("program launcher"), "{real}: {err}");
            }
        }
        // A harmless name that resolves to a launcher.
        let env = executable(dir.path(), "timeout");
        let link = dir.path().join("my-server");
        symlink(&env, &link).unwrap();
        let err = refusal(&link, &[]);
        assert!(
            err.contains("resolves to") && err.contains("program launcher"),
            "{err}"
        );
        // A name that only starts like the loader is an ordinary program.
        let p = executable(dir.path(), "ld-helper");
        assert!(check_register(p.to_str().unwrap(), vec![], None).is_ok());
    }

    #[test]
    fn inst_04_interpreters_run_only_a_script_file() {
        let dir = tempfile::tempdir().unwrap();
        let refused: &[(&str, &[&str], &str)] = &[
            ("python3", &["-c", "import os"], "-c"),
            ("python3.12", &["-c", "import os"], "-c"),
            ("python", &["-ic", "x"], "-c"),
            ("python3", &["-u", "-Sc", "x"], "-c"),
            ("python3", &["-m", "http.server"], "-m"),
            ("python3", &["-mpip", "install", "x"], "-m"),
            ("python3", &["-W", "ignore", "-c", "x"], "-c"),
            ("python3", &["-X", "-c", "x"], "-c"),
            ("pypy3", &["-c", "x"], "-c"),
            ("perl", &["-e", "system 1"], "-e"),
            ("perl5.36", &["-ne", "print"], "-e"),
            ("perl", &["-E", "say 1"], "-E"),
            ("perl", &["-l", "-e", "x"], "-e"),
            ("perl", &["-Mstrict;system(1)", "/srv/x.pl"], "-M"),
            ("ruby", &["-e", "x"], "-e"),
            ("ruby3.1", &["-rsocket", "/srv/x.rb"], "-r"),
            ("node", &["-e", "x"], "-e"),
            ("node", &["--eval", "x"], "--eval"),
            ("node", &["--eval=x"], "--eval"),
            ("node", &["-p", "x"], "-p"),
            ("node", &["-pe", "x"], "-p"),
            ("node", &["--print", "x"], "--print"),
            ("node", &["--stack-size", "100", "-e", "x"], "-e"),
            ("node", &["--import", "data:text/javascript,x"], "--import"),
            ("nodejs", &["-r", "/srv/hook.js", "/srv/x.js"], "-r"),
            ("php8.2", &["-r", "system('id');"], "-r"),
            ("lua5.4", &["-e", "os.execute()"], "-e"),
            ("Rscript", &["-e", "system('id')"], "-e"),
            ("osascript", &["-e", "do shell script"], "-e"),
            ("julia", &["--eval", "x"], "--eval"),
        ];
        for (name, args, option) in refused {
            let p = executable(dir.path(), name);
            let err = refusal(&p, args);
            assert!(
                err.contains("an interpreter may only run a script file")
                    && err.contains(&format!("`{option}`"))
                    && err.contains("/absolute/path/to/the/script"),
                "{name} {args:?}: {err}"
            );
        }
        let allowed: &[(&str, &[&str])] = &[
            ("python3", &["/srv/server.py"]),
            ("python3", &["-u", "/srv/server.py", "-c", "config.toml"]),
            ("python3.12", &["-W", "ignore", "/srv/server.py", "-m", "x"]),
            ("node", &["/srv/index.js", "-e", "prod"]),
            ("node", &["--max-old-space-size=512", "/srv/index.js"]),
            ("perl", &["-w", "/srv/x.pl", "-e"]),
            ("ruby", &["-W0", "/srv/x.rb"]),
            ("php", &["-f", "/srv/x.php"]),
            ("python3", &["--", "/srv/-c"]),
            // A name that is not an interpreter's family with a version.
            ("pythonic-server", &["-c", "x"]),
            ("nodemon-free", &["-e", "x"]),
        ];
        for (name, args) in allowed {
            let p = executable(dir.path(), name);
            let ok = check_register(
                p.to_str().unwrap(),
                args.iter().map(|a| (*a).to_owned()).collect(),
                None,
            );
            assert!(ok.is_ok(), "{name} {args:?}: {ok:?}");
        }
        // A link named like a server that resolves to python is read as python.
        let py = executable(dir.path(), "python3.11");
        let link = dir.path().join("server");
        symlink(&py, &link).unwrap();
        let err = refusal(&link, &["-c", "x"]);
        assert!(
            err.contains("resolves to") && err.contains("interpreter"),
            "{err}"
        );
        // uv, uvx, bun and deno are package runners (rule 1), whatever their arguments.
        for name in ["uv", "uvx", "bun", "deno"] {
            let p = executable(dir.path(), name);
            let err = refusal(&p, &["run", "/srv/x.py"]);
            assert!(err.contains("shell or package runner"), "{name}: {err}");
        }
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
        assert!(err.contains("not a folder"), "{err}");
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

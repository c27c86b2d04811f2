//! Builds the web UI (`ui/`, React + Vite) into `ui/dist`, which the crate embeds. A person
//! never runs a separate npm step: building Wisp builds the UI. Without Node.js the build stops
//! with one line saying so.

use std::path::Path;
use std::process::Command;

fn main() {
    // Read at run time, not with env!(): a build script binary can be reused by a checkout at
    // another path, and must then work on that checkout's files.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    let ui = Path::new(&manifest).join("../../ui");
    for watched in [
        "src",
        "index.html",
        "qa.html",
        "package.json",
        "package-lock.json",
        "vite.config.ts",
        "tsconfig.json",
    ] {
        println!("cargo:rerun-if-changed={}", ui.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=WISP_UI_PREBUILT");
    // For machines that build the UI separately (packaging): use ui/dist as it is.
    if std::env::var_os("WISP_UI_PREBUILT").is_some() && ui.join("dist/index.html").exists() {
        return;
    }
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    if Command::new(npm)
        .arg("--version")
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        fail(
            "building Wisp needs Node.js 20+ and npm for the web UI (ui/): install them, then build again",
        );
    }
    let lock = ui.join("package-lock.json");
    let stamp = ui.join("node_modules/.package-lock.json");
    let stale = match (
        std::fs::metadata(&lock).and_then(|m| m.modified()),
        std::fs::metadata(&stamp).and_then(|m| m.modified()),
    ) {
        (Ok(l), Ok(s)) => l > s,
        _ => true,
    };
    if stale {
        run(
            Command::new(npm)
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&ui),
            "npm ci in ui/",
        );
    }
    run(
        Command::new(npm)
            .args(["run", "build", "--silent"])
            .current_dir(&ui),
        "npm run build in ui/",
    );
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!("{what} failed ({s}); see the output above")),
        Err(e) => fail(&format!("{what} could not start: {e}")),
    }
}

#[expect(
    clippy::print_stderr,
    reason = "a build script reports on stderr and by its exit code"
)]
fn fail(message: &str) -> ! {
    // A build script reports on stderr and by its exit code; cargo shows this line.
    eprintln!("{message}");
    std::process::exit(1);
}

//! Integration tests of wisp-install: the real npm (found in the fixed directories) against a
//! static npm registry on loopback started by each test, installing packages the test packs.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failing test should stop at the line that failed"
)]

mod lockfiles;
mod metadata;
mod network;
// These watch Unix process groups around a real npm.
#[cfg(unix)]
mod npm_install;
mod recorded;
mod registry;
mod tls;

//! The web UI's TypeScript wire types are generated from a checked-in copy of the API document
//! (`ui/src/generated/openapi.json`). This test keeps that copy equal to the document the Host
//! serves, so a change to a wire type in Rust reaches the UI's compiler; `npm test` in `ui/`
//! then checks that `api.ts` is what the generator makes of the copy.

use std::path::PathBuf;

/// Set to rewrite the copy instead of comparing with it.
const UPDATE: &str = "WISP_UPDATE_OPENAPI";

#[test]
fn ui_copy_of_the_api_document_is_current() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/generated/openapi.json");
    // Pretty-printed, so a change reads as a small diff in review.
    let doc: serde_json::Value =
        serde_json::from_str(&wisp_server::OPENAPI).expect("the served document is JSON");
    let mut expected = serde_json::to_string_pretty(&doc).expect("a JSON value prints");
    expected.push('\n');
    if std::env::var_os(UPDATE).is_some() {
        std::fs::write(&path, &expected).expect("write ui/src/generated/openapi.json");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "ui/src/generated/openapi.json is not the document the Host serves (a wire type changed). \
         Refresh it with `{UPDATE}=1 cargo nextest run -p wisp-server -E 'test(ui_copy_of_the_api_document_is_current)'`, \
         then regenerate the UI's types with `npm --prefix ui run gen:api`"
    );
}

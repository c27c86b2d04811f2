//! The registry's documents of the planned version, read from a real HTTP registry on loopback
//! before anything is downloaded: the card's facts, the bin check that lists the real bins, a
//! version the registry does not have, and a redirect off the registry, which is not followed.

use serde_json::json;
use wisp_install::{InstallConfig, InstallPlan, Registry, fetch_facts};

use crate::registry::{PUBLISHED, TestRegistry, demo_package, pack};

#[tokio::test]
async fn the_facts_of_the_planned_version_and_its_publish_time() {
    let registry = TestRegistry::start(false).await;
    let packed = demo_package();
    registry.publish(&packed, None);
    let allowed = Registry::parse(&registry.url).unwrap();
    let plan = InstallPlan::new("wisp-demo-mcp", "1.0.0", "wisp-demo-mcp", vec![]).unwrap();
    let facts = fetch_facts(&InstallConfig::new(allowed.clone()), &plan)
        .await
        .unwrap();
    assert_eq!(facts.published.as_deref(), Some(PUBLISHED));
    assert_eq!(facts.integrity.as_deref(), Some(packed.integrity.as_str()));
    assert_eq!(facts.license.as_deref(), Some("MIT"));
    assert_eq!(facts.dependencies, 0);
    assert!(facts.install_scripts.is_empty());
    assert_eq!(facts.bins, ["wisp-demo-mcp"]);
}

#[tokio::test]
async fn a_wrong_bin_or_a_missing_version_is_said_before_any_download() {
    let registry = TestRegistry::start(false).await;
    let manifest = json!({
        "name": "@s/srv", "version": "2.0.0", "description": "d",
        "bin": {"srv-a": "a.js", "srv-b": "b.js"},
        "scripts": {"install": "node-gyp rebuild"},
        "dependencies": {"x": "~1.0.0", "y": "^2"},
    });
    let packed = pack(&manifest, &[("a.js", "x"), ("b.js", "x")]);
    registry.publish(&packed, None);
    let allowed = Registry::parse(&registry.url).unwrap();
    let wrong = InstallPlan::new("@s/srv", "2.0.0", "srv", vec![]).unwrap();
    let err = fetch_facts(&InstallConfig::new(allowed.clone()), &wrong)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("its bins are [srv-a, srv-b]"), "{err}");
    let right = InstallPlan::new("@s/srv", "2.0.0", "srv-b", vec![]).unwrap();
    let facts = fetch_facts(&InstallConfig::new(allowed.clone()), &right)
        .await
        .unwrap();
    assert_eq!(facts.install_scripts, ["install"]);
    assert_eq!(facts.dependencies, 2);
    let missing = InstallPlan::new("@s/srv", "2.0.1", "srv-b", vec![]).unwrap();
    let err = fetch_facts(&InstallConfig::new(allowed.clone()), &missing)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("has no @s/srv@2.0.1 (404"), "{err}");
    // Nothing but the documents was asked for, and for a wrong bin or a missing version only
    // the version's: no tarball.
    assert_eq!(registry.requests(), 4);
}

#[tokio::test]
async fn a_redirect_off_the_registry_is_not_followed() {
    let registry = TestRegistry::start(false).await;
    let elsewhere = TestRegistry::start(false).await;
    elsewhere.publish(&demo_package(), None);
    registry.redirect(
        "/wisp-demo-mcp/1.0.0",
        &format!("{}wisp-demo-mcp/1.0.0", elsewhere.url),
    );
    let allowed = Registry::parse(&registry.url).unwrap();
    let plan = InstallPlan::new("wisp-demo-mcp", "1.0.0", "wisp-demo-mcp", vec![]).unwrap();
    let err = fetch_facts(&InstallConfig::new(allowed.clone()), &plan)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("not the allowed registry"), "{err}");
    assert_eq!(elsewhere.requests(), 0);
    // Within the registry, a redirect is followed.
    registry.publish(&demo_package(), None);
    registry.redirect(
        "/wisp-demo-mcp/1.0.0",
        &format!("{}moved/1.0.0", registry.url),
    );
    registry.file(
        "/moved/1.0.0",
        "application/json",
        json!({"name": "wisp-demo-mcp", "version": "1.0.0", "bin": {"wisp-demo-mcp": "s.js"}})
            .to_string()
            .into_bytes(),
    );
    assert!(
        fetch_facts(&InstallConfig::new(allowed.clone()), &plan)
            .await
            .is_ok()
    );
}

//! The one registry an install may use (INST-13): `https://registry.npmjs.org/` unless
//! `WISP_NPM_REGISTRY` names another — a testing aid for a registry on loopback only (the test
//! suite's, the simulator's), `http://` or `https://`; any other value is refused, in every
//! build, so the variable can never send installs to a registry elsewhere. URLs are compared
//! parsed (scheme, host, port, path), never by string prefix.

use url::{Host, Url};

use crate::InstallError;

/// The public npm registry, the default and the only one outside tests.
pub const DEFAULT_REGISTRY: &str = "https://registry.npmjs.org/";
/// The variable that overrides the registry, for tests and the simulator only: a loopback
/// address, nothing else.
pub const REGISTRY_ENV: &str = "WISP_NPM_REGISTRY";

/// An allowed registry: https, or http on a loopback host; no credentials, query or fragment;
/// the path ends with `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    url: Url,
}

impl Registry {
    /// Parses and checks a registry URL.
    pub fn parse(text: &str) -> Result<Self, InstallError> {
        let bad = |why: &str| InstallError::Registry(format!("{text:?} {why}"));
        let mut url = Url::parse(text).map_err(|e| bad(&format!("is not a URL ({e})")))?;
        match url.scheme() {
            "https" => {}
            "http" if is_loopback(&url) => {}
            "http" => {
                return Err(bad(
                    "uses http on a host that is not loopback; only https is allowed there",
                ));
            }
            other => return Err(bad(&format!("uses {other}; only https is allowed"))),
        }
        if url.host().is_none() {
            return Err(bad("has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("carries credentials; Wisp installs without auth"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("has a query or fragment"));
        }
        if !url.path().ends_with('/') {
            let path = format!("{}/", url.path());
            url.set_path(&path);
        }
        Ok(Self { url })
    }

    /// The public registry.
    pub fn public() -> Result<Self, InstallError> {
        Self::parse(DEFAULT_REGISTRY)
    }

    /// [`REGISTRY_ENV`] when set (a loopback registry, checked like any registry), else the
    /// public registry.
    pub fn from_env() -> Result<Self, InstallError> {
        Self::from_override(std::env::var(REGISTRY_ENV).ok().as_deref())
    }

    /// The override's value when set and not empty, else the public registry. The override
    /// is a testing aid: a registry on this machine's loopback, never one elsewhere (INST-13
    /// allows only the public registry for real installs).
    fn from_override(value: Option<&str>) -> Result<Self, InstallError> {
        let value = match value {
            Some(value) if !value.is_empty() => value,
            _ => return Self::public(),
        };
        let registry = Self::parse(value)?;
        if !is_loopback(&registry.url) {
            return Err(InstallError::Registry(format!(
                "{REGISTRY_ENV}={value:?} is not a loopback address; {REGISTRY_ENV} is a testing \
                 aid for a registry on this machine (127.0.0.1, [::1] or localhost) only. Unset \
                 it to install from the public npm registry ({DEFAULT_REGISTRY})"
            )));
        }
        Ok(registry)
    }

    /// The URL as npm gets it (`--registry`).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// `scheme://host:port` of the registry, as [`Registry::origin_of`] writes it.
    pub fn origin(&self) -> String {
        Self::origin_of(&self.url)
    }

    /// `scheme://host:port` of a URL, the port always written, to compare origins.
    pub fn origin_of(url: &Url) -> String {
        format!(
            "{}://{}:{}",
            url.scheme(),
            url.host_str().unwrap_or_default(),
            url.port_or_known_default().unwrap_or_default()
        )
    }

    /// Whether this is the public registry (the approval card names the source).
    pub fn is_public(&self) -> bool {
        self.url.as_str() == DEFAULT_REGISTRY
    }

    /// Checks a lockfile `resolved` URL: the same scheme, host and port as the registry, and
    /// exactly the registry's tarball path for that package and version
    /// (`<registry>/<name>/-/<basename>-<version>.tgz`). The error says what differs.
    pub fn check_tarball(&self, resolved: &str, name: &str, version: &str) -> Result<(), String> {
        let url = Url::parse(resolved).map_err(|_| format!("{resolved:?} is not a URL"))?;
        if url.scheme() != self.url.scheme()
            || url.host() != self.url.host()
            || url.port_or_known_default() != self.url.port_or_known_default()
        {
            return Err(format!(
                "comes from {}, not from the allowed registry {}",
                origin(&url),
                origin(&self.url)
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("carries credentials in its URL".into());
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("{resolved:?} has a query or fragment"));
        }
        let basename = name.rsplit('/').next().unwrap_or(name);
        let expected = format!("{}{name}/-/{basename}-{version}.tgz", self.url.path());
        if url.path() != expected {
            return Err(format!(
                "{resolved:?} is not the registry's tarball for {name}@{version} (expected the path {expected})"
            ));
        }
        Ok(())
    }
}

fn origin(url: &Url) -> String {
    match url.host_str() {
        Some(host) => match url.port() {
            Some(port) => format!("{}://{host}:{port}", url.scheme()),
            None => format!("{}://{host}", url.scheme()),
        },
        None => format!("{}:", url.scheme()),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inst_13_https_anywhere_http_only_on_loopback() {
        assert_eq!(Registry::public().unwrap().as_str(), DEFAULT_REGISTRY);
        assert!(Registry::public().unwrap().is_public());
        for ok in [
            "https://registry.npmjs.org/",
            "http://127.0.0.1:4873/",
            "http://[::1]:4873/",
            "http://localhost:1/",
            "http://127.0.0.2:80/npm",
        ] {
            assert!(Registry::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            Registry::parse("http://127.0.0.2:80/npm").unwrap().as_str(),
            "http://127.0.0.2/npm/"
        );
        for (bad, says) in [
            ("http://registry.npmjs.org/", "not loopback"),
            ("http://10.0.0.1:4873/", "not loopback"),
            ("http://127.0.0.1.evil.com/", "not loopback"),
            ("ftp://127.0.0.1/", "only https"),
            ("file:///tmp/reg", "only https"),
            ("https://user:pw@registry.npmjs.org/", "credentials"),
            ("https://registry.npmjs.org/?a=b", "query"),
            ("not a url", "not a URL"),
        ] {
            let err = Registry::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn inst_13_tarballs_must_be_the_registry_s_own() {
        let r = Registry::public().unwrap();
        assert_eq!(
            r.check_tarball("https://registry.npmjs.org/a/-/a-1.0.0.tgz", "a", "1.0.0"),
            Ok(())
        );
        assert_eq!(
            r.check_tarball(
                "https://registry.npmjs.org/@s/n/-/n-1.0.0-rc.1.tgz",
                "@s/n",
                "1.0.0-rc.1"
            ),
            Ok(())
        );
        assert_eq!(
            r.check_tarball(
                "https://registry.npmjs.org:443/a/-/a-1.0.0.tgz",
                "a",
                "1.0.0"
            ),
            Ok(())
        );
        for (bad, says) in [
            (
                "https://evil.example/a/-/a-1.0.0.tgz",
                "comes from https://evil.example",
            ),
            (
                "http://registry.npmjs.org/a/-/a-1.0.0.tgz",
                "comes from http://",
            ),
            ("https://registry.npmjs.org:8443/a/-/a-1.0.0.tgz", ":8443"),
            (
                "https://registry.npmjs.org.evil.example/a/-/a-1.0.0.tgz",
                "not from the allowed",
            ),
            (
                "https://registry.npmjs.org/b/-/b-1.0.0.tgz",
                "not the registry's tarball",
            ),
            (
                "https://registry.npmjs.org/a/-/a-1.0.1.tgz",
                "not the registry's tarball",
            ),
            (
                "https://registry.npmjs.org/files/a.tgz",
                "not the registry's tarball",
            ),
            ("https://registry.npmjs.org/a/-/a-1.0.0.tgz?x=1", "query"),
            (
                "https://u:p@registry.npmjs.org/a/-/a-1.0.0.tgz",
                "credentials",
            ),
            ("git+ssh://git@github.com/a/a.git", "comes from"),
            ("../a.tgz", "not a URL"),
        ] {
            let err = r.check_tarball(bad, "a", "1.0.0").unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let local = Registry::parse("http://127.0.0.1:4873/").unwrap();
        assert!(
            local
                .check_tarball("http://127.0.0.1:4873/a/-/a-1.0.0.tgz", "a", "1.0.0")
                .is_ok()
        );
        assert!(
            local
                .check_tarball("http://127.0.0.1:4874/a/-/a-1.0.0.tgz", "a", "1.0.0")
                .is_err()
        );
        assert!(
            local
                .check_tarball("http://localhost:4873/a/-/a-1.0.0.tgz", "a", "1.0.0")
                .is_err()
        );
    }

    #[test]
    fn the_override_is_used_only_when_set() {
        assert!(Registry::from_override(None).unwrap().is_public());
        assert!(Registry::from_override(Some("")).unwrap().is_public());
        let local = Registry::from_override(Some("http://127.0.0.1:9/")).unwrap();
        assert_eq!(local.as_str(), "http://127.0.0.1:9/");
        assert!(!local.is_public());
        assert!(Registry::from_override(Some("http://example.com/")).is_err());
    }

    /// INST-13: `WISP_NPM_REGISTRY` takes loopback registries (http or https, the test
    /// suite's private-CA ones too) and refuses every other value with a message naming the
    /// variable, the rule and the way out — https registries elsewhere, the public one
    /// included, as much as plain http.
    #[test]
    fn inst_13_the_override_is_a_loopback_testing_aid_only() {
        for ok in [
            "http://127.0.0.1:4873/",
            "https://127.0.0.1:4873/",
            "https://[::1]:8443/npm/",
            "https://localhost:1/",
            "http://127.8.9.10/",
        ] {
            let r = Registry::from_override(Some(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert!(!r.is_public(), "{ok}");
        }
        for bad in [
            "https://registry.npmjs.org/",
            "https://registry.example.com/",
            "https://10.0.0.1:4873/",
            "https://192.168.1.2/",
            "https://127.0.0.1.nip.io/",
            "https://localhost.example.com/",
            "https://[::ffff:10.0.0.1]/",
            "https://0.0.0.0/",
        ] {
            let err = Registry::from_override(Some(bad)).unwrap_err().to_string();
            assert!(
                err.contains(&format!(
                    "WISP_NPM_REGISTRY={bad:?} is not a loopback address"
                )) && err.contains("testing aid")
                    && err.contains("Unset it to install from the public npm registry"),
                "{bad}: {err}"
            );
        }
        // What `parse` refuses is still refused first, with its own reason.
        let err = Registry::from_override(Some("http://10.0.0.1/"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not loopback; only https"), "{err}");
    }

    #[test]
    fn credentials_in_any_part_of_the_url_are_refused() {
        for bad in [
            "https://user@registry.npmjs.org/",
            "https://:pw@registry.npmjs.org/",
        ] {
            let err = Registry::parse(bad).unwrap_err().to_string();
            assert!(err.contains("credentials"), "{bad}: {err}");
        }
        let r = Registry::public().unwrap();
        for bad in [
            "https://u@registry.npmjs.org/a/-/a-1.0.0.tgz",
            "https://:p@registry.npmjs.org/a/-/a-1.0.0.tgz",
        ] {
            let err = r.check_tarball(bad, "a", "1.0.0").unwrap_err();
            assert!(err.contains("credentials"), "{bad}: {err}");
        }
    }
}

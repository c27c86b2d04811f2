//! Which project files look like they hold credentials: the one classifier behind
//! `files_read`'s "send this file to the model provider?" card, `files_search`'s withheld
//! results and `files_replace`'s refusal.
//!
//! By path first, which needs no byte of the file: environment files, keys, the `.ssh`, `.aws`
//! and `.kube` folders, registry and login files. Names are compared ASCII-case-insensitively on
//! every platform: `.ENV` or `ID_RSA` on a case-sensitive file system still holds what its name
//! says, and asking once too often costs a click while missing one sends a secret away.
//!
//! Then by content, for the two cases a name cannot decide: a Git config (`.git/config`, a
//! submodule's `.git/modules/…/config`) is sensitive only when a remote URL carries a password
//! or token or it sets an `Authorization` header, and any file holding a PEM private key block.
//! The Host inspects that content itself; the model never sees it.

use std::path::{Component, Path};

use serde::Serialize;

/// Why a file looks like it holds credentials. `kind` is stable (the UI words it in its
/// language); `reason` is the sentence for the model and the English card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sensitive {
    /// `.env`, `.env.local`, `prod.env`, `.envrc`.
    EnvFile,
    /// `.env.example`, `.env.sample`, `.env.template`, `.env.dist`, `.env.defaults`.
    EnvTemplate,
    /// `*.pem`, `*.key`.
    KeyFile,
    /// `id_rsa*`, `id_ed25519*`, `id_ecdsa*`, `id_dsa*`.
    SshKey,
    /// Anything in a `.ssh` folder.
    SshFolder,
    /// `.npmrc`, `.pypirc`.
    RegistryToken,
    /// `.netrc`, `_netrc`.
    Netrc,
    /// `.git-credentials`.
    GitCredentials,
    /// `.pgpass`.
    Pgpass,
    /// `.aws/credentials`, `.aws/config`.
    Aws,
    /// `.kube/config`, `kubeconfig*`.
    KubeConfig,
    /// A Git config whose remote URL carries a password or token, or that sets an
    /// `Authorization` header.
    GitConfigCredentials,
    /// Any file holding a PEM private key block.
    PrivateKeyBlock,
}

impl Sensitive {
    /// The stable name of the kind (`env_file`, …).
    pub fn kind(self) -> &'static str {
        match self {
            Self::EnvFile => "env_file",
            Self::EnvTemplate => "env_template",
            Self::KeyFile => "key_file",
            Self::SshKey => "ssh_key",
            Self::SshFolder => "ssh_folder",
            Self::RegistryToken => "registry_token",
            Self::Netrc => "netrc",
            Self::GitCredentials => "git_credentials",
            Self::Pgpass => "pgpass",
            Self::Aws => "aws",
            Self::KubeConfig => "kube_config",
            Self::GitConfigCredentials => "git_config_credentials",
            Self::PrivateKeyBlock => "private_key_block",
        }
    }

    /// Why it looks sensitive, in words a person understands.
    pub fn reason(self) -> &'static str {
        match self {
            Self::EnvFile => "an environment file, which often holds API keys and passwords",
            Self::EnvTemplate => {
                "an environment file template, which usually holds placeholders but sometimes a real key"
            }
            Self::KeyFile => "a key or certificate file (.pem, .key), which may hold a private key",
            Self::SshKey => "an SSH key file; a private key lets anyone who has it log in as you",
            Self::SshFolder => "a file in an .ssh folder, where SSH keys and logins are kept",
            Self::RegistryToken => {
                "a package registry settings file (.npmrc, .pypirc), which often holds a publish token"
            }
            Self::Netrc => "a .netrc file, which holds logins and passwords for servers",
            Self::GitCredentials => "Git's stored credentials, passwords and tokens in plain text",
            Self::Pgpass => "a PostgreSQL password file",
            Self::Aws => "an AWS credentials or config file, which holds access keys",
            Self::KubeConfig => "a Kubernetes config, which holds cluster tokens and keys",
            Self::GitConfigCredentials => {
                "a Git config whose remote URL carries a password or token"
            }
            Self::PrivateKeyBlock => "a file holding a private key (a PEM PRIVATE KEY block)",
        }
    }
}

/// Suffixes of `.env.<suffix>` files that are templates by convention.
const ENV_TEMPLATE_SUFFIXES: &[&str] = &["example", "sample", "template", "dist", "defaults"];

/// Name prefixes of SSH key files (private and public: the public half is named alike, and a
/// private key saved as `id_rsa.old` must not pass).
const SSH_KEY_PREFIXES: &[&str] = &["id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"];

/// The lower-cased normal components of a relative path (`.` and empty parts dropped).
fn lowered(rel: &Path) -> Vec<String> {
    rel.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// What a file's path alone says: `Some` when it looks like credentials by its name or folder.
/// `rel` is relative to the project root (as given or as resolved through links).
pub fn by_path(rel: &Path) -> Option<Sensitive> {
    let parts = lowered(rel);
    let (name, folders) = parts.split_last()?;
    let parent = folders.last().map(String::as_str);
    let name = name.as_str();
    if let Some(suffix) = name.strip_prefix(".env.") {
        return Some(if ENV_TEMPLATE_SUFFIXES.contains(&suffix) {
            Sensitive::EnvTemplate
        } else {
            Sensitive::EnvFile
        });
    }
    if name == ".env" || name == ".envrc" || name.ends_with(".env") {
        return Some(Sensitive::EnvFile);
    }
    if SSH_KEY_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return Some(Sensitive::SshKey);
    }
    if folders.iter().any(|f| f == ".ssh") {
        return Some(Sensitive::SshFolder);
    }
    if name.ends_with(".pem") || name.ends_with(".key") {
        return Some(Sensitive::KeyFile);
    }
    match name {
        ".npmrc" | ".pypirc" => return Some(Sensitive::RegistryToken),
        ".netrc" | "_netrc" => return Some(Sensitive::Netrc),
        ".git-credentials" => return Some(Sensitive::GitCredentials),
        ".pgpass" => return Some(Sensitive::Pgpass),
        _ => {}
    }
    if parent == Some(".aws") && (name == "credentials" || name == "config") {
        return Some(Sensitive::Aws);
    }
    if (parent == Some(".kube") && name == "config") || name.starts_with("kubeconfig") {
        return Some(Sensitive::KubeConfig);
    }
    None
}

/// Whether `rel` is a Git config, whose content decides ([`git_config_carries_credentials`]):
/// a file named `config` inside a `.git` folder (the repository's, or a submodule's under
/// `.git/modules`).
pub fn is_git_config(rel: &Path) -> bool {
    let parts = lowered(rel);
    match parts.split_last() {
        Some((name, folders)) => name == "config" && folders.iter().any(|f| f == ".git"),
        None => false,
    }
}

/// What a file's content says, for what its path could not decide: a Git config with
/// credentials (only when `rel` is one), a PEM private key block anywhere.
pub fn by_content(rel: &Path, content: &[u8]) -> Option<Sensitive> {
    if is_git_config(rel) && git_config_carries_credentials(content) {
        return Some(Sensitive::GitConfigCredentials);
    }
    has_private_key_block(content).then_some(Sensitive::PrivateKeyBlock)
}

/// Whether moving `source` to `target` would take a file out of what [`by_path`] and
/// [`is_git_config`] recognise, so that reading it later would not ask: the source itself
/// renamed (`.env` to `notes.txt`, `.git/config` to `.git/config.old`), or a folder whose name
/// makes its files sensitive moved to
/// an ordinary one (`.ssh` to `keys`, `.aws` to `aws`, `.git` to `repo`). Names inside a moved
/// folder stay as they are, so only the source's own name and its folders decide; probing a
/// file in it (`x`, `config`, `credentials`) covers every folder rule. `Some`: why the source
/// looks sensitive.
pub fn hidden_by_move(source: &Path, target: &Path) -> Option<&'static str> {
    for probe in ["", "x", "config", "credentials"] {
        if let Some(s) = by_path(&source.join(probe))
            && by_path(&target.join(probe)).is_none()
        {
            return Some(s.reason());
        }
    }
    if is_git_config(source) && !is_git_config(target) {
        return Some("a Git config, which may carry a password or token");
    }
    (is_git_config(&source.join("config")) && !is_git_config(&target.join("config")))
        .then_some("a Git folder, whose config may carry a password or token")
}

/// Whether Git config text carries credentials: a URL anywhere in it (`url =`, `pushurl =`, a
/// `[url "…"]` section of `insteadOf`) whose user info holds a password, or — outside SSH,
/// where `git@` is only a login name — any user info at all, which is where tokens go
/// (`https://ghp_…@github.com/…`); or an `extraheader` with an `Authorization` value, which is
/// how CI checkouts keep their token.
pub fn git_config_carries_credentials(content: &[u8]) -> bool {
    let text = String::from_utf8_lossy(content);
    text.lines().any(|line| {
        let lower = line.trim().to_ascii_lowercase();
        if lower.starts_with('#') || lower.starts_with(';') {
            return false;
        }
        if lower.starts_with("extraheader") && lower.contains("authorization") {
            return true;
        }
        url_userinfo_carries_credentials(line)
    })
}

/// Whether any `scheme://userinfo@host` in `line` carries a password or token.
fn url_userinfo_carries_credentials(line: &str) -> bool {
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let scheme: String = rest[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
            .to_ascii_lowercase();
        let after = &rest[at + 3..];
        let authority_end = after
            .find(|c: char| c == '/' || c == '"' || c == '\'' || c.is_whitespace())
            .unwrap_or(after.len());
        let authority = &after[..authority_end];
        if let Some(userinfo) = authority.rfind('@').map(|i| &authority[..i])
            && !userinfo.is_empty()
        {
            let password = userinfo.split_once(':').map(|(_, p)| p);
            let ssh = scheme == "ssh" || scheme.contains("+ssh") || scheme.starts_with("ssh+");
            if password.is_some_and(|p| !p.is_empty()) || (!ssh && password.is_none()) {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Whether `content` holds a PEM private key block: a `-----BEGIN … PRIVATE KEY…-----` or
/// `-----END … PRIVATE KEY…-----` line (RSA, EC, OpenSSH, PKCS#8, encrypted, PGP). Either end
/// is enough, so a part of a file that holds only a block's end is caught too.
pub fn has_private_key_block(content: &[u8]) -> bool {
    for marker in [&b"-----BEGIN "[..], &b"-----END "[..]] {
        let finder = memchr::memmem::Finder::new(marker);
        for at in finder.find_iter(content) {
            let label = &content[at + marker.len()..];
            let end = memchr::memchr(b'\n', label).unwrap_or(label.len()).min(64);
            if memchr::memmem::find(&label[..end], b"PRIVATE KEY").is_some() {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests;

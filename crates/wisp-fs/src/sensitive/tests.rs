//! The credentials classifier case by case: every path rule with its near misses, case
//! folding, Git configs with and without credentials, PEM private key blocks.

use std::path::Path;

use super::Sensitive::*;
use super::*;

fn path(p: &str) -> Option<Sensitive> {
    by_path(Path::new(p))
}

#[test]
fn environment_files_and_their_templates() {
    for p in [
        ".env",
        "app/.env",
        ".env.local",
        ".env.production",
        "prod.env",
        ".envrc",
    ] {
        assert_eq!(path(p), Some(EnvFile), "{p}");
    }
    // Templates usually hold placeholders, but a real key is sometimes left in one: still asked.
    for p in [
        ".env.example",
        ".env.sample",
        ".env.template",
        ".env.dist",
        ".env.defaults",
    ] {
        assert_eq!(path(p), Some(EnvTemplate), "{p}");
    }
    for p in [
        "env",
        "environment.md",
        ".environment",
        "src/env.rs",
        "envoy.yaml",
        "dotenv.js",
    ] {
        assert_eq!(path(p), None, "{p}");
    }
}

#[test]
fn keys_by_extension_and_ssh_key_names() {
    for p in ["server.pem", "certs/tls.key", "a/b/private.KEY"] {
        assert_eq!(path(p), Some(KeyFile), "{p}");
    }
    for p in [
        "id_rsa",
        "id_rsa.pub",
        "backup/id_ed25519",
        "id_ecdsa_sk",
        "id_dsa.old",
    ] {
        assert_eq!(path(p), Some(SshKey), "{p}");
    }
    for p in [
        "keys.md",
        "monkey.txt",
        "pem.rs",
        "keyboard.key.txt",
        "my_id_rsa_notes.md",
    ] {
        assert_eq!(path(p), None, "{p}");
    }
}

#[test]
fn folders_that_hold_credentials() {
    for p in [
        ".ssh/config",
        ".ssh/known_hosts",
        "home/.ssh/authorized_keys",
    ] {
        assert_eq!(path(p), Some(SshFolder), "{p}");
    }
    for p in [".aws/credentials", ".aws/config", "me/.aws/credentials"] {
        assert_eq!(path(p), Some(Aws), "{p}");
    }
    for p in [
        ".kube/config",
        "kubeconfig",
        "kubeconfig-prod.yaml",
        "deploy/kubeconfig.yml",
    ] {
        assert_eq!(path(p), Some(KubeConfig), "{p}");
    }
    // The same names elsewhere are ordinary files.
    for p in [
        "config",
        "src/config",
        ".aws/readme.md",
        "aws/credentials",
        ".kube/cache.json",
        "ssh/config",
    ] {
        assert_eq!(path(p), None, "{p}");
    }
}

#[test]
fn login_and_token_files() {
    assert_eq!(path(".npmrc"), Some(RegistryToken));
    assert_eq!(path("pkg/.pypirc"), Some(RegistryToken));
    assert_eq!(path(".netrc"), Some(Netrc));
    assert_eq!(path("_netrc"), Some(Netrc));
    assert_eq!(path(".git-credentials"), Some(GitCredentials));
    assert_eq!(path(".pgpass"), Some(Pgpass));
    for p in [
        "npmrc.md",
        ".npmrc.md",
        "netrc",
        ".gitignore",
        ".gitconfig-notes",
        "pgpass.txt",
    ] {
        assert_eq!(path(p), None, "{p}");
    }
}

#[test]
fn names_are_matched_without_regard_to_case_on_every_platform() {
    assert_eq!(path(".ENV"), Some(EnvFile));
    assert_eq!(path(".Env.Example"), Some(EnvTemplate));
    assert_eq!(path("ID_RSA"), Some(SshKey));
    assert_eq!(path(".SSH/x"), Some(SshFolder));
    assert_eq!(path(".AWS/Credentials"), Some(Aws));
    assert_eq!(path("KubeConfig"), Some(KubeConfig));
    assert_eq!(path("Server.PEM"), Some(KeyFile));
}

#[test]
fn the_root_and_dot_parts_are_no_file() {
    assert_eq!(path(""), None);
    assert_eq!(path("."), None);
    assert_eq!(path("./.env"), Some(EnvFile));
}

#[test]
fn a_git_config_is_decided_by_its_content() {
    assert!(is_git_config(Path::new(".git/config")));
    assert!(is_git_config(Path::new("sub/.git/config")));
    assert!(is_git_config(Path::new(".git/modules/lib/config")));
    assert!(is_git_config(Path::new(".GIT/CONFIG")));
    assert!(!is_git_config(Path::new("config")));
    assert!(!is_git_config(Path::new(".git/HEAD")));
    assert!(!is_git_config(Path::new("git/config")));
    // No rule by name alone.
    assert_eq!(path(".git/config"), None);
}

#[test]
fn git_config_remote_urls_with_passwords_or_tokens() {
    let with = |url: &str| {
        format!(
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        )
    };
    for url in [
        "https://user:s3cret@github.com/o/r.git",
        "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r.git",
        "https://x-access-token:ghs_token@github.com/o/r",
        "http://alice:pw@git.local:8080/r.git",
        "ssh://git:password@host/r.git",
        "\"https://oauth2:glpat-xyz@gitlab.com/o/r.git\"",
    ] {
        assert!(
            git_config_carries_credentials(with(url).as_bytes()),
            "{url}"
        );
    }
    for url in [
        "https://github.com/o/r.git",
        "git@github.com:o/r.git",
        "ssh://git@github.com/o/r.git",
        "git+ssh://git@host/r.git",
        "file:///srv/git/r.git",
        "/srv/git/r.git",
        "https://:@github.com/o/r.git",
    ] {
        assert!(
            !git_config_carries_credentials(with(url).as_bytes()),
            "{url}"
        );
    }
}

#[test]
fn git_config_tokens_in_url_sections_and_headers() {
    let insteadof =
        "[url \"https://ghp_token123@github.com/\"]\n\tinsteadOf = https://github.com/\n";
    assert!(git_config_carries_credentials(insteadof.as_bytes()));
    let header =
        "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n";
    assert!(git_config_carries_credentials(header.as_bytes()));
    // A comment that mentions one is not a setting.
    let comment = "# url = https://user:pw@example.com/r.git\n; extraheader = Authorization: x\n";
    assert!(!git_config_carries_credentials(comment.as_bytes()));
    assert_eq!(
        by_content(Path::new(".git/config"), insteadof.as_bytes()),
        Some(GitConfigCredentials)
    );
    // The same text in a file that is no Git config is not judged as one.
    assert_eq!(
        by_content(Path::new("notes.txt"), insteadof.as_bytes()),
        None
    );
}

#[test]
fn pem_private_key_blocks_in_any_file() {
    for label in [
        "RSA PRIVATE KEY",
        "PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        let begin = format!("notes\n-----BEGIN {label}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n");
        assert!(has_private_key_block(begin.as_bytes()), "{label}");
        // Only the end of a block, as a part of a longer file may hold.
        let end = format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END {label}-----\n");
        assert!(has_private_key_block(end.as_bytes()), "{label}");
    }
    assert_eq!(
        by_content(
            Path::new("deploy/notes.txt"),
            b"-----BEGIN OPENSSH PRIVATE KEY-----\n"
        ),
        Some(PrivateKeyBlock)
    );
    for text in [
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "-----BEGIN PUBLIC KEY-----\n",
        "a private key is private\n",
        "-----BEGIN \n PRIVATE KEY on the next line\n",
    ] {
        assert!(!has_private_key_block(text.as_bytes()), "{text}");
    }
}

#[test]
fn every_kind_has_a_distinct_name_and_a_sentence() {
    let all = [
        EnvFile,
        EnvTemplate,
        KeyFile,
        SshKey,
        SshFolder,
        RegistryToken,
        Netrc,
        GitCredentials,
        Pgpass,
        Aws,
        KubeConfig,
        GitConfigCredentials,
        PrivateKeyBlock,
    ];
    let mut kinds: Vec<_> = all.iter().map(|s| s.kind()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(kinds.len(), all.len());
    for s in all {
        assert_eq!(serde_json::to_value(s).unwrap(), s.kind());
        assert!(s.reason().len() > 20, "{s:?}");
    }
}

#[test]
fn a_move_that_would_hide_credentials_from_the_check_is_found() {
    let moved = |s: &str, t: &str| hidden_by_move(Path::new(s), Path::new(t));
    // Renamed out of its kind, or its folder renamed to an ordinary one.
    assert_eq!(moved(".env", "notes.txt"), Some(EnvFile.reason()));
    assert_eq!(
        moved("deploy/id_rsa", "deploy/backup"),
        Some(SshKey.reason())
    );
    assert_eq!(moved(".ssh", "keys"), Some(SshFolder.reason()));
    assert_eq!(moved("home/.aws", "home/aws"), Some(Aws.reason()));
    assert_eq!(moved(".kube", "kube"), Some(KubeConfig.reason()));
    assert!(moved(".git", "repo").is_some_and(|why| why.contains("Git folder")));
    // The config file itself, renamed beside itself or out of its folder: its content decides
    // only while its path is a Git config's.
    assert!(moved(".git/config", ".git/config.old").is_some_and(|why| why.contains("Git config")));
    assert!(moved(".git/config", "notes/config").is_some_and(|why| why.contains("Git config")));
    assert_eq!(moved(".git/config", "backup/.git/config"), None);
    assert_eq!(
        moved(".ssh/config", "ssh-config.txt"),
        Some(SshFolder.reason())
    );
    // Still recognised where it goes, or never sensitive.
    assert_eq!(moved(".env", ".env.old"), None);
    assert_eq!(moved(".env", "config/.env"), None);
    assert_eq!(moved("certs/a.pem", "old/a.pem"), None);
    assert_eq!(moved(".ssh", "backup/.ssh"), None);
    assert_eq!(moved(".git", "vendor/lib/.git"), None);
    assert_eq!(moved("src", "lib"), None);
    assert_eq!(moved("notes.txt", ".env"), None);
}

//! Walking one skill folder: every entry listed without following a link, the folder's
//! digest, and `SKILL.md` read. A file is opened without following a link (its last
//! component) and without blocking, and checked to be a regular file of the size listed, so a
//! file swapped for a link or a FIFO after the listing is a refusal. Only digests and
//! `SKILL.md`'s front matter come of these reads; what the model reads of a skill goes through
//! the file tools' kernel-enforced sandbox.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::limits::{MAX_FILES_PER_SKILL, MAX_SKILL_BYTES};

/// A walked skill folder.
pub(crate) struct Walked {
    /// Hex SHA-256 over the entries (see [`crate::Skill::digest`]).
    pub(crate) digest: String,
    pub(crate) files: usize,
    pub(crate) bytes: u64,
    /// `SKILL.md` (or `skill.md`) at the folder's top, and its size.
    pub(crate) skill_md: Option<(PathBuf, u64)>,
    /// The lines the digest is taken over, one per entry (see [`crate::Skill::manifest`]).
    pub(crate) manifest: Vec<String>,
}

enum Entry {
    Dir,
    File(u64),
    Link(String),
}

/// Lists `root` (resolved) and takes its digest.
pub(crate) fn walk(root: &Path) -> Result<Walked, String> {
    let mut entries: Vec<(String, Entry)> = Vec::new();
    let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
    let mut bytes = 0u64;
    while let Some(rel) = pending.pop() {
        let dir = root.join(&rel);
        let listing = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", shown(&rel)))?;
        for entry in listing {
            let entry = entry.map_err(|e| format!("{}: {e}", shown(&rel)))?;
            let path = rel.join(entry.file_name());
            let Some(name) = path.to_str().map(|p| p.replace('\\', "/")) else {
                return Err(format!("{} has a name that is not UTF-8", shown(&rel)));
            };
            let meta =
                std::fs::symlink_metadata(root.join(&path)).map_err(|e| format!("{name}: {e}"))?;
            let kind = meta.file_type();
            let item = if kind.is_symlink() {
                Entry::Link(link_inside(root, &path, &name)?)
            } else if kind.is_dir() {
                pending.push(path);
                Entry::Dir
            } else if kind.is_file() {
                bytes += meta.len();
                Entry::File(meta.len())
            } else {
                return Err(format!(
                    "{name} is not a file, folder or link (a FIFO, socket or device)"
                ));
            };
            entries.push((name, item));
            if entries.len() > MAX_FILES_PER_SKILL {
                return Err(format!(
                    "the folder holds more than {MAX_FILES_PER_SKILL} files and folders"
                ));
            }
            if bytes > MAX_SKILL_BYTES {
                return Err(format!(
                    "the folder's files hold more than {MAX_SKILL_BYTES} bytes"
                ));
            }
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let skill_md = ["SKILL.md", "skill.md"].iter().find_map(|n| {
        entries.iter().find_map(|(name, item)| match item {
            Entry::File(len) if name == n => Some((PathBuf::from(n), *len)),
            _ => None,
        })
    });
    if skill_md.is_none()
        && entries
            .iter()
            .any(|(n, _)| n == "SKILL.md" || n == "skill.md")
    {
        return Err("SKILL.md must be a file, not a folder or a link".to_owned());
    }
    let mut digest = Sha256::new();
    let mut files = 0;
    let mut manifest = Vec::with_capacity(entries.len());
    for (name, item) in &entries {
        let line = match item {
            Entry::Dir => format!("d {name}"),
            Entry::Link(target) => format!("l {name} -> {target}"),
            Entry::File(len) => {
                files += 1;
                let content =
                    file_digest(&root.join(name), *len).map_err(|e| format!("{name}: {e}"))?;
                format!("f {name} {len} {content}")
            }
        };
        digest.update(format!("{line}\n"));
        manifest.push(line);
    }
    Ok(Walked {
        digest: hex::encode(digest.finalize()),
        files,
        bytes,
        skill_md,
        manifest,
    })
}

/// The target of the link `rel`, which must resolve inside `root`.
fn link_inside(root: &Path, rel: &Path, name: &str) -> Result<String, String> {
    let target = std::fs::read_link(root.join(rel)).map_err(|e| format!("{name}: {e}"))?;
    let resolved = std::fs::canonicalize(root.join(rel))
        .map_err(|_| format!("{name} is a link that leads nowhere"))?;
    if !resolved.starts_with(root) {
        return Err(format!(
            "{name} is a link that leads outside the skill's folder"
        ));
    }
    Ok(target.to_string_lossy().replace('\\', "/"))
}

fn shown(rel: &Path) -> String {
    if rel.components().next().is_none() {
        ".".to_owned()
    } else {
        rel.components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Opens `path` as the regular file of `len` bytes it was listed as: no link followed, no
/// blocking on a FIFO swapped in.
fn open_listed(path: &Path, len: u64) -> Result<std::fs::File, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        options.custom_flags(flags.bits() as i32);
    }
    let file = options.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() || meta.len() != len {
        return Err("changed while the folder was read".to_owned());
    }
    Ok(file)
}

/// Hex SHA-256 of the listed file's content.
fn file_digest(path: &Path, len: u64) -> Result<String, String> {
    let mut file = open_listed(path, len)?.take(len + 1);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut read = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
    }
    if read != len {
        return Err("changed while the folder was read".to_owned());
    }
    Ok(hex::encode(hasher.finalize()))
}

/// The text of `path` (listed as a regular file), at most `cap` bytes, as UTF-8.
pub(crate) fn read_text(path: &Path, cap: u64) -> Result<String, String> {
    let len = std::fs::symlink_metadata(path)
        .map_err(|e| format!("SKILL.md: {e}"))?
        .len();
    let file = open_listed(path, len).map_err(|e| format!("SKILL.md: {e}"))?;
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("SKILL.md: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(format!("SKILL.md has more than {cap} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| "SKILL.md is not UTF-8 text".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_file_opens_only_as_listed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "four").unwrap();
        assert!(open_listed(&file, 4).is_ok());
        assert_eq!(
            open_listed(&file, 5).unwrap_err(),
            "changed while the folder was read"
        );
        #[cfg(unix)]
        {
            // A link swapped in for the file is not followed.
            let link = dir.path().join("l");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert!(open_listed(&link, 4).is_err());
        }
    }

    #[test]
    fn skill_md_is_read_up_to_its_cap_and_not_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("SKILL.md");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_text(&file, 10).unwrap(), "0123456789");
        assert_eq!(
            read_text(&file, 9).unwrap_err(),
            "SKILL.md has more than 9 bytes"
        );
    }
}

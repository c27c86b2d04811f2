//! Agent Skills (agentskills.io) as Wisp reads them: skill folders found in the person's and
//! the project's skills folders ([`find`]), each `SKILL.md` validated as the format's
//! reference validator (`skills-ref`) does, a digest of each whole folder for trust to bind
//! ([`Skill::digest`]: a changed `SKILL.md` or script is another digest), and the catalogue of
//! names and descriptions given to the model ([`catalogue`]).
//!
//! A skill that breaks a rule is listed as [`Invalid`] with the reason, never half-read. A
//! skill folder must not reach outside itself: a link inside it that leads out, or a FIFO,
//! socket or device in it, makes it invalid; links are never followed while it is walked, so a
//! link inside that stays inside is part of the digest as its target's text. A project's
//! skills came with the project, possibly from anyone who wrote it: [`Origin::Project`] says
//! so, and its folders may not be links out of the project. Every limit is in [`limits`].
//!
//! This crate reads only; it knows nothing of runs, approvals or trust decisions.

pub mod limits;

mod front;
mod walk;

use std::path::{Path, PathBuf};

pub use front::{FrontMatter, Value, parse as parse_front_matter};

use limits::{
    MAX_CATALOGUE_BYTES, MAX_CATALOGUE_SKILLS, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS, MAX_SKILL_MD_BYTES, MAX_SKILLS_PER_SOURCE,
};

/// Whose skills folder a skill was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The person's own (`~/.agents/skills/`, Wisp's skills folder in its data dir).
    Person,
    /// The project's (`.agents/skills/`, `.claude/skills/`): usable only once trusted.
    Project,
}

/// A folder holding skill folders.
#[derive(Debug, Clone)]
pub struct Source {
    /// Whose it is.
    pub origin: Origin,
    /// The folder; one that does not exist holds no skills.
    pub dir: PathBuf,
    /// The folder its skills must stay in when a skill folder is a link (the project's root);
    /// `None` for the person's own folders, where linking a skill in is the person's choice.
    pub confine: Option<PathBuf>,
}

/// A valid skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (equal to its folder's name).
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// Its folder, resolved.
    pub dir: PathBuf,
    /// Whose skills folder it was found in.
    pub origin: Origin,
    /// SHA-256 over every entry of the folder: each path, kind, and a file's size and content
    /// digest or a link's target. What trusting a skill binds.
    pub digest: String,
    /// Files in the folder.
    pub files: usize,
    /// Bytes of those files.
    pub bytes: u64,
    /// What the digest is taken over, one line per entry sorted by path: `d PATH`,
    /// `l PATH -> TARGET`, `f PATH SIZE SHA256`. Kept with a trust, it says what changed.
    pub manifest: Vec<String>,
    /// Front-matter fields the format does not define, which Wisp does not use (Claude's
    /// `model`, `argument-hint`, …); said, not an error, so skills written for other hosts
    /// are not refused for them.
    pub ignored_fields: Vec<String>,
}

/// A skill folder that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The folder as found.
    pub dir: PathBuf,
    /// Whose skills folder it was found in.
    pub origin: Origin,
    /// Every rule it breaks, in a sentence each.
    pub reason: String,
}

/// What [`find`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The valid skills, in the order of the sources, then by folder name.
    pub skills: Vec<Skill>,
    /// The folders that cannot be used.
    pub invalid: Vec<Invalid>,
    /// What was not looked at (a source over its limit, a source that cannot be read).
    pub notes: Vec<String>,
}

/// The skills in `sources`, in their order: a name already found in an earlier source makes
/// the later folder invalid (so a project's skill can never stand in for the person's own).
pub fn find(sources: &[Source]) -> Found {
    let mut found = Found::default();
    for source in sources {
        let entries = match std::fs::read_dir(&source.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                found
                    .notes
                    .push(format!("{}: cannot be read: {e}", source.dir.display()));
                continue;
            }
        };
        // The folder a project's skills must stay in, resolved once for the whole source.
        let confine = match source.confine.as_deref().map(std::fs::canonicalize) {
            None => None,
            Some(Ok(confine)) => Some(confine),
            Some(Err(e)) => {
                found.notes.push(format!(
                    "{}: its project folder cannot be resolved: {e}",
                    source.dir.display()
                ));
                continue;
            }
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        if dirs.len() > MAX_SKILLS_PER_SOURCE {
            found.notes.push(format!(
                "{}: {} skill folders; the first {MAX_SKILLS_PER_SOURCE} by name were looked at",
                source.dir.display(),
                dirs.len()
            ));
            dirs.truncate(MAX_SKILLS_PER_SOURCE);
        }
        for dir in dirs {
            match load(&dir, source.origin, confine.as_deref()) {
                Ok(skill) => {
                    if let Some(first) = found.skills.iter().find(|s| s.name == skill.name) {
                        found.invalid.push(Invalid {
                            dir,
                            origin: source.origin,
                            reason: format!(
                                "a skill named {:?} was already found in {}",
                                skill.name,
                                first.dir.display()
                            ),
                        });
                    } else {
                        found.skills.push(skill);
                    }
                }
                Err(reason) => found.invalid.push(Invalid {
                    dir,
                    origin: source.origin,
                    reason,
                }),
            }
        }
    }
    found
}

/// One skill folder, validated and its digest taken.
/// `confine` is resolved: the folder must resolve inside it.
fn load(dir: &Path, origin: Origin, confine: Option<&Path>) -> Result<Skill, String> {
    let resolved =
        std::fs::canonicalize(dir).map_err(|e| format!("the folder cannot be resolved: {e}"))?;
    if let Some(confine) = confine
        && !resolved.starts_with(confine)
    {
        return Err(format!(
            "the folder is a link to {}, outside {}",
            resolved.display(),
            confine.display()
        ));
    }
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let walked = walk::walk(&resolved)?;
    let skill_md = walked
        .skill_md
        .as_ref()
        .ok_or("the folder has no SKILL.md file")?;
    if skill_md.1 > MAX_SKILL_MD_BYTES {
        return Err(format!(
            "SKILL.md has {} bytes, more than {MAX_SKILL_MD_BYTES}",
            skill_md.1
        ));
    }
    let text = walk::read_text(&resolved.join(&skill_md.0), MAX_SKILL_MD_BYTES)?;
    let front = front::parse(&text).map_err(|e| format!("SKILL.md: {e}"))?;
    let (name, description, ignored_fields) = validate(&front, &folder)?;
    Ok(Skill {
        name,
        description,
        dir: resolved,
        origin,
        digest: walked.digest,
        files: walked.files,
        bytes: walked.bytes,
        manifest: walked.manifest,
        ignored_fields,
    })
}

/// What changed from the manifest `then` to `now` (see [`Skill::manifest`]), one line per
/// path: `added PATH`, `removed PATH`, `changed PATH`, sorted by path.
pub fn manifest_changes(then: &[String], now: &[String]) -> Vec<String> {
    fn by_path(lines: &[String]) -> std::collections::BTreeMap<&str, &str> {
        lines
            .iter()
            .map(|l| {
                // `K PATH …`: the path ends at the size (files) or the arrow (links).
                let rest = l.get(2..).unwrap_or("");
                let path = match l.as_bytes().first() {
                    Some(b'f') => rest.rsplitn(3, ' ').nth(2).unwrap_or(rest),
                    Some(b'l') => rest.split(" -> ").next().unwrap_or(rest),
                    _ => rest,
                };
                (path, l.as_str())
            })
            .collect()
    }
    let (then, now) = (by_path(then), by_path(now));
    let mut paths: Vec<&str> = then.keys().chain(now.keys()).copied().collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|p| match (then.get(p), now.get(p)) {
            (None, Some(_)) => Some(format!("added {p}")),
            (Some(_), None) => Some(format!("removed {p}")),
            (Some(a), Some(b)) if a != b => Some(format!("changed {p}")),
            _ => None,
        })
        .collect()
}

/// The fields the format defines; any other is ignored and said.
const FORMAT_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// The front matter's rules (the specification's, as `skills-ref` checks them): every broken
/// one is said, in one reason.
pub fn validate(
    front: &FrontMatter,
    folder: &str,
) -> Result<(String, String, Vec<String>), String> {
    let mut errors: Vec<String> = Vec::new();
    let text_field = |key: &str, errors: &mut Vec<String>| -> Option<String> {
        match front.fields.iter().find(|(k, _)| k == key) {
            None => {
                errors.push(format!("the front matter has no `{key}`"));
                None
            }
            Some((_, Value::Map(_))) => {
                errors.push(format!("`{key}` must be text, not a mapping"));
                None
            }
            Some((_, Value::Text(t))) if t.trim().is_empty() => {
                errors.push(format!("`{key}` is empty"));
                None
            }
            Some((_, Value::Text(t))) => Some(t.trim().to_owned()),
        }
    };
    let name = text_field("name", &mut errors);
    let description = text_field("description", &mut errors);
    if let Some(name) = &name {
        errors.extend(name_problems(name, folder));
    }
    if let Some(description) = &description {
        let chars = description.chars().count();
        if chars > MAX_DESCRIPTION_CHARS {
            errors.push(format!(
                "`description` has {chars} characters, more than {MAX_DESCRIPTION_CHARS}"
            ));
        }
    }
    match front.fields.iter().find(|(k, _)| k == "compatibility") {
        Some((_, Value::Text(t))) if t.chars().count() > MAX_COMPATIBILITY_CHARS => {
            errors.push(format!(
                "`compatibility` has {} characters, more than {MAX_COMPATIBILITY_CHARS}",
                t.chars().count()
            ));
        }
        Some((_, Value::Map(_))) => errors.push("`compatibility` must be text".to_owned()),
        _ => {}
    }
    if let Some((_, Value::Text(t))) = front.fields.iter().find(|(k, _)| k == "metadata")
        && !t.is_empty()
    {
        errors.push("`metadata` must be a mapping of keys to text".to_owned());
    }
    match (name, description) {
        (Some(name), Some(description)) if errors.is_empty() => {
            let ignored = front
                .fields
                .iter()
                .map(|(k, _)| k.clone())
                .filter(|k| !FORMAT_FIELDS.contains(&k.as_str()))
                .collect();
            Ok((name, description, ignored))
        }
        _ => Err(errors.join("; ")),
    }
}

/// What is wrong with `name` as a skill's name in the folder `folder`.
fn name_problems(name: &str, folder: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        problems.push(format!(
            "`name` has {chars} characters, more than {MAX_NAME_CHARS}"
        ));
    }
    if name.to_lowercase() != name {
        problems.push(format!("`name` {name:?} must be lowercase"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push(format!("`name` {name:?} starts or ends with a hyphen"));
    }
    if name.contains("--") {
        problems.push(format!("`name` {name:?} has two hyphens in a row"));
    }
    if let Some(c) = name.chars().find(|c| !c.is_alphanumeric() && *c != '-') {
        problems.push(format!(
            "`name` {name:?} has {c:?}: only letters, digits and hyphens are allowed"
        ));
    }
    if name != folder {
        problems.push(format!(
            "`name` {name:?} is not its folder's name {folder:?}"
        ));
    }
    problems
}

/// The catalogue given to the model: one line per skill, `- name: description` (line breaks
/// in a description made spaces), at most [`MAX_CATALOGUE_SKILLS`] skills and
/// [`MAX_CATALOGUE_BYTES`] bytes, the skills left out counted on a last line.
pub fn catalogue<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> String {
    let skills: Vec<&Skill> = skills.into_iter().collect();
    let mut text = String::new();
    let mut listed = 0;
    // Room for the last line, which says how many were left out.
    let reserve = 64;
    for skill in &skills {
        let description: String = skill
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let line = format!("- {}: {description}\n", skill.name);
        if listed == MAX_CATALOGUE_SKILLS || text.len() + line.len() + reserve > MAX_CATALOGUE_BYTES
        {
            break;
        }
        text.push_str(&line);
        listed += 1;
    }
    let left = skills.len() - listed;
    if left > 0 {
        text.push_str(&format!(
            "({left} more skill{} not listed: the catalogue's limit)\n",
            if left == 1 { " is" } else { "s are" }
        ));
    }
    text
}

#[cfg(test)]
mod tests;

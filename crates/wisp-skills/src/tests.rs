//! The tests of skills: the front matter as YAML reads it, the rules of the format's reference
//! validator, published skills, finding skills in folders (links, FIFOs, limits), the digest
//! and the catalogue.

use std::path::Path;

use super::*;
use crate::limits::{MAX_FILES_PER_SKILL, MAX_SKILL_BYTES};

fn front(yaml: &str) -> Result<Vec<(String, Value)>, String> {
    parse_front_matter(&format!("---\n{yaml}---\nbody\n")).map(|f| f.fields)
}

fn text(yaml: &str, key: &str) -> String {
    let fields = front(yaml).unwrap_or_else(|e| panic!("{yaml:?}: {e}"));
    match fields.into_iter().find(|(k, _)| k == key) {
        Some((_, Value::Text(t))) => t,
        other => panic!("{yaml:?}: {key} is {other:?}"),
    }
}

#[test]
fn scalars_are_read_as_yaml_reads_them() {
    for (yaml, expected) in [
        ("d: plain words\n", "plain words"),
        ("d: words # a comment\n", "words"),
        ("d: C#, not a comment\n", "C#, not a comment"),
        (
            "d: Use when: the person asks\n",
            "Use when: the person asks",
        ),
        ("d: first\n  second\n", "first second"),
        ("d: first\n\n  after a blank\n", "first\nafter a blank"),
        (
            "d: \"say \\\"hi\\\"\\tnow\\u00e9\"\n",
            "say \"hi\"\tnow\u{e9}",
        ),
        ("d: \"one\n  two\"\n", "one two"),
        ("d: \"joined\\\n  here\"\n", "joinedhere"),
        ("d: \"a \\0 b\"\n", "a \0 b"),
        ("d: 'it''s'\n", "it's"),
        ("d: 'one\n\n  two'\n", "one\ntwo"),
        ("d: |\n  line one\n  line two\n", "line one\nline two\n"),
        ("d: |-\n  kept\n    indented\n", "kept\n  indented"),
        ("d: |+\n  keep\n\n", "keep\n\n"),
        ("d: |-\n  strip\n\n\n", "strip"),
        ("d: |\n  clip\n\n\nnext: x\n", "clip\n"),
        ("d: >\n  folded\n  text\n\n  para\n", "folded text\npara\n"),
        ("d: >-\n  folded\n  text\n", "folded text"),
        ("d: [Read, Grep]\n", "[Read, Grep]"),
        ("d:\n", ""),
        ("d: true\n", "true"),
    ] {
        assert_eq!(text(yaml, "d"), expected, "{yaml:?}");
    }
}

#[test]
fn metadata_is_one_level_of_pairs_and_crlf_and_a_bom_are_read() {
    let fields =
        front("name: x\nmetadata:\n  author: me\n  version: \"1.0\"\nlicense: MIT\n").unwrap();
    assert_eq!(
        fields[1],
        (
            "metadata".to_owned(),
            Value::Map(vec![
                ("author".to_owned(), "me".to_owned()),
                ("version".to_owned(), "1.0".to_owned()),
            ])
        )
    );
    assert_eq!(fields[2].0, "license");
    let crlf =
        parse_front_matter("\u{feff}---\r\nname: a\r\ndescription: b c\r\n---\r\nbody").unwrap();
    assert_eq!(crlf.text("description"), Some("b c"));
    assert_eq!(
        &"\u{feff}---\r\nname: a\r\ndescription: b c\r\n---\r\nbody"[crlf.body_start..],
        "body"
    );
}

#[test]
fn front_matter_outside_the_subset_is_an_error_naming_its_line() {
    for (yaml, said) in [
        ("d: &anchor x\n", "line 2: YAML anchors"),
        ("d: *alias\n", "anchors, aliases"),
        ("d: !tag x\n", "tags"),
        ("d: a\nd: b\n", "line 3: the key \"d\" is given twice"),
        ("  d: a\n", "line 2: indented"),
        ("\td: a\n", "tabs"),
        ("just words\n", "line 2: expected `key: value`"),
        ("d:x\n", "a space must follow `d:`"),
        ("d: \"open\n", "not closed"),
        ("d: \"bad \\q\"\n", "\\q is not a YAML escape"),
        ("d: \"x\" y\n", "after the closing quote"),
        ("d: 'x'\n  more\n", "\"more\" follows the quoted value"),
        ("m:\n  a:\n    b: c\n", "one level"),
        ("m:\n  - a\n", "a list is read only as `[a, b]`"),
        ("d: |2\n  x\n", "block indicator"),
        ("d: |\n    x\n  y\n", "less indented"),
        ("a key: v\n", "is not a key"),
    ] {
        let e = front(yaml).unwrap_err();
        assert!(e.contains(said), "{yaml:?}: {e}");
    }
    let e = parse_front_matter("name: x\n").unwrap_err();
    assert!(e.contains("must start with"), "{e}");
    let e = parse_front_matter("---\nname: x\n").unwrap_err();
    assert!(e.contains("not closed"), "{e}");
    let long = format!(
        "---\nd: {}\n---\n",
        "x".repeat(limits::MAX_FRONT_MATTER_BYTES)
    );
    let e = parse_front_matter(&long).unwrap_err();
    assert!(e.contains("more than 8192 bytes"), "{e}");
    // A body holding `---` lines does not end the front matter early or late.
    let f = parse_front_matter("---\nname: x\n---\n# T\n---\nmore\n").unwrap();
    assert_eq!(f.fields.len(), 1);
}

/// The cases of the format's reference validator (`skills-ref`'s `test_validator.py`).
#[test]
fn the_rules_of_the_reference_validator() {
    let check = |name: &str, folder: &str, description: &str| {
        let f = parse_front_matter(&format!(
            "---\nname: {name}\ndescription: {description}\n---\n"
        ))
        .unwrap();
        validate(&f, folder)
    };
    assert!(check("my-skill", "my-skill", "A test skill").is_ok());
    assert!(check("技能", "技能", "A skill with a Chinese name").is_ok());
    assert!(check("мой-навык", "мой-навык", "Russian").is_ok());
    assert!(check("навык", "навык", "Russian, lowercase").is_ok());
    let long_name = "a".repeat(65);
    let long_description = "d".repeat(1025);
    for (name, folder, description, said) in [
        ("MySkill", "MySkill", "x", "must be lowercase"),
        ("НАВЫК", "НАВЫК", "x", "must be lowercase"),
        (
            long_name.as_str(),
            long_name.as_str(),
            "x",
            "65 characters, more than 64",
        ),
        (
            "-my-skill",
            "-my-skill",
            "x",
            "starts or ends with a hyphen",
        ),
        (
            "my-skill-",
            "my-skill-",
            "x",
            "starts or ends with a hyphen",
        ),
        ("my--skill", "my--skill", "x", "two hyphens in a row"),
        ("my_skill", "my_skill", "x", "has '_'"),
        (
            "correct-name",
            "wrong-name",
            "x",
            "not its folder's name \"wrong-name\"",
        ),
        (
            "my-skill",
            "my-skill",
            &long_description,
            "1025 characters, more than 1024",
        ),
    ] {
        let e = check(name, folder, description).unwrap_err();
        assert!(e.contains(said), "{name}/{folder}: {e}");
    }
    let f = parse_front_matter("---\ndescription: x\n---\n").unwrap();
    assert!(validate(&f, "x").unwrap_err().contains("has no `name`"));
    let f = parse_front_matter("---\nname: x\ndescription: \"  \"\n---\n").unwrap();
    assert!(
        validate(&f, "x")
            .unwrap_err()
            .contains("`description` is empty")
    );
    let f = parse_front_matter(&format!(
        "---\nname: x\ndescription: y\ncompatibility: {}\n---\n",
        "c".repeat(501)
    ))
    .unwrap();
    assert!(
        validate(&f, "x")
            .unwrap_err()
            .contains("501 characters, more than 500")
    );
    let f = parse_front_matter("---\nname: x\ndescription: y\nmetadata: flat\n---\n").unwrap();
    assert!(
        validate(&f, "x")
            .unwrap_err()
            .contains("`metadata` must be a mapping")
    );
    // Every rule broken is said at once.
    let f = parse_front_matter("---\nname: Bad_Name\n---\n").unwrap();
    let e = validate(&f, "other").unwrap_err();
    assert!(
        e.contains("no `description`") && e.contains("lowercase") && e.contains("'_'"),
        "{e}"
    );
    // Fields of other hosts are said, not refused.
    let f = parse_front_matter(
        "---\nname: x\ndescription: y\nlicense: MIT\nallowed-tools: Read\nmodel: opus\n---\n",
    )
    .unwrap();
    assert_eq!(validate(&f, "x").unwrap().2, vec!["model".to_owned()]);
}

/// Skills written by someone else (anthropics/skills; see `testdata/README.md`).
#[test]
fn published_skills_are_read_and_judged_by_the_format() {
    let art = parse_front_matter(include_str!("testdata/algorithmic-art.md")).unwrap();
    let (name, description, ignored) = validate(&art, "algorithmic-art").unwrap();
    assert_eq!(name, "algorithmic-art");
    assert!(description.starts_with("Creating algorithmic art using p5.js"));
    assert!(description.ends_with("to avoid copyright violations."));
    assert!(ignored.is_empty());

    let api = parse_front_matter(include_str!("testdata/claude-api.md")).unwrap();
    let description = api.text("description").unwrap();
    assert!(description.starts_with("Reference for the Claude API"));
    assert_eq!(description.lines().count(), 3);
    assert!(
        !description.ends_with('\n'),
        "|- strips the last line break"
    );
    let e = validate(&api, "claude-api").unwrap_err();
    assert_eq!(e, "`description` has 1068 characters, more than 1024");

    let template = parse_front_matter(include_str!("testdata/template.md")).unwrap();
    let e = validate(&template, "template").unwrap_err();
    assert!(
        e.contains("\"template-skill\" is not its folder's name \"template\""),
        "{e}"
    );
}

fn skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(
        dir.join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .unwrap();
}

fn person(dir: &Path) -> Source {
    Source {
        origin: Origin::Person,
        dir: dir.to_path_buf(),
        confine: None,
    }
}

fn project(root: &Path) -> Source {
    Source {
        origin: Origin::Project,
        dir: root.join(".agents/skills"),
        confine: Some(root.to_path_buf()),
    }
}

#[test]
fn skills_are_found_in_order_and_a_name_found_again_is_not_used() {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let mine = home.path().join("skills");
    skill(&mine, "review", "Reviews code.");
    skill(&mine, "alpha", "First by name.");
    std::fs::create_dir_all(mine.join(".hidden")).unwrap();
    std::fs::write(mine.join("notes.txt"), "not a skill").unwrap();
    let theirs = root.path().join(".agents/skills");
    skill(&theirs, "review", "A project's skill of the same name.");
    skill(&theirs, "build", "Builds.");
    std::fs::create_dir_all(theirs.join("empty")).unwrap();
    let missing = person(&home.path().join("nowhere"));

    let found = find(&[missing, person(&mine), project(root.path())]);
    let names: Vec<(&str, Origin)> = found
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.origin))
        .collect();
    assert_eq!(
        names,
        [
            ("alpha", Origin::Person),
            ("review", Origin::Person),
            ("build", Origin::Project)
        ]
    );
    assert_eq!(found.skills[1].description, "Reviews code.");
    let reasons: Vec<(&str, &str)> = found
        .invalid
        .iter()
        .map(|i| {
            (
                i.dir.file_name().unwrap().to_str().unwrap(),
                i.reason.as_str(),
            )
        })
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(reasons[0], ("empty", "the folder has no SKILL.md file"));
    assert_eq!(reasons[1].0, "review");
    assert!(
        reasons[1]
            .1
            .starts_with("a skill named \"review\" was already found in ")
    );
    assert!(found.notes.is_empty(), "{:?}", found.notes);
}

#[test]
fn the_digest_covers_every_file_and_changes_with_any() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "s", "d");
    let scripts = dir.path().join("s/scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(scripts.join("run.py"), "print('a')\n").unwrap();
    let digest = || {
        let found = find(&[person(dir.path())]);
        assert!(found.invalid.is_empty(), "{:?}", found.invalid);
        found.skills[0].clone()
    };
    let first = digest();
    assert_eq!(first.digest.len(), 64);
    assert_eq!((first.files, first.bytes), (2, 35 + 11));
    assert_eq!(
        digest().digest,
        first.digest,
        "the same folder, the same digest"
    );
    std::fs::write(scripts.join("run.py"), "print('b')\n").unwrap();
    let changed = digest().digest;
    assert_ne!(changed, first.digest, "a script's content");
    std::fs::rename(scripts.join("run.py"), scripts.join("go.py")).unwrap();
    assert_ne!(digest().digest, changed, "a script's name");
    let before = digest().digest;
    std::fs::create_dir(dir.path().join("s/assets")).unwrap();
    assert_ne!(digest().digest, before, "an empty folder");
    let before = digest().digest;
    std::fs::write(
        dir.path().join("s/SKILL.md"),
        "---\nname: s\ndescription: e\n---\n# s\n",
    )
    .unwrap();
    assert_ne!(digest().digest, before, "SKILL.md");
}

#[test]
fn the_manifest_says_which_paths_were_added_removed_or_changed() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "s", "d");
    let scripts = dir.path().join("s/scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(scripts.join("run py.py"), "print('a')\n").unwrap();
    std::fs::write(scripts.join("keep.py"), "x\n").unwrap();
    let manifest = || find(&[person(dir.path())]).skills[0].manifest.clone();
    let then = manifest();
    assert_eq!(then.len(), 4, "{then:?}");
    assert!(then.contains(&"d scripts".to_owned()), "{then:?}");
    assert_eq!(manifest_changes(&then, &then), Vec::<String>::new());
    // A name with a space is still one path; a size-preserving edit is still a change.
    std::fs::write(scripts.join("run py.py"), "print('b')\n").unwrap();
    std::fs::write(scripts.join("new.sh"), "echo\n").unwrap();
    std::fs::remove_file(scripts.join("keep.py")).unwrap();
    assert_eq!(
        manifest_changes(&then, &manifest()),
        [
            "removed scripts/keep.py",
            "added scripts/new.sh",
            "changed scripts/run py.py"
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_skill_may_not_reach_outside_its_folder() {
    use std::os::unix::fs::symlink;
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    let theirs = root.path().join(".agents/skills");
    skill(&theirs, "leaks", "d");
    symlink(outside.path().join("secret"), theirs.join("leaks/data")).unwrap();
    skill(&theirs, "dangles", "d");
    symlink("missing", theirs.join("dangles/x")).unwrap();
    skill(&theirs, "inner", "d");
    symlink("SKILL.md", theirs.join("inner/alias.md")).unwrap();
    skill(&theirs, "fifo", "d");
    wisp_test_support::mkfifo(&theirs.join("fifo/pipe"));
    skill(&theirs, "linked-md", "d");
    std::fs::rename(
        theirs.join("linked-md/SKILL.md"),
        theirs.join("linked-md/real.md"),
    )
    .unwrap();
    symlink("real.md", theirs.join("linked-md/SKILL.md")).unwrap();
    // A skill folder linked in: from outside the project refused, the person's own followed.
    skill(outside.path(), "elsewhere", "d");
    symlink(outside.path().join("elsewhere"), theirs.join("elsewhere")).unwrap();
    let mine = home.path().join("skills");
    std::fs::create_dir_all(&mine).unwrap();
    symlink(outside.path().join("elsewhere"), mine.join("elsewhere")).unwrap();

    let found = find(&[project(root.path())]);
    let names: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["inner"]);
    let reason = |name: &str| {
        found
            .invalid
            .iter()
            .find(|i| i.dir.ends_with(name))
            .map(|i| i.reason.clone())
            .unwrap_or_else(|| panic!("{name} was not refused"))
    };
    assert_eq!(
        reason("leaks"),
        "data is a link that leads outside the skill's folder"
    );
    assert_eq!(reason("dangles"), "x is a link that leads nowhere");
    assert!(reason("fifo").contains("pipe is not a file, folder or link"));
    assert!(reason("linked-md").contains("SKILL.md must be a file"));
    assert!(
        reason("elsewhere").contains("outside"),
        "{}",
        reason("elsewhere")
    );

    let found = find(&[person(&mine)]);
    assert_eq!(found.skills.len(), 1, "{:?}", found.invalid);
    assert_eq!(
        found.skills[0].dir,
        std::fs::canonicalize(outside.path().join("elsewhere")).unwrap()
    );
}

#[test]
fn limits_are_said() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "big", "d");
    let huge = "x".repeat(limits::MAX_SKILL_MD_BYTES as usize);
    std::fs::write(
        dir.path().join("big/SKILL.md"),
        format!("---\nname: big\ndescription: d\n---\n{huge}"),
    )
    .unwrap();
    skill(dir.path(), "bad-utf8", "d");
    std::fs::write(
        dir.path().join("bad-utf8/SKILL.md"),
        b"---\nname: \xff\n---\n",
    )
    .unwrap();
    skill(dir.path(), "many", "d");
    for n in 0..limits::MAX_FILES_PER_SKILL {
        std::fs::write(dir.path().join(format!("many/{n}")), "").unwrap();
    }
    let found = find(&[person(dir.path())]);
    let reasons: Vec<&str> = found.invalid.iter().map(|i| i.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "SKILL.md is not UTF-8 text",
            &format!("SKILL.md has {} bytes, more than 262144", huge.len() + 33),
            "the folder holds more than 2000 files and folders",
        ]
    );
}

#[test]
fn a_source_over_its_limit_is_cut_and_said() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..=limits::MAX_SKILLS_PER_SOURCE {
        skill(dir.path(), &format!("s{n:03}"), "d");
    }
    let found = find(&[person(dir.path())]);
    assert_eq!(found.skills.len(), limits::MAX_SKILLS_PER_SOURCE);
    assert_eq!(found.skills.last().unwrap().name, "s199");
    assert_eq!(found.notes.len(), 1);
    assert!(found.notes[0].ends_with("201 skill folders; the first 200 by name were looked at"));
}

#[test]
fn the_catalogue_is_capped_and_says_what_it_left_out() {
    let make = |n: usize, description: &str| Skill {
        name: format!("s{n}"),
        description: description.to_owned(),
        dir: PathBuf::from("/s"),
        origin: Origin::Person,
        digest: String::new(),
        files: 1,
        bytes: 1,
        manifest: Vec::new(),
        ignored_fields: Vec::new(),
    };
    let two = [make(1, "One\n  line."), make(2, "Two.")];
    assert_eq!(catalogue(&two), "- s1: One line.\n- s2: Two.\n");
    assert_eq!(catalogue(&[]), "");

    let many: Vec<Skill> = (0..150).map(|n| make(n, "d")).collect();
    let text = catalogue(&many);
    assert_eq!(text.lines().count(), limits::MAX_CATALOGUE_SKILLS + 1);
    assert!(
        text.ends_with("(50 more skills are not listed: the catalogue's limit)\n"),
        "{text}"
    );

    let long: Vec<Skill> = (0..20).map(|n| make(n, &"w ".repeat(400))).collect();
    let text = catalogue(&long);
    assert!(text.len() <= limits::MAX_CATALOGUE_BYTES, "{}", text.len());
    assert!(text.ends_with("more skills are not listed: the catalogue's limit)\n"));
    let one_left: Vec<Skill> = (0..=limits::MAX_CATALOGUE_SKILLS)
        .map(|n| make(n, "d"))
        .collect();
    assert!(
        catalogue(&one_left).ends_with("(1 more skill is not listed: the catalogue's limit)\n")
    );
}

/// The one skill `s` of `dir`, or why it is not used.
fn judged(dir: &Path) -> Result<Skill, String> {
    let mut found = find(&[person(dir)]);
    match (found.skills.pop(), found.invalid.pop()) {
        (Some(s), None) => Ok(s),
        (None, Some(i)) => Err(i.reason),
        _ => Err(format!("not one skill: {:?}", found.notes)),
    }
}

fn skill_with(dir: &Path, name: &str, front: &str, body: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(
        dir.join(name).join("SKILL.md"),
        format!("---\nname: {name}\n{front}---\n{body}"),
    )
    .unwrap();
}

#[test]
fn the_front_matters_limits_hold_at_them_and_fail_one_past() {
    let dir = tempfile::tempdir().unwrap();
    let at = "a".repeat(MAX_NAME_CHARS);
    skill_with(dir.path(), &at, "description: d\n", "");
    assert!(
        judged(dir.path()).is_ok(),
        "a name of {MAX_NAME_CHARS} characters"
    );
    std::fs::remove_dir_all(dir.path().join(&at)).unwrap();
    let past = "a".repeat(MAX_NAME_CHARS + 1);
    skill_with(dir.path(), &past, "description: d\n", "");
    assert!(
        judged(dir.path())
            .unwrap_err()
            .contains("`name` has 65 characters, more than 64")
    );
    std::fs::remove_dir_all(dir.path().join(&past)).unwrap();

    for (front, said) in [
        (
            format!("description: {}\n", "d".repeat(MAX_DESCRIPTION_CHARS)),
            None,
        ),
        (
            format!("description: {}\n", "d".repeat(MAX_DESCRIPTION_CHARS + 1)),
            Some("`description` has 1025 characters, more than 1024"),
        ),
        (
            format!(
                "description: d\ncompatibility: {}\n",
                "c".repeat(MAX_COMPATIBILITY_CHARS)
            ),
            None,
        ),
        (
            format!(
                "description: d\ncompatibility: {}\n",
                "c".repeat(MAX_COMPATIBILITY_CHARS + 1)
            ),
            Some("`compatibility` has 501 characters, more than 500"),
        ),
        (
            "description: d\ncompatibility:\n  os: linux\n".to_owned(),
            Some("`compatibility` must be text"),
        ),
    ] {
        skill_with(dir.path(), "s", &front, "");
        match (judged(dir.path()), said) {
            (Ok(_), None) => {}
            (Err(e), Some(said)) => assert!(e.contains(said), "{e}"),
            (got, _) => panic!("{front}: {got:?}"),
        }
    }
}

#[test]
fn skill_md_may_have_its_limit_in_bytes_and_not_one_more() {
    let dir = tempfile::tempdir().unwrap();
    let head = "---\nname: s\ndescription: d\n---\n";
    let body = |total: u64| "x".repeat(total as usize - head.len());
    skill_with(
        dir.path(),
        "s",
        "description: d\n",
        &body(MAX_SKILL_MD_BYTES),
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("s/SKILL.md"))
            .unwrap()
            .len(),
        MAX_SKILL_MD_BYTES
    );
    assert!(judged(dir.path()).is_ok());
    skill_with(
        dir.path(),
        "s",
        "description: d\n",
        &body(MAX_SKILL_MD_BYTES + 1),
    );
    assert_eq!(
        judged(dir.path()).unwrap_err(),
        "SKILL.md has 262145 bytes, more than 262144"
    );
}

#[test]
fn a_skill_folder_may_hold_its_limits_in_entries_and_bytes_and_not_one_more() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "s", "d");
    let folder = dir.path().join("s");
    // SKILL.md and the rest: exactly the limit of entries.
    for i in 1..MAX_FILES_PER_SKILL {
        std::fs::write(folder.join(format!("f{i}")), "").unwrap();
    }
    assert!(judged(dir.path()).is_ok());
    std::fs::write(folder.join("one-more"), "").unwrap();
    assert_eq!(
        judged(dir.path()).unwrap_err(),
        "the folder holds more than 2000 files and folders"
    );

    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "s", "d");
    let folder = dir.path().join("s");
    let skill_md = std::fs::metadata(folder.join("SKILL.md")).unwrap().len();
    // A sparse file: its size counts, no disk is used.
    let big = std::fs::File::create(folder.join("big.bin")).unwrap();
    big.set_len(MAX_SKILL_BYTES - skill_md).unwrap();
    assert!(judged(dir.path()).is_ok());
    big.set_len(MAX_SKILL_BYTES - skill_md + 1).unwrap();
    assert_eq!(
        judged(dir.path()).unwrap_err(),
        "the folder's files hold more than 67108864 bytes"
    );
}

#[test]
fn a_skill_md_that_is_a_folder_is_said_to_be_one() {
    for name in ["SKILL.md", "skill.md"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("s").join(name)).unwrap();
        assert_eq!(
            judged(dir.path()).unwrap_err(),
            "SKILL.md must be a file, not a folder or a link"
        );
    }
}

#[test]
fn a_source_has_its_limit_in_skill_folders_and_says_when_it_has_more() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..MAX_SKILLS_PER_SOURCE {
        skill(dir.path(), &format!("s{i:03}"), "d");
    }
    let found = find(&[person(dir.path())]);
    assert_eq!(found.skills.len(), MAX_SKILLS_PER_SOURCE);
    assert!(found.notes.is_empty(), "{:?}", found.notes);
    skill(dir.path(), "s999", "d");
    let found = find(&[person(dir.path())]);
    assert_eq!(found.skills.len(), MAX_SKILLS_PER_SOURCE);
    assert_eq!(found.notes.len(), 1);
    assert!(found.notes[0].ends_with(": 201 skill folders; the first 200 by name were looked at"));
}

#[test]
fn a_missing_source_is_nothing_and_an_unreadable_one_is_said() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        find(&[person(&dir.path().join("missing"))])
            .notes
            .is_empty()
    );
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let found = find(&[person(&file)]);
    assert_eq!(found.notes.len(), 1);
    assert!(
        found.notes[0].contains("a-file: cannot be read"),
        "{:?}",
        found.notes
    );
}

#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_refused_naming_its_folder() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "s", "d");
    std::fs::create_dir_all(dir.path().join("s/assets")).unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"\xff.bin");
    std::fs::write(dir.path().join("s/assets").join(bad), "").unwrap();
    assert_eq!(
        judged(dir.path()).unwrap_err(),
        "assets has a name that is not UTF-8"
    );
}

#[cfg(unix)]
#[test]
fn a_links_new_target_is_a_change_of_that_link() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "s", "d");
    std::fs::write(dir.path().join("s/a.md"), "a").unwrap();
    std::fs::write(dir.path().join("s/b.md"), "b").unwrap();
    std::os::unix::fs::symlink("a.md", dir.path().join("s/alias.md")).unwrap();
    let then = judged(dir.path()).unwrap().manifest;
    std::fs::remove_file(dir.path().join("s/alias.md")).unwrap();
    std::os::unix::fs::symlink("b.md", dir.path().join("s/alias.md")).unwrap();
    let now = judged(dir.path()).unwrap().manifest;
    assert_eq!(manifest_changes(&then, &now), ["changed alias.md"]);
}

#[test]
fn the_catalogue_lists_up_to_its_byte_limit_exactly() {
    // Lines of 127 bytes: 64 of them and the reserve for the last line make exactly 8,192.
    let make = |n: usize| Skill {
        name: format!("s{n:02}"),
        description: "d".repeat(127 - "- s00: \n".len()),
        dir: PathBuf::from("/s"),
        origin: Origin::Person,
        digest: String::new(),
        files: 1,
        bytes: 1,
        manifest: Vec::new(),
        ignored_fields: Vec::new(),
    };
    let skills: Vec<Skill> = (0..70).map(make).collect();
    let text = catalogue(&skills);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 65, "64 skills and the count of the rest");
    assert_eq!(
        lines[64],
        "(6 more skills are not listed: the catalogue's limit)"
    );
    assert_eq!(lines[0].len() + 1, 127);
    assert!(text.len() <= MAX_CATALOGUE_BYTES);
}

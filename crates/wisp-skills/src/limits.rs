//! Every limit of skills, in one place (FILE-05). The format's own limits come from the Agent
//! Skills specification (agentskills.io) and its reference validator (`skills-ref`); the
//! others bound what one folder may make Wisp read.

/// Characters of a skill's `name` (the specification's limit).
pub const MAX_NAME_CHARS: usize = 64;

/// Characters of a skill's `description` (the specification's limit).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// Characters of the optional `compatibility` field (the specification's limit).
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// Bytes of the front matter between its `---` lines: name and description fit in well under
/// 2 KB; "a few KB" leaves room for `metadata` and tool lists without letting a folder hand
/// the parser megabytes.
pub const MAX_FRONT_MATTER_BYTES: usize = 8 * 1024;

/// Bytes of `SKILL.md` as a whole. The largest of Anthropic's published skills is about
/// 74 KB; the specification advises under 5,000 tokens.
pub const MAX_SKILL_MD_BYTES: u64 = 256 * 1024;

/// Skill folders looked at in one source folder; more are listed as left out.
pub const MAX_SKILLS_PER_SOURCE: usize = 200;

/// Files (and folders) in one skill folder, all read for its digest. Anthropic's largest
/// published skills hold about 70.
pub const MAX_FILES_PER_SKILL: usize = 2_000;

/// Bytes of all files of one skill together, all read for its digest (the largest published
/// skills hold about 1.1 MB).
pub const MAX_SKILL_BYTES: u64 = 64 * 1024 * 1024;

/// Skills the catalogue given to the model names at most.
pub const MAX_CATALOGUE_SKILLS: usize = 100;

/// Bytes of the catalogue given to the model at most.
pub const MAX_CATALOGUE_BYTES: usize = 8 * 1024;

//! Every limit of the file tools, in one place (GAP-01, GAP-02, GAP-03 decisions).

/// Entries `files_list` returns at most; more set `truncated` (GAP-01).
pub const MAX_LIST_ENTRIES: usize = 1000;

/// Bytes `files_read` returns at most per call; a larger file is read in parts with `offset`
/// (GAP-02).
pub const MAX_READ_BYTES: usize = 256 * 1024;

/// Bytes of content `files_write` accepts (GAP-03).
pub const MAX_WRITE_BYTES: usize = 1024 * 1024;

/// Bytes of a path argument.
pub const MAX_PATH_BYTES: usize = 4096;

/// One name in a path: bytes on Unix, UTF-16 units on Windows (ext4, APFS and NTFS all stop
/// at 255); a longer one is refused before the file system is asked.
pub const MAX_NAME_UNITS: usize = 255;

/// Bytes at the start of a file examined for NUL to call it binary.
pub const BINARY_SNIFF_BYTES: usize = 8192;

/// Bytes of an existing file `files_write` replaces: its content is hashed at prepare and again
/// at execution (FILE-16), so a huge file would make both slow.
pub const MAX_REPLACED_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes of the file `files_replace` edits, and of the result (FILE-14).
pub const MAX_REPLACE_FILE_BYTES: usize = 200_000;

/// Characters of `oldText` and of `newText` each (FILE-14).
pub const MAX_REPLACE_TEXT_CHARS: usize = 50_000;

/// Entries `files_search` examines at most (FILE-09).
pub const SEARCH_MAX_ENTRIES: usize = 2000;

/// Folder levels `files_search` descends at most: folders 8 deep below the folder searched are
/// searched, a ninth level is not (FILE-09; `make-tree.py`'s 8-level tree is covered whole).
pub const SEARCH_MAX_DEPTH: usize = 8;

/// Bytes of one file `files_search` reads at most; a larger file is skipped, said so (FILE-09).
pub const SEARCH_MAX_FILE_BYTES: u64 = 256 * 1024;

/// Bytes `files_search` reads in total (FILE-09).
pub const SEARCH_MAX_TOTAL_BYTES: u64 = 8 * 1024 * 1024;

/// Results `files_search` returns at most (FILE-09).
pub const SEARCH_MAX_RESULTS: usize = 100;

/// Characters of `files_search` output at most: its whole answer as compact JSON, not only the
/// results (FILE-09).
pub const SEARCH_MAX_OUTPUT_CHARS: usize = 24_000;

/// Characters of one content match's snippet.
pub const SEARCH_SNIPPET_CHARS: usize = 200;

/// Folders `files_search` never enters by default (FILE-10).
pub const SEARCH_EXCLUDED_DIRS: &[&str] = &[
    "node_modules",
    "dist",
    "build",
    "coverage",
    "vendor",
    "target",
];

/// Bytes of a `files_search` query.
pub const SEARCH_MAX_QUERY_BYTES: usize = 1000;

/// Entries the start-up removal of Wisp's own temp files examines per project at most.
pub const CLEANUP_MAX_ENTRIES: usize = 100_000;

/// Folder levels that removal descends at most.
pub const CLEANUP_MAX_DEPTH: usize = 32;

/// Entries a tree fingerprint covers at most, the top one included; a larger tree is refused
/// (FILE-21).
pub const TREE_MAX_ENTRIES: usize = 2000;

/// Levels below the top a tree fingerprint descends at most: an entry 20 levels down is
/// covered, one 21 levels down refuses the tree (FILE-21).
pub const TREE_MAX_DEPTH: usize = 20;

/// Names `files_trash` tries in a trash (`NAME`, `NAME.2`, …) before it gives up: the trash
/// would have that many items of one name.
pub const TRASH_MAX_NAME_ATTEMPTS: usize = 1000;

/// Bytes before and after the part `files_read` returns that are checked, with the part, for a
/// PEM private key block or a Git credential line (`sensitive.rs`): a part that holds any byte
/// of a block or line up to this long is withheld, however small the part asked for.
pub const SENSITIVE_CONTEXT_BYTES: u64 = 32 * 1024;

/// Entries a snapshot of the whole project records (what a program run in it is said to have
/// changed); past it the snapshot says it is incomplete.
pub const SNAPSHOT_MAX_ENTRIES: usize = 50_000;

/// Folder levels below the root a snapshot goes into; deeper ones make it incomplete.
pub const SNAPSHOT_MAX_DEPTH: usize = 32;

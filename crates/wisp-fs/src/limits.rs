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

/// Bytes at the start of a file examined for NUL to call it binary.
pub const BINARY_SNIFF_BYTES: usize = 8192;

/// Bytes of an existing file `files_write` replaces: its content is hashed at prepare and again
/// at execution (FILE-16), so a huge file would make both slow.
pub const MAX_REPLACED_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes of the file `files_replace` edits, and of the result (FILE-14).
pub const MAX_REPLACE_FILE_BYTES: usize = 200_000;

/// Characters of `oldText` and of `newText` each (FILE-14).
pub const MAX_REPLACE_TEXT_CHARS: usize = 50_000;

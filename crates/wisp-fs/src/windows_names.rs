//! How Windows reads names and paths, as text: pure, so the rules are tested on every
//! platform, while only a Windows sandbox applies them to the names it is given.

use std::path::{Path, PathBuf};

/// Device names Windows gives to any folder's file of that name, with or without an
/// extension (`NUL`, `nul.txt`, `COM1.log`).
const DEVICE_NAMES: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
    "COM8", "COM9", "COM¹", "COM²", "COM³", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6",
    "LPT7", "LPT8", "LPT9", "LPT¹", "LPT²", "LPT³", "CONIN$", "CONOUT$",
];

/// Why Windows would read `name` as something other than that file, if it would: a device
/// name, a `:` (an alternate data stream of another file), a character Windows refuses in
/// names or reads as a wildcard, a control character, trailing dots or spaces (which Windows
/// drops, so the name would be another file's).
pub(crate) fn problem(name: &str) -> Option<String> {
    if let Some(why) = crate::control_character(name) {
        return Some(why);
    }
    if name.contains(':') {
        return Some(format!(
            "the name {name:?} has a ':', which on Windows names a hidden stream of another file"
        ));
    }
    if let Some(c) = name.chars().find(|c| "<>\"|?*".contains(*c)) {
        return Some(format!(
            "the name {name:?} has {c:?}, which Windows does not allow in names"
        ));
    }
    if name.ends_with(['.', ' ']) && name != "." && name != ".." {
        return Some(format!(
            "the name {name:?} ends with a dot or a space, which Windows drops (it would be another file's name)"
        ));
    }
    let stem = name.split('.').next().unwrap_or(name).trim_end();
    if DEVICE_NAMES.iter().any(|d| d.eq_ignore_ascii_case(stem)) {
        return Some(format!(
            "the name {name:?} is the device {} on Windows, not a file",
            stem.to_uppercase()
        ));
    }
    None
}

/// Whether `name` has the shape of a short (8.3) name that Windows may give an entry besides
/// its own (`ENV~1` for `.env`, `AVERYV~1.TXT`, Wine's `_ENV~3EE`): ASCII, a stem of one to
/// eight characters with a `~` that something follows, an extension of at most three. Such a
/// name opens the entry it stands for, so a rule about names (`.env` looks like credentials)
/// would judge the wrong name.
pub(crate) fn short_name_shaped(name: &str) -> bool {
    if !name.is_ascii() || name.len() > 12 {
        return false;
    }
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    (1..=8).contains(&stem.len())
        && ext.len() <= 3
        && !stem.contains('.')
        && stem
            .rsplit_once('~')
            .is_some_and(|(_, tail)| !tail.is_empty())
}

/// Whether `path` is on a network share (`\\host\share\…`, `\\?\UNC\…`; a mapped drive
/// letter canonicalizes to one of these). Windows keeps no Recycle Bin for a share: what is
/// "deleted" there is gone for good.
#[cfg_attr(
    not(any(windows, test)),
    expect(
        dead_code,
        reason = "only the Recycle Bin asks; tested on every platform"
    )
)]
pub(crate) fn on_a_network_share(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    let text = text.replace('/', "\\");
    match text
        .strip_prefix(r"\\?\")
        .or_else(|| text.strip_prefix(r"\\.\"))
    {
        Some(rest) => rest
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case(r"UNC\")),
        None => text.starts_with(r"\\"),
    }
}

/// A canonical Windows path as people write it. `canonicalize` answers `\\?\C:\…` and
/// `\\?\UNC\host\share\…`, which a person would see on every project and card, and which some
/// programs (Node's module loader among them) read poorly. The prefix is dropped only where
/// the plain form names the same file: in the verbatim form every character is literal, so a
/// component Windows would rewrite without it (a trailing dot or space, a device name, `..`)
/// keeps the path as it is, and so does a path with no plain form (a volume GUID). Any other
/// path, a Unix one included, is returned unchanged.
pub fn plain_path(path: &Path) -> PathBuf {
    let Some(text) = path.to_str() else {
        return path.to_path_buf();
    };
    let (plain, rest) = if let Some(rest) = text.strip_prefix(r"\\?\UNC\") {
        (format!(r"\\{rest}"), rest)
    } else {
        match text.strip_prefix(r"\\?\") {
            Some(rest) if is_drive_path(rest) => (rest.to_owned(), &rest[3..]),
            _ => return path.to_path_buf(),
        }
    };
    let same_file = rest
        .split('\\')
        .filter(|c| !c.is_empty())
        .all(|c| c != "." && c != ".." && !c.contains('/') && problem(c).is_none());
    if same_file {
        PathBuf::from(plain)
    } else {
        path.to_path_buf()
    }
}

/// `X:\…`: a drive letter, a colon and a separator.
fn is_drive_path(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'\\'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        plain_path(Path::new(text)).to_str().unwrap().to_owned()
    }

    #[test]
    fn a_verbatim_drive_or_share_path_is_shown_plain() {
        assert_eq!(plain(r"\\?\C:\p\s.js"), r"C:\p\s.js");
        assert_eq!(plain(r"\\?\d:\"), r"d:\");
        assert_eq!(plain(r"\\?\UNC\host\share\s.js"), r"\\host\share\s.js");
    }

    #[test]
    fn a_path_whose_plain_form_names_another_file_is_kept() {
        for kept in [
            r"\\?\Volume{0b1c}\s.js",
            r"\\?\C:\p\trail.\s.js",
            r"\\?\C:\p\trail \s.js",
            r"\\?\C:\p\..\s.js",
            r"\\?\C:\p\.\s.js",
            r"\\?\C:\p\a/b",
            r"\\?\C:\p\CON",
            r"\\?\C:\p\nul.txt",
            r"\\?\C:\p\a:stream",
            r"\\?\UNC\host\share\aux",
            r"\\?\C:",
            r"\\?\1:\p",
            r"\\?\C:p",
        ] {
            assert_eq!(plain(kept), kept);
        }
    }

    #[test]
    fn other_paths_are_unchanged() {
        for kept in ["/opt/p/s.js", r"C:\p", r"\\host\share\p", "relative"] {
            assert_eq!(plain(kept), kept);
        }
    }

    #[test]
    fn network_shares_are_told_from_local_paths() {
        for share in [
            r"\\nas\projects\p",
            r"\\?\UNC\nas\projects\p",
            r"\\?\unc\nas\p",
            r"\\.\UNC\nas\p",
            "//nas/projects/p",
        ] {
            assert!(on_a_network_share(Path::new(share)), "{share}");
        }
        for local in [
            r"C:\Users\me\p",
            r"\\?\C:\Users\me\p",
            r"\\?\Volume{0b1c}\p",
            r"\\.\C:\p",
            r"\single\p",
            "/home/me/p",
            r"\\?\UN",
        ] {
            assert!(!on_a_network_share(Path::new(local)), "{local}");
        }
    }

    #[test]
    fn short_name_shapes_are_told_from_long_names() {
        for short in [
            "ENV~1",
            "_ENV~3EE",
            "AVERYV~1.TXT",
            "av1f2e~1.txt",
            "A~1.B",
            "~1",
        ] {
            assert!(short_name_shaped(short), "{short}");
        }
        for long in [
            ".env",
            "ENV1",
            "notes~",
            "AVERYVE~1.TXT",
            "AVERYV~1.TEXT",
            "A~1.B.C",
            "ÄVERY~1.TXT",
            "file~1.tar.gz",
            "",
        ] {
            assert!(!short_name_shaped(long), "{long}");
        }
    }

    #[test]
    fn names_windows_reads_as_another_file_are_named() {
        for (name, why) in [
            ("CON", "device CON"),
            ("nul.txt", "device NUL"),
            ("Com1.log", "device COM1"),
            ("COM¹", "device COM¹"),
            ("conin$", "device CONIN$"),
            ("a.txt:hidden", "stream"),
            ("what?.txt", "does not allow"),
            ("a<b", "does not allow"),
            ("trail.", "dot or a space"),
            ("trail ", "dot or a space"),
            ("new\nline.txt", "control character"),
        ] {
            let said = problem(name).unwrap_or_default();
            assert!(said.contains(why), "{name}: {said}");
        }
        for fine in [
            "console.txt",
            ".env.example",
            ".",
            "..",
            "a b.txt",
            "COM10",
            "LPT",
        ] {
            assert_eq!(problem(fine), None, "{fine}");
        }
    }
}

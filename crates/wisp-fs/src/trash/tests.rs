//! Unit tests of `files_trash` on real temp directories (FILE-28..32): the freedesktop.org
//! trash layout, names, encoding, refusals, staleness, and what the desktop's own `gio` sees.
//! Every trash here is a temp dir: no test touches the machine's real home trash.

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use cap_std::fs::MetadataExt as _;

use super::freedesktop::{TrashDir, choose, encode_path, place, top_trash, trash_name};
use super::rename::rename_checked;
use super::*;
use crate::limits::TRASH_MAX_NAME_ATTEMPTS;
use crate::tests::{Fixture, fixture_with_outside};

/// A project, a folder beside it, and a home trash in the same temp dir (so on one device).
struct T {
    f: Fixture,
    home: PathBuf,
    config: TrashConfig,
}

/// The inode of what is at `path` (0 when nothing is).
fn ino(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).map_or(0, |m| m.ino())
}

fn setup() -> T {
    let f = fixture_with_outside(Some("secret"));
    let home = f.root.parent().unwrap().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = TrashConfig::home_only(home.join(".local/share/Trash"));
    T { f, home, config }
}

impl T {
    fn trash_dir(&self) -> PathBuf {
        self.config.home_trash.clone().unwrap()
    }
    fn trash(&self, path: &str) -> Result<Trashed, FsError> {
        let plan = self.f.sandbox.prepare_trash(path)?;
        self.f.sandbox.trash(&plan, &self.config)
    }
    fn info(&self, name: &str) -> String {
        std::fs::read_to_string(
            self.trash_dir()
                .join("info")
                .join(format!("{name}.trashinfo")),
        )
        .unwrap()
    }
    fn names(&self, sub: &str) -> Vec<String> {
        let mut v: Vec<String> = match std::fs::read_dir(self.trash_dir().join(sub)) {
            Ok(rd) => rd
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    }
}

/// The info file's lines, with the date checked for `YYYY-MM-DDThh:mm:ss` and left out.
fn info_lines(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let date = lines[2].strip_prefix("DeletionDate=").unwrap();
    assert!(
        chrono::NaiveDateTime::parse_from_str(date, "%Y-%m-%dT%H:%M:%S").is_ok()
            && date.len() == 19,
        "{date}"
    );
    lines[..2].iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_file_goes_into_the_home_trash_with_its_info_file() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "hello").unwrap();
    let done = t.trash("./a.txt").unwrap();
    assert_eq!(
        (
            done.path.as_str(),
            done.name.as_str(),
            done.files,
            done.folders
        ),
        ("a.txt", "a.txt", 1, 0)
    );
    assert_eq!(PathBuf::from(&done.trash), t.trash_dir());
    assert!(!t.f.root.join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(t.trash_dir().join("files/a.txt")).unwrap(),
        "hello"
    );
    assert_eq!(
        info_lines(&t.info("a.txt")),
        [
            "[Trash Info]".to_owned(),
            format!("Path={}", encode_path(&t.f.root.join("a.txt")))
        ]
    );
    // The specification's modes: trash folders 0700, the info file private.
    for d in ["", "files", "info"] {
        let m = std::fs::metadata(t.trash_dir().join(d)).unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o700, "{d}");
    }
    let m = std::fs::metadata(t.trash_dir().join("info/a.txt.trashinfo")).unwrap();
    assert_eq!(m.permissions().mode() & 0o777, 0o600);
}

#[test]
fn a_folder_goes_whole_with_its_counts() {
    let t = setup();
    std::fs::create_dir_all(t.f.root.join("d/e")).unwrap();
    std::fs::write(t.f.root.join("d/x"), "1").unwrap();
    std::fs::write(t.f.root.join("d/e/y"), "2").unwrap();
    let plan = t.f.sandbox.prepare_trash("d").unwrap();
    assert_eq!((plan.files, plan.folders), (2, 2));
    let done = t.f.sandbox.trash(&plan, &t.config).unwrap();
    assert_eq!((done.files, done.folders), (2, 2));
    assert!(!t.f.root.join("d").exists());
    assert_eq!(
        std::fs::read_to_string(t.trash_dir().join("files/d/e/y")).unwrap(),
        "2"
    );
    assert_eq!(t.names("info"), ["d.trashinfo"]);
}

#[test]
fn taken_names_move_on_to_name_2_and_an_orphan_is_never_replaced() {
    let t = setup();
    std::fs::create_dir(t.f.root.join("sub")).unwrap();
    std::fs::write(t.f.root.join("a.txt"), "first").unwrap();
    std::fs::write(t.f.root.join("sub/a.txt"), "second").unwrap();
    t.trash("a.txt").unwrap();
    assert_eq!(t.trash("sub/a.txt").unwrap().name, "a.txt.2");
    assert_eq!(
        std::fs::read_to_string(t.trash_dir().join("files/a.txt")).unwrap(),
        "first"
    );
    assert_eq!(
        std::fs::read_to_string(t.trash_dir().join("files/a.txt.2")).unwrap(),
        "second"
    );
    assert!(info_lines(&t.info("a.txt.2"))[1].ends_with("/project/sub/a.txt"));
    // files/b without an info file (another tool's crash): the rename must not replace it,
    // and the info file made for that name must not stay behind.
    std::fs::write(t.trash_dir().join("files/b"), "orphan").unwrap();
    std::fs::write(t.f.root.join("b"), "mine").unwrap();
    assert_eq!(t.trash("b").unwrap().name, "b.2");
    assert_eq!(
        std::fs::read_to_string(t.trash_dir().join("files/b")).unwrap(),
        "orphan"
    );
    assert_eq!(
        t.names("info"),
        ["a.txt.2.trashinfo", "a.txt.trashinfo", "b.2.trashinfo"]
    );
}

#[test]
fn names_are_numbered_and_shortened_to_fit_the_info_file_name() {
    assert_eq!(trash_name("a.txt", 1), "a.txt");
    assert_eq!(trash_name("a.txt", 2), "a.txt.2");
    assert_eq!(trash_name("a", 1000), "a.1000");
    let long = "é".repeat(200); // 400 bytes
    for n in [1, 2, 99, TRASH_MAX_NAME_ATTEMPTS] {
        let name = trash_name(&long, n);
        let suffix = if n == 1 {
            String::new()
        } else {
            format!(".{n}")
        };
        assert!(name.ends_with(&suffix));
        let len = format!("{name}.trashinfo").len();
        // "é" is two bytes: the cut falls on a character boundary, one byte short at most.
        assert!((254..=255).contains(&len), "{n}: {len}");
        assert!(name.trim_end_matches(&suffix).chars().all(|c| c == 'é'));
    }
    let ascii = "x".repeat(300);
    assert_eq!(format!("{}.trashinfo", trash_name(&ascii, 7)).len(), 255);
    assert_eq!(trash_name(&"x".repeat(245), 1).len(), 245);
}

#[test]
fn the_path_is_percent_encoded_as_glib_does() {
    assert_eq!(
        encode_path(Path::new("/home/u/My File+ü%.txt")),
        "/home/u/My%20File%2B%C3%BC%25.txt"
    );
    assert_eq!(encode_path(Path::new("a-b_c.d~e/F9")), "a-b_c.d~e/F9");
    assert_eq!(encode_path(Path::new("/x\ny=z&")), "/x%0Ay%3Dz%26");
}

#[test]
fn with_no_trash_nothing_is_deleted() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "keep").unwrap();
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    let e = t.f.sandbox.trash(&plan, &TrashConfig::none()).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
    assert!(e.message.contains("nothing was trashed or deleted"), "{e}");
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("a.txt")).unwrap(),
        "keep"
    );
    // A home trash that cannot be created (a file is in its way).
    std::fs::write(t.home.join("blocker"), "").unwrap();
    let blocked = TrashConfig::home_only(t.home.join("blocker/Trash"));
    let e = t.f.sandbox.trash(&plan, &blocked).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
    assert!(e.message.contains("blocker/Trash cannot be used"), "{e}");
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("a.txt")).unwrap(),
        "keep"
    );
}

/// A temp dir on another device than the projects (`/dev/shm` is a tmpfs on Linux).
fn other_device(f: &Fixture) -> tempfile::TempDir {
    let d = tempfile::tempdir_in("/dev/shm").expect("/dev/shm (a tmpfs) is needed for this test");
    assert_ne!(
        std::fs::metadata(d.path()).unwrap().dev(),
        std::fs::metadata(&f.root).unwrap().dev(),
        "/dev/shm must be another device than the temp dir"
    );
    d
}

#[test]
fn a_home_trash_on_another_device_is_not_used_and_nothing_is_copied() {
    let t = setup();
    let shm = other_device(&t.f);
    std::fs::write(t.f.root.join("a.txt"), "keep").unwrap();
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    let config = TrashConfig::home_only(shm.path().join("Trash"));
    let e = t.f.sandbox.trash(&plan, &config).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
    assert!(e.message.contains("is on another device"), "{e}");
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("a.txt")).unwrap(),
        "keep"
    );
    assert!(!shm.path().join("Trash/files/a.txt").exists());
}

#[test]
fn a_rename_that_fails_removes_its_info_file_and_never_copies() {
    let t = setup();
    let shm = other_device(&t.f);
    std::fs::write(t.f.root.join("a.txt"), "keep").unwrap();
    let parent = Dir::open_ambient_dir(&t.f.root, cap_std::ambient_authority()).unwrap();
    let dev = std::fs::metadata(&t.f.root).unwrap().dev();
    let absolute = t.f.root.join("a.txt");
    let item = |name: &'static str| Item {
        parent: &parent,
        name,
        shown: name,
        absolute: &absolute,
        dev,
        ino: ino(&t.f.root.join(name)),
    };
    // A trash on another device that `choose` would never pick: the rename gets EXDEV.
    let across = TrashDir {
        path: shm.path().to_path_buf(),
        dir: Dir::open_ambient_dir(shm.path(), cap_std::ambient_authority()).unwrap(),
        original: absolute.clone(),
    };
    let e = place(&across, &item("a.txt"), "2026-01-01T00:00:00", &|_| {}).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
    assert!(e.message.contains("never copies"), "{e}");
    assert_eq!(std::fs::read_to_string(&absolute).unwrap(), "keep");
    assert_eq!(
        std::fs::read_dir(shm.path().join("info")).unwrap().count(),
        0
    );
    assert_eq!(
        std::fs::read_dir(shm.path().join("files")).unwrap().count(),
        0
    );
    // The item vanished before the rename: the same clean-up.
    let home = TrashDir {
        path: t.trash_dir(),
        dir: {
            std::fs::create_dir_all(t.trash_dir()).unwrap();
            Dir::open_ambient_dir(t.trash_dir(), cap_std::ambient_authority()).unwrap()
        },
        original: absolute.clone(),
    };
    let e = place(&home, &item("gone.txt"), "2026-01-01T00:00:00", &|_| {}).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound);
    assert!(t.names("info").is_empty());
    assert!(t.names("files").is_empty());
}

#[test]
fn a_trash_with_every_name_taken_refuses_at_the_limit() {
    let t = setup();
    std::fs::write(t.f.root.join("n"), "keep").unwrap();
    std::fs::create_dir_all(t.trash_dir().join("info")).unwrap();
    for i in 1..=TRASH_MAX_NAME_ATTEMPTS {
        let name = trash_name("n", i);
        std::fs::write(t.trash_dir().join(format!("info/{name}.trashinfo")), "").unwrap();
    }
    let e = t.trash("n").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
    assert!(e.message.contains("no free name"), "{e}");
    assert!(t.f.root.join("n").exists());
    // One name free at the last try: taken.
    let last = trash_name("n", TRASH_MAX_NAME_ATTEMPTS);
    std::fs::remove_file(t.trash_dir().join(format!("info/{last}.trashinfo"))).unwrap();
    assert_eq!(t.trash("n").unwrap().name, last);
}

#[test]
fn the_root_and_paths_outside_are_refused() {
    let t = setup();
    for p in ["", ".", "./"] {
        let e = t.f.sandbox.prepare_trash(p).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::InvalidPath, "{p}");
        assert!(e.message.contains("project folder itself"), "{e}");
    }
    for p in ["../outside/secret.txt", "/etc/passwd"] {
        assert_eq!(
            t.f.sandbox.prepare_trash(p).unwrap_err().kind,
            FsErrorKind::OutsideRoot,
            "{p}"
        );
    }
    symlink(&t.f.outside, t.f.root.join("out")).unwrap();
    assert_eq!(
        t.f.sandbox
            .prepare_trash("out/secret.txt")
            .unwrap_err()
            .kind,
        FsErrorKind::OutsideRoot
    );
    assert_eq!(
        t.f.sandbox.prepare_trash("missing").unwrap_err().kind,
        FsErrorKind::NotFound
    );
    assert_eq!(
        std::fs::read_to_string(t.f.outside.join("secret.txt")).unwrap(),
        "secret"
    );
    assert!(t.names("files").is_empty());
}

#[test]
fn an_item_replaced_after_approval_is_refused_as_stale() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "old").unwrap();
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    std::fs::remove_file(t.f.root.join("a.txt")).unwrap();
    std::fs::create_dir(t.f.root.join("a.txt")).unwrap();
    let e = t.f.sandbox.trash(&plan, &t.config).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed);
    assert_eq!(e.message, "a.txt: changed since its card appeared");
    assert!(t.f.root.join("a.txt").is_dir());
    assert!(t.names("files").is_empty());
    // Gone after approval.
    std::fs::remove_dir(t.f.root.join("a.txt")).unwrap();
    let e = t.f.sandbox.trash(&plan, &t.config).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound);
}

/// Swaps `a.txt` (inside the root) for another file of that name right before the rename into
/// the trash: the approved one is kept aside as `aside.txt`.
fn swap_before_rename(root: &Path) {
    std::fs::write(root.join("other"), "swapped in").unwrap();
    std::fs::rename(root.join("a.txt"), root.join("aside.txt")).unwrap();
    std::fs::rename(root.join("other"), root.join("a.txt")).unwrap();
}

/// FILE-29: what arrives in the trash must be the item that was checked. Swapped in the last
/// moment (after the check, before the rename), it is put back where it came from, its info
/// file is removed, and the trash is refused.
#[test]
fn an_item_swapped_just_before_the_rename_is_put_back_and_refused() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "approved").unwrap();
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    let root = t.f.root.clone();
    let renames = std::cell::Cell::new(0);
    let e =
        t.f.sandbox
            .trash_with(
                &plan,
                &t.config,
                &|n| {
                    renames.set(n);
                    if n == 1 {
                        swap_before_rename(&root);
                    }
                },
                &mut crate::NoRecord,
            )
            .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(e.message.contains("put back"), "{e}");
    assert_eq!(renames.get(), 2, "one rename in, one back");
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("a.txt")).unwrap(),
        "swapped in"
    );
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("aside.txt")).unwrap(),
        "approved"
    );
    assert!(t.names("files").is_empty(), "{:?}", t.names("files"));
    assert!(t.names("info").is_empty(), "{:?}", t.names("info"));
}

/// When what arrived cannot go back (its name was taken again in the meantime), the error says
/// exactly where it is, and its info file stays, so the trash can restore it.
#[test]
fn a_swapped_item_that_cannot_go_back_is_reported_where_it_is() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "approved").unwrap();
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    let root = t.f.root.clone();
    let e =
        t.f.sandbox
            .trash_with(
                &plan,
                &t.config,
                &|n| match n {
                    1 => swap_before_rename(&root),
                    _ => std::fs::write(root.join("a.txt"), "third").unwrap(),
                },
                &mut crate::NoRecord,
            )
            .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial, "{e}");
    let there = t.trash_dir().join("files/a.txt");
    assert!(e.message.contains(&there.display().to_string()), "{e}");
    assert_eq!(std::fs::read_to_string(&there).unwrap(), "swapped in");
    assert_eq!(t.names("info"), ["a.txt.trashinfo"]);
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("a.txt")).unwrap(),
        "third"
    );
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("aside.txt")).unwrap(),
        "approved"
    );
}

#[test]
fn the_environment_names_the_home_trash() {
    let c = TrashConfig::from_vars(Some("/x/data".into()), Some("/home/u".into()));
    assert_eq!(c.home_trash, Some(PathBuf::from("/x/data/Trash")));
    assert!(c.top_dirs);
    for xdg in [None, Some(""), Some("relative/data")] {
        let c = TrashConfig::from_vars(xdg.map(Into::into), Some("/home/u".into()));
        assert_eq!(
            c.home_trash,
            Some(PathBuf::from("/home/u/.local/share/Trash")),
            "{xdg:?}"
        );
    }
    assert_eq!(TrashConfig::from_vars(None, None).home_trash, None);
    assert_eq!(
        TrashConfig::from_vars(None, Some("".into())).home_trash,
        None
    );
    assert_eq!(c.uid, rustix::process::getuid().as_raw());
}

/// A temp dir standing in for a mount point, and an item below it.
struct Top {
    _tmp: tempfile::TempDir,
    top: PathBuf,
    parent: Dir,
    absolute: PathBuf,
    dev: u64,
}

fn top_fixture() -> Top {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().join("mnt");
    std::fs::create_dir_all(top.join("work")).unwrap();
    std::fs::write(top.join("work/a b.txt"), "data").unwrap();
    let parent = Dir::open_ambient_dir(top.join("work"), cap_std::ambient_authority()).unwrap();
    let dev = std::fs::metadata(&top).unwrap().dev();
    Top {
        absolute: top.join("work/a b.txt"),
        _tmp: tmp,
        top,
        parent,
        dev,
    }
}

impl Top {
    fn item(&self) -> Item<'_> {
        Item {
            parent: &self.parent,
            name: "a b.txt",
            shown: "work/a b.txt",
            absolute: &self.absolute,
            dev: self.dev,
            ino: ino(&self.absolute),
        }
    }
    fn topdir(&self) -> Topdir {
        Topdir {
            path: self.top.clone(),
            dir: Dir::open_ambient_dir(&self.top, cap_std::ambient_authority()).unwrap(),
        }
    }
    fn put(&self, uid: u32) -> Result<PathBuf, FsError> {
        let trash = top_trash(&self.topdir(), uid, &self.item())?;
        assert_eq!(trash.original, Path::new("work/a b.txt"));
        place(&trash, &self.item(), "2026-01-01T00:00:00", &|_| {})?;
        let info = std::fs::read_to_string(trash.path.join("info/a b.txt.trashinfo")).unwrap();
        assert_eq!(
            info,
            "[Trash Info]\nPath=work/a%20b.txt\nDeletionDate=2026-01-01T00:00:00\n"
        );
        assert_eq!(
            std::fs::read_to_string(trash.path.join("files/a b.txt")).unwrap(),
            "data"
        );
        assert!(!self.absolute.exists());
        Ok(trash.path)
    }
}

#[test]
fn a_top_directory_trash_is_made_as_trash_uid_with_a_relative_path() {
    let t = top_fixture();
    let uid = rustix::process::getuid().as_raw();
    let at = t.put(uid).unwrap();
    assert_eq!(at, t.top.join(format!(".Trash-{uid}")));
    let m = std::fs::symlink_metadata(&at).unwrap();
    assert_eq!(m.permissions().mode() & 0o777, 0o700);
}

#[test]
fn a_sticky_shared_trash_is_used_as_trash_slash_uid() {
    let t = top_fixture();
    let uid = rustix::process::getuid().as_raw();
    std::fs::create_dir(t.top.join(".Trash")).unwrap();
    std::fs::set_permissions(
        t.top.join(".Trash"),
        std::fs::Permissions::from_mode(0o1777),
    )
    .unwrap();
    assert_eq!(t.put(uid).unwrap(), t.top.join(format!(".Trash/{uid}")));
    assert!(!t.top.join(format!(".Trash-{uid}")).exists());
}

#[test]
fn a_shared_trash_without_sticky_bit_or_as_a_link_is_passed_over() {
    let uid = rustix::process::getuid().as_raw();
    let t = top_fixture();
    std::fs::create_dir(t.top.join(".Trash")).unwrap();
    std::fs::set_permissions(t.top.join(".Trash"), std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_eq!(t.put(uid).unwrap(), t.top.join(format!(".Trash-{uid}")));
    assert!(!t.top.join(format!(".Trash/{uid}")).exists());

    let t = top_fixture();
    let elsewhere = t.top.parent().unwrap().join("sticky");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o1777)).unwrap();
    symlink(&elsewhere, t.top.join(".Trash")).unwrap();
    assert_eq!(t.put(uid).unwrap(), t.top.join(format!(".Trash-{uid}")));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_trash_uid_that_is_a_link_or_not_ours_is_refused() {
    let uid = rustix::process::getuid().as_raw();
    let t = top_fixture();
    let elsewhere = t.top.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, t.top.join(format!(".Trash-{uid}"))).unwrap();
    let e = t.put(uid).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
    assert!(t.absolute.exists());
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    // Owned by someone else (we are uid, the folder says uid + 1).
    let t = top_fixture();
    let e = top_trash(&t.topdir(), uid + 1, &t.item()).unwrap_err();
    assert!(e.message.contains("belongs to user"), "{e}");
    assert!(t.absolute.exists());
}

#[test]
fn the_mount_point_found_is_the_highest_folder_on_the_items_device() {
    // Reads only: finds the real mount point of the temp dir, creates nothing there.
    let t = setup();
    std::fs::create_dir(t.f.root.join("d")).unwrap();
    let dev = std::fs::metadata(&t.f.root).unwrap().dev();
    let top = t.f.sandbox.topdir(Path::new("d/x"), dev).unwrap();
    assert!(t.f.root.starts_with(&top.path));
    assert_eq!(top.dir.dir_metadata().unwrap().dev(), dev);
    if let Some(up) = top.path.parent() {
        assert_ne!(std::fs::metadata(up).unwrap().dev(), dev);
    }
    // Inside the project: an item on another device than its parent is a mount point.
    let e = t.f.sandbox.topdir(Path::new("d/x"), dev + 1).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NoTrash);
}

/// Runs `gio` against the test's own home (a private D-Bus session, so gvfsd — which serves
/// `trash:///` — runs with that home and ends with the session).
fn gio(home: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("dbus-run-session")
        .arg("--")
        .arg("gio")
        .args(args)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .expect("gio and dbus-run-session are needed (Debian: libglib2.0-bin gvfs dbus-daemon)");
    assert!(
        out.status.success(),
        "gio {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn gio_lists_what_wisp_trashed_and_restores_it() {
    let t = setup();
    std::fs::create_dir(t.f.root.join("dir one")).unwrap();
    std::fs::write(t.f.root.join("dir one/a b.txt"), "file").unwrap();
    std::fs::write(t.f.root.join("ä.txt"), "umlaut").unwrap();
    std::fs::create_dir(t.f.root.join("folder")).unwrap();
    std::fs::write(t.f.root.join("folder/inner"), "in").unwrap();
    for p in ["dir one/a b.txt", "ä.txt", "folder"] {
        t.trash(p).unwrap();
    }
    let list = String::from_utf8(gio(&t.home, &["trash", "--list"]).stdout).unwrap();
    let mut rows: Vec<&str> = list.lines().collect();
    rows.sort();
    let root = t.f.root.display();
    assert_eq!(
        rows,
        [
            // gio prints the original path C-escaped (g_strescape): "ä" as \xc3\xa4.
            format!("trash:///%C3%A4.txt\t{root}/\\xc3\\xa4.txt"),
            format!("trash:///a%20b.txt\t{root}/dir one/a b.txt"),
            format!("trash:///folder\t{root}/folder"),
        ],
        "{list}"
    );
    // (gio 2.74's --restore writes a non-ASCII name in that escaped form, also for what gio
    // trashed itself, so restoring is checked on ASCII names.)
    gio(&t.home, &["trash", "--restore", "trash:///a%20b.txt"]);
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("dir one/a b.txt")).unwrap(),
        "file"
    );
    gio(&t.home, &["trash", "--restore", "trash:///folder"]);
    assert_eq!(
        std::fs::read_to_string(t.f.root.join("folder/inner")).unwrap(),
        "in"
    );
    assert_eq!(t.names("files"), ["ä.txt"]);
    assert_eq!(t.names("info"), ["ä.txt.trashinfo"]);
}

#[test]
fn choose_prefers_the_home_trash_on_the_same_device() {
    let t = setup();
    std::fs::write(t.f.root.join("a"), "").unwrap();
    let parent = Dir::open_ambient_dir(&t.f.root, cap_std::ambient_authority()).unwrap();
    let absolute = t.f.root.join("a");
    let item = Item {
        parent: &parent,
        name: "a",
        shown: "a",
        absolute: &absolute,
        dev: std::fs::metadata(&t.f.root).unwrap().dev(),
        ino: ino(&absolute),
    };
    let mut config = t.config.clone();
    config.top_dirs = true;
    let no_top = || -> Result<Topdir, FsError> { panic!("the top directory is not needed") };
    let chosen = choose(&config, &item, &no_top).unwrap();
    assert_eq!((chosen.path, chosen.original), (t.trash_dir(), absolute));
}

#[test]
fn a_folder_whose_tree_changed_after_approval_is_refused_as_stale() {
    let t = setup();
    std::fs::create_dir_all(t.f.root.join("d/e")).unwrap();
    std::fs::write(t.f.root.join("d/e/y"), "2").unwrap();
    // Each change deep in the tree: the folder itself keeps its identity, the fingerprint not.
    let changes: [&dyn Fn(&Path); 3] = [
        &|d| std::fs::write(d.join("e/new"), "").unwrap(),
        &|d| std::fs::write(d.join("e/y"), "22").unwrap(),
        &|d| {
            std::fs::set_permissions(d.join("e/y"), std::fs::Permissions::from_mode(0o600)).unwrap()
        },
    ];
    for change in changes {
        let plan = t.f.sandbox.prepare_trash("d").unwrap();
        change(&t.f.root.join("d"));
        let e = t.f.sandbox.trash(&plan, &t.config).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
        assert!(t.f.root.join("d/e/y").exists());
        assert!(t.names("files").is_empty() && t.names("info").is_empty());
    }
}

#[test]
fn a_tree_with_a_link_or_a_hidden_entry_is_refused_before_approval() {
    let t = setup();
    std::fs::create_dir(t.f.root.join("d")).unwrap();
    symlink(&t.f.outside, t.f.root.join("d/out")).unwrap();
    assert_eq!(
        t.f.sandbox.prepare_trash("d").unwrap_err().kind,
        FsErrorKind::Symlink
    );
    // A link itself is refused too: trashing it would not be what its path shows.
    assert_eq!(
        t.f.sandbox.prepare_trash("d/out").unwrap_err().kind,
        FsErrorKind::Symlink
    );
    std::fs::create_dir(t.f.root.join("h")).unwrap();
    std::fs::write(t.f.root.join("h/.env"), "").unwrap();
    assert_eq!(
        t.f.sandbox.prepare_trash("h").unwrap_err().kind,
        FsErrorKind::Hidden
    );
    assert!(t.names("files").is_empty());
    assert!(t.f.outside.join("secret.txt").exists());
}

#[test]
fn a_top_directory_trash_on_another_device_than_the_item_is_refused() {
    let uid = rustix::process::getuid().as_raw();
    let t = top_fixture();
    let shm = tempfile::tempdir_in("/dev/shm").expect("/dev/shm (a tmpfs) is needed");
    assert_ne!(std::fs::metadata(shm.path()).unwrap().dev(), t.dev);
    // The mount point's handle on another device than the item: neither method may be used.
    let top = || Topdir {
        path: t.top.clone(),
        dir: Dir::open_ambient_dir(shm.path(), cap_std::ambient_authority()).unwrap(),
    };
    let e = top_trash(&top(), uid, &t.item()).unwrap_err();
    assert!(
        e.message
            .contains(&format!(".Trash-{uid} is on another device")),
        "{e}"
    );
    std::fs::create_dir(shm.path().join(".Trash")).unwrap();
    std::fs::set_permissions(
        shm.path().join(".Trash"),
        std::fs::Permissions::from_mode(0o1777),
    )
    .unwrap();
    let e = top_trash(&top(), uid, &t.item()).unwrap_err();
    assert!(
        e.message
            .contains(&format!(".Trash/{uid} is on another device")),
        "{e}"
    );
    assert!(t.absolute.exists());
}

#[test]
fn a_refused_top_directory_trash_says_why_each_method_failed() {
    let uid = rustix::process::getuid().as_raw();
    let t = top_fixture();
    symlink("/nonexistent", t.top.join(format!(".Trash-{uid}"))).unwrap();
    let e = top_trash(&t.topdir(), uid, &t.item()).unwrap_err();
    assert!(
        !e.message.contains(".Trash cannot"),
        "no .Trash, nothing to say: {e}"
    );
    std::fs::create_dir(t.top.join(".Trash")).unwrap();
    let e = top_trash(&t.topdir(), uid, &t.item()).unwrap_err();
    assert!(e.message.contains("has no sticky bit"), "{e}");
    assert!(
        e.message.contains(&format!(".Trash-{uid} cannot be used")),
        "{e}"
    );
}

#[test]
fn the_rename_without_the_no_replace_flag_still_never_replaces() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
    std::fs::write(tmp.path().join("a"), "a").unwrap();
    std::fs::write(tmp.path().join("taken"), "keep").unwrap();
    let e = rename_checked(&d, "a", &d, "taken").unwrap_err();
    assert_eq!(
        e.raw_os_error(),
        Some(rustix::io::Errno::EXIST.raw_os_error())
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("taken")).unwrap(),
        "keep"
    );
    rename_checked(&d, "a", &d, "free").unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("free")).unwrap(),
        "a"
    );
    assert!(!tmp.path().join("a").exists());
    // A target name that cannot even be looked up is an error, not a rename.
    std::fs::write(tmp.path().join("b"), "b").unwrap();
    let e = rename_checked(&d, "b", &d, "taken/x").unwrap_err();
    assert_eq!(
        e.raw_os_error(),
        Some(rustix::io::Errno::NOTDIR.raw_os_error())
    );
    assert!(tmp.path().join("b").exists());
    // A target the folder's handle refuses to look up (it leads out of the folder) is not
    // renamed to either, though the system call alone would take it.
    std::fs::create_dir(tmp.path().join("inner")).unwrap();
    std::fs::write(tmp.path().join("inner").join("c"), "c").unwrap();
    let inner = d.open_dir("inner").unwrap();
    rename_checked(&inner, "c", &inner, "../escaped").unwrap_err();
    assert!(tmp.path().join("inner").join("c").exists());
    assert!(!tmp.path().join("escaped").exists());
}

#[test]
fn taking_back_takes_only_one_name_of_the_trash_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let trash = tmp.path().join("trash");
    let project = tmp.path().join("project");
    std::fs::create_dir_all(trash.join("a")).unwrap();
    std::fs::create_dir(&project).unwrap();
    std::fs::write(trash.join("a").join("b"), "b").unwrap();
    std::fs::write(trash.join("x"), "x").unwrap();
    let ident = |p: &Path| {
        let m = std::fs::symlink_metadata(p).unwrap();
        (m.dev(), m.ino())
    };
    let from = Dir::open_ambient_dir(&trash, cap_std::ambient_authority()).unwrap();
    let to = Dir::open_ambient_dir(&project, cap_std::ambient_authority()).unwrap();
    let b = ident(&trash.join("a").join("b"));
    for bad in ["a/b", "..", ".", ""] {
        let e = super::rename::take_out(&from, bad, b, &to, "back", "back").unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotFound, "{bad:?}: {e}");
    }
    assert!(trash.join("a").join("b").exists());
    assert!(!project.join("back").exists());
    super::rename::take_out(&from, "x", ident(&trash.join("x")), &to, "back", "back").unwrap();
    assert_eq!(std::fs::read_to_string(project.join("back")).unwrap(), "x");
}

//! Hostile test of `files_trash`: a thread keeps swapping a folder of the project for
//! a symlink to a folder outside it (`renameat2(RENAME_EXCHANGE)`, so the name is always one
//! or the other) while items below that folder are prepared and trashed. Nothing outside the
//! root may ever be trashed, in 1,000 iterations; what was trashed is what was inside.

use wisp_fs::{Sandbox, TrashConfig};

/// Iterations of prepare + trash while the folder is being swapped.
const ITERATIONS: usize = 1000;

#[test]
fn a_folder_swapped_for_a_link_to_the_outside_never_lets_trash_take_anything_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    for i in 0..ITERATIONS {
        std::fs::write(root.join(format!("dir/v{i:04}")), "inside").unwrap();
        std::fs::write(outside.join(format!("v{i:04}")), "outside").unwrap();
    }
    // `swap` is the link; exchanging it with `dir` puts the link at `dir` and back.
    std::os::unix::fs::symlink(&outside, root.join("swap")).unwrap();
    let trash = tmp.path().join("home/.local/share/Trash");
    let config = TrashConfig::home_only(trash.clone());
    let sandbox = Sandbox::open(&root).unwrap();

    let swapper = crate::support::Swapper::start(&root, "dir", "swap");
    let (mut trashed, mut refused) = (0, 0);
    for i in 0..ITERATIONS {
        let path = format!("dir/v{i:04}");
        match sandbox
            .prepare_trash(&path)
            .and_then(|plan| sandbox.trash(&plan, &config))
        {
            Ok(t) => {
                assert_eq!(t.path, path);
                trashed += 1;
            }
            Err(_) => refused += 1,
        }
    }
    let swaps = swapper.stop();
    assert!(root.join("swap").is_symlink() && root.join("dir").is_dir());

    // Every outside file is where it was, untouched.
    for i in 0..ITERATIONS {
        assert_eq!(
            std::fs::read_to_string(outside.join(format!("v{i:04}"))).unwrap(),
            "outside",
            "v{i:04}"
        );
    }
    // Everything in the trash came from inside, and nothing inside was lost: each item is
    // either still in the project or in the trash, under its own name.
    let mut in_trash = 0;
    for e in std::fs::read_dir(trash.join("files")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        assert!(name.starts_with('v') && name.len() == 5, "{name}");
        assert_eq!(
            std::fs::read_to_string(e.path()).unwrap(),
            "inside",
            "{name}"
        );
        assert!(!root.join("dir").join(&name).exists(), "{name}");
        in_trash += 1;
    }
    assert_eq!(in_trash, trashed);
    assert_eq!(
        std::fs::read_dir(root.join("dir")).unwrap().count() + in_trash,
        ITERATIONS
    );
    assert_eq!(
        std::fs::read_dir(trash.join("info")).unwrap().count(),
        in_trash,
        "one info file per trashed item, none left by a refusal"
    );
    // The race was real: some calls saw the link, some the folder.
    assert!(
        trashed > 0 && refused > 0,
        "trashed {trashed}, refused {refused}, {swaps} swaps"
    );
}

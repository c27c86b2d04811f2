//! Hostile test of `files_trash`: a thread keeps swapping a folder of the project for
//! a symlink to a folder outside it (`renameat2(RENAME_EXCHANGE)`, so the name is always one
//! or the other) while items below that folder are prepared and trashed. Nothing outside the
//! root may ever be trashed, in 1,000 iterations; what was trashed is what was inside.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use wisp_fs::{Sandbox, TrashConfig};

/// Iterations of prepare + trash while the folder is being swapped.
const ITERATIONS: usize = 1000;

fn exchange(root: &Path, a: &str, b: &str) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        root.join(a),
        rustix::fs::CWD,
        root.join(b),
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .unwrap();
}

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

    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (stop, root) = (stop.clone(), root.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                exchange(&root, "dir", "swap");
                swaps += 1;
                // Uneven pauses, from none to longer than a whole call, so swaps land at every
                // point of a call and some calls run between two swaps.
                match swaps % 8 {
                    0 => std::thread::sleep(std::time::Duration::from_millis(5)),
                    n => {
                        for _ in 0..n * 200 {
                            std::hint::spin_loop();
                        }
                    }
                }
            }
            // Leave the real folder at `dir`.
            if swaps % 2 == 1 {
                exchange(&root, "dir", "swap");
            }
            swaps
        })
    };
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
    stop.store(true, Ordering::Relaxed);
    let swaps = racer.join().unwrap();
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

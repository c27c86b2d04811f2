//! Hostile test of undo's own writes: a thread keeps swapping a folder of the project for a
//! symlink to a folder outside it (`renameat2(RENAME_EXCHANGE)`) while recorded changes below
//! that folder are undone — a replaced file's content written back, a created file moved to
//! the trash. Nothing outside the root may ever be written or trashed, in 1,000 iterations;
//! each file inside is whole, either as the change left it or as it was before.

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use wisp_fs::{Change, Kept, Recorder, Sandbox, TrashConfig};

const ITERATIONS: usize = 1000;

/// Keeps the last change and every replaced content, as the Host's store does.
#[derive(Default)]
struct Recorded {
    last: Option<Change>,
    blobs: HashMap<String, Vec<u8>>,
}

impl Recorder for Recorded {
    fn keeps_up_to(&self) -> u64 {
        1 << 20
    }
    fn before(&mut self, change: &Change, replaced: Option<&[u8]>) -> Result<(), String> {
        if let Some(r) = replaced {
            self.blobs
                .insert(hex::encode(Sha256::digest(r)), r.to_vec());
        }
        self.last = Some(change.clone());
        Ok(())
    }
    fn landed(&mut self, change: &Change) {
        self.last = Some(change.clone());
    }
    fn abandoned(&mut self) {
        self.last = None;
    }
}

#[test]
fn a_folder_swapped_for_a_link_to_the_outside_never_lets_an_undo_write_or_trash_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    let sandbox = Sandbox::open(&root).unwrap();
    let trash = tmp.path().join("home/.local/share/Trash");
    let config = TrashConfig::home_only(trash.clone());
    // The changes to undo, made before the race: even names replaced, odd names created.
    let mut rec = Recorded::default();
    let mut changes = Vec::new();
    for i in 0..ITERATIONS {
        let name = format!("v{i:04}");
        if i % 2 == 0 {
            std::fs::write(root.join("dir").join(&name), "before").unwrap();
        }
        std::fs::write(outside.join(&name), "outside").unwrap();
        let plan = sandbox
            .prepare_write(&format!("dir/{name}"), "the run's".into())
            .unwrap();
        sandbox.write_recorded(&plan, &mut rec).unwrap();
        changes.push(rec.last.take().unwrap());
    }
    std::os::unix::fs::symlink(&outside, root.join("swap")).unwrap();

    let swapper = crate::support::Swapper::start(&root, "dir", "swap");
    let (mut undone, mut refused) = (0, 0);
    for change in &changes {
        let content = match change {
            Change::Wrote {
                before: Kept::Content { sha256, .. },
                ..
            } => rec.blobs.get(sha256).cloned(),
            _ => None,
        };
        match sandbox.undo(
            change,
            content.as_deref(),
            &config,
            &mut Recorded::default(),
        ) {
            Ok(()) => undone += 1,
            Err(_) => refused += 1,
        }
    }
    let swaps = swapper.stop();
    assert!(root.join("swap").is_symlink() && root.join("dir").is_dir());

    for i in 0..ITERATIONS {
        let name = format!("v{i:04}");
        assert_eq!(
            std::fs::read_to_string(outside.join(&name)).unwrap(),
            "outside",
            "{name}"
        );
        let inside = std::fs::read_to_string(root.join("dir").join(&name));
        let in_trash = std::fs::read_to_string(trash.join("files").join(&name));
        match (i % 2, inside, in_trash) {
            // Replaced: restored or left as the run left it, never torn.
            (0, Ok(text), Err(_)) => {
                assert!(text == "before" || text == "the run's", "{name}: {text}")
            }
            // Created: in the trash as the run wrote it, or still in place.
            (1, Ok(text), Err(_)) | (1, Err(_), Ok(text)) => {
                assert_eq!(text, "the run's", "{name}")
            }
            (_, inside, in_trash) => panic!("{name}: {inside:?} {in_trash:?}"),
        }
    }
    // Only created files went to the trash (every outside file is still there, above).
    for e in std::fs::read_dir(trash.join("files")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        let i: usize = name.trim_start_matches('v').parse().unwrap();
        assert_eq!(i % 2, 1, "{name}");
    }
    // The race was real: some undos saw the link and were refused, some ran.
    assert!(swaps > 10, "{swaps} swaps");
    assert!(
        undone > 0 && refused > 0,
        "undone {undone}, refused {refused}"
    );
}

//! The output folder of a command (`--out DIR`): created and proved writable before any work.

use std::path::Path;

/// Creates the output folder and proves it takes new files, before any measuring. Call it
/// after every other check, so a refused run leaves no folders behind. The proof is a
/// create-new temporary file removed at once: nothing is left, and no link is followed.
pub fn prepare_out_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("--out {}: cannot create the folder: {e}", dir.display()))?;
    super::check_writable_dir(dir).map_err(|e| {
        format!(
            "--out {}: the folder is not writable: {}",
            dir.display(),
            e.reason
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_dir_must_be_writable() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(prepare_out_dir(&dir.path().join("a/b")).is_ok());
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").expect("write");
        assert!(prepare_out_dir(&file.join("sub"))
            .unwrap_err()
            .contains("cannot create the folder"));
    }

    #[cfg(unix)]
    #[test]
    fn the_write_probe_follows_no_planted_link_and_leaves_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"precious").expect("write");
        let out = dir.path().join("out");
        std::fs::create_dir(&out).expect("mkdir");
        // The old probe's fixed name: writing it overwrote whatever the link pointed at.
        std::os::unix::fs::symlink(&victim, out.join(".throng-write-test")).expect("symlink");
        prepare_out_dir(&out).expect("writable");
        assert_eq!(std::fs::read(&victim).expect("read"), b"precious");
        let left: Vec<_> = std::fs::read_dir(&out)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(left, [".throng-write-test"], "only the planted link");
    }
}

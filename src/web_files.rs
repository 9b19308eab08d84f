//! The files a web page fetched before the game started, in memory. A browser has no file
//! system, so on `wasm32` the readers in `file_read` look files up here instead of on disk;
//! the page fetches the web folder's `files.txt` list into it first (`app::web`). On the
//! desktop the map stays empty and unused. Paths are compared after dropping `.` parts and
//! resolving `..`, so `./assets/a.gltf` and `levels/../assets/a.gltf` name the same file.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

fn files() -> &'static Mutex<HashMap<PathBuf, Arc<Vec<u8>>>> {
    static FILES: OnceLock<Mutex<HashMap<PathBuf, Arc<Vec<u8>>>>> = OnceLock::new();
    FILES.get_or_init(Default::default)
}

/// `path` with `.` parts dropped and `..` applied (never above the start).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Stores a fetched file under the path the game will ask for.
pub fn insert(path: &Path, bytes: Vec<u8>) {
    if let Ok(mut map) = files().lock() {
        map.insert(normalize(path), Arc::new(bytes));
    }
}

/// The bytes fetched for `path`, if any.
pub fn get(path: &Path) -> Option<Arc<Vec<u8>>> {
    files().lock().ok()?.get(&normalize(path)).cloned()
}

/// Whether a file was fetched for `path`.
pub fn contains(path: &Path) -> bool {
    get(path).is_some()
}

/// The paths a web folder's `files.txt` lists: its non-empty lines, trimmed, without `#`
/// comment lines.
pub fn file_list(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_list_skips_blanks_and_comments() {
        let text = "# made by web-build.sh\nlevels/plaza.ron\n\n  assets/hero/a.vrm  \n";
        assert_eq!(
            file_list(text),
            vec!["levels/plaza.ron", "assets/hero/a.vrm"]
        );
    }

    #[test]
    fn paths_meet_after_dots_and_parent_parts() {
        assert_eq!(
            normalize(Path::new("./levels/../assets/a.gltf")),
            PathBuf::from("assets/a.gltf")
        );
        insert(Path::new("./web-test/x.bin"), vec![1, 2, 3]);
        assert_eq!(
            get(Path::new("web-test/sub/../x.bin")).as_deref(),
            Some(&vec![1, 2, 3])
        );
        assert!(!contains(Path::new("web-test/y.bin")));
    }
}

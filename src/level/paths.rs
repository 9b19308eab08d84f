//! Where the files a level names (crowd models, the hero) are found: next to the level file
//! first, then in the project root (the folder holding `assets/`), so a level kept outside the
//! repository works from any working directory.

use std::path::{Path, PathBuf};

/// The folders a level's paths are tried in, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Places {
    /// The level file's own folder, absolute (None: the level has no file, e.g. a test string).
    pub level_dir: Option<PathBuf>,
    /// The project root: the folder holding `assets/`.
    pub root: PathBuf,
}

impl Places {
    /// The places for a level file at `level` (its folder made absolute, so the resolved paths
    /// do not depend on the working directory later).
    pub fn for_file(level: &Path, root: &Path) -> Places {
        let dir = level.parent().filter(|p| !p.as_os_str().is_empty());
        let dir = dir.unwrap_or(Path::new("."));
        let level_dir = dir
            .canonicalize()
            .ok()
            .or_else(|| std::path::absolute(dir).ok());
        Places {
            level_dir,
            root: root.to_path_buf(),
        }
    }

    /// Only the project root (levels given as text).
    pub fn root_only(root: &Path) -> Places {
        Places {
            level_dir: None,
            root: root.to_path_buf(),
        }
    }

    /// The folders tried, without repeats.
    fn folders(&self) -> Vec<&Path> {
        let mut out: Vec<&Path> = Vec::new();
        if let Some(d) = &self.level_dir {
            out.push(d);
        }
        let root_same = self
            .level_dir
            .as_ref()
            .is_some_and(|d| d == &self.root || self.root.canonicalize().ok().as_ref() == Some(d));
        if !root_same {
            out.push(&self.root);
        }
        out
    }

    /// Where the tries were made, for messages: "looked in the level's folder A, then the
    /// project root B".
    pub fn looked_in(&self, path: &str) -> String {
        if Path::new(path).is_absolute() {
            return "a full path is used as it is".to_string();
        }
        let folders = self.folders();
        let name = |f: &Path| {
            let what = match (Some(f) == self.level_dir.as_deref(), folders.len()) {
                (true, 1) => "the level's folder and project root",
                (true, _) => "the level's folder",
                (false, _) => "the project root",
            };
            format!("{what} {}", f.display())
        };
        let named: Vec<String> = folders.iter().map(|f| name(f)).collect();
        format!("looked in {}", named.join(", then "))
    }

    /// The file `path` names, or why there is none (`Err` holds the end of the message after
    /// the quoted path).
    pub fn resolve(&self, path: &str) -> Result<ResolvedPath, String> {
        let mut not_regular = None;
        for (k, folder) in self.folders().into_iter().enumerate() {
            let full = folder.join(path);
            match crate::file_read::probe(&full) {
                crate::file_read::Probe::Regular => {
                    // Found under the root: kept as written (the loaders join the root).
                    let in_level_dir = k == 0 && self.level_dir.is_some();
                    let same_as_root = full == self.root.join(path);
                    return Ok(ResolvedPath {
                        full: full.clone(),
                        for_level: if in_level_dir && !same_as_root {
                            full.display().to_string()
                        } else {
                            path.to_string()
                        },
                    });
                }
                // A FIFO or device would never load; say so rather than "does not exist".
                crate::file_read::Probe::Other => not_regular = not_regular.or(Some(full)),
                crate::file_read::Probe::Missing => {}
            }
        }
        match not_regular {
            Some(full) => Err(format!("is not a regular file: {}", full.display())),
            None => Err(format!("does not exist; {}", self.looked_in(path))),
        }
    }
}

impl Places {
    /// The first thing at `path` in the folders tried, a regular file or not: what a load of
    /// `path` would open, so a warning about it names the right file.
    pub fn locate(&self, path: &str) -> Option<PathBuf> {
        self.folders()
            .into_iter()
            .map(|f| f.join(path))
            .find(|full| crate::file_read::probe(full) != crate::file_read::Probe::Missing)
    }
}

/// A path a level names, found.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedPath {
    /// The file itself.
    pub full: PathBuf,
    /// What the level keeps: the path as written when it is under the project root, else the
    /// full path (the loaders join the project root, and joining a full path keeps it).
    pub for_level: String,
}

/// The folder that holds `assets/`: level files name models relative to it (after their own
/// folder). Looks upward from the level file, then from the working directory, then from the
/// program itself (`target/debug/throng` lives in the project), so a level outside the
/// repository that names the shipped models works from any working directory.
pub fn find_asset_root(level: &Path) -> PathBuf {
    let start = level
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    for base in start.iter().chain(std::iter::once(&cwd)).chain(exe.iter()) {
        for dir in base.ancestors() {
            if dir.join("assets").is_dir() {
                return dir.to_path_buf();
            }
        }
    }
    cwd
}

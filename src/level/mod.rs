//! Level files: schema, loading with designer-facing errors, hot reload.
//! (Interim loader: the full validating loader lands with the level branch.)
pub mod schema;
pub use schema::*;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[derive(Debug, Clone, PartialEq)]
pub struct LevelError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub field: String,
    pub message: String,
}

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for LevelError {}

pub fn parse_level(
    source: &str,
    file_label: &str,
    _asset_root: &Path,
) -> Result<Level, LevelError> {
    ron::from_str::<Level>(source).map_err(|e| LevelError {
        file: file_label.to_string(),
        line: e.position.line,
        column: e.position.col,
        field: String::new(),
        message: e.code.to_string(),
    })
}

pub fn load_level(path: &Path, asset_root: &Path) -> Result<Level, LevelError> {
    let label = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| LevelError {
        file: label.clone(),
        line: 0,
        column: 0,
        field: String::new(),
        message: format!("cannot read the level file: {e}"),
    })?;
    parse_level(&source, &label, asset_root)
}

pub struct LevelWatcher {
    path: PathBuf,
    asset_root: PathBuf,
    stamp: Option<(SystemTime, u64)>,
}

impl LevelWatcher {
    pub fn new(path: &Path, asset_root: &Path) -> Self {
        LevelWatcher {
            path: path.to_path_buf(),
            asset_root: asset_root.to_path_buf(),
            stamp: Self::stamp_of(path),
        }
    }
    fn stamp_of(path: &Path) -> Option<(SystemTime, u64)> {
        let m = std::fs::metadata(path).ok()?;
        Some((m.modified().ok()?, m.len()))
    }
    pub fn poll(&mut self) -> Option<Result<Level, LevelError>> {
        let stamp = Self::stamp_of(&self.path);
        if stamp == self.stamp {
            return None;
        }
        self.stamp = stamp;
        Some(load_level(&self.path, &self.asset_root))
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
}

//! Level files: schema, loading with designer-facing errors, hot reload.
//!
//! Every error reads `file:line:column: field.path: what is wrong and what is allowed`. Syntax and
//! type errors take their position from ron; checks after parsing (ranges, geometry, references)
//! find their field's position with `locate::FieldMap`.
pub mod locate;
pub mod schema;
pub mod validate;
pub use schema::*;

use std::fmt;

use locate::{FieldMap, Pos};
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

/// Turns ron's error into a designer's message and the field it is about.
fn describe_ron_error(
    code: &ron::Error,
    source: &str,
    fields: &FieldMap,
    pos: Pos,
) -> (String, String) {
    use ron::Error as E;
    let join = |parent: String, child: &str| {
        if parent.is_empty() {
            child.to_string()
        } else {
            format!("{parent}.{child}")
        }
    };
    match code {
        E::NoSuchStructField {
            expected, found, ..
        } => (
            join(fields.container_at(pos), found),
            format!("unknown field `{found}`; allowed: {}", expected.join(", ")),
        ),
        E::MissingStructField { field, .. } => {
            (fields.container_at(pos), format!("missing field `{field}`"))
        }
        E::DuplicateStructField { field, .. } => (
            join(fields.container_at(pos), field),
            format!("`{field}` is given twice"),
        ),
        E::NoSuchEnumVariant {
            expected, found, ..
        } => (
            fields.value_at(pos),
            format!("unknown value `{found}`; allowed: {}", expected.join(", ")),
        ),
        E::ExpectedInteger | E::IntegerOutOfBounds => (
            fields.value_at(pos),
            "expected a whole number 0 or more".to_string(),
        ),
        E::ExpectedFloat => (fields.value_at(pos), "expected a number".to_string()),
        // `capacity: 5.5` stops ron right after the 5: say what is really wrong.
        E::ExpectedComma if char_at(source, pos) == Some('.') => (
            fields.value_at(pos),
            "expected a whole number, found a decimal".to_string(),
        ),
        E::InvalidValueForType { expected, found } => (
            fields.value_at(pos),
            format!("expected {expected}, found {found}"),
        ),
        E::Eof => (
            String::new(),
            "the file ends too early: a bracket is not closed".to_string(),
        ),
        other => {
            // ron's own words, lower-cased to read as one sentence after the position.
            let text = other.to_string();
            let mut chars = text.chars();
            let message = match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => text,
            };
            (fields.value_at(pos), message)
        }
    }
}

/// The character at a 1-based line and column.
fn char_at(source: &str, pos: Pos) -> Option<char> {
    source
        .lines()
        .nth(pos.line.checked_sub(1)?)?
        .chars()
        .nth(pos.col.checked_sub(1)?)
}

/// Parses and validates a level. `file_label` names the file in messages; model paths are
/// checked relative to `asset_root`.
pub fn parse_level(source: &str, file_label: &str, asset_root: &Path) -> Result<Level, LevelError> {
    let fields = FieldMap::new(source);
    let level = ron::from_str::<Level>(source).map_err(|e| {
        let pos = Pos {
            line: e.position.line,
            col: e.position.col,
        };
        let (field, message) = describe_ron_error(&e.code, source, &fields, pos);
        LevelError {
            file: file_label.to_string(),
            line: pos.line,
            column: pos.col,
            field,
            message,
        }
    })?;
    validate::validate(&level, asset_root).map_err(|f| {
        let pos = fields.position_of(&f.field);
        LevelError {
            file: file_label.to_string(),
            line: pos.line,
            column: pos.col,
            field: f.field,
            message: f.message,
        }
    })?;
    Ok(level)
}

pub fn load_level(path: &Path, asset_root: &Path) -> Result<Level, LevelError> {
    let label = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| LevelError {
        file: label.clone(),
        line: 1,
        column: 1,
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

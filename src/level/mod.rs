//! Level files: schema, loading with designer-facing errors, hot reload.
//!
//! Every error reads `file:line:column: field.path: what is wrong and what is allowed`. Syntax and
//! type errors take their position from ron; checks after parsing (ranges, geometry, references)
//! find their field's position with `locate::FieldMap`.
pub mod check;
mod hints;
pub mod locate;
pub mod paths;
pub mod sandbox;
pub mod schema;
pub mod validate;
pub use paths::{find_asset_root, Places};
pub use schema::*;

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::file_read::read_capped;
use locate::{FieldMap, Pos};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The largest level file read: 50 times the largest shipped level, far below what parsing and
/// validating could not handle in a moment.
pub const MAX_LEVEL_BYTES: u64 = 1 << 20;

/// What is wrong with a level file and where. `line` and `column` are 1-based; both 0 when the
/// problem has no place in the text (the file cannot be read at all).
#[derive(Debug, Clone, PartialEq)]
pub struct LevelError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub field: String,
    pub message: String,
}

impl LevelError {
    /// The problem has a line and column in the file.
    pub fn has_position(&self) -> bool {
        self.line > 0
    }
}

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The file's name may hold anything but `/` and NUL: shown escaped, on one line.
        let file = crate::shown::shown(&self.file);
        if self.has_position() {
            write!(f, "{file}:{}:{}: ", self.line, self.column)?;
        } else {
            write!(f, "{file}: ")?;
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", crate::shown::one_line(&self.field))?;
        }
        write!(f, "{}", crate::shown::one_line(&self.message))
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
            join(fields.container_at(pos), &shorten(found)),
            format!(
                "unknown field `{}`; allowed: {}",
                shorten(found),
                expected.join(", ")
            ),
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
            format!(
                "unknown value `{}`; allowed: {}",
                shorten(found),
                expected.join(", ")
            ),
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
        // ron stops at the next item: the comma is missing between two items of the container
        // open there, not inside the value before it.
        E::ExpectedComma => (
            fields.container_at(pos),
            format!("expected a comma before `{}`", token_at(source, pos)),
        ),
        // ron stops at the value: the colon is missing after the field name just before it.
        E::ExpectedMapColon => match word_before(source, pos) {
            Some(name) => (
                join(fields.container_at(pos), &name),
                format!("expected `:` after the field name `{name}`"),
            ),
            None => (fields.container_at(pos), "expected `:`".to_string()),
        },
        E::InvalidValueForType { expected, found } => (
            fields.value_at(pos),
            hints::vector_type(expected, &found.to_string()).unwrap_or_else(|| {
                format!("expected {expected}, found {}", shorten(&found.to_string()))
            }),
        ),
        // `sky_color: (0.55, 0.72)`: the point or colour is reported, not its last number.
        E::ExpectedDifferentLength { expected, found } => {
            match hints::vector_length(expected, *found) {
                Some(message) => (fields.container_at(pos), message),
                None => (
                    fields.value_at(pos),
                    format!("expected {}, found {found} items", shorten(expected)),
                ),
            }
        }
        // `path: "ring"` for an optional value.
        E::ExpectedOption => (
            fields.value_at(pos),
            hints::option_hint(hints::value_text_at(source, pos).as_deref()),
        ),
        E::ExpectedString => (
            fields.value_at(pos),
            hints::string_hint(hints::value_text_at(source, pos).as_deref()),
        ),
        E::ExpectedNamedStructLike(name) if hints::vector_opening(name).is_some() => (
            fields.value_at(pos),
            hints::vector_opening(name).unwrap_or_default(),
        ),
        E::ExpectedBoolean => (fields.value_at(pos), "expected true or false".to_string()),
        E::ExpectedStructLikeEnd => hints::unclosed(source, fields, pos)
            .unwrap_or_else(|| (fields.value_at(pos), "expected closing `)`".to_string())),
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
            (fields.value_at(pos), shorten(&message))
        }
    }
}

/// The longest validation message kept (they quote names, which may be any length).
pub const MAX_MESSAGE_CHARS: usize = 400;

/// Text from the file quoted in a message: at most 40 characters, control characters escaped,
/// so one line stays one line.
fn shorten(text: &str) -> String {
    shorten_to(text, 40)
}

fn shorten_to(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars().take(max) {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    if text.chars().nth(max).is_some() {
        out.push_str("...");
    }
    out
}

/// The word (or else the one character) starting at a 1-based line and column.
fn token_at(source: &str, pos: Pos) -> String {
    let Some(line) = source.lines().nth(pos.line.saturating_sub(1)) else {
        return "the end of the file".to_string();
    };
    let rest: String = line.chars().skip(pos.col.saturating_sub(1)).collect();
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    match (word.is_empty(), rest.chars().next()) {
        (false, _) => shorten(&word),
        (true, Some(c)) => shorten(&c.to_string()),
        (true, None) => "the end of the line".to_string(),
    }
}

/// The identifier that ends just before a 1-based line and column (spaces between allowed).
fn word_before(source: &str, pos: Pos) -> Option<String> {
    let line = source.lines().nth(pos.line.checked_sub(1)?)?;
    let before: String = line.chars().take(pos.col.saturating_sub(1)).collect();
    let before = before.trim_end();
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()?
        .0;
    Some(shorten(&before[start..]))
}

/// The last control character other than a tab on `pos`'s line, up to and including `pos`,
/// with its own position.
fn control_before(source: &str, pos: Pos) -> Option<(Pos, char)> {
    let line = source.lines().nth(pos.line.checked_sub(1)?)?;
    line.chars()
        .take(pos.col.max(1))
        .enumerate()
        .filter(|&(_, c)| c.is_control() && c != '\t' && c != '\r')
        .last()
        .map(|(i, c)| {
            (
                Pos {
                    line: pos.line,
                    col: i + 1,
                },
                c,
            )
        })
}

fn control_message(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    let named = if c == '\0' {
        format!("{code} (NUL)")
    } else {
        code
    };
    format!(
        "the character {named} is not text; level files hold text, with tabs and line breaks \
         the only control characters outside strings"
    )
}

/// The character at a 1-based line and column.
fn char_at(source: &str, pos: Pos) -> Option<char> {
    source
        .lines()
        .nth(pos.line.checked_sub(1)?)?
        .chars()
        .nth(pos.col.checked_sub(1)?)
}

/// Parses and validates a level given as text. `file_label` names the file in messages; model
/// paths are found relative to `asset_root` only (there is no level folder).
pub fn parse_level(source: &str, file_label: &str, asset_root: &Path) -> Result<Level, LevelError> {
    parse_level_in(source, file_label, &Places::root_only(asset_root))
}

/// Parses and validates a level; model paths are found in `places` (the level's folder first,
/// then the project root) and kept in the level as the loaders will open them.
pub fn parse_level_in(
    source: &str,
    file_label: &str,
    places: &Places,
) -> Result<Level, LevelError> {
    let (level, mut errors) = check_level_text(source, file_label, places);
    match level {
        Some(level) if errors.is_empty() => Ok(level),
        _ if errors.is_empty() => Err(at_start(file_label, "the level did not parse".into())),
        _ => Err(errors.swap_remove(0)),
    }
}

/// Every problem of a level given as text: one syntax error (parsing stops there), or every
/// finding of validation (at most one per field). The level comes back when it parsed, with
/// its model paths resolved when they were all found.
pub fn check_level_text(
    source: &str,
    file_label: &str,
    places: &Places,
) -> (Option<Level>, Vec<LevelError>) {
    let (source, _) = normalize_level_text(source);
    let source = &*source;
    let fields = FieldMap::new(source);
    let positioned = |pos: Pos, field: String, message: String| LevelError {
        file: file_label.to_string(),
        line: pos.line,
        column: pos.col,
        field,
        message,
    };
    if let Some(pos) = fields.too_deep() {
        let message = format!(
            "brackets nest more than {} deep here; a level needs 8 at most",
            locate::MAX_NESTING
        );
        return (None, vec![positioned(pos, String::new(), message)]);
    }
    let mut level = match ron::from_str::<Level>(source) {
        Ok(level) => level,
        Err(e) => {
            let mut pos = Pos {
                line: e.position.line,
                col: e.position.col,
            };
            // ron stops one character into a bare word where it wanted a string.
            if e.code == ron::Error::ExpectedString {
                pos = hints::word_start(source, pos);
            }
            // A control character where ron stopped (a NUL from a broken save, say) is the
            // problem itself, whatever ron expected there.
            if let Some((at, c)) = control_before(source, pos) {
                return (
                    None,
                    vec![positioned(at, String::new(), control_message(c))],
                );
            }
            let (field, message) = describe_ron_error(&e.code, source, &fields, pos);
            return (None, vec![positioned(pos, field, message)]);
        }
    };
    let errors: Vec<LevelError> = validate::validate_all(&level, places)
        .into_iter()
        .map(|f| {
            // Messages quote names from the file, which may be any length.
            let message = shorten_to(&f.message, MAX_MESSAGE_CHARS);
            positioned(fields.position_of(&f.field), f.field, message)
        })
        .collect();
    if errors.is_empty() {
        resolve_paths(&mut level, places);
    }
    (Some(level), errors)
}

/// Replaces the model paths of a validated level by what the loaders open (a path found next to
/// the level becomes a full path; one under the project root stays as written).
fn resolve_paths(level: &mut Level, places: &Places) {
    let resolve = |path: &mut String| {
        if let Ok(found) = places.resolve(path) {
            *path = found.for_level;
        }
    };
    for m in &mut level.crowd.models {
        resolve(&mut m.path);
    }
    resolve(&mut level.hero.model);
    // Motion files are optional (a missing one falls back to the authored clip), so they are
    // resolved where found and otherwise left for the hero's warning; one that is there but no
    // regular file (a folder, a FIFO, a link to a device) is kept as the full path found, so
    // the warning names that file and not the bare path against the working directory.
    for source in level.hero.motion.sources_mut() {
        match source {
            MotionSource::Clip { file, .. } | MotionSource::Vrma(file) => {
                match places.resolve(file) {
                    Ok(found) => *file = found.for_level,
                    Err(_) => {
                        if let Some(full) = places.locate(file) {
                            *file = full.display().to_string();
                        }
                    }
                }
            }
            MotionSource::Authored => {}
        }
    }
}

/// An error about the whole file, with no line and column.
fn at_start(file_label: &str, message: String) -> LevelError {
    LevelError {
        file: file_label.to_string(),
        line: 0,
        column: 0,
        field: String::new(),
        message,
    }
}

/// Why a file could not be read, in a few words ("no such file", "permission denied").
fn read_reason(e: &crate::file_read::FileReadError) -> String {
    use crate::file_read::FileReadError;
    use std::io::ErrorKind;
    match e {
        FileReadError::Io(io) if io.kind() == ErrorKind::NotFound => "no such file".to_string(),
        FileReadError::Io(io) if io.kind() == ErrorKind::PermissionDenied => {
            "permission denied".to_string()
        }
        other => other.to_string(),
    }
}

/// How a level file's text was stored, beyond the text itself, so a save writes it back the
/// same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextForm {
    /// It began with a UTF-8 byte-order mark (many Windows editors write one).
    pub bom: bool,
    /// Its lines end in a lone CR (classic Mac OS), with no LF anywhere.
    pub cr_only: bool,
}

const BOM: char = '\u{FEFF}';

impl TextForm {
    /// `text` (as [`read_level_text`] returns it) as the file held it.
    pub fn restore(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 3);
        if self.bom {
            out.push(BOM);
        }
        if self.cr_only {
            out.extend(text.chars().map(|c| if c == '\n' { '\r' } else { c }));
        } else {
            out.push_str(text);
        }
        out
    }
}

/// The text the parser reads and its form on disk: the byte-order mark dropped, and a lone CR
/// (one not followed by LF) made a LF, which keeps every byte offset and makes line comments
/// and positions follow the lines an editor shows.
pub fn normalize_level_text(raw: &str) -> (std::borrow::Cow<'_, str>, TextForm) {
    let (body, bom) = match raw.strip_prefix(BOM) {
        Some(rest) => (rest, true),
        None => (raw, false),
    };
    let bytes = body.as_bytes();
    let lone_cr = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    let has_lone_cr = (0..bytes.len()).any(lone_cr);
    let form = TextForm {
        bom,
        cr_only: has_lone_cr && !bytes.contains(&b'\n'),
    };
    if !has_lone_cr {
        return (std::borrow::Cow::Borrowed(body), form);
    }
    let mut out = bytes.to_vec();
    for (i, b) in out.iter_mut().enumerate() {
        if *b == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            *b = b'\n';
        }
    }
    // A CR byte never belongs to a multi-byte character, so the text stays UTF-8.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (std::borrow::Cow::Owned(text), form)
}

/// The text of a level file: a regular file of at most [`MAX_LEVEL_BYTES`], in UTF-8 (a bad byte
/// is reported at its own line and column), normalised by [`normalize_level_text`].
pub fn read_level_text(path: &Path) -> Result<String, LevelError> {
    read_level_source(path).map(|(text, _)| text)
}

/// [`read_level_text`] and how the file stored it (byte-order mark, line ends).
pub fn read_level_source(path: &Path) -> Result<(String, TextForm), LevelError> {
    let label = path.display().to_string();
    let bytes = read_capped(path, MAX_LEVEL_BYTES)
        .map_err(|e| at_start(&label, format!("cannot read: {}", read_reason(&e))))?;
    let raw = String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let good = e.utf8_error().valid_up_to();
        // Everything before the bad byte is valid UTF-8, so it can be counted in characters.
        let before = std::str::from_utf8(&bytes[..good]).unwrap_or_default();
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        LevelError {
            file: label.clone(),
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            field: String::new(),
            message: format!(
                "byte 0x{:02X} is not UTF-8 text; level files are UTF-8",
                bytes[good]
            ),
        }
    })?;
    let (text, form) = normalize_level_text(&raw);
    Ok((text.into_owned(), form))
}

/// Reads, parses and validates a level file; model paths are found next to it first, then in
/// `asset_root`.
pub fn load_level(path: &Path, asset_root: &Path) -> Result<Level, LevelError> {
    let source = read_level_text(path)?;
    let places = Places::for_file(path, asset_root);
    parse_level_in(&source, &path.display().to_string(), &places)
}

/// What the watcher last saw of the file: its stamp and a hash of its text, or why it could
/// not be read. Any difference is a change, so an edit that keeps the size and the
/// modification time (`cp -p`, `rsync -t`) is still noticed.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Text {
        stamp: Option<(SystemTime, u64)>,
        hash: u64,
    },
    Unreadable(String),
}

/// Notices edits of a level file and loads them. Each poll reads the file (capped, regular
/// files only: a FIFO swapped in is an error, never a wait) and compares it with the last read.
pub struct LevelWatcher {
    path: PathBuf,
    asset_root: PathBuf,
    seen: Seen,
    /// The text of the last read that parsed, for the in-game editor's patches.
    good_text: Option<String>,
}

impl LevelWatcher {
    pub fn new(path: &Path, asset_root: &Path) -> Self {
        LevelWatcher {
            path: path.to_path_buf(),
            asset_root: asset_root.to_path_buf(),
            seen: Self::look(path).0,
            good_text: read_level_text(path).ok(),
        }
    }

    fn stamp_of(path: &Path) -> Option<(SystemTime, u64)> {
        let m = std::fs::metadata(path).ok()?;
        Some((m.modified().ok()?, m.len()))
    }

    fn look(path: &Path) -> (Seen, Result<String, LevelError>) {
        let stamp = Self::stamp_of(path);
        let text = read_level_text(path);
        let seen = match &text {
            Ok(t) => {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                t.hash(&mut h);
                Seen::Text {
                    stamp,
                    hash: h.finish(),
                }
            }
            Err(e) => Seen::Unreadable(e.to_string()),
        };
        (seen, text)
    }

    /// The reloaded level (or why it is broken) when the file changed since the last poll.
    pub fn poll(&mut self) -> Option<Result<Level, LevelError>> {
        let (seen, text) = Self::look(&self.path);
        if seen == self.seen {
            return None;
        }
        self.seen = seen;
        let label = self.path.display().to_string();
        let places = Places::for_file(&self.path, &self.asset_root);
        Some(text.and_then(|t| {
            let level = parse_level_in(&t, &label, &places)?;
            self.good_text = Some(t);
            Ok(level)
        }))
    }

    /// The text of the level last loaded (at start or by a poll).
    pub fn good_text(&self) -> Option<&str> {
        self.good_text.as_deref()
    }

    /// Takes `text`, just written by the game itself, as seen: the next poll does not load it
    /// again as an outside change.
    pub fn own_write(&mut self, text: String) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        self.seen = Seen::Text {
            stamp: Self::stamp_of(&self.path),
            hash: h.finish(),
        };
        self.good_text = Some(text);
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

//! One editing session of a level file in the game: drags and turns applied to the running
//! level, undo and redo, and the save that patches the designer's text in place (with a
//! backup), refused when the file changed on disk since it was loaded.

use std::path::{Path, PathBuf};

use glam::Vec2;

use crate::files::replace_in_place;
use crate::level::validate::RouteCheck;
use crate::level::{read_level_source, validate, Level};

use super::element::Element;
use super::patch::{changed_numbers, patch_level_text};
use super::placed_text::{placed_changes, write_placed};

/// A drag in progress: what moves, where its handle was grabbed, and the level as it would be.
#[derive(Debug, Clone)]
struct Drag {
    element: Element,
    /// Handle minus the ground point grabbed, so the handle does not jump to the pointer.
    offset: Vec2,
    /// Where the handle stood when grabbed.
    from: Vec2,
    /// What moves with it (a bench's seats) and where each stood when grabbed.
    companions: Vec<(Element, Vec2)>,
    preview: Level,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq)]
pub enum EditOutcome {
    /// Nothing changed.
    None,
    /// Apply this level to the game (like a hot reload).
    Apply(Box<Level>),
    /// The edit would break the level: this says why; the game keeps its level.
    Refused(String),
}

/// What the edit-mode keys ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EditCommand {
    /// Ctrl+S.
    Save,
    /// Ctrl+Z.
    Undo,
    /// Ctrl+Y or Ctrl+Shift+Z.
    Redo,
    /// R turns the selected box counter-clockwise (seen from above), Shift+R clockwise.
    Rotate(f32),
}

/// Degrees one press of R turns a box.
pub const ROTATE_STEP_DEG: f32 = 15.0;

/// A finished save.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    /// Numbers written (with `placed_changes` 0: nothing moved, nothing written).
    pub numbers: usize,
    /// Placed things added, removed, moved or turned.
    pub placed_changes: usize,
    /// The file's text now, for the hot-reload watcher to take as its own.
    pub text: String,
    pub backup: PathBuf,
}

pub struct Editor {
    path: PathBuf,
    asset_root: PathBuf,
    /// The file's text as last loaded or saved.
    base_text: String,
    /// The level that text holds.
    base_level: Level,
    undo: Vec<Level>,
    redo: Vec<Level>,
    drag: Option<Drag>,
    /// The element last grabbed: R turns it.
    pub selected: Option<Element>,
    /// The checks over the crowd's route grid (an exit walled off), which this module cannot
    /// make itself; none when the session was made without them.
    route_check: Option<RouteCheck>,
}

/// `plaza.ron` → `plaza.ron.bak`, beside it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

impl Editor {
    /// A session on `path`, whose text `text` holds `level`; models are checked relative to
    /// `asset_root` when an edit is validated.
    pub fn new(path: &Path, asset_root: &Path, text: String, level: Level) -> Editor {
        Editor {
            path: path.to_path_buf(),
            asset_root: asset_root.to_path_buf(),
            base_text: text,
            base_level: level,
            undo: Vec::new(),
            redo: Vec::new(),
            drag: None,
            selected: None,
            route_check: None,
        }
    }

    /// Also refuses an edit that the route checks (`level_routes::unreachable_exits`) find a
    /// new fault in: an exit dragged behind a wall, an obstacle dragged across the only way to
    /// one. Faults the level already had do not block other edits.
    pub fn with_route_check(mut self, check: RouteCheck) -> Editor {
        self.route_check = Some(check);
        self
    }

    /// The file was changed outside the game and loaded: it is the new base, and the session's
    /// history (made against the old text) is dropped.
    pub fn file_reloaded(&mut self, text: String, level: Level) {
        self.base_text = text;
        self.base_level = level;
        self.undo.clear();
        self.redo.clear();
        self.drag = None;
    }

    /// The running level differs from the file.
    pub fn unsaved(&self, current: &Level) -> bool {
        self.base_level.placed != current.placed
            || changed_numbers(&self.base_level, current).map_or(true, |c| !c.is_empty())
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Grabs a movable element at ground point `at`; false for one that does not move.
    pub fn begin_drag(&mut self, element: Element, at: Vec2, current: &Level) -> bool {
        let Some(anchor) = element.anchor(current).filter(|_| element.movable()) else {
            return false;
        };
        self.selected = Some(element);
        self.drag = Some(Drag {
            element,
            offset: anchor - at,
            from: anchor,
            companions: element.companion_places(current),
            preview: current.clone(),
        });
        true
    }

    /// The grabbed element follows the pointer's ground point, and what belongs to it (a
    /// bench's seats) follows the element: one edit, undone and saved together.
    pub fn drag_to(&mut self, at: Vec2) {
        if let Some(d) = &mut self.drag {
            let to = at + d.offset;
            d.element
                .move_with(&mut d.preview, to, d.from, &d.companions);
        }
    }

    /// The level as the drag in progress would leave it.
    pub fn preview(&self) -> Option<&Level> {
        self.drag.as_ref().map(|d| &d.preview)
    }

    pub fn dragging(&self) -> Option<Element> {
        self.drag.as_ref().map(|d| d.element)
    }

    /// Drops a drag in progress (edit mode was switched off): nothing moves.
    pub fn cancel_drag(&mut self) {
        self.drag = None;
    }

    /// Lets go: the moved level, when it moved and is still a valid level.
    pub fn end_drag(&mut self, current: &Level) -> EditOutcome {
        match self.drag.take() {
            Some(d) => self.commit(d.element, d.preview, current),
            None => EditOutcome::None,
        }
    }

    /// Turns the selected box obstacle by `degrees`.
    pub fn rotate_selected(&mut self, degrees: f32, current: &Level) -> EditOutcome {
        let Some(element) = self.selected else {
            return EditOutcome::Refused("select a box obstacle first (drag it)".to_string());
        };
        let mut next = current.clone();
        if !element.rotate(&mut next, degrees) {
            return EditOutcome::Refused(format!(
                "{} is not a box: only boxes turn",
                element.name(current)
            ));
        }
        self.commit(element, next, current)
    }

    fn commit(&mut self, element: Element, next: Level, current: &Level) -> EditOutcome {
        if next == *current {
            return EditOutcome::None;
        }
        let places = crate::level::paths::Places::for_file(&self.path, &self.asset_root);
        let mut fault = validate::validate(&next, &places).err();
        if let (None, Some(check)) = (&fault, self.route_check) {
            let before = check(current);
            fault = check(&next).into_iter().find(|f| !before.contains(f));
        }
        if let Some(f) = fault {
            return EditOutcome::Refused(format!(
                "{} stays where it was: {}: {}",
                element.name(current),
                f.field,
                f.message
            ));
        }
        self.undo.push(current.clone());
        self.redo.clear();
        EditOutcome::Apply(Box::new(next))
    }

    /// An edit made outside the session (the build toolbar placing, moving, turning or removing
    /// a thing) goes on the same undo stack as drags: `before` is the level as it was, and
    /// Ctrl+Z gives it back. The redo stack is dropped, as after any new edit.
    pub fn record(&mut self, before: Level) {
        self.undo.push(before);
        self.redo.clear();
    }

    /// The level before the last edit (Ctrl+Z).
    pub fn undo(&mut self, current: &Level) -> Option<Level> {
        let back = self.undo.pop()?;
        self.redo.push(current.clone());
        Some(back)
    }

    /// The edit last undone (Ctrl+Y).
    pub fn redo(&mut self, current: &Level) -> Option<Level> {
        let again = self.redo.pop()?;
        self.undo.push(current.clone());
        Some(again)
    }

    /// Writes the numbers that moved and the placed things that changed (`placed_text`: new
    /// ones appended, removed ones cut out, moved ones' numbers rewritten) into the file, in
    /// place, after copying the file as it was to `NAME.bak`. Refused (nothing written) when
    /// the file changed on disk since it was loaded or saved, or when the patched text would
    /// not load as `current`.
    ///
    /// The file is written the way an editor would: through a symbolic link to the file it
    /// names, keeping its permissions and owner, with its byte-order mark and line ends, and
    /// never over a read-only file (see `files::replace_in_place`). The backup sits beside the
    /// file itself.
    pub fn save(&mut self, current: &Level) -> Result<Saved, String> {
        let label = crate::shown::shown_path(&self.path);
        let (disk, form) = read_level_source(&self.path).map_err(|e| format!("not saved: {e}"))?;
        if disk != self.base_text {
            return Err(format!(
                "{label} changed on disk since it was loaded: not saved (your edits stay in \
                 the game; undo them to take the file's version)"
            ));
        }
        let real =
            std::fs::canonicalize(&self.path).map_err(|e| format!("{label}: not saved: {e}"))?;
        let backup = backup_path(&real);
        let not_saved = |e: String| format!("{label}: not saved: {e}");
        let placed_changes = placed_changes(&self.base_level.placed, &current.placed);
        // The placed list first: number patching finds the other fields by path, which the
        // list's entries do not change.
        let placed_text = if placed_changes == 0 {
            self.base_text.clone()
        } else {
            write_placed(&self.base_text, &self.base_level.placed, &current.placed)
                .map_err(not_saved)?
        };
        let (text, numbers) =
            patch_level_text(&placed_text, &self.base_level, current).map_err(not_saved)?;
        if numbers == 0 && placed_changes == 0 {
            return Ok(Saved {
                numbers,
                placed_changes,
                text,
                backup,
            });
        }
        // Written only if it reads back as the level on screen.
        let reads_back = ron::from_str::<Level>(&text).ok().is_some_and(|l| {
            l.placed == current.placed && changed_numbers(&l, current).is_ok_and(|c| c.is_empty())
        });
        if !reads_back {
            return Err(format!(
                "{label}: not saved: the patched text would not load as the edited level"
            ));
        }
        let old = form.restore(&self.base_text);
        replace_in_place(
            &self.path,
            form.restore(&text).as_bytes(),
            Some((&backup, old.as_bytes())),
        )
        .map_err(|e| format!("not saved: {e}"))?;
        self.base_text = text.clone();
        self.base_level = current.clone();
        Ok(Saved {
            numbers,
            placed_changes,
            text,
            backup,
        })
    }
}

//! Editing a level in the game without losing the designer's file: the level's elements (names,
//! kinds, field paths, handles: `element.rs`), the text patcher that writes only the numbers
//! that moved, in place (`patch.rs`), the writer of the build toolbar's `placed` list
//! (`placed_text.rs`: moved things' numbers, removed entries, new ones appended), and the
//! session with drags, undo/redo and the guarded save with a backup (`session.rs`). Plain data:
//! the window shell feeds it pointer positions on the ground and keys.
pub mod element;
pub mod patch;
pub mod placed_text;
pub mod session;

pub use element::Element;
pub use session::{EditCommand, EditOutcome, Editor, Saved, ROTATE_STEP_DEG};

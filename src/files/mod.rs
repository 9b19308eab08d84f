//! Writing files. Every file the project writes (benchmark CSV and plot, bake outputs,
//! screenshots, `--stats-out` reports) goes through [`write_atomic`] or its streaming and staged
//! forms, so a reader never sees half a file, a failed write leaves nothing behind, two writers
//! into one folder never share a temporary file, and a planted link is never followed.

mod atomic;
mod out_dir;
mod screen_image;

pub use atomic::{
    check_writable_dir, replace_in_place, stage, write_atomic, write_atomic_with, write_set,
    Replaced, StagedFile, WriteError, TEMP_MARKER,
};
pub use out_dir::prepare_out_dir;
pub use screen_image::{encode_screen_image, ScreenImageFormat};

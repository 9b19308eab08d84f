//! The game's recordings (`game::measuring`) written by the same recorder as `throng record`,
//! into `recordings/` beside the working directory, named after the level.

use std::path::{Path, PathBuf};

use glam::Vec2;

use super::recorder::TrajectoryRecorder;
use crate::game::measuring::{TrajectorySink, RECORD_FPS};
use crate::level::Level;

impl TrajectorySink for TrajectoryRecorder {
    fn write_frame(
        &mut self,
        frame: u64,
        ids: &[u32],
        pos: &[Vec2],
        heading: &[f32],
    ) -> Result<(), String> {
        self.record_frame(frame, ids, pos, heading)
    }

    fn finish(self: Box<Self>) -> Result<String, String> {
        let r = TrajectoryRecorder::finish(*self)?;
        Ok(super::run::summary(&r, r.frames as f64 / r.fps))
    }
}

/// The first free `DIR/STEM-NNN.sqlite` (001 up): a new recording never replaces an old one.
pub fn next_recording_path(dir: &Path, level_file: &str) -> Result<PathBuf, String> {
    let stem = Path::new(level_file)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "level".to_string());
    for n in 1..10_000 {
        let path = dir.join(format!("{stem}-{n:03}.sqlite"));
        if !path.exists() {
            return Ok(path);
        }
    }
    Err(format!(
        "{}: 9,999 recordings of {stem} already; move some away",
        dir.display()
    ))
}

/// A recorder for the running level in `dir` (created if missing), and its path.
pub fn start_in(
    dir: &Path,
    level_file: &str,
    level: &Level,
) -> Result<(TrajectoryRecorder, PathBuf), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
    let path = next_recording_path(dir, level_file)?;
    let recorder = TrajectoryRecorder::new(&path, RECORD_FPS, level)?;
    Ok((recorder, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_are_numbered_and_never_replace_an_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let first = next_recording_path(dir.path(), "levels/plaza.ron").unwrap();
        assert_eq!(first, dir.path().join("plaza-001.sqlite"));
        std::fs::write(&first, b"x").unwrap();
        let second = next_recording_path(dir.path(), "levels/plaza.ron").unwrap();
        assert_eq!(second, dir.path().join("plaza-002.sqlite"));
    }
}

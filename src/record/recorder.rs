//! `TrajectoryRecorder`: a recording started on a level, fed one frame at a time and finished
//! into a valid file whenever it is stopped. The file is written to a temporary name in the
//! same folder and renamed over the final one by `finish`, so the final name never holds half a
//! recording; a recorder dropped without `finish` removes its temporary file.

use std::path::{Path, PathBuf};

use glam::Vec2;

use super::{sqlite::SqliteWriter, text::TextWriter};
use crate::crowd::grid::PARKED;
use crate::level::Level;

/// Which file a path asks for, by its extension (any case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JuPedSim's trajectory SQLite, version 2.
    Sqlite,
    /// PedPy's text: `# framerate:` header, then `id frame x y` rows.
    Text,
}

impl Format {
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "sqlite" => Some(Format::Sqlite),
            "txt" => Some(Format::Text),
            _ => None,
        }
    }
}

/// One written position: 1-based id, (x, z) as the file's (x, y), the heading as a unit vector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub id: u32,
    pub pos: Vec2,
    pub ori: Vec2,
}

enum Writer {
    Sqlite(SqliteWriter),
    Text(TextWriter),
}

/// What a finished recording holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub path: PathBuf,
    /// Distinct people written at least once.
    pub people: usize,
    pub frames: u64,
    pub rows: u64,
    pub fps: f64,
    pub bytes: u64,
}

pub struct TrajectoryRecorder {
    path: PathBuf,
    temp: PathBuf,
    fps: f64,
    writer: Option<Writer>,
    frames: u64,
    rows: u64,
    seen: Vec<bool>,
    /// (min, max) of the positions written.
    extent: Option<(Vec2, Vec2)>,
    row_buf: Vec<Row>,
}

/// The heading the crowd keeps (0 faces -z, turning toward -x) as a unit vector in (x, z).
pub fn heading_vector(heading: f32) -> Vec2 {
    Vec2::new(-heading.sin(), -heading.cos())
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.record-tmp-{}", std::process::id()))
}

impl TrajectoryRecorder {
    /// Starts a recording to `path` (`.sqlite` or `.txt`) at `fps` frames per second of
    /// simulated time; the level gives the walkable area (SQLite) and the fallback extent.
    pub fn new(path: &Path, fps: f64, level: &Level) -> Result<TrajectoryRecorder, String> {
        let format = Format::from_path(path).ok_or_else(|| {
            format!(
                "{}: not a trajectory file name; allowed: a name ending in .sqlite or .txt",
                path.display()
            )
        })?;
        let temp = temp_path(path);
        let _ = std::fs::remove_file(&temp);
        let writer = match format {
            Format::Sqlite => Writer::Sqlite(SqliteWriter::create(&temp, fps, level)?),
            Format::Text => Writer::Text(TextWriter::create(&temp, fps)?),
        };
        Ok(TrajectoryRecorder {
            path: path.to_path_buf(),
            temp,
            fps,
            writer: Some(writer),
            frames: 0,
            rows: 0,
            seen: Vec::new(),
            extent: None,
            row_buf: Vec::new(),
        })
    }

    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Writes one frame: person `i` of the slices is id `ids[i]` (1-based) at `pos[i]` (game
    /// x, z) heading `heading[i]` (the crowd's angle). People parked outside (evacuated, at
    /// `grid::PARKED`) and positions that are not finite are left out. Frames are numbered by
    /// the caller, 0, 1, 2, ... at the recording's fps.
    pub fn record_frame(
        &mut self,
        frame: u64,
        ids: &[u32],
        pos: &[Vec2],
        heading: &[f32],
    ) -> Result<(), String> {
        let mut rows = std::mem::take(&mut self.row_buf);
        rows.clear();
        for ((&id, &p), &h) in ids.iter().zip(pos).zip(heading) {
            if p == PARKED || !p.is_finite() {
                continue;
            }
            rows.push(Row {
                id,
                pos: p,
                ori: heading_vector(h),
            });
            let slot = id as usize;
            if self.seen.len() <= slot {
                self.seen.resize(slot + 1, false);
            }
            self.seen[slot] = true;
            self.extent = Some(match self.extent {
                None => (p, p),
                Some((lo, hi)) => (lo.min(p), hi.max(p)),
            });
        }
        let result = match self.writer.as_mut() {
            Some(Writer::Sqlite(w)) => w.frame(frame, &rows),
            Some(Writer::Text(w)) => w.frame(frame, &rows),
            None => Err("the recording is already finished".to_string()),
        };
        self.rows += rows.len() as u64;
        self.frames += 1;
        self.row_buf = rows;
        result
    }

    /// Every person of a crowd, ids 1 to N in the crowd's order.
    pub fn record_crowd(&mut self, frame: u64, crowd: &crate::crowd::Crowd) -> Result<(), String> {
        let (pos, heading) = crowd.drawn_poses();
        let ids: Vec<u32> = (1..=pos.len() as u32).collect();
        self.record_frame(frame, &ids, pos, heading)
    }

    /// Closes the file and renames it to its final name; a recording stopped at any frame is a
    /// whole file.
    pub fn finish(mut self) -> Result<Recorded, String> {
        let extent = self.extent;
        let result = match self.writer.take() {
            Some(Writer::Sqlite(w)) => w.finish(extent),
            Some(Writer::Text(w)) => w.finish(),
            None => Err("the recording is already finished".to_string()),
        };
        let fail = |e: String, temp: &Path| {
            let _ = std::fs::remove_file(temp);
            e
        };
        result.map_err(|e| fail(e, &self.temp))?;
        std::fs::rename(&self.temp, &self.path).map_err(|e| {
            fail(
                format!(
                    "{}: cannot rename the recording into place: {e}",
                    self.path.display()
                ),
                &self.temp,
            )
        })?;
        let bytes = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        Ok(Recorded {
            path: self.path.clone(),
            people: self.seen.iter().filter(|&&s| s).count(),
            frames: self.frames,
            rows: self.rows,
            fps: self.fps,
            bytes,
        })
    }
}

impl Drop for TrajectoryRecorder {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            // Never finished: the final name is left as it was.
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::{find_asset_root, load_level};

    fn level() -> Level {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/levels/minimal.ron");
        load_level(&path, &find_asset_root(&path)).expect("level")
    }

    #[test]
    fn a_recording_stopped_early_is_whole_and_parked_people_are_left_out() {
        let dir = tempfile::tempdir().expect("temp dir");
        let level = level();
        for name in ["early.sqlite", "early.txt"] {
            let path = dir.path().join(name);
            let mut rec = TrajectoryRecorder::new(&path, 30.0, &level).expect("start");
            assert!(!path.exists(), "only the temporary file while recording");
            let pos = [Vec2::new(1.0, 2.0), PARKED, Vec2::new(-3.0, 4.0)];
            for frame in 0..3 {
                rec.record_frame(frame, &[1, 2, 3], &pos, &[0.0, 0.0, 0.0])
                    .expect("frame");
            }
            let done = rec.finish().expect("finish");
            assert_eq!((done.people, done.frames, done.rows), (2, 3, 6), "{name}");
            assert_eq!(done.bytes, std::fs::metadata(&path).unwrap().len());
        }
        let db = rusqlite::Connection::open(dir.path().join("early.sqlite")).unwrap();
        let (n, xmin, ymax, ori_y): (i64, String, String, f64) = db
            .query_row(
                "SELECT (SELECT COUNT(*) FROM trajectory_data WHERE id = 2), \
                 (SELECT value FROM metadata WHERE key = 'xmin'), \
                 (SELECT value FROM metadata WHERE key = 'ymax'), \
                 (SELECT ori_y FROM trajectory_data LIMIT 1)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        // Heading 0 faces -z: the file's -y.
        assert_eq!(
            (n, xmin.as_str(), ymax.as_str(), ori_y),
            (0, "-3.0", "4.0", -1.0)
        );
        let text = std::fs::read_to_string(dir.path().join("early.txt")).unwrap();
        assert!(
            text.starts_with("# framerate: 30.0\n# x/m y/m\n# ID FRAME X Y\n1 0 1 2\n3 0 -3 4\n")
        );

        // Dropped unfinished: nothing left behind, the final name untouched.
        let path = dir.path().join("dropped.sqlite");
        drop(TrajectoryRecorder::new(&path, 60.0, &level).expect("start"));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}

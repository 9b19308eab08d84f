//! JuPedSim's trajectory SQLite, format version 2, as PedPy 1.5 reads it:
//! `trajectory_data(frame, id, pos_x, pos_y, ori_x, ori_y)`, `metadata(key, value)` with
//! `version` 2, `fps` and the positions' `xmin`/`xmax`/`ymin`/`ymax`, `geometry(hash, wkt)` with
//! the walkable area and `frame_data(frame, geometry_hash)` naming each frame's geometry.
//!
//! The file is a fresh temporary one, renamed into place by the recorder, so SQLite's journal
//! and syncs are off while writing; rows go in one transaction per `FRAMES_PER_TRANSACTION`
//! frames, and the whole file is synced once at the end.

use std::path::{Path, PathBuf};

use glam::Vec2;
use rusqlite::{params, Connection};

use super::recorder::Row;
use super::walkable::{walkable_wkt, wkt_hash};
use crate::level::Level;

/// Frames written per transaction.
pub const FRAMES_PER_TRANSACTION: u64 = 60;

const SCHEMA: &str = "
CREATE TABLE trajectory_data (
    frame INTEGER NOT NULL,
    id INTEGER NOT NULL,
    pos_x REAL NOT NULL,
    pos_y REAL NOT NULL,
    ori_x REAL NOT NULL,
    ori_y REAL NOT NULL);
CREATE TABLE metadata (key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE geometry (hash INTEGER NOT NULL, wkt TEXT NOT NULL);
CREATE TABLE frame_data (frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);
";

pub struct SqliteWriter {
    path: PathBuf,
    conn: Connection,
    geometry_hash: i64,
    /// Frames in the open transaction.
    pending: u64,
    level_bounds: (Vec2, Vec2),
}

impl SqliteWriter {
    pub fn create(path: &Path, fps: f64, level: &Level) -> Result<SqliteWriter, String> {
        let err = |e: rusqlite::Error| format!("{}: {e}", path.display());
        let conn = Connection::open(path).map_err(err)?;
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        let wkt = walkable_wkt(level);
        let geometry_hash = wkt_hash(&wkt);
        conn.execute(
            "INSERT INTO geometry (hash, wkt) VALUES (?1, ?2)",
            params![geometry_hash, wkt],
        )
        .map_err(err)?;
        for (key, value) in [("version", "2".to_string()), ("fps", format!("{fps:?}"))] {
            conn.execute(
                "INSERT INTO metadata (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map_err(err)?;
        }
        Ok(SqliteWriter {
            path: path.to_path_buf(),
            conn,
            geometry_hash,
            pending: 0,
            level_bounds: (level.bounds.min, level.bounds.max),
        })
    }

    fn err(&self, e: rusqlite::Error) -> String {
        format!("{}: {e}", self.path.display())
    }

    pub fn frame(&mut self, frame: u64, rows: &[Row]) -> Result<(), String> {
        if self.pending == 0 {
            self.conn.execute_batch("BEGIN").map_err(|e| self.err(e))?;
        }
        let written = (|| {
            let mut insert = self.conn.prepare_cached(
                "INSERT INTO trajectory_data (frame, id, pos_x, pos_y, ori_x, ori_y) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for r in rows {
                insert.execute(params![
                    frame as i64,
                    r.id as i64,
                    r.pos.x as f64,
                    r.pos.y as f64,
                    r.ori.x as f64,
                    r.ori.y as f64
                ])?;
            }
            self.conn
                .prepare_cached("INSERT INTO frame_data (frame, geometry_hash) VALUES (?1, ?2)")?
                .execute(params![frame as i64, self.geometry_hash])?;
            Ok(())
        })();
        written.map_err(|e: rusqlite::Error| self.err(e))?;
        self.pending += 1;
        if self.pending >= FRAMES_PER_TRANSACTION {
            self.conn.execute_batch("COMMIT").map_err(|e| self.err(e))?;
            self.pending = 0;
        }
        Ok(())
    }

    /// Commits what is open, writes the extent (the positions', else the level's bounds), the
    /// index, and syncs the file.
    pub fn finish(mut self, extent: Option<(Vec2, Vec2)>) -> Result<(), String> {
        if self.pending > 0 {
            self.conn.execute_batch("COMMIT").map_err(|e| self.err(e))?;
            self.pending = 0;
        }
        let (lo, hi) = extent.unwrap_or(self.level_bounds);
        let done = (|| {
            for (key, value) in [
                ("xmin", lo.x),
                ("xmax", hi.x),
                ("ymin", lo.y),
                ("ymax", hi.y),
            ] {
                self.conn.execute(
                    "INSERT INTO metadata (key, value) VALUES (?1, ?2)",
                    params![key, format!("{value:?}")],
                )?;
            }
            self.conn
                .execute_batch("CREATE INDEX frame_id_idx ON trajectory_data(frame, id);")?;
            Ok(())
        })();
        done.map_err(|e: rusqlite::Error| self.err(e))?;
        let path = self.path.clone();
        self.conn
            .close()
            .map_err(|(_, e)| format!("{}: {e}", path.display()))?;
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

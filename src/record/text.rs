//! PedPy's text trajectories (`load_trajectory_from_txt`): `#` header lines with the frame
//! rate and the unit, then one `id frame x y` row per person per frame, in metres.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::recorder::Row;

pub struct TextWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

fn io_err(path: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", path.display())
}

impl TextWriter {
    pub fn create(path: &Path, fps: f64) -> Result<TextWriter, String> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| io_err(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        write!(out, "# framerate: {fps:?}\n# x/m y/m\n# ID FRAME X Y\n")
            .map_err(|e| io_err(path, e))?;
        Ok(TextWriter {
            path: path.to_path_buf(),
            out,
        })
    }

    pub fn frame(&mut self, frame: u64, rows: &[Row]) -> Result<(), String> {
        for r in rows {
            writeln!(self.out, "{} {frame} {} {}", r.id, r.pos.x, r.pos.y)
                .map_err(|e| io_err(&self.path, e))?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<(), String> {
        self.out.flush().map_err(|e| io_err(&self.path, e))?;
        let file = self.out.get_ref();
        file.sync_all().map_err(|e| io_err(&self.path, e))
    }
}

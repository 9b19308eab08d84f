//! `throng record` options and their parsers: each error says what is allowed.

use std::path::PathBuf;

use clap::Args;

use super::recorder::Format;
use crate::arg_values::{parse_seed, parse_whole};
use crate::evacuate::args::{parse_people, parse_threads};

/// The longest recording `--seconds` allows: a simulated hour.
pub const MAX_SECONDS: f32 = 3_600.0;
/// The largest `--every`: one frame per second of the 60 Hz steps.
pub const MAX_EVERY: u64 = 60;

#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    /// Level file whose crowd is recorded.
    #[arg(value_name = "LEVEL")]
    pub level: PathBuf,
    /// Simulated seconds to record (more than 0, at most 3600); the crowd steps at 60 Hz.
    #[arg(long, value_name = "S", value_parser = parse_seconds, allow_hyphen_values = true)]
    pub seconds: f32,
    /// People in the level (1 to 1000000, and at most what the level holds: 5 per m² of free
    /// ground). [default: the level's crowd.count]
    #[arg(long, value_name = "N", value_parser = parse_people, allow_hyphen_values = true)]
    pub people: Option<u32>,
    /// Seed for the crowd. [default: the level's crowd.seed]
    #[arg(long, value_name = "S", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Write every K-th step (1 to 60): the file's frame rate is 60 / K.
    #[arg(
        long,
        value_name = "K",
        default_value = "1",
        value_parser = parse_every,
        allow_hyphen_values = true
    )]
    pub every: u32,
    /// The file to write: FILE.sqlite (JuPedSim trajectory format, version 2) or FILE.txt
    /// (PedPy's text format). Written to a temporary file beside it and renamed at the end.
    #[arg(long, value_name = "FILE", value_parser = parse_out)]
    pub out: PathBuf,
    /// Also write Throng's own readings of the level's measurement areas and lines over the run
    /// to FILE.json: whole-run mean density and speed per area, crossings each way and flows per
    /// line, and per-second series (README, "Recording trajectories").
    #[arg(long, value_name = "FILE", value_parser = parse_readings)]
    pub readings: Option<PathBuf>,
    /// Step the crowd on this many threads (1 to 64). [default: one per core]
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,
}

/// `--seconds`: more than 0 and at most `MAX_SECONDS`.
pub fn parse_seconds(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_SECONDS => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds; allowed: more than 0, at most {MAX_SECONDS}"
        )),
    }
}

/// `--every`: 1 to `MAX_EVERY`.
pub fn parse_every(s: &str) -> Result<u32, String> {
    parse_whole(s, 1, MAX_EVERY).map(|n| n as u32)
}

/// `--out`: a path ending in `.sqlite` or `.txt`.
pub fn parse_out(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match Format::from_path(&path) {
        Some(_) => Ok(path),
        None => Err(format!(
            "`{s}` is not a trajectory file name; allowed: a name ending in .sqlite (JuPedSim) \
             or .txt (PedPy text)"
        )),
    }
}

/// `--readings`: a path ending in `.json`.
pub fn parse_readings(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    let json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        Ok(path)
    } else {
        Err(format!(
            "`{s}` is not a readings file name; allowed: a name ending in .json"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_and_bad_ones_say_what_is_allowed() {
        assert_eq!(parse_seconds("2.5"), Ok(2.5));
        for bad in ["0", "-1", "nan", "4000", "long"] {
            assert!(
                parse_seconds(bad)
                    .unwrap_err()
                    .ends_with("allowed: more than 0, at most 3600"),
                "{bad}"
            );
        }
        assert_eq!(parse_every("3"), Ok(3));
        assert_eq!(
            parse_every("0").unwrap_err(),
            "`0` is out of range; allowed: 1 to 60"
        );
        assert!(parse_out("a/b.sqlite").is_ok());
        assert!(parse_out("b.TXT").is_ok());
        assert!(parse_out("b.csv")
            .unwrap_err()
            .contains("allowed: a name ending in .sqlite"));
        assert!(parse_out("sqlite").is_err());
        assert!(parse_readings("a/r.JSON").is_ok());
        assert_eq!(
            parse_readings("r.txt").unwrap_err(),
            "`r.txt` is not a readings file name; allowed: a name ending in .json"
        );
    }
}

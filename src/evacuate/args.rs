//! `throng evacuate` options and their parsers: each error says what is allowed.

use std::path::PathBuf;

use clap::Args;
use glam::Vec2;

use crate::arg_values::{parse_seed, parse_whole, MAX_CROWD};

/// The longest drill `--limit` allows: a simulated day.
pub const MAX_LIMIT_SECONDS: f32 = 86_400.0;
/// The most threads `--threads` allows (the crowd's own pool cap).
pub const MAX_THREADS: u64 = 64;

#[derive(Debug, Clone, Args)]
pub struct EvacuateArgs {
    /// Level file to evacuate.
    #[arg(value_name = "LEVEL")]
    pub level: PathBuf,
    /// People in the level (1 to 1000000, and at most what the level holds: 5 per m² of free
    /// ground). [default: the level's crowd.count]
    #[arg(long, value_name = "N", value_parser = parse_people, allow_hyphen_values = true)]
    pub people: Option<u32>,
    /// Seed for the crowd. [default: the level's crowd.seed]
    #[arg(long, value_name = "S", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Raise a local alarm at this point (metres, inside the level's bounds), heard as the
    /// level's `crowd.behaviour.alarm` says: within its hearing radius (shorter past walls);
    /// everyone else learns only by seeing people flee, or never. Without it the drill's alarm
    /// sounds and everyone hears it at once, wherever they are, and moves after their own
    /// pre-movement time; it is placed at the level's earliest timed alarm (`alarms`), else at
    /// the middle of its spawn zones.
    #[arg(long, value_name = "X,Z", value_parser = parse_point, allow_hyphen_values = true)]
    pub alarm: Option<Vec2>,
    /// Folder for evacuation.csv, evacuation.md and evacuation.png (created if missing).
    #[arg(long, value_name = "DIR", default_value = "evacuate-out")]
    pub out: PathBuf,
    /// Simulated seconds after the alarm to wait for everyone to get out (more than 0, at most
    /// 86400).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value = "600",
        value_parser = parse_limit,
        allow_hyphen_values = true
    )]
    pub limit: f32,
    /// Step the crowd on this many threads (1 to 64). [default: one per core]
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,
}

/// `--people`: 1 to `MAX_CROWD` (an evacuation of nobody measures nothing).
pub fn parse_people(s: &str) -> Result<u32, String> {
    parse_whole(s, 1, MAX_CROWD as u64).map(|n| n as u32)
}

/// `--alarm X,Z`: two finite numbers (metres).
pub fn parse_point(s: &str) -> Result<Vec2, String> {
    let bad = || format!("`{s}` is not a point; allowed: X,Z in metres, e.g. 0,-12.5");
    let (x, z) = s.split_once(',').ok_or_else(bad)?;
    let number = |v: &str| v.trim().parse::<f32>().ok().filter(|v| v.is_finite());
    match (number(x), number(z)) {
        (Some(x), Some(z)) => Ok(Vec2::new(x, z)),
        _ => Err(bad()),
    }
}

/// `--limit`: simulated seconds, more than 0 and at most `MAX_LIMIT_SECONDS`.
pub fn parse_limit(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_LIMIT_SECONDS => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds; allowed: more than 0, at most {MAX_LIMIT_SECONDS}"
        )),
    }
}

/// `--threads`: 1 to `MAX_THREADS`.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    parse_whole(s, 1, MAX_THREADS).map(|n| n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_and_bad_ones_say_what_is_allowed() {
        assert_eq!(parse_people("100"), Ok(100));
        assert_eq!(
            parse_people("abc").unwrap_err(),
            "`abc` is not a whole number; allowed: 1 to 1000000"
        );
        assert_eq!(
            parse_people("0").unwrap_err(),
            "`0` is out of range; allowed: 1 to 1000000"
        );
        assert_eq!(parse_point("1.5,-2"), Ok(Vec2::new(1.5, -2.0)));
        assert_eq!(parse_point(" 0 , 3 "), Ok(Vec2::new(0.0, 3.0)));
        for bad in ["1", "1,", "a,b", "1,2,3", "nan,0", "inf,1"] {
            assert_eq!(
                parse_point(bad).unwrap_err(),
                format!("`{bad}` is not a point; allowed: X,Z in metres, e.g. 0,-12.5"),
            );
        }
        assert_eq!(parse_limit("600"), Ok(600.0));
        for bad in ["0", "-1", "nan", "1e9", "soon"] {
            assert!(
                parse_limit(bad)
                    .unwrap_err()
                    .ends_with("allowed: more than 0, at most 86400"),
                "{bad}"
            );
        }
        assert_eq!(parse_threads("2"), Ok(2));
        assert!(parse_threads("0").unwrap_err().contains("allowed: 1 to 64"));
    }
}

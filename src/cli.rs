//! Command-line interface: parsing and validating every value before any work starts.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::files::{check_writable_dir, ScreenImageFormat};

pub use crate::level::find_asset_root;

pub use crate::arg_values::{
    parse_frames, parse_seed, parse_size, parse_uniform_vectors, parse_whole, WindowSize,
    MAX_CROWD, MIN_UNIFORM_VECTORS,
};

#[derive(Debug, Parser)]
#[command(
    name = "throng",
    version,
    about = "A crowd-simulation sandbox: thousands of animated people in a plaza.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub play: PlayArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a level (the default when no subcommand is given).
    Play(PlayArgs),
    /// Measure frame times over a fixed camera path for several crowd sizes and render modes;
    /// writes bench.csv, bench.json (commit, date, CPU, renderer, level, seed), bench.png and a
    /// table, after printing an estimate of how long it will take.
    Bench(crate::bench::args::BenchArgs),
    /// Print what a model holds (nodes, meshes, skins, clips, morphs, materials, VRM
    /// expressions), or with --pose the posed vertices and joint matrices as JSON.
    Inspect(crate::tools::inspect::InspectArgs),
    /// Bake skeletal clips into vertex animation textures (EXR or PNG) plus a JSON manifest.
    Bake(crate::tools::vat::cli::BakeArgs),
    /// Validate the crowd like a pedestrian simulator (fundamental diagram, bottleneck flows,
    /// lanes, corner, evacuation): writes validate.csv, validate.md and plots; exits 1 when a
    /// target is missed.
    Validate(crate::validate::cli::ValidateArgs),
    /// Check level files without a window: one line per problem (`file:line:col: field:
    /// message; allowed: ...`), exit status 1 when any has an error. Also warns (status stays 0)
    /// about settings that will be slow: more people than the frame budget steps or the free
    /// ground holds comfortably, LOD distances that draw everyone at full detail.
    Check(CheckArgs),
    /// Run an evacuation drill headless: spawn the crowd, let it settle 5 s, sound the alarm
    /// (without --alarm, heard by everyone at once) and step until everyone is out or the
    /// limit passes; writes evacuation.csv (people through and flow per exit, every second),
    /// evacuation.md (times, exits, worst density, who was left inside and where, the step
    /// cost) and evacuation.png (flow per exit). The last line of stdout is the summary; exit
    /// status 1 when someone never got out, 2 for a bad value or level file.
    Evacuate(crate::evacuate::EvacuateArgs),
    /// Run a level's crowd headless for --seconds at 60 Hz and write the trajectories (every
    /// --every-th step, people who left the level omitted) as FILE.sqlite (JuPedSim's format,
    /// version 2, with the walkable area) or FILE.txt (PedPy's text format), for PedPy and
    /// JuPedSim tools; the level's timed alarms sound at their times, and --readings writes
    /// Throng's own measurements of the run. The last line of stdout is the summary; exit
    /// status 2 for a bad value or level file, 1 when a file cannot be written.
    #[cfg(not(target_arch = "wasm32"))]
    Record(crate::record::RecordArgs),
}

#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Level files to check.
    #[arg(required = true, value_name = "LEVEL")]
    pub levels: Vec<PathBuf>,
    /// Print the problems as a JSON array of {file, line, col, field, message, allowed,
    /// severity} instead of lines (line and col are null for a file that cannot be read).
    #[arg(long)]
    pub json: bool,
    /// Also run an evacuation drill of each level that loads (its own crowd size and seed, the
    /// alarm heard everywhere, 600 s at most; no files written) and print `LEVEL: evacuated N
    /// of N in T s; ...` for each; exit status 1 when one does not empty.
    #[arg(long, conflicts_with = "json")]
    pub evacuate: bool,
}

#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    /// Level file to play.
    #[arg(default_value = "levels/plaza.ron")]
    pub level: PathBuf,
    /// Replace the level's crowd seed.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Replace the level's crowd size (0 to 1000000, and at most what the level holds: 5 people
    /// per m² of free ground).
    #[arg(long, value_parser = parse_crowd, allow_hyphen_values = true)]
    pub crowd: Option<u32>,
    /// Replace the level's crowd step rate (`crowd.tick_hz`): 60, or 30 for half the cost per
    /// simulated second (people are drawn between steps).
    #[arg(long, value_name = "HZ", value_parser = parse_crowd_hz)]
    pub crowd_hz: Option<u32>,
    /// Where the game's trajectory recordings go (O, the toolbar's Record button): numbered
    /// JuPedSim SQLite files named after the level, created with the folder when needed.
    #[arg(long, value_name = "DIR", default_value = "recordings")]
    pub record_dir: PathBuf,
    /// Quit after this many frames (at least 1).
    #[arg(long, value_parser = parse_frames, allow_hyphen_values = true)]
    pub frames: Option<u64>,
    /// Quit after this many seconds of wall time (with --frames, whichever comes first).
    #[arg(long, value_parser = parse_seconds, allow_hyphen_values = true)]
    pub seconds: Option<f64>,
    /// Save the last frame here as PNG or JPEG, by the name's ending: .png, .jpg or .jpeg (with
    /// --frames, the frame before quitting).
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Write the last frame's statistics as JSON here: the overlay's text as shown and the
    /// renderer's own counters (for tests and scripted measurements).
    #[arg(long)]
    pub stats_out: Option<PathBuf>,
    /// Start with the camera following the hero (F).
    #[arg(long)]
    pub follow: bool,
    /// Let the hero walk (or run) round a 4 m circle, or wave, by itself: demos and screenshots.
    #[arg(long, value_parser = ["walk", "run", "wave"])]
    pub hero_autopilot: Option<String>,
    /// Start with the hero's spring bones (hair, ribbon) off, as the Animation panel's toggle
    /// does: to compare the same moment with and without them.
    #[arg(long = "no-spring-bones", action = clap::ArgAction::SetFalse)]
    pub spring_bones: bool,
    /// Window size in pixels, e.g. 1280x720 (each side 64 to 8192).
    #[arg(
        long,
        default_value = "1280x720",
        value_parser = parse_size,
        allow_hyphen_values = true
    )]
    pub size: WindowSize,
    /// Start with the simulation paused (Space resumes): the same level and seed then give the
    /// same picture every run.
    #[arg(long)]
    pub paused: bool,
    /// Run the simulation this many seconds (0 to 3600) before the first frame, without
    /// drawing: start with the shows, queues and crowds of a plaza that has been open a while.
    #[arg(long, value_name = "SECONDS", value_parser = parse_sim_ahead)]
    pub sim_ahead: Option<f64>,
    /// Drive the mouse (and press keys) from a script instead of the real ones, for tests:
    /// commands such as "3 move 200 164; 4 down left; 5-20 move 200 164 300 164; 21 up left;
    /// 25 key ctrl+s" (see `app/input_script.rs`).
    #[arg(long, hide = true)]
    pub input_script: Option<String>,
    /// Testing aid: play until standard input closes, then quit as --frames does (stats,
    /// screenshot): a script ends the game once it has seen what it waited for.
    #[arg(long, hide = true)]
    pub until_stdin_closes: bool,
    /// Testing aid: sleep this many milliseconds every frame (0 to 10000), to see the game as a
    /// slow machine would (the world clock should still keep real time).
    #[arg(
        long,
        value_name = "MS",
        value_parser = crate::arg_values::parse_slow_frame_ms,
        allow_hyphen_values = true
    )]
    pub slow_frame_ms: Option<u64>,
    /// What is drawn and which panels are open at start (the keys and panels change them).
    #[command(flatten)]
    pub settings: crate::settings::Settings,
}

fn parse_crowd(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n > MAX_CROWD as u64 => Err(format!("{n} is above the maximum {MAX_CROWD}")),
        _ => parse_whole(s, 0, MAX_CROWD as u64).map(|n| n as u32),
    }
}

fn parse_crowd_hz(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(hz) if crate::level::CROWD_TICK_RATES.contains(&hz) => Ok(hz),
        _ => Err(format!("`{s}` is not a crowd step rate; allowed: 60 or 30")),
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds; allowed: more than 0, at most 86400"
        )),
    }
}

fn parse_sim_ahead(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds; allowed: 0 to 3600"
        )),
    }
}

/// Checks every file a play run will write (`--screenshot`, `--stats-out`), before a window
/// opens: a run must not end in a write error after all its frames.
pub fn check_play_outputs(args: &PlayArgs) -> Result<(), String> {
    if let Some(path) = &args.screenshot {
        check_screenshot_path(path)?;
    }
    if let Some(path) = &args.stats_out {
        check_output_file("--stats-out", path)?;
    }
    Ok(())
}

/// Checks that a screenshot can be written there, before a window opens.
pub fn check_screenshot_path(path: &Path) -> Result<(), String> {
    if ScreenImageFormat::from_path(path).is_none() {
        return Err(format!(
            "--screenshot {}: the file name must end in {}",
            path.display(),
            ScreenImageFormat::ALLOWED
        ));
    }
    check_output_file("--screenshot", path)
}

/// Checks that `path` (given with `flag`) can be written: its folder exists and takes new
/// files (tried with a temporary file that is removed at once), and no folder has its name.
pub fn check_output_file(flag: &str, path: &Path) -> Result<(), String> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        let what = if folder.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        return Err(format!(
            "{flag} {}: the folder {} {what}",
            path.display(),
            folder.display()
        ));
    }
    if path.is_dir() {
        return Err(format!(
            "{flag} {}: that is a folder; allowed: a file name in an existing folder",
            path.display()
        ));
    }
    check_writable_dir(folder).map_err(|e| {
        format!(
            "{flag} {}: the folder {} does not take new files: {}",
            path.display(),
            folder.display(),
            e.reason
        )
    })
}

pub use crate::level::validate::check_crowd_fits;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowd_and_frames_limits() {
        assert_eq!(parse_crowd("0"), Ok(0));
        assert_eq!(parse_crowd("1000000"), Ok(1_000_000));
        assert_eq!(
            parse_crowd("2000000").unwrap_err(),
            "2000000 is above the maximum 1000000"
        );
        assert_eq!(
            parse_crowd("-3").unwrap_err(),
            "`-3` is out of range; allowed: 0 to 1000000"
        );
        assert_eq!(
            parse_crowd("many").unwrap_err(),
            "`many` is not a whole number; allowed: 0 to 1000000"
        );
        assert!(parse_frames("0").is_err());
        assert_eq!(parse_seconds("2.5"), Ok(2.5));
        for bad in ["0", "-1", "nan", "inf", "1e9", "soon"] {
            assert!(
                parse_seconds(bad)
                    .unwrap_err()
                    .contains("allowed: more than 0"),
                "{bad}"
            );
        }
        assert_eq!(parse_frames("10"), Ok(10));
    }

    #[test]
    fn cli_defaults_to_playing_the_plaza() {
        let cli = Cli::try_parse_from(["throng"]).expect("parses");
        assert!(cli.command.is_none());
        assert_eq!(cli.play.level, PathBuf::from("levels/plaza.ron"));
        let cli = Cli::try_parse_from([
            "throng",
            "levels/market.ron",
            "--crowd",
            "50",
            "--frames",
            "3",
        ])
        .expect("parses");
        assert_eq!(cli.play.crowd, Some(50));
        assert_eq!(cli.play.frames, Some(3));
        assert!(Cli::try_parse_from(["throng", "--crowd", "x"]).is_err());
    }

    #[test]
    fn screenshot_path_checks() {
        assert!(check_screenshot_path(Path::new("shot.png")).is_ok());
        assert!(check_screenshot_path(Path::new("shot.jpg")).is_ok());
        assert!(check_screenshot_path(Path::new("shot.JPEG")).is_ok());
        assert_eq!(
            check_screenshot_path(Path::new("shot.gif")).unwrap_err(),
            "--screenshot shot.gif: the file name must end in .png, .jpg or .jpeg"
        );
        assert!(check_screenshot_path(Path::new("/no/such/dir/shot.png"))
            .unwrap_err()
            .contains("does not exist"));
    }
}

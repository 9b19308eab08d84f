//! `throng record`: the level loaded as the game loads it and every value checked before any
//! work, the crowd spawned and stepped at `STEP_HZ`, every K-th step written (frame 0 is the
//! crowd as spawned), the file renamed into place at the end. The level's timed alarms sound at
//! their times, as in the game (an evacuation level records its evacuation), and with
//! `--readings` the level's meters read the simulation on every step (`readings.rs`).

use std::path::Path;

use super::args::RecordArgs;
use super::readings::{write_readings, Readings, ReadingsLog};
use super::recorder::{Recorded, TrajectoryRecorder};
use crate::clock::Instant;
use crate::crowd::timed_alarms::TimedAlarms;
use crate::crowd::{Crowd, StepInputs};
use crate::evacuate::command::load;
use crate::evacuate::Failure;
use crate::level::validate::check_crowd_fits;
use crate::level::Level;
use crate::shown::shown;

/// Crowd steps per simulated second: frames are 1 / 60 s apart with `--every 1`.
pub const STEP_HZ: u32 = 60;

/// A finished recording: the summary line for stdout and what was measured.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordDone {
    pub summary: String,
    pub recorded: Recorded,
    /// Wall-clock milliseconds per crowd step, and per written frame (the write alone).
    pub step_ms: f64,
    pub write_ms: f64,
    /// What `--readings` wrote.
    pub readings: Option<Readings>,
}

/// The summary line: `recorded P people over F frames (S s at FPS fps) to FILE (B bytes)`.
pub fn summary(r: &Recorded, seconds: f64) -> String {
    format!(
        "recorded {} people over {} frames ({} s at {} fps) to {} ({} bytes)",
        r.people,
        r.frames,
        seconds,
        r.fps,
        shown(&r.path.display().to_string()),
        r.bytes
    )
}

/// The folder a file is to be written in must exist: `option` names the flag in the message.
fn folder_exists(option: &str, path: &Path) -> Result<(), Failure> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(Failure::Refused(format!(
            "{option} {}: the folder {} does not exist",
            shown(&path.display().to_string()),
            shown(&dir.display().to_string())
        ))),
        _ => Ok(()),
    }
}

/// Every value checked against the level and the file system before any work.
fn check(args: &RecordArgs, level: &Level) -> Result<(), Failure> {
    if let Some(people) = args.people {
        check_crowd_fits(level, "--people", people).map_err(Failure::Refused)?;
    }
    folder_exists("--out", &args.out)?;
    if let Some(readings) = &args.readings {
        folder_exists("--readings", readings)?;
    }
    Ok(())
}

/// `throng record`: `progress` gets the lines for stderr.
pub fn run_record(
    args: &RecordArgs,
    progress: &mut dyn FnMut(&str),
) -> Result<RecordDone, Failure> {
    let level = load(&args.level)?;
    check(args, &level)?;
    let people = args.people.unwrap_or(level.crowd.count) as usize;
    let seed = args.seed.unwrap_or(level.crowd.seed);
    let every = args.every.max(1) as u64;
    let fps = STEP_HZ as f64 / every as f64;
    let steps = (args.seconds as f64 * STEP_HZ as f64).round().max(1.0) as u64;
    let seconds = steps as f64 / STEP_HZ as f64;
    progress(&format!(
        "{}: {people} people, {seconds} s at {STEP_HZ} Hz, every {every} step(s) written",
        shown(&args.level.display().to_string())
    ));
    let mut crowd = Crowd::from_level(&level, people, seed);
    crowd.set_threads(args.threads);
    let mut rec = TrajectoryRecorder::new(&args.out, fps, &level).map_err(Failure::Writing)?;
    let mut log = args.readings.as_ref().map(|_| ReadingsLog::new(&level));
    if log.as_ref().is_some_and(ReadingsLog::is_empty) {
        progress("the level has no measurement areas or lines: the readings list none");
    }
    let mut alarms = TimedAlarms::default();
    let dt = 1.0 / STEP_HZ as f32;
    let (mut step_ms, mut write_ms) = (0.0f64, 0.0f64);
    let started = Instant::now();
    rec.record_crowd(0, &crowd).map_err(Failure::Writing)?;
    write_ms += started.elapsed().as_secs_f64() * 1000.0;
    if let Some(log) = log.as_mut() {
        log.observe(0.0, 0.0, &crowd);
    }
    for s in 1..=steps {
        let started = Instant::now();
        // The level's timed alarms, as the game sounds them (`game::alarm`).
        let due = alarms.due(
            &level.alarms,
            (s - 1) as f64 / STEP_HZ as f64,
            f64::from(dt),
        );
        for at in due.raised {
            crowd.raise_alarm(at);
        }
        if due.all_clear {
            crowd.all_clear();
        }
        crowd.step(dt, &StepInputs::default());
        step_ms += started.elapsed().as_secs_f64() * 1000.0;
        if let Some(log) = log.as_mut() {
            // Step s ends at s / STEP_HZ seconds: the meters' sample times are those of frames.
            log.observe(s as f32 / STEP_HZ as f32, dt, &crowd);
        }
        if s % every == 0 {
            let started = Instant::now();
            rec.record_crowd(s / every, &crowd)
                .map_err(Failure::Writing)?;
            write_ms += started.elapsed().as_secs_f64() * 1000.0;
        }
    }
    let started = Instant::now();
    let recorded = rec.finish().map_err(Failure::Writing)?;
    write_ms += started.elapsed().as_secs_f64() * 1000.0;
    let step_ms = step_ms / steps as f64;
    let write_ms = write_ms / recorded.frames.max(1) as f64;
    progress(&format!(
        "{step_ms:.3} ms per crowd step, {write_ms:.3} ms per written frame"
    ));
    let readings = match (log, &args.readings) {
        (Some(log), Some(path)) => {
            let readings = log.readings(&args.level, crowd.len(), seed);
            write_readings(path, &readings).map_err(Failure::Writing)?;
            Some(readings)
        }
        _ => None,
    };
    Ok(RecordDone {
        summary: summary(&recorded, seconds),
        recorded,
        step_ms,
        write_ms,
        readings,
    })
}

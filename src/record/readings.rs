//! `throng record --readings FILE.json`: Throng's own measurements of the recorded run, taken by
//! the game's meters (`measure::Meters`) from the simulation itself on every step it simulates,
//! not from the file, so a recording can be checked against what an analysis tool such as PedPy
//! computes from the written trajectories.
//!
//! The velocity the meters get is each person's move over the step just simulated, over the
//! step's length: where the step actually took them. `Crowd::vel` is not that: it is steering's
//! velocity before the non-overlap pass, which in a queue pushes people back from where
//! steering wanted them, so its mean in front of the fixture's door is 39 % above the speed
//! people walk at there (0.55 against 0.39–0.40 m/s, PedPy and the step moves agreeing).
//!
//! The meters sample every `SAMPLE_SECONDS` (0.1 s) of simulated time, from the crowd as spawned
//! (t = 0) on, whatever `--every` is: with `--every 6` (10 fps) the file's frames are exactly the
//! samples. People who have left through an exit are not measured. Whole-run values:
//!
//! - an area's `mean_classic_density`: the mean over samples of (people inside / its area);
//!   `mean_count` and `mean_voronoi_density` likewise;
//! - its `mean_speed`: |velocity| summed over every person inside at every sample, over the
//!   number of those person-samples (each person-sample weighs the same, as PedPy's per-frame
//!   mean speed weighted by the people in the frame);
//! - a line's `forward_total` and `backward_total`: its crossings between consecutive samples,
//!   each way (forward: `(to − from)` turned 90° counter-clockwise); every crossing counts, so
//!   someone who steps back and forth over the line counts each time;
//! - `forward_flow`, `backward_flow`, `flow` (both ways): those totals over `measured_seconds`,
//!   the time from the first sample to the last, in people per second; `specific_flow`: `flow`
//!   per metre of line;
//! - `flow_between_crossings`: (crossings − 1) over the time from the first crossing to the
//!   last, people per second: the slope of the cumulative count N(t) while people pass, without
//!   the wait before the first arrives (null with fewer than two crossings).
//!
//! Each also has a per-second `series` of the windowed readings the game's panel shows (the
//! mean, or for flows the count per second, over the last `WINDOW_SECONDS`).

use std::path::Path;

use serde::Serialize;

use crate::crowd::grid::is_parked;
use crate::crowd::Crowd;
use crate::level::Level;
use crate::measure::meters::{SAMPLE_SECONDS, WINDOW_SECONDS};
use crate::measure::{Meters, StepMoves};
use crate::polygon::polygon_area;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AreaSecond {
    pub t: f32,
    pub count: f32,
    pub classic_density: f32,
    pub voronoi_density: f32,
    pub mean_speed: f32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LineSecond {
    pub t: f32,
    pub forward_flow: f32,
    pub backward_flow: f32,
    pub forward_total: u32,
    pub backward_total: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AreaReadings {
    pub name: String,
    pub area_m2: f32,
    pub samples: u32,
    pub mean_count: f64,
    pub mean_classic_density: f64,
    pub mean_voronoi_density: f64,
    pub mean_speed: f64,
    pub series: Vec<AreaSecond>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LineReadings {
    pub name: String,
    pub length_m: f32,
    pub forward_total: u32,
    pub backward_total: u32,
    pub forward_flow: f64,
    pub backward_flow: f64,
    pub flow: f64,
    pub specific_flow: f64,
    pub first_crossing_s: Option<f32>,
    pub last_crossing_s: Option<f32>,
    pub flow_between_crossings: Option<f64>,
    pub series: Vec<LineSecond>,
}

/// What `--readings` writes.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Readings {
    pub level: String,
    pub people: usize,
    pub seed: u64,
    pub sample_seconds: f32,
    pub window_seconds: f32,
    pub measured_seconds: f32,
    pub areas: Vec<AreaReadings>,
    pub lines: Vec<LineReadings>,
}

/// The meters of one recording and their per-second series.
pub struct ReadingsLog {
    meters: Meters,
    area_sizes: Vec<f32>,
    line_lengths: Vec<f32>,
    area_series: Vec<Vec<AreaSecond>>,
    line_series: Vec<Vec<LineSecond>>,
    next_second: f32,
    /// The velocities handed to the meters: the step's moves.
    moves: StepMoves,
}

impl ReadingsLog {
    pub fn new(level: &Level) -> Self {
        ReadingsLog {
            meters: Meters::for_level(level),
            area_sizes: level
                .measurement_areas
                .iter()
                .map(|a| polygon_area(&a.polygon))
                .collect(),
            line_lengths: level
                .measurement_lines
                .iter()
                .map(|l| l.from.distance(l.to))
                .collect(),
            area_series: vec![Vec::new(); level.measurement_areas.len()],
            line_series: vec![Vec::new(); level.measurement_lines.len()],
            next_second: 1.0,
            moves: StepMoves::default(),
        }
    }

    /// Whether the level has anything to measure.
    pub fn is_empty(&self) -> bool {
        self.meters.is_empty()
    }

    /// Feeds the crowd as it is at `time` after a step of `dt` seconds (call it on the crowd
    /// as spawned with `dt` 0, then after every step; the meters sample every
    /// `SAMPLE_SECONDS`). Parked people (out through an exit) are not present.
    pub fn observe(&mut self, time: f32, dt: f32, crowd: &Crowd) {
        let pos = &crowd.pos;
        let present = |i: usize| !is_parked(pos[i]) && pos[i].is_finite();
        let vel = self.moves.update(pos, dt, present);
        self.meters.observe(time, pos, vel, present);
        // A small allowance: f32 step times land a hair either side of whole seconds.
        if time + 1e-3 >= self.next_second {
            self.next_second += 1.0;
            for (series, (_, r)) in self.area_series.iter_mut().zip(self.meters.area_readings()) {
                series.push(AreaSecond {
                    t: time,
                    count: r.count,
                    classic_density: r.classic_density,
                    voronoi_density: r.voronoi_density,
                    mean_speed: r.mean_speed,
                });
            }
            for (series, (_, r)) in self.line_series.iter_mut().zip(self.meters.line_readings()) {
                series.push(LineSecond {
                    t: time,
                    forward_flow: r.forward_flow,
                    backward_flow: r.backward_flow,
                    forward_total: r.forward_total,
                    backward_total: r.backward_total,
                });
            }
        }
    }

    /// The whole-run readings (see the module's notes for each definition).
    pub fn readings(&self, level_path: &Path, people: usize, seed: u64) -> Readings {
        let seconds = self.meters.measured_seconds();
        let per_second = |n: u32| {
            if seconds > 0.0 {
                f64::from(n) / f64::from(seconds)
            } else {
                0.0
            }
        };
        let areas = self
            .meters
            .area_runs()
            .into_iter()
            .enumerate()
            .map(|(k, (name, r))| AreaReadings {
                name: name.to_string(),
                area_m2: self.area_sizes[k],
                samples: r.samples,
                mean_count: r.mean_count,
                mean_classic_density: r.mean_classic_density,
                mean_voronoi_density: r.mean_voronoi_density,
                mean_speed: r.mean_speed,
                series: self.area_series[k].clone(),
            })
            .collect();
        let lines = self
            .meters
            .line_runs()
            .into_iter()
            .enumerate()
            .map(|(k, (name, r))| {
                let both = r.forward_total + r.backward_total;
                let length = self.line_lengths[k];
                let between = match (r.first_crossing, r.last_crossing) {
                    (Some(a), Some(b)) if both >= 2 && b > a => {
                        Some(f64::from(both - 1) / f64::from(b - a))
                    }
                    _ => None,
                };
                LineReadings {
                    name: name.to_string(),
                    length_m: length,
                    forward_total: r.forward_total,
                    backward_total: r.backward_total,
                    forward_flow: per_second(r.forward_total),
                    backward_flow: per_second(r.backward_total),
                    flow: per_second(both),
                    specific_flow: per_second(both) / f64::from(length.max(1e-3)),
                    first_crossing_s: r.first_crossing,
                    last_crossing_s: r.last_crossing,
                    flow_between_crossings: between,
                    series: self.line_series[k].clone(),
                }
            })
            .collect();
        Readings {
            level: level_path.display().to_string(),
            people,
            seed,
            sample_seconds: SAMPLE_SECONDS,
            window_seconds: WINDOW_SECONDS,
            measured_seconds: seconds,
            areas,
            lines,
        }
    }
}

/// Writes the readings as pretty JSON, to a temporary name beside `path` renamed into place, so
/// the final name never holds half a file.
pub fn write_readings(path: &Path, readings: &Readings) -> Result<(), String> {
    let text = serde_json::to_string_pretty(readings)
        .map_err(|e| format!("{}: cannot encode the readings: {e}", path.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.readings-tmp-{}", std::process::id()));
    let written = std::fs::write(&temp, text + "\n")
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| format!("{}: cannot write the readings: {e}", path.display()));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

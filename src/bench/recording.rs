//! `throng bench --headless --recording`: what `throng record` costs. Per size and file format
//! the level's crowd is spawned as `throng record` spawns it, stepped through the warm-up,
//! then stepped and written every step (60 fps, `--every 1`) for the measured frames into
//! `DIR/recording.sqlite` or `DIR/recording.txt`, which is finished (SQLite builds its index
//! then) and removed. Each row: the step and the write timed apart, the finish spread over the
//! frames, and the file's bytes per frame scaled to a simulated minute.

use std::fmt::Write as _;
use std::path::Path;

use super::args::BenchArgs;
use super::report::{median, spread_quantile};
use super::Machine;
use crate::clock::Instant;
use crate::crowd::{Crowd, StepInputs};
use crate::level::Level;
use crate::record::{TrajectoryRecorder, STEP_HZ};

/// The formats measured, by the extension `throng record` takes.
pub const FORMATS: [&str; 2] = ["sqlite", "txt"];

pub const RECORDING_CSV_HEADER: &str = "format,agents,frames,step_ms_median,write_ms_median,write_ms_p95,finish_ms,write_ms_mean,recorded_step_ms,bytes,bytes_per_frame,mb_per_minute_60fps,mb_per_minute_10fps,cores,threads,simd,commit";

/// One size × format.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordRow {
    pub format: &'static str,
    pub agents: u32,
    pub frames: u32,
    pub step_ms_median: f64,
    pub write_ms_median: f64,
    pub write_ms_p95: Option<f64>,
    /// Closing the file: the last transaction, SQLite's `(frame, id)` index, the sync.
    pub finish_ms: f64,
    /// Every write and the finish over the frames: what a recorded frame costs on average.
    pub write_ms_mean: f64,
    pub bytes: u64,
    pub machine: Machine,
}

impl RecordRow {
    /// A recorded step: the median step and the mean write.
    pub fn recorded_step_ms(&self) -> f64 {
        self.step_ms_median + self.write_ms_mean
    }

    pub fn bytes_per_frame(&self) -> f64 {
        self.bytes as f64 / f64::from(self.frames.max(1))
    }

    /// Megabytes (10^6 bytes) per simulated minute with every step written (60 fps) and with
    /// every 6th (`--every 6`, 10 fps).
    pub fn mb_per_minute(&self, fps: f64) -> f64 {
        self.bytes_per_frame() * fps * 60.0 / 1e6
    }
}

/// One recording: `warmup` steps, then `frames` steps each written to `path`.
fn record_run(
    level: &Level,
    (agents, seed): (u32, u64),
    (warmup, frames): (u32, u32),
    path: &Path,
) -> Result<(Vec<f64>, Vec<f64>, f64, u64), String> {
    let mut crowd = Crowd::from_level(level, agents as usize, seed);
    let dt = 1.0 / STEP_HZ as f32;
    for _ in 0..warmup {
        crowd.step(dt, &StepInputs::default());
    }
    let mut rec = TrajectoryRecorder::new(path, f64::from(STEP_HZ), level)?;
    let (mut steps, mut writes) = (Vec::new(), Vec::new());
    for frame in 0..frames {
        let t0 = Instant::now();
        crowd.step(dt, &StepInputs::default());
        let t1 = Instant::now();
        rec.record_crowd(u64::from(frame), &crowd)?;
        steps.push((t1 - t0).as_secs_f64() * 1000.0);
        writes.push(t1.elapsed().as_secs_f64() * 1000.0);
    }
    let t = Instant::now();
    let done = rec.finish()?;
    let finish_ms = t.elapsed().as_secs_f64() * 1000.0;
    let _ = std::fs::remove_file(&done.path);
    Ok((steps, writes, finish_ms, done.bytes))
}

/// Every size × format of the run, in that order; progress lines on stderr.
pub fn run_recording(args: &BenchArgs, level: &Level) -> Result<Vec<RecordRow>, String> {
    let machine = Machine::here();
    let mut rows = Vec::new();
    for &agents in args.sizes() {
        for format in FORMATS {
            eprintln!("bench: recording {agents} people to .{format}, every step");
            let path = args.out.join(format!("recording.{format}"));
            let (steps, writes, finish_ms, bytes) = record_run(
                level,
                (agents, args.seed),
                (args.warmup(), args.frames()),
                &path,
            )?;
            let frames = writes.len() as u32;
            rows.push(RecordRow {
                format,
                agents,
                frames,
                step_ms_median: median(&steps),
                write_ms_median: median(&writes),
                write_ms_p95: spread_quantile(&writes, 0.95),
                finish_ms,
                write_ms_mean: (writes.iter().sum::<f64>() + finish_ms) / f64::from(frames.max(1)),
                bytes,
                machine: machine.clone(),
            });
        }
    }
    Ok(rows)
}

pub fn recording_csv(rows: &[RecordRow]) -> String {
    let mut s = String::from(RECORDING_CSV_HEADER);
    s.push('\n');
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{:.4},{:.4},{},{:.2},{:.4},{:.4},{},{:.1},{:.2},{:.2},{},{},{},{}",
            r.format,
            r.agents,
            r.frames,
            r.step_ms_median,
            r.write_ms_median,
            r.write_ms_p95.map_or(String::new(), |v| format!("{v:.4}")),
            r.finish_ms,
            r.write_ms_mean,
            r.recorded_step_ms(),
            r.bytes,
            r.bytes_per_frame(),
            r.mb_per_minute(60.0),
            r.mb_per_minute(10.0),
            r.machine.cores,
            r.machine.threads,
            r.machine.simd,
            r.machine.commit
        );
    }
    s
}

/// The table printed after the simulation's.
pub fn recording_table(rows: &[RecordRow]) -> String {
    let mut s = format!(
        "{:<7} {:>7} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9} {:>11} {:>11}\n",
        "format",
        "agents",
        "step ms",
        "write ms",
        "p95 ms",
        "finish ms",
        "rec. step",
        "B/frame",
        "MB/min 60",
        "MB/min 10"
    );
    for r in rows {
        let p95 = r
            .write_ms_p95
            .map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"));
        let _ = writeln!(
            s,
            "{:<7} {:>7} {:>8.2} {:>9.2} {:>9} {:>10.1} {:>10.2} {:>9.0} {:>11.1} {:>11.1}",
            r.format,
            r.agents,
            r.step_ms_median,
            r.write_ms_median,
            p95,
            r.finish_ms,
            r.recorded_step_ms(),
            r.bytes_per_frame(),
            r.mb_per_minute(60.0),
            r.mb_per_minute(10.0)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_scales_its_file_to_a_minute_and_adds_the_finish_to_the_write() {
        let row = RecordRow {
            format: "txt",
            agents: 10,
            frames: 100,
            step_ms_median: 1.0,
            write_ms_median: 0.5,
            write_ms_p95: Some(0.75),
            finish_ms: 10.0,
            write_ms_mean: 0.6,
            bytes: 28_000,
            machine: Machine {
                cores: 2,
                threads: 2,
                simd: "scalar",
                commit: "abc".into(),
            },
        };
        assert_eq!(row.bytes_per_frame(), 280.0);
        // 280 B a frame: 60 fps for 60 s is 3600 frames, 1.008 MB.
        assert!((row.mb_per_minute(60.0) - 1.008).abs() < 1e-12);
        assert!((row.mb_per_minute(10.0) - 0.168).abs() < 1e-12);
        assert!((row.recorded_step_ms() - 1.6).abs() < 1e-12);
        let csv = recording_csv(&[row]);
        assert_eq!(
            csv.lines().nth(1),
            Some("txt,10,100,1.0000,0.5000,0.7500,10.00,0.6000,1.6000,28000,280.0,1.01,0.17,2,2,scalar,abc")
        );
        assert_eq!(csv.lines().next(), Some(RECORDING_CSV_HEADER));
    }
}

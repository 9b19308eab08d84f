//! How long a benchmark will take, said before it starts and kept up to date while it runs.
//!
//! Before measuring, each mode is timed at the smallest and the largest size (a frame to
//! settle, then three timed, and what setting up a run and saving its last frame cost); a
//! straight line through the two, fixed cost plus cost per person, gives every run's frame time
//! and setup. Interpolating between sizes measured, rather than extrapolating from two small
//! ones, keeps a renderer whose cost per person only shows in large crowds from being
//! underestimated. While running, the time left is the estimate of the work left scaled by how
//! far the finished work (warm-up frames and setup included) ran over or under its estimate.

use crate::clock::Instant;

/// Frame time as a fixed part plus a part per person.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    pub fixed_ms: f64,
    pub per_agent_ms: f64,
}

impl CostModel {
    /// The line through two measured (agents, ms per frame); neither part negative. One point
    /// (or two at one size) is all fixed cost.
    pub fn fit(a: (u32, f64), b: (u32, f64)) -> CostModel {
        let (small, large) = if a.0 <= b.0 { (a, b) } else { (b, a) };
        if large.0 == small.0 {
            return CostModel {
                fixed_ms: (a.1 + b.1) / 2.0,
                per_agent_ms: 0.0,
            };
        }
        let per_agent_ms = ((large.1 - small.1) / f64::from(large.0 - small.0)).max(0.0);
        CostModel {
            fixed_ms: (small.1 - per_agent_ms * f64::from(small.0)).max(0.0),
            per_agent_ms,
        }
    }

    pub fn frame_ms(&self, agents: u32) -> f64 {
        self.fixed_ms + self.per_agent_ms * f64::from(agents)
    }
}

/// What one run costs: its frames and its setup (a new crowd, the renderer's state for the
/// mode, the last frame's picture).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunCost {
    pub frame: CostModel,
    pub setup: CostModel,
}

impl RunCost {
    /// Milliseconds of a run of `frames` frames (warm-up included) at `agents`.
    pub fn run_ms(&self, agents: u32, frames: u32) -> f64 {
        self.frame.frame_ms(agents) * f64::from(frames) + self.setup.frame_ms(agents)
    }
}

/// The two crowd sizes calibration times: the smallest and the largest asked for (both fit
/// the level, since the largest size was checked).
pub fn calibration_sizes(sizes: &[u32]) -> (u32, u32) {
    let smallest = sizes.iter().copied().min().unwrap_or(1).max(1);
    let largest = sizes.iter().copied().max().unwrap_or(1).max(1);
    (smallest, largest)
}

/// "under 1 s", "45 s", "4 min 05 s", "2 h 10 min".
pub fn format_duration(ms: f64) -> String {
    let s = (ms / 1000.0).max(0.0).round() as u64;
    match s {
        0 => "under 1 s".into(),
        1..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

/// Progress on stderr: a line when a run starts and at each quarter of it, with the time spent
/// and the time left.
pub struct Progress {
    /// Estimated milliseconds of each run, in order.
    planned: Vec<f64>,
    done: usize,
    started: Instant,
}

impl Progress {
    pub fn new(planned: Vec<f64>) -> Progress {
        Progress {
            planned,
            done: 0,
            started: Instant::now(),
        }
    }

    pub fn total_ms(&self) -> f64 {
        self.planned.iter().sum()
    }

    /// Call after a run's last frame.
    pub fn run_done(&mut self) {
        self.done += 1;
    }

    /// The time left, given the share of the current run done and the time spent so far.
    pub fn left_ms(&self, share_of_run: f64, elapsed_ms: f64) -> f64 {
        let current = self.planned.get(self.done).copied().unwrap_or(0.0);
        let planned_done: f64 = self.planned[..self.done.min(self.planned.len())]
            .iter()
            .sum::<f64>()
            + current * share_of_run;
        let planned_left = self.total_ms() - planned_done;
        let pace = if planned_done > 0.0 && elapsed_ms > 0.0 {
            elapsed_ms / planned_done
        } else {
            1.0
        };
        (planned_left * pace).max(0.0)
    }

    /// After frame `i` (0-based) of the current run's `total` (the first `warmup` of them not
    /// measured): a line on stderr at the first measured frame, each quarter and the last.
    pub fn frame(&self, what: &str, agents: u32, i: u32, total: u32, warmup: u32) {
        let elapsed = self.started.elapsed().as_secs_f64() * 1000.0;
        if let Some(line) = self.line(what, agents, (i, total, warmup), elapsed) {
            eprintln!("{line}");
        }
    }

    /// The progress line after frame `i` of `total` (`warmup` first), `elapsed_ms` since the
    /// plan was announced. The share of the run done counts the warm-up, which took time like
    /// any frame.
    fn line(
        &self,
        what: &str,
        agents: u32,
        (i, total, warmup): (u32, u32, u32),
        elapsed_ms: f64,
    ) -> Option<String> {
        let frame = i.checked_sub(warmup)?;
        let frames = total.saturating_sub(warmup);
        let quarter = (frames / 4).max(1);
        if !(frame == 0 || frame.is_multiple_of(quarter) || frame + 1 == frames) {
            return None;
        }
        let runs = self.planned.len();
        let share = f64::from(i + 1) / f64::from(total.max(1));
        let left = self.left_ms(share, elapsed_ms);
        let left = if left < 500.0 {
            "nearly done".to_string()
        } else {
            format!("about {} left", format_duration(left))
        };
        Some(format!(
            "bench [{}/{runs}] {what} {agents} agents: frame {}/{frames}, {} spent, {left}",
            self.done + 1,
            frame + 1,
            format_duration(elapsed_ms),
        ))
    }
}

/// The plan of a whole run from each mode's costs (`models`, in run order within a size),
/// announced on stderr before any measuring: how many runs, of how many frames, how long.
/// `small` and `large` are the calibration sizes, `what` names a model's kind ("mode",
/// "variant").
pub fn announce_plan(
    sizes: &[u32],
    models: &[RunCost],
    frames: u32,
    (small, large): (u32, u32),
    what: &str,
) -> Progress {
    let plan = sizes
        .iter()
        .flat_map(|&n| models.iter().map(move |m| m.run_ms(n, frames)))
        .collect();
    let progress = Progress::new(plan);
    eprintln!(
        "bench: {} runs of {frames} frames, estimated {} (from frames timed at {small} and {large} \
         agents per {what})",
        sizes.len() * models.len(),
        format_duration(progress.total_ms())
    );
    progress
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_splits_fixed_and_per_person_cost() {
        let m = CostModel::fit((100, 70.0), (50, 60.0));
        assert_approx!(m.per_agent_ms, 0.2, 1e-4);
        assert_approx!(m.fixed_ms, 50.0, 1e-4);
        assert_approx!(m.frame_ms(1000), 250.0, 1e-4);
        // Noise that makes the larger crowd faster: no negative cost per person.
        let m = CostModel::fit((50, 60.0), (100, 55.0));
        assert_eq!(m.per_agent_ms, 0.0);
        assert_eq!(m.frame_ms(10_000), 60.0);
        assert_eq!(CostModel::fit((1, 4.0), (1, 6.0)).frame_ms(1), 5.0);
    }

    #[test]
    fn calibration_spans_the_sizes_asked_for() {
        assert_eq!(calibration_sizes(&[1000, 100, 300]), (100, 1000));
        assert_eq!(calibration_sizes(&[1]), (1, 1));
    }

    #[test]
    fn a_run_costs_its_frames_and_its_setup() {
        let cost = RunCost {
            frame: CostModel::fit((100, 20.0), (1000, 200.0)),
            setup: CostModel::fit((100, 50.0), (1000, 140.0)),
        };
        // 13 frames of 110 ms and a 95 ms setup at 550 people.
        assert_approx!(cost.run_ms(550, 13), 13.0 * 110.0 + 95.0, 1e-6);
    }

    #[test]
    fn warm_up_frames_count_as_work_done() {
        // One run of 4 warm-up and 4 measured frames planned at 10 s each, going at plan:
        // after the first measured frame 50 s were spent and 30 s are left (counting only the
        // measured frames as done said 2 min 30 s).
        let p = Progress::new(vec![80_000.0]);
        assert_eq!(
            p.line("pipeline", 100, (3, 8, 4), 40_000.0),
            None,
            "warm-up"
        );
        assert_eq!(
            p.line("pipeline", 100, (4, 8, 4), 50_000.0).as_deref(),
            Some("bench [1/1] pipeline 100 agents: frame 1/4, 50 s spent, about 30 s left")
        );
        assert_eq!(
            p.line("pipeline", 100, (7, 8, 4), 80_000.0).as_deref(),
            Some("bench [1/1] pipeline 100 agents: frame 4/4, 1 min 20 s spent, nearly done")
        );
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(format_duration(44_600.0), "45 s");
        assert_eq!(format_duration(300.0), "under 1 s");
        assert_eq!(format_duration(245_000.0), "4 min 05 s");
        assert_eq!(format_duration(7_800_000.0), "2 h 10 min");
    }

    #[test]
    fn time_left_follows_the_pace_of_the_finished_work() {
        let mut p = Progress::new(vec![1000.0, 3000.0]);
        assert_eq!(p.left_ms(0.0, 0.0), 4000.0);
        // Half of the first run took twice its estimate: the rest will too.
        assert_eq!(p.left_ms(0.5, 1000.0), 7000.0);
        p.run_done();
        assert_eq!(p.left_ms(0.0, 1000.0), 3000.0);
        p.run_done();
        assert_eq!(p.left_ms(0.0, 5000.0), 0.0);
    }
}

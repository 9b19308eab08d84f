//! Fixed-timestep simulation clock: the simulation advances in equal steps whatever the frame rate,
//! so behaviour is reproducible and a slow frame never makes agents tunnel through obstacles.
//!
//! How many catch-up steps one frame may run follows what a step costs: while steps are cheap
//! next to the frame (a slow renderer), the world keeps real time however long frames take (up
//! to `MAX_FRAME_SECONDS`); only when the steps themselves are what is slow is the backlog
//! dropped, and `speed` says by how much.

use super::speed::SpeedMeter;

/// Frames longer than this count as this long: a window drag or a breakpoint must not replay
/// minutes of simulation, but a renderer taking a second or two per frame is still followed.
pub const MAX_FRAME_SECONDS: f64 = 2.0;
/// Catch-up steps every frame may run, whatever a step costs (the clock's old fixed cap).
pub const BASE_STEPS_PER_FRAME: u32 = 5;
/// Catch-up work may take at most this share of a frame: with steps costing `c` and the rest of
/// the frame `R`, `n` steps settle at `n·c ≤ R` instead of spiralling (each catch-up step makes
/// the next frame longer).
const SIM_SHARE_OF_FRAME: f64 = 0.5;

/// Decides how many fixed simulation steps each rendered frame runs.
#[derive(Debug, Clone)]
pub struct FixedStepClock {
    step: f64,
    accumulator: f64,
    /// Most steps one frame may run, whatever they cost.
    max_steps_per_frame: u32,
    /// Measured wall seconds per step (smoothed); None until the first steps ran.
    step_cost: Option<f64>,
    /// Frames longer than this count as this long (`MAX_FRAME_SECONDS`).
    max_frame_time: f64,
    time_scale: f64,
    paused: bool,
    single_steps_pending: u32,
    steps_total: u64,
    dropped_time: f64,
    /// Simulated seconds dropped by the last `advance` (the hero still walks through them).
    frame_dropped: f64,
    /// Simulated against wall time over the last seconds.
    pub speed: SpeedMeter,
}

/// What one frame should do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameSteps {
    /// Fixed steps to run now.
    pub steps: u32,
    /// Fraction 0..1 of a step left in the accumulator, for interpolating what is drawn.
    pub alpha: f32,
}

impl FixedStepClock {
    pub fn new(steps_per_second: f64) -> Self {
        let rate = if steps_per_second.is_finite() && steps_per_second > 0.0 {
            steps_per_second
        } else {
            60.0
        };
        FixedStepClock {
            step: 1.0 / rate,
            accumulator: 0.0,
            max_steps_per_frame: (MAX_FRAME_SECONDS * rate).ceil() as u32,
            step_cost: None,
            max_frame_time: MAX_FRAME_SECONDS,
            time_scale: 1.0,
            paused: false,
            single_steps_pending: 0,
            steps_total: 0,
            dropped_time: 0.0,
            frame_dropped: 0.0,
            speed: SpeedMeter::default(),
        }
    }

    pub fn with_max_steps_per_frame(mut self, n: u32) -> Self {
        self.max_steps_per_frame = n.max(1);
        self
    }

    /// Seconds of simulated time per step.
    pub fn step_seconds(&self) -> f32 {
        self.step as f32
    }

    pub fn paused(&self) -> bool {
        self.paused
    }

    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
        // Resuming must not replay the time spent paused.
        self.accumulator = 0.0;
    }

    pub fn toggle_pause(&mut self) {
        let p = !self.paused;
        self.set_paused(p);
    }

    /// While paused, run exactly one step on the next frame.
    pub fn request_single_step(&mut self) {
        if self.paused {
            self.single_steps_pending += 1;
        }
    }

    pub fn time_scale(&self) -> f64 {
        self.time_scale
    }

    /// Clamped to 0..=8: 0 freezes the world without pausing input, 8 is the fast-forward limit.
    pub fn set_time_scale(&mut self, scale: f64) {
        self.time_scale = if scale.is_finite() {
            scale.clamp(0.0, 8.0)
        } else {
            1.0
        };
    }

    pub fn steps_total(&self) -> u64 {
        self.steps_total
    }

    /// Simulated seconds thrown away because frames were too slow to catch up.
    pub fn dropped_seconds(&self) -> f64 {
        self.dropped_time
    }

    /// Simulated seconds the last frame dropped: the world skipped them, the player's own
    /// movement (cheap) should not.
    pub fn frame_dropped_seconds(&self) -> f64 {
        self.frame_dropped
    }

    /// Tells the clock what the last frame's steps cost in wall time (`seconds` for `steps`).
    pub fn record_step_cost(&mut self, steps: u32, seconds: f64) {
        if steps == 0 || !seconds.is_finite() || seconds < 0.0 {
            return;
        }
        let per_step = seconds / steps as f64;
        self.step_cost = Some(match self.step_cost {
            // Quick to rise (a heavy step must not spiral), slower to fall.
            Some(c) if per_step < c => c * 0.8 + per_step * 0.2,
            _ => per_step,
        });
    }

    /// Steps a frame of `frame_seconds` may run: the base cap, raised while steps are cheap
    /// next to the frame.
    pub fn steps_allowed(&self, frame_seconds: f64) -> u32 {
        let by_cost = match self.step_cost {
            Some(c) if c > 0.0 => (SIM_SHARE_OF_FRAME * frame_seconds / c).floor(),
            Some(_) => f64::INFINITY,
            None => 0.0,
        };
        let base = BASE_STEPS_PER_FRAME.min(self.max_steps_per_frame);
        (by_cost.min(self.max_steps_per_frame as f64) as u32).max(base)
    }

    /// Advance by one rendered frame of `frame_seconds` wall time.
    pub fn advance(&mut self, frame_seconds: f64) -> FrameSteps {
        self.frame_dropped = 0.0;
        if self.paused {
            let steps = self.single_steps_pending.min(BASE_STEPS_PER_FRAME);
            self.single_steps_pending -= steps;
            self.steps_total += steps as u64;
            return FrameSteps { steps, alpha: 0.0 };
        }
        let wall = if frame_seconds.is_finite() && frame_seconds > 0.0 {
            frame_seconds
        } else {
            0.0
        };
        let dt = wall.min(self.max_frame_time);
        self.accumulator += dt * self.time_scale;
        let allowed = self.steps_allowed(wall);
        let mut steps = 0;
        while self.accumulator >= self.step && steps < allowed {
            self.accumulator -= self.step;
            steps += 1;
        }
        if self.accumulator >= self.step {
            // Could not catch up: drop the backlog so the next frame starts fresh.
            let whole = (self.accumulator / self.step).floor();
            self.dropped_time += whole * self.step;
            self.frame_dropped = whole * self.step;
            self.accumulator -= whole * self.step;
        }
        self.steps_total += steps as u64;
        self.speed
            .record(wall, steps as f64 * self.step, self.time_scale);
        FrameSteps {
            steps,
            alpha: (self.accumulator / self.step) as f32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_hz_frames_run_one_step_each() {
        let mut c = FixedStepClock::new(60.0);
        let total: u32 = (0..600).map(|_| c.advance(1.0 / 60.0).steps).sum();
        // Floating accumulation may leave the last step pending, never more.
        assert!((599..=600).contains(&total), "{total}");
    }

    #[test]
    fn slow_frames_run_several_steps_and_fast_frames_accumulate() {
        let mut c = FixedStepClock::new(60.0);
        assert_eq!(c.advance(3.0 / 60.0 + 1e-6).steps, 3);
        let mut c = FixedStepClock::new(60.0);
        let a = c.advance(1.0 / 240.0);
        assert_eq!(a.steps, 0);
        assert_approx!(a.alpha, 0.25, 1e-4);
        let steps: u32 = (0..3).map(|_| c.advance(1.0 / 240.0).steps).sum();
        assert_eq!(steps, 1);
    }

    #[test]
    fn catch_up_is_capped_and_backlog_dropped() {
        let mut c = FixedStepClock::new(60.0).with_max_steps_per_frame(4);
        let f = c.advance(0.2); // 12 steps worth
        assert_eq!(f.steps, 4);
        assert!(c.dropped_seconds() > 0.1);
        // The next normal frame runs one step, not the backlog.
        assert_eq!(c.advance(1.0 / 60.0 + 1e-6).steps, 1);
    }

    /// Runs `frames` frames whose rendering takes `render` seconds and whose steps cost `cost`
    /// each; returns (wall seconds, simulated seconds).
    fn run(c: &mut FixedStepClock, frames: u32, render: f64, cost: f64) -> (f64, f64) {
        let (mut wall, mut frame) = (0.0, render);
        for _ in 0..frames {
            let steps = c.advance(frame).steps;
            c.record_step_cost(steps, steps as f64 * cost);
            wall += frame;
            frame = render + steps as f64 * cost;
        }
        (wall, c.speed.simulated_total)
    }

    #[test]
    fn a_slow_renderer_with_cheap_steps_keeps_real_time() {
        // The numbers: about a second per frame, where a cap of 5 steps advanced 3.3 s
        // of game time in 38 s of wall time.
        let mut c = FixedStepClock::new(60.0);
        let (wall, simulated) = run(&mut c, 40, 0.95, 0.001);
        assert!(
            simulated > 0.97 * wall && simulated <= wall + 1e-9,
            "{simulated} s simulated in {wall} s"
        );
        assert_eq!(c.speed.behind(), None);
        // One frame at the start ran before any step was measured (5 steps, 0.87 s dropped).
        assert!(c.dropped_seconds() < 0.9, "{}", c.dropped_seconds());
    }

    #[test]
    fn expensive_steps_settle_below_real_time_without_spiralling() {
        // Steps of 25 ms cannot keep 60 Hz whatever the frame does.
        let mut c = FixedStepClock::new(60.0);
        let mut frame: f64 = 0.1;
        for _ in 0..200 {
            let steps = c.advance(frame).steps;
            c.record_step_cost(steps, steps as f64 * 0.025);
            let next = 0.1 + steps as f64 * 0.025;
            // Catch-up never takes much more than half the frame (the base cap aside).
            assert!(steps <= 5 || steps as f64 * 0.025 <= 0.5 * frame + 1e-9);
            frame = next;
        }
        // Settles where steps take half the frame: frame = 0.2 s, 4 steps (5 by the base cap).
        assert!(frame < 0.3, "frame {frame}");
        let ratio = c.speed.behind().expect("the world is behind and says so");
        assert!((0.3..0.8).contains(&ratio), "{ratio}");
    }

    #[test]
    fn the_step_cost_rises_at_once_and_falls_slowly() {
        let mut c = FixedStepClock::new(60.0);
        assert_eq!(c.steps_allowed(1.0), 5, "nothing measured: the base cap");
        c.record_step_cost(10, 0.01);
        assert_eq!(
            c.steps_allowed(1.0),
            120,
            "1 ms steps: up to two seconds of them"
        );
        assert_eq!(c.steps_allowed(0.1), 50);
        c.record_step_cost(1, 0.05);
        assert_eq!(c.steps_allowed(1.0), 10);
        c.record_step_cost(1, 0.0);
        assert_eq!(c.steps_allowed(1.0), 12, "0.8 × 50 ms");
        c.record_step_cost(0, 0.0);
        c.record_step_cost(3, f64::NAN);
        assert_eq!(c.steps_allowed(1.0), 12, "nothing to learn from");
    }

    #[test]
    fn huge_or_bad_frame_times_are_clamped() {
        let mut c = FixedStepClock::new(60.0);
        assert_eq!(c.advance(f64::NAN).steps, 0);
        assert_eq!(c.advance(-1.0).steps, 0);
        assert_eq!(c.advance(3600.0).steps, 5);
    }

    #[test]
    fn pause_and_single_step() {
        let mut c = FixedStepClock::new(60.0);
        c.set_paused(true);
        assert_eq!(c.advance(1.0).steps, 0);
        c.request_single_step();
        assert_eq!(c.advance(0.0).steps, 1);
        assert_eq!(c.advance(1.0).steps, 0);
        c.set_paused(false);
        assert_eq!(c.advance(1.0 / 60.0 + 1e-6).steps, 1);
        assert_eq!(c.steps_total(), 2);
    }

    #[test]
    fn single_step_request_is_ignored_while_running() {
        let mut c = FixedStepClock::new(60.0);
        c.request_single_step();
        assert_eq!(c.advance(0.0).steps, 0);
    }

    #[test]
    fn time_scale_speeds_up_and_freezes() {
        let mut c = FixedStepClock::new(60.0);
        c.set_time_scale(2.0);
        assert_eq!(c.advance(1.0 / 60.0 + 1e-6).steps, 2);
        c.set_time_scale(0.0);
        assert_eq!(c.advance(1.0).steps, 0);
        c.set_time_scale(f64::INFINITY);
        assert_eq!(c.time_scale(), 1.0);
        c.set_time_scale(100.0);
        assert_eq!(c.time_scale(), 8.0);
    }
}

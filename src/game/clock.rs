//! Fixed-timestep simulation clock: the simulation advances in equal steps whatever the frame rate,
//! so behaviour is reproducible and a slow frame never makes agents tunnel through obstacles.

/// Decides how many fixed simulation steps each rendered frame runs.
#[derive(Debug, Clone)]
pub struct FixedStepClock {
    step: f64,
    accumulator: f64,
    /// Most steps one frame may run; past this the simulation slows down instead of spiralling
    /// (each catch-up step makes the next frame slower still).
    max_steps_per_frame: u32,
    /// Frames longer than this count as this long (a window drag or a breakpoint must not
    /// replay seconds of simulation at once).
    max_frame_time: f64,
    time_scale: f64,
    paused: bool,
    single_steps_pending: u32,
    steps_total: u64,
    dropped_time: f64,
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
            max_steps_per_frame: 5,
            max_frame_time: 0.25,
            time_scale: 1.0,
            paused: false,
            single_steps_pending: 0,
            steps_total: 0,
            dropped_time: 0.0,
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

    /// Advance by one rendered frame of `frame_seconds` wall time.
    pub fn advance(&mut self, frame_seconds: f64) -> FrameSteps {
        if self.paused {
            let steps = self.single_steps_pending.min(self.max_steps_per_frame);
            self.single_steps_pending -= steps;
            self.steps_total += steps as u64;
            return FrameSteps { steps, alpha: 0.0 };
        }
        let dt = if frame_seconds.is_finite() && frame_seconds > 0.0 {
            frame_seconds.min(self.max_frame_time)
        } else {
            0.0
        };
        self.accumulator += dt * self.time_scale;
        let mut steps = 0;
        while self.accumulator >= self.step && steps < self.max_steps_per_frame {
            self.accumulator -= self.step;
            steps += 1;
        }
        if self.accumulator >= self.step {
            // Could not catch up: drop the backlog so the next frame starts fresh.
            let whole = (self.accumulator / self.step).floor();
            self.dropped_time += whole * self.step;
            self.accumulator -= whole * self.step;
        }
        self.steps_total += steps as u64;
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

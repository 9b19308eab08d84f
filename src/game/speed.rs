//! How fast the world really runs: simulated seconds against wall seconds over the last couple
//! of seconds, so the HUD can say plainly when the simulation cannot keep up.

use std::collections::VecDeque;

/// Wall seconds the measurement looks back over.
const WINDOW_SECONDS: f64 = 2.0;
/// Less wall time than this is not yet a measurement.
const MIN_MEASURED_SECONDS: f64 = 0.5;
/// Below this share of the asked-for speed the HUD says the world is behind.
pub const BEHIND_BELOW: f64 = 0.95;

#[derive(Debug, Clone, Copy)]
struct Sample {
    wall: f64,
    simulated: f64,
    /// Simulated seconds asked for (wall × time scale).
    asked: f64,
}

/// A sliding window of frames: wall time, simulated time, asked-for simulated time.
#[derive(Debug, Clone, Default)]
pub struct SpeedMeter {
    samples: VecDeque<Sample>,
    wall: f64,
    simulated: f64,
    asked: f64,
    /// Since start, for reports: wall seconds of running (not paused) frames and the simulated
    /// seconds they advanced.
    pub wall_total: f64,
    pub simulated_total: f64,
}

impl SpeedMeter {
    /// One running frame: `wall` seconds passed, `simulated` seconds were stepped, at
    /// `time_scale` (the player's slow motion or fast forward).
    pub fn record(&mut self, wall: f64, simulated: f64, time_scale: f64) {
        let s = Sample {
            wall,
            simulated,
            asked: wall * time_scale,
        };
        self.samples.push_back(s);
        self.add(s, 1.0);
        self.wall_total += wall;
        self.simulated_total += simulated;
        // Keep at least the newest frame, however long it was.
        while self.samples.len() > 1 && self.wall - self.samples[0].wall >= WINDOW_SECONDS {
            if let Some(old) = self.samples.pop_front() {
                self.add(old, -1.0);
            }
        }
    }

    fn add(&mut self, s: Sample, sign: f64) {
        self.wall += sign * s.wall;
        self.simulated += sign * s.simulated;
        self.asked += sign * s.asked;
    }

    /// Simulated seconds per wall second over the window; None until enough time was measured.
    pub fn ratio(&self) -> Option<f64> {
        (self.wall >= MIN_MEASURED_SECONDS).then(|| (self.simulated / self.wall).max(0.0))
    }

    /// The ratio, when the world runs clearly slower than asked for (time scale included).
    pub fn behind(&self) -> Option<f64> {
        let ratio = self.ratio()?;
        (self.asked > 0.0 && self.simulated < BEHIND_BELOW * self.asked).then_some(ratio)
    }
}

/// The HUD's plain words for a world that cannot keep up: "simulation at 0.3x real time".
pub fn behind_note(ratio: f64) -> String {
    let digits = if ratio < 0.095 { 2 } else { 1 };
    format!("simulation at {ratio:.digits$}x real time")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_ratio_until_half_a_second_was_measured() {
        let mut m = SpeedMeter::default();
        m.record(0.3, 0.0, 1.0);
        assert_eq!(m.ratio(), None);
        assert_eq!(m.behind(), None);
        m.record(0.3, 0.1, 1.0);
        assert_approx!(m.ratio().expect("measured"), 0.1 / 0.6, 1e-9);
    }

    #[test]
    fn the_window_forgets_frames_older_than_two_seconds() {
        let mut m = SpeedMeter::default();
        // Three seconds far behind, then three at full speed.
        for _ in 0..30 {
            m.record(0.1, 0.01, 1.0);
        }
        assert_approx!(m.behind().expect("behind"), 0.1, 1e-9);
        for _ in 0..30 {
            m.record(0.1, 0.1, 1.0);
        }
        assert_approx!(m.ratio().expect("measured"), 1.0, 1e-9);
        assert_eq!(m.behind(), None);
        assert_approx!(m.wall_total, 6.0, 1e-9);
        assert_approx!(m.simulated_total, 3.3, 1e-9);
    }

    #[test]
    fn slow_motion_asked_for_is_not_behind_and_frozen_time_never_is() {
        let mut m = SpeedMeter::default();
        for _ in 0..20 {
            m.record(0.1, 0.05, 0.5);
        }
        assert_eq!(m.behind(), None);
        assert_approx!(m.ratio().expect("measured"), 0.5, 1e-9);
        let mut m = SpeedMeter::default();
        for _ in 0..20 {
            m.record(0.1, 0.0, 0.0);
        }
        assert_eq!(m.behind(), None);
        // Fast forward that only reaches 1x is behind what was asked.
        let mut m = SpeedMeter::default();
        for _ in 0..20 {
            m.record(0.1, 0.1, 4.0);
        }
        assert_approx!(m.behind().expect("behind"), 1.0, 1e-9);
    }

    #[test]
    fn a_single_frame_longer_than_the_window_still_counts() {
        let mut m = SpeedMeter::default();
        m.record(2.5, 2.0, 1.0);
        m.record(2.5, 2.0, 1.0);
        assert_approx!(m.behind().expect("behind"), 0.8, 1e-9);
    }

    #[test]
    fn the_note_says_the_ratio_plainly() {
        assert_eq!(behind_note(0.3), "simulation at 0.3x real time");
        assert_eq!(behind_note(0.0834), "simulation at 0.08x real time");
        assert_eq!(behind_note(0.8), "simulation at 0.8x real time");
    }
}

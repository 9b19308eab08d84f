//! CPU time per frame stage, smoothed so the numbers can be read while they change.

use crate::clock::Instant;
use std::time::Duration;

/// The stages of a frame, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Simulation,
    Animation,
    Palettes,
    Morphs,
    /// Frustum culling, LOD buckets and instance packing.
    CullLodPack,
    Submission,
    Ui,
}

impl Stage {
    pub const ALL: [Stage; 7] = [
        Stage::Simulation,
        Stage::Animation,
        Stage::Palettes,
        Stage::Morphs,
        Stage::CullLodPack,
        Stage::Submission,
        Stage::Ui,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Stage::Simulation => "simulation",
            Stage::Animation => "animation",
            Stage::Palettes => "palettes",
            Stage::Morphs => "morphs",
            Stage::CullLodPack => "cull+LOD+pack",
            Stage::Submission => "draw submission",
            Stage::Ui => "ui",
        }
    }
}

/// Exponential moving average: the first sample is taken as is, then each new sample moves the
/// average by `weight` (10% by default), so one spike shows without swamping the reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ema {
    value: Option<f64>,
    weight: f64,
}

impl Default for Ema {
    fn default() -> Self {
        Ema {
            value: None,
            weight: 0.1,
        }
    }
}

impl Ema {
    pub fn add(&mut self, sample: f64) {
        if !sample.is_finite() {
            return;
        }
        self.value = Some(match self.value {
            None => sample,
            Some(v) => v + (sample - v) * self.weight,
        });
    }

    /// None until the first sample: a stage that never ran shows as absent, not as 0.
    pub fn get(&self) -> Option<f64> {
        self.value
    }
}

/// Smoothed milliseconds per stage plus this frame's raw values.
#[derive(Debug, Clone, Default)]
pub struct StageTimings {
    smoothed: [Ema; 7],
    this_frame: [f64; 7],
    ran: [bool; 7],
}

impl StageTimings {
    fn slot(stage: Stage) -> usize {
        stage as usize
    }

    /// Adds time to a stage for the current frame (a stage may be measured in several pieces).
    pub fn add(&mut self, stage: Stage, elapsed: Duration) {
        let i = Self::slot(stage);
        self.this_frame[i] += elapsed.as_secs_f64() * 1000.0;
        self.ran[i] = true;
    }

    /// Runs `f`, charging its monotonic-clock time to `stage`.
    pub fn measure<R>(&mut self, stage: Stage, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let r = f();
        self.add(stage, start.elapsed());
        r
    }

    /// Closes the frame: folds this frame's times into the averages.
    pub fn end_frame(&mut self) {
        for i in 0..self.this_frame.len() {
            if self.ran[i] {
                self.smoothed[i].add(self.this_frame[i]);
            }
            self.this_frame[i] = 0.0;
            self.ran[i] = false;
        }
    }

    pub fn smoothed_ms(&self, stage: Stage) -> Option<f64> {
        self.smoothed[Self::slot(stage)].get()
    }

    pub fn frame_ms(&self, stage: Stage) -> f64 {
        self.this_frame[Self::slot(stage)]
    }
}

/// The last few seconds of frame times, with marks where the crowd size changed.
#[derive(Debug, Clone)]
pub struct FrameHistory {
    capacity: usize,
    frames: std::collections::VecDeque<(f32, bool)>,
}

impl FrameHistory {
    pub fn new(capacity: usize) -> Self {
        FrameHistory {
            capacity: capacity.max(2),
            frames: std::collections::VecDeque::with_capacity(capacity.max(2)),
        }
    }

    pub fn push(&mut self, frame_ms: f32, crowd_changed: bool) {
        if self.frames.len() == self.capacity {
            self.frames.pop_front();
        }
        self.frames.push_back((frame_ms, crowd_changed));
    }

    /// Oldest first: (milliseconds, crowd size changed on this frame).
    pub fn iter(&self) -> impl Iterator<Item = (f32, bool)> + '_ {
        self.frames.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn max_ms(&self) -> f32 {
        self.frames.iter().map(|f| f.0).fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ema_takes_the_first_sample_then_ten_percent() {
        let mut e = Ema::default();
        assert_eq!(e.get(), None);
        e.add(10.0);
        assert_eq!(e.get(), Some(10.0));
        e.add(20.0);
        assert_approx!(e.get().unwrap_or(0.0), 11.0, 1e-12);
        e.add(f64::NAN);
        assert_approx!(e.get().unwrap_or(0.0), 11.0, 1e-12);
    }

    #[test]
    fn stages_that_did_not_run_stay_absent_and_pieces_add_up() {
        let mut t = StageTimings::default();
        t.add(Stage::Simulation, Duration::from_millis(2));
        t.add(Stage::Simulation, Duration::from_millis(3));
        assert_approx!(t.frame_ms(Stage::Simulation), 5.0, 1e-9);
        t.end_frame();
        assert_eq!(t.smoothed_ms(Stage::Simulation), Some(5.0));
        assert_eq!(t.smoothed_ms(Stage::Morphs), None);
        assert_eq!(t.frame_ms(Stage::Simulation), 0.0);
        t.add(Stage::Simulation, Duration::from_millis(15));
        t.end_frame();
        assert_approx!(t.smoothed_ms(Stage::Simulation).unwrap_or(0.0), 6.0, 1e-9);
    }

    #[test]
    fn history_keeps_the_last_frames_and_marks() {
        let mut h = FrameHistory::new(3);
        for (i, ms) in [1.0, 2.0, 3.0, 4.0].iter().enumerate() {
            h.push(*ms, i == 3);
        }
        let v: Vec<_> = h.iter().collect();
        assert_eq!(v, vec![(2.0, false), (3.0, false), (4.0, true)]);
        assert_eq!(h.max_ms(), 4.0);
    }
}

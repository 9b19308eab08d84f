//! Adaptive quality: holds a frame-time budget by stepping down a ladder of cheaper pictures
//! (shorter LOD distances, a coarser shadow map) and back up when there is room again. It only
//! ever changes how the world is drawn, never how many people are in it.

/// The default budget: about 30 frames per second.
pub const DEFAULT_FRAME_BUDGET_MS: f32 = 33.3;
pub use crate::arg_values::{MAX_FRAME_BUDGET_MS, MIN_FRAME_BUDGET_MS};

/// One rung of the ladder: what the picture costs less by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quality {
    /// The near and mid LOD distances are multiplied by this; the far one (beyond it nobody is
    /// drawn) by its mean with 1, so the distant crowd thins less than the detail does.
    pub lod_scale: f32,
    /// Edge of the part of the shadow map drawn into, in texels.
    pub shadow_texels: u32,
    /// Multisampled main pass (when the player has it on).
    pub antialias: bool,
}

impl Default for Quality {
    fn default() -> Self {
        LADDER[0]
    }
}

impl Quality {
    /// What the far LOD distance is multiplied by (see `lod_scale`).
    pub fn far_scale(&self) -> f32 {
        (1.0 + self.lod_scale) * 0.5
    }
}

/// Best first. Each rung saves on one thing at a time: antialiasing goes first (the dearest
/// for what it shows), then the shadow map and the detail distances take turns.
pub const LADDER: [Quality; 8] = [
    Quality {
        lod_scale: 1.0,
        shadow_texels: 2048,
        antialias: true,
    },
    Quality {
        lod_scale: 1.0,
        shadow_texels: 2048,
        antialias: false,
    },
    Quality {
        lod_scale: 0.8,
        shadow_texels: 2048,
        antialias: false,
    },
    Quality {
        lod_scale: 0.8,
        shadow_texels: 1024,
        antialias: false,
    },
    Quality {
        lod_scale: 0.6,
        shadow_texels: 1024,
        antialias: false,
    },
    Quality {
        lod_scale: 0.6,
        shadow_texels: 512,
        antialias: false,
    },
    Quality {
        lod_scale: 0.45,
        shadow_texels: 512,
        antialias: false,
    },
    Quality {
        lod_scale: 0.3,
        shadow_texels: 512,
        antialias: false,
    },
];

/// The first frames compile shaders and upload the crowd: they say nothing about how long
/// frames take, so the controller starts judging after both of these.
const WARMUP_FRAMES: u32 = 10;
const WARMUP_SECONDS: f32 = 2.0;
/// Frame times are smoothed over about this many seconds.
const SMOOTHING_SECONDS: f32 = 0.5;
/// After a change, wait this long (and `SETTLE_FRAMES`) before judging the new rung.
const SETTLE_SECONDS: f32 = 1.0;
const SETTLE_FRAMES: u32 = 3;
/// Step back up only below this share of the budget...
const HEADROOM: f32 = 0.7;
/// ...held this long; doubled each time a step up had to be undone soon after.
const HEADROOM_SECONDS: f32 = 3.0;
const MAX_HEADROOM_SECONDS: f32 = 60.0;
/// A step up undone within this many seconds counts as a failed try.
const FAILED_TRY_SECONDS: f32 = 10.0;

/// The controller: fed every frame's time, it says which rung to draw at.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveQuality {
    budget_ms: f32,
    enabled: bool,
    level: usize,
    /// Frames and seconds seen, up to the warm-up.
    warmup: (u32, f32),
    smoothed_ms: Option<f32>,
    since_change: f32,
    frames_since_change: u32,
    headroom_for: f32,
    headroom_needed: f32,
    /// The last change was a step up (to know when one failed).
    last_was_up: bool,
}

impl AdaptiveQuality {
    /// A controller holding `budget_ms` (off: always the best rung).
    pub fn new(budget_ms: f32, enabled: bool) -> Self {
        let budget_ms = if budget_ms.is_finite() {
            budget_ms.clamp(MIN_FRAME_BUDGET_MS, MAX_FRAME_BUDGET_MS)
        } else {
            DEFAULT_FRAME_BUDGET_MS
        };
        AdaptiveQuality {
            budget_ms,
            enabled,
            level: 0,
            warmup: (0, 0.0),
            smoothed_ms: None,
            since_change: 0.0,
            frames_since_change: 0,
            headroom_for: 0.0,
            headroom_needed: HEADROOM_SECONDS,
            last_was_up: false,
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn budget_ms(&self) -> f32 {
        self.budget_ms
    }

    /// The rung in use: 0 is the best picture, `LADDER.len() - 1` the cheapest.
    pub fn level(&self) -> usize {
        self.level
    }

    pub fn quality(&self) -> Quality {
        LADDER[self.level]
    }

    /// The smoothed frame time the controller acts on (None before the first frame).
    pub fn smoothed_ms(&self) -> Option<f32> {
        self.smoothed_ms
    }

    /// On the cheapest rung and still over budget: drawing less cannot help any more.
    pub fn exhausted(&self) -> bool {
        self.enabled
            && self.level == LADDER.len() - 1
            && self.smoothed_ms.is_some_and(|ms| ms > self.budget_ms)
    }

    /// One frame took `frame_ms`; returns whether the rung changed.
    pub fn observe(&mut self, frame_ms: f32) -> bool {
        if !(self.enabled && frame_ms.is_finite() && frame_ms >= 0.0) {
            return false;
        }
        let dt = frame_ms / 1000.0;
        if self.warmup.0 < WARMUP_FRAMES || self.warmup.1 < WARMUP_SECONDS {
            self.warmup = (self.warmup.0 + 1, self.warmup.1 + dt);
            return false;
        }
        let k = 1.0 - (-dt / SMOOTHING_SECONDS).exp();
        let ms = match self.smoothed_ms {
            Some(s) => s + (frame_ms - s) * k,
            None => frame_ms,
        };
        self.smoothed_ms = Some(ms);
        self.since_change += dt;
        self.frames_since_change += 1;
        self.headroom_for = if ms < self.budget_ms * HEADROOM {
            self.headroom_for + dt
        } else {
            0.0
        };
        let settled =
            self.since_change >= SETTLE_SECONDS && self.frames_since_change >= SETTLE_FRAMES;
        if !settled {
            return false;
        }
        if ms > self.budget_ms && self.level + 1 < LADDER.len() {
            if self.last_was_up && self.since_change < FAILED_TRY_SECONDS {
                self.headroom_needed = (self.headroom_needed * 2.0).min(MAX_HEADROOM_SECONDS);
            }
            self.change(self.level + 1, false);
            return true;
        }
        if self.level > 0 && self.headroom_for >= self.headroom_needed {
            self.change(self.level - 1, true);
            return true;
        }
        false
    }

    fn change(&mut self, level: usize, up: bool) {
        self.level = level;
        self.since_change = 0.0;
        self.frames_since_change = 0;
        self.headroom_for = 0.0;
        self.last_was_up = up;
        // The old rung's frames say nothing about the new one.
        self.smoothed_ms = None;
    }

    /// For the HUD and the performance panel: "quality 3/7 (LOD x0.60, shadows 1024) for 33 ms"
    /// (", AA" after the shadows on the rung that keeps antialiasing).
    pub fn label(&self) -> String {
        if !self.enabled {
            return "adaptive quality off".to_string();
        }
        let q = self.quality();
        format!(
            "quality {}/{} (LOD x{:.2}, shadows {}{}) for {:.0} ms",
            LADDER.len() - 1 - self.level,
            LADDER.len() - 1,
            q.lod_scale,
            q.shadow_texels,
            if q.antialias { ", AA" } else { "" },
            self.budget_ms
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `seconds` of frames whose time depends on the rung (plus a little jitter); returns
    /// how many times the rung changed.
    fn run(c: &mut AdaptiveQuality, seconds: f32, cost: impl Fn(usize) -> f32) -> u32 {
        let (mut t, mut changes, mut i) = (0.0, 0, 0u32);
        while t < seconds {
            // ±5 % jitter, deterministic.
            let jitter = 1.0 + 0.05 * ((i as f32 * 2.399).sin());
            let ms = cost(c.level()) * jitter;
            changes += u32::from(c.observe(ms));
            t += ms / 1000.0;
            i += 1;
        }
        changes
    }

    const COSTS: [f32; 8] = [50.0, 46.0, 42.0, 36.0, 28.0, 22.0, 18.0, 15.0];

    #[test]
    fn it_steps_down_until_the_budget_holds_then_stays() {
        let mut c = AdaptiveQuality::new(33.3, true);
        let changes = run(&mut c, 20.0, |l| COSTS[l]);
        assert_eq!(c.level(), 4, "28 ms is the first rung under 33.3 ms");
        assert_eq!(changes, 4, "straight down, no back and forth");
        assert!(!c.exhausted());
        assert_eq!(c.quality().shadow_texels, 1024);
        assert_eq!(c.label(), "quality 3/7 (LOD x0.60, shadows 1024) for 33 ms");
        assert!(LADDER[0].antialias && !LADDER[1].antialias);
    }

    #[test]
    fn it_restores_quality_when_there_is_room_again() {
        let mut c = AdaptiveQuality::new(33.3, true);
        run(&mut c, 20.0, |l| COSTS[l]);
        // The scene got lighter: every rung costs half.
        run(&mut c, 40.0, |l| COSTS[l] * 0.5);
        assert_eq!(c.level(), 0);
        assert_eq!(c.quality(), LADDER[0]);
    }

    #[test]
    fn a_rung_just_over_and_the_next_well_under_do_not_flap() {
        // Rung 3 is over budget, rung 4 has headroom: without hysteresis it would swap every
        // few seconds for ever.
        let costs = [60.0, 55.0, 50.0, 36.0, 22.0, 20.0, 18.0, 15.0];
        let mut c = AdaptiveQuality::new(33.3, true);
        let changes = run(&mut c, 300.0, |l| costs[l]);
        assert!(changes <= 20, "{changes} changes in five minutes");
        assert!(c.level() >= 3);
        // Most of the late time is spent on the rung that holds the budget.
        let mut on_three = 0.0;
        let mut t = 0.0;
        while t < 120.0 {
            let ms = costs[c.level()];
            c.observe(ms);
            if c.level() == 4 {
                on_three += ms / 1000.0;
            }
            t += ms / 1000.0;
        }
        assert!(
            on_three > 100.0,
            "{on_three} s of 120 on the rung that holds"
        );
    }

    #[test]
    fn when_nothing_is_cheap_enough_it_says_so() {
        let mut c = AdaptiveQuality::new(33.3, true);
        run(&mut c, 30.0, |_| 400.0);
        assert_eq!(c.level(), LADDER.len() - 1);
        assert!(c.exhausted());
    }

    #[test]
    fn slow_frames_of_a_second_each_still_converge() {
        let mut c = AdaptiveQuality::new(100.0, true);
        let changes = run(&mut c, 60.0, |l| {
            [900.0, 700.0, 500.0, 300.0, 90.0, 80.0, 70.0, 60.0][l]
        });
        assert_eq!((c.level(), changes), (4, 4));
    }

    #[test]
    fn the_first_frames_are_not_judged() {
        let mut c = AdaptiveQuality::new(33.3, true);
        // Loading hitches: nine frames of two seconds, then one more frame.
        for _ in 0..9 {
            assert!(!c.observe(2000.0));
        }
        assert_eq!(c.smoothed_ms(), None);
        assert!(!c.observe(2000.0));
        assert_eq!(
            c.smoothed_ms(),
            None,
            "the tenth frame still belongs to the warm-up"
        );
        c.observe(20.0);
        assert_eq!((c.level(), c.smoothed_ms()), (0, Some(20.0)));
    }

    #[test]
    fn off_it_never_changes_and_bad_input_is_ignored() {
        let mut c = AdaptiveQuality::new(33.3, false);
        assert_eq!(run(&mut c, 10.0, |_| 500.0), 0);
        assert_eq!(c.level(), 0);
        assert!(!c.exhausted());
        assert_eq!(c.label(), "adaptive quality off");
        let mut c = AdaptiveQuality::new(f32::NAN, true);
        assert_eq!(c.budget_ms(), DEFAULT_FRAME_BUDGET_MS);
        assert!(!c.observe(f32::NAN) && !c.observe(-1.0));
        assert_eq!(c.smoothed_ms(), None);
    }
}

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

/// Best first. The cheap rungs give up what shows least first: antialiasing (the dearest on a
/// software renderer for what it shows), then shadow texels, and only then the detail
/// distances, which turn people into impostors nearer the eye (never the near ring: see
/// `ViewSettings::drawn_lod`).
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
        lod_scale: 1.0,
        shadow_texels: 1024,
        antialias: false,
    },
    Quality {
        lod_scale: 1.0,
        shadow_texels: 512,
        antialias: false,
    },
    Quality {
        lod_scale: 0.8,
        shadow_texels: 512,
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

/// What one frame drew, so the controller can predict what another rung would cost.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameLoad {
    /// Milliseconds of the frame that no rung changes (simulation, extraction, panels, a
    /// `--slow-frame-ms` pause).
    pub fixed_ms: f32,
    /// Triangles drawn, both passes.
    pub triangles: f64,
    /// Of them, the crowd's meshes (shorter detail distances turn these into impostors).
    pub crowd_mesh_triangles: f64,
    /// Pixels of the main pass.
    pub pixels: f64,
    /// The player allows antialiasing (else no rung multisamples).
    pub antialias_allowed: bool,
    pub shadows: bool,
    /// The frame also loaded something (models, the crowd's GPU side, the impostor atlas): its
    /// time says nothing about the rung.
    pub loading: bool,
}

/// The cost model's weights, in units of one shaded main-pass sample: rasterising one
/// triangle (vertex work included: the crowd skins on the GPU) and one shadow-map texel
/// (depth only). Rough, from llvmpipe (README: 4x multisampling at 1,000 people adds ~1 s to
/// a 0.4 s frame); each judgement re-calibrates the total on the frame just measured.
const TRIANGLE_WEIGHT: f64 = 1.5;
const SHADOW_TEXEL_WEIGHT: f64 = 0.25;
/// Samples per pixel of a multisampled main pass.
const MSAA_SAMPLES: f64 = 4.0;

impl FrameLoad {
    /// The rung-dependent work of drawing this frame at `q` when it was drawn at `now`.
    fn units(&self, q: Quality, now: Quality) -> f64 {
        let samples = if q.antialias && self.antialias_allowed {
            MSAA_SAMPLES
        } else {
            1.0
        };
        let texels = if self.shadows {
            f64::from(q.shadow_texels).powi(2)
        } else {
            0.0
        };
        // The crowd's meshes reach about as far as the detail distances: an area.
        let reach = f64::from(q.lod_scale / now.lod_scale).powi(2);
        let mesh = self.crowd_mesh_triangles.min(self.triangles);
        let triangles = self.triangles - mesh + mesh * reach;
        self.pixels * samples + texels * SHADOW_TEXEL_WEIGHT + triangles * TRIANGLE_WEIGHT
    }
}

/// Each rung's predicted frame time, from a frame of `frame_ms` drawn at `now` with `load`:
/// the fixed part stays, the rest scales with the work the cost model counts.
pub fn predict(load: &FrameLoad, frame_ms: f32, now: Quality) -> [f32; LADDER.len()] {
    let fixed = load.fixed_ms.clamp(0.0, frame_ms);
    let drawing = f64::from(frame_ms - fixed);
    let base = load.units(now, now);
    LADDER.map(|q| {
        let ratio = if base > 0.0 {
            load.units(q, now) / base
        } else {
            1.0
        };
        fixed + (drawing * ratio) as f32
    })
}

/// The very first frame compiles shaders and uploads the crowd: never judged.
const WARMUP_FRAMES: u32 = 1;
/// Frame times are smoothed over about this many seconds once a rung is judged.
const SMOOTHING_SECONDS: f32 = 0.5;
/// Evidence a rung is judged on: this many seconds of its frames, and this many frames unless
/// they are long (a frame of `LONG_FRAME_SECONDS` or more counts as evidence on its own: a
/// 10 s frame says plenty).
const SETTLE_SECONDS: f32 = 1.0;
const SETTLE_FRAMES: u32 = 3;
const LONG_FRAME_SECONDS: f32 = 0.25;
/// The first frame on a new rung may compile its shader variants (a software renderer builds
/// one per state): it is not judged.
const SKIP_AFTER_CHANGE: u32 = 1;
/// Step back up only below this share of the budget, and only to a rung predicted to fit...
const HEADROOM: f32 = 0.7;
/// ...held this long; doubled each time a step up had to be undone soon after.
const HEADROOM_SECONDS: f32 = 3.0;
const MAX_HEADROOM_SECONDS: f32 = 60.0;
/// A step up undone within this many seconds counts as a failed try.
const FAILED_TRY_SECONDS: f32 = 10.0;

/// The controller: fed every frame's time and load, it says which rung to draw at.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveQuality {
    budget_ms: f32,
    enabled: bool,
    level: usize,
    /// Frames seen (the warm-up skips the first).
    frames: u32,
    /// Seconds since the first frame ended, and of the last change.
    clock_s: f32,
    last_change_s: f32,
    /// A judgement kept the rung since the last change.
    settled: bool,
    /// Frames to skip before judging (warm-up, a new rung's first frame).
    skip: u32,
    /// Evidence on the current rung since the last change (or load): frames, seconds and the
    /// sum of their times.
    evidence: (u32, f32, f32),
    smoothed_ms: Option<f32>,
    headroom_for: f32,
    headroom_needed: f32,
    /// The last change was a step up (to know when one failed).
    last_was_up: bool,
    /// Rung changes so far.
    changes: u32,
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
            frames: 0,
            clock_s: 0.0,
            last_change_s: 0.0,
            settled: false,
            skip: WARMUP_FRAMES,
            evidence: (0, 0.0, 0.0),
            smoothed_ms: None,
            headroom_for: 0.0,
            headroom_needed: HEADROOM_SECONDS,
            last_was_up: false,
            changes: 0,
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

    /// The smoothed frame time the controller acts on (None before a rung was judged).
    pub fn smoothed_ms(&self) -> Option<f32> {
        self.smoothed_ms
    }

    /// Rung changes so far.
    pub fn changes(&self) -> u32 {
        self.changes
    }

    /// Seconds from the end of the first frame to the last rung change, once a judgement kept
    /// the rung it changed to (None while that is pending, and when adaptive quality is off).
    pub fn settled_after_s(&self) -> Option<f32> {
        (self.enabled && self.settled).then_some(self.last_change_s)
    }

    /// On the cheapest rung and still over budget: drawing less cannot help any more.
    pub fn exhausted(&self) -> bool {
        self.enabled
            && self.level == LADDER.len() - 1
            && self.smoothed_ms.is_some_and(|ms| ms > self.budget_ms)
    }

    /// One frame took `frame_ms` drawing `load`; returns whether the rung changed.
    pub fn observe(&mut self, frame_ms: f32, load: &FrameLoad) -> bool {
        if !(self.enabled && frame_ms.is_finite() && frame_ms >= 0.0) {
            return false;
        }
        let dt = frame_ms / 1000.0;
        if self.frames > 0 {
            self.clock_s += dt;
        }
        self.frames = self.frames.saturating_add(1);
        if load.loading {
            // A load's frame, and what was gathered before it, say nothing about this rung.
            self.evidence = (0, 0.0, 0.0);
            return false;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        let (n, seconds, sum) = self.evidence;
        self.evidence = (n + 1, seconds + dt, sum + frame_ms);
        let ms = match self.smoothed_ms {
            Some(s) => s + (frame_ms - s) * (1.0 - (-dt / SMOOTHING_SECONDS).exp()),
            // The first judgement of a rung: the mean of its evidence.
            None => {
                let (n, seconds, sum) = self.evidence;
                let enough = seconds >= SETTLE_SECONDS
                    && (n >= SETTLE_FRAMES || seconds >= n as f32 * LONG_FRAME_SECONDS);
                if !enough {
                    return false;
                }
                sum / n as f32
            }
        };
        self.smoothed_ms = Some(ms);
        self.headroom_for = if ms < self.budget_ms * HEADROOM {
            self.headroom_for + dt
        } else {
            0.0
        };
        let predicted = predict(load, ms, self.quality());
        if ms > self.budget_ms && self.level + 1 < LADDER.len() {
            if self.last_was_up && self.clock_s - self.last_change_s < FAILED_TRY_SECONDS {
                self.headroom_needed = (self.headroom_needed * 2.0).min(MAX_HEADROOM_SECONDS);
            }
            // Straight to the best rung predicted to fit; when none does, the cheapest if the
            // model sees it saving anything, else one step (a frame that drew nothing the model
            // counts says nothing about the other rungs).
            let cheapest = LADDER.len() - 1;
            let target = (self.level + 1..LADDER.len())
                .find(|&r| predicted[r] <= self.budget_ms)
                .unwrap_or(if predicted[cheapest] < ms {
                    cheapest
                } else {
                    self.level + 1
                });
            self.change(target, false);
            return true;
        }
        let up_fits = self.level > 0 && predicted[self.level - 1] <= self.budget_ms;
        if up_fits && self.headroom_for >= self.headroom_needed {
            self.change(self.level - 1, true);
            return true;
        }
        self.settled = true;
        false
    }

    fn change(&mut self, level: usize, up: bool) {
        self.level = level;
        self.last_change_s = self.clock_s;
        self.settled = false;
        self.skip = SKIP_AFTER_CHANGE;
        self.evidence = (0, 0.0, 0.0);
        self.headroom_for = 0.0;
        self.last_was_up = up;
        self.changes += 1;
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

    /// A scene like the default plaza's at 1280x720: what rung `r` draws, and what that frame
    /// costs when the true weights are `tri` and `texel` (the model's own are 1.5 and 0.25)
    /// and a sample costs `ns_per_sample`.
    fn scene(
        r: usize,
        fixed_ms: f32,
        ns_per_sample: f64,
        tri: f64,
        texel: f64,
    ) -> (f32, FrameLoad) {
        let q = LADDER[r];
        let mesh = 450_000.0 * f64::from(q.lod_scale).powi(2);
        let load = FrameLoad {
            fixed_ms,
            triangles: 60_000.0 + mesh,
            crowd_mesh_triangles: mesh,
            pixels: 1280.0 * 720.0,
            antialias_allowed: true,
            shadows: true,
            loading: false,
        };
        let samples = if q.antialias { 4.0 } else { 1.0 };
        let work = load.pixels * samples
            + f64::from(q.shadow_texels).powi(2) * texel
            + load.triangles * tri;
        (fixed_ms + (work * ns_per_sample * 1e-6) as f32, load)
    }

    /// Feeds frames for `seconds` (their cost from `cost`, ±5 % deterministic jitter); returns
    /// the rung changes.
    fn run(c: &mut AdaptiveQuality, seconds: f32, cost: impl Fn(usize) -> (f32, FrameLoad)) -> u32 {
        let (mut t, mut changes, mut i) = (0.0, 0, 0u32);
        while t < seconds {
            let jitter = 1.0 + 0.05 * ((i as f32 * 2.399).sin());
            let (ms, load) = cost(c.level());
            changes += u32::from(c.observe(ms * jitter, &load));
            t += ms * jitter / 1000.0;
            i += 1;
        }
        changes
    }

    /// Plain frame times per rung, with a load that predicts nothing (no triangles or pixels:
    /// every rung predicted at the measured time).
    fn flat(costs: [f32; 8]) -> impl Fn(usize) -> (f32, FrameLoad) {
        move |l| (costs[l], FrameLoad::default())
    }

    #[test]
    fn second_long_frames_land_on_the_rung_that_fits_in_one_jump() {
        let cost = |r| scene(r, 40.0, 180.0, 1.5, 0.25);
        let truth: Vec<f32> = (0..8).map(|r| cost(r).0).collect();
        assert!((900.0..1_100.0).contains(&truth[0]), "{truth:?}");
        // A budget the picture holds without shortening the detail distances.
        let budget = 380.0;
        let best = truth
            .iter()
            .position(|&ms| ms <= budget)
            .expect("a rung fits");
        assert_eq!(best, 3, "{truth:?}");
        let mut c = AdaptiveQuality::new(budget, true);
        // Frame 1 loads; frame 2 is the first evidence.
        assert!(!c.observe(25_000.0, &cost(0).1));
        assert_eq!(c.settled_after_s(), None);
        let (ms, load) = cost(0);
        assert!(
            c.observe(ms, &load),
            "a one-second frame is evidence enough"
        );
        assert_eq!((c.level(), c.changes()), (best, 1));
        assert_eq!(c.settled_after_s(), None, "the new rung is not judged yet");
        // The new rung's first frame may compile shaders; then a second of its frames (3).
        for _ in 0..4 {
            let (ms, load) = cost(c.level());
            assert!(!c.observe(ms, &load));
        }
        assert_eq!(c.level(), best);
        assert_approx!(c.settled_after_s().expect("settled"), ms / 1000.0, 1e-3);
        assert!(!c.exhausted());
        assert_eq!(run(&mut c, 60.0, cost), 0, "and it stays");
    }

    #[test]
    fn ten_second_frames_with_nothing_fitting_go_straight_to_the_cheapest_rung() {
        // About 10 s a frame at full quality, as on a 2-core software renderer at 30 fps.
        let cost = |r| scene(r, 40.0, 1800.0, 1.5, 0.25);
        let (ms, load) = cost(0);
        assert!((9_000.0..11_000.0).contains(&ms), "{ms}");
        let mut c = AdaptiveQuality::new(33.3, true);
        assert!(!c.observe(25_000.0, &load), "the first frame loads");
        assert!(c.observe(ms, &load), "one 10 s frame is evidence enough");
        assert_eq!(c.level(), LADDER.len() - 1);
        for _ in 0..2 {
            let (ms, load) = cost(c.level());
            assert!(!c.observe(ms, &load));
        }
        // Settled at the end of the first frame it could judge.
        assert_approx!(c.settled_after_s().expect("settled"), ms / 1000.0, 1e-3);
        assert_eq!(run(&mut c, 60.0, cost), 0);
        assert!(c.exhausted());
        assert_eq!(c.changes(), 1);
    }

    #[test]
    fn a_wrong_cost_model_is_corrected_by_the_next_judgements() {
        // Triangles really cost four times what the model assumes and shadow texels nothing:
        // the first jump (to the shadow rungs) falls short; the next frames go on down.
        let cost = |r| scene(r, 40.0, 1100.0, 6.0, 0.0);
        let truth: Vec<f32> = (0..8).map(|r| cost(r).0).collect();
        let budget = 2_500.0;
        let best = truth
            .iter()
            .position(|&ms| ms <= budget)
            .expect("a rung fits");
        assert!(best >= 4, "{truth:?}");
        let mut c = AdaptiveQuality::new(budget, true);
        let changes = run(&mut c, 120.0, cost);
        assert!(truth[c.level()] <= budget, "{} at {truth:?}", c.level());
        assert!(c.level() <= best + 1, "{} at {truth:?}", c.level());
        assert!(changes <= 4, "{changes} changes");
        let settled = c.settled_after_s().expect("settled");
        assert!(settled < 30.0, "settled {settled} s after the first frame");
    }

    #[test]
    fn it_steps_down_until_the_budget_holds_then_stays() {
        let mut c = AdaptiveQuality::new(33.3, true);
        let changes = run(
            &mut c,
            20.0,
            flat([50.0, 46.0, 42.0, 36.0, 28.0, 22.0, 18.0, 15.0]),
        );
        assert_eq!(c.level(), 4, "28 ms is the first rung under 33.3 ms");
        assert_eq!(changes, 4, "straight down, no back and forth");
        assert!(!c.exhausted());
        assert_eq!(c.quality().shadow_texels, 512);
        assert_eq!(c.label(), "quality 3/7 (LOD x0.80, shadows 512) for 33 ms");
        assert!(c.settled_after_s().is_some());
    }

    #[test]
    fn the_ladder_gives_up_antialiasing_and_shadow_texels_before_detail() {
        assert!(LADDER[0].antialias && LADDER[1..].iter().all(|q| !q.antialias));
        let first_shorter = LADDER.iter().position(|q| q.lod_scale < 1.0).expect("some");
        assert!(LADDER[..first_shorter]
            .iter()
            .any(|q| q.shadow_texels == 512));
        assert!(LADDER[first_shorter..]
            .iter()
            .all(|q| q.shadow_texels == 512));
        for pair in LADDER.windows(2) {
            assert!(pair[1].lod_scale <= pair[0].lod_scale);
            assert!(pair[1].shadow_texels <= pair[0].shadow_texels);
        }
    }

    #[test]
    fn it_restores_quality_when_there_is_room_again() {
        let costs = [50.0, 46.0, 42.0, 36.0, 28.0, 22.0, 18.0, 15.0];
        let mut c = AdaptiveQuality::new(33.3, true);
        run(&mut c, 20.0, flat(costs));
        // The scene got lighter: every rung costs half.
        run(&mut c, 40.0, flat(costs.map(|ms| ms * 0.5)));
        assert_eq!(c.level(), 0);
        assert_eq!(c.quality(), LADDER[0]);
    }

    #[test]
    fn it_does_not_step_up_to_a_rung_predicted_over_budget() {
        // Plenty of headroom on the cheapest rung, but the model says the next rung up would
        // cost four times as much: over the budget, so it stays.
        // Almost all triangles, most of them the crowd's meshes.
        let cost = |r: usize| {
            let (_, load) = scene(r, 1.0, 0.0, 1.5, 0.25);
            let load = FrameLoad {
                pixels: 1000.0,
                shadows: false,
                triangles: load.crowd_mesh_triangles,
                ..load
            };
            let ms = 1.0 + (load.units(LADDER[r], LADDER[r]) * 1e-4) as f32;
            (ms, load)
        };
        let truth: Vec<f32> = (0..8).map(|r| cost(r).0).collect();
        let budget = 12.0;
        assert!(
            truth[6] > budget && truth[7] * 1.05 < budget * HEADROOM,
            "{truth:?}"
        );
        let mut c = AdaptiveQuality::new(budget, true);
        let changes = run(&mut c, 60.0, cost);
        assert_eq!((c.level(), changes), (7, 1), "{truth:?}");
    }

    #[test]
    fn a_rung_just_over_and_the_next_well_under_do_not_flap() {
        // Rung 3 is over budget, rung 4 has headroom: without hysteresis it would swap every
        // few seconds for ever.
        let costs = [60.0, 55.0, 50.0, 36.0, 22.0, 20.0, 18.0, 15.0];
        let mut c = AdaptiveQuality::new(33.3, true);
        let changes = run(&mut c, 300.0, flat(costs));
        assert!(changes <= 20, "{changes} changes in five minutes");
        assert!(c.level() >= 3);
        // Most of the late time is spent on the rung that holds the budget.
        let mut on_four = 0.0;
        let mut t = 0.0;
        while t < 120.0 {
            let ms = costs[c.level()];
            c.observe(ms, &FrameLoad::default());
            if c.level() == 4 {
                on_four += ms / 1000.0;
            }
            t += ms / 1000.0;
        }
        assert!(on_four > 100.0, "{on_four} s of 120 on the rung that holds");
    }

    #[test]
    fn when_nothing_is_cheap_enough_it_says_so() {
        let mut c = AdaptiveQuality::new(33.3, true);
        // Frames that draw nothing the model counts: one rung at a time.
        let changes = run(&mut c, 30.0, flat([400.0; 8]));
        assert_eq!((c.level(), changes), (LADDER.len() - 1, 7));
        assert!(c.exhausted());
    }

    #[test]
    fn short_frames_are_judged_on_a_second_and_three_frames_of_them() {
        let mut c = AdaptiveQuality::new(33.3, true);
        let load = FrameLoad::default();
        assert!(!c.observe(2000.0, &load), "the first frame loads");
        for _ in 0..24 {
            assert!(!c.observe(40.0, &load), "under a second of evidence");
        }
        assert_eq!(c.smoothed_ms(), None);
        assert!(c.observe(40.0, &load), "a second of frames over budget");
        assert_eq!(c.level(), 1, "the model has nothing to go on: one step");
    }

    #[test]
    fn frames_that_load_are_not_judged_and_restart_the_evidence() {
        let mut c = AdaptiveQuality::new(33.3, true);
        let loading = FrameLoad {
            loading: true,
            ..Default::default()
        };
        assert!(!c.observe(500.0, &FrameLoad::default()));
        for _ in 0..5 {
            assert!(!c.observe(3000.0, &loading));
        }
        assert_eq!((c.smoothed_ms(), c.settled_after_s()), (None, None));
        assert!(!c.observe(20.0, &FrameLoad::default()));
        assert_eq!(c.smoothed_ms(), None, "one short frame is not enough");
        run(&mut c, 2.0, flat([20.0; 8]));
        assert_eq!(
            (c.level(), c.smoothed_ms().map(f32::round)),
            (0, Some(20.0))
        );
        assert_eq!(
            c.settled_after_s(),
            Some(0.0),
            "never changed: settled from the start"
        );
    }

    #[test]
    fn off_it_never_changes_and_bad_input_is_ignored() {
        let mut c = AdaptiveQuality::new(33.3, false);
        assert_eq!(run(&mut c, 10.0, flat([500.0; 8])), 0);
        assert_eq!(c.level(), 0);
        assert!(!c.exhausted());
        assert_eq!(c.settled_after_s(), None);
        assert_eq!(c.label(), "adaptive quality off");
        let mut c = AdaptiveQuality::new(f32::NAN, true);
        assert_eq!(c.budget_ms(), DEFAULT_FRAME_BUDGET_MS);
        let load = FrameLoad::default();
        assert!(!c.observe(f32::NAN, &load) && !c.observe(-1.0, &load));
        assert_eq!(c.smoothed_ms(), None);
    }

    #[test]
    fn the_model_predicts_its_own_scene_exactly() {
        let (ms, load) = scene(0, 40.0, 1100.0, 1.5, 0.25);
        let predicted = predict(&load, ms, LADDER[0]);
        for (r, p) in predicted.iter().enumerate() {
            assert_approx!(*p, scene(r, 40.0, 1100.0, 1.5, 0.25).0, 1.0);
        }
        // Without antialiasing allowed, the first two rungs cost the same.
        let no_aa = FrameLoad {
            antialias_allowed: false,
            ..load
        };
        let p = predict(&no_aa, 500.0, LADDER[1]);
        assert_eq!(p[0], p[1]);
        assert_eq!(predict(&FrameLoad::default(), 70.0, LADDER[3]), [70.0; 8]);
    }
}

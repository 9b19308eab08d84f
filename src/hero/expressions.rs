//! Facial expressions: VRM expressions (blink, happy, aa, lookUp …) and raw morph targets as
//! sliders, automatic blinking, and presets that ease in. Everything composes into morph
//! weights once per frame from the file's defaults, so nothing accumulates; `MorphState`
//! compares exactly, so unchanged weights cost no version bump and no vertex rebuild.

use std::collections::BTreeMap;

use crate::anim::MorphStateSet;
use crate::asset::{ExpressionOverride, SceneAsset};

/// The expressions each override holds back (VRM 1.0 `expressions.md`).
pub const BLINK_NAMES: [&str; 3] = ["blink", "blinkLeft", "blinkRight"];
pub const LOOK_AT_NAMES: [&str; 4] = ["lookLeft", "lookRight", "lookUp", "lookDown"];
pub const MOUTH_NAMES: [&str; 5] = ["aa", "ih", "ou", "ee", "oh"];

/// How much an expression at output weight `w` holds back the expressions of one override
/// (three-vrm's `override*Amount`): block holds fully at any weight, blend by its weight.
pub fn override_amount(mode: ExpressionOverride, w: f32) -> f32 {
    match mode {
        ExpressionOverride::None => 0.0,
        ExpressionOverride::Block => {
            if w > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        ExpressionOverride::Blend => w,
    }
}

/// `isBinary`: above one half is fully on, else off.
pub fn binary(w: f32) -> f32 {
    if w > 0.5 {
        1.0
    } else {
        0.0
    }
}

/// Seconds the lid takes to close and to open again (a blink is ~0.15 s).
pub const BLINK_CLOSE: f32 = 0.06;
pub const BLINK_OPEN: f32 = 0.09;
/// Seconds between blinks, drawn uniformly.
pub const BLINK_INTERVAL: (f32, f32) = (2.0, 6.0);
/// Seconds a preset takes to ease in.
const PRESET_SECONDS: f32 = 0.2;

/// Automatic blinking with random gaps.
#[derive(Debug, Clone)]
pub struct Blinker {
    rng: fastrand::Rng,
    /// Seconds until the next blink starts.
    wait: f32,
    /// Seconds into the current blink.
    blinking: Option<f32>,
    /// Whether this blink has shown the lid fully shut yet.
    shut_shown: bool,
    value: f32,
    pub blinks: u64,
}

impl Blinker {
    pub fn new(seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let wait = BLINK_INTERVAL.0 + rng.f32() * (BLINK_INTERVAL.1 - BLINK_INTERVAL.0);
        Blinker {
            rng,
            wait,
            blinking: None,
            shut_shown: false,
            value: 0.0,
            blinks: 0,
        }
    }

    /// Advances and returns the lid closure 0..1.
    pub fn update(&mut self, dt: f32) -> f32 {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        match self.blinking {
            None => {
                self.wait -= dt;
                if self.wait <= 0.0 {
                    // The overshoot past the start counts as time already blinking.
                    self.blinking = Some(-self.wait);
                    self.shut_shown = false;
                    self.blinks += 1;
                }
            }
            Some(t) => self.blinking = Some(t + dt),
        }
        self.value = match self.blinking {
            None => 0.0,
            Some(t) if t < BLINK_CLOSE => t / BLINK_CLOSE,
            // The frame that steps over the closed instant shows the lid shut, so that every
            // blink closes the eyes fully at any frame rate (at 60 Hz the ramp alone can peak
            // at 0.9 and read as a twitch).
            Some(_) if !self.shut_shown => {
                self.shut_shown = true;
                1.0
            }
            Some(t) if t < BLINK_CLOSE + BLINK_OPEN => 1.0 - (t - BLINK_CLOSE) / BLINK_OPEN,
            Some(_) => {
                self.blinking = None;
                self.wait =
                    BLINK_INTERVAL.0 + self.rng.f32() * (BLINK_INTERVAL.1 - BLINK_INTERVAL.0);
                0.0
            }
        };
        self.value
    }

    pub fn value(&self) -> f32 {
        self.value
    }
    /// Seconds until the next blink starts (0 while blinking).
    pub fn next_in(&self) -> f32 {
        if self.blinking.is_some() {
            0.0
        } else {
            self.wait
        }
    }
}

/// One slider of the Expressions panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Slider {
    pub name: String,
    pub value: f32,
    /// A preset eases the value here; a drag clears it.
    goal: Option<f32>,
    pub is_binary: bool,
}

impl Slider {
    fn new(name: String, is_binary: bool) -> Self {
        Slider {
            name,
            value: 0.0,
            goal: None,
            is_binary,
        }
    }
}

/// A morph target name and every (node, target) that carries it, across meshes and primitives.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetGroup {
    pub slider: Slider,
    pub binds: Vec<(usize, usize)>,
}

/// Emotions the presets choose between (one at a time).
pub const EMOTIONS: [&str; 5] = ["happy", "angry", "sad", "relaxed", "surprised"];

#[derive(Debug, Clone)]
pub struct Expressions {
    pub expressions: Vec<Slider>,
    pub targets: Vec<TargetGroup>,
    pub auto_blink: bool,
    pub blinker: Blinker,
    /// Per node: the weights being composed (empty for nodes without morph targets).
    scratch: Vec<Vec<f32>>,
    /// lookLeft, lookRight, lookUp, lookDown from look-at, set before `apply` (a slider above
    /// them wins).
    pub look_weights: [f32; 4],
    /// Per VRM expression: the weight applied last frame, after binary rounding and overrides.
    pub applied: Vec<f32>,
    /// The blink, look-at and mouth multipliers of the last frame (1: nothing overrides them).
    pub multipliers: [f32; 3],
}

impl Expressions {
    pub fn new(scene: &SceneAsset, seed: u64) -> Self {
        let expressions = scene
            .vrm
            .as_ref()
            .map(|v| {
                v.expressions
                    .iter()
                    .map(|e| Slider::new(e.name.clone(), e.is_binary))
                    .collect()
            })
            .unwrap_or_default();
        let mut groups: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
        let mut order = Vec::new();
        for (ni, n) in scene.nodes.iter().enumerate() {
            let Some(mesh) = n.mesh.and_then(|m| scene.meshes.get(m)) else {
                continue;
            };
            for (ti, name) in mesh.morph_target_names.iter().enumerate() {
                let e = groups.entry(name.clone()).or_insert_with(|| {
                    order.push(name.clone());
                    Vec::new()
                });
                e.push((ni, ti));
            }
        }
        let targets = order
            .into_iter()
            .map(|name| TargetGroup {
                binds: groups.remove(&name).unwrap_or_default(),
                slider: Slider::new(name, false),
            })
            .collect();
        Expressions {
            expressions,
            targets,
            auto_blink: true,
            blinker: Blinker::new(seed),
            scratch: scene.nodes.iter().map(|_| Vec::new()).collect(),
            look_weights: [0.0; 4],
            applied: Vec::new(),
            multipliers: [1.0; 3],
        }
    }

    pub fn expression_mut(&mut self, name: &str) -> Option<&mut Slider> {
        self.expressions.iter_mut().find(|s| s.name == name)
    }

    pub fn value(&self, name: &str) -> Option<f32> {
        self.expressions
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    }

    /// A slider drag: sets the value at once and cancels a preset's easing of it.
    pub fn set_expression(&mut self, name: &str, v: f32) -> bool {
        match self.expression_mut(name) {
            Some(s) => {
                s.value = v.clamp(0.0, 1.0);
                s.goal = None;
                true
            }
            None => false,
        }
    }

    pub fn set_target(&mut self, index: usize, v: f32) {
        if let Some(g) = self.targets.get_mut(index) {
            g.slider.value = v.clamp(0.0, 1.0);
        }
    }

    /// Eases one emotion to full and the others to zero (`neutral`: all to zero).
    pub fn preset(&mut self, name: &str) {
        for s in &mut self.expressions {
            if EMOTIONS.contains(&s.name.as_str()) || s.name == "neutral" {
                s.goal = Some(if s.name == name && name != "neutral" {
                    1.0
                } else {
                    0.0
                });
            }
        }
    }

    /// Every slider back to zero at once.
    pub fn reset_all(&mut self) {
        for s in &mut self.expressions {
            s.value = 0.0;
            s.goal = None;
        }
        for g in &mut self.targets {
            g.slider.value = 0.0;
        }
    }

    /// Advances presets and the blink, then writes the composed weights into `morphs`.
    /// Returns how many nodes' weights changed.
    pub fn apply(&mut self, dt: f32, scene: &SceneAsset, morphs: &mut MorphStateSet) -> usize {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        for s in &mut self.expressions {
            if let Some(goal) = s.goal {
                let step = dt / PRESET_SECONDS;
                s.value = if (goal - s.value).abs() <= step {
                    s.goal = None;
                    goal
                } else {
                    s.value + step * (goal - s.value).signum()
                };
            }
        }
        let blink = if self.auto_blink {
            self.blinker.update(dt)
        } else {
            0.0
        };
        for (ni, w) in self.scratch.iter_mut().enumerate() {
            w.clear();
            if let Some(n) = scene.nodes.get(ni) {
                if morphs.get(ni).is_some() {
                    w.extend_from_slice(&n.morph_weights);
                    let tc = n
                        .mesh
                        .and_then(|m| scene.meshes.get(m))
                        .map_or(0, |m| m.morph_target_names.len());
                    w.resize(tc, 0.0);
                }
            }
        }
        for g in &self.targets {
            if g.slider.value != 0.0 {
                for &(n, t) in &g.binds {
                    if let Some(x) = self.scratch.get_mut(n).and_then(|w| w.get_mut(t)) {
                        *x += g.slider.value;
                    }
                }
            }
        }
        if let Some(vrm) = &scene.vrm {
            // Output weights: the slider, the blinker and look-at feeding theirs, binary rounding.
            self.applied.clear();
            for (e, s) in vrm.expressions.iter().zip(&self.expressions) {
                let mut v = s.value;
                if e.name == "blink" {
                    v = v.max(blink);
                }
                if let Some(k) = LOOK_AT_NAMES.iter().position(|n| *n == e.name) {
                    v = v.max(self.look_weights[k]);
                }
                v = v.clamp(0.0, 1.0);
                if e.is_binary {
                    v = binary(v);
                }
                self.applied.push(v);
            }
            // Overrides (three-vrm's composition): every expression's amounts add up, and what
            // is left of 1 multiplies the blink, look-at and mouth expressions.
            let mut m = [1.0f32; 3];
            for (e, &w) in vrm.expressions.iter().zip(&self.applied) {
                m[0] -= override_amount(e.override_blink, w);
                m[1] -= override_amount(e.override_look_at, w);
                m[2] -= override_amount(e.override_mouth, w);
            }
            let m = m.map(|x| x.max(0.0));
            self.multipliers = m;
            for (e, w) in vrm.expressions.iter().zip(self.applied.iter_mut()) {
                let name = e.name.as_str();
                let mut v = *w;
                if BLINK_NAMES.contains(&name) {
                    v *= m[0];
                }
                if LOOK_AT_NAMES.contains(&name) {
                    v *= m[1];
                }
                if MOUTH_NAMES.contains(&name) {
                    v *= m[2];
                }
                // A binary expression held back partly is off.
                if e.is_binary && v < 1.0 {
                    v = 0.0;
                }
                *w = v;
                if v == 0.0 {
                    continue;
                }
                for b in &e.binds {
                    if let Some(x) = self
                        .scratch
                        .get_mut(b.node)
                        .and_then(|w| w.get_mut(b.target))
                    {
                        *x += b.weight * v;
                    }
                }
            }
        }
        let mut changed = 0;
        for (ni, w) in self.scratch.iter().enumerate() {
            if let Some(state) = morphs.get_mut(ni) {
                changed += state.set_weights(w) as usize;
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blinks_last_a_sixth_of_a_second_and_come_every_two_to_six() {
        let mut b = Blinker::new(7);
        let dt = 1.0 / 240.0;
        let mut starts = Vec::new();
        let mut closed_time = 0.0;
        let mut was_open = true;
        let mut peak: f32 = 0.0;
        for k in 0..(240 * 60) {
            let v = b.update(dt);
            peak = peak.max(v);
            if v > 0.0 {
                closed_time += dt;
                if was_open {
                    starts.push(k as f32 * dt);
                }
            }
            was_open = v == 0.0;
        }
        assert_eq!(peak, 1.0, "the lid closes fully");
        let n = starts.len() as f32;
        assert!((10.0..=30.0).contains(&n), "{n} blinks in a minute");
        for w in starts.windows(2) {
            let gap = w[1] - w[0];
            assert!(
                gap >= BLINK_INTERVAL.0 + BLINK_CLOSE && gap <= BLINK_INTERVAL.1 + 0.2,
                "gap {gap}"
            );
        }
        let each = closed_time / n;
        assert_approx!(each, BLINK_CLOSE + BLINK_OPEN, 0.01, "{each}");
    }

    #[test]
    fn every_blink_shuts_the_eyes_at_common_frame_rates() {
        for hz in [24.0_f32, 30.0, 60.0, 144.0] {
            let mut b = Blinker::new(3);
            let mut peak_this_blink: f32 = 0.0;
            let mut finished = 0;
            for _ in 0..(hz as usize * 30) {
                let v = b.update(1.0 / hz);
                if v > 0.0 {
                    peak_this_blink = peak_this_blink.max(v);
                } else if peak_this_blink > 0.0 {
                    assert_eq!(peak_this_blink, 1.0, "{hz} Hz blink peaked below 1");
                    peak_this_blink = 0.0;
                    finished += 1;
                }
            }
            assert!(finished >= 4, "{hz} Hz: {finished} blinks in 30 s");
        }
    }
}

//! One running animation on one channel: an eased tween or a physical spring.
//!
//! Values are kept in f64 here so long tweens and tiny velocity checks do not suffer from f32
//! rounding; channels store the f32 result.

use super::color::{mix_component, ColorSpace};
use super::easing::Easing;
use super::spring::Spring;

/// Step used for numeric derivatives of positions, in seconds.
const DERIVATIVE_STEP: f64 = 1e-4;

#[derive(Clone, Debug)]
pub(crate) enum Track {
    Eased(EasedTrack),
    Spring(SpringTrack),
}

#[derive(Clone, Debug)]
pub(crate) struct EasedTrack {
    pub from: Vec<f64>,
    pub to: Vec<f64>,
    pub start: f64,
    pub duration: f64,
    pub easing: Easing,
    pub color: Option<ColorSpace>,
    /// Velocity added at the start and faded out by `blend`, so a retargeted tween begins at
    /// the speed the previous one had (see [`EasedTrack::blend`]). Zero for a fresh tween.
    pub correction: Vec<f64>,
}

#[derive(Clone, Debug)]
pub(crate) struct SpringTrack {
    pub spring: Spring,
    pub to: Vec<f64>,
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    /// Time at which `x` and `v` hold.
    pub time: f64,
    /// Distance to the target when the spring was (re)started, for retarget scaling.
    pub span: f64,
    pub eps: f64,
}

pub(crate) fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

impl EasedTrack {
    /// `h(τ) = τ·(1 − τ/D)²`: h(0) = 0, h'(0) = 1, h(D) = 0, h'(D) = 0. Multiplying a
    /// velocity by it changes the start speed without moving either endpoint or the end speed.
    fn blend(&self, tau: f64) -> f64 {
        let u = 1.0 - tau / self.duration;
        tau * u * u
    }

    fn mixed(&self, e: f64, component: usize) -> f64 {
        let (a, b) = (self.from[component], self.to[component]);
        match self.color {
            Some(space) => mix_component(a, b, e, component, space),
            None => a + (b - a) * e,
        }
    }

    fn position(&self, at: f64) -> Vec<f64> {
        let mut out = vec![0.0; self.to.len()];
        self.position_each(at, |i, v| out[i] = v);
        out
    }

    /// Hands each component's position to `put`; the per-frame path uses it to write straight
    /// into the channel without allocating.
    fn position_each(&self, at: f64, mut put: impl FnMut(usize, f64)) {
        if self.duration <= 0.0 {
            for (i, &v) in self.to.iter().enumerate() {
                put(i, v);
            }
            return;
        }
        let tau = (at - self.start).clamp(0.0, self.duration);
        let e = self.easing.eval64(tau / self.duration);
        let h = self.blend(tau);
        for i in 0..self.to.len() {
            put(i, self.mixed(e, i) + self.correction[i] * h);
        }
    }

    /// Velocity of the uncorrected curve at its start, by a forward difference.
    pub fn start_velocity(&self) -> Vec<f64> {
        if self.duration <= 0.0 {
            return vec![0.0; self.to.len()];
        }
        let du = DERIVATIVE_STEP / self.duration;
        let (e0, e1) = (self.easing.eval64(0.0), self.easing.eval64(du));
        (0..self.to.len())
            .map(|i| (self.mixed(e1, i) - self.mixed(e0, i)) / DERIVATIVE_STEP)
            .collect()
    }
}

impl Track {
    pub fn target(&self) -> &[f64] {
        match self {
            Track::Eased(t) => &t.to,
            Track::Spring(s) => &s.to,
        }
    }

    /// Distance the track set out to cover; retargets scale their duration against it.
    pub fn span(&self) -> f64 {
        match self {
            Track::Eased(t) => distance(&t.from, &t.to),
            Track::Spring(s) => s.span,
        }
    }

    pub fn position(&self, at: f64) -> Vec<f64> {
        match self {
            Track::Eased(t) => t.position(at),
            Track::Spring(s) => {
                let dt = (at - s.time).max(0.0);
                (0..s.to.len())
                    .map(|i| s.to[i] + s.spring.step(s.x[i] - s.to[i], s.v[i], dt).0)
                    .collect()
            }
        }
    }

    /// Writes the position at `at` into `out` (same length as the channel).
    pub fn write_position(&self, at: f64, out: &mut [f32]) {
        match self {
            Track::Eased(t) => t.position_each(at, |i, v| out[i] = v as f32),
            Track::Spring(s) => {
                let dt = (at - s.time).max(0.0);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = (s.to[i] + s.spring.step(s.x[i] - s.to[i], s.v[i], dt).0) as f32;
                }
            }
        }
    }

    pub fn velocity(&self, at: f64) -> Vec<f64> {
        match self {
            Track::Eased(t) => {
                if t.duration <= 0.0 {
                    return vec![0.0; t.to.len()];
                }
                let end = t.start + t.duration;
                let a = (at - DERIVATIVE_STEP).max(t.start);
                let b = (at + DERIVATIVE_STEP).min(end);
                if b <= a {
                    return vec![0.0; t.to.len()];
                }
                let (pa, pb) = (t.position(a), t.position(b));
                pa.iter().zip(&pb).map(|(x, y)| (y - x) / (b - a)).collect()
            }
            Track::Spring(s) => {
                let dt = (at - s.time).max(0.0);
                (0..s.to.len())
                    .map(|i| s.spring.step(s.x[i] - s.to[i], s.v[i], dt).1)
                    .collect()
            }
        }
    }

    /// Moves the track to time `now`; returns true when it has finished.
    pub fn advance(&mut self, now: f64) -> bool {
        match self {
            // Same slack as the scheduler's: f32 offsets and an f64 clock.
            Track::Eased(t) => now + 1e-6 >= t.start + t.duration,
            Track::Spring(s) => {
                let dt = (now - s.time).max(0.0);
                let mut settled = true;
                for i in 0..s.to.len() {
                    let (x, v) = s.spring.step(s.x[i] - s.to[i], s.v[i], dt);
                    s.x[i] = s.to[i] + x;
                    s.v[i] = v;
                    settled &= s.spring.is_settled(x, v, s.eps);
                }
                s.time = now;
                settled
            }
        }
    }
}

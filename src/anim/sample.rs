//! Keyframe sampling: LINEAR (shortest-path normalised slerp for rotations), STEP, and
//! CUBICSPLINE Hermite with tangents scaled by the key interval. Time is clamped to the keys.
//! `sample_node_channels` is the one clip sampler of node transforms: the crowd's and the
//! tools' `player::sample_clip` and the hero's cross-fading mixer both go through it.

use crate::asset::{AnimationClipAsset, Interpolation, Track, Transform};
use glam::{Quat, Vec3};

/// Writes every translation, rotation and scale channel of `clip` at time `t` into `locals`
/// (local transforms indexed by node). Channels leave untouched whatever they do not drive;
/// a channel on a node outside `locals` is skipped.
pub fn sample_node_channels(clip: &AnimationClipAsset, t: f32, locals: &mut [Transform]) {
    for ch in &clip.node_channels {
        let Some(local) = locals.get_mut(ch.node) else {
            continue;
        };
        if let Some(tr) = &ch.translation {
            local.translation = sample_vec3(tr, t);
        }
        if let Some(r) = &ch.rotation {
            local.rotation = sample_quat(r, t);
        }
        if let Some(s) = &ch.scale {
            local.scale = sample_vec3(s, t);
        }
    }
}

/// Key interval around `t`: (left key, right key, factor in [0,1]).
#[inline]
pub fn locate(times: &[f32], t: f32) -> (usize, usize, f32) {
    let n = times.len();
    if n <= 1 || t <= times[0] {
        return (0, 0, 0.0);
    }
    if t >= times[n - 1] {
        return (n - 1, n - 1, 0.0);
    }
    // First key strictly greater than t (partition_point is lower_bound on "<= t").
    let r = times.partition_point(|&k| k <= t).clamp(1, n - 1);
    let l = r - 1;
    let dt = times[r] - times[l];
    if dt <= f32::EPSILON {
        return (r, r, 0.0);
    }
    (l, r, ((t - times[l]) / dt).clamp(0.0, 1.0))
}

fn hermite_coeffs(s: f32) -> (f32, f32, f32, f32) {
    let s2 = s * s;
    let s3 = s2 * s;
    (
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    )
}

pub fn sample_vec3(track: &Track<Vec3>, t: f32) -> Vec3 {
    let (l, r, s) = locate(&track.times, t);
    match track.interpolation {
        Interpolation::CubicSpline => {
            let v = |k: usize| track.values[k * 3 + 1];
            if l == r {
                return v(l);
            }
            let dt = track.times[r] - track.times[l];
            let (h00, h10, h01, h11) = hermite_coeffs(s);
            v(l) * h00
                + track.values[l * 3 + 2] * (h10 * dt)
                + v(r) * h01
                + track.values[r * 3] * (h11 * dt)
        }
        Interpolation::Step => track.values[l],
        Interpolation::Linear => {
            if l == r {
                track.values[l]
            } else {
                track.values[l].lerp(track.values[r], s)
            }
        }
    }
}

fn normalize_q(q: Quat) -> Quat {
    let len = q.length();
    if len > 1e-12 && len.is_finite() {
        q / len
    } else {
        Quat::IDENTITY
    }
}

pub fn sample_quat(track: &Track<Quat>, t: f32) -> Quat {
    let (l, r, s) = locate(&track.times, t);
    match track.interpolation {
        Interpolation::CubicSpline => {
            let v = |k: usize| track.values[k * 3 + 1];
            if l == r {
                return normalize_q(v(l));
            }
            let dt = track.times[r] - track.times[l];
            let (h00, h10, h01, h11) = hermite_coeffs(s);
            normalize_q(
                v(l) * h00
                    + track.values[l * 3 + 2] * (h10 * dt)
                    + v(r) * h01
                    + track.values[r * 3] * (h11 * dt),
            )
        }
        Interpolation::Step => normalize_q(track.values[l]),
        Interpolation::Linear => {
            if l == r {
                return normalize_q(track.values[l]);
            }
            let a = normalize_q(track.values[l]);
            let mut b = normalize_q(track.values[r]);
            if a.dot(b) < 0.0 {
                b = -b;
            }
            normalize_q(slerp(a, b, s))
        }
    }
}

/// Slerp without glam's own sign flip (we already chose the short path) and with a lerp
/// fallback for nearly equal rotations where sin(theta) vanishes.
fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    let d = a.dot(b).clamp(-1.0, 1.0);
    if d > 0.9995 {
        return a * (1.0 - s) + b * s;
    }
    let theta = d.acos();
    let sin = theta.sin();
    let wa = ((1.0 - s) * theta).sin() / sin;
    let wb = (s * theta).sin() / sin;
    a * wa + b * wb
}

/// Morph weights at `t` into `out` (length = target count).
pub fn sample_weights(track: &Track<f32>, target_count: usize, t: f32, out: &mut [f32]) {
    let (l, r, s) = locate(&track.times, t);
    let n = target_count.min(out.len());
    match track.interpolation {
        Interpolation::CubicSpline => {
            let at =
                |k: usize, part: usize, i: usize| track.values[(k * 3 + part) * target_count + i];
            if l == r {
                for (i, o) in out.iter_mut().enumerate().take(n) {
                    *o = at(l, 1, i);
                }
                return;
            }
            let dt = track.times[r] - track.times[l];
            let (h00, h10, h01, h11) = hermite_coeffs(s);
            for (i, o) in out.iter_mut().enumerate().take(n) {
                *o = at(l, 1, i) * h00
                    + at(l, 2, i) * h10 * dt
                    + at(r, 1, i) * h01
                    + at(r, 0, i) * h11 * dt;
            }
        }
        Interpolation::Step => {
            for (i, o) in out.iter_mut().enumerate().take(n) {
                *o = track.values[l * target_count + i];
            }
        }
        Interpolation::Linear => {
            for (i, o) in out.iter_mut().enumerate().take(n) {
                let a = track.values[l * target_count + i];
                let b = track.values[r * target_count + i];
                *o = a + (b - a) * s;
            }
        }
    }
}

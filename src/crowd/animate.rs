//! Heading and animation state, per agent and independent of every other agent: runs on all
//! threads in index order. People the simulation LOD did not steer this step keep their pose
//! until their next turn, which then covers the time they skipped.

use rayon::prelude::*;

use super::anim::{choose_clip, ClipKind};
use super::{next_random, AgentState, Crowd, Plan};

/// Radians per second a person turns at most.
const TURN_RATE: f32 = 5.0;

/// atan2(y, x) to within 1e-5 rad (0.0006° of heading, which nobody sees), without libm's call:
/// a minimax polynomial for atan on [0, 1], then folded into the right octant.
fn fast_atan2(y: f32, x: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let a = ax.min(ay) / ax.max(ay).max(f32::MIN_POSITIVE);
    let s = a * a;
    let mut r = a
        * (0.999_977_26
            + s * (-0.332_623_47
                + s * (0.193_543_46
                    + s * (-0.116_432_87 + s * (0.052_653_32 + s * -0.011_721_2)))));
    if ay > ax {
        r = std::f32::consts::FRAC_PI_2 - r;
    }
    if x < 0.0 {
        r = std::f32::consts::PI - r;
    }
    if y < 0.0 {
        -r
    } else {
        r
    }
}

impl Crowd {
    pub(super) fn update_heading_and_anim(&mut self) {
        let speeds = self.clip_speeds;
        let (vel, pos, state, plan) = (&self.vel, &self.pos, &self.state, &self.plan);
        let (look_at, attention) = (&self.look_at, &self.hero_attention);
        let (active, steer_dt) = (&self.active, &self.steer_dt);
        self.heading
            .par_iter_mut()
            .zip(self.anim.par_iter_mut())
            .zip(self.rng_state.par_iter_mut())
            .enumerate()
            .with_min_len(2048)
            .for_each(|(i, ((heading, anim), rng))| {
                if !active[i] {
                    return;
                }
                let dt = steer_dt[i];
                let v = vel[i];
                let speed = v.length();
                let standing = !matches!(
                    state[i],
                    AgentState::Walking
                        | AgentState::Scattering
                        | AgentState::Controlled
                        | AgentState::Fleeing
                );
                let face = if speed > 0.25 && !standing {
                    Some(v)
                } else {
                    look_at[i].map(|t| t - pos[i])
                };
                if let Some(dir) = face.filter(|d| d.length_squared() > 1e-6) {
                    // Heading 0 faces -Z: forward is (-sin h, -cos h).
                    let target = fast_atan2(-dir.x, -dir.y);
                    // `%` is a libm call (fmodf); below a full turn it returns its input
                    // unchanged, bit for bit, so it only runs for the rare larger gap.
                    let mut delta = target - *heading;
                    if delta.abs() >= std::f32::consts::TAU {
                        delta %= std::f32::consts::TAU;
                    }
                    if delta > std::f32::consts::PI {
                        delta -= std::f32::consts::TAU;
                    } else if delta < -std::f32::consts::PI {
                        delta += std::f32::consts::TAU;
                    }
                    *heading += delta.clamp(-TURN_RATE * dt, TURN_RATE * dt);
                }
                let idle_clip = match state[i] {
                    AgentState::Sitting => ClipKind::Sit,
                    AgentState::Lingering if matches!(plan[i], Plan::Poi(_)) => ClipKind::Talk,
                    AgentState::Lingering => ClipKind::LookAround,
                    // Applause and a performer's act are the wave gesture: arms up and moving.
                    AgentState::Applauding | AgentState::Performing => ClipKind::Wave,
                    _ if attention[i] > 0.0 && i % 3 == 0 => ClipKind::Wave,
                    _ => ClipKind::Idle,
                };
                let (clip, rate) = if state[i] == AgentState::Sitting {
                    (ClipKind::Sit, 1.0)
                } else {
                    choose_clip(speed, idle_clip, &speeds)
                };
                let phase = next_random(rng) * 2.0;
                anim.advance(clip, rate, dt, phase);
            });
    }
}

#[cfg(test)]
mod tests {
    use super::fast_atan2;

    #[test]
    fn fast_atan2_is_within_a_hundred_thousandth_of_a_radian() {
        for k in 0..100_000 {
            let angle = k as f32 / 100_000.0 * std::f32::consts::TAU - std::f32::consts::PI;
            let (y, x) = angle.sin_cos();
            for scale in [1e-3f32, 1.0, 250.0] {
                let (y, x) = (y * scale, x * scale);
                let err = (fast_atan2(y, x) - y.atan2(x)).abs();
                // ±π are the same heading.
                let err = err.min((err - std::f32::consts::TAU).abs());
                assert!(err < 1e-5, "{y}, {x}: {err}");
            }
        }
    }
}

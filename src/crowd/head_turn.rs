//! People look back: each person near the hero turns their head toward her, within natural
//! limits and eased, and back to straight ahead when she is far or behind them. Plain data,
//! one yaw and one pitch per person (structure of arrays, indexed like `Crowd`); the view packs
//! them into the instance block (`view::look_pack`) and the crowd shader turns the neck and
//! head joints by them.

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};

/// Metres within which a person looks at the hero (eye to eye, on the ground).
pub const LOOK_REACH: f32 = 6.0;
/// The largest head turn left or right of the body (radians, 70°).
pub const MAX_YAW: f32 = 70.0 * PI / 180.0;
/// The largest head tilt up or down (radians, 30°).
pub const MAX_PITCH: f32 = 30.0 * PI / 180.0;
/// A hero further round than this from where the body faces (radians, 110°) is behind the
/// person: they do not see her and look ahead. Between `MAX_YAW` and this the head stops at
/// its limit (the eyes would do the rest).
pub const SEE_YAW: f32 = 110.0 * PI / 180.0;
/// Seconds a head takes to get most of the way (95 %) to where it wants to look.
pub const EASE_SECONDS: f32 = 0.3;
/// Below this (radians) the remaining turn snaps to the target, so a head that has come back
/// is exactly straight again (and packs as no turn at all).
const SNAP: f32 = 1e-3;
/// A person's eyes as a share of their standing height.
pub const EYE_HEIGHT_SHARE: f32 = 0.93;

/// Signed angle in (-π, π].
fn wrap(a: f32) -> f32 {
    let w = (a + PI).rem_euclid(TAU) - PI;
    if w <= -PI {
        w + TAU
    } else {
        w
    }
}

/// Where a person at `pos` (ground), facing `heading` (radians about +Y, 0 faces -Z) with eyes
/// `eye_height` metres up, wants to look to see `target`: (yaw, pitch) relative to the body,
/// clamped to the natural limits. Yaw turns about +Y (positive: the body's +Z toward +X, as
/// `Quat::from_rotation_y`), pitch is positive looking up. (0, 0) when the target is beyond
/// `LOOK_REACH`, behind the person, or in their eyes.
pub fn look_target(pos: Vec2, heading: f32, eye_height: f32, target: Vec3) -> (f32, f32) {
    let d = Vec3::new(target.x - pos.x, target.y - eye_height, target.z - pos.y);
    let flat = Vec2::new(d.x, d.z).length();
    if !(d.y.is_finite() && (1e-3..=LOOK_REACH).contains(&flat)) {
        return (0.0, 0.0);
    }
    // The body faces (-sin h, -cos h); its angle about +Y in the rotation's sense is h + π.
    let yaw = wrap(d.x.atan2(d.z) - heading - PI);
    if yaw.abs() > SEE_YAW {
        return (0.0, 0.0);
    }
    let pitch = d.y.atan2(flat);
    (
        yaw.clamp(-MAX_YAW, MAX_YAW),
        pitch.clamp(-MAX_PITCH, MAX_PITCH),
    )
}

/// One step of easing from `current` toward `target` over `dt` seconds: an exponential
/// approach that covers 95 % of the way in `EASE_SECONDS` (time constant a third of it),
/// snapping when nearly there.
pub fn ease(current: f32, target: f32, dt: f32) -> f32 {
    // Also a NaN step: nothing moves.
    if dt.is_nan() || dt <= 0.0 {
        return current;
    }
    let k = 1.0 - (-dt * 3.0 / EASE_SECONDS).exp();
    let next = current + (target - current) * k;
    if (target - next).abs() < SNAP {
        target
    } else {
        next
    }
}

/// Every person's head turn, relative to their body (radians).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeadTurns {
    pub yaw: Vec<f32>,
    pub pitch: Vec<f32>,
}

impl HeadTurns {
    /// Eases each of the `pos.len()` people toward looking at `hero` (her eyes, world metres;
    /// None: nobody to look at, every head comes back) over `dt` seconds. `eye_height(i)` is
    /// person i's eye height in metres. People added since the last update start straight;
    /// people gone are dropped.
    pub fn update(
        &mut self,
        pos: &[Vec2],
        heading: &[f32],
        eye_height: impl Fn(usize) -> f32 + Sync,
        hero: Option<Vec3>,
        dt: f32,
    ) {
        use rayon::prelude::*;
        let n = pos.len().min(heading.len());
        self.yaw.resize(n, 0.0);
        self.pitch.resize(n, 0.0);
        let reach2 = (LOOK_REACH + 0.5) * (LOOK_REACH + 0.5);
        // Each person's turn depends only on their own: the pool's threads share the crowd.
        self.yaw
            .par_iter_mut()
            .zip(self.pitch.par_iter_mut())
            .enumerate()
            .with_min_len(4096)
            .for_each(|(i, (yaw, pitch))| {
                // Most people are far and already straight: skip them without any trigonometry.
                let near = hero.filter(|h| Vec2::new(h.x, h.z).distance_squared(pos[i]) <= reach2);
                if near.is_none() && *yaw == 0.0 && *pitch == 0.0 {
                    return;
                }
                let (ty, tp) = near.map_or((0.0, 0.0), |h| {
                    look_target(pos[i], heading[i], eye_height(i), h)
                });
                *yaw = ease(*yaw, ty, dt);
                *pitch = ease(*pitch, tp, dt);
            });
    }

    /// Person i's turn, (0, 0) for anyone not (yet) updated.
    pub fn get(&self, i: usize) -> (f32, f32) {
        (
            self.yaw.get(i).copied().unwrap_or(0.0),
            self.pitch.get(i).copied().unwrap_or(0.0),
        )
    }

    /// People whose head is turned at all.
    pub fn turned(&self) -> usize {
        self.yaw
            .iter()
            .zip(&self.pitch)
            .filter(|(y, p)| **y != 0.0 || **p != 0.0)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEG: f32 = PI / 180.0;

    #[test]
    fn a_hero_to_the_side_within_reach_is_looked_at_with_the_sign_of_the_rotation() {
        // Heading 0 faces -Z. The hero 3 m along +X at eye height.
        let (yaw, pitch) = look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(3.0, 1.6, -3.0));
        // 45° to the side; rotating the facing (0,0,-1) by `yaw` about +Y must reach her.
        assert!((yaw.abs() - 45.0 * DEG).abs() < 1e-4, "{}", yaw / DEG);
        let facing = glam::Quat::from_rotation_y(yaw) * Vec3::NEG_Z;
        assert!(facing.abs_diff_eq(Vec3::new(1.0, 0.0, -1.0).normalize(), 1e-5));
        assert!(pitch.abs() < 1e-6);
        // The other side gives the opposite yaw; a different heading is relative to it.
        let (left, _) = look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(-3.0, 1.6, -3.0));
        assert!((left + yaw).abs() < 1e-5);
        let (turned, _) = look_target(Vec2::new(5.0, 5.0), PI / 2.0, 1.6, Vec3::new(2.0, 1.6, 5.0));
        // Heading π/2 faces -X: the hero straight ahead.
        assert!(turned.abs() < 1e-5, "{}", turned / DEG);
    }

    #[test]
    fn turns_stop_at_the_natural_limits_and_nobody_looks_behind_or_far() {
        // 90° to the side: seen, the head stops at 70°.
        let (yaw, _) = look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(2.0, 1.6, 0.0));
        assert!((yaw.abs() - MAX_YAW).abs() < 1e-6);
        // Straight behind: not seen.
        assert_eq!(
            look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(0.0, 1.6, 2.0)),
            (0.0, 0.0)
        );
        // 120° round: behind the 110° the eyes reach.
        let a = 120.0 * DEG;
        let behind = Vec3::new(-2.0 * a.sin(), 1.6, -2.0 * a.cos());
        assert_eq!(look_target(Vec2::ZERO, 0.0, 1.6, behind), (0.0, 0.0));
        // Far ahead.
        assert_eq!(
            look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(0.0, 1.6, -6.5)),
            (0.0, 0.0)
        );
        // Up close and much taller: the tilt stops at 30°; a short hero below: -30°.
        let (_, up) = look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(0.0, 4.0, -1.0));
        assert!((up - MAX_PITCH).abs() < 1e-6);
        let (_, down) = look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(0.0, 0.2, -1.0));
        assert!((down + MAX_PITCH).abs() < 1e-6);
        // A gentle tilt is kept as it is.
        let (_, tilt) = look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(0.0, 2.1, -4.0));
        assert!((tilt - (0.5f32).atan2(4.0)).abs() < 1e-5);
        // Non-finite targets are ignored.
        assert_eq!(
            look_target(Vec2::ZERO, 0.0, 1.6, Vec3::new(f32::NAN, 1.0, 0.0)),
            (0.0, 0.0)
        );
    }

    #[test]
    fn easing_covers_95_percent_in_the_ease_time_and_snaps_at_the_end() {
        let mut y = 0.0;
        let dt = 1.0 / 60.0;
        for _ in 0..18 {
            y = ease(y, 1.0, dt);
        }
        // 18 steps = 0.3 s: 1 - e^-3 of the way.
        assert!((y - (1.0 - (-3.0f32).exp())).abs() < 1e-4, "{y}");
        // Monotonic, no overshoot; arrives exactly.
        let mut prev = y;
        for _ in 0..200 {
            y = ease(y, 1.0, dt);
            assert!(y >= prev && y <= 1.0);
            prev = y;
        }
        assert_eq!(y, 1.0);
        // A paused game (dt 0) holds the head still.
        assert_eq!(ease(0.25, 1.0, 0.0), 0.25);
    }

    #[test]
    fn heads_turn_toward_a_near_hero_and_come_back_exactly_straight() {
        let pos = vec![Vec2::ZERO, Vec2::new(30.0, 0.0)];
        let heading = vec![0.0, 0.0];
        let face = Vec3::new(2.0, 1.6, -2.0);
        let hero = Some(face);
        let mut t = HeadTurns::default();
        t.update(&pos, &heading, |_| 1.6, hero, 0.1);
        // Person 0 started turning (part of the way), person 1 is far and stays straight.
        let (y0, _) = t.get(0);
        let (target, _) = look_target(Vec2::ZERO, 0.0, 1.6, face);
        assert!(y0.abs() > 0.0 && y0.abs() < target.abs());
        assert_eq!(y0.signum(), target.signum());
        assert_eq!(t.get(1), (0.0, 0.0));
        for _ in 0..60 {
            t.update(&pos, &heading, |_| 1.6, hero, 1.0 / 60.0);
        }
        assert_eq!(t.get(0).0, target);
        assert_eq!(t.turned(), 1);
        // The hero leaves: the head eases back and ends exactly straight.
        t.update(&pos, &heading, |_| 1.6, None, 0.1);
        assert!(t.get(0).0.abs() > 0.0 && t.get(0).0.abs() < target.abs());
        for _ in 0..60 {
            t.update(&pos, &heading, |_| 1.6, None, 1.0 / 60.0);
        }
        assert_eq!(t.get(0), (0.0, 0.0));
        assert_eq!(t.turned(), 0);
        // The crowd shrinks and grows: the arrays follow, newcomers straight.
        t.update(&pos[..1], &heading[..1], |_| 1.6, hero, 0.1);
        assert_eq!(t.yaw.len(), 1);
        t.update(&pos, &heading, |_| 1.6, None, 0.0);
        assert_eq!(t.yaw.len(), 2);
        assert_eq!(t.get(1), (0.0, 0.0));
        assert_eq!(t.get(7), (0.0, 0.0));
    }
}

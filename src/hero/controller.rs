//! The hero's movement: camera-relative intent in, position / heading / velocity out, colliding
//! with the level's obstacles and bounds the way the crowd does.

use glam::Vec2;

use crate::crowd::obstacles::ObstacleField;
use crate::level::Bounds;

/// The hero's body radius for obstacles (the crowd keeps its own, larger, berth).
pub const HERO_RADIUS: f32 = 0.3;
/// m/s² towards the wished velocity; braking is quicker so stops feel crisp.
const ACCELERATION: f32 = 9.0;
const BRAKING: f32 = 14.0;
/// rad/s the body turns towards where it goes.
const TURN_RATE: f32 = 10.0;

/// What the player asks for this step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MoveIntent {
    /// World XZ direction (x, z), length 0..1.
    pub direction: Vec2,
    pub run: bool,
}

/// Turns stick/WASD input (x = right, y = forward, each -1..1) into a world XZ direction for a
/// camera at `yaw` (radians about +Y, 0 looks along -Z).
pub fn camera_relative(input: Vec2, yaw: f32) -> Vec2 {
    let forward = Vec2::new(-yaw.sin(), -yaw.cos());
    let right = Vec2::new(yaw.cos(), -yaw.sin());
    let d = right * input.x + forward * input.y;
    if d.length_squared() > 1.0 {
        d.normalize()
    } else {
        d
    }
}

/// Walks counter-clockwise round a circle: along the tangent, pulled back onto the rim.
pub fn autopilot(position: Vec2, centre: Vec2, radius: f32, run: bool) -> MoveIntent {
    let off = position - centre;
    let d = off.length();
    let out = if d > 1e-4 { off / d } else { Vec2::X };
    let tangent = Vec2::new(-out.y, out.x);
    let pull = ((radius - d) / radius.max(0.1)).clamp(-1.0, 1.0);
    MoveIntent {
        direction: (tangent + out * pull).normalize_or_zero(),
        run,
    }
}

/// Heading (0 faces -Z, like the crowd) that faces along `dir`.
pub fn heading_of(dir: Vec2) -> f32 {
    (-dir.x).atan2(-dir.y)
}

/// Shortest signed angle from `a` to `b`.
fn angle_to(a: f32, b: f32) -> f32 {
    let d = (b - a).rem_euclid(std::f32::consts::TAU);
    if d > std::f32::consts::PI {
        d - std::f32::consts::TAU
    } else {
        d
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct HeroController {
    pub position: Vec2,
    /// Radians about +Y; 0 faces -Z.
    pub heading: f32,
    /// What the body actually did last step (after collisions), m/s.
    pub velocity: Vec2,
    /// The velocity the hero tries to reach.
    wish: Vec2,
    pub walk_speed: f32,
    pub run_speed: f32,
}

impl HeroController {
    pub fn new(position: Vec2, heading: f32, walk_speed: f32, run_speed: f32) -> Self {
        HeroController {
            position,
            heading,
            velocity: Vec2::ZERO,
            wish: Vec2::ZERO,
            walk_speed,
            run_speed,
        }
    }

    pub fn speed(&self) -> f32 {
        self.velocity.length()
    }

    /// One fixed step. Collisions push the body out of obstacles and keep it in bounds; the
    /// velocity is what really happened, so pushing into a wall slows the walk cycle instead of
    /// making the feet slide.
    pub fn step(
        &mut self,
        dt: f32,
        intent: &MoveIntent,
        obstacles: &ObstacleField,
        bounds: &Bounds,
    ) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let dir = if intent.direction.is_finite() {
            intent.direction.clamp_length_max(1.0)
        } else {
            Vec2::ZERO
        };
        let top = if intent.run {
            self.run_speed
        } else {
            self.walk_speed
        };
        let target = dir * top;
        let rate = if target.length() + 1e-3 < self.wish.length() {
            BRAKING
        } else {
            ACCELERATION
        };
        let delta = target - self.wish;
        let max = rate * dt;
        self.wish += if delta.length() > max {
            delta.normalize() * max
        } else {
            delta
        };
        let before = self.position;
        let mut p = before + self.wish * dt;
        p = obstacles.resolve(p, HERO_RADIUS);
        p = p.clamp(
            bounds.min + Vec2::splat(HERO_RADIUS),
            bounds.max - Vec2::splat(HERO_RADIUS),
        );
        if !p.is_finite() {
            p = before;
        }
        self.position = p;
        self.velocity = (p - before) / dt;
        // Turn towards the wish, not the collided velocity: sliding along a wall keeps facing it.
        if dir.length_squared() > 1e-4 {
            let want = heading_of(dir);
            let d = angle_to(self.heading, want);
            let turn = TURN_RATE * dt;
            self.heading += d.clamp(-turn, turn);
            self.heading = self.heading.rem_euclid(std::f32::consts::TAU);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_is_where_the_camera_looks() {
        // Yaw 0 looks along -Z: W walks to -Z, D to +X.
        let f = camera_relative(Vec2::new(0.0, 1.0), 0.0);
        assert_approx!(f, Vec2::new(0.0, -1.0), 1e-6);
        let r = camera_relative(Vec2::new(1.0, 0.0), 0.0);
        assert_approx!(r, Vec2::new(1.0, 0.0), 1e-6);
        // Diagonal input is not faster than straight input.
        assert_approx!(
            camera_relative(Vec2::new(1.0, 1.0), 0.7).length(),
            1.0,
            1e-6
        );
        // Heading of a -Z direction is 0; of +X it is -90°.
        assert_approx!(heading_of(Vec2::new(0.0, -1.0)), 0.0, 1e-6);
        assert_approx!(
            heading_of(Vec2::new(1.0, 0.0)),
            -std::f32::consts::FRAC_PI_2,
            1e-6
        );
    }
}

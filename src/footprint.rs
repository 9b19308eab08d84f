//! Obstacle footprints on the ground plane: the `Shape` a level file gives each obstacle, its
//! signed distance, and the point and segment tests that level validation, route finding and
//! the crowd's obstacle queries share. Plain geometry: it knows nothing of levels or agents.
//!
//! Coordinates are the plaza's `(x, z)` in metres.

use glam::Vec2;
use serde::Deserialize;

/// The footprint of an obstacle on the ground.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub enum Shape {
    Circle {
        center: Vec2,
        radius: f32,
    },
    /// An oriented box: `half_extents` along its own axes, turned by `angle_deg` about +Y
    /// (counter-clockwise seen from above).
    Box {
        center: Vec2,
        half_extents: Vec2,
        #[serde(default)]
        angle_deg: f32,
    },
}

/// A box's own axes turned into the plaza's (x, z): the same turn as a rotation of `angle_deg`
/// about +Y (glam's `Quat::from_rotation_y`), counter-clockwise seen from above.
pub fn box_to_world(angle_deg: f32, local: Vec2) -> Vec2 {
    Vec2::from_angle(-angle_deg.to_radians()).rotate(local)
}

/// The inverse of [`box_to_world`].
pub fn world_to_box(angle_deg: f32, world: Vec2) -> Vec2 {
    Vec2::from_angle(angle_deg.to_radians()).rotate(world)
}

/// Signed distance from a circle of `radius` to a point `d` from its centre, and the outward
/// normal.
#[inline]
pub fn circle_signed_distance(d: Vec2, radius: f32) -> (f32, Vec2) {
    let len = d.length();
    let n = if len > 1e-6 { d / len } else { Vec2::X };
    (len - radius, n)
}

/// Signed distance from a box of `half_extents` to a point `local` in the box's own axes, and the
/// outward normal in those axes (the caller turns it back to the world).
#[inline]
pub fn box_signed_distance(local: Vec2, half_extents: Vec2) -> (f32, Vec2) {
    let q = local.abs() - half_extents;
    if q.x > 0.0 || q.y > 0.0 {
        let outside = q.max(Vec2::ZERO);
        let len = outside.length();
        (len, (outside * local.signum()) / len.max(1e-6))
    } else if q.x > q.y {
        // Inside: the nearest face is the one with the least penetration.
        (q.x, Vec2::new(local.x.signum(), 0.0))
    } else {
        (q.y, Vec2::new(0.0, local.y.signum()))
    }
}

impl Shape {
    pub fn center(&self) -> Vec2 {
        match *self {
            Shape::Circle { center, .. } | Shape::Box { center, .. } => center,
        }
    }

    /// Signed distance from `p` to the footprint's edge (negative inside) and the outward normal.
    pub fn signed_distance(&self, p: Vec2) -> (f32, Vec2) {
        match *self {
            Shape::Circle { center, radius } => circle_signed_distance(p - center, radius),
            Shape::Box {
                center,
                half_extents,
                angle_deg,
            } => {
                let (dist, n_local) =
                    box_signed_distance(world_to_box(angle_deg, p - center), half_extents);
                (dist, box_to_world(angle_deg, n_local))
            }
        }
    }

    /// Radius of the circle that encloses the footprint.
    pub fn bounding_radius(&self) -> f32 {
        match *self {
            Shape::Circle { radius, .. } => radius,
            Shape::Box { half_extents, .. } => half_extents.length(),
        }
    }

    /// The footprint's corners (box) or an axis-aligned square around it (circle), for bounds checks.
    pub fn extreme_points(&self) -> Vec<Vec2> {
        match *self {
            Shape::Circle { center, radius } => vec![
                center + Vec2::new(radius, 0.0),
                center - Vec2::new(radius, 0.0),
                center + Vec2::new(0.0, radius),
                center - Vec2::new(0.0, radius),
            ],
            Shape::Box {
                center,
                half_extents,
                angle_deg,
            } => [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
                .iter()
                .map(|&(sx, sy)| center + box_to_world(angle_deg, half_extents * Vec2::new(sx, sy)))
                .collect(),
        }
    }
}

/// True when `p` lies strictly inside the obstacle's footprint.
pub fn obstacle_contains(shape: &Shape, p: Vec2) -> bool {
    shape.signed_distance(p).0 < 0.0
}

/// True when the segment a-b passes through the obstacle's footprint.
pub fn segment_hits_obstacle(shape: &Shape, a: Vec2, b: Vec2) -> bool {
    match *shape {
        Shape::Circle { center, radius } => {
            let ab = b - a;
            let t = if ab.length_squared() > 0.0 {
                ((center - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (a + ab * t).distance_squared(center) < radius * radius
        }
        Shape::Box {
            center,
            half_extents,
            angle_deg,
        } => {
            // Liang-Barsky clip of the segment against the box in the box's own frame.
            let (la, lb) = (
                world_to_box(angle_deg, a - center),
                world_to_box(angle_deg, b - center),
            );
            let d = lb - la;
            let (mut t0, mut t1) = (0.0f32, 1.0f32);
            for (p, q) in [
                (-d.x, la.x + half_extents.x),
                (d.x, half_extents.x - la.x),
                (-d.y, la.y + half_extents.y),
                (d.y, half_extents.y - la.y),
            ] {
                if p == 0.0 {
                    if q <= 0.0 {
                        return false;
                    }
                } else {
                    let r = q / p;
                    if p < 0.0 {
                        t0 = t0.max(r);
                    } else {
                        t1 = t1.min(r);
                    }
                }
            }
            t0 < t1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_and_segment_tests_for_both_shapes() {
        let circle = Shape::Circle {
            center: Vec2::ZERO,
            radius: 2.0,
        };
        assert!(obstacle_contains(&circle, Vec2::new(1.0, 1.0)));
        assert!(!obstacle_contains(&circle, Vec2::new(2.0, 0.1)));
        assert!(segment_hits_obstacle(
            &circle,
            Vec2::new(-5.0, 1.0),
            Vec2::new(5.0, 1.0)
        ));
        assert!(!segment_hits_obstacle(
            &circle,
            Vec2::new(-5.0, 3.0),
            Vec2::new(5.0, 3.0)
        ));
        let tilted = Shape::Box {
            center: Vec2::new(10.0, 0.0),
            half_extents: Vec2::new(3.0, 0.5),
            angle_deg: 90.0,
        };
        // Turned 90°: long along z.
        assert!(obstacle_contains(&tilted, Vec2::new(10.2, 2.5)));
        // The same turn the renderer applies: local +x goes to world -z at 90°.
        assert_approx!(box_to_world(90.0, Vec2::X), Vec2::new(0.0, -1.0), 1e-6);
        let q = glam::Quat::from_rotation_y(0.7) * glam::Vec3::new(1.0, 0.0, 2.0);
        let w = box_to_world(0.7f32.to_degrees(), Vec2::new(1.0, 2.0));
        assert_approx!(Vec2::new(q.x, q.z), w, 1e-5);
        assert!(
            (world_to_box(33.0, box_to_world(33.0, Vec2::new(3.0, -1.0))) - Vec2::new(3.0, -1.0))
                .length()
                < 1e-5
        );
        assert!(!obstacle_contains(&tilted, Vec2::new(12.0, 0.0)));
        assert!(segment_hits_obstacle(
            &tilted,
            Vec2::new(5.0, 2.0),
            Vec2::new(15.0, 2.0)
        ));
        assert!(!segment_hits_obstacle(
            &tilted,
            Vec2::new(5.0, 4.0),
            Vec2::new(15.0, 4.0)
        ));
        assert!(!segment_hits_obstacle(
            &tilted,
            Vec2::new(11.0, -5.0),
            Vec2::new(11.0, 5.0)
        ));
    }
}

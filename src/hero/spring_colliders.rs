//! Spring-bone collider geometry in world space: where a tail may not be for each collider
//! shape (VRMC_springBone's sphere and capsule, VRMC_springBone_extended_collider's inside
//! sphere, inside capsule and plane), the signed distance to that region, and the push that
//! puts a tail back on the allowed side while it keeps its bone's length.
//!
//! The extension's reference implementation computes a distance and a direction and pushes
//! along it (then the bone's length is restored); as for the VRMC_springBone shapes, we move
//! the tail instead to the nearest point of its reach that is allowed, which a push followed by
//! a length restore does not always reach (it can land back inside).

use glam::{Mat4, Vec3};

use crate::asset::vrm_spring::SpringColliderShape;

/// A collider as the region a tail must stay out of (or in), at this step's pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Surface {
    /// Keep out of the ball (`centre`, `radius`).
    Outside { centre: Vec3, radius: f32 },
    /// Keep inside the ball (`centre`, `radius`).
    Inside { centre: Vec3, radius: f32 },
    /// Keep within `radius` of the segment `a`..`b` (an inside capsule).
    InsideCapsule { a: Vec3, b: Vec3, radius: f32 },
    /// Keep on the side of the plane through `point` that `normal` (unit) points to.
    Plane { point: Vec3, normal: Vec3 },
}

fn world_scale(m: &Mat4) -> f32 {
    m.x_axis.truncate().length()
}

/// The nearest point of the segment `a`..`b` to `p`.
fn nearest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> Vec3 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    let t = if len_sq > 0.0 {
        (ab.dot(p - a) / len_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + ab * t
}

/// The collider `shape` on node matrix `m`, as seen from the point `p` (an outside capsule
/// becomes the ball at its segment's point nearest to `p`, as in the reference
/// implementations).
pub fn surface(shape: &SpringColliderShape, m: &Mat4, p: Vec3) -> Surface {
    let s = world_scale(m);
    match *shape {
        SpringColliderShape::Sphere { offset, radius } => Surface::Outside {
            centre: m.transform_point3(offset),
            radius: radius * s,
        },
        SpringColliderShape::Capsule {
            offset,
            tail,
            radius,
        } => Surface::Outside {
            centre: nearest_on_segment(m.transform_point3(offset), m.transform_point3(tail), p),
            radius: radius * s,
        },
        SpringColliderShape::InsideSphere { offset, radius } => Surface::Inside {
            centre: m.transform_point3(offset),
            radius: radius * s,
        },
        SpringColliderShape::InsideCapsule {
            offset,
            tail,
            radius,
        } => Surface::InsideCapsule {
            a: m.transform_point3(offset),
            b: m.transform_point3(tail),
            radius: radius * s,
        },
        SpringColliderShape::Plane { offset, normal } => Surface::Plane {
            point: m.transform_point3(offset),
            // Normals go through the inverse transpose (a non-uniformly scaled node).
            normal: m
                .inverse()
                .transpose()
                .transform_vector3(normal)
                .try_normalize()
                .unwrap_or(Vec3::Y),
        },
    }
}

/// A world bounding sphere of the collider for the reach test; regions a tail must stay
/// inside of, and planes, are never out of reach (infinite radius).
pub fn bounds(shape: &SpringColliderShape, m: &Mat4) -> (Vec3, f32) {
    let s = world_scale(m);
    match *shape {
        SpringColliderShape::Sphere { offset, radius } => (m.transform_point3(offset), radius * s),
        SpringColliderShape::Capsule {
            offset,
            tail,
            radius,
        } => {
            let (a, t) = (m.transform_point3(offset), m.transform_point3(tail));
            ((a + t) * 0.5, (t - a).length() * 0.5 + radius * s)
        }
        _ => (m.w_axis.truncate(), f32::INFINITY),
    }
}

impl Surface {
    /// Signed distance of a tail at `p` with hit radius `r` from the forbidden region:
    /// negative when the tail is where it must not be.
    pub fn distance(&self, p: Vec3, r: f32) -> f32 {
        match *self {
            Surface::Outside { centre, radius } => (p - centre).length() - radius - r,
            Surface::Inside { centre, radius } => radius - r - (p - centre).length(),
            Surface::InsideCapsule { a, b, radius } => {
                radius - r - (p - nearest_on_segment(a, b, p)).length()
            }
            Surface::Plane { point, normal } => (p - point).dot(normal) - r,
        }
    }

    /// `tail`, which stays `length` from `origin`, moved to the nearest allowed point of that
    /// reach (the hit radius `r` kept from the surface).
    pub fn push(&self, origin: Vec3, length: f32, tail: Vec3, r: f32) -> Vec3 {
        match *self {
            Surface::Outside { centre, radius } => {
                onto_circle(origin, length, tail, centre, radius + r, 1.0)
            }
            Surface::Inside { centre, radius } => {
                onto_circle(origin, length, tail, centre, (radius - r).max(0.0), -1.0)
            }
            Surface::InsideCapsule { a, b, radius } => {
                let centre = capsule_ball(a, b, origin, length, tail, radius - r);
                onto_circle(origin, length, tail, centre, (radius - r).max(0.0), -1.0)
            }
            Surface::Plane { point, normal } => onto_plane(
                origin,
                length,
                tail,
                normal,
                r - (origin - point).dot(normal),
            ),
        }
    }
}

/// The ball of the inside capsule `a`..`b` (radius `radius`) to pull `tail` into: the one at
/// the segment's point nearest to the tail (the reference implementation's), unless the
/// bone's reach never meets that ball; then the one at a segment point exactly the bone's
/// length from `origin` (the nearest such to the tail's), or the end that comes nearest.
fn capsule_ball(a: Vec3, b: Vec3, origin: Vec3, length: f32, tail: Vec3, radius: f32) -> Vec3 {
    let near = nearest_on_segment(a, b, tail);
    if ((near - origin).length() - length).abs() <= radius {
        return near;
    }
    // |a + t·ab − origin|² = length²: a quadratic in t.
    let ab = b - a;
    let ao = a - origin;
    let qa = ab.length_squared();
    let qb = 2.0 * ab.dot(ao);
    let qc = ao.length_squared() - length * length;
    let disc = qb * qb - 4.0 * qa * qc;
    let t_near = if qa > 0.0 {
        (ab.dot(tail - a) / qa).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut best: Option<f32> = None;
    if qa > 0.0 && disc >= 0.0 {
        for t in [
            (-qb - disc.sqrt()) / (2.0 * qa),
            (-qb + disc.sqrt()) / (2.0 * qa),
        ] {
            if (0.0..=1.0).contains(&t)
                && best.is_none_or(|b| (t - t_near).abs() < (b - t_near).abs())
            {
                best = Some(t);
            }
        }
    }
    let t = best.unwrap_or_else(|| {
        let miss = |p: Vec3| ((p - origin).length() - length).abs();
        if miss(a) <= miss(b) {
            0.0
        } else {
            1.0
        }
    });
    a + ab * t
}

/// Moves `tail`, which must stay `length` from `origin`, onto the circle where that reach meets
/// the sphere (`c`, `radius`), in the plane of origin, centre and tail (the nearest such
/// point), then a hair to the allowed side (`side` 1: outside, -1: inside). The three-vrm push
/// along the normal followed by restoring the length can land back inside; this cannot. Where
/// the reach never meets the sphere, the bone points straight away from the centre (outside)
/// or at it (inside): the best it can do.
pub fn onto_circle(origin: Vec3, length: f32, tail: Vec3, c: Vec3, radius: f32, side: f32) -> Vec3 {
    let to_c = c - origin;
    let d = to_c.length();
    if d < 1e-9 || length < 1e-9 {
        return tail;
    }
    let cos = (length * length + d * d - radius * radius) / (2.0 * length * d);
    let u = to_c / d;
    let along = tail - origin;
    let perp = (along - u * along.dot(u))
        .try_normalize()
        .unwrap_or_else(|| u.any_orthonormal_vector());
    if side > 0.0 && cos < -1.0 {
        // The collider swallows the whole reach of the bone: point straight away from it.
        return origin - u * length;
    }
    if side < 0.0 && cos > 1.0 {
        // The reach and the sphere never meet: the nearest the tail gets is towards the centre.
        return origin + u * length;
    }
    let cos = cos.clamp(-1.0, 1.0);
    let sin = (1.0 - cos * cos).max(0.0).sqrt();
    // A hair on the allowed side of the surface, so the check after the push agrees.
    let p = origin + (u * cos + perp * sin) * length;
    let out = (p - c).try_normalize().unwrap_or(perp) * side;
    origin + ((p + out * 1e-6) - origin).normalize() * length
}

/// Moves `tail` (`length` from `origin`) to the nearest point of that reach whose height along
/// `normal` above the origin is at least `min_height`; straight along the normal when the
/// reach cannot get that high.
pub fn onto_plane(origin: Vec3, length: f32, tail: Vec3, normal: Vec3, min_height: f32) -> Vec3 {
    if length < 1e-9 {
        return tail;
    }
    let along = tail - origin;
    if along.dot(normal) >= min_height {
        return tail;
    }
    if min_height >= length {
        return origin + normal * length;
    }
    // A hair above the plane, so the check after the push agrees.
    let h = (min_height + 1e-6).min(length);
    let perp = (along - normal * along.dot(normal))
        .try_normalize()
        .unwrap_or_else(|| normal.any_orthonormal_vector());
    origin + normal * h + perp * (length * length - h * h).max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_below_a_plane_goes_to_the_nearest_point_above_it_at_the_same_length() {
        let origin = Vec3::new(0.0, 0.3, 0.0);
        let s = Surface::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        let tail = origin + Vec3::new(0.6, -0.8, 0.0);
        assert!(s.distance(tail, 0.0) < 0.0);
        let p = s.push(origin, 1.0, tail, 0.05);
        assert!((p - origin).length() - 1.0 < 1e-5);
        assert!(s.distance(p, 0.05) >= 0.0, "{p}");
        assert!(p.x > 0.9, "stays on its side: {p}");
    }

    #[test]
    fn an_inside_sphere_pulls_a_tail_back_in() {
        let s = Surface::Inside {
            centre: Vec3::ZERO,
            radius: 1.0,
        };
        let origin = Vec3::new(0.5, 0.0, 0.0);
        let tail = origin + Vec3::new(0.8, 0.6, 0.0);
        assert!(s.distance(tail, 0.0) < 0.0);
        let p = s.push(origin, 1.0, tail, 0.1);
        assert!(((p - origin).length() - 1.0).abs() < 1e-5);
        assert!(s.distance(p, 0.1) >= 0.0, "{p}: {}", s.distance(p, 0.1));
        // A reach that cannot get back in points at the centre.
        let far = Vec3::new(5.0, 0.0, 0.0);
        let p = s.push(far, 1.0, far + Vec3::Y, 0.0);
        assert!((p - Vec3::new(4.0, 0.0, 0.0)).length() < 1e-5, "{p}");
    }

    #[test]
    fn an_inside_capsule_keeps_tails_near_its_segment() {
        let shape = SpringColliderShape::InsideCapsule {
            offset: Vec3::ZERO,
            tail: Vec3::new(0.0, 2.0, 0.0),
            radius: 0.5,
        };
        let s = surface(&shape, &Mat4::IDENTITY, Vec3::new(0.7, 1.0, 0.0));
        assert!((s.distance(Vec3::new(0.7, 1.0, 0.0), 0.0) + 0.2).abs() < 1e-6);
        assert!((s.distance(Vec3::new(0.0, 2.3, 0.0), 0.0) - 0.2).abs() < 1e-6);
        // A bone standing at the capsule's end and pointing out of it comes back in.
        let (origin, tail) = (Vec3::ZERO, Vec3::new(0.0, -1.0, 0.0));
        let p = s.push(origin, 1.0, tail, 0.0);
        assert!(((p - origin).length() - 1.0).abs() < 1e-5);
        assert!(s.distance(p, 0.0) >= 0.0, "{p}");
    }
}

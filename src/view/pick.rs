//! Picking a person on screen: the ray under the pointer against each person's body, an
//! upright segment from their feet to the top of their head. Geometric, so it works the same
//! whichever level of detail (mesh or impostor) draws them.

use glam::{Mat4, Vec2, Vec3};

/// How far from a body's axis a ray still hits it (m): a shoulder's half width.
pub const BODY_PICK_RADIUS: f32 = 0.3;
/// The body's height used for picking (m).
pub const BODY_PICK_HEIGHT: f32 = 1.75;

/// The person whose body the ray through `ndc` hits first (nearest the eye), if any.
pub fn pick_person(view_proj: &Mat4, ndc: Vec2, positions: &[Vec2]) -> Option<usize> {
    let inv = view_proj.inverse();
    let near = inv.project_point3(Vec3::new(ndc.x, ndc.y, -1.0));
    let far = inv.project_point3(Vec3::new(ndc.x, ndc.y, 1.0));
    let dir = (far - near).normalize_or_zero();
    if !near.is_finite() || dir == Vec3::ZERO {
        return None;
    }
    let mut best: Option<(f32, usize)> = None;
    for (i, p) in positions.iter().enumerate() {
        if let Some(t) = ray_hits_body(near, dir, *p) {
            if best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// Distance along the ray to where it passes the body's axis, when it passes within the pick
/// radius of it: the closest points of the ray and the vertical segment at `foot`.
fn ray_hits_body(origin: Vec3, dir: Vec3, foot: Vec2) -> Option<f32> {
    // Horizontal closest approach of the ray to the axis line, then the height there.
    let flat = Vec2::new(dir.x, dir.z);
    let to = foot - Vec2::new(origin.x, origin.z);
    let flat_len2 = flat.length_squared();
    let t = if flat_len2 > 1e-9 {
        to.dot(flat) / flat_len2
    } else {
        // Looking straight down: the ray meets the ground at the body's foot or not at all.
        (origin.y - BODY_PICK_HEIGHT * 0.5) / -dir.y.min(-1e-6)
    };
    if t <= 0.0 {
        return None;
    }
    let at = origin + dir * t;
    let off = Vec2::new(at.x, at.z).distance(foot);
    let height_ok = (-0.1..=BODY_PICK_HEIGHT + 0.1).contains(&at.y);
    (off <= BODY_PICK_RADIUS && height_ok).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearer_of_two_people_in_line_is_picked_and_empty_ground_picks_nobody() {
        let eye = Vec3::new(0.0, 1.6, 10.0);
        let view = Mat4::look_at_rh(eye, Vec3::new(0.0, 1.0, 0.0), Vec3::Y);
        let proj = Mat4::perspective_rh_gl(1.0, 16.0 / 9.0, 0.1, 200.0);
        let vp = proj * view;
        let people = [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 4.0),
            Vec2::new(5.0, 0.0),
        ];
        assert_eq!(pick_person(&vp, Vec2::ZERO, &people), Some(1));
        let right = vp.project_point3(Vec3::new(5.0, 1.0, 0.0));
        assert_eq!(
            pick_person(&vp, Vec2::new(right.x, right.y), &people),
            Some(2)
        );
        let between = vp.project_point3(Vec3::new(2.5, 1.0, 0.0));
        assert_eq!(
            pick_person(&vp, Vec2::new(between.x, between.y), &people),
            None
        );
    }
}

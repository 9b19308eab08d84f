//! Culled, packed instance data for the stand-in crowd markers.

use glam::{Vec2, Vec3};

use super::frustum::Frustum;

/// Floats per marker instance: x, z, heading, scale, tint r, g, b.
pub const MARKER_FLOATS: usize = 7;
/// Height of a marker person in metres (the bounding sphere is centred halfway up).
pub const MARKER_HEIGHT: f32 = 1.75;

/// Appends the markers inside the frustum (all of them without one) to `out` and returns how
/// many were culled.
pub fn pack_visible_markers(
    frustum: Option<&Frustum>,
    positions: &[Vec2],
    headings: &[f32],
    colors: &[Vec3],
    scale_of: impl Fn(usize) -> f32,
    out: &mut Vec<f32>,
) -> usize {
    out.clear();
    let mut culled = 0;
    let half = MARKER_HEIGHT * 0.5;
    for (i, ((p, h), c)) in positions.iter().zip(headings).zip(colors).enumerate() {
        if frustum.is_some_and(|f| !f.contains_sphere(Vec3::new(p.x, half, p.y), half + 0.1)) {
            culled += 1;
            continue;
        }
        out.extend_from_slice(&[p.x, p.y, *h, scale_of(i), c.x, c.y, c.z]);
    }
    culled
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;

    #[test]
    fn markers_behind_the_camera_are_culled_and_the_rest_packed_in_order() {
        let vp = Mat4::perspective_rh_gl(1.0, 1.0, 0.1, 500.0)
            * Mat4::look_at_rh(Vec3::new(0.0, 10.0, 20.0), Vec3::ZERO, Vec3::Y);
        let f = Frustum::from_view_projection(&vp);
        let positions = [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 60.0),
            Vec2::new(1.0, -5.0),
        ];
        let headings = [0.5, 1.0, 1.5];
        let colors = [Vec3::X, Vec3::Y, Vec3::Z];
        let mut out = Vec::new();
        let culled = pack_visible_markers(None, &positions, &headings, &colors, |_| 1.0, &mut out);
        assert_eq!((culled, out.len()), (0, 3 * MARKER_FLOATS));
        let culled = pack_visible_markers(
            Some(&f),
            &positions,
            &headings,
            &colors,
            |i| i as f32,
            &mut out,
        );
        assert_eq!(culled, 1);
        assert_eq!(
            out,
            vec![0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.0, 1.0, -5.0, 1.5, 2.0, 0.0, 0.0, 1.0]
        );
    }
}

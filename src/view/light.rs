//! The sun's shadow camera: an orthographic box around what the player is looking at.

use glam::{Mat4, Vec3};

/// Shadow map edge in texels: 2048 over an 80-160 m wide area gives 4-8 cm texels, enough for a
/// person's shadow to have legs. The sun's projection snaps to these texels.
pub const SHADOW_MAP_SIZE: u32 = 2048;

/// Light view-projection for a directional shadow map centred on `focus` covering a disc of
/// `radius` metres. The centre is snapped to whole shadow texels so shadows do not crawl as the
/// camera moves.
pub fn sun_view_projection(sun_direction: Vec3, focus: Vec3, radius: f32, map_size: u32) -> Mat4 {
    let dir = sun_direction.try_normalize().unwrap_or(-Vec3::Y);
    let radius = if radius.is_finite() {
        radius.max(1.0)
    } else {
        50.0
    };
    // Any up vector not parallel to the light works; pick the one furthest from it.
    let up = if dir.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
    let depth_reach = radius + 80.0; // tall buildings outside the disc still cast into it
    let view = Mat4::look_to_rh(Vec3::ZERO, dir, up);
    let texel = 2.0 * radius / map_size.max(1) as f32;
    let mut c = view.transform_point3(focus);
    c.x = (c.x / texel).round() * texel;
    c.y = (c.y / texel).round() * texel;
    let proj = Mat4::orthographic_rh_gl(
        c.x - radius,
        c.x + radius,
        c.y - radius,
        c.y + radius,
        -c.z - depth_reach,
        -c.z + depth_reach,
    );
    proj * view
}

/// The matrix shaders sample the shadow map with when only its `texels`² corner (from texel 0)
/// was drawn into with `light_view_proj`: the same clip-space point, squeezed into that corner.
/// (The sun's projection is orthographic, so w is 1 and the squeeze is affine.)
pub fn shadow_sampling_matrix(light_view_proj: Mat4, texels: u32, map_size: u32) -> Mat4 {
    let k = (texels as f32 / map_size.max(1) as f32).clamp(0.0, 1.0);
    if k >= 1.0 || k <= 0.0 {
        return light_view_proj;
    }
    Mat4::from_translation(Vec3::new(k - 1.0, k - 1.0, 0.0))
        * Mat4::from_scale(Vec3::new(k, k, 1.0))
        * light_view_proj
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_smaller_shadow_lands_in_the_maps_corner() {
        let m = sun_view_projection(Vec3::new(-0.4, -1.0, -0.3), Vec3::ZERO, 40.0, 512);
        let s = shadow_sampling_matrix(m, 512, 2048);
        for p in [
            Vec3::ZERO,
            Vec3::new(30.0, 2.0, -12.0),
            Vec3::new(-39.0, 0.0, 5.0),
        ] {
            let (full, corner) = (m.project_point3(p), s.project_point3(p));
            // Texture coordinates: 0..1 over the map; the corner is the first quarter.
            let uv = |c: Vec3| c.truncate() * 0.5 + glam::Vec2::splat(0.5);
            assert_approx!(uv(corner), uv(full) * 0.25, 1e-5);
            assert_approx!(corner.z, full.z, 1e-6, "depth is untouched");
        }
        assert_eq!(shadow_sampling_matrix(m, 2048, 2048), m);
    }

    #[test]
    fn focus_maps_to_the_centre_and_the_disc_fits() {
        let sun = Vec3::new(-0.45, -1.0, -0.35);
        let focus = Vec3::new(10.0, 0.0, -5.0);
        let m = sun_view_projection(sun, focus, 40.0, 2048);
        let c = m.project_point3(focus);
        assert_approx!(c.x, 0.0, 0.002, "{c}");
        assert_approx!(c.y, 0.0, 0.002, "{c}");
        assert_approx!(c.z, 0.0, 1.0);
        for p in [Vec3::new(49.0, 0.0, -5.0), Vec3::new(10.0, 0.0, 34.0)] {
            let q = m.project_point3(p);
            assert!(
                q.x.abs() <= 1.0 && q.y.abs() <= 1.0 && q.z.abs() <= 1.0,
                "{p} -> {q}"
            );
        }
        // A rooftop 40 m up, inside the disc, is still within the depth range.
        assert!(m.project_point3(focus + Vec3::Y * 40.0).z.abs() <= 1.0);
    }

    #[test]
    fn straight_down_sun_and_bad_input_do_not_produce_nan() {
        let m = sun_view_projection(-Vec3::Y, Vec3::ZERO, f32::NAN, 1024);
        assert!(m.is_finite());
        let m = sun_view_projection(Vec3::ZERO, Vec3::ZERO, 10.0, 0);
        assert!(m.is_finite());
    }
}

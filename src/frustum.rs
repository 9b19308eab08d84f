//! View frustum as six planes, for culling bounding spheres: the renderer's culling and the
//! crowd's simulation LOD test against the same planes.

use glam::{Mat4, Vec3, Vec4};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frustum {
    /// Inward-facing planes (normal.xyz, d): a point p is inside when dot(n, p) + d >= 0.
    planes: [Vec4; 6],
}

impl Frustum {
    /// Planes of an OpenGL-style view-projection matrix (clip z in -w..w), Gribb & Hartmann.
    pub fn from_view_projection(m: &Mat4) -> Self {
        let r0 = m.row(0);
        let r1 = m.row(1);
        let r2 = m.row(2);
        let r3 = m.row(3);
        let mut planes = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2];
        for p in &mut planes {
            let len = p.truncate().length();
            if len > 0.0 {
                *p /= len;
            }
        }
        Frustum { planes }
    }

    pub fn contains_sphere(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.truncate().dot(center) + p.w >= -radius)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spheres_in_front_are_inside_behind_are_outside() {
        let proj = Mat4::perspective_rh_gl(60f32.to_radians(), 1.0, 0.1, 100.0);
        let view = Mat4::look_to_rh(Vec3::ZERO, -Vec3::Z, Vec3::Y);
        let f = Frustum::from_view_projection(&(proj * view));
        assert!(f.contains_sphere(Vec3::new(0.0, 0.0, -10.0), 0.5));
        assert!(!f.contains_sphere(Vec3::new(0.0, 0.0, 10.0), 0.5));
        assert!(!f.contains_sphere(Vec3::new(0.0, 0.0, -150.0), 0.5));
        // Just outside the right plane, but the radius reaches in.
        assert!(!f.contains_sphere(Vec3::new(7.0, 0.0, -10.0), 0.5));
        assert!(f.contains_sphere(Vec3::new(7.0, 0.0, -10.0), 2.0));
    }
}

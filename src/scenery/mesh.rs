//! Vertex-coloured triangle meshes built in code: the plaza's furniture and the crowd markers.

use glam::{Quat, Vec2, Vec3};

/// Interleaved-ready mesh data: one colour per vertex, flat-shaded where faces meet at an edge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColoredMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub colors: Vec<Vec3>,
    pub indices: Vec<u32>,
}

impl ColoredMesh {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    pub fn append(&mut self, other: &ColoredMesh) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&other.positions);
        self.normals.extend_from_slice(&other.normals);
        self.colors.extend_from_slice(&other.colors);
        self.indices.extend(other.indices.iter().map(|i| i + base));
    }

    /// Interleaved `[px, py, pz, nx, ny, nz, r, g, b]` per vertex, the layout the renderer uploads.
    pub fn interleaved(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.positions.len() * 9);
        for i in 0..self.positions.len() {
            out.extend_from_slice(&self.positions[i].to_array());
            out.extend_from_slice(&self.normals[i].to_array());
            out.extend_from_slice(&self.colors[i].to_array());
        }
        out
    }

    fn quad(&mut self, corners: [Vec3; 4], normal: Vec3, color: Vec3) {
        let base = self.positions.len() as u32;
        for c in corners {
            self.positions.push(c);
            self.normals.push(normal);
            self.colors.push(color);
        }
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    /// A box standing on `base_y`, footprint centred at `center` (x, z), turned by `yaw` about +Y.
    pub fn add_box(
        &mut self,
        center: Vec2,
        half_extents: Vec2,
        yaw: f32,
        base_y: f32,
        height: f32,
        color: Vec3,
    ) {
        let rot = Quat::from_rotation_y(yaw);
        let origin = Vec3::new(center.x, base_y, center.y);
        let h = Vec3::new(half_extents.x, height * 0.5, half_extents.y);
        let mid = origin + Vec3::Y * height * 0.5;
        let corner = |sx: f32, sy: f32, sz: f32| mid + rot * (h * Vec3::new(sx, sy, sz));
        // Each face: its normal and four corner signs, counter-clockwise seen from outside.
        type Face = (Vec3, [(f32, f32, f32); 4]);
        let faces: [Face; 6] = [
            (
                Vec3::X,
                [(1., -1., 1.), (1., -1., -1.), (1., 1., -1.), (1., 1., 1.)],
            ),
            (
                -Vec3::X,
                [
                    (-1., -1., -1.),
                    (-1., -1., 1.),
                    (-1., 1., 1.),
                    (-1., 1., -1.),
                ],
            ),
            (
                Vec3::Y,
                [(-1., 1., 1.), (1., 1., 1.), (1., 1., -1.), (-1., 1., -1.)],
            ),
            (
                -Vec3::Y,
                [
                    (-1., -1., -1.),
                    (1., -1., -1.),
                    (1., -1., 1.),
                    (-1., -1., 1.),
                ],
            ),
            (
                Vec3::Z,
                [(-1., -1., 1.), (1., -1., 1.), (1., 1., 1.), (-1., 1., 1.)],
            ),
            (
                -Vec3::Z,
                [
                    (1., -1., -1.),
                    (-1., -1., -1.),
                    (-1., 1., -1.),
                    (1., 1., -1.),
                ],
            ),
        ];
        for (n, cs) in faces {
            let corners = cs.map(|(x, y, z)| corner(x, y, z));
            self.quad(corners, rot * n, color);
        }
    }

    /// A vertical cylinder (or cone when the radii differ) with caps, `segments` around.
    #[allow(clippy::too_many_arguments)]
    pub fn add_cylinder(
        &mut self,
        center: Vec2,
        base_y: f32,
        height: f32,
        bottom_radius: f32,
        top_radius: f32,
        segments: u32,
        color: Vec3,
    ) {
        let segments = segments.max(3);
        let c = Vec3::new(center.x, base_y, center.y);
        let slope = (bottom_radius - top_radius) / height.max(1e-4);
        let ring = |i: u32| {
            let a = i as f32 / segments as f32 * std::f32::consts::TAU;
            Vec3::new(a.cos(), 0.0, -a.sin())
        };
        for i in 0..segments {
            let (d0, d1) = (ring(i), ring(i + 1));
            let n0 = (d0 + Vec3::Y * slope).normalize();
            let n1 = (d1 + Vec3::Y * slope).normalize();
            let base = self.positions.len() as u32;
            let verts = [
                (c + d0 * bottom_radius, n0),
                (c + d1 * bottom_radius, n1),
                (c + d1 * top_radius + Vec3::Y * height, n1),
                (c + d0 * top_radius + Vec3::Y * height, n0),
            ];
            for (p, n) in verts {
                self.positions.push(p);
                self.normals.push(n);
                self.colors.push(color);
            }
            self.indices
                .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        for (y, r, n) in [
            (height, top_radius, Vec3::Y),
            (0.0, bottom_radius, -Vec3::Y),
        ] {
            if r <= 0.0 {
                continue;
            }
            let base = self.positions.len() as u32;
            self.positions.push(c + Vec3::Y * y);
            self.normals.push(n);
            self.colors.push(color);
            for i in 0..segments {
                self.positions.push(c + Vec3::Y * y + ring(i) * r);
                self.normals.push(n);
                self.colors.push(color);
            }
            for i in 0..segments {
                let a = base + 1 + i;
                let b = base + 1 + (i + 1) % segments;
                if n.y > 0.0 {
                    self.indices.extend_from_slice(&[base, a, b]);
                } else {
                    self.indices.extend_from_slice(&[base, b, a]);
                }
            }
        }
    }

    /// A UV sphere (smooth normals), for tree crowns, lamp globes and marker heads.
    pub fn add_sphere(
        &mut self,
        center: Vec3,
        radius: Vec3,
        rings: u32,
        segments: u32,
        color: Vec3,
    ) {
        let rings = rings.max(2);
        let segments = segments.max(3);
        let base = self.positions.len() as u32;
        for r in 0..=rings {
            let phi = r as f32 / rings as f32 * std::f32::consts::PI;
            for s in 0..=segments {
                let theta = s as f32 / segments as f32 * std::f32::consts::TAU;
                let unit = Vec3::new(phi.sin() * theta.cos(), phi.cos(), -phi.sin() * theta.sin());
                self.positions.push(center + unit * radius);
                self.normals.push((unit / radius).normalize_or_zero());
                self.colors.push(color);
            }
        }
        let stride = segments + 1;
        for r in 0..rings {
            for s in 0..segments {
                let a = base + r * stride + s;
                let b = a + stride;
                self.indices
                    .extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sum of outward flux: a closed mesh with outward normals and CCW faces has positive volume.
    fn signed_volume(m: &ColoredMesh) -> f32 {
        m.indices
            .chunks(3)
            .map(|t| {
                let (a, b, c) = (
                    m.positions[t[0] as usize],
                    m.positions[t[1] as usize],
                    m.positions[t[2] as usize],
                );
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn box_is_closed_with_outward_faces_and_right_volume() {
        let mut m = ColoredMesh::default();
        m.add_box(
            Vec2::new(3.0, -2.0),
            Vec2::new(1.0, 0.5),
            0.7,
            0.0,
            2.0,
            Vec3::ONE,
        );
        assert_eq!(m.vertex_count(), 24);
        assert_eq!(m.triangle_count(), 12);
        assert_approx!(signed_volume(&m), 4.0, 1e-3, "{}", signed_volume(&m));
        let max_y = m.positions.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert_eq!(max_y, 2.0);
    }

    #[test]
    fn cylinder_volume_approaches_pi_r2_h() {
        let mut m = ColoredMesh::default();
        m.add_cylinder(Vec2::ZERO, 0.0, 2.0, 1.0, 1.0, 64, Vec3::ONE);
        let v = signed_volume(&m);
        assert_approx!(v, std::f32::consts::PI * 2.0, 0.02, "{v}");
    }

    #[test]
    fn sphere_volume_is_positive_and_close() {
        let mut m = ColoredMesh::default();
        m.add_sphere(Vec3::ZERO, Vec3::splat(1.0), 24, 48, Vec3::ONE);
        let v = signed_volume(&m);
        assert_approx!(v, 4.18879, 0.05, "{v}");
    }

    #[test]
    fn append_offsets_indices() {
        let mut a = ColoredMesh::default();
        a.add_box(Vec2::ZERO, Vec2::ONE, 0.0, 0.0, 1.0, Vec3::ONE);
        let mut b = a.clone();
        b.append(&a);
        assert_eq!(b.vertex_count(), 48);
        assert_eq!(*b.indices.iter().max().unwrap_or(&0), 47);
        assert_eq!(b.interleaved().len(), 48 * 9);
    }
}

//! Props the crowd carries (hats, bags, backpacks, balloons, umbrellas, phones), generated in
//! code and attached rigidly to one bone: every vertex has a single influence, so they skin
//! with the same shader and animation texture as the body.
//!
//! Each prop is modelled in metres around its bone as the bone stands in a reference pose (the
//! idle clip's first frame), then moved into bind space through that pose's skinning matrix;
//! skinning it at that pose puts it back exactly where it was modelled.

use glam::{Mat4, UVec4, Vec2, Vec3, Vec4};

use super::mesh::{FigureMesh, FigureVertex};
use crate::asset::Aabb;
use crate::level::PropKind;
use crate::scenery::ColoredMesh;

pub const PROP_KINDS: [PropKind; 6] = [
    PropKind::Hat,
    PropKind::Bag,
    PropKind::Backpack,
    PropKind::Balloon,
    PropKind::Umbrella,
    PropKind::Phone,
];

pub fn prop_index(kind: PropKind) -> usize {
    PROP_KINDS.iter().position(|&k| k == kind).unwrap_or(0)
}

/// Bone names tried for each prop, Quaternius first, then common humanoid spellings (KayKit's
/// lower-case `hand.l`, RobotExpressive's `Palm2.L`).
pub fn prop_bones(kind: PropKind) -> &'static [&'static str] {
    match kind {
        PropKind::Hat => &["Head", "head", "Head_M", "mixamorig:Head"],
        PropKind::Bag | PropKind::Backpack => &["Torso", "Chest", "chest", "Spine2", "spine"],
        PropKind::Balloon | PropKind::Phone => &[
            "Fist.L", "LeftHand", "hand.L", "Hand_L", "hand.l", "Palm2.L",
        ],
        PropKind::Umbrella => &[
            "Fist.R",
            "RightHand",
            "hand.R",
            "Hand_R",
            "hand.r",
            "Palm2.R",
        ],
    }
}

/// Whether a prop is worth drawing at a level of detail (0 near, 1 mid, 2 far): small ones go
/// first, the balloons stay visible longest.
pub fn prop_visible_at(kind: PropKind, lod: usize) -> bool {
    match lod {
        0 => true,
        1 => !matches!(kind, PropKind::Phone | PropKind::Bag),
        _ => false,
    }
}

/// Where the prop's bone is in the reference pose: the skinning matrix there and the pose-space
/// bounds of the vertices the bone moves.
pub struct BoneAnchor {
    pub slot: u32,
    pub skin_matrix: Mat4,
    pub bounds: Aabb,
}

/// Builds `kind` around its bone. `metre` is how many model units make a metre (Quaternius
/// characters are about 1.9 units per metre).
pub fn build_prop(kind: PropKind, anchor: &BoneAnchor, metre: f32) -> FigureMesh {
    let b = &anchor.bounds;
    let centre = (b.min + b.max) * 0.5;
    let mut shape = ColoredMesh::default();
    let tinted;
    // Shapes are built in metres with y up; `at` places them in pose space.
    let at: Vec3;
    match kind {
        PropKind::Hat => {
            tinted = true;
            at = Vec3::new(centre.x, b.max.y - 0.03 * metre, centre.z);
            shape.add_cylinder(Vec2::ZERO, 0.0, 0.02, 0.2, 0.19, 14, Vec3::splat(0.6));
            shape.add_cylinder(Vec2::ZERO, 0.0, 0.13, 0.13, 0.12, 12, Vec3::splat(0.6));
            shape.add_cylinder(Vec2::ZERO, 0.03, 0.025, 0.131, 0.131, 12, Vec3::splat(0.08));
        }
        PropKind::Bag => {
            tinted = false;
            // A shoulder bag hanging at the right hip, strap over the left shoulder.
            at = Vec3::new(b.min.x - 0.02 * metre, b.min.y - 0.25 * metre, centre.z);
            shape.add_box(
                Vec2::ZERO,
                Vec2::new(0.05, 0.14),
                0.0,
                0.0,
                0.22,
                Vec3::new(0.35, 0.2, 0.1),
            );
            shape.add_box(
                Vec2::new(0.02, 0.0),
                Vec2::new(0.012, 0.02),
                0.0,
                0.22,
                0.45,
                Vec3::new(0.2, 0.12, 0.06),
            );
        }
        PropKind::Backpack => {
            tinted = true;
            at = Vec3::new(centre.x, b.min.y - 0.05 * metre, b.min.z - 0.08 * metre);
            shape.add_box(
                Vec2::ZERO,
                Vec2::new(0.16, 0.08),
                0.0,
                0.0,
                0.42,
                Vec3::splat(0.7),
            );
            shape.add_box(
                Vec2::new(0.0, -0.08),
                Vec2::new(0.12, 0.03),
                0.0,
                0.04,
                0.2,
                Vec3::splat(0.45),
            );
        }
        PropKind::Balloon => {
            tinted = true;
            at = centre;
            shape.add_box(
                Vec2::ZERO,
                Vec2::splat(0.004),
                0.0,
                0.0,
                1.25,
                Vec3::splat(0.9),
            );
            shape.add_sphere(
                Vec3::new(0.0, 1.45, 0.0),
                Vec3::new(0.22, 0.27, 0.22),
                6,
                10,
                Vec3::splat(0.95),
            );
        }
        PropKind::Umbrella => {
            tinted = true;
            at = centre;
            shape.add_cylinder(Vec2::ZERO, -0.1, 0.95, 0.012, 0.012, 6, Vec3::splat(0.1));
            shape.add_cylinder(Vec2::ZERO, 0.75, 0.25, 0.55, 0.02, 12, Vec3::splat(0.5));
        }
        PropKind::Phone => {
            tinted = false;
            at = centre + Vec3::new(0.0, 0.02, 0.05) * metre;
            shape.add_box(
                Vec2::ZERO,
                Vec2::new(0.035, 0.006),
                0.0,
                0.0,
                0.14,
                Vec3::splat(0.05),
            );
        }
    }
    let place = Mat4::from_translation(at) * Mat4::from_scale(Vec3::splat(metre));
    let mut mesh = FigureMesh {
        vertices: (0..shape.vertex_count())
            .map(|i| FigureVertex {
                position: shape.positions[i],
                normal: shape.normals[i],
                color: shape.colors[i],
                tint: if tinted && shape.colors[i].x > 0.3 {
                    super::mesh::CLOTHING
                } else {
                    super::mesh::KEEP
                },
                ..Default::default()
            })
            .collect(),
        indices: shape.indices,
        influences: 1,
    };
    attach_to_bone(&mut mesh, anchor, place);
    mesh
}

/// Hangs `mesh` rigidly on the anchor's bone. Its vertices are in their own modelling space;
/// `place` puts them in pose space (where the bone stands in the reference pose), and the
/// inverse of the bone's skinning matrix there moves them into bind space. Every vertex gets
/// the bone as its single influence, so skinning at the reference pose puts the mesh back
/// where `place` put it, and at any other frame it follows the bone. Used for the generated
/// props and for a model's own rigid meshes hanging from its joints.
pub fn attach_to_bone(mesh: &mut FigureMesh, anchor: &BoneAnchor, place: Mat4) {
    let m = anchor.skin_matrix.inverse() * place;
    let normal_m = m.inverse().transpose();
    for v in &mut mesh.vertices {
        v.position = m.transform_point3(v.position);
        v.normal = normal_m.transform_vector3(v.normal).normalize_or_zero();
        v.joints = UVec4::new(anchor.slot, 0, 0, 0);
        v.weights = Vec4::X;
    }
    // A mirroring placement turns the triangles inside out: keep them facing outwards.
    if m.determinant() < 0.0 {
        for t in mesh.indices.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    mesh.influences = 1;
}

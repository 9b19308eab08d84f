//! Crowd figure meshes as plain interleaved data: every skinned primitive of a model merged into
//! one vertex-coloured mesh whose joint indices are skin slots (the animation texture's columns).

use glam::{Mat4, UVec4, Vec3, Vec4};

use crate::asset::{PrimitiveMode, SceneAsset};

/// Floats per vertex: position 3, normal 3, colour 3, tint mask 1, joints 4, weights 4.
pub const FIGURE_FLOATS: usize = 18;

/// Vertex tint classes (floats because they travel as a vertex attribute).
pub const KEEP: f32 = 0.0;
pub const CLOTHING: f32 = 1.0;
pub const SKIN: f32 = 2.0;

/// One vertex of a crowd figure.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FigureVertex {
    pub position: Vec3,
    pub normal: Vec3,
    /// Linear base colour of the material.
    pub color: Vec3,
    /// What colours this vertex per person: `KEEP`, `CLOTHING` (the person's tint) or `SKIN`
    /// (the person's skin tone).
    pub tint: f32,
    /// Skin slots (columns of the animation texture).
    pub joints: UVec4,
    pub weights: Vec4,
}

/// A triangle mesh ready to upload: `FIGURE_FLOATS` floats per vertex.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FigureMesh {
    pub vertices: Vec<FigureVertex>,
    pub indices: Vec<u32>,
    /// Bone influences the vertex shader reads per vertex (4, 2 or 1).
    pub influences: u32,
}

impl FigureMesh {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    pub fn interleaved(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.vertices.len() * FIGURE_FLOATS);
        for v in &self.vertices {
            out.extend_from_slice(&v.position.to_array());
            out.extend_from_slice(&v.normal.to_array());
            out.extend_from_slice(&v.color.to_array());
            out.push(v.tint);
            out.extend_from_slice(&v.joints.as_vec4().to_array());
            out.extend_from_slice(&v.weights.to_array());
        }
        out
    }

    pub fn append(&mut self, other: &FigureMesh) {
        let base = self.vertices.len() as u32;
        self.vertices.extend_from_slice(&other.vertices);
        self.indices.extend(other.indices.iter().map(|i| i + base));
        self.influences = self.influences.max(other.influences);
    }

    /// Linear-blend skinning on the CPU with a palette indexed by skin slot: the reference the
    /// GPU path and the naive path are checked against.
    pub fn skinned_position(&self, v: usize, palette: &[Mat4]) -> Vec3 {
        let Some(vert) = self.vertices.get(v) else {
            return Vec3::ZERO;
        };
        let mut m = Mat4::ZERO;
        for k in 0..self.influences.min(4) as usize {
            if let Some(j) = palette.get(vert.joints[k] as usize) {
                m += *j * vert.weights[k];
            }
        }
        m.transform_point3(vert.position)
    }
}

/// A group of triangles sharing one material: simplification keeps material borders.
#[derive(Debug, Clone, Default)]
pub struct MaterialPart {
    pub name: String,
    pub mesh: FigureMesh,
}

/// The skinned primitives bound to `skin`, merged per material, in mesh bind space with
/// skin-slot joints. `tint_class(material name)` is `KEEP`, `CLOTHING` or `SKIN`.
pub fn figure_parts(
    scene: &SceneAsset,
    skin: usize,
    tint_class: &dyn Fn(&str) -> f32,
) -> Vec<MaterialPart> {
    let mut parts: Vec<MaterialPart> = Vec::new();
    for node in scene.nodes.iter().filter(|n| n.skin == Some(skin)) {
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        for prim in &mesh.primitives {
            if prim.mode != PrimitiveMode::Triangles || !prim.is_skinned() {
                continue;
            }
            let material = prim.material.and_then(|m| scene.materials.get(m));
            let name = material
                .and_then(|m| m.name.clone())
                .unwrap_or_else(|| "unnamed".to_string());
            let base = material.map_or(Vec4::ONE, |m| m.base_color);
            let tint = tint_class(&name);
            let part = match parts.iter().position(|p| p.name == name) {
                Some(i) => &mut parts[i],
                None => {
                    parts.push(MaterialPart {
                        name: name.clone(),
                        mesh: FigureMesh {
                            influences: 4,
                            ..Default::default()
                        },
                    });
                    let last = parts.len() - 1;
                    &mut parts[last]
                }
            };
            let first = part.mesh.vertices.len() as u32;
            for v in 0..prim.vertex_count() {
                let vertex_color = prim.colors.get(v).copied().unwrap_or(Vec4::ONE);
                let local = prim.joints.get(v).copied().unwrap_or_default();
                let slot = |k: usize| {
                    mesh.palette_joints
                        .get(local[k] as usize)
                        .copied()
                        .unwrap_or(0)
                };
                let weights = prim.weights.get(v).copied().unwrap_or(Vec4::X);
                let sum = weights.x + weights.y + weights.z + weights.w;
                part.mesh.vertices.push(FigureVertex {
                    position: prim.positions[v],
                    normal: prim
                        .normals
                        .get(v)
                        .copied()
                        .unwrap_or(Vec3::Y)
                        .normalize_or_zero(),
                    color: (base * vertex_color).truncate(),
                    tint,
                    joints: UVec4::new(slot(0), slot(1), slot(2), slot(3)),
                    weights: if sum > 0.0 { weights / sum } else { Vec4::X },
                });
            }
            let count = prim.vertex_count() as u32;
            if prim.indices.is_empty() {
                part.mesh.indices.extend(first..first + count / 3 * 3);
            } else {
                part.mesh.indices.extend(
                    prim.indices
                        .iter()
                        .filter(|&&i| i < count)
                        .map(|&i| first + i),
                );
            }
            let whole = part.mesh.indices.len() / 3 * 3;
            part.mesh.indices.truncate(whole);
        }
    }
    parts
}

/// Keeps the `n` strongest bone influences of every vertex and renormalises them.
pub fn limit_influences(mesh: &mut FigureMesh, n: u32) {
    let n = n.clamp(1, 4) as usize;
    for v in &mut mesh.vertices {
        let mut pairs: [(u32, f32); 4] = [0, 1, 2, 3].map(|k| (v.joints[k], v.weights[k]));
        pairs.sort_by(|a, b| b.1.total_cmp(&a.1));
        let kept: f32 = pairs[..n].iter().map(|p| p.1).sum();
        let mut joints = [0u32; 4];
        let mut weights = [0.0f32; 4];
        for (k, (j, w)) in pairs.iter().enumerate().take(n) {
            joints[k] = *j;
            weights[k] = if kept > 0.0 { w / kept } else { 1.0 / n as f32 };
        }
        v.joints = UVec4::from_array(joints);
        v.weights = Vec4::from_array(weights);
    }
    mesh.influences = n as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn influence_limit_keeps_the_strongest_and_renormalises() {
        let mut m = FigureMesh {
            vertices: vec![FigureVertex {
                joints: UVec4::new(3, 7, 9, 11),
                weights: Vec4::new(0.1, 0.5, 0.3, 0.1),
                ..Default::default()
            }],
            indices: vec![],
            influences: 4,
        };
        let mut two = m.clone();
        limit_influences(&mut two, 2);
        assert_eq!(two.vertices[0].joints, UVec4::new(7, 9, 0, 0));
        assert!((two.vertices[0].weights - Vec4::new(0.625, 0.375, 0.0, 0.0)).length() < 1e-6);
        assert_eq!(two.influences, 2);
        limit_influences(&mut m, 1);
        assert_eq!(m.vertices[0].joints.x, 7);
        assert_eq!(m.vertices[0].weights, Vec4::X);
    }
}

//! Crowd figure meshes as plain interleaved data: every skinned primitive of a model merged into
//! one vertex-coloured mesh whose joint indices are skin slots (the animation texture's columns).

use glam::{Mat4, UVec4, Vec3, Vec4};

use crate::anim::blend_joints;
use crate::asset::{PrimitiveAsset, PrimitiveMode, SceneAsset};

/// Floats per vertex: position 3, normal 3, colour 3, tint mask 1, joints 4, weights 4.
pub const FIGURE_FLOATS: usize = 18;

/// Vertex tint classes (floats because they travel as a vertex attribute).
pub const KEEP: f32 = 0.0;
pub const CLOTHING: f32 = 1.0;
pub const SKIN: f32 = 2.0;
/// A face detail on a skin material (eyes, brows, mouth): a colour the skin key says is not
/// skin. The shader draws it dark whatever the skin tone, so it shows on every face.
pub const FEATURE: f32 = 3.0;

/// One vertex of a crowd figure.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FigureVertex {
    pub position: Vec3,
    pub normal: Vec3,
    /// Linear base colour of the material.
    pub color: Vec3,
    /// What colours this vertex per person: `KEEP`, `CLOTHING` (the person's tint), `SKIN`
    /// (the person's skin tone) or `FEATURE` (a face detail, drawn dark).
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

    /// Linear-blend skinning on the CPU with a palette indexed by skin slot (the shared
    /// kernel `anim::blend_joints`): the reference the GPU path and the naive path are checked
    /// against.
    pub fn skinned_position(&self, v: usize, palette: &[Mat4]) -> Vec3 {
        let Some(vert) = self.vertices.get(v) else {
            return Vec3::ZERO;
        };
        blend_joints(palette, vert.joints, vert.weights, self.influences as usize)
            .transform_point3(vert.position)
    }
}

impl FigureVertex {
    /// This vertex's position and (unnormalised) normal skinned by `palette` over its first
    /// `influences` bone influences.
    #[inline]
    pub fn skinned(&self, palette: &[Mat4], influences: u32) -> (Vec3, Vec3) {
        let m = blend_joints(palette, self.joints, self.weights, influences as usize);
        (
            m.transform_point3(self.position),
            m.transform_vector3(self.normal),
        )
    }
}

/// A group of triangles sharing one material: simplification keeps material borders.
#[derive(Debug, Clone, Default)]
pub struct MaterialPart {
    pub name: String,
    pub mesh: FigureMesh,
}

/// The skinned primitives bound to `skin` (or to another skin over the same joints with the
/// same inverse binds, as RobotExpressive's two hands are), merged per material, in mesh bind
/// space with skin-slot joints. `tint_class(material name)` is `KEEP`, `CLOTHING` or `SKIN`.
/// Problems with a fallback (a texture that cannot be sampled) are added to `warnings` once.
pub fn figure_parts(
    scene: &SceneAsset,
    skin: usize,
    tint_class: &dyn Fn(&str) -> f32,
    warnings: &mut Vec<String>,
) -> Vec<MaterialPart> {
    let mut parts: Vec<MaterialPart> = Vec::new();
    for (ni, node) in scene.nodes.iter().enumerate() {
        let Some(other) = node.skin else {
            continue;
        };
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        if other != skin && !same_skeleton(scene, skin, other) {
            note(
                warnings,
                format!(
                    "skinned node {} is bound to another skeleton (skin {other}); it is left out",
                    node_label(scene, ni)
                ),
            );
            continue;
        }
        for prim in &mesh.primitives {
            if prim.mode != PrimitiveMode::Triangles || !prim.is_skinned() {
                continue;
            }
            let slots = |local: UVec4| {
                UVec4::from_array(
                    local
                        .to_array()
                        .map(|j| mesh.palette_joints.get(j as usize).copied().unwrap_or(0)),
                )
            };
            add_primitive(&mut parts, scene, prim, tint_class, warnings, &slots);
        }
    }
    parts
}

/// The triangles of a rigid (unskinned) mesh node, merged per material, in the node's own mesh
/// space with no bone yet (see `props::attach_to_bone`).
pub fn rigid_parts(
    scene: &SceneAsset,
    node: usize,
    tint_class: &dyn Fn(&str) -> f32,
    warnings: &mut Vec<String>,
) -> Vec<MaterialPart> {
    let mut parts = Vec::new();
    let Some(mesh) = scene
        .nodes
        .get(node)
        .and_then(|n| n.mesh)
        .and_then(|m| scene.meshes.get(m))
    else {
        return parts;
    };
    for prim in &mesh.primitives {
        if prim.mode == PrimitiveMode::Triangles {
            add_primitive(&mut parts, scene, prim, tint_class, warnings, &|_| {
                UVec4::ZERO
            });
        }
    }
    parts
}

/// Appends `more` to `parts`, joining parts of the same material.
pub fn merge_parts(parts: &mut Vec<MaterialPart>, more: Vec<MaterialPart>) {
    for part in more {
        match parts.iter_mut().find(|p| p.name == part.name) {
            Some(p) => p.mesh.append(&part.mesh),
            None => parts.push(part),
        }
    }
}

/// Whether skins `a` and `b` drive the same joints with the same inverse bind matrices, so
/// their vertices share one bind space and one palette.
fn same_skeleton(scene: &SceneAsset, a: usize, b: usize) -> bool {
    match (scene.skins.get(a), scene.skins.get(b)) {
        (Some(a), Some(b)) => a.joints == b.joints && a.inverse_bind == b.inverse_bind,
        _ => false,
    }
}

fn node_label(scene: &SceneAsset, node: usize) -> String {
    match scene.nodes.get(node).and_then(|n| n.name.as_deref()) {
        Some(name) => format!("`{name}`"),
        None => format!("{node}"),
    }
}

fn note(warnings: &mut Vec<String>, message: String) {
    if !warnings.contains(&message) {
        warnings.push(message);
    }
}

/// Adds one triangle primitive to the part of its material. `slots` maps the primitive's
/// joint indices to skin slots.
fn add_primitive(
    parts: &mut Vec<MaterialPart>,
    scene: &SceneAsset,
    prim: &PrimitiveAsset,
    tint_class: &dyn Fn(&str) -> f32,
    warnings: &mut Vec<String>,
    slots: &dyn Fn(UVec4) -> UVec4,
) {
    let material = prim.material.and_then(|m| scene.materials.get(m));
    let name = material
        .and_then(|m| m.name.clone())
        .unwrap_or_else(|| "unnamed".to_string());
    let colors = primitive_colors(scene, prim, warnings);
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
    for (v, &color) in colors.iter().enumerate() {
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
            color,
            tint,
            joints: slots(prim.joints.get(v).copied().unwrap_or_default()),
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

/// Linear colour of every vertex of `prim`: the material's base colour factor times the vertex
/// colour times its base-colour texture at TEXCOORD_0 (moved by its `KHR_texture_transform`,
/// read with the sampler's magnification filter and wrap, decoded from sRGB). The crowd shader has no UVs, so a palette-atlas texture (KayKit,
/// many Quaternius packs) is baked into the vertices here. A texture that cannot be sampled
/// leaves the factor alone and adds a warning. The crowd's shader is Lambert, so a metallic
/// material (glTF metallic-roughness) keeps only its diffuse part, `base · (1 − metalness)`,
/// as the hero's PBR shading has it (`hero::pbr`).
pub fn primitive_colors(
    scene: &SceneAsset,
    prim: &PrimitiveAsset,
    warnings: &mut Vec<String>,
) -> Vec<Vec3> {
    let mut colors = base_colors(scene, prim, warnings);
    let material = prim.material.and_then(|m| scene.materials.get(m));
    let Some(pbr) = material.and_then(crate::hero::pbr::PbrParams::of) else {
        return colors;
    };
    // The metallic-roughness texture is linear data: B scales the metallic factor. One that
    // cannot be sampled (missing, undecoded, no UVs) leaves the factor alone.
    let texture = pbr
        .texture
        .and_then(|t| scene.textures.get(t))
        .filter(|t| !t.fallback && prim.uvs.len() == prim.vertex_count());
    let transform = material.map(|m| m.base_color_transform).unwrap_or_default();
    for (v, c) in colors.iter_mut().enumerate() {
        let metalness = match (texture, prim.uvs.get(v)) {
            (Some(t), Some(uv)) => pbr.metallic * t.sample(transform.apply(*uv))[2] / 255.0,
            _ => pbr.metallic,
        };
        *c = crate::hero::pbr::diffuse_color(*c, metalness);
    }
    colors
}

/// The base colour of every vertex (factor × vertex colour × base texture), see
/// `primitive_colors`.
fn base_colors(scene: &SceneAsset, prim: &PrimitiveAsset, warnings: &mut Vec<String>) -> Vec<Vec3> {
    let material = prim.material.and_then(|m| scene.materials.get(m));
    let base = material.map_or(Vec4::ONE, |m| m.base_color);
    let mut colors: Vec<Vec3> = (0..prim.vertex_count())
        .map(|v| (base * prim.colors.get(v).copied().unwrap_or(Vec4::ONE)).truncate())
        .collect();
    let Some((m, t)) = material.and_then(|m| Some((m, m.base_color_texture?))) else {
        return colors;
    };
    let label = m.name.as_deref().unwrap_or("unnamed");
    let texture = scene.textures.get(t);
    let problem = match texture {
        None => Some(format!("its base-colour texture {t} is missing")),
        Some(tex) if tex.fallback => {
            Some(format!("its base-colour texture {t} could not be decoded"))
        }
        Some(_) if prim.uvs.len() != prim.vertex_count() => {
            Some("it is textured but the mesh has no TEXCOORD_0".to_string())
        }
        Some(_) => None,
    };
    if let Some(why) = problem {
        note(
            warnings,
            format!("material `{label}`: {why}; using its colour factor"),
        );
        return colors;
    }
    let Some(tex) = texture else {
        return colors;
    };
    for (c, uv) in colors.iter_mut().zip(&prim.uvs) {
        let px = tex.sample(m.base_color_transform.apply(*uv));
        *c *= Vec3::new(
            srgb_to_linear_f(px[0]),
            srgb_to_linear_f(px[1]),
            srgb_to_linear_f(px[2]),
        );
    }
    colors
}

/// An 8-bit sRGB channel as a linear value (the exact sRGB curve).
pub fn srgb_to_linear(c: u8) -> f32 {
    srgb_to_linear_f(c as f32)
}

/// A filtered sRGB channel (0 to 255, fractions allowed) as a linear value.
fn srgb_to_linear_f(c: f32) -> f32 {
    let c = c / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// How far (gamma-encoded RGB, as `lod`'s colour regions) a skin-material colour may be from
/// the skin key and still be skin.
const SKIN_KEY_DISTANCE: f32 = 0.15;

fn gamma(c: Vec3) -> Vec3 {
    let c = c.max(Vec3::ZERO);
    Vec3::new(c.x.sqrt(), c.y.sqrt(), c.z.sqrt())
}

/// The skin's colour key: the colour covering the most surface among the `SKIN` vertices of
/// all `parts` (gamma-encoded, in bins of 1/32). Taken over the whole figure, not per material:
/// the Quaternius bodies keep eyes and brows in a material of their own (`Face`), which is
/// then wholly unlike the body's `Skin`. None when no vertex is `SKIN`.
pub fn skin_key(parts: &[MaterialPart]) -> Option<Vec3> {
    let mut bins: std::collections::BTreeMap<[i32; 3], (f32, Vec3)> = Default::default();
    for part in parts {
        let m = &part.mesh;
        for t in m.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| &m.vertices[i as usize]);
            // A degenerate triangle still counts a little: a figure of slivers has a key too.
            let area = 0.5
                * (b.position - a.position)
                    .cross(c.position - a.position)
                    .length();
            for v in [a, b, c] {
                if v.tint != SKIN {
                    continue;
                }
                let g = gamma(v.color);
                let bin = (g * 32.0).round().as_ivec3().to_array();
                let e = bins.entry(bin).or_insert((0.0, Vec3::ZERO));
                e.0 += area + 1e-9;
                e.1 += g * (area + 1e-9);
            }
        }
    }
    let (weight, sum) =
        bins.into_values().fold(
            (0.0, Vec3::ZERO),
            |best, e| if e.0 > best.0 { e } else { best },
        );
    (weight > 0.0).then(|| sum / weight)
}

/// Marks every `SKIN` vertex whose colour is not the skin `key` (see `skin_key`) as a face
/// `FEATURE`, so the skin tone paints only what is skin.
pub fn mark_face_features(parts: &mut [MaterialPart], key: Vec3) {
    for part in parts {
        for v in &mut part.mesh.vertices {
            if v.tint == SKIN && gamma(v.color).distance(key) > SKIN_KEY_DISTANCE {
                v.tint = FEATURE;
            }
        }
    }
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

    /// A part of `n` triangles of one colour and tint class, each of area `area`.
    fn flat_part(name: &str, color: Vec3, tint: f32, n: usize, area: f32) -> MaterialPart {
        let mut mesh = FigureMesh::default();
        for k in 0..n {
            let x = k as f32 * 10.0;
            for p in [
                Vec3::new(x, 0.0, 0.0),
                Vec3::new(x + 2.0 * area, 0.0, 0.0),
                Vec3::Y,
            ] {
                mesh.indices.push(mesh.vertices.len() as u32);
                mesh.vertices.push(FigureVertex {
                    position: p,
                    color,
                    tint,
                    ..Default::default()
                });
            }
        }
        MaterialPart {
            name: name.into(),
            mesh,
        }
    }

    #[test]
    fn the_skin_key_keeps_eyes_and_brows_out_of_the_skin_tone() {
        // Quaternius: a near-black `Skin` body, near-white eyes and brows in `Face`, and more
        // `Face` triangles than body ones, so the key must weigh by area.
        let body = Vec3::splat(0.0134);
        let eyes = Vec3::new(1.0, 1.0, 0.94);
        let mut parts = vec![
            flat_part("Skin", body, SKIN, 4, 1.0),
            flat_part("Face", eyes, SKIN, 10, 0.05),
            flat_part("Hair", eyes, KEEP, 1, 1.0),
        ];
        let key = skin_key(&parts).expect("a skin key");
        assert_approx!(key, Vec3::splat(0.0134f32.sqrt()), 1e-5);
        mark_face_features(&mut parts, key);
        let classes = |p: &MaterialPart| p.mesh.vertices.iter().map(|v| v.tint).collect::<Vec<_>>();
        assert!(classes(&parts[0]).iter().all(|&t| t == SKIN));
        assert!(classes(&parts[1]).iter().all(|&t| t == FEATURE));
        assert!(classes(&parts[2]).iter().all(|&t| t == KEEP));
        // A face of skin colour with a darker texel or two: only those become features.
        let mut face = flat_part("Face", body, SKIN, 3, 1.0);
        face.mesh.vertices[4].color = Vec3::ZERO;
        let mut parts = vec![face];
        let key = skin_key(&parts).expect("a skin key");
        mark_face_features(&mut parts, key);
        let features: Vec<usize> = (0..9)
            .filter(|&v| parts[0].mesh.vertices[v].tint == FEATURE)
            .collect();
        assert_eq!(features, [4]);
        // No skin material, no key.
        assert_eq!(skin_key(&[flat_part("Hair", eyes, KEEP, 2, 1.0)]), None);
    }

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
        assert_approx!(
            two.vertices[0].weights,
            Vec4::new(0.625, 0.375, 0.0, 0.0),
            1e-6
        );
        assert_eq!(two.influences, 2);
        limit_influences(&mut m, 1);
        assert_eq!(m.vertices[0].joints.x, 7);
        assert_eq!(m.vertices[0].weights, Vec4::X);
    }
}

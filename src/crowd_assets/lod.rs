//! Reduced crowd meshes for the mid and far levels of detail, made at load with meshoptimizer:
//! the Quaternius bodies are ~6,500 triangles, which a software rasteriser cannot afford
//! thousands of times per frame.

use super::mesh::{limit_influences, FigureMesh, MaterialPart};

/// How much of a level of detail to keep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodRecipe {
    /// Fraction of the triangles to aim for.
    pub ratio: f32,
    /// Bone influences per vertex.
    pub influences: u32,
    /// Largest error meshoptimizer may introduce, relative to the part's size.
    pub max_error: f32,
    /// Simplify each colour region of a textured part on its own (see `colour_regions`); far
    /// away the regions would cost more triangles than the colours are worth.
    pub colour_regions: bool,
}

pub const NEAR: LodRecipe = LodRecipe {
    ratio: 1.0,
    influences: 4,
    max_error: 0.0,
    colour_regions: false,
};
pub const MID: LodRecipe = LodRecipe {
    ratio: 0.22,
    influences: 2,
    max_error: 0.25,
    colour_regions: true,
};
pub const FAR: LodRecipe = LodRecipe {
    ratio: 0.06,
    influences: 1,
    max_error: 0.5,
    colour_regions: false,
};

/// A part keeps at least this many triangles (or all it has): legs must not vanish at
/// distance because their material happens to be a small part.
#[cfg(not(target_arch = "wasm32"))]
const MIN_PART_TRIANGLES: usize = 16;

/// Builds one level of detail from the material parts: each part simplified on its own (so
/// colours keep their borders), then merged, unused vertices dropped.
pub fn build_lod(parts: &[MaterialPart], recipe: LodRecipe) -> FigureMesh {
    let mut out = FigureMesh {
        influences: 4,
        ..Default::default()
    };
    for part in parts {
        if !recipe.colour_regions {
            out.append(&simplify_part(&part.mesh, recipe));
            continue;
        }
        for region in colour_regions(&part.mesh) {
            let reduced = simplify_part(&region, recipe);
            out.append(&reduced);
        }
    }
    limit_influences(&mut out, recipe.influences);
    out
}

/// Most colour regions a part is split into before simplifying.
const MAX_COLOUR_REGIONS: usize = 10;

/// How far apart (in gamma-encoded RGB) two triangle colours may be and still count as one
/// region.
const COLOUR_REGION_DISTANCE: f32 = 0.15;

/// Splits a part by colour: a textured material baked into vertex colours (a palette atlas:
/// helmet steel, face, cape) is several colours under one name, and simplifying it as one
/// would smear one colour over another (skin spots on a helmet). Triangles join the nearest
/// region within `COLOUR_REGION_DISTANCE` of its first triangle's colour, at most
/// `MAX_COLOUR_REGIONS` regions (then the nearest). A plain material stays one region.
fn colour_regions(mesh: &FigureMesh) -> Vec<FigureMesh> {
    let gamma = |c: glam::Vec3| glam::Vec3::new(c.x.sqrt(), c.y.sqrt(), c.z.sqrt());
    let mut centres: Vec<glam::Vec3> = Vec::new();
    let mut region_of = Vec::with_capacity(mesh.indices.len() / 3);
    for t in mesh.indices.chunks_exact(3) {
        let c = t
            .iter()
            .map(|&i| gamma(mesh.vertices[i as usize].color.max(glam::Vec3::ZERO)))
            .sum::<glam::Vec3>()
            / 3.0;
        let nearest = centres
            .iter()
            .enumerate()
            .map(|(k, r)| (k, r.distance(c)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let k = match nearest {
            Some((k, d)) if d <= COLOUR_REGION_DISTANCE || centres.len() >= MAX_COLOUR_REGIONS => k,
            _ => {
                centres.push(c);
                centres.len() - 1
            }
        };
        region_of.push(k);
    }
    if centres.len() <= 1 {
        return vec![mesh.clone()];
    }
    (0..centres.len())
        .map(|k| {
            let indices: Vec<u32> = mesh
                .indices
                .chunks_exact(3)
                .zip(&region_of)
                .filter(|(_, &r)| r == k)
                .flat_map(|(t, _)| t.iter().copied())
                .collect();
            compact(mesh, &indices)
        })
        .collect()
}

/// The web build has no meshoptimizer (its C++ cannot be built for wasm32-unknown-unknown), so
/// every level keeps the full mesh there: more triangles, the same picture.
#[cfg(target_arch = "wasm32")]
fn simplify_part(mesh: &FigureMesh, _recipe: LodRecipe) -> FigureMesh {
    mesh.clone()
}

#[cfg(not(target_arch = "wasm32"))]
fn simplify_part(mesh: &FigureMesh, recipe: LodRecipe) -> FigureMesh {
    if recipe.ratio >= 1.0 || mesh.indices.len() < 3 {
        return mesh.clone();
    }
    let positions: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| v.position.to_array())
        .collect();
    // Weld by position so normal and colour seams do not stop edge collapses; every welded
    // vertex keeps the attributes of its first occurrence.
    let (_, remap) = meshopt::generate_vertex_remap(&positions, Some(&mesh.indices));
    let mut first_of = vec![u32::MAX; mesh.vertices.len()];
    for (v, &r) in remap.iter().enumerate() {
        if r != u32::MAX && first_of[r as usize] == u32::MAX {
            first_of[r as usize] = v as u32;
        }
    }
    let welded: Vec<u32> = mesh
        .indices
        .iter()
        .map(|&i| first_of[remap[i as usize] as usize])
        .collect();
    let triangles = welded.len() / 3;
    let target = ((triangles as f32 * recipe.ratio) as usize)
        .max(MIN_PART_TRIANGLES)
        .min(triangles);
    // The Quaternius rigs are already low-poly shells that touch without sharing edges, which
    // edge-collapse simplification must leave alone; sloppy (clustering) simplification is
    // what reduces them. It can overshoot below the target, so step the target up until the
    // part keeps its minimum.
    let mut reduced = Vec::new();
    let mut ask = target;
    while ask <= triangles {
        reduced =
            meshopt::simplify_sloppy_decoder(&welded, &positions, ask * 3, recipe.max_error, None);
        if reduced.len() / 3 >= target.min(MIN_PART_TRIANGLES) || ask == triangles {
            break;
        }
        ask = (ask * 2).min(triangles);
    }
    if reduced.is_empty() {
        return mesh.clone();
    }
    compact(mesh, &reduced)
}

/// Keeps only the vertices `indices` use, renumbered in first-use order.
fn compact(mesh: &FigureMesh, indices: &[u32]) -> FigureMesh {
    let mut new_index = vec![u32::MAX; mesh.vertices.len()];
    let mut out = FigureMesh {
        influences: mesh.influences,
        ..Default::default()
    };
    for &i in indices {
        let slot = &mut new_index[i as usize];
        if *slot == u32::MAX {
            *slot = out.vertices.len() as u32;
            out.vertices.push(mesh.vertices[i as usize]);
        }
        out.indices.push(*slot);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd_assets::mesh::FigureVertex;
    use glam::{UVec4, Vec3, Vec4};

    /// A finely tessellated grid bent into a half cylinder.
    fn sheet(n: u32) -> MaterialPart {
        let mut mesh = FigureMesh {
            influences: 4,
            ..Default::default()
        };
        for y in 0..=n {
            for x in 0..=n {
                let a = x as f32 / n as f32 * std::f32::consts::PI;
                mesh.vertices.push(FigureVertex {
                    position: Vec3::new(a.cos(), y as f32 / n as f32, a.sin()),
                    normal: Vec3::new(a.cos(), 0.0, a.sin()),
                    joints: UVec4::new(1, 2, 0, 0),
                    weights: Vec4::new(0.7, 0.3, 0.0, 0.0),
                    ..Default::default()
                });
            }
        }
        for y in 0..n {
            for x in 0..n {
                let i = y * (n + 1) + x;
                mesh.indices
                    .extend_from_slice(&[i, i + n + 1, i + 1, i + 1, i + n + 1, i + n + 2]);
            }
        }
        MaterialPart {
            name: "sheet".into(),
            mesh,
        }
    }

    #[test]
    fn lods_shrink_and_reference_only_their_own_vertices() {
        let parts = [sheet(40)];
        let near = build_lod(&parts, NEAR);
        let mid = build_lod(&parts, MID);
        let far = build_lod(&parts, FAR);
        assert_eq!(near.triangle_count(), 3200);
        assert!(
            mid.triangle_count() < near.triangle_count() / 2,
            "{}",
            mid.triangle_count()
        );
        assert!(
            far.triangle_count() < mid.triangle_count(),
            "{}",
            far.triangle_count()
        );
        assert!(far.triangle_count() > 0);
        for m in [&near, &mid, &far] {
            assert!(m.indices.iter().all(|&i| (i as usize) < m.vertices.len()));
        }
        assert_eq!((mid.influences, far.influences), (2, 1));
        assert_eq!(far.vertices[0].weights, Vec4::X);
    }

    #[test]
    fn a_textured_part_keeps_its_colour_regions_apart_at_mid() {
        // One material, two baked colours (a palette atlas): two half cylinders meeting along
        // a seam (coincident vertices with different colours), one red, one blue.
        let (red, blue) = (Vec3::new(0.8, 0.05, 0.05), Vec3::new(0.05, 0.1, 0.8));
        let mut part = sheet(20);
        part.mesh.vertices.iter_mut().for_each(|v| v.color = red);
        let mut other = sheet(20).mesh;
        for v in &mut other.vertices {
            v.position.x += 2.0;
            v.color = blue;
        }
        part.mesh.append(&other);
        let mid = build_lod(&[part.clone()], MID);
        assert!(mid.triangle_count() < 1600 / 2);
        let mut colours = std::collections::HashSet::new();
        for t in mid.indices.chunks_exact(3) {
            let c: Vec<Vec3> = t.iter().map(|&i| mid.vertices[i as usize].color).collect();
            assert!(
                c[0] == c[1] && c[1] == c[2],
                "a triangle mixes colours: {c:?}"
            );
            colours.insert(c[0].to_array().map(f32::to_bits));
        }
        assert_eq!(colours.len(), 2);
        // A plain (one-colour) part is one region: the same result as before regions existed.
        let plain = sheet(40);
        assert_eq!(colour_regions(&plain.mesh).len(), 1);
    }
}

use super::error::AnimError;
use super::pose::ScenePose;
use crate::asset::{Aabb, PrimitiveAsset, SceneAsset};
use glam::{Mat4, UVec4, Vec3, Vec4};

/// Joint matrices of one palette group in mesh-local space:
/// `inverse(meshWorld) * jointWorld * inverseBind`, in the order of `joint_nodes`.
#[derive(Debug, Clone, Default)]
pub struct SkinningPalette {
    pub matrices: Vec<Mat4>,
    /// Joint bounds through the current matrices (mesh-local): the dynamic skinned bounds.
    pub current_local_bounds: Aabb,
    /// Advances whenever `matrices` change; a renderer uploads when it holds an older one.
    pub version: u64,
}

/// Primitives of one mesh node with identical joint lists and inverse binds: one palette.
#[derive(Debug, Clone)]
pub struct SkinningPaletteGroup {
    pub mesh_node: usize,
    pub joint_nodes: Vec<usize>,
    pub inverse_bind: Vec<Mat4>,
    /// Union over the group's primitives, per palette joint.
    pub joint_bounds: Vec<Aabb>,
    pub palette: SkinningPalette,
}

/// All palettes of a scene instance, looked up by (node, primitive).
#[derive(Debug, Clone)]
pub struct SkinningPaletteSet {
    scene_id: u64,
    lookup: Vec<Vec<Option<usize>>>,
    groups: Vec<SkinningPaletteGroup>,
    joint_matrix_count: usize,
    last_upload_count: usize,
    last_pose_version: u64,
}

impl SkinningPaletteSet {
    pub fn new(scene: &SceneAsset) -> Self {
        let mut lookup = vec![Vec::new(); scene.nodes.len()];
        let mut groups: Vec<SkinningPaletteGroup> = Vec::new();
        for (ni, node) in scene.nodes.iter().enumerate() {
            let (Some(mi), Some(si)) = (node.mesh, node.skin) else {
                continue;
            };
            let (Some(mesh), Some(skin)) = (scene.meshes.get(mi), scene.skins.get(si)) else {
                continue;
            };
            lookup[ni] = vec![None; mesh.primitives.len()];
            let joint_nodes: Vec<usize> = mesh
                .palette_joints
                .iter()
                .filter_map(|&s| skin.joints.get(s as usize).copied())
                .collect();
            let inverse_bind: Vec<Mat4> = mesh
                .palette_joints
                .iter()
                .filter_map(|&s| skin.inverse_bind.get(s as usize).copied())
                .collect();
            if joint_nodes.len() != mesh.palette_joints.len() {
                continue;
            }
            // Groups are shared within a node only, so the search starts at this node's first
            // group: searching every node's groups made many instances of one mesh quadratic
            // (20000 nodes of a 3-vertex mesh took seconds).
            let node_start = groups.len();
            for (pi, prim) in mesh.primitives.iter().enumerate() {
                if !prim.is_skinned() {
                    continue;
                }
                // Exact compare: only definitions from the same import may share.
                let found = groups[node_start..]
                    .iter()
                    .position(|g| g.joint_nodes == joint_nodes && g.inverse_bind == inverse_bind)
                    .map(|i| node_start + i);
                let gi = match found {
                    Some(gi) => {
                        let g = &mut groups[gi];
                        for (a, b) in g.joint_bounds.iter_mut().zip(&prim.joint_bounds) {
                            *a = a.union(b);
                        }
                        gi
                    }
                    None => {
                        groups.push(SkinningPaletteGroup {
                            mesh_node: ni,
                            joint_nodes: joint_nodes.clone(),
                            inverse_bind: inverse_bind.clone(),
                            joint_bounds: prim.joint_bounds.clone(),
                            palette: SkinningPalette::default(),
                        });
                        groups.len() - 1
                    }
                };
                lookup[ni][pi] = Some(gi);
            }
        }
        let joint_matrix_count = groups.iter().map(|g| g.joint_nodes.len()).sum();
        Self {
            scene_id: scene.id,
            lookup,
            groups,
            joint_matrix_count,
            last_upload_count: 0,
            last_pose_version: 0,
        }
    }

    pub fn palette_count(&self) -> usize {
        self.groups.len()
    }
    pub fn joint_matrix_count(&self) -> usize {
        self.joint_matrix_count
    }
    /// Palettes recomputed by the last `update` (0 when the pose had not changed).
    pub fn last_upload_count(&self) -> usize {
        self.last_upload_count
    }
    pub fn groups(&self) -> &[SkinningPaletteGroup] {
        &self.groups
    }
    pub fn group_index(&self, node: usize, primitive: usize) -> Option<usize> {
        self.lookup.get(node)?.get(primitive).copied().flatten()
    }
    /// Palette of a skinned primitive; None for static primitives or out of range.
    pub fn find(&self, node: usize, primitive: usize) -> Option<&SkinningPalette> {
        self.group_index(node, primitive)
            .map(|g| &self.groups[g].palette)
    }

    /// Recomputes every palette from the pose, unless the pose version is the one already used.
    pub fn update(&mut self, scene: &SceneAsset, pose: &ScenePose) -> Result<(), AnimError> {
        self.last_upload_count = 0;
        if self.scene_id != scene.id || !pose.is_for_scene(scene) {
            return Err(AnimError::WrongScene);
        }
        let v = pose.version();
        if v != 0 && v == self.last_pose_version {
            return Ok(());
        }
        let world = pose.world_matrices().ok_or(AnimError::PoseDirty)?;
        for g in &mut self.groups {
            compute_palette(
                world,
                g.mesh_node,
                &g.joint_nodes,
                &g.inverse_bind,
                &g.joint_bounds,
                &mut g.palette,
            )?;
            self.last_upload_count += 1;
        }
        self.last_pose_version = v;
        Ok(())
    }
}

/// One palette from world matrices: matrices and their dynamic bounds.
pub fn compute_palette(
    world: &[Mat4],
    mesh_node: usize,
    joint_nodes: &[usize],
    inverse_bind: &[Mat4],
    joint_bounds: &[Aabb],
    out: &mut SkinningPalette,
) -> Result<(), AnimError> {
    let mesh_world = world
        .get(mesh_node)
        .ok_or(AnimError::NodeOutOfRange(mesh_node))?;
    let inv_mesh = mesh_world.inverse();
    out.matrices.clear();
    out.version += 1;
    out.current_local_bounds = Aabb::EMPTY;
    for (k, (&j, ibm)) in joint_nodes.iter().zip(inverse_bind).enumerate() {
        let jw = world.get(j).ok_or(AnimError::NodeOutOfRange(j))?;
        let m = inv_mesh * *jw * *ibm;
        if let Some(b) = joint_bounds.get(k) {
            out.current_local_bounds = out.current_local_bounds.union(&b.transformed(&m));
        }
        out.matrices.push(m);
    }
    Ok(())
}

/// The one CPU linear-blend skinning kernel: the joint matrix of one vertex,
/// `Σ weights[k] · palette[joints[k]]` over its first `influences` (at most 4) influences.
/// Transform a position with `transform_point3` and a normal with `transform_vector3` (then
/// normalise). Used by `skin_positions`/`skin_normals`, the crowd figures
/// (`FigureMesh::skinned_position`) and the crowd's runtime VAT bake, so all of them agree to
/// the bit. A joint outside the palette counts as a zero matrix; zero weights after the first
/// are skipped (adding a zero matrix changes nothing but the time).
#[inline]
pub fn blend_joints(palette: &[Mat4], joints: UVec4, weights: Vec4, influences: usize) -> Mat4 {
    let n = influences.min(4);
    if n == 0 {
        return Mat4::ZERO;
    }
    let m = |k: usize| {
        palette
            .get(joints[k] as usize)
            .copied()
            .unwrap_or(Mat4::ZERO)
    };
    let mut out = m(0) * weights.x;
    for k in 1..n {
        let w = weights[k];
        if w != 0.0 {
            out += m(k) * w;
        }
    }
    out
}

/// CPU linear-blend skinning: `out[v] = Σ w·palette[j] · positions[v]`. `positions` may be
/// morphed vertices; the result is in the same (mesh-local) space as the palette.
pub fn skin_positions(
    prim: &PrimitiveAsset,
    palette: &[Mat4],
    positions: &[Vec3],
    out: &mut Vec<Vec3>,
) {
    out.clear();
    for (v, p) in positions.iter().enumerate() {
        match (prim.joints.get(v), prim.weights.get(v)) {
            (Some(&j), Some(&w)) => out.push(blend_joints(palette, j, w, 4).transform_point3(*p)),
            _ => out.push(*p),
        }
    }
}

/// Skins normals with the blended matrix's upper 3x3 and renormalises them.
pub fn skin_normals(
    prim: &PrimitiveAsset,
    palette: &[Mat4],
    normals: &[Vec3],
    out: &mut Vec<Vec3>,
) {
    out.clear();
    for (v, n) in normals.iter().enumerate() {
        match (prim.joints.get(v), prim.weights.get(v)) {
            (Some(&j), Some(&w)) => out.push(
                blend_joints(palette, j, w, 4)
                    .transform_vector3(*n)
                    .normalize_or_zero(),
            ),
            _ => out.push(*n),
        }
    }
}

/// Dynamic bounds of a skinned primitive: the palette's joint bounds, grown by the morph delta
/// times the largest linear scale among the palette matrices (conservative).
pub fn skinned_bounds(palette: &SkinningPalette, max_morph_delta: f32) -> Aabb {
    if max_morph_delta <= 0.0 {
        return palette.current_local_bounds;
    }
    let scale = palette
        .matrices
        .iter()
        .map(|m| {
            m.x_axis
                .truncate()
                .length()
                .max(m.y_axis.truncate().length())
                .max(m.z_axis.truncate().length())
        })
        .fold(0.0f32, f32::max);
    // Column lengths bound the spectral norm only up to sqrt(3); be safe.
    palette
        .current_local_bounds
        .expanded(max_morph_delta * scale * 3f32.sqrt())
}

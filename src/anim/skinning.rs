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
    /// Set when `matrices` hold the latest pose and have not been consumed by an upload yet;
    /// the renderer clears it with `mark_uploaded`.
    pub uploaded: bool,
}

impl SkinningPalette {
    pub fn mark_uploaded(&mut self) {
        self.uploaded = true;
    }
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
    pub fn groups_mut(&mut self) -> &mut [SkinningPaletteGroup] {
        &mut self.groups
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
    out.uploaded = false;
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

#[inline]
fn blend(palette: &[Mat4], j: UVec4, w: Vec4) -> Mat4 {
    let m = |k: usize| palette.get(j[k] as usize).copied().unwrap_or(Mat4::ZERO);
    let mut out = m(0) * w.x;
    if w.y != 0.0 {
        out += m(1) * w.y;
    }
    if w.z != 0.0 {
        out += m(2) * w.z;
    }
    if w.w != 0.0 {
        out += m(3) * w.w;
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
            (Some(&j), Some(&w)) => out.push(blend(palette, j, w).transform_point3(*p)),
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
                blend(palette, j, w)
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

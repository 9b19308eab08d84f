use super::error::AnimError;
use super::player::sample_clip;
use super::pose::ScenePose;
use super::skinning::{compute_palette, SkinningPalette};
use crate::asset::{Aabb, AnimationClipAsset, SceneAsset};
use glam::Mat4;

/// Samples clips at arbitrary times into joint palettes with no per-call allocation: for
/// baking animation-matrix textures (every clip × frame × bone) and for crowd LOD checks.
///
/// The clip may come from another scene with the same node layout (shared skeletons).
pub struct ClipSampler {
    pose: ScenePose,
    joint_nodes: Vec<usize>,
    inverse_bind: Vec<Mat4>,
    mesh_node: usize,
    scratch: Vec<f32>,
    palette: SkinningPalette,
    no_bounds: Vec<Aabb>,
    /// Palettes map bind space straight to the scene's space (`jointWorld * inverseBind`, the
    /// skinned node's own transform ignored as glTF asks) instead of the mesh node's space.
    world_space: bool,
}

impl ClipSampler {
    /// For the skinned mesh node `mesh_node`: palette order = `MeshAsset::palette_joints`,
    /// matching the primitives' vertex joint indices.
    pub fn new(scene: &SceneAsset, mesh_node: usize) -> Result<Self, AnimError> {
        Self::build(scene, mesh_node, false)
    }

    /// Like `new`, but the palette holds every joint of the skin in skin-slot order. Use it
    /// when several meshes (or files on one skeleton) share a baked texture: a vertex's skin
    /// slot is `mesh.palette_joints[vertex_joint]`, which differs from mesh to mesh.
    pub fn for_whole_skin(scene: &SceneAsset, mesh_node: usize) -> Result<Self, AnimError> {
        Self::build(scene, mesh_node, true)
    }

    fn build(scene: &SceneAsset, mesh_node: usize, whole: bool) -> Result<Self, AnimError> {
        let node = scene
            .nodes
            .get(mesh_node)
            .ok_or(AnimError::NodeOutOfRange(mesh_node))?;
        let mesh = node
            .mesh
            .and_then(|m| scene.meshes.get(m))
            .ok_or(AnimError::NodeOutOfRange(mesh_node))?;
        let skin = node
            .skin
            .and_then(|s| scene.skins.get(s))
            .ok_or(AnimError::NodeOutOfRange(mesh_node))?;
        let mut joint_nodes = Vec::new();
        let mut inverse_bind = Vec::new();
        let slots: Vec<u32> = if whole {
            (0..skin.joints.len() as u32).collect()
        } else {
            mesh.palette_joints.clone()
        };
        for &s in &slots {
            match (
                skin.joints.get(s as usize),
                skin.inverse_bind.get(s as usize),
            ) {
                (Some(&j), Some(&m)) => {
                    joint_nodes.push(j);
                    inverse_bind.push(m);
                }
                _ => return Err(AnimError::NodeOutOfRange(s as usize)),
            }
        }
        Ok(Self {
            pose: ScenePose::new(scene),
            joint_nodes,
            inverse_bind,
            mesh_node,
            scratch: Vec::new(),
            palette: SkinningPalette::default(),
            no_bounds: Vec::new(),
            world_space: false,
        })
    }

    /// Palettes in the scene's space (`jointWorld * inverseBind`) rather than the skinned mesh
    /// node's: the same for a skinned node at the origin, upright for files whose skinned node
    /// carries a transform glTF says to ignore (RobotExpressive's hands: scale 100, -90° X).
    /// Rigid meshes hanging from joints then land where the scene puts them.
    pub fn in_world_space(mut self) -> Self {
        self.world_space = true;
        self
    }

    pub fn joint_count(&self) -> usize {
        self.joint_nodes.len()
    }
    pub fn joint_nodes(&self) -> &[usize] {
        &self.joint_nodes
    }

    /// Palette (mesh-local joint matrices) of `clip` at `t` (clamped to the keys) into `out`
    /// (resized to the joint count; reuse it across calls).
    pub fn sample(
        &mut self,
        clip: &AnimationClipAsset,
        t: f32,
        out: &mut Vec<Mat4>,
    ) -> Result<(), AnimError> {
        if clip
            .node_channels
            .iter()
            .any(|c| c.node >= self.pose.node_count())
        {
            return Err(AnimError::ClipMismatch("channel node out of range".into()));
        }
        self.pose.reset_to_bind_pose();
        sample_clip(clip, t, &mut self.pose, None, &mut self.scratch);
        self.pose.update_world_matrices()?;
        let world = self.pose.world_matrices().ok_or(AnimError::PoseDirty)?;
        if self.world_space {
            out.clear();
            for (&j, ibm) in self.joint_nodes.iter().zip(&self.inverse_bind) {
                let jw = world.get(j).ok_or(AnimError::NodeOutOfRange(j))?;
                out.push(*jw * *ibm);
            }
            return Ok(());
        }
        compute_palette(
            world,
            self.mesh_node,
            &self.joint_nodes,
            &self.inverse_bind,
            &self.no_bounds,
            &mut self.palette,
        )?;
        out.clear();
        out.extend_from_slice(&self.palette.matrices);
        Ok(())
    }

    /// The pose left by the last `sample` (world matrices of every node).
    pub fn pose(&self) -> &ScenePose {
        &self.pose
    }
}

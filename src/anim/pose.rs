use super::error::AnimError;
use super::version::next_version;
use crate::asset::{SceneAsset, Transform};
use glam::Mat4;

const UNRESOLVED: u8 = 0;
const RESOLVING: u8 = 1;
const RESOLVED: u8 = 2;

/// The current pose of one scene instance: local TRS per node and derived world matrices.
///
/// World matrices are a cache guarded by a dirty latch: any local change sets it, and only a
/// complete `update_world_matrices` clears it, so readers never see a half-updated pose.
#[derive(Debug, Clone)]
pub struct ScenePose {
    scene_id: u64,
    parents: Vec<Option<usize>>,
    bind: Vec<Transform>,
    local: Vec<Transform>,
    world: Vec<Mat4>,
    states: Vec<u8>,
    dirty: bool,
    version: u64,
}

impl ScenePose {
    pub fn new(scene: &SceneAsset) -> Self {
        let n = scene.nodes.len();
        let bind: Vec<Transform> = scene.nodes.iter().map(|n| n.local).collect();
        Self {
            scene_id: scene.id,
            parents: scene.nodes.iter().map(|n| n.parent).collect(),
            local: bind.clone(),
            bind,
            world: vec![Mat4::IDENTITY; n],
            states: vec![UNRESOLVED; n],
            dirty: true,
            version: 0,
        }
    }

    /// Builds a pose over raw parents (tests of cycle handling use this; imports reject cycles).
    pub fn from_parts(scene_id: u64, parents: Vec<Option<usize>>, bind: Vec<Transform>) -> Self {
        let n = parents.len().min(bind.len());
        Self {
            scene_id,
            parents: parents[..n].to_vec(),
            local: bind[..n].to_vec(),
            bind: bind[..n].to_vec(),
            world: vec![Mat4::IDENTITY; n],
            states: vec![UNRESOLVED; n],
            dirty: true,
            version: 0,
        }
    }

    pub fn is_for_scene(&self, scene: &SceneAsset) -> bool {
        self.scene_id == scene.id && self.local.len() == scene.nodes.len()
    }

    pub fn scene_id(&self) -> u64 {
        self.scene_id
    }

    pub fn node_count(&self) -> usize {
        self.local.len()
    }

    /// Generation of the last complete evaluation; 0 = never evaluated.
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    pub fn reset_to_bind_pose(&mut self) {
        self.local.copy_from_slice(&self.bind);
        self.dirty = true;
    }

    pub fn set_local(&mut self, node: usize, t: Transform) -> Result<(), AnimError> {
        let slot = self
            .local
            .get_mut(node)
            .ok_or(AnimError::NodeOutOfRange(node))?;
        *slot = t;
        self.dirty = true;
        Ok(())
    }

    /// Mutable access for samplers writing several channels; marks the pose dirty.
    pub fn local_mut(&mut self, node: usize) -> Option<&mut Transform> {
        self.dirty = true;
        self.local.get_mut(node)
    }

    /// Every local transform at once, for clip samplers; marks the pose dirty.
    pub fn locals_mut(&mut self) -> &mut [Transform] {
        self.dirty = true;
        &mut self.local
    }

    pub fn local(&self, node: usize) -> Option<&Transform> {
        self.local.get(node)
    }

    pub fn bind(&self, node: usize) -> Option<&Transform> {
        self.bind.get(node)
    }

    /// World matrix, or None while the pose is dirty (half updated) or out of range.
    pub fn world(&self, node: usize) -> Option<&Mat4> {
        if self.dirty {
            None
        } else {
            self.world.get(node)
        }
    }

    /// All world matrices, or None while dirty.
    pub fn world_matrices(&self) -> Option<&[Mat4]> {
        (!self.dirty).then_some(&self.world[..])
    }

    /// Resolves every node's world matrix (parents first, each once) and advances the version.
    /// Returns `Cycle` without advancing the version if the hierarchy loops.
    pub fn update_world_matrices(&mut self) -> Result<(), AnimError> {
        self.states.fill(UNRESOLVED);
        let mut stack: Vec<usize> = Vec::new();
        for start in 0..self.local.len() {
            if self.states[start] == RESOLVED {
                continue;
            }
            // Walk up to the first resolved ancestor (or root), then resolve back down; an
            // iterative walk keeps deep chains from overflowing the call stack.
            stack.clear();
            let mut cur = Some(start);
            while let Some(i) = cur {
                match self.states[i] {
                    RESOLVED => break,
                    RESOLVING => return Err(AnimError::Cycle(i)),
                    _ => {
                        self.states[i] = RESOLVING;
                        stack.push(i);
                        cur = self.parents[i].filter(|&p| p < self.local.len());
                    }
                }
            }
            while let Some(i) = stack.pop() {
                let m = self.local[i].matrix();
                self.world[i] = match self.parents[i].filter(|&p| p < self.local.len()) {
                    Some(p) => self.world[p] * m,
                    None => m,
                };
                self.states[i] = RESOLVED;
            }
        }
        self.dirty = false;
        self.version = next_version(self.version);
        Ok(())
    }

    #[doc(hidden)]
    pub fn force_version_for_test(&mut self, v: u64) {
        self.version = v;
    }
}

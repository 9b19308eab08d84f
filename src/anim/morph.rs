use super::version::next_version;
use crate::asset::{Aabb, PrimitiveAsset, SceneAsset};
use glam::{Vec3, Vec4};

/// Morph weights of one mesh instance, clamped to [0,1], with an active count and a version
/// that only advances when a weight really changes (exact compare).
#[derive(Debug, Clone, Default)]
pub struct MorphState {
    weights: Vec<f32>,
    active: usize,
    version: u64,
}

impl MorphState {
    pub fn new(target_count: usize) -> Self {
        Self {
            weights: vec![0.0; target_count],
            active: 0,
            version: 1,
        }
    }

    pub fn weights(&self) -> &[f32] {
        &self.weights
    }
    pub fn active_count(&self) -> usize {
        self.active
    }
    pub fn version(&self) -> u64 {
        self.version
    }
    pub fn target_count(&self) -> usize {
        self.weights.len()
    }

    /// Returns whether the weight changed. Out-of-range targets and NaN are ignored.
    pub fn set_weight(&mut self, target: usize, w: f32) -> bool {
        if w.is_nan() {
            return false;
        }
        let w = w.clamp(0.0, 1.0);
        let Some(slot) = self.weights.get_mut(target) else {
            return false;
        };
        if *slot == w {
            return false;
        }
        match (*slot == 0.0, w == 0.0) {
            (true, false) => self.active += 1,
            (false, true) => self.active -= 1,
            _ => {}
        }
        *slot = w;
        self.version = next_version(self.version);
        true
    }

    /// Sets all weights; one version step if anything changed.
    pub fn set_weights(&mut self, ws: &[f32]) -> bool {
        let before = self.version;
        let mut changed = false;
        for (i, &w) in ws.iter().enumerate() {
            changed |= self.set_weight(i, w);
        }
        if changed {
            self.version = next_version(before);
        }
        changed
    }

    pub fn reset(&mut self) -> bool {
        if self.active == 0 {
            return false;
        }
        self.weights.fill(0.0);
        self.active = 0;
        self.version = next_version(self.version);
        true
    }
}

/// One `MorphState` per scene node whose mesh has morph targets (None elsewhere), initialised
/// from the node's default weights (node.weights, else mesh.weights).
#[derive(Debug, Clone)]
pub struct MorphStateSet {
    scene_id: u64,
    states: Vec<Option<MorphState>>,
}

impl MorphStateSet {
    pub fn new(scene: &SceneAsset) -> Self {
        let states = scene
            .nodes
            .iter()
            .map(|n| {
                let m = n.mesh.and_then(|m| scene.meshes.get(m))?;
                let tc = m.morph_target_names.len();
                if tc == 0 {
                    return None;
                }
                let mut s = MorphState::new(tc);
                s.set_weights(&n.morph_weights);
                Some(s)
            })
            .collect();
        Self {
            scene_id: scene.id,
            states,
        }
    }
    pub fn is_for_scene(&self, scene: &SceneAsset) -> bool {
        self.scene_id == scene.id && self.states.len() == scene.nodes.len()
    }
    pub fn get(&self, node: usize) -> Option<&MorphState> {
        self.states.get(node).and_then(Option::as_ref)
    }
    pub fn get_mut(&mut self, node: usize) -> Option<&mut MorphState> {
        self.states.get_mut(node).and_then(Option::as_mut)
    }
    /// Resets every node to the file's default weights.
    pub fn reset_to_defaults(&mut self, scene: &SceneAsset) {
        for (i, s) in self.states.iter_mut().enumerate() {
            if let (Some(s), Some(n)) = (s.as_mut(), scene.nodes.get(i)) {
                s.set_weights(&n.morph_weights);
            }
        }
    }
    /// Sets the weights of a VRM expression at `value` (0..1) on top of the current weights
    /// (binds of several expressions add, then clamp, like three-vrm).
    pub fn apply_expression(&mut self, scene: &SceneAsset, name: &str, value: f32) -> bool {
        let Some(e) = scene.vrm.as_ref().and_then(|v| v.expression(name)) else {
            return false;
        };
        let value = if e.is_binary {
            if value > 0.5 {
                1.0
            } else {
                0.0
            }
        } else {
            value
        };
        for b in &e.binds {
            if let Some(s) = self.get_mut(b.node) {
                let cur = s.weights().get(b.target).copied().unwrap_or(0.0);
                s.set_weight(b.target, cur + b.weight * value);
            }
        }
        true
    }
}

/// Morphed vertex data of one primitive, rebuilt from base vertices when the state changes.
#[derive(Debug, Clone, Default)]
pub struct MorphedPrimitive {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub tangents: Vec<Vec4>,
    pub bounds: Aabb,
    /// Largest |morphed - base| position distance: pads skinned bounds.
    pub max_position_delta: f32,
    applied_version: u64,
    pub last_rebuilds: usize,
    pub total_rebuilds: usize,
}

impl MorphedPrimitive {
    /// Rebuilds when `state`'s version differs from the one applied; returns whether it did.
    pub fn update(&mut self, prim: &PrimitiveAsset, state: &MorphState) -> bool {
        self.last_rebuilds = 0;
        if self.applied_version == state.version() && self.applied_version != 0 {
            return false;
        }
        apply_morph(prim, state.weights(), self);
        self.applied_version = state.version();
        self.last_rebuilds = 1;
        self.total_rebuilds += 1;
        true
    }

    pub fn applied_version(&self) -> u64 {
        self.applied_version
    }
}

fn renormalize(v: Vec3, fallback: Vec3) -> Vec3 {
    let l = v.length();
    if l > 1e-12 && l.is_finite() {
        v / l
    } else {
        fallback
    }
}

/// Applies weights from the base vertices (never incrementally, so edits cannot drift):
/// position = base + Σ w·Δ; normals and tangents are renormalised, falling back to the base
/// direction when the sum degenerates.
pub fn apply_morph(prim: &PrimitiveAsset, weights: &[f32], out: &mut MorphedPrimitive) {
    let n = prim.positions.len();
    out.positions.clear();
    out.positions.extend_from_slice(&prim.positions);
    out.normals.clear();
    out.normals.extend_from_slice(&prim.normals);
    out.tangents.clear();
    out.tangents.extend_from_slice(&prim.tangents);
    let mut normals_touched = false;
    let mut tangents_touched = false;
    for (t, &w) in prim.morph_targets.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        for (p, d) in out.positions.iter_mut().zip(&t.position_deltas) {
            *p += *d * w;
        }
        if !t.normal_deltas.is_empty() && out.normals.len() == n {
            normals_touched = true;
            for (p, d) in out.normals.iter_mut().zip(&t.normal_deltas) {
                *p += *d * w;
            }
        }
        if !t.tangent_deltas.is_empty() && out.tangents.len() == n {
            tangents_touched = true;
            for (p, d) in out.tangents.iter_mut().zip(&t.tangent_deltas) {
                *p += d.extend(0.0) * w;
            }
        }
    }
    if normals_touched {
        for (v, base) in out.normals.iter_mut().zip(&prim.normals) {
            *v = renormalize(*v, *base);
        }
    }
    if tangents_touched {
        for (v, base) in out.tangents.iter_mut().zip(&prim.tangents) {
            let d = renormalize(v.truncate(), base.truncate());
            *v = d.extend(base.w);
        }
    }
    out.bounds = Aabb::EMPTY;
    out.max_position_delta = 0.0;
    for (p, b) in out.positions.iter().zip(&prim.positions) {
        out.bounds.extend(*p);
        out.max_position_delta = out.max_position_delta.max((*p - *b).length());
    }
}

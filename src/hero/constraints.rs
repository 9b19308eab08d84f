//! VRMC_node_constraint at run time: roll, aim and rotation constraints written into the pose
//! after the animation (clip, look-at) and before the spring bones, the order of the VRM 1.0
//! runtime (three-vrm's `VRM.update`: humanoid, look-at, expressions, constraints, springs).
//!
//! The formulas are the spec's pseudocode (all quaternions local unless named world):
//! - roll: `Δ = srcRest⁻¹·src`, carried into the destination's rest frame
//!   `Δd = dstRest⁻¹·(srcRest·Δ·srcRest⁻¹)·dstRest`; the swing that takes the roll axis to
//!   `Δd·axis` is removed, `target = dstRest·fromTo(axis, Δd·axis)⁻¹·Δd`;
//! - aim: `from = (parentWorld·dstRest)·axis`, `to = normalize(srcWorldPos − dstWorldPos)`,
//!   `target = parentWorld⁻¹·fromTo(from, to)·parentWorld·dstRest`;
//! - rotation: `target = dstRest·(srcRest⁻¹·src)`;
//!
//! each then `slerp(dstRest, target, weight)`. A destination's rotation is rewritten only when
//! it changes, so a pose that holds still keeps its version (palettes skip their upload).

use glam::{Mat4, Quat, Vec3};

use crate::anim::ScenePose;
use crate::asset::vrm_constraint::{ConstraintKind, NodeConstraint};
use crate::asset::SceneAsset;

/// `fromToRotation`: the shortest rotation taking unit `a` to unit `b` (identity for zero
/// vectors).
fn from_to(a: Vec3, b: Vec3) -> Quat {
    match (a.try_normalize(), b.try_normalize()) {
        (Some(a), Some(b)) => Quat::from_rotation_arc(a, b),
        _ => Quat::IDENTITY,
    }
}

/// The roll constraint's target (before the weight).
pub fn roll_target(axis: Vec3, src_rest: Quat, src: Quat, dst_rest: Quat) -> Quat {
    let delta = src_rest.inverse() * src;
    let in_parent = src_rest * delta * src_rest.inverse();
    let in_dst = dst_rest.inverse() * in_parent * dst_rest;
    let to = in_dst * axis;
    dst_rest * from_to(axis, to).inverse() * in_dst
}

/// The aim constraint's target (before the weight).
pub fn aim_target(
    axis: Vec3,
    dst_rest: Quat,
    parent_world: Quat,
    src_pos: Vec3,
    dst_pos: Vec3,
) -> Quat {
    let from = (parent_world * dst_rest) * axis;
    let Some(to) = (src_pos - dst_pos).try_normalize() else {
        return dst_rest; // the source sits on the destination: no direction to aim at
    };
    parent_world.inverse() * from_to(from, to) * parent_world * dst_rest
}

/// The rotation constraint's target (before the weight).
pub fn rotation_target(src_rest: Quat, src: Quat, dst_rest: Quat) -> Quat {
    dst_rest * (src_rest.inverse() * src)
}

/// `slerp(dstRest, target, weight)`.
pub fn weighted(dst_rest: Quat, target: Quat, weight: f32) -> Quat {
    dst_rest.slerp(target, weight.clamp(0.0, 1.0)).normalize()
}

/// A node's model-space matrix from the pose's current locals (walking up its parents), so a
/// constraint sees the rotations written by those before it without resolving the whole pose.
fn world_of(scene: &SceneAsset, pose: &ScenePose, node: usize) -> Mat4 {
    let mut m = Mat4::IDENTITY;
    let mut cur = Some(node);
    let mut steps = 0;
    while let (Some(n), true) = (cur, steps <= scene.nodes.len()) {
        let local = pose.local(n).map_or(Mat4::IDENTITY, |t| t.matrix());
        m = local * m;
        cur = scene.nodes.get(n).and_then(|x| x.parent);
        steps += 1;
    }
    m
}

/// The model's constraints, in evaluation order.
#[derive(Debug, Clone, Default)]
pub struct NodeConstraints {
    list: Vec<NodeConstraint>,
    /// Rewrites of a destination's rotation since the start (tests, panels).
    pub writes_total: u64,
}

impl NodeConstraints {
    pub fn new(scene: &SceneAsset) -> NodeConstraints {
        let list = scene
            .vrm
            .as_ref()
            .map(|v| v.constraints.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|c| c.node < scene.nodes.len() && c.source < scene.nodes.len())
            .collect();
        NodeConstraints {
            list,
            writes_total: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The constrained rotation of `c` from the pose's current locals.
    fn evaluate(scene: &SceneAsset, pose: &ScenePose, c: &NodeConstraint) -> Option<Quat> {
        let dst_rest = scene.nodes.get(c.node)?.local.rotation;
        let src_rest = scene.nodes.get(c.source)?.local.rotation;
        let src = pose.local(c.source)?.rotation;
        let target = match c.kind {
            ConstraintKind::Roll { axis } => roll_target(axis, src_rest, src, dst_rest),
            ConstraintKind::Rotation => rotation_target(src_rest, src, dst_rest),
            ConstraintKind::Aim { axis } => {
                let parent = scene.nodes[c.node]
                    .parent
                    .map_or(Mat4::IDENTITY, |p| world_of(scene, pose, p));
                let (_, parent_rot, _) = parent.to_scale_rotation_translation();
                let dst_pos = parent.transform_point3(pose.local(c.node)?.translation);
                let src_pos = world_of(scene, pose, c.source).w_axis.truncate();
                aim_target(axis, dst_rest, parent_rot, src_pos, dst_pos)
            }
        };
        let q = weighted(dst_rest, target, c.weight);
        q.is_finite().then_some(q)
    }

    /// Writes every constraint's rotation into the pose (in order, each seeing those before
    /// it) and resolves the world matrices when anything changed; returns how many changed.
    pub fn apply(&mut self, scene: &SceneAsset, pose: &mut ScenePose) -> usize {
        if self.list.is_empty() {
            return 0;
        }
        let mut changed = 0;
        for c in &self.list {
            let Some(q) = Self::evaluate(scene, pose, c) else {
                continue;
            };
            let Some(local) = pose.local(c.node) else {
                continue;
            };
            if local.rotation.abs_diff_eq(q, 1e-7) {
                continue;
            }
            if let Some(l) = pose.local_mut(c.node) {
                l.rotation = q;
                changed += 1;
            }
        }
        if changed > 0 || pose.is_dirty() {
            let _ = pose.update_world_matrices();
        }
        self.writes_total += changed as u64;
        changed
    }
}

//! Real motion for the hero: clips from another skeleton (the bundled Quaternius characters,
//! RobotExpressive, any `.vrma`) retargeted onto the hero's VRM humanoid.
//!
//! Both skeletons are read through a humanoid map (VRM 1.0 bone name → node): the VRM's own,
//! a `.vrma`'s `humanBones`, or a name table for the bundled rigs. Per sampled frame each
//! source bone's rotation is taken *relative to its own rest, in model axes* (`D = P · W⁻¹` for
//! posed and rest world rotations), turned into a common facing (+Z forward, the character's
//! left on +X), and given to the hero bone as the same world delta: the hero bone's local
//! rotation is `Wp⁻¹ · Da⁻¹ · D · W` (rest world rotations of its parent node and itself, `Da`
//! the delta of its nearest driven ancestor), which is `L · W⁻¹ R W` of the authored clips
//! written with world deltas instead of chained ones.
//!
//! Rest-pose correction: the Quaternius rest is not a T-pose (arms about 45° down, knees bent),
//! so a delta from that rest would put the hero's T-posed arms 45° too high. For each limb
//! bone the shortest rotation `C` from the source's rest bone direction to the hero's (common
//! axes) is folded into the delta, `D · C⁻¹`, so the posed *bone directions* match; hands
//! take their forearm's correction, feet none (flat in both rests).
//!
//! Hips: the source's hips path is scaled by the leg-length ratio, its net drift over the clip
//! removed (the controller moves the hero), and the whole path shifted so the lowest foot
//! touches the hero's rest foot height. Walk and run then get a foot lock: while a foot is on
//! the ground (within 3 cm of its lowest) the hips are moved so that foot travels backwards at
//! one constant speed, the clip's ground speed, which the controller divides the hero's speed
//! by to get the play rate. Sliding is then what remains at the hand-over between feet.

use std::collections::BTreeMap;
use std::path::Path;

use glam::{Mat4, Quat, Vec3, Vec4};

use super::humanoid_clips::HumanoidClips;
use crate::anim::sample::sample_node_channels;
use crate::anim::ScenePose;
use crate::asset::{AnimationClipAsset, Interpolation, NodeChannelAsset, SceneAsset, Track};
use crate::level::{HeroMotion, MotionSource};

/// Keys per second of the retargeted tracks.
const KEY_RATE: f32 = 30.0;
/// A foot this close to its lowest point in the clip (metres on the hero) is on the ground.
const STANCE_BAND: f32 = 0.03;

/// A walk or run's grounded foot moves back at least this fast (m/s on the hero).
const MIN_GROUND_SPEED: f32 = 0.05;

/// The bones retargeting drives (VRM 1.0 names), parents before children.
pub const DRIVEN: [&str; 21] = [
    "hips",
    "spine",
    "chest",
    "upperChest",
    "neck",
    "head",
    "leftShoulder",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightShoulder",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "leftToes",
];

/// Without these a clip cannot be retargeted.
const REQUIRED: [&str; 9] = [
    "hips",
    "leftUpperArm",
    "leftLowerArm",
    "rightUpperArm",
    "rightLowerArm",
    "leftUpperLeg",
    "leftLowerLeg",
    "rightUpperLeg",
    "rightLowerLeg",
];

/// Quaternius "Ultimate Animated Character Pack" bone names → VRM humanoid names.
pub const QUATERNIUS_BONES: [(&str, &str); 19] = [
    ("Hips", "hips"),
    ("Abdomen", "spine"),
    ("Torso", "chest"),
    ("Neck", "neck"),
    ("Head", "head"),
    ("Shoulder.L", "leftShoulder"),
    ("UpperArm.L", "leftUpperArm"),
    ("LowerArm.L", "leftLowerArm"),
    ("Fist.L", "leftHand"),
    ("Shoulder.R", "rightShoulder"),
    ("UpperArm.R", "rightUpperArm"),
    ("LowerArm.R", "rightLowerArm"),
    ("Fist.R", "rightHand"),
    ("UpperLeg.L", "leftUpperLeg"),
    ("LowerLeg.L", "leftLowerLeg"),
    ("Foot.L", "leftFoot"),
    ("UpperLeg.R", "rightUpperLeg"),
    ("LowerLeg.R", "rightLowerLeg"),
    ("Foot.R", "rightFoot"),
];

/// RobotExpressive (three.js example, Quaternius robot): the same names, with palms for hands.
pub const ROBOT_BONES: [(&str, &str); 19] = [
    ("Hips", "hips"),
    ("Abdomen", "spine"),
    ("Torso", "chest"),
    ("Neck", "neck"),
    ("Head", "head"),
    ("Shoulder.L", "leftShoulder"),
    ("UpperArm.L", "leftUpperArm"),
    ("LowerArm.L", "leftLowerArm"),
    ("Palm2.L", "leftHand"),
    ("Shoulder.R", "rightShoulder"),
    ("UpperArm.R", "rightUpperArm"),
    ("LowerArm.R", "rightLowerArm"),
    ("Palm2.R", "rightHand"),
    ("UpperLeg.L", "leftUpperLeg"),
    ("LowerLeg.L", "leftLowerLeg"),
    ("Foot.L", "leftFoot"),
    ("UpperLeg.R", "rightUpperLeg"),
    ("LowerLeg.R", "rightLowerLeg"),
    ("Foot.R", "rightFoot"),
];

/// A node by name, preferring skin joints: real files repeat names (RobotExpressive has a mesh
/// node called "Torso" before the bone).
fn find_bone(scene: &SceneAsset, name: &str) -> Option<usize> {
    let named = |n: &usize| scene.nodes[*n].name.as_deref() == Some(name);
    scene
        .skins
        .iter()
        .flat_map(|s| s.joints.iter())
        .copied()
        .find(|n| *n < scene.nodes.len() && named(n))
        .or_else(|| (0..scene.nodes.len()).find(named))
}

/// A humanoid map for a rig known by its bone names: the table (Quaternius, RobotExpressive)
/// that finds the most bones, if it finds the hips, arms and legs.
pub fn map_by_names(scene: &SceneAsset) -> Option<BTreeMap<String, usize>> {
    let mut best: Option<BTreeMap<String, usize>> = None;
    for table in [&QUATERNIUS_BONES[..], &ROBOT_BONES[..]] {
        let mut map = BTreeMap::new();
        for (src, vrm) in table {
            if let Some(n) = find_bone(scene, src) {
                map.insert(vrm.to_string(), n);
            }
        }
        let complete = REQUIRED.iter().all(|b| map.contains_key(*b));
        if complete && best.as_ref().is_none_or(|b| b.len() < map.len()) {
            best = Some(map);
        }
    }
    best
}

fn rotation_of(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

fn is_descendant(scene: &SceneAsset, node: usize, ancestor: usize) -> bool {
    let mut cur = scene.nodes.get(node).and_then(|n| n.parent);
    let mut guard = 0;
    while let Some(c) = cur {
        if c == ancestor {
            return true;
        }
        cur = scene.nodes.get(c).and_then(|n| n.parent);
        guard += 1;
        if guard > scene.nodes.len() {
            break;
        }
    }
    false
}

/// Rest-pose facts of one humanoid skeleton.
#[derive(Debug, Clone)]
pub struct Skeleton {
    /// VRM bone name → node, only bones that exist.
    pub map: BTreeMap<String, usize>,
    rest_world: Vec<Mat4>,
    /// Common axes (+Z forward, left on +X) → model axes.
    pub facing: Quat,
    /// Hip joint → knee → ankle, averaged over both legs (model metres).
    pub leg_length: f32,
}

impl Skeleton {
    /// Reads the rest pose through `map`. Errors name the missing bones or the problem.
    pub fn new(scene: &SceneAsset, map: &BTreeMap<String, usize>) -> Result<Skeleton, String> {
        let map: BTreeMap<String, usize> = map
            .iter()
            .filter(|(_, &n)| n < scene.nodes.len())
            .map(|(k, &n)| (k.clone(), n))
            .collect();
        let missing: Vec<&str> = REQUIRED
            .iter()
            .copied()
            .filter(|b| !map.contains_key(*b))
            .collect();
        if !missing.is_empty() {
            return Err(format!("humanoid map lacks {}", missing.join(", ")));
        }
        let rest_world: Vec<Mat4> = (0..scene.nodes.len())
            .map(|n| super::humanoid_clips::world_of(scene, n))
            .collect();
        let pos = |b: &str| rest_world[map[b]].w_axis.truncate();
        let left = pos("leftUpperLeg");
        let right = pos("rightUpperLeg");
        let across = Vec3::new(left.x - right.x, 0.0, left.z - right.z);
        if across.length() < 1e-4 {
            return Err("left and right upper legs are at the same place".into());
        }
        // The character's left is +X when it faces +Z: forward = left × up.
        let fwd = across.cross(Vec3::Y).normalize();
        let facing = Quat::from_rotation_y(fwd.x.atan2(fwd.z));
        let mut sk = Skeleton {
            map,
            rest_world,
            facing,
            leg_length: 0.0,
        };
        let mut leg = 0.0;
        for side in ["left", "right"] {
            let up = sk.map[&format!("{side}UpperLeg")];
            let low = sk.map[&format!("{side}LowerLeg")];
            let thigh = sk.pos(up).distance(sk.pos(low));
            leg += thigh
                + sk.tail(scene, &format!("{side}LowerLeg"), thigh)
                    .distance(sk.pos(low));
        }
        sk.leg_length = leg * 0.5;
        if !(sk.leg_length.is_finite() && sk.leg_length > 1e-3) {
            return Err(format!("the legs have no length ({})", sk.leg_length));
        }
        Ok(sk)
    }

    fn pos(&self, node: usize) -> Vec3 {
        self.rest_world[node].w_axis.truncate()
    }

    /// Rest position of the far end of `bone`: the next humanoid bone when it hangs below this
    /// one, else `length` along the bone's local +Y (Blender's bone axis; the Quaternius feet
    /// are IK targets outside the leg chain).
    fn tail(&self, scene: &SceneAsset, bone: &str, length: f32) -> Vec3 {
        let node = self.map[bone];
        if let Some(child) = child_bone(bone).and_then(|c| self.map.get(c)) {
            if is_descendant(scene, *child, node) {
                return self.pos(*child);
            }
        }
        let w = &self.rest_world[node];
        self.pos(node) + w.transform_vector3(Vec3::Y).normalize_or_zero() * length
    }

    /// Rest direction of a limb bone in common axes.
    fn direction(&self, scene: &SceneAsset, bone: &str) -> Option<Vec3> {
        let node = *self.map.get(bone)?;
        let d = self.tail(scene, bone, 0.3) - self.pos(node);
        (d.length() > 1e-5).then(|| (self.facing.inverse() * d).normalize())
    }
}

/// The limb bone a bone's direction is measured to.
fn child_bone(bone: &str) -> Option<&'static str> {
    Some(match bone {
        "leftUpperArm" => "leftLowerArm",
        "leftLowerArm" => "leftHand",
        "rightUpperArm" => "rightLowerArm",
        "rightLowerArm" => "rightHand",
        "leftUpperLeg" => "leftLowerLeg",
        "leftLowerLeg" => "leftFoot",
        "rightUpperLeg" => "rightLowerLeg",
        "rightLowerLeg" => "rightFoot",
        _ => return None,
    })
}

/// Which bone's rest correction a bone takes: its own for limb bones, the forearm's for hands.
fn correction_bone(bone: &str) -> Option<&'static str> {
    Some(match bone {
        "leftUpperArm" => "leftUpperArm",
        "leftLowerArm" | "leftHand" => "leftLowerArm",
        "rightUpperArm" => "rightUpperArm",
        "rightLowerArm" | "rightHand" => "rightLowerArm",
        "leftUpperLeg" => "leftUpperLeg",
        "leftLowerLeg" => "leftLowerLeg",
        "rightUpperLeg" => "rightUpperLeg",
        "rightLowerLeg" => "rightLowerLeg",
        _ => return None,
    })
}

/// What kind of motion a clip is, for the hips treatment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MotionKind {
    /// Standing (idle, wave): hips drift removed, feet on the ground.
    Standing,
    /// Walk or run: also the foot lock and a measured ground speed.
    Gait,
    /// A walk or run without the foot lock (its ground speed still measured): only for
    /// measuring what the lock gains.
    GaitUnlocked,
}

/// A retargeted clip and, for gaits, the speed its stance foot moves over the ground at rate 1.
#[derive(Debug, Clone)]
pub struct Retargeted {
    pub clip: AnimationClipAsset,
    pub ground_speed: Option<f32>,
}

/// One driven hero bone.
struct Driven {
    name: &'static str,
    node: usize,
    /// Rest world rotation of the node's parent, and of the node.
    parent_rest: Quat,
    rest: Quat,
    /// Index (into the driven list) of the nearest driven ancestor.
    ancestor: Option<usize>,
    /// Source node and rest correction `C` (common axes).
    source: usize,
    source_rest: Quat,
    correction: Quat,
}

/// Retargets `clip` of `source` (read through `source_map`) onto `target` (through
/// `target_map`). `name` becomes the clip's name.
pub fn retarget(
    source: &SceneAsset,
    source_map: &BTreeMap<String, usize>,
    clip: usize,
    target: &SceneAsset,
    target_map: &BTreeMap<String, usize>,
    kind: MotionKind,
    name: &str,
) -> Result<Retargeted, String> {
    let src_clip = source
        .animations
        .get(clip)
        .ok_or_else(|| format!("no clip {clip}"))?;
    if !(src_clip.duration.is_finite() && src_clip.duration > 1e-3) {
        return Err(format!("clip \"{}\" is empty", src_clip.name));
    }
    let src = Skeleton::new(source, source_map).map_err(|e| format!("source rig: {e}"))?;
    let tgt = Skeleton::new(target, target_map).map_err(|e| format!("hero rig: {e}"))?;
    let mut driven = driven_bones(source, &src, target, &tgt);
    let duration = src_clip.duration;
    let keys = ((duration * KEY_RATE).ceil() as usize).max(2);
    let times: Vec<f32> = (0..=keys)
        .map(|k| duration * k as f32 / keys as f32)
        .collect();
    let mut pose = ScenePose::new(source);
    let src_hips = src.map["hips"];
    let tgt_hips = tgt.map["hips"];
    let src_hips_rest = src.pos(src_hips);
    let tgt_hips_rest = tgt.pos(tgt_hips);
    let ratio = tgt.leg_length / src.leg_length;
    ground_ik_feet(&mut driven, source, &src, src_clip, &times)?;
    let mut rotations: Vec<Vec<Quat>> = vec![Vec::with_capacity(times.len()); driven.len()];
    // Hips offsets from rest in common axes, hero-sized.
    let mut offsets: Vec<Vec3> = Vec::with_capacity(times.len());
    let mut deltas = vec![Quat::IDENTITY; driven.len()];
    for &t in &times {
        pose.reset_to_bind_pose();
        sample_node_channels(src_clip, t, pose.locals_mut());
        pose.update_world_matrices()
            .map_err(|e| format!("source pose: {e}"))?;
        let worlds = pose
            .world_matrices()
            .ok_or("source pose has no world matrices")?;
        for (i, d) in driven.iter().enumerate() {
            let posed = rotation_of(&worlds[d.source]);
            let model = posed * d.source_rest.inverse();
            let common = src.facing.inverse() * model * src.facing;
            let hero = tgt.facing * (common * d.correction.inverse()) * tgt.facing.inverse();
            deltas[i] = hero.normalize();
        }
        for (i, d) in driven.iter().enumerate() {
            let da = d.ancestor.map(|a| deltas[a]).unwrap_or(Quat::IDENTITY);
            let mut local =
                (d.parent_rest.inverse() * da.inverse() * deltas[i] * d.rest).normalize();
            if let Some(prev) = rotations[i].last() {
                if prev.dot(local) < 0.0 {
                    local = -local;
                }
            }
            rotations[i].push(local);
        }
        let p = worlds[src_hips].w_axis.truncate();
        offsets.push(src.facing.inverse() * (p - src_hips_rest) * ratio);
    }
    // The controller moves the hero: take out the hips' net horizontal drift over the clip.
    let drift = *offsets.last().unwrap_or(&Vec3::ZERO) - offsets[0];
    for (k, o) in offsets.iter_mut().enumerate() {
        let f = times[k] / duration;
        o.x -= drift.x * f;
        o.z -= drift.z * f;
    }
    let hips_parent_inv = target.nodes[tgt_hips]
        .parent
        .map(|p| tgt.rest_world[p].inverse())
        .unwrap_or(Mat4::IDENTITY);
    let to_local = |o: Vec3| hips_parent_inv.transform_point3(tgt_hips_rest + tgt.facing * o);
    let mut out = build_clip(name, duration, &times, &driven, &rotations, tgt_hips, |k| {
        to_local(offsets[k])
    });
    // Feet on the ground: measure the feet on the hero, shift the hips path down or up.
    let feet = foot_paths(target, &tgt, &out, &times)?;
    let rest_foot_y = |side: usize| {
        let b = if side == 0 { "leftFoot" } else { "rightFoot" };
        tgt.map.get(b).map(|&n| tgt.pos(n).y).unwrap_or(0.0)
    };
    let lowest = (0..2)
        .map(|s| {
            feet[s]
                .iter()
                .map(|p| p.y - rest_foot_y(s))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(f32::INFINITY, f32::min);
    if lowest.is_finite() {
        for o in &mut offsets {
            o.y -= lowest;
        }
    }
    let mut ground_speed = None;
    if kind != MotionKind::Standing {
        // Feet in common axes (forward = +Z), relative to where the hips are put.
        let feet_c: Vec<Vec<Vec3>> = feet
            .iter()
            .map(|path| path.iter().map(|p| tgt.facing.inverse() * *p).collect())
            .collect();
        let (speed, shift) = foot_lock(&feet_c, &times)?;
        if kind == MotionKind::Gait {
            for (o, s) in offsets.iter_mut().zip(&shift) {
                *o += *s;
            }
        }
        ground_speed = Some(speed);
    }
    out = build_clip(name, duration, &times, &driven, &rotations, tgt_hips, |k| {
        to_local(offsets[k])
    });
    Ok(Retargeted {
        clip: out,
        ground_speed,
    })
}

/// The hero bones both rigs map, each with its rest rotations, nearest driven ancestor and the
/// rest correction that points the source bone the way the hero's points.
fn driven_bones(
    source: &SceneAsset,
    src: &Skeleton,
    target: &SceneAsset,
    tgt: &Skeleton,
) -> Vec<Driven> {
    let mut driven: Vec<Driven> = Vec::new();
    for name in DRIVEN {
        let (Some(&node), Some(&source_node)) = (tgt.map.get(name), src.map.get(name)) else {
            continue;
        };
        let parent = target.nodes[node].parent;
        let parent_rest = parent
            .map(|p| rotation_of(&tgt.rest_world[p]))
            .unwrap_or(Quat::IDENTITY);
        // The nearest driven ancestor: walk up the node chain.
        let mut ancestor = None;
        let mut cur = parent;
        let mut guard = 0;
        while let Some(c) = cur {
            if let Some(i) = driven.iter().position(|d| d.node == c) {
                ancestor = Some(i);
                break;
            }
            cur = target.nodes[c].parent;
            guard += 1;
            if guard > target.nodes.len() {
                break;
            }
        }
        let correction = correction_bone(name)
            .and_then(|b| Some((src.direction(source, b)?, tgt.direction(target, b)?)))
            .map(|(s, t)| Quat::from_rotation_arc(s, t))
            .unwrap_or(Quat::IDENTITY);
        driven.push(Driven {
            name,
            node,
            parent_rest,
            rest: rotation_of(&tgt.rest_world[node]),
            ancestor,
            source: source_node,
            source_rest: rotation_of(&src.rest_world[source_node]),
            correction,
        });
    }
    driven
}

/// Feet that are IK targets outside the leg chain (Quaternius) have rest rotations that mean
/// nothing; their reference becomes the clip's own grounded foot.
fn ground_ik_feet(
    driven: &mut [Driven],
    source: &SceneAsset,
    src: &Skeleton,
    src_clip: &AnimationClipAsset,
    times: &[f32],
) -> Result<(), String> {
    let mut pose = ScenePose::new(source);
    for d in driven.iter_mut() {
        let leg = match d.name {
            "leftFoot" => "leftLowerLeg",
            "rightFoot" => "rightLowerLeg",
            _ => continue,
        };
        if is_descendant(source, d.source, src.map[leg]) {
            continue;
        }
        let mut samples: Vec<(f32, Quat)> = Vec::with_capacity(times.len());
        for &t in times {
            pose.reset_to_bind_pose();
            sample_node_channels(src_clip, t, pose.locals_mut());
            pose.update_world_matrices()
                .map_err(|e| format!("source pose: {e}"))?;
            if let Some(w) = pose.world(d.source) {
                samples.push((w.w_axis.y, rotation_of(w)));
            }
        }
        // The mean rotation while the foot is on the ground (within 3% of a leg of its lowest):
        // a foot rolling from heel to toe is flat at the middle of that.
        let low = samples.iter().map(|s| s.0).fold(f32::INFINITY, f32::min);
        let mut sum = Vec4::ZERO;
        let mut first: Option<Quat> = None;
        for (y, q) in &samples {
            if *y - low <= 0.03 * src.leg_length {
                let f = *first.get_or_insert(*q);
                let q = if f.dot(*q) < 0.0 { -*q } else { *q };
                sum += Vec4::from(q);
            }
        }
        if sum.length() > 1e-6 {
            d.source_rest = Quat::from_vec4(sum).normalize();
        }
    }
    Ok(())
}

/// Model-space paths of the hero's two feet (left, right) over the keys.
fn foot_paths(
    target: &SceneAsset,
    tgt: &Skeleton,
    clip: &AnimationClipAsset,
    times: &[f32],
) -> Result<[Vec<Vec3>; 2], String> {
    let (Some(&l), Some(&r)) = (tgt.map.get("leftFoot"), tgt.map.get("rightFoot")) else {
        return Err("hero rig has no feet".into());
    };
    let mut pose = ScenePose::new(target);
    let mut out = [Vec::new(), Vec::new()];
    for &t in times {
        pose.reset_to_bind_pose();
        sample_node_channels(clip, t, pose.locals_mut());
        pose.update_world_matrices()
            .map_err(|e| format!("hero pose: {e}"))?;
        for (i, n) in [l, r].into_iter().enumerate() {
            let w = pose.world(n).ok_or("hero pose: no foot")?;
            out[i].push(w.w_axis.truncate());
        }
    }
    Ok(out)
}

/// The foot lock. `feet` are the two feet's paths in common axes (+Z forward). Returns the
/// ground speed (mean backward speed of the grounded foot) and per-key hips shifts that make
/// the grounded foot move backwards at exactly that speed and not sideways.
fn foot_lock(feet: &[Vec<Vec3>], times: &[f32]) -> Result<(f32, Vec<Vec3>), String> {
    let n = times.len();
    let low: Vec<f32> = feet
        .iter()
        .map(|p| p.iter().map(|v| v.y).fold(f32::INFINITY, f32::min))
        .collect();
    // The grounded foot at key k: the lower one, if within the band of its lowest.
    let grounded = |k: usize| -> Option<usize> {
        let s = if feet[0][k].y - low[0] <= feet[1][k].y - low[1] {
            0
        } else {
            1
        };
        (feet[s][k].y - low[s] <= STANCE_BAND).then_some(s)
    };
    let mut back = 0.0;
    let mut stance_time = 0.0;
    for k in 0..n - 1 {
        if let (Some(a), Some(b)) = (grounded(k), grounded(k + 1)) {
            if a == b {
                back += feet[a][k].z - feet[a][k + 1].z;
                stance_time += times[k + 1] - times[k];
            }
        }
    }
    if stance_time <= 0.0 || back <= 0.0 {
        return Err("no foot stays on the ground and moves backwards: not a walk or run".into());
    }
    let speed = back / stance_time;
    if speed < MIN_GROUND_SPEED {
        return Err(format!(
            "the grounded foot moves back at only {speed:.3} m/s: not a walk or run"
        ));
    }
    // Integrate the correction: during a stance step the hips take up whatever the foot moved
    // beyond `speed` backwards, and all of its sideways motion.
    let mut shift = vec![Vec3::ZERO; n];
    for k in 0..n - 1 {
        let mut step = Vec3::ZERO;
        if let (Some(a), Some(b)) = (grounded(k), grounded(k + 1)) {
            if a == b {
                let dt = times[k + 1] - times[k];
                let moved = feet[a][k + 1] - feet[a][k];
                step.z = -speed * dt - moved.z;
                step.x = -moved.x;
            }
        }
        shift[k + 1] = shift[k] + step;
    }
    // Close the loop: the z drift is zero by the choice of speed; spread the sideways one.
    let end = shift[n - 1];
    let duration = times[n - 1] - times[0];
    for (k, s) in shift.iter_mut().enumerate() {
        let f = (times[k] - times[0]) / duration.max(1e-6);
        s.x -= end.x * f;
        s.z -= end.z * f;
    }
    let mean = shift.iter().copied().sum::<Vec3>() / n as f32;
    for s in &mut shift {
        *s -= Vec3::new(mean.x, 0.0, mean.z);
    }
    Ok((speed, shift))
}

fn build_clip(
    name: &str,
    duration: f32,
    times: &[f32],
    driven: &[Driven],
    rotations: &[Vec<Quat>],
    hips: usize,
    hips_at: impl Fn(usize) -> Vec3,
) -> AnimationClipAsset {
    let channels: Vec<NodeChannelAsset> = driven
        .iter()
        .zip(rotations)
        .map(|(d, values)| NodeChannelAsset {
            node: d.node,
            translation: None,
            rotation: Some(Track {
                interpolation: Interpolation::Linear,
                times: times.to_vec(),
                values: values.clone(),
            }),
            scale: None,
        })
        .collect();
    let track = Track {
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: (0..times.len()).map(hips_at).collect(),
    };
    super::humanoid_clips::clip_with_hips_track(name, duration, channels, hips, track)
}

/// Where a hero motion comes from, resolved: the file and the clip in it (None for a `.vrma`:
/// its first clip).
#[derive(Debug, Clone, PartialEq)]
pub enum SourceSpec<'a> {
    Clip { file: &'a str, clip: &'a str },
    Vrma(&'a str),
}

/// A source file's scene and its humanoid map.
type OpenedSource = (SceneAsset, BTreeMap<String, usize>);

/// Opened source files, so idle, walk and run from one file parse it once.
#[derive(Default)]
pub struct SourceCache {
    files: BTreeMap<String, Result<OpenedSource, String>>,
}

impl SourceCache {
    fn open(&mut self, file: &str, vrma: bool) -> Result<&OpenedSource, String> {
        let key = format!("{vrma}:{file}");
        let entry = self.files.entry(key).or_insert_with(|| {
            if vrma {
                crate::asset::vrma::load_vrma(Path::new(file)).map(|v| (v.scene, v.humanoid))
            } else {
                let scene = crate::asset::load_file(Path::new(file)).map_err(|e| e.to_string())?;
                let map = match scene.vrm.as_ref() {
                    Some(v) if !v.humanoid.is_empty() => v.humanoid.clone(),
                    _ => map_by_names(&scene).ok_or_else(|| {
                        format!("{file}: no humanoid map and bone names of no known rig (Quaternius, RobotExpressive)")
                    })?,
                };
                Ok((scene, map))
            }
        });
        entry.as_ref().map_err(|e| e.clone())
    }

    /// Retargets one motion onto the hero. Errors name the file and the reason.
    pub fn retarget(
        &mut self,
        spec: &SourceSpec,
        target: &SceneAsset,
        target_map: &BTreeMap<String, usize>,
        kind: MotionKind,
        name: &str,
    ) -> Result<Retargeted, String> {
        let (file, clip_key, vrma) = match spec {
            SourceSpec::Clip { file, clip } => (*file, Some(*clip), false),
            SourceSpec::Vrma(file) => (*file, None, true),
        };
        let (scene, map) = self.open(file, vrma)?;
        let clip = match clip_key {
            Some(c) => scene.find_clip(c).ok_or_else(|| {
                let names: Vec<&str> = scene.animations.iter().map(|a| a.name.as_str()).collect();
                format!("{file}: no clip \"{c}\" (it has {})", names.join(", "))
            })?,
            None => 0,
        };
        retarget(scene, map, clip, target, target_map, kind, name)
            .map_err(|e| format!("{file}: {e}"))
    }
}

/// Replaces the authored clips in `clips` by the level's motion sources where they retarget
/// onto `scene` (humanoid map `map`); walk and run take their measured ground speeds. Returns
/// one warning per source that could not be used, naming the file and the reason; that role
/// keeps its authored clip.
pub fn apply_motion(
    motion: &HeroMotion,
    scene: &SceneAsset,
    map: &BTreeMap<String, usize>,
    clips: &mut HumanoidClips,
) -> Vec<String> {
    let mut cache = SourceCache::default();
    let mut warnings = Vec::new();
    let roles: [(&str, &MotionSource, MotionKind); 4] = [
        ("idle", &motion.idle, MotionKind::Standing),
        ("walk", &motion.walk, MotionKind::Gait),
        ("run", &motion.run, MotionKind::Gait),
        ("wave", &motion.wave, MotionKind::Standing),
    ];
    for (role, source, kind) in roles {
        let spec = match source {
            MotionSource::Authored => continue,
            MotionSource::Clip { file, clip } => SourceSpec::Clip { file, clip },
            MotionSource::Vrma(file) => SourceSpec::Vrma(file),
        };
        match cache.retarget(&spec, scene, map, kind, role) {
            Ok(r) => match role {
                "idle" => clips.idle = r.clip,
                "walk" => {
                    clips.walk = r.clip;
                    clips.walk_ground_speed = r.ground_speed.unwrap_or(clips.walk_ground_speed);
                }
                "run" => {
                    clips.run = r.clip;
                    clips.run_ground_speed = r.ground_speed.unwrap_or(clips.run_ground_speed);
                }
                _ => clips.wave = r.clip,
            },
            Err(e) => warnings.push(format!(
                "hero.motion.{role}: {e}; using the authored {role}"
            )),
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foot_lock_makes_the_grounded_foot_move_at_one_speed() {
        // Left foot grounded for the first half moving back unevenly, right for the second.
        let times: Vec<f32> = (0..=10).map(|k| k as f32 * 0.1).collect();
        let left: Vec<Vec3> = times
            .iter()
            .map(|&t| {
                if t <= 0.5 {
                    Vec3::new(0.01 * t, 0.0, 0.3 - t * t * 2.0)
                } else {
                    Vec3::new(0.0, 0.2, 0.0)
                }
            })
            .collect();
        let right: Vec<Vec3> = times
            .iter()
            .map(|&t| {
                if t > 0.5 {
                    Vec3::new(0.0, 0.0, 0.3 - (t - 0.5))
                } else {
                    Vec3::new(0.0, 0.2, 0.0)
                }
            })
            .collect();
        let (speed, shift) = foot_lock(&[left.clone(), right], &times).unwrap();
        // Backward travel 0.5 (left) + 0.4 (right, 0.6..1.0) over 0.5 + 0.4 s of stance.
        assert!((speed - 1.0).abs() < 1e-4, "{speed}");
        // Corrected left foot during stance moves back at exactly `speed`.
        for k in 0..5 {
            let a = left[k].z + shift[k].z;
            let b = left[k + 1].z + shift[k + 1].z;
            assert!(
                ((a - b) / 0.1 - speed).abs() < 1e-3,
                "key {k}: {}",
                (a - b) / 0.1
            );
        }
    }
}

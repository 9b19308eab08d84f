//! Which clip of a model plays for each crowd activity, and the gestures the Quaternius
//! skeleton lacks (wave, talk, look around), authored in code on top of its Idle clip.
//!
//! Authored motion is written as rotations in the model's own space (Y up, facing +Z, the
//! character's right hand towards -X) and converted to each bone's local space, so it does not
//! depend on how the rig's bone axes happen to be oriented.

use glam::{Quat, Vec3};

use crate::anim::player::sample_clip;
use crate::anim::ScenePose;
use crate::asset::{AnimationClipAsset, Interpolation, NodeChannelAsset, SceneAsset, Track};
use crate::clip_kind::ClipKind;

/// Clip names tried for each activity when the level does not name one, in order.
pub fn default_names(kind: ClipKind) -> &'static [&'static str] {
    match kind {
        ClipKind::Idle => &["Idle", "idle", "Idle_Neutral", "Survey", "Idle_Loop"],
        ClipKind::Walk => &["Walk", "walk", "Walking", "Walk_Loop"],
        ClipKind::Run => &["Run", "run", "Running", "Run_Loop"],
        ClipKind::Wave => &["Wave", "wave", "Waving"],
        ClipKind::Sit => &["SitDown", "Sit", "Sitting", "sit"],
        ClipKind::Talk => &["Talk", "talk", "Talking"],
        ClipKind::LookAround => &["LookAround", "Look_Around", "Survey"],
    }
}

/// Sitting down plays once and holds; everything else loops.
pub fn loops(kind: ClipKind) -> bool {
    kind != ClipKind::Sit
}

/// A gesture bone (scene node) and its model-space rotation over time.
type GestureBone = (usize, fn(f32) -> Quat);

/// One bone's added motion: a model-space rotation at time `t` (seconds).
struct BoneMotion {
    bones: &'static [&'static str],
    rotation: fn(f32) -> Quat,
}

fn deg(d: f32) -> f32 {
    d.to_radians()
}

const WAVE: &[BoneMotion] = &[
    BoneMotion {
        bones: &["UpperArm.R", "RightUpperArm", "upper_arm.R", "upperarm.r"],
        // Raise the right arm out and up (about the facing axis).
        rotation: |_| Quat::from_rotation_z(deg(-145.0)),
    },
    BoneMotion {
        bones: &["LowerArm.R", "RightLowerArm", "forearm.R", "lowerarm.r"],
        rotation: |t| Quat::from_rotation_z(deg(25.0 * (t * std::f32::consts::TAU * 1.6).sin())),
    },
];

const TALK: &[BoneMotion] = &[
    BoneMotion {
        bones: &["LowerArm.R", "RightLowerArm", "forearm.R", "lowerarm.r"],
        rotation: |t| {
            Quat::from_rotation_x(deg(-55.0 - 15.0 * (t * std::f32::consts::TAU * 0.9).sin()))
        },
    },
    BoneMotion {
        bones: &["LowerArm.L", "LeftLowerArm", "forearm.L", "lowerarm.l"],
        rotation: |t| {
            Quat::from_rotation_x(deg(-45.0 + 12.0 * (t * std::f32::consts::TAU * 0.7).sin()))
        },
    },
    BoneMotion {
        bones: &["Head", "head"],
        rotation: |t| Quat::from_rotation_x(deg(6.0 * (t * std::f32::consts::TAU * 1.1).sin())),
    },
];

const LOOK_AROUND: &[BoneMotion] = &[
    BoneMotion {
        bones: &["Head", "head"],
        rotation: |t| Quat::from_rotation_y(deg(45.0 * (t * std::f32::consts::TAU / 4.0).sin())),
    },
    BoneMotion {
        bones: &["Torso", "Chest", "chest", "spine"],
        rotation: |t| Quat::from_rotation_y(deg(12.0 * (t * std::f32::consts::TAU / 4.0).sin())),
    },
];

/// Builds `kind`'s gesture on top of `base` (the model's idle), or None when the activity has
/// no authored gesture or the rig lacks the bones.
pub fn authored_clip(
    scene: &SceneAsset,
    base: &AnimationClipAsset,
    kind: ClipKind,
) -> Option<AnimationClipAsset> {
    let (motions, duration) = match kind {
        ClipKind::Wave => (WAVE, 2.5),
        ClipKind::Talk => (TALK, 4.0),
        ClipKind::LookAround => (LOOK_AROUND, 4.0),
        _ => return None,
    };
    let find = |names: &[&str]| {
        scene
            .nodes
            .iter()
            .position(|n| n.name.as_deref().is_some_and(|x| names.contains(&x)))
    };
    let targets: Vec<GestureBone> = motions
        .iter()
        .filter_map(|m| find(m.bones).map(|n| (n, m.rotation)))
        .collect();
    if targets.is_empty() {
        return None;
    }
    let fps = 30.0;
    let keys = (duration * fps) as usize + 1;
    let times: Vec<f32> = (0..keys).map(|i| i as f32 / fps).collect();
    let mut rotations: Vec<Vec<Quat>> = vec![Vec::with_capacity(keys); targets.len()];
    let mut pose = ScenePose::new(scene);
    let mut scratch = Vec::new();
    let node_count = scene.nodes.len();
    for &t in &times {
        pose.reset_to_bind_pose();
        let base_t = if base.duration > 0.0 {
            t.rem_euclid(base.duration)
        } else {
            0.0
        };
        sample_clip(base, base_t, &mut pose, None, &mut scratch);
        let local: Vec<Quat> = (0..node_count)
            .map(|n| pose.local(n).map_or(Quat::IDENTITY, |l| l.rotation))
            .collect();
        // World rotations with the gestures applied, parents first (memoised walk).
        let mut world: Vec<Option<Quat>> = vec![None; node_count];
        for (k, &(node, _)) in targets.iter().enumerate() {
            let parent = scene.nodes[node].parent;
            let parent_world = parent.map_or(Quat::IDENTITY, |p| {
                world_rotation(scene, &local, &targets, t, p, &mut world)
            });
            let new_world = world_rotation(scene, &local, &targets, t, node, &mut world);
            rotations[k].push((parent_world.inverse() * new_world).normalize());
        }
    }
    let mut clip = base.clone();
    clip.name = format!("{kind:?} (authored)");
    clip.duration = duration;
    // The base clip loops under the gesture: resample its other channels on the same keys.
    for ch in &mut clip.node_channels {
        resample_channel(ch, base.duration, &times);
    }
    for (k, &(node, _)) in targets.iter().enumerate() {
        let track = Track {
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: rotations[k].clone(),
        };
        match clip.node_channels.iter_mut().find(|c| c.node == node) {
            Some(ch) => ch.rotation = Some(track),
            None => clip.node_channels.push(NodeChannelAsset {
                node,
                translation: None,
                rotation: Some(track),
                scale: None,
            }),
        }
    }
    clip.morph_channels.clear();
    Some(clip)
}

/// World rotation of `node` in the gesture pose: its parent's, then its own local rotation,
/// then (for a gesture bone) the model-space gesture on top.
fn world_rotation(
    scene: &SceneAsset,
    local: &[Quat],
    targets: &[GestureBone],
    t: f32,
    node: usize,
    memo: &mut [Option<Quat>],
) -> Quat {
    if let Some(q) = memo[node] {
        return q;
    }
    let parent = scene.nodes[node].parent.map_or(Quat::IDENTITY, |p| {
        world_rotation(scene, local, targets, t, p, memo)
    });
    let mut q = parent * local[node];
    if let Some(&(_, motion)) = targets.iter().find(|(n, _)| *n == node) {
        q = motion(t) * q;
    }
    memo[node] = Some(q);
    q
}

/// Re-keys a channel at `times`, wrapping the source clip so it loops under a longer gesture.
fn resample_channel(ch: &mut NodeChannelAsset, period: f32, times: &[f32]) {
    let wrap = |t: f32| {
        if period > 0.0 {
            t.rem_euclid(period)
        } else {
            0.0
        }
    };
    if let Some(tr) = &ch.translation {
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| crate::anim::sample::sample_vec3(tr, wrap(t)))
            .collect();
        ch.translation = Some(linear(times, values));
    }
    if let Some(tr) = &ch.rotation {
        let values: Vec<Quat> = times
            .iter()
            .map(|&t| crate::anim::sample::sample_quat(tr, wrap(t)))
            .collect();
        ch.rotation = Some(linear(times, values));
    }
    if let Some(tr) = &ch.scale {
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| crate::anim::sample::sample_vec3(tr, wrap(t)))
            .collect();
        ch.scale = Some(linear(times, values));
    }
}

fn linear<T>(times: &[f32], values: Vec<T>) -> Track<T> {
    Track {
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values,
    }
}

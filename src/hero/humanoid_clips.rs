//! Idle, walk, run and wave, authored in code on humanoid bones so they play on any VRM.
//!
//! Each clip gives every driven bone a rotation *relative to its rest pose, in model axes*
//! (the "normalised humanoid" idea of VRM): for a bone with rest world rotation `W` and rest
//! local rotation `L`, a model-space delta `R` becomes the local rotation `L · W⁻¹ R W`. Deltas
//! then compose along the chain (`world = R_parent · R_child · W`), so "upper arm 72° down" and
//! "elbow 15° forward" mean the same on every rig whatever its bone axes.
//!
//! Deltas are authored facing +Z with the character's left on +X (VRM 1.0 axes); VRM 0.x models
//! face -Z and get the deltas turned by 180° about +Y.
//!
//! The walk and run are built so the feet do not slide: the stance leg stays straight and its
//! ankle moves backwards at a constant speed along the ground, `2·L·s / (f·T)` for leg length
//! `L`, stride half-angle `asin(s)`, stance fraction `f` and cycle `T`; the hips ride the stance
//! leg (`L·cos φ` above the ankle). The clip's ground speed is returned so the controller can
//! play it at `speed / ground_speed` for any speed.

use std::collections::BTreeMap;
use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec3};

use crate::asset::{
    AnimationClipAsset, Interpolation, NodeChannelAsset, SceneAsset, Track, Transform,
};

/// Keys per second of the generated tracks (linear interpolation between them).
const KEY_RATE: f32 = 30.0;

/// Upper arms hang this far below the T-pose line in idle and walk.
const ARM_DOWN: f32 = 72.0 * PI / 180.0;

/// What the generated clips are and how fast a walk/run clip moves over the ground at rate 1.
#[derive(Debug, Clone)]
pub struct HumanoidClips {
    pub idle: AnimationClipAsset,
    pub walk: AnimationClipAsset,
    pub run: AnimationClipAsset,
    pub wave: AnimationClipAsset,
    /// Metres per second the walk covers when played at rate 1.
    pub walk_ground_speed: f32,
    pub run_ground_speed: f32,
    /// Hip joint to ankle, metres in model space.
    pub leg_length: f32,
}

/// The gait of one clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gait {
    /// Seconds per full cycle (two steps).
    pub cycle: f32,
    /// Share of the cycle a foot is on the ground (0.5 walk; below 0.5 a run has flight).
    pub stance: f32,
    /// sin of the stride half-angle of the thigh.
    pub stride_sin: f32,
    /// Largest knee bend during the swing, radians.
    pub knee_swing: f32,
    /// Arm swing half-angle, radians.
    pub arm_swing: f32,
    /// Elbow bend, radians.
    pub elbow: f32,
    /// Forward lean of the spine, radians.
    pub lean: f32,
}

impl Gait {
    /// Speed of the stance foot relative to the hips: the ground speed when nothing slides.
    pub fn ground_speed(&self, leg_length: f32) -> f32 {
        2.0 * leg_length * self.stride_sin / (self.stance * self.cycle)
    }

    /// A gait that covers `speed` m/s at rate 1 for a leg of `leg_length`: the cycle follows a
    /// pendulum's `√L` scaling from a human reference (`reference_cycle` for a 0.9 m leg), the
    /// stride is what that cycle needs, and when the stride would exceed `max_half_angle` the
    /// cycle shortens instead (quick steps rather than splits).
    pub fn for_speed(
        speed: f32,
        leg_length: f32,
        stance: f32,
        reference_cycle: f32,
        max_half_angle: f32,
    ) -> (f32, f32) {
        let leg = leg_length.max(0.05);
        let mut cycle = reference_cycle * (leg / 0.9).sqrt();
        let mut s = speed * stance * cycle / (2.0 * leg);
        let max_s = max_half_angle.sin();
        if s > max_s {
            s = max_s;
            cycle = 2.0 * leg * s / (stance * speed.max(1e-3));
        }
        (cycle, s)
    }
}

/// Rest-pose facts about one humanoid bone.
#[derive(Debug, Clone, Copy)]
struct BoneRest {
    node: usize,
    local: Transform,
    /// Rotation part of the rest world matrix.
    world_rot: Quat,
}

/// The rig as the clip builder sees it.
pub struct HumanoidRig {
    bones: BTreeMap<&'static str, BoneRest>,
    /// Canonical (+Z forward) → model axes.
    facing: Quat,
    leg_length: f32,
    /// Parent-of-hips rest world matrix inverse, to turn model-space hip offsets into locals.
    hips_parent_inv: Mat4,
}

/// Bones the clips drive; the ones marked required must exist for the clips to be built.
const BONES: [(&str, bool); 17] = [
    ("hips", true),
    ("spine", false),
    ("chest", false),
    ("neck", false),
    ("head", false),
    ("leftUpperArm", true),
    ("leftLowerArm", true),
    ("leftHand", false),
    ("rightUpperArm", true),
    ("rightLowerArm", true),
    ("rightHand", false),
    ("leftUpperLeg", true),
    ("leftLowerLeg", true),
    ("leftFoot", true),
    ("rightUpperLeg", true),
    ("rightLowerLeg", true),
    ("rightFoot", true),
];

/// A node's rest (bind) world matrix, walking up its parents.
pub(crate) fn world_of(scene: &SceneAsset, node: usize) -> Mat4 {
    let mut m = Mat4::IDENTITY;
    let mut cur = Some(node);
    let mut guard = 0;
    while let Some(n) = cur {
        let Some(nd) = scene.nodes.get(n) else { break };
        m = nd.local.matrix() * m;
        cur = nd.parent;
        guard += 1;
        if guard > scene.nodes.len() {
            break;
        }
    }
    m
}

impl HumanoidRig {
    /// Reads the rest pose through the humanoid map (VRM 1.0 bone names → node). `faces_neg_z`
    /// for VRM 0.x. Errors name the missing bones.
    pub fn new(
        scene: &SceneAsset,
        humanoid: &BTreeMap<String, usize>,
        faces_neg_z: bool,
    ) -> Result<HumanoidRig, String> {
        let mut bones = BTreeMap::new();
        let mut missing = Vec::new();
        for (name, required) in BONES {
            match humanoid.get(name).filter(|&&n| n < scene.nodes.len()) {
                Some(&node) => {
                    let (_, world_rot, _) = world_of(scene, node).to_scale_rotation_translation();
                    bones.insert(
                        name,
                        BoneRest {
                            node,
                            local: scene.nodes[node].local,
                            world_rot: world_rot.normalize(),
                        },
                    );
                }
                None if required => missing.push(name),
                None => {}
            }
        }
        if !missing.is_empty() {
            return Err(format!(
                "humanoid map lacks {}: no walk/run/idle clips",
                missing.join(", ")
            ));
        }
        let pos = |b: &str| {
            bones
                .get(b)
                .map(|r: &BoneRest| world_of(scene, r.node).w_axis.truncate())
                .unwrap_or(Vec3::ZERO)
        };
        let leg = |up: &str, foot: &str| pos(up).distance(pos(foot));
        let leg_length =
            0.5 * (leg("leftUpperLeg", "leftFoot") + leg("rightUpperLeg", "rightFoot"));
        if !(leg_length.is_finite() && leg_length > 1e-3) {
            return Err(format!(
                "humanoid legs have no length ({leg_length}): no walk/run clips"
            ));
        }
        let hips_node = bones["hips"].node;
        let hips_parent_inv = scene.nodes[hips_node]
            .parent
            .map(|p| world_of(scene, p).inverse())
            .unwrap_or(Mat4::IDENTITY);
        Ok(HumanoidRig {
            bones,
            facing: if faces_neg_z {
                Quat::from_rotation_y(PI)
            } else {
                Quat::IDENTITY
            },
            leg_length,
            hips_parent_inv,
        })
    }

    pub fn leg_length(&self) -> f32 {
        self.leg_length
    }

    /// Local rotation of `bone` for a canonical model-space delta.
    fn local_for(&self, bone: &BoneRest, delta: Quat) -> Quat {
        let r = self.facing * delta * self.facing.inverse();
        (bone.local.rotation * bone.world_rot.inverse() * r * bone.world_rot).normalize()
    }

    /// Local translation of the hips for a canonical model-space offset from rest.
    fn hips_translation(&self, offset: Vec3) -> Vec3 {
        let hips = &self.bones["hips"];
        hips.local.translation + self.hips_parent_inv.transform_vector3(self.facing * offset)
    }
}

/// One frame of a clip: canonical deltas per bone and the hips offset.
#[derive(Default)]
struct Frame {
    deltas: Vec<(&'static str, Quat)>,
    hips_offset: Vec3,
}

impl Frame {
    fn set(&mut self, bone: &'static str, q: Quat) {
        self.deltas.push((bone, q));
    }
}

fn rx(a: f32) -> Quat {
    Quat::from_rotation_x(a)
}
fn ry(a: f32) -> Quat {
    Quat::from_rotation_y(a)
}
fn rz(a: f32) -> Quat {
    Quat::from_rotation_z(a)
}

/// Arms hanging by the sides: left arm (rest along +X) turns about +Z by -down, right by +down;
/// then `swing` about X (negative = hand forward) and the elbow bends forward about the upper
/// arm's rest Y axis.
fn arms(f: &mut Frame, down: f32, swing_left: f32, swing_right: f32, elbow: f32) {
    f.set("leftUpperArm", rx(swing_left) * rz(-down));
    f.set("rightUpperArm", rx(swing_right) * rz(down));
    f.set("leftLowerArm", ry(-elbow));
    f.set("rightLowerArm", ry(elbow));
}

fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// One leg at phase `u` (0..1, 0 = heel strike with the foot ahead): (thigh angle, knee bend,
/// horizontal foot offset in leg lengths, in stance).
fn leg_phase(g: &Gait, u: f32) -> (f32, f32, f32, bool) {
    let u = u.rem_euclid(1.0);
    let s = g.stride_sin;
    if u < g.stance {
        // Linear in the foot's position, not the angle: a constant ground speed.
        let x = s * (1.0 - 2.0 * u / g.stance);
        (x.asin(), 0.0, x, true)
    } else {
        let q = (u - g.stance) / (1.0 - g.stance);
        let x = -s + 2.0 * s * smoothstep(q);
        (x.asin(), g.knee_swing * (PI * q).sin(), x, false)
    }
}

/// Samples a gait at time `t`.
fn gait_frame(rig: &HumanoidRig, g: &Gait, t: f32) -> Frame {
    let mut f = Frame::default();
    let u = t / g.cycle;
    let (lt, lk, lx, l_stance) = leg_phase(g, u);
    let (rt, rk, rx_, r_stance) = leg_phase(g, u + 0.5);
    // Thigh forward = foot towards +Z = negative rotation about X; the knee folds the shin back.
    for (side, thigh, knee) in [("left", lt, lk), ("right", rt, rk)] {
        let (up, low, foot) = match side {
            "left" => ("leftUpperLeg", "leftLowerLeg", "leftFoot"),
            _ => ("rightUpperLeg", "rightLowerLeg", "rightFoot"),
        };
        f.set(up, rx(-thigh));
        f.set(low, rx(knee));
        // Keep the sole level: undo the chain's pitch (a little toe-up while swinging).
        f.set(foot, rx(thigh - knee * 0.85));
    }
    let l = rig.leg_length;
    let hip_drop = |x: f32| l * ((1.0 - x * x).max(0.0).sqrt() - 1.0);
    let y = if l_stance {
        hip_drop(lx)
    } else if r_stance {
        hip_drop(rx_)
    } else {
        // Flight (runs): both feet off the ground; the hips rise a little between stances.
        let flight = (1.0 - 2.0 * g.stance).max(1e-3) * 0.5;
        let since = ((u.rem_euclid(0.5)) - g.stance).max(0.0) / flight;
        hip_drop(g.stride_sin) + 0.08 * l * (PI * since.clamp(0.0, 1.0)).sin()
    };
    f.hips_offset = Vec3::new(0.0, y, 0.0);
    // Hips turn a little with the forward leg (left hip, on +X, comes forward for a negative Y
    // turn); more would swing the planted foot round with them.; the chest turns back so the shoulders stay square.
    let twist = -0.04 * (lx / g.stride_sin.max(1e-3));
    f.set("hips", ry(twist));
    f.set("spine", rx(g.lean) * ry(-twist * 0.6));
    f.set("chest", ry(-twist * 0.5));
    // Look ahead despite the lean.
    f.set("head", rx(-g.lean * 0.7));
    // Each arm swings with the opposite leg: left hand forward when the left foot is behind.
    let a = g.arm_swing / g.stride_sin.max(1e-3);
    arms(&mut f, ARM_DOWN, a * lx, a * rx_, g.elbow);
    f
}

fn idle_frame(t: f32, period: f32) -> Frame {
    let mut f = Frame::default();
    let w = TAU * t / period;
    let breath = w.sin();
    f.set("spine", rx(0.015 * breath));
    f.set("chest", rx(0.02 * breath));
    f.set("head", rx(-0.02 * breath) * ry(0.06 * (w * 0.5).sin()));
    f.hips_offset = Vec3::new(0.0, -0.004 * (1.0 + breath), 0.0);
    f.set("hips", ry(0.02 * (w * 0.5).sin()));
    arms(
        &mut f,
        ARM_DOWN + 0.02 * breath,
        -0.03 + 0.015 * breath,
        -0.03 + 0.015 * breath,
        0.2,
    );
    f
}

fn wave_frame(t: f32, period: f32) -> Frame {
    let mut f = idle_frame(t, period);
    f.deltas
        .retain(|(b, _)| !matches!(*b, "rightUpperArm" | "rightLowerArm"));
    let w = TAU * t * 2.0 / period;
    // Right arm (rest along -X) raised out and a little forward, the forearm upright, waving.
    f.set("rightUpperArm", ry(0.35) * rz(-0.55));
    f.set("rightLowerArm", rz(-1.45 + 0.35 * w.sin()));
    f.set("rightHand", rz(0.15 * w.sin()));
    f.set("head", rx(-0.05) * rz(0.05 * w.sin()));
    f
}

/// Turns a sampled function into a clip with linear keys every 1/`KEY_RATE` s; the last key
/// repeats the first so the loop is seamless.
fn bake(
    rig: &HumanoidRig,
    name: &str,
    duration: f32,
    sample: impl Fn(f32) -> Frame,
) -> AnimationClipAsset {
    let keys = ((duration * KEY_RATE).ceil() as usize).max(2);
    let times: Vec<f32> = (0..=keys)
        .map(|k| duration * k as f32 / keys as f32)
        .collect();
    let mut rot: BTreeMap<&'static str, Vec<Quat>> = BTreeMap::new();
    let mut hips_t = Vec::with_capacity(times.len());
    for (k, &t) in times.iter().enumerate() {
        let frame = sample(if k == keys { 0.0 } else { t });
        for (bone, q) in &frame.deltas {
            if let Some(b) = rig.bones.get(bone) {
                let list = rot.entry(bone).or_default();
                let mut local = rig.local_for(b, *q);
                // Keep neighbouring keys in one hemisphere so slerp takes the short way.
                if let Some(prev) = list.last() {
                    if prev.dot(local) < 0.0 {
                        local = -local;
                    }
                }
                list.push(local);
            }
        }
        hips_t.push(rig.hips_translation(frame.hips_offset));
    }
    let mut channels: Vec<NodeChannelAsset> = Vec::new();
    for (bone, values) in rot {
        if values.len() != times.len() {
            continue;
        }
        channels.push(NodeChannelAsset {
            node: rig.bones[bone].node,
            translation: None,
            rotation: Some(Track {
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values,
            }),
            scale: None,
        });
    }
    let hips = rig.bones["hips"].node;
    let track = Track {
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: hips_t,
    };
    clip_with_hips_track(name, duration, channels, hips, track)
}

/// The walk and run gaits for these speeds and this leg.
pub fn gaits(leg_length: f32, walk_speed: f32, run_speed: f32) -> (Gait, Gait) {
    let (wc, ws) = Gait::for_speed(walk_speed, leg_length, 0.5, 1.1, 40f32.to_radians());
    let (rc, rs) = Gait::for_speed(run_speed, leg_length, 0.32, 0.72, 50f32.to_radians());
    let walk = Gait {
        cycle: wc,
        stance: 0.5,
        stride_sin: ws,
        knee_swing: 1.0,
        arm_swing: 0.35,
        elbow: 0.3,
        lean: 0.04,
    };
    let run = Gait {
        cycle: rc,
        stance: 0.32,
        stride_sin: rs,
        knee_swing: 1.7,
        arm_swing: 0.7,
        elbow: 1.3,
        lean: 0.2,
    };
    (walk, run)
}

/// Builds idle, walk, run and wave for a humanoid rig; walk and run cover `walk_speed` and
/// `run_speed` at rate 1 (as closely as the stride limits allow; see the ground speeds).
pub fn build(rig: &HumanoidRig, walk_speed: f32, run_speed: f32) -> HumanoidClips {
    let (walk_g, run_g) = gaits(rig.leg_length, walk_speed, run_speed);
    let idle = bake(rig, "idle", 3.2, |t| idle_frame(t, 3.2));
    let walk = bake(rig, "walk", walk_g.cycle, |t| gait_frame(rig, &walk_g, t));
    let run = bake(rig, "run", run_g.cycle, |t| gait_frame(rig, &run_g, t));
    let wave = bake(rig, "wave", 2.4, |t| wave_frame(t, 2.4));
    HumanoidClips {
        idle,
        walk,
        run,
        wave,
        walk_ground_speed: walk_g.ground_speed(rig.leg_length),
        run_ground_speed: run_g.ground_speed(rig.leg_length),
        leg_length: rig.leg_length,
    }
}

/// A clip of `channels` with `track` as the hips' translation (added to their channel, or a
/// channel of its own).
pub(crate) fn clip_with_hips_track(
    name: &str,
    duration: f32,
    mut channels: Vec<NodeChannelAsset>,
    hips: usize,
    track: Track<Vec3>,
) -> AnimationClipAsset {
    match channels.iter_mut().find(|c| c.node == hips) {
        Some(c) => c.translation = Some(track),
        None => channels.push(NodeChannelAsset {
            node: hips,
            translation: Some(track),
            rotation: None,
            scale: None,
        }),
    }
    AnimationClipAsset {
        name: name.to_string(),
        duration,
        source_channel_count: channels
            .iter()
            .map(|c| c.translation.is_some() as usize + c.rotation.is_some() as usize)
            .sum(),
        node_channels: channels,
        morph_channels: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stance_foot_speed_is_what_the_gait_claims() {
        let (walk, run) = gaits(0.43, 1.6, 4.5);
        for g in [walk, run] {
            // Foot offset (in leg lengths) through the stance, finite differences.
            let dt = 1e-3;
            let mut speeds = Vec::new();
            let mut u = 0.02;
            while u < g.stance - 0.02 {
                let (_, _, x0, s0) = leg_phase(&g, u);
                let (_, _, x1, s1) = leg_phase(&g, u + dt / g.cycle);
                assert!(s0 && s1);
                speeds.push((x0 - x1) * 0.43 / dt);
                u += 0.05;
            }
            for s in &speeds {
                assert_approx!(
                    *s,
                    g.ground_speed(0.43),
                    1e-2,
                    "{s} vs {}",
                    g.ground_speed(0.43)
                );
            }
        }
    }

    #[test]
    fn gait_matches_requested_speed_within_limits() {
        // Human-sized leg at a stroll: no clamping, the cycle is the reference one.
        let (c, s) = Gait::for_speed(1.3, 0.9, 0.5, 1.1, 40f32.to_radians());
        assert_approx!(c, 1.1, 1e-6);
        assert_approx!(2.0 * 0.9 * s / (0.5 * c), 1.3, 1e-5);
        // A short leg at a fast walk: the stride clamps at 40°, the cycle shortens to keep speed.
        let (c, s) = Gait::for_speed(1.6, 0.43, 0.5, 1.1, 40f32.to_radians());
        assert_approx!(s, 40f32.to_radians().sin(), 1e-6);
        assert_approx!(2.0 * 0.43 * s / (0.5 * c), 1.6, 1e-4);
    }
}

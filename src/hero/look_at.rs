//! Where the hero looks, as plain data: the target (the camera, a clicked point, a waving
//! person, or the automatic choice), the gaze angles in the head's frame, the VRM range maps
//! that turn them into eye-bone angles or lookLeft/Right/Up/Down weights, and a short easing of
//! the neck and head when the target lies beyond what the eyes alone should cover.
//!
//! Conventions (degrees): yaw > 0 is to the hero's left, pitch > 0 is up. The look frame is the
//! model's facing frame (+Z for VRM 1.0, -Z for VRM 0.x) turned with the head's animated
//! rotation away from its rest, placed at the VRM eye point (head + `offset_from_head`); the gaze
//! is measured from the clip's head pose, so the easing never feeds back into its own input.
//!
//! Applied after the clip and before the palettes: the neck and head locals (and, for bone
//! look-at, the eyes) are rewritten from the clip's values kept here, so nothing accumulates
//! while the clip holds still; an unchanged result leaves the pose (and its version) alone.

use glam::{Mat4, Quat, Vec2, Vec3};

use crate::anim::ScenePose;
use crate::asset::{LookAtAsset, LookAtType, SceneAsset};
use crate::crowd::anim::{AnimState, ClipKind};

/// Gaze the eyes take alone before the head starts to follow (degrees).
pub const EYE_YAW: f32 = 12.0;
pub const EYE_PITCH: f32 = 8.0;
/// How far neck and head together turn (degrees): a comfortable, natural range.
pub const HEAD_YAW_MAX: f32 = 55.0;
pub const HEAD_PITCH_UP: f32 = 25.0;
pub const HEAD_PITCH_DOWN: f32 = 30.0;
/// The neck's share of the turn; the head takes the rest.
pub const NECK_SHARE: f32 = 0.4;
/// Time constant of the head's easing (seconds): ~95 % of a turn in three of these.
pub const HEAD_EASE_SECONDS: f32 = 0.18;
/// Auto mode looks at the camera when it is within this angle of her facing (degrees).
pub const CAMERA_IN_FRONT: f32 = 100.0;
/// A waving person farther than this (metres) is not looked at.
pub const WAVER_RANGE: f32 = 8.0;
/// Where on a person the hero looks (metres above the ground).
pub const PERSON_EYE_HEIGHT: f32 = 1.55;

/// What the hero looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LookTarget {
    /// Eyes and head follow the clip alone.
    Off,
    Camera,
    /// A point in the world (the player's click on the ground).
    ClickedPoint(Vec3),
    NearestWaver,
    /// The camera when she stands idle and it is in front of her, else a waving person nearby,
    /// else straight ahead.
    Auto,
}

impl LookTarget {
    pub fn label(&self) -> &'static str {
        match self {
            LookTarget::Off => "off",
            LookTarget::Camera => "camera",
            LookTarget::ClickedPoint(_) => "clicked point",
            LookTarget::NearestWaver => "waving person",
            LookTarget::Auto => "auto",
        }
    }
}

/// What the world offers this frame; the game fills it before `Hero::update`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LookInputs {
    /// The camera's eye (world).
    pub camera_eye: Option<Vec3>,
    /// The nearest waving person's face (world), see [`nearest_waver`].
    pub waver: Option<Vec3>,
}

/// Gaze angles (yaw, pitch) in degrees of a direction in the look frame (+Z ahead, +X the
/// hero's left, +Y up).
pub fn yaw_pitch(dir: Vec3) -> (f32, f32) {
    let yaw = dir.x.atan2(dir.z).to_degrees();
    let pitch = dir.y.atan2(Vec2::new(dir.x, dir.z).length()).to_degrees();
    (yaw, pitch)
}

/// lookLeft, lookRight, lookUp, lookDown weights for expression look-at (as three-vrm's
/// expression applier: the horizontal outer map both ways), each within 0..1.
pub fn expression_weights(a: &LookAtAsset, yaw: f32, pitch: f32) -> [f32; 4] {
    let w = |x: f32| x.clamp(0.0, 1.0);
    let (left, right) = if yaw >= 0.0 {
        (w(a.horizontal_outer.map(yaw)), 0.0)
    } else {
        (0.0, w(a.horizontal_outer.map(-yaw)))
    };
    let (up, down) = if pitch >= 0.0 {
        (w(a.vertical_up.map(pitch)), 0.0)
    } else {
        (0.0, w(a.vertical_down.map(-pitch)))
    };
    [left, right, up, down]
}

/// (yaw, pitch) in degrees for the left and right eye bones: the eye turning outwards uses the
/// outer map, the one turning inwards the inner map (the left eye looks left outwards).
pub fn eye_bone_angles(a: &LookAtAsset, yaw: f32, pitch: f32) -> [(f32, f32); 2] {
    let p = if pitch >= 0.0 {
        a.vertical_up.map(pitch)
    } else {
        -a.vertical_down.map(-pitch)
    };
    let (left, right) = if yaw >= 0.0 {
        (a.horizontal_outer.map(yaw), a.horizontal_inner.map(yaw))
    } else {
        (-a.horizontal_inner.map(-yaw), -a.horizontal_outer.map(-yaw))
    };
    [(left, p), (right, p)]
}

/// Where neck and head together should point for a gaze (yaw, pitch): the part beyond what the
/// eyes cover alone, within the natural limits.
pub fn head_goal(yaw: f32, pitch: f32) -> (f32, f32) {
    let excess = |v: f32, eye: f32| v - v.clamp(-eye, eye);
    (
        excess(yaw, EYE_YAW).clamp(-HEAD_YAW_MAX, HEAD_YAW_MAX),
        excess(pitch, EYE_PITCH).clamp(-HEAD_PITCH_DOWN, HEAD_PITCH_UP),
    )
}

/// One easing step towards `goal`: exponential, so it never overshoots and stays between the
/// start and the goal (both within the limits).
pub fn ease(current: f32, goal: f32, dt: f32) -> f32 {
    let k = 1.0 - (-dt.max(0.0) / HEAD_EASE_SECONDS).exp();
    current + (goal - current) * k
}

/// The nearest person playing the wave clip within [`WAVER_RANGE`] of `hero` (ground), as the
/// point to look at. The crowd's animation state is the notion of waving: its people wave
/// (the `Wave` clip) when they notice the hero.
pub fn nearest_waver(hero: Vec2, pos: &[Vec2], anim: &[AnimState]) -> Option<Vec3> {
    let mut best: Option<(f32, Vec2)> = None;
    for (p, a) in pos.iter().zip(anim) {
        let showing = if a.blend < 0.5 { a.clip_a } else { a.clip_b };
        if showing != ClipKind::Wave {
            continue;
        }
        let d = p.distance(hero);
        if d <= WAVER_RANGE && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, *p));
        }
    }
    best.map(|(_, p)| Vec3::new(p.x, PERSON_EYE_HEIGHT, p.y))
}

/// Whether a point lies within what her head and eyes turn to from where she faces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reach {
    Within,
    /// Further round than her head and eyes turn: degrees off her facing, > 0 to her left.
    Beside(f32),
    /// Steeper than her head and eyes tilt: degrees, > 0 up.
    Steep(f32),
}

impl Reach {
    /// What the player is told when a look point is out of reach (None: within).
    pub fn note(self) -> Option<String> {
        let turn = HEAD_YAW_MAX + EYE_YAW;
        match self {
            Reach::Within => None,
            Reach::Beside(yaw) => {
                let (side, behind) = (
                    if yaw > 0.0 { "left" } else { "right" },
                    if yaw.abs() > 90.0 { ", behind her" } else { "" },
                );
                Some(format!(
                    "look point out of reach: {:.0} degrees to her {side}{behind} (head and eyes \
                     turn {turn:.0} at most); she looks as far round as she can - walk her \
                     round (F, then WASD) to face it",
                    yaw.abs()
                ))
            }
            Reach::Steep(pitch) => Some(format!(
                "look point out of reach: {:.0} degrees {} (head and eyes tilt {:.0} up and \
                 {:.0} down at most)",
                pitch.abs(),
                if pitch > 0.0 { "up" } else { "down" },
                HEAD_PITCH_UP + EYE_PITCH,
                HEAD_PITCH_DOWN + EYE_PITCH
            )),
        }
    }
}

/// Whether `point` is within reach of a gaze from `eye` with the body facing `facing` (world,
/// horizontal unit): the head turns up to its limits and the eyes a little further.
pub fn reach(eye: Vec3, facing: Vec3, point: Vec3) -> Reach {
    let d = point - eye;
    let left = Vec3::Y.cross(facing);
    let (yaw, pitch) = yaw_pitch(Vec3::new(d.dot(left), d.y, d.dot(facing)));
    if yaw.abs() > HEAD_YAW_MAX + EYE_YAW {
        Reach::Beside(yaw)
    } else if !(-(HEAD_PITCH_DOWN + EYE_PITCH)..=HEAD_PITCH_UP + EYE_PITCH).contains(&pitch) {
        Reach::Steep(pitch)
    } else {
        Reach::Within
    }
}

/// What a choice settled on, for the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LookSource {
    #[default]
    None,
    Camera,
    Point,
    Waver,
    Ahead,
}

/// The world point to look at for `target` (None: straight ahead). `eye` is the hero's eye
/// point and `facing` her facing direction (world, unit, horizontal); `idle`: standing still.
pub fn choose(
    target: LookTarget,
    inputs: &LookInputs,
    eye: Vec3,
    facing: Vec3,
    idle: bool,
) -> (Option<Vec3>, LookSource) {
    let in_front = |p: Vec3| {
        let d = Vec3::new(p.x - eye.x, 0.0, p.z - eye.z);
        d.length_squared() > 1e-8 && d.normalize().dot(facing) >= CAMERA_IN_FRONT.to_radians().cos()
    };
    match target {
        LookTarget::Off => (None, LookSource::None),
        LookTarget::Camera => match inputs.camera_eye {
            Some(c) => (Some(c), LookSource::Camera),
            None => (None, LookSource::Ahead),
        },
        LookTarget::ClickedPoint(p) => (Some(p), LookSource::Point),
        LookTarget::NearestWaver => match inputs.waver {
            Some(w) => (Some(w), LookSource::Waver),
            None => (None, LookSource::Ahead),
        },
        LookTarget::Auto => {
            if let Some(c) = inputs.camera_eye.filter(|&c| idle && in_front(c)) {
                (Some(c), LookSource::Camera)
            } else if let Some(w) = inputs.waver.filter(|&w| in_front(w)) {
                (Some(w), LookSource::Waver)
            } else {
                (None, LookSource::Ahead)
            }
        }
    }
}

/// The bones look-at moves.
#[derive(Debug, Clone)]
struct Rig {
    neck: Option<usize>,
    head: usize,
    eyes: [Option<usize>; 2],
    /// The head's world rotation in the bind pose.
    head_rest: Quat,
}

pub struct LookAt {
    pub target: LookTarget,
    pub inputs: LookInputs,
    asset: Option<LookAtAsset>,
    rig: Option<Rig>,
    faces_neg_z: bool,
    /// Neck and head turn now (degrees, eased).
    pub head_yaw: f32,
    pub head_pitch: f32,
    /// The gaze from the clip's head (degrees) and what is left for the eyes after the turn.
    pub gaze: (f32, f32),
    pub eye_gaze: (f32, f32),
    /// lookLeft, lookRight, lookUp, lookDown (expression look-at; zeros otherwise).
    pub weights: [f32; 4],
    /// Left and right eye bone (yaw, pitch) in degrees (bone look-at).
    pub eye_angles: [(f32, f32); 2],
    pub source: LookSource,
    /// The world point looked at, if any.
    pub aim: Option<Vec3>,
    /// The last point set by a click.
    pub last_point: Option<Vec3>,
    /// Her eye point and facing (world, horizontal unit) at the last update, for `reach`.
    placed: Option<(Vec3, Vec3)>,
    /// The clip's locals of neck, head and eyes, taken when the clip last posed.
    base: [Option<(usize, Quat)>; 4],
    /// What was last written into the pose (head yaw, pitch, eye angles).
    applied: Option<[f32; 6]>,
}

impl LookAt {
    pub fn new(scene: &SceneAsset, faces_neg_z: bool) -> Self {
        let vrm = scene.vrm.as_ref();
        let asset = vrm.and_then(|v| v.look_at.clone());
        let bone = |name: &str| vrm.and_then(|v| v.humanoid.get(name).copied());
        let head = asset.as_ref().and_then(|a| a.head).or(bone("head"));
        let rig = head.filter(|&h| h < scene.nodes.len()).map(|head| {
            let mut pose = ScenePose::new(scene);
            let head_rest = match pose.update_world_matrices() {
                Ok(()) => pose
                    .world(head)
                    .map_or(Quat::IDENTITY, |m| m.to_scale_rotation_translation().1),
                Err(_) => Quat::IDENTITY,
            };
            Rig {
                neck: bone("neck").filter(|&n| n != head),
                head,
                eyes: [bone("leftEye"), bone("rightEye")],
                head_rest,
            }
        });
        LookAt {
            target: LookTarget::Auto,
            inputs: LookInputs::default(),
            asset,
            rig,
            faces_neg_z,
            head_yaw: 0.0,
            head_pitch: 0.0,
            gaze: (0.0, 0.0),
            eye_gaze: (0.0, 0.0),
            weights: [0.0; 4],
            eye_angles: [(0.0, 0.0); 2],
            source: LookSource::None,
            aim: None,
            last_point: None,
            placed: None,
            base: [None; 4],
            applied: None,
        }
    }

    pub fn set_target(&mut self, t: LookTarget) {
        if let LookTarget::ClickedPoint(p) = t {
            self.last_point = Some(p);
        }
        self.target = t;
    }

    /// Auto → camera → waving person → the last clicked point (if any) → off → auto.
    pub fn cycle_target(&mut self) {
        self.target = match self.target {
            LookTarget::Auto => LookTarget::Camera,
            LookTarget::Camera => LookTarget::NearestWaver,
            LookTarget::NearestWaver => match self.last_point {
                Some(p) => LookTarget::ClickedPoint(p),
                None => LookTarget::Off,
            },
            LookTarget::ClickedPoint(_) => LookTarget::Off,
            LookTarget::Off => LookTarget::Auto,
        };
    }

    /// Whether she can look at `point` from where she stood at the last update (None before
    /// the first, or without a head to turn).
    pub fn reach(&self, point: Vec3) -> Option<Reach> {
        self.rig.as_ref()?;
        let (eye, facing) = self.placed?;
        Some(reach(eye, facing, point))
    }

    pub fn asset(&self) -> Option<&LookAtAsset> {
        self.asset.as_ref()
    }

    /// Whether there is a head to turn.
    pub fn has_rig(&self) -> bool {
        self.rig.is_some()
    }

    /// The clip's local rotation of `node` (ours where we keep it, else the pose's).
    fn base_local(&self, pose: &ScenePose, node: usize) -> Option<(Vec3, Quat, Vec3)> {
        let l = pose.local(node)?;
        let r = self
            .base
            .iter()
            .flatten()
            .find(|(n, _)| *n == node)
            .map_or(l.rotation, |(_, q)| *q);
        Some((l.translation, r, l.scale))
    }

    /// World matrix of `node` in the clip's pose: the pose's own for the nearest ancestor that
    /// neither is moved here nor hangs below a moved node, then the clip's locals down from it.
    fn base_world(&self, scene: &SceneAsset, pose: &ScenePose, node: usize) -> Option<Mat4> {
        let moved: Vec<usize> = self.base.iter().flatten().map(|(n, _)| *n).collect();
        let tainted = |p: usize| moved.iter().any(|&m| m == p || is_ancestor(scene, m, p));
        let mut chain = Vec::with_capacity(8);
        let mut cur = Some(node);
        let mut top = Mat4::IDENTITY;
        while let Some(n) = cur {
            if !tainted(n) {
                top = *pose.world(n)?;
                break;
            }
            chain.push(n);
            if chain.len() > 64 {
                return None;
            }
            cur = scene.nodes.get(n)?.parent;
        }
        chain.iter().rev().try_fold(top, |m, &c| {
            let (t, r, s) = self.base_local(pose, c)?;
            Some(m * Mat4::from_scale_rotation_translation(s, r, t))
        })
    }

    /// One frame: picks the target, eases the head, writes neck/head/eye rotations into `pose`
    /// (whose clip was just sampled when `fresh`) and the look weights. `model` places the
    /// scene in the world; `idle`: the hero stands still. Returns whether the pose changed.
    pub fn update(
        &mut self,
        dt: f32,
        scene: &SceneAsset,
        pose: &mut ScenePose,
        fresh: bool,
        model: &Mat4,
        idle: bool,
    ) -> bool {
        let Some(rig) = self.rig.clone() else {
            self.weights = [0.0; 4];
            return false;
        };
        if fresh || self.applied.is_none() {
            let nodes = [rig.neck, Some(rig.head), rig.eyes[0], rig.eyes[1]];
            for (slot, n) in self.base.iter_mut().zip(nodes) {
                *slot = n.and_then(|n| pose.local(n).map(|l| (n, l.rotation)));
            }
        }
        let Some(head_world) = self.base_world(scene, pose, rig.head) else {
            return false;
        };
        let (_, head_rot, _) = head_world.to_scale_rotation_translation();
        // The look frame: facing turned by the head's change from rest (scene space).
        let flip = if self.faces_neg_z {
            Quat::from_rotation_y(std::f32::consts::PI)
        } else {
            Quat::IDENTITY
        };
        let frame = head_rot * rig.head_rest.inverse() * flip;
        let offset = self
            .asset
            .as_ref()
            .map_or(Vec3::new(0.0, 0.06, 0.0), |a| a.offset_from_head);
        let eye = head_world.transform_point3(offset);
        let eye_world = model.transform_point3(eye);
        let facing = model.transform_vector3(flip * Vec3::Z);
        let facing = Vec3::new(facing.x, 0.0, facing.z)
            .try_normalize()
            .unwrap_or(Vec3::NEG_Z);
        self.placed = Some((eye_world, facing));
        let (aim, source) = choose(self.target, &self.inputs, eye_world, facing, idle);
        self.aim = aim;
        self.source = source;
        let gaze = aim.map(|p| {
            let local = model.inverse().transform_point3(p) - eye;
            yaw_pitch(frame.inverse() * local)
        });
        self.gaze = gaze.unwrap_or((0.0, 0.0));
        let (goal_yaw, goal_pitch) = match gaze {
            Some((y, p)) => head_goal(y, p),
            None => (0.0, 0.0),
        };
        self.head_yaw = ease(self.head_yaw, goal_yaw, dt);
        self.head_pitch = ease(self.head_pitch, goal_pitch, dt);
        if self.target == LookTarget::Off {
            self.head_yaw = 0.0;
            self.head_pitch = 0.0;
        }
        self.eye_gaze = match gaze {
            Some((y, p)) => (y - self.head_yaw, p - self.head_pitch),
            None => (0.0, 0.0),
        };
        let (ey, ep) = self.eye_gaze;
        self.weights = [0.0; 4];
        self.eye_angles = [(0.0, 0.0); 2];
        // No target: the eyes rest (a VRM 0.x curve may give a weight even at 0 degrees).
        if let (Some(a), true) = (&self.asset, gaze.is_some()) {
            match a.kind {
                LookAtType::Expression => self.weights = expression_weights(a, ey, ep),
                LookAtType::Bone => self.eye_angles = eye_bone_angles(a, ey, ep),
            }
        }
        let key = [
            self.head_yaw,
            self.head_pitch,
            self.eye_angles[0].0,
            self.eye_angles[0].1,
            self.eye_angles[1].0,
            self.eye_angles[1].1,
        ];
        if !fresh && self.applied == Some(key) {
            return false;
        }
        if !fresh && self.applied.is_none() && key == [0.0; 6] {
            return false;
        }
        self.write_pose(scene, pose, &rig, frame);
        self.applied = Some(key);
        pose.update_world_matrices().is_ok()
    }

    /// Rewrites neck, head and eye locals from the clip's: each turned by a rotation given in
    /// the look frame, carried into its parent's space.
    fn write_pose(&self, scene: &SceneAsset, pose: &mut ScenePose, rig: &Rig, frame: Quat) {
        let in_frame = |yaw: f32, pitch: f32| {
            frame
                * Quat::from_rotation_y(yaw.to_radians())
                * Quat::from_rotation_x(-pitch.to_radians())
                * frame.inverse()
        };
        let parent_rot = |n: usize| {
            scene.nodes[n]
                .parent
                .and_then(|p| self.base_world(scene, pose, p))
                .map_or(Quat::IDENTITY, |m| m.to_scale_rotation_translation().1)
        };
        let total = in_frame(self.head_yaw, self.head_pitch);
        let (neck_turn, head_parent_turn) = match rig.neck {
            Some(_) => {
                let q = in_frame(self.head_yaw * NECK_SHARE, self.head_pitch * NECK_SHARE);
                (Some(q), q)
            }
            None => (None, Quat::IDENTITY),
        };
        let mut writes: [Option<(usize, Quat)>; 4] = [None; 4];
        if let (Some(n), Some(q)) = (rig.neck, neck_turn) {
            if let Some((_, r, _)) = self.base_local(pose, n) {
                let p = parent_rot(n);
                writes[0] = Some((n, (p.inverse() * q * p * r).normalize()));
            }
        }
        if let Some((_, r, _)) = self.base_local(pose, rig.head) {
            // The head's parent already turned with the neck: the head's world becomes
            // `total` times the clip's.
            let old = parent_rot(rig.head);
            let new = head_parent_turn * old;
            writes[1] = Some((rig.head, (new.inverse() * total * old * r).normalize()));
        }
        for (k, eye) in rig.eyes.iter().enumerate() {
            let Some(e) = *eye else { continue };
            let Some((_, r, _)) = self.base_local(pose, e) else {
                continue;
            };
            let (y, p) = self.eye_angles[k];
            let turned_frame = total * frame;
            let q = turned_frame
                * Quat::from_rotation_y(y.to_radians())
                * Quat::from_rotation_x(-p.to_radians())
                * turned_frame.inverse();
            let par = total * parent_rot(e);
            writes[2 + k] = Some((e, (par.inverse() * q * par * r).normalize()));
        }
        for (n, q) in writes.into_iter().flatten() {
            if let Some(l) = pose.local_mut(n) {
                l.rotation = q;
            }
        }
    }
}

/// Whether `a` is an ancestor of `n`.
fn is_ancestor(scene: &SceneAsset, a: usize, n: usize) -> bool {
    let mut cur = scene.nodes.get(n).and_then(|x| x.parent);
    let mut steps = 0;
    while let Some(p) = cur {
        if p == a {
            return true;
        }
        steps += 1;
        if steps > 256 {
            return false;
        }
        cur = scene.nodes.get(p).and_then(|x| x.parent);
    }
    false
}

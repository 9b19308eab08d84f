//! The hero's look-at: range maps against the spec formulas (Godette's VRM 0.x curves and a
//! hand-built VRM 1.0 map), gaze angles of known targets, the head's easing (converges, stays
//! within its limits, never accumulates), target choice, and eye bones on a hand-built VRM 1.0
//! skeleton.

// Godette's curve numbers are written as the file has them.
#![allow(clippy::excessive_precision)]

mod support;

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;
use support::assert_approx;
use support::gltf_builder::Builder;
use support::{load, project_root};
use throng::anim::ScenePose;
use throng::asset::{load_slice, LookAtAsset, LookAtType, RangeMap};
use throng::crowd::anim::{AnimState, ClipKind};
use throng::hero::look_at::*;
use throng::hero::Hero;
use throng::level::{load_level, Level};

fn lab() -> Level {
    let path = project_root().join("tests/fixtures/levels/hero_lab.ron");
    load_level(&path, &project_root()).unwrap_or_else(|e| panic!("{e}"))
}

/// Unity's Hermite segment written out from its definition, independent of the crate's.
fn hermite(k0: [f32; 4], k1: [f32; 4], t: f32) -> f32 {
    let dt = k1[0] - k0[0];
    let s = (t - k0[0]) / dt;
    let h00 = 2.0 * s.powi(3) - 3.0 * s * s + 1.0;
    let h10 = s.powi(3) - 2.0 * s * s + s;
    let h01 = -2.0 * s.powi(3) + 3.0 * s * s;
    let h11 = s.powi(3) - s * s;
    h00 * k0[1] + h10 * dt * k0[3] + h01 * k1[1] + h11 * dt * k1[2]
}

/// The spec's VRM 0.x degree map: `curve(clamp(angle, 0, xRange) / xRange) * yRange`.
fn v0_formula(keys: &[[f32; 4]], x_range: f32, y_range: f32, angle: f32) -> f32 {
    let t = angle.clamp(0.0, x_range) / x_range;
    let seg = keys
        .windows(2)
        .find(|w| t <= w[1][0])
        .unwrap_or(&keys[keys.len() - 2..]);
    y_range * hermite(seg[0], seg[1], t)
}

const ANGLES: [f32; 11] = [
    0.0, 1.0, 5.0, 12.0, 20.0, 30.0, 45.0, 59.0, 75.0, 90.0, 130.0,
];

#[test]
fn godettes_range_maps_follow_the_vrm0_curve_formula() {
    let s = load("Godette_vrm_v4.vrm");
    let a = s.vrm.as_ref().unwrap().look_at.clone().unwrap();
    assert_eq!(a.kind, LookAtType::Expression, "lookAtTypeName BlendShape");
    assert!(a.from_vrm0);
    assert_eq!(a.head, Some(5), "firstPersonBone");
    // Unity z turned into glTF's.
    assert_eq!(a.offset_from_head, Vec3::new(0.0, 0.146, -0.122));
    let outer = [
        [0.0, 0.05000305, 0.0, 0.0],
        [0.656278551, 0.393769681, 1.224509, 1.224509],
        [1.0, 1.050003, 1.0, 1.0],
    ];
    let up = [
        [0.0, 0.0, 0.0, 0.0],
        [0.6182692, 0.3370192, 1.21922433, 1.21922433],
        [1.0, 1.0, 1.0, 1.0],
    ];
    let linear = [[0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0]];
    assert_eq!(a.horizontal_outer.curve.as_deref(), Some(&outer[..]));
    assert_eq!(a.horizontal_inner.curve, None, "inner has no curve");
    for angle in ANGLES {
        let cases = [
            ("outer", &a.horizontal_outer, &outer[..], 7.1),
            ("up", &a.vertical_up, &up[..], 2.9),
            ("down", &a.vertical_down, &linear[..], 3.9),
            ("inner", &a.horizontal_inner, &linear[..], 10.0),
        ];
        for (what, map, keys, y) in cases {
            let want = v0_formula(keys, 90.0, y, angle);
            assert_approx!(map.map(angle), want, 1e-5, "{what} at {angle} deg");
        }
    }
    // Fixed points by hand: the keys themselves, and the linear default curve.
    assert_approx!(a.horizontal_outer.map(0.0), 7.1 * 0.05000305, 1e-5);
    assert_approx!(
        a.horizontal_outer.map(0.656278551 * 90.0),
        7.1 * 0.393769681,
        1e-4
    );
    assert_approx!(a.horizontal_outer.map(90.0), 7.1 * 1.050003, 1e-5);
    assert_approx!(a.vertical_down.map(45.0), 3.9 * 0.5, 1e-5);
    assert_approx!(a.horizontal_inner.map(30.0), 10.0 / 3.0, 1e-5);
    // Halfway along the first outer segment: h00 = h01 = 1/2, h10 = 1/8, h11 = -1/8.
    let mid = 0.5 * 0.05000305 + 0.5 * 0.393769681 - 0.125 * 0.656278551 * 1.224509;
    assert_approx!(
        a.horizontal_outer.map(0.5 * 0.656278551 * 90.0),
        7.1 * mid,
        1e-5
    );
}

fn vrm1_look_at(kind: LookAtType) -> LookAtAsset {
    LookAtAsset {
        kind,
        head: None,
        offset_from_head: Vec3::ZERO,
        horizontal_inner: RangeMap::linear(30.0, 10.0),
        horizontal_outer: RangeMap::linear(30.0, 20.0),
        vertical_down: RangeMap::linear(20.0, 6.0),
        vertical_up: RangeMap::linear(40.0, 8.0),
        from_vrm0: false,
    }
}

#[test]
fn vrm1_range_maps_clamp_the_angle_and_scale_it() {
    let m = RangeMap::linear(30.0, 0.8);
    for angle in ANGLES {
        let want = angle.min(30.0) / 30.0 * 0.8;
        assert_approx!(m.map(angle), want, 1e-6, "{angle}");
    }
    assert_eq!(m.map(-10.0), 0.0, "negative angles count as zero");
    assert_eq!(m.map(f32::NAN), 0.0);

    // Expression look-at: the outer map both ways, weights within 0..1.
    let mut e = vrm1_look_at(LookAtType::Expression);
    e.horizontal_outer = RangeMap::linear(30.0, 1.0);
    e.vertical_up = RangeMap::linear(20.0, 1.0);
    e.vertical_down = RangeMap::linear(40.0, 0.5);
    let table = [
        ((15.0, 0.0), [0.5, 0.0, 0.0, 0.0]),
        ((-15.0, 0.0), [0.0, 0.5, 0.0, 0.0]),
        ((-60.0, 10.0), [0.0, 1.0, 0.5, 0.0]),
        ((3.0, -20.0), [0.1, 0.0, 0.0, 0.25]),
        ((0.0, -80.0), [0.0, 0.0, 0.0, 0.5]),
    ];
    for ((yaw, pitch), want) in table {
        let got = expression_weights(&e, yaw, pitch);
        for k in 0..4 {
            assert_approx!(got[k], want[k], 1e-6, "{yaw}/{pitch} weight {k}: {got:?}");
        }
    }
    // An output scale above 1 still gives at most a full weight.
    e.horizontal_outer = RangeMap::linear(30.0, 7.0);
    assert_eq!(expression_weights(&e, 20.0, 0.0)[0], 1.0);

    // Bone look-at: the eye turning outwards takes the outer map.
    let b = vrm1_look_at(LookAtType::Bone);
    let table = [
        ((15.0, 0.0), [(10.0, 0.0), (5.0, 0.0)]),
        ((-15.0, 0.0), [(-5.0, 0.0), (-10.0, 0.0)]),
        ((45.0, 20.0), [(20.0, 4.0), (10.0, 4.0)]),
        ((-6.0, -10.0), [(-2.0, -3.0), (-4.0, -3.0)]),
    ];
    for ((yaw, pitch), want) in table {
        let got = eye_bone_angles(&b, yaw, pitch);
        for k in 0..2 {
            assert_approx!(got[k].0, want[k].0, 1e-5, "{yaw}/{pitch} eye {k}: {got:?}");
            assert_approx!(got[k].1, want[k].1, 1e-5, "{yaw}/{pitch} eye {k}: {got:?}");
        }
    }
}

#[test]
fn yaw_and_pitch_of_known_directions() {
    let table = [
        (Vec3::Z, (0.0, 0.0)),
        (Vec3::new(1.0, 0.0, 1.0), (45.0, 0.0)),
        (Vec3::new(-1.0, 0.0, 1.0), (-45.0, 0.0)),
        (Vec3::new(0.0, 1.0, 1.0), (0.0, 45.0)),
        (Vec3::new(0.0, -3.0_f32.sqrt(), 1.0), (0.0, -60.0)),
        (Vec3::X, (90.0, 0.0)),
        (Vec3::NEG_Z, (180.0, 0.0)),
        (Vec3::new(1.0, 2.0_f32.sqrt(), 1.0), (45.0, 45.0)),
    ];
    for (dir, (yaw, pitch)) in table {
        let (y, p) = yaw_pitch(dir);
        assert_approx!(y, yaw, 1e-4, "{dir}");
        assert_approx!(p, pitch, 1e-4, "{dir}");
    }
}

#[test]
fn the_head_eases_to_the_excess_and_stays_within_its_limits() {
    assert_eq!(head_goal(10.0, 5.0), (0.0, 0.0), "inside the eyes' range");
    assert_eq!(head_goal(30.0, -20.0), (30.0 - EYE_YAW, -20.0 + EYE_PITCH));
    assert_eq!(head_goal(170.0, 80.0), (HEAD_YAW_MAX, HEAD_PITCH_UP));
    assert_eq!(head_goal(-170.0, -80.0), (-HEAD_YAW_MAX, -HEAD_PITCH_DOWN));
    for (goal_yaw, goal_pitch) in [head_goal(80.0, -50.0), head_goal(-25.0, 33.0)] {
        let (mut y, mut p) = (0.0f32, 0.0f32);
        let mut steps_to_95 = None;
        for k in 0..120 {
            let (ny, np) = (
                ease(y, goal_yaw, 1.0 / 60.0),
                ease(p, goal_pitch, 1.0 / 60.0),
            );
            // Monotone towards the goal: never past it, never back.
            assert!((ny - y) * goal_yaw.signum() >= 0.0 && ny.abs() <= goal_yaw.abs() + 1e-4);
            assert!((np - p) * goal_pitch.signum() >= 0.0 && np.abs() <= goal_pitch.abs() + 1e-4);
            assert!((-HEAD_YAW_MAX..=HEAD_YAW_MAX).contains(&ny));
            assert!((-HEAD_PITCH_DOWN..=HEAD_PITCH_UP).contains(&np));
            (y, p) = (ny, np);
            if steps_to_95.is_none() && (y - goal_yaw).abs() <= 0.05 * goal_yaw.abs() {
                steps_to_95 = Some(k + 1);
            }
        }
        assert_approx!(y, goal_yaw, 1e-3);
        assert_approx!(p, goal_pitch, 1e-3);
        // A short easing: ~95 % in three time constants (0.54 s = 33 frames).
        let n = steps_to_95.unwrap();
        assert!((30..=34).contains(&n), "{n} frames to 95 %");
    }
}

#[test]
fn a_point_behind_her_or_at_her_feet_is_out_of_reach_and_says_so() {
    // She stands at the origin, eyes 1.5 m up, facing +Z: +X is her left.
    let (eye, facing) = (Vec3::new(0.0, 1.5, 0.0), Vec3::Z);
    let ground = |x: f32, z: f32| Vec3::new(x, 0.0, z);
    assert_eq!(reach(eye, facing, ground(0.0, 10.0)), Reach::Within);
    // 60 degrees to her left: the head's 55 and the eyes' 12 cover it.
    let sixty = ground(
        10.0 * 60f32.to_radians().sin(),
        10.0 * 60f32.to_radians().cos(),
    );
    assert_eq!(reach(eye, facing, sixty), Reach::Within);
    match reach(eye, facing, ground(0.0, -10.0)) {
        Reach::Beside(yaw) => assert_approx!(yaw.abs(), 180.0, 1e-3),
        other => panic!("behind her: {other:?}"),
    }
    match reach(eye, facing, ground(-10.0, 0.0)) {
        Reach::Beside(yaw) => assert_approx!(yaw, -90.0, 1e-3),
        other => panic!("to her right: {other:?}"),
    }
    // Half a metre ahead of her feet: about 72 degrees down, past the 38 she tilts.
    match reach(eye, facing, ground(0.0, 0.5)) {
        Reach::Steep(pitch) => assert_approx!(pitch, -(3f32).atan().to_degrees(), 1e-3),
        other => panic!("at her feet: {other:?}"),
    }
    assert_eq!(Reach::Within.note(), None);
    let behind = Reach::Beside(-150.0).note().expect("a note");
    assert!(
        behind.starts_with("look point out of reach: 150 degrees to her right, behind her"),
        "{behind}"
    );
    assert!(behind.contains("turn 67 at most"), "{behind}");
    let steep = Reach::Steep(-72.0).note().expect("a note");
    assert!(steep.contains("72 degrees down"), "{steep}");
    assert!(steep.contains("33 up and 38 down"), "{steep}");
}

#[test]
fn targets_are_chosen_by_mode_idleness_and_what_is_in_front() {
    let eye = Vec3::new(0.0, 1.5, 0.0);
    let facing = Vec3::NEG_Z;
    let front = Vec3::new(1.0, 1.7, -4.0);
    let behind = Vec3::new(0.5, 1.7, 4.0);
    // 95 degrees off the facing: still "in front" (within 100).
    let side = Vec3::new(4.0, 1.7, 4.0 * 5f32.to_radians().tan());
    let waver = Vec3::new(-2.0, PERSON_EYE_HEIGHT, -2.0);
    let inputs = |cam: Vec3, w: Option<Vec3>| LookInputs {
        camera_eye: Some(cam),
        waver: w,
    };
    let cases = [
        (
            LookTarget::Auto,
            inputs(front, Some(waver)),
            true,
            Some(front),
            LookSource::Camera,
        ),
        (
            LookTarget::Auto,
            inputs(side, None),
            true,
            Some(side),
            LookSource::Camera,
        ),
        (
            LookTarget::Auto,
            inputs(behind, Some(waver)),
            true,
            Some(waver),
            LookSource::Waver,
        ),
        (
            LookTarget::Auto,
            inputs(front, Some(waver)),
            false,
            Some(waver),
            LookSource::Waver,
        ),
        (
            LookTarget::Auto,
            inputs(behind, None),
            true,
            None,
            LookSource::Ahead,
        ),
        (
            LookTarget::Auto,
            inputs(front, None),
            false,
            None,
            LookSource::Ahead,
        ),
        (
            LookTarget::Camera,
            inputs(behind, None),
            false,
            Some(behind),
            LookSource::Camera,
        ),
        (
            LookTarget::NearestWaver,
            inputs(front, None),
            true,
            None,
            LookSource::Ahead,
        ),
        (
            LookTarget::NearestWaver,
            inputs(front, Some(waver)),
            true,
            Some(waver),
            LookSource::Waver,
        ),
        (
            LookTarget::ClickedPoint(behind),
            inputs(front, None),
            true,
            Some(behind),
            LookSource::Point,
        ),
        (
            LookTarget::Off,
            inputs(front, Some(waver)),
            true,
            None,
            LookSource::None,
        ),
    ];
    for (i, (target, inputs, idle, aim, source)) in cases.into_iter().enumerate() {
        assert_eq!(
            choose(target, &inputs, eye, facing, idle),
            (aim, source),
            "case {i}"
        );
    }

    // Waving = showing the wave clip; the nearest within range wins.
    let pos = [
        Vec2::new(1.0, 0.0),
        Vec2::new(3.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(9.0, 0.0),
    ];
    let mut anim = [AnimState::new(ClipKind::Idle, 0.0); 4];
    assert_eq!(nearest_waver(Vec2::ZERO, &pos, &anim), None);
    anim[1] = AnimState::new(ClipKind::Wave, 0.0);
    anim[2] = AnimState::new(ClipKind::Wave, 0.0);
    anim[3] = AnimState::new(ClipKind::Wave, 0.0);
    assert_eq!(
        nearest_waver(Vec2::ZERO, &pos, &anim),
        Some(Vec3::new(2.0, PERSON_EYE_HEIGHT, 0.0))
    );
    // Fading out of the wave (more than half way to idle) no longer counts.
    anim[2].clip_b = ClipKind::Idle;
    anim[2].blend = 0.7;
    assert_eq!(
        nearest_waver(Vec2::ZERO, &pos, &anim),
        Some(Vec3::new(3.0, PERSON_EYE_HEIGHT, 0.0))
    );
    anim[1] = AnimState::new(ClipKind::Idle, 0.0);
    assert_eq!(
        nearest_waver(Vec2::ZERO, &pos, &anim),
        None,
        "9 m is too far"
    );
}

/// Model-space forward of a node (VRM 0.x faces -Z) in the current pose.
fn forward(h: &Hero, node: usize) -> Vec3 {
    let (_, r, _) = h.pose.world(node).unwrap().to_scale_rotation_translation();
    r * Vec3::NEG_Z
}

#[test]
fn godette_turns_eyes_then_head_towards_the_camera_and_holds_still() {
    let level = lab();
    // The clips authored in code: their idle held at its start has no head sway, so the gaze
    // from her head is the camera's angle (the retargeted idle turns her head a little).
    let mut settings = level.hero.clone();
    settings.motion = throng::level::HeroMotion::authored();
    let mut h = Hero::new(load("Godette_vrm_v4.vrm"), &settings, &level);
    assert!(h.warnings.is_empty(), "{:?}", h.warnings);
    h.freeze_at(h.roles.idle.unwrap(), 0.0);
    let head = 5;
    let rest_forward = forward(&h, head);
    let model = h.model_matrix();
    // 30 degrees to her left (VRM 0.x: forward -Z, left -X), level with her eyes, 20 m off.
    let eye_scene = h
        .pose
        .world(head)
        .unwrap()
        .transform_point3(Vec3::new(0.0, 0.146, -0.122));
    let yaw = 30f32.to_radians();
    let target_scene = eye_scene + Vec3::new(-yaw.sin(), 0.0, -yaw.cos()) * 20.0;
    h.look.target = LookTarget::Camera;
    h.look.inputs.camera_eye = Some(model.transform_point3(target_scene));
    for _ in 0..120 {
        h.update(1.0 / 60.0);
    }
    let (gy, gp) = h.look.gaze;
    // The idle pose leans the body a little: the gaze is measured from its head.
    assert_approx!(gy, 30.0, 1.0, "gaze yaw {gy}");
    assert_approx!(gp, 0.0, 1.0, "gaze pitch {gp}");
    let (goal_yaw, _) = head_goal(gy, gp);
    assert_approx!(h.look.head_yaw, goal_yaw, 0.5, "head {}", h.look.head_yaw);
    assert_approx!(h.look.eye_gaze.0, gy - h.look.head_yaw, 1e-4);
    // Expression look-at: lookLeft from the outer map, nothing to the right.
    let a = h.look.asset().unwrap().clone();
    let w = expression_weights(&a, h.look.eye_gaze.0, h.look.eye_gaze.1);
    assert_eq!(h.look.weights, w);
    assert!(w[0] > 0.3 && w[1] == 0.0, "{w:?}");
    let vrm = h.scene.vrm.as_ref().unwrap();
    let left = vrm
        .expressions
        .iter()
        .position(|e| e.name == "lookLeft")
        .unwrap();
    assert_eq!(
        h.expressions.applied[left], w[0],
        "lookLeft reaches the face"
    );
    // The head really turned left (towards -X) by about the eased angle (idle sway aside).
    let f = forward(&h, head);
    let turned = rest_forward.angle_between(f).to_degrees();
    assert!(f.x < rest_forward.x, "{rest_forward} -> {f}");
    assert_approx!(turned, h.look.head_yaw, 0.5, "turned {turned}");

    // Settled and the clip paused: nothing moves, so the pose keeps its version (no palette
    // upload).
    h.update(0.0);
    let v = h.pose.version();
    let head_rot = h.pose.local(head).unwrap().rotation;
    for _ in 0..5 {
        h.update(0.0);
    }
    assert_eq!(
        h.pose.version(),
        v,
        "an unchanged look leaves the pose alone"
    );
    assert_eq!(
        h.pose.local(head).unwrap().rotation,
        head_rot,
        "no accumulation"
    );

    // Far behind her: the camera target clamps the head at its limit...
    let back = 150f32.to_radians();
    let behind = eye_scene + Vec3::new(-back.sin(), 0.0, -back.cos()) * 20.0;
    h.look.inputs.camera_eye = Some(model.transform_point3(behind));
    for _ in 0..120 {
        h.update(1.0 / 60.0);
    }
    assert_approx!(h.look.head_yaw, HEAD_YAW_MAX, 0.5);
    // ... and the automatic choice looks ahead instead, easing back.
    h.look.target = LookTarget::Auto;
    for _ in 0..120 {
        h.update(1.0 / 60.0);
    }
    assert_eq!(h.look.source, LookSource::Ahead);
    assert!(h.look.head_yaw.abs() < 0.5, "{}", h.look.head_yaw);
    assert_eq!(h.look.weights, [0.0; 4], "no target: the eyes rest");
}

/// A VRM 1.0 skeleton: hips, spine, neck, head (1.5 m up), both eyes, with bone look-at.
fn eye_rig() -> throng::asset::SceneAsset {
    let b = Builder::new();
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "hips", "children": [1], "translation": [0.0, 1.0, 0.0]},
            {"name": "spine", "children": [2], "translation": [0.0, 0.2, 0.0]},
            {"name": "neck", "children": [3], "translation": [0.0, 0.2, 0.0]},
            {"name": "head", "children": [4, 5], "translation": [0.0, 0.1, 0.0]},
            {"name": "leftEye", "translation": [0.03, 0.06, 0.08]},
            {"name": "rightEye", "translation": [-0.03, 0.06, 0.08]}
        ],
        "extensionsUsed": ["VRMC_vrm"],
        "extensions": {"VRMC_vrm": {
            "specVersion": "1.0",
            "meta": {"name": "Eyes"},
            "humanoid": {"humanBones": {"hips": {"node": 0}, "spine": {"node": 1},
                "neck": {"node": 2}, "head": {"node": 3},
                "leftEye": {"node": 4}, "rightEye": {"node": 5}}},
            "lookAt": {"type": "bone", "offsetFromHeadBone": [0.0, 0.06, 0.08],
                "rangeMapHorizontalInner": {"inputMaxValue": 30.0, "outputScale": 10.0},
                "rangeMapHorizontalOuter": {"inputMaxValue": 30.0, "outputScale": 20.0},
                "rangeMapVerticalDown": {"inputMaxValue": 20.0, "outputScale": 6.0},
                "rangeMapVerticalUp": {"inputMaxValue": 40.0, "outputScale": 8.0}}
        }}
    });
    load_slice("Eyes.vrm", &b.finish(doc), None).unwrap()
}

#[test]
fn vrm1_bone_look_at_turns_neck_head_and_eyes() {
    let s = eye_rig();
    let a = s.vrm.as_ref().unwrap().look_at.clone().unwrap();
    assert_eq!(a.kind, LookAtType::Bone);
    assert_eq!(a.head, Some(3));
    assert_eq!(a.horizontal_outer, RangeMap::linear(30.0, 20.0));
    let mut pose = ScenePose::new(&s);
    pose.update_world_matrices().unwrap();
    let mut look = LookAt::new(&s, false);
    // 20 degrees to her left (+X for a +Z-facing model), level with the eye point.
    let eye = Vec3::new(0.0, 1.5 + 0.06, 0.08);
    let y = 20f32.to_radians();
    look.set_target(LookTarget::ClickedPoint(
        eye + Vec3::new(y.sin(), 0.0, y.cos()) * 10.0,
    ));
    let mut fresh = true;
    for _ in 0..180 {
        look.update(1.0 / 60.0, &s, &mut pose, fresh, &Mat4::IDENTITY, true);
        fresh = false;
    }
    assert_approx!(look.gaze.0, 20.0, 1e-3);
    assert_approx!(look.gaze.1, 0.0, 1e-3);
    assert_approx!(look.head_yaw, 20.0 - EYE_YAW, 1e-3);
    // Eyes: the 12 degrees left past the head; the left eye turns outwards (20 * 12/30),
    // the right one inwards (10 * 12/30).
    let e = look.eye_angles;
    assert_approx!(e[0].0, 20.0 * EYE_YAW / 30.0, 1e-3);
    assert_approx!(e[1].0, 10.0 * EYE_YAW / 30.0, 1e-3);
    let fwd = |n: usize| {
        let (_, r, _) = pose.world(n).unwrap().to_scale_rotation_translation();
        let f = r * Vec3::Z;
        f.x.atan2(f.z).to_degrees()
    };
    assert_approx!(fwd(2), 8.0 * NECK_SHARE, 1e-3, "neck");
    assert_approx!(fwd(3), 8.0, 1e-3, "head");
    assert_approx!(fwd(4), 8.0 + e[0].0, 1e-3, "left eye");
    assert_approx!(fwd(5), 8.0 + e[1].0, 1e-3, "right eye");
    // Up: 15 degrees above, straight ahead: the head takes the part past the eyes.
    let p = 15f32.to_radians();
    look.set_target(LookTarget::ClickedPoint(
        eye + Vec3::new(0.0, p.sin(), p.cos()) * 10.0,
    ));
    for _ in 0..240 {
        look.update(1.0 / 60.0, &s, &mut pose, false, &Mat4::IDENTITY, true);
    }
    assert_approx!(look.head_pitch, 15.0 - EYE_PITCH, 1e-3);
    assert_approx!(look.eye_angles[0].1, 8.0 * EYE_PITCH / 40.0, 1e-3);
    let (_, r, _) = pose.world(4).unwrap().to_scale_rotation_translation();
    let f = r * Vec3::Z;
    let pitch = f.y.atan2(Vec2::new(f.x, f.z).length()).to_degrees();
    assert_approx!(pitch, 15.0 - EYE_PITCH + 8.0 * EYE_PITCH / 40.0, 1e-2);
    // Off: the clip's pose comes back exactly.
    look.set_target(LookTarget::Off);
    look.update(1.0 / 60.0, &s, &mut pose, false, &Mat4::IDENTITY, true);
    for n in 2..6 {
        assert_approx!(
            pose.local(n)
                .unwrap()
                .rotation
                .angle_between(Quat::IDENTITY),
            0.0,
            1e-5
        );
    }
}

#[test]
fn bad_look_at_settings_are_refused_with_the_place_named() {
    let b = Builder::new();
    let mut doc = json!({
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "head"}],
        "extensionsUsed": ["VRMC_vrm"],
        "extensions": {"VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "X"},
            "humanoid": {"humanBones": {"head": {"node": 0}}},
            "lookAt": {"type": "eyes"}}}
    });
    let err = |doc: &serde_json::Value| {
        load_slice("X.vrm", &b.finish(doc.clone()), None)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(&doc),
        "X.vrm: VRMC_vrm lookAt.type: \"eyes\"; allowed: \"bone\", \"expression\""
    );
    doc["extensions"]["VRMC_vrm"]["lookAt"] =
        json!({"type": "bone", "rangeMapVerticalUp": {"inputMaxValue": 0.0}});
    assert_eq!(
        err(&doc),
        "X.vrm: VRMC_vrm lookAt.rangeMapVerticalUp.inputMaxValue: 0 degrees; must be above 0 and at most 180"
    );
    // VRM 0.x curves: 4 numbers a key.
    doc["extensions"] = json!({"VRM": {"humanoid": {"humanBones": [{"bone": "head", "node": 0}]},
        "firstPerson": {"lookAtTypeName": "Bone",
            "lookAtHorizontalOuter": {"curve": [0, 0, 0, 1, 1, 1, 1], "xRange": 90, "yRange": 10}}}});
    doc["extensionsUsed"] = json!(["VRM"]);
    assert_eq!(
        err(&doc),
        "X.vrm: VRM firstPerson.lookAtHorizontalOuter.curve: 7 numbers; must be 4 per key (time, value, in, out)"
    );
}

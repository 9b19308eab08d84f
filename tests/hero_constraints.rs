//! VRMC_node_constraint on hand-built VRM 1.0 files: reading (kinds, axes, weights, the
//! evaluation order, bad files refused with the node named) and the runtime
//! (`hero::constraints`) against the spec's pseudocode, written out again here in three.js's
//! terms, on tables of source rotations, plus a few values worked out by hand.

mod support;

use glam::{Quat, Vec3};
use serde_json::{json, Value};
use support::gltf_builder::Builder;
use throng::anim::ScenePose;
use throng::asset::vrm_constraint::{ConstraintKind, NodeConstraint};
use throng::asset::{load_slice, SceneAsset};
use throng::hero::constraints::NodeConstraints;

/// Nodes: 0 hips (root, at 1 m) → 1 arm (rest turned 20° about Z, 30 cm to the side) → 2 hand
/// (30 cm on); 3 twist under the arm (rest turned 10° about X); 4 aimer under the hips, at
/// (0, 0.2, 0.1); 5 copy under the hips. `constraints` maps a node index to its extension.
fn scene(constraints: &[(usize, Value)]) -> Result<SceneAsset, String> {
    let mut b = Builder::new();
    b.f32s("SCALAR", &[0.0]);
    let rz = Quat::from_rotation_z(20f32.to_radians());
    let rx = Quat::from_rotation_x(10f32.to_radians());
    let mut nodes = json!([
        {"name": "hips", "translation": [0.0, 1.0, 0.0], "children": [1, 4, 5]},
        {"name": "arm", "translation": [0.3, 0.0, 0.0], "rotation": rz.to_array(), "children": [2, 3]},
        {"name": "hand", "translation": [0.3, 0.0, 0.0]},
        {"name": "twist", "translation": [0.15, 0.0, 0.0], "rotation": rx.to_array()},
        {"name": "aimer", "translation": [0.0, 0.2, 0.1]},
        {"name": "copy", "translation": [-0.2, 0.0, 0.0], "rotation": rx.to_array()}
    ]);
    for (n, ext) in constraints {
        nodes[*n]["extensions"] = json!({"VRMC_node_constraint": ext});
    }
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": ["VRMC_vrm", "VRMC_node_constraint"],
        "extensions": {
            "VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "Constraints"},
                         "humanoid": {"humanBones": {"hips": {"node": 0}}}}
        }
    });
    load_slice("Constraints.vrm", &b.finish(doc), None).map_err(|e| e.to_string())
}

fn ext(kind: &str, body: Value) -> Value {
    json!({"specVersion": "1.0", "constraint": {kind: body}})
}

fn constraints(s: &SceneAsset) -> Vec<NodeConstraint> {
    s.vrm.as_ref().expect("a VRM").constraints.clone()
}

// ------------------------------------------------ the spec's pseudocode, independently

/// three.js `Quaternion.setFromUnitVectors`.
fn set_from_unit_vectors(from: Vec3, to: Vec3) -> Quat {
    let mut r = from.dot(to) + 1.0;
    let (x, y, z);
    if r < 1e-6 {
        r = 0.0;
        if from.x.abs() > from.z.abs() {
            (x, y, z) = (-from.y, from.x, 0.0);
        } else {
            (x, y, z) = (0.0, -from.z, from.y);
        }
    } else {
        let c = from.cross(to);
        (x, y, z) = (c.x, c.y, c.z);
    }
    Quat::from_xyzw(x, y, z, r).normalize()
}

fn spec_roll(axis: Vec3, src_rest: Quat, src: Quat, dst_rest: Quat, w: f32) -> Quat {
    let delta_src = src_rest.inverse() * src;
    let delta_in_parent = src_rest * delta_src * src_rest.inverse();
    let delta_in_dst = dst_rest.inverse() * delta_in_parent * dst_rest;
    let to_vec = delta_in_dst * axis;
    let from_to = set_from_unit_vectors(axis, to_vec);
    dst_rest.slerp(dst_rest * from_to.inverse() * delta_in_dst, w)
}

fn spec_aim(axis: Vec3, dst_rest: Quat, parent_world: Quat, src: Vec3, dst: Vec3, w: f32) -> Quat {
    let from_vec = (parent_world * dst_rest) * axis;
    let to_vec = (src - dst).normalize();
    let from_to = set_from_unit_vectors(from_vec, to_vec);
    dst_rest.slerp(
        parent_world.inverse() * from_to * parent_world * dst_rest,
        w,
    )
}

fn spec_rotation(src_rest: Quat, src: Quat, dst_rest: Quat, w: f32) -> Quat {
    dst_rest.slerp(dst_rest * (src_rest.inverse() * src), w)
}

/// Same rotation (q and -q are one rotation).
fn same(a: Quat, b: Quat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-6
}

/// The arm's local rotation poses tried: twists, bends and mixtures.
fn arm_poses() -> Vec<Quat> {
    let rest = Quat::from_rotation_z(20f32.to_radians());
    vec![
        rest,
        rest * Quat::from_rotation_x(60f32.to_radians()),
        rest * Quat::from_rotation_y(45f32.to_radians()),
        rest * Quat::from_rotation_x(-100f32.to_radians())
            * Quat::from_rotation_z(30f32.to_radians()),
        Quat::from_euler(glam::EulerRot::XYZ, 0.7, -0.4, 1.1),
        rest * Quat::from_rotation_x(179f32.to_radians()),
    ]
}

/// The scene with the arm posed at `arm`, constraints applied.
fn posed(s: &SceneAsset, arm: Quat) -> ScenePose {
    let mut pose = ScenePose::new(s);
    let mut t = s.nodes[1].local;
    t.rotation = arm;
    pose.set_local(1, t).expect("arm");
    pose.update_world_matrices().expect("pose");
    let mut c = NodeConstraints::new(s);
    c.apply(s, &mut pose);
    pose
}

// --------------------------------------------------------------------------- reading

#[test]
fn constraints_are_read_with_their_axes_weights_and_defaults() {
    let s = scene(&[
        (
            3,
            ext("roll", json!({"source": 1, "rollAxis": "X", "weight": 0.5})),
        ),
        (4, ext("aim", json!({"source": 2, "aimAxis": "NegativeZ"}))),
        (5, ext("rotation", json!({"source": 1, "weight": 2.0}))),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let c = constraints(&s);
    assert_eq!(c.len(), 3);
    let find = |n: usize| c.iter().find(|c| c.node == n).copied().expect("constraint");
    assert_eq!(find(3).kind, ConstraintKind::Roll { axis: Vec3::X });
    assert_eq!((find(3).source, find(3).weight), (1, 0.5));
    assert_eq!(find(4).kind, ConstraintKind::Aim { axis: Vec3::NEG_Z });
    assert_eq!(find(4).weight, 1.0, "the default weight");
    assert_eq!(
        (find(5).kind, find(5).weight),
        (ConstraintKind::Rotation, 1.0)
    );
    // Another spec version: left out, as a reader without the extension.
    let s = scene(&[(
        3,
        json!({"specVersion": "2.0", "constraint": {"rotation": {"source": 1}}}),
    )])
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(constraints(&s).is_empty());
}

#[test]
fn constraints_come_after_those_they_read() {
    // The copy reads the twist (whose constraint reads the arm); the aimer reads the copy. In
    // file order the aimer and the copy come before the twist.
    let s = scene(&[
        (3, ext("roll", json!({"source": 1, "rollAxis": "X"}))),
        (4, ext("aim", json!({"source": 5, "aimAxis": "PositiveX"}))),
        (5, ext("rotation", json!({"source": 3}))),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let order: Vec<usize> = constraints(&s).iter().map(|c| c.node).collect();
    assert_eq!(order, vec![3, 5, 4]);
}

#[test]
fn bad_constraints_are_refused_with_the_node_named() {
    let cases = [
        (
            ext("rotation", json!({"source": 3})),
            "source is the node itself",
        ),
        (
            ext("rotation", json!({"source": 99})),
            "must be a node index",
        ),
        (
            ext("roll", json!({"source": 1, "rollAxis": "NegativeX"})),
            "is not an axis",
        ),
        (
            ext("aim", json!({"source": 1, "aimAxis": "Up"})),
            "is not an axis",
        ),
        (
            ext("rotation", json!({"source": 1, "weight": "heavy"})),
            "finite number",
        ),
        (json!({"specVersion": "1.0", "constraint": {}}), "must hold"),
    ];
    for (e, want) in cases {
        let err = scene(&[(3, e.clone())])
            .err()
            .unwrap_or_else(|| panic!("{e} loaded"));
        assert!(
            err.contains("node 3 VRMC_node_constraint") && err.contains(want),
            "{err}"
        );
    }
    let Err(circle) = scene(&[
        (3, ext("rotation", json!({"source": 5}))),
        (5, ext("rotation", json!({"source": 3}))),
    ]) else {
        panic!("a circle is refused");
    };
    assert!(circle.contains("in a circle"), "{circle}");
}

// --------------------------------------------------------------------------- runtime

#[test]
fn roll_follows_the_spec_formula_and_keeps_only_the_twist() {
    for (axis, name) in [(Vec3::X, "X"), (Vec3::Y, "Y"), (Vec3::Z, "Z")] {
        for w in [1.0, 0.5] {
            let s = scene(&[(
                3,
                ext("roll", json!({"source": 1, "rollAxis": name, "weight": w})),
            )])
            .unwrap_or_else(|e| panic!("{e}"));
            for arm in arm_poses() {
                let pose = posed(&s, arm);
                let got = pose.local(3).expect("twist").rotation;
                let want = spec_roll(
                    axis,
                    s.nodes[1].local.rotation,
                    arm,
                    s.nodes[3].local.rotation,
                    w,
                );
                assert!(same(got, want), "{name} w {w} arm {arm}: {got} vs {want}");
            }
        }
    }
    // By hand: the arm turned 60° about the axis that is the twist's X in the arm's parent
    // space (its Z rest of 20° undone), so the turn is pure roll for the twist: with weight
    // 0.5 it turns 30° about X past its rest. A pure bend of the arm about its Z (an axis
    // square to the twist's X) gives the twist no roll.
    let s = scene(&[(
        3,
        ext("roll", json!({"source": 1, "rollAxis": "X", "weight": 0.5})),
    )])
    .unwrap_or_else(|e| panic!("{e}"));
    let rest_arm = s.nodes[1].local.rotation;
    let rest_twist = s.nodes[3].local.rotation;
    let rz = Quat::from_rotation_z(20f32.to_radians());
    let about_twist_x = rz.inverse() * Quat::from_rotation_x(60f32.to_radians()) * rz;
    let got = posed(&s, rest_arm * about_twist_x)
        .local(3)
        .expect("twist")
        .rotation;
    assert!(
        same(got, rest_twist * Quat::from_rotation_x(30f32.to_radians())),
        "{got}"
    );
    let got = posed(&s, rest_arm * Quat::from_rotation_z(50f32.to_radians()))
        .local(3)
        .expect("twist")
        .rotation;
    assert!(same(got, rest_twist), "a bend is no roll: {got}");
}

#[test]
fn aim_follows_the_spec_formula_and_points_its_axis_at_the_source() {
    for (axis, name) in [
        (Vec3::X, "PositiveX"),
        (Vec3::NEG_Y, "NegativeY"),
        (Vec3::Z, "PositiveZ"),
    ] {
        for w in [1.0, 0.3] {
            let s = scene(&[(
                4,
                ext("aim", json!({"source": 2, "aimAxis": name, "weight": w})),
            )])
            .unwrap_or_else(|e| panic!("{e}"));
            for arm in arm_poses() {
                let pose = posed(&s, arm);
                let got = pose.local(4).expect("aimer").rotation;
                let hips = pose.world(0).expect("hips");
                let (_, parent_rot, _) = hips.to_scale_rotation_translation();
                let src = pose.world(2).expect("hand").w_axis.truncate();
                let dst = pose.world(4).expect("aimer").w_axis.truncate();
                let want = spec_aim(axis, s.nodes[4].local.rotation, parent_rot, src, dst, w);
                assert!(same(got, want), "{name} w {w} arm {arm}: {got} vs {want}");
                if w == 1.0 {
                    // The aim axis, in the world, points at the hand.
                    let world_axis = (parent_rot * got) * axis;
                    let to = (src - dst).normalize();
                    assert!(
                        world_axis.dot(to) > 1.0 - 1e-5,
                        "{name}: {world_axis} vs {to}"
                    );
                }
            }
        }
    }
}

#[test]
fn rotation_copies_the_sources_turn_from_its_rest() {
    for w in [1.0, 0.25] {
        let s = scene(&[(5, ext("rotation", json!({"source": 1, "weight": w})))])
            .unwrap_or_else(|e| panic!("{e}"));
        for arm in arm_poses() {
            let got = posed(&s, arm).local(5).expect("copy").rotation;
            let want = spec_rotation(s.nodes[1].local.rotation, arm, s.nodes[5].local.rotation, w);
            assert!(same(got, want), "w {w} arm {arm}: {got} vs {want}");
        }
    }
    // By hand: the arm turned 40° about Z past its rest; the copy turns 40° about Z past its.
    let s = scene(&[(5, ext("rotation", json!({"source": 1})))]).unwrap_or_else(|e| panic!("{e}"));
    let arm = s.nodes[1].local.rotation * Quat::from_rotation_z(40f32.to_radians());
    let got = posed(&s, arm).local(5).expect("copy").rotation;
    let want = s.nodes[5].local.rotation * Quat::from_rotation_z(40f32.to_radians());
    assert!(same(got, want), "{got} vs {want}");
}

#[test]
fn a_chain_of_constraints_sees_the_ones_before_it_and_a_still_pose_keeps_its_version() {
    let s = scene(&[
        (3, ext("roll", json!({"source": 1, "rollAxis": "X"}))),
        (4, ext("aim", json!({"source": 5, "aimAxis": "PositiveX"}))),
        (5, ext("rotation", json!({"source": 3}))),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let arm = s.nodes[1].local.rotation * Quat::from_rotation_x(70f32.to_radians());
    let mut pose = posed(&s, arm);
    // The copy copies the twist's constrained rotation, not its rest.
    let twist = pose.local(3).expect("twist").rotation;
    let want = spec_rotation(
        s.nodes[3].local.rotation,
        twist,
        s.nodes[5].local.rotation,
        1.0,
    );
    assert!(same(pose.local(5).expect("copy").rotation, want));
    // Applied again with nothing moved: nothing is rewritten, the version stays.
    let v = pose.version();
    let mut c = NodeConstraints::new(&s);
    assert_eq!(c.apply(&s, &mut pose), 0);
    assert_eq!(pose.version(), v);
}

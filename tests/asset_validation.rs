//! Import rules and validation errors on small hand-built files.

mod support;
use serde_json::json;
use support::assert_approx;
use support::gltf_builder::{skinned_triangle, Builder};
use throng::asset::load_slice;

fn import(bytes: &[u8]) -> Result<throng::asset::SceneAsset, String> {
    load_slice("Test.gltf", bytes, None).map_err(|e| e.to_string())
}

#[test]
fn the_base_file_imports() {
    let (b, doc) = skinned_triangle();
    let s = import(&b.finish(doc)).unwrap();
    assert_eq!(s.animations[0].name, "Walk");
    assert_eq!(s.animations[0].duration, 1.0);
    assert_eq!(s.nodes[2].parent, Some(1));
}

#[test]
fn keyframe_times_not_increasing() {
    let (mut b, mut doc) = skinned_triangle();
    let t = b.f32s("SCALAR", &[0.0, 0.5, 0.5]);
    doc["animations"][0]["samplers"][0]["input"] = json!(t);
    assert_eq!(
        import(&b.finish(doc)).unwrap_err(),
        "Test.gltf: animation 0 \"Walk\" channel 0: keyframe times not increasing at key 2"
    );
}

#[test]
fn parent_cycle() {
    let (b, mut doc) = skinned_triangle();
    doc["nodes"][2]["children"] = json!([1]);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(e.starts_with("Test.gltf: ") && e.contains("cycle"), "{e}");
}

#[test]
fn node_with_two_parents() {
    let (b, mut doc) = skinned_triangle();
    doc["nodes"][0]["children"] = json!([2]);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(e.contains("node 2: has two parents"), "{e}");
}

#[test]
fn out_of_range_indices() {
    for (path, value) in [
        ("/nodes/0/mesh", 7),
        ("/skins/0/joints/1", 99),
        ("/meshes/0/primitives/0/attributes/POSITION", 50),
        ("/animations/0/channels/0/target/node", 12),
    ] {
        let (b, mut doc) = skinned_triangle();
        *doc.pointer_mut(path).unwrap() = json!(value);
        let e = import(&b.finish(doc)).unwrap_err();
        assert!(e.starts_with("Test.gltf: "), "{path}: {e}");
    }
}

#[test]
fn joint_index_beyond_skin() {
    let (mut b, mut doc) = skinned_triangle();
    let j = b.u8s("VEC4", &[0, 0, 0, 0, 5, 1, 0, 0, 1, 0, 0, 0], false);
    doc["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(j);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(
        e.contains("vertex 1 uses joint 5 but skin 0 has 2 joints"),
        "{e}"
    );
}

#[test]
fn negative_and_zero_weights() {
    let (mut b, mut doc) = skinned_triangle();
    let w = b.f32s(
        "VEC4",
        &[1.0, 0.0, 0.0, 0.0, -0.5, 1.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(
        e.contains("mesh 0 primitive 0: vertex 1: weight -0.5 is negative"),
        "{e}"
    );

    let (mut b, mut doc) = skinned_triangle();
    let w = b.f32s(
        "VEC4",
        &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(e.contains("vertex 1: skin weights sum to zero"), "{e}");
}

#[test]
fn non_finite_values() {
    let (mut b, mut doc) = skinned_triangle();
    let p = b.f32s("VEC3", &[0.0, 0.0, 0.0, f32::NAN, 0.0, 0.0, 0.0, 1.0, 0.0]);
    b.accessors[p]["min"] = json!([0.0, 0.0, 0.0]);
    b.accessors[p]["max"] = json!([1.0, 1.0, 0.0]);
    doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(p);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(e.contains("non-finite POSITION"), "{e}");

    let (mut b, mut doc) = skinned_triangle();
    let r = b.f32s(
        "VEC4",
        &[
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            f32::INFINITY,
            0.0,
            1.0,
            0.0,
            0.0,
            1.0,
            0.0,
        ],
    );
    doc["animations"][0]["samplers"][0]["output"] = json!(r);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(
        e.contains("animation 0 \"Walk\" channel 0: non-finite value at key 1"),
        "{e}"
    );
}

#[test]
fn channel_target_without_morph_targets() {
    let (mut b, mut doc) = skinned_triangle();
    let t = b.f32s("SCALAR", &[0.0, 1.0]);
    let w = b.f32s("SCALAR", &[0.0, 1.0]);
    doc["animations"][0]["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"input": t, "output": w}));
    doc["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": 1, "target": {"node": 1, "path": "weights"}}));
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(
        e.contains("channel 1: weights channel targets node 1, which has no morph targets"),
        "{e}"
    );
}

#[test]
fn morph_target_vertex_count_mismatch() {
    let (mut b, mut doc) = skinned_triangle();
    let d = b.f32s("VEC3", &[0.0, 0.1, 0.0, 0.0, 0.1, 0.0]);
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": d}]);
    let e = import(&b.finish(doc)).unwrap_err();
    assert!(
        e.contains("morph target 0: POSITION has 2 values for 3 vertices"),
        "{e}"
    );
}

#[test]
fn unsupported_required_extension() {
    let (b, mut doc) = skinned_triangle();
    doc["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    doc["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    let e = import(&b.finish(doc)).unwrap_err();
    assert_eq!(
        e,
        "Test.gltf: unsupported required extension \"KHR_draco_mesh_compression\""
    );
}

/// Eight influences with a duplicate joint: merged, the 4 largest kept, normalised.
#[test]
fn more_than_four_influences_merge_and_normalise() {
    let (mut b, mut doc) = skinned_triangle();
    doc["skins"][0]["joints"] = json!([1, 2, 1, 2, 1]);
    let ibm = b.f32s(
        "MAT4",
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]
        .repeat(5),
    );
    doc["skins"][0]["inverseBindMatrices"] = json!(ibm);
    let j0 = b.u8s("VEC4", &[0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0], false);
    let w0 = b.f32s(
        "VEC4",
        &[0.1, 0.2, 0.3, 0.15, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    let j1 = b.u8s("VEC4", &[3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], false);
    let w1 = b.f32s(
        "VEC4",
        &[0.05, 0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    );
    let attrs = &mut doc["meshes"][0]["primitives"][0]["attributes"];
    attrs["JOINTS_0"] = json!(j0);
    attrs["WEIGHTS_0"] = json!(w0);
    attrs["JOINTS_1"] = json!(j1);
    attrs["WEIGHTS_1"] = json!(w1);
    let s = import(&b.finish(doc)).unwrap();
    let mesh = &s.meshes[0];
    let p = &mesh.primitives[0];
    // Merged: slot4 .40, slot1 .35, slot2 .30, slot0 .10, slot3 .05 → drop slot3.
    let slots: Vec<u32> = (0..4)
        .map(|k| mesh.palette_joints[p.joints[0][k] as usize])
        .collect();
    assert_eq!(slots, vec![4, 1, 2, 0]);
    let sum = 0.4 + 0.35 + 0.3 + 0.1;
    let w = p.weights[0];
    for (k, expect) in [0.4, 0.35, 0.3, 0.1].iter().enumerate() {
        assert_approx!(w[k], expect / sum, 1e-6, "{w:?}");
    }
    // Slot 3 only had the dropped influence: not in the palette.
    assert_eq!(mesh.palette_joints, vec![0, 1, 2, 4]);
}

#[test]
fn sparse_and_normalized_accessors() {
    let (mut b, mut doc) = skinned_triangle();
    let pos = b.f32s("VEC3", &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    b.sparse_vec3(pos, &[1], &[2.0, 3.0, 4.0]);
    let w = b.u8s("VEC4", &[255, 0, 0, 0, 51, 204, 0, 0, 0, 255, 0, 0], true);
    let attrs = &mut doc["meshes"][0]["primitives"][0]["attributes"];
    attrs["POSITION"] = json!(pos);
    attrs["WEIGHTS_0"] = json!(w);
    let s = import(&b.finish(doc)).unwrap();
    let p = &s.meshes[0].primitives[0];
    assert_eq!(p.positions[1].to_array(), [2.0, 3.0, 4.0]);
    assert_eq!(p.positions[2].to_array(), [0.0, 1.0, 0.0]);
    // 51/255 = 0.2, 204/255 = 0.8, sorted descending.
    assert_approx!(p.weights[1].x, 0.8, 1e-6);
    assert_approx!(p.weights[1].y, 0.2, 1e-6);
}

/// The skinned mesh node's own transform is ignored (glTF rule): moving it changes nothing
/// in world space.
#[test]
fn skinned_mesh_node_transform_is_ignored() {
    use throng::tools::inspect::pose_report;
    let (b, doc) = skinned_triangle();
    let s1 = import(&b.finish(doc.clone())).unwrap();
    let mut doc2 = doc;
    doc2["nodes"][0]["translation"] = json!([5.0, 6.0, 7.0]);
    doc2["nodes"][0]["scale"] = json!([2.0, 2.0, 2.0]);
    let s2 = import(&b.finish(doc2)).unwrap();
    let r1 = pose_report(&s1, Some(0), 0.5, &[], &[]).unwrap();
    let r2 = pose_report(&s2, Some(0), 0.5, &[], &[]).unwrap();
    for (a, c) in r1.meshes[0]
        .positions_world
        .iter()
        .zip(&r2.meshes[0].positions_world)
    {
        assert_approx!(a, c, 1e-5);
    }
}

#[test]
fn empty_and_garbage_inputs_are_errors() {
    assert!(import(b"").is_err());
    assert!(import(b"{}").is_err());
    assert!(import(b"glTF\x02\x00\x00\x00").is_err());
    let _ = Builder::new();
}

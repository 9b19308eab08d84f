//! The importer's count limits (`asset::limits`): one accessor, mesh or skin named from many
//! places must not multiply what a small file makes the importer or a posed instance allocate.

mod support;
use serde_json::json;
use support::gltf_builder::{skinned_triangle, Builder};
use throng::asset::limits::{
    MAX_DECODED_BYTES, MAX_INSTANCED_JOINTS, MAX_INSTANCED_VERTICES, MAX_NODES,
};
use throng::asset::load_slice;

fn import(bytes: &[u8]) -> Result<throng::asset::SceneAsset, String> {
    load_slice("Test.gltf", bytes, None).map_err(|e| e.to_string())
}

/// A mesh of `n` vertices (a 12·n byte accessor).
fn mesh_of(b: &mut Builder, n: usize) -> usize {
    let pos: Vec<f32> = (0..n * 3).map(|i| (i % 7) as f32 * 0.1).collect();
    b.f32s("VEC3", &pos)
}

#[test]
fn morph_targets_sharing_one_accessor_cannot_decode_past_the_limit() {
    let mut b = Builder::new();
    let pos = mesh_of(&mut b, 1000);
    // Each target decodes 1000 position deltas and 1000 normal deltas: 24 KB from ~16 bytes
    // of JSON. 6000 of them are 144 MB from a 100 KB file.
    let targets: Vec<_> = (0..6000).map(|_| json!({"NORMAL": pos})).collect();
    let doc = json!({
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "targets": targets}]}],
    });
    let bytes = b.finish(doc);
    assert!(bytes.len() < 200_000, "{}", bytes.len());
    assert_eq!(
        import(&bytes).unwrap_err(),
        format!(
            "Test.gltf: its accessors would decode to 138 MiB (accessors shared by many \
             primitives, targets or channels count each time), above the limit of {} MiB",
            MAX_DECODED_BYTES >> 20
        )
    );
}

#[test]
fn nodes_instancing_one_mesh_cannot_pass_the_vertex_limit() {
    let mut b = Builder::new();
    let pos = mesh_of(&mut b, 1000);
    // 300 nodes × 1000 vertices: 300000 posed vertices from a 20 KB file.
    let nodes: Vec<_> = (0..300).map(|_| json!({"mesh": 0})).collect();
    let doc = json!({
        "scene": 0, "scenes": [{"nodes": (0..300).collect::<Vec<_>>()}], "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
    });
    assert_eq!(
        import(&b.finish(doc)).unwrap_err(),
        format!(
            "Test.gltf: its nodes instance 300000 vertices (each node counts its mesh's or \
             skin's again), above the limit of {MAX_INSTANCED_VERTICES}"
        )
    );
    // 250 nodes stay within it.
    let mut b = Builder::new();
    let pos = mesh_of(&mut b, 1000);
    let nodes: Vec<_> = (0..250).map(|_| json!({"mesh": 0})).collect();
    let doc = json!({
        "scene": 0, "scenes": [{"nodes": (0..250).collect::<Vec<_>>()}], "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
    });
    assert_eq!(import(&b.finish(doc)).unwrap().nodes.len(), 250);
}

#[test]
fn nodes_instancing_one_skin_cannot_pass_the_joint_limit() {
    let (b, mut doc) = skinned_triangle();
    // A skin of 2 joints named by 40000 skinned nodes: 80000 palette matrices.
    let mut nodes = doc["nodes"].as_array().unwrap().clone();
    for _ in 0..40_000 {
        nodes.push(json!({"mesh": 0, "skin": 0}));
    }
    doc["nodes"] = json!(nodes);
    assert_eq!(
        import(&b.finish(doc)).unwrap_err(),
        format!(
            "Test.gltf: its nodes instance 80002 skin joints (each node counts its mesh's or \
             skin's again), above the limit of {MAX_INSTANCED_JOINTS}"
        )
    );
}

#[test]
fn a_node_count_past_the_limit_is_refused() {
    let (b, mut doc) = skinned_triangle();
    // 70000 empty nodes: 140 KB of JSON.
    let mut nodes = doc["nodes"].as_array().unwrap().clone();
    nodes.extend((0..70_000).map(|_| json!({})));
    doc["nodes"] = json!(nodes);
    assert_eq!(
        import(&b.finish(doc)).unwrap_err(),
        format!("Test.gltf: it has 70003 nodes, above the limit of {MAX_NODES}")
    );
}

#[test]
fn every_bundled_and_test_model_is_well_inside_the_limits() {
    for name in support::all_models() {
        let bytes = std::fs::read(support::model_path(&name)).unwrap();
        let doc = gltf::Gltf::from_slice(&bytes).unwrap().document;
        let decoded = throng::asset::limits::decoded_bytes(&doc);
        assert!(decoded * 16 < MAX_DECODED_BYTES, "{name}: {decoded}");
        let _ = support::load(&name);
    }
}

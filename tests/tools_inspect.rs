//! `throng inspect`: summary text/JSON and the posed JSON with the reference files' keys.

mod support;
use support::model_path;
use throng::tools::inspect::{run_inspect, InspectArgs};

fn args(model: &str) -> InspectArgs {
    InspectArgs {
        model: model_path(model),
        json: false,
        pose: None,
        time: 0.0,
        morph: Vec::new(),
        expression: Vec::new(),
    }
}

#[test]
fn summary_lists_what_a_designer_needs() {
    let text = run_inspect(&args("Fox.glb")).unwrap();
    for needle in [
        "nodes:",
        "meshes:",
        "skins:",
        "clips: 3",
        "Walk",
        "Survey",
        "materials:",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    let text = run_inspect(&args("Godette_vrm_v4.vrm")).unwrap();
    assert!(
        text.contains("MToon")
            && text.contains("expression blink")
            && text.contains("morph targets")
    );
    let mut a = args("RobotExpressive.glb");
    a.json = true;
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    assert_eq!(v["clips"].as_array().unwrap().len(), 14);
    assert_eq!(
        v["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| !m["morph_targets"].as_array().unwrap().is_empty())
            .count(),
        1
    );
}

#[test]
fn posed_json_has_reference_keys_and_all_vertices() {
    let mut a = args("Fox.glb");
    a.json = true;
    a.pose = Some("Walk".into());
    a.time = 0.35;
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    let m = &v["meshes"][0];
    for k in [
        "node",
        "mesh",
        "primitive",
        "vertex_count",
        "morph_weights",
        "positions_world",
        "positions_local",
    ] {
        assert!(!m[k].is_null(), "key {k}");
    }
    assert_eq!(m["positions_world"].as_array().unwrap().len(), 1728 * 3);
    let j = &v["skins"][0]["joints"][0];
    for k in ["node", "world_matrix", "joint_matrix"] {
        assert!(!j[k].is_null(), "key {k}");
    }
}

#[test]
fn morph_and_expression_flags() {
    let mut a = args("MorphPrimitivesTest.glb");
    a.json = true;
    a.pose = Some("none".into());
    a.morph = vec!["1=1".into()];
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    assert_eq!(v["meshes"][0]["morph_weights"][0], 1.0);
    let mut a = args("Godette_vrm_v4.vrm");
    a.json = true;
    a.expression = vec!["blink=1".into()];
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    assert_eq!(v["meshes"][0]["morph_weights"][3], 1.0);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let mut a = args("Fox.glb");
    a.pose = Some("Dance".into());
    assert_eq!(run_inspect(&a).unwrap_err(), "Fox.glb: no clip \"Dance\"");
    let mut a = args("Fox.glb");
    a.morph = vec!["nosuchnode=1".into()];
    assert!(run_inspect(&a).unwrap_err().contains("no node"));
    let mut a = args("Fox.glb");
    a.expression = vec!["blink=1".into()];
    assert!(run_inspect(&a).unwrap_err().contains("no VRM expression"));
    let mut a = args("Fox.glb");
    a.model = "does/not/exist.glb".into();
    assert!(run_inspect(&a).unwrap_err().starts_with("exist.glb: read:"));
}

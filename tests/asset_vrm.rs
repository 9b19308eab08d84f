//! VRM 1.0 (`VRMC_vrm`, `VRMC_materials_mtoon`) on a hand-built file; VRM 0.x is covered by
//! Godette in the reference tests.

mod support;
use serde_json::json;
use support::assert_approx;
use support::gltf_builder::skinned_triangle;
use throng::anim::MorphStateSet;
use throng::asset::{load_slice, OutlineWidthMode};

#[test]
fn vrm1_humanoid_expressions_and_mtoon() {
    let (mut b, mut doc) = skinned_triangle();
    let d = b.f32s("VEC3", &[0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0]);
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": d}]);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc["meshes"][0]["extras"] = json!({"targetNames": ["Fcl_EYE_Close"]});
    doc["materials"] = json!([{"name": "Skin", "extensions": {"VRMC_materials_mtoon": {
        "specVersion": "1.0", "shadeColorFactor": [0.5, 0.4, 0.3], "shadingToonyFactor": 0.8,
        "outlineWidthMode": "worldCoordinates", "outlineWidthFactor": 0.01}}}]);
    doc["extensionsUsed"] = json!(["VRMC_vrm", "VRMC_materials_mtoon"]);
    doc["extensions"] = json!({"VRMC_vrm": {
        "specVersion": "1.0",
        "meta": {"name": "Tri", "authors": ["someone"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
        "humanoid": {"humanBones": {"hips": {"node": 1}, "spine": {"node": 2}}},
        "expressions": {
            "preset": {"blink": {"morphTargetBinds": [{"node": 0, "index": 0, "weight": 1.0}], "isBinary": false}},
            "custom": {"wink": {"morphTargetBinds": [{"node": 0, "index": 0, "weight": 0.5}], "isBinary": true}}
        }
    }});
    let s = load_slice("Tri.vrm", &b.finish(doc.clone()), None).unwrap();
    let vrm = s.vrm.as_ref().unwrap();
    assert_eq!(vrm.spec_major, 1);
    assert_eq!(vrm.humanoid["hips"], 1);
    assert_eq!(s.meshes[0].morph_target_names, vec!["Fcl_EYE_Close"]);
    let mt = s.materials[0].mtoon.as_ref().unwrap();
    assert_eq!(mt.outline_width_mode, OutlineWidthMode::WorldCoordinates);
    assert_eq!(mt.shading_toony, 0.8);
    let mut m = MorphStateSet::new(&s);
    assert!(
        m.apply_expression(&s, "wink", 0.4),
        "binary: 0.4 rounds to 0"
    );
    assert_eq!(m.get(0).unwrap().weights()[0], 0.0);
    m.apply_expression(&s, "blink", 0.7);
    assert_approx!(m.get(0).unwrap().weights()[0], 0.7, 1e-6);

    doc["extensions"]["VRMC_vrm"]["expressions"]["preset"]["blink"]["morphTargetBinds"][0]
        ["index"] = json!(4);
    let e = load_slice("Tri.vrm", &b.finish(doc), None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "Tri.vrm: VRMC_vrm expression \"blink\": morph target 4 out of range"
    );
}

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

/// The names the hero's morph sliders (F6) show: `Expressions::new` makes one slider per
/// distinct target name.
fn slider_names(s: &throng::asset::SceneAsset) -> Vec<String> {
    throng::hero::expressions::Expressions::new(s, 1)
        .targets
        .iter()
        .map(|g| g.slider.name.clone())
        .collect()
}

#[test]
fn godettes_morph_sliders_are_named_from_its_primitive_extras() {
    // Blender's VRM exporter (like UniVRM) writes `targetNames` on the primitive, not the mesh.
    let s = support::load("Godette_vrm_v4.vrm");
    let names = slider_names(&s);
    assert_eq!(
        names,
        [
            "HideHairBalls",
            "HdieEarRings",
            "HideBlush",
            "blink_left",
            "blink_right",
            "ah",
            "ih",
            "uu",
            "ee",
            "oh",
            "look_up",
            "look_down",
            "look_left",
            "look_right",
            "angled_eyebrows"
        ]
    );
    assert_eq!(
        s.meshes[0].primitives[0].morph_targets[3].name,
        "blink_left"
    );
}

/// A triangle with three morph targets and `extras` as given, plus VRM 1.0 expressions.
fn three_targets(
    mesh_extras: Option<serde_json::Value>,
    prim_extras: Option<serde_json::Value>,
    expressions: serde_json::Value,
) -> throng::asset::SceneAsset {
    let (mut b, mut doc) = skinned_triangle();
    let d = b.f32s("VEC3", &[0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0]);
    doc["meshes"][0]["primitives"][0]["targets"] =
        json!([{"POSITION": d}, {"POSITION": d}, {"POSITION": d}]);
    if let Some(e) = mesh_extras {
        doc["meshes"][0]["extras"] = e;
    }
    if let Some(e) = prim_extras {
        doc["meshes"][0]["primitives"][0]["extras"] = e;
    }
    doc["extensionsUsed"] = json!(["VRMC_vrm"]);
    doc["extensions"] = json!({"VRMC_vrm": {
        "specVersion": "1.0",
        "meta": {"name": "Tri"},
        "humanoid": {"humanBones": {"hips": {"node": 1}}},
        "expressions": expressions
    }});
    load_slice("Tri.vrm", &b.finish(doc), None).unwrap()
}

#[test]
fn morph_targets_are_named_from_extras_then_expressions_then_target_n() {
    let bind = |index: usize, weight: f32| json!({"node": 0, "index": index, "weight": weight});
    // Target 0 alone drives `blink`; `happy` drives 1 and 2 together, so it names neither.
    let expressions = json!({
        "preset": {
            "blink": {"morphTargetBinds": [bind(0, 1.0)]},
            "happy": {"morphTargetBinds": [bind(1, 1.0), bind(2, 0.5)]}
        },
        "custom": {"wink": {"morphTargetBinds": [bind(0, 0.5)]}}
    });
    let s = three_targets(None, None, expressions.clone());
    assert_eq!(
        s.meshes[0].morph_target_names,
        ["blink", "target_1", "target_2"]
    );
    assert_eq!(slider_names(&s), ["blink", "target_1", "target_2"]);
    // The file's own names win, on the mesh or (failing that) on the primitive; an entry that
    // is not a string leaves its target to the expressions.
    let s = three_targets(
        Some(json!({"targetNames": ["Close", 7, "Smile"]})),
        Some(json!({"targetNames": ["a", "b", "c"]})),
        expressions.clone(),
    );
    assert_eq!(
        s.meshes[0].morph_target_names,
        ["Close", "target_1", "Smile"]
    );
    let s = three_targets(None, Some(json!({"targetNames": ["a", "b"]})), expressions);
    assert_eq!(s.meshes[0].morph_target_names, ["a", "b", "target_2"]);
    assert_eq!(s.meshes[0].primitives[0].morph_targets[1].name, "b");
}

/// Godette's samplers as the file states them: the palette linear without mipmaps, the badge
/// textures nearest without mipmaps; its 0.x outline keeps `_OutlineScaledMaxDistance`.
#[test]
fn godettes_samplers_and_outline_distance_are_read() {
    use throng::asset::{Filter, TextureFilter};
    let scene =
        throng::asset::load_file(&support::project_root().join("assets/hero/Godette_vrm_v4.vrm"))
            .expect("Godette loads");
    let linear = TextureFilter {
        mag: Filter::Linear,
        min: Filter::Linear,
        mipmap: None,
    };
    let nearest = TextureFilter {
        mag: Filter::Nearest,
        min: Filter::Nearest,
        mipmap: None,
    };
    let filters: Vec<TextureFilter> = scene.textures.iter().map(|t| t.filter).collect();
    assert_eq!(filters, vec![linear, nearest, nearest, nearest, linear]);
    let body = scene
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some("Body"))
        .expect("Body material");
    assert_eq!(body.base_color_transform, Default::default());
    let mtoon = body.mtoon.as_ref().expect("MToon");
    assert!(mtoon.from_vrm0);
    assert_eq!(
        mtoon.outline_width_mode,
        OutlineWidthMode::ScreenCoordinates
    );
    assert_approx!(mtoon.outline_width, 0.005, 1e-7);
    assert_approx!(mtoon.outline_scaled_max_distance, 2.0, 1e-7);
}

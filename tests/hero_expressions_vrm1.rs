//! VRM 1.0 expressions on hand-built files: each override mode (none / block / blend) for blink,
//! look-at and mouth, `isBinary`, the composition three-vrm uses (override amounts add up and
//! what is left of 1 multiplies the overridden expressions), material colour and texture
//! transform binds reaching the hero's material looks, and VRM 0.x `materialValues`.

mod support;

use glam::{Vec2, Vec4};
use serde_json::{json, Value};
use support::assert_approx;
use support::gltf_builder::skinned_triangle;
use support::project_root;
use throng::anim::MorphStateSet;
use throng::asset::{load_slice, ExpressionOverride, MaterialColorType, SceneAsset};
use throng::hero::expressions::Expressions;
use throng::hero::Hero;
use throng::level::load_level;

/// Morph targets, one per expression that binds it.
const TARGETS: [&str; 8] = [
    "blink", "lookLeft", "aa", "happy", "angry", "sad", "relaxed", "wink",
];

fn bind(i: usize) -> Value {
    json!([{"node": 0, "index": i, "weight": 1.0}])
}

/// A triangle with the eight targets and a MToon material, and VRM 1.0 expressions: happy
/// blocks the blink, angry blends the mouth, sad blends the look-at, relaxed blends the
/// blink, wink is binary; `tweak` changes the document before it is built.
fn scene(tweak: impl FnOnce(&mut Value)) -> SceneAsset {
    let (mut b, mut doc) = skinned_triangle();
    let d = b.f32s("VEC3", &[0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0]);
    doc["meshes"][0]["primitives"][0]["targets"] = json!(vec![json!({"POSITION": d}); 8]);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc["meshes"][0]["extras"] = json!({"targetNames": TARGETS});
    doc["materials"] = json!([{"name": "Skin",
        "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.6, 0.4, 1.0]},
        "extensions": {"VRMC_materials_mtoon": {"specVersion": "1.0",
            "shadeColorFactor": [0.5, 0.4, 0.3]}}}]);
    doc["extensionsUsed"] = json!(["VRMC_vrm", "VRMC_materials_mtoon"]);
    doc["extensions"] = json!({"VRMC_vrm": {
        "specVersion": "1.0",
        "meta": {"name": "Face"},
        "humanoid": {"humanBones": {"hips": {"node": 1}}},
        "expressions": {"preset": {
            "blink": {"morphTargetBinds": bind(0)},
            "lookLeft": {"morphTargetBinds": bind(1)},
            "aa": {"morphTargetBinds": bind(2)},
            "happy": {"morphTargetBinds": bind(3), "overrideBlink": "block"},
            "angry": {"morphTargetBinds": bind(4), "overrideMouth": "blend",
                "materialColorBinds": [
                    {"material": 0, "type": "color", "targetValue": [1.0, 0.0, 0.0, 0.5]},
                    {"material": 0, "type": "emissionColor", "targetValue": [0.0, 1.0, 0.0, 1.0]},
                    {"material": 0, "type": "shadeColor", "targetValue": [0.1, 0.1, 0.9, 1.0]}],
                "textureTransformBinds": [
                    {"material": 0, "scale": [2.0, 3.0], "offset": [0.5, -0.25]}]},
            "sad": {"morphTargetBinds": bind(5), "overrideLookAt": "blend"},
            "relaxed": {"morphTargetBinds": bind(6), "overrideBlink": "blend",
                "overrideLookAt": "none", "overrideMouth": "none"}
        }, "custom": {
            "wink": {"morphTargetBinds": bind(7), "isBinary": true, "overrideMouth": "block"}
        }}
    }});
    tweak(&mut doc);
    load_slice("Face.vrm", &b.finish(doc), None).unwrap_or_else(|e| panic!("{e}"))
}

/// Morph weights after setting `values` (expression name, slider) and `look` (lookLeft,
/// lookRight, lookUp, lookDown from look-at), blinking off.
fn weights(s: &SceneAsset, values: &[(&str, f32)], look: [f32; 4]) -> Vec<f32> {
    let mut e = Expressions::new(s, 1);
    e.auto_blink = false;
    for (name, v) in values {
        assert!(e.set_expression(name, *v), "{name}");
    }
    e.look_weights = look;
    let mut m = MorphStateSet::new(s);
    e.apply(0.0, s, &mut m);
    m.get(0).unwrap().weights().to_vec()
}

fn w(s: &SceneAsset, values: &[(&str, f32)], target: &str) -> f32 {
    weights(s, values, [0.0; 4])[TARGETS.iter().position(|t| *t == target).unwrap()]
}

#[test]
fn override_modes_are_read() {
    let s = scene(|_| {});
    let vrm = s.vrm.as_ref().unwrap();
    let e = |n: &str| vrm.expression(n).unwrap();
    use ExpressionOverride::*;
    let modes = |n: &str| {
        let x = e(n);
        (x.override_blink, x.override_look_at, x.override_mouth)
    };
    assert_eq!(modes("blink"), (None, None, None), "absent: none");
    assert_eq!(modes("happy"), (Block, None, None));
    assert_eq!(modes("angry"), (None, None, Blend));
    assert_eq!(modes("sad"), (None, Blend, None));
    assert_eq!(modes("relaxed"), (Blend, None, None), "explicit none");
    assert_eq!(modes("wink"), (None, None, Block));
    assert!(e("wink").is_binary && !e("wink").is_preset);
    let a = e("angry");
    assert_eq!(a.material_color_binds.len(), 3);
    assert_eq!(
        a.material_color_binds[1].kind,
        MaterialColorType::EmissionColor
    );
    assert_eq!(
        a.material_color_binds[0].target,
        Vec4::new(1.0, 0.0, 0.0, 0.5)
    );
    assert_eq!(a.texture_transform_binds[0].scale, Vec2::new(2.0, 3.0));
    assert_eq!(a.texture_transform_binds[0].offset, Vec2::new(0.5, -0.25));
}

#[test]
fn none_leaves_the_overridable_expressions_alone() {
    let s = scene(|_| {});
    // relaxed says none for the mouth and look-at: aa and lookLeft stay whole.
    let v = weights(&s, &[("relaxed", 1.0), ("aa", 0.8)], [0.6, 0.0, 0.0, 0.0]);
    assert_approx!(v[2], 0.8, 1e-6);
    assert_approx!(v[1], 0.6, 1e-6);
    assert_approx!(v[6], 1.0, 1e-6);
    // Nothing overriding: the blink shows as set.
    assert_approx!(w(&s, &[("blink", 0.7)], "blink"), 0.7, 1e-6);
}

#[test]
fn block_holds_back_fully_at_any_weight() {
    let s = scene(|_| {});
    for happy in [0.01, 0.5, 1.0] {
        let v = weights(&s, &[("blink", 1.0), ("happy", happy)], [0.0; 4]);
        assert_eq!(v[0], 0.0, "happy at {happy} blocks the blink");
        assert_approx!(v[3], happy, 1e-6, "happy itself shows");
    }
    assert_eq!(w(&s, &[("blink", 1.0), ("happy", 0.0)], "blink"), 1.0);
    // Block on a binary expression counts its rounded weight: 0.4 is off, so no block.
    assert_approx!(w(&s, &[("aa", 0.9), ("wink", 0.4)], "aa"), 0.9, 1e-6);
    assert_eq!(w(&s, &[("aa", 0.9), ("wink", 0.6)], "aa"), 0.0);
}

#[test]
fn blend_holds_back_by_its_weight_for_mouth_look_at_and_blink() {
    let s = scene(|_| {});
    // Mouth: aa 0.8 under angry 0.3 → 0.8 · (1 - 0.3).
    assert_approx!(w(&s, &[("aa", 0.8), ("angry", 0.3)], "aa"), 0.56, 1e-6);
    // Look-at: lookLeft from look-at (1.0) under sad 0.25 → 0.75.
    let v = weights(&s, &[("sad", 0.25)], [1.0, 0.0, 0.0, 0.0]);
    assert_approx!(v[1], 0.75, 1e-6);
    // Blink: under relaxed 0.4 → 0.6 of the slider.
    assert_approx!(
        w(&s, &[("blink", 0.5), ("relaxed", 0.4)], "blink"),
        0.3,
        1e-6
    );
}

#[test]
fn override_amounts_add_up_and_the_rest_multiplies() {
    // Two blend overrides of the blink: 1 - (0.3 + 0.5) of it is left...
    let s = scene(|d| {
        d["extensions"]["VRMC_vrm"]["expressions"]["preset"]["sad"]["overrideBlink"] =
            json!("blend");
    });
    let v = w(
        &s,
        &[("blink", 1.0), ("relaxed", 0.3), ("sad", 0.5)],
        "blink",
    );
    assert_approx!(v, 0.2, 1e-6);
    // ... and never less than nothing.
    assert_eq!(
        w(
            &s,
            &[("blink", 1.0), ("relaxed", 0.7), ("sad", 0.6)],
            "blink"
        ),
        0.0
    );
    // Block and blend together: the block alone already takes it all.
    assert_eq!(
        w(
            &s,
            &[("blink", 1.0), ("relaxed", 0.1), ("happy", 0.2)],
            "blink"
        ),
        0.0
    );
    // The overriding expressions keep their own weights.
    let all = weights(
        &s,
        &[("blink", 1.0), ("relaxed", 0.3), ("sad", 0.5)],
        [0.0; 4],
    );
    assert_approx!(all[6], 0.3, 1e-6);
    assert_approx!(all[5], 0.5, 1e-6);
    // The multipliers are reported for the panel.
    let mut e = Expressions::new(&s, 1);
    e.auto_blink = false;
    e.set_expression("relaxed", 0.3);
    e.set_expression("sad", 0.5);
    e.set_expression("angry", 0.25);
    e.apply(0.0, &s, &mut MorphStateSet::new(&s));
    let m = e.multipliers;
    assert_approx!(m[0], 0.2, 1e-6);
    assert_approx!(m[1], 0.5, 1e-6);
    assert_approx!(m[2], 0.75, 1e-6);
}

#[test]
fn binary_expressions_round_and_switch_off_when_held_back_partly() {
    let s = scene(|d| {
        // A binary blink, held back by relaxed's blend.
        d["extensions"]["VRMC_vrm"]["expressions"]["preset"]["blink"]["isBinary"] = json!(true);
    });
    assert_eq!(
        w(&s, &[("wink", 0.5)], "wink"),
        0.0,
        "0.5 is not above one half"
    );
    assert_eq!(w(&s, &[("wink", 0.51)], "wink"), 1.0);
    assert_eq!(w(&s, &[("blink", 0.6)], "blink"), 1.0);
    // Held back to 0.7 of full: a binary expression is on or off, so off.
    assert_eq!(w(&s, &[("blink", 0.6), ("relaxed", 0.3)], "blink"), 0.0);
}

#[test]
fn material_colour_and_texture_binds_reach_the_hero_materials() {
    let s = scene(|_| {});
    let level = load_level(
        &project_root().join("tests/fixtures/levels/hero_lab.ron"),
        &project_root(),
    )
    .unwrap();
    let mut h = Hero::new(s, &level.hero, &level);
    h.expressions.auto_blink = false;
    h.update(0.0);
    let base = h.material_looks[0];
    assert_approx!(base.lit_color, Vec4::new(0.8, 0.6, 0.4, 1.0), 1e-6);
    assert_eq!(base.uv_scale, Vec2::ONE);
    h.expressions.set_expression("angry", 0.5);
    h.update(0.0);
    let l = h.material_looks[0];
    // base + (target - base) · weight, alpha too for `color`.
    assert_approx!(l.lit_color, Vec4::new(0.9, 0.3, 0.2, 0.75), 1e-6);
    assert_approx!(l.emissive, glam::Vec3::new(0.0, 0.5, 0.0), 1e-6);
    assert_approx!(l.shade_color, glam::Vec3::new(0.3, 0.25, 0.6), 1e-6);
    assert_approx!(l.uv_scale, Vec2::new(1.5, 2.0), 1e-6);
    assert_approx!(l.uv_offset, Vec2::new(0.25, -0.125), 1e-6);
    assert_eq!(l.rim_color, base.rim_color, "unbound colours stay");
    // Off again: the material's own values.
    h.expressions.set_expression("angry", 0.0);
    h.update(0.0);
    assert_eq!(h.material_looks[0], base);
}

#[test]
fn bad_expression_settings_are_refused_with_the_place_named() {
    let (b, doc) = skinned_triangle();
    let mut doc = doc;
    doc["materials"] = json!([{"name": "Skin"}]);
    doc["extensionsUsed"] = json!(["VRMC_vrm"]);
    let with = |doc: &mut Value, e: Value| {
        doc["extensions"] = json!({"VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "F"},
            "humanoid": {"humanBones": {"hips": {"node": 1}}},
            "expressions": {"preset": {"happy": e}}}});
        load_slice("F.vrm", &b.finish(doc.clone()), None)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        with(&mut doc, json!({"overrideBlink": "maybe"})),
        "F.vrm: VRMC_vrm expression \"happy\".overrideBlink: \"maybe\"; allowed: \"none\", \"block\", \"blend\""
    );
    assert_eq!(
        with(&mut doc, json!({"materialColorBinds": [{"material": 3, "type": "color", "targetValue": [1, 1, 1, 1]}]})),
        "F.vrm: VRMC_vrm expression \"happy\".materialColorBinds[0]: material 3 out of range (1 materials)"
    );
    assert_eq!(
        with(&mut doc, json!({"materialColorBinds": [{"material": 0, "type": "glow", "targetValue": [1, 1, 1, 1]}]})),
        "F.vrm: VRMC_vrm expression \"happy\".materialColorBinds[0].type: Some(\"glow\"); allowed: \"color\", \"emissionColor\", \"shadeColor\", \"matcapColor\", \"rimColor\", \"outlineColor\""
    );
    assert_eq!(
        with(&mut doc, json!({"textureTransformBinds": [{"material": 0, "scale": [1]}]})),
        "F.vrm: VRMC_vrm expression \"happy\".textureTransformBinds[0].scale: must be 2 finite numbers"
    );
}

#[test]
fn vrm0_material_values_map_to_colour_and_texture_binds() {
    let (mut b, mut doc) = skinned_triangle();
    let d = b.f32s("VEC3", &[0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0]);
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": d}]);
    doc["materials"] = json!([{"name": "Body"}, {"name": "Face"}]);
    doc["extensionsUsed"] = json!(["VRM"]);
    doc["extensions"] = json!({"VRM": {
        "humanoid": {"humanBones": [{"bone": "hips", "node": 1}]},
        "blendShapeMaster": {"blendShapeGroups": [{"name": "Joy", "presetName": "joy",
            "binds": [{"mesh": 0, "index": 0, "weight": 100}],
            "materialValues": [
                {"materialName": "Face", "propertyName": "_Color", "targetValue": [0.5, 1.0, 0.0, 0.8]},
                {"materialName": "Face", "propertyName": "_RimColor", "targetValue": [1.0, 0.5, 0.0, 1.0]},
                {"materialName": "Body", "propertyName": "_MainTex_ST", "targetValue": [2.0, 0.5, 0.1, 0.25]},
                {"materialName": "Body", "propertyName": "_OutlineWidth", "targetValue": [3.0, 0.0, 0.0, 0.0]},
                {"materialName": "Nobody", "propertyName": "_Color", "targetValue": [0.0, 0.0, 0.0, 1.0]}
            ]}]}
    }});
    let s = load_slice("F.vrm", &b.finish(doc), None).unwrap_or_else(|e| panic!("{e}"));
    let e = s.vrm.as_ref().unwrap().expression("happy").unwrap();
    assert_eq!(
        e.override_blink,
        ExpressionOverride::None,
        "VRM 0.x has no overrides"
    );
    let c = &e.material_color_binds;
    assert_eq!(
        c.len(),
        2,
        "unknown properties and materials are left out: {c:?}"
    );
    assert_eq!((c[0].material, c[0].kind), (1, MaterialColorType::Color));
    // Gamma colours made linear (alpha stays).
    assert_approx!(
        c[0].target,
        Vec4::new(0.5f32.powf(2.2), 1.0, 0.0, 0.8),
        1e-6
    );
    assert_eq!(c[1].kind, MaterialColorType::RimColor);
    let t = &e.texture_transform_binds;
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].material, 0);
    assert_eq!(t[0].scale, Vec2::new(2.0, 0.5));
    // Unity's v runs up: offset_v = 1 - scale_v - w.
    assert_approx!(t[0].offset, Vec2::new(0.1, 0.25), 1e-6);
}

//! VRM 0.x (`extensions.VRM`) and VRM 1.0 (`VRMC_vrm`): humanoid map, expressions, and VRM 0.x
//! MToon `materialProperties` converted to 1.0 terms the way three-vrm does.

use super::error::ImportError;
use super::material::{f, v3};
use super::types::*;
use glam::Vec3;
use serde_json::Value;
use std::collections::BTreeMap;

pub fn read_vrm(
    file: &str,
    doc: &gltf::Document,
    nodes: &[NodeAsset],
    meshes: &[MeshAsset],
    materials: &mut [MaterialAsset],
) -> Result<Option<VrmAsset>, ImportError> {
    let Some(ext) = doc.extensions() else {
        return Ok(None);
    };
    if let Some(v1) = ext.get("VRMC_vrm") {
        return read_v1(file, v1, nodes, meshes).map(Some);
    }
    if let Some(v0) = ext.get("VRM") {
        return read_v0(file, v0, nodes, meshes, materials).map(Some);
    }
    Ok(None)
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn node_ok(
    file: &str,
    what: &str,
    n: Option<u64>,
    nodes: &[NodeAsset],
) -> Result<Option<usize>, ImportError> {
    match n {
        None => Ok(None),
        Some(n) if (n as usize) < nodes.len() => Ok(Some(n as usize)),
        Some(n) => Err(ImportError::new(
            file,
            format!("{what}: node {n} out of range"),
        )),
    }
}

/// VRM 0.x blend shape preset → VRM 1.0 expression name.
fn v0_preset(p: &str) -> Option<&'static str> {
    Some(match p.to_ascii_lowercase().as_str() {
        "neutral" => "neutral",
        "a" => "aa",
        "i" => "ih",
        "u" => "ou",
        "e" => "ee",
        "o" => "oh",
        "blink" => "blink",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        _ => return None,
    })
}

/// Morph binds name a mesh; they act on every node that instances it.
#[allow(clippy::too_many_arguments)] // flat lookup context; a struct would only rename it
fn binds_for_mesh(
    file: &str,
    what: &str,
    mesh: usize,
    target: usize,
    weight: f32,
    nodes: &[NodeAsset],
    meshes: &[MeshAsset],
    out: &mut Vec<MorphBind>,
) -> Result<(), ImportError> {
    let Some(m) = meshes.get(mesh) else {
        return Err(ImportError::new(
            file,
            format!("{what}: mesh {mesh} out of range"),
        ));
    };
    if target >= m.morph_target_names.len() {
        return Err(ImportError::new(
            file,
            format!("{what}: morph target {target} out of range for mesh {mesh}"),
        ));
    }
    for (ni, n) in nodes.iter().enumerate() {
        if n.mesh == Some(mesh) {
            out.push(MorphBind {
                node: ni,
                mesh,
                target,
                weight: weight.clamp(0.0, 1.0),
            });
        }
    }
    Ok(())
}

fn read_v0(
    file: &str,
    v: &Value,
    nodes: &[NodeAsset],
    meshes: &[MeshAsset],
    materials: &mut [MaterialAsset],
) -> Result<VrmAsset, ImportError> {
    let meta = v.get("meta").cloned().unwrap_or(Value::Null);
    let mut humanoid = BTreeMap::new();
    if let Some(bones) = v.pointer("/humanoid/humanBones").and_then(Value::as_array) {
        for b in bones {
            if let (Some(name), n) = (s(b, "bone"), b.get("node").and_then(Value::as_u64)) {
                if let Some(n) = node_ok(file, &format!("VRM humanoid bone \"{name}\""), n, nodes)?
                {
                    humanoid.insert(name, n);
                }
            }
        }
    }
    let mut expressions = Vec::new();
    if let Some(groups) = v
        .pointer("/blendShapeMaster/blendShapeGroups")
        .and_then(Value::as_array)
    {
        for (gi, g) in groups.iter().enumerate() {
            let preset = s(g, "presetName").unwrap_or_default();
            let mapped = v0_preset(&preset).filter(|_| preset != "unknown");
            let name = mapped
                .map(str::to_string)
                .or_else(|| s(g, "name"))
                .unwrap_or_else(|| format!("expression_{gi}"));
            let what = format!("VRM blendShapeGroup {gi} \"{name}\"");
            let mut binds = Vec::new();
            for b in g
                .get("binds")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let mesh = b.get("mesh").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                let target = b.get("index").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                // VRM 0.x weights are percentages.
                let w = f(b, "weight", 100.0) / 100.0;
                binds_for_mesh(file, &what, mesh, target, w, nodes, meshes, &mut binds)?;
            }
            expressions.push(ExpressionAsset {
                name,
                is_preset: mapped.is_some(),
                is_binary: g.get("isBinary").and_then(Value::as_bool).unwrap_or(false),
                binds,
            });
        }
    }
    if let Some(props) = v.get("materialProperties").and_then(Value::as_array) {
        for p in props {
            if s(p, "shader").as_deref() != Some("VRM/MToon") {
                continue;
            }
            let Some(name) = s(p, "name") else { continue };
            if let Some(m) = materials
                .iter_mut()
                .find(|m| m.name.as_deref() == Some(&name))
            {
                m.mtoon = Some(mtoon_v0(p));
            }
        }
    }
    Ok(VrmAsset {
        spec_major: 0,
        title: s(&meta, "title"),
        author: s(&meta, "author"),
        license: s(&meta, "licenseName"),
        humanoid,
        expressions,
    })
}

/// VRM 0.x colours are gamma-space; three-vrm linearises them with a plain 2.2 power, and we
/// match it so both engines shade the same.
fn srgb_to_linear(c: Vec3) -> Vec3 {
    let t = |x: f32| x.max(0.0).powf(2.2);
    Vec3::new(t(c.x), t(c.y), t(c.z))
}

/// three-vrm's VRM 0.x → 1.0 MToon conversion (VRMMaterialsV0CompatPlugin).
fn mtoon_v0(p: &Value) -> MToonAsset {
    let fp = p.get("floatProperties").cloned().unwrap_or(Value::Null);
    let vp = p.get("vectorProperties").cloned().unwrap_or(Value::Null);
    let tp = p.get("textureProperties").cloned().unwrap_or(Value::Null);
    let toony = f(&fp, "_ShadeToony", 0.9);
    let shift = f(&fp, "_ShadeShift", 0.0);
    let shading_toony = toony + (1.0 - toony) * (0.5 + 0.5 * shift);
    let shading_shift = -shift - (1.0 - shading_toony);
    let mode = f(&fp, "_OutlineWidthMode", 0.0) as i32;
    let color_mode = f(&fp, "_OutlineColorMode", 0.0) as i32;
    let tex = |k: &str| tp.get(k).and_then(Value::as_u64).map(|i| i as usize);
    MToonAsset {
        shade_color: srgb_to_linear(v3(&vp, "_ShadeColor", Vec3::splat(0.97))),
        shade_texture: tex("_ShadeTexture"),
        shading_shift,
        shading_toony,
        gi_equalization: 1.0 - f(&fp, "_IndirectLightIntensity", 0.1),
        matcap_factor: Vec3::ONE,
        matcap_texture: tex("_SphereAdd"),
        rim_color: srgb_to_linear(v3(&vp, "_RimColor", Vec3::ZERO)),
        rim_lighting_mix: f(&fp, "_RimLightingMix", 0.0),
        rim_fresnel_power: f(&fp, "_RimFresnelPower", 1.0),
        rim_lift: f(&fp, "_RimLift", 0.0),
        outline_width_mode: match mode {
            1 => OutlineWidthMode::WorldCoordinates,
            2 => OutlineWidthMode::ScreenCoordinates,
            _ => OutlineWidthMode::None,
        },
        outline_width: f(&fp, "_OutlineWidth", 0.0) * 0.01,
        outline_color: srgb_to_linear(v3(&vp, "_OutlineColor", Vec3::ZERO)),
        outline_lighting_mix: if color_mode == 1 {
            f(&fp, "_OutlineLightingMix", 1.0)
        } else {
            0.0
        },
        uv_scroll_x: f(&fp, "_UvAnimScrollX", 0.0),
        uv_scroll_y: -f(&fp, "_UvAnimScrollY", 0.0),
        uv_rotation: f(&fp, "_UvAnimRotation", 0.0),
        from_vrm0: true,
    }
}

fn read_v1(
    file: &str,
    v: &Value,
    nodes: &[NodeAsset],
    meshes: &[MeshAsset],
) -> Result<VrmAsset, ImportError> {
    let meta = v.get("meta").cloned().unwrap_or(Value::Null);
    let mut humanoid = BTreeMap::new();
    if let Some(bones) = v.pointer("/humanoid/humanBones").and_then(Value::as_object) {
        for (name, b) in bones {
            let n = b.get("node").and_then(Value::as_u64);
            if let Some(n) = node_ok(
                file,
                &format!("VRMC_vrm humanoid bone \"{name}\""),
                n,
                nodes,
            )? {
                humanoid.insert(name.clone(), n);
            }
        }
    }
    let mut expressions = Vec::new();
    for (group, is_preset) in [("preset", true), ("custom", false)] {
        let Some(map) = v
            .pointer(&format!("/expressions/{group}"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (name, e) in map {
            let what = format!("VRMC_vrm expression \"{name}\"");
            let mut binds = Vec::new();
            for b in e
                .get("morphTargetBinds")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let node = b.get("node").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                let target = b.get("index").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                let Some(mesh) = nodes.get(node).and_then(|n| n.mesh) else {
                    return Err(ImportError::new(
                        file,
                        format!("{what}: node {node} has no mesh"),
                    ));
                };
                let tc = meshes
                    .get(mesh)
                    .map(|m| m.morph_target_names.len())
                    .unwrap_or(0);
                if target >= tc {
                    return Err(ImportError::new(
                        file,
                        format!("{what}: morph target {target} out of range"),
                    ));
                }
                binds.push(MorphBind {
                    node,
                    mesh,
                    target,
                    weight: f(b, "weight", 1.0).clamp(0.0, 1.0),
                });
            }
            expressions.push(ExpressionAsset {
                name: name.clone(),
                is_preset,
                is_binary: e.get("isBinary").and_then(Value::as_bool).unwrap_or(false),
                binds,
            });
        }
    }
    Ok(VrmAsset {
        spec_major: 1,
        title: s(&meta, "name"),
        author: meta
            .get("authors")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .map(str::to_string),
        license: s(&meta, "licenseUrl"),
        humanoid,
        expressions,
    })
}

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
    let mut vrm = if let Some(v1) = ext.get("VRMC_vrm") {
        read_v1(file, v1, nodes, meshes, materials.len())?
    } else if let Some(v0) = ext.get("VRM") {
        read_v0(file, v0, nodes, meshes, materials)?
    } else {
        return Ok(None);
    };
    vrm.springs = super::vrm_spring::read_springs(file, ext, nodes)?;
    vrm.constraints = super::vrm_constraint::read(file, doc, nodes)?;
    Ok(Some(vrm))
}

/// Gives each morph target the file leaves unnamed (`named[mesh][target]` false) the name of
/// the first expression that drives it and nothing else, so the hero's sliders read `blink_l`
/// rather than `target_3`. Targets no such expression drives keep `target_N`.
pub fn name_targets_by_expression(vrm: &VrmAsset, named: &[Vec<bool>], meshes: &mut [MeshAsset]) {
    let mut done: Vec<(usize, usize)> = Vec::new();
    for e in &vrm.expressions {
        let Some(first) = e.binds.first() else {
            continue;
        };
        let (mesh, target) = (first.mesh, first.target);
        if e.binds.iter().any(|b| (b.mesh, b.target) != (mesh, target))
            || done.contains(&(mesh, target))
            || named.get(mesh).and_then(|n| n.get(target)) == Some(&true)
        {
            continue;
        }
        let Some(m) = meshes.get_mut(mesh) else {
            continue;
        };
        if let Some(name) = m.morph_target_names.get_mut(target) {
            *name = e.name.clone();
        }
        for p in &mut m.primitives {
            if let Some(t) = p.morph_targets.get_mut(target) {
                t.name = e.name.clone();
            }
        }
        done.push((mesh, target));
    }
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
            let (material_color_binds, texture_transform_binds) =
                super::vrm_expression_binds::read_v0_material_values(g, materials);
            expressions.push(ExpressionAsset {
                name,
                is_preset: mapped.is_some(),
                is_binary: g.get("isBinary").and_then(Value::as_bool).unwrap_or(false),
                binds,
                material_color_binds,
                texture_transform_binds,
                // VRM 0.x has no override settings.
                ..Default::default()
            });
        }
    }
    if let Some(props) = v.get("materialProperties").and_then(Value::as_array) {
        let queues = TransparentQueues::new(props);
        for p in props {
            let shader = s(p, "shader").unwrap_or_default();
            if shader != "VRM/MToon" && !shader.starts_with("VRM/Unlit") {
                continue;
            }
            let Some(name) = s(p, "name") else { continue };
            if let Some(m) = materials
                .iter_mut()
                .find(|m| m.name.as_deref() == Some(&name))
            {
                apply_v0_material(p, &shader, &queues, m);
            }
        }
    }
    let look_at = super::vrm_look_at::read_v0(file, v, humanoid.get("head").copied(), nodes.len())?;
    let first_person =
        super::vrm_first_person::read(v.get("firstPerson"), nodes.len(), meshes.len());
    Ok(VrmAsset {
        spec_major: 0,
        title: s(&meta, "title"),
        author: s(&meta, "author"),
        license: s(&meta, "licenseName"),
        humanoid,
        expressions,
        springs: Default::default(),
        look_at,
        constraints: Vec::new(),
        first_person,
    })
}

/// VRM 0.x colours are gamma-space; three-vrm linearises them with a plain 2.2 power, and we
/// match it so both engines shade the same.
fn srgb_to_linear(c: Vec3) -> Vec3 {
    let t = |x: f32| x.max(0.0).powf(2.2);
    Vec3::new(t(c.x), t(c.y), t(c.z))
}

/// VRM 0.x render queues of transparent materials, ranked per kind so they become VRM 1.0
/// offsets in the same order (three-vrm does the same).
struct TransparentQueues {
    blend: Vec<i64>,
    blend_z_write: Vec<i64>,
}

impl TransparentQueues {
    fn new(props: &[Value]) -> Self {
        let mut q = TransparentQueues {
            blend: Vec::new(),
            blend_z_write: Vec::new(),
        };
        for p in props {
            let (transparent, z_write) = v0_transparency(p);
            if let (true, Some(rq)) = (transparent, p.get("renderQueue").and_then(Value::as_i64)) {
                let list = if z_write {
                    &mut q.blend_z_write
                } else {
                    &mut q.blend
                };
                if !list.contains(&rq) {
                    list.push(rq);
                }
            }
        }
        q.blend.sort_unstable();
        q.blend_z_write.sort_unstable();
        q
    }

    /// Blend materials count up from 0, blend-with-depth-write ones up to 0 (VRM 1.0 ranges).
    fn offset(&self, p: &Value) -> i32 {
        let (transparent, z_write) = v0_transparency(p);
        let Some(rq) = p.get("renderQueue").and_then(Value::as_i64) else {
            return 0;
        };
        if !transparent {
            return 0;
        }
        if z_write {
            let n = self.blend_z_write.len() as i32;
            let i = self
                .blend_z_write
                .iter()
                .position(|&x| x == rq)
                .unwrap_or(0) as i32;
            (i - (n - 1)).clamp(-9, 0)
        } else {
            let i = self.blend.iter().position(|&x| x == rq).unwrap_or(0) as i32;
            i.clamp(0, 9)
        }
    }
}

/// (transparent, writes depth) of a VRM 0.x material.
fn v0_transparency(p: &Value) -> (bool, bool) {
    let shader = s(p, "shader").unwrap_or_default();
    let z_write_shader = shader == "VRM/UnlitTransparentZWrite";
    let blend_kw = p
        .pointer("/keywordMap/_ALPHABLEND_ON")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let transparent = blend_kw || shader == "VRM/UnlitTransparent" || z_write_shader;
    let fp = p.get("floatProperties").cloned().unwrap_or(Value::Null);
    let z_write = z_write_shader || f(&fp, "_ZWrite", 0.0) == 1.0;
    (transparent, transparent && z_write)
}

/// three-vrm's VRM 0.x → 1.0 conversion (VRMMaterialsV0CompatPlugin): the MToon block and the
/// core material fields it overrides (base colour, normal map, emission, alpha, culling).
fn apply_v0_material(p: &Value, shader: &str, queues: &TransparentQueues, m: &mut MaterialAsset) {
    let fp = p.get("floatProperties").cloned().unwrap_or(Value::Null);
    let vp = p.get("vectorProperties").cloned().unwrap_or(Value::Null);
    let tp = p.get("textureProperties").cloned().unwrap_or(Value::Null);
    let tex = |k: &str| tp.get(k).and_then(Value::as_u64).map(|i| i as usize);
    let (transparent, z_write) = v0_transparency(p);
    let cutout = if shader == "VRM/MToon" {
        p.pointer("/keywordMap/_ALPHATEST_ON")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    } else {
        shader == "VRM/UnlitCutout"
    };
    m.alpha_mode = if transparent {
        AlphaMode::Blend
    } else if cutout {
        AlphaMode::Mask
    } else {
        AlphaMode::Opaque
    };
    if cutout {
        m.alpha_cutoff = f(&fp, "_Cutoff", 0.5);
    }
    // The alpha channel of `_Color` is stored linear; only RGB are gamma-encoded.
    let color = v4(&vp, "_Color", [1.0; 4]);
    m.base_color = srgb_to_linear(Vec3::new(color[0], color[1], color[2])).extend(color[3]);
    if let Some(t) = tex("_MainTex") {
        m.base_color_texture = Some(t);
    }
    if shader != "VRM/MToon" {
        // Unlit: MToon with the shade equal to the lit colour shades nothing.
        let mut mt = mtoon_defaults(true);
        mt.shade_color = m.base_color.truncate();
        mt.shade_texture = m.base_color_texture;
        mt.render_queue_offset = queues.offset(p);
        mt.transparent_with_z_write = z_write;
        m.mtoon = Some(mt);
        return;
    }
    m.double_sided = f(&fp, "_CullMode", 2.0) == 0.0;
    if let Some(t) = tex("_BumpMap") {
        m.normal_texture = Some(t);
        m.normal_scale = f(&fp, "_BumpScale", 1.0);
    }
    m.emissive = srgb_to_linear(v3(&vp, "_EmissionColor", Vec3::ZERO));
    m.emissive_texture = tex("_EmissionMap");
    let toony = f(&fp, "_ShadeToony", 0.9);
    let shift = f(&fp, "_ShadeShift", 0.0);
    let shading_toony = toony + (1.0 - toony) * (0.5 + 0.5 * shift);
    let shading_shift = -shift - (1.0 - shading_toony);
    let mode = f(&fp, "_OutlineWidthMode", 0.0) as i32;
    let color_mode = f(&fp, "_OutlineColorMode", 0.0) as i32;
    let matcap_texture = tex("_SphereAdd");
    let indirect = f(&fp, "_IndirectLightIntensity", 0.1);
    m.mtoon = Some(MToonAsset {
        shade_color: srgb_to_linear(v3(&vp, "_ShadeColor", Vec3::new(0.97, 0.81, 0.86))),
        shade_texture: tex("_ShadeTexture"),
        shading_shift,
        shading_toony,
        // three-vrm leaves the 1.0 default (0.9) when the intensity is exactly 0.
        gi_equalization: if indirect != 0.0 { 1.0 - indirect } else { 0.9 },
        matcap_factor: if matcap_texture.is_some() {
            Vec3::ONE
        } else {
            Vec3::ZERO
        },
        matcap_texture,
        rim_color: srgb_to_linear(v3(&vp, "_RimColor", Vec3::ZERO)),
        rim_lighting_mix: f(&fp, "_RimLightingMix", 0.0),
        rim_fresnel_power: f(&fp, "_RimFresnelPower", 1.0),
        rim_lift: f(&fp, "_RimLift", 0.0),
        outline_width_mode: match mode {
            1 => OutlineWidthMode::WorldCoordinates,
            2 => OutlineWidthMode::ScreenCoordinates,
            _ => OutlineWidthMode::None,
        },
        // VRM 0.x widths are centimetres (world) or, on screen, 0.01 x _OutlineWidth in clip
        // space (MToon 0.x's vertex shader).
        outline_width: f(&fp, "_OutlineWidth", 0.0) * 0.01,
        outline_scaled_max_distance: f(&fp, "_OutlineScaledMaxDistance", 1.0).max(0.0),
        outline_color: srgb_to_linear(v3(&vp, "_OutlineColor", Vec3::ZERO)),
        outline_lighting_mix: if color_mode == 1 {
            f(&fp, "_OutlineLightingMix", 1.0)
        } else {
            0.0
        },
        uv_scroll_x: f(&fp, "_UvAnimScrollX", 0.0),
        // V runs the other way in VRM 0.x.
        uv_scroll_y: -f(&fp, "_UvAnimScrollY", 0.0),
        uv_rotation: f(&fp, "_UvAnimRotation", 0.0),
        shading_shift_texture: None,
        shading_shift_texture_scale: 1.0,
        rim_multiply_texture: tex("_RimTexture"),
        outline_width_texture: tex("_OutlineWidthTexture"),
        uv_animation_mask_texture: tex("_UvAnimMaskTexture"),
        render_queue_offset: queues.offset(p),
        transparent_with_z_write: z_write,
        from_vrm0: true,
    });
}

/// MToon with the VRM 1.0 schema defaults.
pub fn mtoon_defaults(from_vrm0: bool) -> MToonAsset {
    MToonAsset {
        shade_color: Vec3::ONE,
        shade_texture: None,
        shading_shift: 0.0,
        shading_toony: 0.9,
        gi_equalization: 0.9,
        matcap_factor: Vec3::ZERO,
        matcap_texture: None,
        rim_color: Vec3::ZERO,
        rim_lighting_mix: 0.0,
        rim_fresnel_power: 1.0,
        rim_lift: 0.0,
        outline_width_mode: OutlineWidthMode::None,
        outline_width: 0.0,
        outline_scaled_max_distance: 1.0,
        outline_color: Vec3::ZERO,
        outline_lighting_mix: 1.0,
        uv_scroll_x: 0.0,
        uv_scroll_y: 0.0,
        uv_rotation: 0.0,
        shading_shift_texture: None,
        shading_shift_texture_scale: 1.0,
        rim_multiply_texture: None,
        outline_width_texture: None,
        uv_animation_mask_texture: None,
        render_queue_offset: 0,
        transparent_with_z_write: false,
        from_vrm0,
    }
}

fn v4(v: &Value, key: &str, default: [f32; 4]) -> [f32; 4] {
    let Some(a) = v.get(key).and_then(Value::as_array) else {
        return default;
    };
    let mut out = default;
    for (i, o) in out.iter_mut().enumerate() {
        if let Some(x) = a.get(i).and_then(Value::as_f64).map(|x| x as f32) {
            if x.is_finite() {
                *o = x;
            }
        }
    }
    out
}

fn read_v1(
    file: &str,
    v: &Value,
    nodes: &[NodeAsset],
    meshes: &[MeshAsset],
    material_count: usize,
) -> Result<VrmAsset, ImportError> {
    use super::vrm_expression_binds::{read_override, read_v1_binds};
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
            let (material_color_binds, texture_transform_binds) =
                read_v1_binds(file, &what, e, material_count)?;
            expressions.push(ExpressionAsset {
                name: name.clone(),
                is_preset,
                is_binary: e.get("isBinary").and_then(Value::as_bool).unwrap_or(false),
                binds,
                override_blink: read_override(file, &what, e, "overrideBlink")?,
                override_look_at: read_override(file, &what, e, "overrideLookAt")?,
                override_mouth: read_override(file, &what, e, "overrideMouth")?,
                material_color_binds,
                texture_transform_binds,
            });
        }
    }
    let look_at = super::vrm_look_at::read_v1(file, v, humanoid.get("head").copied())?;
    let first_person =
        super::vrm_first_person::read(v.get("firstPerson"), nodes.len(), meshes.len());
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
        springs: Default::default(),
        look_at,
        constraints: Vec::new(),
        first_person,
    })
}

//! The parts of a VRM expression besides morph binds: VRM 1.0 override modes, material colour
//! binds and texture transform binds, and VRM 0.x `materialValues` where their MToon property
//! maps onto a VRM 1.0 bind (`_Color`, `_ShadeColor`, `_EmissionColor`, `_RimColor`,
//! `_OutlineColor`, `_MainTex_ST`; others have no 1.0 counterpart and are left out).

use super::error::ImportError;
use super::types::*;
use glam::{Vec2, Vec3, Vec4};
use serde_json::Value;

fn bad(file: &str, what: &str, msg: String) -> ImportError {
    ImportError::new(file, format!("{what}: {msg}"))
}

/// `overrideBlink` / `overrideLookAt` / `overrideMouth` of a VRM 1.0 expression.
pub fn read_override(
    file: &str,
    what: &str,
    e: &Value,
    key: &str,
) -> Result<ExpressionOverride, ImportError> {
    match e.get(key).and_then(Value::as_str) {
        None | Some("none") => Ok(ExpressionOverride::None),
        Some("block") => Ok(ExpressionOverride::Block),
        Some("blend") => Ok(ExpressionOverride::Blend),
        Some(other) => Err(bad(
            file,
            &format!("{what}.{key}"),
            format!("\"{other}\"; allowed: \"none\", \"block\", \"blend\""),
        )),
    }
}

fn floats<const N: usize>(
    file: &str,
    what: &str,
    v: Option<&Value>,
) -> Result<Option<[f32; N]>, ImportError> {
    let Some(v) = v else { return Ok(None) };
    let a = v.as_array().filter(|a| a.len() == N);
    let mut out = [0.0; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = a
            .and_then(|a| a.get(i))
            .and_then(Value::as_f64)
            .map(|x| x as f32)
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad(file, what, format!("must be {N} finite numbers")))?;
    }
    Ok(Some(out))
}

fn material_index(file: &str, what: &str, b: &Value, count: usize) -> Result<usize, ImportError> {
    match b.get("material").and_then(Value::as_u64) {
        Some(m) if (m as usize) < count => Ok(m as usize),
        Some(m) => Err(bad(
            file,
            what,
            format!("material {m} out of range ({count} materials)"),
        )),
        None => Err(bad(file, what, "has no material index".to_string())),
    }
}

/// VRM 1.0 `materialColorBinds` and `textureTransformBinds` of one expression.
pub fn read_v1_binds(
    file: &str,
    what: &str,
    e: &Value,
    material_count: usize,
) -> Result<(Vec<MaterialColorBind>, Vec<TextureTransformBind>), ImportError> {
    let mut colors = Vec::new();
    for (i, b) in e
        .get("materialColorBinds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let w = format!("{what}.materialColorBinds[{i}]");
        let material = material_index(file, &w, b, material_count)?;
        let kind = match b.get("type").and_then(Value::as_str) {
            Some("color") => MaterialColorType::Color,
            Some("emissionColor") => MaterialColorType::EmissionColor,
            Some("shadeColor") => MaterialColorType::ShadeColor,
            Some("matcapColor") => MaterialColorType::MatcapColor,
            Some("rimColor") => MaterialColorType::RimColor,
            Some("outlineColor") => MaterialColorType::OutlineColor,
            other => {
                return Err(bad(
                    file,
                    &format!("{w}.type"),
                    format!(
                        "{other:?}; allowed: \"color\", \"emissionColor\", \"shadeColor\", \
                         \"matcapColor\", \"rimColor\", \"outlineColor\""
                    ),
                ))
            }
        };
        let target = floats::<4>(file, &format!("{w}.targetValue"), b.get("targetValue"))?
            .ok_or_else(|| bad(file, &w, "has no targetValue".to_string()))?;
        colors.push(MaterialColorBind {
            material,
            kind,
            target: Vec4::from_array(target),
        });
    }
    let mut uvs = Vec::new();
    for (i, b) in e
        .get("textureTransformBinds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let w = format!("{what}.textureTransformBinds[{i}]");
        let material = material_index(file, &w, b, material_count)?;
        // The schema says `scale`; three-vrm reads `scaling`: take either.
        let scale = floats::<2>(
            file,
            &format!("{w}.scale"),
            b.get("scale").or(b.get("scaling")),
        )?
        .unwrap_or([1.0, 1.0]);
        let offset =
            floats::<2>(file, &format!("{w}.offset"), b.get("offset"))?.unwrap_or([0.0, 0.0]);
        uvs.push(TextureTransformBind {
            material,
            scale: Vec2::from_array(scale),
            offset: Vec2::from_array(offset),
        });
    }
    Ok((colors, uvs))
}

/// VRM 0.x `materialValues` of one blend shape group: materials by name (a name no material has
/// is left out, as UniVRM does), gamma colours made linear like the materials themselves, and
/// `_MainTex_ST` (Unity's v runs up) turned into a glTF scale and offset.
pub fn read_v0_material_values(
    g: &Value,
    materials: &[MaterialAsset],
) -> (Vec<MaterialColorBind>, Vec<TextureTransformBind>) {
    let mut colors = Vec::new();
    let mut uvs = Vec::new();
    for mv in g
        .get("materialValues")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = mv.get("materialName").and_then(Value::as_str) else {
            continue;
        };
        let Some(material) = materials
            .iter()
            .position(|m| m.name.as_deref() == Some(name))
        else {
            continue;
        };
        let Some(t) = mv.get("targetValue").and_then(Value::as_array) else {
            continue;
        };
        let c = |i: usize, d: f32| {
            t.get(i)
                .and_then(Value::as_f64)
                .map(|x| x as f32)
                .filter(|x| x.is_finite())
                .unwrap_or(d)
        };
        let v = Vec4::new(c(0, 0.0), c(1, 0.0), c(2, 0.0), c(3, 1.0));
        let kind = match mv.get("propertyName").and_then(Value::as_str) {
            Some("_Color") => MaterialColorType::Color,
            Some("_ShadeColor") => MaterialColorType::ShadeColor,
            Some("_EmissionColor") => MaterialColorType::EmissionColor,
            Some("_RimColor") => MaterialColorType::RimColor,
            Some("_OutlineColor") => MaterialColorType::OutlineColor,
            Some("_MainTex_ST") => {
                // Unity: uv' = uv * (x, y) + (z, w) with v up; glTF v = 1 - v_unity.
                uvs.push(TextureTransformBind {
                    material,
                    scale: Vec2::new(v.x, v.y),
                    offset: Vec2::new(v.z, 1.0 - v.y - v.w),
                });
                continue;
            }
            _ => continue,
        };
        let lin = |x: f32| x.max(0.0).powf(2.2);
        colors.push(MaterialColorBind {
            material,
            kind,
            target: Vec3::new(lin(v.x), lin(v.y), lin(v.z)).extend(v.w),
        });
    }
    (colors, uvs)
}

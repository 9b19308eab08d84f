//! Material colour and texture transform binds of VRM expressions, as plain data: per material
//! the colours and texture scale/offset the expressions make this frame, which the renderer
//! reads instead of the material's own. As three-vrm does, each bind moves its value from the
//! material's towards the bind's target by the expression's applied weight, and the moves of
//! all expressions add up: `value = base + Σ (target - base) · weight`.

use glam::{Vec2, Vec3, Vec4};

use super::mtoon::MToonParams;
use crate::asset::{MaterialColorType, VrmAsset};

/// The parts of a material expressions can move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialLook {
    /// Linear RGBA (MToon's lit colour and alpha).
    pub lit_color: Vec4,
    pub shade_color: Vec3,
    pub emissive: Vec3,
    pub matcap_factor: Vec3,
    pub rim_color: Vec3,
    pub outline_color: Vec3,
    /// The texture transform's scale and offset (its rotation stays the material's).
    pub uv_scale: Vec2,
    pub uv_offset: Vec2,
}

impl MaterialLook {
    pub fn of(p: &MToonParams) -> Self {
        MaterialLook {
            lit_color: p.lit_color,
            shade_color: p.shade_color,
            emissive: p.emissive,
            matcap_factor: p.matcap_factor,
            rim_color: p.rim_color,
            outline_color: p.outline_color,
            uv_scale: p.uv_transform.scale,
            uv_offset: p.uv_transform.offset,
        }
    }
}

/// Whether any expression of `vrm` has a material bind (else the looks never change).
pub fn has_material_binds(vrm: Option<&VrmAsset>) -> bool {
    vrm.is_some_and(|v| {
        v.expressions
            .iter()
            .any(|e| !e.material_color_binds.is_empty() || !e.texture_transform_binds.is_empty())
    })
}

/// Writes into `out` (one per material of `base`) what the expressions at `applied` weights
/// (one per VRM expression) make of each material. Returns whether `out` changed.
pub fn compose(
    base: &[MaterialLook],
    vrm: &VrmAsset,
    applied: &[f32],
    out: &mut Vec<MaterialLook>,
) -> bool {
    let before = out.clone();
    out.clear();
    out.extend_from_slice(base);
    for (e, &w) in vrm.expressions.iter().zip(applied) {
        if w == 0.0 {
            continue;
        }
        for b in &e.material_color_binds {
            let (Some(o), Some(from)) = (out.get_mut(b.material), base.get(b.material)) else {
                continue;
            };
            let rgb = |slot: &mut Vec3, from: Vec3| *slot += (b.target.truncate() - from) * w;
            match b.kind {
                MaterialColorType::Color => o.lit_color += (b.target - from.lit_color) * w,
                MaterialColorType::ShadeColor => rgb(&mut o.shade_color, from.shade_color),
                MaterialColorType::EmissionColor => rgb(&mut o.emissive, from.emissive),
                MaterialColorType::MatcapColor => rgb(&mut o.matcap_factor, from.matcap_factor),
                MaterialColorType::RimColor => rgb(&mut o.rim_color, from.rim_color),
                MaterialColorType::OutlineColor => rgb(&mut o.outline_color, from.outline_color),
            }
        }
        for b in &e.texture_transform_binds {
            let (Some(o), Some(from)) = (out.get_mut(b.material), base.get(b.material)) else {
                continue;
            };
            o.uv_scale += (b.scale - from.uv_scale) * w;
            o.uv_offset += (b.offset - from.uv_offset) * w;
        }
    }
    *out != before
}

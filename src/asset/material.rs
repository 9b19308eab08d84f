//! Materials (core metallic-roughness PBR, unlit, VRM 1.0 MToon) and decoded textures.

use super::error::ImportError;
use super::gltf_read::Loaded;
use super::types::*;
use glam::{Vec2, Vec3, Vec4};
use serde_json::Value;

/// One `TextureAsset` per glTF texture (not per image), each decoded to RGBA8. An image that
/// is missing or cannot be decoded becomes a 1x1 white texture and a warning: white is the
/// neutral value of every texture slot that multiplies (base, shade, rim, masks).
pub fn textures(l: &Loaded, warnings: &mut Vec<String>) -> Vec<TextureAsset> {
    let mut out = Vec::new();
    for t in l.doc.textures() {
        let ii = t.source().index();
        let name = t.source().name().map(str::to_string);
        let sampler = t.sampler();
        let wrap = [sampler.wrap_s(), sampler.wrap_t()].map(|w| match w {
            gltf::texture::WrappingMode::ClampToEdge => TextureWrap::ClampToEdge,
            gltf::texture::WrappingMode::MirroredRepeat => TextureWrap::MirroredRepeat,
            gltf::texture::WrappingMode::Repeat => TextureWrap::Repeat,
        });
        let filter = sampler_filter(&sampler);
        let decoded = match l.images.get(ii) {
            None => Err(format!("image {ii} missing")),
            Some(Err(e)) => Err(format!("image {ii} could not be decoded ({e})")),
            Some(Ok(img)) => to_rgba8(img)
                .map(|px| (img.width, img.height, px))
                .ok_or_else(|| format!("image {ii} has an unsupported pixel format")),
        };
        match decoded {
            Ok((width, height, rgba8)) => out.push(TextureAsset {
                name,
                width,
                height,
                rgba8,
                fallback: false,
                error: None,
                wrap,
                filter,
            }),
            Err(why) => {
                warnings.push(format!("texture {}: {why}; using white", t.index()));
                out.push(TextureAsset {
                    name,
                    width: 1,
                    height: 1,
                    rgba8: vec![255; 4],
                    fallback: true,
                    error: Some(why),
                    wrap,
                    filter,
                });
            }
        }
    }
    out
}

/// The sampler's filters; what the file leaves out is linear with linear mipmaps.
fn sampler_filter(sampler: &gltf::texture::Sampler) -> TextureFilter {
    use gltf::texture::{MagFilter, MinFilter};
    let mut filter = TextureFilter::default();
    if let Some(mag) = sampler.mag_filter() {
        filter.mag = match mag {
            MagFilter::Nearest => Filter::Nearest,
            MagFilter::Linear => Filter::Linear,
        };
    }
    if let Some(min) = sampler.min_filter() {
        let (min, mipmap) = match min {
            MinFilter::Nearest => (Filter::Nearest, None),
            MinFilter::Linear => (Filter::Linear, None),
            MinFilter::NearestMipmapNearest => (Filter::Nearest, Some(Filter::Nearest)),
            MinFilter::LinearMipmapNearest => (Filter::Linear, Some(Filter::Nearest)),
            MinFilter::NearestMipmapLinear => (Filter::Nearest, Some(Filter::Linear)),
            MinFilter::LinearMipmapLinear => (Filter::Linear, Some(Filter::Linear)),
        };
        filter.min = min;
        filter.mipmap = mipmap;
    }
    filter
}

/// A texture reference's `KHR_texture_transform` (identity without one).
fn uv_transform(info: &gltf::texture::Info) -> UvTransform {
    let Some(t) = info.texture_transform() else {
        return UvTransform::default();
    };
    let out = UvTransform {
        offset: Vec2::from(t.offset()),
        rotation: t.rotation(),
        scale: Vec2::from(t.scale()),
    };
    let finite = out.offset.is_finite() && out.rotation.is_finite() && out.scale.is_finite();
    if finite {
        out
    } else {
        UvTransform::default()
    }
}

fn to_rgba8(img: &gltf::image::Data) -> Option<Vec<u8>> {
    use gltf::image::Format as F;
    let px = (img.width as usize).checked_mul(img.height as usize)?;
    let p = &img.pixels;
    let out: Vec<u8> = match img.format {
        F::R8G8B8A8 => p.clone(),
        F::R8G8B8 => p
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        F::R8G8 => p
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        F::R8 => p.iter().flat_map(|&c| [c, c, c, 255]).collect(),
        F::R16G16B16A16 => p.chunks_exact(2).map(|c| c[1]).collect(),
        F::R16G16B16 => p
            .chunks_exact(6)
            .flat_map(|c| [c[1], c[3], c[5], 255])
            .collect(),
        _ => return None,
    };
    (out.len() == px * 4).then_some(out)
}

pub fn materials(file: &str, doc: &gltf::Document) -> Result<Vec<MaterialAsset>, ImportError> {
    let mut out = Vec::new();
    for m in doc.materials() {
        let pbr = m.pbr_metallic_roughness();
        let base_color = Vec4::from(pbr.base_color_factor());
        let emissive = Vec3::from(m.emissive_factor()) * m.emissive_strength().unwrap_or(1.0);
        if !base_color.is_finite() || !emissive.is_finite() {
            return Err(ImportError::new(
                file,
                format!("material {}: non-finite colour", m.index().unwrap_or(0)),
            ));
        }
        let mtoon = m.extension_value("VRMC_materials_mtoon").map(mtoon_v1);
        // gltf fills in the spec's defaults (1.0) for absent factors; a non-finite or
        // out-of-range factor is the file's mistake, clamped rather than refused.
        let unit = |x: f32| {
            if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                1.0
            }
        };
        out.push(MaterialAsset {
            name: m.name().map(str::to_string),
            base_color,
            base_color_texture: pbr.base_color_texture().map(|t| t.texture().index()),
            base_color_transform: pbr
                .base_color_texture()
                .map_or_else(UvTransform::default, |t| uv_transform(&t)),
            alpha_mode: match m.alpha_mode() {
                gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                gltf::material::AlphaMode::Mask => AlphaMode::Mask,
                gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            },
            alpha_cutoff: m.alpha_cutoff().unwrap_or(0.5),
            double_sided: m.double_sided(),
            emissive,
            emissive_texture: m.emissive_texture().map(|t| t.texture().index()),
            normal_texture: m.normal_texture().map(|t| t.texture().index()),
            normal_scale: m.normal_texture().map_or(1.0, |t| t.scale()),
            metallic: unit(pbr.metallic_factor()),
            roughness: unit(pbr.roughness_factor()),
            metallic_roughness_texture: pbr
                .metallic_roughness_texture()
                .map(|t| t.texture().index()),
            unlit: m.unlit(),
            mtoon,
        });
    }
    Ok(out)
}

pub(crate) fn f(v: &Value, key: &str, default: f32) -> f32 {
    v.get(key)
        .and_then(Value::as_f64)
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
        .unwrap_or(default)
}

pub(crate) fn v3(v: &Value, key: &str, default: Vec3) -> Vec3 {
    let Some(a) = v.get(key).and_then(Value::as_array) else {
        return default;
    };
    let c = |i: usize| a.get(i).and_then(Value::as_f64).map(|x| x as f32);
    match (c(0), c(1), c(2)) {
        (Some(x), Some(y), Some(z)) if x.is_finite() && y.is_finite() && z.is_finite() => {
            Vec3::new(x, y, z)
        }
        _ => default,
    }
}

fn tex(v: &Value, key: &str) -> Option<usize> {
    v.get(key)?.get("index")?.as_u64().map(|i| i as usize)
}

/// Defaults follow the extension's JSON schema (VRMC_materials_mtoon.schema.json). Its README
/// tables disagree in four places (shade colour [0,0,0], matcap factor, rim fresnel power 5,
/// rim lighting mix 1); the schema is the normative part, so it wins.
fn mtoon_v1(v: &Value) -> MToonAsset {
    MToonAsset {
        shade_color: v3(v, "shadeColorFactor", Vec3::ONE),
        shade_texture: tex(v, "shadeMultiplyTexture"),
        shading_shift: f(v, "shadingShiftFactor", 0.0),
        shading_toony: f(v, "shadingToonyFactor", 0.9),
        gi_equalization: f(v, "giEqualizationFactor", 0.9),
        matcap_factor: v3(v, "matcapFactor", Vec3::ZERO),
        matcap_texture: tex(v, "matcapTexture"),
        rim_color: v3(v, "parametricRimColorFactor", Vec3::ZERO),
        rim_lighting_mix: f(v, "rimLightingMixFactor", 0.0),
        rim_fresnel_power: f(v, "parametricRimFresnelPowerFactor", 1.0),
        rim_lift: f(v, "parametricRimLiftFactor", 0.0),
        outline_width_mode: match v.get("outlineWidthMode").and_then(Value::as_str) {
            Some("worldCoordinates") => OutlineWidthMode::WorldCoordinates,
            Some("screenCoordinates") => OutlineWidthMode::ScreenCoordinates,
            _ => OutlineWidthMode::None,
        },
        outline_width: f(v, "outlineWidthFactor", 0.0),
        outline_scaled_max_distance: 1.0,
        outline_color: v3(v, "outlineColorFactor", Vec3::ZERO),
        outline_lighting_mix: f(v, "outlineLightingMixFactor", 1.0),
        uv_scroll_x: f(v, "uvAnimationScrollXSpeedFactor", 0.0),
        uv_scroll_y: f(v, "uvAnimationScrollYSpeedFactor", 0.0),
        uv_rotation: f(v, "uvAnimationRotationSpeedFactor", 0.0),
        shading_shift_texture: tex(v, "shadingShiftTexture"),
        shading_shift_texture_scale: v
            .get("shadingShiftTexture")
            .map_or(1.0, |t| f(t, "scale", 1.0)),
        rim_multiply_texture: tex(v, "rimMultiplyTexture"),
        outline_width_texture: tex(v, "outlineWidthMultiplyTexture"),
        uv_animation_mask_texture: tex(v, "uvAnimationMaskTexture"),
        render_queue_offset: v
            .get("renderQueueOffsetNumber")
            .and_then(Value::as_i64)
            .unwrap_or(0)
            .clamp(-9, 9) as i32,
        transparent_with_z_write: v
            .get("transparentWithZWrite")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        from_vrm0: false,
    }
}

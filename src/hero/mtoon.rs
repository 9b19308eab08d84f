//! MToon 1.0 as plain data: the parameters the hero's shaders take (checked and clamped, with
//! warnings) and a CPU reference of the shading that `render/shaders/mtoon.frag` mirrors line
//! for line, so the formulas are tested without a GPU.
//!
//! Deviations from the specification text, and why:
//! - The README's lighting pseudocode writes `lerp(baseColorTerm, shadeColorTerm, shading)`,
//!   which would shade lit surfaces; its prose, UniVRM and three-vrm all use
//!   `mix(shade, lit, shading)`, and so do we.
//! - The sun's shadow multiplies `shading` after the toon ramp (three-vrm does the same), so
//!   shadowed areas take the shade colour instead of going black.
//! - `rawGi(n)` is the plaza's hemisphere ambient, `ambient · mix(0.55, 1, 0.5 + 0.5·n.y)`, the
//!   same light the scenery gets; `uniformedGi` is the spec's two-sample average of up and down.
//! - The rim's "lighting" is the sun colour plus `gi(n)` (unshadowed, as in three-vrm).
//! - Outline colour = `outlineColor · mix(1, surface colour, outlineLightingMix)`, the surface
//!   colour being this same shading at the outline's fragment (the spec's "lighting, GI,
//!   emission and rim results").

use glam::{Vec2, Vec3, Vec4};

use super::pbr::PbrParams;
use crate::asset::{AlphaMode, MaterialAsset, OutlineWidthMode, UvTransform};

/// Texture slots of one material (indices into `SceneAsset::textures`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MToonTextures {
    pub base: Option<usize>,
    pub shade: Option<usize>,
    pub shading_shift: Option<usize>,
    pub normal: Option<usize>,
    pub emissive: Option<usize>,
    pub matcap: Option<usize>,
    pub rim: Option<usize>,
    pub uv_mask: Option<usize>,
    pub outline_width: Option<usize>,
    /// glTF metallic-roughness (B metalness, G roughness) of a PBR material.
    pub metallic_roughness: Option<usize>,
}

/// Everything the MToon shaders need for one material, in linear colour.
#[derive(Debug, Clone, PartialEq)]
pub struct MToonParams {
    pub name: String,
    pub lit_color: Vec4,
    pub shade_color: Vec3,
    pub shading_shift: f32,
    pub shading_shift_texture_scale: f32,
    pub shading_toony: f32,
    pub gi_equalization: f32,
    pub emissive: Vec3,
    pub normal_scale: f32,
    pub matcap_factor: Vec3,
    pub rim_color: Vec3,
    pub rim_fresnel_power: f32,
    pub rim_lift: f32,
    pub rim_lighting_mix: f32,
    pub outline_mode: OutlineWidthMode,
    /// Metres (world), a share of the screen height (1.0 screen) or clip-space units (0.x
    /// screen).
    pub outline_width: f32,
    /// Some for VRM 0.x files: screen outlines follow MToon 0.x (a clip-space width, the same
    /// pixels at any depth up to this scaled max distance); None: the VRM 1.0 rule.
    pub outline_v0_max_distance: Option<f32>,
    pub outline_color: Vec3,
    pub outline_lighting_mix: f32,
    /// UV units per second.
    pub uv_scroll: Vec2,
    /// Radians per second.
    pub uv_rotation: f32,
    pub alpha_mode: AlphaMode,
    pub alpha_cutoff: f32,
    pub double_sided: bool,
    pub transparent_with_z_write: bool,
    pub render_queue_offset: i32,
    pub textures: MToonTextures,
    /// The base colour's `KHR_texture_transform`, applied to every texture but the matcap.
    pub uv_transform: UvTransform,
    /// Some for a plain glTF material: shaded as metallic-roughness PBR (`hero::pbr`) instead
    /// of the toon ramp; the MToon fields then only carry its colours, alpha and textures.
    pub pbr: Option<PbrParams>,
}

/// Screen-relative outlines wider than this share of the screen height are surely an error.
const MAX_SCREEN_OUTLINE: f32 = 0.05;
/// World outlines wider than this (metres) would swallow a person.
const MAX_WORLD_OUTLINE: f32 = 0.2;

fn clamp01(name: &str, what: &str, v: f32, warnings: &mut Vec<String>) -> f32 {
    if (0.0..=1.0).contains(&v) {
        v
    } else {
        warnings.push(format!(
            "material \"{name}\": {what} {v} outside 0..1, clamped"
        ));
        v.clamp(0.0, 1.0)
    }
}

fn color01(name: &str, what: &str, c: Vec3, warnings: &mut Vec<String>) -> Vec3 {
    if c.cmpge(Vec3::ZERO).all() && c.cmple(Vec3::ONE).all() {
        c
    } else {
        warnings.push(format!(
            "material \"{name}\": {what} {c} outside 0..1, clamped"
        ));
        c.clamp(Vec3::ZERO, Vec3::ONE)
    }
}

impl MToonParams {
    /// MToon parameters for any material. Unlit materials become MToon with shade = lit
    /// (nothing to shade); plain glTF materials keep their colours here and are shaded as
    /// metallic-roughness PBR (`pbr` is Some), as the reference renderer draws them.
    /// Out-of-range values are clamped and reported; texture indices past `texture_count` are
    /// dropped and reported.
    pub fn from_material(
        m: &MaterialAsset,
        texture_count: usize,
        warnings: &mut Vec<String>,
    ) -> MToonParams {
        let name = m.name.clone().unwrap_or_else(|| "(unnamed)".to_string());
        let tex = |what: &str, t: Option<usize>, warnings: &mut Vec<String>| match t {
            Some(i) if i >= texture_count => {
                warnings.push(format!(
                    "material \"{name}\": {what} texture {i} does not exist; ignored"
                ));
                None
            }
            t => t,
        };
        let base = tex("base colour", m.base_color_texture, warnings);
        let normal = tex("normal", m.normal_texture, warnings);
        let emissive_tex = tex("emissive", m.emissive_texture, warnings);
        let lit = m.base_color;
        let mut p = MToonParams {
            name: name.clone(),
            lit_color: lit,
            shade_color: lit.truncate() * 0.4,
            shading_shift: 0.0,
            shading_shift_texture_scale: 1.0,
            shading_toony: 0.5,
            gi_equalization: 0.9,
            emissive: m.emissive,
            normal_scale: m.normal_scale,
            matcap_factor: Vec3::ZERO,
            rim_color: Vec3::ZERO,
            rim_fresnel_power: 1.0,
            rim_lift: 0.0,
            rim_lighting_mix: 0.0,
            outline_mode: OutlineWidthMode::None,
            outline_width: 0.0,
            outline_v0_max_distance: None,
            outline_color: Vec3::ZERO,
            outline_lighting_mix: 1.0,
            uv_scroll: Vec2::ZERO,
            uv_rotation: 0.0,
            alpha_mode: m.alpha_mode,
            alpha_cutoff: m.alpha_cutoff,
            double_sided: m.double_sided,
            transparent_with_z_write: false,
            render_queue_offset: 0,
            uv_transform: m.base_color_transform,
            pbr: None,
            textures: MToonTextures {
                base,
                shade: if m.unlit { base } else { None },
                normal,
                emissive: emissive_tex,
                ..Default::default()
            },
        };
        if m.unlit {
            p.shade_color = lit.truncate();
            p.textures.shade = base;
        } else if p.textures.base.is_some() {
            p.textures.shade = base;
        }
        if let Some(mut pbr) = PbrParams::of(m) {
            pbr.texture = tex("metallic-roughness", pbr.texture, warnings);
            p.textures.metallic_roughness = pbr.texture;
            p.pbr = Some(pbr);
        }
        if let Some(t) = &m.mtoon {
            p.shade_color = color01(&name, "shade colour", t.shade_color, warnings);
            p.textures.shade = tex("shade", t.shade_texture, warnings);
            p.shading_shift = t.shading_shift;
            p.shading_shift_texture_scale = t.shading_shift_texture_scale;
            p.textures.shading_shift = tex("shading shift", t.shading_shift_texture, warnings);
            p.shading_toony = clamp01(&name, "shading toony", t.shading_toony, warnings);
            p.gi_equalization = clamp01(&name, "GI equalization", t.gi_equalization, warnings);
            p.matcap_factor = color01(&name, "matcap factor", t.matcap_factor, warnings);
            p.textures.matcap = tex("matcap", t.matcap_texture, warnings);
            p.rim_color = color01(&name, "rim colour", t.rim_color, warnings);
            p.rim_lighting_mix = clamp01(&name, "rim lighting mix", t.rim_lighting_mix, warnings);
            p.rim_fresnel_power = if t.rim_fresnel_power < 0.0 {
                warnings.push(format!(
                    "material \"{name}\": rim fresnel power {} below 0, using 0",
                    t.rim_fresnel_power
                ));
                0.0
            } else {
                t.rim_fresnel_power
            };
            p.rim_lift = t.rim_lift;
            p.textures.rim = tex("rim multiply", t.rim_multiply_texture, warnings);
            p.outline_mode = t.outline_width_mode;
            let max = match t.outline_width_mode {
                OutlineWidthMode::ScreenCoordinates => MAX_SCREEN_OUTLINE,
                _ => MAX_WORLD_OUTLINE,
            };
            p.outline_width = if (0.0..=max).contains(&t.outline_width) {
                t.outline_width
            } else {
                warnings.push(format!(
                    "material \"{name}\": outline width {} outside 0..{max}, clamped",
                    t.outline_width
                ));
                t.outline_width.clamp(0.0, max)
            };
            p.textures.outline_width = tex("outline width", t.outline_width_texture, warnings);
            p.outline_v0_max_distance = t.from_vrm0.then_some(t.outline_scaled_max_distance);
            p.outline_color = color01(&name, "outline colour", t.outline_color, warnings);
            p.outline_lighting_mix = clamp01(
                &name,
                "outline lighting mix",
                t.outline_lighting_mix,
                warnings,
            );
            p.uv_scroll = Vec2::new(t.uv_scroll_x, t.uv_scroll_y);
            p.uv_rotation = t.uv_rotation;
            p.textures.uv_mask = tex("UV animation mask", t.uv_animation_mask_texture, warnings);
            p.transparent_with_z_write = t.transparent_with_z_write;
            p.render_queue_offset = t.render_queue_offset.clamp(-9, 9);
        }
        if !(0.0..=1.0).contains(&p.alpha_cutoff) {
            warnings.push(format!(
                "material \"{name}\": alpha cutoff {} outside 0..1, clamped",
                p.alpha_cutoff
            ));
            p.alpha_cutoff = p.alpha_cutoff.clamp(0.0, 1.0);
        }
        p
    }

    /// Draw order key: opaque, then mask, then blend; within a class the render queue offset.
    pub fn draw_order(&self) -> (u8, i32) {
        let class = match self.alpha_mode {
            AlphaMode::Opaque => 0,
            AlphaMode::Mask => 1,
            AlphaMode::Blend => 2,
        };
        (class, self.render_queue_offset)
    }
}

/// The sampled inputs of one shading evaluation (texture values already fetched, linear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShadeInput {
    /// Unit surface normal, world space.
    pub normal: Vec3,
    /// Unit vector towards the sun.
    pub to_light: Vec3,
    /// Unit vector towards the eye.
    pub to_eye: Vec3,
    pub light_color: Vec3,
    /// 1 lit, 0 in the sun's shadow.
    pub shadow: f32,
    pub ambient: Vec3,
    /// base colour factor × base texture.
    pub lit: Vec3,
    /// shade factor × shade texture.
    pub shade: Vec3,
    /// shading shift texture R (0 when none).
    pub shift_texture: f32,
    pub matcap_texture: Vec3,
    pub rim_texture: Vec3,
    pub emissive: Vec3,
}

/// `saturate((t - a) / (b - a))`.
pub fn linearstep(a: f32, b: f32, t: f32) -> f32 {
    if b - a <= 1e-6 {
        return if t >= b { 1.0 } else { 0.0 };
    }
    ((t - a) / (b - a)).clamp(0.0, 1.0)
}

/// The toon ramp: 0 = shade colour, 1 = lit colour.
pub fn shading(p: &MToonParams, n_dot_l: f32, shift_texture: f32, shadow: f32) -> f32 {
    let s = n_dot_l + p.shading_shift + shift_texture * p.shading_shift_texture_scale;
    linearstep(-1.0 + p.shading_toony, 1.0 - p.shading_toony, s) * shadow
}

/// The hemisphere ambient the plaza uses, as MToon's `rawGi`.
pub fn raw_gi(ambient: Vec3, n: Vec3) -> Vec3 {
    ambient * (0.55 + (1.0 - 0.55) * (0.5 + 0.5 * n.y))
}

/// `gi(n) = lerp(rawGi(n), (rawGi(up) + rawGi(down)) / 2, giEqualization)`.
pub fn gi(p: &MToonParams, ambient: Vec3, n: Vec3) -> Vec3 {
    let uniformed = (raw_gi(ambient, Vec3::Y) + raw_gi(ambient, -Vec3::Y)) * 0.5;
    raw_gi(ambient, n).lerp(uniformed, p.gi_equalization)
}

/// Parametric rim plus matcap, masked, mixed with the lighting.
pub fn rim(p: &MToonParams, i: &ShadeInput) -> Vec3 {
    let n_dot_v = i.normal.dot(i.to_eye);
    let parametric = (1.0 - n_dot_v + p.rim_lift)
        .clamp(0.0, 1.0)
        .powf(p.rim_fresnel_power.max(1e-5));
    let lighting = i.light_color + gi(p, i.ambient, i.normal);
    (p.matcap_factor * i.matcap_texture + p.rim_color * parametric)
        * i.rim_texture
        * Vec3::ONE.lerp(lighting, p.rim_lighting_mix)
}

/// The MToon surface colour (linear, before fog and tonemapping).
pub fn shade(p: &MToonParams, i: &ShadeInput) -> Vec3 {
    let s = shading(p, i.normal.dot(i.to_light), i.shift_texture, i.shadow);
    let direct = i.shade.lerp(i.lit, s) * i.light_color;
    let indirect = gi(p, i.ambient, i.normal) * i.lit;
    direct + indirect + rim(p, i) + i.emissive
}

/// The outline colour over a surface that shades to `surface`.
pub fn outline_color(p: &MToonParams, surface: Vec3) -> Vec3 {
    p.outline_color * Vec3::ONE.lerp(surface, p.outline_lighting_mix)
}

/// World-space outline offset along the normal for a vertex `view_depth` metres from the eye:
/// metres as given in world mode; in screen mode a share of the screen height, turned into
/// metres at that depth (`2·depth·tan(fov/2)` is the screen height there).
pub fn outline_offset(p: &MToonParams, view_depth: f32, fov_y: f32, width_texture: f32) -> f32 {
    let w = p.outline_width * width_texture;
    match p.outline_mode {
        OutlineWidthMode::None => 0.0,
        OutlineWidthMode::WorldCoordinates => w,
        OutlineWidthMode::ScreenCoordinates => w * 2.0 * view_depth * (fov_y * 0.5).tan(),
    }
}

//! glTF metallic-roughness materials on the hero, as plain data: which materials are PBR (the
//! plain glTF ones: neither MToon nor `KHR_materials_unlit`), their factors and texture, and a
//! CPU reference of the shading that the PBR branch of `render/shaders/mtoon.frag` mirrors.
//!
//! A VRM may keep plain glTF materials beside its MToon ones (VRM 0.x `VRM_USE_GLTFSHADER`,
//! Godette's "Backpack"); the reference renderer (three-vrm) draws them with three.js's
//! `MeshStandardMaterial`, so we shade them the way it does under a sun and an ambient light
//! with no environment map:
//! - diffuse colour `base · (1 − metalness)`, Lambert, the sun's shadow on the direct part;
//! - specular `F0 = mix(0.04, base, metalness)`, three.js's GGX (`D_GGX`,
//!   `V_GGX_SmithCorrelated`, its `F_Schlick` with F90 = 1), alpha = roughness²;
//! - ambient: the plaza's hemisphere ambient on the diffuse colour, lessened by what the
//!   specular lobe reflects, plus three.js's multiple-scattering share of it
//!   (`computeMultiscattering` with its `DFGApprox`); with no environment map there is no
//!   single-scattering ambient specular.
//!
//! Light units: the plaza's sun colour is the Lambert factor of a white surface facing it
//! (`base · sun · N·L`), which is three.js's light colour divided by π; so the specular term
//! carries the π that three.js's `BRDF_Lambert` divides out of the diffuse one, and the ambient
//! is taken as three.js's cosine-weighted irradiance.

use glam::Vec3;

use crate::asset::MaterialAsset;

/// three.js keeps roughness at least this (`lights_physical_fragment`), so a mirror-smooth
/// factor does not turn the sun into an infinitely thin, infinitely bright highlight.
pub const MIN_ROUGHNESS: f32 = 0.0525;
/// glTF's reflectance of dielectrics at normal incidence (4 %).
pub const DIELECTRIC_F0: f32 = 0.04;

/// The metallic-roughness part of one plain glTF material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PbrParams {
    /// 0..1, multiplied by the texture's B channel.
    pub metallic: f32,
    /// 0..1, multiplied by the texture's G channel.
    pub roughness: f32,
    /// Index into `SceneAsset::textures` (linear data, not sRGB).
    pub texture: Option<usize>,
}

impl PbrParams {
    /// Some for a material shaded as metallic-roughness PBR: not MToon (the model says how to
    /// toon-shade it) and not unlit (`KHR_materials_unlit` stays flat).
    pub fn of(m: &MaterialAsset) -> Option<PbrParams> {
        if m.mtoon.is_some() || m.unlit {
            return None;
        }
        Some(PbrParams {
            metallic: m.metallic.clamp(0.0, 1.0),
            roughness: m.roughness.clamp(0.0, 1.0),
            texture: m.metallic_roughness_texture,
        })
    }

    /// (metalness, roughness) at a texel of the metallic-roughness texture (RGBA8, linear);
    /// `None` for no texture (the factors alone).
    pub fn at(&self, texel: Option<[u8; 4]>) -> (f32, f32) {
        match texel {
            Some(t) => (
                self.metallic * t[2] as f32 / 255.0,
                self.roughness * t[1] as f32 / 255.0,
            ),
            None => (self.metallic, self.roughness),
        }
    }
}

/// The diffuse colour of a metallic-roughness surface: metals have none.
pub fn diffuse_color(base: Vec3, metalness: f32) -> Vec3 {
    base * (1.0 - metalness.clamp(0.0, 1.0))
}

/// Reflectance at normal incidence: 4 % for dielectrics, the base colour for metals.
pub fn specular_color(base: Vec3, metalness: f32) -> Vec3 {
    Vec3::splat(DIELECTRIC_F0).lerp(base, metalness.clamp(0.0, 1.0))
}

/// The sampled inputs of one PBR shading evaluation (textures already fetched, linear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PbrInput {
    /// Unit surface normal, world space.
    pub normal: Vec3,
    /// Unit vector towards the sun.
    pub to_light: Vec3,
    /// Unit vector towards the eye.
    pub to_eye: Vec3,
    pub light_color: Vec3,
    /// 1 lit, 0 in the sun's shadow.
    pub shadow: f32,
    /// The ambient light at this normal (the plaza's hemisphere ambient).
    pub ambient: Vec3,
    /// base colour factor × base texture.
    pub base: Vec3,
    pub metalness: f32,
    pub roughness: f32,
    pub emissive: Vec3,
}

/// three.js `D_GGX` (Trowbridge-Reitz normal distribution).
fn d_ggx(alpha: f32, n_dot_h: f32) -> f32 {
    let a2 = alpha * alpha;
    let denom = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    a2 / (std::f32::consts::PI * denom * denom)
}

/// three.js `V_GGX_SmithCorrelated` (the visibility term, geometry over 4·N·L·N·V).
fn v_smith(alpha: f32, n_dot_l: f32, n_dot_v: f32) -> f32 {
    let a2 = alpha * alpha;
    let gv = n_dot_l * (a2 + (1.0 - a2) * n_dot_v * n_dot_v).sqrt();
    let gl = n_dot_v * (a2 + (1.0 - a2) * n_dot_l * n_dot_l).sqrt();
    0.5 / (gv + gl).max(1e-6)
}

/// three.js `F_Schlick` (its spherical-Gaussian form) with F90 = 1.
fn f_schlick(f0: Vec3, v_dot_h: f32) -> Vec3 {
    let fresnel = ((-5.55473 * v_dot_h - 6.98316) * v_dot_h).exp2();
    f0 * (1.0 - fresnel) + Vec3::splat(fresnel)
}

/// three.js `DFGApprox`: the split-sum scale and bias of the specular lobe's albedo.
fn dfg_approx(n_dot_v: f32, roughness: f32) -> (f32, f32) {
    let r = [
        1.0 - roughness,
        roughness * -0.0275 + 0.0425,
        roughness * -0.572 + 1.04,
        roughness * 0.022 - 0.04,
    ];
    let a004 = (r[0] * r[0]).min((-9.28 * n_dot_v).exp2()) * r[0] + r[1];
    (-1.04 * a004 + r[2], 1.04 * a004 + r[3])
}

/// The shaded surface colour (linear, before fog and tonemapping).
pub fn shade(i: &PbrInput) -> Vec3 {
    let roughness = i.roughness.clamp(MIN_ROUGHNESS, 1.0);
    let alpha = roughness * roughness;
    let diffuse = diffuse_color(i.base, i.metalness);
    let f0 = specular_color(i.base, i.metalness);
    let n_dot_l = i.normal.dot(i.to_light).clamp(0.0, 1.0);
    let n_dot_v = i.normal.dot(i.to_eye).clamp(0.0, 1.0);
    // Sun straight behind the surface as seen: no half vector; the shader does the same.
    let h = (i.to_light + i.to_eye).try_normalize().unwrap_or(i.normal);
    let n_dot_h = i.normal.dot(h).clamp(0.0, 1.0);
    let v_dot_h = i.to_eye.dot(h).clamp(0.0, 1.0);
    let brdf = f_schlick(f0, v_dot_h) * (v_smith(alpha, n_dot_l, n_dot_v) * d_ggx(alpha, n_dot_h));
    let irradiance = i.light_color * (n_dot_l * i.shadow);
    let direct = irradiance * diffuse + irradiance * brdf * std::f32::consts::PI;
    // computeMultiscattering: the lobe's single and multiple scattering of the ambient.
    let (a, b) = dfg_approx(n_dot_v, roughness);
    let fss_ess = f0 * a + Vec3::splat(b);
    let ess = a + b;
    let ems = 1.0 - ess;
    let favg = f0 + (Vec3::ONE - f0) * (1.0 / 21.0);
    let fms = fss_ess * favg / (Vec3::ONE - favg * ems);
    let multi = fms * ems;
    let total = (fss_ess + multi).max_element();
    let indirect = diffuse * (1.0 - total) * i.ambient + multi * i.ambient;
    direct + indirect + i.emissive
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(base: Vec3, metalness: f32, roughness: f32) -> PbrInput {
        PbrInput {
            normal: Vec3::Z,
            to_light: Vec3::new(0.0, 0.6, 0.8),
            to_eye: Vec3::new(0.3, 0.0, 1.0).normalize(),
            light_color: Vec3::splat(1.5),
            shadow: 1.0,
            ambient: Vec3::splat(0.3),
            base,
            metalness,
            roughness,
            emissive: Vec3::ZERO,
        }
    }

    #[test]
    fn metals_lose_their_diffuse_colour() {
        let close = |a: Vec3, b: Vec3| (a - b).abs().max_element() < 1e-6;
        assert!(close(diffuse_color(Vec3::ONE, 0.75), Vec3::splat(0.25)));
        assert_eq!(diffuse_color(Vec3::ONE, 2.0), Vec3::ZERO);
        assert!(close(specular_color(Vec3::ONE, 0.0), Vec3::splat(0.04)));
        let base = Vec3::new(0.5, 0.2, 0.1);
        assert!(close(specular_color(base, 1.0), base));
    }

    #[test]
    fn a_rough_dielectric_is_close_to_lambert() {
        let i = input(Vec3::splat(0.5), 0.0, 1.0);
        let lambert = 0.5 * 1.5 * 0.8 + 0.5 * 0.3;
        let c = shade(&i);
        // The specular lobe of a rough 4 % reflector adds little, and takes a little ambient.
        assert!((c.x - lambert).abs() < 0.05, "{c} vs {lambert}");
        assert!(c.x > 0.5 * 1.5 * 0.8, "{c}");
    }

    #[test]
    fn a_mostly_metallic_grey_is_much_darker_than_the_same_dielectric() {
        // Godette's Backpack buttons: a mid-grey texel at metalness 0.75, roughness 0.6.
        let grey = Vec3::splat(0.2);
        let metal = shade(&input(grey, 0.75, 0.6));
        let dielectric = shade(&input(grey, 0.0, 0.6));
        assert!(metal.x < dielectric.x * 0.75, "{metal} vs {dielectric}");
        assert!(metal.x > 0.0);
    }

    #[test]
    fn the_highlight_sits_on_the_mirror_direction() {
        let mut i = input(Vec3::splat(0.5), 1.0, 0.3);
        i.to_eye = Vec3::new(0.0, -0.6, 0.8);
        let mirror = shade(&i);
        i.to_eye = Vec3::new(0.6, 0.0, 0.8);
        let aside = shade(&i);
        assert!(mirror.x > aside.x * 3.0, "{mirror} vs {aside}");
    }

    #[test]
    fn shadow_removes_only_the_direct_light() {
        let mut i = input(Vec3::splat(0.5), 0.0, 0.8);
        i.shadow = 0.0;
        let c = shade(&i);
        assert!(c.x > 0.0 && c.x < 0.5 * 0.3 + 0.01, "{c}");
    }

    #[test]
    fn texture_channels_scale_the_factors() {
        let p = PbrParams {
            metallic: 1.0,
            roughness: 0.5,
            texture: Some(0),
        };
        assert_eq!(p.at(Some([0, 255, 191, 255])), (191.0 / 255.0, 0.5));
        assert_eq!(p.at(None), (1.0, 0.5));
    }
}

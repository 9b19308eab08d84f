//! Plain glTF materials on the hero as metallic-roughness PBR (`hero::pbr`, mirrored by the PBR
//! branch of `render/shaders/mtoon.frag`): what is read from the real Godette model, which of
//! her materials take the PBR path, and what the CPU reference gives under the plaza's light
//! through the plaza's tone curve.

mod support;

use glam::Vec3;
use support::{load, plaza_level};
use throng::hero::mtoon::{raw_gi, MToonParams};
use throng::hero::pbr::{shade, PbrInput, PbrParams};
use throng::level::ToneMapping;
use throng::render::display_color;

/// 8-bit sRGB to linear, the exact curve the shaders decode colour textures with.
fn linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn godettes_backpack_is_pbr_with_the_gltf_defaults_and_the_rest_is_not() {
    let scene = load("Godette_vrm_v4.vrm");
    let by_name = |n: &str| {
        scene
            .materials
            .iter()
            .find(|m| m.name.as_deref() == Some(n))
            .unwrap_or_else(|| panic!("no material {n}"))
    };
    let backpack = by_name("Backpack");
    // No metallicFactor / roughnessFactor in the file: glTF's defaults, 1.0 each.
    assert_eq!((backpack.metallic, backpack.roughness), (1.0, 1.0));
    let mr = backpack
        .metallic_roughness_texture
        .expect("its metallic-roughness texture");
    assert_eq!(scene.textures[mr].name.as_deref(), Some("fabric"));
    assert!(backpack.mtoon.is_none() && !backpack.unlit);
    // The MToon materials and the unlit logo never take the PBR path.
    for n in ["Face", "Body", "GodotLogo"] {
        assert!(PbrParams::of(by_name(n)).is_none(), "{n}");
    }
    let mut warnings = Vec::new();
    let p = MToonParams::from_material(backpack, scene.textures.len(), &mut warnings);
    assert!(warnings.is_empty(), "{warnings:?}");
    let pbr = p.pbr.expect("Backpack shades as PBR");
    assert_eq!(pbr.texture, Some(mr));
    assert_eq!(p.textures.metallic_roughness, Some(mr));
    // Metalness (B) where the fabric texture is: mostly metallic, as three-vrm draws it.
    let t = &scene.textures[mr];
    let mut blue: Vec<u8> = t.rgba8.chunks_exact(4).map(|px| px[2]).collect();
    blue.sort_unstable();
    let median = blue[blue.len() / 2] as f32 / 255.0;
    let mut green: Vec<u8> = t.rgba8.chunks_exact(4).map(|px| px[1]).collect();
    green.sort_unstable();
    let roughness = green[green.len() / 2] as f32 / 255.0;
    assert!(
        (0.5..=0.7).contains(&roughness),
        "median roughness {roughness}"
    );
    assert!((0.6..=0.9).contains(&median), "median metalness {median}");
}

/// The plaza's sun and ambient on a vertical surface seen head-on (as the close-up's camera
/// sees the shorts' buttons), its normal `azimuth_deg` round from the sun's own azimuth,
/// through the plaza's default tone curve; 0..255.
fn plaza_level_of(base: u8, metalness: f32, roughness: f32, azimuth_deg: f32) -> f32 {
    let to_light = -plaza_level().lighting.sun_direction.normalize();
    let a = to_light.x.atan2(to_light.z) + azimuth_deg.to_radians();
    lit(base, metalness, roughness, Vec3::new(a.sin(), 0.0, a.cos()))
}

/// `plaza_level_of` for any normal (seen head-on).
fn lit(base: u8, metalness: f32, roughness: f32, normal: Vec3) -> f32 {
    let level = plaza_level();
    let l = &level.lighting;
    let to_light = -l.sun_direction.normalize();
    let input = PbrInput {
        normal,
        to_light,
        to_eye: normal,
        light_color: l.sun_color * l.sun_intensity,
        shadow: 1.0,
        ambient: raw_gi(l.ambient, normal),
        base: Vec3::splat(linear(base)),
        metalness,
        roughness,
        emissive: Vec3::ZERO,
    };
    display_color(shade(&input), ToneMapping::Neutral).x * 255.0
}

#[test]
fn backpack_texels_at_metalness_075_render_dark_and_white_dielectrics_stay_white() {
    // The fabric texture's roughness is about 0.6 (G 149..164 of 255). In the close-up the sun
    // is behind her: the buttons face away from it (90° to 180° round from its azimuth).
    for base in [115u8, 134, 153] {
        for roughness in [0.5, 0.6, 0.7] {
            for azimuth in [90.0, 120.0, 150.0, 180.0] {
                let v = plaza_level_of(base, 0.75, roughness, azimuth);
                assert!(
                    v < 50.0,
                    "texel {base}, roughness {roughness}, {azimuth}°: {v}"
                );
            }
            // Facing the sun too, metal is darker than the same texel as a dielectric.
            for azimuth in [0.0, 45.0, 90.0, 180.0] {
                let metal = plaza_level_of(base, 0.75, roughness, azimuth);
                let dielectric = plaza_level_of(base, 0.0, roughness, azimuth);
                assert!(
                    metal < dielectric,
                    "{base} {roughness} {azimuth}°: {metal} vs {dielectric}"
                );
            }
        }
    }
    // Turned to the sun, the same texel as a dielectric is mid-grey (metalness is what darkens
    // it) and a white dielectric stays white.
    let sun = -plaza_level().lighting.sun_direction.normalize();
    let grey = lit(134, 0.0, 1.0, sun);
    assert!(grey > 100.0, "{grey}");
    let white = lit(255, 0.0, 1.0, sun);
    assert!(white >= 240.0, "white dielectric facing the sun: {white}");
}

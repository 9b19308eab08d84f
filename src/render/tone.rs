//! The tone curve: linear light to display colour. The GLSL (`shaders/tone.glsl`) is put into
//! every lit fragment shader; `display_color` is the same maths on the CPU for the sky's clear
//! colour, so the fogged horizon meets the sky without a seam.

use glam::Vec3;

use crate::level::ToneMapping;

const TONE_GLSL: &str = include_str!("shaders/tone.glsl");

/// The `tone_curve` uniform's value for a level's choice.
pub fn curve_uniform(curve: ToneMapping) -> f32 {
    match curve {
        ToneMapping::Neutral => 0.0,
        ToneMapping::Aces => 1.0,
    }
}

/// `fragment` with the tone curve's GLSL after its `#version` line, when it calls
/// `display_color` (shaders that do not tone-map are returned unchanged).
pub fn with_tone_curve(fragment: &str) -> std::borrow::Cow<'_, str> {
    if !fragment.contains("display_color(") {
        return fragment.into();
    }
    match fragment.split_once('\n') {
        Some((first, rest)) if first.starts_with("#version") => {
            format!("{first}\n{TONE_GLSL}{rest}").into()
        }
        _ => format!("{TONE_GLSL}{fragment}").into(),
    }
}

/// Khronos PBR Neutral (see `shaders/tone.glsl`).
pub fn neutral(c: Vec3) -> Vec3 {
    const START_COMPRESSION: f32 = 0.8 - 0.04;
    const DESATURATION: f32 = 0.15;
    let x = c.min_element();
    let offset = if x < 0.08 { x - 6.25 * x * x } else { 0.04 };
    let c = c - Vec3::splat(offset);
    let peak = c.max_element();
    if peak < START_COMPRESSION {
        return c;
    }
    let d = 1.0 - START_COMPRESSION;
    let new_peak = 1.0 - d * d / (peak + d - START_COMPRESSION);
    let c = c * (new_peak / peak);
    let g = 1.0 - 1.0 / (DESATURATION * (peak - new_peak) + 1.0);
    c.lerp(Vec3::splat(new_peak), g)
}

/// Narkowicz's ACES fit at 0.8 exposure.
pub fn aces(c: Vec3) -> Vec3 {
    let x = c * 0.8;
    (x * (x * 2.51 + 0.03)) / (x * (x * 2.43 + 0.59) + 0.14)
}

/// The exact sRGB transfer function of one channel (0..1 linear to 0..1 encoded).
pub fn srgb_encode(c: f32) -> f32 {
    if c < 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// The colour a linear value ends up as on screen: the curve, then the sRGB encoding (the
/// exact curve, as three.js writes it; a 2.2 power left darks a few levels too light).
pub fn display_color(linear: Vec3, curve: ToneMapping) -> Vec3 {
    let c = linear.max(Vec3::ZERO);
    let mapped = match curve {
        ToneMapping::Neutral => neutral(c),
        ToneMapping::Aces => aces(c),
    };
    let m = mapped.clamp(Vec3::ZERO, Vec3::ONE);
    Vec3::new(srgb_encode(m.x), srgb_encode(m.y), srgb_encode(m.z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutral_keeps_colours_below_the_compression_start() {
        let skin = Vec3::new(0.7, 0.45, 0.4);
        assert_approx!(neutral(skin), skin - Vec3::splat(0.04), 1e-6);
        // Near black the offset fades out: black stays black.
        assert_approx!(neutral(Vec3::ZERO), Vec3::ZERO, 1e-9);
    }

    #[test]
    fn neutral_keeps_bright_whites_nearly_white_where_aces_greys_them() {
        let white = Vec3::splat(2.0);
        let n = display_color(white, ToneMapping::Neutral);
        let a = display_color(white, ToneMapping::Aces);
        assert!(n.x > 0.98, "neutral {n}");
        assert!(a.x < 0.96, "aces {a}");
        // Highlights never clip: a brighter input is still brighter.
        assert!(neutral(Vec3::splat(3.0)).x > neutral(white).x);
    }

    #[test]
    fn aces_matches_the_former_curve() {
        // The value the sky and the shaders gave before the curve became selectable (0.7768,
        // 0.8284, 0.8672 with the 2.2 power), now through the exact sRGB encoding.
        let sky = display_color(Vec3::new(0.55, 0.72, 0.92), ToneMapping::Aces);
        assert_approx!(sky, Vec3::new(0.7819, 0.8328, 0.8708), 2e-3);
    }

    #[test]
    fn the_srgb_encoding_is_the_exact_curve_and_darker_than_a_power_in_the_darks() {
        assert_eq!(srgb_encode(0.0), 0.0);
        assert!((srgb_encode(1.0) - 1.0).abs() < 1e-6);
        // Continuous where the linear toe meets the power.
        assert!((srgb_encode(0.003_130_8) - 0.040_45).abs() < 1e-4);
        // The leggings' linear 0.0131: 30 levels, where the 2.2 power gave 36.
        assert!((srgb_encode(0.0131) * 255.0 - 30.2).abs() < 0.2);
        assert!((0.0131f32.powf(1.0 / 2.2) * 255.0 - 35.5).abs() < 0.2);
    }

    #[test]
    fn the_snippet_goes_after_the_version_line_of_shaders_that_tone_map() {
        let src = "#version 330\nvoid main() { c = display_color(x); }";
        let out = with_tone_curve(src);
        assert!(out.starts_with("#version 330\n"));
        assert!(out.contains("uniform float tone_curve;"));
        assert!(out.ends_with("void main() { c = display_color(x); }"));
        let depth = "#version 330\nvoid main() {}";
        assert_eq!(with_tone_curve(depth), depth);
    }
}

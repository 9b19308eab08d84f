//! Colour interpolation. Channels hold *linear* RGB because that is what shaders consume, so
//! the endpoints match exactly. Mixing in linear light gives brighter, greyer midpoints than a
//! CSS transition; [`ColorSpace::Srgb`] mixes the gamma-encoded values instead for that look.

/// Where a colour tween mixes its endpoints. Alpha (a 4th component) is always mixed linearly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorSpace {
    #[default]
    Linear,
    Srgb,
}

/// sRGB transfer function, decoding: gamma-encoded component → linear light.
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// sRGB transfer function, encoding: linear light → gamma-encoded component.
pub fn linear_to_srgb(c: f64) -> f64 {
    if c <= 0.0031308 {
        c * 12.92
    } else {
        1.055 * c.max(0.0).powf(1.0 / 2.4) - 0.055
    }
}

/// Mixes one component of two linear colours. `component` ≥ 3 is alpha and is never encoded.
pub fn mix_component(from: f64, to: f64, t: f64, component: usize, space: ColorSpace) -> f64 {
    match space {
        ColorSpace::Srgb if component < 3 => {
            let a = linear_to_srgb(from);
            let b = linear_to_srgb(to);
            srgb_to_linear(a + (b - a) * t)
        }
        _ => from + (to - from) * t,
    }
}

// The tone curve every lit fragment shader ends with (prepended after `#version` by
// `render::tone::with_tone_curve`); `render::tone` is its CPU twin for the sky.
uniform float tone_curve;  // 0 Khronos PBR Neutral, 1 ACES fit (level `lighting.tone_mapping`)

// Khronos PBR Neutral (github.com/KhronosGroup/ToneMapping): colours below the start of
// compression pass through, so toon and stylised models keep their painted colours.
vec3 tone_neutral(vec3 c) {
    const float start_compression = 0.8 - 0.04;
    const float desaturation = 0.15;
    float x = min(c.r, min(c.g, c.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    c -= offset;
    float peak = max(c.r, max(c.g, c.b));
    if (peak < start_compression) return c;
    const float d = 1.0 - start_compression;
    float new_peak = 1.0 - d * d / (peak + d - start_compression);
    c *= new_peak / peak;
    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(c, vec3(new_peak), g);
}

// Narkowicz's ACES fit at 0.8 exposure: more contrast, greyer whites.
vec3 tone_aces(vec3 x) {
    x *= 0.8;
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

// The exact sRGB transfer function (IEC 61966-2-1), as three.js and the screen decode it: a
// 2.2 power instead left darks up to ~5 levels too light (leggings 36 where three-vrm has 31).
vec3 srgb_encode(vec3 c) {
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

// Linear light to the sRGB-encoded colour written to the screen.
vec3 display_color(vec3 linear) {
    vec3 c = max(linear, vec3(0.0));
    vec3 mapped = tone_curve > 0.5 ? tone_aces(c) : tone_neutral(c);
    return srgb_encode(clamp(mapped, 0.0, 1.0));
}

// LOD cross-fade (view/lod_fade.rs owns the bands): a person inside the band around a level
// boundary is drawn at both levels, and each level keeps the pixels of a 4x4 ordered dither that
// its coverage gives it: the finer level the thresholds below its coverage, the coarser level
// the others, so together they cover each pixel once. Inserted after #version by render/crowd.rs
// into the crowd's lit and depth fragment shaders.
#define LOD_FADE
flat in vec3 v_origin;   // where the person stands (world); crowd.vert writes it
uniform vec3 fade_eye;   // the eye the LOD distances were measured from
uniform vec4 fade_band;  // this level's fade-in band (start, end) and fade-out band (start, end)
uniform vec2 fade_near;  // near-lens band (hidden before, whole after); zero: no near fade
const float BODY_AXIS = 1.7; // view/lod_fade.rs BODY_AXIS

// The coarser level's share across a band; `none` where the band has no width.
float fade_ramp(float d, vec2 band, float none) {
    return band.y > band.x ? clamp((d - band.x) / (band.y - band.x), 0.0, 1.0) : none;
}

// This pixel's Bayer threshold, in the middle of its step: (k + 0.5) / 16.
float fade_threshold() {
    const int bayer[16] = int[16](0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5);
    ivec2 p = ivec2(gl_FragCoord.xy) & 3;
    return (float(bayer[p.y * 4 + p.x]) + 0.5) / 16.0;
}

// view/lod_fade.rs near_lens_coverage: the share kept of a body near the lens.
float near_lens_coverage() {
    if (fade_near.y <= fade_near.x) return 1.0;
    float up = clamp(fade_eye.y - v_origin.y, 0.0, BODY_AXIS);
    float d = distance(v_origin + vec3(0.0, up, 0.0), fade_eye);
    return clamp((d - fade_near.x) / (fade_near.y - fade_near.x), 0.0, 1.0);
}

bool lod_faded_out() {
    float d = distance(v_origin, fade_eye);
    float fade_in = fade_ramp(d, fade_band.xy, 1.0);
    float fade_out = fade_ramp(d, fade_band.zw, 0.0);
    float threshold = fade_threshold();
    // Near the lens a body keeps the thresholds below its coverage, whatever its level.
    if (threshold >= near_lens_coverage()) return true;
    // Fading out, this is the finer level: it keeps the thresholds below its coverage.
    if (fade_out > 0.0) return threshold >= 1.0 - fade_out;
    // Fading in, the coarser one: it keeps the thresholds the finer level leaves.
    return threshold < 1.0 - fade_in;
}

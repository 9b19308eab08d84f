// MToon 1.0 for the hero, forward and outline passes (PASS_OUTLINE defined for the latter).
// Mirrors hero::mtoon (the CPU reference the tests check against hand-computed values).
in vec3 v_world;
in vec3 v_normal;
in vec4 v_tangent;
in vec2 v_uv;

uniform vec3 eye;
uniform vec3 sun_dir;      // direction light travels, normalised
uniform vec3 sun_color;    // linear, intensity applied
uniform vec3 ambient;      // linear
uniform vec3 sky_color;    // linear, also the fog colour
uniform float fog_distance;
uniform mat4 light_view_proj;
uniform float shadows_on;
uniform float shadow_texel;
uniform float time;
uniform vec2 uv_scroll;
uniform float uv_rotation;

uniform vec4 lit_color;
uniform vec3 shade_color;
uniform float shading_shift;
uniform float shift_tex_scale;
uniform float toony;
uniform float gi_eq;
uniform vec3 emissive;
uniform float normal_scale;
uniform float use_normal_map;
uniform vec3 matcap_factor;
uniform vec3 rim_color;
uniform float rim_fresnel;
uniform float rim_lift;
uniform float rim_mix;
uniform vec3 outline_color;
uniform float outline_mix;
// 0 opaque, 1 mask, 2 blend
uniform float alpha_mode;
uniform float alpha_cutoff;

uniform sampler2D shadow_map;
uniform sampler2D base_tex;
uniform sampler2D shade_tex;
uniform sampler2D shift_tex;
uniform sampler2D normal_tex;
uniform sampler2D emissive_tex;
uniform sampler2D matcap_tex;
uniform sampler2D rim_tex;
uniform sampler2D uv_mask_tex;

out vec4 frag_color;

// Colour textures are sRGB-encoded; shading happens in linear.
vec3 srgb_to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

vec2 animated_uv(vec2 uv, float mask) {
    float a = uv_rotation * time * mask;
    float c = cos(a);
    float s = sin(a);
    uv = mat2(c, s, -s, c) * (uv - 0.5) + 0.5;
    return uv + uv_scroll * time * mask;
}

// 0 = fully shadowed, 1 = lit; 3x3 PCF like the scenery.
float sun_visibility(vec3 world, vec3 n) {
    if (shadows_on < 0.5) return 1.0;
    vec4 lp = light_view_proj * vec4(world + n * 0.03, 1.0);
    vec3 uvz = lp.xyz / lp.w * 0.5 + 0.5;
    if (uvz.x <= 0.0 || uvz.x >= 1.0 || uvz.y <= 0.0 || uvz.y >= 1.0 || uvz.z >= 1.0) return 1.0;
    float lit = 0.0;
    for (int y = -1; y <= 1; y++) {
        for (int x = -1; x <= 1; x++) {
            float d = texture(shadow_map, uvz.xy + vec2(x, y) * shadow_texel).r;
            lit += uvz.z - 0.002 <= d ? 1.0 : 0.0;
        }
    }
    return lit / 9.0;
}

float linearstep(float a, float b, float t) {
    if (b - a <= 1e-6) return t >= b ? 1.0 : 0.0;
    return clamp((t - a) / (b - a), 0.0, 1.0);
}

vec3 raw_gi(vec3 n) {
    return ambient * (0.55 + 0.45 * (0.5 + 0.5 * n.y));
}

vec3 gi(vec3 n) {
    vec3 uniformed = (raw_gi(vec3(0.0, 1.0, 0.0)) + raw_gi(vec3(0.0, -1.0, 0.0))) * 0.5;
    return mix(raw_gi(n), uniformed, gi_eq);
}

void main() {
    float mask = texture(uv_mask_tex, v_uv).b;
    vec2 uv = animated_uv(v_uv, mask);
    vec4 base_sample = texture(base_tex, uv);
    vec4 base = lit_color * vec4(srgb_to_linear(base_sample.rgb), base_sample.a);
    if (alpha_mode > 0.5 && alpha_mode < 1.5 && base.a < alpha_cutoff) discard;

    vec3 n = normalize(v_normal);
#ifndef PASS_OUTLINE
    // Double-sided faces seen from behind shade with their back normal.
    if (!gl_FrontFacing) n = -n;
    if (use_normal_map > 0.5) {
        vec3 t = normalize(v_tangent.xyz - n * dot(n, v_tangent.xyz));
        vec3 b = cross(n, t) * (v_tangent.w < 0.0 ? -1.0 : 1.0);
        vec3 tn = texture(normal_tex, uv).xyz * 2.0 - 1.0;
        tn.xy *= normal_scale;
        n = normalize(mat3(t, b, n) * tn);
    }
#endif
    vec3 l = -sun_dir;
    vec3 v = normalize(eye - v_world);
    float shadow = sun_visibility(v_world, n);

    float s = dot(n, l) + shading_shift + texture(shift_tex, uv).r * shift_tex_scale;
    s = linearstep(-1.0 + toony, 1.0 - toony, s) * shadow;
    vec3 lit = base.rgb;
    vec3 shade = shade_color * srgb_to_linear(texture(shade_tex, uv).rgb);
    vec3 col = mix(shade, lit, s) * sun_color;
    col += gi(n) * lit;

    // Rim: matcap (view-space normal lookup, per the spec) plus the parametric rim.
    vec3 vx = normalize(vec3(v.z, 0.0, -v.x));
    vec3 vy = cross(v, vx);
    vec2 matcap_uv = vec2(dot(vx, n), dot(vy, n)) * 0.495 + 0.5;
    vec3 rim = matcap_factor * srgb_to_linear(texture(matcap_tex, matcap_uv).rgb);
    float parametric = pow(clamp(1.0 - dot(n, v) + rim_lift, 0.0, 1.0), max(rim_fresnel, 1e-5));
    rim += parametric * rim_color;
    rim *= srgb_to_linear(texture(rim_tex, uv).rgb);
    rim *= mix(vec3(1.0), sun_color + gi(n), rim_mix);
    col += rim;
    col += emissive * srgb_to_linear(texture(emissive_tex, uv).rgb);

#ifdef PASS_OUTLINE
    col = outline_color * mix(vec3(1.0), col, outline_mix);
#endif
    float d = length(v_world - eye);
    float fog = clamp((d - fog_distance * 0.35) / fog_distance, 0.0, 0.85);
    col = mix(col, sky_color, fog * fog);
    float alpha = alpha_mode > 1.5 ? base.a : 1.0;
    frag_color = vec4(display_color(col), alpha);
}

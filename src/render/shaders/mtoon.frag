// MToon 1.0 for the hero, forward and outline passes (PASS_OUTLINE defined for the latter).
// Mirrors hero::mtoon (the CPU reference the tests check against hand-computed values).
// Plain glTF materials (pbr_on) take the metallic-roughness branch instead, mirroring
// hero::pbr (three.js's MeshStandardMaterial under a sun and an ambient, no environment map).
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
// 1: metallic-roughness PBR instead of the toon ramp; factors times metal_rough_tex B / G.
uniform float pbr_on;
uniform float metallic;
uniform float roughness;

uniform sampler2D shadow_map;
uniform sampler2D base_tex;
uniform sampler2D shade_tex;
uniform sampler2D shift_tex;
uniform sampler2D normal_tex;
uniform sampler2D emissive_tex;
uniform sampler2D matcap_tex;
uniform sampler2D rim_tex;
uniform sampler2D uv_mask_tex;
uniform sampler2D metal_rough_tex;

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

const float PI = 3.14159265;

// three.js's GGX pieces (bsdfs.glsl.js): D_GGX, V_GGX_SmithCorrelated, F_Schlick with F90 = 1.
float d_ggx(float alpha, float nh) {
    float a2 = alpha * alpha;
    float denom = nh * nh * (a2 - 1.0) + 1.0;
    return a2 / (PI * denom * denom);
}

float v_smith(float alpha, float nl, float nv) {
    float a2 = alpha * alpha;
    float gv = nl * sqrt(a2 + (1.0 - a2) * nv * nv);
    float gl = nv * sqrt(a2 + (1.0 - a2) * nl * nl);
    return 0.5 / max(gv + gl, 1e-6);
}

vec3 f_schlick(vec3 f0, float vh) {
    float fresnel = exp2((-5.55473 * vh - 6.98316) * vh);
    return f0 * (1.0 - fresnel) + vec3(fresnel);
}

// The sun plus the hemisphere ambient on a metallic-roughness surface (hero::pbr::shade).
// The plaza's sun colour is three.js's light colour over pi, hence the pi on the specular.
vec3 pbr_shade(vec3 n, vec3 l, vec3 v, vec3 base, float metal, float rough, float shadow) {
    rough = clamp(rough, 0.0525, 1.0);
    float alpha = rough * rough;
    vec3 diffuse = base * (1.0 - metal);
    vec3 f0 = mix(vec3(0.04), base, metal);
    float nl = clamp(dot(n, l), 0.0, 1.0);
    float nv = clamp(dot(n, v), 0.0, 1.0);
    // Sun straight behind the surface as seen: no half vector (normalize would give NaN).
    vec3 hv = l + v;
    vec3 h = dot(hv, hv) > 1e-12 ? normalize(hv) : n;
    float nh = clamp(dot(n, h), 0.0, 1.0);
    float vh = clamp(dot(v, h), 0.0, 1.0);
    vec3 brdf = f_schlick(f0, vh) * (v_smith(alpha, nl, nv) * d_ggx(alpha, nh));
    vec3 irradiance = sun_color * (nl * shadow);
    vec3 col = irradiance * diffuse + irradiance * brdf * PI;
    // computeMultiscattering with DFGApprox: ambient reflected by the lobe, taken from diffuse.
    vec4 r = rough * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
    float a004 = min(r.x * r.x, exp2(-9.28 * nv)) * r.x + r.y;
    vec2 fab = vec2(-1.04, 1.04) * a004 + r.zw;
    vec3 fss_ess = f0 * fab.x + fab.y;
    float ems = 1.0 - (fab.x + fab.y);
    vec3 favg = f0 + (1.0 - f0) / 21.0;
    vec3 multi = fss_ess * favg / (1.0 - ems * favg) * ems;
    vec3 total = fss_ess + multi;
    vec3 amb = raw_gi(n);
    col += diffuse * (1.0 - max(total.r, max(total.g, total.b))) * amb + multi * amb;
    return col;
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

    vec3 col;
    if (pbr_on > 0.5) {
        // Data texture: linear, no sRGB decode.
        vec4 mr = texture(metal_rough_tex, uv);
        col = pbr_shade(n, l, v, base.rgb, metallic * mr.b, roughness * mr.g, shadow);
    } else {
        float s = dot(n, l) + shading_shift + texture(shift_tex, uv).r * shift_tex_scale;
        s = linearstep(-1.0 + toony, 1.0 - toony, s) * shadow;
        vec3 lit = base.rgb;
        vec3 shade = shade_color * srgb_to_linear(texture(shade_tex, uv).rgb);
        col = mix(shade, lit, s) * sun_color;
        col += gi(n) * lit;

        // Rim: matcap (view-space normal lookup, per the spec) plus the parametric rim.
        vec3 vx = normalize(vec3(v.z, 0.0, -v.x));
        vec3 vy = cross(v, vx);
        vec2 matcap_uv = vec2(dot(vx, n), dot(vy, n)) * 0.495 + 0.5;
        vec3 rim = matcap_factor * srgb_to_linear(texture(matcap_tex, matcap_uv).rgb);
        float parametric =
            pow(clamp(1.0 - dot(n, v) + rim_lift, 0.0, 1.0), max(rim_fresnel, 1e-5));
        rim += parametric * rim_color;
        rim *= srgb_to_linear(texture(rim_tex, uv).rgb);
        rim *= mix(vec3(1.0), sun_color + gi(n), rim_mix);
        col += rim;
    }
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

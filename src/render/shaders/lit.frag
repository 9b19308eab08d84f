#version 330
in vec3 v_world;
in vec3 v_normal;
in vec3 v_color;

uniform vec3 sun_dir;      // direction light travels, normalised
uniform vec3 sun_color;    // linear, intensity applied
uniform vec3 ambient;      // linear
uniform vec3 sky_color;    // linear, also the fog colour
uniform vec3 eye;
uniform float fog_distance;
uniform mat4 light_view_proj;
uniform float shadows_on;
uniform float shadow_texel;
uniform sampler2D shadow_map;

out vec4 frag_color;

// 0 = fully shadowed, 1 = lit; 3x3 percentage-closer filtering softens the edges. The biases
// are measured in shadow texels (their size follows the map's reach): the point looked up is
// moved off the surface along its normal, further the more the surface turns from the sun (the
// filter's outer taps then land on depths the surface itself wrote nearer the sun: acne), and
// compared with one texel of depth to spare. The caster pass adds a slope-scaled offset.
// (The same function is in lit.frag and ground.frag.)
float sun_visibility(vec3 world, vec3 n) {
    if (shadows_on < 0.5) return 1.0;
    // The sun's projection is orthographic: row 0 scales metres to x, row 2 to depth.
    float texel = 2.0 * shadow_texel
        / length(vec3(light_view_proj[0][0], light_view_proj[1][0], light_view_proj[2][0]));
    float depth_per_metre =
        0.5 * length(vec3(light_view_proj[0][2], light_view_proj[1][2], light_view_proj[2][2]));
    float facing = clamp(dot(n, -sun_dir), 0.0, 1.0);
    vec3 p = world + n * texel * (1.0 + 2.0 * (1.0 - facing));
    vec4 lp = light_view_proj * vec4(p, 1.0);
    vec3 uvz = lp.xyz / lp.w * 0.5 + 0.5;
    if (uvz.x <= 0.0 || uvz.x >= 1.0 || uvz.y <= 0.0 || uvz.y >= 1.0 || uvz.z >= 1.0) return 1.0;
    float reference = uvz.z - texel * depth_per_metre;
    float lit = 0.0;
    for (int y = -1; y <= 1; y++) {
        for (int x = -1; x <= 1; x++) {
            float d = texture(shadow_map, uvz.xy + vec2(x, y) * shadow_texel).r;
            lit += reference <= d ? 1.0 : 0.0;
        }
    }
    return lit / 9.0;
}

vec3 shade(vec3 albedo, vec3 n) {
    float lambert = max(dot(n, -sun_dir), 0.0) * sun_visibility(v_world, n);
    // Hemisphere ambient: surfaces facing the sky get more of it than those facing the paving.
    float sky_amount = 0.5 + 0.5 * n.y;
    vec3 amb = ambient * mix(0.55, 1.0, sky_amount);
    return albedo * (amb + sun_color * lambert);
}

void main() {
#ifdef LOD_FADE
    if (lod_faded_out()) discard;
#endif
#ifdef IMPOSTOR
    // A picture from the impostor atlas (impostor.glsl, prepended): its colour with this
    // person's tint and skin tone, and its normal turned to the person's heading.
    vec3 albedo;
    vec3 n;
    if (!impostor_surface(albedo, n)) discard;
    vec3 c = shade(albedo, n);
#else
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 c = shade(v_color, n);
#endif
    float d = length(v_world - eye);
    float fog = clamp((d - fog_distance * 0.35) / fog_distance, 0.0, 0.85);
    c = mix(c, sky_color, fog * fog);
    frag_color = vec4(display_color(c), 1.0);
}

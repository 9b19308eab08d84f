#version 330
// Paving inside the plaza bounds (a two-colour checker with grout lines), asphalt outside.
in vec3 v_world;

uniform vec3 sun_dir;
uniform vec3 sun_color;
uniform vec3 ambient;
uniform vec3 sky_color;
uniform vec3 eye;
uniform float fog_distance;
uniform mat4 light_view_proj;
uniform float shadows_on;
uniform float shadow_texel;
uniform sampler2D shadow_map;
uniform vec4 bounds;       // min x, min z, max x, max z
uniform float tile_size;
uniform vec3 color_a;
uniform vec3 color_b;

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

void main() {
    vec2 p = v_world.xz;
    vec2 cell = p / tile_size;
    // Box-filtered checker: fades to the average colour where tiles get smaller than a pixel,
    // so distant paving does not shimmer.
    vec2 w = max(fwidth(cell), vec2(1e-4));
    vec2 i = 2.0 * (abs(fract((cell - 0.5 * w) * 0.5) - 0.5) - abs(fract((cell + 0.5 * w) * 0.5) - 0.5)) / w;
    float checker = 0.5 - 0.5 * i.x * i.y;
    vec3 albedo = mix(color_a, color_b, checker);
    // Grout lines between tiles.
    vec2 g = abs(fract(cell) - 0.5);
    float line_w = 0.03;
    float grout = 1.0 - smoothstep(0.5 - line_w - w.x, 0.5 - line_w, max(g.x, g.y));
    albedo *= mix(0.8, 1.0, grout);
    bool inside = p.x >= bounds.x && p.y >= bounds.y && p.x <= bounds.z && p.y <= bounds.w;
    if (!inside) {
        albedo = vec3(0.16, 0.16, 0.17);
    }
    // A kerb line marks the plaza edge.
    vec2 edge = min(abs(p - bounds.xy), abs(p - bounds.zw));
    float on_edge = (inside || max(p.x - bounds.z, bounds.x - p.x) < 0.25 || max(p.y - bounds.w, bounds.y - p.y) < 0.25)
        && min(edge.x, edge.y) < 0.25 ? 1.0 : 0.0;
    albedo = mix(albedo, vec3(0.75, 0.73, 0.68), on_edge);
    float lambert = max(-sun_dir.y, 0.0) * sun_visibility(v_world, vec3(0.0, 1.0, 0.0));
    vec3 c = albedo * (ambient + sun_color * lambert);
    float d = length(v_world - eye);
    float fog = clamp((d - fog_distance * 0.35) / fog_distance, 0.0, 0.85);
    c = mix(c, sky_color, fog * fog);
    frag_color = vec4(display_color(c), 1.0);
}

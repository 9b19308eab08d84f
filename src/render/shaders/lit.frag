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

out vec4 frag_color;

// Narkowicz's ACES fit: keeps sunlit paving from clipping to white and adds contrast.
vec3 tonemap(vec3 x) {
    x *= 0.8;
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

vec3 shade(vec3 albedo, vec3 n) {
    float lambert = max(dot(n, -sun_dir), 0.0);
    // Hemisphere ambient: surfaces facing the sky get more of it than those facing the paving.
    float sky_amount = 0.5 + 0.5 * n.y;
    vec3 amb = ambient * mix(0.55, 1.0, sky_amount);
    return albedo * (amb + sun_color * lambert);
}

void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 c = shade(v_color, n);
    float d = length(v_world - eye);
    float fog = clamp((d - fog_distance * 0.35) / fog_distance, 0.0, 0.85);
    c = mix(c, sky_color, fog * fog);
    frag_color = vec4(pow(tonemap(c), vec3(1.0 / 2.2)), 1.0);
}

#version 330
// Static scenery and crowd markers: per-vertex colour, lit by the sun in the fragment shader.
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
// Crowd markers only: 1 where the instance tint applies (clothes), 0 for skin.
in float in_tint_mask;
// Crowd markers only: (x, z, heading, scale) and tint per instance.
in vec4 inst_place;
in vec3 inst_tint;

uniform mat4 view_proj;
// 0: static scenery; 1: crowd markers from instance attributes; 2: one marker from uniforms
// (the naive one-draw-per-person path the benchmark compares against).
uniform float instanced;
uniform vec4 single_place;
uniform vec3 single_tint;

out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;

void main() {
    vec3 p = in_pos;
    vec3 n = in_normal;
    vec3 c = in_color;
    if (instanced > 0.5) {
        vec4 place = instanced > 1.5 ? single_place : inst_place;
        vec3 tint = instanced > 1.5 ? single_tint : inst_tint;
        float s = sin(place.z);
        float co = cos(place.z);
        // Heading 0 faces -Z; rotate about +Y.
        mat3 rot = mat3(co, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, co);
        p = rot * (p * place.w) + vec3(place.x, 0.0, place.y);
        n = rot * n;
        c = mix(c, c * tint, in_tint_mask);
    }
    v_world = p;
    v_normal = n;
    v_color = c;
    gl_Position = view_proj * vec4(p, 1.0);
}

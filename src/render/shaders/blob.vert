#version 330
// Blob shadows under mid and far people: one ground disc per entry of `blobs`
// (x, z, radius, darkness), drawn instanced.
in vec2 in_corner;

uniform mat4 view_proj;
uniform vec4 blobs[MAX_BLOBS];

out vec2 v_uv;
out float v_dark;

void main() {
    vec4 b = blobs[gl_InstanceID];
    v_uv = in_corner;
    v_dark = b.w;
    vec3 world = vec3(b.x + in_corner.x * b.z, 0.015, b.y + in_corner.y * b.z);
    gl_Position = view_proj * vec4(world, 1.0);
}

#version 330
in vec3 in_pos;
uniform mat4 view_proj;
out vec3 v_world;
void main() {
    v_world = in_pos;
    gl_Position = view_proj * vec4(in_pos, 1.0);
}

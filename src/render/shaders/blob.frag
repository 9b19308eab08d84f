#version 330
in vec2 v_uv;
in float v_dark;
out vec4 frag_color;

void main() {
    float r = length(v_uv);
    if (r > 1.0) discard;
    float a = v_dark * (1.0 - smoothstep(0.35, 1.0, r));
    frag_color = vec4(0.0, 0.0, 0.0, a);
}

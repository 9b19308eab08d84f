#version 330
// The impostor bake (render/impostor_bake.rs): base colour and coverage into attachment 0,
// the normal in the body's own frame and the tint class (0 keep, 1 clothing, 2 skin, 3 face
// detail, as class / 3) into attachment 1.
in vec3 v_world;
in vec3 v_normal;
in vec3 v_color;
in float v_class;

layout(location = 0) out vec4 out_color;
layout(location = 1) out vec4 out_normal;

void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    out_color = vec4(v_color, 1.0);
    out_normal = vec4(n * 0.5 + 0.5, clamp(floor(v_class + 0.5), 0.0, 3.0) / 3.0);
}

// The hero in the sun's depth map: depth only, but cut-out (mask) texels must not cast.
in vec2 v_uv;
uniform vec4 lit_color;
uniform float alpha_mode;
uniform float alpha_cutoff;
uniform sampler2D base_tex;

void main() {
    if (alpha_mode > 0.5 && alpha_mode < 1.5 && lit_color.a * texture(base_tex, v_uv).a < alpha_cutoff) discard;
}

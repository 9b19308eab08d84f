// The impostor's surface, prepended to lit.frag under #define IMPOSTOR (render/impostor.rs).
// v_cell: the cell's lower-left texel and size; v_uv: 0..1 across the quad; v_basis: the
// person's local x and z axes in the world (xz of each); v_tint and v_tone as crowd.vert's.
in vec2 v_uv;
flat in ivec4 v_cell;
flat in vec4 v_basis;
flat in vec4 v_tint;
flat in float v_tone;
uniform sampler2D atlas_color;
uniform sampler2D atlas_normal;

// One texel's colour with this person's tint and skin tone (the same colours crowd.vert gives
// the meshes); false where the texel is empty.
bool impostor_texel(ivec2 t, out vec3 albedo, out vec3 n) {
    vec4 base = texelFetch(atlas_color, t, 0);
    albedo = vec3(0.0);
    n = vec3(0.0);
    if (base.a < 0.5) return false;
    vec4 nt = texelFetch(atlas_normal, t, 0);
    n = nt.xyz * 2.0 - 1.0;
    int cls = int(nt.a * 3.0 + 0.5);
    vec3 skin = mix(vec3(0.80, 0.50, 0.34), vec3(0.16, 0.07, 0.035), v_tone);
    vec3 feature = vec3(0.018, 0.012, 0.010);
    albedo = cls == 3 ? feature : cls == 2 ? skin
        : cls == 1 ? mix(base.rgb, v_tint.rgb, v_tint.a) : base.rgb;
    if (v_tint.a > 1.5) albedo = v_tint.rgb;
    return true;
}

// The pixel's surface: 2x2 samples spread over the texels it covers (one texel when the
// picture is magnified), averaged, so a small far person keeps its mean colour instead of
// whichever texel a single sample hits; covered when at least half the samples are.
bool impostor_surface(out vec3 albedo, out vec3 n) {
    vec2 texel = v_uv * vec2(v_cell.zw);
    vec2 foot = max(fwidth(texel), vec2(1.0)) * 0.5;
    albedo = vec3(0.0);
    vec3 local = vec3(0.0);
    float covered = 0.0;
    for (int i = 0; i < 4; i++) {
        vec2 offset = (vec2(float(i & 1), float(i >> 1)) - 0.5) * foot;
        ivec2 t = v_cell.xy + clamp(ivec2(texel + offset), ivec2(0), v_cell.zw - 1);
        vec3 a;
        vec3 l;
        if (impostor_texel(t, a, l)) {
            albedo += a;
            local += l;
            covered += 1.0;
        }
    }
    n = vec3(0.0, 1.0, 0.0);
    if (covered < 2.0) return false;
    albedo /= covered;
    vec3 l = normalize(local);
    n = normalize(vec3(v_basis.x * l.x + v_basis.z * l.z, l.y, v_basis.y * l.x + v_basis.w * l.z));
    return true;
}

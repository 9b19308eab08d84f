// Skinned crowd figures (GPU Gems 3 ch. 2). Prepended by the renderer:
//   #version 330, #define INFLUENCES n (4 near, 2 mid, 1 far), #define MAX_INSTANCES n,
//   #define NAIVE for the one-draw-per-person yardstick, and #define VAT for figures whose
//   skinned vertices are read from the vertex animation texture (crowd_assets/vat_runtime.rs owns its layout).
//   #define IMPOSTOR_BAKE (with BAKE_VIEWS n) draws one body into the impostor atlas: instance i
//   is view i, placed in its cell (render/impostor_bake.rs, crowd_assets/impostor_layout.rs).
//
// Instance block (5 vec4, see view/crowd_pack.rs): rows 0..2 of the 3x4 world matrix, tint
// (rgb, a = strength; a > 1.5 paints the whole figure, the LOD debug mode), animation
// (frame position of clip A, of clip B, blend A->B, skin tone 0 light .. 1 dark). A frame position is
// "texture row + fraction"; joint j of a row is its 3x4 skinning matrix in texels 3j..3j+2.
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
in float in_tint;
in vec4 in_joints;
in vec4 in_weights;

uniform mat4 view_proj;
#ifdef NAIVE
// The CPU-sampled palette of this one person (3 vec4 per joint) and its instance block.
uniform vec4 palette[MAX_JOINTS * 3];
uniform vec4 single[5];
#else
#ifdef IMPOSTOR_BAKE
// x: metres per model unit, y: the frame position baked; per view its projection into the cell
// and the cell's place in the atlas (centre, half size in device coordinates).
uniform vec4 bake_body;
uniform mat4 bake_view[BAKE_VIEWS];
uniform vec4 bake_place[BAKE_VIEWS];
out float v_class;
#else
uniform vec4 instances[MAX_INSTANCES * 5];
#endif
uniform sampler2D anim_tex;
#endif
#ifdef VAT
uniform sampler2D vat_tex;
// This mesh's place in the VAT: first texel, first animation row, vertices, texture width.
uniform ivec4 vat_mesh;
#endif

out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
// Where the person stands: the LOD cross-fade measures their distance from it (lod_fade.glsl).
flat out vec3 v_origin;

vec4 r0 = vec4(0.0);
vec4 r1 = vec4(0.0);
vec4 r2 = vec4(0.0);

#ifdef NAIVE
vec4 block(int k) { return single[k]; }

void add_joint(int j, float w, vec4 anim) {
    r0 += palette[j * 3] * w;
    r1 += palette[j * 3 + 1] * w;
    r2 += palette[j * 3 + 2] * w;
}
#else
#ifdef IMPOSTOR_BAKE
// The body in its own frame, in metres, untinted, at the baked frame.
vec4 block(int k) {
    float s = bake_body.x;
    if (k == 0) return vec4(s, 0.0, 0.0, 0.0);
    if (k == 1) return vec4(0.0, s, 0.0, 0.0);
    if (k == 2) return vec4(0.0, 0.0, s, 0.0);
    if (k == 3) return vec4(0.0);
    return vec4(bake_body.y, bake_body.y, 0.0, 0.0);
}
#else
vec4 block(int k) { return instances[gl_InstanceID * 5 + k]; }
#endif

// Joint j at a fractional frame position, interpolated between the two nearest rows.
void add_frame(int j, float frame, float w) {
    int row = int(frame);
    float f = frame - float(row);
    int x = j * 3;
    vec4 a0 = texelFetch(anim_tex, ivec2(x, row), 0);
    vec4 a1 = texelFetch(anim_tex, ivec2(x + 1, row), 0);
    vec4 a2 = texelFetch(anim_tex, ivec2(x + 2, row), 0);
    if (f > 0.0) {
        a0 = mix(a0, texelFetch(anim_tex, ivec2(x, row + 1), 0), f);
        a1 = mix(a1, texelFetch(anim_tex, ivec2(x + 1, row + 1), 0), f);
        a2 = mix(a2, texelFetch(anim_tex, ivec2(x + 2, row + 1), 0), f);
    }
    r0 += a0 * w;
    r1 += a1 * w;
    r2 += a2 * w;
}

void add_joint(int j, float w, vec4 anim) {
    // Cross-fade between two clips: blend the matrices, as the CPU reference does.
    add_frame(j, anim.x, w * (1.0 - anim.z));
    if (anim.z > 0.0) add_frame(j, anim.y, w * anim.z);
}
#endif

#ifdef VAT
vec4 vat_texel(int row) {
    int i = vat_mesh.x + (row - vat_mesh.y) * vat_mesh.z + gl_VertexID;
    return texelFetch(vat_tex, ivec2(i % vat_mesh.w, i / vat_mesh.w), 0);
}

// The normal packed as x + 256 y + 65536 z, 8 bits per axis.
vec3 unpack_normal(float bits) {
    int i = int(bits + 0.5);
    return vec3(float(i & 255), float((i >> 8) & 255), float((i >> 16) & 255)) / 127.5 - 1.0;
}

// The skinned vertex at a fractional frame position, interpolated between the nearest rows
// (the same rows, fraction and weights as the matrix path, so the two agree).
void add_vat_frame(float frame, float w, inout vec3 p, inout vec3 n) {
    int row = int(frame);
    float f = frame - float(row);
    vec4 a = vat_texel(row);
    vec3 pa = a.xyz;
    vec3 na = unpack_normal(a.w);
    if (f > 0.0) {
        vec4 b = vat_texel(row + 1);
        pa = mix(pa, b.xyz, f);
        na = mix(na, unpack_normal(b.w), f);
    }
    p += pa * w;
    n += na * w;
}
#endif

void main() {
    vec4 anim = block(4);
#ifdef VAT
    vec3 vp = vec3(0.0);
    vec3 vn = vec3(0.0);
    add_vat_frame(anim.x, 1.0 - anim.z, vp, vn);
    if (anim.z > 0.0) add_vat_frame(anim.y, anim.z, vp, vn);
    vec4 skinned = vec4(vp, 1.0);
    vec4 skinned_n = vec4(vn, 0.0);
#else
    for (int i = 0; i < INFLUENCES; i++) {
        float w = in_weights[i];
        if (w > 0.0) add_joint(int(in_joints[i] + 0.5), w, anim);
    }
    vec4 p = vec4(in_pos, 1.0);
    vec4 skinned = vec4(dot(r0, p), dot(r1, p), dot(r2, p), 1.0);
    vec4 n4 = vec4(in_normal, 0.0);
    vec4 skinned_n = vec4(dot(r0, n4), dot(r1, n4), dot(r2, n4), 0.0);
#endif
    vec4 w0 = block(0);
    vec4 w1 = block(1);
    vec4 w2 = block(2);
    vec3 world = vec3(dot(w0, skinned), dot(w1, skinned), dot(w2, skinned));
    v_normal = vec3(dot(w0, skinned_n), dot(w1, skinned_n), dot(w2, skinned_n));
    vec4 tint = block(3);
    // in_tint: 0 keeps the material colour, 1 takes the clothing tint, 2 the skin tone, 3 is a
    // face detail (eyes, brows) drawn dark so it shows on the lightest and the darkest skin.
    vec3 skin = mix(vec3(0.80, 0.50, 0.34), vec3(0.16, 0.07, 0.035), anim.w);
    vec3 feature = vec3(0.018, 0.012, 0.010);
    vec3 own = in_tint > 2.5 ? feature
        : in_tint > 1.5 ? skin : mix(in_color, tint.rgb, in_tint * tint.a);
    v_color = tint.a > 1.5 ? tint.rgb : own;
    v_world = world;
#ifdef IMPOSTOR_BAKE
    // Base colour without tint and the tint class: the impostor applies each person's own.
    v_color = in_color;
    v_class = in_tint;
    vec4 cell = bake_view[gl_InstanceID] * vec4(world, 1.0);
    vec4 place = bake_place[gl_InstanceID];
    gl_Position = vec4(place.xy + cell.xy * place.zw, cell.z, 1.0);
    // Clip to the cell so nothing spills into a neighbour.
    gl_ClipDistance[0] = 1.0 - cell.x;
    gl_ClipDistance[1] = 1.0 + cell.x;
    gl_ClipDistance[2] = 1.0 - cell.y;
    gl_ClipDistance[3] = 1.0 + cell.y;
#else
    v_origin = vec3(w0.w, w1.w, w2.w);
    gl_Position = view_proj * vec4(world, 1.0);
#endif
}

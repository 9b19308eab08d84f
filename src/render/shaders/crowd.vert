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
// The skin-tone lane also carries the person's head turn: w = tone + 2 code (view/look_pack.rs).
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
#if !defined(NAIVE) && !defined(IMPOSTOR_BAKE) && !defined(VAT)
// People look back (crowd/head_turn.rs): the instanced matrix path turns the neck and head
// joints toward the hero. Per joint (neck, then head): its bind-pose pivot in xyz and its skin
// slot in w (-1: the rig lacks it; crowd_assets/look_rig.rs). The renderer defines
// LOOK_YAW_STEP and LOOK_PITCH_STEP (radians per step of the packed turn).
#define HEAD_TURN
uniform vec4 look_rig[2];
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

#ifdef HEAD_TURN
// This person's head turn (yaw, pitch; radians, relative to the body), and its rotations for
// the neck's share and the head's, set in main() when the turn is not zero.
vec2 look = vec2(0.0);
mat3 look_neck = mat3(1.0);
mat3 look_head = mat3(1.0);

// Joint j's 3x4 matrix rows at the clips' blend (what add_frame sums, unweighted).
void joint_rows(int j, vec4 anim, out vec4 a0, out vec4 a1, out vec4 a2) {
    vec4 s0 = r0, s1 = r1, s2 = r2;
    r0 = vec4(0.0); r1 = vec4(0.0); r2 = vec4(0.0);
    add_frame(j, anim.x, 1.0 - anim.z);
    if (anim.z > 0.0) add_frame(j, anim.y, anim.z);
    a0 = r0; a1 = r1; a2 = r2;
    r0 = s0; r1 = s1; r2 = s2;
}

// Turn about the model's up axis by `share` of the yaw after tilting about its side axis by
// `share` of the pitch (the model faces +Z, crowd_assets Body::facing_offset; pitch up lifts
// +Z toward +Y).
mat3 look_rotation(float share) {
    float y = look.x * share;
    float p = -look.y * share;
    mat3 ry = mat3(cos(y), 0.0, -sin(y), 0.0, 1.0, 0.0, sin(y), 0.0, cos(y));
    mat3 rx = mat3(1.0, 0.0, 0.0, 0.0, cos(p), sin(p), 0.0, -sin(p), cos(p));
    return ry * rx;
}

// Where a joint's bind-pose pivot is in this pose.
vec3 posed(vec4 a0, vec4 a1, vec4 a2, vec3 pivot) {
    vec4 b = vec4(pivot, 1.0);
    return vec3(dot(a0, b), dot(a1, b), dot(a2, b));
}

// The matrix rows (a0..a2) followed by a rotation `rot` about the point `at`.
void rotate_about(mat3 rot, vec3 at, inout vec4 a0, inout vec4 a1, inout vec4 a2) {
    vec3 c0 = rot * vec3(a0.x, a1.x, a2.x);
    vec3 c1 = rot * vec3(a0.y, a1.y, a2.y);
    vec3 c2 = rot * vec3(a0.z, a1.z, a2.z);
    vec3 t = rot * (vec3(a0.w, a1.w, a2.w) - at) + at;
    a0 = vec4(c0.x, c1.x, c2.x, t.x);
    a1 = vec4(c0.y, c1.y, c2.y, t.y);
    a2 = vec4(c0.z, c1.z, c2.z, t.z);
}

int rig_slot(int k) {
    float w = look_rig[k].w;
    return w < 0.0 ? -1 : int(w + 0.5);
}

// The neck's rows turn by its share about the posed neck; the head's turn by its own share
// about the posed head, then with the neck (the head rides on it).
void add_turned_joint(int j, float w, vec4 anim) {
    int neck = rig_slot(0);
    vec4 a0, a1, a2;
    joint_rows(j, anim, a0, a1, a2);
    if (j == rig_slot(1)) {
        rotate_about(look_head, posed(a0, a1, a2, look_rig[1].xyz), a0, a1, a2);
        if (neck >= 0) {
            vec4 n0, n1, n2;
            joint_rows(neck, anim, n0, n1, n2);
            rotate_about(look_neck, posed(n0, n1, n2, look_rig[0].xyz), a0, a1, a2);
        }
    } else {
        rotate_about(look_neck, posed(a0, a1, a2, look_rig[0].xyz), a0, a1, a2);
    }
    r0 += a0 * w;
    r1 += a1 * w;
    r2 += a2 * w;
}
#endif

void add_joint(int j, float w, vec4 anim) {
#ifdef HEAD_TURN
    if (look != vec2(0.0) && rig_slot(1) >= 0 && (j == rig_slot(0) || j == rig_slot(1))) {
        add_turned_joint(j, w, anim);
        return;
    }
#endif
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

// The skin tone and the packed head-turn code in the tone lane (view/look_pack.rs).
float lane_code(float w) {
    return max(floor(w * 0.5), 0.0);
}

void main() {
    vec4 anim = block(4);
    float tone = anim.w - 2.0 * lane_code(anim.w);
#ifdef HEAD_TURN
    int code = int(lane_code(anim.w) + 0.5);
    if (code != 0) {
        // Zigzag steps: 0, 1, 2, 3, 4 ... are 0, -1, 1, -2, 2 ...
        ivec2 z = ivec2(code >> 7, code & 127);
        ivec2 steps = ivec2((z.x & 1) == 0 ? z.x / 2 : -(z.x + 1) / 2,
                            (z.y & 1) == 0 ? z.y / 2 : -(z.y + 1) / 2);
        look = vec2(float(steps.x) * LOOK_YAW_STEP, float(steps.y) * LOOK_PITCH_STEP);
        // The neck takes 40 % of the turn, the head the rest (all of it without a neck).
        float neck_share = rig_slot(0) >= 0 ? 0.4 : 0.0;
        look_neck = look_rotation(neck_share);
        look_head = look_rotation(1.0 - neck_share);
    }
#endif
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
    vec3 skin = mix(vec3(0.80, 0.50, 0.34), vec3(0.16, 0.07, 0.035), tone);
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

// Skinned crowd figures (GPU Gems 3 ch. 2). Prepended by the renderer:
//   #version 330, #define INFLUENCES n (4 near, 2 mid, 1 far), #define MAX_INSTANCES n,
//   and #define NAIVE for the one-draw-per-person yardstick.
//
// Instance block (5 vec4, see view/instances.rs): rows 0..2 of the 3x4 world matrix, tint
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
uniform vec4 instances[MAX_INSTANCES * 5];
uniform sampler2D anim_tex;
#endif

out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;

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
vec4 block(int k) { return instances[gl_InstanceID * 5 + k]; }

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

void main() {
    vec4 anim = block(4);
    for (int i = 0; i < INFLUENCES; i++) {
        float w = in_weights[i];
        if (w > 0.0) add_joint(int(in_joints[i] + 0.5), w, anim);
    }
    vec4 p = vec4(in_pos, 1.0);
    vec4 skinned = vec4(dot(r0, p), dot(r1, p), dot(r2, p), 1.0);
    vec4 n4 = vec4(in_normal, 0.0);
    vec4 skinned_n = vec4(dot(r0, n4), dot(r1, n4), dot(r2, n4), 0.0);
    vec4 w0 = block(0);
    vec4 w1 = block(1);
    vec4 w2 = block(2);
    vec3 world = vec3(dot(w0, skinned), dot(w1, skinned), dot(w2, skinned));
    v_normal = vec3(dot(w0, skinned_n), dot(w1, skinned_n), dot(w2, skinned_n));
    vec4 tint = block(3);
    // in_tint: 0 keeps the material colour, 1 takes the clothing tint, 2 the skin tone.
    vec3 skin = mix(vec3(0.80, 0.50, 0.34), vec3(0.16, 0.07, 0.035), anim.w);
    vec3 own = in_tint > 1.5 ? skin : mix(in_color, tint.rgb, in_tint * tint.a);
    v_color = tint.a > 1.5 ? tint.rgb : own;
    v_world = world;
    gl_Position = view_proj * vec4(world, 1.0);
}

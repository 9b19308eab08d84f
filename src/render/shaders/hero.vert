// The hero's vertex stage for every pass. The Rust side prepends `#version 330` and defines:
//   PASS_FORWARD / PASS_OUTLINE / PASS_SHADOW  which pass this program draws
//   PALETTE_SIZE n   joint matrices in the uniform array (0: they come from palette_tex)
// Order matters for the outline: morphed vertex -> skinned position and normal -> width ->
// expand along the skinned normal -> project, so joints bend the hull with the surface.
in vec3 in_pos;
in vec3 in_normal;
in vec4 in_tangent;
in vec2 in_uv;
in vec4 in_joints;
in vec4 in_weights;

uniform mat4 model;
// The camera's, or the sun's in the shadow pass.
uniform mat4 view_proj;
// 0: rigid primitive; 1: linear-blend skinning.
uniform float skinning;
// Texels per row of palette_tex (texture palettes only).
uniform float palette_width;
// 2 * tan(fov_y / 2): screen height in metres at one metre of depth.
uniform float fov_scale;
// 0 none, 1 world metres, 2 share of the screen height (VRM 1.0), 3 MToon 0.x screen: a
// clip-space width of outline_width (0.01 x _OutlineWidth) up to outline_max_distance.
uniform float outline_mode;
uniform float outline_width;
uniform float outline_max_distance;
// Screen height over width: the 0.x clip-space offset is as wide as it is high in pixels.
uniform float outline_aspect;
// KHR_texture_transform of the base colour, which MToon applies to all its textures.
uniform vec3 uv_row_u;
uniform vec3 uv_row_v;
uniform float time;
uniform vec2 uv_scroll;
uniform float uv_rotation;

#if PALETTE_SIZE > 0
// Set with raw GL only when the pose changed (per program: GL keeps uniforms per program).
uniform mat4 palette[PALETTE_SIZE];
#endif
uniform sampler2D palette_tex;
uniform sampler2D outline_width_tex;
uniform sampler2D uv_mask_tex;

out vec3 v_world;
out vec3 v_normal;
out vec4 v_tangent;
out vec2 v_uv;

mat4 joint_matrix(int j) {
#if PALETTE_SIZE > 0
    return palette[j];
#else
    // Four texels per matrix, one column each.
    int w = int(palette_width);
    int k = j * 4;
    return mat4(
        texelFetch(palette_tex, ivec2(k % w, k / w), 0),
        texelFetch(palette_tex, ivec2((k + 1) % w, (k + 1) / w), 0),
        texelFetch(palette_tex, ivec2((k + 2) % w, (k + 2) / w), 0),
        texelFetch(palette_tex, ivec2((k + 3) % w, (k + 3) / w), 0));
#endif
}

// MToon UV animation: rotate about (0.5, 0.5), then scroll, both scaled by the mask's B.
vec2 animated_uv(vec2 uv, float mask) {
    float a = uv_rotation * time * mask;
    float c = cos(a);
    float s = sin(a);
    uv = mat2(c, s, -s, c) * (uv - 0.5) + 0.5;
    return uv + uv_scroll * time * mask;
}

void main() {
    vec4 p = vec4(in_pos, 1.0);
    vec3 n = in_normal;
    vec3 t = in_tangent.xyz;
    if (skinning > 0.5) {
        mat4 skin = in_weights.x * joint_matrix(int(in_joints.x))
                  + in_weights.y * joint_matrix(int(in_joints.y))
                  + in_weights.z * joint_matrix(int(in_joints.z))
                  + in_weights.w * joint_matrix(int(in_joints.w));
        p = skin * p;
        n = mat3(skin) * n;
        t = mat3(skin) * t;
    }
    vec4 world = model * p;
    mat3 nm = mat3(model);
    vec3 wn = normalize(nm * n);
    vec2 uv = vec2(dot(uv_row_u, vec3(in_uv, 1.0)), dot(uv_row_v, vec3(in_uv, 1.0)));
    v_uv = uv;
    vec2 clip_offset = vec2(0.0);
#ifdef PASS_OUTLINE
    float mask = textureLod(uv_mask_tex, uv, 0.0).b;
    float width_tex = textureLod(outline_width_tex, animated_uv(uv, mask), 0.0).g;
    float w = outline_width * width_tex;
    if (outline_mode > 2.5) {
        // MToon 0.x: along the projected normal, the same number of pixels at any depth up to
        // the scaled max distance, thinner beyond; none where the normal faces the camera.
        vec4 clip = view_proj * world;
        vec4 clip_n = view_proj * vec4(wn, 0.0);
        vec2 dir = clip_n.xy / max(length(clip_n.xy), 1e-6);
        dir.x *= outline_aspect;
        // clip_n.w is minus the view-space normal's z.
        float edge = clamp(1.0 - abs(clip_n.w), 0.0, 1.0);
        clip_offset = w * dir * min(clip.w, outline_max_distance) * edge;
        w = 0.0;
    } else if (outline_mode > 1.5) {
        // Depth of this vertex turns the screen share into metres at that depth.
        w *= fov_scale * (view_proj * world).w;
    } else if (outline_mode < 0.5) {
        w = 0.0;
    }
    world.xyz += wn * w;
#endif
    v_world = world.xyz;
    v_normal = wn;
    v_tangent = vec4(normalize(nm * t), in_tangent.w);
    gl_Position = view_proj * world;
    gl_Position.xy += clip_offset;
}

// Impostor people (render/impostor.rs): one quad per person, turned upright to the eye, showing
// the atlas cell of the nearest baked view and animation frame. Prepended by the renderer:
// #version 330, #define MAX_INSTANCES n. Reads the same 5-vec4 blocks as crowd.vert.
in vec2 in_corner;

uniform mat4 view_proj;
uniform vec3 eye;
uniform vec4 instances[MAX_INSTANCES * 5];
// Per activity of this body: first row, row span, first atlas frame, frames (negative: the clip
// holds its end instead of looping). See crowd_assets/impostor_layout.rs.
uniform vec4 clip_table[7];
// x: model units per metre, y: cell centre height (m), z: cell half width (m), w: half height.
uniform vec4 body;
// x: azimuths, y: cells per atlas row, z: cell width, w: cell height (texels).
uniform vec4 atlas;
// The two baked elevations (radians) in x and y.
uniform vec4 elevations;

out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
out vec2 v_uv;
flat out ivec4 v_cell;
flat out vec4 v_basis;
flat out vec4 v_tint;
flat out float v_tone;
flat out vec3 v_origin; // where the person stands: the LOD cross-fade's distance (lod_fade.glsl)

const float TAU = 6.28318530718;

vec4 block(int k) { return instances[gl_InstanceID * 5 + k]; }

int atlas_frame(float position) {
    for (int k = 0; k < 7; k++) {
        vec4 c = clip_table[k];
        if (position >= c.x && position <= c.x + c.y) {
            float u = clamp((position - c.x) / max(c.y, 1.0), 0.0, 1.0);
            float n = abs(c.w);
            int local = c.w > 0.0 ? int(floor(u * n + 0.5)) % int(n) : int(floor(u * (n - 1.0) + 0.5));
            return int(c.z) + local;
        }
    }
    return int(clip_table[0].z);
}

void main() {
    vec4 w0 = block(0);
    vec4 w1 = block(1);
    vec4 w2 = block(2);
    vec4 anim = block(4);
    vec3 origin = vec3(w0.w, w1.w, w2.w);
    v_origin = origin;
    // The body's own x and z axes in the world, and the person's scale.
    vec3 ax = vec3(w0.x, w1.x, w2.x);
    vec3 az = vec3(w0.z, w1.z, w2.z);
    float k = length(ax);
    ax /= k;
    az /= k;
    float scale = k * body.x;
    vec3 centre = origin + vec3(0.0, body.y * scale, 0.0);
    vec3 to_eye = eye - centre;
    vec3 d = normalize(to_eye);
    // The nearest view: azimuth in the body's frame, then elevation.
    vec3 local = vec3(dot(ax, d), d.y, dot(az, d));
    float azimuths = atlas.x;
    float angle = mod(atan(local.x, local.z), TAU);
    int a = int(floor(angle / TAU * azimuths + 0.5)) % int(azimuths);
    float el = atan(local.y, length(local.xz));
    int e = abs(el - elevations.x) <= abs(el - elevations.y) ? 0 : 1;
    int view = e * int(azimuths) + a;
    // Cross-fading clips show the one that dominates.
    int frame = atlas_frame(anim.z < 0.5 ? anim.x : anim.y);
    int views = 2 * int(azimuths);
    int cell = frame * views + view;
    int per_row = int(atlas.y);
    ivec2 size = ivec2(atlas.zw);
    v_cell = ivec4((cell % per_row) * size.x, (cell / per_row) * size.y, size);
    // Upright quad facing the eye around Y.
    vec2 h = normalize(to_eye.xz + vec2(1e-6, 0.0));
    vec3 right = vec3(h.y, 0.0, -h.x);
    vec3 world = centre + right * (in_corner.x * body.z * scale)
        + vec3(0.0, in_corner.y * body.w * scale, 0.0);
    v_uv = in_corner * 0.5 + 0.5;
    v_basis = vec4(ax.x, ax.z, az.x, az.z);
    v_tint = block(3);
    // The tone lane also carries the head turn (view/look_pack.rs): keep the tone.
    v_tone = anim.w - 2.0 * max(floor(anim.w * 0.5), 0.0);
    v_world = world;
    v_normal = vec3(0.0, 1.0, 0.0);
    v_color = vec3(1.0);
    gl_Position = view_proj * vec4(world, 1.0);
}

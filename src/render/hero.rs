//! The hero on the GPU: MToon forward pass, inverse-hull outline, and the sun's shadow map, all
//! from the same skinned (and morphed) vertices. A `WorldLayer`: `prepare` uploads what changed
//! (palettes when the pose version moved, morphed vertex buffers when the morph version moved),
//! then the shared shadow and main passes call `draw_shadow` / `draw_main`.
//!
//! Palettes go to the GPU as a `mat4` uniform array sized to the largest palette when that fits
//! the queried GL_MAX_VERTEX_UNIFORM_VECTORS, else as an RGBA32F texture read with texelFetch.
//! GL keeps uniforms per program, so in the uniform mode every palette group has its own
//! programs: a paused hero then uploads nothing, and two groups never overwrite each other.

use glam::{Mat4, Vec3};
use macroquad::miniquad::{
    gl, Bindings, BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Comparison,
    CullFace, FilterMode, MipmapFilterMode, Pipeline, PipelineParams, RawId, RenderingBackend,
    ShaderId, ShaderMeta, ShaderSource, TextureAccess, TextureFormat, TextureId, TextureKind,
    TextureParams, TextureSource, TextureWrap, UniformBlockLayout, UniformDesc, UniformType,
    VertexAttribute, VertexFormat,
};

use super::gl_raw::{query_limits, FloatTexture, GlLimits};
use super::layer::{MainPassInfo, WorldLayer};
use super::RenderStats;
use crate::asset::{
    AlphaMode, Filter, OutlineWidthMode, PrimitiveAsset, PrimitiveMode, SceneAsset, UvTransform,
};
use crate::hero::expression_binds::MaterialLook;
use crate::hero::mtoon::MToonParams;
use crate::hero::Hero;
use crate::view::render_world::HeroFrame;

/// Not in miniquad's GL bindings.
const GL_CURRENT_PROGRAM: u32 = 0x8B8D;

const HERO_VERT: &str = include_str!("shaders/hero.vert");
const MTOON_FRAG: &str = include_str!("shaders/mtoon.frag");
const HERO_SHADOW_FRAG: &str = include_str!("shaders/hero_shadow.frag");

/// vec4 slots left for the hero's other vertex uniforms when sizing the palette array (three
/// matrices and a dozen scalars take about 24; the rest is headroom for drivers that count
/// generously).
pub const RESERVED_VERTEX_VECTORS: u32 = 64;

/// Floats per vertex in each of the two vertex buffers.
// Dynamic buffer: position 3, normal 3, tangent 4 floats (rewritten by morphs).
/// Static buffer floats per vertex: uv 2, joints 4, weights 4.
const STATIC_FLOATS: usize = 10;

/// How joint matrices reach the vertex shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaletteMode {
    /// `uniform mat4 palette[capacity]`, one program set per palette group.
    Uniform { capacity: usize },
    /// A float texture per palette group, one shared program set.
    Texture,
}

/// Uniform array when the largest palette fits under the vertex uniform limit, else texture.
pub fn choose_palette_mode(
    largest_palette: usize,
    max_vertex_uniform_vectors: u32,
    force_texture: bool,
) -> PaletteMode {
    let capacity =
        (max_vertex_uniform_vectors.saturating_sub(RESERVED_VERTEX_VECTORS) / 4) as usize;
    if force_texture || largest_palette > capacity {
        PaletteMode::Texture
    } else {
        PaletteMode::Uniform {
            capacity: largest_palette.max(1),
        }
    }
}

/// What the hero renderer did, for the panels and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HeroRenderStats {
    pub draws: u32,
    pub triangles: u64,
    /// Palette groups whose matrices went to the GPU this frame.
    pub palette_uploads: u32,
    pub palette_uploads_total: u64,
    /// Morphed vertex buffers rewritten this frame.
    pub morph_uploads: u32,
    pub morph_uploads_total: u64,
    /// Outside the camera's frustum this frame (still casts its shadow).
    pub culled: bool,
}

/// Options a test or the benchmark may set.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HeroRenderOptions {
    /// Use the texture palette even when the uniform array would fit.
    pub force_texture_palette: bool,
    /// Pretend the GPU allows only this many vertex uniform vectors.
    pub max_vertex_uniform_vectors: Option<u32>,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct HeroUniforms {
    model: [f32; 16],
    view_proj: [f32; 16],
    light_view_proj: [f32; 16],
    skinning: f32,
    palette_width: f32,
    fov_scale: f32,
    outline_mode: f32,
    outline_width: f32,
    time: f32,
    uv_scroll: [f32; 2],
    uv_rotation: f32,
    eye: [f32; 3],
    sun_dir: [f32; 3],
    sun_color: [f32; 3],
    ambient: [f32; 3],
    sky_color: [f32; 3],
    fog_distance: f32,
    shadows_on: f32,
    shadow_texel: f32,
    lit_color: [f32; 4],
    shade_color: [f32; 3],
    shading_shift: f32,
    shift_tex_scale: f32,
    toony: f32,
    gi_eq: f32,
    emissive: [f32; 3],
    normal_scale: f32,
    use_normal_map: f32,
    matcap_factor: [f32; 3],
    rim_color: [f32; 3],
    rim_fresnel: f32,
    rim_lift: f32,
    rim_mix: f32,
    outline_color: [f32; 3],
    outline_mix: f32,
    alpha_mode: f32,
    alpha_cutoff: f32,
    tone_curve: f32,
    outline_max_distance: f32,
    outline_aspect: f32,
    uv_row_u: [f32; 3],
    uv_row_v: [f32; 3],
    pbr_on: f32,
    metallic: f32,
    roughness: f32,
}

fn uniform_layout() -> Vec<UniformDesc> {
    use UniformType::*;
    [
        ("model", Mat4),
        ("view_proj", Mat4),
        ("light_view_proj", Mat4),
        ("skinning", Float1),
        ("palette_width", Float1),
        ("fov_scale", Float1),
        ("outline_mode", Float1),
        ("outline_width", Float1),
        ("time", Float1),
        ("uv_scroll", Float2),
        ("uv_rotation", Float1),
        ("eye", Float3),
        ("sun_dir", Float3),
        ("sun_color", Float3),
        ("ambient", Float3),
        ("sky_color", Float3),
        ("fog_distance", Float1),
        ("shadows_on", Float1),
        ("shadow_texel", Float1),
        ("lit_color", Float4),
        ("shade_color", Float3),
        ("shading_shift", Float1),
        ("shift_tex_scale", Float1),
        ("toony", Float1),
        ("gi_eq", Float1),
        ("emissive", Float3),
        ("normal_scale", Float1),
        ("use_normal_map", Float1),
        ("matcap_factor", Float3),
        ("rim_color", Float3),
        ("rim_fresnel", Float1),
        ("rim_lift", Float1),
        ("rim_mix", Float1),
        ("outline_color", Float3),
        ("outline_mix", Float1),
        ("alpha_mode", Float1),
        ("alpha_cutoff", Float1),
        ("tone_curve", Float1),
        ("outline_max_distance", Float1),
        ("outline_aspect", Float1),
        ("uv_row_u", Float3),
        ("uv_row_v", Float3),
        ("pbr_on", Float1),
        ("metallic", Float1),
        ("roughness", Float1),
    ]
    .into_iter()
    .map(|(n, t)| UniformDesc::new(n, t))
    .collect()
}

/// Sampler names in binding order (units 0..11, below the units raw textures must avoid).
const IMAGES: [&str; 12] = [
    "shadow_map",
    "base_tex",
    "shade_tex",
    "shift_tex",
    "normal_tex",
    "emissive_tex",
    "matcap_tex",
    "rim_tex",
    "uv_mask_tex",
    "outline_width_tex",
    "palette_tex",
    "metal_rough_tex",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Forward,
    Outline,
    Shadow,
}

/// The programs of one palette group (or of all, in texture mode) and their pipelines.
struct ProgramSet {
    shaders: [ShaderId; 3],
    /// forward: [cull back, no cull] × [opaque, blend]
    forward: [[Pipeline; 2]; 2],
    outline: Pipeline,
    shadow: Pipeline,
    /// GL program names and palette locations, learnt at first use (uniform mode).
    gl_program: [Option<(u32, i32)>; 3],
    /// The program's palette uniform holds an older pose.
    stale: [bool; 3],
}

struct GpuPrim {
    node: usize,
    prim: usize,
    material: usize,
    dynamic_vb: BufferId,
    static_vb: BufferId,
    index_buffer: BufferId,
    index_count: i32,
    triangles: u64,
    group: Option<usize>,
    /// Morph version the dynamic buffer holds (0: base vertices).
    uploaded_morph: u64,
    morphing: bool,
}

struct GpuMaterial {
    params: MToonParams,
    /// base, shade, shift, normal, emissive, matcap, rim, uv mask, outline width
    images: [TextureId; 9],
    /// The PBR metallic-roughness texture (white: the factors alone); bound after the palette.
    metal_rough: TextureId,
}

pub struct HeroRenderer {
    mode: PaletteMode,
    sets: Vec<ProgramSet>,
    prims: Vec<GpuPrim>,
    materials: Vec<GpuMaterial>,
    /// This frame's expression-driven material values (see `HeroFrame::material_looks`).
    looks: Vec<MaterialLook>,
    textures: Vec<TextureId>,
    white: TextureId,
    black: TextureId,
    flat_normal: TextureId,
    /// Texture mode: one float texture per palette group.
    palette_textures: Vec<Option<FloatTexture>>,
    /// Latest matrices per group, column-major, for lazy uniform uploads.
    palette_data: Vec<Vec<f32>>,
    /// Per palette group, the palette version last uploaded (0: none yet).
    palette_versions: Vec<u64>,
    /// Draw order: opaque and mask first, then blend; by render queue within a class.
    order: Vec<usize>,
    model: Mat4,
    time: f32,
    fov_scale: f32,
    culled: bool,
    pub stats: HeroRenderStats,
    pub warnings: Vec<String>,
    /// Draw the outline pass (tests compare with and without).
    pub outline_enabled: bool,
    /// Draw into the shadow map (tests compare with and without).
    pub cast_shadow: bool,
}

fn compile(
    ctx: &mut dyn RenderingBackend,
    pass: Pass,
    palette_size: usize,
) -> Result<ShaderId, String> {
    let pass_define = match pass {
        Pass::Forward => "PASS_FORWARD",
        Pass::Outline => "PASS_OUTLINE",
        Pass::Shadow => "PASS_SHADOW",
    };
    let header =
        format!("#version 330\n#define {pass_define}\n#define PALETTE_SIZE {palette_size}\n");
    let vertex = format!("{header}{HERO_VERT}");
    let fragment = match pass {
        Pass::Shadow => format!("{header}{HERO_SHADOW_FRAG}"),
        _ => super::tone::with_tone_curve(&format!("{header}{MTOON_FRAG}")).into_owned(),
    };
    ctx.new_shader(
        ShaderSource::Glsl {
            vertex: &super::shader_source::for_target(&vertex),
            fragment: &super::shader_source::for_target(&fragment),
        },
        ShaderMeta {
            images: IMAGES.iter().map(|s| s.to_string()).collect(),
            uniforms: UniformBlockLayout {
                uniforms: uniform_layout(),
            },
        },
    )
    .map_err(|e| format!("hero {pass_define} shader: {e:?}"))
}

fn program_set(ctx: &mut dyn RenderingBackend, palette_size: usize) -> Result<ProgramSet, String> {
    let layouts = [BufferLayout::default(), BufferLayout::default()];
    let attributes = [
        VertexAttribute::with_buffer("in_pos", VertexFormat::Float3, 0),
        VertexAttribute::with_buffer("in_normal", VertexFormat::Float3, 0),
        VertexAttribute::with_buffer("in_tangent", VertexFormat::Float4, 0),
        VertexAttribute::with_buffer("in_uv", VertexFormat::Float2, 1),
        VertexAttribute::with_buffer("in_joints", VertexFormat::Float4, 1),
        VertexAttribute::with_buffer("in_weights", VertexFormat::Float4, 1),
    ];
    let forward = compile(ctx, Pass::Forward, palette_size)?;
    let outline = compile(ctx, Pass::Outline, palette_size)?;
    let shadow = compile(ctx, Pass::Shadow, palette_size)?;
    let opaque = PipelineParams {
        depth_test: Comparison::LessOrEqual,
        depth_write: true,
        cull_face: CullFace::Back,
        ..Default::default()
    };
    let blend = PipelineParams {
        color_blend: super::over_keeping_alpha().0,
        alpha_blend: super::over_keeping_alpha().1,
        ..opaque
    };
    let mut p = |shader, params| ctx.new_pipeline(&layouts, &attributes, shader, params);
    let nocull = |x: PipelineParams| PipelineParams {
        cull_face: CullFace::Nothing,
        ..x
    };
    let fwd = [
        [p(forward, opaque), p(forward, blend)],
        [p(forward, nocull(opaque)), p(forward, nocull(blend))],
    ];
    // The inverse hull: only the faces pointing away survive, behind the surface.
    let outline_pipeline = p(
        outline,
        PipelineParams {
            cull_face: CullFace::Front,
            ..opaque
        },
    );
    let shadow_pipeline = p(
        shadow,
        PipelineParams {
            cull_face: CullFace::Nothing,
            ..opaque
        },
    );
    Ok(ProgramSet {
        shaders: [forward, outline, shadow],
        forward: fwd,
        outline: outline_pipeline,
        shadow: shadow_pipeline,
        gl_program: [None; 3],
        stale: [true; 3],
    })
}

fn one_pixel(ctx: &mut dyn RenderingBackend, rgba: [u8; 4]) -> TextureId {
    ctx.new_texture_from_rgba8(1, 1, &rgba)
}

/// Vertex normals from the triangles when the file has none.
fn face_normals(prim: &PrimitiveAsset) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; prim.positions.len()];
    for t in prim.indices.chunks_exact(3) {
        let (a, b, c) = (t[0] as usize, t[1] as usize, t[2] as usize);
        if let (Some(pa), Some(pb), Some(pc)) = (
            prim.positions.get(a),
            prim.positions.get(b),
            prim.positions.get(c),
        ) {
            let f = (*pb - *pa).cross(*pc - *pa);
            for i in [a, b, c] {
                n[i] += f;
            }
        }
    }
    n.into_iter().map(|v| v.normalize_or(Vec3::Y)).collect()
}

fn dynamic_vertices(
    positions: &[Vec3],
    normals: &[Vec3],
    tangents: &[glam::Vec4],
    out: &mut Vec<f32>,
) {
    out.clear();
    for (i, p) in positions.iter().enumerate() {
        let n = normals.get(i).copied().unwrap_or(Vec3::Y);
        let t = tangents
            .get(i)
            .copied()
            .unwrap_or(glam::Vec4::new(1.0, 0.0, 0.0, 1.0));
        out.extend_from_slice(&[p.x, p.y, p.z, n.x, n.y, n.z, t.x, t.y, t.z, t.w]);
    }
}

/// How the hero's joint matrices reach the GPU (uniform arrays while they fit the vertex
/// uniform limit, else a float texture) and the programs compiled for that.
fn palette_programs(
    ctx: &mut dyn RenderingBackend,
    hero: &Hero,
    options: &HeroRenderOptions,
    limits: &GlLimits,
    warnings: &mut Vec<String>,
) -> Result<(PaletteMode, Vec<ProgramSet>), String> {
    let max_vectors = options
        .max_vertex_uniform_vectors
        .unwrap_or(limits.max_vertex_uniform_vectors);
    let largest = hero
        .palettes
        .groups()
        .iter()
        .map(|g| g.joint_nodes.len())
        .max()
        .unwrap_or(0);
    let mode = choose_palette_mode(largest, max_vectors, options.force_texture_palette);
    if mode == PaletteMode::Texture && !options.force_texture_palette {
        let w = format!(
            "palette of {largest} joints exceeds the vertex uniform limit ({max_vectors} vectors): joint matrices go through a float texture"
        );
        eprintln!("throng: hero: {w}");
        warnings.push(w);
    }
    let group_count = hero.palettes.palette_count();
    let sets = match mode {
        PaletteMode::Uniform { capacity } => {
            let mut v = Vec::new();
            for _ in 0..group_count.max(1) {
                v.push(program_set(ctx, capacity)?);
            }
            v
        }
        PaletteMode::Texture => vec![program_set(ctx, 0)?],
    };
    Ok((mode, sets))
}

/// The scene's textures on the GPU with their samplers' filters and wraps; one that cannot be
/// uploaded becomes `white` with a warning.
fn upload_textures(
    ctx: &mut dyn RenderingBackend,
    scene: &SceneAsset,
    limits: &GlLimits,
    white: TextureId,
    warnings: &mut Vec<String>,
) -> Vec<TextureId> {
    let mut textures = Vec::new();
    for (i, t) in scene.textures.iter().enumerate() {
        let ok = t.width > 0
            && t.height > 0
            && t.width <= limits.max_texture_size
            && t.height <= limits.max_texture_size
            && t.rgba8.len() == t.width as usize * t.height as usize * 4;
        if !ok {
            warnings.push(format!(
                "texture {i} ({}x{}) cannot be uploaded; using white",
                t.width, t.height
            ));
            textures.push(white);
            continue;
        }
        let mode = |f: Filter| match f {
            Filter::Nearest => FilterMode::Nearest,
            Filter::Linear => FilterMode::Linear,
        };
        let wrap = |w: crate::asset::TextureWrap| match w {
            crate::asset::TextureWrap::Repeat => TextureWrap::Repeat,
            crate::asset::TextureWrap::MirroredRepeat => TextureWrap::Mirror,
            crate::asset::TextureWrap::ClampToEdge => TextureWrap::Clamp,
        };
        let f = t.filter;
        let id = ctx.new_texture(
            TextureAccess::Static,
            TextureSource::Bytes(&t.rgba8),
            TextureParams {
                kind: TextureKind::Texture2D,
                format: TextureFormat::RGBA8,
                wrap: wrap(t.wrap[0]),
                min_filter: mode(f.min),
                mag_filter: mode(f.mag),
                mipmap_filter: match f.mipmap {
                    None => MipmapFilterMode::None,
                    Some(Filter::Nearest) => MipmapFilterMode::Nearest,
                    Some(Filter::Linear) => MipmapFilterMode::Linear,
                },
                width: t.width,
                height: t.height,
                allocate_mipmaps: f.mipmap.is_some(),
                sample_count: 1,
            },
        );
        ctx.texture_set_wrap(id, wrap(t.wrap[0]), wrap(t.wrap[1]));
        // Mipmaps only where the sampler asks for them: a nearest, unmipmapped texture keeps
        // its small dark details (buttons, outlines painted in) at a distance.
        if f.mipmap.is_some() {
            ctx.texture_generate_mipmaps(id);
        }
        textures.push(id);
    }
    textures
}

/// The hero's MToon materials with their textures (neutral ones where a material has none),
/// followed by glTF's default material (white, lit) for primitives without one.
fn gpu_materials(
    hero: &Hero,
    textures: &[TextureId],
    white: TextureId,
    black: TextureId,
    flat_normal: TextureId,
) -> Vec<GpuMaterial> {
    let tex = |i: Option<usize>, fallback: TextureId| {
        i.and_then(|i| textures.get(i).copied()).unwrap_or(fallback)
    };
    let mut materials: Vec<GpuMaterial> = hero
        .materials
        .iter()
        .map(|p| GpuMaterial {
            images: [
                tex(p.textures.base, white),
                tex(p.textures.shade, white),
                tex(p.textures.shading_shift, black),
                tex(p.textures.normal, flat_normal),
                tex(p.textures.emissive, white),
                tex(p.textures.matcap, black),
                tex(p.textures.rim, white),
                tex(p.textures.uv_mask, white),
                tex(p.textures.outline_width, white),
            ],
            metal_rough: tex(p.textures.metallic_roughness, white),
            params: p.clone(),
        })
        .collect();
    // Primitives without a material: glTF's default (white, metallic 1, roughness 1), as PBR.
    {
        let mut w = Vec::new();
        let m = crate::asset::MaterialAsset {
            name: Some("default".into()),
            base_color: glam::Vec4::ONE,
            base_color_texture: None,
            base_color_transform: Default::default(),
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: 0.5,
            double_sided: false,
            emissive: Vec3::ZERO,
            emissive_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            metallic: 1.0,
            roughness: 1.0,
            metallic_roughness_texture: None,
            unlit: false,
            mtoon: None,
        };
        materials.push(GpuMaterial {
            params: MToonParams::from_material(&m, 0, &mut w),
            images: [
                white,
                white,
                black,
                flat_normal,
                white,
                black,
                white,
                white,
                white,
            ],
            metal_rough: white,
        });
    }
    materials
}

/// Every triangle primitive of the scene's meshes as GPU buffers: positions, normals and
/// tangents in a buffer morphs rewrite; UVs, joints and weights in an immutable one.
fn upload_primitives(
    ctx: &mut dyn RenderingBackend,
    hero: &Hero,
    default_material: usize,
) -> Vec<GpuPrim> {
    let scene = &hero.scene;
    let mut prims = Vec::new();
    let mut scratch = Vec::new();
    for (ni, node) in scene.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            if prim.mode != PrimitiveMode::Triangles || prim.indices.is_empty() {
                continue;
            }
            let normals = if prim.normals.len() == prim.positions.len() {
                prim.normals.clone()
            } else {
                face_normals(prim)
            };
            dynamic_vertices(&prim.positions, &normals, &prim.tangents, &mut scratch);
            let morphing = !prim.morph_targets.is_empty();
            let dynamic_vb = ctx.new_buffer(
                BufferType::VertexBuffer,
                if morphing {
                    BufferUsage::Dynamic
                } else {
                    BufferUsage::Immutable
                },
                BufferSource::slice(&scratch),
            );
            let mut st = Vec::with_capacity(prim.positions.len() * STATIC_FLOATS);
            for v in 0..prim.positions.len() {
                let uv = prim.uvs.get(v).copied().unwrap_or_default();
                let j = prim.joints.get(v).copied().unwrap_or_default();
                let w = prim.weights.get(v).copied().unwrap_or_default();
                st.extend_from_slice(&[
                    uv.x, uv.y, j.x as f32, j.y as f32, j.z as f32, j.w as f32, w.x, w.y, w.z, w.w,
                ]);
            }
            let static_vb = ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Immutable,
                BufferSource::slice(&st),
            );
            let vertex_count = prim.positions.len() as u32;
            let indices: Vec<u32> = prim
                .indices
                .iter()
                .map(|&i| if i < vertex_count { i } else { 0 })
                .collect();
            let index_buffer = ctx.new_buffer(
                BufferType::IndexBuffer,
                BufferUsage::Immutable,
                BufferSource::slice(&indices),
            );
            prims.push(GpuPrim {
                node: ni,
                prim: pi,
                material: prim
                    .material
                    .filter(|&m| m < default_material)
                    .unwrap_or(default_material),
                dynamic_vb,
                static_vb,
                index_buffer,
                index_count: indices.len() as i32,
                triangles: (indices.len() / 3) as u64,
                group: hero.palettes.group_index(ni, pi),
                uploaded_morph: 0,
                morphing,
            });
        }
    }
    prims
}

impl HeroRenderer {
    /// Uploads the hero's meshes and textures and compiles its programs. A texture that is too
    /// large for the GPU becomes white with a warning; a failing shader is an error.
    pub fn new(
        ctx: &mut dyn RenderingBackend,
        hero: &Hero,
        options: HeroRenderOptions,
    ) -> Result<HeroRenderer, String> {
        let scene = &hero.scene;
        let limits = query_limits();
        let mut warnings = Vec::new();
        let (mode, sets) = palette_programs(ctx, hero, &options, &limits, &mut warnings)?;
        let group_count = hero.palettes.palette_count();
        let white = one_pixel(ctx, [255; 4]);
        let black = one_pixel(ctx, [0, 0, 0, 255]);
        let flat_normal = one_pixel(ctx, [128, 128, 255, 255]);
        let textures = upload_textures(ctx, scene, &limits, white, &mut warnings);
        let materials = gpu_materials(hero, &textures, white, black, flat_normal);
        // The last material is glTF's default, for primitives without one.
        let default_material = materials.len() - 1;
        let prims = upload_primitives(ctx, hero, default_material);
        let mut order: Vec<usize> = (0..prims.len()).collect();
        order.sort_by_key(|&i| materials[prims[i].material].params.draw_order());
        let palette_textures = (0..group_count).map(|_| None).collect();
        Ok(HeroRenderer {
            mode,
            sets,
            prims,
            materials,
            looks: Vec::new(),
            textures,
            white,
            black,
            flat_normal,
            palette_textures,
            palette_data: vec![Vec::new(); group_count],
            palette_versions: vec![0; group_count],
            order,
            model: Mat4::IDENTITY,
            time: 0.0,
            fov_scale: 1.0,
            culled: false,
            stats: HeroRenderStats::default(),
            warnings,
            outline_enabled: true,
            cast_shadow: true,
        })
    }

    pub fn palette_mode(&self) -> PaletteMode {
        self.mode
    }

    /// Uploads what changed since the last frame and remembers the frame's placement.
    /// `fov_y` is the player's, for screen-space outlines.
    pub fn prepare(&mut self, ctx: &mut dyn RenderingBackend, hero: &HeroFrame, fov_y: f32) {
        self.stats.draws = 0;
        self.stats.triangles = 0;
        self.stats.palette_uploads = 0;
        self.stats.morph_uploads = 0;
        self.model = hero.model;
        self.time = hero.time;
        // Expression colour and texture binds: what the uniforms read instead of the
        // material's own values.
        self.looks.clear();
        self.looks.extend_from_slice(hero.material_looks);
        self.fov_scale = 2.0 * (fov_y * 0.5).tan();
        self.culled = !hero.visible;
        self.stats.culled = self.culled;
        for (gi, g) in hero.palettes.groups().iter().enumerate() {
            let uploaded = self.palette_versions.get(gi).copied().unwrap_or(0);
            if g.palette.version == uploaded || g.palette.matrices.is_empty() {
                continue;
            }
            let data = &mut self.palette_data[gi];
            data.clear();
            for m in &g.palette.matrices {
                data.extend_from_slice(&m.to_cols_array());
            }
            match self.mode {
                PaletteMode::Uniform { .. } => {
                    if let Some(set) = self.sets.get_mut(gi) {
                        set.stale = [true; 3];
                    }
                }
                PaletteMode::Texture => {
                    if let Err(e) =
                        upload_palette_texture(ctx, &mut self.palette_textures[gi], data)
                    {
                        if !self.warnings.contains(&e) {
                            eprintln!("throng: hero: {e}");
                            self.warnings.push(e);
                        }
                        continue;
                    }
                }
            }
            if let Some(v) = self.palette_versions.get_mut(gi) {
                *v = g.palette.version;
            }
            self.stats.palette_uploads += 1;
        }
        self.stats.palette_uploads_total += self.stats.palette_uploads as u64;
        let mut scratch = Vec::new();
        for p in &mut self.prims {
            if !p.morphing {
                continue;
            }
            let Some(mp) = hero
                .morphed
                .get(p.node)
                .and_then(|v| v.get(p.prim))
                .and_then(Option::as_ref)
            else {
                continue;
            };
            if mp.applied_version() == 0 || mp.applied_version() == p.uploaded_morph {
                continue;
            }
            dynamic_vertices(&mp.positions, &mp.normals, &mp.tangents, &mut scratch);
            ctx.buffer_update(p.dynamic_vb, BufferSource::slice(&scratch));
            p.uploaded_morph = mp.applied_version();
            self.stats.morph_uploads += 1;
        }
        self.stats.morph_uploads_total += self.stats.morph_uploads as u64;
    }

    fn set_for(&self, p: &GpuPrim) -> usize {
        match self.mode {
            PaletteMode::Uniform { .. } => p.group.unwrap_or(0).min(self.sets.len() - 1),
            PaletteMode::Texture => 0,
        }
    }

    /// After `apply_pipeline`: in uniform mode, refreshes this program's palette if stale.
    fn sync_uniform_palette(&mut self, set: usize, pass: usize, group: Option<usize>) {
        let PaletteMode::Uniform { .. } = self.mode else {
            return;
        };
        let Some(g) = group else { return };
        let s = &mut self.sets[set];
        if !s.stale[pass] {
            return;
        }
        let (program, loc) = match s.gl_program[pass] {
            Some(x) => x,
            None => {
                let mut current: gl::GLint = 0;
                let loc = unsafe {
                    gl::glGetIntegerv(GL_CURRENT_PROGRAM, &mut current);
                    gl::glGetUniformLocation(current as u32, c"palette".as_ptr() as *const _)
                };
                s.gl_program[pass] = Some((current as u32, loc));
                (current as u32, loc)
            }
        };
        let _ = program;
        let data = &self.palette_data[g];
        if loc >= 0 && !data.is_empty() {
            unsafe {
                gl::glUniformMatrix4fv(loc, (data.len() / 16) as i32, 0, data.as_ptr());
            }
        }
        s.stale[pass] = false;
    }

    fn bindings(&self, p: &GpuPrim, shadow_map: TextureId) -> Bindings {
        let m = &self.materials[p.material];
        let palette = match (self.mode, p.group) {
            (PaletteMode::Texture, Some(g)) => self
                .palette_textures
                .get(g)
                .and_then(Option::as_ref)
                .map(|t| t.id)
                .unwrap_or(self.white),
            _ => self.white,
        };
        let mut images = vec![shadow_map];
        images.extend_from_slice(&m.images);
        images.push(palette);
        images.push(m.metal_rough);
        Bindings {
            vertex_buffers: vec![p.dynamic_vb, p.static_vb],
            index_buffer: p.index_buffer,
            images,
        }
    }

    fn uniforms(&self, p: &GpuPrim, view_proj: &Mat4, info: Option<&MainPassInfo>) -> HeroUniforms {
        let m = &self.materials[p.material].params;
        let look = self
            .looks
            .get(p.material)
            .copied()
            .unwrap_or_else(|| MaterialLook::of(m));
        let palette_width = match (self.mode, p.group) {
            (PaletteMode::Texture, Some(g)) => self
                .palette_textures
                .get(g)
                .and_then(Option::as_ref)
                .map_or(4.0, |t| t.width as f32),
            _ => 4.0,
        };
        let uv_rows = UvTransform {
            offset: look.uv_offset,
            scale: look.uv_scale,
            ..m.uv_transform
        }
        .rows();
        let mut u = HeroUniforms {
            model: self.model.to_cols_array(),
            view_proj: view_proj.to_cols_array(),
            skinning: if p.group.is_some() { 1.0 } else { 0.0 },
            palette_width,
            fov_scale: self.fov_scale,
            outline_mode: match (m.outline_mode, m.outline_v0_max_distance) {
                (OutlineWidthMode::None, _) => 0.0,
                (OutlineWidthMode::WorldCoordinates, _) => 1.0,
                (OutlineWidthMode::ScreenCoordinates, None) => 2.0,
                (OutlineWidthMode::ScreenCoordinates, Some(_)) => 3.0,
            },
            outline_max_distance: m.outline_v0_max_distance.unwrap_or(0.0),
            uv_row_u: uv_rows[0].to_array(),
            uv_row_v: uv_rows[1].to_array(),
            outline_width: m.outline_width,
            time: self.time,
            uv_scroll: m.uv_scroll.to_array(),
            uv_rotation: m.uv_rotation,
            lit_color: look.lit_color.to_array(),
            shade_color: look.shade_color.to_array(),
            shading_shift: m.shading_shift,
            shift_tex_scale: m.shading_shift_texture_scale,
            toony: m.shading_toony,
            gi_eq: m.gi_equalization,
            emissive: look.emissive.to_array(),
            normal_scale: m.normal_scale,
            use_normal_map: if m.textures.normal.is_some() {
                1.0
            } else {
                0.0
            },
            matcap_factor: look.matcap_factor.to_array(),
            rim_color: look.rim_color.to_array(),
            rim_fresnel: m.rim_fresnel_power,
            rim_lift: m.rim_lift,
            rim_mix: m.rim_lighting_mix,
            outline_color: look.outline_color.to_array(),
            outline_mix: m.outline_lighting_mix,
            alpha_mode: match m.alpha_mode {
                AlphaMode::Opaque => 0.0,
                AlphaMode::Mask => 1.0,
                AlphaMode::Blend => 2.0,
            },
            alpha_cutoff: m.alpha_cutoff,
            pbr_on: if m.pbr.is_some() { 1.0 } else { 0.0 },
            metallic: m.pbr.map_or(0.0, |p| p.metallic),
            roughness: m.pbr.map_or(1.0, |p| p.roughness),
            ..Default::default()
        };
        if let Some(i) = info {
            u.light_view_proj = i.light_view_proj.to_cols_array();
            u.eye = i.eye.to_array();
            u.sun_dir = i.sun_dir.to_array();
            u.sun_color = i.sun_color.to_array();
            u.ambient = i.ambient.to_array();
            u.sky_color = i.sky_color.to_array();
            u.fog_distance = i.fog_distance;
            u.shadows_on = if i.shadows_on { 1.0 } else { 0.0 };
            u.shadow_texel = i.shadow_texel;
            u.tone_curve = i.tone_curve;
            u.outline_aspect = i.screen_size.1 / i.screen_size.0.max(1.0);
        }
        u
    }

    fn draw_prim(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        idx: usize,
        pass: Pass,
        view_proj: &Mat4,
        info: Option<&MainPassInfo>,
        stats: &mut RenderStats,
    ) {
        let p = &self.prims[idx];
        let m = &self.materials[p.material].params;
        let si = self.set_for(p);
        let set = &self.sets[si];
        let blend = m.alpha_mode == AlphaMode::Blend;
        let (pipeline, pass_index) = match pass {
            Pass::Forward => (set.forward[m.double_sided as usize][blend as usize], 0),
            Pass::Outline => (set.outline, 1),
            Pass::Shadow => (set.shadow, 2),
        };
        let no_depth_write = pass == Pass::Forward && blend && !m.transparent_with_z_write;
        let group = p.group;
        let bindings = self.bindings(p, info.map_or(self.white, |i| i.shadow_map));
        let uniforms = self.uniforms(p, view_proj, info);
        let (count, tris) = (p.index_count, p.triangles);
        ctx.apply_pipeline(&pipeline);
        self.sync_uniform_palette(si, pass_index, group);
        if no_depth_write {
            // miniquad ties the depth test to depth writes; blend without writes needs both
            // set by hand (and the mask restored after the draw).
            unsafe {
                gl::glEnable(gl::GL_DEPTH_TEST);
                gl::glDepthFunc(gl::GL_LEQUAL);
                gl::glDepthMask(gl::GL_FALSE as _);
            }
        }
        ctx.apply_bindings(&bindings);
        ctx.apply_uniforms_from_bytes(
            &uniforms as *const HeroUniforms as *const u8,
            std::mem::size_of::<HeroUniforms>(),
        );
        ctx.draw(0, count, 1);
        if no_depth_write {
            unsafe { gl::glDepthMask(gl::GL_TRUE as _) };
        }
        stats.draw_calls += 1;
        stats.triangles += tris;
        stats.uniform_bytes += std::mem::size_of::<HeroUniforms>() as u64;
        self.stats.draws += 1;
        self.stats.triangles += tris;
    }
}

fn upload_palette_texture(
    ctx: &mut dyn RenderingBackend,
    slot: &mut Option<FloatTexture>,
    data: &[f32],
) -> Result<(), String> {
    let texels = data.len() / 4;
    // Rows of up to 1024 texels (256 matrices) keep any palette under the texture size limit.
    let width = texels.clamp(4, 1024) as u32;
    let height = texels.div_ceil(width as usize).max(1) as u32;
    let mut padded = data.to_vec();
    padded.resize(width as usize * height as usize * 4, 0.0);
    match slot {
        Some(t) if t.width == width && t.height == height => {
            let raw = match unsafe { ctx.texture_raw_id(t.id) } {
                RawId::OpenGl(id) => id,
                #[allow(unreachable_patterns)]
                _ => return Err("palette texture is not a GL texture".into()),
            };
            unsafe {
                gl::glBindTexture(gl::GL_TEXTURE_2D, raw);
                gl::glPixelStorei(gl::GL_UNPACK_ALIGNMENT, 4);
                gl::glTexSubImage2D(
                    gl::GL_TEXTURE_2D,
                    0,
                    0,
                    0,
                    width as i32,
                    height as i32,
                    gl::GL_RGBA,
                    gl::GL_FLOAT,
                    padded.as_ptr() as *const _,
                );
                gl::glBindTexture(gl::GL_TEXTURE_2D, 0);
            }
            Ok(())
        }
        _ => {
            if let Some(old) = slot.take() {
                old.delete();
            }
            *slot = Some(FloatTexture::new(width, height, &padded)?);
            Ok(())
        }
    }
}

impl WorldLayer for HeroRenderer {
    fn draw_shadow(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        light_view_proj: Mat4,
        stats: &mut RenderStats,
    ) {
        if !self.cast_shadow {
            return;
        }
        for k in 0..self.order.len() {
            let i = self.order[k];
            let m = &self.materials[self.prims[i].material].params;
            if m.alpha_mode == AlphaMode::Blend && !m.transparent_with_z_write {
                continue;
            }
            self.draw_prim(ctx, i, Pass::Shadow, &light_view_proj, None, stats);
        }
    }

    fn draw_main(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        pass: &MainPassInfo,
        stats: &mut RenderStats,
    ) {
        // Uploads happened in `prepare`; the frame's statistics count them once, here.
        stats.palette_uploads += self.stats.palette_uploads;
        stats.morph_uploads += self.stats.morph_uploads;
        if self.mode == PaletteMode::Texture {
            stats.texture_uploads += self.stats.palette_uploads;
        }
        if self.culled {
            return;
        }
        let vp = pass.view_proj;
        // Opaque and cut-out surfaces, then their outlines, then blended ones back to front
        // by render queue: outlines must not draw over transparent parts.
        let first_blend = self
            .order
            .iter()
            .position(|&i| {
                self.materials[self.prims[i].material].params.alpha_mode == AlphaMode::Blend
            })
            .unwrap_or(self.order.len());
        for k in 0..first_blend {
            let i = self.order[k];
            self.draw_prim(ctx, i, Pass::Forward, &vp, Some(pass), stats);
        }
        if self.outline_enabled {
            for k in 0..self.order.len() {
                let i = self.order[k];
                let m = &self.materials[self.prims[i].material].params;
                if m.outline_mode != OutlineWidthMode::None && m.outline_width > 0.0 {
                    self.draw_prim(ctx, i, Pass::Outline, &vp, Some(pass), stats);
                }
            }
        }
        for k in first_blend..self.order.len() {
            let i = self.order[k];
            self.draw_prim(ctx, i, Pass::Forward, &vp, Some(pass), stats);
        }
    }
}

impl HeroRenderer {
    /// Frees every GPU resource (the hero is being replaced).
    pub fn delete(self, ctx: &mut dyn RenderingBackend) {
        for p in &self.prims {
            ctx.delete_buffer(p.dynamic_vb);
            ctx.delete_buffer(p.static_vb);
            ctx.delete_buffer(p.index_buffer);
        }
        let mut seen = Vec::new();
        for t in self
            .textures
            .iter()
            .chain([&self.white, &self.black, &self.flat_normal])
        {
            if !seen.contains(t) {
                seen.push(*t);
                ctx.delete_texture(*t);
            }
        }
        for t in self.palette_textures.into_iter().flatten() {
            t.delete();
        }
        for s in &self.sets {
            for p in s.forward.iter().flatten().chain([&s.outline, &s.shadow]) {
                ctx.delete_pipeline(*p);
            }
            for sh in s.shaders {
                ctx.delete_shader(sh);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_goes_to_a_texture_only_when_the_uniforms_cannot_hold_it() {
        // Mesa's 4096 vectors: 51 joints fit as uniforms, sized to the palette.
        assert_eq!(
            choose_palette_mode(51, 4096, false),
            PaletteMode::Uniform { capacity: 51 }
        );
        // GL 3.3's guaranteed 256: (256 - 64) / 4 = 48 matrices, so 51 do not fit.
        assert_eq!(
            choose_palette_mode(48, 256, false),
            PaletteMode::Uniform { capacity: 48 }
        );
        assert_eq!(choose_palette_mode(49, 256, false), PaletteMode::Texture);
        assert_eq!(choose_palette_mode(10, 4096, true), PaletteMode::Texture);
        // A driver reporting nonsense still gets a working answer.
        assert_eq!(choose_palette_mode(1, 0, false), PaletteMode::Texture);
    }
}

//! The skinned crowd on the GPU (GPU Gems 3 ch. 2): one animation-matrix texture (raw RGBA32F,
//! read with texelFetch), meshes per (submesh, level of detail), and instanced draws whose
//! per-person data comes from a uniform vec4 array indexed by gl_InstanceID. Also the naive
//! yardstick (one draw per person with a CPU palette) and blob shadows for mid and far people.
//!
//! miniquad sets the small uniforms; the instance array, the naive palette and the texture unit
//! go through raw GL so a batch uploads only the vectors it uses.

use std::collections::HashMap;
use std::ffi::CString;

use glam::Mat4;
use macroquad::miniquad::gl;
use macroquad::miniquad::{
    Bindings, BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Comparison, CullFace,
    Pipeline, PipelineParams, RenderingBackend, TextureId, UniformDesc, UniformType,
    UniformsSource, VertexAttribute, VertexFormat,
};

use super::gl_raw::{self, FloatFormat, FloatTexture, GlLimits};
use super::impostor::ImpostorGpu;
use super::impostor_bake::BakeSources;
use super::layer::{MainPassInfo, WorldLayer};
use super::renderer::{compile, lighting_uniforms, SceneLight, ShadowUniforms};
use super::RenderStats;
use crate::anim::anim_texture::TEXELS_PER_JOINT;
use crate::crowd_assets::mesh::FIGURE_FLOATS;
use crate::crowd_assets::vat_runtime::{CrowdVat, VatMesh};
use crate::crowd_assets::CrowdAssets;
use crate::view::crowd_pack::{batch_ranges, instances_per_batch, VEC4_PER_INSTANCE};
use crate::view::crowd_pack::{CrowdFrame, NaiveFrame};
use crate::view::lod::Lod;
use crate::view::lod_fade::ShaderFade;

const CROWD_VERT: &str = include_str!("shaders/crowd.vert");
const LIT_FRAG: &str = include_str!("shaders/lit.frag");
const SHADOW_FRAG: &str = include_str!("shaders/shadow.frag");
const BLOB_VERT: &str = include_str!("shaders/blob.vert");
const BLOB_FRAG: &str = include_str!("shaders/blob.frag");
const LOD_FADE: &str = include_str!("shaders/lod_fade.glsl");

/// A crowd fragment shader with the LOD cross-fade inserted after its `#version` line.
pub(super) fn with_lod_fade(fragment: &str) -> String {
    fragment.replacen("#version 330\n", &format!("#version 330\n{LOD_FADE}"), 1)
}

/// How far blob shadows are pulled towards the eye (polygon offset factor, units), so the ground
/// they lie 1.5 cm above never hides them at a grazing view.
const BLOB_DEPTH_PULL: (f32, f32) = (-1.0, -4.0);

/// The texture units of the animation texture and the VAT: miniquad caches what it bound on
/// units 0-11 and would skip or undo a raw GL bind there, so raw textures live above them.
const ANIM_TEXTURE_UNIT: u32 = 12;
const VAT_TEXTURE_UNIT: u32 = 13;
const GL_CURRENT_PROGRAM: u32 = 0x8B8D;
/// Vertex uniform vectors the crowd shader uses besides the instance array: view_proj (4) and
/// the matrix programs' neck and head rig (2; the VAT variant has its mesh address, 1,
/// instead): one batch size serves both paths. (At the usual limits of 4096 and 1024 vectors
/// the rig costs no instance per batch: (4096 - 6) / 5 and (4096 - 5) / 5 are both 818.)
const OTHER_VERTEX_VECTORS: u32 = 6;
/// Vertex uniform vectors the blob shader uses besides its array (as before the rig).
const BLOB_OTHER_VECTORS: u32 = 5;

/// What to draw this frame.
#[derive(Clone, Copy)]
pub enum CrowdDraw<'a> {
    Instanced(&'a CrowdFrame),
    Naive(&'a NaiveFrame),
}

struct GpuMesh {
    bindings: Bindings,
    index_count: i32,
    triangles: u64,
}

/// Instanced lit and depth pipelines for one level of detail (influence count).
struct LodPipelines {
    lit: Pipeline,
    depth: Pipeline,
}

#[repr(C)]
struct CrowdLitUniforms {
    view_proj: [f32; 16],
    light: SceneLight,
}

/// The vertex animation texture on the GPU and the lit pipelines that read it.
struct VatGpu {
    texture: FloatTexture,
    lit: [Option<Pipeline>; 3],
    meshes: Vec<[Option<VatMesh>; 3]>,
    width: u32,
}

/// Raw uniform locations of one GL program (-1 where the program lacks the name).
#[derive(Clone, Copy)]
struct Locations {
    /// `instances`, `palette` or `blobs`.
    array: i32,
    anim_tex: i32,
    single: i32,
    vat_tex: i32,
    vat_mesh: i32,
    /// The matrix programs' `look_rig[2]` (people look back).
    look_rig: i32,
    fade_eye: i32,
    fade_band: i32,
    fade_near: i32,
}

/// The crowd renderer's configuration as built: what the stats panel shows.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CrowdGpuInfo {
    /// Instances per instanced draw (from the uniform limit).
    pub per_batch: u32,
    /// The vertex uniform vectors the batches were sized for (queried limit or the cap).
    pub uniform_vectors: u32,
    pub texture_format: FloatFormat,
    pub texture_bytes: u64,
    /// GPU bytes of the vertex animation texture (0 while the VAT path is off).
    pub vat_bytes: u64,
    /// The impostor atlas: its size, bytes, bake (or cache read) time (None: not made).
    pub impostors: Option<super::impostor::ImpostorInfo>,
}

pub struct CrowdRenderer {
    texture: FloatTexture,
    /// Per submesh, per level of detail.
    meshes: Vec<[Option<GpuMesh>; 3]>,
    lods: [LodPipelines; 3],
    naive_lit: Pipeline,
    naive_depth: Pipeline,
    blob: Pipeline,
    blob_quad: Bindings,
    max_blobs: usize,
    pub info: CrowdGpuInfo,
    locations: HashMap<u32, Locations>,
    buffers: Vec<BufferId>,
    vat: Option<VatGpu>,
    /// What the VAT pipelines are compiled from.
    vat_source: VatSource,
    /// The impostor atlas and its quad pipeline (None: impostor people use the far mesh).
    impostors: Option<ImpostorGpu>,
    /// Per submesh, the `look_rig` uniform of the skeleton it hangs on.
    look_rigs: Vec<[[f32; 4]; 2]>,
}

#[derive(Clone)]
struct VatSource {
    per_batch: u32,
    joints: u32,
    lit_uniforms: Vec<UniformDesc>,
    attributes: Vec<VertexAttribute>,
    params: PipelineParams,
}

/// The crowd figure vertex (crowd_assets/mesh.rs `FIGURE_FLOATS`) as crowd.vert reads it: the
/// figure programs and the impostor bake draw the same buffers.
pub(super) fn figure_attributes() -> [VertexAttribute; 6] {
    [
        VertexAttribute::new("in_pos", VertexFormat::Float3),
        VertexAttribute::new("in_normal", VertexFormat::Float3),
        VertexAttribute::new("in_color", VertexFormat::Float3),
        VertexAttribute::new("in_tint", VertexFormat::Float1),
        VertexAttribute::new("in_joints", VertexFormat::Float4),
        VertexAttribute::new("in_weights", VertexFormat::Float4),
    ]
}

/// What every crowd figure program shares: uniforms, vertex attributes, pipeline states.
struct FigureProgramInputs {
    lit_uniforms: Vec<UniformDesc>,
    depth_uniforms: Vec<UniformDesc>,
    layout: [BufferLayout; 1],
    attributes: [VertexAttribute; 6],
    opaque: PipelineParams,
    depth_params: PipelineParams,
}

impl FigureProgramInputs {
    fn new() -> Self {
        let lit_uniforms = {
            let mut u = vec![UniformDesc::new("view_proj", UniformType::Mat4)];
            u.extend(lighting_uniforms());
            u
        };
        let depth_uniforms = vec![UniformDesc::new("view_proj", UniformType::Mat4)];
        let opaque = PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            cull_face: CullFace::Nothing,
            ..Default::default()
        };
        // The shadow pass sets its own polygon offset (renderer.rs `SHADOW_CASTER_OFFSET`).
        let depth_params = opaque;
        let layout = [BufferLayout::default()];
        let attributes = figure_attributes();
        FigureProgramInputs {
            lit_uniforms,
            depth_uniforms,
            layout,
            attributes,
            opaque,
            depth_params,
        }
    }
}

/// The animation-matrix texture on the GPU (RGBA32F, else RGBA16F with a warning); too large
/// for this GPU is an error.
fn upload_anim_texture(assets: &CrowdAssets, limits: &GlLimits) -> Result<FloatTexture, String> {
    let tex = &assets.texture;
    if tex.width > limits.max_texture_size || tex.rows > limits.max_texture_size {
        return Err(format!(
            "the animation texture is {}x{} texels but this GPU allows {} per side; \
             use fewer or shorter clips, or fewer joints",
            tex.width, tex.rows, limits.max_texture_size
        ));
    }
    let texture = FloatTexture::new(tex.width.max(1), tex.rows.max(1), &padded(tex))?;
    if texture.format == FloatFormat::Rgba16F {
        eprintln!(
            "throng: RGBA32F textures are not available; the animation texture falls back to \
             RGBA16F (about 3 significant digits: small wobble at the hands)"
        );
    }
    Ok(texture)
}

/// The packed head turn's step sizes for crowd.vert (view/look_pack.rs owns them).
fn look_step_defines() -> String {
    use crate::view::look_pack::{PITCH_STEP, YAW_STEP};
    format!("#define LOOK_YAW_STEP {YAW_STEP:.9}\n#define LOOK_PITCH_STEP {PITCH_STEP:.9}\n")
}

/// The instanced lit and depth pipelines for 4, 2 and 1 influences (near, mid, far), with
/// `per_batch` instances per draw or fewer; returns them and the batch size that linked.
fn lod_pipelines(
    ctx: &mut dyn RenderingBackend,
    shared: &FigureProgramInputs,
    mut per_batch: u32,
    joints: u32,
) -> Result<([LodPipelines; 3], u32), String> {
    let FigureProgramInputs {
        lit_uniforms,
        depth_uniforms,
        layout,
        attributes,
        opaque,
        depth_params,
    } = shared;
    let (opaque, depth_params) = (*opaque, *depth_params);
    let (layout, attributes): (&[BufferLayout], &[VertexAttribute]) = (layout, attributes);
    // A driver may count uniforms less tightly than the spec: shrink the batch until the
    // program links rather than failing outright.
    let lods = loop {
        let built: Result<Vec<LodPipelines>, String> = [4, 2, 1]
            .into_iter()
            .map(|influences| {
                let header = format!(
                    "#version 330\n#define INFLUENCES {influences}\n#define MAX_INSTANCES {per_batch}\n#define MAX_JOINTS {joints}\n{}",
                    look_step_defines()
                );
                let vert = format!("{header}{CROWD_VERT}");
                let (lit_frag, depth_frag) = (with_lod_fade(LIT_FRAG), with_lod_fade(SHADOW_FRAG));
                let lit = compile(ctx, "crowd", &vert, &lit_frag, &["shadow_map"], lit_uniforms.clone())?;
                let depth = compile(ctx, "crowd depth", &vert, &depth_frag, &[], depth_uniforms.clone())?;
                Ok(LodPipelines {
                    lit: ctx.new_pipeline(layout, attributes, lit, opaque),
                    depth: ctx.new_pipeline(layout, attributes, depth, depth_params),
                })
            })
            .collect();
        match built {
            Ok(v) => break v,
            Err(e) if per_batch > 1 => {
                eprintln!("throng: crowd shader with {per_batch} instances per draw failed ({e}); trying fewer");
                per_batch = (per_batch * 3 / 4).max(1);
            }
            Err(e) => return Err(e),
        }
    };
    let lods: [LodPipelines; 3] = {
        let mut it = lods.into_iter();
        match (it.next(), it.next(), it.next()) {
            (Some(a), Some(b), Some(c)) => [a, b, c],
            _ => return Err("crowd pipelines: internal count mismatch".into()),
        }
    };
    Ok((lods, per_batch))
}

/// The naive path's lit and depth pipelines: one person per draw, palette as uniforms.
fn naive_pipelines(
    ctx: &mut dyn RenderingBackend,
    shared: &FigureProgramInputs,
    joints: u32,
) -> Result<(Pipeline, Pipeline), String> {
    let FigureProgramInputs {
        lit_uniforms,
        depth_uniforms,
        layout,
        attributes,
        opaque,
        depth_params,
    } = shared;
    let (opaque, depth_params) = (*opaque, *depth_params);
    let (layout, attributes): (&[BufferLayout], &[VertexAttribute]) = (layout, attributes);
    let naive_header = format!(
        "#version 330\n#define INFLUENCES 4\n#define MAX_INSTANCES 1\n#define MAX_JOINTS {joints}\n#define NAIVE\n"
    );
    let naive_vert = format!("{naive_header}{CROWD_VERT}");
    let naive_lit_shader = compile(
        ctx,
        "crowd naive",
        &naive_vert,
        LIT_FRAG,
        &["shadow_map"],
        lit_uniforms.clone(),
    )?;
    let naive_depth_shader = compile(
        ctx,
        "crowd naive depth",
        &naive_vert,
        SHADOW_FRAG,
        &[],
        depth_uniforms.clone(),
    )?;
    let naive_lit = ctx.new_pipeline(layout, attributes, naive_lit_shader, opaque);
    let naive_depth = ctx.new_pipeline(layout, attributes, naive_depth_shader, depth_params);
    Ok((naive_lit, naive_depth))
}

/// The blob shadows' blended pipeline (up to `max_blobs` per draw) and the quad it draws.
fn blob_pipeline(
    ctx: &mut dyn RenderingBackend,
    shared: &FigureProgramInputs,
    max_blobs: usize,
    buffers: &mut Vec<BufferId>,
) -> Result<(Pipeline, Bindings), String> {
    let layout: &[BufferLayout] = &shared.layout;
    let depth_uniforms = shared.depth_uniforms.clone();
    let blob_shader = compile(
        ctx,
        "blob shadow",
        &format!(
            "#version 330\n#define MAX_BLOBS {max_blobs}\n{}",
            BLOB_VERT.replacen("#version 330\n", "", 1)
        ),
        BLOB_FRAG,
        &[],
        depth_uniforms,
    )?;
    let blob = ctx.new_pipeline(
        layout,
        &[VertexAttribute::new("in_corner", VertexFormat::Float2)],
        blob_shader,
        PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: false,
            cull_face: CullFace::Nothing,
            color_blend: super::over_keeping_alpha().0,
            alpha_blend: super::over_keeping_alpha().1,
            ..Default::default()
        },
    );
    let corners: [f32; 8] = [-1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0];
    let quad_vb = ctx.new_buffer(
        BufferType::VertexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(&corners),
    );
    let quad_ib = ctx.new_buffer(
        BufferType::IndexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(&[0u32, 1, 2, 0, 2, 3]),
    );
    buffers.extend([quad_vb, quad_ib]);
    let blob_quad = Bindings {
        vertex_buffers: vec![quad_vb],
        index_buffer: quad_ib,
        images: vec![],
    };
    Ok((blob, blob_quad))
}

/// Every submesh's levels of detail as GPU buffers (None where a level is absent or empty).
fn upload_meshes(
    ctx: &mut dyn RenderingBackend,
    assets: &CrowdAssets,
    shadow_map: TextureId,
    buffers: &mut Vec<BufferId>,
) -> Vec<[Option<GpuMesh>; 3]> {
    assets
        .submeshes
        .iter()
        .map(|s| {
            std::array::from_fn(|l| {
                let m = s.lods[l].as_ref()?;
                if m.indices.is_empty() {
                    return None;
                }
                let vb = ctx.new_buffer(
                    BufferType::VertexBuffer,
                    BufferUsage::Immutable,
                    BufferSource::slice(&m.interleaved()),
                );
                let ib = ctx.new_buffer(
                    BufferType::IndexBuffer,
                    BufferUsage::Immutable,
                    BufferSource::slice(&m.indices),
                );
                buffers.extend([vb, ib]);
                Some(GpuMesh {
                    bindings: Bindings {
                        vertex_buffers: vec![vb],
                        index_buffer: ib,
                        // The lit programs sample the sun's shadow map (unit 0).
                        images: vec![shadow_map],
                    },
                    index_count: m.indices.len() as i32,
                    triangles: m.triangle_count() as u64,
                })
            })
        })
        .collect()
}

impl CrowdRenderer {
    /// Uploads the crowd assets. `cap` lowers the uniform-vector limit to imitate a smaller GPU.
    pub fn new(
        ctx: &mut dyn RenderingBackend,
        assets: &CrowdAssets,
        limits: GlLimits,
        cap: Option<u32>,
        shadow_map: TextureId,
    ) -> Result<Self, String> {
        let vectors = cap.map_or(limits.max_vertex_uniform_vectors, |c| {
            c.min(limits.max_vertex_uniform_vectors)
        });
        let texture = upload_anim_texture(assets, &limits)?;
        let joints = assets.texture.joints.max(1);
        let per_batch = instances_per_batch(vectors, OTHER_VERTEX_VECTORS)?;
        let shared = FigureProgramInputs::new();
        let (lods, per_batch) = lod_pipelines(ctx, &shared, per_batch, joints)?;
        let (naive_lit, naive_depth) = naive_pipelines(ctx, &shared, joints)?;
        let max_blobs = vectors.saturating_sub(BLOB_OTHER_VECTORS).max(1) as usize;
        let mut buffers = Vec::new();
        let (blob, blob_quad) = blob_pipeline(ctx, &shared, max_blobs, &mut buffers)?;
        let meshes = upload_meshes(ctx, assets, shadow_map, &mut buffers);
        let FigureProgramInputs {
            lit_uniforms,
            attributes,
            opaque,
            ..
        } = shared;
        let info = CrowdGpuInfo {
            per_batch,
            uniform_vectors: vectors,
            texture_format: texture.format,
            texture_bytes: texture.bytes(),
            vat_bytes: 0,
            impostors: None,
        };
        debug_assert_eq!(FIGURE_FLOATS * 4, 72);
        let vat_source = VatSource {
            per_batch,
            joints,
            lit_uniforms,
            attributes: attributes.to_vec(),
            params: opaque,
        };
        Ok(CrowdRenderer {
            texture,
            meshes,
            lods,
            naive_lit,
            naive_depth,
            blob,
            blob_quad,
            max_blobs,
            info,
            locations: HashMap::new(),
            buffers,
            vat: None,
            vat_source,
            impostors: None,
            look_rigs: (0..assets.submeshes.len())
                .map(|s| assets.submesh_look_rig(s).uniforms())
                .collect(),
        })
    }

    /// Draws the levels of detail `vat` holds from it (None: every figure from the matrix
    /// texture again). On an error the matrix path stays in use.
    pub fn set_vat(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        vat: Option<&CrowdVat>,
    ) -> Result<(), String> {
        if let Some(old) = self.vat.take() {
            old.delete(ctx);
        }
        self.info.vat_bytes = 0;
        let Some(vat) = vat else {
            return Ok(());
        };
        let texture = FloatTexture::new(vat.width, vat.rows, &vat.data)?;
        if texture.format != FloatFormat::Rgba32F {
            texture.delete();
            return Err(
                "the vertex animation texture needs RGBA32F (its packed normals do not fit                  RGBA16F); the crowd stays on the animation-matrix texture"
                    .into(),
            );
        }
        let src = self.vat_source.clone();
        let mut lit: [Option<Pipeline>; 3] = [None; 3];
        for (lod, influences) in [4, 2, 1].into_iter().enumerate() {
            if !vat.meshes.iter().any(|m| m[lod].is_some()) {
                continue;
            }
            let header = format!(
                "#version 330\n#define INFLUENCES {influences}\n#define MAX_INSTANCES {}\n#define MAX_JOINTS {}\n#define VAT\n",
                src.per_batch, src.joints
            );
            let shader = compile(
                ctx,
                "crowd VAT",
                &format!("{header}{CROWD_VERT}"),
                &with_lod_fade(LIT_FRAG),
                &["shadow_map"],
                src.lit_uniforms.clone(),
            );
            let shader = match shader {
                Ok(s) => s,
                Err(e) => {
                    for p in lit.into_iter().flatten() {
                        ctx.delete_pipeline(p);
                    }
                    texture.delete();
                    return Err(e);
                }
            };
            lit[lod] = Some(ctx.new_pipeline(
                &[BufferLayout::default()],
                &src.attributes,
                shader,
                src.params,
            ));
        }
        self.info.vat_bytes = texture.bytes();
        self.vat = Some(VatGpu {
            texture,
            lit,
            meshes: vat.meshes.clone(),
            width: vat.width,
        });
        Ok(())
    }

    /// True while mid/far figures are read from the vertex animation texture.
    pub fn vat_active(&self) -> bool {
        self.vat.is_some()
    }

    /// What the impostor bake draws with: the animation texture and each body's near mesh.
    pub fn bake_sources(&self, assets: &CrowdAssets) -> BakeSources {
        BakeSources {
            anim_texture: self.texture.raw(),
            joints: assets.texture.joints,
            meshes: assets
                .bodies
                .iter()
                .map(|b| {
                    let m = self.meshes.get(b.submesh)?[0].as_ref()?;
                    let mut bindings = m.bindings.clone();
                    bindings.images.clear();
                    Some((bindings, m.index_count))
                })
                .collect(),
        }
    }

    /// Draws impostor people from `impostors` (None: with the far mesh).
    pub fn set_impostors(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        impostors: Option<ImpostorGpu>,
    ) {
        self.info.impostors = impostors.as_ref().map(|i| i.info);
        if let Some(old) = std::mem::replace(&mut self.impostors, impostors) {
            old.delete(ctx);
        }
    }

    pub fn impostor_info(&self) -> Option<super::impostor::ImpostorInfo> {
        self.impostors.as_ref().map(|i| i.info)
    }

    /// Frees the GPU resources (before a rebuild for other crowd assets or uniform cap).
    pub fn delete(self, ctx: &mut dyn RenderingBackend) {
        for b in self.buffers {
            ctx.delete_buffer(b);
        }
        for p in [self.naive_lit, self.naive_depth, self.blob] {
            ctx.delete_pipeline(p);
        }
        for l in self.lods {
            ctx.delete_pipeline(l.lit);
            ctx.delete_pipeline(l.depth);
        }
        if let Some(v) = self.vat {
            v.delete(ctx);
        }
        if let Some(i) = self.impostors {
            i.delete(ctx);
        }
        self.texture.delete();
    }

    /// This frame's crowd as a layer of the shared passes.
    pub fn layer<'a>(&'a mut self, draw: CrowdDraw<'a>) -> CrowdLayer<'a> {
        CrowdLayer {
            renderer: self,
            draw,
        }
    }

    /// Raw locations of the current program's arrays, looked up once per program.
    fn current_locations(&mut self) -> Locations {
        let mut program: gl::GLint = 0;
        unsafe { gl::glGetIntegerv(GL_CURRENT_PROGRAM, &mut program) };
        *self.locations.entry(program as u32).or_insert_with(|| {
            let loc = |name: &str| {
                let c = CString::new(name).unwrap_or_default();
                unsafe { gl::glGetUniformLocation(program as gl::GLuint, c.as_ptr()) }
            };
            let array = if loc("instances") >= 0 {
                loc("instances")
            } else if loc("palette") >= 0 {
                loc("palette")
            } else {
                loc("blobs")
            };
            Locations {
                array,
                anim_tex: loc("anim_tex"),
                single: loc("single"),
                vat_tex: loc("vat_tex"),
                vat_mesh: loc("vat_mesh"),
                look_rig: loc("look_rig"),
                fade_eye: loc("fade_eye"),
                fade_band: loc("fade_band"),
                fade_near: loc("fade_near"),
            }
        })
    }

    /// Binds the animation texture and, for a VAT program, the VAT to their units.
    fn bind_textures(&mut self) -> Locations {
        let locs = self.current_locations();
        let bind = |unit: u32, texture: u32, location: i32| unsafe {
            gl::glActiveTexture(gl::GL_TEXTURE0 + unit);
            gl::glBindTexture(gl::GL_TEXTURE_2D, texture);
            gl::glActiveTexture(gl::GL_TEXTURE0);
            if location >= 0 {
                gl::glUniform1i(location, unit as gl::GLint);
            }
        };
        bind(ANIM_TEXTURE_UNIT, self.texture.raw(), locs.anim_tex);
        if let Some(v) = &self.vat {
            bind(VAT_TEXTURE_UNIT, v.texture.raw(), locs.vat_tex);
        }
        locs
    }

    /// Every (submesh) list of one level of detail, in batches of the block size.
    fn draw_lists<U>(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        (frame, lod): (&CrowdFrame, usize),
        depth: bool,
        uniforms: &U,
        stats: &mut RenderStats,
    ) {
        let lists = &frame.lists[lod];
        if lists.iter().all(Vec::is_empty) {
            return;
        }
        // Impostor people are drawn with the far mesh while there is no atlas; they keep the
        // impostor level's fade bands.
        let level = lod;
        let lod = lod.min(Lod::MESHES - 1);
        let per_batch = self.info.per_batch as usize;
        // Which program is current: Some(true) the VAT one, Some(false) the matrix one.
        let mut applied: Option<bool> = None;
        let mut locs = None;
        for (submesh, list) in lists.iter().enumerate() {
            let count = list.len() / VEC4_PER_INSTANCE;
            if count == 0 {
                continue;
            }
            if self
                .meshes
                .get(submesh)
                .and_then(|m| m[lod].as_ref())
                .is_none()
            {
                continue;
            }
            let vat = self.vat.as_ref().filter(|_| !depth).and_then(|v| {
                let entry = v.meshes.get(submesh).and_then(|m| m[lod])?;
                Some((*v.lit[lod].as_ref()?, entry, v.width))
            });
            if applied != Some(vat.is_some()) {
                let pipeline = match vat {
                    Some((p, _, _)) => p,
                    None if depth => self.lods[lod].depth,
                    None => self.lods[lod].lit,
                };
                ctx.apply_pipeline(&pipeline);
                applied = Some(vat.is_some());
                let l = self.bind_textures();
                set_fade(&l, &frame.fade, level, depth);
                locs = Some(l);
            }
            let (Some(locs), Some(mesh)) = (locs, self.meshes[submesh][lod].as_ref()) else {
                continue;
            };
            ctx.apply_bindings(&mesh.bindings);
            ctx.apply_uniforms(UniformsSource::table(uniforms));
            if let (true, Some(rig)) = (locs.look_rig >= 0, self.look_rigs.get(submesh)) {
                unsafe { gl::glUniform4fv(locs.look_rig, 2, rig.as_ptr() as *const f32) };
            }
            if let Some((_, e, width)) = vat {
                let int = |x: u32| x.min(i32::MAX as u32) as gl::GLint;
                unsafe {
                    gl::glUniform4i(
                        locs.vat_mesh,
                        int(e.first_texel),
                        int(e.first_anim_row),
                        int(e.vertices),
                        int(width),
                    );
                }
            }
            for range in batch_ranges(count, per_batch) {
                let vectors = &list[range.start * VEC4_PER_INSTANCE..range.end * VEC4_PER_INSTANCE];
                unsafe {
                    gl::glUniform4fv(
                        locs.array,
                        vectors.len() as i32,
                        vectors.as_ptr() as *const f32,
                    );
                }
                ctx.draw(0, mesh.index_count, range.len() as i32);
                stats.draw_calls += 1;
                stats.batches += 1;
                stats.triangles += mesh.triangles * range.len() as u64;
                stats.crowd_mesh_triangles += mesh.triangles * range.len() as u64;
                stats.uniform_bytes += (vectors.len() * 16) as u64;
            }
        }
    }

    fn draw_naive<U>(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        frame: &NaiveFrame,
        depth: bool,
        uniforms: &U,
        stats: &mut RenderStats,
    ) {
        if frame.draws.is_empty() {
            return;
        }
        ctx.apply_pipeline(if depth {
            &self.naive_depth
        } else {
            &self.naive_lit
        });
        ctx.apply_uniforms(UniformsSource::table(uniforms));
        let Locations {
            array: palette_loc,
            single: single_loc,
            ..
        } = self.current_locations();
        let stride = frame.joints * TEXELS_PER_JOINT as usize;
        for d in &frame.draws {
            let Some(mesh) = self.meshes.get(d.submesh).and_then(|m| m[0].as_ref()) else {
                continue;
            };
            let Some(palette) = frame
                .palettes
                .get(d.palette * stride..(d.palette + 1) * stride)
            else {
                continue;
            };
            ctx.apply_bindings(&mesh.bindings);
            unsafe {
                gl::glUniform4fv(
                    palette_loc,
                    palette.len() as i32,
                    palette.as_ptr() as *const f32,
                );
                gl::glUniform4fv(
                    single_loc,
                    VEC4_PER_INSTANCE as i32,
                    d.block.as_ptr() as *const f32,
                );
            }
            ctx.draw(0, mesh.index_count, 1);
            stats.draw_calls += 1;
            stats.triangles += mesh.triangles;
            stats.uniform_bytes += ((palette.len() + VEC4_PER_INSTANCE) * 16) as u64;
        }
    }

    fn draw_blobs(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        blobs: &[[f32; 4]],
        view_proj: &[f32; 16],
        stats: &mut RenderStats,
    ) {
        if blobs.is_empty() {
            return;
        }
        ctx.apply_pipeline(&self.blob);
        // Behind canopies, benches, walls and people the ground is hidden, and so is its blob.
        gl_raw::depth_test_without_writes(true);
        gl_raw::polygon_offset(Some(BLOB_DEPTH_PULL));
        ctx.apply_bindings(&self.blob_quad);
        ctx.apply_uniforms(UniformsSource::table(view_proj));
        let loc = self.current_locations().array;
        for chunk in blobs.chunks(self.max_blobs) {
            unsafe { gl::glUniform4fv(loc, chunk.len() as i32, chunk.as_ptr() as *const f32) };
            ctx.draw(0, 6, chunk.len() as i32);
            stats.draw_calls += 1;
            stats.triangles += 2 * chunk.len() as u64;
            stats.uniform_bytes += (chunk.len() * 16) as u64;
        }
        gl_raw::polygon_offset(None);
        gl_raw::depth_test_without_writes(false);
    }
}

/// The cross-fade uniforms of level `lod` for the current program (absent in the naive one).
/// A `depth` pass (the shadow map) keeps bodies near the lens: their shadows stay.
fn set_fade(locs: &Locations, fade: &ShaderFade, lod: usize, depth: bool) {
    let Some(band) = fade.bands.get(lod) else {
        return;
    };
    let [x, y, z] = fade.eye;
    unsafe {
        if locs.fade_eye >= 0 {
            gl::glUniform3f(locs.fade_eye, x, y, z);
        }
        if locs.fade_band >= 0 {
            gl::glUniform4f(locs.fade_band, band[0], band[1], band[2], band[3]);
        }
        if locs.fade_near >= 0 {
            let [start, end] = if depth { [0.0; 2] } else { fade.near };
            gl::glUniform2f(locs.fade_near, start, end);
        }
    }
}

/// The texture's data padded to at least one texel (empty crowd assets still link).
fn padded(tex: &crate::anim::anim_texture::AnimTexture) -> Vec<f32> {
    let want = tex.width.max(1) as usize * tex.rows.max(1) as usize * 4;
    let mut data = tex.data.clone();
    data.resize(want, 0.0);
    data
}

/// The crowd drawn into this frame's passes.
pub struct CrowdLayer<'a> {
    renderer: &'a mut CrowdRenderer,
    draw: CrowdDraw<'a>,
}

impl WorldLayer for CrowdLayer<'_> {
    fn draw_shadow(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        light_view_proj: Mat4,
        stats: &mut RenderStats,
    ) {
        let vp = light_view_proj.to_cols_array();
        match self.draw {
            CrowdDraw::Instanced(frame) => {
                // Near people cast real shadows; mid and far get blobs in the main pass.
                self.renderer.draw_lists(ctx, (frame, 0), true, &vp, stats);
            }
            CrowdDraw::Naive(frame) => self.renderer.draw_naive(ctx, frame, true, &vp, stats),
        }
    }

    fn draw_main(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        pass: &MainPassInfo,
        stats: &mut RenderStats,
    ) {
        let uniforms = CrowdLitUniforms {
            view_proj: pass.view_proj.to_cols_array(),
            light: SceneLight {
                sun_dir: pass.sun_dir.to_array(),
                sun_color: pass.sun_color.to_array(),
                ambient: pass.ambient.to_array(),
                sky_color: pass.sky_color.to_array(),
                eye: pass.eye.to_array(),
                fog_distance: pass.fog_distance,
                shadow: ShadowUniforms {
                    light_view_proj: pass.light_view_proj.to_cols_array(),
                    shadows_on: if pass.shadows_on { 1.0 } else { 0.0 },
                    shadow_texel: pass.shadow_texel,
                },
                tone_curve: pass.tone_curve,
            },
        };
        stats.texture_bytes += self.renderer.info.texture_bytes + self.renderer.info.vat_bytes;
        match self.draw {
            CrowdDraw::Instanced(frame) => {
                for lod in 0..Lod::MESHES {
                    stats.instances_per_lod[lod] += frame.counts.per_lod[lod];
                    self.renderer
                        .draw_lists(ctx, (frame, lod), false, &uniforms, stats);
                }
                self.draw_impostors(ctx, frame, &uniforms, stats);
                if pass.shadows_on {
                    self.renderer
                        .draw_blobs(ctx, &frame.blobs, &uniforms.view_proj, stats);
                }
            }
            CrowdDraw::Naive(frame) => {
                stats.instances_per_lod[0] += frame.people() as u32;
                self.renderer
                    .draw_naive(ctx, frame, false, &uniforms, stats);
            }
        }
    }
}

impl CrowdLayer<'_> {
    /// Impostor people from the atlas, or with the far mesh while there is none.
    fn draw_impostors(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        frame: &CrowdFrame,
        uniforms: &CrowdLitUniforms,
        stats: &mut RenderStats,
    ) {
        let imp = Lod::Impostor.index();
        stats.instances_per_lod[imp] += frame.counts.per_lod[imp];
        let lists = &frame.lists[imp];
        if let Some(gpu) = &self.renderer.impostors {
            stats.impostors = Some(gpu.info);
            stats.texture_bytes += gpu.info.atlas_bytes;
        }
        match &self.renderer.impostors {
            Some(gpu) => gpu.draw(ctx, lists, &frame.fade, uniforms, stats),
            None => self
                .renderer
                .draw_lists(ctx, (frame, imp), false, uniforms, stats),
        }
    }
}

impl VatGpu {
    fn delete(self, ctx: &mut dyn RenderingBackend) {
        for p in self.lit.into_iter().flatten() {
            ctx.delete_pipeline(p);
        }
        self.texture.delete();
    }
}

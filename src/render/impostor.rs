//! Impostor people on the GPU: the atlas (baked at start or loaded from the cache), one
//! instanced quad per person reading the crowd's 5-vec4 blocks, and lighting from lit.frag
//! itself (compiled with `IMPOSTOR`), so the sun, shadow map, ambient, fog and tonemap are the
//! meshes' own.

use crate::clock::Instant;
use std::ffi::CString;

use macroquad::miniquad::gl;
use macroquad::miniquad::{
    Bindings, BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Comparison, CullFace,
    Pipeline, PipelineParams, RenderingBackend, TextureAccess, TextureFormat, TextureId,
    TextureSource, UniformDesc, UniformType, UniformsSource, VertexAttribute, VertexFormat,
};

use super::impostor_bake::{atlas_params, bake, BakeSources};
use super::renderer::{compile, lighting_uniforms};
use super::RenderStats;
use crate::crowd_assets::impostor_cache::{self, AtlasImages};
use crate::crowd_assets::impostor_layout::{BodyShape, ImpostorLayout, ImpostorParams};
use crate::crowd_assets::CrowdAssets;
use crate::view::crowd_pack::{batch_ranges, instances_per_batch, VEC4_PER_INSTANCE};
use crate::view::lod::Lod;
use crate::view::lod_fade::ShaderFade;

const IMPOSTOR_VERT: &str = include_str!("shaders/impostor.vert");
const IMPOSTOR_GLSL: &str = include_str!("shaders/impostor.glsl");
const LIT_FRAG: &str = include_str!("shaders/lit.frag");
/// Vertex uniform vectors besides the instances: view_proj 4, eye, clip table 7, body, atlas,
/// elevations.
const OTHER_VERTEX_VECTORS: u32 = 15;

/// What the panel and `--stats-out` report of the impostors.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ImpostorInfo {
    pub atlas_width: u32,
    pub atlas_height: u32,
    /// Both atlas textures.
    pub atlas_bytes: u64,
    /// Milliseconds the bake (or the cache read) took.
    pub bake_ms: f64,
    /// The atlas came from the disk cache instead of a bake.
    pub from_cache: bool,
}

pub struct ImpostorGpu {
    color: TextureId,
    normal: TextureId,
    pipeline: Pipeline,
    quad: Bindings,
    buffers: [BufferId; 2],
    layout: ImpostorLayout,
    /// Per body: the submesh its people are listed under, model units per metre.
    bodies: Vec<(usize, f32)>,
    /// Per body: its activities' clip table as the vertex shader's `clip_table` reads it.
    clip_tables: Vec<Vec<[f32; 4]>>,
    per_batch: usize,
    locations: Locations,
    pub info: ImpostorInfo,
}

#[derive(Clone, Copy)]
struct Locations {
    instances: i32,
    clip_table: i32,
    body: i32,
    atlas: i32,
    elevations: i32,
    fade_eye: i32,
    fade_band: i32,
}

/// The atlas for `assets`: from the cache when it holds this one, else baked (and cached).
fn atlas_images(
    ctx: &mut dyn RenderingBackend,
    assets: &CrowdAssets,
    layout: &ImpostorLayout,
    sources: &BakeSources,
) -> Result<(AtlasImages, bool), String> {
    let key = impostor_cache::cache_key(assets, layout);
    let path = impostor_cache::cache_path(&impostor_cache::cache_dir(), key);
    match impostor_cache::load(&path, key, layout.width, layout.height) {
        Ok(Some(images)) => {
            eprintln!(
                "throng: impostors: loaded the atlas from {}",
                path.display()
            );
            return Ok((images, true));
        }
        Ok(None) => {}
        Err(e) => eprintln!(
            "throng: impostors: cache {} not used ({e}); baking again",
            path.display()
        ),
    }
    eprintln!(
        "throng: impostors: baking {} bodies x {} views x {} frames into a {}x{} atlas ({:.1} MB)",
        assets.bodies.len(),
        layout.params.views(),
        layout.frames,
        layout.width,
        layout.height,
        layout.bytes() as f64 / 1e6
    );
    let images = bake(ctx, assets, layout, sources)?;
    if let Err(e) = impostor_cache::store(&path, key, &images) {
        eprintln!("throng: impostors: the atlas is not cached: {e}");
    }
    Ok((images, false))
}

impl ImpostorGpu {
    /// Bakes or loads the atlas and builds the quad pipeline. `vectors`: the vertex uniform
    /// vectors batches may use.
    pub fn new(
        ctx: &mut dyn RenderingBackend,
        assets: &CrowdAssets,
        sources: &BakeSources,
        max_texture_size: u32,
        vectors: u32,
        shadow_map: TextureId,
    ) -> Result<ImpostorGpu, String> {
        let started = Instant::now();
        let shapes: Vec<BodyShape> = assets
            .bodies
            .iter()
            .map(|b| BodyShape {
                clips: b.clips,
                height: b.height,
            })
            .collect();
        let layout = ImpostorLayout::new(ImpostorParams::DEFAULT, &shapes, max_texture_size)?;
        let (images, from_cache) = atlas_images(ctx, assets, &layout, sources)?;
        let upload = |ctx: &mut dyn RenderingBackend, bytes: &[u8]| {
            ctx.new_texture(
                TextureAccess::Static,
                TextureSource::Bytes(bytes),
                atlas_params(layout.width, layout.height, TextureFormat::RGBA8),
            )
        };
        let color = upload(ctx, &images.color);
        let normal = upload(ctx, &images.normal);
        let per_batch = instances_per_batch(vectors, OTHER_VERTEX_VECTORS)?;
        let (pipeline, quad, buffers) =
            match quad_pipeline(ctx, per_batch, [shadow_map, color, normal]) {
                Ok(p) => p,
                Err(e) => {
                    ctx.delete_texture(color);
                    ctx.delete_texture(normal);
                    return Err(e);
                }
            };
        ctx.apply_pipeline(&pipeline);
        let locations = current_locations();
        let info = ImpostorInfo {
            atlas_width: layout.width,
            atlas_height: layout.height,
            atlas_bytes: layout.bytes(),
            bake_ms: started.elapsed().as_secs_f64() * 1000.0,
            from_cache,
        };
        eprintln!(
            "throng: impostors: {}x{} atlas, {:.1} MB, {} in {:.0} ms",
            layout.width,
            layout.height,
            info.atlas_bytes as f64 / 1e6,
            if from_cache { "loaded" } else { "baked" },
            info.bake_ms
        );
        Ok(ImpostorGpu {
            color,
            normal,
            pipeline,
            quad,
            buffers,
            bodies: assets
                .bodies
                .iter()
                .map(|b| (b.submesh, b.units_per_metre))
                .collect(),
            clip_tables: layout
                .bodies
                .iter()
                .map(|shape| shape.clips.iter().map(|c| c.table_entry()).collect())
                .collect(),
            layout,
            per_batch: per_batch as usize,
            locations,
            info,
        })
    }

    pub fn delete(self, ctx: &mut dyn RenderingBackend) {
        ctx.delete_pipeline(self.pipeline);
        for b in self.buffers {
            ctx.delete_buffer(b);
        }
        ctx.delete_texture(self.color);
        ctx.delete_texture(self.normal);
    }

    /// Draws every body's impostor list (`lists[submesh]`, listed under the body's submesh).
    pub fn draw<U>(
        &self,
        ctx: &mut dyn RenderingBackend,
        lists: &[Vec<[f32; 4]>],
        fade: &ShaderFade,
        uniforms: &U,
        stats: &mut RenderStats,
    ) {
        if lists.iter().all(Vec::is_empty) {
            return;
        }
        ctx.apply_pipeline(&self.pipeline);
        ctx.apply_bindings(&self.quad);
        ctx.apply_uniforms(UniformsSource::table(uniforms));
        let p = &self.layout.params;
        let locs = self.locations;
        unsafe {
            gl::glUniform4f(
                locs.atlas,
                p.azimuths as f32,
                self.layout.cells_per_row as f32,
                p.cell_width as f32,
                p.cell_height as f32,
            );
            gl::glUniform4f(
                locs.elevations,
                p.elevations_deg[0].to_radians(),
                p.elevations_deg[1].to_radians(),
                0.0,
                0.0,
            );
            // The impostor level's cross-fade bands (lod_fade.glsl): it fades in from the
            // mesh before it and dissolves at the far distance.
            let [x, y, z] = fade.eye;
            gl::glUniform3f(locs.fade_eye, x, y, z);
            if let Some(b) = fade.bands.get(Lod::Impostor.index()) {
                gl::glUniform4f(locs.fade_band, b[0], b[1], b[2], b[3]);
            }
        }
        for (b, &(submesh, units_per_metre)) in self.bodies.iter().enumerate() {
            let Some(list) = lists.get(submesh).filter(|l| !l.is_empty()) else {
                continue;
            };
            let (Some(shape), Some(table)) = (self.layout.bodies.get(b), self.clip_tables.get(b))
            else {
                continue;
            };
            unsafe {
                gl::glUniform4fv(
                    locs.clip_table,
                    table.len() as i32,
                    table.as_ptr() as *const f32,
                );
                gl::glUniform4f(
                    locs.body,
                    units_per_metre,
                    shape.centre_y_m,
                    shape.cell_width_m * 0.5,
                    shape.cell_height_m * 0.5,
                );
            }
            let count = list.len() / VEC4_PER_INSTANCE;
            for range in batch_ranges(count, self.per_batch) {
                let vectors = &list[range.start * VEC4_PER_INSTANCE..range.end * VEC4_PER_INSTANCE];
                unsafe {
                    gl::glUniform4fv(
                        locs.instances,
                        vectors.len() as i32,
                        vectors.as_ptr() as *const f32,
                    );
                }
                ctx.draw(0, 6, range.len() as i32);
                stats.draw_calls += 1;
                stats.batches += 1;
                stats.triangles += 2 * range.len() as u64;
                stats.uniform_bytes += (vectors.len() * 16) as u64;
            }
        }
    }
}

fn current_locations() -> Locations {
    let mut program: gl::GLint = 0;
    unsafe { gl::glGetIntegerv(0x8B8D, &mut program) };
    let loc = |name: &str| {
        let c = CString::new(name).unwrap_or_default();
        unsafe { gl::glGetUniformLocation(program as gl::GLuint, c.as_ptr()) }
    };
    Locations {
        instances: loc("instances"),
        clip_table: loc("clip_table"),
        body: loc("body"),
        atlas: loc("atlas"),
        elevations: loc("elevations"),
        fade_eye: loc("fade_eye"),
        fade_band: loc("fade_band"),
    }
}

/// The quad pipeline (lit.frag with the impostor surface) and its quad.
fn quad_pipeline(
    ctx: &mut dyn RenderingBackend,
    per_batch: u32,
    images: [TextureId; 3],
) -> Result<(Pipeline, Bindings, [BufferId; 2]), String> {
    let mut uniforms = vec![UniformDesc::new("view_proj", UniformType::Mat4)];
    uniforms.extend(lighting_uniforms());
    let vert = format!("#version 330\n#define MAX_INSTANCES {per_batch}\n{IMPOSTOR_VERT}");
    let frag = super::crowd::with_lod_fade(&format!(
        "#version 330\n#define IMPOSTOR\n{IMPOSTOR_GLSL}{}",
        LIT_FRAG.replacen("#version 330\n", "", 1)
    ));
    let shader = compile(
        ctx,
        "impostor",
        &vert,
        &frag,
        &["shadow_map", "atlas_color", "atlas_normal"],
        uniforms,
    )?;
    let pipeline = ctx.new_pipeline(
        &[BufferLayout::default()],
        &[VertexAttribute::new("in_corner", VertexFormat::Float2)],
        shader,
        PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            cull_face: CullFace::Nothing,
            ..Default::default()
        },
    );
    let corners: [f32; 8] = [-1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0];
    let vb = ctx.new_buffer(
        BufferType::VertexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(&corners),
    );
    let ib = ctx.new_buffer(
        BufferType::IndexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(&[0u32, 1, 2, 0, 2, 3]),
    );
    let quad = Bindings {
        vertex_buffers: vec![vb],
        index_buffer: ib,
        images: images.to_vec(),
    };
    Ok((pipeline, quad, [vb, ib]))
}

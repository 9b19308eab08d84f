//! The main renderer: the sun's shadow pass and the main pass, each drawing the patterned
//! ground, lit static scenery and instanced stand-in markers, then every `WorldLayer` (the
//! crowd, the hero) into the same passes.

use glam::{Mat4, Vec2, Vec3};
use macroquad::miniquad::{
    Bindings, BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Comparison, CullFace,
    FilterMode, PassAction, Pipeline, PipelineParams, RenderPass, RenderingBackend, ShaderId,
    ShaderMeta, ShaderSource, TextureFormat, TextureId, TextureKind, TextureParams, TextureWrap,
    UniformBlockLayout, UniformDesc, UniformType, UniformsSource, VertexAttribute, VertexFormat,
    VertexStep,
};

use super::layer::{MainPassInfo, WorldLayer};
use super::msaa::MsaaTarget;
use crate::level::{Bounds, Ground, Lighting};
use crate::scenery::ColoredMesh;
use crate::view::markers::{MARKER_FLOATS, MARKER_HEIGHT};
pub use crate::view::render_world::MarkerPath;
use crate::view::render_world::RenderWorld;

const LIT_VERT: &str = include_str!("shaders/lit.vert");
const LIT_FRAG: &str = include_str!("shaders/lit.frag");
const GROUND_VERT: &str = include_str!("shaders/ground.vert");
const GROUND_FRAG: &str = include_str!("shaders/ground.frag");
const SHADOW_FRAG: &str = include_str!("shaders/shadow.frag");

use crate::view::light::SHADOW_MAP_SIZE;

/// The sun's casters are drawn this far from the sun (polygon offset factor, units): the
/// slope-scaled part keeps surfaces turned away from the sun from shadowing themselves (acne),
/// the small constant part leaves the feet's contact shadow attached (no peter-panning).
const SHADOW_CASTER_OFFSET: (f32, f32) = (2.0, 4.0);

/// How far the asphalt reaches past the plaza bounds, so the horizon is never bare sky-on-void.
const GROUND_MARGIN: f32 = 600.0;

#[repr(C)]
#[derive(Clone, Copy)]
struct LitUniforms {
    placement: PlacementUniforms,
    light: SceneLight,
}

/// Sun, sky, fog and shadow: the same block in the lit and the ground programs, laid out as
/// `lighting_uniforms()` declares it, built once per frame.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct SceneLight {
    pub sun_dir: [f32; 3],
    pub sun_color: [f32; 3],
    pub ambient: [f32; 3],
    pub sky_color: [f32; 3],
    pub eye: [f32; 3],
    pub fog_distance: f32,
    pub shadow: ShadowUniforms,
    pub tone_curve: f32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct ShadowUniforms {
    pub light_view_proj: [f32; 16],
    pub shadows_on: f32,
    pub shadow_texel: f32,
}

/// Compiles one GLSL program; the error names the program.
pub(super) fn compile(
    ctx: &mut dyn RenderingBackend,
    name: &str,
    vertex: &str,
    fragment: &str,
    images: &[&str],
    uniforms: Vec<UniformDesc>,
) -> Result<ShaderId, String> {
    let fragment = &super::tone::with_tone_curve(fragment);
    let vertex = &super::shader_source::for_target(vertex);
    let fragment = &super::shader_source::for_target(fragment);
    ctx.new_shader(
        ShaderSource::Glsl { vertex, fragment },
        ShaderMeta {
            images: images.iter().map(|s| s.to_string()).collect(),
            uniforms: UniformBlockLayout { uniforms },
        },
    )
    .map_err(|e| format!("{name} shader: {e:?}"))
}

/// The vertex placement uniforms; the depth-only program uses exactly these, the lit program
/// starts with them.
#[repr(C)]
#[derive(Clone, Copy)]
struct PlacementUniforms {
    view_proj: [f32; 16],
    instanced: f32,
    single_place: [f32; 4],
    single_tint: [f32; 3],
}

#[repr(C)]
struct GroundUniforms {
    view_proj: [f32; 16],
    light: SceneLight,
    bounds: [f32; 4],
    tile_size: f32,
    color_a: [f32; 3],
    color_b: [f32; 3],
}

/// The vertex stage's uniforms, shared by the lit and the depth-only programs.
fn marker_placement_uniforms() -> Vec<UniformDesc> {
    vec![
        UniformDesc::new("view_proj", UniformType::Mat4),
        UniformDesc::new("instanced", UniformType::Float1),
        UniformDesc::new("single_place", UniformType::Float4),
        UniformDesc::new("single_tint", UniformType::Float3),
    ]
}

pub(super) fn lighting_uniforms() -> Vec<UniformDesc> {
    vec![
        UniformDesc::new("sun_dir", UniformType::Float3),
        UniformDesc::new("sun_color", UniformType::Float3),
        UniformDesc::new("ambient", UniformType::Float3),
        UniformDesc::new("sky_color", UniformType::Float3),
        UniformDesc::new("eye", UniformType::Float3),
        UniformDesc::new("fog_distance", UniformType::Float1),
        UniformDesc::new("light_view_proj", UniformType::Mat4),
        UniformDesc::new("shadows_on", UniformType::Float1),
        UniformDesc::new("shadow_texel", UniformType::Float1),
        UniformDesc::new("tone_curve", UniformType::Float1),
    ]
}

/// Everything the passes need from the game for one frame.
pub struct FrameParams<'a> {
    pub view_proj: Mat4,
    pub eye: Vec3,
    pub lighting: &'a Lighting,
    pub ground: &'a Ground,
    pub bounds: &'a Bounds,
    /// Distance where fog reaches its full strength.
    pub fog_distance: f32,
    /// The sun's view-projection for the shadow map (see `view::light`).
    pub light_view_proj: Mat4,
    pub shadows: bool,
    /// The corner of the shadow map drawn into, in texels (see `RenderWorld::shadow_texels`).
    pub shadow_texels: u32,
    /// Multisample the main pass (where the driver allows it).
    pub antialias: bool,
    pub marker_path: MarkerPath,
    /// Framebuffer size in pixels.
    pub screen_size: (f32, f32),
}

impl<'a> FrameParams<'a> {
    /// The passes' parameters for a render world, drawn from its camera.
    pub fn from_world(world: &RenderWorld<'a>) -> FrameParams<'a> {
        FrameParams {
            view_proj: world.camera.view_proj,
            eye: world.camera.eye,
            lighting: &world.level.lighting,
            ground: &world.level.ground,
            bounds: &world.level.bounds,
            fog_distance: world.fog_distance,
            light_view_proj: world.light_view_proj,
            shadows: world.shadows,
            shadow_texels: world.shadow_texels,
            antialias: world.antialias,
            marker_path: world.marker_path,
            screen_size: world.camera.screen_size,
        }
    }
}

/// What the renderer did this frame, for the stats overlay and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RenderStats {
    pub draw_calls: u32,
    pub triangles: u64,
    /// Of the triangles, the crowd's instanced meshes (both passes): what shorter detail
    /// distances turn into impostors (adaptive quality's cost model).
    pub crowd_mesh_triangles: u64,
    pub marker_instances: u32,
    /// Instances drawn at near, mid and far detail and as impostors.
    pub instances_per_lod: [u32; crate::view::lod::Lod::DRAWN.len()],
    /// Bytes of uniforms sent this frame.
    pub uniform_bytes: u64,
    /// Instanced crowd draws (each a batch of at most the block size).
    pub batches: u32,
    /// Bytes of the textures the crowd reads (animation texture, VAT while in use).
    pub texture_bytes: u64,
    /// Hero palette groups sent to the GPU this frame (0 while its pose is unchanged).
    pub palette_uploads: u32,
    /// Hero morphed vertex buffers rewritten this frame (0 while its weights are unchanged).
    pub morph_uploads: u32,
    /// Textures written this frame (the hero's palette textures when its palette does not fit
    /// the uniforms; the crowd's textures are written once, at load).
    pub texture_uploads: u32,
    /// Samples per pixel of the main pass (1: not antialiased).
    pub msaa_samples: u32,
    /// The impostor atlas in use (None: impostors off or not baked).
    pub impostors: Option<super::impostor::ImpostorInfo>,
}

/// One level of detail of the stand-in people: its mesh and the instance buffer feeding it.
struct MarkerLod {
    mesh: MeshBuffers,
    instances: BufferId,
    capacity: usize,
}

struct MeshBuffers {
    bindings: Bindings,
    index_count: i32,
    triangles: u64,
}

pub struct Renderer {
    lit_pipeline: Pipeline,
    marker_pipeline: Pipeline,
    marker_naive_pipeline: Pipeline,
    ground_pipeline: Pipeline,
    ground: Option<MeshBuffers>,
    scenery: Option<MeshBuffers>,
    scenery_version: Option<u64>,
    /// Near, mid and far stand-in meshes, each with its own instance stream.
    markers: Vec<MarkerLod>,
    shadow_pass: RenderPass,
    shadow_map: TextureId,
    depth_static_pipeline: Pipeline,
    depth_marker_pipeline: Pipeline,
    depth_marker_naive_pipeline: Pipeline,
    /// The multisampled main-pass target while antialiasing is on.
    msaa: Option<MsaaTarget>,
    /// What the driver allows (at most `msaa::SAMPLES`; below 2 antialiasing stays off).
    msaa_samples: i32,
}

impl Renderer {
    pub fn new(ctx: &mut dyn RenderingBackend) -> Result<Self, String> {
        let p = ScenePipelines::new(ctx)?;
        let (shadow_map, shadow_pass) = new_shadow_target(ctx);
        let markers = new_marker_lods(ctx, shadow_map);
        Ok(Renderer {
            lit_pipeline: p.lit,
            marker_pipeline: p.marker,
            marker_naive_pipeline: p.marker_naive,
            ground_pipeline: p.ground,
            ground: None,
            scenery: None,
            scenery_version: None,
            markers,
            shadow_pass,
            shadow_map,
            depth_static_pipeline: p.depth_static,
            depth_marker_pipeline: p.depth_marker,
            depth_marker_naive_pipeline: p.depth_marker_naive,
            msaa: None,
            msaa_samples: super::msaa::supported_samples(),
        })
    }

    /// Rebuild the static buffers when the level's scenery changed (start-up, hot reload).
    pub fn sync_scenery(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        version: u64,
        bounds: &Bounds,
        mesh: impl FnOnce() -> ColoredMesh,
    ) {
        if self.scenery_version == Some(version) {
            return;
        }
        for old in [self.scenery.take(), self.ground.take()]
            .into_iter()
            .flatten()
        {
            for b in old.bindings.vertex_buffers {
                ctx.delete_buffer(b);
            }
            ctx.delete_buffer(old.bindings.index_buffer);
        }
        let mesh = mesh();
        if !mesh.indices.is_empty() {
            self.scenery = Some(upload_mesh(ctx, &mesh, self.shadow_map));
        }
        self.ground = Some(upload_ground(ctx, bounds, self.shadow_map));
        self.scenery_version = Some(version);
    }

    /// The sun's shadow map, for layers that sample it.
    pub fn shadow_map(&self) -> TextureId {
        self.shadow_map
    }

    /// Draws the 3D world: the sun's shadow map, then the default framebuffer (colour already
    /// cleared to the sky).
    pub fn draw(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        params: &FrameParams,
        marker_instances: &[Vec<f32>; 3],
        layers: &mut [&mut dyn WorldLayer],
    ) -> RenderStats {
        let mut stats = RenderStats::default();
        let marker_count = self.upload_marker_instances(ctx, marker_instances, &mut stats);
        let light = scene_light(params);
        if params.shadows {
            self.draw_shadow_pass(ctx, params, marker_instances, layers, &mut stats);
        }

        let screen = super::msaa::bound_framebuffer();
        let msaa = self.begin_main_pass(ctx, params);
        stats.msaa_samples = if msaa { self.msaa_samples as u32 } else { 1 };
        self.draw_ground(ctx, params, light, &mut stats);
        self.draw_lit_world(ctx, params, light, marker_instances, &mut stats);
        stats.marker_instances = marker_count as u32;
        let info = self.main_pass_info(params, &light);
        for layer in layers.iter_mut() {
            layer.draw_main(ctx, &info, &mut stats);
        }
        if let Some(target) = self.msaa.as_ref().filter(|_| msaa) {
            target.resolve_onto(screen);
        }
        ctx.end_render_pass();
        stats
    }

    /// Binds the main pass: the multisampled target (cleared to the sky) when antialiasing is
    /// on and the driver has samples, else the window (its colour already cleared to the sky).
    /// Returns whether it is the multisampled one.
    fn begin_main_pass(&mut self, ctx: &mut dyn RenderingBackend, params: &FrameParams) -> bool {
        if !params.antialias || self.msaa_samples < 2 {
            if let Some(old) = self.msaa.take() {
                ctx.delete_render_pass(old.pass);
            }
            ctx.begin_default_pass(PassAction::Clear {
                color: None,
                depth: Some(1.0),
                stencil: None,
            });
            return false;
        }
        let Some(pass) =
            MsaaTarget::ensure(&mut self.msaa, ctx, params.screen_size, self.msaa_samples)
        else {
            self.msaa_samples = 0;
            return self.begin_main_pass(ctx, params);
        };
        let l = params.lighting;
        let sky = super::display_color(l.sky_color, l.tone_mapping);
        ctx.begin_pass(
            Some(pass),
            PassAction::Clear {
                color: Some((sky.x, sky.y, sky.z, 1.0)),
                depth: Some(1.0),
                stencil: None,
            },
        );
        true
    }

    /// Uploads each marker level's instances; returns how many markers there are in all.
    fn upload_marker_instances(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        marker_instances: &[Vec<f32>; 3],
        stats: &mut RenderStats,
    ) -> usize {
        let mut marker_count = 0;
        for (lod, data) in marker_instances.iter().enumerate() {
            let count = data.len() / MARKER_FLOATS;
            marker_count += count;
            stats.instances_per_lod[lod] = count as u32;
            if count > 0 {
                self.upload_markers(ctx, lod, data, count);
            }
        }
        marker_count
    }

    /// The sun's depth pass: scenery, markers, then each layer's shadow casters.
    fn draw_shadow_pass(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        params: &FrameParams,
        marker_instances: &[Vec<f32>; 3],
        layers: &mut [&mut dyn WorldLayer],
        stats: &mut RenderStats,
    ) {
        ctx.begin_pass(
            Some(self.shadow_pass),
            PassAction::Clear {
                color: None,
                depth: Some(1.0),
                stencil: None,
            },
        );
        // Adaptive quality may draw a coarser shadow into a corner of the map (the pass cleared
        // all of it, so the rest reads as lit).
        let size = params.shadow_texels.clamp(1, SHADOW_MAP_SIZE) as i32;
        ctx.apply_viewport(0, 0, size, size);
        ctx.apply_scissor_rect(0, 0, size, size);
        super::gl_raw::polygon_offset(Some(SHADOW_CASTER_OFFSET));
        // Drawn with the sun's own projection; only sampling squeezes it into the corner.
        let depth = PlacementUniforms {
            view_proj: params.light_view_proj.to_cols_array(),
            instanced: 0.0,
            single_place: [0.0; 4],
            single_tint: [0.0; 3],
        };
        if let Some(scenery) = &self.scenery {
            ctx.apply_pipeline(&self.depth_static_pipeline);
            ctx.apply_bindings(&scenery.bindings);
            apply_uniforms(ctx, &depth, stats);
            ctx.draw(0, scenery.index_count, 1);
            stats.draw_calls += 1;
            stats.triangles += scenery.triangles;
        }
        let pipelines = [
            &self.depth_marker_pipeline,
            &self.depth_marker_naive_pipeline,
        ];
        self.draw_markers(
            ctx,
            params.marker_path,
            pipelines,
            marker_instances,
            stats,
            |p| p,
            depth,
        );
        for layer in layers.iter_mut() {
            layer.draw_shadow(ctx, params.light_view_proj, stats);
        }
        super::gl_raw::polygon_offset(None);
        ctx.end_render_pass();
    }

    /// The patterned ground, in the main pass.
    fn draw_ground(
        &self,
        ctx: &mut dyn RenderingBackend,
        params: &FrameParams,
        light: SceneLight,
        stats: &mut RenderStats,
    ) {
        let Some(ground) = &self.ground else {
            return;
        };
        let b = params.bounds;
        let g = params.ground;
        ctx.apply_pipeline(&self.ground_pipeline);
        ctx.apply_bindings(&ground.bindings);
        apply_uniforms(
            ctx,
            &GroundUniforms {
                view_proj: params.view_proj.to_cols_array(),
                light,
                bounds: [b.min.x, b.min.y, b.max.x, b.max.y],
                tile_size: g.tile_size,
                color_a: g.color_a.to_array(),
                color_b: g.color_b.to_array(),
            },
            stats,
        );
        ctx.draw(0, ground.index_count, 1);
        stats.draw_calls += 1;
        stats.triangles += ground.triangles;
    }

    /// The lit static scenery and the stand-in markers, in the main pass.
    fn draw_lit_world(
        &self,
        ctx: &mut dyn RenderingBackend,
        params: &FrameParams,
        light: SceneLight,
        marker_instances: &[Vec<f32>; 3],
        stats: &mut RenderStats,
    ) {
        let lit = LitUniforms {
            placement: PlacementUniforms {
                view_proj: params.view_proj.to_cols_array(),
                instanced: 0.0,
                single_place: [0.0; 4],
                single_tint: [0.0; 3],
            },
            light,
        };
        if let Some(scenery) = &self.scenery {
            ctx.apply_pipeline(&self.lit_pipeline);
            ctx.apply_bindings(&scenery.bindings);
            apply_uniforms(ctx, &lit, stats);
            ctx.draw(0, scenery.index_count, 1);
            stats.draw_calls += 1;
            stats.triangles += scenery.triangles;
        }
        let pipelines = [&self.marker_pipeline, &self.marker_naive_pipeline];
        let with_placement = |placement| LitUniforms { placement, ..lit };
        self.draw_markers(
            ctx,
            params.marker_path,
            pipelines,
            marker_instances,
            stats,
            with_placement,
            lit.placement,
        );
    }

    /// What the layers need to draw into the main pass.
    fn main_pass_info(&self, params: &FrameParams, light: &SceneLight) -> MainPassInfo {
        let l = params.lighting;
        MainPassInfo {
            view_proj: params.view_proj,
            eye: params.eye,
            sun_dir: Vec3::from_array(light.sun_dir),
            sun_color: Vec3::from_array(light.sun_color),
            ambient: l.ambient,
            sky_color: l.sky_color,
            fog_distance: params.fog_distance,
            light_view_proj: Mat4::from_cols_array(&light.shadow.light_view_proj),
            shadows_on: params.shadows,
            shadow_map: self.shadow_map,
            shadow_texel: light.shadow.shadow_texel,
            tone_curve: light.tone_curve,
            screen_size: params.screen_size,
        }
    }

    /// Draws the markers of one pass, instanced or one draw each. `uniforms` wraps the placement
    /// into the pass's full uniform block.
    #[allow(clippy::too_many_arguments)]
    fn draw_markers<U>(
        &self,
        ctx: &mut dyn RenderingBackend,
        path: MarkerPath,
        pipelines: [&Pipeline; 2],
        data: &[Vec<f32>; 3],
        stats: &mut RenderStats,
        uniforms: impl Fn(PlacementUniforms) -> U,
        base: PlacementUniforms,
    ) {
        for (lod, data) in data.iter().enumerate() {
            self.draw_marker_lod(ctx, path, pipelines, lod, data, stats, &uniforms, base);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_marker_lod<U>(
        &self,
        ctx: &mut dyn RenderingBackend,
        path: MarkerPath,
        [instanced, naive]: [&Pipeline; 2],
        lod: usize,
        data: &[f32],
        stats: &mut RenderStats,
        uniforms: &impl Fn(PlacementUniforms) -> U,
        base: PlacementUniforms,
    ) {
        let count = data.len() / MARKER_FLOATS;
        let Some(marker) = self.markers.get(lod) else {
            return;
        };
        if count == 0 {
            return;
        }
        let mesh = &marker.mesh;
        match path {
            MarkerPath::Instanced => {
                ctx.apply_pipeline(instanced);
                ctx.apply_bindings(&mesh.bindings);
                let u = uniforms(PlacementUniforms {
                    instanced: 1.0,
                    ..base
                });
                apply_uniforms(ctx, &u, stats);
                ctx.draw(0, mesh.index_count, count as i32);
                stats.draw_calls += 1;
            }
            MarkerPath::PerAgent => {
                ctx.apply_pipeline(naive);
                ctx.apply_bindings(&mesh.bindings);
                for m in data.chunks_exact(MARKER_FLOATS) {
                    let u = uniforms(PlacementUniforms {
                        instanced: 2.0,
                        single_place: [m[0], m[1], m[2], m[3]],
                        single_tint: [m[4], m[5], m[6]],
                        ..base
                    });
                    apply_uniforms(ctx, &u, stats);
                    ctx.draw(0, mesh.index_count, 1);
                }
                stats.draw_calls += count as u32;
            }
        }
        stats.triangles += mesh.triangles * count as u64;
    }

    fn upload_markers(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        lod: usize,
        data: &[f32],
        count: usize,
    ) {
        let Some(marker) = self.markers.get_mut(lod) else {
            return;
        };
        if count > marker.capacity {
            // Grow geometrically so a growing crowd reallocates only a few times.
            let capacity = count.next_power_of_two();
            ctx.delete_buffer(marker.instances);
            marker.instances = ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Stream,
                BufferSource::empty::<f32>(capacity * MARKER_FLOATS),
            );
            marker.capacity = capacity;
            if let Some(slot) = marker.mesh.bindings.vertex_buffers.get_mut(2) {
                *slot = marker.instances;
            }
        }
        ctx.buffer_update(marker.instances, BufferSource::slice(data));
    }
}

/// The scene's shaders compiled into every pipeline the ground, scenery and markers use.
struct ScenePipelines {
    lit: Pipeline,
    marker: Pipeline,
    marker_naive: Pipeline,
    ground: Pipeline,
    depth_static: Pipeline,
    depth_marker: Pipeline,
    depth_marker_naive: Pipeline,
}

impl ScenePipelines {
    fn new(ctx: &mut dyn RenderingBackend) -> Result<Self, String> {
        let mut lit_uniforms = marker_placement_uniforms();
        lit_uniforms.extend(lighting_uniforms());
        let lit_shader = compile(
            ctx,
            "lit",
            LIT_VERT,
            LIT_FRAG,
            &["shadow_map"],
            lit_uniforms,
        )?;
        let mut ground_uniforms = vec![UniformDesc::new("view_proj", UniformType::Mat4)];
        ground_uniforms.extend(lighting_uniforms());
        ground_uniforms.extend([
            UniformDesc::new("bounds", UniformType::Float4),
            UniformDesc::new("tile_size", UniformType::Float1),
            UniformDesc::new("color_a", UniformType::Float3),
            UniformDesc::new("color_b", UniformType::Float3),
        ]);
        let ground_shader = compile(
            ctx,
            "ground",
            GROUND_VERT,
            GROUND_FRAG,
            &["shadow_map"],
            ground_uniforms,
        )?;

        let opaque = PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            cull_face: CullFace::Back,
            ..Default::default()
        };
        let lit_attributes = [
            VertexAttribute::new("in_pos", VertexFormat::Float3),
            VertexAttribute::new("in_normal", VertexFormat::Float3),
            VertexAttribute::new("in_color", VertexFormat::Float3),
        ];
        let lit_pipeline = ctx.new_pipeline(
            &[BufferLayout::default()],
            &lit_attributes,
            lit_shader,
            opaque,
        );
        let marker_layouts = [
            BufferLayout::default(),
            BufferLayout::default(),
            BufferLayout {
                step_func: VertexStep::PerInstance,
                ..Default::default()
            },
        ];
        let marker_attributes = [
            VertexAttribute::with_buffer("in_pos", VertexFormat::Float3, 0),
            VertexAttribute::with_buffer("in_normal", VertexFormat::Float3, 0),
            VertexAttribute::with_buffer("in_color", VertexFormat::Float3, 0),
            VertexAttribute::with_buffer("in_tint_mask", VertexFormat::Float1, 1),
            VertexAttribute::with_buffer("inst_place", VertexFormat::Float4, 2),
            VertexAttribute::with_buffer("inst_tint", VertexFormat::Float3, 2),
        ];
        let marker_pipeline =
            ctx.new_pipeline(&marker_layouts, &marker_attributes, lit_shader, opaque);
        // The naive path reads no instance buffer: mesh and skin mask only.
        let marker_naive_pipeline = ctx.new_pipeline(
            &marker_layouts[..2],
            &marker_attributes[..4],
            lit_shader,
            opaque,
        );
        let ground_pipeline = ctx.new_pipeline(
            &[BufferLayout::default()],
            &[VertexAttribute::new("in_pos", VertexFormat::Float3)],
            ground_shader,
            PipelineParams {
                cull_face: CullFace::Nothing,
                ..opaque
            },
        );

        let depth_shader = compile(
            ctx,
            "shadow",
            LIT_VERT,
            SHADOW_FRAG,
            &[],
            marker_placement_uniforms(),
        )?;
        // The caster offset is set for the whole pass (`SHADOW_CASTER_OFFSET`): miniquad ignores
        // `depth_write_offset`.
        let depth_params = PipelineParams {
            cull_face: CullFace::Nothing,
            ..opaque
        };
        let depth_static_pipeline = ctx.new_pipeline(
            &[BufferLayout::default()],
            &lit_attributes,
            depth_shader,
            depth_params,
        );
        let depth_marker_pipeline = ctx.new_pipeline(
            &marker_layouts,
            &marker_attributes,
            depth_shader,
            depth_params,
        );
        let depth_marker_naive_pipeline = ctx.new_pipeline(
            &marker_layouts[..2],
            &marker_attributes[..4],
            depth_shader,
            depth_params,
        );
        Ok(ScenePipelines {
            lit: lit_pipeline,
            marker: marker_pipeline,
            marker_naive: marker_naive_pipeline,
            ground: ground_pipeline,
            depth_static: depth_static_pipeline,
            depth_marker: depth_marker_pipeline,
            depth_marker_naive: depth_marker_naive_pipeline,
        })
    }
}

/// The sun's depth texture and the pass that renders into it.
fn new_shadow_target(ctx: &mut dyn RenderingBackend) -> (TextureId, RenderPass) {
    let shadow_map = ctx.new_render_texture(TextureParams {
        kind: TextureKind::Texture2D,
        format: TextureFormat::Depth32,
        wrap: TextureWrap::Clamp,
        min_filter: FilterMode::Nearest,
        mag_filter: FilterMode::Nearest,
        width: SHADOW_MAP_SIZE,
        height: SHADOW_MAP_SIZE,
        ..Default::default()
    });
    let shadow_pass = ctx.new_render_pass_mrt(&[], None, Some(shadow_map));
    (shadow_map, shadow_pass)
}

/// The stand-in marker meshes at three levels of detail, each with a growable instance buffer.
fn new_marker_lods(ctx: &mut dyn RenderingBackend, shadow_map: TextureId) -> Vec<MarkerLod> {
    [10, 6, 0]
        .into_iter()
        .map(|detail| {
            let (mesh_data, tint_mask) = marker_mesh(detail);
            let capacity = 1024;
            let instances = ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Stream,
                BufferSource::empty::<f32>(capacity * MARKER_FLOATS),
            );
            let mask_buffer = ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Immutable,
                BufferSource::slice(&tint_mask),
            );
            let mut mesh = upload_mesh(ctx, &mesh_data, shadow_map);
            mesh.bindings.vertex_buffers.push(mask_buffer);
            mesh.bindings.vertex_buffers.push(instances);
            MarkerLod {
                mesh,
                instances,
                capacity,
            }
        })
        .collect()
}

/// The sun, sky and shadow uniforms every lit shader of a frame shares.
fn scene_light(params: &FrameParams) -> SceneLight {
    let l = params.lighting;
    let sun_dir = l.sun_direction.try_normalize().unwrap_or(-Vec3::Y);
    let sun_color = l.sun_color * l.sun_intensity;
    let shadow = ShadowUniforms {
        // Sampling looks where the shadow pass drew: the map's corner of `shadow_texels`.
        light_view_proj: crate::view::light::shadow_sampling_matrix(
            params.light_view_proj,
            params.shadow_texels,
            SHADOW_MAP_SIZE,
        )
        .to_cols_array(),
        shadows_on: if params.shadows { 1.0 } else { 0.0 },
        shadow_texel: 1.0 / SHADOW_MAP_SIZE as f32,
    };
    SceneLight {
        sun_dir: sun_dir.to_array(),
        sun_color: sun_color.to_array(),
        ambient: l.ambient.to_array(),
        sky_color: l.sky_color.to_array(),
        eye: params.eye.to_array(),
        fog_distance: params.fog_distance,
        shadow,
        tone_curve: super::tone::curve_uniform(l.tone_mapping),
    }
}

fn apply_uniforms<U>(ctx: &mut dyn RenderingBackend, uniforms: &U, stats: &mut RenderStats) {
    ctx.apply_uniforms(UniformsSource::table(uniforms));
    stats.uniform_bytes += std::mem::size_of::<U>() as u64;
}

fn upload_mesh(
    ctx: &mut dyn RenderingBackend,
    mesh: &ColoredMesh,
    shadow_map: TextureId,
) -> MeshBuffers {
    upload(ctx, &mesh.interleaved(), &mesh.indices, shadow_map)
}

/// The ground: one quad over the plaza and a wide margin, patterned by its shader.
fn upload_ground(
    ctx: &mut dyn RenderingBackend,
    bounds: &Bounds,
    shadow_map: TextureId,
) -> MeshBuffers {
    let min = bounds.min - Vec2::splat(GROUND_MARGIN);
    let max = bounds.max + Vec2::splat(GROUND_MARGIN);
    let vertices: [f32; 12] = [
        min.x, 0.0, min.y, max.x, 0.0, min.y, max.x, 0.0, max.y, min.x, 0.0, max.y,
    ];
    upload(ctx, &vertices, &[0, 2, 1, 0, 3, 2], shadow_map)
}

fn upload(
    ctx: &mut dyn RenderingBackend,
    vertices: &[f32],
    indices: &[u32],
    shadow_map: TextureId,
) -> MeshBuffers {
    let vb = ctx.new_buffer(
        BufferType::VertexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(vertices),
    );
    let ib = ctx.new_buffer(
        BufferType::IndexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(indices),
    );
    MeshBuffers {
        bindings: Bindings {
            vertex_buffers: vec![vb],
            index_buffer: ib,
            images: vec![shadow_map],
        },
        index_count: indices.len() as i32,
        triangles: (indices.len() / 3) as u64,
    }
}

/// A stand-in person about 1.75 m tall facing -Z: tinted body, untinted head and a nose for
/// heading. `segments` sets the detail: 10 near, 6 mid; 0 gives the far level, a single box.
fn marker_mesh(segments: u32) -> (ColoredMesh, Vec<f32>) {
    let mut body = ColoredMesh::default();
    let cloth = Vec3::splat(0.9);
    let skin = Vec3::new(0.78, 0.57, 0.44);
    if segments == 0 {
        body.add_box(
            Vec2::ZERO,
            Vec2::new(0.19, 0.15),
            0.0,
            0.0,
            1.45,
            cloth * 0.8,
        );
        let mut head = ColoredMesh::default();
        head.add_box(Vec2::ZERO, Vec2::splat(0.12), 0.0, 1.45, 0.28, skin);
        let mut mask = vec![1.0; body.vertex_count()];
        mask.extend(std::iter::repeat_n(0.0, head.vertex_count()));
        body.append(&head);
        return (body, mask);
    }
    body.add_cylinder(Vec2::ZERO, 0.0, 0.85, 0.12, 0.2, segments, cloth * 0.6);
    body.add_cylinder(Vec2::ZERO, 0.85, 0.6, 0.2, 0.15, segments, cloth);
    let mut head = ColoredMesh::default();
    head.add_sphere(
        Vec3::new(0.0, MARKER_HEIGHT - 0.13, 0.0),
        Vec3::splat(0.13),
        segments.div_ceil(2).max(3),
        segments,
        skin,
    );
    head.add_box(
        Vec2::new(0.0, -0.12),
        Vec2::new(0.03, 0.04),
        0.0,
        MARKER_HEIGHT - 0.16,
        0.05,
        skin,
    );
    let mut mask = vec![1.0; body.vertex_count()];
    mask.extend(std::iter::repeat_n(0.0, head.vertex_count()));
    body.append(&head);
    (body, mask)
}

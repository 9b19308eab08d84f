//! The skinned crowd's GPU side across frames: the renderer is built for a version of the crowd
//! assets and a uniform cap, and built again only when either changes (a build that failed is
//! not retried until then); the vertex animation texture is baked the first time it is asked
//! for. This is the upload bookkeeping; the assets themselves stay plain data.

use macroquad::miniquad::{RenderingBackend, TextureId};

use super::crowd::{CrowdDraw, CrowdGpuInfo, CrowdLayer, CrowdRenderer};
use super::gl_raw::query_limits;
use super::impostor::{ImpostorGpu, ImpostorInfo};
use crate::crowd_assets::vat_runtime::{CrowdVat, VAT_LODS};
use crate::view::render_world::{CrowdInstances, CrowdSource};

#[derive(Default)]
pub struct CrowdPass {
    renderer: Option<CrowdRenderer>,
    /// (assets version, uniform cap) the renderer was built (or failed to build) for.
    built_for: Option<(u64, Option<u32>)>,
    /// Renderer builds tried so far, successful or not.
    builds: u32,
    /// The VAT was tried for the current renderer (a failed bake is not retried every frame).
    vat_tried: bool,
    /// The impostor atlas was tried for the current renderer (baked or loaded once).
    impostors_tried: bool,
    /// Why impostor people are drawn with the far mesh although impostors are on.
    pub impostor_error: Option<String>,
    /// Why the VAT path is not in use although asked for.
    pub vat_error: Option<String>,
    /// Why the skinned crowd is not drawn although its assets loaded.
    pub error: Option<String>,
}

impl CrowdPass {
    /// Brings the GPU side up to `source`: rebuilds the renderer when the assets or the cap
    /// changed, switches the VAT path on or off.
    pub fn sync(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        source: &CrowdSource,
        shadow_map: TextureId,
    ) {
        let wanted = (source.version, source.uniform_cap);
        if self.built_for != Some(wanted) {
            if let Some(r) = self.renderer.take() {
                r.delete(ctx);
            }
            self.built_for = Some(wanted);
            self.vat_tried = false;
            self.impostors_tried = false;
            self.impostor_error = None;
            self.error = None;
            self.builds += 1;
            match CrowdRenderer::new(
                ctx,
                source.assets,
                query_limits(),
                source.uniform_cap,
                shadow_map,
            ) {
                Ok(r) => self.renderer = Some(r),
                Err(e) => {
                    eprintln!("throng: crowd renderer: {e} (stand-in figures are drawn instead)");
                    self.error = Some(format!("crowd renderer: {e}"));
                }
            }
        }
        self.set_vat(ctx, source);
        self.set_impostors(ctx, source, shadow_map);
    }

    /// Bakes (or loads from the cache) the impostor atlas the first time impostors are on for
    /// this renderer; it is kept while they are switched off.
    fn set_impostors(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        source: &CrowdSource,
        shadow_map: TextureId,
    ) {
        let Some(renderer) = &mut self.renderer else {
            return;
        };
        if !source.impostors || self.impostors_tried {
            return;
        }
        self.impostors_tried = true;
        let sources = renderer.bake_sources(source.assets);
        let built = ImpostorGpu::new(
            ctx,
            source.assets,
            &sources,
            query_limits().max_texture_size,
            renderer.info.uniform_vectors,
            shadow_map,
        );
        match built {
            Ok(gpu) => renderer.set_impostors(ctx, Some(gpu)),
            Err(e) => {
                eprintln!("throng: impostors: {e} (impostor people use the far mesh)");
                self.impostor_error = Some(e);
            }
        }
    }

    /// The impostor atlas in use (None: not baked, or it failed).
    pub fn impostor_info(&self) -> Option<ImpostorInfo> {
        self.renderer
            .as_ref()
            .and_then(CrowdRenderer::impostor_info)
    }

    /// Switches mid and far figures between the vertex animation texture and the matrix
    /// texture. The VAT is baked on first use for this renderer (it is ~50 MB, so it is not
    /// made unless asked for).
    fn set_vat(&mut self, ctx: &mut dyn RenderingBackend, source: &CrowdSource) {
        let Some(renderer) = &mut self.renderer else {
            return;
        };
        if !source.vat {
            if renderer.vat_active() {
                let _ = renderer.set_vat(ctx, None);
            }
            self.vat_tried = false;
            self.vat_error = None;
            return;
        }
        if renderer.vat_active() || self.vat_tried {
            return;
        }
        self.vat_tried = true;
        let started = crate::clock::Instant::now();
        let baked = CrowdVat::bake(source.assets, VAT_LODS, query_limits().max_texture_size);
        let bake_ms = started.elapsed().as_secs_f64() * 1000.0;
        let result = baked.and_then(|v| {
            renderer.set_vat(ctx, Some(&v))?;
            Ok(format!(
                "mid/far figures from a {}x{} vertex animation texture ({:.1} MB, {:.1} \
                 clip-seconds, baked in {bake_ms:.0} ms)",
                v.width,
                v.rows,
                v.bytes() as f64 / 1e6,
                v.clip_seconds
            ))
        });
        match result {
            Ok(msg) => eprintln!("throng: VAT: {msg}"),
            Err(e) => {
                eprintln!("throng: VAT path: {e} (the matrix texture stays in use)");
                self.vat_error = Some(e);
            }
        }
    }

    /// Renderer builds tried so far (each costs uploads and shader compiles).
    pub fn builds(&self) -> u32 {
        self.builds
    }

    /// True when the skinned crowd can be drawn.
    pub fn ready(&self) -> bool {
        self.renderer.is_some()
    }

    pub fn vat_active(&self) -> bool {
        self.renderer
            .as_ref()
            .is_some_and(CrowdRenderer::vat_active)
    }

    pub fn info(&self) -> Option<CrowdGpuInfo> {
        self.renderer.as_ref().map(|r| r.info)
    }

    /// This frame's crowd as a layer of the shared passes (None: markers or nothing to draw).
    pub fn layer<'a>(&'a mut self, crowd: &CrowdInstances<'a>) -> Option<CrowdLayer<'a>> {
        let draw = match *crowd {
            CrowdInstances::Skinned(frame) => CrowdDraw::Instanced(frame),
            CrowdInstances::Naive(frame) => CrowdDraw::Naive(frame),
            CrowdInstances::Markers(_) => return None,
        };
        self.renderer.as_mut().map(|r| r.layer(draw))
    }
}

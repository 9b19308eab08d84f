//! The skinned crowd's lifetime in a window: the crowd assets loaded from the level (again when its
//! models change on hot reload), the GPU renderer (again when the uniform cap changes), and the
//! per-frame lists. When the crowd assets cannot load, the error is kept for the HUD and the caller
//! falls back to the stand-in markers.

use std::path::PathBuf;

use macroquad::miniquad::{RenderingBackend, TextureId};

use crate::crowd::Crowd;
use crate::crowd_assets::vat_runtime::{CrowdVat, VAT_LODS};
use crate::crowd_assets::CrowdAssets;
use crate::level::{CrowdModel, Level};
use crate::render::crowd::{CrowdDraw, CrowdGpuInfo, CrowdLayer, CrowdRenderer};
use crate::render::gl_raw::query_limits;
use crate::view::crowd_pack::{
    pack_crowd, pack_naive, CrowdCounts, CrowdFrame, CrowdPackOptions, NaiveFrame,
};
use crate::view::lod::Lod;

pub struct CrowdGfx {
    asset_root: PathBuf,
    label: String,
    loaded_models: Option<Vec<CrowdModel>>,
    assets: Option<CrowdAssets>,
    renderer: Option<CrowdRenderer>,
    built_cap: Option<Option<u32>>,
    frame: CrowdFrame,
    naive: NaiveFrame,
    naive_now: bool,
    lod_state: Vec<Lod>,
    /// The VAT was tried for the current renderer (a failed bake is not retried every frame).
    vat_tried: bool,
    /// Why the VAT path is not in use although asked for.
    pub vat_error: Option<String>,
    /// Why the skinned crowd is not drawn (markers stand in).
    pub error: Option<String>,
    /// Fallbacks in use (missing clips played as idle, props a rig cannot hold).
    pub warnings: Vec<String>,
}

impl CrowdGfx {
    pub fn new(asset_root: PathBuf, label: String) -> Self {
        CrowdGfx {
            asset_root,
            label,
            loaded_models: None,
            assets: None,
            renderer: None,
            built_cap: None,
            frame: CrowdFrame::default(),
            naive: NaiveFrame::default(),
            naive_now: false,
            lod_state: Vec::new(),
            vat_tried: false,
            vat_error: None,
            error: None,
            warnings: Vec::new(),
        }
    }

    /// Loads what changed: the crowd assets when the level's models differ from the loaded ones, the
    /// variant tables always, the renderer when the crowd assets or the uniform cap changed, the
    /// vertex animation texture when `vat` asks for it and it is not there.
    pub fn sync(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        level: &Level,
        cap: Option<u32>,
        vat: bool,
        shadow_map: TextureId,
    ) {
        if self.loaded_models.as_ref() != Some(&level.crowd.models) {
            self.loaded_models = Some(level.crowd.models.clone());
            if let Some(r) = self.renderer.take() {
                r.delete(ctx);
            }
            self.lod_state.clear();
            match CrowdAssets::load(level, &self.asset_root, &self.label) {
                Ok(assets) => {
                    for w in &assets.warnings {
                        eprintln!("throng: {w}");
                    }
                    self.warnings = assets.warnings.clone();
                    self.assets = Some(assets);
                    self.error = None;
                }
                Err(e) => {
                    eprintln!("throng: {e} (stand-in figures are drawn instead)");
                    self.assets = None;
                    self.error = Some(e.to_string());
                }
            }
        }
        let Some(assets) = &mut self.assets else {
            return;
        };
        assets.refresh_variants(level);
        if self.renderer.is_none() || self.built_cap != Some(cap) {
            if let Some(r) = self.renderer.take() {
                r.delete(ctx);
            }
            self.built_cap = Some(cap);
            self.vat_tried = false;
            match CrowdRenderer::new(ctx, assets, query_limits(), cap, shadow_map) {
                Ok(r) => self.renderer = Some(r),
                Err(e) => {
                    eprintln!("throng: crowd renderer: {e} (stand-in figures are drawn instead)");
                    self.error = Some(format!("crowd renderer: {e}"));
                }
            }
        }
        self.set_vat(ctx, vat);
    }

    /// Switches mid and far figures between the vertex animation texture and the matrix
    /// texture. The VAT is baked on first use for these crowd assets and renderer (it is ~50 MB, so it
    /// is not made unless asked for).
    pub fn set_vat(&mut self, ctx: &mut dyn RenderingBackend, on: bool) {
        let (Some(assets), Some(renderer)) = (&self.assets, &mut self.renderer) else {
            return;
        };
        if !on {
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
        let started = std::time::Instant::now();
        let baked = CrowdVat::bake(assets, VAT_LODS, query_limits().max_texture_size);
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

    /// True when the skinned crowd is ready to draw this frame.
    pub fn active(&self) -> bool {
        self.assets.is_some() && self.renderer.is_some()
    }

    pub fn vat_active(&self) -> bool {
        self.renderer
            .as_ref()
            .is_some_and(CrowdRenderer::vat_active)
    }

    pub fn info(&self) -> Option<CrowdGpuInfo> {
        self.renderer.as_ref().map(|r| r.info)
    }

    pub fn assets(&self) -> Option<&CrowdAssets> {
        self.assets.as_ref()
    }

    /// Culls, buckets and packs (or, for the naive path, samples a palette per person).
    pub fn pack(
        &mut self,
        crowd: &Crowd,
        opts: &CrowdPackOptions,
        naive: bool,
        appear: impl Fn(usize) -> f32,
    ) -> CrowdCounts {
        self.naive_now = naive;
        let Some(assets) = &mut self.assets else {
            return CrowdCounts::default();
        };
        if naive {
            pack_naive(crowd, assets, appear, opts.lod_colors, &mut self.naive);
            let n = crowd.pos.len() as u32;
            CrowdCounts {
                visible: n,
                per_lod: [n, 0, 0],
                ..Default::default()
            }
        } else {
            pack_crowd(
                opts,
                crowd,
                assets,
                appear,
                &mut self.lod_state,
                &mut self.frame,
            );
            self.frame.counts
        }
    }

    /// This frame's crowd as a layer of the world passes.
    pub fn layer(&mut self) -> Option<CrowdLayer<'_>> {
        let draw = if self.naive_now {
            CrowdDraw::Naive(&self.naive)
        } else {
            CrowdDraw::Instanced(&self.frame)
        };
        self.renderer.as_mut().map(|r| r.layer(draw))
    }
}

//! The GL half of `throng bench`: a short calibration of every mode for the up-front estimate,
//! then every size × mode rendered in the window over the fixed camera path, timed per stage:
//! simulation, culling and packing, submitting the draws, waiting for the GPU to finish them
//! (a glFinish of its own, so that time is not hidden in the next stage) and presenting.

use crate::clock::Instant;
use std::sync::{Arc, Mutex};

use macroquad::prelude::{
    clear_background, get_internal_gl, next_frame, screen_height, screen_width, Color,
};

use crate::bench::args::{BenchArgs, BenchMode};
use crate::bench::estimate::{announce_plan, calibration_sizes, CostModel, Progress, RunCost};
use crate::bench::report::to_csv;
use crate::bench::{
    bench_game, camera_for_frame, save_rows_so_far, GlRun, RunSamples, BENCH_ASPECT, BENCH_DT,
};
use crate::crowd_assets::loader::CrowdAssetLoader;
use crate::extract::{crowd_source, Extractor, Screen};
use crate::game::{FrameInput, Game};
use crate::level::Level;
use crate::render::crowd_pass::CrowdPass;
use crate::render::frame::{draw_frame, FrameLayers};
use crate::render::{display_color, RenderStats, Renderer};
use crate::settings::ViewSettings;
use crate::view::render_world::CrowdInstances;

pub type BenchResult = Arc<Mutex<Option<Result<GlRun, String>>>>;

pub async fn run(args: BenchArgs, level: Level, result: BenchResult) {
    let r = bench(&args, &level).await;
    if let Ok(mut slot) = result.lock() {
        *slot = Some(r);
    }
}

/// What the window keeps between runs: the renderer, the crowd's assets and GPU pass, and the
/// extractor's buffers.
struct Bench<'a> {
    args: &'a BenchArgs,
    level: &'a Level,
    renderer: Renderer,
    crowd_assets: CrowdAssetLoader,
    crowd_pass: CrowdPass,
    extractor: Extractor,
}

/// One frame's times (ms) and counters.
struct FrameSample {
    frame: f64,
    sim: f64,
    anim: f64,
    cull: f64,
    submit: f64,
    gpu_wait: f64,
    present: f64,
    stats: RenderStats,
    visible: usize,
}

async fn bench(args: &BenchArgs, level: &Level) -> Result<GlRun, String> {
    let renderer = {
        let gl = unsafe { get_internal_gl() };
        Renderer::new(gl.quad_context)?
    };
    let gl_renderer = crate::render::gl_raw::renderer_name();
    let asset_root = crate::cli::find_asset_root(&args.level);
    let mut crowd_assets = CrowdAssetLoader::new(asset_root, args.level.display().to_string());
    crowd_assets.sync(level);
    if let Some(e) = &crowd_assets.error {
        return Err(e.clone());
    }
    let mut b = Bench {
        args,
        level,
        renderer,
        crowd_assets,
        crowd_pass: CrowdPass::default(),
        extractor: Extractor::default(),
    };
    let modes = args.gl_modes();
    let total = args.warmup() + args.frames();
    let (small, large) = calibration_sizes(args.sizes());
    let mut models = Vec::new();
    for &mode in &modes {
        let (frame_small, setup_small) = b.calibrate(mode, small).await?;
        let (frame_large, setup_large) = b.calibrate(mode, large).await?;
        models.push(RunCost {
            frame: CostModel::fit((small, frame_small), (large, frame_large)),
            setup: CostModel::fit((small, setup_small), (large, setup_large)),
        });
    }
    let mut progress = announce_plan(args.sizes(), &models, total, (small, large), "mode");
    let estimated_ms = progress.total_ms();
    let mut rows = Vec::new();
    for &agents in args.sizes() {
        for &mode in &modes {
            let samples = b.measure(mode, agents, &progress).await?;
            rows.push(samples.row(mode, agents));
            save_rows_so_far(args, &to_csv(&rows));
            progress.run_done();
        }
    }
    Ok(GlRun {
        rows,
        gl_renderer,
        estimated_ms,
    })
}

impl Bench<'_> {
    /// A crowd of `agents` set up for `mode`, with the crowd pass built for the mode's view.
    fn prepare(&mut self, mode: BenchMode, agents: u32) -> Result<(Game, ViewSettings), String> {
        let view = bench_view(self.args, mode);
        let mut game = bench_game(self.level, agents, self.args.seed);
        // The naive path draws everyone: nobody may be treated as unseen there.
        game.sim_view_policy = view.sim_view_policy(BENCH_ASPECT, self.level.lod.far);
        if let Some(source) = crowd_source(&self.crowd_assets, &view) {
            let gl = unsafe { get_internal_gl() };
            self.crowd_pass
                .sync(gl.quad_context, &source, self.renderer.shadow_map());
        }
        if let Some(e) = &self.crowd_pass.error {
            return Err(e.clone());
        }
        if let (true, Some(e)) = (view.vat, &self.crowd_pass.vat_error) {
            return Err(format!("bench mode vat: {e}"));
        }
        if let (true, Some(e)) = (view.impostors, &self.crowd_pass.impostor_error) {
            return Err(format!("bench mode impostor: {e}"));
        }
        Ok((game, view))
    }

    /// Mean frame time (ms) of `mode` at `agents` (one frame to settle, first uploads, then
    /// three timed), and what a run's setup and its last frame's picture cost.
    async fn calibrate(&mut self, mode: BenchMode, agents: u32) -> Result<(f64, f64), String> {
        let setup_start = Instant::now();
        let (mut game, view) = self.prepare(mode, agents)?;
        let mut setup = setup_start.elapsed().as_secs_f64() * 1000.0;
        let mut sum = 0.0;
        for i in 0..4 {
            let s = self.frame(&mut game, &view, (i, 4), None).await?;
            if i > 0 {
                sum += s.frame;
            }
            if i == 3 {
                setup += picture_ms();
            }
        }
        Ok((sum / 3.0, setup))
    }

    /// One measured run: warm-up, then the measured frames; the last frame saved as a picture.
    async fn measure(
        &mut self,
        mode: BenchMode,
        agents: u32,
        progress: &Progress,
    ) -> Result<RunSamples, String> {
        let (mut game, view) = self.prepare(mode, agents)?;
        let warmup = self.args.warmup();
        let total = warmup + self.args.frames();
        let mut s = RunSamples::default();
        let shot = self.args.out.join(format!("{}_{agents}.png", mode.name()));
        for i in 0..total {
            let last = (i + 1 == total).then_some(shot.as_path());
            let f = self.frame(&mut game, &view, (i, total), last).await?;
            if i >= warmup {
                push(&mut s, &f);
            }
            progress.frame(mode.name(), agents, i, total, warmup);
        }
        Ok(s)
    }

    /// Simulates, extracts and draws frame `i` of `n` on the camera path; saves the drawn
    /// frame to `shot` when given.
    async fn frame(
        &mut self,
        game: &mut Game,
        view: &ViewSettings,
        (i, n): (u32, u32),
        shot: Option<&std::path::Path>,
    ) -> Result<FrameSample, String> {
        let frame_start = Instant::now();
        game.camera = camera_for_frame(self.level, i, n);
        let t0 = Instant::now();
        game.frame(BENCH_DT, &FrameInput::default());
        let sim = t0.elapsed().as_secs_f64() * 1000.0;
        let t1 = Instant::now();
        let screen = Screen {
            size: (screen_width(), screen_height()),
            aspect: BENCH_ASPECT,
        };
        let assets = self.crowd_assets.assets_mut();
        let world = self.extractor.extract(game, view, assets, screen);
        let cull = t1.elapsed().as_secs_f64() * 1000.0;
        // The crowd's animation: its clip state in the step, and on the naive path the
        // palettes sampled on the CPU during extraction.
        let palettes = match world.crowd {
            CrowdInstances::Naive(naive) => naive.palette_ms,
            _ => 0.0,
        };
        let anim = game.agents.timings().animation_ms + palettes;
        let visible = world.people.drawn;
        let sky = display_color(
            self.level.lighting.sky_color,
            self.level.lighting.tone_mapping,
        );
        clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
        let submit_start = Instant::now();
        let stats = {
            let mut gl = unsafe { get_internal_gl() };
            gl.flush();
            let layers = FrameLayers {
                crowd: &mut self.crowd_pass,
                hero: None,
            };
            draw_frame(gl.quad_context, &mut self.renderer, &world, layers)
        };
        let submit = submit_start.elapsed().as_secs_f64() * 1000.0;
        // The draws are only queued: waiting here names the time the GPU (on a software
        // renderer, the CPU's drawing threads) takes, which the swap would otherwise hide.
        let finish_start = Instant::now();
        crate::render::gl_raw::finish();
        let gpu_wait = finish_start.elapsed().as_secs_f64() * 1000.0;
        // The picture is outside the frame's time: one frame of a run pays it.
        let frame_ms = frame_start.elapsed().as_secs_f64() * 1000.0;
        if let Some(path) = shot {
            super::save_screenshot(path)?;
        }
        let present_start = Instant::now();
        next_frame().await;
        let present = present_start.elapsed().as_secs_f64() * 1000.0;
        Ok(FrameSample {
            frame: frame_ms + present,
            sim,
            anim,
            cull,
            submit,
            gpu_wait,
            present,
            stats,
            visible,
        })
    }
}

fn push(s: &mut RunSamples, f: &FrameSample) {
    s.frame.push(f.frame);
    s.sim.push(f.sim);
    s.anim.push(f.anim);
    s.cull.push(f.cull);
    s.submit.push(f.submit);
    s.gpu_wait.push(f.gpu_wait);
    s.present.push(f.present);
    s.draw_calls = f.stats.draw_calls as u64;
    s.triangles = f.stats.triangles;
    s.uniform_bytes = f.stats.uniform_bytes;
    s.visible = f.visible as u64;
}

/// What encoding the frame on screen as a PNG costs (ms): each run saves its last frame, so
/// the estimate counts it. The bytes go nowhere.
fn picture_ms() -> f64 {
    use crate::files::{encode_screen_image, ScreenImageFormat};
    let start = Instant::now();
    let frame = macroquad::prelude::get_screen_data();
    let _ = encode_screen_image(
        ScreenImageFormat::Png,
        u32::from(frame.width),
        u32::from(frame.height),
        &frame.bytes,
        &mut std::io::sink(),
    );
    start.elapsed().as_secs_f64() * 1000.0
}

/// What a bench mode switches on: culling, LOD, one draw per person, the VAT.
fn bench_view(args: &BenchArgs, mode: BenchMode) -> ViewSettings {
    ViewSettings {
        frustum_culling: mode.culls(),
        lod: mode.uses_lod(),
        per_agent_draws: mode == BenchMode::Naive,
        antialias: mode.antialiased(),
        vat: mode.uses_vat(),
        impostors: mode.uses_impostors(),
        uniform_cap: args.max_uniform_vectors,
        sim_lod: !args.no_sim_lod && mode.culls(),
        ..ViewSettings::default()
    }
}

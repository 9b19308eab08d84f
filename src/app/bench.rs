//! The GL half of `throng bench`: every size × mode rendered in the window over the fixed
//! camera path, timed per stage.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use macroquad::prelude::{
    clear_background, get_internal_gl, next_frame, screen_height, screen_width, Color,
};

use crate::bench::args::{BenchArgs, BenchMode};
use crate::bench::report::BenchRow;
use crate::bench::{bench_game, camera_for_frame, progress, RunSamples, BENCH_ASPECT, BENCH_DT};
use crate::crowd_assets::loader::CrowdAssetLoader;
use crate::extract::{crowd_source, Extractor, Screen};
use crate::game::FrameInput;
use crate::level::Level;
use crate::render::crowd_pass::CrowdPass;
use crate::render::frame::{draw_frame, FrameLayers};
use crate::render::{display_color, Renderer};
use crate::settings::ViewSettings;

pub type BenchResult = Arc<Mutex<Option<Result<Vec<BenchRow>, String>>>>;

pub async fn run(args: BenchArgs, level: Level, result: BenchResult) {
    let r = bench(&args, &level).await;
    if let Ok(mut slot) = result.lock() {
        *slot = Some(r);
    }
}

async fn bench(args: &BenchArgs, level: &Level) -> Result<Vec<BenchRow>, String> {
    let mut renderer = {
        let gl = unsafe { get_internal_gl() };
        Renderer::new(gl.quad_context)?
    };
    let sky = display_color(level.lighting.sky_color);
    let modes = args.gl_modes();
    let runs = args.sizes.0.len() * modes.len();
    let total = args.warmup + args.frames;
    let asset_root = crate::cli::find_asset_root(&args.level);
    let mut crowd_assets = CrowdAssetLoader::new(asset_root, args.level.display().to_string());
    crowd_assets.sync(level);
    if let Some(e) = &crowd_assets.error {
        return Err(e.clone());
    }
    let mut crowd_pass = CrowdPass::default();
    let mut extractor = Extractor::default();
    let mut rows = Vec::new();
    let mut run = 0;
    for &agents in &args.sizes.0 {
        for &mode in &modes {
            let view = bench_view(args, mode);
            let mut game = bench_game(level, agents, args.seed);
            // The naive path draws everyone: nobody may be treated as unseen there.
            game.sim_view_policy = view.sim_view_policy(BENCH_ASPECT, level.lod.far);
            if let Some(source) = crowd_source(&crowd_assets, &view) {
                let gl = unsafe { get_internal_gl() };
                crowd_pass.sync(gl.quad_context, &source, renderer.shadow_map());
            }
            if let Some(e) = &crowd_pass.error {
                return Err(e.clone());
            }
            if let (true, Some(e)) = (view.vat, &crowd_pass.vat_error) {
                return Err(format!("bench mode vat: {e}"));
            }
            let mut s = RunSamples::default();
            for i in 0..total {
                let frame_start = Instant::now();
                game.camera = camera_for_frame(level, i, total);
                let t0 = Instant::now();
                game.frame(BENCH_DT, &FrameInput::default());
                let sim = t0.elapsed().as_secs_f64() * 1000.0;
                let t1 = Instant::now();
                let screen = Screen {
                    size: (screen_width(), screen_height()),
                    aspect: BENCH_ASPECT,
                };
                let world = extractor.extract(&game, &view, crowd_assets.assets_mut(), screen);
                let cull = t1.elapsed().as_secs_f64() * 1000.0;
                let visible = world.people.drawn;
                clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
                let submit_start = Instant::now();
                let stats = {
                    let mut gl = unsafe { get_internal_gl() };
                    gl.flush();
                    let layers = FrameLayers {
                        crowd: &mut crowd_pass,
                        hero: None,
                    };
                    draw_frame(gl.quad_context, &mut renderer, &world, layers)
                };
                let submit = submit_start.elapsed().as_secs_f64() * 1000.0;
                if i + 1 == total {
                    let shot = args.out.join(format!("{}_{agents}.png", mode.name()));
                    super::save_screenshot(&shot)?;
                }
                next_frame().await;
                if i >= args.warmup {
                    s.frame.push(frame_start.elapsed().as_secs_f64() * 1000.0);
                    s.sim.push(sim);
                    s.cull.push(cull);
                    s.submit.push(submit);
                    s.draw_calls = stats.draw_calls as u64;
                    s.triangles = stats.triangles;
                    s.uniform_bytes = stats.uniform_bytes;
                    s.visible = visible as u64;
                    progress(run, runs, mode.name(), agents, i - args.warmup, args.frames);
                }
            }
            rows.push(s.row(mode, agents));
            run += 1;
        }
    }
    Ok(rows)
}

/// What a bench mode switches on: culling, LOD, one draw per person, the VAT.
fn bench_view(args: &BenchArgs, mode: BenchMode) -> ViewSettings {
    ViewSettings {
        frustum_culling: mode.culls(),
        lod: mode.uses_lod(),
        per_agent_draws: mode == BenchMode::Naive,
        vat: mode.uses_vat(),
        uniform_cap: args.max_uniform_vectors,
        sim_lod: !args.no_sim_lod && mode.culls(),
        ..ViewSettings::default()
    }
}

//! The GL half of `throng bench`: every size × mode rendered in the window over the fixed
//! camera path, timed per stage.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use macroquad::prelude::{clear_background, get_internal_gl, next_frame, Color};

use super::crowd_gfx::CrowdGfx;
use super::draw_world;
use crate::bench::args::{BenchArgs, BenchMode};
use crate::bench::report::BenchRow;
use crate::bench::{bench_game, camera_for_frame, progress, RunSamples, BENCH_ASPECT, BENCH_DT};
use crate::game::FrameInput;
use crate::level::Level;
use crate::render::{display_color, MarkerPath, Renderer, WorldLayer};
use crate::view::crowd_pack::CrowdPackOptions;
use crate::view::frustum::Frustum;

/// The GL bench draws the skinned crowd; the stand-in markers stay empty.
const NO_MARKERS: [Vec<f32>; 3] = [Vec::new(), Vec::new(), Vec::new()];

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
    let mut crowd_gfx = CrowdGfx::new(asset_root, args.level.display().to_string());
    {
        let gl = unsafe { get_internal_gl() };
        crowd_gfx.sync(
            gl.quad_context,
            level,
            args.max_uniform_vectors,
            false,
            renderer.shadow_map(),
        );
    }
    if let Some(e) = &crowd_gfx.error {
        return Err(e.clone());
    }
    let mut rows = Vec::new();
    let mut run = 0;
    for &agents in &args.sizes.0 {
        for &mode in &modes {
            let mut game = bench_game(level, agents, args.seed);
            // The naive path draws everyone: nobody may be treated as unseen there.
            game.sim_lod = !args.no_sim_lod && mode.culls();
            game.view_aspect = BENCH_ASPECT;
            {
                let gl = unsafe { get_internal_gl() };
                crowd_gfx.set_vat(gl.quad_context, mode.uses_vat());
            }
            if let (true, Some(e)) = (mode.uses_vat(), &crowd_gfx.vat_error) {
                return Err(format!("bench mode vat: {e}"));
            }
            let mut s = RunSamples::default();
            for i in 0..total {
                let frame_start = Instant::now();
                let camera = camera_for_frame(level, i, total);
                game.camera = camera;
                let t0 = Instant::now();
                game.frame(BENCH_DT, &FrameInput::default());
                let sim = t0.elapsed().as_secs_f64() * 1000.0;
                let t1 = Instant::now();
                let frustum = Frustum::from_view_projection(&camera.view_projection(BENCH_ASPECT));
                let lod = level.lod;
                let opts = CrowdPackOptions {
                    frustum: mode.culls().then_some(&frustum),
                    eye: camera.eye(),
                    lod: mode.uses_lod().then_some(&lod),
                    lod_colors: false,
                    show_culled: false,
                };
                let counts = crowd_gfx.pack(&game.agents, &opts, mode == BenchMode::Naive, |_| 1.0);
                let cull = t1.elapsed().as_secs_f64() * 1000.0;
                let visible = counts.visible;
                clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
                let submit_start = Instant::now();
                let mut crowd_layer = crowd_gfx.layer();
                let mut layers: Vec<&mut dyn WorldLayer> = Vec::new();
                if let Some(l) = crowd_layer.as_mut() {
                    layers.push(l);
                }
                let stats = draw_world(
                    &mut renderer,
                    level,
                    game.scenery_version(),
                    &camera,
                    BENCH_ASPECT,
                    level.lighting.shadows,
                    MarkerPath::Instanced,
                    &NO_MARKERS,
                    &[],
                    &mut layers,
                );
                drop(layers);
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

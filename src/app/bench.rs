//! The GL half of `throng bench`: every size × mode rendered in the window over the fixed
//! camera path, timed per stage.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use macroquad::prelude::{clear_background, get_internal_gl, get_screen_data, next_frame, Color};

use super::draw_world;
use crate::bench::args::{BenchArgs, BenchMode};
use crate::bench::report::BenchRow;
use crate::bench::{
    bench_game, camera_for_frame, progress, timed_cpu_frame, PackedCrowd, RunSamples, BENCH_ASPECT,
};
use crate::level::Level;
use crate::render::{display_color, MarkerPath, Renderer};

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
    let runs = args.sizes.0.len() * args.modes.0.len();
    let total = args.warmup + args.frames;
    let mut packed = PackedCrowd::default();
    let mut rows = Vec::new();
    let mut run = 0;
    for &agents in &args.sizes.0 {
        for &mode in &args.modes.0 {
            let mut game = bench_game(level, agents, args.seed);
            let path = match mode {
                BenchMode::Pipeline | BenchMode::Instanced => MarkerPath::Instanced,
                BenchMode::Naive => MarkerPath::PerAgent,
            };
            let mut s = RunSamples::default();
            for i in 0..total {
                let frame_start = Instant::now();
                let camera = camera_for_frame(level, i, total);
                let (sim, cull, visible) = timed_cpu_frame(&mut game, mode, &camera, &mut packed);
                clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
                let submit_start = Instant::now();
                let stats = draw_world(
                    &mut renderer,
                    level,
                    game.scenery_version(),
                    &camera,
                    BENCH_ASPECT,
                    level.lighting.shadows,
                    path,
                    &packed.instances,
                    &[],
                    &mut [],
                );
                let submit = submit_start.elapsed().as_secs_f64() * 1000.0;
                if i + 1 == total {
                    let shot = args.out.join(format!("{}_{agents}.png", mode.name()));
                    get_screen_data().export_png(&shot.to_string_lossy());
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
                    progress(run, runs, mode, agents, i - args.warmup, args.frames);
                }
            }
            rows.push(s.row(mode, agents));
            run += 1;
        }
    }
    Ok(rows)
}

//! `cargo bench --bench hero`: what the hero costs per frame. CPU: animation (clip sampling,
//! cross-fades, world matrices), palettes, morph rebuilds while an expression slider moves, and
//! the skip paths. GPU (when a display or xvfb-run is available): the hero's shadow, forward
//! and outline draws timed with GL timer queries. Prints tables; no assertions about speed.

use std::path::Path;
use std::time::Instant;

use glam::{Mat4, Vec2, Vec3};
use macroquad::miniquad::{
    FilterMode, PassAction, RenderingBackend, TextureFormat, TextureKind, TextureParams,
    TextureWrap,
};
use macroquad::prelude::{get_internal_gl, next_frame};
use throng::asset::load_file;
use throng::extract::hero_frame;
use throng::hero::controller::MoveIntent;
use throng::hero::Hero;
use throng::level::{load_level, Level};
use throng::render::gpu_timer::{GpuTime, GpuTimer};
use throng::render::hero::{HeroRenderOptions, HeroRenderer};
use throng::render::{MainPassInfo, RenderStats, WorldLayer};
use throng::view::frustum::Frustum;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn setup() -> (Level, Hero) {
    let level =
        load_level(&root().join("tests/fixtures/levels/hero_lab.ron"), root()).expect("level");
    let scene = load_file(&root().join("assets/hero/Godette_vrm_v4.vrm")).expect("Godette");
    let mut hero = Hero::new(scene, &level.hero, &level);
    hero.expressions.auto_blink = false;
    (level, hero)
}

fn row(name: &str, us: f64, extra: &str) {
    println!("| {name:<50} | {us:>9.2} us | {extra} |");
}

fn cpu() {
    println!("| case (Godette, 1 hero) | per frame | notes |");
    println!("|---|---|---|");
    let dt = 1.0 / 60.0;
    let frames = 3000;
    // Walking: controller step + everything in Hero::update.
    let (_, mut hero) = setup();
    let walk = MoveIntent {
        direction: Vec2::new(0.3, -1.0).normalize(),
        run: false,
    };
    let (mut anim, mut pal, mut morph) = (0.0, 0.0, 0.0);
    let (mut spring, mut spring_steps) = (0.0, 0u64);
    let t0 = Instant::now();
    for i in 0..frames {
        // Turn round now and then so the hero stays inside the lab.
        let d = if (i / 300) % 2 == 0 {
            walk.direction
        } else {
            -walk.direction
        };
        hero.step(
            dt,
            &MoveIntent {
                direction: d,
                ..walk
            },
        );
        hero.update(dt);
        anim += hero.stats.anim_us as f64;
        pal += hero.stats.palette_us as f64;
        morph += hero.stats.morph_us as f64;
        spring += hero.stats.spring_us as f64;
        spring_steps += hero.stats.spring_steps as u64;
    }
    let total = t0.elapsed().as_secs_f64() * 1e6 / frames as f64;
    let n = frames as f64;
    row(
        "walking (step + update: all stages)",
        total,
        "includes bounds and expressions",
    );
    row(
        "  animation (expressions, clip choice, sample, world)",
        anim / n,
        "",
    );
    row(
        "  spring bones, one 60 Hz step",
        spring / spring_steps.max(1) as f64,
        &format!(
            "{} joints; with the interpolated output and world re-resolve",
            hero.stats.spring_joints
        ),
    );
    row("  palettes (2 groups, 60 joint matrices)", pal / n, "");
    row(
        "  morph rebuilds (weights still)",
        morph / n,
        "skipped by version",
    );

    // Paused: the skip path.
    hero.mixer.pause();
    hero.update(dt);
    let t0 = Instant::now();
    for _ in 0..frames {
        hero.update(dt);
    }
    row(
        "paused (pose and weights unchanged)",
        t0.elapsed().as_secs_f64() * 1e6 / n,
        &format!(
            "palette updates {}, morph rebuilds {}",
            hero.stats.palette_updates, hero.stats.morph_rebuilds
        ),
    );

    // Look-at alone: the camera swinging in front of her, so the gaze, the eased head, the eye
    // weights and the rewritten neck/head locals change every frame (plus the world matrices).
    let (_, mut hero) = setup();
    hero.update(dt);
    hero.look.target = throng::hero::look_at::LookTarget::Camera;
    let model = hero.model_matrix();
    let mut look_us = 0.0;
    for i in 0..frames {
        let a = i as f32 * 0.01;
        let eye = Vec3::new(2.0 * a.sin(), 1.5, -3.0);
        hero.look.inputs.camera_eye = Some(model.transform_point3(eye));
        let t = Instant::now();
        hero.look
            .update(dt, &hero.scene, &mut hero.pose, false, &model, true);
        look_us += t.elapsed().as_secs_f64() * 1e6;
    }
    row(
        "look-at (target moving: gaze, head, eyes, world)",
        look_us / n,
        "LookAt::update alone",
    );

    // An expression slider moving every frame: one face rebuild (630 vertices) per frame.
    let mut morph = 0.0;
    let t0 = Instant::now();
    for i in 0..frames {
        let v = (i % 100) as f32 / 99.0;
        hero.expressions.set_expression("aa", v);
        hero.update(dt);
        morph += hero.stats.morph_us as f64;
    }
    row(
        "paused, \"aa\" slider moving every frame",
        t0.elapsed().as_secs_f64() * 1e6 / n,
        &format!("morph rebuild {:.2} us/frame", morph / n),
    );

    // Cross-fading between walk and run continuously.
    let (_, mut hero) = setup();
    let t0 = Instant::now();
    for i in 0..frames {
        let run = (i / 10) % 2 == 0;
        let d = if (i / 200) % 2 == 0 {
            Vec2::X
        } else {
            -Vec2::X
        };
        hero.step(dt, &MoveIntent { direction: d, run });
        hero.update(dt);
    }
    row(
        "switching walk/run every 10 frames (cross-fades)",
        t0.elapsed().as_secs_f64() * 1e6 / n,
        "two clips sampled and blended",
    );
}

async fn gpu() {
    let (_, mut hero) = setup();
    let gl = unsafe { get_internal_gl() };
    let ctx: &mut dyn RenderingBackend = gl.quad_context;
    let (w, h) = (1280u32, 720u32);
    let p = |format| TextureParams {
        kind: TextureKind::Texture2D,
        format,
        wrap: TextureWrap::Clamp,
        min_filter: FilterMode::Nearest,
        mag_filter: FilterMode::Nearest,
        width: w,
        height: h,
        ..Default::default()
    };
    let color = ctx.new_render_texture(p(TextureFormat::RGBA8));
    let depth = ctx.new_render_texture(p(TextureFormat::Depth32));
    let pass = ctx.new_render_pass(color, Some(depth));
    let shadow_depth = ctx.new_render_texture(TextureParams {
        width: 2048,
        height: 2048,
        ..p(TextureFormat::Depth32)
    });
    let shadow_pass = ctx.new_render_pass_mrt(&[], None, Some(shadow_depth));
    let white = ctx.new_texture_from_rgba8(1, 1, &[255; 4]);
    let eye = Vec3::new(0.0, 1.0, -3.0);
    let view_proj = Mat4::perspective_rh_gl(40f32.to_radians(), w as f32 / h as f32, 0.1, 100.0)
        * Mat4::look_at_rh(eye, Vec3::new(0.0, 0.8, 0.0), Vec3::Y);
    let sun = Vec3::new(-0.45, -1.0, -0.35).normalize();
    let light = throng::view::light::sun_view_projection(sun, Vec3::ZERO, 12.0, 2048);
    let info = MainPassInfo {
        view_proj,
        eye,
        sun_dir: sun,
        sun_color: Vec3::ONE,
        ambient: Vec3::splat(0.22),
        sky_color: Vec3::splat(0.6),
        fog_distance: 1000.0,
        light_view_proj: light,
        shadows_on: true,
        shadow_map: shadow_depth,
        shadow_texel: 1.0 / 2048.0,
        tone_curve: 0.0,
        screen_size: (w as f32, h as f32),
    };
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    // Each case is a whole pass of its own (clear included): llvmpipe defers the clear and the
    // rasterisation to the end of a pass, so timing draws inside one pass misattributes them.
    // An empty pass is the baseline that is taken off.
    let mut timers: Vec<GpuTimer> = (0..4).map(|_| GpuTimer::for_current_context()).collect();
    let mut sums = [0.0f64; 4];
    let mut counts = [0u32; 4];
    let mut cpu_submit = 0.0;
    let mut walls = [0.0f64; 4];
    let frames = 120;
    let mut stats = RenderStats::default();
    for frame in 0..frames {
        let gl = unsafe { get_internal_gl() };
        let ctx: &mut dyn RenderingBackend = gl.quad_context;
        hero.update(1.0 / 60.0);
        let t0 = Instant::now();
        r.prepare(
            ctx,
            &hero_frame(&hero, &Frustum::from_view_projection(&view_proj)),
            40f32.to_radians(),
        );
        for case in 0..4 {
            unsafe { macroquad::miniquad::gl::glFinish() };
            let wall = Instant::now();
            let on = timers[case].begin();
            if case == 1 {
                ctx.begin_pass(
                    Some(shadow_pass),
                    PassAction::Clear {
                        color: None,
                        depth: Some(1.0),
                        stencil: None,
                    },
                );
                ctx.apply_viewport(0, 0, 2048, 2048);
                ctx.apply_scissor_rect(0, 0, 2048, 2048);
                r.draw_shadow(ctx, light, &mut stats);
            } else {
                ctx.begin_pass(Some(pass), PassAction::clear_color(0.5, 0.6, 0.7, 1.0));
                ctx.apply_viewport(0, 0, w as i32, h as i32);
                ctx.apply_scissor_rect(0, 0, w as i32, h as i32);
                if case >= 2 {
                    r.outline_enabled = case == 3;
                    r.draw_main(ctx, &info, &mut stats);
                }
            }
            ctx.end_render_pass();
            // A software rasteriser bins a pass and draws it at the next flush: finish it
            // inside its own query.
            unsafe { macroquad::miniquad::gl::glFinish() };
            if on {
                timers[case].end();
            }
            if frame > 10 {
                walls[case] += wall.elapsed().as_secs_f64() * 1e3;
            }
        }
        cpu_submit += t0.elapsed().as_secs_f64() * 1e3;
        for (k, t) in timers.iter_mut().enumerate() {
            if let (GpuTime::Millis(ms), true) = (t.poll(), frame > 10) {
                sums[k] += ms;
                counts[k] += 1;
            }
        }
        let _ = white;
        next_frame().await;
    }
    let avg = |k: usize| (counts[k] > 0).then(|| sums[k] / counts[k] as f64);
    println!();
    println!(
        "| GPU pass (1280x720 target, 2048² shadow map) | timer query ms | wall ms (glFinish) |"
    );
    println!("|---|---|---|");
    let measured = (frames - 11) as f64;
    let wall = |k: usize| walls[k] / measured;
    let show = |name: &str, q: Option<f64>, w: f64| match q {
        Some(ms) => println!("| {name} | {ms:.3} | {w:.3} |"),
        None => println!("| {name} | not answered | {w:.3} |"),
    };
    let minus = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a - b);
    let base = avg(0);
    show("empty 1280x720 pass (baseline)", base, wall(0));
    show("hero shadow pass (2048² depth)", avg(1), wall(1));
    show(
        "hero forward (MToon), over the baseline",
        minus(avg(2), base),
        wall(2) - wall(0),
    );
    show(
        "hero forward + outline, over the baseline",
        minus(avg(3), base),
        wall(3) - wall(0),
    );
    show("outline alone", minus(avg(3), avg(2)), wall(3) - wall(2));
    println!(
        "| wall time of the four passes, CPU + GPU (glFinish each) | {:.3} |",
        cpu_submit / frames as f64
    );
}

fn main() {
    if std::env::var("THRONG_IN_XVFB").is_err() {
        cpu();
    }
    let has_display = std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty());
    if !has_display {
        let xvfb = std::process::Command::new("sh")
            .args(["-c", "command -v xvfb-run"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !xvfb {
            println!("(no display and no xvfb-run: GPU pass times skipped)");
            return;
        }
        let exe = std::env::current_exe().expect("own path");
        let _ = std::process::Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x720x24"])
            .arg(exe)
            .env("THRONG_IN_XVFB", "1")
            .status();
        return;
    }
    let conf = macroquad::window::Conf {
        window_title: "hero bench".into(),
        window_width: 320,
        window_height: 200,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, gpu());
}

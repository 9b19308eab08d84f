//! The hero's renderer on a real GL context (Xvfb when there is no screen), checked by reading
//! pixels back:
//! - GPU palette skinning (uniform array and float texture) draws the same picture as the CPU
//!   reference skinning baked into rigid meshes;
//! - the renderer uploads nothing while the pose and the morph weights stand still;
//! - the outline is a thin band around the silhouette;
//! - the hero casts a shadow on the plaza's ground, along the sun;
//! - MToon with a sharp ramp gives two bands whose colours are the CPU reference's.
//!
//! A harness-less test: macroquad wants the main thread and one window per process.

mod support;

use glam::{Mat4, Vec3, Vec4};
use macroquad::miniquad::{PassAction, RenderingBackend, TextureId};
use macroquad::prelude::{get_internal_gl, get_screen_data, next_frame};
use support::gl_checks::{target, Checks, Target};
use throng::anim::{skin_normals, skin_positions};
use throng::asset::{load_file, MToonAsset, SceneAsset};
use throng::extract::hero_frame;
use throng::hero::mtoon::{shade, MToonParams, ShadeInput};
use throng::hero::Hero;
use throng::level::{load_level, Level, ToneMapping};
use throng::render::hero::{HeroRenderOptions, HeroRenderer};
use throng::render::{
    display_color, FrameParams, MainPassInfo, MarkerPath, RenderStats, Renderer, WorldLayer,
};
use throng::scenery::furniture::build_static_mesh;
use throng::view::frustum::Frustum;

const W: u32 = 320;
const H: u32 = 480;
const BG: [u8; 3] = [0, 0, 0];

/// The camera in front of the hero (who faces -Z at the origin), looking at its middle.
fn camera() -> (Mat4, Vec3) {
    let eye = Vec3::new(0.0, 0.8, -3.2);
    let view = Mat4::look_at_rh(eye, Vec3::new(0.0, 0.75, 0.0), Vec3::Y);
    let proj = Mat4::perspective_rh_gl(35f32.to_radians(), W as f32 / H as f32, 0.1, 50.0);
    (proj * view, eye)
}

fn info(white: TextureId, sun_dir: Vec3) -> MainPassInfo {
    let (view_proj, eye) = camera();
    MainPassInfo {
        view_proj,
        eye,
        sun_dir: sun_dir.normalize(),
        sun_color: Vec3::ONE,
        ambient: Vec3::splat(0.2),
        sky_color: Vec3::ZERO,
        fog_distance: 1.0e6,
        light_view_proj: Mat4::IDENTITY,
        shadows_on: false,
        shadow_map: white,
        shadow_texel: 1.0 / 2048.0,
        tone_curve: throng::render::tone::curve_uniform(ToneMapping::Neutral),
        screen_size: (W as f32, H as f32),
    }
}

/// Draws the hero alone into the target and reads the RGB pixels back.
fn render(
    ctx: &mut dyn RenderingBackend,
    t: &Target,
    r: &mut HeroRenderer,
    hero: &mut Hero,
    info: &MainPassInfo,
) -> Vec<[u8; 3]> {
    let frustum = Frustum::from_view_projection(&info.view_proj);
    r.prepare(ctx, &hero_frame(hero, &frustum), 35f32.to_radians());
    ctx.begin_pass(Some(t.pass), PassAction::clear_color(0.0, 0.0, 0.0, 1.0));
    ctx.apply_viewport(0, 0, W as i32, H as i32);
    ctx.apply_scissor_rect(0, 0, W as i32, H as i32);
    let mut stats = RenderStats::default();
    r.draw_main(ctx, info, &mut stats);
    ctx.end_render_pass();
    let mut bytes = vec![0u8; (W * H * 4) as usize];
    ctx.texture_read_pixels(t.color, &mut bytes);
    bytes.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect()
}

fn differs(a: [u8; 3], b: [u8; 3], tol: i32) -> bool {
    (0..3).any(|k| (a[k] as i32 - b[k] as i32).abs() > tol)
}

/// The hero's current pose skinned on the CPU into rigid meshes (the reference `skin_positions`).
fn baked(h: &Hero) -> SceneAsset {
    let mut s = h.scene.clone();
    for ni in 0..s.nodes.len() {
        let Some(mi) = s.nodes[ni].mesh else { continue };
        if s.nodes[ni].skin.is_none() {
            continue;
        }
        for pi in 0..s.meshes[mi].primitives.len() {
            let Some(pal) = h.palettes.find(ni, pi) else {
                continue;
            };
            let morphed = h
                .morphed
                .get(ni)
                .and_then(|v| v.get(pi))
                .and_then(Option::as_ref);
            let prim = &s.meshes[mi].primitives[pi];
            let (pos, nor) = match morphed {
                Some(m) => (m.positions.clone(), m.normals.clone()),
                None => (prim.positions.clone(), prim.normals.clone()),
            };
            let mut p2 = Vec::new();
            let mut n2 = Vec::new();
            skin_positions(prim, &pal.matrices, &pos, &mut p2);
            skin_normals(prim, &pal.matrices, &nor, &mut n2);
            let prim = &mut s.meshes[mi].primitives[pi];
            prim.positions = p2;
            prim.normals = n2;
            prim.joints.clear();
            prim.weights.clear();
            prim.morph_targets.clear();
        }
        s.nodes[ni].skin = None;
        s.nodes[ni].morph_weights.clear();
    }
    for m in &mut s.meshes {
        m.morph_target_names.clear();
        m.default_weights.clear();
    }
    s.skins.clear();
    s.vrm = None;
    s.animations.clear();
    s
}

fn compare(a: &[[u8; 3]], b: &[[u8; 3]]) -> (usize, usize) {
    let hero = a
        .iter()
        .zip(b)
        .filter(|(x, y)| **x != BG || **y != BG)
        .count();
    let bad = a
        .iter()
        .zip(b)
        .filter(|(x, y)| differs(**x, **y, 24))
        .count();
    (hero, bad)
}

fn lab() -> Level {
    let root = support::project_root();
    load_level(&root.join("tests/fixtures/levels/hero_lab.ron"), &root).expect("hero lab level")
}

fn godette(level: &Level) -> Hero {
    let root = support::project_root();
    let scene = load_file(&root.join("assets/hero/Godette_vrm_v4.vrm")).expect("Godette loads");
    let mut h = Hero::new(scene, &level.hero, level);
    h.controller.heading = 0.0;
    h.expressions.auto_blink = false;
    h
}

fn skinning(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let mut hero = godette(&level);
    let walk = hero.roles.walk.expect("walk clip");
    let idle = hero.roles.idle.expect("idle clip");
    let info = info(white, Vec3::new(-0.45, -1.0, 0.6));
    for force_texture in [false, true] {
        let opts = HeroRenderOptions {
            force_texture_palette: force_texture,
            ..Default::default()
        };
        let mut r = HeroRenderer::new(ctx, &hero, opts).expect("hero renderer");
        let mode = r.palette_mode();
        hero.freeze_at(walk, 0.3);
        let gpu = render(ctx, t, &mut r, &mut hero, &info);
        let mut rigid = Hero::new(baked(&hero), &level.hero, &level);
        rigid.controller = hero.controller.clone();
        // The baked copy has no VRM block left to say it faces -Z.
        rigid.faces_neg_z = hero.faces_neg_z;
        rigid.update(0.0);
        let mut r2 =
            HeroRenderer::new(ctx, &rigid, HeroRenderOptions::default()).expect("rigid renderer");
        let cpu = render(ctx, t, &mut r2, &mut rigid, &info);
        let (n, bad) = compare(&gpu, &cpu);
        c.check(
            n > 8000 && bad * 200 <= n,
            format!(
                "{mode:?}: GPU and CPU skinning agree on {} of {n} hero pixels ({bad} differ)",
                n - bad
            ),
        );
        // The comparison can tell poses apart: the idle pose differs a lot from the walk.
        hero.freeze_at(idle, 0.0);
        let other = render(ctx, t, &mut r, &mut hero, &info);
        let (n2, bad2) = compare(&other, &cpu);
        c.check(
            bad2 * 10 > n2,
            format!("{mode:?}: a different pose differs ({bad2} of {n2} pixels)"),
        );
        r2.delete(ctx);
        r.delete(ctx);
    }
}

fn skipping(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let mut hero = godette(&level);
    // Hair still settling after the clip pauses is real pose change (tests/hero_springs.rs
    // covers the springs going to sleep); here only the clip and the weights may move the pose.
    hero.springs.enabled = false;
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    let info = info(white, Vec3::new(-0.45, -1.0, 0.6));
    hero.update(1.0 / 60.0);
    render(ctx, t, &mut r, &mut hero, &info);
    c.check(
        r.stats.palette_uploads == 2 && r.stats.morph_uploads == 1,
        format!(
            "first frame uploads 2 palettes and 1 morphed buffer (got {}, {})",
            r.stats.palette_uploads, r.stats.morph_uploads
        ),
    );
    hero.update(1.0 / 60.0);
    render(ctx, t, &mut r, &mut hero, &info);
    c.check(
        r.stats.palette_uploads == 2 && r.stats.morph_uploads == 0,
        format!(
            "playing: palettes {} morphs {}",
            r.stats.palette_uploads, r.stats.morph_uploads
        ),
    );
    hero.mixer.pause();
    let mut total = 0;
    for _ in 0..3 {
        hero.update(1.0 / 60.0);
        render(ctx, t, &mut r, &mut hero, &info);
        total += r.stats.palette_uploads + r.stats.morph_uploads;
    }
    c.check(
        total == 0,
        format!("paused, weights still: {total} uploads in 3 frames"),
    );
    hero.expressions.set_expression("aa", 1.0);
    hero.update(1.0 / 60.0);
    render(ctx, t, &mut r, &mut hero, &info);
    c.check(
        r.stats.morph_uploads == 1 && r.stats.palette_uploads == 0,
        format!(
            "a slider moved: {} morph uploads, {} palette uploads",
            r.stats.morph_uploads, r.stats.palette_uploads
        ),
    );
    r.delete(ctx);
}

fn outline(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let mut hero = godette(&level);
    // At 480 px high Godette's own 0.x outline is 1.2 px (0.01 x 0.5 x 480 / 2), thinner
    // where the normal turns to the camera: too thin to cover a one-pixel ring. Tripled, the
    // band is up to 3.6 px; its exact width is checked in render_fidelity.
    for m in &mut hero.materials {
        m.outline_width *= 3.0;
    }
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    let info = info(white, Vec3::new(-0.45, -1.0, 0.6));
    hero.update(0.0);
    r.outline_enabled = false;
    let plain = render(ctx, t, &mut r, &mut hero, &info);
    r.outline_enabled = true;
    let lined = render(ctx, t, &mut r, &mut hero, &info);
    let (w, h) = (W as i32, H as i32);
    let at = |img: &[[u8; 3]], x: i32, y: i32| {
        if x < 0 || y < 0 || x >= w || y >= h {
            BG
        } else {
            img[(y * w + x) as usize]
        }
    };
    // Distance (in pixels, up to 6) from each background pixel to the plain silhouette.
    let near = |x: i32, y: i32, r: i32| {
        (-r..=r).any(|dy| (-r..=r).any(|dx| at(&plain, x + dx, y + dy) != BG))
    };
    let mut ring = 0;
    let mut ring_covered = 0;
    let mut outside_band = 0;
    let mut band = 0;
    for y in 0..h {
        for x in 0..w {
            if at(&plain, x, y) != BG {
                continue;
            }
            let changed = at(&lined, x, y) != BG;
            if near(x, y, 1) {
                ring += 1;
                ring_covered += changed as usize;
            }
            if changed {
                band += 1;
                if !near(x, y, 5) {
                    outside_band += 1;
                }
            }
        }
    }
    c.check(
        ring > 500 && ring_covered * 10 >= ring * 7,
        format!("the outline covers {ring_covered} of the {ring} pixels bordering the silhouette"),
    );
    c.check(
        band > 0 && outside_band == 0,
        format!(
            "all {band} outline pixels lie within 5 px of the silhouette ({outside_band} beyond)"
        ),
    );
    r.delete(ctx);
}

/// All materials replaced by plain white MToon (shade 0.1 grey) with `toony`.
fn flat_mtoon(scene: &mut SceneAsset, toony: f32) {
    for m in &mut scene.materials {
        m.base_color = Vec4::ONE;
        m.base_color_texture = None;
        m.normal_texture = None;
        m.emissive = Vec3::ZERO;
        m.emissive_texture = None;
        m.alpha_mode = throng::asset::AlphaMode::Opaque;
        let mut t: MToonAsset = throng::asset::vrm::mtoon_defaults(false);
        t.shade_color = Vec3::splat(0.1);
        t.shading_toony = toony;
        t.gi_equalization = 1.0;
        m.mtoon = Some(t);
    }
}

fn toon_bands(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let sun = Vec3::new(1.0, -0.35, 0.2);
    let info = info(white, sun);
    // The CPU reference for a fully lit and a fully shaded texel, through the same tonemap.
    let mut p_scene = godette(&level).scene;
    flat_mtoon(&mut p_scene, 0.95);
    let params = MToonParams::from_material(&p_scene.materials[0], 0, &mut Vec::new());
    let texel = |ndl: f32| {
        let n = Vec3::new(0.0, 0.0, -1.0);
        shade(
            &params,
            &ShadeInput {
                normal: n,
                to_light: Vec3::new((1.0 - ndl * ndl).sqrt(), 0.0, -ndl),
                to_eye: n,
                light_color: Vec3::ONE,
                shadow: 1.0,
                ambient: Vec3::splat(0.2),
                lit: Vec3::ONE,
                shade: Vec3::splat(0.1),
                shift_texture: 0.0,
                matcap_texture: Vec3::ZERO,
                rim_texture: Vec3::ONE,
                emissive: Vec3::ZERO,
            },
        )
    };
    let lit = (display_color(texel(0.8), ToneMapping::Neutral).x * 255.0).round() as i32;
    let dark = (display_color(texel(-0.8), ToneMapping::Neutral).x * 255.0).round() as i32;
    for (toony, sharp) in [(0.95, true), (0.0, false)] {
        let mut scene = godette(&level).scene;
        flat_mtoon(&mut scene, toony);
        let mut hero = Hero::new(scene, &level.hero, &level);
        hero.controller.heading = 0.0;
        hero.update(0.0);
        let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
        r.outline_enabled = false;
        let img = render(ctx, t, &mut r, &mut hero, &info);
        let greys: Vec<i32> = img
            .iter()
            .filter(|p| **p != BG)
            .map(|p| p[0] as i32)
            .collect();
        let n = greys.len().max(1);
        let at_lit = greys.iter().filter(|&&g| (g - lit).abs() <= 3).count();
        let at_dark = greys.iter().filter(|&&g| (g - dark).abs() <= 3).count();
        let between = n - at_lit - at_dark;
        if sharp {
            c.check(
                at_lit * 5 > n && at_dark * 10 > n && between * 100 < n * 15,
                format!(
                    "toony 0.95: {at_lit} px at the lit value {lit}, {at_dark} at the shade value {dark}, {between} of {n} in between"
                ),
            );
        } else {
            c.check(
                between * 100 > n * 40,
                format!("toony 0: a smooth ramp ({between} of {n} px between {dark} and {lit})"),
            );
        }
        r.delete(ctx);
    }
}

async fn shadow(white: TextureId, c: &mut Checks) {
    let _ = white;
    let level = lab();
    let mut hero = godette(&level);
    hero.update(0.0);
    let gl = unsafe { get_internal_gl() };
    let ctx = gl.quad_context;
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    let mut plaza = Renderer::new(ctx).expect("plaza renderer");
    plaza.sync_scenery(ctx, 1, &level.bounds, || build_static_mesh(&level));
    let sun = level.lighting.sun_direction.normalize();
    // Looking at the hero from the side its shadow falls on.
    let (sw, sh) = (
        macroquad::prelude::screen_width(),
        macroquad::prelude::screen_height(),
    );
    let eye = Vec3::new(-3.0, 2.5, -3.0);
    let view_proj = Mat4::perspective_rh_gl(40f32.to_radians(), sw / sh, 0.1, 100.0)
        * Mat4::look_at_rh(eye, Vec3::new(-0.2, 0.4, -0.2), Vec3::Y);
    let mut shots = Vec::new();
    for cast in [false, true] {
        r.cast_shadow = cast;
        r.prepare(
            ctx,
            &hero_frame(&hero, &Frustum::from_view_projection(&view_proj)),
            40f32.to_radians(),
        );
        let params = FrameParams {
            view_proj,
            eye,
            lighting: &level.lighting,
            ground: &level.ground,
            bounds: &level.bounds,
            fog_distance: 1000.0,
            light_view_proj: throng::view::light::sun_view_projection(sun, Vec3::ZERO, 12.0, 2048),
            shadows: true,
            shadow_texels: throng::view::light::SHADOW_MAP_SIZE,
            antialias: false,
            marker_path: MarkerPath::Instanced,
            screen_size: (sw, sh),
        };
        let empty: [Vec<f32>; 3] = Default::default();
        plaza.draw(ctx, &params, &empty, &mut [&mut r]);
        let img = get_screen_data();
        shots.push((img.width as i32, img.height as i32, img.bytes.clone()));
        next_frame().await;
    }
    let (w, h, without) = &shots[0];
    let (_, _, with) = &shots[1];
    let luma = |img: &[u8], p: Vec3| -> Option<f32> {
        let ndc = view_proj.project_point3(p);
        let x = ((ndc.x * 0.5 + 0.5) * *w as f32) as i32;
        // Screen data rows run bottom-up, like GL.
        let y = ((ndc.y * 0.5 + 0.5) * *h as f32) as i32;
        if x < 0 || y < 0 || x >= *w || y >= *h {
            return None;
        }
        let i = ((y * w + x) * 4) as usize;
        Some(img[i] as f32 * 0.3 + img[i + 1] as f32 * 0.59 + img[i + 2] as f32 * 0.11)
    };
    // Ground points whose ray to the sun passes through the body at hip and chest height.
    let mut darker = 0;
    let heights = [0.35, 0.5, 0.65, 0.8];
    for y in heights {
        let g = Vec3::new(0.0, y, 0.0) + sun * (y / -sun.y);
        if let (Some(a), Some(b)) = (luma(without, g), luma(with, g)) {
            if b < a * 0.8 {
                darker += 1;
            }
            support::say(&format!("    ground {g:.2}: {a:.0} -> {b:.0}"));
        }
    }
    c.check(
        darker >= 3,
        format!(
            "{darker} of {} ground points under the hero's body are in its shadow",
            heights.len()
        ),
    );
    // Beside the hero, across the sun's path, the ground stays lit.
    let away = Vec3::new(sun.z, 0.0, -sun.x).normalize() * 1.0;
    if let (Some(a), Some(b)) = (luma(without, away), luma(with, away)) {
        c.check(
            (a - b).abs() < 3.0,
            format!("the sunny side is unchanged ({a:.0} vs {b:.0})"),
        );
    }
    r.delete(ctx);
}

async fn run_all() -> Checks {
    let mut c = Checks::default();
    {
        let gl = unsafe { get_internal_gl() };
        let ctx = gl.quad_context;
        let white = ctx.new_texture_from_rgba8(1, 1, &[255; 4]);
        let t = target(ctx, W, H);
        support::say("hero GPU checks:");
        skinning(ctx, &t, white, &mut c);
        skipping(ctx, &t, white, &mut c);
        outline(ctx, &t, white, &mut c);
        toon_bands(ctx, &t, white, &mut c);
    }
    next_frame().await;
    let white = {
        let gl = unsafe { get_internal_gl() };
        gl.quad_context.new_texture_from_rgba8(1, 1, &[255; 4])
    };
    shadow(white, &mut c).await;
    c
}

fn main() {
    support::gl_checks::run_in_window("hero GPU test", 640, 480, run_all);
}

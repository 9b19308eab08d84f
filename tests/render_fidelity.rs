//! Picture fidelity on a real GL context (Xvfb when there is no screen), checked by reading
//! pixels back from hand-built boxes drawn by the hero's renderer:
//! - a nearest-filtered, unmipmapped texture seen from afar keeps its small dark patch;
//! - a white texel under a bright white sun renders within a few levels of white (the tone
//!   curve keeps authored colours);
//! - outline widths in pixels: MToon 0.x (clip space, thinner beyond the scaled max distance)
//!   and VRM 1.0 (share of the screen height);
//! - antialiasing: a slanted edge has in-between pixels with it on and none with it off;
//! - a plain glTF material (metallic-roughness PBR) matches the CPU reference: a metallic
//!   mid-grey stays dark, a white dielectric stays white.
//!
//! A harness-less test: macroquad wants the main thread and one window per process.

mod support;

use glam::{Mat4, Quat, Vec3};
use macroquad::miniquad::{PassAction, RenderingBackend, TextureId};
use macroquad::prelude::{clear_background, get_internal_gl, get_screen_data, next_frame, Color};
use serde_json::{json, Value};
use support::gl_checks::{target, Checks, Target};
use support::gltf_builder::{base64, Builder};
use throng::asset::{load_slice, MToonAsset, OutlineWidthMode, SceneAsset};
use throng::extract::hero_frame;
use throng::hero::Hero;
use throng::level::{load_level, Level, ToneMapping};
use throng::render::hero::{HeroRenderOptions, HeroRenderer};
use throng::render::tone::curve_uniform;
use throng::render::{display_color, FrameParams, MainPassInfo, MarkerPath, RenderStats, Renderer};
use throng::view::frustum::Frustum;

const W: u32 = 320;
const H: u32 = 480;
const BG: [u8; 3] = [0, 0, 0];
const FOV_DEG: f32 = 35.0;
/// The box's centre (it stands on the hero's spawn point) and half size.
const CENTRE: Vec3 = Vec3::new(0.0, 0.75, 0.0);
const HALF: f32 = 0.3;
/// The sun's colour times intensity and the ambient light of the texture checks: a bright sun,
/// as on the plaza at noon.
const SUN: f32 = 1.8;
const AMBIENT: f32 = 0.4;

/// The camera in front of the box, level with its middle, looking along +Z.
fn camera(aspect: f32) -> (Mat4, Vec3) {
    let eye = CENTRE - Vec3::Z * 3.2;
    let view = Mat4::look_at_rh(eye, CENTRE, Vec3::Y);
    let proj = Mat4::perspective_rh_gl(FOV_DEG.to_radians(), aspect, 0.1, 50.0);
    (proj * view, eye)
}

fn info(white: TextureId) -> MainPassInfo {
    let (view_proj, eye) = camera(W as f32 / H as f32);
    MainPassInfo {
        view_proj,
        eye,
        // From behind the camera: the front face is fully lit.
        sun_dir: Vec3::new(0.0, -0.0001, 1.0).normalize(),
        sun_color: Vec3::splat(SUN),
        ambient: Vec3::splat(AMBIENT),
        sky_color: Vec3::ZERO,
        fog_distance: 1.0e6,
        light_view_proj: Mat4::IDENTITY,
        shadows_on: false,
        shadow_map: white,
        shadow_texel: 1.0 / 2048.0,
        tone_curve: curve_uniform(ToneMapping::Neutral),
        screen_size: (W as f32, H as f32),
    }
}

/// A PNG of `size` x `size` white texels with a `patch` x `patch` square of (10, 10, 10) whose
/// corner is at texel `at`.
fn png(size: u32, at: u32, patch: u32) -> Vec<u8> {
    let mut rgb = vec![255u8; (size * size * 3) as usize];
    for y in at..at + patch {
        for x in at..at + patch {
            let i = ((y * size + x) * 3) as usize;
            rgb[i..i + 3].copy_from_slice(&[10, 10, 10]);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, size, size);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().expect("png header");
        w.write_image_data(&rgb).expect("png data");
    }
    out
}

/// A box of flat faces (each face's UVs span the whole texture) at `CENTRE`, turned by `roll`
/// radians about Z, textured with `image` through `sampler`. The vertices carry the placement:
/// the hero's renderer places the model by the hero, not by its root node.
fn box_scene(image: &[u8], sampler: Value, roll: f32) -> SceneAsset {
    let rot = Quat::from_rotation_z(roll);
    let mut pos = Vec::new();
    let mut nor = Vec::new();
    let mut uv = Vec::new();
    let mut idx: Vec<u16> = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0f32; 3];
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = (pos.len() / 3) as u16;
            for (a, b) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = [0.0f32; 3];
                p[axis] = sign * HALF;
                p[u] = a * HALF;
                p[v] = b * HALF;
                pos.extend((rot * Vec3::from(p) + CENTRE).to_array());
                nor.extend((rot * Vec3::from(n)).to_array());
                uv.extend([a * 0.5 + 0.5, b * 0.5 + 0.5]);
            }
            // Counter-clockwise seen from outside.
            let quad = if sign > 0.0 {
                [0, 1, 2, 0, 2, 3]
            } else {
                [0, 2, 1, 0, 3, 2]
            };
            idx.extend(quad.iter().map(|k| base + k));
        }
    }
    let mut b = Builder::new();
    let p = b.f32s("VEC3", &pos);
    let n = b.f32s("VEC3", &nor);
    let t = b.f32s("VEC2", &uv);
    let i = b.u16_indices(&idx);
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "NORMAL": n, "TEXCOORD_0": t}, "indices": i, "material": 0}]}],
        "materials": [{"name": "box", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [sampler],
        "images": [{"uri": format!("data:image/png;base64,{}", base64(image))}],
    });
    let mut scene = load_slice("box.gltf", &b.finish(doc), None).expect("the box loads");
    // Flat MToon: the shade is the lit colour, so every face is one colour.
    let mut m: MToonAsset = throng::asset::vrm::mtoon_defaults(false);
    m.shade_color = Vec3::ONE;
    m.shade_texture = Some(0);
    m.gi_equalization = 1.0;
    scene.materials[0].mtoon = Some(m);
    scene
}

fn lab() -> Level {
    let root = support::project_root();
    load_level(&root.join("tests/fixtures/levels/hero_lab.ron"), &root).expect("hero lab level")
}

fn hero_of(scene: SceneAsset, level: &Level) -> Hero {
    let mut h = Hero::new(scene, &level.hero, level);
    h.controller.heading = 0.0;
    h.update(0.0);
    h
}

/// Draws the hero alone into the target and reads the RGB pixels back (rows bottom-up).
fn render(
    ctx: &mut dyn RenderingBackend,
    t: &Target,
    r: &mut HeroRenderer,
    hero: &Hero,
    info: &MainPassInfo,
) -> Vec<[u8; 3]> {
    let frustum = Frustum::from_view_projection(&info.view_proj);
    r.prepare(ctx, &hero_frame(hero, &frustum), FOV_DEG.to_radians());
    ctx.begin_pass(Some(t.pass), PassAction::clear_color(0.0, 0.0, 0.0, 1.0));
    ctx.apply_viewport(0, 0, W as i32, H as i32);
    ctx.apply_scissor_rect(0, 0, W as i32, H as i32);
    let mut stats = RenderStats::default();
    throng::render::WorldLayer::draw_main(r, ctx, info, &mut stats);
    ctx.end_render_pass();
    let mut bytes = vec![0u8; (W * H * 4) as usize];
    ctx.texture_read_pixels(t.color, &mut bytes);
    bytes.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect()
}

/// The grey levels (red channel) of the box's pixels.
fn box_levels(img: &[[u8; 3]]) -> Vec<u8> {
    img.iter().filter(|p| **p != BG).map(|p| p[0]).collect()
}

/// A 512-texel texture with a 4-texel dark patch off the mipmap grid, seen about 3 texels to a
/// pixel: nearest sampling without mipmaps lands on the patch; mipmaps would average it grey.
fn nearest_patch(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let sampler = json!({"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33071});
    let hero = hero_of(box_scene(&png(512, 255, 4), sampler, 0.0), &level);
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    let img = render(ctx, t, &mut r, &hero, &info(white));
    let levels = box_levels(&img);
    let darkest = levels.iter().copied().min().unwrap_or(255);
    let dark = levels.iter().filter(|&&l| l <= 40).count();
    c.check(
        levels.len() > 10_000 && darkest <= 40 && dark >= 1,
        format!(
            "nearest, no mipmaps: the dark patch keeps {dark} dark pixels, darkest {darkest} of {} box pixels",
            levels.len()
        ),
    );
    r.delete(ctx);
}

/// A white texel under the bright sun, through the default curve.
fn white_texel(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let sampler = json!({"magFilter": 9729, "minFilter": 9729});
    let hero = hero_of(box_scene(&png(8, 0, 0), sampler, 0.0), &level);
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    let img = render(ctx, t, &mut r, &hero, &info(white));
    let levels = box_levels(&img);
    let median = {
        let mut l = levels.clone();
        l.sort_unstable();
        l.get(l.len() / 2).copied().unwrap_or(0)
    };
    // MToon's lit colour: the sun plus the equalized hemisphere ambient (0.775 of it).
    let linear = Vec3::splat(SUN + AMBIENT * 0.775);
    let expected = (display_color(linear, ToneMapping::Neutral).x * 255.0).round() as i32;
    let aces = (display_color(linear, ToneMapping::Aces).x * 255.0).round() as i32;
    c.check(
        levels.len() > 10_000 && median >= 250 && (median as i32 - expected).abs() <= 2,
        format!("a white texel renders at {median} of 255 (the curve says {expected}; the ACES fit gave {aces})"),
    );
    r.delete(ctx);
}

/// The box as a plain glTF material (no MToon): metallic-roughness PBR, a grey base colour of
/// sRGB level `grey` with these factors, seen straight on with the sun high to one side (N·L
/// 0.48, the half vector 31° off the normal). The GPU's PBR branch at the box's middle pixel must give what the CPU
/// reference (`hero::pbr::shade`) gives through the same tone curve, within 3 levels; a
/// metalness of 0.75 leaves a mid-grey texel darker than the same texel as a dielectric, and a
/// white dielectric stays white.
fn pbr_box(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    use throng::hero::pbr::{shade, PbrInput};
    let level = lab();
    let linear = |v: u8| {
        let x = v as f32 / 255.0;
        if x <= 0.04045 {
            x / 12.92
        } else {
            ((x + 0.055) / 1.055).powf(2.4)
        }
    };
    let info = MainPassInfo {
        sun_dir: Vec3::new(0.5, -1.0, 0.6).normalize(),
        ..info(white)
    };
    let n = Vec3::NEG_Z;
    let cpu = |grey: u8, metalness: f32, roughness: f32| {
        let c = shade(&PbrInput {
            normal: n,
            to_light: -info.sun_dir,
            to_eye: (info.eye - Vec3::new(0.0, CENTRE.y, -HALF)).normalize(),
            light_color: info.sun_color,
            shadow: 1.0,
            ambient: throng::hero::mtoon::raw_gi(info.ambient, n),
            base: Vec3::splat(linear(grey)),
            metalness,
            roughness,
            emissive: Vec3::ZERO,
        });
        (display_color(c, ToneMapping::Neutral).x * 255.0).round() as i32
    };
    for (grey, metallic, roughness) in [(134u8, 0.75f32, 0.6f32), (255, 0.0, 1.0)] {
        let sampler = json!({"magFilter": 9729, "minFilter": 9729});
        let mut scene = box_scene(&png(8, 0, 0), sampler, 0.0);
        let m = &mut scene.materials[0];
        m.mtoon = None;
        m.base_color = Vec3::splat(linear(grey)).extend(1.0);
        m.metallic = metallic;
        m.roughness = roughness;
        let hero = hero_of(scene, &level);
        let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
        let img = render(ctx, t, &mut r, &hero, &info);
        let mid = img[(H / 2 * W + W / 2) as usize][0] as i32;
        let want = cpu(grey, metallic, roughness);
        let dielectric = cpu(grey, 0.0, roughness);
        let plausible = if metallic > 0.0 {
            mid < dielectric
        } else {
            mid >= 240
        };
        c.check(
            (mid - want).abs() <= 3 && plausible,
            format!(
                "PBR: texel {grey}, metalness {metallic}, roughness {roughness} renders at {mid} \
                 (CPU reference {want}; as a dielectric {dielectric})"
            ),
        );
        r.delete(ctx);
    }
}

/// Extent of the non-background pixels along row `y`: (leftmost, rightmost).
fn row_extent(img: &[[u8; 3]], y: i32) -> Option<(i32, i32)> {
    let row = &img[(y as u32 * W) as usize..((y as u32 + 1) * W) as usize];
    let left = row.iter().position(|p| *p != BG)?;
    let right = row.iter().rposition(|p| *p != BG)?;
    Some((left as i32, right as i32))
}

/// Outline width on screen against its rule, for a 0.x material (near and beyond its scaled
/// max distance) and a 1.0 one.
fn outline_widths(ctx: &mut dyn RenderingBackend, t: &Target, white: TextureId, c: &mut Checks) {
    let level = lab();
    let info = info(white);
    // Depth (clip w) of the box's front edges, where its silhouette lies.
    let depth = (info.view_proj * (CENTRE + Vec3::new(HALF, 0.0, -HALF)).extend(1.0)).w;
    let row = {
        let ndc = info.view_proj.project_point3(CENTRE - Vec3::Z * HALF);
        ((ndc.y * 0.5 + 0.5) * H as f32) as i32
    };
    let cases = [
        // (label, from VRM 0.x, width factor, scaled max distance, expected pixels)
        ("0.x near", true, 0.015, 10.0, 0.015 * H as f32 / 2.0),
        (
            "0.x beyond its max distance",
            true,
            0.015,
            depth * 0.5,
            0.015 * H as f32 / 2.0 * 0.5,
        ),
        ("1.0", false, 0.008, 1.0, 0.008 * H as f32),
    ];
    for (label, v0, width, max_distance, expected) in cases {
        let sampler = json!({"magFilter": 9729, "minFilter": 9729});
        let mut scene = box_scene(&png(8, 0, 0), sampler, 0.0);
        if let Some(m) = scene.materials[0].mtoon.as_mut() {
            m.from_vrm0 = v0;
            m.outline_width_mode = OutlineWidthMode::ScreenCoordinates;
            m.outline_width = width;
            m.outline_scaled_max_distance = max_distance;
            m.outline_color = Vec3::new(1.0, 0.0, 0.0);
            m.outline_lighting_mix = 0.0;
        }
        let hero = hero_of(scene, &level);
        let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
        r.outline_enabled = false;
        let plain = render(ctx, t, &mut r, &hero, &info);
        r.outline_enabled = true;
        let lined = render(ctx, t, &mut r, &hero, &info);
        let measured = match (row_extent(&plain, row), row_extent(&lined, row)) {
            (Some((l0, r0)), Some((l1, r1))) => ((l0 - l1) + (r1 - r0)) as f32 * 0.5,
            _ => -1.0,
        };
        c.check(
            (measured - expected).abs() <= 1.0,
            format!("{label}: outline {measured:.1} px wide, the rule says {expected:.2}"),
        );
        r.delete(ctx);
    }
}

/// Pixels in the rows crossing the rolled box's upper edges that are neither the sky nor the
/// box's face colour (by more than 3 levels).
fn between_pixels(
    img: &[u8],
    w: i32,
    rows: std::ops::Range<i32>,
    sky: [u8; 3],
    face: [u8; 3],
) -> usize {
    let near = |a: &[u8], b: [u8; 3]| (0..3).all(|k| (a[k] as i32 - b[k] as i32).abs() <= 3);
    rows.flat_map(|y| (0..w).map(move |x| ((y * w + x) * 4) as usize))
        .filter(|&i| !near(&img[i..i + 3], sky) && !near(&img[i..i + 3], face))
        .count()
}

/// The whole main pass (sky, the box as the hero layer) with and without multisampling.
async fn antialiasing(c: &mut Checks) {
    let level = lab();
    let sampler = json!({"magFilter": 9729, "minFilter": 9729});
    let hero = hero_of(box_scene(&png(8, 0, 0), sampler, 0.4), &level);
    let gl = unsafe { get_internal_gl() };
    let ctx = gl.quad_context;
    let mut r = HeroRenderer::new(ctx, &hero, HeroRenderOptions::default()).expect("renderer");
    r.outline_enabled = false;
    r.cast_shadow = false;
    // No scenery synced: no ground either, the sky is all around the box.
    let mut plaza = Renderer::new(ctx).expect("plaza renderer");
    let (sw, sh) = (
        macroquad::prelude::screen_width(),
        macroquad::prelude::screen_height(),
    );
    let (view_proj, eye) = camera(sw / sh);
    let sky = display_color(level.lighting.sky_color, level.lighting.tone_mapping);
    let to_u8 = |v: f32| (v * 255.0).round() as u8;
    let sky_u8 = [to_u8(sky.x), to_u8(sky.y), to_u8(sky.z)];
    // Rows from the box's middle to above its top corner: sky and face only.
    let row = |y: f32| {
        let ndc = view_proj.project_point3(Vec3::new(0.0, y, -HALF));
        ((ndc.y * 0.5 + 0.5) * sh) as i32
    };
    let rows = row(CENTRE.y + 0.05)..row(CENTRE.y + HALF * 1.5);
    let mut counts = Vec::new();
    for antialias in [false, true] {
        clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
        r.prepare(
            ctx,
            &hero_frame(&hero, &Frustum::from_view_projection(&view_proj)),
            FOV_DEG.to_radians(),
        );
        let params = FrameParams {
            view_proj,
            eye,
            lighting: &level.lighting,
            ground: &level.ground,
            bounds: &level.bounds,
            fog_distance: 1000.0,
            light_view_proj: Mat4::IDENTITY,
            shadows: false,
            shadow_texels: throng::view::light::SHADOW_MAP_SIZE,
            antialias,
            marker_path: MarkerPath::Instanced,
            screen_size: (sw, sh),
        };
        let empty: [Vec<f32>; 3] = Default::default();
        let stats = plaza.draw(ctx, &params, &empty, &mut [&mut r]);
        let img = get_screen_data();
        let w = img.width as i32;
        // The face's colour: the middle of the box.
        let mid = ((row(CENTRE.y) * w + w / 2) * 4) as usize;
        let face = [img.bytes[mid], img.bytes[mid + 1], img.bytes[mid + 2]];
        let n = between_pixels(&img.bytes, w, rows.clone(), sky_u8, face);
        counts.push((n, stats.msaa_samples, face));
        next_frame().await;
    }
    let (off, on) = (counts[0], counts[1]);
    c.check(
        off.0 == 0 && off.1 == 1,
        format!(
            "AA off: {} in-between pixels along the slanted edges (face {:?}, sky {sky_u8:?})",
            off.0, off.2
        ),
    );
    c.check(
        on.0 >= 20 && on.1 == 4,
        format!(
            "AA on ({} samples): {} in-between pixels along the slanted edges",
            on.1, on.0
        ),
    );
    r.delete(ctx);
}

async fn run_all() -> Checks {
    let mut c = Checks::default();
    {
        let gl = unsafe { get_internal_gl() };
        let ctx = gl.quad_context;
        let white = ctx.new_texture_from_rgba8(1, 1, &[255; 4]);
        let t = target(ctx, W, H);
        support::say("picture fidelity checks:");
        nearest_patch(ctx, &t, white, &mut c);
        white_texel(ctx, &t, white, &mut c);
        pbr_box(ctx, &t, white, &mut c);
        outline_widths(ctx, &t, white, &mut c);
    }
    next_frame().await;
    antialiasing(&mut c).await;
    c
}

fn main() {
    support::gl_checks::run_in_window("picture fidelity test", 640, 480, run_all);
}

//! People look back: one plaza person drawn face to the camera through the instanced crowd
//! programs, with the head turn the game would give them (eased by `HeadTurns`, packed into
//! the instance block's tone lane by `look_pack`). With no hero and with the hero far away the
//! picture is the same to the byte; with the hero near at their side the face (the near-black
//! eye and brow pixels) moves toward her while the chest below the neck stays put (but for the
//! head's shadow on it), and the crowd draws as many calls as before. Near and mid meshes (both read the matrix texture).
//!
//! A harness-less test: macroquad wants the main thread and one window per process.

mod support;

use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{get_internal_gl, get_screen_data, next_frame};
use support::gl_checks::Checks;
use throng::crowd::anim::{AnimState, ClipKind};
use throng::crowd::head_turn::HeadTurns;
use throng::crowd_assets::loader::CrowdAssetLoader;
use throng::extract::{Extractor, Screen};
use throng::game::{Game, GameOptions};
use throng::level::load_level;
use throng::render::crowd_pass::CrowdPass;
use throng::render::frame::{draw_frame, FrameLayers};
use throng::render::Renderer;
use throng::settings::ViewSettings;
use throng::view::crowd_pack::{anim_vector, person_world, CrowdFrame};
use throng::view::look_pack::pack_look;
use throng::view::render_world::{CrowdInstances, CrowdSource, ViewCamera};

const TONE: f32 = 0.3;
/// Where the person stands (open paving) and their heading: 0 faces -Z.
const AT: Vec2 = Vec2::new(-6.0, 12.0);
const HEADING: f32 = 0.0;

struct Scene<'a> {
    loader: &'a mut CrowdAssetLoader,
    game: &'a Game,
    renderer: &'a mut Renderer,
    pass: &'a mut CrowdPass,
}

struct Shot {
    w: i32,
    h: i32,
    bytes: Vec<u8>,
    draws: u32,
}

impl Shot {
    fn luma(&self, x: i32, y: i32) -> f32 {
        let i = ((y * self.w + x) * 4) as usize;
        let b = &self.bytes;
        b[i] as f32 * 0.3 + b[i + 1] as f32 * 0.59 + b[i + 2] as f32 * 0.11
    }

    /// Mean x of the near-black pixels (the eyes and brows: crowd.vert draws face details
    /// almost black) in the rows `rows`, and how many there are.
    fn dark_centroid(&self, rows: std::ops::Range<i32>) -> (f32, usize) {
        let (mut sum, mut n) = (0.0, 0usize);
        for y in rows {
            for x in 0..self.w {
                if self.luma(x, y) < 14.0 {
                    sum += x as f32;
                    n += 1;
                }
            }
        }
        (sum / n.max(1) as f32, n)
    }

    /// Pixels that differ from `other` in the rows `rows`.
    fn differing(&self, other: &Shot, rows: std::ops::Range<i32>) -> usize {
        let row = (self.w * 4) as usize;
        rows.map(|y| {
            let r = y as usize * row..(y as usize + 1) * row;
            self.bytes[r.clone()]
                .chunks(4)
                .zip(other.bytes[r].chunks(4))
                .filter(|(a, b)| a != b)
                .count()
        })
        .sum()
    }
}

/// The eased head turn of a person at `AT` after two seconds with the hero's face at `hero`.
fn settled_turn(hero: Option<Vec3>) -> (f32, f32) {
    let mut turns = HeadTurns::default();
    for _ in 0..120 {
        turns.update(&[AT], &[HEADING], |_| 1.6, hero, 1.0 / 60.0);
    }
    turns.get(0)
}

/// Body `body` alone at level `lod`, with its head turned by `turn`, seen by `cam`.
async fn shoot(
    s: &mut Scene<'_>,
    body: usize,
    lod: usize,
    turn: (f32, f32),
    cam: ViewCamera,
) -> Shot {
    let gl = unsafe { get_internal_gl() };
    let ctx = gl.quad_context;
    let assets = s.loader.assets().expect("plaza crowd assets");
    let source = CrowdSource {
        assets,
        version: 1,
        uniform_cap: None,
        vat: false,
        impostors: false,
    };
    s.pass.sync(ctx, &source, s.renderer.shadow_map());
    let b = &assets.bodies[body];
    let mut frame = CrowdFrame::default();
    for list in &mut frame.lists {
        list.resize(assets.submeshes.len(), Vec::new());
    }
    let world = person_world(b, AT, HEADING, 1.0);
    let block = &mut frame.lists[lod][b.submesh];
    for r in 0..3 {
        block.push(world.row(r).to_array());
    }
    block.push([0.5, 0.5, 0.5, 1.0]);
    let mut anim = anim_vector(b, &AnimState::new(ClipKind::Idle, 0.0), TONE);
    anim.w = pack_look(anim.w, turn.0, turn.1);
    block.push(anim.to_array());
    let mut extractor = Extractor::default();
    let view = ViewSettings::default();
    let screen = Screen::window(
        macroquad::prelude::screen_width(),
        macroquad::prelude::screen_height(),
    );
    let mut rw = extractor.extract(s.game, &view, s.loader.assets_mut(), screen);
    rw.camera = cam;
    rw.player = cam;
    rw.fog_distance = 1000.0;
    rw.crowd = CrowdInstances::Skinned(&frame);
    rw.hero = None;
    let layers = FrameLayers {
        crowd: s.pass,
        hero: None,
    };
    let stats = draw_frame(ctx, s.renderer, &rw, layers);
    let img = get_screen_data();
    let shot = Shot {
        w: img.width as i32,
        h: img.height as i32,
        bytes: img.bytes.clone(),
        draws: stats.draw_calls,
    };
    next_frame().await;
    shot
}

/// Writes `shot` as a PNG under shots/ when THRONG_SHOTS is set (for looking at by hand).
fn keep(shot: &Shot, name: &str) {
    if std::env::var_os("THRONG_SHOTS").is_none() {
        return;
    }
    let dir = support::project_root().join("shots");
    let _ = std::fs::create_dir_all(&dir);
    // Screen data rows run bottom-up, like GL.
    let mut img = image::RgbaImage::new(shot.w as u32, shot.h as u32);
    for y in 0..shot.h {
        for x in 0..shot.w {
            let i = (((shot.h - 1 - y) * shot.w + x) * 4) as usize;
            let p = &shot.bytes[i..i + 4];
            img.put_pixel(x as u32, y as u32, image::Rgba([p[0], p[1], p[2], 255]));
        }
    }
    let _ = img.save(dir.join(name));
}

async fn run_all() -> Checks {
    let mut c = Checks::default();
    support::say("head turn checks:");
    let root = support::project_root();
    let level = load_level(&root.join("levels/plaza.ron"), &root).expect("plaza");
    let mut loader = CrowdAssetLoader::new(root.clone(), "levels/plaza.ron".into());
    loader.sync(&level);
    let game = Game::new(
        level.clone(),
        GameOptions {
            crowd: Some(0),
            seed: None,
        },
    );
    let gl = unsafe { get_internal_gl() };
    let mut renderer = Renderer::new(gl.quad_context).expect("plaza renderer");
    let mut pass = CrowdPass::default();
    let mut s = Scene {
        loader: &mut loader,
        game: &game,
        renderer: &mut renderer,
        pass: &mut pass,
    };
    let name = "casual_male";
    let assets = s.loader.assets().expect("plaza crowd assets");
    let Some(body) = assets.bodies.iter().position(|b| b.name == name) else {
        c.check(false, format!("{name}: a body of the plaza"));
        return c;
    };
    let rig = assets.bodies[body].look_rig;
    c.check(
        rig.neck.map(|j| j.slot) == Some(6) && rig.head.map(|j| j.slot) == Some(7),
        format!("{name}: the rig finds Neck (6) and Head (7) by name: {rig:?}"),
    );
    // Face to face: the camera 1.4 m in front of the person, at head height (heading 0 faces
    // -Z, so the camera stands on the -Z side looking +Z).
    let (sw, sh) = (
        macroquad::prelude::screen_width(),
        macroquad::prelude::screen_height(),
    );
    let eye = Vec3::new(AT.x, 1.45, AT.y - 1.4);
    let centre = Vec3::new(AT.x, 1.35, AT.y);
    let cam = ViewCamera {
        view_proj: Mat4::perspective_rh_gl(40f32.to_radians(), sw / sh, 0.05, 100.0)
            * Mat4::look_at_rh(eye, centre, Vec3::Y),
        eye,
        fov_y: 40f32.to_radians(),
        screen_size: (sw, sh),
    };
    // The hero 2 m to the person's +X side, a little in front: near; and 20 m away.
    let near_hero = Vec3::new(AT.x + 2.0, 1.6, AT.y - 0.7);
    let far_hero = Vec3::new(AT.x + 20.0, 1.6, AT.y - 7.0);
    let near = settled_turn(Some(near_hero));
    let far = settled_turn(Some(far_hero));
    let none = settled_turn(None);
    support::say(&format!(
        "    turn with the hero near: yaw {:.1}°, pitch {:.1}°",
        near.0.to_degrees(),
        near.1.to_degrees()
    ));
    c.check(
        far == (0.0, 0.0) && none == (0.0, 0.0) && near.0.abs() > 1.0,
        format!("the game's easing turns the head only for the near hero: {near:?}, far {far:?}"),
    );
    // Which way the hero's side is on screen.
    let to_screen = |p: Vec3| (cam.view_proj.project_point3(p).x * 0.5 + 0.5) * sw;
    let hero_side = (to_screen(Vec3::new(AT.x + 0.3, 1.5, AT.y)) - sw * 0.5).signum();
    for (lod, label) in [(0, "near"), (1, "mid")] {
        let plain = shoot(&mut s, body, lod, none, cam).await;
        let far_shot = shoot(&mut s, body, lod, far, cam).await;
        let turned = shoot(&mut s, body, lod, near, cam).await;
        keep(&plain, &format!("head_turn_{label}_no_hero.png"));
        keep(&turned, &format!("head_turn_{label}_hero_near.png"));
        let h = plain.h;
        c.check(
            plain.bytes == far_shot.bytes,
            format!("{label}: the hero far away leaves the picture identical to no hero"),
        );
        // The head fills the upper part of the picture (rows run bottom-up).
        let head_rows = h / 2..h;
        let (x0, n0) = plain.dark_centroid(head_rows.clone());
        let (x1, n1) = turned.dark_centroid(head_rows.clone());
        let moved = (x1 - x0) * hero_side;
        c.check(
            n0 > 20 && n1 > 20 && moved > 0.02 * sw,
            format!(
                "{label}: the face turns toward the hero: its dark eye and brow pixels move \
                 {moved:.1} px her way ({n0} -> {n1} pixels, centroid {x0:.1} -> {x1:.1})"
            ),
        );
        let changed = turned.differing(&plain, head_rows);
        // The chest in the bottom rows moves with no joint that turns; only the head's shadow
        // on the shoulders (the sun's shadow map) may shift there.
        let chest_rows = h / 8;
        let chest = turned.differing(&plain, 0..chest_rows);
        c.check(
            changed > 5_000 && chest * 15 < changed && chest * 10 < (plain.w * chest_rows) as usize,
            format!(
                "{label}: {changed} head pixels change, only {chest} of the chest in the bottom \
                 {chest_rows} rows (the head's shadow)"
            ),
        );
        c.check(
            turned.draws == plain.draws,
            format!(
                "{label}: the head turn draws no extra call ({} vs {})",
                turned.draws, plain.draws
            ),
        );
    }
    c
}

fn main() {
    support::gl_checks::run_in_window("head turn test", 640, 480, run_all);
}

//! Crowd faces keep their eyes and brows under every skin tone: each plaza body with a `Face`
//! material is drawn close up, face to the camera, with the lightest and the darkest skin tone,
//! at the near and the mid level of detail (the mid one also from the vertex animation
//! texture). The eye region (the model's `Face` triangles) must stay much darker than the skin
//! around it under both tones, while that skin follows the tone.
//!
//! A harness-less test: macroquad wants the main thread and one window per process.

mod support;

use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{get_internal_gl, get_screen_data, next_frame};
use support::gl_checks::Checks;
use throng::asset::SceneAsset;
use throng::crowd::anim::{AnimState, ClipKind};
use throng::crowd_assets::loader::CrowdAssetLoader;
use throng::crowd_assets::CrowdAssets;
use throng::extract::{Extractor, Screen};
use throng::game::{Game, GameOptions};
use throng::level::load_level;
use throng::render::crowd_pass::CrowdPass;
use throng::render::frame::{draw_frame, FrameLayers};
use throng::render::Renderer;
use throng::settings::ViewSettings;
use throng::view::crowd_pack::{anim_vector, person_world, CrowdFrame};
use throng::view::render_world::{CrowdInstances, CrowdSource, ViewCamera};

const LIGHT: f32 = 0.0;
const DARK: f32 = 1.0;

/// Bind-space positions of the triangles of material `name` in `scene`'s skinned meshes.
fn material_positions(scene: &SceneAsset, name: &str) -> Vec<Vec3> {
    let mut out = Vec::new();
    for mesh in &scene.meshes {
        for p in &mesh.primitives {
            let named = p
                .material
                .and_then(|m| scene.materials.get(m))
                .and_then(|m| m.name.as_deref())
                == Some(name);
            if named {
                out.extend_from_slice(&p.positions);
            }
        }
    }
    out
}

/// A triangle of the drawn mesh in world space.
struct WorldTriangle {
    corners: [Vec3; 3],
    centre: Vec3,
    normal: Vec3,
}

impl WorldTriangle {
    /// Points spread over the triangle (a barycentric grid, corners and edges left out).
    fn points(&self) -> impl Iterator<Item = Vec3> + '_ {
        const N: usize = 6;
        (1..N).flat_map(move |i| {
            (1..N - i).map(move |j| {
                let (a, b) = (i as f32 / N as f32, j as f32 / N as f32);
                let [p, q, r] = self.corners;
                p * a + q * b + r * (1.0 - a - b)
            })
        })
    }
}

/// The triangles of level of detail `lod` of `body` whose corners all lie on `positions`,
/// posed (idle, time 0) and placed at `at`.
fn posed_triangles(
    assets: &mut CrowdAssets,
    body: usize,
    lod: usize,
    positions: &[Vec3],
    at: Vec2,
    heading: f32,
) -> Vec<WorldTriangle> {
    let (mut scratch, mut palette) = (Vec::new(), Vec::new());
    assets.cpu_palette(
        body,
        &AnimState::new(ClipKind::Idle, 0.0),
        &mut scratch,
        &mut palette,
    );
    let b = &assets.bodies[body];
    let world = person_world(b, at, heading, 1.0);
    let Some(mesh) = assets.submeshes[b.submesh].lods[lod].as_ref() else {
        return Vec::new();
    };
    let on = |p: Vec3| positions.iter().any(|q| q.distance_squared(p) < 1e-10);
    let mut out = Vec::new();
    for t in mesh.indices.chunks_exact(3) {
        let v = [t[0], t[1], t[2]].map(|i| &mesh.vertices[i as usize]);
        if !v.iter().all(|v| on(v.position)) {
            continue;
        }
        let p = v.map(|v| world.transform_point3(v.skinned(&palette, mesh.influences).0));
        let normal = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
        out.push(WorldTriangle {
            corners: p,
            centre: (p[0] + p[1] + p[2]) / 3.0,
            normal,
        });
    }
    out
}

/// The `q` quantile of `v` (NaN when empty).
fn quantile(mut v: Vec<f32>, q: f32) -> f32 {
    if v.is_empty() {
        return f32::NAN;
    }
    v.sort_by(f32::total_cmp);
    v[((v.len() - 1) as f32 * q) as usize]
}

/// The `q` quantile of the luminance of the pixels under points of `tris` that face the
/// camera and lie within `radius` of `centre`.
fn region_luma(
    tris: &[WorldTriangle],
    (centre, radius): (Vec3, f32),
    q: f32,
    cam: &ViewCamera,
    img: &(i32, i32, Vec<u8>),
) -> f32 {
    let (w, h, bytes) = img;
    let mut out = Vec::new();
    for t in tris {
        if t.normal.dot(cam.eye - t.centre) <= 0.0 {
            continue;
        }
        for p in t.points().filter(|p| p.distance(centre) < radius) {
            let ndc = cam.view_proj.project_point3(p);
            // Screen data rows run bottom-up, like GL.
            let x = ((ndc.x * 0.5 + 0.5) * *w as f32) as i32;
            let y = ((ndc.y * 0.5 + 0.5) * *h as f32) as i32;
            if x < 0 || y < 0 || x >= *w || y >= *h {
                continue;
            }
            let i = ((y * w + x) * 4) as usize;
            out.push(
                bytes[i] as f32 * 0.3 + bytes[i + 1] as f32 * 0.59 + bytes[i + 2] as f32 * 0.11,
            );
        }
    }
    quantile(out, q)
}

struct Scene<'a> {
    loader: &'a mut CrowdAssetLoader,
    game: &'a Game,
    renderer: &'a mut Renderer,
    pass: &'a mut CrowdPass,
}

/// One picture of body `body` alone at level of detail `lod` with skin `tone`, seen by `cam`.
async fn shoot(
    s: &mut Scene<'_>,
    body: usize,
    lod: usize,
    vat: bool,
    tone: f32,
    (at, heading): (Vec2, f32),
    cam: ViewCamera,
) -> (i32, i32, Vec<u8>) {
    let gl = unsafe { get_internal_gl() };
    let ctx = gl.quad_context;
    let assets = s.loader.assets().expect("plaza crowd assets");
    let source = CrowdSource {
        assets,
        version: 1 + vat as u64,
        uniform_cap: None,
        vat,
        impostors: false,
    };
    s.pass.sync(ctx, &source, s.renderer.shadow_map());
    let b = &assets.bodies[body];
    let mut frame = CrowdFrame::default();
    for list in &mut frame.lists {
        list.resize(assets.submeshes.len(), Vec::new());
    }
    let world = person_world(b, at, heading, 1.0);
    let block = &mut frame.lists[lod][b.submesh];
    for r in 0..3 {
        block.push(world.row(r).to_array());
    }
    block.push([0.5, 0.5, 0.5, 1.0]);
    let anim = anim_vector(b, &AnimState::new(ClipKind::Idle, 0.0), tone);
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
    draw_frame(ctx, s.renderer, &rw, layers);
    let img = get_screen_data();
    let shot = (img.width as i32, img.height as i32, img.bytes.clone());
    next_frame().await;
    shot
}

async fn run_all() -> Checks {
    let mut c = Checks::default();
    support::say("crowd face checks:");
    let root = support::project_root();
    let level = load_level(&root.join("levels/plaza.ron"), &root).expect("plaza");
    let mut loader = CrowdAssetLoader::new(root.clone(), "levels/plaza.ron".into());
    loader.sync(&level);
    // Nobody else: the person drawn is the only one on screen.
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
    // Away from the fountain and the benches, on open paving.
    let at = Vec2::new(-6.0, 12.0);
    let sun = level.lighting.sun_direction;
    let sun_side = -Vec3::new(sun.x, 0.0, sun.z).normalize();
    let mut faces = 0;
    for model in &level.crowd.models {
        let scene = throng::asset::load_file(&root.join(&model.path)).expect("model imports");
        let eyes = material_positions(&scene, "Face");
        let skin = material_positions(&scene, "Skin");
        // Only bodies whose skin takes the tone (the pug keeps its own colours).
        if eyes.is_empty() || skin.is_empty() || model.skin_materials == Some(Vec::new()) {
            continue;
        }
        faces += 1;
        let assets = s.loader.assets_mut().expect("plaza crowd assets");
        let Some(body) = assets.bodies.iter().position(|b| b.name == model.name) else {
            c.check(false, format!("{}: a body of the plaza", model.name));
            continue;
        };
        for (lod, vat) in [(0, false), (1, false), (1, true)] {
            let assets = s.loader.assets_mut().expect("plaza crowd assets");
            // Facing the sun (heading h faces (-sin h, 0, -cos h)), so the face is lit.
            let heading = (-sun_side.x).atan2(-sun_side.z);
            let eye_tris = posed_triangles(assets, body, lod, &eyes, at, heading);
            let skin_tris = posed_triangles(assets, body, lod, &skin, at, heading);
            let label = format!(
                "{} at {}{}",
                model.name,
                ["near", "mid"][lod],
                if vat { " (VAT)" } else { "" }
            );
            if eye_tris.is_empty() {
                c.check(false, format!("{label}: the mesh keeps its eye triangles"));
                continue;
            }
            // Face to face, half a metre away, looking at the middle of eyes and brows.
            let n = sun_side;
            let centre = eye_tris.iter().map(|t| t.centre).sum::<Vec3>() / eye_tris.len() as f32;
            let eye = centre + n * 0.5;
            let (sw, sh) = (
                macroquad::prelude::screen_width(),
                macroquad::prelude::screen_height(),
            );
            let cam = ViewCamera {
                view_proj: Mat4::perspective_rh_gl(40f32.to_radians(), sw / sh, 0.05, 100.0)
                    * Mat4::look_at_rh(eye, centre, Vec3::Y),
                eye,
                fov_y: 40f32.to_radians(),
                screen_size: (sw, sh),
            };
            support::say(&format!(
                "    {label}: {} eye, {} face-skin triangles",
                eye_tris.len(),
                skin_tris.len()
            ));
            let mut lumas = Vec::new();
            for tone in [LIGHT, DARK] {
                let img = shoot(&mut s, body, lod, vat, tone, (at, heading), cam).await;
                lumas.push((
                    // The lower quartile: the simplified head and the hair may cover parts of the
                    // eye and brow shells, so not every point of them is in sight.
                    region_luma(&eye_tris, (centre, f32::INFINITY), 0.25, &cam, &img),
                    // The skin of the face about the eyes, by its median.
                    region_luma(&skin_tris, (centre, 0.1), 0.5, &cam, &img),
                ));
            }
            let [(eye_light, skin_light), (eye_dark, skin_dark)] = [lumas[0], lumas[1]];
            c.check(
                eye_light < 0.5 * skin_light && eye_dark < 0.5 * skin_dark,
                format!(
                    "{label}: eyes and brows stay dark on light skin ({eye_light:.0} vs skin \
                     {skin_light:.0}) and on dark skin ({eye_dark:.0} vs {skin_dark:.0})"
                ),
            );
            c.check(
                skin_light > skin_dark + 40.0 && (eye_light - eye_dark).abs() < 25.0,
                format!(
                    "{label}: the skin follows the tone ({skin_light:.0} -> {skin_dark:.0}), the \
                     eyes do not ({eye_light:.0} -> {eye_dark:.0})"
                ),
            );
        }
    }
    c.check(
        faces == 6,
        format!("{faces} plaza bodies have a tinted skin and a Face material (the six Quaternius people)"),
    );
    c
}

fn main() {
    support::gl_checks::run_in_window("crowd face test", 640, 480, run_all);
}

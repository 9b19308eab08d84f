//! The crowd's GPU side on a real GL context (Xvfb when there is no screen):
//! - a crowd renderer that cannot be built is tried once per (assets, cap), not every frame;
//! - it is rebuilt when the cap or the assets' version changes, and not otherwise;
//! - a render world extracted from the plaza draws exactly the people it lists.
//!
//! A harness-less test: macroquad wants the main thread and one window per process.

mod support;

use macroquad::prelude::{get_internal_gl, next_frame, screen_height, screen_width};
use support::gl_checks::Checks;
use throng::crowd_assets::loader::CrowdAssetLoader;
use throng::extract::{Extractor, Screen};
use throng::game::{Game, GameOptions};
use throng::level::load_level;
use throng::render::crowd_pass::CrowdPass;
use throng::render::frame::{draw_frame, FrameLayers};
use throng::render::Renderer;
use throng::settings::ViewSettings;
use throng::view::render_world::CrowdSource;

async fn run_all() -> Checks {
    let mut c = Checks::default();
    support::say("crowd pass checks:");
    let root = support::project_root();
    let level = load_level(&root.join("levels/plaza.ron"), &root).expect("plaza");
    let mut loader = CrowdAssetLoader::new(root.clone(), "levels/plaza.ron".into());
    loader.sync(&level);
    let mut game = Game::new(
        level,
        GameOptions {
            crowd: Some(400),
            seed: None,
        },
    );
    game.frame(1.0 / 60.0, &Default::default());
    let gl = unsafe { get_internal_gl() };
    let ctx = gl.quad_context;
    let mut renderer = Renderer::new(ctx).expect("plaza renderer");
    let mut pass = CrowdPass::default();
    let assets = loader.assets().expect("plaza crowd assets");
    let source = |cap, version| CrowdSource {
        assets,
        version,
        uniform_cap: cap,
        vat: false,
        impostors: false,
    };

    // 8 vectors leave no room for one instance: the build fails, once.
    for _ in 0..10 {
        pass.sync(ctx, &source(Some(8), 1), renderer.shadow_map());
    }
    c.check(
        pass.builds() == 1 && !pass.ready(),
        format!(
            "a failing build is tried once in 10 frames ({} builds)",
            pass.builds()
        ),
    );
    let error = pass.error.clone().unwrap_or_default();
    c.check(
        error.contains("vertex uniform vectors"),
        format!("its error says why: {error}"),
    );
    for _ in 0..5 {
        pass.sync(ctx, &source(None, 1), renderer.shadow_map());
    }
    c.check(
        pass.builds() == 2 && pass.ready() && pass.error.is_none(),
        format!(
            "another cap builds once and works ({} builds)",
            pass.builds()
        ),
    );
    pass.sync(ctx, &source(None, 2), renderer.shadow_map());
    c.check(
        pass.builds() == 3 && pass.ready(),
        "new assets are uploaded again".into(),
    );

    let mut extractor = Extractor::default();
    let screen = Screen::window(screen_width(), screen_height());
    let view = ViewSettings::default();
    let world = extractor.extract(&game, &view, loader.assets_mut(), screen);
    let layers = FrameLayers {
        crowd: &mut pass,
        hero: None,
    };
    let stats = draw_frame(ctx, &mut renderer, &world, layers);
    let drawn: u32 = stats.instances_per_lod.iter().sum();
    c.check(
        world.people.drawn > 0 && drawn as usize == world.people.drawn && stats.draw_calls > 0,
        format!(
            "the pass draws the people the world lists: {} listed, {drawn} drawn in {} draws",
            world.people.drawn, stats.draw_calls
        ),
    );
    next_frame().await;
    c
}

fn main() {
    support::gl_checks::run_in_window("crowd pass test", 640, 480, run_all);
}

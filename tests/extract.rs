//! The extract step: the render world one frame draws, built from the game and the player's
//! settings without a window. Real plaza level, real crowd and hero models.

use std::path::Path;

use throng::crowd_assets::loader::CrowdAssetLoader;
use throng::extract::{Extractor, Screen};
use throng::game::{Game, GameOptions};
use throng::hero::Hero;
use throng::level::{load_level, Level};
use throng::settings::ViewSettings;
use throng::view::render_world::{CrowdInstances, MarkerPath};

const SCREEN: Screen = Screen {
    size: (1280.0, 720.0),
    aspect: 1280.0 / 720.0,
};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn plaza_level() -> Level {
    load_level(&root().join("levels/plaza.ron"), root()).expect("plaza loads")
}

fn plaza(crowd: u32) -> Game {
    Game::new(
        plaza_level(),
        GameOptions {
            crowd: Some(crowd),
            seed: None,
        },
    )
}

fn loader() -> CrowdAssetLoader {
    CrowdAssetLoader::new(root().to_path_buf(), "levels/plaza.ron".into())
}

#[test]
fn without_crowd_models_everyone_is_a_marker_drawn_culled_or_beyond_exactly_once() {
    let game = plaza(2000);
    let mut ex = Extractor::default();
    let world = ex.extract(&game, &ViewSettings::default(), None, SCREEN);
    let CrowdInstances::Markers(_) = world.crowd else {
        panic!("no crowd assets: markers stand in");
    };
    let p = world.people;
    assert_eq!(p.drawn + p.culled + p.beyond, 2000, "{p:?}");
    assert!(p.drawn > 0 && p.culled > 0, "{p:?}");
    assert_eq!(world.marker_path, MarkerPath::Instanced);
    assert!(!world.overview);
    assert_eq!(world.camera, world.player);
    assert_eq!(world.scenery_version, game.scenery_version());
}

#[test]
fn the_culling_view_draws_from_a_second_camera_but_culls_with_the_players() {
    let game = plaza(2000);
    let mut ex = Extractor::default();
    let normal = ex
        .extract(&game, &ViewSettings::default(), None, SCREEN)
        .people;
    let view = ViewSettings {
        cull_view: true,
        ..Default::default()
    };
    let world = ex.extract(&game, &view, None, SCREEN);
    assert!(world.overview);
    assert_ne!(world.camera.eye, world.player.eye);
    assert_eq!(world.people, normal, "culling still follows the player");
}

#[test]
fn skinned_people_are_packed_per_level_and_the_naive_path_draws_everyone() {
    let game = plaza(600);
    let mut assets = loader();
    assets.sync(game.level());
    assert_eq!(assets.error, None);
    assert_eq!(assets.version(), 1);
    let mut ex = Extractor::default();
    let world = ex.extract(&game, &ViewSettings::default(), assets.assets_mut(), SCREEN);
    let CrowdInstances::Skinned(frame) = world.crowd else {
        panic!("assets loaded: skinned people");
    };
    let p = world.people;
    assert_eq!(p.drawn + p.culled + p.beyond, 600, "{p:?}");
    assert_eq!(
        frame.counts.per_lod.iter().sum::<u32>() as usize,
        p.drawn,
        "every drawn person sits in one level"
    );
    // Bodies plus the props and attachments they wear, per level; people in a cross-fade band
    // twice (with what they wear).
    let listed: usize = (0..frame.lists.len()).map(|l| frame.instances_at(l)).sum();
    let c = frame.counts;
    assert!(c.fading > 0, "some people stand in a band: {c:?}");
    let bodies = p.drawn + c.fading as usize;
    assert_eq!(listed, bodies + c.props as usize + c.attachments as usize);
    let hard = ViewSettings {
        lod_fade: false,
        ..Default::default()
    };
    ex.extract(&game, &hard, assets.assets_mut(), SCREEN);
    let world = ex.extract(&game, &hard, assets.assets_mut(), SCREEN);
    let CrowdInstances::Skinned(frame) = world.crowd else {
        panic!("assets loaded: skinned people");
    };
    let c = frame.counts;
    assert_eq!(c.fading, 0, "--no-lod-fade lists everyone once");
    let listed: usize = (0..frame.lists.len()).map(|l| frame.instances_at(l)).sum();
    assert_eq!(
        listed,
        world.people.drawn + c.props as usize + c.attachments as usize
    );
    // The plaza's impostors (from 60 m) are pictures of the body alone: one block each.
    assert!(c.per_lod[3] > 0, "{c:?}");
    assert_eq!(frame.instances_at(3), c.per_lod[3] as usize);

    let naive = ViewSettings {
        per_agent_draws: true,
        ..Default::default()
    };
    let world = ex.extract(&game, &naive, assets.assets_mut(), SCREEN);
    let CrowdInstances::Naive(frame) = world.crowd else {
        panic!("one draw per person");
    };
    assert_eq!(frame.people(), 600);
    assert_eq!(world.people.drawn, 600);
    assert_eq!(world.marker_path, MarkerPath::PerAgent);
}

#[test]
fn a_reload_naming_a_broken_crowd_model_keeps_the_running_crowd() {
    let level = plaza_level();
    let mut assets = loader();
    assets.sync(&level);
    assert_eq!(assets.version(), 1);
    let bodies = assets.assets().map(|a| a.bodies.len());

    let mut broken = level.clone();
    broken.crowd.models[0].path = "assets/no-such-person.glb".into();
    assets.sync(&broken);
    let error = assets.error.clone().expect("the broken model is reported");
    assert!(error.contains("no-such-person.glb"), "{error}");
    assert!(error.contains("keeps its models"), "{error}");
    assert_eq!(assets.version(), 1, "nothing new to upload");
    assert_eq!(assets.assets().map(|a| a.bodies.len()), bodies);
    // Not retried every frame.
    assets.sync(&broken);
    assert_eq!(assets.version(), 1);

    assets.sync(&level);
    assert_eq!(assets.error, None);
    assert_eq!(assets.version(), 2, "the fixed level loads again");
}

#[test]
fn the_hero_is_culled_next_to_the_crowd_and_its_palettes_carry_versions() {
    let mut game = plaza(0);
    let level = game.level().clone();
    let scene = throng::asset::load_file(&root().join(&level.hero.model)).expect("hero model");
    game.attach_hero(Hero::new(scene, &level.hero, &level));
    game.frame(1.0 / 60.0, &Default::default());
    let hero_at = game.hero.as_ref().expect("hero").focus_point();
    game.camera.orbit.target = hero_at;
    game.camera.orbit.distance = 6.0;
    let mut ex = Extractor::default();
    let (visible, versions) = {
        let world = ex.extract(&game, &ViewSettings::default(), None, SCREEN);
        let hero = world.hero.expect("a hero");
        let versions: Vec<u64> = hero
            .palettes
            .groups()
            .iter()
            .map(|g| g.palette.version)
            .collect();
        (hero.visible, versions)
    };
    assert!(visible, "looked at");
    assert!(versions.iter().all(|&v| v > 0), "{versions:?}");

    // Looking away from the hero, who stands behind the camera: not drawn, still there to
    // cast a shadow. Of the four headings, the one whose eye sits between hero and target.
    game.camera.orbit.target = hero_at + glam::Vec3::new(0.0, 0.0, 40.0);
    game.camera.orbit.distance = 2.0;
    game.camera.orbit.pitch = 0.1;
    let mut behind = 0;
    for k in 0..4 {
        game.camera.orbit.yaw = k as f32 * std::f32::consts::FRAC_PI_2;
        let world = ex.extract(&game, &ViewSettings::default(), None, SCREEN);
        let eye = world.player.eye;
        let hero = world.hero.expect("a hero");
        if eye.distance(hero_at) < game.camera.orbit.target.distance(hero_at) - 1.0 {
            behind += 1;
            assert!(!hero.visible, "hero behind the camera at {eye:?}");
            let again: Vec<u64> = hero
                .palettes
                .groups()
                .iter()
                .map(|g| g.palette.version)
                .collect();
            assert_eq!(again, versions, "no new pose: nothing to upload");
        }
    }
    assert_eq!(behind, 1, "one heading looks away from the hero");
}

/// Everyone in the crowd is drawn, culled, beyond the far distance or still spawning, exactly
/// once, on every path and every frame of a crowd growing from 300 to 6,000, while newcomers
/// are added in batches and pop in one after another.
#[test]
fn while_the_crowd_grows_the_counts_always_add_up_to_the_people_there_are() {
    let mut game = plaza(300);
    let mut assets = loader();
    assets.sync(game.level());
    let mut ex = Extractor::default();
    let naive = ViewSettings {
        per_agent_draws: true,
        ..Default::default()
    };
    game.set_crowd_count(6000);
    let mut saw_spawning = false;
    let mut sizes = Vec::new();
    for _ in 0..90 {
        game.frame(1.0 / 60.0, &throng::game::FrameInput::default());
        let people = game.agents.len();
        sizes.push(people);
        for (view, with_assets) in [
            (ViewSettings::default(), true),
            (naive, true),
            (ViewSettings::default(), false),
        ] {
            let a = if with_assets {
                assets.assets_mut()
            } else {
                None
            };
            let p = ex.extract(&game, &view, a, SCREEN).people;
            assert_eq!(p.total(), people, "{p:?} of {people}");
            saw_spawning |= p.spawning > 0;
        }
    }
    assert!(saw_spawning, "newcomers wait their turn to pop in");
    assert_eq!(sizes.last(), Some(&6000));
    assert!(sizes[0] < 6000, "spawned over several frames: {sizes:?}");
}

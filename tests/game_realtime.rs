//! The game in real time, as plain data: the hero keeps walking in real time when the crowd's
//! steps are capped, and the follow camera never ends up inside a person or a prop while the
//! hero walks through a dense crowd.

mod support;

use glam::{Vec2, Vec3};
use support::{assert_approx, load, project_root};
use throng::crowd::BODY_RADIUS;
use throng::footprint::Shape;
use throng::game::clock::FixedStepClock;
use throng::game::{Action, FrameInput, Game, GameOptions, SIM_RATE};
use throng::hero::Hero;
use throng::level::{load_level, Level};

fn minimal() -> Level {
    let path = project_root().join("tests/fixtures/levels/minimal.ron");
    load_level(&path, &project_root()).unwrap_or_else(|e| panic!("{e}"))
}

/// A game on the minimal level with the hero at `at`, followed by the camera.
fn following(level: &Level, crowd: u32, at: Vec2) -> Game {
    let options = GameOptions {
        crowd: Some(crowd),
        seed: None,
    };
    let mut game = Game::new(level.clone(), options);
    let mut hero = Hero::new(load("Godette_vrm_v4.vrm"), &level.hero, level);
    hero.controller.position = at;
    game.attach_hero(hero);
    game.frame(
        0.0,
        &FrameInput {
            actions: vec![Action::ToggleFollow],
            ..Default::default()
        },
    );
    game
}

#[test]
fn the_hero_walks_in_real_time_when_the_crowd_cannot_keep_up() {
    let level = minimal();
    let mut game = following(&level, 100, Vec2::new(-12.0, 0.0));
    // The crowd may run 5 steps a frame whatever they cost: at 2 frames a second it advances
    // 1/6 of real time.
    game.clock = FixedStepClock::new(SIM_RATE).with_max_steps_per_frame(5);
    let mut input = FrameInput::default();
    input.camera.movement = Vec3::new(0.0, 0.0, 1.0);
    let start = game.hero.as_ref().unwrap().position();
    for _ in 0..8 {
        game.frame(0.5, &input);
    }
    let walked = game.hero.as_ref().unwrap().position().distance(start);
    assert_approx!(game.sim_time(), 8.0 * 5.0 / 60.0, 1e-3);
    assert_approx!(game.hero_seconds(), 4.0, 1e-3);
    // Walking speed is about 1.4 m/s: four seconds of it, not two thirds of a second.
    assert!(walked > 4.0, "the hero walked {walked} m in 4 s");
    let behind = game
        .clock
        .speed
        .behind()
        .expect("the clock says it is behind");
    assert_approx!(behind, 1.0 / 6.0, 1e-3);
}

/// Whether `eye` is inside a person standing at `p` (their body: the crowd's collision disc,
/// 1.9 m tall).
fn inside_person(eye: Vec3, p: Vec2) -> bool {
    eye.y <= 1.9 && Vec2::new(eye.x, eye.z).distance(p) < BODY_RADIUS
}

fn inside_prop(eye: Vec3, shape: &Shape, height: f32) -> bool {
    eye.y <= height && shape.signed_distance(Vec2::new(eye.x, eye.z)).0 < 0.0
}

#[test]
fn the_follow_camera_never_ends_up_inside_a_person_or_a_prop() {
    let level = minimal();
    // 1500 people on a 40 m square, most of them along the ring path round the fountain.
    let mut game = following(&level, 1500, Vec2::new(0.0, 14.0));
    let mut input = FrameInput::default();
    input.camera.movement = Vec3::new(0.0, 0.0, 1.0);
    // Low behind the hero, at head height: where crowds fill the screen.
    input.camera.look_delta = Vec2::new(0.0, -400.0);
    game.frame(1.0 / 60.0, &input);
    let (mut pulled, mut frames) = (0, 0);
    let (mut lowest, mut highest) = (f32::INFINITY, f32::NEG_INFINITY);
    for i in 0..600 {
        // Keep walking and swing the camera round the hero now and then.
        input.camera.look_delta = Vec2::new(if i % 120 < 30 { 6.0 } else { 0.0 }, 0.0);
        game.frame(1.0 / 60.0, &input);
        let eye = game.camera.eye();
        for (k, &p) in game.agents.pos.iter().enumerate() {
            assert!(
                !inside_person(eye, p),
                "frame {i}: the camera {eye} is inside person {k} at {p} (target {}, hero {}, reach {})",
                game.camera.follow.target,
                game.hero.as_ref().unwrap().focus_point(),
                game.camera.follow_reach
            );
        }
        for o in &game.level().obstacles {
            let height = throng::scenery::furniture::effective_height(o);
            assert!(
                !inside_prop(eye, &o.shape, height),
                "frame {i}: the camera {eye} is inside {}",
                o.name
            );
        }
        frames += 1;
        // Moved for someone: pulled in, or lifted over their heads.
        let placed = game.camera.follow_view();
        lowest = lowest.min(placed.pitch);
        highest = highest.max(placed.pitch);
        pulled += usize::from(
            placed.distance < game.camera.follow.distance - 0.01
                || placed.pitch > game.camera.follow.pitch + 0.01,
        );
    }
    // The crowd really was in the way (else this proves nothing). At head height in a crowd
    // of one person per square metre someone is always near the lens, so the camera is moved
    // on every frame, but by what each frame needs, not lifted once and left there.
    assert!(
        pulled > 10,
        "moved for people on {pulled} of {frames} frames"
    );
    assert!(
        highest - lowest > 0.03,
        "the pitch stayed between {lowest} and {highest}"
    );
}

//! The follow camera keeps clear of faces: on the plaza and the market, with their full crowds,
//! nobody's head comes within 1.2 m of the lens, at start (standing in the crowd) and while
//! the hero runs (round the autopilot's circle, then straight ahead on the player's keys).
//! Plain data: the game is stepped without a window.

mod support;

use glam::{Vec2, Vec3};
use support::{load, project_root};
use throng::crowd::head_turn::EYE_HEIGHT_SHARE;
use throng::game::{Action, FrameInput, Game, GameOptions};
use throng::hero::Hero;
use throng::level::{load_level, CameraMode};
use throng::view::crowd_pack::person_scale;

/// The bound: a head nearer the lens than this fills a good part of the screen.
const MIN_HEAD_DISTANCE: f32 = 1.2;
const FRAMES: usize = 600;
const DT: f64 = 1.0 / 60.0;

/// The level's game with its own crowd, the hero at its spawn and the follow camera on, as
/// `throng --follow` starts it.
fn following(level_file: &str) -> Game {
    let root = project_root();
    let level = load_level(&root.join(level_file), &root).unwrap_or_else(|e| panic!("{e}"));
    let mut game = Game::new(level.clone(), GameOptions::default());
    game.attach_hero(Hero::new(load("Godette_vrm_v4.vrm"), &level.hero, &level));
    game.frame(
        0.0,
        &FrameInput {
            actions: vec![Action::ToggleFollow],
            ..Default::default()
        },
    );
    assert_eq!(game.camera.mode, CameraMode::Follow);
    game
}

/// Where person `i`'s head is: where they stand, at their eye height (the model's height,
/// the share of it the eyes are at, and the person's own scale).
fn head(game: &Game, i: usize) -> Vec3 {
    let p = game.agents.pos[i];
    let models = &game.level().crowd.models;
    let height = models[game.agents.variant[i].model as usize].height;
    Vec3::new(p.x, height * EYE_HEIGHT_SHARE * person_scale(i), p.y)
}

/// The nearest head to the camera's eye: (distance, person).
fn nearest_head(game: &Game) -> (f32, usize) {
    let eye = game.camera.eye();
    (0..game.agents.pos.len())
        .map(|i| (head(game, i).distance(eye), i))
        .fold(
            (f32::INFINITY, usize::MAX),
            |a, b| if b.0 < a.0 { b } else { a },
        )
}

/// Runs the level's 600 frames: standing still, then the autopilot's run, then running
/// straight on; every frame, every head at least 1.2 m from the eye. Returns how many frames
/// the camera had to leave the player's view (lifted or pulled in) for someone.
fn faces_stay_clear(level_file: &str) -> usize {
    let mut game = following(level_file);
    let start = game.hero.as_ref().expect("hero").position();
    let mut moved = 0;
    let mut travelled = 0.0f32;
    let (mut nearest, mut highest) = (f32::INFINITY, 0.0f32);
    let mut last = start;
    for frame in 0..FRAMES {
        let mut input = FrameInput::default();
        if frame == 100 {
            let p = game.hero.as_ref().expect("hero").position();
            game.hero_autopilot = Some((p + Vec2::new(-4.0, 0.0), 4.0, true));
        }
        if frame == 350 {
            game.hero_autopilot = None;
        }
        if frame >= 350 {
            input.camera.movement = Vec3::new(0.0, 0.0, 1.0);
            input.camera.fast = true;
        }
        game.frame(DT, &input);
        let (d, who) = nearest_head(&game);
        assert!(
            d >= MIN_HEAD_DISTANCE,
            "{level_file} frame {frame}: person {who}'s head {} is {d:.2} m from the eye {} \
             (hero at {}, player's distance {:.2} pitch {:.2}, placed {:?})",
            head(&game, who),
            game.camera.eye(),
            game.hero.as_ref().expect("hero").position(),
            game.camera.follow.distance,
            game.camera.follow.pitch,
            game.camera.follow_view(),
        );
        let placed = game.camera.follow_view();
        nearest = nearest.min(d);
        highest = highest.max(placed.pitch - game.camera.follow.pitch);
        moved += usize::from(
            placed.distance < game.camera.follow.distance - 0.01
                || placed.pitch > game.camera.follow.pitch + 0.01,
        );
        let p = game.hero.as_ref().expect("hero").position();
        travelled += p.distance(last);
        last = p;
    }
    eprintln!(
        "{level_file}: nearest head {nearest:.2} m, moved on {moved} of {FRAMES} frames, \
         lifted at most {:.1} degrees, ran {travelled:.1} m",
        highest.to_degrees()
    );
    // The hero really ran (4.5 m/s for most of 8 seconds), so "running" was tested.
    assert!(
        travelled > 25.0,
        "{level_file}: the hero ran only {travelled} m"
    );
    moved
}

#[test]
fn on_the_market_no_head_comes_near_the_follow_camera() {
    let moved = faces_stay_clear("levels/market.ron");
    // The hero starts among the crowd at the street's south end: the camera had to make room.
    assert!(moved > 0, "the camera never had to move for anyone");
}

#[test]
fn on_the_plaza_no_head_comes_near_the_follow_camera() {
    faces_stay_clear("levels/plaza.ron");
}

//! A crowd with a step rate of its own (`crowd.tick_hz: 30`, `--crowd-hz 30`): it steps every
//! other world step with twice the time, keeps simulated time with the world, and is drawn
//! between its last two steps so people move on every frame.

use glam::Vec2;
use throng::game::{FrameInput, Game, GameOptions};
use throng::level::{load_level, parse_level};

fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn plaza(hz: Option<u32>) -> Game {
    let level = load_level(&root().join("levels/plaza.ron"), root()).expect("plaza loads");
    let mut game = Game::new(
        level,
        GameOptions {
            crowd: Some(300),
            seed: None,
        },
    );
    game.set_crowd_tick_hz(hz);
    game
}

/// Runs `frames` frames of 1/60 s; returns every person's drawn position after each.
fn run(game: &mut Game, frames: usize) -> Vec<Vec<Vec2>> {
    (0..frames)
        .map(|_| {
            game.frame(1.0 / 60.0, &FrameInput::default());
            let (pos, _) = game.agents.drawn_poses();
            pos.to_vec()
        })
        .collect()
}

#[test]
fn at_30_hz_the_crowd_steps_half_as_often_and_keeps_simulated_time() {
    let (mut full, mut half) = (plaza(None), plaza(Some(30)));
    assert_eq!((full.crowd_every(), half.crowd_every()), (1, 2));
    run(&mut full, 120);
    run(&mut half, 120);
    assert_eq!(full.agents.steps(), 120);
    assert_eq!(half.agents.steps(), 60);
    assert!((full.sim_time() - 2.0).abs() < 1e-6, "{}", full.sim_time());
    assert!((half.sim_time() - 2.0).abs() < 1e-6, "{}", half.sim_time());
    // Both crowds walked about as far in those two seconds (the same people, the same goals).
    let walked = |g: &Game| -> f32 {
        g.agents.vel.iter().map(|v| v.length()).sum::<f32>() / g.agents.len() as f32
    };
    let (a, b) = (walked(&full), walked(&half));
    assert!(
        (a - b).abs() < 0.25 * a.max(0.1),
        "mean speed {a} at 60 Hz, {b} at 30 Hz"
    );
}

#[test]
fn at_30_hz_people_are_drawn_moving_on_every_frame_between_their_steps() {
    let mut game = plaza(Some(30));
    let frames = run(&mut game, 90);
    // Someone who walks all the time, from the second crowd step on.
    let walking: Vec<usize> = (0..frames[0].len())
        .filter(|&i| (20..90).all(|f| frames[f][i].distance(frames[f - 1][i]) > 1e-4))
        .collect();
    assert!(
        walking.len() > 50,
        "only {} of {} people moved on every frame",
        walking.len(),
        frames[0].len()
    );
    // Drawn a crowd step behind: halfway between the last two steps after the odd world
    // step, exactly at the previous step after the even one.
    for &i in walking.iter().take(20) {
        let (a, b, c) = (frames[40][i], frames[41][i], frames[42][i]);
        let half = (a + c) * 0.5;
        assert!(
            b.distance(half) < 0.05,
            "person {i}: {a} {b} {c} do not glide evenly"
        );
    }
    // Back at 60 Hz the crowd is drawn where it is.
    game.set_crowd_tick_hz(None);
    game.frame(1.0 / 60.0, &FrameInput::default());
    let (pos, _) = game.agents.drawn_poses();
    assert_eq!(pos, &game.agents.pos[..]);
}

#[test]
fn a_level_asks_for_30_hz_and_other_rates_are_refused_with_the_allowed_ones() {
    let text = std::fs::read_to_string(root().join("levels/plaza.ron")).expect("plaza");
    let with = |hz: &str| text.replacen("seed: ", &format!("tick_hz: {hz},\n        seed: "), 1);
    let level = parse_level(&with("30"), "plaza.ron", root()).expect("30 Hz loads");
    assert_eq!(level.crowd.tick_hz, 30);
    let game = Game::new(level, GameOptions::default());
    assert_eq!(game.crowd_every(), 2);
    let err = parse_level(&with("45"), "plaza.ron", root())
        .expect_err("45 Hz is refused")
        .to_string();
    assert!(
        err.contains("crowd.tick_hz: 45 is not a crowd step rate; allowed: 60 or 30"),
        "{err}"
    );
}

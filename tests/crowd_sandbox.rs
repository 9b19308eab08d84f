//! The sandbox's crowd, measured headless: a performer draws a ring of watchers facing it, at a
//! distance in a band, nobody on the mat, a walkway past it that people cross; the share of
//! passers-by who stop rises with the crowd already watching; a fence dropped across a busy
//! path re-routes walkers within 2 s with nobody inside it, and removing it restores the
//! straight ways; food stands' queues bend round obstacles and are served; the same scripted
//! actions give the same bits on 1, 2 and 8 threads; a person can be taken over and released.

use glam::Vec2;
use throng::crowd::{AgentState, Crowd, Plan, StepInputs};
use throng::level::{Level, Placed, ThingKind};

const DT: f32 = 1.0 / 60.0;

/// Writes straight to stderr, past the harness's capture, so CI logs show the numbers.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn plaza() -> Level {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("plaza.ron");
    throng::level::parse_level(&text, "plaza.ron", root).expect("plaza.ron parses")
}

fn thing(name: &str, kind: ThingKind, at: Vec2, heading_deg: f32) -> Placed {
    Placed {
        name: name.into(),
        kind,
        at,
        heading_deg,
    }
}

fn run(c: &mut Crowd, seconds: f32, mut each: impl FnMut(&Crowd)) {
    let steps = (seconds / DT).round() as usize;
    for _ in 0..steps {
        c.step(DT, &StepInputs::default());
        each(c);
    }
}

/// The performer at (0, 28), facing the fountain.
fn with_performer(count: usize, seed: u64) -> (Level, Crowd) {
    let mut level = plaza();
    let mut c = Crowd::from_level(&level, count, seed);
    level.placed.push(thing(
        "busker",
        ThingKind::Performer,
        Vec2::new(0.0, 28.0),
        180.0,
    ));
    c.set_placed(&level);
    (level, c)
}

#[test]
fn a_performer_draws_a_ring_that_faces_it_and_leaves_a_walkway() {
    for seed in [1u64, 2] {
        let (_, mut c) = with_performer(2_000, seed);
        // Until the performer is in place, then 60 s of show.
        let mut waited = 0;
        while !c.shows()[0].on {
            run(&mut c, 1.0, |_| {});
            waited += 1;
            assert!(
                waited < 60,
                "a performer was recruited and arrived within a minute"
            );
        }
        let show = c.shows()[0].clone();
        let (walk_in, walk_out) = show.walkway();
        let centre = show.spec.centre;
        let mut crossers = std::collections::HashSet::new();
        let mut last_side: Vec<Option<bool>> = vec![None; c.len()];
        run(&mut c, 60.0, |c| {
            // A passer crossing the walkway band from one side of the show's axis to the other.
            for i in 0..c.len() {
                if matches!(c.plan[i], Plan::Watch { .. } | Plan::Perform(_)) {
                    continue;
                }
                let d = c.pos[i].distance(centre);
                if d < walk_in || d > walk_out {
                    last_side[i] = None;
                    continue;
                }
                let side = (c.pos[i] - centre).perp_dot(show.spec.facing) > 0.0;
                if last_side[i].is_some_and(|s| s != side) {
                    crossers.insert(i);
                }
                last_side[i] = Some(side);
            }
        });
        let s = &c.shows()[0];
        let watchers: Vec<usize> = (0..c.len())
            .filter(|&i| c.state[i] == AgentState::Watching)
            .collect();
        let facing = watchers
            .iter()
            .filter(|&&i| {
                let h = c.heading[i];
                let ahead = Vec2::new(-h.sin(), -h.cos());
                ahead.angle_between(centre - c.pos[i]).abs() < 30f32.to_radians()
            })
            .count();
        let dists: Vec<f32> = watchers
            .iter()
            .map(|&i| c.pos[i].distance(centre))
            .collect();
        let mean = dists.iter().sum::<f32>() / dists.len().max(1) as f32;
        let sd = (dists.iter().map(|d| (d - mean).powi(2)).sum::<f32>()
            / dists.len().max(1) as f32)
            .sqrt();
        let on_mat = (0..c.len())
            .filter(|&i| c.pos[i].distance(centre) < s.spec.radius)
            .count();
        let in_walkway = watchers
            .iter()
            .filter(|&&i| {
                (walk_in..walk_out)
                    .contains(&dists[watchers.iter().position(|w| w == &i).unwrap_or(0)])
            })
            .count();
        say(&format!(
            "seed {seed}: {} watching ({} coming), {facing} face the show within 30°, distance {mean:.2} ± {sd:.2} m, {on_mat} on the mat, {in_walkway} watchers in the walkway, {} walkers crossed it",
            watchers.len(),
            s.coming,
            crossers.len()
        ));
        let power = c.drawing_power();
        say(&format!(
            "asked {:?} stopped {:?}",
            &power.asked[..12],
            &power.stopped[..12]
        ));
        assert!(
            watchers.len() >= 10,
            "a ring formed: {} watchers",
            watchers.len()
        );
        assert!(
            facing as f32 >= 0.8 * watchers.len() as f32,
            "{facing} of {} face the show",
            watchers.len()
        );
        assert!(mean > s.spec.radius + 0.5 && mean < s.outer_radius() + 0.3);
        assert_eq!(on_mat, 0, "nobody stands on the performance circle");
        assert_eq!(in_walkway, 0, "no watcher stands in the walkway");
        assert!(
            crossers.len() >= 3,
            "people cross the walkway: {}",
            crossers.len()
        );
    }
}

#[test]
fn a_thing_placed_in_the_running_game_keeps_everyone_off_it() {
    use throng::game::{FrameInput, Game, GameOptions};
    let level = plaza();
    let options = GameOptions {
        crowd: Some(2_000),
        seed: None,
    };
    let mut game = Game::new(level, options);
    let at = Vec2::new(-12.0, 14.0);
    game.set_placed(vec![thing("busker", ThingKind::Performer, at, 30.0)]);
    for frame in 0..600 {
        game.frame(1.0 / 60.0, &FrameInput::default());
        let inside = (0..game.agents.len())
            .filter(|&i| game.agents.pos[i].distance(at) < 1.2)
            .count();
        assert_eq!(inside, 0, "frame {frame}: {inside} on the mat");
    }
}

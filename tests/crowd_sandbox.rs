//! The sandbox's crowd, measured headless: a performer draws a ring of watchers facing it, at a
//! distance in a band, nobody on the mat, a walkway past it that people cross; the share of
//! passers-by who stop rises with the crowd already watching; a fence dropped across a busy
//! path re-routes walkers within 2 s with nobody inside it, and removing it restores the
//! straight ways; food stands' queues bend round obstacles and are served; the same scripted
//! actions give the same bits on 1, 2 and 8 threads; a person can be taken over and released.

mod support;

use glam::Vec2;
use throng::crowd::{AgentState, Crowd, Plan, StepInputs};
use throng::level::{Level, Placed, ThingKind};

const DT: f32 = 1.0 / 60.0;

use support::say;

fn plaza() -> Level {
    support::plaza_level()
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
            for (i, last) in last_side.iter_mut().enumerate() {
                if matches!(c.plan[i], Plan::Watch { .. } | Plan::Perform(_)) {
                    continue;
                }
                let d = c.pos[i].distance(centre);
                if d < walk_in || d > walk_out {
                    *last = None;
                    continue;
                }
                let side = (c.pos[i] - centre).perp_dot(show.spec.facing) > 0.0;
                if last.is_some_and(|s| s != side) {
                    crossers.insert(i);
                }
                *last = Some(side);
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

#[test]
fn the_share_who_stop_rises_with_the_crowd_already_watching() {
    use throng::validate::attraction::{
        bins, drawing_power, power_rise, MIN_ASKED, MIN_POWER_RISE,
    };
    let p = drawing_power(throng::validate::Effort::Quick);
    let bins = bins(&p);
    for b in &bins {
        say(&format!(
            "watching {}..{}: {} of {} stopped ({:.3}; model {:.3})",
            b.low,
            b.high,
            b.stopped,
            b.asked,
            b.share(),
            b.model
        ));
    }
    let filled: Vec<_> = bins.iter().filter(|b| b.asked >= MIN_ASKED).collect();
    assert!(
        filled.len() >= 4,
        "decisions in at least four bins: {bins:?}"
    );
    // Each filled bin follows the level's curve, within three binomial errors.
    for b in &filled {
        let (low, high) = b.band();
        assert!(
            (low..=high).contains(&b.share()),
            "bin {}..{}: {} outside {low}..{high}",
            b.low,
            b.high,
            b.share()
        );
    }
    let rise = power_rise(&bins);
    assert!(rise >= MIN_POWER_RISE, "the share rose by {rise}");
    // Nobody watching, about the curve's 4 %; the top filled bin, several times that.
    assert!(
        filled[0].low == 0 && filled[0].share() < 0.1,
        "{:?}",
        filled[0]
    );
    assert!(filled[filled.len() - 1].share() > 3.0 * filled[0].share().max(0.01));
}

#[test]
fn a_fence_across_a_busy_street_reroutes_walkers_within_2_s_and_its_removal_restores_them() {
    use throng::validate::attraction::{fence, MIN_STRAIGHT_AGAIN, REROUTE_WITHIN_S};
    for seed in [1u64, 2] {
        let r = fence(seed, throng::validate::Effort::Quick);
        say(&format!("seed {seed}: {r:?}"));
        assert!(r.cut >= 5, "the fences cut someone's way: {}", r.cut);
        assert!(r.rerouted_s <= REROUTE_WITHIN_S, "{} s", r.rerouted_s);
        assert_eq!(r.inside, 0, "nobody stands inside a fence");
        assert!(r.could_go_straight >= 1);
        assert!(
            r.straight_again >= MIN_STRAIGHT_AGAIN,
            "{}",
            r.straight_again
        );
    }
}

/// Places, moves and removes things on a running crowd: the hash after each stage.
fn scripted_session(threads: usize) -> Vec<u64> {
    use throng::validate::attraction::{fence_line, place, stands, thing as placed};
    let mut level = plaza();
    let mut c = Crowd::from_level(&level, 600, 5);
    c.set_threads(Some(threads));
    let mut hashes = Vec::new();
    let mut things = vec![placed(
        "busker",
        ThingKind::Performer,
        Vec2::new(0.0, 28.0),
        180.0,
    )];
    things.extend(stands());
    things.extend(fence_line());
    place(&mut level, things).expect("the session's things fit");
    c.set_placed(&level);
    run(&mut c, 4.0, |_| {});
    hashes.push(c.state_hash());
    // The busker moves 6 m east; then the open stand goes.
    let mut moved = level.clone();
    moved.placed.retain(|p| p.name != "busker");
    let busker = placed("busker", ThingKind::Performer, Vec2::new(6.0, 28.0), 180.0);
    throng::crowd::placing::check_fit(&moved, &busker).expect("the new spot is free");
    moved.placed.push(busker);
    c.set_placed(&moved);
    run(&mut c, 3.0, |_| {});
    hashes.push(c.state_hash());
    moved.placed.retain(|p| p.name != "stand_open");
    c.set_placed(&moved);
    run(&mut c, 3.0, |_| {});
    hashes.push(c.state_hash());
    hashes
}

#[test]
fn a_scripted_sandbox_session_gives_the_same_bits_on_1_2_and_8_threads() {
    let one = scripted_session(1);
    assert_eq!(one.len(), 3);
    assert!(
        one.windows(2).all(|w| w[0] != w[1]),
        "the crowd moved: {one:?}"
    );
    for threads in [2, 8] {
        assert_eq!(scripted_session(threads), one, "{threads} threads");
    }
}

#[test]
fn a_queue_line_bends_round_a_fence_and_no_place_or_queuer_is_in_an_obstacle() {
    use throng::crowd::BODY_RADIUS;
    use throng::validate::attraction::{busy, busy_seconds, place, sharpest_turn, stands};
    let mut level = plaza();
    let mut c = Crowd::from_level(&level, 200, 1);
    place(&mut level, stands()).expect("the stands fit");
    c.set_placed(&level);
    let k = |name: &str| {
        c.level()
            .points_of_interest
            .iter()
            .position(|p| p.name == name)
            .expect("queue")
    };
    let (open, bent) = (
        &c.queue_lines()[k("stand_open queue")],
        &c.queue_lines()[k("stand_bent queue")],
    );
    let full = throng::level::sandbox::STAND_QUEUE as usize;
    assert_eq!(
        (open.len(), bent.len()),
        (full, full),
        "both lines have every place"
    );
    assert!(
        sharpest_turn(open) < 1.0,
        "the open line runs straight: {open:?}"
    );
    assert!(sharpest_turn(bent) >= 30.0, "the line bends: {bent:?}");
    // The bent line gets past the fence's end instead of stopping at it.
    let fence = Vec2::new(20.0, -25.6);
    assert!(
        bent.iter()
            .any(|p| (p.x - fence.x).abs() > 1.5 + BODY_RADIUS),
        "{bent:?}"
    );
    for p in open.iter().chain(bent.iter()) {
        for o in &c.level().obstacles {
            let (d, _) = o.shape.signed_distance(*p);
            assert!(d >= BODY_RADIUS, "place {p} is {d} m from {}", o.name);
        }
    }
    // On the busy plaza (six performers too), both stands serve and nobody in a queue stands
    // in an obstacle.
    let (_, q) = busy(1, busy_seconds(throng::validate::Effort::Quick));
    say(&format!("{q:?}"));
    assert_eq!(q.places_in_obstacles, 0);
    assert_eq!(q.people_in_obstacles, 0);
    assert!(
        q.served.iter().all(|&s| s >= 1),
        "both stands served: {:?}",
        q.served
    );
    assert!(
        q.max_len.iter().all(|&m| (1..=full).contains(&m)),
        "{:?}",
        q.max_len
    );
}

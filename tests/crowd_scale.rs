//! The crowd at scale: the densest crowd a level may ask for never overlaps, and the simulation
//! level of detail (people out of view steered every 4th step) keeps every invariant and moves
//! nobody visible by more than a step's walk.

use glam::{Mat4, Vec3};
use throng::crowd::sim_lod::LOW_RATE;
use throng::crowd::{Crowd, SimView, StepInputs, BODY_RADIUS};
use throng::frustum::Frustum;
use throng::level::validate::MAX_DENSITY;
use throng::level::{parse_level, Level};

const DT: f32 = 1.0 / 60.0;
/// The guarantee: no two centres closer than this at the end of any step (bodies touch at 0.4).
const CLOSEST: f32 = 0.35;

/// A 30 m square with a fountain, a bench, a place to linger and a path: every behaviour that
/// packs people together.
fn small_square(count: u32) -> Result<Level, String> {
    let src = format!(
        r#"Level(
    name: "dense square",
    bounds: (min: (-15.0, -15.0), max: (15.0, 15.0)),
    obstacles: [
        (name: "fountain", kind: Fountain, shape: Circle(center: (0.0, 0.0), radius: 3.0)),
        (name: "bench", kind: Bench, shape: Box(center: (8.0, 8.0), half_extents: (1.5, 0.35), angle_deg: 30.0)),
    ],
    points_of_interest: [
        (name: "chat", position: (-8.0, 8.0), weight: 1.0, capacity: 40, radius: 2.0, activity: Linger),
        (name: "view", position: (0.0, 5.0), weight: 1.0, capacity: 30, radius: 1.5, activity: WatchFountain),
    ],
    paths: [(name: "ring", points: [(9.0, 0.0), (0.0, 9.0), (-9.0, 0.0), (0.0, -9.0)], loop: true)],
    spawn_zones: [(name: "all", center: (0.0, -10.0), half_extents: (4.0, 4.0))],
    crowd: (
        count: {count},
        models: [(name: "m", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "g", models: ["m"])],
        walk_speed: (min: 1.1, max: 1.5),
        seed: 3,
    ),
    hero: (model: "assets/hero/Godette_vrm_v4.vrm", spawn: (12.0, -12.0)),
)"#
    );
    parse_level(
        &src,
        "dense-square.ron",
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
    )
    .map_err(|e| e.to_string())
}

fn plaza() -> Level {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("plaza");
    parse_level(&src, "levels/plaza.ron", root).expect("plaza loads")
}

fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[test]
fn the_densest_crowd_a_level_accepts_never_overlaps() {
    // The most people validation lets this level hold, and one more is refused.
    let free = throng::level::validate::free_area(&small_square(1).expect("valid"));
    let most = (free * MAX_DENSITY) as u32;
    let too_many = small_square(most + 1).expect_err("over the density limit");
    assert!(too_many.contains("do not fit"), "{too_many}");
    let level = small_square(most).expect("the limit itself is accepted");
    for seed in [3, 7] {
        densest_run(&level, most, free, seed);
    }
}

fn densest_run(level: &Level, most: u32, free: f32, seed: u64) {
    let mut crowd = Crowd::from_level(level, most as usize, seed);
    assert_eq!(crowd.len(), most as usize);
    // Spawning drops people at random spots; they get two seconds to separate.
    for _ in 0..120 {
        crowd.step(DT, &StepInputs::default());
    }
    let mut worst = 0;
    let mut sweeps = 0;
    for _ in 0..300 {
        crowd.step(DT, &StepInputs::default());
        worst = worst.max(crowd.close_pairs(CLOSEST));

        sweeps = sweeps.max(crowd.timings().sweeps);
        for &p in &crowd.pos {
            assert!(level.bounds.contains(p) && p.is_finite(), "{p}");
            for o in &level.obstacles {
                assert!(
                    o.shape.signed_distance(p).0 >= BODY_RADIUS - 0.02,
                    "{p} in {}",
                    o.name
                );
            }
        }
    }
    say(&format!(
        "densest crowd (seed {seed}): {most} people on {free:.0} m² ({MAX_DENSITY}/m²): at most \
         {worst} pairs closer than {CLOSEST} m over 5 s, up to {sweeps} non-overlap sweeps a step"
    ));
    assert_eq!(worst, 0, "pairs closer than {CLOSEST} m");
}

/// A camera 40 m south-east of the plaza centre looking at its north-west quarter.
fn corner_view(level: &Level) -> SimView {
    let eye = Vec3::new(30.0, 25.0, 30.0);
    let vp = Mat4::perspective_rh_gl(50f32.to_radians(), 16.0 / 9.0, 0.1, 1000.0)
        * Mat4::look_at_rh(eye, Vec3::new(-30.0, 0.0, -30.0), Vec3::Y);
    SimView {
        frustum: Frustum::from_view_projection(&vp),
        eye,
        far: level.lod.far.min(90.0),
    }
}

#[test]
fn simulation_lod_keeps_every_invariant_and_nobody_visible_jumps() {
    let level = plaza();
    let view = corner_view(&level);
    let mut crowd = Crowd::from_level(&level, 4000, 12);
    let inputs = StepInputs {
        view: Some(view),
        ..Default::default()
    };
    let mut prev = crowd.pos.clone();
    let mut seen_prev: Vec<bool> = prev.iter().map(|&p| view.sees(p)).collect();
    let (mut worst_visible, mut worst_entering) = (0.0f32, 0.0f32);
    let mut steered = Vec::new();
    for step in 0..600 {
        crowd.step(DT, &inputs);
        steered.push(crowd.timings().steered as usize);
        let seen: Vec<bool> = crowd.pos.iter().map(|&p| view.sees(p)).collect();
        for i in 0..crowd.len() {
            let p = crowd.pos[i];
            assert!(
                p.is_finite() && level.bounds.contains(p),
                "step {step}: {i} at {p}"
            );
            for o in &level.obstacles {
                let d = o.shape.signed_distance(p).0;
                assert!(
                    d >= BODY_RADIUS - 0.02,
                    "step {step}: {i} inside {} by {d}",
                    o.name
                );
            }
            // The first second settles the start, where people stand mid-activity on top of
            // each other (the same with the LOD off).
            if seen[i] && step >= 60 {
                let moved = p.distance(prev[i]);
                worst_visible = worst_visible.max(moved);
                if !seen_prev[i] {
                    worst_entering = worst_entering.max(moved);
                }
            }
        }
        prev.clone_from(&crowd.pos);
        seen_prev = seen;
    }
    let visible = seen_prev.iter().filter(|&&s| s).count();
    let mean_steered = steered.iter().sum::<usize>() as f32 / steered.len() as f32;
    say(&format!(
        "sim LOD: {visible} of {} visible at the end, {mean_steered:.0} steered per step on average, \
         largest step of a visible person {worst_visible:.3} m, of one coming into view {worst_entering:.3} m",
        crowd.len()
    ));
    // A run is 3.4 m/s (x1.1 at most): 0.062 m a step; constraint pushes add a little.
    assert!(
        worst_visible < 0.12,
        "a visible person jumped {worst_visible} m"
    );
    assert!(
        worst_entering < 0.12,
        "someone came into view with a jump of {worst_entering} m"
    );
    // Unseen people are steered on one step in LOW_RATE: far fewer than everyone, more than the
    // visible alone.
    let unseen = (crowd.len() - visible) as f32;
    let expected = visible as f32 + unseen / LOW_RATE as f32;
    assert!(
        (mean_steered - expected).abs() < 0.15 * crowd.len() as f32,
        "{mean_steered} steered, about {expected} expected"
    );
    assert!(mean_steered < 0.7 * crowd.len() as f32);
    assert_eq!(crowd.close_pairs(CLOSEST), 0);
}

#[test]
fn simulation_lod_is_deterministic_and_off_without_a_view() {
    let level = plaza();
    let view = corner_view(&level);
    let run = |threads: usize, view: Option<SimView>| {
        let mut c = Crowd::from_level(&level, 2000, 4);
        c.set_threads(Some(threads));
        let inputs = StepInputs {
            view,
            ..Default::default()
        };
        for _ in 0..120 {
            c.step(DT, &inputs);
        }
        (c.state_hash(), c.timings().steered)
    };
    let (a, steered) = run(1, Some(view));
    assert_eq!(run(2, Some(view)).0, a);
    assert_eq!(run(8, Some(view)).0, a);
    assert!((steered as usize) < 2000);
    let (full, everyone) = run(2, None);
    assert_eq!(everyone, 2000, "without a view everyone is steered");
    assert_ne!(full, a, "the LOD changed nothing");
}

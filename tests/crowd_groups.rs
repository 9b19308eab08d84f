//! Walking groups and the speed distribution, measured: members stay together, walk abreast in
//! the open and in a file in a narrow corridor, wait for each other and share their goals;
//! preferred speeds follow the level's normal distribution inside its clamp; a crowd of groups
//! steps to the same bits on any thread count.

use glam::Vec2;
use throng::crowd::{AgentState, Crowd, Plan, StepInputs};
use throng::level::Level;

const DT: f32 = 1.0 / 60.0;

/// Writes straight to stderr, past the harness's capture, so CI logs show the numbers.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn level(bounds: &str, extra: &str, crowd_extra: &str, walk_speed: &str) -> Level {
    let src = format!(
        r#"Level(
    name: "groups",
    bounds: {bounds},
    {extra}
    crowd: (
        count: 0,
        models: [(name: "m", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "g", models: ["m"])],
        walk_speed: {walk_speed},
        seed: 3,
        {crowd_extra}
    ),
    hero: (model: "assets/hero/Godette_vrm_v4.vrm", spawn: (0.0, 0.0)),
)"#
    );
    ron::from_str(&src).expect("test level parses")
}

/// A wide open square where everyone strolls, in pairs or threes.
fn open_square(sizes: &str) -> Level {
    level(
        "(min: (-60.0, -60.0), max: (60.0, 60.0))",
        r#"spawn_zones: [(name: "all", center: (0.0, 0.0), half_extents: (40.0, 40.0))],"#,
        &format!(
            "behaviour: (stroll_weight: 1.0, follow_path_weight: 0.0, linger_weight: 0.0),
             groups: (share: 1.0, sizes: {sizes}),"
        ),
        "(min: 0.8, max: 1.9, normal: (mean: 1.34, sd: 0.26))",
    )
}

/// Leaders of the crowd's groups.
fn leaders(c: &Crowd) -> Vec<usize> {
    (0..c.len())
        .filter(|&i| c.group_leader[i] as usize == i && c.group(i).len() > 1)
        .collect()
}

fn walking_together(c: &Crowd, leader: usize) -> bool {
    c.group(leader).all(|m| c.state[m] == AgentState::Walking)
}

fn centre(c: &Crowd, leader: usize) -> Vec2 {
    let g = c.group(leader);
    let n = g.len() as f32;
    g.map(|m| c.pos[m]).sum::<Vec2>() / n
}

/// Cosine between a pair's offset and the leader's walking direction, for every walking pair
/// of two moving faster than 0.6 m/s.
fn pair_cosines(c: &Crowd) -> Vec<f32> {
    leaders(c)
        .into_iter()
        .filter(|&l| c.group(l).len() == 2 && walking_together(c, l))
        .filter_map(|l| {
            let dir = c.vel[l]
                .try_normalize()
                .filter(|_| c.vel[l].length() > 0.6)?;
            let offset = (c.pos[l + 1] - c.pos[l]).try_normalize()?;
            Some(offset.dot(dir).abs())
        })
        .collect()
}

#[test]
fn pairs_walk_abreast_and_groups_stay_together_in_the_open() {
    let l = open_square("[(size: 2, weight: 0.7), (size: 3, weight: 0.3)]");
    let mut c = Crowd::from_level(&l, 120, 11);
    assert!(leaders(&c).len() >= 40, "{} groups", leaders(&c).len());
    let (mut cosines, mut spread, mut spread_n, mut farthest) = (Vec::new(), 0.0, 0, 0.0f32);
    for step in 0..(60.0 / DT) as usize {
        c.step(DT, &StepInputs::default());
        if step < (8.0 / DT) as usize || step % 10 != 0 {
            continue;
        }
        cosines.extend(pair_cosines(&c));
        for l in leaders(&c) {
            if !c.group(l).all(|m| c.state[m] != AgentState::Scattering) {
                continue;
            }
            let mid = centre(&c, l);
            for m in c.group(l) {
                let d = c.pos[m].distance(mid);
                farthest = farthest.max(d);
                if walking_together(&c, l) {
                    spread += d;
                    spread_n += 1;
                }
            }
        }
    }
    let mean_spread = spread / spread_n.max(1) as f32;
    let abreast = cosines.iter().filter(|&&k| k < 0.5).count() as f32 / cosines.len() as f32;
    say(&format!(
        "open square: mean distance to the group's centre while walking {mean_spread:.2} m; \
         {:.0}% of {} pair samples within 60° of side by side; farthest from its group {farthest:.2} m",
        abreast * 100.0,
        cosines.len()
    ));
    assert!(spread_n > 1000 && cosines.len() > 500);
    assert!(mean_spread < 1.0, "groups spread out: {mean_spread}");
    assert!(abreast > 0.75, "pairs do not walk abreast: {abreast}");
    // Nobody is left behind, though speeds differ within a group.
    assert!(farthest < 5.0, "someone fell {farthest} m behind its group");
}

#[test]
fn groups_fold_into_a_file_in_a_narrow_corridor() {
    // 1.4 m wide: two abreast need 0.75 m between centres plus a body and 0.15 m of room on
    // each side (1.45 m), so the formation must fold.
    let l = level(
        "(min: (-45.0, -0.7), max: (45.0, 0.7))",
        r#"paths: [(name: "corridor", points: [(-42.0, 0.0), (42.0, 0.0)], loop: true)],
           spawn_zones: [(name: "west", center: (-38.0, 0.0), half_extents: (4.0, 0.3), path: Some("corridor"))],"#,
        "behaviour: (stroll_weight: 0.0, follow_path_weight: 1.0, linger_weight: 0.0),
         groups: (share: 1.0, sizes: [(size: 2, weight: 1.0)]),",
        "(min: 1.2, max: 1.5)",
    );
    let mut c = Crowd::from_level(&l, 12, 5);
    let mut cosines = Vec::new();
    for step in 0..(40.0 / DT) as usize {
        c.step(DT, &StepInputs::default());
        if step > (5.0 / DT) as usize && step % 10 == 0 {
            cosines.extend(pair_cosines(&c));
        }
    }
    let in_file = cosines.iter().filter(|&&k| k > 0.8).count() as f32 / cosines.len() as f32;
    say(&format!(
        "corridor: {:.0}% of {} pair samples within 37° of one behind the other",
        in_file * 100.0,
        cosines.len()
    ));
    assert!(cosines.len() > 200);
    assert!(in_file > 0.75, "pairs do not walk in a file: {in_file}");
}

#[test]
fn members_share_their_leaders_plan_and_stand_together() {
    let l = level(
        "(min: (-40.0, -40.0), max: (40.0, 40.0))",
        r#"points_of_interest: [
               (name: "a", position: (-20.0, 0.0), radius: 3.0, weight: 1.0, capacity: 40, activity: Linger),
               (name: "b", position: (20.0, 0.0), radius: 3.0, weight: 1.0, capacity: 40, activity: Linger),
           ],
           spawn_zones: [(name: "all", center: (0.0, 0.0), half_extents: (30.0, 30.0))],"#,
        "behaviour: (stroll_weight: 0.0, follow_path_weight: 0.0, linger_weight: 1.0,
                     linger_seconds: (min: 80.0, max: 90.0)),
         groups: (share: 1.0, sizes: [(size: 3, weight: 1.0)]),",
        "(min: 1.0, max: 1.6)",
    );
    let mut c = Crowd::empty(&l, 2);
    c.set_count(30);
    let mut checked = 0;
    for _ in 0..(60.0 / DT) as usize {
        c.step(DT, &StepInputs::default());
        for l in leaders(&c) {
            for m in c.group(l).skip(1) {
                if c.state[m] != AgentState::Scattering {
                    assert_eq!(c.plan[m], c.plan[l], "member {m} of {l} has another plan");
                    checked += 1;
                }
            }
        }
    }
    // After 60 s everyone has arrived: each group stands in a ring facing its middle.
    let mut standing = 0;
    for l in leaders(&c) {
        if !c.group(l).all(|m| c.state[m] == AgentState::Lingering) {
            continue;
        }
        standing += 1;
        let mid = centre(&c, l);
        for m in c.group(l) {
            assert!(c.pos[m].distance(mid) < 1.5, "{m} stands apart");
            let look = c.look_at[m].expect("a lingering member looks at its group");
            assert!(look.distance(mid) < 0.6, "{m} looks elsewhere");
        }
        assert!(matches!(c.plan[l], Plan::Poi(_)));
    }
    say(&format!(
        "shared plans: {checked} member-steps checked, {standing} of 10 groups standing together"
    ));
    assert!(standing >= 8, "{standing} groups stand together");
    assert!(checked > 10_000);
}

fn mean_sd(v: &[f32]) -> (f32, f32) {
    let n = v.len() as f64;
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean as f32, var.sqrt() as f32)
}

#[test]
fn preferred_speeds_follow_the_levels_distribution() {
    let normal = level(
        "(min: (-100.0, -100.0), max: (100.0, 100.0))",
        r#"spawn_zones: [(name: "all", center: (0.0, 0.0), half_extents: (90.0, 90.0))],"#,
        "",
        "(min: 0.3, max: 2.4, normal: (mean: 1.34, sd: 0.26))",
    );
    let c = Crowd::from_level(&normal, 10_000, 8);
    let (mean, sd) = mean_sd(&c.pref_speed);
    say(&format!(
        "speeds: 10,000 drawn from normal(1.34, 0.26): mean {mean:.4}, sd {sd:.4}"
    ));
    // The standard error of the mean is 0.0026 m/s, of the sd 0.0018 m/s.
    assert!((mean - 1.34).abs() < 0.01, "mean {mean}");
    assert!((sd - 0.26).abs() < 0.01, "sd {sd}");
    // A tight clamp holds every draw, and catches both tails.
    let clamped = level(
        "(min: (-100.0, -100.0), max: (100.0, 100.0))",
        r#"spawn_zones: [(name: "all", center: (0.0, 0.0), half_extents: (90.0, 90.0))],"#,
        "",
        "(min: 1.2, max: 1.5, normal: (mean: 1.34, sd: 0.26))",
    );
    let c = Crowd::from_level(&clamped, 10_000, 8);
    assert!(c.pref_speed.iter().all(|s| (1.2..=1.5).contains(s)));
    let at = |v: f32| c.pref_speed.iter().filter(|&&s| s == v).count();
    // P(x < 1.2) = 0.295, P(x > 1.5) = 0.269.
    assert!(at(1.2) > 2500 && at(1.5) > 2300, "{} {}", at(1.2), at(1.5));
    // The uniform range is still uniform: mean in the middle, sd (max − min) / √12.
    let uniform = level(
        "(min: (-100.0, -100.0), max: (100.0, 100.0))",
        r#"spawn_zones: [(name: "all", center: (0.0, 0.0), half_extents: (90.0, 90.0))],"#,
        "",
        "(min: 1.0, max: 1.6)",
    );
    let (mean, sd) = mean_sd(&Crowd::from_level(&uniform, 10_000, 8).pref_speed);
    assert!((mean - 1.3).abs() < 0.01 && (sd - 0.6 / 12f32.sqrt()).abs() < 0.01);
}

#[test]
fn groups_step_the_same_whatever_the_thread_count() {
    let l = open_square("[(size: 2, weight: 0.6), (size: 3, weight: 0.3), (size: 4, weight: 0.1)]");
    let run = |threads: usize| {
        let mut c = Crowd::from_level(&l, 3000, 21);
        c.set_threads(Some(threads));
        for k in 0..400 {
            let inputs = StepInputs {
                disturbance: (k == 200).then_some(Vec2::new(5.0, 5.0)),
                ..Default::default()
            };
            c.step(DT, &inputs);
        }
        c.state_hash()
    };
    let one = run(1);
    say(&format!(
        "groups determinism: hash {one:016x} on 1, 2 and 8 threads"
    ));
    assert_eq!(one, run(2), "2 threads differ");
    assert_eq!(one, run(8), "8 threads differ");
}

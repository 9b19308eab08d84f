//! The sandbox measured on the real plaza: a street performer's ring of watchers (facing it, in
//! the band between the mat and the outer ring, nobody on the mat or in the walkway, walkers
//! still crossing past it), the drawing power the crowd shows against the number already
//! watching (the level's `show_stop` curve, after Milgram, Bickman & Berkowitz 1969), a fence
//! line dropped across the north street while people walk (and taken away again), and two food
//! stands' queues, one bending round a fence. Every thing placed is checked with `check_fit`
//! first, as the build toolbar does.

use glam::Vec2;

use super::arena::dt;
use super::{Effort, Row};
use crate::crowd::nav::NavGrid;
use crate::crowd::placing::check_fit;
use crate::crowd::shows::DrawingPower;
use crate::crowd::{AgentState, Crowd, Plan, StepInputs, BODY_RADIUS};
use crate::level::{Level, Placed, StopCurve, ThingKind};

/// The plaza's crowd in every scenario here.
pub const PEOPLE: usize = 2_000;
/// The ring's performer: south of the fountain, facing it (the sandbox test's spot).
pub const PERFORMER_AT: Vec2 = Vec2::new(0.0, 28.0);
pub const PERFORMER_HEADING: f32 = 180.0;
/// A watcher faces the show when its heading is this close to the line to the show's centre.
pub const FACING_WITHIN_DEG: f32 = 30.0;
pub const MIN_FACING_SHARE: f32 = 0.8;
/// Walkers crossing the walkway, per minute: 13, 9 and 9 over seeds 1-3 (docs/CROWD.md); about
/// half the lowest still says the walkway is a way through, not a wall.
pub const MIN_CROSSERS_PER_MINUTE: f32 = 5.0;
/// Served at each stand, per minute: 4.5 to 7 over seeds 1-3 with the busy plaza's shows
/// drawing people away; under half the lowest means a counter or its line is broken.
pub const MIN_SERVED_PER_MINUTE: f32 = 2.0;
/// The fence re-route's deadline, and the window after removal (simulated seconds).
pub const REROUTE_WITHIN_S: f32 = 2.0;
/// Of the walkers the fence made detour, the share heading straight again within 2 s of its
/// removal (every one measured did).
pub const MIN_STRAIGHT_AGAIN: f32 = 0.95;
/// The drawing-power bins: watchers already there, lowest and highest of each.
pub const POWER_BINS: [(u32, u32); 6] = [(0, 0), (1, 2), (3, 5), (6, 10), (11, 20), (21, u32::MAX)];
/// A bin needs this many decisions before its share is compared with the model.
pub const MIN_ASKED: u32 = 30;
/// The share at the top filled bin must exceed the share at 0 by at least this (the model's
/// rise over the same bins is about 0.3).
pub const MIN_POWER_RISE: f32 = 0.1;

/// The plaza as shipped, built into the binary.
pub fn plaza() -> Level {
    crate::level::parse_level(
        include_str!("../../levels/plaza.ron"),
        "levels/plaza.ron",
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
    )
    .expect("the built-in plaza parses")
}

pub fn thing(name: &str, kind: ThingKind, at: Vec2, heading_deg: f32) -> Placed {
    Placed {
        name: name.into(),
        kind,
        at,
        heading_deg,
    }
}

/// Adds `things` to the level's placed list, each checked against what is there already as the
/// build toolbar does; the first that does not fit is the error.
pub fn place(level: &mut Level, things: Vec<Placed>) -> Result<(), String> {
    for t in things {
        check_fit(level, &t).map_err(|m| format!("`{}` does not fit: {m}", t.name))?;
        level.placed.push(t);
    }
    Ok(())
}

fn step(c: &mut Crowd) {
    c.step(dt(), &StepInputs::default());
}

fn steps_in(seconds: f32) -> usize {
    (seconds / dt()).round() as usize
}

/// Mean and standard deviation (NaN for none).
fn mean_sd(xs: &[f32]) -> (f32, f32) {
    if xs.is_empty() {
        return (f32::NAN, f32::NAN);
    }
    let n = xs.len() as f32;
    let mean = xs.iter().sum::<f32>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / n;
    (mean, var.sqrt())
}

/// One performer's show, measured for a minute after it went on.
#[derive(Debug, Clone)]
pub struct Ring {
    pub seed: u64,
    /// Simulated seconds until the performer was in place.
    pub waited_s: f32,
    /// Watchers counted, once a second, over the minute (person-samples), and at its end.
    pub watcher_samples: usize,
    pub watchers_end: usize,
    pub facing_share: f32,
    pub distance_mean: f32,
    pub distance_sd: f32,
    /// The mat's edge and the outermost ring's radius.
    pub mat_edge: f32,
    pub outer_ring: f32,
    /// The most people on the mat, and watchers in the walkway, at any step.
    pub on_mat: usize,
    pub watchers_in_walkway: usize,
    /// Walkers (not watching, not performing) who crossed the walkway band from one side of the
    /// show's axis to the other.
    pub crossers_per_minute: f32,
}

/// Watchers of the show now (standing at their places).
fn watchers(c: &Crowd) -> Vec<usize> {
    (0..c.len())
        .filter(|&i| c.state[i] == AgentState::Watching)
        .collect()
}

/// Whether `i` looks at `centre` within `FACING_WITHIN_DEG` (heading 0 looks along -z).
fn faces(c: &Crowd, i: usize, centre: Vec2) -> bool {
    let h = c.heading[i];
    let ahead = Vec2::new(-h.sin(), -h.cos());
    ahead.angle_between(centre - c.pos[i]).abs() < FACING_WITHIN_DEG.to_radians()
}

pub fn ring(seed: u64) -> Ring {
    let mut level = plaza();
    let mut c = Crowd::from_level(&level, PEOPLE, seed);
    let busker = thing(
        "busker",
        ThingKind::Performer,
        PERFORMER_AT,
        PERFORMER_HEADING,
    );
    place(&mut level, vec![busker]).expect("the busker's spot is free");
    c.set_placed(&level);
    let mut waited = 0;
    while !c.shows()[0].on && waited < steps_in(60.0) {
        step(&mut c);
        waited += 1;
    }
    let show = c.shows()[0].clone();
    let (centre, mat) = (show.spec.centre, show.spec.radius);
    let (walk_in, walk_out) = show.walkway();
    let mut side: Vec<Option<bool>> = vec![None; c.len()];
    let mut crossers = std::collections::BTreeSet::new();
    let (mut on_mat, mut in_walkway) = (0, 0);
    let (mut samples, mut facing, mut dists) = (0, 0, Vec::new());
    let per_second = steps_in(1.0);
    for s in 0..steps_in(60.0) {
        step(&mut c);
        let mut mat_now = 0;
        for (i, last) in side.iter_mut().enumerate() {
            let d = c.pos[i].distance(centre);
            mat_now += usize::from(d < mat);
            // A passer-by in the walkway band, on one side of the show's axis or the other.
            let passing = !matches!(c.plan[i], Plan::Watch { .. } | Plan::Perform(_))
                && (walk_in..=walk_out).contains(&d);
            let now = passing.then(|| (c.pos[i] - centre).perp_dot(show.spec.facing) > 0.0);
            if let (Some(was), Some(is)) = (*last, now) {
                if was != is {
                    crossers.insert(i);
                }
            }
            *last = now;
        }
        on_mat = on_mat.max(mat_now);
        let w = watchers(&c);
        let walkway = w
            .iter()
            .filter(|&&i| (walk_in..walk_out).contains(&c.pos[i].distance(centre)))
            .count();
        in_walkway = in_walkway.max(walkway);
        if (s + 1) % per_second == 0 {
            samples += w.len();
            facing += w.iter().filter(|&&i| faces(&c, i, centre)).count();
            dists.extend(w.iter().map(|&i| c.pos[i].distance(centre)));
        }
    }
    let (distance_mean, distance_sd) = mean_sd(&dists);
    Ring {
        seed,
        waited_s: waited as f32 * dt(),
        watcher_samples: samples,
        watchers_end: watchers(&c).len(),
        facing_share: if samples == 0 {
            f32::NAN
        } else {
            facing as f32 / samples as f32
        },
        distance_mean,
        distance_sd,
        mat_edge: mat,
        outer_ring: show.outer_radius(),
        on_mat,
        watchers_in_walkway: in_walkway,
        crossers_per_minute: crossers.len() as f32,
    }
}

pub fn ring_rows(rings: &[Ring]) -> Vec<Row> {
    let mut rows = Vec::new();
    for r in rings {
        let seed = r.seed as f32;
        let row = |test: &str, measured: f32, unit: &str, low: f32, high: f32| {
            Row::new(test, "seed", seed, measured, unit, low, high)
        };
        // Distances are from the show's centre to body centres: a body on the outer ring
        // reaches a body radius past it.
        let band = (r.mat_edge, r.outer_ring + BODY_RADIUS);
        rows.extend([
            row("attraction_ring_wait", r.waited_s, "s", f32::NAN, 60.0),
            row(
                "attraction_ring_watchers_mean",
                r.watcher_samples as f32 / 60.0,
                "people",
                f32::NAN,
                f32::NAN,
            ),
            // Reported only: a ring grows from a 4 % chance at nobody watching, so a minute's
            // audience varies a lot between runs (20, 15 and 19 at seeds 1-3; 4 at 30 Hz).
            // With nobody watching, the facing share and distances are NaN and fail.
            row(
                "attraction_ring_watchers",
                r.watchers_end as f32,
                "people",
                f32::NAN,
                f32::NAN,
            ),
            row(
                "attraction_ring_facing",
                r.facing_share,
                "share",
                MIN_FACING_SHARE,
                f32::NAN,
            ),
            row(
                "attraction_ring_distance",
                r.distance_mean,
                "m",
                band.0,
                band.1,
            ),
            // Spread: at most half the band, so the audience does not smear over it.
            row(
                "attraction_ring_distance_spread",
                r.distance_sd,
                "m",
                f32::NAN,
                (band.1 - band.0) / 2.0,
            ),
            row(
                "attraction_ring_on_mat",
                r.on_mat as f32,
                "people",
                0.0,
                0.0,
            ),
            row(
                "attraction_ring_walkway_watchers",
                r.watchers_in_walkway as f32,
                "people",
                0.0,
                0.0,
            ),
            row(
                "attraction_ring_walkway_crossers",
                r.crossers_per_minute,
                "people/min",
                MIN_CROSSERS_PER_MINUTE,
                f32::NAN,
            ),
        ]);
    }
    rows
}

/// The drawing power over seeds and performers: the tally, and the curve it was drawn from.
#[derive(Debug, Clone)]
pub struct Power {
    pub power: DrawingPower,
    pub curve: StopCurve,
    /// Simulated seconds per seed, and seeds.
    pub seconds: f32,
    pub seeds: usize,
}

/// Six performers round the fountain and in the square, each facing the fountain: many shows
/// at once, so decisions at every audience size pile up.
pub fn performers() -> Vec<Placed> {
    let spots = [
        Vec2::new(0.0, 28.0),
        Vec2::new(0.0, -28.0),
        Vec2::new(28.0, 0.0),
        Vec2::new(-28.0, 0.0),
        Vec2::new(32.0, -32.0),
        Vec2::new(-32.0, -12.0),
    ];
    spots
        .iter()
        .enumerate()
        .map(|(k, &at)| {
            // The quarter turn whose front points most nearly at the fountain.
            let heading = [0.0f32, 90.0, 180.0, 270.0]
                .into_iter()
                .max_by(|&a, &b| {
                    let f = |h| thing("", ThingKind::Performer, at, h).facing().dot(-at);
                    f(a).total_cmp(&f(b))
                })
                .unwrap_or(0.0);
            thing(
                &format!("performer_{}", k + 1),
                ThingKind::Performer,
                at,
                heading,
            )
        })
        .collect()
}

/// The busy plaza: `performers` and `stands`, for `seconds` from a fresh crowd: the drawing
/// power its shows tallied and its stands' queues.
pub fn busy(seed: u64, seconds: f32) -> (DrawingPower, Queues) {
    let mut level = plaza();
    let mut things = performers();
    things.extend(stands());
    place(&mut level, things).expect("the performers and stands fit");
    // Placed before the crowd starts: the plaza starts mid-afternoon, so whoever chose a stand
    // is already in its queue and the counters serve from the first second.
    let mut c = Crowd::from_level(&level, PEOPLE, seed);
    let queues = watch_queues(&mut c, seed, seconds);
    (c.drawing_power(), queues)
}

/// Simulated seconds of the busy plaza per seed.
pub fn busy_seconds(effort: Effort) -> f32 {
    effort.pick(240.0, 75.0)
}

/// The drawing power over `seeds` (from their busy-plaza runs).
pub fn drawing_power(effort: Effort) -> Power {
    let seeds = effort.pick(&[1u64, 2, 3][..], &[1u64][..]);
    let mut power = DrawingPower::default();
    for &seed in seeds {
        power.add(&busy(seed, busy_seconds(effort)).0);
    }
    Power {
        power,
        curve: plaza().crowd.behaviour.show_stop,
        seconds: busy_seconds(effort),
        seeds: seeds.len(),
    }
}

/// One bin of the tally: decisions, stops, and the share the model's curve expects there
/// (its chance at each count, weighted by the decisions at that count).
#[derive(Debug, Clone, Copy)]
pub struct Bin {
    pub low: u32,
    pub high: u32,
    pub asked: u32,
    pub stopped: u32,
    pub model: f32,
}

impl Bin {
    pub fn share(&self) -> f32 {
        if self.asked == 0 {
            f32::NAN
        } else {
            self.stopped as f32 / self.asked as f32
        }
    }

    /// Where the share may fall if the crowd follows the model: three binomial standard
    /// errors and two points either side.
    pub fn band(&self) -> (f32, f32) {
        let se = (self.model * (1.0 - self.model) / self.asked.max(1) as f32).sqrt();
        (
            (self.model - 3.0 * se - 0.02).max(0.0),
            (self.model + 3.0 * se + 0.02).min(1.0),
        )
    }
}

pub fn bins(p: &Power) -> Vec<Bin> {
    let last = p.power.asked.len() - 1;
    POWER_BINS
        .iter()
        .map(|&(low, high)| {
            let (mut asked, mut stopped, mut expected) = (0, 0, 0.0);
            for k in low as usize..=(high as usize).min(last) {
                asked += p.power.asked[k];
                stopped += p.power.stopped[k];
                // Performers pull 1: the chance is the curve's own.
                expected += p.power.asked[k] as f32 * p.curve.chance(k as u32);
            }
            Bin {
                low,
                high,
                asked,
                stopped,
                model: expected / asked.max(1) as f32,
            }
        })
        .collect()
}

/// Share in the highest bin with `MIN_ASKED` decisions minus the share at 0 watching.
pub fn power_rise(bins: &[Bin]) -> f32 {
    let top = bins.iter().rev().find(|b| b.asked >= MIN_ASKED);
    match (top, bins.first()) {
        (Some(t), Some(z)) if z.asked >= MIN_ASKED && t.low > 0 => t.share() - z.share(),
        _ => f32::NAN,
    }
}

pub fn power_rows(p: &Power) -> Vec<Row> {
    let bins = bins(p);
    let mut rows = Vec::new();
    for b in &bins {
        let w = b.low as f32;
        let (low, high) = if b.asked >= MIN_ASKED {
            b.band()
        } else {
            (f32::NAN, f32::NAN)
        };
        rows.push(Row::new(
            "attraction_drawing_power",
            "watchers",
            w,
            b.share(),
            "share",
            low,
            high,
        ));
        rows.push(Row::new(
            "attraction_drawing_power_model",
            "watchers",
            w,
            b.model,
            "share",
            f32::NAN,
            f32::NAN,
        ));
        rows.push(Row::new(
            "attraction_drawing_power_asked",
            "watchers",
            w,
            b.asked as f32,
            "people",
            f32::NAN,
            f32::NAN,
        ));
    }
    rows.push(Row::new(
        "attraction_drawing_power_trend",
        "seeds",
        p.seeds as f32,
        power_rise(&bins),
        "share",
        MIN_POWER_RISE,
        f32::NAN,
    ));
    rows
}

/// A fence line dropped across the north street and taken away again.
#[derive(Debug, Clone)]
pub struct Reroute {
    pub seed: u64,
    /// Walkers whose way ahead the fences cut.
    pub cut: usize,
    /// Simulated seconds until every one of them had a way round (infinite: not within 10 s).
    pub rerouted_s: f32,
    /// People standing inside a fence 2 s after it went up.
    pub inside: usize,
    /// Cut walkers whose line from where they stand to their next waypoint crossed a fence
    /// 2 s after it went up (pushed off their route by the crowd; reported only).
    pub pushed_off: usize,
    /// Of the cut walkers with a clear straight line to their goal once the fences went, the
    /// share heading straight for it within 2 s.
    pub straight_again: f32,
    pub could_go_straight: usize,
}

/// Three fences end to end across the north street (14 m between the buildings), leaving
/// 2.5 m either side: walkers coming up from the street have to go round.
pub fn fence_line() -> Vec<Placed> {
    [-3.0f32, 0.0, 3.0]
        .iter()
        .enumerate()
        .map(|(k, &x)| {
            thing(
                &format!("fence_{}", k + 1),
                ThingKind::Fence,
                Vec2::new(x, -76.0),
                0.0,
            )
        })
        .collect()
}

/// Whether `i` has a way round on `nav`: its planned route's legs (waypoint to waypoint, then
/// to the goal) are clear, or, with no route, the straight line to the goal. The leg from where
/// it stands to its first waypoint is left out: in the street's crush people are pushed off
/// their line, and a route stays the way round while they are.
fn has_way_round(c: &Crowd, nav: &NavGrid, i: usize) -> bool {
    match c.route[i].first() {
        None => nav.clear_line(c.pos[i], c.goal[i]),
        Some(&first) => {
            let mut from = first;
            for &w in c.route[i][1..].iter().chain(std::iter::once(&c.goal[i])) {
                if !nav.clear_line(from, w) {
                    return false;
                }
                from = w;
            }
            true
        }
    }
}

/// Whether the way `i` follows (its route's legs, then to its goal) is clear on `nav`.
fn way_clear(c: &Crowd, nav: &NavGrid, i: usize) -> bool {
    let mut from = c.pos[i];
    for &w in c.route[i].iter().chain(std::iter::once(&c.goal[i])) {
        if !nav.clear_line(from, w) {
            return false;
        }
        from = w;
    }
    true
}

pub fn fence(seed: u64, effort: Effort) -> Reroute {
    let mut level = plaza();
    let mut c = Crowd::from_level(&level, PEOPLE, seed);
    // The street fills from its spawn zone within seconds.
    for _ in 0..steps_in(effort.pick(10.0, 5.0)) {
        step(&mut c);
    }
    let before = level.clone();
    let nav_before = NavGrid::new(c.level());
    place(&mut level, fence_line()).expect("the fence line fits");
    c.set_placed(&level);
    let fences: Vec<_> = c
        .level()
        .obstacles
        .iter()
        .filter(|o| o.name.starts_with("fence_"))
        .map(|o| o.shape)
        .collect();
    let nav_after = NavGrid::new(c.level());
    // Cut: the way was clear before, and is not with the fences (measured right after the
    // push-out, before a step re-plans anyone).
    let cut: Vec<usize> = (0..c.len())
        .filter(|&i| c.state[i] == AgentState::Walking)
        .filter(|&i| way_clear(&c, &nav_before, i) && !way_clear(&c, &nav_after, i))
        .collect();
    let mut rerouted_s = f32::INFINITY;
    let (mut inside, mut pushed_off) = (0, 0);
    for s in 0..steps_in(10.0) {
        if rerouted_s.is_finite() && s >= steps_in(REROUTE_WITHIN_S) {
            break;
        }
        step(&mut c);
        if rerouted_s.is_infinite() && cut.iter().all(|&i| has_way_round(&c, &nav_after, i)) {
            rerouted_s = (s + 1) as f32 * dt();
        }
        if s + 1 == steps_in(REROUTE_WITHIN_S) {
            pushed_off = cut
                .iter()
                .filter(|&&i| !way_clear(&c, &nav_after, i))
                .count();
            inside = (0..c.len())
                .filter(|&i| fences.iter().any(|f| f.signed_distance(c.pos[i]).0 < 0.0))
                .count();
        }
    }
    c.set_placed(&before);
    let could: Vec<usize> = cut
        .iter()
        .copied()
        .filter(|&i| nav_before.clear_line(c.pos[i], c.goal[i]))
        .collect();
    let mut straight = vec![false; c.len()];
    for _ in 0..steps_in(REROUTE_WITHIN_S) {
        step(&mut c);
        for &i in &could {
            straight[i] |= c.route[i].len() <= 1;
        }
    }
    let straight_n = could.iter().filter(|&&i| straight[i]).count();
    Reroute {
        seed,
        cut: cut.len(),
        rerouted_s,
        inside,
        pushed_off,
        straight_again: straight_n as f32 / could.len().max(1) as f32,
        could_go_straight: could.len(),
    }
}

pub fn fence_rows(runs: &[Reroute]) -> Vec<Row> {
    let mut rows = Vec::new();
    for r in runs {
        let row = |test: &str, measured: f32, unit: &str, low: f32, high: f32| {
            Row::new(test, "seed", r.seed as f32, measured, unit, low, high)
        };
        rows.extend([
            // A fence across a busy street must cut someone's way, or nothing was tested.
            row(
                "attraction_fence_reroute_cut",
                r.cut as f32,
                "people",
                5.0,
                f32::NAN,
            ),
            row(
                "attraction_fence_reroute_time",
                r.rerouted_s,
                "s",
                f32::NAN,
                REROUTE_WITHIN_S,
            ),
            row(
                "attraction_fence_reroute_inside",
                r.inside as f32,
                "people",
                0.0,
                0.0,
            ),
            row(
                "attraction_fence_reroute_pushed_off",
                r.pushed_off as f32,
                "people",
                f32::NAN,
                f32::NAN,
            ),
            row(
                "attraction_fence_reroute_straight_again",
                r.straight_again,
                "share",
                MIN_STRAIGHT_AGAIN,
                f32::NAN,
            ),
        ]);
    }
    rows
}

/// Two food stands' queues over a run.
#[derive(Debug, Clone)]
pub struct Queues {
    pub seed: u64,
    pub seconds: f32,
    /// Per stand (open, bent): mean and longest queue, served, the line's places and its
    /// sharpest turn (degrees).
    pub mean_len: [f32; 2],
    pub max_len: [usize; 2],
    pub served: [u32; 2],
    pub places: [usize; 2],
    pub turn_deg: [f32; 2],
    /// Line places whose body would overlap an obstacle, and queuing people standing inside
    /// one at any sampled second.
    pub places_in_obstacles: usize,
    pub people_in_obstacles: usize,
}

/// One stand in the open; one with a fence 3 m in front of its counter, across its line.
pub fn stands() -> Vec<Placed> {
    vec![
        thing(
            "stand_open",
            ThingKind::FoodStand,
            Vec2::new(-20.0, -30.0),
            0.0,
        ),
        thing(
            "stand_bent",
            ThingKind::FoodStand,
            Vec2::new(20.0, -30.0),
            0.0,
        ),
        thing(
            "stand_bent_fence",
            ThingKind::Fence,
            Vec2::new(20.0, -25.6),
            0.0,
        ),
    ]
}

/// The sharpest turn between consecutive legs of a line (degrees).
pub fn sharpest_turn(line: &[Vec2]) -> f32 {
    line.windows(3)
        .map(|w| (w[1] - w[0]).angle_between(w[2] - w[1]).abs().to_degrees())
        .fold(0.0, f32::max)
}

/// Whether a body at `p` would overlap any of the crowd's obstacles.
fn in_obstacle(c: &Crowd, p: Vec2, radius: f32) -> bool {
    c.level()
        .obstacles
        .iter()
        .any(|o| o.shape.signed_distance(p).0 < radius)
}

/// Steps `c` for `seconds`, following the two stands' queues.
fn watch_queues(c: &mut Crowd, seed: u64, seconds: f32) -> Queues {
    let poi = |name: &str| {
        c.level()
            .points_of_interest
            .iter()
            .position(|p| p.name == name)
            .expect("the stand's queue")
    };
    let ks = [poi("stand_open queue"), poi("stand_bent queue")];
    let (mut sum, mut max_len, mut people_in) = ([0usize; 2], [0usize; 2], 0);
    let mut samples = 0;
    let per_second = steps_in(1.0);
    for s in 0..steps_in(seconds) {
        step(c);
        if (s + 1) % per_second != 0 {
            continue;
        }
        samples += 1;
        for (j, &k) in ks.iter().enumerate() {
            let q = &c.queues()[k];
            sum[j] += q.len();
            max_len[j] = max_len[j].max(q.len());
            people_in += q
                .iter()
                .filter(|&&a| in_obstacle(c, c.pos[a as usize], 0.0))
                .count();
        }
    }
    let lines = c.queue_lines();
    Queues {
        seed,
        seconds,
        mean_len: sum.map(|s| s as f32 / samples.max(1) as f32),
        max_len,
        served: ks.map(|k| c.served()[k]),
        places: ks.map(|k| lines[k].len()),
        turn_deg: ks.map(|k| sharpest_turn(&lines[k])),
        places_in_obstacles: ks
            .iter()
            .flat_map(|&k| lines[k].iter())
            .filter(|&&p| in_obstacle(c, p, BODY_RADIUS))
            .count(),
        people_in_obstacles: people_in,
    }
}

pub fn queue_rows(runs: &[Queues]) -> Vec<Row> {
    let mut rows = Vec::new();
    for q in runs {
        let minutes = q.seconds / 60.0;
        for (j, name) in ["open", "bent"].iter().enumerate() {
            let row = |what: &str, measured: f32, unit: &str, low: f32, high: f32| {
                Row::new(
                    &format!("attraction_queue_{name}_{what}"),
                    "seed",
                    q.seed as f32,
                    measured,
                    unit,
                    low,
                    high,
                )
            };
            let capacity = crate::level::sandbox::STAND_QUEUE as f32;
            rows.extend([
                row("mean_length", q.mean_len[j], "people", f32::NAN, f32::NAN),
                row("max_length", q.max_len[j] as f32, "people", 1.0, capacity),
                row(
                    "served_per_minute",
                    q.served[j] as f32 / minutes,
                    "people/min",
                    MIN_SERVED_PER_MINUTE,
                    f32::NAN,
                ),
                row("places", q.places[j] as f32, "places", capacity, f32::NAN),
            ]);
        }
        let row = |test: &str, measured: f32, unit: &str, low: f32, high: f32| {
            Row::new(test, "seed", q.seed as f32, measured, unit, low, high)
        };
        rows.extend([
            // The fence turns the bent line by at least one of the builder's 30° steps; the
            // open one runs straight.
            row(
                "attraction_queue_bent_turn",
                q.turn_deg[1],
                "deg",
                30.0,
                f32::NAN,
            ),
            row(
                "attraction_queue_open_turn",
                q.turn_deg[0],
                "deg",
                f32::NAN,
                1.0,
            ),
            row(
                "attraction_queue_places_in_obstacles",
                q.places_in_obstacles as f32,
                "places",
                0.0,
                0.0,
            ),
            row(
                "attraction_queue_people_in_obstacles",
                q.people_in_obstacles as f32,
                "people",
                0.0,
                0.0,
            ),
        ]);
    }
    rows
}

/// Everything the attraction scenarios measured, for the rows and the plot.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub rings: Vec<Ring>,
    pub power: Power,
    pub reroutes: Vec<Reroute>,
    pub queues: Vec<Queues>,
}

pub fn measure(effort: Effort, mut progress: impl FnMut(&str)) -> Outcome {
    let seeds = effort.pick(&[1u64, 2, 3][..], &[1u64][..]);
    let mut rings = Vec::new();
    let mut power = DrawingPower::default();
    let mut reroutes = Vec::new();
    let mut queues = Vec::new();
    for &s in seeds {
        progress(&format!("attraction: a performer's ring, seed {s}"));
        rings.push(ring(s));
        progress(&format!(
            "attraction: six performers and two food stands, seed {s}"
        ));
        let (p, q) = busy(s, busy_seconds(effort));
        power.add(&p);
        queues.push(q);
        progress(&format!(
            "attraction: a fence across the north street, seed {s}"
        ));
        reroutes.push(fence(s, effort));
    }
    let power = Power {
        power,
        curve: plaza().crowd.behaviour.show_stop,
        seconds: busy_seconds(effort),
        seeds: seeds.len(),
    };
    Outcome {
        rings,
        power,
        reroutes,
        queues,
    }
}

pub fn rows(o: &Outcome) -> Vec<Row> {
    let mut rows = ring_rows(&o.rings);
    rows.extend(power_rows(&o.power));
    rows.extend(fence_rows(&o.reroutes));
    rows.extend(queue_rows(&o.queues));
    rows
}

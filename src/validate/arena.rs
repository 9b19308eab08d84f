//! The places the validation runs in: a level built from a few walls, and a corridor that loops
//! (what leaves one end comes back in at the other) with "ghost" copies of the people near each
//! end, so that nobody near the seam walks into an empty corridor: a true periodic boundary, as
//! the laboratory's ring corridors give, without teaching the simulation about wrap-around.

use glam::Vec2;

use crate::crowd::{Crowd, StepInputs};
use crate::level::Level;

/// One simulation step of the validation: the game's own fixed step.
/// The simulation rates the scenarios run at (steps per second): the game's 60 Hz, and 30 Hz
/// for a crowd that ticks at half the frame rate.
pub const RATES: [u32; 2] = [60, 30];

thread_local! {
    static STEP_HZ: std::cell::Cell<u32> = const { std::cell::Cell::new(60) };
}

/// One step's length (s) at the rate this thread's scenarios run at (60 Hz unless `at_rate`).
pub fn dt() -> f32 {
    1.0 / STEP_HZ.with(std::cell::Cell::get) as f32
}

/// Runs `f` with the scenarios on this thread stepping at `hz` (one of `RATES`).
pub fn at_rate<T>(hz: u32, f: impl FnOnce() -> T) -> T {
    let old = STEP_HZ.with(|r| r.replace(hz));
    let out = f();
    STEP_HZ.with(|r| r.set(old));
    out
}

/// A wall as an axis-aligned box: centre and half extents (m).
#[derive(Debug, Clone, Copy)]
pub struct Wall {
    pub center: Vec2,
    pub half: Vec2,
}

impl Wall {
    /// The box between two corners.
    pub fn between(a: Vec2, b: Vec2) -> Self {
        Wall {
            center: (a + b) * 0.5,
            half: (b - a).abs() * 0.5,
        }
    }
}

/// A level with these bounds and walls and nothing else; people get `walk_speed` (m/s, the same
/// for everyone when `min == max`).
pub fn walled_level(min: Vec2, max: Vec2, walls: &[Wall], walk_speed: (f32, f32)) -> Level {
    let walls: String = walls
        .iter()
        .enumerate()
        .map(|(k, w)| {
            format!(
                "(name: \"wall{k}\", kind: Wall, shape: Box(center: ({}, {}), half_extents: ({}, {}))),",
                w.center.x, w.center.y, w.half.x, w.half.y
            )
        })
        .collect();
    let src = format!(
        r#"Level(
    name: "validation",
    bounds: (min: ({}, {}), max: ({}, {})),
    obstacles: [{walls}],
    spawn_zones: [(name: "all", center: (0.0, 0.0), half_extents: (1.0, 1.0))],
    crowd: (
        count: 0,
        models: [(name: "m", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "g", models: ["m"])],
        walk_speed: (min: {}, max: {}),
        seed: 1,
    ),
    hero: (model: "assets/hero/Godette_vrm_v4.vrm", spawn: (0.0, 0.0)),
)"#,
        min.x, min.y, max.x, max.y, walk_speed.0, walk_speed.1
    );
    // Built from numbers this module chooses: a parse failure is a bug here, not user input.
    ron::from_str(&src).expect("the validation level is well formed")
}

/// How far past each end people are copied as ghosts (m): more than anyone looks ahead.
const GHOST_BAND: f32 = 2.5;
/// Ghost slots per m² of the two ghost bands: above the closest packing of bodies.
const GHOST_DENSITY: f32 = 7.5;
/// How far ahead of each walker its goal is kept (m): well past the arrival slow-down.
const GOAL_AHEAD: f32 = 5.0;
const PARK_SPACING: f32 = 0.6;

/// A straight corridor along x, `length` long and `width` wide, that loops. Each person walks
/// +x or −x for ever; the people within `GHOST_BAND` of one end are mirrored past the other.
pub struct LoopCorridor {
    pub crowd: Crowd,
    pub length: f32,
    pub width: f32,
    /// The first `walkers` agents are people; the rest are ghost slots.
    walkers: usize,
    /// +1 or −1 per person: the way they walk.
    pub direction: Vec<f32>,
    parking: Vec<Vec2>,
    /// Ghosts that found no free slot in the last step (the bands were fuller than planned).
    pub ghosts_missing: usize,
    /// Scratch: the people's positions before the step.
    before: Vec<Vec2>,
}

impl LoopCorridor {
    /// People at `starts` (inside the corridor), each walking the way its sign says.
    pub fn new(
        length: f32,
        width: f32,
        starts: &[(Vec2, f32)],
        speed: (f32, f32),
        seed: u64,
    ) -> Self {
        let half = Vec2::new(length * 0.5, width * 0.5);
        let slots = (2.0 * GHOST_BAND * width * GHOST_DENSITY).ceil() as usize;
        let rows = ((width - PARK_SPACING) / PARK_SPACING).floor().max(1.0) as usize;
        let cols = slots.div_ceil(rows);
        let park_x = half.x + GOAL_AHEAD + GHOST_BAND + 2.0;
        let parking: Vec<Vec2> = (0..slots)
            .map(|k| {
                Vec2::new(
                    park_x + (k / rows) as f32 * PARK_SPACING,
                    -half.y + PARK_SPACING * (1 + k % rows) as f32,
                )
            })
            .collect();
        let max_x = park_x + cols as f32 * PARK_SPACING + 1.0;
        let level = walled_level(
            Vec2::new(-max_x, -half.y),
            Vec2::new(max_x, half.y),
            &[],
            speed,
        );
        let mut agents: Vec<(Vec2, Vec2)> = starts
            .iter()
            .map(|&(p, dir)| (p, p + Vec2::new(dir * GOAL_AHEAD, 0.0)))
            .collect();
        agents.extend(parking.iter().map(|&p| (p, p)));
        let crowd = Crowd::with_fixed_goals(&level, &agents, seed);
        LoopCorridor {
            crowd,
            length,
            width,
            walkers: starts.len(),
            direction: starts.iter().map(|s| s.1.signum()).collect(),
            parking,
            ghosts_missing: 0,
            before: Vec::new(),
        }
    }

    pub fn walkers(&self) -> usize {
        self.walkers
    }

    /// One step: ghosts placed from the people near the ends, the crowd stepped, people who
    /// crossed an end moved to the other, goals kept ahead. Returns each person's displacement
    /// along its own walking direction (m), seams undone.
    pub fn step(&mut self, along: &mut Vec<f32>) {
        self.place_ghosts();
        self.before.clear();
        self.before
            .extend_from_slice(&self.crowd.pos[..self.walkers]);
        self.crowd.step(dt(), &StepInputs::default());
        along.clear();
        let half = self.length * 0.5;
        for (i, was) in self.before.iter().enumerate() {
            let mut p = self.crowd.pos[i];
            let moved = p.x - was.x;
            along.push(moved * self.direction[i]);
            if p.x > half {
                p.x -= self.length;
            } else if p.x < -half {
                p.x += self.length;
            }
            self.crowd.pos[i] = p;
            self.crowd.goal[i] = Vec2::new(p.x + self.direction[i] * GOAL_AHEAD, p.y);
        }
    }

    /// Person `i`'s velocity over the last step (m/s): their displacement, seam undone, over
    /// the step's time; zero before the first step.
    pub fn step_velocity(&self, i: usize) -> Vec2 {
        let Some(&was) = self.before.get(i) else {
            return Vec2::ZERO;
        };
        let mut moved = self.crowd.pos[i] - was;
        // Whoever crossed an end was moved a corridor's length back: undo it.
        if moved.x > self.length * 0.5 {
            moved.x -= self.length;
        } else if moved.x < -self.length * 0.5 {
            moved.x += self.length;
        }
        moved / dt()
    }

    fn place_ghosts(&mut self) {
        let half = self.length * 0.5;
        let mut slot = self.walkers;
        let end = self.crowd.len();
        self.ghosts_missing = 0;
        for i in 0..self.walkers {
            let p = self.crowd.pos[i];
            let shift = if p.x > half - GHOST_BAND {
                -self.length
            } else if p.x < -half + GHOST_BAND {
                self.length
            } else {
                continue;
            };
            if slot == end {
                self.ghosts_missing += 1;
                continue;
            }
            let offset = Vec2::new(shift, 0.0);
            self.crowd.pos[slot] = p + offset;
            self.crowd.vel[slot] = self.crowd.vel[i];
            self.crowd.goal[slot] = self.crowd.goal[i] + offset;
            self.crowd.pref_speed[slot] = self.crowd.pref_speed[i];
            slot += 1;
        }
        for s in slot..end {
            let park = self.parking[s - self.walkers];
            self.crowd.pos[s] = park;
            self.crowd.vel[s] = Vec2::ZERO;
            self.crowd.goal[s] = park;
        }
    }
}

/// How people stand when a scenario starts. A model whose measurements hold for every
/// arrangement owes them to its rules, not to the order it was started in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    /// A jittered square grid (rows and files).
    Grid,
    /// A hexagonal lattice: each row offset by half a spacing, so no straight files.
    Hexagonal,
    /// Uniformly random spots no closer than a minimum spacing (dart throwing).
    Random,
}

impl Arrangement {
    pub const ALL: [Arrangement; 3] = [
        Arrangement::Grid,
        Arrangement::Hexagonal,
        Arrangement::Random,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Arrangement::Grid => "grid",
            Arrangement::Hexagonal => "hexagonal",
            Arrangement::Random => "random",
        }
    }

    /// `count` starting spots on the rectangle `min..max`, in random order.
    pub fn place(self, count: usize, min: Vec2, max: Vec2, rng: &mut fastrand::Rng) -> Vec<Vec2> {
        match self {
            Arrangement::Grid => spread(count, min, max, rng),
            Arrangement::Hexagonal => hexagonal(count, min, max, rng),
            Arrangement::Random => random_spaced(count, min, max, rng),
        }
    }
}

/// A hexagonal lattice with the spacing that holds `count` on the rectangle (shrunk until it
/// does, as the edges lose part of a row), shuffled and cut to `count`.
fn hexagonal(count: usize, min: Vec2, max: Vec2, rng: &mut fastrand::Rng) -> Vec<Vec2> {
    let size = max - min;
    if count == 0 || size.x <= 0.0 || size.y <= 0.0 {
        return Vec::new();
    }
    // Each spot of a lattice with spacing s covers s² √3 / 2.
    let mut spacing = (2.0 * size.x * size.y / (count as f32 * 3f32.sqrt())).sqrt();
    loop {
        let row_step = spacing * 3f32.sqrt() * 0.5;
        let rows = ((size.y / row_step).floor() as usize).max(1);
        let mut spots = Vec::new();
        for r in 0..rows {
            let y = min.y + (r as f32 + 0.5) * size.y / rows as f32;
            let shift = if r % 2 == 1 { 0.5 * spacing } else { 0.0 };
            let cols = (((size.x - shift) / spacing).floor() as usize).max(1);
            for c in 0..cols {
                spots.push(Vec2::new(min.x + shift + (c as f32 + 0.5) * spacing, y));
            }
        }
        if spots.len() >= count {
            rng.shuffle(&mut spots);
            spots.truncate(count);
            return spots;
        }
        spacing *= 0.98;
    }
}

/// Random spots at least `0.75 √(area per person)` apart (0.34 m at 5 per m², under a body's
/// 0.4 m: random packing jams near 55 % cover, the full spacing would not fit), thrown one at a
/// time; the spacing gives way by 5 % when a spot takes too many throws.
fn random_spaced(count: usize, min: Vec2, max: Vec2, rng: &mut fastrand::Rng) -> Vec<Vec2> {
    let size = max - min;
    if count == 0 || size.x <= 0.0 || size.y <= 0.0 {
        return Vec::new();
    }
    let mut gap = 0.75 * (size.x * size.y / count as f32).sqrt();
    let cols = ((size.x / gap).ceil() as usize).max(1);
    let rows = ((size.y / gap).ceil() as usize).max(1);
    let cell = Vec2::new(size.x / cols as f32, size.y / rows as f32);
    let mut cells: Vec<Vec<usize>> = vec![Vec::new(); cols * rows];
    let cell_of = |p: Vec2| {
        let c = (((p.x - min.x) / cell.x) as usize).min(cols - 1);
        let r = (((p.y - min.y) / cell.y) as usize).min(rows - 1);
        (c, r)
    };
    let mut spots: Vec<Vec2> = Vec::with_capacity(count);
    let mut throws = 0;
    while spots.len() < count {
        let p = min + Vec2::new(rng.f32() * size.x, rng.f32() * size.y);
        let (c, r) = cell_of(p);
        // The gap may have shrunk below a cell: look as many cells out as it spans.
        let reach_x = (gap / cell.x).ceil() as usize;
        let reach_y = (gap / cell.y).ceil() as usize;
        let clear = (r.saturating_sub(reach_y)..=(r + reach_y).min(rows - 1)).all(|rr| {
            (c.saturating_sub(reach_x)..=(c + reach_x).min(cols - 1)).all(|cc| {
                cells[rr * cols + cc]
                    .iter()
                    .all(|&k| spots[k].distance(p) >= gap)
            })
        });
        if clear {
            cells[r * cols + c].push(spots.len());
            spots.push(p);
            throws = 0;
        } else {
            throws += 1;
            if throws > 200 {
                gap *= 0.95;
                throws = 0;
            }
        }
    }
    spots
}

/// Evenly spread, slightly jittered starting spots for `count` people on the rectangle
/// `min..max` (a jittered grid: no two start on top of each other).
pub fn spread(count: usize, min: Vec2, max: Vec2, rng: &mut fastrand::Rng) -> Vec<Vec2> {
    let size = max - min;
    let cols = ((count as f32 * size.x / size.y).sqrt().ceil() as usize).max(1);
    let rows = count.div_ceil(cols).max(1);
    let cell = Vec2::new(size.x / cols as f32, size.y / rows as f32);
    let mut spots: Vec<Vec2> = (0..rows * cols)
        .map(|k| {
            let jitter = Vec2::new(rng.f32() - 0.5, rng.f32() - 0.5) * cell * 0.3;
            min + Vec2::new((k % cols) as f32 + 0.5, (k / cols) as f32 + 0.5) * cell + jitter
        })
        .collect();
    rng.shuffle(&mut spots);
    spots.truncate(count);
    spots
}

#[cfg(test)]
mod arrangement_tests {
    use super::*;

    fn nearest_gaps(spots: &[Vec2]) -> f32 {
        let mut least = f32::INFINITY;
        for (i, a) in spots.iter().enumerate() {
            for b in &spots[i + 1..] {
                least = least.min(a.distance(*b));
            }
        }
        least
    }

    #[test]
    fn every_arrangement_places_everyone_inside_and_apart() {
        let (min, max) = (Vec2::new(-15.0, -2.75), Vec2::new(15.0, 2.75));
        for density in [0.5f32, 2.0, 5.0] {
            let count = (density * 30.0 * 6.0).round() as usize;
            for arrangement in Arrangement::ALL {
                let mut rng = fastrand::Rng::with_seed(7);
                let spots = arrangement.place(count, min, max, &mut rng);
                assert_eq!(spots.len(), count, "{arrangement:?} at {density}");
                assert!(
                    spots
                        .iter()
                        .all(|p| p.cmpge(min).all() && p.cmple(max).all()),
                    "{arrangement:?} at {density}: a spot outside"
                );
                // Apart by at least 0.28 m even at 5 per m² (0.45 m apart on average; the
                // grid's jitter and the random spacing take some of it).
                let gap = nearest_gaps(&spots);
                assert!(gap > 0.28, "{arrangement:?} at {density}: {gap}");
            }
        }
    }

    #[test]
    fn hexagonal_rows_are_offset_and_random_spots_form_no_files() {
        let (min, max) = (Vec2::new(-15.0, -2.75), Vec2::new(15.0, 2.75));
        let mut rng = fastrand::Rng::with_seed(3);
        let files = |spots: &[Vec2]| {
            let mut ys: Vec<i32> = spots
                .iter()
                .map(|p| (p.y * 1000.0).round() as i32)
                .collect();
            ys.sort_unstable();
            ys.dedup();
            ys.len()
        };
        let hex = Arrangement::Hexagonal.place(330, min, max, &mut rng);
        let xs_of_row = |row_y: f32| -> Vec<f32> {
            hex.iter()
                .filter(|p| (p.y - row_y).abs() < 1e-4)
                .map(|p| p.x)
                .collect()
        };
        let mut ys: Vec<f32> = hex.iter().map(|p| p.y).collect();
        ys.sort_by(f32::total_cmp);
        ys.dedup_by(|a, b| (*a - *b).abs() < 1e-4);
        assert!(ys.len() >= 4, "rows {ys:?}");
        let (a, b) = (xs_of_row(ys[0]), xs_of_row(ys[1]));
        let offset = a
            .iter()
            .map(|x| {
                b.iter()
                    .map(|y| (x - y).abs())
                    .fold(f32::INFINITY, f32::min)
            })
            .fold(f32::INFINITY, f32::min);
        assert!(offset > 0.3, "neighbouring rows share columns: {offset}");
        // Random spots: (almost) everyone at a lateral position of their own, to the millimetre.
        let random = Arrangement::Random.place(330, min, max, &mut rng);
        assert!(files(&random) > 300, "{}", files(&random));
    }
}

//! The places the validation runs in: a level built from a few walls, and a corridor that loops
//! (what leaves one end comes back in at the other) with "ghost" copies of the people near each
//! end, so that nobody near the seam walks into an empty corridor: a true periodic boundary, as
//! the laboratory's ring corridors give, without teaching the simulation about wrap-around.

use glam::Vec2;

use crate::crowd::{Crowd, StepInputs};
use crate::level::Level;

/// One simulation step of the validation: the game's own fixed step.
pub const DT: f32 = 1.0 / 60.0;

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
        self.crowd.step(DT, &StepInputs::default());
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

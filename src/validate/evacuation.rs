//! Evacuation: 500 people leave a 20 x 20 m room by its nearest open exit (four 1.2 m doors, one
//! in the middle of each wall); then again with two of them closed. Fewer exits must take
//! clearly longer, and nobody may be left inside.

use glam::Vec2;

use super::arena::{dt, walled_level, Arrangement, Wall};
use super::{Effort, Row};
use crate::crowd::{Crowd, StepInputs};

const HALF_ROOM: f32 = 10.0;
const WALL: f32 = 0.4;
pub const DOOR: f32 = 1.2;
/// With half the exits the time must grow by at least this factor.
pub const MIN_SLOWDOWN: f32 = 1.5;

pub struct Outcome {
    pub arrangement: Arrangement,
    pub seed: u64,
    pub exits: usize,
    pub people: usize,
    /// Seconds until the last person was out (infinite: someone never got out).
    pub seconds: f32,
    pub inside: usize,
    /// What the constraint pass moved over the run.
    pub corrections: crate::crowd::Corrections,
}

/// The four exits' outward directions: east, north, west, south.
const EXITS: [Vec2; 4] = [Vec2::X, Vec2::Y, Vec2::NEG_X, Vec2::NEG_Y];

pub fn measure(exits: usize, effort: Effort, seed: u64, arrangement: Arrangement) -> Outcome {
    let people = effort.pick(500, 250);
    let open = &EXITS[..exits.clamp(1, 4)];
    let mut walls = Vec::new();
    for dir in EXITS {
        let side = dir.perp();
        let (near, far) = (dir * HALF_ROOM, dir * (HALF_ROOM + WALL));
        let gap = if open.contains(&dir) { DOOR * 0.5 } else { 0.0 };
        let end = HALF_ROOM + WALL;
        walls.push(Wall::between(near + side * gap, far + side * end));
        walls.push(Wall::between(near - side * gap, far - side * end));
    }
    let outside = HALF_ROOM + 14.0;
    let level = walled_level(
        Vec2::splat(-outside),
        Vec2::splat(outside),
        &walls,
        (1.24, 1.44),
    );
    let mut rng = fastrand::Rng::with_seed(seed);
    let inner = HALF_ROOM - 0.5;
    let starts = arrangement.place(people, Vec2::splat(-inner), Vec2::splat(inner), &mut rng);
    let agents: Vec<(Vec2, Vec<Vec2>)> = starts
        .into_iter()
        .map(|p| {
            let exit = open
                .iter()
                .copied()
                .min_by(|a, b| {
                    p.distance(*a * HALF_ROOM)
                        .total_cmp(&p.distance(*b * HALF_ROOM))
                })
                .unwrap_or(Vec2::X);
            // Out through the door, then away to a spot spread over the ground beyond it.
            let through = exit * (HALF_ROOM + WALL + 1.0);
            let away =
                exit * (HALF_ROOM + 4.0 + rng.f32() * 9.0) + exit.perp() * (rng.f32() - 0.5) * 24.0;
            (p, vec![through, away])
        })
        .collect();
    let mut crowd = Crowd::with_fixed_routes(&level, &agents, seed);
    crowd.measure_corrections = true;
    let is_inside =
        |p: Vec2| p.x.abs() < HALF_ROOM + WALL * 0.5 && p.y.abs() < HALF_ROOM + WALL * 0.5;
    let mut seconds = f32::INFINITY;
    for step in 0..(effort.pick(600.0, 400.0) / dt()) as usize {
        crowd.step(dt(), &StepInputs::default());
        if !crowd.pos.iter().any(|p| is_inside(*p)) {
            seconds = (step + 1) as f32 * dt();
            break;
        }
    }
    Outcome {
        arrangement,
        seed,
        exits: open.len(),
        people,
        seconds,
        inside: crowd.pos.iter().filter(|p| is_inside(**p)).count(),
        corrections: crowd.corrections,
    }
}

pub fn rows(all_open: &Outcome, half_open: &Outcome) -> Vec<Row> {
    let mut rows = Vec::new();
    for o in [all_open, half_open] {
        rows.extend(run_rows("evacuation", "exits", o));
        rows.extend(super::correction_rows(
            "evacuation",
            "exits",
            o.exits as f32,
            &o.corrections,
        ));
    }
    rows.push(Row::new(
        "evacuation_slowdown",
        "exits",
        half_open.exits as f32,
        half_open.seconds / all_open.seconds,
        "ratio",
        MIN_SLOWDOWN,
        f32::NAN,
    ));
    rows
}

/// The rows of the runs from other starts (`starts`: pairs of four and two exits): nobody left
/// inside and the slowdown, per start; and the spread of the times over every start, the main
/// pair included, per number of exits.
pub fn start_rows(main: (&Outcome, &Outcome), starts: &[(Outcome, Outcome)]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (all_open, half_open) in starts {
        let name = format!("evacuation_{}", all_open.arrangement.name());
        let parameter = format!("exits (seed {})", all_open.seed);
        for o in [all_open, half_open] {
            rows.extend(run_rows(&name, &parameter, o));
        }
        rows.push(Row::new(
            &format!("{name}_slowdown"),
            &parameter,
            half_open.exits as f32,
            half_open.seconds / all_open.seconds,
            "ratio",
            MIN_SLOWDOWN,
            f32::NAN,
        ));
    }
    for m in [main.0, main.1] {
        let times: Vec<f32> = std::iter::once(m)
            .chain(starts.iter().flat_map(|(all, half)| [all, half]))
            .filter(|o| o.exits == m.exits)
            .map(|o| o.seconds)
            .collect();
        rows.push(Row::new(
            "evacuation_spread",
            "exits",
            m.exits as f32,
            super::range_width(&times),
            "s",
            f32::NAN,
            f32::NAN,
        ));
    }
    rows
}

/// A run's time to empty the room (reported) and the people left inside.
fn run_rows(name: &str, parameter: &str, o: &Outcome) -> [Row; 2] {
    [
        Row::new(
            name,
            parameter,
            o.exits as f32,
            o.seconds,
            "s",
            f32::NAN,
            f32::NAN,
        ),
        Row::new(
            &format!("{name}_left_inside"),
            parameter,
            o.exits as f32,
            o.inside as f32,
            "people",
            0.0,
            0.0,
        ),
    ]
}

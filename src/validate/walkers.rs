//! RiMEA's first tests in spirit. Test 1: one person walks a 40 m corridor and must take the time
//! its preferred speed says. Test 6: twenty people turn a left corner and must neither touch nor
//! cut through the walls.

use glam::Vec2;

use super::arena::{dt, spread, walled_level, Wall};
use super::Row;
use crate::crowd::{Crowd, StepInputs, BODY_RADIUS};

pub const CORRIDOR: f32 = 40.0;
pub const SPEED: f32 = 1.33;
pub const TIME_TOLERANCE: f32 = 0.05;
/// Bodies may meet a wall this much at most (m): the constraint pass's tolerance.
pub const WALL_TOLERANCE: f32 = 0.02;

/// Seconds a lone walker at `SPEED` takes to cross the corridor's end line.
pub fn single_walker_seconds() -> f32 {
    let level = walled_level(
        Vec2::new(-1.0, -1.0),
        Vec2::new(CORRIDOR + 6.0, 1.0),
        &[],
        (SPEED, SPEED),
    );
    let mut crowd =
        Crowd::with_fixed_goals(&level, &[(Vec2::ZERO, Vec2::new(CORRIDOR + 5.0, 0.0))], 1);
    for step in 0..(3.0 * CORRIDOR / SPEED / dt()) as usize {
        crowd.step(dt(), &StepInputs::default());
        if crowd.pos[0].x >= CORRIDOR {
            return (step + 1) as f32 * dt();
        }
    }
    f32::INFINITY
}

/// Round the corner: in the second leg, past the first one's far wall.
fn turned(p: glam::Vec2) -> bool {
    p.x > 10.0 && p.y > 3.0
}

pub struct Corner {
    /// Deepest any body went into the wall around the corner (m; negative: never touched).
    pub deepest: f32,
    /// People who made it round the corner.
    pub arrived: usize,
    pub people: usize,
    pub seconds: f32,
}

/// A 2 m wide corridor runs 12 m along x, turns left and runs 12 m along y; twenty people start
/// in its first 6 m and walk to its far end.
pub fn corner() -> Corner {
    let inner = Wall::between(Vec2::new(0.0, 2.0), Vec2::new(10.0, 12.0));
    let level = walled_level(Vec2::ZERO, Vec2::new(12.0, 12.0), &[inner], (1.24, 1.44));
    let mut rng = fastrand::Rng::with_seed(6);
    let people = 20;
    let starts = spread(people, Vec2::new(0.4, 0.4), Vec2::new(6.0, 1.6), &mut rng);
    let goals = spread(
        people,
        Vec2::new(10.4, 6.0),
        Vec2::new(11.6, 11.6),
        &mut rng,
    );
    let agents: Vec<(Vec2, Vec2)> = starts.into_iter().zip(goals).collect();
    let mut crowd = Crowd::with_fixed_goals(&level, &agents, 6);
    let mut deepest = f32::MIN;
    let mut seconds = f32::INFINITY;
    for step in 0..(60.0 / dt()) as usize {
        crowd.step(dt(), &StepInputs::default());
        for p in &crowd.pos {
            let (d, _) = level.obstacles[0].shape.signed_distance(*p);
            deepest = deepest.max(BODY_RADIUS - d);
        }
        if crowd.pos.iter().all(|p| turned(*p)) {
            seconds = (step + 1) as f32 * dt();
            break;
        }
    }
    let arrived = crowd.pos.iter().filter(|p| turned(**p)).count();
    Corner {
        deepest,
        arrived,
        people,
        seconds,
    }
}

pub fn rows(walker_seconds: f32, corner: &Corner) -> Vec<Row> {
    let expected = CORRIDOR / SPEED;
    vec![
        Row::new(
            "single_walker",
            "speed",
            SPEED,
            walker_seconds,
            "s",
            expected * (1.0 - TIME_TOLERANCE),
            expected * (1.0 + TIME_TOLERANCE),
        ),
        Row::new(
            "corner_wall_depth",
            "people",
            corner.people as f32,
            corner.deepest,
            "m",
            f32::NAN,
            WALL_TOLERANCE,
        ),
        Row::new(
            "corner_turned",
            "people",
            corner.people as f32,
            corner.arrived as f32,
            "people",
            corner.people as f32,
            f32::NAN,
        ),
        Row::new(
            "corner_time",
            "people",
            corner.people as f32,
            corner.seconds,
            "s",
            f32::NAN,
            f32::NAN,
        ),
    ]
}

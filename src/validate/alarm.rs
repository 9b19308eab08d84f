//! How fast an alarm spreads through a calm crowd by contagion alone: a 60 x 10 m strip of open
//! ground with 2 people per m² standing about, the way out at its west end, and an alarm there
//! that only the people within `HEARD` metres hear. Everyone else learns of it by seeing people
//! flee (`crowd.behaviour.alarm`: `contagion_rate`, `sight_distance`, half the pre-movement
//! time). The front is where half of a 2 m slab across the strip has caught the alarm; its
//! speed is the slope of the slabs' distances against those times (least squares).
//!
//! Evidence for the speed is thin (docs/CROWD.md, "Evacuation"): the band is a sanity band
//! between the speed of the velocity waves that run back through a packed marathon start corral
//! (about 1 m/s, Bain & Bartolo 2019), which need no warning at all, and that of a stadium's
//! Mexican wave (22 ± 3 seats per second, about 11 m/s; Farkas, Helbing & Vicsek 2002), a
//! purely visual wave people join on purpose.

use glam::Vec2;

use super::arena::{dt, spread, walled_level};
use super::{Effort, Row};
use crate::crowd::evacuation::PersonAlarm;
use crate::crowd::{Crowd, StepInputs};
use crate::level::{Exit, ExitArea};

const HALF: Vec2 = Vec2::new(30.0, 5.0);
const DENSITY: f32 = 2.0;
/// Only people this near the alarm hear it (m).
pub const HEARD: f32 = 4.0;
/// Width of the slabs across the strip the front is timed in (m).
const SLAB: f32 = 2.0;
/// The band for the front's speed (m/s); see the module's notes.
pub const SPEED: (f32, f32) = (1.0, 12.0);
/// Of the people who did not hear the alarm, at least this share must catch it.
pub const MIN_REACHED: f32 = 0.95;

#[derive(Debug, Clone)]
pub struct Outcome {
    pub seed: u64,
    pub people: usize,
    /// People who heard the alarm itself.
    pub heard: usize,
    /// Share of the others who caught it before the run ended.
    pub reached: f32,
    /// The front: (seconds after the alarm, metres from it) per slab it crossed.
    pub front: Vec<(f32, f32)>,
    /// Least-squares slope of distance over time (m/s) and the fit's R².
    pub speed: f32,
    pub r2: f32,
}

pub fn measure(effort: Effort, seed: u64) -> Outcome {
    let mut level = walled_level(-HALF, HALF, &[], (1.24, 1.44));
    level.exits = vec![Exit {
        name: "west end".into(),
        area: ExitArea::Line(Vec2::new(-HALF.x, -HALF.y), Vec2::new(-HALF.x, HALF.y)),
        capacity: None,
        closed: false,
    }];
    level.crowd.behaviour.alarm.hearing_radius = HEARD;
    let people = (DENSITY * 4.0 * HALF.x * HALF.y) as usize;
    let mut rng = fastrand::Rng::with_seed(seed);
    let inner = HALF - Vec2::splat(0.3);
    let starts = spread(people, -inner, inner, &mut rng);
    let agents: Vec<(Vec2, Vec2)> = starts.iter().map(|&p| (p, p)).collect();
    let mut crowd = Crowd::with_fixed_goals(&level, &agents, seed);
    // A second for the jittered start to settle, then the alarm at the west end.
    for _ in 0..(1.0 / dt()) as usize {
        crowd.step(dt(), &StepInputs::default());
    }
    let at = Vec2::new(-HALF.x, 0.0);
    crowd.raise_alarm(at);
    let heard = (0..people)
        .filter(|&i| crowd.alarm_of(i) != PersonAlarm::Calm)
        .count();
    // When each person caught it.
    let mut caught: Vec<Option<f32>> = (0..people)
        .map(|i| (crowd.alarm_of(i) != PersonAlarm::Calm).then_some(0.0))
        .collect();
    let limit = effort.pick(60.0, 40.0);
    for _ in 0..(limit / dt()) as usize {
        crowd.step(dt(), &StepInputs::default());
        let t = crowd.evacuation().alarm().map_or(0.0, |a| a.elapsed);
        for (i, c) in caught.iter_mut().enumerate() {
            if c.is_none() && crowd.alarm_of(i) != PersonAlarm::Calm {
                *c = Some(t);
            }
        }
        if caught.iter().all(Option::is_some) {
            break;
        }
    }
    let front = front_times(&starts, &caught, at);
    let (speed, r2) = fit(&front);
    let others = people - heard;
    let reached = caught.iter().flatten().count() - heard;
    Outcome {
        seed,
        people,
        heard,
        reached: reached as f32 / others.max(1) as f32,
        front,
        speed,
        r2,
    }
}

/// For each 2 m slab beyond the hearing radius, the seconds at which half of the people who
/// started in it had caught the alarm (slabs it never half crossed are left out).
fn front_times(starts: &[Vec2], caught: &[Option<f32>], at: Vec2) -> Vec<(f32, f32)> {
    let mut front = Vec::new();
    let mut x = HEARD + SLAB;
    while x + SLAB <= 2.0 * HALF.x {
        let mut times: Vec<f32> = Vec::new();
        let mut n = 0;
        for (p, c) in starts.iter().zip(caught) {
            let d = p.x - at.x;
            if d >= x && d < x + SLAB {
                n += 1;
                times.extend(c);
            }
        }
        times.sort_by(f32::total_cmp);
        if n > 0 && times.len() * 2 >= n {
            front.push((times[n.div_ceil(2) - 1], x + 0.5 * SLAB));
        }
        x += SLAB;
    }
    front
}

/// Least-squares slope of y over x for the points (x, y), and R².
fn fit(points: &[(f32, f32)]) -> (f32, f32) {
    let n = points.len() as f64;
    if n < 2.0 {
        return (f32::NAN, f32::NAN);
    }
    let mx = points.iter().map(|p| f64::from(p.0)).sum::<f64>() / n;
    let my = points.iter().map(|p| f64::from(p.1)).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in points {
        let (dx, dy) = (f64::from(x) - mx, f64::from(y) - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return (f32::NAN, f32::NAN);
    }
    ((sxy / sxx) as f32, (sxy * sxy / (sxx * syy)) as f32)
}

pub fn rows(outcomes: &[Outcome]) -> Vec<Row> {
    let mut rows = Vec::new();
    for o in outcomes {
        let seed = o.seed as f32;
        rows.push(Row::new(
            "alarm_propagation_speed",
            "seed",
            seed,
            o.speed,
            "m/s",
            SPEED.0,
            SPEED.1,
        ));
        rows.push(Row::new(
            "alarm_propagation_reached",
            "seed",
            seed,
            o.reached,
            "share",
            MIN_REACHED,
            f32::NAN,
        ));
        rows.push(Row::new(
            "alarm_propagation_fit_r2",
            "seed",
            seed,
            o.r2,
            "r2",
            f32::NAN,
            f32::NAN,
        ));
        rows.push(Row::new(
            "alarm_propagation_heard",
            "seed",
            seed,
            o.heard as f32,
            "people",
            f32::NAN,
            f32::NAN,
        ));
    }
    let speeds: Vec<f32> = outcomes.iter().map(|o| o.speed).collect();
    rows.extend(super::rimea::spread_row(
        "alarm_propagation_speed_spread",
        &speeds,
        "m/s",
    ));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_finds_a_straight_front() {
        let points: Vec<(f32, f32)> = (0..10).map(|k| (k as f32, 3.0 * k as f32 + 4.0)).collect();
        let (speed, r2) = fit(&points);
        assert_approx!(speed, 3.0, 1e-4);
        assert_approx!(r2, 1.0, 1e-4);
        assert!(fit(&points[..1]).0.is_nan());
    }
}

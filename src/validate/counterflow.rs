//! Counterflow: people walking both ways along a looping corridor at 1 per m², starting mixed.
//! Real crowds sort themselves into lanes within a minute; the lane order parameter measures it:
//! the share of people whose nearest neighbours to either side (roughly abreast) walk their way.
//! Mixed at random it is about 0.5; in lanes it approaches 1.

use glam::Vec2;

use super::arena::{dt, spread, LoopCorridor};
use super::{Effort, Row};

pub const DENSITY: f32 = 1.0;
/// Lane order needed after `SETTLE_SECONDS`.
pub const MIN_ORDER: f32 = 0.8;
pub const SETTLE_SECONDS: f32 = 60.0;
/// Neighbours count as abreast within this distance along the corridor (m).
const ABREAST: f32 = 1.0;
/// And as neighbours within this distance across it (m).
const REACH: f32 = 2.0;

/// Lane order sampled once a second.
pub struct Outcome {
    pub times: Vec<f32>,
    pub order: Vec<f32>,
    /// What the constraint pass moved over the run.
    pub corrections: crate::crowd::Corrections,
}

impl Outcome {
    /// Mean order over the last 10 s up to `SETTLE_SECONDS` and after (the steady state).
    pub fn settled(&self) -> f32 {
        let late: Vec<f32> = self
            .times
            .iter()
            .zip(&self.order)
            .filter(|(t, _)| **t >= SETTLE_SECONDS - 10.0)
            .map(|(_, o)| *o)
            .collect();
        late.iter().sum::<f32>() / late.len().max(1) as f32
    }
}

pub fn measure(effort: Effort, seed: u64) -> Outcome {
    let (length, width) = (effort.pick(40.0, 24.0), 10.0);
    let count = (DENSITY * length * width).round() as usize;
    let mut rng = fastrand::Rng::with_seed(seed);
    let starts: Vec<(Vec2, f32)> = spread(
        count,
        Vec2::new(-length * 0.5, -width * 0.5 + 0.25),
        Vec2::new(length * 0.5, width * 0.5 - 0.25),
        &mut rng,
    )
    .into_iter()
    .enumerate()
    .map(|(k, p)| (p, if k % 2 == 0 { 1.0 } else { -1.0 }))
    .collect();
    let mut corridor = LoopCorridor::new(length, width, &starts, (1.24, 1.44), seed);
    corridor.crowd.measure_corrections = true;
    let total = effort.pick(90.0, SETTLE_SECONDS + 5.0);
    let per_second = (1.0 / dt()).round() as usize;
    let mut along = Vec::new();
    let mut out = Outcome {
        times: vec![0.0],
        order: vec![lane_order(&corridor)],
        corrections: Default::default(),
    };
    for step in 1..=(total / dt()) as usize {
        corridor.step(&mut along);
        if step % per_second == 0 {
            out.times.push(step as f32 * dt());
            out.order.push(lane_order(&corridor));
        }
    }
    out.corrections = corridor.crowd.corrections;
    out
}

/// The share of people whose nearest neighbours to the left and right (abreast, seams undone)
/// walk the same way, each side counting half.
pub fn lane_order(corridor: &LoopCorridor) -> f32 {
    let n = corridor.walkers();
    let pos = &corridor.crowd.pos[..n];
    let dir = &corridor.direction;
    let (mut sum, mut people) = (0.0f32, 0usize);
    for i in 0..n {
        // Nearest to each side: (lateral distance, same way).
        let mut sides = [(f32::MAX, false); 2];
        for j in 0..n {
            if i == j {
                continue;
            }
            let mut dx = pos[j].x - pos[i].x;
            dx -= corridor.length * (dx / corridor.length).round();
            let dy = pos[j].y - pos[i].y;
            if dx.abs() > ABREAST || dy.abs() > REACH || dy == 0.0 {
                continue;
            }
            let side = usize::from(dy > 0.0);
            if dy.abs() < sides[side].0 {
                sides[side] = (dy.abs(), dir[i] == dir[j]);
            }
        }
        let found: Vec<bool> = sides
            .iter()
            .filter(|s| s.0 < f32::MAX)
            .map(|s| s.1)
            .collect();
        if !found.is_empty() {
            sum += found.iter().filter(|&&same| same).count() as f32 / found.len() as f32;
            people += 1;
        }
    }
    sum / people.max(1) as f32
}

pub fn rows(o: &Outcome) -> Vec<Row> {
    let mut rows: Vec<Row> = o
        .times
        .iter()
        .zip(&o.order)
        .filter(|(t, _)| (**t as u32).is_multiple_of(10))
        .map(|(&t, &order)| {
            Row::new(
                "counterflow_lane_order",
                "time",
                t,
                order,
                "share",
                f32::NAN,
                f32::NAN,
            )
        })
        .collect();
    rows.push(Row::new(
        "counterflow",
        "time",
        SETTLE_SECONDS,
        o.settled(),
        "share",
        MIN_ORDER,
        f32::NAN,
    ));
    rows.extend(super::correction_rows(
        "counterflow",
        "time",
        SETTLE_SECONDS,
        &o.corrections,
    ));
    rows
}

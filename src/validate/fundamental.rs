//! The fundamental diagram: people walking one way round a looping corridor at a set density;
//! after a warm-up, the density and speed in a measurement area in the middle are compared with
//! Weidmann's (1993) curve, the usual yardstick for pedestrian models.

use glam::Vec2;

use super::arena::{dt, Arrangement, LoopCorridor};
use super::{Effort, Row};

/// Weidmann's speed (m/s) at a density (people per m²): free speed 1.34 m/s, standstill at
/// 5.4 per m².
pub fn weidmann_speed(density: f32) -> f32 {
    if density <= 0.0 {
        return 1.34;
    }
    (1.34 * (1.0 - (-1.913 * (1.0 / density - 1.0 / 5.4)).exp())).max(0.0)
}

/// The densities measured (people per m²).
pub const DENSITIES: [f32; 6] = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0];
/// Up to this density the speed must follow Weidmann's curve within `TOLERANCE`.
pub const CHECKED_UP_TO: f32 = 4.0;
pub const TOLERANCE: f32 = 0.25;

/// A lateral move under this (metres, about a third of a file's width) keeps a person in the
/// file they walked in.
pub const SAME_FILE: f32 = 0.15;

/// One density's measurement.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    pub arrangement: Arrangement,
    pub seed: u64,
    /// Share of the people whose lateral position moved less than `SAME_FILE` over the
    /// measurement: 1 when everyone keeps the file they walk in, lower as files mix.
    pub file_keeping: f32,
    pub nominal: f32,
    /// Mean density in the measurement area (people per m²).
    pub density: f32,
    /// Mean speed along the corridor of the people in it (m/s).
    pub speed: f32,
}

impl Point {
    pub fn flow(&self) -> f32 {
        self.density * self.speed
    }
}

pub fn measure(density: f32, effort: Effort, seed: u64, arrangement: Arrangement) -> Point {
    let (length, width) = (effort.pick(60.0, 30.0), effort.pick(10.0, 6.0));
    let count = (density * length * width).round() as usize;
    let mut rng = fastrand::Rng::with_seed(seed);
    let starts: Vec<(Vec2, f32)> = arrangement
        .place(
            count,
            Vec2::new(-length * 0.5, -width * 0.5 + 0.25),
            Vec2::new(length * 0.5, width * 0.5 - 0.25),
            &mut rng,
        )
        .into_iter()
        .map(|p| (p, 1.0))
        .collect();
    // Everyone wants Weidmann's free speed, give or take a little, as in the experiments.
    let mut corridor = LoopCorridor::new(length, width, &starts, (1.24, 1.44), seed);
    let warm_up = (effort.pick(20.0, 12.0) / dt()) as usize;
    let measured = (effort.pick(40.0, 15.0) / dt()) as usize;
    let area_half = effort.pick(5.0, 4.0);
    let area = 2.0 * area_half * width;
    let mut along = Vec::new();
    for _ in 0..warm_up {
        corridor.step(&mut along);
    }
    let lateral: Vec<f32> = corridor.crowd.pos.iter().take(count).map(|p| p.y).collect();
    let (mut people, mut speed_sum) = (0usize, 0.0f64);
    for _ in 0..measured {
        corridor.step(&mut along);
        for (i, moved) in along.iter().enumerate() {
            if corridor.crowd.pos[i].x.abs() < area_half {
                people += 1;
                speed_sum += (*moved / dt()) as f64;
            }
        }
    }
    let kept = lateral
        .iter()
        .zip(&corridor.crowd.pos)
        .filter(|(y, p)| (p.y - **y).abs() < SAME_FILE)
        .count();
    Point {
        arrangement,
        seed,
        file_keeping: kept as f32 / count.max(1) as f32,
        nominal: density,
        density: people as f32 / (measured as f32 * area),
        speed: if people > 0 {
            (speed_sum / people as f64) as f32
        } else {
            0.0
        },
    }
}

/// The speed's target at a measured density: Weidmann's curve ± `TOLERANCE` up to
/// `CHECKED_UP_TO` (NaN above: reported only).
fn speed_band(p: &Point) -> (f32, f32) {
    let expected = weidmann_speed(p.density);
    if p.nominal <= CHECKED_UP_TO {
        (expected * (1.0 - TOLERANCE), expected * (1.0 + TOLERANCE))
    } else {
        (f32::NAN, f32::NAN)
    }
}

/// The rows of the runs from other starts (`starts`: every arrangement and seed but the main
/// run's): each speed against the same band, how many keep their files, and per density the
/// spread of the speed over all starts (`main` included).
pub fn start_rows(main: &[Point], starts: &[Point]) -> Vec<Row> {
    let mut rows = Vec::new();
    for p in starts {
        let (low, high) = speed_band(p);
        rows.push(Row::new(
            &format!("fundamental_diagram_{}", p.arrangement.name()),
            &format!("density (seed {})", p.seed),
            p.nominal,
            p.speed,
            "m/s",
            low,
            high,
        ));
    }
    for p in main.iter().chain(starts) {
        rows.push(Row::new(
            &format!("file_keeping_{}", p.arrangement.name()),
            &format!("density (seed {})", p.seed),
            p.nominal,
            p.file_keeping,
            "share",
            f32::NAN,
            f32::NAN,
        ));
    }
    for m in main {
        let speeds: Vec<f32> = std::iter::once(m)
            .chain(starts.iter().filter(|p| p.nominal == m.nominal))
            .map(|p| p.speed)
            .collect();
        let (lo, hi) = speeds
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        rows.push(Row::new(
            "fundamental_diagram_spread",
            "density",
            m.nominal,
            hi - lo,
            "m/s",
            f32::NAN,
            f32::NAN,
        ));
    }
    rows
}

/// The rows: speed against Weidmann's curve at the measured density, flow above zero below
/// 4 per m², and speed falling as density grows.
pub fn rows(points: &[Point]) -> Vec<Row> {
    let mut rows = Vec::new();
    for p in points {
        let (low, high) = speed_band(p);
        rows.push(Row::new(
            "fundamental_diagram_density",
            "density",
            p.nominal,
            p.density,
            "1/m2",
            f32::NAN,
            f32::NAN,
        ));
        rows.push(Row::new(
            "fundamental_diagram",
            "density",
            p.nominal,
            p.speed,
            "m/s",
            low,
            high,
        ));
        // No gridlock below 4 per m²: people still get through.
        let flow_low = if p.nominal < CHECKED_UP_TO + 0.5 {
            0.05
        } else {
            f32::NAN
        };
        rows.push(Row::new(
            "fundamental_diagram_flow",
            "density",
            p.nominal,
            p.flow(),
            "1/m/s",
            flow_low,
            f32::NAN,
        ));
    }
    for w in points.windows(2) {
        // Monotone: each speed at most the previous one (a hair of noise allowed).
        rows.push(Row::new(
            "fundamental_diagram_speed_drop",
            "density",
            w[1].nominal,
            w[0].speed - w[1].speed,
            "m/s",
            -0.02,
            f32::NAN,
        ));
    }
    rows
}

//! The fundamental diagram: people walking one way round a looping corridor at a set density;
//! after a warm-up, the density and speed in a measurement area in the middle are compared with
//! Weidmann's (1993) curve, the usual yardstick for pedestrian models. The same runs are also
//! measured at lines across the corridor from the Voronoi cells crossing them (PedPy's line
//! method, Adrian et al. 2024), against the same curve, and the two measurements compared.

use glam::Vec2;

use super::arena::{dt, Arrangement, LoopCorridor};
use super::{Effort, Row};
use crate::measure::line::{line_frame, Line, LineFrame};
use crate::measure::meters::SAMPLE_SECONDS;
use crate::measure::voronoi::{cells, CUT_OFF_RADIUS};

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
    /// The line method at the line across the middle and at the one across the seam.
    pub lines: [LineMean; 2],
    /// What the constraint pass moved over the measurement.
    pub corrections: crate::crowd::Corrections,
}

impl Point {
    pub fn flow(&self) -> f32 {
        self.density * self.speed
    }

    /// The line method, both lines together (they see the same corridor: two lines halve the
    /// noise of one).
    pub fn line(&self) -> LineMean {
        let [a, b] = self.lines;
        LineMean {
            density: 0.5 * (a.density + b.density),
            speed: 0.5 * (a.speed + b.speed),
            flow: 0.5 * (a.flow + b.flow),
            covered: 0.5 * (a.covered + b.covered),
        }
    }
}

/// PedPy's line density, speed and flow (`measure::line`) at one line, each averaged over the
/// sampled frames, as PedPy's per-frame series are for a fundamental diagram.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LineMean {
    /// 1/m².
    pub density: f32,
    /// The speed across the line (m/s).
    pub speed: f32,
    /// 1/(m·s).
    pub flow: f32,
    /// The share of the line the cells cover (`LineFrame::covered`).
    pub covered: f32,
}

#[derive(Debug, Clone, Copy, Default)]
struct LineSums {
    density: f64,
    speed: f64,
    flow: f64,
    covered: f64,
    frames: usize,
}

impl LineSums {
    fn add(&mut self, f: &LineFrame) {
        self.density += f.density() as f64;
        self.speed += f.speed() as f64;
        self.flow += f.flow() as f64;
        self.covered += f.covered as f64;
        self.frames += 1;
    }

    fn mean(&self) -> LineMean {
        let n = self.frames.max(1) as f64;
        LineMean {
            density: (self.density / n) as f32,
            speed: (self.speed / n) as f32,
            flow: (self.flow / n) as f32,
            covered: (self.covered / n) as f32,
        }
    }
}

/// One frame at the line across the looping corridor (`length` × `width`, walls at
/// z = ±`width`/2) at `x`, forward +x. Each person is taken at their periodic image nearest the
/// line, the copy the corridor's ghosts stand for, so a line at the seam sees the people just
/// past it at the other end as neighbours; the cells are cut to the walls. `direction[i]`
/// (±1, the way person `i` walks along x) is their species: PedPy infers it from the velocity
/// when the cell first touches the line, which a jostled person at 5 per m² could get wrong.
pub fn corridor_line_frame(
    pos: &[Vec2],
    vel: &[Vec2],
    direction: &[f32],
    (length, width): (f32, f32),
    x: f32,
) -> LineFrame {
    // A cell lies within the cut-off of its person, so only people that near can touch the
    // line; each is cut only by people within twice the cut-off of them.
    let reach = 3.0 * CUT_OFF_RADIUS;
    debug_assert!(length > 2.0 * reach, "images would repeat within reach");
    let mut owners = Vec::new();
    let mut neighbours = Vec::new();
    for (i, p) in pos.iter().enumerate() {
        let dx = (p.x - x + 0.5 * length).rem_euclid(length) - 0.5 * length;
        let image = Vec2::new(x + dx, p.y);
        if dx.abs() <= CUT_OFF_RADIUS {
            owners.push((i, image));
        } else if dx.abs() <= reach {
            neighbours.push(image);
        }
    }
    let sites: Vec<Vec2> = owners
        .iter()
        .map(|o| o.1)
        .chain(neighbours.iter().copied())
        .collect();
    let half = 0.5 * width;
    let walls = [
        Vec2::new(x - reach - 1.0, -half),
        Vec2::new(x + reach + 1.0, -half),
        Vec2::new(x + reach + 1.0, half),
        Vec2::new(x - reach - 1.0, half),
    ];
    let owned = cells(&sites, owners.len(), Some(&walls));
    let velocities: Vec<Vec2> = owners
        .iter()
        .map(|o| vel.get(o.0).copied().unwrap_or(Vec2::ZERO))
        .collect();
    let species: Vec<i8> = owners
        .iter()
        .map(|o| match direction.get(o.0) {
            Some(d) if *d > 0.0 => 1,
            Some(d) if *d < 0.0 => -1,
            _ => 0,
        })
        .collect();
    // Drawn from the +z wall to the −z wall, so forward is +x.
    let line = Line::new(Vec2::new(x, half), Vec2::new(x, -half));
    line_frame(&line, &owned, &velocities, &species)
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
    corridor.crowd.measure_corrections = true;
    let (mut people, mut speed_sum) = (0usize, 0.0f64);
    // The lines across the middle and across the seam, sampled at the game's meters' rate:
    // neighbouring steps' frames would add little but time.
    let sample_every = ((SAMPLE_SECONDS / dt()).round() as usize).max(1);
    let line_xs = [0.0, 0.5 * length];
    let mut line_sums = [LineSums::default(); 2];
    let mut vel = Vec::with_capacity(count);
    for step in 0..measured {
        corridor.step(&mut along);
        for (i, moved) in along.iter().enumerate() {
            if corridor.crowd.pos[i].x.abs() < area_half {
                people += 1;
                speed_sum += (*moved / dt()) as f64;
            }
        }
        if step % sample_every == 0 {
            vel.clear();
            vel.extend((0..count).map(|i| corridor.step_velocity(i)));
            for (sums, &x) in line_sums.iter_mut().zip(&line_xs) {
                sums.add(&corridor_line_frame(
                    &corridor.crowd.pos[..count],
                    &vel,
                    &corridor.direction,
                    (length, width),
                    x,
                ));
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
        lines: [line_sums[0].mean(), line_sums[1].mean()],
        corrections: corridor.crowd.corrections,
    }
}

/// The speed's target at a measured density: Weidmann's curve ± `TOLERANCE` up to
/// `CHECKED_UP_TO` (NaN above: reported only).
fn speed_band(p: &Point) -> (f32, f32) {
    band_at(p.nominal, p.density)
}

/// `speed_band` for a run at `nominal` per m² whose measurement read `density`.
fn band_at(nominal: f32, density: f32) -> (f32, f32) {
    let expected = weidmann_speed(density);
    if nominal <= CHECKED_UP_TO {
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
        rows.push(Row::new(
            "fundamental_diagram_spread",
            "density",
            m.nominal,
            super::range_width(&speeds),
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
        rows.extend(super::correction_rows(
            "fundamental_diagram",
            "density",
            p.nominal,
            &p.corrections,
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

/// The rows of the line method: density, speed (against Weidmann's curve at the density the
/// line read, the corridor's band) and flow at the lines, the share of the lines the cells
/// cover, and how far the line's density and speed are from the corridor's (line minus
/// corridor; reported, no target).
pub fn line_rows(points: &[Point]) -> Vec<Row> {
    let mut rows = Vec::new();
    for p in points {
        let line = p.line();
        let (low, high) = band_at(p.nominal, line.density);
        let flow_low = if p.nominal < CHECKED_UP_TO + 0.5 {
            0.05
        } else {
            f32::NAN
        };
        let row = |test: &str, measured: f32, unit: &str, low: f32, high: f32| {
            Row::new(test, "density", p.nominal, measured, unit, low, high)
        };
        rows.extend([
            row(
                "fundamental_diagram_line_density",
                line.density,
                "1/m2",
                f32::NAN,
                f32::NAN,
            ),
            row("fundamental_diagram_line", line.speed, "m/s", low, high),
            row(
                "fundamental_diagram_line_flow",
                line.flow,
                "1/m/s",
                flow_low,
                f32::NAN,
            ),
            row(
                "fundamental_diagram_line_covered",
                line.covered,
                "share",
                f32::NAN,
                f32::NAN,
            ),
            row(
                "fundamental_diagram_line_density_difference",
                line.density - p.density,
                "1/m2",
                f32::NAN,
                f32::NAN,
            ),
            row(
                "fundamental_diagram_line_speed_difference",
                line.speed - p.speed,
                "m/s",
                f32::NAN,
                f32::NAN,
            ),
        ]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square lattice 0.6 m apart filling a 30 x 6 m looping corridor (columns off the lines
    /// at x = 0 and at the seam, so no line runs along a cell's edge).
    fn lattice() -> Vec<Vec2> {
        (0..50 * 10)
            .map(|k| {
                Vec2::new(
                    -15.0 + 0.1 + 0.6 * (k % 50) as f32,
                    -3.0 + 0.3 + 0.6 * (k / 50) as f32,
                )
            })
            .collect()
    }

    #[test]
    fn a_line_at_the_seam_reads_what_one_in_the_middle_does() {
        let pos = lattice();
        let vel = vec![Vec2::new(0.8, 0.0); pos.len()];
        let direction = vec![1.0; pos.len()];
        let density = 1.0 / (0.6 * 0.6);
        // The seam's line meets the people at one end's cells and their images' from the other
        // end: without the images their cells would reach 1 m past the seam.
        for x in [0.0, 15.0, -15.0, 7.3] {
            let f = corridor_line_frame(&pos, &vel, &direction, (30.0, 6.0), x);
            assert!((f.density() - density).abs() < 1e-3, "at {x}: {f:?}");
            assert!((f.speed() - 0.8).abs() < 1e-4, "at {x}: {f:?}");
            assert!((f.flow() - 0.8 * density).abs() < 1e-3, "at {x}: {f:?}");
            assert!((f.covered - 1.0).abs() < 1e-4, "at {x}: {f:?}");
        }
        // People walking −x are the backward species, counted at their own speed.
        let back: Vec<Vec2> = vel.iter().map(|v| -*v).collect();
        let f = corridor_line_frame(&pos, &back, &vec![-1.0; pos.len()], (30.0, 6.0), 15.0);
        assert!(
            (f.backward.speed - 0.8).abs() < 1e-4 && f.forward.speed == 0.0,
            "{f:?}"
        );
    }

    #[test]
    fn a_walker_crossing_the_seam_keeps_a_forward_velocity() {
        let mut corridor =
            LoopCorridor::new(30.0, 6.0, &[(Vec2::new(14.5, 0.0), 1.0)], (1.34, 1.34), 1);
        let mut along = Vec::new();
        let mut wrapped = false;
        for _ in 0..(3.0 / dt()) as usize {
            corridor.step(&mut along);
            let v = corridor.step_velocity(0);
            assert!((-0.1..2.0).contains(&v.x), "{v}");
            wrapped |= corridor.crowd.pos[0].x < 0.0;
        }
        assert!(wrapped, "never crossed the seam");
    }
}

//! Live meters on a level's measurement areas and lines: each sample (ten a second) reads every
//! area's classic and Voronoi density and mean speed and counts the line crossings since the
//! last sample; a reading is the mean (or, for flows, the count) over a sliding window. Each
//! meter also keeps whole-run sums (`area_runs`, `line_runs`) for `throng record --readings`,
//! defined sample by sample so they can be compared with PedPy's over the same frames.

use std::collections::VecDeque;

use glam::Vec2;

use super::voronoi::{cells, CUT_OFF_RADIUS};
use crate::level::{Level, MeasurementArea, MeasurementLine};
use crate::polygon::{
    clip_by_convex, crossing, polygon_area, polygon_bounds, polygon_contains, signed_area,
};

/// Seconds between samples.
pub const SAMPLE_SECONDS: f32 = 0.1;
/// The sliding window a reading averages over (s).
pub const WINDOW_SECONDS: f32 = 10.0;
/// Readings kept for a sparkline, one a second.
pub const HISTORY: usize = 120;

/// What one area reads at one sample, or averaged over the window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AreaReading {
    /// People inside.
    pub count: f32,
    /// People inside over the area (per m²).
    pub classic_density: f32,
    /// Each person's Voronoi cell shared out over the area: sum of |cell ∩ area| / |cell|, over
    /// the area (per m²).
    pub voronoi_density: f32,
    /// Mean speed of the people inside (m/s); 0 when nobody is.
    pub mean_speed: f32,
}

/// A line's flows over the window and its totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LineReading {
    /// People per second crossing forward (see `MeasurementLine`), over the window.
    pub forward_flow: f32,
    pub backward_flow: f32,
    /// Both directions together per metre of line (people per m per s).
    pub specific_flow: f32,
    pub forward_total: u32,
    pub backward_total: u32,
}

/// An area over every sample since the first: each mean is over samples (the classic density's
/// is what PedPy's `compute_classic_density` averages to over the same frames), the speed over
/// the people inside, sample by sample (a person inside for ten samples counts ten times).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AreaRun {
    pub samples: u32,
    pub mean_count: f64,
    pub mean_classic_density: f64,
    pub mean_voronoi_density: f64,
    /// The sum of |velocity| over every person inside at every sample, over the number of
    /// those person-samples; 0 when nobody was ever inside.
    pub mean_speed: f64,
}

/// A line over every sample since the first.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LineRun {
    pub forward_total: u32,
    pub backward_total: u32,
    /// Sample times (s) at which the first and the last crossing (either way) were seen.
    pub first_crossing: Option<f32>,
    pub last_crossing: Option<f32>,
}

/// Whole-run sums of one area, in f64 so an hour of samples adds up without rounding drift.
#[derive(Debug, Clone, Copy, Default)]
struct AreaSums {
    samples: u32,
    count: f64,
    classic: f64,
    voronoi: f64,
    /// Sum of every inside person's speed.
    speed: f64,
}

struct AreaMeter {
    name: String,
    /// Counter-clockwise, so cells can be clipped to it when it is convex.
    polygon: Vec<Vec2>,
    area: f32,
    bounds: (Vec2, Vec2),
    samples: VecDeque<(f32, AreaReading)>,
    history: VecDeque<AreaReading>,
    run: AreaSums,
}

struct LineMeter {
    name: String,
    from: Vec2,
    to: Vec2,
    crossings: VecDeque<(f32, i8)>,
    forward_total: u32,
    backward_total: u32,
    first_crossing: Option<f32>,
    last_crossing: Option<f32>,
    history: VecDeque<LineReading>,
}

impl AreaReading {
    /// The reading as the measurements panel and the overlay's label write it.
    pub fn summary(&self) -> String {
        format!(
            "{:.2}/m² (Voronoi {:.2}) · {:.2} m/s",
            self.classic_density, self.voronoi_density, self.mean_speed
        )
    }
}

impl LineReading {
    /// The reading as the measurements panel and the overlay's label write it.
    pub fn summary(&self) -> String {
        format!(
            "fwd {:.2}/s · back {:.2}/s · {:.2}/m/s",
            self.forward_flow, self.backward_flow, self.specific_flow
        )
    }
}

/// Every measurement of a level, fed the crowd's positions step by step.
pub struct Meters {
    areas: Vec<AreaMeter>,
    lines: Vec<LineMeter>,
    /// Convex outline every Voronoi cell is cut to (the level's bounds).
    walkable: Option<Vec<Vec2>>,
    last: Vec<Vec2>,
    started: Option<f32>,
    /// Times of the first and the latest sample.
    first_sample: Option<f32>,
    last_sample: Option<f32>,
    next_sample: f32,
    next_history: f32,
    now: f32,
}

fn counter_clockwise(points: &[Vec2]) -> Vec<Vec2> {
    let mut p = points.to_vec();
    if signed_area(&p) < 0.0 {
        p.reverse();
    }
    p
}

impl Meters {
    pub fn new(
        areas: &[MeasurementArea],
        lines: &[MeasurementLine],
        walkable: Option<Vec<Vec2>>,
    ) -> Self {
        Meters {
            areas: areas
                .iter()
                .map(|a| AreaMeter {
                    name: a.name.clone(),
                    polygon: counter_clockwise(&a.polygon),
                    area: polygon_area(&a.polygon),
                    bounds: polygon_bounds(&a.polygon),
                    samples: VecDeque::new(),
                    history: VecDeque::new(),
                    run: AreaSums::default(),
                })
                .collect(),
            lines: lines
                .iter()
                .map(|l| LineMeter {
                    name: l.name.clone(),
                    from: l.from,
                    to: l.to,
                    crossings: VecDeque::new(),
                    forward_total: 0,
                    backward_total: 0,
                    first_crossing: None,
                    last_crossing: None,
                    history: VecDeque::new(),
                })
                .collect(),
            walkable: walkable.map(|w| counter_clockwise(&w)),
            last: Vec::new(),
            started: None,
            first_sample: None,
            last_sample: None,
            next_sample: 0.0,
            next_history: 0.0,
            now: 0.0,
        }
    }

    /// The level's measurements, cells cut to its bounds.
    pub fn for_level(level: &Level) -> Self {
        let (lo, hi) = (level.bounds.min, level.bounds.max);
        let outline = vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
        Meters::new(
            &level.measurement_areas,
            &level.measurement_lines,
            Some(outline),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.areas.is_empty() && self.lines.is_empty()
    }

    /// Feeds one step: the time (s), every person's position and velocity, and whether they are
    /// in the level (people who left are not measured). Does the work only on sample times.
    pub fn observe(
        &mut self,
        time: f32,
        pos: &[Vec2],
        vel: &[Vec2],
        present: impl Fn(usize) -> bool,
    ) {
        self.now = time;
        let started = *self.started.get_or_insert(time);
        if time < self.next_sample {
            return;
        }
        // 1 % early: f32 times an hour in are a quarter of a millisecond apart, so a sample
        // 0.1 s later can read as 0.09976 s; the step before it (60 Hz) is 0.083 s, well short.
        self.next_sample = time + SAMPLE_SECONDS * 0.99;
        self.first_sample.get_or_insert(time);
        self.last_sample = Some(time);
        let here: Vec<Option<Vec2>> = (0..pos.len())
            .map(|i| present(i).then_some(pos[i]))
            .collect();
        if self.last.len() == pos.len() {
            for line in &mut self.lines {
                line.count_crossings(time, &self.last, &here);
            }
        }
        self.last = here.iter().map(|p| p.unwrap_or(Vec2::NAN)).collect();
        for area in &mut self.areas {
            let reading = area.read(&here, vel, self.walkable.as_deref());
            area.add_to_run(&reading);
            area.samples.push_back((time, reading));
        }
        let window_start = time - WINDOW_SECONDS;
        for area in &mut self.areas {
            while area.samples.front().is_some_and(|s| s.0 <= window_start) {
                area.samples.pop_front();
            }
        }
        for line in &mut self.lines {
            while line.crossings.front().is_some_and(|c| c.0 <= window_start) {
                line.crossings.pop_front();
            }
        }
        if time >= self.next_history {
            self.next_history = time + 1.0 - 1e-3;
            let elapsed = time - started;
            for a in &mut self.areas {
                let r = a.windowed();
                push_history(&mut a.history, r);
            }
            for l in &mut self.lines {
                let r = l.windowed(elapsed);
                push_history(&mut l.history, r);
            }
        }
    }

    /// Every area's name and reading over the window.
    pub fn area_readings(&self) -> Vec<(&str, AreaReading)> {
        self.areas
            .iter()
            .map(|a| (a.name.as_str(), a.windowed()))
            .collect()
    }

    /// Every line's name and reading over the window.
    pub fn line_readings(&self) -> Vec<(&str, LineReading)> {
        let elapsed = self.started.map_or(0.0, |s| self.now - s);
        self.lines
            .iter()
            .map(|l| (l.name.as_str(), l.windowed(elapsed)))
            .collect()
    }

    /// Seconds from the first sample to the latest: the time the whole-run totals cover.
    pub fn measured_seconds(&self) -> f32 {
        match (self.first_sample, self.last_sample) {
            (Some(a), Some(b)) => b - a,
            _ => 0.0,
        }
    }

    /// Every area's name and its readings over the whole run.
    pub fn area_runs(&self) -> Vec<(&str, AreaRun)> {
        self.areas
            .iter()
            .map(|a| (a.name.as_str(), a.run()))
            .collect()
    }

    /// Every line's name and its totals over the whole run.
    pub fn line_runs(&self) -> Vec<(&str, LineRun)> {
        self.lines
            .iter()
            .map(|l| {
                let run = LineRun {
                    forward_total: l.forward_total,
                    backward_total: l.backward_total,
                    first_crossing: l.first_crossing,
                    last_crossing: l.last_crossing,
                };
                (l.name.as_str(), run)
            })
            .collect()
    }

    /// The last sample of each area (not averaged): what one frame shows.
    pub fn area_latest(&self) -> Vec<(&str, AreaReading)> {
        self.areas
            .iter()
            .map(|a| {
                let r = a.samples.back().map(|s| s.1).unwrap_or_default();
                (a.name.as_str(), r)
            })
            .collect()
    }

    /// An area's readings, one a second, oldest first (for a sparkline).
    pub fn area_history(&self, index: usize) -> impl Iterator<Item = &AreaReading> {
        self.areas
            .get(index)
            .into_iter()
            .flat_map(|a| a.history.iter())
    }

    /// A line's readings, one a second, oldest first.
    pub fn line_history(&self, index: usize) -> impl Iterator<Item = &LineReading> {
        self.lines
            .get(index)
            .into_iter()
            .flat_map(|l| l.history.iter())
    }
}

fn push_history<T>(history: &mut VecDeque<T>, value: T) {
    if history.len() == HISTORY {
        history.pop_front();
    }
    history.push_back(value);
}

impl AreaMeter {
    fn read(&self, here: &[Option<Vec2>], vel: &[Vec2], walkable: Option<&[Vec2]>) -> AreaReading {
        let (lo, hi) = self.bounds;
        let margin = Vec2::splat(2.0 * CUT_OFF_RADIUS);
        // Owners first (anyone whose cell can reach the area), then their other neighbours.
        let mut owners = Vec::new();
        let mut neighbours = Vec::new();
        for (i, p) in here.iter().enumerate() {
            let Some(p) = *p else { continue };
            if p.cmpge(lo - margin).all() && p.cmple(hi + margin).all() {
                let reach = Vec2::splat(CUT_OFF_RADIUS);
                if p.cmpge(lo - reach).all() && p.cmple(hi + reach).all() {
                    owners.push(i);
                } else {
                    neighbours.push(i);
                }
            }
        }
        let mut count = 0usize;
        let mut speed_sum = 0.0;
        for &i in &owners {
            if let Some(p) = here[i] {
                if polygon_contains(&self.polygon, p) {
                    count += 1;
                    speed_sum += vel.get(i).map_or(0.0, |v| v.length());
                }
            }
        }
        let sites: Vec<Vec2> = owners
            .iter()
            .chain(&neighbours)
            .filter_map(|&i| here[i])
            .collect();
        let mut share = 0.0;
        for cell in cells(&sites, owners.len(), walkable) {
            let whole = polygon_area(&cell);
            if whole > 0.0 {
                // The cell is convex: clip the (maybe concave) area by it.
                share += polygon_area(&clip_by_convex(&self.polygon, &cell)) / whole;
            }
        }
        AreaReading {
            count: count as f32,
            classic_density: count as f32 / self.area,
            voronoi_density: share / self.area,
            mean_speed: if count > 0 {
                speed_sum / count as f32
            } else {
                0.0
            },
        }
    }

    fn add_to_run(&mut self, r: &AreaReading) {
        let run = &mut self.run;
        run.samples += 1;
        run.count += f64::from(r.count);
        run.classic += f64::from(r.classic_density);
        run.voronoi += f64::from(r.voronoi_density);
        run.speed += f64::from(r.mean_speed) * f64::from(r.count);
    }

    fn run(&self) -> AreaRun {
        let s = &self.run;
        let n = f64::from(s.samples.max(1));
        AreaRun {
            samples: s.samples,
            mean_count: s.count / n,
            mean_classic_density: s.classic / n,
            mean_voronoi_density: s.voronoi / n,
            mean_speed: if s.count > 0.0 {
                s.speed / s.count
            } else {
                0.0
            },
        }
    }

    fn windowed(&self) -> AreaReading {
        let n = self.samples.len();
        if n == 0 {
            return AreaReading::default();
        }
        let mut sum = AreaReading::default();
        let mut moving = 0.0;
        for (_, r) in &self.samples {
            sum.count += r.count;
            sum.classic_density += r.classic_density;
            sum.voronoi_density += r.voronoi_density;
            // Speed is averaged over people, not samples: an empty sample adds nothing.
            sum.mean_speed += r.mean_speed * r.count;
            moving += r.count;
        }
        let n = n as f32;
        AreaReading {
            count: sum.count / n,
            classic_density: sum.classic_density / n,
            voronoi_density: sum.voronoi_density / n,
            mean_speed: if moving > 0.0 {
                sum.mean_speed / moving
            } else {
                0.0
            },
        }
    }
}

impl LineMeter {
    fn count_crossings(&mut self, time: f32, last: &[Vec2], here: &[Option<Vec2>]) {
        for (i, p) in here.iter().enumerate() {
            let (Some(p1), p0) = (*p, last[i]) else {
                continue;
            };
            if p0.is_nan() {
                continue;
            }
            let sign = crossing(self.from, self.to, p0, p1);
            if sign != 0 {
                self.first_crossing.get_or_insert(time);
                self.last_crossing = Some(time);
            }
            match sign {
                1 => {
                    self.forward_total += 1;
                    self.crossings.push_back((time, 1));
                }
                -1 => {
                    self.backward_total += 1;
                    self.crossings.push_back((time, -1));
                }
                _ => {}
            }
        }
    }

    /// Flows over the window, or over the time measured so far when that is shorter.
    fn windowed(&self, elapsed: f32) -> LineReading {
        let span = elapsed.clamp(SAMPLE_SECONDS, WINDOW_SECONDS);
        let forward = self.crossings.iter().filter(|c| c.1 > 0).count() as f32;
        let backward = self.crossings.len() as f32 - forward;
        let length = self.from.distance(self.to).max(1e-3);
        LineReading {
            forward_flow: forward / span,
            backward_flow: backward / span,
            specific_flow: (forward + backward) / span / length,
            forward_total: self.forward_total,
            backward_total: self.backward_total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(name: &str, lo: Vec2, hi: Vec2) -> MeasurementArea {
        MeasurementArea {
            name: name.into(),
            polygon: vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)],
        }
    }

    #[test]
    fn a_lattice_reads_its_density_both_ways() {
        // People 0.5 m apart everywhere round a 4 x 4 m area: 4 per m², on both measures.
        let mut pos = Vec::new();
        for z in -20..20 {
            for x in -20..20 {
                pos.push(Vec2::new(x as f32 + 0.25, z as f32 + 0.25) * 0.5);
            }
        }
        let vel = vec![Vec2::new(0.6, 0.8); pos.len()];
        let area = rect("a", Vec2::splat(-2.0), Vec2::splat(2.0));
        let mut meters = Meters::new(&[area], &[], None);
        meters.observe(0.0, &pos, &vel, |_| true);
        let (_, r) = meters.area_readings()[0];
        assert_eq!(r.count, 64.0);
        assert!((r.classic_density - 4.0).abs() < 1e-5);
        assert!(
            (r.voronoi_density - 4.0).abs() < 1e-3,
            "{}",
            r.voronoi_density
        );
        assert!((r.mean_speed - 1.0).abs() < 1e-5);
        // A second sample with everyone still: the run's speed is over person-samples.
        meters.observe(0.1, &pos, &vec![Vec2::ZERO; pos.len()], |_| true);
        let (_, run) = meters.area_runs()[0];
        assert_eq!(run.samples, 2);
        assert!((run.mean_count - 64.0).abs() < 1e-9);
        assert!((run.mean_classic_density - 4.0).abs() < 1e-5);
        assert!((run.mean_speed - 0.5).abs() < 1e-5, "{}", run.mean_speed);
    }

    #[test]
    fn a_line_counts_each_direction_and_its_flow() {
        let line = MeasurementLine {
            name: "l".into(),
            from: Vec2::new(0.0, 0.0),
            to: Vec2::new(2.0, 0.0),
        };
        let mut meters = Meters::new(&[], &[line], None);
        // Two people walk forward (+z) across it at 1 m/s, one backward; one passes beside it.
        let starts = [
            (Vec2::new(0.5, -1.0), 1.0),
            (Vec2::new(1.5, -2.0), 1.0),
            (Vec2::new(1.0, 1.0), -1.0),
            (Vec2::new(3.0, -1.0), 1.0),
        ];
        let steps = 300;
        for s in 0..=steps {
            let t = s as f32 / 60.0;
            let pos: Vec<Vec2> = starts
                .iter()
                .map(|&(p, dir)| p + Vec2::new(0.0, dir * t))
                .collect();
            let vel = vec![Vec2::Y; pos.len()];
            meters.observe(t, &pos, &vel, |_| true);
        }
        let (_, r) = meters.line_readings()[0];
        assert_eq!((r.forward_total, r.backward_total), (2, 1));
        // 5 s measured: 2 / 5 forward, 1 / 5 back, 3 / 5 / 2 m.
        assert!((r.forward_flow - 0.4).abs() < 0.01, "{}", r.forward_flow);
        assert!((r.backward_flow - 0.2).abs() < 0.01);
        assert!((r.specific_flow - 0.3).abs() < 0.01);
        // Over the run: the person 1 m back crosses at the first sample after 1 s, the others
        // at the first after 2 s; the samples span the 5 s.
        let (_, run) = meters.line_runs()[0];
        assert_eq!((run.forward_total, run.backward_total), (2, 1));
        let (first, last) = (run.first_crossing.unwrap(), run.last_crossing.unwrap());
        assert!(
            (first - 1.0).abs() < 0.11 && (last - 2.0).abs() < 0.11,
            "{first} {last}"
        );
        assert!((meters.measured_seconds() - 5.0).abs() < 0.02);
    }

    #[test]
    fn people_who_left_are_not_measured_nor_counted_when_they_return() {
        let line = MeasurementLine {
            name: "l".into(),
            from: Vec2::new(-1.0, 0.0),
            to: Vec2::new(1.0, 0.0),
        };
        let area = rect("a", Vec2::splat(-1.0), Vec2::splat(1.0));
        let mut meters = Meters::new(&[area], &[line], None);
        let vel = [Vec2::ZERO];
        meters.observe(0.0, &[Vec2::new(0.0, -0.5)], &vel, |_| true);
        meters.observe(0.2, &[Vec2::new(0.0, -0.5)], &vel, |_| false);
        // Back in, on the other side: no crossing was seen.
        meters.observe(0.4, &[Vec2::new(0.0, 0.5)], &vel, |_| true);
        assert_eq!(meters.line_readings()[0].1.forward_total, 0);
        assert_eq!(meters.area_latest()[0].1.count, 1.0);
    }
}

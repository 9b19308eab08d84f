//! The crowd validated like a pedestrian simulator: scenarios from the laboratory literature
//! and the RiMEA test catalogue, run headless on the real simulation, each measured point
//! compared with a target range. `throng validate` writes the table, a CSV and plots; the tests
//! assert every target.

pub mod alarm;
pub mod arena;
pub mod attraction;
pub mod bottleneck;
pub mod cli;
pub mod counterflow;
pub mod evacuation;
pub mod fundamental;
pub mod plots;
pub mod rimea;
pub mod walkers;

use std::fmt::Write as _;

use arena::Arrangement;

/// How long and how large the scenarios run: `Full` for the report, `Quick` for the tests (and
/// `--quick`), smaller and shorter but measuring the same things against the same targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    Full,
    Quick,
}

impl Effort {
    pub fn pick<T>(self, full: T, quick: T) -> T {
        match self {
            Effort::Full => full,
            Effort::Quick => quick,
        }
    }
}

/// One measured point: what was varied (`parameter` = `value`), what came out (`measured`, in
/// `unit`) and the range it must fall in (NaN: no bound on that side).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub test: String,
    pub parameter: String,
    pub value: f32,
    pub measured: f32,
    pub unit: String,
    pub target_low: f32,
    pub target_high: f32,
}

impl Row {
    pub fn new(
        test: &str,
        parameter: &str,
        value: f32,
        measured: f32,
        unit: &str,
        target_low: f32,
        target_high: f32,
    ) -> Self {
        Row {
            test: test.to_string(),
            parameter: parameter.to_string(),
            value,
            measured,
            unit: unit.to_string(),
            target_low,
            target_high,
        }
    }

    /// Whether the row has a target at all (some rows only report).
    pub fn has_target(&self) -> bool {
        !self.target_low.is_nan() || !self.target_high.is_nan()
    }

    pub fn pass(&self) -> bool {
        self.measured.is_finite()
            && (self.target_low.is_nan() || self.measured >= self.target_low)
            && (self.target_high.is_nan() || self.measured <= self.target_high)
    }
}

/// Rows as CSV with exactly the columns `test,parameter,value,measured,unit,target_low,
/// target_high,pass`; an open side of a target is an empty field, a row with no target passes.
pub fn to_csv(rows: &[Row]) -> String {
    let mut out = String::from("test,parameter,value,measured,unit,target_low,target_high,pass\n");
    for r in rows {
        let bound = |v: f32| {
            if v.is_nan() {
                String::new()
            } else {
                format!("{v}")
            }
        };
        let _ = writeln!(
            out,
            "{},{},{},{:.4},{},{},{},{}",
            r.test,
            r.parameter,
            r.value,
            r.measured,
            r.unit,
            bound(r.target_low),
            bound(r.target_high),
            r.pass()
        );
    }
    out
}

/// Everything one run measured: the rows, and what the plots draw.
pub struct Report {
    pub effort: Effort,
    pub rows: Vec<Row>,
    pub fundamental: Vec<fundamental::Point>,
    /// The fundamental diagram from the other starting arrangements and seeds.
    pub fundamental_starts: Vec<fundamental::Point>,
    pub bottleneck: Vec<bottleneck::Outcome>,
    pub counterflow: counterflow::Outcome,
    /// The sandbox on the plaza (shows, a fence, queues), when it ran.
    pub attraction: Option<attraction::Outcome>,
    /// RiMEA tests 9, 11 and 12 on the alarm machinery, when they ran.
    pub rimea: Option<rimea::Outcome>,
    /// The alarm's contagion front through a calm crowd, one per seed.
    pub alarm: Vec<alarm::Outcome>,
}

impl Report {
    /// Rows with a target that missed it.
    pub fn failures(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| r.has_target() && !r.pass())
            .collect()
    }
}

/// The scenario groups, in the order they run and can be picked by `only`.
pub const SCENARIOS: [&str; 8] = [
    "fundamental_diagram",
    "bottleneck",
    "counterflow",
    "walkers",
    "evacuation",
    "attraction",
    "rimea",
    "alarm_propagation",
];

/// Runs the scenarios (all, or those named in `only`) at 60 Hz, telling `progress` what starts.
pub fn run(effort: Effort, only: &[String], progress: impl FnMut(&str)) -> Report {
    run_at(60, effort, only, progress)
}

/// `run` with the crowd stepping `hz` times a simulated second (one of `arena::RATES`): the
/// targets are the same at every rate.
pub fn run_at(hz: u32, effort: Effort, only: &[String], progress: impl FnMut(&str)) -> Report {
    arena::at_rate(hz, || run_scenarios(effort, only, progress))
}

fn run_scenarios(effort: Effort, only: &[String], mut progress: impl FnMut(&str)) -> Report {
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let seed = 1;
    let mut rows = Vec::new();
    let mut fundamental = Vec::new();
    let mut fundamental_starts = Vec::new();
    if wanted("fundamental_diagram") {
        for d in fundamental::DENSITIES {
            progress(&format!("fundamental diagram at {d} people/m²"));
            fundamental.push(fundamental::measure(d, effort, seed, Arrangement::Grid));
        }
        rows.extend(fundamental::rows(&fundamental));
        rows.extend(fundamental::line_rows(&fundamental));
        // The same corridor from every other start: the curve must not come from the grid.
        let mut starts = Vec::new();
        for (arrangement, s) in other_starts(effort, seed) {
            progress(&format!(
                "fundamental diagram from a {} start, seed {s}",
                arrangement.name()
            ));
            for d in fundamental::DENSITIES {
                starts.push(fundamental::measure(d, effort, s, arrangement));
            }
        }
        rows.extend(fundamental::start_rows(&fundamental, &starts));
        fundamental_starts = starts;
    }
    let mut bottleneck = Vec::new();
    if wanted("bottleneck") {
        for w in bottleneck::WIDTHS {
            progress(&format!("bottleneck {w} m wide"));
            bottleneck.push(bottleneck::measure(w, effort, seed, Arrangement::Grid));
        }
        rows.extend(bottleneck::rows(&bottleneck));
        let mut starts = Vec::new();
        for (arrangement, s) in other_starts(effort, seed) {
            progress(&format!(
                "bottleneck from a {} start, seed {s}",
                arrangement.name()
            ));
            for w in bottleneck::WIDTHS {
                starts.push(bottleneck::measure(w, effort, s, arrangement));
            }
        }
        rows.extend(bottleneck::start_rows(&bottleneck, &starts));
    }
    let mut counterflow = counterflow::Outcome {
        times: Vec::new(),
        order: Vec::new(),
        corrections: Default::default(),
    };
    if wanted("counterflow") {
        progress("counterflow");
        counterflow = counterflow::measure(effort, seed);
        rows.extend(counterflow::rows(&counterflow));
    }
    if wanted("walkers") {
        progress("single walker and corner");
        rows.extend(walkers::rows(
            walkers::single_walker_seconds(),
            &walkers::corner(),
        ));
    }
    if wanted("evacuation") {
        progress("evacuation, 4 exits");
        let all = evacuation::measure(4, effort, seed, Arrangement::Grid);
        progress("evacuation, 2 exits");
        let half = evacuation::measure(2, effort, seed, Arrangement::Grid);
        rows.extend(evacuation::rows(&all, &half));
        let mut starts = Vec::new();
        for (arrangement, s) in other_starts(effort, seed) {
            progress(&format!(
                "evacuation from a {} start, seed {s}",
                arrangement.name()
            ));
            starts.push((
                evacuation::measure(4, effort, s, arrangement),
                evacuation::measure(2, effort, s, arrangement),
            ));
        }
        rows.extend(evacuation::start_rows((&all, &half), &starts));
    }
    let mut attraction = None;
    if wanted("attraction") {
        let outcome = attraction::measure(effort, &mut progress);
        rows.extend(attraction::rows(&outcome));
        attraction = Some(outcome);
    }
    let mut rimea = None;
    if wanted("rimea") {
        let outcome = rimea::measure(effort, &mut progress);
        rows.extend(rimea::rows(&outcome));
        rimea = Some(outcome);
    }
    let mut alarm = Vec::new();
    if wanted("alarm_propagation") {
        for s in rimea::SEEDS {
            progress(&format!("alarm propagation, seed {s}"));
            alarm.push(alarm::measure(effort, s));
        }
        rows.extend(alarm::rows(&alarm));
    }
    Report {
        effort,
        rows,
        fundamental,
        fundamental_starts,
        bottleneck,
        counterflow,
        attraction,
        rimea,
        alarm,
    }
}

/// The largest of `values` less the smallest: a spread row's measure.
pub fn range_width(values: &[f32]) -> f32 {
    let low = values.iter().copied().fold(f32::INFINITY, f32::min);
    let high = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    high - low
}

/// Every starting arrangement with each of the effort's seeds, less the main run's (the grid
/// with `seed`): the starts a scenario's targets must also hold from.
fn other_starts(effort: Effort, seed: u64) -> Vec<(Arrangement, u64)> {
    let seeds = effort.pick(&[1u64, 2, 3][..], &[1u64][..]);
    Arrangement::ALL
        .into_iter()
        .flat_map(|a| seeds.iter().map(move |&s| (a, s)))
        .filter(|&start| start != (Arrangement::Grid, seed))
        .collect()
}

/// How much the constraint pass moved people in one run (reported, no target): the share of
/// person-steps it moved someone, the mean and the largest move.
pub fn correction_rows(
    scenario: &str,
    parameter: &str,
    value: f32,
    c: &crate::crowd::Corrections,
) -> [Row; 3] {
    let row = |what: &str, measured: f32, unit: &str| {
        Row::new(
            &format!("{scenario}_{what}"),
            parameter,
            value,
            measured,
            unit,
            f32::NAN,
            f32::NAN,
        )
    };
    [
        row("corrected_share", c.share(), "share"),
        row("correction_mean", c.mean_m(), "m"),
        row("correction_max", c.max_m, "m"),
    ]
}

/// The rows as a Markdown table, targets written as ranges, misses in bold.
pub fn to_markdown(rows: &[Row]) -> String {
    let mut out =
        String::from("| test | parameter | measured | target | pass |\n|---|---|---|---|---|\n");
    for r in rows {
        let target = match (r.target_low.is_nan(), r.target_high.is_nan()) {
            (true, true) => String::from("—"),
            (false, true) => format!("≥ {}", short(r.target_low)),
            (true, false) => format!("≤ {}", short(r.target_high)),
            (false, false) if r.target_low == r.target_high => short(r.target_low),
            (false, false) => format!("{} – {}", short(r.target_low), short(r.target_high)),
        };
        let pass = if !r.has_target() {
            ""
        } else if r.pass() {
            "yes"
        } else {
            "**no**"
        };
        let _ = writeln!(
            out,
            "| {} | {} = {} | {} {} | {} | {} |",
            r.test,
            r.parameter,
            short(r.value),
            short(r.measured),
            r.unit,
            target,
            pass
        );
    }
    out
}

/// A number with at most three decimals and no trailing zeros.
fn short(v: f32) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "n/a".into()
        } else {
            "never".into()
        };
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_passes_inside_its_target_and_open_sides_are_empty_fields() {
        let inside = Row::new("t", "p", 2.0, 0.7, "m/s", 0.5, 0.9);
        let below = Row::new("t", "p", 2.0, 0.4, "m/s", 0.5, 0.9);
        let open_top = Row::new("t", "p", 2.0, 9.0, "m/s", 0.5, f32::NAN);
        let report_only = Row::new("t", "p", 2.0, f32::NAN, "m/s", f32::NAN, f32::NAN);
        assert!(inside.pass() && !below.pass() && open_top.pass());
        assert!(!report_only.has_target());
        assert_eq!(
            to_csv(&[inside, open_top]),
            "test,parameter,value,measured,unit,target_low,target_high,pass\n\
             t,p,2,0.7000,m/s,0.5,0.9,true\nt,p,2,9.0000,m/s,0.5,,true\n"
        );
    }

    #[test]
    fn weidmann_speed_matches_the_published_curve() {
        assert_approx!(fundamental::weidmann_speed(1.0), 1.0587, 1e-3);
        assert_approx!(fundamental::weidmann_speed(2.0), 0.6063, 1e-3);
        assert_approx!(fundamental::weidmann_speed(5.4), 0.0, 1e-6);
        assert_eq!(fundamental::weidmann_speed(7.0), 0.0);
    }

    #[test]
    fn lane_order_is_one_in_lanes_and_low_when_rows_alternate() {
        use glam::Vec2;
        let spots = |lanes: bool| -> Vec<(Vec2, f32)> {
            (0..200)
                .map(|k| {
                    let (col, row) = ((k % 20) as f32, (k / 20) as f32);
                    let p = Vec2::new(-9.5 + col, -4.5 + row);
                    let dir = if lanes {
                        if row < 5.0 {
                            1.0
                        } else {
                            -1.0
                        }
                    } else if (k / 20) % 2 == 0 {
                        1.0
                    } else {
                        -1.0
                    };
                    (p, dir)
                })
                .collect()
        };
        let lanes = arena::LoopCorridor::new(20.0, 10.0, &spots(true), (1.3, 1.3), 1);
        let mixed = arena::LoopCorridor::new(20.0, 10.0, &spots(false), (1.3, 1.3), 1);
        // Two lanes: only the two rows at their border see the other way on one side.
        assert_approx!(counterflow::lane_order(&lanes), 0.9, 1e-6);
        assert_approx!(counterflow::lane_order(&mixed), 0.0, 1e-6);
    }
}

//! The benchmark's plots, drawn with `crate::chart`.
//!
//! `bench.png`: median frame time against crowd size, both on log scales (modes differ by
//! factors of 10-40, which a linear axis flattens into the floor), a line per mode, its p5-p95
//! spread shaded, the 60 and 30 fps frame budgets, and a previous run's medians dashed.
//! `bench-vs-baseline.png`: this run's median over the previous run's, per mode.

use super::baseline::{ratios, BaselineRow};
use super::report::BenchRow;
use crate::chart::{At, Axis, Band, Chart, Marker, RefLine, Scale, Series, GREY, PALETTE};

/// Frame budgets drawn across the plot: (ms, label).
pub const BUDGETS: [(f64, &str); 2] = [
    (1000.0 / 60.0, "16.7 ms = 60 fps"),
    (1000.0 / 30.0, "33.3 ms = 30 fps"),
];

/// Modes in first-seen order, each with its colour.
fn modes(rows: &[BenchRow]) -> Vec<&str> {
    let mut modes: Vec<&str> = Vec::new();
    for r in rows {
        if !modes.contains(&r.mode.as_str()) {
            modes.push(&r.mode);
        }
    }
    modes
}

fn colour(k: usize) -> [u8; 3] {
    PALETTE[k % PALETTE.len()]
}

/// (agents, value) of one mode, in increasing agents, finite values only.
fn points(
    rows: &[BenchRow],
    mode: &str,
    value: impl Fn(&BenchRow) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.mode == mode)
        .filter_map(|r| {
            value(r)
                .filter(|v| v.is_finite())
                .map(|v| (r.agents as f64, v))
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// What a plot's times are: whole frames (GL) or simulation steps (headless).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timed {
    Frame,
    Step,
}

impl Timed {
    fn name(self) -> &'static str {
        match self {
            Timed::Frame => "frame",
            Timed::Step => "step",
        }
    }
}

/// What goes around the plotted rows.
pub struct PlotText<'a> {
    pub title: &'a str,
    pub subtitle: &'a str,
    pub timed: Timed,
}

/// The time chart: `baseline` rows (a previous run) are drawn dashed in their mode's colour;
/// the budget lines are always on the axis, which stretches to hold them.
pub fn chart(rows: &[BenchRow], baseline: &[BaselineRow], text: &PlotText) -> Chart {
    let agents = rows
        .iter()
        .map(|r| r.agents)
        .chain(baseline.iter().map(|b| b.agents));
    let agents: Vec<f64> = agents.map(f64::from).collect();
    let times = rows
        .iter()
        .flat_map(|r| [Some(r.frame_ms_median), r.frame_ms_p5, r.frame_ms_p95])
        .flatten()
        .chain(baseline.iter().map(|b| b.median_ms))
        .chain(BUDGETS.map(|b| b.0));
    let y_label = format!(
        "{} ms (log scale): median, shaded p5-p95",
        text.timed.name()
    );
    let mut chart = Chart::new(
        text.title,
        Axis::new("agents (log scale)", Scale::log_fit(agents)),
        Axis::new(y_label, Scale::log_fit(times)),
    );
    chart.subtitle = text.subtitle.to_string();
    for (ms, label) in BUDGETS {
        chart.refs.push(RefLine::new(At::Y(ms), label, GREY));
    }
    let names = modes(rows);
    for (k, mode) in names.iter().enumerate() {
        let low = points(rows, mode, |r| r.frame_ms_p5);
        let high = points(rows, mode, |r| r.frame_ms_p95);
        chart.bands.push(Band::between("", &low, &high, colour(k)));
        let median = points(rows, mode, |r| Some(r.frame_ms_median));
        chart
            .series
            .push(Series::line(*mode, median, colour(k)).with_marker(Marker::Square));
    }
    let mut old_modes: Vec<&str> = Vec::new();
    for b in baseline {
        if !old_modes.contains(&b.mode.as_str()) {
            old_modes.push(&b.mode);
        }
    }
    let mut unmatched = names.len();
    for mode in old_modes {
        // A mode only the baseline has takes the next free colour.
        let k = names.iter().position(|m| *m == mode).unwrap_or_else(|| {
            unmatched += 1;
            unmatched - 1
        });
        let mut pts: Vec<(f64, f64)> = baseline
            .iter()
            .filter(|b| b.mode == mode && b.median_ms.is_finite())
            .map(|b| (f64::from(b.agents), b.median_ms))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let name = format!("{mode} (baseline)");
        chart.series.push(
            Series::line(name, pts, colour(k))
                .dashed()
                .with_width(2)
                .with_marker(Marker::Circle),
        );
    }
    chart
}

/// This run's median over the baseline's, per mode, for the (mode, agents) both have; 1 (no
/// change) drawn across.
pub fn ratio_chart(rows: &[BenchRow], baseline: &[BaselineRow], text: &PlotText) -> Chart {
    let matched = ratios(rows, baseline);
    let agents = matched.iter().map(|r| f64::from(r.agents));
    let values = matched.iter().map(|r| r.ratio).chain([1.0]);
    let y_label = format!("median {} ms, this run / baseline", text.timed.name());
    let mut chart = Chart::new(
        "this run against the baseline",
        Axis::new("agents (log scale)", Scale::log_fit(agents)),
        Axis::new(y_label, Scale::linear_fit(values, true)),
    );
    chart.subtitle = format!("{}; below 1: faster than the baseline", text.title);
    chart
        .refs
        .push(RefLine::new(At::Y(1.0), "same as baseline", GREY));
    for (k, mode) in modes(rows).iter().enumerate() {
        let pts: Vec<(f64, f64)> = matched
            .iter()
            .filter(|r| r.mode == *mode)
            .map(|r| (f64::from(r.agents), r.ratio))
            .collect();
        if !pts.is_empty() {
            chart
                .series
                .push(Series::line(*mode, pts, colour(k)).with_marker(Marker::Diamond));
        }
    }
    chart
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(mode: &str, agents: u32, ms: f64) -> BenchRow {
        BenchRow {
            frame_ms_p5: Some(ms * 0.5),
            frame_ms_p95: Some(ms * 2.0),
            ..BenchRow::new(mode, agents, ms)
        }
    }

    const TEXT: PlotText = PlotText {
        title: "t",
        subtitle: "",
        timed: Timed::Frame,
    };

    fn rows() -> Vec<BenchRow> {
        vec![
            row("pipeline", 100, 1.0),
            row("pipeline", 10_000, 5.0),
            row("naive", 100, 2.0),
            row("naive", 10_000, 40.0),
        ]
    }

    #[test]
    fn medians_are_lines_with_their_spread_shaded_and_both_budgets() {
        let chart = chart(&rows(), &[], &TEXT);
        assert_eq!(chart.series.len(), 2);
        assert_eq!(chart.series[0].points, [(100.0, 1.0), (10_000.0, 5.0)]);
        assert_eq!(
            chart.bands[1].points,
            [(100.0, 1.0, 4.0), (10_000.0, 20.0, 80.0)]
        );
        let budgets: Vec<At> = chart.refs.iter().map(|r| r.at).collect();
        assert_eq!(budgets, [At::Y(1000.0 / 60.0), At::Y(1000.0 / 30.0)]);
        // The axis holds the spread and the budgets: 0.5 to 80 ms -> 0.1 to 100.
        assert_eq!(chart.y.scale, Scale::log(0.1, 100.0));
        let c = chart.render();
        // Halfway along naive's line on log-log axes: the geometric mean of its ends.
        let (x, y) = chart.to_pixel(1000.0, 80f64.sqrt()).expect("placed");
        assert_eq!(
            c.pixel(x.round() as i32, y.round() as i32),
            Some(PALETTE[1])
        );
        // Inside naive's band at 1,000 agents, away from any line: shaded, not white.
        let (x, y) = chart.to_pixel(1000.0, 12.0).expect("placed");
        let shade = c
            .pixel(x.round() as i32 + 2, y.round() as i32)
            .expect("inside");
        assert!(shade != [255, 255, 255] && shade != PALETTE[1], "{shade:?}");
    }

    #[test]
    fn frames_too_few_for_a_spread_draw_no_band() {
        let rows = [
            BenchRow::new("pipeline", 100, 1.0),
            BenchRow::new("pipeline", 1000, 2.0),
        ];
        assert!(chart(&rows, &[], &TEXT)
            .bands
            .iter()
            .all(|b| b.points.is_empty()));
    }

    #[test]
    fn a_baseline_is_dashed_in_its_modes_colour_and_ratios_are_plotted() {
        let old = [
            BaselineRow {
                mode: "naive".into(),
                agents: 100,
                median_ms: 4.0,
            },
            BaselineRow {
                mode: "naive".into(),
                agents: 10_000,
                median_ms: 20.0,
            },
        ];
        let chart = chart(&rows(), &old, &TEXT);
        let dashed = chart.series.last().expect("baseline series");
        assert_eq!(dashed.name, "naive (baseline)");
        assert_eq!(dashed.color, PALETTE[1]);
        assert!(dashed.dash.is_some());
        let ratio = ratio_chart(&rows(), &old, &TEXT);
        assert_eq!(ratio.series.len(), 1, "only naive has a baseline");
        assert_eq!(ratio.series[0].points, [(100.0, 0.5), (10_000.0, 2.0)]);
        assert!(ratio.png().is_ok());
    }
}

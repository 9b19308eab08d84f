//! `evacuation.png`: the flow through each exit over time (the CSV's `flow_per_s`), one line
//! per exit, with each exit's capacity drawn across as a dashed line.

use super::report::{sample_times, summary, FLOW_WINDOW};
use super::run::Outcome;
use crate::chart::{At, Axis, Chart, LegendCorner, RefLine, Scale, Series, GREY, PALETTE};

pub fn flow_chart(o: &Outcome) -> Chart {
    let times = sample_times(o);
    let mut chart = Chart::new(
        format!("Evacuation: {}, {} people", o.level_name, o.people),
        Axis::new(
            "seconds after the alarm",
            Scale::linear_fit(times.iter().map(|&t| f64::from(t)), true),
        ),
        Axis::new(
            format!("people per second through the exit ({FLOW_WINDOW:.0} s window)"),
            Scale::linear(0.0, 1.0),
        ),
    );
    // ASCII only: the chart's font has no superscript two everywhere it is needed.
    chart.subtitle = summary(o).replace("/m²", "per m2");
    let mut highest = 0.0f64;
    for (k, e) in o.exits.iter().enumerate() {
        let points: Vec<(f64, f64)> = times
            .iter()
            .map(|&t| (f64::from(t), f64::from(e.flow(t, FLOW_WINDOW))))
            .collect();
        highest = points.iter().map(|p| p.1).fold(highest, f64::max);
        let name = if e.closed {
            format!("{} (closed)", e.name)
        } else {
            format!("{} ({} people)", e.name, e.through())
        };
        let mut series = Series::line(name, points, PALETTE[k % PALETTE.len()]);
        if k >= PALETTE.len() {
            // Past six exits the colours repeat: dashed, so two lines still differ.
            series = series.dashed();
        }
        chart.series.push(series);
    }
    let mut capacities: Vec<f32> = o
        .exits
        .iter()
        .filter(|e| !e.closed)
        .map(|e| (e.capacity * 10.0).round() / 10.0)
        .collect();
    capacities.sort_by(f32::total_cmp);
    capacities.dedup();
    for c in capacities {
        highest = highest.max(f64::from(c));
        chart.refs.push(RefLine::new(
            At::Y(f64::from(c)),
            format!("capacity {c:.1}/s"),
            GREY,
        ));
    }
    chart.y.scale = Scale::linear_fit([0.0, highest * 1.1], true);
    chart.legend = LegendCorner::TopRight;
    chart
}

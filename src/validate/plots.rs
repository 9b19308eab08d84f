//! The validation's three plots: the fundamental diagram over Weidmann's curve, flow against
//! door width over the laboratory range, and lane order over time.

use crate::chart::{At, Axis, Band, Chart, Marker, RefLine, Scale, Series, PALETTE};

use super::arena::Arrangement;
use super::{attraction, bottleneck, counterflow, fundamental, Report};

pub fn fundamental_diagram(r: &Report) -> Chart {
    let curve: Vec<(f64, f64)> = (1..=54)
        .map(|k| {
            let d = k as f32 * 0.1;
            (d as f64, fundamental::weidmann_speed(d) as f64)
        })
        .collect();
    let checked: Vec<(f64, f64)> = curve
        .iter()
        .copied()
        .filter(|(d, _)| *d >= 0.45 && *d <= fundamental::CHECKED_UP_TO as f64 + 0.05)
        .collect();
    let mut chart = Chart::new(
        "Fundamental diagram: one-way corridor",
        Axis::new("density (people per m2)", Scale::linear(0.0, 6.0)),
        Axis::new("mean speed (m/s)", Scale::linear(0.0, 1.6)),
    );
    chart.subtitle =
        "measured in the corridor's middle and at lines across it after a warm-up; shaded: Weidmann +-25 %"
            .into();
    chart.bands.push(Band::around(
        "target: Weidmann +-25 %",
        &checked,
        fundamental::TOLERANCE as f64,
        PALETTE[0],
    ));
    chart
        .series
        .push(Series::line("Weidmann (1993)", curve, PALETTE[0]));
    chart.series.push(
        Series::line(
            "Throng (grid start, seed 1)",
            r.fundamental
                .iter()
                .map(|p| (p.density as f64, p.speed as f64))
                .collect(),
            PALETTE[1],
        )
        .with_marker(Marker::Circle),
    );
    // The same runs measured at lines across the corridor (PedPy's line method): it should
    // lie on the corridor's curve.
    chart.series.push(
        Series::line(
            "Throng at a line (Voronoi, grid start, seed 1)",
            r.fundamental
                .iter()
                .map(|p| (p.line().density as f64, p.line().speed as f64))
                .collect(),
            PALETTE[5],
        )
        .dashed()
        .with_marker(Marker::Diamond),
    );
    // The other starts as points, one colour per arrangement: they should sit on the line.
    for (k, arrangement) in [
        Arrangement::Grid,
        Arrangement::Hexagonal,
        Arrangement::Random,
    ]
    .into_iter()
    .enumerate()
    {
        let points: Vec<(f64, f64)> = r
            .fundamental_starts
            .iter()
            .filter(|p| p.arrangement == arrangement)
            .map(|p| (p.density as f64, p.speed as f64))
            .collect();
        if !points.is_empty() {
            chart.series.push(Series::points(
                if arrangement == Arrangement::Grid {
                    "from a grid start, other seeds".to_string()
                } else {
                    format!("from a {} start", arrangement.name())
                },
                points,
                PALETTE[2 + k],
                [Marker::Square, Marker::Diamond, Marker::Cross][k],
            ));
        }
    }
    chart.legend = crate::chart::LegendCorner::TopRight;
    chart
}

pub fn bottleneck_flow(r: &Report) -> Chart {
    let (low, high) = bottleneck::SPECIFIC_FLOW;
    let widths = (0.6, 2.6);
    let mut chart = Chart::new(
        "Bottleneck: flow through a door",
        Axis::new("door width (m)", Scale::linear(widths.0, widths.1)),
        Axis::new("flow (people per second)", Scale::linear(0.0, 6.0)),
    );
    chart.subtitle =
        "100 people from a waiting area; shaded: 1.3-2.2 per s per m, the experiments' range"
            .into();
    let band: Vec<(f64, f64, f64)> = [widths.0, widths.1]
        .iter()
        .map(|&w| (w, w * low as f64, w * high as f64))
        .collect();
    chart
        .bands
        .push(Band::new("target: 1.3-2.2 /m/s x width", band, PALETTE[2]));
    chart.series.push(
        Series::line(
            "Throng",
            r.bottleneck
                .iter()
                .map(|o| (o.width as f64, o.flow as f64))
                .collect(),
            PALETTE[1],
        )
        .with_marker(Marker::Circle),
    );
    chart
}

pub fn lane_order(r: &Report) -> Chart {
    let end = r.counterflow.times.last().copied().unwrap_or(60.0) as f64;
    let mut chart = Chart::new(
        "Counterflow: lanes forming",
        Axis::new("time (s)", Scale::linear(0.0, end.max(60.0))),
        Axis::new("lane order (share)", Scale::linear(0.0, 1.0)),
    );
    chart.subtitle =
        "both ways at 1 person per m2 in a 10 m wide corridor; 0.5 = mixed, 1 = lanes".into();
    chart.refs.push(RefLine::new(
        At::Y(counterflow::MIN_ORDER as f64),
        "target after 60 s",
        PALETTE[2],
    ));
    chart
        .refs
        .push(RefLine::new(At::Y(0.5), "no lanes", crate::chart::GREY));
    chart.series.push(Series::line(
        "Throng",
        r.counterflow
            .times
            .iter()
            .zip(&r.counterflow.order)
            .map(|(&t, &o)| (t as f64, o as f64))
            .collect(),
        PALETTE[1],
    ));
    chart.legend = crate::chart::LegendCorner::BottomRight;
    chart
}

/// The share of passers-by who stopped at a performer against the audience already watching:
/// the crowd's tally per bin (at the bin's mean count) over the level's `show_stop` curve, with
/// Milgram, Bickman & Berkowitz's two stimulus crowds (1 and 15 looking up) for reference.
pub fn drawing_power(o: &attraction::Outcome) -> Chart {
    let p = &o.power;
    // The tally's last bin holds 40 and more.
    let top = 42.0;
    let mut chart = Chart::new(
        "Drawing power: passers-by who stop at a performer",
        Axis::new("people already watching", Scale::linear(0.0, top)),
        Axis::new("share who stop", Scale::linear(0.0, 0.6)),
    );
    chart.subtitle = format!(
        "six performers on the plaza, {} people, {} seed(s) x {:.0} s; decisions only while the rings had room",
        attraction::PEOPLE,
        p.seeds,
        p.seconds
    );
    let curve: Vec<(f64, f64)> = (0..=top as u32)
        .map(|n| (n as f64, p.curve.chance(n) as f64))
        .collect();
    chart.series.push(Series::line(
        "model: crowd.behaviour.show_stop",
        curve,
        PALETTE[0],
    ));
    // Each bin at the mean count of its decisions.
    let measured: Vec<(f64, f64)> = attraction::bins(p)
        .iter()
        .filter(|b| b.asked > 0)
        .map(|b| {
            let hi = (b.high as usize).min(p.power.asked.len() - 1);
            let (mut n, mut w) = (0.0, 0.0);
            for k in b.low as usize..=hi {
                n += k as f64 * p.power.asked[k] as f64;
                w += p.power.asked[k] as f64;
            }
            (n / w.max(1.0), b.share() as f64)
        })
        .collect();
    chart.series.push(
        Series::line(
            "Throng (binned 0, 1-2, 3-5, 6-10, 11-20, 21+)",
            measured,
            PALETTE[1],
        )
        .with_marker(Marker::Circle),
    );
    chart.series.push(Series::points(
        "Milgram et al. 1969 (stopped)",
        vec![(1.0, 0.04), (15.0, 0.40)],
        PALETTE[2],
        Marker::Square,
    ));
    chart.legend = crate::chart::LegendCorner::BottomRight;
    chart
}

/// The plots with their file names, for the scenarios that ran.
pub fn all(r: &Report) -> Vec<(&'static str, Chart)> {
    let mut out = Vec::new();
    if !r.fundamental.is_empty() {
        out.push(("fundamental_diagram.png", fundamental_diagram(r)));
    }
    if !r.bottleneck.is_empty() {
        out.push(("bottleneck_flow.png", bottleneck_flow(r)));
    }
    if !r.counterflow.times.is_empty() {
        out.push(("lane_order.png", lane_order(r)));
    }
    if let Some(a) = &r.attraction {
        out.push(("drawing_power.png", drawing_power(a)));
    }
    out
}

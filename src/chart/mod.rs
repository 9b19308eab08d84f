//! Line charts as PNG, drawn by hand on an RGB canvas with an 8x8 bitmap font, so they need no
//! system fonts and no GL: the benchmark's plot and the crowd validation plots.
//!
//! A chart is two axes (linear or log, `scale.rs`), then in drawing order: shaded bands (a
//! p5-p95 spread, a target range around a curve), reference lines with a label (frame budgets,
//! thresholds), and line series with optional point markers, plus a legend of the named series
//! and bands. `Chart::to_pixel` is the one mapping from data to pixels, so tests can look
//! where a value landed.

pub mod canvas;
pub mod scale;

use std::path::Path;

pub use canvas::{Canvas, Dash, Marker, Rect, Rgb, DASHED};
pub use scale::{Scale, Tick};

/// Distinct colours for series (matplotlib's first six).
pub const PALETTE: [Rgb; 6] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [255, 127, 14],
    [148, 103, 189],
    [23, 190, 207],
];
pub const BLACK: Rgb = [0, 0, 0];
pub const GREY: Rgb = [110, 110, 110];
const WHITE: Rgb = [255, 255, 255];
const GRID_MAJOR: Rgb = [215, 215, 215];
const GRID_MINOR: Rgb = [238, 238, 238];

/// Margins around the plot area: tick labels left and below, title and axis label above.
const LEFT: i32 = 90;
const RIGHT: i32 = 30;
const TOP: i32 = 64;
const BOTTOM: i32 = 62;

#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
}

impl Axis {
    pub fn new(label: impl Into<String>, scale: Scale) -> Axis {
        Axis {
            label: label.into(),
            scale,
        }
    }
}

/// Data points joined by a line (solid, dashed or none) and/or marked.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Shown in the legend; empty: not listed.
    pub name: String,
    /// Drawn in the order given (sort by x for a curve).
    pub points: Vec<(f64, f64)>,
    pub color: Rgb,
    /// Line width in pixels; 0 draws no line (points only).
    pub width: i32,
    pub dash: Option<Dash>,
    pub marker: Option<Marker>,
}

impl Series {
    /// A solid 3-pixel line without markers.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>, color: Rgb) -> Series {
        Series {
            name: name.into(),
            points,
            color,
            width: 3,
            dash: None,
            marker: None,
        }
    }

    /// Markers only, no line (measurements).
    pub fn points(
        name: impl Into<String>,
        points: Vec<(f64, f64)>,
        color: Rgb,
        marker: Marker,
    ) -> Series {
        Series {
            width: 0,
            marker: Some(marker),
            ..Series::line(name, points, color)
        }
    }

    pub fn dashed(mut self) -> Series {
        self.dash = Some(DASHED);
        self
    }

    pub fn with_marker(mut self, marker: Marker) -> Series {
        self.marker = Some(marker);
        self
    }

    pub fn with_width(mut self, width: i32) -> Series {
        self.width = width;
        self
    }
}

/// A shaded area between a lower and an upper value along x.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Shown in the legend; empty: not listed.
    pub name: String,
    /// (x, low, high), in increasing x.
    pub points: Vec<(f64, f64, f64)>,
    pub color: Rgb,
    /// Opacity of the shade over what is below it.
    pub alpha: f32,
}

impl Band {
    pub fn new(name: impl Into<String>, mut points: Vec<(f64, f64, f64)>, color: Rgb) -> Band {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        Band {
            name: name.into(),
            points,
            color,
            alpha: 0.2,
        }
    }

    /// Between two series sampled at the same x (a p5 and a p95 line): points of `low` with no
    /// x in `high` are left out.
    pub fn between(
        name: impl Into<String>,
        low: &[(f64, f64)],
        high: &[(f64, f64)],
        color: Rgb,
    ) -> Band {
        let points = low
            .iter()
            .filter_map(|&(x, lo)| high.iter().find(|h| h.0 == x).map(|&(_, hi)| (x, lo, hi)))
            .collect();
        Band::new(name, points, color)
    }

    /// From `x0` to `x1`, `low` to `high` throughout (a target range).
    pub fn flat(
        name: impl Into<String>,
        (x0, x1): (f64, f64),
        low: f64,
        high: f64,
        c: Rgb,
    ) -> Band {
        Band::new(name, vec![(x0, low, high), (x1, low, high)], c)
    }

    /// `curve` × (1 - `share`) to `curve` × (1 + `share`): e.g. ±25 % around a reference curve.
    pub fn around(name: impl Into<String>, curve: &[(f64, f64)], share: f64, c: Rgb) -> Band {
        let points = curve
            .iter()
            .map(|&(x, y)| (x, y * (1.0 - share), y * (1.0 + share)))
            .collect();
        Band::new(name, points, c)
    }
}

/// Where a reference line runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum At {
    /// Across the plot at this y.
    Y(f64),
    /// Up the plot at this x.
    X(f64),
}

/// A labelled straight line across the plot: a frame budget, a threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct RefLine {
    pub at: At,
    /// Written next to the line, inside the plot (at the right end, or the top).
    pub label: String,
    pub color: Rgb,
    pub dash: Option<Dash>,
}

impl RefLine {
    /// A dashed line with its label.
    pub fn new(at: At, label: impl Into<String>, color: Rgb) -> RefLine {
        RefLine {
            at,
            label: label.into(),
            color,
            dash: Some(DASHED),
        }
    }
}

/// Which corner of the plot area the legend sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LegendCorner {
    #[default]
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    /// A smaller line under the title (what was measured, where); empty: none.
    pub subtitle: String,
    pub width: usize,
    pub height: usize,
    pub x: Axis,
    pub y: Axis,
    pub bands: Vec<Band>,
    pub refs: Vec<RefLine>,
    pub series: Vec<Series>,
    pub legend: LegendCorner,
}

impl Chart {
    /// An empty 960 × 540 chart.
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Chart {
        Chart {
            title: title.into(),
            subtitle: String::new(),
            width: 960,
            height: 540,
            x,
            y,
            bands: Vec::new(),
            refs: Vec::new(),
            series: Vec::new(),
            legend: LegendCorner::default(),
        }
    }

    /// The plot area inside the margins, in pixels.
    pub fn plot_area(&self) -> Rect {
        Rect {
            x0: LEFT,
            y0: TOP,
            x1: self.width as i32 - RIGHT,
            y1: self.height as i32 - BOTTOM,
        }
    }

    /// The pixel a data point lands on (outside the plot area when outside the axes' ranges);
    /// None for a value an axis cannot place.
    pub fn to_pixel(&self, x: f64, y: f64) -> Option<(f32, f32)> {
        let a = self.plot_area();
        let fx = self.x.scale.fraction(x)?;
        let fy = self.y.scale.fraction(y)?;
        Some((
            a.x0 as f32 + (fx * f64::from(a.x1 - a.x0)) as f32,
            a.y1 as f32 - (fy * f64::from(a.y1 - a.y0)) as f32,
        ))
    }

    /// Draws the chart.
    pub fn render(&self) -> Canvas {
        let mut c = Canvas::new(self.width, self.height, WHITE);
        let area = self.plot_area();
        self.draw_grid(&mut c);
        c.set_clip(Some(area));
        for band in &self.bands {
            self.draw_band(&mut c, band);
        }
        for r in &self.refs {
            self.draw_ref(&mut c, r);
        }
        for s in &self.series {
            self.draw_series(&mut c, s);
        }
        c.set_clip(None);
        let frame = (
            (area.x0 as f32, area.y1 as f32),
            (area.x1 as f32, area.y0 as f32),
        );
        c.line(frame.0, (frame.1 .0, frame.0 .1), 2, BLACK);
        c.line(frame.0, (frame.0 .0, frame.1 .1), 2, BLACK);
        self.draw_labels(&mut c);
        self.draw_legend(&mut c);
        c
    }

    pub fn png(&self) -> Result<Vec<u8>, String> {
        self.render().png()
    }

    /// Renders and writes the PNG atomically (no half-written file is ever seen at `path`).
    pub fn write_png(&self, path: &Path) -> Result<(), String> {
        crate::files::write_atomic(path, &self.png()?)?;
        Ok(())
    }

    fn draw_grid(&self, c: &mut Canvas) {
        let a = self.plot_area();
        for t in self.y.scale.ticks() {
            let Some(f) = self.y.scale.fraction(t.value) else {
                continue;
            };
            let y = a.y1 as f32 - (f * f64::from(a.y1 - a.y0)) as f32;
            let colour = if t.major { GRID_MAJOR } else { GRID_MINOR };
            c.line((a.x0 as f32, y), (a.x1 as f32, y), 1, colour);
            if let Some(label) = &t.label {
                let w = Canvas::text_width(label, 1);
                c.text(a.x0 - 8 - w, y.round() as i32 - 4, label, 1, BLACK);
            }
        }
        for t in self.x.scale.ticks() {
            let Some(f) = self.x.scale.fraction(t.value) else {
                continue;
            };
            let x = a.x0 as f32 + (f * f64::from(a.x1 - a.x0)) as f32;
            let colour = if t.major { GRID_MAJOR } else { GRID_MINOR };
            c.line((x, a.y0 as f32), (x, a.y1 as f32), 1, colour);
            if let Some(label) = &t.label {
                let w = Canvas::text_width(label, 1);
                c.text(x.round() as i32 - w / 2, a.y1 + 10, label, 1, BLACK);
            }
        }
    }

    /// Fills each pixel column between the band's low and high edges, both interpolated along
    /// x in screen space (so the edges are the same straight segments a series draws).
    fn draw_band(&self, c: &mut Canvas, band: &Band) {
        let px: Vec<(f32, f32, f32)> = band
            .points
            .iter()
            .filter_map(|&(x, lo, hi)| {
                let (sx, slo) = self.to_pixel(x, lo)?;
                let (_, shi) = self.to_pixel(x, hi)?;
                Some((sx, slo, shi))
            })
            .collect();
        for w in px.windows(2) {
            let ((x0, lo0, hi0), (x1, lo1, hi1)) = (w[0], w[1]);
            let (first, last) = (x0.round() as i32, x1.round() as i32);
            for x in first..last.max(first + 1) {
                let t = if x1 > x0 {
                    ((x as f32 - x0) / (x1 - x0)).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let lo = lo0 + (lo1 - lo0) * t;
                let hi = hi0 + (hi1 - hi0) * t;
                c.blend_column(x, hi, lo, band.color, band.alpha);
            }
        }
    }

    fn draw_ref(&self, c: &mut Canvas, r: &RefLine) {
        let a = self.plot_area();
        let (from, to, label_at) = match r.at {
            At::Y(y) => {
                let Some(f) = self.y.scale.fraction(y) else {
                    return;
                };
                let py = a.y1 as f32 - (f * f64::from(a.y1 - a.y0)) as f32;
                let w = Canvas::text_width(&r.label, 1);
                let label = (a.x1 - 6 - w, py.round() as i32 - 12);
                ((a.x0 as f32, py), (a.x1 as f32, py), label)
            }
            At::X(x) => {
                let Some(f) = self.x.scale.fraction(x) else {
                    return;
                };
                let px = a.x0 as f32 + (f * f64::from(a.x1 - a.x0)) as f32;
                let label = (px.round() as i32 + 5, a.y0 + 6);
                ((px, a.y1 as f32), (px, a.y0 as f32), label)
            }
        };
        c.dashed_line(from, to, 2, r.color, r.dash, 0.0);
        c.text(label_at.0, label_at.1, &r.label, 1, r.color);
    }

    fn draw_series(&self, c: &mut Canvas, s: &Series) {
        let px: Vec<(f32, f32)> = s
            .points
            .iter()
            .filter_map(|&(x, y)| self.to_pixel(x, y))
            .collect();
        if s.width > 0 {
            let mut phase = 0.0;
            for w in px.windows(2) {
                phase = c.dashed_line(w[0], w[1], s.width, s.color, s.dash, phase);
            }
        }
        if let Some(m) = s.marker {
            for &p in &px {
                c.marker(p, m, 4, s.color);
            }
        }
    }

    fn draw_labels(&self, c: &mut Canvas) {
        let a = self.plot_area();
        // Long titles are cut to the canvas rather than running off its edge.
        let room = self.width as i32 - a.x0 - 8;
        let title = Canvas::fit_text(&self.title, room, 2);
        c.text(a.x0, 12, &title, 2, BLACK);
        let subtitle = Canvas::fit_text(&self.subtitle, room, 1);
        c.text(a.x0, 34, &subtitle, 1, GREY);
        c.text(8, a.y0 - 16, &self.y.label, 1, BLACK);
        let w = Canvas::text_width(&self.x.label, 2);
        let centre = (a.x0 + a.x1) / 2;
        c.text(centre - w / 2, a.y1 + 30, &self.x.label, 2, BLACK);
    }

    fn draw_legend(&self, c: &mut Canvas) {
        const ROW: i32 = 16;
        const SAMPLE: i32 = 30;
        let bands = self.bands.iter().filter(|b| !b.name.is_empty());
        let series = self.series.iter().filter(|s| !s.name.is_empty());
        let names = bands
            .clone()
            .map(|b| &b.name)
            .chain(series.clone().map(|s| &s.name));
        let rows = names.clone().count() as i32;
        if rows == 0 {
            return;
        }
        let text_w = names.map(|n| Canvas::text_width(n, 1)).max().unwrap_or(0);
        let (w, h) = (SAMPLE + 18 + text_w, rows * ROW + 8);
        let a = self.plot_area();
        let (left_side, top_side) = match self.legend {
            LegendCorner::TopLeft => (true, true),
            LegendCorner::TopRight => (false, true),
            LegendCorner::BottomLeft => (true, false),
            LegendCorner::BottomRight => (false, false),
        };
        let x = if left_side { a.x0 + 10 } else { a.x1 - 10 - w };
        let y = if top_side { a.y0 + 10 } else { a.y1 - 10 - h };
        let inner = Rect {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        };
        c.fill_rect(inner, WHITE);
        let corners = [
            (inner.x0, inner.y0),
            (inner.x1, inner.y0),
            (inner.x1, inner.y1),
            (inner.x0, inner.y1),
        ];
        for k in 0..4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            c.line(
                (a.0 as f32, a.1 as f32),
                (b.0 as f32, b.1 as f32),
                1,
                GRID_MAJOR,
            );
        }
        let mut row_y = y + 4;
        for b in bands {
            let swatch = Rect {
                x0: x + 6,
                y0: row_y + 1,
                x1: x + 6 + SAMPLE,
                y1: row_y + 9,
            };
            for px in swatch.x0..=swatch.x1 {
                c.blend_column(px, swatch.y0 as f32, swatch.y1 as f32, b.color, b.alpha);
            }
            c.text(x + SAMPLE + 12, row_y + 1, &b.name, 1, BLACK);
            row_y += ROW;
        }
        for s in series {
            let (x0, x1, ly) = ((x + 6) as f32, (x + 6 + SAMPLE) as f32, (row_y + 5) as f32);
            if s.width > 0 {
                c.dashed_line((x0, ly), (x1, ly), s.width.min(3), s.color, s.dash, 0.0);
            }
            if let Some(m) = s.marker {
                c.marker(((x0 + x1) / 2.0, ly), m, 4, s.color);
            }
            c.text(x + SAMPLE + 12, row_y + 1, &s.name, 1, BLACK);
            row_y += ROW;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLUE: Rgb = PALETTE[0];
    const RED: Rgb = PALETTE[1];

    fn linear_chart() -> Chart {
        Chart::new(
            "t",
            Axis::new("density", Scale::linear(0.0, 6.0)),
            Axis::new("speed", Scale::linear(0.0, 2.0)),
        )
    }

    #[test]
    fn data_maps_to_the_plot_area_corners() {
        let chart = linear_chart();
        let a = chart.plot_area();
        assert_eq!(chart.to_pixel(0.0, 0.0), Some((a.x0 as f32, a.y1 as f32)));
        assert_eq!(chart.to_pixel(6.0, 2.0), Some((a.x1 as f32, a.y0 as f32)));
        let (mx, my) = chart.to_pixel(3.0, 1.0).expect("placed");
        assert_approx!(mx, (a.x0 + a.x1) as f32 / 2.0, 1e-4);
        assert_approx!(my, (a.y0 + a.y1) as f32 / 2.0, 1e-4);
        let log = Chart::new(
            "t",
            Axis::new("agents", Scale::log(100.0, 10000.0)),
            Axis::new("ms", Scale::log(1.0, 100.0)),
        );
        let (x, _) = log.to_pixel(1000.0, 10.0).expect("placed");
        assert_approx!(x, (a.x0 + a.x1) as f32 / 2.0, 1e-4);
        assert_eq!(log.to_pixel(0.0, 10.0), None);
    }

    #[test]
    fn a_series_and_its_markers_land_where_mapped() {
        let mut chart = linear_chart();
        chart
            .series
            .push(Series::line("", vec![(1.0, 0.5), (5.0, 1.5)], BLUE).with_marker(Marker::Square));
        chart
            .series
            .push(Series::points("", vec![(3.0, 1.8)], RED, Marker::Circle));
        let c = chart.render();
        let at = |x: f64, y: f64| {
            let (px, py) = chart.to_pixel(x, y).expect("placed");
            c.pixel(px.round() as i32, py.round() as i32)
        };
        assert_eq!(at(1.0, 0.5), Some(BLUE));
        assert_eq!(at(3.0, 1.0), Some(BLUE), "midway along the line");
        assert_eq!(at(5.0, 1.5), Some(BLUE));
        assert_eq!(at(3.0, 1.8), Some(RED));
        // Markers-only: nothing drawn between the point and the line below it.
        assert_ne!(at(3.0, 1.4), Some(RED));
        assert_ne!(at(3.0, 1.4), Some(BLUE));
    }

    #[test]
    fn a_band_shades_between_its_edges_and_nowhere_else() {
        let mut chart = linear_chart();
        chart
            .bands
            .push(Band::flat("", (0.0, 6.0), 1.3, 1.5, [0, 0, 0]));
        chart.refs.push(RefLine::new(At::Y(0.5), "limit", RED));
        let c = chart.render();
        let at = |y: f64| {
            let (px, py) = chart.to_pixel(2.0, y).expect("placed");
            c.pixel(px.round() as i32 + 3, py.round() as i32)
        };
        assert_eq!(at(1.4), Some([204, 204, 204]), "white shaded 20 % black");
        assert_eq!(at(1.1), Some(WHITE));
        assert_eq!(at(1.7), Some(WHITE));
        // The reference line is dashed: along it, both its colour and gaps.
        let (_, py) = chart.to_pixel(0.0, 0.5).expect("placed");
        let a = chart.plot_area();
        let row: Vec<_> = (a.x0 + 4..a.x0 + 40)
            .map(|x| c.pixel(x, py.round() as i32))
            .collect();
        assert!(row.contains(&Some(RED)) && row.iter().any(|p| *p != Some(RED)));
    }

    #[test]
    fn points_outside_the_axes_are_clipped_to_the_plot_area() {
        let mut chart = linear_chart();
        chart
            .series
            .push(Series::line("", vec![(-10.0, 1.0), (20.0, 1.0)], RED));
        let c = chart.render();
        let (_, py) = chart.to_pixel(0.0, 1.0).expect("placed");
        let a = chart.plot_area();
        assert_eq!(c.pixel(a.x0 + 5, py.round() as i32), Some(RED));
        assert_ne!(c.pixel(a.x0 - 20, py.round() as i32), Some(RED));
        assert_ne!(c.pixel(a.x1 + 10, py.round() as i32), Some(RED));
    }

    #[test]
    fn the_png_round_trips_with_the_chart_size() {
        let mut chart = linear_chart();
        chart
            .series
            .push(Series::line("measured", vec![(0.0, 0.0), (6.0, 2.0)], BLUE));
        let bytes = chart.png().expect("png");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().expect("valid png");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("frame");
        assert_eq!((info.width, info.height), (960, 540));
        let canvas = chart.render();
        let blue = buf.chunks(3).filter(|p| *p == BLUE).count();
        let expected = (0..540)
            .flat_map(|y| (0..960).map(move |x| (x, y)))
            .filter(|&(x, y)| canvas.pixel(x, y) == Some(BLUE))
            .count();
        assert!(blue > 500);
        assert_eq!(blue, expected);
    }

    #[test]
    fn band_helpers_build_the_expected_edges() {
        let b = Band::around("±25 %", &[(1.0, 2.0), (0.0, 4.0)], 0.25, BLUE);
        assert_eq!(b.points, [(0.0, 3.0, 5.0), (1.0, 1.5, 2.5)]);
        let b = Band::between("p5-p95", &[(1.0, 1.0), (2.0, 2.0)], &[(2.0, 5.0)], BLUE);
        assert_eq!(b.points, [(2.0, 2.0, 5.0)]);
    }
}

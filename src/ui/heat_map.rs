//! Paints the heat map (F2) that `view::heat_map` averages: each cell a coloured quad on the
//! ground, and a legend with the colour scale. Its pressure layer paints the crowd's own
//! record of an evacuation instead (`crowd::evacuation::PressureMap`): how long each spot
//! stayed above the danger density, its worst spot ringed and labelled with the peak.

use super::layout_log::draw_text;
use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{draw_rectangle, draw_triangle, measure_text, Color};

use crate::crowd::evacuation::{Evacuation, PressureMap, DANGER_DENSITY};
use crate::view::heat_map::{
    density_color, pressure_color, ramp, speed_color, HeatMap, HeatView, AVERAGE_SECONDS,
    DENSITY_FULL, PRESSURE_CROWDED, PRESSURE_FULL_SECONDS, SPEED_FULL,
};
use crate::view::level_overlay::project;

use super::pointer::Rect;
use super::widgets::PANEL_BG;

/// Cells lie this high above the ground.
const LIFT: f32 = 0.04;

/// What the heat map's drawing needs of the frame besides the maps.
pub struct HeatFrame<'a> {
    pub view: HeatView,
    pub view_proj: Mat4,
    /// The screen in logical units.
    pub screen: Vec2,
    /// The build toolbar is open: the legend sits above it instead of beside it.
    pub build_open: bool,
    /// What the panels covered when last drawn: world labels keep off them.
    pub panel_rects: &'a [Rect],
}

/// Paints the layer `f.view` shows (the averaged density or speed, or the evacuation's
/// pressure record) and its legend; returns the legend's rectangle.
pub fn draw_view(map: &HeatMap, evacuation: &Evacuation, f: &HeatFrame) -> Option<Rect> {
    match f.view {
        HeatView::Off => None,
        HeatView::Pressure => {
            draw_pressure(evacuation.pressure(), &f.view_proj, f.screen, f.panel_rects);
            Some(draw_pressure_legend(evacuation, f))
        }
        view => {
            draw(map, view, &f.view_proj, f.screen);
            draw_legend(view, f.screen, f.build_open)
        }
    }
}

/// Where a legend of height `h` goes: the lower right corner, above the build toolbar when it
/// is open (beside it the two would overlap on a 1280-wide screen).
fn legend_rect(screen: Vec2, (w, h): (f32, f32), build_open: bool) -> Rect {
    let bottom = if build_open {
        super::build_bar::bar_rect(screen).y - 6.0
    } else {
        screen.y - 34.0
    };
    Rect {
        x: screen.x - w - 10.0,
        y: bottom - h,
        w,
        h,
    }
}

/// Paints the cells of `map` as `view` shows them.
pub fn draw(map: &HeatMap, view: HeatView, view_proj: &Mat4, screen: Vec2) {
    let (cols, rows) = map.dims();
    let size = map.cell_size();
    for row in 0..rows {
        for col in 0..cols {
            let Some(c) = map.color(view, col, row) else {
                continue;
            };
            let o = map.cell_origin(col, row);
            let corners = [(0.0, 0.0), (size, 0.0), (size, size), (0.0, size)]
                .map(|(dx, dz)| project(view_proj, Vec3::new(o.x + dx, LIFT, o.y + dz), screen));
            let [Some(a), Some(b), Some(c2), Some(d)] = corners else {
                continue;
            };
            let color = Color::new(c[0], c[1], c[2], c[3]);
            draw_triangle(a, b, c2, color);
            draw_triangle(a, c2, d, color);
        }
    }
}

/// The colour scale and what it measures, in the lower right corner; returns the rectangle
/// it covers.
pub fn draw_legend(view: HeatView, screen: Vec2, build_open: bool) -> Option<Rect> {
    let (title, top, unit) = match view {
        HeatView::Off | HeatView::Pressure => return None,
        HeatView::Density => ("Heat map (F2): people per m²", DENSITY_FULL, ""),
        HeatView::Speed => ("Heat map (F2): mean speed", SPEED_FULL, " m/s"),
    };
    let r = legend_rect(screen, (320.0, 62.0), build_open);
    draw_rectangle(r.x, r.y, r.w, r.h, PANEL_BG);
    let _scope = super::layout_log::panel("heat map legend", r);
    let white = Color::new(1.0, 1.0, 1.0, 1.0);
    let subtitle = format!("{title}, last {AVERAGE_SECONDS:.0} s");
    draw_text(&subtitle, r.x + 8.0, r.y + 18.0, 17.0, white);
    let steps = 40;
    let bar_w = (r.w - 16.0) / steps as f32;
    for k in 0..steps {
        let t = (k as f32 + 0.5) / steps as f32;
        let c = match view {
            HeatView::Speed => speed_color(t * SPEED_FULL),
            _ => density_color(t * DENSITY_FULL).unwrap_or([0.0; 4]),
        };
        let [red, green, blue] = [c[0], c[1], c[2]];
        draw_rectangle(
            r.x + 8.0 + k as f32 * bar_w,
            r.y + 26.0,
            bar_w + 0.5,
            12.0,
            Color::new(red, green, blue, 1.0),
        );
    }
    for t in [0.0, 0.5, 1.0] {
        let label = format!("{}{unit}", top * t);
        // Each tick's text centred on it, the end ones kept inside the box.
        let w = measure_text(&label, None, 15, 1.0).width;
        let x = (r.x + 8.0 + (r.w - 16.0) * t - w * 0.5).clamp(r.x + 6.0, r.x + r.w - w - 6.0);
        draw_text(&label, x, r.y + 54.0, 15.0, white);
    }
    Some(r)
}

/// The pressure record's windows as ground squares: each 2 x 2-cell window's value painted on
/// the cell-sized square at its centre, so neighbouring windows tile without overlapping.
/// The worst spot over the threshold is ringed and labelled with its peak.
pub fn draw_pressure(map: &PressureMap, view_proj: &Mat4, screen: Vec2, panels: &[Rect]) {
    let cell = map.cell;
    for y in 0..map.rows.saturating_sub(1) {
        for x in 0..map.cols.saturating_sub(1) {
            let c = y * map.cols + x;
            let Some(rgba) = pressure_color(map.peak[c], map.seconds_over[c]) else {
                continue;
            };
            let o = map.origin + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * cell;
            let corners = [(0.0, 0.0), (cell, 0.0), (cell, cell), (0.0, cell)]
                .map(|(dx, dz)| project(view_proj, Vec3::new(o.x + dx, LIFT, o.y + dz), screen));
            let [Some(a), Some(b), Some(c2), Some(d)] = corners else {
                continue;
            };
            let color = Color::new(rgba[0], rgba[1], rgba[2], rgba[3]);
            draw_triangle(a, b, c2, color);
            draw_triangle(a, c2, d, color);
        }
    }
    let worst = map.worst();
    if worst.seconds_over <= 0.0 {
        return;
    }
    let white = Color::new(1.0, 1.0, 1.0, 0.95);
    super::build_bar::draw_world_lines(
        view_proj,
        screen,
        &super::build_bar::circle(worst.at, 2.5),
        2.5,
        white,
    );
    let Some(p) = project(view_proj, Vec3::new(worst.at.x, 2.0, worst.at.y), screen) else {
        return;
    };
    let text = format!(
        "peak {:.1} /m², {:.0} s over {DANGER_DENSITY:.0}",
        worst.density, worst.seconds_over
    );
    let w = measure_text(&text, None, 16, 1.0).width;
    let r = Rect {
        x: p.x - w * 0.5 - 4.0,
        y: p.y - 18.0,
        w: w + 8.0,
        h: 22.0,
    };
    let on_screen = r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= screen.x && r.y + r.h <= screen.y;
    if on_screen && !panels.iter().any(|q| q.overlaps(&r)) {
        draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.7));
        draw_text(&text, r.x + 4.0, p.y, 16.0, white);
    }
}

/// The legend's lines below its colour bar: what was recorded, or why nothing is painted.
pub fn pressure_summary(evacuation: &Evacuation) -> String {
    if evacuation.alarm().is_none() {
        return "no alarm yet, nothing recorded (K raises one)".to_string();
    }
    let worst = evacuation.pressure().worst();
    if worst.seconds_over > 0.0 {
        format!(
            "worst {:.1} /m² for {:.0} s at ({:.0}, {:.0})",
            worst.density, worst.seconds_over, worst.at.x, worst.at.y
        )
    } else {
        format!(
            "nowhere over {DANGER_DENSITY:.0} /m² (peak {:.1} /m²)",
            worst.density
        )
    }
}

/// The pressure layer's legend: the yellow-to-red scale of seconds over the threshold, the
/// faint blue of "crowded", and the worst spot (or that there has been no alarm).
fn draw_pressure_legend(evacuation: &Evacuation, f: &HeatFrame) -> Rect {
    let r = legend_rect(f.screen, (360.0, 102.0), f.build_open);
    draw_rectangle(r.x, r.y, r.w, r.h, PANEL_BG);
    let _scope = super::layout_log::panel("heat map legend", r);
    let white = Color::new(1.0, 1.0, 1.0, 1.0);
    let title = format!("Heat map (F2): seconds over {DANGER_DENSITY:.0} /m²");
    draw_text(&title, r.x + 8.0, r.y + 18.0, 17.0, white);
    let steps = 40;
    let bar_w = (r.w - 16.0) / steps as f32;
    for k in 0..steps {
        let t = (k as f32 + 0.5) / steps as f32;
        let [red, green, blue] = ramp(2.0 / 3.0 + t / 3.0);
        draw_rectangle(
            r.x + 8.0 + k as f32 * bar_w,
            r.y + 26.0,
            bar_w + 0.5,
            12.0,
            Color::new(red, green, blue, 1.0),
        );
    }
    for (t, label) in [
        (0.0, "0 s".to_string()),
        (1.0, format!("{PRESSURE_FULL_SECONDS:.0}+ s")),
    ] {
        let w = measure_text(&label, None, 15, 1.0).width;
        let x = (r.x + 8.0 + (r.w - 16.0) * t - w * 0.5).clamp(r.x + 6.0, r.x + r.w - w - 6.0);
        draw_text(&label, x, r.y + 54.0, 15.0, white);
    }
    // The blue swatch, faint to deep: crowded spots that never crossed the threshold.
    for (k, peak) in [PRESSURE_CROWDED, 3.25, DANGER_DENSITY]
        .into_iter()
        .enumerate()
    {
        let [red, green, blue, a] = pressure_color(peak, 0.0).unwrap_or_default();
        let x = r.x + 8.0 + k as f32 * 10.0;
        draw_rectangle(
            x,
            r.y + 62.0,
            10.0,
            12.0,
            Color::new(red, green, blue, a + 0.2),
        );
    }
    draw_text(
        format!("peaked {PRESSURE_CROWDED}-{DANGER_DENSITY:.0} /m², never over"),
        r.x + 44.0,
        r.y + 73.0,
        15.0,
        white,
    );
    draw_text(
        pressure_summary(evacuation),
        r.x + 8.0,
        r.y + 94.0,
        16.0,
        Color::new(1.0, 0.9, 0.6, 1.0),
    );
    r
}

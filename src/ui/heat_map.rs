//! Paints the heat map (F2) that `view::heat_map` averages: each cell a coloured quad on the
//! ground, and a legend with the colour scale.

use super::layout_log::draw_text;
use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{draw_rectangle, draw_triangle, measure_text, Color};

use crate::view::heat_map::{
    density_color, speed_color, HeatMap, HeatView, AVERAGE_SECONDS, DENSITY_FULL, SPEED_FULL,
};
use crate::view::level_overlay::project;

use super::pointer::Rect;
use super::widgets::PANEL_BG;

/// Cells lie this high above the ground.
const LIFT: f32 = 0.04;

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
pub fn draw_legend(view: HeatView, screen: Vec2) -> Option<Rect> {
    let (title, top, unit) = match view {
        HeatView::Off => return None,
        HeatView::Density => ("Heat map (F2): people per m²", DENSITY_FULL, ""),
        HeatView::Speed => ("Heat map (F2): mean speed", SPEED_FULL, " m/s"),
    };
    let r = Rect {
        x: screen.x - 330.0,
        y: screen.y - 96.0,
        w: 320.0,
        h: 62.0,
    };
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

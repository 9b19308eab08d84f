//! Draws the level overlay (F8) that `view::level_overlay` lays out: lines, path arrows of a
//! fixed pixel size, handles (large in edit mode), labels thinned so none covers another or a
//! panel, and the tooltip of the element under the pointer.

use super::layout_log::draw_text;
use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{
    draw_line, draw_rectangle, draw_rectangle_lines, draw_triangle, measure_text, vec2, Color,
};

use crate::view::level_overlay::{
    project, project_segment, LevelOverlay, Rgba, HANDLE_PICK_PIXELS,
};

use super::agent_overlay::{place_labels, LabelSpot};
use super::pointer::Rect;

const FONT: u16 = 15;
const MAX_LABELS: usize = 80;
const LABEL_BG: Color = Color::new(0.0, 0.0, 0.0, 0.65);

fn color(c: Rgba) -> Color {
    Color::new(c[0], c[1], c[2], c[3])
}

/// One frame of the overlay: where the camera is and what the panels cover.
pub struct OverlayView<'a> {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// The screen in logical units.
    pub screen: Vec2,
    pub panels: &'a [Rect],
    pub edit_mode: bool,
}

/// Draws the overlay; in edit mode returns the rectangles of the movable handles, which take
/// the mouse from the camera.
pub fn draw(overlay: &LevelOverlay, v: &OverlayView) -> Vec<Rect> {
    for t in &overlay.fills {
        let [a, b, c] = t.corners.map(|p| project(&v.view_proj, p, v.screen));
        if let (Some(a), Some(b), Some(c)) = (a, b, c) {
            draw_triangle(
                vec2(a.x, a.y),
                vec2(b.x, b.y),
                vec2(c.x, c.y),
                color(t.color),
            );
        }
    }
    for l in &overlay.lines {
        if let Some((a, b)) = project_segment(&v.view_proj, l.a, l.b, v.screen) {
            draw_line(a.x, a.y, b.x, b.y, l.width, color(l.color));
        }
    }
    for arrow in &overlay.arrows {
        let (Some(at), Some(ahead)) = (
            project(&v.view_proj, arrow.at, v.screen),
            project(&v.view_proj, arrow.at + arrow.dir, v.screen),
        ) else {
            continue;
        };
        let Some(d) = (ahead - at).try_normalize() else {
            continue;
        };
        let tip = at + d * 6.0;
        let side = d.perp() * 6.0;
        for wing in [tip - d * 11.0 + side, tip - d * 11.0 - side] {
            draw_line(tip.x, tip.y, wing.x, wing.y, 3.0, color(arrow.color));
        }
    }
    let mut grips = Vec::new();
    for h in &overlay.handles {
        let Some(p) = project(&v.view_proj, h.at, v.screen) else {
            continue;
        };
        if v.edit_mode && h.movable {
            let r = HANDLE_PICK_PIXELS * 0.7;
            draw_rectangle(
                p.x - r,
                p.y - r,
                2.0 * r,
                2.0 * r,
                Color::new(1.0, 1.0, 1.0, 0.85),
            );
            draw_rectangle_lines(
                p.x - r,
                p.y - r,
                2.0 * r,
                2.0 * r,
                2.0,
                Color::new(0.0, 0.0, 0.0, 1.0),
            );
            let s = HANDLE_PICK_PIXELS;
            grips.push(Rect {
                x: p.x - s,
                y: p.y - s,
                w: 2.0 * s,
                h: 2.0 * s,
            });
        } else {
            draw_rectangle(
                p.x - 2.0,
                p.y - 2.0,
                4.0,
                4.0,
                Color::new(1.0, 1.0, 1.0, 0.9),
            );
        }
    }
    draw_labels(overlay, v);
    grips
}

fn draw_labels(overlay: &LevelOverlay, v: &OverlayView) {
    let mut spots = Vec::new();
    let mut which = Vec::new();
    for (i, l) in overlay.labels.iter().enumerate() {
        let Some(p) = project(&v.view_proj, l.at, v.screen) else {
            continue;
        };
        let w = measure_text(&l.text, None, FONT, 1.0).width;
        // Lower ranks first, then nearer.
        let distance = f32::from(l.rank) * 1.0e5 + l.at.distance(v.eye);
        spots.push(LabelSpot {
            distance,
            rect: Rect {
                x: p.x - w * 0.5 - 3.0,
                y: p.y - f32::from(FONT),
                w: w + 6.0,
                h: f32::from(FONT) + 4.0,
            },
        });
        which.push(i);
    }
    for k in place_labels(&spots, v.panels, 2.0, MAX_LABELS) {
        let (l, r) = (&overlay.labels[which[k]], spots[k].rect);
        draw_rectangle(r.x, r.y, r.w, r.h, LABEL_BG);
        draw_text(
            &l.text,
            r.x + 3.0,
            r.y + f32::from(FONT) - 1.0,
            f32::from(FONT),
            color(l.color),
        );
    }
}

/// A box of text lines beside the pointer (kept on the screen).
pub fn draw_tooltip(lines: &[String], at: Vec2, screen: Vec2) {
    let width = lines
        .iter()
        .map(|l| measure_text(l, None, 16, 1.0).width)
        .fold(0.0, f32::max)
        + 12.0;
    let height = lines.len() as f32 * 18.0 + 8.0;
    let x = (at.x + 16.0).min(screen.x - width - 4.0).max(0.0);
    let y = (at.y + 16.0).min(screen.y - height - 4.0).max(0.0);
    draw_rectangle(x, y, width, height, Color::new(0.05, 0.05, 0.1, 0.9));
    draw_rectangle_lines(x, y, width, height, 1.0, Color::new(1.0, 1.0, 1.0, 0.6));
    let _scope = super::layout_log::panel(
        "tooltip",
        Rect {
            x,
            y,
            w: width,
            h: height,
        },
    );
    for (i, l) in lines.iter().enumerate() {
        draw_text(
            l,
            x + 6.0,
            y + 18.0 + i as f32 * 18.0,
            16.0,
            Color::new(1.0, 1.0, 1.0, 1.0),
        );
    }
}

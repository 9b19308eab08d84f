//! The level overlay's (F8) sandbox layer: each show's rings and walkway with how many watch,
//! come and applauded, and each queue's line with its length and how many were served.

use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{draw_circle, measure_text, Color};

use super::build_bar::{circle, draw_world_lines};
use super::layout_log::draw_text;
use super::pointer::Rect;
use crate::crowd::Crowd;
use crate::view::level_overlay::project;

const SHOW: Color = Color::new(0.8, 0.55, 1.0, 0.9);
const QUEUE: Color = Color::new(1.0, 0.65, 0.25, 0.95);

/// The label lines of every show and queue: (world point, text).
pub fn labels(crowd: &Crowd) -> Vec<(Vec3, String)> {
    let mut out = Vec::new();
    for s in crowd
        .shows()
        .iter()
        .filter(|s| s.on || s.watching + s.coming > 0)
    {
        let c = s.spec.centre;
        out.push((
            Vec3::new(c.x, 2.6, c.y),
            format!(
                "{}: {} watching, {} coming, {} applauded",
                s.name, s.watching, s.coming, s.applauded
            ),
        ));
    }
    let level = crowd.level();
    for (k, line) in crowd.queue_lines().iter().enumerate() {
        if line.is_empty() {
            continue;
        }
        let p = level.points_of_interest[k].position;
        let waiting = crowd.queues().get(k).map_or(0, Vec::len);
        let served = crowd.served().get(k).copied().unwrap_or(0);
        out.push((
            Vec3::new(p.x, 2.2, p.y),
            format!(
                "{}: {waiting} in line, {served} served",
                level.points_of_interest[k].name
            ),
        ));
    }
    out
}

/// Draws the layer; labels that would land on a panel are left out.
pub fn draw(crowd: &Crowd, view_proj: &Mat4, screen: Vec2, panels: &[Rect]) {
    for s in crowd.shows().iter().filter(|s| s.on) {
        let c = s.spec.centre;
        draw_world_lines(view_proj, screen, &circle(c, s.outer_radius()), 1.5, SHOW);
        let (a, b) = s.walkway();
        let faint = Color::new(SHOW.r, SHOW.g, SHOW.b, 0.35);
        draw_world_lines(view_proj, screen, &circle(c, a), 1.0, faint);
        draw_world_lines(view_proj, screen, &circle(c, b), 1.0, faint);
    }
    for line in crowd.queue_lines() {
        for p in line {
            if let Some(q) = project(view_proj, Vec3::new(p.x, 0.05, p.y), screen) {
                draw_circle(q.x, q.y, 2.5, QUEUE);
            }
        }
    }
    for (at, text) in labels(crowd) {
        let Some(p) = project(view_proj, at, screen) else {
            continue;
        };
        let w = measure_text(&text, None, 16, 1.0).width;
        let r = Rect {
            x: p.x - w * 0.5,
            y: p.y - 14.0,
            w,
            h: 16.0,
        };
        let on_screen = r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= screen.x && r.y + r.h <= screen.y;
        if on_screen && !panels.iter().any(|q| q.overlaps(&r)) {
            draw_text(&text, r.x, p.y, 16.0, Color::new(1.0, 0.95, 0.85, 1.0));
        }
    }
}

//! Anyone's story on screen: the ring under the selected person (at every level of detail,
//! impostors included: it is drawn on the ground, not on their mesh) and their card.

use glam::{Mat4, Vec2};
use macroquad::prelude::{draw_rectangle, draw_rectangle_lines, measure_text, Color};

use super::build_bar::{circle, draw_world_lines};
use super::layout_log::{self, draw_text};
use super::pointer::Rect;
use crate::crowd::story::Story;

const FONT: f32 = 18.0;
const LINE: f32 = 21.0;
const RING: Color = Color::new(0.35, 0.9, 1.0, 0.95);
const CONTROLLED: Color = Color::new(0.35, 1.0, 0.45, 0.95);

/// Two rings on the ground round the selected person's feet.
pub fn draw_selection_ring(view_proj: &Mat4, screen: Vec2, at: Vec2, controlled: bool) {
    let color = if controlled { CONTROLLED } else { RING };
    draw_world_lines(view_proj, screen, &circle(at, 0.45), 3.0, color);
    draw_world_lines(view_proj, screen, &circle(at, 0.6), 1.5, color);
}

/// The card's lines for a story.
pub fn card_lines(story: &Story, followed: bool, controlled: bool) -> Vec<String> {
    let mut lines = vec![
        format!("{} ({})", story.name, story.age_band),
        format!("{}: {}", story.doing, story.why),
        format!("next: {}", story.next[0]),
        format!("then: {}", story.next[1]),
    ];
    if !story.group.is_empty() {
        lines.push(format!("with {}", story.group.join(", ")));
    }
    lines.push(format!("speed {:.2} m/s", story.speed));
    let keys = match (followed, controlled) {
        (_, true) => "T: let them go   WASD steer, Shift run",
        (true, false) => "F: stop following   T: take control",
        (false, false) => "F: follow   T: take control   click elsewhere: close",
    };
    lines.push(keys.to_string());
    lines
}

/// Draws the card at the right edge below `top`; returns its rectangle.
pub fn draw_card(lines: &[String], screen: Vec2, top: f32) -> Rect {
    let width = lines
        .iter()
        .map(|l| measure_text(l, None, FONT as u16, 1.0).width)
        .fold(0.0, f32::max)
        + 20.0;
    let w = width.min(screen.x - 20.0);
    let h = lines.len() as f32 * LINE + 12.0;
    let r = Rect {
        x: screen.x - w - 10.0,
        y: top,
        w,
        h,
    };
    draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.05, 0.07, 0.1, 0.92));
    draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.5, RING);
    let _scope = layout_log::panel("person card", r);
    for (k, l) in lines.iter().enumerate() {
        let color = if k == 0 {
            Color::new(0.6, 0.95, 1.0, 1.0)
        } else if k + 1 == lines.len() {
            Color::new(0.75, 0.78, 0.85, 1.0)
        } else {
            Color::new(1.0, 1.0, 1.0, 1.0)
        };
        draw_text(l, r.x + 10.0, r.y + 20.0 + k as f32 * LINE, FONT, color);
    }
    r
}

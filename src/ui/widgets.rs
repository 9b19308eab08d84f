//! Tiny immediate-mode widgets drawn with macroquad shapes. They land in the same 2D batch as the
//! HUD, so screenshots taken at the end of a frame show them (macroquad's own UI is drawn later).

use super::layout_log::draw_text;
use macroquad::prelude::{draw_circle, draw_rectangle, draw_rectangle_lines, measure_text, Color};

use super::pointer::Pointer;
pub use super::pointer::Rect;

const TRACK: Color = Color::new(0.35, 0.35, 0.38, 1.0);
const FILL: Color = Color::new(0.3, 0.65, 1.0, 1.0);
const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);

/// Background of every panel: dark and nearly opaque, so text reads over any scene.
pub const PANEL_BG: Color = Color::new(0.04, 0.05, 0.07, 0.93);

/// Slider value 0..1 under a pointer at `px` on a track.
pub fn slider_value_at(track: &Rect, px: f32) -> f32 {
    if track.w <= 0.0 {
        return 0.0;
    }
    ((px - track.x) / track.w).clamp(0.0, 1.0)
}

/// What a slider's drag did this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drag {
    /// Not being dragged.
    Idle,
    /// Held at this value (0..1).
    Moving(f32),
    /// Let go at this value (also a click on the track).
    Released(f32),
}

/// Follows one slider drag from the press on its track to the release, wherever the pointer
/// goes in between.
pub fn follow_drag(dragging: &mut Option<u32>, id: u32, track: &Rect, p: &Pointer) -> Drag {
    if p.left_pressed_in(track) {
        *dragging = Some(id);
    }
    if *dragging != Some(id) {
        return Drag::Idle;
    }
    let value = slider_value_at(track, p.pos.x);
    if p.down.left {
        Drag::Moving(value)
    } else {
        *dragging = None;
        Drag::Released(value)
    }
}

/// Remembers which slider is being dragged, so a drag that leaves the track keeps working, and
/// holds this frame's pointer (the part of the mouse the panels got).
#[derive(Debug, Default)]
pub struct WidgetState {
    dragging: Option<u32>,
    pointer: Pointer,
}

impl WidgetState {
    /// The pointer the widgets read until the next call.
    pub fn begin(&mut self, pointer: Pointer) {
        self.pointer = pointer;
    }

    /// A horizontal slider with a label; returns true when the value changed.
    pub fn slider(&mut self, id: u32, track: Rect, label: &str, value: &mut f32) -> bool {
        let before = *value;
        match self.drag(id, track) {
            Drag::Moving(v) | Drag::Released(v) => *value = v,
            Drag::Idle => {}
        }
        draw_slider(track, label, *value);
        (*value - before).abs() > f32::EPSILON
    }

    /// Follows a drag on `track` without drawing (see `draw_slider`).
    pub fn drag(&mut self, id: u32, track: Rect) -> Drag {
        follow_drag(&mut self.dragging, id, &track, &self.pointer)
    }

    /// A row that steps through `options` on each click (the current one shown after the
    /// label); returns true when the choice changed.
    pub fn choice(&mut self, area: Rect, label: &str, options: &[&str], index: &mut usize) -> bool {
        let clicked = self.pointer.left_pressed_in(&area);
        if clicked {
            *index = next_choice(*index, options.len());
        }
        let current = options.get(*index).copied().unwrap_or("?");
        let s = area.h.min(16.0);
        draw_rectangle_lines(area.x, area.y, s, s, 2.0, TEXT);
        draw_text(">", area.x + 4.0, area.y + s - 3.0, 16.0, FILL);
        draw_text(
            format!("{label}: {current}"),
            area.x + s + 8.0,
            area.y + s - 2.0,
            18.0,
            TEXT,
        );
        clicked && options.len() > 1
    }

    /// A checkbox with a label; returns true when it was toggled.
    pub fn checkbox(&mut self, area: Rect, label: &str, value: &mut bool) -> bool {
        let toggled = self.pointer.left_pressed_in(&area);
        if toggled {
            *value = !*value;
        }
        let s = area.h.min(16.0);
        draw_rectangle_lines(area.x, area.y, s, s, 2.0, TEXT);
        if *value {
            draw_rectangle(area.x + 4.0, area.y + 4.0, s - 8.0, s - 8.0, FILL);
        }
        draw_text(label, area.x + s + 8.0, area.y + s - 2.0, 18.0, TEXT);
        toggled
    }
}

/// A slider's track, knob and label at `value` (0..1).
pub fn draw_slider(track: Rect, label: &str, value: f32) {
    let v = value.clamp(0.0, 1.0);
    let mid = track.y + track.h * 0.5;
    draw_rectangle(track.x, mid - 2.0, track.w, 4.0, TRACK);
    draw_rectangle(track.x, mid - 2.0, track.w * v, 4.0, FILL);
    draw_circle(track.x + track.w * v, mid, 7.0, TEXT);
    draw_text(label, track.x, track.y - 2.0, 18.0, TEXT);
}

/// Splits `text` at spaces into lines no wider than `max_width` at `font_size` (a single
/// word wider than that gets a line of its own).
pub fn wrap_text(text: &str, font_size: f32, max_width: f32) -> Vec<String> {
    let fits = |t: &str| measure_text(t, None, font_size as u16, 1.0).width <= max_width;
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if fits(&candidate) || line.is_empty() && fits(word) {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if fits(word) {
            line = word.to_string();
        } else {
            // A word wider than the line (a file path): cut it where it stops fitting.
            for c in word.chars() {
                line.push(c);
                if !fits(&line) {
                    line.pop();
                    lines.push(std::mem::replace(&mut line, c.to_string()));
                }
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The option after `index`, wrapping (0 when there are none).
pub fn next_choice(index: usize, count: usize) -> usize {
    if count == 0 {
        0
    } else {
        (index + 1) % count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_step_and_wrap() {
        assert_eq!(next_choice(0, 4), 1);
        assert_eq!(next_choice(3, 4), 0);
        assert_eq!(next_choice(7, 4), 0);
        assert_eq!(next_choice(0, 0), 0);
    }

    #[test]
    fn a_drag_moves_while_held_anywhere_and_releases_once() {
        use glam::Vec2;
        let track = Rect {
            x: 22.0,
            y: 164.0,
            w: 316.0,
            h: 16.0,
        };
        let at = |x: f32, y: f32, down: bool, pressed: bool| Pointer {
            pos: Vec2::new(x, y),
            down: super::super::pointer::Buttons {
                left: down,
                ..Default::default()
            },
            pressed: super::super::pointer::Buttons {
                left: pressed,
                ..Default::default()
            },
            wheel: 0.0,
        };
        let mut dragging = None;
        // Hovering or pressing off the track does nothing.
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(200.0, 300.0, true, true)),
            Drag::Idle
        );
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(200.0, 172.0, true, false)),
            Drag::Idle
        );
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(22.0, 172.0, true, true)),
            Drag::Moving(0.0)
        );
        // Held far below the track: still this slider's drag.
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(180.0, 500.0, true, false)),
            Drag::Moving(0.5)
        );
        assert_eq!(
            follow_drag(&mut dragging, 2, &track, &at(180.0, 500.0, true, false)),
            Drag::Idle
        );
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(338.0, 500.0, false, false)),
            Drag::Released(1.0)
        );
        assert_eq!(dragging, None);
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(338.0, 172.0, false, false)),
            Drag::Idle
        );
        // A click (pressed and released within one frame) is a release where it landed.
        assert_eq!(
            follow_drag(&mut dragging, 1, &track, &at(180.0, 172.0, false, true)),
            Drag::Released(0.5)
        );
    }

    #[test]
    fn slider_maps_pointer_to_value_and_clamps() {
        let track = Rect {
            x: 100.0,
            y: 0.0,
            w: 200.0,
            h: 10.0,
        };
        assert_eq!(slider_value_at(&track, 100.0), 0.0);
        assert_eq!(slider_value_at(&track, 200.0), 0.5);
        assert_eq!(slider_value_at(&track, 500.0), 1.0);
        assert_eq!(slider_value_at(&track, -5.0), 0.0);
        assert!(track.contains(150.0, 5.0) && !track.contains(150.0, 11.0));
    }
}

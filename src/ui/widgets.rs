//! Tiny immediate-mode widgets drawn with macroquad shapes. They land in the same 2D batch as the
//! HUD, so screenshots taken at the end of a frame show them (macroquad's own UI is drawn later).

use macroquad::prelude::{
    draw_circle, draw_rectangle, draw_rectangle_lines, draw_text, is_mouse_button_down,
    is_mouse_button_pressed, mouse_position, Color, MouseButton,
};

const TRACK: Color = Color::new(0.35, 0.35, 0.38, 1.0);
const FILL: Color = Color::new(0.3, 0.65, 1.0, 1.0);
const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);

/// A screen rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    pub fn contains(&self, px: f32, py: f32) -> bool {
        px >= self.x && px <= self.x + self.w && py >= self.y && py <= self.y + self.h
    }
}

/// Slider value 0..1 under a pointer at `px` on a track.
pub fn slider_value_at(track: &Rect, px: f32) -> f32 {
    if track.w <= 0.0 {
        return 0.0;
    }
    ((px - track.x) / track.w).clamp(0.0, 1.0)
}

/// Remembers which slider is being dragged, so a drag that leaves the track keeps working.
#[derive(Debug, Default)]
pub struct WidgetState {
    dragging: Option<u32>,
}

impl WidgetState {
    /// A horizontal slider with a label; returns true when the value changed.
    pub fn slider(&mut self, id: u32, track: Rect, label: &str, value: &mut f32) -> bool {
        let (mx, my) = mouse_position();
        if is_mouse_button_pressed(MouseButton::Left) && track.contains(mx, my) {
            self.dragging = Some(id);
        }
        if !is_mouse_button_down(MouseButton::Left) {
            self.dragging = None;
        }
        let before = *value;
        if self.dragging == Some(id) {
            *value = slider_value_at(&track, mx);
        }
        let v = value.clamp(0.0, 1.0);
        let mid = track.y + track.h * 0.5;
        draw_rectangle(track.x, mid - 2.0, track.w, 4.0, TRACK);
        draw_rectangle(track.x, mid - 2.0, track.w * v, 4.0, FILL);
        draw_circle(track.x + track.w * v, mid, 7.0, TEXT);
        draw_text(label, track.x, track.y - 2.0, 18.0, TEXT);
        (*value - before).abs() > f32::EPSILON
    }

    /// A row that steps through `options` on each click (the current one shown after the
    /// label); returns true when the choice changed.
    pub fn choice(&mut self, area: Rect, label: &str, options: &[&str], index: &mut usize) -> bool {
        let (mx, my) = mouse_position();
        let clicked = is_mouse_button_pressed(MouseButton::Left) && area.contains(mx, my);
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
        let (mx, my) = mouse_position();
        let toggled = is_mouse_button_pressed(MouseButton::Left) && area.contains(mx, my);
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

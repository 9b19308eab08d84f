//! The overlays are laid out for a 1280x720 window and scaled to the real one: everything fits
//! the same at 960x540, 1280x720 or 1920x1080, and text grows on a big screen. Panels draw in
//! logical units under a 2D camera; the pointer is turned into the same units.

use glam::Vec2;
use macroquad::prelude::{screen_height, screen_width, set_camera, Camera2D};

use super::pointer::{Pointer, Rect};

/// The window the layouts are designed for.
pub const DESIGN_SIZE: Vec2 = Vec2::new(1280.0, 720.0);

/// Logical units to pixels for a window of `w` x `h` pixels: the design size fitted inside it,
/// held between half and triple size so a tiny or huge window still gets sane text.
pub fn ui_scale(w: f32, h: f32) -> f32 {
    let s = (w / DESIGN_SIZE.x).min(h / DESIGN_SIZE.y);
    if s.is_finite() {
        s.clamp(0.5, 3.0)
    } else {
        1.0
    }
}

/// This frame's scale between the overlays' logical units and the window's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UiScale {
    pub scale: f32,
    /// The window in logical units.
    pub size: Vec2,
}

impl UiScale {
    pub fn for_window(w: f32, h: f32) -> UiScale {
        let scale = ui_scale(w, h);
        UiScale {
            scale,
            size: Vec2::new(w, h) / scale,
        }
    }

    /// The pointer in logical units (buttons and wheel as they are).
    pub fn to_logical(&self, p: Pointer) -> Pointer {
        Pointer {
            pos: p.pos / self.scale,
            ..p
        }
    }

    /// A logical rectangle in pixels.
    pub fn to_pixels(&self, r: Rect) -> Rect {
        let s = self.scale;
        Rect {
            x: r.x * s,
            y: r.y * s,
            w: r.w * s,
            h: r.h * s,
        }
    }
}

/// The current window's scale.
pub fn current() -> UiScale {
    UiScale::for_window(screen_width(), screen_height())
}

/// The window in logical units, for overlays placed against its right or bottom edge.
pub fn logical_size() -> Vec2 {
    current().size
}

/// From now until the next camera change, 2D drawing is in logical units.
pub fn set_ui_camera(ui: &UiScale) {
    // Like `Camera2D::from_display_rect`, but y down as in screen space (that one is y up
    // when drawing to the screen).
    set_camera(&Camera2D {
        target: ui.size * 0.5,
        zoom: Vec2::new(2.0 / ui.size.x, 2.0 / ui.size.y),
        ..Camera2D::default()
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_design_window_is_one_to_one_and_others_fit_it() {
        assert_eq!(ui_scale(1280.0, 720.0), 1.0);
        assert_eq!(ui_scale(1920.0, 1080.0), 1.5);
        assert_eq!(ui_scale(960.0, 540.0), 0.75);
        // A wide window is limited by its height, a tall one by its width.
        assert_eq!(ui_scale(2560.0, 720.0), 1.0);
        assert_eq!(ui_scale(640.0, 1200.0), 0.5);
        assert_eq!(ui_scale(100.0, 50.0), 0.5);
        assert_eq!(ui_scale(0.0, 0.0), 0.5);
        let ui = UiScale::for_window(1920.0, 1080.0);
        assert_eq!(ui.size, DESIGN_SIZE);
        let p = Pointer {
            pos: Vec2::new(300.0, 246.0),
            ..Pointer::default()
        };
        assert_eq!(ui.to_logical(p).pos, Vec2::new(200.0, 164.0));
        let r = Rect {
            x: 10.0,
            y: 112.0,
            w: 340.0,
            h: 100.0,
        };
        assert_eq!(
            ui.to_pixels(r),
            Rect {
                x: 15.0,
                y: 168.0,
                w: 510.0,
                h: 150.0
            }
        );
    }
}

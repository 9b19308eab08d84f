//! One reading of the mouse per frame, and who gets it. A panel under the pointer takes the
//! buttons and the wheel; a drag keeps going to whoever it started on (a panel or the world)
//! until every button is up; the camera sees only what no panel took. Plain data: the window
//! shell fills `Pointer` from the mouse (or from a test's script), and the panels report the
//! rectangles they covered, which route the next frame.

use glam::Vec2;

/// A screen rectangle in pixels, y down.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
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

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// Which mouse buttons are in some state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Buttons {
    pub left: bool,
    pub right: bool,
    pub middle: bool,
}

impl Buttons {
    pub fn any(&self) -> bool {
        self.left || self.right || self.middle
    }
}

/// The mouse as one frame sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pointer {
    /// Position in pixels, y down.
    pub pos: Vec2,
    /// Held this frame.
    pub down: Buttons,
    /// Went down this frame (a press and release within one frame is pressed but not down).
    pub pressed: Buttons,
    /// Wheel notches this frame, up positive.
    pub wheel: f32,
}

impl Pointer {
    /// The same position with no buttons and no wheel: what the side that did not get the
    /// mouse this frame sees.
    pub fn idle(&self) -> Pointer {
        Pointer {
            pos: self.pos,
            ..Pointer::default()
        }
    }

    /// The left button went down inside `r` this frame.
    pub fn left_pressed_in(&self, r: &Rect) -> bool {
        self.pressed.left && r.contains(self.pos.x, self.pos.y)
    }
}

/// Who holds the mouse while a button is down.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Capture {
    /// No button is held.
    #[default]
    Free,
    /// The drag started on a panel: the camera gets nothing until it ends.
    Panel,
    /// The drag started on the world: panels get no buttons until it ends.
    World,
}

/// This frame's mouse, split between the panels and the camera.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Routed {
    pub panels: Pointer,
    pub world: Pointer,
}

/// Routes the mouse between the panels and the camera, frame by frame.
#[derive(Debug, Default)]
pub struct PointerRouter {
    capture: Capture,
    /// What the panels covered when last drawn.
    panels: Vec<Rect>,
}

impl PointerRouter {
    /// Splits this frame's mouse. A press decides the capture by where it lands; the capture
    /// lasts through the frame every button is up again, so the release reaches the same side.
    pub fn route(&mut self, p: Pointer) -> Routed {
        let over_panel = self.over_panel(p.pos);
        if self.capture == Capture::Free && (p.pressed.any() || p.down.any()) {
            self.capture = if over_panel {
                Capture::Panel
            } else {
                Capture::World
            };
        }
        let to_panels = match self.capture {
            Capture::Panel => true,
            Capture::World => false,
            Capture::Free => over_panel,
        };
        if !p.down.any() {
            self.capture = Capture::Free;
        }
        if to_panels {
            Routed {
                panels: p,
                world: p.idle(),
            }
        } else {
            Routed {
                panels: p.idle(),
                world: p,
            }
        }
    }

    /// The rectangles the panels covered this frame (they route the next one).
    pub fn set_panels(&mut self, rects: Vec<Rect>) {
        self.panels = rects;
    }

    pub fn over_panel(&self, pos: Vec2) -> bool {
        self.panels.iter().any(|r| r.contains(pos.x, pos.y))
    }

    pub fn capture(&self) -> Capture {
        self.capture
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PANEL: Rect = Rect {
        x: 10.0,
        y: 100.0,
        w: 340.0,
        h: 400.0,
    };
    const LEFT: Buttons = Buttons {
        left: true,
        right: false,
        middle: false,
    };

    fn at(x: f32, y: f32) -> Pointer {
        Pointer {
            pos: Vec2::new(x, y),
            ..Pointer::default()
        }
    }

    fn press(x: f32, y: f32) -> Pointer {
        Pointer {
            down: LEFT,
            pressed: LEFT,
            ..at(x, y)
        }
    }

    fn hold(x: f32, y: f32) -> Pointer {
        Pointer {
            down: LEFT,
            ..at(x, y)
        }
    }

    fn router() -> PointerRouter {
        let mut r = PointerRouter::default();
        r.set_panels(vec![PANEL]);
        r
    }

    #[test]
    fn a_drag_started_on_a_panel_never_reaches_the_camera_even_off_the_panel() {
        let mut r = router();
        let first = r.route(press(200.0, 164.0));
        assert_eq!(first.world, at(200.0, 164.0), "the camera sees no press");
        assert!(first.panels.pressed.left);
        assert_eq!(r.capture(), Capture::Panel);
        // Dragged far off the panel: still the panel's.
        let off = r.route(hold(900.0, 600.0));
        assert_eq!(off.world, at(900.0, 600.0));
        assert!(off.panels.down.left);
        // The release frame goes to the panel too, then the mouse is free again.
        let up = r.route(at(900.0, 600.0));
        assert_eq!(up.world, at(900.0, 600.0));
        assert_eq!(r.capture(), Capture::Free);
        let later = r.route(hold(900.0, 600.0));
        assert!(
            later.world.down.left,
            "a new drag on the world is the camera's"
        );
    }

    #[test]
    fn a_drag_started_on_the_world_keeps_orbiting_over_a_panel() {
        let mut r = router();
        assert!(r.route(press(700.0, 300.0)).world.pressed.left);
        let over = r.route(hold(200.0, 164.0));
        assert!(over.world.down.left, "the camera keeps its drag");
        assert_eq!(over.panels, at(200.0, 164.0), "the panel sees no button");
        assert_eq!(r.capture(), Capture::World);
    }

    #[test]
    fn the_wheel_and_double_clicks_over_a_panel_stay_with_the_panel() {
        let mut r = router();
        let wheel = Pointer {
            wheel: 1.0,
            ..at(100.0, 200.0)
        };
        let routed = r.route(wheel);
        assert_eq!(routed.world.wheel, 0.0);
        assert_eq!(routed.panels.wheel, 1.0);
        // A click pressed and released within one frame: the panel's, twice.
        let click = Pointer {
            pressed: LEFT,
            ..at(30.0, 190.0)
        };
        for _ in 0..2 {
            let c = r.route(click);
            assert!(c.panels.pressed.left && !c.world.pressed.left);
            assert_eq!(r.capture(), Capture::Free);
        }
        // Off the panel the wheel zooms the camera.
        assert_eq!(
            r.route(Pointer {
                wheel: -2.0,
                ..at(800.0, 400.0)
            })
            .world
            .wheel,
            -2.0
        );
    }

    #[test]
    fn with_no_panels_everything_is_the_cameras() {
        let mut r = PointerRouter::default();
        let p = press(200.0, 164.0);
        assert_eq!(r.route(p).world, p);
        assert!(!r.over_panel(Vec2::new(200.0, 164.0)));
    }

    #[test]
    fn rectangles_overlap_only_when_they_share_area() {
        let a = Rect {
            x: 0.0,
            y: 0.0,
            w: 10.0,
            h: 10.0,
        };
        let b = Rect { x: 5.0, ..a };
        let c = Rect { x: 10.0, ..a };
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c), "touching edges do not overlap");
        assert!(a.contains(10.0, 10.0) && !a.contains(10.1, 5.0));
    }
}

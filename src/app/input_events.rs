//! The window's key presses and clicks as events, in the order they came, each with the
//! modifiers held when it happened. Polling the keys once a frame loses a quick chord at slow
//! frame rates: a 50 ms Ctrl+S inside a two-second frame ends with Ctrl already up, so the
//! frame would see a plain S. macroquad replays miniquad's events to a subscriber
//! (`repeat_all_miniquad_input`); `EventLog` is that subscriber.

use glam::Vec2;
use macroquad::miniquad::{EventHandler, KeyCode, KeyMods, MouseButton};

/// Modifiers held during an event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mods {
    pub ctrl: bool,
    pub shift: bool,
}

/// The digit keys 1 to 8 (the build toolbar's kinds, in its order).
pub const DIGIT_KEYS: [KeyCode; 8] = [
    KeyCode::Key1,
    KeyCode::Key2,
    KeyCode::Key3,
    KeyCode::Key4,
    KeyCode::Key5,
    KeyCode::Key6,
    KeyCode::Key7,
    KeyCode::Key8,
];

/// A key that went down (auto-repeats left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyPress {
    pub code: KeyCode,
    pub mods: Mods,
}

/// A mouse button that went down, where (logical pixels) and with which modifiers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Click {
    pub button: MouseButton,
    pub pos: Vec2,
    pub mods: Mods,
}

/// One frame's presses, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameEvents {
    pub keys: Vec<KeyPress>,
    pub clicks: Vec<Click>,
}

/// Collects events between two frames. Mouse events carry no modifiers, so the log follows
/// the Ctrl and Shift keys itself; key events carry the window system's own state (held
/// before the key), which corrects the log's when a release was missed (focus lost).
#[derive(Debug, Clone)]
pub struct EventLog {
    /// Left and right Ctrl, left and right Shift held.
    held: [bool; 4],
    /// Physical pixels per logical pixel (the window's DPI scale).
    dpi_scale: f32,
    frame: FrameEvents,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog::new(1.0)
    }
}

const MODIFIER_KEYS: [KeyCode; 4] = [
    KeyCode::LeftControl,
    KeyCode::RightControl,
    KeyCode::LeftShift,
    KeyCode::RightShift,
];

impl EventLog {
    pub fn new(dpi_scale: f32) -> EventLog {
        EventLog {
            held: [false; 4],
            dpi_scale: if dpi_scale > 0.0 { dpi_scale } else { 1.0 },
            frame: FrameEvents::default(),
        }
    }

    /// The presses since the last call.
    pub fn take(&mut self) -> FrameEvents {
        std::mem::take(&mut self.frame)
    }

    fn mods(&self) -> Mods {
        Mods {
            ctrl: self.held[0] || self.held[1],
            shift: self.held[2] || self.held[3],
        }
    }

    /// Follows the modifier keys; any other key's event says what the system held.
    fn track(&mut self, key: KeyCode, down: bool, system: KeyMods) {
        if let Some(i) = MODIFIER_KEYS.iter().position(|&k| k == key) {
            self.held[i] = down;
        } else {
            if !system.ctrl {
                self.held[..2].fill(false);
            }
            if !system.shift {
                self.held[2..].fill(false);
            }
        }
    }
}

impl EventHandler for EventLog {
    fn update(&mut self) {}

    fn draw(&mut self) {}

    fn key_down_event(&mut self, keycode: KeyCode, keymods: KeyMods, repeat: bool) {
        self.track(keycode, true, keymods);
        if repeat {
            return;
        }
        let held = self.mods();
        self.frame.keys.push(KeyPress {
            code: keycode,
            mods: Mods {
                ctrl: held.ctrl || keymods.ctrl,
                shift: held.shift || keymods.shift,
            },
        });
    }

    fn key_up_event(&mut self, keycode: KeyCode, keymods: KeyMods) {
        self.track(keycode, false, keymods);
    }

    fn mouse_button_down_event(&mut self, button: MouseButton, x: f32, y: f32) {
        self.frame.clicks.push(Click {
            button,
            pos: Vec2::new(x, y) / self.dpi_scale,
            mods: self.mods(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(ctrl: bool, shift: bool) -> KeyMods {
        KeyMods {
            ctrl,
            shift,
            ..KeyMods::default()
        }
    }

    #[test]
    fn a_quick_chord_inside_one_frame_keeps_its_ctrl() {
        // X11 order for "keydown ctrl, key s, keyup ctrl", all before the frame reads them:
        // the state of each event is what was held before it.
        let mut log = EventLog::default();
        log.key_down_event(KeyCode::LeftControl, system(false, false), false);
        log.key_down_event(KeyCode::S, system(true, false), false);
        log.key_up_event(KeyCode::S, system(true, false));
        log.key_up_event(KeyCode::LeftControl, system(true, false));
        let frame = log.take();
        let ctrl = Mods {
            ctrl: true,
            shift: false,
        };
        assert_eq!(frame.keys.len(), 2, "{:?}", frame.keys);
        assert_eq!(frame.keys[0].code, KeyCode::LeftControl);
        assert_eq!(
            frame.keys[1],
            KeyPress {
                code: KeyCode::S,
                mods: ctrl
            }
        );
        assert_eq!(log.take(), FrameEvents::default(), "taken once");
        // Ctrl is up again: the next S is plain.
        log.key_down_event(KeyCode::S, system(false, false), false);
        assert_eq!(log.take().keys[0].mods, Mods::default());
    }

    #[test]
    fn clicks_take_the_modifiers_held_then_and_their_own_position() {
        let mut log = EventLog::new(2.0);
        log.mouse_button_down_event(MouseButton::Left, 100.0, 40.0);
        log.key_down_event(KeyCode::RightControl, system(false, false), false);
        log.mouse_button_down_event(MouseButton::Left, 300.0, 200.0);
        log.key_up_event(KeyCode::RightControl, system(true, false));
        log.mouse_button_down_event(MouseButton::Right, 10.0, 10.0);
        let clicks = log.take().clicks;
        assert_eq!(clicks.len(), 3);
        assert_eq!(
            (clicks[0].pos, clicks[0].mods.ctrl),
            (Vec2::new(50.0, 20.0), false)
        );
        assert_eq!(
            (clicks[1].pos, clicks[1].mods.ctrl),
            (Vec2::new(150.0, 100.0), true)
        );
        assert_eq!(
            (clicks[2].button, clicks[2].mods.ctrl),
            (MouseButton::Right, false)
        );
    }

    #[test]
    fn repeats_are_not_presses_and_a_missed_release_is_corrected() {
        let mut log = EventLog::default();
        log.key_down_event(KeyCode::LeftShift, system(false, false), false);
        log.key_down_event(KeyCode::Z, system(false, true), false);
        log.key_down_event(KeyCode::Z, system(false, true), true);
        let keys = log.take().keys;
        assert_eq!(keys.len(), 2, "{keys:?}");
        assert!(keys[1].mods.shift);
        // Shift's release went to another window: the next key's own state says it is up.
        log.key_down_event(KeyCode::R, system(false, false), false);
        log.mouse_button_down_event(MouseButton::Left, 1.0, 1.0);
        let frame = log.take();
        assert!(!frame.keys[0].mods.shift);
        assert!(!frame.clicks[0].mods.shift);
    }
}

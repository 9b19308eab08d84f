//! Reads the window's keyboard and mouse into plain `FrameInput` for the game. Presses (keys,
//! clicks) come from the window's events in order, each with the modifiers it carried
//! (`input_events`), so none is lost however long a frame is; what is held (WASD, a drag) and
//! where the mouse is are read once a frame (`pointer`), split between the panels and the
//! camera by the session's `PointerRouter`, and the camera's share becomes camera input here
//! (`read`).

use glam::{Vec2, Vec3};
use macroquad::input::utils::{register_input_subscriber, repeat_all_miniquad_input};
use macroquad::prelude::{
    is_key_down, is_mouse_button_down, mouse_position, mouse_wheel, KeyCode, MouseButton,
};

use crate::game::{Action, FrameInput};
use crate::level::CameraMode;
use crate::level_edit::{EditCommand, ROTATE_STEP_DEG};
use crate::settings::{Intent, Panel};
use crate::ui::pointer::{Buttons, Pointer};
use crate::view::camera::CameraInput;

use super::input_events::{Click, EventLog, FrameEvents, KeyPress, Mods};
use super::input_script::InputScript;

#[derive(Default)]
pub struct InputReader {
    /// Replaces the real mouse (`--input-script`).
    pub script: Option<InputScript>,
    last_mouse: Option<Vec2>,
    /// When and where the last left click was, to spot a double click.
    last_click: Option<(crate::clock::Instant, Vec2)>,
    /// The window's event queue (None: no window, as in unit tests).
    subscriber: Option<usize>,
    log: EventLog,
    /// This frame's presses: the window's events, then the script's.
    presses: FrameEvents,
}

/// Two clicks closer than this in time and pixels make a double click.
const DOUBLE_CLICK_SECONDS: f32 = 0.35;
const DOUBLE_CLICK_PIXELS: f32 = 6.0;

const INTENT_KEYS: [(KeyCode, Intent); 29] = [
    (KeyCode::B, Intent::TogglePanel(Panel::Build)),
    (KeyCode::T, Intent::Game(Action::ToggleControl)),
    (KeyCode::Space, Intent::Game(Action::TogglePause)),
    (KeyCode::P, Intent::Game(Action::TogglePause)),
    (KeyCode::N, Intent::Game(Action::SingleStep)),
    (KeyCode::LeftBracket, Intent::Game(Action::SlowDown)),
    (KeyCode::RightBracket, Intent::Game(Action::SpeedUp)),
    (KeyCode::Backspace, Intent::Game(Action::ResetTimeScale)),
    (KeyCode::C, Intent::Game(Action::ToggleCamera)),
    (KeyCode::Home, Intent::Game(Action::ResetCamera)),
    (KeyCode::F1, Intent::TogglePanel(Panel::Help)),
    (KeyCode::H, Intent::TogglePanel(Panel::Help)),
    (KeyCode::Tab, Intent::TogglePanel(Panel::Perf)),
    (KeyCode::X, Intent::Game(Action::Disturb)),
    (KeyCode::K, Intent::Game(Action::ToggleAlarm)),
    (KeyCode::O, Intent::Game(Action::ToggleRecording(None))),
    (KeyCode::M, Intent::TogglePanel(Panel::Measurements)),
    (KeyCode::G, Intent::Game(Action::GlideToNextPoi)),
    (KeyCode::F3, Intent::TogglePanel(Panel::AgentOverlay)),
    (KeyCode::F4, Intent::TogglePanel(Panel::CurveEditor)),
    (KeyCode::F7, Intent::ToggleCullView),
    (KeyCode::F, Intent::Game(Action::ToggleFollow)),
    (KeyCode::V, Intent::Game(Action::HeroWave)),
    (
        KeyCode::L,
        Intent::Hero(crate::hero::commands::HeroCommand::CycleLookTarget),
    ),
    (KeyCode::F5, Intent::TogglePanel(Panel::HeroAnimation)),
    (KeyCode::F6, Intent::TogglePanel(Panel::HeroExpressions)),
    (KeyCode::F8, Intent::TogglePanel(Panel::LevelOverlay)),
    (KeyCode::F9, Intent::TogglePanel(Panel::EditMode)),
    (KeyCode::F2, Intent::CycleHeatMap),
];

fn axis(neg: KeyCode, pos: KeyCode) -> f32 {
    (is_key_down(pos) as i32 - is_key_down(neg) as i32) as f32
}

fn buttons(state: impl Fn(MouseButton) -> bool) -> Buttons {
    Buttons {
        left: state(MouseButton::Left),
        right: state(MouseButton::Right),
        middle: state(MouseButton::Middle),
    }
}

/// The intent of a key press: plain keys only (a Ctrl chord is an edit command, not also a
/// toggle).
fn intent_of(key: &KeyPress) -> Option<Intent> {
    if key.mods.ctrl {
        return None;
    }
    INTENT_KEYS
        .iter()
        .find(|(code, _)| *code == key.code)
        .map(|(_, intent)| intent.clone())
}

/// Edit mode's keys: Ctrl+S save, Ctrl+Z undo, Ctrl+Y (or Ctrl+Shift+Z) redo, R / Shift+R
/// turn the selected box.
fn edit_command(key: &KeyPress) -> Option<EditCommand> {
    let Mods { ctrl, shift } = key.mods;
    match key.code {
        KeyCode::S if ctrl => Some(EditCommand::Save),
        KeyCode::Z if ctrl && shift => Some(EditCommand::Redo),
        KeyCode::Z if ctrl => Some(EditCommand::Undo),
        KeyCode::Y if ctrl => Some(EditCommand::Redo),
        KeyCode::R if !ctrl => Some(EditCommand::Rotate(if shift {
            -ROTATE_STEP_DEG
        } else {
            ROTATE_STEP_DEG
        })),
        _ => None,
    }
}

fn to_ndc(at: Vec2, screen: (f32, f32)) -> Vec2 {
    Vec2::new(at.x / screen.0 * 2.0 - 1.0, 1.0 - at.y / screen.1 * 2.0)
}

impl InputReader {
    /// A reader of the open window's events (call once the window exists).
    pub fn for_window() -> InputReader {
        InputReader {
            subscriber: Some(register_input_subscriber()),
            log: EventLog::new(macroquad::miniquad::window::dpi_scale()),
            ..InputReader::default()
        }
    }

    fn script_keys(&self) -> impl Iterator<Item = &super::input_script::ScriptKey> {
        self.script.iter().flat_map(|s| s.keys())
    }

    /// A Ctrl+click on the world this frame (the last one), in normalised device coordinates:
    /// the point the hero should look at. `mouse` is the camera's share of the mouse: a click
    /// a panel took is not one.
    pub fn look_click(&self, mouse: &Pointer, screen: (f32, f32)) -> Option<Vec2> {
        if !mouse.pressed.left {
            return None;
        }
        self.presses
            .clicks
            .iter()
            .rev()
            .find(|c| c.button == MouseButton::Left && c.mods.ctrl)
            .map(|c| to_ndc(c.pos, screen))
    }

    /// Ctrl held now (the window's or the script's): held movement keys stay still under it.
    fn ctrl(&self) -> bool {
        is_key_down(KeyCode::LeftControl)
            || is_key_down(KeyCode::RightControl)
            || self.script_keys().any(|k| k.ctrl)
    }

    /// This frame's key presses, in order.
    pub fn key_presses(&self) -> &[super::input_events::KeyPress] {
        &self.presses.keys
    }

    /// Edit mode's commands this frame, in the order their keys came (see `edit_command`).
    pub fn edit_commands(&self) -> Vec<EditCommand> {
        self.presses.keys.iter().filter_map(edit_command).collect()
    }

    /// The mouse on `frame` (counted from 1): the window's, or the script's when one drives
    /// the game. Call first each frame: it takes the frame's presses from the event queue.
    pub fn pointer(&mut self, frame: u64) -> Pointer {
        self.presses = match self.subscriber {
            Some(id) => {
                repeat_all_miniquad_input(&mut self.log, id);
                self.log.take()
            }
            None => FrameEvents::default(),
        };
        if let Some(script) = &mut self.script {
            let p = script.pointer(frame);
            let held = Mods {
                ctrl: script.keys().iter().any(|k| k.ctrl),
                shift: script.keys().iter().any(|k| k.shift),
            };
            // The script is the mouse: the window's clicks are not.
            self.presses.clicks.clear();
            if p.pressed.left {
                self.presses.clicks.push(Click {
                    button: MouseButton::Left,
                    pos: p.pos,
                    mods: held,
                });
            }
            self.presses
                .keys
                .extend(script.keys().iter().map(|k| KeyPress {
                    code: k.code,
                    mods: Mods {
                        ctrl: k.ctrl,
                        shift: k.shift,
                    },
                }));
            return p;
        }
        let (mx, my) = mouse_position();
        let mut pressed = Buttons::default();
        for c in &self.presses.clicks {
            match c.button {
                MouseButton::Left => pressed.left = true,
                MouseButton::Right => pressed.right = true,
                MouseButton::Middle => pressed.middle = true,
                MouseButton::Unknown => {}
            }
        }
        Pointer {
            pos: Vec2::new(mx, my),
            down: buttons(is_mouse_button_down),
            pressed,
            // Wheel units differ between platforms; only the direction and notch count matter.
            wheel: mouse_wheel().1.clamp(-3.0, 3.0),
        }
    }

    /// A double click among this frame's plain left clicks (two in one frame count when close
    /// together: their times are not known, only that they came within the frame).
    fn double_click(&mut self, screen: (f32, f32)) -> Option<Vec2> {
        let now = crate::clock::Instant::now();
        let mut found = None;
        for c in &self.presses.clicks {
            if c.button != MouseButton::Left || c.mods.ctrl {
                continue;
            }
            if let Some((t, last)) = self.last_click {
                if now.duration_since(t).as_secs_f32() < DOUBLE_CLICK_SECONDS
                    && last.distance(c.pos) < DOUBLE_CLICK_PIXELS
                {
                    found = Some(to_ndc(c.pos, screen));
                }
            }
            self.last_click = Some((now, c.pos));
        }
        found
    }

    /// This frame's camera input from `mouse` (the part of the mouse no panel took) and the
    /// keys, and the keys pressed as intents. `screen` is the window in pixels.
    pub fn read(
        &mut self,
        mode: CameraMode,
        mouse: &Pointer,
        screen: (f32, f32),
    ) -> (FrameInput, Vec<Intent>) {
        let delta = self.last_mouse.map_or(Vec2::ZERO, |last| mouse.pos - last);
        self.last_mouse = Some(mouse.pos);
        let Buttons {
            left,
            right,
            middle,
        } = mouse.down;
        let wheel = mouse.wheel;
        // Ctrl+click picks the hero's look point: that click must not also orbit the camera.
        let left = left && !self.ctrl();
        let (look, pan) = match mode {
            CameraMode::Fly => (if left || right { delta } else { Vec2::ZERO }, Vec2::ZERO),
            _ => (
                if left { delta } else { Vec2::ZERO },
                if right || middle { delta } else { Vec2::ZERO },
            ),
        };
        // Ctrl+S saves the level: it must not also move the camera back.
        let held = if self.ctrl() { 0.0 } else { 1.0 };
        let movement = held
            * Vec3::new(
                axis(KeyCode::A, KeyCode::D) + axis(KeyCode::Left, KeyCode::Right),
                axis(KeyCode::Q, KeyCode::E),
                axis(KeyCode::S, KeyCode::W) + axis(KeyCode::Down, KeyCode::Up),
            )
            .clamp(Vec3::splat(-1.0), Vec3::splat(1.0));
        let intents = self.presses.keys.iter().filter_map(intent_of).collect();
        let double_click = if mouse.pressed.left {
            self.double_click(screen)
        } else {
            None
        };
        let input = FrameInput {
            double_click,
            camera: CameraInput {
                look_delta: look,
                pan_delta: pan,
                wheel,
                movement,
                fast: is_key_down(KeyCode::LeftShift) || is_key_down(KeyCode::RightShift),
            },
            actions: Vec::new(),
        };
        (input, intents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, ctrl: bool, shift: bool) -> KeyPress {
        KeyPress {
            code,
            mods: Mods { ctrl, shift },
        }
    }

    #[test]
    fn chords_become_edit_commands_in_the_order_they_came() {
        let keys = [
            press(KeyCode::Z, true, false),
            press(KeyCode::S, true, false),
            press(KeyCode::S, false, false),
            press(KeyCode::Z, true, true),
            press(KeyCode::Y, true, false),
            press(KeyCode::R, false, true),
            press(KeyCode::R, true, false),
        ];
        let commands: Vec<_> = keys.iter().filter_map(edit_command).collect();
        assert_eq!(
            commands,
            [
                EditCommand::Undo,
                EditCommand::Save,
                EditCommand::Redo,
                EditCommand::Redo,
                EditCommand::Rotate(-ROTATE_STEP_DEG),
            ]
        );
    }

    #[test]
    fn every_plain_press_is_an_intent_and_a_chord_is_none() {
        let keys = [
            press(KeyCode::F1, false, false),
            press(KeyCode::F1, false, false),
            press(KeyCode::G, true, false),
            press(KeyCode::X, false, true),
        ];
        let intents: Vec<_> = keys.iter().filter_map(intent_of).collect();
        assert_eq!(
            intents,
            [
                Intent::TogglePanel(Panel::Help),
                Intent::TogglePanel(Panel::Help),
                Intent::Game(Action::Disturb),
            ]
        );
    }
}

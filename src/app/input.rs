//! Reads the window's keyboard and mouse into plain `FrameInput` for the game. The mouse is
//! read once a frame (`pointer`), split between the panels and the camera by the session's
//! `PointerRouter`, and the camera's share becomes camera input here (`read`).

use glam::{Vec2, Vec3};
use macroquad::prelude::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, mouse_position,
    mouse_wheel, KeyCode, MouseButton,
};

use crate::game::{Action, FrameInput};
use crate::level::CameraMode;
use crate::level_edit::{EditCommand, ROTATE_STEP_DEG};
use crate::settings::{Intent, Panel};
use crate::ui::pointer::{Buttons, Pointer};
use crate::view::camera::CameraInput;

use super::input_script::InputScript;

#[derive(Default)]
pub struct InputReader {
    /// Replaces the real mouse (`--input-script`).
    pub script: Option<InputScript>,
    last_mouse: Option<Vec2>,
    /// When and where the last left click was, to spot a double click.
    last_click: Option<(crate::clock::Instant, Vec2)>,
}

/// Two clicks closer than this in time and pixels make a double click.
const DOUBLE_CLICK_SECONDS: f32 = 0.35;
const DOUBLE_CLICK_PIXELS: f32 = 6.0;

const INTENT_KEYS: [(KeyCode, Intent); 24] = [
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

impl InputReader {
    /// `key` went down this frame (on the keyboard or in the script).
    fn pressed(&self, key: KeyCode) -> bool {
        is_key_pressed(key) || self.script_keys().any(|k| k.code == key)
    }

    fn script_keys(&self) -> impl Iterator<Item = &super::input_script::ScriptKey> {
        self.script.iter().flat_map(|s| s.keys())
    }

    /// A Ctrl+click on the world this frame, in normalised device coordinates: the point the
    /// hero should look at.
    pub fn look_click(&self, mouse: &Pointer, screen: (f32, f32)) -> Option<Vec2> {
        (mouse.pressed.left && self.ctrl()).then(|| {
            Vec2::new(
                mouse.pos.x / screen.0 * 2.0 - 1.0,
                1.0 - mouse.pos.y / screen.1 * 2.0,
            )
        })
    }

    fn ctrl(&self) -> bool {
        is_key_down(KeyCode::LeftControl)
            || is_key_down(KeyCode::RightControl)
            || self.script_keys().any(|k| k.ctrl)
    }

    fn shift(&self) -> bool {
        is_key_down(KeyCode::LeftShift)
            || is_key_down(KeyCode::RightShift)
            || self.script_keys().any(|k| k.shift)
    }

    /// Edit mode's keys this frame: Ctrl+S save, Ctrl+Z undo, Ctrl+Y (or Ctrl+Shift+Z) redo,
    /// R / Shift+R turn the selected box.
    pub fn edit_commands(&self) -> Vec<EditCommand> {
        let (ctrl, shift) = (self.ctrl(), self.shift());
        let mut out = Vec::new();
        if ctrl && self.pressed(KeyCode::S) {
            out.push(EditCommand::Save);
        }
        if ctrl && self.pressed(KeyCode::Z) {
            out.push(if shift {
                EditCommand::Redo
            } else {
                EditCommand::Undo
            });
        }
        if ctrl && self.pressed(KeyCode::Y) {
            out.push(EditCommand::Redo);
        }
        if !ctrl && self.pressed(KeyCode::R) {
            let step = if shift {
                -ROTATE_STEP_DEG
            } else {
                ROTATE_STEP_DEG
            };
            out.push(EditCommand::Rotate(step));
        }
        out
    }

    /// The mouse on `frame` (counted from 1): the window's, or the script's when one drives
    /// the game.
    pub fn pointer(&mut self, frame: u64) -> Pointer {
        if let Some(script) = &mut self.script {
            return script.pointer(frame);
        }
        let (mx, my) = mouse_position();
        Pointer {
            pos: Vec2::new(mx, my),
            down: buttons(is_mouse_button_down),
            pressed: buttons(is_mouse_button_pressed),
            // Wheel units differ between platforms; only the direction and notch count matter.
            wheel: mouse_wheel().1.clamp(-3.0, 3.0),
        }
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
        let intents = INTENT_KEYS
            .iter()
            .filter(|(key, _)| self.pressed(*key))
            .map(|(_, intent)| intent.clone())
            .collect();
        let mut double_click = None;
        if mouse.pressed.left {
            let now = crate::clock::Instant::now();
            let at = mouse.pos;
            if let Some((t, last)) = self.last_click {
                if now.duration_since(t).as_secs_f32() < DOUBLE_CLICK_SECONDS
                    && last.distance(at) < DOUBLE_CLICK_PIXELS
                {
                    let ndc = Vec2::new(at.x / screen.0 * 2.0 - 1.0, 1.0 - at.y / screen.1 * 2.0);
                    double_click = Some(ndc);
                }
            }
            self.last_click = Some((now, at));
        }
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

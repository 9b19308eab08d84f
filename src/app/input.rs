//! Reads the window's keyboard and mouse into plain `FrameInput` for the game.

use glam::{Vec2, Vec3};
use macroquad::prelude::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, mouse_position,
    mouse_wheel, screen_height, screen_width, KeyCode, MouseButton,
};

use crate::game::{Action, FrameInput};
use crate::level::CameraMode;
use crate::view::camera::CameraInput;

#[derive(Default)]
pub struct InputReader {
    last_mouse: Option<Vec2>,
    /// When and where the last left click was, to spot a double click.
    last_click: Option<(std::time::Instant, Vec2)>,
}

/// Two clicks closer than this in time and pixels make a double click.
const DOUBLE_CLICK_SECONDS: f32 = 0.35;
const DOUBLE_CLICK_PIXELS: f32 = 6.0;

const ACTION_KEYS: [(KeyCode, Action); 20] = [
    (KeyCode::Space, Action::TogglePause),
    (KeyCode::P, Action::TogglePause),
    (KeyCode::N, Action::SingleStep),
    (KeyCode::LeftBracket, Action::SlowDown),
    (KeyCode::RightBracket, Action::SpeedUp),
    (KeyCode::Backspace, Action::ResetTimeScale),
    (KeyCode::C, Action::ToggleCamera),
    (KeyCode::Home, Action::ResetCamera),
    (KeyCode::F1, Action::ToggleHelp),
    (KeyCode::H, Action::ToggleHelp),
    (KeyCode::Tab, Action::TogglePerfPanel),
    (KeyCode::X, Action::Disturb),
    (KeyCode::G, Action::GlideToNextPoi),
    (KeyCode::F3, Action::ToggleAgentOverlay),
    (KeyCode::F4, Action::ToggleCurveEditor),
    (KeyCode::F7, Action::ToggleCullView),
    (KeyCode::F, Action::ToggleFollow),
    (KeyCode::V, Action::HeroWave),
    (KeyCode::F5, Action::ToggleHeroAnimationPanel),
    (KeyCode::F6, Action::ToggleHeroExpressionPanel),
];

fn axis(neg: KeyCode, pos: KeyCode) -> f32 {
    (is_key_down(pos) as i32 - is_key_down(neg) as i32) as f32
}

impl InputReader {
    pub fn read(&mut self, mode: CameraMode) -> FrameInput {
        let (mx, my) = mouse_position();
        let mouse = Vec2::new(mx, my);
        let delta = self.last_mouse.map_or(Vec2::ZERO, |last| mouse - last);
        self.last_mouse = Some(mouse);
        let left = is_mouse_button_down(MouseButton::Left);
        let right = is_mouse_button_down(MouseButton::Right);
        let middle = is_mouse_button_down(MouseButton::Middle);
        // Wheel units differ between platforms; only the direction and notch count matter here.
        let wheel = mouse_wheel().1.clamp(-3.0, 3.0);
        let (look, pan) = match mode {
            CameraMode::Fly => (if left || right { delta } else { Vec2::ZERO }, Vec2::ZERO),
            _ => (
                if left { delta } else { Vec2::ZERO },
                if right || middle { delta } else { Vec2::ZERO },
            ),
        };
        let movement = Vec3::new(
            axis(KeyCode::A, KeyCode::D) + axis(KeyCode::Left, KeyCode::Right),
            axis(KeyCode::Q, KeyCode::E),
            axis(KeyCode::S, KeyCode::W) + axis(KeyCode::Down, KeyCode::Up),
        )
        .clamp(Vec3::splat(-1.0), Vec3::splat(1.0));
        let actions = ACTION_KEYS
            .iter()
            .filter(|(key, _)| is_key_pressed(*key))
            .map(|(_, action)| *action)
            .collect();
        let mut double_click = None;
        if is_mouse_button_pressed(MouseButton::Left) {
            let now = std::time::Instant::now();
            if let Some((t, at)) = self.last_click {
                if now.duration_since(t).as_secs_f32() < DOUBLE_CLICK_SECONDS
                    && at.distance(mouse) < DOUBLE_CLICK_PIXELS
                {
                    let ndc = Vec2::new(
                        mouse.x / screen_width() * 2.0 - 1.0,
                        1.0 - mouse.y / screen_height() * 2.0,
                    );
                    double_click = Some(ndc);
                }
            }
            self.last_click = Some((now, mouse));
        }
        FrameInput {
            double_click,
            camera: CameraInput {
                look_delta: look,
                pan_delta: pan,
                wheel,
                movement,
                fast: is_key_down(KeyCode::LeftShift) || is_key_down(KeyCode::RightShift),
            },
            actions,
        }
    }
}

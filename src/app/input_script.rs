//! A scripted mouse for tests and demos (`--input-script`): the game reads it instead of the
//! real mouse, frame by frame, so a test can drag a slider and check where the camera ended up.
//!
//! One command per `;` or line, frames counted from 1:
//! `N move X Y` puts the pointer at (X, Y) from frame N; `N-M move X1 Y1 X2 Y2` glides it there
//! in even steps over frames N to M; `N down B` / `N up B` press and release button B (`left`,
//! `right`, `middle`); `N wheel D` turns the wheel D notches (up positive); `N key K` presses
//! key K on frame N, with `ctrl+` and `shift+` before it held (`5 key ctrl+s`, `2 key f9`;
//! keys: a to z, f1 to f12).

use glam::Vec2;
use macroquad::prelude::KeyCode;

use crate::ui::pointer::{Buttons, Pointer};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Command {
    Move { to: Vec2, from: Option<Vec2> },
    Down(Button),
    Up(Button),
    Wheel(f32),
    Key(ScriptKey),
}

/// A key the script presses, with the modifiers it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptKey {
    pub code: KeyCode,
    pub ctrl: bool,
    pub shift: bool,
}

const LETTERS: [KeyCode; 26] = [
    KeyCode::A,
    KeyCode::B,
    KeyCode::C,
    KeyCode::D,
    KeyCode::E,
    KeyCode::F,
    KeyCode::G,
    KeyCode::H,
    KeyCode::I,
    KeyCode::J,
    KeyCode::K,
    KeyCode::L,
    KeyCode::M,
    KeyCode::N,
    KeyCode::O,
    KeyCode::P,
    KeyCode::Q,
    KeyCode::R,
    KeyCode::S,
    KeyCode::T,
    KeyCode::U,
    KeyCode::V,
    KeyCode::W,
    KeyCode::X,
    KeyCode::Y,
    KeyCode::Z,
];
const FUNCTION_KEYS: [KeyCode; 12] = [
    KeyCode::F1,
    KeyCode::F2,
    KeyCode::F3,
    KeyCode::F4,
    KeyCode::F5,
    KeyCode::F6,
    KeyCode::F7,
    KeyCode::F8,
    KeyCode::F9,
    KeyCode::F10,
    KeyCode::F11,
    KeyCode::F12,
];

fn key(word: Option<&str>, command: &str) -> Result<ScriptKey, String> {
    let bad = || {
        format!("\"{command}\": the key must be a to z, 1 to 8, delete or f1 to f12, after ctrl+ or shift+")
    };
    let mut rest = word.ok_or_else(bad)?;
    let (mut ctrl, mut shift) = (false, false);
    loop {
        if let Some(r) = rest.strip_prefix("ctrl+") {
            (ctrl, rest) = (true, r);
        } else if let Some(r) = rest.strip_prefix("shift+") {
            (shift, rest) = (true, r);
        } else {
            break;
        }
    }
    let letter = match rest.as_bytes() {
        [c @ b'a'..=b'z'] => Some(LETTERS[usize::from(c - b'a')]),
        [c @ b'1'..=b'8'] => Some(super::input_events::DIGIT_KEYS[usize::from(c - b'1')]),
        b"delete" => Some(KeyCode::Delete),
        _ => None,
    };
    let function = rest
        .strip_prefix('f')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| (1..=12).contains(n))
        .map(|n| FUNCTION_KEYS[n - 1]);
    let code = letter.or(function).ok_or_else(bad)?;
    Ok(ScriptKey { code, ctrl, shift })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Button {
    Left,
    Right,
    Middle,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Step {
    first: u64,
    last: u64,
    command: Command,
}

/// A parsed script and the mouse it has produced so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputScript {
    steps: Vec<Step>,
    pos: Vec2,
    down: Buttons,
    /// Keys pressed on the frame last read.
    keys: Vec<ScriptKey>,
}

fn number(word: Option<&str>, what: &str, command: &str) -> Result<f32, String> {
    let word = word.ok_or_else(|| format!("\"{command}\": {what} is missing"))?;
    word.parse::<f32>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("\"{command}\": {what} must be a number, not \"{word}\""))
}

fn frames(word: &str, command: &str) -> Result<(u64, u64), String> {
    let bad = || format!("\"{command}\": the frame must be N or N-M with 1 <= N <= M");
    let (a, b) = word.split_once('-').unwrap_or((word, word));
    let first: u64 = a.parse().map_err(|_| bad())?;
    let last: u64 = b.parse().map_err(|_| bad())?;
    if first == 0 || last < first {
        return Err(bad());
    }
    Ok((first, last))
}

fn button(word: Option<&str>, command: &str) -> Result<Button, String> {
    match word {
        Some("left") => Ok(Button::Left),
        Some("right") => Ok(Button::Right),
        Some("middle") => Ok(Button::Middle),
        _ => Err(format!(
            "\"{command}\": the button must be left, right or middle"
        )),
    }
}

fn parse_step(text: &str) -> Result<Step, String> {
    let mut words = text.split_whitespace();
    let (first, last) = frames(words.next().unwrap_or_default(), text)?;
    let verb = words.next().unwrap_or_default();
    let mut xy = |what: &str| -> Result<Vec2, String> {
        Ok(Vec2::new(
            number(words.next(), &format!("{what} x"), text)?,
            number(words.next(), &format!("{what} y"), text)?,
        ))
    };
    let command = match verb {
        "move" if first == last => Command::Move {
            to: xy("the position")?,
            from: None,
        },
        "move" => {
            let from = xy("the start")?;
            Command::Move {
                to: xy("the end")?,
                from: Some(from),
            }
        }
        "down" => Command::Down(button(words.next(), text)?),
        "up" => Command::Up(button(words.next(), text)?),
        "wheel" => Command::Wheel(number(words.next(), "the notches", text)?),
        "key" => Command::Key(key(words.next(), text)?),
        _ => {
            return Err(format!(
                "\"{text}\": the command must be move, down, up, wheel or key"
            ))
        }
    };
    if words.next().is_some() {
        return Err(format!("\"{text}\": too many values"));
    }
    if first != last && !matches!(command, Command::Move { .. }) {
        return Err(format!("\"{text}\": only move takes a range of frames"));
    }
    Ok(Step {
        first,
        last,
        command,
    })
}

fn set(buttons: &mut Buttons, b: Button, on: bool) {
    match b {
        Button::Left => buttons.left = on,
        Button::Right => buttons.right = on,
        Button::Middle => buttons.middle = on,
    }
}

impl InputScript {
    /// Parses a script; the error names the command and what is allowed.
    pub fn parse(text: &str) -> Result<InputScript, String> {
        let steps = text
            .split([';', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(parse_step)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("--input-script: {e}"))?;
        Ok(InputScript {
            steps,
            ..InputScript::default()
        })
    }

    /// The keys pressed on the frame the last `pointer` call read.
    pub fn keys(&self) -> &[ScriptKey] {
        &self.keys
    }

    /// The mouse on `frame` (call once per frame, in order).
    pub fn pointer(&mut self, frame: u64) -> Pointer {
        let mut pressed = Buttons::default();
        let mut wheel = 0.0;
        self.keys.clear();
        for s in self
            .steps
            .iter()
            .filter(|s| (s.first..=s.last).contains(&frame))
        {
            match s.command {
                Command::Move { to, from: None } => self.pos = to,
                Command::Move {
                    to,
                    from: Some(from),
                } => {
                    let t = (frame - s.first) as f32 / (s.last - s.first) as f32;
                    self.pos = from.lerp(to, t);
                }
                Command::Down(b) => {
                    set(&mut self.down, b, true);
                    set(&mut pressed, b, true);
                }
                Command::Up(b) => set(&mut self.down, b, false),
                Command::Wheel(d) => wheel += d,
                Command::Key(k) => self.keys.push(k),
            }
        }
        Pointer {
            pos: self.pos,
            down: self.down,
            pressed,
            wheel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_presses_glides_and_releases() {
        let mut s =
            InputScript::parse("2 move 200 164; 3 down left\n4-6 move 200 164 300 164; 7 up left")
                .expect("valid");
        assert_eq!(s.pointer(1), Pointer::default());
        assert_eq!(s.pointer(2).pos, Vec2::new(200.0, 164.0));
        let p3 = s.pointer(3);
        assert!(p3.pressed.left && p3.down.left);
        let p4 = s.pointer(4);
        assert!(!p4.pressed.left && p4.down.left);
        assert_eq!(p4.pos, Vec2::new(200.0, 164.0));
        assert_eq!(s.pointer(5).pos, Vec2::new(250.0, 164.0));
        assert_eq!(s.pointer(6).pos, Vec2::new(300.0, 164.0));
        let p7 = s.pointer(7);
        assert!(!p7.down.left && !p7.pressed.left);
        assert_eq!(p7.pos, Vec2::new(300.0, 164.0));
    }

    #[test]
    fn keys_are_pressed_for_one_frame_with_their_modifiers() {
        let mut s =
            InputScript::parse("2 key ctrl+s; 2 key f9; 3 key shift+ctrl+z").expect("valid");
        let _ = s.pointer(1);
        assert!(s.keys().is_empty());
        let _ = s.pointer(2);
        let plain = |code| ScriptKey {
            code,
            ctrl: false,
            shift: false,
        };
        assert_eq!(
            s.keys(),
            [
                ScriptKey {
                    ctrl: true,
                    ..plain(KeyCode::S)
                },
                plain(KeyCode::F9)
            ]
        );
        let _ = s.pointer(3);
        assert_eq!(
            s.keys(),
            [ScriptKey {
                code: KeyCode::Z,
                ctrl: true,
                shift: true
            }]
        );
        let _ = s.pointer(4);
        assert!(s.keys().is_empty());
    }

    #[test]
    fn the_wheel_turns_for_one_frame() {
        let mut s = InputScript::parse("2 wheel -1.5; 2 down right").expect("valid");
        let p = s.pointer(2);
        assert_eq!(p.wheel, -1.5);
        assert!(p.down.right && p.pressed.right);
        let q = s.pointer(3);
        assert_eq!(q.wheel, 0.0);
        assert!(q.down.right && !q.pressed.right);
    }

    #[test]
    fn mistakes_are_one_line_naming_the_command() {
        for (text, says) in [
            ("0 move 1 2", "\"0 move 1 2\": the frame must be N or N-M"),
            ("5-3 move 1 2 3 4", "the frame must be N or N-M"),
            ("1 jump", "the command must be move, down, up, wheel or key"),
            (
                "1 key ctrl+",
                "the key must be a to z, 1 to 8, delete or f1 to f12",
            ),
            (
                "1 key f13",
                "the key must be a to z, 1 to 8, delete or f1 to f12",
            ),
            ("1 move 1", "the position y is missing"),
            ("1 move 1 x", "the position y must be a number, not \"x\""),
            ("1 down thumb", "the button must be left, right or middle"),
            ("1-3 down left", "only move takes a range of frames"),
            ("1 wheel 1 2", "too many values"),
            ("1 wheel inf", "must be a number"),
        ] {
            let e = InputScript::parse(text).expect_err(text);
            assert!(e.starts_with("--input-script: ") && e.contains(says), "{e}");
            assert!(!e.contains('\n'));
        }
    }
}

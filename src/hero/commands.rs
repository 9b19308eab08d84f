//! What the hero's panels (or a script) can ask of the hero: clip playback and expressions.
//! Panels return these as intents; `Hero::command` is the one place that carries them out.

use super::{ClipControl, Hero, CROSS_FADE};

#[derive(Debug, Clone, PartialEq)]
pub enum HeroCommand {
    /// The clip follows the hero's speed (idle, walk, run) again.
    ClipsBySpeed,
    /// The panel picks the clip.
    ManualClips,
    /// Cross-fade into clip `i` at normal rate and play it.
    PlayClip(usize),
    Resume,
    Pause,
    Stop,
    SetLooping(bool),
    SetSpeed(f32),
    /// Jump to this time of the current clip (takes manual control).
    Seek(f32),
    SetAutoBlink(bool),
    /// An emotion preset (or "neutral") fully on, the others off.
    Preset(String),
    ResetExpressions,
    SetExpression(String, f32),
    /// A raw morph target group's weight, by index.
    SetMorphTarget(usize, f32),
    /// Spring bones (hair, clothes) on or off.
    SetSprings(bool),
    /// What she looks at (a clicked point is remembered for the panel's "point" button).
    SetLookTarget(super::look_at::LookTarget),
    /// The next look target: auto, camera, waving person, the last clicked point, off.
    CycleLookTarget,
}

impl Hero {
    pub fn command(&mut self, command: HeroCommand) {
        match command {
            HeroCommand::ClipsBySpeed => {
                self.control = ClipControl::Auto;
                self.mixer.resume();
            }
            HeroCommand::ManualClips => self.control = ClipControl::Manual,
            HeroCommand::PlayClip(i) => {
                self.control = ClipControl::Manual;
                self.mixer.set_rate(1.0);
                self.mixer.play(i, CROSS_FADE);
                self.mixer.resume();
            }
            HeroCommand::Resume => self.mixer.resume(),
            HeroCommand::Pause => self.mixer.pause(),
            HeroCommand::Stop => {
                self.control = ClipControl::Manual;
                self.mixer.stop();
            }
            HeroCommand::SetLooping(on) => self.mixer.set_looping(on),
            HeroCommand::SetSpeed(v) => self.mixer.set_speed(v),
            HeroCommand::Seek(t) => {
                self.control = ClipControl::Manual;
                self.mixer.seek(t);
            }
            HeroCommand::SetAutoBlink(on) => self.expressions.auto_blink = on,
            HeroCommand::Preset(name) => self.expressions.preset(&name),
            HeroCommand::ResetExpressions => self.expressions.reset_all(),
            HeroCommand::SetExpression(name, v) => {
                self.expressions.set_expression(&name, v);
            }
            HeroCommand::SetMorphTarget(i, v) => self.expressions.set_target(i, v),
            HeroCommand::SetSprings(on) => self.springs.enabled = on,
            HeroCommand::SetLookTarget(t) => self.look.set_target(t),
            HeroCommand::CycleLookTarget => self.look.cycle_target(),
        }
    }
}

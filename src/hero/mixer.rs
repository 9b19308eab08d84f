//! Plays the hero's clips into its `ScenePose` with a cross-fade between the old and the new
//! clip. Like `AnimationPlayer`, it samples only when something changed, so a paused hero (or a
//! paused game: zero time) leaves the pose version alone and the palettes skip their upload.
//!
//! Morph-weight channels of clips are ignored here: the expression system owns the face.

use glam::Vec3;

use crate::anim::sample::sample_node_channels;
use crate::anim::{AnimError, ScenePose};
use crate::asset::{AnimationClipAsset, Transform};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Layer {
    clip: usize,
    time: f32,
    /// Clip seconds per second (the controller's stride match), times the user speed.
    rate: f32,
}

#[derive(Debug, Clone)]
pub struct ClipMixer {
    current: Option<Layer>,
    previous: Option<Layer>,
    fade_elapsed: f32,
    fade_duration: f32,
    playing: bool,
    looping: bool,
    /// The user's multiplier on top of the controller's rate.
    speed: f32,
    /// Something changed that time alone would not show (clip, seek, stop).
    pending: bool,
    a: Vec<Transform>,
    b: Vec<Transform>,
}

impl Default for ClipMixer {
    fn default() -> Self {
        ClipMixer {
            current: None,
            previous: None,
            fade_elapsed: 0.0,
            fade_duration: 0.0,
            playing: true,
            looping: true,
            speed: 1.0,
            pending: true,
            a: Vec::new(),
            b: Vec::new(),
        }
    }
}

fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

impl ClipMixer {
    pub fn clip(&self) -> Option<usize> {
        self.current.map(|l| l.clip)
    }
    pub fn time(&self) -> f32 {
        self.current.map_or(0.0, |l| l.time)
    }
    pub fn rate(&self) -> f32 {
        self.current.map_or(0.0, |l| l.rate)
    }
    pub fn is_playing(&self) -> bool {
        self.playing
    }
    pub fn is_looping(&self) -> bool {
        self.looping
    }
    pub fn speed(&self) -> f32 {
        self.speed
    }
    /// 0..1 while a cross-fade runs, None otherwise.
    pub fn fade_progress(&self) -> Option<f32> {
        self.previous
            .map(|_| (self.fade_elapsed / self.fade_duration.max(1e-6)).min(1.0))
    }

    /// Switches to `clip`, fading from the current one over `fade` seconds (0: cut). The same
    /// clip again keeps playing where it is.
    pub fn play(&mut self, clip: usize, fade: f32) {
        if self.current.map(|l| l.clip) == Some(clip) {
            return;
        }
        let rate = self.current.map_or(1.0, |l| l.rate);
        self.previous = if fade > 0.0 { self.current } else { None };
        self.current = Some(Layer {
            clip,
            time: 0.0,
            rate,
        });
        self.fade_elapsed = 0.0;
        self.fade_duration = fade.max(0.0);
        self.pending = true;
    }

    /// The controller's clip rate (stride matching); not the user speed.
    pub fn set_rate(&mut self, rate: f32) {
        if let Some(l) = &mut self.current {
            if rate.is_finite() && rate >= 0.0 {
                l.rate = rate;
            }
        }
    }

    pub fn set_speed(&mut self, speed: f32) {
        if speed.is_finite() && speed >= 0.0 {
            self.speed = speed;
        }
    }
    pub fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }
    pub fn pause(&mut self) {
        self.playing = false;
    }
    pub fn resume(&mut self) {
        self.playing = true;
        self.pending = true;
    }
    /// Back to the start of the clip, paused; the next update samples it.
    pub fn stop(&mut self) {
        self.playing = false;
        self.previous = None;
        if let Some(l) = &mut self.current {
            l.time = 0.0;
        }
        self.pending = true;
    }
    /// Moves the current clip to `t` (clamped at the next update); works while paused.
    pub fn seek(&mut self, t: f32) {
        if let (Some(l), true) = (&mut self.current, t.is_finite()) {
            l.time = t.max(0.0);
            self.pending = true;
        }
    }

    /// Advances by `dt` (when playing) and writes the blended clip into `pose`. Returns whether
    /// a new pose was made.
    pub fn update(
        &mut self,
        dt: f32,
        clips: &[AnimationClipAsset],
        bind: &[Transform],
        pose: &mut ScenePose,
    ) -> Result<bool, AnimError> {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let advancing = self.playing && dt > 0.0 && self.speed > 0.0;
        if !advancing && !self.pending && !pose.is_dirty() {
            return Ok(false);
        }
        let looping = self.looping;
        let step = if advancing { dt * self.speed } else { 0.0 };
        let mut finished = false;
        for (layer, is_current) in [(&mut self.current, true), (&mut self.previous, false)] {
            let Some(l) = layer else { continue };
            let clip = clips.get(l.clip).ok_or(AnimError::ClipOutOfRange(l.clip))?;
            l.time += step * l.rate;
            let d = clip.duration;
            if l.time > d {
                if (looping || !is_current) && d > 0.0 {
                    l.time %= d;
                } else {
                    l.time = d;
                    finished |= is_current;
                }
            }
        }
        if finished {
            self.playing = false;
        }
        if self.previous.is_some() {
            self.fade_elapsed += step;
            if self.fade_elapsed >= self.fade_duration {
                self.previous = None;
            }
        }
        self.a.clear();
        self.a.extend_from_slice(bind);
        if let Some(l) = self.current {
            sample_node_channels(&clips[l.clip], l.time, &mut self.a);
        }
        if let Some(l) = self.previous {
            self.b.clear();
            self.b.extend_from_slice(bind);
            sample_node_channels(&clips[l.clip], l.time, &mut self.b);
            let w = smoothstep(self.fade_elapsed / self.fade_duration.max(1e-6));
            for (a, b) in self.a.iter_mut().zip(&self.b) {
                *a = blend(b, a, w);
            }
        }
        for (i, t) in self.a.iter().enumerate() {
            if let Some(local) = pose.local_mut(i) {
                *local = *t;
            }
        }
        pose.update_world_matrices()?;
        self.pending = false;
        Ok(true)
    }
}

fn blend(from: &Transform, to: &Transform, w: f32) -> Transform {
    let mut r_to = to.rotation;
    if from.rotation.dot(r_to) < 0.0 {
        r_to = -r_to;
    }
    Transform {
        translation: from.translation.lerp(to.translation, w),
        rotation: from.rotation.slerp(r_to, w).normalize(),
        scale: Vec3::lerp(from.scale, to.scale, w),
    }
}

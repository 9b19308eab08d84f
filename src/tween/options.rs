//! Settings of the animator and of its channels.

use std::time::Duration;

use super::color::ColorSpace;
use super::easing::Easing;
use super::spring::SETTLE_EPS;

/// How a channel follows a slider drag once rapid writes are detected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SliderFollow {
    /// Jump to each new target on the next tick.
    Immediate,
    /// Chase the target with a critically damped spring of this stiffness (no overshoot,
    /// velocity continuous). Softer than `Immediate` when the input is noisy.
    Critical { stiffness: f32 },
}

/// Scheduler settings; `Default` gives the values the design recommends.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimatorOptions {
    /// Largest step one tick may take, in seconds, so a stalled or hidden window does not
    /// finish every animation in one jump.
    pub max_dt: f32,
    /// Time per tick for queued jobs.
    pub budget: Duration,
    /// Writes to one channel within this many seconds…
    pub slider_window: f32,
    /// …at least this many of them, mean the user is dragging a control.
    pub slider_writes: usize,
    pub slider_follow: SliderFollow,
    /// A retarget's duration is scaled by remaining/original distance but never below this
    /// fraction of the requested duration (tiny corrections still look like motion) nor above
    /// the full duration.
    pub min_retarget_fraction: f32,
    /// Convergence bound of spring tracks, in channel units.
    pub spring_eps: f32,
    /// Used by [`Animator::tween`](crate::tween::Animator::tween) when the channel has no
    /// transition of its own.
    pub default_transition: Transition,
}

/// A duration and curve, declared once per channel or globally so call sites can just say
/// "go there" (priority: call > channel > global, as in the design).
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// Seconds (ignored by springs).
    pub duration: f32,
    pub easing: Easing,
}

impl Transition {
    pub fn new(duration: f32, easing: Easing) -> Self {
        Transition { duration, easing }
    }
}

impl Default for Transition {
    fn default() -> Self {
        Transition::new(0.4, Easing::default())
    }
}

impl Default for AnimatorOptions {
    fn default() -> Self {
        AnimatorOptions {
            max_dt: 0.1,
            budget: Duration::from_micros(2500),
            slider_window: 0.1,
            slider_writes: 3,
            slider_follow: SliderFollow::Immediate,
            min_retarget_fraction: 0.15,
            spring_eps: SETTLE_EPS as f32,
            default_transition: Transition::default(),
        }
    }
}

/// How a channel is set up.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelSpec {
    pub initial: Vec<f32>,
    /// Treat components 0..3 as a linear RGB colour mixed in this space.
    pub color: Option<ColorSpace>,
    /// Whether rapid writes collapse into direct following (see [`AnimatorOptions`]).
    pub slider_collapse: bool,
    /// This channel's own default for [`Animator::tween`](crate::tween::Animator::tween).
    pub transition: Option<Transition>,
}

impl ChannelSpec {
    pub fn new(initial: &[f32]) -> Self {
        ChannelSpec {
            initial: initial.to_vec(),
            color: None,
            slider_collapse: true,
            transition: None,
        }
    }

    /// Sets the channel's default transition.
    pub fn with_transition(mut self, duration: f32, easing: Easing) -> Self {
        self.transition = Some(Transition::new(duration, easing));
        self
    }

    /// A linear-RGB(A) colour channel.
    pub fn color(initial: &[f32], space: ColorSpace) -> Self {
        ChannelSpec {
            color: Some(space),
            ..Self::new(initial)
        }
    }
}

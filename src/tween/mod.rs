//! Tweens: easing curves, the [`Animator`] scheduler and arc-length paths.
//!
//! Pure data: nothing here knows about the window, GL or what a channel drives. The game
//! registers channels, sets targets and reads current values after [`Animator::tick`].
//! See `docs/TWEEN.md` for recipes.

pub mod animator;
pub mod bezier;
pub mod budget;
pub mod color;
pub mod easing;
pub mod events;
pub mod options;
pub mod parse;
pub mod path;
pub mod spring;
pub mod timeline;
mod track;

pub use animator::{
    AnimError, AnimEvent, Animator, AnimatorOptions, ChannelSpec, SliderFollow, TimelineId,
    Transition,
};
pub use bezier::CubicBezier;
pub use budget::{BudgetReport, Clock, Job, JobQueue, JobStatus, ManualClock, SystemClock};
pub use color::{linear_to_srgb, srgb_to_linear, ColorSpace};
pub use easing::{CustomFn, Direction, Easing, Family, StepPosition};
pub use parse::{EasingParseError, ParseErrorKind};
pub use path::{ArcLengthPath, PathError, PathPoint};
pub use spring::{Spring, SpringError, SETTLE_EPS};
pub use timeline::{stagger_offsets, StaggerFrom, Step, Timeline};

#[cfg(test)]
mod tests;

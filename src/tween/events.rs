//! What the animator reports back: events, timeline handles and errors.

use std::fmt;

/// Something the game may want to react to, collected until
/// [`Animator::drain_events`](crate::tween::Animator::drain_events).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnimEvent<K> {
    /// The channel reached its target (also after `finish`).
    Finished(K),
    /// The channel was stopped where it was by `cancel`.
    Cancelled(K),
    TimelineFinished(TimelineId),
}

/// Handle of a playing timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimelineId(u64);

impl TimelineId {
    pub(crate) fn new(id: u64) -> Self {
        TimelineId(id)
    }
}

/// Errors from writing to channels. They name the key as `Debug` prints it.
#[derive(Clone, Debug, PartialEq)]
pub enum AnimError {
    UnknownChannel(String),
    DuplicateChannel(String),
    WrongLength {
        key: String,
        expected: usize,
        found: usize,
    },
    NotFinite(String),
}

impl fmt::Display for AnimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnimError::UnknownChannel(k) => write!(f, "no animation channel {k} is registered"),
            AnimError::DuplicateChannel(k) => {
                write!(f, "animation channel {k} is already registered")
            }
            AnimError::WrongLength {
                key,
                expected,
                found,
            } => write!(
                f,
                "animation channel {key} has {expected} components, the value has {found}"
            ),
            AnimError::NotFinite(k) => {
                write!(f, "value for animation channel {k} is NaN or infinite")
            }
        }
    }
}

impl std::error::Error for AnimError {}

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum AnimError {
    /// The runtime object was built for another `SceneAsset`.
    WrongScene,
    NodeOutOfRange(usize),
    ClipOutOfRange(usize),
    /// The node lies on a parent cycle.
    Cycle(usize),
    /// World matrices are dirty: the pose is half updated.
    PoseDirty,
    InvalidSpeed(f32),
    InvalidTime(f32),
    /// A clip's channel does not fit this scene (node or morph target count).
    ClipMismatch(String),
    /// A size above one of the stated limits (see docs/ARCHITECTURE.md, "Resource limits"),
    /// refused before allocating: the message says what and which limit.
    Limit(String),
}

impl fmt::Display for AnimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnimError::WrongScene => write!(f, "runtime state belongs to another scene"),
            AnimError::NodeOutOfRange(n) => write!(f, "node {n} out of range"),
            AnimError::ClipOutOfRange(n) => write!(f, "clip {n} out of range"),
            AnimError::Cycle(n) => write!(f, "node {n} lies on a parent cycle"),
            AnimError::PoseDirty => write!(f, "pose world matrices are not up to date"),
            AnimError::InvalidSpeed(s) => write!(f, "playback speed {s} must be finite and >= 0"),
            AnimError::InvalidTime(t) => write!(f, "time {t} must be finite"),
            AnimError::ClipMismatch(m) => write!(f, "clip does not fit scene: {m}"),
            AnimError::Limit(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for AnimError {}

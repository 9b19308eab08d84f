//! The kinds of clip a crowd character plays (idle, walk, run, ...): shared vocabulary of the
//! level file (a model's `clips` map is keyed by [`ClipKind::key`]), the crowd simulation
//! (which clip each person plays) and the crowd's render assets (which rows of the animation
//! texture hold it). The order of [`ClipKind::ALL`] is the order clips are baked in.

/// The kinds of clip a crowd character plays; the renderer maps them to the model's clips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ClipKind {
    #[default]
    Idle,
    Walk,
    Run,
    Wave,
    Sit,
    Talk,
    LookAround,
}

impl ClipKind {
    pub const ALL: [ClipKind; 7] = [
        ClipKind::Idle,
        ClipKind::Walk,
        ClipKind::Run,
        ClipKind::Wave,
        ClipKind::Sit,
        ClipKind::Talk,
        ClipKind::LookAround,
    ];

    /// The name a level uses for an activity (`clips: {"walk": "Walking"}`).
    pub fn key(self) -> &'static str {
        match self {
            ClipKind::Idle => "idle",
            ClipKind::Walk => "walk",
            ClipKind::Run => "run",
            ClipKind::Wave => "wave",
            ClipKind::Sit => "sit",
            ClipKind::Talk => "talk",
            ClipKind::LookAround => "look_around",
        }
    }
}

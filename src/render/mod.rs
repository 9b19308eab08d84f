//! GPU resources and passes. The only module that talks to miniquad.
pub mod crowd;
pub mod crowd_pass;
pub mod frame;
pub mod gl_raw;
pub mod gpu_timer;
pub mod hero;
pub mod impostor;
pub mod impostor_bake;
pub mod layer;
pub mod msaa;
mod renderer;
pub mod shader_source;
pub mod tone;

pub use layer::{MainPassInfo, WorldLayer};
pub use renderer::{FrameParams, MarkerPath, RenderStats, Renderer};

pub use tone::display_color;

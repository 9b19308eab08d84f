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
mod renderer;

pub use layer::{MainPassInfo, WorldLayer};
pub use renderer::{FrameParams, MarkerPath, RenderStats, Renderer};

/// The colour a linear value ends up as on screen: the shaders' tonemap, then gamma.
/// The sky clear colour goes through it too so the fogged horizon meets the sky without a seam.
pub fn display_color(linear: glam::Vec3) -> glam::Vec3 {
    let x = linear.max(glam::Vec3::ZERO) * 0.8;
    let mapped = (x * (x * 2.51 + 0.03)) / (x * (x * 2.43 + 0.59) + 0.14);
    mapped
        .clamp(glam::Vec3::ZERO, glam::Vec3::ONE)
        .powf(1.0 / 2.2)
}

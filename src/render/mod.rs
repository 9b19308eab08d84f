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

use macroquad::miniquad::{BlendFactor, BlendState, BlendValue, Equation};

/// Blending for the world's see-through layers (blob shadows, the hero's blended materials):
/// colour over what is there by the source's alpha, while the frame's own alpha stays as it is.
/// With one blend for both, a blob of alpha 0.5 left the ground at alpha 0.75, and a
/// screenshot (PNG keeps alpha) or a compositor showed the background through it: a whitish
/// disc under everyone, plainest on shaded ground.
pub(crate) fn over_keeping_alpha() -> (Option<BlendState>, Option<BlendState>) {
    (
        Some(BlendState::new(
            Equation::Add,
            BlendFactor::Value(BlendValue::SourceAlpha),
            BlendFactor::OneMinusValue(BlendValue::SourceAlpha),
        )),
        Some(BlendState::new(
            Equation::Add,
            BlendFactor::Zero,
            BlendFactor::One,
        )),
    )
}

//! Runtime animation state: poses, players, morph weights, skinning palettes.
//!
//! Data flow per frame: `AnimationPlayer::update` → `ScenePose` (world matrices, version) →
//! `SkinningPaletteSet::update` (skips when the pose version is unchanged); `MorphStateSet`
//! → `MorphedPrimitive::update` (skips when the morph version is unchanged).

pub mod anim_texture;
pub mod clip_sampler;
pub mod error;
pub mod morph;
pub mod player;
pub mod pose;
pub mod sample;
pub mod skinning;
pub mod version;

pub use clip_sampler::ClipSampler;
pub use error::AnimError;
pub use morph::{apply_morph, MorphState, MorphStateSet, MorphedPrimitive};
pub use player::AnimationPlayer;
pub use pose::ScenePose;
pub use skinning::{
    blend_joints, skin_normals, skin_positions, skinned_bounds, SkinningPalette, SkinningPaletteSet,
};

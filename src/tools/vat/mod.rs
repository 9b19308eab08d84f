//! Vertex animation textures (VAT): skeletal clips baked, with the project's own CPU skinning,
//! into images that hold every vertex's position (and optionally normal) per frame, so a crowd
//! can be drawn with one texture fetch per vertex instead of a joint palette per person.
//!
//! Pipeline: [`bake`] (sample + skin every frame) → [`reduce`] (drop frames that linear
//! interpolation reproduces) → [`encode`] (f32 / f16 / 8-bit pairs over an AABB remap) →
//! [`files`] (EXR or PNG + a JSON manifest, written atomically). [`files::load_vat`] reads it
//! all back as floats for the runtime and tests. docs/VAT.md has the format and shader recipe.

pub mod bake;
pub mod cli;
pub mod encode;
pub mod files;
pub mod reduce;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use bake::{bake, BakeOptions, BakedClip, ClipSelection, VatBake, VatLayout, VatPrimitive};
pub use encode::{VatAabb, VatFormat};
pub use files::{load_vat, write_vat, LoadedVat, SourceInfo, VatFiles, VatManifest};

/// What the position texels hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum VatSpace {
    /// Skinned positions in the mesh node's space: exactly what `anim::skin_positions` gives
    /// (the reference files' `frames_local`); draw with the mesh node's world matrix.
    Model,
    /// Skinned position minus the primitive's bind-pose `POSITION`: add it to the mesh's own
    /// vertex position in the shader. More precision per bit when the offsets span less than
    /// the positions.
    Delta,
}

impl VatSpace {
    pub fn name(self) -> &'static str {
        match self {
            VatSpace::Model => "model",
            VatSpace::Delta => "delta",
        }
    }
}

/// A bake or load failure: which file, and what is wrong in words that say what to change.
#[derive(Debug, Clone, PartialEq)]
pub struct VatError {
    pub file: String,
    pub message: String,
}

impl VatError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for VatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for VatError {}

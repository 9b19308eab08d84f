//! Immutable imported model data (glTF 2.0, GLB, VRM 0.x / 1.0).
//!
//! Everything here is plain data produced once by [`import::load_file`] / [`import::load_slice`]
//! and never mutated afterwards; runtime state (time, poses, weights) lives in `crate::anim`, so
//! one `SceneAsset` can drive any number of characters.

pub mod error;
pub mod gltf_read;
pub mod import;
pub mod limits;
pub mod material;
pub mod sources;
pub mod types;
pub mod vrm;
pub mod vrm_constraint;
pub mod vrm_expression_binds;
pub mod vrm_first_person;
pub mod vrm_look_at;
pub mod vrm_spring;
pub mod vrm_spring_extended;
pub mod vrma;

pub use error::ImportError;
pub use import::{load_file, load_slice};
pub use types::*;
pub use vrm_look_at::{LookAtAsset, LookAtType, RangeMap};

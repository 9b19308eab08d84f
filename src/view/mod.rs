//! What the camera sees, as plain data: cameras, frustum culling, packed instances.
pub mod camera;
pub mod camera_clearance;
pub mod crowd_pack;
pub mod cull_view;
pub mod heat_map;
// The frustum is shared with the crowd's simulation LOD, which may not depend on `view`.
pub use crate::frustum;
pub mod level_overlay;
pub mod light;
pub mod lod;
pub mod lod_fade;
pub mod look_pack;
pub mod markers;
pub mod pick;
pub mod render_world;

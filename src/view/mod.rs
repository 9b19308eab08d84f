//! What the camera sees, as plain data: cameras, frustum culling, packed instances.
pub mod camera;
pub mod frustum;
pub mod light;
pub mod markers;

//! Static scenery as plain mesh data: procedural shapes and the furniture built from a level.
pub mod furniture;
pub mod mesh;

pub use mesh::ColoredMesh;

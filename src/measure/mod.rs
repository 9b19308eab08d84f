//! Pedestrian measurements, the way the field takes them (PedPy; Adrian et al. 2024): density
//! in an area (classic: people over area; Voronoi: each person's cell shared out over the area),
//! mean speed, the flow over a line in both directions, and the density, speed and flow at a line
//! from the Voronoi cells crossing it (`line`). Plain data, no window: the game's
//! panel, `throng record` and `throng validate` read the same meters.

pub mod line;
pub mod meters;
pub mod moves;
pub mod voronoi;

pub use meters::{AreaReading, AreaRun, LineReading, LineRun, Meters};
pub use moves::StepMoves;

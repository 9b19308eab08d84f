//! The contract between the simulation and the renderer: everything one frame draws, as plain
//! data. `crate::extract` builds it from the game each frame; the passes read nothing else.
//! Load-time data (the crowd's meshes and animation texture) reaches the renderer once per
//! change as a versioned `CrowdSource`; what it uploaded when is the renderer's own
//! bookkeeping, never written back here.

use glam::{Mat4, Vec3};

use crate::anim::morph::MorphedPrimitive;
use crate::anim::skinning::SkinningPaletteSet;
use crate::asset::Aabb;
use crate::crowd_assets::CrowdAssets;
use crate::level::Level;
use crate::view::crowd_pack::{CrowdFrame, NaiveFrame};

/// A camera as the passes use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewCamera {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// Vertical field of view in radians (screen-space outline widths scale with it).
    pub fov_y: f32,
    /// Framebuffer size in pixels.
    pub screen_size: (f32, f32),
}

/// How crowd markers reach the GPU: the benchmark compares the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarkerPath {
    /// One instanced draw per pass, per-person data in an instance buffer.
    #[default]
    Instanced,
    /// One draw per person per pass with its placement in uniforms.
    PerAgent,
}

/// This frame's people, in the form the active path draws.
#[derive(Clone, Copy)]
pub enum CrowdInstances<'a> {
    /// Skinned figures: per level of detail and submesh, the packed instance blocks.
    Skinned(&'a CrowdFrame),
    /// The naive path: one draw per person with a palette sampled on the CPU.
    Naive(&'a NaiveFrame),
    /// Stand-in markers (when the crowd's models could not load): floats per level of detail.
    Markers(&'a [Vec<f32>; 3]),
}

/// The skinned crowd's load-time data, how new it is, and how the GPU side should hold it.
#[derive(Clone, Copy)]
pub struct CrowdSource<'a> {
    pub assets: &'a CrowdAssets,
    /// Advances whenever `assets` is replaced (a level reload naming other models).
    pub version: u64,
    /// Size crowd batches for at most this many vertex uniform vectors (None: the GPU's limit).
    pub uniform_cap: Option<u32>,
    /// Mid and far figures read the vertex animation texture.
    pub vat: bool,
    /// Impostor people are drawn from the impostor atlas (baked or loaded on first use).
    pub impostors: bool,
}

/// How many people this frame shows, leaves out by culling, leaves out beyond the far
/// distance, and has not shown yet (spawned, waiting for their turn to pop in). Every person
/// in the crowd is in exactly one of the four.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PeopleCounts {
    pub drawn: usize,
    pub culled: usize,
    pub beyond: usize,
    pub spawning: usize,
}

impl PeopleCounts {
    /// Everyone counted: the crowd's size.
    pub fn total(&self) -> usize {
        self.drawn + self.culled + self.beyond + self.spawning
    }
}

/// The hero as one frame draws it.
#[derive(Clone, Copy)]
pub struct HeroFrame<'a> {
    pub model: Mat4,
    /// Seconds of animation time (drives MToon UV scrolling).
    pub time: f32,
    /// Inside the player's view. A hero outside it still casts its shadow.
    pub visible: bool,
    pub world_bounds: Aabb,
    /// Joint palettes; each group's `palette.version` says when it last changed.
    pub palettes: &'a SkinningPaletteSet,
    /// Morphed vertices per node and primitive; `applied_version` says when they last changed.
    pub morphed: &'a [Vec<Option<MorphedPrimitive>>],
    /// Per material: colours and texture transform as the expressions make them.
    pub material_looks: &'a [crate::hero::expression_binds::MaterialLook],
}

/// Everything the renderer draws this frame.
pub struct RenderWorld<'a> {
    /// Lighting, ground, bounds and sky.
    pub level: &'a Level,
    /// Advances whenever the static scenery changes, so the renderer rebuilds it once.
    pub scenery_version: u64,
    /// The camera the frame is drawn from: the player's, or the culling view's overview.
    pub camera: ViewCamera,
    /// The player's camera: culling and LOD followed it.
    pub player: ViewCamera,
    /// Drawn from the culling view's second camera.
    pub overview: bool,
    /// Distance where fog reaches its full strength.
    pub fog_distance: f32,
    /// The sun's view-projection for the shadow map, fitted to the view and the hero.
    pub light_view_proj: Mat4,
    pub shadows: bool,
    /// Edge of the part of the shadow map drawn into this frame, in texels (at most
    /// `light::SHADOW_MAP_SIZE`): adaptive quality draws a coarser shadow in a corner of it.
    pub shadow_texels: u32,
    /// Draw the main pass multisampled (the player's setting, unless adaptive quality dropped it).
    pub antialias: bool,
    pub marker_path: MarkerPath,
    pub crowd: CrowdInstances<'a>,
    pub people: PeopleCounts,
    pub hero: Option<HeroFrame<'a>>,
}

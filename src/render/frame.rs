//! One frame on the GPU from one `RenderWorld`: the hero's changed palettes and morphs uploaded,
//! the scenery rebuilt when its version moved, then the shadow and main passes with the crowd
//! and the hero as layers. Play and the benchmark both draw through here.

use macroquad::miniquad::RenderingBackend;

use super::crowd_pass::CrowdPass;
use super::hero::HeroRenderer;
use super::{FrameParams, RenderStats, Renderer, WorldLayer};
use crate::scenery::furniture::build_static_mesh;
use crate::view::render_world::{CrowdInstances, RenderWorld};

/// What draws a frame's layers besides the plaza itself.
pub struct FrameLayers<'r> {
    pub crowd: &'r mut CrowdPass,
    /// None: no hero, or its renderer could not be built.
    pub hero: Option<&'r mut HeroRenderer>,
}

/// Draws `world` into the default framebuffer (its colour already cleared to the sky).
pub fn draw_frame(
    ctx: &mut dyn RenderingBackend,
    renderer: &mut Renderer,
    world: &RenderWorld,
    layers: FrameLayers,
) -> RenderStats {
    let mut hero_layer = match (layers.hero, &world.hero) {
        (Some(r), Some(frame)) => {
            r.prepare(ctx, frame, world.player.fov_y);
            Some(r)
        }
        _ => None,
    };
    renderer.sync_scenery(ctx, world.scenery_version, &world.level.bounds, || {
        build_static_mesh(world.level)
    });
    let no_markers: [Vec<f32>; 3] = Default::default();
    let markers = match world.crowd {
        CrowdInstances::Markers(m) => m,
        _ => &no_markers,
    };
    let mut crowd_layer = layers.crowd.layer(&world.crowd);
    let mut passes: Vec<&mut dyn WorldLayer> = Vec::new();
    if let Some(l) = crowd_layer.as_mut() {
        passes.push(l);
    }
    if let Some(h) = hero_layer.as_mut() {
        passes.push(*h);
    }
    renderer.draw(ctx, &FrameParams::from_world(world), markers, &mut passes)
}

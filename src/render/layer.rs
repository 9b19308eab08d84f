//! The seam between the plaza passes and the things drawn into them (the skinned crowd, the
//! hero): each one is a `WorldLayer` that adds its draws to the sun's shadow pass and to the
//! main pass, so every renderer shares one shadow map and one set of lights.

use glam::{Mat4, Vec3};
use macroquad::miniquad::{RenderingBackend, TextureId};

use super::RenderStats;

/// What a layer needs to light and shadow its draws in the main pass.
#[derive(Debug, Clone, Copy)]
pub struct MainPassInfo {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// Direction the sunlight travels (normalised, points down).
    pub sun_dir: Vec3,
    /// Sun colour times intensity, linear.
    pub sun_color: Vec3,
    pub ambient: Vec3,
    pub sky_color: Vec3,
    pub fog_distance: f32,
    /// The same matrix the shadow pass rendered with.
    pub light_view_proj: Mat4,
    pub shadows_on: bool,
    /// Depth texture of the shadow pass (valid when `shadows_on`).
    pub shadow_map: TextureId,
    /// 1 / shadow map edge in texels, for PCF offsets.
    pub shadow_texel: f32,
    /// The `tone_curve` uniform (`render::tone::curve_uniform`).
    pub tone_curve: f32,
    /// Framebuffer size in pixels.
    pub screen_size: (f32, f32),
}

/// A renderer that adds draws to the shared passes. The shadow pass is already bound (depth
/// only, viewport set) when `draw_shadow` runs; the default pass is bound for `draw_main`.
pub trait WorldLayer {
    fn draw_shadow(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        light_view_proj: Mat4,
        stats: &mut RenderStats,
    );
    fn draw_main(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        pass: &MainPassInfo,
        stats: &mut RenderStats,
    );
}

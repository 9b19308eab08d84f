//! The culling debug view's overlay (F7): the player's frustum drawn as lines from the second
//! camera, the player's position, and a legend.

use super::layout_log::draw_text;
use macroquad::prelude::{draw_circle, draw_line, draw_rectangle, Color};

use super::layout_log;
use super::pointer::Rect;
use super::scale::logical_size;
use super::widgets::wrap_text;

use crate::view::camera::CameraRig;
use crate::view::cull_view::{frustum_corners, segment_on_screen, FRUSTUM_EDGES};

/// Yellow: stands out against the paving, the sky and the red of culled people.
pub const CULL_VIEW_LINE: Color = Color::new(1.0, 0.85, 0.1, 1.0);

/// The player's frustum (cut at the far LOD distance) as seen from the culling view's camera
/// (its legend: `draw_cull_view_legend`, drawn after the HUD).
pub fn draw_cull_view_overlay(player: &CameraRig, overview: &CameraRig, aspect: f32, far: f32) {
    let screen = logical_size();
    let corners = frustum_corners(
        &player.view_projection(aspect),
        player.near,
        player.far,
        far.min(player.far),
    );
    let over_vp = overview.view_projection(aspect);
    for (a, b) in FRUSTUM_EDGES {
        if let Some((p, q)) = segment_on_screen(&over_vp, corners[a], corners[b], screen) {
            draw_line(p.x, p.y, q.x, q.y, 3.0, CULL_VIEW_LINE);
        }
    }
    let eye = player.eye();
    if let Some((p, _)) = segment_on_screen(&over_vp, eye, eye, screen) {
        draw_circle(p.x, p.y, 6.0, CULL_VIEW_LINE);
    }
}

/// Where the legend goes: right of the performance lab's column, below the HUD (the bottom
/// edge belongs to the glide editor and the hero's expressions).
const LEGEND_X: f32 = 360.0;
const LEGEND_W: f32 = 330.0;
const LEGEND_FONT: f32 = 16.0;
const LEGEND_LINE: f32 = 18.0;

/// The culling view's legend, wrapped into a box whose top is at `top`; returns the box.
pub fn draw_cull_view_legend(top: f32) -> Rect {
    let legend = "Culling view (F7): yellow = the player camera's frustum to the far LOD \
                  distance, red = people it culls";
    let lines = wrap_text(legend, LEGEND_FONT, LEGEND_W - 16.0);
    let legend_box = Rect {
        x: LEGEND_X,
        y: top,
        w: LEGEND_W,
        h: lines.len() as f32 * LEGEND_LINE + 8.0,
    };
    draw_rectangle(
        legend_box.x,
        legend_box.y,
        legend_box.w,
        legend_box.h,
        Color::new(0.0, 0.0, 0.0, 0.6),
    );
    let _scope = layout_log::panel("culling view legend", legend_box);
    for (i, l) in lines.iter().enumerate() {
        draw_text(
            l,
            legend_box.x + 8.0,
            legend_box.y + 17.0 + i as f32 * LEGEND_LINE,
            LEGEND_FONT,
            Color::new(1.0, 1.0, 1.0, 1.0),
        );
    }
    legend_box
}

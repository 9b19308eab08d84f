//! The culling debug view's overlay (F7): the player's frustum drawn as lines from the second
//! camera, the player's position, and a legend.

use macroquad::prelude::{draw_circle, draw_line, draw_rectangle, draw_text, Color};

use super::scale::logical_size;

use crate::view::camera::CameraRig;
use crate::view::cull_view::{frustum_corners, segment_on_screen, FRUSTUM_EDGES};

/// Yellow: stands out against the paving, the sky and the red of culled people.
pub const CULL_VIEW_LINE: Color = Color::new(1.0, 0.85, 0.1, 1.0);

/// The player's frustum (cut at the far LOD distance) as seen from the culling view's camera,
/// and a legend.
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
    let legend =
        "Culling view (F7): yellow = the player camera's frustum to the far LOD distance, \
                  red = people it culls";
    draw_rectangle(
        10.0,
        screen.y - 34.0,
        screen.x - 20.0,
        26.0,
        Color::new(0.0, 0.0, 0.0, 0.6),
    );
    draw_text(
        legend,
        18.0,
        screen.y - 15.0,
        20.0,
        Color::new(1.0, 1.0, 1.0, 1.0),
    );
}

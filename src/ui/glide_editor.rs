//! The glide easing editor (F4): the curve camera glides follow, drawn as a graph with the two
//! cubic-bezier handles draggable and a playhead while a glide runs.

use super::layout_log::draw_text;
use glam::Vec2;
use macroquad::prelude::{draw_rectangle, WHITE};

use super::curve_preview::{curve_preview_ui, BezierEditor};
use super::pointer::{Pointer, Rect};
use super::scale::logical_size;
use super::widgets::PANEL_BG;
use crate::game::Game;
use crate::settings::Intent;

/// Draws the editor, reading `pointer` (the panels' share of the mouse); a changed curve
/// becomes an intent. Returns the rectangle it covers.
pub fn draw(
    game: &Game,
    editor: &mut BezierEditor,
    pointer: &Pointer,
    intents: &mut Vec<Intent>,
) -> Rect {
    let size = Vec2::new(260.0, 200.0);
    let screen = logical_size();
    // Bottom, right of the performance panel's column and left of the hero's Expressions
    // panel, so all of them fit a 1280x720 layout side by side.
    let origin = Vec2::new(390.0, screen.y - size.y - 60.0);
    let area = Rect {
        x: origin.x - 20.0,
        y: origin.y - 40.0,
        w: size.x + 40.0,
        h: size.y + 60.0,
    };
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL_BG);
    let _scope = super::layout_log::panel("glide easing", area);
    draw_text(
        "Glide easing (F4): drag the handles",
        origin.x - 14.0,
        origin.y - 18.0,
        17.0,
        WHITE,
    );
    let playhead = game.glide_progress();
    let mut easing = game.glide_easing.clone();
    if curve_preview_ui(origin, size, &mut easing, editor, pointer, playhead) {
        intents.push(Intent::SetGlideEasing(easing));
    }
    area
}

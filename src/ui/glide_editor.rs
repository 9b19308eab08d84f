//! The glide easing editor (F4): the curve camera glides follow, drawn as a graph with the two
//! cubic-bezier handles draggable and a playhead while a glide runs.

use glam::Vec2;
use macroquad::prelude::{draw_rectangle, draw_text, screen_height, screen_width, Color, WHITE};

use super::curve_preview::{curve_preview_ui, BezierEditor};
use crate::game::Game;
use crate::settings::Intent;

/// Draws the editor; a changed curve becomes an intent.
pub fn draw(game: &Game, editor: &mut BezierEditor, intents: &mut Vec<Intent>) {
    let size = Vec2::new(260.0, 200.0);
    let origin = Vec2::new(
        screen_width() - size.x - 30.0,
        screen_height() - size.y - 60.0,
    );
    draw_rectangle(
        origin.x - 20.0,
        origin.y - 40.0,
        size.x + 40.0,
        size.y + 60.0,
        Color::new(0.0, 0.0, 0.0, 0.6),
    );
    draw_text(
        "Glide easing (F4): drag the handles",
        origin.x - 14.0,
        origin.y - 18.0,
        17.0,
        WHITE,
    );
    let playhead = game.glide_progress();
    let mut easing = game.glide_easing.clone();
    if curve_preview_ui(origin, size, &mut easing, editor, playhead) {
        intents.push(Intent::SetGlideEasing(easing));
    }
}

//! Panels and overlays drawn with macroquad's 2D widgets.
pub mod hud;
pub mod perf_panel;
pub mod widgets;

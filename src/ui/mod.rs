//! Panels and overlays drawn with macroquad's 2D shapes. Each keeps its math in pure, tested
//! functions and does the drawing in a thin layer on top.
pub mod agent_overlay;
pub mod build_bar;
pub mod cull_view_overlay;
pub mod curve_preview;
pub mod edge_label;
pub mod evacuation;
pub mod glide_editor;
pub mod heat_map;
pub mod hero_panels;
pub mod hud;
pub mod layout_log;
pub mod level_overlay;
pub mod look_marker;
pub mod measure_panel;
pub mod perf_panel;
pub mod person_card;
pub mod pointer;
pub mod scale;
pub mod show_overlay;
pub mod widgets;

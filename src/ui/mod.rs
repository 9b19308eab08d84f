//! Widgets drawn with macroquad. Each keeps its math in pure, tested functions and does the
//! drawing in a thin layer on top.
pub mod curve_preview;

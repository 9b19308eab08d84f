//! Throng: a crowd-simulation sandbox. Everything up to the render world is plain data;
//! only `render` (and the window shell in `app`, and `ui`) talk to the window and GL.
pub mod anim;
pub mod app;
pub mod asset;
pub mod bench;
pub mod cast;
pub mod cli;
pub mod crowd;
pub mod game;
pub mod hero;
pub mod level;
pub mod perf;
pub mod render;
pub mod scenery;
pub mod tween;
pub mod ui;
pub mod vat;
pub mod view;

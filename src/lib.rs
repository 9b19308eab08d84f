//! Throng: a crowd-simulation sandbox. Everything up to the render world is plain data;
//! only `render` (and the window shell in `app`, and `ui`) talk to the window and GL.
// First, so its `assert_approx!` is in scope in every module's tests below.
#[macro_use]
pub mod approx;

pub mod anim;
pub mod app;
pub mod arg_values;
pub mod asset;
pub mod bench;
pub mod chart;
pub mod cli;
pub mod clip_kind;
pub mod clock;
pub mod crowd;
pub mod crowd_assets;
pub mod display_check;
pub mod evacuate;
pub mod extract;
pub mod file_read;
pub mod files;
pub mod footprint;
pub mod frustum;
pub mod game;
pub mod hero;
pub mod level;
pub mod level_edit;
pub mod level_routes;
pub mod measure;
pub mod perf;
pub mod polygon;
// SQLite (rusqlite) is a desktop-only dependency.
#[cfg(not(target_arch = "wasm32"))]
pub mod record;
pub mod render;
pub mod scenery;
pub mod settings;
pub mod shown;
pub mod sim_hash;
pub mod tools;
pub mod tween;
pub mod ui;
pub mod validate;
pub mod view;
pub mod web_files;

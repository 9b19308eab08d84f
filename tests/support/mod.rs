//! The one support module of the integration tests: `mod support;` in a test file.
//! - [`models`]: test models by name, loading them, the reference JSON files;
//! - [`gltf_builder`]: small self-contained glTF files built in code;
//! - [`cpu`]: CPU time of the calling thread (load-proof "refused before the work" checks);
//! - [`gl_checks`]: harness-less tests that check pixels in a real GL window;
//! - [`headless`]: the binary run without a window, and PedPy's Python for the round trips;
//! - [`live`]: a running game the test waits on line by line (no sleeps);
//! - [`run`]: running the binary in a window (or Xvfb), screenshots and frame reports;
//! - `assert_approx!` (from `throng::approx`): approximate equality of floats and glam vectors.
#![allow(dead_code, unused_imports)]

pub mod cpu;
pub mod gl_checks;
pub mod gltf_builder;
pub mod headless;
pub mod live;
pub mod models;
pub mod run;

use std::path::PathBuf;

pub use models::*;
pub use run::*;
pub use throng::assert_approx;

/// The project's root folder (where Cargo.toml is).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The ground point (x, z) under `pixel` of a `screen` sized window at the level's start camera.
pub fn ground_under_start_camera(
    level: &throng::level::Level,
    pixel: glam::Vec2,
    screen: glam::Vec2,
) -> glam::Vec2 {
    let vp = throng::view::camera::CameraRig::from_start(&level.camera)
        .view_projection(screen.x / screen.y);
    let ndc = glam::Vec2::new(
        pixel.x / screen.x * 2.0 - 1.0,
        1.0 - pixel.y / screen.y * 2.0,
    );
    let p = throng::view::camera::ground_point(&vp, ndc).expect("on the ground");
    glam::Vec2::new(p.x, p.z)
}

/// The shipped plaza, parsed as the game loads it.
pub fn plaza_level() -> throng::level::Level {
    let root = project_root();
    let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("plaza.ron");
    throng::level::parse_level(&text, "plaza.ron", &root).expect("plaza.ron parses")
}

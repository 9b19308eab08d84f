//! The crowd's determinism hash over a fixed run, the one number the web build and the desktop
//! must agree on for the same level, crowd, seed and steps (`tests/web_browser.rs` compares the
//! browser's answer, from the page's `throng_sim_hash` export, with this function's on the
//! desktop). Fixed 1/60 s steps, no view (everyone steered), the level's own inputs.

use crate::crowd::{Crowd, StepInputs};
use crate::level::Level;

pub const STEP: f32 = 1.0 / 60.0;

/// `Crowd::state_hash` after `steps` steps of `people` people seeded with `seed`.
pub fn crowd_hash(level: &Level, people: usize, seed: u64, steps: u32) -> u64 {
    let mut crowd = Crowd::from_level(level, people, seed);
    let inputs = StepInputs::default();
    for _ in 0..steps {
        crowd.step(STEP, &inputs);
    }
    crowd.state_hash()
}

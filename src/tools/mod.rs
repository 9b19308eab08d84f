//! The offline command-line tools: `throng inspect` (what a model holds, or its posed vertices)
//! and `throng bake` (vertex animation textures). They read assets and run the animation code,
//! so they live here, above both, rather than inside `asset/` or `anim/`. `output` prints
//! their results so that a reader closing the pipe early (`| head`) ends them quietly.
pub mod inspect;
pub mod inspect_vrm;
pub mod output;
pub mod trace;
pub mod vat;

//! The offline command-line tools: `throng inspect` (what a model holds, or its posed vertices)
//! and `throng bake` (vertex animation textures). They read assets and run the animation code,
//! so they live here, above both, rather than inside `asset/` or `anim/`.
pub mod inspect;
pub mod vat;

pub mod anim;
pub mod asset;
pub mod level;

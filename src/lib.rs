pub mod level;
pub mod asset;
pub mod anim;

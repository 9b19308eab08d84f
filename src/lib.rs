pub mod level;
pub mod tween;

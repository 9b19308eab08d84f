pub mod level;
pub mod tween;
pub mod ui;

pub mod level;

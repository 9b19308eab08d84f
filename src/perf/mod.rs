//! Performance measurement as plain data: stage timings, frame history, adaptive quality.
pub mod adaptive;
pub mod slider;
pub mod timings;

//! Performance measurement as plain data: stage timings, frame history.
pub mod slider;
pub mod timings;

//! Tests for the tween module, one file per concern.
mod animator_tests;
mod budget_tests;
mod easing_tests;
mod parse_tests;
mod path_tests;
mod recipes_tests;
mod spring_tests;
mod timeline_tests;

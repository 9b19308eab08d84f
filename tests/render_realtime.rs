//! Real time, honestly, in the real binary: under a forced slow renderer (`--slow-frame-ms`) the
//! world clock keeps up with the wall clock; when frames are longer than the clock will follow,
//! the HUD says how far behind it is; and the first frame shows no made-up frame rate.

mod support;

use serde_json::Value;
use support::{find_display, run_for_report, scratch_dir};

fn seconds(report: &Value, field: &str) -> f64 {
    report["clock"][field]
        .as_f64()
        .unwrap_or_else(|| panic!("clock.{field} is not a number: {}", report["clock"]))
}

fn hud_line(report: &Value, i: usize) -> String {
    report["hud"][i].as_str().expect("hud text").to_string()
}

#[test]
fn the_world_clock_keeps_real_time_under_a_slow_renderer() {
    let Some(display) = find_display("the_world_clock_keeps_real_time_under_a_slow_renderer")
    else {
        return;
    };
    let dir = scratch_dir();
    // 300 ms of sleep per frame on top of drawing: the old clock's 5 catch-up steps per frame
    // advanced a quarter of real time at best.
    let report = run_for_report(
        &display,
        dir.path(),
        "slow",
        &[
            "levels/plaza.ron",
            "--crowd",
            "300",
            "--follow",
            "--hero-autopilot",
            "walk",
            "--slow-frame-ms",
            "300",
            "--frames",
            "12",
        ],
    );
    let wall = seconds(&report, "wall_seconds");
    let sim = seconds(&report, "sim_seconds");
    assert!(wall > 3.0 && sim > 2.5, "{sim} s simulated in {wall} s");
    // Over the last two seconds (the first frames load the crowd's models, a hitch the clock
    // may skip), the world ran at the wall clock's pace, within a step.
    let ratio = seconds(&report, "speed_ratio");
    assert!(
        (0.95..=1.02).contains(&ratio),
        "simulation at {ratio}x real time"
    );
    assert!(seconds(&report, "hero_seconds") >= sim - 1e-6);
    assert!(report["clock"]["behind"].is_null(), "{}", report["clock"]);
    assert!(
        !hud_line(&report, 2).contains("simulation at"),
        "{}",
        hud_line(&report, 2)
    );
}

#[test]
fn frames_too_long_to_follow_make_the_hud_say_how_far_behind_the_world_is() {
    let Some(display) = find_display("frames_too_long_to_follow_make_the_hud_say") else {
        return;
    };
    let dir = scratch_dir();
    // 2.5 s frames: the clock follows at most 2 s of each.
    let report = run_for_report(
        &display,
        dir.path(),
        "behind",
        &[
            "levels/plaza.ron",
            "--crowd",
            "100",
            "--slow-frame-ms",
            "2500",
            "--frames",
            "3",
        ],
    );
    let behind = report["clock"]["behind"]
        .as_f64()
        .unwrap_or_else(|| panic!("not reported as behind: {}", report["clock"]));
    assert!((0.5..0.85).contains(&behind), "ratio {behind}");
    let line = hud_line(&report, 2);
    let note = format!("simulation at {behind:.1}x real time");
    assert!(line.ends_with(&note), "HUD `{line}` should end in `{note}`");
}

#[test]
fn the_first_frame_shows_no_made_up_frame_rate() {
    let Some(display) = find_display("the_first_frame_shows_no_made_up_frame_rate") else {
        return;
    };
    let dir = scratch_dir();
    let first = run_for_report(
        &display,
        dir.path(),
        "first",
        &["levels/plaza.ron", "--crowd", "10", "--frames", "1"],
    );
    let line = hud_line(&first, 0);
    assert!(line.contains("- fps  - ms"), "{line}");
    assert!(!line.contains("60 fps"), "{line}");
    assert!(line.contains("quality 7/7"), "{line}");
    let later = run_for_report(
        &display,
        dir.path(),
        "later",
        &["levels/plaza.ron", "--crowd", "10", "--frames", "3"],
    );
    let line = hud_line(&later, 0);
    assert!(!line.contains("- fps") && line.contains(" fps  "), "{line}");
}

//! The panels take the mouse: the real game, driven by a scripted mouse (`--input-script`), is
//! dragged on the Tab panel's crowd slider, double-clicked on a checkbox and scrolled over the
//! panel, and the camera it reports afterwards is the one it started with. The same gestures
//! on the world move the camera, so the check can fail.
//!
//! Perf panel geometry at 1280x720 (`--perf-panel`): the panel starts at (10, 112), the crowd
//! slider's track spans x 22..338 at y 164..180, checkbox rows start at y 190 + 18 per row.

mod support;

use serde_json::Value;
use support::{find_display, run_for_report, scratch_dir, Display};
use throng::perf::slider::crowd_from_slider;

const PEOPLE: &str = "300";

/// The crowd slider dragged from x 200 to 300, held there; `release` lets go at frame 32.
fn slider_drag(release: bool) -> String {
    let mut s = "3 move 200 172; 5 down left; 6-30 move 200 172 300 172".to_string();
    if release {
        s.push_str("; 32 up left");
    }
    s
}

fn play(display: &Display, name: &str, script: Option<&str>) -> Value {
    let dir = scratch_dir();
    let mut args = vec![
        "levels/plaza.ron",
        "--paused",
        "--crowd",
        PEOPLE,
        "--perf-panel",
        "--frames",
        "40",
    ];
    if let Some(s) = script {
        args.extend(["--input-script", s]);
    }
    run_for_report(display, dir.path(), name, &args)
}

fn camera(report: &Value) -> Value {
    let c = report["camera"].clone();
    assert!(c["orbit_distance"].is_number(), "camera in report: {c}");
    c
}

fn count(report: &Value, key: &str) -> u64 {
    report[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key}: {}", report[key]))
}

#[test]
fn dragging_the_crowd_slider_leaves_the_camera_alone_and_resizes_the_crowd_on_release() {
    let Some(display) = find_display("dragging_the_crowd_slider_leaves_the_camera_alone") else {
        return;
    };
    let still = play(&display, "still", None);
    let held = play(&display, "held", Some(&slider_drag(false)));
    assert_eq!(
        camera(&held),
        camera(&still),
        "a slider drag moved the camera"
    );
    assert_eq!(
        count(&held, "crowd_target"),
        300,
        "the crowd must not change while the slider is held"
    );
    let released = play(&display, "released", Some(&slider_drag(true)));
    assert_eq!(camera(&released), camera(&still));
    // Let go at x 300 on the track from 22 to 338.
    let want = crowd_from_slider((300.0 - 22.0) / 316.0);
    assert!(want > 20_000, "{want}");
    assert_eq!(count(&released, "crowd_target"), u64::from(want));
    // Paused: nobody spawns yet, and the HUD's counts add up to the people there are.
    assert_eq!(count(&released, "people"), 300);
    let parts = ["drawn", "culled", "beyond", "spawning"]
        .map(|k| count(&released, k))
        .iter()
        .sum::<u64>();
    assert_eq!(parts, 300);
    let hud = released["hud"][1].as_str().expect("people line");
    assert!(
        hud.starts_with(&format!("people 300 (to {want}) = drawn")),
        "{hud}"
    );
}

#[test]
fn clicks_and_the_wheel_over_a_panel_never_reach_the_camera_but_do_on_the_world() {
    let Some(display) = find_display("clicks_and_the_wheel_over_a_panel") else {
        return;
    };
    let still = play(&display, "still", None);
    // A double click on the "frustum culling" checkbox (it toggles twice), the wheel over the
    // panel, and a right drag (pan) that starts on the panel and leaves it.
    let on_panel = "3 move 30 198; 5 down left; 5 up left; 7 down left; 7 up left; \
                    10 move 200 400; 11 wheel 3; 12 wheel -2; \
                    15 down right; 16-25 move 200 400 700 500; 27 up right";
    let report = play(&display, "on-panel", Some(on_panel));
    assert_eq!(
        camera(&report),
        camera(&still),
        "a panel gesture moved the camera"
    );
    // The same gestures on the world: the double click glides, the wheel zooms, the drag pans.
    let on_world = on_panel
        .replace("move 30 198", "move 640 500")
        .replace("move 200 400 700 500", "move 700 400 1000 500")
        .replace("move 200 400", "move 700 400");
    let moved = play(&display, "on-world", Some(&on_world));
    let (a, b) = (camera(&moved), camera(&still));
    assert_ne!(a["orbit_target"], b["orbit_target"], "no glide or pan: {a}");
    assert_ne!(a["orbit_distance"], b["orbit_distance"], "no zoom: {a}");
}

//! The alarm in the real window, raised as a player raises it (`--input-script`): K sounds it
//! at the camera's focus, the HUD's alarm box counts the people still inside and out, each
//! exit is labelled over the street with its name, people through and flow, and people leave
//! by the exits; K again gives the all-clear. The build toolbar's Alarm button raises it where
//! the next ground click is. The frame report's `evacuation` section says what the game holds.

mod support;

use glam::{Vec2, Vec3};
use support::{find_display, run_for_report};
use throng::level::Level;
use throng::view::camera::CameraRig;
use throng::view::level_overlay::project;

const SCREEN: Vec2 = Vec2::new(1280.0, 720.0);
/// Looking north up the north street from 30 m inside it, the exit ahead: people spawn in that
/// street, so some are within a few metres of the exit when K sounds at the focus.
const NORTH_STREET_CAMERA: &str = "camera: (mode: Orbit, target: (0.0, 1.0, -78.0), \
     distance: 38.0, yaw_deg: 0.0, pitch_deg: 38.0, fov_deg: 55.0),";

/// The plaza copy with the camera over the north street; the level as the game loads it.
fn north_street_plaza() -> (support::ScratchPlaza, Level) {
    let plaza = support::scratch_plaza();
    let text = plaza
        .original
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("camera:") {
                format!("    {NORTH_STREET_CAMERA}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(text, plaza.original, "the plaza has a camera line");
    std::fs::write(&plaza.file, &text).expect("write the copy");
    let level: Level = ron::from_str(&text).expect("the copy parses");
    (plaza, level)
}

fn texts(report: &serde_json::Value) -> Vec<String> {
    report["ui"]["texts"]
        .as_array()
        .expect("the layout's texts")
        .iter()
        .filter_map(|t| t["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn k_sounds_the_alarm_the_hud_counts_people_out_and_k_again_clears_it() {
    let Some(display) = find_display("k_sounds_the_alarm") else {
        return;
    };
    let (plaza, level) = north_street_plaza();
    // The north exit is in the picture, so its label can be.
    let vp = CameraRig::from_start(&level.camera).view_projection(SCREEN.x / SCREEN.y);
    let exit = project(&vp, Vec3::new(0.0, 3.5, -100.0), SCREEN).expect("in front");
    assert!(
        exit.x > 200.0 && exit.x < 1080.0 && exit.y > 250.0 && exit.y < 600.0,
        "the north exit at {exit} in the start view"
    );
    let file = plaza.file.to_string_lossy().to_string();
    // Frames of a quarter second at least: about 12 simulated seconds between the two keys,
    // whatever the renderer's speed.
    let common = [
        file.as_str(),
        "--crowd",
        "400",
        "--slow-frame-ms",
        "250",
        "--no-adaptive-quality",
    ];
    let mut args = common.to_vec();
    args.extend(["--frames", "50", "--input-script", "2 key k"]);
    let report = run_for_report(&display, plaza.dir.path(), "alarm", &args);
    let evac = &report["evacuation"];
    assert_eq!(evac["sounding"], true, "{evac}");
    let at = Vec2::new(
        evac["at"][0].as_f64().unwrap_or(f64::NAN) as f32,
        evac["at"][1].as_f64().unwrap_or(f64::NAN) as f32,
    );
    assert!(
        at.distance(Vec2::new(0.0, -78.0)) < 0.5,
        "at the focus: {at}"
    );
    let out = evac["out"].as_u64().expect("out");
    let inside = evac["inside"].as_u64().expect("inside");
    assert_eq!(out + inside, report["people"].as_u64().expect("people"));
    assert!(out > 0, "nobody left by the north street: {evac}");
    let exits = evac["exits"].as_array().expect("exits");
    let through: u64 = exits.iter().filter_map(|e| e["through"].as_u64()).sum();
    assert_eq!(through, out, "every person out passed an exit: {evac}");
    assert_eq!(exits[0]["name"], "north_exit");
    assert!(exits[0]["through"].as_u64() > Some(0), "{evac}");
    // The HUD's alarm box and the north exit's label, as drawn.
    let panels = report["ui"]["panels"].as_array().expect("panels");
    assert!(
        panels.iter().any(|p| p["name"] == "evacuation"),
        "the alarm box: {panels:?}"
    );
    let shown = texts(&report);
    let hud = evac["hud"].as_array().expect("hud lines");
    assert!(hud[0].as_str().is_some_and(|l| l.starts_with("ALARM")));
    let inside_line = format!("{inside} people still inside");
    assert!(
        shown.iter().any(|t| t.contains(&inside_line)),
        "{inside_line} among {shown:?}"
    );
    assert!(shown.iter().any(|t| t == "north_exit"), "{shown:?}");
    assert!(
        shown
            .iter()
            .any(|t| t.starts_with(&format!("{} through", exits[0]["through"]))),
        "{shown:?}"
    );
    let problems = throng::ui::layout_log::layout_problems(
        &serde_json::from_value(report["ui"].clone()).expect("the layout"),
        SCREEN,
    );
    assert!(problems.is_empty(), "{problems:?}");

    // K again: the all-clear, and the box says so.
    let mut args = common.to_vec();
    args.extend(["--frames", "12", "--input-script", "2 key k; 8 key k"]);
    let report = run_for_report(&display, plaza.dir.path(), "all_clear", &args);
    let evac = &report["evacuation"];
    assert_eq!(evac["sounding"], false, "{evac}");
    assert!(evac["all_clear_at"].as_f64().is_some(), "{evac}");
    assert!(
        evac["hud"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("ALL CLEAR")),
        "{evac}"
    );
}

#[test]
fn the_toolbar_alarm_sounds_where_the_player_clicks_and_then_gives_the_all_clear() {
    let Some(display) = find_display("the_toolbar_alarm") else {
        return;
    };
    let plaza = support::scratch_plaza();
    let bar = throng::ui::build_bar::bar_rect(SCREEN);
    // The alarm button is the bar's last.
    let button = Vec2::new(bar.x + bar.w - 60.0, bar.y + 50.0);
    let pixel = Vec2::new(700.0, 400.0);
    let ground = support::ground_under_start_camera(&plaza.level, pixel, SCREEN);
    let script = format!(
        "2 key b; 3 move {bx} {by}; 4 down left; 5 up left; 7 move {px} {py}; 8 down left; \
         9 up left",
        bx = button.x,
        by = button.y,
        px = pixel.x,
        py = pixel.y
    );
    let file = plaza.file.to_string_lossy().to_string();
    let args = [
        file.as_str(),
        "--paused",
        "--crowd",
        "50",
        "--frames",
        "11",
        "--input-script",
        script.as_str(),
    ];
    let report = run_for_report(&display, plaza.dir.path(), "toolbar", &args);
    let evac = &report["evacuation"];
    assert_eq!(evac["sounding"], true, "{evac}");
    let at = Vec2::new(
        evac["at"][0].as_f64().unwrap_or(f64::NAN) as f32,
        evac["at"][1].as_f64().unwrap_or(f64::NAN) as f32,
    );
    assert!(
        at.distance(ground) < 0.5,
        "raised at {at}, clicked {ground}"
    );
    // The button now gives the all-clear.
    let shown = texts(&report);
    assert!(shown.iter().any(|t| t == "All clear"), "{shown:?}");
    let script = format!(
        "{script}; 11 move {bx} {by}; 12 down left; 13 up left",
        bx = button.x,
        by = button.y
    );
    let mut args = args.to_vec();
    args[5] = "15";
    args[7] = script.as_str();
    let report = run_for_report(&display, plaza.dir.path(), "toolbar_clear", &args);
    assert_eq!(report["evacuation"]["sounding"], false);
    assert!(report["evacuation"]["all_clear_at"].as_f64().is_some());
}

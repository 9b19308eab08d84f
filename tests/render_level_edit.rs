//! Edit mode in the real window, as a designer uses it: F9, drag a point of interest's handle
//! with the mouse, Ctrl+S; the level file on disk then differs from before only in that
//! point's two numbers, a backup holds the file as it was, and the camera never moved.
//! Driven by `--input-script` (mouse and keys) on a copy of the plaza at 1280x720.

mod support;

use glam::{Vec2, Vec3};
use support::{find_display, project_root, run_for_report, scratch_dir};
use throng::level::Level;
use throng::view::camera::{ground_point, CameraRig};
use throng::view::level_overlay::project;

const SCREEN: Vec2 = Vec2::new(1280.0, 720.0);

fn ground_under(level: &Level, pixel: Vec2) -> Vec2 {
    let vp = CameraRig::from_start(&level.camera).view_projection(SCREEN.x / SCREEN.y);
    let ndc = Vec2::new(
        pixel.x / SCREEN.x * 2.0 - 1.0,
        1.0 - pixel.y / SCREEN.y * 2.0,
    );
    let p = ground_point(&vp, ndc).expect("on the ground");
    Vec2::new(p.x, p.z)
}

#[test]
fn dragging_a_point_of_interest_and_ctrl_s_writes_only_its_numbers() {
    let Some(display) = find_display("dragging_a_point_of_interest_and_ctrl_s") else {
        return;
    };
    let original =
        std::fs::read_to_string(project_root().join("levels/plaza.ron")).expect("the plaza");
    let level: Level = ron::from_str(&original).expect("parses");
    let dir = scratch_dir();
    let file = dir.path().join("plaza.ron");
    std::fs::write(&file, &original).expect("copy");

    // Where chat_ne's handle is on the screen at the level's start camera.
    let poi = level
        .points_of_interest
        .iter()
        .position(|p| p.name == "chat_ne")
        .expect("chat_ne");
    let at = level.points_of_interest[poi].position;
    let vp = CameraRig::from_start(&level.camera).view_projection(SCREEN.x / SCREEN.y);
    let grab = project(&vp, Vec3::new(at.x, 0.08, at.y), SCREEN).expect("on screen");
    assert!(
        grab.x > 100.0 && grab.x < 1180.0 && grab.y > 150.0 && grab.y < 650.0,
        "{grab}"
    );
    let drop = grab + Vec2::new(-90.0, 60.0);
    let script = format!(
        "2 key f9; 4 move {gx} {gy}; 6 down left; 7-16 move {gx} {gy} {dx} {dy}; 18 up left; \
         22 key ctrl+s",
        gx = grab.x,
        gy = grab.y,
        dx = drop.x,
        dy = drop.y
    );
    let file_arg = file.to_string_lossy().to_string();
    let report = run_for_report(
        &display,
        dir.path(),
        "edit",
        &[
            &file_arg,
            "--paused",
            "--crowd",
            "50",
            "--frames",
            "28",
            "--input-script",
            &script,
        ],
    );

    let saved = std::fs::read_to_string(&file).expect("the level file");
    let moved: Level = ron::from_str(&saved).expect("the saved file parses");
    let want = at + (ground_under(&level, drop) - ground_under(&level, grab));
    let got = moved.points_of_interest[poi].position;
    assert!(
        got.distance(want) < 0.06,
        "moved to {got}, the pointer says {want}"
    );
    assert!(got.distance(at) > 3.0, "it moved: {got}");
    // Everything else is the designer's text, byte for byte.
    let before = format!("\"chat_ne\", position: ({:?}, {:?})", at.x, at.y);
    let after = format!("\"chat_ne\", position: ({:?}, {:?})", got.x, got.y);
    assert_eq!(saved, original.replacen(&before, &after, 1));
    let backup = dir.path().join("plaza.ron.bak");
    assert_eq!(std::fs::read_to_string(backup).expect("backup"), original);
    // The drag was edit mode's, not the camera's.
    let camera = &report["camera"];
    assert_eq!(camera["orbit_target"], serde_json::json!([0.0, 1.0, 0.0]));
    assert_eq!(camera["orbit_distance"], serde_json::json!(55.0));
    let hud: Vec<&str> = report["hud"]
        .as_array()
        .expect("hud lines")
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert!(
        hud.iter()
            .any(|l| l.starts_with("EDIT MODE (F9)") && l.ends_with("[saved]")),
        "{hud:?}"
    );
}

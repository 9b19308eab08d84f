//! Edit mode in the real window, as a designer uses it: F9, drag a point of interest's handle
//! with the mouse, click a box obstacle's handle and press R, Ctrl+S; the level file on disk
//! then differs from before only in that point's two numbers and the box's angle, a backup
//! holds the file as it was, and the camera never moved.
//! Driven by `--input-script` (mouse and keys) on a copy of the plaza at 1280x720.

mod support;

use glam::{Vec2, Vec3};
use support::{find_display, project_root, run_for_report, scratch_dir};
use throng::level::{Level, Shape};
use throng::level_edit::ROTATE_STEP_DEG;
use throng::view::camera::{ground_point, CameraRig};
use throng::view::level_overlay::{project, LevelOverlay};

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

/// A box obstacle whose handle is on the screen, clear of the HUD, and the nearest handle to
/// its own pixel by a margin (a bench's seat is a few pixels off): its index and pixel.
fn lone_box(level: &Level, vp: &glam::Mat4) -> (usize, Vec2) {
    let handles: Vec<Vec2> = LevelOverlay::build(level, &[])
        .handles
        .iter()
        .filter_map(|h| project(vp, h.at, SCREEN))
        .collect();
    level
        .obstacles
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o.shape, Shape::Box { .. }))
        .filter_map(|(i, o)| {
            let c = o.shape.center();
            let p = project(vp, Vec3::new(c.x, 0.08, c.y), SCREEN)?;
            let inside = p.x > 60.0 && p.x < 1220.0 && p.y > 150.0 && p.y < 680.0;
            let alone = handles
                .iter()
                .filter(|h| h.distance(p) > 0.5)
                .all(|h| h.distance(p) > 6.0);
            (inside && alone).then_some((i, p))
        })
        .next()
        .unwrap_or_else(|| {
            let all: Vec<_> = level
                .obstacles
                .iter()
                .map(|o| {
                    (
                        o.name.clone(),
                        project(
                            vp,
                            Vec3::new(o.shape.center().x, 0.08, o.shape.center().y),
                            SCREEN,
                        ),
                    )
                })
                .collect();
            panic!("no box to turn: {all:?}")
        })
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
    let (turned, pick) = lone_box(&level, &vp);
    let script = format!(
        "2 key f9; 4 move {gx} {gy}; 6 down left; 7-16 move {gx} {gy} {dx} {dy}; 18 up left; \
         20 move {bx} {by}; 21 down left; 22 up left; 24 key r; 27 key ctrl+s",
        gx = grab.x,
        gy = grab.y,
        dx = drop.x,
        dy = drop.y,
        bx = pick.x,
        by = pick.y
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
            "32",
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
    let mut expected = original.replacen(&before, &after, 1);
    // The clicked box turned one step of R.
    let angle = |l: &Level| match l.obstacles[turned].shape {
        Shape::Box { angle_deg, .. } => angle_deg,
        Shape::Circle { .. } => unreachable!("a box"),
    };
    let (old, new) = (angle(&level), angle(&moved));
    assert_eq!(
        new,
        old + ROTATE_STEP_DEG,
        "{}",
        level.obstacles[turned].name
    );
    let line = original
        .lines()
        .find(|l| l.contains(&format!("(name: \"{}\"", level.obstacles[turned].name)))
        .expect("its line");
    let turned_line = if line.contains("angle_deg") {
        line.replacen(
            &format!("angle_deg: {old:?}"),
            &format!("angle_deg: {new:?}"),
            1,
        )
    } else {
        let (head, tail) = line.split_once("half_extents: (").expect("a box");
        let (size, rest) = tail.split_once(')').expect("closed");
        format!("{head}half_extents: ({size}), angle_deg: {new:?}){rest}")
    };
    assert_ne!(turned_line, line);
    expected = expected.replacen(line, &turned_line, 1);
    assert_eq!(saved, expected);
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

//! The alarm in the real window, raised as a player raises it (`--input-script`): K sounds it
//! at the camera's focus, the HUD's alarm box counts the people still inside and out, each
//! exit is labelled over the street with its name, people through and flow, and people leave
//! by the exits; K again gives the all-clear. The build toolbar's Alarm button raises it where
//! the next ground click is. The frame report's `evacuation` section says what the game holds.

mod support;

use glam::{Vec2, Vec3};
use support::live::{transcript, Live};
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
    support::scratch_plaza_with_camera(NORTH_STREET_CAMERA)
}

fn texts(report: &serde_json::Value) -> Vec<String> {
    report["ui"]["texts"]
        .as_array()
        .expect("the layout's texts")
        .iter()
        .filter_map(|t| t["text"].as_str().map(str::to_string))
        .collect()
}

/// A number of the report, NaN when missing (a failed comparison then names the report).
fn num(v: &serde_json::Value) -> f32 {
    v.as_f64().unwrap_or(f64::NAN) as f32
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
        exit.x > 200.0 && exit.x < 1080.0 && exit.y > 120.0 && exit.y < 600.0,
        "the north exit at {exit} in the start view"
    );
    let file = plaza.file.to_string_lossy().to_string();
    let stats = plaza.dir.path().join("alarm.json");
    let stats_arg = stats.to_string_lossy().to_string();
    // K on the second frame; the game plays until the test has seen the first person out.
    let mut game = Live::throng(
        &display,
        &[
            file.as_str(),
            "--crowd",
            "400",
            "--no-adaptive-quality",
            "--input-script",
            "2 key k",
            "--stats-out",
            &stats_arg,
        ],
    );
    let raised = game.wait_for("the alarm's note", |_, l| {
        l.contains("throng: alarm raised")
    });
    assert!(raised.contains("(0.0, -78.0)"), "at the focus: {raised}");
    let first = game.wait_for("the first out", |_, l| l.contains("throng: first out by "));
    let (status, lines) = game.finish();
    assert!(status.success(), "{status}: {}", transcript(&lines));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("the stats report"))
            .expect("JSON");
    let evac = &report["evacuation"];
    assert_eq!(evac["sounding"], true, "{evac}");
    let at = Vec2::new(num(&evac["at"][0]), num(&evac["at"][1]));
    assert!(
        at.distance(Vec2::new(0.0, -78.0)) < 0.5,
        "at the focus: {at}"
    );
    let out = evac["out"].as_u64().expect("out");
    let inside = evac["inside"].as_u64().expect("inside");
    assert_eq!(out + inside, report["people"].as_u64().expect("people"));
    assert!(out > 0, "the note said someone left: {evac}");
    let exits = evac["exits"].as_array().expect("exits");
    let through: u64 = exits.iter().filter_map(|e| e["through"].as_u64()).sum();
    assert_eq!(through, out, "every person out passed an exit: {evac}");
    // The exit the note named counts them.
    let named = exits
        .iter()
        .find(|e| e["name"].as_str().is_some_and(|n| first.contains(n)))
        .unwrap_or_else(|| panic!("{first} names an exit of {evac}"));
    assert!(named["through"].as_u64() > Some(0), "{evac}");
    // The HUD's alarm box and the north exit's label, as drawn.
    let panels = report["ui"]["panels"].as_array().expect("panels");
    assert!(
        panels.iter().any(|p| p["name"] == "evacuation"),
        "the alarm box: {panels:?}"
    );
    let shown = texts(&report);
    let hud = evac["hud"].as_array().expect("hud lines");
    assert!(hud[0].as_str().is_some_and(|l| l.starts_with("ALARM")));
    let clock = format!(
        "{} since the alarm",
        throng::ui::evacuation::clock(num(&evac["elapsed"]))
    );
    assert!(
        shown.iter().any(|t| t.contains(&clock)),
        "{clock} among {shown:?}"
    );
    let inside_line = format!("{inside} people still inside");
    assert!(
        shown.iter().any(|t| t.contains(&inside_line)),
        "{inside_line} among {shown:?}"
    );
    assert!(shown.iter().any(|t| t == "north_exit"), "{shown:?}");
    let north_through = format!("{} through", exits[0]["through"]);
    assert!(
        shown.iter().any(|t| t.starts_with(&north_through)),
        "{north_through} among {shown:?}"
    );
    // Every exit is labelled: those off the picture at its edge.
    for e in exits {
        let name = e["name"].as_str().expect("a name");
        assert!(shown.iter().any(|t| t == name), "{name} among {shown:?}");
    }
    let problems = throng::ui::layout_log::layout_problems(
        &serde_json::from_value(report["ui"].clone()).expect("the layout"),
        SCREEN,
    );
    assert!(problems.is_empty(), "{problems:?}");

    // K again: the all-clear, and the box says so.
    let args = [
        file.as_str(),
        "--crowd",
        "400",
        "--no-adaptive-quality",
        "--frames",
        "12",
        "--input-script",
        "2 key k; 8 key k",
    ];
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
    use throng::ui::build_bar::{click_rect, BarClick};
    let r = click_rect(SCREEN, BarClick::Alarm);
    let button = Vec2::new(r.x + r.w * 0.5, r.y + r.h * 0.5);
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

/// The plaza with one narrow way out (the north exit 3 m wide, the others closed), the alarm
/// raised by the level a second in and the camera over the north street: the crowd packs in
/// the street, which the pressure layer must show.
fn one_narrow_exit_plaza() -> (support::ScratchPlaza, Level) {
    let plaza = support::scratch_plaza();
    let mut text = plaza.original.clone();
    for (from, to) in [
        (
            "Line((-7.0, -100.0), (7.0, -100.0)))",
            "Line((-1.5, -100.0), (1.5, -100.0)))",
        ),
        (
            "Line((-7.0, 100.0), (7.0, 100.0)))",
            "Line((-7.0, 100.0), (7.0, 100.0)), closed: true)",
        ),
        (
            "Line((-100.0, -7.0), (-100.0, 7.0)))",
            "Line((-100.0, -7.0), (-100.0, 7.0)), closed: true)",
        ),
        (
            "Line((100.0, -7.0), (100.0, 7.0)))",
            "Line((100.0, -7.0), (100.0, 7.0)), closed: true)",
        ),
        (
            "\n    spawn_zones: [",
            "\n    alarms: [(at: 1.0, position: (0.0, -40.0))],\n    spawn_zones: [",
        ),
    ] {
        assert!(text.contains(from), "the plaza has `{from}`");
        text = text.replacen(from, to, 1);
    }
    let text = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("camera:") {
                "    camera: (mode: Orbit, target: (0.0, 1.0, -76.0), distance: 40.0, \
                 yaw_deg: 0.0, pitch_deg: 55.0, fov_deg: 50.0),"
                    .to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&plaza.file, &text).expect("write the copy");
    let level: Level = ron::from_str(&text).expect("the copy parses");
    (plaza, level)
}

#[test]
fn the_pressure_layer_paints_where_the_crowd_packed_with_a_legend() {
    let Some(display) = find_display("the_pressure_layer") else {
        return;
    };
    let (plaza, _) = one_narrow_exit_plaza();
    let file = plaza.file.to_string_lossy().to_string();
    // The same paused moment twice, with the layer and without: simulated seconds run ahead
    // before the first frame, the same seed gives the same crowd.
    let shot = |name: &str, heat: &str| {
        let png = plaza.dir.path().join(format!("{name}.png"));
        let png_arg = png.to_string_lossy().to_string();
        let args = [
            file.as_str(),
            "--crowd",
            "3000",
            "--sim-ahead",
            "60",
            "--paused",
            "--no-adaptive-quality",
            "--heat-map",
            heat,
            "--frames",
            "3",
            "--screenshot",
            png_arg.as_str(),
        ];
        let report = run_for_report(&display, plaza.dir.path(), name, &args);
        (report, support::read_png(&png))
    };
    let (report, painted) = shot("pressure", "pressure");
    let evac = &report["evacuation"];
    assert_eq!(evac["sounding"], true, "the level's alarm sounds: {evac}");
    let peak = num(&evac["worst"]["density"]);
    assert!(
        peak >= throng::view::heat_map::PRESSURE_CROWDED,
        "3,000 people at one 3 m exit for a minute crowd somewhere: {evac}"
    );
    // The legend says what the colours mean and what was recorded.
    let shown = texts(&report);
    assert!(
        shown
            .iter()
            .any(|t| t.starts_with("Heat map (F2): seconds over 4")),
        "{shown:?}"
    );
    assert!(
        shown.iter().any(|t| t.starts_with("peaked 2.5-4")),
        "{shown:?}"
    );
    let summary = if num(&evac["worst"]["seconds_over"]) > 0.0 {
        format!("worst {peak:.1} /m²")
    } else {
        format!("(peak {peak:.1} /m²)")
    };
    assert!(
        shown.iter().any(|t| t.contains(&summary)),
        "{summary} among {shown:?}"
    );
    let problems = throng::ui::layout_log::layout_problems(
        &serde_json::from_value(report["ui"].clone()).expect("the layout"),
        SCREEN,
    );
    assert!(problems.is_empty(), "{problems:?}");
    // The street is tinted: many pixels bluer (or, over the threshold, redder) than without.
    let (_, plain) = shot("plain", "off");
    assert_eq!(plain.pixels.len(), painted.pixels.len());
    // Not counting the legend's own colours.
    let legend = report["ui"]["panels"]
        .as_array()
        .expect("panels")
        .iter()
        .find(|p| p["name"] == "heat map legend")
        .map(|p| {
            let r = &p["rect"];
            (num(&r["x"]), num(&r["y"]), num(&r["w"]), num(&r["h"]))
        })
        .expect("the legend's panel");
    let width = painted.width;
    let tinted = painted
        .pixels
        .iter()
        .zip(&plain.pixels)
        .enumerate()
        .filter(|(k, _)| {
            let (x, y) = ((k % width) as f32, (k / width) as f32);
            let (lx, ly, lw, lh) = legend;
            !(x >= lx && x <= lx + lw && y >= ly && y <= ly + lh)
        })
        .filter(|(_, (p, q))| {
            let shift = |c: &[u8; 3]| i32::from(c[2]) - i32::from(c[0]);
            (shift(p) - shift(q)).abs() > 25
        })
        .count();
    assert!(
        tinted > 5_000,
        "only {tinted} pixels tinted by the pressure layer"
    );
}

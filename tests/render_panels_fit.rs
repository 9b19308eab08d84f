//! Every panel fits at the common window sizes: the real game, with every panel open, reports
//! where it drew each panel and text (`--stats-out`'s "ui"), and none of its texts runs past
//! its panel, no panel leaves the screen and no two panels overlap (`layout_problems`). A
//! second game has everything go wrong at once (a level error, a model that does not load, a
//! slowness warning) with the key help open, and its boxes must fit as well.

mod support;

use support::live::{transcript, Live, Stream};
use support::{find_display, scratch_dir, throng_command_on, Display};
use throng::ui::layout_log::{layout_problems, LayoutLog};
use throng::ui::scale::UiScale;

/// The sizes the layout is promised to fit (README: laid out for 1280x720, scaled).
const SIZES: [(u32, u32); 3] = [(960, 540), (1280, 720), (1920, 1080)];

/// Runs the game at `w`x`h` with every panel open; returns the stats report. Its own Xvfb
/// screen is as large as the largest window, so no window is cut to the screen.
fn report_at(display: &Display, dir: &std::path::Path, w: u32, h: u32) -> serde_json::Value {
    let path = dir.join(format!("ui-{w}x{h}.json"));
    let size = format!("{w}x{h}");
    let args = [
        "levels/plaza.ron",
        "--size",
        &size,
        "--paused",
        "--frames",
        "3",
        "--no-adaptive-quality",
        "--perf-panel",
        "--hero-panels",
        "--agent-overlay",
        "--level-overlay",
        "--curve-editor",
        "--cull-view",
        "--stats-out",
        path.to_str().expect("a UTF-8 scratch path"),
    ];
    let out = throng_command_on(display, "1920x1080")
        .args(args)
        .output()
        .expect("the throng binary starts");
    assert!(
        out.status.success(),
        "throng {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).expect("the stats report is written");
    serde_json::from_str(&text).expect("the stats report is JSON")
}

#[test]
fn every_panel_fits_its_text_and_the_screen_at_three_window_sizes() {
    let Some(display) = find_display("every_panel_fits_its_text_and_the_screen") else {
        return;
    };
    let dir = scratch_dir();
    let mut problems = Vec::new();
    for (w, h) in SIZES {
        let report = report_at(&display, dir.path(), w, h);
        let ui = &report["ui"];
        let screen: [f32; 2] =
            serde_json::from_value(ui["screen"].clone()).expect("ui.screen is [w, h]");
        let want = UiScale::for_window(w as f32, h as f32).size;
        assert_eq!(
            screen,
            want.to_array(),
            "the {w}x{h} window in logical units"
        );
        let log: LayoutLog = serde_json::from_value(ui.clone()).expect("ui has panels and texts");
        // Every panel asked for was drawn, with text in it.
        for name in [
            "hud",
            "performance lab",
            "hero animation",
            "hero expressions",
            "glide easing",
            "culling view legend",
        ] {
            assert!(
                log.panels.iter().any(|p| p.name == name),
                "{w}x{h}: no '{name}' panel among {:?}",
                log.panels.iter().map(|p| &p.name).collect::<Vec<_>>()
            );
            assert!(
                log.texts.iter().any(|t| t.panel.as_deref() == Some(name)),
                "{w}x{h}: no text in the '{name}' panel"
            );
        }
        problems.extend(
            layout_problems(&log, want)
                .into_iter()
                .map(|p| format!("{w}x{h}: {p}")),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A small level that warns (too many people for its free ground) and names a hero file that
/// is not a model; `broken` leaves its bounds unclosed.
fn troubled_level(broken: bool) -> String {
    let bounds = if broken {
        "(min: (-5.0, -5.0), max: (5.0, 5.0)"
    } else {
        "(min: (-5.0, -5.0), max: (5.0, 5.0))"
    };
    format!(
        r#"Level(
    name: "Crowded corner",
    bounds: {bounds},
    obstacles: [
        (name: "fountain", kind: Fountain, shape: Circle(center: (0.0, 0.0), radius: 1.0)),
    ],
    points_of_interest: [
        (name: "view", position: (0.0, 2.5), weight: 1.0, capacity: 5, activity: WatchFountain),
    ],
    paths: [
        (name: "ring", points: [(3.0, 0.0), (0.0, 3.0), (-3.0, 0.0), (0.0, -3.0)], loop: true),
    ],
    spawn_zones: [
        (name: "south", center: (0.0, 3.5), half_extents: (3.0, 1.0), path: Some("ring")),
    ],
    crowd: (
        count: 250,
        models: [(name: "casual", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "all", models: ["casual"], tints: [(0.7, 0.2, 0.2)])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 1,
    ),
    hero: (model: "broken.vrm", spawn: (3.0, 3.5)),
)
"#
    )
}

#[test]
fn help_errors_and_warnings_fit_together_at_three_window_sizes() {
    let Some(display) = find_display("help_errors_and_warnings_fit_together") else {
        return;
    };
    let dir = scratch_dir();
    std::fs::write(dir.path().join("broken.vrm"), "not a model").expect("write the bad hero");
    let level = dir.path().join("troubled.ron");
    let level_arg = level.to_str().expect("a UTF-8 scratch path").to_string();
    let mut problems = Vec::new();
    for (w, h) in SIZES {
        std::fs::write(&level, troubled_level(false)).expect("write the level");
        let stats = dir.path().join(format!("alerts-{w}x{h}.json"));
        let size = format!("{w}x{h}");
        let mut cmd = throng_command_on(&display, "1920x1080");
        cmd.args([
            &level_arg,
            "--size",
            &size,
            "--paused",
            "--perf-panel",
            "--input-script",
            "1 key f1",
            "--stats-out",
            stats.to_str().expect("a UTF-8 scratch path"),
            "--until-stdin-closes",
        ]);
        let mut game = Live::spawn(cmd);
        game.wait_for("the start line", |s, l| {
            s == Stream::Out && l.starts_with("throng: playing")
        });
        // The running game gets a broken edit: its box joins the model error and the warning.
        std::fs::write(&level, troubled_level(true)).expect("write the broken level");
        game.wait_for("the broken edit's report", |s, l| {
            s == Stream::Err && l.contains("the last good level keeps running")
        });
        let (status, lines) = game.finish();
        assert!(status.success(), "throng failed: {}", transcript(&lines));
        let text = std::fs::read_to_string(&stats).expect("the stats report is written");
        let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let log: LayoutLog =
            serde_json::from_value(report["ui"].clone()).expect("ui has panels and texts");
        for name in [
            "hud",
            "performance lab",
            "help",
            "level error",
            "model error",
            "slow warning",
        ] {
            assert!(
                log.texts.iter().any(|t| t.panel.as_deref() == Some(name)),
                "{w}x{h}: no text in a '{name}' panel among {:?}",
                log.panels.iter().map(|p| &p.name).collect::<Vec<_>>()
            );
        }
        let shown = |panel: &str| -> Vec<&str> {
            log.texts
                .iter()
                .filter(|t| t.panel.as_deref() == Some(panel))
                .map(|t| t.text.as_str())
                .collect()
        };
        // The help card lists the keys the HUD once did; the model error is said once, not
        // again as a hero warning.
        assert!(
            shown("help").iter().any(|l| l.contains("Ctrl+S save")),
            "{w}x{h}: {:?}",
            shown("help")
        );
        assert!(
            shown("model error").join(" ").contains("broken.vrm"),
            "{w}x{h}: {:?}",
            shown("model error")
        );
        assert!(
            !log.panels.iter().any(|p| p.name == "hero warnings"),
            "{w}x{h}: the hero's load error is shown twice"
        );
        let screen = UiScale::for_window(w as f32, h as f32).size;
        problems.extend(
            layout_problems(&log, screen)
                .into_iter()
                .map(|p| format!("{w}x{h}: {p}")),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

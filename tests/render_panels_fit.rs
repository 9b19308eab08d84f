//! Every panel fits at the common window sizes: the real game, with every panel open, reports
//! where it drew each panel and text (`--stats-out`'s "ui"), and none of its texts runs past
//! its panel, no panel leaves the screen and no two panels overlap (`layout_problems`).

mod support;

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

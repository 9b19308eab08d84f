//! The hero's Expressions panel (F6) at 1280x720: Godette has more slider rows than fit, so the
//! panel shows a page and the mouse wheel over it scrolls; the real game, driven by a scripted
//! wheel (`--input-script`), must reach the last row (lookLeft onward used to fall off).

mod support;

use support::{find_display, load, plaza_level, run_for_report, scratch_dir, Display};
use throng::hero::Hero;
use throng::ui::layout_log::LayoutLog;

const PANEL: &str = "hero expressions";

fn report(display: &Display, name: &str, script: Option<&str>) -> LayoutLog {
    let dir = scratch_dir();
    let mut args = vec![
        "tests/fixtures/levels/hero_lab.ron",
        "--hero-panels",
        "--paused",
        "--frames",
        "24",
    ];
    if let Some(s) = script {
        args.extend(["--input-script", s]);
    }
    let r = run_for_report(display, dir.path(), name, &args);
    serde_json::from_value(r["ui"].clone()).expect("the report's ui is a layout log")
}

/// (first, last, of) from the heading "expressions (wheel: 1-13 of 17)".
fn heading(log: &LayoutLog) -> (usize, usize, usize) {
    let t = log
        .texts
        .iter()
        .filter(|t| t.panel.as_deref() == Some(PANEL))
        .find_map(|t| t.text.strip_prefix("expressions (wheel: "))
        .unwrap_or_else(|| panic!("no scroll heading: the rows all fit?"));
    let nums: Vec<usize> = t
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums[..] {
        [a, b, n] => (a, b, n),
        _ => panic!("heading {t}"),
    }
}

fn shows_label(log: &LayoutLog, name: &str) -> bool {
    log.texts.iter().any(|t| {
        t.panel.as_deref() == Some(PANEL)
            && (t.text == name
                || t.text
                    .strip_suffix('…')
                    .is_some_and(|c| name.starts_with(c)))
    })
}

#[test]
fn the_wheel_brings_the_expressions_panels_last_row_into_view_at_720p() {
    let Some(display) = find_display("the_wheel_brings_the_expressions_panels_last_row") else {
        return;
    };
    let level = plaza_level();
    let hero = Hero::new(load("Godette_vrm_v4.vrm"), &level.hero, &level);
    let last = hero
        .expressions
        .expressions
        .last()
        .map(|e| e.name.clone())
        .expect("Godette has expressions");
    let top = report(&display, "top", None);
    let (first, shown_last, rows) = heading(&top);
    assert_eq!(first, 1);
    assert!(
        shown_last < rows,
        "{shown_last} of {rows}: nothing to scroll"
    );
    assert!(
        !shows_label(&top, &last),
        "{last} is shown before scrolling"
    );
    let panel = top
        .panels
        .iter()
        .find(|p| p.name == PANEL)
        .expect("the expressions panel is drawn");
    // The wheel over the middle of the panel's slider rows, turned down more than enough.
    let (x, y) = (
        panel.rect.x + panel.rect.w * 0.5,
        panel.rect.y + panel.rect.h * 0.75,
    );
    let mut script = format!("3 move {x:.0} {y:.0}");
    for frame in 5..15 {
        script.push_str(&format!("; {frame} wheel -1"));
    }
    let scrolled = report(&display, "scrolled", Some(&script));
    let (_, end, of) = heading(&scrolled);
    assert_eq!(
        (end, of),
        (rows, rows),
        "the last page ends at the last row"
    );
    assert!(
        shows_label(&scrolled, &last),
        "{last} is not shown after scrolling"
    );
    // And back up: the wheel the other way returns to the first row.
    script.push_str("; 16 wheel 1; 17 wheel 1; 18 wheel 1; 19 wheel 1; 20 wheel 1; 21 wheel 1");
    let back = report(&display, "back", Some(&script));
    assert_eq!(heading(&back).0, 1);
}

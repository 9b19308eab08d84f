//! The culling debug view (F7, `--cull-view`): the same frame's culling drawn from a second
//! camera. Culled people appear in red, the player's frustum in yellow, and the counts stay
//! those of the player's camera.

mod support;

use serde_json::Value;
use support::{find_display, read_png, run_for_report, scratch_dir, Rgb8Image};

fn is_culled_red(p: [u8; 3]) -> bool {
    p[0] > 150 && p[1] < 70 && p[2] < 70
}

fn is_frustum_yellow(p: [u8; 3]) -> bool {
    p[0] > 220 && p[1] > 180 && p[2] < 80
}

fn count(img: &Rgb8Image, f: impl Fn([u8; 3]) -> bool) -> usize {
    img.pixels.iter().filter(|p| f(**p)).count()
}

#[test]
fn the_culling_view_shows_culled_people_and_the_frustum_from_above() {
    let Some(display) = find_display("the_culling_view_shows_culled_people") else {
        return;
    };
    let dir = scratch_dir();
    let shoot = |name: &str, extra: &[&str]| {
        let shot = dir.path().join(format!("{name}.png"));
        let shot_arg = shot.to_string_lossy().to_string();
        let mut args = vec![
            "levels/plaza.ron",
            "--paused",
            "--crowd",
            "2000",
            "--frames",
            "4",
            "--no-adaptive-quality",
            "--screenshot",
            &shot_arg,
        ];
        args.extend_from_slice(extra);
        let report = run_for_report(&display, dir.path(), name, &args);
        (read_png(&shot), report)
    };
    let (player, player_stats) = shoot("player", &[]);
    let (view, view_stats) = shoot("cull_view", &["--cull-view"]);
    let counts = |r: &Value| ["drawn", "culled", "beyond"].map(|k| r[k].as_u64().expect("count"));
    // Culling and LOD still follow the player's camera: the same people drawn and culled.
    assert_eq!(counts(&player_stats), counts(&view_stats));
    let [drawn, culled, _] = counts(&view_stats);
    assert!(
        culled > 200 && drawn > 200,
        "drawn {drawn}, culled {culled}"
    );
    // The culled people are drawn (far mesh, red) on top of the visible ones: more triangles.
    let tris = |r: &Value| r["render"]["triangles"].as_u64().expect("triangles");
    assert!(tris(&view_stats) > tris(&player_stats));

    let red = (count(&player, is_culled_red), count(&view, is_culled_red));
    let yellow = (
        count(&player, is_frustum_yellow),
        count(&view, is_frustum_yellow),
    );
    support::say(&format!(
        "culling view render test RAN: {culled} culled; red pixels {} -> {}, frustum yellow {} -> {}",
        red.0, red.1, yellow.0, yellow.1
    ));
    // The player's own picture has some red clothing that passes `is_culled_red` too; the
    // exact sRGB output encoding (darker darks than the former 2.2 power) lets more of its
    // shaded folds pass (305 -> 391 px), so the view must add at least 1000 red pixels and
    // show over 4x the player's (it gave 1765 / 305 = 5.8x before, 1873 / 391 = 4.8x after:
    // the culled people add about 1,480 px either way).
    assert!(
        red.1 > 1000 && red.1 >= red.0 + 1000 && red.1 > red.0 * 4,
        "culled people in red: {red:?}"
    );
    assert!(
        yellow.1 > 2000 && yellow.1 > yellow.0 * 5,
        "frustum lines: {yellow:?}"
    );
}

//! Hot reload in the real game: the binary plays a level file, the test edits the file on disk,
//! and the running game applies the edit (and survives a broken one) without a restart.

mod support;

use support::live::{transcript, Live, Stream};
use support::{find_display, read_png, scratch_dir};

fn level(sky: &str) -> String {
    level_with_hero(sky, "assets/hero/Godette_vrm_v4.vrm")
}

fn level_with_hero(sky: &str, hero: &str) -> String {
    format!(
        r#"Level(
    name: "Hot reload test",
    bounds: (min: (-30.0, -30.0), max: (30.0, 30.0)),
    obstacles: [(name: "fountain", kind: Fountain, shape: Circle(center: (0.0, 0.0), radius: 4.0))],
    spawn_zones: [(name: "south", center: (0.0, 20.0), half_extents: (8.0, 4.0))],
    crowd: (
        count: 20,
        models: [(name: "casual", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "all", models: ["casual"])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 3,
    ),
    hero: (model: "{hero}", spawn: (0.0, 10.0)),
    lighting: (sky_color: {sky}),
    camera: (target: (0.0, 1.0, 0.0), distance: 30.0, yaw_deg: 0.0, pitch_deg: 4.0),
)
"#
    )
}

/// Average colour of the top tenth of the picture: the sky with this camera.
fn sky_colour(path: &std::path::Path) -> [f32; 3] {
    let img = read_png(path);
    let mut sum = [0f32; 3];
    let rows = img.height / 10;
    for y in 0..rows {
        for x in 0..img.width {
            let p = img.at(x, y);
            for c in 0..3 {
                sum[c] += p[c] as f32;
            }
        }
    }
    sum.map(|s| s / (rows * img.width) as f32)
}

#[test]
fn running_game_applies_edits_and_survives_a_broken_one() {
    let Some(display) = find_display("running_game_applies_edits_and_survives_a_broken_one") else {
        return;
    };
    let dir = scratch_dir();
    let level_path = dir.path().join("reload.ron");
    let shot = dir.path().join("reload.png");
    std::fs::write(&level_path, level("(0.8, 0.05, 0.05)")).expect("write level");
    let level_arg = level_path.to_string_lossy().to_string();
    let shot_arg = shot.to_string_lossy().to_string();
    // Each edit is written only after the game has answered the one before, so however long
    // its frames take, it sees every version of the file.
    let mut game = Live::throng(
        &display,
        &[&level_arg, "--size", "640x360", "--screenshot", &shot_arg],
    );
    game.wait_for("the start line", |s, l| {
        s == Stream::Out && l.starts_with("throng: playing")
    });
    std::fs::write(&level_path, level("(0.1, 0.7,")).expect("write broken level");
    let broken = game.wait_for("the broken edit's report", |s, l| {
        s == Stream::Err && l.contains("the last good level keeps running")
    });
    assert!(
        broken.starts_with(&format!("throng: {level_arg}:")),
        "the broken edit was not reported with its file and position: {broken}"
    );
    // The fixed edit also makes a skinned glTF with its own clips the hero.
    let designer_bytes = level_with_hero("(0.05, 0.6, 0.08)", "assets/characters/Casual_Male.gltf");
    std::fs::write(&level_path, &designer_bytes).expect("write fixed level");
    game.wait_for("the reload", |s, l| {
        s == Stream::Out && l.starts_with("throng: reloaded")
    });
    game.wait_for("the hero swap", |s, l| {
        s == Stream::Err && l == "throng: hero: now assets/characters/Casual_Male.gltf"
    });
    let (status, lines) = game.finish();
    assert!(
        status.success(),
        "throng failed: {status}\n{}",
        transcript(&lines)
    );
    let reloaded = lines
        .iter()
        .filter(|(_, l)| l.starts_with("throng: reloaded"))
        .count();
    assert_eq!(reloaded, 1, "{}", transcript(&lines));
    let broken_reports = lines
        .iter()
        .filter(|(_, l)| l.contains("the last good level keeps running"))
        .count();
    assert_eq!(broken_reports, 1, "{}", transcript(&lines));
    // The game never writes to the designer's file.
    assert_eq!(
        std::fs::read_to_string(&level_path).expect("read"),
        designer_bytes
    );
    let [r, g, b] = sky_colour(&shot);
    assert!(
        g > r + 60.0 && g > b + 40.0,
        "sky is not the edited green: {r} {g} {b}"
    );
    support::say(&format!(
        "hot reload render test RAN: broken edit reported, fixed edit applied, sky now ({r:.0}, {g:.0}, {b:.0})"
    ));
}

//! The real game with the hero (Xvfb when there is no screen): the follow camera frames it,
//! the panels draw into the screenshot, and a clean model reports no warnings. The pixel-exact
//! checks of skinning, outline, shadow and toon bands are in `render_hero_gpu.rs`.

mod support;

use support::{find_display, read_png, run_throng};

fn is_hair_blue(p: [u8; 3]) -> bool {
    let [r, g, b] = p;
    b as i32 > r as i32 + 70 && b as i32 > g as i32 + 10
}

#[test]
fn hero_lab_shows_the_hero_in_the_middle_and_both_panels() {
    let Some(display) = find_display("hero_lab_shows_the_hero_in_the_middle_and_both_panels")
    else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = dir.path().join("hero.png");
    let shot_arg = shot.to_string_lossy().to_string();
    let out = run_throng(
        &display,
        &[
            "tests/fixtures/levels/hero_lab.ron",
            "--hero-panels",
            "--frames",
            "20",
            "--screenshot",
            &shot_arg,
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "throng failed: {}\n{stderr}",
        out.status
    );
    assert!(
        !stderr.contains("hero"),
        "Godette should load without warnings:\n{stderr}"
    );
    let img = read_png(&shot);
    let (w, h) = (img.width, img.height);
    // Godette's blue hair around the middle of the screen, left of the panels.
    let mut hair = 0;
    for y in h / 4..h * 3 / 4 {
        for x in w * 3 / 8..w * 5 / 8 {
            hair += is_hair_blue(img.at(x, y)) as usize;
        }
    }
    assert!(hair > 800, "only {hair} hair-blue pixels in the middle");
    // The panels darken the right side: the sky behind the Animation panel is no longer light.
    let [r, g, b] = img.at(w - 60, 60);
    assert!(
        r < 140 && g < 140 && b < 140,
        "no panel at the top right: {:?}",
        [r, g, b]
    );
    let [r, g, b] = img.at(w - 300, h - 60);
    assert!(
        r < 140 && g < 140 && b < 140,
        "no panel at the bottom right: {:?}",
        [r, g, b]
    );
    support::say(&format!(
        "hero render test RAN: {hair} hair pixels in the middle"
    ));
}

#[test]
fn plaza_follow_camera_shows_the_hero_among_the_crowd() {
    let Some(display) = find_display("plaza_follow_camera_shows_the_hero_among_the_crowd") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = dir.path().join("plaza_hero.png");
    let shot_arg = shot.to_string_lossy().to_string();
    let out = run_throng(
        &display,
        &[
            "levels/plaza.ron",
            "--follow",
            "--frames",
            "20",
            "--screenshot",
            &shot_arg,
        ],
    );
    assert!(
        out.status.success(),
        "throng failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let img = read_png(&shot);
    let (w, h) = (img.width, img.height);
    let mut hair = 0;
    for y in h / 4..h * 3 / 4 {
        for x in w / 3..w * 2 / 3 {
            hair += is_hair_blue(img.at(x, y)) as usize;
        }
    }
    assert!(hair > 300, "only {hair} hair-blue pixels near the middle");
    let saturated = img
        .pixels
        .iter()
        .filter(|[r, g, b]| *r.max(g).max(b) as i32 - *r.min(g).min(b) as i32 > 70)
        .count();
    assert!(
        saturated > 5000,
        "only {saturated} saturated pixels: no crowd?"
    );
    support::say(&format!(
        "plaza follow test RAN: {hair} hair pixels, {saturated} saturated"
    ));
}

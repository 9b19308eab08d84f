//! Runs the real game on the default level in a real GL window (Xvfb when there is no screen),
//! saves a screenshot and checks from its pixels that the plaza is there.

mod support;

use std::collections::{HashMap, HashSet};
use support::{find_display, read_png, run_throng};

#[test]
fn default_plaza_renders_ground_fountain_and_people() {
    let Some(display) = find_display("default_plaza_renders_ground_fountain_and_people") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = dir.path().join("plaza.png");
    let shot_arg = shot.to_string_lossy().to_string();
    let out = run_throng(
        &display,
        &[
            "levels/plaza.ron",
            "--frames",
            "20",
            "--size",
            "1280x720",
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
    assert_eq!((img.width, img.height), (1280, 720));

    // Not blank, not one colour: a lit 3D scene has many distinct colours.
    let distinct: HashSet<[u8; 3]> = img.pixels.iter().copied().collect();
    assert!(
        distinct.len() > 500,
        "only {} distinct colours",
        distinct.len()
    );
    let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
    for p in &img.pixels {
        *counts.entry(*p).or_default() += 1;
    }
    let most = counts.values().max().copied().unwrap_or(0);
    let dominant_share = most as f64 / img.pixels.len() as f64;
    assert!(
        dominant_share < 0.5,
        "one colour covers {:.0}% of the frame",
        dominant_share * 100.0
    );

    // The camera starts on the fountain: water (blue clearly above red) fills part of the centre.
    let (cx, cy) = (img.width / 2, img.height / 2);
    let mut water = 0;
    let mut centre = 0;
    for y in cy - 120..cy + 120 {
        for x in cx - 160..cx + 160 {
            let [r, g, b] = img.at(x, y);
            centre += 1;
            if b as i32 > r as i32 + 40 && b as i32 > g as i32 {
                water += 1;
            }
        }
    }
    let water_share = water as f64 / centre as f64;
    assert!(
        water_share > 0.05,
        "fountain water covers only {:.1}% of the centre",
        water_share * 100.0
    );

    // The paving is a checker: along a row in the lower third the brightness keeps alternating
    // between two tones, not a flat fill.
    let row = img.height * 3 / 4;
    let luma: Vec<i32> = (0..img.width)
        .map(|x| {
            let [r, g, b] = img.at(x, row);
            (r as i32 * 3 + g as i32 * 6 + b as i32) / 10
        })
        .collect();
    let mut transitions = 0;
    for w in luma.windows(2) {
        if (w[0] - w[1]).abs() > 12 {
            transitions += 1;
        }
    }
    assert!(
        transitions >= 10,
        "only {transitions} brightness edges along row {row}"
    );

    // People: saturated clothing colours (far from the grey paving) are on screen.
    let saturated = img
        .pixels
        .iter()
        .filter(|[r, g, b]| {
            let max = *r.max(g).max(b) as i32;
            let min = *r.min(g).min(b) as i32;
            max - min > 70
        })
        .count();
    assert!(
        saturated > 2000,
        "only {saturated} saturated pixels: no crowd?"
    );

    support::say(&format!(
        "render smoke test RAN: 1280x720 screenshot, {} colours, dominant {:.0}%, water {:.1}% of centre, \
         {transitions} paving edges, {saturated} saturated pixels",
        distinct.len(),
        dominant_share * 100.0,
        water_share * 100.0
    ));
}

//! The web build in a browser (issue #21): builds the web folder (`scripts/web-build.sh`),
//! serves it on localhost and opens it in headless Chromium through chromedriver
//! (`scripts/web_check.py`), then checks that the plaza was drawn with people in it and that
//! the browser console has no errors. Skipped, with a loud line, where the wasm target,
//! python3, Chromium or chromedriver is missing (CI installs them: `.ci/run`).

use std::path::Path;
use std::process::Command;

fn have(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn skip(why: &str) {
    eprintln!("\n!!!!! SKIPPED web_browser: {why} !!!!!\n");
}

#[test]
fn the_plaza_with_people_is_drawn_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wasm_target = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"));
    if !wasm_target {
        return skip("the wasm32-unknown-unknown target is not installed");
    }
    if !have("python3", "--version") {
        return skip("python3 is not installed");
    }
    if !have("chromium", "--version") || !have("chromedriver", "--version") {
        return skip(
            "chromium or chromedriver is not installed (apt-get install chromium chromium-driver)",
        );
    }
    let out = root.join("target/web-test");
    let build = Command::new("bash")
        .arg(root.join("scripts/web-build.sh"))
        .arg(&out)
        .current_dir(root)
        .status()
        .expect("run scripts/web-build.sh");
    assert!(build.success(), "scripts/web-build.sh failed");

    let shot = out.join("shot.png");
    // A small crowd keeps the software renderer's frames short enough for a test.
    let check = Command::new("python3")
        .arg(root.join("scripts/web_check.py"))
        .arg(&out)
        .args(["--shot", shot.to_str().expect("UTF-8 path")])
        // Two frames at least, however long they take; the timeout only ends a stuck page.
        .args(["--crowd", "300", "--seconds", "3", "--min-frames", "2"])
        .args(["--timeout", "900"])
        .args(["--hash", "300", "7", "120"])
        .output()
        .expect("run scripts/web_check.py");
    let report_text = String::from_utf8_lossy(&check.stdout).to_string();
    if check.status.code() == Some(3) {
        return skip("the browser could not be started");
    }
    let report: serde_json::Value = serde_json::from_str(&report_text).unwrap_or_else(|e| {
        panic!(
            "web_check.py printed no report ({e}):\n{report_text}\n{}",
            String::from_utf8_lossy(&check.stderr)
        )
    });
    eprintln!("web_check report: {report_text}");

    let errors: Vec<&serde_json::Value> = report["console"]
        .as_array()
        .expect("console messages")
        .iter()
        .filter(|m| m["level"] == "SEVERE" || m["level"] == "WARNING")
        .collect();
    assert!(errors.is_empty(), "browser console errors: {errors:#?}");
    assert_eq!(report["page_error"], serde_json::Value::Null);
    assert!(
        report["frames"].as_u64().unwrap_or(0) >= 2,
        "fewer than two frames drawn"
    );
    assert_eq!(
        report["people"].as_u64(),
        Some(300),
        "the crowd size asked for"
    );
    // The renderer's own count of people in the last frame (culled ones excluded).
    assert!(
        report["drawn"].as_u64().unwrap_or(0) > 50,
        "too few people drawn"
    );
    assert_eq!(report["viewport"], serde_json::json!([1280, 720]));

    // The same crowd, seed and steps give the desktop's determinism hash in the browser
    // (single-threaded there, the browser's own maths).
    let level_path = root.join("levels/plaza.ron");
    let level = throng::level::load_level(&level_path, root).expect("plaza loads");
    let desktop = throng::sim_hash::crowd_hash(&level, 300, 7, 120);
    assert_eq!(report["sim_hash"], serde_json::json!(desktop.to_string()));

    // From the picture: drawn at 1280x720 and not blank (the plaza's paving, trees,
    // fountain and people give hundreds of colours; a blank or failed page a handful).
    let decoder = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot"));
    let mut reader = decoder.read_info().expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).expect("PNG pixels");
    assert_eq!((info.width, info.height), (1280, 720));
    let channels = info.color_type.samples();
    let mut colours = std::collections::HashSet::new();
    let mut saturated = 0usize;
    for px in pixels[..info.buffer_size()].chunks_exact(channels) {
        let (r, g, b) = (px[0] as i32, px[1] as i32, px[2] as i32);
        colours.insert((r >> 3, g >> 3, b >> 3));
        if r.max(g).max(b) - r.min(g).min(b) > 60 {
            saturated += 1;
        }
    }
    assert!(
        colours.len() > 500,
        "a near-blank picture: {} colours",
        colours.len()
    );
    assert!(
        saturated > 2000,
        "too few coloured pixels for a crowd: {saturated}"
    );
}

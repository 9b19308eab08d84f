//! Screenshots as files, from the real binary in a window (Xvfb when there is no screen): PNG and
//! JPEG show the same frame the right way up, and a screenshot that cannot be written is one
//! error line, never a panic, and leaves no partial file.

mod support;

use support::{find_display, read_jpeg, read_png, run_throng};

#[test]
fn png_and_jpeg_screenshots_show_the_same_frame() {
    let Some(display) = find_display("png_and_jpeg_screenshots_show_the_same_frame") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = |name: &str| {
        let path = dir.path().join(name);
        let arg = path.to_string_lossy().to_string();
        let out = run_throng(
            &display,
            &[
                "levels/plaza.ron",
                "--frames",
                "3",
                "--no-adaptive-quality",
                "--paused",
                "--crowd",
                "0",
                "--size",
                "640x360",
                "--screenshot",
                &arg,
            ],
        );
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {log}");
        path
    };
    let png = read_png(&shot("frame.png"));
    let jpeg = read_jpeg(&shot("frame.JPG"));
    assert_eq!((jpeg.width, jpeg.height), (640, 360));
    assert_eq!((png.width, png.height), (640, 360));
    // JPEG is lossy: near everywhere, and far nowhere but on a few hard edges.
    let total: i64 = png
        .pixels
        .iter()
        .zip(&jpeg.pixels)
        .map(|(p, q)| {
            (0..3)
                .map(|c| (p[c] as i64 - q[c] as i64).abs())
                .sum::<i64>()
        })
        .sum();
    let mean = total as f64 / (png.pixels.len() * 3) as f64;
    assert!(mean < 4.0, "mean difference {mean:.2} levels");
    let far = support::differing_pixels(&png, &jpeg, 48);
    assert!(
        far * 100 < png.pixels.len(),
        "{far} pixels differ by more than 48"
    );
    // Upside down, the sky (top rows) and the paving (bottom rows) would swap places: the top
    // row must be the PNG's top row in the JPEG too, and the two halves must differ.
    let row_mean = |img: &support::Rgb8Image, y: usize| {
        (0..img.width)
            .map(|x| img.at(x, y).iter().map(|&v| v as f64).sum::<f64>())
            .sum::<f64>()
            / img.width as f64
    };
    let (top, bottom) = (row_mean(&png, 2), row_mean(&png, 357));
    assert!(
        (top - bottom).abs() > 30.0,
        "top {top:.0}, bottom {bottom:.0}"
    );
    assert!((row_mean(&jpeg, 2) - top).abs() < 12.0);
    assert!((row_mean(&jpeg, 357) - bottom).abs() < 12.0);
}

#[test]
fn a_folder_named_like_the_screenshot_is_one_error_line() {
    let Some(display) = find_display("a_folder_named_like_the_screenshot_is_one_error_line") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let in_the_way = dir.path().join("x.png");
    std::fs::create_dir(&in_the_way).expect("mkdir");
    let arg = in_the_way.to_string_lossy().to_string();
    // Play checks before its window opens.
    let out = run_throng(
        &display,
        &["levels/plaza.ron", "--frames", "1", "--screenshot", &arg],
    );
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        format!("throng: --screenshot {arg}: that is a folder; allowed: a file name in an existing folder")
    );

    // The GL bench saves the last frame of each run inside the window loop: a folder at that
    // name was a panic inside the image encoder's unwrap.
    let out_dir = dir.path().join("bench");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let blocked = out_dir.join("pipeline_20.png");
    std::fs::create_dir(&blocked).expect("mkdir");
    let out_arg = out_dir.to_string_lossy().to_string();
    let out = run_throng(
        &display,
        &[
            "bench", "--sizes", "20", "--frames", "2", "--warmup", "0", "--modes", "pipeline",
            "--size", "320x240", "--out", &out_arg,
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&format!(
            "throng bench: screenshot: cannot write {}: a folder has that name",
            blocked.display()
        )),
        "{err}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&out_dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["pipeline_20.png"], "no temporary file is left");
}

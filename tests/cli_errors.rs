//! The binary's start-up errors: one clear line and a non-zero exit, before any window opens.

mod support;

use std::process::Command;

fn throng(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(support::project_root())
        // No display: these must fail before a window would be needed.
        .env_remove("DISPLAY")
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).trim().to_string(),
    )
}

#[test]
fn missing_level_file_is_one_line_naming_the_file() {
    let (code, err) = throng(&["levels/no_such_level.ron"]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("throng: levels/no_such_level.ron:"),
        "{err}"
    );
}

#[test]
fn broken_level_reports_file_line_and_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("broken.ron");
    std::fs::write(
        &path,
        "Level(\n    name: \"x\",\n    bounds: (min: (0.0, 0.0), max: ,\n)\n",
    )
    .expect("write");
    let label = path.to_string_lossy().to_string();
    let (code, err) = throng(&[&label]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("throng: {label}:3:")), "{err}");
}

#[test]
fn bad_command_line_values_are_rejected_with_what_is_allowed() {
    let (code, err) = throng(&["--crowd", "2000000"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("2000000 is above the maximum 1000000"),
        "{err}"
    );
    let (code, err) = throng(&["--size", "10x10"]);
    assert_eq!(code, 2);
    assert!(err.contains("allowed: WIDTHxHEIGHT"), "{err}");
    let (code, err) = throng(&["--frames", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("allowed: 1 or more"), "{err}");
    let (code, err) = throng(&["--screenshot", "/no/such/dir/x.png", "--frames", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn a_crowd_larger_than_the_level_holds_is_refused_before_any_window() {
    let (code, err) = throng(&["--crowd", "1000000"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("throng: --crowd 1000000: `Central Plaza` holds at most ")
            && err.ends_with("people (5 per m² of free ground)"),
        "{err}"
    );
    let (code, err) = throng(&["bench", "--headless", "--sizes", "100,1000000"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--sizes 1000000: `Central Plaza` holds at most"),
        "{err}"
    );
}

#[test]
fn numbers_out_of_range_name_the_range_and_never_suggest_a_double_dash() {
    for (args, expected) in [
        (
            vec!["--seed", "-1"],
            "`-1` is not a seed; seeds are whole numbers 0 to 18446744073709551615",
        ),
        (
            vec!["--frames", "99999999999999999999"],
            "`99999999999999999999` is out of range; allowed: 1 to 18446744073709551615",
        ),
        (
            vec!["--seconds", "-1"],
            "`-1` is not a number of seconds; allowed: more than 0, at most 86400",
        ),
        (
            vec!["--max-uniform-vectors", "-5"],
            "`-5` is out of range; allowed: 10 to 65536 (256 is the GL 3.3 minimum)",
        ),
        (
            vec!["--frame-budget", "-5"],
            "`-5` is not a frame time in milliseconds; allowed: 4 to 1000 (33.3 is 30 fps)",
        ),
        (
            vec!["--frame-budget", "nan"],
            "`nan` is not a frame time in milliseconds; allowed: 4 to 1000",
        ),
        (
            vec!["--slow-frame-ms", "20000"],
            "`20000` is out of range; allowed: 0 to 10000",
        ),
        (
            vec!["bench", "--seed", "-1"],
            "`-1` is not a seed; seeds are whole numbers 0 to 18446744073709551615",
        ),
        (
            vec!["bench", "--frames", "-5"],
            "`-5` is out of range; allowed: 1 to 100000",
        ),
        (
            vec!["bench", "--warmup", "99999999999999999999"],
            "`99999999999999999999` is out of range; allowed: 0 to 10000",
        ),
    ] {
        let (code, err) = throng(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("-- -"), "{args:?}: {err}");
    }
}

#[test]
fn a_device_or_fifo_as_level_is_one_line_at_once() {
    let (code, err) = throng(&["/dev/zero"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "throng: /dev/zero: cannot read: it is a character device, not a regular file; only regular files are read"
    );
}

fn throng_on_display(display: Option<&str>, args: &[&str]) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_throng"));
    cmd.args(args).current_dir(support::project_root());
    match display {
        Some(d) => cmd.env("DISPLAY", d),
        None => cmd.env_remove("DISPLAY"),
    };
    let out = cmd.output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).trim().to_string(),
    )
}

#[test]
fn no_display_is_one_line_not_a_panic() {
    let unset = "no display: DISPLAY is not set (run under xvfb-run or set DISPLAY)";
    let unreachable = "no display: cannot open the X display \":987\": no X server answers \
                       there (run under xvfb-run or set DISPLAY)";
    let bench = [
        "bench", "--sizes", "10", "--frames", "1", "--modes", "pipeline",
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let out_arg = dir.path().join("bench-out").to_string_lossy().to_string();
    let bench: Vec<&str> = bench.into_iter().chain(["--out", &out_arg]).collect();
    for (display, args, expect) in [
        (None, vec!["--frames", "1"], format!("throng: {unset}")),
        (
            Some(":987"),
            vec!["--frames", "1"],
            format!("throng: {unreachable}"),
        ),
        (None, bench.clone(), format!("throng bench: {unset}")),
        (
            Some(":987"),
            bench.clone(),
            format!("throng bench: {unreachable}"),
        ),
    ] {
        let (code, err) = throng_on_display(display, &args);
        assert_eq!(code, 1, "{display:?} {args:?}: {err}");
        assert_eq!(err, expect, "{display:?} {args:?}");
    }
    // Refused before the output folder is made.
    assert!(!dir.path().join("bench-out").exists());
}

#[test]
fn an_unwritable_stats_out_fails_before_any_frame() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").expect("write");
    let under_file = file.join("s.json").to_string_lossy().to_string();
    let folder = dir.path().to_string_lossy().to_string();
    for (path, expect) in [
        (
            "/missing/s.json".to_string(),
            "throng: --stats-out /missing/s.json: the folder /missing does not exist".to_string(),
        ),
        (
            under_file.clone(),
            format!(
                "throng: --stats-out {under_file}: the folder {} is not a folder",
                file.display()
            ),
        ),
        (
            folder.clone(),
            format!(
                "throng: --stats-out {folder}: that is a folder; allowed: a file name in an \
                 existing folder"
            ),
        ),
    ] {
        // Many frames: before the check, the error came after all of them (or, without a
        // display, never, as a panic). With no display no frame can run, so the exact message
        // and status prove the check came first; no clock is needed (or load-proof).
        let (code, err) = throng(&["--frames", "100000", "--stats-out", &path]);
        assert_eq!(code, 2, "{path}: {err}");
        assert_eq!(err, expect);
    }
}

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
        "throng: /dev/zero:1:1: cannot read the level file: it is a character device, not a regular file; only regular files are read"
    );
}

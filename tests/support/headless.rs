//! Running the `throng` binary without a window (the headless commands: record, evacuate,
//! validate...), from the project root, and what it said.

use std::process::Command;

/// A finished run: its exit status and its output, trailing whitespace trimmed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `throng ARGS` from the project root with no display.
pub fn throng(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(super::project_root())
        .env_remove("DISPLAY")
        .output()
        .expect("binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).trim_end().to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
    }
}

/// Runs `throng ARGS` as `throng` does and fails the test, with both outputs, unless it
/// succeeded.
pub fn throng_ok(args: &[&str]) -> Run {
    let run = throng(args);
    assert!(run.code == 0, "{}\n{}", run.stdout, run.stderr);
    run
}

/// The Python that has PedPy: `THRONG_PEDPY_PYTHON`, else a `python3` that can import it.
/// Without one it prints a loud skip line and gives None, or fails the test when `CI` is set.
pub fn pedpy_python() -> Option<String> {
    if let Ok(p) = std::env::var("THRONG_PEDPY_PYTHON") {
        return Some(p);
    }
    let found = Command::new("python3")
        .args(["-c", "import pedpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if found {
        return Some("python3".to_string());
    }
    if std::env::var_os("CI").is_some() {
        panic!("PedPy not installed (set THRONG_PEDPY_PYTHON or pip install pedpy), and CI is set");
    }
    eprintln!("!!!!! PedPy not installed: skipped !!!!!");
    println!("!!!!! PedPy not installed: skipped !!!!!");
    None
}

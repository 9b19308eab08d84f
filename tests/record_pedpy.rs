//! PedPy round trip: a recording in both formats read back by PedPy 1.5
//! (`tests/pedpy/read_trajectory.py`), which must see the people, frames and frame rate Throng
//! wrote, and a mean classic density over a measurement area equal to the one counted here from
//! the written positions (`measure::geometry`), within 1e-6 relative.
//!
//! Python comes from `THRONG_PEDPY_PYTHON`, else `python3` if it can `import pedpy`. Without
//! PedPy the test prints a loud skip line and passes, unless `CI` is set: then it fails.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec2;
use throng::polygon::{polygon_area, polygon_contains};

const LEVEL: &str = "tests/fixtures/levels/minimal.ron";
/// The measurement area: a 16 x 12 m rectangle over the spawn zone and the ring path's south.
const AREA: [(f32, f32); 4] = [(-8.0, 4.0), (8.0, 4.0), (8.0, 16.0), (-8.0, 16.0)];

fn python() -> Option<String> {
    if let Ok(p) = std::env::var("THRONG_PEDPY_PYTHON") {
        return Some(p);
    }
    let ok = Command::new("python3")
        .args(["-c", "import pedpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then(|| "python3".to_string())
}

fn record(out: &Path, every: &str) {
    let out_s = out.to_string_lossy().to_string();
    let run = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args([
            "record",
            LEVEL,
            "--seconds",
            "3",
            "--people",
            "60",
            "--every",
            every,
            "--out",
            &out_s,
            "--threads",
            "2",
        ])
        .current_dir(support::project_root())
        .env_remove("DISPLAY")
        .output()
        .expect("throng runs");
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// (frames, people, mean density in AREA) counted from the SQLite rows.
fn counted(db: &Path) -> (usize, usize, f64) {
    let db = rusqlite::Connection::open(db).expect("open");
    let rows: Vec<(i64, i64, f64, f64)> = db
        .prepare("SELECT frame, id, pos_x, pos_y FROM trajectory_data")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let area: Vec<Vec2> = AREA.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    let frames: std::collections::BTreeSet<i64> = rows.iter().map(|r| r.0).collect();
    let people: std::collections::BTreeSet<i64> = rows.iter().map(|r| r.1).collect();
    let inside = rows
        .iter()
        .filter(|r| polygon_contains(&area, Vec2::new(r.2 as f32, r.3 as f32)))
        .count();
    let span = (frames.last().unwrap() - frames.first().unwrap() + 1) as f64;
    let density = inside as f64 / polygon_area(&area) as f64 / span;
    (frames.len(), people.len(), density)
}

fn pedpy(python: &str, file: &Path) -> serde_json::Value {
    let script = support::project_root().join("tests/pedpy/read_trajectory.py");
    let area = AREA
        .iter()
        .map(|(x, y)| format!("{x},{y}"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new(python)
        .arg(&script)
        .arg(file)
        .arg(area)
        .output()
        .unwrap_or_else(|e| panic!("{python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{python} {}: {stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("`{last}`: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1e-12)
}

#[test]
fn pedpy_reads_both_formats_as_throng_wrote_them() {
    let Some(python) = python() else {
        if std::env::var_os("CI").is_some() {
            panic!(
                "PedPy not installed (set THRONG_PEDPY_PYTHON or pip install pedpy), and CI is set"
            );
        }
        eprintln!("!!!!! PedPy not installed: skipped !!!!!");
        println!("!!!!! PedPy not installed: skipped !!!!!");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite: PathBuf = dir.path().join("walk.sqlite");
    let text: PathBuf = dir.path().join("walk.txt");
    // 3 s at 60 Hz, every 3rd step: 61 frames at 20 fps.
    record(&sqlite, "3");
    record(&text, "3");
    let (frames, people, density) = counted(&sqlite);
    assert_eq!((frames, people), (61, 60));
    assert!(density > 0.0, "the area should hold someone");
    for file in [&sqlite, &text] {
        let got = pedpy(&python, file);
        let name = file.display();
        assert_eq!(got["frames"].as_u64(), Some(frames as u64), "{name}: {got}");
        assert_eq!(got["people"].as_u64(), Some(people as u64), "{name}: {got}");
        assert_eq!(got["frame_rate"].as_f64(), Some(20.0), "{name}: {got}");
        let d = got["mean_density"].as_f64().expect("density");
        assert!(close(d, density), "{name}: PedPy {d}, Throng {density}");
    }
    // The walkable area: the 40 x 40 m bounds less the fountain (a 32-gon of radius 3) and
    // the bench (3 x 0.7 m).
    let walkable = pedpy(&python, &sqlite)["walkable_area"]
        .as_f64()
        .expect("walkable area");
    let fountain = 0.5 * 32.0 * 9.0 * (std::f64::consts::TAU / 32.0).sin();
    let expected = 1600.0 - fountain - 3.0 * 0.7;
    assert!(
        (walkable - expected).abs() < 1e-3,
        "{walkable} against {expected}"
    );
}

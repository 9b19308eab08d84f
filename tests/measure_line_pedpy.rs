//! `measure::line` against PedPy 1.5 (`tests/pedpy/line_frame.py`): one frame of people walking
//! both ways in a corridor, read at three lines across it; density, speed and flow must be
//! PedPy's within 1e-4 relative (f32 against f64, and the Voronoi cells built two ways).
//!
//! Python comes from `THRONG_PEDPY_PYTHON`, else `python3` if it can `import pedpy`. Without
//! PedPy the test prints a loud skip line and passes, unless `CI` is set: then it fails.

mod support;

use std::process::Command;

use glam::Vec2;
use throng::measure::line::{line_frame, Line};
use throng::measure::voronoi::cells;

/// Sixty people at least 0.45 m apart in an 11 x 4 m corridor, each walking +x or −x at up to
/// 1.4 m/s with a little sideways drift.
fn frame() -> (Vec<Vec2>, Vec<Vec2>) {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut pos: Vec<Vec2> = Vec::new();
    while pos.len() < 60 {
        let p = Vec2::new(rng.f32() * 10.0 - 5.0, rng.f32() * 4.0 - 2.0);
        if pos.iter().all(|q| q.distance(p) > 0.45) {
            pos.push(p);
        }
    }
    let vel = pos
        .iter()
        .map(|_| Vec2::new(rng.f32() * 2.8 - 1.4, rng.f32() * 0.6 - 0.3))
        .collect();
    (pos, vel)
}

#[test]
fn line_density_speed_and_flow_are_pedpys() {
    let Some(python) = support::headless::pedpy_python() else {
        return;
    };
    let (pos, vel) = frame();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("frame.txt");
    let text: String = pos
        .iter()
        .zip(&vel)
        .map(|(p, v)| format!("{} {} {} {}\n", p.x, p.y, v.x, v.y))
        .collect();
    std::fs::write(&file, text).expect("write frame");
    let walkable = [
        Vec2::new(-5.5, -2.0),
        Vec2::new(5.5, -2.0),
        Vec2::new(5.5, 2.0),
        Vec2::new(-5.5, 2.0),
    ];
    // PedPy's lines, each from A to B; its normal turns A→B clockwise, Throng's
    // counter-clockwise, so Throng reads each as B→A to face the same way.
    let lines = [
        (Vec2::new(0.3, 2.0), Vec2::new(0.3, -2.0)),
        (Vec2::new(-2.1, -2.0), Vec2::new(-2.1, 2.0)),
        (Vec2::new(3.7, 2.0), Vec2::new(3.2, -2.0)),
    ];
    let mut cmd = Command::new(&python);
    cmd.arg(support::project_root().join("tests/pedpy/line_frame.py"))
        .arg(&file)
        .arg(
            walkable
                .iter()
                .map(|p| format!("{},{}", p.x, p.y))
                .collect::<Vec<_>>()
                .join(" "),
        );
    for (a, b) in &lines {
        cmd.arg(format!("{},{},{},{}", a.x, a.y, b.x, b.y));
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    let got: serde_json::Value =
        serde_json::from_str(last).unwrap_or_else(|e| panic!("`{last}`: {e}"));
    let all = cells(&pos, pos.len(), Some(&walkable));
    for (k, (a, b)) in lines.iter().enumerate() {
        let line = Line::new(*b, *a);
        let species: Vec<i8> = vel.iter().map(|&v| line.species(v)).collect();
        let ours = line_frame(&line, &all, &vel, &species);
        assert!(ours.covered > 0.5, "line {k} meets too few cells: {ours:?}");
        for (key, value) in [
            ("density", ours.density()),
            ("speed", ours.speed()),
            ("flow", ours.flow()),
        ] {
            let theirs = got[k][key].as_f64().expect("a number") as f32;
            assert!(
                (value - theirs).abs() <= 1e-4 * theirs.abs().max(1e-3),
                "line {k} {key}: Throng {value}, PedPy {theirs}"
            );
        }
    }
}

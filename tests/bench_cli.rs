//! `throng bench` end to end: bad values refused before any work, a headless run's files, and
//! the instanced and one-draw-per-person pictures agreeing.

mod support;

use std::process::Command;

use support::{find_display, project_root, read_png, run_throng};

fn throng(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(project_root())
        .env_remove("DISPLAY")
        .output()
        .expect("binary runs")
}

#[test]
fn bad_values_are_refused_before_any_work() {
    for (args, expect) in [
        (vec!["bench", "--sizes", "0"], "0 is out of range"),
        (
            vec!["bench", "--sizes", "-5"],
            "allowed: comma-separated sizes",
        ),
        (vec!["bench", "--sizes", "99999999"], "out of range"),
        (
            vec!["bench", "--modes", "pipeline,turbo"],
            "unknown mode `turbo`; allowed: pipeline, instanced, naive",
        ),
        (vec!["bench", "--frames", "0"], "--frames"),
    ] {
        let out = throng(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").expect("write");
    let out_arg = file.join("out").to_string_lossy().to_string();
    let out = throng(&["bench", "--headless", "--out", &out_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot create the folder"));

    // The output folder is created only once everything else is known to be fine.
    let nested = dir.path().join("a").join("b").to_string_lossy().to_string();
    let out = throng(&[
        "bench",
        "--headless",
        "--level",
        "levels/no_such_level.ron",
        "--out",
        &nested,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("throng bench: levels/no_such_level.ron:"),
        "{err}"
    );
    assert!(
        !dir.path().join("a").exists(),
        "no folder before the level is valid"
    );
}

#[test]
fn headless_run_measures_the_simulation_once_per_size_with_its_phases() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().to_string_lossy().to_string();
    let out = throng(&[
        "bench",
        "--headless",
        "--sizes",
        "20,400",
        "--frames",
        "3",
        "--warmup",
        "1",
        "--out",
        &out_dir,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.path().join("bench.csv")).expect("csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], throng::bench::report::SIM_CSV_HEADER);
    // Per size: full rate, then with the simulation LOD.
    assert_eq!(lines.len(), 5, "{csv}");
    for (line, prefix) in lines[1..].iter().zip([
        "full,20,3,",
        "sim-lod,20,3,",
        "full,400,3,",
        "sim-lod,400,3,",
    ]) {
        assert!(line.starts_with(prefix), "{line}");
    }
    let header: Vec<&str> = lines[0].split(',').collect();
    let column = |row: &str, name: &str| -> String {
        let k = header.iter().position(|h| *h == name).expect("column");
        row.split(',').nth(k).unwrap_or_default().to_string()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for row in &lines[1..] {
        assert_eq!(column(row, "cores"), cores.to_string(), "{row}");
        assert!(["avx2", "baseline"].contains(&column(row, "simd").as_str()));
        assert!(!column(row, "commit").is_empty());
        // Every phase is measured: a real, non-negative time, and steering takes some.
        for phase in throng::bench::report::PHASES {
            let ms: f64 = column(row, &format!("{phase}_ms")).parse().expect(phase);
            assert!(ms >= 0.0, "{phase}: {ms}");
        }
        let steering: f64 = column(row, "steering_ms").parse().expect("steering");
        assert!(steering > 0.0, "{row}");
        assert_eq!(column(row, "close_pairs"), "0", "{row}");
    }
    // Full rate steers everyone.
    assert_eq!(column(lines[3], "steered"), "400");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.starts_with("machine: "), "{table}");
    assert!(
        table.contains("vs full") && table.contains("1.00x"),
        "{table}"
    );
    let png = read_png(&dir.path().join("bench.png"));
    assert_eq!((png.width, png.height), (960, 540));
    // Progress went to stderr.
    assert!(String::from_utf8_lossy(&out.stderr).contains("bench [4/4] sim-lod 400 agents"));
}

#[test]
fn headless_refuses_render_modes() {
    let out = throng(&["bench", "--headless", "--modes", "pipeline"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--modes chooses render paths"));
}

#[test]
fn instanced_and_per_person_pictures_agree() {
    let Some(display) = find_display("instanced_and_per_person_pictures_agree") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().to_string_lossy().to_string();
    let out = run_throng(
        &display,
        &[
            "bench",
            "--sizes",
            "300",
            "--modes",
            "instanced,naive",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--out",
            &out_dir,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = read_png(&dir.path().join("instanced_300.png"));
    let b = read_png(&dir.path().join("naive_300.png"));
    assert_eq!((a.width, a.height), (b.width, b.height));
    let differing = a
        .pixels
        .iter()
        .zip(&b.pixels)
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 8))
        .count();
    let share = differing as f64 / a.pixels.len() as f64;
    support::say(&format!(
        "bench picture test RAN: instanced and naive frames differ in {:.3}% of pixels",
        share * 100.0
    ));
    assert!(share < 0.005, "{:.3}% of pixels differ", share * 100.0);
}

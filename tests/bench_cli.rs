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
            "unknown mode `turbo`; allowed: pipeline, impostor, instanced, naive",
        ),
        (vec!["bench", "--frames", "0"], "--frames"),
        (
            vec!["bench", "--recording"],
            "--recording measures `throng record` without a window; add --headless",
        ),
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
    rows_start_with(
        &csv,
        &[
            "full,20,3,",
            "sim-lod,20,3,",
            "full,400,3,",
            "sim-lod,400,3,",
        ],
    );
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
    // The estimate came first, then progress with the time left, all on stderr.
    let log = String::from_utf8_lossy(&out.stderr);
    let first = log.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("bench: 4 runs of 4 frames, estimated ")
            && first.ends_with("(from frames timed at 20 and 400 agents per variant)"),
        "{log}"
    );
    assert!(
        log.contains("bench [4/4] sim-lod 400 agents: frame 3/3, "),
        "{log}"
    );
    assert!(
        log.contains(" left\n") || log.contains(", nearly done\n"),
        "{log}"
    );
    // 3 frames are too few for a 95th percentile: an empty cell, `n/a` in the table.
    for row in &lines[1..] {
        assert_eq!(column(row, "step_ms_p95"), "", "{row}");
    }
    assert!(
        table.lines().nth(2).unwrap_or_default().contains(" n/a "),
        "{table}"
    );
}

#[test]
fn the_run_is_described_in_a_json_sidecar() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().to_string_lossy().to_string();
    let out = throng(&[
        "bench",
        "--headless",
        "--sizes",
        "30",
        "--frames",
        "30",
        "--warmup",
        "0",
        "--seed",
        "7",
        "--no-sim-lod",
        "--out",
        &out_dir,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !dir.path().join(throng::bench::PARTIAL_CSV).exists(),
        "a complete run leaves no partial rows"
    );
    let text = std::fs::read_to_string(dir.path().join("bench.json")).expect("bench.json");
    let meta: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(meta["kind"], "headless");
    assert_eq!(meta["gl_renderer"], "headless");
    assert_eq!(meta["level"], "levels/plaza.ron");
    assert_eq!(meta["level_name"], "Central Plaza");
    assert_eq!(meta["seed"], 7);
    assert_eq!(meta["sizes"], serde_json::json!([30]));
    assert_eq!(meta["modes"], serde_json::json!(["full"]));
    assert_eq!(
        (meta["frames"].clone(), meta["warmup"].clone()),
        (30.into(), 0.into())
    );
    assert_eq!(meta["sim_lod"], false);
    let commit = meta["commit"].as_str().expect("commit");
    assert!(!commit.is_empty() && commit != "unknown", "{commit}");
    let date = meta["date_utc"].as_str().expect("date");
    assert_eq!(date.len(), "2026-12-03T18:21:12Z".len(), "{date}");
    assert!(date.starts_with("20") && date.ends_with('Z'), "{date}");
    assert!(!meta["cpu"].as_str().expect("cpu").is_empty());
    // 30 frames: the spread is measured.
    let csv = std::fs::read_to_string(dir.path().join("bench.csv")).expect("csv");
    let row: Vec<&str> = csv.lines().nth(1).expect("row").split(',').collect();
    let (median, p95): (f64, f64) = (
        row[3].parse().expect("median"),
        row[4].parse().expect("p95"),
    );
    assert!(p95 >= median, "{csv}");
}

#[test]
fn a_killed_run_keeps_the_rows_it_measured() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().to_string_lossy().to_string();
    // The last complete run's set, which a killed run must leave as it was.
    let earlier = "an earlier run's bench.csv\n";
    std::fs::write(dir.path().join("bench.csv"), earlier).expect("write");
    // The last size is large: the run is killed long before it ends.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_throng"));
    cmd.args([
        "bench",
        "--headless",
        "--sizes",
        "20,40,100000",
        "--frames",
        "3",
        "--warmup",
        "1",
        "--out",
        &out_dir,
    ])
    .current_dir(project_root());
    let mut bench = support::live::Live::spawn(cmd);
    // The third run's first progress line: two runs are done, and their rows are on disk.
    bench.wait_for("the third run", |_, l| l.starts_with("bench [3/6] "));
    drop(bench);
    let csv = std::fs::read_to_string(dir.path().join(throng::bench::PARTIAL_CSV))
        .expect("bench.partial.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], throng::bench::report::SIM_CSV_HEADER, "{csv}");
    assert!(lines.len() >= 3, "two runs' rows at least: {csv}");
    assert!(lines[1].starts_with("full,20,3,"), "{csv}");
    assert!(lines[2].starts_with("sim-lod,20,3,"), "{csv}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("bench.csv")).expect("bench.csv"),
        earlier,
        "a killed run replaced the last complete run's table"
    );
}

/// A headless run of `sizes` writing into `dir`, with extra arguments.
fn headless_run(dir: &std::path::Path, sizes: &str, extra: &[&str]) -> std::process::Output {
    let out_dir = dir.to_string_lossy().to_string();
    let mut args = vec![
        "bench",
        "--headless",
        "--no-sim-lod",
        "--sizes",
        sizes,
        "--frames",
        "3",
        "--warmup",
        "1",
        "--out",
        &out_dir,
    ];
    args.extend_from_slice(extra);
    throng(&args)
}

#[test]
fn a_baseline_run_prints_and_plots_the_ratio_to_a_previous_run() {
    let old = tempfile::tempdir().expect("temp dir");
    let out = headless_run(old.path(), "20,400", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let old_csv = old.path().join("bench.csv");
    let old_arg = old_csv.to_string_lossy().to_string();
    let new = tempfile::tempdir().expect("temp dir");
    let out = headless_run(new.path(), "20,60,400", &["--baseline", &old_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("against the baseline {old_arg}:")),
        "{stdout}"
    );
    let median = |csv: &std::path::Path, agents: &str| -> f64 {
        let text = std::fs::read_to_string(csv).expect("csv");
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("full,{agents},")))
            .expect("row");
        line.split(',')
            .nth(3)
            .expect("median")
            .parse()
            .expect("number")
    };
    let new_csv = new.path().join("bench.csv");
    let comparison = stdout
        .split("against the baseline")
        .nth(1)
        .unwrap_or_default();
    for agents in ["20", "400"] {
        let line = comparison
            .lines()
            .find(|l| l.split_whitespace().take(2).eq(["full", agents]) && l.ends_with('x'))
            .unwrap_or_else(|| panic!("no ratio line for {agents}: {stdout}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        let old_ms: f64 = cells[3].parse().expect("old ms");
        let ratio: f64 = cells[4].trim_end_matches('x').parse().expect("ratio");
        assert!((old_ms - median(&old_csv, agents)).abs() < 0.006, "{line}");
        let expected = median(&new_csv, agents) / median(&old_csv, agents);
        assert!(
            (ratio - expected).abs() <= 0.02 * expected + 0.006,
            "{line}: {expected}"
        );
    }
    assert!(
        comparison.contains("no match"),
        "60 agents were not in the baseline: {stdout}"
    );
    let ratio_png = read_png(&new.path().join("bench-vs-baseline.png"));
    assert_eq!((ratio_png.width, ratio_png.height), (960, 540));
    let meta = std::fs::read_to_string(new.path().join("bench.json")).expect("json");
    assert!(
        meta.contains(&format!("\"baseline\": \"{old_arg}\"")),
        "{meta}"
    );
}

#[test]
fn a_bad_baseline_is_refused_naming_the_file_and_line_before_any_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gl_csv = dir.path().join("gl.csv");
    std::fs::write(
        &gl_csv,
        format!(
            "{}\npipeline,100,30,10.0,,0.5,0.1,0.2,1.0,5,1000,640,42\nnaive,100,30,slow,,0.5,0.1,0.2,1.0,5,1000,640,42\n",
            // A file written before the wait columns: still a GL bench.csv.
            throng::bench::report::CSV_HEADER_BEFORE_WAITS
        ),
    )
    .expect("write");
    let gl_arg = gl_csv.to_string_lossy().to_string();
    let missing = dir.path().join("missing.csv").to_string_lossy().to_string();
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.to_string_lossy().to_string();
    for (args, expect) in [
        // GL, with no display: the baseline is read before anything else can fail.
        (
            vec!["bench", "--baseline", &gl_arg, "--out", &out_arg],
            format!("throng bench: --baseline {gl_arg}:3: frame_ms_median `slow` is not a number of milliseconds"),
        ),
        (
            vec!["bench", "--headless", "--baseline", &gl_arg, "--out", &out_arg],
            format!("throng bench: --baseline {gl_arg}:1: this is a GL bench.csv and this run is headless (--headless); compare runs of one kind"),
        ),
        (
            vec!["bench", "--headless", "--baseline", &missing, "--out", &out_arg],
            format!("throng bench: --baseline {missing}: cannot read the file: "),
        ),
    ] {
        let out = throng(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&expect), "{args:?}: {err}");
    }
    assert!(
        !out_dir.exists(),
        "refused before the output folder is made"
    );
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
    // The animation column is measured: the naive path samples palettes on the CPU.
    let csv = std::fs::read_to_string(dir.path().join("bench.csv")).expect("csv");
    let anim_of = |mode: &str| -> f64 {
        let line = csv.lines().find(|l| l.starts_with(mode)).expect("row");
        line.split(',')
            .nth(6)
            .expect("anim")
            .parse()
            .expect("anim ms")
    };
    assert!(anim_of("naive,") > anim_of("instanced,"), "{csv}");
    assert!(anim_of("instanced,") > 0.0, "{csv}");
    let meta = std::fs::read_to_string(dir.path().join("bench.json")).expect("json");
    let meta: serde_json::Value = serde_json::from_str(&meta).expect("JSON");
    let renderer = meta["gl_renderer"].as_str().expect("renderer");
    assert!(
        !["", "unknown", "headless"].contains(&renderer),
        "{renderer}"
    );
    assert_eq!(meta["window"], "1280x720");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.contains("bench: 2 runs of 3 frames, estimated "),
        "{log}"
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

#[test]
fn headless_sandbox_measures_the_plaza_with_placed_things_beside_the_plain_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = headless_run(dir.path(), "20,400", &["--sandbox"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.path().join("bench.csv")).expect("csv");
    rows_start_with(
        &csv,
        &[
            "full,20,3,",
            "sandbox,20,3,",
            "full,400,3,",
            "sandbox,400,3,",
        ],
    );
    // Every placement fits the plaza: the variant was not left out.
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("left out"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let level = throng::level::parse_level(
        &std::fs::read_to_string(project_root().join("levels/plaza.ron")).expect("plaza"),
        "plaza.ron",
        &project_root(),
    )
    .expect("parses");
    let with = throng::bench::headless::sandbox_level(&level).expect("the sandbox fits");
    assert_eq!(with.placed.len(), 14);
}

/// The CSV's rows after the header are exactly these, in order (by how each starts).
fn rows_start_with(csv: &str, prefixes: &[&str]) {
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), prefixes.len() + 1, "{csv}");
    for (line, prefix) in lines[1..].iter().zip(prefixes) {
        assert!(line.starts_with(prefix), "{line}");
    }
}

#[test]
fn headless_recording_measures_both_formats_per_size_and_leaves_no_recording() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = headless_run(dir.path(), "20,100", &["--recording"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.path().join("recording.csv")).expect("recording.csv");
    assert_eq!(
        csv.lines().next(),
        Some(throng::bench::recording::RECORDING_CSV_HEADER)
    );
    rows_start_with(
        &csv,
        &["sqlite,20,3,", "txt,20,3,", "sqlite,100,3,", "txt,100,3,"],
    );
    // Text rows are `id frame x y`: at least 8 bytes a person a frame, SQLite's more.
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (agents, per_frame): (f64, f64) = (
            cells[1].parse().expect("agents"),
            cells[10].parse().expect("bytes_per_frame"),
        );
        assert!(per_frame >= 8.0 * agents, "{line}");
    }
    assert!(stdout.contains("recording, every step written"), "{stdout}");
    assert!(stdout.contains("wrote "), "{stdout}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["bench.csv", "bench.json", "bench.png", "recording.csv"]
    );
}

//! `throng record` end to end on the small test level: both formats written and read back
//! exactly (tables, metadata, one row per person per frame), the text header and row count, and
//! bad values refused with status 2 naming the value and what is allowed, leaving no file.

mod support;

use std::path::Path;

const LEVEL: &str = "tests/fixtures/levels/minimal.ron";

use support::headless::throng;

fn s(p: &Path) -> String {
    p.to_string_lossy().to_string()
}

/// Nothing but the final file in the folder: the temporary one was renamed.
fn only_file(dir: &Path, name: &str) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(names, vec![name.to_string()]);
}

#[test]
fn sqlite_holds_every_person_every_frame_in_jupedsim_v2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("walk.sqlite");
    // 2 s at 60 Hz, every 4th step: frames 0..=30.
    let run = throng(&[
        "record",
        LEVEL,
        "--seconds",
        "2",
        "--people",
        "40",
        "--every",
        "4",
        "--out",
        &s(&out),
        "--threads",
        "2",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    only_file(dir.path(), "walk.sqlite");
    let bytes = std::fs::metadata(&out).expect("file").len();
    assert_eq!(
        run.stdout.lines().last(),
        Some(
            format!(
                "recorded 40 people over 31 frames (2 s at 15 fps) to {} ({bytes} bytes)",
                out.display()
            )
            .as_str()
        )
    );

    let db = rusqlite::Connection::open(&out).expect("open");
    let mut tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables.sort();
    assert_eq!(
        tables,
        ["frame_data", "geometry", "metadata", "trajectory_data"]
    );
    let index: String = db
        .query_row(
            "SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name = 'frame_id_idx'",
            [],
            |r| r.get(0),
        )
        .expect("frame_id_idx");
    assert_eq!(index, "trajectory_data");
    let columns: Vec<String> = db
        .prepare("SELECT name FROM pragma_table_info('trajectory_data')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(columns, ["frame", "id", "pos_x", "pos_y", "ori_x", "ori_y"]);

    let meta = |key: &str| -> String {
        db.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .unwrap_or_else(|e| panic!("metadata {key}: {e}"))
    };
    assert_eq!(meta("version"), "2");
    assert_eq!(meta("fps").parse::<f64>().unwrap(), 15.0);
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).expect(sql) };
    assert_eq!(count("SELECT COUNT(*) FROM metadata"), 6);
    assert_eq!(count("SELECT COUNT(*) FROM trajectory_data"), 40 * 31);
    assert_eq!(
        count("SELECT COUNT(DISTINCT frame) FROM trajectory_data"),
        31
    );
    assert_eq!(count("SELECT MIN(frame) FROM trajectory_data"), 0);
    assert_eq!(count("SELECT MAX(frame) FROM trajectory_data"), 30);
    assert_eq!(count("SELECT COUNT(DISTINCT id) FROM trajectory_data"), 40);
    assert_eq!(count("SELECT MIN(id) FROM trajectory_data"), 1);
    assert_eq!(count("SELECT MAX(id) FROM trajectory_data"), 40);
    assert_eq!(count("SELECT COUNT(*) FROM frame_data"), 31);
    assert_eq!(count("SELECT COUNT(*) FROM geometry"), 1);
    assert_eq!(
        count("SELECT COUNT(*) FROM frame_data f JOIN geometry g ON f.geometry_hash = g.hash"),
        31
    );
    // Orientations are unit vectors; the extent is the positions'.
    assert_eq!(
        count(
            "SELECT COUNT(*) FROM trajectory_data \
             WHERE ABS(ori_x * ori_x + ori_y * ori_y - 1.0) > 1e-4"
        ),
        0
    );
    let (xmin, xmax, ymin, ymax): (f64, f64, f64, f64) = db
        .query_row(
            "SELECT MIN(pos_x), MAX(pos_x), MIN(pos_y), MAX(pos_y) FROM trajectory_data",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    for (key, v) in [
        ("xmin", xmin),
        ("xmax", xmax),
        ("ymin", ymin),
        ("ymax", ymax),
    ] {
        assert_eq!(meta(key).parse::<f64>().unwrap() as f32, v as f32, "{key}");
    }
    // Everyone inside the 40 x 40 m level, and the crowd spawned around (0, 14).
    assert!(xmin >= -20.0 && xmax <= 20.0 && ymin >= -20.0 && ymax <= 20.0);
    let wkt: String = db
        .query_row("SELECT wkt FROM geometry", [], |r| r.get(0))
        .unwrap();
    assert!(
        wkt.starts_with("POLYGON ((-20 -20, 20 -20, 20 20, -20 20, -20 -20), ("),
        "{wkt}"
    );
    // The fountain and the bench as holes.
    assert_eq!(wkt.matches("), (").count(), 2, "{wkt}");
}

#[test]
fn text_has_pedpys_header_and_a_row_per_person_per_frame() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("walk.txt");
    let run = throng(&[
        "record",
        LEVEL,
        "--seconds",
        "1",
        "--people",
        "25",
        "--out",
        &s(&out),
        "--threads",
        "2",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    only_file(dir.path(), "walk.txt");
    assert!(
        run.stdout.ends_with(&format!(
            "({} bytes)",
            std::fs::metadata(&out).unwrap().len()
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("recorded 25 people over 61 frames (1 s at 60 fps)"),
        "{}",
        run.stdout
    );
    let text = std::fs::read_to_string(&out).expect("txt");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("# framerate: 60.0"));
    assert_eq!(lines.next(), Some("# x/m y/m"));
    assert_eq!(lines.next(), Some("# ID FRAME X Y"));
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 4, "{line}");
        let id: u32 = f[0].parse().expect("id");
        let frame: u32 = f[1].parse().expect("frame");
        assert!((1..=25).contains(&id) && frame <= 60, "{line}");
        for v in &f[2..] {
            let v: f32 = v.parse().expect("coordinate");
            assert!(v.abs() <= 20.0, "{line}");
        }
        rows += 1;
    }
    assert_eq!(rows, 25 * 61);
}

#[test]
fn bad_values_are_refused_with_status_2_and_no_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = s(&dir.path().join("x.sqlite"));
    let no_folder = s(&dir.path().join("no/such/r.json"));
    let cases: [(Vec<&str>, &str); 7] = [
        (
            vec![
                "record",
                LEVEL,
                "--seconds",
                "1",
                "--every",
                "0",
                "--out",
                &out,
            ],
            "`0` is out of range; allowed: 1 to 60",
        ),
        (
            vec!["record", LEVEL, "--seconds", "1", "--out", "walk.csv"],
            "`walk.csv` is not a trajectory file name; allowed: a name ending in .sqlite",
        ),
        (
            vec![
                "record",
                "no/such/level.ron",
                "--seconds",
                "1",
                "--out",
                &out,
            ],
            "no/such/level.ron",
        ),
        (
            vec!["record", LEVEL, "--seconds", "0", "--out", &out],
            "`0` is not a number of seconds; allowed: more than 0, at most 3600",
        ),
        (
            vec![
                "record",
                LEVEL,
                "--seconds",
                "1",
                "--people",
                "999999",
                "--out",
                &out,
            ],
            "--people 999999: `Minimal` holds at most",
        ),
        (
            vec![
                "record",
                LEVEL,
                "--seconds",
                "1",
                "--out",
                &out,
                "--readings",
                "r.csv",
            ],
            "`r.csv` is not a readings file name; allowed: a name ending in .json",
        ),
        (
            vec![
                "record",
                LEVEL,
                "--seconds",
                "1",
                "--out",
                &out,
                "--readings",
                &no_folder,
            ],
            "--readings",
        ),
    ];
    for (args, message) in cases {
        let run = throng(&args);
        assert_eq!(run.code, 2, "{args:?}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `--readings` on a level without measurements: the file is written, with empty lists, and
/// stderr says why they are empty.
#[test]
fn readings_of_a_level_without_measurements_list_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("walk.txt");
    let readings = dir.path().join("walk.json");
    let run = throng(&[
        "record",
        LEVEL,
        "--seconds",
        "1",
        "--people",
        "10",
        "--out",
        &s(&out),
        "--readings",
        &s(&readings),
        "--threads",
        "1",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("the level has no measurement areas or lines: the readings list none"),
        "{}",
        run.stderr
    );
    let text = std::fs::read_to_string(&readings).expect("readings written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["areas"], serde_json::json!([]));
    assert_eq!(v["lines"], serde_json::json!([]));
    assert_eq!(v["people"], 10);
    assert_eq!(v["measured_seconds"], 1.0);
}

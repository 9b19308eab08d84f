//! `throng evacuate` and `throng check --evacuate` end to end, on a small room written to a
//! temporary folder: a room with two exits empties (files, CSV, the summary line); a room whose
//! only exit is closed or walled off does not, and the report lists who was left and where;
//! bad flags are refused with status 2 naming the flag.

mod support;

use std::path::{Path, PathBuf};

use support::headless::throng;
use throng::evacuate::report::CSV_HEADER;

/// A 40 x 40 m room with a fountain and a bench, 100 people spawned south of the middle.
const ROOM: &str = r#"Level(
    name: "Drill room",
    bounds: (min: (-20.0, -20.0), max: (20.0, 20.0)),
    obstacles: [
        (name: "fountain", kind: Fountain, shape: Circle(center: (0.0, 0.0), radius: 3.0)),
        (name: "bench", kind: Bench, shape: Box(center: (0.0, 8.0), half_extents: (1.5, 0.35), angle_deg: 180.0)),
        WALLS
    ],
    points_of_interest: [
        (name: "view", position: (0.0, 5.0), weight: 1.0, capacity: 5, activity: WatchFountain),
    ],
    paths: [
        (name: "ring", points: [(6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0)], loop: true),
    ],
    spawn_zones: [
        (name: "south", center: (0.0, 14.0), half_extents: (5.0, 3.0), path: Some("ring")),
    ],
    crowd: (
        count: 100,
        models: [(name: "casual", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "all", models: ["casual"], tints: [(0.7, 0.2, 0.2)])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 1,
    ),
    hero: (model: "assets/hero/Godette_vrm_v4.vrm", spawn: (5.0, 12.0)),
    lod: (near: 15.0, mid: 40.0, far: 120.0, hysteresis: 2.0),
    exits: [
        EXITS
    ],
    ALARMS
)
"#;

const TWO_EXITS: &str = r#"(name: "west_door", area: Line((-20.0, -1.5), (-20.0, 1.5))),
        (name: "east_door", area: Line((20.0, -1.5), (20.0, 1.5))),"#;
const ONE_CLOSED: &str =
    r#"(name: "west_door", area: Line((-20.0, -1.5), (-20.0, 1.5)), closed: true),"#;
const ONE_DOOR: &str = r#"(name: "west_door", area: Line((-20.0, -1.5), (-20.0, 1.5))),"#;
/// A wall across the whole room, between the people and the west door.
const WALL_ACROSS: &str = r#"(name: "wall", kind: Wall, shape: Box(center: (-16.0, 0.0), half_extents: (0.5, 19.9), angle_deg: 0.0)),"#;

fn room(dir: &Path, file: &str, exits: &str, walls: &str) -> PathBuf {
    let path = dir.join(file);
    let text = ROOM
        .replace("EXITS", exits)
        .replace("WALLS", walls)
        .replace("ALARMS", "");
    std::fs::write(&path, text).expect("write level");
    path
}

fn s(p: &Path) -> String {
    p.to_string_lossy().to_string()
}

/// `text` split at the first `sep`; panics naming the whole summary `line` when it is missing.
fn cut<'a>(text: &'a str, sep: &str, line: &str) -> (&'a str, &'a str) {
    text.split_once(sep)
        .unwrap_or_else(|| panic!("not a summary line (no `{sep}`): `{line}`"))
}

/// A number of the summary `line`; panics naming the line when it is not one.
fn num<T: std::str::FromStr>(v: &str, line: &str) -> T {
    v.parse()
        .unwrap_or_else(|_| panic!("`{v}` is not a number in the summary line `{line}`"))
}

/// The summary line's numbers (`evacuated N of N in T s; worst density D /m² at (x, z) for S
/// s`): (out, people, seconds or None for `>LIMIT`, density, x, z, seconds over).
fn parse_summary(line: &str) -> (usize, usize, Option<f32>, f32, f32, f32, f32) {
    let rest = line
        .strip_prefix("evacuated ")
        .unwrap_or_else(|| panic!("not a summary line: `{line}`"));
    let (out, rest) = cut(rest, " of ", line);
    let (people, rest) = cut(rest, " in ", line);
    let (time, rest) = cut(rest, " s; worst density ", line);
    let (density, rest) = cut(rest, " /m² at (", line);
    let (x, rest) = cut(rest, ", ", line);
    let (z, rest) = cut(rest, ") for ", line);
    let over = rest
        .strip_suffix(" s")
        .unwrap_or_else(|| panic!("not a summary line (no ` s` at the end): `{line}`"));
    let time = match time.strip_prefix('>') {
        Some(limit) => {
            num::<f32>(limit, line);
            None
        }
        None => Some(num(time, line)),
    };
    (
        num(out, line),
        num(people, line),
        time,
        num(density, line),
        num(x, line),
        num(z, line),
        num(over, line),
    )
}

#[test]
fn a_room_with_two_exits_empties_and_its_files_are_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let level = room(dir.path(), "room.ron", TWO_EXITS, "");
    let out = dir.path().join("drill");
    let run = throng(&[
        "evacuate",
        &s(&level),
        "--people",
        "90",
        "--out",
        &s(&out),
        "--threads",
        "2",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let last = run.stdout.lines().last().expect("a last line");
    let (got_out, people, time, density, _, _, over) = parse_summary(last);
    assert_eq!((got_out, people), (90, 90), "{last}");
    let time = time.expect("a time, not a limit");
    assert!(time > 3.0 && time < 120.0, "{last}");
    assert!(density > 0.0 && over >= 0.0, "{last}");

    for name in ["evacuation.csv", "evacuation.md", "evacuation.png"] {
        let meta = std::fs::metadata(out.join(name)).expect(name);
        assert!(meta.len() > 100, "{name} is {} bytes", meta.len());
    }
    let png = std::fs::read(out.join("evacuation.png")).expect("png");
    assert_eq!(&png[1..4], b"PNG");

    let csv = std::fs::read_to_string(out.join("evacuation.csv")).expect("csv");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(CSV_HEADER));
    let mut last_through = std::collections::BTreeMap::new();
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 4, "{line}");
        let t: u32 = f[0].parse().unwrap_or_else(|_| panic!("time in `{line}`"));
        assert!(["west_door", "east_door"].contains(&f[1]), "{line}");
        let through: usize = f[2].parse().unwrap_or_else(|_| panic!("count in `{line}`"));
        let flow: f32 = f[3].parse().unwrap_or_else(|_| panic!("flow in `{line}`"));
        assert!((0.0..20.0).contains(&flow), "{line}");
        let before = last_through.insert(f[1].to_string(), through).unwrap_or(0);
        assert!(through >= before, "counts only grow: {line}");
        assert!(t as f32 <= time + 1.0, "{line}");
        rows += 1;
    }
    assert_eq!(rows % 2, 0, "one row per exit per second");
    assert_eq!(last_through.values().sum::<usize>(), 90, "{last_through:?}");
    assert!(last_through.values().all(|&n| n > 0), "{last_through:?}");

    let md = std::fs::read_to_string(out.join("evacuation.md")).expect("md");
    // The report's exits table agrees with the CSV: its people through, its last person out
    // (at most a sample after), and the summary's time is the last of them.
    let mut last_out = 0.0f32;
    for (exit, through) in &last_through {
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {exit} | ")))
            .unwrap_or_else(|| panic!("no row for {exit} in:\n{md}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[3], through.to_string(), "{row}");
        let last: f32 = cells[2].parse().unwrap_or_else(|_| panic!("{row}"));
        last_out = last_out.max(last);
    }
    assert!((last_out - time).abs() < 0.051, "{last_out} against {time}");
    assert!(md.contains(&format!(
        "**Everyone was out {time:.1} s after the alarm.**"
    )));
    for part in [
        "# Evacuation drill: Drill room",
        "the drill's alarm sounded at (0.0, 14.0) (the middle of the spawn zones",
        "**Everyone was out ",
        "| west_door | ",
        "| east_door | ",
        "## Worst density",
        "## Left inside\n\nNobody.",
        "| normal (the 5 s before the alarm) | 300 | ",
        "An evacuating step costs ",
    ] {
        assert!(md.contains(part), "`{part}` missing from:\n{md}");
    }
}

#[test]
fn the_alarm_sounds_at_the_levels_earliest_alarm_or_where_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("alarmed.ron");
    let text = ROOM
        .replace("EXITS", TWO_EXITS)
        .replace("WALLS", "")
        .replace(
            "ALARMS",
            "alarms: [(at: 90.0, position: (9.0, 9.0)), (at: 30.0, position: (-6.0, 12.0))],",
        );
    std::fs::write(&path, text).expect("write level");
    let out = dir.path().join("drill");
    let run = throng(&["evacuate", &s(&path), "--people", "30", "--out", &s(&out)]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let md = std::fs::read_to_string(out.join("evacuation.md")).expect("md");
    let part = "the drill's alarm sounded at (-6.0, 12.0) (the level's earliest timed alarm): \
                everyone heard it at once";
    assert!(md.contains(part), "`{part}` missing from:\n{md}");

    // A local alarm near the south wall, heard within the level's radius (40 m by default):
    // the people near it flee and the rest catch it from them.
    let run = throng(&[
        "evacuate",
        &s(&path),
        "--people",
        "30",
        "--alarm",
        "2,16",
        "--out",
        &s(&out),
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let md = std::fs::read_to_string(out.join("evacuation.md")).expect("md");
    let part = "then an alarm sounded at (2.0, 16.0) (given by `--alarm`), heard within ";
    assert!(md.contains(part), "`{part}` missing from:\n{md}");
}

#[test]
fn a_closed_or_walled_off_exit_leaves_everyone_inside_with_status_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (file, exits, walls) in [
        ("closed.ron", ONE_CLOSED, ""),
        ("walled.ron", ONE_DOOR, WALL_ACROSS),
    ] {
        let level = room(dir.path(), file, exits, walls);
        let out = dir.path().join(file.replace(".ron", ""));
        let run = throng(&["evacuate", &s(&level), "--out", &s(&out)]);
        assert_eq!(run.code, 1, "{file}: {}\n{}", run.stdout, run.stderr);
        let last = run.stdout.lines().last().expect("a last line");
        assert!(
            last.starts_with("evacuated 0 of 100 in >600 s; worst density "),
            "{file}: {last}"
        );
        let md = std::fs::read_to_string(out.join("evacuation.md")).expect("md");
        for part in [
            "**0 of 100 got out; 100 were still inside 600 s after the alarm.**",
            "The run stopped ",
            "100 people: 0 never alarmed, 100 alarmed but with no open exit they could reach",
            "| where: x, z (m) | people |",
        ] {
            assert!(md.contains(part), "{file}: `{part}` missing from:\n{md}");
        }
        // The cells hold everyone.
        let listed: usize = md
            .lines()
            .filter(|l| l.split('|').nth(1).is_some_and(|c| c.contains(" to ")))
            .filter_map(|l| l.split('|').nth(2)?.trim().parse::<usize>().ok())
            .sum();
        assert_eq!(listed, 100, "{file}:\n{md}");
    }
}

#[test]
fn bad_flags_and_files_are_refused_with_status_2_naming_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let level = room(dir.path(), "room.ron", TWO_EXITS, "");
    let level = s(&level);
    let out = s(&dir.path().join("never"));
    for (args, expect) in [
        (
            vec!["--people", "abc"],
            vec!["--people", "allowed: 1 to 1000000"],
        ),
        (vec!["--alarm", "1"], vec!["--alarm", "allowed: X,Z"]),
        (
            vec!["--limit", "0"],
            vec!["--limit", "allowed: more than 0"],
        ),
        (
            vec!["--threads", "100"],
            vec!["--threads", "allowed: 1 to 64"],
        ),
        (
            vec!["--seed", "-1"],
            vec!["--seed", "seeds are whole numbers"],
        ),
        (
            vec!["--alarm", "50,0"],
            vec!["--alarm 50,0: outside `Drill room`; allowed: x from -20 to 20"],
        ),
        (
            vec!["--people", "100000"],
            vec!["--people 100000: `Drill room` holds at most"],
        ),
    ] {
        let mut all = vec!["evacuate", level.as_str(), "--out", out.as_str()];
        all.extend(&args);
        let run = throng(&all);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        for e in expect {
            assert!(
                run.stderr.contains(e),
                "{args:?}: `{e}` not in {}",
                run.stderr
            );
        }
    }
    let missing = s(&dir.path().join("no_such.ron"));
    let run = throng(&["evacuate", &missing, "--out", &out]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with(&format!("throng evacuate: {missing}:")),
        "{}",
        run.stderr
    );
    assert!(
        !dir.path().join("never").exists(),
        "a refused run makes no folder"
    );
}

#[test]
fn check_evacuate_prints_a_summary_per_level_and_fails_when_one_does_not_empty() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = s(&room(dir.path(), "room.ron", TWO_EXITS, ""));
    let run = throng(&["check", "--evacuate", &good]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let line = run
        .stdout
        .strip_prefix(&format!("{good}: "))
        .unwrap_or_else(|| panic!("`{}`", run.stdout));
    let (got_out, people, time, ..) = parse_summary(line);
    assert_eq!((got_out, people), (100, 100));
    assert!(time.is_some());

    let closed = s(&room(dir.path(), "closed.ron", ONE_CLOSED, ""));
    let run = throng(&["check", "--evacuate", &good, &closed]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    // The level check's own lines come first (a warning for the closed exit); the drills'
    // summaries after them.
    assert!(
        run.stdout.contains("warning: every exit starts closed"),
        "{}",
        run.stdout
    );
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains(": evacuated "))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with(&format!("{good}: evacuated 100 of 100 in ")));
    assert!(
        lines[1].starts_with(&format!("{closed}: evacuated 0 of 100 in >600 s; ")),
        "{}",
        lines[1]
    );
    assert!(!dir.path().join("evacuate-out").exists());

    let run = throng(&["check", "--evacuate", "--json", &good]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

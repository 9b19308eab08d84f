//! `throng check LEVEL... [--json]`: exit codes, the exact lines for a table of broken files,
//! the JSON report, slowness warnings that do not fail, and model paths found next to a level
//! kept outside the repository.

mod support;

use std::path::Path;
use std::process::Command;

const MINIMAL: &str = include_str!("fixtures/levels/minimal.ron");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `throng check` in `cwd` with no display (it must never need one).
fn check_in(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("check")
        .args(args)
        .current_dir(cwd)
        .env_remove("DISPLAY")
        .output()
        .expect("binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).trim_end().to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
    }
}

fn check(args: &[&str]) -> Run {
    check_in(&support::project_root(), args)
}

/// The minimal fixture with one replacement (which must apply).
fn minimal_with(old: &str, new: &str) -> String {
    assert!(MINIMAL.contains(old), "fixture lacks `{old}`");
    MINIMAL.replacen(old, new, 1)
}

#[test]
fn good_levels_exit_0_with_one_summary_line() {
    let run = check(&[
        "levels/plaza.ron",
        "levels/market.ron",
        "tests/fixtures/levels/minimal.ron",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "throng check: 3 levels checked: 0 errors, 0 warnings"
    );
}

/// (file name, replaced text, replacement, the exact lines on stdout)
const BROKEN: &[(&str, &str, &str, &[&str])] = &[
    ("option.ron", "path: Some(\"ring\")", "path: \"ring\"", &[
        "{dir}/option.ron:15:78: spawn_zones[0].path: expected an optional value; write Some(\"ring\") (or leave the field out for none)",
    ]),
    ("colour.ron", "    lod: (near", "    lighting: (sky_color: (0.55, 0.72)),\n    lod: (near", &[
        "{dir}/colour.ron:25:38: lighting.sky_color: expected (x, y, z): three numbers, found 2",
    ]),
    ("comma.ron", "(-20.0, -20.0), max:", "(-20.0, -20.0) max:", &[
        "{dir}/comma.ron:3:34: bounds: expected a comma before `max`",
    ]),
    ("kind.ron", "kind: Fountain", "kind: Fontain", &[
        "{dir}/kind.ron:5:41: obstacles[0].kind: unknown value `Fontain`; allowed: Fountain, Bench, Kiosk, Tree, LampPost, Building, Wall, Mat, Fence, Bollard, Planter, InformationBoard, Stage",
    ]),
    // Validation reports every wrong field, one line each, in the file's order of sections.
    ("three.ron", "radius: 3.0", "radius: -3.0", &[
        "{dir}/three.ron:5:86: obstacles[0].shape.radius: -3 must be above 0",
        "{dir}/three.ron:9:69: points_of_interest[0].capacity: 0 would admit nobody; allowed: 1 or more",
        "{dir}/three.ron:24:60: hero.spawn: (35, 12) is outside the plaza bounds (-20, -20) to (20, 20)",
    ]),
];

fn write_broken(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for (name, old, new, _) in BROKEN {
        let mut text = minimal_with(old, new);
        if *name == "three.ron" {
            text = text.replacen("capacity: 5,", "capacity: 0,", 1).replacen(
                "spawn: (5.0, 12.0)",
                "spawn: (35.0, 12.0)",
                1,
            );
        }
        std::fs::write(dir.join(name), text).expect("write level");
        names.push(dir.join(name).display().to_string());
    }
    names
}

#[test]
fn broken_levels_exit_1_with_one_exact_line_per_problem() {
    let dir = support::scratch_dir();
    let names = write_broken(dir.path());
    let mut args: Vec<&str> = names.iter().map(String::as_str).collect();
    args.push("levels/plaza.ron");
    let run = check(&args);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let dir_text = dir.path().display().to_string();
    let expected: Vec<String> = BROKEN
        .iter()
        .flat_map(|(_, _, _, lines)| lines.iter())
        .map(|l| l.replace("{dir}", &dir_text))
        .collect();
    let got: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(got, expected);
    assert_eq!(
        run.stderr,
        "throng check: 6 levels checked: 7 errors, 0 warnings"
    );
}

#[test]
fn a_missing_file_has_no_line_and_column() {
    let run = check(&["levels/none.ron"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "levels/none.ron: cannot read: no such file");
}

#[test]
fn json_lists_every_problem_with_its_fields() {
    let dir = support::scratch_dir();
    let names = write_broken(dir.path());
    let run = check(&["--json", &names[4], "levels/none.ron", "levels/stress.ron"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stderr, "", "--json prints nothing else");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    let items = report.as_array().expect("an array");
    assert_eq!(items.len(), 5, "{}", run.stdout);
    let first = &items[1];
    assert_eq!(first["file"], names[4].as_str());
    assert_eq!(first["line"], 9);
    assert_eq!(first["col"], 69);
    assert_eq!(first["field"], "points_of_interest[0].capacity");
    assert_eq!(first["message"], "0 would admit nobody");
    assert_eq!(first["allowed"], "1 or more");
    assert_eq!(first["severity"], "error");
    let missing = &items[3];
    assert_eq!(missing["file"], "levels/none.ron");
    assert!(missing["line"].is_null() && missing["col"].is_null());
    assert_eq!(missing["message"], "cannot read: no such file");
    let slow = &items[4];
    assert_eq!(slow["severity"], "warning");
    assert_eq!(slow["field"], "crowd.count");
    assert_eq!(slow["line"], 191);
    assert_eq!(slow["allowed"], "about 20,300 people for 30 fps");
}

#[test]
fn slowness_warnings_do_not_fail() {
    let dir = support::scratch_dir();
    // 4 people per m² fit (at most 5) but jam; `near` covers the whole 40 m square.
    let text = minimal_with("count: 100,", "count: 6000,").replacen(
        "lod: (near: 15.0, mid: 40.0, far: 120.0",
        "lod: (near: 60.0, mid: 80.0, far: 120.0",
        1,
    );
    let path = dir.path().join("slow.ron");
    std::fs::write(&path, text).expect("write level");
    let run = check(&[path.to_str().expect("utf-8 path")]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let p = path.display();
    assert_eq!(
        run.stdout.lines().collect::<Vec<_>>(),
        [
            format!("{p}:18:16: crowd.count: warning: 6,000 people on 1,569 m² of free ground is 3.8 per m²: above 2 per m² walking slows to under half its free speed and crowds jam (Weidmann), and every step costs more; allowed: about 3,100 people at 2 per m²"),
            format!("{p}:25:17: lod.near: warning: 60 m reaches across the whole level (its diagonal is 57 m): all 6,000 people are drawn at full detail, 5,400 to 7,000 triangles each (32 to 42 million); allowed: below 57 m (the default is 18)"),
        ]
    );
    assert_eq!(
        run.stderr,
        "throng check: 1 level checked: 0 errors, 2 warnings"
    );
}

/// An exit nobody can walk to is an error (the route grid's flood from each spawn zone); a level
/// with people and no open exit only warns: a level without alarms never needs one.
#[test]
fn an_exit_walled_off_fails_and_a_level_without_an_open_exit_warns() {
    let dir = support::scratch_dir();
    let gate = "    exits: [(name: \"gate\", area: Line((-3.0, 20.0), (3.0, 20.0)))],\n";
    let files = [
        // A wall along the south edge, between the zone and the gate.
        (
            "walled.ron",
            minimal_with(
                "        (name: \"bench\"",
                "        (name: \"wall\", kind: Wall, shape: Box(center: (0.0, 18.5), half_extents: (20.0, 0.3))),\n        (name: \"bench\"",
            ),
        ),
        ("no_exit.ron", minimal_with(gate, "")),
        ("closed.ron", minimal_with("(3.0, 20.0)))", "(3.0, 20.0)), closed: true)")),
    ];
    let mut args = Vec::new();
    for (name, text) in &files {
        std::fs::write(dir.path().join(name), text).expect("write level");
        args.push(dir.path().join(name).display().to_string());
    }
    let run = check(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let d = dir.path().display();
    let warn = "when an alarm sounds nobody has a way out, and an evacuation needs one; allowed: \
                at least one exit that is not `closed` (docs/LEVELS.md, Exits)";
    assert_eq!(
        run.stdout.lines().collect::<Vec<_>>(),
        [
            format!("{d}/walled.ron:27:34: exits[0].area: `gate` cannot be reached from spawn zone `south`: obstacles close every way there; allowed: an exit people can walk to from every spawn zone (open a way, move it, or mark it `closed: true`)"),
            format!("{d}/no_exit.ron:1:1: exits: warning: the level has no exits: {warn}"),
            format!("{d}/closed.ron:26:12: exits: warning: every exit starts closed: {warn}"),
        ]
    );
    assert_eq!(
        run.stderr,
        "throng check: 3 levels checked: 1 error, 2 warnings"
    );
}

#[test]
fn model_paths_are_found_next_to_a_level_outside_the_repository() {
    // A level in a temporary folder outside the project, naming a model beside it, checked
    // from that folder: it is found there, not in the working directory or the project.
    let dir = tempfile::tempdir().expect("temp dir");
    let models = dir.path().join("models");
    std::fs::create_dir(&models).expect("models folder");
    let source = support::project_root().join("assets/characters/Casual_Male.gltf");
    std::fs::copy(&source, models.join("Bob.gltf")).expect("copy model");
    let level = minimal_with("assets/characters/Casual_Male.gltf", "models/Bob.gltf");
    std::fs::write(dir.path().join("own.ron"), &level).expect("write level");
    let run = check_in(dir.path(), &["own.ron"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);

    // The loaded level keeps the full path, so the game opens the same file from anywhere.
    let root = support::project_root();
    let loaded = throng::level::load_level(&dir.path().join("own.ron"), &root).expect("loads");
    let level_dir = dir.path().canonicalize().expect("canonical");
    assert_eq!(
        loaded.crowd.models[0].path,
        level_dir.join("models/Bob.gltf").display().to_string()
    );
    // The hero's path is under the project root only: kept as written.
    assert_eq!(loaded.hero.model, "assets/hero/Godette_vrm_v4.vrm");

    // A model in neither place: the message says where it looked, in order.
    let missing = minimal_with("assets/characters/Casual_Male.gltf", "models/Nobody.gltf");
    std::fs::write(dir.path().join("missing.ron"), missing).expect("write level");
    let run = check_in(dir.path(), &["missing.ron"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        format!(
            "missing.ron:19:41: crowd.models[0].path: `models/Nobody.gltf` does not exist; looked in the level's folder {}, then the project root {}",
            level_dir.display(),
            root.display()
        )
    );
}

/// File names may hold a newline or a terminal escape sequence: each problem stays one line
/// with the name escaped, nothing raw reaches the terminal, and `--json` keeps the names as
/// they are.
#[test]
fn odd_file_names_are_escaped_in_lines_and_kept_as_data_in_json() {
    let dir = support::scratch_dir();
    let broken = minimal_with("capacity: 5,", "capacity: 0,");
    let names = ["two\nlines.ron", "red\u{1b}[31m.ron", "csi\u{9b}2J.ron"];
    for name in names {
        std::fs::write(dir.path().join(name), &broken).expect("write");
    }
    let run = check_in(dir.path(), &names);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let shown = ["two\\nlines.ron", "red\\u{1b}[31m.ron", "csi\\u{9b}2J.ron"];
    assert_eq!(
        lines,
        shown.map(|s| format!(
            "{s}:9:69: points_of_interest[0].capacity: 0 would admit nobody; allowed: 1 or more"
        ))
    );
    assert!(!run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{9b}'));
    let run = check_in(dir.path(), &["--json", names[0], names[1], names[2]]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    let files: Vec<&str> = report
        .as_array()
        .expect("an array")
        .iter()
        .map(|p| p["file"].as_str().expect("a string"))
        .collect();
    assert_eq!(files, names);
    // A name that cannot be read is escaped the same way.
    let run = check_in(dir.path(), &["gone\n\u{1b}[2J.ron"]);
    assert_eq!(
        run.stdout,
        "gone\\n\\u{1b}[2J.ron: cannot read: no such file"
    );
}

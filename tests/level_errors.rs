//! The broken-level table: each row breaks the minimal level one way and names the exact message
//! a designer gets (file:line:column: field: what is wrong and what is allowed).

use std::path::Path;

use throng::level::{load_level, parse_level};

const MINIMAL: &str = include_str!("fixtures/levels/minimal.ron");
const LABEL: &str = "levels/broken.ron";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn error_for(old: &str, new: &str) -> String {
    assert!(MINIMAL.contains(old), "fixture lacks `{old}`");
    let src = MINIMAL.replacen(old, new, 1);
    match parse_level(&src, LABEL, root()) {
        Ok(_) => panic!("`{old}` -> `{new}` was accepted"),
        Err(e) => e.to_string(),
    }
}

/// (what to replace, replacement, expected message)
const CASES: &[(&str, &str, &str)] = &[
    // Syntax
    ("max: (20.0, 20.0)),", "max: (20.0, 20.0),", 
        "levels/broken.ron:4:14: bounds.obstacles: unknown field `obstacles`; allowed: min, max",
    ),
    // A missing comma is between two items of the container open there, not in the value
    // before it.
    ("    lod: (near", "    lod: (near: 1.0 near", 
        "levels/broken.ron:25:21: lod: expected a comma before `near`",
    ),
    ("(-20.0, -20.0), max:", "(-20.0, -20.0) max:", 
        "levels/broken.ron:3:34: bounds: expected a comma before `max`",
    ),
    ("[(6.0, 0.0), (0.0, 6.0)", "[(6.0, 0.0) (0.0, 6.0)", 
        "levels/broken.ron:12:44: paths[0].points: expected a comma before `(`",
    ),
    // A missing colon is after a field name, not a list element.
    ("name: \"Minimal\"", "name \"Minimal\"", 
        "levels/broken.ron:2:10: name: expected `:` after the field name `name`",
    ),
    ("radius: 3.0", "radius 3.0", 
        "levels/broken.ron:5:85: obstacles[0].shape.radius: expected `:` after the field name `radius`",
    ),
    // The level name is the window title: printable text of sensible length.
    ("name: \"Minimal\"", "name: \"Min\0imal\"", 
        "levels/broken.ron:2:11: name: character 4 is the control character U+0000; the name is the window title, allowed: printable text",
    ),
    ("name: \"Minimal\"", "name: \"Min\u{1b}[2Jimal\"", 
        "levels/broken.ron:2:11: name: character 4 is the control character U+001B; the name is the window title, allowed: printable text",
    ),
    ("name: \"Minimal\"", "name: \"Miiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiinimal\"", 
        "levels/broken.ron:2:11: name: 104 characters long; allowed: at most 100",
    ),
    // Unknown fields and wrong types
    ("        count: 100,", "        cout: 100,", 
        "levels/broken.ron:18:13: crowd.cout: unknown field `cout`; allowed: count, models, variant_groups, walk_speed, seed, behaviour, groups, tick_hz",
    ),
    ("        count: 100,", "        count: \"many\",", 
        "levels/broken.ron:18:16: crowd.count: expected a whole number 0 or more",
    ),
    ("        count: 100,", "        count: -5,", 
        "levels/broken.ron:18:16: crowd.count: expected a whole number 0 or more",
    ),
    ("kind: Fountain", "kind: Fontain", 
        "levels/broken.ron:5:41: obstacles[0].kind: unknown value `Fontain`; allowed: Fountain, Bench, Kiosk, Tree, LampPost, Building, Wall, Mat, Fence, Bollard, Planter, InformationBoard, Stage",
    ),
    ("capacity: 5,", "capacity: 5.5,", 
        "levels/broken.ron:9:70: points_of_interest[0].capacity: expected a whole number, found a decimal",
    ),
    // Missing fields
    ("        seed: 1,\n", "", 
        "levels/broken.ron:22:5: crowd: missing field `seed`",
    ),
    // Out-of-range numbers
    ("        count: 100,", "        count: 2000000,", 
        "levels/broken.ron:18:16: crowd.count: 2000000 is above the maximum 1000000",
    ),
    ("radius: 3.0", "radius: -3.0", 
        "levels/broken.ron:5:86: obstacles[0].shape.radius: -3 must be above 0",
    ),
    ("walk_speed: (min: 1.0, max: 1.4)", "walk_speed: (min: 1.8, max: 1.4)", 
        "levels/broken.ron:21:21: crowd.walk_speed: min 1.8 is above max 1.4",
    ),
    // Speeds from a normal distribution, clamped to the range; walking groups.
    ("walk_speed: (min: 1.0, max: 1.4)", "walk_speed: (min: 1.0, max: 1.4, normal: (mean: 1.3, sd: -0.2))", 
        "levels/broken.ron:21:66: crowd.walk_speed.normal.sd: -0.2 is outside the allowed range 0 to 3",
    ),
    ("walk_speed: (min: 1.0, max: 1.4)", "walk_speed: (min: 1.0, max: 1.4, normal: (mean: 2.0, sd: 0.2))", 
        "levels/broken.ron:21:57: crowd.walk_speed.normal.mean: 2 is outside the allowed range 1 to 1.4",
    ),
    ("walk_speed: (min: 1.0, max: 1.4)", "walk_speed: (min: 1.0, max: 1.4, normal: (mean: 1.2, sdev: 0.2))", 
        "levels/broken.ron:21:66: crowd.walk_speed.normal.sdev: unknown field `sdev`; allowed: mean, sd",
    ),
    ("seed: 1,", "seed: 1, groups: (share: 1.5),", 
        "levels/broken.ron:22:34: crowd.groups.share: 1.5 is outside the allowed range 0 to 1",
    ),
    ("seed: 1,", "seed: 1, groups: (share: 0.5, sizes: [(size: 2, weight: 1.0), (size: 9, weight: 1.0)]),", 
        "levels/broken.ron:22:78: crowd.groups.sizes[1].size: 9 is outside the allowed range 2 to 6",
    ),
    ("seed: 1,", "seed: 1, groups: (share: 0.5, sizes: [(size: 2, weight: 0.0)]),", 
        "levels/broken.ron:22:46: crowd.groups.sizes: people walk in groups (share above 0): at least one size needs a weight above 0",
    ),
    ("lod: (near: 15.0, mid: 40.0", "lod: (near: 50.0, mid: 40.0", 
        "levels/broken.ron:25:10: lod: distances must grow: near 50 < mid 40 < far 120",
    ),
    ("hysteresis: 2.0),", "hysteresis: 2.0, fade: 0.8),", 
        "levels/broken.ron:25:69: lod.fade: 0.8 is outside the allowed range 0 to 0.5",
    ),
    ("far: 120.0, hysteresis", "far: 120.0, impostor: 10.0, hysteresis", 
        "levels/broken.ron:25:56: lod.impostor: 10 is below near 15; allowed: near or more (impostors replace the mid and far meshes from there; at or past far 120 there are none)",
    ),
    ("tints: [(0.7, 0.2, 0.2)]", "tints: [(0.7, -0.2, 0.2)]", 
        "levels/broken.ron:20:68: crowd.variant_groups[0].tints[0]: -0.2 is negative; colours are linear RGB, 0 or more",
    ),
    ("capacity: 5,", "capacity: 0,", 
        "levels/broken.ron:9:69: points_of_interest[0].capacity: 0 would admit nobody; allowed: 1 or more",
    ),
    // NaN and infinity
    ("radius: 3.0", "radius: NaN", 
        "levels/broken.ron:5:86: obstacles[0].shape.radius: NaN is not a finite number",
    ),
    ("position: (0.0, 5.0)", "position: (inf, 5.0)", 
        "levels/broken.ron:9:34: points_of_interest[0].position: inf is not a finite number",
    ),
    // Degenerate polylines
    ("points: [(6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0)]", "points: [(6.0, 0.0)]", 
        "levels/broken.ron:12:32: paths[0].points: `ring` has 1 point(s); a path needs at least 2",
    ),
    ("points: [(6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0)]", "points: [(6.0, 0.0), (6.0, 0.0), (-6.0, 0.0)]", 
        "levels/broken.ron:12:45: paths[0].points[1]: (6, 0) repeats the previous point; a path segment needs length",
    ),
    ("points: [(6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0)]", "points: [(6.0, 0.0), (-6.0, 0.0)]", 
        "levels/broken.ron:12:45: paths[0].points[1]: the segment (6, 0) to (-6, 0) passes through obstacle `fountain`",
    ),
    // Geometry against the bounds and the obstacles
    ("center: (0.0, 8.0)", "center: (0.0, 19.9)", 
        "levels/broken.ron:6:45: obstacles[1].shape: `bench` reaches (-1.5, 20.25) outside the plaza bounds (-20, -20) to (20, 20)",
    ),
    ("position: (0.0, 5.0)", "position: (1.0, 1.0)", 
        "levels/broken.ron:9:34: points_of_interest[0].position: (1, 1) is inside obstacle `fountain`: agents could never reach it",
    ),
    ("spawn: (5.0, 12.0)", "spawn: (35.0, 12.0)", 
        "levels/broken.ron:24:60: hero.spawn: (35, 12) is outside the plaza bounds (-20, -20) to (20, 20)",
    ),
    ("half_extents: (5.0, 3.0)", "half_extents: (0.0, 3.0)", 
        "levels/broken.ron:15:60: spawn_zones[0].half_extents: (0, 3) has no area; both must be above 0",
    ),
    ("bounds: (min: (-20.0, -20.0)", "bounds: (min: (30.0, -20.0)", 
        "levels/broken.ron:3:13: bounds: min (30, -20) must be below max (20, 20) in both x and z",
    ),
    // References
    ("path: Some(\"ring\")", "path: Some(\"rign\")", 
        "levels/broken.ron:15:78: spawn_zones[0].path: no path named `rign`; paths: ring",
    ),
    ("models: [\"casual\"]", "models: [\"casul\"]", 
        "levels/broken.ron:20:49: crowd.variant_groups[0].models[0]: no crowd model named `casul`; models: casual",
    ),
    ("Casual_Male.gltf", "Nobody.gltf", 
        "levels/broken.ron:19:41: crowd.models[0].path: `assets/characters/Nobody.gltf` does not exist; looked in the project root {root}",
    ),
    ("Godette_vrm_v4.vrm", "Godette_vrm_v4.fbx", 
        "levels/broken.ron:24:19: hero.model: `assets/hero/Godette_vrm_v4.fbx` is not a model file; allowed: .gltf, .glb or .vrm",
    ),
    // Hints for the common RON traps (issue 19): `Some(..)` for optional values, points and
    // colours by their number of numbers, text in quotes, the bracket left open.
    ("path: Some(\"ring\")", "path: \"ring\"",
        "levels/broken.ron:15:78: spawn_zones[0].path: expected an optional value; write Some(\"ring\") (or leave the field out for none)",
    ),
    ("path: Some(\"ring\")", "path: ring",
        "levels/broken.ron:15:78: spawn_zones[0].path: expected an optional value; write Some(\"ring\") (or leave the field out for none)",
    ),
    ("path: Some(\"ring\")", "path: Some(ring)",
        "levels/broken.ron:15:83: spawn_zones[0].path: expected text in double quotes; write \"ring\"",
    ),
    ("name: \"Minimal\"", "name: Minimal",
        "levels/broken.ron:2:11: name: expected text in double quotes; write \"Minimal\"",
    ),
    ("    lod: (near", "    lighting: (sky_color: (0.55, 0.72)),\n    lod: (near",
        "levels/broken.ron:25:38: lighting.sky_color: expected (x, y, z): three numbers, found 2",
    ),
    ("    lod: (near", "    lighting: (sky_color: 0.5),\n    lod: (near",
        "levels/broken.ron:25:27: lighting.sky_color: expected (x, y, z): three numbers in brackets",
    ),
    ("position: (0.0, 5.0)", "position: (0.0)",
        "levels/broken.ron:9:38: points_of_interest[0].position: expected (x, z): two numbers, found 1",
    ),
    ("spawn: (5.0, 12.0)", "spawn: (5.0, 12.0, 1.0)",
        "levels/broken.ron:24:72: hero.spawn: too many numbers: expected (x, z): two numbers",
    ),
    ("loop: true", "loop: \"yes\"",
        "levels/broken.ron:12:90: paths[0].loop: expected true or false",
    ),
    // The missing comma, between `min` and `max` on their own lines: the struct holding
    // both is named, not the last number of `min`.
    ("bounds: (min: (-20.0, -20.0), max: (20.0, 20.0))", "bounds: (\n        min: (-20.0, -20.0)\n        max: (20.0, 20.0)\n    )",
        "levels/broken.ron:5:9: bounds: expected a comma before `max`",
    ),
    // `min`'s bracket left open: ron stops at `max`, inside `min`.
    ("(-20.0, -20.0), max:", "(-20.0, -20.0 max:",
        "levels/broken.ron:3:33: bounds.min: expected `)` before the field `max`: this bracket is not closed",
    ),
    ("(name: \"bench\"", "(name: \"fountain\"", 
        "levels/broken.ron:6:16: obstacles[1].name: `fountain` is used twice in obstacles; names must be unique",
    ),
];

#[test]
fn every_broken_level_gets_its_exact_message() {
    let mut wrong = Vec::new();
    for (old, new, expected) in CASES {
        let got = error_for(old, new);
        // Messages about missing files name the asset root, which depends on the checkout.
        let expected = expected.replace("{root}", &root().display().to_string());
        if got != expected {
            wrong.push(format!(
                "{old:?} -> {new:?}\n   got: {got}\n  want: {expected}"
            ));
        }
    }
    assert!(CASES.len() >= 15);
    assert!(
        wrong.is_empty(),
        "{} of {} rows differ:\n{}",
        wrong.len(),
        CASES.len(),
        wrong.join("\n")
    );
}

/// The minimal fixture's one exit, a gate on the south edge of the bounds.
const GATE: &str = "exits: [(name: \"gate\", area: Line((-3.0, 20.0), (3.0, 20.0)))],";

/// Exits and alarm events (issue #32): (what to replace, replacement, expected message).
const EXIT_CASES: &[(&str, &str, &str)] = &[
    (GATE, "exits: [(name: \"gate\", area: Line((-3.0, 20.0), (3.0, 20.0))), (name: \"gate\", area: Line((20.0, -3.0), (20.0, 3.0)))],",
        "levels/broken.ron:26:75: exits[1].name: `gate` is used twice in exits; names must be unique",
    ),
    ("(name: \"gate\"", "(name: \"\"",
        "levels/broken.ron:26:20: exits[0].name: a name is required",
    ),
    ("Line((-3.0, 20.0)", "Line((NaN, 20.0)",
        "levels/broken.ron:26:39: exits[0].area[0]: NaN is not a finite number",
    ),
    ("Line((-3.0, 20.0), (3.0, 20.0))", "Line((3.0, 20.0), (3.0, 20.0))",
        "levels/broken.ron:26:34: exits[0].area: `gate` runs from (3, 20) to the same point: it has no width; allowed: two different points, across the opening",
    ),
    // In the open: on no edge, against no obstacle.
    ("Line((-3.0, 20.0), (3.0, 20.0))", "Line((-3.0, 12.0), (3.0, 12.0))",
        "levels/broken.ron:26:34: exits[0].area: `gate` lies neither on the bounds nor across an opening: its end (-3, 12) is 8 m from the bounds' edge and 3.9 m from the nearest obstacle; allowed: both ends within 0.5 m of the same edge of the bounds (a street end), or a line across an opening: each end within 0.5 m of an obstacle or of the bounds' edge, at least one at an obstacle (a doorway between two walls)",
    ),
    // Across a corner: each end on an edge, but two different edges and no obstacle.
    ("Line((-3.0, 20.0), (3.0, 20.0))", "Line((17.0, 20.0), (20.0, 17.0))",
        "levels/broken.ron:26:34: exits[0].area: `gate` lies neither on the bounds nor across an opening: its end (20, 17) is 0 m from the bounds' edge and 20.4 m from the nearest obstacle; allowed: both ends within 0.5 m of the same edge of the bounds (a street end), or a line across an opening: each end within 0.5 m of an obstacle or of the bounds' edge, at least one at an obstacle (a doorway between two walls)",
    ),
    // From the fountain towards the bench, stopping 0.65 m short of it.
    ("Line((-3.0, 20.0), (3.0, 20.0))", "Line((0.0, 3.2), (0.0, 7.0))",
        "levels/broken.ron:26:34: exits[0].area: `gate` lies neither on the bounds nor across an opening: its end (0, 7) is 13 m from the bounds' edge and 0.7 m from the nearest obstacle; allowed: both ends within 0.5 m of the same edge of the bounds (a street end), or a line across an opening: each end within 0.5 m of an obstacle or of the bounds' edge, at least one at an obstacle (a doorway between two walls)",
    ),
    ("Line((-3.0, 20.0), (3.0, 20.0))", "Box(center: (0.0, 18.0), half_extents: (2.0, 0.0))",
        "levels/broken.ron:26:73: exits[0].area.half_extents: (2, 0) has no area; both must be above 0",
    ),
    ("Line((-3.0, 20.0), (3.0, 20.0))", "Box(center: (0.0, 19.0), half_extents: (2.0, 2.0))",
        "levels/broken.ron:26:46: exits[0].area.center: `gate` reaches (2, 21) outside the plaza bounds (-20, -20) to (20, 20)",
    ),
    ("(3.0, 20.0)))", "(3.0, 20.0)), capacity: Some(0.0))",
        "levels/broken.ron:26:77: exits[0].capacity: 0 would let nobody out; allowed: people per second above 0, or leave it out for 1.3 a second per metre of width",
    ),
    ("(3.0, 20.0)))", "(3.0, 20.0)), capacity: Some(inf))",
        "levels/broken.ron:26:77: exits[0].capacity: inf is not a finite number; allowed: people per second above 0, or leave it out for 1.3 a second per metre of width",
    ),
    (GATE, "exits: [(name: \"gate\", area: Line((-3.0, 20.0), (3.0, 20.0)))],\n    alarms: [(at: -5.0, position: (0.0, 0.0))],",
        "levels/broken.ron:27:19: alarms[0].at: -5 is below the minimum 0",
    ),
    (GATE, "exits: [(name: \"gate\", area: Line((-3.0, 20.0), (3.0, 20.0)))],\n    alarms: [(at: 30.0, position: (0.0, 25.0))],",
        "levels/broken.ron:27:35: alarms[0].position: (0, 25) is outside the plaza bounds (-20, -20) to (20, 20)",
    ),
    (GATE, "exits: [(name: \"gate\", area: Line((-3.0, 20.0), (3.0, 20.0)))],\n    alarms: [(at: 30.0, position: (0.0, 0.0), all_clear_after: Some(0.0))],",
        "levels/broken.ron:27:64: alarms[0].all_clear_after: 0 must be above 0; allowed: seconds above 0, or leave it out for an alarm that lasts until the player gives the all-clear",
    ),
    ("seed: 1,", "seed: 1, behaviour: (alarm: (speed_factor: 5.0)),",
        "levels/broken.ron:22:52: crowd.behaviour.alarm.speed_factor: 5 is outside the allowed range 0.5 to 3",
    ),
    ("seed: 1,", "seed: 1, behaviour: (alarm: (reaction_seconds: (min: 4.0, max: 2.0))),",
        "levels/broken.ron:22:56: crowd.behaviour.alarm.reaction_seconds: min 4 is above max 2",
    ),
];

#[test]
fn every_broken_exit_and_alarm_gets_its_exact_message() {
    let wrong: Vec<String> = EXIT_CASES
        .iter()
        .filter_map(|(old, new, expected)| {
            let got = error_for(old, new);
            (got != *expected).then(|| format!("{new:?}\n   got: {got}\n  want: {expected}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} rows differ:\n{}",
        wrong.len(),
        EXIT_CASES.len(),
        wrong.join("\n")
    );
}

#[test]
fn exits_on_the_bounds_or_across_an_opening_are_accepted() {
    let accepted = [
        // Half a metre off the edge still counts as on it (a street end written roughly).
        "Line((-3.0, 20.4), (3.0, 19.6))",
        // A doorway between the fountain (radius 3) and the bench (its edge at z = 7.65).
        "Line((0.0, 3.0), (0.0, 7.65))",
        // Between the fountain and the bounds' west edge.
        "Line((-20.0, 0.0), (-3.2, 0.0))",
        "Box(center: (0.0, 18.0), half_extents: (3.0, 2.0))",
    ];
    for area in accepted {
        let src = MINIMAL.replacen("Line((-3.0, 20.0), (3.0, 20.0))", area, 1);
        let src = src.replacen(
            GATE,
            &format!("{GATE}\n    alarms: [(at: 0.0, position: (0.0, 10.0), all_clear_after: Some(90.0))],"),
            1,
        );
        if let Err(e) = parse_level(&src, LABEL, root()) {
            panic!("{area}: {e}");
        }
    }
}

#[test]
fn exits_and_alarms_beyond_their_limit_are_refused() {
    let exits: String = (0..257)
        .map(|i| format!("(name: \"e{i}\", area: Line((-3.0, 20.0), (3.0, 20.0))),"))
        .collect();
    assert_eq!(
        error_for(GATE, &format!("exits: [{exits}],")),
        "levels/broken.ron:26:12: exits: 257 exits; allowed: at most 256"
    );
    let alarms: String = (0..257)
        .map(|i| format!("(at: {i}.0, position: (0.0, 0.0)),"))
        .collect();
    let with_alarms = format!("{GATE}\n    alarms: [{alarms}],");
    assert_eq!(
        error_for(GATE, &with_alarms),
        "levels/broken.ron:27:13: alarms: 257 alarm events; allowed: at most 256"
    );
}

/// The minimal fixture with one measurement area and one measurement line after its gate.
fn with_measurements(areas: &str, lines: &str) -> String {
    format!("{GATE}\n    measurement_areas: [{areas}],\n    measurement_lines: [{lines}],")
}

const AREA: &str =
    "(name: \"yard\", polygon: [(-4.0, 10.0), (4.0, 10.0), (4.0, 18.0), (-4.0, 18.0)])";
const LINE: &str = "(name: \"gate_line\", from: (3.0, 18.0), to: (-3.0, 18.0))";

/// (areas, lines, expected message)
const MEASUREMENT_CASES: &[(&str, &str, &str)] = &[
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (4.0, 10.0), (4.0, 18.0), (-4.0, 18.0)])", "(name: \"yard\", from: (3.0, 18.0), to: (-3.0, 18.0))",
        "levels/broken.ron:28:32: measurement_lines[0].name: `yard` is already the name of measurement_areas[0]; names must be unique among measurement areas and lines",
    ),
    ("(name: \" \", polygon: [(-4.0, 10.0), (4.0, 10.0), (4.0, 18.0), (-4.0, 18.0)])", LINE,
        "levels/broken.ron:27:32: measurement_areas[0].name: a name is required",
    ),
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (4.0, 10.0)])", LINE,
        "levels/broken.ron:27:49: measurement_areas[0].polygon: `yard` has 2 corners; allowed: a simple polygon of at least 3 (x, z) corners, in either winding, with an area of at least 0.01 m², whose edges meet only at the corners they share",
    ),
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (4.0, inf), (4.0, 18.0)])", LINE,
        "levels/broken.ron:27:64: measurement_areas[0].polygon[1]: inf is not a finite number",
    ),
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (4.0, 10.0), (4.0, 28.0)])", LINE,
        "levels/broken.ron:27:77: measurement_areas[0].polygon[2]: `yard`'s corner (4, 28) is outside the plaza bounds (-20, -20) to (20, 20)",
    ),
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (0.0, 10.0), (4.0, 10.0)])", LINE,
        "levels/broken.ron:27:49: measurement_areas[0].polygon: `yard` has no area: its corners lie on one line; allowed: a simple polygon of at least 3 (x, z) corners, in either winding, with an area of at least 0.01 m², whose edges meet only at the corners they share",
    ),
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (4.0, 10.0), (-4.0, 18.0), (4.0, 18.0)])", LINE,
        "levels/broken.ron:27:49: measurement_areas[0].polygon: `yard` is not a simple polygon: edge 1 (4, 10) to (-4, 18) crosses edge 3 (4, 18) to (-4, 10); allowed: a simple polygon of at least 3 (x, z) corners, in either winding, with an area of at least 0.01 m², whose edges meet only at the corners they share",
    ),
    ("(name: \"yard\", polygon: [(-4.0, 10.0), (-3.95, 10.0), (-4.0, 10.05)])", LINE,
        "levels/broken.ron:27:49: measurement_areas[0].polygon: `yard` has an area of 0 m²; allowed: a simple polygon of at least 3 (x, z) corners, in either winding, with an area of at least 0.01 m², whose edges meet only at the corners they share",
    ),
    (AREA, "(name: \"gate_line\", from: (3.0, 18.0), to: (NaN, 18.0))",
        "levels/broken.ron:28:68: measurement_lines[0].to: NaN is not a finite number",
    ),
    (AREA, "(name: \"gate_line\", from: (3.0, 21.0), to: (-3.0, 18.0))",
        "levels/broken.ron:28:51: measurement_lines[0].from: `gate_line`'s end (3, 21) is outside the plaza bounds (-20, -20) to (20, 20)",
    ),
    (AREA, "(name: \"gate_line\", from: (3.0, 18.0), to: (3.1, 18.0))",
        "levels/broken.ron:28:68: measurement_lines[0].to: `gate_line` is 0.1 m long; allowed: at least 0.2 m from `from` to `to`",
    ),
];

#[test]
fn every_broken_measurement_gets_its_exact_message() {
    let wrong: Vec<String> = MEASUREMENT_CASES
        .iter()
        .filter_map(|(areas, lines, expected)| {
            let got = error_for(GATE, &with_measurements(areas, lines));
            (got != *expected)
                .then(|| format!("{areas} {lines}\n   got: {got}\n  want: {expected}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} rows differ:\n{}",
        wrong.len(),
        MEASUREMENT_CASES.len(),
        wrong.join("\n")
    );
}

#[test]
fn measurements_inside_the_bounds_are_accepted() {
    // Either winding, concave, over an obstacle (the fountain), on the bounds' edge.
    let areas = [
        AREA,
        "(name: \"yard\", polygon: [(-4.0, 18.0), (4.0, 18.0), (4.0, 10.0), (-4.0, 10.0)])",
        "(name: \"yard\", polygon: [(-5.0, -5.0), (5.0, -5.0), (5.0, 5.0), (0.0, 1.0), (-5.0, 5.0)])",
        "(name: \"yard\", polygon: [(-20.0, 20.0), (-20.0, 16.0), (-16.0, 20.0)])",
    ];
    for area in areas {
        let src = MINIMAL.replacen(GATE, &with_measurements(area, LINE), 1);
        let level = parse_level(&src, LABEL, root()).unwrap_or_else(|e| panic!("{area}: {e}"));
        assert_eq!(level.measurement_areas[0].name, "yard");
        assert_eq!(level.measurement_lines[0].name, "gate_line");
    }
    // A line on the bounds' edge, 0.2 m long.
    let line = "(name: \"gate_line\", from: (0.0, 20.0), to: (0.2, 20.0))";
    let src = MINIMAL.replacen(GATE, &with_measurements(AREA, line), 1);
    if let Err(e) = parse_level(&src, LABEL, root()) {
        panic!("{line}: {e}");
    }
}

#[test]
fn measurements_beyond_their_limit_are_refused() {
    let lines: String = (0..65)
        .map(|i| format!("(name: \"l{i}\", from: (3.0, 18.0), to: (-3.0, 18.0)),"))
        .collect();
    assert_eq!(
        error_for(GATE, &with_measurements(AREA, &lines)),
        "levels/broken.ron:28:24: measurement_lines: 65 measurement lines; allowed: at most 64"
    );
    let areas: String = (0..65)
        .map(|i| format!("(name: \"a{i}\", polygon: [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]),"))
        .collect();
    assert_eq!(
        error_for(GATE, &with_measurements(&areas, LINE)),
        "levels/broken.ron:27:24: measurement_areas: 65 measurement areas; allowed: at most 64"
    );
    let corners: String = (0..257)
        .map(|i| {
            let a = i as f32 / 257.0 * std::f32::consts::TAU;
            format!("({}, {}),", 5.0 * a.cos(), 5.0 * a.sin())
        })
        .collect();
    let area = format!("(name: \"round\", polygon: [{corners}])");
    let got = error_for(GATE, &with_measurements(&area, LINE));
    assert!(
        got.ends_with("measurement_areas[0].polygon: 257 corners; allowed: at most 256"),
        "{got}"
    );
}

#[test]
fn the_impostor_distance_is_optional_and_read_when_given() {
    let old = parse_level(MINIMAL, LABEL, root()).expect("minimal loads");
    assert_eq!(
        old.lod.impostor,
        f32::INFINITY,
        "older levels draw no impostors"
    );
    let with = MINIMAL.replacen("far: 120.0,", "far: 120.0, impostor: 60.0,", 1);
    let level = parse_level(&with, LABEL, root()).expect("with impostor loads");
    assert_eq!(level.lod.impostor, 60.0);
    // Impostors from near on (inside the mid band), after mid, or none (at far or past it).
    for d in ["15.0", "30.0", "40.0", "120.0", "500.0"] {
        let src = MINIMAL.replacen("far: 120.0,", &format!("far: 120.0, impostor: {d},"), 1);
        assert!(parse_level(&src, LABEL, root()).is_ok(), "impostor {d}");
    }
}

#[test]
fn the_minimal_fixture_and_the_shipped_levels_load() {
    parse_level(MINIMAL, LABEL, root()).expect("minimal level is valid");
    for name in ["plaza", "market", "stress"] {
        let path = root().join("levels").join(format!("{name}.ron"));
        if let Err(e) = load_level(&path, root()) {
            panic!("levels/{name}.ron: {e}");
        }
    }
}

#[test]
fn the_default_plaza_has_what_the_brief_promises() {
    use throng::level::{Activity, ObstacleKind};
    let plaza = load_level(&root().join("levels/plaza.ron"), root()).expect("plaza loads");
    let count = |k: ObstacleKind| plaza.obstacles.iter().filter(|o| o.kind == k).count();
    assert_eq!(count(ObstacleKind::Fountain), 1);
    assert!(count(ObstacleKind::Bench) >= 8);
    assert!(count(ObstacleKind::Kiosk) >= 3);
    assert!(count(ObstacleKind::Tree) >= 8);
    assert!(count(ObstacleKind::LampPost) >= 4);
    assert!(count(ObstacleKind::Building) >= 8);
    for a in [
        Activity::Linger,
        Activity::Sit,
        Activity::WatchFountain,
        Activity::Queue,
    ] {
        assert!(
            plaza.points_of_interest.iter().any(|p| p.activity == a),
            "{a:?}"
        );
    }
    assert!(plaza.paths.iter().any(|p| p.looped));
    assert!(plaza.spawn_zones.len() >= 4);
    assert_eq!(plaza.crowd.models.len(), 7);
    assert!(plaza.crowd.variant_groups.len() >= 3);
}

#[test]
fn a_missing_file_is_named_without_a_line_and_column() {
    let err = load_level(Path::new("levels/none.ron"), root()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "levels/none.ron: cannot read: no such file"
    );
    assert!(!err.has_position());
}

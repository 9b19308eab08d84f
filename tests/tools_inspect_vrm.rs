//! `throng inspect` on the real Godette through the binary: the VRM details (spring chains,
//! collider groups, look-at, expressions with overrides and binds, constraints, first-person
//! annotations) as text and JSON, and `--trace` running her runtime headless; bad trace
//! arguments end with a clear message and status 2 (clap's), never a panic.

mod support;

use serde_json::Value;
use support::headless::{throng, throng_ok};

const GODETTE: &str = "assets/hero/Godette_vrm_v4.vrm";

#[test]
fn inspect_lists_springs_look_at_expressions_constraints_and_first_person() {
    let text = throng_ok(&["inspect", GODETTE]).stdout;
    for needle in [
        "spring bones: 8 chains, 16 joints, 4 colliders",
        "stiffness 2.50..2.50",
        "collider group 0",
        "sphere at",
        "look-at: expression",
        "horizontal outer",
        "curve of",
        "expression blink",
        "overrides blink none",
        "node constraints: 0",
        "first-person annotations:",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    let v: Value =
        serde_json::from_str(&throng_ok(&["inspect", GODETTE, "--json"]).stdout).expect("JSON");
    let vrm = &v["vrm"];
    let springs = vrm["spring_bones"]["springs"].as_array().expect("springs");
    assert_eq!(springs.len(), 8);
    let joints: usize = springs
        .iter()
        .map(|s| s["joints"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(joints, 16);
    assert_eq!(
        vrm["spring_bones"]["colliders"].as_array().map(Vec::len),
        Some(4)
    );
    assert_eq!(vrm["look_at"]["type"], "expression");
    assert!(vrm["look_at"]["range_map_vertical_up"]["input_max_value"].is_number());
    let blink = vrm["expressions"]
        .as_array()
        .and_then(|e| e.iter().find(|x| x["name"] == "blink"))
        .expect("blink");
    assert_eq!(blink["override_mouth"], "none");
    assert!(!blink["morph_target_binds"]
        .as_array()
        .expect("binds")
        .is_empty());
    assert_eq!(vrm["constraints"].as_array().map(Vec::len), Some(0));
    assert!(vrm["first_person"].is_array());
    // The Backpack's metallic-roughness as read (glTF defaults: 1.0 each).
    let backpack = v["materials"]
        .as_array()
        .and_then(|m| m.iter().find(|x| x["name"] == "Backpack"))
        .expect("Backpack");
    assert_eq!(backpack["metallic_factor"], 1.0);
    assert_eq!(backpack["metallic_roughness_texture"], 3);
}

fn trace(motion: &str) -> Value {
    let run = throng_ok(&[
        "inspect",
        GODETTE,
        "--trace",
        "--motion",
        motion,
        "--seconds",
        "1",
        "--fps",
        "30",
        "--json",
    ]);
    serde_json::from_str(&run.stdout).expect("trace JSON")
}

#[test]
fn trace_writes_tails_head_eyes_and_expressions_per_frame() {
    let idle = trace("idle");
    assert_eq!(idle["fps"], 30);
    let frames = idle["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 31, "frames 0..=30");
    let joints = idle["spring_joints"].as_array().expect("joints").len();
    assert_eq!(joints, 16);
    for f in frames {
        assert_eq!(f["tails"].as_array().map(Vec::len), Some(joints));
        assert_eq!(f["head"]["world"].as_array().map(Vec::len), Some(4));
        assert!(
            f["expressions"]["lookLeft"].is_number(),
            "{}",
            f["expressions"]
        );
    }
    assert_eq!(
        idle["warnings"].as_array().map(Vec::len),
        Some(0),
        "{}",
        idle["warnings"]
    );
    // The look target is 2 m ahead at 1.5 m: her head turns towards it over the second, so
    // its rotation at the end differs from the first frame's.
    let first = &frames[0]["head"]["world"];
    let last = &frames[30]["head"]["world"];
    assert_ne!(first, last);
    // Walking moves her ahead and swings the hair: tails move more than standing.
    let walk = trace("walk");
    let wf = walk["frames"].as_array().expect("frames");
    let z = |f: &Value| f["position"][1].as_f64().unwrap_or(0.0);
    assert!(z(&wf[30]).abs() > 0.5, "walked {}", z(&wf[30]));
    let tail_path = |fs: &[Value]| -> f64 {
        fs.windows(2)
            .map(|w| {
                let a = w[0]["tails"][0].as_array().expect("tail");
                let b = w[1]["tails"][0].as_array().expect("tail");
                (0..3)
                    .map(|k| (a[k].as_f64().unwrap_or(0.0) - b[k].as_f64().unwrap_or(0.0)).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .sum()
    };
    assert!(tail_path(wf) > tail_path(frames) + 0.3);
    for m in ["run", "wave"] {
        assert_eq!(trace(m)["frames"].as_array().map(Vec::len), Some(31), "{m}");
    }
}

#[test]
fn bad_trace_arguments_get_clear_messages() {
    let cases: [(&[&str], &str); 6] = [
        (&["--trace", "--motion", "dance"], "invalid value 'dance'"),
        (&["--trace", "--seconds", "0"], "not a duration"),
        (&["--trace", "--seconds", "nan"], "not a duration"),
        (&["--trace", "--fps", "1000"], "not a frame rate"),
        (&["--motion", "walk"], "--trace"),
        (&["--trace", "--pose", "0"], "cannot be used with"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["inspect", GODETTE];
        args.extend_from_slice(extra);
        let run = throng(&args);
        assert_eq!(run.code, 2, "{args:?}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(want), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    // Too many frames in all: refused before the run, exit 1 with the limit named.
    let run = throng(&[
        "inspect",
        GODETTE,
        "--trace",
        "--seconds",
        "600",
        "--fps",
        "240",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("above the limit of 36000"),
        "{}",
        run.stderr
    );
}

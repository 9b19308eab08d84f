//! `throng inspect`: summary text/JSON and the posed JSON with the reference files' keys.

mod support;
use support::model_path;
use throng::tools::inspect::{run_inspect, InspectArgs};

fn args(model: &str) -> InspectArgs {
    InspectArgs {
        model: model_path(model),
        json: false,
        pose: None,
        time: 0.0,
        morph: Vec::new(),
        expression: Vec::new(),
        trace: false,
        motion: throng::tools::trace::TraceMotion::Idle,
        seconds: 2.0,
        fps: 60,
    }
}

#[test]
fn summary_lists_what_a_designer_needs() {
    let text = run_inspect(&args("Fox.glb")).unwrap();
    for needle in [
        "nodes:",
        "meshes:",
        "skins:",
        "clips: 3",
        "Walk",
        "Survey",
        "materials:",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    let text = run_inspect(&args("Godette_vrm_v4.vrm")).unwrap();
    assert!(
        text.contains("MToon")
            && text.contains("expression blink")
            && text.contains("morph targets")
    );
    let mut a = args("RobotExpressive.glb");
    a.json = true;
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    assert_eq!(v["clips"].as_array().unwrap().len(), 14);
    assert_eq!(
        v["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| !m["morph_targets"].as_array().unwrap().is_empty())
            .count(),
        1
    );
}

#[test]
fn posed_json_has_reference_keys_and_all_vertices() {
    let mut a = args("Fox.glb");
    a.json = true;
    a.pose = Some("Walk".into());
    a.time = 0.35;
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    let m = &v["meshes"][0];
    for k in [
        "node",
        "mesh",
        "primitive",
        "vertex_count",
        "morph_weights",
        "positions_world",
        "positions_local",
    ] {
        assert!(!m[k].is_null(), "key {k}");
    }
    assert_eq!(m["positions_world"].as_array().unwrap().len(), 1728 * 3);
    let j = &v["skins"][0]["joints"][0];
    for k in ["node", "world_matrix", "joint_matrix"] {
        assert!(!j[k].is_null(), "key {k}");
    }
}

#[test]
fn morph_and_expression_flags() {
    let mut a = args("MorphPrimitivesTest.glb");
    a.json = true;
    a.pose = Some("none".into());
    a.morph = vec!["1=1".into()];
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    assert_eq!(v["meshes"][0]["morph_weights"][0], 1.0);
    let mut a = args("Godette_vrm_v4.vrm");
    a.json = true;
    a.expression = vec!["blink=1".into()];
    let v: serde_json::Value = serde_json::from_str(&run_inspect(&a).unwrap()).unwrap();
    assert_eq!(v["meshes"][0]["morph_weights"][3], 1.0);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let mut a = args("Fox.glb");
    a.pose = Some("Dance".into());
    assert_eq!(run_inspect(&a).unwrap_err(), "Fox.glb: no clip \"Dance\"");
    let mut a = args("Fox.glb");
    a.morph = vec!["nosuchnode=1".into()];
    assert!(run_inspect(&a).unwrap_err().contains("no node"));
    let mut a = args("Fox.glb");
    a.expression = vec!["blink=1".into()];
    assert!(run_inspect(&a).unwrap_err().contains("no VRM expression"));
    let mut a = args("Fox.glb");
    a.model = "does/not/exist.glb".into();
    // A file that cannot be read is named as given, folders and all.
    assert!(run_inspect(&a)
        .unwrap_err()
        .starts_with("does/not/exist.glb: read:"));
}

/// The builder's skinned triangle with its two joints 3e38 m out along x: each is finite, but
/// the tip's world position (their sum) overflows f32.
fn overflowing_model(dir: &std::path::Path) -> std::path::PathBuf {
    let (b, mut doc) = support::gltf_builder::skinned_triangle();
    doc["nodes"][1]["translation"] = serde_json::json!([3e38, 0.0, 0.0]);
    doc["nodes"][2]["translation"] = serde_json::json!([3e38, 0.0, 0.0]);
    let path = dir.join("Overflow.gltf");
    std::fs::write(&path, b.finish(doc)).unwrap();
    path
}

#[test]
fn non_finite_pose_values_are_an_error_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args("Fox.glb");
    a.model = overflowing_model(dir.path());
    a.pose = Some("none".into());
    for json in [true, false] {
        a.json = json;
        assert_eq!(
            run_inspect(&a).unwrap_err(),
            "Overflow.gltf: node 2 \"tip\": world matrix is not finite (inf in column 3 row 0); \
             the transforms overflow 32-bit floats",
            "json {json}"
        );
    }
    // Values given on the command line are checked as well.
    let mut a = args("AnimatedMorphCube.glb");
    a.morph = vec!["AnimatedMorphCube=nan,0".into()];
    assert_eq!(
        run_inspect(&a).unwrap_err(),
        "--morph AnimatedMorphCube=nan,0: weight `nan` is not allowed; allowed: finite numbers"
    );
}

#[test]
fn cli_exits_non_zero_on_a_non_finite_pose() {
    let dir = tempfile::tempdir().unwrap();
    let model = overflowing_model(dir.path());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["inspect", "--json", "--pose", "none"])
        .arg(&model)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "no half-written JSON");
    assert!(
        stderr.starts_with(
            "throng inspect: Overflow.gltf: node 2 \"tip\": world matrix is not finite"
        ),
        "{stderr}"
    );
}

/// Runs the binary with stdout into a pipe that is closed before the output ends (like
/// `throng inspect MODEL | head -1`): it must end quietly, never panic.
fn closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closing the read end at once: the output is larger than a pipe buffer (64 KiB), so the
    // child meets the closed pipe whether it started writing before this or not.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    for args in [
        &["inspect", "tests/fixtures/models/Knight.glb"][..],
        &["inspect", "--json", "tests/fixtures/models/Knight.glb"][..],
        &[
            "inspect",
            "--json",
            "--pose",
            "Walk",
            "tests/fixtures/models/Fox.glb",
        ][..],
    ] {
        let (code, stderr) = closed_stdout(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn a_pose_time_that_is_not_a_time_is_refused_naming_the_range() {
    for bad in ["nan", "-1", "inf", "1e9"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
            .args([
                "inspect",
                "tests/fixtures/models/RiggedSimple.glb",
                "--pose",
                "0",
                "--time",
                bad,
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("allowed: seconds from 0 to 86400"),
            "{bad}: {err}"
        );
        assert!(!err.contains("-- -"), "{bad}: {err}");
    }
}

//! Posed vertices and joint matrices against poses made by another engine (three.js r187,
//! cross-checked with a spec evaluator): tests/fixtures/ref-expected/README.md.

mod support;
use serde_json::Value;
use support::assert_approx;
use support::{load, ref_json};
use throng::tools::inspect::pose_report;

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN) as f32)
                .collect()
        })
        .unwrap_or_default()
}

/// Largest axis of the union of the reference meshes' world boxes: the README's "model extent".
fn extent(r: &Value) -> f32 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for m in r["meshes"].as_array().unwrap() {
        let (a, b) = (
            floats(&m["aabb_world"]["min"]),
            floats(&m["aabb_world"]["max"]),
        );
        for k in 0..3 {
            lo[k] = lo[k].min(a[k]);
            hi[k] = hi[k].max(b[k]);
        }
    }
    (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f32::max).max(1.0)
}

fn check(
    model: &str,
    reference: &str,
    clip: Option<usize>,
    time: f32,
    morphs: &[(usize, Vec<f32>)],
    exprs: &[(&str, f32)],
    rel_tol: f32,
) {
    let scene = load(model);
    let r = ref_json(reference);
    let exprs: Vec<(String, f32)> = exprs.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let ours = pose_report(&scene, clip, time, morphs, &exprs).expect("pose");
    let tol = rel_tol * extent(&r);
    let mut worst = 0.0f32;
    let mut compared = 0;
    for rm in r["meshes"].as_array().unwrap() {
        let (node, prim) = (
            rm["node"].as_u64().unwrap() as usize,
            rm["primitive"].as_u64().unwrap() as usize,
        );
        let om = ours
            .meshes
            .iter()
            .find(|m| m.node == node && m.primitive == prim)
            .unwrap_or_else(|| panic!("{reference}: no mesh node {node} prim {prim}"));
        assert_eq!(om.vertex_count as u64, rm["vertex_count"].as_u64().unwrap());
        let rw = floats(&rm["morph_weights"]);
        assert_eq!(
            om.morph_weights.len(),
            rw.len(),
            "{reference}: morph weight count"
        );
        for (a, b) in om.morph_weights.iter().zip(&rw) {
            assert_approx!(
                a,
                b,
                1e-4,
                "{reference}: morph weights {:?} vs {rw:?}",
                om.morph_weights
            );
        }
        let idx: Vec<usize> = match rm.get("sample_indices").and_then(Value::as_array) {
            Some(a) => a.iter().map(|x| x.as_u64().unwrap() as usize).collect(),
            None => (0..om.vertex_count).collect(),
        };
        for key in ["positions_world", "positions_local"] {
            let rp = floats(&rm[key]);
            let op = if key == "positions_world" {
                &om.positions_world
            } else {
                &om.positions_local
            };
            assert_eq!(rp.len(), idx.len() * 3, "{reference} {key} length");
            for (k, &v) in idx.iter().enumerate() {
                for c in 0..3 {
                    let d = (op[v * 3 + c] - rp[k * 3 + c]).abs();
                    worst = worst.max(d);
                    assert!(
                        d <= tol,
                        "{reference}: node {node} prim {prim} {key} vertex {v} axis {c}: ours {} ref {} (tol {tol})",
                        op[v * 3 + c],
                        rp[k * 3 + c]
                    );
                    compared += 1;
                }
            }
        }
    }
    for rs in r["skins"].as_array().unwrap() {
        let si = rs["skin"].as_u64().unwrap() as usize;
        let os = &ours.skins[si];
        for (rj, oj) in rs["joints"].as_array().unwrap().iter().zip(&os.joints) {
            assert_eq!(rj["node"].as_u64().unwrap() as usize, oj.node);
            for (key, om) in [
                ("world_matrix", &oj.world_matrix),
                ("joint_matrix", &oj.joint_matrix),
            ] {
                let rm = floats(&rj[key]);
                for c in 0..16 {
                    let d = (om[c] - rm[c]).abs();
                    assert!(
                        d <= tol,
                        "{reference}: skin {si} joint node {} {key}[{c}]: ours {} ref {}",
                        oj.node,
                        om[c],
                        rm[c]
                    );
                }
            }
        }
    }
    if let Some(nodes) = r["nodes"].as_array() {
        for rn in nodes {
            let n = rn["node"].as_u64().unwrap() as usize;
            let rm = floats(&rn["world_matrix"]);
            for (c, (o, e)) in ours.nodes[n].world_matrix.iter().zip(&rm).enumerate() {
                assert!(
                    (o - e).abs() <= tol,
                    "{reference}: node {n} world[{c}]: ours {o} ref {e}"
                );
            }
        }
    }
    assert!(compared > 0);
    eprintln!("{reference}: {compared} values, worst {worst:e}, tol {tol:e}");
}

#[test]
fn cesium_man_t0_5() {
    check(
        "CesiumMan.glb",
        "CesiumMan_c0_t0.5.json",
        Some(0),
        0.5,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn cesium_man_rest() {
    check(
        "CesiumMan.glb",
        "CesiumMan_rest.json",
        None,
        0.0,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn fox_walk_t0_35() {
    let scene = load("Fox.glb");
    assert_eq!(scene.find_clip("Walk"), Some(1));
    check(
        "Fox.glb",
        "Fox_c1Walk_t0.35.json",
        Some(1),
        0.35,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn rigged_simple_t0_8() {
    check(
        "RiggedSimple.glb",
        "RiggedSimple_c0_t0.8.json",
        Some(0),
        0.8,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn simple_skin_t2_345() {
    check(
        "SimpleSkin.gltf",
        "SimpleSkin_c0_t2.345.json",
        Some(0),
        2.345,
        &[],
        &[],
        1e-3,
    );
}

#[test]
fn animated_morph_cube_t1_3456() {
    check(
        "AnimatedMorphCube.glb",
        "AnimatedMorphCube_c0_t1.3456.json",
        Some(0),
        1.3456,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn simple_morph_t1_5() {
    check(
        "SimpleMorph.gltf",
        "SimpleMorph_c0_t1.5.json",
        Some(0),
        1.5,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn morph_primitives_test_w1() {
    check(
        "MorphPrimitivesTest.glb",
        "MorphPrimitivesTest_w1.json",
        None,
        0.0,
        &[(1, vec![1.0])],
        &[],
        1e-4,
    );
}

#[test]
fn godette_rest() {
    check(
        "Godette_vrm_v4.vrm",
        "Godette_vrm_rest.json",
        None,
        0.0,
        &[],
        &[],
        1e-4,
    );
}

#[test]
fn godette_blink() {
    check(
        "Godette_vrm_v4.vrm",
        "Godette_vrm_blink1.json",
        None,
        0.0,
        &[],
        &[("blink", 1.0)],
        1e-4,
    );
}

/// VAT frames of RiggedSimple through `ClipSampler` + CPU skinning, every frame at 24 fps.
#[test]
fn rigged_simple_vat_frames_via_clip_sampler() {
    use throng::anim::{skin_positions, ClipSampler};
    let scene = load("RiggedSimple.glb");
    let r = ref_json("vat_RiggedSimple_c0_24fps.json");
    let rm = &r["meshes"][0];
    let node = rm["node"].as_u64().unwrap() as usize;
    let prim = &scene.meshes[scene.nodes[node].mesh.unwrap()].primitives[0];
    let idx: Vec<usize> = rm["sample_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let mut sampler = ClipSampler::new(&scene, node).unwrap();
    let mut palette = Vec::new();
    let mut out = Vec::new();
    let times = floats(&r["frame_times"]);
    let tol = 1e-4 * 9.0;
    for (f, &t) in times.iter().enumerate() {
        sampler
            .sample(&scene.animations[0], t, &mut palette)
            .unwrap();
        skin_positions(prim, &palette, &prim.positions, &mut out);
        let rl = floats(&rm["frames_local"][f]);
        for (k, &v) in idx.iter().enumerate() {
            for c in 0..3 {
                let d = (out[v][c] - rl[k * 3 + c]).abs();
                assert!(
                    d <= tol,
                    "frame {f} vertex {v}: {} vs {}",
                    out[v][c],
                    rl[k * 3 + c]
                );
            }
        }
    }
}

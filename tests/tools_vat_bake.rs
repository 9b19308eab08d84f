//! VAT baking (issue #8): decoded textures against the CPU skinning and against an independent
//! three.js bake, keyframe reduction bounds, manifest round trip, and every refusal, through the
//! library and through the built binary.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::assert_approx;

use glam::{Mat4, Vec3};
use serde_json::Value;
use support::{load, model_path, ref_json};
use throng::anim::{skin_positions, ClipSampler};
use throng::asset::{Interpolation, MorphChannelAsset, MorphTargetAsset, SceneAsset, Track};
use throng::tools::vat::files::sha256_file;
use throng::tools::vat::{
    bake, load_vat, write_vat, BakeOptions, ClipSelection, LoadedVat, SourceInfo, VatBake,
    VatFiles, VatFormat, VatSpace,
};

const FORMATS: [VatFormat; 3] = [VatFormat::F32, VatFormat::F16, VatFormat::Rgba8x2];

fn clips(names: &[&str]) -> ClipSelection {
    ClipSelection::Names(names.iter().map(|s| s.to_string()).collect())
}

fn bake_ok(scene: &SceneAsset, opts: &BakeOptions) -> VatBake {
    bake(scene, opts, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}"))
}

fn write_and_load(baked: &VatBake, format: VatFormat, dir: &Path) -> (VatFiles, LoadedVat) {
    let source = SourceInfo {
        file: "model".into(),
        sha256: "0".repeat(64),
    };
    let files =
        write_vat(baked, format, dir, "model", source, false).unwrap_or_else(|e| panic!("{e}"));
    let loaded = load_vat(&files.manifest_path).unwrap_or_else(|e| panic!("{e}"));
    (files, loaded)
}

/// The project's skinning through `ClipSampler` (the path tests/anim_reference.rs checks
/// against three.js), concatenated in the bake's primitive order: an independent reference
/// for the bake's own posing loop.
fn reference_frame(scene: &SceneAsset, baked: &VatBake, clip: usize, t: f32) -> Vec<Vec3> {
    let mut out = Vec::new();
    let (mut palette, mut skinned) = (Vec::new(), Vec::new());
    for p in &baked.primitives {
        let prim = &scene.meshes[p.mesh].primitives[p.primitive];
        let mut sampler = ClipSampler::new(scene, p.node).expect("sampler");
        sampler
            .sample(&scene.animations[clip], t, &mut palette)
            .expect("sample");
        skin_positions(prim, &palette, &prim.positions, &mut skinned);
        out.extend_from_slice(&skinned);
    }
    out
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect()
}

#[test]
fn rigged_simple_matches_the_three_js_bake_in_every_frame() {
    let scene = load("RiggedSimple.glb");
    let r = ref_json("vat_RiggedSimple_c0_24fps.json");
    assert_eq!(
        sha256_file(&model_path("RiggedSimple.glb")).expect("hash"),
        r["model_sha256"].as_str().expect("sha")
    );
    let opts = BakeOptions {
        clips: clips(&["0"]),
        fps: 24,
        ..BakeOptions::default()
    };
    let baked = bake_ok(&scene, &opts);
    let dir = tempfile::tempdir().expect("temp");
    let (_, vat) = write_and_load(&baked, VatFormat::F32, dir.path());
    let clip = &vat.manifest.clips[0];
    let ref_times = floats(&r["frame_times"]);
    assert_eq!(clip.frame_count as usize, ref_times.len());
    assert_eq!(r["frame_count"].as_u64(), Some(50));
    for (a, b) in clip.frame_times.iter().zip(&ref_times) {
        assert_approx!(a, b, 1e-6, "{a} vs {b}");
    }
    let rm = &r["meshes"][0];
    let prim = &vat.manifest.primitives[0];
    assert_eq!(prim.node as u64, rm["node"].as_u64().expect("node"));
    let mesh_world = Mat4::from_cols_array(&prim.mesh_world_matrix);
    let idx: Vec<usize> = rm["sample_indices"]
        .as_array()
        .expect("indices")
        .iter()
        .map(|x| x.as_u64().expect("index") as usize)
        .collect();
    // README: 1e-4 × model extent (RiggedSimple ~9).
    let tol = 1e-4 * 9.0;
    let (mut worst_local, mut worst_world) = (0.0f32, 0.0f32);
    for f in 0..ref_times.len() {
        let ours = vat.frame(clip.first_frame as usize + f);
        let (rl, rw) = (
            floats(&rm["frames_local"][f]),
            floats(&rm["frames_world"][f]),
        );
        for (k, &v) in idx.iter().enumerate() {
            let local = Vec3::new(rl[k * 3], rl[k * 3 + 1], rl[k * 3 + 2]);
            let world = Vec3::new(rw[k * 3], rw[k * 3 + 1], rw[k * 3 + 2]);
            worst_local = worst_local.max((ours[v] - local).abs().max_element());
            worst_world = worst_world.max(
                (mesh_world.transform_point3(ours[v]) - world)
                    .abs()
                    .max_element(),
            );
        }
    }
    eprintln!("RiggedSimple vs three.js: worst local {worst_local:e}, world {worst_world:e}");
    assert!(worst_local <= tol, "{worst_local}");
    assert!(worst_world <= tol, "{worst_world}");
}

#[test]
fn every_format_decodes_to_the_cpu_skinning_within_its_bound() {
    for (model, clip) in [("RiggedSimple.glb", "0"), ("Casual_Male.gltf", "Walk")] {
        let scene = load(model);
        let baked = bake_ok(
            &scene,
            &BakeOptions {
                clips: clips(&[clip]),
                ..BakeOptions::default()
            },
        );
        let ci = scene.find_clip(clip).expect("clip");
        let c = &baked.clips[0];
        let reference: Vec<Vec<Vec3>> = c
            .frame_times
            .iter()
            .map(|&t| reference_frame(&scene, &baked, ci, t))
            .collect();
        let size = baked.aabb.size();
        for format in FORMATS {
            let dir = tempfile::tempdir().expect("temp");
            let (files, vat) = write_and_load(&baked, format, dir.path());
            assert_eq!(files.manifest.encoding, format);
            let bound = size * format.relative_bound() + Vec3::splat(1e-6 * size.max_element());
            let mut worst = Vec3::ZERO;
            for (f, r) in reference.iter().enumerate() {
                for (a, b) in vat.frame(f).iter().zip(r) {
                    worst = worst.max((*a - *b).abs());
                }
            }
            eprintln!("{model} {clip} {format:?}: worst {worst} bound {bound}");
            assert!(
                worst.cmple(bound).all(),
                "{model} {format:?}: {worst} > {bound}"
            );
            if format != VatFormat::F32 {
                // The quantisation is really there: a bake that stored nothing would pass a
                // loose bound too.
                assert!(worst.max_element() > 0.0);
            }
        }
    }
}

#[test]
fn quaternius_walk_round_trips_with_normals_in_every_format() {
    let scene = load("Casual_Male.gltf");
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["Walk"]),
            normals: true,
            ..BakeOptions::default()
        },
    );
    assert_eq!(baked.layout.vertex_count, 8804);
    assert_eq!(
        (
            baked.layout.width,
            baked.layout.rows_per_frame,
            baked.layout.frame_count
        ),
        (2935, 3, 38)
    );
    let normals = baked.normals.as_ref().expect("normals");
    for n in normals {
        assert_approx!(n.length(), 1.0, 1e-4, "{n}");
    }
    for format in FORMATS {
        let dir = tempfile::tempdir().expect("temp");
        let (files, vat) = write_and_load(&baked, format, dir.path());
        let np = files.normals_path.expect("normals file");
        assert!(np.exists());
        let bound = 2.0 * format.relative_bound() + 1e-6;
        let back = vat.normals.as_ref().expect("decoded normals");
        let worst = back
            .iter()
            .zip(normals)
            .map(|(a, b)| (*a - *b).abs().max_element())
            .fold(0.0f32, f32::max);
        assert!(worst <= bound, "{format:?}: {worst} > {bound}");
        let pos_bound = baked.aabb.size() * format.relative_bound() + Vec3::splat(1e-6);
        for (a, b) in vat.positions.iter().zip(&baked.positions) {
            assert!(
                (*a - *b).abs().cmple(pos_bound).all(),
                "{format:?}: {a} vs {b}"
            );
        }
    }
}

#[test]
fn keyframe_reduction_never_exceeds_max_error() {
    let scene = load("Casual_Male.gltf");
    let full = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["Idle", "Walk"]),
            ..BakeOptions::default()
        },
    );
    for max_error in [0.001f32, 0.01] {
        let reduced = bake_ok(
            &scene,
            &BakeOptions {
                clips: clips(&["Idle", "Walk"]),
                max_error: Some(max_error),
                ..BakeOptions::default()
            },
        );
        let dir = tempfile::tempdir().expect("temp");
        let (_, vat) = write_and_load(&reduced, VatFormat::F32, dir.path());
        let f32_slack = reduced.aabb.size().max_element() * 1e-6;
        let mut out = Vec::new();
        for (ci, (fc, rc)) in full.clips.iter().zip(&vat.manifest.clips).enumerate() {
            assert_eq!(rc.frames.first(), Some(&0));
            assert_eq!(rc.frames.last(), Some(&(fc.source_frame_count - 1)));
            assert!(rc.reduction_error <= max_error);
            assert_eq!(rc.max_error, Some(max_error));
            let mut worst = 0.0f32;
            for (f, &t) in fc.frame_times.iter().enumerate() {
                vat.sample_clip(ci, t, &mut out);
                let truth = &full.positions[(fc.first_frame as usize + f) * 8804..][..8804];
                for (a, b) in out.iter().zip(truth) {
                    worst = worst.max(a.distance(*b));
                }
            }
            eprintln!(
                "{} at {max_error} m: {} of {} frames kept, worst {worst:e}",
                rc.name, rc.frame_count, fc.frame_count
            );
            assert!(worst <= max_error + f32_slack, "{}: {worst}", rc.name);
        }
        // Idle barely moves: most frames go.
        let idle = &vat.manifest.clips[0];
        assert!(
            idle.frame_count * 2 < idle.source_frame_count,
            "{}",
            idle.frame_count
        );
    }
}

#[test]
fn manifest_round_trips_through_json() {
    let scene = load("RiggedSimple.glb");
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["0"]),
            max_error: Some(0.01),
            aabb_pad: 0.25,
            ..BakeOptions::default()
        },
    );
    let dir = tempfile::tempdir().expect("temp");
    let source = SourceInfo {
        file: "RiggedSimple.glb".into(),
        sha256: sha256_file(&model_path("RiggedSimple.glb")).expect("hash"),
    };
    let files =
        write_vat(&baked, VatFormat::Rgba8x2, dir.path(), "rs", source, true).expect("write");
    let loaded = load_vat(&files.manifest_path).expect("load");
    assert_eq!(loaded.manifest, files.manifest);
    let text = std::fs::read_to_string(&files.manifest_path).expect("json");
    let again: throng::tools::vat::VatManifest = serde_json::from_str(&text).expect("parse");
    assert_eq!(serde_json::to_string_pretty(&again).expect("json"), text);
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["format"], "throng-vat/1");
    assert_eq!(v["encoding"], "rgba8x2");
    assert_eq!(v["space"], "model");
    assert_eq!(v["sampling"]["filter"], "nearest");
    assert_eq!(v["sampling"]["wrap"], "clamp_to_edge");
    assert_eq!(v["clips"][0]["loop"], true);
    assert_eq!(v["texture"]["pixel_format"], "RGBA8");
    let h = baked.layout.height();
    assert_eq!(v["texture"]["height"], 2 * h);
    assert_eq!(v["texture"]["low_bytes_row_offset"], h);
    assert_eq!(
        v["source"]["sha256"],
        "3a79dabb67bb0cd598a18d08b954d9d357c27c30672f82ef5d3f4e7fe6ca3401"
    );
    // The pad widens the box on every side.
    let tight = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["0"]),
            ..BakeOptions::default()
        },
    );
    for k in 0..3 {
        assert_approx!(baked.aabb.min[k], tight.aabb.min[k] - 0.25, 1e-5);
        assert_approx!(baked.aabb.size[k], tight.aabb.size[k] + 0.5, 1e-5);
    }
    // Vertex ids: one f32 per vertex, 0..n.
    let ids = std::fs::read(files.vertex_ids_path.expect("ids")).expect("ids");
    assert_eq!(ids.len(), 160 * 4);
    assert_eq!(
        f32::from_le_bytes([ids[636], ids[637], ids[638], ids[639]]),
        159.0
    );
    // Nothing but the four files (no temporaries) is left.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["rs.vat.json", "rs.vat.png", "rs.vat_ids.bin"]);
}

#[test]
fn delta_space_adds_back_to_model_space() {
    let scene = load("Casual_Male.gltf");
    let opts = BakeOptions {
        clips: clips(&["Walk"]),
        ..BakeOptions::default()
    };
    let model = bake_ok(&scene, &opts);
    let delta = bake_ok(
        &scene,
        &BakeOptions {
            space: VatSpace::Delta,
            ..opts
        },
    );
    let dir = tempfile::tempdir().expect("temp");
    let (_, vat) = write_and_load(&delta, VatFormat::F16, dir.path());
    assert_eq!(vat.manifest.space, VatSpace::Delta);
    // Offsets span less than positions, so each step of the encoding is finer.
    assert!(delta.aabb.size().max_element() < model.aabb.size().max_element());
    let bound = delta.aabb.size() * VatFormat::F16.relative_bound() + Vec3::splat(1e-5);
    let n = 8804;
    for f in 0..model.layout.frame_count as usize {
        for v in 0..n {
            let back = vat.frame(f)[v] + delta.bind_positions[v];
            let d = (back - model.positions[f * n + v]).abs();
            assert!(d.cmple(bound).all(), "frame {f} vertex {v}: {d}");
        }
    }
}

#[test]
fn clips_pack_into_one_atlas_and_vertices_wrap_rows() {
    let scene = load("Casual_Male.gltf");
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            clips: ClipSelection::All,
            fps: 5,
            max_width: 1000,
            ..BakeOptions::default()
        },
    );
    let l = baked.layout;
    assert_eq!((l.width, l.rows_per_frame), (979, 9));
    assert_eq!(baked.clips.len(), scene.animations.len());
    let mut next = 0;
    for c in &baked.clips {
        assert_eq!(c.first_frame, next, "{}", c.name);
        assert_eq!(
            c.frame_count,
            (c.duration as f64 * 5.0).floor() as u32 + 1,
            "{}",
            c.name
        );
        next += c.frame_count;
    }
    assert_eq!(l.frame_count, next);
    assert_eq!(l.height(), next * 9);
    let dir = tempfile::tempdir().expect("temp");
    let (files, vat) = write_and_load(&baked, VatFormat::F16, dir.path());
    assert_eq!(
        (files.manifest.texture.width, files.manifest.texture.height),
        (979, next * 9)
    );
    // A frame in the middle of the atlas decodes to the skinning of that clip at that time.
    let walk = vat.manifest.clip("Walk").expect("walk");
    let c = &vat.manifest.clips[walk];
    let f = c.frame_count as usize / 2;
    let truth = reference_frame(&scene, &baked, c.index, c.frame_times[f]);
    let bound = baked.aabb.size() * VatFormat::F16.relative_bound() + Vec3::splat(1e-5);
    for (a, b) in vat.frame(c.first_frame as usize + f).iter().zip(&truth) {
        assert!((*a - *b).abs().cmple(bound).all(), "{a} vs {b}");
    }
}

#[test]
fn animated_morph_weights_are_baked_before_skinning() {
    let mut scene = load("RiggedSimple.glb");
    let node = scene
        .nodes
        .iter()
        .position(|n| n.skin.is_some() && n.mesh.is_some())
        .expect("skinned node");
    let mesh = scene.nodes[node].mesh.expect("mesh");
    let n = scene.meshes[mesh].primitives[0].positions.len();
    let lift = Vec3::new(0.0, 0.0, 0.5);
    scene.meshes[mesh].morph_target_names = vec!["lift".into()];
    scene.meshes[mesh].primitives[0].morph_targets = vec![MorphTargetAsset {
        name: "lift".into(),
        position_deltas: vec![lift; n],
        normal_deltas: Vec::new(),
        tangent_deltas: Vec::new(),
    }];
    scene.nodes[node].morph_weights = vec![0.0];
    let duration = scene.animations[0].duration;
    // Weight ramps 0 → 1 over the clip.
    scene.animations[0].morph_channels.push(MorphChannelAsset {
        node,
        target_count: 1,
        track: Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, duration],
            values: vec![0.0, 1.0],
        },
    });
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["0"]),
            fps: 24,
            ..BakeOptions::default()
        },
    );
    let prim = &scene.meshes[mesh].primitives[0];
    let mut sampler = ClipSampler::new(&scene, node).expect("sampler");
    let (mut palette, mut out) = (Vec::new(), Vec::new());
    let mut moved = 0.0f32;
    for (f, &t) in baked.clips[0].frame_times.iter().enumerate() {
        sampler
            .sample(&scene.animations[0], t, &mut palette)
            .expect("sample");
        let w = t / duration;
        let morphed: Vec<Vec3> = prim.positions.iter().map(|p| *p + lift * w).collect();
        skin_positions(prim, &palette, &morphed, &mut out);
        let unmorphed = reference_frame(&scene, &baked, 0, t);
        for (v, p) in out.iter().enumerate() {
            let got = baked.frame(f)[v];
            assert_approx!(got, *p, 1e-4, "frame {f} vertex {v}: {got} vs {p}");
            moved = moved.max(got.distance(unmorphed[v]));
        }
    }
    // The morph visibly moved the vertices (by up to the full 0.5 through the skin).
    assert!(moved > 0.3, "{moved}");
}

fn bake_err(scene: &SceneAsset, opts: &BakeOptions) -> String {
    match bake(scene, opts, &mut |_, _| {}) {
        Ok(_) => panic!("bake should fail"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn library_refuses_bad_inputs_naming_the_file_and_what_is_allowed() {
    let scene = load("Casual_Male.gltf");
    let e = bake_err(
        &scene,
        &BakeOptions {
            clips: clips(&["Walk", "Moonwalk"]),
            ..BakeOptions::default()
        },
    );
    assert!(
        e.starts_with("Casual_Male.gltf: no clip \"Moonwalk\"; allowed: one of \"Death\", "),
        "{e}"
    );
    assert!(e.ends_with("or an index 0 to 16"), "{e}");

    let e = bake_err(&load("AnimatedMorphCube.glb"), &BakeOptions::default());
    assert!(
        e.starts_with("AnimatedMorphCube.glb: has no skinned mesh"),
        "{e}"
    );

    let mut still = load("RiggedSimple.glb");
    still.animations.clear();
    let e = bake_err(&still, &BakeOptions::default());
    assert_eq!(
        e,
        "RiggedSimple.glb: has no animation clips; only animated models can be baked"
    );

    // 17 clips at 30 fps are 714 frames × 3 rows: far over a 1024-row limit.
    let e = bake_err(
        &scene,
        &BakeOptions {
            max_height: 1024,
            ..BakeOptions::default()
        },
    );
    assert!(
        e.starts_with("Casual_Male.gltf: the texture would be 2935 x 2142 texels (714 frames), above the height limit 1024; bake fewer clips (--clip), lower --fps"),
        "{e}"
    );
    assert!(
        e.contains("raise --max-width (each frame takes 3 rows of 2935 vertices)"),
        "{e}"
    );

    let e = bake_err(
        &scene,
        &BakeOptions {
            fps: 0,
            ..BakeOptions::default()
        },
    );
    assert_eq!(
        e,
        "Casual_Male.gltf: fps 0 is out of range; allowed: 1 to 240"
    );
    for bad in [-1.0, 0.0, f32::NAN, f32::INFINITY] {
        let e = bake_err(
            &scene,
            &BakeOptions {
                max_error: Some(bad),
                ..BakeOptions::default()
            },
        );
        assert!(
            e.contains("allowed: a finite distance in metres above 0"),
            "{bad}: {e}"
        );
    }

    // A clip whose transforms overflow: no texture can hold infinity.
    let mut broken = load("RiggedSimple.glb");
    let ch = broken.animations[0]
        .node_channels
        .iter_mut()
        .find(|c| c.translation.is_some())
        .expect("translation channel");
    if let Some(t) = ch.translation.as_mut() {
        for v in &mut t.values {
            *v = Vec3::splat(f32::INFINITY);
        }
    }
    let e = bake_err(
        &broken,
        &BakeOptions {
            clips: clips(&["0"]),
            ..BakeOptions::default()
        },
    );
    assert!(
        e.starts_with("RiggedSimple.glb: clip \"animation_0\" frame 0 (t = 0 s): vertex "),
        "{e}"
    );
    assert!(e.contains("is not finite"), "{e}");
}

#[test]
fn exr_headers_read_back_as_lossless_rgba_of_the_right_type() {
    let scene = load("RiggedSimple.glb");
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["0"]),
            ..BakeOptions::default()
        },
    );
    for (format, sample) in [
        (VatFormat::F32, exr::meta::attribute::SampleType::F32),
        (VatFormat::F16, exr::meta::attribute::SampleType::F16),
    ] {
        let dir = tempfile::tempdir().expect("temp");
        let (files, _) = write_and_load(&baked, format, dir.path());
        let meta = exr::meta::MetaData::read_from_file(&files.texture_path, true).expect("meta");
        assert_eq!(meta.headers.len(), 1);
        let h = &meta.headers[0];
        assert_eq!(h.compression, exr::compression::Compression::ZIP16);
        assert_eq!((h.layer_size.width(), h.layer_size.height()), (160, 63));
        let names: Vec<String> = h.channels.list.iter().map(|c| c.name.to_string()).collect();
        assert_eq!(names, ["A", "B", "G", "R"]);
        assert!(h.channels.list.iter().all(|c| c.sample_type == sample));
    }
}

// ---- the binary ----

fn throng(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).trim().to_string(),
    )
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn cli_bakes_and_writes_exactly_the_promised_files() {
    let dir = tempfile::tempdir().expect("temp");
    let out: PathBuf = dir.path().join("vat");
    let out_s = out.to_string_lossy().to_string();
    let (code, stdout, stderr) = throng(&[
        "bake",
        "tests/fixtures/models/RiggedSimple.glb",
        "--clip",
        "0",
        "--fps",
        "24",
        "--format",
        "f32",
        "--normals",
        "--out",
        &out_s,
    ]);
    assert_eq!(code, 0, "{stderr}");
    // No terminal here, so no progress bar noise either.
    assert_eq!(stderr, "");
    assert!(
        stdout.starts_with(
            "RiggedSimple.glb: 160 vertices, 1 clips, 50 stored frames -> 160 x 50 texels"
        ),
        "{stdout}"
    );
    assert_eq!(
        entries(&out),
        [
            "RiggedSimple.vat.exr",
            "RiggedSimple.vat.json",
            "RiggedSimple.vat_normals.exr"
        ]
    );
    let vat = load_vat(&out.join("RiggedSimple.vat.json")).expect("load");
    assert_eq!(vat.manifest.source.file, "RiggedSimple.glb");
    assert_eq!(
        vat.manifest.source.sha256,
        "3a79dabb67bb0cd598a18d08b954d9d357c27c30672f82ef5d3f4e7fe6ca3401"
    );
    assert_eq!(vat.manifest.clips[0].fps, 24);
}

#[test]
fn cli_refusals_name_the_problem_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().expect("temp");
    let out = dir.path().join("out");
    let out_s = out.to_string_lossy().to_string();
    let model = "assets/characters/Casual_Male.gltf";

    let (code, _, err) = throng(&["bake", model, "--clip", "Moonwalk", "--out", &out_s]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("throng bake: Casual_Male.gltf: no clip \"Moonwalk\"; allowed: one of"),
        "{err}"
    );

    let (code, _, err) = throng(&[
        "bake",
        model,
        "--all",
        "--max-height",
        "100",
        "--out",
        &out_s,
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("above the height limit 100; bake fewer clips"),
        "{err}"
    );
    assert!(entries(&out).is_empty(), "{:?}", entries(&out));

    let (code, _, err) = throng(&[
        "bake",
        "tests/fixtures/models/AnimatedMorphCube.glb",
        "--all",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("throng bake: AnimatedMorphCube.glb: has no skinned mesh"),
        "{err}"
    );

    let (code, _, err) = throng(&["bake", "no/such/model.glb", "--all"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("throng bake: no/such/model.glb: read:"),
        "{err}"
    );

    for (args, needle) in [
        (
            vec!["--all", "--fps", "0"],
            "allowed: a whole number from 1 to 240",
        ),
        (
            vec!["--all", "--fps", "300"],
            "allowed: a whole number from 1 to 240",
        ),
        (
            vec!["--all", "--max-error", "-1"],
            "allowed: a finite number of metres above 0",
        ),
        (
            vec!["--all", "--max-error", "nan"],
            "allowed: a finite number of metres above 0",
        ),
        (
            vec!["--all", "--format", "png"],
            "[possible values: f32, f16, rgba8x2]",
        ),
        (
            vec!["--all", "--space", "world"],
            "[possible values: model, delta]",
        ),
        (
            vec!["--all", "--max-width", "0"],
            "allowed: a whole number from 1 to 65536",
        ),
        (vec![], "<--clip <NAME>|--all>"),
        (vec!["--all", "--clip", "Walk"], "cannot be used with"),
    ] {
        let mut a = vec!["bake", model];
        a.extend(args.iter().copied());
        let (code, _, err) = throng(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    assert!(!out.exists() || entries(&out).is_empty());
}

#[test]
fn bake_writes_are_all_or_nothing_and_clear_temporaries_of_killed_bakes() {
    let dir = tempfile::tempdir().expect("temp");
    let out = dir.path().join("vat");
    std::fs::create_dir(&out).expect("mkdir");
    let out_s = out.to_string_lossy().to_string();
    let bake = |out_s: &str| {
        throng(&[
            "bake",
            "tests/fixtures/models/RiggedSimple.glb",
            "--clip",
            "0",
            "--format",
            "f16",
            "--normals",
            "--out",
            out_s,
        ])
    };
    // A folder where the manifest goes: the manifest is written last, so no texture may appear
    // without it, and no temporary file may stay.
    let manifest = out.join("RiggedSimple.vat.json");
    std::fs::create_dir(&manifest).expect("mkdir");
    let (code, _, err) = bake(&out_s);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "throng bake: {}: cannot write: a folder has that name",
            manifest.display()
        )
    );
    assert_eq!(entries(&out), ["RiggedSimple.vat.json"]);
    std::fs::remove_dir(&manifest).expect("rmdir");

    // What a killed bake leaves: hidden temporaries of a process that is gone (no process can
    // have id 4000000000).
    for name in [".RiggedSimple.vat.exr", ".RiggedSimple.vat_normals.exr"] {
        let path = out.join(format!("{name}.throng-tmp-4000000000-3"));
        std::fs::write(path, vec![0u8; 4096]).expect("write");
    }
    let (code, _, err) = bake(&out_s);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        entries(&out),
        [
            "RiggedSimple.vat.exr",
            "RiggedSimple.vat.json",
            "RiggedSimple.vat_normals.exr"
        ]
    );
}

// ---- hardening (issue #15): sizes checked against stated limits before sampling ----

/// The builder's skinned triangle with its clip's last key at `end` seconds, as a file.
fn triangle_until(end: f32) -> Vec<u8> {
    let (b, doc) = support::gltf_builder::skinned_triangle_keys([0.0, 0.5, end]);
    b.finish(doc)
}

fn long_clip(end: f32) -> SceneAsset {
    throng::asset::load_slice("Long.gltf", &triangle_until(end), None)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_clip_too_long_to_sample_is_refused_up_front_with_or_without_max_error() {
    // 1.5e8 s at 30 fps is past u32::MAX frames (the count used to wrap to 0 and panic);
    // 3e38 s is near f32::MAX.
    for (end, shown, frames) in [
        (1e5, "100000", "3000001"),
        (1.5e8, "1.5e8", "4500000001"),
        (3e38, "3e38", "9.00e39"),
    ] {
        for max_error in [None, Some(0.001)] {
            let (e, cpu) = support::cpu::thread_cpu_time(|| {
                bake_err(
                    &long_clip(end),
                    &BakeOptions {
                        max_error,
                        ..BakeOptions::default()
                    },
                )
            });
            assert_eq!(
                e,
                format!(
                    "Long.gltf: clip \"Walk\" lasts {shown} s: {frames} frames at 30 fps, above the \
                     limit of 65536 sampled frames per bake (all clips together); bake fewer or \
                     shorter clips (--clip) or lower --fps"
                ),
                "{end} {max_error:?}"
            );
            // CPU time, not wall time: a busy machine must not fail a refusal that came first.
            assert!(
                cpu.as_secs_f32() < 1.0,
                "{end} {max_error:?}: {cpu:?} of CPU"
            );
        }
    }
}

#[test]
fn sampled_bytes_are_limited_before_sampling() {
    // Casual_Male: 8804 vertices; 17 clips at 240 fps are ~5700 frames: ~600 MB of positions.
    let scene = load("Casual_Male.gltf");
    let e = bake_err(
        &scene,
        &BakeOptions {
            fps: 240,
            max_error: Some(0.001),
            ..BakeOptions::default()
        },
    );
    assert!(
        e.starts_with("Casual_Male.gltf: sampling 17 clips would hold ")
            && e.contains(" frames of 8804 vertices), above the limit of 256 MiB; bake fewer or shorter clips (--clip) or lower --fps"),
        "{e}"
    );
}

#[test]
fn an_aabb_pad_out_of_range_is_refused() {
    let scene = load("RiggedSimple.glb");
    for pad in [3e38, 1001.0, -1.0, f32::NAN, f32::INFINITY] {
        let e = bake_err(
            &scene,
            &BakeOptions {
                aabb_pad: pad,
                ..BakeOptions::default()
            },
        );
        assert_eq!(
            e,
            format!(
                "RiggedSimple.glb: AABB pad {pad} is not allowed; allowed: a distance in metres \
                 from 0 to 1000"
            )
        );
    }
    // The largest pad still gives a finite box.
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            aabb_pad: 1000.0,
            ..BakeOptions::default()
        },
    );
    assert!(baked
        .aabb
        .size
        .iter()
        .all(|s| s.is_finite() && *s >= 2000.0));
}

#[test]
fn cli_refuses_a_huge_pad_and_a_huge_clip_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp");
    let out = dir.path().join("out");
    let out_s = out.to_string_lossy().to_string();
    let (code, stdout, err) = throng(&[
        "bake",
        "tests/fixtures/models/RiggedSimple.glb",
        "--all",
        "--pad",
        "3e38",
        "--out",
        &out_s,
    ]);
    assert_eq!(code, 2, "{stdout}\n{err}");
    assert!(
        err.contains("`3e38` is not a distance; allowed: a number of metres from 0 to 1000"),
        "{err}"
    );
    let model = dir.path().join("Long.gltf");
    std::fs::write(&model, triangle_until(3e38)).expect("write model");
    let model_s = model.to_string_lossy().to_string();
    for extra in [&[][..], &["--max-error", "0.001"][..]] {
        let mut args = vec!["bake", model_s.as_str(), "--all", "--out", out_s.as_str()];
        args.extend_from_slice(extra);
        let (code, _, err) = throng(&args);
        assert_eq!(code, 1, "{extra:?}: {err}");
        assert!(
            err.starts_with("throng bake: Long.gltf: clip \"Walk\" lasts 3e38 s: 9.00e39 frames"),
            "{extra:?}: {err}"
        );
    }
    assert!(!out.exists() || entries(&out).is_empty());
}

#[test]
fn cli_with_a_closed_stdout_still_bakes_and_exits_quietly() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("temp");
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args([
            "bake",
            "tests/fixtures/models/RiggedSimple.glb",
            "--clip",
            "0",
        ])
        .arg("--out")
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    // The reader goes away long before the bake prints its summary (`throng bake ... | head -0`).
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(
        entries(dir.path()),
        ["RiggedSimple.vat.exr", "RiggedSimple.vat.json"]
    );
}

/// The builder's triangle with its clip's last key at `end` and a chain of `depth` extra nodes
/// under the scene: few vertices, but every sampled frame updates every node.
fn deep_triangle_until(end: f32, depth: usize) -> Vec<u8> {
    let (b, mut doc) = support::gltf_builder::skinned_triangle_keys([0.0, 0.5, end]);
    let first = doc["nodes"].as_array().unwrap().len();
    let nodes = doc["nodes"].as_array_mut().unwrap();
    for i in 0..depth {
        let next = first + i + 1;
        nodes.push(if i + 1 < depth {
            serde_json::json!({"children": [next]})
        } else {
            serde_json::json!({})
        });
    }
    doc["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(first));
    b.finish(doc)
}

#[test]
fn posing_work_is_limited_before_sampling() {
    // 30001 frames × 40006 nodes: 1.2e9 world-matrix updates (half a minute), 1 MB of values.
    let scene = throng::asset::load_slice("Deep.gltf", &deep_triangle_until(1000.0, 40_000), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let (e, cpu) = support::cpu::thread_cpu_time(|| {
        bake_err(
            &scene,
            &BakeOptions {
                max_error: Some(0.001),
                ..BakeOptions::default()
            },
        )
    });
    assert_eq!(
        e,
        "Deep.gltf: sampling 1 clips would pose 30001 frames of 40003 nodes and 3 vertices \
         (1200220006 node and vertex updates), above the limit of 1073741824; bake fewer or \
         shorter clips (--clip) or lower --fps"
    );
    assert!(cpu.as_secs_f32() < 1.0, "{cpu:?} of CPU");
}

fn load_err(manifest: &Path) -> String {
    match load_vat(manifest) {
        Ok(_) => panic!("{} loaded", manifest.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn load_vat_checks_sizes_before_reading_pixels() {
    let scene = load("RiggedSimple.glb");
    let baked = bake_ok(
        &scene,
        &BakeOptions {
            clips: clips(&["0"]),
            ..BakeOptions::default()
        },
    );
    let dir = tempfile::tempdir().expect("temp");
    let (files, _) = write_and_load(&baked, VatFormat::F32, dir.path());
    let text = std::fs::read_to_string(&files.manifest_path).expect("manifest");
    let manifest: Value = serde_json::from_str(&text).expect("json");

    // The rgba8x2 image height (2 × frames) overflowed u32 (a panic in debug builds).
    let mut huge = manifest.clone();
    huge["layout"]["frame_count"] = serde_json::json!(u32::MAX);
    huge["encoding"] = serde_json::json!("rgba8x2");
    std::fs::write(&files.manifest_path, huge.to_string()).expect("write");
    let e = load_err(&files.manifest_path);
    assert!(
        e.ends_with(
            "layout 160 x 4294967295 texels is above the limits (65536 rows, 33554432 texels)"
        ),
        "{e}"
    );

    // An image whose header is not the manifest's size is refused from its header.
    let bigger = bake_ok(
        &scene,
        &BakeOptions {
            fps: 60,
            ..BakeOptions::default()
        },
    );
    let other = tempfile::tempdir().expect("temp");
    let (big_files, _) = write_and_load(&bigger, VatFormat::F32, other.path());
    std::fs::write(&files.manifest_path, manifest.to_string()).expect("write");
    std::fs::copy(&big_files.texture_path, &files.texture_path).expect("copy");
    let e = load_err(&files.manifest_path);
    assert!(
        e.ends_with(&format!(
            "image header declares Some((160, {})), the manifest says 160x{}",
            bigger.layout.height(),
            baked.layout.height()
        )),
        "{e}"
    );
}

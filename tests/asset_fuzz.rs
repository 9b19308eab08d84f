//! Fixed-seed mutation fuzzing: truncated and byte/digit-mutated copies of real files must
//! import to Ok or to an error, never panic, and anything that imports must pose and play.

mod support;
use std::panic::{catch_unwind, AssertUnwindSafe};
use support::{gltf_builder::skinned_triangle, model_path};
use throng::anim::{AnimationPlayer, MorphStateSet, ScenePose, SkinningPaletteSet};
use throng::asset::load_slice;
use throng::tools::inspect::pose_report;

const FILES: &[&str] = &[
    "SimpleSkin.gltf",
    "SimpleMorph.gltf",
    "RiggedSimple.glb",
    "AnimatedMorphCube.glb",
    "MorphPrimitivesTest.glb",
    "Fox.glb",
];

fn mutate(rng: &mut fastrand::Rng, src: &[u8]) -> Vec<u8> {
    let mut b = src.to_vec();
    match rng.u8(0..4) {
        0 => b.truncate(rng.usize(0..b.len().max(1))),
        1 => {
            for _ in 0..rng.usize(1..8) {
                let i = rng.usize(0..b.len());
                b[i] = rng.u8(..);
            }
        }
        2 => {
            // Digits in the JSON: indices, counts, offsets, strides: structural damage that
            // still parses.
            let digits: Vec<usize> = (0..b.len().min(200_000))
                .filter(|&i| b[i].is_ascii_digit())
                .collect();
            for _ in 0..rng.usize(1..4) {
                if let Some(&i) = digits.get(rng.usize(0..digits.len().max(1))) {
                    b[i] = b'0' + rng.u8(0..10);
                }
            }
        }
        _ => {
            // Binary damage past the JSON (accessor data: NaNs, huge joint indices, ...).
            let start = b.len() / 2;
            for _ in 0..rng.usize(1..32) {
                let i = rng.usize(start..b.len());
                b[i] = rng.u8(..);
            }
        }
    }
    b
}

fn exercise(name: &str, bytes: &[u8]) -> Result<(), String> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let Ok(scene) = load_slice(name, bytes, None) else {
            return;
        };
        let mut pose = ScenePose::new(&scene);
        let mut morphs = MorphStateSet::new(&scene);
        let mut set = SkinningPaletteSet::new(&scene);
        let mut p = AnimationPlayer::new();
        for ci in 0..scene.animations.len() {
            p.set_clip(Some(ci));
            p.play();
            for _ in 0..3 {
                if p.update(0.37, &scene, &mut pose, Some(&mut morphs)).is_ok() {
                    let _ = set.update(&scene, &pose);
                }
            }
        }
        let _ = pose_report(&scene, scene.animations.first().map(|_| 0), 0.3, &[], &[]);
    }));
    r.map_err(|_| format!("{name}: panicked"))?;
    match load_slice(name, bytes, None) {
        Err(e) if e.message.contains("panicked") => Err(format!("{name}: decoder panicked: {e}")),
        _ => Ok(()),
    }
}

#[test]
fn mutated_and_truncated_files_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0x7468_726f_6e67);
    let mut sources: Vec<(String, Vec<u8>)> = FILES
        .iter()
        .map(|f| (f.to_string(), std::fs::read(model_path(f)).unwrap()))
        .collect();
    let (b, doc) = skinned_triangle();
    sources.push(("Built.gltf".into(), b.finish(doc)));
    let mut failures = Vec::new();
    let mut errors = 0;
    // THRONG_FUZZ_CASES raises the bound for a longer local run; CI keeps the fixed 150.
    let per_file: usize = std::env::var("THRONG_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let seed: u64 = std::env::var("THRONG_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7468_726f_6e67);
    rng.seed(seed);
    for (name, src) in &sources {
        for k in 0..per_file {
            let m = mutate(&mut rng, src);
            if load_slice(name, &m, None).is_err() {
                errors += 1;
            }
            if let Err(e) = exercise(name, &m) {
                failures.push(format!("{e} (case {k})"));
            }
        }
    }
    eprintln!(
        "{} cases, {errors} rejected with errors",
        sources.len() * per_file
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

//! `cargo bench --bench anim`: animation core costs (sampling + world matrices + palettes,
//! crowd-scale, clip baking, morph rebuild). Prints a table; no assertions about speed.

use std::path::Path;
use std::time::Instant;
use throng::anim::{
    AnimationPlayer, ClipSampler, MorphState, MorphedPrimitive, ScenePose, SkinningPaletteSet,
};
use throng::asset::load_file;

fn row(name: &str, per: &str, secs: f64, count: f64) {
    println!("| {name:<52} | {:>12.3} {per:<10} |", secs * 1e6 / count);
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let male = load_file(&root.join("assets/characters/Casual_Male.gltf")).expect("Casual_Male");
    let walk = male.find_clip("Walk").expect("Walk");
    println!("| case | time |");
    println!("|---|---|");

    // One character: sample + world matrices + palette per frame.
    let mut pose = ScenePose::new(&male);
    let mut set = SkinningPaletteSet::new(&male);
    let mut player = AnimationPlayer::new();
    player.set_clip(Some(walk));
    player.play();
    let frames = 20_000;
    let t0 = Instant::now();
    for _ in 0..frames {
        player
            .update(1.0 / 60.0, &male, &mut pose, None)
            .expect("update");
        set.update(&male, &pose).expect("palette");
    }
    row(
        "Casual_Male, 1 character: sample+world+palette",
        "us/frame",
        t0.elapsed().as_secs_f64(),
        frames as f64,
    );

    // 1,000 characters, staggered times and clips.
    let n = 1000;
    let mut crowd: Vec<(AnimationPlayer, ScenePose, SkinningPaletteSet)> = (0..n)
        .map(|i| {
            let mut p = AnimationPlayer::new();
            p.set_clip(Some(i % male.animations.len()));
            p.play();
            let _ = p.seek(i as f32 * 0.013);
            (p, ScenePose::new(&male), SkinningPaletteSet::new(&male))
        })
        .collect();
    let frames = 60;
    let t0 = Instant::now();
    for _ in 0..frames {
        for (p, pose, set) in crowd.iter_mut() {
            p.update(1.0 / 60.0, &male, pose, None).expect("update");
            set.update(&male, pose).expect("palette");
        }
    }
    let e = t0.elapsed().as_secs_f64();
    println!(
        "| {:<52} | {:>12.3} {:<10} |",
        "Casual_Male, 1,000 characters: sample+world+palette",
        e * 1e3 / frames as f64,
        "ms/frame"
    );

    // Paused crowd: version compare only.
    for (p, _, _) in crowd.iter_mut() {
        p.pause();
    }
    let t0 = Instant::now();
    for _ in 0..frames {
        for (p, pose, set) in crowd.iter_mut() {
            p.update(1.0 / 60.0, &male, pose, None).expect("update");
            set.update(&male, pose).expect("palette");
        }
    }
    let e = t0.elapsed().as_secs_f64();
    println!(
        "| {:<52} | {:>12.3} {:<10} |",
        "Casual_Male, 1,000 characters paused (skip path)",
        e * 1e3 / frames as f64,
        "ms/frame"
    );

    // Baking: every clip at 30 fps through ClipSampler.
    let node = male
        .nodes
        .iter()
        .position(|n| n.skin.is_some())
        .expect("skinned node");
    let mut sampler = ClipSampler::new(&male, node).expect("sampler");
    let mut pal = Vec::new();
    let mut count = 0usize;
    let t0 = Instant::now();
    for clip in &male.animations {
        let frames = (clip.duration * 30.0).ceil() as usize + 1;
        for f in 0..frames {
            sampler
                .sample(clip, f as f32 / 30.0, &mut pal)
                .expect("sample");
            count += 1;
        }
    }
    let e = t0.elapsed().as_secs_f64();
    row(
        &format!(
            "ClipSampler bake, 17 clips @30 fps ({count} frames x {} joints)",
            sampler.joint_count()
        ),
        "us/frame",
        e,
        count as f64,
    );
    println!(
        "| {:<52} | {:>12.3} {:<10} |",
        "  whole bake",
        e * 1e3,
        "ms"
    );

    // Godette's face: morph rebuild from base vertices (630 vertices, 15 targets).
    let godette = load_file(&root.join("assets/hero/Godette_vrm_v4.vrm")).expect("Godette");
    let face = godette
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("Face"))
        .expect("Face");
    let mesh = &godette.meshes[godette.nodes[face].mesh.expect("mesh")];
    let prim = &mesh.primitives[0];
    let mut state = MorphState::new(mesh.morph_target_names.len());
    let mut mp = MorphedPrimitive::default();
    let iters = 5_000;
    let t0 = Instant::now();
    for i in 0..iters {
        state.set_weight(3, (i % 100) as f32 / 100.0);
        state.set_weight(4, (i % 100) as f32 / 100.0);
        state.set_weight(5, 0.5);
        mp.update(prim, &state);
    }
    row(
        &format!(
            "Godette face morph rebuild ({} verts, 3 active)",
            prim.vertex_count()
        ),
        "us/rebuild",
        t0.elapsed().as_secs_f64(),
        iters as f64,
    );

    crowd_asset_build(root);
}

/// The crowd's load-time work: building every level's crowd assets (meshes, LODs, baked clips,
/// bounding spheres skinned at every frame) and the runtime VAT bake of the mid/far meshes.
/// Best of a few runs, so a busy machine's noise stays out of the numbers.
fn crowd_asset_build(root: &Path) {
    use throng::crowd_assets::vat_runtime::{CrowdVat, VAT_LODS};
    use throng::crowd_assets::CrowdAssets;
    for name in ["plaza", "market"] {
        let file = format!("levels/{name}.ron");
        let level = throng::level::load_level(&root.join(&file), root).expect("level");
        let best = |runs: usize, f: &mut dyn FnMut()| {
            (0..runs)
                .map(|_| {
                    let t0 = Instant::now();
                    f();
                    t0.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let mut assets = None;
        let load = best(3, &mut || {
            assets = Some(CrowdAssets::load(&level, root, &file).expect("crowd assets"));
        });
        let assets = assets.expect("loaded");
        row(&format!("CrowdAssets::load, {name}"), "ms", load, 1e3);
        let mut texels = 0;
        let bake = best(5, &mut || {
            let vat = CrowdVat::bake(&assets, VAT_LODS, 16_384).expect("vat");
            texels = vat.data.len() / 4;
        });
        row(
            &format!("CrowdVat::bake, {name} ({texels} texels)"),
            "ms",
            bake,
            1e3,
        );
    }
}

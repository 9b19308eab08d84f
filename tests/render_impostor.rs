//! Impostors in the real game: one person at the impostor distance drawn as the far mesh and as
//! an impostor must look alike (mean colour within a few percent, the same height on screen),
//! and the atlas is baked once, then read from the cache, and baked again when the cache file
//! is damaged.

mod support;

use std::path::Path;

use support::{find_display, read_png, say, scratch_dir, Display, Rgb8Image};

/// One person 40 m from the camera, standing still (the game starts paused); impostors from
/// 20 m, the far mesh from 20 m when they are off.
const LEVEL: &str = r#"Level(
    name: "Impostor test",
    bounds: (min: (-60.0, -60.0), max: (60.0, 60.0)),
    obstacles: [],
    points_of_interest: [],
    paths: [],
    spawn_zones: [(name: "spot", center: (0.0, -40.0), half_extents: (0.2, 0.2))],
    crowd: (
        count: 1,
        models: [(name: "casual", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "all", models: ["casual"], tints: [(0.2, 0.35, 0.75)])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 3,
    ),
    hero: (model: "assets/hero/Godette_vrm_v4.vrm", spawn: (50.0, 50.0)),
    camera: (mode: Orbit, target: (0.0, 0.9, -40.0), distance: 40.0, yaw_deg: 0.0, pitch_deg: 12.0, fov_deg: 35.0),
    lod: (near: 5.0, mid: 20.0, far: 120.0, impostor: 20.0, hysteresis: 1.0),
)
"#;

/// Runs throng with its impostor cache in `cache`; returns its log.
fn run(display: &Display, cache: &Path, args: &[&str]) -> String {
    let out = support::throng_command(display)
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("the throng binary starts");
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "throng {args:?} failed: {log}");
    log
}

/// The person's pixels: those that differ from the empty scene.
fn person(img: &Rgb8Image, empty: &Rgb8Image) -> Vec<(usize, usize, [u8; 3])> {
    let mut out = Vec::new();
    // Below the HUD, whose text changes between runs.
    for y in 120..img.height {
        for x in 0..img.width {
            let (p, q) = (img.at(x, y), empty.at(x, y));
            if (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > 24) {
                out.push((x, y, p));
            }
        }
    }
    out
}

fn mean(px: &[(usize, usize, [u8; 3])]) -> [f64; 3] {
    let mut m = [0.0; 3];
    for (_, _, p) in px {
        for c in 0..3 {
            m[c] += p[c] as f64 / 255.0;
        }
    }
    m.map(|v| v / px.len().max(1) as f64)
}

fn height(px: &[(usize, usize, [u8; 3])]) -> usize {
    let top = px.iter().map(|p| p.1).min().unwrap_or(0);
    let bottom = px.iter().map(|p| p.1).max().unwrap_or(0);
    bottom + 1 - top
}

#[test]
fn an_impostor_looks_like_the_far_mesh_and_its_atlas_is_cached() {
    let Some(display) = find_display("an_impostor_looks_like_the_far_mesh") else {
        return;
    };
    let dir = scratch_dir();
    let level = dir.path().join("impostor.ron");
    std::fs::write(&level, LEVEL).expect("write level");
    let cache = dir.path().join("cache");
    // The same scene with everyone at full detail: the reference both should match.
    let near_level = dir.path().join("near.ron");
    std::fs::write(
        &near_level,
        LEVEL.replace(
            "near: 5.0, mid: 20.0, far: 120.0, impostor: 20.0",
            "near: 100.0, mid: 110.0, far: 120.0, impostor: 120.0",
        ),
    )
    .expect("write level");
    let level_arg = level.to_string_lossy().to_string();
    let shot = |name: &str| dir.path().join(format!("{name}.png"));
    let shoot_level = |level_arg: &str, name: &str, extra: &[&str]| {
        let path = shot(name);
        let path_arg = path.to_string_lossy().to_string();
        let stats = dir.path().join(format!("{name}.json"));
        let stats_arg = stats.to_string_lossy().to_string();
        let mut args = vec![
            level_arg,
            "--paused",
            "--no-adaptive-quality",
            // Colours are compared over the person's pixels: multisampled edges would blend
            // them with the paving.
            "--no-aa",
            "--frames",
            "3",
            "--screenshot",
            &path_arg,
            "--stats-out",
            &stats_arg,
        ];
        args.extend(extra);
        let log = run(&display, &cache, &args);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats")).expect("JSON");
        (read_png(&path), log, report)
    };
    let shoot = |name: &str, extra: &[&str]| shoot_level(&level_arg, name, extra);

    let (empty, _, _) = shoot("empty", &["--crowd", "0", "--no-impostors"]);
    let (far, far_log, far_report) = shoot("far", &["--no-impostors"]);
    assert!(!far_log.contains("impostors: baking"), "{far_log}");
    assert_eq!(
        far_report["render"]["instances_per_lod"][2], 1,
        "{far_report}"
    );
    let (imp, baked_log, imp_report) = shoot("impostor", &[]);
    assert!(
        baked_log.contains("impostors: baking 1 bodies"),
        "{baked_log}"
    );
    assert_eq!(
        imp_report["render"]["instances_per_lod"][3], 1,
        "{imp_report}"
    );
    assert_eq!(
        imp_report["render"]["instances_per_lod"][2], 0,
        "{imp_report}"
    );
    assert_eq!(imp_report["crowd"]["impostors"]["from_cache"], false);
    let hud = imp_report["hud"].to_string();
    // "(near/mid/far/imp a/b/0/1)": none far, one impostor.
    assert!(
        hud.contains("near/mid/far/imp ") && hud.contains("/0/1)"),
        "{hud}"
    );

    let near_arg = near_level.to_string_lossy().to_string();
    let (near, _, _) = shoot_level(&near_arg, "near", &[]);
    let far_px = person(&far, &empty);
    let imp_px = person(&imp, &empty);
    let near_px = person(&near, &empty);
    let (fm, im, nm) = (mean(&far_px), mean(&imp_px), mean(&near_px));
    let apart = |a: [f64; 3], b: [f64; 3]| (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f64::max);
    let worst = apart(fm, im);
    say(&format!(
        "impostor render test RAN: far mesh {} px, mean rgb {:.3?}, {} px tall; impostor {} px, \
         mean rgb {:.3?}, {} px tall; near mesh {} px, mean rgb {:.3?}; largest channel \
         difference impostor-far {:.1} %, impostor-near {:.1} %, far-near {:.1} %",
        far_px.len(),
        fm,
        height(&far_px),
        imp_px.len(),
        im,
        height(&imp_px),
        near_px.len(),
        nm,
        worst * 100.0,
        apart(im, nm) * 100.0,
        apart(fm, nm) * 100.0
    ));
    // The impostor is baked from the near mesh: it is at least as close to it as the far mesh.
    assert!(apart(im, nm) <= 0.03, "impostor vs near mesh");
    assert!(
        apart(im, nm) <= apart(fm, nm) + 0.005,
        "impostor further from near than far is"
    );
    assert!(far_px.len() > 150, "the far person shows: {}", far_px.len());
    assert!(imp_px.len() > 150, "the impostor shows: {}", imp_px.len());
    let ratio = imp_px.len() as f64 / far_px.len() as f64;
    assert!((0.7..1.4).contains(&ratio), "pixel counts {ratio:.2}");
    let (fh, ih) = (height(&far_px) as f64, height(&imp_px) as f64);
    assert!((ih - fh).abs() <= fh * 0.12 + 2.0, "heights {fh} vs {ih}");
    assert!(
        worst <= 0.05,
        "mean colours differ by {:.1} %",
        worst * 100.0
    );

    // A second start reads the atlas back instead of baking it, and draws the same person.
    let (again, cached_log, again_report) = shoot("impostor_cached", &[]);
    assert!(
        cached_log.contains("impostors: loaded the atlas"),
        "{cached_log}"
    );
    assert!(!cached_log.contains("impostors: baking"), "{cached_log}");
    assert_eq!(again_report["crowd"]["impostors"]["from_cache"], true);
    assert_eq!(
        person(&again, &empty),
        imp_px,
        "the cached atlas draws the same person"
    );

    // A damaged cache file is refused with one line and baked again, never trusted.
    let files: Vec<_> = std::fs::read_dir(cache.join("throng"))
        .expect("cache folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let mut bytes = std::fs::read(&files[0]).expect("cache file");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&files[0], &bytes).expect("damage it");
    let (rebaked, rebaked_log, _) = shoot("impostor_rebaked", &[]);
    assert!(
        rebaked_log.contains("not used (its pictures do not match"),
        "{rebaked_log}"
    );
    assert!(rebaked_log.contains("impostors: baking"), "{rebaked_log}");
    assert_eq!(
        person(&rebaked, &empty),
        imp_px,
        "the rebaked atlas draws the same person"
    );
    std::fs::write(&files[0], &bytes[..100]).expect("cut it short");
    let (_, short_log, _) = shoot("impostor_short", &[]);
    assert!(short_log.contains("cut short"), "{short_log}");
}

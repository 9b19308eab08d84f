//! The statistics overlay tells the truth: the numbers the HUD and the performance panel show
//! are the renderer's own counters, and those agree with an independent computation of the
//! same frame here (culling, LOD and batching of the same seeded crowd from the same camera).

mod support;

use serde_json::Value;
use support::{find_display, project_root, run_for_report, scratch_dir};
use throng::crowd_assets::CrowdAssets;
use throng::game::{Action, FrameInput, Game, GameOptions};
use throng::level::load_level;
use throng::view::crowd_pack::VEC4_PER_INSTANCE;
use throng::view::crowd_pack::{pack_crowd, CrowdFrame, CrowdPackOptions};
use throng::view::frustum::Frustum;

const PEOPLE: u32 = 3000;

/// The numbers in a line of text, in order ("1,234" is not used by the overlay).
fn numbers(line: &str) -> Vec<f64> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.trim_matches('.').parse().ok())
        .collect()
}

fn counter(v: &Value, path: &[&str]) -> u64 {
    let mut v = v;
    for p in path {
        v = &v[*p];
    }
    v.as_u64()
        .unwrap_or_else(|| panic!("{path:?} is not a count: {v}"))
}

#[test]
fn the_overlay_shows_the_renderers_counters_and_they_match_the_frame() {
    let Some(display) = find_display("the_overlay_shows_the_renderers_counters") else {
        return;
    };
    let dir = scratch_dir();
    let people = PEOPLE.to_string();
    let report = run_for_report(
        &display,
        dir.path(),
        "stats",
        &[
            "levels/plaza.ron",
            "--paused",
            "--crowd",
            &people,
            "--perf-panel",
            "--frames",
            "4",
            "--no-adaptive-quality",
        ],
    );
    // 1. What the HUD and the panel show is what the renderer counted.
    let hud = report["hud"].as_array().expect("hud lines");
    let people_line = hud[1].as_str().expect("text");
    let shown = numbers(people_line);
    let render = &report["render"];
    let lod = |k: usize| render["instances_per_lod"][k].as_u64().expect("count") as f64;
    let want = [
        PEOPLE as f64,
        counter(&report, &["drawn"]) as f64,
        lod(0),
        lod(1),
        lod(2),
        lod(3),
        counter(&report, &["culled"]) as f64,
        counter(&report, &["beyond"]) as f64,
        counter(render, &["draw_calls"]) as f64,
        counter(render, &["triangles"]) as f64,
    ];
    assert_eq!(shown, want, "HUD line `{people_line}`");
    let panel: Vec<&str> = report["panel"]
        .as_array()
        .expect("panel lines")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let batches_line = panel
        .iter()
        .find(|l| l.starts_with("batches "))
        .expect("batches line");
    let b = numbers(batches_line);
    assert_eq!(b[0], counter(render, &["batches"]) as f64, "{batches_line}");
    let kb = counter(render, &["uniform_bytes"]) as f64 / 1024.0;
    assert!((b[1] - kb).abs() <= 0.05, "{batches_line} vs {kb} KB");
    let mb = counter(render, &["texture_bytes"]) as f64 / 1e6;
    assert!((b[2] - mb).abs() <= 0.05, "{batches_line} vs {mb} MB");
    let uploads = panel
        .iter()
        .find(|l| l.starts_with("uploads: "))
        .expect("uploads line");
    assert_eq!(
        numbers(uploads),
        vec![
            counter(render, &["palette_uploads"]) as f64,
            counter(render, &["morph_uploads"]) as f64,
            counter(render, &["texture_uploads"]) as f64
        ],
        "{uploads}"
    );
    // Paused: the hero's pose and face do not change, so nothing is uploaded again.
    assert_eq!(counter(render, &["palette_uploads"]), 0);
    assert_eq!(counter(render, &["morph_uploads"]), 0);

    // 2. The counters agree with the same frame computed here without a window.
    let root = project_root();
    let level = load_level(&root.join("levels/plaza.ron"), &root).expect("plaza");
    let assets = CrowdAssets::load(&level, &root, "levels/plaza.ron").expect("assets");
    let mut game = Game::new(
        level,
        GameOptions {
            crowd: Some(PEOPLE),
            seed: None,
        },
    );
    game.frame(
        0.0,
        &FrameInput {
            actions: vec![Action::TogglePause],
            ..Default::default()
        },
    );
    let (w, h) = (
        report["window"][0].as_f64().expect("width") as f32,
        report["window"][1].as_f64().expect("height") as f32,
    );
    let frustum = Frustum::from_view_projection(&game.camera.view_projection(w / h));
    let lod_settings = game.level().lod;
    let opts = CrowdPackOptions {
        frustum: Some(&frustum),
        eye: game.camera.eye(),
        lod: Some(&lod_settings),
        lod_colors: false,
        show_culled: false,
        head_turns: None,
    };
    let mut frame = CrowdFrame::default();
    let mut lod_state = Vec::new();
    // The game packs every frame; hysteresis makes repeated packing of a still crowd stable.
    for _ in 0..4 {
        pack_crowd(
            &opts,
            &game.agents,
            &assets,
            |_| 1.0,
            &mut lod_state,
            &mut frame,
        );
    }
    let c = frame.counts;
    assert_eq!(counter(&report, &["drawn"]), c.visible as u64);
    assert_eq!(counter(&report, &["culled"]), c.culled as u64);
    assert_eq!(counter(&report, &["beyond"]), c.beyond as u64);
    for k in 0..c.per_lod.len() {
        assert_eq!(lod(k) as u32, c.per_lod[k], "people at LOD {k}");
    }
    // Batches: every (LOD, submesh) list in the main pass, the near lists again in the
    // shadow pass, each split at the block size the renderer reported.
    let per_batch = counter(&report, &["crowd", "per_batch"]) as usize;
    let batches = |lists: &[Vec<[f32; 4]>]| -> u64 {
        lists
            .iter()
            .map(|l| (l.len() / VEC4_PER_INSTANCE).div_ceil(per_batch) as u64)
            .sum()
    };
    let main: u64 = frame.lists.iter().map(|l| batches(l)).sum();
    let shadow = batches(&frame.lists[0]);
    assert_eq!(
        counter(render, &["batches"]),
        main + shadow,
        "batches: {main} main + {shadow} shadow at {per_batch} per batch"
    );
    support::say(&format!(
        "overlay stats render test RAN: {} drawn ({:?} per LOD), {} culled, {} beyond, \
         {} batches of up to {per_batch}, {} draw calls",
        c.visible,
        c.per_lod,
        c.culled,
        c.beyond,
        main + shadow,
        counter(render, &["draw_calls"])
    ));
}

#[test]
fn the_naive_path_counts_people_not_draws() {
    let Some(display) = find_display("the_naive_path_counts_people_not_draws") else {
        return;
    };
    let dir = scratch_dir();
    let report = run_for_report(
        &display,
        dir.path(),
        "naive",
        &[
            "levels/plaza.ron",
            "--paused",
            "--naive",
            "--crowd",
            "100",
            "--frames",
            "3",
            "--no-adaptive-quality",
        ],
    );
    let render = &report["render"];
    let per_lod: Vec<u64> = (0..3)
        .map(|k| render["instances_per_lod"][k].as_u64().expect("count"))
        .collect();
    // Everyone at full detail, one palette each; props are extra draws, not extra people.
    assert_eq!(per_lod, vec![100, 0, 0]);
    assert_eq!(counter(&report, &["drawn"]), 100);
    assert!(
        counter(render, &["draw_calls"]) > 200,
        "bodies + props, two passes"
    );
}

#[test]
fn a_hero_that_cannot_load_is_reported_on_stderr_and_in_the_frame_report() {
    let Some(display) = find_display("a_hero_that_cannot_load_is_reported") else {
        return;
    };
    let dir = scratch_dir();
    let plaza = std::fs::read_to_string(project_root().join("levels/plaza.ron")).expect("plaza");
    // A file that exists (validation checks that) but is no model.
    let model = dir.path().join("no-such-hero.vrm");
    std::fs::write(&model, b"not a glTF file").expect("model written");
    let relative = model
        .strip_prefix(project_root())
        .expect("under the project");
    let broken = plaza.replace(
        "assets/hero/Godette_vrm_v4.vrm",
        relative.to_str().expect("utf-8 path"),
    );
    assert_ne!(broken, plaza, "the plaza names its hero model");
    let level = dir.path().join("no_hero.ron");
    std::fs::write(&level, broken).expect("level written");
    let report_path = dir.path().join("no_hero.json");
    let out = support::run_throng(
        &display,
        &[
            level.to_str().expect("utf-8 path"),
            "--crowd",
            "50",
            "--frames",
            "2",
            "--no-adaptive-quality",
            "--stats-out",
            report_path.to_str().expect("utf-8 path"),
        ],
    );
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the plaza plays without a hero: {log}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("hero not loaded") && l.contains("no-such-hero.vrm")),
        "stderr names the missing model: {log}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).expect("report written"))
            .expect("report is JSON");
    let error = report["hero_error"].as_str().unwrap_or_default();
    assert!(error.contains("no-such-hero.vrm"), "{report}");
    assert!(
        report["crowd_error"].is_null(),
        "the crowd loaded: {report}"
    );
}

//! Hot reload through the game itself: edit a real level file on disk and watch the world follow;
//! break it and see the last good level keep running with the error reported.

use std::path::Path;

use throng::assert_approx;
use throng::game::{Action, FrameInput, Game, GameOptions};
use throng::level::{load_level, LevelWatcher};

fn level_text(crowd: u32, extra_obstacle: bool) -> String {
    let extra = if extra_obstacle {
        r#"(name: "kiosk", kind: Kiosk, shape: Box(center: (10.0, 10.0), half_extents: (2.0, 1.5))),"#
    } else {
        ""
    };
    format!(
        r#"Level(
    name: "Reload test",
    bounds: (min: (-30.0, -30.0), max: (30.0, 30.0)),
    obstacles: [
        (name: "fountain", kind: Fountain, shape: Circle(center: (0.0, 0.0), radius: 4.0)),
        {extra}
    ],
    spawn_zones: [(name: "south", center: (0.0, 20.0), half_extents: (8.0, 4.0))],
    crowd: (
        count: {crowd},
        models: [(name: "casual", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "all", models: ["casual"])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 3,
    ),
    hero: (model: "assets/hero/Godette_vrm_v4.vrm", spawn: (0.0, 10.0)),
    exits: [(name: "gate", area: Line((-4.0, 30.0), (4.0, 30.0)))],
)
"#
    )
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn edits_apply_and_broken_edits_keep_the_last_good_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("reload.ron");
    std::fs::write(&path, level_text(40, false)).expect("write");
    let level = load_level(&path, root()).expect("valid level");
    let mut game = Game::new(level, GameOptions::default());
    let mut watcher = LevelWatcher::new(&path, root());
    assert!(watcher.poll().is_none(), "nothing changed yet");
    assert_eq!(game.level().obstacles.len(), 1);
    assert_eq!(game.agents.len(), 40);
    let scenery_before = game.scenery_version();

    // A good edit: one more obstacle and a bigger crowd.
    std::fs::write(&path, level_text(90, true)).expect("write");
    let result = watcher.poll().expect("the edit is noticed");
    game.apply_reload(result);
    assert!(game.reload_error().is_none());
    assert_eq!(game.level().obstacles.len(), 2);
    assert_eq!(game.agents.len(), 90);
    assert!(game.scenery_version() > scenery_before);
    assert_eq!(game.reload_count(), 1);

    // A broken edit: the old level stays, the error names the file and position.
    let broken = level_text(90, true).replace("count: 90,", "count: ninety,");
    std::fs::write(&path, &broken).expect("write");
    let result = watcher.poll().expect("the edit is noticed");
    game.apply_reload(result);
    let err = game.reload_error().expect("error shown").to_string();
    let label = path.display().to_string();
    assert!(err.starts_with(&format!("{label}:10:16: ")), "{err}");
    assert_eq!(game.level().obstacles.len(), 2);
    assert_eq!(game.agents.len(), 90);
    // The game keeps running on the last good level.
    let steps = game.frame(0.1, &FrameInput::default());
    assert!(steps.steps > 0);
    // The watcher never touched the designer's file.
    assert_eq!(std::fs::read_to_string(&path).expect("read"), broken);

    // Fixing the file clears the error.
    std::fs::write(&path, level_text(10, false)).expect("write");
    let result = watcher.poll().expect("the fix is noticed");
    game.apply_reload(result);
    assert!(game.reload_error().is_none());
    assert_eq!(game.agents.len(), 10);
    assert_eq!(game.reload_count(), 2);
}

#[test]
fn pause_single_step_and_time_scale_drive_the_fixed_step_loop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("loop.ron");
    std::fs::write(&path, level_text(5, false)).expect("write");
    let mut game = Game::new(
        load_level(&path, root()).expect("valid"),
        GameOptions::default(),
    );
    let input = |actions: Vec<Action>| FrameInput {
        actions,
        ..Default::default()
    };
    // One simulated second at 60 Hz in 60 frames.
    let steps: u32 = (0..60)
        .map(|_| game.frame(1.0 / 60.0 + 1e-7, &input(vec![])).steps)
        .sum();
    assert_eq!(steps, 60);
    assert_approx!(game.sim_time(), 1.0, 1e-3);
    game.frame(0.0, &input(vec![Action::TogglePause]));
    let t = game.sim_time();
    assert_eq!(game.frame(1.0, &input(vec![])).steps, 0);
    assert_eq!(game.frame(0.0, &input(vec![Action::SingleStep])).steps, 1);
    assert_approx!(game.sim_time() - t, 1.0 / 60.0, 1e-6);
    game.frame(0.0, &input(vec![Action::TogglePause, Action::SpeedUp]));
    assert_eq!(game.frame(1.0 / 60.0 + 1e-7, &input(vec![])).steps, 2);
    // The crowd override survives reloads; the seed override makes the crowd reproducible.
    let opts = GameOptions {
        crowd: Some(7),
        seed: Some(99),
    };
    let a = Game::new(load_level(&path, root()).expect("valid"), opts);
    let b = Game::new(load_level(&path, root()).expect("valid"), opts);
    assert_eq!(a.agents.len(), 7);
    assert_eq!(a.agents.pos, b.agents.pos);
}

#[test]
fn a_reload_that_will_be_slow_is_applied_with_the_warning_throng_check_gives() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("slow.ron");
    std::fs::write(&path, level_text(40, false)).expect("write");
    let level = load_level(&path, root()).expect("valid level");
    let mut game = Game::new(level, GameOptions::default());
    let mut watcher = LevelWatcher::new(&path, root());
    assert!(game.slow_settings().is_empty());

    // 9,000 people fit the 60 m square (at most 5 per m²) but crowd it at 2.5 per m².
    std::fs::write(&path, level_text(9000, false)).expect("write");
    game.apply_reload(watcher.poll().expect("the edit is noticed"));
    assert!(game.reload_error().is_none(), "a valid level is applied");
    assert_eq!(game.crowd_count(), 9000);
    let shown: Vec<String> = game.slow_settings().iter().map(|w| w.to_string()).collect();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].starts_with("crowd.count: warning: 9,000 people on "),
        "{}",
        shown[0]
    );
    // The same words as `throng check` (one shared function).
    let checked = throng::level::check::check_file(&path);
    assert_eq!(checked.len(), 1);
    assert_eq!(
        format!(
            "{}: warning: {}; allowed: {}",
            checked[0].field, checked[0].message, checked[0].allowed
        ),
        shown[0]
    );

    // Back to a comfortable crowd: the warning goes.
    std::fs::write(&path, level_text(40, false)).expect("write");
    game.apply_reload(watcher.poll().expect("the edit is noticed"));
    assert!(game.slow_settings().is_empty());
}

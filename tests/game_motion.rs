//! The game's eased motion goes through the tween scheduler: camera glides that the player can
//! interrupt, the performance panel sliding, newcomers popping in one after another.

use glam::{Vec2, Vec3};
use throng::assert_approx;
use throng::game::{Action, FrameInput, Game, GameOptions};
use throng::level::load_level;
use throng::settings::{self, Intent, Panel, Settings};
use throng::tween::Easing;
use throng::view::camera::CameraInput;

fn plaza(crowd: u32) -> Game {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza loads");
    Game::new(
        level,
        GameOptions {
            crowd: Some(crowd),
            seed: None,
        },
    )
}

fn act(a: Action) -> FrameInput {
    FrameInput {
        actions: vec![a],
        ..Default::default()
    }
}

#[test]
fn glide_reaches_the_point_of_interest_and_eases() {
    let mut g = plaza(10);
    let poi = g.level().points_of_interest[0].position;
    let start = g.camera.orbit.target;
    g.frame(1.0 / 60.0, &act(Action::GlideToNextPoi));
    let mut travelled = Vec::new();
    for _ in 0..180 {
        g.frame(1.0 / 60.0, &FrameInput::default());
        travelled.push(g.camera.orbit.target.distance(start));
    }
    let end = g.camera.orbit.target;
    assert_approx!(end, Vec3::new(poi.x, 1.0, poi.y), 1e-3, "{end}");
    assert_approx!(g.camera.orbit.distance, 18.0, 1e-3);
    // Eased: slow start, fast middle, slow end.
    let steps: Vec<f32> = travelled.windows(2).map(|w| w[1] - w[0]).collect();
    let fastest = steps.iter().copied().fold(0.0, f32::max);
    let moving: Vec<f32> = steps.iter().copied().filter(|s| *s > 1e-6).collect();
    assert!(
        moving.len() > 20,
        "the glide took only {} frames",
        moving.len()
    );
    assert!(
        moving[0] < fastest * 0.3,
        "start {} fastest {fastest}",
        moving[0]
    );
    assert!(moving[moving.len() - 1] < fastest * 0.3);
}

#[test]
fn touching_the_camera_stops_a_glide_where_it_is() {
    let mut g = plaza(10);
    g.frame(
        1.0 / 60.0,
        &act(Action::GlideTo(Vec3::new(60.0, 0.0, 60.0))),
    );
    for _ in 0..20 {
        g.frame(1.0 / 60.0, &FrameInput::default());
    }
    let mid = g.camera.orbit.target;
    let drag = FrameInput {
        camera: CameraInput {
            look_delta: Vec2::new(5.0, 0.0),
            ..Default::default()
        },
        ..Default::default()
    };
    g.frame(1.0 / 60.0, &drag);
    for _ in 0..60 {
        g.frame(1.0 / 60.0, &FrameInput::default());
    }
    assert_approx!(
        g.camera.orbit.target,
        mid,
        0.5,
        "the glide went on after the drag"
    );
    assert!(g.camera.orbit.target.distance(Vec3::new(60.0, 0.0, 60.0)) > 5.0);
}

#[test]
fn panel_slides_and_newcomers_pop_in_staggered() {
    let mut g = plaza(100);
    assert_eq!(g.perf_panel_shown(), 0.0);
    let mut settings = Settings::default();
    let actions = settings::apply(
        vec![Intent::TogglePanel(Panel::Perf)],
        &mut settings,
        &mut g,
    );
    assert!(actions.is_empty() && settings.panels.perf);
    g.frame(1.0 / 60.0, &FrameInput::default());
    g.frame(0.05, &FrameInput::default());
    let partly = g.perf_panel_shown();
    assert!(partly > 0.0 && partly < 1.0, "{partly}");
    for _ in 0..30 {
        g.frame(1.0 / 60.0, &FrameInput::default());
    }
    assert_eq!(g.perf_panel_shown(), 1.0);

    let ease = Easing::parse("easeOutBack").expect("easing");
    g.set_crowd_count(150);
    g.frame(0.01, &FrameInput::default());
    assert_eq!(
        g.appear_scale(10, &ease),
        1.0,
        "people already there do not pop"
    );
    let first = g.appear_scale(100, &ease);
    let last = g.appear_scale(149, &ease);
    assert!(
        first > last,
        "later newcomers start later: {first} vs {last}"
    );
    assert!(first < 1.0);
    for _ in 0..120 {
        g.frame(1.0 / 60.0, &FrameInput::default());
    }
    assert_eq!(g.appear_scale(149, &ease), 1.0);

    // Shrinking: the leavers shrink away first, then leave the simulation.
    g.set_crowd_count(50);
    assert_eq!(g.agents.len(), 150);
    g.frame(0.15, &FrameInput::default());
    let fading = g.appear_scale(120, &ease);
    assert!(fading > 0.0 && fading < 1.0, "{fading}");
    assert_eq!(g.appear_scale(10, &ease), 1.0);
    for _ in 0..30 {
        g.frame(1.0 / 60.0, &FrameInput::default());
    }
    assert_eq!(g.agents.len(), 50);
}

#[test]
fn the_crowd_slider_stops_at_what_the_level_holds() {
    let mut g = plaza(100);
    let most = throng::level::validate::max_people(g.level()) as usize;
    assert!(most > 100_000 && most < 1_000_000, "{most}");
    g.set_crowd_count(1_000_000);
    assert_eq!(g.crowd_count(), most);
    assert_eq!(
        g.appear_until.len(),
        most,
        "everyone asked for is on the way"
    );
}

#[test]
fn glides_and_scatters_say_where_they_go() {
    let mut g = plaza(10);
    let pois: Vec<String> = g
        .level()
        .points_of_interest
        .iter()
        .map(|p| p.name.clone())
        .collect();
    assert!(g.take_notes().is_empty(), "nothing said before a command");
    g.frame(1.0 / 60.0, &act(Action::GlideToNextPoi));
    g.frame(1.0 / 60.0, &act(Action::GlideToNextPoi));
    assert_eq!(
        g.take_notes(),
        [
            format!(
                "gliding to \"{}\" (point of interest 1 of {})",
                pois[0],
                pois.len()
            ),
            format!(
                "gliding to \"{}\" (point of interest 2 of {})",
                pois[1],
                pois.len()
            ),
        ]
    );
    assert!(g.take_notes().is_empty(), "each note is read once");
    g.frame(
        1.0 / 60.0,
        &act(Action::GlideTo(Vec3::new(12.34, 0.0, -5.0))),
    );
    assert_eq!(g.take_notes(), ["gliding to (12.3, -5.0)"]);
    g.frame(1.0 / 60.0, &act(Action::TogglePause));
    // Where the camera looks when the command is carried out (the glide moves it after).
    let focus = g.camera.shadow_focus().0;
    g.frame(1.0 / 60.0, &act(Action::Disturb));
    assert_eq!(
        g.take_notes(),
        [format!(
            "scattering people around ({:.1}, {:.1}), the camera's focus when the simulation \
             runs again (paused)",
            focus.x, focus.z
        )]
    );
    // Unread notes do not pile up.
    for _ in 0..50 {
        g.frame(1.0 / 60.0, &act(Action::Disturb));
    }
    assert_eq!(g.take_notes().len(), 8);
}

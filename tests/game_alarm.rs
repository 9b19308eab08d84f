//! Alarms in the running game: K raises the alarm at the camera's focus and gives the
//! all-clear; a level's timed alarm event sounds at its second and clears itself; closing an
//! exit turns the people heading for it to the others; the story card says where people flee.

use glam::Vec2;
use throng::crowd::evacuation::PersonAlarm;
use throng::crowd::AgentState;
use throng::game::{Action, FrameInput, Game, GameOptions};
use throng::level::{load_level, AlarmEvent, Level};

fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn plaza() -> Level {
    load_level(&root().join("levels/plaza.ron"), root()).expect("plaza loads")
}

fn game(level: Level) -> Game {
    Game::new(
        level,
        GameOptions {
            crowd: Some(400),
            seed: None,
        },
    )
}

fn frames(game: &mut Game, n: usize, actions: Vec<Action>) {
    let first = FrameInput {
        actions,
        ..Default::default()
    };
    game.frame(1.0 / 60.0, &first);
    for _ in 1..n {
        game.frame(1.0 / 60.0, &FrameInput::default());
    }
}

#[test]
fn k_raises_the_alarm_at_the_focus_and_again_gives_the_all_clear() {
    let mut g = game(plaza());
    frames(&mut g, 10, vec![]);
    assert!(g.agents.evacuation().alarm().is_none());
    frames(&mut g, 300, vec![Action::ToggleAlarm]);
    let alarm = g.agents.evacuation().alarm().expect("the alarm sounds");
    assert!(g.agents.evacuation().sounding());
    let focus = g.camera.shadow_focus().0;
    assert!(alarm.at.distance(Vec2::new(focus.x, focus.z)) < 1e-3);
    let fleeing = (0..g.agents.len())
        .filter(|&i| g.agents.state[i] == AgentState::Fleeing)
        .count();
    // The default 40 m hearing radius reaches about a quarter of the plaza's 400.
    assert!(fleeing > 50, "{fleeing} fleeing 5 s after the alarm");
    let story = (0..g.agents.len())
        .find(|&i| g.agents.state[i] == AgentState::Fleeing)
        .and_then(|i| g.agents.story(i))
        .expect("a fleeing person's story");
    assert!(
        story.doing.starts_with("fleeing to ") && story.doing.ends_with("_exit"),
        "{}",
        story.doing
    );
    frames(&mut g, 60, vec![Action::ToggleAlarm]);
    assert!(!g.agents.evacuation().sounding());
    assert_eq!(g.agents.evacuation().fleeing(), 0);
}

#[test]
fn a_level_alarm_event_sounds_at_its_second_and_clears_itself() {
    let mut level = plaza();
    level.alarms = vec![AlarmEvent {
        at: 1.0,
        position: Vec2::ZERO,
        all_clear_after: Some(4.0),
    }];
    let mut g = game(level);
    frames(&mut g, 55, vec![]);
    assert!(g.agents.evacuation().alarm().is_none());
    frames(&mut g, 10, vec![]);
    assert!(g.agents.evacuation().sounding());
    frames(&mut g, 240, vec![]);
    let alarm = g.agents.evacuation().alarm().expect("raised");
    let cleared = alarm.all_clear_at.expect("cleared 4 s after");
    assert!((cleared - 4.0).abs() < 0.05, "{cleared}");
}

#[test]
fn closing_an_exit_turns_its_people_to_the_others() {
    let mut level = plaza();
    level.crowd.behaviour.alarm.hearing_radius = 500.0;
    let mut g = game(level);
    g.raise_alarm(Vec2::new(0.0, -40.0));
    frames(&mut g, 240, vec![]);
    let heading_north = |g: &Game| {
        (0..g.agents.len())
            .filter(|&i| g.agents.alarm_of(i) == PersonAlarm::Fleeing(0))
            .count()
    };
    assert!(heading_north(&g) > 20, "{}", heading_north(&g));
    assert!(g.toggle_exit(0), "north_exit now closed");
    frames(&mut g, 2, vec![]);
    assert_eq!(heading_north(&g), 0);
    let through = g.agents.evacuation().exits()[0].through();
    frames(&mut g, 600, vec![]);
    assert_eq!(g.agents.evacuation().exits()[0].through(), through);
    assert!(!g.toggle_exit(0), "open again");
}

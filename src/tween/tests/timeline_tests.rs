use crate::tween::*;

fn lin() -> Easing {
    Easing::Linear
}

#[test]
fn sequence_and_parallel_start_in_order() {
    let mut a: Animator = Animator::default();
    for k in ["a", "b", "c"] {
        a.register(k, &[0.0]).unwrap();
    }
    let tl: Timeline<String> = Timeline::parallel(vec![
        Timeline::sequence(vec![
            Timeline::tween("a", &[1.0], 0.5, lin()),
            Timeline::Delay(0.25),
            Timeline::tween("b", &[1.0], 0.5, lin()),
        ]),
        Timeline::tween("c", &[1.0], 1.0, lin()),
    ]);
    assert_approx!(tl.duration(), 1.25, 1e-6);
    let starts: Vec<(f32, &str)> = tl
        .flatten()
        .iter()
        .map(|(t, s)| (*t, s.key.as_str()))
        .collect();
    assert_eq!(starts, vec![(0.0, "a"), (0.0, "c"), (0.75, "b")]);

    let id = a.play(&tl).unwrap();
    let mut first_move = std::collections::HashMap::new();
    let mut finished = Vec::new();
    for frame in 1..=14 {
        a.tick(0.1);
        for k in ["a", "b", "c"] {
            if a.scalar(k).unwrap() > 0.0 {
                first_move.entry(k).or_insert(frame);
            }
        }
        for e in a.drain_events() {
            finished.push((frame, e));
        }
    }
    assert_eq!(first_move["a"], 1);
    assert_eq!(first_move["c"], 1);
    assert_eq!(
        first_move["b"], 8,
        "b starts at 0.75 s and first moves in the frame ending at 0.8 s"
    );
    assert_eq!(
        finished,
        vec![
            (5, AnimEvent::Finished("a".to_string())),
            (10, AnimEvent::Finished("c".to_string())),
            (13, AnimEvent::Finished("b".to_string())),
            (13, AnimEvent::TimelineFinished(id)),
        ]
    );
}

#[test]
fn steps_start_at_their_exact_offset_between_frames() {
    let mut a: Animator = Animator::default();
    a.register("b", &[0.0]).unwrap();
    a.play(&Timeline::delayed(
        0.75,
        Timeline::tween("b", &[1.0], 0.5, lin()),
    ))
    .unwrap();
    for _ in 0..8 {
        a.tick(0.1);
    }
    // 0.8 s - 0.75 s = 0.05 s into a 0.5 s tween.
    assert_approx!(a.scalar("b").unwrap(), 0.1, 1e-5);
}

#[test]
fn sequence_continues_from_where_the_previous_step_ended() {
    let mut a: Animator = Animator::default();
    a.register("x", &[0.0]).unwrap();
    a.play(&Timeline::sequence(vec![
        Timeline::tween("x", &[1.0], 0.2, lin()),
        Timeline::tween("x", &[-1.0], 0.2, lin()),
    ]))
    .unwrap();
    a.tick(0.1);
    assert_approx!(a.scalar("x").unwrap(), 0.5, 1e-5);
    a.tick(0.1);
    a.tick(0.1);
    // 0.1 s into the second step: from 1 toward -1.
    assert_approx!(a.scalar("x").unwrap(), 0.0, 1e-5);
    while a.tick(0.1) {}
    assert_eq!(a.scalar("x"), Some(-1.0));
    // The first step finished inside the tick that started the second; it is still reported.
    let x = || AnimEvent::Finished("x".to_string());
    assert_eq!(a.drain_events()[..2], [x(), x()]);
}

#[test]
fn stagger_offsets_are_evenly_spaced() {
    assert_eq!(
        stagger_offsets(5, 0.1, StaggerFrom::First),
        vec![0.0, 0.1, 0.2, 0.3, 0.4]
    );
    assert_eq!(
        stagger_offsets(5, 0.1, StaggerFrom::Last),
        vec![0.4, 0.3, 0.2, 0.1, 0.0]
    );
    let centre = stagger_offsets(5, 0.1, StaggerFrom::Center);
    let want = [0.2, 0.1, 0.0, 0.1, 0.2];
    for (g, w) in centre.iter().zip(want) {
        assert_approx!(*g, w, 1e-6);
    }
    assert_eq!(
        stagger_offsets(3, -1.0, StaggerFrom::First),
        vec![0.0, 0.0, 0.0]
    );
    assert!(stagger_offsets(0, 0.1, StaggerFrom::Center).is_empty());
}

#[test]
fn stagger_runs_each_channel_after_its_offset() {
    let mut a: Animator = Animator::default();
    let keys: Vec<String> = (0..4).map(|i| format!("agent.{i}.fade")).collect();
    for k in &keys {
        a.register(k.clone(), &[0.0]).unwrap();
    }
    let id = a
        .stagger_to(&keys, &[1.0], 0.2, lin(), 0.1, StaggerFrom::First)
        .unwrap();
    a.tick(0.05);
    a.tick(0.1);
    let values: Vec<f32> = keys.iter().map(|k| a.scalar(k.as_str()).unwrap()).collect();
    let want = [0.75, 0.25, 0.0, 0.0];
    for (g, w) in values.iter().zip(want) {
        assert_approx!(*g, w, 1e-5, "{values:?}");
    }
    // Total (n - 1)·each + duration = 0.5 s.
    for _ in 0..3 {
        a.tick(0.1);
    }
    assert!(a.is_busy());
    a.tick(0.05);
    assert!(!a.is_busy());
    assert!(a.drain_events().contains(&AnimEvent::TimelineFinished(id)));
    assert!(keys.iter().all(|k| a.scalar(k.as_str()) == Some(1.0)));
}

#[test]
fn play_checks_every_key_first_and_cancel_timeline_drops_pending_steps() {
    let mut a: Animator = Animator::default();
    a.register("x", &[0.0]).unwrap();
    let bad = Timeline::sequence(vec![
        Timeline::tween("x", &[1.0], 0.1, lin()),
        Timeline::tween("nope", &[1.0], 0.1, lin()),
    ]);
    assert!(a.play(&bad).is_err());
    assert!(!a.is_busy(), "nothing was scheduled");

    let id = a
        .play(&Timeline::delayed(
            1.0,
            Timeline::tween("x", &[1.0], 0.1, lin()),
        ))
        .unwrap();
    a.tick(0.1);
    a.cancel_timeline(id);
    assert!(!a.is_busy());
    for _ in 0..20 {
        a.tick(0.1);
    }
    assert_eq!(a.scalar("x"), Some(0.0));
}

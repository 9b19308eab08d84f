//! The recipes in docs/TWEEN.md, kept compiling and behaving as the document says.

use glam::{Vec2, Vec3};

use crate::tween::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    CameraRig,
    Panel(u8),
    Appear(u32),
    Expression,
    Blink,
    PathProgress(u32),
}

#[test]
fn camera_fly_to_is_interruptible() {
    let mut anim: Animator<Key> = Animator::default();
    let (eye, at) = (Vec3::new(0.0, 10.0, 20.0), Vec3::ZERO);
    anim.register_with(
        Key::CameraRig,
        ChannelSpec::new(&[eye.x, eye.y, eye.z, at.x, at.y, at.z])
            .with_transition(1.2, Easing::parse("easeInOutCubic").unwrap()),
    )
    .unwrap();
    let fly = |anim: &mut Animator<Key>, eye: Vec3, at: Vec3| {
        anim.tween(&Key::CameraRig, &[eye.x, eye.y, eye.z, at.x, at.y, at.z])
    };
    fly(
        &mut anim,
        Vec3::new(5.0, 4.0, 5.0),
        Vec3::new(5.0, 0.0, 0.0),
    )
    .unwrap();
    for _ in 0..29 {
        anim.tick(1.0 / 60.0);
    }
    let p29 = anim.value(&Key::CameraRig).unwrap().to_vec();
    anim.tick(1.0 / 60.0);
    let p30 = anim.value(&Key::CameraRig).unwrap().to_vec();
    // A second click mid-flight: no jump and no jolt; the glide bends toward the new point.
    fly(
        &mut anim,
        Vec3::new(-5.0, 4.0, 5.0),
        Vec3::new(-5.0, 0.0, 0.0),
    )
    .unwrap();
    anim.tick(1.0 / 60.0);
    let p31 = anim.value(&Key::CameraRig).unwrap();
    let step_before: f32 = (0..6)
        .map(|i| (p30[i] - p29[i]).powi(2))
        .sum::<f32>()
        .sqrt();
    let change: f32 = (0..6)
        .map(|i| ((p31[i] - p30[i]) - (p30[i] - p29[i])).powi(2))
        .sum::<f32>()
        .sqrt();
    assert!(step_before > 0.3, "{step_before}");
    assert!(change < 0.1 * step_before, "{change} vs {step_before}");
    while anim.tick(1.0 / 60.0) {}
    assert_eq!(
        anim.value(&Key::CameraRig).unwrap(),
        &[-5.0, 4.0, 5.0, -5.0, 0.0, 0.0]
    );
}

#[test]
fn panel_show_hide_reverses_smoothly() {
    let mut anim: Animator<Key> = Animator::default();
    anim.register(Key::Panel(0), &[0.0]).unwrap();
    let show = Easing::parse("easeOutCubic").unwrap();
    let hide = Easing::parse("easeInCubic").unwrap();
    anim.tween_to(&Key::Panel(0), &[1.0], 0.25, show).unwrap();
    for _ in 0..6 {
        anim.tick(1.0 / 60.0);
    }
    let shown = anim.scalar(&Key::Panel(0)).unwrap();
    anim.tween_to(&Key::Panel(0), &[0.0], 0.18, hide).unwrap();
    anim.tick(1.0 / 60.0);
    // Still moving up for a moment (speed is kept), then it turns around.
    assert!(anim.scalar(&Key::Panel(0)).unwrap() >= shown);
    while anim.tick(1.0 / 60.0) {}
    assert_eq!(anim.scalar(&Key::Panel(0)), Some(0.0));
}

#[test]
fn crowd_fade_in_stagger_and_fade_out_removal() {
    let mut anim: Animator<Key> = Animator::default();
    let new_agents: Vec<u32> = (100..110).collect();
    let keys: Vec<Key> = new_agents.iter().map(|&id| Key::Appear(id)).collect();
    for k in &keys {
        anim.register(*k, &[0.0]).unwrap();
    }
    let each = (1.0 / keys.len() as f32).min(0.02);
    anim.stagger_to(
        &keys,
        &[1.0],
        0.4,
        Easing::parse("easeOutBack").unwrap(),
        each,
        StaggerFrom::First,
    )
    .unwrap();
    while anim.tick(1.0 / 60.0) {}
    assert!(keys.iter().all(|k| anim.scalar(k) == Some(1.0)));
    anim.drain_events();

    // Removing agents: fade out, then drop them when their channel reports Finished.
    anim.tween_to(
        &Key::Appear(100),
        &[0.0],
        0.3,
        Easing::parse("easeInQuad").unwrap(),
    )
    .unwrap();
    let mut removed = Vec::new();
    while anim.tick(1.0 / 60.0) {
        for e in anim.drain_events() {
            if let AnimEvent::Finished(Key::Appear(id)) = e {
                removed.push(id);
            }
        }
    }
    for e in anim.drain_events() {
        if let AnimEvent::Finished(Key::Appear(id)) = e {
            removed.push(id);
        }
    }
    assert_eq!(removed, vec![100]);
    assert!(anim.unregister(&Key::Appear(100)));
}

#[test]
fn expression_presets_and_blinks() {
    // Weights of [happy, angry, sad, relaxed, surprised] in one channel.
    let mut anim: Animator<Key> = Animator::default();
    anim.register(Key::Expression, &[0.0; 5]).unwrap();
    anim.register(Key::Blink, &[0.0]).unwrap();
    let happy = [1.0, 0.0, 0.0, 0.3, 0.0];
    anim.tween_to(
        &Key::Expression,
        &happy,
        0.3,
        Easing::parse("easeInOutSine").unwrap(),
    )
    .unwrap();
    let blink = Timeline::sequence(vec![
        Timeline::tween(
            Key::Blink,
            &[1.0],
            0.06,
            Easing::parse("easeInQuad").unwrap(),
        ),
        Timeline::tween(
            Key::Blink,
            &[0.0],
            0.10,
            Easing::parse("easeOutQuad").unwrap(),
        ),
    ]);
    let id = anim.play(&blink).unwrap();
    let mut peak = 0.0f32;
    let mut blink_done = false;
    while anim.tick(1.0 / 120.0) {
        peak = peak.max(anim.scalar(&Key::Blink).unwrap());
        blink_done |= anim
            .drain_events()
            .contains(&AnimEvent::TimelineFinished(id));
    }
    assert!(blink_done && peak > 0.9);
    assert_eq!(anim.value(&Key::Expression).unwrap(), &happy);
}

#[test]
fn path_motion_at_constant_speed_with_loops() {
    let level_points = vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 2.0)];
    let looped = true;
    let mut points = level_points.clone();
    if looped {
        points.push(level_points[0]);
    }
    let path = ArcLengthPath::new(&points).unwrap();
    let speed = 1.5; // metres per second
    let mut anim: Animator<Key> = Animator::default();
    let key = Key::PathProgress(7);
    anim.register(key, &[0.0]).unwrap();
    let lap = path.length() / speed;
    anim.tween_from_to(&key, &[0.0], &[1.0], lap, Easing::Linear)
        .unwrap();
    let mut laps = 0;
    let mut last = Vec2::ZERO;
    for _ in 0..(60.0 * lap * 2.5) as usize {
        anim.tick(1.0 / 60.0);
        let p = path.sample_at_fraction(anim.scalar(&key).unwrap());
        if laps == 0 && anim.scalar(&key).unwrap() < 1.0 {
            let step = p.distance(last);
            // Constant speed except where the frame straddles a corner.
            assert!(step <= speed / 60.0 + 1e-3);
        }
        last = p;
        for e in anim.drain_events() {
            if e == AnimEvent::Finished(key) {
                laps += 1;
                anim.tween_from_to(&key, &[0.0], &[1.0], lap, Easing::Linear)
                    .unwrap();
            }
        }
    }
    assert_eq!(laps, 2);
}

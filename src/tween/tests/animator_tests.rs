use crate::tween::*;

fn linear() -> Easing {
    Easing::Linear
}

fn approx(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

/// Advances `secs` in equal steps no longer than the default dt clamp.
pub(super) fn advance<K: std::hash::Hash + Eq + Clone + std::fmt::Debug>(
    a: &mut Animator<K>,
    secs: f32,
) -> bool {
    let n = (secs / 0.1).ceil().max(1.0) as usize;
    let mut busy = false;
    for _ in 0..n {
        busy = a.tick(secs / n as f32);
    }
    busy
}

fn animator_with(key: &str, initial: &[f32]) -> Animator {
    let mut a = Animator::default();
    a.register(key, initial).unwrap();
    a
}

#[test]
fn tween_moves_current_and_keeps_target_apart() {
    let mut a = animator_with("x", &[0.0]);
    a.tween_to("x", &[10.0], 1.0, linear()).unwrap();
    assert_eq!(a.scalar("x"), Some(0.0), "only tick writes the value");
    assert_eq!(a.target("x").unwrap(), &[10.0]);
    assert!(advance(&mut a, 0.25));
    assert!(approx(a.scalar("x").unwrap(), 2.5, 1e-6));
    assert_eq!(a.target("x").unwrap(), &[10.0]);
    assert_eq!(a.changed().count(), 1);
    advance(&mut a, 0.75);
    assert_eq!(a.scalar("x"), Some(10.0), "ends exactly on the target");
    assert!(!a.is_busy());
    assert_eq!(a.drain_events(), vec![AnimEvent::Finished("x".to_string())]);
    assert!(!a.tick(0.05), "idle after the end");
    assert_eq!(a.changed().count(), 0);
}

#[test]
fn repeating_the_same_target_is_not_a_new_write() {
    let mut a = animator_with("x", &[0.0]);
    for _ in 0..10 {
        a.tween_to("x", &[1.0], 1.0, linear()).unwrap();
        a.tick(0.01);
    }
    // Not restarted and not collapsed into a slider jump.
    assert!(approx(a.scalar("x").unwrap(), 0.1, 1e-5));
}

#[test]
fn retarget_keeps_velocity_and_scales_duration() {
    let mut a = animator_with("x", &[0.0]);
    a.tween_to("x", &[10.0], 1.0, linear()).unwrap();
    advance(&mut a, 0.5);
    assert!(approx(a.scalar("x").unwrap(), 5.0, 1e-5));
    let v_before = a.velocity("x").unwrap()[0];
    assert!(approx(v_before, 10.0, 1e-3));
    // Remaining 2.5 of an original 10: a quarter of the base duration.
    a.tween_to("x", &[7.5], 1.0, linear()).unwrap();
    assert!(approx(a.remaining("x").unwrap(), 0.25, 1e-6));
    let v_after = a.velocity("x").unwrap()[0];
    assert!(approx(v_after, v_before, 1e-3), "{v_after} vs {v_before}");
    // The displayed motion continues at that speed.
    a.tick(1e-3);
    let fd = (a.scalar("x").unwrap() - 5.0) / 1e-3;
    assert!(approx(fd, 10.0, 0.1), "{fd}");
    while a.tick(0.01) {}
    assert_eq!(a.scalar("x"), Some(7.5));
}

#[test]
fn retarget_duration_is_clamped() {
    let mut a = animator_with("x", &[0.0]);
    a.tween_to("x", &[10.0], 1.0, linear()).unwrap();
    advance(&mut a, 0.5);
    a.tween_to("x", &[5.1], 1.0, linear()).unwrap();
    assert!(approx(a.remaining("x").unwrap(), 0.15, 1e-6), "floor");

    let mut a = animator_with("x", &[0.0]);
    a.tween_to("x", &[10.0], 1.0, linear()).unwrap();
    advance(&mut a, 0.5);
    a.tween_to("x", &[100.0], 1.0, linear()).unwrap();
    assert!(approx(a.remaining("x").unwrap(), 1.0, 1e-6), "ceiling");
}

#[test]
fn retarget_velocity_is_continuous_for_eased_curves() {
    for easing in [
        "easeOutCubic",
        "easeInOutQuad",
        "cubicBezier(.4,0,.2,1)",
        "easeOutBack",
    ] {
        let e = Easing::parse(easing).unwrap();
        let mut a = animator_with("p", &[0.0, 0.0]);
        a.tween_to("p", &[4.0, 2.0], 0.8, e.clone()).unwrap();
        for _ in 0..10 {
            a.tick(1.0 / 60.0);
        }
        let v0 = a.velocity("p").unwrap();
        let p0 = a.value("p").unwrap().to_vec();
        a.tween_to("p", &[-2.0, 3.0], 0.8, e).unwrap();
        let v1 = a.velocity("p").unwrap();
        for i in 0..2 {
            assert_approx!(
                v0[i],
                v1[i],
                0.01 * v0[i].abs().max(1.0),
                "{easing}: {v0:?} vs {v1:?}"
            );
        }
        let h = 1e-3;
        a.tick(h);
        let p1 = a.value("p").unwrap();
        for i in 0..2 {
            let fd = (p1[i] - p0[i]) / h;
            assert_approx!(
                fd,
                v0[i],
                0.05 * v0[i].abs().max(1.0),
                "{easing}: {fd} vs {}",
                v0[i]
            );
        }
        while a.tick(1.0 / 60.0) {}
        assert_eq!(a.value("p").unwrap(), &[-2.0, 3.0]);
    }
}

#[test]
fn three_writes_within_100ms_collapse_to_immediate_following() {
    let mut a = animator_with("s", &[0.0]);
    a.tween_to("s", &[1.0], 1.0, linear()).unwrap();
    a.tick(0.03);
    a.tween_to("s", &[2.0], 1.0, linear()).unwrap();
    a.tick(0.03);
    assert!(a.scalar("s").unwrap() < 1.0, "two writes still animate");
    a.tween_to("s", &[3.0], 1.0, linear()).unwrap();
    a.tick(0.016);
    assert_eq!(a.scalar("s"), Some(3.0), "third write follows at once");
    a.tween_to("s", &[4.0], 1.0, linear()).unwrap();
    a.tick(0.016);
    assert_eq!(
        a.scalar("s"),
        Some(4.0),
        "and keeps following while dragging"
    );
}

#[test]
fn writes_spread_over_more_than_100ms_do_not_collapse() {
    let mut a = animator_with("s", &[0.0]);
    for target in [1.0, 2.0, 3.0] {
        a.tween_to("s", &[target], 1.0, linear()).unwrap();
        a.tick(0.06);
    }
    // First and third writes are 120 ms apart.
    assert!(a.scalar("s").unwrap() < 3.0);
    assert!(a.is_animating("s"));
}

#[test]
fn collapse_can_be_disabled_per_channel() {
    let mut a: Animator = Animator::default();
    let mut spec = ChannelSpec::new(&[0.0]);
    spec.slider_collapse = false;
    a.register_with("s", spec).unwrap();
    for target in [1.0, 2.0, 3.0] {
        a.tween_to("s", &[target], 1.0, linear()).unwrap();
        a.tick(0.01);
    }
    assert!(a.scalar("s").unwrap() < 3.0);
}

#[test]
fn critically_damped_slider_following_has_no_overshoot() {
    let options = AnimatorOptions {
        slider_follow: SliderFollow::Critical { stiffness: 400.0 },
        ..AnimatorOptions::default()
    };
    let mut a: Animator = Animator::new(options);
    a.register("s", &[0.0]).unwrap();
    for target in [1.0, 2.0, 3.0] {
        a.tween_to("s", &[target], 1.0, linear()).unwrap();
        a.tick(0.02);
    }
    let mut max = 0.0f32;
    while a.tick(0.01) {
        max = max.max(a.scalar("s").unwrap());
    }
    assert!(max <= 3.0 + 1e-3, "{max}");
    assert_eq!(a.scalar("s"), Some(3.0));
}

#[test]
fn cancel_stays_and_finish_jumps() {
    let mut a = animator_with("x", &[0.0]);
    a.tween_to("x", &[10.0], 1.0, linear()).unwrap();
    advance(&mut a, 0.3);
    assert!(a.cancel("x"));
    assert!(approx(a.scalar("x").unwrap(), 3.0, 1e-5));
    assert_eq!(a.target("x").unwrap(), a.value("x").unwrap());
    advance(&mut a, 0.5);
    assert!(
        approx(a.scalar("x").unwrap(), 3.0, 1e-5),
        "no snap back, no drift"
    );
    assert!(!a.cancel("x"), "nothing left to cancel");
    assert_eq!(
        a.drain_events(),
        vec![AnimEvent::Cancelled("x".to_string())]
    );

    a.tween_to("x", &[-4.0], 1.0, linear()).unwrap();
    a.tick(0.1);
    assert!(a.finish("x"));
    assert_eq!(a.scalar("x"), Some(-4.0));
    assert!(!a.is_animating("x"));
    assert_eq!(a.changed().count(), 1);
    assert_eq!(a.drain_events(), vec![AnimEvent::Finished("x".to_string())]);
}

#[test]
fn dt_is_clamped() {
    let mut a = animator_with("x", &[0.0]);
    a.tween_to("x", &[1.0], 1.0, linear()).unwrap();
    a.tick(5.0);
    assert!(
        approx(a.scalar("x").unwrap(), 0.1, 1e-6),
        "a 5 s stall advances 100 ms"
    );
    assert_approx!(a.now(), 0.1, 1e-6);
    a.tick(f32::NAN);
    a.tick(-1.0);
    a.tick(f32::INFINITY);
    assert!(approx(a.scalar("x").unwrap(), 0.1, 1e-6));
    let mut o = a.options().clone();
    o.max_dt = 0.25;
    a.set_options(o);
    a.tick(1.0);
    assert!(approx(a.scalar("x").unwrap(), 0.35, 1e-6));
}

#[test]
fn colour_tweens_mix_in_linear_light_by_default() {
    let mut a: Animator = Animator::default();
    a.register_color("lin", &[0.0, 0.0, 0.0, 0.0], ColorSpace::Linear)
        .unwrap();
    a.register_color("srgb", &[0.0, 0.0, 0.0, 0.0], ColorSpace::Srgb)
        .unwrap();
    for k in ["lin", "srgb"] {
        a.tween_to(k, &[1.0, 1.0, 1.0, 1.0], 1.0, linear()).unwrap();
    }
    a.tick(0.05);
    a.tick(0.05);
    for _ in 0..8 {
        a.tick(0.05);
    }
    let lin = a.value("lin").unwrap();
    let srgb = a.value("srgb").unwrap();
    assert!(approx(lin[0], 0.5, 1e-6));
    // Halfway in sRGB is 0.5 encoded, i.e. 0.214 in linear light; alpha stays linear.
    assert!(approx(srgb[0], 0.214_041_14, 1e-6), "{}", srgb[0]);
    assert!(approx(srgb[3], 0.5, 1e-6));
    while a.tick(0.1) {}
    assert_eq!(a.value("srgb").unwrap(), &[1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn path_progress_is_an_ordinary_channel() {
    let path = ArcLengthPath::new(&[
        glam::Vec2::ZERO,
        glam::Vec2::new(3.0, 0.0),
        glam::Vec2::new(3.0, 1.0),
    ])
    .unwrap();
    let mut a = animator_with("walk", &[0.0]);
    a.tween_from_to("walk", &[0.0], &[1.0], 2.0, linear())
        .unwrap();
    advance(&mut a, 1.0);
    let p = path.sample_at_fraction(a.scalar("walk").unwrap());
    assert_approx!(p, glam::Vec2::new(2.0, 0.0), 1e-5);
    while a.tick(0.1) {}
    // Looping restarts from 0 even though the channel rests at 1.
    a.tween_from_to("walk", &[0.0], &[1.0], 2.0, linear())
        .unwrap();
    advance(&mut a, 0.5);
    assert!(approx(a.scalar("walk").unwrap(), 0.25, 1e-6));
}

#[test]
fn set_jumps_on_the_next_tick() {
    let mut a = animator_with("x", &[0.0]);
    a.set("x", &[5.0]).unwrap();
    assert_eq!(a.scalar("x"), Some(0.0));
    a.tick(0.0);
    assert_eq!(a.scalar("x"), Some(5.0));
}

#[test]
fn errors_name_the_channel() {
    let mut a = animator_with("x", &[0.0, 1.0]);
    assert_eq!(
        a.tween_to("y", &[1.0], 1.0, linear())
            .unwrap_err()
            .to_string(),
        "no animation channel \"y\" is registered"
    );
    assert_eq!(
        a.tween_to("x", &[1.0], 1.0, linear())
            .unwrap_err()
            .to_string(),
        "animation channel \"x\" has 2 components, the value has 1"
    );
    assert_eq!(
        a.tween_to("x", &[1.0, f32::NAN], 1.0, linear())
            .unwrap_err()
            .to_string(),
        "value for animation channel \"x\" is NaN or infinite"
    );
    assert_eq!(
        a.register("x", &[0.0]).unwrap_err().to_string(),
        "animation channel \"x\" is already registered"
    );
}

#[test]
fn typed_keys_and_unregister() {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Key {
        Camera,
        Panel(u32),
    }
    let mut a: Animator<Key> = Animator::default();
    a.register(Key::Camera, &[0.0, 0.0, 0.0]).unwrap();
    a.register(Key::Panel(1), &[0.0]).unwrap();
    a.register(Key::Panel(2), &[0.0]).unwrap();
    a.tween_to(&Key::Panel(2), &[1.0], 1.0, linear()).unwrap();
    assert!(a.unregister(&Key::Camera));
    assert!(!a.contains(&Key::Camera));
    advance(&mut a, 0.5);
    assert!(approx(a.scalar(&Key::Panel(2)).unwrap(), 0.5, 1e-6));
    assert_eq!(a.scalar(&Key::Panel(1)), Some(0.0));
}

#[test]
fn transitions_default_per_channel_then_globally() {
    let mut a: Animator = Animator::default();
    a.register("global", &[0.0]).unwrap();
    a.register_with(
        "panel",
        ChannelSpec::new(&[0.0]).with_transition(0.2, Easing::Linear),
    )
    .unwrap();
    a.tween("global", &[1.0]).unwrap();
    a.tween("panel", &[1.0]).unwrap();
    a.tick(0.1);
    assert!(approx(a.scalar("panel").unwrap(), 0.5, 1e-6));
    // Global default: 0.4 s of easeOutCubic; a quarter of the way in is 1 - 0.75^3.
    assert!(approx(a.scalar("global").unwrap(), 1.0 - 0.421_875, 1e-5));
    assert!(approx(a.remaining("global").unwrap(), 0.3, 1e-6));
}

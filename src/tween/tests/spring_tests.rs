use crate::tween::*;

#[test]
fn rejects_springs_that_never_settle() {
    assert_eq!(Spring::new(0.0, 10.0).unwrap_err(), SpringError::Stiffness);
    assert_eq!(Spring::new(100.0, 0.0).unwrap_err(), SpringError::Damping);
    assert_eq!(
        Spring::new(f32::NAN, 1.0).unwrap_err(),
        SpringError::Stiffness
    );
}

#[test]
fn settle_time_is_the_first_time_the_rule_holds_and_it_keeps_holding() {
    for (k, c) in [
        (180.0, 22.0),
        (100.0, 20.0),
        (100.0, 40.0),
        (300.0, 5.0),
        (0.5, 0.3),
    ] {
        let s = Spring::new(k, c).unwrap();
        let t_settle = s.settle_time();
        assert!(t_settle > 0.0 && t_settle.is_finite());
        let (x, v) = s.step(-1.0, 0.0, t_settle);
        assert!(
            x.abs() <= SETTLE_EPS && v.abs() <= SETTLE_EPS,
            "spring({k},{c})"
        );
        // Never leaves the bound afterwards.
        for i in 0..=2000 {
            let t = t_settle * (1.0 + 2.0 * i as f64 / 2000.0);
            let (x, v) = s.step(-1.0, 0.0, t);
            assert!(x.abs() <= SETTLE_EPS && v.abs() <= SETTLE_EPS);
        }
        // And a little earlier the energy rule does not hold yet.
        let (x, v) = s.step(-1.0, 0.0, t_settle * 0.99);
        assert!(
            !s.is_settled(x, v, SETTLE_EPS),
            "spring({k},{c}) settles earlier"
        );
    }
    // spring(180,22) (damping ratio 0.82) settles in 0.9367 s, as an independent f64
    // bisection on the same energy rule gives.
    let s = Spring::new(180.0, 22.0).unwrap();
    assert_approx!(s.settle_time(), 0.936_729, 1e-5, "{}", s.settle_time());
}

#[test]
fn closed_form_matches_a_fine_integrator() {
    for (k, c) in [(180.0f32, 22.0f32), (100.0, 20.0), (100.0, 40.0)] {
        let s = Spring::new(k, c).unwrap();
        let (mut x, mut v) = (-1.0f64, 0.5f64);
        let h = 1e-5;
        for _ in 0..50_000 {
            // Semi-implicit Euler with a tiny step as an independent check.
            v += (-(k as f64) * x - (c as f64) * v) * h;
            x += v * h;
        }
        let (xe, ve) = s.step(-1.0, 0.5, 0.5);
        assert!(
            (x - xe).abs() < 1e-3 && (v - ve).abs() < 1e-2,
            "spring({k},{c})"
        );
    }
}

#[test]
fn easing_form_maps_t_onto_settle_time() {
    let s = Spring::new(180.0, 22.0).unwrap();
    let e = Easing::Spring(s);
    let t = 0.3;
    let want = 1.0 + s.step(-1.0, 0.0, t * s.settle_time()).0;
    assert_approx!(e.eval64(t), want, 1e-12);
    assert!((e.eval64(0.999_999) - 1.0).abs() <= SETTLE_EPS);
}

#[test]
fn spring_track_ends_within_its_bound() {
    let mut a: Animator = Animator::default();
    a.register("x", &[0.0]).unwrap();
    let spring = Spring::new(180.0, 22.0).unwrap();
    a.tween_to("x", &[10.0], 123.0, Easing::Spring(spring))
        .unwrap();
    let dt = 1.0 / 60.0;
    let bound = spring.settle_time_from(-10.0, 0.0, SETTLE_EPS);
    let mut frames = 0;
    while a.is_animating("x") {
        a.tick(dt);
        frames += 1;
        assert!(frames < 10_000);
    }
    assert_eq!(a.scalar("x"), Some(10.0));
    // The true spring was within the bound when the track snapped to its target.
    let (x, v) = spring.step(-10.0, 0.0, frames as f64 * dt as f64);
    assert!(x.abs() <= SETTLE_EPS && v.abs() <= SETTLE_EPS);
    // Ends on the first frame at or after the analytic settle time.
    assert_eq!(frames, (bound / dt as f64).ceil() as usize, "bound {bound}");
    assert_eq!(a.drain_events(), vec![AnimEvent::Finished("x".to_string())]);
}

#[test]
fn spring_track_is_continuous_under_retarget() {
    let mut a: Animator = Animator::default();
    a.register("x", &[0.0, 0.0]).unwrap();
    let spring = Easing::parse("spring(120,12)").unwrap();
    a.tween_to("x", &[1.0, -1.0], 0.0, spring.clone()).unwrap();
    for _ in 0..12 {
        a.tick(1.0 / 60.0);
    }
    let before = a.value("x").unwrap().to_vec();
    let v_before = a.velocity("x").unwrap();
    a.tween_to("x", &[-3.0, 2.0], 0.0, spring).unwrap();
    assert_eq!(a.value("x").unwrap(), before.as_slice());
    let v_after = a.velocity("x").unwrap();
    for i in 0..2 {
        assert_approx!(v_before[i], v_after[i], 1e-6);
    }
    // The first step after the retarget moves at that velocity.
    let h = 1e-4;
    a.tick(h);
    let now = a.value("x").unwrap();
    for i in 0..2 {
        let fd = (now[i] - before[i]) / h;
        assert_approx!(
            fd,
            v_before[i],
            0.05 * v_before[i].abs().max(1.0),
            "{fd} vs {}",
            v_before[i]
        );
    }
    while a.tick(1.0 / 60.0) {}
    assert_eq!(a.value("x").unwrap(), &[-3.0, 2.0]);
}

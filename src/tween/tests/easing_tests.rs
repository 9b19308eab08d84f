use crate::tween::*;

fn all_fixed() -> Vec<Easing> {
    let mut v: Vec<Easing> = Easing::named().into_iter().map(|(_, e)| e).collect();
    v.push(Easing::CubicBezier(CubicBezier::EASE));
    v.push(Easing::CubicBezier(CubicBezier::new(0.4, 0.0, 0.2, 1.0)));
    v.push(Easing::CubicBezier(CubicBezier::new(0.3, -0.5, 0.7, 1.6)));
    v.push(Easing::Spring(Spring::new(180.0, 22.0).unwrap()));
    v.push(Easing::Spring(Spring::new(100.0, 20.0).unwrap()));
    v.push(Easing::Spring(Spring::new(100.0, 40.0).unwrap()));
    v.push(Easing::Steps {
        count: 4,
        position: StepPosition::End,
    });
    v
}

#[test]
fn every_curve_starts_at_0_and_ends_at_1() {
    for e in all_fixed() {
        assert_eq!(e.eval(0.0), 0.0, "{e} at 0");
        assert_eq!(e.eval(1.0), 1.0, "{e} at 1");
    }
    assert_eq!(Easing::named().len(), 25);
}

#[test]
fn monotonic_curves_never_decrease() {
    let mut checked = 0;
    for e in all_fixed() {
        if !e.is_monotonic() {
            continue;
        }
        checked += 1;
        let mut prev = e.eval64(0.0);
        for i in 1..=2000 {
            let y = e.eval64(i as f64 / 2000.0);
            assert!(y >= prev - 1e-12, "{e} decreases at {}", i as f64 / 2000.0);
            prev = y;
        }
    }
    // linear + 21 standard + 2 monotone béziers + 2 non-overshooting springs + steps.
    assert_eq!(checked, 27);
    assert!(!Easing::OutBack.is_monotonic());
    assert!(!Easing::Spring(Spring::new(180.0, 22.0).unwrap()).is_monotonic());
}

#[test]
fn overshooting_curves_do_overshoot() {
    let peak = |e: &Easing| {
        (0..=1000)
            .map(|i| e.eval64(i as f64 / 1000.0))
            .fold(0.0, f64::max)
    };
    assert!(peak(&Easing::OutBack) > 1.09);
    assert!(peak(&Easing::OutElastic) > 1.03);
    assert!(peak(&Easing::Spring(Spring::new(180.0, 10.0).unwrap())) > 1.1);
    assert!(peak(&Easing::OutBounce) <= 1.0 + 1e-9);
}

#[test]
fn known_values() {
    let std = |f, d| Easing::standard(f, d);
    let cases: &[(Easing, f64, f64)] = &[
        (Easing::Linear, 0.3, 0.3),
        (std(Family::Quad, Direction::In), 0.5, 0.25),
        (std(Family::Quad, Direction::InOut), 0.25, 0.125),
        (std(Family::Cubic, Direction::Out), 0.5, 0.875),
        (std(Family::Cubic, Direction::InOut), 0.75, 0.9375),
        (std(Family::Quart, Direction::In), 0.5, 0.0625),
        (std(Family::Quint, Direction::Out), 0.5, 0.96875),
        (
            std(Family::Sine, Direction::In),
            0.5,
            1.0 - std::f64::consts::FRAC_1_SQRT_2,
        ),
        (std(Family::Sine, Direction::InOut), 0.5, 0.5),
        (std(Family::Expo, Direction::Out), 0.5, 0.96875),
        (std(Family::Expo, Direction::In), 0.5, 0.03125),
        (
            std(Family::Circ, Direction::In),
            0.5,
            0.133_974_596_215_561_35,
        ),
        (Easing::OutBounce, 0.5, 0.765625),
        (Easing::OutBack, 0.5, 1.087_697_5),
        (Easing::OutElastic, 0.5, 1.015625),
    ];
    for (e, t, want) in cases {
        let got = e.eval64(*t);
        assert_approx!(got, want, 1e-9, "{e}({t}) = {got}, want {want}");
    }
}

#[test]
fn steps_follow_css_jump_rules() {
    let end = Easing::parse("steps(4,end)").unwrap();
    let start = Easing::parse("steps(4,start)").unwrap();
    for (t, e, s) in [
        (0.0, 0.0, 0.25),
        (0.24, 0.0, 0.25),
        (0.25, 0.25, 0.5),
        (0.5, 0.5, 0.75),
        (0.99, 0.75, 1.0),
        (1.0, 1.0, 1.0),
    ] {
        assert_eq!(end.eval(t), e, "end at {t}");
        assert_eq!(start.eval(t), s, "start at {t}");
    }
}

#[test]
fn input_outside_unit_interval_is_clamped() {
    let e = Easing::standard(Family::Cubic, Direction::Out);
    assert_eq!(e.eval(-3.0), 0.0);
    assert_eq!(e.eval(7.0), 1.0);
    assert_eq!(e.eval(f32::NAN), 0.0);
}

#[test]
fn custom_functions() {
    let e = Easing::custom(|t| t * t);
    assert_eq!(e.eval(0.5), 0.25);
    assert_eq!(e.to_string(), "custom");
    assert_eq!(e, e.clone());
    assert_ne!(e, Easing::custom(|t| t * t));
    assert!(ron::to_string(&e).is_err());
}

/// Reference for CSS `cubic-bezier()`: Bernstein form, solved by 200 bisections in f64. It
/// shares no code with the implementation.
fn css_reference(x1: f64, y1: f64, x2: f64, y2: f64, x: f64) -> f64 {
    let bez = |p1: f64, p2: f64, s: f64| {
        let m = 1.0 - s;
        3.0 * m * m * s * p1 + 3.0 * m * s * s * p2 + s * s * s
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if bez(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    bez(y1, y2, 0.5 * (lo + hi))
}

#[test]
fn cubic_bezier_matches_css_keywords() {
    let cases = [
        ("ease", (0.25, 0.1, 0.25, 1.0)),
        ("ease-in", (0.42, 0.0, 1.0, 1.0)),
        ("ease-out", (0.0, 0.0, 0.58, 1.0)),
        ("ease-in-out", (0.42, 0.0, 0.58, 1.0)),
        ("cubicBezier(.4,0,.2,1)", (0.4, 0.0, 0.2, 1.0)),
        ("cubicBezier(0,1,1,0)", (0.0, 1.0, 1.0, 0.0)),
        ("cubicBezier(0.3,-0.5,0.7,1.6)", (0.3, -0.5, 0.7, 1.6)),
    ];
    let mut worst = 0.0f64;
    for (text, (x1, y1, x2, y2)) in cases {
        let e = Easing::parse(text).unwrap();
        // Reference with the f32-rounded control points the curve actually stores.
        let r = |v: f64| v as f32 as f64;
        for i in 0..=1000 {
            let t = i as f64 / 1000.0;
            let want = css_reference(r(x1), r(y1), r(x2), r(y2), t);
            let got = e.eval64(t);
            worst = worst.max((got - want).abs());
            assert_approx!(got, want, 1e-5, "{text} at {t}: {got} vs {want}");
            assert_approx!(e.eval(t as f32) as f64, want, 1e-4);
        }
    }
    assert!(worst < 1e-6, "worst error {worst}");
    // Published values for `ease` at the midpoint and symmetry of ease-in-out.
    assert_approx!(
        Easing::parse("ease").unwrap().eval64(0.5),
        0.802_403_4,
        1e-6
    );
    assert_approx!(Easing::parse("ease-in-out").unwrap().eval64(0.5), 0.5, 1e-6);
}

#[test]
fn display_round_trips_through_parse() {
    for e in all_fixed() {
        let text = e.to_string();
        assert_eq!(Easing::parse(&text).unwrap(), e, "{text}");
    }
    assert_eq!(
        Easing::parse("cubicBezier(.4,0,.2,1)").unwrap().to_string(),
        "cubicBezier(0.4,0,0.2,1)"
    );
    assert_eq!(
        Easing::parse("ease").unwrap().to_string(),
        "cubicBezier(0.25,0.1,0.25,1)"
    );
    assert_eq!(
        Easing::parse(" spring( 180 , 22 ) ").unwrap().to_string(),
        "spring(180,22)"
    );
    assert_eq!(
        Easing::parse("steps(3)").unwrap().to_string(),
        "steps(3,end)"
    );
    assert_eq!(
        "easeInOutSine".parse::<Easing>().unwrap(),
        Easing::standard(Family::Sine, Direction::InOut)
    );
}

#[test]
fn serde_reads_and_writes_strings() {
    #[derive(Debug, serde::Deserialize, serde::Serialize)]
    struct Settings {
        fade: Easing,
    }
    let s: Settings = ron::from_str("(fade: \"easeOutCubic\")").unwrap();
    assert_eq!(s.fade, Easing::standard(Family::Cubic, Direction::Out));
    assert_eq!(ron::to_string(&s).unwrap(), "(fade:\"easeOutCubic\")");
    let err = ron::from_str::<Settings>("(fade: \"easeOutCubc\")").unwrap_err();
    assert!(
        err.to_string()
            .contains("invalid easing \"easeOutCubc\" at column 1: unknown curve \"easeOutCubc\" (did you mean \"easeOutCubic\"?)"),
        "{err}"
    );
}

#[test]
fn colour_spaces() {
    assert_approx!(srgb_to_linear(0.5), 0.214_041_140_482_232_55, 1e-12);
    for i in 0..=100 {
        let c = i as f64 / 100.0;
        assert_approx!(linear_to_srgb(srgb_to_linear(c)), c, 1e-12);
    }
}

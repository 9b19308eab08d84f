use crate::tween::parse::ALLOWED;
use crate::tween::*;

#[test]
fn bad_strings_give_exact_messages() {
    let allowed = ALLOWED;
    let table: Vec<(&str, String)> = vec![
        ("", format!("invalid easing \"\" at column 1: the string is empty; allowed: {allowed}")),
        ("   ", format!("invalid easing \"   \" at column 4: the string is empty; allowed: {allowed}")),
        (
            "easeOutCubc",
            format!("invalid easing \"easeOutCubc\" at column 1: unknown curve \"easeOutCubc\" (did you mean \"easeOutCubic\"?); allowed: {allowed}"),
        ),
        (
            "Ease-out",
            format!("invalid easing \"Ease-out\" at column 1: unknown curve \"Ease-out\" (did you mean \"ease-out\"?); allowed: {allowed}"),
        ),
        ("bounce", format!("invalid easing \"bounce\" at column 1: unknown curve \"bounce\"; allowed: {allowed}")),
        ("élan", format!("invalid easing \"élan\" at column 1: unknown curve \"élan\"; allowed: {allowed}")),
        ("(1,2)", format!("invalid easing \"(1,2)\" at column 1: expected a curve name, found \"(\"; allowed: {allowed}")),
        ("linear(2)", "invalid easing \"linear(2)\" at column 7: \"linear\" takes no arguments; write just \"linear\"".into()),
        ("cubicBezier", "invalid easing \"cubicBezier\" at column 12: arguments are missing; write cubicBezier(x1,y1,x2,y2)".into()),
        ("cubicBezier( )", "invalid easing \"cubicBezier( )\" at column 12: arguments are missing; write cubicBezier(x1,y1,x2,y2)".into()),
        ("cubicBezier(.4,0,.2)", "invalid easing \"cubicBezier(.4,0,.2)\" at column 12: expected 4 arguments, found 3; write cubicBezier(x1,y1,x2,y2)".into()),
        ("cubicBezier(1.5,0,.2,1)", "invalid easing \"cubicBezier(1.5,0,.2,1)\" at column 13: x1 must be between 0 and 1, found 1.5".into()),
        ("cubicBezier(.4,0,-.1,1)", "invalid easing \"cubicBezier(.4,0,-.1,1)\" at column 18: x2 must be between 0 and 1, found -.1".into()),
        ("cubicBezier(.4,0,x,1)", "invalid easing \"cubicBezier(.4,0,x,1)\" at column 18: x2 must be a number, found \"x\"".into()),
        ("cubicBezier(NaN,0,1,1)", "invalid easing \"cubicBezier(NaN,0,1,1)\" at column 13: x1 must be a number, found \"NaN\"".into()),
        ("cubicBezier(.4,,.2,1)", "invalid easing \"cubicBezier(.4,,.2,1)\" at column 16: the value for y1 is missing".into()),
        ("cubicBezier(.4,0,.2,1", "invalid easing \"cubicBezier(.4,0,.2,1\" at column 22: missing \")\" at the end".into()),
        ("cubicBezier(.4,0,.2,1) x", "invalid easing \"cubicBezier(.4,0,.2,1) x\" at column 24: unexpected \"x\" after the curve".into()),
        ("spring(0,22)", "invalid easing \"spring(0,22)\" at column 8: stiffness must be greater than 0, found 0".into()),
        ("spring(180,-1)", "invalid easing \"spring(180,-1)\" at column 12: damping must be greater than 0, found -1".into()),
        ("spring(180)", "invalid easing \"spring(180)\" at column 7: expected 2 arguments, found 1; write spring(stiffness,damping)".into()),
        ("spring(inf,1)", "invalid easing \"spring(inf,1)\" at column 8: stiffness must be a number, found \"inf\"".into()),
        ("steps(0,end)", "invalid easing \"steps(0,end)\" at column 7: the step count n must be a whole number from 1 to 10000, found 0".into()),
        ("steps(2.5)", "invalid easing \"steps(2.5)\" at column 7: the step count n must be a whole number from 1 to 10000, found 2.5".into()),
        ("steps(4,middle)", "invalid easing \"steps(4,middle)\" at column 9: the step position must be \"start\" or \"end\", found \"middle\"".into()),
        ("steps(4,)", "invalid easing \"steps(4,)\" at column 9: the value for the step position is missing".into()),
        ("steps(1,2,3)", "invalid easing \"steps(1,2,3)\" at column 6: expected 1 or 2 arguments, found 3; write steps(n,start|end)".into()),
        ("easeOutCubic extra", "invalid easing \"easeOutCubic extra\" at column 14: unexpected \"extra\" after the curve".into()),
    ];
    for (input, want) in &table {
        match Easing::parse(input) {
            Ok(e) => panic!("{input:?} parsed as {e}"),
            Err(err) => assert_eq!(&err.to_string(), want, "for {input:?}"),
        }
    }
}

#[test]
fn errors_carry_structured_positions() {
    let err = Easing::parse("cubicBezier(.4,0,.2)").unwrap_err();
    assert_eq!(err.column, 12);
    assert_eq!(
        err.kind,
        ParseErrorKind::ArgumentCount {
            usage: "cubicBezier(x1,y1,x2,y2)",
            expected: "4 arguments",
            found: 3
        }
    );
    // Columns count characters, not bytes.
    let err = Easing::parse("é(").unwrap_err();
    assert_eq!(err.column, 3);
}

#[test]
fn accepted_spellings() {
    let ok = [
        "linear",
        "easeInQuad",
        "easeInOutCirc",
        "easeOutBack",
        "easeOutElastic",
        "easeOutBounce",
        "ease",
        "ease-in",
        "ease-out",
        "ease-in-out",
        "cubicBezier(.4,0,.2,1)",
        "cubicBezier( 0.25 , 0.1 , 0.25 , 1.0 )",
        "cubicBezier(0,-2,1,3)",
        "cubicBezier(1e-1,0,2e-1,1)",
        "spring(180,22)",
        "spring(1.5, 0.25)",
        "steps(4,end)",
        "steps(4,start)",
        "steps(4, jump-start)",
        "steps(10000)",
        "\teaseOutCubic\n",
    ];
    for s in ok {
        assert!(Easing::parse(s).is_ok(), "{s}");
    }
}

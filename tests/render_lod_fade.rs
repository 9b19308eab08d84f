//! LOD changes without popping, measured in the real game: one person stands still in front of
//! a fixed camera while a level-of-detail boundary walks across their distance in steps of 1 %
//! (the same as the person walking across it, with nothing else in the picture changing). The
//! popping is the largest change of the person's pixels from one step to the next. A hard
//! switch (`--no-lod-fade`) puts all of it into one step; the dithered cross-fade must spread it
//! so that no step changes more than a third of that.

mod support;

use std::path::Path;

use support::{find_display, project_root, read_png, run_throng_ok, say, scratch_dir, Display};

/// Half the side of the square around the person (centre of the screen) that is compared.
const BOX_HALF: usize = 90;
/// Boundary positions per sweep: from 7 % beyond the person to 7 % before them, 1 % apart
/// (the fixture's bands are 10 % wide: ±5 %).
const STEPS: usize = 15;
/// The camera keeps the person the same size at every distance: half the view is this high.
const VIEW_HALF_HEIGHT_M: f32 = 6.0;

/// A boundary of the fixture level: its field as written there and its distance.
struct Boundary {
    name: &'static str,
    field: &'static str,
    at: f32,
}

const BOUNDARIES: [Boundary; 3] = [
    Boundary {
        name: "near -> mid",
        field: "near: 12.0",
        at: 12.0,
    },
    Boundary {
        name: "mid -> far",
        field: "mid: 30.0",
        at: 30.0,
    },
    Boundary {
        name: "far -> not drawn",
        field: "far: 60.0",
        at: 60.0,
    },
];

/// The fixture with the camera `distance` from the person and the boundary moved to `value`.
fn level_text(fixture: &str, b: &Boundary, value: f32) -> String {
    let fov = 2.0 * (VIEW_HALF_HEIGHT_M / b.at).atan().to_degrees();
    let key = b.field.split(':').next().expect("field name");
    let replaced = fixture
        .replace("distance: 12.0", &format!("distance: {:.3}", b.at))
        .replace("fov_deg: 20.0", &format!("fov_deg: {fov:.3}"))
        .replace(b.field, &format!("{key}: {value:.4}"));
    assert_ne!(replaced, fixture, "the fixture changed under the test");
    replaced
}

/// The pixels of the square around the screen's centre.
fn person_box(path: &Path) -> Vec<[u8; 3]> {
    let img = read_png(path);
    let (cx, cy) = (img.width / 2, img.height / 2);
    let mut out = Vec::with_capacity(4 * BOX_HALF * BOX_HALF);
    for y in cy - BOX_HALF..cy + BOX_HALF {
        for x in cx - BOX_HALF..cx + BOX_HALF {
            out.push(img.at(x, y));
        }
    }
    out
}

/// Sum of absolute colour differences.
fn change(a: &[[u8; 3]], b: &[[u8; 3]]) -> u64 {
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |c| (p[c] as i64 - q[c] as i64).unsigned_abs()))
        .sum()
}

/// The changes between consecutive steps of one sweep across `b`.
fn sweep(display: &Display, dir: &Path, fixture: &str, b: &Boundary, fade: bool) -> Vec<u64> {
    let mut boxes = Vec::new();
    for step in 0..STEPS {
        let share = 1.07 - 0.14 * step as f32 / (STEPS - 1) as f32;
        let level = dir.join(format!("sweep_{}_{fade}_{step}.ron", b.at));
        std::fs::write(&level, level_text(fixture, b, b.at * share)).expect("write level");
        let shot = dir.join(format!("sweep_{}_{fade}_{step}.png", b.at));
        let (level_arg, shot_arg) = (level.to_string_lossy(), shot.to_string_lossy());
        let mut args = vec![
            level_arg.as_ref(),
            "--frames",
            "3",
            "--paused",
            "--no-adaptive-quality",
            "--screenshot",
            shot_arg.as_ref(),
        ];
        if !fade {
            args.push("--no-lod-fade");
        }
        run_throng_ok(display, &args);
        boxes.push(person_box(&shot));
    }
    boxes.windows(2).map(|w| change(&w[0], &w[1])).collect()
}

#[test]
fn lod_changes_fade_over_several_steps_instead_of_popping() {
    let Some(display) = find_display("lod_changes_fade_over_several_steps_instead_of_popping")
    else {
        return;
    };
    let fixture_path = project_root().join("tests/fixtures/levels/lod_fade.ron");
    let fixture = std::fs::read_to_string(fixture_path).expect("fixture level");
    let dir = scratch_dir();
    for b in &BOUNDARIES {
        let hard = sweep(&display, dir.path(), &fixture, b, false);
        let faded = sweep(&display, dir.path(), &fixture, b, true);
        let (hard_pop, fade_pop) = (
            hard.iter().copied().max().unwrap_or(0),
            faded.iter().copied().max().unwrap_or(0),
        );
        say(&format!(
            "LOD fade render test RAN ({}): largest step change {fade_pop} faded vs {hard_pop} \
             hard ({:.2}); steps faded {faded:?}, hard {hard:?}",
            b.name,
            fade_pop as f64 / hard_pop.max(1) as f64
        ));
        // The hard switch is one visible jump and nothing else changes between steps, so the
        // measure sees popping only.
        assert_eq!(
            hard.iter().filter(|&&c| c > 0).count(),
            1,
            "{}: a hard switch changes the picture once: {hard:?}",
            b.name
        );
        assert!(
            hard_pop > 50_000,
            "{}: the switch is visible: {hard_pop}",
            b.name
        );
        let fading_steps = faded.iter().filter(|&&c| c > 0).count();
        assert!(
            fading_steps >= 6,
            "{}: the fade runs over the band's steps: {faded:?}",
            b.name
        );
        assert!(
            fade_pop * 3 <= hard_pop,
            "{}: no step of the fade changes more than a third of the hard switch: \
             {fade_pop} vs {hard_pop}",
            b.name
        );
    }
}

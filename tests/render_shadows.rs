//! Shadows that sit right, in the real game (the one-person fixture `lod_fade.ron` with its own
//! camera, sun and obstacles): blob shadows never show on a tree canopy, a near person's sunlit
//! face has no shadow speckles, a near person's sun shadow reaches their feet, and a blob shadow
//! on a building's shade darkens it (in the saved picture as any viewer shows it).
//!
//! Pictures are compared in pairs that differ in one thing only: with and without the crowd
//! (the level's crowd count), with and without shadows (the level's `lighting.shadows`).

mod support;

use std::path::{Path, PathBuf};

use support::{
    find_display, project_root, read_png, run_for_report, say, scratch_dir, Display, Rgb8Image,
};

const FIXTURE_CAMERA: &str = "    camera: (mode: Orbit, target: (75.0, 0.9, 75.0), distance: 12.0, yaw_deg: 0.0, pitch_deg: 8.0, fov_deg: 20.0),";

/// One picture of the fixture: camera line, sun direction, extra obstacles, shadows, crowd.
struct Shot<'a> {
    camera: &'a str,
    sun: &'a str,
    obstacles: &'a str,
    shadows: bool,
    crowd: u32,
}

impl Shot<'_> {
    fn take(&self, display: &Display, dir: &Path, name: &str) -> (Rgb8Image, serde_json::Value) {
        let (shot, report) = self.take_file(display, dir, name);
        (read_png(&shot), report)
    }

    /// The screenshot's path and the frame report.
    fn take_file(&self, display: &Display, dir: &Path, name: &str) -> (PathBuf, serde_json::Value) {
        let fixture =
            std::fs::read_to_string(project_root().join("tests/fixtures/levels/lod_fade.ron"))
                .expect("fixture level");
        assert!(
            fixture.contains(FIXTURE_CAMERA),
            "the fixture's camera line"
        );
        let level = fixture
            .replace(
                FIXTURE_CAMERA,
                &format!(
                    "    camera: {},\n    lighting: (sun_direction: {}, shadows: {}),",
                    self.camera, self.sun, self.shadows
                ),
            )
            .replace(
                "    obstacles: [],",
                &format!("    obstacles: [{}],", self.obstacles),
            )
            .replace("count: 1,", &format!("count: {},", self.crowd));
        // Room for a few people; one stays where the fixture puts them.
        let level = if self.crowd > 1 {
            level.replace("half_extents: (0.2, 0.2)", "half_extents: (1.0, 1.0)")
        } else {
            level
        };
        let path = dir.join(format!("{name}.ron"));
        std::fs::write(&path, level).expect("write level");
        let shot = dir.join(format!("{name}.png"));
        let (level_arg, shot_arg) = (path.to_string_lossy(), shot.to_string_lossy());
        let report = run_for_report(
            display,
            dir,
            name,
            &[
                level_arg.as_ref(),
                "--frames",
                "3",
                "--paused",
                "--no-adaptive-quality",
                "--screenshot",
                shot_arg.as_ref(),
            ],
        );
        if let Ok(keep) = std::env::var("THRONG_SHADOW_SHOTS") {
            let _ = std::fs::copy(&shot, Path::new(&keep).join(format!("{name}.png")));
        }
        (shot, report)
    }
}

fn differs(p: [u8; 3], q: [u8; 3], limit: i32) -> bool {
    (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > limit)
}

/// How much darker `shadowed` is than `lit` at one pixel (sum of channels).
fn darkening(lit: [u8; 3], shadowed: [u8; 3]) -> i32 {
    (0..3).map(|c| lit[c] as i32 - shadowed[c] as i32).sum()
}

/// The person's pixels: where the picture with them differs from the one without, below the
/// HUD.
fn person_mask(with: &Rgb8Image, without: &Rgb8Image) -> Vec<bool> {
    (0..with.pixels.len())
        .map(|i| i / with.width > 120 && differs(with.pixels[i], without.pixels[i], 10))
        .collect()
}

#[test]
fn blob_shadows_never_show_on_a_tree_canopy() {
    let Some(display) = find_display("blob_shadows_never_show_on_a_tree_canopy") else {
        return;
    };
    let dir = scratch_dir();
    // Looking down past a tree onto people standing under its crown: at 25 m they are mid
    // detail, so their shadows are blobs, on ground the crown hides.
    let shot = |crowd| {
        Shot {
        camera: "(mode: Orbit, target: (75.0, 3.0, 77.0), distance: 22.0, yaw_deg: 0.0, pitch_deg: 55.0, fov_deg: 30.0)",
        sun: "(-0.45, -1.0, -0.35)",
        obstacles: "(name: \"tree\", kind: Tree, shape: Circle(center: (75.0, 78.0), radius: 0.5))",
        shadows: true,
        crowd,
    }
    };
    let (empty, _) = shot(0).take(&display, dir.path(), "tree_empty");
    let (crowded, report) = shot(6).take(&display, dir.path(), "tree_crowd");
    assert_eq!(
        report["render"]["instances_per_lod"][1], 6,
        "six people at mid detail, with blobs: {}",
        report["render"]
    );
    let canopy: Vec<usize> = (0..empty.pixels.len())
        .filter(|&i| {
            let [r, g, b] = empty.pixels[i].map(i32::from);
            i / empty.width > 120 && g > r + 25 && g > b + 25
        })
        .collect();
    let marked = canopy
        .iter()
        .filter(|&&i| differs(empty.pixels[i], crowded.pixels[i], 6))
        .count();
    say(&format!(
        "Shadow render test RAN (canopy): {marked} of {} canopy pixels changed by the crowd",
        canopy.len()
    ));
    assert!(
        canopy.len() > 5000,
        "the crown fills the view: {}",
        canopy.len()
    );
    assert_eq!(marked, 0, "the crowd's blobs show on the canopy");
}

#[test]
fn a_sunlit_face_has_no_shadow_speckles_and_the_shadow_reaches_the_feet() {
    let Some(display) = find_display("a_sunlit_face_has_no_shadow_speckles") else {
        return;
    };
    let dir = scratch_dir();
    // The fixture's person faces +x: a camera on that side, the sun behind it and a little to
    // the side, so the face is lit but at a slant.
    let face = |shadows, crowd| {
        Shot {
        camera: "(mode: Orbit, target: (75.0, 1.45, 75.0), distance: 2.0, yaw_deg: 90.0, pitch_deg: 5.0, fov_deg: 30.0)",
        sun: "(-1.0, -0.7, 0.3)",
        obstacles: "",
        shadows,
        crowd,
    }
    };
    let (lit, _) = face(true, 1).take(&display, dir.path(), "face_on");
    let (unshadowed, _) = face(false, 1).take(&display, dir.path(), "face_off");
    let (empty, _) = face(false, 0).take(&display, dir.path(), "face_empty");
    let mask = person_mask(&unshadowed, &empty);
    // Skin in full light: bright and reddish (the hair is darker, the shirt blue).
    let skin: Vec<usize> = (0..mask.len())
        .filter(|&i| {
            let [r, _, b] = unshadowed.pixels[i].map(i32::from);
            mask[i] && r > 130 && r > b + 40
        })
        .collect();
    let (xs, ys): (Vec<usize>, Vec<usize>) =
        skin.iter().map(|&i| (i % lit.width, i / lit.width)).unzip();
    let (x0, x1) = (
        *xs.iter().min().expect("skin"),
        *xs.iter().max().expect("skin"),
    );
    let (y0, y1) = (
        *ys.iter().min().expect("skin"),
        *ys.iter().max().expect("skin"),
    );
    // The middle of the face: under the fringe's shadow, above the chin's.
    let patch: Vec<usize> = skin
        .iter()
        .copied()
        .filter(|&i| {
            let (x, y) = (i % lit.width, i / lit.width);
            x > x0 + (x1 - x0) / 4
                && x < x1 - (x1 - x0) / 4
                && y > y0 + (y1 - y0) * 3 / 10
                && y < y0 + (y1 - y0) * 6 / 10
        })
        .collect();
    let speckled = patch
        .iter()
        .filter(|&&i| darkening(unshadowed.pixels[i], lit.pixels[i]) > 30)
        .count();
    say(&format!(
        "Shadow render test RAN (face): {speckled} of {} face pixels darkened by shadows",
        patch.len()
    ));
    assert!(
        patch.len() > 4000,
        "the face fills the view: {}",
        patch.len()
    );
    assert!(
        speckled * 50 <= patch.len(),
        "shadow acne on the lit face: {speckled} of {} pixels",
        patch.len()
    );

    // The feet from the side, with the sun's shadow falling sideways along the ground.
    let feet = |shadows, crowd| {
        Shot {
        camera: "(mode: Orbit, target: (75.0, 0.3, 75.0), distance: 3.5, yaw_deg: -37.6, pitch_deg: 25.0, fov_deg: 40.0)",
        sun: "(-0.45, -1.0, -0.35)",
        obstacles: "",
        shadows,
        crowd,
    }
    };
    let (lit, _) = feet(true, 1).take(&display, dir.path(), "feet_on");
    let (unshadowed, _) = feet(false, 1).take(&display, dir.path(), "feet_off");
    let (empty, _) = feet(true, 0).take(&display, dir.path(), "feet_empty");
    let (empty_off, _) = feet(false, 0).take(&display, dir.path(), "feet_empty_off");
    let person = person_mask(&unshadowed, &empty_off);
    let w = lit.width;
    let bottom = (0..person.len())
        .filter(|&i| person[i])
        .map(|i| i / w)
        .max()
        .expect("the person is in view");
    // Along each of the person's lowest 6 rows (the soles), the ground pixels between the
    // person and the first shadowed one, either side: the contact shadow leaves none.
    let shadow = |i: usize| !person[i] && darkening(empty.pixels[i], lit.pixels[i]) > 60;
    let gaps: Vec<usize> = (bottom.saturating_sub(5)..=bottom)
        .filter_map(|y| {
            let row: Vec<usize> = (0..w).filter(|&x| person[y * w + x]).collect();
            let (&first, &last) = (row.first()?, row.last()?);
            let left = (0..first).rev().position(|x| shadow(y * w + x));
            let right = (last + 1..w).position(|x| shadow(y * w + x));
            left.into_iter().chain(right).min()
        })
        .collect();
    let gap = gaps.iter().copied().min().unwrap_or(usize::MAX);
    say(&format!(
        "Shadow render test RAN (feet): ground pixels between the soles and their shadow, per row: {gaps:?}"
    ));
    assert!(
        gap <= 2,
        "the shadow starts {gap} px from the feet ({gaps:?})"
    );
}

/// A PNG screenshot as an image viewer shows it: over a white page wherever it is not opaque.
fn read_png_over_white(path: &Path) -> (Rgb8Image, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot exists"));
    let mut reader = decoder.read_info().expect("valid PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!(
        info.color_type,
        png::ColorType::Rgba,
        "screenshots keep alpha"
    );
    let mut see_through = 0;
    let pixels = buf[..info.buffer_size()]
        .chunks(4)
        .enumerate()
        .map(|(i, c)| {
            let a = u32::from(c[3]);
            // Below the HUD's panel (its backdrop is meant to be translucent).
            if a < 255 && i / info.width as usize > 120 {
                see_through += 1;
            }
            [0, 1, 2].map(|k| ((u32::from(c[k]) * a + 255 * (255 - a) + 127) / 255) as u8)
        })
        .collect();
    let image = Rgb8Image {
        width: info.width as usize,
        height: info.height as usize,
        pixels,
    };
    (image, see_through)
}

#[test]
fn a_blob_shadow_in_a_buildings_shade_is_no_brighter_than_the_shade() {
    let Some(display) = find_display("a_blob_shadow_in_a_buildings_shade") else {
        return;
    };
    let dir = scratch_dir();
    // A long wall 3 m east of the person, 14 m high, with the sun behind it: the person and the
    // ground for metres around stand in its shadow. At 20 m the person is mid detail, so their
    // shadow is a blob, blended over the shaded ground.
    let shot = |shadows, crowd| {
        Shot {
        camera: "(mode: Orbit, target: (75.0, 0.5, 75.0), distance: 20.0, yaw_deg: 180.0, pitch_deg: 50.0, fov_deg: 12.0)",
        sun: "(-0.45, -1.0, -0.35)",
        obstacles: "(name: \"wall\", kind: Building, shape: Box(center: (79.0, 75.0), half_extents: (1.0, 10.0)), height: 14.0)",
        shadows,
        crowd,
    }
    };
    let as_shown = |s: Shot, name: &str| {
        let (path, report) = s.take_file(&display, dir.path(), name);
        let (shown, see_through) = read_png_over_white(&path);
        (shown, read_png(&path), see_through, report)
    };
    let (shaded, shaded_rgb, _, _) = as_shown(shot(true, 0), "shade_empty");
    let (sunlit, _, _, _) = as_shown(shot(false, 0), "shade_empty_sunlit");
    let (with, with_rgb, see_through, report) = as_shown(shot(true, 1), "shade_person");
    assert_eq!(
        report["render"]["instances_per_lod"][1], 1,
        "one person at mid detail, with a blob: {}",
        report["render"]
    );
    // The blob's pixels: where the person's blob (or body) darkened the picture, judged on the
    // colour channels as drawn; as shown, each must still be darker than the bare shade.
    let blob: Vec<usize> = (0..with.pixels.len())
        .filter(|&i| {
            i / with.width > 120 && darkening(shaded_rgb.pixels[i], with_rgb.pixels[i]) > 6
        })
        .collect();
    // They lie in the wall's shadow: the same ground without shadows is much brighter.
    let in_shade = blob
        .iter()
        .filter(|&&i| darkening(sunlit.pixels[i], shaded.pixels[i]) > 60)
        .count();
    let brighter: Vec<usize> = blob
        .iter()
        .copied()
        .filter(|&i| darkening(shaded.pixels[i], with.pixels[i]) < 0)
        .collect();
    say(&format!(
        "Shadow render test RAN (shade): {} blob pixels, {in_shade} in the wall's shade, {} brighter than the shade as shown, {see_through} see-through pixels",
        blob.len(),
        brighter.len()
    ));
    assert!(
        blob.len() > 150,
        "the blob is in view: {} pixels",
        blob.len()
    );
    assert_eq!(
        in_shade,
        blob.len(),
        "the whole blob lies in the wall's shade"
    );
    assert_eq!(
        (brighter.len(), see_through),
        (0, 0),
        "a halo: the ground under the person shows brighter than the shade around (first at pixel {:?})",
        brighter.first().map(|&i| (i % with.width, i / with.width))
    );
}

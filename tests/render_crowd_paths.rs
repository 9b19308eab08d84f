//! The skinned crowd's two paths draw the same picture: instanced (animation-matrix texture,
//! uniform blocks, culling) against naive (one draw per person with a CPU-sampled palette).
//! Also the uniform cap: batches sized for a 256-vector GPU still draw everyone, and the
//! vertex animation texture draws the mid/far figures the matrix texture draws.

mod support;

use support::{
    differing_pixels, find_display, project_root, read_png, run_throng_ok, scratch_dir, Display,
    Rgb8Image,
};

/// The plaza with a close camera and the given `lod: (...)` line, written into `dir`.
fn close_level_with(dir: &std::path::Path, lod: &str) -> String {
    let plaza = std::fs::read_to_string(project_root().join("levels/plaza.ron")).expect("plaza");
    let start = plaza.find("    camera: (").expect("camera line");
    let end = start + plaza[start..].find('\n').expect("end of line");
    let mut level = format!(
        "{}    camera: (mode: Orbit, target: (-6.0, 1.0, 12.0), distance: 10.0, yaw_deg: 30.0, pitch_deg: 15.0, fov_deg: 50.0),{}",
        &plaza[..start],
        &plaza[end..]
    );
    let lod_start = level.find("    lod: (").expect("lod line");
    let lod_end = lod_start + level[lod_start..].find('\n').expect("end of line");
    level.replace_range(lod_start..lod_end, lod);
    let path = dir.join("close.ron");
    std::fs::write(&path, level).expect("write level");
    path.to_string_lossy().to_string()
}

/// One paused frame of `level` with `crowd` people (and `extra` options): the picture and the log.
fn shoot_frame(
    display: &Display,
    dir: &std::path::Path,
    level: &str,
    name: &str,
    crowd: &str,
    extra: &[&str],
) -> (Rgb8Image, String) {
    let shot = dir.join(format!("{name}.png"));
    let shot_arg = shot.to_string_lossy().to_string();
    let mut args = vec![
        level,
        "--paused",
        "--crowd",
        crowd,
        "--frames",
        "3",
        "--no-adaptive-quality",
        "--screenshot",
        &shot_arg,
    ];
    args.extend_from_slice(extra);
    let log = run_throng_ok(display, &args);
    (read_png(&shot), log)
}

/// Rows under the HUD's box (its four lines end above y = 120 at 1280x720).
fn below_hud(mut image: Rgb8Image) -> Rgb8Image {
    const HUD_BOTTOM: usize = 120;
    let skip = (HUD_BOTTOM * image.width).min(image.pixels.len());
    image.pixels.drain(..skip);
    image.height = image.height.saturating_sub(HUD_BOTTOM);
    image
}

#[test]
fn instanced_and_naive_pictures_agree() {
    let Some(display) = find_display("instanced_and_naive_pictures_agree") else {
        return;
    };
    let dir = scratch_dir();
    // LOD distances so far that every visible person is near: the naive path has no LOD, so
    // only then must the pictures agree.
    let level = close_level_with(
        dir.path(),
        "    lod: (near: 400.0, mid: 450.0, far: 500.0, hysteresis: 2.0),",
    );
    // The HUD's text (frame time, draw counts) differs between paths by design: compare the
    // world below it only.
    let shoot = |name: &str, crowd: &str, extra: &[&str]| {
        below_hud(shoot_frame(&display, dir.path(), &level, name, crowd, extra).0)
    };
    let instanced = shoot("instanced", "400", &[]);
    let naive = shoot("naive", "400", &["--naive"]);
    let capped = shoot("capped", "400", &["--max-uniform-vectors", "256"]);
    let empty = shoot("empty", "0", &[]);
    let total = instanced.pixels.len();
    let people = differing_pixels(&instanced, &empty, 40);
    let paths = differing_pixels(&instanced, &naive, 40);
    let cap = differing_pixels(&instanced, &capped, 40);
    support::say(&format!(
        "crowd paths render test RAN: people cover {people} px; naive differs in {paths} px, \
         the 256-vector cap in {cap} px (of {total})"
    ));
    // The crowd is really there: a large part of the picture is people.
    assert!(people > total / 10, "people cover only {people} px");
    // Frame interpolation in the texture against exact CPU sampling: edges move by a pixel.
    assert!(
        paths * 50 < people,
        "naive differs in {paths} of {people} px"
    );
    // Smaller batches change nothing but the number of draws.
    assert!(cap * 200 < people, "capped differs in {cap} px");
}

#[test]
fn vat_and_matrix_pictures_agree() {
    let Some(display) = find_display("vat_and_matrix_pictures_agree") else {
        return;
    };
    let dir = scratch_dir();
    // Everyone visible is a mid figure (the VAT holds mid and far; near stays on matrices).
    let level = close_level_with(
        dir.path(),
        "    lod: (near: 2.0, mid: 400.0, far: 500.0, hysteresis: 1.0),",
    );
    // Below the HUD only: its frame time differs from run to run (CI measured 2,457 px apart
    // under load, nearly all of them digits).
    let shoot = |name: &str, crowd: &str, extra: &[&str]| {
        let (image, log) = shoot_frame(&display, dir.path(), &level, name, crowd, extra);
        (below_hud(image), log)
    };
    let (matrix, matrix_log) = shoot("matrix", "400", &[]);
    let (vat, vat_log) = shoot("vat", "400", &["--vat"]);
    let (empty, _) = shoot("empty", "0", &[]);
    // The VAT path really ran (and the default did not bake one).
    assert!(vat_log.contains("throng: VAT:"), "no VAT in use: {vat_log}");
    assert!(
        !vat_log.contains("VAT path:"),
        "the VAT path fell back: {vat_log}"
    );
    assert!(!matrix_log.contains("throng: VAT:"), "{matrix_log}");
    let people = differing_pixels(&matrix, &empty, 40);
    let moved = differing_pixels(&matrix, &vat, 40);
    let shaded = differing_pixels(&matrix, &vat, 8);
    support::say(&format!(
        "VAT render test RAN: mid people cover {people} px; the VAT path differs in {moved} px \
         by more than 40 and in {shaded} px by more than 8 (8-bit normals)"
    ));
    assert!(
        people > matrix.pixels.len() / 20,
        "people cover only {people} px"
    );
    // The same vertices at the same frame positions: only rounding separates the two.
    assert!(
        moved * 100 < people,
        "VAT differs in {moved} of {people} px"
    );
}

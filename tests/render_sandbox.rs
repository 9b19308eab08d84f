//! The sandbox in the real window, driven as a player drives it (`--input-script`: keys and
//! mouse): B opens the build toolbar, a digit takes a thing, a click on the ground places it
//! where the pointer is, Ctrl+Z takes the last one back, Ctrl+S saves it into the level file and
//! the next start has it; a click on a person opens their card,
//! F follows them and T takes control. The frame report (`--stats-out`) says what the game
//! holds afterwards.

mod support;

use glam::{Vec2, Vec3};
use support::{find_display, run_for_report};
use throng::crowd::placing::check_fit;
use throng::crowd::Crowd;
use throng::level::{Level, Placed, ThingKind};
use throng::view::camera::CameraRig;
use throng::view::level_overlay::project;

const SCREEN: Vec2 = Vec2::new(1280.0, 720.0);

fn ground_under(level: &Level, pixel: Vec2) -> Vec2 {
    support::ground_under_start_camera(level, pixel, SCREEN)
}

/// A pixel in the open whose ground point takes `kind` (snapped as the toolbar snaps).
fn free_pixel(level: &Level, kind: ThingKind, near: Vec2) -> (Vec2, Vec2) {
    for dy in 0..12 {
        for dx in 0..12 {
            let pixel = near + Vec2::new(dx as f32 * 17.0, dy as f32 * 13.0);
            let g = ground_under(level, pixel);
            let at = (g / 0.25).round() * 0.25;
            let thing = Placed {
                name: "probe".into(),
                kind,
                at,
                heading_deg: 0.0,
            };
            if check_fit(level, &thing).is_ok() {
                return (pixel, at);
            }
        }
    }
    panic!("no free ground for a {kind:?} near {near}");
}

#[test]
fn the_toolbar_places_where_the_pointer_is_and_ctrl_z_takes_it_back() {
    let Some(display) = find_display("the_toolbar_places") else {
        return;
    };
    let support::ScratchPlaza {
        level, dir, file, ..
    } = support::scratch_plaza();
    let (stand_px, stand_at) = free_pixel(&level, ThingKind::FoodStand, Vec2::new(300.0, 420.0));
    let (fence_px, _) = free_pixel(&level, ThingKind::Fence, Vec2::new(900.0, 420.0));
    let script = format!(
        "2 key b; 3 key 2; 5 move {sx} {sy}; 6 down left; 7 up left; 9 key 4; \
         11 move {fx} {fy}; 12 down left; 13 up left; 15 key ctrl+z; 17 down right; 18 up right; \
         19 key ctrl+s",
        sx = stand_px.x,
        sy = stand_px.y,
        fx = fence_px.x,
        fy = fence_px.y
    );
    let file_arg = file.to_string_lossy().to_string();
    let report = run_for_report(
        &display,
        dir.path(),
        "build",
        &[
            &file_arg,
            "--paused",
            "--crowd",
            "50",
            "--frames",
            "21",
            "--input-script",
            &script,
        ],
    );
    // Saved into the file, and there after a restart.
    let saved = std::fs::read_to_string(&file).expect("the level file");
    assert!(saved.contains("kind: FoodStand"), "{saved}");
    assert!(
        !saved.contains("kind: Fence"),
        "the undone fence is not saved"
    );
    let again = run_for_report(
        &display,
        dir.path(),
        "reloaded",
        &[&file_arg, "--paused", "--crowd", "50", "--frames", "2"],
    );
    assert_eq!(again["sandbox"]["placed"], report["sandbox"]["placed"]);
    let placed = report["sandbox"]["placed"]
        .as_array()
        .expect("the placed things");
    assert_eq!(placed.len(), 1, "the fence was undone: {placed:?}");
    assert_eq!(placed[0][1], "FoodStand");
    let at = Vec2::new(
        placed[0][2].as_f64().unwrap_or(f64::NAN) as f32,
        placed[0][3].as_f64().unwrap_or(f64::NAN) as f32,
    );
    assert_eq!(at, stand_at, "placed under the pointer, snapped to 25 cm");
    let queues = report["sandbox"]["queues"].as_array().expect("queues");
    assert!(
        queues.iter().any(|q| q[0] == "food_stand_1 queue"),
        "the stand's queue joined the crowd: {queues:?}"
    );
}

#[test]
fn clicking_a_person_opens_their_card_and_t_takes_control() {
    let Some(display) = find_display("clicking_a_person") else {
        return;
    };
    let support::ScratchPlaza {
        level, dir, file, ..
    } = support::scratch_plaza();
    // The crowd the game spawns (same level, size and seed), not moving: --paused.
    let crowd = Crowd::from_level(&level, 50, level.crowd.seed);
    let vp = CameraRig::from_start(&level.camera).view_projection(SCREEN.x / SCREEN.y);
    let (person, pixel) = (0..crowd.len())
        .filter_map(|i| {
            let p = crowd.pos[i];
            let px = project(&vp, Vec3::new(p.x, 1.0, p.y), SCREEN)?;
            let clear = px.x > 80.0 && px.x < 1200.0 && px.y > 200.0 && px.y < 600.0;
            let ndc = Vec2::new(px.x / SCREEN.x * 2.0 - 1.0, 1.0 - px.y / SCREEN.y * 2.0);
            let picked = throng::view::pick::pick_person(&vp, ndc, &crowd.pos);
            (clear && picked == Some(i)).then_some((i, px))
        })
        .next()
        .expect("someone to click in the view");
    let script = format!(
        "3 move {x} {y}; 4 down left; 5 up left; 7 key f; 9 key t",
        x = pixel.x,
        y = pixel.y
    );
    let file_arg = file.to_string_lossy().to_string();
    let mut args = vec![
        file_arg.as_str(),
        "--paused",
        "--crowd",
        "50",
        "--frames",
        "12",
        "--input-script",
        &script,
    ];
    // The README's picture of a card (scripts/readme-pictures.sh), kept when asked for.
    let shot = support::project_root().join("shots/sandbox_card.png");
    let shot_arg = shot.to_string_lossy().to_string();
    if std::env::var_os("THRONG_SHOTS").is_some() {
        let _ = std::fs::create_dir_all(support::project_root().join("shots"));
        args.extend(["--no-adaptive-quality", "--screenshot", &shot_arg]);
    }
    let report = run_for_report(&display, dir.path(), "card", &args);
    let card = report["sandbox"]["card"].as_array().expect("the card");
    let name = throng::crowd::story::person_name(level.crowd.seed, person);
    assert!(
        card.first()
            .and_then(|l| l.as_str())
            .is_some_and(|l| l.starts_with(&name)),
        "{name}'s card: {card:?}"
    );
    assert_eq!(report["sandbox"]["controlled"], person);
    assert_eq!(report["sandbox"]["followed"], person);
    let hud = report["hud"].to_string();
    assert!(hud.contains(&format!("follow {name}")), "{hud}");
}

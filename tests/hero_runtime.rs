//! The hero as plain data, no window: generated clips (arms down, opposite swing, feet that do
//! not slide), version skipping (paused: no palette updates; unchanged weights: no morph
//! rebuilds), blinking and expressions, movement and collisions, the crowd making way, and bad
//! models that must warn and fall back instead of panicking.

mod support;

use glam::{Vec2, Vec3};
use serde_json::json;
use support::assert_approx;
use support::gltf_builder::skinned_triangle;
use support::{load, project_root};
use throng::anim::ScenePose;
use throng::asset::load_slice;
use throng::game::{Action, FrameInput, Game, GameOptions};
use throng::hero::controller::{MoveIntent, HERO_RADIUS};
use throng::hero::Hero;
use throng::level::{load_level, Level};

fn lab() -> Level {
    let path = project_root().join("tests/fixtures/levels/hero_lab.ron");
    load_level(&path, &project_root()).unwrap_or_else(|e| panic!("{e}"))
}

/// Godette with the clips authored in code (`tests/hero_motion.rs` covers the retargeted ones).
fn godette(level: &Level) -> Hero {
    let mut settings = level.hero.clone();
    settings.motion = throng::level::HeroMotion::authored();
    Hero::new(load("Godette_vrm_v4.vrm"), &settings, level)
}

fn node(h: &Hero, bone: &str) -> usize {
    h.scene.vrm.as_ref().unwrap().humanoid[bone]
}

/// Model-space position of a humanoid bone with the current pose.
fn bone_pos(h: &Hero, bone: &str) -> Vec3 {
    h.pose.world(node(h, bone)).unwrap().w_axis.truncate()
}

#[test]
fn godette_gets_idle_walk_run_and_wave_without_warnings() {
    let level = lab();
    let h = godette(&level);
    assert!(h.warnings.is_empty(), "{:?}", h.warnings);
    let names: Vec<&str> = h.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["idle", "walk", "run", "wave"]);
    assert_eq!(h.roles.idle, Some(0));
    assert_eq!(h.roles.run, Some(2));
    // Godette's body and face are separate skinned meshes: two palettes.
    assert_eq!(h.stats.palettes, 2);
    assert_eq!(h.stats.joint_matrices, 51 + 9);
    // The stride is derived so the clip covers the level's walk speed at rate 1 (1.6 m/s).
    assert_approx!(h.walk_ground_speed, 1.6, 1e-3, "{}", h.walk_ground_speed);
    assert_approx!(h.run_ground_speed, 4.5, 1e-3, "{}", h.run_ground_speed);
}

#[test]
fn idle_arms_hang_about_72_degrees_below_the_t_pose() {
    let level = lab();
    let mut h = godette(&level);
    let idle = h.roles.idle.unwrap();
    h.freeze_at(idle, 0.0);
    for (up, low) in [
        ("leftUpperArm", "leftLowerArm"),
        ("rightUpperArm", "rightLowerArm"),
    ] {
        let d = (bone_pos(&h, low) - bone_pos(&h, up)).normalize();
        let below = (-d.y).asin().to_degrees();
        assert!(
            (65.0..=80.0).contains(&below),
            "{up}: {below}° below horizontal"
        );
    }
}

#[test]
fn walking_feet_do_not_slide_and_arms_swing_against_the_legs() {
    let level = lab();
    let mut h = godette(&level);
    let walk = h.roles.walk.unwrap();
    let cycle = h.clips[walk].duration;
    let v = h.walk_ground_speed;
    // Godette (VRM 0.x) faces -Z: walking moves the model along -Z at v while playing at rate 1.
    let forward = Vec3::new(0.0, 0.0, -1.0);
    let samples = 40;
    let mut feet = Vec::new();
    for k in 0..samples {
        let t = cycle * k as f32 / samples as f32;
        h.freeze_at(walk, t);
        let world = |b: &str| bone_pos(&h, b) + forward * v * t;
        feet.push((t, world("leftFoot"), world("rightFoot")));
    }
    let rest_height = {
        let mut r = godette(&level);
        let mut pose = ScenePose::new(&r.scene);
        pose.update_world_matrices().unwrap();
        r.pose = pose;
        bone_pos(&r, "leftFoot").y
    };
    // The left foot is planted during the first half of the cycle (stance 0.5): away from the
    // hand-over moments it stays put on the ground.
    let planted: Vec<&(f32, Vec3, Vec3)> = feet
        .iter()
        .filter(|(t, _, _)| *t > cycle * 0.05 && *t < cycle * 0.45)
        .collect();
    let first = planted[0].1;
    for (t, l, _) in &planted {
        let slide = Vec2::new(l.x - first.x, l.z - first.z).length();
        assert!(slide < 0.01, "left foot slid {slide} m at t={t}");
        assert_approx!(
            l.y,
            rest_height,
            0.01,
            "left foot at height {} (rest {rest_height})",
            l.y
        );
    }
    // Same for the right foot in the second half.
    let planted: Vec<&(f32, Vec3, Vec3)> = feet
        .iter()
        .filter(|(t, _, _)| *t > cycle * 0.55 && *t < cycle * 0.95)
        .collect();
    let first = planted[0].2;
    for (t, _, r) in &planted {
        let slide = Vec2::new(r.x - first.x, r.z - first.z).length();
        assert!(slide < 0.01, "right foot slid {slide} m at t={t}");
    }
    // At heel strike (t = 0) the left foot is ahead: the left hand is behind the right hand.
    h.freeze_at(walk, 0.0);
    let ahead = |b: &str| bone_pos(&h, b).dot(forward);
    assert!(ahead("leftFoot") > ahead("rightFoot") + 0.2);
    assert!(
        ahead("rightHand") > ahead("leftHand") + 0.1,
        "{} vs {}",
        ahead("rightHand"),
        ahead("leftHand")
    );
    // The swing foot lifts: some moment of the second half has the left foot well off the ground.
    let lift = feet
        .iter()
        .filter(|(t, _, _)| *t > cycle * 0.5)
        .map(|(_, l, _)| l.y - rest_height)
        .fold(0.0f32, f32::max);
    assert!(lift > 0.05, "swing foot lifts only {lift} m");
}

#[test]
fn paused_hero_uploads_no_palettes_and_still_weights_rebuild_nothing() {
    let level = lab();
    let mut h = godette(&level);
    h.expressions.auto_blink = false;
    // Swinging hair changes the pose until it settles; the springs' own sleep is tested in
    // tests/hero_springs.rs. Here: the clip and morph skip paths alone.
    h.springs.enabled = false;
    h.update(1.0 / 60.0);
    assert_eq!(
        h.stats.palette_updates, 2,
        "first frame computes both palettes"
    );
    assert_eq!(
        h.stats.morph_rebuilds, 1,
        "the face's morphed vertices are built once"
    );
    h.update(1.0 / 60.0);
    assert_eq!(
        h.stats.palette_updates, 2,
        "playing: a new pose every frame"
    );
    assert_eq!(h.stats.morph_rebuilds, 0, "weights unchanged: no rebuild");
    let v = h.stats.pose_version;
    // The game paused: no simulated time passes.
    h.update(0.0);
    assert_eq!(h.stats.palette_updates, 0);
    assert_eq!(h.stats.pose_version, v);
    // The Animation panel's pause: time passes but the clip does not move.
    h.mixer.pause();
    for _ in 0..5 {
        h.update(1.0 / 60.0);
        assert_eq!(h.stats.palette_updates, 0);
    }
    assert_eq!(h.stats.pose_version, v);
    // A seek while paused makes exactly one new pose.
    h.mixer.seek(0.5);
    h.update(1.0 / 60.0);
    assert_eq!(h.stats.palette_updates, 2);
    h.update(1.0 / 60.0);
    assert_eq!(h.stats.palette_updates, 0);
    // A slider drag rebuilds once; holding the same value does not.
    h.expressions.set_expression("happy", 0.7);
    h.update(1.0 / 60.0);
    assert_eq!(h.stats.morph_rebuilds, 1);
    let total = h.stats.morph_rebuilds_total;
    for _ in 0..5 {
        h.expressions.set_expression("happy", 0.7);
        h.update(1.0 / 60.0);
    }
    assert_eq!(h.stats.morph_rebuilds_total, total);
}

#[test]
fn expressions_drive_the_reference_morph_weights_and_blink_by_itself() {
    let level = lab();
    let mut h = godette(&level);
    h.expressions.auto_blink = false;
    h.expressions.set_expression("blink", 1.0);
    h.update(0.0);
    // three-vrm's weights for blink = 1 on this file (ref-expected/Godette_vrm_blink1.json).
    let reference = support::ref_json("Godette_vrm_blink1.json");
    for m in reference["meshes"].as_array().unwrap() {
        let node = m["node"].as_u64().unwrap() as usize;
        let want: Vec<f32> = m["morph_weights"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        if want.is_empty() {
            continue;
        }
        let got = h.morphs.get(node).unwrap().weights();
        for (a, b) in got.iter().zip(&want) {
            assert_approx!(a, b, 1e-6, "node {node}: {got:?} vs {want:?}");
        }
    }
    // Automatic blinks: within 7 s of 60 Hz frames at least one full closure happens.
    h.expressions.set_expression("blink", 0.0);
    h.expressions.auto_blink = true;
    let blink_node = h
        .scene
        .vrm
        .as_ref()
        .unwrap()
        .expression("blink")
        .unwrap()
        .binds[0]
        .clone();
    let mut peak: f32 = 0.0;
    for _ in 0..420 {
        h.update(1.0 / 60.0);
        let w = h.morphs.get(blink_node.node).unwrap().weights()[blink_node.target];
        peak = peak.max(w);
    }
    assert!(peak > 0.9, "eyes closed at most {peak}");
    assert!(h.expressions.blinker.blinks >= 1);
}

#[test]
fn presets_ease_in_and_reset_clears_everything() {
    let level = lab();
    let mut h = godette(&level);
    h.expressions.auto_blink = false;
    h.expressions.preset("angry");
    h.update(0.1);
    let mid = h.expressions.value("angry").unwrap();
    assert_approx!(mid, 0.5, 1e-5, "half way after half the 0.2 s ease: {mid}");
    h.update(0.2);
    assert_eq!(h.expressions.value("angry"), Some(1.0));
    h.expressions.preset("happy");
    h.update(0.5);
    assert_eq!(h.expressions.value("angry"), Some(0.0));
    assert_eq!(h.expressions.value("happy"), Some(1.0));
    h.expressions.set_target(0, 1.0);
    h.expressions.reset_all();
    h.update(0.0);
    for (n, s) in h.scene.nodes.iter().enumerate() {
        if let Some(state) = h.morphs.get(n) {
            assert_eq!(
                state.weights(),
                &s.morph_weights[..],
                "node {n} back to the file's defaults"
            );
        }
    }
}

#[test]
fn walking_into_a_wall_stops_at_it_and_the_clip_follows_the_speed() {
    let mut level = lab();
    level.obstacles = vec![throng::level::Obstacle {
        name: "wall".into(),
        kind: throng::level::ObstacleKind::Wall,
        shape: throng::level::Shape::Box {
            center: Vec2::new(0.0, -3.0),
            half_extents: Vec2::new(5.0, 0.5),
            angle_deg: 0.0,
        },
        height: 0.0,
    }];
    let mut h = godette(&level);
    let go = MoveIntent {
        direction: Vec2::new(0.0, -1.0),
        run: false,
    };
    for _ in 0..60 {
        h.step(1.0 / 60.0, &go);
        h.update(1.0 / 60.0);
    }
    assert_eq!(h.mixer.clip(), h.roles.walk, "walking after a second");
    assert_approx!(h.controller.speed(), 1.6, 0.05, "{}", h.controller.speed());
    assert_approx!(
        h.mixer.rate(),
        1.0,
        0.05,
        "clip rate matches the speed: {}",
        h.mixer.rate()
    );
    for _ in 0..240 {
        h.step(1.0 / 60.0, &go);
        h.update(1.0 / 60.0);
    }
    // The wall's face is at z = -2.5; the body stops a radius before it.
    let z = h.position().y;
    assert_approx!(z, -2.5 + HERO_RADIUS, 0.02, "stopped at z = {z}");
    assert!(h.controller.speed() < 0.05);
    assert_eq!(
        h.mixer.clip(),
        h.roles.idle,
        "pressing into a wall idles, no moonwalk"
    );
    // Running.
    let run = MoveIntent {
        direction: Vec2::new(0.0, 1.0),
        run: true,
    };
    for _ in 0..60 {
        h.step(1.0 / 60.0, &run);
        h.update(1.0 / 60.0);
    }
    assert_eq!(h.mixer.clip(), h.roles.run);
}

#[test]
fn the_crowd_makes_way_for_the_hero() {
    let path = project_root().join("tests/fixtures/levels/minimal.ron");
    let level = load_level(&path, &project_root()).unwrap();
    let mut game = Game::new(level.clone(), GameOptions::default());
    let mut hero = Hero::new(load("Godette_vrm_v4.vrm"), &level.hero, &level);
    // Start inside the spawn zone, where the crowd is.
    hero.controller.position = Vec2::new(0.0, 14.0);
    game.attach_hero(hero);
    game.frame(
        0.0,
        &FrameInput {
            actions: vec![Action::ToggleFollow],
            ..Default::default()
        },
    );
    let mut input = FrameInput::default();
    input.camera.movement = Vec3::new(0.0, 0.0, 1.0);
    let mut closest = f32::MAX;
    for _ in 0..240 {
        game.frame(1.0 / 60.0, &input);
        let h = game.hero.as_ref().unwrap().position();
        for p in &game.agents.pos {
            closest = closest.min(p.distance(h));
        }
    }
    let moved = game
        .hero
        .as_ref()
        .unwrap()
        .position()
        .distance(Vec2::new(0.0, 14.0));
    assert!(moved > 3.0, "the hero walked {moved} m");
    // Agents are kept out of the hero's body (crowd radius 0.35 + body 0.2).
    assert!(closest >= 0.55 - 1e-3, "an agent came within {closest} m");
}

#[test]
fn a_vrm_without_humanoid_or_expressions_warns_and_stands() {
    let (mut b, mut doc) = skinned_triangle();
    let d = b.f32s("VEC3", &[0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0]);
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": d}]);
    doc["animations"] = json!([]);
    doc["extensionsUsed"] = json!(["VRMC_vrm"]);
    doc["extensions"] = json!({"VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "Bare"}}});
    let scene = load_slice("Bare.vrm", &b.finish(doc), None).unwrap();
    let level = lab();
    let mut h = Hero::new(scene, &level.hero, &level);
    let all = h.warnings.join("\n");
    assert!(all.contains("no humanoid map and no clips"), "{all}");
    assert!(all.contains("no VRM expressions"), "{all}");
    assert_eq!(h.clips.len(), 0);
    for _ in 0..10 {
        h.step(
            1.0 / 60.0,
            &MoveIntent {
                direction: Vec2::X,
                run: false,
            },
        );
        h.update(1.0 / 60.0);
    }
    assert!(h.position().x > 0.1, "it still moves");
    assert_eq!(
        h.expressions.targets.len(),
        1,
        "the raw morph target still has a slider"
    );
}

#[test]
fn undecodable_texture_and_out_of_range_mtoon_fall_back_with_warnings() {
    let (b, mut doc) = skinned_triangle();
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc["images"] = json!([{"uri": format!("data:image/png;base64,{}", support::gltf_builder::base64(b"not a png at all"))}]);
    doc["textures"] = json!([{"source": 0}]);
    doc["materials"] = json!([{"name": "Skin",
        "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
        "extensions": {"VRMC_materials_mtoon": {
            "specVersion": "1.0", "shadingToonyFactor": 3.0, "giEqualizationFactor": -1.0,
            "outlineWidthMode": "screenCoordinates", "outlineWidthFactor": 5.0,
            "parametricRimColorFactor": [2.0, 0.5, 0.5],
            "matcapTexture": {"index": 7}}}}]);
    doc["extensionsUsed"] = json!(["VRMC_materials_mtoon"]);
    let scene = load_slice("Broken.gltf", &b.finish(doc), Some(&project_root())).unwrap();
    assert!(scene.textures[0].fallback);
    assert_eq!((scene.textures[0].width, scene.textures[0].height), (1, 1));
    assert_eq!(scene.textures[0].rgba8, vec![255; 4]);
    let level = lab();
    let h = Hero::new(scene, &level.hero, &level);
    let all = h.warnings.join("\n");
    for needle in [
        "texture 0: image 0 could not be decoded",
        "shading toony 3 outside 0..1",
        "GI equalization -1 outside 0..1",
        "outline width 5 outside 0..0.05",
        "rim colour",
        "matcap texture 7 does not exist",
    ] {
        assert!(all.contains(needle), "missing \"{needle}\" in:\n{all}");
    }
    let m = &h.materials[0];
    assert_eq!(m.shading_toony, 1.0);
    assert_eq!(m.gi_equalization, 0.0);
    assert_eq!(m.outline_width, 0.05);
    assert_eq!(m.rim_color, Vec3::new(1.0, 0.5, 0.5));
    assert_eq!(m.textures.matcap, None);
    assert_eq!(m.textures.base, Some(0), "the white stand-in is still used");
}

#[test]
fn panel_commands_reach_the_hero_through_one_intent() {
    use throng::hero::commands::HeroCommand;
    use throng::hero::ClipControl;
    use throng::settings::{apply, Intent, Settings};
    let level = lab();
    let mut game = Game::new(level.clone(), GameOptions::default());
    game.attach_hero(godette(&level));
    let mut settings = Settings::default();
    let wave = game
        .hero
        .as_ref()
        .and_then(|h| h.roles.wave)
        .expect("a wave clip");
    let intents = vec![
        Intent::Hero(HeroCommand::PlayClip(wave)),
        Intent::Hero(HeroCommand::SetExpression("happy".into(), 0.75)),
        Intent::Hero(HeroCommand::SetLooping(false)),
    ];
    let actions = apply(intents, &mut settings, &mut game);
    assert!(actions.is_empty(), "hero commands are not game commands");
    let h = game.hero.as_ref().expect("hero");
    assert_eq!(h.control, ClipControl::Manual);
    assert_eq!(h.mixer.clip(), Some(wave));
    assert!(!h.mixer.is_looping());
    assert_eq!(h.expressions.value("happy"), Some(0.75));

    apply(
        vec![Intent::Hero(HeroCommand::ClipsBySpeed)],
        &mut settings,
        &mut game,
    );
    assert_eq!(
        game.hero.as_ref().map(|h| h.control),
        Some(ClipControl::Auto)
    );
    assert_eq!(settings, Settings::default(), "the settings did not move");
}

#[test]
fn the_hero_mixer_samples_clips_exactly_as_the_crowd_player_does() {
    // One clip sampler for both: with no cross-fade running, the mixer's pose is the clip
    // sampled by `anim::player::sample_clip` (the crowd bake's and the tools'), to the bit.
    use throng::anim::player::sample_clip;
    use throng::asset::Transform;
    use throng::hero::mixer::ClipMixer;
    let mut compared = 0;
    for model in ["Fox.glb", "Casual_Male.gltf"] {
        let scene = load(model);
        let bind: Vec<Transform> = scene.nodes.iter().map(|n| n.local).collect();
        for (clip, asset) in scene.animations.iter().enumerate() {
            let mut mixer = ClipMixer::default();
            mixer.play(clip, 0.0);
            let mut hero_pose = ScenePose::new(&scene);
            let mut crowd_pose = ScenePose::new(&scene);
            let mut scratch = Vec::new();
            for _ in 0..12 {
                mixer
                    .update(0.093, &scene.animations, &bind, &mut hero_pose)
                    .expect("mixer update");
                crowd_pose.reset_to_bind_pose();
                sample_clip(asset, mixer.time(), &mut crowd_pose, None, &mut scratch);
                for n in 0..scene.nodes.len() {
                    assert_eq!(
                        hero_pose.local(n),
                        crowd_pose.local(n),
                        "{model} clip {clip} node {n} at {} s",
                        mixer.time()
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 12 * 4, "only {compared} poses compared");
}

//! Runtime rules of item 4: pose versions and dirty latch, cycle detection, player
//! pause/seek/loop/clamp/speed, interpolation, palette sharing and skipping, morph state.

mod support;
use glam::{Quat, Vec3};
use support::assert_approx;
use support::gltf_builder::skinned_triangle;
use support::load;
use throng::anim::{
    apply_morph, AnimError, AnimationPlayer, MorphState, MorphStateSet, MorphedPrimitive,
    ScenePose, SkinningPaletteSet,
};
use throng::asset::{load_slice, Interpolation, Track, Transform};

fn triangle() -> throng::asset::SceneAsset {
    let (b, doc) = skinned_triangle();
    load_slice("Test.gltf", &b.finish(doc), None).unwrap()
}

#[test]
fn pose_version_and_dirty_latch() {
    let s = triangle();
    let mut pose = ScenePose::new(&s);
    assert_eq!(pose.version(), 0);
    assert!(pose.world(0).is_none(), "dirty pose gives no matrices");
    pose.update_world_matrices().unwrap();
    assert_eq!(pose.version(), 1);
    assert!(pose.world(2).is_some());
    let mut t = *pose.local(2).unwrap();
    t.translation.x = 3.0;
    pose.set_local(2, t).unwrap();
    assert!(
        pose.world(2).is_none(),
        "half-updated pose is never readable"
    );
    assert_eq!(
        pose.version(),
        1,
        "setting a local does not make a new version"
    );
    pose.update_world_matrices().unwrap();
    assert_eq!(pose.version(), 2);
    assert_eq!(pose.world(2).unwrap().w_axis.x, 3.0);
    assert_eq!(pose.set_local(99, t), Err(AnimError::NodeOutOfRange(99)));
    // Wrap-around skips 0.
    pose.force_version_for_test(u64::MAX);
    pose.update_world_matrices().unwrap();
    assert_eq!(pose.version(), 1);
}

#[test]
fn cycle_detection_keeps_version_and_latch() {
    let parents = vec![None, Some(2), Some(1)];
    let mut pose = ScenePose::from_parts(7, parents, vec![Transform::IDENTITY; 3]);
    assert!(matches!(
        pose.update_world_matrices(),
        Err(AnimError::Cycle(_))
    ));
    assert_eq!(pose.version(), 0);
    assert!(pose.world(0).is_none());
    // Parents listed after children still resolve.
    let parents = vec![Some(2), Some(0), None];
    let mut t = vec![Transform::IDENTITY; 3];
    for (i, x) in t.iter_mut().enumerate() {
        x.translation = Vec3::new(1.0 + i as f32, 0.0, 0.0);
    }
    let mut pose = ScenePose::from_parts(7, parents, t);
    pose.update_world_matrices().unwrap();
    assert_eq!(pose.world(1).unwrap().w_axis.x, 6.0);
}

#[test]
fn pose_belongs_to_its_scene() {
    let a = triangle();
    let b = triangle();
    let mut pose = ScenePose::new(&a);
    assert!(pose.is_for_scene(&a) && !pose.is_for_scene(&b));
    let mut p = AnimationPlayer::new();
    p.set_clip(Some(0));
    assert_eq!(
        p.update(0.1, &b, &mut pose, None),
        Err(AnimError::WrongScene)
    );
}

#[test]
fn player_samples_only_when_pending() {
    let s = triangle();
    let mut pose = ScenePose::new(&s);
    let mut p = AnimationPlayer::new();
    p.set_clip(Some(0));
    assert!(p.update(0.0, &s, &mut pose, None).unwrap());
    let v = pose.version();
    assert!(
        !p.update(0.1, &s, &mut pose, None).unwrap(),
        "paused: no sample"
    );
    assert_eq!(pose.version(), v);
    p.seek(0.5).unwrap();
    assert!(
        p.update(0.1, &s, &mut pose, None).unwrap(),
        "seek while paused samples"
    );
    assert_eq!(p.time(), 0.5);
    assert!(pose.version() > v);
    let r = pose.local(2).unwrap().rotation;
    let expect = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    assert!(r.dot(expect).abs() > 0.99999, "{r:?}");
}

#[test]
fn loop_clamp_speed() {
    let s = triangle();
    let mut pose = ScenePose::new(&s);
    let mut p = AnimationPlayer::new();
    p.set_clip(Some(0));
    p.play();
    p.update(0.75, &s, &mut pose, None).unwrap();
    p.update(0.5, &s, &mut pose, None).unwrap();
    assert_approx!(p.time(), 0.25, 1e-6, "looping wraps: {}", p.time());
    p.set_looping(false);
    p.update(2.0, &s, &mut pose, None).unwrap();
    assert_eq!(p.time(), 1.0);
    assert!(!p.is_playing(), "non-looping stops at the end");
    assert!(
        p.set_speed(-1.0).is_err()
            && p.set_speed(f32::NAN).is_err()
            && p.set_speed(f32::INFINITY).is_err()
    );
    p.set_speed(2.0).unwrap();
    p.seek(0.0).unwrap();
    p.play();
    p.update(0.25, &s, &mut pose, None).unwrap();
    assert_approx!(p.time(), 0.5, 1e-6);
    assert!(p.seek(f32::NAN).is_err());
    p.pause();
    p.seek(5.0).unwrap();
    p.update(0.0, &s, &mut pose, None).unwrap();
    assert_eq!(p.time(), 1.0, "seek clamps to duration");
    p.set_looping(true);
    p.seek(7.0).unwrap();
    p.update(0.0, &s, &mut pose, None).unwrap();
    assert_eq!(p.time(), 1.0, "seek clamps, even when looping");
}

#[test]
fn stop_and_clip_change_reset_to_bind_pose() {
    let s = triangle();
    let mut pose = ScenePose::new(&s);
    let mut p = AnimationPlayer::new();
    p.set_clip(Some(0));
    p.seek(1.0).unwrap();
    p.update(0.0, &s, &mut pose, None).unwrap();
    // A node the clip does not drive, changed by hand: Stop must restore it.
    let mut t = *pose.local(1).unwrap();
    t.translation = Vec3::splat(9.0);
    pose.set_local(1, t).unwrap();
    p.stop();
    p.update(0.0, &s, &mut pose, None).unwrap();
    assert_eq!(pose.local(1).unwrap().translation, Vec3::ZERO);
    pose.set_local(1, t).unwrap();
    p.set_clip(None);
    p.update(0.0, &s, &mut pose, None).unwrap();
    assert_eq!(*pose.local(1).unwrap(), s.nodes[1].local);
    assert_eq!(*pose.local(2).unwrap(), s.nodes[2].local);
}

#[test]
fn interpolation_modes() {
    use throng::anim::sample::{sample_quat, sample_vec3, sample_weights};
    let step = Track {
        interpolation: Interpolation::Step,
        times: vec![0.0, 1.0],
        values: vec![Vec3::ZERO, Vec3::ONE],
    };
    assert_eq!(sample_vec3(&step, 0.99), Vec3::ZERO);
    assert_eq!(sample_vec3(&step, 1.0), Vec3::ONE);
    assert_eq!(sample_vec3(&step, -5.0), Vec3::ZERO);
    // Cubic: in-tangent, value, out-tangent per key; tangents scaled by the 2 s interval.
    let cubic = Track {
        interpolation: Interpolation::CubicSpline,
        times: vec![0.0, 2.0],
        values: vec![
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::X,
            Vec3::ZERO,
            Vec3::X,
            Vec3::ZERO,
        ],
    };
    // s = 0.5: h00 .5, h10 .125, h01 .5, h11 -.125 → 0 + .125*2*1 + .5*1 + 0 = 0.75
    assert_approx!(sample_vec3(&cubic, 1.0).x, 0.75, 1e-6);
    assert_eq!(sample_vec3(&cubic, 3.0), Vec3::X);
    // Shortest path: keys q and -q' must not spin the long way.
    let a = Quat::from_rotation_y(0.1);
    let b = -Quat::from_rotation_y(0.3);
    let rot = Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![a, b],
    };
    let m = sample_quat(&rot, 0.5);
    assert_approx!(m.length(), 1.0, 1e-6);
    assert!(m.dot(Quat::from_rotation_y(0.2)).abs() > 0.99999);
    // Unnormalised keys come out normalised.
    let rot = Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![a * 1.01, a * 0.98],
    };
    assert_approx!(sample_quat(&rot, 0.3).length(), 1.0, 1e-6);
    let w = Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![0.0, 1.0, 1.0, 0.0],
    };
    let mut out = [0.0; 2];
    sample_weights(&w, 2, 0.25, &mut out);
    assert_eq!(out, [0.25, 0.75]);
}

#[test]
fn morph_state_rules() {
    let mut m = MorphState::new(3);
    let v0 = m.version();
    assert_ne!(v0, 0);
    assert!(!m.set_weight(0, 0.0), "same value: no-op");
    assert_eq!(m.version(), v0);
    assert!(m.set_weight(0, 2.0));
    assert_eq!(m.weights()[0], 1.0, "clamped");
    assert_eq!(m.active_count(), 1);
    assert!(!m.set_weight(0, 1.5), "clamps to the same value: no-op");
    m.set_weight(1, 0.5);
    assert_eq!(m.active_count(), 2);
    m.set_weight(1, 0.0);
    assert_eq!(m.active_count(), 1);
    assert!(!m.set_weight(9, 1.0) && !m.set_weight(2, f32::NAN));
    let v = m.version();
    assert!(m.reset());
    assert!(m.version() != v && m.active_count() == 0);
    let v = m.version();
    assert!(!m.reset(), "nothing active: no-op");
    assert_eq!(m.version(), v);
}

#[test]
fn morph_rebuild_from_base_and_only_on_change() {
    let s = load("SimpleMorph.gltf");
    let prim = &s.meshes[0].primitives[0];
    let mut state = MorphState::new(2);
    let mut mp = MorphedPrimitive::default();
    assert!(mp.update(prim, &state));
    assert!(!mp.update(prim, &state), "same version: skipped");
    assert_eq!(mp.total_rebuilds, 1);
    // Drag a slider back and forth: the result equals a single application (no drift).
    for k in 0..100 {
        state.set_weight(0, (k as f32 * 0.37).fract());
        mp.update(prim, &state);
    }
    state.set_weight(0, 0.3);
    state.set_weight(1, 0.6);
    mp.update(prim, &state);
    let mut fresh = MorphedPrimitive::default();
    apply_morph(prim, &[0.3, 0.6], &mut fresh);
    assert_eq!(mp.positions, fresh.positions);
    let d = (prim.positions[0]
        + prim.morph_targets[0].position_deltas[0] * 0.3
        + prim.morph_targets[1].position_deltas[0] * 0.6)
        - mp.positions[0];
    assert_approx!(d, Vec3::ZERO, 1e-6);
    assert!(mp.max_position_delta > 0.0);
    for p in &mp.positions {
        assert!(mp.bounds.contains(*p, 0.0));
    }
}

#[test]
fn morph_normals_are_renormalised() {
    let s = load("AnimatedMorphCube.glb");
    let prim = &s.meshes[0].primitives[0];
    assert!(!prim.morph_targets[0].normal_deltas.is_empty());
    let mut mp = MorphedPrimitive::default();
    apply_morph(prim, &[1.0, 1.0], &mut mp);
    for n in &mp.normals {
        assert_approx!(n.length(), 1.0, 1e-5);
    }
    for t in &mp.tangents {
        assert_approx!(t.truncate().length(), 1.0, 1e-5);
    }
}

#[test]
fn morph_weight_channels_drive_morph_state() {
    let s = load("AnimatedMorphCube.glb");
    let mut pose = ScenePose::new(&s);
    let mut morphs = MorphStateSet::new(&s);
    let mut p = AnimationPlayer::new();
    p.set_clip(Some(0));
    p.seek(1.3456).unwrap();
    p.update(0.0, &s, &mut pose, Some(&mut morphs)).unwrap();
    let w = morphs.get(0).unwrap().weights();
    assert_approx!(w[0], 0.9319887, 1e-5, "{w:?}");
}

#[test]
fn palette_sharing_skip_and_upload_counts() {
    let s = load("Godette_vrm_v4.vrm");
    let mut pose = ScenePose::new(&s);
    let mut set = SkinningPaletteSet::new(&s);
    // Body: 3 primitives on one node share one palette; Face has its own.
    let body = s
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("Body"))
        .unwrap();
    let g = set.group_index(body, 0);
    assert!(g.is_some() && g == set.group_index(body, 1) && g == set.group_index(body, 2));
    assert_eq!(set.palette_count(), 2);
    assert_eq!(set.update(&s, &pose), Err(AnimError::PoseDirty));
    pose.update_world_matrices().unwrap();
    set.update(&s, &pose).unwrap();
    assert_eq!(set.last_upload_count(), 2);
    set.update(&s, &pose).unwrap();
    assert_eq!(
        set.last_upload_count(),
        0,
        "unchanged pose version: skipped"
    );
    pose.reset_to_bind_pose();
    pose.update_world_matrices().unwrap();
    set.update(&s, &pose).unwrap();
    assert_eq!(set.last_upload_count(), 2);
    assert!(set.find(body, 7).is_none() && set.find(0, 0).is_none());

    // The paused player leaves the version alone, so the palette set does no work.
    let fox = load("Fox.glb");
    let mut pose = ScenePose::new(&fox);
    let mut set = SkinningPaletteSet::new(&fox);
    let mut p = AnimationPlayer::new();
    p.set_clip(Some(1));
    p.play();
    p.update(0.1, &fox, &mut pose, None).unwrap();
    set.update(&fox, &pose).unwrap();
    assert_eq!(set.last_upload_count(), 1);
    p.pause();
    p.update(0.1, &fox, &mut pose, None).unwrap();
    set.update(&fox, &pose).unwrap();
    assert_eq!(set.last_upload_count(), 0);
}

/// ClipSampler palettes equal the ones the live path produces.
#[test]
fn clip_sampler_matches_player() {
    use throng::anim::ClipSampler;
    let s = load("Casual_Male.gltf");
    let node = s.nodes.iter().position(|n| n.skin.is_some()).unwrap();
    let mut sampler = ClipSampler::new(&s, node).unwrap();
    let mut pose = ScenePose::new(&s);
    let mut set = SkinningPaletteSet::new(&s);
    let mut p = AnimationPlayer::new();
    let mut pal = Vec::new();
    for ci in [0, 5, 15] {
        p.set_clip(Some(ci));
        p.seek(0.3).unwrap();
        p.update(0.0, &s, &mut pose, None).unwrap();
        set.update(&s, &pose).unwrap();
        sampler.sample(&s.animations[ci], 0.3, &mut pal).unwrap();
        let live = &set.find(node, 0).unwrap().matrices;
        assert_eq!(live.len(), pal.len());
        for (a, b) in live.iter().zip(&pal) {
            assert!(a.abs_diff_eq(*b, 1e-5));
        }
    }
    // Whole-skin palettes line up with mesh palettes through `palette_joints`.
    let mut whole = ClipSampler::for_whole_skin(&s, node).unwrap();
    let mut all = Vec::new();
    whole.sample(&s.animations[15], 0.3, &mut all).unwrap();
    assert_eq!(all.len(), s.skins[0].joints.len());
    let mesh = &s.meshes[s.nodes[node].mesh.unwrap()];
    for (k, &slot) in mesh.palette_joints.iter().enumerate() {
        assert!(all[slot as usize].abs_diff_eq(pal[k], 1e-6));
    }
    // Clips of another file on the same skeleton drive this one.
    let worker = load("Worker_Female.gltf");
    sampler
        .sample(&worker.animations[3], 0.2, &mut pal)
        .unwrap();
    assert!(pal.iter().all(|m| m.is_finite()));
}

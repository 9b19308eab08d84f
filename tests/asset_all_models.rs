//! Every reference model imports and plays every clip, densely sampled, without error; the
//! dynamic skinned bounds contain every skinned vertex of every sampled frame.

mod support;
use support::assert_approx;
use support::{all_models, load};
use throng::anim::{
    apply_morph, skin_positions, skinned_bounds, AnimationPlayer, MorphStateSet, MorphedPrimitive,
    ScenePose, SkinningPaletteSet,
};

#[test]
fn every_model_imports_and_plays_every_clip() {
    let models = all_models();
    assert!(models.len() >= 19, "fixtures missing: {models:?}");
    for name in &models {
        let scene = load(name);
        let mut pose = ScenePose::new(&scene);
        let mut morphs = MorphStateSet::new(&scene);
        let mut palettes = SkinningPaletteSet::new(&scene);
        let mut player = AnimationPlayer::new();
        for ci in 0..scene.animations.len() {
            player.set_clip(Some(ci));
            player.play();
            let d = scene.animations[ci].duration;
            for k in 0..=4 {
                player.seek(d * k as f32 / 4.0).unwrap();
                player
                    .update(0.0, &scene, &mut pose, Some(&mut morphs))
                    .unwrap();
                palettes.update(&scene, &pose).unwrap();
                for m in pose.world_matrices().unwrap() {
                    assert!(m.is_finite(), "{name} clip {ci}: non-finite world matrix");
                }
            }
        }
    }
}

#[test]
fn expected_counts_of_awkward_models() {
    let robot = load("RobotExpressive.glb");
    assert_eq!(robot.animations.len(), 14);
    assert_eq!(robot.skins.len(), 2);
    let knight = load("Knight.glb");
    assert_eq!(knight.animations.len(), 76);
    assert!(
        knight.animations.iter().any(|c| c.duration == 0.0),
        "zero-length pose clips"
    );
    assert_eq!(knight.textures.len(), 1);
    assert_eq!(
        (knight.textures[0].width, knight.textures[0].height),
        (1024, 1024)
    );
    assert_eq!(knight.textures[0].rgba8.len(), 1024 * 1024 * 4);
    let rec = load("RecursiveSkeletons.glb");
    assert_eq!(rec.skins.len(), 84);
    assert_eq!(rec.nodes.len(), 924);
    let casual = load("Casual_Male.gltf");
    assert_eq!(casual.animations.len(), 17);
    assert_eq!(casual.skins[0].joints.len(), 23);
    let godette = load("Godette_vrm_v4.vrm");
    let vrm = godette.vrm.as_ref().unwrap();
    assert_eq!(vrm.spec_major, 0);
    assert_eq!(vrm.expressions.len(), 17);
    assert!(vrm.humanoid.contains_key("hips"));
    assert!(
        godette
            .materials
            .iter()
            .filter(|m| m.mtoon.is_some())
            .count()
            >= 2
    );
    let face = godette
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some("Face"))
        .unwrap();
    let mt = face.mtoon.as_ref().unwrap();
    // three-vrm's conversion of this file (ref-expected/Godette_vrm_rest.json).
    assert_approx!(mt.shading_toony, 0.855, 1e-4);
    assert_approx!(mt.shading_shift, 0.305, 1e-4);
    assert_approx!(mt.outline_width, 0.0025, 1e-6);
    assert_approx!(mt.shade_color.x, 0.6584338, 1e-3);
    assert!(!godette.textures.is_empty());
}

/// RobotExpressive's weights sum to up to 1.75 in the file: import normalises them.
#[test]
fn weights_are_normalised_and_sorted() {
    for name in [
        "RobotExpressive.glb",
        "Casual_Male.gltf",
        "Knight.glb",
        "Fox.glb",
    ] {
        let s = load(name);
        for m in &s.meshes {
            for p in &m.primitives {
                for w in &p.weights {
                    let sum = w.x + w.y + w.z + w.w;
                    assert_approx!(sum, 1.0, 1e-5, "{name}: weights sum {sum}");
                    assert!(w.x >= w.y && w.y >= w.z && w.z >= w.w);
                }
            }
        }
    }
}

/// Casual_Male's IK helpers PoleTarget.L/R influence no vertex: they stay out of the palette.
#[test]
fn zero_weight_helper_bones_stay_out_of_palettes() {
    let s = load("Casual_Male.gltf");
    let skin = &s.skins[0];
    let mesh_node = s.nodes.iter().position(|n| n.skin.is_some()).unwrap();
    let mesh = &s.meshes[s.nodes[mesh_node].mesh.unwrap()];
    assert!(mesh.palette_joints.len() < skin.joints.len());
    for &slot in &mesh.palette_joints {
        let name = s.nodes[skin.joints[slot as usize]]
            .name
            .clone()
            .unwrap_or_default();
        assert!(!name.starts_with("PoleTarget"), "{name} in palette");
    }
    let set = SkinningPaletteSet::new(&s);
    assert_eq!(
        set.palette_count(),
        1,
        "6 primitives of one mesh node share one palette"
    );
    assert_eq!(set.joint_matrix_count(), mesh.palette_joints.len());
}

/// Bounds from joint boxes through the palette contain every skinned vertex, for several
/// clips sampled densely.
#[test]
fn dynamic_bounds_contain_every_skinned_vertex() {
    for (name, clips) in [
        ("Casual_Male.gltf", vec!["Walk", "Run", "Death"]),
        ("Fox.glb", vec!["Survey", "Run"]),
        ("CesiumMan.glb", vec!["0"]),
    ] {
        let s = load(name);
        let mut pose = ScenePose::new(&s);
        let mut set = SkinningPaletteSet::new(&s);
        let mut player = AnimationPlayer::new();
        let mut out = Vec::new();
        for c in clips {
            let ci = s.find_clip(c).unwrap();
            player.set_clip(Some(ci));
            let d = s.animations[ci].duration;
            for k in 0..=40 {
                player.seek(d * k as f32 / 40.0).unwrap();
                player.update(0.0, &s, &mut pose, None).unwrap();
                set.update(&s, &pose).unwrap();
                for (ni, node) in s.nodes.iter().enumerate() {
                    let Some(mi) = node.mesh else { continue };
                    for (pi, p) in s.meshes[mi].primitives.iter().enumerate() {
                        let Some(pal) = set.find(ni, pi) else {
                            continue;
                        };
                        let b = skinned_bounds(pal, 0.0);
                        skin_positions(p, &pal.matrices, &p.positions, &mut out);
                        let eps = 1e-4 * b.extent().max(1.0);
                        for v in &out {
                            assert!(b.contains(*v, eps), "{name} {c} t{k}: {v} outside {b:?}");
                        }
                    }
                }
            }
        }
    }
}

/// Godette's face: blink morph + skin; bounds padded by the morph delta still contain it.
#[test]
fn morphed_and_skinned_bounds_contain_vertices() {
    let s = load("Godette_vrm_v4.vrm");
    let mut pose = ScenePose::new(&s);
    pose.update_world_matrices().unwrap();
    let mut set = SkinningPaletteSet::new(&s);
    set.update(&s, &pose).unwrap();
    let mut morphs = MorphStateSet::new(&s);
    assert!(morphs.apply_expression(&s, "blink", 1.0));
    assert!(morphs.apply_expression(&s, "aa", 1.0));
    let face = s
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("Face"))
        .unwrap();
    let state = morphs.get(face).unwrap();
    assert_eq!(state.active_count(), 3);
    let prim = &s.meshes[s.nodes[face].mesh.unwrap()].primitives[0];
    let mut mp = MorphedPrimitive::default();
    apply_morph(prim, state.weights(), &mut mp);
    assert!(mp.max_position_delta > 0.0);
    let pal = set.find(face, 0).unwrap();
    let b = skinned_bounds(pal, mp.max_position_delta);
    let mut out = Vec::new();
    skin_positions(prim, &pal.matrices, &mp.positions, &mut out);
    for v in &out {
        assert!(b.contains(*v, 1e-5));
    }
}

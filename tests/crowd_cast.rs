//! The crowd cast built from the real plaza level and its Quaternius characters: meshes per
//! level of detail, the baked animation texture against the CPU palette, bounds, props.

use std::path::Path;

use glam::{Vec2, Vec3};
use throng::anim::anim_texture::TEXELS_PER_JOINT;
use throng::cast::CrowdCast;
use throng::crowd::anim::{AnimState, ClipKind};
use throng::level::load_level;

fn plaza_cast() -> (throng::level::Level, CrowdCast) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza loads");
    let cast = CrowdCast::load(&level, root, "levels/plaza.ron").expect("cast loads");
    (level, cast)
}

#[test]
fn every_body_has_three_shrinking_levels_of_detail() {
    let (level, cast) = plaza_cast();
    assert_eq!(cast.bodies.len(), level.crowd.models.len());
    for (b, body) in cast.bodies.iter().enumerate() {
        let [near, mid, far] = cast.body_triangles(b);
        println!(
            "{}: near {near} mid {mid} far {far} tris, radius {:.2} m",
            body.name, body.radius
        );
        assert!(near > 2000, "{} near {near}", body.name);
        assert!(mid * 3 < near, "{} mid {mid} vs near {near}", body.name);
        assert!(far * 2 < mid, "{} far {far} vs mid {mid}", body.name);
        assert!(far > 20, "{} far {far}", body.name);
        let sub = &cast.submeshes[body.submesh];
        let influences = sub.lods.clone().map(|m| m.map(|m| m.influences));
        assert_eq!(influences, [Some(4), Some(2), Some(1)]);
    }
}

/// Where joint `slot` is (model space) when skinned by `m`.
fn joint_position(scene: &throng::asset::SceneAsset, slot: usize, m: glam::Mat4) -> Vec3 {
    let bind = scene.skins[0].inverse_bind[slot].inverse();
    m.transform_point3(bind.transform_point3(Vec3::ZERO))
}

fn slot_of(scene: &throng::asset::SceneAsset, name: &str) -> usize {
    scene.skins[0]
        .joints
        .iter()
        .position(|&n| scene.nodes[n].name.as_deref() == Some(name))
        .expect("joint exists")
}

#[test]
fn baked_rows_equal_the_cpu_palette_bit_for_bit_at_frame_times() {
    let (_, mut cast) = plaza_cast();
    // Bodies whose bakes coincide share rows: seven bodies, three distinct bakes (the rigs'
    // rest poses differ slightly between some of the Quaternius files).
    let mut bakes: Vec<u32> = cast.bodies.iter().map(|b| b.clips[0].first_row).collect();
    bakes.sort();
    bakes.dedup();
    assert_eq!(bakes.len(), 3, "{bakes:?}");
    let rows_per_bake: u32 = cast.bodies[0].clips.iter().map(|c| c.frames).sum();
    assert_eq!(cast.texture.rows, 3 * rows_per_bake);
    let joints = cast.texture.joints;
    assert_eq!(cast.texture.width, joints * TEXELS_PER_JOINT);
    let mut scratch = Vec::new();
    let mut cpu = Vec::new();
    for (k, kind) in ClipKind::ALL.into_iter().enumerate() {
        let rows = cast.bodies[0].clips[k];
        for f in (0..rows.frames).step_by(7) {
            let t = rows.frame_time(f);
            cast.cpu_palette(0, &AnimState::new(kind, t), &mut scratch, &mut cpu);
            assert_eq!(cpu.len(), joints as usize);
            for (j, m) in cpu.iter().enumerate() {
                let baked = cast.texture.matrix(rows.first_row + f, j as u32);
                assert_eq!(baked, *m, "{kind:?} frame {f} joint {j}");
            }
        }
        // Between frames the shader's interpolation stays close to the exact pose.
        let t = rows.frame_time(1) * 0.5;
        cast.cpu_palette(0, &AnimState::new(kind, t), &mut scratch, &mut cpu);
        for (j, m) in cpu.iter().enumerate() {
            let lerped = cast
                .texture
                .blended_matrix(rows.frame_position(t), j as u32);
            let p = Vec3::new(0.3, 2.0, 0.2);
            let err = lerped.transform_point3(p).distance(m.transform_point3(p));
            assert!(err < 0.02, "{kind:?} joint {j}: {err} model units");
        }
    }
}

#[test]
fn the_bounding_sphere_holds_every_vertex_of_every_frame() {
    let (_, cast) = plaza_cast();
    for body in &cast.bodies {
        let near = cast.submeshes[body.submesh].lods[0]
            .as_ref()
            .expect("near mesh");
        let props: Vec<_> = body
            .props
            .iter()
            .flatten()
            .filter_map(|&s| cast.submeshes[s].lods[0].as_ref())
            .collect();
        let centre = Vec3::new(0.0, body.centre_height * body.units_per_metre, 0.0);
        let radius = body.radius * body.units_per_metre;
        let mut worst = 0.0f32;
        for rows in &body.clips {
            for f in (0..rows.frames).step_by(3) {
                let palette: Vec<_> = (0..cast.texture.joints)
                    .map(|j| cast.texture.matrix(rows.first_row + f, j))
                    .collect();
                for mesh in std::iter::once(near).chain(props.iter().copied()) {
                    for v in (0..mesh.vertices.len()).step_by(5) {
                        let p = mesh.skinned_position(v, &palette);
                        // Any heading: the sphere is centred on the vertical axis.
                        let d = Vec2::new(p.x, p.z).length().hypot(p.y - centre.y);
                        worst = worst.max(d / radius);
                    }
                }
            }
        }
        assert!(
            worst <= 1.0,
            "{}: a vertex at {worst} of the radius",
            body.name
        );
        // Conservative but not absurd: something reaches the outer third.
        assert!(worst > 0.66, "{}: loose sphere ({worst})", body.name);
    }
}

#[test]
fn the_authored_wave_raises_the_right_hand_above_the_head() {
    let (_, cast) = plaza_cast();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scene =
        throng::asset::load_file(&root.join("assets/characters/Casual_Male.gltf")).expect("model");
    let (hand, head) = (slot_of(&scene, "Fist.R"), slot_of(&scene, "Head"));
    let rows_of = |kind: ClipKind| {
        cast.bodies[0].clips[ClipKind::ALL.iter().position(|&k| k == kind).unwrap()]
    };
    let wave = rows_of(ClipKind::Wave);
    let idle = rows_of(ClipKind::Idle);
    assert_ne!(wave.first_row, idle.first_row, "wave is its own clip");
    let at = |rows: throng::anim::anim_texture::ClipRows, slot: usize, f: u32| {
        joint_position(
            &scene,
            slot,
            cast.texture.matrix(rows.first_row + f, slot as u32),
        )
    };
    let mut xs = Vec::new();
    for f in 0..wave.frames {
        assert!(at(wave, hand, f).y > at(wave, head, f).y, "frame {f}");
        xs.push(at(wave, hand, f).x);
    }
    // The hand sways side to side while raised.
    let span =
        xs.iter().cloned().fold(f32::MIN, f32::max) - xs.iter().cloned().fold(f32::MAX, f32::min);
    assert!(span > 0.1, "sway {span}");
    // In idle the hand hangs below the head; the right hand is on the character's right (-X).
    assert!(at(idle, hand, 0).y < at(idle, head, 0).y);
    assert!(at(idle, hand, 0).x < 0.0);
    // Talking lifts the forearms forward (+Z, the way the model faces).
    let talk = rows_of(ClipKind::Talk);
    assert!(at(talk, hand, 0).z > at(idle, hand, 0).z + 0.2);
}

#[test]
fn props_sit_on_their_bones() {
    let (_, cast) = plaza_cast();
    let body = &cast.bodies[0];
    assert!(
        body.props.iter().all(Option::is_some),
        "{:?}",
        cast.warnings
    );
    let idle = body.clips[0];
    let palette: Vec<_> = (0..cast.texture.joints)
        .map(|j| cast.texture.matrix(idle.first_row, j))
        .collect();
    let centroid = |sub: usize| {
        let m = cast.submeshes[sub].lods[0].as_ref().expect("near prop");
        let sum: Vec3 = (0..m.vertices.len())
            .map(|v| m.skinned_position(v, &palette))
            .sum();
        sum / m.vertices.len() as f32 / body.units_per_metre
    };
    use throng::cast::props::prop_index;
    use throng::level::PropKind;
    let hat = centroid(body.props[prop_index(PropKind::Hat)].unwrap());
    assert!((1.6..2.0).contains(&hat.y), "hat at {hat}");
    let backpack = centroid(body.props[prop_index(PropKind::Backpack)].unwrap());
    // Chibi proportions: the torso spans about 0.7 to 1.1 m.
    assert!(
        backpack.z < -0.1 && (0.7..1.1).contains(&backpack.y),
        "backpack at {backpack}"
    );
    let balloon = centroid(body.props[prop_index(PropKind::Balloon)].unwrap());
    // Held at the hip, floating well above the head (string and balloon average out).
    assert!(balloon.y > 1.5 && balloon.x > 0.1, "balloon at {balloon}");
    // Phones and bags are too small to draw far away; balloons and hats stay at mid.
    let phone = body.props[prop_index(PropKind::Phone)].unwrap();
    assert!(cast.submeshes[phone].lods[1].is_none());
    let hat_sub = body.props[prop_index(PropKind::Hat)].unwrap();
    assert!(cast.submeshes[hat_sub].lods[1].is_some());
    assert!(cast.submeshes[hat_sub].lods[2].is_none());
}

#[test]
fn packing_matches_brute_force_culling_and_decodes_back() {
    use throng::crowd::Crowd;
    use throng::view::crowd_pack::{
        anim_vector, pack_crowd, person_scale, person_world, skin_tone, CrowdFrame,
        CrowdPackOptions,
    };
    use throng::view::frustum::Frustum;
    use throng::view::instances::{unpack_instance, VEC4_PER_INSTANCE};
    let (level, cast) = plaza_cast();
    let crowd = Crowd::from_level(&level, 3000, 7);
    let eye = Vec3::new(0.0, 12.0, 40.0);
    let vp = glam::Mat4::perspective_rh_gl(0.9, 16.0 / 9.0, 0.1, 400.0)
        * glam::Mat4::look_at_rh(eye, Vec3::new(0.0, 0.0, 0.0), Vec3::Y);
    let frustum = Frustum::from_view_projection(&vp);
    let opts = CrowdPackOptions {
        frustum: Some(&frustum),
        eye,
        lod: Some(&level.lod),
        lod_colors: false,
        show_culled: false,
    };
    let mut frame = CrowdFrame::default();
    let mut state = Vec::new();
    pack_crowd(&opts, &crowd, &cast, |_| 1.0, &mut state, &mut frame);
    let c = frame.counts;
    assert_eq!(c.visible + c.culled + c.beyond, 3000);
    assert_eq!(c.per_lod.iter().sum::<u32>(), c.visible);
    assert!(c.culled > 100 && c.visible > 100, "{c:?}");
    // Brute force: every person's sphere against the six planes, and their decoded blocks.
    let mut expected_visible = 0;
    let mut bodies_listed = 0;
    for lod in 0..3 {
        for b in &cast.bodies {
            bodies_listed += frame.lists[lod][b.submesh].len() / VEC4_PER_INSTANCE;
        }
    }
    for i in 0..3000 {
        let body = &cast.bodies[crowd.variant[i].model as usize];
        let s = person_scale(i);
        let centre = Vec3::new(crowd.pos[i].x, body.centre_height * s, crowd.pos[i].y);
        let in_range = centre.distance(eye) < level.lod.far + level.lod.hysteresis;
        if in_range && frustum.contains_sphere(centre, body.radius * s) {
            expected_visible += 1;
        }
    }
    assert_eq!(bodies_listed as u32, c.visible);
    assert!(
        (expected_visible as i64 - c.visible as i64).abs() <= 3,
        "{expected_visible} vs {}",
        c.visible
    );
    // Every listed block decodes to its person's transform, tint and animation.
    let mut found = 0;
    for lod in 0..3 {
        for b in &cast.bodies {
            for block in frame.lists[lod][b.submesh].chunks(VEC4_PER_INSTANCE) {
                let inst = unpack_instance(block).expect("five vec4");
                let p = Vec2::new(inst.world.w_axis.x, inst.world.w_axis.z);
                let i = crowd
                    .pos
                    .iter()
                    .position(|q| *q == p)
                    .expect("a person stands there");
                let want = person_world(b, p, crowd.heading[i], person_scale(i));
                assert!(inst.world.abs_diff_eq(want, 1e-5));
                assert_eq!(inst.color, crowd.color[i].extend(1.0));
                assert_eq!(inst.anim, anim_vector(b, &crowd.anim[i], skin_tone(i)));
                found += 1;
            }
        }
    }
    assert_eq!(found, c.visible);
}

#[test]
fn a_model_without_skin_or_with_a_missing_clip_is_refused_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut level, _) = plaza_cast();
    level.crowd.models[1].path = "tests/fixtures/models/SimpleMorph.gltf".into();
    let err = CrowdCast::load(&level, root, "plaza.ron")
        .err()
        .expect("refused");
    assert!(
        err.0.contains("crowd.models[1]") && err.0.contains("skin"),
        "{err}"
    );
    let (mut level, _) = plaza_cast();
    level.crowd.models[0]
        .clips
        .insert("walk".into(), "Moonwalk".into());
    let err = CrowdCast::load(&level, root, "plaza.ron")
        .err()
        .expect("refused");
    assert!(
        err.0.contains("clips.walk") && err.0.contains("Moonwalk") && err.0.contains("Run"),
        "{err}"
    );
    let (mut level, _) = plaza_cast();
    level.crowd.models[0].tint_materials = Some(vec!["Cape".into()]);
    let err = CrowdCast::load(&level, root, "plaza.ron")
        .err()
        .expect("refused");
    assert!(
        err.0.contains("tint_materials") && err.0.contains("Shirt"),
        "{err}"
    );
}

#[test]
fn the_fox_joins_as_a_crowd_body_with_its_own_clips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut level, _) = plaza_cast();
    level.crowd.models[6].path = "tests/fixtures/models/Fox.glb".into();
    level.crowd.models[6].height = 0.6;
    let cast = CrowdCast::load(&level, root, "plaza.ron").expect("fox loads");
    let fox = &cast.bodies[6];
    // Fox has Survey (idle), Walk and Run; it cannot hold props and says so.
    assert!(
        cast.warnings.iter().any(|w| w.contains("no bone to hold")),
        "{:?}",
        cast.warnings
    );
    assert!(fox.radius > 0.3 && fox.radius < 2.0, "{}", fox.radius);
    assert_ne!(fox.clips[1].first_row, cast.bodies[0].clips[1].first_row);
}

#[test]
fn the_crowd_vat_holds_the_skinned_mid_and_far_meshes_of_every_row() {
    use throng::cast::vat::{CrowdVat, VAT_LODS};
    let (_, mut cast) = plaza_cast();
    let vat = CrowdVat::bake(&cast, VAT_LODS, 16384).expect("bakes");
    let mb = vat.bytes() as f64 / 1e6;
    println!(
        "VAT {}x{} texels, {mb:.1} MB for {:.1} clip-seconds ({:.2} MB per clip-second); \
         matrix texture {:.1} MB",
        vat.width,
        vat.rows,
        vat.clip_seconds,
        mb / vat.clip_seconds as f64,
        cast.texture.bytes() as f64 / 1e6
    );
    assert!(vat.data.iter().all(|x| x.is_finite()));
    let mut scratch = Vec::new();
    let mut palette = Vec::new();
    for (b, body) in cast.bodies.clone().iter().enumerate() {
        let sub = body.submesh;
        assert!(vat.meshes[sub][0].is_none(), "near stays on matrices");
        for lod in [1, 2] {
            let entry = vat.meshes[sub][lod].expect("mid and far baked");
            let mesh = cast.submeshes[sub].lods[lod].clone().expect("mesh");
            assert_eq!(entry.vertices as usize, mesh.vertices.len());
            for (k, kind) in ClipKind::ALL.into_iter().enumerate() {
                let rows = body.clips[k];
                for f in (0..rows.frames).step_by(11) {
                    cast.cpu_palette(
                        b,
                        &AnimState::new(kind, rows.frame_time(f)),
                        &mut scratch,
                        &mut palette,
                    );
                    for v in (0..mesh.vertices.len()).step_by(13) {
                        let want = mesh.skinned_position(v, &palette);
                        let (got, normal) = vat
                            .vertex(sub, lod, rows.first_row + f, v as u32)
                            .expect("baked texel");
                        let tol = 1e-4 * want.length().max(1.0);
                        assert!(
                            (got - want).abs().max_element() <= tol,
                            "{} lod {lod} {kind:?} frame {f} vertex {v}: {got} vs {want}",
                            body.name
                        );
                        assert!((normal.length() - 1.0).abs() < 0.02, "{normal}");
                    }
                }
            }
        }
        // Props are not drawn far away; at mid the ones that remain are baked too.
        for prop in body.props.iter().flatten() {
            assert_eq!(
                vat.meshes[*prop][1].is_some(),
                cast.submeshes[*prop].lods[1].is_some()
            );
        }
    }
}

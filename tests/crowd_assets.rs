//! The crowd's render assets (`crowd_assets`) built from the real plaza level and its Quaternius characters: meshes per
//! level of detail, the baked animation texture against the CPU palette, bounds, props.

mod support;

use std::path::Path;

use glam::{Vec2, Vec3};
use throng::anim::anim_texture::TEXELS_PER_JOINT;
use throng::assert_approx;
use throng::crowd::anim::{AnimState, ClipKind};
use throng::crowd_assets::CrowdAssets;
use throng::level::load_level;

/// Why `level`'s crowd models are refused (the test fails when they load).
fn refusal(level: &throng::level::Level) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    match CrowdAssets::load(level, root, "plaza.ron") {
        Ok(_) => panic!("the crowd models loaded"),
        Err(e) => e.0,
    }
}

/// The plaza with its first crowd model replaced by `model`.
fn plaza_with_first_model(model: &Path) -> throng::level::Level {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza loads");
    level.crowd.models[0].path = model.to_string_lossy().into_owned();
    level
}

fn plaza_assets() -> (throng::level::Level, CrowdAssets) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza loads");
    let assets = CrowdAssets::load(&level, root, "levels/plaza.ron").expect("assets loads");
    (level, assets)
}

#[test]
fn every_body_has_three_shrinking_levels_of_detail() {
    let (level, assets) = plaza_assets();
    assert_eq!(assets.bodies.len(), level.crowd.models.len());
    for (b, body) in assets.bodies.iter().enumerate() {
        let [near, mid, far] = assets.body_triangles(b);
        println!(
            "{}: near {near} mid {mid} far {far} tris, radius {:.2} m",
            body.name, body.radius
        );
        assert!(near > 2000, "{} near {near}", body.name);
        assert!(mid * 3 < near, "{} mid {mid} vs near {near}", body.name);
        assert!(far * 2 < mid, "{} far {far} vs mid {mid}", body.name);
        assert!(far > 20, "{} far {far}", body.name);
        let sub = &assets.submeshes[body.submesh];
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
    let (_, mut assets) = plaza_assets();
    // Bodies whose bakes coincide share rows: seven bodies, three distinct bakes (the rigs'
    // rest poses differ slightly between some of the Quaternius files).
    let mut bakes: Vec<u32> = assets.bodies.iter().map(|b| b.clips[0].first_row).collect();
    bakes.sort();
    bakes.dedup();
    assert_eq!(bakes.len(), 3, "{bakes:?}");
    let rows_per_bake: u32 = assets.bodies[0].clips.iter().map(|c| c.frames).sum();
    assert_eq!(assets.texture.rows, 3 * rows_per_bake);
    let joints = assets.texture.joints;
    assert_eq!(assets.texture.width, joints * TEXELS_PER_JOINT);
    let mut scratch = Vec::new();
    let mut cpu = Vec::new();
    for (k, kind) in ClipKind::ALL.into_iter().enumerate() {
        let rows = assets.bodies[0].clips[k];
        for f in (0..rows.frames).step_by(7) {
            let t = rows.frame_time(f);
            assets.cpu_palette(0, &AnimState::new(kind, t), &mut scratch, &mut cpu);
            assert_eq!(cpu.len(), joints as usize);
            for (j, m) in cpu.iter().enumerate() {
                let baked = assets.texture.matrix(rows.first_row + f, j as u32);
                assert_eq!(baked, *m, "{kind:?} frame {f} joint {j}");
            }
        }
        // Between frames the shader's interpolation stays close to the exact pose.
        let t = rows.frame_time(1) * 0.5;
        assets.cpu_palette(0, &AnimState::new(kind, t), &mut scratch, &mut cpu);
        for (j, m) in cpu.iter().enumerate() {
            let lerped = assets
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
    let (_, assets) = plaza_assets();
    for body in &assets.bodies {
        let near = assets.submeshes[body.submesh].lods[0]
            .as_ref()
            .expect("near mesh");
        let props: Vec<_> = body
            .props
            .iter()
            .flatten()
            .filter_map(|&s| assets.submeshes[s].lods[0].as_ref())
            .collect();
        let centre = Vec3::new(0.0, body.centre_height * body.units_per_metre, 0.0);
        let radius = body.radius * body.units_per_metre;
        let mut worst = 0.0f32;
        for rows in &body.clips {
            for f in (0..rows.frames).step_by(3) {
                let palette: Vec<_> = (0..assets.texture.joints)
                    .map(|j| assets.texture.matrix(rows.first_row + f, j))
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
    let (_, assets) = plaza_assets();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scene =
        throng::asset::load_file(&root.join("assets/characters/Casual_Male.gltf")).expect("model");
    let (hand, head) = (slot_of(&scene, "Fist.R"), slot_of(&scene, "Head"));
    let rows_of = |kind: ClipKind| {
        assets.bodies[0].clips[ClipKind::ALL.iter().position(|&k| k == kind).unwrap()]
    };
    let wave = rows_of(ClipKind::Wave);
    let idle = rows_of(ClipKind::Idle);
    assert_ne!(wave.first_row, idle.first_row, "wave is its own clip");
    let at = |rows: throng::anim::anim_texture::ClipRows, slot: usize, f: u32| {
        joint_position(
            &scene,
            slot,
            assets.texture.matrix(rows.first_row + f, slot as u32),
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
    let (_, assets) = plaza_assets();
    let body = &assets.bodies[0];
    assert!(
        body.props.iter().all(Option::is_some),
        "{:?}",
        assets.warnings
    );
    let idle = body.clips[0];
    let palette: Vec<_> = (0..assets.texture.joints)
        .map(|j| assets.texture.matrix(idle.first_row, j))
        .collect();
    let centroid = |sub: usize| {
        let m = assets.submeshes[sub].lods[0].as_ref().expect("near prop");
        let sum: Vec3 = (0..m.vertices.len())
            .map(|v| m.skinned_position(v, &palette))
            .sum();
        sum / m.vertices.len() as f32 / body.units_per_metre
    };
    use throng::crowd_assets::props::prop_index;
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
    assert!(assets.submeshes[phone].lods[1].is_none());
    let hat_sub = body.props[prop_index(PropKind::Hat)].unwrap();
    assert!(assets.submeshes[hat_sub].lods[1].is_some());
    assert!(assets.submeshes[hat_sub].lods[2].is_none());
}

#[test]
fn packing_matches_brute_force_culling_and_decodes_back() {
    use throng::crowd::Crowd;
    use throng::view::crowd_pack::{
        anim_vector, pack_crowd, person_scale, person_world, skin_tone, CrowdFrame,
        CrowdPackOptions,
    };
    use throng::view::crowd_pack::{unpack_instance, VEC4_PER_INSTANCE};
    use throng::view::frustum::Frustum;
    let (level, assets) = plaza_assets();
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
        head_turns: None,
    };
    let mut frame = CrowdFrame::default();
    let mut state = Vec::new();
    pack_crowd(&opts, &crowd, &assets, |_| 1.0, &mut state, &mut frame);
    let c = frame.counts;
    assert_eq!(c.visible + c.culled + c.beyond, 3000);
    assert_eq!(c.per_lod.iter().sum::<u32>(), c.visible);
    assert!(c.culled > 100 && c.visible > 100, "{c:?}");
    // Brute force: every person's sphere against the six planes, and their decoded blocks.
    let mut expected_visible = 0;
    let mut bodies_listed = 0;
    for lod in 0..frame.lists.len() {
        for b in &assets.bodies {
            bodies_listed += frame.lists[lod][b.submesh].len() / VEC4_PER_INSTANCE;
        }
    }
    for i in 0..3000 {
        let body = &assets.bodies[crowd.variant[i].model as usize];
        let s = person_scale(i);
        let centre = Vec3::new(crowd.pos[i].x, body.centre_height * s, crowd.pos[i].y);
        // Levels follow the distance to where a person stands; they dissolve through the band
        // past the far distance.
        let ground = Vec3::new(crowd.pos[i].x, 0.0, crowd.pos[i].y);
        let in_range = ground.distance(eye) < level.lod.far * (1.0 + level.lod.fade * 0.5);
        if in_range && frustum.contains_sphere(centre, body.radius * s) {
            expected_visible += 1;
        }
    }
    // People inside a cross-fade band are listed at both levels.
    assert_eq!(bodies_listed as u32, c.visible + c.fading);
    assert!(c.fading > 0, "some of 3000 people stand in a band: {c:?}");
    assert!(
        (expected_visible as i64 - c.visible as i64).abs() <= 3,
        "{expected_visible} vs {}",
        c.visible
    );
    // Every listed block decodes to its person's transform, tint and animation.
    let mut found = 0;
    for lod in 0..frame.lists.len() {
        for b in &assets.bodies {
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
    assert_eq!(found, c.visible + c.fading);
}

#[test]
fn a_model_without_skin_or_with_a_missing_clip_is_refused_by_name() {
    let (mut level, _) = plaza_assets();
    level.crowd.models[1].path = "tests/fixtures/models/SimpleMorph.gltf".into();
    let err = refusal(&level);
    assert!(
        err.contains("crowd.models[1]") && err.contains("skin"),
        "{err}"
    );
    let (mut level, _) = plaza_assets();
    level.crowd.models[0]
        .clips
        .insert("walk".into(), "Moonwalk".into());
    let err = refusal(&level);
    assert!(
        err.contains("clips.walk") && err.contains("Moonwalk") && err.contains("Run"),
        "{err}"
    );
    let (mut level, _) = plaza_assets();
    level.crowd.models[0].tint_materials = Some(vec!["Cape".into()]);
    let err = refusal(&level);
    assert!(
        err.contains("tint_materials") && err.contains("Shirt"),
        "{err}"
    );
}

#[test]
fn the_fox_joins_as_a_crowd_body_with_its_own_clips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut level, _) = plaza_assets();
    level.crowd.models[6].path = "tests/fixtures/models/Fox.glb".into();
    level.crowd.models[6].height = 0.6;
    let assets = CrowdAssets::load(&level, root, "plaza.ron").expect("fox loads");
    let fox = &assets.bodies[6];
    // Fox has Survey (idle), Walk and Run; it cannot hold props and says so.
    assert!(
        assets
            .warnings
            .iter()
            .any(|w| w.contains("no bone to hold")),
        "{:?}",
        assets.warnings
    );
    assert!(fox.radius > 0.3 && fox.radius < 2.0, "{}", fox.radius);
    assert_ne!(fox.clips[1].first_row, assets.bodies[0].clips[1].first_row);
}

#[test]
fn the_crowd_vat_holds_the_skinned_mid_and_far_meshes_of_every_row() {
    use throng::crowd_assets::vat_runtime::{CrowdVat, VAT_LODS};
    let (_, mut assets) = plaza_assets();
    let vat = CrowdVat::bake(&assets, VAT_LODS, 16384).expect("bakes");
    let mb = vat.bytes() as f64 / 1e6;
    println!(
        "VAT {}x{} texels, {mb:.1} MB for {:.1} clip-seconds ({:.2} MB per clip-second); \
         matrix texture {:.1} MB",
        vat.width,
        vat.rows,
        vat.clip_seconds,
        mb / vat.clip_seconds as f64,
        assets.texture.bytes() as f64 / 1e6
    );
    assert!(vat.data.iter().all(|x| x.is_finite()));
    let mut scratch = Vec::new();
    let mut palette = Vec::new();
    for (b, body) in assets.bodies.clone().iter().enumerate() {
        let sub = body.submesh;
        assert!(vat.meshes[sub][0].is_none(), "near stays on matrices");
        for lod in [1, 2] {
            let entry = vat.meshes[sub][lod].expect("mid and far baked");
            let mesh = assets.submeshes[sub].lods[lod].clone().expect("mesh");
            assert_eq!(entry.vertices as usize, mesh.vertices.len());
            for (k, kind) in ClipKind::ALL.into_iter().enumerate() {
                let rows = body.clips[k];
                for f in (0..rows.frames).step_by(11) {
                    assets.cpu_palette(
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
                        assert_approx!(normal.length(), 1.0, 0.02, "{normal}");
                    }
                }
            }
        }
        // Props are not drawn far away; at mid the ones that remain are baked too.
        for prop in body.props.iter().flatten() {
            assert_eq!(
                vat.meshes[*prop][1].is_some(),
                assets.submeshes[*prop].lods[1].is_some()
            );
        }
    }
}

/// A baked position the way the matrix shader (`crowd.vert` without VAT) computes it: the
/// weighted sum of each joint's 3x4 rows, then one dot per axis. This is how the VAT bake
/// skinned before it shared the one CPU kernel (`anim::blend_joints`).
fn shader_rows_position(
    vert: &throng::crowd_assets::mesh::FigureVertex,
    influences: u32,
    tex: &throng::anim::anim_texture::AnimTexture,
    row: u32,
) -> Vec3 {
    let mut r = [glam::Vec4::ZERO; 3];
    for k in 0..influences.min(4) as usize {
        let w = vert.weights[k];
        if w > 0.0 && vert.joints[k] < tex.joints {
            for (acc, joint_row) in r.iter_mut().zip(tex.matrix_rows(row, vert.joints[k])) {
                *acc += joint_row * w;
            }
        }
    }
    let p = vert.position.extend(1.0);
    Vec3::new(r[0].dot(p), r[1].dot(p), r[2].dot(p))
}

#[test]
fn the_crowd_vat_is_the_shared_skinning_kernel_to_the_bit_and_the_shaders_within_rounding() {
    use throng::crowd_assets::vat_runtime::{CrowdVat, VAT_LODS};
    let (_, assets) = plaza_assets();
    let vat = CrowdVat::bake(&assets, VAT_LODS, 16384).expect("bakes");
    let tex = &assets.texture;
    let (mut checked, mut differ, mut worst) = (0, 0, 0.0f32);
    for (sub, submesh) in assets.submeshes.iter().enumerate() {
        for lod in [1, 2] {
            let (Some(entry), Some(mesh)) = (vat.meshes[sub][lod], submesh.lods[lod].as_ref())
            else {
                continue;
            };
            for row in entry.first_anim_row..entry.first_anim_row + entry.anim_rows {
                let palette: Vec<glam::Mat4> =
                    (0..tex.joints).map(|j| tex.matrix(row, j)).collect();
                for (v, vert) in mesh.vertices.iter().enumerate() {
                    let (got, _) = vat.vertex(sub, lod, row, v as u32).expect("baked texel");
                    let want = mesh.skinned_position(v, &palette);
                    assert_eq!(
                        got.to_array().map(f32::to_bits),
                        want.to_array().map(f32::to_bits),
                        "submesh {sub} lod {lod} row {row} vertex {v}: {got} vs {want}"
                    );
                    let rows = shader_rows_position(vert, mesh.influences, tex, row);
                    let err = (got - rows).abs().max_element() / rows.length().max(1.0);
                    differ += usize::from(got != rows);
                    worst = worst.max(err);
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} texels, {differ} differ from the row dots, worst relative {worst:e}");
    assert!(checked > 10_000, "only {checked} texels checked");
    // Only the order of the final sums differs: a few units in the last place.
    assert!(
        worst <= 4.0 * f32::EPSILON,
        "worst relative difference {worst:e}"
    );
}

// --- The KayKit Knight and RobotExpressive on the market level ---

fn market_assets() -> (throng::level::Level, CrowdAssets) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/market.ron"), root).expect("market loads");
    let assets = CrowdAssets::load(&level, root, "levels/market.ron").expect("assets loads");
    (level, assets)
}

/// Index of the level's crowd model called `name`.
fn model_index(level: &throng::level::Level, name: &str) -> usize {
    level
        .crowd
        .models
        .iter()
        .position(|m| m.name == name)
        .expect("the level has this model")
}

fn body_named<'a>(assets: &'a CrowdAssets, name: &str) -> (usize, &'a throng::crowd_assets::Body) {
    assets
        .bodies
        .iter()
        .enumerate()
        .find(|(_, b)| b.name == name)
        .expect("body in the level")
}

fn load_model(path: &str) -> throng::asset::SceneAsset {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    throng::asset::load_file(&root.join(path)).expect("model")
}

/// Triangles of the scene's meshes on nodes named `names`.
fn node_triangles(scene: &throng::asset::SceneAsset, names: &[&str]) -> usize {
    scene
        .nodes
        .iter()
        .filter(|n| n.name.as_deref().is_some_and(|x| names.contains(&x)))
        .filter_map(|n| n.mesh)
        .map(|m| {
            scene.meshes[m]
                .primitives
                .iter()
                .map(|p| p.triangle_count())
                .sum::<usize>()
        })
        .sum()
}

fn palette_at(assets: &CrowdAssets, row: u32) -> Vec<glam::Mat4> {
    (0..assets.texture.joints)
        .map(|j| assets.texture.matrix(row, j))
        .collect()
}

fn walk_rows(body: &throng::crowd_assets::Body) -> throng::anim::anim_texture::ClipRows {
    body.clips[ClipKind::ALL
        .iter()
        .position(|&k| k == ClipKind::Walk)
        .unwrap()]
}

#[test]
fn the_knight_wears_one_shield_and_one_sword_chosen_per_person() {
    let (level, assets) = market_assets();
    let (_, knight) = body_named(&assets, "knight");
    let scene = load_model("assets/characters/Knight.glb");
    let shields = [
        "Round_Shield",
        "Spike_Shield",
        "Badge_Shield",
        "Rectangle_Shield",
        "1H_Sword_Offhand",
    ];
    let swords = ["1H_Sword", "2H_Sword"];
    // The body: the six skinned meshes plus the helmet and cape, and no shield or sword.
    let skinned: usize = scene
        .nodes
        .iter()
        .filter(|n| n.skin.is_some())
        .filter_map(|n| n.mesh)
        .map(|m| scene.meshes[m].primitives[0].triangle_count())
        .sum();
    let worn = node_triangles(&scene, &["Knight_Helmet", "Knight_Cape"]);
    let [near, mid, far] = assets.body_triangles(
        assets
            .bodies
            .iter()
            .position(|b| b.name == "knight")
            .unwrap(),
    );
    println!(
        "knight body: near {near} mid {mid} far {far} tris (skinned {skinned}, helmet+cape {worn})"
    );
    assert_eq!(near, skinned + worn);
    assert!(
        mid * 3 < near && far * 2 < mid && far > 20,
        "{near} {mid} {far}"
    );
    // One submesh per option, "" is nothing.
    assert_eq!(knight.attachments.len(), 2);
    assert_eq!(knight.attachments[0].len(), 6);
    assert_eq!(knight.attachments[0][5], None);
    assert_eq!(knight.attachments[1].len(), 3);
    assert_eq!(knight.attachments[1][2], None);
    let groups: [&[&str]; 2] = [&shields, &swords];
    for (g, names) in groups.iter().enumerate() {
        for (k, name) in names.iter().enumerate() {
            let sub = &assets.submeshes[knight.attachments[g][k].expect("an option")];
            assert!(sub.name.starts_with(name), "{} for {name}", sub.name);
            let lods = sub.lods.clone().map(|m| m.map(|m| m.triangle_count()));
            println!("  {}: {lods:?}", sub.name);
            assert_eq!(lods[0], Some(node_triangles(&scene, &[name])));
            assert!(lods[1].unwrap() < lods[0].unwrap());
            for m in sub.lods.iter().flatten() {
                assert_eq!(m.influences, 1);
                assert!(m.vertices.iter().all(|v| v.weights == glam::Vec4::X));
            }
        }
    }
    // Each person wears at most one option of each group, chosen from their index: over a few
    // hundred people every option (and nothing) turns up.
    let mut seen = [vec![0; 6], vec![0; 3]];
    for person in 0..600 {
        let worn: Vec<usize> = knight.attachments_of(person).collect();
        assert!(worn.len() <= 2);
        assert_eq!(worn, knight.attachments_of(person).collect::<Vec<_>>());
        for (g, options) in knight.attachments.iter().enumerate() {
            let k = throng::crowd_assets::attach::choice(person, g, options.len());
            seen[g][k] += 1;
            assert_eq!(
                options[k].is_some(),
                options[k].is_some_and(|s| worn.contains(&s))
            );
        }
    }
    assert!(seen.iter().flatten().all(|&n| n > 30), "{seen:?}");

    // Packed: knights in view list their attachments next to their bodies.
    use throng::crowd::Crowd;
    use throng::view::crowd_pack::VEC4_PER_INSTANCE;
    use throng::view::crowd_pack::{pack_crowd, CrowdFrame, CrowdPackOptions};
    let crowd = Crowd::from_level(&level, 1500, 7);
    let opts = CrowdPackOptions {
        frustum: None,
        eye: Vec3::new(0.0, 10.0, 0.0),
        lod: None,
        lod_colors: false,
        show_culled: false,
        head_turns: None,
    };
    let mut frame = CrowdFrame::default();
    pack_crowd(&opts, &crowd, &assets, |_| 1.0, &mut Vec::new(), &mut frame);
    let k = assets
        .bodies
        .iter()
        .position(|b| b.name == "knight")
        .unwrap();
    let knights: Vec<usize> = (0..1500)
        .filter(|&i| crowd.variant[i].model as usize == k)
        .collect();
    assert!(knights.len() > 10, "{} knights", knights.len());
    let expected: usize = knights
        .iter()
        .map(|&i| knight.attachments_of(i).count())
        .sum();
    let listed: usize = knight
        .attachments
        .iter()
        .flatten()
        .flatten()
        .map(|&s| frame.lists[0][s].len() / VEC4_PER_INSTANCE)
        .sum();
    assert_eq!(listed, expected);
    assert_eq!(frame.counts.attachments as usize, expected);
    assert_eq!(
        frame.lists[0][knight.submesh].len() / VEC4_PER_INSTANCE,
        knights.len()
    );
}

#[test]
fn the_knight_takes_its_colours_from_its_palette_texture() {
    let (_, assets) = market_assets();
    let (_, knight) = body_named(&assets, "knight");
    let near = assets.submeshes[knight.submesh].lods[0].as_ref().unwrap();
    let mut colours: Vec<[u32; 3]> = near
        .vertices
        .iter()
        .map(|v| (v.color * 255.0).round().as_uvec3().to_array())
        .collect();
    colours.sort();
    colours.dedup();
    println!(
        "{} distinct colours: {:?}",
        colours.len(),
        &colours[..colours.len().min(12)]
    );
    assert!(colours.len() >= 6, "{colours:?}");
    // Not the white factor: the texture darkens most of it.
    let mean: Vec3 =
        near.vertices.iter().map(|v| v.color).sum::<Vec3>() / near.vertices.len() as f32;
    assert!(
        mean.max_element() < 0.9 && mean.min_element() > 0.01,
        "{mean}"
    );
    assert!(
        !assets
            .warnings
            .iter()
            .any(|w| w.contains("knight") && w.contains("texture")),
        "{:?}",
        assets.warnings
    );
}

/// Largest relative change of the distance from the centroid of `mesh` to joint `slot` over
/// the frames of `rows`, and that distance in the first frame.
fn drift_from_joint(
    assets: &CrowdAssets,
    scene: &throng::asset::SceneAsset,
    mesh: &throng::crowd_assets::mesh::FigureMesh,
    slot: usize,
    rows: throng::anim::anim_texture::ClipRows,
) -> (f32, f32) {
    let mut first = None;
    let mut worst = 0.0f32;
    let mut moved = 0.0f32;
    for f in 0..rows.frames {
        let palette = palette_at(assets, rows.first_row + f);
        let centroid: Vec3 = (0..mesh.vertices.len())
            .map(|v| mesh.skinned_position(v, &palette))
            .sum::<Vec3>()
            / mesh.vertices.len() as f32;
        let joint = joint_position(scene, slot, palette[slot]);
        let d = centroid.distance(joint);
        let (d0, c0) = *first.get_or_insert((d, centroid));
        worst = worst.max((d - d0).abs() / d0.max(1e-6));
        moved = moved.max(centroid.distance(c0));
    }
    assert!(moved > 0.01, "the part never moved ({moved})");
    (worst, first.unwrap().0)
}

#[test]
fn the_helmet_follows_the_head_and_the_shield_the_left_hand_through_the_walk() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut level, _) = market_assets();
    let k = model_index(&level, "knight");
    // A group of one makes the helmet its own submesh (still always worn).
    level.crowd.models[k]
        .attachment_choices
        .push(vec!["Knight_Helmet".into()]);
    let assets = CrowdAssets::load(&level, root, "market.ron").expect("loads");
    let knight = &assets.bodies[k];
    let scene = load_model("assets/characters/Knight.glb");
    let walk = walk_rows(knight);
    assert!(walk.frames > 20);
    let helmet = assets.submeshes[knight.attachments[2][0].unwrap()].lods[0]
        .as_ref()
        .unwrap();
    let (drift, d) = drift_from_joint(&assets, &scene, helmet, slot_of(&scene, "head"), walk);
    println!("helmet: {d} units from the head joint, drift {drift}");
    assert!(drift < 1e-3, "{drift}");
    let shield = assets.submeshes[knight.attachments[0][0].unwrap()].lods[0]
        .as_ref()
        .unwrap();
    let (drift, d) = drift_from_joint(&assets, &scene, shield, slot_of(&scene, "handslot.l"), walk);
    println!("round shield: {d} units from handslot.l, drift {drift}");
    assert!(drift < 1e-3, "{drift}");
    // Each helmet vertex keeps its place in the head's frame.
    let head = slot_of(&scene, "head");
    let bind = scene.skins[0].inverse_bind[head];
    for f in (0..walk.frames).step_by(5) {
        let palette = palette_at(&assets, walk.first_row + f);
        for v in (0..helmet.vertices.len()).step_by(17) {
            let local = (palette[head] * bind.inverse())
                .inverse()
                .transform_point3(helmet.skinned_position(v, &palette));
            let rest = bind.transform_point3(helmet.vertices[v].position);
            assert_approx!(local, rest, 1e-3, "frame {f} vertex {v}");
        }
    }
    // Worn on the head: the helmet's top is the figure's top in the idle pose.
    let idle = palette_at(&assets, knight.clips[0].first_row);
    let top = (0..helmet.vertices.len())
        .map(|v| helmet.skinned_position(v, &idle).y)
        .fold(f32::MIN, f32::max);
    assert_approx!(
        top / knight.units_per_metre,
        1.8,
        0.15,
        "helmet top at {} m",
        top / knight.units_per_metre
    );
}

#[test]
fn every_attachment_option_stays_inside_the_bounding_sphere_at_every_frame() {
    let (_, assets) = market_assets();
    for name in ["knight", "robot"] {
        let (_, body) = body_named(&assets, name);
        let centre = Vec3::new(0.0, body.centre_height * body.units_per_metre, 0.0);
        let radius = body.radius * body.units_per_metre;
        // The body, every attachment option and (as the plaza test) the generated props.
        let meshes: Vec<_> = std::iter::once(body.submesh)
            .chain(body.attachments.iter().flatten().flatten().copied())
            .chain(body.props.iter().flatten().copied())
            .filter_map(|s| assets.submeshes[s].lods[0].as_ref())
            .collect();
        let mut worst = 0.0f32;
        for rows in &body.clips {
            for f in 0..rows.frames {
                let palette = palette_at(&assets, rows.first_row + f);
                for mesh in &meshes {
                    for v in 0..mesh.vertices.len() {
                        let p = mesh.skinned_position(v, &palette);
                        let d = Vec2::new(p.x, p.z).length().hypot(p.y - centre.y);
                        worst = worst.max(d / radius);
                    }
                }
            }
        }
        println!(
            "{name}: radius {:.2} m, centre {:.2} m, worst {worst:.3}",
            body.radius, body.centre_height
        );
        assert!(worst <= 1.0, "{name}: a vertex at {worst} of the radius");
        assert!(worst > 0.6, "{name}: loose sphere ({worst})");
    }
}

#[test]
fn the_robot_stands_upright_at_its_height_with_its_shell_on_its_bones() {
    let (level, assets) = market_assets();
    let (b, robot) = body_named(&assets, "robot");
    let model = level
        .crowd
        .models
        .iter()
        .find(|m| m.name == "robot")
        .unwrap();
    let scene = load_model("assets/characters/RobotExpressive.glb");
    let [near, mid, far] = assets.body_triangles(b);
    println!(
        "robot: near {near} mid {mid} far {far} tris, radius {:.2} m",
        robot.radius
    );
    // Both skinned hands (two skins over one skeleton) and all twelve rigid parts.
    assert!(near >= 3200, "{near}");
    assert!(
        mid * 3 < near && far * 2 < mid && far > 20,
        "{near} {mid} {far}"
    );
    let mesh = assets.submeshes[robot.submesh].lods[0].as_ref().unwrap();
    // The file's weights sum to up to 1.755; after load every vertex's sum is 1.
    for v in &mesh.vertices {
        let sum = v.weights.x + v.weights.y + v.weights.z + v.weights.w;
        assert_approx!(sum, 1.0, 1e-5, "{sum}");
    }
    // Upright and as tall as the level says in the idle pose (not lying on its back at
    // a hundredth of its size, as the skinned nodes' own transform would make it).
    let idle = palette_at(&assets, robot.clips[0].first_row);
    let mut lo = Vec3::splat(f32::MAX);
    let mut hi = Vec3::splat(f32::MIN);
    for v in 0..mesh.vertices.len() {
        let p = mesh.skinned_position(v, &idle) / robot.units_per_metre;
        lo = lo.min(p);
        hi = hi.max(p);
    }
    println!("robot idle box {lo} .. {hi} m");
    assert_approx!(hi.y - lo.y, model.height, 0.1 * model.height, "{lo} {hi}");
    assert_approx!(lo.y, 0.0, 0.1, "feet on the ground: {}", lo.y);
    assert!(hi.x - lo.x < hi.y - lo.y && hi.z - lo.z < hi.y - lo.y);
    let head = slot_of(&scene, "Head");
    let foot = slot_of(&scene, "Foot.L");
    assert!(
        joint_position(&scene, head, idle[head]).y
            > joint_position(&scene, foot, idle[foot]).y + 1.0
    );
    // It faces +Z like the other models: the face (the head's front) is ahead of the neck.
    // Rigid parts: the head shell keeps its distance from the head bone while walking, and
    // a lower-leg shell from its bone.
    let walk = walk_rows(robot);
    for bone in ["Head", "LowerLeg.L", "Foot.R", "Body"] {
        let slot = slot_of(&scene, bone) as u32;
        let part = throng::crowd_assets::mesh::FigureMesh {
            vertices: mesh
                .vertices
                .iter()
                .filter(|v| v.joints.x == slot && v.weights == glam::Vec4::X)
                .copied()
                .collect(),
            indices: Vec::new(),
            influences: 1,
        };
        assert!(part.vertices.len() > 50, "{bone}: {}", part.vertices.len());
        let (drift, d) = drift_from_joint(&assets, &scene, &part, slot as usize, walk);
        println!("{bone} shell: {d} units from its bone, drift {drift}");
        assert!(drift < 1e-3, "{bone}: {drift}");
    }
    // Its clips are the file's own: walking is not idle, waving is Wave.
    assert_ne!(robot.clips[1].first_row, robot.clips[0].first_row);
    assert_approx!(robot.clips[3].duration, 1.833, 0.01);
}

#[test]
fn an_attachment_the_model_lacks_is_refused_with_the_list_of_what_it_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut level, _) = market_assets();
    let k = model_index(&level, "knight");
    level.crowd.models[k].attachment_choices[1][1] = "Great_Sword".into();
    let err = CrowdAssets::load(&level, root, "levels/market.ron")
        .err()
        .expect("refused");
    println!("{err}");
    assert!(
        err.0.starts_with("levels/market.ron: ")
            && err.0.contains(&format!("crowd.models[{k}] `knight`"))
            && err.0.contains("attachment_choices[1][1]")
            && err.0.contains("Great_Sword")
            && err.0.contains("Round_Shield")
            && err.0.contains("Knight_Helmet"),
        "{err}"
    );
    let (mut level, _) = market_assets();
    level.crowd.models[k].hidden_meshes = vec!["Cloak".into()];
    let err = CrowdAssets::load(&level, root, "levels/market.ron")
        .err()
        .expect("refused");
    assert!(
        err.0.contains("hidden_meshes[0]") && err.0.contains("Cloak"),
        "{err}"
    );
    // Listing a mesh twice is a level error with its position.
    let src = std::fs::read_to_string(root.join("levels/market.ron")).unwrap();
    let broken = src.replacen(
        "[\"1H_Sword\", \"2H_Sword\", \"\"]",
        "[\"1H_Sword\", \"Round_Shield\", \"\"]",
        1,
    );
    assert_ne!(broken, src);
    let err = throng::level::parse_level(&broken, "levels/market.ron", root)
        .expect_err("refused")
        .to_string();
    println!("{err}");
    assert!(
        err.contains(&format!("crowd.models[{k}].attachment_choices[1][1]"))
            && err.contains("already listed at")
            && err.starts_with("levels/market.ron:"),
        "{err}"
    );
}

#[test]
fn knights_and_robots_have_a_clip_for_every_activity() {
    let (_, assets) = market_assets();
    // Every activity is the level's clip, a conventional name or an authored gesture: no
    // activity falls back to idle.
    for name in ["knight", "robot"] {
        assert!(
            !assets
                .warnings
                .iter()
                .any(|w| w.contains(&format!("`{name}`")) && w.contains("clip")),
            "{:?}",
            assets.warnings
        );
    }
    let (_, knight) = body_named(&assets, "knight");
    let scene = load_model("assets/characters/Knight.glb");
    let row = |kind: ClipKind| knight.clips[ClipKind::ALL.iter().position(|&k| k == kind).unwrap()];
    let hand = slot_of(&scene, "hand.r");
    let at = |rows: throng::anim::anim_texture::ClipRows, f: u32| {
        joint_position(
            &scene,
            hand,
            assets.texture.matrix(rows.first_row + f, hand as u32),
        )
    };
    // Cheer (its wave) lifts the right hand above the head at some point.
    let head = slot_of(&scene, "head");
    let cheer = row(ClipKind::Wave);
    assert!((0..cheer.frames).any(|f| at(cheer, f).y
        > joint_position(
            &scene,
            head,
            assets.texture.matrix(cheer.first_row + f, head as u32)
        )
        .y));
    // The authored talk (on KayKit's lower-case bones) raises the forearm, forward (+Z).
    let (idle, talk) = (row(ClipKind::Idle), row(ClipKind::Talk));
    let (rest, talking) = (at(idle, 0), at(talk, 0));
    println!("hand idle {rest} talk {talking}");
    assert!(
        talking.y > rest.y + 0.15 && talking.z > rest.z + 0.05,
        "{talking} vs {rest}"
    );
}

#[test]
fn a_clip_too_long_for_the_animation_texture_is_a_load_error_naming_model_and_clip() {
    let dir = tempfile::tempdir().expect("temp");
    // 1e5 s needed 3 million rows (a 15.9 GB allocation abort with a real skeleton); 1.5e8 s
    // and 3e38 s overflowed the row count.
    for (end, shown, rows) in [
        (1e5f32, "100000", "3000001"),
        (1.5e8, "1.5e8", "4500000001"),
        (3e38, "3e38", "9.00e39"),
    ] {
        let (b, doc) = support::gltf_builder::skinned_triangle_keys([0.0, 0.5, end]);
        let model = dir.path().join("Long.gltf");
        std::fs::write(&model, b.finish(doc)).expect("write model");
        let level = plaza_with_first_model(&model);
        let (err, cpu) = support::cpu::thread_cpu_time(|| refusal(&level));
        assert_eq!(
            err,
            format!(
                "plaza.ron: crowd.models[0] `casual_male` ({}): baking `Walk`: the clip lasts \
                 {shown} s: {rows} rows at 30 fps, above the animation texture's limit of 16384 \
                 rows; shorten the clip or give this activity another",
                model.display()
            )
        );
        assert!(cpu.as_secs_f32() < 1.0, "{end}: {cpu:?} of CPU");
    }
}

#[test]
fn a_clip_on_a_deep_scene_is_refused_before_sampling_every_node_every_row() {
    let dir = tempfile::tempdir().expect("temp");
    // 500 s: 15001 rows (inside 16384), each posing 6003 nodes: 9e7 node updates.
    let (b, mut doc) = support::gltf_builder::skinned_triangle_keys([0.0, 0.5, 500.0]);
    let nodes = doc["nodes"].as_array_mut().unwrap();
    for i in 0..6000 {
        nodes.push(if i + 1 < 6000 {
            serde_json::json!({"children": [3 + i + 1]})
        } else {
            serde_json::json!({})
        });
    }
    doc["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(3));
    let model = dir.path().join("Deep.gltf");
    std::fs::write(&model, b.finish(doc)).expect("write model");
    let level = plaza_with_first_model(&model);
    let (err, cpu) = support::cpu::thread_cpu_time(|| refusal(&level));
    assert_eq!(
        err,
        format!(
            "plaza.ron: crowd.models[0] `casual_male` ({}): baking `Walk`: the clip's 15001 rows \
             would each pose 6003 nodes (90051003 node updates), above the limit of 67108864; \
             shorten the clip or use a smaller scene",
            model.display()
        )
    );
    // CPU time, not wall time: a busy machine must not fail a refusal that came first.
    assert!(cpu.as_secs_f32() < 1.0, "{cpu:?} of CPU");
}

#[test]
fn the_crowd_vat_is_refused_before_allocating_past_its_limit() {
    use throng::crowd_assets::vat_runtime::{CrowdVat, MAX_VAT_BYTES, VAT_LODS};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza loads");
    level.crowd.models.truncate(1);
    let mut scene =
        throng::asset::load_file(&root.join(&level.crowd.models[0].path)).expect("model loads");
    // A 530 s idle clip: 15901 rows, inside the matrix texture's 16384, but every row of the
    // VAT holds the mid and far meshes of the body and its props (~1100 vertices): ~290 MB.
    let idle = scene
        .animations
        .iter_mut()
        .find(|c| c.name == "Idle")
        .expect("idle clip");
    idle.duration = 530.0;
    let assets = CrowdAssets::from_scenes(&level, &[scene], "plaza.ron").expect("assets");
    assert!(assets.texture.rows > 15_901, "{}", assets.texture.rows);
    let (baked, cpu) = support::cpu::thread_cpu_time(|| CrowdVat::bake(&assets, VAT_LODS, 65_536));
    let err = match baked {
        Ok(vat) => panic!("baked {} MiB", vat.bytes() >> 20),
        Err(e) => e,
    };
    assert!(
        err.starts_with("the vertex animation texture would take ")
            && err.ends_with(&format!(
                "above its limit of {} MiB; use shorter clips or fewer levels of detail",
                MAX_VAT_BYTES >> 20
            )),
        "{err}"
    );
    // CPU time, not wall time: a busy machine must not fail a refusal that came first.
    assert!(cpu.as_secs_f32() < 1.0, "{cpu:?} of CPU");
}

/// A triangle whose UVs all sit on the black left texel of a 2x1 black|white texture; the base
/// colour's `KHR_texture_transform` moves them half a texture right, onto the white one.
fn transformed_triangle(transform: serde_json::Value, mag_filter: u32) -> Vec<Vec3> {
    // A dielectric: glTF's default metallic 1.0 would leave no diffuse colour to bake.
    triangle_with(
        transform,
        mag_filter,
        serde_json::json!({"metallicFactor": 0.0}),
    )
}

/// `transformed_triangle` with these metallic-roughness fields added to the material.
fn triangle_with(
    transform: serde_json::Value,
    mag_filter: u32,
    metal: serde_json::Value,
) -> Vec<Vec3> {
    use support::gltf_builder::{base64, Builder};
    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, 2, 1);
        enc.set_color(png::ColorType::Rgb);
        let mut w = enc.write_header().expect("png header");
        w.write_image_data(&[0, 0, 0, 255, 255, 255])
            .expect("png data");
    }
    let mut b = Builder::new();
    let p = b.f32s("VEC3", &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let t = b.f32s("VEC2", &[0.25, 0.5, 0.25, 0.5, 0.25, 0.5]);
    let mut info = serde_json::json!({"index": 0});
    if !transform.is_null() {
        info["extensions"] = serde_json::json!({"KHR_texture_transform": transform});
    }
    let mut pbr = serde_json::json!({"baseColorTexture": info});
    if let (Some(pbr), Some(metal)) = (pbr.as_object_mut(), metal.as_object()) {
        pbr.extend(metal.clone());
    }
    let doc = serde_json::json!({
        "extensionsUsed": ["KHR_texture_transform"],
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "TEXCOORD_0": t}, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": pbr}],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{"magFilter": mag_filter, "minFilter": 9728, "wrapS": 33071, "wrapT": 33071}],
        "images": [{"uri": format!("data:image/png;base64,{}", base64(&png_bytes))}],
    });
    let scene = throng::asset::load_slice("tri.gltf", &b.finish(doc), None).expect("loads");
    let prim = &scene.meshes[0].primitives[0];
    let mut warnings = Vec::new();
    let colors = throng::crowd_assets::mesh::primitive_colors(&scene, prim, &mut warnings);
    assert!(warnings.is_empty(), "{warnings:?}");
    colors
}

#[test]
fn crowd_vertex_colours_follow_the_texture_transform_and_the_sampler() {
    assert_approx!(
        transformed_triangle(serde_json::Value::Null, 9728)[0],
        Vec3::ZERO,
        1e-6
    );
    let moved = serde_json::json!({"offset": [0.5, 0.0]});
    assert_approx!(
        transformed_triangle(moved.clone(), 9728)[0],
        Vec3::ONE,
        1e-6
    );
    // A linear sampler reads between texel centres: a quarter of the way from black to white
    // (0.375 after the transform, between the centres at 0.25 and 0.75), decoded from sRGB.
    let quarter = serde_json::json!({"offset": [0.125, 0.0]});
    let c = transformed_triangle(quarter, 9729)[0].x;
    let expected = throng::crowd_assets::mesh::srgb_to_linear(64);
    assert!((c - expected).abs() < 0.002, "{c} vs {expected}");
}

/// The crowd is lit by Lambert alone: a metallic material bakes only its diffuse part,
/// `base · (1 − metalness)`, metalness being the factor times the metallic-roughness texture's
/// B channel (glTF's default factor 1.0 when the file leaves it out).
#[test]
fn crowd_vertex_colours_keep_only_the_diffuse_part_of_metals() {
    let white = serde_json::json!({"offset": [0.5, 0.0]});
    let c = triangle_with(
        white.clone(),
        9728,
        serde_json::json!({"metallicFactor": 0.75}),
    );
    assert_approx!(c[0], Vec3::splat(0.25), 1e-6);
    let c = triangle_with(white.clone(), 9728, serde_json::json!({}));
    assert_approx!(c[0], Vec3::ZERO, 1e-6);
    // The texture's B channel is 1 on its white texel (where these UVs land): the factor.
    let textured =
        serde_json::json!({"metallicFactor": 0.5, "metallicRoughnessTexture": {"index": 0}});
    let c = triangle_with(white, 9728, textured);
    assert_approx!(c[0], Vec3::splat(0.5), 1e-6);
}

//! The crowd's packing: the culling debug view lists culled people too (far mesh, painted red)
//! while the counts stay those of the player's camera; instance blocks batch into draws within
//! the GPU's uniform limit.

use std::path::Path;

use glam::Vec3;
use throng::crowd::Crowd;
use throng::crowd_assets::CrowdAssets;
use throng::level::load_level;
use throng::view::crowd_pack::{
    batch_ranges, instances_per_batch, pack_crowd, unpack_instance, CrowdFrame, CrowdPackOptions,
    CULLED_COLOR, VEC4_PER_INSTANCE,
};
use throng::view::frustum::Frustum;

#[test]
fn culled_people_are_listed_in_red_at_far_detail_and_counts_do_not_change() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza");
    let assets = CrowdAssets::load(&level, root, "levels/plaza.ron").expect("assets");
    let crowd = Crowd::from_level(&level, 2000, 3);
    let eye = Vec3::new(10.0, 15.0, 50.0);
    let vp = glam::Mat4::perspective_rh_gl(0.8, 16.0 / 9.0, 0.1, 500.0)
        * glam::Mat4::look_at_rh(eye, Vec3::ZERO, Vec3::Y);
    let frustum = Frustum::from_view_projection(&vp);
    let pack = |show_culled: bool| {
        let opts = CrowdPackOptions {
            frustum: Some(&frustum),
            eye,
            lod: Some(&level.lod),
            lod_colors: false,
            show_culled,
            head_turns: None,
        };
        let mut frame = CrowdFrame::default();
        let mut state = Vec::new();
        pack_crowd(&opts, &crowd, &assets, |_| 1.0, &mut state, &mut frame);
        frame
    };
    let plain = pack(false);
    let debug = pack(true);
    assert_eq!(plain.counts, debug.counts);
    let culled = debug.counts.culled as usize;
    assert!(culled > 100, "{:?}", debug.counts);
    // Near and mid lists are the same; far lists gain exactly one red block per culled person.
    assert_eq!(plain.lists[0], debug.lists[0]);
    assert_eq!(plain.lists[1], debug.lists[1]);
    let blocks = |f: &CrowdFrame| -> Vec<[[f32; 4]; 5]> {
        f.lists[2]
            .iter()
            .flat_map(|l| l.chunks_exact(VEC4_PER_INSTANCE))
            .map(|c| [c[0], c[1], c[2], c[3], c[4]])
            .collect()
    };
    let (before, after) = (blocks(&plain), blocks(&debug));
    assert_eq!(after.len(), before.len() + culled);
    let red: Vec<_> = after
        .iter()
        .filter(|b| b[3] == CULLED_COLOR.extend(2.0).to_array())
        .collect();
    assert_eq!(red.len(), culled);
    // Each red person really is outside the frustum: its sphere was outside by at least its
    // radius (~1 m), so a point near its middle is outside too.
    for b in red {
        let inst = unpack_instance(b).expect("a whole block");
        let at = inst.world.w_axis.truncate();
        assert!(
            !frustum.contains_sphere(at + Vec3::Y * 0.9, 0.0),
            "a red person at {at} is inside the frustum"
        );
    }
}

#[test]
fn batch_size_comes_from_the_uniform_limit() {
    assert_eq!(instances_per_batch(4096, 10), Ok(817));
    assert_eq!(instances_per_batch(256, 10), Ok(49));
    assert_eq!(instances_per_batch(1024, 4), Ok(204));
    assert_eq!(instances_per_batch(15, 10), Ok(1));
    let err = instances_per_batch(14, 10).unwrap_err();
    assert!(err.contains("allows 14 vertex uniform vectors"), "{err}");
    assert!(instances_per_batch(5, 10).is_err());
}

#[test]
fn batches_cover_every_instance_once_at_the_edges() {
    let limit = 49;
    for count in [0, 1, limit - 1, limit, limit + 1, 10_000] {
        let ranges: Vec<_> = batch_ranges(count, limit).collect();
        assert_eq!(ranges.len(), count.div_ceil(limit), "count {count}");
        let mut next = 0;
        for r in &ranges {
            assert_eq!(r.start, next);
            assert!(r.len() <= limit && !r.is_empty());
            next = r.end;
        }
        assert_eq!(next, count);
    }
}

#[test]
fn impostors_are_one_block_under_their_body_with_a_blob_and_no_props() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza");
    let assets = CrowdAssets::load(&level, root, "levels/plaza.ron").expect("assets");
    let crowd = Crowd::from_level(&level, 2000, 3);
    let eye = Vec3::new(0.0, 40.0, 0.0);
    let pack = |impostor: f32| {
        // A hard switch, so each person is listed once (the fade's double listing is tested
        // with the fade).
        let lod = throng::level::LodSettings {
            impostor,
            fade: 0.0,
            ..level.lod
        };
        let opts = CrowdPackOptions {
            frustum: None,
            eye,
            lod: Some(&lod),
            lod_colors: false,
            show_culled: false,
            head_turns: None,
        };
        let mut frame = CrowdFrame::default();
        let mut state = Vec::new();
        pack_crowd(&opts, &crowd, &assets, |_| 1.0, &mut state, &mut frame);
        frame
    };
    let meshes = pack(f32::INFINITY);
    let pictures = pack(60.0);
    let (m, p) = (meshes.counts, pictures.counts);
    assert_eq!(m.per_lod[3], 0, "no impostors without the distance");
    assert!(p.per_lod[3] > 300, "{p:?}");
    assert_eq!(m.visible, p.visible);
    // Everyone past 60 m left the mid and far lists for the impostor list, nobody else moved.
    assert_eq!(m.per_lod[0], p.per_lod[0]);
    assert_eq!(
        m.per_lod[1] + m.per_lod[2],
        p.per_lod[1] + p.per_lod[2] + p.per_lod[3]
    );
    // One block each, under the body's own submesh; props and attachments only on meshes.
    assert_eq!(pictures.instances_at(3), p.per_lod[3] as usize);
    for (sub, list) in pictures.lists[3].iter().enumerate() {
        if !list.is_empty() {
            assert!(
                assets.bodies.iter().any(|b| b.submesh == sub),
                "submesh {sub}"
            );
        }
    }
    assert!(p.props + p.attachments < m.props + m.attachments);
    // Impostors get blob shadows like mid and far people.
    assert_eq!(pictures.blobs.len(), meshes.blobs.len());
}

/// People look back: the head turns ride in the tone lane of the same blocks, nothing else of
/// the frame changes (same lists, same lengths: same draws), straight people pack as before.
#[test]
fn head_turns_ride_in_the_tone_lane_of_the_same_blocks() {
    use throng::crowd::head_turn::HeadTurns;
    use throng::view::look_pack::{unpack_look, PITCH_STEP, YAW_STEP};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/plaza.ron"), root).expect("plaza");
    let assets = CrowdAssets::load(&level, root, "levels/plaza.ron").expect("assets");
    // Every plaza body has a neck and a head to turn (the Quaternius rig: slots 6 and 7).
    for b in &assets.bodies {
        let (neck, head) = (b.look_rig.neck, b.look_rig.head);
        assert_eq!(
            (neck.map(|j| j.slot), head.map(|j| j.slot)),
            (Some(6), Some(7)),
            "{}",
            b.name
        );
        assert!(head.map_or(0.0, |h| h.pivot.y) > neck.map_or(f32::MAX, |n| n.pivot.y));
    }
    let crowd = Crowd::from_level(&level, 1500, 5);
    // The hero among the crowd, where person 0 stands, 1 m aside.
    let p0 = crowd.pos[0];
    let hero = Vec3::new(p0.x + 1.0, 1.5, p0.y);
    let mut turns = HeadTurns::default();
    for _ in 0..30 {
        turns.update(&crowd.pos, &crowd.heading, |_| 1.6, Some(hero), 1.0 / 60.0);
    }
    let turned = turns.turned();
    assert!(turned > 3 && turned < 200, "{turned} people look back");
    let eye = Vec3::new(p0.x, 20.0, p0.y + 30.0);
    let pack = |head_turns| {
        let opts = CrowdPackOptions {
            frustum: None,
            eye,
            lod: Some(&level.lod),
            lod_colors: false,
            show_culled: false,
            head_turns,
        };
        let mut frame = CrowdFrame::default();
        pack_crowd(&opts, &crowd, &assets, |_| 1.0, &mut Vec::new(), &mut frame);
        frame
    };
    let plain = pack(None);
    let looking = pack(Some(&turns));
    assert_eq!(plain.counts, looking.counts);
    let mut seen_turned = 0;
    for (lod, (a, b)) in plain.lists.iter().zip(&looking.lists).enumerate() {
        for (la, lb) in a.iter().zip(b) {
            assert_eq!(la.len(), lb.len(), "same blocks at level {lod}");
            for (ba, bb) in la
                .chunks_exact(VEC4_PER_INSTANCE)
                .zip(lb.chunks_exact(VEC4_PER_INSTANCE))
            {
                assert_eq!(ba[..4], bb[..4]);
                assert_eq!(ba[4][..3], bb[4][..3]);
                let p = glam::Vec2::new(ba[0][3], ba[2][3]);
                let i = crowd.pos.iter().position(|q| *q == p).expect("a person");
                let (yaw, pitch) = turns.get(i);
                let (tone, y, pt) = unpack_look(bb[4][3]);
                assert!((tone - ba[4][3]).abs() <= 1.0 / 512.0);
                assert!((y - yaw).abs() <= YAW_STEP * 0.5 + 1e-6, "{y} vs {yaw}");
                assert!((pt - pitch).abs() <= PITCH_STEP * 0.5 + 1e-6);
                if (yaw, pitch) == (0.0, 0.0) {
                    assert_eq!(ba, bb, "a straight person packs as before");
                } else {
                    seen_turned += 1;
                }
            }
        }
    }
    assert!(
        seen_turned >= turned,
        "{seen_turned} blocks of {turned} turned people"
    );
}

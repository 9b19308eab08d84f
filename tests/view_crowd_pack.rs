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

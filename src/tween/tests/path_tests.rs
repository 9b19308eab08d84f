use glam::{Vec2, Vec3};

use crate::tween::*;

/// An irregular polyline: a long run, a cluster of tiny segments, a duplicate point and a turn.
fn irregular() -> Vec<Vec2> {
    vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(5.0, 0.0),
        Vec2::new(5.1, 0.0),
        Vec2::new(5.1, 0.05),
        Vec2::new(5.1, 0.05),
        Vec2::new(5.2, 0.1),
        Vec2::new(5.2, 4.0),
        Vec2::new(1.0, 7.0),
    ]
}

/// Arc-length position of a point lying on the polyline, computed independently of the path
/// type: the first segment the point lies on, plus the distance walked before it.
fn arc_position(points: &[Vec2], p: Vec2) -> f32 {
    let mut walked = 0.0;
    for w in points.windows(2) {
        let seg = w[1] - w[0];
        let len = seg.length();
        if len > 0.0 {
            let t = ((p - w[0]).dot(seg) / (len * len)).clamp(0.0, 1.0);
            if (w[0] + seg * t - p).length() < 1e-4 {
                return walked + t * len;
            }
        }
        walked += len;
    }
    panic!("{p} is not on the path");
}

#[test]
fn length_is_the_sum_of_segments() {
    let pts = irregular();
    let path = ArcLengthPath::new(&pts).unwrap();
    let want: f32 = pts.windows(2).map(|w| w[0].distance(w[1])).sum();
    assert_approx!(path.length(), want, 1e-5);
    assert_approx!(
        path.length(),
        5.0 + 0.1 + 0.05 + 0.111_803_4 + 3.9 + 5.161_395,
        1e-4
    );
}

#[test]
fn equal_times_give_equal_distances_on_an_irregular_polyline() {
    let pts = irregular();
    let path = ArcLengthPath::new(&pts).unwrap();
    let mut a: Animator = Animator::default();
    a.register("progress", &[0.0]).unwrap();
    a.tween_to("progress", &[1.0], 2.0, Easing::Linear).unwrap();
    let mut along = vec![0.0];
    for _ in 0..40 {
        a.tick(0.05);
        let p = path.sample_at_fraction(a.scalar("progress").unwrap());
        along.push(arc_position(&pts, p));
    }
    let step = path.length() / 40.0;
    for w in along.windows(2) {
        assert_approx!(w[1] - w[0], step, 1e-4, "{} vs {step}", w[1] - w[0]);
    }
    // Indexing vertices instead would be wildly uneven: one segment per 1/7 of the time.
    let naive = |f: f32| {
        let x = f * 7.0;
        let i = (x.floor() as usize).min(6);
        pts[i].lerp(pts[i + 1], x - i as f32)
    };
    let d1 = naive(1.0 / 7.0).distance(naive(0.0));
    let d2 = naive(3.0 / 7.0).distance(naive(2.0 / 7.0));
    assert!(d1 / d2 > 40.0);
}

#[test]
fn sampling_by_distance_interpolates_and_clamps() {
    let path = ArcLengthPath::new(&irregular()).unwrap();
    assert_eq!(path.sample_at_distance(0.0), Vec2::ZERO);
    assert_eq!(path.sample_at_distance(2.5), Vec2::new(2.5, 0.0));
    assert_eq!(path.sample_at_distance(-3.0), Vec2::ZERO);
    assert_eq!(path.sample_at_distance(f32::NAN), Vec2::ZERO);
    assert_approx!(path.sample_at_distance(1e6), Vec2::new(1.0, 7.0), 1e-6);
    assert_approx!(path.sample_at_fraction(1.0), Vec2::new(1.0, 7.0), 1e-5);
    assert_eq!(path.segment_at_distance(2.5), 0);
    assert_eq!(path.segment_at_distance(7.0), 5);
}

#[test]
fn three_dimensional_and_degenerate_paths() {
    let path = ArcLengthPath::new(&[Vec3::ZERO, Vec3::new(0.0, 3.0, 4.0)]).unwrap();
    assert_eq!(path.length(), 5.0);
    assert_approx!(path.sample_at_fraction(0.5), Vec3::new(0.0, 1.5, 2.0), 1e-6);

    let single = ArcLengthPath::new(&[Vec2::ONE]).unwrap();
    assert_eq!(single.length(), 0.0);
    assert_eq!(single.sample_at_fraction(0.7), Vec2::ONE);

    let still = ArcLengthPath::new(&[Vec2::ONE, Vec2::ONE]).unwrap();
    assert_eq!(still.sample_at_fraction(0.5), Vec2::ONE);

    assert_eq!(
        ArcLengthPath::<Vec2>::new(&[]).unwrap_err(),
        PathError::Empty
    );
    let err = ArcLengthPath::new(&[Vec2::ZERO, Vec2::new(f32::NAN, 0.0)]).unwrap_err();
    assert_eq!(err, PathError::NotFinite(1));
    assert_eq!(
        err.to_string(),
        "path point 1 has a NaN or infinite coordinate"
    );
}

//! Keyframe reduction: keep only the frames that linear interpolation between their kept
//! neighbours cannot reproduce within a distance, so slow clips cost fewer texture rows.

use glam::Vec3;

/// Greedy reduction over one clip's frames (`vertex_count` values each, at `times`).
///
/// From each kept frame the next kept one is pushed as far as every frame in between stays
/// within `max_error` (Euclidean, per vertex) of the lerp between the two. The first and last
/// frames are always kept. Returns the kept frame indices and the largest error of a dropped
/// frame (0 when nothing was dropped).
pub fn reduce_frames(
    values: &[Vec3],
    vertex_count: usize,
    times: &[f32],
    max_error: f32,
) -> (Vec<u32>, f32) {
    let n = times.len();
    if n <= 2 || vertex_count == 0 {
        return ((0..n as u32).collect(), 0.0);
    }
    let frame = |i: usize| &values[i * vertex_count..(i + 1) * vertex_count];
    let mut kept = vec![0u32];
    let mut worst = 0.0f32;
    let mut a = 0usize;
    while a < n - 1 {
        let mut b = a + 1;
        let mut b_err = 0.0f32;
        // Extend while the longer span still fits; stop at the first span that does not
        // (errors grow with the span for any motion that is not piecewise linear).
        while b + 1 < n {
            match span_error(&frame, times, a, b + 1, max_error) {
                Some(e) => {
                    b += 1;
                    b_err = e;
                }
                None => break,
            }
        }
        worst = worst.max(b_err);
        kept.push(b as u32);
        a = b;
    }
    (kept, worst)
}

/// Largest distance between the frames strictly inside (a, b) and their interpolation, or
/// `None` as soon as one exceeds `limit`.
fn span_error<'a>(
    frame: &impl Fn(usize) -> &'a [Vec3],
    times: &[f32],
    a: usize,
    b: usize,
    limit: f32,
) -> Option<f32> {
    let (fa, fb) = (frame(a), frame(b));
    let span = times[b] - times[a];
    let mut worst = 0.0f32;
    for k in a + 1..b {
        let s = if span > 0.0 {
            (times[k] - times[a]) / span
        } else {
            0.0
        };
        for ((pa, pb), pk) in fa.iter().zip(fb).zip(frame(k)) {
            let d = pa.lerp(*pb, s).distance(*pk);
            if d > limit {
                return None;
            }
            worst = worst.max(d);
        }
    }
    Some(worst)
}

/// Interpolates stored frames at clip time `t` (clamped to the stored times): the runtime's
/// rule, shared with tests. Returns (stored frame a, stored frame b, factor).
pub fn bracket(times: &[f32], t: f32) -> (usize, usize, f32) {
    crate::anim::sample::locate(times, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(f: impl Fn(f32) -> Vec3, n: usize) -> (Vec<Vec3>, Vec<f32>) {
        let times: Vec<f32> = (0..n).map(|i| i as f32 / 10.0).collect();
        (times.iter().map(|&t| f(t)).collect(), times)
    }

    #[test]
    fn linear_motion_keeps_only_the_ends() {
        let (v, t) = clip(|t| Vec3::new(t * 2.0, 1.0, -t), 11);
        let (kept, err) = reduce_frames(&v, 1, &t, 1e-4);
        assert_eq!(kept, vec![0, 10]);
        assert!(err < 1e-5, "{err}");
    }

    #[test]
    fn curved_motion_stays_within_the_limit_and_keeps_ends() {
        let (v, t) = clip(|t| Vec3::new((t * 6.0).sin(), (t * 3.0).cos(), 0.0), 31);
        for limit in [0.001f32, 0.01, 0.1] {
            let (kept, err) = reduce_frames(&v, 1, &t, limit);
            assert_eq!(kept.first(), Some(&0));
            assert_eq!(kept.last(), Some(&30));
            assert!(err <= limit);
            let kt: Vec<f32> = kept.iter().map(|&k| t[k as usize]).collect();
            for (i, &ti) in t.iter().enumerate() {
                let (a, b, s) = bracket(&kt, ti);
                let p = v[kept[a] as usize].lerp(v[kept[b] as usize], s);
                assert!(
                    p.distance(v[i]) <= limit * 1.0001,
                    "limit {limit} frame {i}"
                );
            }
        }
        // A tighter limit can only keep more frames.
        let n1 = reduce_frames(&v, 1, &t, 0.001).0.len();
        let n2 = reduce_frames(&v, 1, &t, 0.1).0.len();
        assert!(n1 > n2 && n2 >= 2, "{n1} {n2}");
    }
}

//! Plane geometry of polygons: area and containment, clipping by a convex polygon, bisector
//! cuts and segment crossings. Shared by level validation, the level overlay and the
//! measurements. Points are `(x, z)`.

use glam::Vec2;

/// The area of a simple polygon, either winding (shoelace formula).
pub fn polygon_area(points: &[Vec2]) -> f32 {
    signed_area(points).abs()
}

/// Positive for a counter-clockwise polygon (+x right, +z up).
pub fn signed_area(points: &[Vec2]) -> f32 {
    let n = points.len();
    if n < 3 {
        return 0.0;
    }
    let twice: f32 = (0..n)
        .map(|i| points[i].perp_dot(points[(i + 1) % n]))
        .sum();
    twice * 0.5
}

/// Whether `p` lies inside a simple polygon (even-odd rule; a point on an edge may go either
/// way, as in any ray-casting test).
pub fn polygon_contains(points: &[Vec2], p: Vec2) -> bool {
    let n = points.len();
    let mut inside = false;
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (a, b) = (points[i], points[j]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// The axis-aligned box round a polygon: (min, max).
pub fn polygon_bounds(points: &[Vec2]) -> (Vec2, Vec2) {
    points.iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    )
}

/// Keeps the part of `subject` on the inner side of the line through `a` towards `b` (the
/// left side, counter-clockwise): one Sutherland-Hodgman stage.
fn clip_half_plane(subject: &[Vec2], a: Vec2, b: Vec2, out: &mut Vec<Vec2>) {
    out.clear();
    let edge = b - a;
    let side = |p: Vec2| edge.perp_dot(p - a);
    let n = subject.len();
    for i in 0..n {
        let (p, q) = (subject[i], subject[(i + 1) % n]);
        let (sp, sq) = (side(p), side(q));
        if sp >= 0.0 {
            out.push(p);
        }
        if (sp >= 0.0) != (sq >= 0.0) {
            out.push(p + (q - p) * (sp / (sp - sq)));
        }
    }
}

/// The part of any simple polygon `subject` inside the convex, counter-clockwise `clip`
/// (Sutherland-Hodgman: exact in area for a concave subject, which may come back with
/// zero-width bridges along the clip's edges that add nothing to the area).
pub fn clip_by_convex(subject: &[Vec2], clip: &[Vec2]) -> Vec<Vec2> {
    let mut current = subject.to_vec();
    let mut next = Vec::with_capacity(subject.len() + clip.len());
    let n = clip.len();
    for i in 0..n {
        if current.is_empty() {
            break;
        }
        clip_half_plane(&current, clip[i], clip[(i + 1) % n], &mut next);
        std::mem::swap(&mut current, &mut next);
    }
    current
}

/// Keeps the part of the convex counter-clockwise `cell` nearer to `site` than to `other`
/// (the half-plane of their bisector): how a Voronoi cell is cut by one neighbour.
pub fn cut_towards(cell: &mut Vec<Vec2>, site: Vec2, other: Vec2, scratch: &mut Vec<Vec2>) {
    let mid = (site + other) * 0.5;
    // The bisector runs along `(other - site).perp()`; `site` lies on its left.
    clip_half_plane(cell, mid, mid + (other - site).perp(), scratch);
    std::mem::swap(cell, scratch);
}

/// A regular polygon approximating a circle (counter-clockwise): Voronoi cells are cut to it
/// so a lone person's cell stays finite (PedPy's `cut_off`).
pub fn circle_polygon(center: Vec2, radius: f32, corners: usize) -> Vec<Vec2> {
    (0..corners)
        .map(|k| {
            let a = k as f32 / corners as f32 * std::f32::consts::TAU;
            center + radius * Vec2::new(a.cos(), a.sin())
        })
        .collect()
}

/// The length of the segment `a`–`b` that lies inside a simple polygon (either winding,
/// concave allowed): the segment is split where it crosses the polygon's edges and each piece
/// whose midpoint is inside counts. What shapely's `length(intersection(polygon, line))` gives
/// PedPy, except for a segment running exactly along an edge, which shapely counts for the
/// polygons on both sides and this may count for either.
pub fn segment_length_inside(polygon: &[Vec2], a: Vec2, b: Vec2) -> f32 {
    let d = b - a;
    let n = polygon.len();
    if n < 3 || d == Vec2::ZERO {
        return 0.0;
    }
    let mut cuts = vec![0.0f32, 1.0];
    for i in 0..n {
        let (p, q) = (polygon[i], polygon[(i + 1) % n]);
        let e = q - p;
        let denom = d.perp_dot(e);
        // Parallel edges meet the segment nowhere or along a stretch whose ends are other
        // edges' crossings: no cut of their own.
        if denom == 0.0 {
            continue;
        }
        let t = (p - a).perp_dot(e) / denom;
        let u = (p - a).perp_dot(d) / denom;
        if (0.0..=1.0).contains(&u) && t > 0.0 && t < 1.0 {
            cuts.push(t);
        }
    }
    cuts.sort_by(f32::total_cmp);
    let inside: f32 = cuts
        .windows(2)
        .filter(|w| w[1] > w[0] && polygon_contains(polygon, a + d * (0.5 * (w[0] + w[1]))))
        .map(|w| w[1] - w[0])
        .sum();
    inside * d.length()
}

/// Where a move from `p0` to `p1` crosses the segment `a`–`b`: +1 crossing towards the
/// segment's forward side (`(b - a).perp()`), -1 the other way, 0 no crossing. A move that
/// ends exactly on the line counts, one that starts on it does not, so a person standing on
/// the line is counted once when they step off forward and never twice.
pub fn crossing(a: Vec2, b: Vec2, p0: Vec2, p1: Vec2) -> i8 {
    let d = b - a;
    let s0 = d.perp_dot(p0 - a);
    let s1 = d.perp_dot(p1 - a);
    let sign = if s0 < 0.0 && s1 >= 0.0 {
        1
    } else if s0 >= 0.0 && s1 < 0.0 {
        -1
    } else {
        return 0;
    };
    // Where the move meets the line, as a fraction along the segment.
    let m = p1 - p0;
    let denom = d.perp_dot(m);
    if denom == 0.0 {
        return 0;
    }
    let t = (p0 - a).perp_dot(m) / denom;
    if (0.0..=1.0).contains(&t) {
        sign
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(lo: f32, hi: f32) -> Vec<Vec2> {
        vec![
            Vec2::new(lo, lo),
            Vec2::new(hi, lo),
            Vec2::new(hi, hi),
            Vec2::new(lo, hi),
        ]
    }

    /// An L: a 2 x 2 square less its top-right 1 x 1 quarter.
    fn l_shape() -> [Vec2; 6] {
        [
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 2.0),
            Vec2::new(0.0, 2.0),
        ]
    }

    #[test]
    fn area_and_containment_of_a_concave_polygon() {
        let l = l_shape();
        assert_eq!(polygon_area(&l), 3.0);
        let mut reversed = l.to_vec();
        reversed.reverse();
        assert_eq!(polygon_area(&reversed), 3.0);
        assert!(polygon_contains(&l, Vec2::new(0.5, 1.5)));
        assert!(!polygon_contains(&l, Vec2::new(1.5, 1.5)));
        assert!(!polygon_contains(&l, Vec2::new(-0.1, 0.5)));
    }

    #[test]
    fn clipping_a_concave_polygon_keeps_its_exact_area() {
        let l = l_shape();
        // The square from (0.5, 0.5) to (1.5, 1.5) overlaps the L in three quarters of itself.
        let part = clip_by_convex(&l, &square(0.5, 1.5));
        assert!((polygon_area(&part) - 0.75).abs() < 1e-6);
        assert!(clip_by_convex(&l, &square(5.0, 6.0)).is_empty());
    }

    #[test]
    fn a_bisector_cut_keeps_the_sites_half() {
        let mut cell = square(-1.0, 1.0);
        let mut scratch = Vec::new();
        cut_towards(&mut cell, Vec2::ZERO, Vec2::new(1.0, 0.0), &mut scratch);
        assert!(
            (polygon_area(&cell) - 3.0).abs() < 1e-6,
            "x <= 0.5 of the square"
        );
        assert!(polygon_contains(&cell, Vec2::new(0.4, 0.0)));
        assert!(!polygon_contains(&cell, Vec2::new(0.6, 0.0)));
    }

    #[test]
    fn the_part_of_a_segment_inside_a_polygon() {
        let sq = square(0.0, 2.0);
        // Across the square: 2 m of it inside, whichever way it runs.
        let across = segment_length_inside(&sq, Vec2::new(-1.0, 1.0), Vec2::new(3.0, 1.0));
        assert!((across - 2.0).abs() < 1e-6, "{across}");
        let back = segment_length_inside(&sq, Vec2::new(3.0, 1.0), Vec2::new(-1.0, 1.0));
        assert!((back - 2.0).abs() < 1e-6, "{back}");
        // Starting inside, ending outside; wholly inside; wholly outside.
        let out = segment_length_inside(&sq, Vec2::new(0.5, 1.0), Vec2::new(5.0, 1.0));
        assert!((out - 1.5).abs() < 1e-6, "{out}");
        let inner = segment_length_inside(&sq, Vec2::new(0.5, 0.5), Vec2::new(1.5, 1.5));
        assert!((inner - 2f32.sqrt()).abs() < 1e-6, "{inner}");
        assert_eq!(
            segment_length_inside(&sq, Vec2::new(3.0, 0.0), Vec2::new(3.0, 2.0)),
            0.0
        );
        // Through both arms of an L (a 2 x 2 square less its top-right quarter): the notch
        // between them is left out.
        let l = l_shape();
        let diagonal = segment_length_inside(&l, Vec2::new(0.0, 2.5), Vec2::new(2.5, 0.0));
        // Enters the top arm at (0.5, 2) .. leaves at (1, 1.5); enters the right arm at
        // (1.5, 1) .. leaves at (2, 0.5): two pieces of √0.5 each.
        assert!((diagonal - 2.0 * 0.5f32.sqrt()).abs() < 1e-5, "{diagonal}");
    }

    #[test]
    fn crossings_count_each_way_once() {
        let (a, b) = (Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0));
        // Forward is +z for a line drawn towards +x.
        assert_eq!(crossing(a, b, Vec2::new(1.0, -0.1), Vec2::new(1.0, 0.1)), 1);
        assert_eq!(
            crossing(a, b, Vec2::new(1.0, 0.1), Vec2::new(1.0, -0.1)),
            -1
        );
        // Past the segment's end: no crossing.
        assert_eq!(crossing(a, b, Vec2::new(3.0, -0.1), Vec2::new(3.0, 0.1)), 0);
        // Onto the line and off it again, forward: one crossing in all.
        let on = Vec2::new(1.0, 0.0);
        let steps = [Vec2::new(1.0, -0.1), on, Vec2::new(1.0, 0.1)];
        let total: i8 = steps.windows(2).map(|w| crossing(a, b, w[0], w[1])).sum();
        assert_eq!(total, 1);
        assert_eq!(
            crossing(a, b, Vec2::new(1.0, 0.1), Vec2::new(1.0, 0.2)),
            0,
            "a move on one side"
        );
    }
}

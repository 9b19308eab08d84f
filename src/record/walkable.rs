//! The walkable area as WKT for the JuPedSim file's `geometry` table: the level's bounds
//! rectangle with the obstacles' footprints as holes.
//!
//! Kept simple so the polygon is always valid for shapely (PedPy's `WalkableArea`): a footprint
//! becomes a hole only when it lies fully inside the bounds (not touching them) and does not
//! touch or overlap a hole already taken (level order). Obstacles that overlap each other or
//! the bounds' edge (walls along the edge, say) are left walkable in the file; the crowd still
//! avoids them. Circles are written as 32-gons through their rim.

use glam::Vec2;

use crate::footprint::{box_to_world, Shape};
use crate::level::Level;

/// Sides of the polygon a circular footprint is written as.
pub const CIRCLE_SIDES: usize = 32;
/// How far inside the bounds a hole must stay (m).
const MARGIN: f32 = 1e-3;

/// A footprint's outline, counter-clockwise seen with x right and z up; convex.
pub fn footprint_polygon(shape: &Shape) -> Vec<Vec2> {
    match *shape {
        Shape::Circle { center, radius } => (0..CIRCLE_SIDES)
            .map(|i| {
                let a = i as f32 / CIRCLE_SIDES as f32 * std::f32::consts::TAU;
                center + radius * Vec2::new(a.cos(), a.sin())
            })
            .collect(),
        Shape::Box {
            center,
            half_extents,
            angle_deg,
        } => [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|&(sx, sy)| center + box_to_world(angle_deg, half_extents * Vec2::new(sx, sy)))
            .collect(),
    }
}

/// True when two convex polygons touch or overlap (no separating axis among their edges'
/// normals with a gap).
fn convex_touch(a: &[Vec2], b: &[Vec2]) -> bool {
    for poly in [a, b] {
        for i in 0..poly.len() {
            let edge = poly[(i + 1) % poly.len()] - poly[i];
            let axis = edge.perp();
            if axis.length_squared() < 1e-12 {
                continue;
            }
            let span = |p: &[Vec2]| {
                p.iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
                        let d = axis.dot(*v);
                        (lo.min(d), hi.max(d))
                    })
            };
            let (alo, ahi) = span(a);
            let (blo, bhi) = span(b);
            if ahi < blo || bhi < alo {
                return false;
            }
        }
    }
    true
}

/// The holes the walkable area gets (see the module's note on which).
pub fn holes(level: &Level) -> Vec<Vec<Vec2>> {
    let (lo, hi) = (
        level.bounds.min + Vec2::splat(MARGIN),
        level.bounds.max - Vec2::splat(MARGIN),
    );
    let mut taken: Vec<Vec<Vec2>> = Vec::new();
    for obstacle in &level.obstacles {
        let poly = footprint_polygon(&obstacle.shape);
        let inside = poly
            .iter()
            .all(|p| p.is_finite() && p.cmpgt(lo).all() && p.cmplt(hi).all());
        if inside && !taken.iter().any(|t| convex_touch(t, &poly)) {
            taken.push(poly);
        }
    }
    taken
}

fn ring(points: &[Vec2]) -> String {
    let mut s = String::from("(");
    for p in points.iter().chain(points.first()) {
        if s.len() > 1 {
            s.push_str(", ");
        }
        s.push_str(&format!("{} {}", p.x, p.y));
    }
    s.push(')');
    s
}

/// `POLYGON ((bounds), (hole), ...)` in game (x, z) as WKT (x, y).
pub fn walkable_wkt(level: &Level) -> String {
    let (a, b) = (level.bounds.min, level.bounds.max);
    let outer = [a, Vec2::new(b.x, a.y), b, Vec2::new(a.x, b.y)];
    let mut rings = vec![ring(&outer)];
    rings.extend(holes(level).iter().map(|h| ring(h)));
    format!("POLYGON ({})", rings.join(", "))
}

/// The `geometry_hash` the file gives the area: FNV-1a of its WKT, kept positive for SQLite's
/// signed integers.
pub fn wkt_hash(wkt: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in wkt.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h >> 1) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_and_apart_convex_polygons() {
        let sq = |c: Vec2| {
            footprint_polygon(&Shape::Box {
                center: c,
                half_extents: Vec2::ONE,
                angle_deg: 0.0,
            })
        };
        assert!(convex_touch(&sq(Vec2::ZERO), &sq(Vec2::new(1.5, 0.0))));
        assert!(convex_touch(&sq(Vec2::ZERO), &sq(Vec2::new(2.0, 0.0))));
        assert!(!convex_touch(&sq(Vec2::ZERO), &sq(Vec2::new(2.1, 0.0))));
        let turned = footprint_polygon(&Shape::Box {
            center: Vec2::new(2.3, 2.3),
            half_extents: Vec2::ONE,
            angle_deg: 45.0,
        });
        // Bounding boxes overlap, the shapes do not.
        assert!(!convex_touch(&sq(Vec2::ZERO), &turned));
        assert_eq!(
            ring(&[Vec2::ZERO, Vec2::X, Vec2::Y]),
            "(0 0, 1 0, 0 1, 0 0)"
        );
    }
}

//! The level's obstacles for per-agent queries, precomputed on 1 m tiles: each tile keeps the
//! distance from its centre to the nearest obstacle (a coarse distance field) and the few shapes
//! that can reach into it. An agent on a tile far from every obstacle — most of them, on an open
//! plaza — skips obstacles with one load; near one, only the shapes listed for its tile are
//! measured exactly, so push-out stays exact on box corners (a sampled field would round them).

use glam::Vec2;

use crate::footprint::{box_signed_distance, circle_signed_distance};
use crate::level::{Level, Shape};

/// Tile edge in metres: small enough that a tile near a wall lists one or two shapes.
const TILE: f32 = 1.0;
/// Tiles per side at most; larger levels get larger tiles.
const MAX_TILES_PER_SIDE: usize = 1024;

/// A shape with its rotation worked out once, not per query (`Shape::signed_distance` takes a
/// sine and cosine per call); the same arithmetic, so the same distances.
#[derive(Debug, Clone, Copy)]
enum Footprint {
    Circle {
        center: Vec2,
        radius: f32,
    },
    Box {
        center: Vec2,
        half_extents: Vec2,
        to_box: Vec2,
        to_world: Vec2,
    },
}

impl Footprint {
    fn new(shape: &Shape) -> Self {
        match *shape {
            Shape::Circle { center, radius } => Footprint::Circle { center, radius },
            Shape::Box {
                center,
                half_extents,
                angle_deg,
            } => Footprint::Box {
                center,
                half_extents,
                to_box: Vec2::from_angle(angle_deg.to_radians()),
                to_world: Vec2::from_angle(-angle_deg.to_radians()),
            },
        }
    }

    /// Signed distance from `p` to the edge (negative inside) and the outward normal, as
    /// `Shape::signed_distance`.
    #[inline]
    fn signed_distance(&self, p: Vec2) -> (f32, Vec2) {
        match *self {
            Footprint::Circle { center, radius } => circle_signed_distance(p - center, radius),
            Footprint::Box {
                center,
                half_extents,
                to_box,
                to_world,
            } => {
                let (dist, n_local) = box_signed_distance(to_box.rotate(p - center), half_extents);
                (dist, to_world.rotate(n_local))
            }
        }
    }
}

pub struct ObstacleField {
    shapes: Vec<Footprint>,
    origin: Vec2,
    tile: f32,
    inv_tile: f32,
    cols: usize,
    rows: usize,
    /// Distance from each tile's centre to the nearest obstacle edge, capped at `margin` plus a
    /// tile (all that matters).
    clearance: Vec<f32>,
    /// `starts[t]..starts[t + 1]` indexes `items` for tile t: the shapes within `margin` of it.
    starts: Vec<u32>,
    items: Vec<u16>,
}

impl ObstacleField {
    /// `margin`: how far from an obstacle an agent still needs to know about it.
    pub fn new(level: &Level, margin: f32) -> Self {
        let min = level.bounds.min;
        let size = level.bounds.size().max(Vec2::splat(TILE));
        let tile = TILE.max(size.x.max(size.y) / MAX_TILES_PER_SIDE as f32);
        let cols = ((size.x / tile).ceil() as usize).clamp(1, MAX_TILES_PER_SIDE);
        let rows = ((size.y / tile).ceil() as usize).clamp(1, MAX_TILES_PER_SIDE);
        let shapes: Vec<Shape> = level
            .obstacles
            .iter()
            .map(|o| o.shape)
            .take(u16::MAX as usize)
            .collect();
        let margin = if margin.is_finite() {
            margin.max(0.0)
        } else {
            2.0
        };
        let half_diagonal = tile * std::f32::consts::FRAC_1_SQRT_2;
        // A tile outside every shape's reach below is farther than this from all of them.
        let mut clearance = vec![margin + tile; cols * rows];
        let mut lists: Vec<Vec<u16>> = vec![Vec::new(); cols * rows];
        for (i, s) in shapes.iter().enumerate() {
            let c = s.center();
            let r = s.bounding_radius() + margin + tile;
            let lo = ((c - Vec2::splat(r) - min) / tile).floor().max(Vec2::ZERO);
            let hi = ((c + Vec2::splat(r) - min) / tile).ceil();
            for y in lo.y as usize..(hi.y.max(0.0) as usize).min(rows) {
                for x in lo.x as usize..(hi.x.max(0.0) as usize).min(cols) {
                    let centre = min + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * tile;
                    let d = s.signed_distance(centre).0;
                    let t = y * cols + x;
                    clearance[t] = clearance[t].min(d);
                    // Any point of the tile is within half a diagonal of its centre.
                    if d - half_diagonal < margin {
                        lists[t].push(i as u16);
                    }
                }
            }
        }
        let mut starts = Vec::with_capacity(cols * rows + 1);
        let mut items = Vec::new();
        starts.push(0);
        for list in &lists {
            items.extend_from_slice(list);
            starts.push(items.len() as u32);
        }
        ObstacleField {
            shapes: shapes.iter().map(Footprint::new).collect(),
            origin: min,
            tile,
            inv_tile: 1.0 / tile,
            cols,
            rows,
            clearance,
            starts,
            items,
        }
    }

    /// The tile under `p`; positions off the field go to its edge, NaN to tile 0 (`as`
    /// saturates). Converting through i32 takes one instruction, through usize several.
    #[inline]
    fn tile_of(&self, p: Vec2) -> Option<usize> {
        let q = (p - self.origin) * self.inv_tile;
        let x = q.x.clamp(0.0, (self.cols - 1) as f32) as i32 as usize;
        let y = q.y.clamp(0.0, (self.rows - 1) as f32) as i32 as usize;
        Some(y * self.cols + x)
    }

    /// The shapes that can be within `margin` of `p`, in level order.
    fn near(&self, p: Vec2) -> &[u16] {
        match self.tile_of(p) {
            Some(t) => &self.items[self.starts[t] as usize..self.starts[t + 1] as usize],
            None => &[],
        }
    }

    /// A lower bound of the distance from `p` to the nearest obstacle edge: the coarse field at
    /// `p`'s tile minus half a tile diagonal (exact distances need `for_each_near`).
    pub fn clearance_at_least(&self, p: Vec2) -> f32 {
        self.tile_of(p).map_or(0.0, |t| {
            self.clearance[t] - self.tile * std::f32::consts::FRAC_1_SQRT_2
        })
    }

    /// Calls `f(distance, normal)` for each obstacle that may be within `margin` of `p`.
    pub fn for_each_near(&self, p: Vec2, mut f: impl FnMut(f32, Vec2)) {
        for &i in self.near(p) {
            let (d, n) = self.shapes[i as usize].signed_distance(p);
            f(d, n);
        }
    }

    /// Pushes a disc of `radius` (at most `margin`) at `p` out of every obstacle it overlaps.
    pub fn resolve(&self, mut p: Vec2, radius: f32) -> Vec2 {
        if self.clearance_at_least(p) >= radius {
            return p;
        }
        // A second pass settles corners where two obstacles meet; it is needed only if the
        // first moved the disc.
        for _ in 0..2 {
            let mut moved = false;
            for &i in self.near(p) {
                let (d, n) = self.shapes[i as usize].signed_distance(p);
                if d < radius {
                    p += n * (radius - d);
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        p
    }

    /// True when a disc of `radius` at `p` overlaps no obstacle.
    pub fn is_free(&self, p: Vec2, radius: f32) -> bool {
        self.clearance_at_least(p) >= radius
            || self
                .near(p)
                .iter()
                .all(|&i| self.shapes[i as usize].signed_distance(p).0 >= radius)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprints_measure_exactly_as_the_level_shapes() {
        let shapes = [
            Shape::Circle {
                center: Vec2::new(1.0, -2.0),
                radius: 1.5,
            },
            Shape::Box {
                center: Vec2::new(-3.0, 4.0),
                half_extents: Vec2::new(2.0, 0.4),
                angle_deg: 33.0,
            },
        ];
        let mut rng = fastrand::Rng::with_seed(9);
        for s in &shapes {
            let f = Footprint::new(s);
            for _ in 0..1000 {
                let p = Vec2::new(rng.f32() * 16.0 - 8.0, rng.f32() * 16.0 - 6.0);
                assert_eq!(f.signed_distance(p), s.signed_distance(p), "{p}");
            }
        }
    }

    #[test]
    fn signed_distances_of_circles_and_turned_boxes() {
        let c = Shape::Circle {
            center: Vec2::new(1.0, 1.0),
            radius: 2.0,
        };
        let (d, n) = c.signed_distance(Vec2::new(4.0, 1.0));
        assert!((d - 1.0).abs() < 1e-6 && (n - Vec2::X).length() < 1e-6);
        let b = Shape::Box {
            center: Vec2::ZERO,
            half_extents: Vec2::new(2.0, 1.0),
            angle_deg: 90.0,
        };
        // Turned 90°: its long axis runs along z.
        let (d, _) = b.signed_distance(Vec2::new(0.0, 3.0));
        assert!((d - 1.0).abs() < 1e-5, "{d}");
        let (d, n) = b.signed_distance(Vec2::new(0.5, 0.0));
        assert!((d + 0.5).abs() < 1e-5, "{d}");
        assert!((n - Vec2::X).length() < 1e-5, "{n}");
        let (d, n) = b.signed_distance(Vec2::new(3.0, 4.0));
        assert!((d - 8f32.sqrt()).abs() < 1e-4, "{d}");
        assert!((n - Vec2::new(2.0, 2.0).normalize()).length() < 1e-4);
    }

    /// The tiles must list every shape a brute-force search finds within the margin, and the
    /// coarse field must never claim more clearance than there is.
    #[test]
    fn tiles_find_what_brute_force_finds_and_the_field_is_conservative() {
        let src = include_str!("../../levels/plaza.ron");
        let level: Level = ron::from_str(src).expect("plaza parses");
        let field = ObstacleField::new(&level, 2.0);
        let mut rng = fastrand::Rng::with_seed(3);
        let (min, size) = (level.bounds.min, level.bounds.size());
        for _ in 0..20_000 {
            let p = min + Vec2::new(rng.f32(), rng.f32()) * size;
            let mut listed = Vec::new();
            field.for_each_near(p, |d, _| listed.push(d));
            let exact: Vec<f32> = level
                .obstacles
                .iter()
                .map(|o| o.shape.signed_distance(p).0)
                .collect();
            let within: Vec<f32> = exact.iter().copied().filter(|&d| d < 2.0).collect();
            for d in &within {
                assert!(listed.contains(d), "{p}: shape at {d} m not listed");
            }
            let nearest = exact.iter().copied().fold(f32::MAX, f32::min);
            assert!(field.clearance_at_least(p) <= nearest + 1e-4, "{p}");
            assert_eq!(field.is_free(p, 0.2), nearest >= 0.2, "{p}");
        }
    }
}

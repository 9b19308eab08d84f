//! The level's obstacles as signed-distance queries, bucketed in a coarse grid so an agent only
//! tests the few obstacles near it.

use glam::Vec2;

use crate::level::{Level, Shape};

pub struct ObstacleField {
    shapes: Vec<Shape>,
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    buckets: Vec<Vec<u16>>,
}

impl ObstacleField {
    /// `margin`: how far from an obstacle an agent still needs to know about it.
    pub fn new(level: &Level, margin: f32) -> Self {
        let cell = 8.0;
        let min = level.bounds.min;
        let size = level.bounds.size().max(Vec2::splat(cell));
        let cols = ((size.x / cell).ceil() as usize).clamp(1, 1024);
        let rows = ((size.y / cell).ceil() as usize).clamp(1, 1024);
        let mut buckets = vec![Vec::new(); cols * rows];
        let shapes: Vec<Shape> = level.obstacles.iter().map(|o| o.shape).collect();
        for (i, s) in shapes.iter().enumerate().take(u16::MAX as usize) {
            let c = s.center();
            let r = s.bounding_radius() + margin;
            let lo = ((c - Vec2::splat(r) - min) / cell).floor();
            let hi = ((c + Vec2::splat(r) - min) / cell).floor();
            for y in (lo.y.max(0.0) as usize)..=(hi.y.max(0.0) as usize).min(rows - 1) {
                for x in (lo.x.max(0.0) as usize)..=(hi.x.max(0.0) as usize).min(cols - 1) {
                    buckets[y * cols + x].push(i as u16);
                }
            }
        }
        ObstacleField {
            shapes,
            origin: min,
            cell,
            cols,
            rows,
            buckets,
        }
    }

    fn bucket(&self, p: Vec2) -> &[u16] {
        let q = (p - self.origin) / self.cell;
        if !q.is_finite() {
            return &[];
        }
        let x = (q.x.max(0.0) as usize).min(self.cols - 1);
        let y = (q.y.max(0.0) as usize).min(self.rows - 1);
        &self.buckets[y * self.cols + x]
    }

    /// Calls `f(distance, normal)` for each obstacle near `p`.
    pub fn for_each_near(&self, p: Vec2, mut f: impl FnMut(f32, Vec2)) {
        for &i in self.bucket(p) {
            let (d, n) = self.shapes[i as usize].signed_distance(p);
            f(d, n);
        }
    }

    /// Pushes a disc of `radius` at `p` out of every obstacle it overlaps.
    pub fn resolve(&self, mut p: Vec2, radius: f32) -> Vec2 {
        // Two passes settle corners where two obstacles meet.
        for _ in 0..2 {
            for &i in self.bucket(p) {
                let (d, n) = self.shapes[i as usize].signed_distance(p);
                if d < radius {
                    p += n * (radius - d);
                }
            }
        }
        p
    }

    /// True when a disc of `radius` at `p` overlaps no obstacle.
    pub fn is_free(&self, p: Vec2, radius: f32) -> bool {
        self.bucket(p)
            .iter()
            .all(|&i| self.shapes[i as usize].signed_distance(p).0 >= radius)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! Uniform spatial grid rebuilt every step by counting sort: O(N) to build, and a neighbour query
//! touches only the 3x3 cells around a point, so it costs O(neighbours), not O(N).

use glam::Vec2;

pub struct SpatialGrid {
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    /// `starts[c]..starts[c + 1]` indexes `items` for cell c.
    starts: Vec<u32>,
    items: Vec<u32>,
    cell_of: Vec<u32>,
}

impl SpatialGrid {
    /// A grid over `min..max` with square cells of `cell` metres (at least the query radius).
    pub fn new(min: Vec2, max: Vec2, cell: f32) -> Self {
        let cell = if cell.is_finite() && cell > 0.05 {
            cell
        } else {
            1.0
        };
        let size = (max - min).max(Vec2::splat(cell));
        let cols = ((size.x / cell).ceil() as usize).clamp(1, 4096);
        let rows = ((size.y / cell).ceil() as usize).clamp(1, 4096);
        SpatialGrid {
            origin: min,
            cell: (size.x / cols as f32).max(size.y / rows as f32).max(cell),
            cols,
            rows,
            starts: vec![0; cols * rows + 1],
            items: Vec::new(),
            cell_of: Vec::new(),
        }
    }

    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    fn cell_coords(&self, p: Vec2) -> (usize, usize) {
        let q = (p - self.origin) / self.cell;
        // Positions outside the grid (never expected: agents are clamped to bounds) go to the edge.
        let cx = if q.x.is_finite() {
            q.x.max(0.0) as usize
        } else {
            0
        };
        let cy = if q.y.is_finite() {
            q.y.max(0.0) as usize
        } else {
            0
        };
        (cx.min(self.cols - 1), cy.min(self.rows - 1))
    }

    /// Re-buckets all points.
    pub fn rebuild(&mut self, points: &[Vec2]) {
        let n_cells = self.cols * self.rows;
        self.starts.clear();
        self.starts.resize(n_cells + 1, 0);
        self.cell_of.clear();
        for p in points {
            let (cx, cy) = self.cell_coords(*p);
            let c = (cy * self.cols + cx) as u32;
            self.cell_of.push(c);
            self.starts[c as usize + 1] += 1;
        }
        for c in 0..n_cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(points.len(), 0);
        let mut fill = self.starts.clone();
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut fill[c as usize];
            self.items[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    /// Point indices ordered cell by cell: visiting agents in this order keeps their neighbours
    /// hot in the cache.
    pub fn ordered(&self) -> &[u32] {
        &self.items
    }

    /// Calls `f(index)` for every point in the cells touching the disc (centre, radius); the
    /// caller filters by exact distance. Radius should not exceed the cell size for 3x3 reach.
    pub fn for_each_near(&self, centre: Vec2, radius: f32, mut f: impl FnMut(usize)) {
        let reach = ((radius / self.cell).ceil() as i64).max(1);
        let (cx, cy) = self.cell_coords(centre);
        let (cx, cy) = (cx as i64, cy as i64);
        for y in (cy - reach).max(0)..=(cy + reach).min(self.rows as i64 - 1) {
            for x in (cx - reach).max(0)..=(cx + reach).min(self.cols as i64 - 1) {
                let c = y as usize * self.cols + x as usize;
                for &i in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
                    f(i as usize);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_find_exactly_what_brute_force_finds() {
        let mut rng = fastrand::Rng::with_seed(5);
        let pts: Vec<Vec2> = (0..2000)
            .map(|_| Vec2::new(rng.f32() * 100.0 - 50.0, rng.f32() * 60.0 - 30.0))
            .collect();
        let mut grid = SpatialGrid::new(Vec2::new(-50.0, -30.0), Vec2::new(50.0, 30.0), 2.0);
        grid.rebuild(&pts);
        for q in [Vec2::ZERO, Vec2::new(-49.9, 29.9), Vec2::new(20.0, -5.0)] {
            let mut found = Vec::new();
            grid.for_each_near(q, 2.0, |i| {
                if pts[i].distance(q) <= 2.0 {
                    found.push(i);
                }
            });
            found.sort();
            let brute: Vec<usize> = (0..pts.len())
                .filter(|&i| pts[i].distance(q) <= 2.0)
                .collect();
            assert_eq!(found, brute);
        }
    }

    #[test]
    fn a_query_visits_only_nearby_cells() {
        let pts: Vec<Vec2> = (0..10_000)
            .map(|i| Vec2::new((i % 100) as f32, (i / 100) as f32))
            .collect();
        let mut grid = SpatialGrid::new(Vec2::ZERO, Vec2::splat(100.0), 2.0);
        grid.rebuild(&pts);
        let mut visited = 0;
        grid.for_each_near(Vec2::splat(50.0), 2.0, |_| visited += 1);
        // 3x3 cells of 2x2 points each: 36, whatever the total.
        assert_eq!(visited, 36);
    }
}

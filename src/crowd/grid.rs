//! The crowd's one spatial grid, rebuilt every step by a stable counting sort. Besides answering
//! "who is near", it fixes the order the step works in: agents are copied into cell order
//! (`order`), so the people in one cell row sit next to each other in memory and a neighbour scan
//! reads a few contiguous runs instead of scattered cache lines.

use glam::Vec2;
use rayon::prelude::*;

/// Where people who left through an exit wait: far outside any level. The grid keeps them in a
/// bucket of their own after the last cell, so no neighbour scan and no constraint band meets
/// them.
pub const PARKED: Vec2 = Vec2::new(-1.0e7, -1.0e7);

/// True for a point parked outside the simulation.
#[inline]
pub fn is_parked(p: Vec2) -> bool {
    p.x <= PARKED.x * 0.5
}

pub struct CellGrid {
    /// The cell size asked for (the real one may be a little larger to tile the bounds).
    requested: f32,
    origin: Vec2,
    cell: f32,
    inv_cell: f32,
    cols: usize,
    rows: usize,
    /// `starts[c]..starts[c + 1]` are the sorted slots of cell c (row-major: y * cols + x).
    starts: Vec<u32>,
    /// Sorted slot -> agent index; within a cell, agents keep index order.
    order: Vec<u32>,
    /// Agent index -> sorted slot.
    slot_of: Vec<u32>,
    /// Agent index -> cell, and the counting sort's cursor per cell (scratch, reused).
    cell_of: Vec<u32>,
    cursor: Vec<u32>,
}

/// The cell of coordinate `v` on an axis of `n` cells. Positions outside the grid (never
/// expected: agents are clamped to bounds) go to the edge; NaN goes to 0 (`as` saturates). i32
/// converts in one instruction, usize does not.
#[inline]
fn axis_cell(v: f32, origin: f32, inv_cell: f32, n: usize) -> usize {
    ((v - origin) * inv_cell).clamp(0.0, (n - 1) as f32) as i32 as usize
}

/// The inclusive cell range a box covers on one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub lo: usize,
    pub hi: usize,
}

impl CellGrid {
    /// A grid over `min..max` with square cells of about `cell` metres.
    pub fn new(min: Vec2, max: Vec2, cell: f32) -> Self {
        let cell = if cell.is_finite() && cell > 0.05 {
            cell
        } else {
            1.0
        };
        let requested = cell;
        let size = (max - min).max(Vec2::splat(cell));
        let cols = ((size.x / cell).ceil() as usize).clamp(1, 4096);
        let rows = ((size.y / cell).ceil() as usize).clamp(1, 4096);
        let cell = (size.x / cols as f32).max(size.y / rows as f32).max(cell);
        CellGrid {
            requested,
            origin: min,
            cell,
            inv_cell: 1.0 / cell,
            cols,
            rows,
            // One start per cell, the parking bucket's, and the end.
            starts: vec![0; cols * rows + 2],
            order: Vec::new(),
            slot_of: Vec::new(),
            cell_of: Vec::new(),
            cursor: Vec::new(),
        }
    }

    pub fn requested_cell(&self) -> f32 {
        self.requested
    }

    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    #[inline]
    fn axis(&self, v: f32, origin: f32, n: usize) -> usize {
        axis_cell(v, origin, self.inv_cell, n)
    }

    /// The column range covered by `x - r ..= x + r`.
    pub fn col_span(&self, x: f32, r: f32) -> Span {
        Span {
            lo: self.axis(x - r, self.origin.x, self.cols),
            hi: self.axis(x + r, self.origin.x, self.cols),
        }
    }

    /// The row range covered by `y - r ..= y + r`.
    pub fn row_span(&self, y: f32, r: f32) -> Span {
        Span {
            lo: self.axis(y - r, self.origin.y, self.rows),
            hi: self.axis(y + r, self.origin.y, self.rows),
        }
    }

    /// Sorted slots of cells `cols.lo..=cols.hi` in `row`: one contiguous run.
    #[inline]
    pub fn run(&self, row: usize, cols: Span) -> std::ops::Range<usize> {
        let base = row * self.cols;
        self.starts[base + cols.lo] as usize..self.starts[base + cols.hi + 1] as usize
    }

    /// The first sorted slot of `row` (`rows()` gives the end of the last row).
    pub fn row_start(&self, row: usize) -> usize {
        self.starts[(row * self.cols).min(self.cols * self.rows)] as usize
    }

    /// Re-buckets all points. Allocates only when the crowd grew.
    pub fn rebuild(&mut self, points: &[Vec2]) {
        let n = points.len();
        self.cell_of.resize(n, 0);
        let (origin, inv_cell, cols, rows) = (self.origin, self.inv_cell, self.cols, self.rows);
        self.cell_of
            .par_iter_mut()
            .with_min_len(4096)
            .zip(points.par_iter())
            .for_each(|(c, p)| {
                if is_parked(*p) {
                    *c = (cols * rows) as u32;
                    return;
                }
                let x = axis_cell(p.x, origin.x, inv_cell, cols);
                let y = axis_cell(p.y, origin.y, inv_cell, rows);
                *c = (y * cols + x) as u32;
            });
        let n_cells = cols * rows + 1;
        self.starts.iter_mut().for_each(|s| *s = 0);
        for &c in &self.cell_of {
            self.starts[c as usize + 1] += 1;
        }
        for c in 0..n_cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.starts[..n_cells]);
        self.order.resize(n, 0);
        self.slot_of.resize(n, 0);
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut self.cursor[c as usize];
            self.order[*slot as usize] = i as u32;
            self.slot_of[i] = *slot;
            *slot += 1;
        }
    }

    /// Sorted slot -> agent index.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Agent index -> sorted slot.
    pub fn slot_of(&self) -> &[u32] {
        &self.slot_of
    }

    /// Calls `f(slot)` for every sorted slot in the cells touching the box around `centre`
    /// reaching `radius`; the caller filters by exact distance.
    pub fn for_each_near(&self, centre: Vec2, radius: f32, mut f: impl FnMut(usize)) {
        let cols = self.col_span(centre.x, radius);
        let rows = self.row_span(centre.y, radius);
        for row in rows.lo..=rows.hi {
            for slot in self.run(row, cols) {
                f(slot);
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
        let mut grid = CellGrid::new(Vec2::new(-50.0, -30.0), Vec2::new(50.0, 30.0), 0.8);
        grid.rebuild(&pts);
        for q in [Vec2::ZERO, Vec2::new(-49.9, 29.9), Vec2::new(20.0, -5.0)] {
            let mut found = Vec::new();
            grid.for_each_near(q, 2.0, |s| {
                let i = grid.order()[s] as usize;
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
    fn sorting_is_a_stable_permutation_in_cell_order() {
        let pts: Vec<Vec2> = (0..5000)
            .map(|i| Vec2::new(((i * 37) % 100) as f32, ((i * 11) % 100) as f32))
            .collect();
        let mut grid = CellGrid::new(Vec2::ZERO, Vec2::splat(100.0), 2.0);
        grid.rebuild(&pts);
        let order = grid.order();
        for (slot, &i) in order.iter().enumerate() {
            assert_eq!(grid.slot_of()[i as usize] as usize, slot);
        }
        // Row-major cell order, index order within a cell.
        let key = |i: u32| {
            let p = pts[i as usize];
            (((p.y / 2.0) as u32) * 50 + (p.x / 2.0) as u32, i)
        };
        assert!(order.windows(2).all(|w| key(w[0]) < key(w[1])));
    }

    #[test]
    fn a_query_visits_only_nearby_cells() {
        let pts: Vec<Vec2> = (0..10_000)
            .map(|i| Vec2::new((i % 100) as f32 + 0.5, (i / 100) as f32 + 0.5))
            .collect();
        let mut grid = CellGrid::new(Vec2::ZERO, Vec2::splat(100.0), 2.0);
        grid.rebuild(&pts);
        let mut visited = 0;
        grid.for_each_near(Vec2::splat(51.0), 2.0, |_| visited += 1);
        // The box 49..53 touches cells 24..=26 on each axis: 3x3 cells of 2x2 points, whatever
        // the total.
        assert_eq!(visited, 36);
    }
}

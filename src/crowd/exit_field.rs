//! Distance fields to the exits: for every cell of a fine grid over the level, the walking
//! distance to one exit around every obstacle (Dijkstra over 8 neighbours, no corner cutting).
//! A fleeing person reads their distance to each exit in one lookup (exit choice) and walks
//! down the field (steering), so ten thousand people fleeing need no route searches at all.
//! The cells are finer than the route grid's metre: a 1.2 m door between walls stays open.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::Vec2;

use super::BODY_RADIUS;
use crate::level::{ExitArea, Level};

/// Cell edge (m) for small levels; large ones get coarser cells so one field stays under
/// `MAX_CELLS`.
const FINE_CELL: f32 = 0.5;
const MAX_CELLS: usize = 400_000;
/// A cell is walkable when its centre is at least this far from every obstacle (m).
const CLEARANCE: f32 = BODY_RADIUS;
/// Cells walked down the field to find where to steer (about two metres ahead).
const LOOK_AHEAD_CELLS: usize = 4;

/// Which cells a body fits in, shared by every exit's field.
pub struct WalkableGrid {
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    blocked: Vec<bool>,
}

impl WalkableGrid {
    pub fn new(level: &Level) -> Self {
        let size = level.bounds.size().max(Vec2::splat(FINE_CELL));
        let area = size.x * size.y;
        let cell = FINE_CELL.max((area / MAX_CELLS as f32).sqrt());
        let cols = ((size.x / cell).ceil() as usize).clamp(1, 4096);
        let rows = ((size.y / cell).ceil() as usize).clamp(1, 4096);
        let origin = level.bounds.min;
        // The bounds are a wall too, kept a little wider: a field whose cells run along the
        // very edge sends people into it, and a queue pressed against a wall crawls.
        let bounds_clearance = 2.0 * CLEARANCE;
        let mut blocked: Vec<bool> = (0..cols * rows)
            .map(|c| {
                let p = origin + Vec2::new((c % cols) as f32 + 0.5, (c / cols) as f32 + 0.5) * cell;
                let inside = (p - level.bounds.min).min(level.bounds.max - p);
                inside.min_element() < bounds_clearance
            })
            .collect();
        for o in &level.obstacles {
            let s = o.shape;
            let c = s.center();
            let r = s.bounding_radius() + CLEARANCE + cell;
            let lo = ((c - Vec2::splat(r) - origin) / cell)
                .floor()
                .max(Vec2::ZERO);
            let hi = ((c + Vec2::splat(r) - origin) / cell).ceil();
            for y in lo.y as usize..(hi.y as usize).min(rows) {
                for x in lo.x as usize..(hi.x as usize).min(cols) {
                    let p = origin + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * cell;
                    if s.signed_distance(p).0 < CLEARANCE {
                        blocked[y * cols + x] = true;
                    }
                }
            }
        }
        WalkableGrid {
            origin,
            cell,
            cols,
            rows,
            blocked,
        }
    }

    fn cell_of(&self, p: Vec2) -> usize {
        let q = ((p - self.origin) / self.cell).floor();
        let x = (q.x.max(0.0) as usize).min(self.cols - 1);
        let y = (q.y.max(0.0) as usize).min(self.rows - 1);
        y * self.cols + x
    }

    fn centre(&self, c: usize) -> Vec2 {
        let (x, y) = (c % self.cols, c / self.cols);
        self.origin + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * self.cell
    }

    /// The walkable neighbours of cell `c` and the step's length in cells (1 or √2); a diagonal
    /// step needs both cells beside it open, so nobody cuts a wall's corner.
    fn neighbours(&self, c: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let (x, y) = ((c % self.cols) as i32, (c / self.cols) as i32);
        const STEPS: [(i32, i32, f32); 8] = [
            (1, 0, 1.0),
            (-1, 0, 1.0),
            (0, 1, 1.0),
            (0, -1, 1.0),
            (1, 1, std::f32::consts::SQRT_2),
            (1, -1, std::f32::consts::SQRT_2),
            (-1, 1, std::f32::consts::SQRT_2),
            (-1, -1, std::f32::consts::SQRT_2),
        ];
        let (cols, rows) = (self.cols as i32, self.rows as i32);
        let open = move |x: i32, y: i32| {
            x >= 0 && y >= 0 && x < cols && y < rows && !self.blocked[(y * cols + x) as usize]
        };
        STEPS.iter().filter_map(move |&(dx, dy, len)| {
            let (nx, ny) = (x + dx, y + dy);
            let diagonal_ok = dx == 0 || dy == 0 || (open(x + dx, y) && open(x, y + dy));
            (open(nx, ny) && diagonal_ok).then_some(((ny * cols + nx) as usize, len))
        })
    }
}

/// Walking distance (m) to one exit from every cell; infinite where the exit cannot be reached.
pub struct ExitField {
    dist: Vec<f32>,
}

impl ExitField {
    /// Floods out from the cells the exit covers (a line's cells, or a box's).
    pub fn new(grid: &WalkableGrid, area: &ExitArea) -> Self {
        let n = grid.cols * grid.rows;
        let mut dist = vec![f32::INFINITY; n];
        let mut open = BinaryHeap::new();
        // Millimetres as the heap's key: integer order, no float comparisons.
        let key = |d: f32| (d * 1000.0) as u32;
        let reach = grid.cell * 0.75;
        let (lo, hi) = exit_box(area, reach);
        let first = grid.cell_of(lo);
        let last = grid.cell_of(hi);
        let (x0, y0) = (first % grid.cols, first / grid.cols);
        let (x1, y1) = (last % grid.cols, last / grid.cols);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let c = y * grid.cols + x;
                let d = area.distance(grid.centre(c));
                if d <= reach {
                    // Seeded even when blocked (a door's line touches its posts); cells a body
                    // cannot stand in are never entered from it.
                    dist[c] = d;
                    open.push(Reverse((key(d), c as u32)));
                }
            }
        }
        while let Some(Reverse((k, c))) = open.pop() {
            let c = c as usize;
            if k > key(dist[c]) {
                continue;
            }
            for (nb, len) in grid.neighbours(c) {
                let d = dist[c] + len * grid.cell;
                if d < dist[nb] {
                    dist[nb] = d;
                    open.push(Reverse((key(d), nb as u32)));
                }
            }
        }
        ExitField { dist }
    }

    /// Walking distance from `p` to the exit (m); infinite if it cannot be reached. A person
    /// pushed into a blocked cell reads the best of the cells within `BLOCKED_REACH` of it.
    pub fn distance(&self, grid: &WalkableGrid, p: Vec2) -> f32 {
        let c = grid.cell_of(p);
        let own = self.dist[c];
        if own.is_finite() {
            return own;
        }
        grid.neighbours_any(c)
            .map(|n| self.dist[n] + p.distance(grid.centre(n)))
            .fold(f32::INFINITY, f32::min)
    }

    /// Where someone at `p` steers to reach the exit: a couple of metres down the field, or the
    /// exit itself once it is that close. None when the exit cannot be reached from `p`.
    pub fn steer_target(&self, grid: &WalkableGrid, area: &ExitArea, p: Vec2) -> Option<Vec2> {
        let mut c = grid.cell_of(p);
        if !self.dist[c].is_finite() {
            c = grid
                .neighbours_any(c)
                .filter(|&n| self.dist[n].is_finite())
                .min_by(|&a, &b| self.dist[a].total_cmp(&self.dist[b]))?;
        }
        if self.dist[c] <= LOOK_AHEAD_CELLS as f32 * grid.cell {
            return Some(area.nearest_point(p));
        }
        for _ in 0..LOOK_AHEAD_CELLS {
            let next = grid
                .neighbours(c)
                .min_by(|&(a, _), &(b, _)| self.dist[a].total_cmp(&self.dist[b]))
                .map(|(n, _)| n);
            match next {
                Some(n) if self.dist[n] < self.dist[c] => c = n,
                _ => break,
            }
        }
        Some(grid.centre(c))
    }
}

/// How many cells round a blocked one are searched for a way back (cells). Two: someone
/// pushed out through a doorway in a 0.4 m wall can stand two 0.5 m cells past its walkable
/// cells (a closed exit's, in `tests/crowd_evacuation.rs`); with one they read no way at all.
const BLOCKED_REACH: i32 = 2;

impl WalkableGrid {
    /// The cells within `BLOCKED_REACH` of `c`, blocked or not (to step out of a blocked
    /// cell).
    fn neighbours_any(&self, c: usize) -> impl Iterator<Item = usize> + '_ {
        let (x, y) = ((c % self.cols) as i32, (c / self.cols) as i32);
        let (cols, rows) = (self.cols as i32, self.rows as i32);
        let r = BLOCKED_REACH;
        (-r..=r)
            .flat_map(move |dy| (-r..=r).map(move |dx| (x + dx, y + dy)))
            .filter(move |&(nx, ny)| {
                (nx, ny) != (x, y) && nx >= 0 && ny >= 0 && nx < cols && ny < rows
            })
            .map(move |(nx, ny)| (ny * cols + nx) as usize)
    }
}

/// The corners of the box around an exit, grown by `by`.
fn exit_box(area: &ExitArea, by: f32) -> (Vec2, Vec2) {
    match *area {
        ExitArea::Line(a, b) => (a.min(b) - Vec2::splat(by), a.max(b) + Vec2::splat(by)),
        ExitArea::Box {
            center,
            half_extents,
        } => (
            center - half_extents - Vec2::splat(by),
            center + half_extents + Vec2::splat(by),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(obstacles: &str) -> Level {
        let text = format!(
            r#"Level(name: "t", bounds: (min: (-10.0, -10.0), max: (10.0, 10.0)),
            obstacles: [{obstacles}],
            spawn_zones: [(name: "a", center: (0.0, 0.0), half_extents: (1.0, 1.0))],
            crowd: (count: 0, models: [], variant_groups: [], walk_speed: (min: 1.0, max: 1.0), seed: 1),
            hero: (model: "x", spawn: (0.0, 0.0)))"#
        );
        ron::from_str(&text).expect("test level parses")
    }

    #[test]
    fn distance_goes_round_a_wall_and_through_its_door() {
        // A wall across x = 0 with a 1.2 m door at z = 8..9.2.
        let lvl = level(
            r#"(name: "w1", kind: Wall, shape: Box(center: (0.0, -1.0), half_extents: (0.2, 9.0))),
               (name: "w2", kind: Wall, shape: Box(center: (0.0, 9.6), half_extents: (0.2, 0.4)))"#,
        );
        let grid = WalkableGrid::new(&lvl);
        let exit = ExitArea::Line(Vec2::new(10.0, -2.0), Vec2::new(10.0, 2.0));
        let field = ExitField::new(&grid, &exit);
        let east = field.distance(&grid, Vec2::new(5.0, 0.0));
        assert!((east - 5.0).abs() < 0.6, "{east}");
        // From the west side the way leads up through the door and back down.
        let west = field.distance(&grid, Vec2::new(-5.0, 0.0));
        let through_door = Vec2::new(-5.0, 0.0).distance(Vec2::new(0.0, 8.6))
            + Vec2::new(0.0, 8.6).distance(Vec2::new(10.0, 2.0));
        assert!(
            (west - through_door).abs() < 1.5,
            "{west} vs {through_door}"
        );
        // Steering from the west heads up towards the door, not into the wall.
        let t = field
            .steer_target(&grid, &exit, Vec2::new(-1.5, 0.0))
            .expect("reachable");
        assert!(t.y > 0.8 && t.x < 0.0, "{t}");
    }

    #[test]
    fn a_walled_in_exit_is_unreachable() {
        let lvl = level(
            r#"(name: "box", kind: Wall, shape: Box(center: (8.0, 0.0), half_extents: (3.0, 3.0)))"#,
        );
        let grid = WalkableGrid::new(&lvl);
        let exit = ExitArea::Box {
            center: Vec2::new(8.0, 0.0),
            half_extents: Vec2::splat(0.5),
        };
        let field = ExitField::new(&grid, &exit);
        assert!(field.distance(&grid, Vec2::new(-5.0, 0.0)).is_infinite());
        assert!(field
            .steer_target(&grid, &exit, Vec2::new(-5.0, 0.0))
            .is_none());
    }
}

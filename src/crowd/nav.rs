//! Route finding around obstacles: most goals in a plaza are in plain sight and need nothing;
//! when an obstacle blocks the straight line, A* on a 1 m occupancy grid finds a way and
//! string-pulling turns it into a few waypoints.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::Vec2;

use crate::footprint::segment_hits_obstacle;
use crate::level::{Level, Shape};

pub struct NavGrid {
    shapes: Vec<Shape>,
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    blocked: Vec<bool>,
}

/// One searcher's scratch, reused between searches: a cell's cost is valid only when its stamp
/// is this search's. Searches share the grid, so each thread brings its own scratch.
#[derive(Default)]
pub struct RouteScratch {
    cost: Vec<u32>,
    came: Vec<u32>,
    stamp: Vec<u32>,
    search: u32,
}

/// Clearance kept from obstacle edges when routing (metres): a body radius and a little air.
const CLEARANCE: f32 = 0.45;

/// Half a shape's smallest width: a box's smaller half extent, a circle's radius.
fn thinnest_half(s: &Shape) -> f32 {
    match s {
        Shape::Circle { radius, .. } => *radius,
        Shape::Box { half_extents, .. } => half_extents.min_element(),
    }
}

impl NavGrid {
    pub fn new(level: &Level) -> Self {
        let cell = 1.0;
        let size = level.bounds.size();
        let cols = ((size.x / cell).ceil() as usize).clamp(1, 2048);
        let rows = ((size.y / cell).ceil() as usize).clamp(1, 2048);
        let shapes: Vec<Shape> = level.obstacles.iter().map(|o| o.shape).collect();
        let mut blocked = vec![false; cols * rows];
        for s in &shapes {
            // A shape thinner than a cell can lie between two rows of cell centres without
            // coming within CLEARANCE of either (a placed 10 cm fence on a cell boundary is
            // 0.45 m from both): routes then ran straight through it. Such a shape blocks every
            // cell whose centre it comes within half a cell of, so no search crosses it.
            let reach = if thinnest_half(s) < 0.5 * cell - CLEARANCE + 0.02 {
                CLEARANCE.max(0.5 * cell + 0.01)
            } else {
                CLEARANCE
            };
            let c = s.center();
            let r = s.bounding_radius() + CLEARANCE + cell;
            let lo = ((c - Vec2::splat(r) - level.bounds.min) / cell)
                .floor()
                .max(Vec2::ZERO);
            let hi = ((c + Vec2::splat(r) - level.bounds.min) / cell).ceil();
            for y in lo.y as usize..(hi.y as usize).min(rows) {
                for x in lo.x as usize..(hi.x as usize).min(cols) {
                    let p = level.bounds.min + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * cell;
                    if s.signed_distance(p).0 < reach {
                        blocked[y * cols + x] = true;
                    }
                }
            }
        }
        NavGrid {
            shapes,
            origin: level.bounds.min,
            cell,
            cols,
            rows,
            blocked,
        }
    }

    /// Cells of the grid (for sizing scratch).
    fn cells(&self) -> usize {
        self.cols * self.rows
    }

    /// True when nothing stands between a and b.
    pub fn clear_line(&self, a: Vec2, b: Vec2) -> bool {
        !self.shapes.iter().any(|s| {
            // Cheap reject: the obstacle's circle is far from the segment's box.
            let r = s.bounding_radius() + CLEARANCE;
            let c = s.center();
            if c.x + r < a.x.min(b.x)
                || c.x - r > a.x.max(b.x)
                || c.y + r < a.y.min(b.y)
                || c.y - r > a.y.max(b.y)
            {
                return false;
            }
            segment_hits_obstacle(s, a, b)
        })
    }

    /// Whether a body of radius `half_width` can walk straight from `a` to `b`: the centre line
    /// and both edges of its sweep are clear. A bare centre line that grazes a door post would
    /// let a walker drop its door waypoint and end up pressed against the wall.
    pub fn clear_sweep(&self, a: Vec2, b: Vec2, half_width: f32) -> bool {
        let side = (b - a).perp().normalize_or_zero() * half_width;
        self.clear_line(a, b)
            && self.clear_line(a + side, b + side)
            && self.clear_line(a - side, b - side)
    }

    /// Which cells can be walked to from `from` (4-connected over unblocked cells; the start
    /// cell counts even when it touches an obstacle's clearance).
    pub fn reachable_from(&self, from: Vec2) -> Vec<bool> {
        let mut seen = vec![false; self.cells()];
        let (sx, sy) = self.cell_of(from);
        let mut stack = vec![sy * self.cols + sx];
        seen[sy * self.cols + sx] = true;
        while let Some(c) = stack.pop() {
            let (x, y) = (c % self.cols, c / self.cols);
            let mut push = |n: usize| {
                if !seen[n] && !self.blocked[n] {
                    seen[n] = true;
                    stack.push(n);
                }
            };
            if x > 0 {
                push(c - 1);
            }
            if x + 1 < self.cols {
                push(c + 1);
            }
            if y > 0 {
                push(c - self.cols);
            }
            if y + 1 < self.rows {
                push(c + self.cols);
            }
        }
        seen
    }

    /// Whether `p`'s cell is among `reachable` (from `reachable_from`), or next to one of
    /// them: a goal may stand in an obstacle's routing clearance.
    pub fn is_reached(&self, reachable: &[bool], p: Vec2) -> bool {
        let (x, y) = self.cell_of(p);
        let (x0, y0) = (x.saturating_sub(1), y.saturating_sub(1));
        let (x1, y1) = ((x + 1).min(self.cols - 1), (y + 1).min(self.rows - 1));
        (y0..=y1).any(|y| (x0..=x1).any(|x| reachable.get(y * self.cols + x) == Some(&true)))
    }

    fn cell_of(&self, p: Vec2) -> (usize, usize) {
        let q = ((p - self.origin) / self.cell).floor();
        (
            (q.x.max(0.0) as usize).min(self.cols - 1),
            (q.y.max(0.0) as usize).min(self.rows - 1),
        )
    }

    fn centre(&self, x: usize, y: usize) -> Vec2 {
        self.origin + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * self.cell
    }

    /// Waypoints from `from` to `to` (ending at `to`), or None when no route exists.
    /// With a clear straight line the route is just `[to]`.
    pub fn route(&self, from: Vec2, to: Vec2, scratch: &mut RouteScratch) -> Option<Vec<Vec2>> {
        if self.clear_line(from, to) {
            return Some(vec![to]);
        }
        let n = self.cells();
        if scratch.stamp.len() != n {
            *scratch = RouteScratch {
                cost: vec![u32::MAX; n],
                came: vec![u32::MAX; n],
                stamp: vec![0; n],
                search: 0,
            };
        }
        let (sx, sy) = self.cell_of(from);
        let (gx, gy) = self.cell_of(to);
        let idx = |x: usize, y: usize| y * self.cols + x;
        let goal = idx(gx, gy);
        let h = |x: usize, y: usize| {
            let dx = (x as f32 - gx as f32).abs();
            let dy = (y as f32 - gy as f32).abs();
            // Octile distance, in tenths so costs stay integers.
            ((dx.max(dy) - dx.min(dy)) * 10.0 + dx.min(dy) * 14.0) as u32
        };
        scratch.search = scratch.search.wrapping_add(1);
        if scratch.search == 0 {
            // Stamps wrapped: clear them once so no stale cell looks current.
            scratch.stamp.fill(0);
            scratch.search = 1;
        }
        let search = scratch.search;
        let (cols, rows) = (self.cols, self.rows);
        let blocked = &self.blocked;
        let RouteScratch {
            cost: g,
            came,
            stamp,
            ..
        } = scratch;
        let mut visit = |c: usize, g: &mut Vec<u32>, came: &mut Vec<u32>| {
            if stamp[c] != search {
                stamp[c] = search;
                g[c] = u32::MAX;
                came[c] = u32::MAX;
            }
        };
        let mut open = BinaryHeap::new();
        visit(idx(sx, sy), g, came);
        visit(goal, g, came);
        g[idx(sx, sy)] = 0;
        open.push(Reverse((h(sx, sy), idx(sx, sy) as u32)));
        let mut expanded = 0;
        while let Some(Reverse((_, cur))) = open.pop() {
            let cur = cur as usize;
            if cur == goal {
                break;
            }
            expanded += 1;
            if expanded > 12_000 {
                return None;
            }
            let (cx, cy) = (cur % cols, cur / cols);
            for (dx, dy, cost) in [
                (1i32, 0i32, 10u32),
                (-1, 0, 10),
                (0, 1, 10),
                (0, -1, 10),
                (1, 1, 14),
                (1, -1, 14),
                (-1, 1, 14),
                (-1, -1, 14),
            ] {
                let (nx, ny) = (cx as i32 + dx, cy as i32 + dy);
                if nx < 0 || ny < 0 || nx >= cols as i32 || ny >= rows as i32 {
                    continue;
                }
                let (nx, ny) = (nx as usize, ny as usize);
                let n = idx(nx, ny);
                // The start and goal cells may touch an obstacle's clearance; everything between may not.
                if blocked[n] && n != goal {
                    continue;
                }
                // No corner cutting between two blocked cells.
                if dx != 0 && dy != 0 && (blocked[idx(cx, ny)] || blocked[idx(nx, cy)]) {
                    continue;
                }
                visit(n, g, came);
                let ng = g[cur].saturating_add(cost);
                if ng < g[n] {
                    g[n] = ng;
                    came[n] = cur as u32;
                    open.push(Reverse((ng + h(nx, ny), n as u32)));
                }
            }
        }
        if g[goal] == u32::MAX {
            return None;
        }
        let came = &scratch.came;
        let mut cells = vec![goal];
        let mut c = goal;
        while came[c] != u32::MAX {
            c = came[c] as usize;
            cells.push(c);
        }
        cells.reverse();
        // String pulling: keep only the waypoints where the straight line breaks.
        let mut points: Vec<Vec2> = cells
            .iter()
            .map(|&c| self.centre(c % self.cols, c / self.cols))
            .collect();
        if let Some(last) = points.last_mut() {
            *last = to;
        }
        let mut route = Vec::new();
        let mut anchor = from;
        let mut k = 0;
        while k < points.len() {
            let mut far = k;
            while far + 1 < points.len() && self.clear_line(anchor, points[far + 1]) {
                far += 1;
            }
            route.push(points[far]);
            anchor = points[far];
            k = far + 1;
        }
        Some(route)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::{Placed, ThingKind};

    /// A placed fence (10 cm thick) lying exactly on a cell boundary came 0.45 m from both
    /// rows of cell centres, no nearer than the clearance: A* walked through it.
    #[test]
    fn a_route_goes_round_a_thin_fence_on_a_cell_boundary() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = include_str!("../../levels/plaza.ron");
        let mut level = crate::level::parse_level(text, "plaza.ron", root).expect("plaza");
        level.placed.push(Placed {
            name: "fence".into(),
            kind: ThingKind::Fence,
            at: Vec2::new(0.0, -76.0),
            heading_deg: 0.0,
        });
        let nav = NavGrid::new(&crate::level::sandbox::world_level(&level));
        let (a, b) = (Vec2::new(0.3, -79.0), Vec2::new(0.3, -73.0));
        assert!(!nav.clear_line(a, b), "the fence is in the way");
        let route = nav
            .route(a, b, &mut RouteScratch::default())
            .expect("a way round");
        let mut from = a;
        for &w in &route {
            assert!(
                nav.clear_line(from, w),
                "leg {from} -> {w} crosses the fence: {route:?}"
            );
            from = w;
        }
        assert!(route.len() >= 2, "{route:?}");
    }
}

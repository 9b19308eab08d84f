//! Voronoi cells of the people near a measurement, cut to a circle (PedPy's `cut_off`) so a
//! lone person's cell stays finite, and to a convex walkable outline when one is given.

use glam::Vec2;

use crate::polygon::{circle_polygon, clip_by_convex, cut_towards};

/// Cut-off radius of a cell (m): as in PedPy's examples, a person owns at most a disc of 1 m.
pub const CUT_OFF_RADIUS: f32 = 1.0;
/// Corners of the cut-off disc (PedPy's default quad_segments 3 gives 12).
const CUT_OFF_CORNERS: usize = 12;

/// The Voronoi cell of each of `sites[..owners]` among all `sites` (the rest are neighbours
/// only: people just outside the measured region who still bound its people's cells).
/// `walkable`: a convex counter-clockwise outline to cut every cell to (a corridor's walls).
pub fn cells(sites: &[Vec2], owners: usize, walkable: Option<&[Vec2]>) -> Vec<Vec<Vec2>> {
    let reach = 2.0 * CUT_OFF_RADIUS;
    let index = SiteGrid::new(sites, reach);
    let mut scratch = Vec::new();
    (0..owners)
        .map(|i| {
            let site = sites[i];
            let mut cell = circle_polygon(site, CUT_OFF_RADIUS, CUT_OFF_CORNERS);
            index.near(site, |j| {
                if j != i && sites[j].distance_squared(site) < reach * reach {
                    if sites[j] == site {
                        return;
                    }
                    cut_towards(&mut cell, site, sites[j], &mut scratch);
                }
            });
            match walkable {
                Some(outline) => clip_by_convex(&cell, outline),
                None => cell,
            }
        })
        .collect()
}

/// A uniform grid over the sites, so each cell is cut only by its near neighbours.
struct SiteGrid {
    origin: Vec2,
    size: f32,
    cols: usize,
    rows: usize,
    start: Vec<u32>,
    items: Vec<u32>,
}

impl SiteGrid {
    fn new(sites: &[Vec2], size: f32) -> Self {
        let (lo, hi) = sites.iter().fold(
            (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let lo = if sites.is_empty() { Vec2::ZERO } else { lo };
        let hi = if sites.is_empty() { Vec2::ZERO } else { hi };
        let cols = (((hi.x - lo.x) / size) as usize + 1).min(4096);
        let rows = (((hi.y - lo.y) / size) as usize + 1).min(4096);
        let mut grid = SiteGrid {
            origin: lo,
            size,
            cols,
            rows,
            start: vec![0; cols * rows + 1],
            items: vec![0; sites.len()],
        };
        let keys: Vec<usize> = sites.iter().map(|&p| grid.key(p)).collect();
        for &k in &keys {
            grid.start[k + 1] += 1;
        }
        for k in 0..cols * rows {
            grid.start[k + 1] += grid.start[k];
        }
        let mut fill = grid.start.clone();
        for (i, &k) in keys.iter().enumerate() {
            grid.items[fill[k] as usize] = i as u32;
            fill[k] += 1;
        }
        grid
    }

    fn cell_of(&self, p: Vec2) -> (usize, usize) {
        let c = ((p - self.origin) / self.size).max(Vec2::ZERO);
        (
            (c.x as usize).min(self.cols - 1),
            (c.y as usize).min(self.rows - 1),
        )
    }

    fn key(&self, p: Vec2) -> usize {
        let (x, y) = self.cell_of(p);
        y * self.cols + x
    }

    fn near(&self, p: Vec2, mut visit: impl FnMut(usize)) {
        let (x, y) = self.cell_of(p);
        for cy in y.saturating_sub(1)..=(y + 1).min(self.rows - 1) {
            for cx in x.saturating_sub(1)..=(x + 1).min(self.cols - 1) {
                let k = cy * self.cols + cx;
                for &j in &self.items[self.start[k] as usize..self.start[k + 1] as usize] {
                    visit(j as usize);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polygon::polygon_area;

    #[test]
    fn a_square_lattice_gives_each_person_its_square() {
        // People 0.8 m apart: an inner person's cell is the 0.8 x 0.8 square around them.
        let mut sites = Vec::new();
        for z in -3..=3 {
            for x in -3..=3 {
                sites.push(Vec2::new(x as f32, z as f32) * 0.8);
            }
        }
        // The middle one first, as the owner.
        let middle = sites.len() / 2;
        sites.swap(0, middle);
        let cell = &cells(&sites, 1, None)[0];
        assert!(
            (polygon_area(cell) - 0.64).abs() < 1e-4,
            "{}",
            polygon_area(cell)
        );
    }

    #[test]
    fn a_lone_person_owns_the_cut_off_disc_and_walls_cut_it() {
        let sites = [Vec2::ZERO];
        let disc = polygon_area(&cells(&sites, 1, None)[0]);
        // A 12-gon inscribed in the 1 m circle: 3 r².
        assert!((disc - 3.0).abs() < 1e-4);
        let corridor = [
            Vec2::new(-5.0, -0.5),
            Vec2::new(5.0, -0.5),
            Vec2::new(5.0, 0.5),
            Vec2::new(-5.0, 0.5),
        ];
        let cut = polygon_area(&cells(&sites, 1, Some(&corridor))[0]);
        assert!(cut < disc && cut > 1.0, "{cut}");
    }
}

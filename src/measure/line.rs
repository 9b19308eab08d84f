//! Density, speed and flow at a measurement line for one frame, the way Adrian, Seyfried,
//! Sieben et al. (2024) define them and PedPy computes them (`compute_line_density`,
//! `compute_line_speed`, `compute_line_flow`): each person whose Voronoi cell crosses the line
//! counts with the share of the line their cell covers, `w_i / w`:
//!
//! - density `Σ (w_i / w) / A_i` (1/m², `A_i` the cell's area),
//! - speed `Σ (w_i / w) v_i·n` (m/s, `n` the line's unit normal),
//! - specific flow `Σ (w_i / w) v_i·n / A_i` (1/(m·s)),
//!
//! summed separately for the people walking forward and backward ("species" +1 and −1; the
//! backward sums are negated, so both count positive when people walk their own way) and then
//! added. Parts of the line no cell covers count as nobody there: they lower the density, the
//! speed and the flow alike, as in PedPy.

use glam::Vec2;

use crate::polygon::{polygon_area, segment_length_inside};

/// A measurement line from `from` to `to`. Forward is `(to - from)` turned 90° counter-clockwise,
/// as for the level's `MeasurementLine` and `polygon::crossing`. PedPy's `normal_vector()` of
/// the same `from → to` points the other way (it turns clockwise): a line given to PedPy as
/// `to → from` has this forward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub from: Vec2,
    pub to: Vec2,
}

impl Line {
    pub fn new(from: Vec2, to: Vec2) -> Self {
        Line { from, to }
    }

    /// The unit normal a forward walker moves along (zero for a line of no length).
    pub fn forward(&self) -> Vec2 {
        (self.to - self.from).perp().normalize_or_zero()
    }

    pub fn length(&self) -> f32 {
        self.from.distance(self.to)
    }

    /// PedPy's species from a velocity: +1 moving forward, −1 backward, 0 moving along the line
    /// (`np.sign`: such a person is in neither sum). PedPy takes it once per person, from the
    /// velocity in the first frame their cell touches the line; a caller that knows which way
    /// people walk (a one-way corridor) can pass that instead.
    pub fn species(&self, velocity: Vec2) -> i8 {
        let along_normal = velocity.dot(self.forward());
        if along_normal > 0.0 {
            1
        } else if along_normal < 0.0 {
            -1
        } else {
            0
        }
    }
}

/// The sums over the people of one species.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Species {
    /// 1/m².
    pub density: f32,
    /// m/s, positive when they walk their species' way.
    pub speed: f32,
    /// 1/(m·s).
    pub flow: f32,
}

/// One frame at a line: the forward walkers' sums and the backward walkers'.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LineFrame {
    pub forward: Species,
    pub backward: Species,
    /// The share of the line the counted people's cells cover, `Σ w_i / w` (not a PedPy
    /// column): under 1 where the cut-off leaves gaps, which read as nobody walking there.
    pub covered: f32,
}

impl LineFrame {
    /// PedPy's `density` column: both species together (1/m²).
    pub fn density(&self) -> f32 {
        self.forward.density + self.backward.density
    }

    /// PedPy's `speed` column: both species together, each positive its own way (m/s).
    pub fn speed(&self) -> f32 {
        self.forward.speed + self.backward.speed
    }

    /// PedPy's `flow` column: both ways together (people per metre per second).
    pub fn flow(&self) -> f32 {
        self.forward.flow + self.backward.flow
    }
}

/// The line's density, speed and flow in one frame. `cells[i]` is person `i`'s Voronoi cell
/// (`voronoi::cells`, whose owners come first), `velocities[i]` their velocity (m/s) and
/// `species[i]` +1 forward, −1 backward or 0 not counted (`Line::species`). People whose cell
/// misses the line add nothing, so `cells` may be only the people near it.
pub fn line_frame(
    line: &Line,
    cells: &[Vec<Vec2>],
    velocities: &[Vec2],
    species: &[i8],
) -> LineFrame {
    let mut frame = LineFrame::default();
    let length = line.length();
    if length <= 0.0 {
        return frame;
    }
    let normal = line.forward();
    for (i, cell) in cells.iter().enumerate() {
        let sign = species.get(i).copied().unwrap_or(0);
        let area = polygon_area(cell);
        if sign == 0 || area <= 0.0 {
            continue;
        }
        let share = segment_length_inside(cell, line.from, line.to) / length;
        if share <= 0.0 {
            continue;
        }
        // PedPy negates the backward species' sums: walking backward counts positive there.
        let towards = velocities.get(i).map_or(0.0, |v| v.dot(normal)) * f32::from(sign);
        let sums = if sign > 0 {
            &mut frame.forward
        } else {
            &mut frame.backward
        };
        sums.density += share / area;
        sums.speed += towards * share;
        sums.flow += towards * share / area;
        frame.covered += share;
    }
    frame
}

#[cfg(test)]
mod tests {
    use super::super::voronoi::cells;
    use super::*;

    #[test]
    fn a_square_lattice_walking_across_reads_its_density_speed_and_flow() {
        // People 0.8 m apart walking +x at 1.2 m/s: each inner cell is 0.8 x 0.8 m.
        let spacing = 0.8;
        let mut sites = Vec::new();
        for z in -6..=6 {
            for x in -6..=6 {
                sites.push(Vec2::new(x as f32, z as f32) * spacing);
            }
        }
        let all = cells(&sites, sites.len(), None);
        let velocities = vec![Vec2::new(1.2, 0.0); sites.len()];
        // Across the lattice at x = 0.3 (off every bisector), drawn towards −z so forward is +x;
        // 3.3 m long, cutting a whole number of cells nowhere: only the mean counts.
        let line = Line::new(Vec2::new(0.3, 1.7), Vec2::new(0.3, -1.6));
        assert_eq!(line.forward(), Vec2::X);
        let species: Vec<i8> = velocities.iter().map(|&v| line.species(v)).collect();
        let frame = line_frame(&line, &all, &velocities, &species);
        let density = 1.0 / (spacing * spacing);
        assert!((frame.density() - density).abs() < 1e-4, "{frame:?}");
        assert!((frame.speed() - 1.2).abs() < 1e-4, "{frame:?}");
        assert!((frame.flow() - 1.2 * density).abs() < 1e-4, "{frame:?}");
        assert!((frame.covered - 1.0).abs() < 1e-5, "{frame:?}");
        assert_eq!(frame.backward, Species::default());
    }

    #[test]
    fn a_cell_covering_part_of_the_line_counts_for_that_part_only() {
        // A lone person: their cell is the 1 m cut-off 12-gon (area 3 m²), whose corners at
        // (0, ±1) put 2 m of the 4 m line through them inside it.
        let sites = [Vec2::ZERO];
        let cell = cells(&sites, 1, None);
        let line = Line::new(Vec2::new(0.0, 2.0), Vec2::new(0.0, -2.0));
        let frame = line_frame(&line, &cell, &[Vec2::new(1.0, 0.5)], &[1]);
        assert!((frame.density() - 0.5 / 3.0).abs() < 1e-5, "{frame:?}");
        // Only the normal component counts, and the uncovered half of the line reads 0 m/s.
        assert!((frame.speed() - 0.5).abs() < 1e-5, "{frame:?}");
        assert!((frame.flow() - 0.5 / 3.0).abs() < 1e-5, "{frame:?}");
        assert!((frame.covered - 0.5).abs() < 1e-5, "{frame:?}");
        // A line past the cell reads nothing; so does a person of no species.
        let away = Line::new(Vec2::new(3.0, 2.0), Vec2::new(3.0, -2.0));
        assert_eq!(
            line_frame(&away, &cell, &[Vec2::X], &[1]),
            LineFrame::default()
        );
        assert_eq!(
            line_frame(&line, &cell, &[Vec2::Y], &[0]),
            LineFrame::default()
        );
    }

    #[test]
    fn both_ways_count_positive_and_a_reversed_line_swaps_them() {
        // Two people abreast in a 2 m wide corridor, one walking +x at 1 m/s, one −x at 0.5 m/s:
        // each cell covers half the line across the corridor.
        let sites = [Vec2::new(0.0, 0.5), Vec2::new(0.0, -0.5)];
        let corridor = [
            Vec2::new(-5.0, -1.0),
            Vec2::new(5.0, -1.0),
            Vec2::new(5.0, 1.0),
            Vec2::new(-5.0, 1.0),
        ];
        let two = cells(&sites, 2, Some(&corridor));
        let (a0, a1) = (polygon_area(&two[0]), polygon_area(&two[1]));
        assert!((a0 - a1).abs() < 1e-5 && a0 > 1.0, "{a0} {a1}");
        let velocities = [Vec2::new(1.0, 0.0), Vec2::new(-0.5, 0.0)];
        let line = Line::new(Vec2::new(0.2, 1.0), Vec2::new(0.2, -1.0));
        let species = [line.species(velocities[0]), line.species(velocities[1])];
        assert_eq!(species, [1, -1]);
        let frame = line_frame(&line, &two, &velocities, &species);
        assert!((frame.forward.density - 0.5 / a0).abs() < 1e-5);
        assert!((frame.backward.density - 0.5 / a0).abs() < 1e-5);
        assert!((frame.forward.speed - 0.5).abs() < 1e-5, "{frame:?}");
        assert!((frame.backward.speed - 0.25).abs() < 1e-5, "{frame:?}");
        assert!((frame.speed() - 0.75).abs() < 1e-5);
        assert!((frame.flow() - 0.75 / a0).abs() < 1e-5);
        assert!((frame.covered - 1.0).abs() < 1e-5, "{frame:?}");
        let reversed = Line::new(line.to, line.from);
        let species = [-1, 1];
        let back = line_frame(&reversed, &two, &velocities, &species);
        assert_eq!(
            (back.forward, back.backward),
            (frame.backward, frame.forward)
        );
        assert_eq!(back.covered, frame.covered);
    }
}

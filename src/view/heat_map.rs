//! Where the level jams: people per square metre and their mean speed on a ground grid,
//! averaged over the last few simulated seconds (an exponential average), and the colours the
//! overlay paints them with. Plain data, fed the crowd's positions and velocities.

use glam::Vec2;

use crate::crowd::evacuation::DANGER_DENSITY;
use crate::level::Bounds;

/// Edge of one cell in metres.
pub const CELL: f32 = 2.0;
/// Seconds the average looks back (its time constant).
pub const AVERAGE_SECONDS: f32 = 3.0;
/// The grid never exceeds this many cells per side (a huge level gets bigger cells).
const MAX_SIDE: usize = 256;
/// Density at the top of the colour scale: a standing jam (people per m²).
pub const DENSITY_FULL: f32 = 3.0;
/// Speed at the top of the colour scale: free walking (m/s).
pub const SPEED_FULL: f32 = 1.4;
/// Cells emptier than this (people per m², averaged) are not painted in the speed view.
pub const SPEED_MIN_DENSITY: f32 = 0.05;

/// What the heat map shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeatView {
    #[default]
    Off,
    Density,
    Speed,
    /// Where an evacuation crowded people dangerously: the crowd's own record
    /// (`crowd::evacuation::PressureMap`), not this map's averages.
    Pressure,
}

impl HeatView {
    /// The next one: off → density → speed → pressure → off.
    pub fn next(self) -> HeatView {
        match self {
            HeatView::Off => HeatView::Density,
            HeatView::Density => HeatView::Speed,
            HeatView::Speed => HeatView::Pressure,
            HeatView::Pressure => HeatView::Off,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct HeatMap {
    bounds: Bounds,
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    /// Averaged people per cell.
    count: Vec<f32>,
    /// Averaged sum of speeds per cell (divided by `count`: the mean speed).
    speed_sum: Vec<f32>,
    /// Scratch: this sample's counts and speed sums.
    now_count: Vec<f32>,
    now_speed: Vec<f32>,
}

impl HeatMap {
    pub fn new(bounds: &Bounds) -> HeatMap {
        let size = bounds.size().max(Vec2::splat(CELL));
        let cell = CELL.max(size.x.max(size.y) / MAX_SIDE as f32);
        let cols = (size.x / cell).ceil() as usize;
        let rows = (size.y / cell).ceil() as usize;
        let n = cols * rows;
        HeatMap {
            bounds: *bounds,
            origin: bounds.min,
            cell,
            cols,
            rows,
            count: vec![0.0; n],
            speed_sum: vec![0.0; n],
            now_count: vec![0.0; n],
            now_speed: vec![0.0; n],
        }
    }

    /// Whether this map was made for `bounds` (a reload may change them).
    pub fn fits(&self, bounds: &Bounds) -> bool {
        self.bounds == *bounds
    }

    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    pub fn dims(&self) -> (usize, usize) {
        (self.cols, self.rows)
    }

    /// The cell's lower corner (x, z) and its index, for a cell in the grid.
    pub fn cell_origin(&self, col: usize, row: usize) -> Vec2 {
        self.origin + Vec2::new(col as f32, row as f32) * self.cell
    }

    fn index(&self, p: Vec2) -> Option<usize> {
        let q = (p - self.origin) / self.cell;
        if !(q.x >= 0.0 && q.y >= 0.0) {
            return None;
        }
        let (c, r) = (q.x as usize, q.y as usize);
        (c < self.cols && r < self.rows).then_some(r * self.cols + c)
    }

    /// Takes one sample of the crowd, `dt` simulated seconds after the last: each cell's
    /// average moves towards this sample by `1 - exp(-dt / AVERAGE_SECONDS)`.
    pub fn sample(&mut self, pos: &[Vec2], vel: &[Vec2], dt: f32) {
        if dt <= 0.0 {
            return;
        }
        self.now_count.fill(0.0);
        self.now_speed.fill(0.0);
        for (p, v) in pos.iter().zip(vel) {
            if let Some(i) = self.index(*p) {
                self.now_count[i] += 1.0;
                self.now_speed[i] += v.length();
            }
        }
        let k = 1.0 - (-dt / AVERAGE_SECONDS).exp();
        for i in 0..self.count.len() {
            self.count[i] += (self.now_count[i] - self.count[i]) * k;
            self.speed_sum[i] += (self.now_speed[i] - self.speed_sum[i]) * k;
        }
    }

    /// Averaged people per m² in a cell.
    pub fn density(&self, col: usize, row: usize) -> f32 {
        self.count[row * self.cols + col] / (self.cell * self.cell)
    }

    /// Mean speed (m/s) of the people averaged into a cell; None where nobody was.
    pub fn mean_speed(&self, col: usize, row: usize) -> Option<f32> {
        let i = row * self.cols + col;
        (self.count[i] > 1e-4).then(|| self.speed_sum[i] / self.count[i])
    }

    /// Averaged density at a ground point (0 outside the grid).
    pub fn density_at(&self, p: Vec2) -> f32 {
        self.index(p)
            .map_or(0.0, |i| self.count[i] / (self.cell * self.cell))
    }

    /// The colour (linear RGBA, alpha = coverage) a cell is painted with in `view`, None when
    /// it is left clear.
    pub fn color(&self, view: HeatView, col: usize, row: usize) -> Option<[f32; 4]> {
        let density = self.density(col, row);
        match view {
            HeatView::Off | HeatView::Pressure => None,
            HeatView::Density => density_color(density),
            HeatView::Speed if density >= SPEED_MIN_DENSITY => {
                self.mean_speed(col, row).map(speed_color)
            }
            HeatView::Speed => None,
        }
    }
}

/// Densities below this (people per m², averaged) are left clear: a person passing now and
/// then is no crowd.
pub const DENSITY_CLEAR: f32 = 0.1;

/// Blue (sparse) through green and yellow to red (a jam at [`DENSITY_FULL`]), more opaque as
/// it fills; clear below [`DENSITY_CLEAR`].
pub fn density_color(density: f32) -> Option<[f32; 4]> {
    if density < DENSITY_CLEAR {
        return None;
    }
    let t = (density / DENSITY_FULL).clamp(0.0, 1.0);
    let [r, g, b] = ramp(t);
    Some([r, g, b, 0.3 + 0.4 * t])
}

/// Red (standing) through yellow to green (free walking at [`SPEED_FULL`]).
pub fn speed_color(speed: f32) -> [f32; 4] {
    let t = (speed / SPEED_FULL).clamp(0.0, 1.0);
    let [r, g, b] = ramp(1.0 - t);
    [r, g, b, 0.5]
}

/// Seconds above the danger density at the top of the pressure layer's scale: half a minute
/// in a crush is already far past what a crowd-safety plan accepts.
pub const PRESSURE_FULL_SECONDS: f32 = 30.0;
/// Peak densities from here up to the danger density are painted faintly in the pressure
/// layer (people per m²): crowded, never dangerous, so the player sees where it nearly was.
pub const PRESSURE_CROWDED: f32 = 2.5;

/// The pressure layer's colour for a spot that peaked at `peak` people per m² and spent
/// `seconds_over` above the danger density: yellow (a moment) to red (`PRESSURE_FULL_SECONDS`
/// or more), opaque enough to read over the crowd; blue where it was crowded but never over,
/// fainter the lower its peak; clear elsewhere.
pub fn pressure_color(peak: f32, seconds_over: f32) -> Option<[f32; 4]> {
    if seconds_over > 0.0 {
        let t = (seconds_over / PRESSURE_FULL_SECONDS).clamp(0.0, 1.0);
        // The ramp's yellow-to-red third: any time over the threshold is a warning colour.
        let [r, g, b] = ramp(2.0 / 3.0 + t / 3.0);
        Some([r, g, b, 0.55 + 0.35 * t])
    } else if peak >= PRESSURE_CROWDED {
        // Deeper the nearer the peak came to the threshold.
        let t = ((peak - PRESSURE_CROWDED) / (DANGER_DENSITY - PRESSURE_CROWDED)).clamp(0.0, 1.0);
        Some([0.35, 0.55, 1.0, 0.2 + 0.35 * t])
    } else {
        None
    }
}

/// 0 blue, 1/3 green, 2/3 yellow, 1 red.
pub fn ramp(t: f32) -> [f32; 3] {
    const STOPS: [[f32; 3]; 4] = [
        [0.15, 0.35, 1.0],
        [0.1, 0.85, 0.3],
        [1.0, 0.9, 0.1],
        [1.0, 0.15, 0.1],
    ];
    let x = t.clamp(0.0, 1.0) * 3.0;
    let i = (x.floor() as usize).min(2);
    let f = x - i as f32;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Bounds {
        Bounds {
            min: Vec2::new(-10.0, -10.0),
            max: Vec2::new(10.0, 10.0),
        }
    }

    /// 8 people in the 2 m cell at (0..2, 0..2), walking at 1 m/s; 4 standing in (4..6, 0..2).
    fn crowd() -> (Vec<Vec2>, Vec<Vec2>) {
        let mut pos = Vec::new();
        let mut vel = Vec::new();
        for k in 0..8 {
            pos.push(Vec2::new(0.2 + 0.2 * k as f32, 1.0));
            vel.push(Vec2::new(0.6, 0.8));
        }
        for k in 0..4 {
            pos.push(Vec2::new(4.5 + 0.3 * k as f32, 0.5));
            vel.push(Vec2::ZERO);
        }
        (pos, vel)
    }

    #[test]
    fn a_steady_crowd_gives_its_density_and_speed() {
        let mut map = HeatMap::new(&bounds());
        assert_eq!(map.dims(), (10, 10));
        let (pos, vel) = crowd();
        // 40 simulated seconds at 60 Hz: the average has converged (e^-13 left).
        for _ in 0..2400 {
            map.sample(&pos, &vel, 1.0 / 60.0);
        }
        // Cell (5, 5) holds 8 people on 4 m².
        assert_approx!(map.density(5, 5), 2.0, 1e-3);
        assert_approx!(map.mean_speed(5, 5).expect("people"), 1.0, 1e-4);
        assert_approx!(map.density(7, 5), 1.0, 1e-3);
        assert_approx!(map.mean_speed(7, 5).expect("people"), 0.0, 1e-6);
        assert_eq!(map.density(0, 0), 0.0);
        assert_eq!(map.mean_speed(0, 0), None);
        assert_approx!(map.density_at(Vec2::new(1.0, 1.0)), 2.0, 1e-3);
    }

    #[test]
    fn the_average_follows_the_last_seconds() {
        let mut map = HeatMap::new(&bounds());
        let (pos, vel) = crowd();
        // One time constant of samples: 1 - 1/e of the way.
        for _ in 0..180 {
            map.sample(&pos, &vel, 1.0 / 60.0);
        }
        assert_approx!(map.density(5, 5), 2.0 * (1.0 - (-1.0f32).exp()), 1e-3);
        // Everyone leaves: after another time constant 1/e of that is left.
        let before = map.density(5, 5);
        for _ in 0..180 {
            map.sample(&[], &[], 1.0 / 60.0);
        }
        assert_approx!(map.density(5, 5), before * (-1.0f32).exp(), 1e-3);
        // Paused: no time, no change.
        let still = map.density(5, 5);
        map.sample(&pos, &vel, 0.0);
        assert_eq!(map.density(5, 5), still);
    }

    #[test]
    fn colours_run_from_clear_to_red_and_views_cycle() {
        assert_eq!(density_color(0.0), None);
        assert_eq!(density_color(0.09), None);
        assert!(density_color(0.1).is_some());
        let jam = density_color(5.0).expect("painted");
        assert_approx!(
            glam::Vec4::from(jam),
            glam::Vec4::new(1.0, 0.15, 0.1, 0.7),
            1e-6
        );
        let free = speed_color(2.0);
        assert_approx!(
            glam::Vec4::from(free),
            glam::Vec4::new(0.15, 0.35, 1.0, 0.5),
            1e-6
        );
        assert_approx!(
            glam::Vec3::from(ramp(0.5)),
            glam::Vec3::new(0.55, 0.875, 0.2),
            1e-6
        );
        assert_eq!(HeatView::Off.next().next().next(), HeatView::Pressure);
        assert_eq!(HeatView::Pressure.next(), HeatView::Off);
        // Pressure: clear when never crowded, faint when crowded, yellow to red by duration.
        assert_eq!(pressure_color(2.0, 0.0), None);
        let faint = pressure_color(PRESSURE_CROWDED, 0.0).expect("painted")[3];
        let near = pressure_color(3.9, 0.0).expect("painted")[3];
        assert!(faint < near && near <= 0.55, "{faint} {near}");
        let brief = pressure_color(4.5, 0.5).expect("painted");
        let long = pressure_color(6.0, 45.0).expect("painted");
        assert!(brief[1] > 0.8 && brief[0] > 0.9, "yellow: {brief:?}");
        assert_approx!(
            glam::Vec4::from(long),
            glam::Vec4::new(1.0, 0.15, 0.1, 0.9),
            1e-6
        );
        let map = HeatMap::new(&bounds());
        assert!(map.fits(&bounds()));
        let bigger = Bounds {
            max: Vec2::new(30.0, 10.0),
            ..bounds()
        };
        assert!(!map.fits(&bigger));
    }
}

//! Arc-length parameterised polylines.
//!
//! Interpolating between vertices by index makes speed depend on vertex spacing: dense parts
//! crawl, sparse parts jump. A cumulative length table lets easing act on *distance*, so a
//! linear progress channel really moves at constant speed.

use glam::{Vec2, Vec3};

/// A point type a path can be made of.
pub trait PathPoint: Copy {
    fn distance(self, other: Self) -> f32;
    fn lerp_to(self, other: Self, t: f32) -> Self;
    fn is_finite_point(self) -> bool;
}

impl PathPoint for Vec2 {
    fn distance(self, other: Self) -> f32 {
        Vec2::distance(self, other)
    }
    fn lerp_to(self, other: Self, t: f32) -> Self {
        self.lerp(other, t)
    }
    fn is_finite_point(self) -> bool {
        self.is_finite()
    }
}

impl PathPoint for Vec3 {
    fn distance(self, other: Self) -> f32 {
        Vec3::distance(self, other)
    }
    fn lerp_to(self, other: Self, t: f32) -> Self {
        self.lerp(other, t)
    }
    fn is_finite_point(self) -> bool {
        self.is_finite()
    }
}

/// Why a polyline cannot become a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    Empty,
    /// Point at this index has a NaN or infinite coordinate.
    NotFinite(usize),
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::Empty => write!(f, "a path needs at least one point"),
            PathError::NotFinite(i) => write!(f, "path point {i} has a NaN or infinite coordinate"),
        }
    }
}

impl std::error::Error for PathError {}

/// A polyline with its cumulative length table `[0, s1, s2, …, L]`.
#[derive(Clone, Debug)]
pub struct ArcLengthPath<P: PathPoint> {
    points: Vec<P>,
    /// Kept in f64 so long paths with many short segments do not drift.
    cumulative: Vec<f64>,
}

impl<P: PathPoint> ArcLengthPath<P> {
    pub fn new(points: &[P]) -> Result<Self, PathError> {
        if points.is_empty() {
            return Err(PathError::Empty);
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite_point()) {
            return Err(PathError::NotFinite(i));
        }
        let mut cumulative = Vec::with_capacity(points.len());
        let mut total = 0.0f64;
        cumulative.push(0.0);
        for pair in points.windows(2) {
            total += pair[0].distance(pair[1]) as f64;
            cumulative.push(total);
        }
        Ok(ArcLengthPath {
            points: points.to_vec(),
            cumulative,
        })
    }

    pub fn points(&self) -> &[P] {
        &self.points
    }

    /// Total length.
    pub fn length(&self) -> f32 {
        self.cumulative.last().copied().unwrap_or(0.0) as f32
    }

    /// The segment containing distance `d` and the fraction along it.
    fn locate(&self, d: f64) -> (usize, f32) {
        let total = *self.cumulative.last().unwrap_or(&0.0);
        if self.points.len() < 2 || total <= 0.0 {
            return (0, 0.0);
        }
        let d = d.clamp(0.0, total);
        // First index whose cumulative length is ≥ d; zero-length segments are skipped because
        // the search lands past them.
        let upper = self.cumulative.partition_point(|&s| s < d).max(1);
        let i = upper - 1;
        let seg = self.cumulative[upper] - self.cumulative[i];
        let f = if seg > 0.0 {
            ((d - self.cumulative[i]) / seg) as f32
        } else {
            0.0
        };
        (i, f)
    }

    /// The point at distance `d` along the path, clamped to [0, length].
    pub fn sample_at_distance(&self, d: f32) -> P {
        if self.points.len() == 1 {
            return self.points[0];
        }
        let d = if d.is_nan() { 0.0 } else { d as f64 };
        let (i, f) = self.locate(d);
        self.points[i].lerp_to(self.points[i + 1], f)
    }

    /// The point at fraction `f` of the total length (0 = start, 1 = end).
    pub fn sample_at_fraction(&self, f: f32) -> P {
        self.sample_at_distance(f * self.length())
    }

    /// Index of the segment that contains distance `d` (for orienting a mover along it).
    pub fn segment_at_distance(&self, d: f32) -> usize {
        self.locate(d as f64).0
    }
}

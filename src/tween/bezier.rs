//! CSS-compatible cubic Bézier timing curves.
//!
//! The curve runs from (0, 0) to (1, 1) with two control points. Time is the x axis, so
//! evaluating means solving x(s) = t for the curve parameter s and returning y(s). Newton
//! converges in a few steps almost everywhere; where the slope is flat it can wander, so a
//! bisection (x(s) is monotonic because x1 and x2 lie in [0, 1]) finishes the job.

/// A cubic Bézier easing with control points (x1, y1) and (x2, y2), as in CSS `cubic-bezier()`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicBezier {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
}

/// Tolerance on x when solving for the curve parameter; keeps the output error well below 1e-5.
const SOLVE_EPS: f64 = 1e-9;
const NEWTON_ITERATIONS: usize = 8;

impl CubicBezier {
    /// CSS `ease`.
    pub const EASE: CubicBezier = CubicBezier::new(0.25, 0.1, 0.25, 1.0);
    /// CSS `ease-in`.
    pub const EASE_IN: CubicBezier = CubicBezier::new(0.42, 0.0, 1.0, 1.0);
    /// CSS `ease-out`.
    pub const EASE_OUT: CubicBezier = CubicBezier::new(0.0, 0.0, 0.58, 1.0);
    /// CSS `ease-in-out`.
    pub const EASE_IN_OUT: CubicBezier = CubicBezier::new(0.42, 0.0, 0.58, 1.0);

    /// Builds the curve. The x coordinates must lie in [0, 1] for the curve to be a function of
    /// time; callers that take user input go through [`crate::tween::Easing::parse`], which checks.
    pub const fn new(x1: f32, y1: f32, x2: f32, y2: f32) -> Self {
        CubicBezier { x1, y1, x2, y2 }
    }

    /// Polynomial coefficients (c, b, a) of one axis, so that p(s) = ((a s + b) s + c) s.
    fn coefficients(p1: f64, p2: f64) -> (f64, f64, f64) {
        let c = 3.0 * p1;
        let b = 3.0 * (p2 - p1) - c;
        let a = 1.0 - c - b;
        (c, b, a)
    }

    fn axis(p1: f32, p2: f32, s: f64) -> f64 {
        let (c, b, a) = Self::coefficients(p1 as f64, p2 as f64);
        ((a * s + b) * s + c) * s
    }

    fn axis_slope(p1: f32, p2: f32, s: f64) -> f64 {
        let (c, b, a) = Self::coefficients(p1 as f64, p2 as f64);
        (3.0 * a * s + 2.0 * b) * s + c
    }

    /// Point on the curve at parameter `s` (not time), for drawing.
    pub fn point(&self, s: f64) -> (f64, f64) {
        (
            Self::axis(self.x1, self.x2, s),
            Self::axis(self.y1, self.y2, s),
        )
    }

    /// Solves x(s) = x for s in [0, 1].
    pub fn solve_parameter(&self, x: f64) -> f64 {
        let x = x.clamp(0.0, 1.0);
        let mut s = x;
        for _ in 0..NEWTON_ITERATIONS {
            let err = Self::axis(self.x1, self.x2, s) - x;
            if err.abs() < SOLVE_EPS {
                return s;
            }
            let slope = Self::axis_slope(self.x1, self.x2, s);
            if slope.abs() < 1e-7 {
                break;
            }
            let next = s - err / slope;
            if !(0.0..=1.0).contains(&next) {
                break;
            }
            s = next;
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        s = x;
        for _ in 0..64 {
            let value = Self::axis(self.x1, self.x2, s);
            if (value - x).abs() < SOLVE_EPS {
                break;
            }
            if value < x {
                lo = s;
            } else {
                hi = s;
            }
            s = 0.5 * (lo + hi);
        }
        s
    }

    /// Output of the timing function at time `t` in [0, 1], in double precision.
    pub fn eval64(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        if t >= 1.0 {
            return 1.0;
        }
        Self::axis(self.y1, self.y2, self.solve_parameter(t))
    }
}

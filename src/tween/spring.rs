//! A damped spring with unit mass, solved in closed form.
//!
//! The closed form (rather than an integrator) makes a step exact for any dt, so a long frame
//! cannot make the spring explode and results do not depend on frame rate.
//!
//! Convergence rule: the spring has *settled* when displacement and velocity are both below
//! [`SETTLE_EPS`]. Checking those two numbers at one instant is not enough, because an
//! underdamped spring passes through zero displacement at speed. Instead we use the mechanical
//! energy `E = ½·k·x² + ½·v²`, which never increases when damping is positive
//! (`dE/dt = -c·v²`). Once `E ≤ ½·min(k, 1)·ε²`, both `|x| ≤ ε` and `|v| ≤ ε` hold from then
//! on, so a settled spring stays settled and every spring track ends.

/// Displacement and velocity bound of the convergence rule (in the animated value's units).
pub const SETTLE_EPS: f64 = 1e-3;

/// Spring parameters: `stiffness` k (1/s²) and `damping` c (1/s), mass 1.
#[derive(Clone, Copy, Debug)]
pub struct Spring {
    stiffness: f32,
    damping: f32,
    /// Settle time of a unit step (from 0 to 1 at rest), cached because the easing form needs
    /// it on every evaluation.
    settle: f64,
}

impl PartialEq for Spring {
    fn eq(&self, other: &Self) -> bool {
        self.stiffness == other.stiffness && self.damping == other.damping
    }
}

/// Why spring parameters were refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpringError {
    /// Stiffness must be finite and > 0.
    Stiffness,
    /// Damping must be finite and > 0, or the spring never settles.
    Damping,
}

impl Spring {
    /// Builds a spring; both parameters must be finite and strictly positive.
    pub fn new(stiffness: f32, damping: f32) -> Result<Self, SpringError> {
        if !(stiffness.is_finite() && stiffness > 0.0) {
            return Err(SpringError::Stiffness);
        }
        if !(damping.is_finite() && damping > 0.0) {
            return Err(SpringError::Damping);
        }
        let mut spring = Spring {
            stiffness,
            damping,
            settle: 0.0,
        };
        spring.settle = spring.settle_time_from(-1.0, 0.0, SETTLE_EPS);
        Ok(spring)
    }

    /// A critically damped spring (fastest approach without overshoot) with the given stiffness.
    pub fn critical(stiffness: f32) -> Result<Self, SpringError> {
        Self::new(stiffness, 2.0 * stiffness.max(0.0).sqrt())
    }

    pub fn stiffness(&self) -> f32 {
        self.stiffness
    }

    pub fn damping(&self) -> f32 {
        self.damping
    }

    /// Seconds a unit step (0 → 1 from rest) takes to satisfy the convergence rule.
    pub fn settle_time(&self) -> f64 {
        self.settle
    }

    /// Advances displacement `x` (value minus target) and velocity `v` by `dt` seconds, exactly.
    pub fn step(&self, x: f64, v: f64, dt: f64) -> (f64, f64) {
        let k = self.stiffness as f64;
        let c = self.damping as f64;
        let w0 = k.sqrt();
        let zeta = c / (2.0 * w0);
        if (zeta - 1.0).abs() < 1e-6 {
            let e = (-w0 * dt).exp();
            let b = v + w0 * x;
            ((x + b * dt) * e, (v - w0 * b * dt) * e)
        } else if zeta < 1.0 {
            let a = zeta * w0;
            let wd = w0 * (1.0 - zeta * zeta).sqrt();
            let e = (-a * dt).exp();
            let (s, co) = (wd * dt).sin_cos();
            (
                e * (x * co + (v + a * x) / wd * s),
                e * (v * co - (a * v + k * x) / wd * s),
            )
        } else {
            let root = (zeta * zeta - 1.0).sqrt();
            let r1 = -w0 * (zeta - root);
            let r2 = -w0 * (zeta + root);
            let c2 = (v - r1 * x) / (r2 - r1);
            let c1 = x - c2;
            let (e1, e2) = ((r1 * dt).exp(), (r2 * dt).exp());
            (c1 * e1 + c2 * e2, r1 * c1 * e1 + r2 * c2 * e2)
        }
    }

    /// Whether (x, v) satisfies the convergence rule for bound `eps` (see the module docs).
    pub fn is_settled(&self, x: f64, v: f64, eps: f64) -> bool {
        self.energy(x, v) <= self.energy_bound(eps)
    }

    fn energy(&self, x: f64, v: f64) -> f64 {
        0.5 * (self.stiffness as f64) * x * x + 0.5 * v * v
    }

    fn energy_bound(&self, eps: f64) -> f64 {
        0.5 * (self.stiffness as f64).min(1.0) * eps * eps
    }

    /// Time until a spring released at (x, v) settles within `eps`. Energy is monotonic, so a
    /// bisection on "has settled by time t" finds the first such time.
    pub fn settle_time_from(&self, x: f64, v: f64, eps: f64) -> f64 {
        let bound = self.energy_bound(eps);
        let settled_at = |t: f64| {
            let (xt, vt) = self.step(x, v, t);
            self.energy(xt, vt) <= bound
        };
        if settled_at(0.0) {
            return 0.0;
        }
        let mut hi = 0.01;
        // A positive damping always settles; the cap only guards against absurd parameters.
        while !settled_at(hi) && hi < 1e7 {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if settled_at(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// The spring as an easing: a unit step from rest, with `t` in [0, 1] mapped linearly onto
    /// spring time `t · settle_time()`. At t = 1 it returns exactly 1 (the convergence rule puts
    /// the true value within `SETTLE_EPS` of it).
    pub fn eval64(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        if t >= 1.0 {
            return 1.0;
        }
        1.0 + self.step(-1.0, 0.0, t * self.settle).0
    }
}

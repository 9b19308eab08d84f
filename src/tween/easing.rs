//! The easing library: named curves, CSS cubic Béziers, springs, steps and custom functions.
//!
//! An [`Easing`] maps normalised time `t` in [0, 1] to progress. Build it once (from code or
//! with [`Easing::parse`]) and keep it in the track; evaluating never looks anything up by name.

use std::f64::consts::PI;
use std::fmt;
use std::sync::Arc;

use super::bezier::CubicBezier;
use super::spring::Spring;

/// The polynomial and classic families that come in In, Out and InOut forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Quad,
    Cubic,
    Quart,
    Quint,
    Sine,
    Expo,
    Circ,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::Quad,
        Family::Cubic,
        Family::Quart,
        Family::Quint,
        Family::Sine,
        Family::Expo,
        Family::Circ,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::Quad => "Quad",
            Family::Cubic => "Cubic",
            Family::Quart => "Quart",
            Family::Quint => "Quint",
            Family::Sine => "Sine",
            Family::Expo => "Expo",
            Family::Circ => "Circ",
        }
    }

    /// The ease-in form; Out and InOut are derived from it by symmetry.
    fn ease_in(self, t: f64) -> f64 {
        match self {
            Family::Quad => t * t,
            Family::Cubic => t * t * t,
            Family::Quart => t * t * t * t,
            Family::Quint => t * t * t * t * t,
            Family::Sine => 1.0 - (t * PI / 2.0).cos(),
            // The textbook 2^(10t-10) is 1/1024 at t = 0; pin the ends so a fade really
            // starts at 0.
            Family::Expo if t <= 0.0 => 0.0,
            Family::Expo if t >= 1.0 => 1.0,
            Family::Expo => (2.0f64).powf(10.0 * t - 10.0),
            Family::Circ => 1.0 - (1.0 - t * t).max(0.0).sqrt(),
        }
    }
}

/// Which end of the curve is eased.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    In,
    Out,
    InOut,
}

impl Direction {
    pub const ALL: [Direction; 3] = [Direction::In, Direction::Out, Direction::InOut];

    pub fn name(self) -> &'static str {
        match self {
            Direction::In => "In",
            Direction::Out => "Out",
            Direction::InOut => "InOut",
        }
    }
}

/// Where the jumps of `steps(n, …)` happen, as in CSS `jump-start` / `jump-end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepPosition {
    /// The first jump happens at t = 0, so the output is 1/n right away.
    Start,
    /// The last jump happens at t = 1; the output is 0 until t reaches 1/n.
    End,
}

/// A user-supplied curve. It should map 0 to 0 and 1 to 1; nothing enforces that.
pub type CustomFn = Arc<dyn Fn(f32) -> f32 + Send + Sync>;

/// An easing curve. See the module docs and `docs/TWEEN.md` for the string forms.
#[derive(Clone)]
pub enum Easing {
    Linear,
    /// `ease{In,Out,InOut}{Quad,Cubic,Quart,Quint,Sine,Expo,Circ}`.
    Standard(Family, Direction),
    OutBack,
    OutElastic,
    OutBounce,
    CubicBezier(CubicBezier),
    /// A unit step response; `t` maps onto spring time over [`Spring::settle_time`]. In the
    /// animator a spring track runs on real time instead (see `Animator::tween_to`).
    Spring(Spring),
    Steps {
        count: u32,
        position: StepPosition,
    },
    Custom(CustomFn),
}

impl fmt::Debug for Easing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Easing({self})")
    }
}

impl PartialEq for Easing {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Easing::Custom(a), Easing::Custom(b)) => Arc::ptr_eq(a, b),
            (Easing::Linear, Easing::Linear)
            | (Easing::OutBack, Easing::OutBack)
            | (Easing::OutElastic, Easing::OutElastic)
            | (Easing::OutBounce, Easing::OutBounce) => true,
            (Easing::Standard(f1, d1), Easing::Standard(f2, d2)) => f1 == f2 && d1 == d2,
            (Easing::CubicBezier(a), Easing::CubicBezier(b)) => a == b,
            (Easing::Spring(a), Easing::Spring(b)) => a == b,
            (
                Easing::Steps {
                    count: c1,
                    position: p1,
                },
                Easing::Steps {
                    count: c2,
                    position: p2,
                },
            ) => c1 == c2 && p1 == p2,
            _ => false,
        }
    }
}

impl Default for Easing {
    fn default() -> Self {
        Easing::Standard(Family::Cubic, Direction::Out)
    }
}

fn out_bounce(t: f64) -> f64 {
    const N: f64 = 7.5625;
    const D: f64 = 2.75;
    if t < 1.0 / D {
        N * t * t
    } else if t < 2.0 / D {
        let t = t - 1.5 / D;
        N * t * t + 0.75
    } else if t < 2.5 / D {
        let t = t - 2.25 / D;
        N * t * t + 0.9375
    } else {
        let t = t - 2.625 / D;
        N * t * t + 0.984375
    }
}

impl Easing {
    /// Shorthand for `Easing::Standard(family, direction)`.
    pub const fn standard(family: Family, direction: Direction) -> Self {
        Easing::Standard(family, direction)
    }

    /// Wraps a closure as a custom easing.
    pub fn custom(f: impl Fn(f32) -> f32 + Send + Sync + 'static) -> Self {
        Easing::Custom(Arc::new(f))
    }

    /// Progress at normalised time `t` (clamped to [0, 1]).
    pub fn eval(&self, t: f32) -> f32 {
        match self {
            Easing::Custom(f) => {
                let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
                f(t)
            }
            _ => self.eval64(t as f64) as f32,
        }
    }

    /// Double-precision evaluation; the animator uses it for derivatives.
    pub fn eval64(&self, t: f64) -> f64 {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        match self {
            Easing::Linear => t,
            // Pinned ends: cos(π/2) and friends leave 1e-16 residues that a fade would show.
            Easing::Standard(..) | Easing::OutBack | Easing::OutBounce if t <= 0.0 => 0.0,
            Easing::Standard(..) | Easing::OutBack | Easing::OutBounce if t >= 1.0 => 1.0,
            Easing::Standard(family, Direction::In) => family.ease_in(t),
            Easing::Standard(family, Direction::Out) => 1.0 - family.ease_in(1.0 - t),
            Easing::Standard(family, Direction::InOut) => {
                if t < 0.5 {
                    0.5 * family.ease_in(2.0 * t)
                } else {
                    1.0 - 0.5 * family.ease_in(2.0 - 2.0 * t)
                }
            }
            Easing::OutBack => {
                const C1: f64 = 1.70158;
                const C3: f64 = C1 + 1.0;
                let u = t - 1.0;
                1.0 + C3 * u * u * u + C1 * u * u
            }
            Easing::OutElastic => {
                if t <= 0.0 {
                    0.0
                } else if t >= 1.0 {
                    1.0
                } else {
                    const C4: f64 = 2.0 * PI / 3.0;
                    (2.0f64).powf(-10.0 * t) * ((t * 10.0 - 0.75) * C4).sin() + 1.0
                }
            }
            Easing::OutBounce => out_bounce(t),
            Easing::CubicBezier(b) => b.eval64(t),
            Easing::Spring(s) => s.eval64(t),
            Easing::Steps { count, position } => {
                let n = (*count).max(1) as f64;
                let jumps = match position {
                    StepPosition::Start => (t * n).floor() + 1.0,
                    StepPosition::End => (t * n).floor(),
                };
                (jumps / n).min(1.0)
            }
            Easing::Custom(f) => f(t as f32) as f64,
        }
    }

    /// Whether the curve never decreases. Custom curves are not analysed and report false.
    pub fn is_monotonic(&self) -> bool {
        match self {
            Easing::Linear | Easing::Standard(..) | Easing::Steps { .. } => true,
            Easing::OutBack | Easing::OutElastic | Easing::OutBounce | Easing::Custom(_) => false,
            Easing::CubicBezier(b) => (0.0..=1.0).contains(&b.y1) && (0.0..=1.0).contains(&b.y2),
            Easing::Spring(s) => {
                // Critically damped or overdamped springs approach without overshoot.
                let zeta = s.damping() as f64 / (2.0 * (s.stiffness() as f64).sqrt());
                zeta >= 1.0 - 1e-6
            }
        }
    }

    /// Every name the parser accepts without arguments, in a stable order.
    pub fn named() -> Vec<(String, Easing)> {
        let mut out = vec![("linear".to_string(), Easing::Linear)];
        for family in Family::ALL {
            for direction in Direction::ALL {
                out.push((
                    format!("ease{}{}", direction.name(), family.name()),
                    Easing::Standard(family, direction),
                ));
            }
        }
        out.push(("easeOutBack".to_string(), Easing::OutBack));
        out.push(("easeOutElastic".to_string(), Easing::OutElastic));
        out.push(("easeOutBounce".to_string(), Easing::OutBounce));
        out
    }
}

impl fmt::Display for Easing {
    /// The canonical string, which [`Easing::parse`] reads back (except `custom`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Easing::Linear => f.write_str("linear"),
            Easing::Standard(family, direction) => {
                write!(f, "ease{}{}", direction.name(), family.name())
            }
            Easing::OutBack => f.write_str("easeOutBack"),
            Easing::OutElastic => f.write_str("easeOutElastic"),
            Easing::OutBounce => f.write_str("easeOutBounce"),
            Easing::CubicBezier(b) => {
                write!(f, "cubicBezier({},{},{},{})", b.x1, b.y1, b.x2, b.y2)
            }
            Easing::Spring(s) => write!(f, "spring({},{})", s.stiffness(), s.damping()),
            Easing::Steps { count, position } => {
                let pos = match position {
                    StepPosition::Start => "start",
                    StepPosition::End => "end",
                };
                write!(f, "steps({count},{pos})")
            }
            Easing::Custom(_) => f.write_str("custom"),
        }
    }
}

impl std::str::FromStr for Easing {
    type Err = super::parse::EasingParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Easing::parse(s)
    }
}

impl<'de> serde::Deserialize<'de> for Easing {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Easing::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Easing {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Easing::Custom(_) = self {
            return Err(serde::ser::Error::custom(
                "a custom easing function has no string form and cannot be saved",
            ));
        }
        serializer.collect_str(self)
    }
}

//! Approximate equality for tests: [`assert_approx!`](crate::assert_approx) compares floats and
//! glam vectors within a tolerance and, when it fails, shows both values and their distance.
//! One implementation for the unit tests in `src/` and the integration tests in `tests/`.

use glam::{Mat3, Mat4, Quat, Vec2, Vec3, Vec4};

/// The distance `assert_approx!` compares against its tolerance: `|a - b|` for numbers, the
/// length of `a - b` for vectors and quaternions (as `(a - b).length()`), and the largest
/// element difference for matrices.
pub trait ApproxDistance {
    fn approx_distance(&self, other: &Self) -> f64;
}

impl ApproxDistance for f32 {
    fn approx_distance(&self, other: &Self) -> f64 {
        (*self - *other).abs() as f64
    }
}

impl ApproxDistance for f64 {
    fn approx_distance(&self, other: &Self) -> f64 {
        (*self - *other).abs()
    }
}

impl ApproxDistance for Vec2 {
    fn approx_distance(&self, other: &Self) -> f64 {
        (*self - *other).length() as f64
    }
}

impl ApproxDistance for Vec3 {
    fn approx_distance(&self, other: &Self) -> f64 {
        (*self - *other).length() as f64
    }
}

impl ApproxDistance for Vec4 {
    fn approx_distance(&self, other: &Self) -> f64 {
        (*self - *other).length() as f64
    }
}

impl ApproxDistance for Quat {
    fn approx_distance(&self, other: &Self) -> f64 {
        (Vec4::from(*self) - Vec4::from(*other)).length() as f64
    }
}

impl ApproxDistance for Mat3 {
    fn approx_distance(&self, other: &Self) -> f64 {
        max_element_difference(&self.to_cols_array(), &other.to_cols_array())
    }
}

impl ApproxDistance for Mat4 {
    fn approx_distance(&self, other: &Self) -> f64 {
        max_element_difference(&self.to_cols_array(), &other.to_cols_array())
    }
}

impl<const N: usize> ApproxDistance for [f32; N] {
    fn approx_distance(&self, other: &Self) -> f64 {
        max_element_difference(self, other)
    }
}

impl<T: ApproxDistance + ?Sized> ApproxDistance for &T {
    fn approx_distance(&self, other: &Self) -> f64 {
        (**self).approx_distance(*other)
    }
}

/// The largest `|a[i] - b[i]|`; NaN when any element is NaN (so the comparison fails).
fn max_element_difference(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |worst, (x, y)| {
        let d = (*x - *y).abs() as f64;
        if d.is_nan() || worst.is_nan() {
            f64::NAN
        } else {
            worst.max(d)
        }
    })
}

/// `Err` with a message naming both values when their distance is not below `tolerance`.
/// The comparison is strict (`distance < tolerance`), like the `(a - b).abs() < eps` it replaces;
/// a NaN anywhere fails.
pub fn check<T: ApproxDistance + std::fmt::Debug + ?Sized>(
    left: &T,
    right: &T,
    tolerance: f64,
    expressions: (&str, &str),
) -> Result<(), String> {
    let distance = left.approx_distance(right);
    if distance < tolerance {
        Ok(())
    } else {
        Err(format!(
            "assert_approx!({}, {}) failed\n  left: {left:?}\n right: {right:?}\n distance {distance:e}, not below the tolerance {tolerance:e}",
            expressions.0, expressions.1
        ))
    }
}

/// Asserts that two floats (or glam vectors, quaternions, matrices, `[f32; N]`) are within a
/// tolerance: `assert_approx!(a, b, 1e-5)` or with a message,
/// `assert_approx!(a, b, 1e-5, "frame {i}")`. See [`ApproxDistance`] for what "within" means.
#[macro_export]
macro_rules! assert_approx {
    ($left:expr, $right:expr, $tolerance:expr $(,)?) => {
        if let Err(message) = $crate::approx::check(
            &$left,
            &$right,
            ($tolerance) as f64,
            (stringify!($left), stringify!($right)),
        ) {
            panic!("{message}");
        }
    };
    ($left:expr, $right:expr, $tolerance:expr, $($context:tt)+) => {
        if let Err(message) = $crate::approx::check(
            &$left,
            &$right,
            ($tolerance) as f64,
            (stringify!($left), stringify!($right)),
        ) {
            panic!("{message}\n  {}", format!($($context)+));
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_passes_and_outside_names_both_values() {
        assert_approx!(1.0f32, 1.0 + 1e-7, 1e-6);
        assert_approx!(
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(1.0, 2.0, 3.000_001),
            1e-5
        );
        assert_approx!(0.5f64, 0.5, 1e-12, "with context {}", 1);
        let err = check(&Vec2::new(0.0, 0.0), &Vec2::new(3.0, 4.0), 1.0, ("a", "b")).unwrap_err();
        assert!(err.contains("left: Vec2(0.0, 0.0)"), "{err}");
        assert!(err.contains("right: Vec2(3.0, 4.0)"), "{err}");
        assert!(err.contains("distance 5e0"), "{err}");
    }

    #[test]
    fn awkward_inputs() {
        // Strict, like the `< eps` comparisons it replaces: equal to the tolerance fails.
        assert!(check(&1.0f32, &1.5, 0.5, ("a", "b")).is_err());
        // NaN never compares close, not even to itself.
        assert!(check(&f32::NAN, &f32::NAN, 1.0, ("a", "b")).is_err());
        assert!(check(&[0.0, f32::NAN], &[0.0, 0.0], 1.0, ("a", "b")).is_err());
        // Infinities: the difference is NaN or infinite, never close.
        assert!(check(&f32::INFINITY, &f32::INFINITY, 1.0, ("a", "b")).is_err());
        // Matrices compare element by element, not by a norm.
        let m = Mat4::from_translation(Vec3::new(0.0, 0.0, 0.01));
        assert!(check(&Mat4::IDENTITY, &m, 0.011, ("a", "b")).is_ok());
        assert!(check(&Mat4::IDENTITY, &m, 0.009, ("a", "b")).is_err());
    }
}

//! Axis scales: where a value lands along an axis (0 at the low end, 1 at the high end) and
//! which ticks and labels the axis shows.

/// A linear range, or a logarithmic one (for values that differ by factors: frame times of
/// render paths, crowd sizes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    Linear {
        min: f64,
        max: f64,
    },
    /// `min` > 0; the fitted form spans whole decades.
    Log {
        min: f64,
        max: f64,
    },
}

/// One tick: gridline at `value`, with a label or without (minor).
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub value: f64,
    pub label: Option<String>,
    /// Major ticks get a darker gridline.
    pub major: bool,
}

impl Scale {
    /// A linear scale from `min` to `max` (swapped when given backwards; widened when equal).
    pub fn linear(min: f64, max: f64) -> Scale {
        let (min, max) = ordered(min, max, 1.0);
        Scale::Linear { min, max }
    }

    /// A log scale from `min` to `max` (both > 0; anything else falls back to 1..10).
    pub fn log(min: f64, max: f64) -> Scale {
        if !(min > 0.0 && max > 0.0 && min.is_finite() && max.is_finite()) {
            return Scale::Log {
                min: 1.0,
                max: 10.0,
            };
        }
        let (min, max) = ordered(min, max, min * 10.0 - min);
        Scale::Log { min, max }
    }

    /// A linear scale holding every finite value, widened to whole tick steps; `from_zero`
    /// starts it at 0 when every value is positive (times, counts).
    pub fn linear_fit(values: impl IntoIterator<Item = f64>, from_zero: bool) -> Scale {
        let (lo, hi) = finite_range(values.into_iter()).unwrap_or((0.0, 1.0));
        let lo = if from_zero { lo.min(0.0) } else { lo };
        let (lo, hi) = ordered(lo, hi, lo.abs().max(1.0));
        let step = nice_step(hi - lo, 6);
        Scale::linear((lo / step).floor() * step, (hi / step).ceil() * step)
    }

    /// A log scale of whole decades holding every positive finite value (at least one decade).
    pub fn log_fit(values: impl IntoIterator<Item = f64>) -> Scale {
        let positive = values.into_iter().filter(|v| *v > 0.0);
        let Some((lo, hi)) = finite_range(positive) else {
            return Scale::log(1.0, 10.0);
        };
        let lo = lo.log10().floor();
        let hi = hi.log10().ceil().max(lo + 1.0);
        Scale::log(10f64.powf(lo), 10f64.powf(hi))
    }

    /// Where `v` lands: 0 at the low end, 1 at the high end, beyond either outside the range.
    /// None for values the scale cannot place (not finite; not positive on a log scale).
    pub fn fraction(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match *self {
            Scale::Linear { min, max } => Some((v - min) / (max - min)),
            Scale::Log { min, max } => (v > 0.0).then(|| (v / min).log10() / (max / min).log10()),
        }
    }

    pub fn ticks(&self) -> Vec<Tick> {
        match *self {
            Scale::Linear { min, max } => linear_ticks(min, max),
            Scale::Log { min, max } => log_ticks(min, max),
        }
    }
}

fn ordered(a: f64, b: f64, widen: f64) -> (f64, f64) {
    let (lo, hi) = (a.min(b), a.max(b));
    if hi > lo {
        (lo, hi)
    } else {
        (lo, lo + widen.abs().max(f64::MIN_POSITIVE))
    }
}

fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |r, v| match r {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

/// A step of 1, 2 or 5 times a power of ten that cuts `span` into about `count` pieces.
pub fn nice_step(span: f64, count: usize) -> f64 {
    let raw = (span / count.max(1) as f64).abs();
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let nice = if m < 1.5 {
        1.0
    } else if m < 3.0 {
        2.0
    } else if m < 7.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// `v` with as many decimals as a tick step of `step` needs, and no `-0`.
pub fn format_tick(v: f64, step: f64) -> String {
    let decimals = (-step.abs().log10().floor()).clamp(0.0, 10.0) as usize;
    let s = format!("{v:.decimals$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

fn linear_ticks(min: f64, max: f64) -> Vec<Tick> {
    let step = nice_step(max - min, 6);
    let first = (min / step - 1e-9).ceil() as i64;
    let last = (max / step + 1e-9).floor() as i64;
    (first..=last)
        .map(|k| {
            let value = k as f64 * step;
            Tick {
                value,
                label: Some(format_tick(value, step)),
                major: true,
            }
        })
        .collect()
}

/// Decades labelled; 2 and 5 within each decade as minor ticks, labelled too when the axis
/// spans at most two decades (otherwise it would show one or two labels only).
fn log_ticks(min: f64, max: f64) -> Vec<Tick> {
    let (lo, hi) = (min.log10().floor() as i32, max.log10().ceil() as i32);
    let label_minor = hi - lo <= 2;
    let inside = |v: f64| v >= min * (1.0 - 1e-9) && v <= max * (1.0 + 1e-9);
    let mut ticks = Vec::new();
    for e in lo..=hi {
        let decade = 10f64.powi(e);
        let decimals = (-e).max(0) as usize;
        for (m, major) in [(1.0, true), (2.0, false), (5.0, false)] {
            let value = decade * m;
            if inside(value) {
                ticks.push(Tick {
                    value,
                    label: (major || label_minor).then(|| format!("{value:.decimals$}")),
                    major,
                });
            }
        }
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(s: Scale) -> Vec<String> {
        s.ticks().into_iter().filter_map(|t| t.label).collect()
    }

    #[test]
    fn linear_maps_ends_to_zero_and_one() {
        let s = Scale::linear(0.6, 2.6);
        assert_approx!(s.fraction(0.6).expect("placed"), 0.0, 1e-4);
        assert_approx!(s.fraction(2.6).expect("placed"), 1.0, 1e-4);
        assert_approx!(s.fraction(1.6).expect("placed"), 0.5, 1e-4);
        assert_eq!(s.fraction(f64::NAN), None);
        assert_eq!(Scale::linear(3.0, 3.0), Scale::linear(3.0, 4.0));
    }

    #[test]
    fn log_maps_decades_evenly_and_refuses_non_positive_values() {
        let s = Scale::log(1.0, 1000.0);
        assert_approx!(s.fraction(10.0).expect("placed"), 1.0 / 3.0, 1e-4);
        assert_approx!(s.fraction(100.0).expect("placed"), 2.0 / 3.0, 1e-4);
        assert_eq!(s.fraction(0.0), None);
        assert_eq!(s.fraction(-1.0), None);
    }

    #[test]
    fn fitted_scales_hold_the_values_on_round_numbers() {
        assert_eq!(
            Scale::log_fit([3.2, 120.0, 0.0, f64::NAN]),
            Scale::log(1.0, 1000.0)
        );
        assert_eq!(Scale::log_fit([100.0]), Scale::log(100.0, 1000.0));
        assert_eq!(Scale::log_fit([]), Scale::log(1.0, 10.0));
        assert_eq!(Scale::linear_fit([0.3, 5.7], true), Scale::linear(0.0, 6.0));
        assert_eq!(
            Scale::linear_fit([0.62, 2.55], false),
            Scale::linear(0.5, 3.0)
        );
    }

    #[test]
    fn log_ticks_label_decades_and_their_halves_only_when_few() {
        assert_eq!(
            labels(Scale::log(0.1, 1000.0)),
            ["0.1", "1", "10", "100", "1000"]
        );
        assert_eq!(
            labels(Scale::log(100.0, 10000.0)),
            ["100", "200", "500", "1000", "2000", "5000", "10000"]
        );
        let minor = Scale::log(0.1, 1000.0)
            .ticks()
            .iter()
            .filter(|t| !t.major)
            .count();
        assert_eq!(minor, 8, "2 and 5 in each of four decades");
    }

    #[test]
    fn linear_ticks_fall_on_round_steps() {
        assert_eq!(
            labels(Scale::linear(0.0, 90.0)),
            ["0", "20", "40", "60", "80"]
        );
        assert_eq!(
            labels(Scale::linear(0.6, 2.6)),
            ["1.0", "1.5", "2.0", "2.5"]
        );
        assert_eq!(format_tick(-0.0001, 0.1), "0.0");
        assert_eq!(nice_step(6.0, 6), 1.0);
    }
}

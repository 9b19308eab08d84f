//! The crowd-size slider is logarithmic: each tenth of its travel multiplies the crowd by about
//! three, so 100 and 100,000 people are both a comfortable drag away.

/// Largest crowd the slider reaches.
pub const SLIDER_MAX_CROWD: u32 = 100_000;

/// Slider position 0..1 → crowd size 0..=SLIDER_MAX_CROWD.
pub fn crowd_from_slider(position: f32) -> u32 {
    let s = if position.is_finite() {
        position.clamp(0.0, 1.0) as f64
    } else {
        0.0
    };
    if s <= 0.0 {
        // The very start of the travel empties the plaza; right after it there is one person.
        return 0;
    }
    let n = 10f64.powf(5.0 * s);
    n.round().clamp(1.0, SLIDER_MAX_CROWD as f64) as u32
}

/// The inverse, for placing the knob at the current crowd size.
pub fn slider_from_crowd(count: u32) -> f32 {
    if count == 0 {
        return 0.0;
    }
    let n = (count as f64).min(SLIDER_MAX_CROWD as f64);
    (n.log10() / 5.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_and_midpoints() {
        assert_eq!(crowd_from_slider(0.0), 0);
        assert_eq!(crowd_from_slider(1.0), 100_000);
        assert_eq!(crowd_from_slider(0.4), 100);
        assert_eq!(crowd_from_slider(0.6), 1_000);
        assert_eq!(crowd_from_slider(0.8), 10_000);
        assert_eq!(crowd_from_slider(f32::NAN), 0);
        assert_eq!(crowd_from_slider(7.0), 100_000);
    }

    #[test]
    fn round_trip_and_monotonic() {
        for n in [0, 1, 10, 250, 2000, 50_000, 100_000] {
            let back = crowd_from_slider(slider_from_crowd(n));
            assert!(
                (back as i64 - n as i64).abs() <= (n as i64 / 1000).max(1),
                "{n} -> {back}"
            );
        }
        let mut last = 0;
        for i in 0..=1000 {
            let n = crowd_from_slider(i as f32 / 1000.0);
            assert!(n >= last);
            last = n;
        }
    }
}

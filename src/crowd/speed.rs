//! Preferred walking speeds, drawn per person from the level's `crowd.walk_speed`: uniform over a
//! range, or normal (Weidmann: 1.34 ± 0.26 m/s) and clamped to it. The normal draw is
//! rand_distr's sampler over the agent's own splitmix state, so the crowd stays deterministic.

use rand_core::RngCore;
use rand_distr::{Distribution, Normal};

use super::{next_random, splitmix64};
use crate::level::WalkSpeed;

/// An agent's splitmix state as a `rand_core` generator.
pub(crate) struct AgentRng<'a>(pub &'a mut u64);

impl RngCore for AgentRng<'_> {
    fn next_u32(&mut self) -> u32 {
        (splitmix64(self.0) >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        splitmix64(self.0)
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        rand_core::impls::fill_bytes_via_next(self, dst)
    }
}

/// One person's preferred speed (m/s), drawn from `rng`.
pub(crate) fn draw_speed(w: &WalkSpeed, rng: &mut u64) -> f32 {
    match w.normal {
        // The uniform draw takes exactly one number, as it always has: levels without a
        // distribution keep their crowds bit for bit.
        None => w.min + (w.max - w.min) * next_random(rng),
        Some(n) => {
            // Validation keeps sd finite and not negative; a bad one falls back to the mean
            // rather than panicking.
            let v = Normal::new(n.mean, n.sd)
                .map(|d| d.sample(&mut AgentRng(rng)))
                .unwrap_or(n.mean);
            // min..max, written so that a NaN bound cannot panic as `clamp` would.
            v.max(w.min).min(w.max)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::NormalSpeed;

    #[test]
    fn uniform_draws_stay_in_range_and_normal_ones_are_clamped() {
        let uniform = WalkSpeed {
            min: 1.0,
            max: 1.5,
            normal: None,
        };
        let normal = WalkSpeed {
            min: 1.2,
            max: 1.4,
            normal: Some(NormalSpeed {
                mean: 1.34,
                sd: 0.26,
            }),
        };
        let mut rng = 5u64;
        let (mut at_min, mut at_max) = (0, 0);
        for _ in 0..2000 {
            let u = draw_speed(&uniform, &mut rng);
            assert!((1.0..=1.5).contains(&u), "{u}");
            let n = draw_speed(&normal, &mut rng);
            assert!((1.2..=1.4).contains(&n), "{n}");
            at_min += (n == 1.2) as usize;
            at_max += (n == 1.4) as usize;
        }
        // With sd 0.26 both tails reach past this narrow clamp often.
        assert!(at_min > 300 && at_max > 300, "{at_min} {at_max}");
    }
}

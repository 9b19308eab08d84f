//! The velocities the meters are given: each person's move over the step just simulated,
//! divided by the step. Not the crowd's own `vel`: that is steering's velocity before the
//! non-overlap pass, which in a queue pushes people back from where they meant to go, so it
//! reads 0.55 m/s where people walk at 0.39–0.40 (PedPy's finite differences and the moves
//! agreeing; `tests/record_pedpy.rs`).

use glam::Vec2;

/// Everyone's position at the last step, and the velocities of the step after it.
#[derive(Debug, Clone, Default)]
pub struct StepMoves {
    last_pos: Vec<Vec2>,
    vel: Vec<Vec2>,
}

impl StepMoves {
    /// The velocities of a step of `dt` seconds that ended at `pos` (call it on the crowd as
    /// spawned with `dt` 0, then after every step). Someone not `present`, or just back in, or
    /// new, has no move yet to measure: zero.
    /// Each person's move is their own: the current rayon pool's threads share the crowd.
    pub fn update(
        &mut self,
        pos: &[Vec2],
        dt: f32,
        present: impl Fn(usize) -> bool + Sync,
    ) -> &[Vec2] {
        use rayon::prelude::*;
        self.vel.resize(pos.len(), Vec2::ZERO);
        let last = &self.last_pos;
        self.vel
            .par_iter_mut()
            .enumerate()
            .with_min_len(8192)
            .for_each(|(i, v)| {
                *v = match last.get(i) {
                    Some(&before)
                        if dt > 0.0 && present(i) && before.is_finite() && !is_far(before) =>
                    {
                        (pos[i] - before) / dt
                    }
                    _ => Vec2::ZERO,
                };
            });
        self.last_pos.resize(pos.len(), Vec2::ZERO);
        self.last_pos
            .par_iter_mut()
            .zip(pos.par_iter())
            .with_min_len(8192)
            .for_each(|(to, from)| *to = *from);
        &self.vel
    }

    /// The velocities of the last `update`.
    pub fn velocities(&self) -> &[Vec2] {
        &self.vel
    }

    /// Forgets the last positions (a new crowd: nobody's move is known).
    pub fn reset(&mut self) {
        self.last_pos.clear();
    }
}

/// Parked people (out of the level) stand kilometres away: a move from there is no walk.
fn is_far(p: Vec2) -> bool {
    p.x.abs() > 1.0e6 || p.y.abs() > 1.0e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_velocity_is_the_move_over_the_step() {
        let mut m = StepMoves::default();
        assert_eq!(
            m.update(&[Vec2::ZERO, Vec2::ONE], 0.0, |_| true),
            &[Vec2::ZERO; 2]
        );
        let v = m
            .update(&[Vec2::new(0.1, 0.0), Vec2::new(1.0, 1.2)], 0.1, |i| i == 0)
            .to_vec();
        assert!((v[0] - Vec2::new(1.0, 0.0)).length() < 1e-5);
        assert_eq!(v[1], Vec2::ZERO, "not present");
        // A newcomer (the crowd grew) has no move yet.
        let v = m
            .update(
                &[Vec2::new(0.2, 0.0), Vec2::new(1.0, 1.2), Vec2::ZERO],
                0.1,
                |_| true,
            )
            .to_vec();
        assert_eq!(v.len(), 3);
        assert_eq!(v[2], Vec2::ZERO);
        assert_eq!(v[1], Vec2::ZERO, "stood still");
    }
}

//! A crowd that ticks slower than the world (30 Hz under the game's 60 Hz step) is drawn
//! between its last two ticks, one tick behind, so people glide on every frame instead of
//! jumping on every other one. Plain data: the game says when a tick is about to run
//! (`remember`) and how far the world has gone since (`blend`); the renderer reads the blend.

use glam::Vec2;

/// A person who moved farther than this in one tick was placed, not walked (a respawn): they
/// are drawn where they are, not slid across the ground.
const PLACED: f32 = 2.0;

/// The crowd's pose at its previous tick and the pose drawn this frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TickPoses {
    prev_pos: Vec<Vec2>,
    prev_heading: Vec<f32>,
    /// Where people are drawn; empty when the crowd ticks with the world (drawn as they are).
    pub pos: Vec<Vec2>,
    pub heading: Vec<f32>,
}

impl TickPoses {
    /// Keeps the pose before a tick: the start of the next blend.
    pub fn remember(&mut self, pos: &[Vec2], heading: &[f32]) {
        copy_on_pool(&mut self.prev_pos, pos);
        copy_on_pool(&mut self.prev_heading, heading);
    }

    /// The pose `alpha` (0 to 1) of the way from the previous tick to the last one. People who
    /// arrived since the previous tick are drawn where they are. Each person's pose is their
    /// own: the current rayon pool's threads share the crowd.
    pub fn blend(&mut self, pos: &[Vec2], heading: &[f32], alpha: f32) {
        use rayon::prelude::*;
        let t = alpha.clamp(0.0, 1.0);
        let n = pos.len().min(heading.len());
        self.pos.resize(n, Vec2::ZERO);
        self.heading.resize(n, 0.0);
        let (prev_pos, prev_heading) = (&self.prev_pos, &self.prev_heading);
        self.pos
            .par_iter_mut()
            .zip(self.heading.par_iter_mut())
            .enumerate()
            .with_min_len(8192)
            .for_each(|(i, (to, to_heading))| {
                let (p, h) = (pos[i], heading[i]);
                (*to, *to_heading) = match (prev_pos.get(i), prev_heading.get(i)) {
                    (Some(&from), Some(&from_heading)) if from.distance(p) < PLACED => {
                        (from.lerp(p, t), lerp_heading(from_heading, h, t))
                    }
                    _ => (p, h),
                };
            });
    }

    /// Back to drawing people where they are (the crowd ticks with the world again, or was
    /// rebuilt).
    pub fn clear(&mut self) {
        *self = TickPoses::default();
    }
}

/// `to` made a copy of `from`, on the current rayon pool (100,000 poses a tick).
fn copy_on_pool<T: Copy + Default + Send + Sync>(to: &mut Vec<T>, from: &[T]) {
    use rayon::prelude::*;
    to.resize(from.len(), T::default());
    to.par_iter_mut()
        .zip(from.par_iter())
        .with_min_len(8192)
        .for_each(|(a, b)| *a = *b);
}

/// The heading `t` of the way from `a` to `b` (radians), turning the short way round.
pub fn lerp_heading(a: f32, b: f32, t: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let turn = (b - a + PI).rem_euclid(TAU) - PI;
    a + turn * t
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::PI;

    #[test]
    fn the_blend_runs_from_the_previous_tick_to_the_last() {
        let mut poses = TickPoses::default();
        poses.remember(&[Vec2::ZERO, Vec2::new(5.0, 0.0)], &[0.0, 1.0]);
        let now = [Vec2::new(0.04, 0.0), Vec2::new(5.0, 0.04)];
        poses.blend(&now, &[0.2, 1.0], 0.0);
        assert_eq!(poses.pos, vec![Vec2::ZERO, Vec2::new(5.0, 0.0)]);
        poses.blend(&now, &[0.2, 1.0], 0.5);
        assert_eq!(poses.pos, vec![Vec2::new(0.02, 0.0), Vec2::new(5.0, 0.02)]);
        assert!((poses.heading[0] - 0.1).abs() < 1e-6);
        poses.blend(&now, &[0.2, 1.0], 1.0);
        assert_eq!(poses.pos, now.to_vec());
    }

    #[test]
    fn newcomers_and_respawned_people_are_drawn_where_they_are() {
        let mut poses = TickPoses::default();
        poses.remember(&[Vec2::ZERO], &[0.0]);
        // Person 0 respawned 30 m away; person 1 is new.
        let now = [Vec2::new(30.0, 0.0), Vec2::new(1.0, 1.0)];
        poses.blend(&now, &[0.5, 0.7], 0.5);
        assert_eq!(poses.pos, now.to_vec());
        assert_eq!(poses.heading, vec![0.5, 0.7]);
    }

    #[test]
    fn headings_turn_the_short_way_across_the_seam() {
        let half = lerp_heading(PI - 0.1, -PI + 0.1, 0.5);
        assert!((half.rem_euclid(2.0 * PI) - PI).abs() < 1e-5, "{half}");
        assert!((lerp_heading(0.3, 0.5, 0.5) - 0.4).abs() < 1e-6);
    }
}

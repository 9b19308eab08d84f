//! Simulation level of detail: people the player cannot see are steered every `LOW_RATE`th step,
//! staggered by index so each step carries the same share; in between they keep walking with the
//! velocity they have, and every step still pushes them apart, out of obstacles and inside the
//! bounds. When they are steered, the step covers all the time since their last one, so their
//! motion and animation catch up. Visible people are steered every step, and so is a margin
//! around the view, so nobody the renderer draws moves on the slow schedule.

use glam::{Vec2, Vec3};

use crate::frustum::Frustum;

/// Unseen people are steered once per this many steps.
pub const LOW_RATE: u64 = 4;
/// Metres added around each person before testing it against the view: a body with props
/// (a raised umbrella, a balloon) and the way it can walk before it is steered again.
pub const VIEW_MARGIN: f32 = 3.0;
/// Height of a person's centre (m).
const CENTRE_HEIGHT: f32 = 0.9;

/// What the player sees: the camera's frustum and how far people are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimView {
    pub frustum: Frustum,
    pub eye: Vec3,
    /// People farther than this are not drawn (the far LOD distance); infinity draws everyone.
    pub far: f32,
}

impl SimView {
    /// True when a person standing at `p` may be drawn.
    pub fn sees(&self, p: Vec2) -> bool {
        let centre = Vec3::new(p.x, CENTRE_HEIGHT, p.y);
        let reach = self.far + VIEW_MARGIN;
        (self.far.is_infinite() || centre.distance_squared(self.eye) <= reach * reach)
            && self.frustum.contains_sphere(centre, VIEW_MARGIN)
    }
}

impl super::Crowd {
    /// Picks who is steered this step and how many seconds their steering covers; returns how
    /// many are steered.
    pub(super) fn select_steered(&mut self, dt: f32, view: Option<&SimView>) -> usize {
        use rayon::prelude::*;
        let step = self.steps;
        let pos = &self.pos;
        self.active
            .par_iter_mut()
            .zip(self.steer_dt.par_iter_mut())
            .zip(self.pending_dt.par_iter_mut())
            .enumerate()
            .with_min_len(4096)
            .map(|(i, ((active, steer_dt), pending))| {
                // On its turn an agent is steered anyway: no need to test the view.
                let on = (i as u64 + step).is_multiple_of(LOW_RATE)
                    || view.is_none_or(|v| v.sees(pos[i]));
                *active = on;
                if on {
                    *steer_dt = *pending + dt;
                    *pending = 0.0;
                } else {
                    *steer_dt = 0.0;
                    *pending += dt;
                }
                on as usize
            })
            .sum()
    }
}

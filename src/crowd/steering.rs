//! Steering: a social-force model (Helbing & Molnár) for the smooth part — a drive towards the
//! goal with arrival, exponential repulsion from nearby people, the hero and obstacles — and
//! position constraints for the hard part: bodies never overlap, never enter obstacles, never
//! leave the bounds. Acceleration and turn rate are capped so motion has no jitter.
//!
//! Why this and not ORCA: at 100,000 agents on two cores the per-agent budget is about 100 ns;
//! social forces cost one pass over the grid neighbours with no linear programme per agent, and
//! the constraint pass gives the "never overlap" guarantee ORCA gives. New velocities are computed
//! from the previous state only, so the result is the same whatever the thread count.

use glam::Vec2;

use super::anim::{choose_clip, ClipKind};
use super::{next_random, AgentState, Crowd, Plan, StepInputs, BODY_RADIUS};

/// Relaxation time towards the desired velocity (s).
const TAU: f32 = 0.45;
/// Social force strength (m/s²) and range (m) between people.
const AGENT_PUSH: f32 = 3.0;
const AGENT_RANGE: f32 = 0.25;
const OBSTACLE_PUSH: f32 = 5.0;
const OBSTACLE_RANGE: f32 = 0.3;
/// Distance from an obstacle's edge (m) within which walkers slide along it.
const SLIDE_RANGE: f32 = 1.2;
const MAX_ACCEL: f32 = 4.0;
/// How far ahead a walker reacts to people in its way (m) and how hard it veers right (m/s²).
pub(super) const LOOK_AHEAD: f32 = 1.6;
/// Neighbours a walker weighs at most per step.
const MAX_NEIGHBOURS: usize = 24;
/// How far ahead (s) and how strongly (m/s²·s) walkers avoid predicted contacts.
const ANTICIPATION_SECONDS: f32 = 2.0;
const ANTICIPATION_PUSH: f32 = 1.5;
const KEEP_RIGHT: f32 = 2.5;
const MAX_ACCEL_SCATTER: f32 = 9.0;
const RUN_SPEED: f32 = 3.4;
const HERO_RADIUS: f32 = 0.35;
/// Radians per second a person turns at most.
const TURN_RATE: f32 = 5.0;
/// Crowds smaller than this are stepped on one thread: spawning threads would cost more.
pub(super) const PARALLEL_FROM: usize = 8_000;

struct Frame<'a> {
    crowd: &'a Crowd,
    inputs: &'a StepInputs,
    dt: f32,
    personal_space: f32,
}

impl Frame<'_> {
    fn velocity(&self, i: usize) -> Vec2 {
        let c = self.crowd;
        let p = c.pos[i];
        let v = c.vel[i];
        let state = c.state[i];
        let scattering = state == AgentState::Scattering;
        let standing = !matches!(state, AgentState::Walking | AgentState::Scattering);
        let to_goal = c.steering_target(i) - p;
        let dist = to_goal.length();
        // Slow down only for the final goal, not at intermediate waypoints.
        let final_leg = c.route[i].len() <= 1;
        let speed = if scattering {
            RUN_SPEED
        } else {
            c.pref_speed[i]
        };
        // Arrive: slow down over the last 1.5 m instead of overshooting.
        let desired = if standing {
            // Hold the spot; drift back gently if pushed off it.
            if dist > 0.3 {
                to_goal / dist * (dist * 0.8).min(0.6)
            } else {
                Vec2::ZERO
            }
        } else if dist > 1e-4 {
            let arrive = if final_leg {
                (dist / 1.5).min(1.0)
            } else {
                1.0
            };
            to_goal / dist * speed * arrive
        } else {
            Vec2::ZERO
        };
        let mut accel = (desired - v) / TAU;

        let range = self.personal_space + 2.0 * BODY_RADIUS;
        let heading = desired.normalize_or_zero();
        // Keep right: people ahead make a walker veer to its right, so two flows pass each other
        // instead of pushing head-on (the convention pedestrians follow).
        let right = Vec2::new(heading.y, -heading.x);
        let mut considered = 0;
        c.grid.for_each_near(p, LOOK_AHEAD, |j| {
            // In a packed crowd the nearest couple of dozen people decide a step; more only cost.
            if j == i || considered >= MAX_NEIGHBOURS {
                return;
            }
            let d = p - c.pos[j];
            let dist = d.length();
            if dist < LOOK_AHEAD {
                considered += 1;
            }
            if dist < range && dist > 1e-5 {
                let gap = dist - 2.0 * BODY_RADIUS;
                // Seated and queuing people are pushed less: they hold their place.
                let push = if standing { 0.5 } else { 1.0 };
                accel += d / dist
                    * AGENT_PUSH
                    * push
                    * (-(gap - self.personal_space * 0.5) / AGENT_RANGE)
                        .exp()
                        .min(8.0);
            }
            if !standing && dist < LOOK_AHEAD && dist > 1e-5 {
                // Anticipation: where will the two be closest, and how soon? Steer away from that
                // future contact now, harder the sooner it comes.
                let rel_v = v - c.vel[j];
                let speed2 = rel_v.length_squared();
                if speed2 > 1e-4 {
                    let t = (-d).dot(rel_v) / speed2;
                    if t > 0.0 && t < ANTICIPATION_SECONDS {
                        let miss = d + rel_v * t;
                        let miss_len = miss.length();
                        let contact = 2.0 * BODY_RADIUS + 0.3;
                        if miss_len < contact {
                            let away = if miss_len > 1e-4 {
                                miss / miss_len
                            } else {
                                right
                            };
                            accel +=
                                away * ANTICIPATION_PUSH * (1.0 - miss_len / contact) / t.max(0.25);
                        }
                    }
                }
                let ahead = heading.dot(-d) / dist;
                if ahead > 0.5 {
                    // Stronger the closer and the more squarely ahead the other person is.
                    accel += right * KEEP_RIGHT * ahead * (1.0 - dist / LOOK_AHEAD);
                }
            }
        });
        if let Some(h) = self.inputs.hero_position {
            let d = p - h;
            let dist = d.length();
            let reach = self.personal_space * 2.0 + HERO_RADIUS + BODY_RADIUS;
            if dist < reach && dist > 1e-5 {
                // Make way: a stronger push than from other people, and sideways of the hero's path.
                let side = Vec2::new(-self.inputs.hero_velocity.y, self.inputs.hero_velocity.x)
                    .normalize_or_zero();
                let side = if side.dot(d) < 0.0 { -side } else { side };
                accel += (d / dist + side * 0.5) * AGENT_PUSH * 2.0 * (1.0 - dist / reach);
            }
        }
        c.obstacles.for_each_near(p, |d, n| {
            let gap = d - BODY_RADIUS;
            if gap < 1.0 {
                accel += n * OBSTACLE_PUSH * (-gap / OBSTACLE_RANGE).exp().min(10.0);
            }
            // Slide: near a wall, the part of the wish that points into it turns along it, so
            // people walk around furniture and along walls to a gap instead of pressing on.
            if gap < SLIDE_RANGE {
                let into = desired.dot(n);
                if into < 0.0 {
                    let along = n.perp();
                    let along = if along.dot(desired) >= 0.0 {
                        along
                    } else {
                        -along
                    };
                    let w = 1.0 - (gap / SLIDE_RANGE).max(0.0);
                    accel += (along - n) * (-into) * w / TAU;
                }
            }
        });
        let cap = if scattering {
            MAX_ACCEL_SCATTER
        } else {
            MAX_ACCEL
        };
        let accel = accel.clamp_length_max(cap);
        let max_speed = if scattering {
            RUN_SPEED * 1.1
        } else {
            c.pref_speed[i] * 1.3
        };
        let nv = (v + accel * self.dt).clamp_length_max(max_speed);
        if nv.is_finite() {
            nv
        } else {
            Vec2::ZERO
        }
    }
}

impl Crowd {
    pub(super) fn steer(&mut self, dt: f32, inputs: &StepInputs) {
        let n = self.len();
        let mut out = std::mem::take(&mut self.new_vel);
        out.resize(n, Vec2::ZERO);
        {
            let frame = Frame {
                crowd: self,
                inputs,
                dt,
                personal_space: self.level.crowd.behaviour.personal_space,
            };
            let threads = self.thread_count();
            // Agents are visited cell by cell (the grid's order), not by index: neighbouring
            // agents share neighbours, so the positions they read stay in the cache.
            let order = self.grid.ordered();
            if threads <= 1 {
                for &i in order {
                    out[i as usize] = frame.velocity(i as usize);
                }
            } else {
                // Each thread computes a run of the order from the shared previous state; the
                // results are scattered afterwards: the same numbers whatever the thread count.
                let chunk = order.len().div_ceil(threads);
                let parts: Vec<Vec<Vec2>> = std::thread::scope(|s| {
                    let handles: Vec<_> = order
                        .chunks(chunk)
                        .map(|run| {
                            let frame = &frame;
                            s.spawn(move || {
                                run.iter().map(|&i| frame.velocity(i as usize)).collect()
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap_or_default())
                        .collect()
                });
                for (run, vels) in order.chunks(chunk).zip(parts) {
                    for (&i, v) in run.iter().zip(vels) {
                        out[i as usize] = v;
                    }
                }
            }
        }
        std::mem::swap(&mut self.vel, &mut out);
        self.new_vel = out;
    }

    pub(super) fn integrate_and_constrain(&mut self, dt: f32, inputs: &StepInputs) {
        let bounds = self.level.bounds;
        for i in 0..self.len() {
            self.pos[i] += self.vel[i] * dt;
        }
        // Bodies never overlap: push overlapping pairs apart, each half the overlap. Sequential
        // in index order, so deterministic.
        let min_d = 2.0 * BODY_RADIUS;
        for _ in 0..2 {
            // In grid order, like steering, for cache locality; still one fixed order.
            for k in 0..self.fine_grid.ordered().len() {
                let i = self.fine_grid.ordered()[k] as usize;
                let p = self.pos[i];
                let mut correction = Vec2::ZERO;
                let pos = &self.pos;
                self.fine_grid.for_each_near(p, min_d, |j| {
                    if j == i {
                        return;
                    }
                    let d = p - pos[j];
                    let dist = d.length();
                    if dist < min_d {
                        let n = if dist > 1e-6 {
                            d / dist
                        } else {
                            // Exactly on top of each other: split by index, deterministically.
                            Vec2::from_angle((i * 7 + j) as f32)
                        };
                        correction += n * (min_d - dist) * 0.5;
                    }
                });
                self.pos[i] += correction;
            }
        }
        if let Some(h) = inputs.hero_position.filter(|h| h.is_finite()) {
            let reach = HERO_RADIUS + BODY_RADIUS;
            for p in &mut self.pos {
                let d = *p - h;
                let dist = d.length();
                if dist < reach {
                    *p = h + d.try_normalize().unwrap_or(Vec2::X) * reach;
                }
            }
        }
        for i in 0..self.len() {
            let p = self.obstacles.resolve(self.pos[i], BODY_RADIUS);
            let p = p.clamp(
                bounds.min + Vec2::splat(BODY_RADIUS),
                bounds.max - Vec2::splat(BODY_RADIUS),
            );
            self.pos[i] = if p.is_finite() { p } else { self.goal[i] };
        }
    }

    pub(super) fn update_heading_and_anim(&mut self, dt: f32) {
        let speeds = self.clip_speeds;
        for i in 0..self.len() {
            let v = self.vel[i];
            let speed = v.length();
            let standing = !matches!(self.state[i], AgentState::Walking | AgentState::Scattering);
            let face = if speed > 0.25 && !standing {
                Some(v)
            } else {
                self.look_at[i].map(|t| t - self.pos[i])
            };
            if let Some(dir) = face.filter(|d| d.length_squared() > 1e-6) {
                // Heading 0 faces -Z: forward is (-sin h, -cos h).
                let target = (-dir.x).atan2(-dir.y);
                let mut delta = (target - self.heading[i]) % std::f32::consts::TAU;
                if delta > std::f32::consts::PI {
                    delta -= std::f32::consts::TAU;
                } else if delta < -std::f32::consts::PI {
                    delta += std::f32::consts::TAU;
                }
                self.heading[i] += delta.clamp(-TURN_RATE * dt, TURN_RATE * dt);
            }
            let idle_clip = match self.state[i] {
                AgentState::Sitting => ClipKind::Sit,
                AgentState::Lingering if matches!(self.plan[i], Plan::Poi(_)) => ClipKind::Talk,
                AgentState::Lingering => ClipKind::LookAround,
                _ if self.hero_attention[i] > 0.0 && i % 3 == 0 => ClipKind::Wave,
                _ => ClipKind::Idle,
            };
            let (clip, rate) = if self.state[i] == AgentState::Sitting {
                (ClipKind::Sit, 1.0)
            } else {
                choose_clip(speed, idle_clip, &speeds)
            };
            let phase = next_random(&mut self.rng_state[i]) * 2.0;
            self.anim[i].advance(clip, rate, dt, phase);
        }
    }
}

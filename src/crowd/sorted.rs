//! The hot per-agent fields, copied each step into the grid's cell order. Agents keep their
//! identity (queues, groups, the renderer and the crowd slider rely on index i being agent i), but
//! steering and constraints read neighbours by the dozen per agent: in cell order those reads are a
//! few contiguous runs. Gathering costs one scattered read per field per agent, written back once.

use glam::Vec2;
use rayon::prelude::*;

use super::{AgentState, Crowd};

/// `flags` bits.
pub(super) const STANDING: u8 = 1;
pub(super) const SCATTERING: u8 = 2;
/// The steering target is the goal itself, not an intermediate waypoint (arrival slows down).
pub(super) const FINAL_LEG: u8 = 4;
/// Steered this step (the simulation LOD steers unseen people less often).
pub(super) const ACTIVE: u8 = 8;
/// Fleeing an alarm: keeps less personal space.
pub(super) const FLEEING: u8 = 16;

/// Separate x and y arrays so the kernels read them as plain `f32` lanes.
#[derive(Default)]
pub(super) struct SortedAgents {
    pub px: Vec<f32>,
    pub py: Vec<f32>,
    pub vx: Vec<f32>,
    pub vy: Vec<f32>,
    /// Where the agent steers now: its next waypoint or its goal.
    pub tx: Vec<f32>,
    pub ty: Vec<f32>,
    pub pref_speed: Vec<f32>,
    /// Seconds of steering this step covers (more than one step for people the LOD skipped).
    pub steer_dt: Vec<f32>,
    pub flags: Vec<u8>,
    /// Agent index of each slot (for deterministic tie-breaks that must not depend on order).
    pub id: Vec<u32>,
    /// The steered velocity, and the position it leads to after one step, written by the
    /// steering pass.
    pub nvx: Vec<f32>,
    pub nvy: Vec<f32>,
    pub qx: Vec<f32>,
    pub qy: Vec<f32>,
    /// Held back by an obstacle, the bounds or the hero during this step's constraints.
    pub pinned: Vec<u8>,
}

fn resize_all(n: usize, fields: &mut [&mut Vec<f32>]) {
    for f in fields {
        f.resize(n, 0.0);
    }
}

/// One agent's hot fields packed in 36 bytes, built in agent order: the gather into
/// cell order then costs one scattered read per agent instead of one per field.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct HotRecord {
    pos: Vec2,
    vel: Vec2,
    target: Vec2,
    pref_speed: f32,
    steer_dt: f32,
    flags: u8,
}

/// What goes back to agent order after the step: position and steered velocity.
pub(super) type Outcome = [f32; 4];

impl SortedAgents {
    /// Copies the hot fields of every agent into slot order (`order[slot]` = agent index).
    /// `records` is scratch in agent order.
    pub fn gather(&mut self, crowd: &Crowd, order: &[u32], records: &mut Vec<HotRecord>) {
        let n = order.len();
        records.resize(n, HotRecord::default());
        records
            .par_iter_mut()
            .enumerate()
            .with_min_len(4096)
            .for_each(|(i, r)| {
                let mut bits = match crowd.state[i] {
                    AgentState::Walking | AgentState::Controlled => 0,
                    AgentState::Scattering => SCATTERING,
                    // Their goal is a point a couple of metres down the exit's field, always
                    // moving on: no slowing down to arrive.
                    AgentState::Fleeing => FLEEING,
                    _ => STANDING,
                };
                if crowd.route[i].len() <= 1 && bits & FLEEING == 0 {
                    bits |= FINAL_LEG;
                }
                // Whoever left waits outside, unsteered.
                if crowd.active[i] && crowd.state[i] != AgentState::Evacuated {
                    bits |= ACTIVE;
                }
                // A walking group's formation steers its members (and slows its leader).
                let (target, pref_speed) = crowd
                    .formation
                    .get(i)
                    .copied()
                    .flatten()
                    .unwrap_or_else(|| (crowd.steering_target(i), crowd.pref_speed[i]));
                let pref_speed = if bits & FLEEING != 0 {
                    crowd.flee_speed(i)
                } else {
                    pref_speed
                };
                *r = HotRecord {
                    pos: crowd.pos[i],
                    vel: crowd.vel[i],
                    target,
                    pref_speed,
                    steer_dt: crowd.steer_dt[i],
                    flags: bits,
                };
            });
        resize_all(
            n,
            &mut [
                &mut self.px,
                &mut self.py,
                &mut self.vx,
                &mut self.vy,
                &mut self.tx,
                &mut self.ty,
                &mut self.pref_speed,
                &mut self.steer_dt,
                &mut self.nvx,
                &mut self.nvy,
            ],
        );
        self.flags.resize(n, 0);
        self.id.clear();
        self.id.extend_from_slice(order);
        let chunk = 2048;
        let records = &*records;
        self.px
            .par_chunks_mut(chunk)
            .zip(self.py.par_chunks_mut(chunk))
            .zip(self.vx.par_chunks_mut(chunk))
            .zip(self.vy.par_chunks_mut(chunk))
            .zip(self.tx.par_chunks_mut(chunk))
            .zip(self.ty.par_chunks_mut(chunk))
            .zip(self.pref_speed.par_chunks_mut(chunk))
            .zip(self.steer_dt.par_chunks_mut(chunk))
            .zip(self.flags.par_chunks_mut(chunk))
            .zip(order.par_chunks(chunk))
            .for_each(
                |(((((((((px, py), vx), vy), tx), ty), speed), sdt), flags), ids)| {
                    for (k, &i) in ids.iter().enumerate() {
                        let r = records[i as usize];
                        px[k] = r.pos.x;
                        py[k] = r.pos.y;
                        vx[k] = r.vel.x;
                        vy[k] = r.vel.y;
                        tx[k] = r.target.x;
                        ty[k] = r.target.y;
                        speed[k] = r.pref_speed;
                        sdt[k] = r.steer_dt;
                        flags[k] = r.flags;
                    }
                },
            );
    }

    pub fn pos(&self, slot: usize) -> Vec2 {
        Vec2::new(self.px[slot], self.py[slot])
    }

    pub fn vel(&self, slot: usize) -> Vec2 {
        Vec2::new(self.vx[slot], self.vy[slot])
    }
}

/// Writes positions and steered velocities back to agent order (`slot_of[i]` = agent i's slot):
/// packed per slot first, so each agent then reads one record.
pub(super) fn write_back(
    sorted: &SortedAgents,
    slot_of: &[u32],
    packed: &mut Vec<Outcome>,
    pos: &mut [Vec2],
    vel: &mut [Vec2],
) {
    packed.resize(sorted.px.len(), [0.0; 4]);
    packed
        .par_iter_mut()
        .enumerate()
        .with_min_len(4096)
        .for_each(|(s, o)| *o = [sorted.px[s], sorted.py[s], sorted.nvx[s], sorted.nvy[s]]);
    let packed = &*packed;
    pos.par_iter_mut()
        .zip(vel.par_iter_mut())
        .zip(slot_of.par_iter())
        .with_min_len(4096)
        .for_each(|((p, v), &s)| {
            let [x, y, vx, vy] = packed[s as usize];
            *p = Vec2::new(x, y);
            *v = Vec2::new(vx, vy);
        });
}

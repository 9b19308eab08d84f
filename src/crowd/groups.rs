//! Walking groups (Moussaïd et al. 2010): friends and families who share a plan, walk abreast
//! when there is room, fold into a V and then a file when it gets crowded or a wall is in the
//! way, wait for whoever falls behind, and stand together facing their middle.
//!
//! A group is a run of consecutive agents: its leader (the first) and its members. The leader
//! picks plans as anyone does; members take the same plan (`adopt`). While the leader walks, the
//! formation gives each member a steering target beside or behind the leader and a speed that
//! closes the gap, and slows the leader while someone lags; nothing here touches the steering
//! kernel, only the target and speed it is handed. Each agent's formation is computed from the
//! previous state alone, in parallel, O(group size) per agent.

use glam::Vec2;
use rayon::prelude::*;

use super::grid::CellGrid;
use super::obstacles::ObstacleField;
use super::{next_random, AgentState, Crowd, Plan, BODY_RADIUS};
use crate::level::{Bounds, Groups};

/// Side by side, centre to centre (m): people walking abreast keep about this.
pub const ABREAST_SPACING: f32 = 0.75;
/// One behind the other in a file (m).
pub const FILE_SPACING: f32 = 0.85;
/// People per m² around the leader below which a group walks abreast, and above which it walks
/// in a file; in between it folds through a V.
pub const ABREAST_BELOW: f32 = 0.45;
pub const FILE_ABOVE: f32 = 1.4;
/// Radius (m) of the box whose people count as the group's surroundings.
const DENSITY_REACH: f32 = 2.0;
/// How far ahead of its slot a member aims (m): past the kernel's 1.5 m arrival slow-down, so a
/// member on its slot walks at full speed and one ahead of it slows.
const LEAD: f32 = 1.6;
/// A member further than this behind its slot (m) slows the leader; at `STOP_LAG` the leader
/// waits. Someone lost beyond `GIVE_UP_LAG` no longer holds the group back.
const WAIT_LAG: f32 = 1.2;
const STOP_LAG: f32 = 3.5;
const GIVE_UP_LAG: f32 = 15.0;
/// Radius (m) of the ring a standing group forms around its meeting point.
const RING: f32 = 0.5;
/// Spare room (m) a slot needs beyond a body from walls and the bounds to be walkable.
const SLOT_ROOM: f32 = 0.15;

/// Per agent: where to steer and how fast, when the formation decides (None: its own route at its
/// own speed).
pub(super) type FormationTarget = Option<(Vec2, f32)>;

/// The chance that a new person starts a group, so that `share` of all people end up in one:
/// groups of mean size m started with chance p hold p·m / (p·m + 1 − p) of the people.
pub(super) fn start_chance(groups: &Groups) -> f32 {
    let total: f32 = groups.sizes.iter().map(|s| s.weight.max(0.0)).sum();
    // Written so that NaN (refused by validation) means no groups too.
    let some = groups.share > 0.0 && total > 0.0;
    if !some {
        return 0.0;
    }
    let mean: f32 = groups
        .sizes
        .iter()
        .map(|s| s.size as f32 * s.weight.max(0.0))
        .sum::<f32>()
        / total;
    let f = groups.share.min(1.0);
    (f / (mean - f * (mean - 1.0)).max(1e-6)).clamp(0.0, 1.0)
}

/// The size of a new group, by the level's weights.
pub(super) fn pick_size(groups: &Groups, rng: &mut u64) -> u8 {
    let total: f32 = groups.sizes.iter().map(|s| s.weight.max(0.0)).sum();
    let mut pick = next_random(rng) * total;
    let mut size = groups.sizes.last().map_or(1, |s| s.size);
    for s in &groups.sizes {
        pick -= s.weight.max(0.0);
        if pick <= 0.0 {
            size = s.size;
            break;
        }
    }
    size.clamp(1, crate::level::MAX_GROUP_SIZE) as u8
}

/// Where rank `k` of a standing group of `n` stands relative to its meeting point.
fn ring_offset(k: usize, n: usize) -> Vec2 {
    if n <= 1 {
        return Vec2::ZERO;
    }
    Vec2::from_angle(k as f32 * std::f32::consts::TAU / n as f32) * RING
}

/// A walking group's shape: each rank's place as (to the right, behind) of the group's front
/// middle, in metres, for a fold from 0 (abreast) through 0.5 (a V, its middle dropped back so
/// everyone can still talk) to 1 (a file, the leader first).
pub fn formation_slot(rank: usize, n: usize, fold: f32) -> Vec2 {
    let half = (n as f32 - 1.0) * 0.5;
    let lateral = (rank as f32 - half) * ABREAST_SPACING;
    let abreast = Vec2::new(lateral, 0.0);
    let v = Vec2::new(lateral * 0.8, (half - (rank as f32 - half).abs()) * 0.9);
    let file = Vec2::new(0.0, rank as f32 * FILE_SPACING);
    let fold = fold.clamp(0.0, 1.0);
    if fold < 0.5 {
        abreast.lerp(v, fold * 2.0)
    } else {
        v.lerp(file, fold * 2.0 - 1.0)
    }
}

/// What the formation pass reads: the previous state of every agent.
struct FormationContext<'a> {
    crowd: &'a Crowd,
    grid: &'a CellGrid,
    obstacles: &'a ObstacleField,
    bounds: Bounds,
}

impl FormationContext<'_> {
    /// People per m² around `p`, from the grid's cell counts.
    fn density(&self, p: Vec2) -> f32 {
        let cols = self.grid.col_span(p.x, DENSITY_REACH);
        let rows = self.grid.row_span(p.y, DENSITY_REACH);
        let people: usize = (rows.lo..=rows.hi)
            .map(|row| self.grid.run(row, cols).len())
            .sum();
        let cell = self.grid.cell_size();
        let area = ((cols.hi - cols.lo + 1) * (rows.hi - rows.lo + 1)) as f32 * cell * cell;
        people as f32 / area.max(1.0)
    }

    fn walkable(&self, p: Vec2) -> bool {
        let r = BODY_RADIUS + SLOT_ROOM;
        p.x >= self.bounds.min.x + r
            && p.x <= self.bounds.max.x - r
            && p.y >= self.bounds.min.y + r
            && p.y <= self.bounds.max.y - r
            && self.obstacles.is_free(p, r)
    }

    /// The fold the group walks in: from the density around its leader, folded further while a
    /// place of the shape would stand in a wall or off the plaza.
    fn fold(&self, leader: usize, n: usize, forward: Vec2) -> f32 {
        let p = self.crowd.pos[leader];
        let density = self.density(p);
        let mut fold = ((density - ABREAST_BELOW) / (FILE_ABOVE - ABREAST_BELOW)).clamp(0.0, 1.0);
        let fits = |fold: f32| {
            (0..n).all(|k| self.walkable(p + world(forward, slot_from_leader(k, n, fold))))
        };
        if fold < 0.5 && !fits(fold) {
            fold = 0.5;
        }
        if fold < 1.0 && !fits(fold) {
            fold = 1.0;
        }
        fold
    }

    /// The walking shape of the group `leader` leads, worked out once per group: which way it
    /// heads, its fold, its pace and the leader's own target. None when the group stands.
    fn shape(&self, leader: usize) -> Option<GroupShape> {
        let c = self.crowd;
        let size = c.group_size[leader] as usize;
        if size <= 1 || c.group_leader[leader] as usize != leader {
            return None;
        }
        if c.state[leader] != AgentState::Walking {
            return None;
        }
        let n = size.min(c.len() - leader);
        let lp = c.pos[leader];
        let forward = (c.steering_target(leader) - lp)
            .try_normalize()
            .or_else(|| c.vel[leader].try_normalize())
            .unwrap_or(Vec2::Y);
        let walking = |m: usize| c.state[m] == AgentState::Walking;
        // The group walks at its slowest member's pace.
        let speed = (leader..leader + n)
            .filter(|&m| walking(m))
            .map(|m| c.pref_speed[m])
            .fold(f32::INFINITY, f32::min);
        let fold = self.fold(leader, n, forward);
        let slot = |k: usize| lp + world(forward, slot_from_leader(k, n, fold));
        // Slow down, then wait, while someone lags behind its place.
        let lag = (leader + 1..leader + n)
            .filter(|&m| walking(m))
            .map(|m| (slot(m - leader) - c.pos[m]).dot(forward).max(0.0))
            .filter(|&lag| lag < GIVE_UP_LAG)
            .fold(0.0, f32::max);
        let wait = 1.0 - ((lag - WAIT_LAG) / (STOP_LAG - WAIT_LAG)).clamp(0.0, 1.0);
        Some(GroupShape {
            forward,
            fold,
            n,
            speed,
            leader_target: (c.steering_target(leader), speed * wait),
        })
    }

    /// The formation's steering target and speed for agent `i`, from its group's shape.
    fn target(&self, i: usize, shapes: &[Option<GroupShape>]) -> FormationTarget {
        let c = self.crowd;
        let leader = c.group_leader[i] as usize;
        let shape = shapes.get(leader).copied().flatten()?;
        if i == leader {
            return Some(shape.leader_target);
        }
        if c.state[i] != AgentState::Walking {
            return None;
        }
        let place = c.pos[leader]
            + world(
                shape.forward,
                slot_from_leader(i - leader, shape.n, shape.fold),
            );
        let behind = (place - c.pos[i]).dot(shape.forward);
        Some((
            place + shape.forward * LEAD,
            shape.speed * (1.0 + 0.6 * behind).clamp(0.3, 1.4),
        ))
    }
}

/// A walking group's shape this step (see `FormationContext::shape`).
#[derive(Debug, Clone, Copy)]
pub(super) struct GroupShape {
    forward: Vec2,
    fold: f32,
    /// Members, leader included.
    n: usize,
    speed: f32,
    leader_target: (Vec2, f32),
}

/// A place given as (to the right, behind) of the leader, relative to the leader's place.
fn slot_from_leader(k: usize, n: usize, fold: f32) -> Vec2 {
    formation_slot(k, n, fold) - formation_slot(0, n, fold)
}

/// (to the right, behind) of a walker heading `forward`, in the plane.
fn world(forward: Vec2, local: Vec2) -> Vec2 {
    let right = Vec2::new(forward.y, -forward.x);
    right * local.x - forward * local.y
}

impl Crowd {
    /// The agents of `i`'s group, leader first (just `i` when it walks alone).
    pub fn group(&self, i: usize) -> std::ops::Range<usize> {
        let leader = self.group_leader[i] as usize;
        leader..(leader + self.group_size[i] as usize).min(self.len())
    }

    /// In a group and not its leader.
    pub(super) fn is_member(&self, i: usize) -> bool {
        self.group_leader[i] as usize != i
    }

    /// A member whose leader is walking follows the formation: its own goal does not count.
    pub(super) fn follows_walking_leader(&self, i: usize) -> bool {
        self.is_member(i) && self.state[self.group_leader[i] as usize] == AgentState::Walking
    }

    /// Sets every agent's formation target for this step (nobody's when the level has no
    /// groups, leaving the crowd exactly as it was without them).
    pub(super) fn update_formations(&mut self) {
        if self.formation.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.formation);
        let mut shapes = std::mem::take(&mut self.group_shapes);
        shapes.resize(out.len(), None);
        let ctx = FormationContext {
            crowd: self,
            grid: &self.grid,
            obstacles: &self.obstacles,
            bounds: self.level.bounds,
        };
        // Density and wall checks once per group, then each member's place from its shape.
        shapes
            .par_iter_mut()
            .enumerate()
            .with_min_len(2048)
            .for_each(|(i, s)| *s = ctx.shape(i));
        out.par_iter_mut()
            .enumerate()
            .with_min_len(2048)
            .for_each(|(i, t)| *t = ctx.target(i, &shapes));
        self.group_shapes = shapes;
        self.formation = out;
        // The person the player steers keeps to the keys, whatever their group does.
        if let Some(t) = self.controlled.and_then(|i| self.formation.get_mut(i)) {
            *t = None;
        }
    }

    /// The leader has chosen a plan: every member takes it (those scattering rejoin later).
    pub(super) fn share_plan(&mut self, leader: usize) {
        for m in self.group(leader).skip(1) {
            if self.state[m] != AgentState::Scattering {
                self.adopt(m);
            }
        }
    }

    /// Member `m` takes its leader's plan: the same point of interest (if it has room) next to
    /// the leader's spot, or the leader's stroll or path, walked in formation.
    pub(super) fn adopt(&mut self, m: usize) {
        let leader = self.group_leader[m] as usize;
        let (rank, n) = (m - leader, self.group_size[m] as usize);
        self.release_place(m);
        self.look_at[m] = None;
        self.timer[m] = 0.0;
        self.state[m] = AgentState::Walking;
        let spot = |c: &Crowd| {
            let meet = c.goal[leader] - ring_offset(0, n);
            c.obstacles
                .resolve(meet + ring_offset(rank, n), BODY_RADIUS)
        };
        match self.plan[leader] {
            Plan::Poi(k) if self.state[leader] != AgentState::Scattering => {
                let cap = self.level.points_of_interest[k as usize].capacity;
                if self.poi_occupancy[k as usize] < cap {
                    self.poi_occupancy[k as usize] += 1;
                    self.plan[m] = Plan::Poi(k);
                }
                self.goal[m] = spot(self);
            }
            Plan::Wander => self.goal[m] = spot(self),
            _ => self.goal[m] = self.goal[leader],
        }
        // Close to the leader's goal: a straight line, no route search.
        self.route[m].clear();
        if self.state[leader] != AgentState::Walking {
            // The leader is already there (or running): walk over and wait beside it.
            let near = self.pos[leader] + ring_offset(rank, n) * 2.0;
            self.goal[m] = self.obstacles.resolve(near, BODY_RADIUS);
            self.plan[m] = Plan::Wander;
        }
    }

    /// The leader's goal moves to its own place of the ring its group will stand in.
    pub(super) fn leader_takes_ring_place(&mut self, leader: usize) {
        let n = self.group_size[leader] as usize;
        if n > 1 && matches!(self.plan[leader], Plan::Poi(_) | Plan::Wander) {
            let spot = self
                .obstacles
                .resolve(self.goal[leader] + ring_offset(0, n), BODY_RADIUS);
            self.goal[leader] = spot;
        }
    }

    /// Where a standing group looks: the middle of its members' places.
    pub(super) fn group_middle(&self, i: usize) -> Option<Vec2> {
        let g = self.group(i);
        if g.len() <= 1 {
            return None;
        }
        let n = g.len() as f32;
        Some(g.map(|m| self.goal[m]).sum::<Vec2>() / n)
    }

    /// A member done with its part (served at a kiosk, a pause over) stands and waits for the
    /// leader to move on.
    pub(super) fn wait_for_group(&mut self, m: usize) {
        self.release_place(m);
        self.state[m] = AgentState::Lingering;
        self.timer[m] = 0.0;
        self.goal[m] = self.pos[m];
        self.route[m].clear();
        self.look_at[m] = self.group_middle(m);
    }

    /// The group of the last agent after the crowd shrank to `n`: it keeps who is left.
    pub(super) fn trim_last_group(&mut self, n: usize) {
        if n == 0 || self.group_size.len() < n {
            return;
        }
        let leader = self.group_leader[n - 1] as usize;
        let left = (n - leader) as u8;
        for s in &mut self.group_size[leader..n] {
            *s = left;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::GroupSize;

    #[test]
    fn the_start_chance_gives_the_asked_share_of_people() {
        let g = Groups {
            share: 0.6,
            sizes: vec![
                GroupSize {
                    size: 2,
                    weight: 1.0,
                },
                GroupSize {
                    size: 4,
                    weight: 1.0,
                },
            ],
        };
        let p = start_chance(&g);
        // Mean size 3: p·3 / (p·3 + 1 − p) = 0.6.
        assert_approx!(p * 3.0 / (p * 3.0 + 1.0 - p), 0.6, 1e-5);
        assert_eq!(start_chance(&Groups::default()), 0.0);
    }

    #[test]
    fn shapes_go_from_abreast_through_a_v_to_a_file() {
        let n = 3;
        let abreast: Vec<Vec2> = (0..n).map(|k| formation_slot(k, n, 0.0)).collect();
        assert!(abreast.iter().all(|s| s.y == 0.0));
        assert_approx!(abreast[2].x - abreast[0].x, 2.0 * ABREAST_SPACING, 1e-6);
        let v: Vec<Vec2> = (0..n).map(|k| formation_slot(k, n, 0.5)).collect();
        assert!(
            v[1].y > v[0].y && v[1].y > v[2].y,
            "the middle drops back: {v:?}"
        );
        let file: Vec<Vec2> = (0..n).map(|k| formation_slot(k, n, 1.0)).collect();
        assert!(file.iter().all(|s| s.x == 0.0));
        assert_approx!(file[2].y, 2.0 * FILE_SPACING, 1e-6);
        // Forward is +y: "to the right" is +x, "behind" is −y.
        assert_approx!(
            world(Vec2::Y, Vec2::new(1.0, 2.0)),
            Vec2::new(1.0, -2.0),
            1e-6
        );
    }
}

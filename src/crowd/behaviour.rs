//! The per-agent state machine: what to do next, what happens on arrival, how long activities
//! last. Weights and durations come from the level's `crowd.behaviour`.
//!
//! | state | enters when | leaves when |
//! |---|---|---|
//! | Walking | a plan is chosen | the goal is reached → the plan's activity |
//! | Lingering / Sitting / WatchingFountain | arrived at a POI of that activity | its timer runs out → new plan |
//! | Queuing | arrived at a Queue POI | served at the front of the line → new plan |
//! | Scattering | a disturbance within its radius | calm-down timer runs out → new plan |
//! | Idle | a fixed goal reached, or nothing reachable | a new plan (not for fixed goals) |

use glam::Vec2;

use super::{next_random, AgentState, Crowd, Plan, StepInputs, BODY_RADIUS};
use crate::level::{Activity, ObstacleKind, Range};

/// Metres from the goal that count as arrived.
const ARRIVE: f32 = 0.6;
/// Spacing between people in a queue.
const QUEUE_SPACING: f32 = 0.75;

fn draw(range: &Range, r: f32) -> f32 {
    range.min + (range.max - range.min) * r
}

impl Crowd {
    /// Passes a waypoint once it is close or the next one is in plain sight. A walker pushed
    /// back behind a door post after passing its waypoint (its target out of sight) turns back
    /// to it (checked every `RECHECK_STEPS` steps, staggered, since a sight line costs a pass
    /// over the obstacles).
    fn follow_route(&mut self, i: usize) {
        const RECHECK_STEPS: u64 = 16;
        let p = self.pos[i];
        if self.route[i].len() > 1 {
            if p.distance(self.route[i][0]) < 1.0
                || self
                    .nav
                    .clear_sweep(p, self.route[i][1], super::BODY_RADIUS)
            {
                self.last_waypoint[i] = Some(self.route[i].remove(0));
            }
        } else if let Some(back) = self.last_waypoint[i] {
            let due = (self.steps + i as u64).is_multiple_of(RECHECK_STEPS);
            if due && self.state[i] == AgentState::Walking {
                let target = self.steering_target(i);
                // Back to the waypoint even when a wall hides it: the slide along walls finds
                // the way round, where heading for a target behind a wall only presses on it.
                if !self.nav.clear_line(p, target) {
                    self.route[i].insert(0, back);
                    if self.route[i].len() == 1 {
                        self.route[i].push(target);
                    }
                }
            }
        }
    }

    pub(super) fn rand(&mut self, i: usize) -> f32 {
        next_random(&mut self.rng_state[i])
    }

    /// Frees the agent's place at a point of interest or in a queue.
    pub(super) fn release_place(&mut self, i: usize) {
        self.release_show_place(i);
        if let super::Plan::Poi(p) = self.plan[i] {
            let p = p as usize;
            if let Some(q) = self.queues.get_mut(p) {
                q.retain(|&a| a as usize != i);
            }
            if let Some(o) = self.poi_occupancy.get_mut(p) {
                *o = o.saturating_sub(1);
            }
        }
        self.plan[i] = Plan::Wander;
    }

    /// Picks the agent's next plan. A group's leader picks for the whole group, which takes the
    /// plan with it; a member takes its leader's.
    pub(super) fn choose_plan(&mut self, i: usize) {
        self.shows_seen[i] = 0;
        if self.is_member(i) {
            self.adopt(i);
            return;
        }
        let size = self.group_size[i] as u32;
        if size <= 1 {
            self.choose_own_plan(i, 1);
            return;
        }
        // Members give up their places first, so the group's new spot has room for all.
        for m in self.group(i).skip(1) {
            if self.state[m] != AgentState::Scattering {
                self.release_place(m);
            }
        }
        self.choose_own_plan(i, size);
        self.leader_takes_ring_place(i);
        self.share_plan(i);
    }

    /// Takes the next plan of the agent's agenda (the story card's "next"), drawing a new last
    /// one; a point of interest that has no room for `room` people now falls back to a fresh
    /// choice by the level's weights.
    fn choose_own_plan(&mut self, i: usize, room: u32) {
        let intent = self.agenda[i][0];
        self.agenda[i][0] = self.agenda[i][1];
        self.agenda[i][1] = self.draw_intent(i);
        self.state[i] = AgentState::Walking;
        self.look_at[i] = None;
        match intent {
            super::story::Intent::Poi(k) => {
                let k = k as usize;
                let fits = self
                    .level
                    .points_of_interest
                    .get(k)
                    .is_some_and(|p| self.poi_occupancy[k].saturating_add(room) <= p.capacity);
                if fits {
                    return self.go_to_poi(i, k);
                }
            }
            super::story::Intent::Path(p) if (p as usize) < self.level.paths.len() => {
                return self.join_path(i, p as usize);
            }
            super::story::Intent::Stroll => {
                self.plan[i] = Plan::Wander;
                let spot = self.random_free_spot(i);
                return self.set_goal(i, spot);
            }
            _ => {}
        }
        self.choose_plan_by_weights(i, room);
    }

    /// A plan for later by the level's weights: a point of interest (by weight), a named path,
    /// or a stroll.
    pub(super) fn draw_intent(&mut self, i: usize) -> super::story::Intent {
        use super::story::Intent;
        let b = &self.level.crowd.behaviour;
        let pois: f32 = self
            .level
            .points_of_interest
            .iter()
            .map(|p| p.weight.max(0.0))
            .sum();
        let w_poi = if pois > 0.0 {
            b.linger_weight.max(0.0)
        } else {
            0.0
        };
        let w_path = if self.level.paths.is_empty() {
            0.0
        } else {
            b.follow_path_weight.max(0.0)
        };
        let w_stroll = b.stroll_weight.max(0.0);
        let r = self.rand(i) * (w_poi + w_path + w_stroll).max(1e-6);
        if r < w_poi {
            let mut pick = self.rand(i) * pois;
            for (k, p) in self.level.points_of_interest.iter().enumerate() {
                pick -= p.weight.max(0.0);
                if pick <= 0.0 {
                    return Intent::Poi(k as u32);
                }
            }
        } else if r < w_poi + w_path {
            let n = self.level.paths.len();
            return Intent::Path(((self.rand(i) * n as f32) as usize % n) as u32);
        }
        Intent::Stroll
    }

    /// Picks a plan by the level's weights: a point of interest (by weight, among those with room
    /// for `room` people), a named path, or a stroll to a random free spot.
    fn choose_plan_by_weights(&mut self, i: usize, room: u32) {
        let b = self.level.crowd.behaviour.clone();
        let has_room = |occupied: u32, capacity: u32| occupied.saturating_add(room) <= capacity;
        let pois_free: f32 = self
            .level
            .points_of_interest
            .iter()
            .enumerate()
            .filter(|(k, p)| has_room(self.poi_occupancy[*k], p.capacity))
            .map(|(_, p)| p.weight.max(0.0))
            .sum();
        let w_poi = if pois_free > 0.0 {
            b.linger_weight
        } else {
            0.0
        };
        let w_path = if self.level.paths.is_empty() {
            0.0
        } else {
            b.follow_path_weight
        };
        let w_stroll = b.stroll_weight.max(0.0);
        let total = w_poi.max(0.0) + w_path.max(0.0) + w_stroll;
        let r = self.rand(i) * total.max(1e-6);
        self.state[i] = AgentState::Walking;
        self.look_at[i] = None;
        if r < w_poi {
            let mut pick = self.rand(i) * pois_free;
            let mut chosen = None;
            for (k, p) in self.level.points_of_interest.iter().enumerate() {
                if !has_room(self.poi_occupancy[k], p.capacity) {
                    continue;
                }
                pick -= p.weight.max(0.0);
                if pick <= 0.0 {
                    chosen = Some(k);
                    break;
                }
            }
            if let Some(k) = chosen {
                self.go_to_poi(i, k);
                return;
            }
        }
        if r < w_poi + w_path {
            let path =
                (self.rand(i) * self.level.paths.len() as f32) as usize % self.level.paths.len();
            self.join_path(i, path);
            return;
        }
        self.plan[i] = Plan::Wander;
        let spot = self.random_free_spot(i);
        self.set_goal(i, spot);
    }

    /// Holds a place at point of interest `k` and walks to a spot on it.
    fn go_to_poi(&mut self, i: usize, k: usize) {
        self.poi_occupancy[k] += 1;
        self.plan[i] = Plan::Poi(k as u32);
        let poi = &self.level.points_of_interest[k];
        let (pos, radius) = (poi.position, poi.radius);
        let a = self.rand(i) * std::f32::consts::TAU;
        let d = self.rand(i).sqrt() * radius;
        let spot = pos + Vec2::from_angle(a) * d;
        let goal = self.obstacles.resolve(spot, BODY_RADIUS);
        self.set_goal(i, goal);
    }

    /// Joins named path `path` at its nearest waypoint, for a few legs.
    fn join_path(&mut self, i: usize, path: usize) {
        {
            let pts = &self.level.paths[path].points;
            let here = self.pos[i];
            let next = pts
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    a.1.distance_squared(here)
                        .total_cmp(&b.1.distance_squared(here))
                })
                .map(|(k, _)| k)
                .unwrap_or(0);
            let goal = pts[next];
            let left = 3 + (self.rand(i) * 5.0) as u32;
            self.plan[i] = Plan::Path {
                path: path as u32,
                next: next as u32,
                left,
            };
            self.set_goal(i, goal);
        }
    }

    fn random_free_spot(&mut self, i: usize) -> Vec2 {
        let b = self.level.bounds;
        let here = self.pos[i];
        let (lo, hi) = (b.min + Vec2::splat(1.0), b.max - Vec2::splat(1.0));
        for _ in 0..12 {
            // Strolls stay within about 40 m so people cross the plaza in believable legs. A spot
            // off the plaza is drawn again rather than clamped: clamping would send everyone
            // near an edge to the same few spots on it, and pile them into the corners.
            let offset = Vec2::new(self.rand(i) * 2.0 - 1.0, self.rand(i) * 2.0 - 1.0) * 40.0;
            let p = here + offset;
            let inside = p.cmpge(lo).all() && p.cmple(hi).all();
            if inside && self.obstacles.is_free(p, 0.5) {
                return p;
            }
        }
        here.clamp(lo, hi.max(lo))
    }

    /// The nearest obstacle of `kind` to `p`: the fountain to watch, the kiosk a queue faces.
    fn nearest_obstacle(&self, kind: ObstacleKind, p: Vec2) -> Option<Vec2> {
        self.level
            .obstacles
            .iter()
            .filter(|o| o.kind == kind)
            .map(|o| o.shape.center())
            .min_by(|a, b| a.distance_squared(p).total_cmp(&b.distance_squared(p)))
    }

    pub(super) fn arrive_at_poi(&mut self, i: usize, k: u32) {
        let b = self.level.crowd.behaviour.clone();
        let poi = self.poi(k).clone();
        let r = self.rand(i);
        match poi.activity {
            Activity::Linger => {
                self.state[i] = AgentState::Lingering;
                self.timer[i] = draw(&b.linger_seconds, r);
                // Small groups face the middle of their spot (a walking group its own middle):
                // they talk to each other.
                self.look_at[i] = Some(self.group_middle(i).unwrap_or(poi.position));
            }
            Activity::Sit => {
                self.state[i] = AgentState::Sitting;
                self.timer[i] = draw(&b.sit_seconds, r);
                self.look_at[i] = self
                    .nearest_obstacle(ObstacleKind::Bench, poi.position)
                    .map(|bench| poi.position * 2.0 - bench);
            }
            Activity::WatchFountain => {
                self.state[i] = AgentState::WatchingFountain;
                self.timer[i] = draw(&b.watch_seconds, r);
                self.look_at[i] = self.nearest_obstacle(ObstacleKind::Fountain, poi.position);
            }
            Activity::Queue => {
                self.state[i] = AgentState::Queuing;
                self.timer[i] = draw(&b.queue_service_seconds, r);
                self.queues[k as usize].push(i as u32);
                self.look_at[i] = self.nearest_obstacle(ObstacleKind::Kiosk, poi.position);
            }
        }
    }

    /// Where the agent at place `slot` of queue `k` stands: along its line, or past its end.
    fn queue_slot(&self, k: u32, slot: usize) -> Vec2 {
        let line = &self.queue_lines[k as usize];
        match line.get(slot) {
            Some(&p) => p,
            None => {
                let last = line.last().copied().unwrap_or(self.poi(k).position);
                let before = line.len().checked_sub(2).map_or(last, |j| line[j]);
                let away = (last - before).normalize_or_zero();
                last + away * QUEUE_SPACING * (slot + 1 - line.len().max(1)) as f32
            }
        }
    }

    /// Every queue's line of places: from the counter straight away from the kiosk, turning
    /// (left first, by 30° steps) where the next place would stand in an obstacle or off the
    /// plaza, so a line bends round a bench or a fence instead of running through it.
    pub(super) fn build_queue_lines(&mut self) {
        let b = self.level.bounds;
        let (lo, hi) = (b.min + Vec2::splat(0.5), b.max - Vec2::splat(0.5));
        let mut lines = Vec::with_capacity(self.level.points_of_interest.len());
        for k in 0..self.level.points_of_interest.len() {
            let poi = &self.level.points_of_interest[k];
            if poi.activity != Activity::Queue {
                lines.push(Vec::new());
                continue;
            }
            let mut dir = self
                .nearest_obstacle(ObstacleKind::Kiosk, poi.position)
                .map(|kiosk| (poi.position - kiosk).normalize_or_zero())
                .filter(|d| *d != Vec2::ZERO)
                .unwrap_or(Vec2::Y);
            let mut line = vec![poi.position];
            let places = poi.capacity.clamp(1, 64) as usize;
            'places: while line.len() < places {
                let last = line[line.len() - 1];
                for turn in [0.0f32, 30.0, -30.0, 60.0, -60.0, 90.0, -90.0, 120.0, -120.0] {
                    let d = Vec2::from_angle(turn.to_radians()).rotate(dir);
                    let p = last + d * QUEUE_SPACING;
                    let inside = p.cmpge(lo).all() && p.cmple(hi).all();
                    let clear_of_line = line.iter().all(|q| q.distance(p) > QUEUE_SPACING * 0.9);
                    if inside && clear_of_line && self.obstacles.is_free(p, BODY_RADIUS + 0.1) {
                        line.push(p);
                        // Bend back towards the line's first direction once past the obstacle.
                        dir = d;
                        continue 'places;
                    }
                }
                break;
            }
            lines.push(line);
        }
        self.queue_lines = lines;
    }

    /// Where each queue's places stand (empty for points of interest that are not queues).
    pub fn queue_lines(&self) -> &[Vec<Vec2>] {
        &self.queue_lines
    }

    /// People served at each point of interest's counter so far.
    pub fn served(&self) -> &[u32] {
        &self.served
    }

    /// One step of every agent's behaviour; returns the milliseconds the shows took (a part of
    /// the behaviour phase, reported as `StepTimings::shows_ms`).
    pub(super) fn update_behaviour(&mut self, dt: f32, inputs: &StepInputs) -> f64 {
        let b = self.level.crowd.behaviour.clone();
        self.update_alarm(dt);
        if let Some(d) = inputs.disturbance.filter(|d| d.is_finite()) {
            let r2 = b.disturbance_radius * b.disturbance_radius;
            for i in 0..self.len() {
                let away = self.pos[i] - d;
                if away.length_squared() < r2
                    && self.plan[i] != Plan::Fixed
                    && Some(i) != self.controlled
                    && !matches!(self.state[i], AgentState::Fleeing | AgentState::Evacuated)
                {
                    self.release_place(i);
                    let dir = away
                        .try_normalize()
                        .unwrap_or(Vec2::from_angle(self.rand(i) * std::f32::consts::TAU));
                    let target = d + dir * b.disturbance_radius * 1.6;
                    let bounds = self.level.bounds;
                    let goal = self.obstacles.resolve(
                        target.clamp(bounds.min + Vec2::ONE, bounds.max - Vec2::ONE),
                        0.5,
                    );
                    self.set_goal(i, goal);
                    self.state[i] = AgentState::Scattering;
                    self.timer[i] = b.calm_down_seconds;
                    self.look_at[i] = None;
                }
            }
        }
        // Queues advance: each member walks to its slot; the front one is served.
        for k in 0..self.queues.len() {
            let line = self.queues[k].clone();
            for (slot, &a) in line.iter().enumerate() {
                // Queue slots stand in the open in front of the kiosk: no route needed.
                self.goal[a as usize] = self.queue_slot(k as u32, slot);
                self.route[a as usize].clear();
            }
            if let Some(&front) = line.first() {
                let f = front as usize;
                if self.pos[f].distance(self.goal[f]) < ARRIVE {
                    self.timer[f] -= dt;
                    if self.timer[f] <= 0.0 && self.is_member(f) {
                        self.served[k] += 1;
                        self.wait_for_group(f);
                    } else if self.timer[f] <= 0.0 {
                        self.served[k] += 1;
                        self.release_place(f);
                        self.choose_plan(f);
                    }
                }
            }
        }
        let shows_start = crate::clock::Instant::now();
        self.update_shows(dt, inputs);
        let shows_ms = shows_start.elapsed().as_secs_f64() * 1000.0;
        self.steer_controlled();
        let hero = inputs.hero_position.filter(|h| h.is_finite());
        for i in 0..self.len() {
            // Pass a waypoint once it is close or the next one is in plain sight.
            self.follow_route(i);
            // Notice the hero when close: look at it, and some wave.
            if let Some(h) = hero {
                if self.pos[i].distance(h) < b.notice_hero_distance
                    && !matches!(self.state[i], AgentState::Scattering)
                {
                    self.hero_attention[i] = 1.5;
                }
            }
            self.hero_attention[i] = (self.hero_attention[i] - dt).max(0.0);
            let arrived = self.pos[i].distance(self.goal[i]) < ARRIVE;
            match self.state[i] {
                AgentState::Walking if arrived && !self.follows_walking_leader(i) => {
                    match self.plan[i] {
                        Plan::Poi(k) => self.arrive_at_poi(i, k),
                        Plan::Path { path, next, left } => {
                            let p = &self.level.paths[path as usize];
                            let n = p.points.len() as u32;
                            let next = if p.looped {
                                Some((next + 1) % n)
                            } else if next + 1 < n {
                                Some(next + 1)
                            } else {
                                None
                            };
                            match next.filter(|_| left > 0) {
                                Some(next) => {
                                    let goal = p.points[next as usize];
                                    self.set_goal(i, goal);
                                    self.plan[i] = Plan::Path {
                                        path,
                                        next,
                                        left: left - 1,
                                    };
                                }
                                None => self.choose_plan(i),
                            }
                        }
                        Plan::Wander => {
                            // A short pause to look around before the next leg.
                            self.state[i] = AgentState::Lingering;
                            self.timer[i] = 1.0 + self.rand(i) * 3.0;
                            if self.group_size[i] > 1 {
                                self.look_at[i] = self.group_middle(i);
                            }
                        }
                        Plan::Fixed => self.state[i] = AgentState::Idle,
                        // Arrivals at shows are `update_shows`' part.
                        Plan::Watch { .. } | Plan::Perform(_) => {}
                    }
                }
                AgentState::Lingering | AgentState::Sitting | AgentState::WatchingFountain => {
                    self.timer[i] -= dt;
                    // A member stays until its leader moves the group on.
                    if self.timer[i] <= 0.0 && !self.is_member(i) {
                        self.release_place(i);
                        self.choose_plan(i);
                    }
                }
                AgentState::Scattering => {
                    self.timer[i] -= dt;
                    if self.timer[i] <= 0.0 {
                        self.choose_plan(i);
                    }
                }
                _ => {}
            }
        }
        shows_ms
    }
}

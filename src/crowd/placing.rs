//! Placed things joining a running crowd: whether a thing fits where the player wants it
//! (`check_fit`: inside the plaza, clear of everything, not cutting any spawn zone or point of
//! interest off from the rest), and the crowd taking a new set of placed things without a
//! restart (`Crowd::set_placed`): the obstacle field and routes rebuilt, anyone inside a new
//! thing pushed out along the shortest way, walkers whose way is now blocked (or newly open)
//! re-planned first, points of interest and shows kept by name.

use std::fmt;

use glam::Vec2;

use super::nav::NavGrid;
use super::obstacles::ObstacleField;
use super::{AgentState, Crowd, Plan, BODY_RADIUS};
use crate::level::sandbox::{first_overlap, owner_name, world_level};
use crate::level::{Level, Placed};

/// Why a thing cannot go where the player holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Misfit {
    /// Part of it would stand off the plaza.
    OutsideBounds,
    /// It would overlap this element (an obstacle or another placed thing).
    Overlaps(String),
    /// It would cut this spawn zone or point of interest off from the rest of the plaza.
    BlocksRoute(String),
    /// Its name is empty or taken.
    Name(String),
}

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misfit::OutsideBounds => write!(f, "outside the plaza"),
            Misfit::Overlaps(name) => write!(f, "overlaps {name}"),
            Misfit::BlocksRoute(name) => write!(f, "blocks the only way to {name}"),
            Misfit::Name(name) => write!(f, "the name `{name}` is taken"),
        }
    }
}

/// Whether `thing` fits into `file_level` (whose `placed` must not already hold it: a thing
/// being moved is checked against the level without it).
pub fn check_fit(file_level: &Level, thing: &Placed) -> Result<(), Misfit> {
    FitCheck::new(file_level).check(thing)
}

/// The level's side of `check_fit`, worked out once: its world (file elements and placed
/// things) and the spawn zones and points of interest its route grid reaches from the first
/// spawn zone. The build
/// toolbar keeps one while the level is unchanged and checks its ghost against it each frame.
pub struct FitCheck {
    before: Level,
    /// Spawn zones and points of interest reached now, by the name messages give them.
    targets: Vec<(String, Vec2)>,
}

impl FitCheck {
    pub fn new(file_level: &Level) -> FitCheck {
        let before = world_level(file_level);
        let nav = NavGrid::new(&before);
        let start = before.spawn_zones.first().map(|z| z.center);
        let reached = start.map_or_else(Vec::new, |s| nav.reachable_from(s));
        let targets = before
            .spawn_zones
            .iter()
            .map(|z| (format!("spawn zone `{}`", z.name), z.center))
            .chain(
                before
                    .points_of_interest
                    .iter()
                    .map(|p| (format!("`{}`", p.name), p.position)),
            )
            .filter(|(_, p)| start.is_some() && nav.is_reached(&reached, *p))
            .collect();
        FitCheck { before, targets }
    }

    /// Whether `thing` fits the level this was made for.
    pub fn check(&self, thing: &Placed) -> Result<(), Misfit> {
        let before = &self.before;
        if before.placed.iter().any(|p| p.name == thing.name) {
            return Err(Misfit::Name(thing.name.clone()));
        }
        let b = before.bounds;
        if thing.extreme_points().iter().any(|p| !b.contains(*p)) {
            return Err(Misfit::OutsideBounds);
        }
        let pieces = thing.obstacles();
        if let Some(hit) = first_overlap(&pieces, &before.obstacles) {
            let name = owner_name(&hit);
            let what = match before.placed.iter().find(|p| p.name == name) {
                Some(p) => format!("the {} `{name}`", p.kind.label()),
                None => format!("`{name}`"),
            };
            return Err(Misfit::Overlaps(what));
        }
        match self.cut_off(pieces) {
            Some(cut) => Err(Misfit::BlocksRoute(cut)),
            None => Ok(()),
        }
    }

    /// The first spawn zone or point of interest the level reaches from its first spawn zone
    /// and would not with `pieces` added.
    fn cut_off(&self, pieces: Vec<crate::level::Obstacle>) -> Option<String> {
        let start = self.before.spawn_zones.first()?.center;
        let mut after = self.before.clone();
        after.obstacles.extend(pieces);
        let nav_after = NavGrid::new(&after);
        let is = nav_after.reachable_from(start);
        self.targets
            .iter()
            .find(|(_, p)| !nav_after.is_reached(&is, *p))
            .map(|(name, _)| name.clone())
    }
}

impl Crowd {
    /// Takes the file level's placed things (the rest of the level must be the one the crowd
    /// runs): obstacles and routes at once, without a restart.
    pub fn set_placed(&mut self, file_level: &Level) {
        let world = world_level(&Level {
            placed_expanded: false,
            ..file_level.clone()
        });
        // Points of interest are matched by name: the file's keep their indices, the placed
        // ones are appended in `placed` order and may come, go or move.
        let old_names: Vec<String> = self
            .level
            .points_of_interest
            .iter()
            .map(|p| p.name.clone())
            .collect();
        let remap: Vec<Option<u32>> = old_names
            .iter()
            .map(|n| {
                world
                    .points_of_interest
                    .iter()
                    .position(|p| &p.name == n)
                    .map(|k| k as u32)
            })
            .collect();
        let moved: Vec<bool> = old_names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                world
                    .points_of_interest
                    .iter()
                    .find(|p| &p.name == n)
                    .is_none_or(|p| p.position != self.level.points_of_interest[k].position)
            })
            .collect();
        let mut queues = vec![Vec::new(); world.points_of_interest.len()];
        for (k, q) in std::mem::take(&mut self.queues).into_iter().enumerate() {
            if let (Some(Some(to)), false) = (remap.get(k), moved[k]) {
                queues[*to as usize] = q;
            }
        }
        self.queues = queues;
        self.poi_occupancy = vec![0; world.points_of_interest.len()];
        self.served.resize(world.points_of_interest.len(), 0);
        self.obstacles = ObstacleField::new(&world, 2.0);
        self.nav = NavGrid::new(&world);
        self.evacuation.scenery_changed();
        self.level = world;
        self.build_queue_lines();
        let mut lost = Vec::new();
        for i in 0..self.len() {
            if let Plan::Poi(k) = self.plan[i] {
                match (remap.get(k as usize), moved.get(k as usize)) {
                    (Some(Some(to)), Some(false)) => {
                        self.plan[i] = Plan::Poi(*to);
                        self.poi_occupancy[*to as usize] += 1;
                    }
                    _ => lost.push(i),
                }
            }
        }
        for plans in &mut self.agenda {
            for intent in plans.iter_mut() {
                if let super::story::Intent::Poi(k) = *intent {
                    *intent = match remap.get(k as usize) {
                        Some(Some(to)) => super::story::Intent::Poi(*to),
                        _ => super::story::Intent::Stroll,
                    };
                }
            }
        }
        for i in lost {
            self.plan[i] = Plan::Wander;
            self.state[i] = AgentState::Walking;
            self.choose_plan(i);
        }
        self.push_out_of_obstacles();
        self.replan_blocked_walkers();
        self.rebuild_shows();
    }

    /// Anyone a new thing stands on steps off it the shortest way.
    fn push_out_of_obstacles(&mut self) {
        let b = self.level.bounds;
        for i in 0..self.len() {
            if !self.obstacles.is_free(self.pos[i], BODY_RADIUS) {
                let out = self.obstacles.resolve(self.pos[i], BODY_RADIUS);
                self.pos[i] = out.clamp(b.min, b.max);
                self.vel[i] = Vec2::ZERO;
            }
        }
    }

    /// Walkers whose way ahead is now blocked, or whose detour is no longer needed, search
    /// again, ahead of the queue; goals now inside an obstacle move to its edge.
    fn replan_blocked_walkers(&mut self) {
        let mut urgent = Vec::new();
        for i in 0..self.len() {
            if !self.obstacles.is_free(self.goal[i], BODY_RADIUS) {
                self.goal[i] = self.obstacles.resolve(self.goal[i], BODY_RADIUS);
            }
            let mut from = self.pos[i];
            let mut blocked = false;
            for &w in &self.route[i] {
                if !self.nav.clear_line(from, w) {
                    blocked = true;
                    break;
                }
                from = w;
            }
            let blocked = blocked
                || (self.route[i].is_empty() && !self.nav.clear_line(self.pos[i], self.goal[i]));
            let detour_gone =
                self.route[i].len() > 1 && self.nav.clear_line(self.pos[i], self.goal[i]);
            if blocked || detour_gone {
                self.route[i].clear();
                self.last_waypoint[i] = None;
                if blocked {
                    urgent.push(i as u32);
                }
            }
        }
        self.route_requests.retain(|a| !urgent.contains(a));
        for &i in urgent.iter().rev() {
            self.route_requests.push_front(i);
        }
        // A fence across a busy path can leave a hundred walkers to re-plan: they get a burst
        // of searches now rather than waiting their turn of `ROUTES_PER_STEP` a step.
        self.route_burst = urgent.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::ThingKind;

    fn plaza() -> Level {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("plaza.ron");
        crate::level::parse_level(&text, "plaza.ron", root).expect("it parses")
    }

    fn thing(kind: ThingKind, at: Vec2, heading_deg: f32) -> Placed {
        Placed {
            name: "new".into(),
            kind,
            at,
            heading_deg,
        }
    }

    #[test]
    fn a_thing_on_the_fountain_overlaps_it_and_one_off_the_plaza_is_outside() {
        let level = plaza();
        assert_eq!(
            check_fit(&level, &thing(ThingKind::Bench, Vec2::ZERO, 0.0)),
            Err(Misfit::Overlaps("`fountain`".into()))
        );
        let edge = level.bounds.max;
        assert_eq!(
            check_fit(&level, &thing(ThingKind::FoodStand, edge, 0.0)),
            Err(Misfit::OutsideBounds)
        );
        assert_eq!(
            check_fit(
                &level,
                &thing(ThingKind::Bollard, Vec2::new(20.0, 20.0), 0.0)
            ),
            Ok(())
        );
    }
}

//! Exits and alarm events (issue #32): names, numbers, where an exit may lie and the alarm
//! behaviour's ranges. Whether people can walk to each exit needs the crowd's route grid, which
//! `level` cannot name (the crowd is built on levels): `crate::level_routes` checks that, and
//! `throng check` and the level editor run it after these checks pass (`RouteCheck`).

use glam::Vec2;

use super::{fmt2, Checker};
use crate::level::schema::*;

/// How far (m) an exit line's end may stand from the bounds' edge or an obstacle and still
/// count as on it: a designer writes a street end to the half metre, not the centimetre.
pub const EXIT_REACH: f32 = 0.5;

/// What an exit line must be, after `; allowed: ` in its message.
const LINE_ALLOWED: &str = "both ends within 0.5 m of the same edge of the bounds (a street \
     end), or a line across an opening: each end within 0.5 m of an obstacle or of the bounds' \
     edge, at least one at an obstacle (a doorway between two walls)";

/// What a capacity must be, after `; allowed: ` in its message.
const CAPACITY_ALLOWED: &str =
    "people per second above 0, or leave it out for 1.3 a second per metre of width";

/// What an alarm's all-clear time must be, after `; allowed: ` in its message.
const ALL_CLEAR_ALLOWED: &str = "seconds above 0, or leave it out for an alarm that lasts \
     until the player gives the all-clear";

/// The four edges of the bounds as segments.
fn bounds_edges(b: &Bounds) -> [(Vec2, Vec2); 4] {
    let (lo, hi) = (b.min, b.max);
    let (lo_hi, hi_lo) = (Vec2::new(lo.x, hi.y), Vec2::new(hi.x, lo.y));
    [(lo, hi_lo), (hi_lo, hi), (lo_hi, hi), (lo, lo_hi)]
}

/// Distance from `p` to the segment `a`-`b` (the exit line's own measure).
fn to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    ExitArea::Line(a, b).distance(p)
}

/// A distance for a message: to the decimetre, without trailing zeros.
fn metres(d: f32) -> String {
    format!("{}", (d * 10.0).round() / 10.0)
}

/// Where a line's end stands: how far from the nearest bounds edge and the nearest obstacle.
struct EndPlace {
    edge: f32,
    obstacle: f32,
}

impl EndPlace {
    fn of(p: Vec2, world: &Level) -> EndPlace {
        EndPlace {
            edge: bounds_edges(&world.bounds)
                .iter()
                .map(|(a, b)| to_segment(p, *a, *b))
                .fold(f32::INFINITY, f32::min),
            obstacle: world
                .obstacles
                .iter()
                .map(|o| o.shape.signed_distance(p).0.max(0.0))
                .fold(f32::INFINITY, f32::min),
        }
    }

    /// Against a side of an opening: an obstacle or the bounds' edge.
    fn held(&self) -> bool {
        self.edge <= EXIT_REACH || self.obstacle <= EXIT_REACH
    }
}

impl Checker<'_> {
    /// Exits: unique names, finite numbers, lines on the bounds or across an opening, boxes
    /// with area inside the bounds, capacities above 0.
    pub(super) fn exits(&mut self, level: &Level) {
        self.unique("exits", level.exits.iter().map(|e| e.name.as_str()));
        // Placed things are obstacles too: a doorway may stand between two of them.
        let world = crate::level::sandbox::world_level(level);
        for (i, e) in level.exits.iter().enumerate() {
            let f = format!("exits[{i}]");
            match e.area {
                ExitArea::Line(a, b) => self.exit_line(&f, &e.name, (a, b), &world),
                ExitArea::Box {
                    center,
                    half_extents,
                } => self.exit_box(&f, &e.name, center, half_extents, &level.bounds),
            }
            match e.capacity {
                Some(c) if !c.is_finite() => self.fail(
                    format!("{f}.capacity"),
                    format!("{c} is not a finite number; allowed: {CAPACITY_ALLOWED}"),
                ),
                Some(c) if c <= 0.0 => self.fail(
                    format!("{f}.capacity"),
                    format!("{c} would let nobody out; allowed: {CAPACITY_ALLOWED}"),
                ),
                _ => {}
            }
        }
    }

    fn exit_line(&mut self, f: &str, name: &str, (a, b): (Vec2, Vec2), world: &Level) {
        // Both ends checked, so each non-finite one is named.
        let finite_a = self.finite2(&format!("{f}.area[0]"), a);
        if !(self.finite2(&format!("{f}.area[1]"), b) && finite_a) {
            return;
        }
        let field = format!("{f}.area");
        if a.distance(b) <= 0.0 {
            self.fail(
                field,
                format!(
                    "`{name}` runs from {} to the same point: it has no width; allowed: two \
                     different points, across the opening",
                    fmt2(a)
                ),
            );
            return;
        }
        let on_edge = |s: Vec2, t: Vec2| {
            to_segment(a, s, t) <= EXIT_REACH && to_segment(b, s, t) <= EXIT_REACH
        };
        if bounds_edges(&world.bounds)
            .iter()
            .any(|(s, t)| on_edge(*s, *t))
        {
            return;
        }
        let (pa, pb) = (EndPlace::of(a, world), EndPlace::of(b, world));
        let at_obstacle = pa.obstacle.min(pb.obstacle) <= EXIT_REACH;
        if pa.held() && pb.held() && at_obstacle {
            return;
        }
        // The end to name: one against nothing, else (both at the bounds' edge, on two
        // different edges) the one farther from an obstacle.
        let (end, place) = if !pa.held() || (pb.held() && pa.obstacle >= pb.obstacle) {
            (a, pa)
        } else {
            (b, pb)
        };
        let obstacle = if place.obstacle.is_finite() {
            format!("{} m from the nearest obstacle", metres(place.obstacle))
        } else {
            "the level has no obstacles".to_string()
        };
        self.fail(
            field,
            format!(
                "`{name}` lies neither on the bounds nor across an opening: its end {} is {} m \
                 from the bounds' edge and {obstacle}; allowed: {LINE_ALLOWED}",
                fmt2(end),
                metres(place.edge)
            ),
        );
    }

    fn exit_box(&mut self, f: &str, name: &str, center: Vec2, half: Vec2, b: &Bounds) {
        let finite_center = self.finite2(&format!("{f}.area.center"), center);
        if !(self.finite2(&format!("{f}.area.half_extents"), half) && finite_center) {
            return;
        }
        if half.x <= 0.0 || half.y <= 0.0 {
            self.fail(
                format!("{f}.area.half_extents"),
                format!("{} has no area; both must be above 0", fmt2(half)),
            );
            return;
        }
        if let Some(out) = [center - half, center + half]
            .into_iter()
            .find(|p| !b.contains(*p))
        {
            self.fail(
                format!("{f}.area.center"),
                format!(
                    "`{name}` reaches {} outside the plaza bounds {} to {}",
                    fmt2(out),
                    fmt2(b.min),
                    fmt2(b.max)
                ),
            );
        }
    }

    /// Alarm events: a start time, a place inside the bounds, an all-clear after some time.
    pub(super) fn alarms(&mut self, level: &Level) {
        for (i, alarm) in level.alarms.iter().enumerate() {
            let f = format!("alarms[{i}]");
            self.at_least(&format!("{f}.at"), alarm.at, 0.0);
            let position = format!("{f}.position");
            if self.finite2(&position, alarm.position) {
                self.inside_bounds(&position, alarm.position, &level.bounds);
            }
            let field = format!("{f}.all_clear_after");
            match alarm.all_clear_after {
                Some(s) if !s.is_finite() => self.fail(
                    field,
                    format!("{s} is not a finite number; allowed: {ALL_CLEAR_ALLOWED}"),
                ),
                Some(s) if s <= 0.0 => self.fail(
                    field,
                    format!("{s} must be above 0; allowed: {ALL_CLEAR_ALLOWED}"),
                ),
                _ => {}
            }
        }
    }

    /// `crowd.behaviour.alarm`: distances, shares, rates and durations in sensible ranges.
    pub(super) fn alarm_behaviour(&mut self, al: &AlarmBehaviour) {
        let f = |name: &str| format!("crowd.behaviour.alarm.{name}");
        self.in_range(&f("hearing_radius"), al.hearing_radius, 0.0, 1000.0);
        self.in_range(&f("behind_walls"), al.behind_walls, 0.0, 1.0);
        self.range(&f("reaction_seconds"), &al.reaction_seconds, 0.0, 600.0);
        self.in_range(&f("contagion_rate"), al.contagion_rate, 0.0, 100.0);
        self.in_range(&f("sight_distance"), al.sight_distance, 0.0, 100.0);
        self.in_range(&f("speed_factor"), al.speed_factor, 0.5, 3.0);
        self.in_range(
            &f("switch_margin_seconds"),
            al.switch_margin_seconds,
            0.0,
            600.0,
        );
        self.range(&f("calm_seconds"), &al.calm_seconds, 0.0, 3600.0);
        self.range(&f("return_seconds"), &al.return_seconds, 0.0, 3600.0);
    }
}

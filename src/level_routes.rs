//! The level checks that need the crowd's route grid: every open exit can be walked to from
//! every spawn zone. `level` validates everything else about exits, but it cannot name `crowd`
//! (the crowd is built on levels), so this sits above both and is handed to `throng check`
//! (`level::check::check_files`) and the level editor (`Editor::with_route_check`) as a
//! `level::validate::RouteCheck`.

use glam::Vec2;

use crate::crowd::nav::NavGrid;
use crate::footprint::obstacle_contains;
use crate::level::sandbox::world_level;
use crate::level::validate::Finding;
use crate::level::{ExitArea, Level, SpawnZone};

/// Points along an exit (m apart) tested against the route grid's flood: one reached point
/// makes the exit reachable. Half a 1 m cell, so no cell the exit crosses is skipped.
const SAMPLE_STEP: f32 = 0.5;
/// Samples along one side of an exit at most, whatever its size.
const MAX_SAMPLES: usize = 512;

/// Where the flood from a spawn zone starts: its centre, or where the centre stands inside an
/// obstacle, the first of an 8 x 8 grid of the zone's points that does not (validation makes
/// sure one exists).
fn zone_start(zone: &SpawnZone, world: &Level) -> Vec2 {
    let free = |p: Vec2| {
        !world
            .obstacles
            .iter()
            .any(|o| obstacle_contains(&o.shape, p))
    };
    if free(zone.center) {
        return zone.center;
    }
    (0..64)
        .map(|k| {
            let t = Vec2::new((k % 8) as f32 + 0.5, (k / 8) as f32 + 0.5) / 8.0 * 2.0 - Vec2::ONE;
            zone.center + t * zone.half_extents
        })
        .find(|p| free(*p))
        .unwrap_or(zone.center)
}

/// The points of an exit the route grid is asked about: along a line, or over a box.
fn exit_points(area: &ExitArea) -> Vec<Vec2> {
    let count = |len: f32| ((len / SAMPLE_STEP).ceil() as usize).clamp(1, MAX_SAMPLES);
    match *area {
        ExitArea::Line(a, b) => {
            let n = count(a.distance(b));
            (0..=n).map(|k| a.lerp(b, k as f32 / n as f32)).collect()
        }
        ExitArea::Box {
            center,
            half_extents,
        } => {
            let (nx, nz) = (count(2.0 * half_extents.x), count(2.0 * half_extents.y));
            let corner = center - half_extents;
            (0..=nx)
                .flat_map(|i| (0..=nz).map(move |j| (i, j)))
                .map(|(i, j)| {
                    let t = Vec2::new(i as f32 / nx as f32, j as f32 / nz as f32);
                    corner + t * 2.0 * half_extents
                })
                .collect()
        }
    }
}

/// Open exits nobody from some spawn zone can walk to (a wall or a row of buildings closes
/// every way there), over the crowd's own route grid, placed things included: one finding per
/// exit, at `exits[N].area`, naming the first zone cut off from it. Closed exits are left out:
/// a locked door may stand anywhere. For a valid level (its numbers finite).
pub fn unreachable_exits(level: &Level) -> Vec<Finding> {
    let open: Vec<(usize, &crate::level::Exit)> = level
        .exits
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.closed)
        .collect();
    if open.is_empty() {
        return Vec::new();
    }
    let world = world_level(level);
    let nav = NavGrid::new(&world);
    // Zones in one walkable area share its flood: a level's zones are usually all connected,
    // so this floods once, not once per zone.
    let mut floods: Vec<Vec<bool>> = Vec::new();
    let mut cut: Vec<Option<&str>> = vec![None; level.exits.len()];
    for zone in &level.spawn_zones {
        let start = zone_start(zone, &world);
        let k = match floods.iter().position(|r| nav.is_reached(r, start)) {
            Some(k) => k,
            None => {
                floods.push(nav.reachable_from(start));
                floods.len() - 1
            }
        };
        for (i, exit) in &open {
            let reached = exit_points(&exit.area)
                .into_iter()
                .any(|p| nav.is_reached(&floods[k], p));
            if !reached && cut[*i].is_none() {
                cut[*i] = Some(&zone.name);
            }
        }
    }
    open.iter()
        .filter_map(|(i, exit)| {
            let zone = cut[*i]?;
            Some(Finding {
                field: format!("exits[{i}].area"),
                message: format!(
                    "`{}` cannot be reached from spawn zone `{zone}`: obstacles close every \
                     way there; allowed: an exit people can walk to from every spawn zone \
                     (open a way, move it, or mark it `closed: true`)",
                    exit.name
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plaza() -> Level {
        ron::from_str(include_str!("../levels/plaza.ron")).expect("plaza parses")
    }

    #[test]
    fn the_plaza_reaches_every_exit_and_one_walled_off_is_named() {
        let mut level = plaza();
        assert_eq!(unreachable_exits(&level), vec![]);
        // A wall along the whole north edge, 1.2 m in from it: the north exit opens onto the
        // strip behind the wall, which no zone reaches.
        level.obstacles.push(crate::level::Obstacle {
            name: "barrier".into(),
            kind: crate::level::ObstacleKind::Wall,
            shape: crate::level::Shape::Box {
                center: Vec2::new(0.0, -98.5),
                half_extents: Vec2::new(100.0, 0.3),
                angle_deg: 0.0,
            },
            height: 0.0,
        });
        let found = unreachable_exits(&level);
        assert_eq!(
            found,
            vec![Finding {
                field: "exits[0].area".into(),
                message: "`north_exit` cannot be reached from spawn zone `north_street`: \
                          obstacles close every way there; allowed: an exit people can walk to \
                          from every spawn zone (open a way, move it, or mark it `closed: true`)"
                    .into(),
            }]
        );
        // Locked, it is nobody's way out: nothing to report.
        level.exits[0].closed = true;
        assert_eq!(unreachable_exits(&level), vec![]);
    }

    #[test]
    fn exit_samples_cover_lines_and_boxes() {
        let line = exit_points(&ExitArea::Line(Vec2::ZERO, Vec2::new(2.0, 0.0)));
        assert_eq!(line.len(), 5);
        assert_eq!(line[4], Vec2::new(2.0, 0.0));
        let boxed = exit_points(&ExitArea::Box {
            center: Vec2::ZERO,
            half_extents: Vec2::new(1.0, 0.5),
        });
        assert_eq!(boxed.len(), 5 * 3);
        assert!(boxed.contains(&Vec2::new(1.0, 0.5)));
    }
}

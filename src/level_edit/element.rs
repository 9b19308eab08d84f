//! The things a designer sees and moves in a level: each has a name, a kind, a field path in the
//! file (so `locate` can say `file:line:col`), and for the movable ones a handle on the ground.

use glam::Vec2;

use crate::footprint::box_to_world;
use crate::level::{Activity, ExitArea, Level, ObstacleKind, Shape};

/// One element of a level, by its place in the level's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Element {
    Bounds,
    Obstacle(usize),
    Poi(usize),
    /// A whole path; its points are `PathPoint(path, point)`.
    Path(usize),
    PathPoint(usize, usize),
    Spawn(usize),
    HeroSpawn,
    CameraStart,
    /// A way out (`exits[N]`): a line or a box, moved whole.
    Exit(usize),
    /// A measurement area (`measurement_areas[N]`): a polygon.
    MeasurementArea(usize),
    /// A measurement line (`measurement_lines[N]`).
    MeasurementLine(usize),
}

/// Moved handles land on this grid (metres), so a saved file holds round numbers.
pub const POSITION_STEP: f32 = 0.05;

/// Snaps a coordinate to [`POSITION_STEP`].
pub fn snap(v: f32) -> f32 {
    (v / POSITION_STEP).round() * POSITION_STEP
}

/// What moves with something else keeps its own offset, to the centimetre: a seat 0.9 m in
/// front of its bench stays 0.9 m in front (the bench's grid would shift it), and the file
/// gets two decimals.
fn centimetres(v: f32) -> f32 {
    (v * 100.0).round() / 100.0
}

/// A Sit point of interest belongs to the bench nearest it (the bench the people sitting there
/// use) when its point is within this of the bench's footprint (metres).
pub const SEAT_REACH: f32 = 1.5;

impl Element {
    /// Where the element is written in the level file, as a `locate` field path.
    pub fn field_path(&self) -> String {
        match *self {
            Element::Bounds => "bounds".to_string(),
            Element::Obstacle(i) => format!("obstacles[{i}]"),
            Element::Poi(i) => format!("points_of_interest[{i}]"),
            Element::Path(i) => format!("paths[{i}]"),
            Element::PathPoint(i, k) => format!("paths[{i}].points[{k}]"),
            Element::Spawn(i) => format!("spawn_zones[{i}]"),
            Element::HeroSpawn => "hero.spawn".to_string(),
            Element::CameraStart => "camera".to_string(),
            Element::Exit(i) => format!("exits[{i}]"),
            Element::MeasurementArea(i) => format!("measurement_areas[{i}]"),
            Element::MeasurementLine(i) => format!("measurement_lines[{i}]"),
        }
    }

    /// The element a field path (an error's, say) is about, when the level has it:
    /// `paths[1].points[3]` is that point, `obstacles[2].shape.radius` the obstacle.
    pub fn from_field_path(path: &str, level: &Level) -> Option<Element> {
        let index = |prefix: &str| -> Option<(usize, &str)> {
            let rest = path.strip_prefix(prefix)?.strip_prefix('[')?;
            let (n, tail) = rest.split_once(']')?;
            Some((n.parse().ok()?, tail))
        };
        let found = if let Some((i, _)) = index("obstacles") {
            Element::Obstacle(i)
        } else if let Some((i, _)) = index("points_of_interest") {
            Element::Poi(i)
        } else if let Some((i, _)) = index("spawn_zones") {
            Element::Spawn(i)
        } else if let Some((i, _)) = index("exits") {
            Element::Exit(i)
        } else if let Some((i, _)) = index("measurement_areas") {
            Element::MeasurementArea(i)
        } else if let Some((i, _)) = index("measurement_lines") {
            Element::MeasurementLine(i)
        } else if let Some((i, tail)) = index("paths") {
            let point = tail
                .strip_prefix(".points[")
                .and_then(|t| t.split_once(']'))
                .and_then(|(n, _)| n.parse().ok());
            match point {
                Some(k) => Element::PathPoint(i, k),
                None => Element::Path(i),
            }
        } else if path.starts_with("bounds") {
            Element::Bounds
        } else if path.starts_with("hero.spawn") {
            Element::HeroSpawn
        } else if path.starts_with("camera") {
            Element::CameraStart
        } else {
            return None;
        };
        found.exists_in(level).then_some(found)
    }

    pub fn exists_in(&self, level: &Level) -> bool {
        match *self {
            Element::Obstacle(i) => i < level.obstacles.len(),
            Element::Poi(i) => i < level.points_of_interest.len(),
            Element::Spawn(i) => i < level.spawn_zones.len(),
            Element::Exit(i) => i < level.exits.len(),
            Element::MeasurementArea(i) => i < level.measurement_areas.len(),
            Element::MeasurementLine(i) => i < level.measurement_lines.len(),
            Element::Path(i) => i < level.paths.len(),
            Element::PathPoint(i, k) => level.paths.get(i).is_some_and(|p| k < p.points.len()),
            Element::Bounds | Element::HeroSpawn | Element::CameraStart => true,
        }
    }

    /// The designer's name for it (the file's `name`, or what it is).
    pub fn name(&self, level: &Level) -> String {
        let named = match *self {
            Element::Obstacle(i) => level.obstacles.get(i).map(|o| o.name.clone()),
            Element::Poi(i) => level.points_of_interest.get(i).map(|p| p.name.clone()),
            Element::Spawn(i) => level.spawn_zones.get(i).map(|z| z.name.clone()),
            Element::Exit(i) => level.exits.get(i).map(|e| e.name.clone()),
            Element::MeasurementArea(i) => level.measurement_areas.get(i).map(|a| a.name.clone()),
            Element::MeasurementLine(i) => level.measurement_lines.get(i).map(|l| l.name.clone()),
            Element::Path(i) => level.paths.get(i).map(|p| p.name.clone()),
            Element::PathPoint(i, k) => level.paths.get(i).map(|p| format!("{} #{k}", p.name)),
            Element::Bounds => Some("bounds".to_string()),
            Element::HeroSpawn => Some("hero spawn".to_string()),
            Element::CameraStart => Some("camera start".to_string()),
        };
        named.unwrap_or_default()
    }

    /// What kind of thing it is, in words.
    pub fn kind(&self, level: &Level) -> String {
        match *self {
            Element::Obstacle(i) => match level.obstacles.get(i) {
                Some(o) => {
                    let shape = match o.shape {
                        Shape::Circle { .. } => "circle",
                        Shape::Box { .. } => "box",
                    };
                    format!("obstacle ({:?}, {shape})", o.kind)
                }
                None => "obstacle".to_string(),
            },
            Element::Poi(i) => match level.points_of_interest.get(i) {
                Some(p) => format!("point of interest ({:?})", p.activity),
                None => "point of interest".to_string(),
            },
            Element::Spawn(_) => "spawn zone".to_string(),
            Element::Exit(i) => match level.exits.get(i) {
                Some(e) => {
                    let shape = match e.area {
                        ExitArea::Line(..) => "line",
                        ExitArea::Box { .. } => "box",
                    };
                    let state = if e.closed { "closed" } else { "open" };
                    format!("exit ({shape}, {state}, {:.1} people/s)", e.capacity())
                }
                None => "exit".to_string(),
            },
            Element::MeasurementArea(i) => match level.measurement_areas.get(i) {
                Some(a) => format!(
                    "measurement area ({} corners, {:.1} m²)",
                    a.polygon.len(),
                    crate::polygon::polygon_area(&a.polygon)
                ),
                None => "measurement area".to_string(),
            },
            Element::MeasurementLine(i) => match level.measurement_lines.get(i) {
                Some(l) => format!("measurement line ({:.1} m)", l.length()),
                None => "measurement line".to_string(),
            },
            Element::Path(_) => "path".to_string(),
            Element::PathPoint(..) => "path point".to_string(),
            Element::Bounds => "bounds".to_string(),
            Element::HeroSpawn => "hero spawn".to_string(),
            Element::CameraStart => "camera start".to_string(),
        }
    }

    /// Whether edit mode drags it.
    pub fn movable(&self) -> bool {
        matches!(
            self,
            Element::Obstacle(_)
                | Element::Poi(_)
                | Element::Spawn(_)
                | Element::PathPoint(..)
                | Element::Exit(_)
                | Element::MeasurementArea(_)
                | Element::MeasurementLine(_)
        )
    }

    /// Where its handle stands on the ground (x, z): the point a drag moves.
    pub fn anchor(&self, level: &Level) -> Option<Vec2> {
        match *self {
            Element::Obstacle(i) => level.obstacles.get(i).map(|o| o.shape.center()),
            Element::Poi(i) => level.points_of_interest.get(i).map(|p| p.position),
            Element::Spawn(i) => level.spawn_zones.get(i).map(|z| z.center),
            Element::Exit(i) => level.exits.get(i).map(|e| e.area.center()),
            Element::MeasurementArea(i) => level.measurement_areas.get(i).map(|a| {
                let (lo, hi) = crate::polygon::polygon_bounds(&a.polygon);
                (lo + hi) * 0.5
            }),
            Element::MeasurementLine(i) => {
                let l = level.measurement_lines.get(i)?;
                Some((l.from + l.to) * 0.5)
            }
            Element::Path(i) => level.paths.get(i).and_then(|p| p.points.first().copied()),
            Element::PathPoint(i, k) => level.paths.get(i)?.points.get(k).copied(),
            Element::Bounds => Some(level.bounds.center()),
            Element::HeroSpawn => Some(level.hero.spawn),
            Element::CameraStart => {
                let t = level.camera.target;
                Some(Vec2::new(t.x, t.z))
            }
        }
    }

    /// The element this one belongs to and moves with: a Sit point of interest's bench (the
    /// nearest bench obstacle, as the crowd seats people, within [`SEAT_REACH`]).
    pub fn owner(&self, level: &Level) -> Option<Element> {
        let Element::Poi(k) = *self else {
            return None;
        };
        let poi = level.points_of_interest.get(k)?;
        if poi.activity != Activity::Sit {
            return None;
        }
        let p = poi.position;
        let (i, bench) = level
            .obstacles
            .iter()
            .enumerate()
            .filter(|(_, o)| o.kind == ObstacleKind::Bench)
            .min_by(|a, b| {
                let d = |o: &crate::level::Obstacle| o.shape.center().distance_squared(p);
                d(a.1).total_cmp(&d(b.1))
            })?;
        (bench.shape.signed_distance(p).0 <= SEAT_REACH).then_some(Element::Obstacle(i))
    }

    /// What belongs to this element and moves and turns with it (see [`Element::owner`]).
    pub fn companions(&self, level: &Level) -> Vec<Element> {
        if !matches!(self, Element::Obstacle(_)) {
            return Vec::new();
        }
        (0..level.points_of_interest.len())
            .map(Element::Poi)
            .filter(|p| p.owner(level) == Some(*self))
            .collect()
    }

    /// The companions and where each stands now: a drag moves them from these places.
    pub fn companion_places(&self, level: &Level) -> Vec<(Element, Vec2)> {
        self.companions(level)
            .into_iter()
            .filter_map(|c| Some((c, c.anchor(level)?)))
            .collect()
    }

    /// Puts a point of interest at `to` as it is (to the centimetre): how a companion follows.
    fn place(&self, level: &mut Level, to: Vec2) -> bool {
        let Element::Poi(k) = *self else {
            return false;
        };
        match level.points_of_interest.get_mut(k) {
            Some(p) => {
                p.position = Vec2::new(centimetres(to.x), centimetres(to.y));
                true
            }
            None => false,
        }
    }

    /// Puts a movable element's handle at `to` (snapped to [`POSITION_STEP`]); false when it
    /// does not move.
    pub fn move_to(&self, level: &mut Level, to: Vec2) -> bool {
        let to = Vec2::new(snap(to.x), snap(to.y));
        if let Element::Exit(i) = *self {
            return move_exit(level, i, to);
        }
        if matches!(
            self,
            Element::MeasurementArea(_) | Element::MeasurementLine(_)
        ) {
            return self.move_measurement(level, to);
        }
        let slot = match *self {
            Element::Obstacle(i) => match level.obstacles.get_mut(i).map(|o| &mut o.shape) {
                Some(Shape::Circle { center, .. }) | Some(Shape::Box { center, .. }) => center,
                None => return false,
            },
            Element::Poi(i) => match level.points_of_interest.get_mut(i) {
                Some(p) => &mut p.position,
                None => return false,
            },
            Element::Spawn(i) => match level.spawn_zones.get_mut(i) {
                Some(z) => &mut z.center,
                None => return false,
            },
            Element::PathPoint(i, k) => {
                match level.paths.get_mut(i).and_then(|p| p.points.get_mut(k)) {
                    Some(p) => p,
                    None => return false,
                }
            }
            _ => return false,
        };
        *slot = to;
        true
    }

    /// Moves the element's handle to `to` like [`Element::move_to`] and its companions, from
    /// the `places` they had when the move began, by the same step: a bench carries its seats.
    pub fn move_with(
        &self,
        level: &mut Level,
        to: Vec2,
        from: Vec2,
        places: &[(Element, Vec2)],
    ) -> bool {
        if !self.move_to(level, to) {
            return false;
        }
        let step = self.anchor(level).map_or(Vec2::ZERO, |now| now - from);
        for (c, at) in places {
            c.place(level, *at + step);
        }
        true
    }

    /// Turns a box obstacle by `degrees` (counter-clockwise seen from above), keeping its angle
    /// in -180..180 with two decimals, and its companions round its centre by the same turn (a
    /// bench's seats stay in front of it); false for anything else.
    pub fn rotate(&self, level: &mut Level, degrees: f32) -> bool {
        let Element::Obstacle(i) = *self else {
            return false;
        };
        let places = self.companion_places(level);
        let center = match level.obstacles.get_mut(i).map(|o| &mut o.shape) {
            Some(Shape::Box {
                angle_deg, center, ..
            }) => {
                let turned = (*angle_deg + degrees + 180.0).rem_euclid(360.0) - 180.0;
                *angle_deg = (turned * 100.0).round() / 100.0;
                *center
            }
            _ => return false,
        };
        for (c, at) in places {
            c.place(level, center + box_to_world(degrees, at - center));
        }
        true
    }
}

impl Element {
    /// Moves a measurement area or line whole so its handle (the area's box middle, the line's
    /// middle) stands at `to` (on the grid); its corners or ends keep their offsets to the
    /// centimetre, like an exit line's.
    fn move_measurement(&self, level: &mut Level, to: Vec2) -> bool {
        let Some(step) = self.anchor(level).map(|at| to - at) else {
            return false;
        };
        let cm = |p: Vec2| Vec2::new(centimetres(p.x + step.x), centimetres(p.y + step.y));
        match *self {
            Element::MeasurementArea(i) => {
                let Some(a) = level.measurement_areas.get_mut(i) else {
                    return false;
                };
                for p in &mut a.polygon {
                    *p = cm(*p);
                }
            }
            Element::MeasurementLine(i) => {
                let Some(l) = level.measurement_lines.get_mut(i) else {
                    return false;
                };
                (l.from, l.to) = (cm(l.from), cm(l.to));
            }
            _ => return false,
        }
        true
    }
}

/// Moves exit `i` whole so its centre stands at `to` (on the grid). A line's ends keep their
/// offsets from the centre to the centimetre, like a bench's seats: the opening stays as wide
/// as the file says, and the file gets round numbers.
fn move_exit(level: &mut Level, i: usize, to: Vec2) -> bool {
    let Some(exit) = level.exits.get_mut(i) else {
        return false;
    };
    let step = to - exit.area.center();
    let cm = |p: Vec2| Vec2::new(centimetres(p.x), centimetres(p.y));
    exit.area = match exit.area {
        ExitArea::Line(a, b) => ExitArea::Line(cm(a + step), cm(b + step)),
        ExitArea::Box { half_extents, .. } => ExitArea::Box {
            center: to,
            half_extents,
        },
    };
    true
}

/// Every number edit mode can change, by field path, in a fixed order: handle positions of
/// points of interest, spawn zones, path points, obstacles, exits (a line's two ends, a
/// box's centre), measurement areas' corners and lines' ends, and box angles.
pub fn editable_numbers(level: &Level) -> Vec<(String, f32)> {
    let mut out = Vec::new();
    let mut xz = |path: String, v: Vec2| {
        out.push((format!("{path}[0]"), v.x));
        out.push((format!("{path}[1]"), v.y));
    };
    for (i, p) in level.points_of_interest.iter().enumerate() {
        xz(format!("points_of_interest[{i}].position"), p.position);
    }
    for (i, z) in level.spawn_zones.iter().enumerate() {
        xz(format!("spawn_zones[{i}].center"), z.center);
    }
    for (i, p) in level.paths.iter().enumerate() {
        for (k, &q) in p.points.iter().enumerate() {
            xz(format!("paths[{i}].points[{k}]"), q);
        }
    }
    for (i, o) in level.obstacles.iter().enumerate() {
        xz(format!("obstacles[{i}].shape.center"), o.shape.center());
    }
    for (i, e) in level.exits.iter().enumerate() {
        match e.area {
            ExitArea::Line(a, b) => {
                xz(format!("exits[{i}].area[0]"), a);
                xz(format!("exits[{i}].area[1]"), b);
            }
            ExitArea::Box { center, .. } => xz(format!("exits[{i}].area.center"), center),
        }
    }
    for (i, a) in level.measurement_areas.iter().enumerate() {
        for (k, &p) in a.polygon.iter().enumerate() {
            xz(format!("measurement_areas[{i}].polygon[{k}]"), p);
        }
    }
    for (i, l) in level.measurement_lines.iter().enumerate() {
        xz(format!("measurement_lines[{i}].from"), l.from);
        xz(format!("measurement_lines[{i}].to"), l.to);
    }
    for (i, o) in level.obstacles.iter().enumerate() {
        if let Shape::Box { angle_deg, .. } = o.shape {
            out.push((format!("obstacles[{i}].shape.angle_deg"), angle_deg));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plaza() -> Level {
        let text = include_str!("../../levels/plaza.ron");
        ron::from_str(text).expect("plaza parses")
    }

    #[test]
    fn field_paths_name_the_element_and_back() {
        let level = plaza();
        assert_eq!(
            Element::from_field_path("paths[0].points[1]", &level),
            Some(Element::PathPoint(0, 1))
        );
        assert_eq!(
            Element::from_field_path("obstacles[2].shape.radius", &level),
            Some(Element::Obstacle(2))
        );
        assert_eq!(
            Element::from_field_path("points_of_interest[1].capacity", &level),
            Some(Element::Poi(1))
        );
        assert_eq!(
            Element::from_field_path("points_of_interest[999].capacity", &level),
            None,
            "not in the last good level"
        );
        assert_eq!(Element::from_field_path("crowd.count", &level), None);
        assert_eq!(Element::Poi(3).field_path(), "points_of_interest[3]");
        assert_eq!(Element::Obstacle(0).name(&level), "fountain");
        assert_eq!(
            Element::Obstacle(1).kind(&level),
            "obstacle (Bench, box)",
            "bench_1"
        );
    }

    #[test]
    fn each_seat_belongs_to_its_bench_and_nothing_else_has_an_owner() {
        let mut level = plaza();
        let seats: Vec<usize> = (0..level.points_of_interest.len())
            .filter(|&k| level.points_of_interest[k].activity == Activity::Sit)
            .collect();
        assert_eq!(seats.len(), 8);
        for k in seats {
            let owner = Element::Poi(k).owner(&level).expect("a bench");
            let seat = &level.points_of_interest[k].name;
            assert_eq!(owner.name(&level), seat.replace("bench_seat_", "bench_"));
            assert_eq!(owner.companions(&level), vec![Element::Poi(k)]);
        }
        let chat = level
            .points_of_interest
            .iter()
            .position(|p| p.activity != Activity::Sit)
            .expect("a point that is not a seat");
        assert_eq!(Element::Poi(chat).owner(&level), None);
        let fountain = Element::Obstacle(0);
        assert_eq!(fountain.companions(&level), vec![]);
        // A seat carried 5 m away from every bench is nobody's.
        let seat = Element::Obstacle(1).companions(&level)[0];
        let lonely = level.obstacles[1].shape.center() + Vec2::new(0.0, 5.0);
        assert!(seat.move_to(&mut level, lonely));
        assert_eq!(seat.owner(&level), None);
    }

    #[test]
    fn a_bench_carries_its_seat_when_moved_and_turned() {
        let mut level = plaza();
        let bench = Element::Obstacle(1); // bench_1 at (14, 0), turned -90 degrees
        let seat = bench.companions(&level)[0];
        assert_eq!(seat.anchor(&level), Some(Vec2::new(13.1, 0.0)));
        let places = bench.companion_places(&level);
        let from = Vec2::new(14.0, 0.0);
        assert!(bench.move_with(&mut level, Vec2::new(15.02, 1.99), from, &places));
        assert_eq!(bench.anchor(&level), Some(Vec2::new(15.0, 2.0)));
        assert_eq!(seat.anchor(&level), Some(Vec2::new(14.1, 2.0)), "same step");
        // A quarter turn: the seat 0.9 m in front of the bench turns with it.
        assert!(bench.rotate(&mut level, 90.0));
        assert_eq!(seat.anchor(&level), Some(Vec2::new(15.0, 2.9)));
        // Turned all the way round, it is back where it was.
        for _ in 0..3 {
            assert!(bench.rotate(&mut level, 90.0));
        }
        assert_eq!(seat.anchor(&level), Some(Vec2::new(14.1, 2.0)));
    }

    #[test]
    fn an_exit_is_named_by_its_field_path_and_moves_whole() {
        let mut level = plaza();
        let e = Element::from_field_path("exits[2].area[1]", &level);
        assert_eq!(e, Some(Element::Exit(2)));
        assert_eq!(Element::Exit(2).field_path(), "exits[2]");
        assert_eq!(Element::Exit(2).name(&level), "west_exit");
        // 14 m wide, 1.3 people a second per metre.
        assert_eq!(
            Element::Exit(2).kind(&level),
            "exit (line, open, 18.2 people/s)"
        );
        assert_eq!(Element::from_field_path("exits[9].area", &level), None);
        assert!(Element::Exit(2).movable());
        assert!(Element::Exit(2).move_to(&mut level, Vec2::new(-99.98, 20.03)));
        assert_eq!(
            level.exits[2].area,
            ExitArea::Line(Vec2::new(-100.0, 13.05), Vec2::new(-100.0, 27.05))
        );
        assert!(
            !Element::Exit(2).rotate(&mut level, 15.0),
            "exits do not turn"
        );
    }

    #[test]
    fn measurements_are_named_by_their_field_paths_and_move_whole() {
        let mut level = plaza();
        let (area, line) = (Element::MeasurementArea(0), Element::MeasurementLine(0));
        assert_eq!(
            Element::from_field_path("measurement_areas[0].polygon[2]", &level),
            Some(area)
        );
        assert_eq!(
            Element::from_field_path("measurement_lines[0].to", &level),
            Some(line)
        );
        assert_eq!(
            Element::from_field_path("measurement_lines[5]", &level),
            None
        );
        assert_eq!(area.name(&level), "south_street_area");
        assert_eq!(area.kind(&level), "measurement area (4 corners, 64.0 m²)");
        assert_eq!(line.kind(&level), "measurement line (14.0 m)");
        assert!(area.movable() && line.movable());
        // The area's middle (0, 74) to (1, 70): every corner by the same step.
        assert!(area.move_to(&mut level, Vec2::new(1.01, 69.98)));
        assert_eq!(level.measurement_areas[0].polygon[0], Vec2::new(-3.0, 66.0));
        assert_eq!(level.measurement_areas[0].polygon[2], Vec2::new(5.0, 74.0));
        // The line's middle (0, -95) to (0, -90): it keeps its length and direction.
        assert!(line.move_to(&mut level, Vec2::new(0.0, -90.0)));
        assert_eq!(level.measurement_lines[0].from, Vec2::new(7.0, -90.0));
        assert_eq!(level.measurement_lines[0].to, Vec2::new(-7.0, -90.0));
        // Saved in place: only the moved numbers change.
        let text = include_str!("../../levels/plaza.ron");
        let before: Level = ron::from_str(text).expect("plaza parses");
        let (saved, n) =
            crate::level_edit::patch::patch_level_text(text, &before, &level).expect("patches");
        assert_eq!(n, 10, "8 corner numbers, 2 line numbers");
        let back: Level = ron::from_str(&saved).expect("reads back");
        assert_eq!(back.measurement_areas, level.measurement_areas);
        assert_eq!(back.measurement_lines, level.measurement_lines);
        assert!(saved.contains("from: (7.0, -90.0), to: (-7.0, -90.0)"));
    }

    #[test]
    fn moves_snap_and_rotations_wrap() {
        let mut level = plaza();
        assert!(Element::Poi(0).move_to(&mut level, Vec2::new(3.012, -4.49)));
        assert_eq!(level.points_of_interest[0].position, Vec2::new(3.0, -4.5));
        assert!(!Element::Bounds.move_to(&mut level, Vec2::ZERO));
        // bench_3 stands at -180 degrees: a quarter turn on wraps to -90.
        assert!(Element::Obstacle(3).rotate(&mut level, 90.0));
        match level.obstacles[3].shape {
            Shape::Box { angle_deg, .. } => assert_eq!(angle_deg, -90.0),
            other => panic!("{other:?}"),
        }
        assert!(!Element::Obstacle(0).rotate(&mut level, 15.0), "a circle");
    }
}

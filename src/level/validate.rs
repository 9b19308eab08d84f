//! Checks a parsed level for everything serde cannot: ranges, NaN/inf, geometry (inside the
//! bounds, not inside obstacles, paths that do not cross them) and references between sections
//! (path names, model names, asset files). Each finding names the field path and what is allowed.

use std::collections::HashSet;
use std::path::Path;

use glam::{Vec2, Vec3};

use super::paths::Places;
use super::schema::*;
use crate::clip_kind::ClipKind;
// Re-exported: these lived here before `footprint` took the obstacle geometry.
pub use crate::footprint::{obstacle_contains, segment_hits_obstacle};
pub use exits::EXIT_REACH;
pub use measurement::{MIN_MEASUREMENT_AREA, MIN_MEASUREMENT_LINE};

mod exits;
mod measurement;

/// The most agents a level may ask for.
pub const MAX_CROWD: u32 = 1_000_000;
/// People per square metre of free plaza beyond which a crowd cannot stand, let alone walk.
/// Bodies (0.4 m across) pack at 7.2 per m² at most; at 6 per m² crowds jammed against walls
/// ended steps overlapping by over 5 cm, at 5 they never do (`tests/crowd_scale.rs`).
pub const MAX_DENSITY: f32 = 5.0;
/// How many of each thing a level may hold. Validation compares obstacles with points, zones
/// and path segments, so these bound its work (a level file at the 1 MiB size cap validates in
/// well under a second); each is over 10 times what the shipped levels use.
pub const MAX_OBSTACLES: usize = 1024;
pub const MAX_POINTS_OF_INTEREST: usize = 1024;
pub const MAX_SPAWN_ZONES: usize = 256;
pub const MAX_PATHS: usize = 256;
/// Points of all paths together.
pub const MAX_PATH_POINTS: usize = 4096;
pub const MAX_CROWD_MODELS: usize = 64;
/// Exits and alarm events: the reach check floods the route grid once per spawn zone and tests
/// every exit against each flood.
pub const MAX_EXITS: usize = 256;
pub const MAX_ALARMS: usize = 256;
/// Measurement areas and lines: every one is read on every measured step. An area's corners
/// count as a smaller list (`MAX_LIST_ITEMS`).
pub const MAX_MEASUREMENT_AREAS: usize = 64;
pub const MAX_MEASUREMENT_LINES: usize = 64;
pub const MAX_VARIANT_GROUPS: usize = 256;
/// Items of any smaller list: a group's models, tints and props; a crowd model's clips,
/// material lists, attachment choices and hidden meshes.
pub const MAX_LIST_ITEMS: usize = 256;

/// The widest LOD cross-fade band, as a share of its boundary's distance: wider bands would
/// make neighbouring bands meet at the shipped distances and draw many people twice.
pub const MAX_LOD_FADE: f32 = 0.5;

/// The longest level name: it is the window title and the HUD's first line.
pub const MAX_LEVEL_NAME_CHARS: usize = 100;
pub const MODEL_EXTENSIONS: [&str; 3] = ["gltf", "glb", "vrm"];

/// A finding: the field path and the message.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub field: String,
    pub message: String,
}

/// A check of a valid level that `level` cannot make itself because it needs the crowd's
/// route grid (`crate::level_routes::unreachable_exits`: the crowd is built on levels, so
/// `level` cannot name it). `throng check` and the level editor are handed one; its findings
/// are errors.
pub type RouteCheck = fn(&Level) -> Vec<Finding>;

struct Checker<'a> {
    places: &'a Places,
    /// Every finding, at most one per field path, in the order the checks ran.
    found: Vec<Finding>,
}

fn fmt2(v: Vec2) -> String {
    format!("({}, {})", v.x, v.y)
}

impl Checker<'_> {
    /// Records a finding, unless its field already has one (the first says what is wrong; a
    /// second about the same value would only repeat it).
    fn fail(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        if self.found.iter().all(|f| f.field != field) {
            self.found.push(Finding {
                field,
                message: message.into(),
            });
        }
    }

    /// Nothing found yet: checks that build on earlier ones (a sum of weights that must be
    /// positive, the crowd fitting the free area) run only then, so one mistake is not reported
    /// again as its consequences.
    fn clean(&self) -> bool {
        self.found.is_empty()
    }

    fn finite(&mut self, field: &str, v: f32) -> bool {
        if !v.is_finite() {
            self.fail(field, format!("{v} is not a finite number"));
            return false;
        }
        true
    }

    fn finite2(&mut self, field: &str, v: Vec2) -> bool {
        self.finite(field, v.x) && self.finite(field, v.y)
    }

    fn positive(&mut self, field: &str, v: f32) {
        if self.finite(field, v) && v <= 0.0 {
            self.fail(field, format!("{v} must be above 0"));
        }
    }

    fn at_least(&mut self, field: &str, v: f32, min: f32) {
        if self.finite(field, v) && v < min {
            self.fail(field, format!("{v} is below the minimum {min}"));
        }
    }

    fn in_range(&mut self, field: &str, v: f32, min: f32, max: f32) {
        if self.finite(field, v) && !(min..=max).contains(&v) {
            self.fail(
                field,
                format!("{v} is outside the allowed range {min} to {max}"),
            );
        }
    }

    fn colour(&mut self, field: &str, c: Vec3) {
        for v in c.to_array() {
            if !self.finite(field, v) {
                return;
            }
            if v < 0.0 {
                self.fail(
                    field,
                    format!("{v} is negative; colours are linear RGB, 0 or more"),
                );
                return;
            }
        }
    }

    fn range(&mut self, field: &str, r: &Range, min: f32, max: f32) {
        self.in_range(&format!("{field}.min"), r.min, min, max);
        self.in_range(&format!("{field}.max"), r.max, min, max);
        if r.min.is_finite() && r.max.is_finite() && r.min > r.max {
            self.fail(
                field.to_string(),
                format!("min {} is above max {}", r.min, r.max),
            );
        }
    }

    fn unique<'n>(&mut self, section: &str, names: impl Iterator<Item = &'n str>) {
        let mut seen = HashSet::new();
        for (i, n) in names.enumerate() {
            if n.trim().is_empty() {
                self.fail(format!("{section}[{i}].name"), "a name is required");
            } else if !seen.insert(n) {
                self.fail(
                    format!("{section}[{i}].name"),
                    format!("`{n}` is used twice in {section}; names must be unique"),
                );
            }
        }
    }

    fn inside_bounds(&mut self, field: &str, p: Vec2, b: &Bounds) {
        if p.is_finite() && !b.contains(p) {
            self.fail(
                field,
                format!(
                    "{} is outside the plaza bounds {} to {}",
                    fmt2(p),
                    fmt2(b.min),
                    fmt2(b.max)
                ),
            );
        }
    }

    fn model_file(&mut self, field: &str, path: &str) {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !ext
            .as_deref()
            .is_some_and(|e| MODEL_EXTENSIONS.contains(&e))
        {
            self.fail(
                field,
                format!("`{path}` is not a model file; allowed: .gltf, .glb or .vrm"),
            );
        } else if let Err(why) = self.places.resolve(path) {
            self.fail(field, format!("`{path}` {why}"));
        }
    }
}

impl Checker<'_> {
    /// `attachment_choices` and `hidden_meshes` of crowd model `i`: every group has an option,
    /// names are not blank, and no mesh is listed twice (it would be both worn and not). Whether
    /// the model has the meshes is checked when it loads.
    fn attachments(&mut self, i: usize, m: &CrowdModel) {
        let f = format!("crowd.models[{i}]");
        let mut seen: Vec<(String, String)> = Vec::new();
        let mut check = |c: &mut Self, field: String, name: &str| {
            if name.trim().is_empty() || name.trim() != name {
                c.fail(
                    field,
                    format!("`{name}` is not a mesh name (`\"\"` means nothing, in attachment_choices only)"),
                );
            } else if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                c.fail(
                    field,
                    format!(
                        "`{name}` is already listed at {first}; a mesh can be in one place only"
                    ),
                );
            } else {
                seen.push((name.to_string(), field));
            }
        };
        for (g, group) in m.attachment_choices.iter().enumerate() {
            if group.is_empty() {
                self.fail(
                    format!("{f}.attachment_choices[{g}]"),
                    "a group needs at least one option (a mesh name, or \"\" for nothing)",
                );
            }
            for (k, name) in group.iter().enumerate() {
                if !name.is_empty() {
                    check(self, format!("{f}.attachment_choices[{g}][{k}]"), name);
                }
            }
        }
        for (k, name) in m.hidden_meshes.iter().enumerate() {
            check(self, format!("{f}.hidden_meshes[{k}]"), name);
        }
    }
}

fn blocking_obstacle(level: &Level, p: Vec2) -> Option<&Obstacle> {
    level
        .obstacles
        .iter()
        .find(|o| obstacle_contains(&o.shape, p))
}

/// The most people a level holds: its free area at `MAX_DENSITY`. Every crowd size (the level's
/// count, `--crowd`, the crowd slider) is held to it.
pub fn max_people(level: &Level) -> u32 {
    (free_area(level) * MAX_DENSITY).min(u32::MAX as f32) as u32
}

/// Checks a crowd size asked for on the command line (or the web page's `?crowd=`) against
/// what the level holds; `flag` names the option in the message.
pub fn check_crowd_fits(level: &Level, flag: &str, people: u32) -> Result<(), String> {
    let most = max_people(level);
    if people > most {
        return Err(format!(
            "{flag} {people}: `{}` holds at most {most} people ({MAX_DENSITY} per m² of free ground)",
            crate::shown::one_line(&level.name),
        ));
    }
    Ok(())
}

/// Free walking area in m²: the bounds minus the obstacles, by sampling a 200 x 200 grid. Each
/// obstacle tests only the samples within its bounding circle, so the work follows the area
/// obstacles cover rather than samples times obstacles.
pub fn free_area(level: &Level) -> f32 {
    const N: usize = 200;
    let size = level.bounds.size();
    let min = level.bounds.min;
    let sample = |i: usize, j: usize| {
        min + Vec2::new((i as f32 + 0.5) / N as f32, (j as f32 + 0.5) / N as f32) * size
    };
    // The sample indices (one spare each side for rounding) whose points can lie within `r`
    // of `c` along one axis; everything when the numbers are not finite.
    let span = |c: f32, r: f32, min: f32, size: f32| -> (usize, usize) {
        let lo = ((c - r - min) / size * N as f32 - 1.5).floor();
        let hi = ((c + r - min) / size * N as f32 + 0.5).ceil();
        if !(lo.is_finite() && hi.is_finite()) {
            return (0, N - 1);
        }
        (
            lo.clamp(0.0, (N - 1) as f32) as usize,
            hi.clamp(0.0, (N - 1) as f32) as usize,
        )
    };
    let mut blocked = vec![false; N * N];
    for o in &level.obstacles {
        let (c, r) = (o.shape.center(), o.shape.bounding_radius());
        let (i0, i1) = span(c.x, r, min.x, size.x);
        let (j0, j1) = span(c.y, r, min.y, size.y);
        for i in i0..=i1 {
            for j in j0..=j1 {
                let cell = &mut blocked[i * N + j];
                if !*cell && obstacle_contains(&o.shape, sample(i, j)) {
                    *cell = true;
                }
            }
        }
    }
    let free = blocked.iter().filter(|b| !**b).count();
    size.x * size.y * free as f32 / (N * N) as f32
}

impl Checker<'_> {
    fn at_most(&mut self, field: &str, what: &str, n: usize, max: usize) {
        if n > max {
            self.fail(field, format!("{n} {what}; allowed: at most {max}"));
        }
    }

    /// Every list against its limit, before any check whose work grows with them.
    fn counts(&mut self, level: &Level) {
        self.at_most(
            "obstacles",
            "obstacles",
            level.obstacles.len(),
            MAX_OBSTACLES,
        );
        self.at_most(
            "points_of_interest",
            "points of interest",
            level.points_of_interest.len(),
            MAX_POINTS_OF_INTEREST,
        );
        self.at_most("paths", "paths", level.paths.len(), MAX_PATHS);
        let points: usize = level.paths.iter().map(|p| p.points.len()).sum();
        if points > MAX_PATH_POINTS {
            let (i, longest) = level
                .paths
                .iter()
                .enumerate()
                .max_by_key(|(_, p)| p.points.len())
                .map(|(i, p)| (i, p.points.len()))
                .unwrap_or_default();
            self.fail(
                format!("paths[{i}].points"),
                format!("the paths have {points} points in all ({longest} here); allowed: at most {MAX_PATH_POINTS}"),
            );
        }
        self.at_most(
            "spawn_zones",
            "spawn zones",
            level.spawn_zones.len(),
            MAX_SPAWN_ZONES,
        );
        self.at_most("exits", "exits", level.exits.len(), MAX_EXITS);
        self.at_most("alarms", "alarm events", level.alarms.len(), MAX_ALARMS);
        self.at_most(
            "measurement_areas",
            "measurement areas",
            level.measurement_areas.len(),
            MAX_MEASUREMENT_AREAS,
        );
        for (i, a) in level.measurement_areas.iter().enumerate() {
            self.at_most(
                &format!("measurement_areas[{i}].polygon"),
                "corners",
                a.polygon.len(),
                MAX_LIST_ITEMS,
            );
        }
        self.at_most(
            "measurement_lines",
            "measurement lines",
            level.measurement_lines.len(),
            MAX_MEASUREMENT_LINES,
        );
        let cr = &level.crowd;
        self.at_most(
            "crowd.models",
            "crowd models",
            cr.models.len(),
            MAX_CROWD_MODELS,
        );
        for (i, m) in cr.models.iter().enumerate() {
            let f = format!("crowd.models[{i}]");
            let lists = [
                ("clips", m.clips.len()),
                (
                    "tint_materials",
                    m.tint_materials.as_ref().map_or(0, Vec::len),
                ),
                (
                    "skin_materials",
                    m.skin_materials.as_ref().map_or(0, Vec::len),
                ),
                ("attachment_choices", m.attachment_choices.len()),
                ("hidden_meshes", m.hidden_meshes.len()),
            ];
            for (name, n) in lists {
                self.at_most(&format!("{f}.{name}"), "items", n, MAX_LIST_ITEMS);
            }
            for (g, group) in m.attachment_choices.iter().enumerate() {
                self.at_most(
                    &format!("{f}.attachment_choices[{g}]"),
                    "items",
                    group.len(),
                    MAX_LIST_ITEMS,
                );
            }
        }
        self.at_most(
            "crowd.variant_groups",
            "variant groups",
            cr.variant_groups.len(),
            MAX_VARIANT_GROUPS,
        );
        for (i, g) in cr.variant_groups.iter().enumerate() {
            let f = format!("crowd.variant_groups[{i}]");
            for (name, n) in [
                ("models", g.models.len()),
                ("tints", g.tints.len()),
                ("props", g.props.len()),
            ] {
                self.at_most(&format!("{f}.{name}"), "items", n, MAX_LIST_ITEMS);
            }
        }
    }
}

/// The checks by section, in the order the level file lists them; the first finding wins.
impl Checker<'_> {
    /// The level as a whole: its name, the plaza bounds, the ground pattern.
    fn level_basics(&mut self, level: &Level) {
        let name_chars = level.name.chars().count();
        if level.name.trim().is_empty() {
            self.fail("name", "a level name is required");
        } else if let Some((i, c)) = level.name.chars().enumerate().find(|(_, c)| c.is_control()) {
            // The name becomes the window title, which cannot hold a NUL.
            self.fail(
                "name",
                format!(
                    "character {} is the control character U+{:04X}; the name is the window title, allowed: printable text",
                    i + 1,
                    c as u32
                ),
            );
        } else if name_chars > MAX_LEVEL_NAME_CHARS {
            self.fail(
                "name",
                format!("{name_chars} characters long; allowed: at most {MAX_LEVEL_NAME_CHARS}"),
            );
        }
        let b = &level.bounds;
        if self.finite2("bounds.min", b.min)
            && self.finite2("bounds.max", b.max)
            && (b.min.x >= b.max.x || b.min.y >= b.max.y)
        {
            self.fail(
                "bounds",
                format!(
                    "min {} must be below max {} in both x and z",
                    fmt2(b.min),
                    fmt2(b.max)
                ),
            );
        }
        self.positive("ground.tile_size", level.ground.tile_size);
        self.colour("ground.color_a", level.ground.color_a);
        self.colour("ground.color_b", level.ground.color_b);
    }

    /// Obstacles: unique names, sane shapes, each inside the bounds.
    fn obstacles(&mut self, level: &Level) {
        let b = &level.bounds;
        self.unique("obstacles", level.obstacles.iter().map(|o| o.name.as_str()));
        for (i, o) in level.obstacles.iter().enumerate() {
            let f = format!("obstacles[{i}]");
            let before = self.found.len();
            self.at_least(&format!("{f}.height"), o.height, 0.0);
            match o.shape {
                Shape::Circle { center, radius } => {
                    self.finite2(&format!("{f}.shape.center"), center);
                    self.positive(&format!("{f}.shape.radius"), radius);
                }
                Shape::Box {
                    center,
                    half_extents,
                    angle_deg,
                } => {
                    self.finite2(&format!("{f}.shape.center"), center);
                    self.positive(&format!("{f}.shape.half_extents"), half_extents.x);
                    self.positive(&format!("{f}.shape.half_extents"), half_extents.y);
                    self.finite(&format!("{f}.shape.angle_deg"), angle_deg);
                }
            }
            if self.found.len() == before {
                for p in o.shape.extreme_points() {
                    if !b.contains(p) {
                        self.fail(
                            format!("{f}.shape"),
                            format!(
                                "`{}` reaches {} outside the plaza bounds {} to {}",
                                o.name,
                                fmt2(p),
                                fmt2(b.min),
                                fmt2(b.max)
                            ),
                        );
                        break;
                    }
                }
            }
        }
    }

    /// Placed things: named, finite, inside the bounds, and clear of the level's obstacles and
    /// of each other (the build toolbar's own checks, for a file written by hand).
    fn placed(&mut self, level: &Level) {
        let b = &level.bounds;
        self.unique("placed", level.placed.iter().map(|p| p.name.as_str()));
        let world = crate::level::sandbox::world_level(&Level {
            placed: Vec::new(),
            ..level.clone()
        });
        let mut others = world.obstacles.clone();
        for (i, p) in level.placed.iter().enumerate() {
            let f = format!("placed[{i}]");
            if !self.finite2(&format!("{f}.at"), p.at)
                || !self.finite(&format!("{f}.heading_deg"), p.heading_deg)
            {
                continue;
            }
            if let Some(out) = p.extreme_points().into_iter().find(|q| !b.contains(*q)) {
                self.fail(
                    format!("{f}.at"),
                    format!(
                        "`{}` ({}) reaches {} outside the plaza bounds {} to {}",
                        p.name,
                        p.kind.label(),
                        fmt2(out),
                        fmt2(b.min),
                        fmt2(b.max)
                    ),
                );
                continue;
            }
            let own = p.obstacles();
            if let Some(hit) = crate::level::sandbox::first_overlap(&own, &others) {
                self.fail(
                    format!("{f}.at"),
                    format!(
                        "`{}` ({}) overlaps `{}`; move it or turn it (heading_deg)",
                        p.name,
                        p.kind.label(),
                        crate::level::sandbox::owner_name(&hit)
                    ),
                );
            }
            others.extend(own);
        }
    }

    /// Points of interest: inside the bounds and reachable, with room for someone.
    fn points_of_interest(&mut self, level: &Level) {
        let b = &level.bounds;
        self.unique(
            "points_of_interest",
            level.points_of_interest.iter().map(|p| p.name.as_str()),
        );
        for (i, poi) in level.points_of_interest.iter().enumerate() {
            let f = format!("points_of_interest[{i}]");
            if self.finite2(&format!("{f}.position"), poi.position) {
                self.inside_bounds(&format!("{f}.position"), poi.position, b);
                if let Some(o) = blocking_obstacle(level, poi.position) {
                    self.fail(
                        format!("{f}.position"),
                        format!(
                            "{} is inside obstacle `{}`: agents could never reach it",
                            fmt2(poi.position),
                            o.name
                        ),
                    );
                }
            }
            self.positive(&format!("{f}.radius"), poi.radius);
            self.at_least(&format!("{f}.weight"), poi.weight, 0.0);
            if poi.capacity == 0 {
                self.fail(
                    format!("{f}.capacity"),
                    "0 would admit nobody; allowed: 1 or more",
                );
            }
        }
    }

    /// Paths: at least two points inside the bounds, segments with length that pass no obstacle.
    fn paths(&mut self, level: &Level) {
        let b = &level.bounds;
        self.unique("paths", level.paths.iter().map(|p| p.name.as_str()));
        for (i, path) in level.paths.iter().enumerate() {
            let f = format!("paths[{i}]");
            if path.points.len() < 2 {
                self.fail(
                    format!("{f}.points"),
                    format!(
                        "`{}` has {} point(s); a path needs at least 2",
                        path.name,
                        path.points.len()
                    ),
                );
                continue;
            }
            for (k, p) in path.points.iter().enumerate() {
                let pf = format!("{f}.points[{k}]");
                if self.finite2(&pf, *p) {
                    self.inside_bounds(&pf, *p, b);
                }
            }
            let mut segments: Vec<(usize, Vec2, Vec2)> = path
                .points
                .windows(2)
                .enumerate()
                .map(|(k, w)| (k + 1, w[0], w[1]))
                .collect();
            if path.looped && path.points.len() > 2 {
                if let (Some(first), Some(last)) = (path.points.first(), path.points.last()) {
                    segments.push((0, *last, *first));
                }
            }
            for (k, a, bp) in segments {
                if a.distance(bp) < 1e-3 {
                    self.fail(
                        format!("{f}.points[{k}]"),
                        format!(
                            "{} repeats the previous point; a path segment needs length",
                            fmt2(bp)
                        ),
                    );
                } else if let Some(o) = level
                    .obstacles
                    .iter()
                    .find(|o| segment_hits_obstacle(&o.shape, a, bp))
                {
                    self.fail(
                        format!("{f}.points[{k}]"),
                        format!(
                            "the segment {} to {} passes through obstacle `{}`",
                            fmt2(a),
                            fmt2(bp),
                            o.name
                        ),
                    );
                }
            }
        }
    }

    /// Spawn zones: areas inside the bounds not covered by obstacles, paths that exist, some weight.
    fn spawn_zones(&mut self, level: &Level) {
        let b = &level.bounds;
        self.unique(
            "spawn_zones",
            level.spawn_zones.iter().map(|z| z.name.as_str()),
        );
        if level.spawn_zones.is_empty() {
            self.fail("spawn_zones", "at least one spawn zone is required");
        }
        for (i, z) in level.spawn_zones.iter().enumerate() {
            let f = format!("spawn_zones[{i}]");
            if !(self.finite2(&format!("{f}.center"), z.center)
                && self.finite2(&format!("{f}.half_extents"), z.half_extents))
            {
                continue;
            }
            if z.half_extents.x <= 0.0 || z.half_extents.y <= 0.0 {
                self.fail(
                    format!("{f}.half_extents"),
                    format!("{} has no area; both must be above 0", fmt2(z.half_extents)),
                );
                continue;
            }
            for corner in [z.center - z.half_extents, z.center + z.half_extents] {
                self.inside_bounds(&format!("{f}.center"), corner, b);
            }
            self.at_least(&format!("{f}.weight"), z.weight, 0.0);
            let free = (0..8).any(|a| {
                (0..8).any(|bb| {
                    let t = Vec2::new(a as f32 + 0.5, bb as f32 + 0.5) / 8.0 * 2.0 - Vec2::ONE;
                    blocking_obstacle(level, z.center + t * z.half_extents).is_none()
                })
            });
            if !free {
                self.fail(
                    format!("{f}.center"),
                    format!(
                        "`{}` is covered by obstacles: nobody can spawn there",
                        z.name
                    ),
                );
            }
            if let Some(p) = &z.path {
                if !level.paths.iter().any(|x| &x.name == p) {
                    let names: Vec<&str> = level.paths.iter().map(|x| x.name.as_str()).collect();
                    self.fail(
                        format!("{f}.path"),
                        format!("no path named `{p}`; paths: {}", names.join(", ")),
                    );
                }
            }
        }
        if level.spawn_zones.iter().all(|z| z.weight <= 0.0) && !level.spawn_zones.is_empty() {
            self.fail(
                "spawn_zones",
                "every zone has weight 0; at least one must be above 0",
            );
        }
    }

    /// The crowd's size limit, its models (files, heights, clip keys, attachments) and variant groups.
    fn crowd_models(&mut self, level: &Level) {
        let cr = &level.crowd;
        if cr.count > MAX_CROWD {
            self.fail(
                "crowd.count",
                format!("{} is above the maximum {MAX_CROWD}", cr.count),
            );
        }
        if cr.models.is_empty() {
            self.fail("crowd.models", "at least one crowd model is required");
        }
        self.unique("crowd.models", cr.models.iter().map(|m| m.name.as_str()));
        for (i, m) in cr.models.iter().enumerate() {
            self.model_file(&format!("crowd.models[{i}].path"), &m.path);
            self.in_range(&format!("crowd.models[{i}].height"), m.height, 0.1, 20.0);
            for key in m.clips.keys() {
                if !ClipKind::ALL.iter().any(|&k| k.key() == key) {
                    self.fail(
                        format!("crowd.models[{i}].clips"),
                        format!(
                            "`{key}` is not an activity; allowed: idle, walk, run, wave, sit, talk, look_around"
                        ),
                    );
                }
            }
            self.attachments(i, m);
        }
        if cr.variant_groups.is_empty() {
            self.fail(
                "crowd.variant_groups",
                "at least one variant group is required",
            );
        }
        for (i, g) in cr.variant_groups.iter().enumerate() {
            let f = format!("crowd.variant_groups[{i}]");
            self.at_least(&format!("{f}.weight"), g.weight, 0.0);
            if g.models.is_empty() {
                self.fail(
                    format!("{f}.models"),
                    "a group needs at least one model name",
                );
            }
            for (k, name) in g.models.iter().enumerate() {
                if !cr.models.iter().any(|m| &m.name == name) {
                    let names: Vec<&str> = cr.models.iter().map(|m| m.name.as_str()).collect();
                    self.fail(
                        format!("{f}.models[{k}]"),
                        format!(
                            "no crowd model named `{name}`; models: {}",
                            names.join(", ")
                        ),
                    );
                }
            }
            for (k, t) in g.tints.iter().enumerate() {
                self.colour(&format!("{f}.tints[{k}]"), *t);
            }
            for (k, p) in g.props.iter().enumerate() {
                self.in_range(&format!("{f}.props[{k}].chance"), p.chance, 0.0, 1.0);
            }
        }
        if !cr.variant_groups.is_empty() && cr.variant_groups.iter().all(|g| g.weight <= 0.0) {
            self.fail(
                "crowd.variant_groups",
                "every group has weight 0; at least one must be above 0",
            );
        }
    }

    /// The crowd's speeds and behaviour settings, and whether that many people fit at all.
    fn crowd_behaviour(&mut self, level: &Level) {
        let cr = &level.crowd;
        if !crate::level::schema::CROWD_TICK_RATES.contains(&cr.tick_hz) {
            self.fail(
                "crowd.tick_hz",
                format!("{} is not a crowd step rate; allowed: 60 or 30", cr.tick_hz),
            );
        }
        self.walk_speed(&cr.walk_speed);
        self.groups(&cr.groups);
        let be = &cr.behaviour;
        for (name, w) in [
            ("stroll_weight", be.stroll_weight),
            ("follow_path_weight", be.follow_path_weight),
            ("linger_weight", be.linger_weight),
        ] {
            self.at_least(&format!("crowd.behaviour.{name}"), w, 0.0);
        }
        for (name, r) in [
            ("linger_seconds", &be.linger_seconds),
            ("sit_seconds", &be.sit_seconds),
            ("watch_seconds", &be.watch_seconds),
            ("queue_service_seconds", &be.queue_service_seconds),
            ("show_watch_seconds", &be.show_watch_seconds),
        ] {
            self.range(&format!("crowd.behaviour.{name}"), r, 0.0, 3600.0);
        }
        for (name, v) in [("none", be.show_stop.none), ("many", be.show_stop.many)] {
            self.in_range(&format!("crowd.behaviour.show_stop.{name}"), v, 0.0, 1.0);
        }
        self.in_range(
            "crowd.behaviour.show_stop.half_at",
            be.show_stop.half_at,
            0.0,
            10_000.0,
        );
        self.in_range(
            "crowd.behaviour.applaud_seconds",
            be.applaud_seconds,
            0.0,
            60.0,
        );
        self.in_range(
            "crowd.behaviour.notice_hero_distance",
            be.notice_hero_distance,
            0.0,
            50.0,
        );
        self.in_range(
            "crowd.behaviour.personal_space",
            be.personal_space,
            0.1,
            3.0,
        );
        self.in_range(
            "crowd.behaviour.disturbance_radius",
            be.disturbance_radius,
            0.0,
            500.0,
        );
        self.in_range(
            "crowd.behaviour.calm_down_seconds",
            be.calm_down_seconds,
            0.0,
            600.0,
        );
        self.alarm_behaviour(&be.alarm);
        if self.clean() && cr.count > 0 {
            let fits = u64::from(max_people(level));
            if cr.count as u64 > fits {
                self.fail(
                    "crowd.count",
                    format!(
                        "{} people do not fit: this level's free area holds at most {fits} ({MAX_DENSITY} per m²)",
                        cr.count
                    ),
                );
            }
        }
    }

    /// The speed range, and the normal distribution inside it when one is given.
    fn walk_speed(&mut self, w: &WalkSpeed) {
        let range = Range {
            min: w.min,
            max: w.max,
        };
        self.range("crowd.walk_speed", &range, 0.1, 6.0);
        let Some(n) = w.normal else {
            return;
        };
        self.in_range("crowd.walk_speed.normal.mean", n.mean, w.min, w.max);
        self.in_range("crowd.walk_speed.normal.sd", n.sd, 0.0, 3.0);
        if self.clean() && n.sd > 0.0 && w.min >= w.max {
            self.fail(
                "crowd.walk_speed",
                format!(
                    "min {} must be below max {} for a normal distribution to clamp to",
                    w.min, w.max
                ),
            );
        }
    }

    /// The share of people in groups and the size mix.
    fn groups(&mut self, g: &Groups) {
        self.in_range("crowd.groups.share", g.share, 0.0, 1.0);
        self.at_most("crowd.groups.sizes", "items", g.sizes.len(), MAX_LIST_ITEMS);
        for (i, s) in g.sizes.iter().enumerate() {
            if !(2..=MAX_GROUP_SIZE).contains(&s.size) {
                self.fail(
                    format!("crowd.groups.sizes[{i}].size"),
                    format!(
                        "{} is outside the allowed range 2 to {MAX_GROUP_SIZE}",
                        s.size
                    ),
                );
            }
            self.at_least(&format!("crowd.groups.sizes[{i}].weight"), s.weight, 0.0);
        }
        let total: f32 = g.sizes.iter().map(|s| s.weight).sum();
        if self.clean() && g.share > 0.0 && total <= 0.0 {
            self.fail(
                "crowd.groups.sizes",
                "people walk in groups (share above 0): at least one size needs a weight above 0",
            );
        }
    }

    /// The hero: model file, a free spawn point inside the bounds, speeds.
    fn hero(&mut self, level: &Level) {
        let b = &level.bounds;
        let h = &level.hero;
        self.model_file("hero.model", &h.model);
        if self.finite2("hero.spawn", h.spawn) {
            self.inside_bounds("hero.spawn", h.spawn, b);
            if let Some(o) = blocking_obstacle(level, h.spawn) {
                self.fail(
                    "hero.spawn",
                    format!("{} is inside obstacle `{}`", fmt2(h.spawn), o.name),
                );
            }
        }
        self.finite("hero.heading_deg", h.heading_deg);
        self.in_range("hero.walk_speed", h.walk_speed, 0.1, 6.0);
        self.in_range("hero.run_speed", h.run_speed, 0.1, 12.0);
        if h.run_speed.is_finite() && h.walk_speed.is_finite() && h.run_speed < h.walk_speed {
            self.fail(
                "hero.run_speed",
                format!("{} is below walk_speed {}", h.run_speed, h.walk_speed),
            );
        }
    }

    /// Level of detail distances, lighting and the starting camera.
    fn view_settings(&mut self, level: &Level) {
        let l = &level.lod;
        self.positive("lod.near", l.near);
        self.positive("lod.mid", l.mid);
        self.positive("lod.far", l.far);
        self.at_least("lod.hysteresis", l.hysteresis, 0.0);
        self.in_range("lod.fade", l.fade, 0.0, MAX_LOD_FADE);
        if self.clean() && !(l.near < l.mid && l.mid < l.far) {
            self.fail(
                "lod",
                format!(
                    "distances must grow: near {} < mid {} < far {}",
                    l.near, l.mid, l.far
                ),
            );
        }
        // Infinity (the default) and anything at or past `far` mean no impostors.
        if self.clean() && (l.impostor.is_nan() || l.impostor < l.near) {
            self.fail(
                "lod.impostor",
                format!(
                    "{} is below near {}; allowed: near or more (impostors replace the mid and \
                     far meshes from there; at or past far {} there are none)",
                    l.impostor, l.near, l.far
                ),
            );
        }

        let li = &level.lighting;
        for v in li.sun_direction.to_array() {
            self.finite("lighting.sun_direction", v);
        }
        if li.sun_direction.is_finite() && li.sun_direction.y >= 0.0 {
            self.fail(
                "lighting.sun_direction",
                "the sunlight must travel downwards: y must be below 0",
            );
        }
        self.colour("lighting.sun_color", li.sun_color);
        self.in_range("lighting.sun_intensity", li.sun_intensity, 0.0, 20.0);
        self.colour("lighting.ambient", li.ambient);
        self.colour("lighting.sky_color", li.sky_color);

        let cam = &level.camera;
        for v in cam.target.to_array() {
            self.finite("camera.target", v);
        }
        self.in_range("camera.distance", cam.distance, 2.0, 800.0);
        self.finite("camera.yaw_deg", cam.yaw_deg);
        self.in_range("camera.pitch_deg", cam.pitch_deg, 3.0, 87.0);
        self.in_range("camera.fov_deg", cam.fov_deg, 10.0, 120.0);
    }
}

/// The first finding about a level, if any (what loading reports).
pub fn validate(level: &Level, places: &Places) -> Result<(), Finding> {
    match validate_all(level, places).into_iter().next() {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// Every finding about a level, at most one per field (what `throng check` reports).
pub fn validate_all(level: &Level, places: &Places) -> Vec<Finding> {
    let mut c = Checker {
        places,
        found: Vec::new(),
    };
    c.counts(level);
    if !c.clean() {
        return c.found;
    }
    c.level_basics(level);
    // Every place is checked against the bounds: broken bounds would fail them all.
    if c.found.iter().any(|f| f.field.starts_with("bounds")) {
        return c.found;
    }
    c.obstacles(level);
    c.placed(level);
    c.points_of_interest(level);
    c.paths(level);
    c.spawn_zones(level);
    c.exits(level);
    c.alarms(level);
    c.measurements(level);
    c.crowd_models(level);
    c.crowd_behaviour(level);
    c.hero(level);
    c.view_settings(level);
    c.found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sample tested against every obstacle, as free_area did before it skipped samples
    /// outside each obstacle's bounding circle.
    fn free_area_brute_force(level: &Level) -> f32 {
        let size = level.bounds.size();
        let n = 200;
        let mut free = 0;
        for i in 0..n {
            for j in 0..n {
                let p = level.bounds.min
                    + Vec2::new((i as f32 + 0.5) / n as f32, (j as f32 + 0.5) / n as f32) * size;
                if blocking_obstacle(level, p).is_none() {
                    free += 1;
                }
            }
        }
        size.x * size.y * free as f32 / (n * n) as f32
    }

    #[test]
    fn free_area_matches_testing_every_sample() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for name in ["plaza", "market", "stress"] {
            let text = std::fs::read_to_string(root.join(format!("levels/{name}.ron")))
                .expect("shipped level");
            let level: Level = ron::from_str(&text).expect("parses");
            let fast = free_area(&level);
            assert_eq!(fast, free_area_brute_force(&level), "{name}");
            assert!(
                fast < level.bounds.size().x * level.bounds.size().y,
                "{name}"
            );
        }
    }
}

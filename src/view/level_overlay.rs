//! What the level overlay (F8) draws, as plain data: the bounds, obstacle outlines, points of
//! interest with their activity and occupancy, paths with direction arrows, spawn zones, exits
//! (open or closed), measurement areas (translucent polygons) and lines (with an arrow on their
//! forward side), the hero spawn and the camera start, as 3D lines, labels and handles; their projection to the
//! screen; and picking (a screen point → the element under it). Only `ui/` draws it.

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::level::{ExitArea, Level, Shape};
use crate::level_edit::Element;

/// Linear RGBA.
pub type Rgba = [f32; 4];

pub const BOUNDS_COLOR: Rgba = [1.0, 1.0, 1.0, 0.8];
pub const OBSTACLE_COLOR: Rgba = [1.0, 0.6, 0.15, 0.95];
pub const POI_COLOR: Rgba = [0.2, 0.9, 1.0, 0.95];
pub const PATH_COLOR: Rgba = [1.0, 0.35, 0.9, 0.95];
pub const SPAWN_COLOR: Rgba = [0.35, 1.0, 0.35, 0.95];
pub const HERO_COLOR: Rgba = [1.0, 0.95, 0.2, 1.0];
pub const CAMERA_COLOR: Rgba = [0.55, 0.65, 1.0, 1.0];
/// Exits: a deeper green than the spawn zones' when open, red when closed (the highlight's red
/// is brighter, and a closed exit also carries a cross).
pub const EXIT_OPEN_COLOR: Rgba = [0.0, 0.85, 0.35, 1.0];
pub const EXIT_CLOSED_COLOR: Rgba = [0.85, 0.05, 0.1, 1.0];
/// A closed exit's label: the line's red is too dark to read on the labels' black.
pub const EXIT_CLOSED_LABEL: Rgba = [1.0, 0.5, 0.5, 1.0];
/// Exit lines are drawn this wide (pixels), over the bounds line they often lie on.
const EXIT_WIDTH: f32 = 5.0;
/// Half the arms of a closed exit's cross (m).
const CROSS_HALF: f32 = 1.5;
/// Measurement areas and lines: gold, unlike any other element (exits are green or red, the
/// hero spawn a paler yellow); an area is also filled with it at `MEASURE_FILL_ALPHA`.
pub const MEASURE_COLOR: Rgba = [1.0, 0.78, 0.0, 1.0];
pub const MEASURE_FILL_ALPHA: f32 = 0.18;
/// Measurement lines are drawn this wide (pixels); their arrow stands this far (m) on the
/// forward side of the middle.
const MEASURE_LINE_WIDTH: f32 = 4.0;
const MEASURE_ARROW_OFFSET: f32 = 0.8;
/// The element an error names, and the one under the pointer.
pub const HIGHLIGHT_COLOR: Rgba = [1.0, 0.15, 0.15, 1.0];

/// Lines lie this high above the ground so the paving does not hide them.
const LIFT: f32 = 0.08;
/// Labels float this high.
const LABEL_HEIGHT: f32 = 2.2;
const CIRCLE_SEGMENTS: usize = 32;
/// A handle this close to the pointer (pixels) is under it.
pub const HANDLE_PICK_PIXELS: f32 = 10.0;
/// A handle nearer than this on screen to the handle of the element it moves with is not
/// drawn or picked: the two would overlap and grab one another's drags.
pub const HANDLE_MIN_PIXELS: f32 = 18.0;
/// A line this close to the pointer (pixels) is under it.
const LINE_PICK_PIXELS: f32 = 5.0;

#[derive(Debug, Clone, PartialEq)]
pub struct OverlayLine {
    pub a: Vec3,
    pub b: Vec3,
    pub color: Rgba,
    /// Pixels.
    pub width: f32,
    pub element: Element,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OverlayLabel {
    pub at: Vec3,
    pub text: String,
    pub color: Rgba,
    pub element: Element,
    /// 0 first: where labels would overlap, the lower rank is kept.
    pub rank: u8,
}

/// A path's direction at a point: drawn as a chevron of fixed pixel size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlayArrow {
    pub at: Vec3,
    /// Unit direction on the ground.
    pub dir: Vec3,
    pub color: Rgba,
}

/// A translucent triangle on the ground (a measurement area is filled with them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlayTriangle {
    pub corners: [Vec3; 3],
    pub color: Rgba,
    pub element: Element,
}

/// A point that can be picked (and in edit mode dragged when `movable`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Handle {
    pub at: Vec3,
    pub element: Element,
    pub movable: bool,
    /// The element this one moves with (a seat's bench): its handle stands for both when the
    /// two would be drawn close together (`merge_close_handles`).
    pub owner: Option<Element>,
}

/// A ground area picked when the pointer's ground point is inside it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Area {
    Circle {
        center: Vec2,
        radius: f32,
    },
    Quad([Vec2; 4]),
    /// One triangle of a polygon's fill (a measurement area), of either winding.
    Triangle([Vec2; 3]),
}

impl Area {
    pub fn contains(&self, p: Vec2) -> bool {
        match *self {
            Area::Circle { center, radius } => p.distance(center) <= radius,
            Area::Quad(c) => (0..4).all(|i| {
                let (a, b) = (c[i], c[(i + 1) % 4]);
                (b - a).perp_dot(p - a) >= 0.0
            }),
            Area::Triangle(t) => {
                let side = |i: usize| (t[(i + 1) % 3] - t[i]).perp_dot(p - t[i]);
                let (a, b, c) = (side(0), side(1), side(2));
                (a >= 0.0 && b >= 0.0 && c >= 0.0) || (a <= 0.0 && b <= 0.0 && c <= 0.0)
            }
        }
    }

    pub fn size(&self) -> f32 {
        match *self {
            Area::Circle { radius, .. } => std::f32::consts::PI * radius * radius,
            Area::Quad(c) => (c[1] - c[0]).length() * (c[3] - c[0]).length(),
            Area::Triangle(t) => 0.5 * (t[1] - t[0]).perp_dot(t[2] - t[0]).abs(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LevelOverlay {
    pub lines: Vec<OverlayLine>,
    pub labels: Vec<OverlayLabel>,
    pub arrows: Vec<OverlayArrow>,
    /// Filled under the lines.
    pub fills: Vec<OverlayTriangle>,
    pub handles: Vec<Handle>,
    pub areas: Vec<(Element, Area)>,
}

fn ground(p: Vec2) -> Vec3 {
    Vec3::new(p.x, LIFT, p.y)
}

/// Corners of a rectangle on the ground, turned by `angle_deg`, in the winding the
/// `Area::Quad` inside test expects.
pub fn rect_corners(center: Vec2, half: Vec2, angle_deg: f32) -> [Vec2; 4] {
    [
        Vec2::new(-half.x, -half.y),
        Vec2::new(half.x, -half.y),
        Vec2::new(half.x, half.y),
        Vec2::new(-half.x, half.y),
    ]
    .map(|c| center + crate::footprint::box_to_world(angle_deg, c))
}

impl LevelOverlay {
    fn outline(&mut self, points: &[Vec2], closed: bool, color: Rgba, element: Element) {
        let n = points.len();
        let segments = if closed { n } else { n.saturating_sub(1) };
        for i in 0..segments {
            self.lines.push(OverlayLine {
                a: ground(points[i]),
                b: ground(points[(i + 1) % n]),
                color,
                width: 2.0,
                element,
            });
        }
    }

    fn circle(&mut self, center: Vec2, radius: f32, color: Rgba, element: Element) {
        let points: Vec<Vec2> = (0..CIRCLE_SEGMENTS)
            .map(|k| {
                let a = k as f32 / CIRCLE_SEGMENTS as f32 * std::f32::consts::TAU;
                center + Vec2::new(a.cos(), a.sin()) * radius
            })
            .collect();
        self.outline(&points, true, color, element);
    }

    fn label(&mut self, at: Vec2, text: String, color: Rgba, element: Element, rank: u8) {
        self.labels.push(OverlayLabel {
            at: Vec3::new(at.x, LABEL_HEIGHT, at.y),
            text,
            color,
            element,
            rank,
        });
    }

    fn handle(&mut self, at: Vec2, element: Element) {
        self.handles.push(Handle {
            at: ground(at),
            element,
            movable: element.movable(),
            owner: None,
        });
    }

    /// The overlay of `level`; `occupancy` is the people at each point of interest now.
    pub fn build(level: &Level, occupancy: &[u32]) -> LevelOverlay {
        let mut o = LevelOverlay::default();
        let b = level.bounds;
        let corners = [
            b.min,
            Vec2::new(b.max.x, b.min.y),
            b.max,
            Vec2::new(b.min.x, b.max.y),
        ];
        o.outline(&corners, true, BOUNDS_COLOR, Element::Bounds);
        o.obstacles(level);
        for (i, z) in level.spawn_zones.iter().enumerate() {
            let e = Element::Spawn(i);
            let c = rect_corners(z.center, z.half_extents, 0.0);
            o.outline(&c, true, SPAWN_COLOR, e);
            o.areas.push((e, Area::Quad(c)));
            o.handle(z.center, e);
            let text = format!("spawn {} · weight {}", z.name, z.weight);
            o.label(z.center, text, SPAWN_COLOR, e, 1);
        }
        o.paths(level);
        o.exits(level);
        o.measurements(level);
        for (i, p) in level.points_of_interest.iter().enumerate() {
            let e = Element::Poi(i);
            o.circle(p.position, p.radius, POI_COLOR, e);
            o.areas.push((
                e,
                Area::Circle {
                    center: p.position,
                    radius: p.radius,
                },
            ));
            o.handle(p.position, e);
            if let Some(h) = o.handles.last_mut() {
                h.owner = e.owner(level);
            }
            let used = occupancy.get(i).copied().unwrap_or(0);
            let text = format!("{} · {:?} · {used}/{}", p.name, p.activity, p.capacity);
            o.label(p.position, text, POI_COLOR, e, 0);
        }
        let hero = level.hero.spawn;
        o.circle(hero, 0.5, HERO_COLOR, Element::HeroSpawn);
        o.handle(hero, Element::HeroSpawn);
        o.label(hero, "hero spawn".into(), HERO_COLOR, Element::HeroSpawn, 0);
        let cam = &level.camera;
        let target = Vec2::new(cam.target.x, cam.target.z);
        // The start camera's eye, seen from above: `distance` back along its yaw.
        let yaw = cam.yaw_deg.to_radians();
        let back =
            Vec2::new(yaw.sin(), yaw.cos()) * cam.distance * cam.pitch_deg.to_radians().cos();
        o.outline(
            &[target, target + back],
            false,
            CAMERA_COLOR,
            Element::CameraStart,
        );
        o.handle(target, Element::CameraStart);
        let text = format!("camera start ({:?}, {} m)", cam.mode, cam.distance);
        o.label(target + back, text, CAMERA_COLOR, Element::CameraStart, 1);
        o
    }

    fn obstacles(&mut self, level: &Level) {
        for (i, ob) in level.obstacles.iter().enumerate() {
            let e = Element::Obstacle(i);
            match ob.shape {
                Shape::Circle { center, radius } => {
                    self.circle(center, radius, OBSTACLE_COLOR, e);
                    self.areas.push((e, Area::Circle { center, radius }));
                }
                Shape::Box {
                    center,
                    half_extents,
                    angle_deg,
                } => {
                    let c = rect_corners(center, half_extents, angle_deg);
                    self.outline(&c, true, OBSTACLE_COLOR, e);
                    self.areas.push((e, Area::Quad(c)));
                }
            }
            self.handle(ob.shape.center(), e);
            self.label(ob.shape.center(), ob.name.clone(), OBSTACLE_COLOR, e, 2);
        }
    }

    /// Each exit's line or box in green (open) or red with a cross (closed), a handle at its
    /// centre and a label with its state and capacity. Drawn after the bounds, whose line a
    /// street end lies on, and wider, so it shows over it.
    fn exits(&mut self, level: &Level) {
        for (i, exit) in level.exits.iter().enumerate() {
            let e = Element::Exit(i);
            let color = if exit.closed {
                EXIT_CLOSED_COLOR
            } else {
                EXIT_OPEN_COLOR
            };
            let first = self.lines.len();
            match exit.area {
                ExitArea::Line(a, b) => self.outline(&[a, b], false, color, e),
                ExitArea::Box {
                    center,
                    half_extents,
                } => {
                    let c = rect_corners(center, half_extents, 0.0);
                    self.outline(&c, true, color, e);
                    self.areas.push((e, Area::Quad(c)));
                }
            }
            let center = exit.area.center();
            if exit.closed {
                let d = Vec2::splat(CROSS_HALF * std::f32::consts::FRAC_1_SQRT_2);
                let other = Vec2::new(d.x, -d.y);
                self.outline(&[center - d, center + d], false, color, e);
                self.outline(&[center - other, center + other], false, color, e);
            }
            for l in &mut self.lines[first..] {
                l.width = EXIT_WIDTH;
            }
            self.handle(center, e);
            let (state, label) = if exit.closed {
                ("closed", EXIT_CLOSED_LABEL)
            } else {
                ("open", color)
            };
            let text = format!("exit {} · {state} · {:.1}/s", exit.name, exit.capacity());
            self.label(center, text, label, e, 0);
        }
    }

    /// Measurement areas as gold outlines over a translucent fill, labelled with their name
    /// and size; lines as wide gold segments with an arrow on their forward side (see
    /// `MeasurementLine::forward`) and their name. Each has a handle at its middle.
    fn measurements(&mut self, level: &Level) {
        let fill = [
            MEASURE_COLOR[0],
            MEASURE_COLOR[1],
            MEASURE_COLOR[2],
            MEASURE_FILL_ALPHA,
        ];
        for (i, area) in level.measurement_areas.iter().enumerate() {
            let e = Element::MeasurementArea(i);
            for [a, b, c] in triangulate(&area.polygon) {
                // Picked anywhere inside, as spawn zones are.
                self.areas.push((e, Area::Triangle([a, b, c])));
                self.fills.push(OverlayTriangle {
                    corners: [ground(a), ground(b), ground(c)],
                    color: fill,
                    element: e,
                });
            }
            self.outline(&area.polygon, true, MEASURE_COLOR, e);
            if let Some(middle) = e.anchor(level) {
                self.handle(middle, e);
                let size = crate::polygon::polygon_area(&area.polygon);
                let text = format!("area {} · {size:.0} m²", area.name);
                self.label(middle, text, MEASURE_COLOR, e, 1);
            }
        }
        for (i, line) in level.measurement_lines.iter().enumerate() {
            let e = Element::MeasurementLine(i);
            let first = self.lines.len();
            self.outline(&[line.from, line.to], false, MEASURE_COLOR, e);
            for l in &mut self.lines[first..] {
                l.width = MEASURE_LINE_WIDTH;
            }
            let middle = (line.from + line.to) * 0.5;
            let forward = line.forward();
            if forward != Vec2::ZERO {
                self.arrows.push(OverlayArrow {
                    at: ground(middle + forward * MEASURE_ARROW_OFFSET),
                    dir: Vec3::new(forward.x, 0.0, forward.y),
                    color: MEASURE_COLOR,
                });
            }
            self.handle(middle, e);
            self.label(middle, format!("line {}", line.name), MEASURE_COLOR, e, 1);
        }
    }

    /// Adds the live readings to the measurement areas' and lines' labels (the k-th area's
    /// reading to the k-th area's label).
    pub fn show_readings(&mut self, meters: &crate::measure::Meters) {
        let areas = meters.area_readings();
        let lines = meters.line_readings();
        for label in &mut self.labels {
            let reading = match label.element {
                Element::MeasurementArea(k) => areas.get(k).map(|(_, r)| r.summary()),
                Element::MeasurementLine(k) => lines.get(k).map(|(_, r)| r.summary()),
                _ => None,
            };
            if let Some(r) = reading {
                label.text = format!("{} · {r}", label.text);
            }
        }
    }

    fn paths(&mut self, level: &Level) {
        for (i, p) in level.paths.iter().enumerate() {
            let e = Element::Path(i);
            self.outline(&p.points, p.looped, PATH_COLOR, e);
            let n = p.points.len();
            let segments = if p.looped { n } else { n.saturating_sub(1) };
            for k in 0..segments {
                let (a, b) = (p.points[k], p.points[(k + 1) % n]);
                if let Some(dir) = (b - a).try_normalize() {
                    self.arrows.push(OverlayArrow {
                        at: ground((a + b) * 0.5),
                        dir: Vec3::new(dir.x, 0.0, dir.y),
                        color: PATH_COLOR,
                    });
                }
            }
            for (k, &q) in p.points.iter().enumerate() {
                self.handle(q, Element::PathPoint(i, k));
            }
            if let Some(&first) = p.points.first() {
                let looped = if p.looped { " (loop)" } else { "" };
                self.label(first, format!("path {}{looped}", p.name), PATH_COLOR, e, 1);
            }
        }
    }

    /// Keeps one handle where an element and what moves with it (a bench and its seat) would
    /// have theirs within [`HANDLE_MIN_PIXELS`] of each other on this view: the owner's, which
    /// drags both. Nearer, the two stand apart and each is drawn and picked (the seat can then
    /// be placed on its own).
    pub fn merge_close_handles(&mut self, view_proj: &Mat4, screen: Vec2) {
        let on_screen = |at: Vec3| project(view_proj, at, screen);
        let owners: Vec<(Element, Option<Vec2>)> = self
            .handles
            .iter()
            .map(|h| (h.element, on_screen(h.at)))
            .collect();
        self.handles.retain(|h| {
            let Some(owner) = h.owner else {
                return true;
            };
            let owner_at = owners.iter().find(|(e, _)| *e == owner).and_then(|o| o.1);
            match (on_screen(h.at), owner_at) {
                (Some(a), Some(b)) => a.distance(b) >= HANDLE_MIN_PIXELS,
                _ => true,
            }
        });
    }

    /// Paints the lines and labels of `element` (an error's, the one under the pointer) in
    /// the highlight colour, lines thicker.
    pub fn highlight(&mut self, element: Element) {
        let path_of_point = match element {
            Element::PathPoint(i, _) => Some(Element::Path(i)),
            _ => None,
        };
        for l in &mut self.lines {
            if l.element == element || Some(l.element) == path_of_point {
                l.color = HIGHLIGHT_COLOR;
                // Thicker than drawn: exits' wide lines too.
                l.width = (l.width + 2.0).max(4.0);
            }
        }
        for l in &mut self.labels {
            if l.element == element {
                l.color = HIGHLIGHT_COLOR;
                l.rank = 0;
            }
        }
        for f in &mut self.fills {
            if f.element == element {
                f.color = [
                    HIGHLIGHT_COLOR[0],
                    HIGHLIGHT_COLOR[1],
                    HIGHLIGHT_COLOR[2],
                    f.color[3],
                ];
            }
        }
    }
}

/// Triangles covering a simple polygon of either winding (ear clipping); a polygon that is not
/// simple gets what triangles the clipping finds before it stalls.
pub fn triangulate(points: &[Vec2]) -> Vec<[Vec2; 3]> {
    let mut left: Vec<Vec2> = points.to_vec();
    if crate::polygon::signed_area(&left) < 0.0 {
        left.reverse();
    }
    let mut out = Vec::new();
    let inside = |p: Vec2, a: Vec2, b: Vec2, c: Vec2| {
        (b - a).perp_dot(p - a) >= 0.0
            && (c - b).perp_dot(p - b) >= 0.0
            && (a - c).perp_dot(p - c) >= 0.0
    };
    while left.len() > 3 {
        let n = left.len();
        let ear = (0..n).find(|&i| {
            let (a, b, c) = (left[(i + n - 1) % n], left[i], left[(i + 1) % n]);
            (b - a).perp_dot(c - b) > 0.0
                && !left
                    .iter()
                    .any(|&p| p != a && p != b && p != c && inside(p, a, b, c))
        });
        let Some(i) = ear else {
            return out;
        };
        out.push([left[(i + n - 1) % n], left[i], left[(i + 1) % n]]);
        left.remove(i);
    }
    if left.len() == 3 {
        out.push([left[0], left[1], left[2]]);
    }
    out
}

/// A world point on the screen (pixels, y down), None behind the camera. Points off the
/// screen's sides are returned too (lines run off the edge).
pub fn project(view_proj: &Mat4, p: Vec3, screen: Vec2) -> Option<Vec2> {
    let c = *view_proj * p.extend(1.0);
    (c.w > NEAR_W).then(|| clip_to_screen(c, screen))
}

/// Clip-space w below this is behind (or at) the camera.
const NEAR_W: f32 = 0.05;

fn clip_to_screen(c: Vec4, screen: Vec2) -> Vec2 {
    let ndc = c.truncate() / c.w;
    Vec2::new(
        (ndc.x + 1.0) * 0.5 * screen.x,
        (1.0 - ndc.y) * 0.5 * screen.y,
    )
}

/// A world segment on the screen, cut where it passes behind the camera.
pub fn project_segment(view_proj: &Mat4, a: Vec3, b: Vec3, screen: Vec2) -> Option<(Vec2, Vec2)> {
    let (mut ca, mut cb) = (*view_proj * a.extend(1.0), *view_proj * b.extend(1.0));
    if ca.w <= NEAR_W && cb.w <= NEAR_W {
        return None;
    }
    if ca.w <= NEAR_W || cb.w <= NEAR_W {
        let t = (NEAR_W - ca.w) / (cb.w - ca.w);
        let cut = ca + (cb - ca) * t;
        if ca.w <= NEAR_W {
            ca = cut;
        } else {
            cb = cut;
        }
    }
    Some((clip_to_screen(ca, screen), clip_to_screen(cb, screen)))
}

/// Pixels from `p` to the segment a-b.
fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// What the pointer at `mouse` (pixels) is over: the nearest handle within
/// [`HANDLE_PICK_PIXELS`], else (unless `movable_only`) the nearest line within a few pixels,
/// else the smallest area holding the pointer's ground point `ground`. In edit mode
/// (`movable_only`) only the handles of movable elements count.
pub fn pick(
    overlay: &LevelOverlay,
    view_proj: &Mat4,
    screen: Vec2,
    mouse: Vec2,
    ground: Option<Vec2>,
    movable_only: bool,
) -> Option<Element> {
    let nearest_handle = overlay
        .handles
        .iter()
        .filter(|h| h.movable || !movable_only)
        .filter_map(|h| Some((project(view_proj, h.at, screen)?.distance(mouse), h.element)))
        .filter(|(d, _)| *d <= HANDLE_PICK_PIXELS)
        .min_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((_, e)) = nearest_handle {
        return Some(e);
    }
    if movable_only {
        return None;
    }
    let nearest_line = overlay
        .lines
        .iter()
        .filter_map(|l| {
            let (a, b) = project_segment(view_proj, l.a, l.b, screen)?;
            Some((segment_distance(mouse, a, b), l.element))
        })
        .filter(|(d, e)| *d <= LINE_PICK_PIXELS && *e != Element::Bounds)
        .min_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((_, e)) = nearest_line {
        return Some(e);
    }
    let g = ground?;
    overlay
        .areas
        .iter()
        .filter(|(_, a)| a.contains(g))
        .min_by(|a, b| a.1.size().total_cmp(&b.1.size()))
        .map(|(e, _)| *e)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEVEL: &str = r#"Level(
    name: "Overlay test",
    bounds: (min: (-20.0, -20.0), max: (20.0, 20.0)),
    obstacles: [
        (name: "kiosk", kind: Kiosk, shape: Box(center: (10.0, 0.0), half_extents: (2.0, 1.0), angle_deg: 90.0)),
    ],
    points_of_interest: [
        (name: "cafe", position: (-10.0, 5.0), radius: 2.0, weight: 1.0, capacity: 6, activity: Linger),
    ],
    paths: [(name: "walk", points: [(-10.0, -10.0), (10.0, -10.0)])],
    spawn_zones: [(name: "gate", center: (0.0, 15.0), half_extents: (4.0, 2.0))],
    crowd: (count: 10, models: [], variant_groups: [], walk_speed: (min: 1.0, max: 1.4), seed: 1),
    hero: (model: "hero.vrm", spawn: (3.0, 3.0)),
    camera: (target: (0.0, 0.0, 0.0), distance: 30.0, yaw_deg: 0.0, pitch_deg: 60.0),
)"#;

    fn level() -> Level {
        ron::from_str(LEVEL).expect("parses")
    }

    fn lines_of(o: &LevelOverlay, e: Element) -> Vec<(Vec3, Vec3)> {
        o.lines
            .iter()
            .filter(|l| l.element == e)
            .map(|l| (l.a, l.b))
            .collect()
    }

    #[test]
    fn a_known_level_gives_its_lines_labels_arrows_and_handles() {
        let o = LevelOverlay::build(&level(), &[4]);
        let h = LIFT;
        assert_eq!(
            lines_of(&o, Element::Bounds),
            vec![
                (Vec3::new(-20.0, h, -20.0), Vec3::new(20.0, h, -20.0)),
                (Vec3::new(20.0, h, -20.0), Vec3::new(20.0, h, 20.0)),
                (Vec3::new(20.0, h, 20.0), Vec3::new(-20.0, h, 20.0)),
                (Vec3::new(-20.0, h, 20.0), Vec3::new(-20.0, h, -20.0)),
            ]
        );
        // The kiosk turned a quarter: its long side runs along z.
        let kiosk = lines_of(&o, Element::Obstacle(0));
        assert_eq!(kiosk.len(), 4);
        let first = kiosk[0];
        assert_approx!(first.0, Vec3::new(9.0, h, 2.0), 1e-5);
        assert_approx!(first.1, Vec3::new(9.0, h, -2.0), 1e-5);
        assert_eq!(lines_of(&o, Element::Poi(0)).len(), CIRCLE_SEGMENTS);
        assert_eq!(lines_of(&o, Element::Path(0)).len(), 1, "an open path");
        assert_eq!(
            o.arrows,
            vec![OverlayArrow {
                at: Vec3::new(0.0, h, -10.0),
                dir: Vec3::X,
                color: PATH_COLOR,
            }]
        );
        let texts: Vec<&str> = o.labels.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "kiosk",
                "spawn gate · weight 1",
                "path walk",
                "cafe · Linger · 4/6",
                "hero spawn",
                "camera start (Orbit, 30 m)"
            ]
        );
        let poi = o.labels.iter().find(|l| l.element == Element::Poi(0));
        assert_eq!(poi.map(|l| l.at), Some(Vec3::new(-10.0, LABEL_HEIGHT, 5.0)));
        let movable: Vec<Element> = o
            .handles
            .iter()
            .filter(|h| h.movable)
            .map(|h| h.element)
            .collect();
        assert_eq!(
            movable,
            vec![
                Element::Obstacle(0),
                Element::Spawn(0),
                Element::PathPoint(0, 0),
                Element::PathPoint(0, 1),
                Element::Poi(0)
            ]
        );
    }

    /// Straight down from 60 m over the origin, +x to the right and +z down the screen.
    fn top_down() -> Mat4 {
        Mat4::perspective_rh_gl(1.0, 1.0, 0.5, 200.0)
            * Mat4::look_at_rh(Vec3::new(0.0, 60.0, 0.0), Vec3::ZERO, Vec3::NEG_Z)
    }

    #[test]
    fn the_pointer_picks_handles_then_lines_then_the_smallest_area() {
        let o = LevelOverlay::build(&level(), &[]);
        let vp = top_down();
        let screen = Vec2::new(800.0, 800.0);
        let at = |x: f32, z: f32| project(&vp, Vec3::new(x, LIFT, z), screen).expect("in front");
        let pick_at = |x: f32, z: f32, movable_only| {
            pick(
                &o,
                &vp,
                screen,
                at(x, z),
                Some(Vec2::new(x, z)),
                movable_only,
            )
        };
        // The POI's handle, and a few pixels off it.
        assert_eq!(pick_at(-10.0, 5.0, true), Some(Element::Poi(0)));
        assert_eq!(
            pick(
                &o,
                &vp,
                screen,
                at(-10.0, 5.0) + Vec2::new(6.0, 0.0),
                None,
                true
            ),
            Some(Element::Poi(0))
        );
        assert_eq!(pick_at(10.0, -10.0, true), Some(Element::PathPoint(0, 1)));
        // Inside the POI's disc but away from its handle: the area, in the overlay only.
        assert_eq!(pick_at(-9.0, 5.5, false), Some(Element::Poi(0)));
        assert_eq!(pick_at(-9.0, 5.5, true), None);
        // On the path's line between its points.
        assert_eq!(pick_at(-3.0, -10.0, false), Some(Element::Path(0)));
        // Inside the spawn zone; outside everything.
        assert_eq!(pick_at(2.5, 15.5, false), Some(Element::Spawn(0)));
        assert_eq!(pick_at(-15.0, -15.0, false), None);
        // The hero spawn is picked but never dragged.
        assert_eq!(pick_at(3.0, 3.0, false), Some(Element::HeroSpawn));
        assert_eq!(pick_at(3.0, 3.0, true), None);
    }

    #[test]
    fn a_seat_handle_near_its_bench_handle_merges_into_it_until_zoomed_in() {
        let level: Level = ron::from_str(&LEVEL.replace(
            "obstacles: [",
            "obstacles: [\n        (name: \"bench\", kind: Bench, shape: Box(center: (0.0, -5.0), \
             half_extents: (1.5, 0.35), angle_deg: 0.0)),",
        ).replace(
            "points_of_interest: [",
            "points_of_interest: [\n        (name: \"seat\", position: (0.0, -4.1), radius: 0.6, \
             weight: 1.0, capacity: 3, activity: Sit),",
        ))
        .expect("parses");
        let (bench, seat) = (Element::Obstacle(0), Element::Poi(0));
        let screen = Vec2::new(800.0, 800.0);
        let handles = |vp: &Mat4| {
            let mut o = LevelOverlay::build(&level, &[]);
            o.merge_close_handles(vp, screen);
            o.handles.iter().map(|h| h.element).collect::<Vec<_>>()
        };
        // From 60 m up the 0.9 m between them is about 13 pixels: one handle, the bench's,
        // and a press between the two grabs the bench (which carries the seat), where
        // unmerged the seat's nearer handle would take it.
        let far = top_down();
        let gap = |vp: &Mat4| {
            let at = |z| project(vp, Vec3::new(0.0, LIFT, z), screen).expect("in front");
            at(-5.0).distance(at(-4.1))
        };
        assert!(gap(&far) < HANDLE_MIN_PIXELS, "{}", gap(&far));
        let seen = handles(&far);
        assert!(seen.contains(&bench) && !seen.contains(&seat), "{seen:?}");
        let mut o = LevelOverlay::build(&level, &[]);
        let on = |z| project(&far, Vec3::new(0.0, LIFT, z), screen).expect("in front");
        let between = on(-5.0) + (on(-4.1) - on(-5.0)).normalize() * 7.0;
        assert_eq!(pick(&o, &far, screen, between, None, true), Some(seat));
        o.merge_close_handles(&far, screen);
        assert_eq!(pick(&o, &far, screen, between, None, true), Some(bench));
        // From 20 m they are 40 pixels apart: both.
        let near = Mat4::perspective_rh_gl(1.0, 1.0, 0.5, 200.0)
            * Mat4::look_at_rh(
                Vec3::new(0.0, 20.0, -4.5),
                Vec3::new(0.0, 0.0, -4.5),
                Vec3::NEG_Z,
            );
        assert!(gap(&near) > HANDLE_MIN_PIXELS, "{}", gap(&near));
        let seen = handles(&near);
        assert!(seen.contains(&bench) && seen.contains(&seat), "{seen:?}");
        // Handles of elements that do not move together are never merged.
        assert_eq!(
            LevelOverlay::build(&level, &[]).handles.len() - 1,
            handles(&far).len()
        );
    }

    #[test]
    fn exits_are_green_lines_or_red_crossed_boxes_picked_and_dragged_by_their_centre() {
        let level: Level = ron::from_str(&LEVEL.replace(
            "    crowd:",
            "    exits: [\n        (name: \"gate\", area: Line((-4.0, 20.0), (4.0, 20.0))),\n        \
             (name: \"door\", area: Box(center: (-15.0, 0.0), half_extents: (1.0, 2.0)), \
             capacity: Some(2.0), closed: true),\n    ],\n    crowd:",
        ))
        .expect("parses");
        let o = LevelOverlay::build(&level, &[]);
        let (gate, door) = (Element::Exit(0), Element::Exit(1));
        let h = LIFT;
        assert_eq!(
            lines_of(&o, gate),
            vec![(Vec3::new(-4.0, h, 20.0), Vec3::new(4.0, h, 20.0))]
        );
        // The box's four sides and the two arms of its cross.
        assert_eq!(lines_of(&o, door).len(), 6);
        let colour_of = |e| {
            let ls: Vec<&OverlayLine> = o.lines.iter().filter(|l| l.element == e).collect();
            assert!(ls
                .iter()
                .all(|l| l.width == EXIT_WIDTH && l.color == ls[0].color));
            ls[0].color
        };
        assert_eq!(colour_of(gate), EXIT_OPEN_COLOR);
        assert_eq!(colour_of(door), EXIT_CLOSED_COLOR);
        // Drawn after the bounds, so a street end shows over the bounds' line.
        let last_bounds = o.lines.iter().rposition(|l| l.element == Element::Bounds);
        let first_exit = o.lines.iter().position(|l| l.element == gate);
        assert!(last_bounds < first_exit);
        let texts: Vec<&str> = o
            .labels
            .iter()
            .filter(|l| matches!(l.element, Element::Exit(_)))
            .map(|l| l.text.as_str())
            .collect();
        // The gate's default capacity: 1.3 a second per metre of its 8 m.
        assert_eq!(
            texts,
            vec!["exit gate · open · 10.4/s", "exit door · closed · 2.0/s"]
        );
        let handles: Vec<(Element, Vec3, bool)> = o
            .handles
            .iter()
            .filter(|h| matches!(h.element, Element::Exit(_)))
            .map(|h| (h.element, h.at, h.movable))
            .collect();
        assert_eq!(
            handles,
            vec![
                (gate, Vec3::new(0.0, h, 20.0), true),
                (door, Vec3::new(-15.0, h, 0.0), true)
            ]
        );
        let vp = top_down();
        let screen = Vec2::new(800.0, 800.0);
        let at = |x: f32, z: f32| project(&vp, Vec3::new(x, LIFT, z), screen).expect("in front");
        let pick_at = |x: f32, z: f32, movable_only| {
            pick(
                &o,
                &vp,
                screen,
                at(x, z),
                Some(Vec2::new(x, z)),
                movable_only,
            )
        };
        // On the gate's line (over the bounds' line), away from its handle; inside the door.
        assert_eq!(pick_at(3.0, 20.0, false), Some(gate));
        assert_eq!(pick_at(3.0, 20.0, true), None);
        assert_eq!(pick_at(0.0, 20.0, true), Some(gate));
        assert_eq!(pick_at(-14.5, 1.5, false), Some(door));
        let mut lit = o.clone();
        lit.highlight(gate);
        assert!(lit
            .lines
            .iter()
            .filter(|l| l.element == gate)
            .all(|l| l.color == HIGHLIGHT_COLOR && l.width > EXIT_WIDTH));
    }

    #[test]
    fn the_plazas_measurements_are_gold_with_a_fill_an_arrow_and_labels() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("the plaza");
        let level: Level = ron::from_str(&text).expect("parses");
        let o = LevelOverlay::build(&level, &[]);
        let (area, line) = (Element::MeasurementArea(0), Element::MeasurementLine(0));
        let texts: Vec<&str> = o
            .labels
            .iter()
            .filter(|l| l.element == area || l.element == line)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(
            texts,
            vec!["area south_street_area · 64 m²", "line north_street_line"]
        );
        // The area: four gold edges over two translucent triangles covering its 64 m².
        let edges: Vec<&OverlayLine> = o.lines.iter().filter(|l| l.element == area).collect();
        assert_eq!(edges.len(), 4);
        assert!(edges.iter().all(|l| l.color == MEASURE_COLOR));
        let filled: f32 = o
            .fills
            .iter()
            .filter(|t| t.element == area)
            .map(|t| {
                let [a, b, c] = t.corners.map(|p| Vec2::new(p.x, p.z));
                crate::polygon::polygon_area(&[a, b, c])
            })
            .sum();
        assert!((filled - 64.0).abs() < 1e-3, "{filled}");
        // The line, wide, its arrow on the forward side: north (-z), out of the north exit.
        let segs: Vec<&OverlayLine> = o.lines.iter().filter(|l| l.element == line).collect();
        assert_eq!(segs.len(), 1);
        assert_eq!(segs[0].width, MEASURE_LINE_WIDTH);
        let arrow = o
            .arrows
            .iter()
            .find(|a| a.color == MEASURE_COLOR)
            .expect("the line's arrow");
        assert_eq!(arrow.dir, Vec3::new(0.0, 0.0, -1.0));
        assert!(
            arrow.at.z < -95.0 && arrow.at.x.abs() < 1e-6,
            "{:?}",
            arrow.at
        );
        // Each has a handle at its middle, and the error's field path finds it.
        assert!(o
            .handles
            .iter()
            .any(|h| h.element == line && h.at == Vec3::new(0.0, LIFT, -95.0)));
        assert!(o
            .handles
            .iter()
            .any(|h| h.element == area && h.at == Vec3::new(0.0, LIFT, 74.0)));
        assert_eq!(
            Element::from_field_path("measurement_lines[0].to", &level),
            Some(line)
        );
    }

    #[test]
    fn a_measurement_area_is_picked_anywhere_inside_and_turns_red_with_an_error() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("the plaza");
        let level: Level = ron::from_str(&text).expect("parses");
        let mut o = LevelOverlay::build(&level, &[]);
        let area = Element::MeasurementArea(0);
        // Far from its handle (the middle, (0, 74)) and its edges, off screen: the ground
        // point alone picks it.
        let off = Vec2::splat(-1e4);
        for at in [
            Vec2::new(-3.0, 71.0),
            Vec2::new(3.0, 77.0),
            Vec2::new(2.5, 72.0),
        ] {
            let picked = pick(
                &o,
                &Mat4::IDENTITY,
                Vec2::new(10.0, 10.0),
                off,
                Some(at),
                false,
            );
            assert_eq!(picked, Some(area), "at {at}");
        }
        let outside = pick(
            &o,
            &Mat4::IDENTITY,
            Vec2::new(10.0, 10.0),
            off,
            Some(Vec2::new(5.0, 74.0)),
            false,
        );
        assert_ne!(outside, Some(area));
        o.highlight(area);
        let fills: Vec<&OverlayTriangle> = o.fills.iter().filter(|t| t.element == area).collect();
        assert!(!fills.is_empty());
        assert!(fills
            .iter()
            .all(|t| t.color[..3] == HIGHLIGHT_COLOR[..3] && t.color[3] == MEASURE_FILL_ALPHA));
    }

    #[test]
    fn the_measurements_labels_carry_their_live_readings() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("the plaza");
        let level: Level = ron::from_str(&text).expect("parses");
        let mut o = LevelOverlay::build(&level, &[]);
        let mut meters = crate::measure::Meters::for_level(&level);
        // Two people standing in the street area, one crossing the north line forwards.
        let pos = |t: f32| {
            vec![
                Vec2::new(0.0, 72.0),
                Vec2::new(1.0, 75.0),
                Vec2::new(0.0, -94.0 - t),
            ]
        };
        let vel = vec![Vec2::ZERO, Vec2::ZERO, Vec2::new(0.0, -1.0)];
        for k in 0..=20 {
            let p = pos(k as f32 * 0.1);
            meters.observe(k as f32 * 0.1, &p, &vel, |_| true);
        }
        o.show_readings(&meters);
        let text_of = |e: Element| {
            o.labels
                .iter()
                .find(|l| l.element == e)
                .map(|l| l.text.clone())
                .unwrap_or_default()
        };
        assert_eq!(
            text_of(Element::MeasurementArea(0)),
            "area south_street_area · 64 m² · 0.03/m² (Voronoi 0.03) · 0.00 m/s"
        );
        let line = text_of(Element::MeasurementLine(0));
        assert!(
            line.starts_with("line north_street_line · fwd 0.50/s · back 0.00/s"),
            "{line}"
        );
    }

    #[test]
    fn a_concave_polygon_of_either_winding_is_covered_by_its_triangles() {
        let mut p: Vec<Vec2> = [(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 1.0), (0.0, 4.0)]
            .iter()
            .map(|&(x, z)| Vec2::new(x, z))
            .collect();
        for _ in 0..2 {
            let t = triangulate(&p);
            assert_eq!(t.len(), 3);
            let sum: f32 = t.iter().map(|t| crate::polygon::polygon_area(t)).sum();
            assert!((sum - crate::polygon::polygon_area(&p)).abs() < 1e-4);
            p.reverse();
        }
    }

    #[test]
    fn segments_behind_the_camera_are_cut_at_it() {
        let vp = Mat4::perspective_rh_gl(1.0, 1.0, 0.1, 100.0)
            * Mat4::look_at_rh(Vec3::ZERO, Vec3::NEG_Z, Vec3::Y);
        let screen = Vec2::new(400.0, 400.0);
        let (a, b) = project_segment(
            &vp,
            Vec3::new(0.0, 0.0, -10.0),
            Vec3::new(0.0, 0.0, 10.0),
            screen,
        )
        .expect("partly in front");
        assert_approx!(a, Vec2::new(200.0, 200.0), 1e-3);
        assert!(b.is_finite());
        assert!(project_segment(
            &vp,
            Vec3::new(0.0, 0.0, 5.0),
            Vec3::new(1.0, 0.0, 5.0),
            screen
        )
        .is_none());
        let mut o = LevelOverlay::build(&level(), &[]);
        o.highlight(Element::PathPoint(0, 1));
        assert!(o
            .lines
            .iter()
            .filter(|l| l.element == Element::Path(0))
            .all(|l| l.color == HIGHLIGHT_COLOR && l.width == 4.0));
    }
}

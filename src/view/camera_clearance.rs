//! Keeping the follow camera out of people and props: how far along the line from the hero to
//! the camera is clear, and an eased pull-in that never lets the camera sit inside anything.
//!
//! Blockers are upright solids on the ground: a person is a cylinder (`PERSON_RADIUS`,
//! `PERSON_HEIGHT`), a prop its footprint raised to its height. The camera itself is a small
//! sphere (`CAMERA_MARGIN`), so its near plane does not cut into a body it stands next to.

use glam::{Vec2, Vec3};

use crate::footprint::Shape;

/// A person's body as the camera sees it: a little wider than the crowd's collision radius
/// (arms, bags) and as tall as a tall person.
pub const PERSON_RADIUS: f32 = 0.3;
/// Someone touching the hero is closer than `PERSON_RADIUS` plus the margin; the camera still
/// keeps out of their body proper (the crowd's collision radius and a little).
pub const PERSON_CORE_RADIUS: f32 = 0.25;
pub const PERSON_HEIGHT: f32 = 1.9;
/// Room kept between the camera and any blocker.
pub const CAMERA_MARGIN: f32 = 0.2;
/// How fast a pulled-in camera eases back out (1/s); pulling in is immediate.
const EASE_OUT_RATE: f32 = 3.0;
/// Steps of the march through prop footprints are at least this long (metres).
const MIN_MARCH: f32 = 0.02;

/// Something the camera must not be inside.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blocker {
    /// A person standing at this ground point.
    Person(Vec2),
    /// A prop: its footprint, from the ground up to `height`.
    Prop { shape: Shape, height: f32 },
}

/// The line from what the camera follows to where the player put the camera: how far it is
/// free of props, and the stretches of it inside people.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineOfView {
    /// Props block the line of sight (a camera behind a wall shows the wall): nothing beyond
    /// the first prop is free.
    sight: f32,
    /// People only keep the camera out of their bodies: someone standing between merely hides
    /// part of the picture, as in life. (enter, exit) along the line.
    people: Vec<(f32, f32)>,
}

impl LineOfView {
    /// The line from `focus` to `eye` among `blockers`. Blockers that already hold `focus` are
    /// skipped (what the camera follows stands there), except a person's core
    /// (`PERSON_CORE_RADIUS`).
    pub fn new(focus: Vec3, eye: Vec3, blockers: &[Blocker]) -> LineOfView {
        let length = focus.distance(eye);
        if !(length.is_finite() && length > 1e-4) {
            return LineOfView::default();
        }
        let dir = (eye - focus) / length;
        let sight = blockers
            .iter()
            .filter_map(|b| match *b {
                Blocker::Prop { shape, height } => enter_prop(focus, dir, length, &shape, height),
                Blocker::Person(_) => None,
            })
            .fold(length, f32::min);
        let people = blockers
            .iter()
            .filter_map(|b| match *b {
                Blocker::Person(at) => person_span(focus, dir, sight, at),
                Blocker::Prop { .. } => None,
            })
            .collect();
        LineOfView { sight, people }
    }

    /// Whether the camera may stand `t` along the line.
    pub fn free_at(&self, t: f32) -> bool {
        (0.0..=self.sight).contains(&t) && !self.people.iter().any(|&(a, b)| a < t && t <= b)
    }

    /// The farthest point of the line, at most `limit`, where the camera may stand.
    pub fn farthest_free(&self, limit: f32) -> f32 {
        // From the far end inwards: while the point is inside someone, step to where the line
        // entered them (and check again: that point may be inside someone else).
        let mut t = limit.min(self.sight);
        while let Some(&(enter, _)) = self.people.iter().find(|&&(a, b)| a < t && t <= b) {
            t = enter;
        }
        t.max(0.0)
    }
}

/// How far from `focus` towards `eye` the camera may go (see `LineOfView`).
pub fn clear_distance(focus: Vec3, eye: Vec3, blockers: &[Blocker]) -> f32 {
    LineOfView::new(focus, eye, blockers).farthest_free(f32::INFINITY)
}

/// The stretch of the ray (within `length`) inside a person standing at `at`, widened by the
/// camera's margin; None when the ray misses them or the followed point is inside even their
/// core.
fn person_span(origin: Vec3, dir: Vec3, length: f32, at: Vec2) -> Option<(f32, f32)> {
    let height = PERSON_HEIGHT + CAMERA_MARGIN;
    let wide = PERSON_RADIUS + CAMERA_MARGIN;
    let flat = Vec2::new(origin.x, origin.z) - at;
    let start_in_height = (-CAMERA_MARGIN..=height).contains(&origin.y);
    let radius = if flat.length() > wide || !start_in_height {
        wide
    } else if flat.length() > PERSON_CORE_RADIUS {
        PERSON_CORE_RADIUS
    } else {
        return None;
    };
    let (t0, t1) = circle_span(flat, Vec2::new(dir.x, dir.z), radius)?;
    let (h0, h1) = height_span(origin.y, dir.y, height)?;
    let (from, to) = (t0.max(h0).max(0.0), t1.min(h1).min(length));
    (from <= to).then_some((from, to))
}

/// Where a 2D ray from `o` (relative to the circle's centre) along `d` is inside the circle.
fn circle_span(o: Vec2, d: Vec2, radius: f32) -> Option<(f32, f32)> {
    let a = d.length_squared();
    let c = o.length_squared() - radius * radius;
    if a < 1e-12 {
        // Straight up or down: inside for ever or never.
        return (c <= 0.0).then_some((f32::NEG_INFINITY, f32::INFINITY));
    }
    let b = o.dot(d);
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let root = disc.sqrt();
    Some(((-b - root) / a, (-b + root) / a))
}

/// Where `y + t·dy` lies within [−margin, height].
fn height_span(y: f32, dy: f32, height: f32) -> Option<(f32, f32)> {
    let low = -CAMERA_MARGIN;
    if dy.abs() < 1e-6 {
        return (low..=height)
            .contains(&y)
            .then_some((f32::NEG_INFINITY, f32::INFINITY));
    }
    let (a, b) = ((low - y) / dy, (height - y) / dy);
    Some((a.min(b), a.max(b)))
}

/// Where the ray enters a prop (its footprint widened by the margin, up to its height): marched
/// by the footprint's signed distance, which never steps over an edge.
fn enter_prop(origin: Vec3, dir: Vec3, length: f32, shape: &Shape, height: f32) -> Option<f32> {
    let top = height + CAMERA_MARGIN;
    let flat = Vec2::new(dir.x, dir.z).length();
    let at = |t: f32| {
        let p = origin + dir * t;
        (
            shape.signed_distance(Vec2::new(p.x, p.z)).0 - CAMERA_MARGIN,
            p.y,
        )
    };
    let (d0, y0) = at(0.0);
    if d0 <= 0.0 && y0 <= top {
        return None; // the followed point is on or in it
    }
    let mut t = 0.0;
    while t <= length {
        let (d, y) = at(t);
        if d <= 0.0 && y <= top {
            return Some(t);
        }
        if y > top && dir.y >= 0.0 {
            return None; // rising above it: it cannot be entered any more
        }
        // Horizontally the ray covers `flat` per unit of t; vertically it may drop onto the top.
        let across = if flat > 1e-6 { d / flat } else { f32::INFINITY };
        let down = if y > top && dir.y < 0.0 {
            (y - top) / -dir.y
        } else {
            f32::INFINITY
        };
        let step = across.min(down);
        if !step.is_finite() {
            return None;
        }
        t += step.max(MIN_MARCH);
    }
    None
}

/// The follow camera's distance from what it follows, eased: pulled in at once to where the line
/// is clear, let out again smoothly so a person crossing behind does not make it jump back and
/// forth.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Clearance {
    /// The distance in use; None before the first frame (start where the player wants).
    current: Option<f32>,
}

impl Clearance {
    /// This frame's distance along `line`: the farthest free point up to `wanted` (the
    /// player's zoom), reached at once when that is nearer, eased towards otherwise. Easing out
    /// never passes through someone: a step that would land inside a person cuts straight to
    /// the farthest free point instead.
    pub fn update(&mut self, wanted: f32, line: &LineOfView, dt: f32) -> f32 {
        let target = line.farthest_free(wanted.max(0.0));
        let next = match self.current {
            Some(c) if c < target => {
                let k = 1.0 - (-EASE_OUT_RATE * dt.max(0.0)).exp();
                let eased = c + (target - c) * k;
                if line.free_at(eased) {
                    eased
                } else {
                    target
                }
            }
            _ => target,
        };
        self.current = Some(next);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOCUS: Vec3 = Vec3::new(0.0, 1.2, 0.0);

    #[test]
    fn an_empty_line_is_clear_all_the_way() {
        let eye = Vec3::new(0.0, 2.0, 4.5);
        assert_approx!(clear_distance(FOCUS, eye, &[]), FOCUS.distance(eye), 1e-5);
        let beside = [Blocker::Person(Vec2::new(2.0, 2.0))];
        assert_approx!(
            clear_distance(FOCUS, eye, &beside),
            FOCUS.distance(eye),
            1e-5
        );
    }

    #[test]
    fn the_camera_steps_out_of_a_person_it_would_stand_in() {
        let eye = Vec3::new(0.0, 1.2, 4.0);
        let d = clear_distance(FOCUS, eye, &[Blocker::Person(Vec2::new(0.0, 4.2))]);
        assert_approx!(d, 4.2 - PERSON_RADIUS - CAMERA_MARGIN, 1e-4);
        // Someone between only hides part of the picture: the camera stays where it is.
        let d = clear_distance(FOCUS, eye, &[Blocker::Person(Vec2::new(0.0, 2.0))]);
        assert_approx!(d, 4.0, 1e-4);
        // Over their heads is free.
        let high = Vec3::new(0.0, 6.0, 4.2);
        let d = clear_distance(FOCUS, high, &[Blocker::Person(Vec2::new(0.0, 4.2))]);
        assert_approx!(d, FOCUS.distance(high), 1e-4);
    }

    #[test]
    fn people_in_a_row_push_the_camera_past_all_of_them() {
        let eye = Vec3::new(0.0, 1.2, 3.2);
        let row = [2.2, 3.0, 2.6].map(|z| Blocker::Person(Vec2::new(0.0, z)));
        assert_approx!(clear_distance(FOCUS, eye, &row), 2.2 - 0.5, 1e-4);
    }

    #[test]
    fn someone_touching_the_hero_still_keeps_the_camera_out_of_their_body() {
        let toucher = Blocker::Person(Vec2::new(0.1, 0.3));
        let far = Vec3::new(0.0, 1.2, 4.0);
        assert_approx!(clear_distance(FOCUS, far, &[toucher]), 4.0, 1e-4);
        // Zoomed right in, the camera would sit in their shoulder: it stops at their core.
        let close = Vec3::new(0.0, 1.2, 0.4);
        let half_chord = (PERSON_CORE_RADIUS.powi(2) - 0.01).sqrt();
        assert_approx!(
            clear_distance(FOCUS, close, &[toucher]),
            0.3 - half_chord,
            1e-4
        );
    }

    #[test]
    fn props_stop_the_line_at_their_footprint_or_let_it_pass_over() {
        let eye = Vec3::new(0.0, 1.2, 6.0);
        let wall = Blocker::Prop {
            shape: Shape::Box {
                center: Vec2::new(0.0, 3.0),
                half_extents: Vec2::new(2.0, 0.25),
                angle_deg: 0.0,
            },
            height: 2.0,
        };
        let d = clear_distance(FOCUS, eye, &[wall]);
        assert_approx!(d, 2.75 - CAMERA_MARGIN, 0.03);
        let bench = Blocker::Prop {
            shape: Shape::Circle {
                center: Vec2::new(0.0, 3.0),
                radius: 0.5,
            },
            height: 0.5,
        };
        assert_approx!(clear_distance(FOCUS, eye, &[bench]), 6.0, 1e-4);
    }

    /// A line of `length` with people at the given stretches.
    fn line(length: f32, people: &[(f32, f32)]) -> LineOfView {
        LineOfView {
            sight: length,
            people: people.to_vec(),
        }
    }

    #[test]
    fn the_pull_in_is_immediate_and_the_way_back_eased() {
        let mut c = Clearance::default();
        assert_eq!(c.update(4.5, &line(4.5, &[]), 0.016), 4.5);
        assert_eq!(c.update(4.5, &line(1.5, &[]), 0.016), 1.5, "in at once");
        let back = c.update(4.5, &line(4.5, &[]), 0.1);
        assert!(back > 1.5 && back < 2.5, "{back}");
        for _ in 0..100 {
            c.update(4.5, &line(4.5, &[]), 0.1);
        }
        assert_approx!(c.update(4.5, &line(4.5, &[]), 0.1), 4.5, 1e-3);
        // Zooming in is the player's and immediate too.
        assert_eq!(c.update(0.1, &line(4.5, &[]), 0.1), 0.1);
        // A person at the camera's place: in to where the line enters them.
        assert_eq!(c.update(4.5, &line(4.5, &[(0.05, 4.6)]), 0.1), 0.05);
    }

    #[test]
    fn easing_out_never_passes_through_someone() {
        let mut c = Clearance::default();
        let crowded = line(4.5, &[(3.5, 4.6)]);
        assert_eq!(c.update(4.5, &crowded, 0.1), 3.5);
        // They walk off; someone else stands between at 1.5..2.5.
        let between = line(4.5, &[(1.5, 2.5)]);
        c.current = Some(1.2);
        let mut seen = Vec::new();
        for _ in 0..60 {
            let d = c.update(4.5, &between, 0.05);
            assert!(between.free_at(d), "{d} is inside the person");
            seen.push(d);
        }
        assert!(seen.windows(2).all(|w| w[1] >= w[0]), "{seen:?}");
        assert_approx!(*seen.last().unwrap(), 4.5, 1e-2);
    }
}

//! Keeping the follow camera out of people and props and clear of faces: how far along the
//! line from the hero to the camera is clear, how high the camera must be lifted so nobody's
//! head is near the lens, and an eased placement that never lets the camera sit inside
//! anything or next to a face.
//!
//! Blockers are upright solids on the ground: a person is a cylinder (`PERSON_RADIUS`,
//! `PERSON_HEIGHT`) with a head at their own eye height, a prop its footprint raised to its
//! height. The camera itself is a small sphere (`CAMERA_MARGIN`), so its near plane does not cut
//! into a body it stands next to.

use glam::{Vec2, Vec3};

use crate::footprint::Shape;
use crate::view::camera::forward_from_angles;

/// A person's body as the camera sees it: a little wider than the crowd's collision radius
/// (arms, bags) and as tall as a tall person.
pub const PERSON_RADIUS: f32 = 0.3;
/// Someone touching the hero is closer than `PERSON_RADIUS` plus the margin; the camera still
/// keeps out of their body proper (the crowd's collision radius and a little).
pub const PERSON_CORE_RADIUS: f32 = 0.25;
pub const PERSON_HEIGHT: f32 = 1.9;
/// Room kept between the camera and any blocker.
pub const CAMERA_MARGIN: f32 = 0.2;
/// Nobody's head comes nearer the lens than this, even beside or behind it out of the picture
/// (issue #29 asks 1.2 m; the crowd walks a little between two frames).
pub const HEAD_CLEARANCE: f32 = 1.3;
/// A head in the picture keeps farther: the crowd's figures have big heads, and at 1.3 m one
/// (a knight's helmet, looked down on) still covers a sixth of the screen.
pub const FRAMED_HEAD_CLEARANCE: f32 = 1.8;
/// Heads within this angle of the view's axis count as in the picture: half the diagonal of a
/// 50 degree, 16:9 view, and a little (cos 45 degrees).
const FRAMED_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// How high the camera may be lifted over people's heads: almost overhead.
const MAX_LIFT_PITCH: f32 = 1.5;
/// The lift is searched in steps of this much pitch (radians), from the player's own upwards.
const LIFT_STEP: f32 = 0.02;
/// How fast a pulled-in or lifted camera eases back (1/s); pulling in and lifting are immediate.
const EASE_OUT_RATE: f32 = 3.0;
/// Steps of the march through prop footprints are at least this long (metres).
const MIN_MARCH: f32 = 0.02;

/// Something the camera must not be inside.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blocker {
    /// A person standing at ground point `at`, their head (eyes) `head` metres up.
    Person { at: Vec2, head: f32 },
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
                Blocker::Person { .. } => None,
            })
            .fold(length, f32::min);
        let people = blockers
            .iter()
            .filter_map(|b| match *b {
                Blocker::Person { at, .. } => person_span(focus, dir, sight, at),
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

/// Where the follow camera stands round what it follows: how far from it and how high above
/// it (the orbit's distance and pitch; the yaw is the player's alone, turning the picture for
/// them would lose their bearings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub distance: f32,
    pub pitch: f32,
}

/// What stands round the followed point, for a camera orbiting it at `yaw`.
#[derive(Debug, Clone, Copy)]
pub struct Surroundings<'a> {
    pub focus: Vec3,
    pub yaw: f32,
    pub blockers: &'a [Blocker],
}

impl Surroundings<'_> {
    /// The eye of an orbit camera at this placement (as `OrbitCamera::eye`).
    pub fn eye(&self, at: Placement) -> Vec3 {
        self.focus - forward_from_angles(self.yaw, -at.pitch) * at.distance
    }

    /// The distance from `eye` to the nearest person's head (infinite when nobody is there).
    pub fn nearest_head(&self, eye: Vec3) -> f32 {
        self.heads()
            .map(|h| eye.distance(h))
            .fold(f32::INFINITY, f32::min)
    }

    /// How clear of heads an eye is: the least of each head's distance over the room it needs
    /// (`FRAMED_HEAD_CLEARANCE` in the picture, `HEAD_CLEARANCE` elsewhere); 1 or more is clear.
    pub fn head_room(&self, eye: Vec3) -> f32 {
        let axis = (self.focus - eye).normalize_or_zero();
        self.heads()
            .map(|h| {
                let d = eye.distance(h);
                let framed = axis.dot(h - eye) >= FRAMED_COS * d;
                d / if framed {
                    FRAMED_HEAD_CLEARANCE
                } else {
                    HEAD_CLEARANCE
                }
            })
            .fold(f32::INFINITY, f32::min)
    }

    fn heads(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.blockers.iter().filter_map(|b| match *b {
            Blocker::Person { at, head } => Some(Vec3::new(at.x, head, at.y)),
            Blocker::Prop { .. } => None,
        })
    }

    /// The line from the focus to where the player's distance would put the eye at `pitch`.
    fn line(&self, pitch: f32, wanted_distance: f32) -> LineOfView {
        let eye = self.eye(Placement {
            distance: wanted_distance,
            pitch,
        });
        LineOfView::new(self.focus, eye, self.blockers)
    }

    /// Whether the camera may stand at `at`: on the free part of its line and clear of heads.
    pub fn allows(&self, at: Placement, wanted_distance: f32) -> bool {
        self.line(at.pitch, wanted_distance).free_at(at.distance)
            && self.head_room(self.eye(at)) >= 1.0
    }

    /// The placement nearest the player's `wanted`: at each pitch as far out as the line is
    /// free (up to their distance), at their own pitch when no head is then near the lens, else
    /// lifted by the least pitch that clears every head (over people the picture still shows
    /// the hero, where pulling in towards her only brings the camera among her neighbours).
    /// When no pitch clears them (props box the camera in), the one keeping heads farthest.
    pub fn clear_placement(&self, wanted: Placement) -> Placement {
        let mut best: Option<(f32, Placement)> = None;
        let mut pitch = wanted.pitch;
        loop {
            let distance = self
                .line(pitch, wanted.distance)
                .farthest_free(wanted.distance);
            let at = Placement { distance, pitch };
            let room = self.head_room(self.eye(at));
            if room >= 1.0 {
                return at;
            }
            if best.is_none_or(|(r, _)| room > r) {
                best = Some((room, at));
            }
            if pitch >= MAX_LIFT_PITCH || !pitch.is_finite() {
                break;
            }
            pitch = (pitch + LIFT_STEP).min(MAX_LIFT_PITCH);
        }
        best.map_or(wanted, |(_, at)| at)
    }
}

/// The follow camera's placement, eased: pulled in or lifted at once to where it is clear, let
/// back down and out smoothly so a person crossing behind does not make it jump back and forth.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Clearance {
    /// The placement in use; None before the first frame (start where it is clear).
    current: Option<Placement>,
}

impl Clearance {
    /// This frame's placement: `Surroundings::clear_placement` of the player's `wanted`,
    /// reached at once when that is nearer or higher, eased towards otherwise. Easing back
    /// never passes through someone or next to a face: a step that would cuts straight to the
    /// clear placement instead.
    pub fn update(&mut self, wanted: Placement, around: &Surroundings, dt: f32) -> Placement {
        let target = around.clear_placement(Placement {
            distance: wanted.distance.max(0.0),
            ..wanted
        });
        let next = match self.current {
            Some(c) if c.distance < target.distance || c.pitch > target.pitch => {
                let k = 1.0 - (-EASE_OUT_RATE * dt.max(0.0)).exp();
                let eased = Placement {
                    distance: if c.distance < target.distance {
                        c.distance + (target.distance - c.distance) * k
                    } else {
                        target.distance
                    },
                    pitch: if c.pitch > target.pitch {
                        c.pitch + (target.pitch - c.pitch) * k
                    } else {
                        target.pitch
                    },
                };
                if around.allows(eased, wanted.distance) {
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
        let beside = [person_at(Vec2::new(2.0, 2.0))];
        assert_approx!(
            clear_distance(FOCUS, eye, &beside),
            FOCUS.distance(eye),
            1e-5
        );
    }

    #[test]
    fn the_camera_steps_out_of_a_person_it_would_stand_in() {
        let eye = Vec3::new(0.0, 1.2, 4.0);
        let d = clear_distance(FOCUS, eye, &[person_at(Vec2::new(0.0, 4.2))]);
        assert_approx!(d, 4.2 - PERSON_RADIUS - CAMERA_MARGIN, 1e-4);
        // Someone between only hides part of the picture: the camera stays where it is.
        let d = clear_distance(FOCUS, eye, &[person_at(Vec2::new(0.0, 2.0))]);
        assert_approx!(d, 4.0, 1e-4);
        // Over their heads is free.
        let high = Vec3::new(0.0, 6.0, 4.2);
        let d = clear_distance(FOCUS, high, &[person_at(Vec2::new(0.0, 4.2))]);
        assert_approx!(d, FOCUS.distance(high), 1e-4);
    }

    #[test]
    fn people_in_a_row_push_the_camera_past_all_of_them() {
        let eye = Vec3::new(0.0, 1.2, 3.2);
        let row = [2.2, 3.0, 2.6].map(|z| person_at(Vec2::new(0.0, z)));
        assert_approx!(clear_distance(FOCUS, eye, &row), 2.2 - 0.5, 1e-4);
    }

    #[test]
    fn someone_touching_the_hero_still_keeps_the_camera_out_of_their_body() {
        let toucher = person_at(Vec2::new(0.1, 0.3));
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

    /// Someone standing at `at` with their eyes 1.6 m up.
    fn person_at(at: Vec2) -> Blocker {
        Blocker::Person { at, head: 1.6 }
    }

    /// What the camera sees round `FOCUS`, looking towards -Z (the eye is on the +Z side).
    fn around(blockers: &[Blocker]) -> Surroundings<'_> {
        Surroundings {
            focus: FOCUS,
            yaw: 0.0,
            blockers,
        }
    }

    fn place(distance: f32, pitch: f32) -> Placement {
        Placement { distance, pitch }
    }

    /// A wall across the line at `z`, too tall to look over.
    fn wall(z: f32) -> Blocker {
        Blocker::Prop {
            shape: Shape::Box {
                center: Vec2::new(0.0, z),
                half_extents: Vec2::new(3.0, 0.25),
                angle_deg: 0.0,
            },
            height: 30.0,
        }
    }

    #[test]
    fn the_pull_in_is_immediate_and_the_way_back_eased() {
        let level = place(4.5, 0.0);
        let mut c = Clearance::default();
        assert_eq!(c.update(level, &around(&[]), 0.016), level);
        // A wall 2 m behind the hero: in at once to its near side less the margin.
        let walled = c.update(level, &around(&[wall(2.0)]), 0.016);
        assert_approx!(walled.distance, 1.75 - CAMERA_MARGIN, 0.03);
        assert_eq!(walled.pitch, 0.0, "nobody's head is near: no lift");
        let back = c.update(level, &around(&[]), 0.1).distance;
        assert!(back > walled.distance && back < 2.5, "{back}");
        for _ in 0..100 {
            c.update(level, &around(&[]), 0.1);
        }
        assert_approx!(c.update(level, &around(&[]), 0.1).distance, 4.5, 1e-3);
        // Zooming in is the player's and immediate too.
        assert_eq!(
            c.update(place(2.0, 0.0), &around(&[]), 0.1),
            place(2.0, 0.0)
        );
        // A person at the camera's place: stepping in to where the line enters them would
        // put the lens at their face; lifted over them instead, at once (and easing back out
        // from the zoom as before).
        let there = [person_at(Vec2::new(0.0, 4.6))];
        let target = around(&there).clear_placement(level);
        assert!(target.pitch > 0.3 && target.distance == 4.5, "{target:?}");
        let at = c.update(level, &around(&there), 0.1);
        assert_eq!(at.pitch, target.pitch);
        assert!(at.distance > 2.0 && at.distance < 4.5, "{at:?}");
        assert!(around(&there).allows(at, 4.5), "{at:?}");
    }

    #[test]
    fn someone_between_far_from_the_lens_leaves_the_camera_where_the_player_put_it() {
        let wanted = place(4.5, 0.25);
        let between = [person_at(Vec2::new(0.0, 2.0))];
        let near = around(&between);
        assert!(near.nearest_head(near.eye(wanted)) > 2.0);
        assert_eq!(near.clear_placement(wanted), wanted);
    }

    #[test]
    fn a_head_beside_the_lens_lifts_the_camera_at_once_by_the_least_pitch() {
        let wanted = place(4.5, 0.25);
        let eye = around(&[]).eye(wanted);
        // Just beside the eye, not in the line: their body does not pull the camera in.
        let beside = [person_at(Vec2::new(0.6, eye.z))];
        let near = around(&beside);
        assert!(near.nearest_head(eye) < 1.0);
        let lifted = near.clear_placement(wanted);
        assert_eq!(lifted.distance, 4.5, "lifted over them, not pulled in");
        assert!(lifted.pitch > wanted.pitch + 0.05, "{lifted:?}");
        assert!(near.head_room(near.eye(lifted)) >= 1.0);
        assert!(near.nearest_head(near.eye(lifted)) >= HEAD_CLEARANCE);
        // The least lift: one step lower is too close to their head.
        let lower = place(4.5, lifted.pitch - LIFT_STEP);
        assert!(near.head_room(near.eye(lower)) < 1.0);
        let mut c = Clearance::default();
        assert_eq!(
            c.update(wanted, &near, 0.016),
            lifted,
            "lifted from the first frame"
        );
    }

    #[test]
    fn a_head_in_the_picture_keeps_farther_than_one_beside_the_lens() {
        let wanted = place(4.5, 0.25);
        let eye = around(&[]).eye(wanted);
        // 1.5 m from the lens, between it and the hero: in the middle of the picture.
        let ahead = Vec2::new(0.0, eye.z - (1.5f32.powi(2) - (eye.y - 1.6).powi(2)).sqrt());
        let framed = [person_at(ahead)];
        let near = around(&framed);
        assert_approx!(near.nearest_head(eye), 1.5, 1e-4);
        assert!(!near.allows(wanted, 4.5));
        let lifted = near.clear_placement(wanted);
        assert!(lifted.pitch > wanted.pitch, "{lifted:?}");
        assert!(near.nearest_head(near.eye(lifted)) >= FRAMED_HEAD_CLEARANCE);
        // As far, beside the lens (out of the picture): the player's view stands.
        let side = Vec2::new((1.5f32.powi(2) - (eye.y - 1.6).powi(2)).sqrt(), eye.z);
        let beside = [person_at(side)];
        let near = around(&beside);
        assert_approx!(near.nearest_head(eye), 1.5, 1e-4);
        assert_eq!(near.clear_placement(wanted), wanted);
    }

    #[test]
    fn a_lifted_camera_eases_back_down_never_passing_a_face() {
        let wanted = place(4.5, 0.25);
        let eye = around(&[]).eye(wanted);
        let mut c = Clearance::default();
        let lifted = c.update(wanted, &around(&[person_at(Vec2::new(0.6, eye.z))]), 0.016);
        // They walk away sideways, half a metre a frame: the camera follows them down only as
        // far as their head allows.
        let mut seen = vec![lifted.pitch];
        for i in 1..=80 {
            let x = (0.6 + 0.05 * i as f32).min(3.0);
            let blockers = [person_at(Vec2::new(x, eye.z))];
            let near = around(&blockers);
            let at = c.update(wanted, &near, 0.05);
            assert!(
                near.head_room(near.eye(at)) >= 1.0,
                "frame {i}: {at:?} is next to their head"
            );
            assert_eq!(at.distance, 4.5);
            seen.push(at.pitch);
        }
        assert!(seen.windows(2).all(|w| w[1] <= w[0]), "{seen:?}");
        assert_approx!(*seen.last().unwrap(), wanted.pitch, 1e-3);
    }

    #[test]
    fn easing_out_never_passes_through_someone() {
        // Level with their heads, a long way out: someone in the camera's place pulls it in.
        let wanted = place(8.0, 0.0);
        let mut c = Clearance::default();
        let crowded = [person_at(Vec2::new(0.0, 7.5))];
        let moved = c.update(wanted, &around(&crowded), 0.1);
        assert!(around(&crowded).allows(moved, 8.0), "{moved:?}");
        assert_ne!(moved, wanted);
        // They walk off; someone else stands between at 4 m, whose head the camera must not
        // pass on its way out.
        let between = [person_at(Vec2::new(0.0, 4.0))];
        let near = around(&between);
        c.current = Some(place(1.2, 0.0));
        let mut seen = Vec::new();
        for _ in 0..60 {
            let at = c.update(wanted, &near, 0.05);
            assert!(
                near.allows(at, wanted.distance),
                "{at:?} is inside or next to them"
            );
            seen.push(at.distance);
        }
        assert!(seen.windows(2).all(|w| w[1] >= w[0]), "{seen:?}");
        assert_approx!(*seen.last().unwrap(), 8.0, 1e-2);
    }
}

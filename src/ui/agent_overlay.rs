//! Debug overlay (F3): each nearby agent's behaviour state written above its head, coloured by
//! state, so a designer can see the state machines at work; walking groups are linked member to
//! leader at waist height, and the leader's label says the group's size.

use super::layout_log::draw_text;
use glam::{Mat4, Vec3};
use macroquad::prelude::{draw_line, draw_rectangle, measure_text, Color};

use crate::crowd::{AgentState, Crowd};

use super::pointer::Rect;

/// Only agents this close to the camera are labelled: text for thousands would be unreadable.
const LABEL_DISTANCE: f32 = 30.0;
const MAX_LABELS: usize = 120;
const FONT: u16 = 15;

/// A label that could be drawn: its distance from the camera and its box on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelSpot {
    pub distance: f32,
    pub rect: Rect,
}

/// Which labels to draw so none covers another or a panel: nearest first, a label whose box
/// (grown by `gap` on every side) overlaps one already placed or one of `panels` is left out,
/// at most `max` in all. Returns indices into `spots`, nearest first.
pub fn place_labels(spots: &[LabelSpot], panels: &[Rect], gap: f32, max: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..spots.len()).collect();
    order.sort_by(|&a, &b| spots[a].distance.total_cmp(&spots[b].distance));
    let mut placed: Vec<usize> = Vec::new();
    for i in order {
        if placed.len() >= max {
            break;
        }
        let r = spots[i].rect;
        let grown = Rect {
            x: r.x - gap,
            y: r.y - gap,
            w: r.w + 2.0 * gap,
            h: r.h + 2.0 * gap,
        };
        let free = placed.iter().all(|&k| !grown.overlaps(&spots[k].rect))
            && panels.iter().all(|p| !r.overlaps(p));
        if free {
            placed.push(i);
        }
    }
    placed
}

fn state_color(s: AgentState) -> Color {
    match s {
        AgentState::Walking => Color::new(0.85, 0.85, 0.85, 1.0),
        AgentState::Lingering => Color::new(1.0, 0.85, 0.3, 1.0),
        AgentState::Sitting => Color::new(0.5, 0.8, 1.0, 1.0),
        AgentState::WatchingFountain => Color::new(0.4, 0.9, 0.9, 1.0),
        AgentState::Queuing => Color::new(1.0, 0.6, 0.2, 1.0),
        AgentState::Scattering => Color::new(1.0, 0.3, 0.3, 1.0),
        AgentState::Idle => Color::new(0.7, 0.7, 0.7, 1.0),
        AgentState::Watching => Color::new(0.75, 0.5, 1.0, 1.0),
        AgentState::Applauding => Color::new(1.0, 0.5, 0.9, 1.0),
        AgentState::Performing => Color::new(1.0, 0.95, 0.5, 1.0),
        AgentState::Controlled => Color::new(0.3, 1.0, 0.4, 1.0),
        AgentState::Fleeing => Color::new(1.0, 0.15, 0.1, 1.0),
        AgentState::Evacuated => Color::new(0.4, 0.4, 0.4, 1.0),
    }
}

/// Screen position (pixels, y down) of a world point, or None behind the camera.
pub fn to_screen(view_proj: &Mat4, p: Vec3, width: f32, height: f32) -> Option<(f32, f32)> {
    let clip = *view_proj * p.extend(1.0);
    if clip.w <= 0.01 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    if ndc.x.abs() > 1.0 || ndc.y.abs() > 1.0 {
        return None;
    }
    Some(((ndc.x + 1.0) * 0.5 * width, (1.0 - ndc.y) * 0.5 * height))
}

const GROUP_LINK: Color = Color::new(1.0, 0.35, 0.85, 0.9);

/// A line from member `i` to its group's leader, at waist height.
fn draw_group_link(crowd: &Crowd, i: usize, view_proj: &Mat4, width: f32, height: f32) {
    let leader = crowd.group_leader[i] as usize;
    if leader == i || leader >= crowd.len() {
        return;
    }
    let waist = |k: usize| Vec3::new(crowd.pos[k].x, 1.0, crowd.pos[k].y);
    let a = to_screen(view_proj, waist(i), width, height);
    let b = to_screen(view_proj, waist(leader), width, height);
    if let (Some((ax, ay)), Some((bx, by))) = (a, b) {
        draw_line(ax, ay, bx, by, 2.0, GROUP_LINK);
    }
}

/// A person's label: its behaviour, and for a group's leader the group's size.
fn label(crowd: &Crowd, i: usize) -> String {
    let size = crowd.group(i).len();
    if size > 1 && crowd.group_leader[i] as usize == i {
        format!("{} · group of {size}", crowd.state_label(i))
    } else {
        crowd.state_label(i).to_string()
    }
}

/// Labels the nearby agents with their behaviour, nearer ones first and none covering another
/// or a panel (`panels`, as last drawn), each on a dark box so it reads over any scene; group
/// links are drawn for every nearby member, under the labels.
pub fn draw(crowd: &Crowd, view_proj: &Mat4, eye: Vec3, screen: glam::Vec2, panels: &[Rect]) {
    let (width, height) = (screen.x, screen.y);
    let mut spots = Vec::new();
    let mut agents = Vec::new();
    for i in 0..crowd.len() {
        let p = crowd.pos[i];
        let head = Vec3::new(p.x, 2.0, p.y);
        let distance = head.distance(eye);
        if distance > LABEL_DISTANCE {
            continue;
        }
        let Some((x, y)) = to_screen(view_proj, head, width, height) else {
            continue;
        };
        draw_group_link(crowd, i, view_proj, width, height);
        let w = measure_text(label(crowd, i).as_str(), None, FONT, 1.0).width;
        let rect = Rect {
            x: x - w * 0.5 - 3.0,
            y: y - f32::from(FONT),
            w: w + 6.0,
            h: f32::from(FONT) + 4.0,
        };
        spots.push(LabelSpot { distance, rect });
        agents.push(i);
    }
    for k in place_labels(&spots, panels, 2.0, MAX_LABELS) {
        let (i, r) = (agents[k], spots[k].rect);
        draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.7));
        draw_text(
            label(crowd, i).as_str(),
            r.x + 3.0,
            r.y + f32::from(FONT) - 1.0,
            f32::from(FONT),
            state_color(crowd.state[i]),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(distance: f32, x: f32, y: f32) -> LabelSpot {
        LabelSpot {
            distance,
            rect: Rect {
                x,
                y,
                w: 60.0,
                h: 18.0,
            },
        }
    }

    #[test]
    fn labels_are_placed_nearest_first_and_never_overlap() {
        let spots = [
            spot(20.0, 100.0, 100.0),
            // Nearer, on top of the first: it wins and the first is left out.
            spot(5.0, 110.0, 105.0),
            // Clear of both.
            spot(25.0, 300.0, 100.0),
            // Just below the nearest one, closer than the gap.
            spot(8.0, 110.0, 124.0),
            spot(9.0, 110.0, 130.0),
        ];
        assert_eq!(place_labels(&spots, &[], 2.0, 10), vec![1, 4, 2]);
        assert_eq!(place_labels(&spots, &[], 2.0, 2), vec![1, 4], "capped");
        assert!(place_labels(&[], &[], 2.0, 10).is_empty());
        // A label under a panel is left out; the next one clear of everything takes its place.
        let panel = Rect {
            x: 280.0,
            y: 0.0,
            w: 100.0,
            h: 500.0,
        };
        assert_eq!(place_labels(&spots, &[panel], 2.0, 10), vec![1, 4]);
        // However dense the crowd, the placed boxes are disjoint.
        let dense: Vec<LabelSpot> = (0..400)
            .map(|k| {
                spot(
                    k as f32 * 0.07,
                    (k * 37 % 500) as f32,
                    (k * 53 % 300) as f32,
                )
            })
            .collect();
        let placed = place_labels(&dense, &[], 2.0, 1000);
        assert!(placed.len() > 10 && placed.len() < 400);
        for (n, &a) in placed.iter().enumerate() {
            for &b in &placed[n + 1..] {
                assert!(!dense[a].rect.overlaps(&dense[b].rect), "{a} {b}");
            }
        }
    }

    #[test]
    fn points_in_front_map_inside_the_screen() {
        let vp = Mat4::perspective_rh_gl(1.0, 2.0, 0.1, 100.0)
            * Mat4::look_at_rh(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
        let (x, y) = to_screen(&vp, Vec3::ZERO, 800.0, 400.0).expect("visible");
        assert_approx!(x, 400.0, 1e-3);
        assert_approx!(y, 200.0, 1e-3);
        assert!(to_screen(&vp, Vec3::new(0.0, 0.0, 20.0), 800.0, 400.0).is_none());
    }
}

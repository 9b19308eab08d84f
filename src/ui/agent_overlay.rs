//! Debug overlay (F3): each nearby agent's behaviour state written above its head, coloured by
//! state, so a designer can see the state machines at work; walking groups are linked member to
//! leader at waist height, and the leader's label says the group's size.

use glam::{Mat4, Vec3};
use macroquad::prelude::{draw_line, draw_text, measure_text, Color};

use crate::crowd::{AgentState, Crowd};

/// Only agents this close to the camera are labelled: text for thousands would be unreadable.
const LABEL_DISTANCE: f32 = 30.0;
const MAX_LABELS: usize = 300;

fn state_color(s: AgentState) -> Color {
    match s {
        AgentState::Walking => Color::new(0.85, 0.85, 0.85, 1.0),
        AgentState::Lingering => Color::new(1.0, 0.85, 0.3, 1.0),
        AgentState::Sitting => Color::new(0.5, 0.8, 1.0, 1.0),
        AgentState::WatchingFountain => Color::new(0.4, 0.9, 0.9, 1.0),
        AgentState::Queuing => Color::new(1.0, 0.6, 0.2, 1.0),
        AgentState::Scattering => Color::new(1.0, 0.3, 0.3, 1.0),
        AgentState::Idle => Color::new(0.7, 0.7, 0.7, 1.0),
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

pub fn draw(crowd: &Crowd, view_proj: &Mat4, eye: Vec3, width: f32, height: f32) {
    let mut shown = 0;
    for i in 0..crowd.len() {
        let p = crowd.pos[i];
        let head = Vec3::new(p.x, 2.0, p.y);
        if head.distance(eye) > LABEL_DISTANCE {
            continue;
        }
        let Some((x, y)) = to_screen(view_proj, head, width, height) else {
            continue;
        };
        draw_group_link(crowd, i, view_proj, width, height);
        let size = crowd.group(i).len();
        let label = if size > 1 && crowd.group_leader[i] as usize == i {
            format!("{} · group of {size}", crowd.state_label(i))
        } else {
            crowd.state_label(i).to_string()
        };
        let w = measure_text(&label, None, 14, 1.0).width;
        draw_text(&label, x - w * 0.5, y, 14.0, state_color(crowd.state[i]));
        shown += 1;
        if shown >= MAX_LABELS {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

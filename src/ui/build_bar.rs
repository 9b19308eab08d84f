//! The build toolbar (B): a row of things to place at the bottom of the screen and the alarm
//! button, the ghost of the thing held under the pointer (its footprint on the ground, green
//! where it fits, red with the reason where it does not) or of the armed alarm (its hearing
//! circle), and the outline of a placed thing under the pointer.

use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{draw_line, draw_rectangle, draw_rectangle_lines, measure_text, Color};

use super::layout_log::{self, draw_text};
use super::pointer::{Pointer, Rect};
use super::widgets::PANEL_BG;
use crate::level::{Obstacle, Shape, ThingKind};
use crate::view::level_overlay::project_segment;

const FONT: f32 = 18.0;
const BUTTON_H: f32 = 44.0;
const FITS: Color = Color::new(0.3, 1.0, 0.45, 0.95);
const MISFIT: Color = Color::new(1.0, 0.25, 0.2, 0.95);
const HOVERED: Color = Color::new(1.0, 0.9, 0.3, 0.95);

/// Buttons on the bar: one per thing, then the alarm, then the recording.
const BUTTONS: usize = ThingKind::ALL.len() + 2;
const ALARM_FILL: Color = Color::new(0.6, 0.1, 0.08, 0.95);

/// What a click on the toolbar chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarClick {
    Thing(ThingKind),
    /// The alarm button: raise the alarm where the next ground click is, or the all-clear.
    Alarm,
    /// Start recording everyone's trajectories, or stop the recording under way.
    Record,
}

/// The alarm button's state: it arms a ground click, or says "All clear" while one sounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AlarmButton {
    /// The next ground click raises the alarm.
    pub armed: bool,
    pub sounding: bool,
}

/// The toolbar's rectangle on a `screen` (logical units): bottom centre, one row of buttons.
pub fn bar_rect(screen: Vec2) -> Rect {
    let w = (screen.x - 20.0).min(BUTTONS as f32 * 128.0 + 12.0);
    Rect {
        x: (screen.x - w) * 0.5,
        y: screen.y - BUTTON_H - 46.0,
        w,
        h: BUTTON_H + 36.0,
    }
}

/// Where a button is on a `screen` (for scripts and tests that click it).
pub fn click_rect(screen: Vec2, click: BarClick) -> Rect {
    let k = match click {
        BarClick::Thing(kind) => ThingKind::ALL.iter().position(|t| *t == kind).unwrap_or(0),
        BarClick::Alarm => ThingKind::ALL.len(),
        BarClick::Record => ThingKind::ALL.len() + 1,
    };
    button_rect(&bar_rect(screen), k)
}

fn button_rect(bar: &Rect, k: usize) -> Rect {
    let n = BUTTONS as f32;
    let w = (bar.w - 12.0) / n;
    Rect {
        x: bar.x + 6.0 + k as f32 * w,
        y: bar.y + 30.0,
        w: w - 4.0,
        h: BUTTON_H,
    }
}

/// Draws the toolbar with `held` (or the armed alarm) highlighted; returns what was clicked
/// this frame and the bar's rectangle (it takes the mouse).
pub fn draw_bar(
    screen: Vec2,
    held: Option<ThingKind>,
    alarm: AlarmButton,
    recording: bool,
    pointer: &Pointer,
) -> (Option<BarClick>, Rect) {
    let bar = bar_rect(screen);
    draw_rectangle(bar.x, bar.y, bar.w, bar.h, PANEL_BG);
    let _scope = layout_log::panel("build toolbar", bar);
    draw_text(
        "BUILD (B): click a thing, click the ground to place   R/wheel turn   right-click cancel   click a placed thing to move it   Del remove   Ctrl+Z/Y undo/redo   Ctrl+S save",
        bar.x + 8.0,
        bar.y + 20.0,
        14.0,
        Color::new(0.85, 0.88, 0.95, 1.0),
    );
    let mut clicked = None;
    for (k, kind) in ThingKind::ALL.into_iter().enumerate() {
        let r = button_rect(&bar, k);
        let fill = if held == Some(kind) {
            Color::new(0.2, 0.45, 0.8, 0.95)
        } else {
            idle_fill(&r, pointer)
        };
        button(&r, fill, &format!("{}", k + 1), kind.label());
        if pointer.left_pressed_in(&r) {
            clicked = Some(BarClick::Thing(kind));
        }
    }
    let r = button_rect(&bar, ThingKind::ALL.len());
    let (fill, label) = match (alarm.sounding, alarm.armed) {
        (true, _) => (ALARM_FILL, "All clear"),
        (false, true) => (ALARM_FILL, "Alarm: click"),
        (false, false) => (idle_fill(&r, pointer), "Alarm"),
    };
    button(&r, fill, "K", label);
    if pointer.left_pressed_in(&r) {
        clicked = Some(BarClick::Alarm);
    }
    let r = button_rect(&bar, ThingKind::ALL.len() + 1);
    let (fill, label) = if recording {
        (ALARM_FILL, "Stop rec")
    } else {
        (idle_fill(&r, pointer), "Record")
    };
    button(&r, fill, "O", label);
    if pointer.left_pressed_in(&r) {
        clicked = Some(BarClick::Record);
    }
    (clicked, bar)
}

/// A button's fill when not chosen: lighter under the pointer.
fn idle_fill(r: &Rect, pointer: &Pointer) -> Color {
    if r.contains(pointer.pos.x, pointer.pos.y) {
        Color::new(0.22, 0.25, 0.32, 0.95)
    } else {
        Color::new(0.12, 0.14, 0.19, 0.95)
    }
}

/// One button: its fill and frame, its key in the corner and its label centred.
fn button(r: &Rect, fill: Color, key: &str, label: &str) {
    draw_rectangle(r.x, r.y, r.w, r.h, fill);
    draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.0, Color::new(0.5, 0.55, 0.65, 1.0));
    let size = fit_font(label, r.w - 8.0);
    draw_text(
        key,
        r.x + 4.0,
        r.y + 15.0,
        14.0,
        Color::new(0.7, 0.75, 0.85, 1.0),
    );
    let tw = measure_text(label, None, size as u16, 1.0).width;
    draw_text(
        label,
        r.x + (r.w - tw) * 0.5,
        r.y + 34.0,
        size,
        Color::new(1.0, 1.0, 1.0, 1.0),
    );
}

/// The largest font up to `FONT` at which `text` fits `width`.
fn fit_font(text: &str, width: f32) -> f32 {
    let mut size = FONT;
    while size > 10.0 && measure_text(text, None, size as u16, 1.0).width > width {
        size -= 1.0;
    }
    size
}

/// The ground outline of an obstacle's shape: segments a few centimetres above the ground.
fn outline(shape: &Shape) -> Vec<(Vec3, Vec3)> {
    let up = |p: Vec2| Vec3::new(p.x, 0.05, p.y);
    match *shape {
        Shape::Circle { center, radius } => circle(center, radius),
        Shape::Box {
            center,
            half_extents,
            angle_deg,
        } => {
            let c =
                crate::view::level_overlay::rect_corners(center, half_extents, angle_deg).map(up);
            (0..4).map(|k| (c[k], c[(k + 1) % 4])).collect()
        }
    }
}

/// A circle on the ground as segments.
pub fn circle(center: Vec2, radius: f32) -> Vec<(Vec3, Vec3)> {
    let n = (radius * 8.0).clamp(16.0, 64.0) as usize;
    let at = |k: usize| {
        let a = k as f32 / n as f32 * std::f32::consts::TAU;
        Vec3::new(
            center.x + a.cos() * radius,
            0.05,
            center.y + a.sin() * radius,
        )
    };
    (0..n).map(|k| (at(k), at(k + 1))).collect()
}

/// Draws world segments projected to the screen.
pub fn draw_world_lines(
    view_proj: &Mat4,
    screen: Vec2,
    lines: &[(Vec3, Vec3)],
    width: f32,
    color: Color,
) {
    for &(a, b) in lines {
        if let Some((p, q)) = project_segment(view_proj, a, b, screen) {
            draw_line(p.x, p.y, q.x, q.y, width, color);
        }
    }
}

/// The ghost of the held thing: its footprints (and a show's audience area), green where it
/// fits, red where not, with the reason beside the pointer.
pub fn draw_ghost(
    view_proj: &Mat4,
    screen: Vec2,
    pieces: &[Obstacle],
    audience: Option<(Vec2, f32)>,
    misfit: Option<&str>,
    pointer: Vec2,
    label: &str,
) {
    let color = if misfit.is_some() { MISFIT } else { FITS };
    for o in pieces {
        draw_world_lines(view_proj, screen, &outline(&o.shape), 3.0, color);
    }
    if let Some((c, r)) = audience {
        let faint = Color::new(color.r, color.g, color.b, 0.45);
        draw_world_lines(view_proj, screen, &circle(c, r), 1.5, faint);
    }
    let text = match misfit {
        Some(why) => format!("{label}: {why}"),
        None => format!("{label}: click to place"),
    };
    let w = measure_text(&text, None, 18, 1.0).width + 12.0;
    let x = (pointer.x + 18.0).min(screen.x - w - 4.0).max(4.0);
    let y = (pointer.y - 30.0).max(4.0);
    let r = Rect { x, y, w, h: 24.0 };
    draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.75));
    let _scope = layout_log::panel("build ghost", r);
    draw_text(&text, x + 6.0, y + 17.0, 18.0, color);
}

/// The outline of a placed thing under the pointer (it can be picked up or removed).
pub fn draw_hovered(view_proj: &Mat4, screen: Vec2, pieces: &[Obstacle]) {
    for o in pieces {
        draw_world_lines(view_proj, screen, &outline(&o.shape), 3.0, HOVERED);
    }
}

/// The armed alarm under the pointer: the circle within which people hear it in the open, and
/// what a click does.
pub fn draw_alarm_ghost(
    view_proj: &Mat4,
    screen: Vec2,
    ground: Option<Vec2>,
    hearing_radius: f32,
    pointer: Vec2,
) {
    if let Some(g) = ground {
        draw_world_lines(view_proj, screen, &circle(g, hearing_radius), 2.5, MISFIT);
        draw_world_lines(view_proj, screen, &circle(g, 0.8), 3.0, MISFIT);
    }
    let text = format!(
        "Alarm: click where it sounds (heard within {hearing_radius:.0} m), right-click cancel"
    );
    let w = measure_text(&text, None, 18, 1.0).width + 12.0;
    let x = (pointer.x + 18.0).min(screen.x - w - 4.0).max(4.0);
    let y = (pointer.y - 30.0).max(4.0);
    let r = Rect { x, y, w, h: 24.0 };
    draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.75));
    let _scope = layout_log::panel("build ghost", r);
    draw_text(&text, x + 6.0, y + 17.0, 18.0, MISFIT);
}

//! A graph of an easing curve, with draggable control points for `cubicBezier`, so designers
//! can see and tune a curve while the game runs.
//!
//! The mapping between curve space (t across, value up) and the screen, the hit test and the
//! drag rules are pure functions; [`draw_curve_preview`] and [`curve_preview_ui`] only draw and
//! read the mouse.

use super::layout_log::draw_text;
use glam::Vec2;
use macroquad::prelude::{
    draw_circle, draw_circle_lines, draw_line, draw_rectangle, draw_rectangle_lines, Color,
};

use super::pointer::Pointer;
use crate::tween::{CubicBezier, Easing};

/// Pixels around a control point that count as grabbing it.
pub const HANDLE_RADIUS: f32 = 8.0;

/// A screen rectangle showing curve values from `y_min` (bottom) to `y_max` (top), t from 0 (left)
/// to 1 (right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePlot {
    pub origin: Vec2,
    pub size: Vec2,
    pub y_min: f32,
    pub y_max: f32,
}

impl CurvePlot {
    /// A plot of the unit square with `margin` (in curve units) above and below.
    pub fn unit(origin: Vec2, size: Vec2, margin: f32) -> Self {
        CurvePlot {
            origin,
            size,
            y_min: -margin,
            y_max: 1.0 + margin,
        }
    }

    /// A plot that shows the whole curve (overshoot included) and, for a Bézier, both control
    /// points, with a small margin.
    pub fn fit(origin: Vec2, size: Vec2, easing: &Easing) -> Self {
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        for i in 0..=200 {
            let v = easing.eval(i as f32 / 200.0);
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        if let Easing::CubicBezier(b) = easing {
            lo = lo.min(b.y1).min(b.y2);
            hi = hi.max(b.y1).max(b.y2);
        }
        let margin = 0.1 * (hi - lo);
        CurvePlot {
            origin,
            size,
            y_min: lo - margin,
            y_max: hi + margin,
        }
    }

    /// Curve point (t, value) → screen position (y grows downward on screen).
    pub fn to_screen(&self, t: f32, value: f32) -> Vec2 {
        let span = (self.y_max - self.y_min).max(1e-6);
        Vec2::new(
            self.origin.x + t * self.size.x,
            self.origin.y + (self.y_max - value) / span * self.size.y,
        )
    }

    /// Screen position → curve point (t, value).
    pub fn to_curve(&self, p: Vec2) -> (f32, f32) {
        let span = self.y_max - self.y_min;
        let t = (p.x - self.origin.x) / self.size.x.max(1e-6);
        let v = self.y_max - (p.y - self.origin.y) / self.size.y.max(1e-6) * span;
        (t, v)
    }

    /// The curve as a screen polyline of `segments + 1` points.
    pub fn polyline(&self, easing: &Easing, segments: usize) -> Vec<Vec2> {
        let n = segments.max(1);
        (0..=n)
            .map(|i| {
                let t = i as f32 / n as f32;
                self.to_screen(t, easing.eval(t))
            })
            .collect()
    }
}

/// One of the two Bézier control points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    P1,
    P2,
}

/// Screen positions of the two control points.
pub fn handle_positions(plot: &CurvePlot, bez: &CubicBezier) -> [Vec2; 2] {
    [
        plot.to_screen(bez.x1, bez.y1),
        plot.to_screen(bez.x2, bez.y2),
    ]
}

/// The control point under `mouse`, the nearer one when both are within `radius`.
pub fn hit_handle(plot: &CurvePlot, bez: &CubicBezier, mouse: Vec2, radius: f32) -> Option<Handle> {
    let [p1, p2] = handle_positions(plot, bez);
    let (d1, d2) = (p1.distance(mouse), p2.distance(mouse));
    // Ties go to P2: it is drawn last, so it is the one on top.
    match (d1 <= radius, d2 <= radius) {
        (true, true) if d1 < d2 => Some(Handle::P1),
        (_, true) => Some(Handle::P2),
        (true, false) => Some(Handle::P1),
        _ => None,
    }
}

/// The curve with `handle` moved under `mouse`. x stays in [0, 1] (CSS requires it, or the
/// curve would not be a function of time); y stays inside the plot so the point stays grabbable.
pub fn drag_handle(
    plot: &CurvePlot,
    bez: &CubicBezier,
    handle: Handle,
    mouse: Vec2,
) -> CubicBezier {
    let (t, v) = plot.to_curve(mouse);
    let x = t.clamp(0.0, 1.0);
    let y = v.clamp(plot.y_min, plot.y_max);
    // Round to 3 decimals so the string form stays readable in level files.
    let round = |a: f32| (a * 1000.0).round() / 1000.0;
    let (x, y) = (round(x), round(y));
    let mut out = *bez;
    match handle {
        Handle::P1 => {
            out.x1 = x;
            out.y1 = y;
        }
        Handle::P2 => {
            out.x2 = x;
            out.y2 = y;
        }
    }
    out
}

/// Drag state of the Bézier editor.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BezierEditor {
    pub dragging: Option<Handle>,
    /// The plot is frozen while dragging; refitting it under the mouse would make the point
    /// run away from the cursor.
    frozen: Option<CurvePlot>,
}

impl BezierEditor {
    /// The plot to use this frame for `easing` drawn in the given rectangle.
    pub fn plot(&self, origin: Vec2, size: Vec2, easing: &Easing) -> CurvePlot {
        match self.frozen {
            Some(p) if p.origin == origin && p.size == size => p,
            _ => {
                let fitted = CurvePlot::fit(origin, size, easing);
                let unit = CurvePlot::unit(origin, size, 0.5);
                // Leave room to drag a point out for overshoot.
                CurvePlot {
                    y_min: fitted.y_min.min(unit.y_min),
                    y_max: fitted.y_max.max(unit.y_max),
                    ..fitted
                }
            }
        }
    }

    /// Feeds one frame of mouse input. `pressed` is the frame the button went down, `down`
    /// whether it is held. Returns true when the curve changed.
    pub fn update(
        &mut self,
        plot: &CurvePlot,
        bez: &mut CubicBezier,
        mouse: Vec2,
        pressed: bool,
        down: bool,
    ) -> bool {
        if pressed {
            self.dragging = hit_handle(plot, bez, mouse, HANDLE_RADIUS);
            self.frozen = self.dragging.map(|_| *plot);
        }
        if !down {
            self.dragging = None;
            self.frozen = None;
            return false;
        }
        let Some(handle) = self.dragging else {
            return false;
        };
        let moved = drag_handle(plot, bez, handle, mouse);
        let changed = moved != *bez;
        *bez = moved;
        changed
    }
}

/// Colours of the preview.
#[derive(Clone, Copy, Debug)]
pub struct PreviewStyle {
    pub background: Color,
    pub grid: Color,
    pub curve: Color,
    pub handle: Color,
    pub text: Color,
}

impl Default for PreviewStyle {
    fn default() -> Self {
        PreviewStyle {
            background: Color::new(0.08, 0.09, 0.11, 0.9),
            grid: Color::new(1.0, 1.0, 1.0, 0.15),
            curve: Color::new(0.35, 0.8, 1.0, 1.0),
            handle: Color::new(1.0, 0.6, 0.2, 1.0),
            text: Color::new(0.9, 0.9, 0.9, 1.0),
        }
    }
}

/// Draws the curve in `plot`; `playhead` (0..1) puts a dot on the curve to show motion.
pub fn draw_curve_preview(
    plot: &CurvePlot,
    easing: &Easing,
    playhead: Option<f32>,
    style: &PreviewStyle,
) {
    let (o, s) = (plot.origin, plot.size);
    draw_rectangle(o.x, o.y, s.x, s.y, style.background);
    for v in [0.0, 1.0] {
        let a = plot.to_screen(0.0, v);
        let b = plot.to_screen(1.0, v);
        draw_line(a.x, a.y, b.x, b.y, 1.0, style.grid);
    }
    draw_rectangle_lines(o.x, o.y, s.x, s.y, 1.0, style.grid);
    let points = plot.polyline(easing, (s.x as usize / 3).clamp(16, 256));
    for w in points.windows(2) {
        draw_line(w[0].x, w[0].y, w[1].x, w[1].y, 2.0, style.curve);
    }
    if let Easing::CubicBezier(b) = easing {
        let [p1, p2] = handle_positions(plot, b);
        let start = plot.to_screen(0.0, 0.0);
        let end = plot.to_screen(1.0, 1.0);
        draw_line(start.x, start.y, p1.x, p1.y, 1.0, style.handle);
        draw_line(end.x, end.y, p2.x, p2.y, 1.0, style.handle);
        for p in [p1, p2] {
            draw_circle(p.x, p.y, HANDLE_RADIUS * 0.6, style.handle);
            draw_circle_lines(p.x, p.y, HANDLE_RADIUS, 1.0, style.handle);
        }
    }
    if let Some(t) = playhead {
        let t = t.clamp(0.0, 1.0);
        let p = plot.to_screen(t, easing.eval(t));
        draw_circle(p.x, p.y, 4.0, style.text);
    }
    draw_text(easing.to_string(), o.x + 4.0, o.y + 14.0, 16.0, style.text);
}

/// The interactive widget: reads the panels' share of the mouse, lets the user drag Bézier control points, draws.
/// Returns true when `easing` was changed.
pub fn curve_preview_ui(
    origin: Vec2,
    size: Vec2,
    easing: &mut Easing,
    editor: &mut BezierEditor,
    pointer: &Pointer,
    playhead: Option<f32>,
) -> bool {
    let plot = editor.plot(origin, size, easing);
    let mut changed = false;
    if let Easing::CubicBezier(b) = easing {
        changed = editor.update(
            &plot,
            b,
            pointer.pos,
            pointer.pressed.left,
            pointer.down.left,
        );
    }
    draw_curve_preview(&plot, easing, playhead, &PreviewStyle::default());
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot() -> CurvePlot {
        CurvePlot::unit(Vec2::new(100.0, 50.0), Vec2::new(200.0, 100.0), 0.0)
    }

    #[test]
    fn screen_mapping_round_trips_and_puts_value_up() {
        let p = plot();
        assert_eq!(p.to_screen(0.0, 0.0), Vec2::new(100.0, 150.0));
        assert_eq!(p.to_screen(1.0, 1.0), Vec2::new(300.0, 50.0));
        assert_eq!(p.to_screen(0.5, 0.25), Vec2::new(200.0, 125.0));
        let (t, v) = p.to_curve(Vec2::new(200.0, 125.0));
        assert_approx!(t, 0.5, 1e-6);
        assert_approx!(v, 0.25, 1e-6);
    }

    #[test]
    fn fit_includes_overshoot_and_control_points() {
        let e = Easing::OutBack;
        let p = CurvePlot::fit(Vec2::ZERO, Vec2::new(100.0, 100.0), &e);
        assert!(p.y_max > 1.08 && p.y_min < 0.0);
        let b = Easing::CubicBezier(CubicBezier::new(0.3, -0.8, 0.7, 1.9));
        let p = CurvePlot::fit(Vec2::ZERO, Vec2::new(100.0, 100.0), &b);
        assert!(p.y_min < -0.8 && p.y_max > 1.9);
        let line = p.polyline(&b, 10);
        assert_eq!(line.len(), 11);
        assert_eq!(line[0], p.to_screen(0.0, 0.0));
    }

    #[test]
    fn hit_test_picks_the_nearest_handle_within_the_radius() {
        let p = plot();
        let b = CubicBezier::new(0.25, 0.1, 0.25, 1.0);
        let [h1, h2] = handle_positions(&p, &b);
        assert_eq!(h1, Vec2::new(150.0, 140.0));
        assert_eq!(h2, Vec2::new(150.0, 50.0));
        assert_eq!(
            hit_handle(&p, &b, h1 + Vec2::new(3.0, 3.0), 8.0),
            Some(Handle::P1)
        );
        assert_eq!(
            hit_handle(&p, &b, h2 + Vec2::new(-7.9, 0.0), 8.0),
            Some(Handle::P2)
        );
        assert_eq!(hit_handle(&p, &b, h1 + Vec2::new(8.1, 0.0), 8.0), None);
        // Overlapping handles: the nearer one wins, exact ties go to the one drawn on top.
        let same = CubicBezier::new(0.5, 0.5, 0.5, 0.52);
        let [a, _] = handle_positions(&p, &same);
        assert_eq!(hit_handle(&p, &same, a, 8.0), Some(Handle::P1));
        let twin = CubicBezier::new(0.5, 0.5, 0.5, 0.5);
        assert_eq!(hit_handle(&p, &twin, a, 8.0), Some(Handle::P2));
    }

    #[test]
    fn dragging_clamps_x_to_the_unit_range_and_y_to_the_plot() {
        let p = CurvePlot::unit(Vec2::new(100.0, 50.0), Vec2::new(200.0, 100.0), 0.5);
        let b = CubicBezier::EASE;
        let moved = drag_handle(&p, &b, Handle::P1, p.to_screen(0.4, 0.0));
        assert_eq!(moved, CubicBezier::new(0.4, 0.0, 0.25, 1.0));
        let moved = drag_handle(&p, &b, Handle::P2, Vec2::new(-500.0, -500.0));
        assert_eq!(moved, CubicBezier::new(0.25, 0.1, 0.0, 1.5));
        let moved = drag_handle(&p, &b, Handle::P2, Vec2::new(900.0, 900.0));
        assert_eq!(moved, CubicBezier::new(0.25, 0.1, 1.0, -0.5));
    }

    #[test]
    fn editor_drags_only_after_grabbing_and_releases_on_button_up() {
        let mut ed = BezierEditor::default();
        let origin = Vec2::new(0.0, 0.0);
        let size = Vec2::new(200.0, 200.0);
        let mut b = CubicBezier::EASE;
        let plot = ed.plot(origin, size, &Easing::CubicBezier(b));
        let [h1, _] = handle_positions(&plot, &b);
        // Pressing away from both handles drags nothing.
        assert!(!ed.update(&plot, &mut b, Vec2::new(190.0, 190.0), true, true));
        assert_eq!(ed.dragging, None);
        assert!(!ed.update(&plot, &mut b, Vec2::new(190.0, 190.0), false, false));
        // Grab P1 and move it.
        assert!(!ed.update(&plot, &mut b, h1, true, true));
        assert_eq!(ed.dragging, Some(Handle::P1));
        let target = plot.to_screen(0.6, 0.2);
        assert!(ed.update(&plot, &mut b, target, false, true));
        assert_approx!(b.x1, 0.6, 1e-3);
        assert_approx!(b.y1, 0.2, 1e-3);
        // The plot stays put while dragging even though the curve changed.
        assert_eq!(ed.plot(origin, size, &Easing::CubicBezier(b)), plot);
        assert!(!ed.update(&plot, &mut b, Vec2::ZERO, false, false));
        assert_eq!(ed.dragging, None);
        // And the result is still a valid, parseable curve.
        let text = Easing::CubicBezier(b).to_string();
        assert_eq!(Easing::parse(&text).unwrap(), Easing::CubicBezier(b));
    }
}

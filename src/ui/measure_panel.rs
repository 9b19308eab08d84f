//! The measurements panel (M): each measurement area's density (classic and Voronoi) and mean
//! speed, each line's flow both ways and per metre, over the meters' sliding window, with a
//! sparkline of the last two minutes; the recording's state and its buttons (everyone, or the
//! people inside one area). The texts are plain functions of the meters, so `--stats-out` and
//! the tests read what was drawn.

use glam::Vec2;
use macroquad::prelude::{draw_line, draw_rectangle, draw_rectangle_lines, measure_text, Color};

use super::layout_log::{self, draw_text};
use super::pointer::{Pointer, Rect};
use super::widgets::PANEL_BG;
use crate::game::measuring::{RecordWho, Recording};
use crate::game::Action;
use crate::level::Level;
use crate::measure::meters::WINDOW_SECONDS;
use crate::measure::Meters;

pub const WIDTH: f32 = 470.0;
const FONT: f32 = 16.0;
const LINE: f32 = 19.0;
const ROW: f32 = 2.0 * LINE + 6.0;
const SPARK_W: f32 = 110.0;
const GOLD: Color = Color::new(1.0, 0.78, 0.0, 1.0);
const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);
const DIM: Color = Color::new(0.75, 0.78, 0.85, 1.0);
const RECORDING: Color = Color::new(1.0, 0.3, 0.25, 1.0);

/// The recording's line: what is being written, or how to start.
pub fn recording_text(recording: Option<&Recording>) -> String {
    match recording {
        None => "O: record everyone · rec: only the people inside that area".to_string(),
        Some(r) => {
            let whom = match &r.who {
                RecordWho::Everyone => "everyone".to_string(),
                RecordWho::InsideArea(name, _) => format!("inside {name}"),
            };
            let name = std::path::Path::new(&r.name)
                .file_name()
                .map_or(r.name.clone(), |n| n.to_string_lossy().to_string());
            let s = r.seconds() as u32;
            format!(
                "REC {name} · {}:{:02} · {whom} ({} now) · O: stop",
                s / 60,
                s % 60,
                r.last_people
            )
        }
    }
}

/// Every line the panel shows (title, then two per area and per line, then the recording).
pub fn panel_lines(level: &Level, meters: &Meters, recording: Option<&Recording>) -> Vec<String> {
    let mut lines = vec![format!("Measurements (M) · last {WINDOW_SECONDS:.0} s")];
    if meters.is_empty() {
        lines.push("no measurement areas or lines in this level:".into());
        lines.push("add them to the level file (docs/LEVELS.md)".into());
    }
    for ((name, r), a) in meters.area_readings().iter().zip(&level.measurement_areas) {
        let size = crate::polygon::polygon_area(&a.polygon);
        lines.push(format!("area {name} · {size:.0} m²"));
        lines.push(r.summary());
    }
    for ((name, r), l) in meters.line_readings().iter().zip(&level.measurement_lines) {
        lines.push(format!("line {name} · {:.1} m", l.length()));
        lines.push(r.summary());
    }
    lines.push(recording_text(recording));
    lines
}

/// What one frame of the panel drew.
pub struct Drawn {
    pub rect: Rect,
    pub action: Option<Action>,
}

/// Draws the panel at the right edge, its bottom at `bottom`.
pub fn draw(
    level: &Level,
    meters: &Meters,
    recording: Option<&Recording>,
    screen: Vec2,
    bottom: f32,
    pointer: &Pointer,
) -> Drawn {
    let lines = panel_lines(level, meters, recording);
    let h = 16.0 + LINE + (lines.len() - 2) as f32 / 2.0 * ROW + LINE + 8.0;
    let rect = Rect {
        x: screen.x - WIDTH - 10.0,
        y: (bottom - h).max(10.0),
        w: WIDTH,
        h,
    };
    draw_rectangle(rect.x, rect.y, rect.w, rect.h, PANEL_BG);
    draw_rectangle_lines(rect.x, rect.y, rect.w, rect.h, 1.5, GOLD);
    let _scope = layout_log::panel("measurements", rect);
    let (x, mut y) = (rect.x + 10.0, rect.y + 6.0 + LINE);
    draw_text(&lines[0], x, y - 4.0, FONT + 1.0, GOLD);
    let mut action = None;
    let button_w = 58.0;
    let everyone = recording.is_some_and(|r| r.who == RecordWho::Everyone);
    let all = Rect {
        x: rect.x + rect.w - 2.0 * button_w - 8.0,
        y: rect.y + 4.0,
        w: 2.0 * button_w,
        h: LINE + 4.0,
    };
    let label = if recording.is_some() {
        "stop (O)"
    } else {
        "rec all (O)"
    };
    if small_button(&all, label, everyone, pointer) {
        action = Some(Action::ToggleRecording(None));
    }
    let mut row = 0;
    for (k, _) in level.measurement_areas.iter().enumerate() {
        let top = y + 4.0;
        draw_text(&lines[1 + 2 * row], x, top + LINE - 4.0, FONT, GOLD);
        draw_text(&lines[2 + 2 * row], x, top + 2.0 * LINE - 4.0, FONT, TEXT);
        let history: Vec<f32> = meters.area_history(k).map(|r| r.classic_density).collect();
        sparkline(&history, spark_rect(&rect, top, button_w));
        let b = Rect {
            x: rect.x + rect.w - button_w - 8.0,
            y: top + 6.0,
            w: button_w,
            h: LINE + 8.0,
        };
        let inside_this = recording
            .is_some_and(|r| matches!(&r.who, RecordWho::InsideArea(n, _) if n == &level.measurement_areas[k].name));
        if small_button(
            &b,
            if inside_this { "stop" } else { "rec" },
            inside_this,
            pointer,
        ) {
            action = Some(Action::ToggleRecording(Some(k)));
        }
        y += ROW;
        row += 1;
    }
    for (k, _) in level.measurement_lines.iter().enumerate() {
        let top = y + 4.0;
        draw_text(&lines[1 + 2 * row], x, top + LINE - 4.0, FONT, GOLD);
        draw_text(&lines[2 + 2 * row], x, top + 2.0 * LINE - 4.0, FONT, TEXT);
        let history: Vec<f32> = meters
            .line_history(k)
            .map(|r| r.forward_flow + r.backward_flow)
            .collect();
        sparkline(&history, spark_rect(&rect, top, button_w));
        y += ROW;
        row += 1;
    }
    if meters.is_empty() {
        draw_text(&lines[1], x, y + LINE, FONT, DIM);
        draw_text(&lines[2], x, y + 2.0 * LINE, FONT, DIM);
        y += ROW;
    }
    let last = lines.last().map_or("", String::as_str);
    let color = if recording.is_some() { RECORDING } else { DIM };
    draw_text(last, x, y + LINE, FONT - 1.0, color);
    Drawn { rect, action }
}

/// Where a row's sparkline goes: left of the row's button, under nothing.
fn spark_rect(panel: &Rect, top: f32, button_w: f32) -> Rect {
    Rect {
        x: panel.x + panel.w - button_w - SPARK_W - 16.0,
        y: top + 4.0,
        w: SPARK_W,
        h: 2.0 * LINE - 6.0,
    }
}

/// The history as a line from its lowest (0 or less) to its highest value; its newest value
/// at the right edge, with the peak written beside it.
fn sparkline(values: &[f32], r: Rect) {
    draw_rectangle(r.x, r.y, r.w, r.h, Color::new(1.0, 1.0, 1.0, 0.06));
    if values.len() < 2 {
        return;
    }
    let top = values.iter().copied().fold(0.0, f32::max).max(1e-3);
    let n = values.len() as f32 - 1.0;
    let point = |k: usize, v: f32| {
        Vec2::new(
            r.x + r.w * k as f32 / n,
            r.y + r.h - r.h * (v / top).clamp(0.0, 1.0),
        )
    };
    for k in 1..values.len() {
        let (a, b) = (point(k - 1, values[k - 1]), point(k, values[k]));
        draw_line(a.x, a.y, b.x, b.y, 1.5, GOLD);
    }
    let peak = format!("{top:.2}");
    let w = measure_text(&peak, None, 12, 1.0).width;
    draw_text(&peak, r.x + r.w - w - 1.0, r.y + 10.0, 12.0, DIM);
}

/// A small labelled button; true when clicked this frame.
fn small_button(r: &Rect, label: &str, active: bool, pointer: &Pointer) -> bool {
    let hovered = r.contains(pointer.pos.x, pointer.pos.y);
    let fill = match (active, hovered) {
        (true, _) => Color::new(0.6, 0.12, 0.1, 0.95),
        (false, true) => Color::new(0.3, 0.32, 0.38, 0.95),
        (false, false) => Color::new(0.18, 0.2, 0.25, 0.95),
    };
    draw_rectangle(r.x, r.y, r.w, r.h, fill);
    draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.0, GOLD);
    let w = measure_text(label, None, FONT as u16, 1.0).width;
    draw_text(
        label,
        r.x + (r.w - w) * 0.5,
        r.y + r.h * 0.5 + 5.0,
        FONT,
        TEXT,
    );
    pointer.left_pressed_in(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::meters::{AreaReading, LineReading};

    #[test]
    fn readings_read_as_numbers_with_their_units() {
        let a = AreaReading {
            count: 3.0,
            classic_density: 0.4219,
            voronoi_density: 0.45,
            mean_speed: 1.2,
        };
        assert_eq!(a.summary(), "0.42/m² (Voronoi 0.45) · 1.20 m/s");
        let l = LineReading {
            forward_flow: 0.62,
            backward_flow: 0.48,
            specific_flow: 0.0786,
            forward_total: 31,
            backward_total: 24,
        };
        assert_eq!(l.summary(), "fwd 0.62/s · back 0.48/s · 0.08/m/s");
        assert!(recording_text(None).starts_with("O: record everyone"));
    }
}

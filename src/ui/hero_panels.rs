//! The hero's Animation (F5) and Expressions (F6) panels, drawn with shapes so screenshots show
//! them. They edit the plain-data `Hero`; the counters come from it and from the renderer.

use super::layout_log::draw_text;
use macroquad::prelude::{draw_rectangle, draw_rectangle_lines, measure_text, Color};

use super::pointer::Pointer;
use super::widgets::{follow_drag, Drag, Rect, PANEL_BG};
use crate::hero::commands::HeroCommand;
use crate::hero::expressions::EMOTIONS;
use crate::hero::{ClipControl, Hero};
use crate::render::hero::{HeroRenderStats, PaletteMode};

const BG: Color = PANEL_BG;
const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);
const DIM: Color = Color::new(0.75, 0.78, 0.82, 1.0);
const TRACK: Color = Color::new(0.35, 0.35, 0.38, 1.0);
const FILL: Color = Color::new(0.3, 0.65, 1.0, 1.0);
const ACTIVE: Color = Color::new(0.22, 0.45, 0.8, 1.0);
const BUTTON: Color = Color::new(0.22, 0.22, 0.26, 1.0);
const FONT: f32 = 17.0;
const ROW: f32 = 18.0;

/// Which slider the mouse is dragging, so a drag that leaves its track keeps working, and this
/// frame's pointer (the panels' share of the mouse, set by `begin`).
#[derive(Debug, Default)]
pub struct HeroPanels {
    dragging: Option<u32>,
    pointer: Pointer,
    /// The first slider row the Expressions panel shows when they do not all fit.
    expressions_scroll: usize,
}

/// Rows one notch of the wheel scrolls.
const WHEEL_ROWS: usize = 3;

/// The first row shown after the wheel turned by `wheel` notches (up is positive: back
/// towards the first row), with `visible` of `rows` rows fitting; never past the last page.
pub fn scroll_rows(first: usize, wheel: f32, rows: usize, visible: usize) -> usize {
    let last = rows.saturating_sub(visible);
    let first = if wheel > 0.0 {
        first.saturating_sub(WHEEL_ROWS)
    } else if wheel < 0.0 {
        first + WHEEL_ROWS
    } else {
        first
    };
    first.min(last)
}

fn button(p: &Pointer, r: Rect, label: &str, active: bool) -> bool {
    draw_rectangle(r.x, r.y, r.w, r.h, if active { ACTIVE } else { BUTTON });
    draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.0, DIM);
    draw_text(label, r.x + 5.0, r.y + r.h - 5.0, FONT, TEXT);
    p.left_pressed_in(&r)
}

/// `label` cut to `width` pixels, ending in "…" when cut (morph names from models run long:
/// "angled_eyebrows", "HideHairBalls").
fn fit_label(label: &str, width: f32) -> String {
    let fits = |s: &str| measure_text(s, None, FONT as u16, 1.0).width <= width;
    if fits(label) {
        return label.to_string();
    }
    let mut cut: String = label.to_string();
    while !cut.is_empty() && !fits(&format!("{cut}…")) {
        cut.pop();
    }
    format!("{cut}…")
}

fn text(s: &str, x: f32, y: f32) {
    draw_text(s, x, y, FONT, TEXT);
}

/// The look-at row: one button per target (L cycles them, Ctrl+click the ground picks a
/// point), and what she looks at now with the gaze and head angles.
fn look_row(p: &Pointer, hero: &Hero, x: f32, y: f32, out: &mut Vec<HeroCommand>) {
    use crate::hero::look_at::{LookSource, LookTarget};
    let look = &hero.look;
    let point = look.last_point.map(LookTarget::ClickedPoint);
    let choices = [
        ("auto", Some(LookTarget::Auto)),
        ("camera", Some(LookTarget::Camera)),
        ("waver", Some(LookTarget::NearestWaver)),
        ("point", point),
        ("off", Some(LookTarget::Off)),
    ];
    text("look", x + 10.0, y + 15.0);
    for (i, (label, target)) in choices.iter().enumerate() {
        let r = Rect {
            x: x + 50.0 + i as f32 * 56.0,
            y,
            w: 52.0,
            h: 20.0,
        };
        let active = std::mem::discriminant(&look.target)
            == std::mem::discriminant(&target.unwrap_or(LookTarget::Off))
            && target.is_some();
        if button(p, r, label, active) {
            if let Some(t) = target {
                out.push(HeroCommand::SetLookTarget(*t));
            }
        }
    }
    let what = match look.source {
        LookSource::None => "nothing",
        LookSource::Camera => "camera",
        LookSource::Point => "point",
        LookSource::Waver => "waver",
        LookSource::Ahead => "ahead",
    };
    text(
        &format!(
            "{what}: gaze {:.0}/{:.0} head {:.0}/{:.0} eyes {:.0}/{:.0}",
            look.gaze.0,
            look.gaze.1,
            look.head_yaw,
            look.head_pitch,
            look.eye_gaze.0,
            look.eye_gaze.1
        ),
        x + 10.0,
        y + 40.0,
    );
}

impl HeroPanels {
    /// The pointer the panels read until the next call.
    pub fn begin(&mut self, pointer: Pointer) {
        self.pointer = pointer;
    }

    /// A one-row slider: label, track, value. Returns the new value while dragged.
    /// `at` is (x, baseline y, width) of the row.
    fn slider(&mut self, id: u32, at: [f32; 3], label: &str, value: f32, max: f32) -> Option<f32> {
        let [x, y, w] = at;
        let label_w = 124.0;
        let track = Rect {
            x: x + label_w,
            y: y - 12.0,
            w: w - label_w - 44.0,
            h: 14.0,
        };
        let out = match follow_drag(&mut self.dragging, id, &track, &self.pointer) {
            Drag::Moving(t) | Drag::Released(t) => Some(t * max),
            Drag::Idle => None,
        };
        let v = out.unwrap_or(value);
        let frac = if max > 0.0 {
            (v / max).clamp(0.0, 1.0)
        } else {
            0.0
        };
        draw_text(fit_label(label, label_w - 6.0).as_str(), x, y, FONT, DIM);
        let mid = track.y + track.h * 0.5;
        draw_rectangle(track.x, mid - 2.0, track.w, 4.0, TRACK);
        draw_rectangle(track.x, mid - 2.0, track.w * frac, 4.0, FILL);
        draw_rectangle(track.x + track.w * frac - 3.0, mid - 6.0, 6.0, 12.0, TEXT);
        draw_text(
            format!("{v:.2}").as_str(),
            track.x + track.w + 6.0,
            y,
            FONT,
            TEXT,
        );
        out
    }

    /// The Animation panel; returns its height.
    pub fn draw_animation(
        &mut self,
        hero: &Hero,
        out: &mut Vec<HeroCommand>,
        gpu: &HeroRenderStats,
        palette_mode: Option<PaletteMode>,
        x: f32,
        y: f32,
    ) -> f32 {
        let w = 340.0;
        let rows = 12.0 + (hero.clips.len() as f32 / 3.0).ceil();
        let h = rows * 24.0 + 18.0;
        draw_rectangle(x, y, w, h, BG);
        let _scope = super::layout_log::panel("hero animation", Rect { x, y, w, h });
        text("Hero animation (F5)", x + 10.0, y + 20.0);
        let current = hero.mixer.clip();
        let p = self.pointer;
        let mut cy = clip_buttons(&p, hero, current, [x, y, y + 30.0], out);
        transport_buttons(&p, hero, x, cy, out);
        cy += 40.0;
        if let Some(v) = self.slider(
            101,
            [x + 10.0, cy, w - 20.0],
            "speed",
            hero.mixer.speed(),
            2.0,
        ) {
            out.push(HeroCommand::SetSpeed(v));
        }
        cy += 24.0;
        let (name, duration, channels) = current
            .and_then(|i| hero.clips.get(i))
            .map_or(("-".to_string(), 0.0, 0), |c| {
                (c.name.clone(), c.duration, c.source_channel_count)
            });
        if let Some(v) = self.slider(
            102,
            [x + 10.0, cy, w - 20.0],
            "time",
            hero.mixer.time(),
            duration,
        ) {
            out.push(HeroCommand::Seek(v));
        }
        cy += 24.0;
        text(
            &format!(
                "{name}: {duration:.2} s, {channels} channels, rate {:.2}",
                hero.mixer.rate()
            ),
            x + 10.0,
            cy,
        );
        cy += 8.0;
        look_row(&p, hero, x, cy, out);
        cy += 66.0;
        animation_counters(hero, gpu, palette_mode, x, cy);
        spring_row(&p, hero, x, cy + 48.0, out);
        h
    }

    /// The Expressions panel (see `expressions_height`), at most `max_h` high: the slider rows
    /// that do not fit scroll with the wheel over the panel. Returns its height.
    pub fn draw_expressions(
        &mut self,
        hero: &Hero,
        out: &mut Vec<HeroCommand>,
        gpu: &HeroRenderStats,
        [x, y, max_h]: [f32; 3],
    ) -> f32 {
        let w = 570.0;
        let col_w = (w - 30.0) * 0.5;
        let rows = expression_rows(hero);
        let h = expressions_height(hero).min(max_h.max(HEADER_H + ROW));
        let visible = (((h - HEADER_H) / ROW).floor() as usize).min(rows);
        let area = Rect { x, y, w, h };
        let wheel = if area.contains(self.pointer.pos.x, self.pointer.pos.y) {
            self.pointer.wheel
        } else {
            0.0
        };
        self.expressions_scroll = scroll_rows(self.expressions_scroll, wheel, rows, visible);
        let first = self.expressions_scroll;
        let shown = first..first + visible;
        draw_rectangle(x, y, w, h, BG);
        let _scope = super::layout_log::panel("hero expressions", area);
        let e = &hero.expressions;
        text("Hero expressions (F6)", x + 10.0, y + 20.0);
        let auto = e.auto_blink;
        let p = self.pointer;
        if button(
            &p,
            Rect {
                x: x + 200.0,
                y: y + 6.0,
                w: 96.0,
                h: 20.0,
            },
            "auto blink",
            auto,
        ) {
            out.push(HeroCommand::SetAutoBlink(!auto));
        }
        text(
            &format!(
                "next in {:.1} s  ({} blinks)",
                e.blinker.next_in(),
                e.blinker.blinks
            ),
            x + 305.0,
            y + 20.0,
        );
        let mut bx = x + 10.0;
        let by = y + 30.0;
        let present: Vec<&str> = ["neutral"]
            .iter()
            .chain(EMOTIONS.iter())
            .copied()
            .filter(|n| e.value(n).is_some())
            .collect();
        for name in present {
            let r = Rect {
                x: bx,
                y: by,
                w: 72.0,
                h: 20.0,
            };
            let on = e.value(name).is_some_and(|v| v > 0.5);
            if button(&p, r, name, on) {
                out.push(HeroCommand::Preset(name.to_string()));
            }
            bx += 76.0;
        }
        if button(
            &p,
            Rect {
                x: bx,
                y: by,
                w: 80.0,
                h: 20.0,
            },
            "reset all",
            false,
        ) {
            out.push(HeroCommand::ResetExpressions);
        }
        text(
            &format!(
                "morph uploads: {} this frame, {} total   rebuilds {} / {}",
                gpu.morph_uploads,
                gpu.morph_uploads_total,
                hero.stats.morph_rebuilds,
                hero.stats.morph_rebuilds_total
            ),
            x + 10.0,
            y + 70.0,
        );
        let top = y + 94.0;
        let heading = if visible < rows {
            format!(
                "expressions (wheel: {}-{} of {rows})",
                first + 1,
                first + visible
            )
        } else {
            "expressions".to_string()
        };
        draw_text(&heading, x + 10.0, top - 2.0, FONT, DIM);
        draw_text("morph targets", x + 20.0 + col_w, top - 2.0, FONT, DIM);
        let row_y = |i: usize| top + ((i - first) as f32 + 1.0) * ROW;
        for (i, s) in e.expressions.iter().enumerate() {
            if !shown.contains(&i) {
                continue;
            }
            let yy = row_y(i);
            if let Some(v) =
                self.slider(200 + i as u32, [x + 10.0, yy, col_w], &s.name, s.value, 1.0)
            {
                out.push(HeroCommand::SetExpression(s.name.clone(), v));
            }
        }
        for (i, g) in e.targets.iter().enumerate() {
            if !shown.contains(&i) {
                continue;
            }
            let yy = row_y(i);
            // How many meshes share the name, when more than one.
            let label = if g.binds.len() > 1 {
                format!("{} x{}", g.slider.name, g.binds.len())
            } else {
                g.slider.name.clone()
            };
            if let Some(v) = self.slider(
                600 + i as u32,
                [x + 20.0 + col_w, yy, col_w],
                &label,
                g.slider.value,
                1.0,
            ) {
                out.push(HeroCommand::SetMorphTarget(i, v));
            }
        }
        h
    }
}

/// The Expressions panel's height above its slider rows.
const HEADER_H: f32 = 100.0;

/// Slider rows of the Expressions panel (expressions and morph targets side by side).
fn expression_rows(hero: &Hero) -> usize {
    hero.expressions
        .expressions
        .len()
        .max(hero.expressions.targets.len())
}

/// Height of the Expressions panel for this hero with every row shown.
pub fn expressions_height(hero: &Hero) -> f32 {
    HEADER_H + expression_rows(hero) as f32 * ROW
}

/// The Animation panel's mode buttons (by speed / manual) and clip list, three per row; returns
/// the y below them.
fn clip_buttons(
    p: &Pointer,
    hero: &Hero,
    current: Option<usize>,
    [x, y, mut cy]: [f32; 3],
    out: &mut Vec<HeroCommand>,
) -> f32 {
    let auto = hero.control == ClipControl::Auto;
    if button(
        p,
        Rect {
            x: x + 180.0,
            y: y + 6.0,
            w: 70.0,
            h: 20.0,
        },
        "by speed",
        auto,
    ) {
        out.push(HeroCommand::ClipsBySpeed);
    }
    if button(
        p,
        Rect {
            x: x + 256.0,
            y: y + 6.0,
            w: 74.0,
            h: 20.0,
        },
        "manual",
        !auto,
    ) {
        out.push(HeroCommand::ManualClips);
    }
    // Clip list, three per row.
    for (i, c) in hero.clips.iter().enumerate() {
        let col = (i % 3) as f32;
        let row = (i / 3) as f32;
        let r = Rect {
            x: x + 10.0 + col * 107.0,
            y: cy + row * 24.0,
            w: 102.0,
            h: 20.0,
        };
        let name: String = c.name.chars().take(12).collect();
        if button(p, r, &name, current == Some(i)) {
            out.push(HeroCommand::PlayClip(i));
        }
    }
    cy += (hero.clips.len() as f32 / 3.0).ceil() * 24.0 + 4.0;
    cy
}

/// Play, pause, stop and loop for the current clip.
fn transport_buttons(p: &Pointer, hero: &Hero, x: f32, cy: f32, out: &mut Vec<HeroCommand>) {
    let bw = 76.0;
    let playing = hero.mixer.is_playing();
    if button(
        p,
        Rect {
            x: x + 10.0,
            y: cy,
            w: bw,
            h: 20.0,
        },
        "play",
        playing,
    ) {
        out.push(HeroCommand::Resume);
    }
    if button(
        p,
        Rect {
            x: x + 10.0 + (bw + 5.0),
            y: cy,
            w: bw,
            h: 20.0,
        },
        "pause",
        !playing,
    ) {
        out.push(HeroCommand::Pause);
    }
    if button(
        p,
        Rect {
            x: x + 10.0 + 2.0 * (bw + 5.0),
            y: cy,
            w: bw,
            h: 20.0,
        },
        "stop",
        false,
    ) {
        out.push(HeroCommand::Stop);
    }
    let looping = hero.mixer.is_looping();
    if button(
        p,
        Rect {
            x: x + 10.0 + 3.0 * (bw + 5.0),
            y: cy,
            w: bw,
            h: 20.0,
        },
        "loop",
        looping,
    ) {
        out.push(HeroCommand::SetLooping(!looping));
    }
}

/// The "spring bones" toggle and its counters (joints, steps this frame, CPU time).
fn spring_row(p: &Pointer, hero: &Hero, x: f32, cy: f32, out: &mut Vec<HeroCommand>) {
    let on = hero.springs.enabled;
    let r = Rect {
        x: x + 10.0,
        y: cy + 6.0,
        w: 110.0,
        h: 20.0,
    };
    if button(p, r, "spring bones", on) {
        out.push(HeroCommand::SetSprings(!on));
    }
    let s = &hero.stats;
    let state = if !on {
        "off".to_string()
    } else if hero.springs.stats.asleep {
        "asleep".to_string()
    } else {
        format!("{} steps", s.spring_steps)
    };
    text(
        &format!("{} joints, {state}, {:.0} us", s.spring_joints, s.spring_us),
        x + 130.0,
        cy + 21.0,
    );
}

/// The pose and palette counters under the Animation panel's sliders.
fn animation_counters(
    hero: &Hero,
    gpu: &HeroRenderStats,
    palette_mode: Option<PaletteMode>,
    x: f32,
    mut cy: f32,
) {
    let s = &hero.stats;
    text(
        &format!(
            "palettes {}  joint matrices {}  ({})",
            s.palettes,
            s.joint_matrices,
            match palette_mode {
                Some(PaletteMode::Uniform { .. }) => "uniforms",
                Some(PaletteMode::Texture) => "texture",
                None => "not drawn",
            }
        ),
        x + 10.0,
        cy,
    );
    cy += 22.0;
    text(
        &format!(
            "palette uploads: {} this frame, {} total",
            gpu.palette_uploads, gpu.palette_uploads_total
        ),
        x + 10.0,
        cy,
    );
    cy += 22.0;
    text(
        &format!(
            "speed {:.2} m/s  pose v{}  anim {:.0} us",
            hero.controller.speed(),
            s.pose_version,
            s.anim_us + s.palette_us
        ),
        x + 10.0,
        cy,
    );
}

#[cfg(test)]
mod tests {
    use super::scroll_rows;

    #[test]
    fn the_wheel_scrolls_by_three_rows_and_stops_at_both_ends() {
        // 17 rows, 13 fit: the first row shown goes from 0 to 4 at most.
        assert_eq!(scroll_rows(0, -1.0, 17, 13), 3);
        assert_eq!(scroll_rows(3, -1.0, 17, 13), 4);
        assert_eq!(scroll_rows(4, -1.0, 17, 13), 4);
        assert_eq!(scroll_rows(4, 1.0, 17, 13), 1);
        assert_eq!(scroll_rows(1, 1.0, 17, 13), 0);
        assert_eq!(scroll_rows(2, 0.0, 17, 13), 2);
        // Everything fits (or the hero changed to one with fewer rows): back to the top.
        assert_eq!(scroll_rows(4, 0.0, 10, 13), 0);
        assert_eq!(scroll_rows(0, -1.0, 10, 13), 0);
    }
}

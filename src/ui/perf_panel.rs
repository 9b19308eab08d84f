//! The performance lab panel (Tab): crowd-size slider, render toggles, stage timings and a
//! frame-time graph with marks where the crowd size changed.

use super::layout_log::draw_text;
use macroquad::prelude::{draw_line, draw_rectangle, Color};

use super::layout_log;
use super::pointer::Pointer;
use super::widgets::{draw_slider, Drag, Rect, WidgetState, PANEL_BG};
use crate::level::LodSettings;
use crate::perf::slider::{crowd_from_slider, slider_from_crowd};
use crate::perf::timings::{FrameHistory, Stage, StageTimings};
use crate::render::gpu_timer::GpuTime;
use crate::render::RenderStats;
use crate::settings::{Intent, Panel, Panels, ViewSettings};
use crate::view::heat_map::HeatView;

const PANEL_W: f32 = 340.0;
const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);
/// Height of the controls above the statistics lines.
const CONTROLS_H: f32 = 340.0;
const STAT_LINE: f32 = 16.0;
const STAT_FONT: f32 = 16.0;
const GRAPH_GAP: f32 = 4.0;
// Low enough that the panel with its most statistics lines still fits a 720-line layout.
const GRAPH_H: f32 = 48.0;

/// The LOD sliders' first track and the step between their rows (two sliders a row).
const LOD_TOP: f32 = 294.0;
const LOD_STEP: f32 = 24.0;
// The last checkbox row (10, 16 high from 78 + 18 per row) ends above the first LOD slider.
const _: () = assert!(78.0 + 10.0 * 18.0 + 16.0 <= LOD_TOP);
// The last LOD slider's track (14 high) ends above the statistics lines.
const _: () = assert!(LOD_TOP + LOD_STEP + 14.0 < CONTROLS_H);

/// The panel's height without the frame graph, for `stat_count` statistics lines.
fn panel_height(stat_count: usize) -> f32 {
    CONTROLS_H + stat_count as f32 * STAT_LINE
}
const CROWD_SLIDER: u32 = 1;
const LOD_SLIDER: u32 = 10;
/// Vertex uniform vectors the cap control steps through (None: the GPU's own limit; 256 is
/// the GL 3.3 minimum, 1024 a typical desktop, 64 a worst case).
const UNIFORM_CAPS: [Option<u32>; 5] = [None, Some(4096), Some(1024), Some(256), Some(64)];

/// The cap control's options: the fixed steps, plus a command-line value not among them.
fn cap_options(current: Option<u32>) -> Vec<Option<u32>> {
    let mut caps = UNIFORM_CAPS.to_vec();
    if !caps.contains(&current) {
        caps.insert(1, current);
    }
    caps
}

fn cap_label(cap: Option<u32>) -> String {
    cap.map_or_else(|| "GPU limit".to_string(), |n| format!("{n} vectors"))
}

/// A checkbox row: its row, label, current value and the intent a click asks for.
type Toggle<'a> = (Rect, &'a str, bool, fn(bool) -> Intent);

/// What the panel shows this frame.
pub struct PanelFrame<'a> {
    /// People asked for (the slider's value).
    pub crowd: usize,
    /// People shown now (not those still waiting to pop in); differs from `crowd` while the
    /// crowd grows or shrinks towards it.
    pub shown: usize,
    pub view: &'a ViewSettings,
    /// Shadows in force (the panel's choice, else the level's).
    pub shadows: bool,
    /// LOD distances in force (the level's or the sliders').
    pub lod: LodSettings,
    /// The distances drawn with: those, shortened by adaptive quality's rung.
    pub drawn_lod: LodSettings,
    pub timings: &'a StageTimings,
    pub stats: &'a RenderStats,
    pub gpu: GpuTime,
    pub history: &'a FrameHistory,
    /// The part of the mouse the panels got this frame.
    pub pointer: Pointer,
    /// The level overlay and heat map switches.
    pub panels: Panels,
}

#[derive(Default)]
pub struct PerfPanel {
    widgets: WidgetState,
}

/// "1 person", "2,000 people".
pub fn people_label(n: u32) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if n == 1 {
        "1 person".to_string()
    } else {
        format!("{grouped} people")
    }
}

/// "2,000" (digits grouped by thousands).
fn grouped(n: u32) -> String {
    let label = people_label(n);
    label.split(' ').next().map(str::to_string).unwrap_or(label)
}

/// The crowd slider's label: while dragging the size a release asks for; from the release
/// until that many people are shown, the size asked for and how many are shown so far (the
/// old size is never shown as if the change were undone); then the size.
pub fn crowd_label(crowd: u32, shown: u32, drag: Drag) -> String {
    let target = match drag {
        Drag::Moving(v) => {
            return format!(
                "crowd: {} (release to apply)",
                people_label(crowd_from_slider(v))
            )
        }
        // The release frame: the new size is applied at the end of this frame.
        Drag::Released(v) => crowd_from_slider(v),
        Drag::Idle => crowd,
    };
    if target == shown {
        format!("crowd: {} (log scale)", people_label(target))
    } else {
        format!("crowd: to {} ({} shown)", grouped(target), grouped(shown))
    }
}

impl PerfPanel {
    /// Draws the panel at (x, y); what the user changed is pushed to `intents`, the rectangle
    /// it covers (frame graph included) to `covered`. Returns true when the crowd size changed
    /// this frame.
    pub fn draw(
        &mut self,
        f: &PanelFrame,
        x: f32,
        y: f32,
        intents: &mut Vec<Intent>,
        covered: &mut Vec<Rect>,
    ) -> bool {
        self.widgets.begin(f.pointer);
        let lines = stat_lines(f.timings, f.stats, f.gpu);
        let height = panel_height(lines.len());
        draw_rectangle(x, y, PANEL_W, height, PANEL_BG);
        let _scope = layout_log::panel(
            "performance lab",
            Rect {
                x,
                y,
                w: PANEL_W,
                h: height,
            },
        );
        draw_text("Performance lab (Tab)", x + 10.0, y + 22.0, 22.0, TEXT);
        let changed = self.draw_controls(f, x, y, intents);
        for (i, l) in lines.iter().enumerate() {
            draw_text(
                l,
                x + 12.0,
                y + CONTROLS_H + 8.0 + i as f32 * STAT_LINE,
                STAT_FONT,
                TEXT,
            );
        }
        let graph_y = y + height + GRAPH_GAP;
        draw_frame_graph(f.history, x, graph_y, PANEL_W, GRAPH_H);
        covered.push(Rect {
            x,
            y,
            w: PANEL_W,
            h: height + GRAPH_GAP + GRAPH_H,
        });
        changed
    }

    /// The slider, toggles and LOD distances; what the user changed becomes intents. Returns
    /// true when the crowd size changed.
    fn draw_controls(&mut self, f: &PanelFrame, x: f32, y: f32, intents: &mut Vec<Intent>) -> bool {
        let crowd = f.crowd;
        let track = Rect {
            x: x + 12.0,
            y: y + 52.0,
            w: PANEL_W - 24.0,
            h: 16.0,
        };
        // The crowd changes once, when the drag ends: every size passed on the way would
        // otherwise be spawned or removed in turn.
        let mut changed = false;
        let drag = self.widgets.drag(CROWD_SLIDER, track);
        let knob = match drag {
            Drag::Moving(v) => v,
            _ => slider_from_crowd(crowd as u32),
        };
        let label = crowd_label(crowd as u32, f.shown as u32, drag);
        draw_slider(track, &label, knob);
        if let Drag::Released(v) = drag {
            let count = crowd_from_slider(v);
            changed = count as usize != crowd;
            if changed {
                intents.push(Intent::SetCrowd(count));
            }
        }
        let check = |row: f32| Rect {
            x: x + 12.0,
            y: y + 78.0 + row * 18.0,
            w: PANEL_W - 24.0,
            h: 16.0,
        };
        // Two short toggles share a row.
        let half = |row: f32, right: bool| Rect {
            x: x + 12.0 + if right { 170.0 } else { 0.0 },
            w: 150.0,
            ..check(row)
        };
        let v = f.view;
        let toggles: [Toggle; 11] = [
            (
                check(0.0),
                "frustum culling",
                v.frustum_culling,
                Intent::SetFrustumCulling,
            ),
            (
                half(1.0, false),
                "sun shadows",
                f.shadows,
                Intent::SetShadows,
            ),
            (
                check(2.0),
                "LOD (near/mid/far meshes)",
                v.lod,
                Intent::SetLod,
            ),
            (
                check(3.0),
                "LOD colours (r/g/b, impostor yellow)",
                v.lod_colors,
                Intent::SetLodColors,
            ),
            (
                check(4.0),
                "one draw per person (naive)",
                v.per_agent_draws,
                Intent::SetPerAgentDraws,
            ),
            (
                check(5.0),
                "mid/far from VAT (vertex anim.)",
                v.vat,
                Intent::SetVat,
            ),
            (
                check(7.0),
                "culling view from a 2nd camera (F7)",
                v.cull_view,
                Intent::SetCullView,
            ),
            (
                check(8.0),
                "sim LOD (unseen: every 4th step)",
                v.sim_lod,
                Intent::SetSimLod,
            ),
            (
                half(9.0, false),
                "antialiasing",
                v.antialias,
                Intent::SetAntialias,
            ),
            (
                half(9.0, true),
                "LOD cross-fade",
                v.lod_fade,
                Intent::SetLodFade,
            ),
            (
                half(1.0, true),
                "impostors",
                v.impostors,
                Intent::SetImpostors,
            ),
        ];
        for (area, label, mut on, intent) in toggles {
            if self.widgets.checkbox(area, label, &mut on) {
                intents.push(intent(on));
            }
        }
        let caps = cap_options(v.uniform_cap);
        let labels: Vec<String> = caps.iter().map(|&c| cap_label(c)).collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let mut index = caps.iter().position(|&c| c == v.uniform_cap).unwrap_or(0);
        if self
            .widgets
            .choice(check(6.0), "uniform cap", &labels, &mut index)
        {
            intents.push(Intent::SetUniformCap(caps.get(index).copied().flatten()));
        }
        self.level_rows(f.panels, check(10.0), intents);
        if let Some(d) = self.lod_sliders(f.lod, f.drawn_lod, x, y) {
            intents.push(Intent::SetLodDistances(d));
        }
        changed
    }

    /// The level overlay's checkbox and the heat map's choice, side by side in `row`.
    fn level_rows(&mut self, panels: Panels, row: Rect, intents: &mut Vec<Intent>) {
        let half = Rect {
            w: row.w * 0.5 - 4.0,
            ..row
        };
        let mut on = panels.level_overlay;
        if self.widgets.checkbox(half, "overlay (F8)", &mut on) {
            intents.push(Intent::TogglePanel(Panel::LevelOverlay));
        }
        const VIEWS: [HeatView; 4] = [
            HeatView::Off,
            HeatView::Density,
            HeatView::Speed,
            HeatView::Pressure,
        ];
        let mut index = VIEWS
            .iter()
            .position(|&v| v == panels.heat_map)
            .unwrap_or(0);
        let right = Rect {
            x: row.x + row.w * 0.5 + 4.0,
            ..half
        };
        if self.widgets.choice(
            right,
            "heat (F2)",
            &["off", "density", "speed", "pressure"],
            &mut index,
        ) {
            intents.push(Intent::SetHeatMap(VIEWS[index]));
        }
    }

    /// The LOD distance sliders (near, mid, far, impostors from), showing the distances drawn
    /// with (`drawn`: adaptive quality may shorten those in force, `d`); the new distances in
    /// force when one moved (what was dragged to, over the rung's shortening).
    fn lod_sliders(
        &mut self,
        mut d: LodSettings,
        drawn: LodSettings,
        x: f32,
        y: f32,
    ) -> Option<LodSettings> {
        let mut changed_lod = false;
        for (k, (name, value, shown, max)) in [
            ("near", &mut d.near, drawn.near, 80.0f32),
            ("mid", &mut d.mid, drawn.mid, 200.0),
            ("far", &mut d.far, drawn.far, 600.0),
            ("impostors from", &mut d.impostor, drawn.impostor, 300.0),
        ]
        .into_iter()
        .enumerate()
        {
            let half = (PANEL_W - 36.0) * 0.5;
            let track = Rect {
                x: x + 12.0 + (k % 2) as f32 * (half + 12.0),
                y: y + LOD_TOP + (k / 2) as f32 * LOD_STEP,
                w: half,
                h: 14.0,
            };
            let mut t = (shown / max).clamp(0.0, 1.0);
            let label = lod_slider_label(k, name, *value, shown);
            if self
                .widgets
                .slider(LOD_SLIDER + k as u32, track, &label, &mut t)
            {
                // How much the rung shortens this distance (1 when it does not, or when the
                // distance is infinite).
                let scale = if value.is_finite() && shown.is_finite() && *value > 0.0 {
                    (shown / *value).max(0.01)
                } else {
                    1.0
                };
                *value = (t * max / scale).max(1.0);
                changed_lod = true;
            }
        }
        // Keep the bands in order: near < mid < far.
        d.mid = d.mid.max(d.near + 1.0);
        d.far = d.far.max(d.mid + 1.0);
        d.impostor = d.impostor.max(d.near);
        changed_lod.then_some(d)
    }
}

/// A LOD slider's label: the distance drawn with, and the one in force when adaptive quality
/// shortens it ("LOD near: 8/25 m"; short enough for half the panel's width).
fn lod_slider_label(k: usize, name: &str, set: f32, shown: f32) -> String {
    if !shown.is_finite() {
        return format!("{name}: none");
    }
    let shortened = (shown - set).abs() >= 0.5;
    match (k, shortened) {
        (3, true) => format!("impostors {shown:.0}/{set:.0} m"),
        (3, false) => format!("{name} {shown:.0} m"),
        (_, true) => format!("LOD {name}: {shown:.0}/{set:.0} m"),
        (_, false) => format!("LOD {name}: {shown:.0} m"),
    }
}

/// The panel's statistics lines: counters of the renderer's last frame, then smoothed stage
/// timings (what `--stats-out` reports as shown).
pub fn stat_lines(timings: &StageTimings, stats: &RenderStats, gpu: GpuTime) -> Vec<String> {
    // Two lines: at 128,260 people and millions of triangles one would run past the panel.
    let mut lines = vec![
        format!("draws {}  tris {}", stats.draw_calls, stats.triangles),
        format!(
            "people {} by LOD {}",
            stats.instances_per_lod.iter().sum::<u32>(),
            stats
                .instances_per_lod
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("/")
        ),
    ];
    lines.push(format!(
        "batches {}  uniforms {:.1} KB  textures {:.1} MB",
        stats.batches,
        stats.uniform_bytes as f64 / 1024.0,
        stats.texture_bytes as f64 / 1e6
    ));
    lines.push(format!(
        "uploads: palettes {}  morphs {}  textures {}",
        stats.palette_uploads, stats.morph_uploads, stats.texture_uploads
    ));
    if let Some(i) = stats.impostors {
        lines.push(format!(
            "impostor atlas {:.1} MB, {} in {:.0} ms",
            i.atlas_bytes as f64 / 1e6,
            if i.from_cache { "loaded" } else { "baked" },
            i.bake_ms
        ));
    }
    lines.push(match gpu {
        GpuTime::Millis(ms) => format!("{:<16} {:>7.2} ms", "GPU world passes", ms),
        GpuTime::Pending => "GPU world passes   pending".to_string(),
        GpuTime::Unsupported => "GPU timer queries: not supported".to_string(),
    });
    for stage in Stage::ALL {
        // A stage that has not run yet shows as absent, never as a misleading 0.
        if let Some(ms) = timings.smoothed_ms(stage) {
            lines.push(format!("{:<16} {:>7.2} ms", stage.label(), ms));
        }
    }
    lines
}

/// Frame times as bars, newest on the right; red marks where the crowd size changed.
fn draw_frame_graph(history: &FrameHistory, x: f32, y: f32, w: f32, h: f32) {
    draw_rectangle(x, y, w, h, PANEL_BG);
    layout_log::panel_part(Rect { x, y, w, h });
    // Scale to the worst frame but never below 33 ms, so a smooth run looks flat.
    let scale_ms = history.max_ms().max(33.4);
    let n = history.len().max(1) as f32;
    let bar_w = w / n;
    let plot_h = h - 16.0;
    for (i, (ms, mark)) in history.iter().enumerate() {
        let bx = x + i as f32 * bar_w;
        let bh = (ms / scale_ms).min(1.0) * plot_h;
        let color = if ms > 33.4 {
            Color::new(1.0, 0.45, 0.2, 0.9)
        } else {
            Color::new(0.3, 0.9, 0.4, 0.9)
        };
        draw_line(bx, y + h, bx, y + h - bh, bar_w.max(1.0), color);
        if mark {
            draw_line(bx, y + 16.0, bx, y + h, 2.0, Color::new(1.0, 0.1, 0.1, 1.0));
        }
    }
    for target in [16.7f32, 33.3] {
        let ty = y + h - target / scale_ms * plot_h;
        draw_line(x, ty, x + w, ty, 1.0, Color::new(1.0, 1.0, 1.0, 0.35));
    }
    draw_text(
        format!(
            "frame ms, last {}: max {:.1} (lines 17/33)",
            history.len(),
            history.max_ms()
        ),
        x + 6.0,
        y + 13.0,
        15.0,
        TEXT,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panel_and_its_frame_graph_fit_a_720_line_layout() {
        // Six counter lines (the impostor atlas's among them) and a line per stage: the most
        // the panel ever shows.
        let lines = 6 + Stage::ALL.len();
        let bottom = 112.0 + panel_height(lines) + GRAPH_GAP + GRAPH_H;
        assert!(bottom <= 720.0 - 8.0, "bottom at {bottom}");
    }

    #[test]
    fn lod_sliders_show_the_distances_drawn_with() {
        assert_eq!(lod_slider_label(0, "near", 25.0, 25.0), "LOD near: 25 m");
        assert_eq!(lod_slider_label(0, "near", 25.0, 7.5), "LOD near: 8/25 m");
        assert_eq!(
            lod_slider_label(2, "far", 220.0, 143.0),
            "LOD far: 143/220 m"
        );
        assert_eq!(
            lod_slider_label(3, "impostors from", 60.0, 60.0),
            "impostors from 60 m"
        );
        assert_eq!(
            lod_slider_label(3, "impostors from", 60.0, 25.0),
            "impostors 25/60 m"
        );
        assert_eq!(
            lod_slider_label(3, "impostors from", 60.0, f32::INFINITY),
            "impostors from: none"
        );
    }

    #[test]
    fn the_crowd_label_previews_the_size_while_dragging_and_counts_people_properly() {
        assert_eq!(people_label(1), "1 person");
        assert_eq!(people_label(0), "0 people");
        assert_eq!(people_label(100_000), "100,000 people");
        assert_eq!(people_label(2500), "2,500 people");
        assert_eq!(
            crowd_label(2000, 2000, Drag::Idle),
            "crowd: 2,000 people (log scale)"
        );
        assert_eq!(
            crowd_label(2000, 2000, Drag::Moving(0.8)),
            "crowd: 10,000 people (release to apply)"
        );
        // From the release until everyone is there: the size asked for, never the old one.
        assert_eq!(
            crowd_label(2000, 2000, Drag::Released(0.8)),
            "crowd: to 10,000 (2,000 shown)"
        );
        assert_eq!(
            crowd_label(10_000, 2040, Drag::Idle),
            "crowd: to 10,000 (2,040 shown)"
        );
        assert_eq!(
            crowd_label(10_000, 10_000, Drag::Idle),
            "crowd: 10,000 people (log scale)"
        );
        // Shrinking: the leaving people are shown until they have faded out.
        assert_eq!(
            crowd_label(500, 2000, Drag::Idle),
            "crowd: to 500 (2,000 shown)"
        );
    }

    #[test]
    fn the_cap_control_offers_the_steps_and_keeps_a_command_line_value() {
        assert_eq!(cap_options(None), UNIFORM_CAPS.to_vec());
        assert_eq!(cap_options(Some(256)), UNIFORM_CAPS.to_vec());
        let custom = cap_options(Some(500));
        assert_eq!(custom.len(), UNIFORM_CAPS.len() + 1);
        assert_eq!(custom[1], Some(500));
        assert_eq!(cap_label(None), "GPU limit");
        assert_eq!(cap_label(Some(64)), "64 vectors");
    }
}

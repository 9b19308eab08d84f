//! The performance lab panel (Tab): crowd-size slider, render toggles, stage timings and a
//! frame-time graph with marks where the crowd size changed.

use macroquad::prelude::{draw_line, draw_rectangle, draw_text, Color};

use super::widgets::{Rect, WidgetState};
use crate::game::Game;
use crate::perf::slider::{crowd_from_slider, slider_from_crowd};
use crate::perf::timings::{FrameHistory, Stage, StageTimings};
use crate::render::gpu_timer::GpuTime;
use crate::render::RenderStats;

const PANEL_W: f32 = 340.0;
const PANEL_BG: Color = Color::new(0.0, 0.0, 0.0, 0.6);
const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);
const LINE: f32 = 20.0;
const CROWD_SLIDER: u32 = 1;
const LOD_SLIDER: u32 = 10;

pub struct PerfPanel {
    slider: f32,
    widgets: WidgetState,
}

impl PerfPanel {
    pub fn new(game: &Game) -> Self {
        PerfPanel {
            slider: slider_from_crowd(game.crowd_count() as u32),
            widgets: WidgetState::default(),
        }
    }

    /// Draws the panel at (x, y) and applies what the user changed. Returns true when the crowd
    /// size changed this frame.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        game: &mut Game,
        timings: &StageTimings,
        stats: &RenderStats,
        gpu: GpuTime,
        history: &FrameHistory,
        x: f32,
        y: f32,
    ) -> bool {
        let mut lines = vec![format!(
            "draws {}  tris {}  instances {} ({}/{}/{})",
            stats.draw_calls,
            stats.triangles,
            stats.marker_instances,
            stats.instances_per_lod[0],
            stats.instances_per_lod[1],
            stats.instances_per_lod[2]
        )];
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
        // Controls take 292 px above the statistics lines.
        let controls = 292.0;
        let height = controls + lines.len() as f32 * LINE;
        draw_rectangle(x, y, PANEL_W, height, PANEL_BG);
        draw_text("Performance lab (Tab)", x + 10.0, y + 22.0, 22.0, TEXT);

        let crowd = game.crowd_count();
        let track = Rect {
            x: x + 12.0,
            y: y + 52.0,
            w: PANEL_W - 24.0,
            h: 16.0,
        };
        let mut changed = false;
        let label = format!("crowd: {crowd} people (log scale)");
        if self
            .widgets
            .slider(CROWD_SLIDER, track, &label, &mut self.slider)
        {
            let count = crowd_from_slider(self.slider);
            changed = count as usize != crowd;
            game.set_crowd_count(count);
        }
        let mut culling = game.toggles.frustum_culling;
        let check = |row: f32| Rect {
            x: x + 12.0,
            y: y + 78.0 + row * 22.0,
            w: PANEL_W - 24.0,
            h: 16.0,
        };
        if self
            .widgets
            .checkbox(check(0.0), "frustum culling", &mut culling)
        {
            game.toggles.frustum_culling = culling;
        }
        let mut shadows = game.shadows_enabled();
        if self
            .widgets
            .checkbox(check(1.0), "sun shadows", &mut shadows)
        {
            game.toggles.shadows = Some(shadows);
        }
        let mut lod = game.toggles.lod;
        if self
            .widgets
            .checkbox(check(2.0), "LOD (near/mid/far meshes)", &mut lod)
        {
            game.toggles.lod = lod;
        }
        let mut lod_colors = game.toggles.lod_colors;
        if self
            .widgets
            .checkbox(check(3.0), "LOD colours (red/green/blue)", &mut lod_colors)
        {
            game.toggles.lod_colors = lod_colors;
        }
        let mut naive = game.toggles.per_agent_draws;
        if self
            .widgets
            .checkbox(check(4.0), "one draw per person (naive)", &mut naive)
        {
            game.toggles.per_agent_draws = naive;
        }
        let mut d = game.lod_settings();
        let mut changed_lod = false;
        for (k, (name, value, max)) in [
            ("near", &mut d.near, 80.0f32),
            ("mid", &mut d.mid, 200.0),
            ("far", &mut d.far, 600.0),
        ]
        .into_iter()
        .enumerate()
        {
            let track = Rect {
                x: x + 12.0,
                y: y + 212.0 + k as f32 * 26.0,
                w: PANEL_W - 24.0,
                h: 14.0,
            };
            let mut t = (*value / max).clamp(0.0, 1.0);
            let label = format!("LOD {name}: {:.0} m", *value);
            if self
                .widgets
                .slider(LOD_SLIDER + k as u32, track, &label, &mut t)
            {
                *value = (t * max).max(1.0);
                changed_lod = true;
            }
        }
        if changed_lod {
            // Keep the bands in order: near < mid < far.
            d.mid = d.mid.max(d.near + 1.0);
            d.far = d.far.max(d.mid + 1.0);
            game.toggles.lod_distances = Some(d);
        }
        for (i, l) in lines.iter().enumerate() {
            draw_text(
                l,
                x + 12.0,
                y + controls + 10.0 + i as f32 * LINE,
                18.0,
                TEXT,
            );
        }
        draw_frame_graph(history, x, y + height + 8.0, PANEL_W, 90.0);
        changed
    }
}

/// Frame times as bars, newest on the right; red marks where the crowd size changed.
fn draw_frame_graph(history: &FrameHistory, x: f32, y: f32, w: f32, h: f32) {
    draw_rectangle(x, y, w, h, PANEL_BG);
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
            "frame time (last {} frames), max {:.1} ms; lines 16.7 / 33.3 ms",
            history.len(),
            history.max_ms()
        ),
        x + 6.0,
        y + 13.0,
        15.0,
        TEXT,
    );
}

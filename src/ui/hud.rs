//! The on-screen text: the status box, and over everything the key help and the error and
//! warning boxes.

use super::layout_log::draw_text;
use macroquad::prelude::{draw_rectangle, draw_rectangle_lines, measure_text, Color};

use super::layout_log;
use super::pointer::Rect;
use super::scale::logical_size;
use super::widgets::PANEL_BG;

use crate::game::Game;
use crate::level::CameraMode;
use crate::render::RenderStats;
use crate::view::render_world::PeopleCounts;

const TEXT: Color = Color::new(1.0, 1.0, 1.0, 1.0);
const PANEL: Color = PANEL_BG;
/// Background and frame of the error and warning boxes.
const ERROR_PANEL: (Color, Color) = (
    Color::new(0.45, 0.02, 0.02, 0.88),
    Color::new(1.0, 0.4, 0.4, 1.0),
);
const WARNING_PANEL: (Color, Color) = (
    Color::new(0.42, 0.28, 0.02, 0.88),
    Color::new(1.0, 0.75, 0.3, 1.0),
);
/// The help card: more opaque than the panels, as it is read over them.
const HELP_PANEL: Color = Color::new(0.05, 0.06, 0.1, 0.94);
const FONT: f32 = 20.0;
/// Hero warnings listed in the box; the rest are counted (each is also on stderr).
const MAX_HERO_WARNINGS: usize = 6;
const LINE: f32 = 22.0;

pub const HELP: &[&str] = &[
    "Orbit camera: left-drag orbit, right-drag pan, wheel zoom, WASD/arrows move, Q/E down/up",
    "Fly camera: hold a mouse button to look, WASD move, Q/E down/up, wheel speed, Shift faster",
    "C switch orbit/fly   Home reset camera   Space/P pause   N single step (paused)",
    "[ slower   ] faster   Backspace normal speed   X startle people at the camera's focus",
    "K raise the alarm at the camera's focus (people flee to the exits; K again: all clear)",
    "G glide to the next point of interest   double-click the ground to glide there",
    "Tab performance lab   F3 behaviour labels   F4 glide easing editor   F7 culling view   F1/H help   Esc quit",
    "F follow the hero (WASD walk, Shift run, drag orbit, wheel zoom)   V wave   F5 animation   F6 expressions",
    "L the hero's look target: auto, camera, waving person, clicked point, off   Ctrl+click the ground: she looks there",
    "F8 level overlay (hover: name, kind, file:line:col)   F2 heat map: density, speed, pressure, off",
    "M measurements: areas' density and speed, lines' flow, live   O record trajectories (JuPedSim SQLite in recordings/; O again: stop)",
    "F9 edit mode: drag handles, R turn a box, Ctrl+Z/Ctrl+Y undo/redo, Ctrl+S save into the file",
    "B build: 1-8 pick a thing, click the ground to place, R/wheel turn, click a placed thing to move it, right-click/Del remove, Alarm: click where it sounds",
    "Click a person: their story card   F follow them   T take control (WASD, Shift run; T again lets go)",
    "Edit the level file while playing: changes apply within a second.",
];

pub struct HudInfo<'a> {
    /// Smoothed frame time; None until one was measured (never a made-up number).
    pub frame_ms: Option<f32>,
    pub quality: &'a crate::perf::adaptive::AdaptiveQuality,
    pub stats: &'a RenderStats,
    /// This frame's people: drawn, culled, beyond the far distance, spawning.
    pub people: PeopleCounts,
    pub reload_notice: Option<&'a str>,
    /// Why a model the level names is not drawn (crowd or hero), e.g. after a reload.
    pub model_errors: Vec<String>,
    /// What is wrong with the hero's model data although she plays (shown for a while).
    pub hero_warnings: Vec<String>,
    /// The key help is open (F1).
    pub help: bool,
    /// Edit mode's keys and whether edits are unsaved (F9).
    pub edit_line: Option<String>,
    /// The build toolbar is open (B): the notice and the boxes stack up from above it.
    pub build_open: bool,
}

/// Draws lines of text on a box sized to them (named `name` in the layout record); returns
/// the box's width and height.
fn panel(name: &str, lines: &[String], x: f32, y: f32, bg: Color) -> (f32, f32) {
    let (w, h) = panel_box(name, lines, x, y, bg);
    LAST_BOXES.with(|b| {
        b.borrow_mut().push(Rect { x, y, w, h });
    });
    (w, h)
}

thread_local! {
    /// The boxes drawn by the current `draw` call.
    static LAST_BOXES: std::cell::RefCell<Vec<Rect>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn panel_box(name: &str, lines: &[String], x: f32, y: f32, bg: Color) -> (f32, f32) {
    let width = lines
        .iter()
        .map(|l| measure_text(l, None, FONT as u16, 1.0).width)
        .fold(0.0, f32::max);
    let size = (width + 16.0, lines.len() as f32 * LINE + 10.0);
    draw_rectangle(x, y, size.0, size.1, bg);
    let _scope = layout_log::panel(
        name,
        Rect {
            x,
            y,
            w: size.0,
            h: size.1,
        },
    );
    for (i, l) in lines.iter().enumerate() {
        draw_text(l, x + 8.0, y + 20.0 + i as f32 * LINE, FONT, TEXT);
    }
    size
}

/// A framed box of lines whose bottom edge is at `bottom`; returns where the next box above it
/// ends. The frame is the fill's own size, so nothing drawn earlier shows between them.
fn message_box(name: &str, lines: &[String], bottom: f32, (bg, edge): (Color, Color)) -> f32 {
    let h = lines.len() as f32 * LINE + 10.0;
    let y = bottom - h;
    let (w, h) = panel(name, lines, 20.0, y, bg);
    draw_rectangle_lines(20.0, y, w, h, 2.0, edge);
    y - 8.0
}

/// The lines, each wider than `max_width` split at spaces (the others kept as they are).
fn wrap_long(lines: &[String], max_width: f32) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| {
            if measure_text(l, None, FONT as u16, 1.0).width > max_width {
                wrap(l, max_width)
            } else {
                vec![l.clone()]
            }
        })
        .collect()
}

/// Splits a long message into lines that fit `max_width` pixels.
fn wrap(text: &str, max_width: f32) -> Vec<String> {
    super::widgets::wrap_text(text, FONT, max_width)
}

/// The people line: the four counts that make up the crowd (they always add up to its size),
/// and the size it is growing or shrinking to while that differs.
pub fn people_line(p: &PeopleCounts, target: usize, stats: &RenderStats) -> String {
    let total = p.total();
    let towards = if target != total {
        format!(" (to {target})")
    } else {
        String::new()
    };
    let spawning = if p.spawning > 0 {
        format!("  spawning {}", p.spawning)
    } else {
        String::new()
    };
    format!(
        "people {total}{towards} = drawn {} (near/mid/far/imp {}/{}/{}/{})  culled {}  beyond {}{spawning}  draws {}  tris {}",
        p.drawn,
        stats.instances_per_lod[0],
        stats.instances_per_lod[1],
        stats.instances_per_lod[2],
        stats.instances_per_lod[3],
        p.culled,
        p.beyond,
        stats.draw_calls,
        stats.triangles
    )
}

/// Width left to the status box: the right-hand column (the hero's panels) stays clear.
const RIGHT_COLUMN: f32 = 360.0;

/// Draws the HUD's status box; returns its status lines (before any is wrapped to fit) and the
/// box, which panels below it and labels over the world keep clear of.
pub fn draw(game: &Game, info: &HudInfo) -> (Vec<String>, Vec<Rect>) {
    LAST_BOXES.with(|b| b.borrow_mut().clear());
    let clock = &game.clock;
    let followed = game
        .followed_person()
        .map(|i| crate::crowd::story::person_name(game.agents_seed(), i));
    let mode = match (game.camera.mode, &followed) {
        (CameraMode::Fly, _) => "fly".to_string(),
        (CameraMode::Follow, Some(name)) => format!("follow {name}"),
        (CameraMode::Follow, None) => "follow hero".to_string(),
        _ => "orbit".to_string(),
    };
    let timing = match info.frame_ms {
        Some(ms) if ms > 0.0 => format!("{:.0} fps  {ms:.1} ms", 1000.0 / ms),
        _ => "- fps  - ms".to_string(),
    };
    let mut quality = info.quality.label();
    if info.quality.exhausted() {
        quality.push_str(", cannot hold it");
    }
    let behind = game
        .clock
        .speed
        .behind()
        .filter(|_| !clock.paused())
        .map(|r| format!("   {}", crate::game::speed::behind_note(r)))
        .unwrap_or_default();
    // Only a crowd that steps slower than the world says so.
    let crowd_rate = match game.crowd_tick_hz() {
        60 => String::new(),
        hz => format!("   crowd {hz} Hz"),
    };
    let mut status = vec![
        format!("{}   {timing}   {quality}", game.level().name),
        people_line(&info.people, game.crowd_count(), info.stats),
        format!(
            "camera {mode}   sim {:.1} s  x{}{}{crowd_rate}{behind}",
            game.sim_time(),
            clock.time_scale(),
            if clock.paused() { "   PAUSED" } else { "" }
        ),
    ];
    status.extend(info.edit_line.clone());
    if let Some(r) = game.recording() {
        status.push(super::measure_panel::recording_text(Some(r)));
    }
    status.push(
        if info.help {
            "F1 close help"
        } else {
            "F1 help"
        }
        .to_string(),
    );
    let screen = logical_size();
    let fit = (screen.x - RIGHT_COLUMN - 36.0).max(200.0);
    let (_, h) = panel("hud", &wrap_long(&status, fit), 10.0, 10.0, PANEL);
    alarm_box(game, 10.0 + h + 6.0, fit);

    (status, LAST_BOXES.with(|b| b.take()))
}

/// The alarm's box under the status box while an alarm sounds (framed red) or its result is
/// fresh (framed green), `ui::evacuation`'s lines.
fn alarm_box(game: &Game, y: f32, fit: f32) {
    let lines = super::evacuation::hud_lines(game.agents.evacuation(), game.agents.len());
    if lines.is_empty() {
        return;
    }
    let sounding = game.agents.evacuation().sounding();
    let (bg, edge) = if sounding {
        ERROR_PANEL
    } else {
        (PANEL, Color::new(0.35, 1.0, 0.5, 1.0))
    };
    let (w, h) = panel("evacuation", &wrap_long(&lines, fit), 10.0, y, bg);
    draw_rectangle_lines(10.0, y, w, h, 2.0, edge);
}

/// Draws what must be read over everything else, after every panel: the key help (F1) as a
/// card in the middle, then the notice, the level and model errors and the slowness warning
/// stacked up from the bottom. Returns their boxes.
pub fn draw_alerts(game: &Game, info: &HudInfo) -> Vec<Rect> {
    LAST_BOXES.with(|b| b.borrow_mut().clear());
    let screen = logical_size();
    if info.help {
        help_card(screen);
    }
    // Above the build toolbar when it is open: its buttons stay in sight.
    let floor = if info.build_open {
        super::build_bar::bar_rect(screen).y - 6.0
    } else {
        screen.y - 12.0
    };
    let max_w = (screen.x - 60.0).max(200.0);
    let mut bottom = floor - 48.0;
    if let Some(notice) = info.reload_notice {
        // A long note (a recording's path) wraps instead of running off the screen.
        let lines = wrap_long(&[notice.to_string()], max_w);
        let top = floor - lines.len() as f32 * LINE - 10.0;
        let _ = panel("notice", &lines, 10.0, top, PANEL);
        bottom = bottom.min(top - 8.0);
    }
    if let Some(err) = game.reload_error() {
        let mut lines = vec!["Level not applied - the last good level keeps running:".to_string()];
        lines.extend(wrap(&err.to_string(), max_w));
        lines.push("Fix the file and save: it reloads by itself.".to_string());
        bottom = message_box("level error", &lines, bottom, ERROR_PANEL);
    }
    if !info.model_errors.is_empty() {
        let mut lines = vec!["A model of the level did not load:".to_string()];
        for e in &info.model_errors {
            lines.extend(wrap(e, max_w));
        }
        bottom = message_box("model error", &lines, bottom, ERROR_PANEL);
    }
    if !info.hero_warnings.is_empty() {
        let mut lines = vec!["Hero warnings (the hero still plays):".to_string()];
        for w in info.hero_warnings.iter().take(MAX_HERO_WARNINGS) {
            lines.extend(wrap(w, max_w));
        }
        if info.hero_warnings.len() > MAX_HERO_WARNINGS {
            lines.push(format!(
                "and {} more (the log has them all)",
                info.hero_warnings.len() - MAX_HERO_WARNINGS
            ));
        }
        bottom = message_box("hero warnings", &lines, bottom, WARNING_PANEL);
    }
    if !game.slow_settings().is_empty() {
        let mut lines =
            vec!["The level runs, but it will be slow (throng check says the same):".to_string()];
        for w in game.slow_settings() {
            lines.extend(wrap(&w.to_string(), max_w));
        }
        message_box("slow warning", &lines, bottom, WARNING_PANEL);
    }
    LAST_BOXES.with(|b| b.take())
}

/// The key help as a framed card centred on the screen, over a dimmed picture.
fn help_card(screen: glam::Vec2) {
    let max_w = (screen.x - 80.0).max(200.0);
    let lines = wrap_long(
        &std::iter::once("Keys (F1 or H closes this)")
            .chain(HELP.iter().copied())
            .map(str::to_string)
            .collect::<Vec<_>>(),
        max_w,
    );
    let w = lines
        .iter()
        .map(|l| measure_text(l, None, FONT as u16, 1.0).width)
        .fold(0.0, f32::max)
        + 16.0;
    let h = lines.len() as f32 * LINE + 10.0;
    let (x, y) = (
        ((screen.x - w) * 0.5).max(0.0),
        ((screen.y - h) * 0.45).max(0.0),
    );
    draw_rectangle(
        0.0,
        0.0,
        screen.x,
        screen.y,
        Color::new(0.0, 0.0, 0.0, 0.35),
    );
    let (w, h) = panel("help", &lines, x, y, HELP_PANEL);
    draw_rectangle_lines(x, y, w, h, 2.0, Color::new(0.8, 0.85, 1.0, 1.0));
}

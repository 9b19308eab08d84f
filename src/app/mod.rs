//! The window shell: runs the game in a macroquad window, feeding it input and drawing it.

pub mod bench;
pub mod crowd_gfx;
mod hero;
mod input;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use macroquad::miniquad::TextureId;
use macroquad::prelude::{
    clear_background, get_frame_time, get_internal_gl, get_screen_data, is_key_pressed, next_frame,
    screen_height, screen_width, set_default_camera, Color, KeyCode,
};

use crate::game::{Action, Game, GameOptions};
use crate::level::{Level, LevelWatcher};
use crate::perf::timings::{FrameHistory, Stage, StageTimings};
use crate::render::gpu_timer::GpuTimer;
use crate::render::{display_color, FrameParams, MarkerPath, RenderStats, Renderer, WorldLayer};
use crate::scenery::furniture::build_static_mesh;
use crate::tween::Easing;
use crate::ui::agent_overlay;
use crate::ui::cull_view_overlay::draw_cull_view_overlay;
use crate::ui::curve_preview::BezierEditor;
use crate::ui::glide_editor;
use crate::ui::hud::{self, HudInfo};
use crate::ui::perf_panel::PerfPanel;
use crate::view::camera::ground_point;
use crate::view::camera::CameraRig;
use crate::view::crowd_pack::CrowdPackOptions;
use crate::view::cull_view::overview_camera;
use crate::view::frustum::Frustum;
use crate::view::light::sun_view_projection;
use crate::view::markers::{pack_markers, PackOptions, MARKER_FLOATS};
use crowd_gfx::CrowdGfx;
use input::InputReader;

/// How often the level file's modification time is checked.
const RELOAD_POLL: Duration = Duration::from_millis(250);

pub struct PlaySetup {
    pub level: Level,
    pub watcher: LevelWatcher,
    pub options: GameOptions,
    pub frames: Option<u64>,
    pub seconds: Option<f64>,
    pub screenshot: Option<PathBuf>,
    pub stats_out: Option<PathBuf>,
    pub perf_panel: bool,
    pub agent_overlay: bool,
    pub curve_editor: bool,
    pub lod_colors: bool,
    pub naive: bool,
    /// Start with mid/far figures drawn from the vertex animation texture.
    pub vat: bool,
    /// Start in the culling debug view.
    pub cull_view: bool,
    /// Steer everyone every step (no simulation LOD).
    pub no_sim_lod: bool,
    pub paused: bool,
    pub max_uniform_vectors: Option<u32>,
    /// Start with the hero's follow camera.
    pub follow: bool,
    /// Open the hero's Animation (F5) and Expressions (F6) panels at start.
    pub hero_panels: bool,
    /// "walk" / "run": the hero goes round a circle by itself; "wave": it keeps waving.
    pub hero_autopilot: Option<String>,
}

/// Filled in by the window loop; read by `main` after the window closes.
#[derive(Debug, Default)]
pub struct PlayOutcome {
    pub error: Option<String>,
    pub frames: u64,
    pub screenshot_saved: bool,
}

/// Draws the level's ground, scenery and the packed markers as seen by `camera`,
/// with the sun's shadow map centred where the camera looks. Shared by play and bench.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_world(
    renderer: &mut Renderer,
    level: &Level,
    scenery_version: u64,
    camera: &CameraRig,
    aspect: f32,
    shadows: bool,
    marker_path: MarkerPath,
    instances: &[Vec<f32>; 3],
    shadow_casters: &[crate::asset::Aabb],
    layers: &mut [&mut dyn WorldLayer],
) -> RenderStats {
    let mut gl = unsafe { get_internal_gl() };
    gl.flush();
    renderer.sync_scenery(gl.quad_context, scenery_version, &level.bounds, || {
        build_static_mesh(level)
    });
    let (focus, reach) = camera.shadow_focus();
    // Dynamic casters (the hero) near the view widen the sun's map so their shadows fit.
    let (focus, reach) = crate::hero::bounds::fit_shadow_focus(focus, reach, shadow_casters);
    let params = FrameParams {
        view_proj: camera.view_projection(aspect),
        eye: camera.eye(),
        lighting: &level.lighting,
        ground: &level.ground,
        bounds: &level.bounds,
        fog_distance: (level.bounds.size().length() * 1.5).max(150.0),
        light_view_proj: sun_view_projection(level.lighting.sun_direction, focus, reach, 2048),
        shadows,
        marker_path,
        screen_size: (screen_width(), screen_height()),
    };
    renderer.draw(gl.quad_context, &params, instances, layers)
}

pub async fn run(setup: PlaySetup, outcome: Arc<Mutex<PlayOutcome>>) {
    let result = play(setup).await;
    if let Ok(mut o) = outcome.lock() {
        match result {
            Ok(done) => *o = done,
            Err(e) => o.error = Some(e),
        }
    }
}

async fn play(setup: PlaySetup) -> Result<PlayOutcome, String> {
    let mut watcher = setup.watcher;
    let asset_root = crate::cli::find_asset_root(watcher.path());
    let mut game = Game::new(setup.level, setup.options);
    game.show_agent_overlay = setup.agent_overlay;
    game.show_curve_editor = setup.curve_editor;
    game.toggles.lod_colors = setup.lod_colors;
    game.toggles.per_agent_draws = setup.naive;
    game.toggles.vat = setup.vat;
    game.toggles.cull_view = setup.cull_view;
    game.sim_lod = !setup.no_sim_lod;
    game.toggles.uniform_cap = setup.max_uniform_vectors;
    apply_start_actions(&mut game, setup.paused, setup.perf_panel);
    let mut renderer = {
        let gl = unsafe { get_internal_gl() };
        Renderer::new(gl.quad_context)?
    };
    let mut hero_view = hero::HeroView::load(&mut game, &asset_root);
    let mut crowd_gfx = CrowdGfx::new(asset_root.clone(), watcher.path().display().to_string());
    let keep_waving = start_hero(
        &mut game,
        setup.follow,
        setup.hero_autopilot.as_deref(),
        setup.hero_panels,
    );
    let mut reader = InputReader::default();
    let mut last_poll = Instant::now();
    let mut notice: Option<(String, Instant)> = None;
    let mut packed = crate::bench::PackedCrowd::default();
    let mut frame_ms_avg = 0.0f32;
    let mut outcome = PlayOutcome::default();
    let started = Instant::now();
    println!(
        "throng: playing {} ({})",
        watcher.path().display(),
        game.level().name
    );
    let mut timings = StageTimings::default();
    // About five seconds at 60 fps.
    let mut history = FrameHistory::new(300);
    let mut perf_panel = PerfPanel::new(&game);
    let mut gpu_timer = GpuTimer::for_current_context();
    let pop_in = Easing::parse("easeOutBack").unwrap_or(Easing::Linear);
    let mut curve_editor = BezierEditor::default();

    loop {
        let frame_seconds = get_frame_time();
        frame_ms_avg = if outcome.frames == 0 {
            frame_seconds * 1000.0
        } else {
            frame_ms_avg * 0.9 + frame_seconds * 100.0
        };
        if is_key_pressed(KeyCode::Escape) {
            break;
        }
        let input = read_input(&mut reader, &mut game, keep_waving);
        simulate(&mut game, frame_seconds, &input, &mut timings);

        if last_poll.elapsed() >= RELOAD_POLL {
            last_poll = Instant::now();
            poll_reload(&mut watcher, &mut game, &mut hero_view, &mut notice);
        }

        prepare_frame(&mut game, &mut hero_view);
        let aspect = screen_width() / screen_height().max(1.0);
        let view_proj = game.camera.view_projection(aspect);
        let frustum = Frustum::from_view_projection(&view_proj);
        let lod = game.lod_settings();
        let counts = pack_people(
            &game,
            &mut crowd_gfx,
            renderer.shadow_map(),
            &mut packed,
            &frustum,
            &lod,
            &pop_in,
            &mut timings,
        );
        let submit_start = Instant::now();
        let timing = gpu_timer.begin();
        // The culling debug view draws from a second camera; culling and LOD above stayed the
        // player's.
        let overview = game
            .toggles
            .cull_view
            .then(|| overview_camera(&game.camera));
        let stats = draw_play_world(
            &mut renderer,
            &game,
            &mut crowd_gfx,
            &mut hero_view,
            overview.as_ref(),
            aspect,
            &packed,
        );
        if timing {
            gpu_timer.end();
        }
        let gpu_time = gpu_timer.poll();
        timings.add(Stage::Submission, submit_start.elapsed());
        let ui_start = Instant::now();

        set_default_camera();
        let overlay = OverlayFrame {
            overview: overview.as_ref(),
            aspect,
            far: lod.far,
            view_proj: &view_proj,
            frame_ms_avg,
            stats: &stats,
            counts: &counts,
            gpu_time,
        };
        let (hud_lines, crowd_changed) = draw_overlays(
            &mut game,
            &overlay,
            &mut notice,
            &mut curve_editor,
            &mut perf_panel,
            &timings,
            &history,
        );
        hero_view.draw_ui(&mut game);
        timings.add(Stage::Ui, ui_start.elapsed());
        timings.end_frame();
        history.push(frame_seconds * 1000.0, crowd_changed);

        outcome.frames += 1;
        let out_of_frames = setup.frames.is_some_and(|n| outcome.frames >= n);
        let out_of_time = setup
            .seconds
            .is_some_and(|s| started.elapsed().as_secs_f64() >= s);
        if out_of_frames || out_of_time {
            if let Some(path) = &setup.stats_out {
                let panel = crate::ui::perf_panel::stat_lines(&timings, &stats, gpu_time);
                FrameReport::new(&game, &crowd_gfx, hud_lines, panel, stats, &counts)
                    .write(path)?;
            }
            if let Some(path) = &setup.screenshot {
                save_screenshot(path)?;
                outcome.screenshot_saved = true;
            }
            break;
        }
        next_frame().await;
    }
    Ok(outcome)
}

/// What the command line asks to start with (paused, the performance panel open), applied as
/// the keys would do it, in one frame of no time.
fn apply_start_actions(game: &mut Game, paused: bool, show_perf_panel: bool) {
    let start_actions: Vec<Action> = [
        (paused, Action::TogglePause),
        (show_perf_panel, Action::TogglePerfPanel),
    ]
    .into_iter()
    .filter_map(|(on, action)| on.then_some(action))
    .collect();
    if !start_actions.is_empty() {
        game.frame(
            0.0,
            &crate::game::FrameInput {
                actions: start_actions,
                ..Default::default()
            },
        );
    }
    if show_perf_panel {
        // Start fully open: a screenshot of frame 1 should show the panel.
        let _ = game.motion.finish(&crate::game::Motion::PerfPanel);
    }
}

/// The hero's start-up options: the follow camera, the autopilot (a circle walked or run, or
/// waving), its panels. Returns whether the hero keeps waving.
fn start_hero(
    game: &mut Game,
    follow: bool,
    hero_autopilot: Option<&str>,
    hero_panels: bool,
) -> bool {
    if follow {
        if let Some(h) = &game.hero {
            if game.camera.mode != crate::level::CameraMode::Follow {
                game.camera.toggle_follow(h.focus_point());
                game.camera.follow.target = h.focus_point();
            }
        }
    }
    let keep_waving = hero_autopilot == Some("wave");
    if let (Some(mode), Some(h)) = (hero_autopilot, &game.hero) {
        let p = h.position();
        if mode != "wave" {
            // The circle starts where the hero stands and bends to its left.
            game.hero_autopilot = Some((p + glam::Vec2::new(-4.0, 0.0), 4.0, mode == "run"));
        }
    }
    game.show_hero_animation_panel |= hero_panels;
    game.show_hero_expression_panel |= hero_panels;
    keep_waving
}

/// Before drawing: the hero's palettes and morphs uploaded for this view, the sky cleared.
fn prepare_frame(game: &mut Game, hero_view: &mut hero::HeroView) {
    {
        let aspect = screen_width() / screen_height().max(1.0);
        let view_proj = game.camera.view_projection(aspect);
        hero_view.prepare(game, &view_proj);
    }
    let level = game.level();
    let sky = display_color(level.lighting.sky_color);
    clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
}

/// Advances the game by one frame and charges the time to the stages.
fn simulate(
    game: &mut Game,
    frame_seconds: f32,
    input: &crate::game::FrameInput,
    timings: &mut StageTimings,
) {
    let sim_start = Instant::now();
    // The simulation LOD tests people against the view the player really has.
    game.view_aspect = screen_width() / screen_height().max(1.0);
    game.frame(frame_seconds as f64, input);
    let sim_time = sim_start.elapsed();
    // The hero's animation, palettes and morph rebuilds run inside `Game::frame`: charge
    // them to their own stages and the rest to the simulation.
    let hero_stages = game.hero.as_ref().map_or([0.0; 3], |h| {
        [h.stats.anim_us, h.stats.palette_us, h.stats.morph_us]
    });
    let mut hero_total = Duration::ZERO;
    for (stage, us) in [Stage::Animation, Stage::Palettes, Stage::Morphs]
        .into_iter()
        .zip(hero_stages)
    {
        if game.hero.is_some() {
            let d = Duration::from_secs_f64(f64::from(us.max(0.0)) * 1e-6);
            timings.add(stage, d);
            hero_total += d;
        }
    }
    timings.add(Stage::Simulation, sim_time.saturating_sub(hero_total));
}

/// Applies a changed level file (or keeps the last good level and shows the error).
fn poll_reload(
    watcher: &mut LevelWatcher,
    game: &mut Game,
    hero_view: &mut hero::HeroView,
    notice: &mut Option<(String, Instant)>,
) {
    if let Some(result) = watcher.poll() {
        let ok = result.is_ok();
        match &result {
            Ok(_) => println!("throng: reloaded {}", watcher.path().display()),
            Err(e) => eprintln!("throng: {e} (the last good level keeps running)"),
        }
        game.apply_reload(result);
        hero_view.sync(game);
        if ok {
            *notice = Some((
                format!("Reloaded {}", watcher.path().display()),
                Instant::now(),
            ));
        }
    }
}

/// How many people this frame shows, leaves out by culling, and leaves out beyond the far
/// distance.
struct PeopleCounts {
    drawn: usize,
    culled: usize,
    beyond: usize,
}

/// Culls, sorts by level of detail and packs the people: as skinned figures when the crowd
/// assets loaded (loaded or rebuilt first when the level or a toggle changed them), else as
/// stand-in markers.
#[allow(clippy::too_many_arguments)]
fn pack_people(
    game: &Game,
    crowd_gfx: &mut CrowdGfx,
    shadow_map: TextureId,
    packed: &mut crate::bench::PackedCrowd,
    frustum: &Frustum,
    lod: &crate::level::LodSettings,
    pop_in: &Easing,
    timings: &mut StageTimings,
) -> PeopleCounts {
    {
        let gl = unsafe { get_internal_gl() };
        crowd_gfx.sync(
            gl.quad_context,
            game.level(),
            game.toggles.uniform_cap,
            game.toggles.vat,
            shadow_map,
        );
    }
    let naive = game.toggles.per_agent_draws;
    let (culled, beyond, drawn) = if crowd_gfx.active() {
        let opts = CrowdPackOptions {
            frustum: game.toggles.frustum_culling.then_some(frustum),
            eye: game.camera.eye(),
            lod: game.toggles.lod.then_some(lod),
            lod_colors: game.toggles.lod_colors,
            show_culled: game.toggles.cull_view,
        };
        // The naive path's cost is sampling a palette per person: that is animation work.
        let stage = if naive {
            Stage::Animation
        } else {
            Stage::CullLodPack
        };
        let counts = timings.measure(stage, || {
            crowd_gfx.pack(&game.agents, &opts, naive, |i| game.appear_scale(i, pop_in))
        });
        for list in &mut packed.instances {
            list.clear();
        }
        (
            counts.culled as usize,
            counts.beyond as usize,
            counts.visible as usize,
        )
    } else {
        let opts = PackOptions {
            frustum: game.toggles.frustum_culling.then_some(frustum),
            eye: game.camera.eye(),
            lod: game.toggles.lod.then_some(lod),
            lod_colors: game.toggles.lod_colors,
        };
        let counts = timings.measure(Stage::CullLodPack, || {
            pack_markers(
                &opts,
                &game.agents.pos,
                &game.agents.heading,
                &game.agents.color,
                |i| game.appear_scale(i, pop_in),
                &mut packed.lod_state,
                &mut packed.instances,
            )
        });
        let drawn = packed.instances.iter().map(Vec::len).sum::<usize>() / MARKER_FLOATS;
        (counts.culled, counts.beyond, drawn)
    };
    PeopleCounts {
        drawn,
        culled,
        beyond,
    }
}

/// Draws the world (scenery, markers, the crowd and hero layers) from the player's camera or,
/// in the culling debug view, from `overview`.
fn draw_play_world(
    renderer: &mut Renderer,
    game: &Game,
    crowd_gfx: &mut CrowdGfx,
    hero_view: &mut hero::HeroView,
    overview: Option<&CameraRig>,
    aspect: f32,
    packed: &crate::bench::PackedCrowd,
) -> RenderStats {
    let marker_path = if game.toggles.per_agent_draws {
        MarkerPath::PerAgent
    } else {
        MarkerPath::Instanced
    };
    let shadow_casters = hero_view.shadow_casters(game);
    let mut crowd_layer = crowd_gfx.layer();
    let mut layers: Vec<&mut dyn WorldLayer> = Vec::new();
    if let Some(l) = crowd_layer.as_mut() {
        layers.push(l);
    }
    layers.extend(hero_view.layers());
    draw_world(
        renderer,
        game.level(),
        game.scenery_version(),
        overview.unwrap_or(&game.camera),
        aspect,
        game.shadows_enabled(),
        marker_path,
        &packed.instances,
        &shadow_casters,
        &mut layers,
    )
}

/// What the overlays of one frame show, from the frame drawn under them.
struct OverlayFrame<'a> {
    overview: Option<&'a CameraRig>,
    aspect: f32,
    far: f32,
    view_proj: &'a glam::Mat4,
    frame_ms_avg: f32,
    stats: &'a RenderStats,
    counts: &'a PeopleCounts,
    gpu_time: crate::render::gpu_timer::GpuTime,
}

/// The 2D layer over the world: the culling view's outline, behaviour labels, the HUD, the
/// glide editor and the performance panel. Returns the HUD's lines and whether the panel
/// changed the crowd size.
fn draw_overlays(
    game: &mut Game,
    f: &OverlayFrame,
    notice: &mut Option<(String, Instant)>,
    curve_editor: &mut BezierEditor,
    perf_panel: &mut PerfPanel,
    timings: &StageTimings,
    history: &FrameHistory,
) -> (Vec<String>, bool) {
    if let Some(over) = f.overview {
        draw_cull_view_overlay(&game.camera, over, f.aspect, f.far);
    }
    if game.show_agent_overlay {
        agent_overlay::draw(
            &game.agents,
            f.view_proj,
            game.camera.eye(),
            screen_width(),
            screen_height(),
        );
    }
    if notice
        .as_ref()
        .is_some_and(|(_, at)| at.elapsed() > Duration::from_secs(3))
    {
        *notice = None;
    }
    let hud_lines = hud::draw(
        game,
        &HudInfo {
            fps: if f.frame_ms_avg > 0.0 {
                1000.0 / f.frame_ms_avg
            } else {
                0.0
            },
            frame_ms: f.frame_ms_avg,
            stats: f.stats,
            drawn: f.counts.drawn,
            culled: f.counts.culled,
            beyond: f.counts.beyond,
            reload_notice: notice.as_ref().map(|(s, _)| s.as_str()),
        },
    );
    if game.show_curve_editor {
        glide_editor::draw(game, curve_editor);
    }
    let mut crowd_changed = false;
    let shown = game.perf_panel_shown();
    if shown > 0.001 {
        // Slides in from the left edge as the scheduler eases it open.
        let x = 10.0 - (1.0 - shown) * 370.0;
        crowd_changed = perf_panel.draw(game, timings, f.stats, f.gpu_time, history, x, 112.0);
    }
    (hud_lines, crowd_changed)
}

/// Reads this frame's keys and mouse: a double click glides the camera to that ground point.
/// The waving autopilot starts the wave again whenever it ends.
fn read_input(
    reader: &mut InputReader,
    game: &mut Game,
    keep_waving: bool,
) -> crate::game::FrameInput {
    let mut input = reader.read(game.camera.mode);
    if let Some(ndc) = input.double_click.take() {
        let aspect = screen_width() / screen_height().max(1.0);
        if let Some(p) = ground_point(&game.camera.view_projection(aspect), ndc) {
            input.actions.push(Action::GlideTo(p));
        }
    }
    if keep_waving {
        if let Some(h) = game.hero.as_mut().filter(|h| !h.is_waving()) {
            h.wave();
        }
    }
    input
}

/// Saves the frame as drawn so far (`--screenshot`, and the bench's last frame of each run) as
/// PNG or JPEG by the file's extension. Any failure (a folder that refuses files, a folder with
/// that name, a full disk) is an error line, and leaves no partial file.
pub(crate) fn save_screenshot(path: &std::path::Path) -> Result<(), String> {
    use crate::files::{encode_screen_image, write_atomic_with, ScreenImageFormat};
    let format = ScreenImageFormat::from_path(path).ok_or_else(|| {
        format!(
            "--screenshot {}: the file name must end in {}",
            path.display(),
            ScreenImageFormat::ALLOWED
        )
    })?;
    // GL's rows, bottom row first; the encoder turns them the right way up.
    let frame = get_screen_data();
    write_atomic_with(path, |out| {
        encode_screen_image(
            format,
            u32::from(frame.width),
            u32::from(frame.height),
            &frame.bytes,
            out,
        )
    })
    .map_err(|e| format!("screenshot: {e}"))
}

/// The last frame's statistics (`--stats-out`): the overlay's text as drawn and the counters
/// it was made from.
#[derive(serde::Serialize)]
struct FrameReport {
    hud: Vec<String>,
    panel: Vec<String>,
    render: RenderStats,
    people: usize,
    drawn: usize,
    culled: usize,
    beyond: usize,
    crowd: Option<crate::render::crowd::CrowdGpuInfo>,
    vat_active: bool,
    window: (f32, f32),
}

impl FrameReport {
    fn new(
        game: &Game,
        crowd_gfx: &CrowdGfx,
        hud: Vec<String>,
        panel: Vec<String>,
        render: RenderStats,
        counts: &PeopleCounts,
    ) -> FrameReport {
        FrameReport {
            hud,
            panel,
            render,
            people: game.agents.len(),
            drawn: counts.drawn,
            culled: counts.culled,
            beyond: counts.beyond,
            crowd: crowd_gfx.info(),
            vat_active: crowd_gfx.vat_active(),
            window: (screen_width(), screen_height()),
        }
    }

    fn write(&self, path: &std::path::Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| format!("--stats-out {}: {e}", path.display()))?;
        crate::files::write_atomic(path, text.as_bytes()).map_err(|e| format!("--stats-out: {e}"))
    }
}

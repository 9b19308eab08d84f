//! The window shell: runs the game in a macroquad window. Each frame: input becomes intents and
//! game commands, the game steps, `extract` turns it into a render world, `render` draws that,
//! and the panels drawn over it answer with intents applied in one place (`settings::apply`).

pub mod bench;
mod build_tool;
mod evac_notes;
mod evac_report;
mod hero;
mod input;
mod input_events;
mod input_script;
mod level_tools;
#[cfg(not(target_arch = "wasm32"))]
mod stdin_quit;
#[cfg(target_arch = "wasm32")]
pub mod web;

use crate::clock::Instant;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use macroquad::prelude::{
    clear_background, get_frame_time, get_internal_gl, get_screen_data, is_key_pressed, next_frame,
    screen_height, screen_width, set_default_camera, Color, KeyCode,
};

use crate::cli::PlayArgs;
use crate::crowd_assets::loader::CrowdAssetLoader;
use crate::extract::{crowd_source, Extractor, Screen};
use crate::game::{Action, FrameInput, Game, GameOptions};
use crate::level::{Level, LevelWatcher};
use crate::perf::adaptive::{AdaptiveQuality, FrameLoad};
use crate::perf::timings::{FrameHistory, Stage, StageTimings};
use crate::render::crowd_pass::CrowdPass;
use crate::render::frame::{draw_frame, FrameLayers};
use crate::render::gpu_timer::GpuTimer;
use crate::render::{display_color, RenderStats, Renderer};
use crate::settings::{self, Intent, Settings};
use crate::tools::output::print_line;
use crate::ui::agent_overlay;
use crate::ui::cull_view_overlay::{draw_cull_view_legend, draw_cull_view_overlay};
use crate::ui::curve_preview::BezierEditor;
use crate::ui::glide_editor;
use crate::ui::hud::{self, HudInfo};
use crate::ui::perf_panel::{PanelFrame, PerfPanel};
use crate::ui::pointer::{Pointer, PointerRouter, Rect};
use crate::ui::scale::{set_ui_camera, UiScale};
use crate::view::camera::ground_point;
use crate::view::cull_view::overview_camera;
use crate::view::render_world::PeopleCounts;
use input::InputReader;

/// How long the answer to a key with no other visible effect shows (a glide's target, a
/// scatter, the hero's look target).
const FEEDBACK_NOTE: Duration = Duration::from_secs(4);
/// How often the level file is checked for edits.
const RELOAD_POLL: Duration = Duration::from_millis(250);
/// How long "Reloaded" shows, and an edit mode note (a save, a refusal) that needs reading.
const RELOAD_NOTE: Duration = Duration::from_secs(3);
const EDIT_NOTE: Duration = Duration::from_secs(8);

pub struct PlaySetup {
    pub level: Level,
    pub watcher: LevelWatcher,
    /// The command line as parsed: its settings are the start values.
    pub args: PlayArgs,
}

/// Filled in by the window loop; read by `main` after the window closes.
#[derive(Debug, Default)]
pub struct PlayOutcome {
    pub error: Option<String>,
    pub frames: u64,
    pub screenshot_saved: bool,
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

/// Everything one play session holds on the window side.
struct Session {
    game: Game,
    /// The build toolbar's held thing and the click that selects a person.
    build: build_tool::BuildTool,
    settings: Settings,
    watcher: LevelWatcher,
    renderer: Renderer,
    crowd_assets: CrowdAssetLoader,
    crowd_pass: CrowdPass,
    extractor: Extractor,
    hero_view: hero::HeroView,
    reader: InputReader,
    /// Splits the mouse between the panels and the camera.
    router: PointerRouter,
    /// The panels' share of this frame's mouse, in pixels.
    panel_pointer: Pointer,
    /// What the panels covered when last drawn, in the overlays' logical units.
    panel_rects: Vec<Rect>,
    /// The evacuation's moments told as notes.
    evac_notes: evac_notes::EvacNotes,
    /// The window in the overlays' logical units at the last frame (for the layout report).
    ui_size: glam::Vec2,
    /// Frames read so far (the input script counts from 1).
    frame_number: u64,
    /// Commands a panel asked for, run by the next frame's game step.
    pending_actions: Vec<Action>,
    /// The hero keeps waving (`--hero-autopilot wave`).
    keep_waving: bool,
    /// A note at the bottom of the screen, since when and for how long.
    notice: Option<(String, Instant, Duration)>,
    /// The heat map, the level overlay and edit mode.
    tools: level_tools::LevelTools,
    perf_panel: PerfPanel,
    curve_editor: BezierEditor,
    timings: StageTimings,
    history: FrameHistory,
    gpu_timer: GpuTimer,
    /// Picks the quality rung that holds the frame budget (`--frame-budget`).
    quality: AdaptiveQuality,
    /// What the last frame drew, and the milliseconds it spent loading (models, the crowd's
    /// GPU side, the impostor atlas), for adaptive quality's judgement of it.
    last_load: FrameLoad,
    last_load_ms: f32,
}

/// What one drawn frame measured, for the overlays and `--stats-out`.
struct FrameResult {
    stats: RenderStats,
    people: PeopleCounts,
    gpu_time: crate::render::gpu_timer::GpuTime,
}

impl Session {
    fn start(setup: PlaySetup) -> Result<Session, String> {
        let args = setup.args;
        let watcher = setup.watcher;
        let asset_root = crate::cli::find_asset_root(watcher.path());
        let options = GameOptions {
            crowd: args.crowd,
            seed: args.seed,
        };
        let mut game = Game::new(setup.level, options);
        game.set_crowd_tick_hz(args.crowd_hz);
        set_recording_target(&mut game, &args.record_dir, watcher.path());
        let settings = args.settings.from_flags();
        let renderer = {
            let gl = unsafe { get_internal_gl() };
            Renderer::new(gl.quad_context)?
        };
        let hero_view = hero::HeroView::load(&mut game, &asset_root);
        let keep_waving = start_hero(&mut game, args.follow, args.hero_autopilot.as_deref());
        if let Some(h) = game.hero.as_mut() {
            h.springs.enabled = args.spring_bones;
        }
        if settings.panels.perf {
            // Start fully open: a screenshot of frame 1 should show the panel.
            game.slide_perf_panel(true);
            let _ = game.motion.finish(&crate::game::Motion::PerfPanel);
        }
        if let Some(seconds) = args.sim_ahead {
            // Whole world steps, the camera left where the level starts it.
            let step = 1.0 / crate::game::SIM_RATE;
            for _ in 0..(seconds / step).round() as u64 {
                game.frame(step, &FrameInput::default());
            }
        }
        if args.paused {
            game.frame(
                0.0,
                &FrameInput {
                    actions: vec![Action::TogglePause],
                    ..Default::default()
                },
            );
        }
        // The log is for a reader who may have gone (`throng | head`): never a reason to stop.
        let _ = print_line(&format!(
            "throng: playing {} ({})",
            watcher.path().display(),
            game.level().name
        ));
        let label = watcher.path().display().to_string();
        let tools = level_tools::LevelTools::new(&watcher, game.level(), &asset_root);
        let mut reader = InputReader::for_window();
        if let Some(text) = &args.input_script {
            reader.script = Some(input_script::InputScript::parse(text)?);
        }
        let quality = AdaptiveQuality::new(
            settings.view.frame_budget_ms,
            settings.view.adaptive_quality,
        );
        Ok(Session {
            build: build_tool::BuildTool::default(),
            tools,
            quality,
            perf_panel: PerfPanel::default(),
            crowd_assets: CrowdAssetLoader::new(asset_root, label),
            game,
            settings,
            watcher,
            renderer,
            crowd_pass: CrowdPass::default(),
            extractor: Extractor::default(),
            hero_view,
            reader,
            router: PointerRouter::default(),
            panel_pointer: Pointer::default(),
            panel_rects: Vec::new(),
            evac_notes: evac_notes::EvacNotes::default(),
            ui_size: glam::Vec2::ZERO,
            frame_number: 0,
            pending_actions: Vec::new(),
            keep_waving,
            notice: None,
            curve_editor: BezierEditor::default(),
            timings: StageTimings::default(),
            // About five seconds at 60 fps.
            history: FrameHistory::new(300),
            gpu_timer: GpuTimer::for_current_context(),
            last_load: FrameLoad::default(),
            last_load_ms: 0.0,
        })
    }

    /// Keys and mouse to intents and this frame's game input; intents applied. The panels
    /// keep the part of the mouse they took (`panel_pointer`); the camera gets the rest.
    fn read_input(&mut self, screen: Screen) -> FrameInput {
        self.frame_number += 1;
        let mouse = self.reader.pointer(self.frame_number);
        let routed = self.router.route(mouse);
        self.panel_pointer = routed.panels;
        let (mut input, intents) =
            self.reader
                .read(self.game.camera.mode, &routed.world, screen.size);
        input.actions = std::mem::take(&mut self.pending_actions);
        let cycles_look = intents.iter().any(|i| {
            matches!(
                i,
                Intent::Hero(crate::hero::commands::HeroCommand::CycleLookTarget)
            )
        });
        input
            .actions
            .extend(settings::apply(intents, &mut self.settings, &mut self.game));
        if cycles_look {
            let note = match &self.game.hero {
                Some(h) => format!(
                    "the hero looks at: {} (L: auto, camera, waving person, clicked point, off)",
                    h.look.target.label()
                ),
                None => "there is no hero to look anywhere (L)".to_string(),
            };
            self.note(note, FEEDBACK_NOTE);
        }
        let panels = self.settings.panels;
        if panels.edit_mode || panels.build {
            for command in self.reader.edit_commands() {
                // R turns the held thing in build mode, a box in edit mode.
                if !panels.edit_mode && matches!(command, crate::level_edit::EditCommand::Rotate(_))
                {
                    continue;
                }
                let note = self
                    .tools
                    .command(command, &mut self.game, &mut self.watcher);
                self.note(note, EDIT_NOTE);
            }
        }
        // A click on someone selects them (their card); on nobody, closes the card.
        let view_proj = self.game.camera.view_projection(screen.aspect);
        let size = glam::Vec2::new(screen.size.0, screen.size.1);
        self.build
            .pick_person(&mut self.game, &routed.world, &view_proj, size);
        // Ctrl+click: the hero looks at that ground point.
        if let Some(ndc) = self.reader.look_click(&routed.world, screen.size) {
            let view_proj = self.game.camera.view_projection(screen.aspect);
            let note = look_at_click(&mut self.game, ground_point(&view_proj, ndc));
            self.note(note, FEEDBACK_NOTE);
        }
        // A double click glides the camera to that ground point.
        if let Some(ndc) = input.double_click.take() {
            let view_proj = self.game.camera.view_projection(screen.aspect);
            if let Some(p) = ground_point(&view_proj, ndc) {
                input.actions.push(Action::GlideTo(p));
            }
        }
        if self.keep_waving {
            if let Some(h) = self.game.hero.as_mut().filter(|h| !h.is_waving()) {
                h.wave();
            }
        }
        input
    }

    /// Advances the game by one frame and charges the time to the stages.
    fn simulate(&mut self, frame_seconds: f32, input: &FrameInput, screen: Screen) {
        let game = &mut self.game;
        let view = &self.settings.view;
        // The simulation LOD tests people against the view the player really has.
        let far = view.drawn_lod(game.level().lod).far;
        game.sim_view_policy = view.sim_view_policy(screen.aspect, far);
        let sim_start = Instant::now();
        game.frame(frame_seconds as f64, input);
        let sim_time = sim_start.elapsed();
        // The hero's animation, palettes and morph rebuilds run inside `Game::frame`: charge
        // them to their own stages and the rest to the simulation.
        let mut hero_total = Duration::ZERO;
        if let Some(h) = &game.hero {
            let s = &h.stats;
            for (stage, us) in [
                (Stage::Animation, s.anim_us),
                (Stage::Palettes, s.palette_us),
                (Stage::Morphs, s.morph_us),
            ] {
                let d = Duration::from_secs_f64(f64::from(us.max(0.0)) * 1e-6);
                self.timings.add(stage, d);
                hero_total += d;
            }
        }
        self.timings
            .add(Stage::Simulation, sim_time.saturating_sub(hero_total));
        for note in self.game.take_notes() {
            self.note(note, FEEDBACK_NOTE);
        }
        for note in self.evac_notes.notes(self.game.agents.evacuation()) {
            self.note(note, FEEDBACK_NOTE);
        }
        self.tools
            .sample_heat(&self.game, self.settings.panels.heat_map);
    }

    /// Shows `text` at the bottom of the screen for `seconds` (nothing for an empty text).
    fn note(&mut self, text: String, seconds: Duration) {
        if !text.is_empty() {
            let _ = print_line(&format!("throng: {text}"));
            self.notice = Some((text, Instant::now(), seconds));
        }
    }

    /// Applies a changed level file (or keeps the last good level and shows the error).
    fn poll_reload(&mut self) {
        if let Some(level) = self.tools.release_held(&self.game, &self.watcher) {
            self.game.apply_reload(Ok(level));
            self.hero_view.sync(&mut self.game);
            let path = self.watcher.path().display();
            self.note(
                format!("Reloaded {path}: your edits are undone"),
                RELOAD_NOTE,
            );
        }
        let Some(polled) = self.watcher.poll() else {
            return;
        };
        let (result, held) = self.tools.take_reload(polled, &self.game, &self.watcher);
        if let Some(note) = held {
            self.note(note, EDIT_NOTE);
        }
        let Some(result) = result else {
            return;
        };
        let ok = result.is_ok();
        match &result {
            Ok(_) => {
                let _ = print_line(&format!(
                    "throng: reloaded {}",
                    self.watcher.path().display()
                ));
            }
            Err(e) => eprintln!("throng: {e} (the last good level keeps running)"),
        }
        self.game.apply_reload(result);
        self.hero_view.sync(&mut self.game);
        if ok {
            for w in self.game.slow_settings() {
                let path = self.watcher.path().display();
                eprintln!("throng: {path}: {w}");
            }
            let text = format!("Reloaded {}", self.watcher.path().display());
            self.notice = Some((text, Instant::now(), RELOAD_NOTE));
        }
    }

    /// Extracts this frame's render world and draws it.
    fn draw_world(&mut self, screen: Screen) -> FrameResult {
        let sky = display_color(
            self.game.level().lighting.sky_color,
            self.game.level().lighting.tone_mapping,
        );
        clear_background(Color::new(sky.x, sky.y, sky.z, 1.0));
        let mut gl = unsafe { get_internal_gl() };
        gl.flush();
        let ctx = gl.quad_context;
        // Load-time data first: the crowd's models when the level changed them, their GPU
        // side when they or the uniform cap changed.
        let load_start = Instant::now();
        self.crowd_assets.sync(self.game.level());
        let view = &self.settings.view;
        if let Some(source) = crowd_source(&self.crowd_assets, view) {
            self.crowd_pass
                .sync(ctx, &source, self.renderer.shadow_map());
        }
        self.last_load_ms = load_start.elapsed().as_secs_f32() * 1000.0;
        let skinned = self
            .crowd_assets
            .assets_mut()
            .filter(|_| self.crowd_pass.ready());
        // The naive path's cost is sampling a palette per person: that is animation work.
        let stage = if view.per_agent_draws && skinned.is_some() {
            Stage::Animation
        } else {
            Stage::CullLodPack
        };
        let started = Instant::now();
        let world = self.extractor.extract(&self.game, view, skinned, screen);
        self.timings.add(stage, started.elapsed());
        let submit_start = Instant::now();
        let timing = self.gpu_timer.begin();
        let layers = FrameLayers {
            crowd: &mut self.crowd_pass,
            hero: self.hero_view.renderer_mut(),
        };
        let stats = draw_frame(ctx, &mut self.renderer, &world, layers);
        if timing {
            self.gpu_timer.end();
        }
        let people = world.people;
        let gpu_time = self.gpu_timer.poll();
        self.timings.add(Stage::Submission, submit_start.elapsed());
        FrameResult {
            stats,
            people,
            gpu_time,
        }
    }

    /// The sandbox's share of the overlays: the build toolbar and its ghost (build mode), the
    /// shows and queues layer of the level overlay, the selected person's rings.
    fn draw_sandbox(
        &mut self,
        panels: crate::settings::Panels,
        pointer: Pointer,
        screen: glam::Vec2,
        covered: &mut Vec<Rect>,
    ) {
        let ui_size = screen;
        let view_proj = self
            .game
            .camera
            .view_projection(ui_size.x / ui_size.y.max(1.0));
        if panels.build {
            let frame = build_tool::BuildFrame {
                pointer,
                screen: ui_size,
                keys: self.reader.key_presses(),
                view_proj,
            };
            if let Some(text) = self
                .build
                .frame(&mut self.game, &mut self.tools, &frame, covered)
            {
                self.note(text, EDIT_NOTE);
            }
        } else if self.build.holds() {
            self.build.close(&mut self.game);
        }
        if panels.level_overlay {
            crate::ui::show_overlay::draw(
                &self.game.agents,
                &view_proj,
                ui_size,
                &self.panel_rects,
            );
        }
        if let Some(i) = self.game.selected_person() {
            let (at, _) = self.game.agents.drawn_at(i);
            let controlled = self.game.agents.controlled() == Some(i);
            crate::ui::person_card::draw_selection_ring(&view_proj, ui_size, at, controlled);
        }
    }

    /// The 2D layer over the world: the culling view's outline, behaviour labels, the HUD, the
    /// glide editor, the performance panel and the hero's panels, laid out for 1280x720 and
    /// scaled to the window. Their intents are applied here, and the rectangles they cover
    /// route the next frame's mouse. Returns the HUD's lines and whether the panel changed the
    /// crowd size.
    fn draw_overlays(
        &mut self,
        f: &FrameResult,
        frame_ms_avg: Option<f32>,
        screen: Screen,
    ) -> (Vec<String>, bool) {
        set_default_camera();
        let ui = UiScale::for_window(screen.size.0, screen.size.1);
        set_ui_camera(&ui);
        crate::ui::layout_log::begin_frame();
        self.ui_size = ui.size;
        let pointer = ui.to_logical(self.panel_pointer);
        let mut covered: Vec<Rect> = Vec::new();
        let game = &self.game;
        let panels = self.settings.panels;
        let view = self.settings.view;
        let lod = view.lod_settings(game.level().lod);
        if view.cull_view {
            draw_cull_view_overlay(
                &game.camera,
                &overview_camera(&game.camera),
                screen.aspect,
                view.drawn_lod(game.level().lod).far,
            );
        }
        let frame = level_tools::ToolsFrame {
            panels,
            pointer,
            screen: ui.size,
            panel_rects: &self.panel_rects,
            watcher: &self.watcher,
        };
        let refused = self.tools.draw(&mut self.game, &frame, &mut covered);
        if let Some(text) = refused {
            self.note(text, EDIT_NOTE);
        }
        self.draw_sandbox(panels, pointer, ui.size, &mut covered);
        let game = &self.game;
        if let Some(h) = &game.hero {
            if let crate::hero::look_at::LookTarget::ClickedPoint(p) = h.look.target {
                use crate::hero::look_at::Reach;
                let view_proj = game.camera.view_projection(ui.size.x / ui.size.y.max(1.0));
                let within = h.look.reach(p).is_none_or(|r| r == Reach::Within);
                crate::ui::look_marker::draw(&view_proj, p, ui.size, within);
            }
        }
        crate::ui::evacuation::draw_exit_labels(
            game.agents.evacuation(),
            &game.camera.view_projection(ui.size.x / ui.size.y.max(1.0)),
            ui.size,
            &self.panel_rects,
            panels.level_overlay,
        );
        if panels.agent_overlay {
            let view_proj = game.camera.view_projection(screen.aspect);
            agent_overlay::draw(
                &game.agents,
                &view_proj,
                game.camera.eye(),
                ui.size,
                &self.panel_rects,
            );
        }
        if self
            .notice
            .as_ref()
            .is_some_and(|(_, at, lasts)| at.elapsed() > *lasts)
        {
            self.notice = None;
        }
        let hud_info = HudInfo {
            frame_ms: frame_ms_avg,
            quality: &self.quality,
            stats: &f.stats,
            people: f.people,
            reload_notice: self.notice.as_ref().map(|(s, ..)| s.as_str()),
            model_errors: self.model_errors(),
            hero_warnings: self.hero_view.shown_warnings(&panels),
            help: panels.help,
            edit_line: self.tools.hud_line(game, &panels),
            build_open: panels.build,
        };
        let (hud_lines, hud_boxes) = hud::draw(game, &hud_info);
        // Under the status box and the alarm's box below it, when that shows.
        let below_hud = hud_boxes
            .iter()
            .map(|r| r.y + r.h + 8.0)
            .fold(10.0, f32::max);
        let legend = view
            .cull_view
            .then(|| draw_cull_view_legend(below_hud - 4.0));
        let mut intents: Vec<Intent> = Vec::new();
        if panels.curve_editor {
            covered.push(glide_editor::draw(
                game,
                &mut self.curve_editor,
                &pointer,
                &mut intents,
            ));
        }
        let mut crowd_changed = false;
        let shown = game.perf_panel_shown();
        if shown > 0.001 {
            // Slides in from the left edge as the scheduler eases it open.
            let x = 10.0 - (1.0 - shown) * 370.0;
            let frame = PanelFrame {
                crowd: game.crowd_count(),
                shown: f.people.total().saturating_sub(f.people.spawning),
                view: &view,
                shadows: view.shadows_enabled(game.level().lighting.shadows),
                lod,
                drawn_lod: view.drawn_lod(game.level().lod),
                timings: &self.timings,
                stats: &f.stats,
                gpu: f.gpu_time,
                history: &self.history,
                pointer,
                panels,
            };
            crowd_changed =
                self.perf_panel
                    .draw(&frame, x, below_hud.max(112.0), &mut intents, &mut covered);
        }
        self.hero_view
            .draw_ui(game, &panels, pointer, &mut intents, &mut covered);
        if panels.measurements {
            intents.extend(draw_measurements(game, ui.size, &pointer, &mut covered));
        }
        covered.extend(draw_person_card(game, ui.size));
        let alerts = hud::draw_alerts(game, &hud_info);
        // Last, so no panel hides the tooltip.
        self.tools.draw_tooltip(ui.size);
        self.router
            .set_panels(covered.iter().map(|&r| ui.to_pixels(r)).collect());
        // Labels over the world keep clear of the HUD too, which does not take the mouse.
        covered.extend(hud_boxes);
        covered.extend(alerts);
        covered.extend(legend);
        self.panel_rects = covered;
        set_default_camera();
        let actions = settings::apply(intents, &mut self.settings, &mut self.game);
        self.pending_actions.extend(actions);
        (hud_lines, crowd_changed)
    }

    /// Why the crowd or the hero is not drawn from the level's models (empty: both are).
    fn model_errors(&self) -> Vec<String> {
        let crowd = self
            .crowd_assets
            .error
            .as_ref()
            .or(self.crowd_pass.error.as_ref());
        crowd
            .cloned()
            .into_iter()
            .chain(self.hero_view.error().map(str::to_string))
            .collect()
    }

    /// The last frame's statistics for `--stats-out`.
    fn report(&self, hud: Vec<String>, f: &FrameResult) -> FrameReport {
        let panel = crate::ui::perf_panel::stat_lines(&self.timings, &f.stats, f.gpu_time);
        FrameReport {
            hud,
            panel,
            ui: UiReport {
                screen: self.ui_size.to_array(),
                layout: crate::ui::layout_log::snapshot(),
            },
            render: f.stats,
            people: self.game.agents.len(),
            crowd_target: self.game.crowd_count(),
            drawn: f.people.drawn,
            culled: f.people.culled,
            beyond: f.people.beyond,
            spawning: f.people.spawning,
            camera: CameraReport::of(&self.game.camera),
            crowd: self.crowd_pass.info(),
            vat_active: self.crowd_pass.vat_active(),
            crowd_error: self
                .crowd_assets
                .error
                .clone()
                .or_else(|| self.crowd_pass.error.clone()),
            hero_error: self.hero_view.error().map(str::to_string),
            window: (screen_width(), screen_height()),
            clock: ClockReport::of(&self.game),
            quality: QualityReport {
                level: self.quality.level(),
                label: self.quality.label(),
                smoothed_ms: self.quality.smoothed_ms(),
                exhausted: self.quality.exhausted(),
                settled_after_s: self.quality.settled_after_s(),
                changes: self.quality.changes(),
            },
            sandbox: SandboxReport::of(&self.game),
            evacuation: evac_report::EvacuationReport::of(&self.game),
        }
    }

    /// What the frame just drawn cost apart from the rung (`fixed_ms`: simulation,
    /// extraction, panels, a `--slow-frame-ms` pause) and what it drew.
    fn note_load(&mut self, f: &FrameResult, fixed_ms: f32, screen: Screen) {
        let view = &self.settings.view;
        self.last_load = FrameLoad {
            fixed_ms,
            triangles: f.stats.triangles as f64,
            crowd_mesh_triangles: f.stats.crowd_mesh_triangles as f64,
            pixels: f64::from(screen.size.0) * f64::from(screen.size.1),
            antialias_allowed: view.antialias,
            shadows: view.shadows_enabled(self.game.level().lighting.shadows),
            loading: false,
        };
    }

    /// After a frame that took `frame_ms`: adaptive quality picks the next frame's rung. A
    /// frame that spent a good part of its time loading is not judged.
    fn adapt_quality(&mut self, frame_ms: f32) {
        let was_settled = self.quality.settled_after_s().is_some();
        let load = FrameLoad {
            loading: self.last_load_ms > 0.2 * frame_ms,
            ..self.last_load
        };
        self.quality.observe(frame_ms, &load);
        self.settings.view.quality = self.quality.quality();
        if let (false, Some(after)) = (was_settled, self.quality.settled_after_s()) {
            let _ = print_line(&format!(
                "throng: {} settled {after:.1} s after the first frame",
                self.quality.label()
            ));
        }
    }
}

async fn play(setup: PlaySetup) -> Result<PlayOutcome, String> {
    let frames = setup.args.frames;
    let seconds = setup.args.seconds;
    let screenshot = setup.args.screenshot.clone();
    let stats_out = setup.args.stats_out.clone();
    let slow_frame = setup.args.slow_frame_ms.map(Duration::from_millis);
    #[cfg(not(target_arch = "wasm32"))]
    let stdin_closed = setup
        .args
        .until_stdin_closes
        .then(stdin_quit::StdinClosed::watch);
    let mut s = Session::start(setup)?;
    // None until a frame was measured: macroquad's first frame time is a made-up 1/60 s.
    let mut frame_ms_avg: Option<f32> = None;
    let mut outcome = PlayOutcome::default();
    let started = Instant::now();
    let mut last_poll = Instant::now();
    loop {
        let frame_seconds = get_frame_time();
        if outcome.frames > 0 {
            let ms = frame_seconds * 1000.0;
            frame_ms_avg = Some(frame_ms_avg.map_or(ms, |avg| avg * 0.9 + ms * 0.1));
            s.adapt_quality(ms);
        }
        if is_key_pressed(KeyCode::Escape) {
            break;
        }
        let screen = Screen::window(screen_width(), screen_height());
        let fixed_start = Instant::now();
        let input = s.read_input(screen);
        s.simulate(frame_seconds, &input, screen);
        let mut fixed = fixed_start.elapsed();
        // No files to watch on the web: the page fetched them once.
        if !cfg!(target_arch = "wasm32") && last_poll.elapsed() >= RELOAD_POLL {
            last_poll = Instant::now();
            s.poll_reload();
        }
        let result = s.draw_world(screen);
        let ui_start = Instant::now();
        let (hud_lines, crowd_changed) = s.draw_overlays(&result, frame_ms_avg, screen);
        s.timings.add(Stage::Ui, ui_start.elapsed());
        // The panels and the testing pause cost the same on every rung.
        fixed += ui_start.elapsed() + slow_frame.unwrap_or_default();
        s.note_load(&result, fixed.as_secs_f32() * 1000.0, screen);
        s.timings.end_frame();
        s.history.push(frame_seconds * 1000.0, crowd_changed);

        outcome.frames += 1;
        #[cfg(target_arch = "wasm32")]
        web::frame_done(
            frame_ms_avg,
            s.game.agents.len(),
            result.people.drawn,
            outcome.frames,
        );
        let out_of_frames = frames.is_some_and(|n| outcome.frames >= n);
        let out_of_time = seconds.is_some_and(|limit| started.elapsed().as_secs_f64() >= limit);
        #[cfg(not(target_arch = "wasm32"))]
        let told_to_quit = stdin_closed.as_ref().is_some_and(|s| s.closed());
        #[cfg(target_arch = "wasm32")]
        let told_to_quit = false;
        if out_of_frames || out_of_time || told_to_quit {
            if let Some(path) = &stats_out {
                s.report(hud_lines, &result).write(path)?;
            }
            if let Some(path) = &screenshot {
                save_screenshot(path)?;
                outcome.screenshot_saved = true;
            }
            break;
        }
        if let Some(pause) = slow_frame {
            std::thread::sleep(pause);
        }
        next_frame().await;
    }
    // A recording under way ends with the game, as a whole file.
    if s.game.stop_recording() {
        for note in s.game.take_notes() {
            s.note(note, FEEDBACK_NOTE);
        }
    }
    Ok(outcome)
}

/// A Ctrl+click's ground point (None: the click missed the ground) becomes the hero's look
/// target; returns what the player is told, including a point out of her reach.
/// The selected person's story card at the top right, if someone is selected.
fn draw_person_card(game: &Game, screen: glam::Vec2) -> Option<Rect> {
    let i = game.selected_person()?;
    let story = game.agents.story(i)?;
    let lines = crate::ui::person_card::card_lines(
        &story,
        game.followed_person() == Some(i),
        game.agents.controlled() == Some(i),
    );
    Some(crate::ui::person_card::draw_card(&lines, screen, 10.0))
}

/// The measurements panel above whatever already holds the lower right corner (the heat
/// map's legend, the build toolbar); the action its buttons asked for.
fn draw_measurements(
    game: &Game,
    screen: glam::Vec2,
    pointer: &Pointer,
    covered: &mut Vec<Rect>,
) -> Option<Intent> {
    let left = screen.x - crate::ui::measure_panel::WIDTH - 10.0;
    let bottom = covered
        .iter()
        .filter(|r| r.x + r.w > left && r.y > screen.y * 0.5)
        .map(|r| r.y - 6.0)
        .fold(screen.y - 34.0, f32::min);
    let drawn = crate::ui::measure_panel::draw(
        game.level(),
        game.meters(),
        game.recording(),
        screen,
        bottom,
        pointer,
    );
    covered.push(drawn.rect);
    drawn.action.map(Intent::Game)
}

/// Recordings of this level go to `dir` (desktop only: SQLite is not in the web build).
#[cfg(not(target_arch = "wasm32"))]
fn set_recording_target(game: &mut Game, dir: &std::path::Path, level_file: &std::path::Path) {
    let (dir, file) = (dir.to_path_buf(), level_file.to_string_lossy().to_string());
    game.set_sink_factory(Box::new(move |level| {
        let (recorder, path) = crate::record::game_sink::start_in(&dir, &file, level)?;
        let sink: Box<dyn crate::game::measuring::TrajectorySink> = Box::new(recorder);
        Ok((sink, path.display().to_string()))
    }));
}

#[cfg(target_arch = "wasm32")]
fn set_recording_target(_: &mut Game, _: &std::path::Path, _: &std::path::Path) {}

fn look_at_click(game: &mut Game, point: Option<glam::Vec3>) -> String {
    use crate::hero::commands::HeroCommand;
    use crate::hero::look_at::LookTarget;
    let Some(h) = game.hero.as_mut() else {
        return "there is no hero to look there (Ctrl+click)".to_string();
    };
    let Some(p) = point else {
        return "no ground under the pointer to look at (Ctrl+click the ground)".to_string();
    };
    h.command(HeroCommand::SetLookTarget(LookTarget::ClickedPoint(p)));
    let reach = h.look.reach(p);
    match reach.and_then(|r| r.note()) {
        Some(out) => out,
        None => format!(
            "the hero looks at ({:.1}, {:.1}), marked on the ground",
            p.x, p.z
        ),
    }
}

/// The hero's start-up options: the follow camera, the autopilot (a circle walked or run, or
/// waving). Returns whether the hero keeps waving.
fn start_hero(game: &mut Game, follow: bool, hero_autopilot: Option<&str>) -> bool {
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
    keep_waving
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
    /// Where the last frame's panels and texts were (see `ui::layout_log`).
    ui: UiReport,
    render: RenderStats,
    people: usize,
    /// The crowd size asked for (people grow towards it over a few frames).
    crowd_target: usize,
    drawn: usize,
    culled: usize,
    beyond: usize,
    /// In the crowd but not shown yet: waiting for their turn to pop in.
    spawning: usize,
    camera: CameraReport,
    crowd: Option<crate::render::crowd::CrowdGpuInfo>,
    vat_active: bool,
    /// Why the crowd is not drawn from the level's models (None: it is).
    crowd_error: Option<String>,
    /// Why there is no hero (None: it loaded).
    hero_error: Option<String>,
    window: (f32, f32),
    clock: ClockReport,
    quality: QualityReport,
    sandbox: SandboxReport,
    /// The last alarm's evacuation (None: no alarm was raised).
    evacuation: Option<evac_report::EvacuationReport>,
}

/// The sandbox as the last frame left it: what is placed, each show's audience, each queue,
/// and the selected person's story.
#[derive(serde::Serialize)]
struct SandboxReport {
    /// Placed things: (name, kind, x, z, heading degrees).
    placed: Vec<(String, String, f32, f32, f32)>,
    /// Shows: (name, on, watching, coming, applauded).
    shows: Vec<(String, bool, u32, u32, u32)>,
    /// Queues: (point of interest, people in line, served).
    queues: Vec<(String, usize, u32)>,
    /// The selected person's card lines (empty: nobody selected).
    card: Vec<String>,
    controlled: Option<usize>,
    followed: Option<usize>,
}

impl SandboxReport {
    fn of(game: &Game) -> SandboxReport {
        let a = &game.agents;
        let pois = &a.level().points_of_interest;
        SandboxReport {
            placed: game
                .level()
                .placed
                .iter()
                .map(|p| {
                    (
                        p.name.clone(),
                        p.kind.key().to_string(),
                        p.at.x,
                        p.at.y,
                        p.heading_deg,
                    )
                })
                .collect(),
            shows: a
                .shows()
                .iter()
                .map(|s| (s.name.clone(), s.on, s.watching, s.coming, s.applauded))
                .collect(),
            queues: a
                .queue_lines()
                .iter()
                .enumerate()
                .filter(|(_, line)| !line.is_empty())
                .map(|(k, _)| {
                    let waiting = a.queues().get(k).map_or(0, Vec::len);
                    let served = a.served().get(k).copied().unwrap_or(0);
                    (pois[k].name.clone(), waiting, served)
                })
                .collect(),
            card: game
                .selected_person()
                .and_then(|i| a.story(i))
                .map(|story| {
                    let i = game.selected_person();
                    crate::ui::person_card::card_lines(
                        &story,
                        game.followed_person() == i,
                        a.controlled() == i,
                    )
                })
                .unwrap_or_default(),
            controlled: a.controlled(),
            followed: game.followed_person(),
        }
    }
}

/// The world clock against the wall clock since start (running frames only).
#[derive(serde::Serialize)]
struct ClockReport {
    /// Wall seconds of running frames, as the window measured them.
    wall_seconds: f64,
    /// Simulated seconds the crowd advanced in them.
    sim_seconds: f64,
    /// Simulated seconds the hero lived through (it keeps real time when the crowd cannot).
    hero_seconds: f64,
    /// Simulated over wall seconds in the last two seconds (None: not measured yet).
    speed_ratio: Option<f64>,
    /// The ratio when it is clearly below what was asked for (the HUD says so).
    behind: Option<f64>,
    dropped_seconds: f64,
    /// How many times a simulated second the crowd steps (60 or 30).
    crowd_hz: u32,
    /// Crowd steps taken.
    crowd_steps: u64,
}

impl ClockReport {
    fn of(game: &Game) -> ClockReport {
        let c = &game.clock;
        ClockReport {
            wall_seconds: c.speed.wall_total,
            sim_seconds: c.speed.simulated_total,
            hero_seconds: game.hero_seconds(),
            speed_ratio: c.speed.ratio(),
            behind: c.speed.behind(),
            dropped_seconds: c.dropped_seconds(),
            crowd_hz: game.crowd_tick_hz(),
            crowd_steps: game.agents.steps(),
        }
    }
}

#[derive(serde::Serialize)]
struct QualityReport {
    /// 0 is the best picture.
    level: usize,
    label: String,
    smoothed_ms: Option<f32>,
    /// On the cheapest rung and still over budget.
    exhausted: bool,
    /// Seconds from the end of the first frame to the last rung change, once the rung it
    /// changed to was judged and kept (None while that is pending, and when it is off).
    settled_after_s: Option<f32>,
    /// Rung changes so far.
    changes: u32,
}

/// The overlays' layout at the last frame, in logical units.
#[derive(serde::Serialize)]
struct UiReport {
    /// The window in logical units.
    screen: [f32; 2],
    #[serde(flatten)]
    layout: crate::ui::layout_log::LayoutLog,
}

/// Where the player's camera is at the last frame, so a test can tell whether input moved it.
#[derive(serde::Serialize)]
struct CameraReport {
    mode: String,
    eye: [f32; 3],
    orbit_target: [f32; 3],
    orbit_distance: f32,
    orbit_yaw: f32,
    orbit_pitch: f32,
}

impl CameraReport {
    fn of(c: &crate::view::camera::CameraRig) -> CameraReport {
        CameraReport {
            mode: format!("{:?}", c.mode),
            eye: c.eye().to_array(),
            orbit_target: c.orbit.target.to_array(),
            orbit_distance: c.orbit.distance,
            orbit_yaw: c.orbit.yaw,
            orbit_pitch: c.orbit.pitch,
        }
    }
}

impl FrameReport {
    fn write(&self, path: &std::path::Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| format!("--stats-out {}: {e}", path.display()))?;
        crate::files::write_atomic(path, text.as_bytes()).map_err(|e| format!("--stats-out: {e}"))
    }
}

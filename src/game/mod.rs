//! The game state and its fixed-step update: plain data, driven by input, never by the window.
pub mod clock;

use crate::crowd::{Crowd, StepInputs};
use crate::level::{Level, LevelError};
use crate::view::camera::{CameraInput, CameraRig};
use clock::{FixedStepClock, FrameSteps};

/// Simulation steps per second.
pub const SIM_RATE: f64 = 60.0;

/// Command-line choices that outlive level reloads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GameOptions {
    /// Replaces the level's `crowd.count`.
    pub crowd: Option<u32>,
    /// Replaces the level's `crowd.seed`.
    pub seed: Option<u64>,
}

/// Discrete player commands, already decoded from keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    TogglePause,
    SingleStep,
    SlowDown,
    SpeedUp,
    ResetTimeScale,
    ToggleCamera,
    ResetCamera,
    ToggleHelp,
    TogglePerfPanel,
    /// Startle the people around the point the camera looks at.
    Disturb,
}

/// Switches the performance lab flips at run time; they outlive level reloads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderToggles {
    pub frustum_culling: bool,
    /// None: follow the level's `lighting.shadows`.
    pub shadows: Option<bool>,
}

impl Default for RenderToggles {
    fn default() -> Self {
        RenderToggles {
            frustum_culling: true,
            shadows: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameInput {
    pub camera: CameraInput,
    pub actions: Vec<Action>,
}

pub struct Game {
    level: Level,
    options: GameOptions,
    /// Advances whenever the static scenery changes, so the renderer rebuilds it once.
    scenery_version: u64,
    pub clock: FixedStepClock,
    pub camera: CameraRig,
    pub agents: Crowd,
    reload_error: Option<LevelError>,
    reload_count: u32,
    sim_time: f64,
    pub show_help: bool,
    pub show_perf_panel: bool,
    pub toggles: RenderToggles,
    pending_disturbance: Option<glam::Vec2>,
}

impl Game {
    pub fn new(level: Level, options: GameOptions) -> Self {
        let camera = CameraRig::from_start(&level.camera);
        let seed = options.seed.unwrap_or(level.crowd.seed);
        let count = options.crowd.unwrap_or(level.crowd.count) as usize;
        let mut game = Game {
            agents: Crowd::from_level(&level, count, seed),
            level,
            options,
            scenery_version: 0,
            clock: FixedStepClock::new(SIM_RATE),
            camera,
            reload_error: None,
            reload_count: 0,
            sim_time: 0.0,
            show_help: false,
            show_perf_panel: false,
            toggles: RenderToggles::default(),
            pending_disturbance: None,
        };
        game.scenery_version = 1;
        game
    }

    pub fn level(&self) -> &Level {
        &self.level
    }

    pub fn scenery_version(&self) -> u64 {
        self.scenery_version
    }

    pub fn reload_error(&self) -> Option<&LevelError> {
        self.reload_error.as_ref()
    }

    /// How many edits of the level file were applied since start.
    pub fn reload_count(&self) -> u32 {
        self.reload_count
    }

    pub fn sim_time(&self) -> f64 {
        self.sim_time
    }

    pub fn crowd_count(&self) -> usize {
        self.options.crowd.unwrap_or(self.level.crowd.count) as usize
    }

    /// The crowd-size slider: overrides the level's count from now on (reloads keep it).
    pub fn set_crowd_count(&mut self, count: u32) {
        if self.crowd_count() == count as usize {
            return;
        }
        self.options.crowd = Some(count);
        self.agents.set_count(count as usize);
    }

    pub fn shadows_enabled(&self) -> bool {
        self.toggles.shadows.unwrap_or(self.level.lighting.shadows)
    }

    fn rebuild_world(&mut self) {
        let seed = self.options.seed.unwrap_or(self.level.crowd.seed);
        self.agents = Crowd::from_level(&self.level, self.crowd_count(), seed);
        self.scenery_version += 1;
    }

    /// A hot-reload result: a good level replaces the running one (the camera stays where the
    /// player put it); a bad one keeps the last good level and shows the error until fixed.
    pub fn apply_reload(&mut self, result: Result<Level, LevelError>) {
        match result {
            Ok(level) => {
                self.level = level;
                self.reload_error = None;
                self.reload_count += 1;
                self.rebuild_world();
            }
            Err(e) => self.reload_error = Some(e),
        }
    }

    /// One rendered frame: apply commands, move the camera, run the fixed steps due.
    pub fn frame(&mut self, frame_seconds: f64, input: &FrameInput) -> FrameSteps {
        for action in &input.actions {
            match action {
                Action::TogglePause => self.clock.toggle_pause(),
                Action::SingleStep => self.clock.request_single_step(),
                Action::SlowDown => self.clock.set_time_scale(self.clock.time_scale() * 0.5),
                Action::SpeedUp => self.clock.set_time_scale(self.clock.time_scale() * 2.0),
                Action::ResetTimeScale => self.clock.set_time_scale(1.0),
                Action::ToggleCamera => self.camera.toggle_mode(),
                Action::ResetCamera => self.camera = CameraRig::from_start(&self.level.camera),
                Action::ToggleHelp => self.show_help = !self.show_help,
                Action::TogglePerfPanel => self.show_perf_panel = !self.show_perf_panel,
                Action::Disturb => {
                    let focus = self.camera.shadow_focus().0;
                    self.pending_disturbance = Some(glam::Vec2::new(focus.x, focus.z));
                }
            }
        }
        // The camera answers in wall time: it must stay usable while the world is paused.
        let wall_dt = if frame_seconds.is_finite() {
            frame_seconds.clamp(0.0, 0.1) as f32
        } else {
            0.0
        };
        self.camera.update(&input.camera, wall_dt);
        let steps = self.clock.advance(frame_seconds);
        for _ in 0..steps.steps {
            self.step(self.clock.step_seconds());
        }
        steps
    }

    fn step(&mut self, dt: f32) {
        let inputs = StepInputs {
            hero_position: None,
            hero_velocity: glam::Vec2::ZERO,
            disturbance: self.pending_disturbance.take(),
        };
        self.agents.step(dt, &inputs);
        self.sim_time += dt as f64;
    }
}

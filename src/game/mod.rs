//! The game state and its fixed-step update: plain data, driven by input, never by the window.
mod alarm;
pub mod clock;
pub mod measuring;
pub mod sandbox;
pub mod speed;

use crate::crowd::{Crowd, StepInputs};
use crate::level::check::{slowness_warnings, SlowSetting};
use crate::level::{Level, LevelError};
use crate::tween::{Animator, AnimatorOptions, Easing};
use crate::view::camera::{CameraInput, CameraRig};
use clock::{FixedStepClock, FrameSteps};

/// Simulation steps per second.
pub const SIM_RATE: f64 = 60.0;

/// Notes kept for the player until read (`Game::take_notes`).
const MAX_NOTES: usize = 8;

/// Command-line choices that outlive level reloads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GameOptions {
    /// Replaces the level's `crowd.count`.
    pub crowd: Option<u32>,
    /// Replaces the level's `crowd.seed`.
    pub seed: Option<u64>,
}

/// Discrete player commands, already decoded from keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    TogglePause,
    SingleStep,
    SlowDown,
    SpeedUp,
    ResetTimeScale,
    ToggleCamera,
    ResetCamera,
    /// Startle the people around the point the camera looks at.
    Disturb,
    /// Glide the camera to the next point of interest.
    GlideToNextPoi,
    /// Glide the camera to a point on the ground (a double click).
    GlideTo(glam::Vec3),
    /// Switch between the hero's follow camera and the free cameras.
    ToggleFollow,
    /// The hero waves.
    HeroWave,
    /// Take control of the selected person, or let the controlled one go (T).
    ToggleControl,
    /// Raise the alarm at the camera's focus, or give the all-clear while one sounds (K).
    ToggleAlarm,
    /// Start recording trajectories (of everyone, or of the people inside measurement area
    /// `k`), or stop the recording under way (O, the toolbar, the measurements panel).
    ToggleRecording(Option<usize>),
}

/// What the game animates through the tween scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Motion {
    /// Orbit target x, y, z and distance, gliding together.
    CameraGlide,
    /// 0 = performance panel hidden, 1 = shown.
    PerfPanel,
}

/// Seconds a newly spawned person takes to pop in.
pub const APPEAR_SECONDS: f32 = 0.45;
/// Seconds a person removed by the crowd slider takes to shrink away.
pub const FADE_OUT_SECONDS: f32 = 0.3;

/// What the simulation LOD may treat as unseen, set by whoever draws the frame: the view's
/// width / height and the distance beyond which nobody is drawn (infinite without LOD).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimViewPolicy {
    pub aspect: f32,
    pub far: f32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameInput {
    pub camera: CameraInput,
    pub actions: Vec<Action>,
    /// A double click this frame, in normalised device coordinates (the app turns it into a
    /// ground point).
    pub double_click: Option<glam::Vec2>,
}

pub struct Game {
    level: Level,
    options: GameOptions,
    /// The most people the level holds (`level::validate::max_people`): every crowd size is
    /// held to it, also after a reload that makes the level smaller.
    capacity: u32,
    /// Advances whenever the static scenery changes, so the renderer rebuilds it once.
    scenery_version: u64,
    pub clock: FixedStepClock,
    pub camera: CameraRig,
    pub agents: Crowd,
    reload_error: Option<LevelError>,
    /// What will make the running level slow (`level::check::slowness_warnings`), found when it
    /// was loaded; the HUD shows them.
    slow_settings: Vec<SlowSetting>,
    reload_count: u32,
    sim_time: f64,
    /// See `hero_seconds()`.
    hero_seconds: f64,
    /// The follow camera's pull-in from people and props between it and the hero.
    pub follow_clearance: crate::view::camera_clearance::Clearance,
    /// Reused each frame by the clearance test.
    follow_blockers: Vec<crate::view::camera_clearance::Blocker>,
    /// The curve camera glides follow; the curve editor (F4) changes it.
    pub glide_easing: Easing,
    /// Wall time a glide started and how long it lasts, for the editor's playhead.
    glide_span: (f32, f32),
    pending_disturbance: Option<glam::Vec2>,
    /// The level's timed alarms: the all-clear one of them scheduled.
    timed_alarms: crate::crowd::timed_alarms::TimedAlarms,
    /// World steps since the crowd last stepped (it steps every `crowd_every()`-th one).
    crowd_steps_since: u32,
    /// `--crowd-hz`: replaces the level's `crowd.tick_hz`, across reloads.
    crowd_hz_override: Option<u32>,
    /// What the commands carried out said, for the player (`take_notes`): a command whose
    /// effect may not show (a scatter off screen, a glide's target) still answers.
    notes: Vec<String>,
    /// Every eased change on screen goes through this one scheduler (single writer).
    pub motion: Animator<Motion>,
    next_poi: usize,
    /// The camera follows the glide channel until the glide ends or the player intervenes.
    gliding: bool,
    /// Wall-clock seconds since start, for pop-in staggering.
    wall_time: f32,
    /// Per agent: wall time when it finishes appearing (agents present at start: 0).
    pub appear_until: Vec<f32>,
    /// A shrink in progress: (agents kept, wall time it started).
    leaving: Option<(usize, f32)>,
    /// The player's character, once its model is loaded (`attach_hero`).
    pub hero: Option<crate::hero::Hero>,
    /// Movement asked for this frame (follow camera only), applied at every fixed step.
    hero_intent: crate::hero::controller::MoveIntent,
    /// Walks the hero round a circle (centre, radius, run) when nobody steers it: demos,
    /// screenshots and the benchmark.
    pub hero_autopilot: Option<(glam::Vec2, f32, bool)>,
    /// People near the hero turn their heads to her (`crowd::head_turn`), per agent.
    pub head_turns: crate::crowd::head_turn::HeadTurns,
    /// Simulation level of detail: people the camera cannot see are steered every 4th step.
    /// None steers everyone every step.
    pub sim_view_policy: Option<SimViewPolicy>,
    /// The person the story card shows, and the one the follow camera follows instead of
    /// the hero.
    selected: Option<usize>,
    followed: Option<usize>,
    /// The level's measurement areas and lines, read live (`measuring.rs`), and what they were
    /// built for (rebuilt only when those change).
    meters: crate::measure::Meters,
    /// The speeds the meters read: each person's move over the last crowd step.
    step_moves: crate::measure::StepMoves,
    meters_for: (
        Vec<crate::level::MeasurementArea>,
        Vec<crate::level::MeasurementLine>,
    ),
    /// A trajectory recording under way.
    recording: Option<measuring::Recording>,
    /// Opens a recording's file (the app's; none: this build cannot record).
    sink_factory: Option<measuring::SinkFactory>,
}

impl Game {
    pub fn new(level: Level, options: GameOptions) -> Self {
        let camera = CameraRig::from_start(&level.camera);
        let seed = options.seed.unwrap_or(level.crowd.seed);
        let capacity = crate::level::validate::max_people(&level);
        let count = options.crowd.unwrap_or(level.crowd.count).min(capacity) as usize;
        let appear_until = vec![0.0; count];
        let lod_far = level.lod.far;
        let mut game = Game {
            agents: Crowd::from_level(&level, count, seed),
            level,
            options,
            capacity,
            scenery_version: 1,
            clock: FixedStepClock::new(SIM_RATE),
            camera,
            reload_error: None,
            slow_settings: Vec::new(),
            reload_count: 0,
            sim_time: 0.0,
            hero_seconds: 0.0,
            follow_clearance: Default::default(),
            follow_blockers: Vec::new(),
            glide_easing: Easing::parse("cubicBezier(.65,0,.35,1)").unwrap_or(Easing::Linear),
            glide_span: (0.0, 0.0),
            pending_disturbance: None,
            timed_alarms: Default::default(),
            crowd_steps_since: 0,
            crowd_hz_override: None,
            notes: Vec::new(),
            motion: Animator::new(AnimatorOptions::default()),
            next_poi: 0,
            gliding: false,
            wall_time: 0.0,
            appear_until,
            leaving: None,
            hero: None,
            hero_intent: Default::default(),
            hero_autopilot: None,
            head_turns: Default::default(),
            sim_view_policy: Some(SimViewPolicy {
                aspect: 16.0 / 9.0,
                far: lod_far,
            }),
            selected: None,
            followed: None,
            meters: crate::measure::Meters::new(&[], &[], None),
            step_moves: Default::default(),
            meters_for: Default::default(),
            recording: None,
            sink_factory: None,
        };
        game.refresh_meters(true);
        let o = game.camera.orbit;
        // Registering fresh keys cannot fail; a failure would only mean no glides.
        let _ = game.motion.register(
            Motion::CameraGlide,
            &[o.target.x, o.target.y, o.target.z, o.distance],
        );
        let _ = game.motion.register(Motion::PerfPanel, &[0.0]);
        game.slow_settings = slowness_warnings(&game.level, game.crowd_count() as u32);
        game
    }

    pub fn level(&self) -> &Level {
        &self.level
    }

    /// Puts the hero in the level; a level that starts with the follow camera gets it now.
    pub fn attach_hero(&mut self, hero: crate::hero::Hero) {
        let focus = hero.focus_point();
        self.hero = Some(hero);
        if self.level.camera.mode == crate::level::CameraMode::Follow
            && self.camera.mode != crate::level::CameraMode::Follow
        {
            self.camera.toggle_follow(focus);
            // The level's camera settings describe the follow view it starts with.
            self.camera.follow.distance = self.camera.orbit.distance.min(60.0);
            self.camera.follow.pitch = self.camera.orbit.pitch;
        }
    }

    pub fn scenery_version(&self) -> u64 {
        self.scenery_version
    }

    pub fn reload_error(&self) -> Option<&LevelError> {
        self.reload_error.as_ref()
    }

    /// Settings of the running level that will make it slow (empty when none will).
    pub fn slow_settings(&self) -> &[SlowSetting] {
        &self.slow_settings
    }

    /// How many edits of the level file were applied since start.
    pub fn reload_count(&self) -> u32 {
        self.reload_count
    }

    pub fn sim_time(&self) -> f64 {
        self.sim_time
    }

    pub fn crowd_count(&self) -> usize {
        self.options
            .crowd
            .unwrap_or(self.level.crowd.count)
            .min(self.capacity) as usize
    }

    /// The crowd-size slider: overrides the level's count from now on (reloads keep it).
    /// Newcomers pop in one after another over about a second rather than all at once.
    /// People removed by the slider fade out first and leave the simulation after `FADE_OUT_SECONDS`.
    pub fn set_crowd_count(&mut self, count: u32) {
        let count = count.min(self.capacity);
        if self.crowd_count() == count as usize {
            return;
        }
        self.finish_leaving();
        self.options.crowd = Some(count);
        if (count as usize) < self.agents.len() {
            self.leaving = Some((count as usize, self.wall_time));
            return;
        }
        self.agents.set_count(count as usize);
        let old = self.appear_until.len().min(count as usize);
        self.appear_until.truncate(old);
        let added = count as usize - old;
        let each = (1.0 / added.max(1) as f32).min(0.02);
        let start = self.wall_time;
        self.appear_until
            .extend((0..added).map(|k| start + k as f32 * each + APPEAR_SECONDS));
    }

    fn finish_leaving(&mut self) {
        if let Some((keep, _)) = self.leaving.take() {
            self.agents.set_count(keep);
            self.appear_until.truncate(keep);
        }
    }

    /// Scale of agent `i`: 0..~1.1 while it pops in (easeOutBack overshoots a little), shrinking
    /// to 0 while it leaves, 1 otherwise.
    pub fn appear_scale(&self, i: usize, ease: &Easing) -> f32 {
        self.appear().scale(i, ease)
    }

    /// What `appear_scale` reads, apart from the rest of the game: packing asks it for
    /// everyone from the pool's threads (the game itself need not be shared between threads).
    pub fn appear(&self) -> Appear<'_> {
        Appear {
            leaving: self.leaving,
            wall_time: self.wall_time,
            until: &self.appear_until,
        }
    }
    /// How far the current glide is, 0..1, for the curve editor's playhead.
    pub fn glide_progress(&self) -> Option<f32> {
        let (start, secs) = self.glide_span;
        (self.gliding && secs > 0.0).then(|| ((self.wall_time - start) / secs).clamp(0.0, 1.0))
    }

    /// The performance panel's slide: 0 hidden, 1 fully shown.
    pub fn perf_panel_shown(&self) -> f32 {
        self.motion.scalar(&Motion::PerfPanel).unwrap_or(0.0)
    }

    fn glide_to(&mut self, target: glam::Vec3, distance: f32) {
        let o = self.camera.orbit;
        // Longer trips take longer, within reason.
        let secs = (o.target.distance(target) / 25.0).clamp(0.6, 2.0);
        let to = [target.x, target.y, target.z, distance];
        {
            let ease = self.glide_easing.clone();
            let _ = if self.gliding {
                // A new target mid-flight bends the glide and keeps its speed.
                self.motion.tween_to(&Motion::CameraGlide, &to, secs, ease)
            } else {
                // The player may have moved the camera since: start from where it is now.
                let from = [o.target.x, o.target.y, o.target.z, o.distance];
                self.motion
                    .tween_from_to(&Motion::CameraGlide, &from, &to, secs, ease)
            };
            self.gliding = true;
            self.glide_span = (self.wall_time, secs);
        }
        if self.camera.mode == crate::level::CameraMode::Fly {
            self.camera.toggle_mode();
        }
    }

    /// The view the simulation LOD tests people against: the camera as it is now, under the
    /// policy the renderer set.
    pub fn sim_view(&self) -> Option<crate::crowd::SimView> {
        let policy = self.sim_view_policy?;
        let aspect = if policy.aspect.is_finite() && policy.aspect > 0.0 {
            policy.aspect
        } else {
            16.0 / 9.0
        };
        Some(crate::crowd::SimView {
            frustum: crate::frustum::Frustum::from_view_projection(
                &self.camera.view_projection(aspect),
            ),
            eye: self.camera.eye(),
            far: policy.far,
        })
    }

    /// Slides the performance panel in (`open`) or out; toggling mid-slide reverses from where
    /// the panel is.
    pub fn slide_perf_panel(&mut self, open: bool) {
        let (to, secs, ease) = if open {
            (1.0, 0.25, Easing::parse("easeOutCubic"))
        } else {
            (0.0, 0.18, Easing::parse("easeInCubic"))
        };
        if let Ok(ease) = ease {
            let _ = self.motion.tween_to(&Motion::PerfPanel, &[to], secs, ease);
        }
    }

    fn rebuild_world(&mut self) {
        let seed = self.options.seed.unwrap_or(self.level.crowd.seed);
        self.leaving = None;
        self.agents = Crowd::from_level(&self.level, self.crowd_count(), seed);
        self.selected = None;
        self.followed = None;
        self.appear_until = vec![0.0; self.crowd_count()];
        self.scenery_version += 1;
        self.crowd_steps_since = 0;
        self.refresh_meters(true);
        if self.recording.is_some() {
            // The new crowd's people are not the recorded ones: their ids would mix.
            self.notes
                .push("the level restarted its crowd, so the recording stopped".into());
            self.stop_recording();
        }
    }

    /// How many world steps (at `SIM_RATE`) make one crowd step: 1 at the level's default
    /// 60 Hz, 2 at `crowd.tick_hz: 30`.
    pub fn crowd_every(&self) -> u32 {
        (SIM_RATE / f64::from(self.crowd_tick_hz().max(1)))
            .round()
            .max(1.0) as u32
    }

    /// How many times a simulated second the crowd steps.
    pub fn crowd_tick_hz(&self) -> u32 {
        self.crowd_hz_override.unwrap_or(self.level.crowd.tick_hz)
    }

    /// Replaces the level's crowd step rate (one of `level::CROWD_TICK_RATES`), or with None
    /// goes back to it.
    pub fn set_crowd_tick_hz(&mut self, hz: Option<u32>) {
        self.crowd_hz_override = hz.filter(|hz| crate::level::CROWD_TICK_RATES.contains(hz));
        self.crowd_steps_since = 0;
    }

    /// A hot-reload result: a good level replaces the running one (the camera stays where the
    /// player put it); a bad one keeps the last good level and shows the error until fixed.
    pub fn apply_reload(&mut self, result: Result<Level, LevelError>) {
        match result {
            Ok(level) if sandbox::differs_only_in_placed(&self.level, &level) => {
                // Placed things join the running crowd: nobody restarts.
                self.reload_error = None;
                self.reload_count += 1;
                self.set_placed(level.placed);
            }
            Ok(level) if measuring::differs_only_in_measurements(&self.level, &level) => {
                self.reload_error = None;
                self.reload_count += 1;
                self.level = level;
                self.refresh_meters(false);
            }
            Ok(level) => {
                if let Some(h) = &mut self.hero {
                    h.set_level(&level);
                }
                self.capacity = crate::level::validate::max_people(&level);
                self.level = level;
                self.reload_error = None;
                self.reload_count += 1;
                self.rebuild_world();
                self.slow_settings = slowness_warnings(&self.level, self.crowd_count() as u32);
            }
            Err(e) => self.reload_error = Some(e),
        }
    }

    /// A level changed in the game's edit mode: it replaces the running level as a reload
    /// does, but is not counted as one, and an error in the file stays on screen.
    pub fn apply_edit(&mut self, level: Level) {
        let error = self.reload_error.take();
        let count = self.reload_count;
        self.apply_reload(Ok(level));
        self.reload_error = error;
        self.reload_count = count;
    }

    /// What the commands of the frames since the last call said (oldest first).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Carries out one player command.
    fn apply_action(&mut self, action: &Action) {
        match action {
            Action::TogglePause => self.clock.toggle_pause(),
            Action::SingleStep => self.clock.request_single_step(),
            Action::SlowDown => self.clock.set_time_scale(self.clock.time_scale() * 0.5),
            Action::SpeedUp => self.clock.set_time_scale(self.clock.time_scale() * 2.0),
            Action::ResetTimeScale => self.clock.set_time_scale(1.0),
            Action::ToggleCamera => self.camera.toggle_mode(),
            Action::ResetCamera => self.camera = CameraRig::from_start(&self.level.camera),
            Action::GlideToNextPoi => {
                let pois = &self.level.points_of_interest;
                if pois.is_empty() {
                    self.notes
                        .push("no points of interest in this level to glide to".into());
                } else {
                    let i = self.next_poi % pois.len();
                    let (p, n) = (pois[i].position, pois.len());
                    self.notes.push(format!(
                        "gliding to \"{}\" (point of interest {} of {n})",
                        pois[i].name,
                        i + 1
                    ));
                    self.next_poi += 1;
                    self.glide_to(glam::Vec3::new(p.x, 1.0, p.y), 18.0);
                }
            }
            Action::GlideTo(p) => {
                let d = self.camera.orbit.distance.min(30.0);
                self.notes
                    .push(format!("gliding to ({:.1}, {:.1})", p.x, p.z));
                self.glide_to(*p, d);
            }
            Action::Disturb => {
                let focus = self.camera.shadow_focus().0;
                let when = if self.clock.paused() {
                    " when the simulation runs again (paused)"
                } else {
                    ""
                };
                self.notes.push(format!(
                    "scattering people around ({:.1}, {:.1}), the camera's focus{when}",
                    focus.x, focus.z
                ));
                self.pending_disturbance = Some(glam::Vec2::new(focus.x, focus.z));
            }
            Action::ToggleFollow if self.selected_person().is_some() => {
                if let Some(i) = self.selected_person() {
                    self.toggle_follow_person(i);
                }
            }
            Action::ToggleControl => self.toggle_control(),
            Action::ToggleAlarm => self.toggle_alarm(),
            Action::ToggleRecording(area) => self.toggle_recording(*area),
            Action::ToggleFollow => {
                self.followed = None;
                if let Some(h) = &self.hero {
                    // A new follow view starts where it is clear, not eased from the last.
                    self.follow_clearance = Default::default();
                    self.gliding = false;
                    self.motion.cancel(&Motion::CameraGlide);
                    self.camera.toggle_follow(h.focus_point());
                }
            }
            Action::HeroWave => {
                if let Some(h) = &mut self.hero {
                    h.wave();
                }
            }
        }
    }

    /// One rendered frame: apply commands, move the camera, run the fixed steps due.
    pub fn frame(&mut self, frame_seconds: f64, input: &FrameInput) -> FrameSteps {
        for action in &input.actions {
            self.apply_action(action);
        }
        // Nobody may read them (the bench, a test): keep the newest few.
        let extra = self.notes.len().saturating_sub(MAX_NOTES);
        self.notes.drain(..extra);
        self.hero_intent = if self.camera.mode == crate::level::CameraMode::Follow {
            let m = input.camera.movement;
            crate::hero::controller::MoveIntent {
                direction: crate::hero::controller::camera_relative(
                    glam::Vec2::new(m.x, m.z),
                    self.camera.follow.yaw,
                ),
                run: input.camera.fast,
            }
        } else {
            Default::default()
        };
        let intent = self.hero_intent;
        if self.steer_controlled_person(intent.direction, intent.run)
            || self.followed_person().is_some()
        {
            // The keys steer the person the camera follows (or nobody), not the hero.
            self.hero_intent = Default::default();
        }
        if let (Some((centre, radius, run)), Some(h), true) = (
            self.hero_autopilot,
            &self.hero,
            self.hero_intent.direction == glam::Vec2::ZERO,
        ) {
            self.hero_intent =
                crate::hero::controller::autopilot(h.position(), centre, radius, run);
        }
        // The camera answers in wall time: it must stay usable while the world is paused, and
        // keep up with a slow renderer (a longer frame is a hitch, not movement).
        let wall_dt = if frame_seconds.is_finite() {
            frame_seconds.clamp(0.0, 0.5) as f32
        } else {
            0.0
        };
        let manual = input.camera != crate::view::camera::CameraInput::default();
        if manual && self.gliding {
            // The player took the camera: the glide stops where it is.
            self.motion.cancel(&Motion::CameraGlide);
            self.gliding = false;
        }
        self.camera.update(&input.camera, wall_dt);
        self.wall_time += wall_dt;
        if self
            .leaving
            .is_some_and(|(_, started)| self.wall_time - started >= FADE_OUT_SECONDS)
        {
            self.finish_leaving();
        }
        self.motion.tick(wall_dt);
        if self.gliding {
            if let Some(v) = self.motion.value(&Motion::CameraGlide) {
                self.camera.orbit.target = glam::Vec3::new(v[0], v[1], v[2]);
                self.camera.orbit.distance = v[3];
            }
            // The last frame copies the exact end value, then the camera is the player's again.
            self.gliding = self.motion.is_animating(&Motion::CameraGlide);
        }
        let steps = self.clock.advance(frame_seconds);
        // The camera does not move between the steps of one frame: one view serves them all.
        let view = self.sim_view();
        let started = crate::clock::Instant::now();
        for _ in 0..steps.steps {
            self.step(self.clock.step_seconds(), view);
        }
        self.clock
            .record_step_cost(steps.steps, started.elapsed().as_secs_f64());
        self.blend_crowd_pose();
        // The hero animates in simulated time: a paused game freezes its pose (and uploads).
        let mut hero_dt = steps.steps as f32 * self.clock.step_seconds();
        hero_dt += self.step_hero_alone(self.clock.frame_dropped_seconds() as f32);
        self.hero_seconds += f64::from(hero_dt);
        let followed = self.followed_person();
        if let Some(h) = &mut self.hero {
            h.look.inputs = crate::hero::look_at::LookInputs {
                camera_eye: Some(self.camera.eye()),
                waver: crate::hero::look_at::nearest_waver(
                    h.position(),
                    &self.agents.pos,
                    &self.agents.anim,
                ),
            };
            h.update(hero_dt);
            if followed.is_none() {
                self.camera.follow_target(h.focus_point(), wall_dt);
            }
        }
        if let Some(i) = self.followed_person() {
            self.camera.follow_target(self.person_focus(i), wall_dt);
        }
        self.turn_heads(hero_dt);
        if self.camera.mode == crate::level::CameraMode::Follow {
            self.keep_follow_camera_clear(wall_dt);
        }
        steps
    }

    /// Eases the heads of the people near the hero toward her face (simulated time: a paused
    /// game holds them).
    fn turn_heads(&mut self, dt: f32) {
        let face = self.hero.as_ref().map(hero_face);
        let (level, a) = (&self.level, &self.agents);
        let turns = &mut self.head_turns;
        a.on_pool(|| turns.update(&a.pos, &a.heading, |i| head_height(level, a, i), face, dt));
    }

    /// Moves the hero through simulated time the crowd had to skip (the clock dropped it): the
    /// player's own movement stays in real time when the world cannot. Sub-steps no longer
    /// than a fixed step keep its collisions as they are. Returns the seconds stepped.
    fn step_hero_alone(&mut self, seconds: f32) -> f32 {
        let Some(h) = &mut self.hero else {
            return 0.0;
        };
        let step = self.clock.step_seconds();
        if !(seconds > 0.0 && step > 0.0) {
            return 0.0;
        }
        let n = (seconds / step).ceil().max(1.0);
        for _ in 0..n as u32 {
            h.step(seconds / n, &self.hero_intent);
        }
        seconds
    }

    /// Simulated seconds the hero has lived through (the crowd's `sim_time` plus what the
    /// hero walked alone while the crowd could not keep up).
    pub fn hero_seconds(&self) -> f64 {
        self.hero_seconds
    }

    /// Places the follow camera clear of people, props and faces: pulled in when props stand
    /// between it and the hero or it would stand inside someone, lifted over heads that would
    /// come near the lens (they would fill the screen); eased back after.
    fn keep_follow_camera_clear(&mut self, dt: f32) {
        use crate::view::camera_clearance::{
            Blocker, Placement, Surroundings, CAMERA_MARGIN, FRAMED_HEAD_CLEARANCE, PERSON_RADIUS,
        };
        let follow = self.camera.follow;
        let ground = glam::Vec2::new(follow.target.x, follow.target.z);
        // Only what stands within the line's reach of the hero can block it, and heads within
        // the clearance of anywhere the camera may be placed (at most its distance away).
        let reach = follow.distance + FRAMED_HEAD_CLEARANCE.max(PERSON_RADIUS + CAMERA_MARGIN);
        let mut blockers = std::mem::take(&mut self.follow_blockers);
        blockers.clear();
        let a = &self.agents;
        blockers.extend(
            a.pos
                .iter()
                .enumerate()
                .filter(|(_, p)| p.distance_squared(ground) <= reach * reach)
                .map(|(i, &at)| Blocker::Person {
                    at,
                    head: head_height(&self.level, a, i),
                }),
        );
        blockers.extend(
            self.level
                .obstacles
                .iter()
                .filter(|o| o.shape.center().distance(ground) <= reach + o.shape.bounding_radius())
                .map(|o| Blocker::Prop {
                    shape: o.shape,
                    height: crate::scenery::furniture::effective_height(o),
                }),
        );
        let around = Surroundings {
            focus: follow.target,
            yaw: follow.yaw,
            blockers: &blockers,
        };
        let wanted = Placement {
            distance: follow.distance,
            pitch: follow.pitch,
        };
        let placed = self.follow_clearance.update(wanted, &around, dt);
        self.follow_blockers = blockers;
        self.camera.follow_reach = placed.distance;
        self.camera.follow_lift = placed.pitch;
    }

    fn step(&mut self, dt: f32, view: Option<crate::crowd::SimView>) {
        if let Some(h) = &mut self.hero {
            h.step(dt, &self.hero_intent);
        }
        self.run_alarm_events(self.sim_time, dt);
        let every = self.crowd_every();
        self.crowd_steps_since += 1;
        if self.crowd_steps_since >= every {
            self.crowd_steps_since = 0;
            self.step_crowd(dt * every as f32, every > 1, view);
            self.sim_time += dt as f64;
            self.measure_step(dt * every as f32);
        } else {
            self.sim_time += dt as f64;
        }
    }

    /// One crowd step of `dt`; `blended` keeps the pose before it for `blend_crowd_pose`.
    fn step_crowd(&mut self, dt: f32, blended: bool, view: Option<crate::crowd::SimView>) {
        if blended {
            self.agents.remember_shown();
        }
        let inputs = StepInputs {
            hero_position: self.hero.as_ref().map(|h| h.position()),
            hero_velocity: self
                .hero
                .as_ref()
                .map_or(glam::Vec2::ZERO, |h| h.controller.velocity),
            disturbance: self.pending_disturbance.take(),
            view,
            hero_waving: self.hero.as_ref().is_some_and(|h| h.is_waving()),
            hero_facing: self.hero.as_ref().map_or(glam::Vec2::Y, |h| {
                let a = h.controller.heading;
                glam::Vec2::new(-a.sin(), -a.cos())
            }),
        };
        self.agents.step(dt, &inputs);
    }

    /// Draws a crowd that steps slower than the world between its last two steps: as far
    /// between them as the world has gone since the last (one crowd step behind, so nobody is
    /// drawn where they have not been).
    fn blend_crowd_pose(&mut self) {
        let every = self.crowd_every();
        let a = &mut self.agents;
        if every > 1 {
            let alpha = self.crowd_steps_since as f32 / every as f32;
            a.blend_shown(alpha);
        } else if !a.shown.pos.is_empty() {
            a.shown.clear();
        }
    }
}

/// People popping in or shrinking away (see `Game::appear_scale`).
#[derive(Debug, Clone, Copy)]
pub struct Appear<'a> {
    leaving: Option<(usize, f32)>,
    wall_time: f32,
    until: &'a [f32],
}

impl Appear<'_> {
    /// Person i's scale now: 0 while waiting to pop in, easing to 1, and down to 0 while the
    /// crowd shrinks past them.
    pub fn scale(&self, i: usize, ease: &Easing) -> f32 {
        if let Some((keep, started)) = self.leaving {
            if i >= keep {
                let t = ((self.wall_time - started) / FADE_OUT_SECONDS).clamp(0.0, 1.0);
                return 1.0 - t * t;
            }
        }
        match self.until.get(i) {
            Some(&until) if until > self.wall_time => {
                let t = 1.0 - (until - self.wall_time) / APPEAR_SECONDS;
                ease.eval(t.clamp(0.0, 1.0)).max(0.0)
            }
            _ => 1.0,
        }
    }
}

/// How high person `i`'s eyes are: their model's height, the share of it the eyes are at, and
/// their own scale. Heads turn from there, and the follow camera keeps clear of it.
fn head_height(level: &Level, agents: &Crowd, i: usize) -> f32 {
    let h = agents
        .variant
        .get(i)
        .and_then(|v| level.crowd.models.get(v.model as usize))
        .map_or(1.7, |m| m.height);
    h * crate::crowd::head_turn::EYE_HEIGHT_SHARE * crate::view::crowd_pack::person_scale(i)
}

/// Where people look at the hero: her face, from her posed bounds (their top less a tenth of
/// her height), above where she stands.
fn hero_face(hero: &crate::hero::Hero) -> glam::Vec3 {
    let p = hero.position();
    let b = hero.world_bounds;
    let y = if b.is_empty() {
        1.55
    } else {
        b.max.y - 0.1 * (b.max.y - b.min.y)
    };
    glam::Vec3::new(p.x, y, p.y)
}

//! What the player has switched on or open, apart from the simulation: render toggles, panels.
//! The command line sets their start values (the structs are its flags, so a new flag is one
//! field here), the keys and panels change them only through `Intent`s, and `apply` is the one
//! place that carries an intent out.

use clap::{ArgAction, Args};

use crate::arg_values::{parse_frame_budget, parse_uniform_vectors};
use crate::game::{Action, Game};
use crate::hero::commands::HeroCommand;
use crate::level::LodSettings;
use crate::tween::Easing;
use crate::view::heat_map::HeatView;

/// How the frame is drawn. Outlives level reloads.
#[derive(Debug, Clone, Copy, PartialEq, Args)]
pub struct ViewSettings {
    #[arg(skip = true)]
    pub frustum_culling: bool,
    /// Near/mid/far meshes by distance; off draws everyone at full detail.
    #[arg(skip = true)]
    pub lod: bool,
    /// Tint people by level of detail: red near, green mid, blue far, yellow impostor.
    #[arg(long)]
    pub lod_colors: bool,
    /// Switch levels of detail hard (with hysteresis only) instead of cross-fading them with a
    /// dither over a band around each boundary (the level's `lod.fade`).
    #[arg(long = "no-lod-fade", action = ArgAction::SetFalse)]
    pub lod_fade: bool,
    /// Start with the naive path: one draw per person, CPU palettes, no culling, full detail.
    #[arg(long = "naive")]
    pub per_agent_draws: bool,
    /// Draw no impostors: far people keep the far mesh out to the far distance (by default
    /// people past the level's `lod.impostor` are pictures from an atlas baked at start, or
    /// read from the cache).
    #[arg(long = "no-impostors", action = ArgAction::SetFalse)]
    pub impostors: bool,
    /// Overrides the level's LOD distances (the performance panel's sliders).
    #[arg(skip)]
    pub lod_distances: Option<LodSettings>,
    /// None: follow the level's `lighting.shadows`.
    #[arg(skip)]
    pub shadows: Option<bool>,
    /// Size crowd batches as if the GPU allowed only this many vertex uniform vectors
    /// (imitates smaller GPUs: 256 is the GL 3.3 minimum, 1024 a typical desktop).
    #[arg(
        long = "max-uniform-vectors",
        value_parser = parse_uniform_vectors,
        allow_hyphen_values = true
    )]
    pub uniform_cap: Option<u32>,
    /// Start with mid and far figures drawn from the vertex animation texture (baked at start,
    /// ~50 MB) instead of the animation-matrix texture.
    #[arg(long)]
    pub vat: bool,
    /// Start in the culling debug view (F7): the world from a second camera, the player's
    /// frustum as lines, culled people in red.
    #[arg(long)]
    pub cull_view: bool,
    /// Steer everyone every step: turn off the simulation level of detail (people the camera
    /// cannot see steered every 4th step; the Tab panel's "simulation LOD").
    #[arg(long = "no-sim-lod", action = ArgAction::SetFalse)]
    pub sim_lod: bool,
    /// The frame time adaptive quality holds, in milliseconds (4 to 1000; 33.3 is 30 fps).
    #[arg(
        long = "frame-budget",
        value_name = "MS",
        default_value_t = crate::perf::adaptive::DEFAULT_FRAME_BUDGET_MS,
        value_parser = parse_frame_budget,
        allow_hyphen_values = true
    )]
    pub frame_budget_ms: f32,
    /// Draw without antialiasing (the main pass is multisampled, 4x, by default; the Tab panel
    /// switches it, adaptive quality drops it first when frames run over the budget).
    #[arg(long = "no-aa", action = ArgAction::SetFalse)]
    pub antialias: bool,
    /// Always draw at full quality: no shorter LOD distances or coarser shadows when frames run
    /// over the budget.
    #[arg(long = "no-adaptive-quality", action = ArgAction::SetFalse)]
    pub adaptive_quality: bool,
    /// The rung adaptive quality chose this frame (the best one when it is off).
    #[arg(skip)]
    pub quality: crate::perf::adaptive::Quality,
}

impl Default for ViewSettings {
    fn default() -> Self {
        ViewSettings {
            frustum_culling: true,
            lod: true,
            lod_colors: false,
            lod_fade: true,
            impostors: true,
            per_agent_draws: false,
            lod_distances: None,
            shadows: None,
            uniform_cap: None,
            vat: false,
            cull_view: false,
            sim_lod: true,
            antialias: true,
            frame_budget_ms: crate::perf::adaptive::DEFAULT_FRAME_BUDGET_MS,
            adaptive_quality: true,
            quality: Default::default(),
        }
    }
}

impl ViewSettings {
    /// The LOD distances in force: the panel's, else the level's.
    pub fn lod_settings(&self, level_lod: LodSettings) -> LodSettings {
        self.lod_distances.unwrap_or(level_lod)
    }

    /// The LOD distances drawn with: the ones in force, shortened by adaptive quality. The
    /// impostors never come nearer than the near distance in force: the near ring of people
    /// stays meshes on every rung.
    pub fn drawn_lod(&self, level_lod: LodSettings) -> LodSettings {
        let lod = self.lod_settings(level_lod);
        let q = self.quality;
        LodSettings {
            near: lod.near * q.lod_scale,
            mid: lod.mid * q.lod_scale,
            far: lod.far * q.far_scale(),
            fade: if self.lod_fade { lod.fade } else { 0.0 },
            impostor: if self.impostors {
                (lod.impostor * q.lod_scale).max(lod.near)
            } else {
                f32::INFINITY
            },
            ..lod
        }
    }

    pub fn shadows_enabled(&self, level_shadows: bool) -> bool {
        self.shadows.unwrap_or(level_shadows)
    }

    /// What the simulation LOD may treat as unseen (see `Game::sim_view`): nothing when it is
    /// off, or when the picture shows everyone (no culling, one draw per person, the culling
    /// view). Without LOD everyone in the frustum is drawn, however far.
    pub fn sim_view_policy(&self, aspect: f32, lod_far: f32) -> Option<crate::game::SimViewPolicy> {
        if !self.sim_lod || !self.frustum_culling || self.per_agent_draws || self.cull_view {
            return None;
        }
        Some(crate::game::SimViewPolicy {
            aspect,
            far: if self.lod { lod_far } else { f32::INFINITY },
        })
    }
}

/// A panel or overlay the player opens and closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Help,
    Perf,
    /// Behaviour labels above nearby people.
    AgentOverlay,
    /// The easing editor for camera glides.
    CurveEditor,
    HeroAnimation,
    HeroExpressions,
    /// The level's bounds, obstacles, points of interest, paths and spawn zones over the world.
    LevelOverlay,
    /// Dragging the level's elements with the mouse.
    EditMode,
    /// The build toolbar: placing things on the ground.
    Build,
    /// The measurement areas' and lines' live readings, and the recording's buttons.
    Measurements,
}

/// Which panels and overlays are open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Args)]
pub struct Panels {
    #[arg(skip)]
    pub help: bool,
    /// Open the performance lab panel (Tab) at start.
    #[arg(long = "perf-panel")]
    pub perf: bool,
    /// Show behaviour labels above nearby people (F3) at start.
    #[arg(long)]
    pub agent_overlay: bool,
    /// Show the camera-glide easing editor (F4) at start.
    #[arg(long)]
    pub curve_editor: bool,
    /// Open the hero's Animation (F5) and Expressions (F6) panels at start.
    #[arg(long = "hero-panels")]
    pub hero_animation: bool,
    /// Follows `--hero-panels` (see `Settings::from_flags`).
    #[arg(skip)]
    pub hero_expressions: bool,
    /// Show the level overlay (F8) at start: bounds, obstacles, points of interest with their
    /// occupancy, paths, spawn zones, exits (green open, red closed; a click opens or closes
    /// one), the hero spawn and the camera start.
    #[arg(long)]
    pub level_overlay: bool,
    /// Start in edit mode (F9): drag points of interest, spawn zones, path points, obstacles and
    /// exits; Ctrl+S writes the moved numbers into the level file.
    #[arg(long = "edit")]
    pub edit_mode: bool,
    /// Open the build toolbar (B) at start: place performers, food stands, benches, fences,
    /// bollards, planters, information boards and small stages; Ctrl+S saves them into the
    /// level file.
    #[arg(long = "build")]
    pub build: bool,
    /// Open the measurements panel (M) at start: each measurement area's density (classic and
    /// Voronoi) and mean speed, each line's flow both ways, over the last 10 s with a
    /// two-minute sparkline; buttons to record trajectories.
    #[arg(long)]
    pub measurements: bool,
    /// Start with the heat map (F2) showing `density` (people per m²), `speed` (mean m/s) or
    /// `pressure` (where an evacuation crowded people above 4 per m², and for how long).
    #[arg(long = "heat-map", value_name = "VIEW", default_value = "off", value_parser = parse_heat_view)]
    pub heat_map: HeatView,
}

/// `--heat-map`: off, density, speed or pressure.
fn parse_heat_view(text: &str) -> Result<HeatView, String> {
    match text {
        "off" => Ok(HeatView::Off),
        "density" => Ok(HeatView::Density),
        "speed" => Ok(HeatView::Speed),
        "pressure" => Ok(HeatView::Pressure),
        _ => Err(format!("`{text}`; allowed: off, density, speed, pressure")),
    }
}

impl Panels {
    fn flag(&mut self, panel: Panel) -> &mut bool {
        match panel {
            Panel::Help => &mut self.help,
            Panel::Perf => &mut self.perf,
            Panel::AgentOverlay => &mut self.agent_overlay,
            Panel::CurveEditor => &mut self.curve_editor,
            Panel::HeroAnimation => &mut self.hero_animation,
            Panel::HeroExpressions => &mut self.hero_expressions,
            Panel::LevelOverlay => &mut self.level_overlay,
            Panel::EditMode => &mut self.edit_mode,
            Panel::Build => &mut self.build,
            Panel::Measurements => &mut self.measurements,
        }
    }
}

/// The player's switches: how the frame is drawn and what is open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Args)]
pub struct Settings {
    #[command(flatten)]
    pub view: ViewSettings,
    #[command(flatten)]
    pub panels: Panels,
}

impl Settings {
    /// The start values as parsed: one flag opens both hero panels.
    pub fn from_flags(mut self) -> Settings {
        self.panels.hero_expressions |= self.panels.hero_animation;
        self
    }
}

/// A change asked for by a key or a panel.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// A simulation or camera command, passed to `Game::frame`.
    Game(Action),
    TogglePanel(Panel),
    /// The heat map: off → density → speed → pressure → off.
    CycleHeatMap,
    SetHeatMap(HeatView),
    ToggleCullView,
    SetCrowd(u32),
    SetFrustumCulling(bool),
    SetShadows(bool),
    SetLod(bool),
    SetLodColors(bool),
    SetLodFade(bool),
    SetImpostors(bool),
    SetPerAgentDraws(bool),
    SetVat(bool),
    SetCullView(bool),
    SetSimLod(bool),
    SetAntialias(bool),
    SetUniformCap(Option<u32>),
    SetLodDistances(LodSettings),
    SetGlideEasing(Easing),
    /// Clip playback and expressions, from the hero's panels.
    Hero(HeroCommand),
}

/// Carries out `intents` in order; returns the game commands among them for this frame's
/// `Game::frame`.
pub fn apply(intents: Vec<Intent>, settings: &mut Settings, game: &mut Game) -> Vec<Action> {
    let mut actions = Vec::new();
    for intent in intents {
        let view = &mut settings.view;
        match intent {
            Intent::Game(action) => actions.push(action),
            Intent::TogglePanel(panel) => {
                let flag = settings.panels.flag(panel);
                *flag = !*flag;
                if panel == Panel::Perf {
                    game.slide_perf_panel(*flag);
                }
            }
            Intent::CycleHeatMap => settings.panels.heat_map = settings.panels.heat_map.next(),
            Intent::SetHeatMap(v) => settings.panels.heat_map = v,
            Intent::ToggleCullView => view.cull_view = !view.cull_view,
            Intent::SetCrowd(n) => game.set_crowd_count(n),
            Intent::SetFrustumCulling(on) => view.frustum_culling = on,
            Intent::SetShadows(on) => view.shadows = Some(on),
            Intent::SetLod(on) => view.lod = on,
            Intent::SetLodColors(on) => view.lod_colors = on,
            Intent::SetLodFade(on) => view.lod_fade = on,
            Intent::SetImpostors(on) => view.impostors = on,
            Intent::SetPerAgentDraws(on) => view.per_agent_draws = on,
            Intent::SetVat(on) => view.vat = on,
            Intent::SetCullView(on) => view.cull_view = on,
            Intent::SetSimLod(on) => view.sim_lod = on,
            Intent::SetAntialias(on) => view.antialias = on,
            Intent::SetUniformCap(cap) => view.uniform_cap = cap,
            Intent::SetLodDistances(d) => view.lod_distances = Some(d),
            Intent::SetGlideEasing(e) => game.glide_easing = e,
            Intent::Hero(command) => {
                if let Some(h) = &mut game.hero {
                    h.command(command);
                }
            }
        }
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        settings: Settings,
    }

    #[test]
    fn flags_set_the_start_values_and_defaults_draw_everything_normally() {
        let plain = Flags::parse_from(["t"]).settings;
        assert_eq!(plain, Settings::default());
        let f = Flags::parse_from([
            "t",
            "--naive",
            "--no-sim-lod",
            "--max-uniform-vectors",
            "256",
            "--hero-panels",
            "--perf-panel",
            "--heat-map",
            "speed",
            "--edit",
        ])
        .settings;
        assert_eq!(f.panels.heat_map, HeatView::Speed);
        assert!(f.panels.edit_mode && !f.panels.level_overlay);
        let bad = Flags::try_parse_from(["t", "--heat-map", "flow"]).map(|_| ());
        assert!(bad.is_err_and(|e| e.to_string().contains("allowed: off, density, speed")));
        assert!(f.view.per_agent_draws && !f.view.sim_lod);
        assert_eq!(f.view.uniform_cap, Some(256));
        assert!(f.panels.hero_animation && f.panels.perf);
        assert!(f.view.frustum_culling && f.view.lod, "not flags: stay on");
    }

    #[test]
    fn adaptive_quality_flags_and_the_distances_it_draws_with() {
        let f = Flags::parse_from(["t", "--frame-budget", "50", "--no-adaptive-quality"]);
        assert_eq!(f.settings.view.frame_budget_ms, 50.0);
        assert!(!f.settings.view.adaptive_quality);
        assert!(Flags::try_parse_from(["t", "--frame-budget", "0"]).is_err());
        let mut v = ViewSettings::default();
        let lod = LodSettings::default();
        assert_eq!(
            v.drawn_lod(lod),
            lod,
            "full quality draws the level's distances"
        );
        v.quality = crate::perf::adaptive::LADDER[5];
        let d = v.drawn_lod(lod);
        assert_approx!(d.near, lod.near * 0.6, 1e-4);
        assert_approx!(d.mid, lod.mid * 0.6, 1e-4);
        assert_approx!(d.far, lod.far * 0.8, 1e-4, "the far distance shrinks less");
        let with_impostors = LodSettings {
            impostor: 60.0,
            ..lod
        };
        assert_approx!(v.drawn_lod(with_impostors).impostor, 36.0, 1e-4);
        // The cheapest rung would bring impostors to 18 m: the near ring (25 m) stays meshes.
        v.quality = crate::perf::adaptive::LADDER[7];
        let plaza = LodSettings {
            near: 25.0,
            impostor: 60.0,
            ..lod
        };
        assert_approx!(v.drawn_lod(plaza).near, 7.5, 1e-4);
        assert_approx!(v.drawn_lod(plaza).impostor, 25.0, 1e-4);
        let off = Flags::parse_from(["t", "--no-impostors"]).settings.view;
        assert!(!off.impostors && ViewSettings::default().impostors);
        assert_eq!(off.drawn_lod(with_impostors).impostor, f32::INFINITY);
        assert_eq!(
            v.lod_settings(lod),
            lod,
            "the player's distances stay as set"
        );
    }

    #[test]
    fn the_lod_fade_is_on_unless_the_flag_turns_it_off() {
        let lod = LodSettings::default();
        let on = Flags::parse_from(["t"]).settings.view;
        assert!(on.lod_fade);
        assert_eq!(on.drawn_lod(lod).fade, lod.fade);
        let off = Flags::parse_from(["t", "--no-lod-fade"]).settings.view;
        assert!(!off.lod_fade);
        assert_eq!(off.drawn_lod(lod).fade, 0.0, "a hard switch");
        assert_eq!(off.drawn_lod(lod).hysteresis, lod.hysteresis);
    }

    #[test]
    fn the_simulation_may_skip_unseen_people_only_when_the_picture_culls_them() {
        let mut v = ViewSettings::default();
        let p = v.sim_view_policy(1.5, 80.0).expect("on by default");
        assert_eq!((p.aspect, p.far), (1.5, 80.0));
        v.lod = false;
        assert_eq!(
            v.sim_view_policy(1.5, 80.0).map(|p| p.far),
            Some(f32::INFINITY)
        );
        for off in [
            ViewSettings {
                sim_lod: false,
                ..Default::default()
            },
            ViewSettings {
                frustum_culling: false,
                ..Default::default()
            },
            ViewSettings {
                per_agent_draws: true,
                ..Default::default()
            },
            ViewSettings {
                cull_view: true,
                ..Default::default()
            },
        ] {
            assert_eq!(off.sim_view_policy(1.5, 80.0), None, "{off:?}");
        }
    }
}

//! The window side of the hero: loads its model for the game, owns its renderer and panels,
//! and shows its warnings. A hero that cannot load leaves the plaza playable without it; a
//! level edit that names another model swaps it in place (the old one stays when the new one
//! cannot load).

use crate::clock::Instant;
use std::path::{Path, PathBuf};
use std::time::Duration;

use macroquad::prelude::get_internal_gl;

use crate::game::Game;
use crate::hero::Hero;
use crate::render::hero::{HeroRenderOptions, HeroRenderer};
use crate::settings::{Intent, Panels};
use crate::ui::hero_panels::HeroPanels;
use crate::ui::pointer::{Pointer, Rect};
use crate::ui::scale::logical_size;

/// How long the warnings box stays up after start.
const WARNINGS_SHOWN: Duration = Duration::from_secs(15);

pub struct HeroView {
    renderer: Option<HeroRenderer>,
    panels: HeroPanels,
    warnings: Vec<String>,
    /// Since when the warnings box is up (start, or the last model swap).
    started: Instant,
    asset_root: PathBuf,
    /// The level's `hero.model` the current hero was loaded from (or failed to load from).
    model: String,
    /// The level's `hero.motion` the current hero was built with.
    motion: crate::level::HeroMotion,
    /// Why there is no hero (the model did not load).
    load_error: Option<String>,
}

/// `THRONG_HERO_PALETTE=texture` forces the float-texture palette; `THRONG_MAX_VERTEX_UNIFORMS=N`
/// pretends a smaller GPU: both exercise the fallback on a machine that would not need it.
fn options_from_env() -> HeroRenderOptions {
    HeroRenderOptions {
        force_texture_palette: std::env::var("THRONG_HERO_PALETTE").is_ok_and(|v| v == "texture"),
        max_vertex_uniform_vectors: std::env::var("THRONG_MAX_VERTEX_UNIFORMS")
            .ok()
            .and_then(|v| v.parse().ok()),
    }
}

impl HeroView {
    /// Loads the level's hero model into `game` and builds its renderer.
    pub fn load(game: &mut Game, asset_root: &Path) -> HeroView {
        let model = game.level().hero.model.clone();
        let motion = game.level().hero.motion.clone();
        let mut warnings = Vec::new();
        let mut renderer = None;
        let mut load_error = None;
        match build(game, asset_root) {
            Ok((hero, r, w)) => {
                warnings = w;
                game.attach_hero(hero);
                renderer = r;
            }
            Err(e) => {
                // The model error box shows it for as long as it holds, not as a warning.
                eprintln!("throng: {e} (the level plays without a hero)");
                load_error = Some(e);
            }
        }
        HeroView {
            load_error,
            renderer,
            panels: HeroPanels::default(),
            warnings,
            started: Instant::now(),
            asset_root: asset_root.to_path_buf(),
            model,
            motion,
        }
    }

    /// After a level reload: when `hero.model` names another file (or `hero.motion` changed),
    /// rebuilds the hero where the old one stood. When the new model cannot load, the old hero stays and says why.
    pub fn sync(&mut self, game: &mut Game) {
        let wanted = game.level().hero.model.clone();
        let motion = game.level().hero.motion.clone();
        if wanted == self.model && motion == self.motion {
            return;
        }
        self.model = wanted.clone();
        self.motion = motion;
        self.started = Instant::now();
        match build(game, &self.asset_root) {
            Ok((mut hero, renderer, warnings)) => {
                if let Some(old) = game.hero.take() {
                    hero.controller.position = old.controller.position;
                    hero.controller.heading = old.controller.heading;
                }
                if let Some(old) = self.renderer.take() {
                    let gl = unsafe { get_internal_gl() };
                    old.delete(gl.quad_context);
                }
                eprintln!("throng: hero: now {wanted}");
                game.hero = Some(hero);
                self.renderer = renderer;
                self.warnings = warnings;
                self.load_error = None;
            }
            Err(w) => {
                let kept = if game.hero.is_some() {
                    "the previous hero stays"
                } else {
                    "no hero"
                };
                let w = format!("{w} ({kept})");
                eprintln!("throng: {w}");
                // With no hero the model error box says it; a kept hero gets a warning.
                if game.hero.is_none() {
                    self.load_error = Some(w);
                    self.warnings.clear();
                } else {
                    self.warnings = vec![w];
                }
            }
        }
    }

    /// The hero's renderer for this frame's passes (None: no hero drawn).
    pub fn renderer_mut(&mut self) -> Option<&mut HeroRenderer> {
        self.renderer.as_mut()
    }

    /// Why there is no hero, when there is none.
    pub fn error(&self) -> Option<&str> {
        self.load_error.as_deref()
    }

    /// The hero's panels (as `panels` says) and, for a while after start or a swap, its
    /// warnings, reading `pointer` (the panels' share of the mouse). What the user changed is
    /// pushed to `intents`, the rectangles the panels cover to `covered`.
    pub fn draw_ui(
        &mut self,
        game: &Game,
        panels: &Panels,
        pointer: Pointer,
        intents: &mut Vec<Intent>,
        covered: &mut Vec<Rect>,
    ) {
        for w in self.renderer.iter().flat_map(|r| r.warnings.iter()) {
            if !self.warnings.contains(w) {
                self.warnings.push(w.clone());
            }
        }
        let stats = self.renderer.as_ref().map(|r| r.stats).unwrap_or_default();
        let mode = self.renderer.as_ref().map(|r| r.palette_mode());
        let screen = logical_size();
        let x = screen.x - 350.0;
        let mut y = 10.0;
        self.panels.begin(pointer);
        let (show_anim, show_expr) = (panels.hero_animation, panels.hero_expressions);
        let mut commands = Vec::new();
        if let Some(h) = &game.hero {
            if show_anim {
                let height = self
                    .panels
                    .draw_animation(h, &mut commands, &stats, mode, x, y);
                covered.push(Rect {
                    x,
                    y,
                    w: 340.0,
                    h: height,
                });
                y += height + 8.0;
            }
            if show_expr {
                // Bottom-aligned when there is room, so both panels fit a 720-line window.
                let needed = crate::ui::hero_panels::expressions_height(h);
                let y = y.max(screen.y - needed - 8.0);
                let x = screen.x - 580.0;
                let max_h = screen.y - y - 8.0;
                let height = self
                    .panels
                    .draw_expressions(h, &mut commands, &stats, [x, y, max_h]);
                covered.push(Rect {
                    x,
                    y,
                    w: 570.0,
                    h: height,
                });
            }
        }
        intents.extend(commands.into_iter().map(Intent::Hero));
    }

    /// The hero's warnings (bad model data, fallbacks) while they are shown: for a while after
    /// start or a swap, and while the Animation panel is open. The HUD draws them with the other
    /// boxes that must be read.
    pub fn shown_warnings(&self, panels: &Panels) -> Vec<String> {
        if self.started.elapsed() < WARNINGS_SHOWN || panels.hero_animation {
            self.warnings.clone()
        } else {
            Vec::new()
        }
    }
}

/// Loads the level's hero model and builds its renderer; the error says why there is no hero.
fn build(
    game: &Game,
    asset_root: &Path,
) -> Result<(Hero, Option<HeroRenderer>, Vec<String>), String> {
    let level = game.level();
    let path = asset_root.join(&level.hero.model);
    let scene = crate::asset::load_file(&path).map_err(|e| format!("hero not loaded: {e}"))?;
    // Motion files are named like the model: relative to the asset root.
    let mut settings = level.hero.clone();
    for source in settings.motion.sources_mut() {
        if let crate::level::MotionSource::Clip { file, .. }
        | crate::level::MotionSource::Vrma(file) = source
        {
            *file = asset_root.join(&*file).display().to_string();
        }
    }
    let hero = Hero::new(scene, &settings, level);
    let mut warnings = hero.warnings.clone();
    for w in &warnings {
        eprintln!("throng: hero: {w}");
    }
    let gl = unsafe { get_internal_gl() };
    let renderer = match HeroRenderer::new(gl.quad_context, &hero, options_from_env()) {
        Ok(r) => {
            for w in &r.warnings {
                eprintln!("throng: hero: {w}");
            }
            warnings.extend(r.warnings.iter().cloned());
            Some(r)
        }
        Err(e) => {
            let w = format!("hero not drawn: {e}");
            eprintln!("throng: {w}");
            warnings.push(w);
            None
        }
    };
    Ok((hero, renderer, warnings))
}

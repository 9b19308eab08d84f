//! The extract step: from the simulation and the player's settings to the frame's plain-data
//! `RenderWorld`. Culling, level of detail and instance packing for the crowd, and the hero's
//! culling next to it, happen here, once per frame; the renderer only draws what it gets.

use crate::crowd_assets::loader::CrowdAssetLoader;
use crate::crowd_assets::CrowdAssets;
use crate::game::Game;
use crate::hero::Hero;
use crate::settings::ViewSettings;
use crate::tween::Easing;
use crate::view::camera::CameraRig;
use crate::view::crowd_pack::{pack_crowd, pack_naive, CrowdFrame, CrowdPackOptions, NaiveFrame};
use crate::view::cull_view::overview_camera;
use crate::view::frustum::Frustum;
use crate::view::light::{sun_view_projection, SHADOW_MAP_SIZE};
use crate::view::lod::Lod;
use crate::view::markers::{pack_markers, PackOptions, MARKER_FLOATS};
use crate::view::render_world::{
    CrowdInstances, CrowdSource, HeroFrame, MarkerPath, PeopleCounts, RenderWorld, ViewCamera,
};

/// The per-frame buffers the render world points into, kept between frames so packing does
/// not allocate once the crowd stops growing.
pub struct Extractor {
    /// The curve people pop in along when the crowd grows.
    pop_in: Easing,
    /// Each person's level of detail last frame, for hysteresis.
    lod_state: Vec<Lod>,
    skinned: CrowdFrame,
    naive: NaiveFrame,
    markers: [Vec<f32>; 3],
}

impl Default for Extractor {
    fn default() -> Self {
        Extractor {
            pop_in: Easing::parse("easeOutBack").unwrap_or(Easing::Linear),
            lod_state: Vec::new(),
            skinned: CrowdFrame::default(),
            naive: NaiveFrame::default(),
            markers: Default::default(),
        }
    }
}

/// The crowd's load-time data as the renderer takes it (None: no crowd models loaded).
pub fn crowd_source<'a>(
    loader: &'a CrowdAssetLoader,
    view: &ViewSettings,
) -> Option<CrowdSource<'a>> {
    Some(CrowdSource {
        assets: loader.assets()?,
        version: loader.version(),
        uniform_cap: view.uniform_cap,
        vat: view.vat,
        impostors: view.impostors && view.lod && !view.per_agent_draws,
    })
}

/// The framebuffer a frame is drawn into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screen {
    /// In pixels.
    pub size: (f32, f32),
    /// Width / height the cameras project with (the benchmark fixes it whatever the window).
    pub aspect: f32,
}

impl Screen {
    /// A window of `width` x `height` pixels, projected at its own shape.
    pub fn window(width: f32, height: f32) -> Screen {
        Screen {
            size: (width, height),
            aspect: width / height.max(1.0),
        }
    }
}

/// A camera rig as the passes see it on `screen`.
pub fn view_camera(rig: &CameraRig, screen: Screen) -> ViewCamera {
    let aspect = screen.aspect;
    ViewCamera {
        view_proj: rig.view_projection(aspect),
        eye: rig.eye(),
        fov_y: rig.fov_y,
        screen_size: screen.size,
    }
}

/// The hero as this frame draws it; `frustum` is the player's view (a hero outside it is not
/// drawn but still casts its shadow).
pub fn hero_frame<'a>(hero: &'a Hero, frustum: &Frustum) -> HeroFrame<'a> {
    let b = hero.world_bounds;
    let outside = !b.is_empty()
        && !frustum.contains_sphere((b.min + b.max) * 0.5, (b.max - b.min).length() * 0.5);
    HeroFrame {
        model: hero.model_matrix(),
        time: hero.time % 3600.0,
        visible: !outside,
        world_bounds: b,
        palettes: &hero.palettes,
        morphed: &hero.morphed,
        material_looks: &hero.material_looks,
    }
}

impl Extractor {
    /// Builds this frame's render world. `crowd` is the skinned crowd's assets when the GPU can
    /// draw them (None: stand-in markers).
    pub fn extract<'a>(
        &'a mut self,
        game: &'a Game,
        view: &ViewSettings,
        crowd: Option<&'a mut CrowdAssets>,
        screen: Screen,
    ) -> RenderWorld<'a> {
        let level = game.level();
        let player = view_camera(&game.camera, screen);
        // The culling debug view draws from a second camera; culling and LOD stay the player's.
        let overview = view.cull_view.then(|| overview_camera(&game.camera));
        let drawn_from = overview.as_ref().unwrap_or(&game.camera);
        let frustum = Frustum::from_view_projection(&player.view_proj);
        let (instances, people) = match crowd {
            Some(assets) => self.pack_skinned(game, view, &frustum, player.eye, assets),
            None => self.pack_markers(game, view, &frustum, player.eye),
        };
        let hero = game.hero.as_ref().map(|h| hero_frame(h, &frustum));
        let (focus, reach) = drawn_from.shadow_focus();
        // Dynamic casters (the hero) near the view widen the sun's map so their shadows fit.
        let casters: Vec<_> = hero.iter().map(|h| h.world_bounds).collect();
        let (focus, reach) = crate::hero::bounds::fit_shadow_focus(focus, reach, &casters);
        let shadow_texels = view.quality.shadow_texels.clamp(1, SHADOW_MAP_SIZE);
        RenderWorld {
            level,
            scenery_version: game.scenery_version(),
            camera: view_camera(drawn_from, screen),
            player,
            overview: overview.is_some(),
            fog_distance: (level.bounds.size().length() * 1.5).max(150.0),
            light_view_proj: sun_view_projection(
                level.lighting.sun_direction,
                focus,
                reach,
                shadow_texels,
            ),
            shadows: view.shadows_enabled(level.lighting.shadows),
            shadow_texels,
            antialias: view.antialias && view.quality.antialias,
            marker_path: if view.per_agent_draws {
                MarkerPath::PerAgent
            } else {
                MarkerPath::Instanced
            },
            crowd: instances,
            people,
            hero,
        }
    }

    /// Culls, buckets by level of detail and packs the skinned people (or, on the naive path,
    /// samples a palette per person: everyone drawn at full detail).
    fn pack_skinned<'a>(
        &'a mut self,
        game: &Game,
        view: &ViewSettings,
        frustum: &Frustum,
        eye: glam::Vec3,
        assets: &mut CrowdAssets,
    ) -> (CrowdInstances<'a>, PeopleCounts) {
        let pop_in = &self.pop_in;
        let appear = |i| game.appear_scale(i, pop_in);
        if view.per_agent_draws {
            pack_naive(
                &game.agents,
                assets,
                appear,
                view.lod_colors,
                &mut self.naive,
            );
            // The naive path draws everyone shown, culling nothing.
            let spawning = (0..game.agents.len()).filter(|&i| appear(i) <= 0.0).count();
            let people = PeopleCounts {
                drawn: game.agents.len() - spawning,
                culled: 0,
                beyond: 0,
                spawning,
            };
            return (CrowdInstances::Naive(&self.naive), people);
        }
        let lod = view.drawn_lod(game.level().lod);
        let opts = CrowdPackOptions {
            frustum: view.frustum_culling.then_some(frustum),
            eye,
            lod: view.lod.then_some(&lod),
            lod_colors: view.lod_colors,
            show_culled: view.cull_view,
            head_turns: Some(&game.head_turns),
        };
        let shown = game.appear();
        let (lod_state, skinned) = (&mut self.lod_state, &mut self.skinned);
        let (assets, agents) = (&*assets, &game.agents);
        agents.on_pool(|| {
            pack_crowd(
                &opts,
                agents,
                assets,
                |i| shown.scale(i, pop_in),
                lod_state,
                skinned,
            )
        });
        // Only the follow camera goes where it did not choose to look at people: an orbit or
        // fly camera brought close to someone is there to see them.
        if game.camera.mode == crate::level::CameraMode::Follow {
            self.skinned.fade.near = crate::view::lod_fade::NEAR_LENS;
        }
        let c = self.skinned.counts;
        let people = PeopleCounts {
            drawn: c.visible as usize,
            culled: c.culled as usize,
            beyond: c.beyond as usize,
            spawning: c.spawning as usize,
        };
        (CrowdInstances::Skinned(&self.skinned), people)
    }

    /// Culls and packs the stand-in markers drawn when the crowd's models could not load.
    fn pack_markers<'a>(
        &'a mut self,
        game: &Game,
        view: &ViewSettings,
        frustum: &Frustum,
        eye: glam::Vec3,
    ) -> (CrowdInstances<'a>, PeopleCounts) {
        let lod = view.drawn_lod(game.level().lod);
        let opts = PackOptions {
            frustum: view.frustum_culling.then_some(frustum),
            eye,
            lod: view.lod.then_some(&lod),
            lod_colors: view.lod_colors,
        };
        let pop_in = &self.pop_in;
        let a = &game.agents;
        let (drawn_pos, drawn_heading) = a.drawn_poses();
        let appear = game.appear();
        let (lod_state, markers) = (&mut self.lod_state, &mut self.markers);
        let counts = a.on_pool(|| {
            pack_markers(
                &opts,
                drawn_pos,
                drawn_heading,
                &a.color,
                |i| appear.scale(i, pop_in),
                lod_state,
                markers,
            )
        });
        let people = PeopleCounts {
            drawn: self.markers.iter().map(Vec::len).sum::<usize>() / MARKER_FLOATS,
            culled: counts.culled,
            beyond: counts.beyond,
            spawning: counts.spawning,
        };
        (CrowdInstances::Markers(&self.markers), people)
    }
}

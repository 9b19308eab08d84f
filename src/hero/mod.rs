//! The player's character as plain data: model, clips (its own or generated humanoid ones),
//! pose, palettes, morphs, expressions and blinking, movement, MToon parameters and dynamic
//! bounds. Runs and is tested without a window; `render::hero` draws it.
//!
//! Per frame: `Game` steps the controller at the fixed rate (the crowd makes way for its
//! position), then `Hero::update(dt)` with the simulated time of that frame: expressions →
//! morph weights (version bumps only on change) → clip choice and cross-fade → pose (only when
//! time moved) → palettes (skip on an unchanged pose version) → morph rebuilds (skip on an
//! unchanged morph version) → bounds. Counters of all that are in `HeroStats`.

pub mod bounds;
pub mod commands;
pub mod constraints;
pub mod controller;
pub mod expression_binds;
pub mod expressions;
pub mod humanoid_clips;
pub mod look_at;
pub mod mixer;
pub mod mtoon;
pub mod pbr;
pub mod retarget;
pub mod spring_bones;
pub mod spring_colliders;

use crate::clock::Instant;

use glam::{Mat4, Quat, Vec2, Vec3};

use crate::anim::{MorphStateSet, MorphedPrimitive, ScenePose, SkinningPaletteSet};
use crate::asset::{Aabb, AnimationClipAsset, SceneAsset, Transform};
use crate::crowd::obstacles::ObstacleField;
use crate::level::{Bounds, HeroSettings, Level};
use controller::{HeroController, MoveIntent};
use expressions::Expressions;
use mixer::ClipMixer;
use mtoon::MToonParams;
use spring_bones::SpringBones;

/// Seconds of a cross-fade between clips.
pub const CROSS_FADE: f32 = 0.25;
/// Below this speed (m/s) the hero idles.
const IDLE_BELOW: f32 = 0.15;

/// Which clip plays for what. Indices into `Hero::clips`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClipRoles {
    pub idle: Option<usize>,
    pub walk: Option<usize>,
    pub run: Option<usize>,
    pub wave: Option<usize>,
}

/// Work done and skipped, for the panels, the benchmark and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HeroStats {
    pub palettes: usize,
    pub joint_matrices: usize,
    /// Palettes recomputed this frame (0 when the pose version did not change).
    pub palette_updates: usize,
    pub palette_updates_total: u64,
    /// Primitives whose morphed vertices were rebuilt this frame.
    pub morph_rebuilds: usize,
    pub morph_rebuilds_total: u64,
    pub pose_version: u64,
    /// CPU microseconds this frame.
    pub anim_us: f32,
    pub palette_us: f32,
    pub morph_us: f32,
    /// Spring bone joints, fixed steps taken this frame, CPU microseconds this frame.
    pub spring_joints: usize,
    pub spring_steps: u32,
    pub spring_us: f32,
}

/// Who picks the clip: the controller by speed, or the Animation panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipControl {
    Auto,
    Manual,
}

pub struct Hero {
    pub scene: SceneAsset,
    pub clips: Vec<AnimationClipAsset>,
    pub roles: ClipRoles,
    /// Ground speed of the walk and run clips at rate 1 (stride matching).
    pub walk_ground_speed: f32,
    pub run_ground_speed: f32,
    pub pose: ScenePose,
    bind: Vec<Transform>,
    pub palettes: SkinningPaletteSet,
    pub morphs: MorphStateSet,
    /// [node][primitive]: morphed vertices of primitives with morph targets.
    pub morphed: Vec<Vec<Option<MorphedPrimitive>>>,
    pub expressions: Expressions,
    /// Where she looks (target, gaze, eased head turn); the game sets `look.inputs`.
    pub look: look_at::LookAt,
    /// Per material: what expressions make of its colours and texture transform this frame
    /// (the renderer reads these), and the material's own values.
    pub material_looks: Vec<expression_binds::MaterialLook>,
    material_base: Vec<expression_binds::MaterialLook>,
    material_binds: bool,
    pub mixer: ClipMixer,
    /// Hair and clothes (`springs.enabled` is the toggle).
    pub springs: SpringBones,
    /// VRMC_node_constraint, applied after the animation and before the springs.
    pub constraints: constraints::NodeConstraints,
    pub control: ClipControl,
    pub controller: HeroController,
    pub materials: Vec<MToonParams>,
    /// The model faces -Z (VRM 0.x) rather than +Z (glTF, VRM 1.0).
    pub faces_neg_z: bool,
    pub warnings: Vec<String>,
    pub stats: HeroStats,
    pub world_bounds: Aabb,
    /// Seconds left of a wave started with the wave key.
    wave_left: f32,
    obstacles: ObstacleField,
    bounds: Bounds,
    /// Seconds of simulated time, for UV animation.
    pub time: f32,
}

fn find_named(clips: &[AnimationClipAsset], words: &[&str]) -> Option<usize> {
    clips.iter().position(|c| {
        let n = c.name.to_ascii_lowercase();
        words.iter().any(|w| n.contains(w))
    })
}

/// What the expression panel and blinking will lack on this model, if anything.
fn expression_warning(scene: &SceneAsset) -> Option<String> {
    let vrm = scene.vrm.as_ref()?;
    if vrm.expressions.is_empty() {
        Some(format!(
            "{}: no VRM expressions: no blinking, raw morph sliders only",
            scene.source
        ))
    } else if vrm.expression("blink").is_none() {
        Some(format!(
            "{}: no blink expression: no blinking",
            scene.source
        ))
    } else {
        None
    }
}

/// [node][primitive]: a slot for the morphed vertices of each primitive with morph targets.
fn morph_slots(scene: &SceneAsset) -> Vec<Vec<Option<MorphedPrimitive>>> {
    scene
        .nodes
        .iter()
        .map(|n| {
            n.mesh
                .and_then(|m| scene.meshes.get(m))
                .map(|m| {
                    m.primitives
                        .iter()
                        .map(|p| (!p.morph_targets.is_empty()).then(MorphedPrimitive::default))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

impl Hero {
    /// Builds the hero around an imported model. Never fails: what is missing (humanoid map,
    /// expressions, clips, textures) becomes a warning and a fallback.
    pub fn new(scene: SceneAsset, settings: &HeroSettings, level: &Level) -> Hero {
        let mut warnings: Vec<String> = scene
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", scene.source))
            .collect();
        let faces_neg_z = scene.vrm.as_ref().is_some_and(|v| v.spec_major == 0);
        let mut clips = scene.animations.clone();
        let mut roles = ClipRoles {
            idle: find_named(&clips, &["idle"]),
            walk: find_named(&clips, &["walk"]),
            run: find_named(&clips, &["run", "sprint", "jog"]),
            wave: find_named(&clips, &["wave"]),
        };
        let mut walk_ground_speed = settings.walk_speed;
        let mut run_ground_speed = settings.run_speed;
        let humanoid = scene.vrm.as_ref().map(|v| &v.humanoid);
        match humanoid {
            Some(map) if !map.is_empty() => {
                match humanoid_clips::HumanoidRig::new(&scene, map, faces_neg_z) {
                    Ok(rig) => {
                        let mut generated =
                            humanoid_clips::build(&rig, settings.walk_speed, settings.run_speed);
                        // The level's motion sources replace the authored clips where they
                        // retarget; where not, the authored clip stays and a warning says why.
                        warnings.extend(retarget::apply_motion(
                            &settings.motion,
                            &scene,
                            map,
                            &mut generated,
                        ));
                        let mut add = |slot: &mut Option<usize>, clip: &AnimationClipAsset| {
                            if slot.is_none() {
                                clips.push(clip.clone());
                                *slot = Some(clips.len() - 1);
                                true
                            } else {
                                false
                            }
                        };
                        add(&mut roles.idle, &generated.idle);
                        if add(&mut roles.walk, &generated.walk) {
                            walk_ground_speed = generated.walk_ground_speed;
                        }
                        if add(&mut roles.run, &generated.run) {
                            run_ground_speed = generated.run_ground_speed;
                        }
                        add(&mut roles.wave, &generated.wave);
                    }
                    Err(e) => warnings.push(format!("{}: {e}", scene.source)),
                }
            }
            _ if clips.is_empty() => warnings.push(format!(
                "{}: no humanoid map and no clips: the hero stands in its rest pose",
                scene.source
            )),
            _ => {}
        }
        warnings.extend(expression_warning(&scene));
        // Clips without a role fall back on whatever exists, idle first.
        let any = roles
            .idle
            .or(roles.walk)
            .or(if clips.is_empty() { None } else { Some(0) });
        roles.idle = roles.idle.or(any);
        roles.walk = roles.walk.or(roles.idle);
        roles.run = roles.run.or(roles.walk);
        let mut materials = Vec::new();
        for m in &scene.materials {
            materials.push(MToonParams::from_material(
                m,
                scene.textures.len(),
                &mut warnings,
            ));
        }
        let pose = ScenePose::new(&scene);
        let bind = scene.nodes.iter().map(|n| n.local).collect();
        let palettes = SkinningPaletteSet::new(&scene);
        let morphs = MorphStateSet::new(&scene);
        let morphed = morph_slots(&scene);
        let expressions = Expressions::new(&scene, scene.id ^ 0x9e37_79b9);
        let look = look_at::LookAt::new(&scene, faces_neg_z);
        let material_base: Vec<_> = materials
            .iter()
            .map(expression_binds::MaterialLook::of)
            .collect();
        let material_binds = expression_binds::has_material_binds(scene.vrm.as_ref());
        let heading = settings.heading_deg.to_radians();
        let mut mixer = ClipMixer::default();
        if let Some(i) = roles.idle {
            mixer.play(i, 0.0);
        }
        let stats = HeroStats {
            palettes: palettes.palette_count(),
            joint_matrices: palettes.joint_matrix_count(),
            ..Default::default()
        };
        Hero {
            clips,
            roles,
            walk_ground_speed,
            run_ground_speed,
            pose,
            bind,
            palettes,
            morphs,
            morphed,
            expressions,
            look,
            material_looks: material_base.clone(),
            material_base,
            material_binds,
            mixer,
            springs: SpringBones::new(&scene),
            constraints: constraints::NodeConstraints::new(&scene),
            control: ClipControl::Auto,
            controller: HeroController::new(
                settings.spawn,
                heading,
                settings.walk_speed,
                settings.run_speed,
            ),
            materials,
            faces_neg_z,
            warnings,
            stats,
            world_bounds: Aabb::EMPTY,
            wave_left: 0.0,
            obstacles: ObstacleField::new(level, 2.0),
            bounds: level.bounds,
            time: 0.0,
            scene,
        }
    }

    /// A new level (hot reload): obstacles, bounds and speeds; the hero stays where it is
    /// unless that is now outside the plaza.
    pub fn set_level(&mut self, level: &Level) {
        self.obstacles = ObstacleField::new(&crate::level::sandbox::world_level(level), 2.0);
        self.bounds = level.bounds;
        self.controller.walk_speed = level.hero.walk_speed;
        self.controller.run_speed = level.hero.run_speed;
        if !level.bounds.contains(self.controller.position) {
            self.controller.position = level.hero.spawn;
            self.springs.reset();
        }
    }

    /// One fixed simulation step of movement.
    pub fn step(&mut self, dt: f32, intent: &MoveIntent) {
        self.controller
            .step(dt, intent, &self.obstacles, &self.bounds);
    }

    /// Holds `clip` at time `t` under manual control and applies the pose: a still frame for
    /// comparisons and pictures.
    pub fn freeze_at(&mut self, clip: usize, t: f32) {
        self.control = ClipControl::Manual;
        self.mixer.play(clip, 0.0);
        self.mixer.set_rate(1.0);
        self.mixer.seek(t);
        self.mixer.pause();
        self.update(0.0);
    }

    /// Starts the wave (it plays once, then the controller takes over again).
    pub fn wave(&mut self) {
        if let Some(w) = self.roles.wave {
            self.wave_left = self.clips[w].duration;
            if self.control == ClipControl::Auto {
                self.mixer.set_looping(true);
                self.mixer.play(w, CROSS_FADE);
                self.mixer.set_rate(1.0);
            }
        }
    }

    pub fn is_waving(&self) -> bool {
        self.wave_left > 0.0
    }

    /// The model's placement: position on the ground, turned to the heading (VRM 0.x models
    /// already face -Z, the heading's zero).
    pub fn model_matrix(&self) -> Mat4 {
        let p = self.controller.position;
        let turn = self.controller.heading
            + if self.faces_neg_z {
                0.0
            } else {
                std::f32::consts::PI
            };
        Mat4::from_rotation_translation(Quat::from_rotation_y(turn), Vec3::new(p.x, 0.0, p.y))
    }

    /// Picks the clip for the current speed (auto mode) and its rate, so the feet keep pace.
    fn choose_clip(&mut self, dt: f32) {
        if self.control != ClipControl::Auto {
            return;
        }
        let speed = self.controller.speed();
        if self.wave_left > 0.0 {
            self.wave_left -= dt;
            if speed < IDLE_BELOW {
                return;
            }
            self.wave_left = 0.0;
        }
        let walk_top = self.controller.walk_speed;
        let (clip, rate) = if speed < IDLE_BELOW {
            (self.roles.idle, 1.0)
        } else if speed < (walk_top + self.controller.run_speed) * 0.5 {
            (self.roles.walk, speed / self.walk_ground_speed.max(1e-3))
        } else {
            (self.roles.run, speed / self.run_ground_speed.max(1e-3))
        };
        if let Some(c) = clip {
            self.mixer.set_looping(true);
            self.mixer.play(c, CROSS_FADE);
            // Up to 4x: a small hero on a retargeted human-sized gait needs quick steps.
            self.mixer.set_rate(rate.clamp(0.3, 4.0));
        }
    }

    /// One rendered frame advancing `dt` seconds of simulated time (0 while the game is paused).
    pub fn update(&mut self, dt: f32) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        self.time += dt;
        let t0 = Instant::now();
        self.choose_clip(dt);
        let fresh = match self
            .mixer
            .update(dt, &self.clips, &self.bind, &mut self.pose)
        {
            Ok(fresh) => fresh,
            Err(e) => {
                self.warn_once(format!("animation: {e}"));
                false
            }
        };
        // Look-at after the clip (it turns the clip's head) and before the expressions (it
        // feeds the look expressions) and the palettes.
        let idle = self.controller.speed() < IDLE_BELOW;
        let model = self.model_matrix();
        self.look
            .update(dt, &self.scene, &mut self.pose, fresh, &model, idle);
        self.expressions.look_weights = self.look.weights;
        self.expressions.apply(dt, &self.scene, &mut self.morphs);
        if let (true, Some(vrm)) = (self.material_binds, &self.scene.vrm) {
            expression_binds::compose(
                &self.material_base,
                vrm,
                &self.expressions.applied,
                &mut self.material_looks,
            );
        }
        // Constraints after the animation and before the springs (the VRM 1.0 order), so a
        // spring hanging from a twist bone swings from where the constraint put it.
        self.constraints.apply(&self.scene, &mut self.pose);
        let ts = Instant::now();
        // Springs read the animated pose and write their joints' rotations before palettes.
        let model = self.model_matrix();
        self.springs.update(dt, &model, &mut self.pose);
        let t1 = Instant::now();
        match self.palettes.update(&self.scene, &self.pose) {
            Ok(()) => {}
            Err(e) => self.warn_once(format!("skinning: {e}")),
        }
        let t2 = Instant::now();
        let mut rebuilds = 0;
        for (ni, prims) in self.morphed.iter_mut().enumerate() {
            let (Some(state), Some(mesh)) = (
                self.morphs.get(ni),
                self.scene.nodes[ni]
                    .mesh
                    .and_then(|m| self.scene.meshes.get(m)),
            ) else {
                continue;
            };
            for (pi, slot) in prims.iter_mut().enumerate() {
                if let (Some(mp), Some(prim)) = (slot.as_mut(), mesh.primitives.get(pi)) {
                    rebuilds += mp.update(prim, state) as usize;
                }
            }
        }
        let t3 = Instant::now();
        self.world_bounds = bounds::world_bounds(
            &self.scene,
            &self.pose,
            &self.palettes,
            &self.morphed,
            &self.model_matrix(),
        );
        let s = &mut self.stats;
        s.palette_updates = self.palettes.last_upload_count();
        s.palette_updates_total += s.palette_updates as u64;
        s.morph_rebuilds = rebuilds;
        s.morph_rebuilds_total += rebuilds as u64;
        s.pose_version = self.pose.version();
        let us = |a: Instant, b: Instant| (b - a).as_secs_f32() * 1e6;
        s.anim_us = us(t0, ts);
        s.spring_us = us(ts, t1);
        s.spring_joints = self.springs.joint_count();
        s.spring_steps = self.springs.stats.steps;
        s.palette_us = us(t1, t2);
        s.morph_us = us(t2, t3);
    }

    fn warn_once(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            eprintln!("throng: hero: {w}");
            self.warnings.push(w);
        }
    }

    /// Where the follow camera looks: about chest height.
    pub fn focus_point(&self) -> Vec3 {
        let p = self.controller.position;
        let h = if self.world_bounds.is_empty() {
            1.0
        } else {
            (self.world_bounds.max.y - self.world_bounds.min.y).clamp(0.5, 3.0) * 0.7
        };
        Vec3::new(p.x, h, p.y)
    }

    pub fn position(&self) -> Vec2 {
        self.controller.position
    }
}

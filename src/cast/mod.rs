//! The crowd's cast: every body model of a level turned, once at load, into what the instanced
//! renderer draws — near/mid/far meshes per body, props per skeleton, the animation-matrix
//! texture with each activity's clip rows, and a conservative bounding sphere per body.
//! Plain data: built and tested without a window.

pub mod clips;
pub mod lod;
pub mod mesh;
pub mod props;
pub mod vat;

use std::fmt;
use std::path::Path;

use glam::{Mat4, Vec3};

use crate::anim::anim_texture::{AnimTexture, ClipRows};
use crate::anim::ClipSampler;
use crate::asset::{Aabb, AnimationClipAsset, SceneAsset};
use crate::crowd::anim::{AnimState, ClipKind};
use crate::level::{CrowdModel, Level, PropKind};
use mesh::{figure_parts, FigureMesh};
use props::{build_prop, prop_bones, prop_visible_at, BoneAnchor, PROP_KINDS};

/// Frames per second the clips are baked at. Frames are interpolated in the shader, so 30 is
/// smooth for walking people and keeps the texture small.
pub const BAKE_FPS: f32 = 30.0;

/// Materials painted with a per-person skin tone when the level does not list them.
const DEFAULT_SKIN: &[&str] = &["skin", "face"];

/// Materials tinted by a person's clothing colour when the level does not list them.
const DEFAULT_TINTED: &[&str] = &[
    "shirt", "clothes", "vest", "top", "jacket", "dress", "coat", "sweater", "hoodie",
];

#[derive(Debug, Clone, PartialEq)]
pub struct CastError(pub String);

impl fmt::Display for CastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One drawable part: a body or a prop, with a mesh per level of detail (None: not drawn there).
#[derive(Debug, Clone)]
pub struct Submesh {
    pub name: String,
    pub lods: [Option<FigureMesh>; 3],
}

/// A body model: which submesh draws it, where its clips live, how big it is.
#[derive(Debug, Clone)]
pub struct Body {
    pub name: String,
    pub submesh: usize,
    /// Clip rows per activity, indexed like `ClipKind::ALL`.
    pub clips: [ClipRows; 7],
    /// Model units per metre of the figure.
    pub units_per_metre: f32,
    /// Bounding sphere in metres around (0, centre_height, 0) of the figure standing at the
    /// origin: covers every baked frame of every clip, props included, at any heading.
    pub centre_height: f32,
    pub radius: f32,
    /// Submesh of each prop kind for this body's skeleton (None: the rig lacks the bone).
    pub props: [Option<usize>; 6],
    /// The model's +Z faces forward; the angle that turns it to the game's heading 0 (-Z).
    pub facing_offset: f32,
}

/// Each body's clips and a sampler over its skeleton, for palettes sampled on the CPU (the
/// naive yardstick path and tests).
pub struct BodyClips {
    pub sampler: ClipSampler,
    /// Indexed like `ClipKind::ALL` (authored gestures included).
    pub clips: Vec<AnimationClipAsset>,
}

pub struct CrowdCast {
    pub bodies: Vec<Body>,
    pub submeshes: Vec<Submesh>,
    pub texture: AnimTexture,
    /// Per variant group: the prop kind index of each bit of `Variant::props`.
    pub group_props: Vec<Vec<usize>>,
    /// Problems that have a fallback (a missing clip played as idle, a prop a rig cannot hold).
    pub warnings: Vec<String>,
    pub cpu: Vec<BodyClips>,
}

impl CrowdCast {
    /// Loads every crowd model of `level` (paths relative to `asset_root`). `label` names the
    /// level file in messages.
    pub fn load(level: &Level, asset_root: &Path, label: &str) -> Result<CrowdCast, CastError> {
        let mut scenes = Vec::new();
        for (i, m) in level.crowd.models.iter().enumerate() {
            let path = asset_root.join(&m.path);
            let scene = crate::asset::load_file(&path).map_err(|e| {
                CastError(format!(
                    "{label}: crowd.models[{i}] `{}` ({}): {e}",
                    m.name, m.path
                ))
            })?;
            scenes.push(scene);
        }
        Self::from_scenes(level, &scenes, label)
    }

    /// Builds the cast from already imported scenes, one per `level.crowd.models` entry.
    pub fn from_scenes(
        level: &Level,
        scenes: &[SceneAsset],
        label: &str,
    ) -> Result<CrowdCast, CastError> {
        let mut cast = CrowdCast {
            bodies: Vec::new(),
            submeshes: Vec::new(),
            texture: AnimTexture::new(0),
            group_props: group_prop_table(level),
            warnings: Vec::new(),
            cpu: Vec::new(),
        };
        let max_joints = scenes
            .iter()
            .filter_map(|s| s.skins.first().map(|k| k.joints.len()))
            .max()
            .unwrap_or(0);
        cast.texture = AnimTexture::new(max_joints as u32);
        // Props are shared by bodies whose baked idle rows coincide (the same skeleton).
        let mut prop_sets: Vec<(u32, [Option<usize>; 6])> = Vec::new();
        for (i, (model, scene)) in level.crowd.models.iter().zip(scenes).enumerate() {
            let field = format!(
                "{label}: crowd.models[{i}] `{}` ({})",
                model.name, model.path
            );
            let body = cast.add_body(model, scene, &field, &mut prop_sets)?;
            cast.bodies.push(body);
        }
        Ok(cast)
    }

    fn add_body(
        &mut self,
        model: &CrowdModel,
        scene: &SceneAsset,
        field: &str,
        prop_sets: &mut Vec<(u32, [Option<usize>; 6])>,
    ) -> Result<Body, CastError> {
        let fail = |msg: String| CastError(format!("{field}: {msg}"));
        let Some((mesh_node, skin)) = scene
            .nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| Some((i, n.skin?)).filter(|_| n.mesh.is_some()))
        else {
            return Err(fail(
                "has no skinned mesh; a crowd model needs a skin and animation clips".into(),
            ));
        };
        if scene.animations.is_empty() {
            return Err(fail(
                "has no animation clips; a crowd model needs at least an idle or walk clip".into(),
            ));
        }
        let skin_asset = &scene.skins[skin];
        let joints = skin_asset.joints.len() as u32;
        if joints > self.texture.joints {
            return Err(fail(format!(
                "{joints} joints do not fit the animation texture row ({} joints)",
                self.texture.joints
            )));
        }
        let tinted_names: Vec<String> = match &model.tint_materials {
            Some(list) => list.iter().map(|s| s.to_ascii_lowercase()).collect(),
            None => DEFAULT_TINTED.iter().map(|s| s.to_string()).collect(),
        };
        let skin_names: Vec<String> = match &model.skin_materials {
            Some(list) => list.iter().map(|s| s.to_ascii_lowercase()).collect(),
            None => DEFAULT_SKIN.iter().map(|s| s.to_string()).collect(),
        };
        let parts = figure_parts(scene, skin, &|name| {
            let lower = name.to_ascii_lowercase();
            if tinted_names.contains(&lower) {
                mesh::CLOTHING
            } else if skin_names.contains(&lower) {
                mesh::SKIN
            } else {
                mesh::KEEP
            }
        });
        if parts.is_empty() {
            return Err(fail("its skinned mesh has no triangles".into()));
        }
        let listed = [
            ("tint_materials", &model.tint_materials),
            ("skin_materials", &model.skin_materials),
        ];
        for (key, list) in listed {
            for name in list.iter().flatten() {
                if !parts.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
                    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
                    return Err(fail(format!(
                        "{key}: no material named `{name}`; materials: {}",
                        names.join(", ")
                    )));
                }
            }
        }

        // Clips: the level's choice, else a conventional name, else an authored gesture,
        // else idle (with a warning).
        let mut sampler =
            ClipSampler::for_whole_skin(scene, mesh_node).map_err(|e| fail(e.to_string()))?;
        let by_name = |name: &str| scene.animations.iter().find(|c| c.name == name);
        let mut chosen: Vec<Option<AnimationClipAsset>> = Vec::new();
        for kind in ClipKind::ALL {
            let key = clips::kind_key(kind);
            let clip = if let Some(name) = model.clips.get(key) {
                match by_name(name) {
                    Some(c) => Some(c.clone()),
                    None => {
                        let names: Vec<&str> =
                            scene.animations.iter().map(|c| c.name.as_str()).collect();
                        return Err(fail(format!(
                            "clips.{key}: no clip named `{name}`; clips: {}",
                            names.join(", ")
                        )));
                    }
                }
            } else {
                clips::default_names(kind)
                    .iter()
                    .find_map(|n| by_name(n))
                    .cloned()
            };
            chosen.push(clip);
        }
        let idle = chosen[0]
            .clone()
            .or_else(|| chosen[1].clone())
            .unwrap_or_else(|| scene.animations[0].clone());
        let mut clip_rows = Vec::new();
        let mut clip_assets = Vec::new();
        for (k, kind) in ClipKind::ALL.into_iter().enumerate() {
            let clip = match chosen[k].take() {
                Some(c) => c,
                None => match clips::authored_clip(scene, &idle, kind) {
                    Some(c) => c,
                    None => {
                        if kind != ClipKind::Idle {
                            self.warnings.push(format!(
                                "{field}: no {} clip; it plays `{}` instead",
                                clips::kind_key(kind),
                                idle.name
                            ));
                        }
                        idle.clone()
                    }
                },
            };
            let rows = self
                .texture
                .add_clip(&mut sampler, &clip, BAKE_FPS, clips::loops(kind))
                .map_err(|e| fail(format!("baking `{}`: {e}", clip.name)))?;
            clip_rows.push(rows);
            clip_assets.push(clip);
        }
        let clips: [ClipRows; 7] = std::array::from_fn(|k| clip_rows[k]);

        // Size: the bind-pose height of the body is `model.height` metres.
        let mut bind = Aabb::EMPTY;
        for p in &parts {
            for v in &p.mesh.vertices {
                bind.extend(v.position);
            }
        }
        let bind_height = (bind.max.y - bind.min.y).max(1e-4);
        let units_per_metre = bind_height / model.height.max(0.05);

        let submesh = self.submeshes.len();
        self.submeshes.push(Submesh {
            name: model.name.clone(),
            lods: [
                Some(lod::build_lod(&parts, lod::NEAR)),
                Some(lod::build_lod(&parts, lod::MID)),
                Some(lod::build_lod(&parts, lod::FAR)),
            ],
        });

        // Props for this skeleton, modelled around the bones in the idle pose.
        let idle_row = clips[0].first_row;
        let props = match prop_sets.iter().find(|(row, _)| *row == idle_row) {
            Some((_, p)) => *p,
            None => {
                let made = self.add_props(scene, skin, idle_row, units_per_metre, model);
                prop_sets.push((idle_row, made));
                made
            }
        };

        // Conservative bounds: every joint's vertex box (and every prop) through every frame.
        let mut reach = Aabb::EMPTY;
        let prop_meshes: Vec<&FigureMesh> = props
            .iter()
            .flatten()
            .filter_map(|&s| self.submeshes[s].lods[0].as_ref())
            .collect();
        let mut seen_rows = Vec::new();
        for rows in &clips {
            if seen_rows.contains(&rows.first_row) {
                continue;
            }
            seen_rows.push(rows.first_row);
            for f in 0..rows.frames {
                let palette: Vec<_> = (0..joints)
                    .map(|j| self.texture.matrix(rows.first_row + f, j))
                    .collect();
                for (j, b) in skin_asset.joint_bounds.iter().enumerate() {
                    if !b.is_empty() {
                        reach = reach.union(&b.transformed(&palette[j]));
                    }
                }
                for m in &prop_meshes {
                    for v in 0..m.vertices.len() {
                        reach.extend(m.skinned_position(v, &palette));
                    }
                }
            }
        }
        if reach.is_empty() {
            reach = bind;
        }
        let lo = reach.min / units_per_metre;
        let hi = reach.max / units_per_metre;
        let centre_height = (lo.y + hi.y) * 0.5;
        // Round the box about the vertical axis (any heading), then cover it with a sphere.
        let horizontal = [lo.x, hi.x]
            .iter()
            .flat_map(|&x| [lo.z, hi.z].map(move |z| (x * x + z * z).sqrt()))
            .fold(0.0f32, f32::max);
        let radius = (horizontal * horizontal + ((hi.y - lo.y) * 0.5).powi(2)).sqrt();
        self.cpu.push(BodyClips {
            sampler,
            clips: clip_assets,
        });
        Ok(Body {
            name: model.name.clone(),
            submesh,
            clips,
            units_per_metre,
            centre_height,
            radius,
            props,
            facing_offset: std::f32::consts::PI,
        })
    }

    fn add_props(
        &mut self,
        scene: &SceneAsset,
        skin: usize,
        idle_row: u32,
        units_per_metre: f32,
        model: &CrowdModel,
    ) -> [Option<usize>; 6] {
        let skin_asset = &scene.skins[skin];
        let mut out = [None; 6];
        for (k, kind) in PROP_KINDS.into_iter().enumerate() {
            let slot = skin_asset.joints.iter().position(|&node| {
                scene.nodes[node]
                    .name
                    .as_deref()
                    .is_some_and(|n| prop_bones(kind).contains(&n))
            });
            let Some(slot) = slot else {
                self.warnings.push(format!(
                    "crowd model `{}`: no bone to hold a {kind:?} (tried {}); it is left off",
                    model.name,
                    prop_bones(kind).join(", ")
                ));
                continue;
            };
            let skin_matrix = self.texture.matrix(idle_row, slot as u32);
            let bounds = skin_asset
                .joint_bounds
                .get(slot)
                .filter(|b| !b.is_empty())
                .map(|b| b.transformed(&skin_matrix))
                .unwrap_or_else(|| {
                    let p = skin_matrix.inverse().transform_point3(Vec3::ZERO);
                    Aabb { min: p, max: p }
                });
            let anchor = BoneAnchor {
                slot: slot as u32,
                skin_matrix,
                bounds,
            };
            let mesh = build_prop(kind, &anchor, units_per_metre);
            out[k] = Some(self.submeshes.len());
            self.submeshes.push(Submesh {
                name: format!("{} ({})", prop_name(kind), model.name),
                lods: [0, 1, 2].map(|lod| prop_visible_at(kind, lod).then(|| mesh.clone())),
            });
        }
        out
    }

    /// Re-reads the level's variant groups (they may change on hot reload without the models
    /// changing).
    pub fn refresh_variants(&mut self, level: &Level) {
        self.group_props = group_prop_table(level);
    }

    /// The palette of body `b` in animation state `anim`, sampled from the clips (not the
    /// texture) and cross-faded by blending matrices as the shader does. Skin-slot order.
    pub fn cpu_palette(
        &mut self,
        b: usize,
        anim: &AnimState,
        scratch: &mut Vec<Mat4>,
        out: &mut Vec<Mat4>,
    ) {
        let (Some(body), Some(cpu)) = (self.bodies.get(b), self.cpu.get_mut(b)) else {
            out.clear();
            return;
        };
        let k = |kind: ClipKind| ClipKind::ALL.iter().position(|&c| c == kind).unwrap_or(0);
        let time = |rows: &ClipRows, t: f32| {
            if rows.looping && rows.duration > 0.0 {
                t.rem_euclid(rows.duration)
            } else {
                t.clamp(0.0, rows.duration)
            }
        };
        let (a, bk) = (k(anim.clip_a), k(anim.clip_b));
        let ta = time(&body.clips[a], anim.time_a);
        if cpu.sampler.sample(&cpu.clips[a], ta, out).is_err() {
            out.clear();
            return;
        }
        let blend = anim.blend.clamp(0.0, 1.0);
        if blend > 0.0 {
            let tb = time(&body.clips[bk], anim.time_b);
            if cpu.sampler.sample(&cpu.clips[bk], tb, scratch).is_ok() {
                for (m, other) in out.iter_mut().zip(scratch.iter()) {
                    *m = *m * (1.0 - blend) + *other * blend;
                }
            }
        }
    }

    /// Triangles of a body at each level of detail.
    pub fn body_triangles(&self, body: usize) -> [usize; 3] {
        let lods = self
            .bodies
            .get(body)
            .and_then(|b| self.submeshes.get(b.submesh))
            .map(|s| s.lods.clone());
        [0, 1, 2].map(|l| {
            lods.as_ref()
                .and_then(|m| m[l].as_ref())
                .map_or(0, FigureMesh::triangle_count)
        })
    }
}

/// Per variant group: the prop kind index of each bit of `Variant::props`.
fn group_prop_table(level: &Level) -> Vec<Vec<usize>> {
    level
        .crowd
        .variant_groups
        .iter()
        .map(|g| g.props.iter().map(|p| props::prop_index(p.prop)).collect())
        .collect()
}

pub fn prop_name(kind: PropKind) -> &'static str {
    match kind {
        PropKind::Hat => "hat",
        PropKind::Bag => "bag",
        PropKind::Backpack => "backpack",
        PropKind::Balloon => "balloon",
        PropKind::Umbrella => "umbrella",
        PropKind::Phone => "phone",
    }
}

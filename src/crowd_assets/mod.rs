//! The crowd's render assets: every body model of a level turned, once at load, into what the
//! instanced renderer draws — near/mid/far meshes per body, props per skeleton, the animation-matrix
//! texture with each activity's clip rows, and a conservative bounding sphere per body.
//! Plain data: built and tested without a window.

pub mod attach;
pub mod clips;
pub mod impostor_cache;
pub mod impostor_layout;
pub mod loader;
pub mod lod;
pub mod look_rig;
pub mod mesh;
pub mod props;
pub mod vat_runtime;

use std::fmt;
use std::path::Path;

use glam::{Mat4, Vec3};

use crate::anim::anim_texture::{AnimTexture, ClipRows, MAX_JOINTS};
use crate::anim::ClipSampler;
use crate::asset::{Aabb, AnimationClipAsset, SceneAsset};
use crate::crowd::anim::{AnimState, ClipKind};
use crate::level::{CrowdModel, Level, PropKind};
use mesh::{figure_parts, FigureMesh, MaterialPart};
use props::{attach_to_bone, build_prop, prop_bones, prop_visible_at, BoneAnchor, PROP_KINDS};

/// Frames per second the clips are baked at. Frames are interpolated in the shader, so 30 is
/// smooth for walking people and keeps the texture small.
pub const BAKE_FPS: f32 = 30.0;

/// Materials painted with a per-person skin tone when the level does not list them. Only
/// their skin-coloured vertices take it: other colours are face details (`mesh::skin_key`).
const DEFAULT_SKIN: &[&str] = &["skin", "face"];

/// Materials tinted by a person's clothing colour when the level does not list them.
const DEFAULT_TINTED: &[&str] = &[
    "shirt", "clothes", "vest", "top", "jacket", "dress", "coat", "sweater", "hoodie",
];

#[derive(Debug, Clone, PartialEq)]
pub struct CrowdAssetsError(pub String);

impl fmt::Display for CrowdAssetsError {
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
    /// The figure's standing height in metres (the level's `height`).
    pub height: f32,
    /// Bounding sphere in metres around (0, centre_height, 0) of the figure standing at the
    /// origin: covers every baked frame of every clip, props included, at any heading.
    pub centre_height: f32,
    pub radius: f32,
    /// Submesh of each prop kind for this body's skeleton (None: the rig lacks the bone).
    pub props: [Option<usize>; 6],
    /// The model's own rigid meshes worn as variation: per `attachment_choices` group, the
    /// submesh of each option (None: nothing). A person wears `attach::choice` of each group.
    pub attachments: Vec<Vec<Option<usize>>>,
    /// The model's +Z faces forward; the angle that turns it to the game's heading 0 (-Z).
    pub facing_offset: f32,
    /// The neck and head joints that turn toward the hero (people look back).
    pub look_rig: look_rig::LookRig,
}

impl Body {
    /// The attachment submeshes person `person` wears, one per group (groups whose chosen
    /// option is "nothing" give none).
    pub fn attachments_of(&self, person: usize) -> impl Iterator<Item = usize> + '_ {
        self.attachments
            .iter()
            .enumerate()
            .filter_map(move |(g, options)| options[attach::choice(person, g, options.len())])
    }

    /// Whether submesh `s` is drawn for this body: the body itself, a prop or an attachment.
    pub fn wears(&self, s: usize) -> bool {
        self.submesh == s
            || self.props.contains(&Some(s))
            || self.attachments.iter().flatten().any(|&o| o == Some(s))
    }
}

/// Per `attachment_choices` group, per option: None for nothing, else its name and `T`.
type ChoiceGroups<T> = Vec<Vec<Option<(String, T)>>>;

/// A model's rigid meshes under its skeleton, ready to hang on their joints.
struct RigidSet {
    /// Per rigid node: the node, its joint as it stands in the idle pose, its pose-space place.
    placed: Vec<(usize, BoneAnchor, Mat4)>,
    /// Indices into `placed` that every person wears.
    always: Vec<usize>,
    /// Per `attachment_choices` group, per option: its name and indices into `placed`.
    groups: ChoiceGroups<Vec<usize>>,
}

/// Each body's clips and a sampler over its skeleton, for palettes sampled on the CPU (the
/// naive yardstick path and tests).
pub struct BodyClips {
    pub sampler: ClipSampler,
    /// Indexed like `ClipKind::ALL` (authored gestures included).
    pub clips: Vec<AnimationClipAsset>,
}

pub struct CrowdAssets {
    pub bodies: Vec<Body>,
    pub submeshes: Vec<Submesh>,
    pub texture: AnimTexture,
    /// Per variant group: the prop kind index of each bit of `Variant::props`.
    pub group_props: Vec<Vec<usize>>,
    /// Problems that have a fallback (a missing clip played as idle, a prop a rig cannot hold).
    pub warnings: Vec<String>,
    pub cpu: Vec<BodyClips>,
}

impl CrowdAssets {
    /// Loads every crowd model of `level` (paths relative to `asset_root`). `label` names the
    /// level file in messages.
    pub fn load(
        level: &Level,
        asset_root: &Path,
        label: &str,
    ) -> Result<CrowdAssets, CrowdAssetsError> {
        let mut scenes = Vec::new();
        for (i, m) in level.crowd.models.iter().enumerate() {
            let path = asset_root.join(&m.path);
            let scene = crate::asset::load_file(&path).map_err(|e| {
                CrowdAssetsError(format!(
                    "{label}: crowd.models[{i}] `{}` ({}): {e}",
                    m.name, m.path
                ))
            })?;
            scenes.push(scene);
        }
        Self::from_scenes(level, &scenes, label)
    }

    /// Builds the crowd assets from already imported scenes, one per `level.crowd.models` entry.
    pub fn from_scenes(
        level: &Level,
        scenes: &[SceneAsset],
        label: &str,
    ) -> Result<CrowdAssets, CrowdAssetsError> {
        let mut assets = CrowdAssets {
            bodies: Vec::new(),
            submeshes: Vec::new(),
            texture: AnimTexture::new(0),
            group_props: group_prop_table(level),
            warnings: Vec::new(),
            cpu: Vec::new(),
        };
        // One row holds the joints of the largest skeleton: refuse one too large for a row
        // by name, before it widens every other model's rows.
        for (i, (model, scene)) in level.crowd.models.iter().zip(scenes).enumerate() {
            let joints = scene.skins.first().map_or(0, |k| k.joints.len());
            if joints > MAX_JOINTS as usize {
                return Err(CrowdAssetsError(format!(
                    "{label}: crowd.models[{i}] `{}` ({}): its skin has {joints} joints, above \
                     the animation texture's limit of {MAX_JOINTS}",
                    model.name, model.path
                )));
            }
        }
        let max_joints = scenes
            .iter()
            .filter_map(|s| s.skins.first().map(|k| k.joints.len()))
            .max()
            .unwrap_or(0);
        assets.texture = AnimTexture::new(max_joints as u32);
        // Props are shared by bodies whose baked idle rows coincide (the same skeleton).
        let mut prop_sets: Vec<(u32, [Option<usize>; 6])> = Vec::new();
        for (i, (model, scene)) in level.crowd.models.iter().zip(scenes).enumerate() {
            let field = format!(
                "{label}: crowd.models[{i}] `{}` ({})",
                model.name, model.path
            );
            let body = assets.add_body(model, scene, &field, &mut prop_sets)?;
            assets.bodies.push(body);
        }
        Ok(assets)
    }

    fn add_body(
        &mut self,
        model: &CrowdModel,
        scene: &SceneAsset,
        field: &str,
        prop_sets: &mut Vec<(u32, [Option<usize>; 6])>,
    ) -> Result<Body, CrowdAssetsError> {
        let fail = |msg: String| CrowdAssetsError(format!("{field}: {msg}"));
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

        // Clips: the level's choice, else a conventional name, else an authored gesture,
        // else idle (with a warning). Palettes are in the scene's space, so a skinned node's
        // own transform (which glTF says to ignore) cannot tip the figure over.
        let mut sampler = ClipSampler::for_whole_skin(scene, mesh_node)
            .map_err(|e| fail(e.to_string()))?
            .in_world_space();
        let (clips, clip_assets) = self.bake_clips(model, scene, field, &mut sampler)?;
        let idle_row = clips[0].first_row;
        let (parts, option_parts) = self.figure(
            model,
            scene,
            skin,
            field,
            &clip_assets[0],
            &mut sampler,
            idle_row,
        )?;
        let (rest_palette, rest, units_per_metre) =
            rest_pose_size(&mut sampler, &parts, model, field)?;

        let submesh = self.submeshes.len();
        self.submeshes.push(Submesh {
            name: model.name.clone(),
            lods: [
                Some(lod::build_lod(&parts, lod::NEAR)),
                Some(lod::build_lod(&parts, lod::MID)),
                Some(lod::build_lod(&parts, lod::FAR)),
            ],
        });
        let attachments = self.add_attachments(model, option_parts, &rest_palette, units_per_metre);

        // Per joint, the bind-space box of the body's vertices it moves (rigid parts included).
        let mut joint_boxes = vec![Aabb::EMPTY; joints as usize];
        if let Some(m) = &self.submeshes[submesh].lods[0] {
            add_joint_boxes(&mut joint_boxes, m);
        }

        // Props for this skeleton, modelled around the bones in the idle pose.
        let props = match prop_sets.iter().find(|(row, _)| *row == idle_row) {
            Some((_, p)) => *p,
            None => {
                let made =
                    self.add_props(scene, skin, idle_row, units_per_metre, model, &joint_boxes);
                prop_sets.push((idle_row, made));
                made
            }
        };

        let (centre_height, radius) = self.conservative_bounds(
            joint_boxes,
            &attachments,
            &props,
            &clips,
            joints,
            rest,
            units_per_metre,
        );
        self.cpu.push(BodyClips {
            sampler,
            clips: clip_assets,
        });
        Ok(Body {
            name: model.name.clone(),
            submesh,
            clips,
            units_per_metre,
            height: model.height,
            centre_height,
            radius,
            props,
            attachments,
            facing_offset: std::f32::consts::PI,
            look_rig: look_rig::LookRig::find(scene, skin),
        })
    }

    /// Each activity's clip baked into the animation texture: its rows, and the clips as
    /// played (for the CPU palettes of the naive path).
    fn bake_clips(
        &mut self,
        model: &CrowdModel,
        scene: &SceneAsset,
        field: &str,
        sampler: &mut ClipSampler,
    ) -> Result<([ClipRows; 7], Vec<AnimationClipAsset>), CrowdAssetsError> {
        let fail = |msg: String| CrowdAssetsError(format!("{field}: {msg}"));
        let by_name = |name: &str| scene.animations.iter().find(|c| c.name == name);
        let mut chosen: Vec<Option<AnimationClipAsset>> = Vec::new();
        for kind in ClipKind::ALL {
            let key = kind.key();
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
                                kind.key(),
                                idle.name
                            ));
                        }
                        idle.clone()
                    }
                },
            };
            let rows = self
                .texture
                .add_clip(sampler, &clip, BAKE_FPS, clips::loops(kind))
                .map_err(|e| fail(format!("baking `{}`: {e}", clip.name)))?;
            clip_rows.push(rows);
            clip_assets.push(clip);
        }
        let clips: [ClipRows; 7] = std::array::from_fn(|k| clip_rows[k]);
        Ok((clips, clip_assets))
    }

    /// The figure: skinned primitives, then the rigid meshes hanging from its joints (always
    /// worn, merged into the figure; or options per choice group, returned apart).
    #[allow(clippy::too_many_arguments)]
    fn figure(
        &mut self,
        model: &CrowdModel,
        scene: &SceneAsset,
        skin: usize,
        field: &str,
        idle_clip: &AnimationClipAsset,
        sampler: &mut ClipSampler,
        idle_row: u32,
    ) -> Result<(Vec<MaterialPart>, ChoiceGroups<Vec<MaterialPart>>), CrowdAssetsError> {
        let fail = |msg: String| CrowdAssetsError(format!("{field}: {msg}"));
        let tinted_names: Vec<String> = match &model.tint_materials {
            Some(list) => list.iter().map(|s| s.to_ascii_lowercase()).collect(),
            None => DEFAULT_TINTED.iter().map(|s| s.to_string()).collect(),
        };
        let skin_names: Vec<String> = match &model.skin_materials {
            Some(list) => list.iter().map(|s| s.to_ascii_lowercase()).collect(),
            None => DEFAULT_SKIN.iter().map(|s| s.to_string()).collect(),
        };
        let tint_class = |name: &str| {
            let lower = name.to_ascii_lowercase();
            if tinted_names.contains(&lower) {
                mesh::CLOTHING
            } else if skin_names.contains(&lower) {
                mesh::SKIN
            } else {
                mesh::KEEP
            }
        };
        let mut notes = Vec::new();
        let mut parts = figure_parts(scene, skin, &tint_class, &mut notes);
        let rigid = self
            .rigid_meshes(scene, skin, model, idle_clip, sampler, idle_row)
            .map_err(fail)?;
        let rigid_parts_of = |nodes: &[usize], notes: &mut Vec<String>| {
            let mut out = Vec::new();
            for &k in nodes {
                let (node, anchor, place) = &rigid.placed[k];
                let mut more = mesh::rigid_parts(scene, *node, &tint_class, notes);
                for p in &mut more {
                    attach_to_bone(&mut p.mesh, anchor, *place);
                }
                mesh::merge_parts(&mut out, more);
            }
            out
        };
        let worn = rigid_parts_of(&rigid.always, &mut notes);
        mesh::merge_parts(&mut parts, worn);
        let skin_key = mesh::skin_key(&parts);
        if let Some(key) = skin_key {
            mesh::mark_face_features(&mut parts, key);
        }
        let mut option_parts: ChoiceGroups<Vec<MaterialPart>> = rigid
            .groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|o| {
                        o.as_ref()
                            .map(|(name, nodes)| (name.clone(), rigid_parts_of(nodes, &mut notes)))
                    })
                    .collect()
            })
            .collect();
        for (_, oparts) in option_parts.iter_mut().flatten().flatten() {
            if let Some(key) = skin_key {
                mesh::mark_face_features(oparts, key);
            }
        }
        self.warnings
            .extend(notes.into_iter().map(|n| format!("{field}: {n}")));
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
        Ok((parts, option_parts))
    }

    /// Attachment options: a submesh each, near/mid/far like props (small ones are left out
    /// far away). Per choice group, the submesh of each option (None: nothing).
    fn add_attachments(
        &mut self,
        model: &CrowdModel,
        option_parts: ChoiceGroups<Vec<MaterialPart>>,
        rest_palette: &[Mat4],
        units_per_metre: f32,
    ) -> Vec<Vec<Option<usize>>> {
        let mut attachments = Vec::new();
        for group in option_parts {
            let mut subs = Vec::new();
            for option in group {
                let Some((name, oparts)) = option else {
                    subs.push(None);
                    continue;
                };
                let mut size = Aabb::EMPTY;
                for p in &oparts {
                    for v in 0..p.mesh.vertices.len() {
                        size.extend(p.mesh.skinned_position(v, rest_palette));
                    }
                }
                let longest = (size.max - size.min).max_element() / units_per_metre;
                let far_too = longest >= attach::FAR_MIN_METRES;
                let lods = [lod::NEAR, lod::MID, lod::FAR].map(|recipe| {
                    let mut m = lod::build_lod(&oparts, recipe);
                    mesh::limit_influences(&mut m, 1);
                    m
                });
                let [near, mid, far] = lods;
                subs.push(Some(self.submeshes.len()));
                self.submeshes.push(Submesh {
                    name: format!("{name} ({})", model.name),
                    lods: [Some(near), Some(mid), far_too.then_some(far)],
                });
            }
            attachments.push(subs);
        }
        attachments
    }

    /// Conservative bounds: every joint's vertex box (body and every attachment option) and
    /// every prop vertex through every frame, as (centre height, radius) in metres.
    #[allow(clippy::too_many_arguments)]
    fn conservative_bounds(
        &self,
        mut joint_boxes: Vec<Aabb>,
        attachments: &[Vec<Option<usize>>],
        props: &[Option<usize>; 6],
        clips: &[ClipRows; 7],
        joints: u32,
        rest: Aabb,
        units_per_metre: f32,
    ) -> (f32, f32) {
        for &s in attachments.iter().flatten().flatten() {
            if let Some(m) = &self.submeshes[s].lods[0] {
                add_joint_boxes(&mut joint_boxes, m);
            }
        }
        let mut reach = Aabb::EMPTY;
        let prop_meshes: Vec<&FigureMesh> = props
            .iter()
            .flatten()
            .filter_map(|&s| self.submeshes[s].lods[0].as_ref())
            .collect();
        let mut seen_rows = Vec::new();
        for rows in clips {
            if seen_rows.contains(&rows.first_row) {
                continue;
            }
            seen_rows.push(rows.first_row);
            for f in 0..rows.frames {
                let palette: Vec<_> = (0..joints)
                    .map(|j| self.texture.matrix(rows.first_row + f, j))
                    .collect();
                for (j, b) in joint_boxes.iter().enumerate() {
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
            reach = rest;
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
        (centre_height, radius)
    }

    /// The model's rigid meshes under the skeleton, each placed on its joint as it stands in
    /// the idle pose, sorted into always worn and the level's choice groups. Err: a name the
    /// model lacks (the message lists what it has).
    fn rigid_meshes(
        &self,
        scene: &SceneAsset,
        skin: usize,
        model: &CrowdModel,
        idle: &AnimationClipAsset,
        sampler: &mut ClipSampler,
        idle_row: u32,
    ) -> Result<RigidSet, String> {
        let rigid = attach::rigid_nodes(scene, skin);
        let resolve = |key: String, name: &str| -> Result<Vec<usize>, String> {
            let found = attach::find(scene, &rigid, name);
            if found.is_empty() {
                let names: Vec<String> =
                    rigid.iter().map(|r| attach::label(scene, r.node)).collect();
                return Err(format!(
                    "{key}: no mesh named `{name}` hangs from the skeleton; {}",
                    if names.is_empty() {
                        "the model has no such meshes".to_string()
                    } else {
                        format!("meshes: {}", names.join(", "))
                    }
                ));
            }
            Ok(found)
        };
        let mut named = vec![false; rigid.len()];
        let mut groups = Vec::new();
        for (g, group) in model.attachment_choices.iter().enumerate() {
            let mut options = Vec::new();
            for (k, name) in group.iter().enumerate() {
                if name.is_empty() {
                    options.push(None);
                    continue;
                }
                match resolve(format!("attachment_choices[{g}][{k}]"), name) {
                    Ok(found) => {
                        for &f in &found {
                            named[f] = true;
                        }
                        options.push(Some((name.clone(), found)));
                    }
                    Err(msg) => return Err(msg),
                }
            }
            groups.push(options);
        }
        for (k, name) in model.hidden_meshes.iter().enumerate() {
            match resolve(format!("hidden_meshes[{k}]"), name) {
                Ok(found) => found.iter().for_each(|&f| named[f] = true),
                Err(msg) => return Err(msg),
            }
        }
        // Where each node stands in the idle pose's first frame, and its joint's skinning
        // matrix there (the texture's idle row).
        let mut palette = Vec::new();
        sampler
            .sample(idle, 0.0, &mut palette)
            .map_err(|e| format!("idle pose: {e}"))?;
        let pose = sampler.pose();
        let placed = rigid
            .iter()
            .map(|r| {
                let anchor = BoneAnchor {
                    slot: r.slot,
                    skin_matrix: self.texture.matrix(idle_row, r.slot),
                    bounds: Aabb::EMPTY,
                };
                let place = pose.world(r.node).copied().unwrap_or(Mat4::IDENTITY);
                (r.node, anchor, place)
            })
            .collect();
        Ok(RigidSet {
            placed,
            always: (0..rigid.len()).filter(|&k| !named[k]).collect(),
            groups,
        })
    }

    fn add_props(
        &mut self,
        scene: &SceneAsset,
        skin: usize,
        idle_row: u32,
        units_per_metre: f32,
        model: &CrowdModel,
        joint_boxes: &[Aabb],
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
            let bounds = joint_boxes
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

/// Size: the figure standing in its rest pose (the nodes' own transforms) is `model.height`
/// metres tall, always-worn attachments (a helmet) included. Returns the rest palette, the
/// rest-pose box and the model's units per metre.
fn rest_pose_size(
    sampler: &mut ClipSampler,
    parts: &[MaterialPart],
    model: &CrowdModel,
    field: &str,
) -> Result<(Vec<Mat4>, Aabb, f32), CrowdAssetsError> {
    let fail = |msg: String| CrowdAssetsError(format!("{field}: {msg}"));
    let mut rest_palette = Vec::new();
    let rest_clip = AnimationClipAsset {
        name: "rest pose".into(),
        duration: 0.0,
        source_channel_count: 0,
        node_channels: Vec::new(),
        morph_channels: Vec::new(),
    };
    sampler
        .sample(&rest_clip, 0.0, &mut rest_palette)
        .map_err(|e| fail(format!("rest pose: {e}")))?;
    let mut rest = Aabb::EMPTY;
    for p in parts {
        for v in 0..p.mesh.vertices.len() {
            rest.extend(p.mesh.skinned_position(v, &rest_palette));
        }
    }
    let rest_height = (rest.max.y - rest.min.y).max(1e-4);
    let units_per_metre = rest_height / model.height.max(0.05);
    Ok((rest_palette, rest, units_per_metre))
}

/// Grows each joint's bind-space box by the vertices of `m` it moves.
fn add_joint_boxes(boxes: &mut [Aabb], m: &FigureMesh) {
    for v in &m.vertices {
        for k in 0..m.influences.min(4) as usize {
            if v.weights[k] > 0.0 {
                if let Some(b) = boxes.get_mut(v.joints[k] as usize) {
                    b.extend(v.position);
                }
            }
        }
    }
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

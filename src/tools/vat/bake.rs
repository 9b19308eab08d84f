//! Sampling: every frame of every chosen clip, posed and skinned exactly as the game's CPU path
//! does (bind pose reset, clip sample incl. morph weights, world matrices, palettes, morph,
//! linear-blend skinning), then the AABB, keyframe reduction and the texture layout.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::encode::VatAabb;
use super::reduce::reduce_frames;
use super::{VatError, VatSpace};
use crate::anim::anim_texture::{short_count, short_seconds};
use crate::anim::player::{sample_clip, validate_clip};
use crate::anim::{
    apply_morph, skin_normals, skin_positions, MorphStateSet, MorphedPrimitive, ScenePose,
    SkinningPaletteSet,
};
use crate::asset::{AnimationClipAsset, SceneAsset};

pub const MAX_FPS: u32 = 240;
/// The largest side any GPU we know of accepts; the defaults below are far more conservative.
pub const MAX_TEXTURE_SIDE: u32 = 65_536;
/// Every GLES 3 / WebGL 2 device takes 4096 wide; width only sets how often vertices wrap.
pub const DEFAULT_MAX_WIDTH: u32 = 4096;
/// Desktop GL 4 guarantees 16384, most phones 8192: the smaller keeps a bake portable.
pub const DEFAULT_MAX_HEIGHT: u32 = 8192;
/// Vertices one bake may hold per frame: `--vertex-ids` stores ids as f32, exact up to 2^24.
pub const MAX_VERTICES: u64 = 1 << 24;
/// Largest `--pad`: a kilometre of margin is already far more than any figure needs, and the
/// box must stay finite when the pad is added on both sides.
pub const MAX_AABB_PAD: f32 = 1000.0;
/// A clip counts as looping when its last pose is back at its first within this fraction of
/// the model's size (2 mm on a 2 m person): a visible pop is larger than that.
pub const LOOP_TOLERANCE: f32 = 1e-3;

#[derive(Debug, Clone, PartialEq)]
pub enum ClipSelection {
    All,
    /// Clip names or indices, in the order they go into the atlas.
    Names(Vec<String>),
}

/// What one bake may sample, checked before anything is sampled: every source frame of every
/// chosen clip is posed, skinned and held in memory until reduction and layout are done, so
/// the time and memory of a bake grow with these, whatever the output size limits say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BakeLimits {
    /// Source frames over all chosen clips (`floor(duration × fps) + 1` each).
    pub max_source_frames: u64,
    /// Bytes of sampled positions (and normals) over all chosen clips: frames × vertices ×
    /// 12 bytes (× 2 with normals). A bake's peak memory is about four times this.
    pub max_sampled_bytes: u64,
    /// Posing work: frames × (nodes + vertices), since every frame updates every node's world
    /// matrix and skins every vertex. A deep scene with few vertices passes the byte limit.
    pub max_pose_work: u64,
}

impl BakeLimits {
    /// 65536 frames is 36 minutes of clips at 30 fps; 256 MiB holds every clip of the bundled
    /// characters at 60 fps with normals; 2^30 units of posing work are about 20 s in a debug
    /// build (every clip of Casual_Male at 30 fps is 6.3 M).
    pub const DEFAULT: BakeLimits = BakeLimits {
        max_source_frames: 65_536,
        max_sampled_bytes: 256 << 20,
        max_pose_work: 1 << 30,
    };
}

impl Default for BakeLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BakeOptions {
    pub clips: ClipSelection,
    pub fps: u32,
    pub space: VatSpace,
    pub normals: bool,
    /// Metres. `None` keeps every frame.
    pub max_error: Option<f32>,
    /// Metres added on every side of the AABB.
    pub aabb_pad: f32,
    pub max_width: u32,
    pub max_height: u32,
    pub limits: BakeLimits,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            clips: ClipSelection::All,
            fps: 30,
            space: VatSpace::Model,
            normals: false,
            max_error: None,
            aabb_pad: 0.0,
            max_width: DEFAULT_MAX_WIDTH,
            max_height: DEFAULT_MAX_HEIGHT,
            limits: BakeLimits::DEFAULT,
        }
    }
}

impl BakeOptions {
    /// The same rules the command line applies, for callers of the library.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_FPS).contains(&self.fps) {
            return Err(format!(
                "fps {} is out of range; allowed: 1 to {MAX_FPS}",
                self.fps
            ));
        }
        if let Some(e) = self.max_error {
            if !(e.is_finite() && e > 0.0) {
                return Err(format!(
                    "max error {e} is not allowed; allowed: a finite distance in metres above 0, e.g. 0.001"
                ));
            }
        }
        if !(0.0..=MAX_AABB_PAD).contains(&self.aabb_pad) {
            return Err(format!(
                "AABB pad {} is not allowed; allowed: a distance in metres from 0 to {MAX_AABB_PAD}",
                self.aabb_pad
            ));
        }
        for (name, v) in [("width", self.max_width), ("height", self.max_height)] {
            if !(1..=MAX_TEXTURE_SIDE).contains(&v) {
                return Err(format!(
                    "max texture {name} {v} is out of range; allowed: 1 to {MAX_TEXTURE_SIDE}"
                ));
            }
        }
        if let ClipSelection::Names(n) = &self.clips {
            if n.is_empty() {
                return Err("no clip named; name at least one clip, or bake them all".into());
            }
        }
        Ok(())
    }
}

/// Where a vertex of a frame lives: one texel per vertex, `rows_per_frame` rows per stored
/// frame (vertices wrap at `width`), stored frames one after another top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VatLayout {
    pub vertex_count: u32,
    pub width: u32,
    pub rows_per_frame: u32,
    /// Stored frames over all clips.
    pub frame_count: u32,
}

impl VatLayout {
    /// As few rows per frame as `max_width` allows, then the narrowest width that fits them:
    /// 8804 vertices under 4096 become 3 rows of 2935, not 3 of 4096 with 28 % padding.
    pub fn new(vertex_count: u32, frame_count: u32, max_width: u32) -> Self {
        let rows = vertex_count.div_ceil(max_width.max(1)).max(1);
        Self {
            vertex_count,
            width: vertex_count.div_ceil(rows).max(1),
            rows_per_frame: rows,
            frame_count,
        }
    }

    pub fn height(&self) -> u32 {
        self.rows_per_frame * self.frame_count
    }

    /// Texel (x, y) of `vertex` in stored frame `frame`; y counts rows from the first row of
    /// the image data (the top row of the file, texel row 0 when uploaded as is).
    pub fn texel(&self, vertex: u32, frame: u32) -> (u32, u32) {
        (
            vertex % self.width,
            frame * self.rows_per_frame + vertex / self.width,
        )
    }

    /// Row-major index of that texel.
    pub fn texel_index(&self, vertex: u32, frame: u32) -> usize {
        let (x, y) = self.texel(vertex, frame);
        y as usize * self.width as usize + x as usize
    }
}

/// One skinned glTF primitive instance and its slice of the vertex axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VatPrimitive {
    pub node: usize,
    pub node_name: Option<String>,
    pub mesh: usize,
    pub primitive: usize,
    /// First vertex id of this primitive: vertex `v` of its accessors is id `vertex_offset + v`.
    pub vertex_offset: u32,
    pub vertex_count: u32,
    /// The mesh node's world matrix in the bind pose, column-major: model space → file space.
    pub mesh_world_matrix: [f32; 16],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BakedClip {
    pub name: String,
    /// glTF animation index.
    pub index: usize,
    pub fps: u32,
    /// Seconds (the largest key time).
    pub duration: f32,
    /// The pose at `duration` is back at the first pose (see `LOOP_TOLERANCE`).
    #[serde(rename = "loop")]
    pub looping: bool,
    /// Largest vertex distance between the poses at 0 and at `duration`, metres.
    pub loop_gap: f32,
    /// Frames sampled: `i = 0 ..= floor(duration * fps)` at `t = min(i / fps, duration)`.
    pub source_frame_count: u32,
    /// First stored frame of this clip in the atlas (its rows start at
    /// `first_frame * rows_per_frame`).
    pub first_frame: u32,
    /// Stored frames (= `frames.len()`).
    pub frame_count: u32,
    /// Source frame index of each stored frame, ascending; all of them without reduction.
    pub frames: Vec<u32>,
    /// Clip time of each stored frame, seconds.
    pub frame_times: Vec<f32>,
    /// The `--max-error` used, metres; `None` = no reduction.
    pub max_error: Option<f32>,
    /// Largest distance between a dropped frame and its interpolation, metres (0 when none).
    pub reduction_error: f32,
}

/// A finished bake, still as floats: what gets encoded and written.
#[derive(Debug, Clone)]
pub struct VatBake {
    pub space: VatSpace,
    pub layout: VatLayout,
    pub primitives: Vec<VatPrimitive>,
    pub clips: Vec<BakedClip>,
    pub aabb: VatAabb,
    pub aabb_pad: f32,
    /// `layout.frame_count × vertex_count` values in `space`, frame-major.
    pub positions: Vec<Vec3>,
    /// Unit normals in model space, same order; `None` unless asked for.
    pub normals: Option<Vec<Vec3>>,
    /// Bind-pose `POSITION` of every vertex (what delta values are relative to).
    pub bind_positions: Vec<Vec3>,
}

impl VatBake {
    pub fn vertex_count(&self) -> usize {
        self.layout.vertex_count as usize
    }
    /// Values of one stored frame.
    pub fn frame(&self, frame: usize) -> &[Vec3] {
        let n = self.vertex_count();
        &self.positions[frame * n..(frame + 1) * n]
    }
}

/// Frames sampled for a clip: `floor(duration * fps) + 1` (the reference bake's rule, no extra
/// frame at `duration` unless it falls on the grid). Saturates at `u64::MAX` for durations no
/// bake could sample; [`bake`] refuses those against [`BakeLimits`] before sampling.
pub fn source_frame_count(duration: f32, fps: u32) -> u64 {
    let frames = (duration.max(0.0) as f64 * fps as f64).floor();
    (frames as u64).saturating_add(1)
}

pub fn frame_time(i: u32, fps: u32, duration: f32) -> f32 {
    (i as f64 / fps as f64).min(duration as f64) as f32
}

/// Poses the scene and skins every baked primitive, concatenated in `VatPrimitive` order.
struct Skinner<'a> {
    scene: &'a SceneAsset,
    pose: ScenePose,
    morphs: MorphStateSet,
    palettes: SkinningPaletteSet,
    morphed: MorphedPrimitive,
    skinned: Vec<Vec3>,
    scratch: Vec<f32>,
}

impl<'a> Skinner<'a> {
    fn new(scene: &'a SceneAsset) -> Self {
        Self {
            scene,
            pose: ScenePose::new(scene),
            morphs: MorphStateSet::new(scene),
            palettes: SkinningPaletteSet::new(scene),
            morphed: MorphedPrimitive::default(),
            skinned: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn pose(
        &mut self,
        clip: &AnimationClipAsset,
        t: f32,
        prims: &[VatPrimitive],
        positions: &mut Vec<Vec3>,
        normals: Option<&mut Vec<Vec3>>,
    ) -> Result<(), String> {
        let scene = self.scene;
        self.pose.reset_to_bind_pose();
        self.morphs.reset_to_defaults(scene);
        sample_clip(
            clip,
            t,
            &mut self.pose,
            Some(&mut self.morphs),
            &mut self.scratch,
        );
        self.pose
            .update_world_matrices()
            .map_err(|e| e.to_string())?;
        self.palettes
            .update(scene, &self.pose)
            .map_err(|e| e.to_string())?;
        positions.clear();
        let mut normals = normals;
        if let Some(n) = normals.as_deref_mut() {
            n.clear();
        }
        for p in prims {
            let prim = &scene.meshes[p.mesh].primitives[p.primitive];
            let palette = self
                .palettes
                .find(p.node, p.primitive)
                .ok_or_else(|| {
                    format!(
                        "node {} primitive {}: its skin's joints cannot be resolved",
                        p.node, p.primitive
                    )
                })?
                .matrices
                .as_slice();
            let morphed = match self.morphs.get(p.node) {
                Some(state) if state.active_count() > 0 && !prim.morph_targets.is_empty() => {
                    apply_morph(prim, state.weights(), &mut self.morphed);
                    true
                }
                _ => false,
            };
            let (src_p, src_n) = if morphed {
                (&self.morphed.positions, &self.morphed.normals)
            } else {
                (&prim.positions, &prim.normals)
            };
            skin_positions(prim, palette, src_p, &mut self.skinned);
            positions.extend_from_slice(&self.skinned);
            if let Some(n) = normals.as_deref_mut() {
                skin_normals(prim, palette, src_n, &mut self.skinned);
                n.extend_from_slice(&self.skinned);
            }
        }
        Ok(())
    }
}

/// Samples, reduces and lays out the chosen clips. `progress(done, total)` is called after each
/// sampled frame (for a progress bar; the library draws nothing itself).
pub fn bake(
    scene: &SceneAsset,
    opts: &BakeOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<VatBake, VatError> {
    let file = scene.source.clone();
    let err = |m: String| VatError::new(file.clone(), m);
    opts.validate().map_err(err)?;

    let primitives = skinned_primitives(scene)?;
    let vertex_count: u32 = primitives.iter().map(|p| p.vertex_count).sum();
    let clip_indices = check_inputs(scene, opts, &primitives)?;

    // Every size is checked before sampling: the source frames and the bytes they take (with
    // or without reduction), and without reduction the output height as well.
    let counts = check_sampling(scene, &clip_indices, vertex_count, opts)?;
    let total: u64 = counts.iter().map(|&c| c as u64).sum();
    if opts.max_error.is_none() {
        let layout = VatLayout::new(vertex_count, 0, opts.max_width);
        check_size(&file, &layout, total, opts)?;
    }

    let bind_positions: Vec<Vec3> = primitives
        .iter()
        .flat_map(|p| {
            scene.meshes[p.mesh].primitives[p.primitive]
                .positions
                .iter()
                .copied()
        })
        .collect();
    let mut skinner = Skinner::new(scene);
    let mut frame = Vec::with_capacity(vertex_count as usize);
    let mut frame_n = Vec::new();
    let mut done = 0u64;
    // Per clip: (values of every source frame, normals, times, loop gap).
    let mut sampled = Vec::with_capacity(clip_indices.len());
    let mut model_bounds = crate::asset::Aabb::EMPTY;
    for (&ci, &count) in clip_indices.iter().zip(&counts) {
        let clip = &scene.animations[ci];
        let mut values = Vec::with_capacity(count as usize * vertex_count as usize);
        let mut normals = Vec::new();
        let mut times = Vec::with_capacity(count as usize);
        for i in 0..count {
            let t = frame_time(i, opts.fps, clip.duration);
            skinner
                .pose(
                    clip,
                    t,
                    &primitives,
                    &mut frame,
                    opts.normals.then_some(&mut frame_n),
                )
                .map_err(|m| err(format!("clip {ci} \"{}\": {m}", clip.name)))?;
            check_finite(&frame, &primitives)
                .map_err(|m| err(format!("clip \"{}\" frame {i} (t = {t} s): {m}", clip.name)))?;
            for (k, p) in frame.iter().enumerate() {
                model_bounds.extend(*p);
                values.push(match opts.space {
                    VatSpace::Model => *p,
                    VatSpace::Delta => *p - bind_positions[k],
                });
            }
            normals.extend_from_slice(&frame_n);
            times.push(t);
            done += 1;
            progress(done, total);
        }
        let gap = loop_gap(
            &mut skinner,
            scene,
            ci,
            &primitives,
            &values,
            &times,
            &bind_positions,
            opts.space,
            vertex_count as usize,
            &mut frame,
        )?;
        sampled.push((values, normals, times, gap));
    }

    let aabb = VatAabb::of(
        sampled.iter().flat_map(|s| s.0.iter().copied()),
        opts.aabb_pad,
    );
    if !(aabb.min().is_finite() && aabb.size().is_finite()) {
        return Err(err(format!(
            "the baked positions span {:?} metres from {:?}, more than 32-bit floats hold; \
             the clips' transforms are far too large",
            aabb.size, aabb.min
        )));
    }
    let model_extent = model_bounds.extent();

    let (clips, positions, normals_out, first_frame) = lay_out_clips(
        scene,
        &clip_indices,
        sampled,
        opts,
        model_extent,
        vertex_count as usize,
    );
    let layout = VatLayout::new(vertex_count, first_frame, opts.max_width);
    check_size(&file, &layout, first_frame as u64, opts)?;
    Ok(VatBake {
        space: opts.space,
        layout,
        primitives,
        clips,
        aabb,
        aabb_pad: opts.aabb_pad,
        positions,
        normals: normals_out,
        bind_positions,
    })
}

/// Source frames per chosen clip, after checking them and the bytes they take against
/// `opts.limits`; the message names the clip that crosses the frame limit.
fn check_sampling(
    scene: &SceneAsset,
    clip_indices: &[usize],
    vertex_count: u32,
    opts: &BakeOptions,
) -> Result<Vec<u32>, VatError> {
    let limits = opts.limits;
    let fix = "bake fewer or shorter clips (--clip) or lower --fps";
    let mut counts = Vec::with_capacity(clip_indices.len());
    let mut total = 0u64;
    for &ci in clip_indices {
        let clip = &scene.animations[ci];
        let frames = source_frame_count(clip.duration, opts.fps);
        total = total.saturating_add(frames);
        if total > limits.max_source_frames {
            let exact = (clip.duration.max(0.0) as f64 * opts.fps as f64).floor() + 1.0;
            return Err(VatError::new(
                &scene.source,
                format!(
                    "clip \"{}\" lasts {} s: {} frames at {} fps, above the limit of {} \
                     sampled frames per bake (all clips together); {fix}",
                    clip.name,
                    short_seconds(clip.duration),
                    short_count(exact),
                    opts.fps,
                    limits.max_source_frames
                ),
            ));
        }
        // Below the frame limit, so it fits a u32.
        counts.push(frames as u32);
    }
    let per_value = 12 * if opts.normals { 2 } else { 1 };
    let bytes = total
        .saturating_mul(vertex_count as u64)
        .saturating_mul(per_value);
    if bytes > limits.max_sampled_bytes {
        return Err(VatError::new(
            &scene.source,
            format!(
                "sampling {} clips would hold {} MiB ({total} frames of {vertex_count} vertices), \
                 above the limit of {} MiB; {fix}",
                clip_indices.len(),
                bytes.div_ceil(1 << 20),
                limits.max_sampled_bytes >> 20
            ),
        ));
    }
    let work = total.saturating_mul(scene.nodes.len() as u64 + vertex_count as u64);
    if work > limits.max_pose_work {
        return Err(VatError::new(
            &scene.source,
            format!(
                "sampling {} clips would pose {total} frames of {} nodes and {vertex_count} \
                 vertices ({work} node and vertex updates), above the limit of {}; {fix}",
                clip_indices.len(),
                scene.nodes.len(),
                limits.max_pose_work
            ),
        ));
    }
    Ok(counts)
}

/// Refuses what cannot be baked before any sampling: normals asked of a primitive without
/// them, clips that do not exist or do not fit the scene. Returns the chosen clips' indices.
fn check_inputs(
    scene: &SceneAsset,
    opts: &BakeOptions,
    primitives: &[VatPrimitive],
) -> Result<Vec<usize>, VatError> {
    let err = |m: String| VatError::new(scene.source.clone(), m);
    if opts.normals {
        for p in primitives {
            let prim = &scene.meshes[p.mesh].primitives[p.primitive];
            if prim.normals.len() != prim.positions.len() {
                return Err(err(format!(
                    "node {} mesh {} primitive {} has no NORMAL attribute; bake without --normals",
                    p.node, p.mesh, p.primitive
                )));
            }
        }
    }
    let clip_indices = select_clips(scene, &opts.clips)?;
    for &ci in &clip_indices {
        let clip = &scene.animations[ci];
        validate_clip(clip, scene).map_err(|e| err(format!("clip {ci} \"{}\": {e}", clip.name)))?;
    }
    Ok(clip_indices)
}

/// The seam a looping runtime would show: the last pose (at `duration`) against the first, as
/// the largest vertex distance. `n` vertices per frame; `frame` is scratch space.
#[allow(clippy::too_many_arguments)]
fn loop_gap(
    skinner: &mut Skinner,
    scene: &SceneAsset,
    ci: usize,
    primitives: &[VatPrimitive],
    values: &[Vec3],
    times: &[f32],
    bind_positions: &[Vec3],
    space: VatSpace,
    n: usize,
    frame: &mut Vec<Vec3>,
) -> Result<f32, VatError> {
    let err = |m: String| VatError::new(scene.source.clone(), m);
    let clip = &scene.animations[ci];
    let last_t = times.last().copied().unwrap_or(0.0);
    let first: Vec<Vec3> = values[..n]
        .iter()
        .zip(bind_positions)
        .map(|(v, b)| match space {
            VatSpace::Model => *v,
            VatSpace::Delta => *v + *b,
        })
        .collect();
    if last_t < clip.duration {
        skinner
            .pose(clip, clip.duration, primitives, frame, None)
            .map_err(|m| err(format!("clip {ci} \"{}\": {m}", clip.name)))?;
    } else {
        let last = &values[values.len() - n..];
        frame.clear();
        frame.extend(last.iter().zip(bind_positions).map(|(v, b)| match space {
            VatSpace::Model => *v,
            VatSpace::Delta => *v + *b,
        }));
    }
    let gap = first
        .iter()
        .zip(frame.iter())
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    Ok(gap)
}

/// One clip as sampled: every source frame's positions, their normals, the frame times and
/// the loop gap.
type SampledClip = (Vec<Vec3>, Vec<Vec3>, Vec<f32>, f32);

/// Per clip, the frames kept after reduction (all without `max_error`) laid out one after
/// another: the baked clips, their positions (and normals) and the number of frames in all.
fn lay_out_clips(
    scene: &SceneAsset,
    clip_indices: &[usize],
    sampled: Vec<SampledClip>,
    opts: &BakeOptions,
    model_extent: f32,
    n: usize,
) -> (Vec<BakedClip>, Vec<Vec3>, Option<Vec<Vec3>>, u32) {
    let mut clips = Vec::with_capacity(sampled.len());
    let mut positions = Vec::new();
    let mut normals_out = opts.normals.then(Vec::new);
    let mut first_frame = 0u32;
    for (ci, (values, normals, times, gap)) in clip_indices.iter().zip(sampled) {
        let clip = &scene.animations[*ci];
        let (kept, reduction_error) = match opts.max_error {
            Some(e) => reduce_frames(&values, n, &times, e),
            None => ((0..times.len() as u32).collect(), 0.0),
        };
        for &k in &kept {
            let k = k as usize;
            positions.extend_from_slice(&values[k * n..(k + 1) * n]);
            if let Some(out) = normals_out.as_mut() {
                out.extend_from_slice(&normals[k * n..(k + 1) * n]);
            }
        }
        clips.push(BakedClip {
            name: clip.name.clone(),
            index: *ci,
            fps: opts.fps,
            duration: clip.duration,
            looping: gap <= LOOP_TOLERANCE * model_extent,
            loop_gap: gap,
            source_frame_count: times.len() as u32,
            first_frame,
            frame_count: kept.len() as u32,
            frame_times: kept.iter().map(|&k| times[k as usize]).collect(),
            frames: kept,
            max_error: opts.max_error,
            reduction_error,
        });
        first_frame += clips.last().map(|c| c.frame_count).unwrap_or(0);
    }
    (clips, positions, normals_out, first_frame)
}

fn skinned_primitives(scene: &SceneAsset) -> Result<Vec<VatPrimitive>, VatError> {
    let mut pose = ScenePose::new(scene);
    pose.update_world_matrices()
        .map_err(|e| VatError::new(&scene.source, e.to_string()))?;
    let world = pose.world_matrices().unwrap_or(&[]);
    let mut out = Vec::new();
    let mut offset = 0u64;
    for (ni, node) in scene.nodes.iter().enumerate() {
        let (Some(mi), Some(_)) = (node.mesh, node.skin) else {
            continue;
        };
        let Some(mesh) = scene.meshes.get(mi) else {
            continue;
        };
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            if !prim.is_skinned() {
                continue;
            }
            let count = prim.vertex_count() as u64;
            if offset + count > MAX_VERTICES {
                return Err(VatError::new(
                    &scene.source,
                    format!(
                        "its skinned mesh instances have more than {MAX_VERTICES} vertices, the \
                         most a bake holds (vertex ids are exact f32 up to there)"
                    ),
                ));
            }
            out.push(VatPrimitive {
                node: ni,
                node_name: node.name.clone(),
                mesh: mi,
                primitive: pi,
                // Both below MAX_VERTICES, so they fit a u32.
                vertex_offset: offset as u32,
                vertex_count: count as u32,
                mesh_world_matrix: world.get(ni).copied().unwrap_or_default().to_cols_array(),
            });
            offset += count;
        }
    }
    if out.is_empty() || offset == 0 {
        return Err(VatError::new(
            &scene.source,
            "has no skinned mesh (a node with a mesh and a skin whose primitives have JOINTS_0 and WEIGHTS_0); only skinned characters can be baked",
        ));
    }
    Ok(out)
}

fn select_clips(scene: &SceneAsset, sel: &ClipSelection) -> Result<Vec<usize>, VatError> {
    if scene.animations.is_empty() {
        return Err(VatError::new(
            &scene.source,
            "has no animation clips; only animated models can be baked",
        ));
    }
    match sel {
        ClipSelection::All => Ok((0..scene.animations.len()).collect()),
        ClipSelection::Names(names) => {
            let mut out = Vec::new();
            for name in names {
                let ci = scene.find_clip(name).ok_or_else(|| {
                    let list: Vec<String> = scene
                        .animations
                        .iter()
                        .map(|c| format!("\"{}\"", c.name))
                        .collect();
                    VatError::new(
                        &scene.source,
                        format!(
                            "no clip \"{name}\"; allowed: one of {} or an index 0 to {}",
                            list.join(", "),
                            scene.animations.len() - 1
                        ),
                    )
                })?;
                // Naming a clip twice would waste rows on identical frames.
                if !out.contains(&ci) {
                    out.push(ci);
                }
            }
            Ok(out)
        }
    }
}

fn check_size(
    file: &str,
    layout: &VatLayout,
    frames: u64,
    opts: &BakeOptions,
) -> Result<(), VatError> {
    let height = frames * layout.rows_per_frame as u64;
    if height <= opts.max_height as u64 {
        return Ok(());
    }
    let wrap = if layout.rows_per_frame > 1 && opts.max_width < MAX_TEXTURE_SIDE {
        format!(
            ", raise --max-width (each frame takes {} rows of {} vertices)",
            layout.rows_per_frame, layout.width
        )
    } else {
        String::new()
    };
    Err(VatError::new(
        file,
        format!(
            "the texture would be {} x {height} texels ({frames} frames), above the height limit {}; \
             bake fewer clips (--clip), lower --fps, drop frames with --max-error{wrap}, \
             or raise --max-height if the target GPU allows it",
            layout.width, opts.max_height
        ),
    ))
}

fn check_finite(frame: &[Vec3], prims: &[VatPrimitive]) -> Result<(), String> {
    let Some(bad) = frame.iter().position(|p| !p.is_finite()) else {
        return Ok(());
    };
    let p = prims
        .iter()
        .find(|p| {
            (bad as u32) >= p.vertex_offset && (bad as u32) < p.vertex_offset + p.vertex_count
        })
        .or(prims.last());
    let (node, prim, local) = p
        .map(|p| (p.node, p.primitive, bad as u32 - p.vertex_offset))
        .unwrap_or((0, 0, bad as u32));
    Err(format!(
        "vertex {local} of node {node} primitive {prim} is not finite ({}); \
         the clip's transforms overflow, so no texture can hold it",
        frame[bad]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_wraps_vertices_into_rows() {
        let l = VatLayout::new(10, 3, 4);
        assert_eq!((l.width, l.rows_per_frame, l.height()), (4, 3, 9));
        assert_eq!(l.texel(0, 0), (0, 0));
        assert_eq!(l.texel(9, 0), (1, 2));
        assert_eq!(l.texel(5, 2), (1, 7));
        assert_eq!(l.texel_index(5, 2), 7 * 4 + 1);
        let l = VatLayout::new(160, 50, 4096);
        assert_eq!((l.width, l.rows_per_frame, l.height()), (160, 1, 50));
        let l = VatLayout::new(8804, 38, 4096);
        assert_eq!((l.width, l.rows_per_frame, l.height()), (2935, 3, 114));
        assert_eq!(l.texel(8803, 0), (2933, 2));
    }

    #[test]
    fn frame_rule_matches_the_reference_bake() {
        // RiggedSimple: duration 2.0833330154418945 s at 24 fps → 50 frames, last at 49/24.
        assert_eq!(source_frame_count(2.083_333, 24), 50);
        assert_eq!(source_frame_count(1.0, 30), 31);
        assert_eq!(source_frame_count(0.0, 30), 1);
        assert_eq!(frame_time(30, 30, 1.0), 1.0);
        assert_eq!(frame_time(49, 24, 2.083_333), (49.0f64 / 24.0) as f32);
    }

    #[test]
    fn options_out_of_range_say_what_is_allowed() {
        let bad = |o: BakeOptions| o.validate().unwrap_err();
        let d = BakeOptions::default();
        assert_eq!(
            bad(BakeOptions {
                fps: 0,
                ..d.clone()
            }),
            "fps 0 is out of range; allowed: 1 to 240"
        );
        assert!(bad(BakeOptions {
            max_error: Some(f32::NAN),
            ..d.clone()
        })
        .contains("allowed: a finite distance in metres above 0"));
        assert!(bad(BakeOptions {
            max_error: Some(0.0),
            ..d.clone()
        })
        .contains("above 0"));
        assert!(bad(BakeOptions {
            max_width: 0,
            ..d.clone()
        })
        .contains("allowed: 1 to 65536"));
        assert!(d.validate().is_ok());
    }
}

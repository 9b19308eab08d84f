//! The crowd's render world: agents culled against the view frustum, bucketed into near, mid
//! and far, listed per (level of detail, submesh) and packed into 5-vec4 instance blocks
//! (GPU Gems 3 ch. 2: a uniform array that an instanced draw indexes with gl_InstanceID).
//! Plain data; the renderer only uploads and draws the lists.
//!
//! Layout of one instance block (80 bytes):
//! - vec4 0..2: rows 0..2 of the 3x4 world matrix (rotation·scale | translation)
//! - vec4 3: colour tint (linear rgb, a = tint strength; skin is masked in the mesh)
//! - vec4 4: animation (frame position of clip A, frame position of clip B, blend A→B, skin
//!   tone); a frame position is `first row of the frame + fraction`, see the animation texture.
//!   The skin-tone lane also carries the person's head turn in its spare range
//!   (`look_pack`: tone + 2 · code; exactly the tone when the head is straight).

use std::ops::Range;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use super::frustum::Frustum;
use super::lod::Lod;
use super::lod_fade::{LodBlend, LodFade, ShaderFade};
use super::look_pack::pack_look;
use super::markers::LOD_COLORS;
use crate::anim::anim_texture::TEXELS_PER_JOINT;
use crate::crowd::anim::{AnimState, ClipKind};
use crate::crowd::head_turn::HeadTurns;
use crate::crowd::{Crowd, Variant};
use crate::crowd_assets::{Body, CrowdAssets};
use crate::level::LodSettings;

/// How the crowd is selected for drawing this frame.
#[derive(Debug, Clone, Copy)]
pub struct CrowdPackOptions<'a> {
    /// None: no frustum culling.
    pub frustum: Option<&'a Frustum>,
    pub eye: Vec3,
    /// None: everyone at full detail.
    pub lod: Option<&'a LodSettings>,
    /// Paint people by level of detail instead of clothing.
    pub lod_colors: bool,
    /// The culling debug view: list culled people too (far mesh, painted `CULLED_COLOR`) so a
    /// second camera shows what the player's camera left out. Counts stay as without it.
    pub show_culled: bool,
    /// Each person's head turn toward the hero (people look back); None: everyone looks ahead.
    pub head_turns: Option<&'a HeadTurns>,
}

/// The colour of culled people in the culling debug view.
pub const CULLED_COLOR: Vec3 = Vec3::new(0.95, 0.08, 0.05);

/// What this frame's selection did, for the stats panel and the benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrowdCounts {
    pub visible: u32,
    pub culled: u32,
    /// Beyond the far distance.
    pub beyond: u32,
    /// Not shown yet (scale 0: waiting to pop in).
    pub spawning: u32,
    /// People per level, each counted once at the level covering most of them.
    pub per_lod: [u32; Lod::DRAWN.len()],
    /// People inside a cross-fade band between two drawn levels: listed at both.
    pub fading: u32,
    /// Prop instances listed (all levels).
    pub props: u32,
    /// Instances of the models' own attachments listed (all levels): shields, swords...
    pub attachments: u32,
}

/// Instance lists of one frame: `lists[lod][submesh]` holds packed blocks. Impostors are
/// listed under their body's submesh (the body picks its part of the atlas); props and
/// per-person attachments are not drawn on impostors (too small to see there).
#[derive(Debug, Clone, Default)]
pub struct CrowdFrame {
    pub lists: [Vec<Vec<[f32; 4]>>; Lod::DRAWN.len()],
    /// Blob shadows under mid, far and impostor people: (x, z, radius, darkness).
    pub blobs: Vec<[f32; 4]>,
    pub counts: CrowdCounts,
    /// How the levels' shaders split the pixels of people drawn at two levels.
    pub fade: ShaderFade,
    /// Each packing chunk's own lists (kept between frames so packing does not allocate once
    /// the crowd stops growing); merged into the lists above in chunk order.
    parts: Vec<CrowdFrame>,
}

impl CrowdFrame {
    fn reset(&mut self, submeshes: usize) {
        for lod in &mut self.lists {
            lod.resize_with(submeshes, Vec::new);
            lod.truncate(submeshes);
            for list in lod.iter_mut() {
                list.clear();
            }
        }
        self.blobs.clear();
        self.counts = CrowdCounts::default();
        self.fade = ShaderFade::default();
    }

    /// Instances listed at `lod` (bodies and props).
    pub fn instances_at(&self, lod: usize) -> usize {
        self.lists[lod]
            .iter()
            .map(|l| l.len() / VEC4_PER_INSTANCE)
            .sum()
    }
}

/// A small, stable size variation per person (±6 %), so a crowd of one model is not a
/// regiment of clones.
pub fn person_scale(agent: usize) -> f32 {
    let mut h = (agent as u32).wrapping_mul(0x9E37_79B9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    0.94 + (h % 1000) as f32 / 1000.0 * 0.12
}

fn clip_index(kind: ClipKind) -> usize {
    ClipKind::ALL.iter().position(|&k| k == kind).unwrap_or(0)
}

/// A stable skin tone per person, 0 (light) to 1 (dark).
pub fn skin_tone(agent: usize) -> f32 {
    let mut h = (agent as u32 ^ 0x5bd1_e995).wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297A_2D39);
    h ^= h >> 15;
    (h % 1024) as f32 / 1023.0
}

/// The animation vec4 of one person: frame positions of both clips, the blend, and (riding in
/// the spare lane) the skin tone.
pub fn anim_vector(body: &Body, anim: &AnimState, tone: f32) -> Vec4 {
    let a = body.clips[clip_index(anim.clip_a)].frame_position(anim.time_a);
    let b = if anim.blend > 0.0 {
        body.clips[clip_index(anim.clip_b)].frame_position(anim.time_b)
    } else {
        a
    };
    Vec4::new(a, b, anim.blend.clamp(0.0, 1.0), tone)
}

/// The world matrix of a person: model units to metres, turned to its heading, on the ground.
pub fn person_world(body: &Body, position: Vec2, heading: f32, scale: f32) -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(scale / body.units_per_metre),
        Quat::from_rotation_y(heading + body.facing_offset),
        Vec3::new(position.x, 0.0, position.y),
    )
}

fn push_block(out: &mut Vec<[f32; 4]>, world: &Mat4, tint: Vec4, anim: Vec4) {
    for r in 0..3 {
        out.push(world.row(r).to_array());
    }
    out.push(tint.to_array());
    out.push(anim.to_array());
}

/// People per packing chunk: a chunk's lists are merged in order afterwards.
const PACK_CHUNK: usize = 4096;

/// Fills `out` for this frame. `appear(i)` scales people popping in or shrinking away;
/// `lod_state` keeps each person's level between frames for hysteresis. A person's level
/// follows the distance from the eye to where they stand; inside a cross-fade band (see
/// `lod_fade`) they are listed at both neighbouring levels. Chunks of the crowd are packed side
/// by side on the current rayon pool into lists of their own, then appended in chunk order: the
/// lists come out exactly as one pass in person order gives them.
pub fn pack_crowd(
    opts: &CrowdPackOptions,
    crowd: &Crowd,
    assets: &CrowdAssets,
    appear: impl Fn(usize) -> f32 + Sync,
    lod_state: &mut Vec<Lod>,
    out: &mut CrowdFrame,
) {
    use rayon::prelude::*;
    let submeshes = assets.submeshes.len();
    out.reset(submeshes);
    lod_state.resize(crowd.pos.len(), Lod::Near);
    if assets.bodies.is_empty() {
        return;
    }
    let fade = opts.lod.map(LodFade::new);
    out.fade = ShaderFade::new(fade.as_ref(), opts.eye);
    if opts.show_culled {
        // The culling view lists culled people at the far level whatever their distance:
        // the far level must not fade in by distance, or the near ones would not show.
        // (People fading from mid to far are then drawn whole at far: a debug view.)
        out.fade.bands[Lod::Far.index()][..2].fill(0.0);
    }
    let mut parts = std::mem::take(&mut out.parts);
    parts.resize_with(lod_state.len().div_ceil(PACK_CHUNK), CrowdFrame::default);
    let packer = Packer {
        opts,
        crowd,
        assets,
        fade: fade.as_ref(),
    };
    parts
        .par_iter_mut()
        .zip(lod_state.par_chunks_mut(PACK_CHUNK))
        .enumerate()
        .for_each(|(c, (part, states))| {
            part.reset(submeshes);
            for (k, state) in states.iter_mut().enumerate() {
                let i = c * PACK_CHUNK + k;
                packer.person(i, appear(i), state, part);
            }
        });
    for part in &parts {
        out.append(part);
    }
    out.parts = parts;
}

impl CrowdFrame {
    /// Appends `part`'s lists, blob shadows and counts after this frame's own.
    fn append(&mut self, part: &CrowdFrame) {
        for (lists, from) in self.lists.iter_mut().zip(&part.lists) {
            for (list, items) in lists.iter_mut().zip(from) {
                list.extend_from_slice(items);
            }
        }
        self.blobs.extend_from_slice(&part.blobs);
        let (c, p) = (&mut self.counts, &part.counts);
        c.visible += p.visible;
        c.culled += p.culled;
        c.beyond += p.beyond;
        c.spawning += p.spawning;
        for (a, b) in c.per_lod.iter_mut().zip(p.per_lod) {
            *a += b;
        }
        c.fading += p.fading;
        c.props += p.props;
        c.attachments += p.attachments;
    }
}

/// What packing one person reads, shared by the chunks.
struct Packer<'a> {
    opts: &'a CrowdPackOptions<'a>,
    crowd: &'a Crowd,
    assets: &'a CrowdAssets,
    fade: Option<&'a LodFade>,
}

impl Packer<'_> {
    /// Lists person `i` (shown at `appear` of their size) into `out`, with their level of
    /// detail kept in `state`.
    fn person(&self, i: usize, appear: f32, state: &mut Lod, out: &mut CrowdFrame) {
        let (opts, crowd, assets) = (self.opts, self.crowd, self.assets);
        let variant = crowd.variant[i];
        let body = assets
            .bodies
            .get(variant.model as usize)
            .unwrap_or(&assets.bodies[0]);
        let scale = person_scale(i) * appear;
        if scale <= 0.0 {
            out.counts.spawning += 1;
            return;
        }
        let (p, heading) = crowd.drawn_at(i);
        let centre = Vec3::new(p.x, body.centre_height * scale, p.y);
        let blend = match self.fade {
            Some(f) => {
                let b = f.pick(Vec3::new(p.x, 0.0, p.y).distance(opts.eye), *state);
                *state = b.main();
                b
            }
            None => LodBlend::solid(Lod::Near),
        };
        if blend.drawn().next().is_none() {
            out.counts.beyond += 1;
            return;
        }
        if opts
            .frustum
            .is_some_and(|f| !f.contains_sphere(centre, body.radius * scale))
        {
            out.counts.culled += 1;
            if opts.show_culled {
                let world = person_world(body, p, heading, scale);
                let anim = anim_vector(body, &crowd.anim[i], skin_tone(i));
                let far = Lod::Far.index();
                push_block(
                    &mut out.lists[far][body.submesh],
                    &world,
                    CULLED_COLOR.extend(2.0),
                    anim,
                );
            }
            return;
        }
        let world = person_world(body, p, heading, scale);
        let mut anim = anim_vector(body, &crowd.anim[i], skin_tone(i));
        if let Some(turns) = opts.head_turns {
            let (yaw, pitch) = turns.get(i);
            anim.w = pack_look(anim.w, yaw, pitch);
        }
        // Coverage of the levels that cast no shadow-map shadow: their blob fades with them.
        let mut blob_cover = 0.0;
        for (lod, coverage) in blend.drawn() {
            let l = lod.index();
            let tint = if opts.lod_colors {
                LOD_COLORS[l].extend(2.0)
            } else {
                crowd.color[i].extend(1.0)
            };
            let block = Block {
                world: &world,
                tint,
                anim,
            };
            push_person(out, assets, (body, variant), i, l, &block);
            if l > 0 {
                blob_cover += coverage;
            }
        }
        let counted = if blend.main() == Lod::Beyond {
            blend.finer
        } else {
            blend.main()
        };
        out.counts.visible += 1;
        out.counts.per_lod[counted.index()] += 1;
        if blend.drawn().nth(1).is_some() {
            out.counts.fading += 1;
        }
        if blob_cover > 0.0 {
            out.blobs.push([p.x, p.y, 0.45 * scale, 0.45 * blob_cover]);
        }
    }
}

/// One person's instance block, as pushed for each of their meshes.
struct Block<'a> {
    world: &'a Mat4,
    tint: Vec4,
    anim: Vec4,
}

/// Lists person `i` at level `l`: the body, the props their group carries, their attachments.
fn push_person(
    out: &mut CrowdFrame,
    assets: &CrowdAssets,
    (body, variant): (&Body, Variant),
    i: usize,
    l: usize,
    block: &Block,
) {
    let push = |list: &mut Vec<[f32; 4]>| push_block(list, block.world, block.tint, block.anim);
    push(&mut out.lists[l][body.submesh]);
    // The impostor atlas holds bodies as always worn; per-person props are not drawn on it.
    if l == Lod::Impostor.index() {
        return;
    }
    let mut bits = variant.props;
    let group = assets.group_props.get(variant.group as usize);
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let Some(&kind) = group.and_then(|g| g.get(k)) else {
            continue;
        };
        let Some(sub) = body.props.get(kind).copied().flatten() else {
            continue;
        };
        if assets.submeshes[sub].lods[l].is_some() {
            push(&mut out.lists[l][sub]);
            out.counts.props += 1;
        }
    }
    for sub in body.attachments_of(i) {
        if assets.submeshes[sub].lods[l].is_some() {
            push(&mut out.lists[l][sub]);
            out.counts.attachments += 1;
        }
    }
}

/// The naive yardstick: every person (no culling, no LOD) as its own draw of the near meshes,
/// with a palette sampled from the clips on the CPU.
#[derive(Debug, Clone, Default)]
pub struct NaiveFrame {
    pub draws: Vec<NaiveDraw>,
    /// `TEXELS_PER_JOINT` vec4 per joint, `joints` joints per person.
    pub palettes: Vec<[f32; 4]>,
    pub joints: usize,
    /// Wall-clock milliseconds spent sampling the palettes this frame (the benchmark's
    /// animation column on this path).
    pub palette_ms: f64,
}

impl NaiveFrame {
    /// People listed (one palette each; their props are further draws).
    pub fn people(&self) -> usize {
        let per_person = self.joints * TEXELS_PER_JOINT as usize;
        self.palettes.len().checked_div(per_person).unwrap_or(0)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct NaiveDraw {
    pub submesh: usize,
    pub block: [[f32; 4]; VEC4_PER_INSTANCE],
    /// Index of the person's palette (in people, not vec4).
    pub palette: usize,
}

/// Fills `out` with one entry per body and carried prop of every person.
pub fn pack_naive(
    crowd: &Crowd,
    assets: &mut CrowdAssets,
    appear: impl Fn(usize) -> f32,
    lod_colors: bool,
    out: &mut NaiveFrame,
) {
    out.draws.clear();
    out.palettes.clear();
    out.joints = assets.texture.joints as usize;
    out.palette_ms = 0.0;
    if assets.bodies.is_empty() {
        return;
    }
    let mut sampling = std::time::Duration::ZERO;
    let mut scratch = Vec::new();
    let mut blended = Vec::new();
    for i in 0..crowd.pos.len() {
        let variant = crowd.variant[i];
        let b = (variant.model as usize).min(assets.bodies.len() - 1);
        let scale = person_scale(i) * appear(i);
        if scale <= 0.0 {
            continue;
        }
        let body = &assets.bodies[b];
        let (p, heading) = crowd.drawn_at(i);
        let world = person_world(body, p, heading, scale);
        let tint = if lod_colors {
            LOD_COLORS[0].extend(2.0)
        } else {
            crowd.color[i].extend(1.0)
        };
        let mut block = Vec::with_capacity(VEC4_PER_INSTANCE);
        push_block(
            &mut block,
            &world,
            tint,
            Vec4::new(0.0, 0.0, 0.0, skin_tone(i)),
        );
        let block: [[f32; 4]; VEC4_PER_INSTANCE] = std::array::from_fn(|k| block[k]);
        let palette = out.palettes.len() / (out.joints * TEXELS_PER_JOINT as usize).max(1);
        let started = crate::clock::Instant::now();
        assets.cpu_palette(b, &crowd.anim[i], &mut scratch, &mut blended);
        sampling += started.elapsed();
        for m in &blended {
            for r in 0..3 {
                out.palettes.push(m.row(r).to_array());
            }
        }
        // Pad short skeletons to the shared row width.
        let want = (palette + 1) * out.joints * TEXELS_PER_JOINT as usize;
        out.palettes.resize(want, [0.0; 4]);
        let body = &assets.bodies[b];
        out.draws.push(NaiveDraw {
            submesh: body.submesh,
            block,
            palette,
        });
        let mut bits = variant.props;
        let group = assets.group_props.get(variant.group as usize);
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(sub) = group
                .and_then(|g| g.get(k))
                .and_then(|&kind| body.props.get(kind).copied().flatten())
            {
                out.draws.push(NaiveDraw {
                    submesh: sub,
                    block,
                    palette,
                });
            }
        }
        for sub in body.attachments_of(i) {
            out.draws.push(NaiveDraw {
                submesh: sub,
                block,
                palette,
            });
        }
    }
    out.palette_ms = sampling.as_secs_f64() * 1000.0;
}

// --- Instance blocks: their size, reading one back, and batching them into draws ---

/// vec4 per instance block (see the layout above).
pub const VEC4_PER_INSTANCE: usize = 5;

/// One instance block read back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InstanceData {
    /// Affine world transform; its last row is (0, 0, 0, 1).
    pub world: Mat4,
    pub color: Vec4,
    pub anim: Vec4,
}

/// Reads an instance back from its five vec4 (what the shader reconstructs).
pub fn unpack_instance(block: &[[f32; 4]]) -> Option<InstanceData> {
    if block.len() < VEC4_PER_INSTANCE {
        return None;
    }
    let row = |i: usize| Vec4::from_array(block[i]);
    let world = Mat4::from_cols(row(0), row(1), row(2), Vec4::W).transpose();
    Some(InstanceData {
        world,
        color: row(3),
        anim: row(4),
    })
}

/// How many instances fit one draw: the uniform vectors left after the shader's other uniforms,
/// divided by five. An error when not even one fits, naming both numbers.
pub fn instances_per_batch(
    max_vertex_uniform_vectors: u32,
    other_vectors: u32,
) -> Result<u32, String> {
    let free = max_vertex_uniform_vectors.saturating_sub(other_vectors);
    let n = free / VEC4_PER_INSTANCE as u32;
    if n == 0 {
        Err(format!(
            "the GPU allows {max_vertex_uniform_vectors} vertex uniform vectors and the crowd shader \
             needs {other_vectors} for itself, leaving room for no instance (each needs {VEC4_PER_INSTANCE})"
        ))
    } else {
        Ok(n)
    }
}

/// Splits `count` instances into consecutive batches of at most `per_batch`.
pub fn batch_ranges(count: usize, per_batch: usize) -> impl Iterator<Item = Range<usize>> {
    let per_batch = per_batch.max(1);
    (0..count.div_ceil(per_batch)).map(move |b| b * per_batch..((b + 1) * per_batch).min(count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_transform_colour_and_animation() {
        let mut out = Vec::new();
        let insts: Vec<InstanceData> = (0..4)
            .map(|i| InstanceData {
                world: Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.5 + i as f32 * 0.1),
                    Quat::from_rotation_y(i as f32 * 1.3),
                    Vec3::new(i as f32 * 3.0, 0.0, -2.0 * i as f32),
                ),
                color: Vec4::new(0.1 * i as f32, 0.5, 0.9, 1.0),
                anim: Vec4::new(12.25 + i as f32, 40.5, 0.3, 0.0),
            })
            .collect();
        for i in &insts {
            push_block(&mut out, &i.world, i.color, i.anim);
        }
        assert_eq!(out.len(), 4 * VEC4_PER_INSTANCE);
        for (k, chunk) in out.chunks(VEC4_PER_INSTANCE).enumerate() {
            let back = unpack_instance(chunk).expect("five vec4");
            assert!(back.world.abs_diff_eq(insts[k].world, 1e-6));
            assert_eq!(back.color, insts[k].color);
            assert_eq!(back.anim, insts[k].anim);
            // The shader applies rows as dot products: check a point.
            let p = Vec3::new(0.3, 1.7, -0.2);
            let by_rows = Vec3::new(
                Vec4::from_array(chunk[0]).dot(p.extend(1.0)),
                Vec4::from_array(chunk[1]).dot(p.extend(1.0)),
                Vec4::from_array(chunk[2]).dot(p.extend(1.0)),
            );
            assert!(by_rows.abs_diff_eq(insts[k].world.transform_point3(p), 1e-5));
        }
        assert!(unpack_instance(&out[..4]).is_none());
    }
}

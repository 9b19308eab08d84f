//! Culled, LOD-bucketed, packed instance data for the stand-in crowd markers.

use glam::{Vec2, Vec3};

use super::frustum::Frustum;
use super::lod::{select_lod, Lod};
use crate::level::LodSettings;

/// Floats per marker instance: x, z, heading, scale, tint r, g, b.
pub const MARKER_FLOATS: usize = 7;
/// Height of a marker person in metres (the bounding sphere is centred halfway up).
pub const MARKER_HEIGHT: f32 = 1.75;
/// Tints of the LOD debug mode: near, mid, far, impostor.
pub const LOD_COLORS: [Vec3; Lod::DRAWN.len()] = [
    Vec3::new(0.9, 0.25, 0.2),
    Vec3::new(0.25, 0.8, 0.3),
    Vec3::new(0.25, 0.4, 0.95),
    Vec3::new(0.95, 0.8, 0.15),
];

/// How markers are selected for drawing this frame.
#[derive(Debug, Clone, Copy)]
pub struct PackOptions<'a> {
    /// None: no frustum culling.
    pub frustum: Option<&'a Frustum>,
    pub eye: Vec3,
    /// None: everyone at full detail (the naive path).
    pub lod: Option<&'a LodSettings>,
    /// Tint by level of detail instead of clothing.
    pub lod_colors: bool,
}

/// What packing left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PackCounts {
    /// Outside the view frustum.
    pub culled: usize,
    /// Beyond the far LOD distance.
    pub beyond: usize,
    /// Not shown yet (scale 0: waiting to pop in).
    pub spawning: usize,
}

/// People per packing chunk: large enough that a chunk's bookkeeping costs little next to its
/// work, small enough that two threads share a 100,000-person crowd evenly.
const PACK_CHUNK: usize = 8192;

/// Fills `out[lod]` with the instances of each level of detail, in agent order. `lod_state`
/// keeps each agent's level between frames for hysteresis (resized to the crowd as needed).
/// Two passes over chunks of the crowd on the current rayon pool: the first settles everyone's
/// level and counts what each chunk draws per bucket; the second writes each chunk's instances
/// straight into its own stretch of the buckets. Nothing is allocated once the buckets have
/// grown, and the buckets hold exactly what one pass in agent order gives.
#[allow(clippy::too_many_arguments)]
pub fn pack_markers(
    opts: &PackOptions,
    positions: &[Vec2],
    headings: &[f32],
    colors: &[Vec3],
    scale_of: impl Fn(usize) -> f32 + Sync,
    lod_state: &mut Vec<Lod>,
    out: &mut [Vec<f32>; 3],
) -> PackCounts {
    use rayon::prelude::*;
    lod_state.resize(positions.len(), Lod::Near);
    // As a zip of the three: the shortest ends the crowd.
    let n = positions.len().min(headings.len()).min(colors.len());
    let chunks: Vec<([usize; 3], PackCounts)> = lod_state[..n]
        .par_chunks_mut(PACK_CHUNK)
        .enumerate()
        .map(|(c, states)| {
            let mut drawn = [0; 3];
            let mut counts = PackCounts::default();
            for (k, state) in states.iter_mut().enumerate() {
                let i = c * PACK_CHUNK + k;
                if scale_of(i) <= 0.0 {
                    counts.spawning += 1;
                    continue;
                }
                let centre = marker_centre(positions[i]);
                if let Some(settings) = opts.lod {
                    *state = select_lod(centre.distance(opts.eye), *state, settings);
                }
                match bucket_of(opts, centre, *state) {
                    Ok(b) => drawn[b] += 1,
                    Err(Lod::Beyond) => counts.beyond += 1,
                    Err(_) => counts.culled += 1,
                }
            }
            (drawn, counts)
        })
        .collect();
    let mut counts = PackCounts::default();
    for (_, c) in &chunks {
        counts.culled += c.culled;
        counts.beyond += c.beyond;
        counts.spawning += c.spawning;
    }
    // Each chunk's stretch of each bucket, in chunk order.
    for (b, bucket) in out.iter_mut().enumerate() {
        let total: usize = chunks.iter().map(|(d, _)| d[b]).sum();
        bucket.clear();
        bucket.resize(total * MARKER_FLOATS, 0.0);
    }
    let mut rest: [&mut [f32]; 3] = out.each_mut().map(|bucket| bucket.as_mut_slice());
    let mut stretches = Vec::with_capacity(chunks.len());
    for (drawn, _) in &chunks {
        let mine: [&mut [f32]; 3] = std::array::from_fn(|b| {
            let (head, tail) = std::mem::take(&mut rest[b]).split_at_mut(drawn[b] * MARKER_FLOATS);
            rest[b] = tail;
            head
        });
        stretches.push(mine);
    }
    let states = &lod_state[..n];
    stretches.into_par_iter().enumerate().for_each(|(c, mine)| {
        let mut at = [0usize; 3];
        let first = c * PACK_CHUNK;
        for i in first..(first + PACK_CHUNK).min(n) {
            // The same tests as the first pass, with the level it settled.
            let scale = scale_of(i);
            if scale <= 0.0 {
                continue;
            }
            let p = positions[i];
            let lod = if opts.lod.is_some() {
                states[i]
            } else {
                Lod::Near
            };
            let Ok(b) = bucket_of(opts, marker_centre(p), lod) else {
                continue;
            };
            let tint = if opts.lod_colors {
                LOD_COLORS[lod.index()]
            } else {
                colors[i]
            };
            let floats = [p.x, p.y, headings[i], scale, tint.x, tint.y, tint.z];
            mine[b][at[b]..at[b] + MARKER_FLOATS].copy_from_slice(&floats);
            at[b] += MARKER_FLOATS;
        }
    });
    counts
}

/// The centre of a marker's bounding sphere, halfway up the person.
fn marker_centre(p: Vec2) -> Vec3 {
    Vec3::new(p.x, MARKER_HEIGHT * 0.5, p.y)
}

/// The bucket a marker at `centre` drawn at `lod` goes to, or why it is not drawn: `Beyond`, or
/// culled (any other level).
fn bucket_of(opts: &PackOptions, centre: Vec3, lod: Lod) -> Result<usize, Lod> {
    if lod == Lod::Beyond {
        return Err(Lod::Beyond);
    }
    if opts
        .frustum
        .is_some_and(|f| !f.contains_sphere(centre, MARKER_HEIGHT * 0.5 + 0.1))
    {
        return Err(Lod::Near);
    }
    // Stand-ins have no impostor picture: they stay in the far bucket.
    Ok(lod.index().min(2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;

    fn frustum() -> Frustum {
        let vp = Mat4::perspective_rh_gl(1.0, 1.0, 0.1, 500.0)
            * Mat4::look_at_rh(Vec3::new(0.0, 10.0, 20.0), Vec3::ZERO, Vec3::Y);
        Frustum::from_view_projection(&vp)
    }

    #[test]
    fn markers_behind_the_camera_are_culled_and_the_rest_packed_in_order() {
        let f = frustum();
        let positions = [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 60.0),
            Vec2::new(1.0, -5.0),
        ];
        let headings = [0.5, 1.0, 1.5];
        let colors = [Vec3::X, Vec3::Y, Vec3::Z];
        let mut out: [Vec<f32>; 3] = Default::default();
        let mut state = Vec::new();
        let naive = PackOptions {
            frustum: None,
            eye: Vec3::new(0.0, 10.0, 20.0),
            lod: None,
            lod_colors: false,
        };
        let c = pack_markers(
            &naive,
            &positions,
            &headings,
            &colors,
            |_| 1.0,
            &mut state,
            &mut out,
        );
        assert_eq!(c, PackCounts::default());
        assert_eq!(out[0].len(), 3 * MARKER_FLOATS);
        let culling = PackOptions {
            frustum: Some(&f),
            ..naive
        };
        let c = pack_markers(
            &culling,
            &positions,
            &headings,
            &colors,
            |i| i as f32,
            &mut state,
            &mut out,
        );
        // Scale 0 is someone still waiting to pop in: counted as spawning, not packed.
        assert_eq!(
            c,
            PackCounts {
                culled: 1,
                beyond: 0,
                spawning: 1
            }
        );
        assert_eq!(out[0], vec![1.0, -5.0, 1.5, 2.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn distance_buckets_with_hysteresis_and_debug_colours() {
        let settings = LodSettings {
            near: 10.0,
            mid: 30.0,
            far: 80.0,
            impostor: f32::INFINITY,
            hysteresis: 2.0,
            ..Default::default()
        };
        let eye = Vec3::new(0.0, MARKER_HEIGHT * 0.5, 0.0);
        let positions = [
            Vec2::new(0.0, -5.0),
            Vec2::new(0.0, -20.0),
            Vec2::new(0.0, -50.0),
            Vec2::new(0.0, -200.0),
        ];
        let headings = [0.0; 4];
        let colors = [Vec3::ONE; 4];
        let mut out: [Vec<f32>; 3] = Default::default();
        let mut state = Vec::new();
        let opts = PackOptions {
            frustum: None,
            eye,
            lod: Some(&settings),
            lod_colors: true,
        };
        let c = pack_markers(
            &opts,
            &positions,
            &headings,
            &colors,
            |_| 1.0,
            &mut state,
            &mut out,
        );
        assert_eq!(c.beyond, 1);
        assert_eq!(out.each_ref().map(|b| b.len() / MARKER_FLOATS), [1, 1, 1]);
        assert_eq!(&out[1][4..7], LOD_COLORS[1].to_array().as_slice());
        // An agent just past the near boundary keeps near detail (hysteresis), then switches.
        let near_edge = [Vec2::new(0.0, -10.5)];
        let mut state = vec![Lod::Near];
        pack_markers(
            &opts,
            &near_edge,
            &[0.0],
            &[Vec3::ONE],
            |_| 1.0,
            &mut state,
            &mut out,
        );
        assert_eq!(state[0], Lod::Near);
        pack_markers(
            &opts,
            &[Vec2::new(0.0, -11.5)],
            &[0.0],
            &[Vec3::ONE],
            |_| 1.0,
            &mut state,
            &mut out,
        );
        assert_eq!(state[0], Lod::Mid);
    }
}

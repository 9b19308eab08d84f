//! Per-instance constant blocks (GPU Gems 3 ch. 2): each instance is five vec4 in a uniform array
//! that an instanced draw indexes with gl_InstanceID.
//!
//! Layout of one instance (80 bytes):
//! - vec4 0..2: rows 0..2 of the 3x4 world matrix (rotation·scale | translation)
//! - vec4 3: colour tint (linear rgb, a = tint strength; skin is masked in the mesh)
//! - vec4 4: animation (frame position of clip A, frame position of clip B, blend A→B, flags);
//!   a frame position is `first row of the frame + fraction`, see the animation texture.

use std::ops::Range;

use glam::{Mat4, Vec4};

pub const VEC4_PER_INSTANCE: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InstanceData {
    /// Affine world transform; its last row must be (0, 0, 0, 1).
    pub world: Mat4,
    pub color: Vec4,
    pub anim: Vec4,
}

/// Appends one instance's five vec4 to `out`.
pub fn pack_instance(out: &mut Vec<[f32; 4]>, inst: &InstanceData) {
    for r in 0..3 {
        out.push(inst.world.row(r).to_array());
    }
    out.push(inst.color.to_array());
    out.push(inst.anim.to_array());
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
    use glam::{Quat, Vec3};

    #[test]
    fn packing_round_trips_transform_colour_and_animation() {
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
            pack_instance(&mut out, i);
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

    #[test]
    fn batch_size_comes_from_the_uniform_limit() {
        assert_eq!(instances_per_batch(4096, 10), Ok(817));
        assert_eq!(instances_per_batch(256, 10), Ok(49));
        assert_eq!(instances_per_batch(1024, 4), Ok(204));
        assert_eq!(instances_per_batch(15, 10), Ok(1));
        let err = instances_per_batch(14, 10).unwrap_err();
        assert!(err.contains("allows 14 vertex uniform vectors"), "{err}");
        assert!(instances_per_batch(5, 10).is_err());
    }

    #[test]
    fn batches_cover_every_instance_once_at_the_edges() {
        let limit = 49;
        for count in [0, 1, limit - 1, limit, limit + 1, 10_000] {
            let ranges: Vec<_> = batch_ranges(count, limit).collect();
            assert_eq!(ranges.len(), count.div_ceil(limit), "count {count}");
            let mut next = 0;
            for r in &ranges {
                assert_eq!(r.start, next);
                assert!(r.len() <= limit && !r.is_empty());
                next = r.end;
            }
            assert_eq!(next, count);
        }
    }
}

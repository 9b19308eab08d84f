//! The crowd's runtime vertex animation texture (seed 002), built in memory at load (the offline
//! `throng bake` tool is `tools/vat/`): the mid and far meshes skinned on the CPU at
//! every row of the animation-matrix texture, so the GPU reads a finished vertex instead of
//! blending joint matrices. The instance blocks stay the same: an instance's frame position
//! ("animation row + fraction") addresses the VAT as well.
//!
//! Layout (one RGBA32F texture, `width` texels per row, filled linearly): a baked mesh owns
//! `anim_rows * vertices` consecutive texels from `first_texel`; the texel of (animation row
//! `r`, vertex `v`) is `first_texel + (r - first_anim_row) * vertices + v`, at
//! `(index % width, index / width)`. A texel is the skinned model-space position in rgb and
//! the skinned normal in a, quantised to 8 bits per axis and packed as the integer
//! `x + 256 y + 65536 z` (exact in a float; one texel per vertex halves the memory of a
//! separate normal texel). The shader (`render/shaders/crowd.vert`, `VAT`) reads the same way.

use glam::{Mat4, Vec3};

use super::CrowdAssets;

/// Which levels of detail (near, mid, far) the VAT path bakes: the near figures keep their
/// four-influence matrix skinning (a close viewer sees the blend; the near mesh is also 6x the
/// vertices of mid).
pub const VAT_LODS: [bool; 3] = [false, true, true];

/// Texels per row of the VAT (clamped to the GPU's limit).
pub const VAT_WIDTH: u32 = 4096;

/// Bytes the VAT may take (RGBA32F), checked before it is allocated: the plaza's is ~50 MB.
pub const MAX_VAT_BYTES: u64 = 256 << 20;

/// Where one (submesh, level of detail) lives in the VAT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VatMesh {
    pub first_texel: u32,
    /// The animation-texture rows covered: `first_anim_row .. first_anim_row + anim_rows`.
    pub first_anim_row: u32,
    pub anim_rows: u32,
    pub vertices: u32,
}

impl VatMesh {
    /// Linear texel index of `vertex` at animation row `row` (None outside the baked rows).
    pub fn texel_index(&self, row: u32, vertex: u32) -> Option<u32> {
        let r = row.checked_sub(self.first_anim_row)?;
        (r < self.anim_rows && vertex < self.vertices)
            .then(|| self.first_texel + r * self.vertices + vertex)
    }
}

/// The baked texture and its directory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CrowdVat {
    pub width: u32,
    pub rows: u32,
    /// 4 floats per texel, `width * rows` texels.
    pub data: Vec<f32>,
    /// Per submesh, per level of detail.
    pub meshes: Vec<[Option<VatMesh>; 3]>,
    /// Seconds of animation baked, summed over the distinct clip ranges (for memory per
    /// clip-second).
    pub clip_seconds: f32,
}

/// Packs a unit normal into one float: 8 bits per axis as `x + 256 y + 65536 z`.
pub fn pack_normal(n: Vec3) -> f32 {
    let n = n.normalize_or_zero();
    let q = |c: f32| ((c * 0.5 + 0.5) * 255.0).round().clamp(0.0, 255.0) as u32;
    (q(n.x) + 256 * q(n.y) + 65536 * q(n.z)) as f32
}

/// The inverse of `pack_normal` (not renormalised, as in the shader before interpolation).
pub fn unpack_normal(w: f32) -> Vec3 {
    let i = w.max(0.0) as u32;
    let c = |k: u32| ((i >> (8 * k)) & 255) as f32 / 127.5 - 1.0;
    Vec3::new(c(0), c(1), c(2))
}

impl CrowdVat {
    /// Bakes the levels of detail in `lods` of every submesh over the animation rows of every
    /// body that wears it. `max_side` is the GPU's texture size limit.
    pub fn bake(assets: &CrowdAssets, lods: [bool; 3], max_side: u32) -> Result<CrowdVat, String> {
        let width = VAT_WIDTH.min(max_side).max(1);
        let tex = &assets.texture;
        let mut meshes: Vec<[Option<VatMesh>; 3]> = vec![[None; 3]; assets.submeshes.len()];
        let mut texels: u64 = 0;
        let mut plan = Vec::new();
        for (s, submesh) in assets.submeshes.iter().enumerate() {
            let Some((lo, hi)) = rows_worn(assets, s) else {
                continue;
            };
            for (lod, mesh) in submesh.lods.iter().enumerate() {
                let Some(mesh) = mesh
                    .as_ref()
                    .filter(|m| lods[lod] && !m.vertices.is_empty())
                else {
                    continue;
                };
                let entry = VatMesh {
                    first_texel: texels as u32,
                    first_anim_row: lo,
                    anim_rows: hi - lo,
                    vertices: mesh.vertices.len() as u32,
                };
                texels += entry.anim_rows as u64 * entry.vertices as u64;
                if texels > u32::MAX as u64 {
                    return Err("the vertex animation texture would exceed 4 billion texels".into());
                }
                meshes[s][lod] = Some(entry);
                plan.push((entry, mesh));
            }
        }
        let rows = texels.div_ceil(width as u64) as u32;
        if rows > max_side {
            return Err(format!(
                "the vertex animation texture needs {width}x{rows} texels but this GPU allows \
                 {max_side} per side; bake fewer levels of detail or shorter clips"
            ));
        }
        let bytes = width as u64 * rows.max(1) as u64 * 16;
        if bytes > MAX_VAT_BYTES {
            return Err(format!(
                "the vertex animation texture would take {} MiB ({width}x{rows} texels), above \
                 its limit of {} MiB; use shorter clips or fewer levels of detail",
                bytes.div_ceil(1 << 20),
                MAX_VAT_BYTES >> 20
            ));
        }
        let mut data = vec![0.0f32; width as usize * rows.max(1) as usize * 4];
        let mut palette = vec![Mat4::ZERO; tex.joints as usize];
        for (entry, mesh) in plan {
            for r in 0..entry.anim_rows {
                let row = entry.first_anim_row + r;
                for (j, m) in palette.iter_mut().enumerate() {
                    *m = tex.matrix(row, j as u32);
                }
                let start = (entry.first_texel + r * entry.vertices) as usize * 4;
                for (vert, out) in mesh
                    .vertices
                    .iter()
                    .zip(data[start..start + entry.vertices as usize * 4].chunks_exact_mut(4))
                {
                    let (p, n) = vert.skinned(&palette, mesh.influences);
                    out.copy_from_slice(&[p.x, p.y, p.z, pack_normal(n)]);
                }
            }
        }
        Ok(CrowdVat {
            width,
            rows: rows.max(1),
            data,
            meshes,
            clip_seconds: baked_clip_seconds(assets),
        })
    }

    /// GPU bytes as RGBA32F.
    pub fn bytes(&self) -> u64 {
        self.data.len() as u64 * 4
    }

    /// Position and unpacked normal stored for (submesh, lod, animation row, vertex): what
    /// texelFetch returns to the shader.
    pub fn vertex(
        &self,
        submesh: usize,
        lod: usize,
        row: u32,
        vertex: u32,
    ) -> Option<(Vec3, Vec3)> {
        let entry = self.meshes.get(submesh)?.get(lod)?.as_ref()?;
        let i = entry.texel_index(row, vertex)? as usize * 4;
        let t = self.data.get(i..i + 4)?;
        Some((Vec3::new(t[0], t[1], t[2]), unpack_normal(t[3])))
    }

    /// CPU reference of the shader's read at a fractional frame position.
    pub fn blended_position(
        &self,
        submesh: usize,
        lod: usize,
        frame: f32,
        vertex: u32,
    ) -> Option<Vec3> {
        let row = frame.floor();
        let f = frame - row;
        let (a, _) = self.vertex(submesh, lod, row as u32, vertex)?;
        if f <= 0.0 {
            return Some(a);
        }
        let (b, _) = self.vertex(submesh, lod, row as u32 + 1, vertex)?;
        Some(a.lerp(b, f))
    }
}

/// The animation rows of every body that wears submesh `s` (as its body, a prop or an
/// attachment).
fn rows_worn(assets: &CrowdAssets, s: usize) -> Option<(u32, u32)> {
    assets
        .bodies
        .iter()
        .filter(|b| b.wears(s))
        .flat_map(|b| b.clips.iter())
        .map(|c| (c.first_row, c.first_row + c.frames))
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
}

/// Seconds of distinct baked clips (shared bakes counted once).
fn baked_clip_seconds(assets: &CrowdAssets) -> f32 {
    let mut seen = std::collections::BTreeSet::new();
    assets
        .bodies
        .iter()
        .flat_map(|b| b.clips.iter())
        .filter(|c| seen.insert(c.first_row))
        .map(|c| c.duration)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_pack_into_one_exact_float_and_come_back_within_a_quantum() {
        for n in [
            Vec3::X,
            -Vec3::Y,
            Vec3::new(0.3, -0.5, 0.8).normalize(),
            Vec3::new(-1.0, 1.0, -1.0).normalize(),
        ] {
            let w = pack_normal(n);
            assert_eq!(w, w.round(), "an integer");
            assert!(w < 16_777_216.0, "exact in f32");
            let back = unpack_normal(w);
            assert!(
                (back - n).abs().max_element() <= 1.0 / 255.0 + 1e-6,
                "{n} -> {back}"
            );
        }
    }

    #[test]
    fn texel_index_covers_only_the_baked_rows() {
        let m = VatMesh {
            first_texel: 100,
            first_anim_row: 10,
            anim_rows: 3,
            vertices: 5,
        };
        assert_eq!(m.texel_index(10, 0), Some(100));
        assert_eq!(m.texel_index(12, 4), Some(114));
        assert_eq!(m.texel_index(9, 0), None);
        assert_eq!(m.texel_index(13, 0), None);
        assert_eq!(m.texel_index(10, 5), None);
    }
}

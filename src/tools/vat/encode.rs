//! Texel encodings. Every format stores `n = (value - aabb.min) / aabb.size` in [0, 1] per
//! channel (alpha 1), so one decode rule `value = min + n * size` serves all of them:
//! - `f32`: RGBA32F, error ~1e-7 × size;
//! - `f16`: RGBA16F, error ≤ 2^-12 × size per axis (half spacing in [0.5, 1) is 2^-11);
//! - `rgba8x2`: 16-bit fixed point `q = round(n × 65535)` split into two RGBA8 images stacked
//!   vertically (high bytes in the top half, low bytes in the bottom half), for GPUs without
//!   float textures; error ≤ size / 131070 per axis.

use glam::Vec3;
use half::f16;
use serde::{Deserialize, Serialize};

use super::bake::VatLayout;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum VatFormat {
    /// RGBA32F OpenEXR.
    F32,
    /// RGBA16F OpenEXR.
    F16,
    /// Two RGBA8 halves (high, low byte) in one PNG.
    Rgba8x2,
}

impl VatFormat {
    pub fn name(self) -> &'static str {
        match self {
            VatFormat::F32 => "f32",
            VatFormat::F16 => "f16",
            VatFormat::Rgba8x2 => "rgba8x2",
        }
    }
    pub fn extension(self) -> &'static str {
        match self {
            VatFormat::F32 | VatFormat::F16 => "exr",
            VatFormat::Rgba8x2 => "png",
        }
    }
    /// GPU memory per vertex per stored frame (both RGBA8 texels for `rgba8x2`).
    pub fn bytes_per_texel(self) -> usize {
        match self {
            VatFormat::F32 => 16,
            VatFormat::F16 | VatFormat::Rgba8x2 => 8,
        }
    }
    /// Largest per-axis error of an encode + decode round trip, as a fraction of the AABB size
    /// on that axis (plus the f32 rounding of `min + n * size` the decoder itself adds).
    pub fn relative_bound(self) -> f32 {
        match self {
            VatFormat::F32 => 2e-7,
            VatFormat::F16 => 1.0 / 4096.0 + 2e-7,
            VatFormat::Rgba8x2 => 0.5 / 65535.0 + 2e-7,
        }
    }
}

/// The remap box: `value = min + n * size`. An axis with size 0 decodes to `min` exactly.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VatAabb {
    pub min: [f32; 3],
    pub size: [f32; 3],
}

impl VatAabb {
    /// Unit normals: n * 0.5 + 0.5.
    pub const NORMALS: VatAabb = VatAabb {
        min: [-1.0; 3],
        size: [2.0; 3],
    };

    pub fn of(values: impl Iterator<Item = Vec3>, pad: f32) -> Self {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for v in values {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if lo.x > hi.x {
            lo = Vec3::ZERO;
            hi = Vec3::ZERO;
        }
        let (lo, hi) = (lo - Vec3::splat(pad), hi + Vec3::splat(pad));
        Self {
            min: lo.to_array(),
            size: (hi - lo).to_array(),
        }
    }

    pub fn min(&self) -> Vec3 {
        Vec3::from_array(self.min)
    }
    pub fn size(&self) -> Vec3 {
        Vec3::from_array(self.size)
    }

    pub fn normalize(&self, v: Vec3) -> Vec3 {
        let (min, size) = (self.min(), self.size());
        let n = |k: usize| {
            if size[k] > 0.0 {
                ((v[k] - min[k]) / size[k]).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        Vec3::new(n(0), n(1), n(2))
    }

    pub fn denormalize(&self, n: Vec3) -> Vec3 {
        self.min() + n * self.size()
    }
}

/// Normalised texels of the whole image (`layout.width × layout.height`, row-major, RGBA with
/// alpha 1); texels past the last vertex of a frame's last row stay 0.
pub fn normalize_texels(values: &[Vec3], layout: &VatLayout, aabb: &VatAabb) -> Vec<[f32; 4]> {
    let mut out = vec![[0.0f32; 4]; layout.width as usize * layout.height() as usize];
    let n = layout.vertex_count as usize;
    for f in 0..layout.frame_count {
        for v in 0..layout.vertex_count {
            let Some(p) = values.get(f as usize * n + v as usize) else {
                continue;
            };
            let q = aabb.normalize(*p);
            out[layout.texel_index(v, f)] = [q.x, q.y, q.z, 1.0];
        }
    }
    out
}

/// Back from normalised texels to values, frame-major without the padding texels.
pub fn denormalize_texels(texels: &[[f32; 4]], layout: &VatLayout, aabb: &VatAabb) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(layout.vertex_count as usize * layout.frame_count as usize);
    for f in 0..layout.frame_count {
        for v in 0..layout.vertex_count {
            let t = texels
                .get(layout.texel_index(v, f))
                .copied()
                .unwrap_or_default();
            out.push(aabb.denormalize(Vec3::new(t[0], t[1], t[2])));
        }
    }
    out
}

pub fn to_f16(texels: &[[f32; 4]]) -> Vec<[f16; 4]> {
    texels.iter().map(|t| t.map(f16::from_f32)).collect()
}

/// What an f16 image stores, read back as f32 (for checking the bound without a file).
pub fn through_f16(texels: &[[f32; 4]]) -> Vec<[f32; 4]> {
    texels
        .iter()
        .map(|t| t.map(|c| f16::from_f32(c).to_f32()))
        .collect()
}

pub fn quantize(n: f32) -> u16 {
    (n.clamp(0.0, 1.0) * 65535.0).round() as u16
}

/// RGBA8 bytes of a `width × 2·height` image: rows `0..height` hold the high bytes, rows
/// `height..2·height` the low bytes of the same texels.
pub fn to_rgba8x2(texels: &[[f32; 4]], width: u32, height: u32) -> Vec<u8> {
    let half = width as usize * height as usize * 4;
    let mut out = vec![0u8; half * 2];
    for (i, t) in texels.iter().enumerate().take(half / 4) {
        for (c, &n) in t.iter().enumerate() {
            let q = quantize(n);
            out[i * 4 + c] = (q >> 8) as u8;
            out[half + i * 4 + c] = (q & 0xff) as u8;
        }
    }
    out
}

/// Inverse of [`to_rgba8x2`]: `n = (hi · 256 + lo) / 65535`.
pub fn from_rgba8x2(bytes: &[u8], width: u32, height: u32) -> Vec<[f32; 4]> {
    let half = width as usize * height as usize * 4;
    (0..half / 4)
        .map(|i| {
            let mut t = [0.0f32; 4];
            for (c, slot) in t.iter_mut().enumerate() {
                let hi = bytes.get(i * 4 + c).copied().unwrap_or(0) as u32;
                let lo = bytes.get(half + i * 4 + c).copied().unwrap_or(0) as u32;
                *slot = (hi * 256 + lo) as f32 / 65535.0;
            }
            t
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> (Vec<Vec3>, VatLayout) {
        let layout = VatLayout::new(37, 5, 16);
        let v = (0..37 * 5)
            .map(|i| {
                let x = i as f32 * 0.731;
                Vec3::new(
                    x.sin() * 0.9,
                    1.8 * (x * 0.37).cos().abs(),
                    x.cos() * -0.3 + 0.1,
                )
            })
            .collect();
        (v, layout)
    }

    #[test]
    fn every_format_round_trips_within_its_bound() {
        let (v, layout) = values();
        let aabb = VatAabb::of(v.iter().copied(), 0.0);
        let tex = normalize_texels(&v, &layout, &aabb);
        assert_eq!((layout.width, layout.rows_per_frame), (13, 3));
        assert_eq!(tex.len(), 13 * 3 * 5);
        let decoded = [
            (VatFormat::F32, tex.clone()),
            (VatFormat::F16, through_f16(&tex)),
            (
                VatFormat::Rgba8x2,
                from_rgba8x2(&to_rgba8x2(&tex, 13, 15), 13, 15),
            ),
        ];
        for (format, t) in decoded {
            let back = denormalize_texels(&t, &layout, &aabb);
            let bound = aabb.size() * format.relative_bound();
            let mut worst = Vec3::ZERO;
            for (a, b) in v.iter().zip(&back) {
                let d = (*a - *b).abs();
                assert!(d.cmple(bound).all(), "{format:?}: {a} vs {b}");
                worst = worst.max(d);
            }
            // The bound is tight: the worst case is at least a third of it for the lossy ones.
            if format != VatFormat::F32 {
                assert!((worst / bound).max_element() > 0.3, "{format:?} {worst}");
            }
        }
    }

    #[test]
    fn flat_axis_decodes_exactly_and_bytes_split_high_low() {
        let aabb = VatAabb::of(
            [Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 4.0, 3.0)].into_iter(),
            0.0,
        );
        assert_eq!(aabb.size, [0.0, 2.0, 0.0]);
        assert_eq!(
            aabb.denormalize(aabb.normalize(Vec3::new(1.0, 3.0, 3.0))),
            Vec3::new(1.0, 3.0, 3.0)
        );
        let b = to_rgba8x2(&[[1.0, 0.5, 0.0, 1.0]], 1, 1);
        // 0.5 × 65535 = 32767.5 → 32768 = 0x8000.
        assert_eq!(b, vec![0xff, 0x80, 0x00, 0xff, 0xff, 0x00, 0x00, 0xff]);
    }
}

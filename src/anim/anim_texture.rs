//! The animation-matrix texture of the crowd (GPU Gems 3 ch. 2): every baked clip frame is one
//! texture row; joint `j` of that frame is its 3x4 skinning matrix in texels `3j..3j+3`
//! (the matrix's rows 0, 1, 2 as RGBA). A clip is a range of rows; the instance's animation
//! vec4 holds "first row + fractional frame" for the two clips it blends.
//!
//! This file owns the layout: the shader (`render/shaders/crowd.vert`) and the CPU reference
//! (`AnimTexture::blended_matrix`) read it the same way.

use glam::{Mat4, Vec4};

use super::{AnimError, ClipSampler};
use crate::asset::AnimationClipAsset;

/// Texels per joint: the three rows of a 3x4 affine matrix.
pub const TEXELS_PER_JOINT: u32 = 3;

/// Rows the texture may hold over all clips: the height every desktop GL 4 GPU takes (the
/// renderer checks the actual GPU's limit on upload). At 30 fps that is 9 minutes of clips.
pub const MAX_ROWS: u32 = 16_384;

/// Joints per row: 1024 joints are 3072 texels, inside the 4096 every GLES 3 GPU takes.
pub const MAX_JOINTS: u32 = 1024;

/// Bytes of texel data (RGBA32F): the GPU memory the texture may take.
pub const MAX_BYTES: u64 = 64 << 20;

/// Sampling work of one clip: rows × nodes, since every row poses the whole scene. 2^26 is
/// under 2 s in a debug build; the bundled characters need ~3000 per clip.
pub const MAX_SAMPLE_WORK: u64 = 1 << 26;

/// Where one baked clip lives in the texture and how its time maps onto rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipRows {
    pub first_row: u32,
    /// Baked frames, including the one at `duration` (so interpolation never needs to wrap).
    pub frames: u32,
    pub fps: f32,
    pub duration: f32,
    pub looping: bool,
}

impl ClipRows {
    /// Time of baked frame `i`: `i / fps`, the last one clamped to the clip's end.
    pub fn frame_time(&self, i: u32) -> f32 {
        (i as f32 / self.fps).min(self.duration)
    }

    /// "Row + fraction" for clip time `t`: looping clips wrap, others hold their last frame.
    /// The fraction is exact even over the last, shorter interval.
    pub fn frame_position(&self, t: f32) -> f32 {
        if self.frames < 2 || self.duration <= 0.0 || !t.is_finite() {
            return self.first_row as f32;
        }
        let t = if self.looping {
            t.rem_euclid(self.duration)
        } else {
            t.clamp(0.0, self.duration)
        };
        let last = self.frames - 1;
        let i = ((t * self.fps) as u32).min(last - 1);
        let (t0, t1) = (self.frame_time(i), self.frame_time(i + 1));
        let frac = if t1 > t0 {
            ((t - t0) / (t1 - t0)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        // Keep the fraction strictly below 1 so floor() in the shader stays on row i.
        (self.first_row + i) as f32 + frac.min(0.9999)
    }
}

/// RGBA32F texel data, row-major, `width` texels per row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnimTexture {
    /// Texels per row: `joints * 3`.
    pub width: u32,
    pub joints: u32,
    pub rows: u32,
    /// 4 floats per texel.
    pub data: Vec<f32>,
}

impl AnimTexture {
    pub fn new(joints: u32) -> Self {
        AnimTexture {
            width: joints * TEXELS_PER_JOINT,
            joints,
            rows: 0,
            data: Vec::new(),
        }
    }

    /// Bytes the texture takes on the GPU as RGBA32F.
    pub fn bytes(&self) -> usize {
        self.data.len() * 4
    }

    /// Bakes `clip` at `fps` and appends its rows. Reuses rows already holding the very same
    /// matrices (bodies sharing one skeleton share one bake). The clip's rows and the texture's
    /// size are checked against [`MAX_ROWS`], [`MAX_JOINTS`] and [`MAX_BYTES`] before anything
    /// is sampled; a clip over them is an [`AnimError::Limit`].
    pub fn add_clip(
        &mut self,
        sampler: &mut ClipSampler,
        clip: &AnimationClipAsset,
        fps: f32,
        looping: bool,
    ) -> Result<ClipRows, AnimError> {
        if sampler.joint_count() as u32 > self.joints {
            return Err(AnimError::ClipMismatch(format!(
                "{} joints do not fit a texture row of {} joints",
                sampler.joint_count(),
                self.joints
            )));
        }
        let duration = clip.duration.max(0.0);
        let frames = self.check_rows(duration, fps)?;
        let work = frames as u64 * sampler.pose().node_count() as u64;
        if work > MAX_SAMPLE_WORK {
            return Err(AnimError::Limit(format!(
                "the clip's {frames} rows would each pose {} nodes ({work} node updates), above \
                 the limit of {MAX_SAMPLE_WORK}; shorten the clip or use a smaller scene",
                sampler.pose().node_count()
            )));
        }
        let mut rows = ClipRows {
            first_row: self.rows,
            frames,
            fps,
            duration,
            looping,
        };
        let mut baked = Vec::with_capacity(frames as usize * self.width as usize * 4);
        let mut palette = Vec::new();
        for i in 0..frames {
            sampler.sample(clip, rows.frame_time(i), &mut palette)?;
            let start = baked.len();
            for m in &palette {
                push_matrix_rows(&mut baked, m);
            }
            baked.resize(start + (self.width * 4) as usize, 0.0);
        }
        if let Some(row) = self.find_rows(&baked) {
            rows.first_row = row;
            return Ok(rows);
        }
        let total = self.rows as u64 + frames as u64;
        let bytes = total * self.row_bytes();
        if total > MAX_ROWS as u64 || bytes > MAX_BYTES {
            return Err(AnimError::Limit(format!(
                "the animation texture would have {total} rows of {} joints ({} MiB), above its \
                 limit of {MAX_ROWS} rows and {} MiB over all clips of all crowd models; use \
                 fewer or shorter clips",
                self.joints,
                bytes.div_ceil(1 << 20),
                MAX_BYTES >> 20
            )));
        }
        self.data.extend_from_slice(&baked);
        self.rows += frames;
        Ok(rows)
    }

    /// Bytes of one row as RGBA32F.
    fn row_bytes(&self) -> u64 {
        self.width as u64 * 16
    }

    /// Rows a clip of `duration` seconds takes at `fps` (`ceil(duration × fps) + 1`, at least
    /// 2), once they are known to fit the limits on their own.
    fn check_rows(&self, duration: f32, fps: f32) -> Result<u32, AnimError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(AnimError::Limit(format!(
                "frame rate {fps} is not allowed; allowed: a finite number above 0"
            )));
        }
        if self.joints > MAX_JOINTS {
            return Err(AnimError::Limit(format!(
                "{} joints are above the animation texture's limit of {MAX_JOINTS} per row",
                self.joints
            )));
        }
        // In f64 and before any cast: a long clip must not saturate or wrap the count.
        let rows = (duration as f64 * fps as f64).ceil().max(1.0) + 1.0;
        if rows > MAX_ROWS as f64 {
            return Err(AnimError::Limit(format!(
                "the clip lasts {} s: {} rows at {fps} fps, above the animation texture's limit \
                 of {MAX_ROWS} rows; shorten the clip or give this activity another",
                short_seconds(duration),
                short_count(rows)
            )));
        }
        let bytes = rows as u64 * self.row_bytes();
        if bytes > MAX_BYTES {
            return Err(AnimError::Limit(format!(
                "the clip's {rows} rows of {} joints take {} MiB, above the animation \
                 texture's limit of {} MiB",
                self.joints,
                bytes.div_ceil(1 << 20),
                MAX_BYTES >> 20
            )));
        }
        Ok(rows as u32)
    }

    fn find_rows(&self, baked: &[f32]) -> Option<u32> {
        let row_floats = (self.width * 4) as usize;
        if row_floats == 0 {
            return None;
        }
        (0..self.rows as usize)
            .filter(|r| (r + baked.len() / row_floats) <= self.rows as usize)
            .find(|&r| self.data[r * row_floats..r * row_floats + baked.len()] == *baked)
            .map(|r| r as u32)
    }

    /// The three texels of `joint` in `row` as stored: rows 0-2 of its 3x4 skinning matrix
    /// (what texelFetch returns).
    pub fn matrix_rows(&self, row: u32, joint: u32) -> [Vec4; 3] {
        let base = ((row * self.width + joint * TEXELS_PER_JOINT) * 4) as usize;
        std::array::from_fn(|k| {
            self.data
                .get(base + k * 4..base + k * 4 + 4)
                .map_or(Vec4::ZERO, Vec4::from_slice)
        })
    }

    /// The skinning matrix of `joint` stored in `row`.
    pub fn matrix(&self, row: u32, joint: u32) -> Mat4 {
        let [r0, r1, r2] = self.matrix_rows(row, joint);
        Mat4::from_cols(r0, r1, r2, Vec4::W).transpose()
    }

    /// CPU reference of the shader's read: the matrix at a fractional frame position, linearly
    /// interpolated between the two nearest rows.
    pub fn blended_matrix(&self, frame_position: f32, joint: u32) -> Mat4 {
        let row = frame_position.floor();
        let frac = frame_position - row;
        let a = self.matrix(row as u32, joint);
        let b = self.matrix(row as u32 + 1, joint);
        a * (1.0 - frac) + b * frac
    }
}

/// Seconds as written, or as `1.5e8` from a million on (a 39-digit duration helps nobody).
/// Limit messages here and in the VAT bake share it.
pub(crate) fn short_seconds(s: f32) -> String {
    if s < 1e6 {
        format!("{s}")
    } else {
        format!("{s:e}")
    }
}

/// A whole count exactly below 1e15, else to three digits (`9.00e39`).
pub(crate) fn short_count(n: f64) -> String {
    if n < 1e15 {
        format!("{n}")
    } else {
        format!("{n:.2e}")
    }
}

/// Rows 0..3 of an affine matrix, as three RGBA texels.
fn push_matrix_rows(out: &mut Vec<f32>, m: &Mat4) {
    for r in 0..3 {
        out.extend_from_slice(&m.row(r).to_array());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(frames: u32, duration: f32, looping: bool) -> ClipRows {
        ClipRows {
            first_row: 10,
            frames,
            fps: 30.0,
            duration,
            looping,
        }
    }

    #[test]
    fn frame_positions_wrap_for_loops_and_hold_for_one_shots() {
        // 1.25 s at 30 fps: frames at 0, 1/30, ... 37/30 and the end (38 intervals, 39 frames).
        let r = rows(39, 1.25, true);
        assert_eq!(r.frame_position(0.0), 10.0);
        assert_approx!(r.frame_position(0.5), 25.0, 1e-4);
        assert_approx!(r.frame_position(1.25 + 0.5), 25.0, 1e-3);
        // Over the last, shorter interval (37/30 .. 1.25) the fraction still runs 0..1.
        let last_start = 37.0 / 30.0;
        let mid = (last_start + 1.25) * 0.5;
        assert_approx!(r.frame_position(mid), 47.5, 1e-3);
        let one_shot = rows(39, 1.25, false);
        let end = one_shot.frame_position(9.0);
        assert!((47.0..48.0).contains(&end), "{end}");
        assert_eq!(one_shot.frame_position(-1.0), 10.0);
        assert_eq!(one_shot.frame_position(f32::NAN), 10.0);
    }
}

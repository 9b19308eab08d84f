//! Where each picture of the impostor atlas lives, GL-free: the views (azimuths around the
//! person and a few elevations), the animation frames baked per activity, the cell of a
//! (frame, view) in the atlas, the projection each cell is baked with, and which cell a viewer
//! sees. The renderer bakes and samples by these numbers; the tests here check them.
//!
//! A cell is baked with an oblique projection onto the upright plane through the body's axis
//! that faces the view: a point's horizontal place is along the view's right vector and its
//! vertical place is its height moved along the view direction onto that plane. An upright
//! billboard turned to the viewer then shows each pixel where the mesh would stand.

use glam::{Mat4, Vec3, Vec4};

use crate::anim::anim_texture::ClipRows;
use crate::clip_kind::ClipKind;

/// Bumped whenever what the atlas holds or how it is laid out changes (old caches rebake).
pub const FORMAT_VERSION: u32 = 1;

/// Bytes per atlas texel over both textures (colour + alpha, normal + tint class).
pub const BYTES_PER_TEXEL: u64 = 8;

/// How finely impostors are baked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpostorParams {
    /// Views around the person, evenly spaced.
    pub azimuths: u32,
    /// Elevations of the views above the horizon, in degrees, ascending.
    pub elevations_deg: [f32; 2],
    /// Cell size in texels (a person is taller than wide).
    pub cell_width: u32,
    pub cell_height: u32,
    /// Frames per cycle for walking and running (the clips whose poses change most).
    pub moving_frames: u32,
    /// Frames for the other activities.
    pub other_frames: u32,
    /// The cell's height as a share of the figure's height (arms raised, the oblique shift).
    pub height_margin: f32,
}

impl ImpostorParams {
    pub const DEFAULT: ImpostorParams = ImpostorParams {
        azimuths: 12,
        elevations_deg: [10.0, 40.0],
        cell_width: 24,
        cell_height: 48,
        moving_frames: 8,
        other_frames: 4,
        height_margin: 1.2,
    };

    pub fn views(&self) -> u32 {
        self.azimuths * self.elevations_deg.len() as u32
    }

    /// Frames baked for a clip of `kind` with `rows` baked rows.
    pub fn frames_for(&self, kind: ClipKind, rows: u32) -> u32 {
        let want = match kind {
            ClipKind::Walk | ClipKind::Run => self.moving_frames,
            _ => self.other_frames,
        };
        // A one-row clip (a held pose) needs one picture.
        want.min(rows.max(1)).max(1)
    }
}

/// One activity of one body in the atlas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipFrames {
    /// The clip's rows in the animation texture.
    pub first_row: u32,
    pub rows: u32,
    pub looping: bool,
    /// Its first frame among all atlas frames, and how many it has.
    pub first_frame: u32,
    pub frames: u32,
}

impl ClipFrames {
    /// The animation-texture frame position the atlas frame `j` (0-based in this clip) is baked
    /// at: frames spread evenly over the clip's rows (a looping clip's end equals its start).
    pub fn bake_position(&self, j: u32) -> f32 {
        let span = self.rows.saturating_sub(1) as f32;
        let u = if self.looping {
            j as f32 / self.frames as f32
        } else if self.frames > 1 {
            j as f32 / (self.frames - 1) as f32
        } else {
            0.0
        };
        self.first_row as f32 + u * span
    }

    /// The atlas frame nearest to a frame position inside this clip's rows.
    pub fn frame_at(&self, position: f32) -> u32 {
        let span = self.rows.saturating_sub(1).max(1) as f32;
        let u = ((position - self.first_row as f32) / span).clamp(0.0, 1.0);
        let local = if self.looping {
            ((u * self.frames as f32).round() as u32) % self.frames
        } else {
            (u * (self.frames - 1) as f32).round() as u32
        };
        self.first_frame + local
    }

    /// The shader's table entry: first row, row span, first frame, frames (negative: holds).
    pub fn table_entry(&self) -> [f32; 4] {
        let frames = if self.looping {
            self.frames as f32
        } else {
            -(self.frames as f32)
        };
        [
            self.first_row as f32,
            self.rows.saturating_sub(1) as f32,
            self.first_frame as f32,
            frames,
        ]
    }
}

/// What the layout needs to know of a body.
#[derive(Debug, Clone, Copy)]
pub struct BodyShape {
    pub clips: [ClipRows; 7],
    /// Standing height in metres.
    pub height: f32,
}

/// One body's part of the atlas and the size of its cells in metres (at person scale 1).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyLayout {
    pub clips: [ClipFrames; 7],
    pub cell_width_m: f32,
    pub cell_height_m: f32,
    /// Height of the cell's centre above the ground.
    pub centre_y_m: f32,
}

impl BodyLayout {
    /// The atlas frame for an animation frame position (the clip whose rows hold it; the
    /// first clip's first frame when none does).
    pub fn frame_for(&self, position: f32) -> u32 {
        self.clips
            .iter()
            .find(|c| {
                let first = c.first_row as f32;
                position >= first && position <= first + c.rows.saturating_sub(1) as f32
            })
            .map_or(self.clips[0].first_frame, |c| c.frame_at(position))
    }

    /// Every (atlas frame, frame position) this body bakes.
    pub fn bake_frames(&self) -> Vec<(u32, f32)> {
        let mut out: Vec<(u32, f32)> = Vec::new();
        for c in &self.clips {
            for j in 0..c.frames {
                let frame = c.first_frame + j;
                if !out.iter().any(|&(f, _)| f == frame) {
                    out.push((frame, c.bake_position(j)));
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImpostorLayout {
    pub params: ImpostorParams,
    pub bodies: Vec<BodyLayout>,
    /// Atlas frames of all bodies.
    pub frames: u32,
    /// Cells per atlas row (a multiple of the view count, so a frame's views sit together).
    pub cells_per_row: u32,
    pub width: u32,
    pub height: u32,
}

/// The atlas width aimed for (a row holds several frames' views).
const TARGET_WIDTH: u32 = 4096;

impl ImpostorLayout {
    /// Lays out the atlas for `bodies`; an error when it would not fit `max_side` texels.
    pub fn new(
        params: ImpostorParams,
        bodies: &[BodyShape],
        max_side: u32,
    ) -> Result<ImpostorLayout, String> {
        let mut frames = 0u32;
        let mut out = Vec::with_capacity(bodies.len());
        for b in bodies {
            let clips: [ClipFrames; 7] = std::array::from_fn(|k| {
                let c = b.clips[k];
                let n = params.frames_for(ClipKind::ALL[k], c.frames);
                let first_frame = frames;
                frames += n;
                ClipFrames {
                    first_row: c.first_row,
                    rows: c.frames,
                    looping: c.looping,
                    first_frame,
                    frames: n,
                }
            });
            let cell_height_m = b.height.max(0.1) * params.height_margin;
            let cell_width_m = cell_height_m * params.cell_width as f32 / params.cell_height as f32;
            out.push(BodyLayout {
                clips,
                cell_width_m,
                cell_height_m,
                // A little below the feet, more room above the head.
                centre_y_m: cell_height_m * 0.5 - b.height * 0.05,
            });
        }
        let views = params.views();
        let width_cells = (TARGET_WIDTH.min(max_side) / params.cell_width).max(views);
        let cells_per_row = width_cells / views * views;
        let cells = frames as u64 * views as u64;
        let rows = cells.div_ceil(cells_per_row.max(1) as u64);
        let width = cells_per_row * params.cell_width;
        let height = rows * params.cell_height as u64;
        if width > max_side || height > max_side as u64 {
            return Err(format!(
                "the impostor atlas would be {width}x{height} texels but this GPU allows {max_side} \
                 per side ({frames} frames x {views} views of {}x{})",
                params.cell_width, params.cell_height
            ));
        }
        Ok(ImpostorLayout {
            params,
            bodies: out,
            frames,
            cells_per_row,
            width,
            height: height as u32,
        })
    }

    /// Both textures' bytes.
    pub fn bytes(&self) -> u64 {
        self.width as u64 * self.height as u64 * BYTES_PER_TEXEL
    }

    /// The lower-left texel of the cell of atlas frame `frame`, view `view`.
    pub fn cell_origin(&self, frame: u32, view: u32) -> (u32, u32) {
        let i = frame * self.params.views() + view;
        (
            (i % self.cells_per_row) * self.params.cell_width,
            (i / self.cells_per_row) * self.params.cell_height,
        )
    }

    /// The cell as the bake places it in the atlas's normalised device coordinates: centre
    /// (x, y) and half size (x, y).
    pub fn cell_ndc(&self, frame: u32, view: u32) -> Vec4 {
        let (x, y) = self.cell_origin(frame, view);
        let (w, h) = (self.width as f32, self.height as f32);
        let (cw, ch) = (
            self.params.cell_width as f32,
            self.params.cell_height as f32,
        );
        Vec4::new(
            (x as f32 + cw * 0.5) / w * 2.0 - 1.0,
            (y as f32 + ch * 0.5) / h * 2.0 - 1.0,
            cw / w,
            ch / h,
        )
    }

    /// The azimuth (radians, around +Y from +Z towards +X) and elevation of view `view`.
    pub fn view_angles(&self, view: u32) -> (f32, f32) {
        let a = self.params.azimuths;
        let az = (view % a) as f32 / a as f32 * std::f32::consts::TAU;
        let el = self.params.elevations_deg[(view / a) as usize % 2].to_radians();
        (az, el)
    }

    /// The view nearest to `dir` (from the person towards the eye, in the body's own frame).
    pub fn view_for(&self, dir: Vec3) -> u32 {
        let a = self.params.azimuths;
        let step = std::f32::consts::TAU / a as f32;
        let az = dir.x.atan2(dir.z).rem_euclid(std::f32::consts::TAU);
        let az_index = ((az / step).round() as u32) % a;
        let horizontal = (dir.x * dir.x + dir.z * dir.z).sqrt();
        let el = dir.y.atan2(horizontal).to_degrees();
        let e = &self.params.elevations_deg;
        let el_index = if (el - e[0]).abs() <= (el - e[1]).abs() {
            0
        } else {
            1
        };
        el_index * a + az_index
    }

    /// The projection a cell of `body` is baked with: the body's own frame in metres to the
    /// cell's [-1, 1] square (depth in [-1, 1], nearer the viewer smaller).
    pub fn bake_projection(&self, body: usize, view: u32) -> Mat4 {
        let b = &self.bodies[body];
        let (az, el) = self.view_angles(view);
        let toward = Vec3::new(az.sin(), 0.0, az.cos());
        let right = Vec3::new(az.cos(), 0.0, -az.sin());
        let dir = Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos());
        let (hw, hh) = (b.cell_width_m * 0.5, b.cell_height_m * 0.5);
        let depth = b.cell_height_m * 2.0;
        let t = el.tan();
        let c = b.centre_y_m;
        let rows = [
            Vec4::new(right.x, 0.0, right.z, 0.0) / hw,
            Vec4::new(-t * toward.x, 1.0, -t * toward.z, -c) / hh,
            -Vec4::new(dir.x, dir.y, dir.z, -dir.y * c) / depth,
            Vec4::W,
        ];
        Mat4::from_cols(rows[0], rows[1], rows[2], rows[3]).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(first_row: u32, frames: u32, looping: bool) -> ClipRows {
        ClipRows {
            first_row,
            frames,
            fps: 30.0,
            duration: (frames - 1) as f32 / 30.0,
            looping,
        }
    }

    fn body() -> BodyShape {
        BodyShape {
            clips: [
                clip(0, 61, true),
                clip(61, 31, true),
                clip(92, 21, true),
                clip(113, 40, false),
                clip(153, 1, false),
                clip(154, 50, true),
                clip(204, 60, true),
            ],
            height: 1.75,
        }
    }

    #[test]
    fn frames_per_activity_and_atlas_size_and_memory() {
        let p = ImpostorParams::DEFAULT;
        let layout = ImpostorLayout::new(p, &[body(), body()], 16384).expect("fits");
        // walk and run 8, the held sit pose 1, four others 4 each: 33 per body.
        assert_eq!(layout.frames, 66);
        assert_eq!(layout.bodies[1].clips[0].first_frame, 33);
        assert_eq!(layout.bodies[0].clips[4].frames, 1);
        // 24 views; 170 cells fit 4096 texels, 168 is a whole number of frames (7).
        assert_eq!(layout.cells_per_row, 168);
        assert_eq!(layout.width, 168 * 24);
        assert_eq!(layout.height, (66 * 24usize).div_ceil(168) as u32 * 48);
        assert_eq!(layout.bytes(), 4032 * 480 * 8);
        // Seven plaza-sized bodies stay far below 64 MB.
        let seven = ImpostorLayout::new(p, &[body(); 7], 16384).expect("fits");
        assert!(seven.bytes() < 64 << 20, "{}", seven.bytes());
        let err = ImpostorLayout::new(p, &[body()], 1024).expect_err("too small");
        assert!(err.contains("allows 1024 per side"), "{err}");
    }

    #[test]
    fn cells_do_not_overlap_and_ndc_matches_texels() {
        let layout = ImpostorLayout::new(ImpostorParams::DEFAULT, &[body()], 16384).expect("fits");
        let mut seen = std::collections::HashSet::new();
        for f in 0..layout.frames {
            for v in 0..layout.params.views() {
                let (x, y) = layout.cell_origin(f, v);
                assert!(x + 24 <= layout.width && y + 48 <= layout.height);
                assert!(seen.insert((x, y)), "frame {f} view {v}");
                let n = layout.cell_ndc(f, v);
                let left = (n.x - n.z + 1.0) * 0.5 * layout.width as f32;
                let bottom = (n.y - n.w + 1.0) * 0.5 * layout.height as f32;
                assert!((left - x as f32).abs() < 0.01 && (bottom - y as f32).abs() < 0.01);
            }
        }
    }

    #[test]
    fn frame_positions_map_to_the_nearest_baked_frame_and_back() {
        let layout = ImpostorLayout::new(ImpostorParams::DEFAULT, &[body()], 16384).expect("fits");
        let b = &layout.bodies[0];
        let walk = b.clips[1];
        // Walk rows 61..91 (30 intervals) over 8 looping frames: frame j at 61 + 3.75 j.
        assert_eq!(walk.bake_position(2), 61.0 + 7.5);
        assert_eq!(b.frame_for(61.0), walk.first_frame);
        assert_eq!(b.frame_for(61.0 + 7.4), walk.first_frame + 2);
        // The loop's end is its start again.
        assert_eq!(b.frame_for(91.0), walk.first_frame);
        for (frame, pos) in b.bake_frames() {
            assert_eq!(b.frame_for(pos), frame, "{pos}");
        }
        // A held clip (wave, not looping) keeps its last frame at its end.
        let wave = b.clips[3];
        assert_eq!(b.frame_for(152.0), wave.first_frame + 3);
        assert_eq!(
            wave.table_entry(),
            [113.0, 39.0, wave.first_frame as f32, -4.0]
        );
        // Outside every clip: the idle's first frame.
        assert_eq!(b.frame_for(9999.0), 0);
    }

    #[test]
    fn the_view_for_a_direction_is_the_nearest_azimuth_and_elevation() {
        let layout = ImpostorLayout::new(ImpostorParams::DEFAULT, &[body()], 16384).expect("fits");
        for v in 0..layout.params.views() {
            let (az, el) = layout.view_angles(v);
            let dir = Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos());
            assert_eq!(layout.view_for(dir), v);
            // 10 degrees of azimuth off (less than half of 30) keeps the view.
            let turned = Vec3::new(
                (az + 0.17).sin() * el.cos(),
                el.sin(),
                (az + 0.17).cos() * el.cos(),
            );
            assert_eq!(layout.view_for(turned), v);
        }
        // From straight above: the higher ring; from below the horizon: the lower one.
        assert!(layout.view_for(Vec3::Y) >= 12);
        assert!(layout.view_for(Vec3::new(0.0, -0.3, 1.0)) < 12);
    }

    #[test]
    fn the_bake_projection_puts_the_figure_upright_in_its_cell() {
        let layout = ImpostorLayout::new(ImpostorParams::DEFAULT, &[body()], 16384).expect("fits");
        let b = &layout.bodies[0];
        for v in 0..layout.params.views() {
            let m = layout.bake_projection(0, v);
            let (az, el) = layout.view_angles(v);
            // Points on the body's axis keep their height, whatever the view.
            let feet = m.project_point3(Vec3::ZERO);
            let head = m.project_point3(Vec3::new(0.0, 1.75, 0.0));
            assert!(feet.x.abs() < 1e-5 && head.x.abs() < 1e-5);
            assert!(feet.y > -1.0 && head.y < 1.0 && head.y > feet.y);
            assert!((head.y - feet.y - 1.75 / (b.cell_height_m * 0.5)).abs() < 1e-4);
            // The right vector goes to +x; a point towards the viewer is nearer (smaller z).
            let right = m.project_point3(Vec3::new(az.cos(), 1.0, -az.sin()) * 0.3);
            assert!(right.x > 0.0);
            let toward = Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos()) * 0.3;
            assert!(m.project_point3(toward + Vec3::Y).z < m.project_point3(Vec3::Y).z);
        }
    }
}

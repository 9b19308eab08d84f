//! `throng bake MODEL`: every value checked by clap before the model is even read.

use std::fmt::Write;
use std::path::PathBuf;

use crate::clock::Instant;
use clap::Args;

use super::bake::{BakeLimits, BakeOptions, ClipSelection, DEFAULT_MAX_HEIGHT, DEFAULT_MAX_WIDTH};
use super::bake::{MAX_AABB_PAD, MAX_FPS, MAX_TEXTURE_SIDE};
use super::files::{sha256_file, write_vat, SourceInfo};
use super::{bake, VatFormat, VatSpace};

#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("clips").required(true).args(["clip", "all"])))]
pub struct BakeArgs {
    /// Model file (.gltf, .glb, .vrm) with a skinned mesh and animation clips.
    pub model: PathBuf,
    /// Clip to bake, by name or index; repeat for several (packed into one atlas in this order).
    #[arg(long, value_name = "NAME")]
    pub clip: Vec<String>,
    /// Bake every clip of the model.
    #[arg(long, conflicts_with = "clip")]
    pub all: bool,
    /// Frames sampled per second of clip (1 to 240).
    #[arg(long, default_value_t = 30, value_parser = parse_fps)]
    pub fps: u32,
    /// Texel format: f32 (RGBA32F EXR), f16 (RGBA16F EXR), rgba8x2 (16-bit fixed point as two
    /// RGBA8 halves in a PNG, for GPUs without float textures).
    #[arg(long, value_enum, default_value_t = VatFormat::F16)]
    pub format: VatFormat,
    /// model: skinned positions; delta: offsets from the bind-pose vertex positions.
    #[arg(long, value_enum, default_value_t = VatSpace::Model)]
    pub space: VatSpace,
    /// Also bake skinned normals (a second image of the same layout).
    #[arg(long)]
    pub normals: bool,
    /// Drop frames that linear interpolation reproduces within this distance (metres, > 0).
    #[arg(long, value_name = "E", value_parser = parse_max_error, allow_hyphen_values = true)]
    pub max_error: Option<f32>,
    /// Output folder (created if missing).
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
    /// Base name of the output files (default: the model's file stem).
    #[arg(long)]
    pub name: Option<String>,
    /// Texture width limit; vertices wrap into more rows per frame beyond it.
    #[arg(long, default_value_t = DEFAULT_MAX_WIDTH, value_parser = parse_side)]
    pub max_width: u32,
    /// Texture height limit (rows per frame × stored frames must fit).
    #[arg(long, default_value_t = DEFAULT_MAX_HEIGHT, value_parser = parse_side)]
    pub max_height: u32,
    /// Metres added around the AABB before remapping (0 to 1000).
    #[arg(long, default_value_t = 0.0, value_parser = parse_pad, allow_hyphen_values = true)]
    pub pad: f32,
    /// Also write NAME.vat_ids.bin: one little-endian f32 vertex id per vertex, for GPUs
    /// without gl_VertexID.
    #[arg(long)]
    pub vertex_ids: bool,
}

fn parse_fps(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_FPS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}` is not a frame rate; allowed: a whole number from 1 to {MAX_FPS}"
        )),
    }
}

fn parse_max_error(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a distance; allowed: a finite number of metres above 0, e.g. 0.001"
        )),
    }
}

fn parse_pad(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (0.0..=MAX_AABB_PAD).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a distance; allowed: a number of metres from 0 to {MAX_AABB_PAD}"
        )),
    }
}

fn parse_side(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_TEXTURE_SIDE).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}` is not a texture size; allowed: a whole number from 1 to {MAX_TEXTURE_SIDE}"
        )),
    }
}

impl BakeArgs {
    pub fn options(&self) -> BakeOptions {
        BakeOptions {
            clips: if self.all {
                ClipSelection::All
            } else {
                ClipSelection::Names(self.clip.clone())
            },
            fps: self.fps,
            space: self.space,
            normals: self.normals,
            max_error: self.max_error,
            aabb_pad: self.pad,
            max_width: self.max_width,
            max_height: self.max_height,
            limits: BakeLimits::DEFAULT,
        }
    }
}

/// Bakes and writes; returns the summary to print. Errors name the file and what is allowed.
pub fn run_bake(args: &BakeArgs) -> Result<String, String> {
    let started = Instant::now();
    let scene = crate::asset::load_file(&args.model).map_err(|e| e.to_string())?;
    let sha256 = sha256_file(&args.model).map_err(|e| e.to_string())?;
    let stem = match &args.name {
        Some(n) => n.clone(),
        None => args
            .model
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into()),
    };
    if stem.is_empty() || stem.contains(['/', '\\']) {
        return Err(format!(
            "--name `{stem}`: allowed: a plain file name without folders"
        ));
    }
    let mut bar = progress::Bar::start();
    let baked = bake(&scene, &args.options(), &mut |done, total| {
        bar.show(done, total)
    });
    bar.finish();
    let baked = baked.map_err(|e| e.to_string())?;
    let source = SourceInfo {
        file: args
            .model
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        sha256,
    };
    let files = write_vat(
        &baked,
        args.format,
        &args.out,
        &stem,
        source,
        args.vertex_ids,
    )
    .map_err(|e| e.to_string())?;

    let l = baked.layout;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} vertices, {} clips, {} stored frames -> {} x {} texels ({} rows per frame), {} {}, in {:.2} s",
        scene.source,
        l.vertex_count,
        baked.clips.len(),
        l.frame_count,
        l.width,
        l.height(),
        l.rows_per_frame,
        args.format.name(),
        args.space.name(),
        started.elapsed().as_secs_f64(),
    );
    for c in &baked.clips {
        let _ = writeln!(
            s,
            "  {:<16} {:>3} of {:>3} frames, {:.3} s{}",
            c.name,
            c.frame_count,
            c.source_frame_count,
            c.duration,
            if c.looping { ", loops" } else { "" }
        );
    }
    for (p, bytes) in &files.bytes {
        let _ = writeln!(s, "wrote {} ({bytes} bytes)", p.display());
    }
    Ok(s.trim_end().to_string())
}

/// The bake's progress bar: indicatif on stderr when it is a terminal; nothing on the web,
/// where indicatif is not built (its clock crate needs wasm-bindgen).
mod progress {
    #[cfg(not(target_arch = "wasm32"))]
    pub struct Bar(indicatif::ProgressBar);

    #[cfg(not(target_arch = "wasm32"))]
    impl Bar {
        pub fn start() -> Bar {
            use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
            use std::io::IsTerminal;
            if !std::io::stderr().is_terminal() {
                return Bar(ProgressBar::hidden());
            }
            let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("baking {bar:40} {pos}/{len} frames ({eta} left)")
            {
                b.set_style(style);
            }
            Bar(b)
        }

        pub fn show(&mut self, done: u64, total: u64) {
            self.0.set_length(total);
            self.0.set_position(done);
        }

        pub fn finish(self) {
            self.0.finish_and_clear();
        }
    }

    #[cfg(target_arch = "wasm32")]
    pub struct Bar;

    #[cfg(target_arch = "wasm32")]
    impl Bar {
        pub fn start() -> Bar {
            Bar
        }
        pub fn show(&mut self, _done: u64, _total: u64) {}
        pub fn finish(self) {}
    }
}

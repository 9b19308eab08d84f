//! The files of a bake: the image(s) (OpenEXR for float formats, PNG for `rgba8x2`), an optional
//! vertex-id stream, and the JSON manifest a runtime needs. Everything is encoded in memory
//! first, written under temporary names and only then renamed, manifest last: a failed bake
//! leaves no half-written set, and a manifest never points at images that are not there.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use glam::Vec3;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::bake::{BakedClip, VatBake, VatLayout, VatPrimitive, MAX_TEXTURE_SIDE};
use super::encode::{self, VatAabb, VatFormat};
use super::reduce::bracket;
use super::{VatError, VatSpace};
use crate::files::{write_set, WriteError};

pub const MANIFEST_FORMAT: &str = "throng-vat/1";

/// Texels `load_vat` reads per image: what the bake's own limits can produce (256 MiB of
/// sampled values is 22 M texels, plus the padding at each frame's last row), checked on the
/// manifest and on the image's header before any pixel is read.
pub const MAX_LOAD_TEXELS: u64 = 1 << 25;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// The model's file name.
    pub file: String,
    /// SHA-256 of the model file's bytes (the .gltf itself, not its side files), lowercase hex.
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextureInfo {
    /// Relative to the manifest's folder.
    pub file: String,
    /// Image size in the file (for `rgba8x2` twice `layout.height()` rows).
    pub width: u32,
    pub height: u32,
    /// GPU format to upload as: `RGBA32F`, `RGBA16F` or `RGBA8`.
    pub pixel_format: String,
    /// `rgba8x2` only: the low bytes of texel (x, y) are at (x, y + this).
    pub low_bytes_row_offset: Option<u32>,
    /// Remap box: `value = min + texel.rgb * size`.
    pub aabb: VatAabb,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingInfo {
    pub filter: String,
    pub wrap: String,
    pub mipmaps: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VertexIdsInfo {
    pub file: String,
    /// Little-endian f32 per vertex (exact up to 2^24), for GPUs without `gl_VertexID`.
    pub element: String,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VatManifest {
    pub format: String,
    pub generator: String,
    pub source: SourceInfo,
    pub encoding: VatFormat,
    pub space: VatSpace,
    pub vertex_count: u32,
    pub layout: VatLayout,
    pub texture: TextureInfo,
    pub normals: Option<TextureInfo>,
    /// Metres added around the positions' box before remapping.
    pub aabb_pad: f32,
    pub sampling: SamplingInfo,
    pub primitives: Vec<VatPrimitive>,
    pub clips: Vec<BakedClip>,
    pub vertex_ids: Option<VertexIdsInfo>,
}

impl VatManifest {
    pub fn clip(&self, key: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == key)
    }

    fn check(&self) -> Result<(), String> {
        if self.format != MANIFEST_FORMAT {
            return Err(format!(
                "format \"{}\" is not supported; allowed: \"{MANIFEST_FORMAT}\"",
                self.format
            ));
        }
        let l = &self.layout;
        if l.vertex_count != self.vertex_count
            || l.vertex_count == 0
            || l.width == 0
            || l.rows_per_frame != l.vertex_count.div_ceil(l.width)
        {
            return Err("layout does not match vertex_count".into());
        }
        // In u64: a hostile manifest must not overflow its way past the checks.
        let height = l.rows_per_frame as u64 * l.frame_count as u64;
        let texels = height * l.width as u64;
        if height > MAX_TEXTURE_SIDE as u64 || texels > MAX_LOAD_TEXELS {
            return Err(format!(
                "layout {} x {height} texels is above the limits ({MAX_TEXTURE_SIDE} rows, \
                 {MAX_LOAD_TEXELS} texels)",
                l.width
            ));
        }
        let rows = match self.encoding {
            VatFormat::Rgba8x2 => height as u32 * 2,
            _ => height as u32,
        };
        for t in std::iter::once(&self.texture).chain(self.normals.as_ref()) {
            if (t.width, t.height) != (l.width, rows) {
                return Err(format!(
                    "{} is declared {}x{}, the layout needs {}x{rows}",
                    t.file, t.width, t.height, l.width
                ));
            }
        }
        let mut next = 0u64;
        for p in &self.primitives {
            if p.vertex_offset as u64 != next {
                return Err(format!(
                    "primitive vertex_offset {} out of order",
                    p.vertex_offset
                ));
            }
            next += p.vertex_count as u64;
        }
        if next != self.vertex_count as u64 {
            return Err("primitive vertex counts do not add up to vertex_count".into());
        }
        for c in &self.clips {
            let n = c.frame_count as usize;
            if c.frames.len() != n
                || c.frame_times.len() != n
                || n == 0
                || c.first_frame as u64 + n as u64 > l.frame_count as u64
            {
                return Err(format!(
                    "clip \"{}\": frame range does not fit the layout",
                    c.name
                ));
            }
        }
        Ok(())
    }
}

/// Paths written by [`write_vat`], plus their sizes in bytes.
#[derive(Debug, Clone)]
pub struct VatFiles {
    pub manifest_path: PathBuf,
    pub texture_path: PathBuf,
    pub normals_path: Option<PathBuf>,
    pub vertex_ids_path: Option<PathBuf>,
    pub manifest: VatManifest,
    pub bytes: Vec<(PathBuf, u64)>,
}

pub fn sha256_file(path: &Path) -> Result<String, VatError> {
    // The model was imported through the same capped reader; read it the same way here.
    let bytes = crate::file_read::read_capped(path, crate::asset::sources::MAX_MODEL_BYTES)
        .map_err(|e| VatError::new(path.display().to_string(), format!("cannot read: {e}")))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Encodes and writes `{stem}.vat.json`, `{stem}.vat.exr|png`, with normals
/// `{stem}.vat_normals.exr|png`, with `vertex_ids` `{stem}.vat_ids.bin`, into `out_dir`
/// (created if missing).
pub fn write_vat(
    bake: &VatBake,
    format: VatFormat,
    out_dir: &Path,
    stem: &str,
    source: SourceInfo,
    vertex_ids: bool,
) -> Result<VatFiles, VatError> {
    let dir_err = |m: String| VatError::new(out_dir.display().to_string(), m);
    std::fs::create_dir_all(out_dir)
        .map_err(|e| dir_err(format!("cannot create the output folder: {e}")))?;
    let layout = bake.layout;
    let ext = format.extension();
    let tex_name = format!("{stem}.vat.{ext}");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let texture = encode_image(format, &bake.positions, &layout, &bake.aabb, &tex_name)
        .map_err(|m| dir_err(format!("{tex_name}: {m}")))?;
    files.push((tex_name, texture.1));
    let normals = match &bake.normals {
        Some(n) => {
            let name = format!("{stem}.vat_normals.{ext}");
            let (info, bytes) = encode_image(format, n, &layout, &VatAabb::NORMALS, &name)
                .map_err(|m| dir_err(format!("{name}: {m}")))?;
            files.push((name, bytes));
            Some(info)
        }
        None => None,
    };
    let ids = if vertex_ids {
        let name = format!("{stem}.vat_ids.bin");
        let bytes: Vec<u8> = (0..layout.vertex_count)
            .flat_map(|i| (i as f32).to_le_bytes())
            .collect();
        files.push((name.clone(), bytes));
        Some(VertexIdsInfo {
            file: name,
            element: "f32le".into(),
            count: layout.vertex_count,
        })
    } else {
        None
    };
    let manifest = VatManifest {
        format: MANIFEST_FORMAT.into(),
        generator: format!("throng {} bake", env!("CARGO_PKG_VERSION")),
        source,
        encoding: format,
        space: bake.space,
        vertex_count: layout.vertex_count,
        layout,
        texture: texture.0,
        normals,
        aabb_pad: bake.aabb_pad,
        sampling: SamplingInfo {
            filter: "nearest".into(),
            wrap: "clamp_to_edge".into(),
            mipmaps: false,
        },
        primitives: bake.primitives.clone(),
        clips: bake.clips.clone(),
        vertex_ids: ids,
    };
    let json_name = format!("{stem}.vat.json");
    let json = serde_json::to_string_pretty(&manifest)
        .map_err(|e| dir_err(format!("{json_name}: {e}")))?;
    files.push((json_name, json.into_bytes()));

    let written = write_atomically(out_dir, &files)?;
    let path_of = |name: &str| out_dir.join(name);
    Ok(VatFiles {
        manifest_path: path_of(&files[files.len() - 1].0),
        texture_path: path_of(&manifest.texture.file),
        normals_path: manifest.normals.as_ref().map(|n| path_of(&n.file)),
        vertex_ids_path: manifest.vertex_ids.as_ref().map(|n| path_of(&n.file)),
        manifest,
        bytes: written,
    })
}

/// One RGBA layer, ZIP-compressed scan lines: lossless, and the compression every EXR reader
/// (Houdini, Blender, Unity, Unreal, OpenImageIO) has.
macro_rules! exr_bytes {
    ($w:expr, $h:expr, $px:expr) => {{
        use exr::prelude::*;
        let layer = Layer::new(
            ($w as usize, $h as usize),
            LayerAttributes::named("vat"),
            Encoding::SMALL_LOSSLESS,
            SpecificChannels::rgba($px),
        );
        let mut out = Vec::new();
        Image::from_layer(layer)
            .write()
            .to_buffered(Cursor::new(&mut out))
            .map_err(|e| e.to_string())
            .map(|_| out)
    }};
}

fn encode_image(
    format: VatFormat,
    values: &[Vec3],
    layout: &VatLayout,
    aabb: &VatAabb,
    name: &str,
) -> Result<(TextureInfo, Vec<u8>), String> {
    let texels = encode::normalize_texels(values, layout, aabb);
    let (w, h) = (layout.width, layout.height());
    let mut info = TextureInfo {
        file: name.to_string(),
        width: w,
        height: h,
        pixel_format: String::new(),
        low_bytes_row_offset: None,
        aabb: *aabb,
    };
    let bytes = match format {
        VatFormat::F32 => {
            info.pixel_format = "RGBA32F".into();
            let px = |p: exr::math::Vec2<usize>| {
                let t = texels[p.y() * w as usize + p.x()];
                (t[0], t[1], t[2], t[3])
            };
            exr_bytes!(w, h, px)?
        }
        VatFormat::F16 => {
            info.pixel_format = "RGBA16F".into();
            let half = encode::to_f16(&texels);
            let px = |p: exr::math::Vec2<usize>| {
                let t = half[p.y() * w as usize + p.x()];
                (t[0], t[1], t[2], t[3])
            };
            exr_bytes!(w, h, px)?
        }
        VatFormat::Rgba8x2 => {
            info.pixel_format = "RGBA8".into();
            info.height = h * 2;
            info.low_bytes_row_offset = Some(h);
            let data = encode::to_rgba8x2(&texels, w, h);
            let mut out = Vec::new();
            let mut enc = png::Encoder::new(&mut out, w, h * 2);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut writer = enc.write_header().map_err(|e| e.to_string())?;
            writer.write_image_data(&data).map_err(|e| e.to_string())?;
            writer.finish().map_err(|e| e.to_string())?;
            out
        }
    };
    Ok((info, bytes))
}

/// Every file is written in full under a temporary name first; then the renames, the manifest
/// (the last entry) last, so a reader that finds the manifest finds the textures it names. A
/// failure removes every temporary file not yet renamed.
fn write_atomically(
    dir: &Path,
    files: &[(String, Vec<u8>)],
) -> Result<Vec<(PathBuf, u64)>, VatError> {
    let failed = |e: WriteError| {
        VatError::new(
            e.path.display().to_string(),
            format!("cannot write: {}", e.reason),
        )
    };
    let set: Vec<(PathBuf, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (dir.join(name), bytes.as_slice()))
        .collect();
    let written = write_set(&set).map_err(failed)?;
    Ok(written
        .into_iter()
        .zip(files)
        .map(|(path, (_, bytes))| (path, bytes.len() as u64))
        .collect())
}

/// A bake read back: the manifest and every stored frame decoded to floats (values in the
/// manifest's `space`; normals unit-length-ish in model space).
#[derive(Debug, Clone)]
pub struct LoadedVat {
    pub manifest: VatManifest,
    /// `layout.frame_count × vertex_count`, frame-major.
    pub positions: Vec<Vec3>,
    pub normals: Option<Vec<Vec3>>,
}

impl LoadedVat {
    /// Values of one stored (atlas) frame.
    pub fn frame(&self, stored_frame: usize) -> &[Vec3] {
        let n = self.manifest.vertex_count as usize;
        &self.positions[stored_frame * n..(stored_frame + 1) * n]
    }

    /// What the shader computes: clip time `t` clamped to the clip's stored frame times, lerp
    /// between the two stored frames around it.
    pub fn sample_clip(&self, clip: usize, t: f32, out: &mut Vec<Vec3>) {
        out.clear();
        let Some(c) = self.manifest.clips.get(clip) else {
            return;
        };
        let (a, b, s) = bracket(&c.frame_times, t);
        let (fa, fb) = (
            self.frame(c.first_frame as usize + a),
            self.frame(c.first_frame as usize + b),
        );
        out.extend(fa.iter().zip(fb).map(|(p, q)| p.lerp(*q, s)));
    }
}

/// Reads a manifest and its images, checking that they agree.
pub fn load_vat(json_path: &Path) -> Result<LoadedVat, VatError> {
    let label = json_path.display().to_string();
    let err = |m: String| VatError::new(label.clone(), m);
    let text = std::fs::read_to_string(json_path).map_err(|e| err(format!("cannot read: {e}")))?;
    let manifest: VatManifest = serde_json::from_str(&text)
        .map_err(|e| err(format!("not a VAT manifest ({MANIFEST_FORMAT}): {e}")))?;
    manifest.check().map_err(err)?;
    let dir = json_path.parent().unwrap_or(Path::new("."));
    let layout = manifest.layout;
    let read = |t: &TextureInfo| -> Result<Vec<Vec3>, VatError> {
        let path = dir.join(&t.file);
        let texels = read_image(&path, manifest.encoding, t)
            .map_err(|m| VatError::new(path.display().to_string(), m))?;
        Ok(encode::denormalize_texels(&texels, &layout, &t.aabb))
    };
    let positions = read(&manifest.texture)?;
    let normals = match &manifest.normals {
        Some(t) => Some(read(t)?),
        None => None,
    };
    Ok(LoadedVat {
        manifest,
        positions,
        normals,
    })
}

fn read_image(path: &Path, format: VatFormat, t: &TextureInfo) -> Result<Vec<[f32; 4]>, String> {
    match format {
        VatFormat::F32 | VatFormat::F16 => {
            // The header first: the pixels are allocated at the size it declares.
            let meta = exr::meta::MetaData::read_from_file(path, false)
                .map_err(|e| format!("cannot read as OpenEXR: {e}"))?;
            let declared = meta.headers.first().map(|h| h.layer_size);
            if declared.map(|s| (s.width() as u64, s.height() as u64))
                != Some((t.width as u64, t.height as u64))
            {
                return Err(format!(
                    "image header declares {:?}, the manifest says {}x{}",
                    declared.map(|s| (s.width(), s.height())),
                    t.width,
                    t.height
                ));
            }
            let image = exr::prelude::read_first_rgba_layer_from_file(
                path,
                |res, _| (res.width(), vec![[0.0f32; 4]; res.width() * res.height()]),
                |px: &mut (usize, Vec<[f32; 4]>), pos, (r, g, b, a): (f32, f32, f32, f32)| {
                    px.1[pos.y() * px.0 + pos.x()] = [r, g, b, a];
                },
            )
            .map_err(|e| format!("cannot read as OpenEXR: {e}"))?;
            let size = image.layer_data.size;
            if (size.width() as u32, size.height() as u32) != (t.width, t.height) {
                return Err(format!(
                    "image is {}x{}, the manifest says {}x{}",
                    size.width(),
                    size.height(),
                    t.width,
                    t.height
                ));
            }
            let want = match format {
                VatFormat::F32 => exr::meta::attribute::SampleType::F32,
                _ => exr::meta::attribute::SampleType::F16,
            };
            let got = image.layer_data.channel_data.channels.0.sample_type;
            if got != want {
                return Err(format!(
                    "channels are {got:?}, the manifest's encoding {} needs {want:?}",
                    format.name()
                ));
            }
            Ok(image.layer_data.channel_data.pixels.1)
        }
        VatFormat::Rgba8x2 => {
            let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
            let decoder = png::Decoder::new(std::io::BufReader::new(file));
            let mut reader = decoder
                .read_info()
                .map_err(|e| format!("cannot read as PNG: {e}"))?;
            let info = reader.info();
            if (info.color_type, info.bit_depth) != (png::ColorType::Rgba, png::BitDepth::Eight) {
                return Err(format!(
                    "PNG is {:?} {:?}, rgba8x2 needs 8-bit RGBA",
                    info.color_type, info.bit_depth
                ));
            }
            if (info.width, info.height) != (t.width, t.height) {
                return Err(format!(
                    "image is {}x{}, the manifest says {}x{}",
                    info.width, info.height, t.width, t.height
                ));
            }
            let mut buf = vec![0u8; reader.output_buffer_size()];
            reader
                .next_frame(&mut buf)
                .map_err(|e| format!("cannot decode PNG: {e}"))?;
            Ok(encode::from_rgba8x2(&buf, t.width, t.height / 2))
        }
    }
}

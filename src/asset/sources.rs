//! A model's data outside its JSON: buffers (the GLB binary chunk, `data:` URIs, side files) and
//! images (buffer views, `data:` URIs, side files). The gltf crate's importer reads side files
//! whole before checking any length, so `"uri": "../../dev/zero"` would read until memory ran
//! out; here every side file goes through `file_read` (regular files only, length checked on the
//! opened handle, read capped) and every error names the URI and the file it resolved to.

use std::borrow::Cow;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use super::error::ImportError;
use crate::file_read::{read_capped, read_prefix};

/// The largest model file read, and the most its buffers may declare in all.
pub const MAX_MODEL_BYTES: u64 = 512 << 20;
/// The largest image side file read.
pub const MAX_IMAGE_FILE_BYTES: u64 = 64 << 20;
/// The widest and tallest decoded image.
pub const MAX_IMAGE_SIDE: u32 = 8192;
/// The most memory one image's decoder may allocate (one 8192² RGBA8 picture).
pub const MAX_IMAGE_DECODE_BYTES: u64 = 256 << 20;

/// Where a URI points.
enum Target {
    /// A `data:` URI's decoded bytes.
    Inline(Vec<u8>),
    /// A side file.
    File(PathBuf),
}

/// A URI as written, short enough to quote in one line.
fn quoted_uri(uri: &str) -> String {
    if uri.starts_with("data:") {
        return "a data: URI".to_string();
    }
    let mut out: String = uri.chars().take(80).flat_map(char::escape_debug).collect();
    if uri.chars().nth(80).is_some() {
        out.push_str("...");
    }
    format!("uri \"{out}\"")
}

/// Resolves a glTF URI as the gltf crate does: `data:...;base64,`, `file:` paths, and paths
/// relative to the model's folder with %-escapes decoded; other schemes are refused.
fn resolve(uri: &str, base: Option<&Path>) -> Result<Target, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, payload) = rest
            .split_once(";base64,")
            .ok_or("the data: URI is not base64 (`data:<type>;base64,<data>`)")?;
        return base64::decode(payload)
            .map(Target::Inline)
            .map_err(|e| format!("the data: URI is not valid base64 ({e})"));
    }
    let base = base.ok_or("refers to a side file, but the model was read from memory")?;
    if let Some(path) = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("file:"))
    {
        return Ok(Target::File(PathBuf::from(path)));
    }
    if uri.contains(':') {
        return Err("unsupported URI scheme; allowed: relative paths, file: and data:".into());
    }
    let decoded = urlencoding::decode_binary(uri.as_bytes());
    Ok(Target::File(base.join(bytes_to_path(&decoded))))
}

#[cfg(unix)]
fn bytes_to_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn bytes_to_path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Every buffer of `doc`, each at least as long as its `byteLength`.
pub fn buffers(
    file: &str,
    doc: &gltf::Document,
    base: Option<&Path>,
    mut blob: Option<Vec<u8>>,
) -> Result<Vec<gltf::buffer::Data>, ImportError> {
    let declared: u64 = doc.buffers().map(|b| b.length() as u64).sum();
    if declared > MAX_MODEL_BYTES {
        return Err(ImportError::new(
            file,
            format!("its buffers declare {declared} bytes in all; the most allowed is {MAX_MODEL_BYTES}"),
        ));
    }
    let mut out = Vec::new();
    for b in doc.buffers() {
        let need = b.length() as u64;
        let fail = |place: String, why: String| {
            ImportError::new(file, format!("buffer {} ({place}): {why}", b.index()))
        };
        let mut data = match b.source() {
            gltf::buffer::Source::Bin => {
                let place = "the GLB binary chunk".to_string();
                let bin = blob
                    .take()
                    .ok_or_else(|| fail(place.clone(), "the file has no binary chunk".into()))?;
                if (bin.len() as u64) < need {
                    return Err(fail(
                        place,
                        format!("truncated: expected {need} bytes, found {}", bin.len()),
                    ));
                }
                bin
            }
            gltf::buffer::Source::Uri(uri) => match resolve(uri, base) {
                Err(why) => return Err(fail(quoted_uri(uri), why)),
                Ok(Target::Inline(bytes)) => {
                    if (bytes.len() as u64) < need {
                        return Err(fail(
                            quoted_uri(uri),
                            format!("truncated: expected {need} bytes, found {}", bytes.len()),
                        ));
                    }
                    bytes
                }
                Ok(Target::File(path)) => {
                    read_prefix(&path, need, MAX_MODEL_BYTES).map_err(|e| {
                        fail(
                            format!("{}, file {}", quoted_uri(uri), path.display()),
                            e.to_string(),
                        )
                    })?
                }
            },
        };
        // As the gltf crate does: readers may assume 4-byte alignment of the end.
        while !data.len().is_multiple_of(4) {
            data.push(0);
        }
        out.push(gltf::buffer::Data(data));
    }
    Ok(out)
}

/// Decodes one image, or says why it cannot be used (naming its URI and file, if any).
pub fn image(
    img: &gltf::Image,
    base: Option<&Path>,
    buffers: &[gltf::buffer::Data],
) -> Result<gltf::image::Data, String> {
    let (bytes, mime, uri): (Cow<[u8]>, Option<&str>, Option<&str>) = match img.source() {
        gltf::image::Source::View { view, mime_type } => {
            let start = view.offset();
            let bytes = buffers
                .get(view.buffer().index())
                .and_then(|b| b.0.get(start..start.checked_add(view.length())?))
                .ok_or_else(|| format!("bufferView {} lies outside its buffer", view.index()))?;
            (Cow::Borrowed(bytes), Some(mime_type), None)
        }
        gltf::image::Source::Uri { uri, mime_type } => {
            // A data: URI may name its own type (`data:image/png;base64,...`).
            let mime_type = mime_type.or_else(|| {
                uri.strip_prefix("data:")
                    .and_then(|rest| rest.split_once(";base64,"))
                    .map(|(media, _)| media)
            });
            let bytes = match resolve(uri, base)
                .map_err(|why| format!("{}: {why}", quoted_uri(uri)))?
            {
                Target::Inline(bytes) => bytes,
                Target::File(path) => read_capped(&path, MAX_IMAGE_FILE_BYTES)
                    .map_err(|e| format!("{}, file {}: {e}", quoted_uri(uri), path.display()))?,
            };
            (Cow::Owned(bytes), mime_type, Some(uri))
        }
    };
    let place = uri
        .map(|u| format!("{}: ", quoted_uri(u)))
        .unwrap_or_default();
    let format = match mime {
        Some("image/png") => image::ImageFormat::Png,
        Some("image/jpeg") => image::ImageFormat::Jpeg,
        _ => match image::guess_format(&bytes) {
            Ok(f @ (image::ImageFormat::Png | image::ImageFormat::Jpeg)) => f,
            _ => return Err(format!("{place}not a PNG or JPEG image")),
        },
    };
    let mut reader = image::ImageReader::with_format(Cursor::new(&bytes[..]), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_IMAGE_DECODE_BYTES);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| format!("{place}{e}"))?;
    to_data(decoded).ok_or_else(|| format!("{place}unsupported pixel format"))
}

/// The decoded picture in the gltf crate's image type (as its own importer maps formats).
fn to_data(image: image::DynamicImage) -> Option<gltf::image::Data> {
    use gltf::image::Format as F;
    use image::DynamicImage as D;
    let format = match &image {
        D::ImageLuma8(_) => F::R8,
        D::ImageLumaA8(_) => F::R8G8,
        D::ImageRgb8(_) => F::R8G8B8,
        D::ImageRgba8(_) => F::R8G8B8A8,
        D::ImageLuma16(_) => F::R16,
        D::ImageLumaA16(_) => F::R16G16,
        D::ImageRgb16(_) => F::R16G16B16,
        D::ImageRgba16(_) => F::R16G16B16A16,
        D::ImageRgb32F(_) => F::R32G32B32FLOAT,
        D::ImageRgba32F(_) => F::R32G32B32A32FLOAT,
        _ => return None,
    };
    let (width, height) = (image.width(), image.height());
    Some(gltf::image::Data {
        pixels: image.into_bytes(),
        format,
        width,
        height,
    })
}

//! Screenshots as PNG or JPEG, from the pixels GL reads back.

use std::io::Write;
use std::path::Path;

/// JPEG quality of screenshots: no visible blocks on the crowd's fine detail, about a tenth of
/// the PNG's size.
const JPEG_QUALITY: u8 = 88;

/// The image formats a screenshot can be saved in, chosen by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenImageFormat {
    Png,
    Jpeg,
}

impl ScreenImageFormat {
    /// The extensions accepted, for messages.
    pub const ALLOWED: &'static str = ".png, .jpg or .jpeg";

    /// The format a file name asks for, by its extension (any case).
    pub fn from_path(path: &Path) -> Option<ScreenImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ScreenImageFormat::Png),
            "jpg" | "jpeg" => Some(ScreenImageFormat::Jpeg),
            _ => None,
        }
    }
}

/// Encodes a frame read back from GL (RGBA8, rows from the bottom up as GL stores them) as an
/// image file with the top row first, the way the screen shows it. PNG keeps the alpha channel
/// as read; JPEG has none.
pub fn encode_screen_image(
    format: ScreenImageFormat,
    width: u32,
    height: u32,
    rgba_bottom_up: &[u8],
    out: &mut dyn Write,
) -> Result<(), String> {
    let row = width as usize * 4;
    if rgba_bottom_up.len() != row * height as usize {
        return Err(format!(
            "{} bytes of pixels for a {width}x{height} RGBA image (expected {})",
            rgba_bottom_up.len(),
            row * height as usize
        ));
    }
    let top_down: Vec<u8> = rgba_bottom_up
        .chunks_exact(row.max(1))
        .rev()
        .flatten()
        .copied()
        .collect();
    match format {
        ScreenImageFormat::Png => {
            let mut encoder = png::Encoder::new(out, width, height);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
            writer
                .write_image_data(&top_down)
                .map_err(|e| e.to_string())?;
            writer.finish().map_err(|e| e.to_string())
        }
        ScreenImageFormat::Jpeg => {
            let too_big = |n: u32| {
                u16::try_from(n).map_err(|_| format!("{width}x{height} is too large for JPEG"))
            };
            let (w, h) = (too_big(width)?, too_big(height)?);
            jpeg_encoder::Encoder::new(out, JPEG_QUALITY)
                .encode(&top_down, w, h, jpeg_encoder::ColorType::Rgba)
                .map_err(|e| e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2x2 pixels as GL returns them: the bottom row (green, blue) first.
    const GL_PIXELS: [u8; 16] = [
        0, 255, 0, 255, 0, 0, 255, 255, // bottom row
        255, 0, 0, 255, 255, 255, 255, 255, // top row: red, white
    ];

    #[test]
    fn formats_follow_the_extension() {
        let f = |p: &str| ScreenImageFormat::from_path(Path::new(p));
        assert_eq!(f("a/shot.png"), Some(ScreenImageFormat::Png));
        assert_eq!(f("shot.JPG"), Some(ScreenImageFormat::Jpeg));
        assert_eq!(f("shot.jpeg"), Some(ScreenImageFormat::Jpeg));
        assert_eq!(f("shot.gif"), None);
        assert_eq!(f("shot"), None);
    }

    #[test]
    fn png_has_the_top_row_first_and_keeps_alpha() {
        let mut bytes = Vec::new();
        encode_screen_image(ScreenImageFormat::Png, 2, 2, &GL_PIXELS, &mut bytes).expect("png");
        let mut reader = png::Decoder::new(bytes.as_slice())
            .read_info()
            .expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("frame");
        assert_eq!((info.width, info.height), (2, 2));
        assert_eq!(info.color_type, png::ColorType::Rgba);
        assert_eq!(&buf[..8], &GL_PIXELS[8..]);
        assert_eq!(&buf[8..16], &GL_PIXELS[..8]);
    }

    #[test]
    fn jpeg_has_the_top_row_first() {
        // 16x8: top half red, bottom half blue, so the flip shows in the file's first rows.
        let (w, h) = (16u32, 8u32);
        let mut gl = Vec::new();
        for y in 0..h {
            for _ in 0..w {
                // GL rows run bottom-up: the first four rows are the bottom of the picture.
                gl.extend_from_slice(if y < 4 {
                    &[0, 0, 255, 255]
                } else {
                    &[255, 0, 0, 255]
                });
            }
        }
        let mut bytes = Vec::new();
        encode_screen_image(ScreenImageFormat::Jpeg, w, h, &gl, &mut bytes).expect("jpeg");
        assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "JPEG start of image");
        let mut decoder =
            zune_jpeg::JpegDecoder::new(zune_jpeg::zune_core::bytestream::ZCursor::new(&bytes));
        let rgb = decoder.decode().expect("a JPEG");
        assert_eq!(decoder.dimensions(), Some((w as usize, h as usize)));
        let px = |x: usize, y: usize| &rgb[(y * w as usize + x) * 3..][..3];
        let near = |p: &[u8], q: [u8; 3]| (0..3).all(|c| (p[c] as i32 - q[c] as i32).abs() <= 12);
        assert!(near(px(8, 1), [255, 0, 0]), "top is red: {:?}", px(8, 1));
        assert!(
            near(px(8, 6), [0, 0, 255]),
            "bottom is blue: {:?}",
            px(8, 6)
        );
    }

    #[test]
    fn a_short_buffer_is_an_error() {
        let mut bytes = Vec::new();
        let err = encode_screen_image(ScreenImageFormat::Png, 4, 4, &GL_PIXELS, &mut bytes)
            .expect_err("too few pixels");
        assert_eq!(err, "16 bytes of pixels for a 4x4 RGBA image (expected 64)");
    }
}

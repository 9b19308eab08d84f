//! An RGB pixel canvas with the few primitives a chart needs: dots, thick and dashed lines,
//! alpha-blended columns, markers and 8x8 bitmap text (ASCII and Latin-1: `±`, `²`, `°`). Drawing outside the clip rectangle (the
//! whole canvas unless set) is silently dropped, so callers never check bounds.

use font8x8::UnicodeFonts;

pub type Rgb = [u8; 3];

/// Width and height of one glyph of the bitmap font at scale 1, in pixels.
pub const GLYPH: i32 = 8;

/// A point marker drawn at each data point of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Square,
    Circle,
    Diamond,
    Cross,
}

/// Dashes along a line: `on` pixels drawn, then `off` pixels skipped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dash {
    pub on: f32,
    pub off: f32,
}

/// The usual dash of a reference line or a baseline series.
pub const DASHED: Dash = Dash { on: 8.0, off: 6.0 };

/// Pixels inclusive on both ends: (x0, y0, x1, y1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

pub struct Canvas {
    width: usize,
    height: usize,
    px: Vec<u8>,
    clip: Rect,
}

impl Canvas {
    pub fn new(width: usize, height: usize, background: Rgb) -> Self {
        let px = background.repeat(width * height);
        Canvas {
            width,
            height,
            px,
            clip: Self::full(width, height),
        }
    }

    fn full(width: usize, height: usize) -> Rect {
        Rect {
            x0: 0,
            y0: 0,
            x1: width as i32 - 1,
            y1: height as i32 - 1,
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The colour at (x, y), None outside the canvas.
    pub fn pixel(&self, x: i32, y: i32) -> Option<Rgb> {
        let i = self.index(x, y, Self::full(self.width, self.height))?;
        Some([self.px[i], self.px[i + 1], self.px[i + 2]])
    }

    /// Limits drawing to `clip` (None: the whole canvas).
    pub fn set_clip(&mut self, clip: Option<Rect>) {
        self.clip = clip.unwrap_or(Self::full(self.width, self.height));
    }

    fn index(&self, x: i32, y: i32, within: Rect) -> Option<usize> {
        let inside = x >= within.x0 && x <= within.x1 && y >= within.y0 && y <= within.y1;
        let on_canvas = x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height;
        (inside && on_canvas).then(|| (y as usize * self.width + x as usize) * 3)
    }

    pub fn dot(&mut self, x: i32, y: i32, c: Rgb) {
        if let Some(i) = self.index(x, y, self.clip) {
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    /// Mixes `c` over the pixel with opacity `alpha` (0..1).
    pub fn blend(&mut self, x: i32, y: i32, c: Rgb, alpha: f32) {
        if let Some(i) = self.index(x, y, self.clip) {
            let a = alpha.clamp(0.0, 1.0);
            for (px, new) in self.px[i..i + 3].iter_mut().zip(c) {
                let old = f32::from(*px);
                *px = (old + (f32::from(new) - old) * a).round() as u8;
            }
        }
    }

    /// A column from `top` to `bottom` (either order) blended with `c`.
    pub fn blend_column(&mut self, x: i32, top: f32, bottom: f32, c: Rgb, alpha: f32) {
        let (a, b) = (
            top.min(bottom).round() as i32,
            top.max(bottom).round() as i32,
        );
        for y in a..=b {
            self.blend(x, y, c, alpha);
        }
    }

    pub fn fill_rect(&mut self, r: Rect, c: Rgb) {
        for y in r.y0..=r.y1 {
            for x in r.x0..=r.x1 {
                self.dot(x, y, c);
            }
        }
    }

    fn square(&mut self, x: f32, y: f32, width: i32, c: Rgb) {
        let (x, y) = (x.round() as i32, y.round() as i32);
        let lo = -(width - 1) / 2;
        for dx in lo..lo + width.max(1) {
            for dy in lo..lo + width.max(1) {
                self.dot(x + dx, y + dy, c);
            }
        }
    }

    /// A solid line `width` pixels thick.
    pub fn line(&mut self, a: (f32, f32), b: (f32, f32), width: i32, c: Rgb) {
        self.dashed_line(a, b, width, c, None, 0.0);
    }

    /// A line with optional dashes; `phase` is how far into the dash pattern it starts, and the
    /// phase at its end is returned, so a polyline's dashes run on across its corners.
    pub fn dashed_line(
        &mut self,
        (x0, y0): (f32, f32),
        (x1, y1): (f32, f32),
        width: i32,
        c: Rgb,
        dash: Option<Dash>,
        phase: f32,
    ) -> f32 {
        let length = (x1 - x0).hypot(y1 - y0);
        if !length.is_finite() {
            return phase;
        }
        let steps = (length.ceil() as i32).max(1);
        for s in 0..=steps {
            let t = s as f32 / steps as f32;
            let on = dash.is_none_or(|d| (phase + t * length).rem_euclid(d.on + d.off) < d.on);
            if on {
                self.square(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, width, c);
            }
        }
        phase + length
    }

    /// A marker of half-size `r` centred on (x, y).
    pub fn marker(&mut self, (x, y): (f32, f32), m: Marker, r: i32, c: Rgb) {
        let (cx, cy) = (x.round() as i32, y.round() as i32);
        if m == Marker::Cross {
            let r = r as f32;
            self.line((x - r, y - r), (x + r, y + r), 2, c);
            self.line((x - r, y + r), (x + r, y - r), 2, c);
            return;
        }
        for dy in -r..=r {
            for dx in -r..=r {
                let inside = match m {
                    Marker::Square => true,
                    Marker::Circle => dx * dx + dy * dy <= r * r,
                    Marker::Diamond => dx.abs() + dy.abs() <= r,
                    Marker::Cross => false,
                };
                if inside {
                    self.dot(cx + dx, cy + dy, c);
                }
            }
        }
    }

    /// `s` cut to at most `width` pixels at `scale`, ending in `...` when cut.
    pub fn fit_text(s: &str, width: i32, scale: i32) -> String {
        let room = (width / (GLYPH * scale)).max(0) as usize;
        if s.chars().count() <= room {
            return s.to_string();
        }
        let kept: String = s.chars().take(room.saturating_sub(3)).collect();
        kept + "..."
    }

    /// Pixels `s` takes at `scale` (glyphs are 8 wide; characters without a glyph too).
    pub fn text_width(s: &str, scale: i32) -> i32 {
        s.chars().count() as i32 * GLYPH * scale
    }

    /// Text with its top-left corner at (x, y). Characters the font lacks leave a gap.
    pub fn text(&mut self, x: i32, y: i32, s: &str, scale: i32, c: Rgb) {
        for (k, ch) in s.chars().enumerate() {
            let glyph = font8x8::BASIC_FONTS
                .get(ch)
                .or_else(|| font8x8::LATIN_FONTS.get(ch));
            let Some(glyph) = glyph else {
                continue;
            };
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..GLYPH {
                    if bits & (1 << col) == 0 {
                        continue;
                    }
                    let left = x + (k as i32 * GLYPH + col) * scale;
                    let top = y + row as i32 * scale;
                    for sy in 0..scale {
                        for sx in 0..scale {
                            self.dot(left + sx, top + sy, c);
                        }
                    }
                }
            }
        }
    }

    /// The canvas as PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
        w.write_image_data(&self.px)
            .map_err(|e| format!("PNG: {e}"))?;
        w.finish().map_err(|e| format!("PNG: {e}"))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Rgb = [255, 0, 0];
    const WHITE: Rgb = [255, 255, 255];

    #[test]
    fn clipped_drawing_stays_inside_the_clip() {
        let mut c = Canvas::new(20, 10, WHITE);
        c.set_clip(Some(Rect {
            x0: 5,
            y0: 0,
            x1: 9,
            y1: 9,
        }));
        c.line((0.0, 5.0), (19.0, 5.0), 1, RED);
        assert_eq!(c.pixel(4, 5), Some(WHITE));
        assert_eq!(c.pixel(5, 5), Some(RED));
        assert_eq!(c.pixel(9, 5), Some(RED));
        assert_eq!(c.pixel(10, 5), Some(WHITE));
        assert_eq!(c.pixel(20, 5), None);
    }

    #[test]
    fn dashes_alternate_and_carry_their_phase() {
        let mut c = Canvas::new(40, 3, WHITE);
        let dash = Some(Dash { on: 4.0, off: 4.0 });
        let end = c.dashed_line((0.0, 1.0), (10.0, 1.0), 1, RED, dash, 0.0);
        assert_eq!(end, 10.0);
        let row: Vec<bool> = (0..10).map(|x| c.pixel(x, 1) == Some(RED)).collect();
        assert_eq!(
            row,
            [true, true, true, true, false, false, false, false, true, true]
        );
        // Continues off (10 mod 8 = 2: two more on, then off).
        c.dashed_line((10.0, 1.0), (20.0, 1.0), 1, RED, dash, end);
        assert_eq!(c.pixel(11, 1), Some(RED));
        assert_eq!(c.pixel(13, 1), Some(WHITE));
    }

    #[test]
    fn blending_mixes_toward_the_colour() {
        let mut c = Canvas::new(2, 2, WHITE);
        c.blend(0, 0, [0, 0, 0], 0.25);
        assert_eq!(c.pixel(0, 0), Some([191, 191, 191]));
    }

    #[test]
    fn text_is_drawn_at_its_corner_and_scale() {
        let mut c = Canvas::new(40, 20, WHITE);
        c.text(2, 2, "I", 2, RED);
        let ink: Vec<(i32, i32)> = (0..20)
            .flat_map(|y| (0..40).map(move |x| (x, y)))
            .filter(|&(x, y)| c.pixel(x, y) == Some(RED))
            .collect();
        assert!(!ink.is_empty());
        assert!(ink
            .iter()
            .all(|&(x, y)| (2..18).contains(&x) && (2..18).contains(&y)));
        assert_eq!(Canvas::text_width("abc", 2), 48);
        assert_eq!(Canvas::fit_text("abcdefgh", 48, 1), "abc...");
        assert_eq!(Canvas::fit_text("abcdef", 48, 1), "abcdef");
    }
}

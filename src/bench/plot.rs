//! The benchmark's PNG plot: median frame time against crowd size, both on log scales (modes
//! differ by factors of 10-40, which a linear axis flattens into the floor), a line per mode.
//! Drawn on a plain RGB canvas with an 8x8 bitmap font, so it needs no system fonts.

use font8x8::UnicodeFonts;

use super::report::BenchRow;

const W: usize = 960;
const H: usize = 540;
const LEFT: f32 = 90.0;
const RIGHT: f32 = 40.0;
const TOP: f32 = 60.0;
const BOTTOM: f32 = 70.0;
const PALETTE: [[u8; 3]; 6] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [255, 127, 14],
    [148, 103, 189],
    [23, 190, 207],
];

struct Canvas {
    px: Vec<u8>,
}

impl Canvas {
    fn new() -> Self {
        Canvas {
            px: vec![255; W * H * 3],
        }
    }

    fn dot(&mut self, x: i32, y: i32, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < W && (y as usize) < H {
            let i = (y as usize * W + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    fn line(&mut self, (x0, y0): (f32, f32), (x1, y1): (f32, f32), width: i32, c: [u8; 3]) {
        let steps = ((x1 - x0).abs().max((y1 - y0).abs()).ceil() as i32).max(1);
        for s in 0..=steps {
            let t = s as f32 / steps as f32;
            let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
            for dx in -(width / 2)..=(width / 2) {
                for dy in -(width / 2)..=(width / 2) {
                    self.dot(x.round() as i32 + dx, y.round() as i32 + dy, c);
                }
            }
        }
    }

    fn text(&mut self, x: i32, y: i32, s: &str, scale: i32, c: [u8; 3]) {
        for (k, ch) in s.chars().enumerate() {
            let Some(glyph) = font8x8::BASIC_FONTS.get(ch) else {
                continue;
            };
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        for sx in 0..scale {
                            for sy in 0..scale {
                                self.dot(
                                    x + (k as i32 * 8 + col) * scale + sx,
                                    y + row as i32 * scale + sy,
                                    c,
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The decades (powers of ten, as exponents) a log axis needs to hold `values`: at least one.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v.log10().floor());
        hi = hi.max(v.log10().ceil());
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    (lo, hi.max(lo + 1.0))
}

/// An axis label for 10^e milliseconds.
fn ms_label(e: i32) -> String {
    if e >= 0 {
        format!("{}", 10u64.pow(e as u32))
    } else {
        format!("{}", 10f64.powi(e))
    }
}

/// Renders the plot as PNG bytes.
pub fn plot_png(rows: &[BenchRow], title: &str) -> Result<Vec<u8>, String> {
    let mut c = Canvas::new();
    let black = [0, 0, 0];
    let grey = [220, 220, 220];
    let (x0, x1) = (LEFT, W as f32 - RIGHT);
    let (y0, y1) = (H as f32 - BOTTOM, TOP);
    let min_n = rows.iter().map(|r| r.agents).min().unwrap_or(1).max(1) as f64;
    let max_n = rows.iter().map(|r| r.agents).max().unwrap_or(10).max(2) as f64;
    let (lo, hi) = (
        min_n.log10().floor(),
        max_n.log10().ceil().max(min_n.log10().floor() + 1.0),
    );
    let (ylo, yhi) = decades(rows.iter().map(|r| r.frame_ms_median));
    let sx = |n: f64| x0 + ((n.log10() - lo) / (hi - lo)) as f32 * (x1 - x0);
    let sy = |ms: f64| y0 - ((ms.max(1e-9).log10() - ylo) / (yhi - ylo)) as f32 * (y0 - y1);

    let light = [240, 240, 240];
    for e in ylo as i32..=yhi as i32 {
        let decade = 10f64.powi(e);
        if e < yhi as i32 {
            for m in [2.0, 5.0] {
                let y = sy(decade * m);
                c.line((x0, y), (x1, y), 1, light);
            }
        }
        let y = sy(decade);
        c.line((x0, y), (x1, y), 1, grey);
        c.text(8, y as i32 - 4, &format!("{:>8}", ms_label(e)), 1, black);
    }
    for e in lo as i32..=hi as i32 {
        let x = sx(10f64.powi(e));
        c.line((x, y0), (x, y1), 1, grey);
        let label = format!("{}", 10u64.pow(e.max(0) as u32));
        c.text(
            x as i32 - label.len() as i32 * 4,
            y0 as i32 + 10,
            &label,
            1,
            black,
        );
    }
    c.line((x0, y0), (x1, y0), 2, black);
    c.line((x0, y0), (x0, y1), 2, black);
    c.text(LEFT as i32, 18, title, 2, black);
    c.text(
        W as i32 / 2 - 120,
        H as i32 - 30,
        "agents (log scale)",
        2,
        black,
    );
    c.text(8, TOP as i32 - 24, "median frame ms (log scale)", 1, black);

    let mut modes: Vec<&str> = Vec::new();
    for r in rows {
        if !modes.contains(&r.mode.as_str()) {
            modes.push(&r.mode);
        }
    }
    for (m, mode) in modes.iter().enumerate() {
        let color = PALETTE[m % PALETTE.len()];
        let mut pts: Vec<(f32, f32)> = rows
            .iter()
            .filter(|r| r.mode == *mode && r.frame_ms_median.is_finite())
            .map(|r| (sx(r.agents as f64), sy(r.frame_ms_median)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in pts.windows(2) {
            c.line(w[0], w[1], 3, color);
        }
        for p in &pts {
            c.line((p.0 - 4.0, p.1), (p.0 + 4.0, p.1), 5, color);
        }
        let ly = TOP as i32 + 10 + m as i32 * 22;
        c.line(
            (x0 + 20.0, ly as f32 + 7.0),
            (x0 + 50.0, ly as f32 + 7.0),
            4,
            color,
        );
        c.text(x0 as i32 + 60, ly, mode, 2, black);
    }

    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, W as u32, H as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
        w.write_image_data(&c.px).map_err(|e| format!("PNG: {e}"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_span_whole_decades() {
        assert_eq!(decades([3.2, 120.0].into_iter()), (0.0, 3.0));
        assert_eq!(decades([0.7].into_iter()), (-1.0, 0.0));
        assert_eq!(decades([100.0].into_iter()), (2.0, 3.0));
        assert_eq!(decades([0.0, f64::NAN].into_iter()), (0.0, 1.0));
        assert_eq!(ms_label(3), "1000");
        assert_eq!(ms_label(-1), "0.1");
    }

    #[test]
    fn plot_is_a_png_with_a_coloured_line_per_mode() {
        let row = |mode: &str, agents, ms| BenchRow {
            mode: String::from(mode),
            agents,
            frames: 1,
            frame_ms_median: ms,
            frame_ms_p95: ms,
            sim_ms_median: 0.0,
            anim_ms_median: None,
            cull_lod_pack_ms_median: 0.0,
            submit_ms_median: 0.0,
            draw_calls: 0,
            triangles: 0,
            uniform_bytes: 0,
            visible: 0,
        };
        let rows = [
            row("pipeline", 100, 1.0),
            row("pipeline", 10_000, 5.0),
            row("naive", 100, 2.0),
            row("naive", 10_000, 40.0),
        ];
        let bytes = plot_png(&rows, "test").expect("png");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().expect("valid png");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("frame");
        assert_eq!((info.width, info.height), (W as u32, H as u32));
        let count = |c: [u8; 3]| buf.chunks(3).filter(|p| *p == c).count();
        assert!(count(PALETTE[0]) > 500, "pipeline line missing");
        assert!(count(PALETTE[1]) > 500, "naive line missing");
    }
}

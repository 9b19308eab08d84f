//! Benchmark results: statistics per run, the CSV, and the table printed at the end.

use std::fmt::Write as _;
use std::path::Path;

/// One size × mode measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    pub mode: String,
    pub agents: u32,
    pub frames: u32,
    pub frame_ms_median: f64,
    pub frame_ms_p95: f64,
    pub sim_ms_median: f64,
    /// None while no animation stage exists for the crowd: written as an empty cell, not 0.
    pub anim_ms_median: Option<f64>,
    pub cull_lod_pack_ms_median: f64,
    pub submit_ms_median: f64,
    pub draw_calls: u64,
    pub triangles: u64,
    pub uniform_bytes: u64,
    pub visible: u64,
}

pub const CSV_HEADER: &str = "mode,agents,frames,frame_ms_median,frame_ms_p95,sim_ms_median,anim_ms_median,cull_lod_pack_ms_median,submit_ms_median,draw_calls,triangles,uniform_bytes,visible";

/// The value at quantile `q` (0..1) by the nearest-rank method; None for no samples.
pub fn quantile(samples: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

pub fn median(samples: &[f64]) -> f64 {
    quantile(samples, 0.5).unwrap_or(f64::NAN)
}

pub fn to_csv(rows: &[BenchRow]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for r in rows {
        let anim = r
            .anim_ms_median
            .map(|v| format!("{v:.4}"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{:.4},{:.4},{:.4},{},{:.4},{:.4},{},{},{},{}",
            r.mode,
            r.agents,
            r.frames,
            r.frame_ms_median,
            r.frame_ms_p95,
            r.sim_ms_median,
            anim,
            r.cull_lod_pack_ms_median,
            r.submit_ms_median,
            r.draw_calls,
            r.triangles,
            r.uniform_bytes,
            r.visible
        );
    }
    s
}

/// Writes through a temporary name and renames, so an interrupted run leaves no half file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A fixed-width table with, per size, how many times slower each mode is than the first.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<10} {:>8} {:>10} {:>9} {:>8} {:>9} {:>9} {:>8} {:>11} {:>9} {:>8}\n",
        "mode",
        "agents",
        "frame ms",
        "p95 ms",
        "sim ms",
        "cull ms",
        "submit ms",
        "draws",
        "triangles",
        "visible",
        "vs first"
    );
    for r in rows {
        let first = rows.iter().find(|b| b.agents == r.agents);
        let ratio = first
            .filter(|b| b.frame_ms_median > 0.0)
            .map(|b| format!("{:.2}x", r.frame_ms_median / b.frame_ms_median))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{:<10} {:>8} {:>10.2} {:>9.2} {:>8.2} {:>9.2} {:>9.2} {:>8} {:>11} {:>9} {:>8}",
            r.mode,
            r.agents,
            r.frame_ms_median,
            r.frame_ms_p95,
            r.sim_ms_median,
            r.cull_lod_pack_ms_median,
            r.submit_ms_median,
            r.draw_calls,
            r.triangles,
            r.visible,
            ratio
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(mode: &str, agents: u32, ms: f64) -> BenchRow {
        BenchRow {
            mode: mode.into(),
            agents,
            frames: 10,
            frame_ms_median: ms,
            frame_ms_p95: ms * 1.5,
            sim_ms_median: 0.5,
            anim_ms_median: None,
            cull_lod_pack_ms_median: 0.25,
            submit_ms_median: 1.0,
            draw_calls: 5,
            triangles: 1000,
            uniform_bytes: 640,
            visible: 42,
        }
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), Some(50.0));
        assert_eq!(quantile(&v, 0.95), Some(95.0));
        assert_eq!(quantile(&[3.0, 1.0, 2.0], 0.5), Some(2.0));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[f64::NAN, 4.0], 0.95), Some(4.0));
    }

    #[test]
    fn csv_has_the_documented_columns_and_empty_absent_values() {
        let csv = to_csv(&[row("pipeline", 1000, 2.0)]);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER));
        assert_eq!(
            lines.next(),
            Some("pipeline,1000,10,2.0000,3.0000,0.5000,,0.2500,1.0000,5,1000,640,42")
        );
    }

    #[test]
    fn table_shows_the_ratio_to_the_first_mode_of_each_size() {
        let t = table(&[row("pipeline", 1000, 2.0), row("naive", 1000, 9.0)]);
        assert!(t.lines().nth(1).unwrap_or("").ends_with("1.00x"), "{t}");
        assert!(t.lines().nth(2).unwrap_or("").ends_with("4.50x"), "{t}");
    }
}

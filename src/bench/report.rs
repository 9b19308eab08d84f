//! Benchmark results: statistics per run, the CSV, and the table printed at the end.

use std::fmt::Write as _;

/// One size × mode measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    pub mode: String,
    pub agents: u32,
    pub frames: u32,
    pub frame_ms_median: f64,
    /// The fastest 5 %: drawn as the bottom of the plot's band, not written to the CSV. None
    /// with fewer than `MIN_FRAMES_FOR_SPREAD` frames.
    pub frame_ms_p5: Option<f64>,
    /// None with fewer than `MIN_FRAMES_FOR_SPREAD` frames: an empty cell, `n/a` in the table.
    pub frame_ms_p95: Option<f64>,
    pub sim_ms_median: f64,
    /// The crowd's animation: the step's heading and clip state, plus on the naive path the
    /// palettes sampled on the CPU. None only in a baseline CSV from before it was measured.
    pub anim_ms_median: Option<f64>,
    pub cull_lod_pack_ms_median: f64,
    pub submit_ms_median: f64,
    pub draw_calls: u64,
    pub triangles: u64,
    pub uniform_bytes: u64,
    pub visible: u64,
    /// Where the rest of the frame went (GL runs; None headless and in older baselines).
    pub waits: Option<FrameWaits>,
}

/// The part of a GL frame after the submit, medians in ms: waiting for the GPU to finish
/// (glFinish: on a software renderer, the drawing itself), presenting (the swap and the
/// window's events, in `next_frame`), and what is left of the median frame after every
/// measured part, so that a row adds up: frame = sim + cull + submit + gpu wait + present +
/// other (anim is inside sim and cull, not added again).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameWaits {
    pub gpu_wait_ms: f64,
    pub present_ms: f64,
    pub other_ms: f64,
}

impl FrameWaits {
    /// The waits measured, and `other` as the rest of the median frame `frame_ms` after
    /// `parts` (the medians of sim, cull and submit). Medians do not add exactly, so `other`
    /// may be slightly negative: shown as measured, never hidden.
    pub fn rest_of(frame_ms: f64, parts: f64, gpu_wait_ms: f64, present_ms: f64) -> FrameWaits {
        FrameWaits {
            gpu_wait_ms,
            present_ms,
            other_ms: frame_ms - parts - gpu_wait_ms - present_ms,
        }
    }
}

impl BenchRow {
    /// A row with its median frame time and nothing else measured.
    pub fn new(mode: &str, agents: u32, frame_ms_median: f64) -> BenchRow {
        BenchRow {
            mode: mode.to_string(),
            agents,
            frames: 0,
            frame_ms_median,
            frame_ms_p5: None,
            frame_ms_p95: None,
            sim_ms_median: 0.0,
            anim_ms_median: None,
            cull_lod_pack_ms_median: 0.0,
            submit_ms_median: 0.0,
            draw_calls: 0,
            triangles: 0,
            uniform_bytes: 0,
            visible: 0,
            waits: None,
        }
    }
}

/// Frames a run needs before its p5 and p95 mean something: with fewer, the 95th percentile
/// is the slowest frame or the one before it, which is noise.
pub const MIN_FRAMES_FOR_SPREAD: usize = 30;

/// The value at quantile `q` if there are at least `MIN_FRAMES_FOR_SPREAD` finite samples.
pub fn spread_quantile(samples: &[f64], q: f64) -> Option<f64> {
    let n = samples.iter().filter(|v| v.is_finite()).count();
    (n >= MIN_FRAMES_FOR_SPREAD)
        .then(|| quantile(samples, q))
        .flatten()
}

/// An optional number as a CSV cell: empty when absent.
fn cell(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.4}")).unwrap_or_default()
}

/// An optional number in a table column: `n/a` when absent.
fn shown(v: Option<f64>, width: usize) -> String {
    v.map_or_else(
        || format!("{:>width$}", "n/a"),
        |v| format!("{v:>width$.2}"),
    )
}

pub const CSV_HEADER: &str = "mode,agents,frames,frame_ms_median,frame_ms_p95,sim_ms_median,anim_ms_median,cull_lod_pack_ms_median,submit_ms_median,draw_calls,triangles,uniform_bytes,visible,gpu_wait_ms_median,present_ms_median,other_ms_median";
/// The GL header before the waits were measured: still read as a baseline.
pub const CSV_HEADER_BEFORE_WAITS: &str = "mode,agents,frames,frame_ms_median,frame_ms_p95,sim_ms_median,anim_ms_median,cull_lod_pack_ms_median,submit_ms_median,draw_calls,triangles,uniform_bytes,visible";

/// One size × simulation variant of the headless benchmark: the step and its phases
/// (medians over the measured frames, wall-clock milliseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct SimRow {
    pub variant: String,
    pub agents: u32,
    pub frames: u32,
    pub step_ms_median: f64,
    /// None with fewer than `MIN_FRAMES_FOR_SPREAD` frames (as for `BenchRow`).
    pub step_ms_p5: Option<f64>,
    pub step_ms_p95: Option<f64>,
    /// Wall-clock nanoseconds per agent per step (median step / agents).
    pub ns_per_agent: f64,
    /// Phase medians, in `PHASES` order.
    /// grid, plan, behaviour, steering, constraints, animation, and the shows' part of behaviour.
    pub phase_ms: [f64; 7],
    pub sweeps_median: f64,
    pub steered_median: f64,
    pub cull_pack_ms_median: f64,
    pub visible: u64,
    /// Pairs closer than 0.35 m after the last step (the non-overlap guarantee says 0).
    pub close_pairs: usize,
    pub machine: super::Machine,
}

/// The simulation's phases, as named in the CSV and the table.
pub const PHASES: [&str; 7] = [
    "grid",
    "plan",
    "behaviour",
    "steering",
    "constraints",
    "animation",
    "shows",
];

pub const SIM_CSV_HEADER: &str = "variant,agents,frames,step_ms_median,step_ms_p95,ns_per_agent,grid_ms,plan_ms,behaviour_ms,steering_ms,constraints_ms,animation_ms,shows_ms,sweeps,steered,cull_pack_ms,visible,close_pairs,cores,threads,simd,commit";

/// Per-frame samples of one headless run.
#[derive(Debug, Default)]
pub struct SimSamples {
    step: Vec<f64>,
    phases: [Vec<f64>; 7],
    sweeps: Vec<f64>,
    steered: Vec<f64>,
    cull: Vec<f64>,
    visible: u64,
}

impl SimSamples {
    pub fn push(
        &mut self,
        step_ms: f64,
        cull_ms: f64,
        visible: usize,
        t: crate::crowd::StepTimings,
    ) {
        self.step.push(step_ms);
        let phases = [
            t.grid_ms,
            t.plan_ms,
            t.behaviour_ms,
            t.steering_ms,
            t.constraints_ms,
            t.animation_ms,
            t.shows_ms,
        ];
        for (v, ms) in self.phases.iter_mut().zip(phases) {
            v.push(ms);
        }
        self.sweeps.push(t.sweeps as f64);
        self.steered.push(t.steered as f64);
        self.cull.push(cull_ms);
        self.visible = visible as u64;
    }

    pub fn row(
        &self,
        variant: &str,
        agents: u32,
        close_pairs: usize,
        machine: &super::Machine,
    ) -> SimRow {
        let step = median(&self.step);
        SimRow {
            variant: variant.to_string(),
            agents,
            frames: self.step.len() as u32,
            step_ms_median: step,
            step_ms_p5: spread_quantile(&self.step, 0.05),
            step_ms_p95: spread_quantile(&self.step, 0.95),
            ns_per_agent: step * 1e6 / agents.max(1) as f64,
            phase_ms: std::array::from_fn(|k| median(&self.phases[k])),
            sweeps_median: median(&self.sweeps),
            steered_median: median(&self.steered),
            cull_pack_ms_median: median(&self.cull),
            visible: self.visible,
            close_pairs,
            machine: machine.clone(),
        }
    }
}

pub fn sim_csv(rows: &[SimRow]) -> String {
    let mut s = String::from(SIM_CSV_HEADER);
    s.push('\n');
    for r in rows {
        let phases: Vec<String> = r.phase_ms.iter().map(|v| format!("{v:.4}")).collect();
        let _ = writeln!(
            s,
            "{},{},{},{:.4},{},{:.1},{},{},{},{:.4},{},{},{},{},{},{}",
            r.variant,
            r.agents,
            r.frames,
            r.step_ms_median,
            cell(r.step_ms_p95),
            r.ns_per_agent,
            phases.join(","),
            r.sweeps_median,
            r.steered_median,
            r.cull_pack_ms_median,
            r.visible,
            r.close_pairs,
            r.machine.cores,
            r.machine.threads,
            r.machine.simd,
            r.machine.commit
        );
    }
    s
}

/// The headless table: step time, ns per agent, the phases, and each variant against the first
/// of its size.
pub fn sim_table(rows: &[SimRow]) -> String {
    let mut s = match rows.first() {
        Some(r) => format!("machine: {}\n", r.machine.describe()),
        None => String::new(),
    };
    let _ = write!(
        s,
        "{:<12} {:>7} {:>8} {:>7} {:>7}",
        "variant", "agents", "step ms", "p95 ms", "ns/agt"
    );
    for p in PHASES {
        let _ = write!(s, " {:>8}", &p[..p.len().min(8)]);
    }
    let _ = writeln!(
        s,
        " {:>6} {:>8} {:>6} {:>8}",
        "sweeps", "steered", "<0.35m", "vs full"
    );
    for r in rows {
        let first = rows.iter().find(|b| b.agents == r.agents);
        let ratio = first
            .filter(|b| b.step_ms_median > 0.0)
            .map(|b| format!("{:.2}x", r.step_ms_median / b.step_ms_median))
            .unwrap_or_default();
        let _ = write!(
            s,
            "{:<12} {:>7} {:>8.2} {} {:>7.0}",
            r.variant,
            r.agents,
            r.step_ms_median,
            shown(r.step_ms_p95, 7),
            r.ns_per_agent
        );
        for v in r.phase_ms {
            let _ = write!(s, " {v:>8.2}");
        }
        let _ = writeln!(
            s,
            " {:>6} {:>8} {:>6} {:>8}",
            r.sweeps_median, r.steered_median, r.close_pairs, ratio
        );
    }
    s
}

/// The headless rows in the shape the plot draws: one line per variant, step time per size.
pub fn sim_rows_for_plot(rows: &[SimRow]) -> Vec<BenchRow> {
    rows.iter()
        .map(|r| BenchRow {
            mode: r.variant.clone(),
            agents: r.agents,
            frames: r.frames,
            frame_ms_median: r.step_ms_median,
            frame_ms_p5: r.step_ms_p5,
            frame_ms_p95: r.step_ms_p95,
            sim_ms_median: r.step_ms_median,
            anim_ms_median: Some(r.phase_ms[5]),
            cull_lod_pack_ms_median: r.cull_pack_ms_median,
            submit_ms_median: 0.0,
            draw_calls: 0,
            triangles: 0,
            uniform_bytes: 0,
            visible: r.visible,
            waits: None,
        })
        .collect()
}

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
        let _ = writeln!(
            s,
            "{},{},{},{:.4},{},{:.4},{},{:.4},{:.4},{},{},{},{},{},{},{}",
            r.mode,
            r.agents,
            r.frames,
            r.frame_ms_median,
            cell(r.frame_ms_p95),
            r.sim_ms_median,
            cell(r.anim_ms_median),
            r.cull_lod_pack_ms_median,
            r.submit_ms_median,
            r.draw_calls,
            r.triangles,
            r.uniform_bytes,
            r.visible,
            cell(r.waits.map(|w| w.gpu_wait_ms)),
            cell(r.waits.map(|w| w.present_ms)),
            cell(r.waits.map(|w| w.other_ms)),
        );
    }
    s
}

/// A fixed-width table with, per size, how many times slower each mode is than the first.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<11} {:>8} {:>10} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9} {:>10} {:>8} {:>8} {:>11} {:>9} {:>8}\n",
        "mode",
        "agents",
        "frame ms",
        "p95 ms",
        "sim ms",
        "anim ms",
        "cull ms",
        "submit ms",
        "gpu wait",
        "present ms",
        "other ms",
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
            "{:<11} {:>8} {:>10.2} {} {:>8.2} {} {:>9.2} {:>9.2} {} {} {} {:>8} {:>11} {:>9} {:>8}",
            r.mode,
            r.agents,
            r.frame_ms_median,
            shown(r.frame_ms_p95, 9),
            r.sim_ms_median,
            shown(r.anim_ms_median, 8),
            r.cull_lod_pack_ms_median,
            r.submit_ms_median,
            shown(r.waits.map(|w| w.gpu_wait_ms), 9),
            shown(r.waits.map(|w| w.present_ms), 10),
            shown(r.waits.map(|w| w.other_ms), 8),
            r.draw_calls,
            r.triangles,
            r.visible,
            ratio
        );
    }
    if rows.iter().any(|r| r.waits.is_some()) {
        s.push_str(
            "frame = sim + cull + submit + gpu wait + present + other (medians; anim is inside \
             sim and cull)\n",
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
            frame_ms_p5: None,
            frame_ms_p95: Some(ms * 1.5),
            sim_ms_median: 0.5,
            anim_ms_median: Some(0.2),
            cull_lod_pack_ms_median: 0.25,
            submit_ms_median: 1.0,
            draw_calls: 5,
            triangles: 1000,
            uniform_bytes: 640,
            visible: 42,
            waits: Some(FrameWaits::rest_of(ms, 1.75, 0.1, 0.05)),
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
        let few = BenchRow {
            frame_ms_p95: None,
            anim_ms_median: None,
            waits: None,
            ..row("naive", 1000, 2.0)
        };
        let csv = to_csv(&[row("pipeline", 1000, 2.0), few]);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER));
        assert_eq!(
            lines.next(),
            Some(
                "pipeline,1000,10,2.0000,3.0000,0.5000,0.2000,0.2500,1.0000,5,1000,640,42,\
                 0.1000,0.0500,0.1000"
            )
        );
        assert_eq!(
            lines.next(),
            Some("naive,1000,10,2.0000,,0.5000,,0.2500,1.0000,5,1000,640,42,,,")
        );
    }

    #[test]
    fn the_spread_needs_thirty_frames() {
        let v: Vec<f64> = (1..=29).map(f64::from).collect();
        assert_eq!(spread_quantile(&v, 0.95), None);
        let v: Vec<f64> = (1..=40).map(f64::from).collect();
        assert_eq!(spread_quantile(&v, 0.95), Some(38.0));
        assert_eq!(spread_quantile(&v, 0.05), Some(2.0));
        let t = table(&[BenchRow {
            frame_ms_p95: None,
            ..row("pipeline", 1000, 2.0)
        }]);
        let line = t.lines().nth(1).unwrap_or("");
        assert!(
            line.contains("      2.00       n/a     0.50     0.20 "),
            "{t}"
        );
    }

    #[test]
    fn a_row_of_the_table_adds_up_to_its_frame() {
        // 943 ms of frame: 0.3 sim, 1.2 cull, 373 submit, 520 waiting for the GPU, 40 present.
        let r = BenchRow {
            sim_ms_median: 0.3,
            cull_lod_pack_ms_median: 1.2,
            submit_ms_median: 373.0,
            waits: Some(FrameWaits::rest_of(943.0, 0.3 + 1.2 + 373.0, 520.0, 40.0)),
            ..row("pipeline", 1000, 943.0)
        };
        let w = r.waits.expect("waits");
        assert_approx!(w.other_ms, 8.5, 1e-6);
        let t = table(&[r]);
        let line = t.lines().nth(1).unwrap_or("");
        assert!(
            line.contains("   373.00    520.00      40.00     8.50 "),
            "{t}"
        );
        assert!(t.contains("frame = sim + cull + submit + gpu wait + present + other"));
    }

    #[test]
    fn table_shows_the_ratio_to_the_first_mode_of_each_size() {
        let t = table(&[row("pipeline", 1000, 2.0), row("naive", 1000, 9.0)]);
        assert!(t.lines().nth(1).unwrap_or("").ends_with("1.00x"), "{t}");
        assert!(t.lines().nth(2).unwrap_or("").ends_with("4.50x"), "{t}");
    }
}

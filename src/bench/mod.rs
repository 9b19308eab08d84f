//! `throng bench`: repeatable measurements over a fixed camera path, written as CSV, a PNG plot
//! and a table. The headless part lives here; the GL part runs in `app::bench`.

pub mod args;
pub mod baseline;
pub mod estimate;
pub mod headless;
pub mod meta;
pub mod plot;
#[cfg(not(target_arch = "wasm32"))]
pub mod recording;
pub mod report;

use crate::clock::Instant;

use glam::Vec3;

use crate::files::{write_atomic, write_set};
use crate::game::{FrameInput, Game, GameOptions};
use crate::level::{CameraMode, CameraStart, Level};
use crate::view::camera::CameraRig;
use crate::view::frustum::Frustum;
use crate::view::lod::Lod;
use crate::view::markers::{pack_markers, PackOptions, MARKER_FLOATS};
use args::{BenchArgs, BenchMode};
use baseline::BaselineRow;
use report::{median, spread_quantile, BenchRow, FrameWaits};

/// Simulated seconds per benchmark frame: fixed, so every run does the same work.
pub const BENCH_DT: f64 = 1.0 / 60.0;
pub const BENCH_ASPECT: f32 = 16.0 / 9.0;

/// The camera for frame `i` of `n`: a quarter orbit around the plaza centre at a height that
/// shows most of it, the same for every mode and size.
pub fn camera_for_frame(level: &Level, i: u32, n: u32) -> CameraRig {
    let centre = level.bounds.center();
    let reach = (level.bounds.size().length() * 0.35).clamp(20.0, 400.0);
    let t = if n > 1 {
        i as f32 / (n - 1) as f32
    } else {
        0.0
    };
    CameraRig::from_start(&CameraStart {
        mode: CameraMode::Orbit,
        target: Vec3::new(centre.x, 1.0, centre.y),
        distance: reach,
        yaw_deg: 20.0 + 90.0 * t,
        pitch_deg: 28.0,
        fov_deg: 50.0,
    })
}

pub use headless::{run_headless, SimVariant};

/// What the GL benchmark hands back from its window.
#[derive(Debug, Clone, PartialEq)]
pub struct GlRun {
    pub rows: Vec<BenchRow>,
    /// The driver's renderer string, for the metadata.
    pub gl_renderer: String,
    /// The up-front estimate of the whole run.
    pub estimated_ms: f64,
}

/// Per-frame samples of one run, in milliseconds.
#[derive(Debug, Default, Clone)]
pub struct RunSamples {
    pub frame: Vec<f64>,
    pub sim: Vec<f64>,
    pub anim: Vec<f64>,
    pub cull: Vec<f64>,
    pub submit: Vec<f64>,
    /// glFinish after the submit, and `next_frame` (GL runs only).
    pub gpu_wait: Vec<f64>,
    pub present: Vec<f64>,
    pub draw_calls: u64,
    pub triangles: u64,
    pub uniform_bytes: u64,
    pub visible: u64,
}

impl RunSamples {
    pub fn row(&self, mode: BenchMode, agents: u32) -> BenchRow {
        let frame_ms_median = median(&self.frame);
        let submit_ms_median = if self.submit.is_empty() {
            0.0
        } else {
            median(&self.submit)
        };
        let (sim, cull) = (median(&self.sim), median(&self.cull));
        let waits = (!self.gpu_wait.is_empty()).then(|| {
            FrameWaits::rest_of(
                frame_ms_median,
                sim + cull + submit_ms_median,
                median(&self.gpu_wait),
                median(&self.present),
            )
        });
        BenchRow {
            mode: mode.name().to_string(),
            agents,
            frames: self.frame.len() as u32,
            frame_ms_median,
            frame_ms_p5: spread_quantile(&self.frame, 0.05),
            frame_ms_p95: spread_quantile(&self.frame, 0.95),
            sim_ms_median: sim,
            anim_ms_median: (!self.anim.is_empty()).then(|| median(&self.anim)),
            cull_lod_pack_ms_median: cull,
            submit_ms_median,
            draw_calls: self.draw_calls,
            triangles: self.triangles,
            uniform_bytes: self.uniform_bytes,
            visible: self.visible,
            waits,
        }
    }
}

/// A game set up for one benchmark run.
pub fn bench_game(level: &Level, agents: u32, seed: u64) -> Game {
    Game::new(
        level.clone(),
        GameOptions {
            crowd: Some(agents),
            seed: Some(seed),
        },
    )
}

/// Instance data per level of detail, and each agent's level kept between frames.
#[derive(Debug, Default)]
pub struct PackedCrowd {
    pub instances: [Vec<f32>; 3],
    pub lod_state: Vec<Lod>,
}

/// One simulation frame and the culling, LOD and packing a renderer would need, timed.
/// See `BenchMode` for what each mode culls and whether it uses LOD.
/// Returns (sim ms, cull ms, visible count).
pub fn timed_cpu_frame(
    game: &mut Game,
    mode: BenchMode,
    camera: &CameraRig,
    packed: &mut PackedCrowd,
) -> (f64, f64, usize) {
    timed_cpu_frame_of(game, mode, camera, packed, BENCH_DT)
}

/// `timed_cpu_frame` for a frame of `seconds` (the headless bench's 30 Hz rows step the crowd
/// once per 1/30 s frame).
pub fn timed_cpu_frame_of(
    game: &mut Game,
    mode: BenchMode,
    camera: &CameraRig,
    packed: &mut PackedCrowd,
    seconds: f64,
) -> (f64, f64, usize) {
    let t0 = Instant::now();
    game.frame(seconds, &FrameInput::default());
    let sim = t0.elapsed().as_secs_f64() * 1000.0;
    let t1 = Instant::now();
    let frustum = Frustum::from_view_projection(&camera.view_projection(BENCH_ASPECT));
    let lod = game.level().lod;
    let opts = PackOptions {
        frustum: mode.culls().then_some(&frustum),
        eye: camera.eye(),
        lod: mode.uses_lod().then_some(&lod),
        lod_colors: false,
    };
    let agents = &game.agents;
    let PackedCrowd {
        instances,
        lod_state,
    } = packed;
    agents.on_pool(|| {
        pack_markers(
            &opts,
            &agents.pos,
            &agents.heading,
            &agents.color,
            |_| 1.0,
            lod_state,
            instances,
        )
    });
    let cull = t1.elapsed().as_secs_f64() * 1000.0;
    let visible = packed.instances.iter().map(Vec::len).sum::<usize>() / MARKER_FLOATS;
    (sim, cull, visible)
}

/// Where the numbers come from: printed above the table and repeated in every CSV row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub cores: usize,
    pub threads: usize,
    pub simd: &'static str,
    pub commit: String,
}

impl Machine {
    pub fn here() -> Self {
        Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            threads: crate::crowd::default_threads(),
            simd: crate::crowd::simd_level(),
            commit: build_commit(),
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "{} cores, {} simulation threads, {} steering kernel, commit {}",
            self.cores, self.threads, self.simd, self.commit
        )
    }
}

/// The commit the source tree is at (with `-dirty` for uncommitted changes), or `unknown`
/// outside a git checkout.
fn build_commit() -> String {
    std::process::Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=10"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Where the rows measured so far are kept while a benchmark runs.
pub const PARTIAL_CSV: &str = "bench.partial.csv";

/// Writes the rows measured so far to `bench.partial.csv`, after each run: a benchmark killed
/// halfway keeps what it measured, while the last complete run's bench.csv, plot and metadata
/// stay a set (`write_outputs` replaces them together and then removes the partial file). A
/// failure is said once per run and measuring goes on (the final write says it again, and
/// fails the command).
pub fn save_rows_so_far(args: &BenchArgs, csv: &str) {
    if let Err(e) = write_atomic(&args.out.join(PARTIAL_CSV), csv.as_bytes()) {
        eprintln!("throng bench: {e} (the rows so far are not saved; measuring goes on)");
    }
}

/// What one run writes besides its measurements.
pub struct OutputExtras<'a> {
    /// The plot's title, subtitle (where and when it was measured) and what it timed.
    pub text: plot::PlotText<'a>,
    /// A previous run's rows (`--baseline`): drawn dashed, and their ratio plot written.
    pub baseline: &'a [BaselineRow],
    /// bench.json's contents (`meta::RunMeta::json`).
    pub meta: &'a str,
    /// More files of the set, by name in the output folder (`recording.csv`).
    pub more: Vec<(&'static str, Vec<u8>)>,
}

/// Writes bench.csv (`csv` as made by `report::to_csv` or `report::sim_csv`), bench.json
/// (`meta`), bench.png and, with a baseline, bench-vs-baseline.png into the output folder;
/// returns their paths for the log.
pub fn write_outputs(
    args: &BenchArgs,
    csv: &str,
    plotted: &[BenchRow],
    extras: &OutputExtras,
) -> Result<Vec<std::path::PathBuf>, String> {
    // One set (`files::write_set`): every file is replaced, or none is when one cannot be
    // written, so bench.csv never sits beside another run's plot or metadata.
    let mut files = vec![(
        args.out.join("bench.png"),
        plot::chart(plotted, extras.baseline, &extras.text).png()?,
    )];
    if !extras.baseline.is_empty() {
        files.push((
            args.out.join("bench-vs-baseline.png"),
            plot::ratio_chart(plotted, extras.baseline, &extras.text).png()?,
        ));
    }
    for (name, bytes) in &extras.more {
        files.push((args.out.join(name), bytes.clone()));
    }
    files.push((args.out.join("bench.json"), extras.meta.as_bytes().to_vec()));
    // The table scripts read goes last.
    files.push((args.out.join("bench.csv"), csv.as_bytes().to_vec()));
    let mut written = write_set(&files)?;
    // The complete set is written: the rows kept for a killed run are no longer needed.
    let _ = std::fs::remove_file(args.out.join(PARTIAL_CSV));
    // Listed for the log as before: the table, its metadata, then the plots (and any more).
    written.reverse();
    let plots = written.split_off(2);
    written.extend(plots.into_iter().rev());
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench_args(out: &std::path::Path) -> BenchArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            bench: BenchArgs,
        }
        let out = out.to_string_lossy().to_string();
        Wrap::try_parse_from(["bench", "--out", out.as_str()])
            .expect("parses")
            .bench
    }

    fn extras(title: &str) -> OutputExtras<'_> {
        OutputExtras {
            text: plot::PlotText {
                title,
                subtitle: "",
                timed: plot::Timed::Frame,
            },
            baseline: &[],
            meta: "{}\n",
            more: Vec::new(),
        }
    }

    fn sample_row() -> BenchRow {
        BenchRow {
            mode: "pipeline".into(),
            agents: 100,
            frames: 3,
            frame_ms_median: 2.0,
            frame_ms_p5: None,
            frame_ms_p95: Some(3.0),
            sim_ms_median: 1.0,
            anim_ms_median: None,
            cull_lod_pack_ms_median: 0.5,
            submit_ms_median: 0.5,
            draw_calls: 4,
            triangles: 1000,
            uniform_bytes: 64,
            visible: 90,
            waits: None,
        }
    }

    #[test]
    fn two_benches_writing_one_folder_never_mix_csv_and_png() {
        let dir = tempfile::tempdir().expect("temp dir");
        let args = bench_args(dir.path());
        let rows = [sample_row()];
        let csv = report::to_csv(&rows);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    for _ in 0..40 {
                        write_outputs(&args, &csv, &rows, &extras("title")).expect("written");
                        let png = std::fs::read(dir.path().join("bench.png")).expect("png");
                        assert_eq!(&png[1..4], b"PNG", "bench.png holds a PNG");
                        let text = std::fs::read(dir.path().join("bench.csv")).expect("csv");
                        assert_eq!(text, csv.as_bytes(), "bench.csv holds the CSV");
                    }
                });
            }
        });
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("read dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["bench.csv", "bench.json", "bench.png"]);
    }

    #[test]
    fn a_run_with_a_plot_that_cannot_be_written_replaces_none_of_its_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let args = bench_args(dir.path());
        let rows = [sample_row()];
        let csv = report::to_csv(&rows);
        let written = write_outputs(&args, &csv, &rows, &extras("first")).expect("written");
        assert_eq!(
            written,
            ["bench.csv", "bench.json", "bench.png"].map(|n| dir.path().join(n))
        );
        std::fs::remove_file(dir.path().join("bench.png")).expect("rm");
        std::fs::create_dir(dir.path().join("bench.png")).expect("mkdir");
        let mut second = sample_row();
        second.agents = 4321;
        let seconds = [second];
        let e = write_outputs(
            &args,
            &report::to_csv(&seconds),
            &seconds,
            &extras("second"),
        )
        .expect_err("bench.png is a folder");
        assert!(e.ends_with("bench.png: a folder has that name"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("bench.csv")).expect("csv"),
            csv,
            "the table of the last run stays with it"
        );
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("read dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["bench.csv", "bench.json", "bench.png"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_the_old_temporary_name_is_not_followed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"precious").expect("write");
        let out = dir.path().join("out");
        std::fs::create_dir(&out).expect("mkdir");
        std::os::unix::fs::symlink(&victim, out.join("bench.tmp")).expect("symlink");
        let rows = [sample_row()];
        write_outputs(
            &bench_args(&out),
            &report::to_csv(&rows),
            &rows,
            &extras("t"),
        )
        .expect("written");
        assert_eq!(std::fs::read(&victim).expect("read"), b"precious");
        assert!(std::fs::read(out.join("bench.csv"))
            .expect("csv")
            .starts_with(b"mode,agents"));
    }

    #[test]
    fn camera_path_is_fixed_and_sweeps_a_quarter_turn() {
        let level = crate::level::parse_level(
            include_str!("../../levels/plaza.ron"),
            "levels/plaza.ron",
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        )
        .expect("plaza loads");
        let a = camera_for_frame(&level, 0, 10);
        let b = camera_for_frame(&level, 9, 10);
        assert_eq!(a, camera_for_frame(&level, 0, 10));
        assert!((b.orbit.yaw - a.orbit.yaw - 90f32.to_radians()).abs() < 1e-5);
    }
}

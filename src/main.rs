// The web build starts in `app::web` instead; the desktop commands below stay compiled there
// (they type-check the same code) but nothing calls them.
#![cfg_attr(target_arch = "wasm32", allow(dead_code, unused_imports))]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use clap::Parser;
use throng::app::bench::BenchResult;
use throng::app::{self, PlayOutcome, PlaySetup};
use throng::bench::args::BenchArgs;
use throng::bench::baseline::{baseline_table, read_baseline, CsvKind};
use throng::bench::meta::MetaSource;
use throng::bench::plot::{PlotText, Timed};
#[cfg(not(target_arch = "wasm32"))]
use throng::bench::recording::{recording_csv, recording_table, run_recording};
use throng::bench::report::{sim_csv, sim_rows_for_plot, sim_table, table, to_csv, BenchRow};
use throng::bench::{run_headless, write_outputs, Machine, OutputExtras};
use throng::cli::{check_crowd_fits, check_play_outputs, find_asset_root, Cli, Command, PlayArgs};
use throng::display_check::check_display;
use throng::files::prepare_out_dir;
use throng::level::{load_level, Level, LevelWatcher};
use throng::tools::inspect::run_inspect;
use throng::tools::output::{print_error, print_line};

#[cfg(target_arch = "wasm32")]
fn main() {
    app::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Play(args)) => play(args),
        Some(Command::Bench(args)) => bench(args),
        Some(Command::Inspect(args)) => match run_inspect(&args) {
            Ok(text) => print_output("inspect", &text),
            Err(e) => {
                print_error(&format!("throng inspect: {e}"));
                ExitCode::from(1)
            }
        },
        Some(Command::Bake(args)) => match throng::tools::vat::cli::run_bake(&args) {
            Ok(text) => print_output("bake", &text),
            Err(e) => {
                print_error(&format!("throng bake: {e}"));
                ExitCode::from(1)
            }
        },
        Some(Command::Validate(args)) => validate(&args),
        Some(Command::Check(args)) => check(&args),
        Some(Command::Evacuate(args)) => evacuate(&args),
        Some(Command::Record(args)) => record(&args),
        None => play(cli.play),
    }
}

/// `throng check`: problems on stdout, the summary on stderr (not with --json, whose stdout is
/// the whole answer), exit status 1 when a level has an error.
fn check(args: &throng::cli::CheckArgs) -> ExitCode {
    let report = throng::level::check::check_files(
        &args.levels,
        args.json,
        Some(throng::level_routes::unreachable_exits),
    );
    if !report.stdout.is_empty() {
        let printed = print_output("check", &report.stdout);
        if printed != ExitCode::SUCCESS {
            return printed;
        }
    }
    if !args.json {
        print_error(&report.summary);
    }
    if args.evacuate {
        let (lines, failed) = throng::evacuate::evacuate_levels(&args.levels, &mut |l| {
            print_error(&format!("throng check: {l}"))
        });
        if !lines.is_empty() {
            let printed = print_output("check", &lines);
            if printed != ExitCode::SUCCESS {
                return printed;
            }
        }
        if failed {
            return ExitCode::from(1);
        }
    }
    if report.failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `throng evacuate`: progress on stderr, the report and the summary (last) on stdout; exit
/// status 1 when someone never got out, 2 when a file or value is refused.
fn evacuate(args: &throng::evacuate::EvacuateArgs) -> ExitCode {
    match throng::evacuate::run_evacuate(args, &mut |l| {
        print_error(&format!("throng evacuate: {l}"))
    }) {
        Ok(done) => {
            let printed = print_output("evacuate", &done.stdout);
            if !done.everyone_out {
                return ExitCode::from(1);
            }
            printed
        }
        Err(e) => {
            print_error(&format!("throng evacuate: {}", e.message()));
            ExitCode::from(e.exit_status())
        }
    }
}

/// `throng record`: progress on stderr, the summary line on stdout; exit status 2 when a file
/// or value is refused, 1 when the recording cannot be written.
#[cfg(not(target_arch = "wasm32"))]
fn record(args: &throng::record::RecordArgs) -> ExitCode {
    match throng::record::run_record(args, &mut |l| print_error(&format!("throng record: {l}"))) {
        Ok(done) => print_output("record", &done.summary),
        Err(e) => {
            print_error(&format!("throng record: {}", e.message()));
            ExitCode::from(e.exit_status())
        }
    }
}

/// Prints a command's result: a reader that closed the pipe early (`| head`) ends it quietly,
/// any other write failure is an error.
fn print_output(command: &str, text: &str) -> ExitCode {
    match print_line(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            print_error(&format!("throng {command}: writing the output: {e}"));
            ExitCode::from(1)
        }
    }
}

fn validate(args: &throng::validate::cli::ValidateArgs) -> ExitCode {
    match throng::validate::cli::run_validate(args) {
        Ok(outcome) => {
            let printed = print_output("validate", &outcome.table);
            if outcome.failures > 0 {
                print_error(&format!(
                    "throng validate: {} target(s) missed (marked **no** above)",
                    outcome.failures
                ));
                return ExitCode::from(1);
            }
            printed
        }
        Err(e) => {
            print_error(&format!("throng validate: {e}"));
            ExitCode::from(1)
        }
    }
}

fn bench(args: BenchArgs) -> ExitCode {
    // Every check before any measuring: a typo must not cost a ten-minute run.
    if let Some(e) = args.conflict() {
        eprintln!("throng bench: {e}");
        return ExitCode::from(2);
    }
    let asset_root = find_asset_root(&args.level);
    let level = match load_level(&args.level, &asset_root) {
        Ok(level) => level,
        Err(e) => {
            eprintln!("throng bench: {e}");
            return ExitCode::from(1);
        }
    };
    let largest = args.sizes().iter().copied().max().unwrap_or(0);
    if let Err(e) = check_crowd_fits(&level, "--sizes", largest) {
        eprintln!("throng bench: {e}");
        return ExitCode::from(2);
    }
    let kind = if args.headless {
        CsvKind::Headless
    } else {
        CsvKind::Gl
    };
    let baseline = match &args.baseline {
        Some(path) => match read_baseline(path, kind) {
            Ok(rows) => rows,
            Err(e) => {
                eprintln!("throng bench: {e}");
                return ExitCode::from(2);
            }
        },
        None => Vec::new(),
    };
    if !args.headless {
        if let Err(e) = check_display() {
            eprintln!("throng bench: {e}");
            return ExitCode::from(1);
        }
    }
    // Created last, once everything else is known to be fine: a refused run leaves no folders.
    if let Err(e) = prepare_out_dir(&args.out) {
        eprintln!("throng bench: {e}");
        return ExitCode::from(2);
    }
    let started = (SystemTime::now(), Instant::now());
    let machine = Machine::here();
    let measured = if args.headless {
        measure_headless(&args, &level)
    } else {
        measure_gl(&args, &level)
    };
    let (measured, gl_renderer) = match measured {
        Ok(m) => m,
        Err(e) => {
            eprintln!("throng bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let source = MetaSource {
        machine: &machine,
        kind: if args.headless { "headless" } else { "GL" },
        level: &args.level,
        level_name: &level.name,
        modes: modes_of(&measured.rows),
    };
    let mut meta = source.meta(&args, started.0);
    if let Some(name) = gl_renderer {
        meta.gl_renderer = name;
    }
    // Tenths of a second: finer would only be noise in the file.
    meta.estimated_s = (measured.estimated_ms / 100.0).round() / 10.0;
    meta.elapsed_s = (started.1.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    let title = format!(
        "{} - {}, {} frames per run",
        level.name, meta.kind, meta.frames
    );
    let subtitle = meta.subtitle();
    let json = meta.json();
    let extras = OutputExtras {
        text: PlotText {
            title: &title,
            subtitle: &subtitle,
            timed: if args.headless {
                Timed::Step
            } else {
                Timed::Frame
            },
        },
        baseline: &baseline,
        meta: &json,
        more: measured.more.clone(),
    };
    match write_outputs(&args, &measured.csv, &measured.rows, &extras) {
        Ok(paths) => {
            let mut text = measured.table.trim_end().to_string();
            if let Some(path) = &args.baseline {
                text.push('\n');
                text.push_str(baseline_table(&measured.rows, &baseline, path).trim_end());
            }
            for p in paths {
                text.push_str(&format!("\nwrote {}", p.display()));
            }
            print_output("bench", &text)
        }
        Err(e) => {
            eprintln!("throng bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A finished benchmark: its CSV, its table, the rows the plot draws and any more files.
struct Measured {
    csv: String,
    table: String,
    rows: Vec<BenchRow>,
    estimated_ms: f64,
    more: MoreFiles,
}

/// Files written with the bench's set, by name in its folder.
type MoreFiles = Vec<(&'static str, Vec<u8>)>;

/// The headless runs, then with `--recording` what recording costs (not in the estimate).
fn measure_headless(args: &BenchArgs, level: &Level) -> Result<(Measured, Option<String>), String> {
    let run = run_headless(args, level);
    let (recording, more) = recording_outputs(args, level)?;
    let measured = Measured {
        csv: sim_csv(&run.rows),
        table: sim_table(&run.rows) + &recording,
        rows: sim_rows_for_plot(&run.rows),
        estimated_ms: run.estimated_ms,
        more,
    };
    Ok((measured, None))
}

/// `--recording`: its table and recording.csv; nothing without it.
#[cfg(not(target_arch = "wasm32"))]
fn recording_outputs(args: &BenchArgs, level: &Level) -> Result<(String, MoreFiles), String> {
    if !args.recording {
        return Ok((String::new(), Vec::new()));
    }
    let rows = run_recording(args, level).map_err(|e| format!("--recording: {e}"))?;
    let table = format!(
        "\nrecording, every step written (throng record --every 1):\n{}",
        recording_table(&rows)
    );
    Ok((
        table,
        vec![("recording.csv", recording_csv(&rows).into_bytes())],
    ))
}

/// The web build has no `throng record` (no files to write).
#[cfg(target_arch = "wasm32")]
fn recording_outputs(_args: &BenchArgs, _level: &Level) -> Result<(String, MoreFiles), String> {
    Ok((String::new(), Vec::new()))
}

/// Runs the GL benchmark in a window; also returns the GL renderer's name.
fn measure_gl(args: &BenchArgs, level: &Level) -> Result<(Measured, Option<String>), String> {
    let result: BenchResult = Default::default();
    let conf = macroquad::window::Conf {
        window_title: format!("Throng bench - {}", level.name),
        window_width: args.size.width as i32,
        window_height: args.size.height as i32,
        ..Default::default()
    };
    macroquad::Window::from_config(
        conf,
        app::bench::run(args.clone(), level.clone(), result.clone()),
    );
    let outcome = result.lock().ok().and_then(|mut r| r.take());
    let run = outcome
        .ok_or("the window closed before the benchmark finished")?
        .map_err(|e| e.to_string())?;
    let measured = Measured {
        csv: to_csv(&run.rows),
        table: table(&run.rows),
        rows: run.rows,
        estimated_ms: run.estimated_ms,
        more: Vec::new(),
    };
    Ok((measured, Some(run.gl_renderer)))
}

/// The modes (or variants) in first-seen order.
fn modes_of(rows: &[BenchRow]) -> Vec<String> {
    let mut modes: Vec<String> = Vec::new();
    for r in rows {
        if !modes.contains(&r.mode) {
            modes.push(r.mode.clone());
        }
    }
    modes
}

fn play(args: PlayArgs) -> ExitCode {
    if let Err(e) = check_play_outputs(&args) {
        eprintln!("throng: {e}");
        return ExitCode::from(2);
    }
    let asset_root = find_asset_root(&args.level);
    // Load before opening a window: a broken level is a one-line message, not a blank window.
    let level = match load_level(&args.level, &asset_root) {
        Ok(level) => level,
        Err(e) => {
            eprintln!("throng: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(n) = args.crowd {
        if let Err(e) = check_crowd_fits(&level, "--crowd", n) {
            eprintln!("throng: {e}");
            return ExitCode::from(2);
        }
    }
    let people = args.crowd.unwrap_or(level.crowd.count);
    for w in throng::level::check::slowness_warnings(&level, people) {
        eprintln!("throng: {}: {w}", args.level.display());
    }
    if let Err(e) = check_display() {
        eprintln!("throng: {e}");
        return ExitCode::from(1);
    }
    let title = format!("Throng - {}", level.name);
    let size = args.size;
    let setup = PlaySetup {
        watcher: LevelWatcher::new(&args.level, &asset_root),
        level,
        args,
    };
    let outcome = Arc::new(Mutex::new(PlayOutcome::default()));
    let conf = macroquad::window::Conf {
        window_title: title,
        window_width: size.width as i32,
        window_height: size.height as i32,
        window_resizable: true,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, app::run(setup, outcome.clone()));
    let outcome = match outcome.lock() {
        Ok(mut o) => std::mem::take(&mut *o),
        Err(_) => return ExitCode::FAILURE,
    };
    match outcome.error {
        Some(e) => {
            eprintln!("throng: {e}");
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    }
}

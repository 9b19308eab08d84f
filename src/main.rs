use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Parser;
use throng::app::bench::BenchResult;
use throng::app::{self, PlayOutcome, PlaySetup};
use throng::bench::args::{prepare_out_dir, BenchArgs};
use throng::bench::report::{sim_csv, sim_rows_for_plot, sim_table, table, to_csv};
use throng::bench::{run_headless, write_outputs};
use throng::cli::{check_crowd_fits, check_play_outputs, find_asset_root, Cli, Command, PlayArgs};
use throng::display_check::check_display;
use throng::level::{load_level, LevelWatcher};
use throng::tools::inspect::run_inspect;
use throng::tools::output::{print_error, print_line};

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
        None => play(cli.play),
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
    let largest = args.sizes.0.iter().copied().max().unwrap_or(0);
    if let Err(e) = check_crowd_fits(&level, "--sizes", largest) {
        eprintln!("throng bench: {e}");
        return ExitCode::from(2);
    }
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
    let (csv, table, rows) = if args.headless {
        let rows = run_headless(&args, &level);
        (sim_csv(&rows), sim_table(&rows), sim_rows_for_plot(&rows))
    } else {
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
        match outcome {
            Some(Ok(rows)) => (to_csv(&rows), table(&rows), rows),
            Some(Err(e)) => {
                eprintln!("throng bench: {e}");
                return ExitCode::FAILURE;
            }
            None => {
                eprintln!("throng bench: the window closed before the benchmark finished");
                return ExitCode::FAILURE;
            }
        }
    };
    let kind = if args.headless { "headless" } else { "GL" };
    let title = format!("{} - {kind}, {} frames per run", level.name, args.frames);
    match write_outputs(&args, &csv, &rows, &title) {
        Ok(paths) => {
            let mut text = table.trim_end().to_string();
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

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Parser;
use throng::app::{self, PlayOutcome, PlaySetup};
use throng::cli::{check_screenshot_path, find_asset_root, Cli, Command, PlayArgs};
use throng::game::GameOptions;
use throng::level::{load_level, LevelWatcher};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Play(args)) => play(args),
        None => play(cli.play),
    }
}

fn play(args: PlayArgs) -> ExitCode {
    if let Some(path) = &args.screenshot {
        if let Err(e) = check_screenshot_path(path) {
            eprintln!("throng: {e}");
            return ExitCode::from(2);
        }
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
    let title = format!("Throng - {}", level.name);
    let setup = PlaySetup {
        watcher: LevelWatcher::new(&args.level, &asset_root),
        level,
        options: GameOptions {
            crowd: args.crowd,
            seed: args.seed,
        },
        frames: args.frames,
        seconds: args.seconds,
        screenshot: args.screenshot.clone(),
        perf_panel: args.perf_panel,
    };
    let outcome = Arc::new(Mutex::new(PlayOutcome::default()));
    let conf = macroquad::window::Conf {
        window_title: title,
        window_width: args.size.width as i32,
        window_height: args.size.height as i32,
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

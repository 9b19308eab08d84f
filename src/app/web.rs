//! The web entry (`wasm32-unknown-unknown`, opened by `web/index.html`): fetches the files the
//! build script listed in `files.txt` into memory (`web_files`), reporting progress to the
//! page, then plays the plaza in the same window loop as the desktop. The page's JavaScript
//! side is `web/throng.js` (a miniquad plugin); on the desktop this module is not built.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::Parser;
use macroquad::prelude::{
    clear_background, draw_rectangle, draw_text, next_frame, screen_height, screen_width, Color,
};

use super::{PlayOutcome, PlaySetup};
use crate::cli::Cli;
use crate::level::{load_level, LevelWatcher};

/// The list of files the page fetches before the game starts, one path a line, relative to
/// the page (written by `scripts/web-build.sh`).
const FILE_LIST: &str = "files.txt";
const LEVEL: &str = "levels/plaza.ron";
/// The web folder stands for the project root: assets/ and levels/ sit beside the page.
const ROOT: &str = ".";

/// Imports from `web/throng.js`. A page without that plugin gets miniquad's warning stubs.
mod page {
    extern "C" {
        /// `done` of `total` files fetched; the page hides its bar when they are equal.
        pub fn throng_progress(done: u32, total: u32);
        /// The page's `?crowd=N` (0: not given).
        pub fn throng_crowd_param() -> u32;
        /// The page's `?args=...` (play flags as on the command line, space-separated) as
        /// UTF-8 into `buf`; returns the length it needs (more than `cap`: nothing written).
        pub fn throng_args(buf: *mut u8, cap: u32) -> u32;
        /// After each frame: the smoothed frame time (negative until measured), the people in
        /// the crowd, those drawn this frame and the frames drawn, for the page's
        /// `window.throng` (tests read it).
        pub fn throng_frame(frame_ms: f32, people: u32, drawn: u32, frames: u32);
        /// Startup failed: the page shows `len` UTF-8 bytes at `ptr` in place of the canvas.
        pub fn throng_fail(ptr: *const u8, len: u32);
    }
}

/// Opens the WebGL2 canvas and runs the game in it.
pub fn start() {
    let conf = macroquad::window::Conf {
        window_title: "Throng".into(),
        window_width: 1280,
        window_height: 720,
        platform: macroquad::miniquad::conf::Platform {
            webgl_version: macroquad::miniquad::conf::WebGLVersion::WebGL2,
            ..Default::default()
        },
        ..Default::default()
    };
    macroquad::Window::from_config(conf, run());
}

async fn run() {
    let setup = match prepare().await {
        Ok(setup) => setup,
        Err(e) => return fail(&e).await,
    };
    let outcome = Arc::new(Mutex::new(PlayOutcome::default()));
    super::run(setup, outcome.clone()).await;
    let error = outcome.lock().ok().and_then(|mut o| o.error.take());
    if let Some(e) = error {
        fail(&e).await;
    }
}

/// Called by the window loop after each frame.
pub(super) fn frame_done(frame_ms: Option<f32>, people: usize, drawn: usize, frames: u64) {
    let ms = frame_ms.unwrap_or(-1.0);
    // SAFETY: a plain import from the page's plugin taking numbers.
    unsafe { page::throng_frame(ms, people as u32, drawn as u32, frames as u32) };
}

/// The crowd's determinism hash for the plaza (`sim_hash::crowd_hash`), called by tests from
/// the page (`wasm_exports.throng_sim_hash(people, seed, steps)`) once the files are in, so
/// they can compare it with the desktop's. 0 when the plaza is not loaded.
#[no_mangle]
pub extern "C" fn throng_sim_hash(people: u32, seed: u32, steps: u32) -> u64 {
    match load_level(Path::new(LEVEL), Path::new(ROOT)) {
        Ok(level) => crate::sim_hash::crowd_hash(&level, people as usize, u64::from(seed), steps),
        Err(_) => 0,
    }
}

/// Fetches the listed files and loads the plaza: the same setup `throng` makes from its
/// command line on the desktop (`?crowd=N` stands for `--crowd N`).
async fn prepare() -> Result<PlaySetup, String> {
    let list = macroquad::file::load_file(FILE_LIST)
        .await
        .map_err(|e| format!("{FILE_LIST}: cannot fetch it from the page's folder: {e}"))?;
    let list = String::from_utf8(list)
        .map_err(|_| format!("{FILE_LIST}: not UTF-8 text (one path a line is allowed)"))?;
    let paths = crate::web_files::file_list(&list);
    let total = paths.len() as u32;
    for (k, path) in paths.iter().enumerate() {
        show_progress(k as u32, total, path).await;
        let bytes = macroquad::file::load_file(path)
            .await
            .map_err(|e| format!("{path} (listed in {FILE_LIST}): cannot fetch it: {e}"))?;
        crate::web_files::insert(Path::new(path), bytes);
    }
    show_progress(total, total, "").await;

    let flags = page_args();
    let words = ["throng", LEVEL]
        .into_iter()
        .chain(flags.split_whitespace());
    let mut args = match Cli::try_parse_from(words) {
        Ok(cli) => cli.play,
        Err(e) => return Err(format!("?args={flags}: {e}")),
    };
    // SAFETY: a plain import from the page's plugin returning a number.
    let crowd = unsafe { page::throng_crowd_param() };
    if crowd > 0 {
        args.crowd = Some(crowd);
    }
    let level_path = PathBuf::from(LEVEL);
    let root = PathBuf::from(ROOT);
    let level = load_level(&level_path, &root).map_err(|e| e.to_string())?;
    if let Some(n) = args.crowd {
        crate::cli::check_crowd_fits(&level, "?crowd=", n)?;
    }
    Ok(PlaySetup {
        watcher: LevelWatcher::new(&level_path, &root),
        level,
        args,
    })
}

/// The page's `?args=` text (empty when not given).
fn page_args() -> String {
    let mut buf = vec![0u8; 1024];
    // SAFETY: the page writes at most `cap` bytes into `buf`, which holds that many.
    let need = unsafe { page::throng_args(buf.as_mut_ptr(), buf.len() as u32) } as usize;
    if need > buf.len() {
        buf = vec![0u8; need];
        // SAFETY: as above, with room for all of it.
        unsafe { page::throng_args(buf.as_mut_ptr(), buf.len() as u32) };
    }
    buf.truncate(need);
    String::from_utf8_lossy(&buf).into_owned()
}

/// The page's bar and the same bar on the canvas, then one frame so the browser shows it.
async fn show_progress(done: u32, total: u32, path: &str) {
    // SAFETY: a plain import from the page's plugin taking numbers.
    unsafe { page::throng_progress(done, total) };
    clear_background(Color::new(0.08, 0.09, 0.11, 1.0));
    let (w, h) = (screen_width(), screen_height());
    let bar = (w * 0.5).min(600.0);
    let (x, y) = ((w - bar) * 0.5, h * 0.5);
    let share = if total == 0 {
        1.0
    } else {
        done as f32 / total as f32
    };
    draw_rectangle(x, y, bar, 14.0, Color::new(0.25, 0.27, 0.3, 1.0));
    draw_rectangle(x, y, bar * share, 14.0, Color::new(0.45, 0.75, 0.95, 1.0));
    let text = format!("Loading the plaza: {done} of {total} files  {path}");
    draw_text(&text, x, y - 12.0, 22.0, Color::new(0.9, 0.9, 0.9, 1.0));
    next_frame().await;
}

/// Shows why the game cannot run, on the page and on the canvas, until the tab closes.
async fn fail(message: &str) {
    macroquad::logging::error!("throng: {}", message);
    // SAFETY: the pointer and length describe `message`, alive for the call.
    unsafe { page::throng_fail(message.as_ptr(), message.len() as u32) };
    loop {
        clear_background(Color::new(0.2, 0.05, 0.05, 1.0));
        draw_text(message, 20.0, 40.0, 22.0, Color::new(1.0, 0.9, 0.9, 1.0));
        next_frame().await;
    }
}

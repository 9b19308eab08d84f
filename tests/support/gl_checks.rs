//! Harness-less GL tests: macroquad wants the main thread and one window per process, so such a
//! test is a `main` that opens a window (under Xvfb when there is no screen), runs its checks
//! inside, and exits non-zero when one failed.

use std::future::Future;
use std::sync::{Arc, Mutex};

use macroquad::miniquad::{
    FilterMode, RenderPass, RenderingBackend, TextureFormat, TextureId, TextureKind, TextureParams,
    TextureWrap,
};

use super::run::{find_display, say, Display};

/// An offscreen colour and depth target a GL test draws into and reads back.
pub struct Target {
    pub pass: RenderPass,
    pub color: TextureId,
}

/// A `width` x `height` RGBA8 target with a 32-bit depth buffer, sampled nearest.
pub fn target(ctx: &mut dyn RenderingBackend, width: u32, height: u32) -> Target {
    let p = |format| TextureParams {
        kind: TextureKind::Texture2D,
        format,
        wrap: TextureWrap::Clamp,
        min_filter: FilterMode::Nearest,
        mag_filter: FilterMode::Nearest,
        width,
        height,
        ..Default::default()
    };
    let color = ctx.new_render_texture(p(TextureFormat::RGBA8));
    let depth = ctx.new_render_texture(p(TextureFormat::Depth32));
    Target {
        pass: ctx.new_render_pass(color, Some(depth)),
        color,
    }
}

/// Named checks, passed or failed, printed as they happen.
#[derive(Default)]
pub struct Checks {
    pub log: Vec<String>,
    pub failures: Vec<String>,
}

impl Checks {
    pub fn check(&mut self, ok: bool, what: String) {
        say(&format!("  {} {what}", if ok { "ok  " } else { "FAIL" }));
        if ok {
            self.log.push(what);
        } else {
            self.failures.push(what);
        }
    }
}

/// Runs `checks` in a `width` x `height` window and exits the process with their outcome.
/// `name` is the test's name in messages (and in the skip notice without any display).
pub fn run_in_window<F, Fut>(name: &str, width: i32, height: i32, checks: F)
where
    F: FnOnce() -> Fut + 'static,
    Fut: Future<Output = Checks> + 'static,
{
    // Cargo's own flags (--nocapture, filters) do not apply to a harness-less test.
    let Some(display) = find_display(name) else {
        return;
    };
    if matches!(display, Display::Xvfb) && std::env::var("THRONG_IN_XVFB").is_err() {
        let exe = std::env::current_exe().expect("own path");
        let status = std::process::Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x720x24"])
            .arg(exe)
            .env("THRONG_IN_XVFB", "1")
            .status()
            .expect("xvfb-run starts");
        std::process::exit(status.code().unwrap_or(1));
    }
    let result: Arc<Mutex<Option<Checks>>> = Arc::new(Mutex::new(None));
    let slot = result.clone();
    let conf = macroquad::window::Conf {
        window_title: name.into(),
        window_width: width,
        window_height: height,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        let c = checks().await;
        if let Ok(mut s) = slot.lock() {
            *s = Some(c);
        }
    });
    let outcome = result.lock().ok().and_then(|mut s| s.take());
    match outcome {
        Some(c) if c.failures.is_empty() => {
            say(&format!("{name} RAN: {} checks passed", c.log.len()));
        }
        Some(c) => {
            for f in &c.failures {
                say(&format!("FAILED: {f}"));
            }
            std::process::exit(1);
        }
        None => {
            say(&format!(
                "{name}: the window closed before the checks finished"
            ));
            std::process::exit(1);
        }
    }
}

//! Running the real binary in a window (or a private Xvfb) and reading back what it wrote:
//! screenshots, frame reports, scratch level folders.

use std::path::Path;
use std::process::{Command, Output};

use super::project_root;

/// How a window can be opened here: the existing display, or a private Xvfb server.
pub enum Display {
    Existing,
    Xvfb,
}

/// Finds a display for render tests. When there is none, says so loudly: a skipped render test
/// must never look like a pass in a log.
pub fn find_display(test: &str) -> Option<Display> {
    if std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()) {
        return Some(Display::Existing);
    }
    let has_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success());
    if has_xvfb {
        return Some(Display::Xvfb);
    }
    let msg = "no DISPLAY and no xvfb-run; install xvfb (apt-get install xvfb xauth libgl1-mesa-dri) to run it".to_string();
    // CI must never pass a render test that did not render.
    if std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false") {
        panic!("render test `{test}` cannot run under CI: {msg}");
    }
    say(&format!("!!!! RENDER TEST `{test}` SKIPPED: {msg} !!!!"));
    None
}

/// Writes straight to stderr, past the test harness's output capture, so CI logs always show it.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A fresh folder under target/test-levels: inside the project, so a level written there finds
/// assets/ by walking up. Removed when dropped.
pub fn scratch_dir() -> tempfile::TempDir {
    let scratch = project_root().join("target").join("test-levels");
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    tempfile::tempdir_in(&scratch).expect("temp dir")
}

/// Runs throng like `run_throng` and insists that it succeeded; returns its log (stderr).
pub fn run_throng_ok(display: &Display, args: &[&str]) -> String {
    let out = run_throng(display, args);
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "throng {args:?} failed: {log}");
    log
}

/// Runs throng with `args` plus `--stats-out DIR/NAME.json` and returns that frame report
/// (the overlay's text and the renderer's counters).
pub fn run_for_report(
    display: &Display,
    dir: &Path,
    name: &str,
    args: &[&str],
) -> serde_json::Value {
    let path = dir.join(format!("{name}.json"));
    let path_arg = path.to_string_lossy().to_string();
    let mut all = args.to_vec();
    all.extend(["--stats-out", path_arg.as_str()]);
    run_throng_ok(display, &all);
    let text = std::fs::read_to_string(&path).expect("the stats report is written");
    serde_json::from_str(&text).expect("the stats report is JSON")
}

/// Pixels where any channel of `a` and `b` differs by more than `limit`.
pub fn differing_pixels(a: &Rgb8Image, b: &Rgb8Image, limit: i32) -> usize {
    a.pixels
        .iter()
        .zip(&b.pixels)
        .filter(|(p, q)| (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > limit))
        .count()
}

/// The throng binary as a command that opens its window on `display` (through a private
/// Xvfb where there is no display), run from the project root; arguments still to add.
pub fn throng_command(display: &Display) -> Command {
    throng_command_on(display, "1280x720")
}

/// `throng_command` with a private Xvfb screen of `screen` ("1920x1080") pixels, for windows
/// larger than the default one.
pub fn throng_command_on(display: &Display, screen: &str) -> Command {
    let exe = env!("CARGO_BIN_EXE_throng");
    let mut cmd = match display {
        Display::Existing => Command::new(exe),
        Display::Xvfb => {
            let mut c = Command::new("xvfb-run");
            c.args(["-a", "-s", &format!("-screen 0 {screen}x24"), exe]);
            c
        }
    };
    cmd.current_dir(project_root());
    cmd
}

/// Runs the throng binary with `args` in a window (on `display`), from the project root.
pub fn run_throng(display: &Display, args: &[&str]) -> Output {
    throng_command(display)
        .args(args)
        .output()
        .expect("the throng binary starts")
}

pub struct Rgb8Image {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[u8; 3]>,
}

impl Rgb8Image {
    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.width + x]
    }
}

pub fn read_png(path: &Path) -> Rgb8Image {
    let file = std::fs::File::open(path).expect("screenshot exists");
    let decoder = png::Decoder::new(file);
    let mut reader = decoder.read_info().expect("valid PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "expected RGB(A), got {:?}", info.color_type);
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    Rgb8Image {
        width: info.width as usize,
        height: info.height as usize,
        pixels,
    }
}

/// Reads a JPEG screenshot as RGB.
pub fn read_jpeg(path: &Path) -> Rgb8Image {
    use zune_jpeg::zune_core::bytestream::ZCursor;
    let bytes = std::fs::read(path).expect("screenshot exists");
    let mut decoder = zune_jpeg::JpegDecoder::new(ZCursor::new(&bytes));
    let rgb = decoder.decode().expect("valid JPEG");
    let (width, height) = decoder.dimensions().expect("JPEG size");
    assert_eq!(rgb.len(), width * height * 3, "RGB output");
    Rgb8Image {
        width,
        height,
        pixels: rgb.chunks(3).map(|c| [c[0], c[1], c[2]]).collect(),
    }
}

/// Runs `f` on its own thread and insists that it ends promptly: within 5 s of that thread's
/// CPU time (so work that grows too fast fails, however busy the machine), and within a
/// generous wall deadline, so a read that blocks (a FIFO, a device), using no CPU, fails the
/// test instead of hanging it.
pub fn promptly<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(super::cpu::thread_cpu_time(f));
    });
    let (value, cpu) = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("finished within 120 s (a FIFO or device was waited on)");
    assert!(
        cpu.as_secs_f64() < 5.0,
        "took {cpu:?} of CPU, more than 5 s"
    );
    value
}

/// A copy of levels/plaza.ron in a scratch folder, for tests that edit and save it.
pub struct ScratchPlaza {
    /// The plaza's text as shipped.
    pub original: String,
    pub level: throng::level::Level,
    /// The copy's folder (removed when dropped) and the copy.
    pub dir: tempfile::TempDir,
    pub file: std::path::PathBuf,
}

/// The plaza's copy with its `camera:` line replaced by `camera` (a whole `camera: (...),`
/// line), and the level as the game loads it.
pub fn scratch_plaza_with_camera(camera: &str) -> (ScratchPlaza, throng::level::Level) {
    let plaza = scratch_plaza();
    let text = plaza
        .original
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("camera:") {
                format!("    {camera}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(text, plaza.original, "the plaza has a camera line");
    std::fs::write(&plaza.file, &text).expect("write the copy");
    let level = ron::from_str(&text).expect("the copy parses");
    (plaza, level)
}

/// Point of interest `name` of `level`: its index and where its edit handle is in a `screen`
/// sized window at the level's start camera.
pub fn poi_handle_at_start(
    level: &throng::level::Level,
    name: &str,
    screen: glam::Vec2,
) -> (usize, glam::Vec2) {
    let poi = level
        .points_of_interest
        .iter()
        .position(|p| p.name == name)
        .unwrap_or_else(|| panic!("no point of interest {name}"));
    let at = level.points_of_interest[poi].position;
    let vp = throng::view::camera::CameraRig::from_start(&level.camera)
        .view_projection(screen.x / screen.y);
    let handle = glam::Vec3::new(at.x, 0.08, at.y);
    let grab = throng::view::level_overlay::project(&vp, handle, screen).expect("on screen");
    (poi, grab)
}

pub fn scratch_plaza() -> ScratchPlaza {
    let original =
        std::fs::read_to_string(project_root().join("levels/plaza.ron")).expect("the plaza");
    let level = ron::from_str(&original).expect("the plaza parses");
    let dir = scratch_dir();
    let file = dir.path().join("plaza.ron");
    std::fs::write(&file, &original).expect("copy the plaza");
    ScratchPlaza {
        original,
        level,
        dir,
        file,
    }
}

//! Keys as a player presses them, at a slow frame rate: the game runs at one frame every two
//! seconds (`--slow-frame-ms 2000`) in its own Xvfb, a point of interest is dragged in edit mode
//! (`--input-script`), then xdotool sends a real Ctrl+S (Ctrl down, S, Ctrl up: a few tens of
//! milliseconds, inside one frame). Reading the keyboard once a frame saw Ctrl already up and
//! saved nothing; taken from the window's events with their modifiers, the chord saves.
//!
//! Every wait reads the game's output line by line until the line it waits for (a generous
//! deadline only fails a stuck run); nothing sleeps for a fixed time.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use glam::Vec2;
use support::live::{transcript, Live};
use support::{project_root, say};
use throng::level::Level;

const SCREEN: Vec2 = Vec2::new(1280.0, 720.0);

/// Whether the programs this test drives are here; skips loudly (and fails under CI) if not,
/// as `find_display` does.
fn tools_present(test: &str) -> bool {
    let missing: Vec<&str> = ["Xvfb", "xdotool"]
        .into_iter()
        .filter(|tool| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let msg = format!(
        "{} not installed; apt-get install xvfb xdotool to run it",
        missing.join(" and ")
    );
    if std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false") {
        panic!("render test `{test}` cannot run under CI: {msg}");
    }
    say(&format!("!!!! RENDER TEST `{test}` SKIPPED: {msg} !!!!"));
    false
}

/// A private X server: xdotool's keys must reach this game's window and no one else's.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x720x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        // Xvfb picks a free display and writes its number once it accepts clients.
        let mut line = String::new();
        let stdout = child.stdout.take().expect("Xvfb's stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("Xvfb says its display");
        let number = line.trim().parse::<u32>().expect("a display number");
        Xvfb {
            child,
            display: format!(":{number}"),
        }
    }

    fn xdotool(&self, args: &[&str]) {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("xdotool runs");
        assert!(
            out.status.success(),
            "xdotool {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_quick_ctrl_s_inside_a_two_second_frame_saves_the_level() {
    let test = "a_quick_ctrl_s_inside_a_two_second_frame_saves_the_level";
    if !tools_present(test) {
        return;
    }
    let support::ScratchPlaza {
        original,
        level,
        dir,
        file,
    } = support::scratch_plaza();

    // chat_ne's handle at the start camera, dragged down and left in one jump.
    let (poi, grab) = support::poi_handle_at_start(&level, "chat_ne", SCREEN);
    let at = level.points_of_interest[poi].position;
    let to = grab + Vec2::new(-90.0, 60.0);
    let script = format!(
        "2 move {} {}; 3 down left; 4 move {} {}; 5 up left",
        grab.x, grab.y, to.x, to.y
    );

    let x = Xvfb::start();
    let file_arg = file.to_string_lossy().to_string();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_throng"));
    cmd.args([
        file_arg.as_str(),
        "--edit",
        "--paused",
        "--crowd",
        "50",
        "--slow-frame-ms",
        "2000",
        // A cap, not a timing: the test ends the game with Esc once it has seen the save.
        "--frames",
        "150",
        "--input-script",
        &script,
    ])
    .current_dir(project_root())
    .env("DISPLAY", &x.display);
    let mut game = Live::spawn(cmd);
    game.wait_for("the start line", |_, l| l.contains("throng: playing"));
    let moved = game.wait_for("the move note", |_, l| l.contains("throng: moved chat_ne"));
    assert!(moved.contains("unsaved until Ctrl+S"), "{moved}");

    // The player's chord: Ctrl down, S, Ctrl up, with xdotool's 12 ms between keys: far
    // shorter than the frame, so all three arrive while one frame sleeps.
    x.xdotool(&[
        "search",
        "--sync",
        "--name",
        "^Throng - ",
        "windowfocus",
        "--sync",
    ]);
    x.xdotool(&["keydown", "ctrl", "key", "s", "keyup", "ctrl"]);
    let saved = game.wait_for("the save note", |_, l| l.contains("throng: saved "));
    assert!(saved.contains("changed numbers to"), "{saved}");

    let text = std::fs::read_to_string(&file).expect("the level file");
    let now: Level = ron::from_str(&text).expect("the saved file parses");
    let got = now.points_of_interest[poi].position;
    assert!(
        got.distance(at) > 3.0,
        "chat_ne moved on disk: {at} -> {got}"
    );
    let backup = std::fs::read_to_string(dir.path().join("plaza.ron.bak")).expect("a backup");
    assert_eq!(backup, original, "the backup holds the file as it was");

    // Esc quits as a player would; the game must end cleanly (its output closes when it exits).
    x.xdotool(&["key", "Escape"]);
    let (status, lines) = game.finish();
    assert!(status.success(), "{status}: {}", transcript(&lines));
}

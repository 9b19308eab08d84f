//! Hot reload in the real game: the binary plays a level file, the test edits the file on disk,
//! and the running game applies the edit (and survives a broken one) without a restart.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::{find_display, project_root, read_png, scratch_dir, Display};

fn level(sky: &str) -> String {
    level_with_hero(sky, "assets/hero/Godette_vrm_v4.vrm")
}

fn level_with_hero(sky: &str, hero: &str) -> String {
    format!(
        r#"Level(
    name: "Hot reload test",
    bounds: (min: (-30.0, -30.0), max: (30.0, 30.0)),
    obstacles: [(name: "fountain", kind: Fountain, shape: Circle(center: (0.0, 0.0), radius: 4.0))],
    spawn_zones: [(name: "south", center: (0.0, 20.0), half_extents: (8.0, 4.0))],
    crowd: (
        count: 20,
        models: [(name: "casual", path: "assets/characters/Casual_Male.gltf")],
        variant_groups: [(name: "all", models: ["casual"])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 3,
    ),
    hero: (model: "{hero}", spawn: (0.0, 10.0)),
    lighting: (sky_color: {sky}),
    camera: (target: (0.0, 1.0, 0.0), distance: 30.0, yaw_deg: 0.0, pitch_deg: 4.0),
)
"#
    )
}

/// Average colour of the top tenth of the picture: the sky with this camera.
fn sky_colour(path: &std::path::Path) -> [f32; 3] {
    let img = read_png(path);
    let mut sum = [0f32; 3];
    let rows = img.height / 10;
    for y in 0..rows {
        for x in 0..img.width {
            let p = img.at(x, y);
            for c in 0..3 {
                sum[c] += p[c] as f32;
            }
        }
    }
    sum.map(|s| s / (rows * img.width) as f32)
}

#[test]
fn running_game_applies_edits_and_survives_a_broken_one() {
    let Some(display) = find_display("running_game_applies_edits_and_survives_a_broken_one") else {
        return;
    };
    let dir = scratch_dir();
    let level_path = dir.path().join("reload.ron");
    let shot = dir.path().join("reload.png");
    std::fs::write(&level_path, level("(0.8, 0.05, 0.05)")).expect("write level");

    let exe = env!("CARGO_BIN_EXE_throng");
    let mut cmd = match display {
        Display::Existing => Command::new(exe),
        Display::Xvfb => {
            let mut c = Command::new("xvfb-run");
            c.args(["-a", "-s", "-screen 0 1280x720x24", exe]);
            c
        }
    };
    let level_arg = level_path.to_string_lossy().to_string();
    let shot_arg = shot.to_string_lossy().to_string();
    let mut child = cmd
        .args([
            &level_arg,
            "--seconds",
            "5",
            "--size",
            "640x360",
            "--screenshot",
            &shot_arg,
        ])
        .current_dir(project_root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("throng starts");
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let started = Instant::now();
    let mut lines = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(l) => {
                let playing = l.starts_with("throng: playing");
                lines.push(l);
                if playing {
                    break;
                }
            }
            Err(_) if started.elapsed() > Duration::from_secs(30) => {
                let _ = child.kill();
                panic!("the game did not start within 30 s: {lines:?}");
            }
            Err(_) => {}
        }
    }
    // A broken edit, then a fixed one with a green sky, each given more than the 250 ms poll.
    std::thread::sleep(Duration::from_millis(600));
    std::fs::write(&level_path, level("(0.1, 0.7,")).expect("write broken level");
    std::thread::sleep(Duration::from_millis(900));
    // The fixed edit also makes a skinned glTF with its own clips the hero.
    let designer_bytes = level_with_hero("(0.05, 0.6, 0.08)", "assets/characters/Casual_Male.gltf");
    std::fs::write(&level_path, &designer_bytes).expect("write fixed level");

    let out = child.wait_with_output().expect("throng exits");
    lines.extend(rx.try_iter());
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        out.status.success(),
        "throng failed: {}\n{stderr}",
        out.status
    );
    assert!(
        stderr.contains(&format!("{level_arg}:"))
            && stderr.contains("the last good level keeps running"),
        "the broken edit was not reported with its file and position: {stderr}"
    );
    let reloaded = lines
        .iter()
        .filter(|l| l.starts_with("throng: reloaded"))
        .count();
    assert_eq!(reloaded, 1, "{lines:?}");
    assert!(
        stderr.contains("throng: hero: now assets/characters/Casual_Male.gltf"),
        "the hero was not swapped for the edited model: {stderr}"
    );
    // The game never writes to the designer's file.
    assert_eq!(
        std::fs::read_to_string(&level_path).expect("read"),
        designer_bytes
    );
    let [r, g, b] = sky_colour(&shot);
    assert!(
        g > r + 60.0 && g > b + 40.0,
        "sky is not the edited green: {r} {g} {b}"
    );
    support::say(&format!(
        "hot reload render test RAN: broken edit reported, fixed edit applied, sky now ({r:.0}, {g:.0}, {b:.0})"
    ));
}

//! The LOD debug mode in the real game: near, mid and far people tinted red, green and blue all
//! show up in one picture looking across the plaza.

mod support;

use support::{find_display, project_root, read_png, run_throng, scratch_dir};

fn grey_tints(level: &str) -> String {
    let mut out = String::new();
    let mut rest = level;
    while let Some(at) = rest.find("tints: [") {
        out.push_str(&rest[..at]);
        let close = rest[at..].find(']').map_or(rest.len(), |k| at + k + 1);
        out.push_str("tints: [(0.5, 0.5, 0.5)]");
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

#[test]
fn lod_debug_colours_show_three_bands() {
    let Some(display) = find_display("lod_debug_colours_show_three_bands") else {
        return;
    };
    let plaza = std::fs::read_to_string(project_root().join("levels/plaza.ron")).expect("plaza");
    // Grey clothes, so only the debug tint can make a person red, green or blue.
    let plaza = grey_tints(&plaza);
    let start = plaza.find("    camera: (").expect("camera line");
    let end = start + plaza[start..].find('\n').expect("end of line");
    let level = format!(
        "{}    camera: (mode: Orbit, target: (0.0, 1.0, 30.0), distance: 12.0, yaw_deg: 0.0, pitch_deg: 8.0, fov_deg: 60.0),{}",
        &plaza[..start],
        &plaza[end..]
    );
    let dir = scratch_dir();
    let path = dir.path().join("lod.ron");
    std::fs::write(&path, level).expect("write level");
    let level_arg = path.to_string_lossy().to_string();
    // The same frame with and without the debug tint: what changes is the people's colour only,
    // so water, sky and brick cannot pass for a band.
    let bands = |tinted: bool| {
        let shot = dir.path().join(format!("lod_{tinted}.png"));
        let shot_arg = shot.to_string_lossy().to_string();
        // The far band as a mesh: the plaza's impostors (yellow) start inside the mid band.
        // Paused: both runs show the crowd where the level starts it, whatever the frames took.
        let mut args = vec![
            level_arg.as_str(),
            "--paused",
            "--no-impostors",
            "--frames",
            "3",
            "--no-adaptive-quality",
            "--screenshot",
            &shot_arg,
        ];
        if tinted {
            args.push("--lod-colors");
        }
        let out = run_throng(&display, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let img = read_png(&shot);
        // One channel clearly above the other two: lit and shadowed debug tints.
        let dominant = |c: usize| {
            img.pixels
                .iter()
                .filter(|p| {
                    let (a, b) = ((c + 1) % 3, (c + 2) % 3);
                    let v = p[c] as i32;
                    v > 90 && v > p[a] as i32 + 50 && v > p[b] as i32 + 50
                })
                .count() as i64
        };
        [dominant(0), dominant(1), dominant(2)]
    };
    let plain = bands(false);
    let tinted = bands(true);
    let [red, green, blue] = [0, 1, 2].map(|c| tinted[c] - plain[c]);
    support::say(&format!(
        "LOD render test RAN: tinting added red (near) {red} px, green (mid) {green} px, blue (far) {blue} px"
    ));
    // Far people are small at 90+ m: a few dozen pixels each.
    assert!(
        red > 2000 && green > 2000 && blue > 30,
        "bands: {red} {green} {blue}"
    );
}

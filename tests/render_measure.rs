//! Measuring the plaza in the real window, as a player does: M opens the measurements panel
//! with each area's and line's live reading and sparkline, F8's labels carry the same readings
//! over the street, and O starts and stops a trajectory recording that ends as a whole
//! JuPedSim SQLite file in `--record-dir` (the game's frames as written, 10 per second).

mod support;

use support::find_display;
use support::live::{transcript, Live};

/// Over the south street, its measurement area (8 x 8 m at z 70 to 78) in the picture.
const SOUTH_STREET_CAMERA: &str = "camera: (mode: Orbit, target: (0.0, 1.0, 70.0), \
     distance: 34.0, yaw_deg: 20.0, pitch_deg: 40.0, fov_deg: 50.0),";

fn texts(report: &serde_json::Value) -> Vec<String> {
    report["ui"]["texts"]
        .as_array()
        .expect("the layout's texts")
        .iter()
        .filter_map(|t| t["text"].as_str().map(str::to_string))
        .collect()
}

/// `recorded P people over F frames (...)` → (P, F).
fn recorded(note: &str) -> (u64, u64) {
    let words: Vec<&str> = note.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "recorded")
        .unwrap_or_else(|| panic!("{note}"));
    let num = |k: usize| -> u64 {
        words
            .get(k)
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("word {k} of {note}"))
    };
    (num(at + 1), num(at + 4))
}

#[test]
fn m_reads_the_street_live_and_o_records_a_whole_trajectory_file() {
    let Some(display) = find_display("m_reads_the_street_live") else {
        return;
    };
    let (plaza, _) = support::scratch_plaza_with_camera(SOUTH_STREET_CAMERA);
    let file = plaza.file.to_string_lossy().to_string();
    let record_dir = plaza.dir.path().join("recordings");
    let record_arg = record_dir.to_string_lossy().to_string();
    let stats = plaza.dir.path().join("measure.json");
    let stats_arg = stats.to_string_lossy().to_string();
    // O on frame 2 starts the recording, O on frame 40 stops it.
    let mut game = Live::throng(
        &display,
        &[
            file.as_str(),
            "--crowd",
            "600",
            "--sim-ahead",
            "30",
            "--measurements",
            "--level-overlay",
            "--no-adaptive-quality",
            "--record-dir",
            &record_arg,
            "--input-script",
            "2 key o; 40 key o",
            "--stats-out",
            &stats_arg,
        ],
    );
    let started = game.wait_for("the recording's note", |_, l| {
        l.contains("throng: recording everyone at 10 frames per simulated second to ")
    });
    let expected = record_dir.join("plaza-001.sqlite");
    assert!(
        started.contains(&expected.display().to_string()),
        "{started}"
    );
    let done = game.wait_for("the recording's end", |_, l| {
        l.contains("throng: recorded ")
    });
    let (status, lines) = game.finish();
    assert!(status.success(), "{status}: {}", transcript(&lines));
    let (people, frames) = recorded(&done);
    assert_eq!(people, 600, "{done}");
    assert!(frames >= 2, "{done}");

    // The file: the frames and people the note said, at 10 frames per second.
    let db = rusqlite::Connection::open(&expected).expect("the recording opens");
    let count = |sql: &str| -> u64 {
        db.query_row(sql, [], |r| r.get::<_, i64>(0))
            .unwrap_or_else(|e| panic!("{sql}: {e}")) as u64
    };
    assert_eq!(
        count("SELECT COUNT(DISTINCT frame) FROM trajectory_data"),
        frames
    );
    assert_eq!(count("SELECT COUNT(DISTINCT id) FROM trajectory_data"), 600);
    assert_eq!(count("SELECT COUNT(*) FROM trajectory_data"), frames * 600);
    let fps: String = db
        .query_row("SELECT value FROM metadata WHERE key = 'fps'", [], |r| {
            r.get(0)
        })
        .expect("the frame rate");
    assert_eq!(fps.parse::<f64>().ok(), Some(10.0), "{fps}");
    // Only the finished file: no temporary left beside it.
    let names: Vec<String> = std::fs::read_dir(&record_dir)
        .expect("the folder")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
        .collect();
    assert_eq!(names, vec!["plaza-001.sqlite".to_string()]);

    // The panel and the overlay's labels, as drawn on the last frame.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("the stats report"))
            .expect("JSON");
    let shown = texts(&report);
    let has = |what: &str, f: &dyn Fn(&str) -> bool| {
        assert!(shown.iter().any(|t| f(t)), "{what} among {shown:?}");
    };
    has("the panel's title", &|t| {
        t == "Measurements (M) · last 10 s"
    });
    has("the area's row", &|t| t == "area south_street_area · 64 m²");
    has("the area's reading", &|t| {
        t.contains("/m² (Voronoi ") && t.ends_with(" m/s") && !t.starts_with("area")
    });
    has("the line's row", &|t| {
        t == "line north_street_line · 14.0 m"
    });
    has("the line's reading", &|t| {
        t.starts_with("fwd ") && t.ends_with("/m/s")
    });
    has("the overlay's label with its reading", &|t| {
        t.starts_with("area south_street_area · 64 m² · ") && t.contains("(Voronoi ")
    });
    has("the recording line, stopped", &|t| {
        t.starts_with("O: record everyone")
    });
    let panels = report["ui"]["panels"].as_array().expect("panels");
    assert!(
        panels.iter().any(|p| p["name"] == "measurements"),
        "{panels:?}"
    );
    let problems = throng::ui::layout_log::layout_problems(
        &serde_json::from_value(report["ui"].clone()).expect("the layout"),
        glam::Vec2::new(1280.0, 720.0),
    );
    assert!(problems.is_empty(), "{problems:?}");
}

/// The build toolbar's Record button starts a recording: the button says "Stop rec" and the
/// HUD names the file while it runs, the note naming a long path wraps on the screen, and
/// quitting the game mid-recording still leaves a whole file.
#[test]
fn the_toolbars_record_button_starts_and_stops_a_recording() {
    let Some(display) = find_display("the_toolbars_record_button") else {
        return;
    };
    use throng::ui::build_bar::{click_rect, BarClick};
    let plaza = support::scratch_plaza();
    let r = click_rect(glam::Vec2::new(1280.0, 720.0), BarClick::Record);
    let (bx, by) = (r.x + r.w * 0.5, r.y + r.h * 0.5);
    let file = plaza.file.to_string_lossy().to_string();
    // A long folder: the note that names it must wrap, not run off the screen.
    let record_dir = plaza
        .dir
        .path()
        .join("recordings-of-the-plaza-for-the-pedestrian-dynamics-course-autumn-term-2026")
        .join("group-b-measurement-session-with-the-toolbar");
    let record_arg = record_dir.to_string_lossy().to_string();
    let stats = plaza.dir.path().join("toolbar.json");
    let stats_arg = stats.to_string_lossy().to_string();
    let script = format!("2 key b; 3 move {bx} {by}; 4 down left; 5 up left; 6 move 640 300");
    // Recording from frame 4; the report is of frame 8, the last, while it runs and its note
    // shows.
    let mut game = Live::throng(
        &display,
        &[
            file.as_str(),
            "--crowd",
            "200",
            "--no-adaptive-quality",
            "--record-dir",
            &record_arg,
            "--input-script",
            &script,
            "--stats-out",
            &stats_arg,
            "--frames",
            "8",
        ],
    );
    game.wait_for("the recording's note", |_, l| {
        l.contains("throng: recording everyone at 10 frames per simulated second")
    });
    let done = game.wait_for("the recording's end (on quit)", |_, l| {
        l.contains("throng: recorded ")
    });
    let (status, lines) = game.finish();
    assert!(status.success(), "{status}: {}", transcript(&lines));
    let (people, frames) = recorded(&done);
    assert_eq!(people, 200, "{done}");
    assert!(frames >= 1, "{done}");
    assert!(record_dir.join("plaza-001.sqlite").is_file());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("the stats report"))
            .expect("JSON");
    let shown = texts(&report);
    assert!(shown.iter().any(|t| t == "Stop rec"), "{shown:?}");
    assert!(
        shown.iter().any(|t| t.starts_with("REC plaza-001.sqlite")),
        "the HUD's recording line among {shown:?}"
    );
    let problems = throng::ui::layout_log::layout_problems(
        &serde_json::from_value(report["ui"].clone()).expect("the layout"),
        glam::Vec2::new(1280.0, 720.0),
    );
    assert!(problems.is_empty(), "{problems:?}");
}

//! The build toolbar's things saved into the designer's level file on disk: Ctrl+S appends new
//! ones, cuts out removed ones and rewrites only the numbers of moved ones, keeps every other
//! byte (comments, CRLF line ends), copies the file to `.bak` first, writes a file that loads
//! with the same placed list, and refuses when the file changed on disk.

mod support;

use std::path::Path;

use glam::Vec2;
use throng::level::{load_level, read_level_text, Level, Placed, ThingKind};
use throng::level_edit::session::backup_path;
use throng::level_edit::{Editor, Element};

/// The placed list the tests start from, written as the plaza's last field.
const LIST: &str = "    placed: [
        // The stand by the fountain ] (a bracket in a comment)
        (name: \"stand ]) [\", kind: FoodStand, at: (25.0, -20.0)), /* a ) */
        (name: \"bench\", kind: Bench, at: (28.0, -24.0), heading_deg: 90.0),
        (name: \"post\", kind: Bollard, at: (22.0, -25.0)),
    ],
";

const PLAZA: &str = include_str!("../levels/plaza.ron");

const CAMERA: &str = "fov_deg: 50.0),\n";

fn thing(name: &str, kind: ThingKind, x: f32, z: f32, heading_deg: f32) -> Placed {
    Placed {
        name: name.to_string(),
        kind,
        at: Vec2::new(x, z),
        heading_deg,
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("readable")
}

/// A scratch copy of the plaza holding `text` (the plaza itself when None), and a session on
/// it as the game opens one.
fn session(text: Option<&str>) -> (support::ScratchPlaza, String, Editor, Level) {
    let plaza = support::scratch_plaza();
    let text = text.map_or(plaza.original.clone(), str::to_string);
    std::fs::write(&plaza.file, &text).expect("write the level");
    let normalised = read_level_text(&plaza.file).expect("reads");
    let level = load_level(&plaza.file, &support::project_root()).expect("the level loads");
    let editor = Editor::new(
        &plaza.file,
        &support::project_root(),
        normalised,
        level.clone(),
    );
    (plaza, text, editor, level)
}

fn with_list(original: &str, list: &str) -> String {
    assert_eq!(original.matches(CAMERA).count(), 1);
    original.replacen(CAMERA, &format!("{CAMERA}{list}"), 1)
}

fn loads(path: &Path) -> Level {
    load_level(path, &support::project_root()).expect("the saved level loads")
}

#[test]
fn a_thing_placed_in_a_level_without_placed_is_inserted_and_nothing_else_changes() {
    let (plaza, original, mut editor, start) = session(None);
    assert!(!original.contains("placed"));
    let mut now = start.clone();
    now.placed
        .push(thing("stand", ThingKind::FoodStand, 25.0, -20.0, 30.0));
    editor.record(start.clone());
    assert!(editor.unsaved(&now));
    let saved = editor.save(&now).expect("saves");
    assert_eq!((saved.numbers, saved.placed_changes), (0, 1));
    let on_disk = read(&plaza.file);
    assert_eq!(saved.text, on_disk);
    // The field goes before the level's closing paren: every byte before and after it is the
    // file's own.
    let at = original.rfind(")\n").expect("the level closes");
    let inserted = "    placed: [
        (name: \"stand\", kind: FoodStand, at: (25.0, -20.0), heading_deg: 30.0),
    ],
";
    assert_eq!(on_disk[..at], original[..at]);
    assert_eq!(on_disk[at + inserted.len()..], original[at..]);
    assert_eq!(&on_disk[at..at + inserted.len()], inserted);
    assert_eq!(
        read(&backup_path(&plaza.file)),
        original,
        "the backup is the file before"
    );
    assert_eq!(loads(&plaza.file).placed, now.placed);
    assert!(!editor.unsaved(&now));
    // Saved again with nothing new: nothing is written.
    let again = editor.save(&now).expect("nothing to save");
    assert_eq!((again.numbers, again.placed_changes), (0, 0));
    assert_eq!(read(&backup_path(&plaza.file)), original);
}

#[test]
fn a_thing_placed_in_a_level_with_a_list_is_appended_to_it() {
    let (plaza, original, mut editor, start) = session(Some(&with_list(PLAZA, LIST)));
    let mut now = start.clone();
    let name = "board \"north\" ] é";
    now.placed
        .push(thing(name, ThingKind::InformationBoard, 30.0, -18.0, -45.0));
    let saved = editor.save(&now).expect("saves");
    assert_eq!(saved.placed_changes, 1);
    let line = format!(
        "        (name: {}, kind: InformationBoard, at: (30.0, -18.0), heading_deg: -45.0),\n",
        ron::to_string(name).expect("a string")
    );
    let post = "        (name: \"post\", kind: Bollard, at: (22.0, -25.0)),\n";
    assert_eq!(
        read(&plaza.file),
        original.replacen(post, &format!("{post}{line}"), 1)
    );
    assert_eq!(loads(&plaza.file).placed, now.placed);
}

#[test]
fn a_moved_thing_gets_only_its_numbers_rewritten() {
    let (plaza, original, mut editor, start) = session(Some(&with_list(PLAZA, LIST)));
    let mut now = start.clone();
    now.placed[0].at = Vec2::new(25.5, -20.5);
    now.placed[0].heading_deg = 15.0;
    now.placed[1].heading_deg = 0.0;
    let saved = editor.save(&now).expect("saves");
    assert_eq!(saved.placed_changes, 2);
    let expected = original
        .replacen(
            "at: (25.0, -20.0)), /* a ) */",
            "at: (25.5, -20.5), heading_deg: 15.0), /* a ) */",
            1,
        )
        .replacen("heading_deg: 90.0)", "heading_deg: 0.0)", 1);
    assert_eq!(read(&plaza.file), expected);
    assert_eq!(loads(&plaza.file).placed, now.placed);
}

#[test]
fn a_removed_thing_goes_and_the_others_stay_byte_for_byte() {
    let (plaza, original, mut editor, start) = session(Some(&with_list(PLAZA, LIST)));
    let mut now = start.clone();
    now.placed.retain(|p| p.name != "bench");
    editor.record(start.clone());
    let saved = editor.save(&now).expect("saves");
    assert_eq!(saved.placed_changes, 1);
    let line = "        (name: \"bench\", kind: Bench, at: (28.0, -24.0), heading_deg: 90.0),\n";
    assert_eq!(read(&plaza.file), original.replacen(line, "", 1));
    assert_eq!(loads(&plaza.file).placed, now.placed);
    assert_eq!(read(&backup_path(&plaza.file)), original);
}

#[test]
fn a_file_with_comments_and_crlf_lines_keeps_them() {
    let crlf = with_list(PLAZA, LIST).replace('\n', "\r\n");
    let (plaza, original, mut editor, start) = session(Some(&crlf));
    let mut now = start.clone();
    now.placed.retain(|p| p.name != "post");
    now.placed[1].at.x = 28.5;
    now.placed
        .push(thing("fence", ThingKind::Fence, 30.0, -28.0, 90.0));
    let saved = editor.save(&now).expect("saves");
    assert_eq!(saved.placed_changes, 3);
    let on_disk = read(&plaza.file);
    assert_eq!(
        on_disk.matches('\n').count(),
        on_disk.matches("\r\n").count(),
        "every line still ends in CRLF"
    );
    let list = original.find("    placed: [").expect("the list");
    assert_eq!(
        on_disk[..list],
        original[..list],
        "all before the list as it was"
    );
    let expected = original
        .replacen(
            "        (name: \"post\", kind: Bollard, at: (22.0, -25.0)),\r\n",
            "",
            1,
        )
        .replacen("at: (28.0, -24.0), heading_deg: 90.0),\r\n", "at: (28.5, -24.0), heading_deg: 90.0),\r\n        (name: \"fence\", kind: Fence, at: (30.0, -28.0), heading_deg: 90.0),\r\n", 1);
    assert_eq!(on_disk, expected);
    assert!(on_disk.contains("// The stand by the fountain ] (a bracket in a comment)"));
    assert_eq!(
        read(&backup_path(&plaza.file)),
        original,
        "the backup holds the old bytes"
    );
    assert_eq!(loads(&plaza.file).placed, now.placed);
}

#[test]
fn placed_things_and_moved_numbers_save_together_and_round_trip() {
    let (plaza, _original, mut editor, start) = session(None);
    let chat = start
        .points_of_interest
        .iter()
        .position(|p| p.name == "chat_ne")
        .expect("chat_ne");
    let mut now = start.clone();
    assert!(Element::Poi(chat).move_to(&mut now, Vec2::new(34.0, -38.0)));
    now.placed = vec![
        thing("stand", ThingKind::FoodStand, 25.0, -20.0, 0.0),
        thing("bench", ThingKind::Bench, 28.0, -24.0, 90.0),
        thing("stage", ThingKind::SmallStage, -25.0, -25.0, 180.0),
    ];
    let first = editor.save(&now).expect("saves");
    assert_eq!((first.numbers, first.placed_changes), (2, 3));
    let after_first = read(&plaza.file);
    assert_eq!(
        loads(&plaza.file),
        now,
        "the saved file loads as the level on screen"
    );
    // A second save: its backup holds what the first one wrote.
    let mut later = now.clone();
    later.placed.remove(0);
    later.placed[0].heading_deg = -90.0;
    let second = editor.save(&later).expect("saves");
    assert_eq!((second.numbers, second.placed_changes), (0, 2));
    assert_eq!(read(&backup_path(&plaza.file)), after_first);
    assert_eq!(loads(&plaza.file).placed, later.placed);
}

#[test]
fn the_save_is_refused_when_the_file_changed_on_disk() {
    let (plaza, original, mut editor, start) = session(None);
    let mut now = start.clone();
    now.placed
        .push(thing("post", ThingKind::Bollard, 22.0, -25.0, 0.0));
    let theirs = original.replace("count: 2000", "count: 1800");
    assert_ne!(theirs, original);
    std::fs::write(&plaza.file, &theirs).expect("outside edit");
    let e = editor.save(&now).expect_err("refused");
    assert!(
        e.contains("changed on disk since it was loaded: not saved"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    assert_eq!(read(&plaza.file), theirs, "their file is untouched");
    assert!(!backup_path(&plaza.file).exists(), "nothing written");
    assert!(editor.unsaved(&now), "the placement stays in the game");
}

#[test]
fn a_placement_is_undone_and_redone_with_the_drags() {
    let (_plaza, _original, mut editor, start) = session(None);
    let chat = start
        .points_of_interest
        .iter()
        .position(|p| p.name == "chat_ne")
        .expect("chat_ne");
    assert!(editor.begin_drag(Element::Poi(chat), Vec2::new(30.0, -40.0), &start));
    editor.drag_to(Vec2::new(31.0, -40.0));
    let dragged = match editor.end_drag(&start) {
        throng::level_edit::EditOutcome::Apply(l) => *l,
        other => panic!("not applied: {other:?}"),
    };
    assert!(editor.undo(&dragged).is_some() && editor.can_redo());
    let mut placed = start.clone();
    placed
        .placed
        .push(thing("post", ThingKind::Bollard, 22.0, -25.0, 0.0));
    editor.record(start.clone());
    assert!(!editor.can_redo(), "a new edit drops the redo stack");
    assert_eq!(editor.undo(&placed), Some(start.clone()));
    assert_eq!(editor.redo(&start), Some(placed.clone()));
    assert_eq!(editor.undo(&placed), Some(start.clone()));
    assert!(!editor.can_undo());
}

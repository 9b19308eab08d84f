//! The in-game save treats the level file the way the designer set it up: a symbolic link is
//! written through to the level it names, the file's permissions stay (a private level stays
//! private, and so does its backup), a read-only level is refused with the reason, and a file
//! with a byte-order mark or classic-Mac line ends is read and written back in its own form.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use glam::Vec2;
use throng::level::{load_level, read_level_text, Level};
use throng::level_edit::session::backup_path;
use throng::level_edit::{EditOutcome, Editor, Element};

const PLAZA: &str = include_str!("../levels/plaza.ron");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse(text: &str) -> Level {
    ron::from_str(text).expect("the level parses")
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// A session on the level at `path` (whose text is `text`), and the plaza with `chat_ne` moved
/// 4 m east: the edit every test saves.
fn edited(path: &Path, text: &str) -> (Editor, Level) {
    let start = parse(&read_level_text(path).expect("reads"));
    let mut editor = Editor::new(
        path,
        &root(),
        read_level_text(path).expect("reads"),
        start.clone(),
    );
    let chat = start
        .points_of_interest
        .iter()
        .position(|p| p.name == "chat_ne")
        .expect("chat_ne");
    assert!(editor.begin_drag(Element::Poi(chat), Vec2::new(30.0, -40.0), &start));
    editor.drag_to(Vec2::new(34.0, -40.0));
    let moved = match editor.end_drag(&start) {
        EditOutcome::Apply(l) => *l,
        other => panic!("not applied: {other:?}"),
    };
    assert!(text.contains(r#""chat_ne", position: (30.0, -40.0)"#));
    (editor, moved)
}

fn moved_text(text: &str) -> String {
    text.replacen(
        r#""chat_ne", position: (30.0, -40.0)"#,
        r#""chat_ne", position: (34.0, -40.0)"#,
        1,
    )
}

#[test]
fn a_save_through_a_link_writes_the_linked_level_and_keeps_the_link() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&store).expect("mkdir");
    std::fs::create_dir_all(&work).expect("mkdir");
    let real = store.join("plaza.ron");
    std::fs::write(&real, PLAZA).expect("write");
    let link = work.join("plaza.ron");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");

    let (mut editor, moved) = edited(&link, PLAZA);
    let saved = editor.save(&moved).expect("saves");
    assert_eq!(saved.numbers, 1);
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    assert_eq!(std::fs::read_link(&link).expect("link"), real);
    assert_eq!(
        std::fs::read_to_string(&real).expect("read"),
        moved_text(PLAZA)
    );
    // The backup sits beside the level itself, holding the file before.
    let backup = backup_path(&real.canonicalize().expect("real"));
    assert_eq!(saved.backup, backup);
    assert_eq!(std::fs::read_to_string(&backup).expect("backup"), PLAZA);
    assert!(!backup_path(&link).exists(), "no backup beside the link");
    let names: Vec<_> = std::fs::read_dir(&work)
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["plaza.ron"], "nothing else in the link's folder");
    assert_eq!(load_level(&link, &root()).expect("loads"), {
        let mut l = load_level(&real, &root()).expect("loads");
        l.hero = moved.hero.clone();
        l
    });
}

#[test]
fn a_private_level_and_its_backup_stay_private() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plaza.ron");
    std::fs::write(&path, PLAZA).expect("write");
    set_mode(&path, 0o600);
    let (mut editor, moved) = edited(&path, PLAZA);
    let saved = editor.save(&moved).expect("saves");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        moved_text(PLAZA)
    );
    assert_eq!(mode(&path), 0o600, "the level keeps its mode");
    assert_eq!(
        mode(&saved.backup),
        0o600,
        "the backup gets the level's mode"
    );
    // A group-readable level keeps that too: the mode is copied, not narrowed.
    std::fs::write(&path, PLAZA).expect("write");
    set_mode(&path, 0o640);
    let (mut editor, moved) = edited(&path, PLAZA);
    editor.save(&moved).expect("saves");
    assert_eq!(mode(&path), 0o640);
    assert_eq!(mode(&saved.backup), 0o640);
}

#[test]
fn a_read_only_level_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plaza.ron");
    std::fs::write(&path, PLAZA).expect("write");
    set_mode(&path, 0o444);
    let (mut editor, moved) = edited(&path, PLAZA);
    let e = editor.save(&moved).expect_err("read-only: refused");
    assert_eq!(
        e,
        format!(
            "not saved: cannot write {}: the file is read-only (mode 0444); make it writable to \
             save over it",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), PLAZA);
    assert_eq!(mode(&path), 0o444, "the designer's choice stands");
    assert!(!backup_path(&path).exists(), "nothing written");
    assert!(editor.unsaved(&moved), "the edit stays in the game");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["plaza.ron"], "no temporary left");
}

#[test]
fn a_level_with_a_byte_order_mark_loads_and_saves_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plaza.ron");
    let with_bom = format!("\u{FEFF}{PLAZA}");
    std::fs::write(&path, &with_bom).expect("write");
    let level = load_level(&path, &root()).expect("a BOM is accepted");
    assert_eq!(level.name, parse(PLAZA).name);
    let (mut editor, moved) = edited(&path, PLAZA);
    let saved = editor.save(&moved).expect("saves");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        format!("\u{FEFF}{}", moved_text(PLAZA)),
        "the mark is written back"
    );
    assert_eq!(
        std::fs::read_to_string(&saved.backup).expect("read"),
        with_bom
    );
    // An error in such a file is placed where an editor shows it (the mark takes no column).
    std::fs::write(&path, "Level(nme: \"x\")").expect("write");
    let plain = load_level(&path, &root())
        .expect_err("unknown field")
        .to_string();
    std::fs::write(&path, "\u{FEFF}Level(nme: \"x\")").expect("write");
    let marked = load_level(&path, &root())
        .expect_err("unknown field")
        .to_string();
    assert_eq!(marked, plain);
    assert!(
        marked.starts_with(&format!(
            "{}:1:10: nme: unknown field `nme`",
            path.display()
        )),
        "{marked}"
    );
}

#[test]
fn a_level_with_classic_mac_line_ends_loads_and_saves_with_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plaza.ron");
    let cr = PLAZA.replace('\n', "\r");
    assert!(
        PLAZA.contains("// "),
        "line comments end at a CR, not at the end of the file"
    );
    std::fs::write(&path, &cr).expect("write");
    let level = load_level(&path, &root()).expect("CR line ends are line ends");
    assert_eq!(level.obstacles.len(), parse(PLAZA).obstacles.len());
    let (mut editor, moved) = edited(&path, PLAZA);
    editor.save(&moved).expect("saves");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        moved_text(PLAZA).replace('\n', "\r"),
        "CR line ends are written back"
    );
    // Positions count CR-ended lines.
    std::fs::write(&path, "Level(\r    name: \"x\",\r    nme: 1,\r)").expect("write");
    let e = load_level(&path, &root())
        .expect_err("unknown field")
        .to_string();
    assert!(
        e.starts_with(&format!("{}:3:8: nme: unknown field `nme`", path.display())),
        "{e}"
    );
}

#[test]
fn a_nul_byte_is_named_at_its_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("nul.ron");
    let text = PLAZA.replacen("Level(", "Level(\0", 1);
    std::fs::write(&path, &text).expect("write");
    let e = load_level(&path, &root()).expect_err("NUL").to_string();
    let line = 1 + PLAZA[..PLAZA.find("Level(").expect("Level(")]
        .matches('\n')
        .count();
    assert_eq!(
        e,
        format!(
            "{}:{line}:7: the character U+0000 (NUL) is not text; level files hold text, with \
             tabs and line breaks the only control characters outside strings",
            path.display()
        )
    );
    std::fs::write(&path, "\0\0\0").expect("write");
    let e = load_level(&path, &root()).expect_err("NUL").to_string();
    assert!(
        e.starts_with(&format!(
            "{}:1:1: the character U+0000 (NUL)",
            path.display()
        )),
        "{e}"
    );
}

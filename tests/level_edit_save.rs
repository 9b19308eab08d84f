//! In-game editing keeps the designer's file: the save writes only the numbers that moved, in
//! place (comments, order and formatting kept byte for byte), keeps a backup, refuses when the
//! file changed on disk, and the session undoes and redoes.

use std::path::{Path, PathBuf};

use glam::Vec2;
use throng::level::{Level, LevelWatcher, Shape};
use throng::level_edit::patch::patch_level_text;
use throng::level_edit::session::backup_path;
use throng::level_edit::{EditOutcome, Editor, Element, ROTATE_STEP_DEG};

const PLAZA: &str = include_str!("../levels/plaza.ron");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse(text: &str) -> Level {
    ron::from_str(text).expect("the level parses")
}

fn index_of<T>(list: &[T], name: impl Fn(&T) -> bool) -> usize {
    list.iter().position(name).expect("named")
}

/// Replaces exactly one occurrence of `from`.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn a_file_with_comments_round_trips_byte_for_byte_when_nothing_moved() {
    let level = parse(PLAZA);
    assert!(PLAZA.contains("// The fountain everyone gathers around."));
    let (text, numbers) = patch_level_text(PLAZA, &level, &level).expect("patches");
    assert_eq!(numbers, 0);
    assert_eq!(text, PLAZA);
}

#[test]
fn moved_numbers_change_in_place_and_the_text_loads_as_the_edited_level() {
    let before = parse(PLAZA);
    let mut after = before.clone();
    let chat = index_of(&after.points_of_interest, |p| p.name == "chat_nw");
    assert!(Element::Poi(chat).move_to(&mut after, Vec2::new(-30.0, -34.0)));
    let path = index_of(&after.paths, |p| p.name == "north_south");
    assert!(Element::PathPoint(path, 1).move_to(&mut after, Vec2::new(2.5, -40.0)));
    let kiosk = index_of(&after.obstacles, |o| o.name == "kiosk_news");
    assert!(Element::Obstacle(kiosk).rotate(&mut after, 15.0));
    // A box whose file leaves its angle to the default gets the field written after its size.
    let building = index_of(&after.obstacles, |o| o.name == "building_north_west");
    assert!(Element::Obstacle(building).rotate(&mut after, 90.0));

    let (text, numbers) = patch_level_text(PLAZA, &before, &after).expect("patches");
    assert_eq!(numbers, 4);
    assert_eq!(
        parse(&text),
        after,
        "the saved text loads as the edited level"
    );
    let mut expected = replace_once(
        PLAZA,
        r#""chat_nw", position: (-32.0, -34.0)"#,
        r#""chat_nw", position: (-30.0, -34.0)"#,
    );
    expected = replace_once(
        &expected,
        "[(0.0, -98.0), (0.0, -40.0),",
        "[(0.0, -98.0), (2.5, -40.0),",
    );
    expected = replace_once(&expected, "angle_deg: -49.9)", "angle_deg: -34.9)");
    expected = replace_once(
        &expected,
        "(-45.0, -80.0), half_extents: (38.0, 14.0))",
        "(-45.0, -80.0), half_extents: (38.0, 14.0), angle_deg: 90.0)",
    );
    assert_eq!(text, expected, "only those numbers differ");
}

/// A copy of the plaza in a scratch folder, with a session and a watcher on it.
fn session() -> (tempfile::TempDir, PathBuf, Editor, LevelWatcher) {
    let dir = tempfile::tempdir().expect("scratch folder");
    let path = dir.path().join("plaza.ron");
    std::fs::write(&path, PLAZA).expect("copy");
    let editor = Editor::new(&path, &root(), PLAZA.to_string(), parse(PLAZA));
    let watcher = LevelWatcher::new(&path, &root());
    (dir, path, editor, watcher)
}

fn applied(outcome: EditOutcome) -> Level {
    match outcome {
        EditOutcome::Apply(level) => *level,
        other => panic!("not applied: {other:?}"),
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("readable")
}

#[test]
fn a_drag_saves_in_place_with_a_backup_and_the_watcher_takes_it_as_its_own() {
    let (_dir, path, mut editor, mut watcher) = session();
    let start = parse(PLAZA);
    let chat = index_of(&start.points_of_interest, |p| p.name == "chat_ne");
    // Grabbed 1 m east of its handle at (30, -40), let go 4 m further east and 2 m south.
    assert!(editor.begin_drag(Element::Poi(chat), Vec2::new(31.0, -40.0), &start));
    editor.drag_to(Vec2::new(35.0, -38.0));
    let moved = applied(editor.end_drag(&start));
    assert_eq!(
        moved.points_of_interest[chat].position,
        Vec2::new(34.0, -38.0)
    );
    assert!(editor.unsaved(&moved));
    let saved = editor.save(&moved).expect("saves");
    assert_eq!(saved.numbers, 2);
    let on_disk = read(&path);
    assert_eq!(
        on_disk,
        replace_once(
            PLAZA,
            r#""chat_ne", position: (30.0, -40.0)"#,
            r#""chat_ne", position: (34.0, -38.0)"#
        )
    );
    assert_eq!(
        read(&backup_path(&path)),
        PLAZA,
        "the backup is the file before"
    );
    assert_eq!(backup_path(&path), path.with_file_name("plaza.ron.bak"));
    assert!(!editor.unsaved(&moved));
    watcher.own_write(saved.text);
    assert!(
        watcher.poll().is_none(),
        "our own save is no outside change"
    );
    // An outside edit after it is.
    std::fs::write(&path, on_disk.replace("count: 2000", "count: 1500")).expect("edit");
    assert!(matches!(watcher.poll(), Some(Ok(l)) if l.crowd.count == 1500));
}

#[test]
fn the_save_is_refused_when_the_file_changed_on_disk() {
    let (_dir, path, mut editor, _watcher) = session();
    let start = parse(PLAZA);
    let bench = index_of(&start.obstacles, |o| o.name == "bench_1");
    assert!(editor.begin_drag(Element::Obstacle(bench), Vec2::new(14.0, 0.0), &start));
    editor.drag_to(Vec2::new(15.0, 0.0));
    let moved = applied(editor.end_drag(&start));
    let theirs = PLAZA.replace("count: 2000", "count: 1800");
    std::fs::write(&path, &theirs).expect("outside edit");
    let e = editor.save(&moved).expect_err("refused");
    assert!(
        e.contains("changed on disk since it was loaded: not saved"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    assert_eq!(read(&path), theirs, "their file is untouched");
    assert!(!backup_path(&path).exists(), "nothing written");
    assert!(editor.unsaved(&moved), "the edit stays in the game");
}

#[test]
fn undo_and_redo_walk_the_edits_and_a_refused_edit_changes_nothing() {
    let (_dir, _path, mut editor, _watcher) = session();
    let start = parse(PLAZA);
    let bench = index_of(&start.obstacles, |o| o.name == "bench_7");
    assert_eq!(
        editor.rotate_selected(15.0, &start),
        EditOutcome::Refused("select a box obstacle first (drag it)".to_string())
    );
    assert!(editor.begin_drag(Element::Obstacle(bench), Vec2::new(0.0, -14.0), &start));
    editor.drag_to(Vec2::new(0.0, -15.0));
    let one = applied(editor.end_drag(&start));
    let two = applied(editor.rotate_selected(15.0, &one));
    match two.obstacles[bench].shape {
        Shape::Box {
            center, angle_deg, ..
        } => {
            assert_eq!(center, Vec2::new(0.0, -15.0));
            assert_eq!(angle_deg, 15.0);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(editor.undo(&two), Some(one.clone()));
    assert_eq!(editor.undo(&one), Some(start.clone()));
    assert_eq!(editor.undo(&start), None, "nothing left to undo");
    assert_eq!(editor.redo(&start), Some(one.clone()));
    assert_eq!(editor.redo(&one), Some(two.clone()));
    assert_eq!(editor.redo(&two), None);
    // Dragged onto the fountain: refused with the reason, the level as it was.
    let fountain = index_of(&two.points_of_interest, |p| p.name == "bench_seat_7");
    assert!(editor.begin_drag(Element::Poi(fountain), Vec2::new(0.0, -13.1), &two));
    editor.drag_to(Vec2::new(0.0, 0.0));
    match editor.end_drag(&two) {
        EditOutcome::Refused(why) => assert!(
            why.starts_with("bench_seat_7 stays where it was: points_of_interest["),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(editor.can_undo() && !editor.can_redo());
}

#[test]
fn a_bench_carries_its_seat_as_one_edit_undone_and_saved_together() {
    let (_dir, path, mut editor, _watcher) = session();
    let start = parse(PLAZA);
    let bench = index_of(&start.obstacles, |o| o.name == "bench_1");
    let seat = index_of(&start.points_of_interest, |p| p.name == "bench_seat_1");
    // Grabbed at its handle (14, 0), let go 1 m east and 2 m south.
    assert!(editor.begin_drag(Element::Obstacle(bench), Vec2::new(14.0, 0.0), &start));
    editor.drag_to(Vec2::new(15.0, 2.0));
    let preview = editor.preview().expect("dragging");
    assert_eq!(
        preview.points_of_interest[seat].position,
        Vec2::new(14.1, 2.0),
        "the seat follows while the bench is dragged"
    );
    let moved = applied(editor.end_drag(&start));
    assert_eq!(moved.obstacles[bench].shape.center(), Vec2::new(15.0, 2.0));
    assert_eq!(
        moved.points_of_interest[seat].position,
        Vec2::new(14.1, 2.0)
    );
    // R six times: a quarter turn; the seat stays in front of the bench.
    let mut turned = moved.clone();
    for _ in 0..6 {
        turned = applied(editor.rotate_selected(ROTATE_STEP_DEG, &turned));
    }
    assert_eq!(
        turned.points_of_interest[seat].position,
        Vec2::new(15.0, 2.9)
    );
    // One undo per edit takes back both elements at once.
    let mut back = turned.clone();
    for _ in 0..6 {
        back = editor.undo(&back).expect("undoes a turn");
    }
    assert_eq!(back, moved);
    let back = editor.undo(&back).expect("undoes the drag");
    assert_eq!(back, start, "bench and seat back in one step");
    let mut again = back;
    for _ in 0..7 {
        again = editor.redo(&again).expect("redoes");
    }
    assert_eq!(again, turned);
    // Saved together: both elements' numbers, and nothing else.
    let saved = editor.save(&again).expect("saves");
    assert_eq!(
        saved.numbers, 5,
        "centre x, z and angle, the seat's x and z"
    );
    let mut expected = replace_once(
        PLAZA,
        r#""bench_1", kind: Bench, shape: Box(center: (14.0, 0.0), half_extents: (1.6, 0.35), angle_deg: -90.0)"#,
        r#""bench_1", kind: Bench, shape: Box(center: (15.0, 2.0), half_extents: (1.6, 0.35), angle_deg: 0.0)"#,
    );
    expected = replace_once(
        &expected,
        r#""bench_seat_1", position: (13.1, 0.0)"#,
        r#""bench_seat_1", position: (15.0, 2.9)"#,
    );
    assert_eq!(read(&path), expected);
}

#[test]
fn an_exit_drags_along_the_bounds_saves_only_its_numbers_and_stays_put_off_them() {
    let (_dir, path, editor, _watcher) = session();
    let mut editor = editor.with_route_check(throng::level_routes::unreachable_exits);
    let start = parse(PLAZA);
    let east = Element::Exit(index_of(&start.exits, |e| e.name == "east_exit"));
    // Grabbed half a metre south of its centre (100, 0), let go 12 m further south along the
    // east edge: the line keeps its 14 m and lands on the grid.
    assert!(editor.begin_drag(east, Vec2::new(100.0, 0.5), &start));
    editor.drag_to(Vec2::new(100.02, 12.49));
    let moved = applied(editor.end_drag(&start));
    assert_eq!(east.anchor(&moved), Some(Vec2::new(100.0, 12.0)));
    assert!(editor.unsaved(&moved));
    let saved = editor.save(&moved).expect("saves");
    assert_eq!(saved.numbers, 2, "the two ends' z");
    assert_eq!(
        read(&path),
        replace_once(
            PLAZA,
            r#"(name: "east_exit", area: Line((100.0, -7.0), (100.0, 7.0))),"#,
            r#"(name: "east_exit", area: Line((100.0, 5.0), (100.0, 19.0))),"#
        )
    );
    assert_eq!(parse(&read(&path)), moved);

    // Into the square: on no edge, against nothing. The exit stays and the message says why.
    let north = Element::Exit(index_of(&moved.exits, |e| e.name == "north_exit"));
    assert!(editor.begin_drag(north, Vec2::new(0.0, -100.0), &moved));
    editor.drag_to(Vec2::new(0.0, -60.0));
    match editor.end_drag(&moved) {
        EditOutcome::Refused(why) => assert!(
            why.starts_with(
                "north_exit stays where it was: exits[0].area: `north_exit` lies neither on the \
                 bounds nor across an opening: its end (-7, -60) is 40 m from the bounds' edge"
            ),
            "{why}"
        ),
        other => panic!("not refused: {other:?}"),
    }
    assert!(
        !editor.can_redo() && editor.can_undo(),
        "only the first move is an edit"
    );
}

#[test]
fn a_box_exit_dragged_inside_a_building_is_refused_by_the_route_check() {
    let text = replace_once(
        PLAZA,
        r#"(name: "east_exit", area: Line((100.0, -7.0), (100.0, 7.0))),"#,
        r#"(name: "east_exit", area: Box(center: (97.0, 0.0), half_extents: (2.0, 3.0))),"#,
    );
    let dir = tempfile::tempdir().expect("scratch folder");
    let path = dir.path().join("plaza.ron");
    std::fs::write(&path, &text).expect("copy");
    let start = parse(&text);
    let mut editor = Editor::new(&path, &root(), text.clone(), start.clone())
        .with_route_check(throng::level_routes::unreachable_exits);
    let east = Element::Exit(index_of(&start.exits, |e| e.name == "east_exit"));
    // Into the middle of building_east_north (66..94 by -62..-14): every cell of the box is
    // inside it, so no spawn zone reaches it.
    assert!(editor.begin_drag(east, Vec2::new(97.0, 0.0), &start));
    editor.drag_to(Vec2::new(80.0, -38.0));
    match editor.end_drag(&start) {
        EditOutcome::Refused(why) => assert_eq!(
            why,
            "east_exit stays where it was: exits[3].area: `east_exit` cannot be reached from \
             spawn zone `north_street`: obstacles close every way there; allowed: an exit \
             people can walk to from every spawn zone (open a way, move it, or mark it \
             `closed: true`)"
        ),
        other => panic!("not refused: {other:?}"),
    }
    // Without the route check (a session made without one) the move would apply.
    let mut plain = Editor::new(&path, &root(), text, start.clone());
    assert!(plain.begin_drag(east, Vec2::new(97.0, 0.0), &start));
    plain.drag_to(Vec2::new(80.0, -38.0));
    let moved = applied(plain.end_drag(&start));
    assert_eq!(east.anchor(&moved), Some(Vec2::new(80.0, -38.0)));
    // The box keeps its size: only its centre moved.
    let (saved, numbers) = patch_level_text(&read(&path), &start, &moved).expect("patches");
    assert_eq!(numbers, 2);
    assert!(saved.contains(
        r#"(name: "east_exit", area: Box(center: (80.0, -38.0), half_extents: (2.0, 3.0))),"#
    ));
}

//! Level files as the file system hands them over: devices, FIFOs, oversized or non-UTF-8 files,
//! absurd nesting, and hot reload of edits that keep the size and the modification time. Each
//! ends in a one-line error (or the reload) at once, never a hang or a runaway read.

mod support;

use std::path::{Path, PathBuf};

use throng::level::{load_level, parse_level, LevelWatcher};

const MINIMAL: &str = include_str!("fixtures/levels/minimal.ron");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn a_device_as_level_is_refused_without_reading_it() {
    let err = support::promptly(|| load_level(Path::new("/dev/zero"), root()).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "/dev/zero: cannot read: it is a character device, not a regular file; only regular files are read"
    );
}

#[test]
fn a_fifo_as_level_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("level.ron");
    mkfifo(&fifo);
    let label = fifo.display().to_string();
    let err = support::promptly(move || load_level(&fifo, root()).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!("{label}: cannot read: it is a FIFO (named pipe), not a regular file; only regular files are read")
    );
}

#[test]
fn an_oversized_level_is_refused_before_parsing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("huge.ron");
    let mut text = MINIMAL.to_string();
    text.push_str(&" ".repeat(2 << 20));
    std::fs::write(&path, &text).expect("write");
    let err = load_level(&path, root()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: cannot read: it holds {} bytes or more; the most allowed is 1048576 bytes",
            path.display(),
            text.len()
        )
    );
}

#[test]
fn a_bad_utf8_byte_is_reported_at_its_line_and_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("latin1.ron");
    // Line 2 reads `    name: "Caf\xE9",`: the bad byte is the 15th character of the line.
    let mut bytes = MINIMAL.as_bytes().to_vec();
    let at = MINIMAL.find("Minimal").expect("name") + 3;
    bytes.splice(at..at + 4, [0xE9]);
    std::fs::write(&path, &bytes).expect("write");
    let err = load_level(&path, root()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}:2:15: byte 0xE9 is not UTF-8 text; level files are UTF-8",
            path.display()
        )
    );
}

#[test]
fn absurd_nesting_is_refused_with_a_clear_message() {
    // 100 000 open brackets: the field locator used to copy the path of every enclosing list
    // per token (quadratic) and ron's recursion limit came only after it.
    let src = format!("Level(name: {}", "[".repeat(100_000));
    let err = support::promptly(move || parse_level(&src, "deep.ron", root()).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "deep.ron:1:44: brackets nest more than 32 deep here; a level needs 8 at most"
    );
}

fn write_level(path: &Path, count: u32) {
    let text = MINIMAL.replace("count: 100,", &format!("count: {count},"));
    std::fs::write(path, text).expect("write");
}

fn mtime(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime")
}

#[test]
fn hot_reload_notices_an_edit_that_keeps_size_and_mtime() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("level.ron");
    write_level(&path, 100);
    let stamp = mtime(&path);
    let mut watcher = LevelWatcher::new(&path, root());
    assert!(watcher.poll().is_none(), "nothing changed yet");
    // What `cp -p` or `rsync -t` leave behind: new text, same length, the old mtime.
    write_level(&path, 200);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(stamp))
        .expect("set mtime");
    assert_eq!(mtime(&path), stamp);
    let level = watcher
        .poll()
        .expect("the edit is noticed")
        .expect("the edit is valid");
    assert_eq!(level.crowd.count, 200);
    assert!(watcher.poll().is_none(), "noticed once");
}

#[test]
fn hot_reload_of_a_fifo_swapped_in_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path: PathBuf = dir.path().join("level.ron");
    write_level(&path, 100);
    let mut watcher = LevelWatcher::new(&path, root());
    std::fs::remove_file(&path).expect("remove");
    mkfifo(&path);
    let label = path.display().to_string();
    let (watcher_back, result) = support::promptly(move || {
        let r = watcher.poll().map(|r| r.map(|_| ()));
        (watcher, r)
    });
    let mut watcher = watcher_back;
    let err = result
        .expect("the swap is noticed")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!("{label}: cannot read: it is a FIFO (named pipe), not a regular file; only regular files are read")
    );
    // The same unreadable file is reported once, then the watcher waits for a change.
    let (_, again) = support::promptly(move || {
        let r = watcher.poll().map(|r| r.map(|_| ()));
        (watcher, r)
    });
    assert!(again.is_none());
}

#[test]
fn lists_beyond_their_limit_are_refused_before_the_costly_checks() {
    let trees: String = (0..1023)
        .map(|i| format!("(name: \"t{i}\", kind: Tree, shape: Circle(center: (-19.0, -19.0), radius: 0.1)),\n"))
        .collect();
    let src = MINIMAL.replacen("obstacles: [\n", &format!("obstacles: [\n{trees}"), 1);
    let err = parse_level(&src, "many.ron", root())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "many.ron:4:16: obstacles: 1025 obstacles; allowed: at most 1024"
    );
}

#[test]
fn a_model_path_that_is_not_a_regular_file_says_so() {
    let src = MINIMAL.replace("assets/characters/Casual_Male.gltf", "assets/characters");
    let err = parse_level(&src, "dir.ron", root())
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "crowd.models[0].path: `assets/characters` is not a model file; allowed: .gltf, .glb or .vrm"
        ),
        "{err}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("pipe.gltf");
    mkfifo(&fifo);
    let src = MINIMAL.replace(
        "assets/characters/Casual_Male.gltf",
        &fifo.display().to_string(),
    );
    let err = support::promptly(move || parse_level(&src, "fifo.ron", root()).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!(
            "crowd.models[0].path: `{}` is not a regular file",
            fifo.display()
        )),
        "{err}"
    );
}

/// A level in its own folder whose hero motions are a link to /dev/zero, a folder and a FIFO,
/// all next to the level. The warnings must name those files, not the bare names against the
/// working directory.
#[test]
fn hero_motion_files_that_are_no_regular_files_are_named_where_they_are() {
    let dir = tempfile::tempdir().expect("temp dir");
    let zero = dir.path().join("zero.glb");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
    let folder = dir.path().join("folder.gltf");
    std::fs::create_dir(&folder).expect("mkdir");
    let fifo = dir.path().join("pipe.vrma");
    mkfifo(&fifo);
    let text = MINIMAL.replace(
        "spawn: (5.0, 12.0))",
        "spawn: (5.0, 12.0), motion: (idle: Clip(file: \"zero.glb\", clip: \"Idle\"), \
         walk: Clip(file: \"folder.gltf\", clip: \"Walk\"), run: Vrma(\"pipe.vrma\")))",
    );
    assert_ne!(text, MINIMAL);
    let path = dir.path().join("level.ron");
    std::fs::write(&path, &text).expect("write");
    let real = |p: &Path| {
        dir.path()
            .canonicalize()
            .expect("canonical")
            .join(p.file_name().expect("name"))
            .display()
            .to_string()
    };
    let level = load_level(&path, root()).expect("motion files are optional: the level loads");
    let file_of = |s: &throng::level::MotionSource| match s {
        throng::level::MotionSource::Clip { file, .. }
        | throng::level::MotionSource::Vrma(file) => file.clone(),
        throng::level::MotionSource::Authored => String::new(),
    };
    assert_eq!(file_of(&level.hero.motion.idle), real(&zero));
    assert_eq!(file_of(&level.hero.motion.walk), real(&folder));
    assert_eq!(file_of(&level.hero.motion.run), real(&fifo));
    // `throng check` warns about each, naming the file found (no error: the game falls back).
    let problems: Vec<String> = support::promptly({
        let path = path.clone();
        move || throng::level::check::check_file(&path)
    })
    .iter()
    .map(|p| p.to_string())
    .collect();
    let label = path.display().to_string();
    assert_eq!(
        problems,
        [
            ("idle", "zero.glb", &zero),
            ("walk", "folder.gltf", &folder),
            ("run", "pipe.vrma", &fifo)
        ]
        .map(|(role, name, p)| format!(
            "{label}:{}: hero.motion.{role}: warning: `{}` is not a regular file; the \
                 authored {role} is used instead; allowed: a glTF, GLB, VRM or VRMA file",
            position_of(&text, name),
            real(p)
        ))
    );
}

/// `line:col` of the first occurrence of `needle` in `text`, where `throng check` places a
/// warning about the motion that names it (at the value of its field).
fn position_of(text: &str, needle: &str) -> String {
    let at = text.find(needle).expect("named");
    let line = text[..at].matches('\n').count() + 1;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    // The field's value starts at `Clip(` or `Vrma(` before the quoted name.
    let value = text[line_start..at]
        .rfind("Clip(")
        .max(text[line_start..at].rfind("Vrma("))
        .expect("a source");
    format!(
        "{line}:{}",
        text[line_start..line_start + value].chars().count() + 1
    )
}

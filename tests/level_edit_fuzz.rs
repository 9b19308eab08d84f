//! A fuzz pass over the in-game save: seeded random drags, turns, placed things put down,
//! moved, turned and taken away (as the build toolbar does), undo and redo, saves, and
//! changes made outside the game in between, on level files stored in each form a designer may
//! have (plain, with a byte-order mark, CRLF or classic-Mac line ends, behind a symbolic link,
//! private). After every action the file on disk loads, and as exactly the level it should
//! hold: the level on screen after a save that went through, otherwise the last one written
//! (by the game or from outside). The file's form (link, mode, mark, line ends) never changes.
//!
//! `THRONG_FUZZ_CASES` (default 8) and `THRONG_FUZZ_SEED` run it longer or elsewhere; each case
//! must end within 5 s of CPU (`support::promptly`).

#![cfg(unix)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use glam::Vec2;
use throng::level::paths::Places;
use throng::level::{load_level, read_level_text, validate, Level, Placed, ThingKind};
use throng::level_edit::{EditOutcome, Editor, Element};

const PLAZA: &str = include_str!("../levels/plaza.ron");
const ACTIONS_PER_CASE: usize = 60;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Form {
    Plain,
    Bom,
    Crlf,
    CrOnly,
    Link,
    Private,
}

const FORMS: [Form; 6] = [
    Form::Plain,
    Form::Bom,
    Form::Crlf,
    Form::CrOnly,
    Form::Link,
    Form::Private,
];

/// The file's text (LF, no mark) as that form stores it.
fn stored(form: Form, text: &str) -> String {
    match form {
        Form::Bom => format!("\u{FEFF}{text}"),
        Form::Crlf => text.replace('\n', "\r\n"),
        Form::CrOnly => text.replace('\n', "\r"),
        _ => text.to_string(),
    }
}

/// The level the file at `path` holds now, parsed as the game reads it; the file must also
/// load and validate as a level.
fn on_disk(path: &Path, what: &str) -> Level {
    load_level(path, &root()).unwrap_or_else(|e| panic!("{what}: the file does not load: {e}"));
    let text = read_level_text(path).unwrap_or_else(|e| panic!("{what}: {e}"));
    ron::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Every element a drag can grab in `level`.
fn movable(level: &Level) -> Vec<Element> {
    let mut out: Vec<Element> = (0..level.obstacles.len()).map(Element::Obstacle).collect();
    out.extend((0..level.points_of_interest.len()).map(Element::Poi));
    out.extend((0..level.spawn_zones.len()).map(Element::Spawn));
    for (i, p) in level.paths.iter().enumerate() {
        out.extend((0..p.points.len()).map(|k| Element::PathPoint(i, k)));
    }
    out
}

/// An edit made in a text editor while the game runs: the crowd's seed changed, or a comment
/// added (the level the same, the text not), in the file's own form.
fn outside_edit(path: &Path, form: Form, rng: &mut fastrand::Rng, n: usize) -> Level {
    let text = read_level_text(path).expect("readable");
    let changed = if rng.bool() {
        let at = text.find("seed: ").expect("the plaza names a seed") + "seed: ".len();
        let end = at
            + text[at..]
                .find(|c: char| !c.is_ascii_digit())
                .expect("digits end");
        format!("{}{}{}", &text[..at], 100 + n, &text[end..])
    } else {
        format!("{text}// outside edit {n}\n")
    };
    // Written in place, as editors do (the link followed, the mode kept).
    std::fs::write(path, stored(form, &changed)).expect("outside write");
    ron::from_str(&changed).expect("the outside edit parses")
}

struct Case {
    path: PathBuf,
    form: Form,
    editor: Editor,
    /// The level on screen.
    current: Level,
    /// What the file on disk must hold.
    expected: Level,
    /// An outside change waiting while edits are unsaved (the game's `held_reload`).
    held: Option<(String, Level)>,
    saves: usize,
    refused: usize,
    /// Placed-thing edits the level took.
    placements: usize,
}

impl Case {
    /// The build toolbar's edit: a thing put down, moved and turned, or taken away; kept (and
    /// recorded for undo) only when the level stays valid, as the toolbar checks first.
    fn place(&mut self, rng: &mut fastrand::Rng, n: usize) {
        let mut next = self.current.clone();
        let spot =
            |rng: &mut fastrand::Rng| Vec2::new(rng.f32() * 120.0 - 60.0, rng.f32() * 120.0 - 60.0);
        let headings = [0.0, 90.0, -45.0, 180.0, 12.5];
        let k = rng.usize(0..next.placed.len().max(1));
        match rng.u32(0..3) {
            0 => next.placed.push(Placed {
                name: format!("thing \"{n}\" ]"),
                kind: ThingKind::ALL[rng.usize(0..ThingKind::ALL.len())],
                at: spot(rng),
                heading_deg: headings[rng.usize(0..headings.len())],
            }),
            1 if k < next.placed.len() => {
                next.placed.remove(k);
            }
            _ if k < next.placed.len() => {
                let p = &mut next.placed[k];
                p.at += Vec2::new(rng.f32() * 4.0 - 2.0, rng.f32() * 4.0 - 2.0);
                p.heading_deg = headings[rng.usize(0..headings.len())];
            }
            _ => return,
        }
        if validate::validate(&next, &Places::for_file(&self.path, &root())).is_ok() {
            self.editor.record(self.current.clone());
            self.current = next;
            self.placements += 1;
        }
    }

    /// The game loads a held outside change once no unsaved edits are left.
    fn settle(&mut self) {
        if self.held.is_some() && !self.editor.unsaved(&self.current) {
            let (text, level) = self.held.take().expect("held");
            self.editor.file_reloaded(text, level.clone());
            self.current = level;
        }
    }

    fn act(&mut self, rng: &mut fastrand::Rng, n: usize) {
        match rng.u32(0..11) {
            0..=3 => {
                let all = movable(&self.current);
                let element = all[rng.usize(0..all.len())];
                let at = element.anchor(&self.current).expect("an anchor");
                if self.editor.begin_drag(element, at, &self.current) {
                    let to = at + Vec2::new(rng.f32() * 20.0 - 10.0, rng.f32() * 20.0 - 10.0);
                    self.editor.drag_to(to);
                    if let EditOutcome::Apply(l) = self.editor.end_drag(&self.current) {
                        self.current = *l;
                    }
                }
            }
            4 => {
                let degrees = [15.0, -15.0, 90.0][rng.usize(0..3)];
                if let EditOutcome::Apply(l) = self.editor.rotate_selected(degrees, &self.current) {
                    self.current = *l;
                }
            }
            5 => {
                if let Some(l) = self.editor.undo(&self.current) {
                    self.current = l;
                }
            }
            6 => {
                if let Some(l) = self.editor.redo(&self.current) {
                    self.current = l;
                }
            }
            9 => self.place(rng, n),
            7 | 8 => match self.editor.save(&self.current) {
                Ok(_) => {
                    self.expected = self.current.clone();
                    self.saves += 1;
                }
                Err(e) => {
                    assert!(self.held.is_some(), "only an outside change refuses: {e}");
                    assert!(!e.contains('\n'), "one line: {e}");
                    self.refused += 1;
                }
            },
            _ => {
                let level = outside_edit(&self.path, self.form, rng, n);
                let text = read_level_text(&self.path).expect("readable");
                self.expected = level.clone();
                // The watcher sees it: loaded at once without unsaved edits, else held.
                self.held = Some((text, level));
            }
        }
        self.settle();
    }
}

fn run_case(seed: u64, form: Form) -> (usize, usize, usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let real = dir.path().join("store").join("plaza.ron");
    std::fs::create_dir_all(real.parent().expect("folder")).expect("mkdir");
    std::fs::write(&real, stored(form, PLAZA)).expect("write");
    let path = match form {
        Form::Link => {
            let link = dir.path().join("plaza.ron");
            std::os::unix::fs::symlink(&real, &link).expect("symlink");
            link
        }
        _ => real.clone(),
    };
    let mode = if form == Form::Private { 0o600 } else { 0o644 };
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(mode)).expect("chmod");
    let text = read_level_text(&path).expect("readable");
    let level: Level = ron::from_str(&text).expect("parses");
    let mut case = Case {
        editor: Editor::new(&path, &root(), text, level.clone()),
        path: path.clone(),
        form,
        current: level.clone(),
        expected: level,
        held: None,
        saves: 0,
        refused: 0,
        placements: 0,
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    for n in 0..ACTIONS_PER_CASE {
        case.act(&mut rng, n);
        let what = format!("seed {seed}, {form:?}, action {n}");
        assert_eq!(on_disk(&path, &what), case.expected, "{what}");
    }
    // The form of the file is the designer's and stays.
    let bytes = std::fs::read(&real).expect("read");
    let raw = String::from_utf8(bytes).expect("UTF-8");
    assert_eq!(raw.starts_with('\u{FEFF}'), form == Form::Bom, "{form:?}");
    assert_eq!(raw.contains("\r\n"), form == Form::Crlf, "{form:?}");
    assert_eq!(raw.contains('\n'), form != Form::CrOnly, "{form:?}");
    let meta = std::fs::metadata(&real).expect("meta");
    assert_eq!(meta.permissions().mode() & 0o777, mode, "{form:?}");
    if form == Form::Link {
        assert!(std::fs::symlink_metadata(&path)
            .expect("link")
            .file_type()
            .is_symlink());
    }
    (case.saves, case.refused, case.placements)
}

#[test]
fn the_file_on_disk_always_loads_as_the_level_on_screen_or_the_last_one_written() {
    let cases = env_number("THRONG_FUZZ_CASES", 8);
    let seed = env_number("THRONG_FUZZ_SEED", 36);
    let (mut saves, mut refused, mut placements) = (0, 0, 0);
    for k in 0..cases {
        let form = FORMS[k as usize % FORMS.len()];
        // Each case within 5 s of its thread's CPU time (about 0.25 s measured), however busy
        // the machine.
        let (s, r, p) = support::promptly(move || run_case(seed + k, form));
        saves += s;
        refused += r;
        placements += p;
    }
    println!(
        "{cases} cases: {saves} saves went through, {refused} refused, {placements} placed-thing \
         edits"
    );
    // The pass exercised both outcomes, or it proved nothing.
    assert!(saves > cases as usize, "{saves} saves in {cases} cases");
    assert!(refused > 0, "no save was refused");
    assert!(
        placements > cases as usize,
        "{placements} placed-thing edits"
    );
}

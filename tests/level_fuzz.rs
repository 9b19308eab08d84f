//! Budgeted fuzzing of level files: hand-made worst cases (truncations, deep nesting, huge
//! numbers, NaN, huge counts, bad UTF-8, control characters) and fixed-seed mutations of the
//! shipped levels go through the real loader (file read, UTF-8, field locator, ron, validation).
//! Every case must end in Ok or a one-line error, within 2 s and 256 MiB of peak heap.

mod support;

#[path = "support/budget.rs"]
mod budget;

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use throng::level::load_level;

const MINIMAL: &str = include_str!("fixtures/levels/minimal.ron");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Loads `bytes` as a level file; `Err` says what broke a rule (panic, overrun, odd message).
fn exercise(dir: &Path, what: &str, bytes: &[u8]) -> Result<budget::Usage, String> {
    let path = dir.join("case.ron");
    std::fs::write(&path, bytes).map_err(|e| format!("{what}: write: {e}"))?;
    let (result, usage) =
        budget::measure(|| catch_unwind(AssertUnwindSafe(|| load_level(&path, root()))));
    usage.check(what, budget::DEFAULT)?;
    match result {
        Err(_) => Err(format!("{what}: the loader panicked")),
        Ok(Ok(_)) => Ok(usage),
        Ok(Err(e)) => {
            let text = e.to_string();
            if text.contains('\n') || text.chars().count() > 1000 {
                Err(format!(
                    "{what}: the error is not one short line ({} characters)",
                    text.chars().count()
                ))
            } else {
                Ok(usage)
            }
        }
    }
}

/// The minimal level with `extra` spliced into a list: `(list, item)` repeated `n` times.
fn with_many(list: &str, n: usize, item: impl Fn(usize) -> String) -> String {
    let mut items = String::new();
    for i in 0..n {
        items.push_str(&item(i));
        items.push_str(",\n");
    }
    let at = MINIMAL.find(list).expect("list in fixture") + list.len();
    format!("{}{items}{}", &MINIMAL[..at], &MINIMAL[at..])
}

/// Hand-made worst cases: each targets one way a level file can be hostile.
fn worst_cases() -> Vec<(String, Vec<u8>)> {
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, text: String| cases.push((name.to_string(), text.into_bytes()));
    // Nesting: 55 KB took 2.1 GB in the field locator; 100k aborted.
    add(
        "nested [ 55 KB",
        format!("Level(name: {}", "[".repeat(55_000)),
    );
    add(
        "nested ( 100k",
        format!("Level(name: {}", "(".repeat(100_000)),
    );
    add(
        "nested Some( 30k",
        format!("Level(name: {}", "Some(".repeat(30_000)),
    );
    add(
        "nested then closed",
        format!("Level(name: {}{})", "[".repeat(20), "]".repeat(20)),
    );
    // Size: the cap, and just under it with one huge string.
    add(
        "over the size cap",
        MINIMAL.to_string() + &" ".repeat(2 << 20),
    );
    add(
        "1 MB name",
        MINIMAL.replace("\"Minimal\"", &format!("\"{}\"", "n".repeat(1_000_000))),
    );
    add(
        "1 MB obstacle name, twice",
        MINIMAL
            .replace("\"fountain\"", &format!("\"{}\"", "f".repeat(500_000)))
            .replace("\"bench\"", &format!("\"{}\"", "f".repeat(500_000))),
    );
    add("1 MB of commas", format!("Level({}", ",".repeat(1_000_000)));
    add("1 MB of colons", format!("Level({}", "a:".repeat(500_000)));
    add(
        "1 MB field name",
        MINIMAL.replace("name:", &format!("{}:", "n".repeat(1_000_000))),
    );
    add(
        "1 MB comment",
        format!("/*{}*/{MINIMAL}", "(".repeat(1_000_000)),
    );
    add(
        "unterminated string",
        MINIMAL.replacen("\"Minimal\"", "\"Minimal", 1),
    );
    // Numbers.
    for (name, value) in [
        ("huge count", "count: 99999999999999999999999999,"),
        ("max count", "count: 1000000,"),
        ("negative count", "count: -1,"),
        ("float count", "count: 1e300,"),
    ] {
        add(name, MINIMAL.replace("count: 100,", value));
    }
    for v in [
        "NaN",
        "inf",
        "-inf",
        "1e39",
        "1e400",
        "-0.0",
        "3.4028235e38",
    ] {
        add(
            &format!("radius {v}"),
            MINIMAL.replace("radius: 3.0", &format!("radius: {v}")),
        );
        add(
            &format!("bounds {v}"),
            MINIMAL.replace("max: (20.0, 20.0)", &format!("max: ({v}, {v})")),
        );
    }
    // Huge counts of things that validation compares with each other.
    let tree = |i: usize| {
        format!(
            "(name: \"t{i}\", kind: Tree, shape: Circle(center: ({:.2}, {:.2}), radius: 0.04))",
            -19.9 + 0.1 * (i % 100) as f32,
            -19.9 + 0.1 * (i / 100) as f32
        )
    };
    add("10k obstacles", with_many("obstacles: [\n", 10_000, tree));
    add(
        "10k points of interest",
        with_many("points_of_interest: [\n", 10_000, |i| {
            format!("(name: \"p{i}\", position: (-15.0, -15.0), weight: 1.0, capacity: 1, activity: Linger)")
        }),
    );
    add(
        "10k spawn zones",
        with_many("spawn_zones: [\n", 10_000, |i| {
            format!("(name: \"s{i}\", center: (-15.0, -15.0), half_extents: (1.0, 1.0))")
        }),
    );
    let ring: String = (0..20_000)
        .map(|i| {
            let a = i as f32 * 0.001;
            format!("({:.3}, {:.3}), ", 12.0 * a.cos(), 12.0 * a.sin())
        })
        .collect();
    add(
        "20k path points",
        MINIMAL.replace(
            "points: [(6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0)]",
            &format!("points: [{ring}]"),
        ),
    );
    let half = with_many("obstacles: [\n", 5_000, tree);
    let at = half.find("spawn_zones: [\n").expect("zones") + "spawn_zones: [\n".len();
    let mut both = half[..at].to_string();
    for i in 0..5_000 {
        let _ = writeln!(
            both,
            "(name: \"s{i}\", center: (-15.0, -15.0), half_extents: (5.0, 5.0)),"
        );
    }
    both.push_str(&half[at..]);
    add("5k obstacles and 5k spawn zones", both);
    add(
        "10k models",
        with_many("models: [", 10_000, |i| {
            format!("(name: \"m{i}\", path: \"assets/characters/Casual_Male.gltf\")")
        }),
    );
    add(
        "10k unknown group models",
        MINIMAL.replace(
            "models: [\"casual\"]",
            &format!("models: [{}]", "\"nobody\", ".repeat(10_000)),
        ),
    );
    add("every list at its limit", at_the_limits());
    // Characters.
    add(
        "control characters in the name",
        MINIMAL.replace("Minimal", "Min\u{0}i\u{7}m\u{1b}[2Jal"),
    );
    add(
        "control characters everywhere",
        MINIMAL.replace(' ', "\u{1}"),
    );
    add("only a BOM", "\u{feff}".to_string());
    cases.push(("empty".into(), Vec::new()));
    let mut latin1 = MINIMAL.as_bytes().to_vec();
    latin1.insert(MINIMAL.len() / 2, 0xFF);
    cases.push(("bad UTF-8 in the middle".into(), latin1));
    cases.push(("all 0xFF".into(), vec![0xFF; 1 << 20]));
    cases.push(("all NUL".into(), vec![0; 1 << 20]));
    // Truncations at every 37th byte.
    for cut in (0..MINIMAL.len()).step_by(37) {
        cases.push((
            format!("truncated at {cut}"),
            MINIMAL.as_bytes()[..cut].to_vec(),
        ));
    }
    cases
}

/// Everything at its limit at once, placed so that no check stops early: the slowest valid level
/// validation can meet.
fn at_the_limits() -> String {
    let corner = |i: usize| {
        format!(
            "(name: \"t{i}\", kind: Tree, shape: Circle(center: ({:.2}, {:.2}), radius: 0.04))",
            -19.9 + 0.1 * (i % 32) as f32,
            -19.9 + 0.1 * (i / 32) as f32
        )
    };
    let mut full = with_many("obstacles: [\n", 1022, corner);
    let pois: String = (1..1024)
        .map(|i| format!("(name: \"p{i}\", position: (15.0, -15.0), weight: 1.0, capacity: 1, activity: Linger),\n"))
        .collect();
    let at = full.find("points_of_interest: [\n").expect("pois") + "points_of_interest: [\n".len();
    full.insert_str(at, &pois);
    let zones: String = (1..256)
        .map(|i| format!("(name: \"s{i}\", center: (15.0, 15.0), half_extents: (1.0, 1.0)),\n"))
        .collect();
    let at = full.find("spawn_zones: [\n").expect("zones") + "spawn_zones: [\n".len();
    full.insert_str(at, &zones);
    let ring: String = (0..4096)
        .map(|i| {
            let a = i as f32 / 4096.0 * std::f32::consts::TAU;
            format!("({:.4}, {:.4}), ", 12.0 * a.cos(), 12.0 * a.sin())
        })
        .collect();
    full.replace(
        "points: [(6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0)]",
        &format!("points: [{ring}]"),
    )
}

#[test]
fn a_level_with_every_list_at_its_limit_validates_within_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("full.ron");
    std::fs::write(&path, at_the_limits()).expect("write");
    let (result, usage) = budget::measure(|| load_level(&path, root()));
    let level = result.expect("valid");
    assert_eq!(level.obstacles.len(), 1024);
    assert_eq!(level.points_of_interest.len(), 1024);
    assert_eq!(level.spawn_zones.len(), 256);
    assert_eq!(level.paths[0].points.len(), 4096);
    println!(
        "every list at its limit: {:.3} s, {} KiB peak",
        usage.cpu.as_secs_f64(),
        usage.peak_bytes >> 10
    );
    usage
        .check("every list at its limit", budget::DEFAULT)
        .expect("within budget");
}

/// Snippets that make level text hostile when dropped anywhere.
const SNIPPETS: &[&str] = &[
    "[",
    "(",
    "{",
    "]",
    ")",
    "}",
    ",",
    ":",
    "\"",
    "'",
    "Some(",
    "NaN",
    "inf",
    "-",
    "1e39",
    "99999999999999999999",
    "0x",
    "/*",
    "//",
    "\n",
    "\u{0}",
    "r#\"",
    "\\",
    "\u{1b}",
];

fn mutate(rng: &mut fastrand::Rng, src: &[u8]) -> Vec<u8> {
    let mut b = src.to_vec();
    for _ in 0..rng.usize(1..4) {
        let at = rng.usize(0..=b.len());
        match rng.u8(0..6) {
            0 => b.truncate(at),
            1 => {
                if at < b.len() {
                    b[at] = rng.u8(..);
                }
            }
            2 => {
                let s = SNIPPETS[rng.usize(0..SNIPPETS.len())];
                let times = if rng.bool() { 1 } else { rng.usize(1..2000) };
                let insert = s.repeat(times);
                b.splice(at..at, insert.bytes());
            }
            3 => {
                // Repeat a stretch: lists of thousands of items, within the size cap.
                let len = rng.usize(0..200).min(b.len() - at.min(b.len()));
                let piece = b[at..at + len].to_vec();
                let times = rng.usize(1..(512 << 10) / piece.len().max(1) + 2);
                for _ in 0..times {
                    b.splice(at..at, piece.iter().copied());
                }
            }
            4 => {
                let end = (at + rng.usize(0..64)).min(b.len());
                b.drain(at..end);
            }
            _ => {
                // A digit changed: counts, indices, coordinates.
                if let Some(i) = (at..b.len()).find(|&i| b[i].is_ascii_digit()) {
                    b[i] = b'0' + rng.u8(0..10);
                }
            }
        }
    }
    b
}

#[test]
fn hostile_level_files_end_in_ok_or_an_error_within_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    let mut usages = Vec::new();
    let cases = worst_cases();
    assert!(cases.len() > 60);
    for (name, bytes) in &cases {
        match exercise(dir.path(), name, bytes) {
            Ok(u) => usages.push((name.clone(), u)),
            Err(e) => failures.push(e),
        }
    }
    let sources = [
        ("minimal", MINIMAL.to_string()),
        (
            "plaza",
            std::fs::read_to_string(root().join("levels/plaza.ron")).expect("plaza"),
        ),
    ];
    let mut rng = fastrand::Rng::with_seed(15);
    for k in 0..200 {
        let (name, src) = &sources[k % sources.len()];
        let bytes = mutate(&mut rng, src.as_bytes());
        let what = format!("{name} mutation {k}");
        match exercise(dir.path(), &what, &bytes) {
            Ok(u) => usages.push((what, u)),
            Err(e) => failures.push(e),
        }
    }
    // The costliest cases, for the record (`--nocapture` shows them).
    usages.sort_by_key(|(_, u)| std::cmp::Reverse(u.cpu));
    for (what, u) in usages.iter().take(3) {
        println!(
            "slowest: {what}: {:.3} s, {} KiB peak",
            u.cpu.as_secs_f64(),
            u.peak_bytes >> 10
        );
    }
    usages.sort_by_key(|(_, u)| std::cmp::Reverse(u.peak_bytes));
    for (what, u) in usages.iter().take(3) {
        println!(
            "largest: {what}: {:.3} s, {} KiB peak",
            u.cpu.as_secs_f64(),
            u.peak_bytes >> 10
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! docs/LEVELS.md matches the schema: every example it shows parses as the type its section
//! describes, and the "Your first level" walk-through is a whole level that loads and validates.

use std::path::Path;

use serde::de::DeserializeOwned;
use throng::level::parse_level;
use throng::level::schema::{
    AlarmBehaviour, AlarmEvent, CameraStart, CrowdModel, Exit, HeroSettings, Lighting,
    MeasurementArea, MeasurementLine, NamedPath, Obstacle, Placed, PointOfInterest, SpawnZone,
};

fn levels_doc() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join("docs/LEVELS.md")).expect("docs/LEVELS.md is readable")
}

/// The text of the section under `heading` (up to the next heading of any level).
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("docs/LEVELS.md has no `{heading}`"))
        + heading.len()
        + 2;
    let rest = &doc[start..];
    let end = rest.find("\n#").unwrap_or(rest.len());
    &rest[..end]
}

/// The one-line example of a section: a line that is a whole RON value in backticks.
fn inline_example(section: &str) -> &str {
    section
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("`(") && l.ends_with(")`"))
        .map(|l| &l[1..l.len() - 1])
        .expect("the section shows an example")
}

/// The first fenced code block of a section (the fence's info string ignored).
fn fenced_example(section: &str) -> &str {
    let open = section.find("```").expect("the section has a code block");
    let body = &section[open + 3..];
    let body = &body[body.find('\n').expect("fence line ends") + 1..];
    &body[..body.find("```").expect("the code block is closed")]
}

fn parses_as<T: DeserializeOwned>(heading: &str, text: &str) {
    if let Err(e) = ron::from_str::<T>(text) {
        panic!("docs/LEVELS.md `{heading}` example does not parse: {e}\n{text}");
    }
}

/// A section's heading and the parse its example must pass.
type ExampleCheck = fn(&str, &str);

#[test]
fn every_section_example_parses_as_its_type() {
    let doc = levels_doc();
    let inline: [(&str, ExampleCheck); 13] = [
        ("### Obstacles", parses_as::<Obstacle>),
        ("### Points of interest", parses_as::<PointOfInterest>),
        ("### Paths", parses_as::<NamedPath>),
        ("### Spawn zones", parses_as::<SpawnZone>),
        ("### Exits *optional*", parses_as::<Exit>),
        ("### Alarms *optional*", parses_as::<AlarmEvent>),
        (
            "### Measurement areas *optional*",
            parses_as::<MeasurementArea>,
        ),
        (
            "### Measurement lines *optional*",
            parses_as::<MeasurementLine>,
        ),
        ("#### Alarm behaviour", parses_as::<AlarmBehaviour>),
        ("### Hero", parses_as::<HeroSettings>),
        ("### Lighting *optional*", parses_as::<Lighting>),
        ("### Camera *optional*", parses_as::<CameraStart>),
        ("### Placed things *optional*", parses_as::<Placed>),
    ];
    for (heading, check) in inline {
        check(heading, inline_example(section(&doc, heading)));
    }
    let attachments = "#### Attachments";
    parses_as::<CrowdModel>(attachments, fenced_example(section(&doc, attachments)));
}

#[test]
fn the_first_level_walk_through_loads_and_validates() {
    let doc = levels_doc();
    let heading = "## Your first level";
    let text = fenced_example(section(&doc, heading));
    assert!(text.starts_with("Level(\n"), "a whole level: {text}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = parse_level(text, "docs/LEVELS.md (Your first level)", root)
        .unwrap_or_else(|e| panic!("the walk-through's level is refused: {e}"));
    assert_eq!(level.name, "First");
    assert_eq!(level.crowd.count, 100);
    assert_eq!(level.spawn_zones.len(), 1);
    assert_eq!(level.exits.len(), 1, "the walk-through ends with a way out");
    // What the text says was left out took its default.
    assert_eq!(level.points_of_interest[0].radius, 2.0);
    assert_eq!(level.spawn_zones[0].weight, 1.0);
}

#[test]
fn the_placed_things_example_loads_in_the_plaza() {
    // The section's list, as the plaza's last field: inside the bounds, clear of everything.
    let doc = levels_doc();
    let heading = "### Placed things *optional*";
    let list = fenced_example(section(&doc, heading));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plaza = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("the plaza");
    let end = plaza.rfind(')').expect("the level closes");
    let text = format!("{}{list}{}", &plaza[..end], &plaza[end..]);
    let level = parse_level(&text, "docs/LEVELS.md (Placed things)", root)
        .unwrap_or_else(|e| panic!("the placed things example is refused: {e}"));
    assert_eq!(level.placed.len(), 4);
}

#[test]
fn the_measurement_examples_are_the_plazas() {
    // The sections show what levels/plaza.ron holds, so the plaza is their worked example.
    let doc = levels_doc();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plaza = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("the plaza");
    for heading in [
        "### Measurement areas *optional*",
        "### Measurement lines *optional*",
    ] {
        let example = inline_example(section(&doc, heading));
        assert!(plaza.contains(example), "{heading}: {example}");
    }
}

#[test]
fn a_broken_example_is_caught() {
    // The checks above must be able to fail: a misspelt field in an example is refused.
    let result = std::panic::catch_unwind(|| {
        parses_as::<Obstacle>(
            "test",
            "(name: \"x\", kind: Fountain, shap: Circle(center: (0.0, 0.0), radius: 1.0))",
        )
    });
    assert!(result.is_err());
}

/// The README's annotated example: the first ```ron block of README.md.
fn readme_example() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let start = readme.find("```ron\n").expect("the README shows a level") + "```ron\n".len();
    let end = readme[start..].find("```").expect("the block ends") + start;
    readme[start..end].to_string()
}

#[test]
fn the_readme_example_level_checks_clean() {
    // What a reader gets from `throng check` on the copied example: no error, no warning.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tiny.ron");
    let text = readme_example();
    assert!(
        text.starts_with("Level(\n    name: \"Tiny square\""),
        "{text}"
    );
    std::fs::write(&path, &text).expect("write");
    let problems: Vec<String> = throng::level::check::check_file(&path)
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(problems, Vec::<String>::new());
    let level =
        throng::level::load_level(&path, Path::new(env!("CARGO_MANIFEST_DIR"))).expect("loads");
    assert_eq!(level.crowd.count, 300);
    assert_eq!(level.obstacles.len(), 2);
}

//! The docs stay honest: every picture README.md and docs/*.md show is one that
//! `scripts/readme-pictures.sh` regenerates from the current build (and nothing else sits in
//! docs/images), and no source or doc points at files outside the repository.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

const SCRIPT: &str = "scripts/readme-pictures.sh";
const IMAGES: &str = "docs/images";
const IMAGE_EXTENSIONS: [&str; 4] = ["jpg", "jpeg", "png", "gif"];
/// The plots `throng validate` writes.
const VALIDATION_PLOTS: [&str; 3] = [
    "fundamental_diagram.png",
    "bottleneck_flow.png",
    "lane_order.png",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One row of the script's table.
#[derive(Debug)]
struct Row {
    file: String,
    level: String,
    args: String,
}

/// The rows of the `PICTURES='...'` table at the top of the script.
fn parse_table(script: &str) -> Result<Vec<Row>, String> {
    let mut lines = script.lines().enumerate();
    lines
        .by_ref()
        .find(|(_, l)| l.trim_start().starts_with("PICTURES='"))
        .ok_or(format!("{SCRIPT}: no `PICTURES='` table"))?;
    let mut rows = Vec::new();
    for (n, line) in lines {
        if line.trim() == "'" {
            return Ok(rows);
        }
        if line.trim().is_empty() {
            continue;
        }
        if line.contains('\'') {
            return Err(format!(
                "{SCRIPT}:{}: a row may not hold `'`: it ends the table's shell string (`{line}`)",
                n + 1
            ));
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        if fields.len() != 5 || fields.iter().any(|f| f.is_empty()) {
            return Err(format!(
                "{SCRIPT}:{}: a row needs 5 non-empty fields (file | shows | level | edits | args), got `{line}`",
                n + 1
            ));
        }
        rows.push(Row {
            file: fields[0].to_string(),
            level: fields[2].to_string(),
            args: fields[4].to_string(),
        });
    }
    Err(format!(
        "{SCRIPT}: the PICTURES table is not closed by a line `'`"
    ))
}

fn script_rows() -> Vec<Row> {
    parse_table(&read(&repo().join(SCRIPT))).unwrap_or_else(|e| panic!("{e}"))
}

/// `a/./b/../c` -> `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn is_image(target: &str) -> bool {
    Path::new(target)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Every picture a Markdown text refers to, as a path relative to the repository root:
/// link and image targets (`](path)`, `src="path"`) resolved from the document's folder, and
/// bare mentions of `docs/images/NAME` resolved from the root.
fn picture_refs(text: &str, doc_dir: &Path) -> BTreeSet<PathBuf> {
    let mut refs = BTreeSet::new();
    for (open, close) in [("](", ')'), ("src=\"", '"')] {
        for (i, _) in text.match_indices(open) {
            let rest = &text[i + open.len()..];
            let Some(end) = rest.find(close) else {
                continue;
            };
            // A link may carry a title: `](path "title")`.
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            if is_image(target) && !target.contains("://") {
                refs.insert(normalize(&doc_dir.join(target)));
            }
        }
    }
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || "_.-".contains(c);
    for (i, _) in text.match_indices("docs/images/") {
        let rest = &text[i + "docs/images/".len()..];
        let name: String = rest.chars().take_while(|&c| is_name_char(c)).collect();
        let name = name.trim_end_matches('.');
        if is_image(name) {
            refs.insert(Path::new(IMAGES).join(name));
        }
    }
    refs
}

/// Each referenced picture with the documents that show it.
fn doc_refs() -> BTreeMap<PathBuf, Vec<String>> {
    let root = repo();
    let mut docs = vec![(PathBuf::from("README.md"), PathBuf::new())];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_name().expect("file name");
            docs.push((Path::new("docs").join(name), PathBuf::from("docs")));
        }
    }
    let mut refs: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for (doc, dir) in docs {
        for r in picture_refs(&read(&root.join(&doc)), &dir) {
            refs.entry(r).or_default().push(doc.display().to_string());
        }
    }
    refs
}

#[test]
fn every_picture_the_docs_show_exists_and_the_script_makes_it() {
    let made: BTreeSet<PathBuf> = script_rows()
        .iter()
        .map(|r| Path::new(IMAGES).join(&r.file))
        .collect();
    let refs = doc_refs();
    assert!(
        refs.len() >= 10,
        "the docs show {} pictures; the parser is missing links: {refs:?}",
        refs.len()
    );
    let mut problems = Vec::new();
    for (picture, docs) in &refs {
        let shown_in = docs.join(", ");
        if !picture.starts_with(IMAGES) {
            problems.push(format!(
                "{shown_in}: {} is outside {IMAGES}, where the script writes",
                picture.display()
            ));
        } else if !made.contains(picture) {
            problems.push(format!(
                "{shown_in}: {} is not in the table of {SCRIPT}",
                picture.display()
            ));
        }
        if !repo().join(picture).is_file() {
            problems.push(format!(
                "{shown_in}: {} does not exist (run {SCRIPT})",
                picture.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_picture_the_script_makes_is_shown_and_nothing_else_is_kept() {
    let shown: BTreeSet<PathBuf> = doc_refs().into_keys().collect();
    let mut problems = Vec::new();
    for row in script_rows() {
        let picture = Path::new(IMAGES).join(&row.file);
        if !shown.contains(&picture) {
            problems.push(format!(
                "{SCRIPT}: {} is made but no README.md or docs/*.md shows it",
                picture.display()
            ));
        }
    }
    for entry in std::fs::read_dir(repo().join(IMAGES)).expect("docs/images") {
        let name = entry.expect("dir entry").file_name();
        let picture = Path::new(IMAGES).join(&name);
        if !shown.contains(&picture) {
            problems.push(format!(
                "{} is in the repository but no document shows it",
                picture.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_script_table_names_real_levels_once_each() {
    let rows = script_rows();
    let mut seen = BTreeSet::new();
    for row in &rows {
        assert!(
            seen.insert(row.file.as_str()),
            "{SCRIPT}: {} twice",
            row.file
        );
        assert!(
            row.file.ends_with(".jpg") || row.file.ends_with(".png"),
            "{SCRIPT}: {}: pictures are .jpg (screenshots) or .png (plots)",
            row.file
        );
        if row.level == "bench" {
            assert_eq!(
                row.file, "bench.png",
                "{SCRIPT}: the bench writes bench.png"
            );
        } else if row.level == "web" {
            assert!(
                row.file.ends_with(".jpg"),
                "{SCRIPT}: {}: the web build's screenshot is a .jpg",
                row.file
            );
        } else if row.level == "test" {
            let test = row.args.split_whitespace().next().unwrap_or("");
            assert!(
                repo().join("tests").join(format!("{test}.rs")).is_file()
                    && row.args.split_whitespace().count() >= 2,
                "{SCRIPT}: {}: a `test` picture names a test in tests/ and the frames it keeps",
                row.file
            );
        } else if row.level == "validate" {
            assert!(
                VALIDATION_PLOTS.contains(&row.file.as_str()),
                "{SCRIPT}: {}: `throng validate` writes only {VALIDATION_PLOTS:?}",
                row.file
            );
        } else {
            assert!(
                repo().join(&row.level).is_file(),
                "{SCRIPT}: {}: no level file {}",
                row.file,
                row.level
            );
            assert!(
                row.args.contains("--frames"),
                "{SCRIPT}: {}: a screenshot run needs --frames to end",
                row.file
            );
        }
    }
}

#[test]
fn table_parser_reads_rows_and_refuses_broken_ones() {
    let ok = "x\nPICTURES='\na.jpg | shows | levels/plaza.ron | - | --frames 3\n\n'\n";
    let rows = parse_table(ok).expect("parses");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].file, "a.jpg");
    assert_eq!(rows[0].level, "levels/plaza.ron");
    assert_eq!(rows[0].args, "--frames 3");
    let short = "PICTURES='\na.jpg | levels/plaza.ron | --frames 3\n'\n";
    assert!(parse_table(short)
        .unwrap_err()
        .contains(":2: a row needs 5"));
    assert!(parse_table("PICTURES='\n")
        .unwrap_err()
        .contains("not closed"));
    // An apostrophe in a caption ends the shell string: bash then runs the rest as commands.
    let quote = "PICTURES='\na.png | over Weidmann's curve | validate | - | --only x\n'\n";
    assert!(parse_table(quote)
        .unwrap_err()
        .contains(":2: a row may not hold"));
    assert!(parse_table("nothing")
        .unwrap_err()
        .contains("no `PICTURES='`"));
}

#[test]
fn reference_parser_resolves_links_from_the_document_folder() {
    let text = "![a](images/a.jpg) [b](../docs/images/b.png \"t\") <img src=\"images/c.jpg\">\n\
                see docs/images/d.jpg. [page](HERO.md) ![web](https://x.org/e.png)";
    let refs: Vec<String> = picture_refs(text, Path::new("docs"))
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(
        refs,
        [
            "docs/images/a.jpg",
            "docs/images/b.png",
            "docs/images/c.jpg",
            "docs/images/d.jpg"
        ]
    );
}

/// Text files a reader of the repository sees: code, docs, levels, shaders, scripts.
fn text_files() -> Vec<PathBuf> {
    const EXTENSIONS: [&str; 7] = ["rs", "md", "ron", "vert", "frag", "sh", "toml"];
    let root = repo();
    let mut out = vec![root.join("README.md"), root.join("Cargo.toml")];
    let mut stack: Vec<PathBuf> = ["src", "tests", "benches", "docs", "scripts", "levels"]
        .iter()
        .map(|d| root.join(d))
        .filter(|d| d.is_dir())
        .collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| EXTENSIONS.contains(&e))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn nothing_cites_files_outside_the_repository() {
    // Split so this file does not match itself.
    let outside = [
        concat!("../", "shared"),
        concat!("PLATFORM", ".md"),
        concat!("DESIGN", ".md"),
        concat!("seeds", "/"),
        concat!("/work", "/"),
    ];
    let root = repo();
    let mut problems = Vec::new();
    for file in text_files() {
        let text = read(&file);
        for (n, line) in text.lines().enumerate() {
            for needle in outside {
                if line.contains(needle) {
                    problems.push(format!(
                        "{}:{}: cites `{needle}`, which is not in the repository; say the fact itself",
                        file.strip_prefix(&root).unwrap_or(&file).display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

//! The shape of the house, checked from the source text: no import cycles between the top-level
//! modules of src/, and the GL-free core never reaches macroquad/miniquad, directly or through a
//! GL-side module. See docs/ARCHITECTURE.md for the layout these tests hold in place.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The only places that may talk to the window and GL: the window shell, the renderer, the
/// panels, and the binary's thin `main.rs` that opens the window.
const GL_SIDE: [&str; 4] = ["app", "render", "ui", "main"];

fn src_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted so failures read the same every run.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a file belongs to: `src/level/validate.rs` -> `level`,
/// `src/cli.rs` -> `cli`, `src/main.rs` -> `main`.
fn top_module(file: &Path) -> String {
    let rel = file.strip_prefix(src_dir()).expect("under src");
    let first = rel.components().next().expect("non-empty path");
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

/// The source with comments (line, doc and block) and the contents of string and char literals
/// blanked out, so prose and messages that name a module do not count as uses of it. Line
/// breaks inside what is blanked are kept, so lines still count as in the file.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
                push_line_breaks(&mut out, &text[start..i]);
            }
            b'r' if matches!(b.get(i + 1), Some(b'"') | Some(b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                // Raw string r"..." or r#"..."#.
                let start = i;
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == b'"' && b[j + 1..].iter().take(hashes).all(|&c| c == b'#') {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
                push_line_breaks(&mut out, &text[start..i.min(b.len())]);
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                out.push_str("\"\"");
                push_line_breaks(&mut out, &text[start..i.min(b.len())]);
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): skip only the former.
                let next = text[i + 1..].chars().next().map_or(0, char::len_utf8);
                let end = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..]
                        .iter()
                        .position(|&c| c == b'\'')
                        .map(|p| i + 2 + p)
                } else if next > 0 && b.get(i + 1 + next) == Some(&b'\'') {
                    Some(i + 1 + next)
                } else {
                    None
                };
                match end {
                    Some(e) => {
                        out.push_str("' '");
                        i = e + 1;
                    }
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            _ => {
                // Copy one whole UTF-8 character.
                let ch = text[i..].chars().next().expect("char boundary");
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

fn push_line_breaks(out: &mut String, blanked: &str) {
    out.extend(blanked.chars().filter(|&c| c == '\n'));
}

/// The top-level modules named after each `crate::` in `code`: `crate::level::Level` -> level,
/// `crate::{anim::X, asset::{Y, Z}}` -> anim and asset.
fn crate_references(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` in a macro, or an identifier ending in `crate`.
        }
        let rest_trim = rest.trim_start();
        if let Some(group) = rest_trim.strip_prefix('{') {
            // Top-level names of a braced group: those at nesting depth 0.
            let mut depth = 0;
            let mut name = String::new();
            let mut expecting_name = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expecting_name = true,
                    c if depth == 0 && expecting_name && (c.is_alphanumeric() || c == '_') => {
                        name.push(c)
                    }
                    _ => {
                        if !name.is_empty() {
                            found.insert(std::mem::take(&mut name));
                            expecting_name = false;
                        }
                    }
                }
            }
            if !name.is_empty() {
                found.insert(name);
            }
        } else {
            let name: String = rest_trim
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// module -> (module it names -> the files that name it).
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn module_graph() -> Graph {
    let src = src_dir();
    let mut graph = Graph::new();
    for file in rust_files(&src) {
        let from = top_module(&file);
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read source");
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        let entry = graph.entry(from.clone()).or_default();
        for to in crate_references(&code_only(&text)) {
            if to != from && to != "self" && to != "super" {
                entry.entry(to).or_default().insert(rel.clone());
            }
        }
    }
    graph
}

/// One cycle through the graph, if any, as the list of modules along it.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    fn visit(
        node: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(node.to_string(), Mark::OnStack);
        stack.push(node.to_string());
        for next in graph.get(node).map(|m| m.keys()).into_iter().flatten() {
            match marks.get(next.as_str()).copied().unwrap_or(Mark::New) {
                Mark::OnStack => {
                    let start = stack.iter().position(|m| m == next).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(next, graph, marks, stack) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if marks.get(node.as_str()).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(node, graph, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_reference_parser_sees_what_it_should() {
    // Guards the checks below: a parser that found nothing would pass them vacuously.
    let code = code_only(
        "use crate::level::Level; // crate::render\n\
         /* crate::ui */ use crate::{anim::{A, B}, asset::X as Y};\n\
         let s = \"crate::app\"; let c = '\"'; fn f<'a>(x: &'a str) { crate::tween::ease(x) }\n\
         macro_rules! m { () => { $crate::view::Lod } }",
    );
    let refs: Vec<String> = crate_references(&code).into_iter().collect();
    assert_eq!(refs, ["anim", "asset", "level", "tween"]);
    let graph = module_graph();
    assert!(
        graph
            .get("level")
            .is_some_and(|m| m.contains_key("footprint")),
        "level/ should be seen using footprint: {graph:?}"
    );
    let mut g = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(a.into()).or_default().entry(b.into()).or_default();
    }
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    g.get_mut("c").unwrap().remove("a");
    assert_eq!(find_cycle(&g), None);
}

#[test]
fn no_import_cycles_between_top_level_modules() {
    let graph = module_graph();
    if let Some(cycle) = find_cycle(&graph) {
        let mut why = String::new();
        for pair in cycle.windows(2) {
            let files = &graph[&pair[0]][&pair[1]];
            why.push_str(&format!(
                "\n  {} -> {} (in {})",
                pair[0],
                pair[1],
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        panic!(
            "import cycle between top-level modules: {}{why}\n\
             Move what both sides need into a module below both (as clip_kind, footprint, \
             arg_values).",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn gl_free_modules_never_reach_the_window_or_gl() {
    let src = src_dir();
    let graph = module_graph();
    let mut problems = Vec::new();
    let mut gl_free = BTreeSet::new();
    for file in rust_files(&src) {
        let module = top_module(&file);
        if GL_SIDE.contains(&module.as_str()) {
            continue;
        }
        gl_free.insert(module.clone());
        let code = code_only(&std::fs::read_to_string(&file).expect("read source"));
        for gl in ["macroquad", "miniquad"] {
            if code.contains(gl) {
                let rel = file.strip_prefix(&src).unwrap().display();
                problems.push(format!("{rel} mentions {gl}"));
            }
        }
        if let Some(uses) = graph.get(&module) {
            for (to, files) in uses {
                if GL_SIDE.contains(&to.as_str()) {
                    problems.push(format!(
                        "{module} uses the GL-side module {to} (in {files:?})"
                    ));
                }
            }
        }
    }
    // The core is most of the crate; a walk that found none of it would prove nothing.
    for expected in ["anim", "asset", "crowd", "level", "view", "game", "hero"] {
        assert!(
            gl_free.contains(expected),
            "{expected} not found under src/"
        );
    }
    assert!(
        problems.is_empty(),
        "GL-free modules must stay headless (only {GL_SIDE:?} may use macroquad/miniquad):\n  {}",
        problems.join("\n  ")
    );
}

/// The longest a function in src/ may be, from its `fn` line to its closing brace: past this a
/// function is doing several jobs, and its stages want names of their own.
const MAX_FUNCTION_LINES: usize = 150;

/// Functions allowed past `MAX_FUNCTION_LINES` for now, as (file under src/, function name).
/// Each entry is a debt to pay by splitting the function into named stages and then deleting
/// the entry; the check below also fails on an entry that no longer needs to be here.
const ALLOWED_LONG_FUNCTIONS: [(&str, &str); 0] = [];

/// `code` (from `code_only`) with every `#[cfg(test)]` item blanked, line breaks kept: test
/// modules may hold long table-driven tests.
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let end = item_end(item, "#[cfg(test)]".len()).unwrap_or(item.len());
        out.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The end (one past its `;` or closing `}`) of the item whose head starts at `from` in `code`:
/// the first `;` or `{` outside parentheses and brackets (`-> [f32; 4]` is still a head), and
/// for a `{` its matching `}`.
fn item_end(code: &str, from: usize) -> Option<usize> {
    let b = code.as_bytes();
    let mut nesting = 0i32;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => nesting += 1,
            b')' | b']' => nesting -= 1,
            b';' if nesting == 0 => return Some(i + 1),
            b'{' if nesting == 0 => {
                let mut depth = 0;
                for (j, &c) in b.iter().enumerate().skip(i) {
                    match c {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(j + 1);
                            }
                        }
                        _ => {}
                    }
                }
                return None;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// (name, first line, lines) of every function with a body in `code` (from `code_only`), nested
/// ones included; a trait's bodiless declarations and `fn(..)` pointer types are not functions.
fn function_lengths(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("fn").map(|p| from + p) {
        from = at + 2;
        let keyword = (at == 0 || !ident(b[at - 1])) && b.get(at + 2).is_some_and(|c| *c == b' ');
        if !keyword {
            continue;
        }
        let name: String = code[at + 2..]
            .trim_start()
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Some(end) = item_end(code, at) else {
            continue;
        };
        if b[end - 1] != b'}' {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let lines = code[at..end].matches('\n').count() + 1;
        found.push((name, line, lines));
    }
    found
}

#[test]
fn the_function_length_scan_measures_what_it_should() {
    // Guards the check below: a scan that measured nothing would pass it vacuously.
    let text = "trait T {\n    fn declared(&self) -> [u8; 4];\n}\n\
                pub(crate) fn three_lines(x: fn(u8) -> u8) -> [f32; 2] {\n    [0.0; 2]\n}\n\
                fn with_text() {\n    let s = \"}\n}\n\";\n    /* { */\n}\n\
                #[cfg(test)]\nmod tests {\n    fn skipped() {\n    }\n}\n\
                fn after_tests() { fn nested() {} }\n";
    let code = without_test_items(&code_only(text));
    assert_eq!(code.matches('\n').count(), text.matches('\n').count());
    let found = function_lengths(&code);
    let want = [
        ("three_lines", 4, 3),
        ("with_text", 7, 6),
        ("after_tests", 18, 1),
        ("nested", 18, 1),
    ];
    let want: Vec<(String, usize, usize)> = want
        .iter()
        .map(|&(n, at, lines)| (n.to_string(), at, lines))
        .collect();
    assert_eq!(found, want);
    let longest = rust_files(&src_dir())
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).expect("read source");
            function_lengths(&without_test_items(&code_only(&text)))
        })
        .map(|(_, _, lines)| lines)
        .max();
    assert!(
        longest.is_some_and(|n| n > 50),
        "the scan of src/ found no function longer than 50 lines: {longest:?}"
    );
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let src = src_dir();
    let mut problems = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).expect("read source");
        for (name, line, lines) in function_lengths(&without_test_items(&code_only(&text))) {
            if lines <= MAX_FUNCTION_LINES {
                continue;
            }
            if ALLOWED_LONG_FUNCTIONS.contains(&(rel.as_str(), name.as_str())) {
                allowed_seen.insert((rel.clone(), name));
                continue;
            }
            problems.push(format!(
                "src/{rel}:{line}: fn {name} is {lines} lines; split it into named stages"
            ));
        }
    }
    for (file, name) in ALLOWED_LONG_FUNCTIONS {
        if !allowed_seen.contains(&(file.to_string(), name.to_string())) {
            problems.push(format!(
                "src/{file}: fn {name} is allowed to be long but is not (or is gone): remove \
                 it from ALLOWED_LONG_FUNCTIONS"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n  {}",
        problems.join("\n  ")
    );
}

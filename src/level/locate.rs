//! Finds where each field of a RON document stands, so errors found after parsing (a name that
//! does not exist, an obstacle outside the bounds) can point at line:column like syntax errors do.
//!
//! A small tolerant scanner walks the tokens and keeps a stack of open `(`, `[` and `{`, naming
//! each value by its field path: `crowd.count`, `obstacles[3].shape.radius`, `paths[1].points[0]`.
//! Named structs and enum variants (`Circle(...)`) add no path segment; `Some(x)` is transparent.

use std::collections::HashMap;

/// 1-based line and column, as ron reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    Colon,
    Comma,
    Ident(String),
    Scalar,
}

/// Brackets may nest this deep; level files need 8 at most. Past it the scan stops and the level
/// is refused, before ron's own recursion (limit 128) and before paths grow long.
pub const MAX_NESTING: usize = 32;

/// Splits a RON document into tokens, one at a time, tolerating anything (the parser proper
/// reports syntax errors; this only has to keep positions in step).
struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
}

impl Lexer {
    fn new(src: &str) -> Lexer {
        Lexer {
            chars: src.chars().collect(),
            i: 0,
            line: 1,
            col: 1,
        }
    }

    fn at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    /// Advances over one char keeping line/column in step.
    fn step(&mut self) {
        if self.at(0) == Some('\n') {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        self.i += 1;
    }

    fn skip_block_comment(&mut self) {
        let mut depth = 0;
        while let Some(c) = self.at(0) {
            if c == '/' && self.at(1) == Some('*') {
                depth += 1;
                self.step();
            } else if c == '*' && self.at(1) == Some('/') {
                depth -= 1;
                self.step();
                if depth == 0 {
                    self.step();
                    break;
                }
            }
            self.step();
        }
    }

    fn skip_quoted(&mut self, quote: char) {
        self.step();
        while let Some(c) = self.at(0) {
            if c == quote {
                self.step();
                return;
            }
            if c == '\\' {
                self.step();
            }
            if self.at(0).is_some() {
                self.step();
            }
        }
    }

    /// Raw string r#"..."#.
    fn skip_raw_string(&mut self) {
        self.step();
        let mut hashes = 0;
        while self.at(0) == Some('#') {
            hashes += 1;
            self.step();
        }
        if self.at(0).is_some() {
            self.step();
        }
        while let Some(c) = self.at(0) {
            if c == '"' && (1..=hashes).all(|k| self.at(k) == Some('#')) {
                for _ in 0..=hashes {
                    self.step();
                }
                return;
            }
            self.step();
        }
    }
}

impl Iterator for Lexer {
    type Item = (Tok, Pos);

    fn next(&mut self) -> Option<(Tok, Pos)> {
        loop {
            let c = self.at(0)?;
            let pos = Pos {
                line: self.line,
                col: self.col,
            };
            if c.is_whitespace() {
                self.step();
            } else if c == '/' && self.at(1) == Some('/') {
                while self.at(0).is_some_and(|c| c != '\n') {
                    self.step();
                }
            } else if c == '/' && self.at(1) == Some('*') {
                self.skip_block_comment();
            } else if c == '"' || c == '\'' {
                self.skip_quoted(c);
                return Some((Tok::Scalar, pos));
            } else if c == 'r' && matches!(self.at(1), Some('"') | Some('#')) {
                self.skip_raw_string();
                return Some((Tok::Scalar, pos));
            } else if "([{)]}:,".contains(c) {
                self.step();
                let tok = match c {
                    ':' => Tok::Colon,
                    ',' => Tok::Comma,
                    '(' | '[' | '{' => Tok::Open,
                    _ => Tok::Close,
                };
                return Some((tok, pos));
            } else if c.is_alphabetic() || c == '_' {
                let mut word = String::new();
                while let Some(c) = self.at(0).filter(|c| c.is_alphanumeric() || *c == '_') {
                    word.push(c);
                    self.step();
                }
                return Some((Tok::Ident(word), pos));
            } else {
                // Numbers and anything unexpected: one scalar up to the next delimiter (always
                // at least one character, so the scan cannot stall).
                let start = self.i;
                while let Some(c) = self.at(0) {
                    let comment = c == '/' && matches!(self.at(1), Some('/') | Some('*'));
                    if c.is_whitespace()
                        || "()[]{}:,\"'".contains(c)
                        || (self.i != start && comment)
                    {
                        break;
                    }
                    self.step();
                }
                return Some((Tok::Scalar, pos));
            }
        }
    }
}

/// One step of a field path: `.name` or `[index]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Seg {
    Field(String),
    Index(usize),
}

/// A value written in the file: where it starts and how it hangs from its container.
#[derive(Debug)]
struct Node {
    /// None for the document's top-level value, whose path is empty.
    parent: Option<(usize, Seg)>,
    start: Pos,
    depth: usize,
}

/// An open bracket: the value it belongs to and the element being read inside it.
struct Frame {
    node: usize,
    index: usize,
    /// `Some(x)`: the element is the frame's own value.
    transparent: bool,
    field: Option<String>,
}

/// Where every value of a RON document starts, by field path. Memory and time grow linearly with
/// the file: each value is one node pointing at its container, and paths are spelled out only
/// when asked for.
#[derive(Debug, Default)]
pub struct FieldMap {
    nodes: Vec<Node>,
    children: HashMap<(usize, Seg), usize>,
    /// Where the open container changes, in source order, with the container's node (None at the
    /// top level).
    containers: Vec<(Pos, Option<usize>)>,
    too_deep: Option<Pos>,
}

impl FieldMap {
    pub fn new(src: &str) -> FieldMap {
        let mut map = FieldMap::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut toks = Lexer::new(src).peekable();
        while let Some((tok, pos)) = toks.next() {
            let container = stack.last().map(|f| f.node);
            if map.containers.last().map(|(_, c)| *c) != Some(container) {
                map.containers.push((pos, container));
            }
            match tok {
                Tok::Comma => {
                    if let Some(f) = stack.last_mut() {
                        f.index += 1;
                        f.field = None;
                    }
                }
                Tok::Close => {
                    stack.pop();
                }
                Tok::Colon => {}
                Tok::Ident(name) if matches!(toks.peek(), Some((Tok::Colon, _))) => {
                    toks.next();
                    if let Some(f) = stack.last_mut() {
                        f.field = Some(name);
                    }
                }
                _ => {
                    // A value starts here.
                    let node = map.element_of(stack.last_mut(), pos);
                    let opens = match &tok {
                        Tok::Ident(name) if matches!(toks.peek(), Some((Tok::Open, _))) => {
                            toks.next();
                            Some(name == "Some")
                        }
                        Tok::Open => Some(false),
                        _ => None,
                    };
                    if let Some(transparent) = opens {
                        if stack.len() >= MAX_NESTING {
                            map.too_deep = Some(pos);
                            break;
                        }
                        stack.push(Frame {
                            node,
                            index: 0,
                            transparent,
                            field: None,
                        });
                    }
                }
            }
        }
        map
    }

    /// The node of the element a frame is reading now (created at `pos` if new).
    fn element_of(&mut self, frame: Option<&mut Frame>, pos: Pos) -> usize {
        let Some(frame) = frame else {
            if self.nodes.is_empty() {
                self.nodes.push(Node {
                    parent: None,
                    start: pos,
                    depth: 0,
                });
            }
            return 0;
        };
        let seg = match &frame.field {
            Some(f) => Seg::Field(f.clone()),
            None if frame.transparent => return frame.node,
            None => Seg::Index(frame.index),
        };
        let key = (frame.node, seg);
        if let Some(&n) = self.children.get(&key) {
            return n;
        }
        let n = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(key.clone()),
            start: pos,
            depth: self.nodes[frame.node].depth + 1,
        });
        self.children.insert(key, n);
        n
    }

    /// Where brackets first nest deeper than [`MAX_NESTING`]; nothing after it was mapped.
    pub fn too_deep(&self) -> Option<Pos> {
        self.too_deep
    }

    fn path_of(&self, node: Option<usize>) -> String {
        let mut segs = Vec::new();
        let mut at = node;
        while let Some((parent, seg)) = at.and_then(|n| self.nodes[n].parent.as_ref()) {
            segs.push(seg);
            at = Some(*parent);
        }
        let mut path = String::new();
        for seg in segs.into_iter().rev() {
            match seg {
                Seg::Field(f) if path.is_empty() => path.push_str(f),
                Seg::Field(f) => {
                    path.push('.');
                    path.push_str(f);
                }
                Seg::Index(i) => path.push_str(&format!("[{i}]")),
            }
        }
        path
    }

    /// Where the value at `path` starts; for a path that is not written in the file (a field left
    /// to its default), the nearest written parent.
    pub fn position_of(&self, path: &str) -> Pos {
        let Some(root) = self.nodes.first() else {
            return Pos { line: 1, col: 1 };
        };
        let mut at = 0;
        for seg in parse_path(path) {
            match self.children.get(&(at, seg)) {
                Some(&n) => at = n,
                None => break,
            }
        }
        if at == 0 {
            root.start
        } else {
            self.nodes[at].start
        }
    }

    /// Where the value at `path` starts, only when that very value is written in the file
    /// (`position_of` falls back to a parent): the in-game editor patches numbers there.
    pub fn exact_position(&self, path: &str) -> Option<Pos> {
        self.nodes.first()?;
        let mut at = 0;
        for seg in parse_path(path) {
            at = *self.children.get(&(at, seg))?;
        }
        Some(self.nodes[at].start)
    }

    /// The path of the container open at `pos` (the struct or list being read there).
    pub fn container_at(&self, pos: Pos) -> String {
        let k = self.containers.partition_point(|(p, _)| *p <= pos);
        match k.checked_sub(1) {
            Some(k) => self.path_of(self.containers[k].1),
            None => String::new(),
        }
    }

    /// The path of the value that starts last at or before `pos`.
    pub fn value_at(&self, pos: Pos) -> String {
        let best = (0..self.nodes.len())
            .filter(|&n| self.nodes[n].start <= pos)
            .max_by_key(|&n| (self.nodes[n].start, self.nodes[n].depth));
        match best {
            Some(n) => self.path_of(Some(n)),
            None => String::new(),
        }
    }
}

/// `obstacles[3].shape.radius` as its steps; anything unreadable ends the walk early.
fn parse_path(path: &str) -> Vec<Seg> {
    let mut segs = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut pieces = part.split('[');
        if let Some(name) = pieces.next().filter(|n| !n.is_empty()) {
            segs.push(Seg::Field(name.to_string()));
        }
        for index in pieces {
            match index.trim_end_matches(']').parse() {
                Ok(i) => segs.push(Seg::Index(i)),
                Err(_) => return segs,
            }
        }
    }
    segs
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"Level( // a comment with (parens) and "quotes"
    name: "Plaza (main)",
    bounds: (min: (-1.0, -2.0), max: (3.0, 4.0)),
    obstacles: [
        (name: "a", kind: Tree, shape: Circle(center: (0.0, 0.0), radius: 1.0)),
        /* block (comment) */
        (name: "b", kind: Bench, shape: Box(center: (1.0, 1.0), half_extents: (1.0, 0.5))),
    ],
    spawn_zones: [(name: "z", center: (0.0, 0.0), half_extents: (1.0, 1.0), path: Some("p"))],
)"#;

    #[test]
    fn paths_point_at_their_values() {
        let m = FieldMap::new(SRC);
        assert_eq!(m.position_of("name"), Pos { line: 2, col: 11 });
        assert_eq!(m.position_of("bounds.max"), Pos { line: 3, col: 38 });
        assert_eq!(
            m.position_of("obstacles[1].shape.half_extents"),
            Pos { line: 7, col: 79 }
        );
        assert_eq!(
            m.position_of("obstacles[0].shape.radius"),
            Pos { line: 5, col: 75 }
        );
        assert_eq!(
            m.position_of("spawn_zones[0].path"),
            Pos { line: 9, col: 83 }
        );
        assert_eq!(
            m.position_of("obstacles[1].points[3]"),
            m.position_of("obstacles[1]")
        );
        assert_eq!(m.position_of("bounds.max[1]"), Pos { line: 3, col: 44 });
    }

    #[test]
    fn containers_and_values_at_a_position() {
        let m = FieldMap::new(SRC);
        assert_eq!(
            m.container_at(Pos { line: 5, col: 60 }),
            "obstacles[0].shape.center"
        );
        assert_eq!(
            m.value_at(Pos { line: 5, col: 76 }),
            "obstacles[0].shape.radius"
        );
        assert_eq!(m.container_at(Pos { line: 2, col: 5 }), "");
    }
}

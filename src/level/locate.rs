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
    Open(char),
    Close,
    Colon,
    Comma,
    Ident(String),
    Scalar,
}

fn tokenize(src: &str) -> Vec<(Tok, Pos)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    // Advances over one char keeping line/column in step.
    let step = |i: &mut usize, line: &mut usize, col: &mut usize| {
        if chars[*i] == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c.is_whitespace() {
            step(&mut i, &mut line, &mut col);
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                step(&mut i, &mut line, &mut col);
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    step(&mut i, &mut line, &mut col);
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    step(&mut i, &mut line, &mut col);
                    if depth == 0 {
                        step(&mut i, &mut line, &mut col);
                        break;
                    }
                }
                step(&mut i, &mut line, &mut col);
            }
        } else if c == '"' || c == '\'' {
            step(&mut i, &mut line, &mut col);
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    step(&mut i, &mut line, &mut col);
                }
                if i < chars.len() {
                    step(&mut i, &mut line, &mut col);
                }
            }
            if i < chars.len() {
                step(&mut i, &mut line, &mut col);
            }
            out.push((Tok::Scalar, pos));
        } else if c == 'r' && matches!(chars.get(i + 1), Some('"') | Some('#')) {
            // Raw string r#"..."#.
            step(&mut i, &mut line, &mut col);
            let mut hashes = 0;
            while i < chars.len() && chars[i] == '#' {
                hashes += 1;
                step(&mut i, &mut line, &mut col);
            }
            if i < chars.len() {
                step(&mut i, &mut line, &mut col);
            }
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    for _ in 0..=hashes {
                        step(&mut i, &mut line, &mut col);
                    }
                    break;
                }
                step(&mut i, &mut line, &mut col);
            }
            out.push((Tok::Scalar, pos));
        } else if "([{".contains(c) {
            out.push((Tok::Open(c), pos));
            step(&mut i, &mut line, &mut col);
        } else if ")]}".contains(c) {
            out.push((Tok::Close, pos));
            step(&mut i, &mut line, &mut col);
        } else if c == ':' {
            out.push((Tok::Colon, pos));
            step(&mut i, &mut line, &mut col);
        } else if c == ',' {
            out.push((Tok::Comma, pos));
            step(&mut i, &mut line, &mut col);
        } else if c.is_alphabetic() || c == '_' {
            let mut word = String::new();
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                word.push(chars[i]);
                step(&mut i, &mut line, &mut col);
            }
            out.push((Tok::Ident(word), pos));
        } else {
            // Numbers and anything unexpected: one scalar up to the next delimiter (always at
            // least one character, so the scan cannot stall).
            let start = i;
            while i < chars.len()
                && !chars[i].is_whitespace()
                && !"()[]{}:,\"'".contains(chars[i])
                && (i == start
                    || chars[i] != '/'
                    || !matches!(chars.get(i + 1), Some('/') | Some('*')))
            {
                step(&mut i, &mut line, &mut col);
            }
            out.push((Tok::Scalar, pos));
        }
    }
    out
}

struct Frame {
    path: String,
    index: usize,
    /// `Some(x)`: the element is the frame's own value.
    transparent: bool,
    field: Option<String>,
}

impl Frame {
    fn element_path(&self) -> String {
        if let Some(f) = &self.field {
            if self.path.is_empty() {
                f.clone()
            } else {
                format!("{}.{f}", self.path)
            }
        } else if self.transparent {
            self.path.clone()
        } else {
            format!("{}[{}]", self.path, self.index)
        }
    }
}

/// Where every value of a RON document starts, by field path.
#[derive(Debug, Default)]
pub struct FieldMap {
    starts: HashMap<String, Pos>,
    /// Every token's position with the path of the container it is in, in source order.
    containers: Vec<(Pos, String)>,
}

impl FieldMap {
    pub fn new(src: &str) -> FieldMap {
        let toks = tokenize(src);
        let mut map = FieldMap::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut k = 0;
        while k < toks.len() {
            let (tok, pos) = &toks[k];
            map.containers.push((
                *pos,
                stack.last().map(|f| f.path.clone()).unwrap_or_default(),
            ));
            match tok {
                Tok::Comma => {
                    if let Some(f) = stack.last_mut() {
                        f.index += 1;
                        f.field = None;
                    }
                    k += 1;
                }
                Tok::Close => {
                    stack.pop();
                    k += 1;
                }
                Tok::Colon => k += 1,
                Tok::Ident(name) if matches!(toks.get(k + 1), Some((Tok::Colon, _))) => {
                    if let Some(f) = stack.last_mut() {
                        f.field = Some(name.clone());
                    }
                    k += 2;
                }
                _ => {
                    // A value starts here.
                    let path = stack.last().map(Frame::element_path).unwrap_or_default();
                    map.starts.entry(path.clone()).or_insert(*pos);
                    match tok {
                        Tok::Ident(name) if matches!(toks.get(k + 1), Some((Tok::Open(_), _))) => {
                            stack.push(Frame {
                                path,
                                index: 0,
                                transparent: name == "Some",
                                field: None,
                            });
                            k += 2;
                        }
                        Tok::Open(_) => {
                            stack.push(Frame {
                                path,
                                index: 0,
                                transparent: false,
                                field: None,
                            });
                            k += 1;
                        }
                        _ => k += 1,
                    }
                }
            }
        }
        map
    }

    /// Where the value at `path` starts; for a path that is not written in the file (a field left
    /// to its default), the nearest written parent.
    pub fn position_of(&self, path: &str) -> Pos {
        let mut p = path.to_string();
        loop {
            if let Some(pos) = self.starts.get(&p) {
                return *pos;
            }
            match p.rfind(['.', '[']) {
                Some(cut) => p.truncate(cut),
                None => {
                    return self
                        .starts
                        .get("")
                        .copied()
                        .unwrap_or(Pos { line: 1, col: 1 })
                }
            }
        }
    }

    /// The path of the container open at `pos` (the struct or list being read there).
    pub fn container_at(&self, pos: Pos) -> String {
        self.containers
            .iter()
            .take_while(|(p, _)| *p <= pos)
            .last()
            .map(|(_, path)| path.clone())
            .unwrap_or_default()
    }

    /// The path of the value that starts last at or before `pos`.
    pub fn value_at(&self, pos: Pos) -> String {
        self.starts
            .iter()
            .filter(|(_, p)| **p <= pos)
            .max_by_key(|(path, p)| (**p, path.len()))
            .map(|(path, _)| path.clone())
            .unwrap_or_default()
    }
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

//! Hints for the RON mistakes designers make most, in place of the parser's jargon: a plain
//! value where an optional one is expected (`Some(..)`), a point or colour with the wrong number
//! of numbers, a bracket left open before the next field.

use super::locate::{FieldMap, Pos};

/// What the point or colour type of a field is written as, by the name serde gives it.
fn vector_shape(type_name: &str) -> Option<(&'static str, usize)> {
    match type_name {
        "struct Vec2" => Some(("(x, z)", 2)),
        "struct Vec3" => Some(("(x, y, z)", 3)),
        _ => None,
    }
}

fn count_word(n: usize) -> &'static str {
    match n {
        2 => "two numbers",
        3 => "three numbers",
        _ => "numbers",
    }
}

/// `sky_color: (0.55, 0.72)`: "expected (x, y, z): three numbers, found 2".
pub fn vector_length(expected: &str, found: usize) -> Option<String> {
    let (shape, n) = vector_shape(expected)?;
    Some(format!(
        "expected {shape}: {}, found {found}",
        count_word(n)
    ))
}

/// `expected struct Vec3, found a number`: the same in the designer's words.
pub fn vector_type(expected: &str, found: &str) -> Option<String> {
    let (shape, n) = vector_shape(expected)?;
    Some(format!(
        "expected {shape}: {}, found {found}",
        count_word(n)
    ))
}

/// The text of the value written at `pos`: a quoted string whole, anything else up to the next
/// comma or closing bracket outside its own brackets (at most one line).
pub fn value_text_at(source: &str, pos: Pos) -> Option<String> {
    let line = source.lines().nth(pos.line.checked_sub(1)?)?;
    let rest: String = line.chars().skip(pos.col.checked_sub(1)?).collect();
    let mut out = String::new();
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for c in rest.chars() {
        if quoted {
            out.push(c);
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => break,
            _ => {}
        }
        out.push(c);
    }
    let text = out.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// A bare word where text is expected: the same word in double quotes.
fn quoted_if_bare(value: &str) -> String {
    let bare = value
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && value.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !matches!(value, "true" | "false" | "None" | "Some");
    if bare {
        format!("\"{value}\"")
    } else {
        value.to_string()
    }
}

/// The start of the word `pos` is inside (ron reports some errors one character into it).
pub fn word_start(source: &str, pos: Pos) -> Pos {
    let Some(line) = source.lines().nth(pos.line.saturating_sub(1)) else {
        return pos;
    };
    let before: Vec<char> = line.chars().take(pos.col.saturating_sub(1)).collect();
    let back = before
        .iter()
        .rev()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .count();
    Pos {
        line: pos.line,
        col: pos.col - back,
    }
}

/// `name: ring` where text is expected: "write "ring" in double quotes".
pub fn string_hint(value: Option<&str>) -> String {
    match value {
        Some(v) if v != quoted_if_bare(v) => format!(
            "expected text in double quotes; write {}",
            super::shorten(&quoted_if_bare(v))
        ),
        _ => "expected text in double quotes".to_string(),
    }
}

/// `sky_color: 0.5`: the point or colour must be written in brackets.
pub fn vector_opening(type_name: &str) -> Option<String> {
    let (shape, n) = vector_shape(&format!("struct {type_name}"))?;
    Some(format!("expected {shape}: {} in brackets", count_word(n)))
}

/// `path: "loop"` where an optional value is expected: "write Some("loop")".
pub fn option_hint(value: Option<&str>) -> String {
    match value.map(quoted_if_bare).as_deref() {
        Some(v) if v.starts_with("Some") => {
            "expected an optional value: Some(...) with one value inside, or leave the field out"
                .to_string()
        }
        Some(v) => format!(
            "expected an optional value; write Some({}) (or leave the field out for none)",
            super::shorten(v)
        ),
        None => "expected an optional value; write Some(...) (or leave the field out for none)"
            .to_string(),
    }
}

/// ron expected the `)` of a tuple or struct at `pos`. Two common causes read better than
/// "expected closing `)`": a point or colour with a number too many (the value is element 2 or
/// 3 of a tuple), and a bracket left open before the next field (`min: (1.0, 2.0 max: ...`).
/// Returns the field path and the message.
pub fn unclosed(source: &str, fields: &FieldMap, pos: Pos) -> Option<(String, String)> {
    let value = fields.value_at(pos);
    if let Some((tuple, index)) = tuple_element(&value) {
        let opens_tuple = super::char_at(source, fields.position_of(&tuple)) == Some('(');
        if opens_tuple && (index == 2 || index == 3) {
            let shape = if index == 2 { "(x, z)" } else { "(x, y, z)" };
            return Some((
                tuple,
                format!("too many numbers: expected {shape}: {}", count_word(index)),
            ));
        }
    }
    let name = field_name_at(source, pos)?;
    let open = fields.container_at(pos);
    let message = format!("expected `)` before the field `{name}`: this bracket is not closed");
    Some((open, message))
}

/// `bounds.min[2]` as (`bounds.min`, 2).
fn tuple_element(path: &str) -> Option<(String, usize)> {
    let body = path.strip_suffix(']')?;
    let open = body.rfind('[')?;
    let index = body[open + 1..].parse().ok()?;
    Some((body[..open].to_string(), index))
}

/// The field name written at `pos` (an identifier followed by a colon), if one is.
fn field_name_at(source: &str, pos: Pos) -> Option<String> {
    let line = source.lines().nth(pos.line.checked_sub(1)?)?;
    let rest: String = line.chars().skip(pos.col.checked_sub(1)?).collect();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let after = rest[name.len()..].trim_start();
    (!name.is_empty() && after.starts_with(':')).then(|| super::shorten(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_text_stops_at_the_end_of_the_value() {
        let src = "a: \"lo,op\", b: (1, (2, 3)), c: x)";
        let at = |col| value_text_at(src, Pos { line: 1, col });
        assert_eq!(at(4).as_deref(), Some("\"lo,op\""));
        assert_eq!(at(16).as_deref(), Some("(1, (2, 3))"));
        assert_eq!(at(32).as_deref(), Some("x"));
        assert_eq!(
            tuple_element("hero.spawn[2]"),
            Some(("hero.spawn".into(), 2))
        );
        assert_eq!(tuple_element("hero.spawn"), None);
    }
}

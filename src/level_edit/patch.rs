//! Writes moved numbers back into the designer's own text: each changed number token is
//! replaced where the field locator finds it, and every other byte (comments, order, spacing,
//! the way other numbers are written) stays as it was.

use crate::level::locate::{FieldMap, Pos};
use crate::level::Level;

use super::element::editable_numbers;

/// A number as the file will hold it: the shortest text that reads back as exactly this `f32`
/// (Rust's `Debug` for floats), always with a decimal point or an exponent.
pub fn format_number(v: f32) -> String {
    format!("{v:?}")
}

/// The numbers edit mode can change that differ between `before` and `after`, by field path.
/// An error when the two levels do not have the same lists (edit mode never adds or removes).
pub fn changed_numbers(before: &Level, after: &Level) -> Result<Vec<(String, f32)>, String> {
    let (a, b) = (editable_numbers(before), editable_numbers(after));
    if a.len() != b.len() || a.iter().zip(&b).any(|(x, y)| x.0 != y.0) {
        return Err("the level's lists changed; only moved numbers can be saved".to_string());
    }
    Ok(a.into_iter()
        .zip(b)
        .filter(|(x, y)| x.1.to_bits() != y.1.to_bits())
        .map(|(_, y)| y)
        .collect())
}

/// Byte offset of a 1-based line and column (columns count characters, as `locate` does).
fn byte_offset(source: &str, pos: Pos) -> Option<usize> {
    let mut line_start = 0;
    for _ in 1..pos.line {
        line_start += source[line_start..].find('\n')? + 1;
    }
    let line = &source[line_start..];
    let col = line
        .char_indices()
        .nth(pos.col.checked_sub(1)?)
        .map(|(i, _)| i)?;
    Some(line_start + col)
}

/// The end of the number token starting at `start`.
fn token_end(source: &str, start: usize) -> usize {
    let rest = &source[start..];
    let len = rest
        .char_indices()
        .find(|&(i, c)| {
            c.is_whitespace() || "()[]{}:,\"'".contains(c) || (i > 0 && rest[i..].starts_with('/'))
        })
        .map_or(rest.len(), |(i, _)| i);
    start + len
}

/// The offset just after the bracket that closes the one at `open` (strings and comments
/// skipped).
fn closing_bracket(source: &str, open: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += source[i + 2..].find("*/").map_or(bytes.len(), |k| k + 3);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// One change of the text: bytes `start..end` become `text`.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

/// Where a changed number goes: over its token, or for a box angle the file leaves to its
/// default, a new `angle_deg` field right after the box's `half_extents`.
fn splice_for(source: &str, fields: &FieldMap, path: &str, value: f32) -> Result<Splice, String> {
    let text = format_number(value);
    if let Some(pos) = fields.exact_position(path) {
        let start = byte_offset(source, pos).ok_or_else(|| format!("{path}: not in the file"))?;
        let end = token_end(source, start);
        if source[start..end].parse::<f64>().is_err() {
            return Err(format!(
                "{path}: `{}` is not a plain number; change it in the file",
                &source[start..end]
            ));
        }
        return Ok(Splice { start, end, text });
    }
    let parent = path.strip_suffix(".angle_deg");
    let extents = parent.and_then(|p| fields.exact_position(&format!("{p}.half_extents")));
    let after = extents
        .and_then(|pos| byte_offset(source, pos))
        .and_then(|open| closing_bracket(source, open));
    match after {
        Some(at) => Ok(Splice {
            start: at,
            end: at,
            text: format!(", angle_deg: {text}"),
        }),
        None => Err(format!("{path}: not found in the file")),
    }
}

/// `source` with the numbers that differ between `before` (the level `source` holds) and
/// `after` written in place. Returns the new text and how many numbers changed.
pub fn patch_level_text(
    source: &str,
    before: &Level,
    after: &Level,
) -> Result<(String, usize), String> {
    let changes = changed_numbers(before, after)?;
    let fields = FieldMap::new(source);
    let mut splices = changes
        .iter()
        .map(|(path, v)| splice_for(source, &fields, path, *v))
        .collect::<Result<Vec<_>, _>>()?;
    splices.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut text = source.to_string();
    for s in splices {
        text.replace_range(s.start..s.end, &s.text);
    }
    Ok((text, changes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_exactly() {
        for v in [3.0f32, -0.0, 12.35, 0.1, -136.64, 1e-7, 98.0] {
            let t = format_number(v);
            assert_eq!(t.parse::<f32>().map(f32::to_bits), Ok(v.to_bits()), "{t}");
            assert!(t.contains('.') || t.contains('e'), "{t}");
        }
        assert_eq!(format_number(12.35), "12.35");
    }

    #[test]
    fn offsets_count_characters_and_brackets_skip_comments() {
        let src = "a\n  é(1, /* ) */ (2)) // )\n";
        // The é before it takes two bytes.
        assert_eq!(byte_offset(src, Pos { line: 2, col: 4 }), Some(6));
        assert_eq!(&src[6..7], "(");
        let close = closing_bracket(src, 6).expect("closes");
        assert_eq!(&src[close - 1..close + 1], ") ");
        assert_eq!(token_end("12.5// x", 0), 4);
        assert_eq!(token_end("-3.0)", 0), 4);
    }
}

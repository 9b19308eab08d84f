//! Writes the level's `placed` list (the build toolbar's things) into the designer's own text,
//! in place: a moved or turned thing gets only its numbers rewritten, a removed one loses its
//! entry (and its line when it stood alone on it), new ones are appended at the end of the list
//! (or in a new `placed` field at the end of the level), and every other byte stays as it was.
//!
//! The text is read with a small lexer of its own that gives byte spans (the field locator
//! gives line and column) and skips comments and strings, so a `]` in a name or a comment is
//! never taken for the list's end. Each step re-reads the text it changed, and the result is
//! parsed back and compared before it is returned.

use std::collections::{HashMap, HashSet};

use crate::level::{Level, Placed};

use super::patch::format_number;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Open,
    Close,
    Colon,
    Comma,
    /// An identifier, a number or anything else up to the next delimiter.
    Word,
    /// A quoted or raw string, or a character.
    Str,
}

/// One token: its byte span and how many brackets enclose it (a bracket does not count itself).
#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
    depth: usize,
}

/// The tokens of a RON text, with each bracket's partner.
struct Tokens<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    /// For a bracket, the index of the one that closes (or opens) it; `usize::MAX` otherwise.
    partner: Vec<usize>,
}

/// Where a line comment starting at `i` ends (at its newline, which is whitespace).
fn line_comment_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |k| i + k)
}

/// Where a block comment starting at `i` ends; they nest, as ron reads them.
fn block_comment_end(b: &[u8], mut i: usize) -> Result<usize, String> {
    let mut depth = 0usize;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Ok(i);
            }
        } else {
            i += 1;
        }
    }
    Err("a block comment is not closed".to_string())
}

/// Where a string or character quoted with `b[i]` ends (escapes skipped).
fn quoted_end(b: &[u8], i: usize) -> Result<usize, String> {
    let quote = b[i];
    let mut k = i + 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            c if c == quote => return Ok(k + 1),
            _ => k += 1,
        }
    }
    Err("a string is not closed".to_string())
}

/// Where a raw string `r#"…"#` starting at `i` ends; None when `r` starts an identifier.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
    let open = i + 1 + hashes;
    if b.get(open) != Some(&b'"') {
        return None;
    }
    let mut closing = vec![b'"'];
    closing.resize(hashes + 1, b'#');
    let k = b[open + 1..]
        .windows(closing.len())
        .position(|w| w == closing.as_slice())?;
    Some(open + 1 + k + closing.len())
}

/// Where a word (identifier, number) starting at `i` ends.
fn word_end(b: &[u8], i: usize) -> usize {
    let mut k = i;
    while k < b.len() {
        let c = b[k];
        let comment = c == b'/' && matches!(b.get(k + 1), Some(b'/') | Some(b'*'));
        if c.is_ascii_whitespace() || b"()[]{}:,\"'".contains(&c) || (k > i && comment) {
            break;
        }
        k += 1;
    }
    k.max(i + 1)
}

fn lex(text: &str) -> Result<Tokens<'_>, String> {
    let b = text.as_bytes();
    let mut toks: Vec<Tok> = Vec::new();
    let mut partner = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let kind = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if b[i..].starts_with(b"//") {
            i = line_comment_end(b, i);
            continue;
        } else if b[i..].starts_with(b"/*") {
            i = block_comment_end(b, i)?;
            continue;
        } else if c == b'"' || c == b'\'' {
            i = quoted_end(b, i)?;
            Kind::Str
        } else if let Some(end) = (c == b'r').then(|| raw_string_end(b, i)).flatten() {
            i = end;
            Kind::Str
        } else {
            i = word_end(b, i);
            match c {
                b'(' | b'[' | b'{' => Kind::Open,
                b')' | b']' | b'}' => Kind::Close,
                b':' => Kind::Colon,
                b',' => Kind::Comma,
                _ => Kind::Word,
            }
        };
        let index = toks.len();
        let mut other = usize::MAX;
        if kind == Kind::Close {
            other = open.pop().ok_or("a bracket closes that was never opened")?;
            partner[other] = index;
        }
        toks.push(Tok {
            kind,
            start,
            end: i,
            depth: open.len(),
        });
        partner.push(other);
        if kind == Kind::Open {
            open.push(index);
        }
    }
    if !open.is_empty() {
        return Err("a bracket is not closed".to_string());
    }
    Ok(Tokens {
        text,
        toks,
        partner,
    })
}

/// One element of a list: its first and last token, and the comma after it if any.
#[derive(Debug, Clone, Copy)]
struct Item {
    first: usize,
    last: usize,
    comma: Option<usize>,
}

impl Tokens<'_> {
    fn tok(&self, i: usize) -> Option<Tok> {
        self.toks.get(i).copied()
    }

    fn is(&self, i: usize, kind: Kind) -> bool {
        self.tok(i).is_some_and(|t| t.kind == kind)
    }

    fn src(&self, i: usize) -> &str {
        let t = self.toks[i];
        &self.text[t.start..t.end]
    }

    /// The bracket a value opens (`(`…, or `Name(`…), if it is bracketed.
    fn bracket_of(&self, first: usize) -> Option<usize> {
        if self.is(first, Kind::Open) {
            Some(first)
        } else if self.is(first, Kind::Word) && self.is(first + 1, Kind::Open) {
            Some(first + 1)
        } else {
            None
        }
    }

    /// The last token of the value starting at `first`.
    fn value_last(&self, first: usize) -> usize {
        self.bracket_of(first)
            .map_or(first, |open| self.partner[open])
    }

    /// The fields of the struct whose bracket is `open`: name and first token of the value.
    fn fields(&self, open: usize) -> HashMap<&str, usize> {
        let inner = self.toks[open].depth + 1;
        (open + 1..self.partner[open])
            .filter(|&i| {
                self.toks[i].depth == inner
                    && self.toks[i].kind == Kind::Word
                    && self.is(i + 1, Kind::Colon)
            })
            .map(|i| (self.src(i), i + 2))
            .collect()
    }

    /// The elements of the list whose bracket is `open`.
    fn items(&self, open: usize) -> Vec<Item> {
        let close = self.partner[open];
        let mut out = Vec::new();
        let mut i = open + 1;
        while i < close {
            if self.is(i, Kind::Comma) {
                i += 1;
                continue;
            }
            let last = self.value_last(i);
            let comma = (last + 1 < close && self.is(last + 1, Kind::Comma)).then_some(last + 1);
            out.push(Item {
                first: i,
                last,
                comma,
            });
            i = last + 1;
        }
        out
    }

    /// The bracket of the top-level `Level(…)`: the last one at the top (attributes such as
    /// `#![enable(…)]` come before it).
    fn level_open(&self) -> Result<usize, String> {
        (0..self.toks.len())
            .rev()
            .find(|&i| self.toks[i].kind == Kind::Open && self.toks[i].depth == 0)
            .ok_or_else(|| "the text holds no `Level(…)`".to_string())
    }

    /// The `[` of the top-level `placed` list, if the text has the field.
    fn placed_list(&self) -> Result<Option<usize>, String> {
        let level = self.level_open()?;
        match self.fields(level).get("placed") {
            Some(&v) if self.is(v, Kind::Open) => Ok(Some(v)),
            Some(_) => Err("`placed` is not written as a list".to_string()),
            None => Ok(None),
        }
    }

    /// The placed thing named `name`: its list element and its struct's bracket.
    fn placed_entry(&self, name: &str) -> Result<(Item, usize), String> {
        let list = self.placed_list()?.ok_or("the text has no `placed` list")?;
        for item in self.items(list) {
            let Some(open) = self.bracket_of(item.first) else {
                continue;
            };
            let written = self.fields(open).get("name").map(|&v| self.src(v));
            if written
                .and_then(|s| ron::from_str::<String>(s).ok())
                .as_deref()
                == Some(name)
            {
                return Ok((item, open));
            }
        }
        Err(format!("placed thing `{name}` is not found in the text"))
    }
}

/// One change of the text: bytes `start..end` become `text`.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

/// `text` with the splices (which must not overlap) made.
fn apply(text: &str, mut splices: Vec<Splice>) -> String {
    splices.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut out = text.to_string();
    for s in splices {
        out.replace_range(s.start..s.end, &s.text);
    }
    out
}

fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// The offset of the newline ending the line `pos` is on (or the end of the text).
fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i)
}

fn blank(s: &str) -> bool {
    s.chars().all(|c| c == ' ' || c == '\t' || c == '\r')
}

/// Only spaces and tabs stand before `pos` on its line.
fn starts_line(text: &str, pos: usize) -> bool {
    blank(&text[line_start(text, pos)..pos])
}

/// The spaces and tabs that begin the line `pos` is on.
fn indent_at(text: &str, pos: usize) -> &str {
    let from = line_start(text, pos);
    let rest = &text[from..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

/// The text's line end: CRLF when its first line ends so (the loader keeps CRLF as it is).
fn newline(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `text` without the entry of placed thing `name`: the entry, its separating comma, and its
/// line(s) when nothing else stood on them.
fn remove_entry(text: &str, name: &str) -> Result<String, String> {
    let t = lex(text)?;
    let (item, _) = t.placed_entry(name)?;
    let start = t.toks[item.first].start;
    let end = item.comma.map_or(t.toks[item.last].end, |c| t.toks[c].end);
    let splice = if starts_line(text, start) && blank(&text[end..line_end(text, end)]) {
        // Alone on its line(s): the lines go, newline included; a comma before it stays as a
        // trailing comma, which ron reads.
        let to = line_end(text, end);
        Splice {
            start: line_start(text, start),
            end: (to + 1).min(text.len()),
            text: String::new(),
        }
    } else if item.comma.is_some() {
        // `(a), (b), (c)` loses `(b), `: the spaces after the comma go with it.
        let rest = &text[end..];
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        Splice {
            start,
            end: end + spaces,
            text: String::new(),
        }
    } else {
        // The last entry without a comma: the comma before it goes.
        let before = item.first.checked_sub(1).filter(|&p| t.is(p, Kind::Comma));
        Splice {
            start: before.map_or(start, |p| t.toks[p].start),
            end,
            text: String::new(),
        }
    };
    Ok(apply(text, vec![splice]))
}

/// A number token replaced by `value`, refused when the file writes something else there.
fn number_splice(t: &Tokens, i: usize, value: f32, what: &str) -> Result<Splice, String> {
    let tok = t.toks[i];
    if tok.kind != Kind::Word || t.src(i).parse::<f64>().is_err() {
        return Err(format!(
            "{what}: `{}` is not a plain number; change it in the file",
            t.src(i)
        ));
    }
    Ok(Splice {
        start: tok.start,
        end: tok.end,
        text: format_number(value),
    })
}

/// The entry of `now.name` with the numbers (and kind) that differ from `was` rewritten.
fn rewrite_entry(text: &str, was: &Placed, now: &Placed) -> Result<String, String> {
    let t = lex(text)?;
    let (_, open) = t.placed_entry(&now.name)?;
    let fields = t.fields(open);
    let what = |field: &str| format!("placed thing `{}`: {field}", now.name);
    let mut splices = Vec::new();
    if was.kind != now.kind {
        let v = *fields.get("kind").ok_or_else(|| what("no kind"))?;
        splices.push(Splice {
            start: t.toks[v].start,
            end: t.toks[v].end,
            text: now.kind.key().to_string(),
        });
    }
    let at = *fields.get("at").ok_or_else(|| what("no `at`"))?;
    let close = t.bracket_of(at).map(|o| t.partner[o]);
    let numbers: Vec<usize> = match t.bracket_of(at) {
        Some(o) => (o + 1..t.partner[o])
            .filter(|&i| t.toks[i].depth == t.toks[o].depth + 1 && !t.is(i, Kind::Comma))
            .collect(),
        None => Vec::new(),
    };
    let (Some(close), [x, z]) = (close, numbers.as_slice()) else {
        return Err(what("`at` is not written as (x, z)"));
    };
    for (i, was_v, now_v) in [(*x, was.at.x, now.at.x), (*z, was.at.y, now.at.y)] {
        if was_v.to_bits() != now_v.to_bits() {
            splices.push(number_splice(&t, i, now_v, &what("at"))?);
        }
    }
    if was.heading_deg.to_bits() != now.heading_deg.to_bits() {
        match fields.get("heading_deg") {
            Some(&v) => splices.push(number_splice(&t, v, now.heading_deg, &what("heading_deg"))?),
            // Left to its default of 0: written only when it turns away from it.
            None if now.heading_deg != 0.0 => {
                let after = t.toks[close].end;
                splices.push(Splice {
                    start: after,
                    end: after,
                    text: format!(", heading_deg: {}", format_number(now.heading_deg)),
                });
            }
            None => {}
        }
    }
    Ok(apply(text, splices))
}

/// A placed thing as a new entry writes it.
fn entry_text(p: &Placed) -> Result<String, String> {
    let name = ron::to_string(&p.name).map_err(|e| format!("name `{}`: {e}", p.name))?;
    Ok(format!(
        "(name: {name}, kind: {}, at: ({}, {}), heading_deg: {})",
        p.kind.key(),
        format_number(p.at.x),
        format_number(p.at.y),
        format_number(p.heading_deg)
    ))
}

/// The entries, one per line, each with `indent` before it and a comma and `nl` after it.
fn entry_lines(new: &[&Placed], indent: &str, nl: &str) -> Result<String, String> {
    let mut out = String::new();
    for p in new {
        out.push_str(&format!("{indent}{},{nl}", entry_text(p)?));
    }
    Ok(out)
}

/// Indentation for a list's entries when none shows it: twice a top-level field's (entries sit
/// two levels deep), or 8 spaces.
fn entry_indent(text: &str, field_start: usize) -> String {
    let field = indent_at(text, field_start);
    if starts_line(text, field_start) && !field.is_empty() {
        field.repeat(2)
    } else {
        " ".repeat(8)
    }
}

/// `text` with `new` appended to its `placed` list, the list added when it has none.
fn append_entries(text: &str, new: &[&Placed]) -> Result<String, String> {
    if new.is_empty() {
        return Ok(text.to_string());
    }
    let t = lex(text)?;
    let nl = newline(text);
    let level = t.level_open()?;
    let Some(list) = t.placed_list()? else {
        return add_placed_field(text, &t, level, new, nl);
    };
    let close = t.partner[list];
    let items = t.items(list);
    let field_start = t.toks[list - 2].start;
    let indent = match items.first() {
        Some(i) if starts_line(text, t.toks[i.first].start) => {
            indent_at(text, t.toks[i.first].start).to_string()
        }
        _ => entry_indent(text, field_start),
    };
    let lines = entry_lines(new, &indent, nl)?;
    let close_at = t.toks[close].start;
    let comma_at = items
        .last()
        .filter(|i| i.comma.is_none())
        .map(|i| t.toks[i.last].end);
    let mut splices = Vec::new();
    let insert_at = if starts_line(text, close_at) {
        // `]` on its own line: the entries go on lines of their own before it.
        let at = line_start(text, close_at);
        splices.push(Splice {
            start: at,
            end: at,
            text: lines,
        });
        at
    } else {
        let closing_indent = if starts_line(text, field_start) {
            indent_at(text, field_start)
        } else {
            ""
        };
        let body = lines.trim_end_matches(nl);
        splices.push(Splice {
            start: close_at,
            end: close_at,
            text: format!("{nl}{body}{nl}{closing_indent}"),
        });
        close_at
    };
    if let Some(at) = comma_at {
        if at == insert_at {
            splices[0].text.insert(0, ',');
        } else {
            splices.push(Splice {
                start: at,
                end: at,
                text: ",".to_string(),
            });
        }
    }
    Ok(apply(text, splices))
}

/// `text` with a `placed: [ … ],` field holding `new` added as the last field of the level.
fn add_placed_field(
    text: &str,
    t: &Tokens,
    level: usize,
    new: &[&Placed],
    nl: &str,
) -> Result<String, String> {
    let close = t.partner[level];
    let close_at = t.toks[close].start;
    let field_indent = match t.tok(level + 1) {
        Some(f) if level + 1 < close && starts_line(text, f.start) => {
            indent_at(text, f.start).to_string()
        }
        _ => " ".repeat(4),
    };
    let entry_indent = match field_indent.as_str() {
        "" => " ".repeat(8),
        f => f.repeat(2),
    };
    let field = format!(
        "{field_indent}placed: [{nl}{}{field_indent}],{nl}",
        entry_lines(new, &entry_indent, nl)?
    );
    let mut splices = Vec::new();
    if starts_line(text, close_at) {
        let at = line_start(text, close_at);
        splices.push(Splice {
            start: at,
            end: at,
            text: field,
        });
    } else {
        splices.push(Splice {
            start: close_at,
            end: close_at,
            text: format!("{nl}{field}"),
        });
    }
    // The field before it needs its comma (`Level()` has no field before it).
    let last = close - 1;
    if last != level && !t.is(last, Kind::Comma) {
        let at = t.toks[last].end;
        match splices.iter_mut().find(|s| s.start == at) {
            Some(s) => s.text.insert(0, ','),
            None => splices.push(Splice {
                start: at,
                end: at,
                text: ",".to_string(),
            }),
        }
    }
    Ok(apply(text, splices))
}

/// How the list changes: the things that stay in place (as they were, as they are now), the
/// names whose entries go, and the things appended at the end.
struct Plan<'a> {
    kept: Vec<(&'a Placed, &'a Placed)>,
    removed: Vec<&'a str>,
    appended: Vec<&'a Placed>,
}

fn unique_names(list: &[Placed], which: &str) -> Result<(), String> {
    let mut seen = HashSet::new();
    match list.iter().find(|p| !seen.insert(p.name.as_str())) {
        Some(p) => Err(format!("two placed things {which} are named `{}`", p.name)),
        None => Ok(()),
    }
}

/// Entries keep their place while `after` lists them in the text's order; from the first one
/// out of that order on, `after`'s things are appended (an entry moved in the list is rewritten
/// at the end), so the text always ends up listing exactly `after`.
fn plan<'a>(before: &'a [Placed], after: &'a [Placed]) -> Result<Plan<'a>, String> {
    unique_names(before, "in the file")?;
    unique_names(after, "on screen")?;
    let index: HashMap<&str, usize> = before
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    let mut kept = Vec::new();
    let mut last = None;
    for p in after {
        match index.get(p.name.as_str()) {
            Some(&i) if last.is_none_or(|l| i > l) => {
                last = Some(i);
                kept.push((&before[i], p));
            }
            _ => break,
        }
    }
    let stays: HashSet<&str> = kept.iter().map(|(b, _)| b.name.as_str()).collect();
    Ok(Plan {
        removed: before
            .iter()
            .map(|p| p.name.as_str())
            .filter(|n| !stays.contains(n))
            .collect(),
        appended: after[kept.len()..].iter().collect(),
        kept,
    })
}

/// How many placed things a save from `before` to `after` adds, removes, moves or turns.
pub fn placed_changes(before: &[Placed], after: &[Placed]) -> usize {
    let Ok(plan) = plan(before, after) else {
        return before.len().max(after.len());
    };
    let appended: HashSet<&str> = plan.appended.iter().map(|p| p.name.as_str()).collect();
    plan.kept.iter().filter(|(b, a)| b != a).count()
        + plan.appended.len()
        + plan
            .removed
            .iter()
            .filter(|n| !appended.contains(*n))
            .count()
}

fn parse(text: &str) -> Result<Level, String> {
    ron::from_str::<Level>(text).map_err(|e| e.to_string().replace('\n', " "))
}

/// The file's text with its `placed` list changed from `before` (what `text` holds) to `after`,
/// matching things by name; everything else byte for byte. Err (one line) when the text cannot
/// be changed so, or the result would not load as the original level with `after` placed.
pub fn write_placed(text: &str, before: &[Placed], after: &[Placed]) -> Result<String, String> {
    // Reasons quote the things' names, which may hold anything: shown on one line.
    write_list(text, before, after).map_err(|e| crate::shown::one_line(&e))
}

fn write_list(text: &str, before: &[Placed], after: &[Placed]) -> Result<String, String> {
    let original = parse(text).map_err(|e| format!("the level text does not parse: {e}"))?;
    if original.placed != before {
        return Err("the text's placed things are not the ones it was loaded with".to_string());
    }
    let plan = plan(before, after)?;
    let mut out = text.to_string();
    for name in &plan.removed {
        out = remove_entry(&out, name)?;
    }
    for (was, now) in &plan.kept {
        if was != now {
            out = rewrite_entry(&out, was, now)?;
        }
    }
    out = append_entries(&out, &plan.appended)?;
    let written =
        parse(&out).map_err(|e| format!("the written placed list would not parse: {e}"))?;
    if written.placed != after {
        return Err("the written text would not hold the placed things on screen".to_string());
    }
    let rest = |l: Level| Level {
        placed: Vec::new(),
        ..l
    };
    if rest(written) != rest(original) {
        return Err("writing the placed things would change other fields".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::level::ThingKind;

    const PLAZA: &str = include_str!("../../levels/plaza.ron");
    const CAMERA: &str = "fov_deg: 50.0),\n";

    fn thing(name: &str, kind: ThingKind, x: f32, z: f32, heading_deg: f32) -> Placed {
        Placed {
            name: name.to_string(),
            kind,
            at: Vec2::new(x, z),
            heading_deg,
        }
    }

    /// The plaza with `list` written as its last field.
    fn plaza_with(list: &str) -> String {
        PLAZA.replacen(CAMERA, &format!("{CAMERA}{list}"), 1)
    }

    fn placed_of(text: &str) -> Vec<Placed> {
        ron::from_str::<Level>(text).expect("parses").placed
    }

    const LIST: &str = "    placed: [
        // The stand by the fountain ] (a bracket in a comment)
        (name: \"stand ]) [\", kind: FoodStand, at: (25.0, -20.0)), /* a ) */
        (name: \"bench\", kind: Bench, at: (28.0, -24.0), heading_deg: 90.0),
        (name: \"post\", kind: Bollard, at: (22.0, -25.0)),
    ],
";

    #[test]
    fn a_level_without_placed_gets_the_field_before_its_closing_paren() {
        let stand = thing("stand", ThingKind::FoodStand, 25.0, -20.0, 0.0);
        let text = write_placed(PLAZA, &[], std::slice::from_ref(&stand)).expect("writes");
        let added = "    placed: [
        (name: \"stand\", kind: FoodStand, at: (25.0, -20.0), heading_deg: 0.0),
    ],
";
        assert_eq!(text, plaza_with(added));
        assert_eq!(placed_of(&text), vec![stand]);
        assert_eq!(write_placed(PLAZA, &[], &[]).as_deref(), Ok(PLAZA));
    }

    #[test]
    fn a_last_field_without_comma_gets_one_and_tabs_stay_tabs() {
        let tabbed: String = PLAZA
            .lines()
            .map(|l| {
                let spaces = l.len() - l.trim_start_matches(' ').len();
                format!("{}{}\n", "\t".repeat(spaces / 4), &l[spaces / 4 * 4..])
            })
            .collect();
        let src = tabbed.replacen(CAMERA, "fov_deg: 50.0) /* no comma */\n", 1);
        let post = thing("post", ThingKind::Bollard, 25.0, -20.0, 0.0);
        let text = write_placed(&src, &[], std::slice::from_ref(&post)).expect("writes");
        let expected = tabbed.replacen(
            CAMERA,
            "fov_deg: 50.0), /* no comma */\n\tplaced: [\n\t\t(name: \"post\", kind: Bollard, \
             at: (25.0, -20.0), heading_deg: 0.0),\n\t],\n",
            1,
        );
        assert_eq!(text, expected);
        assert_eq!(placed_of(&text), vec![post]);
    }

    #[test]
    fn a_moved_thing_gets_only_its_numbers_rewritten() {
        let src = plaza_with(LIST);
        let before = placed_of(&src);
        let mut after = before.clone();
        after[0].at = Vec2::new(25.5, -20.0);
        after[0].heading_deg = 15.0;
        after[1].heading_deg = 0.0;
        after[2].at.y = -25.5;
        let text = write_placed(&src, &before, &after).expect("writes");
        let expected = src
            .replacen(
                "(25.0, -20.0)), /*",
                "(25.5, -20.0), heading_deg: 15.0), /*",
                1,
            )
            .replacen("heading_deg: 90.0)", "heading_deg: 0.0)", 1)
            .replacen("(22.0, -25.0))", "(22.0, -25.5))", 1);
        assert_eq!(text, expected);
        // Turned back to 0, a heading the file leaves out stays out.
        let mut back = after.clone();
        back[2].heading_deg = -0.0;
        assert_eq!(
            write_placed(&text, &after, &back).as_deref(),
            Ok(text.as_str())
        );
    }

    #[test]
    fn a_removed_thing_takes_its_line_and_nothing_else() {
        let src = plaza_with(LIST);
        let before = placed_of(&src);
        let bench_line =
            "        (name: \"bench\", kind: Bench, at: (28.0, -24.0), heading_deg: 90.0),\n";
        let text = write_placed(&src, &before, &[before[0].clone(), before[2].clone()]);
        assert_eq!(text, Ok(src.replacen(bench_line, "", 1)));
        // The first one shares its line with a comment: the entry and its comma go, the comment
        // stays.
        let text = write_placed(&src, &before, &before[1..]).expect("writes");
        assert_eq!(
            text,
            src.replacen(
                "(name: \"stand ]) [\", kind: FoodStand, at: (25.0, -20.0)), ",
                "",
                1
            )
        );
        let text = write_placed(&src, &before, &[]).expect("writes");
        assert_eq!(placed_of(&text), vec![]);
        assert!(text.contains("// The stand by the fountain ]"), "{text}");
    }

    #[test]
    fn new_things_are_appended_at_the_lists_indent() {
        let src = plaza_with(LIST);
        let before = placed_of(&src);
        let mut after = before.clone();
        let name = "board \"north\" ] \\ é";
        after.push(thing(name, ThingKind::InformationBoard, 30.0, -18.0, -45.0));
        let text = write_placed(&src, &before, &after).expect("writes");
        let line = format!(
            "        (name: {}, kind: InformationBoard, at: (30.0, -18.0), heading_deg: -45.0),\n",
            ron::to_string(name).expect("a string")
        );
        let post = "        (name: \"post\", kind: Bollard, at: (22.0, -25.0)),\n";
        assert_eq!(text, src.replacen(post, &format!("{post}{line}"), 1));
        assert_eq!(placed_of(&text), after);
    }

    #[test]
    fn inline_lists_keep_their_commas_right() {
        let inline = "    placed: [(name: \"a\", kind: Bollard, at: (1.0, 2.0)), (name: \"b\", kind: Bollard, at: (3.0, 2.0)), (name: \"c\", kind: Bollard, at: (5.0, 2.0))],\n";
        let src = plaza_with(inline);
        let before = placed_of(&src);
        let middle = write_placed(&src, &before, &[before[0].clone(), before[2].clone()]);
        assert_eq!(
            middle,
            Ok(src.replacen("(name: \"b\", kind: Bollard, at: (3.0, 2.0)), ", "", 1))
        );
        let last = write_placed(&src, &before, &before[..2]);
        assert_eq!(
            last,
            Ok(src.replacen(", (name: \"c\", kind: Bollard, at: (5.0, 2.0))", "", 1))
        );
        let mut after = before[..2].to_vec();
        after.push(thing("d", ThingKind::Planter, 7.0, 2.0, 0.0));
        let text = write_placed(&src, &before, &after).expect("writes");
        assert_eq!(
            text,
            src.replacen(
                ", (name: \"c\", kind: Bollard, at: (5.0, 2.0))],",
                ",\n        (name: \"d\", kind: Planter, at: (7.0, 2.0), heading_deg: 0.0),\n    ],",
                1
            )
        );
        let empty = plaza_with("    placed: [],\n");
        let text = write_placed(&empty, &[], &after[2..]).expect("writes");
        assert_eq!(placed_of(&text), after[2..]);
        assert!(text.contains("placed: [\n        (name: \"d\""), "{text}");
    }

    #[test]
    fn crlf_files_get_crlf_lines() {
        let src = plaza_with(LIST).replace('\n', "\r\n");
        let before = placed_of(&src);
        let mut after = before[1..].to_vec();
        after.push(thing("new", ThingKind::Fence, 30.0, -28.0, 90.0));
        let text = write_placed(&src, &before, &after).expect("writes");
        assert_eq!(placed_of(&text), after);
        assert!(
            !text.replace("\r\n", "").contains('\n'),
            "every line ends in CRLF"
        );
        assert!(text.contains(
            "(name: \"new\", kind: Fence, at: (30.0, -28.0), heading_deg: 90.0),\r\n    ],\r\n"
        ));
        let plain = write_placed(&PLAZA.replace('\n', "\r\n"), &[], &after).expect("writes");
        assert_eq!(plain.matches('\n').count(), plain.matches("\r\n").count());
    }

    #[test]
    fn a_thing_moved_in_the_list_is_rewritten_at_the_end() {
        let src = plaza_with(LIST);
        let before = placed_of(&src);
        let after = vec![before[1].clone(), before[0].clone(), before[2].clone()];
        let text = write_placed(&src, &before, &after).expect("writes");
        assert_eq!(placed_of(&text), after);
        assert_eq!(placed_changes(&before, &after), 2);
    }

    #[test]
    fn changes_are_counted_and_bad_input_refused() {
        let a = thing("a", ThingKind::Bench, 1.0, 1.0, 0.0);
        let b = thing("b", ThingKind::Bench, 5.0, 1.0, 0.0);
        let mut moved = a.clone();
        moved.at.x = 2.0;
        assert_eq!(
            placed_changes(&[a.clone(), b.clone()], &[a.clone(), b.clone()]),
            0
        );
        assert_eq!(placed_changes(&[a.clone(), b.clone()], &[moved.clone()]), 2);
        assert_eq!(placed_changes(&[], &[a.clone(), b.clone()]), 2);
        let e =
            write_placed(PLAZA, std::slice::from_ref(&a), &[]).expect_err("the text holds none");
        assert!(!e.contains('\n'), "{e}");
        let e = write_placed(PLAZA, &[], &[a.clone(), a.clone()]).expect_err("same name twice");
        assert!(e.contains("named `a`"), "{e}");
        let mut odd = a.clone();
        odd.name = "two\nlines".to_string();
        let e = write_placed(PLAZA, &[], &[odd.clone(), odd]).expect_err("same name twice");
        assert!(e.ends_with("named `two\\nlines`"), "one line: {e}");
        assert!(write_placed("Level(", &[], &[a]).is_err());
    }

    #[test]
    fn the_lexer_skips_comments_and_strings() {
        let t = lex("(a: \"]\", /* ( /* ) */ ] */ b: r#\"\")\"# // )\n, c: 'x')").expect("lexes");
        assert_eq!(t.partner[0], t.toks.len() - 1);
        let fields = t.fields(0);
        assert_eq!(fields.len(), 3);
        assert_eq!(t.src(fields["b"]), "r#\"\")\"#");
        assert!(lex("(a: \"open").is_err());
        assert!(lex("(a: (1.0)").is_err());
    }
}

//! Names from outside (file names, paths) as messages show them: one line, nothing a terminal
//! would act on. A file may be called anything but `/` and NUL, newlines and escape sequences
//! included; printed raw, such a name splits one message into two lines or drives the terminal.
//! JSON output keeps names as data (its own escaping is exact); only text output goes through
//! here.

/// `text` with every control character (C0, DEL, C1: newline, escape, CSI, ...) and every
/// bidirectional-text control written as a Rust escape (`\n`, `\u{1b}`, `\u{202e}`), and a
/// backslash doubled, so the shown name is unambiguous. Plain names come back unchanged.
pub fn shown(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Message text (which may quote a name or a path) on one line: control and bidirectional
/// characters escaped as in [`shown`], backslashes kept (messages already escape what they
/// quote from a file).
pub fn one_line(text: &str) -> String {
    if !text.chars().any(|c| c != '\\' && needs_escape(c)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c != '\\' && needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A path as [`shown`] writes it.
pub fn shown_path(path: &std::path::Path) -> String {
    shown(&path.display().to_string())
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || c == '\\'
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_bidi_controls_are_escaped_and_plain_names_kept() {
        assert_eq!(shown("levels/plaza.ron"), "levels/plaza.ron");
        assert_eq!(shown("a\nb.ron"), "a\\nb.ron");
        assert_eq!(shown("x\u{1b}[31mred.ron"), "x\\u{1b}[31mred.ron");
        assert_eq!(shown("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(shown("evil\u{202e}nor.ron"), "evil\\u{202e}nor.ron");
        assert_eq!(shown("tab\there"), "tab\\there");
        assert_eq!(shown("back\\slash"), "back\\\\slash");
        assert_eq!(shown("café ☕.ron"), "café ☕.ron");
        assert_eq!(
            one_line("looked in /tmp/a\nb, \\n kept"),
            "looked in /tmp/a\\nb, \\n kept"
        );
    }
}

use std::fmt;

/// An import failure: which file, and which element of it, in words a designer can act on.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub file: String,
    pub message: String,
}

/// The longest message kept: parts of the file quoted in a message (names, JSON excerpts, lists
/// of problems) must not turn one line into a page.
pub const MAX_MESSAGE_CHARS: usize = 400;

impl ImportError {
    pub fn new(file: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            message: one_short_line(&message.into()),
        }
    }
}

/// Control characters escaped (one line stays one line) and at most [`MAX_MESSAGE_CHARS`],
/// saying how much was cut.
fn one_short_line(message: &str) -> String {
    let total = message.chars().count();
    let mut out: String = message
        .chars()
        .take(MAX_MESSAGE_CHARS)
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if total > MAX_MESSAGE_CHARS {
        out.push_str(&format!(
            "... ({} more characters cut)",
            total - MAX_MESSAGE_CHARS
        ));
    }
    out
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for ImportError {}

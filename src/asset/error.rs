use std::fmt;

/// An import failure: which file, and which element of it, in words a designer can act on.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub file: String,
    pub message: String,
}

impl ImportError {
    pub fn new(file: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for ImportError {}

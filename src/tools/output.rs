//! The command-line tools' own output. `println!` panics when stdout is a pipe whose reader has
//! gone (`throng inspect MODEL | head`); a reader that stops early is not an error, so here it
//! ends the output quietly, and any other write failure is returned to be reported.

use std::io::{self, Write};

/// Writes `text` and a newline to stdout. `Ok` when the reader closed the pipe early.
pub fn print_line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let written = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    quiet_broken_pipe(written)
}

/// Writes one line to stderr; a closed stderr leaves nowhere to say anything, so it is ignored.
pub fn print_error(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// `Ok` for a broken pipe, the error otherwise.
pub fn quiet_broken_pipe(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_pipe_is_quiet() {
        let broken = io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(quiet_broken_pipe(Err(broken)).is_ok());
        let full = io::Error::other("no space left on device");
        assert_eq!(
            quiet_broken_pipe(Err(full)).unwrap_err().to_string(),
            "no space left on device"
        );
    }
}

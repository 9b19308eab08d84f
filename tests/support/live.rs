//! A game (or any child process) that runs while the test talks to it: its stdout and stderr
//! are read line by line as they come, and the test waits for the line it expects before its
//! next step. Nothing here waits for a time: the only clock is a generous deadline that fails a
//! run that is truly stuck, so a slow or busy machine only makes the test slower.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::Display;

/// Long enough for a cold start of the real game under a software renderer on a machine with
/// every core busy several times over; only a hung run reaches it.
pub const STUCK_AFTER: Duration = Duration::from_secs(600);

/// Which stream a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

pub struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Stream, String)>,
    /// Every line read so far, in the order they arrived.
    pub seen: Vec<(Stream, String)>,
}

impl Live {
    /// Starts the throng binary with `args` (and `--until-stdin-closes`, so [`Live::finish`]
    /// ends it) in a window on `display`, from the project root.
    pub fn throng(display: &Display, args: &[&str]) -> Live {
        let mut cmd = super::throng_command(display);
        cmd.args(args).arg("--until-stdin-closes");
        Live::spawn(cmd)
    }

    /// Starts `cmd` with all three standard streams piped.
    pub fn spawn(mut cmd: Command) -> Live {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the program starts");
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().expect("stdout");
        let err = child.stderr.take().expect("stderr");
        for (stream, pipe) in [
            (Stream::Out, Box::new(out) as Box<dyn std::io::Read + Send>),
            (Stream::Err, Box::new(err)),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    let _ = tx.send((stream, line));
                }
            });
        }
        Live {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one satisfies `wanted` and returns it; `what` names it in the failure
    /// when the program exits or is stuck first.
    pub fn wait_for(&mut self, what: &str, wanted: impl Fn(Stream, &str) -> bool) -> String {
        let started = Instant::now();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(1)) {
                Ok((stream, line)) => {
                    let hit = wanted(stream, &line);
                    self.seen.push((stream, line.clone()));
                    if hit {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().ok();
                    panic!(
                        "the program ended ({status:?}) before {what}:\n{}",
                        self.transcript()
                    );
                }
                Err(RecvTimeoutError::Timeout) if started.elapsed() > STUCK_AFTER => {
                    let _ = self.child.kill();
                    panic!(
                        "no {what} after {STUCK_AFTER:?}: the program is stuck\n{}",
                        self.transcript()
                    );
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Writes a line to the program's standard input.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("write to the program's stdin");
    }

    /// Closes standard input (`--until-stdin-closes` then quits after the current frame),
    /// waits for the program to exit and reads the rest of its output.
    pub fn finish(mut self) -> (ExitStatus, Vec<(Stream, String)>) {
        drop(self.stdin.take());
        let started = Instant::now();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(1)) {
                Ok(l) => self.seen.push(l),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) if started.elapsed() > STUCK_AFTER => {
                    let _ = self.child.kill();
                    panic!(
                        "the program did not quit {STUCK_AFTER:?} after its stdin closed\n{}",
                        self.transcript()
                    );
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
        let status = self.child.wait().expect("the program exits");
        (status, std::mem::take(&mut self.seen))
    }

    /// The lines so far, each marked with its stream, for failure messages.
    pub fn transcript(&self) -> String {
        transcript(&self.seen)
    }
}

/// Lines marked with their stream, one per line.
pub fn transcript(lines: &[(Stream, String)]) -> String {
    lines
        .iter()
        .map(|(s, l)| format!("{}: {l}", if *s == Stream::Out { "out" } else { "err" }))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Drop for Live {
    fn drop(&mut self) {
        // A test that panicked mid-way must not leave a game (and its Xvfb) running.
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

//! `--until-stdin-closes`: the game plays until its standard input reaches end of file, then
//! quits as `--frames` would (stats, screenshot). A script that drives the game (a test editing
//! the level while it runs) ends it once it has seen what it waited for, instead of guessing
//! beforehand how many seconds that will take on a machine of unknown speed.

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set once standard input has closed (or failed: a script that cannot talk to us has gone).
#[derive(Clone)]
pub struct StdinClosed(Arc<AtomicBool>);

impl StdinClosed {
    /// Starts a thread that reads (and ignores) standard input until it closes.
    pub fn watch() -> StdinClosed {
        let flag = Arc::new(AtomicBool::new(false));
        let set = Arc::clone(&flag);
        std::thread::spawn(move || {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin().lock();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
            set.store(true, Ordering::Release);
        });
        StdinClosed(flag)
    }

    pub fn closed(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

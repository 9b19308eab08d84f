//! Time and peak-heap budgets for fuzz cases: a counting `#[global_allocator]` and
//! [`measure`], which runs a closure and reports how much CPU time it took and how much heap it held at
//! its peak above what was live when it started.
//!
//! Include it only from the test binaries that measure (the fuzzers), next to `mod support;` (its
//! CPU clock), so the others keep the plain system allocator:
//!
//! ```ignore
//! mod support;
//! #[path = "support/budget.rs"]
//! mod budget;
//!
//! let (value, usage) = budget::measure(|| work());
//! usage.check("case 12 of Fox.glb", budget::DEFAULT)?; // Err names the case and the overrun
//! ```
//!
//! Counting is process-wide (all threads), so work on helper threads is counted too;
//! measurements are serialised by a lock, and allocations of other tests of the same binary
//! that run outside `measure` at the same time add to the figure (keep a fuzz binary's heavy
//! work inside `measure`).
//!
//! While a measurement runs, an allocation that would take its peak past the hard cap is
//! refused: the process then aborts with Rust's "memory allocation of N bytes failed", after a
//! line on stderr from here, instead of the machine paging a runaway allocation in. The cap
//! is well above the budget so a case that merely overruns is reported by [`Usage::check`].
#![allow(dead_code)]

// The binaries that measure also have `mod support;`: one copy of the CPU clock per binary.
#[allow(unused_imports)]
pub use crate::support::cpu::thread_cpu_time;

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The budgets of a fuzz case, as the project's hardening rule states them.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub time: Duration,
    pub peak_bytes: usize,
}

/// 2 s and 256 MiB per case.
pub const DEFAULT: Budget = Budget {
    time: Duration::from_secs(2),
    peak_bytes: 256 << 20,
};

/// During [`measure`], allocations past this many bytes above the starting live heap are
/// refused (the process aborts).
pub const HARD_CAP_BYTES: usize = 1 << 30;

/// What one measured closure used.
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    /// Wall time, for reports only: other processes on a busy machine stretch it.
    pub elapsed: Duration,
    /// CPU time of the calling thread, which the time budget is judged by: the loaders measured
    /// here run on that thread, and a busy machine does not stretch it.
    pub cpu: Duration,
    /// The highest live heap during the closure, minus the live heap when it started.
    pub peak_bytes: usize,
}

impl Usage {
    /// `Err` naming `what` and the overrun when this usage is over `budget`.
    pub fn check(&self, what: &str, budget: Budget) -> Result<(), String> {
        if self.cpu > budget.time {
            return Err(format!(
                "{what}: took {:.2} s of CPU, budget {:.2} s",
                self.cpu.as_secs_f64(),
                budget.time.as_secs_f64()
            ));
        }
        if self.peak_bytes > budget.peak_bytes {
            return Err(format!(
                "{what}: peak heap {} MiB, budget {} MiB",
                self.peak_bytes >> 20,
                budget.peak_bytes >> 20
            ));
        }
        Ok(())
    }
}

/// Runs `f`, returning its value and its [`Usage`]. A panic in `f` passes through (after the
/// measurement is closed), so callers that expect panics wrap `f`'s body in `catch_unwind`.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let base = LIVE.load(Ordering::SeqCst);
    BASE.store(base, Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let closer = Closer;
    CAPPED.store(true, Ordering::SeqCst);
    let start = Instant::now();
    let (value, cpu) = thread_cpu_time(f);
    let elapsed = start.elapsed();
    drop(closer);
    let peak_bytes = PEAK.load(Ordering::SeqCst).saturating_sub(base);
    (
        value,
        Usage {
            elapsed,
            cpu,
            peak_bytes,
        },
    )
}

/// The live heap of the whole process now, in bytes.
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::SeqCst)
}

/// Lifts the cap when `measure` ends, by return or by panic.
struct Closer;

impl Drop for Closer {
    fn drop(&mut self) {
        CAPPED.store(false, Ordering::SeqCst);
    }
}

static MEASURING: Mutex<()> = Mutex::new(());
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static BASE: AtomicUsize = AtomicUsize::new(0);
static CAPPED: AtomicBool = AtomicBool::new(false);

struct Counting;

#[global_allocator]
static COUNTING: Counting = Counting;

impl Counting {
    /// Books `grow` more live bytes; false (and nothing booked) when the cap refuses them.
    fn book(&self, grow: usize) -> bool {
        let live = LIVE.fetch_add(grow, Ordering::SeqCst) + grow;
        if CAPPED.load(Ordering::SeqCst)
            && live.saturating_sub(BASE.load(Ordering::SeqCst)) > HARD_CAP_BYTES
        {
            LIVE.fetch_sub(grow, Ordering::SeqCst);
            refused(grow);
            return false;
        }
        PEAK.fetch_max(live, Ordering::SeqCst);
        true
    }
}

/// One line on stderr without allocating (we are inside the allocator).
fn refused(size: usize) {
    let mut line = [0u8; 96];
    let mut cursor = std::io::Cursor::new(&mut line[..]);
    let _ = writeln!(
        cursor,
        "budget: refused an allocation of {size} bytes (hard cap {HARD_CAP_BYTES})"
    );
    let n = cursor.position() as usize;
    let _ = std::io::stderr().write_all(&line[..n]);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes,
// and a refused allocation returns null, which `GlobalAlloc` allows.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !self.book(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc(layout);
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !self.book(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !self.book(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            if new_size > old {
                LIVE.fetch_sub(new_size - old, Ordering::SeqCst);
            }
        } else if new_size < old {
            LIVE.fetch_sub(old - new_size, Ordering::SeqCst);
        }
        p
    }
}

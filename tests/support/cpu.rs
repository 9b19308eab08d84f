//! CPU time of the calling thread, for tests that prove work was refused before it was done:
//! other processes on a busy machine stretch wall time, not the time this thread ran.

use std::time::Duration;

/// Runs `f` and returns its value with the CPU time this thread spent in it. Only meaningful
/// for work that stays on the calling thread (the loaders and bakers it is used on spawn none).
pub fn thread_cpu_time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let before = now();
    let value = f();
    (value, now().saturating_sub(before))
}

fn now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

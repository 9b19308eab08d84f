//! The wall clock the game measures with. On the desktop it is `std::time::Instant`; on the web
//! (`wasm32-unknown-unknown`) `Instant::now()` panics, so there it is the browser's clock read
//! through the page's `now` import, which miniquad's `gl.js` provides (`Date.now() / 1000`; the
//! same function miniquad's own `date::now` calls, declared here so this GL-free module does not
//! depend on the window crate). Both answer the same questions
//! (`now`, `elapsed`, `duration_since`, subtraction), so callers import this one type.

#[cfg(not(target_arch = "wasm32"))]
pub use std::time::Instant;

#[cfg(target_arch = "wasm32")]
pub use web::Instant;

#[cfg(target_arch = "wasm32")]
mod web {
    use std::time::Duration;

    extern "C" {
        fn now() -> f64;
    }

    /// A moment on the page's clock, in seconds.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        pub fn now() -> Instant {
            // SAFETY: `now` is a plain JavaScript function of no arguments returning a number.
            Instant(unsafe { now() })
        }

        /// Zero when `earlier` is later (the browser clock may be adjusted).
        pub fn duration_since(&self, earlier: Instant) -> Duration {
            Duration::from_secs_f64((self.0 - earlier.0).max(0.0))
        }

        pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }

        pub fn elapsed(&self) -> Duration {
            Instant::now().duration_since(*self)
        }
    }

    impl std::ops::Sub for Instant {
        type Output = Duration;
        fn sub(self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }
    }

    impl std::ops::Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            Instant(self.0 + d.as_secs_f64())
        }
    }
}

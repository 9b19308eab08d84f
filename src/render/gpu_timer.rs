//! GPU time of the world passes through GL timer queries (GL_TIME_ELAPSED, core since GL 3.3),
//! read a few frames late so the CPU never waits for the GPU. A query not answered yet is
//! "pending", never a 0. miniquad's `ElapsedQuery` is a stub on desktop GL, hence raw calls.

use macroquad::miniquad::gl;

/// Queries in flight: results arrive a frame or two after the draw.
const RING: usize = 3;

/// What the timer can say this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GpuTime {
    Unsupported,
    Pending,
    Millis(f64),
}

pub struct GpuTimer {
    ids: [gl::GLuint; RING],
    in_flight: [bool; RING],
    next: usize,
    last: Option<f64>,
    supported: bool,
}

impl GpuTimer {
    /// Needs the window's GL context current.
    pub fn for_current_context() -> Self {
        let mut ids = [0; RING];
        // WebGL2 times the GPU only through an extension SwiftShader and most browsers leave
        // out (EXT_disjoint_timer_query_webgl2), and miniquad's gl.js has no way to ask for it:
        // the web build reports the timer as unsupported (the panel says so).
        let supported = !cfg!(target_arch = "wasm32")
            && unsafe {
                while gl::glGetError() != 0 {}
                gl::glGenQueries(RING as gl::GLsizei, ids.as_mut_ptr());
                gl::glGetError() == 0 && ids.iter().all(|&id| id != 0)
            };
        GpuTimer {
            ids,
            in_flight: [false; RING],
            next: 0,
            last: None,
            supported,
        }
    }

    /// Starts timing unless the slot's previous query is still unanswered (then this frame is
    /// simply not measured). Returns whether `end` must be called.
    pub fn begin(&mut self) -> bool {
        if !self.supported || self.in_flight[self.next] {
            return false;
        }
        unsafe { gl::glBeginQuery(gl::GL_TIME_ELAPSED, self.ids[self.next]) };
        true
    }

    pub fn end(&mut self) {
        unsafe { gl::glEndQuery(gl::GL_TIME_ELAPSED) };
        self.in_flight[self.next] = true;
        self.next = (self.next + 1) % RING;
    }

    /// Collects answered queries; the newest answer is the reading.
    pub fn poll(&mut self) -> GpuTime {
        if !self.supported {
            return GpuTime::Unsupported;
        }
        for k in 0..RING {
            if !self.in_flight[k] {
                continue;
            }
            let mut available: gl::GLint = 0;
            unsafe {
                gl::glGetQueryObjectiv(self.ids[k], gl::GL_QUERY_RESULT_AVAILABLE, &mut available)
            };
            if available != 0 {
                let mut nanos: gl::GLuint64 = 0;
                unsafe { gl::glGetQueryObjectui64v(self.ids[k], gl::GL_QUERY_RESULT, &mut nanos) };
                self.last = Some(nanos as f64 / 1.0e6);
                self.in_flight[k] = false;
            }
        }
        self.last.map_or(GpuTime::Pending, GpuTime::Millis)
    }
}

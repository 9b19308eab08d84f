//! Antialiasing for the main pass: the world is drawn into a multisampled colour and depth
//! target the size of the screen, then resolved onto the window's framebuffer with one blit
//! (miniquad offers multisampled render textures but no resolve onto the window). It can be
//! switched every frame: off, the pass draws straight into the window as before.

use macroquad::miniquad::gl;
use macroquad::miniquad::{
    FilterMode, PassAction, RenderPass, RenderingBackend, TextureFormat, TextureKind,
    TextureParams, TextureWrap,
};

const GL_MAX_SAMPLES: u32 = 0x8D57;
/// Four samples: what every GL 3.3 driver must offer (and llvmpipe does).
pub const SAMPLES: i32 = 4;

/// The samples the driver allows, capped at `SAMPLES` (0 or 1: no multisampling).
pub fn supported_samples() -> i32 {
    let mut max: gl::GLint = 0;
    // SAFETY: a plain query on the current context.
    unsafe { gl::glGetIntegerv(GL_MAX_SAMPLES, &mut max) };
    max.min(SAMPLES)
}

/// The framebuffer bound now (the window's, between passes).
pub fn bound_framebuffer() -> u32 {
    let mut fb: gl::GLint = 0;
    // SAFETY: a plain query on the current context.
    unsafe { gl::glGetIntegerv(gl::GL_FRAMEBUFFER_BINDING, &mut fb) };
    fb.max(0) as u32
}

/// The multisampled target, rebuilt when the screen size changes.
pub struct MsaaTarget {
    pub pass: RenderPass,
    width: u32,
    height: u32,
}

impl MsaaTarget {
    fn new(ctx: &mut dyn RenderingBackend, width: u32, height: u32, samples: i32) -> Self {
        let params = |format| TextureParams {
            kind: TextureKind::Texture2D,
            format,
            wrap: TextureWrap::Clamp,
            min_filter: FilterMode::Nearest,
            mag_filter: FilterMode::Nearest,
            width,
            height,
            sample_count: samples,
            ..Default::default()
        };
        let color = ctx.new_render_texture(params(TextureFormat::RGBA8));
        let depth = ctx.new_render_texture(params(TextureFormat::Depth32));
        MsaaTarget {
            pass: ctx.new_render_pass(color, Some(depth)),
            width,
            height,
        }
    }

    /// A target of `size` pixels: the kept one, or a new one when the size changed. None when
    /// the driver cannot complete a multisampled framebuffer (the caller stops asking).
    pub fn ensure(
        slot: &mut Option<MsaaTarget>,
        ctx: &mut dyn RenderingBackend,
        size: (f32, f32),
        samples: i32,
    ) -> Option<RenderPass> {
        let (w, h) = (size.0.max(1.0) as u32, size.1.max(1.0) as u32);
        if let Some(t) = slot.as_ref().filter(|t| (t.width, t.height) == (w, h)) {
            return Some(t.pass);
        }
        if let Some(old) = slot.take() {
            // Deletes the attached colour and depth storage too.
            ctx.delete_render_pass(old.pass);
        }
        let target = MsaaTarget::new(ctx, w, h, samples);
        if !target.complete(ctx) {
            ctx.delete_render_pass(target.pass);
            eprintln!(
                "throng: the driver cannot draw {samples}x multisampled; antialiasing is off"
            );
            return None;
        }
        Some(slot.insert(target).pass)
    }

    /// Whether GL accepts the target's framebuffer (checked once, when it is made).
    fn complete(&self, ctx: &mut dyn RenderingBackend) -> bool {
        ctx.begin_pass(Some(self.pass), PassAction::Nothing);
        // SAFETY: a plain query on the framebuffer the pass just bound.
        let status = unsafe { gl::glCheckFramebufferStatus(gl::GL_FRAMEBUFFER) };
        ctx.end_render_pass();
        status == gl::GL_FRAMEBUFFER_COMPLETE
    }

    /// Resolves the target (bound now, as the current pass) onto framebuffer `screen`. Call
    /// before `end_render_pass`.
    pub fn resolve_onto(&self, screen: u32) {
        let (w, h) = (self.width as i32, self.height as i32);
        // SAFETY: both framebuffers exist and are complete; the sizes are the target's.
        unsafe {
            let source = bound_framebuffer();
            gl::glDisable(gl::GL_SCISSOR_TEST);
            gl::glBindFramebuffer(gl::GL_READ_FRAMEBUFFER, source);
            gl::glBindFramebuffer(gl::GL_DRAW_FRAMEBUFFER, screen);
            gl::glBlitFramebuffer(
                0,
                0,
                w,
                h,
                0,
                0,
                w,
                h,
                gl::GL_COLOR_BUFFER_BIT,
                gl::GL_NEAREST,
            );
            gl::glBindFramebuffer(gl::GL_FRAMEBUFFER, source);
        }
    }
}

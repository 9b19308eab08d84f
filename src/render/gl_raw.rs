//! What miniquad does not offer: GL limits and RGBA32F textures, through raw GL calls.
//! Every function here needs the window's GL context to be current (call from the render loop).

use macroquad::miniquad::gl;
use macroquad::miniquad::{RawId, TextureId};

const GL_MAX_VERTEX_UNIFORM_VECTORS: u32 = 0x8DFB;
const GL_RENDERER: u32 = 0x1F01;

/// The driver's renderer string (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"), for the benchmark's
/// metadata; "unknown" when the driver answers nothing.
pub fn renderer_name() -> String {
    // SAFETY: glGetString returns null or a static NUL-terminated string owned by the driver.
    let name = unsafe { gl::glGetString(GL_RENDERER) };
    if name.is_null() {
        return "unknown".into();
    }
    let name = unsafe { std::ffi::CStr::from_ptr(name as *const std::ffi::c_char) };
    name.to_string_lossy().trim().to_string()
}

/// Blocks until every GL command issued so far has finished (the benchmark times this wait
/// on its own, so the GPU's share of a frame is named rather than hidden in the swap).
pub fn finish() {
    // SAFETY: glFinish takes no arguments; the context is current on the render loop.
    unsafe { gl::glFinish() };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlLimits {
    /// vec4 slots a vertex shader's uniforms may use (GL 3.3 guarantees 256).
    pub max_vertex_uniform_vectors: u32,
    pub max_texture_size: u32,
}

pub fn query_limits() -> GlLimits {
    let mut vectors: gl::GLint = 0;
    let mut texture: gl::GLint = 0;
    unsafe {
        gl::glGetIntegerv(GL_MAX_VERTEX_UNIFORM_VECTORS, &mut vectors);
        gl::glGetIntegerv(gl::GL_MAX_TEXTURE_SIZE, &mut texture);
    }
    GlLimits {
        // A driver that answers nothing gets the GL 3.3 minimums.
        max_vertex_uniform_vectors: if vectors > 0 { vectors as u32 } else { 256 },
        max_texture_size: if texture > 0 { texture as u32 } else { 2048 },
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FloatFormat {
    /// Exact: what the animation texture needs for bit-exact matrices.
    Rgba32F,
    /// Fallback where RGBA32F is refused: about 3 significant digits.
    Rgba16F,
}

/// A float RGBA texture sampled with texelFetch (nearest, clamp, no mipmaps).
pub struct FloatTexture {
    raw: gl::GLuint,
    pub id: TextureId,
    pub width: u32,
    pub height: u32,
    pub format: FloatFormat,
}

impl FloatTexture {
    /// Uploads `texels` (4 floats each, rows bottom-up as GL expects) as RGBA32F, falling back to
    /// RGBA16F if the driver refuses.
    pub fn new(width: u32, height: u32, texels: &[f32]) -> Result<FloatTexture, String> {
        let needed = width as usize * height as usize * 4;
        if texels.len() != needed {
            return Err(format!(
                "float texture {width}x{height} needs {needed} floats, got {}",
                texels.len()
            ));
        }
        for format in [FloatFormat::Rgba32F, FloatFormat::Rgba16F] {
            let internal = match format {
                FloatFormat::Rgba32F => gl::GL_RGBA32F,
                FloatFormat::Rgba16F => gl::GL_RGBA16F,
            };
            let mut raw: gl::GLuint = 0;
            let ok = unsafe {
                while gl::glGetError() != 0 {}
                gl::glGenTextures(1, &mut raw);
                gl::glBindTexture(gl::GL_TEXTURE_2D, raw);
                gl::glPixelStorei(gl::GL_UNPACK_ALIGNMENT, 4);
                gl::glTexImage2D(
                    gl::GL_TEXTURE_2D,
                    0,
                    internal as gl::GLint,
                    width as gl::GLsizei,
                    height as gl::GLsizei,
                    0,
                    gl::GL_RGBA,
                    gl::GL_FLOAT,
                    texels.as_ptr() as *const _,
                );
                for (name, value) in [
                    (gl::GL_TEXTURE_MIN_FILTER, gl::GL_NEAREST),
                    (gl::GL_TEXTURE_MAG_FILTER, gl::GL_NEAREST),
                    (gl::GL_TEXTURE_WRAP_S, gl::GL_CLAMP_TO_EDGE),
                    (gl::GL_TEXTURE_WRAP_T, gl::GL_CLAMP_TO_EDGE),
                ] {
                    gl::glTexParameteri(gl::GL_TEXTURE_2D, name, value as gl::GLint);
                }
                gl::glBindTexture(gl::GL_TEXTURE_2D, 0);
                gl::glGetError() == 0
            };
            if ok {
                return Ok(FloatTexture {
                    raw,
                    id: TextureId::from_raw_id(RawId::OpenGl(raw)),
                    width,
                    height,
                    format,
                });
            }
            unsafe { gl::glDeleteTextures(1, &raw) };
        }
        Err(format!(
            "the GPU accepts neither an RGBA32F nor an RGBA16F {width}x{height} texture"
        ))
    }

    /// The GL texture name, for binding to a unit miniquad does not manage.
    pub fn raw(&self) -> u32 {
        self.raw
    }

    pub fn bytes(&self) -> u64 {
        let per_texel = match self.format {
            FloatFormat::Rgba32F => 16,
            FloatFormat::Rgba16F => 8,
        };
        self.width as u64 * self.height as u64 * per_texel
    }

    pub fn delete(self) {
        unsafe { gl::glDeleteTextures(1, &self.raw) };
    }
}

/// Depth testing (less or equal) without depth writes, for blended decals drawn after the
/// opaque world (`true`), or back to what miniquad expects (`false`). Call after
/// `apply_pipeline`: miniquad turns the depth test off for every pipeline without depth writes
/// and never sets the depth mask itself, so the mask must be restored (a depth clear obeys it).
pub fn depth_test_without_writes(on: bool) {
    unsafe {
        if on {
            gl::glEnable(gl::GL_DEPTH_TEST);
            gl::glDepthFunc(gl::GL_LEQUAL);
            gl::glDepthMask(gl::GL_FALSE as gl::GLboolean);
        } else {
            gl::glDepthMask(gl::GL_TRUE as gl::GLboolean);
            gl::glDisable(gl::GL_DEPTH_TEST);
        }
    }
}

/// Polygon offset for filled triangles: `Some((factor, units))` moves their depth by `factor` ×
/// their depth slope plus `units` × the smallest depth step (positive: away from the eye);
/// None turns it off. miniquad 0.4 ignores `PipelineParams::depth_write_offset`, so this is the
/// only way to get it.
pub fn polygon_offset(offset: Option<(f32, f32)>) {
    unsafe {
        match offset {
            Some((factor, units)) => {
                gl::glEnable(gl::GL_POLYGON_OFFSET_FILL);
                gl::glPolygonOffset(factor, units);
            }
            None => gl::glDisable(gl::GL_POLYGON_OFFSET_FILL),
        }
    }
}

//! Bakes the impostor atlas with the game's own skinning: every body's near mesh (its
//! always-worn attachments are merged into it) through crowd.vert compiled with
//! `IMPOSTOR_BAKE`, reading the animation-matrix texture, into two RGBA8 targets at once (base
//! colour + coverage, normal + tint class). One draw per (body, atlas frame) draws every view
//! as an instance, each clipped to its own cell. Where the cells are and how each is projected
//! is `crowd_assets::impostor_layout`; the pictures are read back so they can be cached.

use std::ffi::CString;

use macroquad::miniquad::gl;
use macroquad::miniquad::{
    Bindings, BufferLayout, Comparison, CullFace, FilterMode, PassAction, PipelineParams,
    RenderingBackend, TextureFormat, TextureParams, TextureWrap,
};

use super::renderer::compile;
use crate::crowd_assets::impostor_cache::AtlasImages;
use crate::crowd_assets::impostor_layout::ImpostorLayout;
use crate::crowd_assets::CrowdAssets;

const CROWD_VERT: &str = include_str!("shaders/crowd.vert");
const BAKE_FRAG: &str = include_str!("shaders/impostor_bake.frag");
const GL_CLIP_DISTANCE0: u32 = 0x3000;
/// Where the animation texture is bound (above miniquad's cached units, as the crowd does).
const ANIM_TEXTURE_UNIT: u32 = 12;

/// What the bake draws with: the animation texture and each body's near mesh (bindings and
/// index count), from the crowd renderer.
pub struct BakeSources {
    pub anim_texture: u32,
    pub joints: u32,
    pub meshes: Vec<Option<(Bindings, i32)>>,
}

/// An RGBA8 texture the size of the atlas, sampled texel by texel.
pub fn atlas_params(width: u32, height: u32, format: TextureFormat) -> TextureParams {
    TextureParams {
        format,
        width,
        height,
        wrap: TextureWrap::Clamp,
        min_filter: FilterMode::Nearest,
        mag_filter: FilterMode::Nearest,
        ..Default::default()
    }
}

fn location(program: gl::GLint, name: &str) -> i32 {
    let c = CString::new(name).unwrap_or_default();
    unsafe { gl::glGetUniformLocation(program as gl::GLuint, c.as_ptr()) }
}

/// Renders the atlas and reads it back. Prints a progress line per body to stderr.
pub fn bake(
    ctx: &mut dyn RenderingBackend,
    assets: &CrowdAssets,
    layout: &ImpostorLayout,
    sources: &BakeSources,
) -> Result<AtlasImages, String> {
    let views = layout.params.views();
    let header = format!(
        "#version 330\n#define INFLUENCES 4\n#define MAX_INSTANCES 1\n#define MAX_JOINTS {}\n#define IMPOSTOR_BAKE\n#define BAKE_VIEWS {views}\n",
        sources.joints.max(1)
    );
    let shader = compile(
        ctx,
        "impostor bake",
        &format!("{header}{CROWD_VERT}"),
        BAKE_FRAG,
        &[],
        vec![],
    )?;
    let attributes = super::crowd::figure_attributes();
    let pipeline = ctx.new_pipeline(
        &[BufferLayout::default()],
        &attributes,
        shader,
        PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            cull_face: CullFace::Nothing,
            ..Default::default()
        },
    );
    let (w, h) = (layout.width, layout.height);
    let color = ctx.new_render_texture(atlas_params(w, h, TextureFormat::RGBA8));
    let normal = ctx.new_render_texture(atlas_params(w, h, TextureFormat::RGBA8));
    let depth = ctx.new_render_texture(atlas_params(w, h, TextureFormat::Depth));
    let pass = ctx.new_render_pass_mrt(&[color, normal], None, Some(depth));
    ctx.begin_pass(
        Some(pass),
        PassAction::Clear {
            color: Some((0.0, 0.0, 0.0, 0.0)),
            depth: Some(1.0),
            stencil: None,
        },
    );
    ctx.apply_pipeline(&pipeline);
    ctx.apply_viewport(0, 0, w as i32, h as i32);
    ctx.apply_scissor_rect(0, 0, w as i32, h as i32);
    let mut program: gl::GLint = 0;
    unsafe {
        gl::glGetIntegerv(0x8B8D, &mut program);
        for i in 0..4 {
            gl::glEnable(GL_CLIP_DISTANCE0 + i);
        }
        gl::glActiveTexture(gl::GL_TEXTURE0 + ANIM_TEXTURE_UNIT);
        gl::glBindTexture(gl::GL_TEXTURE_2D, sources.anim_texture);
        gl::glActiveTexture(gl::GL_TEXTURE0);
        gl::glUniform1i(
            location(program, "anim_tex"),
            ANIM_TEXTURE_UNIT as gl::GLint,
        );
    }
    let (body_loc, view_loc, place_loc) = (
        location(program, "bake_body"),
        location(program, "bake_view"),
        location(program, "bake_place"),
    );
    let total = assets.bodies.len();
    for (b, body) in assets.bodies.iter().enumerate() {
        eprint!(
            "\rthrong: impostors: baking body {}/{total} ({})   ",
            b + 1,
            body.name
        );
        let Some((bindings, index_count)) = sources.meshes.get(b).and_then(Option::as_ref) else {
            continue;
        };
        ctx.apply_bindings(bindings);
        let matrices: Vec<[f32; 16]> = (0..views)
            .map(|v| layout.bake_projection(b, v).to_cols_array())
            .collect();
        unsafe {
            gl::glUniformMatrix4fv(view_loc, views as i32, 0, matrices.as_ptr() as *const f32);
        }
        for (frame, position) in layout.bodies[b].bake_frames() {
            let places: Vec<[f32; 4]> = (0..views)
                .map(|v| layout.cell_ndc(frame, v).to_array())
                .collect();
            unsafe {
                gl::glUniform4fv(place_loc, views as i32, places.as_ptr() as *const f32);
                gl::glUniform4f(body_loc, 1.0 / body.units_per_metre, position, 0.0, 0.0);
            }
            ctx.draw(0, *index_count, views as i32);
        }
        // Let the progress line follow the work rather than the submission.
        unsafe { gl::glFinish() };
    }
    eprintln!();
    ctx.end_render_pass();
    unsafe {
        for i in 0..4 {
            gl::glDisable(GL_CLIP_DISTANCE0 + i);
        }
    }
    let plane = w as usize * h as usize * 4;
    let mut images = AtlasImages {
        width: w,
        height: h,
        color: vec![0; plane],
        normal: vec![0; plane],
    };
    ctx.texture_read_pixels(color, &mut images.color);
    ctx.texture_read_pixels(normal, &mut images.normal);
    // Deleting the pass deletes its textures; the atlas is uploaded again from the bytes.
    ctx.delete_render_pass(pass);
    ctx.delete_pipeline(pipeline);
    ctx.delete_shader(shader);
    Ok(images)
}

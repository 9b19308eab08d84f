// Throng's side of the page: a miniquad plugin (the loader's own extension mechanism) that
//  * adds the few GL calls the game makes that miniquad's gl.js lacks (glGetError,
//    glDepthMask, glPolygonOffset, glUniform2f/3f/4f/4i), uploads whole matrix arrays, and
//  * lets glTexImage2D/glTexSubImage2D upload float and integer pixels: gl.js always views the
//    pixels as bytes sized from the internal format, which WebGL2 refuses for FLOAT data (the
//    crowd's animation-matrix texture is RGBA32F), and translate desktop depth formats;
//  * answers the game's page imports: loading progress, ?crowd=N, per-frame numbers
//    (window.throng, read by tests/web_browser.rs) and a startup failure message.
"use strict";

window.throng = { frames: 0, people: 0, drawn: 0, frameMs: -1, progress: [0, 0], error: null };

(function () {
  const FLOAT = 0x1406, HALF_FLOAT = 0x140b, UNSIGNED_BYTE = 0x1401;
  const UNSIGNED_SHORT = 0x1403, UNSIGNED_INT = 0x1405, INT = 0x1404;
  const DEPTH_COMPONENT = 0x1902, DEPTH_COMPONENT32 = 0x81a7, DEPTH_COMPONENT32F = 0x8cac;

  // Components per pixel of an upload's `format`.
  function components(format) {
    switch (format) {
      case 0x1908: case 0x8d99: return 4; // RGBA, RGBA_INTEGER
      case 0x1907: case 0x8d98: return 3; // RGB, RGB_INTEGER
      case 0x8227: case 0x8228: return 2; // RG, RG_INTEGER
      default: return 1;                  // RED, RED_INTEGER, DEPTH_COMPONENT, ALPHA, ...
    }
  }

  // The pixels at `ptr` as the typed array WebGL2 requires for `type`, or null for bytes
  // (left to gl.js, which handles miniquad's own textures).
  function typedPixels(format, type, width, height, ptr) {
    if (!ptr) return null;
    const n = width * height * components(format);
    switch (type) {
      case FLOAT: return new Float32Array(wasm_memory.buffer, ptr, n);
      case HALF_FLOAT: case UNSIGNED_SHORT: return new Uint16Array(wasm_memory.buffer, ptr, n);
      case UNSIGNED_INT: return new Uint32Array(wasm_memory.buffer, ptr, n);
      case INT: return new Int32Array(wasm_memory.buffer, ptr, n);
      default: return undefined;
    }
  }

  function utf8(ptr, len) {
    return new TextDecoder().decode(new Uint8Array(wasm_memory.buffer, ptr, len));
  }

  function register_plugin(importObject) {
    const env = importObject.env;
    const texImage = env.glTexImage2D, texSubImage = env.glTexSubImage2D;
    env.glTexImage2D = function (target, level, internal, w, h, border, format, type, ptr) {
      // miniquad's Depth32 asks for an unsized DEPTH_COMPONENT of FLOATs, which only desktop
      // GL takes; WebGL2 names that format DEPTH_COMPONENT32F.
      if (internal === DEPTH_COMPONENT && type === FLOAT) internal = DEPTH_COMPONENT32F;
      const pixels = type === UNSIGNED_BYTE ? undefined : typedPixels(format, type, w, h, ptr);
      if (pixels === undefined) return texImage(target, level, internal, w, h, border, format, type, ptr);
      gl.texImage2D(target, level, internal, w, h, border, format, type, pixels);
    };
    env.glTexSubImage2D = function (target, level, x, y, w, h, format, type, ptr) {
      const pixels = type === UNSIGNED_BYTE ? undefined : typedPixels(format, type, w, h, ptr);
      if (pixels === undefined) return texSubImage(target, level, x, y, w, h, format, type, ptr);
      gl.texSubImage2D(target, level, x, y, w, h, format, type, pixels);
    };
    // The same for render buffers: desktop DEPTH_COMPONENT32 is WebGL2's DEPTH_COMPONENT32F.
    const storage = env.glRenderbufferStorageMultisample;
    env.glRenderbufferStorageMultisample = function (target, samples, internal, w, h) {
      storage(target, samples, internal === DEPTH_COMPONENT32 ? DEPTH_COMPONENT32F : internal, w, h);
    };
    // Once the context exists: float colour targets and filtering where the browser has them
    // (WebGL2 turns these on only when asked).
    const initWebgl = env.init_webgl;
    env.init_webgl = function (version) {
      // The context is made here first, so its attributes stick when gl.js asks for it: no
      // multisampled canvas (the game resolves its own MSAA target into the canvas with a
      // blit, which WebGL2 refuses into a multisampled one), and a drawing buffer that stays
      // readable after a frame (screenshots).
      if (version === 2) {
        canvas.getContext("webgl2", { antialias: false, preserveDrawingBuffer: true });
      }
      initWebgl(version);
      if (!gl) return;
      for (const name of ["EXT_color_buffer_float", "EXT_float_blend", "OES_texture_float_linear"]) {
        gl.getExtension(name);
      }
    };
    // gl.js uploads only the first matrix of an array (16 floats whatever `count` says); the
    // hero's joint palette and the impostor bake's views are arrays of matrices.
    env.glUniformMatrix4fv = function (loc, count, transpose, ptr) {
      const values = new Float32Array(wasm_memory.buffer, ptr, 16 * count);
      gl.uniformMatrix4fv(GL.uniforms[loc], !!transpose, values);
    };
    env.glGetError = function () { return gl.getError(); };
    env.glDepthMask = function (flag) { gl.depthMask(!!flag); };
    env.glPolygonOffset = function (factor, units) { gl.polygonOffset(factor, units); };
    env.glUniform2f = function (loc, x, y) { gl.uniform2f(GL.uniforms[loc], x, y); };
    env.glUniform3f = function (loc, x, y, z) { gl.uniform3f(GL.uniforms[loc], x, y, z); };
    env.glUniform4f = function (loc, x, y, z, w) { gl.uniform4f(GL.uniforms[loc], x, y, z, w); };
    env.glUniform4i = function (loc, x, y, z, w) { gl.uniform4i(GL.uniforms[loc], x, y, z, w); };

    env.throng_progress = function (done, total) {
      window.throng.progress = [done, total];
      if (window.throngPage) window.throngPage.progress("Loading the plaza", done, total);
    };
    env.throng_crowd_param = function () {
      const n = parseInt(new URLSearchParams(window.location.search).get("crowd") || "0", 10);
      return Number.isFinite(n) && n > 0 ? n : 0;
    };
    env.throng_args = function (ptr, cap) {
      const bytes = new TextEncoder().encode(new URLSearchParams(window.location.search).get("args") || "");
      if (bytes.length <= cap) new Uint8Array(wasm_memory.buffer, ptr, bytes.length).set(bytes);
      return bytes.length;
    };
    env.throng_frame = function (frameMs, people, drawn, frames) {
      const t = window.throng;
      t.frameMs = frameMs; t.people = people; t.drawn = drawn; t.frames = frames;
    };
    env.throng_fail = function (ptr, len) {
      const message = utf8(ptr, len);
      window.throng.error = message;
      if (window.throngPage) window.throngPage.fail(message);
    };
  }

  miniquad_add_plugin({ register_plugin: register_plugin, version: 1, name: "throng" });
})();

//! One shader source for both GL dialects. The shaders are written as GLSL 330 (desktop GL 3.3);
//! WebGL2 takes GLSL ES 3.00, which differs for these shaders only in its `#version` line and
//! in needing default precisions in the fragment stage (and for samplers of integer or shadow
//! kinds). So the web build rewrites the version line and adds a precision block after it,
//! instead of keeping a second copy of every shader.

use std::borrow::Cow;

/// The header GLSL ES 3.00 needs in place of `#version 330`. Everything high precision: the
/// crowd reads animation matrices and positions from float textures, where mediump (16-bit)
/// would shake people at the plaza's edge.
pub const ES_HEADER: &str = "#version 300 es\n\
precision highp float;\n\
precision highp int;\n\
precision highp sampler2D;\n\
precision highp sampler2DShadow;\n\
precision highp sampler2DArray;\n\
precision highp isampler2D;\n\
precision highp usampler2D;\n";

/// `source` as the current target's GL wants it: unchanged on the desktop, GLSL ES 3.00 on the
/// web.
pub fn for_target(source: &str) -> Cow<'_, str> {
    if cfg!(target_arch = "wasm32") {
        Cow::Owned(to_es(source))
    } else {
        Cow::Borrowed(source)
    }
}

/// GLSL 330 to GLSL ES 3.00: the first `#version 330` line (after any leading blank lines)
/// becomes the ES header. A source without one gets the header in front, since ES requires
/// the version to come first.
pub fn to_es(source: &str) -> String {
    let trimmed = source.trim_start();
    let body = trimmed
        .strip_prefix("#version 330 core")
        .or_else(|| trimmed.strip_prefix("#version 330"))
        .map(|rest| rest.strip_prefix('\n').unwrap_or(rest))
        .unwrap_or(trimmed);
    format!("{ES_HEADER}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_line_becomes_the_es_header() {
        let es = to_es("#version 330\n#define X 1\nvoid main() {}\n");
        assert_eq!(es, format!("{ES_HEADER}#define X 1\nvoid main() {{}}\n"));
        assert!(es.starts_with("#version 300 es\n"));
        assert_eq!(es.matches("#version").count(), 1);
    }

    #[test]
    fn core_profile_and_missing_versions_get_one_header() {
        assert_eq!(
            to_es("\n#version 330 core\nvoid main() {}"),
            format!("{ES_HEADER}void main() {{}}")
        );
        assert_eq!(
            to_es("void main() {}"),
            format!("{ES_HEADER}void main() {{}}")
        );
    }

    #[test]
    fn the_desktop_keeps_its_source() {
        let src = "#version 330\nvoid main() {}";
        if cfg!(not(target_arch = "wasm32")) {
            assert!(matches!(for_target(src), Cow::Borrowed(s) if s == src));
        }
    }
}

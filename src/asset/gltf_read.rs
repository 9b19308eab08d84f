//! Parsing the container (JSON / GLB / VRM) and fetching buffers and images, with the file's
//! structural problems turned into `ImportError`s before any accessor is read.

use super::error::ImportError;
use super::sources;
use std::path::Path;

/// Extensions we can honour when a file marks them required.
const SUPPORTED_REQUIRED: &[&str] = &[
    "KHR_materials_unlit",
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
    "KHR_mesh_quantization",
    "VRMC_materials_mtoon",
    "VRMC_vrm",
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
    "VRMC_node_constraint",
    "VRM",
];

pub struct Loaded {
    pub doc: gltf::Document,
    pub buffers: Vec<gltf::buffer::Data>,
    /// One entry per glTF image: Err holds why it could not be decoded. A broken picture must
    /// not lose the whole character, so textures fall back instead of failing the import.
    pub images: Vec<Result<gltf::image::Data, String>>,
}

pub fn parse(file: &str, bytes: &[u8], base_dir: Option<&Path>) -> Result<Loaded, ImportError> {
    let err = |m: String| ImportError::new(file, m);
    check_glb_framing(bytes).map_err(err)?;
    // Check required extensions ourselves first: the crate's message for them is terse.
    let raw = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| err(format!("not a readable glTF/GLB file: {}", describe(&e))))?;
    for ext in raw.document.extensions_required() {
        if !SUPPORTED_REQUIRED.contains(&ext) {
            return Err(err(format!("unsupported required extension \"{ext}\"")));
        }
    }
    // The crate's own validator indexes POSITION accessors before range-checking them.
    let root = raw.document.as_json();
    for (mi, m) in root.meshes.iter().enumerate() {
        for (pi, p) in m.primitives.iter().enumerate() {
            for (sem, a) in &p.attributes {
                if a.value() >= root.accessors.len() {
                    return Err(err(format!(
                        "mesh {mi} primitive {pi} attribute {sem:?}: accessor {} does not exist",
                        a.value()
                    )));
                }
            }
        }
    }
    drop(raw);
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| err(describe(&e)))?;
    let doc = gltf.document;
    let blob = gltf.blob;
    check_views(file, &doc)?;
    // Not `gltf::import_buffers`: it reads side files whole before checking any length.
    let buffers = sources::buffers(file, &doc, base_dir, blob)?;
    check_accessors(file, &doc)?;
    check_usage(file, &doc)?;
    let images = doc
        .images()
        .map(|img| sources::image(&img, base_dir, &buffers))
        .collect();
    Ok(Loaded {
        doc,
        buffers,
        images,
    })
}

/// The gltf crate's error in words that say what is wrong, once ("invalid glTF:" is already
/// the crate's own prefix of validation errors), with long lists summarised.
fn describe(e: &gltf::Error) -> String {
    match e {
        gltf::Error::Validation(problems) => {
            let shown: Vec<String> = problems
                .iter()
                .take(3)
                .map(|(path, why)| format!("{path}: {why}"))
                .collect();
            let more = match problems.len().saturating_sub(shown.len()) {
                0 => String::new(),
                n => format!(" (and {n} more problems)"),
            };
            format!("invalid glTF: {}{more}", shown.join("; "))
        }
        gltf::Error::Deserialize(e) => format!("the JSON is not glTF: {e}"),
        other => other.to_string(),
    }
}

/// A GLB's header and chunk lengths against the bytes actually there, so a cut-off file is
/// reported as truncated with both lengths (the crate says "could not completely read the
/// object"). Anything not starting with the GLB magic is left to the JSON parser.
fn check_glb_framing(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"glTF") {
        return Ok(());
    }
    let have = bytes.len();
    let u32_at = |at: usize| -> Option<u64> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
    };
    let (Some(version), Some(declared)) = (u32_at(4), u32_at(8)) else {
        return Err(format!(
            "truncated GLB: the header needs 12 bytes, found {have}"
        ));
    };
    if version != 2 {
        return Err(format!(
            "GLB version {version}; only version 2 is supported"
        ));
    }
    if declared > have as u64 {
        return Err(format!(
            "truncated GLB: the header declares {declared} bytes, found {have}"
        ));
    }
    let end = declared as usize;
    let mut at = 12;
    for (k, name) in ["JSON", "binary"].into_iter().enumerate() {
        if at >= end && k > 0 {
            break;
        }
        let Some(len) = u32_at(at).filter(|_| at + 8 <= end) else {
            return Err(format!(
                "truncated GLB: the {name} chunk header at byte {at} needs 8 bytes, found {}",
                end.saturating_sub(at)
            ));
        };
        let body = end - (at + 8);
        if len > body as u64 {
            return Err(format!(
                "truncated GLB: the {name} chunk declares {len} bytes, found {body}"
            ));
        }
        at += 8 + len as usize;
    }
    Ok(())
}

fn check_views(file: &str, doc: &gltf::Document) -> Result<(), ImportError> {
    for v in doc.views() {
        let end = v.offset().checked_add(v.length());
        match end {
            Some(end) if end <= v.buffer().length() => {}
            _ => {
                return Err(ImportError::new(
                    file,
                    format!(
                        "bufferView {}: range {}+{} exceeds buffer {} ({} bytes)",
                        v.index(),
                        v.offset(),
                        v.length(),
                        v.buffer().index(),
                        v.buffer().length()
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Every accessor (and sparse part) must lie inside its view, so reading can never go short.
fn check_accessors(file: &str, doc: &gltf::Document) -> Result<(), ImportError> {
    for a in doc.accessors() {
        let e = |m: String| ImportError::new(file, format!("accessor {}: {m}", a.index()));
        if a.count() == 0 {
            return Err(e("count is 0".into()));
        }
        let elem = a.size();
        if let Some(view) = a.view() {
            let stride = view.stride().unwrap_or(elem);
            if stride < elem {
                return Err(e(format!(
                    "byteStride {stride} smaller than element {elem}"
                )));
            }
            let need = (a.count() - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(elem))
                .and_then(|x| x.checked_add(a.offset()));
            match need {
                Some(n) if n <= view.length() => {}
                _ => return Err(e(format!("data runs past bufferView {}", view.index()))),
            }
        } else if a.sparse().is_none() {
            // No view and no sparse: zeros, which the reader cannot produce; refuse it clearly.
            return Err(e("has neither bufferView nor sparse data".into()));
        }
        if let Some(s) = a.sparse() {
            if s.count() == 0 || s.count() > a.count() {
                return Err(e(format!("sparse count {} invalid", s.count())));
            }
            let isz = match s.indices().index_type() {
                gltf::accessor::sparse::IndexType::U8 => 1,
                gltf::accessor::sparse::IndexType::U16 => 2,
                gltf::accessor::sparse::IndexType::U32 => 4,
            };
            let iv = s.indices().view();
            let vv = s.values().view();
            let ok_i = s
                .count()
                .checked_mul(isz)
                .and_then(|n| n.checked_add(s.indices().offset()))
                .is_some_and(|n| n <= iv.length());
            let ok_v = s
                .count()
                .checked_mul(elem)
                .and_then(|n| n.checked_add(s.values().offset()))
                .is_some_and(|n| n <= vv.length());
            if !ok_i || !ok_v {
                return Err(e(
                    "sparse indices or values run past their bufferView".into()
                ));
            }
        }
    }
    Ok(())
}

use gltf::accessor::{DataType as T, Dimensions as D};

/// The crate's typed readers assume each accessor has the element type its use implies (and
/// assert on it); a file that lies about a type must be refused before any read.
fn check_usage(file: &str, doc: &gltf::Document) -> Result<(), ImportError> {
    let bad = |what: String, a: &gltf::Accessor| {
        ImportError::new(
            file,
            format!(
                "{what}: accessor {} has type {:?} {:?}, which this use does not allow",
                a.index(),
                a.dimensions(),
                a.data_type()
            ),
        )
    };
    let ok = |a: &gltf::Accessor, dims: &[D], types: &[T]| {
        dims.contains(&a.dimensions()) && types.contains(&a.data_type())
    };
    let f32_only: &[T] = &[T::F32];
    let unorm: &[T] = &[T::F32, T::U8, T::U16];
    let snorm: &[T] = &[T::F32, T::I8, T::U8, T::I16, T::U16];
    for m in doc.meshes() {
        for p in m.primitives() {
            let at = format!("mesh {} primitive {}", m.index(), p.index());
            for (sem, a) in p.attributes() {
                use gltf::Semantic as S;
                let good = match &sem {
                    S::Positions | S::Normals => ok(&a, &[D::Vec3], f32_only),
                    S::Tangents => ok(&a, &[D::Vec4], f32_only),
                    S::TexCoords(_) => ok(&a, &[D::Vec2], unorm),
                    S::Colors(_) => ok(&a, &[D::Vec3, D::Vec4], unorm),
                    S::Joints(_) => ok(&a, &[D::Vec4], &[T::U8, T::U16]),
                    S::Weights(_) => ok(&a, &[D::Vec4], unorm),
                    _ => true,
                };
                if !good {
                    return Err(bad(format!("{at} attribute {sem:?}"), &a));
                }
            }
            if let Some(a) = p.indices() {
                if !ok(&a, &[D::Scalar], &[T::U8, T::U16, T::U32]) {
                    return Err(bad(format!("{at} indices"), &a));
                }
            }
            for (ti, t) in p.morph_targets().enumerate() {
                for a in [t.positions(), t.normals(), t.tangents()]
                    .into_iter()
                    .flatten()
                {
                    if !ok(&a, &[D::Vec3], f32_only) {
                        return Err(bad(format!("{at} morph target {ti}"), &a));
                    }
                }
            }
        }
    }
    for sk in doc.skins() {
        if let Some(a) = sk.inverse_bind_matrices() {
            if !ok(&a, &[D::Mat4], f32_only) {
                return Err(bad(format!("skin {}", sk.index()), &a));
            }
        }
    }
    let node_count = doc.nodes().len();
    for (ai, anim) in doc.as_json().animations.iter().enumerate() {
        for (ci, ch) in anim.channels.iter().enumerate() {
            let at = format!("animation {ai} channel {ci}");
            if ch.target.node.value() >= node_count {
                return Err(ImportError::new(
                    file,
                    format!(
                        "{at}: target node {} does not exist",
                        ch.target.node.value()
                    ),
                ));
            }
            if !matches!(ch.target.path, gltf::json::validation::Checked::Valid(_)) {
                return Err(ImportError::new(file, format!("{at}: unknown target path")));
            }
            if ch.sampler.value() >= anim.samplers.len() {
                return Err(ImportError::new(
                    file,
                    format!("{at}: sampler {} does not exist", ch.sampler.value()),
                ));
            }
        }
    }
    for (ai, anim) in doc.as_json().animations.iter().enumerate() {
        for (si, smp) in anim.samplers.iter().enumerate() {
            if !matches!(smp.interpolation, gltf::json::validation::Checked::Valid(_)) {
                return Err(ImportError::new(
                    file,
                    format!("animation {ai} sampler {si}: unknown interpolation"),
                ));
            }
        }
    }
    for anim in doc.animations() {
        for (ci, ch) in anim.channels().enumerate() {
            let at = format!("animation {} channel {ci}", anim.index());
            let input = ch.sampler().input();
            if !ok(&input, &[D::Scalar], f32_only) {
                return Err(bad(format!("{at} input"), &input));
            }
            let out = ch.sampler().output();
            use gltf::animation::Property as P;
            let good = match ch.target().property() {
                P::Translation | P::Scale => ok(&out, &[D::Vec3], f32_only),
                P::Rotation => ok(&out, &[D::Vec4], snorm),
                P::MorphTargetWeights => ok(&out, &[D::Scalar], snorm),
            };
            if !good {
                return Err(bad(format!("{at} output"), &out));
            }
        }
    }
    Ok(())
}

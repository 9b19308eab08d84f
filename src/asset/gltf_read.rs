//! Parsing the container (JSON / GLB / VRM) and fetching buffers and images, with the file's
//! structural problems turned into `ImportError`s before any accessor is read.

use super::error::ImportError;
use std::path::Path;

/// Extensions we can honour when a file marks them required.
const SUPPORTED_REQUIRED: &[&str] = &[
    "KHR_materials_unlit",
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
    "KHR_mesh_quantization",
    "VRMC_materials_mtoon",
    "VRMC_vrm",
    "VRM",
];

pub struct Loaded {
    pub doc: gltf::Document,
    pub buffers: Vec<gltf::buffer::Data>,
    pub images: Vec<gltf::image::Data>,
}

pub fn parse(file: &str, bytes: &[u8], base_dir: Option<&Path>) -> Result<Loaded, ImportError> {
    let err = |m: String| ImportError::new(file, m);
    // Check required extensions ourselves first: the crate's message for them is terse.
    let raw = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| err(format!("not a readable glTF/GLB file: {e}")))?;
    for ext in raw.document.extensions_required() {
        if !SUPPORTED_REQUIRED.contains(&ext) {
            return Err(err(format!("unsupported required extension \"{ext}\"")));
        }
    }
    drop(raw);
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| err(format!("invalid glTF: {e}")))?;
    let doc = gltf.document;
    let blob = gltf.blob;
    check_views(file, &doc)?;
    let buffers = gltf::import_buffers(&doc, base_dir, blob)
        .map_err(|e| err(format!("buffer data: {e}")))?;
    for (i, b) in doc.buffers().enumerate() {
        let have = buffers.get(i).map(|d| d.0.len()).unwrap_or(0);
        if have < b.length() {
            return Err(err(format!(
                "buffer {i}: declares {} bytes but only {have} are present",
                b.length()
            )));
        }
    }
    check_accessors(file, &doc)?;
    let images = if doc.images().len() > 0 {
        gltf::import_images(&doc, base_dir, &buffers)
            .map_err(|e| err(format!("image decoding: {e}")))?
    } else {
        Vec::new()
    };
    Ok(Loaded {
        doc,
        buffers,
        images,
    })
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
                return Err(e(format!("byteStride {stride} smaller than element {elem}")));
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
                return Err(e("sparse indices or values run past their bufferView".into()));
            }
        }
    }
    Ok(())
}

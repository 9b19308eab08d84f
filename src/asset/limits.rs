//! Limits on what one model may make the importer and the runtime allocate, checked from the
//! document's counts before any accessor is read.
//!
//! A glTF file can name one accessor from many places (every morph target, every channel,
//! every primitive of many meshes) and one mesh from many nodes, so the memory an import and
//! a posed instance take is not bounded by the file's length. These counts are what is
//! multiplied; docs/ARCHITECTURE.md ("Resource limits") lists them with the other limits.

use super::error::ImportError;

/// Bytes the importer may decode from accessors, as it stores them (every decoded value is
/// 4 bytes per component; a morph target always holds a position delta per vertex). The
/// largest bundled model (Knight.glb) decodes to about 2 MiB.
pub const MAX_DECODED_BYTES: u64 = 128 << 20;

/// Nodes: every posed instance holds a local and a world transform per node, every report a
/// line or matrix. The largest bundled model has 924.
pub const MAX_NODES: u64 = 1 << 16;

/// Vertices over all mesh instances (nodes × their mesh's vertices): what posing,
/// `throng inspect --pose` and a bake hold per frame.
pub const MAX_INSTANCED_VERTICES: u64 = 1 << 18;

/// Joint matrices over all skinned mesh instances (nodes × their skin's joints): the
/// skinning palettes of one posed scene.
pub const MAX_INSTANCED_JOINTS: u64 = 1 << 16;

/// Morph weights over all mesh instances (nodes × their mesh's morph targets).
pub const MAX_INSTANCED_MORPH_WEIGHTS: u64 = 1 << 16;

/// Checks the document's counts against the limits above before anything is decoded.
pub fn check_document(file: &str, doc: &gltf::Document) -> Result<(), ImportError> {
    let decoded = decoded_bytes(doc);
    if decoded > MAX_DECODED_BYTES {
        return Err(ImportError::new(
            file,
            format!(
                "its accessors would decode to {} MiB (accessors shared by many primitives, \
                 targets or channels count each time), above the limit of {} MiB",
                decoded.div_ceil(1 << 20),
                MAX_DECODED_BYTES >> 20
            ),
        ));
    }
    let nodes = doc.nodes().len() as u64;
    if nodes > MAX_NODES {
        return Err(ImportError::new(
            file,
            format!("it has {nodes} nodes, above the limit of {MAX_NODES}"),
        ));
    }
    let (mut vertices, mut joints, mut weights) = (0u64, 0u64, 0u64);
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        for p in mesh.primitives() {
            vertices = vertices.saturating_add(vertex_count(&p));
        }
        let targets = mesh
            .primitives()
            .map(|p| p.morph_targets().len() as u64)
            .max()
            .unwrap_or(0);
        weights = weights.saturating_add(targets);
        if let Some(skin) = node.skin() {
            joints = joints.saturating_add(skin.joints().len() as u64);
        }
    }
    for (what, have, limit) in [
        ("vertices", vertices, MAX_INSTANCED_VERTICES),
        ("skin joints", joints, MAX_INSTANCED_JOINTS),
        ("morph weights", weights, MAX_INSTANCED_MORPH_WEIGHTS),
    ] {
        if have > limit {
            return Err(ImportError::new(
                file,
                format!(
                    "its nodes instance {have} {what} (each node counts its mesh's or skin's \
                     again), above the limit of {limit}"
                ),
            ));
        }
    }
    Ok(())
}

fn vertex_count(p: &gltf::Primitive) -> u64 {
    p.get(&gltf::Semantic::Positions)
        .map_or(0, |a| a.count() as u64)
}

/// Bytes of one accessor as decoded: 4 per component.
fn accessor_bytes(a: &gltf::Accessor) -> u64 {
    (a.count() as u64).saturating_mul(a.dimensions().multiplicity() as u64 * 4)
}

/// What the importer would decode: every attribute and index list of every primitive, every
/// morph target (a position delta per vertex even when the target has none), every inverse
/// bind matrix, and every channel's keys and values (a shared accessor once per use).
pub fn decoded_bytes(doc: &gltf::Document) -> u64 {
    let mut total = 0u64;
    let mut add = |b: u64| total = total.saturating_add(b);
    for mesh in doc.meshes() {
        for p in mesh.primitives() {
            let n = vertex_count(&p);
            for (_, a) in p.attributes() {
                add(accessor_bytes(&a));
            }
            // Without indices the importer makes 0..n.
            add(p.indices().map_or(n * 4, |a| accessor_bytes(&a)));
            for t in p.morph_targets() {
                add(n * 12);
                for a in [t.normals(), t.tangents()].into_iter().flatten() {
                    add(accessor_bytes(&a));
                }
            }
        }
    }
    for skin in doc.skins() {
        if let Some(a) = skin.inverse_bind_matrices() {
            add(accessor_bytes(&a));
        }
    }
    for anim in doc.animations() {
        for ch in anim.channels() {
            add(accessor_bytes(&ch.sampler().input()));
            add(accessor_bytes(&ch.sampler().output()));
        }
    }
    total
}

/// Springs (VRM 1.0 springs, VRM 0.x bone-group roots) per model. Each is a chain the runtime
/// walks every step; real avatars have tens (the bundled Godette 0.x model: see
/// `tests/hero_springs.rs`).
pub const MAX_SPRINGS: u64 = 1 << 10;

/// Spring joints per model, over all springs: every joint is simulated at 60 Hz whether or not
/// anything moves it.
pub const MAX_SPRING_JOINTS: u64 = 1 << 12;

/// Spring colliders per model.
pub const MAX_SPRING_COLLIDERS: u64 = 1 << 10;

/// Collider checks per spring step: for each joint, the colliders of the groups its spring names
/// (a collider named by two of them counted twice). Each is a bounding-sphere test every step,
/// and up to four push-outs when in reach; 65,536 of them are a few milliseconds a step.
pub const MAX_SPRING_COLLIDER_TESTS: u64 = 1 << 16;

/// Checks a model's spring bones against the limits above before the runtime is built: the
/// counts come from the file, and what the runtime allocates and does each step grows with them.
pub fn check_springs(
    file: &str,
    springs: &super::vrm_spring::SpringBoneAsset,
) -> Result<(), ImportError> {
    let over = |what: &str, have: u64, limit: u64| {
        ImportError::new(
            file,
            format!("its spring bones have {have} {what}, above the limit of {limit}"),
        )
    };
    let chains = springs.springs.len() as u64;
    if chains > MAX_SPRINGS {
        return Err(over("springs", chains, MAX_SPRINGS));
    }
    let joints = springs.joint_count() as u64;
    if joints > MAX_SPRING_JOINTS {
        return Err(over("joints", joints, MAX_SPRING_JOINTS));
    }
    let colliders = springs.colliders.len() as u64;
    if colliders > MAX_SPRING_COLLIDERS {
        return Err(over("colliders", colliders, MAX_SPRING_COLLIDERS));
    }
    let mut tests = 0u64;
    for s in &springs.springs {
        let named: u64 = s
            .collider_groups
            .iter()
            .filter_map(|&g| springs.collider_groups.get(g))
            .fold(0u64, |n, g| n.saturating_add(g.colliders.len() as u64));
        tests = tests.saturating_add(named.saturating_mul(s.joints.len() as u64));
    }
    if tests > MAX_SPRING_COLLIDER_TESTS {
        return Err(ImportError::new(
            file,
            format!(
                "its spring bones need {tests} collider checks a step (each joint against the \
                 colliders of the groups its spring names), above the limit of \
                 {MAX_SPRING_COLLIDER_TESTS}"
            ),
        ));
    }
    Ok(())
}

//! VRM animation files (`.vrma`): a glTF whose root extension `VRMC_vrm_animation` maps VRM
//! humanoid bone names to the nodes its animations drive. The nodes' own transforms are the
//! file's rest pose; retargeting (`hero::retarget`) measures every rotation against it.
//!
//! Only the humanoid part is read: `expressions` and `lookAt` belong to the expression and
//! look-at systems, which the hero drives itself.

use std::collections::BTreeMap;
use std::path::Path;

use super::types::SceneAsset;

/// A parsed `.vrma`: its nodes and clips, and the humanoid map (VRM 1.0 bone name → node).
#[derive(Debug, Clone)]
pub struct VrmaAsset {
    pub scene: SceneAsset,
    pub humanoid: BTreeMap<String, usize>,
    /// `specVersion` as written ("1.0").
    pub spec_version: String,
}

/// Reads a `.vrma` file. Errors name the file and what is wrong.
pub fn load_vrma(path: &Path) -> Result<VrmaAsset, String> {
    let file = path.display().to_string();
    let bytes = crate::file_read::read_capped(path, super::sources::MAX_MODEL_BYTES)
        .map_err(|e| format!("{file}: read: {e}"))?;
    parse_vrma(&file, &bytes, path.parent())
}

/// Parses a `.vrma` from memory; `file` names it in messages, `base_dir` resolves side files.
pub fn parse_vrma(file: &str, bytes: &[u8], base_dir: Option<&Path>) -> Result<VrmaAsset, String> {
    let scene = super::load_slice(file, bytes, base_dir).map_err(|e| e.to_string())?;
    let raw = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| format!("{file}: not a readable glTF/GLB file: {e}"))?;
    let Some(ext) = raw
        .document
        .extensions()
        .and_then(|e| e.get("VRMC_vrm_animation"))
    else {
        return Err(format!(
            "{file}: no VRMC_vrm_animation extension: not a VRM animation"
        ));
    };
    let spec_version = ext
        .get("specVersion")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string();
    let Some(bones) = ext
        .get("humanoid")
        .and_then(|h| h.get("humanBones"))
        .and_then(|b| b.as_object())
    else {
        return Err(format!(
            "{file}: VRMC_vrm_animation has no humanoid.humanBones"
        ));
    };
    let mut humanoid = BTreeMap::new();
    for (name, bone) in bones {
        let node = bone.get("node").and_then(|n| n.as_u64());
        match node {
            Some(n) if (n as usize) < scene.nodes.len() => {
                humanoid.insert(name.clone(), n as usize);
            }
            _ => {
                return Err(format!(
                    "{file}: humanBones.{name}.node must be a node index below {}",
                    scene.nodes.len()
                ))
            }
        }
    }
    if !humanoid.contains_key("hips") {
        return Err(format!("{file}: humanBones has no hips"));
    }
    if scene.animations.is_empty() {
        return Err(format!("{file}: no animations"));
    }
    Ok(VrmaAsset {
        scene,
        humanoid,
        spec_version,
    })
}

//! Test models (tests/fixtures/models and the bundled characters) and the reference JSON files
//! an independent implementation wrote for them.

use std::path::PathBuf;

use throng::asset::{load_file, SceneAsset};

use super::project_root;

/// Test models live in tests/fixtures/models; the bundled characters in assets/.
pub fn model_path(name: &str) -> PathBuf {
    for dir in ["tests/fixtures/models", "assets/characters", "assets/hero"] {
        let p = project_root().join(dir).join(name);
        if p.exists() {
            return p;
        }
    }
    panic!("fixture {name} not found")
}

pub fn load(name: &str) -> SceneAsset {
    match load_file(&model_path(name)) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

pub fn ref_json(name: &str) -> serde_json::Value {
    let p = project_root()
        .join("tests/fixtures/ref-expected")
        .join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn all_models() -> Vec<String> {
    let mut v = Vec::new();
    for dir in ["tests/fixtures/models", "assets/characters", "assets/hero"] {
        if let Ok(rd) = std::fs::read_dir(project_root().join(dir)) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.ends_with(".glb") || n.ends_with(".gltf") || n.ends_with(".vrm") {
                    v.push(n);
                }
            }
        }
    }
    v.sort();
    v
}

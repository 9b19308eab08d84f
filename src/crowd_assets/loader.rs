//! The crowd assets' lifetime across hot reloads: loaded when the level's crowd models change,
//! kept when a reload names models that cannot load (the running crowd keeps its look and the
//! error says why), versioned so the renderer knows when to upload again.

use std::path::PathBuf;

use super::CrowdAssets;
use crate::level::{CrowdModel, Level};

pub struct CrowdAssetLoader {
    asset_root: PathBuf,
    /// Names the level file in messages.
    label: String,
    /// The models last asked for (loaded or not), so a failing set is not retried every frame.
    asked: Option<Vec<CrowdModel>>,
    assets: Option<CrowdAssets>,
    version: u64,
    /// Why the models last asked for are not the ones drawn (None: they are).
    pub error: Option<String>,
    /// Fallbacks in use (missing clips played as idle, props a rig cannot hold).
    pub warnings: Vec<String>,
}

impl CrowdAssetLoader {
    pub fn new(asset_root: PathBuf, label: String) -> Self {
        CrowdAssetLoader {
            asset_root,
            label,
            asked: None,
            assets: None,
            version: 0,
            error: None,
            warnings: Vec::new(),
        }
    }

    /// Loads the level's crowd models when they differ from the ones last asked for; re-reads
    /// the variant tables always (they may change on reload without the models changing).
    pub fn sync(&mut self, level: &Level) {
        if self.asked.as_ref() != Some(&level.crowd.models) {
            self.asked = Some(level.crowd.models.clone());
            match CrowdAssets::load(level, &self.asset_root, &self.label) {
                Ok(assets) => {
                    for w in &assets.warnings {
                        eprintln!("throng: {w}");
                    }
                    self.warnings = assets.warnings.clone();
                    self.assets = Some(assets);
                    self.version += 1;
                    self.error = None;
                }
                Err(e) => {
                    let kept = if self.assets.is_some() {
                        "the running crowd keeps its models"
                    } else {
                        "stand-in figures are drawn instead"
                    };
                    eprintln!("throng: {e} ({kept})");
                    self.error = Some(format!("{e} ({kept})"));
                }
            }
        }
        if let Some(assets) = &mut self.assets {
            assets.refresh_variants(level);
        }
    }

    pub fn assets(&self) -> Option<&CrowdAssets> {
        self.assets.as_ref()
    }

    pub fn assets_mut(&mut self) -> Option<&mut CrowdAssets> {
        self.assets.as_mut()
    }

    /// Advances whenever the assets are replaced.
    pub fn version(&self) -> u64 {
        self.version
    }
}

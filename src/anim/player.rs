use super::error::AnimError;
use super::morph::MorphStateSet;
use super::pose::ScenePose;
use super::sample::{sample_node_channels, sample_weights};
use crate::asset::{AnimationClipAsset, SceneAsset};

/// Plays one clip of a scene into a `ScenePose` (and optionally morph weights).
///
/// Samples only when something changed (`sample_pending`), so a paused player costs nothing
/// and leaves the pose version alone; downstream palette updates then skip too.
#[derive(Debug, Clone)]
pub struct AnimationPlayer {
    clip: Option<usize>,
    validated_scene: Option<u64>,
    time: f32,
    speed: f32,
    playing: bool,
    looping: bool,
    sample_pending: bool,
    reset_pose_on_next_sample: bool,
    /// A seek lands clamped at the end instead of wrapping, even when looping.
    seek_pending: bool,
    weights_scratch: Vec<f32>,
}

impl Default for AnimationPlayer {
    fn default() -> Self {
        Self::new()
    }
}

impl AnimationPlayer {
    pub fn new() -> Self {
        Self {
            clip: None,
            validated_scene: None,
            time: 0.0,
            speed: 1.0,
            playing: false,
            looping: true,
            sample_pending: false,
            reset_pose_on_next_sample: false,
            seek_pending: false,
            weights_scratch: Vec::new(),
        }
    }

    /// Selects a clip (None = bind pose) and rewinds; the next update restores the bind pose
    /// before sampling so nodes the new clip does not drive lose the old clip's values.
    pub fn set_clip(&mut self, clip: Option<usize>) {
        self.clip = clip;
        self.validated_scene = None;
        self.time = 0.0;
        self.sample_pending = true;
        self.reset_pose_on_next_sample = true;
    }
    pub fn clip(&self) -> Option<usize> {
        self.clip
    }
    pub fn play(&mut self) {
        self.playing = true;
        self.sample_pending = true;
    }
    pub fn pause(&mut self) {
        self.playing = false;
    }
    /// Stops, rewinds, and restores the bind pose before the next sample.
    pub fn stop(&mut self) {
        self.playing = false;
        self.time = 0.0;
        self.sample_pending = true;
        self.reset_pose_on_next_sample = true;
    }
    pub fn is_playing(&self) -> bool {
        self.playing
    }
    pub fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }
    pub fn is_looping(&self) -> bool {
        self.looping
    }
    pub fn set_speed(&mut self, speed: f32) -> Result<(), AnimError> {
        if !speed.is_finite() || speed < 0.0 {
            return Err(AnimError::InvalidSpeed(speed));
        }
        self.speed = speed;
        Ok(())
    }
    pub fn speed(&self) -> f32 {
        self.speed
    }
    pub fn time(&self) -> f32 {
        self.time
    }
    pub fn is_sample_pending(&self) -> bool {
        self.sample_pending
    }
    /// Moves to `t`, clamped to [0, duration] at the next update (works while paused).
    pub fn seek(&mut self, t: f32) -> Result<(), AnimError> {
        if !t.is_finite() {
            return Err(AnimError::InvalidTime(t));
        }
        self.time = t.max(0.0);
        self.seek_pending = true;
        self.sample_pending = true;
        Ok(())
    }

    /// Advances time (when playing) and samples into `pose` when needed, then resolves world
    /// matrices. Returns whether a new pose was produced.
    pub fn update(
        &mut self,
        dt: f32,
        scene: &SceneAsset,
        pose: &mut ScenePose,
        mut morphs: Option<&mut MorphStateSet>,
    ) -> Result<bool, AnimError> {
        if !pose.is_for_scene(scene) {
            return Err(AnimError::WrongScene);
        }
        if let Some(m) = morphs.as_deref() {
            if !m.is_for_scene(scene) {
                return Err(AnimError::WrongScene);
            }
        }
        let clip = match self.clip {
            Some(ci) => Some(
                scene
                    .animations
                    .get(ci)
                    .ok_or(AnimError::ClipOutOfRange(ci))?,
            ),
            None => None,
        };
        if let Some(c) = clip {
            if self.validated_scene != Some(scene.id) {
                validate_clip(c, scene)?;
                self.validated_scene = Some(scene.id);
            }
        }
        let duration = clip.map(|c| c.duration).unwrap_or(0.0);
        if self.playing && dt.is_finite() && dt > 0.0 && self.speed > 0.0 {
            self.time += dt * self.speed;
            self.sample_pending = true;
        }
        if !self.sample_pending && !pose.is_dirty() {
            return Ok(false);
        }
        if self.seek_pending {
            self.time = self.time.min(duration);
            self.seek_pending = false;
        }
        if self.time > duration {
            if self.looping && duration > 0.0 {
                self.time %= duration;
            } else {
                self.time = duration;
                if !self.looping {
                    self.playing = false;
                }
            }
        }
        if self.reset_pose_on_next_sample {
            pose.reset_to_bind_pose();
            if let Some(m) = morphs.as_deref_mut() {
                m.reset_to_defaults(scene);
            }
            self.reset_pose_on_next_sample = false;
        }
        if let Some(c) = clip {
            sample_clip(c, self.time, pose, morphs, &mut self.weights_scratch);
        }
        pose.update_world_matrices()?;
        self.sample_pending = false;
        Ok(true)
    }
}

/// Writes every channel of `clip` at time `t` into the pose's local transforms (and morph
/// weights). Channels leave untouched whatever they do not drive.
pub fn sample_clip(
    clip: &AnimationClipAsset,
    t: f32,
    pose: &mut ScenePose,
    morphs: Option<&mut MorphStateSet>,
    scratch: &mut Vec<f32>,
) {
    // Only a clip that drives nodes marks the pose dirty, as writing node by node did.
    if !clip.node_channels.is_empty() {
        sample_node_channels(clip, t, pose.locals_mut());
    }
    if let Some(morphs) = morphs {
        for mc in &clip.morph_channels {
            let Some(state) = morphs.get_mut(mc.node) else {
                continue;
            };
            scratch.clear();
            scratch.resize(mc.target_count, 0.0);
            sample_weights(&mc.track, mc.target_count, t, scratch);
            state.set_weights(scratch);
        }
    }
}

/// The clip/scene combination check, done once per (clip, scene) pairing.
pub fn validate_clip(clip: &AnimationClipAsset, scene: &SceneAsset) -> Result<(), AnimError> {
    let n = scene.nodes.len();
    for c in &clip.node_channels {
        if c.node >= n {
            return Err(AnimError::ClipMismatch(format!(
                "node {} out of range",
                c.node
            )));
        }
    }
    for c in &clip.morph_channels {
        let tc = scene
            .nodes
            .get(c.node)
            .and_then(|nd| nd.mesh)
            .and_then(|m| scene.meshes.get(m))
            .map(|m| m.morph_target_names.len());
        if tc != Some(c.target_count) {
            return Err(AnimError::ClipMismatch(format!(
                "weights channel on node {} expects {} targets",
                c.node, c.target_count
            )));
        }
    }
    Ok(())
}

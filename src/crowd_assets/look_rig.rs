//! Which joints of a crowd model turn its head (people look back, `crowd::head_turn`): the
//! neck and the head, found by bone name, with where each sits in the bind pose. The crowd
//! shader rotates their skinning matrices about these points, as posed, before skinning.

use glam::Vec3;

use crate::asset::types::SceneAsset;

/// A joint that turns: its slot in the skin (its texels in the animation texture) and its
/// pivot in the mesh's bind space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnJoint {
    pub slot: u32,
    pub pivot: Vec3,
}

/// The neck and head of one skeleton. Without a head nothing turns; without a neck the head
/// takes the whole turn.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LookRig {
    pub neck: Option<TurnJoint>,
    pub head: Option<TurnJoint>,
}

impl LookRig {
    /// Finds the joints named `Neck` and `Head` (any case; the first of each) in `skin`.
    pub fn find(scene: &SceneAsset, skin: usize) -> LookRig {
        let Some(skin) = scene.skins.get(skin) else {
            return LookRig::default();
        };
        let joint = |name: &str| {
            skin.joints.iter().enumerate().find_map(|(slot, &node)| {
                let n = scene.nodes.get(node)?.name.as_deref()?;
                if !n.eq_ignore_ascii_case(name) {
                    return None;
                }
                let inverse_bind = skin.inverse_bind.get(slot)?;
                // The joint's bind-pose origin: the inverse bind matrix undone.
                let pivot = inverse_bind.inverse().w_axis.truncate();
                pivot.is_finite().then_some(TurnJoint {
                    slot: slot as u32,
                    pivot,
                })
            })
        };
        LookRig {
            neck: joint("neck"),
            head: joint("head"),
        }
    }

    /// The shader's `look_rig[2]`: per joint (neck, then head) the bind pivot in xyz and the
    /// slot in w, -1 where the joint is missing.
    pub fn uniforms(&self) -> [[f32; 4]; 2] {
        let one = |j: Option<TurnJoint>| match j {
            Some(j) => j.pivot.extend(j.slot as f32).to_array(),
            None => [0.0, 0.0, 0.0, -1.0],
        };
        [one(self.neck), one(self.head)]
    }
}

impl super::CrowdAssets {
    /// The rig that turns submesh `s`: that of the first body wearing it (props and
    /// attachments hang on their body's skeleton). None for a submesh no body wears.
    pub fn submesh_look_rig(&self, s: usize) -> LookRig {
        self.bodies
            .iter()
            .find(|b| b.wears(s))
            .map(|b| b.look_rig)
            .unwrap_or_default()
    }
}

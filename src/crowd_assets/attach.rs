//! A model's own rigid meshes hanging from its skeleton: KayKit's helmet, cape, shields and
//! swords on `head`, `chest` and the hand slots, RobotExpressive's body shells on every bone.
//! Each becomes part of the figure with one influence on the nearest joint above it (see
//! `props::attach_to_bone`). The level names them, by node or mesh name, in
//! `attachment_choices` (groups of alternatives, one worn per person) and `hidden_meshes`;
//! the rest are always worn and merged into the body.

use crate::asset::SceneAsset;

/// An attachment whose longest side is below this (metres, in the rest pose) is not drawn at
/// the far level of detail, where it would be a pixel or two.
pub const FAR_MIN_METRES: f32 = 0.5;

/// A mesh node without a skin below a joint of the crowd skin.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidNode {
    pub node: usize,
    /// Skin slot of the nearest ancestor that is a joint.
    pub slot: u32,
}

/// Every rigid mesh node with a joint of `skin` among its ancestors, in node order.
pub fn rigid_nodes(scene: &SceneAsset, skin: usize) -> Vec<RigidNode> {
    let Some(skin) = scene.skins.get(skin) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, n) in scene.nodes.iter().enumerate() {
        if n.mesh.is_none() || n.skin.is_some() {
            continue;
        }
        let mut up = n.parent;
        // Bounded walk: a malformed file cannot make it loop.
        for _ in 0..scene.nodes.len() {
            let Some(p) = up else {
                break;
            };
            if let Some(slot) = skin.joints.iter().position(|&j| j == p) {
                out.push(RigidNode {
                    node: i,
                    slot: slot as u32,
                });
                break;
            }
            up = scene.nodes.get(p).and_then(|q| q.parent);
        }
    }
    out
}

/// The name a rigid node goes by in messages: its node name, else its mesh's, else its index.
pub fn label(scene: &SceneAsset, node: usize) -> String {
    let n = &scene.nodes[node];
    n.name
        .clone()
        .or_else(|| {
            n.mesh
                .and_then(|m| scene.meshes.get(m))
                .and_then(|m| m.name.clone())
        })
        .unwrap_or_else(|| format!("node {node}"))
}

/// The rigid nodes a level's name means: every one whose node name or mesh name equals it.
pub fn find(scene: &SceneAsset, rigid: &[RigidNode], name: &str) -> Vec<usize> {
    rigid
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let n = &scene.nodes[r.node];
            n.name.as_deref() == Some(name)
                || n.mesh
                    .and_then(|m| scene.meshes.get(m))
                    .and_then(|m| m.name.as_deref())
                    == Some(name)
        })
        .map(|(k, _)| k)
        .collect()
}

/// Which of `options` alternatives person `person` wears from attachment group `group`: a
/// stable hash of both, so the same crowd (same seed, same indices) always dresses the same,
/// and the groups of one person are chosen independently.
pub fn choice(person: usize, group: usize, options: usize) -> usize {
    if options <= 1 {
        return 0;
    }
    let mut h = (person as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((group as u64 + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 32;
    (h % options as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_is_stable_spread_and_independent_per_group() {
        // Deterministic: the same person and group always give the same option.
        for p in 0..100 {
            assert_eq!(choice(p, 0, 5), choice(p, 0, 5));
            assert!(choice(p, 1, 3) < 3);
        }
        assert_eq!(choice(7, 0, 1), 0);
        assert_eq!(choice(7, 0, 0), 0);
        // Every option turns up in roughly its share.
        let mut counts = [0usize; 5];
        for p in 0..5000 {
            counts[choice(p, 0, 5)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
        // Groups are chosen independently: the pairs cover the whole grid.
        let mut pairs = std::collections::HashSet::new();
        for p in 0..1000 {
            pairs.insert((choice(p, 0, 5), choice(p, 1, 3)));
        }
        assert_eq!(pairs.len(), 15);
        // Neighbours do not march through the options in step.
        assert_ne!(
            (0..20).map(|p| choice(p, 0, 5)).collect::<Vec<_>>(),
            (0..20).map(|p| p % 5).collect::<Vec<_>>()
        );
    }
}

//! The hero's dynamic bounds (skinned joint bounds through the current pose, grown by the
//! morph displacement) and fitting the sun's shadow area around the casters that matter.

use glam::{Mat4, Vec2, Vec3};

use crate::anim::{skinned_bounds, MorphedPrimitive, ScenePose, SkinningPaletteSet};
use crate::asset::{Aabb, SceneAsset};

/// World bounds of every primitive of the scene as posed, under `model`.
pub fn world_bounds(
    scene: &SceneAsset,
    pose: &ScenePose,
    palettes: &SkinningPaletteSet,
    morphed: &[Vec<Option<MorphedPrimitive>>],
    model: &Mat4,
) -> Aabb {
    let mut out = Aabb::EMPTY;
    let Some(world) = pose.world_matrices() else {
        return out;
    };
    for (ni, node) in scene.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        let node_world = *model * world[ni];
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let m = morphed
                .get(ni)
                .and_then(|v| v.get(pi))
                .and_then(Option::as_ref);
            let local = match palettes.find(ni, pi) {
                Some(pal) => skinned_bounds(pal, m.map_or(0.0, |m| m.max_position_delta)),
                None => m.map_or(prim.bounds, |m| m.bounds),
            };
            out = out.union(&local.transformed(&node_world));
        }
    }
    out
}

/// Widens the sun's shadow area (centre, radius on the ground) so it covers `casters` too,
/// when they are close enough to cast into what the camera sees. Far casters are left out:
/// stretching the map for them would only blur the shadows in view.
pub fn fit_shadow_focus(focus: Vec3, reach: f32, casters: &[Aabb]) -> (Vec3, f32) {
    let mut c = Vec2::new(focus.x, focus.z);
    let mut r = reach;
    for b in casters
        .iter()
        .filter(|b| !b.is_empty() && b.min.is_finite() && b.max.is_finite())
    {
        let bc = Vec2::new(b.min.x + b.max.x, b.min.z + b.max.z) * 0.5;
        // Half the box's ground diagonal plus its height: its shadow on a low sun stays inside.
        let br = Vec2::new(b.max.x - b.min.x, b.max.z - b.min.z).length() * 0.5
            + (b.max.y - b.min.y).max(0.0);
        let d = c.distance(bc);
        if d > r * 1.5 + br {
            continue;
        }
        if d + br <= r {
            continue;
        }
        // Smallest circle holding both circles.
        let nr = (d + br + r) * 0.5;
        let dir = if d > 1e-6 { (bc - c) / d } else { Vec2::ZERO };
        c += dir * (nr - r);
        r = nr;
    }
    (Vec3::new(c.x, focus.y, c.y), r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aabb(min: Vec3, max: Vec3) -> Aabb {
        Aabb { min, max }
    }

    #[test]
    fn a_caster_at_the_edge_widens_the_area_just_enough() {
        let b = aabb(Vec3::new(9.5, 0.0, -0.5), Vec3::new(10.5, 1.5, 0.5));
        let (c, r) = fit_shadow_focus(Vec3::ZERO, 10.0, &[b]);
        let br = 2f32.sqrt() * 0.5 + 1.5;
        // Holds the old disc and the caster's disc, no more.
        assert_approx!(r, (10.0 + br + 10.0) * 0.5, 1e-4, "{r}");
        assert_approx!(Vec2::new(c.x, c.z).distance(Vec2::ZERO) + 10.0, r, 1e-4);
        assert_approx!(
            Vec2::new(c.x, c.z).distance(Vec2::new(10.0, 0.0)) + br,
            r,
            1e-4
        );
        // Inside: nothing changes. Far away: ignored.
        let inside = aabb(Vec3::new(1.0, 0.0, 1.0), Vec3::new(2.0, 1.0, 2.0));
        assert_eq!(
            fit_shadow_focus(Vec3::ZERO, 10.0, &[inside]),
            (Vec3::ZERO, 10.0)
        );
        let far = aabb(Vec3::new(100.0, 0.0, 0.0), Vec3::new(101.0, 1.0, 1.0));
        assert_eq!(
            fit_shadow_focus(Vec3::ZERO, 10.0, &[far]),
            (Vec3::ZERO, 10.0)
        );
    }
}

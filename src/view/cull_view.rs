//! The culling debug view: a second camera high above and to the side of the player's camera,
//! and the player's frustum as lines seen from it. The crowd is still culled and LOD-bucketed
//! for the player's camera; only the picture comes from the second one.

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::camera::CameraRig;
use crate::level::CameraMode;

/// How the second camera sits relative to where the player looks: further out, steeper, and
/// turned so the player's frustum shows as a wedge rather than edge-on.
const DISTANCE_FACTOR: f32 = 2.6;
const MIN_DISTANCE: f32 = 90.0;
const PITCH: f32 = 0.95;
const YAW_OFFSET: f32 = 0.9;

/// The second camera for `main`: an orbit camera around the ground the player looks at.
pub fn overview_camera(main: &CameraRig) -> CameraRig {
    let (focus, reach) = main.shadow_focus();
    let eye = main.eye();
    let to_focus = focus - eye;
    let yaw = if to_focus.x.abs() + to_focus.z.abs() > 1e-3 {
        // The orbit camera's yaw looks along (-sin, -cos); match the player's heading.
        (-to_focus.x).atan2(-to_focus.z)
    } else {
        main.orbit.yaw
    };
    let mut rig = *main;
    rig.mode = CameraMode::Orbit;
    rig.orbit.target = Vec3::new(focus.x, 0.0, focus.z);
    rig.orbit.distance = (reach.max(eye.distance(focus)) * DISTANCE_FACTOR).max(MIN_DISTANCE);
    rig.orbit.yaw = yaw + YAW_OFFSET;
    rig.orbit.pitch = PITCH;
    rig.far = rig.far.max(4000.0);
    rig
}

/// The eight corners of the frustum of `view_proj` (GL clip space, z in -1..1), cut off at view
/// distance `depth` along each edge: near corners first (counter-clockwise from bottom-left),
/// then the cut corners in the same order.
pub fn frustum_corners(view_proj: &Mat4, near: f32, far: f32, depth: f32) -> [Vec3; 8] {
    let inv = view_proj.inverse();
    let at = |x: f32, y: f32, z: f32| inv.project_point3(Vec3::new(x, y, z));
    let xy = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    // Points on one edge are linear in view depth between the near and far planes.
    let t = ((depth - near) / (far - near).max(1e-6)).clamp(0.0, 1.0);
    let mut out = [Vec3::ZERO; 8];
    for (k, (x, y)) in xy.into_iter().enumerate() {
        let n = at(x, y, -1.0);
        let f = at(x, y, 1.0);
        out[k] = n;
        out[k + 4] = n + (f - n) * t;
    }
    out
}

/// The frustum's twelve edges as corner index pairs.
pub const FRUSTUM_EDGES: [(usize, usize); 12] = [
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 0),
    (4, 5),
    (5, 6),
    (6, 7),
    (7, 4),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
];

/// A 3D segment in screen pixels as seen through `view_proj` (y down), clipped to the part in
/// front of the camera; None when it is wholly behind.
pub fn segment_on_screen(view_proj: &Mat4, a: Vec3, b: Vec3, screen: Vec2) -> Option<(Vec2, Vec2)> {
    const MIN_W: f32 = 1e-3;
    let mut ca = *view_proj * a.extend(1.0);
    let mut cb = *view_proj * b.extend(1.0);
    if ca.w < MIN_W && cb.w < MIN_W {
        return None;
    }
    // Cut the part behind the eye where w crosses MIN_W.
    let cut = |from: Vec4, to: Vec4| from + (to - from) * ((MIN_W - from.w) / (to.w - from.w));
    if ca.w < MIN_W {
        ca = cut(ca, cb);
    } else if cb.w < MIN_W {
        cb = cut(cb, ca);
    }
    let to_px = |c: Vec4| {
        let ndc = Vec2::new(c.x / c.w, c.y / c.w);
        Vec2::new(
            (ndc.x * 0.5 + 0.5) * screen.x,
            (0.5 - ndc.y * 0.5) * screen.y,
        )
    };
    Some((to_px(ca), to_px(cb)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::CameraStart;
    use crate::view::frustum::Frustum;

    fn player() -> CameraRig {
        CameraRig::from_start(&CameraStart {
            mode: CameraMode::Orbit,
            target: Vec3::new(-6.0, 1.0, 12.0),
            distance: 30.0,
            yaw_deg: 30.0,
            pitch_deg: 20.0,
            fov_deg: 50.0,
        })
    }

    #[test]
    fn the_corners_lie_on_the_frustum_and_at_the_cut_depth() {
        let cam = player();
        let vp = cam.view_projection(16.0 / 9.0);
        let corners = frustum_corners(&vp, cam.near, cam.far, 220.0);
        let frustum = Frustum::from_view_projection(&vp);
        let forward = (cam.orbit.target - cam.eye()).normalize();
        for (k, c) in corners.iter().enumerate() {
            // On the boundary: a tiny sphere there is (just) inside, one metre outward is not.
            assert!(frustum.contains_sphere(*c, 0.05), "corner {k} {c}");
            let depth = (*c - cam.eye()).dot(forward);
            let want = if k < 4 { cam.near } else { 220.0 };
            assert_approx!(depth, want, want * 1e-3 + 1e-3, "corner {k}: depth {depth}");
        }
    }

    #[test]
    fn the_overview_sees_the_players_surroundings_from_above() {
        let cam = player();
        let aspect = 16.0 / 9.0;
        let vp = cam.view_projection(aspect);
        let over = overview_camera(&cam);
        assert!(
            over.eye().y > cam.eye().y + 50.0,
            "well above: {}",
            over.eye()
        );
        let over_vp = over.view_projection(aspect);
        let screen = Vec2::new(1280.0, 720.0);
        // The player's own surroundings (30 m ahead) fit; further out the wedge may leave the
        // picture (the plaza, not the whole 220 m frustum, is what the view is framed for).
        let corners = frustum_corners(&vp, cam.near, cam.far, 30.0);
        for (a, b) in FRUSTUM_EDGES {
            let (pa, pb) = segment_on_screen(&over_vp, corners[a], corners[b], screen)
                .expect("in front of the overview camera");
            for p in [pa, pb] {
                assert!(
                    p.x > -1.0 && p.x < screen.x + 1.0 && p.y > -1.0 && p.y < screen.y + 1.0,
                    "edge {a}-{b} leaves the screen at {p}"
                );
            }
        }
    }

    #[test]
    fn segments_behind_the_eye_are_dropped_or_cut() {
        let cam = player();
        let vp = cam.view_projection(1.0);
        let eye = cam.eye();
        let back = eye - (cam.orbit.target - eye).normalize() * 10.0;
        let screen = Vec2::new(100.0, 100.0);
        assert!(segment_on_screen(&vp, back, back + Vec3::Y, screen).is_none());
        let (a, b) = segment_on_screen(&vp, back, cam.orbit.target, screen).expect("cut");
        assert!(a.is_finite() && b.is_finite());
        // The visible end is the target, in the middle of the screen.
        assert_approx!(b, Vec2::splat(50.0), 1.0, "{b}");
    }
}

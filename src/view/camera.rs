//! Cameras as plain data: input in, view and projection matrices out. No window needed.

use glam::{Mat4, Vec2, Vec3};

use crate::level::{CameraMode, CameraStart};

/// One frame of camera-relevant input, gathered by the app from the window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CameraInput {
    /// Mouse movement in pixels while the look/orbit button is held.
    pub look_delta: Vec2,
    /// Mouse movement in pixels while the pan button is held (orbit camera).
    pub pan_delta: Vec2,
    /// Wheel clicks, positive = towards the screen (zoom in / speed up).
    pub wheel: f32,
    /// Move intent in camera space: x = right, y = up, z = forward; each -1..1.
    pub movement: Vec3,
    /// Hold to move faster.
    pub fast: bool,
}

/// Circles a target point: drag to orbit, wheel to zoom, WASD or right-drag to pan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub distance: f32,
    pub yaw: f32,
    pub pitch: f32,
}

/// Flies freely: mouse looks, WASD moves, Q/E down/up, wheel changes speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlyCamera {
    pub position: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    /// Metres per second.
    pub speed: f32,
}

const ORBIT_PITCH_LIMITS: (f32, f32) = (0.05, 1.52);
const FLY_PITCH_LIMIT: f32 = 1.55;
const ORBIT_DISTANCE_LIMITS: (f32, f32) = (2.0, 800.0);
const LOOK_RADIANS_PER_PIXEL: f32 = 0.005;

/// Unit vector the camera looks along for a yaw (about +Y, 0 = -Z) and pitch (up positive).
pub fn forward_from_angles(yaw: f32, pitch: f32) -> Vec3 {
    Vec3::new(
        -yaw.sin() * pitch.cos(),
        pitch.sin(),
        -yaw.cos() * pitch.cos(),
    )
}

impl OrbitCamera {
    pub fn from_start(start: &CameraStart) -> Self {
        OrbitCamera {
            target: start.target,
            distance: start
                .distance
                .clamp(ORBIT_DISTANCE_LIMITS.0, ORBIT_DISTANCE_LIMITS.1),
            yaw: start.yaw_deg.to_radians(),
            pitch: start
                .pitch_deg
                .to_radians()
                .clamp(ORBIT_PITCH_LIMITS.0, ORBIT_PITCH_LIMITS.1),
        }
    }

    /// The camera looks down onto the target from above its pitch, so the eye sits behind and above.
    pub fn eye(&self) -> Vec3 {
        self.target - forward_from_angles(self.yaw, -self.pitch) * self.distance
    }

    pub fn update(&mut self, input: &CameraInput, dt: f32) {
        self.yaw -= input.look_delta.x * LOOK_RADIANS_PER_PIXEL;
        self.pitch = (self.pitch + input.look_delta.y * LOOK_RADIANS_PER_PIXEL)
            .clamp(ORBIT_PITCH_LIMITS.0, ORBIT_PITCH_LIMITS.1);
        // Zoom is multiplicative so it feels the same near and far.
        self.distance = (self.distance * 0.88f32.powf(input.wheel))
            .clamp(ORBIT_DISTANCE_LIMITS.0, ORBIT_DISTANCE_LIMITS.1);
        let flat_forward = Vec3::new(-self.yaw.sin(), 0.0, -self.yaw.cos());
        let right = Vec3::new(self.yaw.cos(), 0.0, -self.yaw.sin());
        // Panning speed follows the zoom level: at 40 m a pixel moves the target about 4 cm.
        let pan_scale = self.distance * 0.001;
        self.target += (-right * input.pan_delta.x + flat_forward * input.pan_delta.y) * pan_scale;
        let speed = self.distance * if input.fast { 1.5 } else { 0.6 };
        self.target += (right * input.movement.x + flat_forward * input.movement.z) * speed * dt;
        self.target.y = (self.target.y + input.movement.y * speed * dt).max(0.0);
    }

    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }
}

impl FlyCamera {
    pub fn from_start(start: &CameraStart) -> Self {
        let orbit = OrbitCamera::from_start(start);
        FlyCamera::looking_like(&orbit)
    }

    /// A fly camera placed where the orbit camera is, looking the same way: switching modes
    /// must not make the picture jump.
    pub fn looking_like(orbit: &OrbitCamera) -> Self {
        FlyCamera {
            position: orbit.eye(),
            yaw: orbit.yaw,
            pitch: -orbit.pitch,
            speed: 12.0,
        }
    }

    pub fn forward(&self) -> Vec3 {
        forward_from_angles(self.yaw, self.pitch)
    }

    pub fn update(&mut self, input: &CameraInput, dt: f32) {
        self.yaw -= input.look_delta.x * LOOK_RADIANS_PER_PIXEL;
        self.pitch = (self.pitch - input.look_delta.y * LOOK_RADIANS_PER_PIXEL)
            .clamp(-FLY_PITCH_LIMIT, FLY_PITCH_LIMIT);
        self.speed = (self.speed * 1.2f32.powf(input.wheel)).clamp(0.5, 400.0);
        let forward = self.forward();
        let right = Vec3::new(self.yaw.cos(), 0.0, -self.yaw.sin());
        let speed = self.speed * if input.fast { 4.0 } else { 1.0 };
        let step =
            right * input.movement.x + Vec3::Y * input.movement.y + forward * input.movement.z;
        self.position += step * speed * dt;
        // Never below the paving: the ground would clip away the whole picture.
        self.position.y = self.position.y.max(0.3);
    }

    pub fn view(&self) -> Mat4 {
        Mat4::look_to_rh(self.position, self.forward(), Vec3::Y)
    }
}

/// The follow camera's start: behind the hero, a little above, a few metres back.
const FOLLOW_DISTANCE: f32 = 4.5;
const FOLLOW_PITCH: f32 = 0.25;
/// How quickly the follow camera catches up with the hero (1/s): smooth, but never far behind.
const FOLLOW_STIFFNESS: f32 = 12.0;

/// The player's camera: one of the modes, switchable without a jump in the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraRig {
    pub mode: CameraMode,
    pub orbit: OrbitCamera,
    pub fly: FlyCamera,
    /// Orbits the hero (mode `Follow`): drag to orbit, wheel to zoom; WASD moves the hero.
    pub follow: OrbitCamera,
    /// How far the follow camera may be from its target now: people and props between it and
    /// the hero pull it in (`game`'s clearance sets it; infinite when nothing is in the way).
    pub follow_reach: f32,
    /// The lowest pitch the follow camera may have now: heads near the lens lift it over them
    /// (`game`'s clearance sets it; below every pitch when nobody is near).
    pub follow_lift: f32,
    pub fov_y: f32,
    pub near: f32,
    pub far: f32,
}

impl CameraRig {
    pub fn from_start(start: &CameraStart) -> Self {
        let orbit = OrbitCamera::from_start(start);
        CameraRig {
            // The follow camera needs the hero; until it exists, following means orbiting.
            mode: match start.mode {
                CameraMode::Fly => CameraMode::Fly,
                _ => CameraMode::Orbit,
            },
            orbit,
            fly: FlyCamera::looking_like(&orbit),
            follow: OrbitCamera {
                distance: FOLLOW_DISTANCE,
                pitch: FOLLOW_PITCH,
                ..orbit
            },
            follow_reach: f32::INFINITY,
            follow_lift: f32::NEG_INFINITY,
            fov_y: start.fov_deg.clamp(1.0, 170.0).to_radians(),
            near: 0.1,
            far: 2000.0,
        }
    }

    pub fn toggle_mode(&mut self) {
        match self.mode {
            CameraMode::Fly => {
                // Orbit around the point the fly camera was looking at, at the same distance.
                let forward = self.fly.forward();
                let distance = if forward.y < -0.05 {
                    (self.fly.position.y / -forward.y).clamp(2.0, 300.0)
                } else {
                    self.orbit.distance
                };
                self.orbit.target = self.fly.position + forward * distance;
                self.orbit.target.y = self.orbit.target.y.max(0.0);
                self.orbit.distance = distance;
                self.orbit.yaw = self.fly.yaw;
                self.orbit.pitch =
                    (-self.fly.pitch).clamp(ORBIT_PITCH_LIMITS.0, ORBIT_PITCH_LIMITS.1);
                self.mode = CameraMode::Orbit;
            }
            CameraMode::Follow => {
                self.fly = FlyCamera::looking_like(&self.follow_view());
                self.mode = CameraMode::Fly;
            }
            CameraMode::Orbit => {
                self.fly = FlyCamera::looking_like(&self.orbit);
                self.mode = CameraMode::Fly;
            }
        }
    }

    /// Switches between following the hero (looking at `hero_focus`) and the free cameras.
    /// Leaving keeps the picture: the orbit camera takes the follow camera's place.
    pub fn toggle_follow(&mut self, hero_focus: Vec3) {
        if self.mode == CameraMode::Follow {
            self.orbit = self.follow_view();
            self.mode = CameraMode::Orbit;
            return;
        }
        let yaw = match self.mode {
            CameraMode::Fly => self.fly.yaw,
            _ => self.orbit.yaw,
        };
        self.follow = OrbitCamera {
            target: hero_focus,
            distance: FOLLOW_DISTANCE,
            yaw,
            pitch: FOLLOW_PITCH,
        };
        self.follow_reach = f32::INFINITY;
        self.follow_lift = f32::NEG_INFINITY;
        self.mode = CameraMode::Follow;
    }

    /// The follow camera as placed: the player's distance, pulled in to `follow_reach`, and
    /// their pitch, lifted to `follow_lift`.
    pub fn follow_view(&self) -> OrbitCamera {
        OrbitCamera {
            distance: self.follow.distance.min(self.follow_reach.max(0.0)),
            pitch: self
                .follow
                .pitch
                .max(self.follow_lift.min(ORBIT_PITCH_LIMITS.1)),
            ..self.follow
        }
    }

    /// Eases the follow camera's target towards the hero (frame-rate independent).
    pub fn follow_target(&mut self, hero_focus: Vec3, dt: f32) {
        if !hero_focus.is_finite() {
            return;
        }
        let k = 1.0 - (-FOLLOW_STIFFNESS * dt.max(0.0)).exp();
        self.follow.target = self.follow.target.lerp(hero_focus, k);
    }

    pub fn update(&mut self, input: &CameraInput, dt: f32) {
        match self.mode {
            CameraMode::Fly => self.fly.update(input, dt),
            CameraMode::Follow => {
                // The keys move the hero, not the camera; the mouse orbits and zooms.
                let orbit_only = CameraInput {
                    look_delta: input.look_delta,
                    wheel: input.wheel,
                    ..Default::default()
                };
                self.follow.update(&orbit_only, dt);
                self.follow.distance = self.follow.distance.min(60.0);
            }
            CameraMode::Orbit => self.orbit.update(input, dt),
        }
    }

    pub fn eye(&self) -> Vec3 {
        match self.mode {
            CameraMode::Fly => self.fly.position,
            CameraMode::Follow => self.follow_view().eye(),
            CameraMode::Orbit => self.orbit.eye(),
        }
    }

    pub fn view(&self) -> Mat4 {
        match self.mode {
            CameraMode::Fly => self.fly.view(),
            CameraMode::Follow => self.follow_view().view(),
            CameraMode::Orbit => self.orbit.view(),
        }
    }

    /// Where the sun's shadow map should be centred and how far it must reach: the ground the
    /// player is looking at, wider when the camera is further away.
    pub fn shadow_focus(&self) -> (Vec3, f32) {
        match self.mode {
            CameraMode::Fly => {
                let f = self.fly.forward();
                let distance = if f.y < -0.05 {
                    (self.fly.position.y / -f.y).min(120.0)
                } else {
                    60.0
                };
                let ground = self.fly.position + f * distance * 0.6;
                (ground, (distance * 0.9).clamp(25.0, 90.0))
            }
            // Close to the hero: a tighter map than the orbit's gives its shadow crisp legs,
            // centred ahead of it where most of the visible ground is (the hero's own bounds
            // are fitted in by the caller).
            CameraMode::Follow => {
                let f = &self.follow;
                let reach = (f.distance * 2.0).clamp(22.0, 90.0);
                let ahead = Vec3::new(-f.yaw.sin(), 0.0, -f.yaw.cos()) * reach * 0.45;
                (f.target + ahead, reach)
            }
            CameraMode::Orbit => (
                self.orbit.target,
                (self.orbit.distance * 1.1).clamp(25.0, 90.0),
            ),
        }
    }

    /// OpenGL clip space (depth -1..1), right-handed.
    pub fn projection(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        Mat4::perspective_rh_gl(self.fov_y, aspect, self.near, self.far)
    }

    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }
}

/// The ground point (y = 0) under a screen position given in normalised device coordinates
/// (-1..1, +y up); None when that ray does not hit the ground in front of the camera.
pub fn ground_point(view_proj: &Mat4, ndc: Vec2) -> Option<Vec3> {
    let inv = view_proj.inverse();
    let near = inv.project_point3(Vec3::new(ndc.x, ndc.y, -1.0));
    let far = inv.project_point3(Vec3::new(ndc.x, ndc.y, 1.0));
    let dir = far - near;
    if !dir.is_finite() || dir.y >= -1e-6 {
        return None;
    }
    let t = -near.y / dir.y;
    (t >= 0.0).then(|| near + dir * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> CameraStart {
        CameraStart::default()
    }

    #[test]
    fn orbit_eye_is_at_distance_above_target_and_looks_at_it() {
        let cam = OrbitCamera::from_start(&start());
        let eye = cam.eye();
        assert_approx!(eye.distance(cam.target), cam.distance, 1e-3);
        assert!(eye.y > cam.target.y);
        // The target projects to the screen centre.
        let rig = CameraRig::from_start(&start());
        let clip = rig.view_projection(16.0 / 9.0) * cam.target.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        assert_approx!(ndc.x, 0.0, 1e-4, "{ndc:?}");
        assert_approx!(ndc.y, 0.0, 1e-4, "{ndc:?}");
    }

    #[test]
    fn orbit_zoom_and_pitch_are_clamped() {
        let mut cam = OrbitCamera::from_start(&start());
        let input = CameraInput {
            wheel: 500.0,
            look_delta: Vec2::new(0.0, 1e6),
            ..Default::default()
        };
        cam.update(&input, 0.016);
        assert_eq!(cam.distance, ORBIT_DISTANCE_LIMITS.0);
        assert_eq!(cam.pitch, ORBIT_PITCH_LIMITS.1);
        assert!(cam.eye().y > 0.0);
    }

    #[test]
    fn fly_moves_forward_along_view_and_stays_above_ground() {
        let mut fly = FlyCamera {
            position: Vec3::new(0.0, 2.0, 0.0),
            yaw: 0.0,
            pitch: 0.0,
            speed: 10.0,
        };
        fly.update(
            &CameraInput {
                movement: Vec3::Z,
                ..Default::default()
            },
            1.0,
        );
        assert_approx!(fly.position, Vec3::new(0.0, 2.0, -10.0), 1e-4);
        fly.update(
            &CameraInput {
                movement: -Vec3::Y,
                ..Default::default()
            },
            10.0,
        );
        assert_eq!(fly.position.y, 0.3);
    }

    #[test]
    fn the_screen_centre_picks_the_orbit_target_on_the_ground() {
        let mut start = start();
        start.target = Vec3::new(5.0, 0.0, -3.0);
        let rig = CameraRig::from_start(&start);
        let p = ground_point(&rig.view_projection(1.5), Vec2::ZERO).expect("hits the ground");
        assert_approx!(p, start.target, 1e-3, "{p}");
        // Straight up into the sky: no ground.
        assert!(
            ground_point(&rig.view_projection(1.5), Vec2::new(0.0, 1.0)).is_none()
                || start.pitch_deg > 25.0
        );
    }

    #[test]
    fn follow_camera_leaves_without_a_jump_and_ignores_the_keys() {
        let mut rig = CameraRig::from_start(&start());
        rig.toggle_follow(Vec3::new(3.0, 1.0, 4.0));
        assert_eq!(rig.mode, CameraMode::Follow);
        assert_eq!(rig.follow.target, Vec3::new(3.0, 1.0, 4.0));
        let before = rig.follow;
        rig.update(
            &CameraInput {
                movement: Vec3::Z,
                pan_delta: Vec2::new(50.0, 0.0),
                ..Default::default()
            },
            1.0,
        );
        assert_eq!(
            rig.follow, before,
            "WASD and pan belong to the hero in follow mode"
        );
        let view = rig.view();
        rig.toggle_follow(Vec3::ZERO);
        assert_eq!(rig.mode, CameraMode::Orbit);
        assert!(rig.view().abs_diff_eq(view, 1e-5));
        // Catching up: after a second at 60 fps the target is within a millimetre.
        rig.toggle_follow(Vec3::ZERO);
        for _ in 0..60 {
            rig.follow_target(Vec3::new(10.0, 1.0, 0.0), 1.0 / 60.0);
        }
        assert_approx!(rig.follow.target, Vec3::new(10.0, 1.0, 0.0), 1e-3);
    }

    #[test]
    fn switching_modes_keeps_the_picture() {
        let mut rig = CameraRig::from_start(&start());
        let before = rig.view();
        rig.toggle_mode();
        assert_eq!(rig.mode, CameraMode::Fly);
        assert!(rig.view().abs_diff_eq(before, 1e-3));
        rig.toggle_mode();
        assert_eq!(rig.mode, CameraMode::Orbit);
        assert!(
            rig.view().abs_diff_eq(before, 1e-2),
            "{:?} vs {:?}",
            rig.view(),
            before
        );
    }
}

//! The player's sandbox in the running game: placed things applied without restarting the
//! crowd, the selected person (the story card), following them with the follow camera and
//! steering them with the hero's controls.

use glam::{Vec2, Vec3};

use super::Game;
use crate::level::{Level, Placed};

/// A controlled person's walking and running speeds (m/s), the hero's keys' two speeds.
const CONTROL_WALK: f32 = 1.4;
const CONTROL_RUN: f32 = 3.2;

/// Whether two levels differ in their placed things only (so the crowd need not restart).
pub fn differs_only_in_placed(a: &Level, b: &Level) -> bool {
    let strip = |l: &Level| Level {
        placed: Vec::new(),
        placed_expanded: false,
        ..l.clone()
    };
    a.placed != b.placed && strip(a) == strip(b)
}

impl Game {
    /// Replaces the level's placed things: the crowd takes them at once (obstacles, routes,
    /// queues, shows), the hero collides with them, the scenery is rebuilt.
    pub fn set_placed(&mut self, placed: Vec<Placed>) {
        self.level.placed = placed;
        self.agents.set_placed(&self.level);
        if let Some(h) = &mut self.hero {
            h.set_level(&self.level);
        }
        self.scenery_version += 1;
    }

    /// The person the story card shows.
    pub fn selected_person(&self) -> Option<usize> {
        self.selected.filter(|&i| i < self.agents.len())
    }

    /// Selects a person (None: nobody).
    pub fn select_person(&mut self, i: Option<usize>) {
        self.selected = i.filter(|&i| i < self.agents.len());
    }

    /// The person the follow camera follows instead of the hero.
    /// Nobody once they have left through an exit (the camera goes back to the hero).
    pub fn followed_person(&self) -> Option<usize> {
        self.followed
            .filter(|&i| i < self.agents.len() && !self.agents.is_out(i))
    }

    /// Where the follow camera looks at a person: about their chest.
    pub fn person_focus(&self, i: usize) -> Vec3 {
        let (p, _) = self.agents.drawn_at(i);
        Vec3::new(p.x, 1.2, p.y)
    }

    /// F with a person selected: the follow camera follows them (again: back to a free view).
    pub(super) fn toggle_follow_person(&mut self, i: usize) {
        self.follow_clearance = Default::default();
        self.gliding = false;
        self.motion.cancel(&super::Motion::CameraGlide);
        if self.followed_person() == Some(i) && self.camera.mode == crate::level::CameraMode::Follow
        {
            self.followed = None;
            self.camera.toggle_follow(self.person_focus(i));
            self.notes.push("stopped following".into());
            return;
        }
        self.followed = Some(i);
        if self.camera.mode != crate::level::CameraMode::Follow {
            self.camera.toggle_follow(self.person_focus(i));
        }
        let name = crate::crowd::story::person_name(self.agents_seed(), i);
        self.notes.push(format!("following {name} (F again stops)"));
    }

    /// T with a person selected: the player steers them with the hero's keys; T again lets
    /// them go back to the crowd and the camera back to the hero.
    pub(super) fn toggle_control(&mut self) {
        if let Some(i) = self.agents.controlled() {
            self.agents.release_control();
            let name = crate::crowd::story::person_name(self.agents_seed(), i);
            self.notes.push(format!(
                "{name} goes back to the crowd; the keys move the hero again"
            ));
            self.followed = None;
            if let Some(h) = &self.hero {
                self.camera.follow.target = h.focus_point();
            }
            return;
        }
        let Some(i) = self.selected_person() else {
            self.notes
                .push("click someone first, then T takes control of them".into());
            return;
        };
        if self.agents.take_control(i) {
            self.followed = Some(i);
            if self.camera.mode != crate::level::CameraMode::Follow {
                self.camera.toggle_follow(self.person_focus(i));
            }
            let name = crate::crowd::story::person_name(self.agents_seed(), i);
            self.notes.push(format!(
                "you steer {name} (WASD, Shift runs; T lets them go)"
            ));
        }
    }

    /// The seed the crowd was spawned with (names depend on it).
    pub fn agents_seed(&self) -> u64 {
        self.options.seed.unwrap_or(self.level.crowd.seed)
    }

    /// The follow camera's keys steer the controlled person, not the hero: their velocity
    /// for the crowd's next steps. Returns true when a person took the keys.
    pub(super) fn steer_controlled_person(&mut self, direction: Vec2, run: bool) -> bool {
        if self.agents.controlled().is_none() {
            return false;
        }
        let speed = if run { CONTROL_RUN } else { CONTROL_WALK };
        self.agents
            .set_control_velocity(direction.normalize_or_zero() * speed);
        true
    }
}

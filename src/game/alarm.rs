//! Alarms in the running game: the player's key (at the camera's focus), the level's timed
//! alarm events, the all-clear, and opening or closing exits.

use glam::Vec2;

use super::Game;

impl Game {
    /// Raises the alarm at `at` (the crowd's part: `Crowd::raise_alarm`).
    pub fn raise_alarm(&mut self, at: Vec2) {
        if self.level.exits.iter().all(|e| e.closed) {
            self.notes.push(
                "the alarm sounds, but this level has no open exit: add `exits` to it (F9 \
                 or the level file)"
                    .into(),
            );
        } else {
            self.notes.push(format!(
                "alarm raised at ({:.1}, {:.1}): K again gives the all-clear",
                at.x, at.y
            ));
        }
        self.agents.raise_alarm(at);
    }

    /// The all-clear: the alarmed calm down, those who left come back in over time.
    pub fn all_clear(&mut self) {
        if self.agents.evacuation().sounding() {
            self.notes
                .push("all clear: people calm down and come back in".into());
        }
        self.agents.all_clear();
        self.timed_alarms.cancel();
    }

    /// K: the alarm at the camera's focus, or the all-clear while one sounds.
    pub(super) fn toggle_alarm(&mut self) {
        if self.agents.evacuation().sounding() {
            self.all_clear();
        } else {
            let focus = self.camera.shadow_focus().0;
            self.raise_alarm(Vec2::new(focus.x, focus.z));
        }
    }

    /// Opens exit `k` if closed, closes it if open; returns true when it is now closed.
    pub fn toggle_exit(&mut self, k: usize) -> bool {
        let Some(e) = self.agents.evacuation().exits().get(k) else {
            return false;
        };
        let (name, closed) = (e.name.clone(), !e.closed);
        self.notes.push(format!(
            "exit \"{name}\" {}",
            if closed { "closed" } else { "opened" }
        ));
        self.agents.set_exit_closed(k, closed)
    }

    /// Raises the level's alarm events whose time falls in this step, and gives a scheduled
    /// all-clear when due (`now` and `dt`: simulated seconds since the level started).
    pub(super) fn run_alarm_events(&mut self, now: f64, dt: f32) {
        let due = self
            .timed_alarms
            .due(&self.level.alarms, now, f64::from(dt));
        for at in due.raised {
            self.raise_alarm(at);
        }
        if due.all_clear {
            self.all_clear();
        }
    }
}

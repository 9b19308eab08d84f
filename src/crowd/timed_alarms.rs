//! A level's timed alarms (`alarms`): which sound in a step, and when the all-clear one of them
//! scheduled is due. Shared by the game and `throng record`, so a recorded level evacuates as
//! it does on screen.

use glam::Vec2;

use crate::level::AlarmEvent;

/// What a step from `now` to `now + dt` brings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DueAlarms {
    /// Where alarms sound this step, in the level's order.
    pub raised: Vec<Vec2>,
    /// A scheduled all-clear falls in this step (after any alarm raised in it).
    pub all_clear: bool,
}

/// The all-clear the last raised alarm scheduled, if any.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TimedAlarms {
    all_clear_at: Option<f64>,
}

impl TimedAlarms {
    /// The alarms whose time falls in `[now, now + dt)` (simulated seconds since the level
    /// started) and whether a scheduled all-clear is due; a raised alarm replaces the
    /// schedule with its own.
    pub fn due(&mut self, alarms: &[AlarmEvent], now: f64, dt: f64) -> DueAlarms {
        let end = now + dt;
        let mut out = DueAlarms::default();
        for event in alarms
            .iter()
            .filter(|a| f64::from(a.at) >= now && f64::from(a.at) < end)
        {
            out.raised.push(event.position);
            self.all_clear_at = event
                .all_clear_after
                .map(|after| f64::from(event.at) + f64::from(after));
        }
        if self.all_clear_at.is_some_and(|t| t < end) {
            out.all_clear = true;
            self.all_clear_at = None;
        }
        out
    }

    /// Forgets a scheduled all-clear (the player gave it already).
    pub fn cancel(&mut self) {
        self.all_clear_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alarms_sound_in_their_step_and_schedule_their_all_clear() {
        let alarms = [
            AlarmEvent {
                at: 1.0,
                position: Vec2::new(3.0, 4.0),
                all_clear_after: Some(2.0),
            },
            AlarmEvent {
                at: 10.0,
                position: Vec2::ZERO,
                all_clear_after: None,
            },
        ];
        let mut t = TimedAlarms::default();
        assert_eq!(t.due(&alarms, 0.0, 0.5), DueAlarms::default());
        let step = t.due(&alarms, 0.99, 0.02);
        assert_eq!(step.raised, vec![Vec2::new(3.0, 4.0)]);
        assert!(!step.all_clear);
        assert!(!t.due(&alarms, 2.9, 0.05).all_clear);
        assert!(t.due(&alarms, 2.99, 0.02).all_clear, "at 1 + 2 s");
        assert!(!t.due(&alarms, 3.01, 0.02).all_clear, "only once");
        let step = t.due(&alarms, 9.99, 0.02);
        assert_eq!(step.raised, vec![Vec2::ZERO]);
        assert!(
            !t.due(&alarms, 100.0, 1.0).all_clear,
            "no all-clear scheduled"
        );
    }
}

//! Animation state per agent as plain data for the renderer: two clips, their times and a blend.

pub use crate::clip_kind::ClipKind;

/// Ground speed (m/s) at which the walk and run clips play at rate 1: playback scales with the
/// agent's real speed so feet do not slide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipSpeeds {
    pub walk: f32,
    pub run: f32,
    /// Above this speed the run clip takes over from the walk.
    pub run_threshold: f32,
}

impl Default for ClipSpeeds {
    fn default() -> Self {
        ClipSpeeds {
            walk: 1.35,
            run: 3.5,
            run_threshold: 2.3,
        }
    }
}

/// Seconds a cross-fade between two clips lasts.
pub const CROSS_FADE: f32 = 0.25;

/// What the renderer needs to pose one agent: clip A at time A blended towards clip B at time B
/// by `blend` (0 = only A, 1 = only B).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AnimState {
    pub clip_a: ClipKind,
    pub time_a: f32,
    pub clip_b: ClipKind,
    pub time_b: f32,
    pub blend: f32,
}

impl AnimState {
    pub fn new(clip: ClipKind, phase: f32) -> Self {
        AnimState {
            clip_a: clip,
            time_a: phase,
            clip_b: clip,
            time_b: phase,
            blend: 0.0,
        }
    }

    /// The clip the agent is heading to (B while fading, else A).
    pub fn target(&self) -> ClipKind {
        if self.blend > 0.0 {
            self.clip_b
        } else {
            self.clip_a
        }
    }

    /// Advances by `dt` seconds at playback `rate`, starting a cross-fade when `want` differs from
    /// the current target. A fade already running towards `want` simply continues.
    pub fn advance(&mut self, want: ClipKind, rate: f32, dt: f32, phase_for_new: f32) {
        let rate = if rate.is_finite() {
            rate.clamp(0.0, 3.0)
        } else {
            1.0
        };
        if want != self.target() {
            if self.blend > 0.0 {
                // Interrupted fade: the clip that was fading in becomes the one fading out.
                self.clip_a = self.clip_b;
                self.time_a = self.time_b;
            }
            self.clip_b = want;
            self.time_b = phase_for_new;
            self.blend = f32::EPSILON;
        }
        self.time_a += dt * rate;
        if self.blend > 0.0 {
            self.time_b += dt * rate;
            self.blend += dt / CROSS_FADE;
            if self.blend >= 1.0 {
                self.clip_a = self.clip_b;
                self.time_a = self.time_b;
                self.blend = 0.0;
            }
        }
    }
}

/// The clip and playback rate for an agent moving at `speed` whose activity asks for `idle_clip`
/// when standing.
pub fn choose_clip(speed: f32, idle_clip: ClipKind, speeds: &ClipSpeeds) -> (ClipKind, f32) {
    if speed < 0.15 {
        (idle_clip, 1.0)
    } else if speed < speeds.run_threshold {
        (ClipKind::Walk, speed / speeds.walk)
    } else {
        (ClipKind::Run, speed / speeds.run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playback_rate_follows_ground_speed() {
        let s = ClipSpeeds::default();
        assert_eq!(choose_clip(0.0, ClipKind::Talk, &s), (ClipKind::Talk, 1.0));
        let (c, r) = choose_clip(1.35, ClipKind::Idle, &s);
        assert_eq!(c, ClipKind::Walk);
        assert!((r - 1.0).abs() < 1e-6);
        let (c, r) = choose_clip(0.675, ClipKind::Idle, &s);
        assert_eq!(c, ClipKind::Walk);
        assert!((r - 0.5).abs() < 1e-6);
        assert_eq!(choose_clip(3.5, ClipKind::Idle, &s).0, ClipKind::Run);
    }

    #[test]
    fn cross_fade_takes_a_quarter_second_and_survives_interruption() {
        let mut a = AnimState::new(ClipKind::Idle, 0.3);
        a.advance(ClipKind::Walk, 1.0, 0.1, 0.0);
        assert_eq!((a.clip_a, a.clip_b), (ClipKind::Idle, ClipKind::Walk));
        assert!((a.blend - 0.4).abs() < 1e-3, "{}", a.blend);
        // Interrupted towards Run: Walk becomes the outgoing clip.
        a.advance(ClipKind::Run, 1.0, 0.1, 0.0);
        assert_eq!((a.clip_a, a.clip_b), (ClipKind::Walk, ClipKind::Run));
        for _ in 0..3 {
            a.advance(ClipKind::Run, 1.0, 0.1, 0.0);
        }
        assert_eq!((a.clip_a, a.blend), (ClipKind::Run, 0.0));
        // Run started at phase 0 and has played 0.4 s since.
        assert!((a.time_a - 0.4).abs() < 1e-4, "{}", a.time_a);
    }
}

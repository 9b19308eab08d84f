//! A person's head turn rides in the spare range of the skin-tone lane of their instance block
//! (vec4 4, w), so the block stays five vec4 and no per-person palette is uploaded.
//!
//! `w = tone + 2 · code`, tone in [0, 1]; `code = zigzag(yaw step) · 128 + zigzag(pitch step)`,
//! each angle in steps of its limit / 63 (yaw 1.11°, pitch 0.48°), zigzag mapping 0, -1, 1,
//! -2, 2 ... to 0, 1, 2, 3, 4 ... so that no turn is code 0 and the lane is exactly the old
//! tone. The largest code is 126 · 128 + 126 = 16,254, so w stays below 2^15 where an f32
//! still resolves 2^-9: the tone keeps 1/512 precision (it drives a colour mix; 8-bit output
//! cannot show less). Decoding in GLSL: `code = floor(w / 2)`, `tone = w - 2 code` (see
//! `shaders/crowd.vert`, `look_turn`).

use crate::crowd::head_turn::{MAX_PITCH, MAX_YAW};

/// Steps each side of straight ahead for each angle.
pub const LOOK_STEPS: i32 = 63;
/// Radians per step of yaw and of pitch.
pub const YAW_STEP: f32 = MAX_YAW / LOOK_STEPS as f32;
pub const PITCH_STEP: f32 = MAX_PITCH / LOOK_STEPS as f32;

fn zigzag(n: i32) -> u32 {
    if n >= 0 {
        (n as u32) * 2
    } else {
        (-n as u32) * 2 - 1
    }
}

fn unzigzag(z: u32) -> i32 {
    if z & 1 == 0 {
        (z / 2) as i32
    } else {
        -(z.div_ceil(2) as i32)
    }
}

fn steps(angle: f32, step: f32) -> i32 {
    if !angle.is_finite() {
        return 0;
    }
    ((angle / step).round() as i32).clamp(-LOOK_STEPS, LOOK_STEPS)
}

/// The lane value for skin `tone` (clamped to [0, 1]) and a head turn (radians, clamped to the
/// limits and rounded to their steps).
pub fn pack_look(tone: f32, yaw: f32, pitch: f32) -> f32 {
    let code = zigzag(steps(yaw, YAW_STEP)) * 128 + zigzag(steps(pitch, PITCH_STEP));
    tone.clamp(0.0, 1.0) + 2.0 * code as f32
}

/// What the shader reads back: (tone, yaw, pitch).
pub fn unpack_look(w: f32) -> (f32, f32, f32) {
    let code = (w * 0.5).floor().max(0.0);
    let tone = w - 2.0 * code;
    let code = code as u32;
    (
        tone,
        unzigzag(code >> 7) as f32 * YAW_STEP,
        unzigzag(code & 127) as f32 * PITCH_STEP,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_turn_leaves_the_lane_exactly_the_tone() {
        for tone in [0.0, 0.37, 1.0] {
            assert_eq!(pack_look(tone, 0.0, 0.0), tone);
            assert_eq!(unpack_look(tone), (tone, 0.0, 0.0));
        }
        // Turns below half a step round to none.
        assert_eq!(pack_look(0.5, YAW_STEP * 0.49, -PITCH_STEP * 0.49), 0.5);
    }

    #[test]
    fn turns_and_tone_round_trip_within_a_step() {
        for &tone in &[0.0, 0.001, 0.5, 0.999, 1.0] {
            for &yaw in &[-MAX_YAW, -0.6, -YAW_STEP, 0.0, 0.013, 0.9, MAX_YAW] {
                for &pitch in &[-MAX_PITCH, -0.2, 0.0, PITCH_STEP, 0.31, MAX_PITCH] {
                    let w = pack_look(tone, yaw, pitch);
                    let (t, y, p) = unpack_look(w);
                    assert!((t - tone).abs() <= 1.0 / 512.0, "tone {tone} -> {t}");
                    assert!((y - yaw).abs() <= YAW_STEP * 0.5 + 1e-6, "yaw {yaw} -> {y}");
                    assert!(
                        (p - pitch).abs() <= PITCH_STEP * 0.5 + 1e-6,
                        "{pitch} -> {p}"
                    );
                    // The shader decodes with the same arithmetic in f32.
                    assert!(w < 32_768.0);
                }
            }
        }
    }

    #[test]
    fn beyond_the_limits_clamps_and_nonsense_is_no_turn() {
        let (_, y, p) = unpack_look(pack_look(0.2, 3.0, -3.0));
        assert!((y - MAX_YAW).abs() < 1e-6 && (p + MAX_PITCH).abs() < 1e-6);
        assert_eq!(pack_look(0.2, f32::NAN, f32::INFINITY), 0.2);
        // Every step decodes to itself: the zigzag is a bijection on the range.
        for s in -LOOK_STEPS..=LOOK_STEPS {
            assert_eq!(unzigzag(zigzag(s)), s);
        }
        assert_eq!(zigzag(-LOOK_STEPS).max(zigzag(LOOK_STEPS)), 126);
    }
}

//! The mark on the ground where the hero was told to look (Ctrl+click): a ring with a cross
//! and a post, so the player sees the point was taken; orange while it is out of her reach.

use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{draw_line, Color};

use crate::view::level_overlay::project_segment;

/// Ring radius and post height (metres).
const RADIUS: f32 = 0.6;
const POST: f32 = 1.2;
const SEGMENTS: usize = 24;

/// The marker's lines in the world: the ring on the ground, a cross inside it and a post up
/// from the centre.
pub fn marker_lines(point: Vec3) -> Vec<(Vec3, Vec3)> {
    let at = |a: f32, r: f32| point + Vec3::new(a.cos() * r, 0.02, a.sin() * r);
    let step = std::f32::consts::TAU / SEGMENTS as f32;
    let mut lines: Vec<(Vec3, Vec3)> = (0..SEGMENTS)
        .map(|i| {
            (
                at(i as f32 * step, RADIUS),
                at((i + 1) as f32 * step, RADIUS),
            )
        })
        .collect();
    let half = RADIUS * 0.5;
    lines.push((
        point + Vec3::new(-half, 0.02, 0.0),
        point + Vec3::new(half, 0.02, 0.0),
    ));
    lines.push((
        point + Vec3::new(0.0, 0.02, -half),
        point + Vec3::new(0.0, 0.02, half),
    ));
    lines.push((point, point + Vec3::new(0.0, POST, 0.0)));
    lines
}

/// Draws the marker at `point` for the camera `view_proj` on a screen of `screen` units.
pub fn draw(view_proj: &Mat4, point: Vec3, screen: Vec2, within_reach: bool) {
    let color = if within_reach {
        Color::new(1.0, 0.92, 0.25, 0.95)
    } else {
        Color::new(1.0, 0.45, 0.1, 0.95)
    };
    for (a, b) in marker_lines(point) {
        if let Some((p, q)) = project_segment(view_proj, a, b, screen) {
            draw_line(p.x, p.y, q.x, q.y, 3.0, color);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_lies_on_the_ground_around_the_point_and_the_post_stands_on_it() {
        let p = Vec3::new(3.0, 0.0, -2.0);
        let lines = marker_lines(p);
        assert_eq!(lines.len(), SEGMENTS + 3);
        for (a, _) in &lines[..SEGMENTS] {
            let flat = Vec2::new(a.x - p.x, a.z - p.z);
            assert!((flat.length() - RADIUS).abs() < 1e-5, "{a}");
            assert!((a.y - 0.02).abs() < 1e-6);
        }
        // The ring closes on itself.
        assert!(lines[SEGMENTS - 1].1.distance(lines[0].0) < 1e-5);
        assert_eq!(lines[SEGMENTS + 2], (p, p + Vec3::new(0.0, POST, 0.0)));
    }
}

//! Where a label for a point in the world goes on the screen: above the point when it is in
//! the picture, else at the screen's edge in the point's direction with an arrow pointing
//! that way (behind the camera too), kept off panels and off labels placed before it.

use glam::{Mat4, Vec2, Vec3};

use super::pointer::Rect;

/// Pixels kept free between a label and the screen's edge (the arrow goes there).
pub const EDGE_MARGIN: f32 = 22.0;
/// Pixels kept between a label and a panel or another label.
const GAP: f32 = 4.0;
/// How many times a label slides past something in its way before it is left out.
const TRIES: usize = 6;

/// A placed label: its box, and for a point off the screen the unit direction (screen pixels,
/// y down) its arrow points in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub rect: Rect,
    pub arrow: Option<Vec2>,
}

/// Where the point `at` is: projected into the screen, or off it in a direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Spot {
    On(Vec2),
    Off(Vec2),
}

/// Where `at` lands on a `screen` (logical units) seen through `view_proj`: on the screen
/// (inside the margin), or off it with the direction from the screen's centre towards it. A
/// point behind the camera points the way the camera would turn to face it.
pub fn spot(view_proj: &Mat4, at: Vec3, screen: Vec2) -> Spot {
    let c = *view_proj * at.extend(1.0);
    // Screen pixels per unit of clip x / y, y down.
    let half = Vec2::new(screen.x * 0.5, -screen.y * 0.5);
    if c.w > 0.05 {
        let p = Vec2::new(c.x / c.w, c.y / c.w) * half + screen * 0.5;
        let inside = p.x >= EDGE_MARGIN
            && p.y >= EDGE_MARGIN
            && p.x <= screen.x - EDGE_MARGIN
            && p.y <= screen.y - EDGE_MARGIN;
        if inside {
            return Spot::On(p);
        }
    }
    let mut dir = Vec2::new(c.x, c.y) * half;
    if c.w <= 0.05 && dir.y < 0.0 {
        // Behind and above the middle: pointing down reads as "turn round" better than up,
        // and keeps the arrow off the HUD along the top.
        dir.y = -dir.y;
    }
    Spot::Off(dir.try_normalize().unwrap_or(Vec2::Y))
}

/// Places a label of `size` for `spot`: its bottom centre on the point, or against the edge in
/// its direction. Slides it past `taken` boxes (panels, labels placed earlier), up or down,
/// whichever keeps it on the screen; None when no place is free.
pub fn place(spot: Spot, size: Vec2, screen: Vec2, taken: &[Rect]) -> Option<Placed> {
    let (centre, arrow) = match spot {
        Spot::On(p) => (Vec2::new(p.x, p.y - size.y * 0.5), None),
        Spot::Off(dir) => (edge_point(dir, size, screen), Some(dir)),
    };
    let clamp = |c: Vec2| {
        let lo = Vec2::splat(EDGE_MARGIN) + size * 0.5;
        let hi = screen - Vec2::splat(EDGE_MARGIN) - size * 0.5;
        c.clamp(lo, hi.max(lo))
    };
    let mut rect = rect_at(clamp(centre), size);
    for _ in 0..TRIES {
        let Some(q) = taken.iter().find(|q| grown(q).overlaps(&rect)) else {
            return fits(&rect, screen).then_some(Placed { rect, arrow });
        };
        let above = q.y - GAP - size.y;
        let below = q.y + q.h + GAP;
        let prefer_up = rect.y + rect.h * 0.5 < q.y + q.h * 0.5;
        let (first, second) = if prefer_up {
            (above, below)
        } else {
            (below, above)
        };
        let y = [first, second]
            .into_iter()
            .find(|&y| y >= EDGE_MARGIN && y + size.y <= screen.y - EDGE_MARGIN)?;
        rect.y = y;
    }
    None
}

/// The arrow of a label placed off the screen: a triangle just outside its box, pointing `dir`.
pub fn arrow_triangle(rect: &Rect, dir: Vec2) -> [Vec2; 3] {
    let centre = Vec2::new(rect.x + rect.w * 0.5, rect.y + rect.h * 0.5);
    // How far the box reaches from its centre along `dir`.
    let reach = (rect.w * 0.5 / dir.x.abs().max(1e-6)).min(rect.h * 0.5 / dir.y.abs().max(1e-6));
    // Longer than wide, so it reads as pointing even when slanted.
    let base = centre + dir * (reach + 3.0);
    let side = dir.perp() * 5.5;
    [centre + dir * (reach + 19.0), base + side, base - side]
}

/// The box's centre against the screen's edge (inside the margin) along `dir` from the middle.
fn edge_point(dir: Vec2, size: Vec2, screen: Vec2) -> Vec2 {
    let half = (screen * 0.5 - Vec2::splat(EDGE_MARGIN) - size * 0.5).max(Vec2::ZERO);
    let t = (half.x / dir.x.abs().max(1e-6)).min(half.y / dir.y.abs().max(1e-6));
    screen * 0.5 + dir * t
}

fn rect_at(centre: Vec2, size: Vec2) -> Rect {
    Rect {
        x: centre.x - size.x * 0.5,
        y: centre.y - size.y * 0.5,
        w: size.x,
        h: size.y,
    }
}

fn grown(q: &Rect) -> Rect {
    Rect {
        x: q.x - GAP,
        y: q.y - GAP,
        w: q.w + 2.0 * GAP,
        h: q.h + 2.0 * GAP,
    }
}

fn fits(r: &Rect, screen: Vec2) -> bool {
    r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= screen.x && r.y + r.h <= screen.y
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Vec2 = Vec2::new(1280.0, 720.0);
    const SIZE: Vec2 = Vec2::new(160.0, 44.0);

    fn camera() -> Mat4 {
        let proj = Mat4::perspective_rh_gl(50f32.to_radians(), SCREEN.x / SCREEN.y, 0.1, 500.0);
        proj * Mat4::look_at_rh(Vec3::new(0.0, 20.0, 30.0), Vec3::ZERO, Vec3::Y)
    }

    #[test]
    fn a_point_in_the_picture_gets_its_label_above_it() {
        let Spot::On(p) = spot(&camera(), Vec3::ZERO, SCREEN) else {
            panic!("the focus is on the screen");
        };
        assert!(p.distance(SCREEN * 0.5) < 1.0, "{p}");
        let placed = place(Spot::On(p), SIZE, SCREEN, &[]).expect("free");
        assert_eq!(placed.arrow, None);
        assert!((placed.rect.y + placed.rect.h - p.y).abs() < 1e-3);
        assert!((placed.rect.x + placed.rect.w * 0.5 - p.x).abs() < 1e-3);
    }

    #[test]
    fn points_off_the_screen_or_behind_get_an_edge_label_pointing_their_way() {
        let vp = camera();
        // Far to the right: the label at the right edge, its arrow pointing right.
        let Spot::Off(dir) = spot(&vp, Vec3::new(400.0, 0.0, 0.0), SCREEN) else {
            panic!("off the screen");
        };
        assert!(dir.x > 0.9, "{dir}");
        let placed = place(Spot::Off(dir), SIZE, SCREEN, &[]).expect("free");
        assert!((placed.rect.x + placed.rect.w - (SCREEN.x - EDGE_MARGIN)).abs() < 1e-3);
        let tip = arrow_triangle(&placed.rect, dir)[0];
        assert!(
            tip.x > placed.rect.x + placed.rect.w && tip.x < SCREEN.x,
            "{tip}"
        );
        // Behind the camera: at the bottom edge, pointing down.
        let Spot::Off(dir) = spot(&vp, Vec3::new(0.0, 0.0, 200.0), SCREEN) else {
            panic!("behind");
        };
        assert!(dir.y > 0.9, "{dir}");
        let placed = place(Spot::Off(dir), SIZE, SCREEN, &[]).expect("free");
        assert!((placed.rect.y + placed.rect.h - (SCREEN.y - EDGE_MARGIN)).abs() < 1e-3);
    }

    #[test]
    fn a_label_slides_past_panels_and_earlier_labels_or_is_left_out() {
        let hud = Rect {
            x: 0.0,
            y: 0.0,
            w: 900.0,
            h: 160.0,
        };
        // Up the screen, under the HUD: slides down below it.
        let placed = place(Spot::Off(Vec2::new(0.0, -1.0)), SIZE, SCREEN, &[hud]).expect("room");
        assert!(placed.rect.y >= hud.h + GAP, "{:?}", placed.rect);
        // A second label at the same spot goes below the first.
        let second = place(
            Spot::Off(Vec2::new(0.0, -1.0)),
            SIZE,
            SCREEN,
            &[hud, placed.rect],
        )
        .expect("room");
        assert!(second.rect.y >= placed.rect.y + placed.rect.h + GAP);
        // A panel over the whole screen leaves no room.
        let all = Rect {
            x: 0.0,
            y: 0.0,
            w: SCREEN.x,
            h: SCREEN.y,
        };
        assert_eq!(place(Spot::On(SCREEN * 0.5), SIZE, SCREEN, &[all]), None);
    }
}

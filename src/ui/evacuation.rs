//! The evacuation on screen while an alarm sounds and while its result is fresh: the HUD's
//! alarm box (the clock since the alarm, people still inside, fleeing and out, "emptied in T s",
//! the worst crowding) and each exit labelled where it is in the 3D view (its name, people
//! through, the flow over the last seconds; red and "CLOSED" when closed). The texts are plain
//! functions of the crowd's `Evacuation`, so `--stats-out` reports what was drawn.

use glam::{Mat4, Vec2, Vec3};
use macroquad::prelude::{
    draw_rectangle, draw_rectangle_lines, draw_triangle, measure_text, Color,
};

use super::build_bar::draw_world_lines;
use super::edge_label::{self, Spot};
use super::layout_log::draw_text;
use super::pointer::Rect;
use crate::crowd::evacuation::{Evacuation, ExitStatus, DANGER_DENSITY};
use crate::level::ExitArea;
use crate::view::level_overlay::project;

/// Seconds the exit labels' flow looks back: long enough to smooth single people passing,
/// short enough to show a jam forming or an exit closing.
pub const FLOW_WINDOW: f32 = 5.0;
/// After the all-clear the result stays on screen at least this long (simulated seconds), and
/// as long as anyone is still out, so the player can read how it went.
pub const FRESH_SECONDS: f32 = 20.0;
/// Labels float this high over the exit (m): above heads, so the crowd at it does not hide them.
const LABEL_HEIGHT: f32 = 3.5;
/// The level overlay's labels stand this high (`view::level_overlay`).
const OVERLAY_LABEL_HEIGHT: f32 = 2.2;
const LABEL_FONT: f32 = 16.0;
const OPEN: Color = Color::new(0.35, 1.0, 0.5, 0.95);
const CLOSED: Color = Color::new(1.0, 0.25, 0.2, 0.95);

/// Whether the alarm's HUD and exit labels show: while it sounds, and after the all-clear
/// while people are still out or for `FRESH_SECONDS`.
pub fn shown(evacuation: &Evacuation) -> bool {
    match evacuation.alarm() {
        None => false,
        Some(a) => match a.all_clear_at {
            None => true,
            Some(at) => a.elapsed - at < FRESH_SECONDS || evacuation.out() > 0,
        },
    }
}

/// "1:05" for 65 seconds: a clock reads easier than a pile of seconds once past a minute.
pub fn clock(seconds: f32) -> String {
    let s = seconds.max(0.0) as u32;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The alarm box's lines for a crowd of `people` (empty when it is not shown).
pub fn hud_lines(evacuation: &Evacuation, people: usize) -> Vec<String> {
    let Some(alarm) = evacuation.alarm().filter(|_| shown(evacuation)) else {
        return Vec::new();
    };
    let out = evacuation.out();
    let inside = people.saturating_sub(out);
    let mut lines = Vec::new();
    match alarm.all_clear_at {
        None => {
            lines.push(format!(
                "ALARM   {} since the alarm   (K or the toolbar: all clear)",
                clock(alarm.elapsed)
            ));
            lines.push(format!(
                "{inside} people still inside ({} fleeing)   {out} out",
                evacuation.fleeing()
            ));
        }
        Some(at) => {
            lines.push(format!("ALL CLEAR after {}", clock(at)));
            lines.push(if out > 0 {
                format!("{out} people still out, coming back in")
            } else {
                "everyone is back in".to_string()
            });
        }
    }
    if let Some(line) = emptied_line(evacuation, inside) {
        lines.push(line);
    }
    let worst = evacuation.pressure().worst();
    if worst.seconds_over > 0.0 {
        lines.push(format!(
            "worst crowding {:.1} /m², {:.0} s over {DANGER_DENSITY:.0} /m² (F2 pressure)",
            worst.density, worst.seconds_over
        ));
    }
    lines
}

/// Seconds after the alarm at which the last person got out, by any exit (None: nobody yet).
pub fn last_out_at(evacuation: &Evacuation) -> Option<f32> {
    evacuation
        .exits()
        .iter()
        .filter_map(|e| e.crossings.last().copied())
        .reduce(f32::max)
}

/// When everyone who fled is out: seconds from the alarm to the last of them leaving. Everyone
/// in the level (the crowd's own `emptied_at`), or, while the alarm sounds, everyone who heard
/// it (nobody alarmed is left inside, somebody is out).
pub fn fled_out_at(evacuation: &Evacuation) -> Option<f32> {
    let alarm = evacuation.alarm()?;
    if alarm.emptied_at.is_some() {
        return alarm.emptied_at;
    }
    let done = alarm.all_clear_at.is_none() && evacuation.fleeing() == 0;
    last_out_at(evacuation).filter(|_| done)
}

/// The alarm box's line on how the emptying went, `inside` people being still in the level.
fn emptied_line(evacuation: &Evacuation, inside: usize) -> Option<String> {
    let alarm = evacuation.alarm()?;
    if let Some(t) = alarm.emptied_at {
        return Some(format!("everyone out: emptied in {t:.1} s"));
    }
    if let Some(t) = fled_out_at(evacuation) {
        return Some(format!(
            "everyone who fled is out: emptied in {t:.1} s ({inside} never heard it)"
        ));
    }
    let through: usize = evacuation.exits().iter().map(|e| e.through()).sum();
    match (alarm.all_clear_at, last_out_at(evacuation)) {
        (Some(_), Some(t)) => Some(format!(
            "{through} got out before the all-clear, the last {t:.1} s after the alarm"
        )),
        (Some(_), None) => Some("nobody got out before the all-clear".to_string()),
        _ => None,
    }
}

/// An exit's label lines at `t` seconds after the alarm.
pub fn exit_label(e: &ExitStatus, t: f32) -> [String; 2] {
    let through = e.through();
    let second = if e.closed {
        format!("CLOSED   {through} through")
    } else {
        format!("{through} through   {:.1} /s", e.flow(t, FLOW_WINDOW))
    };
    [e.name.clone(), second]
}

/// Each exit marked on the ground (unless the level overlay draws the exits itself) and
/// labelled over it; an exit off the screen (or behind the camera) is labelled at the edge
/// its way, with an arrow. Labels keep off `panels` and off each other, those on the screen
/// placed first; one that finds no room is left out.
pub fn draw_exit_labels(
    evacuation: &Evacuation,
    view_proj: &Mat4,
    screen: Vec2,
    panels: &[Rect],
    overlay_on: bool,
) {
    let Some(alarm) = evacuation.alarm().filter(|_| shown(evacuation)) else {
        return;
    };
    let mut spots: Vec<(usize, Spot)> = evacuation
        .exits()
        .iter()
        .enumerate()
        .map(|(k, e)| (k, label_spot(&e.area, view_proj, screen, overlay_on)))
        .collect();
    spots.sort_by_key(|(_, s)| matches!(s, Spot::Off(_)));
    let mut taken = panels.to_vec();
    for (k, spot) in spots {
        let e = &evacuation.exits()[k];
        let color = if e.closed { CLOSED } else { OPEN };
        if !overlay_on {
            draw_world_lines(view_proj, screen, &ground_outline(&e.area), 4.0, color);
        }
        let lines = exit_label(e, alarm.elapsed);
        let w = lines
            .iter()
            .map(|l| measure_text(l, None, LABEL_FONT as u16, 1.0).width)
            .fold(0.0, f32::max)
            + 12.0;
        let Some(placed) = edge_label::place(spot, Vec2::new(w, 44.0), screen, &taken) else {
            continue;
        };
        let r = placed.rect;
        taken.push(r);
        draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.72));
        draw_rectangle_lines(r.x, r.y, r.w, r.h, 2.0, color);
        if let Some(dir) = placed.arrow {
            let [a, b, c] = edge_label::arrow_triangle(&r, dir);
            draw_triangle(a, b, c, color);
        }
        draw_text(&lines[0], r.x + 6.0, r.y + 18.0, LABEL_FONT, color);
        let white = Color::new(1.0, 1.0, 1.0, 1.0);
        let second = if e.closed { color } else { white };
        draw_text(&lines[1], r.x + 6.0, r.y + 38.0, LABEL_FONT, second);
    }
}

/// Where an exit's label stands: over its centre above heads; with the level overlay on, also
/// clear above the overlay's own label of the exit (its state and capacity).
fn label_spot(area: &ExitArea, view_proj: &Mat4, screen: Vec2, overlay_on: bool) -> Spot {
    let c = area.center();
    let spot = edge_label::spot(view_proj, Vec3::new(c.x, LABEL_HEIGHT, c.y), screen);
    match (spot, overlay_on) {
        (Spot::On(p), true) => {
            match project(view_proj, Vec3::new(c.x, OVERLAY_LABEL_HEIGHT, c.y), screen) {
                // The overlay's label reaches about 20 pixels up from its point.
                Some(q) => Spot::On(Vec2::new(p.x, p.y.min(q.y - 24.0))),
                None => spot,
            }
        }
        _ => spot,
    }
}

/// An exit's area as segments a few centimetres above the ground.
fn ground_outline(area: &ExitArea) -> Vec<(Vec3, Vec3)> {
    let up = |p: Vec2| Vec3::new(p.x, 0.06, p.y);
    match *area {
        ExitArea::Line(a, b) => vec![(up(a), up(b))],
        ExitArea::Box {
            center,
            half_extents: h,
        } => {
            let c = [
                center + Vec2::new(-h.x, -h.y),
                center + Vec2::new(h.x, -h.y),
                center + Vec2::new(h.x, h.y),
                center + Vec2::new(-h.x, h.y),
            ]
            .map(up);
            (0..4).map(|k| (c[k], c[(k + 1) % 4])).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::{Crowd, StepInputs};

    fn plaza() -> crate::level::Level {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut level =
            crate::level::load_level(&root.join("levels/plaza.ron"), root).expect("plaza");
        level.crowd.behaviour.alarm.hearing_radius = 500.0;
        level
    }

    fn steps(c: &mut Crowd, seconds: f32) {
        for _ in 0..(seconds * 60.0) as usize {
            c.step(1.0 / 60.0, &StepInputs::default());
        }
    }

    #[test]
    fn the_box_counts_people_out_and_stays_a_while_after_the_all_clear() {
        let mut c = Crowd::from_level(&plaza(), 60, 3);
        assert!(!shown(c.evacuation()));
        assert!(hud_lines(c.evacuation(), c.len()).is_empty());
        c.raise_alarm(Vec2::ZERO);
        steps(&mut c, 4.5);
        let lines = hud_lines(c.evacuation(), c.len());
        assert!(
            lines[0].starts_with("ALARM   0:04 since the alarm"),
            "{lines:?}"
        );
        let out = c.evacuation().out();
        assert!(
            lines[1].contains(&format!("{} people still inside", 60 - out)),
            "{lines:?}"
        );
        let t = c.evacuation().alarm().expect("sounding").elapsed;
        let through: usize = c.evacuation().exits().iter().map(|e| e.through()).sum();
        assert_eq!(through, out);
        let label = exit_label(&c.evacuation().exits()[0], t);
        assert_eq!(label[0], "north_exit");
        assert!(label[1].ends_with(" /s"), "{label:?}");
        c.set_exit_closed(0, true);
        let label = exit_label(&c.evacuation().exits()[0], t);
        assert!(label[1].starts_with("CLOSED"), "{label:?}");
        c.all_clear();
        let lines = hud_lines(c.evacuation(), c.len());
        assert!(lines[0].starts_with("ALL CLEAR after 0:04"), "{lines:?}");
        // Everyone back (or never out) and the fresh time over: the box goes.
        steps(&mut c, FRESH_SECONDS + 90.0);
        assert_eq!(c.evacuation().out(), 0);
        assert!(!shown(c.evacuation()));
    }

    #[test]
    fn the_clock_reads_minutes_and_seconds() {
        assert_eq!(clock(0.0), "0:00");
        assert_eq!(clock(65.4), "1:05");
        assert_eq!(clock(-3.0), "0:00");
        assert_eq!(clock(3600.0), "60:00");
    }
}

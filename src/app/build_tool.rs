//! The build toolbar's hands in the play window: which thing is held and how it is turned,
//! the ghost under the pointer checked with `crowd::placing::check_fit`, placing, picking up,
//! turning and removing placed things (each change one undo step on the level editor's
//! stack), the alarm button (armed, the next ground click raises the alarm there; while one
//! sounds, the all-clear), and picking people with a click (the story card's selection).

use glam::{Mat4, Vec2};
use macroquad::prelude::KeyCode;

use super::input_events::KeyPress;
use super::level_tools::LevelTools;
use crate::crowd::placing::{FitCheck, Misfit};
use crate::game::Game;
use crate::level::{Level, Placed, ThingKind};
use crate::ui::build_bar::{self, BarClick};
use crate::ui::pointer::{Pointer, Rect};

/// Degrees one press of R (or one wheel notch) turns the held thing.
pub const TURN_STEP_DEG: f32 = 15.0;
/// Placed things snap to this grid (m), so a row of fences lines up.
const SNAP: f32 = 0.25;
/// A press and release this close (pixels) is a click, not a drag.
const CLICK_SLOP: f32 = 5.0;

#[derive(Default)]
pub struct BuildTool {
    /// The kind held (the ghost), if any.
    held: Option<ThingKind>,
    heading_deg: f32,
    /// A placed thing picked up to move: its old entry (put back on cancel).
    carrying: Option<Placed>,
    /// Where a world press started (for a click that selects a person).
    press_at: Option<Vec2>,
    /// The alarm button was pressed: the next ground click raises the alarm there.
    alarm_armed: bool,
    /// The level's side of the ghost's fit check, for the scenery version it was made at: the
    /// ghost is checked every frame, the level only changes with a placement or a reload.
    fit: Option<(u64, FitCheck)>,
}

/// The frame's share of what the tool needs.
pub struct BuildFrame<'a> {
    pub pointer: Pointer,
    pub screen: Vec2,
    pub keys: &'a [KeyPress],
    pub view_proj: Mat4,
}

fn snap(v: f32) -> f32 {
    (v / SNAP).round() * SNAP
}

/// The first name `kind_N` no element of the level has (placed things, obstacles, points of
/// interest), so messages about it name one thing.
fn fresh_name(level: &Level, kind: ThingKind) -> String {
    let base = kind.label().replace(' ', "_");
    let taken = |name: &str| {
        level.placed.iter().any(|p| p.name == name)
            || level.obstacles.iter().any(|o| o.name == name)
            || level.points_of_interest.iter().any(|p| p.name == name)
    };
    (1..)
        .map(|n| format!("{base}_{n}"))
        .find(|name| !taken(name))
        .unwrap_or(base)
}

/// The placed thing whose footprint is under `ground`.
fn placed_at(level: &Level, ground: Vec2) -> Option<usize> {
    level.placed.iter().position(|p| {
        p.obstacles()
            .iter()
            .any(|o| o.shape.signed_distance(ground).0 < 0.3)
    })
}

impl BuildTool {
    /// Whether the tool wants the whole mouse (a thing is held, or the alarm is armed).
    pub fn holds(&self) -> bool {
        self.held.is_some() || self.alarm_armed
    }

    /// The build mode closed: whatever was held is dropped (a carried thing stays where it was).
    pub fn close(&mut self, game: &mut Game) {
        self.cancel(game);
    }

    fn cancel(&mut self, game: &mut Game) {
        self.alarm_armed = false;
        if let Some(back) = self.carrying.take() {
            let mut placed = game.level().placed.clone();
            placed.push(back);
            game.set_placed(placed);
        }
        self.held = None;
    }

    /// One frame of build mode: the toolbar, keys, the ghost or the hovered thing, and what a
    /// click does. Pushes the rectangles that take the mouse to `covered`; returns a note.
    pub fn frame(
        &mut self,
        game: &mut Game,
        tools: &mut LevelTools,
        f: &BuildFrame,
        covered: &mut Vec<Rect>,
    ) -> Option<String> {
        let mut note = None;
        let sounding = game.agents.evacuation().sounding();
        // K raised it meanwhile: the button now gives the all-clear instead.
        self.alarm_armed &= !sounding;
        let alarm = build_bar::AlarmButton {
            armed: self.alarm_armed,
            sounding,
        };
        let (clicked, bar) = build_bar::draw_bar(
            f.screen,
            self.held,
            alarm,
            game.recording().is_some(),
            &f.pointer,
        );
        covered.push(bar);
        self.keys(game, f);
        match clicked {
            Some(BarClick::Thing(kind)) => {
                self.take(game, kind);
                return None;
            }
            Some(BarClick::Alarm) => return self.alarm_button(game),
            Some(BarClick::Record) => {
                // The game says where the file goes, or why it cannot record.
                game.toggle_recording(None);
                return None;
            }
            None => {}
        }
        let over_bar = bar.contains(f.pointer.pos.x, f.pointer.pos.y);
        let ground = super::level_tools::ground_at(&f.view_proj, f.pointer.pos, f.screen);
        if self.alarm_armed {
            let ground = ground.filter(|_| !over_bar);
            return self.armed_alarm(game, f, ground, covered);
        }
        if let Some(kind) = self.held {
            // The held thing takes the whole mouse: clicks place it, the wheel turns it.
            covered.push(Rect {
                x: 0.0,
                y: 0.0,
                w: f.screen.x,
                h: f.screen.y,
            });
            self.heading_deg =
                (self.heading_deg + f.pointer.wheel * TURN_STEP_DEG).rem_euclid(360.0);
            if f.pointer.pressed.right {
                self.cancel(game);
                return Some("put down nothing (right-click)".into());
            }
            let (Some(g), false) = (ground, over_bar) else {
                return None;
            };
            let thing = Placed {
                name: self
                    .carrying
                    .as_ref()
                    .map_or_else(|| fresh_name(game.level(), kind), |c| c.name.clone()),
                kind,
                at: Vec2::new(snap(g.x), snap(g.y)),
                heading_deg: self.heading_deg,
            };
            let version = game.scenery_version();
            if self.fit.as_ref().is_none_or(|(v, _)| *v != version) {
                self.fit = Some((version, FitCheck::new(game.level())));
            }
            let fit = match &self.fit {
                Some((_, check)) => check.check(&thing),
                None => Ok(()),
            };
            let audience = thing.attraction().map(|a| {
                (
                    a.centre,
                    a.radius + 0.8 + crate::crowd::shows::RING_SPACING * 4.0,
                )
            });
            let why = fit.as_ref().err().map(Misfit::to_string);
            build_bar::draw_ghost(
                &f.view_proj,
                f.screen,
                &thing.obstacles(),
                audience,
                why.as_deref(),
                f.pointer.pos,
                kind.label(),
            );
            if f.pointer.pressed.left {
                note = Some(match fit {
                    Ok(()) => self.put_down(game, tools, thing),
                    Err(why) => format!("the {} cannot go there: {why}", kind.label()),
                });
            }
            return note;
        }
        // Nothing held: a placed thing under the pointer can be picked up or removed.
        let hovered = ground
            .filter(|_| !over_bar)
            .and_then(|g| placed_at(game.level(), g));
        if let Some(k) = hovered {
            build_bar::draw_hovered(&f.view_proj, f.screen, &game.level().placed[k].obstacles());
            let remove =
                f.pointer.pressed.right || f.keys.iter().any(|key| key.code == KeyCode::Delete);
            if remove {
                let before = game.level().clone();
                let mut placed = before.placed.clone();
                let gone = placed.remove(k);
                tools.record_placement(before);
                game.set_placed(placed);
                return Some(format!(
                    "removed {} ({}): unsaved until Ctrl+S (Ctrl+Z undoes)",
                    gone.name,
                    gone.kind.label()
                ));
            }
            if f.pointer.pressed.left {
                let mut placed = game.level().placed.clone();
                let picked = placed.remove(k);
                self.held = Some(picked.kind);
                self.heading_deg = picked.heading_deg;
                note = Some(format!(
                    "moving {}: click to put it down, right-click to cancel",
                    picked.name
                ));
                self.carrying = Some(picked);
                game.set_placed(placed);
                // Takes the mouse from the next frame on, before the camera starts a drag.
                covered.push(Rect {
                    x: 0.0,
                    y: 0.0,
                    w: f.screen.x,
                    h: f.screen.y,
                });
            }
        }
        note
    }

    fn take(&mut self, game: &mut Game, kind: ThingKind) {
        if self.carrying.is_some() {
            self.cancel(game);
        }
        self.alarm_armed = false;
        self.held = Some(kind);
    }

    /// The toolbar's keys: 1-8 take a thing, R / Shift+R turn the held one.
    fn keys(&mut self, game: &mut Game, f: &BuildFrame) {
        for key in f.keys.iter().filter(|k| !k.mods.ctrl) {
            if let Some(k) = super::input_events::DIGIT_KEYS
                .iter()
                .position(|c| *c == key.code)
            {
                self.take(game, ThingKind::ALL[k]);
            } else if key.code == KeyCode::R && self.held.is_some() {
                let step = if key.mods.shift {
                    -TURN_STEP_DEG
                } else {
                    TURN_STEP_DEG
                };
                self.heading_deg = (self.heading_deg + step).rem_euclid(360.0);
            }
        }
    }

    /// The alarm button: the all-clear while an alarm sounds; otherwise it arms the next
    /// ground click (a toolbar's buttons act where the player clicks next, as placing does),
    /// or disarms it when pressed again.
    fn alarm_button(&mut self, game: &mut Game) -> Option<String> {
        if game.agents.evacuation().sounding() {
            // The game says "all clear" itself.
            game.all_clear();
            return None;
        }
        if std::mem::take(&mut self.alarm_armed) {
            return Some("no alarm (the button again)".into());
        }
        self.cancel(game);
        self.alarm_armed = true;
        // The ghost beside the pointer says what to do.
        None
    }

    /// The armed alarm takes the whole mouse: its hearing circle follows the pointer, a click
    /// on the ground raises it there, a right-click puts it away.
    fn armed_alarm(
        &mut self,
        game: &mut Game,
        f: &BuildFrame,
        ground: Option<Vec2>,
        covered: &mut Vec<Rect>,
    ) -> Option<String> {
        covered.push(Rect {
            x: 0.0,
            y: 0.0,
            w: f.screen.x,
            h: f.screen.y,
        });
        let hearing = game.level().crowd.behaviour.alarm.hearing_radius;
        build_bar::draw_alarm_ghost(&f.view_proj, f.screen, ground, hearing, f.pointer.pos);
        if f.pointer.pressed.right {
            self.alarm_armed = false;
            return Some("no alarm (right-click)".into());
        }
        if let (true, Some(g)) = (f.pointer.pressed.left, ground) {
            self.alarm_armed = false;
            // The game's note says where it sounds and how to give the all-clear.
            game.raise_alarm(g);
        }
        None
    }

    /// Places `thing` (new or carried) as one undo step.
    fn put_down(&mut self, game: &mut Game, tools: &mut LevelTools, thing: Placed) -> String {
        let mut before = game.level().clone();
        let verb = match self.carrying.take() {
            Some(old) => {
                // The undo step goes back to where it was picked up from.
                before.placed.push(old);
                self.held = None;
                "moved"
            }
            None => "placed",
        };
        let mut placed = game.level().placed.clone();
        let (name, label) = (thing.name.clone(), thing.kind.label());
        placed.push(thing);
        tools.record_placement(before);
        game.set_placed(placed);
        format!("{verb} {name} ({label}): unsaved until Ctrl+S (Ctrl+Z undoes)")
    }

    /// A click on the world (press and release in place) selects the person under it, or
    /// nobody; `world` is the camera's share of the mouse.
    pub fn pick_person(
        &mut self,
        game: &mut Game,
        world: &Pointer,
        view_proj: &Mat4,
        screen: Vec2,
    ) {
        if world.pressed.left {
            self.press_at = Some(world.pos);
            return;
        }
        if world.down.left {
            return;
        }
        let Some(at) = self.press_at.take() else {
            return;
        };
        if at.distance(world.pos) > CLICK_SLOP {
            return;
        }
        let ndc = Vec2::new(at.x / screen.x * 2.0 - 1.0, 1.0 - at.y / screen.y * 2.0);
        let (positions, _) = game.agents.drawn_poses();
        let picked = crate::view::pick::pick_person(view_proj, ndc, positions);
        game.select_person(picked);
    }
}

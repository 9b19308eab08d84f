//! The designer's tools in the play window: the heat map's samples, the level overlay with the
//! element under the pointer and the one the file's error names, and edit mode (drags, the
//! edit keys, the save) over `level_edit::Editor`. The logic lives in the GL-free modules; this
//! feeds them the pointer and keys and applies what they answer to the game.

use std::path::Path;

use glam::{Mat4, Vec2};

use crate::game::Game;
use crate::level::locate::FieldMap;
use crate::level::{Level, LevelError, LevelWatcher};
use crate::level_edit::{EditCommand, EditOutcome, Editor, Element};
use crate::settings::Panels;
use crate::ui::level_overlay::{draw as draw_overlay, draw_tooltip, OverlayView};
use crate::ui::pointer::{Pointer, Rect};
use crate::view::camera::ground_point;
use crate::view::heat_map::{HeatMap, HeatView};
use crate::view::level_overlay::{pick, LevelOverlay};

pub struct LevelTools {
    /// None when the level file's text could not be read at start (nothing to patch).
    editor: Option<Editor>,
    heat: HeatMap,
    /// Simulated seconds at the last heat sample.
    last_sim: f64,
    /// A change of the file that arrived while the game held unsaved edits: loaded once they
    /// are undone (loading it now would drop them).
    held_reload: Option<Level>,
    /// The hovered element's tooltip (its lines and the pointer), drawn after every panel so
    /// none hides it (`draw_tooltip`).
    tooltip: Option<(Vec<String>, Vec2)>,
    /// The rectangle pushed round the pointer last frame while it was over an exit (overlay
    /// on, edit mode off), so a press there comes to the overlay, not the camera; the
    /// overlay's own cover does not count as a panel over the world.
    exit_cover: Option<Rect>,
}

/// What the overlay needs of the frame.
pub struct ToolsFrame<'a> {
    pub panels: Panels,
    /// The panels' share of the mouse, in logical units.
    pub pointer: Pointer,
    /// The screen in logical units.
    pub screen: Vec2,
    /// What the panels covered when last drawn.
    pub panel_rects: &'a [Rect],
    pub watcher: &'a LevelWatcher,
}

const NO_EDITOR: &str = "edit mode needs the level file's text, which could not be read";

impl LevelTools {
    pub fn new(watcher: &LevelWatcher, level: &Level, asset_root: &Path) -> LevelTools {
        let editor = watcher
            .good_text()
            .map(|t| Editor::new(watcher.path(), asset_root, t.to_string(), level.clone()))
            .map(|e| e.with_route_check(crate::level_routes::unreachable_exits));
        LevelTools {
            editor,
            heat: HeatMap::new(&level.bounds),
            last_sim: 0.0,
            held_reload: None,
            tooltip: None,
            exit_cover: None,
        }
    }

    /// Adds the simulated time since the last frame to the heat map (while it is shown).
    pub fn sample_heat(&mut self, game: &Game, view: HeatView) {
        let now = game.sim_time();
        let dt = (now - self.last_sim).clamp(0.0, 1.0) as f32;
        self.last_sim = now;
        if !self.heat.fits(&game.level().bounds) {
            self.heat = HeatMap::new(&game.level().bounds);
        }
        if view != HeatView::Off {
            self.heat
                .sample(&game.agents.pos, game.step_velocities(), dt);
        }
    }

    fn unsaved(&self, game: &Game) -> bool {
        self.editor
            .as_ref()
            .is_some_and(|e| e.unsaved(game.level()))
    }

    /// A reload the watcher polled: what to apply to the game now, and a note for the HUD.
    /// A good file that arrives while edits are unsaved is held back, not applied.
    pub fn take_reload(
        &mut self,
        result: Result<Level, LevelError>,
        game: &Game,
        watcher: &LevelWatcher,
    ) -> (Option<Result<Level, LevelError>>, Option<String>) {
        let Ok(level) = result else {
            return (Some(result), None);
        };
        if self.unsaved(game) {
            self.held_reload = Some(level);
            let note = format!(
                "{} changed on disk: your unsaved edits are kept (Ctrl+S now refuses); undo \
                 them with Ctrl+Z to load the file",
                watcher.path().display()
            );
            return (None, Some(note));
        }
        self.held_reload = None;
        if let (Some(e), Some(text)) = (&mut self.editor, watcher.good_text()) {
            e.file_reloaded(text.to_string(), level.clone());
        }
        (Some(Ok(level)), None)
    }

    /// The held file change, once no unsaved edits are left.
    pub fn release_held(&mut self, game: &Game, watcher: &LevelWatcher) -> Option<Level> {
        if self.held_reload.is_none() || self.unsaved(game) {
            return None;
        }
        let level = self.held_reload.take()?;
        if let (Some(e), Some(text)) = (&mut self.editor, watcher.good_text()) {
            e.file_reloaded(text.to_string(), level.clone());
        }
        Some(level)
    }

    /// Carries out an edit key; returns the note for the HUD.
    pub fn command(
        &mut self,
        command: EditCommand,
        game: &mut Game,
        watcher: &mut LevelWatcher,
    ) -> String {
        let Some(editor) = &mut self.editor else {
            return NO_EDITOR.to_string();
        };
        let level = game.level().clone();
        match command {
            EditCommand::Save => match editor.save(&level) {
                Ok(s) if s.numbers == 0 && s.placed_changes == 0 => {
                    "nothing moved: nothing to save".to_string()
                }
                Ok(s) => {
                    watcher.own_write(s.text);
                    let plural = |n: usize, one: &str, many: &str| {
                        format!("{n} {}", if n == 1 { one } else { many })
                    };
                    let what = match (s.numbers, s.placed_changes) {
                        (n, 0) => plural(n, "changed number", "changed numbers"),
                        (0, p) => plural(p, "placed-thing change", "placed-thing changes"),
                        (n, p) => format!(
                            "{} and {}",
                            plural(n, "changed number", "changed numbers"),
                            plural(p, "placed-thing change", "placed-thing changes")
                        ),
                    };
                    format!(
                        "saved {what} to {} (the file before is {})",
                        watcher.path().display(),
                        s.backup.display()
                    )
                }
                Err(e) => e,
            },
            EditCommand::Undo | EditCommand::Redo => {
                let undo = command == EditCommand::Undo;
                let next = if undo {
                    editor.undo(&level)
                } else {
                    editor.redo(&level)
                };
                match next {
                    Some(l) => {
                        game.apply_edit(l);
                        (if undo { "undone" } else { "redone" }).to_string()
                    }
                    None if undo => "nothing to undo".to_string(),
                    None => "nothing to redo".to_string(),
                }
            }
            EditCommand::Rotate(degrees) => match editor.rotate_selected(degrees, &level) {
                EditOutcome::Apply(l) => {
                    game.apply_edit(*l);
                    format!("turned {degrees} degrees")
                }
                EditOutcome::Refused(why) => why,
                EditOutcome::None => String::new(),
            },
        }
    }

    /// A placed thing changed in the build toolbar: `before` is one undo step.
    pub fn record_placement(&mut self, before: Level) {
        if let Some(e) = &mut self.editor {
            e.record(before);
        }
    }

    /// The edit-mode line of the HUD.
    pub fn hud_line(&self, game: &Game, panels: &Panels) -> Option<String> {
        if !panels.edit_mode {
            return None;
        }
        let state = if self.unsaved(game) {
            "UNSAVED CHANGES"
        } else {
            "saved"
        };
        Some(format!(
            "EDIT MODE (F9): drag the white handles   R / Shift+R turn a box   Ctrl+Z / Ctrl+Y \
             undo / redo   Ctrl+S save   [{state}]"
        ))
    }

    /// Draws the heat map and the level overlay, moves what edit mode drags, and shows the
    /// element under the pointer. Movable handles are pushed to `covered` (they take the mouse
    /// from the camera). Returns a note for the HUD (a move applied, or refused).
    pub fn draw(
        &mut self,
        game: &mut Game,
        f: &ToolsFrame,
        covered: &mut Vec<Rect>,
    ) -> Option<String> {
        self.tooltip = None;
        let view_proj = game
            .camera
            .view_projection(f.screen.x / f.screen.y.max(1.0));
        let heat = crate::ui::heat_map::HeatFrame {
            view: f.panels.heat_map,
            view_proj,
            screen: f.screen,
            build_open: f.panels.build,
            panel_rects: f.panel_rects,
        };
        covered.extend(crate::ui::heat_map::draw_view(
            &self.heat,
            game.agents.evacuation(),
            &heat,
        ));
        let edit = f.panels.edit_mode;
        if !edit {
            if let Some(e) = &mut self.editor {
                e.cancel_drag();
            }
        }
        if !(f.panels.level_overlay || edit) {
            return None;
        }
        let ground = ground_at(&view_proj, f.pointer.pos, f.screen);
        let note = if edit {
            self.drag(game, &view_proj, f, ground)
        } else {
            None
        };
        let mut level = match self.editor.as_ref().and_then(|e| e.preview()) {
            Some(preview) => preview.clone(),
            None => game.level().clone(),
        };
        shown_exit_states(&mut level, game);
        let mut overlay = LevelOverlay::build(&level, game.agents.poi_occupancy());
        overlay.show_readings(game.meters());
        overlay.merge_close_handles(&view_proj, f.screen);
        let error = game.reload_error();
        let broken = error.and_then(|e| Element::from_field_path(&e.field, &level));
        if let Some(e) = broken {
            overlay.highlight(e);
        }
        let dragged = self.editor.as_ref().and_then(Editor::dragging);
        if let Some(e) = dragged {
            overlay.highlight(e);
        }
        // The overlay's own cover round a hovered exit is no panel: the exit's label stays
        // and the exit stays hovered.
        let cover = self.exit_cover.take();
        let panels: Vec<Rect> = f
            .panel_rects
            .iter()
            .copied()
            .filter(|r| Some(*r) != cover)
            .collect();
        let view = OverlayView {
            view_proj,
            eye: game.camera.eye(),
            screen: f.screen,
            panels: &panels,
            edit_mode: edit,
        };
        let grips = draw_overlay(&overlay, &view);
        if edit {
            covered.extend(grips);
        }
        // Over a panel (or the HUD) the pointer hovers that, not the world under it: a tooltip
        // there would be drawn beneath the panel and show through it.
        let at = f.pointer.pos;
        let over_panel = panels.iter().any(|r| r.contains(at.x, at.y));
        let hovered = dragged.or_else(|| {
            (!over_panel)
                .then(|| pick(&overlay, &view_proj, f.screen, at, ground, false))
                .flatten()
        });
        if let Some(e) = hovered {
            let mut lines = describe(e, &level, f.watcher);
            if let Some(err) = error.filter(|_| broken == Some(e)) {
                lines.push(format!("error: {}", err.message));
            }
            if let (Element::Exit(k), false) = (e, edit) {
                let closed = level.exits.get(k).is_some_and(|x| x.closed);
                lines.push(format!(
                    "click to {}",
                    if closed { "open" } else { "close" }
                ));
            }
            self.tooltip = Some((lines, f.pointer.pos));
        }
        if let (Some(Element::Exit(k)), false) = (hovered, edit) {
            self.click_exit(game, k, f, covered);
        }
        note
    }

    /// The pointer is over exit `k` in the overlay: the area round it takes the mouse from the
    /// camera (from the next frame), and a press there opens or closes the exit in the running
    /// game (the game says which in its note; the file is not changed).
    fn click_exit(&mut self, game: &mut Game, k: usize, f: &ToolsFrame, covered: &mut Vec<Rect>) {
        let s = crate::view::level_overlay::HANDLE_PICK_PIXELS;
        let r = Rect {
            x: f.pointer.pos.x - s,
            y: f.pointer.pos.y - s,
            w: 2.0 * s,
            h: 2.0 * s,
        };
        covered.push(r);
        self.exit_cover = Some(r);
        if f.pointer.pressed.left {
            game.toggle_exit(k);
        }
    }

    /// This frame's tooltip, if an element is hovered; call once the panels are drawn.
    pub fn draw_tooltip(&mut self, screen: Vec2) {
        if let Some((lines, at)) = self.tooltip.take() {
            draw_tooltip(&lines, at, screen);
        }
    }

    /// Edit mode's share of the pointer: a press on a movable handle grabs it, holding drags
    /// it over the ground, letting go applies the move (or says why it cannot be there).
    fn drag(
        &mut self,
        game: &mut Game,
        view_proj: &Mat4,
        f: &ToolsFrame,
        ground: Option<Vec2>,
    ) -> Option<String> {
        let editor = self.editor.as_mut()?;
        let p = f.pointer;
        if editor.dragging().is_some() {
            if p.down.left {
                if let Some(g) = ground {
                    editor.drag_to(g);
                }
                return None;
            }
            let moved = editor.dragging().map(|e| e.name(game.level()));
            return match editor.end_drag(game.level()) {
                EditOutcome::Apply(level) => {
                    game.apply_edit(*level);
                    moved.map(|name| format!("moved {name}: unsaved until Ctrl+S (Ctrl+Z undoes)"))
                }
                EditOutcome::Refused(why) => Some(why),
                EditOutcome::None => None,
            };
        }
        if p.pressed.left {
            let mut overlay = LevelOverlay::build(game.level(), &[]);
            // Picks what is drawn: a seat merged into its bench's handle grabs the bench.
            overlay.merge_close_handles(view_proj, f.screen);
            let grabbed = pick(&overlay, view_proj, f.screen, p.pos, ground, true);
            if let (Some(e), Some(g)) = (grabbed, ground) {
                editor.begin_drag(e, g, game.level());
            }
        }
        None
    }
}

/// The overlay shows each exit as the running game has it: open or closed by a click (the
/// crowd's exit states), not as the file says. Matched by index and name, so a level whose
/// exits changed (a reload not yet taken by the crowd) keeps the file's states.
fn shown_exit_states(level: &mut Level, game: &Game) {
    for (exit, now) in level.exits.iter_mut().zip(game.agents.evacuation().exits()) {
        if exit.name == now.name {
            exit.closed = now.closed;
        }
    }
}

/// The pointer's point on the ground (x, z), if it points at the ground.
pub(super) fn ground_at(view_proj: &Mat4, pos: Vec2, screen: Vec2) -> Option<Vec2> {
    let ndc = Vec2::new(pos.x / screen.x * 2.0 - 1.0, 1.0 - pos.y / screen.y * 2.0);
    ground_point(view_proj, ndc).map(|p| Vec2::new(p.x, p.z))
}

/// The tooltip of an element: its name, its kind and where the file writes it.
fn describe(e: Element, level: &Level, watcher: &LevelWatcher) -> Vec<String> {
    let (name, kind) = (e.name(level), e.kind(level));
    let mut lines = if name == kind {
        vec![name]
    } else {
        vec![name, kind]
    };
    if let Some(text) = watcher.good_text() {
        let pos = FieldMap::new(text).position_of(&e.field_path());
        lines.push(format!(
            "{}:{}:{}",
            watcher.path().display(),
            pos.line,
            pos.col
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameOptions;

    const PLAZA: &str = include_str!("../../levels/plaza.ron");

    #[test]
    fn a_file_change_waits_while_edits_are_unsaved_and_loads_once_they_are_undone() {
        let dir = tempfile::tempdir().expect("scratch");
        let path = dir.path().join("plaza.ron");
        std::fs::write(&path, PLAZA).expect("copy");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let level: Level = ron::from_str(PLAZA).expect("parses");
        let mut watcher = LevelWatcher::new(&path, root);
        let mut tools = LevelTools::new(&watcher, &level, root);
        let options = GameOptions {
            crowd: Some(10),
            seed: None,
        };
        let mut game = Game::new(level.clone(), options);
        let editor = tools.editor.as_mut().expect("the file's text");
        assert!(editor.begin_drag(Element::Poi(0), Vec2::new(0.0, -9.6), &level));
        editor.drag_to(Vec2::new(2.0, -9.6));
        let EditOutcome::Apply(moved) = editor.end_drag(&level) else {
            panic!("the move applies");
        };
        game.apply_edit(*moved);
        assert_eq!(game.reload_count(), 0, "an edit is no reload");

        std::fs::write(&path, PLAZA.replace("count: 2000", "count: 1900")).expect("their edit");
        let polled = watcher.poll().expect("noticed");
        let (apply, note) = tools.take_reload(polled, &game, &watcher);
        assert!(apply.is_none(), "held back: it would drop the edit");
        assert!(note.is_some_and(|n| n.contains("your unsaved edits are kept")));
        assert!(
            tools.release_held(&game, &watcher).is_none(),
            "still unsaved"
        );
        let refused = tools.command(EditCommand::Save, &mut game, &mut watcher);
        assert!(
            refused.contains("changed on disk since it was loaded"),
            "{refused}"
        );

        assert_eq!(
            tools.command(EditCommand::Undo, &mut game, &mut watcher),
            "undone"
        );
        let loaded = tools.release_held(&game, &watcher).expect("loads now");
        assert_eq!(loaded.crowd.count, 1900);
        game.apply_reload(Ok(loaded));
        // The file's version is the new base: nothing unsaved, and a save has nothing to write.
        assert_eq!(
            tools.command(EditCommand::Save, &mut game, &mut watcher),
            "nothing moved: nothing to save"
        );
        assert_eq!(
            tools.command(EditCommand::Undo, &mut game, &mut watcher),
            "nothing to undo"
        );
    }
}
